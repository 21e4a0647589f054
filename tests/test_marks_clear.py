"""Crop marks touch only paper: on every sheet the real packs plan (A4 and Letter, gutter-fold,
short-edge duplex with a back offset), no mark nor its white halo lies on a piece's cut-line or
bleed box, but for a guide in the piece's own outer bleed, and every cut line's ends are
marked; drawn with faces of one colour each, a full A4 poker sheet and 天机变's chip sheet
show no mark pixel inside any card."""

from __future__ import annotations

import io
from dataclasses import replace

import pypdfium2
import pytest
import weasyprint
from markupsafe import Markup

from generator.outputs.sheets import SheetsOutput
from generator.pack.place import list_games
from generator.pipeline.build import check
from generator.pipeline.cache import BuildOptions
from generator.plan import shapes
from generator.plan.geometry import Box, Geometry, load_geometry
from generator.plan.impose import Item, Piece, Sheet, Slot, pack_grid
from generator.plan.render import Face

GEOMETRY = load_geometry()
EPS = 1e-6
OPTIONS = {
    "plain": {},
    "fold": {"switches": frozenset({"fold"})},
    "short-offset": {"duplex": "short", "back_offset": (2.0, -1.5)},
}
Rect = tuple[float, float, float, float]


def _planned(game: str, paper: str) -> dict[str, SheetsOutput]:
    """The sheets output of a real pack planned (nothing laid out) with each of OPTIONS."""
    checked = check(game, options=BuildOptions(paper=paper, only=("sheets",)))
    kinds = {}
    for name, options in OPTIONS.items():
        job = replace(checked.job, options=BuildOptions(paper=paper, only=("sheets",), **options))
        kinds[name] = SheetsOutput(job)
        kinds[name].plan()
    return kinds


def _stroke(mark: Rect, half: float) -> tuple[Rect, bool]:
    """A mark as the box its halo covers (left, top, right, bottom), and whether it is
    vertical; its ends are cut square."""
    x1, y1, x2, y2 = mark
    if abs(x1 - x2) < EPS:
        return (x1 - half, min(y1, y2), x1 + half, max(y1, y2)), True
    return (min(x1, x2), y1 - half, max(x1, x2), y1 + half), False


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] - EPS and b[0] < a[2] - EPS and a[1] < b[3] - EPS and b[1] < a[3] - EPS


def _own_line(slot: Slot, mark: Rect, vertical: bool) -> bool:
    """Whether a mark runs on one of the slot's own cut lines."""
    at, low, high = (mark[0], slot.x, slot.x + slot.width) if vertical else \
        (mark[1], slot.y, slot.y + slot.height)
    return min(abs(at - low), abs(at - high)) < EPS


def trespasses(sheet: Sheet, geometry: Geometry, marks: list[Rect] | None = None) -> list[str]:
    """Each mark (the sheet's own unless given) whose halo lies on a slot's cut-line box, or
    on its bleed unless the mark is a guide on that slot's own cut line, or that comes nearer
    the paper's edge than it prints; and a fold line that crosses a bleed."""
    found = []
    half = 1.5 * geometry.mark_width  # the halo is three widths wide
    edge, paper = geometry.guide_printable, sheet.paper  # a guide may come this near
    for mark in sheet.marks(geometry) if marks is None else marks:
        box, vertical = _stroke(mark, half)
        for slot in sheet.slots:
            if _overlap(box, slot.trim) or (
                    _overlap(box, slot.outer) and not _own_line(slot, mark, vertical)):
                found.append(f"{mark} on {slot.piece.face.deck_id} at "
                             f"{tuple(round(v, 2) for v in slot.trim)}")
        if not (all(edge - EPS <= x <= paper.width - edge + EPS for x in mark[::2])
                and all(edge - EPS <= y <= paper.height - edge + EPS for y in mark[1::2])):
            found.append(f"{mark} nearer the edge than {edge} mm")
    line = sheet.fold_line(geometry)
    if line is not None:
        box, _ = _stroke(line, geometry.mark_width / 2)
        found += [f"fold on {slot.piece.face.deck_id}" for slot in sheet.slots
                  if _overlap(box, slot.outer)]
    return found


