"""A game's outputs are written as one set, put in place at once: a build that fails, is
killed or finds the disk full leaves the last set whole; what it left is cleaned up next time;
`pnp validate` writes nothing; the clock never changes an output."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from generator import cli
from generator.check.findings import RenderError
from generator.layout.workers import Workers
from generator.pdf.assemble import unsound
from generator.pipeline import manifest
from generator.pipeline.build import BuildOptions, build_game, validate_game
from generator.pipeline.cache import parts_folder
from generator.pipeline.manifest import SETS, STATE
from generator.pipeline.owned import MARK, Folder

from .conftest import edit, give_rulebook


def _build(packs: Path, out: Path, pool: Workers, paper: str = "a4", said: list[str] | None = None
           ) -> dict:
    """Build the tiny pack; its manifest."""
    return build_game("mini", BuildOptions(paper=paper), out_root=out, cards_dir=packs,
                      progress=(said.append if said is not None else lambda message: None),
                      workers=pool).manifest


def _files(folder: Path) -> dict[str, bytes]:
    """Every file of an output set, hidden ones included, by name."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())
            if path.name != MARK}


def _sets(out: Path) -> list[str]:
    """What the tiny pack's sets folder holds, its lock left out."""
    return sorted(path.name for path in (out / SETS / "mini").iterdir()
                  if path.name not in (".lock", MARK))


def test_every_file_of_the_manifest_is_the_set(packs: Path, tmp_path: Path, pool) -> None:
    """Two papers in one set: the manifest lists exactly the PDFs there, with their pages, and
    the record holds each file's hash; build/<game> is a link to the set."""
    give_rulebook(packs)
    out = tmp_path / "out"
    _build(packs, out, pool, "letter")
    listed = _build(packs, out, pool)
    assert (out / "mini").is_symlink() and os.readlink(out / "mini") == f"{SETS}/mini/2"
    assert _sets(out) == ["2"]  # the first set is gone
    pdfs = sorted(path.name for path in (out / "mini").glob("*.pdf"))
    assert pdfs == ["cards-a4.pdf", "cards-letter.pdf", "rulebook-a4.pdf",
                    "rulebook-letter.pdf"]
    assert json.loads((out / "mini" / "manifest.json").read_text(encoding="utf-8")) == listed
    assert [entry["file"] for entry in listed["outputs"]] == pdfs
    for entry in listed["outputs"]:
        path = out / "mini" / entry["file"]
        assert unsound(path.read_bytes()) is None
        assert len(PdfReader(path).pages) == entry["pages"], entry["file"]
    state = json.loads((out / "mini" / STATE).read_text(encoding="utf-8"))
    for name, info in state["files"].items():
        assert hashlib.sha256((out / "mini" / name).read_bytes()).hexdigest() == info["sha256"]
    assert sorted(state["files"]) == [*pdfs[:2], "manifest.json", *pdfs[2:]]
    assert sorted(state["papers"]) == ["a4", "letter"]


def test_a_file_the_build_no_longer_makes_goes(packs: Path, tmp_path: Path, pool) -> None:
    """The rulebook deleted: the next build's set and manifest have no rulebook; another
    paper's files stay, and a build of only some kinds keeps the others of its paper."""
    give_rulebook(packs)
    out = tmp_path / "out"
    _build(packs, out, pool, "letter")
    _build(packs, out, pool)
    (packs / "mini" / "rulebook.md").unlink()
    listed = _build(packs, out, pool)
    assert [entry["file"] for entry in listed["outputs"]] == [
        "cards-a4.pdf", "cards-letter.pdf", "rulebook-letter.pdf"]
    assert sorted(_files(out / "mini")) == [
        ".state.json", "cards-a4.pdf", "cards-letter.pdf", "manifest.json",
        "rulebook-letter.pdf"]
    edit(packs / "mini" / "spells.yaml", "火球术", "炎爆术")
    only = build_game("mini", BuildOptions(only=("sheets",)), out_root=out, cards_dir=packs,
                      workers=pool).manifest
    assert [entry["file"] for entry in only["outputs"]] == [entry["file"] for entry in
                                                            listed["outputs"]]


