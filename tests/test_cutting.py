"""Pieces of a shape are cut along it: circles, hexes and a pack's outline each have their own
bleed along the outline, clear of every other piece's, packed in offset lines where that fits
more; their faces are clipped to the outline in the written PDF, a hairline on a white halo
marks the cut, guides mark the straight cuts across a block; backs lie behind their fronts,
mirrored; rounded rectangles stay on the grid with crop marks."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pikepdf
import pytest
from markupsafe import Markup
from PIL import Image

from generator.layout.engine import PX_PER_MM, _clip_outline
from generator.layout.workers import Workers
from generator.outputs.sheets import SheetsOutput
from generator.pipeline.build import build_game, check
from generator.pipeline.cache import BuildOptions
from generator.plan.geometry import Box, load_geometry
from generator.plan.impose import Duplex, Item, Piece, Sheet, Slot, _lattices, pack
from generator.plan.render import Face
from generator.plan.shapes import (
    RECT,
    Point,
    Shape,
    builtin_shape,
    contains,
    corner_arcs,
    distance,
    outline,
    svg_path,
    svg_shape,
)

from .conftest import FIXTURES, MM, edit, pixel_mm, render_page

GEOMETRY = load_geometry()
BLEED, GAP = GEOMETRY.bleed, GEOMETRY.mark_gap
CIRCLE, HEX, FLAT = builtin_shape("circle"), builtin_shape("hex"), builtin_shape("hex-flat")
TOKEN, HEX_SIZE = Box(30, 30), Box(30, 34.641)  # a regular pointy hex 30 mm across its flats
FACE, BACK = (31, 122, 58), (0, 0, 255)  # the test pack's disc template and its blue back
DPI = 400


def _items(size: Box, count: int, shape: Shape, name: str = "x") -> list[Item]:
    return [Item(Piece(Face(Markup(""), name, f"{name}{n}")),
                 Piece(Face(Markup(""), name, f"back:{name}{n}")), size, name, shape=shape)
            for n in range(count)]


def _gap(a: list[Point], b: list[Point]) -> float:
    """How far apart two polygons are, up to GAP + 1 mm (the nearest two points are a
    corner of one and an edge of the other); negative when they overlap."""
    nearest = GAP + 1
    for one, other in ((a, b), (b, a)):
        xs, ys = [x for x, _ in other], [y for _, y in other]
        for point in one:
            if min(xs) - nearest <= point[0] <= max(xs) + nearest and \
                    min(ys) - nearest <= point[1] <= max(ys) + nearest:
                apart = distance(other, point)
                if contains(other, point) and apart > 1e-6:
                    return -1
                nearest = min(nearest, apart)
    return nearest


def _share_a_cut(a: Slot, b: Slot) -> bool:
    """Whether two slots sit side by side with no bleed between them (a shared straight cut)."""
    left, right = (a, b) if a.x < b.x else (b, a)
    return (abs(left.x + left.width - right.x) < 1e-6 and left.bleed_right == 0
            and right.bleed_left == 0)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_no_two_pieces_bleeds_overlap_and_each_is_mark_gap_clear(paper: str) -> None:
    """30 circle tokens and 24 pointy hexes, with backs, packed on A4 and on Letter: on every
    page, fronts and backs, no two bleed outlines overlap, and any two are at least
    `marks.gap` apart but for hexes side by side, which share their straight cut and touch
    there alone."""
    items = _items(TOKEN, 30, CIRCLE, "coin") + _items(HEX_SIZE, 24, HEX, "tile")
    sheets = pack(items, paper, GEOMETRY)
    assert sum(len(sheet.slots) for sheet in sheets if sheet.side == "front") == 54
    shared = 0
    for sheet in sheets:
        outlines = [(slot, slot.bleed_outline(BLEED)) for slot in sheet.slots]
        for index, (slot, points) in enumerate(outlines):
            assert all(0 <= x <= sheet.paper.width and 0 <= y <= sheet.paper.height
                       for x, y in points)
            for other, theirs in outlines[index + 1:]:
                if any(slot.outer[i] > other.outer[i + 2] + GAP or
                       other.outer[i] > slot.outer[i + 2] + GAP for i in (0, 1)):
                    continue  # their bleed boxes lie further apart than the gap
                apart = _gap(points, theirs)
                if _share_a_cut(slot, other):
                    shared += 1
                    assert apart >= -1e-6, (slot.trim, other.trim)
                else:
                    assert apart >= GAP - 1e-3, (slot.trim, other.trim, apart)
    assert shared >= 20  # the hexes of a row share their sides, fronts and backs


def test_offset_lines_fit_more_than_a_grid_where_they_should() -> None:
    """30 mm circles on A4: 35 a sheet in straight rows (each bleed 1 mm clear), 42 in
    columns offset half a piece and nested; Letter 35 and 40 (offset rows). 30 mm squares
    still share their cut lines, 54 on A4. Pointy hexes nest in offset rows, flat ones in
    offset columns, sharing their straight sides."""
    counts = {paper: [math.prod(lattice.fit(GEOMETRY.room(paper)))
                      for lattice in _lattices(CIRCLE, TOKEN, GEOMETRY)]
              for paper in ("a4", "letter")}
    assert counts == {"a4": [35, 35, 40, 42], "letter": [35, 35, 40, 36]}
    fronts = {paper: [len(sheet.slots) for sheet in pack(_items(TOKEN, 100, CIRCLE), paper,
                                                          GEOMETRY) if sheet.side == "front"]
              for paper in ("a4", "letter")}
    assert fronts == {"a4": [42, 42, 16], "letter": [40, 40, 20]}
    assert [len(sheet.slots) for sheet in pack(_items(TOKEN, 54, RECT), "a4", GEOMETRY)] == \
        [54, 54]
    pointy = pack(_items(HEX_SIZE, 48, HEX), "a4", GEOMETRY)[0]
    rows = sorted({slot.y for slot in pointy.slots})
    assert len(pointy.slots) == 48 and len(rows) == 8
    assert rows[1] - rows[0] == pytest.approx(0.75 * HEX_SIZE.height + 2 / math.sqrt(3)
                                              * (2 * BLEED + GAP), abs=1e-3)
    flat = pack(_items(Box(34.641, 30), 45, FLAT), "a4", GEOMETRY)[0]
    columns: dict[float, list[float]] = {}
    for slot in flat.slots:
        columns.setdefault(slot.x, []).append(slot.y)
    assert [len(column) for column in columns.values()] == [9] * 5
    assert {round(b - a, 4) for column in columns.values()
            for a, b in zip(column, column[1:], strict=False)} == {30}  # sharing flat sides


def test_hexes_side_by_side_share_their_straight_cut_and_strips_get_guides() -> None:
    """Twelve pointy hexes fit in two straight rows of six (straight lines are preferred
    where they hold the block): neighbours share their vertical sides, no bleed between
    them; guides in the margin continue each shared side across both rows, and the line
    between the rows at both ends; no crop mark runs along a slanted edge."""
    sheet = pack(_items(HEX_SIZE, 12, HEX), "a4", GEOMETRY)[0]
    rows: dict[float, list[Slot]] = {}
    for slot in sheet.slots:
        rows.setdefault(slot.y, []).append(slot)
    assert [len(row) for row in rows.values()] == [6, 6]
    top, bottom = rows.values()
    for left, right in zip(top, top[1:], strict=False):
        assert right.x - left.x == pytest.approx(HEX_SIZE.width)
        assert (left.bleed_right, right.bleed_left, left.seams[2]) == (0, 0, GEOMETRY.seam)
    assert top[0].bleed_left == BLEED and top[0].bleed_top == pytest.approx(
        2 / math.sqrt(3) * BLEED, abs=1e-3)  # a point reaches further than the bleed
    marks = sheet.marks(GEOMETRY)
    vertical = sorted({x1 for x1, _, x2, _ in marks if x1 == x2})
    assert vertical == pytest.approx([slot.x for slot in top[1:]])
    between = (top[0].outer[3] + bottom[0].outer[1]) / 2
    horizontal = [mark for mark in marks if mark[1] == mark[3]]
    assert [mark[1] for mark in horizontal] == pytest.approx([between, between])
    assert horizontal[0][2] < top[0].outer[0] - GAP + 1e-6  # in the margin, clear of bleed
    assert len(marks) == 2 * 5 + 2


def test_circles_get_their_outline_and_strip_guides_but_no_crop_marks() -> None:
    """Four 30 mm circles in a row: each outline drawn on its cut line (a true circle),
    guides only on the straight lines between them, none on any circle's tangents."""
    sheet = pack(_items(TOKEN, 4, CIRCLE), "a4", GEOMETRY)[0]
    slots = sorted(sheet.slots, key=lambda slot: slot.x)
    assert len({slot.y for slot in slots}) == 1
    cuts = sheet.cuts(GEOMETRY)
    assert [path for path, _ in cuts] == [svg_path(CIRCLE, 30, 30, 0, (slot.x, slot.y))
                                          for slot in sheet.slots]
    marks = sheet.marks(GEOMETRY)
    lines = sorted({x1 for x1, _, _, _ in marks})
    assert lines == pytest.approx([(a.x + a.width + b.x) / 2 for a, b in
                                   zip(slots, slots[1:], strict=False)])
    for x1, y1, x2, y2 in marks:
        assert x1 == x2 and (max(y1, y2) <= slots[0].outer[1] - GAP + 1e-6
                             or min(y1, y2) >= slots[0].outer[3] + GAP - 1e-6)


