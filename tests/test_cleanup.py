"""What a build leaves behind and says: no font folder of WeasyPrint's in the temporary
folder, whatever ends the processes; no finding about the machine; and a print-shop file
whose work grows with the copies only as fast as they do."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pikepdf
import pytest

from generator import PROJECT_ROOT
from generator.exports.base import ExportSettings
from generator.exports.printshop import PAGES_PER_PART
from generator.exports.run import export
from generator.layout import engine as layout
from generator.layout.workers import SCRATCH, Workers, sweep_scratch
from generator.plan.parts import Found
from generator.text.fonts import load_fonts

HARFBUZZ_MISSING = layout.MACHINE_NOTICES[0]


def _run(script: list[str], tmp: Path) -> str:
    """Run Python with `tmp` as its temporary folder; what it printed."""
    tmp.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, *script], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, env={**os.environ, "TMPDIR": str(tmp)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def test_a_build_leaves_no_font_folder_behind(packs: Path, tmp_path: Path) -> None:
    """A build on worker processes, each copying fonts for WeasyPrint: the temporary folder
    is as empty after it as before."""
    tmp = tmp_path / "tmp"
    _run(["-m", "generator.cli", "--cards", str(packs), "build", "mini", "--out",
          str(tmp_path / "out")], tmp)
    assert (tmp_path / "out" / "mini" / "cards-a4.pdf").is_file()
    assert os.listdir(tmp) == []


KILLED = """
import os, re, signal, tempfile, time
from pathlib import Path
from generator import PROJECT_ROOT
from generator.layout import engine as layout
from generator.text.fonts import load_fonts
from generator.layout.workers import Workers

def listed():
    return sorted({re.sub(r"(pnp-\\w+|weasyprint)-[\\w-]{8,}", r"\\1-*",
                          str(path.relative_to(tempfile.gettempdir())))
                   for path in Path(tempfile.gettempdir()).rglob("*") if path.is_dir()})

fonts = load_fonts().files()[:1]
html = (f"<style>@font-face {{ font-family: f; src: url('{fonts[0].as_uri()}') }}</style>"
        "<p style='font-family: f'>x</p>")
with Workers() as workers:  # each process keeps a configuration of its own for good
    workers.start()
    futures = [workers._pool.submit(layout.html_to_pdf, html, PROJECT_ROOT, fonts)
               for _ in range(8)]
    print("laid out:", all(future.result()[0] for future in futures))
    print("on the workers:", listed())
    os.kill(next(iter(workers._pool._processes)), signal.SIGKILL)  # the pool ends the rest
    while not workers._pool._broken:  # once it has seen it (else a shutdown may wait on it)
        time.sleep(0.05)
print("the pool ended:", listed())
layout.render(html, PROJECT_ROOT, fonts, 0)  # in this process: its copies go with the part
print("a part laid out here:", listed())
layout.html_to_pdf(html, PROJECT_ROOT, fonts)  # this process's configuration, until exit
print("here:", listed(), [len(files) for _, _, files in os.walk(tempfile.gettempdir())])
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2,
                    reason="needs two cores (one core starts no worker processes)")
def test_no_font_folder_survives_a_process_killed_or_ending(tmp_path: Path) -> None:
    """Fonts WeasyPrint copies for a worker are in the pool's folder, removed when the pool
    ends, even when a worker was killed and the pool terminated the others; in this
    process they go with their part, or at exit."""
    tmp = tmp_path / "tmp"
    said = _run(["-c", KILLED], tmp).splitlines()
    assert said == [
        "laid out: True",
        "on the workers: ['pnp-workers-*', 'pnp-workers-*/pnp-fonts-*']",
        "the pool ended: []",
        "a part laid out here: []",
        "here: ['pnp-fonts-*'] [0, 1]",  # the font WeasyPrint copied
    ]
    assert os.listdir(tmp) == []


