"""Spreadsheet decks: a deck's `file:` may be a CSV file or an .xlsx workbook, one row per card,
its cells typed by the deck's fields; every problem names the file and the line the row starts
on (CSV) or the cell (`spells.xlsx:Cards!C3`); `pnp deck-csv` writes a deck out in the same
spelling, and reading that back gives the same cards."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from generator import cli
from generator.check.findings import CellRef, Finding
from generator.pack.load import load_game
from generator.pack.spreadsheet import deck_csv
from generator.pipeline.build import BuildOptions, build_game

from .conftest import copy_real_pack, edit, give_rules, page_texts

FILE_LINE = 14  # the `file:` line of the tiny pack's deck in its game.yaml
CSV = (
    "\ufeffid,name,cost,back,qty,draft,sections.0.label,sections.0.text,motto\r\n"
    "S1,火球术,{fire.cost},red,,false,效果,\"造成 **{fire.damage}** 点伤害。\r\n"
    "第二行\",\r\n"
    "S2,治疗术,2,green,,TRUE,,,\r\n"
    "S3,冰冻术, 1 ,blue,2,,,,冰封\r\n"
)


def _deck_file(packs: Path, name: str, data: str | bytes) -> Path:
    """Give the tiny pack's deck the file `name` holding data; return its path."""
    pack = packs / "mini"
    path = pack / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    edit(pack / "game.yaml", "file: spells.yaml", f"file: {name}")
    return path


def _workbook(sheets: dict[str, list[list[Any]]]) -> bytes:
    """An .xlsx workbook holding these sheets, in order, written by openpyxl."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _found(packs: Path) -> list[str]:
    """What loading the tiny pack finds, as the CLI prints it."""
    return [str(finding) for finding in load_game("mini", packs).findings]


def _cards(packs: Path) -> list[dict[str, Any]]:
    """The tiny pack's cards as they loaded."""
    return [card.model_dump(exclude_defaults=True) for card in load_game("mini", packs)
            .decks[0].cards]


def test_a_csv_deck_types_its_cells_by_the_deck_fields(packs: Path) -> None:
    """A BOM, CRLF lines, a multi-line cell, rule placeholders in an int and a text cell, an
    int with spaces round it, TRUE and false, empty cells as no value, qty, dotted sections."""
    give_rules(packs, "fire: {cost: 3, damage: 2}\n")
    _deck_file(packs, "spells.csv", CSV)
    assert _found(packs) == []
    assert _cards(packs) == [
        {"id": "S1", "name": "火球术", "cost": 3, "back": "red",
         "sections": [{"label": "效果", "text": "造成 **2** 点伤害。\n第二行"}]},
        {"id": "S2", "name": "治疗术", "cost": 2, "back": "green", "draft": True},
        {"id": "S3", "name": "冰冻术", "cost": 1, "back": "blue", "qty": 2, "motto": "冰封"},
    ]
    deck = load_game("mini", packs).decks[0]
    assert (deck.copies, deck.lines) == (4, [2, 4, 5])  # S2 starts below the two-line cell


def test_a_list_is_one_cell_of_yaml_flow_text_or_dotted_columns(packs: Path) -> None:
    edit(packs / "mini" / "game.yaml", "cost: {type: int, required: true}",
         "cost: {type: int, required: true}\n      tags: {type: list}\n"
         "      counts: {type: counts}\n      marks: {type: rows}")
    _deck_file(packs, "spells.csv", (
        "id,name,cost,back,tags,counts.fire,marks.1.at,marks.1.text,marks.0.at,marks.0.on\n"
        "S1,火球术,3,red,\"[火, '3']\",2,7,七,1.5,true\n"
        "S2,治疗术,2,green,[],,,,,\n"
        "S3,冰冻术,1,blue,,,,,,\n"
        "S4,冰冻术,1,blue,,,,,,\n"))
    assert _found(packs) == []
    assert _cards(packs)[:3] == [
        {"id": "S1", "name": "火球术", "cost": 3, "back": "red", "tags": ["火", "3"],
         "counts": {"fire": 2}, "marks": [{"at": 1.5, "on": True}, {"at": 7, "text": "七"}]},
        {"id": "S2", "name": "治疗术", "cost": 2, "back": "green", "tags": []},
        {"id": "S3", "name": "冰冻术", "cost": 1, "back": "blue"},
    ]