def test_a_halo_lies_outside_the_cut_and_never_over_a_neighbour() -> None:
    """Each cut outline's white halo is a band from the cut line outwards, `HALO` stroke
    widths wide; between two hexes sharing a side it has no width."""
    sheet = pack(_items(HEX_SIZE, 2, HEX), "a4", GEOMETRY)[0]
    left, right = sorted(sheet.slots, key=lambda slot: slot.x)
    (_, (outer, inner)), _ = sheet.cuts(GEOMETRY)
    width = 1.5 * GEOMETRY.mark_width
    assert inner == left.bleed_outline(0)
    assert max(math.dist(point, (left.x + x, left.y + y)) for point, (x, y) in
               zip(inner, outline(HEX, left.width, left.height), strict=True)) < 1e-9
    assert max(x for x, _ in outer) == pytest.approx(right.x)  # cut off at the shared side
    assert min(x for x, _ in outer) == pytest.approx(left.x - width)
    assert min(y for _, y in outer) == pytest.approx(left.y - 2 / math.sqrt(3) * width)


ARROW = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">' \
        b'<path d="M0 0 L10 0 L10 4 L4 10 L0 10 Z"/></svg>'  # a square, one corner cut off


@pytest.mark.parametrize(("flip", "offset"), [("long", (0, 0)), ("short", (1.5, -2.0))])
def test_backs_lie_behind_their_fronts_their_outline_mirrored(
        flip: str, offset: tuple[float, float]) -> None:
    """Circles in offset lines and a pack's lopsided outline, with backs: each back's centre
    is its front's mirrored across the page (moved by the printer's offset) within 0.1 mm,
    and a back is cut to its front's outline mirrored, so both sides are cut at once."""
    arrow = svg_shape(ARROW, "art/arrow.svg")
    items = _items(TOKEN, 30, CIRCLE, "coin") + _items(Box(40, 40), 6, arrow, "arrow")
    sheets = pack(items, "a4", GEOMETRY, Duplex(flip=flip, offset=offset))
    paper = GEOMETRY.papers["a4"]
    checked = 0
    for front, back in zip(sheets[::2], sheets[1::2], strict=True):
        backs = {slot.piece.face.source: slot for slot in back.slots}
        for slot in front.slots:
            behind = backs["back:" + slot.piece.face.source]
            x, y = slot.x + slot.width / 2, slot.y + slot.height / 2
            mirror = (paper.width - x, y) if flip == "long" else (x, paper.height - y)
            assert (behind.x + behind.width / 2 - offset[0],
                    behind.y + behind.height / 2 - offset[1]) == pytest.approx(mirror, abs=0.1)
            seen = [((paper.width - px, py) if flip == "long" else (px, paper.height - py))
                    for px, py in slot.bleed_outline(0)]
            moved = [(px - offset[0], py - offset[1]) for px, py in behind.bleed_outline(0)]
            assert max(distance(moved, point) for point in seen) < 0.1
            checked += 1
    assert checked == 36


