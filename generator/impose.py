"""Stage 3b, impose: place rendered faces on printable sheets, backs mirrored for duplex."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from .geometry import Box, Geometry, Grid, Tiling
from .render import Face

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
    size at the cut line, the group it shares sheets with, and whether it gets crop marks."""

    front: Piece
    back: Piece | None
    size: Box
    group: str
    marks: bool = True


@dataclass(frozen=True)
class Slot:
    """A piece placed on a sheet: its cut-line box on the page, the quarter turns (clockwise)
    it is drawn at, and the bleed on each edge (none where a neighbour shares the cut)."""

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

    @property
    def outer(self) -> tuple[float, float, float, float]:
        """The box its bleed covers: left, top, right, bottom."""
        return (self.x - self.bleed_left, self.y - self.bleed_top,
                self.x + self.width + self.bleed_right, self.y + self.height + self.bleed_bottom)

    @property
    def upright(self) -> Box:
        """The piece's own cut-line size, before it is turned."""
        return Box(self.height, self.width) if self.turn % 180 else Box(self.width, self.height)

    def face_box(self, whole: Box, bleed: float) -> tuple[float, float, float, float]:
        """Where the whole face with its bleed lands, turned, relative to the slot's outer
        box: left, top, width, height."""
        width, height = (whole.width + 2 * bleed) * self.piece.scale, \
            (whole.height + 2 * bleed) * self.piece.scale
        left = -(bleed + self.piece.shift_x) * self.piece.scale  # relative to the cut box
        top = -(bleed + self.piece.shift_y) * self.piece.scale
        upright = self.upright
        corners = [_turned(x, y, upright.width, upright.height, self.turn)
                   for x in (left, left + width) for y in (top, top + height)]
        x0, y0 = min(x for x, _ in corners), min(y for _, y in corners)
        x1, y1 = max(x for x, _ in corners), max(y for _, y in corners)
        return (round(x0 + self.bleed_left, 4), round(y0 + self.bleed_top, 4),
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

    @property
    def fold(self) -> bool:
        """Whether it is a gutter-fold sheet, fronts and backs on one page."""
        return self.side == "fold"

    def marks(self, geometry: Geometry) -> list[tuple[float, float, float, float]]:
        """Crop marks as line segments (x1, y1, x2, y2): every cut line drawn on past the
        pieces, outside every bleed and at least `printable` mm from the paper's edges; where
        the margin leaves no room, a short guide inside the piece's own outer bleed."""
        found: set[tuple[float, float, float, float]] = set()
        for slot in self.slots:
            if slot.marks:
                found.update(_guides(slot, self.slots, self.paper, geometry))
        return sorted(found)


def _guides(slot: Slot, slots: list[Slot], paper: Box,
            geometry: Geometry) -> list[tuple[float, float, float, float]]:
    """The marks of one slot's four cut lines, beyond both ends of each."""
    out = []
    left, top = slot.x, slot.y
    right, bottom = slot.x + slot.width, slot.y + slot.height
    edge = geometry.printable
    for x in (left, right):  # vertical cut lines: marks above and below
        for start, step, bleed in ((top, -1, slot.bleed_top), (bottom, 1, slot.bleed_bottom)):
            limit = edge if step < 0 else paper.height - edge
            mark = _mark(x, start, step, bleed, limit, slots, geometry, vertical=True)
            if mark:
                out.append((x, mark[0], x, mark[1]))
    for y in (top, bottom):  # horizontal cut lines: marks left and right
        for start, step, bleed in ((left, -1, slot.bleed_left), (right, 1, slot.bleed_right)):
            limit = edge if step < 0 else paper.width - edge
            mark = _mark(y, start, step, bleed, limit, slots, geometry, vertical=False)
            if mark:
                out.append((mark[0], y, mark[1], y))
    return out


def _mark(at: float, start: float, step: int, bleed: float, limit: float, slots: list[Slot],
          geometry: Geometry, vertical: bool) -> tuple[float, float] | None:
    """One mark continuing the cut line `at` from `start` (its end on the piece) outwards
    (step -1 or 1), as (from, to). It stops short of any bleed it runs into (None when a
    neighbour leaves no room) and of the paper's unprintable edge; when that edge leaves no
    room in the margin, the guide is drawn in the piece's own outer bleed instead."""
    gap, eps = geometry.mark_gap, 1e-6
    begin = start + step * (bleed + gap)
    end = begin + step * geometry.mark_length
    blocked = False
    for other in slots:
        x0, y0, x1, y1 = other.outer
        side_low, side_high, low, high = (x0, x1, y0, y1) if vertical else (y0, y1, x0, x1)
        if not side_low - gap < at < side_high + gap:
            continue
        if step > 0 and low >= start - eps and low - gap < end:
            end, blocked = low - gap, True
        if step < 0 and high <= start + eps and high + gap > end:
            end, blocked = high + gap, True
    if blocked and (end - begin) * step < MIN_MARK:
        return None
    end = max(end, limit) if step < 0 else min(end, limit)
    if (end - begin) * step >= MIN_MARK:
        return round(begin, 4), round(end, 4)
    near = start + step * BLEED_GUIDE_CLEAR  # in the outer bleed, clear of the cut
    far = start + step * bleed
    far = max(far, limit) if step < 0 else min(far, limit)
    return (round(far, 4), round(near, 4)) if (far - near) * step >= MIN_GUIDE else None


MIN_MARK = 1.5  # mm: a crop mark shorter than this is not drawn in the margin
BLEED_GUIDE_CLEAR = 0.3  # mm: a guide drawn in the bleed stops this far short of the cut
MIN_GUIDE = 0.5  # mm: the shortest guide worth drawing in the bleed


def pack_grid(items: list[Item], paper: Box, grid: Grid, geometry: Geometry,
              with_backs: bool, flip: str = "long", offset: tuple[float, float] = (0, 0),
              fold: bool = False) -> list[Sheet]:
    """Items of one size fill the grid sheet after sheet. After each fronts sheet comes its
    backs sheet, every back behind its own front (mirrored across the flip edge, shifted by
    the printer's offset); on a gutter-fold sheet the backs share the page, mirrored across
    the fold."""
    sheets = []
    for start in range(0, len(items), grid.per_sheet):
        chunk = items[start:start + grid.per_sheet]  # in reading order, as _place gives slots
        front_slots = _place(grid, geometry, {(i % grid.cols, i // grid.cols): (item.front,
                                              item.marks) for i, item in enumerate(chunk)})
        back_slots = [_behind(slot, item.back, paper, "long" if fold else flip,
                              (0, 0) if fold else offset)
                      for slot, item in zip(front_slots, chunk, strict=True)
                      if item.back is not None]
        if fold:
            sheets.append(Sheet(paper, "fold", front_slots + back_slots))
            continue
        sheets.append(Sheet(paper, "front", front_slots))
        if with_backs and back_slots:
            sheets.append(Sheet(paper, "back", back_slots))
    return sheets


def _behind(slot: Slot, back: Piece, paper: Box, flip: str,
            offset: tuple[float, float]) -> Slot:
    """The back of a front slot: where it lands behind it once the sheet is turned over its
    long or short edge, moved by the printer's offset."""
    if flip == "short":
        x, y = slot.x, paper.height - slot.y - slot.height
        turn = slot.turn if slot.turn % 180 else (slot.turn + 180) % 360
        bleeds = (slot.bleed_left, slot.bleed_bottom, slot.bleed_right, slot.bleed_top)
    else:
        x, y = paper.width - slot.x - slot.width, slot.y
        turn = (slot.turn + 180) % 360 if slot.turn % 180 else slot.turn
        bleeds = (slot.bleed_right, slot.bleed_top, slot.bleed_left, slot.bleed_bottom)
    return Slot(back, round(x + offset[0], 4), round(y + offset[1], 4), slot.width,
                slot.height, *bleeds, turn=turn, marks=slot.marks)


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
            bleed_right=seam if (col + 1, row) in cells else bleed,
            bleed_bottom=seam if (col, row + 1) in cells else bleed,
            turn=turn, marks=marks,
        ))
    return slots


