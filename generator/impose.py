"""Stage 4, impose: place rendered faces on printable sheets, backs mirrored for duplex."""

from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup

from .geometry import Geometry, Grid
from .render import Face


@dataclass(frozen=True)
class Slot:
    """A card placed on a sheet: its cut-line box and the outer edges that get bleed."""

    face: Face
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

    def marks(self, geometry: Geometry) -> list[tuple[float, float, float, float]]:
        """Crop marks as line segments (x1, y1, x2, y2), in the margins outside the bleed."""
        if not self.slots:
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


def _place(grid: Grid, geometry: Geometry, cells: dict[tuple[int, int], Face]) -> list[Slot]:
    """Turn occupied grid cells into slots; bleed goes where no neighbour card sits.

    Where a neighbour sits to the right or below (painted later), the card reaches a hair
    under it, so no anti-aliased seam shows between two cards of the same colour.
    """
    slots = []
    bleed, seam = geometry.bleed, geometry.seam
    for (col, row), face in sorted(cells.items(), key=lambda item: (item[0][1], item[0][0])):
        x, y = grid.slot_origin(col, row)
        slots.append(Slot(
            face=face, col=col, row=row, x=x, y=y,
            bleed_left=0 if (col - 1, row) in cells else bleed,
            bleed_right=seam if (col + 1, row) in cells else bleed,
            bleed_top=0 if (col, row - 1) in cells else bleed,
            bleed_bottom=seam if (col, row + 1) in cells else bleed,
        ))
    return slots


def impose_deck(
    deck_id: str,
    fronts: list[Face],
    backs: list[Face | None],
    grid: Grid,
    geometry: Geometry,
    with_backs: bool = True,
) -> list[Sheet]:
    """Lay a deck's faces out sheet by sheet; after each fronts sheet comes its backs sheet."""
    sheets = []
    for start in range(0, len(fronts), grid.per_sheet):
        chunk = range(start, min(start + grid.per_sheet, len(fronts)))
        front_cells = {}
        back_cells = {}
        for offset, index in enumerate(chunk):
            col, row = offset % grid.cols, offset // grid.cols
            front_cells[(col, row)] = fronts[index]
            if backs[index] is not None:
                back_cells[(grid.cols - 1 - col, row)] = backs[index]
        sheets.append(Sheet(grid, "front", deck_id, _place(grid, geometry, front_cells)))
        if with_backs and back_cells:
            sheets.append(Sheet(grid, "back", deck_id, _place(grid, geometry, back_cells)))
    return sheets


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
