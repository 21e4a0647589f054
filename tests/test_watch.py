"""`pnp watch`: a saved edit is rebuilt; a mistake is reported and the last PDFs stand."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

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


def save(path: Path, old: str, new: str) -> None:
    """Save an edit whole, as editors do, so the watcher never reads half of it."""
    temporary = path.with_name(f".{path.name}.tmp")  # hidden: the watcher skips it
    temporary.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
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

        save(spells, "火球术", "炎爆术")
        edited = "\n".join(watching.next_round())
        assert "cards-a4.pdf: 2 pages, 1 of 1 parts laid out" in edited
        assert "pnp: mini: rebuilt in" in edited
        assert "炎爆术" in page_texts(pdf)[0]
        good = pdf.read_bytes()

        save(spells, "cost: 3", "cost: [3")
        broken = watching.next_round()
        assert any(line.startswith(f"pnp: {spells}:4: error: E002: YAML syntax:")
                   for line in broken), broken
        assert "pnp: mini: 1 findings; nothing was written, the last PDFs stand" in broken
        assert "Traceback" not in "\n".join(broken)
        assert pdf.read_bytes() == good
    finally:
        watching.process.send_signal(signal.SIGINT)
        assert watching.process.wait(timeout=60) == 130
    assert "Traceback" not in watching.process.stderr.read()