@dataclass
class _Block:
    """Single-sided items of one size as a little grid, to be packed on a page."""

    items: list[Item]
    cols: int
    rows: int
    size: Box  # of one item, upright

    def extent(self, turned: bool) -> Box:
        """The block's cut-line box, upright or turned a quarter."""
        width, height = self.cols * self.size.width, self.rows * self.size.height
        return Box(height, width) if turned else Box(width, height)


def pack_single(items: list[Item], paper: Box, room: Box, geometry: Geometry) -> list[Sheet]:
    """Single-sided items packed on as few pages as a simple MaxRects packer finds: items of
    one size sit in blocks sharing cut lines, blocks are turned a quarter where that makes
    them fit, and `gutter` mm lie between blocks. Each page's blocks are centred on it."""
    blocks: list[_Block] = []
    for size, group in _by_size(items):
        per_page = {turned: math.prod(_grid_fit(size, room, turned)) for turned in (False, True)}
        turned = max(per_page, key=lambda t: per_page[t])  # upright when it ties
        if not per_page[turned]:
            raise ValueError(f"a {size.width}×{size.height} mm piece does not fit the paper")
        cols, rows = _grid_fit(size, room, turned)
        if turned:
            cols, rows = rows, cols
        for start in range(0, len(group), cols * rows):
            chunk = group[start:start + cols * rows]
            used_rows = -(-len(chunk) // cols)
            blocks.append(_Block(chunk, min(cols, len(chunk)), used_rows, size))
    blocks.sort(key=lambda b: -(b.extent(False).width * b.extent(False).height))
    gutter = geometry.gutter
    pages: list[_Page] = []
    for block in blocks:
        for page in [*pages, None]:
            if page is None:
                page = _Page(Box(room.width + gutter, room.height + gutter))
                pages.append(page)
            if page.place(block, gutter):
                break
        else:  # pragma: no cover - a fresh page always takes a block that fits the room
            raise ValueError("a block does not fit an empty page")
    return [page.sheet(paper, geometry) for page in pages]


def _by_size(items: list[Item]) -> list[tuple[Box, list[Item]]]:
    """Items grouped by size, in the order each size first comes."""
    groups: dict[Box, list[Item]] = {}
    for item in items:
        groups.setdefault(item.size, []).append(item)
    return list(groups.items())


def _grid_fit(size: Box, room: Box, turned: bool) -> tuple[int, int]:
    """How many items of `size` fit across and down `room`, as seen upright when turned."""
    width, height = (size.height, size.width) if turned else (size.width, size.height)
    return int(room.width // width), int(room.height // height)


@dataclass
class _Page:
    """A page being packed: its free rectangles (MaxRects) and what is on it."""

    room: Box
    placed: list[tuple[_Block, float, float, bool]] = field(default_factory=list)
    free: list[tuple[float, float, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.free = [(0, 0, self.room.width, self.room.height)]

    def place(self, block: _Block, gutter: float) -> bool:
        """Put a block where it fits best (shortest side left over), upright first."""
        best = None
        for turned in (False, True):
            extent = block.extent(turned)
            width, height = extent.width + gutter, extent.height + gutter
            for x, y, free_w, free_h in self.free:
                if width <= free_w + 1e-6 and height <= free_h + 1e-6:
                    score = (min(free_w - width, free_h - height), y, x, turned)
                    if best is None or score < best[0]:
                        best = (score, x, y, turned, width, height)
        if best is None:
            return False
        _, x, y, turned, width, height = best
        self.placed.append((block, x, y, turned))
        self.free = _split_free(self.free, (x, y, width, height))
        return True

    def sheet(self, paper: Box, geometry: Geometry) -> Sheet:
        """The page's blocks as slots, the whole arrangement centred on the paper."""
        used_w = max(x + b.extent(t).width for b, x, _, t in self.placed)
        used_h = max(y + b.extent(t).height for b, _, y, t in self.placed)
        shift_x, shift_y = (paper.width - used_w) / 2, (paper.height - used_h) / 2
        slots: list[Slot] = []
        for block, x, y, turned in self.placed:
            card = Box(block.size.height, block.size.width) if turned else block.size
            cols, rows = (block.rows, block.cols) if turned else (block.cols, block.rows)
            grid = Grid(paper, card, cols, rows, 0, 0)
            cells = {(index % cols, index // cols): (item.front, item.marks)
                     for index, item in enumerate(block.items)}  # in reading order
            slots += _place(grid, geometry, cells, (x + shift_x, y + shift_y),
                            90 if turned else 0)
        return Sheet(paper, "single", slots)


def _split_free(free: list[tuple[float, float, float, float]],
                used: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
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


def _contains(outer: tuple[float, float, float, float],
              inner: tuple[float, float, float, float]) -> bool:
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
    sheet, room, whole = geometry.papers[paper], geometry.room(paper), tiling.whole
    scale = round(min(room.width / whole.width, room.height / whole.height, 1), 4)
    shown = Box(round(whole.width * scale, 4), round(whole.height * scale, 4))
    left = round((sheet.width - shown.width) / 2, 4)
    top = round((sheet.height - shown.height) / 2, 4)
    return [Sheet(sheet, "overview", [Slot(Piece(face, scale=scale), left, top, shown.width,
                                           shown.height, 0, 0, 0, 0, marks=False)])
            for face in faces]


def marks_svg(sheet: Sheet, geometry: Geometry) -> Markup:
    """The crop marks of a sheet as one inline SVG covering the page, each on a white halo so
    a guide in a dark bleed shows too; a gutter-fold sheet's fold as a dashed line."""
    paper = sheet.paper
    lines = "".join(
        f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}"/>'
        for x1, y1, x2, y2 in sheet.marks(geometry)
    )
    fold = ""
    if sheet.fold:
        middle, edge = paper.width / 2, geometry.printable
        fold = (f'<line class="fold" x1="{middle:.3f}" y1="{edge:.3f}" x2="{middle:.3f}" '
                f'y2="{paper.height - edge:.3f}" stroke-dasharray="3 2"/>')
    width = geometry.mark_width
    return Markup(
        f'<svg class="marks" xmlns="http://www.w3.org/2000/svg" '
        f'width="{paper.width}mm" height="{paper.height}mm" '
        f'viewBox="0 0 {paper.width} {paper.height}" fill="none">'
        f'<g stroke="#ffffff" stroke-width="{3 * width:.3f}">{lines}</g>'
        f'<g stroke="{geometry.mark_color}" stroke-width="{width}">{lines}{fold}</g></svg>'
    )


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
