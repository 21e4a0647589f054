"""Limits with ceilings: a pack's templates share one time budget besides each render's own,
no limit a pack raises passes its ceiling, and printers.yaml, edition records and `--dpi` are
read as untrusted input: each failure a message at its path:line, never exit 3."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from generator import cli
from generator.editions.reprint import release
from generator.pack.schema import Limits

from .conftest import edit, give_rulebook, give_rules, give_template
from .test_hostile_load import FATAL, _found, _within

LOOP = "\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
TOTAL = "(`limits: template_seconds_total` in game.yaml)"
CEILINGS = {name: meta.le for name, field in Limits.model_fields.items()
            for meta in field.metadata if hasattr(meta, "le")}


def _limits(pack: Path, limits: str) -> Path:
    """Give the pack's game.yaml `limits` (on line 5); return game.yaml."""
    game = pack / "game.yaml"
    edit(game, "players: 1-2人\n", f"players: 1-2人\nlimits: {{{limits}}}\n")
    return game


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    """`pnp argv`: its exit code, and the lines it printed on stdout and stderr."""
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


# 1. Template time: each render's, and the pack's in all


def test_the_packs_templates_share_one_budget_and_later_renders_fail_at_once(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    give_rulebook(packs)
    pack = packs / "mini"
    _limits(pack, "template_seconds: 30, template_seconds_total: 0.3")
    template = give_template(pack, LOOP)
    spells, rulebook = pack / "spells.yaml", pack / "rulebook.md"
    not_rendered = ("it is not rendered: the pack's templates have taken the 0.3 s they may "
                    f"take in all {TOTAL}")
    expected = [
        f"{rulebook}:1: error: E062: rulebook: {not_rendered}",
        f"{spells}:8: error: E062: {not_rendered}",
        f"{spells}:12: error: E062: {not_rendered}",
        f"{template}:3: error: E062: card 'S1': it runs past the 0.3 s all the pack's templates "
        f"may take {TOTAL}"]
    assert _found(packs) == expected
    assert _found(packs) == expected  # the pack loaded again (pnp watch) starts anew
    status, out, _ = _run(capsys, "validate", "--cards", str(packs), "mini", "--out",
                          str(tmp_path / "out"))
    assert status == 1
    assert out[:-1] == [  # the pages cannot be planned either: the stylesheet (S1, whose
        *expected,          # own error stops its layout, is not rendered again)
        f"templates/base.css.j2:1: error: E062: {not_rendered}"]


# 2. Ceilings


@pytest.mark.parametrize("name", list(Limits.model_fields))
def test_every_limit_has_a_ceiling_a_pack_cannot_raise_it_past(packs: Path, name: str) -> None:
    assert name in CEILINGS, f"limits.{name} has no ceiling"
    ceiling = CEILINGS[name]
    game = _limits(packs / "mini", f"{name}: {ceiling + 1}")
    assert _found(packs) == [f"{game}:5: error: E010: field 'limits.{name}': input should be "
                             f"less than or equal to {ceiling}" + FATAL]


def test_a_qty_of_ten_million_is_refused_at_the_ceiling(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _limits(packs / "mini", "qty: 10000000, copies: 10000000")
    edit(packs / "mini" / "spells.yaml", "  qty: 2\n", "  qty: 10000000\n")
    assert _run(capsys, "validate", "--cards", str(packs), "mini", "--out",
                str(tmp_path / "out")) == (1, [
        f"{game}:5: error: E010: field 'limits.copies': input should be less than or equal to "
        "20000",
        f"{game}:5: error: E010: field 'limits.qty': input should be less than or equal to "
        "20000" + FATAL,
        "mini: 2 errors, 0 warnings; not checked: everything past loading (game.yaml or its "
        "rules do not load)"], [])


def test_a_pack_at_every_ceiling_validates_and_exports_to_tts(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = packs / "mini"
    _limits(pack, ", ".join(f"{name}: {ceiling}" for name, ceiling in CEILINGS.items()))
    copies = 2000  # as many as a test affords in seconds; a deck at the ceiling takes ~12 s
    edit(pack / "spells.yaml", "  qty: 2\n", f"  qty: {copies - 2}\n")
    edit(pack / "game.yaml", "    count: 4\n", f"    count: {copies}\n")
    out_root = tmp_path / "out"
    status, out, _ = _run(capsys, "validate", "--cards", str(packs), "mini", "--out",
                          str(out_root))
    assert (status, out) == (0, ["mini: 0 errors, 0 warnings"])
    assert _run(capsys, "export", "--cards", str(packs), "mini", "--to", "tts", "--out",
                str(out_root))[0] == 0
    saved = out_root / "mini-export" / "tts" / "saved-object.json"
    [deck] = json.loads(saved.read_text(encoding="utf-8"))["ObjectStates"]
    assert deck["DeckIDs"] == [100, 101] + [102] * (copies - 2)


# 3. printers.yaml, read as a pack's files are


@pytest.mark.parametrize(("make", "message"), [
    (os.mkfifo, "printers.yaml:1: 'printers.yaml' is not a regular file"),
    (lambda path: path.symlink_to("/dev/zero"),
     "printers.yaml:1: 'printers.yaml' is not a regular file"),
    (lambda path: path.write_text("office:\n  duplex: " + "[" * 100_000 + "]" * 100_000 + "\n"),
     "printers.yaml:2: mappings and lists nest more than 40 deep"),
    (lambda path: path.write_text("office:\n  duplex: [long\n"),
     "printers.yaml:3: YAML syntax: while parsing a flow sequence did not find expected ',' or "
     "']'"),
    (lambda path: path.write_text("office:\n  duplex: long\n  duplex: short\n"),
     "printers.yaml:3: duplicate key 'duplex'"),
    (lambda path: path.write_bytes(b"office:\n  duplex: lo\xffng\n"),
     "printers.yaml:2: not UTF-8: byte 0xff at line 2, column 13"),
    (lambda path: path.write_text("office: {duplex: long}\nnotes: " + "x" * 1_500_000 + "\n"),
     "printers.yaml:1: 'printers.yaml' is 1.5 MB, over the limit of 1 MB"),
])
def test_printers_yaml_is_read_as_untrusted_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        make: Callable[[Path], object], message: str) -> None:
    make(tmp_path / "printers.yaml")
    monkeypatch.chdir(tmp_path)
    with _within(30):  # a FIFO would hang
        status, _, err = _run(capsys, "calibrate", "--out", str(tmp_path), "--printer",
                              "office")
    assert (status, err) == (1, [f"pnp: error: {message}; nothing was written"])
    assert not (tmp_path / "calibrate-a4.pdf").exists()


# 4. Edition records


@pytest.fixture
def released(packs: Path) -> Path:
    """The tiny pack with rules, released once as `first`; its editions folder."""
    give_rules(packs, "damage: 3\n")
    release("mini", "first", packs)
    return packs / "mini" / "editions"


def test_an_edition_nested_a_hundred_thousand_deep_is_left_out_by_name(
        packs: Path, released: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = released / "deep.json"
    deep.write_text('{"format": 1,\n "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    notice = f"pnp: {deep}:2: it nests more than 256 deep; left out"
    status, out, err = _run(capsys, "editions", "--cards", str(packs), "mini")
    assert (status, out, err) == (0, ["mini\tfirst\tt1\t6 faces"], [notice])
    for command in ("changes", "reprint"):
        status, _, err = _run(capsys, command, "--cards", str(packs), "mini", "--out",
                              str(packs.parent / "out"))
        assert status == 0, err  # once a process, however often the editions are listed
    assert err == ["pnp: mini: nothing prints differently since first: nothing written"]


def test_broken_and_foreign_edition_records_are_named_not_silent(
        packs: Path, released: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (released / "broken.json").write_text('{"format": 1,\n "edition": "x",\n}\n')
    (released / "other.json").write_text('{"format": 2, "edition": "later"}\n')
    (released / "list.json").write_text("[1, 2]\n")
    (released / "huge.json").write_text('{"format": 1, "n": 1' + "0" * 5000 + "}\n")
    status, out, err = _run(capsys, "editions", "--cards", str(packs), "mini")
    assert (status, out) == (0, ["mini\tfirst\tt1\t6 faces"])
    assert err == [
        f"pnp: {released / 'broken.json'}:3: not JSON (Expecting property name enclosed in "
        "double quotes); left out",
        f"pnp: {released / 'huge.json'}: not JSON (Exceeds the limit (4300 digits) for integer "
        "string conversion: value has 5001 digits; use sys.set_int_max_str_digits() to "
        "increase the limit); left out",
        f"pnp: {released / 'list.json'}: not an edition record of format 1, the one this pnp "
        "writes; left out",
        f"pnp: {released / 'other.json'}: not an edition record of format 1, the one this pnp "
        "writes; left out"]


def test_an_edition_numbered_past_a_million_is_left_out_and_releases_go_on(
        packs: Path, released: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads((released / "first.json").read_text(encoding="utf-8"))
    absurd = released / "absurd.json"
    absurd.write_text(json.dumps({**record, "edition": "absurd", "number": 10**100}))
    assert release("mini", None, packs) == released / "e2.json"
    assert capsys.readouterr().err.splitlines() == [
        f"pnp: {absurd}: its number is not from 1 to 1000000; left out"]
    assert json.loads((released / "e2.json").read_text(encoding="utf-8"))["number"] == 2
    (released / "last.json").write_text(json.dumps({**record, "edition": "last",
                                                    "number": 1_000_000}))
    status, _, err = _run(capsys, "release", "--cards", str(packs), "mini")
    assert (status, err) == (1, ["pnp: error: mini: the last edition is numbered 1000000, the "
                                 "highest number an edition may have; nothing was written"])
    (released / "last.json").write_text(json.dumps({**record, "edition": "last\n",
                                                    "number": 3}))
    assert _run(capsys, "editions", "--cards", str(packs), "mini")[2] == [
        f"pnp: {released / 'last.json'}: its edition name is not one pnp writes (letters, "
        "digits, '.', '-' and '_', at most 64); left out"]


def test_a_release_name_ending_in_a_newline_is_refused(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "release", "--cards", str(packs), "mini", "e1\n", "--out",
                          str(tmp_path / "out"))
    assert (status, err[-1]) == (1, "pnp: error: edition name 'e1\\n': letters, digits, '.', "
                                    "'-' and '_' only, at most 64; nothing was written")
    assert not (packs / "mini" / "editions").exists()


# 5. --dpi


@pytest.mark.parametrize("dpi", ["0.01", "9.99", "1201", "nan"])
def test_a_dpi_out_of_range_is_an_error_naming_the_range(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], dpi: str) -> None:
    status, _, err = _run(capsys, "export", "--cards", str(packs), "mini", "--to", "images",
                          "--dpi", dpi, "--out", str(tmp_path / "out"))
    assert (status, err) == (1, [f"pnp: error: --dpi {float(dpi):g}: an export draws at 10 to "
                                 "1200 dpi; nothing was written"])
    assert not (tmp_path / "out").exists()