def test_a_new_version_leaves_the_old_papers_out(packs: Path, tmp_path: Path, pool) -> None:
    """Another paper's PDFs of an older version are not carried into the new set."""
    out = tmp_path / "out"
    _build(packs, out, pool, "letter")
    edit(packs / "mini" / "game.yaml", "version: t1", "version: t2")
    listed = _build(packs, out, pool)
    assert [entry["file"] for entry in listed["outputs"]] == ["cards-a4.pdf"]
    assert not (out / "mini" / "cards-letter.pdf").exists()


def _fail_on_second_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the write phase fail after the first file of the new set."""
    written: list[Path] = []
    real = manifest._put

    def put(folder: Folder, name: str, data: bytes, shown: Path) -> None:
        if written:
            raise RuntimeError("stopped in the middle of writing the set")
        written.append(shown / name)
        real(folder, name, data, shown)

    monkeypatch.setattr(manifest, "_put", put)


def test_a_build_that_fails_while_writing_leaves_the_last_set_whole(
        packs: Path, tmp_path: Path, pool, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    _build(packs, out, pool)
    before = _files(out / "mini")
    edit(packs / "mini" / "spells.yaml", "火球术", "炎爆术")
    _fail_on_second_file(monkeypatch)
    with pytest.raises(RuntimeError, match="in the middle"):
        _build(packs, out, pool)
    assert _files(out / "mini") == before
    assert _sets(out) == ["1"]  # the unfinished set is deleted
    monkeypatch.undo()
    _build(packs, out, pool)
    assert _files(out / "mini")["cards-a4.pdf"] != before["cards-a4.pdf"]


KILLED = """
import os, signal, sys
from pathlib import Path
from generator.pipeline import manifest
from generator.pipeline.build import build_game
real = manifest._put
def put(folder, name, data, shown):
    real(folder, name, data, shown)
    os.kill(os.getpid(), signal.SIGKILL)  # kill -9 with one file of the new set written
