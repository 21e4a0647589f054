"""Stage 3b, impose: place rendered faces on printable sheets, backs mirrored for duplex."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

from markupsafe import Markup, escape

from .geometry import Box, Geometry, Grid, Tiling
from .render import Face
from .shapes import (
    RECT,
    Point,
    Shape,
    below,
    clipped,
    corner_arcs,
    corner_bands,
    mirrored,
    outline,
    shares_sides,
    svg_path,
)

TICK = 2.4  # mm: the size of an alignment triangle on a tiled component's join
TICK_INSET = 8  # mm: how far from the piece's ends the triangles sit along a join


@dataclass(frozen=True)
class Piece:
    """What fills one slot: a face, or the window of a tiled face that starts at (shift_x, y)."""

    face: Face
    shift_x: float = 0
    shift_y: float = 0
    overlay: Markup = Markup("")
    scale: float = 1


@dataclass(frozen=True)
class Item:
    """One thing to print and cut out: its front piece, its back (None when single-sided), its
    size at the cut line, the group it shares sheets with, whether it gets crop marks (and
    cut outlines), and the shape it is cut to."""

    front: Piece
    back: Piece | None
    size: Box
    group: str
    marks: bool = True
    shape: Shape = RECT


@dataclass(frozen=True)
class Slot:
    """A piece placed on a sheet: its cut-line box on the page, the quarter turns (clockwise)
    it is drawn at, the bleed on each edge (none where a neighbour shares the cut; for a
    shape cut alone, how far its grown outline reaches past the box), how far its face is
    painted on under a neighbour on each edge (left, top, right, bottom), so no hairline shows
    between them: only drawn, never bleed; its shape as it lies on the page (a back's is the
    front's mirrored) and the block of the page it was packed in."""

    piece: Piece
    x: float
    y: float
    width: float
    height: float
    bleed_left: float
    bleed_top: float
    bleed_right: float
    bleed_bottom: float
    turn: int = 0
    marks: bool = True
    seams: tuple[float, float, float, float] = (0, 0, 0, 0)
    shape: Shape = RECT
    block: int = 0

    @property
    def alone(self) -> bool:
        """Whether it is cut along its own outline (a circle, a hex, a pack's outline), not
        along cut lines shared on a grid."""
        return not self.shape.on_grid

    def bleed_outline(self, bleed: float, box: tuple[float, float, float, float] | None = None
                      ) -> list[Point]:
        """Its outline grown by the bleed, on the page, cut off at its bleed box (or `box`):
        no bleed where a neighbour shares its cut."""
        points = [(self.x + x, self.y + y)
                  for x, y in outline(self.shape, self.width, self.height, bleed)]
        return clipped(points, box or self.outer)

    def clip_path(self, bleed: float) -> str:
        """What its face is cut to when that is no rectangle: the outline grown by the bleed
        (and its seams), as `x y` pairs in mm from the top left of the box it is drawn in;
        empty for a piece cut on the grid."""
        if not self.alone:
            return ""
        left, top, _, _ = self.drawn
        return " ".join(f"{x - left:.3f} {y - top:.3f}"
                        for x, y in self.bleed_outline(bleed, self.drawn))

    @property
    def trim(self) -> tuple[float, float, float, float]:
        """Its cut-line box: left, top, right, bottom."""
        return self.x, self.y, self.x + self.width, self.y + self.height

    @property
    def outer(self) -> tuple[float, float, float, float]:
        """The box its bleed covers: left, top, right, bottom."""
        return (self.x - self.bleed_left, self.y - self.bleed_top,
                self.x + self.width + self.bleed_right, self.y + self.height + self.bleed_bottom)

    @property
    def drawn(self) -> tuple[float, float, float, float]:
        """The box its face is painted in: its bleed and its seams."""
        left, top, right, bottom = self.outer
        return (round(left - self.seams[0], 4), round(top - self.seams[1], 4),
                round(right + self.seams[2], 4), round(bottom + self.seams[3], 4))

    @property
    def upright(self) -> Box:
        """The piece's own cut-line size, before it is turned."""
        return Box(self.height, self.width) if self.turn % 180 else Box(self.width, self.height)

    def face_box(self, whole: Box, bleed: float) -> tuple[float, float, float, float]:
        """Where the whole face with its bleed lands, turned, relative to the box it is
        drawn in: left, top, width, height."""
        width, height = (whole.width + 2 * bleed) * self.piece.scale, \
            (whole.height + 2 * bleed) * self.piece.scale
        left = -(bleed + self.piece.shift_x) * self.piece.scale  # relative to the cut box
        top = -(bleed + self.piece.shift_y) * self.piece.scale
        upright = self.upright
        corners = [_turned(x, y, upright.width, upright.height, self.turn)
                   for x in (left, left + width) for y in (top, top + height)]
        x0, y0 = min(x for x, _ in corners), min(y for _, y in corners)
        x1, y1 = max(x for x, _ in corners), max(y for _, y in corners)
        left, top, _, _ = self.drawn
        return (round(x0 + self.x - left, 4), round(y0 + self.y - top, 4),
                round(x1 - x0, 4), round(y1 - y0, 4))


def _turned(x: float, y: float, width: float, height: float, turn: int) -> tuple[float, float]:
    """A point of a `width` x `height` box, once the box is turned `turn` degrees clockwise
    and put back with its top left corner where it was."""
    if turn == 90:
        return height - y, x
    if turn == 180:
        return width - x, height - y
    if turn == 270:
        return y, width - x
    return x, y


@dataclass
class Sheet:
    """One printed page: fronts, backs, a blank back, or an overview."""

    paper: Box
    side: str
    slots: list[Slot] = field(default_factory=list)
    across: bool = False  # a gutter-fold sheet folded across, fronts above their backs

    @property
    def fold(self) -> bool:
        """Whether it is a gutter-fold sheet, fronts and backs on one page."""
        return self.side == "fold"

    def fold_line(self, geometry: Geometry) -> tuple[float, float, float, float] | None:
        """Where a gutter-fold sheet is folded: down the middle, or across it, as far as
        the printer prints."""
        if not self.fold:
            return None
        edge, width, height = geometry.printable, self.paper.width, self.paper.height
        if self.across:
            return edge, height / 2, width - edge, height / 2
        return width / 2, edge, width / 2, height - edge

    def marks(self, geometry: Geometry) -> list[tuple[float, float, float, float]]:
        """Crop marks as line segments (x1, y1, x2, y2): every cut line drawn on past the
        pieces, `gap` clear of every bleed and at least `printable` mm from the paper's edges;
        where that leaves no room, a short guide in the piece's own outer bleed instead. With
        its halo, neither touches another piece's cut-line or bleed box (a seam is no bleed).
        Pieces cut alone get guides only on the straight lines across their block (_strips)."""
        found: set[tuple[float, float, float, float]] = set()
        near = _Near(self.slots, geometry.mark_gap)
        blocks: dict[int, list[Slot]] = {}
        for slot in self.slots:
            if slot.marks and slot.alone:
                blocks.setdefault(slot.block, []).append(slot)
            elif slot.marks:
                found.update(_guides(slot, near, self.paper, geometry))
        for slots in blocks.values():
            found.update(_strips(slots, near, self.paper, geometry))
        return sorted(found)

    def cuts(self, geometry: Geometry) -> list[tuple[str, list[list[Point]]]]:
        """Each shaped piece's cut outline, as SVG path data in mm, with the white halo that
        lies just outside it (polygons): the whole outline of a piece cut alone; only the
        corner arcs of a rounded rectangle, whose straight sides follow the crop marks."""
        halo = HALO * geometry.mark_width
        out = []
        for slot in self.slots:
            if not slot.marks or slot.shape.square:
                continue
            at = (slot.x, slot.y)
            if slot.alone:
                ring = [slot.bleed_outline(halo, slot.outer), slot.bleed_outline(0, slot.outer)]
                out.append((svg_path(slot.shape, slot.width, slot.height, 0, at), ring))
            else:
                out.append((corner_arcs(slot.shape, slot.width, slot.height, at),
                            corner_bands(slot.shape, slot.width, slot.height, halo, at)))
        return out


class _Near:
    """A sheet's slots by the 1 mm strips (across and down) their bleed boxes, grown by
    `reach`, cross: a mark on a line need only look at the slots of its strip."""

    def __init__(self, slots: list[Slot], reach: float) -> None:
        self.strips: tuple[dict[int, list[Slot]], dict[int, list[Slot]]] = ({}, {})
        for slot in slots:
            box = _widened(slot.outer, reach, reach)
            for axis, strips in enumerate(self.strips):
                for strip in range(math.floor(box[axis]), math.floor(box[axis + 2]) + 1):
                    strips.setdefault(strip, []).append(slot)

    def beside(self, at: float, vertical: bool) -> list[Slot]:
        """The slots whose grown bleed box a vertical (or horizontal) line `at` may cross."""
        return self.strips[0 if vertical else 1].get(math.floor(at), [])


def _strips(slots: list[Slot], near: _Near, paper: Box,
            geometry: Geometry) -> list[tuple[float, float, float, float]]:
    """Guides for the straight cuts across a block of pieces cut alone: in the margin, on
    every line that runs between its rows (or columns) from one side of the block to the
    other without crossing a bleed (a row of hexes sharing their sides, between them too), so
    the block can be cut into strips before each piece is cut out."""
    out = []
    edge = geometry.printable
    left, top = min(slot.outer[0] for slot in slots), min(slot.outer[1] for slot in slots)
    right, bottom = max(slot.outer[2] for slot in slots), max(slot.outer[3] for slot in slots)
    for y in _between([(slot.outer[1], slot.outer[3]) for slot in slots]):
        if edge <= y <= paper.height - edge:
            for start, step, limit in ((left, -1, edge), (right, 1, paper.width - edge)):
                mark = _mark(y, start, step, 0, limit, near.beside(y, False), geometry, False)
                if mark:
                    out.append((mark[0], y, mark[1], y))
    for x in _between([(slot.outer[0], slot.outer[2]) for slot in slots]):
        if edge <= x <= paper.width - edge:
            for start, step, limit in ((top, -1, edge), (bottom, 1, paper.height - edge)):
                mark = _mark(x, start, step, 0, limit, near.beside(x, True), geometry, True)
                if mark:
                    out.append((x, mark[0], x, mark[1]))
    return out


def _between(spans: list[tuple[float, float]]) -> list[float]:
    """The lines between spans (from, to) that no span crosses: the middle of each gap
    between them, or where two only touch (a cut two pieces share)."""
    lines, end = [], None
    for low, high in sorted(spans):
        if end is not None and low >= end - EPS:
            lines.append(round((low + end) / 2, 4))
        end = high if end is None else max(end, high)
    return lines


def _guides(slot: Slot, near: _Near, paper: Box,
            geometry: Geometry) -> list[tuple[float, float, float, float]]:
    """The marks of one slot's four cut lines, beyond both ends of each (none on a line the
    printer cannot print, as a back moved by the printer's offset may have)."""
    out = []
    left, top, right, bottom = slot.trim
    edge = geometry.printable
    for x in (round(left, 4), round(right, 4)):  # vertical cut lines: marks above and below
        if not edge <= x <= paper.width - edge:
            continue
        for start, step, bleed in ((top, -1, slot.bleed_top), (bottom, 1, slot.bleed_bottom)):
            limit = edge if step < 0 else paper.height - edge
            mark = _mark(x, start, step, bleed, limit, near.beside(x, True), geometry, True)
            if mark:
                out.append((x, mark[0], x, mark[1]))
    for y in (round(top, 4), round(bottom, 4)):  # horizontal cut lines: marks left and right
        if not edge <= y <= paper.height - edge:
            continue
        for start, step, bleed in ((left, -1, slot.bleed_left), (right, 1, slot.bleed_right)):
            limit = edge if step < 0 else paper.width - edge
            mark = _mark(y, start, step, bleed, limit, near.beside(y, False), geometry,
                         False)
            if mark:
                out.append((mark[0], y, mark[1], y))
    return out


def _mark(at: float, start: float, step: int, bleed: float, limit: float, slots: list[Slot],
          geometry: Geometry, vertical: bool) -> tuple[float, float] | None:
    """One mark continuing the cut line `at` from `start` (its end on the piece) outwards
    (step -1 or 1), as (from, to), clear of `slots` (those beside the line), at most
    `length` long and stopped by the paper's unprintable edge: in the margin, `gap` clear of
    every bleed box; or, where that is shorter (a narrow margin, another block near), a guide
    from BLEED_GUIDE_CLEAR short of the cut through the piece's own outer bleed and on into
    the margin (nearer the paper's edge than `printable`, up to `guide_printable`, where that
    makes it `guide_length` long enough to cut to), `gap` clear of any other piece's bleed
    and BLEED_GUIDE_CLEAR of any cut-line box. None when neither is long enough to see."""
    gap, length = geometry.mark_gap, geometry.mark_length
    begin = start + step * (bleed + gap)
    end = _run(at, begin, _stop(begin + step * length, limit, step), step,
               [_widened(slot.outer, gap, gap) for slot in slots], 0, vertical)
    if (end - begin) * step >= length - EPS:
        return round(begin, 4), round(end, 4)
    near = start + step * BLEED_GUIDE_CLEAR
    across = 0 if vertical else 1
    others = [slot for slot in slots  # the line is not their cut: their bleed is not its own
              if min(abs(at - slot.trim[across]), abs(at - slot.trim[across + 2])) > EPS]
    boxes = [_widened(slot.trim, 0, BLEED_GUIDE_CLEAR, vertical) for slot in slots]
    boxes += [_widened(slot.outer, 0, gap, vertical) for slot in others]
    reach = _stop(near + step * length, limit, step)
    if (reach - near) * step < geometry.guide_length:  # too short to cut to: on towards the
        edge = limit + step * (geometry.printable - geometry.guide_printable)  # paper's edge
        reach = _stop(near + step * geometry.guide_length, edge, step)
    far = _run(at, near, reach, step, boxes,
               1.5 * geometry.mark_width, vertical)  # the halo is 3 widths wide
    if (end - begin) * step >= max(MIN_MARK, (far - near) * step):
        return round(begin, 4), round(end, 4)
    return (round(far, 4), round(near, 4)) if (far - near) * step >= MIN_GUIDE else None


def _stop(far: float, limit: float, step: int) -> float:
    """`far`, or the paper's unprintable edge when that comes first."""
    return max(far, limit) if step < 0 else min(far, limit)


def _widened(box: tuple[float, float, float, float], across: float, along: float,
             vertical: bool = True) -> tuple[float, float, float, float]:
    """A box (left, top, right, bottom) grown by `across` mm across a line and `along` mm
    along it (a vertical line's along is up and down)."""
    grow_x, grow_y = (across, along) if vertical else (along, across)
    return box[0] - grow_x, box[1] - grow_y, box[2] + grow_x, box[3] + grow_y


def _run(at: float, begin: float, far: float, step: int,
         boxes: list[tuple[float, float, float, float]], half: float, vertical: bool) -> float:
    """Where a stroke on the line `at` (vertical or horizontal), `half` mm wide either side,
    drawn from `begin` towards `far` (step -1 or 1), first meets one of `boxes`: `far` when it
    meets none, `begin` when it starts inside one."""
    end = far
    for box in boxes:
        low, high, first, last = (box[0], box[2], box[1], box[3]) if vertical else \
            (box[1], box[3], box[0], box[2])
        if not (low < at + half - EPS and at - half + EPS < high):
            continue  # beside the line
        if first + EPS < begin < last - EPS:
            return begin
        if step > 0 and first >= begin - EPS:
            end = min(end, first)
        if step < 0 and last <= begin + EPS:
            end = max(end, last)
    return end


EPS = 1e-6  # mm: two lengths this close are the same
MIN_MARK = 1.5  # mm: a crop mark shorter than this is not drawn in the margin
BLEED_GUIDE_CLEAR = 0.3  # mm: a guide drawn in the bleed stops this far short of any cut
MIN_GUIDE = 0.5  # mm: the shortest guide worth drawing in the bleed
HALO = 1.5  # a cut outline's white halo reaches this many stroke widths outside it


def _behind(slot: Slot, back: Piece, paper: Box, flip: str,
            offset: tuple[float, float]) -> Slot:
    """The back of a front slot: where it lands behind it once the sheet is turned over its
    long or short edge, moved by the printer's offset."""
    sides = (slot.bleed_left, slot.bleed_top, slot.bleed_right, slot.bleed_bottom)
    if flip == "short":
        x, y = slot.x, paper.height - slot.y - slot.height
        turn = slot.turn if slot.turn % 180 else (slot.turn + 180) % 360
        order = (0, 3, 2, 1)  # top and bottom change places
    else:
        x, y = paper.width - slot.x - slot.width, slot.y
        turn = (slot.turn + 180) % 360 if slot.turn % 180 else slot.turn
        order = (2, 1, 0, 3)  # left and right change places
    left, top, right, bottom = order
    seams = slot.seams
    return Slot(back, round(x + offset[0], 4), round(y + offset[1], 4), slot.width,
                slot.height, sides[left], sides[top], sides[right], sides[bottom], turn=turn,
                marks=slot.marks, seams=(seams[left], seams[top], seams[right], seams[bottom]),
                shape=mirrored(slot.shape, flip != "short"), block=slot.block)


def _place(grid: Grid, geometry: Geometry,
           cells: dict[tuple[int, int], tuple[Piece, bool]],
           origin: tuple[float, float] | None = None, turn: int = 0) -> list[Slot]:
    """Turn occupied grid cells into slots; bleed goes where no neighbour card sits.

    Where a neighbour sits to the right or below (painted later), the card reaches a hair
    under it, so no anti-aliased seam shows between two cards of the same colour.
    """
    slots = []
    bleed, seam = geometry.bleed, geometry.seam
    left, top = origin if origin is not None else (grid.left, grid.top)
    for (col, row), (piece, marks) in sorted(cells.items(),
                                             key=lambda item: (item[0][1], item[0][0])):
        slots.append(Slot(
            piece, round(left + col * grid.card.width, 4), round(top + row * grid.card.height, 4),
            grid.card.width, grid.card.height,
            bleed_left=0 if (col - 1, row) in cells else bleed,
            bleed_top=0 if (col, row - 1) in cells else bleed,
            bleed_right=0 if (col + 1, row) in cells else bleed,
            bleed_bottom=0 if (col, row + 1) in cells else bleed,
            turn=turn, marks=marks,
            seams=(0, 0, seam if (col + 1, row) in cells else 0,
                   seam if (col, row + 1) in cells else 0),
        ))
    return slots


Layout = tuple[int, int, bool]  # a block's columns and rows on the page, and whether turned
Rect = tuple[float, float, float, float]  # left, top, width, height
LOOKAHEAD = 8  # a new page's first block leaves room for as many of the next 8 as it can


@dataclass(frozen=True)
class Duplex:
    """How a file's backs print: whether at all, the edge the sheet turns over (long or
    short), the printer's offset (mm right and down), or beside their fronts (gutter-fold)."""

    backs: bool = True
    flip: str = "long"
    offset: tuple[float, float] = (0, 0)
    fold: bool = False


def pack(items: list[Item], paper: str, geometry: Geometry,
         duplex: Duplex = Duplex()) -> list[Sheet]:
    """Items of every size on as few pages as the packer finds. Each size fills its full
    sheets first (with backs: its centred grid, as printed alone); what is left of every
    size, and the single-sided pieces, then fill each other's room on shared pages, turned a
    quarter where that helps. Every fronts page is followed by its backs, each behind its own
    front. On gutter-fold sheets the backs share the page instead, mirrored across a fold
    down the middle, or across it for pieces too wide for half the paper (and printed as
    without the fold when they fit neither half); single-sided pieces keep whole pages."""
    sheet, margin = geometry.papers[paper], geometry.min_margin
    room = geometry.room(paper)
    if not duplex.fold:
        return _pack(items, sheet, _centred(sheet, room), geometry, duplex, _grids(paper, geometry))
    off_fold = geometry.fold_gutter / 2 + margin  # the fold's side of a half, and the paper's
    down = (margin, margin, Box(sheet.width / 2 - off_fold, room.height))
    across = (margin, margin, Box(room.width, sheet.height / 2 - off_fold))
    folded: dict[str, list[Item]] = {"down": [], "across": [], "": []}
    for item in items:
        half = "" if item.back is None else next(
            (name for name, area in (("down", down), ("across", across))
             if any(_Block([item], []).fits((1, 1, turned), area[2])
                    for turned in (False, True))), "")
        folded[half].append(item)
    flat = Duplex(duplex.backs, duplex.flip, duplex.offset)
    return (_pack(folded["down"], sheet, down, geometry, Duplex(duplex.backs, fold=True),
                  _grids(paper, geometry, half=True))
            + _pack(folded["across"], sheet, across, geometry,
                    Duplex(duplex.backs, "short", fold=True))
            + _pack(folded[""], sheet, _centred(sheet, room), geometry, flat,
                    _grids(paper, geometry)))


def _grids(paper: str, geometry: Geometry, half: bool = False) -> Callable[[Box], Grid | None]:
    """Each size's grid on the paper (in its left half), None for a size that fits only
    turned."""
    def grid(size: Box) -> Grid | None:
        try:
            return geometry.grid(paper, size, half=half)
        except ValueError:
            return None
    return grid


def pack_grid(items: list[Item], paper: Box, grid: Grid, geometry: Geometry,
              with_backs: bool, flip: str = "long", offset: tuple[float, float] = (0, 0),
              fold: bool = False) -> list[Sheet]:
    """Items of one size on `grid`, sheet after sheet, each backs sheet after its fronts."""
    area = (grid.left, grid.top, Box(grid.cols * grid.card.width, grid.rows * grid.card.height))
    duplex = Duplex(with_backs, "long" if fold else flip, offset, fold)
    return _pack(items, paper, area, geometry, duplex, lambda size: grid)


def pack_single(items: list[Item], paper: Box, room: Box, geometry: Geometry) -> list[Sheet]:
    """Pieces packed on pages, each page's arrangement centred on the paper."""
    return _pack(items, paper, _centred(paper, room), geometry, Duplex())


def _centred(paper: Box, room: Box) -> tuple[float, float, Box]:
    """Where cut lines may go: `room` in the middle of the paper (left, top, room)."""
    return (paper.width - room.width) / 2, (paper.height - room.height) / 2, room


def _pack(items: list[Item], paper: Box, area: tuple[float, float, Box], geometry: Geometry,
          duplex: Duplex, grid: Callable[[Box], Grid | None] | None = None) -> list[Sheet]:
    """Pack items in `area` (left, top, room) page after page: full blocks first, in the
    order their sizes come, then the rest, largest first, each on the first page with room
    for it whole, else spread over the room left on pages begun, else on a new page.

    Between blocks lies sheet.gutter: they share no cut line, so each has its own bleed on
    that edge and the gap must hold both, never less than 2 × bleed (print.yaml says why
    10 mm)."""
    reach = max([geometry.bleed] + [max(_reach(item.shape, item.size, geometry.bleed))
                                    + geometry.mark_gap / 2
                                    for item in items if not item.shape.on_grid])
    gutter = max(geometry.gutter, 2 * reach)
    room = area[2]
    space = Box(room.width + gutter, room.height + gutter)  # every block brings its gutter
    full, rest = _blocks(items, room, geometry, grid)
    queue = full + sorted(rest, key=lambda block: -block.area)
    pages: list[_Page] = []
    for index, block in enumerate(queue):
        if any(page.place(block, gutter) for page in pages):
            continue
        if index >= len(full) and _spread(block, pages, gutter):
            continue
        pages.append(_opened(block, queue[index + 1:index + 1 + LOOKAHEAD], space, gutter))
    return [sheet for page in pages for sheet in page.sheets(paper, area, geometry, duplex)]


@cache
def _reach(shape: Shape, size: Box, bleed: float) -> tuple[float, float, float, float]:
    """How far a piece's outline grown by the bleed reaches past its cut box on each side
    (left, top, right, bottom): a hex's point further than the bleed."""
    points = outline(shape, size.width, size.height, bleed)
    return (round(-min(x for x, _ in points), 4), round(-min(y for _, y in points), 4),
            round(max(x for x, _ in points) - size.width, 4),
            round(max(y for _, y in points) - size.height, 4))


@dataclass(frozen=True)
class _Lattice:
    """Where pieces cut alone along their outlines sit in a block, in lines (rows, or
    columns when `columns`): `across` mm apart in a line, lines `down` mm apart, every other
    line moved `shift` mm along (0: straight lines), and whether neighbours in a line share
    a straight cut (pointy hexes in a row, flat ones in a column)."""

    piece: Box
    across: float
    down: float
    shift: float = 0
    shared: bool = False
    columns: bool = False

    def _lined(self, box: Box) -> Box:
        """A box on the page as its lines see it (along a line, then across): columns swap."""
        return Box(box.height, box.width) if self.columns else box

    def extent(self, per_line: int, lines: int) -> Box:
        """The cut-line box of `per_line` pieces a line in `lines` lines."""
        piece = self._lined(self.piece)
        return self._lined(Box(round((per_line - 1) * self.across + piece.width
                                     + (self.shift if lines > 1 else 0), 4),
                               round((lines - 1) * self.down + piece.height, 4)))

    def fit(self, room: Box) -> tuple[int, int]:
        """The most pieces a line and lines that fit the room (0, 0 when not one does)."""
        room, piece = self._lined(room), self._lined(self.piece)
        if room.width + EPS < piece.width or room.height + EPS < piece.height:
            return 0, 0
        lines = int((room.height - piece.height + EPS) // self.down) + 1
        per_line = int((room.width - piece.width - self.shift + EPS) // self.across) + 1
        if lines == 1 or per_line < 1:
            lines, per_line = 1, int((room.width - piece.width + EPS) // self.across) + 1
        return per_line, lines

    def origin(self, index: int, line: int) -> tuple[float, float]:
        """Where the cut box of the `index`th piece of line `line` starts."""
        along, across = index * self.across + (self.shift if line % 2 else 0), line * self.down
        return (across, along) if self.columns else (along, across)


def _lattices(shape: Shape, size: Box, geometry: Geometry) -> list[_Lattice]:
    """The ways pieces of a shape cut alone may sit, each bleed `mark_gap` clear of every
    other: in straight rows, straight columns, then rows or columns offset half a piece and
    nested closer. Neighbours in a line share a straight cut where the shape allows."""
    bleed, gap = geometry.bleed, geometry.mark_gap
    piece = outline(shape, size.width, size.height, bleed)
    zone = outline(shape, size.width, size.height, bleed + gap)  # no other bleed comes in
    edge = outline(shape, size.width, size.height)
    lattices: list[list[_Lattice]] = []
    for columns in (False, True):
        turn = _swapped if columns else list
        box = Box(size.height, size.width) if columns else size
        lattices.append([replace(lattice, piece=size, columns=columns) for lattice in _lines(
            turn(piece), turn(zone), shares_sides(turn(edge), box.width), box)])
    return [lattices[0][0], lattices[1][0], lattices[0][1], lattices[1][1]]


def _lines(piece: list[Point], zone: list[Point], shared: bool, size: Box) -> list[_Lattice]:
    """Rows of a piece whose bleed outline is `piece`, no other bleed coming inside `zone`:
    straight, then offset half a piece and nested as close as they go."""

    def clear(across: float) -> float:  # how far below a piece another moved across goes
        found = below(zone, piece, across)
        return 0 if found is None else found

    across = size.width if shared else below(_swapped(zone), _swapped(piece), 0) or 0
    down = max(clear(step * across) for step in (-1, 0, 1))
    nested = max([clear(across / 2 + step * across) for step in (-2, -1, 0, 1)] + [down / 2])
    return [_Lattice(size, round(across, 4), round(down, 4), 0, shared),
            _Lattice(size, round(across, 4), round(nested, 4), round(across / 2, 4), shared)]


def _swapped(points: list[Point]) -> list[Point]:
    """A polygon mirrored across its diagonal: rows become columns."""
    return [(y, x) for x, y in points]


@dataclass
class _Block:
    """Items of one size and shape, all with backs or all without, as a little grid sharing
    cut lines (or, cut alone, on a lattice): the layouts it may take (the first preferred),
    and where its size's grid sits on a sheet it has to itself in that layout (None:
    centred)."""

    items: list[Item]
    layouts: list[Layout]
    origin: tuple[float, float] | None = None
    lattice: _Lattice | None = None

    @property
    def size(self) -> Box:
        """One item's cut-line size, upright."""
        return self.items[0].size

    @property
    def area(self) -> float:
        """The paper its items cover."""
        return len(self.items) * self.size.width * self.size.height

    def cell(self, turned: bool) -> Box:
        """One item's box on the page."""
        return Box(self.size.height, self.size.width) if turned else self.size

    @property
    def turns(self) -> tuple[bool, ...]:
        """Whether it may be turned a quarter: not on a lattice, worked out upright."""
        return (False,) if self.lattice is not None else (False, True)

    def fits(self, layout: Layout, room: Box) -> bool:
        """Whether it fits the room in a layout."""
        extent = self.extent(layout)
        return extent.width <= room.width + EPS and extent.height <= room.height + EPS

    def fit(self, room: Box, turned: bool) -> tuple[int, int]:
        """The most columns and rows of its pieces that fit the room."""
        if self.lattice is not None:
            return self.lattice.fit(room)
        cell = self.cell(turned)
        return (max(0, int((room.width + EPS) // cell.width)),
                max(0, int((room.height + EPS) // cell.height)))

    def extent(self, layout: Layout) -> Box:
        """The block's cut-line box in a layout."""
        cols, rows, turned = layout
        if self.lattice is not None:
            return self.lattice.extent(cols, rows)
        cell = self.cell(turned)
        return Box(cols * cell.width, rows * cell.height)


def _blocks(items: list[Item], room: Box, geometry: Geometry,
            grid: Callable[[Box], Grid | None] | None) -> tuple[list[_Block], list[_Block]]:
    """Each size and shape's items, those with backs apart from those without, in blocks of
    a full page each (with backs, the size's grid; without, upright or turned, whichever
    holds more; cut alone, the lattice that holds most), and a block of what is left, free
    to take any layout that fits the room (cut alone, in straight lines when they hold it:
    strips are easier to cut)."""
    full: list[_Block] = []
    rest: list[_Block] = []
    groups: dict[tuple[Box, bool, Shape], list[Item]] = {}
    for item in items:
        groups.setdefault((item.size, item.back is not None, item.shape), []).append(item)
    for (size, backed, shape), group in groups.items():
        models = [_Block(group, [], None, lattice) for lattice in
                  ([None] if shape.on_grid else _lattices(shape, size, geometry))]
        layouts = []
        for model in models:
            sized = grid(size) if backed and grid is not None and shape.on_grid else None
            if sized is not None:
                layout, model.origin = (sized.cols, sized.rows, False), (sized.left, sized.top)
            else:
                layout = max(((*model.fit(room, turned), turned) for turned in model.turns),
                             key=lambda layout: layout[0] * layout[1])  # upright when they tie
            layouts.append(layout)
        per_page = max(cols * rows for cols, rows, _ in layouts)
        if not per_page:
            raise ValueError(f"a {size.width}×{size.height} mm piece does not fit the paper")
        for start in range(0, len(group), per_page):
            chunk = group[start:start + per_page]
            model, layout = next((model, layout) for model, layout in zip(
                models, layouts, strict=True) if layout[0] * layout[1] >= len(chunk))
            block = replace(model, items=chunk)
            if len(chunk) == layout[0] * layout[1]:
                turned = (layout[1], layout[0], not layout[2])  # the whole block a quarter round
                block.layouts = [layout] + ([turned] if block.origin is None and True in
                                            block.turns and block.fits(turned, room) else [])
                full.append(block)
                continue
            cols = min(layout[0], len(chunk))
            block.layouts = _layouts(block, room, (cols, -(-len(chunk) // cols), layout[2]))
            rest.append(block)
    return full, rest


def _layouts(block: _Block, room: Box, first: Layout) -> list[Layout]:
    """Every layout a block's items can take in the room, upright or turned, with no column
    left empty; `first` first."""
    layouts, count = [first], len(block.items)
    for turned in block.turns:
        for cols in range(1, count + 1):
            rows = -(-count // cols)
            layout = (cols, rows, turned)
            if cols == -(-count // rows) and layout != first and block.fits(layout, room):
                layouts.append(layout)
    return layouts


def _spread(block: _Block, pages: list[_Page], gutter: float) -> bool:
    """Put a block's items, a smaller block at a time, in the room left on pages already
    begun, when all of them find room there: a page saved is worth a deck split."""
    trials = [page.copy() for page in pages]
    items = block.items
    for page in trials:
        while items:
            where = page.most(block, len(items), gutter)
            if where is None:
                break
            layout, x, y = where
            count = min(len(items), layout[0] * layout[1])
            page.put(replace(block, items=items[:count], layouts=[layout]), layout, x, y, gutter)
            items = items[count:]
    if items:
        return False
    pages[:] = trials
    return True


def _opened(block: _Block, later: list[_Block], space: Box, gutter: float) -> _Page:
    """A new page for a block that fits no page begun: in the layout that leaves room for
    the most of the blocks after it (its first layout, when that makes no difference)."""
    best: tuple[float, _Page] | None = None
    for layout in block.layouts:
        page = _Page(space)
        page.put(block, layout, 0, 0, gutter)
        trial = page.copy()
        held = sum(other.area for other in later if trial.place(other, gutter))
        if best is None or held > best[0] + EPS:
            best = (held, page)
    assert best is not None
    return best[1]


@dataclass
class _Page:
    """A page being packed: its blocks, each in its layout at its place, and its free
    rectangles (MaxRects); every block is counted with a gutter right and below it."""

    space: Box
    placed: list[tuple[_Block, Layout, float, float]] = field(default_factory=list)
    free: list[Rect] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.placed:
            self.free = [(0, 0, self.space.width, self.space.height)]

    def copy(self) -> _Page:
        """A page to try things on."""
        return _Page(self.space, list(self.placed), list(self.free))

    def place(self, block: _Block, gutter: float) -> bool:
        """Put a block where it fits best (shortest side left over), in the layout that fits
        best (the first when they tie); False when it fits nowhere."""
        best = None
        for index, layout in enumerate(block.layouts):
            extent = block.extent(layout)
            width, height = extent.width + gutter, extent.height + gutter
            for x, y, free_w, free_h in self.free:
                if width <= free_w + EPS and height <= free_h + EPS:
                    score = (min(free_w - width, free_h - height), y, x, index)
                    if best is None or score < best[0]:
                        best = (score, layout, x, y)
        if best is None:
            return False
        self.put(block, best[1], best[2], best[3], gutter)
        return True

    def most(self, block: _Block, count: int, gutter: float) -> tuple[Layout, float, float] | None:
        """The free rectangle that holds the most of `count` items of a block's size, and
        their layout there (a full row first)."""
        best = None
        for x, y, free_w, free_h in self.free:
            for turned in block.turns:
                cols, rows = block.fit(Box(free_w - gutter, free_h - gutter), turned)
                held = min(count, cols * rows)
                if held and (best is None or held > best[0]):
                    cols = min(cols, held)
                    best = (held, (cols, -(-held // cols), turned), x, y)
        return None if best is None else best[1:]

    def put(self, block: _Block, layout: Layout, x: float, y: float, gutter: float) -> None:
        """Place a block in a layout with its top left corner at (x, y)."""
        extent = block.extent(layout)
        self.placed.append((block, layout, x, y))
        self.free = _split_free(self.free, (x, y, extent.width + gutter, extent.height + gutter))

    def sheets(self, paper: Box, area: tuple[float, float, Box], geometry: Geometry,
               duplex: Duplex) -> list[Sheet]:
        """The page's fronts, then its backs, each behind its own front; or one gutter-fold
        sheet of both; or one single-sided sheet. A block alone in its first layout sits
        where its size's grid does; anything else is centred in the area as a whole."""
        block, layout, _, _ = self.placed[0]
        if len(self.placed) == 1 and block.origin is not None and layout == block.layouts[0]:
            shift_x, shift_y = block.origin
        else:
            left, top, room = area
            used_w = max(x + b.extent(s).width for b, s, x, _ in self.placed)
            used_h = max(y + b.extent(s).height for b, s, _, y in self.placed)
            shift_x, shift_y = left + (room.width - used_w) / 2, top + (room.height - used_h) / 2
        flip, offset = duplex.flip, (0.0, 0.0) if duplex.fold else duplex.offset
        fronts: list[Slot] = []
        backs: list[Slot] = []
        for number, (block, (cols, rows, turned), x, y) in enumerate(self.placed):
            if block.lattice is not None:
                slots = _lay(block, cols, (x + shift_x, y + shift_y), geometry)
            else:
                grid = Grid(paper, block.cell(turned), cols, rows, 0, 0)
                cells = {(index % cols, index // cols): (item.front, item.marks)
                         for index, item in enumerate(block.items)}  # in reading order
                slots = _place(grid, geometry, cells, (x + shift_x, y + shift_y),
                               90 if turned else 0)
            slots = [replace(slot, shape=item.shape, block=number)
                     for slot, item in zip(slots, block.items, strict=True)]
            fronts += slots
            backs += [_behind(slot, item.back, paper, flip, offset)
                      for slot, item in zip(slots, block.items, strict=True)
                      if item.back is not None]
        if not backs:
            return [Sheet(paper, "single", fronts)]
        if duplex.fold:
            return [Sheet(paper, "fold", fronts + backs, across=flip == "short")]
        return [Sheet(paper, "front", fronts)] + ([Sheet(paper, "back", backs)]
                                                   if duplex.backs else [])


def _lay(block: _Block, cols: int, origin: tuple[float, float], geometry: Geometry
         ) -> list[Slot]:
    """A block of pieces cut alone as slots on its lattice, `cols` a row in reading order:
    each with its own bleed along its outline, but none (and a seam painted under the
    right-hand one) where two side by side share a straight cut."""
    lattice = block.lattice
    assert lattice is not None
    reach = _reach(block.items[0].shape, block.size, geometry.bleed)
    start, end = (1, 3) if lattice.columns else (0, 2)  # the sides a line's neighbours share
    count, slots = len(block.items), []
    for index, item in enumerate(block.items):
        col = index % cols
        before = lattice.shared and col > 0
        after = lattice.shared and col < cols - 1 and index < count - 1
        x, y = lattice.origin(col, index // cols)
        sides = [0.0 if (side == start and before) or (side == end and after) else reach[side]
                 for side in range(4)]
        seams = [geometry.seam if side == end and after else 0.0 for side in range(4)]
        slots.append(Slot(item.front, round(origin[0] + x, 4), round(origin[1] + y, 4),
                          block.size.width, block.size.height, sides[0], sides[1], sides[2],
                          sides[3], marks=item.marks,
                          seams=(seams[0], seams[1], seams[2], seams[3])))
    return slots


def _split_free(free: list[Rect], used: Rect) -> list[Rect]:
    """MaxRects: cut the used rectangle out of every free one it overlaps, keeping the
    maximal leftovers, and drop any free rectangle inside another."""
    ux, uy, uw, uh = used
    out = []
    for x, y, w, h in free:
        if ux >= x + w or ux + uw <= x or uy >= y + h or uy + uh <= y:
            out.append((x, y, w, h))
            continue
        if ux > x:
            out.append((x, y, ux - x, h))
        if ux + uw < x + w:
            out.append((ux + uw, y, x + w - ux - uw, h))
        if uy > y:
            out.append((x, y, w, uy - y))
        if uy + uh < y + h:
            out.append((x, uy + uh, w, y + h - uy - uh))
    return [r for i, r in enumerate(out) if not any(
        j != i and _contains(o, r) and (o != r or j < i) for j, o in enumerate(out))]


def _contains(outer: Rect, inner: Rect) -> bool:
    """Whether one rectangle lies inside another."""
    return (outer[0] <= inner[0] and outer[1] <= inner[1]
            and outer[0] + outer[2] >= inner[0] + inner[2]
            and outer[1] + outer[3] >= inner[1] + inner[3])


def tile(face: Face, tiling: Tiling, glue_label: str) -> list[Piece]:
    """Cut one oversized face into numbered pieces, with glue strips and alignment ticks."""
    pieces = []
    for row in range(tiling.rows):
        for col in range(tiling.cols):
            x, y = tiling.origin(col, row)
            pieces.append(Piece(face, x, y, _tile_marks(tiling, col, row, glue_label)))
    return pieces


def _tile_marks(tiling: Tiling, col: int, row: int, label: str) -> Markup:
    """A piece's number; hatched strips where the next pieces go; ticks on every join.

    A join has two triangles on each side, tip to tip when the pieces lie straight: one on the
    glue strip's edge, one on the edge of the piece laid over it, at the same place along it.
    """
    width, height, overlap = tiling.piece.width, tiling.piece.height, tiling.overlap
    number = row * tiling.cols + col + 1
    parts = [Markup('<div class="piece-no">{}/{}</div>').format(number, tiling.count)]
    strip = Markup('<div class="glue glue--{}" style="left: {:.3f}mm; top: {:.3f}mm; '
                   'width: {:.3f}mm; height: {:.3f}mm"><span>{} → {}</span></div>')
    along_y, along_x = (TICK_INSET, height - TICK_INSET), (TICK_INSET, width - TICK_INSET)
    ticks: list[tuple[str, float, float]] = []
    if col < tiling.cols - 1:
        parts.append(strip.format("right", width - overlap, 0, overlap, height, escape(label),
                                  number + 1))
        ticks += [("right", width - overlap - TICK, y - TICK / 2) for y in along_y]
    if row < tiling.rows - 1:
        parts.append(strip.format("bottom", 0, height - overlap, width, overlap, escape(label),
                                  number + tiling.cols))
        ticks += [("down", x - TICK / 2, height - overlap - TICK) for x in along_x]
    if col > 0:
        ticks += [("left", 0, y - TICK / 2) for y in along_y]
    if row > 0:
        ticks += [("up", x - TICK / 2, 0) for x in along_x]
    tick = Markup('<div class="join-tick join-tick--{}" '
                  'style="left: {:.3f}mm; top: {:.3f}mm"></div>')
    parts += [tick.format(side, x, y) for side, x, y in ticks]
    return Markup("").join(parts)


def overview(faces: list[Face], tiling: Tiling, geometry: Geometry,
             paper: str) -> list[Sheet]:
    """Each tiled face once more, whole and scaled to fit one page, for seeing it assembled."""
    sheet, whole = geometry.papers[paper], tiling.whole
    scale = overview_scale(tiling, geometry, paper)
    shown = Box(round(whole.width * scale, 4), round(whole.height * scale, 4))
    left = round((sheet.width - shown.width) / 2, 4)
    top = round((sheet.height - shown.height) / 2, 4)
    return [Sheet(sheet, "overview", [Slot(Piece(face, scale=scale), left, top, shown.width,
                                           shown.height, 0, 0, 0, 0, marks=False)])
            for face in faces]


def overview_scale(tiling: Tiling, geometry: Geometry, paper: str) -> float:
    """How much a tiled component is shrunk to fit its overview page whole."""
    room, whole = geometry.room(paper), tiling.whole
    return round(min(room.width / whole.width, room.height / whole.height, 1), 4)


def marks_svg(sheet: Sheet, geometry: Geometry) -> Markup:
    """The crop marks of a sheet as one inline SVG covering the page, each on a white halo so
    a guide in a dark bleed shows too; shaped pieces' cut outlines, each on a white halo just
    outside it; a gutter-fold sheet's fold as a dashed line."""
    paper = sheet.paper
    lines = "".join(
        f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}"/>'
        for x1, y1, x2, y2 in sheet.marks(geometry)
    )
    fold = ""
    if (line := sheet.fold_line(geometry)) is not None:
        fold = ('<line class="fold" x1="{:.3f}" y1="{:.3f}" x2="{:.3f}" y2="{:.3f}" '
                'stroke-dasharray="3 2"/>').format(*line)
    cuts = sheet.cuts(geometry)
    halos = "".join(f'<path d="{_polygons(halo)}"/>' for _, halo in cuts)
    outlines = "".join(f'<path d="{path}"/>' for path, _ in cuts)
    width = geometry.mark_width
    return Markup(
        f'<svg class="marks" xmlns="http://www.w3.org/2000/svg" '
        f'width="{paper.width}mm" height="{paper.height}mm" '
        f'viewBox="0 0 {paper.width} {paper.height}" fill="none">'
        f'<g fill="#ffffff" fill-rule="evenodd">{halos}</g>'
        f'<g stroke="#ffffff" stroke-width="{3 * width:.3f}">{lines}</g>'
        f'<g stroke="{geometry.mark_color}" stroke-width="{width}">{lines}{fold}{outlines}</g>'
        '</svg>'
    )


def _polygons(polygons: list[list[Point]]) -> str:
    """Polygons as SVG path data, one closed subpath each (even-odd: a ring is two)."""
    return "".join("M" + "L".join(f"{x:.3f} {y:.3f}" for x, y in points) + "Z"
                   for points in polygons if len(points) >= 3)


def booklet_order(pages: int) -> list[tuple[int | None, int | None]]:
    """Saddle-stitch order: (left, right) page indexes for each sheet side, None for blanks.

    The pages are padded to a multiple of four; sheet k carries the outermost pages left, so
    a folded, stapled stack reads 1, 2, 3, … in order. Sides alternate front, back.
    """
    total = -(-pages // 4) * 4
    sides = []
    for sheet in range(total // 4):
        first, last = 2 * sheet, total - 1 - 2 * sheet
        sides += [(last, first), (first + 1, last - 1)]
    return [(left if left < pages else None, right if right < pages else None)
            for left, right in sides]
