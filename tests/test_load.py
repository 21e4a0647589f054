"""Broken packs: every problem reported at once, as path:line with an exact message."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.check.findings import PackError
from generator.pack import yamlfile
from generator.pack.yamlfile import MAPPING_HINT
from generator.pipeline.build import check

from .conftest import edit, give_rules

FATAL = "; nothing else was checked, as the rest depends on it"


def _messages(cards: Path) -> list[str]:
    try:
        findings = check("mini", cards).findings
    except PackError as exc:  # game.yaml or the rules do not load
        findings = exc.findings
    return [str(f) for f in findings]


def test_the_tiny_pack_is_clean(packs: Path) -> None:
    assert check("mini", packs).findings == []


def test_card_errors_are_all_reported_with_their_lines(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cots: 2\n")
    edit(spells, "  cost: 1\n", "  cost: one\n")
    assert _messages(packs) == [
        f"{spells}:8: error: E010: card 'S2': missing required field 'cost'",
        f"{spells}:10: error: E010: card 'S2': unknown field 'cots' (accepted: art, back, cost, "
        "draft, id, motto, name, qty, quote, sections)",
        f"{spells}:14: error: E010: card 'S3': field 'cost': input should be a valid integer",
    ]


def test_unknown_key_in_a_section_lists_the_section_keys(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "      text: 造成", "      txt: 造成")
    assert _messages(packs) == [
        f"{spells}:6: error: E010: card 'S1': missing required field 'sections.0.text'",
        f"{spells}:7: error: E010: card 'S1': unknown field 'sections.0.txt' "
        "(accepted: label, text)",
    ]


def test_yaml_syntax_error_names_the_line(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", "players: 1-2人\n  oops: [\n")
    assert _messages(packs) == [
        f"{game}:5: error: E002: YAML syntax: mapping values are not allowed in this context"
        + MAPPING_HINT + FATAL]


def test_duplicate_keys_are_errors(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  cost: 5\n")
    assert _messages(packs) == [f"{spells}:11: error: E003: duplicate key 'cost'"]


def test_python_tags_are_refused(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: !!python/object/apply:os.system ['true']\n")
    [message] = _messages(packs)
    assert message.startswith(f"{spells}:10: error: E002: YAML syntax: could not determine a "
                              "constructor for the tag 'tag:yaml.org,2002:python/object/apply")


def test_unknown_game_key_lists_accepted_keys(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", "players: 1-2人\nplayer: 3\n")
    [message] = _messages(packs)
    assert message == (
        f"{game}:5: error: E010: unknown field 'player' (accepted: backs, boxes, components, "
        "date, decks, dice, font_files, fonts, icons, language, languages, limits, palette, "
        "players, readability, rulebook, rules, sizes, standees, stylesheet, subtitle, suppress, "
        "tables, title, typography, url, version, words)" + FATAL)


def test_count_reference_and_size_errors(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    edit(game, "    count: 4\n", "    count: 5\n")
    edit(game, "    size: poker\n", "    size: pokr\n")
    edit(spells, "  back: green\n", "  back: purple\n")
    assert _messages(packs) == [
        f"{game}:15: error: E021: deck 'spells': unknown size 'pokr' (known: a6-landscape, "
        "bridge, euro-poker, mini, poker, square, tarot, token)",
        f"{game}:18: error: E040: deck 'spells' has 4 cards, game.yaml says 5",
        f"{spells}:8: error: E031: card 'S2': unknown back 'purple'",
    ]


def test_duplicate_ids_and_missing_art(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "- id: S2\n", "- id: S1\n  art: art/nothing.png\n")
    assert _messages(packs) == [
        f"{spells}:8: error: E030: duplicate card id 'S1' (first at {spells}:1)",
        f"{spells}:9: error: E051: card 'S1': art 'art/nothing.png' does not exist",
    ]


def test_art_outside_the_pack_is_refused(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "- id: S2\n", "- id: S2\n  art: ../../../../etc/passwd\n")
    assert _messages(packs) == [
        f"{spells}:9: error: E050: card 'S2': art '../../../../etc/passwd' lies outside the "
        "game pack"
    ]


def test_unknown_game_names_the_known_ones(packs: Path) -> None:
    with pytest.raises(PackError) as caught:
        check("nope", packs)
    assert str(caught.value) == f"{packs}/nope: error: E001: no game 'nope' (known: mini)"


def test_colours_must_be_colours(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, 'red: {color: "#ff0000"', 'red: {color: "red</style><script>"')
    [message] = _messages(packs)
    assert message.startswith(f"{game}:8: error: E010: field 'backs.red.color': string should "
                              "match pattern")


def test_card_text_quotes_the_rules(packs: Path) -> None:
    spells = give_rules(packs, "fire: {cost: 3, damage: 2}\n") / "spells.yaml"
    edit(spells, "cost: 3", 'cost: "{fire.cost}"')
    edit(spells, "造成 **3** 点", "造成 **{fire.damage + fire.cost - 1}** 点")
    checked = check("mini", packs)
    assert checked.findings == []
    game = checked.game
    fireball = game.decks[0].cards[0]
    assert fireball.cost == 3  # a value that is one placeholder keeps the rule's type
    assert fireball.sections[0].text.startswith("造成 **4** 点伤害")
    assert game.rules == {"fire": {"cost": 3, "damage": 2}}


def test_a_placeholder_naming_no_rule_is_an_error_at_its_line(packs: Path) -> None:
    spells = give_rules(packs, "fire: {cost: 3, name: 火}\n") / "spells.yaml"
    edit(spells, "cost: 2", 'cost: "{fire.cots}"')
    edit(spells, "造成 **3** 点", "造成 **{fire.name + 1}** 点")
    assert _messages(packs) == [
        f"{spells}:7: error: E007: rule 'fire.name' is not a number, so 'fire.name + 1' "
        "cannot add it",
        f"{spells}:10: error: E007: unknown rule 'fire.cots': fire has no 'cots' "
        "(known: cost, name)",
    ]


def test_a_rules_file_that_is_not_a_mapping_is_an_error(packs: Path) -> None:
    give_rules(packs, "- 1\n- 2\n")
    rules = packs / "mini" / "rules.yaml"
    assert _messages(packs) == [
        f"{rules}:1: error: E005: the rules file must be a YAML mapping" + FATAL]


def test_game_tables_quote_the_rules_too(packs: Path) -> None:
    give_rules(packs, "fire: {cost: 3}\n")
    edit(packs / "mini" / "game.yaml", "decks:\n",
         'tables:\n  kinds:\n    fire: {text: "消耗 {fire.cost} 点"}\ndecks:\n')
    game = check("mini", packs).game
    assert game.spec.tables["kinds"]["fire"]["text"] == "消耗 3 点"


def test_a_pack_read_again_with_its_yaml_kept_finds_the_same(
        packs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pnp serve and pnp watch keep what they parse: a file read again is not parsed again,
    # yet every finding and line is as a fresh read gives, and each read has its own data
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  cost: 4\n")  # a key twice: E003, at its line
    edit(packs / "mini" / "game.yaml", "version: t1", "version: [t1")  # YAML syntax: E002
    fresh = _messages(packs)
    monkeypatch.setattr(yamlfile, "_kept", None)
    yamlfile.keep_parsed()
    assert _messages(packs) == _messages(packs) == fresh
    edit(packs / "mini" / "game.yaml", "version: [t1", "version: t1")
    data = yamlfile.read_yaml(spells, [])
    data[0]["name"] = "changed by its reader"
    again: list = []
    assert yamlfile.read_yaml(spells, again)[0]["name"] == "火球术"
    assert [str(finding) for finding in again] == [
        f"{spells}:11: error: E003: duplicate key 'cost'"]
    checked = check("mini", packs)
    assert [str(f) for f in checked.findings] == [str(f) for f in again]
    assert [line for _, line in checked.game.decks[0].located()] == [1, 8, 13]
    edit(spells, "  cost: 4\n", "")  # the file changed: parsed anew
    assert check("mini", packs).findings == []
