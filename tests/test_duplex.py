"""Duplex by construction: in a file printed on both sides, every page is followed by its own
back (blank for a single-sided piece), so that no back lands behind another deck's fronts."""

from __future__ import annotations

import pytest

from generator.outputs.sheets import SheetsOutput
from generator.pack.place import list_games
from generator.pipeline.build import check


@pytest.mark.parametrize("game", list_games())
def test_every_page_of_a_duplex_file_is_followed_by_its_own_back(game: str) -> None:
    checked = check(game)
    [sheets] = [kind for kind in checked.kinds if isinstance(kind, SheetsOutput)]
    documents = sheets.plan()
    assert documents
    for document in documents:
        sides = sheets.sides[document.file]
        if document.duplex:
            assert sides[1::2] == ["back"] * (len(sides) // 2), (document.file, sides)
            assert "back" not in sides[0::2] and len(sides) % 2 == 0, (document.file, sides)
        else:
            assert "back" not in sides, (document.file, sides)


def test_a_single_sided_deck_in_a_duplex_file_gets_blank_backs() -> None:
    checked = check("gongde-lunhui-v2")
    [sheets] = [kind for kind in checked.kinds if isinstance(kind, SheetsOutput)]
    [aids] = [d for d in sheets.plan() if d.file == "aids-a4.pdf"]
    sides = sheets.sides["aids-a4.pdf"]
    assert aids.duplex and sides[:2] == ["front", "back"]  # the dice table, then a blank
