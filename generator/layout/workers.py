"""Processes that lay out parts side by side, one a core: WeasyPrint is single-threaded."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from markupsafe import escape

from .. import PROJECT_ROOT
from ..check.findings import RenderError
from ..pack.schema import DEFAULT_LIMITS
from ..pipeline.owned import running
from ..plan.parts import LaidOut
from ..text.fonts import sample
from . import engine as layout

ORPHAN_POLL = 0.5  # seconds between a worker's looks at whether its parent still runs
PR_SET_PDEATHSIG = 1  # Linux prctl(2): the signal a process gets when its parent dies
SCRATCH = "pnp-workers-"  # a pool's temporary folder: this, the id of the process, a suffix


def sweep_scratch() -> None:
    """Remove the temporary folders of pools whose process was killed before it could: each
    of this user's, a real folder, named for a process no longer running."""
    for path in Path(tempfile.gettempdir()).glob(f"{SCRATCH}*-*"):
        pid = path.name.removeprefix(SCRATCH).split("-")[0]
        try:
            info = path.lstat()
        except OSError:
            continue
        if pid.isdigit() and not running(int(pid)) and stat.S_ISDIR(info.st_mode) \
                and info.st_uid == os.getuid():
            shutil.rmtree(path, ignore_errors=True)


def _worker(parent: int, by_main_thread: bool, scratch: str) -> None:
    """A worker ignores Ctrl-C, which the main process handles for all, ends quietly on
    SIGTERM or SIGHUP (not through a handler the parent set), dies with its parent, keeps
    its temporary files in `scratch` (which the parent removes: a worker exits, or is
    killed, without removing its own), and loads WeasyPrint."""
    tempfile.tempdir = os.environ["TMPDIR"] = scratch
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for stop in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if stop is not None:
            signal.signal(stop, signal.SIG_DFL)
    _die_with(parent, by_main_thread)
    layout.preload()


def _die_with(parent: int, by_main_thread: bool) -> None:
    """End this process when `parent` ends, however it ends (kill -9 included): on Linux the
    kernel kills it at once, elsewhere a thread sees it within ORPHAN_POLL seconds.

    Linux sends the signal when the *thread* that forked this process ends, so it is asked
    for only when that was the parent's main thread, which lives as long as the parent.
    """
    if by_main_thread and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the thread below still ends it
    threading.Thread(target=_orphaned, args=(parent,), name="pnp-orphaned", daemon=True).start()
    if os.getppid() != parent:  # it died before the watch began
        os._exit(1)


def _orphaned(parent: int) -> None:
    """Wait for the parent to end, then end this process."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL)
    os._exit(1)


class Workers:
    """The layout processes of a build, or of every build of `pnp watch`.

    The processes start when asked, early in a build, and import WeasyPrint while the build
    reads and renders the game; the pool lives as long as the build, so later rounds find them
    ready. Without a started pool, a single part is laid out in this process.
    """

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._scratch: Path | None = None  # the processes' temporary folder

    def start(self) -> Workers:
        """Start the processes now, each importing WeasyPrint."""
        cores = os.cpu_count() or 1
        if self._pool is None and cores > 1:
            by_main_thread = threading.current_thread() is threading.main_thread()
            sweep_scratch()
            self._scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-"))
            self._pool = ProcessPoolExecutor(cores, mp_context=multiprocessing.get_context("fork"),
                                             initializer=_worker,
                                             initargs=(os.getpid(), by_main_thread,
                                                       str(self._scratch)))
            self._pool.submit(int)  # the processes start at the first task
        return self

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """End the processes, giving their memory back, and remove their temporary files."""
        if self._pool is not None:
            try:
                self._pool.shutdown()
            finally:
                self._pool = None
                if self._scratch is not None:
                    shutil.rmtree(self._scratch, ignore_errors=True)
                    self._scratch = None

    def warm(self, fonts: list[Path]) -> list[Future]:
        """Have each process lay out a line in every font, so that the first part it is given
        does not pay for WeasyPrint's first page (about 0.3 s); nobody need wait for them."""
        if self._pool is None:
            return []
        faces = "".join(f"@font-face {{ font-family: f{index}; src: url('{path.as_uri()}') }}"
                        for index, path in enumerate(fonts))
        lines = "".join(f"<p style='font-family: f{index}'>{escape(sample(path))}</p>"
                        for index, path in enumerate(fonts))
        html = f"<html><head><style>{faces}</style></head><body>{lines}</body></html>"
        return [self._pool.submit(layout.render, html, PROJECT_ROOT, fonts, 0)
                for _ in range(os.cpu_count() or 1)]  # as many as start() made

    def submit(self, htmls: list[str], base_dir: Path, fonts: list[Path], min_dpi: float,
               write: bool = True, max_bytes: int = DEFAULT_LIMITS.file_bytes,
               drafts: bool = False) -> Callable[[], list[LaidOut]]:
        """Start laying out parts, the longest first; the call returned waits for them and
        gives them in the order given."""
        jobs = [(html, base_dir, fonts, min_dpi, write, max_bytes, drafts) for html in htmls]
        if self._pool is None and len(jobs) > 1:
            layout.preload()  # imported once, before the processes fork
            self.start()
        if self._pool is None:
            done = [layout.render(*job) for job in jobs]
            return lambda: done
        order = sorted(range(len(jobs)), key=lambda i: -len(htmls[i]))
        try:
            futures = {i: self._pool.submit(layout.render, *jobs[i]) for i in order}
        except BrokenProcessPool:  # a process died since the last build: start new ones
            self.stop()
            return self.start().submit(htmls, base_dir, fonts, min_dpi, write, max_bytes,
                                       drafts)

        def results() -> list[LaidOut]:
            try:
                return [futures[i].result() for i in range(len(jobs))]
            except BrokenProcessPool:
                raise RenderError("a layout process stopped before it finished (out of "
                                  "memory?)") from None

        return results