def test_csv_errors_name_the_line_the_row_starts_on(packs: Path) -> None:
    spells = _deck_file(packs, "spells.csv", (
        "id,name,cost,back,cots,sections.x.text,sections.0.colour,cost,name.first\n"
        "S1,火球术,3,red,,,,,\n"
        "S2,\"治疗\n术\",2,green,,,,,\n"  # lines 3 and 4
        "S3,冰冻术,3x,blue,9,,,,\n"  # line 5
        "S4,冰冻术,2,blue,,,,,,,x\n"
        "S5,冰冻术,1\n"
        ",无名,1,red,,,,,\n"
        "S6,冰冻术,{fire},blue,,,,,\n"))
    edit(packs / "mini" / "game.yaml", "back: red\n    count: 4", "back: red\n    count: 2")
    edit(packs / "mini" / "game.yaml", "cost: {type: int, required: true}",
         "cost: {type: int, required: true}\n      tags: {type: list}")
    accepted = "art, back, cost, draft, id, motto, name, qty, quote, sections, tags"
    assert _found(packs) == [f"{spells}:{line}: error: {message}" for line, message in [
        (1, f"E010: unknown column 'cots' (accepted: {accepted})"),
        (1, "E010: column 'sections.x.text': 'x' is not a list index (sections.0, "
            "sections.1, …)"),
        (1, "E010: column 'sections.0.colour': 'sections.0' has no key 'colour' (accepted: "
            "label, text)"),
        (1, "E005: column 'cost' appears twice in the header row (C and H)"),
        (1, "E010: column 'name.first': 'name' holds one value, so nothing follows a dot"),
        (5, "E010: card 'S3': column 'cost': '3x' is not a whole number"),
        (6, "E005: card 'S4': the row has 11 cells, and the header row 9"),
        (7, "E005: card 'S5': the row has 3 cells, and the header row 9"),
        (8, "E010: missing required column 'id'"),
        (9, "E007: unknown rule 'fire': the rules have no 'fire'"),
    ]]
    assert [card["id"] for card in _cards(packs)] == ["S1", "S2"]


def test_a_csv_file_that_is_not_csv_is_a_finding(packs: Path) -> None:
    spells = _deck_file(packs, "spells.csv", b"id,name\nS1,\xff\n")
    assert _found(packs) == [f"{spells}:2: error: E001: not UTF-8: byte 0xff at line 2, "
                             "column 4"]
    spells.write_text('id,name,cost\nS1,"火球术,3\nS2,治疗术,2\n', encoding="utf-8")
    assert _found(packs) == [f"{spells}:2: error: E005: not CSV: a quoted cell that starts in "
                             "this row is never closed"]
    spells.write_text('id,name,cost\nS1,"火球"术,3\n', encoding="utf-8")
    assert _found(packs) == [f"{spells}:2: error: E005: not CSV: ',' expected after '\"'"]
    spells.write_text("id;name;cost\nS1;火球术;3\n", encoding="utf-8")
    assert _found(packs) == [f"{spells}:1: error: E005: the header row is one column, "
                             "'id;name;cost': a CSV deck's cells are separated by commas (save "
                             "it as \"CSV UTF-8, comma-separated\")"]
    spells.write_text("\n\n", encoding="utf-8")
    assert _found(packs) == [f"{spells}:1: error: E005: no header row: the first row of a "
                             "spreadsheet deck names its columns"]


