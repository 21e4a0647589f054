"""Exports (`pnp export`): a game's cards for a print shop or a virtual table, by one of the
export kinds in outputs.EXPORTS, which a build never makes.

The kind plans on the faces every output draws from (faces.py), taken from the parts cache
when a build made them; its files are preflighted (preflight.py), then written whole into
`<out>/<game>-export/<kind>/`, with preflight.json beside them.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from . import BUILD_DIR, CARDS_DIR, outputs, preflight
from .build import check, make
from .cache import BuildOptions
from .errors import PackError, PnpError, RenderError, errors_only
from .outputs.base import ExportSettings, File
from .outputs.images import MAX_DPI, ImagesExport
from .outputs.tts import TtsExport
from .workers import Workers

REPORT = "preflight.json"


def export(name: str, to: str = "images", settings: ExportSettings = ExportSettings(),
           cards_dir: Path = CARDS_DIR, out_root: Path = BUILD_DIR,
           progress: Any = lambda message: None, workers: Workers | None = None) -> Path:
    """Export a game as `to` asks into `out_root/<game>-export/<to>/`, put in place whole only
    when nothing failed (with `strict`, no preflight finding either); return that folder."""
    started = time.perf_counter()
    if not 0 < settings.dpi <= MAX_DPI:
        raise PnpError(f"--dpi {settings.dpi:g}: an export draws at more than 0 and at most "
                       f"{MAX_DPI} dpi")
    kind_class = {kind.name: kind for kind in outputs.EXPORTS}[to]
    checked = check(name, cards_dir, BuildOptions(only=(to,)),
                    kinds=[lambda job: kind_class(job, settings)])
    if errors_only(checked.findings):
        raise PackError(errors_only(checked.findings))
    kind = checked.kinds[0]
    assert isinstance(kind, ImagesExport)
    kind.cache_folder = out_root / ".cache" / "images" / name / to
    folder = out_root / f"{name}-export" / to
    if isinstance(kind, TtsExport):
        kind.folder = folder.resolve()
    results = make(checked, out_root, progress, workers)
    files = [file for _, document, result in results
             for file in kind.finish(document, result.pdf, result.pages)]
    for note in kind.notes:
        progress(f"{name}: {note}")
    problems = preflight.findings(kind.inspected)
    for line in preflight.summary(kind.inspected):
        progress(f"{name}: preflight: {line}")
    if problems and settings.strict:
        raise PackError(problems)
    for finding in problems:
        progress(str(finding))
    files.append(File(REPORT, preflight.report(name, to, settings.profile, kind.inspected)))
    write_whole(folder, files)
    kind.keep_only()
    what = f"{to}, {settings.profile}" if to == "images" else to
    progress(f"{name}: wrote {len(files) - 1} files ({what}) to {folder} in "
             f"{time.perf_counter() - started:.1f} s ({kind.rendered} image"
             f"{'' if kind.rendered == 1 else 's'} drawn, the rest from the cache)")
    return folder


def write_whole(folder: Path, files: list[File]) -> None:
    """The files written beside `folder`, then put in its place at once."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for file in files:
            target = staging / file.name
            if not target.resolve().is_relative_to(staging.resolve()):  # ids are made safe
                raise RenderError(f"{file.name} would be written outside {folder}; a bug in pnp")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(file.data)
        old = folder.parent / f".old-{folder.name}"
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
