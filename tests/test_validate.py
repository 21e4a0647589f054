"""The rules validator: one tiny broken pack per kind of finding, each message exact."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from generator import cli
from generator.check.findings import told
from generator.pipeline.build import validate_game

from .conftest import edit, give_rulebook, give_rules, give_template

RULES = """\
fire: {cost: 3, damage: 2}
track: {min: 0, max: 20, win: 12}
bands:
  - {min: 0, max: 4, score: 3}
  - {min: 5, max: 9, score: 2}
terms:
  fire.cost: [火球消耗#]
checks:
  non_negative: ["fire.*"]
  within:
    - {min: track.min, max: track.max, rules: [track.win]}
  contiguous: [bands]
"""


def _found(cards: Path) -> list[str]:
    """What `pnp validate` prints for the tiny pack: one line a mistake."""
    report = validate_game("mini", cards, out_root=cards.parent / "out")
    return [str(finding) for finding in told(report.findings)]


def test_the_tiny_pack_with_rules_is_clean(packs: Path) -> None:
    give_rules(packs, RULES)
    assert _found(packs) == []


def test_a_restated_rule_is_an_error_when_wrong_and_a_warning_when_right(packs: Path) -> None:
    pack = give_rules(packs, RULES)
    spells = pack / "spells.yaml"
    edit(spells, "造成 **3** 点伤害。", "火球消耗 **2** 点。")
    edit(spells, "  cost: 2\n", "  cost: 2\n  quote: 火球消耗3\n")
    assert _found(packs) == [
        f"{spells}:7: error: E090: '火球消耗 2' says 2, but rule 'fire.cost' is 3",
        f"{spells}:11: warning: W010: '火球消耗3' restates rule 'fire.cost'; quote it as "
        "{fire.cost}",
    ]


def test_latin_terms_ignore_case_spacing_and_a_plural_s(packs: Path) -> None:
    pack = give_rules(packs, RULES.replace("fire.cost: [火球消耗#]",
                                           "fire.cost: [火球消耗#, 'Lose # points']"))
    spells = pack / "spells.yaml"
    edit(spells, "造成 **3** 点伤害。", "LOSE  **2**\tPOINTS.")
    edit(spells, "  cost: 2\n", "  cost: 2\n  quote: you lose 3 point\n")
    assert _found(packs) == [
        f"{spells}:7: error: E090: 'LOSE 2 POINTS' says 2, but rule 'fire.cost' is 3",
        f"{spells}:11: warning: W010: 'lose 3 point' restates rule 'fire.cost'; quote it as "
        "{fire.cost}",
    ]


def test_an_ascii_line_of_the_rulebook_restating_a_rule_is_found(packs: Path) -> None:
    give_rulebook(packs)
    pack = give_rules(packs, RULES.replace("fire.cost: [火球消耗#]", "fire.cost: ['costs # mana']"))
    rulebook = pack / "rulebook.md"
    lines = rulebook.read_text(encoding="utf-8").count("\n")
    with rulebook.open("a", encoding="utf-8") as out:
        out.write("\nA fireball costs 4 mana.\n")
    assert _found(packs) == [
        f"{rulebook}:{lines + 2}: error: E090: 'costs 4 mana' says 4, but rule 'fire.cost' is 3"]


def test_a_template_restating_a_rule_is_found_on_its_line(packs: Path) -> None:
    pack = give_rules(packs, RULES)
    template = give_template(pack, "\n<p>火球消耗 4</p>\n")
    assert _found(packs) == [
        f"{template}:3: error: E090: '火球消耗 4' says 4, but rule 'fire.cost' is 3"]


def test_rule_ranges(packs: Path) -> None:
    pack = give_rules(packs, RULES.replace("cost: 3", "cost: -1").replace("win: 12", "win: 25")
                 .replace("min: 5, max: 9", "min: 6, max: 9"))
    rules = pack / "rules.yaml"
    assert _found(packs) == [
        f"{rules}:1: error: E092: rule 'fire.cost' is -1; it must not be negative",
        f"{rules}:2: error: E093: rule 'track.win' is 25, off its track track.min–track.max "
        "(0–20)",
        f"{rules}:5: error: E094: rule 'bands': row 2 starts at 6, but row 1 ends at 4; bands "
        "must join",
    ]


def test_a_missing_glyph_names_the_character(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "name: 治疗术", "name: 治疗术\U00013000")
    assert _found(packs) == [
        f"{spells}:9: error: E080: font 'Noto Sans SC' has no glyph for '\U00013000' (U+13000)"]


def test_the_component_list_must_match_what_prints(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "decks:\n", "components:\n  - {name: 法术牌, count: 5, decks: [spells]}\n"
                            "  - {name: 火球, count: 1, cards: [S1, S9]}\ndecks:\n")
    assert _found(packs) == [
        f"{game}:12: error: E041: component '法术牌': the game lists 5, the pack prints 4",
        f"{game}:13: error: E042: component '火球': no card 'S9'",
    ]


def test_text_past_its_box_names_card_field_and_millimetres(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "      text: 造成 **3** 点伤害。<b>不是标记</b>",
          "      text: " + "造成三点伤害，" * 60)
    [finding] = _found(packs)
    assert finding.startswith(f"{spells}:1: error: E070: card 'S1': 'sections.0 效果' runs ")
    amount = float(finding.split(" runs ")[1].split(" mm")[0])
    assert 20 < amount < 120 and finding.endswith(" mm past its box (bottom edge)")


def test_text_set_straight_in_a_data_box_is_measured_against_that_box(packs: Path) -> None:
    """Not against each of its lines, which carry its element too."""
    pack = packs / "mini"
    give_template(pack, '<div data-box data-field="band" style="position: absolute; left: 0; '
                        'top: 10mm; width: 30mm; height: 5mm">' + "造成三点伤害，" * 4 + "</div>")
    assert _found(packs) == [  # four lines of 9 pt in a box one line high
        f"{pack / 'spells.yaml'}:{line}: error: E070: card '{card}': 'band' runs 13.4 mm past "
        "its box (bottom edge)" for line, card in ((1, "S1"), (8, "S2"), (12, "S3"))]


def test_a_coarse_raster_image_is_reported(packs: Path) -> None:
    pack = packs / "mini"
    Image.new("RGB", (100, 100), "red").save(pack / "photo.png")
    give_template(pack, '{% if card.art %}<img src="{{ card.art }}" style="width: 40mm">'
                        '{% endif %}')
    edit(pack / "spells.yaml", "  cost: 2\n", "  cost: 2\n  art: photo.png\n")
    assert _found(packs) == [f"{pack / 'spells.yaml'}:8: error: E071: card 'S2': image "
                             "'photo.png' prints at 63 dpi, below 300"]


def test_json_strict_and_exit_codes(packs: Path, capsys) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  draft: true\n")
    cards = ["--cards", str(packs), "--out", str(packs.parent / "out")]
    assert cli.main(["validate", "mini", *cards]) == 0  # a warning alone passes
    assert capsys.readouterr().out == (
        f"{spells}:8: warning: W001: card 'S2' (治疗术) is a draft\n"
        "mini: 0 errors, 1 warning\n")
    assert cli.main(["validate", "mini", "--strict", *cards]) == 1
    capsys.readouterr()
    assert cli.main(["validate", "mini", "--json", *cards]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"games": [{"game": "mini", "errors": 0, "warnings": 1, "findings": [
        {"path": str(spells), "line": 8, "message": "card 'S2' (治疗术) is a draft",
         "level": "warning", "code": "W001", "card": ""}], "unchecked": [],
        "shrunk": []}]}


def test_a_field_pushed_out_names_the_field_whose_text_grew(packs: Path) -> None:
    """The motto fits by itself; the effect above it grew and pushed it past the box."""
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "text: 造成 **3** 点伤害。<b>不是标记</b>", "text: " + "造成三点伤害，" * 30)
    motto = "火焰吞没一切，灰烬之中再生新芽，直至世界的尽头"
    edit(spells, "  back: red\n", f"  back: red\n  motto: {motto}\n")
    [finding] = _found(packs)
    assert finding.startswith(f"{spells}:1: error: E070: card 'S1': 'motto' runs ")
    assert finding.endswith(" mm past its box (bottom edge), pushed down by 'sections.0 效果' "
                            f"({finding.split('(')[-1]}")
    assert 50 < float(finding.split("效果' (")[1].split(" mm")[0]) < 80


def test_text_in_no_box_is_a_warning_naming_deck_and_template(packs: Path) -> None:
    """A template with neither .safe nor data-box: its text, however long, would never be
    measured, so the deck and the template are named once."""
    pack = packs / "mini"
    template = pack / "templates" / "cards" / "plain.html.j2"
    template.parent.mkdir(parents=True)
    template.write_text('<div class="face"><p>{{ card.name }} {{ card.cost }}</p>'
                        '{% for s in card.sections %}'
                        '<p>{{ s.text }}</p>{% endfor %}</div>\n', encoding="utf-8")
    edit(pack / "game.yaml", "template: card", "template: plain")
    edit(pack / "spells.yaml", "text: 造成 **3** 点伤害。", "text: " + "造成三点伤害，" * 300)
    assert _found(packs) == [
        f"{pack / 'game.yaml'}:16: warning: W072: deck 'spells' (template "
        "cards/plain.html.j2): text in no .safe or data-box box, so not checked for overflow "
        "(first: '火球术 3') (3 cards: S1, S2, S3)"]


def test_independent_mistakes_are_all_found_in_one_run(packs: Path) -> None:
    """A misspelled key, a missing image, a wrong reference, a number disagreeing with the
    rules and an overflowing text, in three cards: one run finds all five. The card whose
    image is missing is the only one left out of the layout checks, and the report says so."""
    pack = give_rules(packs, RULES)
    spells = pack / "spells.yaml"
    edit(pack / "game.yaml", "      cost: {type: int, required: true}\n",
         "      cost: {type: int, required: true}\n      counter: {type: ref, deck: spells}\n")
    edit(spells, "  cost: 2\n", "  cots: 2\n")
    edit(spells, "  qty: 2\n", "  qty: 2\n  art: art/none.png\n")
    edit(spells, "  cost: 3\n", "  cost: 3\n  counter: S7\n")
    edit(spells, "text: 造成 **3** 点伤害。<b>不是标记</b>",
         "text: 火球消耗 **2** 点。" + "造成三点伤害，" * 60)
    report = validate_game("mini", packs, out_root=packs.parent / "out")
    found = [str(f) for f in report.findings]
    assert found[0].startswith(f"{spells}:1: error: E070: card 'S1': 'sections.0 效果' runs ")
    assert found[1:] == [
        f"{spells}:1: error: E032: card 'S1': counter 'S7' does not exist (known: S1, S2, S3)",
        f"{spells}:8: error: E090: '火球消耗 2' says 2, but rule 'fire.cost' is 3",
        f"{spells}:9: error: E010: card 'S2': missing required field 'cost'",
        f"{spells}:11: error: E010: card 'S2': unknown field 'cots' (accepted: art, back, cost, "
        "counter, draft, id, motto, name, qty, quote, sections)",
        f"{spells}:18: error: E051: card 'S3': art 'art/none.png' does not exist",
    ]
    assert report.unchecked == ["card 'S3' (its own errors stop its layout)"]


def test_a_declared_field_no_template_prints_is_a_warning(packs: Path) -> None:
    pack = packs / "mini"
    game = pack / "game.yaml"
    edit(game, "      cost: {type: int, required: true}\n",
         "      cost: {type: int, required: true}\n      power: {type: int, label: 威力}\n")
    edit(pack / "spells.yaml", "  cost: 3\n", "  cost: 3\n  power: 7\n")
    assert _found(packs) == []  # the generic face prints it
    give_template(pack, "<p>{{ card.name }}</p>")
    assert _found(packs) == [
        f"{game}:22: warning: W026: deck 'spells': field 'power' is declared, but its template "
        "'cards/spell.html.j2' never prints it (`printed: false` if it is only data)"]
    edit(game, "label: 威力}", "label: 威力, printed: false}")
    assert _found(packs) == []


def test_the_generic_face_prints_each_declared_field_with_its_label(packs: Path,
                                                                     tmp_path: Path) -> None:
    from generator.pipeline.build import build_game

    from .conftest import page_texts

    edit(packs / "mini" / "game.yaml", "cost: {type: int, required: true}",
         "cost: {type: int, required: true, label: 消耗}")
    build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    text = page_texts(tmp_path / "out" / "mini" / "cards-a4.pdf")[0]
    assert "火球术法术消耗3效果造成3点伤害" in text
    assert "治疗术法术消耗2" in text


def test_a_pack_silences_the_warnings_it_names_and_never_an_error(packs: Path) -> None:
    """`suppress: [W072, W001]` hides a layout warning and a data warning, and no other; an
    error's code, or one pnp does not have, is an error at its line."""
    pack = packs / "mini"
    template = pack / "templates" / "cards" / "plain.html.j2"
    template.parent.mkdir(parents=True)
    template.write_text('<div class="face"><p>{{ card.name }}</p></div>\n', encoding="utf-8")
    edit(pack / "game.yaml", "template: card", "template: plain")
    edit(pack / "spells.yaml", "  cost: 2\n", "  cost: 2\n  draft: true\n")
    codes = [finding.split(": ")[2] for finding in _found(packs)]
    assert codes == ["W072", "W026", "W001"]
    game = pack / "game.yaml"
    lines = game.read_text(encoding="utf-8").count("\n")
    with game.open("a", encoding="utf-8") as handle:
        handle.write("suppress: [W072, W001]\n")
    assert [finding.split(": ")[2] for finding in _found(packs)] == ["W026"]
    edit(game, "suppress: [W072, W001]", "suppress:\n  - W072\n  - E040\n  - W999")
    found = _found(packs)
    assert [finding.split(": ")[2] for finding in found] == ["W026", "E011", "E011", "W001"]
    assert found[1:3] == [
        f"{game}:{lines + 3}: error: E011: suppress: 'E040' is an error's: only warnings can "
        "be silenced",
        f"{game}:{lines + 4}: error: E011: suppress: 'W999' is no code pnp reports"]