def test_a_spreadsheet_deck_keeps_within_the_pack_limits(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = _deck_file(packs, "spells.csv", "id,name,cost,back\nS1,火球术,3,red\n"
                        f"S2,{'术' * 30},1234567890123,blue\n")
    edit(game, "players: 1-2人\n", "players: 1-2人\nlimits: {string_chars: 20}\n")
    assert _found(packs) == [
        f"{spells}:3: error: E006: card 'S2': column 'name': a cell of 30 characters, over the "
        "limit of 20 (`limits: string_chars` in game.yaml)",
        f"{spells}:3: error: E006: card 'S2': column 'cost': an integer of 13 digits, over the "
        "limit of 12 (`limits: integer_digits` in game.yaml)"]
    edit(game, "limits: {string_chars: 20}", "limits: {yaml_nodes: 12}")
    assert _found(packs) == [f"{spells}:3: error: E006: more than 12 rows and cells (`limits: "
                             "yaml_nodes` in game.yaml counts them)"]
    edit(game, "limits: {yaml_nodes: 12}", "limits: {file_mb: 0.00002}")
    assert _found(packs)[-1] == (f"{game}:{FILE_LINE + 1}: error: E006: deck 'spells': file "
                                 "'spells.csv' is 150 bytes, over the limit of 20 bytes "
                                 "(`limits: file_mb` in game.yaml)")  # the rulebook is, too
    spells.unlink()
    spells.symlink_to("/etc/passwd")
    assert _found(packs)[-1] == (f"{game}:{FILE_LINE + 1}: error: E050: deck 'spells': file "
                                 "'spells.csv' lies outside the game pack")


def test_an_xlsx_deck_reads_the_first_sheet_or_the_named_one(packs: Path) -> None:
    header = ["id", "name", "cost", "back", "qty", "sections.0.text", "draft"]
    _deck_file(packs, "spells.xlsx", _workbook({
        "Cards": [header, ["S1", "火球术", 3, "red", None, "第一行\n第二行", False],
                  [], ["S2", 7, "2", "green", None, None, "=1=1"],
                  ["S3", "冰冻术", 1.0, "blue", 2, None, "TRUE"]],
        "Other": [header, ["X1", "别的", 1, "red", 4]]}))
    assert _found(packs) == []
    first = [{"id": "S1", "name": "火球术", "cost": 3, "back": "red",
              "sections": [{"text": "第一行\n第二行"}]},
             {"id": "S2", "name": "7", "cost": 2, "back": "green"},  # a formula, no value
             {"id": "S3", "name": "冰冻术", "cost": 1, "back": "blue", "qty": 2, "draft": True}]
    assert _cards(packs) == first
    edit(packs / "mini" / "game.yaml", "file: spells.xlsx", "file: spells.xlsx\n    sheet: Other")
    assert _cards(packs) == [{"id": "X1", "name": "别的", "cost": 1, "back": "red", "qty": 4}]
    edit(packs / "mini" / "game.yaml", "sheet: Other", "sheet: Nope")
    assert _found(packs) == [f"{packs / 'mini' / 'game.yaml'}:{FILE_LINE}: error: E001: deck "
                             "'spells': file 'spells.xlsx' has no sheet 'Nope' (sheets: Cards, "
                             "Other)"]


def test_xlsx_errors_name_the_sheet_and_the_cell(packs: Path) -> None:
    spells = _deck_file(packs, "spells.xlsx", _workbook({"My Cards": [
        ["id", "name", "cost", "back", "cots", None],
        ["S1", "火球术", "x", "red"],
        ["S2", "治疗术", 2, "green", None, "stray"],
        ["S3", "冰冻术", 1, "blue", None, None, "far"],
        ["S4", "冰冻术", 1, "blue", 5]]}))
    edit(packs / "mini" / "game.yaml", "count: 4", "count: 1")
    assert _found(packs) == [f"{spells}:'My Cards'!{cell}: error: {message}" for cell, message in [
        ("E1", "E010: unknown column 'cots' (accepted: art, back, cost, draft, id, motto, name, "
               "qty, quote, sections)"),
        ("C2", "E010: card 'S1': column 'cost': 'x' is not a whole number"),
        ("F3", "E005: card 'S2': column F has no header, and this row fills it"),
        ("G4", "E005: card 'S3': column G has no header, and this row fills it"),
    ]]


def test_a_date_the_spreadsheet_made_is_named(packs: Path) -> None:
    import datetime

    spells = _deck_file(packs, "spells.xlsx", _workbook({"Cards": [
        ["id", "name", "cost", "back"], ["S1", datetime.datetime(2024, 1, 2), 3, "red"]]}))
    assert _found(packs)[0] == (
        f"{spells}:Cards!B2: error: E010: card 'S1': column 'name': the cell holds a date or a "
        "time (2024-01-02 00:00:00), which the spreadsheet made of what was typed: format the "
        "column as text")


def _zipped(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _with_dtd(workbook: bytes) -> bytes:
    """The workbook with an entity declared in its first sheet's XML."""
    with zipfile.ZipFile(io.BytesIO(workbook)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    members[sheet] = members[sheet].replace(
        b"<worksheet", b'<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
        b"<worksheet", 1)
    assert b"<!DOCTYPE" in members[sheet]
    return _zipped(members)


CARDS = [["id", "name", "cost", "back"], ["S1", "火球术", 3, "red"]]


@pytest.mark.parametrize(("data", "code", "message"), [
    (b"garbage", "E001", "is not an .xlsx workbook: BadZipFile: File is not a zip file"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "E001",
     "is password-protected or an old .xls workbook: save it as an .xlsx workbook without a "
     "password"),
    (_workbook({"Cards": CARDS})[:-40], "E001",
     "is not an .xlsx workbook: BadZipFile: File is not a zip file"),
    (_zipped({"hello.txt": b"hi"}), "E001", "cannot be read as a workbook: KeyError: \"There "
     "is no item named '[Content_Types].xml' in the archive\""),
    (_zipped({"xl/bomb.xml": bytes(2_000_000)}), "E006",
     "unpacks to 2.0 MB, over the limit of 1 MB (`limits: file_mb` in game.yaml)"),
    (_with_dtd(_workbook({"Cards": CARDS})), "E001", "cannot be read as a workbook: "
     "xl/worksheets/sheet1.xml declares a DTD, which no workbook needs"),
])
def test_a_broken_workbook_is_a_finding_where_game_yaml_names_it(
        packs: Path, data: bytes, code: str, message: str) -> None:
    """Corrupt, encrypted, truncated, not a workbook, a zip bomb, an entity bomb."""
    _deck_file(packs, "spells.xlsx", data)
    edit(packs / "mini" / "game.yaml", "players: 1-2人\n", "players: 1-2人\nlimits: {file_mb: 1}\n")
    assert _found(packs) == [f"{packs / 'mini' / 'game.yaml'}:{FILE_LINE + 1}: error: {code}: "
                             f"deck 'spells': file 'spells.xlsx' {message}"]
    assert load_game("mini", packs).decks[0].readable is False


def test_a_sheet_on_a_deck_that_is_no_workbook_is_a_finding(packs: Path) -> None:
    edit(packs / "mini" / "game.yaml", "file: spells.yaml", "file: spells.yaml\n    sheet: Cards")
    assert _found(packs) == [f"{packs / 'mini' / 'game.yaml'}:{FILE_LINE}: error: E010: deck "
                             "'spells': `sheet` names a sheet of an .xlsx workbook, and "
                             "'spells.yaml' is not one"]


def test_a_finding_at_a_cell_prints_the_cell_and_its_row_in_json(packs: Path, capsys) -> None:
    finding = Finding("beings.xlsx", CellRef(5, "Cards!C5"), "card 'B3': …", "E010")
    assert str(finding) == "beings.xlsx:Cards!C5: error: E010: card 'B3': …"
    assert str(Finding("beings.csv", 5, "card 'B3': …", "E010")) == \
        "beings.csv:5: error: E010: card 'B3': …"
    spells = _deck_file(packs, "spells.xlsx", _workbook({"Cards": [
        ["id", "name", "cost", "back", "draft"], ["S1", "火球术", 3, "red", True],
        ["S2", "治疗术", 2, "green"], ["S3", "冰冻术", 1, "blue"]]}))
    edit(packs / "mini" / "game.yaml", "count: 4", "count: 3")
    cards = ["--cards", str(packs), "--out", str(packs.parent / "out")]
    assert cli.main(["validate", "mini", *cards]) == 0
    assert capsys.readouterr().out == (f"{spells}:Cards!A2: warning: W001: card 'S1' (火球术) "
                                       "is a draft\nmini: 0 errors, 1 warning\n")
    assert cli.main(["validate", "mini", "--json", *cards]) == 0
    [report] = json.loads(capsys.readouterr().out)["games"]
    assert report["findings"] == [{"path": str(spells), "line": 2, "message": "card 'S1' "
                                   "(火球术) is a draft", "level": "warning", "code": "W001",
                                   "card": ""}]


def test_a_csv_deck_builds(packs: Path, tmp_path: Path, pool) -> None:
    give_rules(packs, "fire: {cost: 3, damage: 2}\n")
    _deck_file(packs, "spells.csv", CSV)
    build_game("mini", BuildOptions(only=("sheets",)), out_root=tmp_path / "out",
               cards_dir=packs, workers=pool)
    fronts = page_texts(tmp_path / "out" / "mini" / "cards-a4.pdf")[0]
    for text in ("火球术", "治疗术", "冰冻术", "造成2点伤害。第二行", "冰封"):
        assert text in fronts
    assert fronts.count("冰冻术") == 2  # qty 2


@pytest.mark.parametrize(("game", "deck"), [
    ("gongde-lunhui", "beings"),  # ints, bools, optional text
    ("thbattle", "characters"),  # rows holding lists: skills.1.tags.0
    ("gongde-lunhui-v2", "roles"),  # rule placeholders, sections, an empty list: tallies []
])
def test_deck_csv_reads_back_as_the_same_cards(tmp_path: Path, game: str, deck: str) -> None:
    cards = copy_real_pack(tmp_path, game)
    pack = cards / game
    before = load_game(game, cards)
    [spec] = [d.spec for d in before.decks if d.spec.id == deck]
    (pack / f"{deck}.csv").write_text(deck_csv(before, deck), encoding="utf-8", newline="")
    edit(pack / "game.yaml", f"file: {spec.file}\n", f"file: {deck}.csv\n")
    after = load_game(game, cards)
    assert [str(f) for f in after.findings] == [str(f) for f in before.findings]
    [old] = [d for d in before.decks if d.spec.id == deck]
    [new] = [d for d in after.decks if d.spec.id == deck]
    assert [card.model_dump() for card in new.cards] == [card.model_dump() for card in old.cards]
    assert len(new.cards) > 3


def test_pnp_deck_csv_writes_the_deck(packs: Path, tmp_path: Path, capsysbinary) -> None:
    out = tmp_path / "spells.csv"
    assert cli.main(["deck-csv", "mini", "spells", "--cards", str(packs), "--out", str(out)]) == 0
    written = out.read_bytes()
    assert written.decode("utf-8") == (
        "\ufeffid,name,cost,back,sections.0.label,sections.0.text,qty\r\n"
        "S1,火球术,3,red,效果,造成 **3** 点伤害。<b>不是标记</b>,\r\n"
        "S2,治疗术,2,green,,,\r\n"
        "S3,冰冻术,1,blue,,,2\r\n")
    assert cli.main(["deck-csv", "mini", "spells", "--cards", str(packs)]) == 0
    assert capsysbinary.readouterr().out == written
    assert cli.main(["deck-csv", "mini", "nope", "--cards", str(packs)]) == 1
    assert capsysbinary.readouterr().err.decode() == (
        "pnp: error: game 'mini' has no deck 'nope' (decks: spells); nothing was written\n")


def test_pnp_deck_csv_refuses_what_a_spreadsheet_cannot_say(packs: Path, capsys) -> None:
    edit(packs / "mini" / "game.yaml", "cost: {type: int, required: true}",
         "cost: {type: int, required: true}\n      marks: {type: rows}")
    edit(packs / "mini" / "spells.yaml", "  cost: 2\n", "  cost: 2\n  marks: [{at: '3'}]\n")
    assert cli.main(["deck-csv", "mini", "spells", "--cards", str(packs)]) == 1
    assert capsys.readouterr().err == (
        "pnp: error: card 'S2': 'marks' would not read back the same from CSV ([{'at': '3'}] "
        "would read as [{'at': 3}]); nothing was written\n")
    (packs / "mini" / "spells.yaml").write_text("[]\n", encoding="utf-8")
    assert cli.main(["deck-csv", "mini", "spells", "--cards", str(packs)]) == 0
    assert capsys.readouterr().out == "\ufeffid,name\r\n"  # a deck of no cards
    (packs / "mini" / "spells.yaml").write_text("- {id: S1, name: 火球术, cost: 2x}\n",
                                                encoding="utf-8")
    assert cli.main(["deck-csv", "mini", "spells", "--cards", str(packs)]) == 1
    assert capsys.readouterr().err == (
        f"{packs / 'mini' / 'spells.yaml'}:1: error: E010: card 'S1': field 'cost': input "
        "should be a valid integer\npnp: 1 error; nothing was written\n")
