"""`pnp watch`: a saved edit is rebuilt; a mistake is reported and the last PDFs stand; a
layout process that died is replaced."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import page_texts
from tests.serving import save


class Watching:
    """`pnp watch` in a process of its own, read a round at a time."""

    def __init__(self, cards: Path, out: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "generator.cli", "--cards", str(cards), "watch", "mini",
             "--out", str(out)], stderr=subprocess.PIPE, text=True)

    def next_round(self) -> list[str]:
        """What it printed up to waiting for the next change."""
        assert self.process.stderr is not None
        lines: list[str] = []
        while not lines or "watching" not in lines[-1]:
            line = self.process.stderr.readline()
            assert line, f"pnp watch stopped: {lines}"
            lines.append(line.rstrip("\n"))
        return lines


def test_watch_rebuilds_an_edit_and_keeps_the_last_pdfs_on_a_mistake(packs: Path,
                                                                      tmp_path: Path) -> None:
    out = tmp_path / "out"
    pdf = out / "mini" / "cards-a4.pdf"
    spells = packs / "mini" / "spells.yaml"
    watching = Watching(packs, out)
    try:
        first = watching.next_round()
        assert "pnp: mini: wrote 1 PDF" in "\n".join(first)
        assert first[-1] == f"pnp: mini: watching {packs / 'mini'} for changes (Ctrl-C stops)"
        assert "火球术" in page_texts(pdf)[0]

        save(spells, ("火球术", "炎爆术"))
        edited = "\n".join(watching.next_round())
        assert "cards-a4.pdf: 2 pages, 1 of 3 parts laid out" in edited  # what watch prints
        assert "pnp: mini: rebuilt in" in edited
        assert "炎爆术" in page_texts(pdf)[0]
        good = pdf.read_bytes()

        save(spells, ("cost: 3", "cost: [3"))
        broken = watching.next_round()
        assert any(line.startswith(f"pnp: {spells}:4: error: E002: YAML syntax:")
                   for line in broken), broken
        assert "pnp: mini: 1 finding; nothing was written, the last PDFs stand" in broken
        assert "Traceback" not in "\n".join(broken)
        assert pdf.read_bytes() == good

        workers = Path(f"/proc/{watching.process.pid}/task/{watching.process.pid}/children")
        os.kill(int(workers.read_text().split()[0]), signal.SIGKILL)  # as if out of memory
        time.sleep(0.5)
        save(spells, ("cost: [3", "cost: 3"), ("炎爆术", "烈焰术"))
        mended = "\n".join(watching.next_round())
        assert "cards-a4.pdf: 2 pages, 1 of 3 parts laid out" in mended, mended
        assert "pnp: mini: rebuilt in" in mended
        assert "烈焰术" in page_texts(pdf)[0]
    finally:
        watching.process.send_signal(signal.SIGINT)
        assert watching.process.wait(timeout=60) == 130
    assert "Traceback" not in watching.process.stderr.read()


def _die(*job: object) -> None:
    """A layout process killed mid-part."""
    os._exit(9)


def test_a_layout_process_that_dies_mid_part_is_a_clean_error(monkeypatch) -> None:
    """Out of memory mid-part: a message, not a traceback; the next parts get new processes."""
    from generator.check.findings import RenderError
    from generator.layout import engine as layout
    from generator.layout.workers import Workers

    with Workers() as workers:
        monkeypatch.setattr(layout, "render", _die)  # the processes fork after this
        results = workers.start().submit(["<div></div>", "<p></p>"], Path("."), [], 300)
        with pytest.raises(RenderError, match=r"^a layout process stopped before it finished "
                                              r"\(out of memory\?\)$"):
            results()
        monkeypatch.undo()
        again = workers.submit(["<div></div>", "<p></p>"], Path("."), [], 300)()
        assert [part.pages for part in again] == [1, 1]


def test_warmed_processes_have_laid_out_every_font() -> None:
    """`pnp watch` warms its processes after the first build: each lays out a line in every
    registered font, so the designer's first edit does not pay for WeasyPrint's first page."""
    import io

    import pikepdf

    from generator.layout.workers import Workers
    from generator.text.fonts import face_name, load_fonts

    fonts = load_fonts().files()
    with Workers() as workers:
        assert workers.warm(fonts) == []  # no processes yet: nothing to warm
        warmed = [future.result() for future in workers.start().warm(fonts)]
    assert len(warmed) == (os.cpu_count() or 1)
    for part in warmed:
        with pikepdf.open(io.BytesIO(part.pdf)) as document:
            used = {str(font.BaseFont).split("+", 1)[1]
                    for font in document.pages[0].Resources.Font.values()}
        # each font file drawn in its own face, named by it, no face of the machine's
        assert used == {face_name(font) for font in fonts}


ORPHANS = """
import sys, threading, time
from generator.layout import workers as module
workers = module.Workers()
if sys.argv[1] == "thread":  # started off the main thread: no prctl, the watching thread only
    threading.Thread(target=workers.start).start()
    while workers._pool is None:
        time.sleep(0.01)
