"""Print geometry as data: papers, card sizes, bleed and the sheet grid, all in mm."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from . import TEMPLATES_DIR


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

    def grid(self, paper: str, size: str) -> Grid:
        """Fit as many cards of `size` on `paper` as the minimum margin allows, centred."""
        sheet, card = self.papers[paper], self.sizes[size]
        cols = int((sheet.width - 2 * self.min_margin) // card.width)
        rows = int((sheet.height - 2 * self.min_margin) // card.height)
        if cols < 1 or rows < 1:
            raise ValueError(f"size '{size}' does not fit on paper '{paper}'")
        left = (sheet.width - cols * card.width) / 2
        top = (sheet.height - rows * card.height) / 2
        return Grid(sheet, card, cols, rows, round(left, 4), round(top, 4))


def load_geometry(path: Path = TEMPLATES_DIR / "print.yaml") -> Geometry:
    """Read print.yaml."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    marks = data["marks"]
    return Geometry(
        papers={k: Box(**v) for k, v in data["papers"].items()},
        sizes={k: Box(**v) for k, v in data["sizes"].items()},
        bleed=float(data["bleed"]),
        safe=float(data["safe"]),
        min_margin=float(data["sheet"]["min_margin"]),
        seam=float(data["sheet"]["seam"]),
        mark_gap=float(marks["gap"]),
        mark_length=float(marks["length"]),
        mark_width=float(marks["width"]),
        mark_color=str(marks["color"]),
    )
