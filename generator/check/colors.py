"""Colour arithmetic for readable print: WCAG contrast, and ink dark enough to read."""

from __future__ import annotations

import re

_HEX = re.compile(r"#([0-9a-f]{3}|[0-9a-f]{6})")
AA = 4.5
AA_LARGE = 3.0


def luminance(color: tuple[float, ...]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (channels 0 to 1)."""
    red, green, blue = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
                        for c in color[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two opaque sRGB colours (1 to 21)."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def to_hex(color: tuple[float, ...]) -> str:
    """An sRGB colour (channels 0 to 1) as #rrggbb."""
    return "#" + "".join(f"{round(c * 255):02x}" for c in color[:3])


def from_hex(text: str) -> tuple[float, float, float] | None:
    """#rgb or #rrggbb as channels 0 to 1; None for any other colour."""
    match = _HEX.fullmatch(text.strip().lower())
    if not match:
        return None
    digits = match[1] if len(match[1]) == 6 else "".join(d * 2 for d in match[1])
    red, green, blue = (int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return red, green, blue


def over(color: str, top: str, alpha: float) -> str:
    """The opaque colour `top` at `alpha` makes laid over `color`, as #rrggbb, so a print file
    needs no transparency; `top` as rgba() when `color` is not #rgb or #rrggbb."""
    under, above = from_hex(str(color)), from_hex(str(top))
    if above is None:
        raise ValueError(f"over(): {top!r} is not #rgb or #rrggbb")
    if under is None:
        return "rgba({}, {}, {}, {:g})".format(*(round(c * 255) for c in above), alpha)
    return to_hex(tuple(alpha * a + (1 - alpha) * u for a, u in zip(above, under, strict=True)))


def ink(color: str, paper: str = "#ffffff", large: bool = False) -> str:
    """`color` for text on `paper` (or a fill under white text), kept when it reads at WCAG AA
    (3:1 when `large`), else the same hue darkened just as far as it needs; a colour that is
    not #rgb or #rrggbb is given back as it is."""
    shown, below = from_hex(str(color)), from_hex(str(paper))
    if shown is None or below is None:
        return str(color)
    need = AA_LARGE if large else AA
    for step in range(26):
        shade = tuple(round(c * 255 * (1 - step * 0.04)) / 255 for c in shown)
        if contrast(shade, below) >= need + 0.05:
            return str(color) if step == 0 else to_hex(shade)
    return to_hex((0, 0, 0))


def legible(paper: str, dark: str = "#222222", light: str = "#ffffff") -> str:
    """Of a dark and a light text colour, the one that reads better on `paper` (a colour that
    is not #rgb or #rrggbb gives `dark`)."""
    below, shades = from_hex(str(paper)), (from_hex(str(dark)), from_hex(str(light)))
    if below is None or shades[0] is None or shades[1] is None:
        return str(dark)
    return str(light) if contrast(shades[1], below) > contrast(shades[0], below) else str(dark)