def test_the_missing_harfbuzz_subsetter_is_no_finding(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Without libharfbuzz-subset0 WeasyPrint warns at every font of every PDF: a fact about
    the machine (`make` says it once), not a finding at the pack's files. Anything else
    WeasyPrint warns of still is one."""
    import weasyprint.pdf.fonts

    monkeypatch.setattr(weasyprint.pdf.fonts, "harfbuzz_subset", None)
    fonts = load_fonts().files()[:1]
    html = (f"<style>@font-face {{ font-family: f; src: url('{fonts[0].as_uri()}') }}</style>"
            "<p style='font-family: f'>测试</p>")
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        laid = layout.render(html, PROJECT_ROOT, fonts, 0)
    assert laid.pdf
    assert any(record.msg == HARFBUZZ_MISSING for record in caplog.records)  # it was said
    assert laid.found == []

    found: list[Found] = []
    with layout._watching(found):
        logging.getLogger("weasyprint").warning(HARFBUZZ_MISSING, "Noto Sans SC")
        logging.getLogger("weasyprint").warning("Unable to subset %r", "Noto Sans SC")
    assert found == [Found("W074", "WeasyPrint: Unable to subset 'Noto Sans SC'")]


def _copies(packs: Path, out: Path, qty: int, pool: Workers) -> tuple[Path, list[str]]:
    """A print-shop export of the tiny pack, its third card `qty` times; its file and what
    it said."""
    for file, key, value in (("spells.yaml", "qty", qty), ("game.yaml", "count", qty + 2)):
        path = packs / "mini" / file
        text, found = re.subn(rf"\b{key}: \d+", f"{key}: {value}", path.read_text("utf-8"))
        assert found == 1
        path.write_text(text, encoding="utf-8")
    told: list[str] = []
    folder = export("mini", "printshop", ExportSettings(), packs, out, told.append, pool)
    return folder / "spells.pdf", told


def test_a_card_s_copies_are_laid_out_once_and_grow_the_file_linearly(
        packs: Path, tmp_path: Path, pool: Workers) -> None:
    """WeasyPrint takes longer a page the more pages its document has: a deck is laid out
    PAGES_PER_PART pages a part, a run of copies that repeats is one part laid out once, and
    every copy draws the card's one form. Twice the copies: twice the pages, as many parts,
    and at most 2.2 times the bytes."""
    assert PAGES_PER_PART == 100
    small, told_small = _copies(packs, tmp_path / "a", 150, pool)
    large, told_large = _copies(packs, tmp_path / "b", 300, pool)
    # S1, red, S2, green, then S3 and its blue back again and again: 3 parts of sheets
    # differ (the first 100 pages, 50 times S3 and blue, and the last 4 pages), and the faces
    assert any(line.startswith("mini: spells.pdf: 304 pages, 4 of 4 parts laid out")
               for line in told_small), told_small
    assert any(line.startswith("mini: spells.pdf: 604 pages, 4 of 4 parts laid out")
               for line in told_large), told_large
    with pikepdf.open(large) as document:
        pages = list(document.pages)
        assert len(pages) == 604
        drawn = [page.Resources.XObject["/Face0"].objgen for page in pages]
    assert len(set(drawn)) == 6  # three fronts and three backs, each one form
    assert drawn[4::2] == [drawn[4]] * 300 and drawn[5::2] == [drawn[5]] * 300
    assert large.stat().st_size < 2.2 * small.stat().st_size


def test_a_pool_killed_with_its_process_is_swept_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary folder of a pool whose process is gone is removed when a pool starts;
    a running process's and a link of that name are left."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = tmp_path / f"{SCRATCH}99999999-abc"
    (dead / "faces").mkdir(parents=True)
    alive = tmp_path / f"{SCRATCH}{os.getpid()}-abc"
    alive.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / f"{SCRATCH}99999998-link").symlink_to(elsewhere)
    sweep_scratch()
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [alive.name, "elsewhere", f"{SCRATCH}99999998-link"])