else:  # the kernel's signal alone: the watching thread would look too late
    module.ORPHAN_POLL = 3600
    workers.start()
pool = workers._pool
pool.submit(int).result()
print(" ".join(str(pid) for pid in pool._processes), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its reaper does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or (os.cpu_count() or 1) < 2,
                    reason="needs /proc and two cores (one core starts no worker processes)")
@pytest.mark.parametrize("started", ["main", "thread"])
def test_workers_end_when_their_parent_is_killed(started: str) -> None:
    """kill -9 of the process that started the workers: they are gone within seconds, by the
    kernel's signal (started on the main thread) or by their own watch (on another thread)."""
    parent = subprocess.Popen([sys.executable, "-c", ORPHANS, started], stdout=subprocess.PIPE,
                              text=True)
    assert parent.stdout is not None
    pids = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(pids) == os.cpu_count() and all(_alive(pid) for pid in pids)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if _alive(pid)]


def test_a_scan_survives_files_and_folders_that_come_and_go(tmp_path: Path,
                                                            monkeypatch) -> None:
    """An editor's temporary file gone between listing and looking, a folder removed while it
    is walked: left out, never an error."""
    import threading

    from generator.pipeline import watch

    kept = tmp_path / "pack" / "game.yaml"
    (tmp_path / "pack" / "art").mkdir(parents=True)
    kept.write_text("title: x\n", encoding="utf-8")
    gone = tmp_path / "pack" / "4913"  # as vim probes whether it may write a folder
    gone.write_text("", encoding="utf-8")
    real_stat, real_scandir, looked = os.stat, os.scandir, []

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == str(gone) and looked:  # there when first looked at, then gone
            raise FileNotFoundError(errno.ENOENT, "gone", str(path))
        looked.append(str(path) == str(gone))
        return real_stat(path, *args, **kwargs)

    def scandir(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
        if str(path).endswith("art"):  # listed in its parent, removed before it is read
            raise FileNotFoundError(errno.ENOENT, "gone", str(path))
        return real_scandir(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    found = watch.Files([tmp_path / "pack", tmp_path / "missing"]).known
    monkeypatch.undo()
    assert str(kept) in found and len(found) <= 2  # the file gone counts as it was seen

    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            folder = tmp_path / "pack" / "art"
            folder.mkdir(exist_ok=True)
            for index in range(20):
                (folder / f"{index}.tmp").write_bytes(b"x")
            shutil.rmtree(folder, ignore_errors=True)
            (tmp_path / "pack" / "4913").write_bytes(b"")  # as vim probes a folder
            (tmp_path / "pack" / "4913").unlink()

    churning = threading.Thread(target=churn)
    churning.start()
    try:
        for _ in range(300):
            assert str(kept) in watch.Files([tmp_path / "pack"]).known
    finally:
        stop.set()
        churning.join()


def test_outputs_a_pack_s_build_and_hidden_folders_are_no_edits(tmp_path: Path) -> None:
    """What a build writes, in the output folder wherever it is (here inside the pack) or in
    the pack's build/, and what hides in a hidden folder (.git) is never an edit; a file of the
    pack that changes, comes or goes is."""
    from generator.pipeline import watch

    pack = tmp_path / "pack"
    (pack / "art").mkdir(parents=True)
    (pack / "game.yaml").write_text("title: x\n", encoding="utf-8")
    (pack / "art" / "a.png").write_bytes(b"a")
    files = watch.Files([pack, tmp_path / "missing"], pack / "out" / "pdf")
    for written in ("out/pdf/mini/cards-a4.pdf", "out/pdf/.cache/x", "build/mini/cards.pdf",
                    ".git/objects/ab", "art/.a.png.swp"):
        (pack / written).parent.mkdir(parents=True, exist_ok=True)
        (pack / written).write_bytes(b"x")
    assert not files.changed()
    assert set(files.known) == {str(pack / "game.yaml"), str(pack / "art" / "a.png")}
    (pack / "out" / "notes.txt").write_text("mine", encoding="utf-8")  # beside the outputs
    assert files.changed()
    (pack / "game.yaml").write_text("title: xy\n", encoding="utf-8")
    assert files.changed() and not files.changed()
    (pack / "art" / "a.png").unlink()
    assert files.changed() and not files.changed()


def test_an_idle_look_reads_a_bounded_number_of_files(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each look reads at most LOOK_FILES files, going on where the last stopped: a pack of
    10 files read 4 at a time is gone over in 3 looks, and an edit anywhere is seen within a
    pass, a file gone at its end."""
    from generator.pipeline import watch

    for index in range(10):
        (tmp_path / f"{index}.yaml").write_text("x", encoding="utf-8")
    files = watch.Files([tmp_path])
    monkeypatch.setattr(watch, "LOOK_FILES", 4)
    real_stat, read = os.stat, []

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        read.append(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    looks = []
    for _ in range(6):
        read.clear()
        looks.append((files.changed(), len(read)))
    assert looks == [(False, 4), (False, 4), (False, 2)] * 2
    (tmp_path / "9.yaml").write_text("edited", encoding="utf-8")
    assert sorted(files.changed() for _ in range(3)) == [False, False, True]  # at its look
    (tmp_path / "0.yaml").unlink()
    assert [files.changed() for _ in range(3)] == [False, False, True]  # at the pass's end


def test_an_idle_watch_looks_less_often(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a build the files are looked at every 0.05 s, the pause doubling while nothing
    changes up to 0.5 s; an edit is built and the pauses start short again."""
    from generator.pipeline import watch

    pack = tmp_path / "cards" / "mini"
    pack.mkdir(parents=True)
    (pack / "game.yaml").write_text("title: x\n", encoding="utf-8")
    built, pauses = [], []

    class Idle:
        """Workers that never start a process."""

        def start(self) -> Idle:
            return self

        def __enter__(self) -> Idle:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def warm(self, fonts: list[Path]) -> list:
            return []

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 7:
            save(pack / "game.yaml", ("title: x", "title: y"))

    monkeypatch.setattr(watch, "Workers", Idle)
    monkeypatch.setattr(watch, "build_game", lambda *args: built.append(len(pauses)))
    monkeypatch.setattr(watch.time, "sleep", pause)
    watch.watch("mini", watch.BuildOptions(), tmp_path / "out", tmp_path / "cards",
                stop=lambda: len(pauses) == 10)
    assert built == [0, 7]
    assert pauses == [0.05, 0.1, 0.2, 0.4, 0.5, 0.5, 0.5, 0.05, 0.1, 0.2]


def test_watch_with_its_outputs_inside_the_pack_rebuilds_only_edits(packs: Path) -> None:
    """`--out` inside the pack: the watch's own PDFs are no edit, so it waits for the
    designer's and builds that, not itself forever."""
    out = packs / "mini" / "pdf"
    watching = Watching(packs, out)
    try:
        first = "\n".join(watching.next_round())
        assert "pnp: mini: wrote 1 PDF" in first
        save(packs / "mini" / "spells.yaml", ("火球术", "炎爆术"))
        edited = "\n".join(watching.next_round())
        assert "cards-a4.pdf: 2 pages, 1 of 3 parts laid out" in edited, edited
        assert "炎爆术" in page_texts(out / "mini" / "cards-a4.pdf")[0]
        time.sleep(1)  # time for a watch that sees its own outputs to rebuild (it did, forever)
    finally:
        watching.process.send_signal(signal.SIGINT)
        assert watching.process.wait(timeout=60) == 130
    assert watching.process.stderr is not None
    rest = watching.process.stderr.read()
    assert "rebuilt in" not in rest and "Traceback" not in rest, rest