def test_rounded_rectangles_stay_on_the_grid_with_their_corner_arcs() -> None:
    """Poker cards with 3 mm corners sit where square ones do, sharing cut lines, with the
    same crop marks; each gets its four corner arcs drawn, for a corner punch."""
    rounded = builtin_shape(None, "3mm")
    poker = GEOMETRY.sizes["poker"]
    square, round_ = (pack(_items(poker, 9, shape), "a4", GEOMETRY)[0] for shape in
                      (RECT, rounded))
    assert [slot.trim for slot in round_.slots] == [slot.trim for slot in square.slots]
    assert round_.marks(GEOMETRY) == square.marks(GEOMETRY)
    assert square.cuts(GEOMETRY) == []
    arcs = [path for path, _ in round_.cuts(GEOMETRY)]
    assert arcs == [corner_arcs(rounded, poker.width, poker.height, (slot.x, slot.y))
                    for slot in round_.slots]
    assert all(slot.clip_path(BLEED) == "" for slot in round_.slots)  # cut straight


def test_a_clip_outline_that_is_not_a_polygon_of_numbers_is_ignored() -> None:
    """`data-clip-path` is read as x y pairs in mm: anything else leaves the rectangle."""
    assert _clip_outline("0 0 1 0 1 1", 10, 20) == pytest.approx(
        [10, 20, 10 + PX_PER_MM, 20, 10 + PX_PER_MM, 20 + PX_PER_MM])
    for bad in (None, "", "0 0 1 1", "0 0 1 0 1", "0 0 a 0 1 1", "0 0 nan 0 1 1"):
        assert _clip_outline(bad, 0, 0) == []


