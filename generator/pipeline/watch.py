"""`pnp watch`: rebuild a game each time one of its files changes, in a process kept warm.

A designer edits a number and saves; the PDFs follow. The process keeps WeasyPrint imported
and its workers running between builds, so a rebuild pays only for reading the pack and for
the parts that changed. A mistake prints its findings and leaves the last good PDFs alone.
Idle, it looks at the files ever less often, and at a few thousand of them a look.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path

from .. import BUILD_DIR, CARDS_DIR, FONTS_DIR, PACK_BUILD, TEMPLATES_DIR
from ..check.findings import PackError, PnpError, counted, told
from ..layout.workers import Workers
from ..pack.yamlfile import keep_parsed
from ..text.fonts import load_fonts
from .build import Progress, build_game
from .cache import BuildOptions

POLL = 0.05  # seconds between looks at the files just after a build
IDLE_POLL = 0.5  # what the pause between looks doubles up to while nothing changes
LOOK_FILES = 5000  # the files a look reads at most: a larger pack takes several looks a pass

Stamp = tuple[int, int]  # a file's size and modification time


def _skipped(folders: list[Path], out: Path | None) -> set[str]:
    """What a watch leaves out, as its walk names it: a pack's own build/, and the output
    folder wherever it is (its writes are no edits)."""
    skip = {os.path.join(folder, PACK_BUILD) for folder in folders}
    where = out.resolve() if out is not None else None
    for folder in folders:
        if where is not None and where.is_relative_to(folder.resolve()):
            skip.add(os.path.join(folder, where.relative_to(folder.resolve())))
    return skip


def _walk(folders: list[Path], skip: set[str]) -> Iterator[tuple[str, Stamp]]:
    """Every file under the folders with its stamp, but hidden files and folders and those
    in `skip`. A file or folder that goes while it looks (an editor's temporary file) is
    left out, never an error."""
    for folder in folders:
        for parent, folders_in, names in os.walk(folder):  # one it cannot read is skipped
            folders_in[:] = [name for name in folders_in if not name.startswith(".")
                             and os.path.join(parent, name) not in skip]
            for name in names:
                path = os.path.join(parent, name)
                try:
                    info = None if name.startswith(".") else os.stat(path)
                except OSError:  # gone since it was listed, or a link to nothing
                    continue
                if info is not None and stat.S_ISREG(info.st_mode):
                    yield path, (info.st_size, info.st_mtime_ns)


class Files:
    """The files a watch looks at, at most LOOK_FILES a look, each look going on where the
    last stopped: an idle watch over a huge folder costs little, and notices an edit there
    within a pass."""

    def __init__(self, folders: list[Path], out: Path | None = None) -> None:
        self.folders, self.skip = folders, _skipped(folders, out)
        self.known = dict(_walk(folders, self.skip))  # the first pass, whole
        self.walk = _walk(folders, self.skip)
        self.walked: set[str] = set()  # the files this pass has looked at

    def changed(self) -> bool:
        """Look at the next files: whether one changed or came since it was last looked at,
        or, where a pass ends, whether one went."""
        changed = False
        looked = 0
        for path, stamp in islice(self.walk, LOOK_FILES):
            looked += 1
            self.walked.add(path)
            changed |= self.known.get(path) != stamp
            self.known[path] = stamp
        if looked < LOOK_FILES:  # the pass is over: what it did not find is gone
            gone = self.known.keys() - self.walked
            for path in gone:
                del self.known[path]
            changed |= bool(gone)
            self.walk, self.walked = _walk(self.folders, self.skip), set()
        return changed


def watch(name: str, options: BuildOptions | list[BuildOptions], out_root: Path = BUILD_DIR,
          cards_dir: Path = CARDS_DIR, progress: Progress = lambda message: None,
          stop: Callable[[], bool] = lambda: False) -> None:
    """Build now, then again whenever a file of the pack, a template or a font changes,
    until `stop` says so; given several options (one a language), a build of each."""
    every = options if isinstance(options, list) else [options]
    pause, changed, warmed = POLL, True, False
    keep_parsed()  # an edit parses the files it changed alone
    with Workers().start() as workers:
        files = Files([cards_dir / name, TEMPLATES_DIR, FONTS_DIR], out_root)
        while not stop():
            if not changed:
                time.sleep(pause)
                pause = min(2 * pause, IDLE_POLL)
                changed = files.changed()
                continue
            pause, changed = POLL, False
            for chosen in every:
                _rebuild(name, chosen, out_root, cards_dir, progress, workers)
            if not warmed:
                workers.warm(load_fonts().files())  # while the designer reads the PDFs
                warmed = True
            progress(f"{name}: watching {cards_dir / name} for changes (Ctrl-C stops)")


def _rebuild(name: str, options: BuildOptions, out_root: Path, cards_dir: Path,
             progress: Progress, workers: Workers) -> None:
    """One build of a watch; a mistake is told, and leaves that language's last PDFs alone."""
    label = name if options.language is None else f"{name} [{options.language}]"
    began = time.perf_counter()
    try:
        build_game(name, options, out_root, cards_dir, progress, workers)
    except PackError as exc:
        lines = told(exc.findings)
        for finding in lines:
            progress(str(finding))
        progress(f"{label}: {counted(len(lines), 'finding')}; nothing was written, the last "
                 "PDFs stand")
    except (PnpError, OSError) as exc:
        progress(f"{label}: error: {exc}; nothing was written, the last PDFs stand")
    else:
        progress(f"{label}: rebuilt in {time.perf_counter() - began:.2f} s")
