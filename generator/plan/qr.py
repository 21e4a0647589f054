"""QR codes as inline SVG, the one maker for card templates, the rulebook and its cover.

A code is black modules on a white square that holds its quiet zone, so it scans on a card of
any colour; it has no size of its own (a `viewBox` only): the stylesheet sizes it, and the
layout checks its modules print large enough (`data-qr-modules`, W088). The only module that
imports qrcode.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup

QUIET_ZONE = 4  # light modules round the symbol on each side, as ISO/IEC 18004 asks
MODULES_ATTRIBUTE = "data-qr-modules"  # the symbol's modules across, quiet zone left out
MOST_CHARACTERS = 7089  # what the largest symbol holds at best (digits at level L)
STYLE = """
/* A QR code (`qr(text)` in a template): as wide as this unless a pack's stylesheet says
   otherwise (`.face .qr { width: 14mm; }`), its height following; `pnp validate` warns when
   its modules print smaller than 0.4 mm (W088). */
.qr { width: 20mm; height: auto; vertical-align: top; }
"""
MARKER = "\ue001"  # a QR code's text in the rulebook's Markdown, until it is HTML
_MARKED = re.compile(MARKER + r"qr((?:[0-9a-f]{2})+)" + MARKER)


class QrTooLong(ValueError):
    """A text no QR code can hold."""


@lru_cache(maxsize=1024)
def qr_svg(text: str) -> Markup:
    """A QR code of `text` (error correction M) as an `<svg class="qr">`, its size left to
    CSS; QrTooLong when the largest symbol cannot hold it."""
    rows = _matrix(text)
    side = len(rows) + 2 * QUIET_ZONE
    path = []
    for y, row in enumerate(rows):  # each run of dark modules in a row, as one rectangle
        for start, length in _runs(row):
            path.append(f"M{start + QUIET_ZONE} {y + QUIET_ZONE}h{length}v1h-{length}z")
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" class="qr" viewBox="0 0 {side} '
                  f'{side}" {MODULES_ATTRIBUTE}="{len(rows)}" shape-rendering="crispEdges">'
                  f'<rect width="{side}" height="{side}" fill="#fff"/>'
                  f'<path fill="#000" d="{"".join(path)}"/></svg>')


def qr(text: object) -> Markup:
    """The template function `qr(text)`: the QR code of any value, as text."""
    return qr_svg(str(text))


def _matrix(text: str) -> list[list[bool]]:
    """The symbol's modules, dark True, without the quiet zone."""
    import qrcode
    from qrcode.exceptions import DataOverflowError

    size = len(text.encode("utf-8"))
    too_long = QrTooLong(f"qr(): a text of {size} bytes is more than a QR code holds (2,331 "
                         "bytes at most)")
    if len(text) > MOST_CHARACTERS:
        raise too_long
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    code.add_data(text)
    try:
        code.make(fit=True)
    except (DataOverflowError, ValueError):  # qrcode 8 says version 41 when none holds it
        raise too_long from None
    return [[bool(module) for module in row] for row in code.get_matrix()]


def _runs(row: list[bool]) -> list[tuple[int, int]]:
    """Each run of dark modules in a row: where it starts and how long it is."""
    runs, start = [], None
    for x, dark in enumerate([*row, False]):
        if dark and start is None:
            start = x
        elif not dark and start is not None:
            runs.append((start, x - start))
            start = None
    return runs


def qr_marker(text: object) -> str:
    """The rulebook's `qr(text)`: the code checked now, and marked in the Markdown (letters
    and digits it leaves as they are) to be drawn by `draw_markers` once it is HTML."""
    qr_svg(str(text))
    return f"{MARKER}qr{str(text).encode('utf-8').hex()}{MARKER}"


def draw_markers(html: str) -> str:
    """HTML with each QR code marked in its Markdown drawn; a mark the Markdown's own text
    forged with no code to draw draws nothing."""

    def drawn(found: re.Match[str]) -> str:
        try:
            return qr_svg(bytes.fromhex(found[1]).decode("utf-8", errors="replace"))
        except QrTooLong:
            return ""

    return _MARKED.sub(drawn, html)
