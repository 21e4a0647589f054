"""`pnp watch`: a saved edit is rebuilt; a mistake is reported and the last PDFs stand; a
layout process that died is replaced."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import page_texts


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


def save(path: Path, *edits: tuple[str, str]) -> None:
    """Save edits (old, new) at once, as editors do, so the watcher never reads half of them."""
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        text = text.replace(old, new)
    temporary = path.with_name(f".{path.name}.tmp")  # hidden: the watcher skips it
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def test_watch_rebuilds_an_edit_and_keeps_the_last_pdfs_on_a_mistake(packs: Path,
                                                                      tmp_path: Path) -> None:
    out = tmp_path / "out"
    pdf = out / "mini" / "cards-a4.pdf"
    spells = packs / "mini" / "spells.yaml"
    watching = Watching(packs, out)
    try:
        first = watching.next_round()
        assert "pnp: mini: wrote 2 PDFs" in "\n".join(first)
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
        assert "pnp: mini: 1 findings; nothing was written, the last PDFs stand" in broken
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
    from generator import layout
    from generator.errors import RenderError
    from generator.workers import Workers

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

    from generator.fonts import load_fonts
    from generator.workers import Workers

    fonts = load_fonts().files()
    with Workers() as workers:
        assert workers.warm(fonts) == []  # no processes yet: nothing to warm
        warmed = [future.result() for future in workers.start().warm(fonts)]
    assert len(warmed) == (os.cpu_count() or 1)
    for part in warmed:
        with pikepdf.open(io.BytesIO(part.pdf)) as document:
            used = {str(font.BaseFont).split("+", 1)[1]
                    for font in document.pages[0].Resources.Font.values()}
        assert used == {"f0", "f1-Bold", "f2"}  # each font file its own face, none a fallback
