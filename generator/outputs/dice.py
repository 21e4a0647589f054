"""Dice: printable fold-and-glue cube nets, drawn with reportlab, one PDF of every die."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from ..pack.schema import DieSpec
from ..pdf.assemble import finish
from ..pipeline.execute import Assembled
from ..plan.geometry import Box
from .base import Document, File, OutputKind

if TYPE_CHECKING:  # reportlab is loaded only for packs with dice
    from reportlab.lib import colors
    from reportlab.pdfgen import canvas

MM = 72 / 25.4  # PDF points per millimetre
GAP = 3.0  # mm between neighbouring nets
TAB_DEPTH = 0.35  # glue-tab depth as a fraction of the edge
PIP_DIAMETER = 0.2  # pip diameter as a fraction of the edge
TAB_FILL = "#d9d9d9"
CUT_WIDTH = 0.6  # points
FOLD_WIDTH = 0.4  # points
FOLD_DASH = (3, 2)  # points on, points off

# The net is the classic cross on a 3-column x 4-row grid of edge-sized cells (col, row; row 0
# at the top).  The spine is column 1; row 1 has one face either side of it:
#
#          [1]            faces[1]  top     (folds back)
#     [2]  [0]  [3]       faces[2]  left    faces[0] front    faces[3] right
#          [4]            faces[4]  bottom  (folds back)
#          [5]            faces[5]  back    (folds back and up behind faces[0])
#
# Folded, cells two apart in the spine are opposite and the two arms are opposite, so the pairs
# (faces[0], faces[5]), (faces[1], faces[4]) and (faces[2], faces[3]) end up on opposite sides:
# with the default faces [1..6] opposite faces sum to 7, and 1, 2, 3 run anticlockwise around
# their shared corner, as on ordinary Western dice.
NET_CELLS: tuple[tuple[int, int, int], ...] = (  # (col, row, index into DieSpec.faces)
    (1, 1, 0),
    (1, 0, 1),
    (0, 1, 2),
    (2, 1, 3),
    (1, 2, 4),
    (1, 3, 5),
)
NET_COLS, NET_ROWS = 3, 4

# Glue tabs: (col, row, side) of the cell whose outline edge carries a tab.  The net outline has
# 14 edges that meet in 7 seams; each seam gets exactly one tab:
#   top.left   -> left.top       top.right  -> right.top      back.bottom -> top.top
#   bottom.left -> left.bottom   bottom.right -> right.bottom
#   back.left  -> left.left      back.right -> right.right
# All but back.bottom sit in the empty corners of the 3 x 4 grid; back.bottom hangs below it.
NET_TABS: tuple[tuple[int, int, str], ...] = (
    (1, 0, "left"),
    (1, 0, "right"),
    (1, 3, "bottom"),
    (1, 2, "left"),
    (1, 2, "right"),
    (1, 3, "left"),
    (1, 3, "right"),
)

# Pip positions on a 3 x 3 grid (col, row; row 0 at the top) for 0..9 pips.
_C, _TL, _TR, _BL, _BR, _ML, _MR, _TM, _BM = (
    (1, 1), (0, 0), (2, 0), (0, 2), (2, 2), (0, 1), (2, 1), (1, 0), (1, 2),
)
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: (_C,),
    2: (_TR, _BL),
    3: (_TR, _C, _BL),
    4: (_TL, _TR, _BL, _BR),
    5: (_TL, _TR, _C, _BL, _BR),
    6: (_TL, _TR, _ML, _MR, _BL, _BR),
    7: (_TL, _TR, _ML, _C, _MR, _BL, _BR),
    8: (_TL, _TM, _TR, _ML, _MR, _BL, _BM, _BR),
    9: (_TL, _TM, _TR, _ML, _C, _MR, _BL, _BM, _BR),
}
PIP_OFFSETS = (0.25, 0.5, 0.75)  # pip-grid centres as fractions of the edge

# CSS names reportlab lacks or spells differently.
_CSS_NAMES = {"lightgray": "#d3d3d3", "rebeccapurple": "#663399", "darkseagreen": "#8fbc8f"}

_SIDES = ("top", "right", "bottom", "left")
_NEIGHBOUR = {"top": (0, -1), "right": (1, 0), "bottom": (0, 1), "left": (-1, 0)}


def net_faces(edge: float) -> list[tuple[float, float, int]]:
    """Top-left corner (x, y in mm from the net's top-left, y down) and face index of each cell."""
    return [(col * edge, row * edge, face) for col, row, face in NET_CELLS]


def net_size(edge: float) -> Box:
    """The net's bounding box in mm, glue tabs included."""
    depth = TAB_DEPTH * edge
    grow = {side: 0.0 for side in _SIDES}
    for col, row, side in NET_TABS:
        if side == "left" and col == 0:
            grow["left"] = depth
        elif side == "right" and col == NET_COLS - 1:
            grow["right"] = depth
        elif side == "top" and row == 0:
            grow["top"] = depth
        elif side == "bottom" and row == NET_ROWS - 1:
            grow["bottom"] = depth
    return Box(NET_COLS * edge + grow["left"] + grow["right"],
               NET_ROWS * edge + grow["top"] + grow["bottom"])


def _net_offset(edge: float) -> tuple[float, float]:
    """Where the grid's top-left sits inside the net's bounding box (tabs may stick out)."""
    depth = TAB_DEPTH * edge
    left = any(side == "left" and col == 0 for col, _, side in NET_TABS)
    top = any(side == "top" and row == 0 for _, row, side in NET_TABS)
    return (depth if left else 0.0, depth if top else 0.0)


def _color(value: str) -> colors.Color:
    """A reportlab colour from a CSS hex string (#rgb, #rrggbb, #rrggbbaa) or colour name."""
    from reportlab.lib import colors

    if value.startswith("#"):
        digits = value[1:]
        if len(digits) == 3:
            return colors.HexColor("#" + "".join(d * 2 for d in digits))
        if len(digits) == 6:
            return colors.HexColor("#" + digits)
        if len(digits) == 8:
            return colors.HexColor("#" + digits, hasAlpha=True)
        raise ValueError(f"colour {value!r} must have 3, 6 or 8 hex digits")
    name = value.lower()
    try:
        return colors.toColor(_CSS_NAMES.get(name, name))
    except ValueError:
        raise ValueError(f"unknown colour name {value!r}") from None


def _edge_segment(x: float, y: float, edge: float, side: str) -> tuple[float, ...]:
    """The two end points (mm, y down) of one side of the cell with top-left (x, y)."""
    return {
        "top": (x, y, x + edge, y),
        "right": (x + edge, y, x + edge, y + edge),
        "bottom": (x, y + edge, x + edge, y + edge),
        "left": (x, y, x, y + edge),
    }[side]


def _tab_points(x: float, y: float, edge: float, side: str) -> list[tuple[float, float]]:
    """The trapezoid (mm, y down) of a glue tab on one side of a cell: base first, 45 deg sides."""
    d = TAB_DEPTH * edge
    x0, y0, x1, y1 = _edge_segment(x, y, edge, side)
    dx, dy = _NEIGHBOUR[side]  # outward normal
    ux, uy = (x1 - x0) / edge, (y1 - y0) / edge  # along the edge
    return [
        (x0, y0),
        (x1, y1),
        (x1 + dx * d - ux * d, y1 + dy * d - uy * d),
        (x0 + dx * d + ux * d, y0 + dy * d + uy * d),
    ]


class _Page:
    """A reportlab canvas addressed in mm from the page's top-left corner."""

    def __init__(self, pdf: canvas.Canvas, paper: Box) -> None:
        """Wrap `pdf`, whose page is `paper`."""
        self.pdf = pdf
        self.height = paper.height

    def pt(self, x: float, y: float) -> tuple[float, float]:
        """Page point of (x, y) mm from the top-left."""
        return x * MM, (self.height - y) * MM

    def line(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Stroke a straight line."""
        self.pdf.line(*self.pt(x0, y0), *self.pt(x1, y1))

    def polygon(self, points: list[tuple[float, float]], fill: bool, stroke: bool) -> None:
        """Fill and/or stroke a closed polygon."""
        path = self.pdf.beginPath()
        path.moveTo(*self.pt(*points[0]))
        for point in points[1:]:
            path.lineTo(*self.pt(*point))
        path.close()
        self.pdf.drawPath(path, fill=int(fill), stroke=int(stroke))


def _draw_net(page: _Page, die: DieSpec, left: float, top: float) -> None:
    """Draw one net of `die` with its bounding box's top-left at (left, top) mm."""
    pdf, edge = page.pdf, die.edge
    face_color, ink = _color(die.color), _color(die.ink)
    ox, oy = _net_offset(edge)
    gx, gy = left + ox, top + oy
    occupied = {(col, row) for col, row, _ in NET_CELLS}
    tabs = {(col, row, side) for col, row, side in NET_TABS}

    tab_shapes = [_tab_points(gx + c * edge, gy + r * edge, edge, s) for c, r, s in NET_TABS]
    pdf.setFillColor(_color(TAB_FILL))
    for shape in tab_shapes:
        page.polygon(shape, fill=True, stroke=False)

    pdf.setFillColor(face_color)
    for x, y, _ in net_faces(edge):
        page.polygon([(gx + x, gy + y), (gx + x + edge, gy + y), (gx + x + edge, gy + y + edge),
                      (gx + x, gy + y + edge)], fill=True, stroke=False)

    pdf.setFillColor(ink)
    radius = PIP_DIAMETER * edge / 2
    for x, y, face in net_faces(edge):
        for pc, pr in PIPS[die.faces[face]]:
            cx, cy = page.pt(gx + x + PIP_OFFSETS[pc] * edge, gy + y + PIP_OFFSETS[pr] * edge)
            pdf.circle(cx, cy, radius * MM, stroke=0, fill=1)

    pdf.setStrokeColor(ink)
    pdf.setLineCap(0)
    pdf.setLineJoin(0)
    folds: list[tuple[float, ...]] = []
    cuts: list[tuple[float, ...]] = []
    for col, row, _ in NET_CELLS:
        x, y = gx + col * edge, gy + row * edge
        for side in _SIDES:
            dc, dr = _NEIGHBOUR[side]
            segment = _edge_segment(x, y, edge, side)
            if (col + dc, row + dr) in occupied:
                if side in ("right", "bottom"):  # each shared edge once
                    folds.append(segment)
            elif (col, row, side) in tabs:
                folds.append(segment)
            else:
                cuts.append(segment)
    for shape in tab_shapes:  # the three outer sides of each tab
        cuts.extend((*shape[i], *shape[i + 1]) for i in range(1, 3))
        cuts.append((*shape[3], *shape[0]))

    pdf.setLineWidth(FOLD_WIDTH)
    pdf.setDash(list(FOLD_DASH), 0)
    for segment in folds:
        page.line(*segment)
    pdf.setLineWidth(CUT_WIDTH)
    pdf.setDash([], 0)
    for segment in cuts:
        page.line(*segment)


def dice_pdf(
    dice: list[DieSpec], paper: Box, margin: float = 10, title: str = ""
) -> tuple[bytes, int]:
    """Draw every die's nets (count of each) on `paper` pages; return PDF bytes and page count."""
    room_w, room_h = paper.width - 2 * margin, paper.height - 2 * margin
    eps = 1e-9
    for die in dice:
        size = net_size(die.edge)
        if size.width > room_w + eps or size.height > room_h + eps:
            raise ValueError(f"die '{die.id}' with edge {die.edge} mm does not fit on the paper")

    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=(paper.width * MM, paper.height * MM), invariant=1,
                        pageCompression=1)
    if title:
        pdf.setTitle(title)
    page = _Page(pdf, paper)
    pages = 1
    x = y = margin  # next free spot
    row_height = 0.0
    for die in dice:
        size = net_size(die.edge)
        for _ in range(die.count):
            if x > margin and x + size.width > margin + room_w + eps:  # next row
                x, y, row_height = margin, y + row_height + GAP, 0.0
            if y > margin and y + size.height > margin + room_h + eps:  # next page
                pdf.showPage()
                pages += 1
                x = y = margin
                row_height = 0.0
            _draw_net(page, die, x, y)
            x += size.width + GAP
            row_height = max(row_height, size.height)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue(), pages


class DiceOutput(OutputKind):
    """The game's dice, `count` nets of each, drawn rather than laid out: no parts."""

    name = "dice"

    def plan(self) -> list[Document]:
        """One document of no parts, when the game has dice."""
        return [Document(f"dice-{self.job.paper}.pdf", [])] if self.job.game.spec.dice else []

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The nets drawn on the paper, single-sided, printing at their true size."""
        job = self.job
        spec = job.game.spec
        data, pages = dice_pdf(spec.dice, job.geometry.papers[job.paper],
                               margin=job.geometry.min_margin,
                               title=f"{spec.title} {spec.version} — dice")
        decks = {die.id: {"faces": die.count, "backs": 0} for die in spec.dice}
        return [File(document.file, finish(data, duplex=None),
                     self.entry(document.file, pages, decks))]
