"""Stage 5a, fit: measure the laid-out pages for text past its box and coarse raster images.

Walks WeasyPrint's box tree (internal API, pinned by the WeasyPrint version in pyproject).
Each card is the element marked `data-source` (a card id or `back:<id>`); text must stay
inside the nearest `.safe` box or element marked `data-box`, and above that box's `.footer`;
the field named is the nearest `data-field`, else the text's own class.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from .errors import Finding

PX_PER_MM = 96 / 25.4
TOLERANCE_MM = 0.1  # rounding slack before text counts as past its box
DESCENDER_EM = 0.12  # how far below the baseline a CJK glyph's ink reaches (ideographic em box)


@dataclass(frozen=True)
class _Context:
    """Where a box sits: its card, the edges its text must stay inside (px), and its field."""

    source: str = ""
    bottom: float | None = None
    right: float | None = None
    field: str = ""
    floor: float | None = None  # the container's own bottom, which the footer may reach


def children(box: Any) -> Iterator[Any]:
    """A laid-out box's children, absolutely placed ones included."""
    for child in getattr(box, "children", ()):
        yield getattr(child, "_box", child)  # absolutely placed boxes hide behind a placeholder


def _classes(box: Any) -> list[str]:
    element = getattr(box, "element", None)
    if element is None or getattr(box, "element_tag", None) is None:
        return []
    return (element.get("class") or "").split()


def _container(source: str, box: Any) -> _Context:
    """A container's edges; a `.footer` inside it is off limits to the rest of its text."""
    floor = box.border_box_y() + box.border_height()
    bottom = min([floor] + [child.border_box_y() for child in children(box)
                            if "footer" in _classes(child)])
    return _Context(source, bottom, box.border_box_x() + box.border_width(), "", floor)


def _walk(box: Any, context: _Context) -> Iterator[tuple[Any, _Context]]:
    """Every box with the context it inherits."""
    element = getattr(box, "element", None)
    if element is not None and getattr(box, "element_tag", None) is not None:
        classes = _classes(box)
        if element.get("data-source") is not None:
            context = _Context(element.get("data-source"))
        if "safe" in classes or element.get("data-box") is not None:
            context = _container(context.source, box)
        elif "footer" in classes and context.floor is not None:
            context = replace(context, bottom=context.floor, field="footer")
        if element.get("data-field"):
            context = replace(context, field=element.get("data-field"))
    yield box, context
    for child in children(box):
        yield from _walk(child, context)


def _overflow_mm(text: Any, context: _Context) -> tuple[float, str]:
    """How far a text's ink reaches past the bottom or right edge it must keep to, in mm.

    The ink ends at the ideographic em box, 0.12 em below the baseline: line metrics reach further
    and would flag text that sits well inside.
    """
    ink_bottom = text.position_y + text.baseline + DESCENDER_EM * text.style["font_size"]
    bottom = ink_bottom - context.bottom
    right = text.position_x + text.width - context.right
    if bottom >= right:
        return bottom / PX_PER_MM, "bottom"
    return right / PX_PER_MM, "right"


def _field_name(text: Any, context: _Context) -> str:
    if context.field:
        return context.field
    classes = (text.element.get("class") or "").split() if text.element is not None else []
    return classes[0] if classes else text.element_tag or "text"


Found = tuple[str, str, str]  # (card id or back:<id>, code, message), before it is located


def measure(document: Any, min_dpi: float) -> list[Found]:
    """Text past its box and raster images printed below `min_dpi`, by card."""
    worst: dict[tuple[str, str], tuple[float, str]] = {}
    coarse: dict[tuple[str, str], float] = {}
    for page in document.pages:
        for box, context in _walk(page._page_box, _Context()):
            if not context.source:
                continue
            kind = type(box).__name__
            if kind == "TextBox" and context.bottom is not None and box.text.strip():
                amount, edge = _overflow_mm(box, context)
                key = (context.source, _field_name(box, context))
                if amount > TOLERANCE_MM and amount > worst.get(key, (0, ""))[0]:
                    worst[key] = (amount, edge)
            elif kind == "InlineReplacedBox" or kind == "BlockReplacedBox":
                dpi = _dpi(box)
                if dpi is not None and dpi < min_dpi:
                    key = (context.source, box.element.get("src", ""))
                    coarse[key] = min(dpi, coarse.get(key, dpi))
    found = [(source, "E070", f"{_subject(source)}: '{field}' runs {amount:.1f} mm past its box "
              f"({edge} edge)") for (source, field), (amount, edge) in sorted(worst.items())]
    found += [(source, "E071", f"{_subject(source)}: image '{src}' prints at {dpi:.0f} dpi, "
               f"below {min_dpi:.0f}") for (source, src), dpi in sorted(coarse.items())]
    return found


def locate(found: list[Found], sites: dict[str, tuple[str, int]]) -> list[Finding]:
    """Findings at the file and line each card comes from; cards of no known source are left out."""
    return [Finding(*sites[source], message, code=code)
            for source, code, message in found if source in sites]


def _subject(source: str) -> str:
    return f"back '{source[5:]}'" if source.startswith("back:") else f"card '{source}'"


def _dpi(box: Any) -> float | None:
    """Pixels per inch of a raster image at its printed width; None for vector images."""
    image = box.replacement
    if type(image).__name__ != "RasterImage" or not box.width:
        return None
    pixels, _, _ = image.get_intrinsic_size(1, 16)
    return pixels / (box.width / 96) if pixels else None
