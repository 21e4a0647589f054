"""`pnp watch`: rebuild a game each time one of its files changes, in a process kept warm.

A designer edits a number and saves; the PDFs follow. The process keeps WeasyPrint imported
and its workers running between builds, so a rebuild pays only for reading the pack and for
the parts that changed. A mistake prints its findings and leaves the last good PDFs alone.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from . import BUILD_DIR, CARDS_DIR, FONTS_DIR, PACK_BUILD, TEMPLATES_DIR
from .build import Progress, build_game
from .cache import BuildOptions
from .errors import PackError, PnpError
from .fonts import load_fonts
from .workers import Workers

POLL = 0.05  # seconds between looks at the files' sizes and modification times


def stamps(folders: list[Path]) -> dict[str, tuple[int, int]]:
    """Every file under the folders, with its size and modification time, a pack's own
    build/ left out. A file or folder that goes while it looks (an editor's temporary file) is
    left out, never an error."""
    found = {}
    for folder in folders:
        for parent, folders_in, names in os.walk(folder):  # one it cannot read is skipped
            if parent == str(folder) and PACK_BUILD in folders_in:
                folders_in.remove(PACK_BUILD)
            for name in names:
                path = os.path.join(parent, name)
                try:
                    info = None if name.startswith(".") else os.stat(path)
                except OSError:  # gone since it was listed, or a link to nothing
                    continue
                if info is not None and stat.S_ISREG(info.st_mode):
                    found[path] = (info.st_size, info.st_mtime_ns)
    return found


def watch(name: str, options: BuildOptions, out_root: Path = BUILD_DIR,
          cards_dir: Path = CARDS_DIR, progress: Progress = lambda message: None,
          stop: Callable[[], bool] = lambda: False) -> None:
    """Build now, then again whenever a file of the pack, a template or a font changes,
    until `stop` says so."""
    folders = [cards_dir / name, TEMPLATES_DIR, FONTS_DIR]
    seen: dict[str, tuple[int, int]] = {}
    warmed = False
    with Workers().start() as workers:
        while not stop():
            now = stamps(folders)
            if now == seen:
                time.sleep(POLL)
                continue
            seen = now
            began = time.perf_counter()
            try:
                build_game(name, options, out_root, cards_dir, progress, workers)
            except PackError as exc:
                for finding in exc.findings:
                    progress(str(finding))
                progress(f"{name}: {len(exc.findings)} findings; nothing was written, the last "
                         "PDFs stand")
            except (PnpError, OSError) as exc:
                progress(f"{name}: error: {exc}; nothing was written, the last PDFs stand")
            else:
                progress(f"{name}: rebuilt in {time.perf_counter() - began:.2f} s")
            if not warmed:
                workers.warm(load_fonts().files())  # while the designer reads the PDFs
                warmed = True
            progress(f"{name}: watching {cards_dir / name} for changes (Ctrl-C stops)")