manifest._put = put
build_game("mini", out_root=Path(sys.argv[2]), cards_dir=Path(sys.argv[1]))
"""


def test_a_build_killed_while_writing_leaves_the_last_set_whole(packs: Path, tmp_path: Path,
                                                                pool) -> None:
    """kill -9 in the write phase: every file of the last set and its manifest as they were;
    the next build deletes the unfinished set and the temporary files of dead processes."""
    out = tmp_path / "out"
    _build(packs, out, pool)
    before = _files(out / "mini")
    edit(packs / "mini" / "spells.yaml", "火球术", "炎爆术")
    killed = subprocess.run([sys.executable, "-c", KILLED, str(packs), str(out)],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    assert _files(out / "mini") == before
    assert _sets(out) == ["1", "2"]  # the unfinished set, left by the kill
    leftover = parts_folder(out, "mini") / ".abc.pdf.99999999.x1y2z3.tmp"  # no such process
    leftover.write_bytes(b"half")
    said: list[str] = []
    _build(packs, out, pool, said=said)
    assert _sets(out) == [Path(os.readlink(out / "mini")).name]  # the unfinished set is gone
    assert not leftover.exists()
    assert "炎爆术" in "".join(page.extract_text() for page in PdfReader(
        out / "mini" / "cards-a4.pdf").pages)
    assert not [line for line in said if "damaged" in line]


def test_a_full_disk_is_one_line_and_the_last_set_stands(
        packs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """ENOSPC while writing a PDF: `pnp build` says which file in one line, exits 1, and the
    last set is whole, with no unfinished one left."""
    out = tmp_path / "out"
    command = ["--cards", str(packs), "build", "mini", "--out", str(out), "--force"]
    assert cli.main(command) == 0
    before = _files(out / "mini")
    real = Folder._temporary

    def full(self: Folder, name: str, data: bytes, mode: int = 0o644) -> str:
        if name.endswith(".pdf"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, name, data, mode)

    monkeypatch.setattr(Folder, "_temporary", full)
    capsys.readouterr()
    assert cli.main(command) == 1
    err = capsys.readouterr().err
    assert err.endswith(f"pnp: error: cannot write {out / 'mini' / 'cards-a4.pdf'}: No space "
                        "left on device; nothing was written\n"), err
    assert "Traceback" not in err
    assert _files(out / "mini") == before and _sets(out) == ["1"]


def test_a_read_only_output_folder_is_one_error_and_the_last_set_stands(
        packs: Path, tmp_path: Path, pool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The link cannot be replaced (a read-only folder): a RenderError naming it, the last
    set whole and the new one deleted."""
    out = tmp_path / "out"
    _build(packs, out, pool)
    before = _files(out / "mini")
    real = os.replace

    def refuse(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
        if str(target) == "mini":
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(target))
        real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(RenderError, match=rf"^cannot write {out / 'mini'}: Read-only file "
                                          "system$"):
        _build(packs, out, pool)
    assert _files(out / "mini") == before and _sets(out) == ["1"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes whatever the permissions")
def test_a_folder_without_write_permission_is_one_error(packs: Path, tmp_path: Path,
                                                        pool) -> None:
    out = tmp_path / "out"
    _build(packs, out, pool)
    before = _files(out / "mini")
    out.chmod(0o555)
    try:
        with pytest.raises(RenderError, match="^cannot write .*: Permission denied$"):
            _build(packs, out, pool)
    finally:
        out.chmod(0o755)
    assert _files(out / "mini") == before


def test_whatever_pnp_did_not_make_where_the_sets_go_is_refused_and_left_alone(
        packs: Path, tmp_path: Path, pool) -> None:
    """A file, a folder (an older version's outputs, or one that came with a pack) or a link
    elsewhere where build/<game> or the sets folder go: one clear error, nothing written,
    and what was there (and what a link points to) left as it was."""
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine", encoding="utf-8")
    for place, make, what in (
            (out / "mini", lambda path: path.write_text("a file", encoding="utf-8"), "a file"),
            (out / "mini", lambda path: path.mkdir(), "a folder"),
            (out / "mini", lambda path: path.symlink_to(elsewhere),
             "a link elsewhere than its sets"),
            (out / SETS, lambda path: path.write_text("a file", encoding="utf-8"),
             "a file, not a folder pnp made"),
            (out / SETS, lambda path: path.symlink_to(elsewhere),
             "a symbolic link, not a folder pnp made"),
            (out / SETS, lambda path: path.mkdir(), "a folder pnp did not make")):
        make(place)
        with pytest.raises(RenderError, match=f"^{re.escape(str(place))} is {what}"):
            _build(packs, out, pool)
        assert [path.name for path in elsewhere.iterdir()] == ["keep.txt"]
        assert {path.name for path in out.iterdir()} <= {SETS, ".cache", place.name}, what
        if place.is_dir() and not place.is_symlink():
            place.rmdir()
        else:
            place.unlink()
        shutil.rmtree(out / SETS, ignore_errors=True)
    _build(packs, out, pool)
    assert (out / "mini" / "cards-a4.pdf").is_file()


def _tree(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file and link under a folder, with its modification time and content."""
    return {str(path.relative_to(folder)): (path.lstat().st_mtime_ns, b"" if path.is_dir() else
                                            path.read_bytes())
            for path in sorted(folder.rglob("*"))}


def test_validate_writes_nothing(packs: Path, tmp_path: Path, pool) -> None:
    """No output folder made; one with a build's parts is read, not written, even where a
    part is damaged."""
    out = tmp_path / "out"
    assert validate_game("mini", packs, out_root=out, workers=pool).findings == []
    assert not out.exists()
    _build(packs, out, pool)
    edit(packs / "mini" / "spells.yaml", "火球术", "炎爆术")  # a part no build laid out
    for damaged in parts_folder(out, "mini").glob("*.pdf"):
        damaged.write_bytes(damaged.read_bytes()[:100])
    before = _tree(out)
    said: list[str] = []
    report = validate_game("mini", packs, out_root=out, workers=pool, progress=said.append)
    assert report.findings == []
    assert any("was damaged" in line for line in said), said
    assert _tree(out) == before


def test_the_clock_never_changes_an_output(packs: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """SOURCE_DATE_EPOCH and the time of day do not reach any file, the dice included; the
    workers are started (forked) after each change."""
    with (packs / "mini" / "game.yaml").open("a", encoding="utf-8") as game:
        game.write("dice:\n  - {id: d6, name: 六面骰, count: 1, edge: 20}\n")
    sets = []
    for epoch, now in (("0", 1e9), ("2000000000", 1.7e9)):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        monkeypatch.setattr(time, "time", lambda now=now: now)
        out = tmp_path / epoch
        build_game("mini", out_root=out, cards_dir=packs)
        sets.append(_files(out / "mini"))
    assert sorted(sets[0]) == [".state.json", "cards-a4.pdf", "dice-a4.pdf", "manifest.json"]
    assert sets[0] == sets[1]


def test_an_unsound_pdf_is_never_written_nor_kept(packs: Path, tmp_path: Path, pool,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys) -> None:
    """A join that gives a PDF qpdf cannot open, or an output that does not open when it is
    to be written: one line, the last set whole, and nothing bad kept for the next build."""
    from generator.pipeline import build, execute

    out = tmp_path / "out"
    _build(packs, out, pool)
    before = _files(out / "mini")
    edit(packs / "mini" / "spells.yaml", "火球术", "炎爆术")
    real = execute.join
    monkeypatch.setattr(execute, "join", lambda *args: real(*args)[:-2000])
    with pytest.raises(RenderError, match=r"^cards-a4\.pdf was joined unsound \(.*xref.*\); a "
                                          r"bug in pnp$"):
        _build(packs, out, pool)
    assert _files(out / "mini") == before
    monkeypatch.undo()

    monkeypatch.setattr(build, "unsound", lambda pdf: "it does not open")
    command = ["--cards", str(packs), "build", "mini", "--out", str(out)]
    capsys.readouterr()
    assert cli.main(command) == 1
    assert capsys.readouterr().err.endswith(
        "\npnp: error: mini: cards-a4.pdf was made unsound (it does not open); a bug in pnp; "
        "nothing was written\n")
    assert _files(out / "mini") == before
    monkeypatch.undo()
    _build(packs, out, pool)
    assert unsound((out / "mini" / "cards-a4.pdf").read_bytes()) is None


@pytest.mark.parametrize("state, listed", [
    ("[" * 100000, '{"game": "mini", "outputs": [[]]}'),
    ('{"files": {"cards-letter.pdf": {"sha256": "0", "kind": [1]}}, "papers": {"letter": '
     '{"inputs": "x", "files": [[1]]}}}', "[1, 2]"),
])
def test_a_damaged_record_or_manifest_in_the_set_is_no_error(packs: Path, tmp_path: Path, pool,
                                                             state: str, listed: str) -> None:
    """The record or manifest of the current set deeply nested or of the wrong shape: not up
    to date, and the next build writes a sound set (keeping nothing it cannot vouch for)."""
    from generator.pipeline.cache import input_digest
    from generator.pipeline.manifest import is_fresh

    out = tmp_path / "out"
    _build(packs, out, pool, "letter")
    (out / "mini" / STATE).write_text(state, encoding="utf-8")
    (out / "mini" / "manifest.json").write_text(listed, encoding="utf-8")
    options = BuildOptions(paper="letter")
    assert not is_fresh(out / "mini", "letter", input_digest(packs / "mini", options))
    assert [entry["file"] for entry in _build(packs, out, pool)["outputs"]] == ["cards-a4.pdf"]