DISC = '<div class="face"><div class="bleed-area" style="background: #1f7a3a"></div></div>\n'


@pytest.fixture(scope="module")
def circle_sheets(tmp_path_factory: pytest.TempPathFactory, pool: Workers
                  ) -> tuple[Path, list[Sheet]]:
    """The test pack as 30 round 30 mm tokens of one green, blue backs, built on A4; and
    its sheets as planned."""
    cards = tmp_path_factory.mktemp("circles") / "cards"
    shutil.copytree(FIXTURES, cards)
    pack_dir = cards / "mini"
    edit(pack_dir / "game.yaml", "size: poker", "size: token\n    shape: circle")
    edit(pack_dir / "game.yaml", "template: card", "template: disc")
    edit(pack_dir / "game.yaml", "count: 4", "count: 30")
    edit(pack_dir / "spells.yaml", "qty: 2", "qty: 28")
    edit(pack_dir / "game.yaml", "back: red", "back: blue")
    for name in ("red", "green"):
        edit(pack_dir / "spells.yaml", f"back: {name}", "back: blue")
    (pack_dir / "templates" / "cards").mkdir(parents=True)
    (pack_dir / "templates" / "cards" / "disc.html.j2").write_text(DISC, encoding="utf-8")
    options = BuildOptions(only=("sheets",))
    build_game("mini", options, out_root=cards.parent / "build", cards_dir=cards,
               workers=pool)
    kind = SheetsOutput(check("mini", cards, options).job)
    kind.plan()
    return cards.parent / "build" / "mini" / "cards-a4.pdf", kind.sheets["cards-a4.pdf"]


