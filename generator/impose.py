"""Stage 3b, impose: place rendered faces on printable sheets, backs mirrored for duplex."""

from __future__ import annotations

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
class Slot:
    """A card placed on a sheet: its cut-line box and the outer edges that get bleed."""

    piece: Piece
    col: int
    row: int
    x: float
    y: float
    bleed_left: float
    bleed_top: float
    bleed_right: float
    bleed_bottom: float


@dataclass
class Sheet:
    """One printed page: fronts or backs of one deck."""

    grid: Grid
    side: str
    deck_id: str
    slots: list[Slot] = field(default_factory=list)
    crop_marks: bool = True

    def marks(self, geometry: Geometry) -> list[tuple[float, float, float, float]]:
        """Crop marks as line segments (x1, y1, x2, y2), in the margins outside the bleed."""
        if not (self.slots and self.crop_marks):
            return []
        xs = sorted({s.x for s in self.slots} | {s.x + self.grid.card.width for s in self.slots})
        ys = sorted({s.y for s in self.slots} | {s.y + self.grid.card.height for s in self.slots})
        left, right, top, bottom = xs[0], xs[-1], ys[0], ys[-1]
        offset = geometry.bleed + geometry.mark_gap
        paper = self.grid.paper
        lines = []
        for x in xs:
            start, end = top - offset, max(top - offset - geometry.mark_length, 0)
            lines.append((x, start, x, end))
            start, end = bottom + offset, min(bottom + offset + geometry.mark_length, paper.height)
            lines.append((x, start, x, end))
        for y in ys:
            start, end = left - offset, max(left - offset - geometry.mark_length, 0)
            lines.append((start, y, end, y))
            start, end = right + offset, min(right + offset + geometry.mark_length, paper.width)
            lines.append((start, y, end, y))
        return [line for line in lines if abs(line[0] - line[2]) + abs(line[1] - line[3]) > 0.5]


def _place(grid: Grid, geometry: Geometry, cells: dict[tuple[int, int], Piece]) -> list[Slot]:
    """Turn occupied grid cells into slots; bleed goes where no neighbour card sits.

    Where a neighbour sits to the right or below (painted later), the card reaches a hair
    under it, so no anti-aliased seam shows between two cards of the same colour.
    """
    slots = []
    bleed, seam = geometry.bleed, geometry.seam
    for (col, row), piece in sorted(cells.items(), key=lambda item: (item[0][1], item[0][0])):
        x, y = grid.slot_origin(col, row)
        slots.append(Slot(
            piece=piece, col=col, row=row, x=x, y=y,
            bleed_left=0 if (col - 1, row) in cells else bleed,
            bleed_right=seam if (col + 1, row) in cells else bleed,
            bleed_top=0 if (col, row - 1) in cells else bleed,
            bleed_bottom=seam if (col, row + 1) in cells else bleed,
        ))
    return slots


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


def impose_deck(
    deck_id: str,
    fronts: list[Face],
    backs: list[Face | None],
    grid: Grid,
    geometry: Geometry,
    with_backs: bool = True,
    tiling: Tiling | None = None,
    crop_marks: bool = True,
) -> list[Sheet]:
    """Lay a deck's faces out sheet by sheet; after each fronts sheet comes its backs sheet.

    A face too big for the paper is printed as the pieces of its tiling, without a back.
    """
    if tiling is not None and tiling.count > 1:
        pieces = [p for face in fronts for p in tile(face, tiling, geometry.glue_label)]
        backs = [None] * len(pieces)
    else:
        pieces = [Piece(face) for face in fronts]
    sheets = []
    for start in range(0, len(pieces), grid.per_sheet):
        chunk = range(start, min(start + grid.per_sheet, len(pieces)))
        front_cells = {}
        back_cells = {}
        for offset, index in enumerate(chunk):
            col, row = offset % grid.cols, offset // grid.cols
            front_cells[(col, row)] = pieces[index]
            back = backs[index]
            if back is not None:
                back_cells[(grid.cols - 1 - col, row)] = Piece(back)
        sheets.append(Sheet(grid, "front", deck_id, _place(grid, geometry, front_cells),
                            crop_marks))
        if with_backs and back_cells:
            sheets.append(Sheet(grid, "back", deck_id, _place(grid, geometry, back_cells),
                                crop_marks))
    return sheets


def overview(deck_id: str, faces: list[Face], tiling: Tiling, geometry: Geometry,
             paper: str) -> list[Sheet]:
    """Each tiled face once more, whole and scaled to fit one page, for seeing it assembled."""
    sheet = geometry.papers[paper]
    room = Box(sheet.width - 2 * geometry.min_margin, sheet.height - 2 * geometry.min_margin)
    whole = tiling.whole
    scale = round(min(room.width / whole.width, room.height / whole.height, 1), 4)
    shown = Box(round(whole.width * scale, 4), round(whole.height * scale, 4))
    grid = Grid(sheet, shown, 1, 1, round((sheet.width - shown.width) / 2, 4),
                round((sheet.height - shown.height) / 2, 4))
    return [Sheet(grid, "overview", deck_id, [Slot(Piece(face, scale=scale), 0, 0, grid.left,
                                                   grid.top, 0, 0, 0, 0)], crop_marks=False)
            for face in faces]


def marks_svg(sheet: Sheet, geometry: Geometry) -> Markup:
    """The crop marks of a sheet as one inline SVG covering the page."""
    paper = sheet.grid.paper
    lines = "".join(
        f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}"/>'
        for x1, y1, x2, y2 in sheet.marks(geometry)
    )
    return Markup(
        f'<svg class="marks" xmlns="http://www.w3.org/2000/svg" '
        f'width="{paper.width}mm" height="{paper.height}mm" '
        f'viewBox="0 0 {paper.width} {paper.height}" stroke="{geometry.mark_color}" '
        f'stroke-width="{geometry.mark_width}">{lines}</svg>'
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
