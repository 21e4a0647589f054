"""Lists of any type: a list field says what its items are, read from YAML or one spreadsheet
cell; an item's error names its field or column and its place; a card that does not load
still counts, and the rulebook still finds it."""

from __future__ import annotations

from pathlib import Path

from generator.pack.load import load_game
from generator.pipeline.build import check

from .conftest import edit, give_rulebook

FIELDS = "      cost: {type: int, required: true}"


def _list_field(packs: Path, declared: str) -> Path:
    """The tiny pack's deck declaring the list field `capec` as `declared`."""
    pack = packs / "mini"
    edit(pack / "game.yaml", FIELDS, f"{FIELDS}\n      capec: {declared}")
    return pack


def _messages(packs: Path) -> list[str]:
    return [str(finding) for finding in check("mini", packs).findings]


def test_a_list_of_numbers_reads_from_yaml_and_from_one_cell(packs: Path) -> None:
    pack = _list_field(packs, "{type: list, items: number}")
    edit(pack / "spells.yaml", "  cost: 3\n", "  cost: 3\n  capec: [54, 113, '116', 2.5]\n")
    assert load_game("mini", packs).decks[0].cards[0].capec == [54, 113, 116, 2.5]
    (pack / "spells.csv").write_text('id,name,cost,back,capec\nS1,火球术,3,red,"[54, 113]"\n'
                                     "S2,治疗术,2,green,[]\nS3,冰冻术,1,blue,[7]\n",
                                     encoding="utf-8")
    edit(pack / "game.yaml", "file: spells.yaml", "file: spells.csv")
    edit(pack / "game.yaml", "count: 4", "count: 3")
    assert [card.capec for card in load_game("mini", packs).decks[0].cards] == [
        [54, 113], [], [7]]


def test_numbers_in_a_list_of_text_are_their_text(packs: Path) -> None:
    pack = _list_field(packs, "{type: list}")
    edit(pack / "spells.yaml", "  cost: 3\n", "  cost: 3\n  capec: [54, 113, 116]\n")
    assert _messages(packs) == []
    assert load_game("mini", packs).decks[0].cards[0].capec == ["54", "113", "116"]


def test_an_item_s_error_names_its_field_or_column_and_its_place(packs: Path) -> None:
    pack = _list_field(packs, "{type: list, items: number}")
    spells = pack / "spells.yaml"
    edit(spells, "  cost: 3\n", "  cost: 3\n  capec: [54, many, 116]\n")
    assert _messages(packs) == [f"{spells}:4: error: E010: card 'S1': field 'capec', item 2: "
                                "input should be a number"]
    sheet = pack / "spells.csv"
    sheet.write_text('id,name,cost,back,capec\nS1,火球术,3,red,"[1, x]"\n'
                     "S2,治疗术,2,green,[]\nS3,冰冻术,1,blue,[7]\n", encoding="utf-8")
    edit(pack / "game.yaml", "file: spells.yaml", "file: spells.csv")
    edit(pack / "game.yaml", "count: 4", "count: 3")
    assert _messages(packs) == [f"{sheet}:2: error: E010: card 'S1': column 'capec', item 2: "
                                "input should be a number"]


def test_numbers_may_be_choices(packs: Path) -> None:
    pack = packs / "mini"
    edit(pack / "game.yaml", FIELDS, f"{FIELDS}\n      range: {{type: choice, choices: [2, 3]}}")
    spells = pack / "spells.yaml"
    edit(spells, "  cost: 3\n", "  cost: 3\n  range: 3\n")
    assert _messages(packs) == []
    edit(spells, "  range: 3\n", "  range: 4\n")
    [message] = _messages(packs)
    assert message.startswith(f"{spells}:4: error: E010: card 'S1': field 'range': input "
                              "should be 2 or 3")


def test_a_card_that_does_not_load_still_counts_and_the_rulebook_finds_it(packs: Path) -> None:
    pack = packs / "mini"
    give_rulebook(packs)
    spells = pack / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: two\n")  # S2 does not load
    with (pack / "game.yaml").open("a", encoding="utf-8") as game:
        game.write("components:\n  - {name: 法术牌, count: 4, decks: [spells]}\n"
                   "  - {name: 治疗术, count: 1, cards: [S2]}\n")
    with (pack / "rulebook.md").open("a", encoding="utf-8") as rulebook:
        rulebook.write("\n治疗术的名字：{{ cards.S2.name }}。\n")
    assert _messages(packs) == [f"{spells}:10: error: E010: card 'S2': field 'cost': input "
                                "should be a valid integer"]  # one error, and no E041 nor E061
