"""Print geometry as data: papers, card sizes, bleed and the sheet grid, all in mm."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import TEMPLATES_DIR
from ..data import read_data_yaml
from .shapes import RECT, Shape, builtin_shape

MIN_DPI = 300  # raster images print at least this sharp


@dataclass(frozen=True)
class Box:
    """A width and height in millimetres."""

    width: float
    height: float


@dataclass(frozen=True)
class Grid:
    """Where cards of one size sit on one paper: columns, rows and the cut-line origin."""

    paper: Box
    card: Box
    cols: int
    rows: int
    left: float
    top: float

    @property
    def per_sheet(self) -> int:
        """Cards on one sheet."""
        return self.cols * self.rows

    def slot_origin(self, col: int, row: int) -> tuple[float, float]:
        """Top-left corner of the cut line of slot (col, row)."""
        return self.left + col * self.card.width, self.top + row * self.card.height


@dataclass(frozen=True)
class Tiling:
    """How a component too big for the paper is cut into overlapping pieces, glued back."""

    whole: Box
    piece: Box
    cols: int
    rows: int
    overlap: float

    @property
    def count(self) -> int:
        """Pieces per component."""
        return self.cols * self.rows

    def origin(self, col: int, row: int) -> tuple[float, float]:
        """Where piece (col, row) starts inside the whole component."""
        return (col * (self.piece.width - self.overlap), row * (self.piece.height - self.overlap))


def _split(length: float, room: float, overlap: float) -> tuple[int, float]:
    """Pieces needed along one axis, and their equal length, each sharing `overlap` mm."""
    if length <= room:
        return 1, length
    count = math.ceil((length - overlap) / (room - overlap))
    return count, (length + (count - 1) * overlap) / count


@dataclass(frozen=True)
class Geometry:
    """Everything print.yaml says."""

    papers: dict[str, Box]
    sizes: dict[str, Box]
    bleed: float
    safe: float
    min_margin: float
    seam: float
    mark_gap: float
    mark_length: float
    mark_width: float
    mark_color: str
    overlap: float = 10
    rulebook_margin: float = 18
    booklet_margin: float = 12
    gutter: float = 10
    printable: float = 5
    guide_printable: float = 3
    guide_length: float = 3
    fold_gutter: float = 8
    card_thickness: float = 0.3  # a tuck box's default mm per card
    box_clearance: float = 1  # and the mm added to the cards' size and stack
    shapes: dict[str, Shape] = field(default_factory=dict)  # sizes that are not rectangles

    def shape(self, size: str, own: Shape | None = None) -> Shape:
        """A piece's shape: its deck's own, else its size's, else a rectangle."""
        return own if own is not None else self.shapes.get(size, RECT)

    def room(self, paper: str) -> Box:
        """The part of the paper cut lines may use: all of it but the margin on every side."""
        sheet = self.papers[paper]
        return Box(sheet.width - 2 * self.min_margin, sheet.height - 2 * self.min_margin)

    def grid(self, paper: str, card: Box | str, half: bool = False) -> Grid:
        """Fit as many cards (a Box or a size name) on `paper` as the margin allows, centred;
        with `half`, in the left half only, clear of a fold down the middle."""
        sheet = self.papers[paper]
        card = self.sizes[card] if isinstance(card, str) else card
        width = sheet.width / 2 - self.fold_gutter / 2 - self.min_margin if half else \
            sheet.width - 2 * self.min_margin
        cols = int(width // card.width)
        rows = int((sheet.height - 2 * self.min_margin) // card.height)
        if cols < 1 or rows < 1:
            raise ValueError(f"a {card.width}×{card.height} mm card does not fit on '{paper}'")
        left = sheet.width / 2 - self.fold_gutter / 2 - cols * card.width if half else \
            (sheet.width - cols * card.width) / 2
        top = (sheet.height - rows * card.height) / 2
        return Grid(sheet, card, cols, rows, round(left, 4), round(top, 4))

    def tiling(self, paper: str, size: str) -> Tiling:
        """Cut a size into the fewest equal pieces that each fit on the paper, upright or
        turned a quarter (a 250 mm track fits whole across A4 turned)."""
        room, whole = self.room(paper), self.sizes[size]
        if whole.width <= room.width and whole.height <= room.height:
            return Tiling(whole, whole, 1, 1, 0)
        tilings = []
        for room_x, room_y in ((room.width, room.height), (room.height, room.width)):
            cols, width = _split(whole.width, room_x, self.overlap)
            rows, height = _split(whole.height, room_y, self.overlap)
            tilings.append(Tiling(whole, Box(round(width, 4), round(height, 4)), cols, rows,
                                  self.overlap if cols * rows > 1 else 0))
        return min(tilings, key=lambda tiling: tiling.count)  # upright when it ties

    def half(self, paper: str) -> Box:
        """A booklet page: the paper folded in half (A4 gives 148.5 x 210 mm)."""
        sheet = self.papers[paper]
        return Box(round(sheet.height / 2, 4), sheet.width)

    def with_sizes(self, sizes: dict[str, Box], shapes: dict[str, Shape] | None = None
                   ) -> Geometry:
        """This geometry plus a game pack's own sizes and their shapes (a pack's size named
        like a shared one is a rectangle unless it gives a shape)."""
        if not sizes:
            return self
        kept = {key: shape for key, shape in self.shapes.items() if key not in sizes}
        return replace(self, sizes={**self.sizes, **sizes}, shapes={**kept, **(shapes or {})})


def load_geometry(path: Path = TEMPLATES_DIR / "print.yaml") -> Geometry:
    """Read print.yaml."""
    data = read_data_yaml(path)
    marks = data["marks"]
    sizes = data["sizes"]
    return Geometry(
        papers={k: Box(**v) for k, v in data["papers"].items()},
        sizes={k: Box(v["width"], v["height"]) for k, v in sizes.items()},
        shapes={k: builtin_shape(v.get("shape"), v.get("corners")) for k, v in sizes.items()
                if v.get("shape") is not None or v.get("corners") is not None},
        bleed=float(data["bleed"]),
        safe=float(data["safe"]),
        min_margin=float(data["sheet"]["min_margin"]),
        seam=float(data["sheet"]["seam"]),
        mark_gap=float(marks["gap"]),
        mark_length=float(marks["length"]),
        mark_width=float(marks["width"]),
        mark_color=str(marks["color"]),
        overlap=float(data["tiling"]["overlap"]),
        rulebook_margin=float(data["rulebook"]["margin"]),
        booklet_margin=float(data["rulebook"]["booklet_margin"]),
        gutter=float(data["sheet"]["gutter"]),
        printable=float(marks["printable"]),
        guide_printable=float(marks["guide_printable"]),
        guide_length=float(marks["guide_length"]),
        fold_gutter=float(data["sheet"]["fold_gutter"]),
        card_thickness=float(data["box"]["card_thickness"]),
        box_clearance=float(data["box"]["clearance"]),
    )