def unmarked(sheet: Sheet, geometry: Geometry) -> list[str]:
    """The ends of cut lines (a run of pieces' edges on one line, one the printer prints)
    with no mark on their line within 12 mm beyond them; pieces cut along their outline
    (round, hex) have no cut lines of their own (test_cutting.py checks their guides)."""
    marks = sheet.marks(geometry)
    missing = []
    for vertical in (True, False):
        end = (sheet.paper.width if vertical else sheet.paper.height) - geometry.printable
        edges = sorted(
            (round(at, 4), low, high) for slot in sheet.slots if slot.marks
            and slot.shape.on_grid  # a round or hex piece is cut along its outline instead
            for at, low, high in (
                ((slot.x, slot.y, slot.y + slot.height),
                 (slot.x + slot.width, slot.y, slot.y + slot.height)) if vertical else
                ((slot.y, slot.x, slot.x + slot.width),
                 (slot.y + slot.height, slot.x, slot.x + slot.width)))
            if geometry.printable <= at <= end)
        runs: list[list[float]] = []
        for at, low, high in edges:
            if runs and runs[-1][0] == at and low <= runs[-1][2] + EPS:
                runs[-1][2] = max(runs[-1][2], high)
            else:
                runs.append([at, low, high])
        for at, low, high in runs:
            on_line = [(min(m[1], m[3]), max(m[1], m[3])) if vertical else
                       (min(m[0], m[2]), max(m[0], m[2])) for m in marks
                       if abs((m[0] if vertical else m[1]) - at) < EPS
                       and abs((m[2] if vertical else m[3]) - at) < EPS]
            room = (sheet.paper.height if vertical else sheet.paper.width) - geometry.printable
            if low > geometry.printable + 1 and not any(  # else the printer leaves no room
                    low - 12 < stop <= low + EPS for _, stop in on_line):
                missing.append(f"{'x' if vertical else 'y'} = {at}: before {low}")
            if high < room - 1 and not any(high - EPS <= start < high + 12
                                           for start, _ in on_line):
                missing.append(f"{'x' if vertical else 'y'} = {at}: after {high}")
    return missing


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game", list_games())
def test_no_mark_lies_on_a_piece_and_every_cut_line_is_marked(game: str, paper: str) -> None:
    for options, kind in _planned(game, paper).items():
        geometry = kind.job.geometry
        sheets = 0
        for file, planned in kind.sheets.items():
            for index, sheet in enumerate(planned):
                if sheet.side == "overview":
                    continue
                sheets += 1
                assert trespasses(sheet, geometry) == [], (options, file, index + 1)
                assert unmarked(sheet, geometry) == [], (options, file, index + 1)
        assert sheets, options


def _full_sheet(size: Box, paper: str = "a4") -> Sheet:
    grid = GEOMETRY.grid(paper, size)
    items = [Item(Piece(Face(Markup(""), "x")), Piece(Face(Markup(""), "x")), size, "x")
             for _ in range(grid.per_sheet)]
    return pack_grid(items, GEOMETRY.papers[paper], grid, GEOMETRY, True)[0]


