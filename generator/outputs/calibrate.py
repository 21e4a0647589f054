"""`pnp calibrate`: one duplex test sheet whose back scales read the printer's back offset."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from .. import TEMPLATES_DIR
from ..check.findings import PnpError
from ..pipeline.owned import open_root
from ..plan.geometry import Box
from ..text.language import calibration_words, direction, fonts_missing

SCALE = 6  # mm either side of zero on each back scale
STATION = 60  # mm from the paper's edge (below the instructions) to the outer stations
SIDE = 35  # mm from the left and right edges to the stations that read Y
LINE = 18  # mm: the length of each line on the front


@dataclass(frozen=True)
class Scale:
    """A ruler on the back: where its zero sits, which way it reads, and its ticks."""

    x: float
    y: float
    across: bool  # True: reads along x (the X offset); False: along y

    def ticks(self) -> list[tuple[float, float, float, float, str]]:
        """Each tick as a line (x1, y1, x2, y2) and its label ('' for none)."""
        out = []
        for half in range(-2 * SCALE, 2 * SCALE + 1):
            value = half / 2
            length = 3.2 if half % 4 == 0 else 2.2 if half % 2 == 0 else 1.4
            label = f"{value:+g}".replace("+0", "0") if half % 4 == 0 else ""
            if self.across:
                at = self.x + value
                out.append((at, self.y - length, at, self.y + length, label))
            else:
                at = self.y + value
                out.append((self.x - length, at, self.x + length, at, label))
        return out


def stations(paper: Box) -> list[tuple[float, float, float, float]]:
    """The front's lines (x1, y1, x2, y2): vertical ones read X at the top, middle and
    bottom, horizontal ones read Y near the left and right edges (readings that differ
    tell a skewed sheet)."""
    middle_x, middle_y = paper.width / 2, paper.height / 2
    lines = []
    for y in (STATION, middle_y, paper.height - STATION):
        lines.append((middle_x, y - LINE / 2, middle_x, y + LINE / 2))
    for x in (SIDE, paper.width - SIDE):
        lines.append((x - LINE / 2, middle_y, x + LINE / 2, middle_y))
    return lines


def back_scales(paper: Box, flip: str, offset: tuple[float, float]) -> list[Scale]:
    """The scales on the back, each behind its front line once the sheet is turned over the
    long or short edge, moved by the offset the backs are printed with."""
    scales = []
    for x1, y1, x2, y2 in stations(paper):
        x, y = (x1 + x2) / 2, (y1 + y2) / 2
        x, y = (paper.width - x, y) if flip == "long" else (x, paper.height - y)
        scales.append(Scale(round(x + offset[0], 4), round(y + offset[1], 4), x1 == x2))
    return scales


def calibration_pdf(paper: Box, flip: str, offset: tuple[float, float],
                    language: str) -> bytes:
    """The two-page calibration PDF: lines on the front, scales on the back."""
    from ..layout.engine import html_to_pdf
    from ..pdf.assemble import LONG_EDGE, SHORT_EDGE, finish
    from ..plan.render import render_shared
    from ..text.fonts import load_fonts

    fonts = load_fonts()
    if (missing := fonts_missing(fonts, language)) is not None:
        raise PnpError(missing)
    # the language's own CJK face where it has one (Japanese, Korean, Traditional Chinese)
    family = fonts.partner("Noto Sans Latin", language) or "Noto Sans SC"
    html = render_shared("calibrate.html.j2", paper=paper, lines=stations(paper),
                         scales=back_scales(paper, flip, offset),
                         words=calibration_words(language), direction=direction(language),
                         flip=flip, offset=offset, language=language,
                         font_css=Markup(fonts.font_face_css({family})), family=Markup(family))
    pdf, found = html_to_pdf(html, TEMPLATES_DIR, fonts.files())
    if not pdf:
        raise RuntimeError("; ".join(item.message for item in found))
    return finish(pdf, SHORT_EDGE if flip == "short" else LONG_EDGE)


def write_calibration(out: Path, paper_name: str, paper: Box, flip: str,
                      offset: tuple[float, float], language: str) -> Path:
    """Write calibrate-<paper>.pdf into `out`; returns its path."""
    path = out / f"calibrate-{paper_name}.pdf"
    data = calibration_pdf(paper, flip, offset, language)
    with open_root(out) as folder:
        folder.write(path.name, data)
    return path
