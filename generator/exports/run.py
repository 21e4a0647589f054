"""Exports (`pnp export`): a game's cards for a print shop or a virtual table, by one of the
export kinds of the registry (outputs/__init__.py), which a build never makes.

The kind plans on the faces every output draws from (faces.py), taken from the parts cache
when a build made them; its files are preflighted (preflight.py), then written whole into
`<out>/<game>-export/<kind>/` (`<kind>-<language>/` for a language other than the source),
with preflight.json beside them.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from .. import BUILD_DIR, CARDS_DIR, outputs
from ..check.findings import PackError, PnpError, errors_only
from ..layout.workers import Workers
from ..outputs.base import File, Job, language_name
from ..pack.place import pack_dir
from ..pipeline.build import check, finished, make
from ..pipeline.cache import CACHE, BuildOptions, PartCache
from ..pipeline.owned import Refused, check_root, folder_at, write_tree
from . import preflight
from .base import SKIPPED, ExportKind, ExportSettings
from .profiles import MAX_DPI, load_profile

REPORT = "preflight.json"
MIN_DPI = 10  # below it a card is a few pixels across, and a thin one none (0.01 dpi: 0 px)


def export(name: str, to: str = "images", settings: ExportSettings = ExportSettings(),
           cards_dir: Path = CARDS_DIR, out_root: Path = BUILD_DIR,
           progress: Any = lambda message: None, workers: Workers | None = None,
           language: str | None = None) -> Path:
    """Export a game in a language (None: its source) as `to` asks into
    `out_root/<game>-export/<to>/` (`<to>-<language>/` for another language), put in place
    whole only when nothing failed (with `strict`, no preflight finding either); return that
    folder."""
    started = time.perf_counter()
    if not MIN_DPI <= settings.dpi <= MAX_DPI:
        raise PnpError(f"--dpi {settings.dpi:g}: an export draws at {MIN_DPI} to {MAX_DPI} dpi")
    check_root(out_root, (f"{name}-export",), (CACHE,))
    kind_class = outputs.registered(to).load()
    assert issubclass(kind_class, ExportKind)  # the registry's export kinds are
    place = (f"{name}-export", language_name(to, language))
    folder = out_root.joinpath(*place)
    profile = load_profile(settings.profile, pack_dir(name, cards_dir))
    profile.order(settings.backs_last)  # refused before anything is laid out

    def made(job: Job) -> ExportKind:
        """The export, told where it keeps its images and where it is put in place."""
        cache = images_cache(out_root, job.game.name, to, job.game.root, progress)
        return kind_class(job, settings, cache, folder.resolve(), profile)

    checked = check(name, cards_dir, BuildOptions(only=(to,), bleed=profile.bleed,
                                                  language=language), kinds=[made])
    if errors_only(checked.findings):
        raise PackError(errors_only(checked.findings))
    kind = checked.kinds[0]
    assert isinstance(kind, ExportKind)
    for finding in checked.findings:
        if finding.code == SKIPPED:
            progress(str(finding))
    files = [file for _, file in finished(make(checked, out_root, progress, workers))]
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
    write_whole(out_root, place, files)
    kind.keep_only()
    what = f"{to}, {settings.profile}" if to == "images" else to
    progress(f"{name}: wrote {len(files) - 1} files ({what}) to {folder} in "
             f"{time.perf_counter() - started:.1f} s ({kind.rendered} image"
             f"{'' if kind.rendered == 1 else 's'} drawn, the rest from the cache)")
    return folder


def images_cache(out_root: Path, game: str, kind: str, pack: Path,
                 progress: Any) -> PartCache:
    """Where an export kind's drawn images are kept between runs, keyed by the pack's folder
    too, each sealed and checked like a laid-out part."""
    return PartCache(out_root, (CACHE, "images", game, kind), pack,
                     lambda message: progress(f"{game}: cache: {message}"), suffix=".image")


def write_whole(out_root: Path, place: tuple[str, ...], files: list[File]) -> None:
    """The files written into a new folder beside `out_root/place`, then swapped into its
    place in one step; the old one (pnp's own, else refused) is then deleted. A run killed
    before the swap leaves the old folder whole, and the next run sweeps what it left."""
    *parents, last = place
    with folder_at(out_root, *parents) as parent:
        parent.sweep()
        staging = parent.staging(last)
        try:
            with parent.sub(staging) as fresh:
                write_tree(fresh, {file.name: file.data for file in files})
            if parent.kind(last) is None:
                parent.rename(staging, last)
                return
            parent.sub(last, make=False).close()  # pnp's own, or refused
            parent.exchange(staging, last)
        finally:
            with contextlib.suppress(OSError, Refused):
                if parent.kind(staging) is not None:
                    parent.remove_tree(staging)