def test_full_sheets_mark_each_cut_line_twice_and_never_a_neighbour() -> None:
    """Issue 28: the 0.2 mm seam was counted as bleed, so a neighbour's box ended past the
    card's edge and did not stop its marks: on a full A4 poker sheet a mark ran along the top
    cut line over the next card, another down the left one over the card above. The check
    sees those; the marks now drawn are two a cut line, none on a card."""
    poker = _full_sheet(GEOMETRY.sizes["poker"])
    old = [(72.25, 15.15, 67.25, 15.15), (9.75, 103.05, 9.75, 98.05)]
    assert trespasses(poker, GEOMETRY, old) == [  # both on the top left card's edge
        "(72.25, 15.15, 67.25, 15.15) on x at (9.75, 15.15, 73.25, 104.05)",
        "(9.75, 103.05, 9.75, 98.05) on x at (9.75, 15.15, 73.25, 104.05)"]
    for size, marks in ((GEOMETRY.sizes["poker"], 16), (GEOMETRY.sizes["mini"], 20),
                        (GEOMETRY.sizes["token"], 34), (Box(10, 10), 98)):
        sheet = _full_sheet(size)
        assert trespasses(sheet, GEOMETRY) == [] and unmarked(sheet, GEOMETRY) == []
        assert len(sheet.marks(GEOMETRY)) == marks  # two for each cut line


COLOURS = [(200, 50, 50), (50, 120, 200), (50, 160, 80), (150, 90, 200)]
DPI = 300


def _solid(sheet: Sheet) -> Sheet:
    """The sheet with each face one flat colour, a neighbour's another."""
    slots = []
    for index, slot in enumerate(sheet.slots):
        red, green, blue = COLOURS[index % len(COLOURS)]
        html = Markup('<div style="position: absolute; left: 0; top: 0; width: 100%; '
                      f'height: 100%; background: rgb({red}, {green}, {blue})"></div>')
        face = Face(html, slot.piece.face.deck_id, f"solid-{index}")
        slots.append(replace(slot, piece=Piece(face)))
    return Sheet(sheet.paper, sheet.side, slots)


@pytest.mark.parametrize(("game", "file", "deck"), [("gongde-lunhui", "cards-a4.pdf", ""),
                                                    ("tianjibian", "tokens-a4.pdf", "chips")])
def test_no_mark_pixel_lies_inside_a_card(game: str, file: str, deck: str) -> None:
    """The sheet drawn through the real template and WeasyPrint, each face a flat colour:
    every pixel inside each card's cut line is its colour, and each mark is drawn."""
    kind = _planned(game, "a4")["plain"]
    sheet = next(sheet for sheet in kind.sheets[file] if sheet.side == "front" and (
        not deck or any(slot.piece.face.deck_id == deck for slot in sheet.slots)))
    if not deck:
        assert len(sheet.slots) == 9  # a full poker sheet
    solid = _solid(sheet)
    html = kind._html([solid], "marks", with_faces=False)
    pdf = pypdfium2.PdfDocument(io.BytesIO(weasyprint.HTML(string=html).write_pdf()))
    try:
        page = pdf[0].render(scale=DPI / 72).to_pil().convert("RGB")
    finally:
        pdf.close()

    def px(mm: float) -> int:
        return round(mm / 25.4 * DPI)

    for index, slot in enumerate(solid.slots):
        left, top, right, bottom = slot.trim
        colour = COLOURS[index % len(COLOURS)]
        if not slot.shape.on_grid:  # a round piece: every point 0.3 mm inside its cut outline
            zone = shapes.outline(slot.shape, slot.width, slot.height, -0.3)
            points = [(left + x / 4, top + y / 4) for x in range(round(slot.width * 4))
                      for y in range(round(slot.height * 4))
                      if shapes.contains(zone, (x / 4, y / 4))]
            assert points and all(
                max(abs(a - b) for a, b in zip(page.getpixel((px(x), px(y))), colour,
                                               strict=True)) <= 2 for x, y in points), slot.trim
            continue
        inside = page.crop((px(left) + 1, px(top) + 1, px(right) - 1, px(bottom) - 1))
        extrema = inside.getextrema()
        assert all(abs(low - want) <= 2 and abs(high - want) <= 2 for (low, high), want
                   in zip(extrema, colour, strict=True)), (slot.piece.face.deck_id, slot.trim)
    marks = sheet.marks(kind.job.geometry)
    assert len(marks) >= 16
    for x1, y1, x2, y2 in marks:
        assert max(page.getpixel((px((x1 + x2) / 2), px((y1 + y2) / 2)))) < 100, (x1, y1)
