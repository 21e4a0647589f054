"""The numbering every card template sees: `index` (the card's place in its deck), `count`
(the deck's distinct cards) and `copies` (the cards it prints); a face's revision tag changes
with them only when it prints them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.editions.reprint import release
from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, build_game

from .conftest import edit, give_template, page_texts

NUMBERED = '<div class="number" data-field="number">{{ index }} / {{ count }} ({{ copies }})</div>'


def test_each_card_knows_its_place_in_its_deck(packs: Path, tmp_path: Path,
                                               pool: Workers) -> None:
    give_template(packs / "mini", NUMBERED)
    result = build_game("mini", BuildOptions(only=("sheets",)), out_root=tmp_path,
                        cards_dir=packs, workers=pool)
    assert result.warnings == []
    [fronts, _] = page_texts(tmp_path / "mini" / "cards-a4.pdf")
    # S3 prints twice (qty 2): four copies of three cards
    assert [fronts.count(f"{index}/3(4)") for index in (1, 2, 3)] == [1, 1, 2]
    order = [fronts.index(name) for name in ("火球术", "治疗术", "冰冻术")]
    assert order == sorted(order) and fronts.index("1/3(4)") < fronts.index("2/3(4)")


def _tags(packs: Path) -> dict[str, str]:
    record = json.loads(release("mini", None, packs).read_text(encoding="utf-8"))
    return {key: face["tag"] for key, face in record["faces"].items()}


def _add_a_card(packs: Path) -> None:
    pack = packs / "mini"
    with (pack / "spells.yaml").open("a", encoding="utf-8") as deck:
        deck.write("- id: S4\n  name: 闪电术\n  cost: 4\n  back: red\n")
    edit(pack / "game.yaml", "count: 4", "count: 5")


@pytest.mark.parametrize("numbered", [False, True])
def test_a_new_card_retags_only_the_faces_that_print_the_count(packs: Path,
                                                                numbered: bool) -> None:
    give_template(packs / "mini", NUMBERED if numbered else "")
    before = _tags(packs)
    _add_a_card(packs)
    after = _tags(packs)
    retagged = sorted(key for key in before if before[key] != after[key])
    assert retagged == (["spells/S1", "spells/S2", "spells/S3"] if numbered else [])
    assert "spells/S4" in after
