"""The imposer's own rules: a seam is painted but is no bleed, a face lands on its cut line
whatever its seams, a piece too wide for half the paper folds across it, and a piece with
backs that fits the paper only turned is packed turned."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from generator.plan.geometry import Box, load_geometry
from generator.plan.impose import Duplex, Item, Piece, pack
from generator.plan.render import Face

GEOMETRY = load_geometry()
A4 = GEOMETRY.papers["a4"]


def _items(size: Box, count: int) -> list[Item]:
    return [Item(Piece(Face(Markup(""), "x", f"F{n}")), Piece(Face(Markup(""), "x", f"B{n}")),
                 size, "x") for n in range(count)]


@pytest.mark.parametrize("flip", ["long", "short"])
def test_a_seam_is_painted_under_the_neighbour_but_is_no_bleed(flip: str) -> None:
    """Two poker cards side by side over two more: each reaches 0.2 mm under its right and
    lower neighbours (on the back, mirrored), yet its bleed box ends at the shared cut; every
    face, front or back, has its cut line on the slot's."""
    sheets = pack(_items(GEOMETRY.sizes["poker"], 4), "a4", GEOMETRY, Duplex(flip=flip))
    front, back = sheets
    first = front.slots[0]
    assert (first.bleed_right, first.bleed_bottom, first.seams) == (0, 0, (0, 0, 0.2, 0.2))
    assert first.outer[2:] == (first.x + first.width, first.y + first.height)
    assert first.drawn[2:] == pytest.approx((first.x + first.width + 0.2,
                                             first.y + first.height + 0.2))
    its_back = next(slot for slot in back.slots if slot.piece.face.source == "B0")
    assert its_back.seams == ((0.2, 0, 0, 0.2) if flip == "long" else (0, 0.2, 0.2, 0))
    whole, bleed = GEOMETRY.sizes["poker"], GEOMETRY.bleed
    for slot in front.slots + back.slots:
        left, top, width, height = slot.face_box(whole, bleed)
        assert (slot.drawn[0] + left, slot.drawn[1] + top) == pytest.approx(
            (slot.x - bleed, slot.y - bleed))
        assert (width, height) == pytest.approx((whole.width + 2 * bleed,
                                                 whole.height + 2 * bleed))


def test_a_piece_too_wide_for_half_the_paper_folds_across() -> None:
    """An A6 aid (148 mm) is wider than half of A4 less the fold gutter: with --fold each
    prints above its back, turned half round below a fold across the page, clear of it."""
    sheets = pack(_items(GEOMETRY.sizes["a6-landscape"], 2), "a4", GEOMETRY,
                  Duplex(fold=True))
    assert [(sheet.side, sheet.across, len(sheet.slots)) for sheet in sheets] == [
        ("fold", True, 2), ("fold", True, 2)]
    for sheet in sheets:
        front, back = sheet.slots
        assert (back.x, back.y, back.turn) == pytest.approx(
            (front.x, A4.height - front.y - front.height, 180))
        fold = sheet.fold_line(GEOMETRY)
        assert fold == (GEOMETRY.printable, A4.height / 2, A4.width - GEOMETRY.printable,
                        A4.height / 2)
        assert front.outer[3] < A4.height / 2 - 0.5 < A4.height / 2 + 0.5 < back.outer[1]


def test_a_piece_with_backs_that_fits_only_turned_is_packed_turned() -> None:
    """A 250 x 48 mm card fits A4 only turned a quarter: four across a sheet, backs
    behind."""
    sheets = pack(_items(Box(250, 48), 6), "a4", GEOMETRY)
    assert [(sheet.side, len(sheet.slots)) for sheet in sheets] == [
        ("front", 4), ("back", 4), ("front", 2), ("back", 2)]
    assert {slot.turn for slot in sheets[0].slots} == {90}
    assert {slot.turn for slot in sheets[1].slots} == {270}
