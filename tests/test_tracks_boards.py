"""Issue 18, tracks and boards: on the laid-out faces, every threshold note points at its own
cell and stays in the safe zone, and every zone of a board holds the piece the rules put there."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from generator.layout.engine import PX_PER_MM, children, layout, measure
from generator.pack.place import list_games
from generator.pipeline.build import Checked, check

SLACK = 0.1  # mm of rounding allowed at an edge

# Decks whose faces hold pieces, the class of the zones, the size (print.yaml or the pack's)
# of the piece each holds, and how many zones a face has at least.
BOARDS = [
    ("gongde-lunhui", "roles", "[data-holds=token]", "token", 3),
    ("gongde-lunhui-v2", "roles", "[data-holds=token]", "token", 3),
    ("path-to-salvation", "roles", "[data-holds=token]", "token", 4),
    ("tianjibian", "player-boards", ".counter-cell", "chip", 60),
]


@dataclass(frozen=True)
class Rect:
    """A box on a face, in mm from the bleed corner."""

    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        """How wide it is."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """How high it is."""
        return self.bottom - self.top

    def inside(self, other: Rect) -> bool:
        """Whether it lies within `other`, give or take SLACK."""
        return (self.left >= other.left - SLACK and self.right <= other.right + SLACK
                and self.top >= other.top - SLACK and self.bottom <= other.bottom + SLACK)

    def overlaps(self, other: Rect) -> bool:
        """Whether the two share more than an edge."""
        return (min(self.right, other.right) - max(self.left, other.left) > SLACK
                and min(self.bottom, other.bottom) - max(self.top, other.top) > SLACK)


def _border(box: Any) -> Rect:
    x, y = box.border_box_x() / PX_PER_MM, box.border_box_y() / PX_PER_MM
    return Rect(x, y, x + box.border_width() / PX_PER_MM, y + box.border_height() / PX_PER_MM)


def _padding(box: Any) -> Rect:
    x, y = box.padding_box_x() / PX_PER_MM, box.padding_box_y() / PX_PER_MM
    return Rect(x, y, x + box.padding_width() / PX_PER_MM, y + box.padding_height() / PX_PER_MM)


def _walk(box: Any) -> Iterator[Any]:
    yield box
    for child in children(box):
        yield from _walk(child)


def _matches(box: Any, selector: str) -> bool:
    """Whether an element's box matches `.class`, `[attribute]` or `[attribute=value]`."""
    element = getattr(box, "element", None)
    if element is None or not getattr(box, "element_tag", None):
        return False
    if selector.startswith("."):
        return selector[1:] in (element.get("class") or "").split()
    name, _, value = selector.strip("[]").partition("=")
    return element.get(name) is not None and (not value or element.get(name) == value)


def _boxes(page: Any, selector: str) -> list[Any]:
    """The first box of each element matching `selector` (an element split over lines once)."""
    seen, found = set(), []
    for box in _walk(page):
        if _matches(box, selector) and id(box.element) not in seen:
            seen.add(id(box.element))
            found.append(box)
    return found


@dataclass(frozen=True)
class Face:
    """One laid-out face: its card, its page box, and its cut line and safe zone (mm)."""

    source: str
    page: Any
    cut: Rect
    safe: Rect


@cache
def _checked(game: str) -> Checked:
    return check(game)


@cache
def _faces(game: str, deck_id: str) -> tuple[list[Face], list[str]]:
    """Every face of a deck laid out as the build lays it out, and what measuring them found."""
    job = _checked(game).job
    [deck] = [deck for deck in job.decks if deck.spec.id == deck_id]
    size, bleed, safe = job.geometry.sizes[deck.spec.size], job.geometry.bleed, job.geometry.safe
    cut = Rect(bleed, bleed, bleed + size.width, bleed + size.height)
    inner = Rect(cut.left + safe, cut.top + safe, cut.right - safe, cut.bottom - safe)
    faces, problems = [], []
    for part in job.faces.parts_of([deck_id]):
        found: list = []
        document = layout(part.html, job.game.root, found)
        assert document is not None, found
        problems += [f"{f.code} {f.message}" for f in found + measure(document, 0)
                     if f.code.startswith("E")]
        for page in document.pages:
            [card] = _boxes(page._page_box, "[data-source]") or [None]
            if card is not None and not card.element.get("data-source").startswith("back:"):
                faces.append(Face(card.element.get("data-source"), page._page_box, cut, inner))
    return faces, problems


