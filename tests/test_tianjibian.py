"""《天机变》: 64 hexagrams drawn from their binary form, and a tiled board that assembles whole."""

from __future__ import annotations

import re

import pytest

from generator.pipeline.build import check
from generator.plan.render import Renderer

GAME = "tianjibian"
_LINE = re.compile(r'class="yao (yang|yin)"')


@pytest.fixture(scope="module")
def pack():
    checked = check(GAME)
    return checked.game, checked.job.geometry, checked.job.fonts


def test_64_distinct_hexagrams_in_king_wen_order(pack) -> None:
    game, *_ = pack
    [deck] = [d for d in game.decks if d.spec.id == "hexagrams"]
    assert deck.copies == 64
    assert [card.number for card in deck.cards] == list(range(1, 65))
    assert len({card.bits for card in deck.cards}) == 64
    assert all(re.fullmatch("[01]{6}", card.bits) for card in deck.cards)


def test_the_lines_drawn_are_the_binary_form(pack) -> None:
    """Each card draws its six lines top first: solid for 1, broken for 0 (bits bottom first)."""
    game, geometry, fonts = pack
    [deck] = [d for d in game.decks if d.spec.id == "hexagrams"]
    renderer = Renderer(game, geometry, fonts)
    for card, line in deck.located():
        html = str(renderer.face(deck, card, line).html)
        drawn = "".join("1" if kind == "yang" else "0" for kind in _LINE.findall(html)[:6])
        assert drawn == card.bits[::-1], card.name


def test_stroke_counts_are_unihan_ktotalstrokes(pack) -> None:
    """Spot checks against Unihan kTotalStrokes, summed over the name's characters."""
    game, *_ = pack
    strokes = {card.name: card.strokes for deck in game.decks if deck.spec.id == "hexagrams"
               for card in deck.cards}
    assert {name: strokes[name] for name in ("乾", "坤", "屯", "小畜", "噬嗑", "既济")} == {
        "乾": 11, "坤": 8, "屯": 4, "小畜": 3 + 10, "噬嗑": 16 + 13, "既济": 9 + 9}


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_board_tiles_cover_it_whole_with_overlaps(pack, paper: str) -> None:
    game, geometry, _ = pack
    [deck] = [d for d in game.decks if d.spec.id == "board"]
    assert deck.spec.overview
    tiling = geometry.tiling(paper, deck.spec.size)
    whole = geometry.sizes[deck.spec.size]
    assert tiling.count > 1 and tiling.overlap > 0
    for axis, length, size in (("x", whole.width, tiling.piece.width),
                               ("y", whole.height, tiling.piece.height)):
        count = tiling.cols if axis == "x" else tiling.rows
        starts = [tiling.origin(i, 0)[0] if axis == "x" else tiling.origin(0, i)[1]
                  for i in range(count)]
        assert starts[0] == 0 and starts[-1] + size == pytest.approx(length)
        for left, right in zip(starts, starts[1:], strict=False):
            assert left + size - right == pytest.approx(tiling.overlap)
    room = geometry.papers[paper]
    assert tiling.piece.width <= room.width - 2 * geometry.min_margin
    assert tiling.piece.height <= room.height - 2 * geometry.min_margin