def _clips(pdf: Path, index: int) -> list[list[Point]]:
    """The polygons faces are clipped to on a page of the PDF, in mm from the top left."""
    height = GEOMETRY.papers["a4"].height
    found: list[list[Point]] = []
    path: list[Point] = []
    with pikepdf.open(pdf) as document:
        for instruction in pikepdf.parse_content_stream(document.pages[index]):
            if not isinstance(instruction, pikepdf.ContentStreamInstruction):
                continue
            name, operands = str(instruction.operator), instruction.operands
            if name in ("m", "l"):
                point = (float(operands[0]) / MM, height - float(operands[1]) / MM)
                path = [point] if name == "m" else [*path, point]
            elif name == "W" and len(path) > 4:
                found.append(path)
            elif name != "h":  # anything else ends a polygon: a curve, a stroke
                path = []
    return found


def test_every_face_is_clipped_to_its_circle_grown_by_the_bleed(
        circle_sheets: tuple[Path, list[Sheet]]) -> None:
    """In the written PDF each face is drawn inside a clipping path that lies within 0.1 mm
    of its circle grown by the 3 mm bleed: one path a token, fronts and backs."""
    pdf, sheets = circle_sheets
    assert [(sheet.side, len(sheet.slots)) for sheet in sheets] == [("front", 30), ("back", 30)]
    for index, sheet in enumerate(sheets):
        clips = _clips(pdf, index)
        assert len(clips) == len(sheet.slots)
        for slot in sheet.slots:
            centre = (slot.x + 15, slot.y + 15)
            clip = min(clips, key=lambda points: math.dist(points[0], centre) +
                       math.dist(points[len(points) // 2], centre))
            planned = [(slot.x + x, slot.y + y) for x, y in outline(CIRCLE, 30, 30, BLEED)]
            assert max(distance(planned, point) for point in clip) < 0.1
            assert all(abs(math.dist(point, centre) - 15 - BLEED) < 0.1 for point in clip)


@pytest.fixture(scope="module")
def pages(circle_sheets: tuple[Path, list[Sheet]]) -> list[Image.Image]:
    """The fronts and backs pages drawn at 400 dpi."""
    pdf, _ = circle_sheets
    return [render_page(pdf, index, DPI) for index in (0, 1)]


def _near(colour: tuple[int, ...], wanted: tuple[int, ...], within: int = 40) -> bool:
    return max(abs(a - b) for a, b in zip(colour, wanted, strict=True)) <= within


def test_the_paper_outside_a_bleed_is_white_and_the_cut_is_drawn_on_the_cut_line(
        circle_sheets: tuple[Path, list[Sheet]], pages: list[Image.Image]) -> None:
    """Drawn: at a corner of a token's square slot, outside every bleed, the paper is
    white; just inside the cut line the face's colour (green fronts, blue backs), 1.5 mm
    outside it the bleed's; on the cut line a black hairline, and 0.2 mm outside it its
    white halo."""
    _, sheets = circle_sheets
    for sheet, image, colour in zip(sheets, pages, (FACE, BACK), strict=True):
        bleeds = [slot.bleed_outline(BLEED + 0.3) for slot in sheet.slots]
        for slot in sheet.slots:
            left, top, right, bottom = slot.outer
            corners = [(x, y) for x in (left + 0.3, right - 0.3) for y in (top + 0.3, bottom - 0.3)
                       if not any(contains(points, (x, y)) for points in bleeds)]
            assert corners, slot.trim
            for x, y in corners:
                assert pixel_mm(image, x, y, DPI) == (255, 255, 255)
            for angle in range(0, 360, 45):
                inside, outside, cut, halo = (_on_ray(image, slot, angle, radius)
                                              for radius in (14.5, 16.5, 15, 15.2))
                assert _near(inside, colour) and _near(outside, colour), (slot.trim, angle)
                assert max(cut) < 100, (slot.trim, angle, cut)
                assert min(halo) > 200, (slot.trim, angle, halo)


def _on_ray(image: Image.Image, slot: Slot, angle: int, radius: float) -> tuple[int, ...]:
    """The colour `radius` mm from a token's centre at `angle` degrees."""
    a = math.radians(angle)
    return pixel_mm(image, slot.x + 15 + radius * math.cos(a), slot.y + 15 + radius * math.sin(a),
                    DPI)