@pytest.mark.parametrize("game", list_games())
def test_threshold_notes_point_at_their_own_cell(game: str) -> None:
    decks = [deck.spec.id for deck in _checked(game).job.decks if deck.spec.template == "track"]
    if not decks:
        pytest.skip(f"{game} has no track")
    for deck_id in decks:
        _check_track(game, deck_id)


def _check_track(game: str, deck_id: str) -> None:
    """Each note's pointer in its cell, its edge on the cell's edge, all of it in the safe zone,
    and no two notes of a row on each other."""
    faces, problems = _faces(game, deck_id)
    assert faces and not problems
    for face in faces:
        cells = {box.element.get("data-value"): _border(box)
                 for box in _boxes(face.page, ".track-cell")}
        rows: dict[float, list[Rect]] = {}
        for box in _boxes(face.page, ".track-mark"):
            mark, at = _border(box), box.element.get("data-at")
            cell = cells[at]
            where = f"{face.source}: note at {at} ({mark.left:.2f}–{mark.right:.2f} mm, cell " \
                    f"{cell.left:.2f}–{cell.right:.2f})"
            [pointer] = [_border(b) for b in _boxes(box, ".track-pointer")]
            assert cell.left - SLACK <= pointer.left and pointer.right <= cell.right + SLACK, where
            if "track-mark--end" in box.element.get("class").split():
                assert abs(mark.right - cell.right) <= SLACK, where  # ends at its cell
            else:
                assert abs(mark.left - cell.left) <= SLACK, where  # starts at its cell
            assert mark.inside(face.safe), f"{where} leaves the safe zone {face.safe}"
            row = rows.setdefault(round(mark.top, 1), [])
            assert not any(mark.overlaps(other) for other in row), where
            row.append(mark)


def test_the_calamity_track_has_notes_at_both_ends() -> None:
    """The default game's 劫难 track has right-aligned notes (布施 ≥15, ≥20), checked above."""
    [face] = _faces("gongde-lunhui", "track-calamity")[0]
    ends = [box for box in _boxes(face.page, ".track-mark--end")]
    assert {box.element.get("data-at") for box in ends} >= {"15", "20"}
    last = max(cell.right for cell in map(_border, _boxes(face.page, ".track-cell")))
    assert max(_border(box).right for box in ends) == pytest.approx(last, abs=SLACK)
    assert last == pytest.approx(face.safe.right, abs=SLACK)


@pytest.mark.parametrize(("game", "deck_id", "selector", "piece", "least"), BOARDS)
def test_board_zones_hold_their_pieces(game: str, deck_id: str, selector: str, piece: str,
                                       least: int) -> None:
    faces, problems = _faces(game, deck_id)
    assert faces and not problems  # every word still inside its box: the board fits its size
    size = _checked(game).job.geometry.sizes[piece]
    for face in faces:
        zones = _boxes(face.page, selector)
        assert len(zones) >= least, face.source
        drawn = [_border(zone) for zone in zones]
        for zone, outline in zip(zones, drawn, strict=True):
            room = _padding(zone)  # inside the zone's line
            where = f"{face.source}: {selector} {room.width:.2f} x {room.height:.2f} mm"
            assert room.width >= size.width and room.height >= size.height, \
                f"{where}, smaller than a {piece} ({size.width} x {size.height} mm)"
            assert outline.inside(face.safe), f"{where} leaves the safe zone"
        assert not any(a.overlaps(b) for i, a in enumerate(drawn) for b in drawn[i + 1:]), \
            face.source
