"""Card sides drawn as pixels, and what a print shop's preflight reads off a laid-out face, with
pypdfium2 (PDFium): the only module that imports it.

A face is laid out at the top of a page of its own (faces.py); `draw` renders that box at an
exact pixel size, and `inspect` reads the same box's text sizes, fonts and raster images.
"""

from __future__ import annotations

import ctypes
import io
import math
from dataclasses import dataclass
from typing import Any

from PIL import Image

PT_PER_MM = 72 / 25.4


@dataclass(frozen=True)
class Inside:
    """What a laid-out face holds: its smallest text (pt, None without text), the fonts its
    text is drawn in that are not embedded, each raster image's effective dpi, and the page's
    TrimBox and BleedBox sizes in mm (None where the page has none)."""

    smallest_text: float | None
    unembedded: tuple[str, ...]
    image_dpi: tuple[float, ...]
    trim_box: tuple[float, float] | None = None
    bleed_box: tuple[float, float] | None = None


def draw(pdf: bytes, page: int, box: tuple[float, float, float, float],
         pixels: tuple[int, int]) -> Image.Image:
    """A box of a page (left, top, width, height in mm from its top left) at exactly `pixels`,
    RGB."""
    return draw_pages(pdf, box, pixels, [page])[0]


def draw_pages(pdf: bytes, box: tuple[float, float, float, float], pixels: tuple[int, int],
               pages: list[int] | None = None) -> list[Image.Image]:
    """The same box of each of `pages` (every page when None) at exactly `pixels`, RGB, the
    document opened once."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return [_drawn(document[page], box, pixels)
                for page in (range(len(document)) if pages is None else pages)]
    finally:
        document.close()


def draw_page(pdf: bytes, page: int, dpi: float) -> Image.Image:
    """A whole page at `dpi`, RGB."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return document[page].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        document.close()


def page_count(pdf: bytes) -> int:
    """How many pages a PDF has."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def _drawn(shown: Any, box: tuple[float, float, float, float],
           pixels: tuple[int, int]) -> Image.Image:
    """A box of an open page at exactly `pixels`, RGB."""
    width_pt, height_pt = shown.get_size()
    left, top = box[0] * PT_PER_MM, box[1] * PT_PER_MM
    box_w, box_h = box[2] * PT_PER_MM, box[3] * PT_PER_MM
    scale = max(pixels[0] / box_w, pixels[1] / box_h)
    bitmap = shown.render(scale=scale, crop=(left, height_pt - top - box_h,
                                             width_pt - left - box_w, top))
    picture = bitmap.to_pil().convert("RGB")
    if picture.size != pixels:
        picture = picture.resize(pixels, Image.Resampling.LANCZOS)
    return picture


def encode(picture: Image.Image, image_format: str, dpi: float) -> bytes:
    """An image's bytes as PNG or JPEG (quality 95), tagged with the dpi it prints at."""
    out = io.BytesIO()
    tagged = (round(dpi), round(dpi))
    if image_format == "jpg":
        picture.save(out, "JPEG", quality=95, dpi=tagged)
    else:
        picture.save(out, "PNG", dpi=tagged)
    return out.getvalue()


def inspect(pdf: bytes, page: int, box: tuple[float, float]) -> Inside:
    """The text sizes, fonts and images inside the box of `box` mm at the top left of a page."""
    import pypdfium2
    import pypdfium2.raw as pdfium

    document = pypdfium2.PdfDocument(pdf)
    sizes: list[float] = []
    unembedded: set[str] = set()
    dpis: list[float] = []
    try:
        shown = document[page]
        boxes = _box_mm(shown.get_trimbox(fallback_ok=False)), \
            _box_mm(shown.get_bleedbox(fallback_ok=False))
        _, height_pt = shown.get_size()
        right, bottom = box[0] * PT_PER_MM, height_pt - box[1] * PT_PER_MM
        for item in shown.get_objects(max_depth=8):
            left, _, _, top = item.get_bounds()
            if left >= right or top <= bottom:
                continue  # run past the card's box, below it on the page
            if item.type == pdfium.FPDF_PAGEOBJ_TEXT:
                sizes.append(_text_size(item, pdfium))
                font = pdfium.FPDFTextObj_GetFont(item.raw)
                if not pdfium.FPDFFont_GetIsEmbedded(font):
                    unembedded.add(_font_name(font, pdfium))
            elif item.type == pdfium.FPDF_PAGEOBJ_IMAGE:
                found = item.get_metadata()
                dpis.append(round(min(found.horizontal_dpi, found.vertical_dpi), 1))
    finally:
        document.close()
    return Inside(round(min(sizes), 2) if sizes else None, tuple(sorted(unembedded)),
                  tuple(dpis), *boxes)


def _box_mm(box: tuple[float, float, float, float] | None) -> tuple[float, float] | None:
    """A page box's width and height in mm, to a hundredth."""
    if box is None:
        return None
    return round((box[2] - box[0]) / PT_PER_MM, 2), round((box[3] - box[1]) / PT_PER_MM, 2)


def _text_size(item: Any, pdfium: Any) -> float:
    """A text object's size in points as printed: its font size times its matrix's scale."""
    size = ctypes.c_float()
    pdfium.FPDFTextObj_GetFontSize(item.raw, size)
    matrix = item.get_matrix()
    return float(size.value) * math.hypot(matrix.c, matrix.d)


def _font_name(font: Any, pdfium: Any) -> str:
    """A font's base name, its subset prefix kept."""
    buffer = ctypes.create_string_buffer(256)
    pdfium.FPDFFont_GetBaseFontName(font, buffer, 256)
    return buffer.value.decode("latin-1") or "(unnamed)"
