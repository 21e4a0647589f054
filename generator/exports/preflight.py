"""The preflight report of an export: what a print shop checks before it prints, card side by
card side: bleed on every edge, the dpi of raster images, the smallest text, embedded fonts,
the colour space and the pixel size a profile asks for, and that the card just inside the cut
is the colour of the bleed beside it (for a shaped piece, along its cut line: the ring between
the cut outline and its bleed outline); for a print-shop PDF, each read off the file written
(its images, text and fonts, page boxes and total ink), not off the faces it was made from.
Printed, and written as JSON; each failure is a finding at the card it is about."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from PIL import Image, ImageStat

from ..check.findings import Finding
from ..plan.shapes import RECT, Point, Shape, along

Colour = tuple[int, int, int]

WHITE = 245  # a channel at least this light is paper
INKED = 12.0  # a strip's mean distance from white past which it is printed on, not paper
PAPER = 2.0  # an edge strip this close to white on average is bare paper
CODE = "W085"
DRIFT_CODE = "W086"
# Two colours this far apart in some channel (of 255) are two colours (about a ΔE of 15,
# where 2 is just seen): room for gradients and JPEG, and still any tint a designer would call
# another colour (cream #fbf8f1 against gold #e6c36a is 142 in blue). The real packs' edges,
# patterned backs included, are at most 1 apart; a paper panel in a coloured bleed 100 to 220.
DRIFT = 40
MAX_INK = 240.0  # percent of total ink a print shop takes (DriveThruCards)


@dataclass(frozen=True)
class Inspection:
    """What the preflight found on one file showing a card side (an image, a print-shop page),
    and the limits it was held to."""

    file: str
    deck: str
    card: str
    side: str
    source: str  # where the card is written, path:line
    pixels: tuple[int, int] | None
    expected: tuple[int, int] | None
    bleed_faults: list[str] | None  # what missing_bleed found; None without bleed (TTS)
    smallest_text: float | None
    unembedded: list[str]
    image_dpi: list[float]
    colour: str
    min_dpi: float
    min_text: float
    ink: float | None = None  # the highest total ink of any pixel of a CMYK page, percent
    max_ink: float = MAX_INK
    trim_box: tuple[float, float] | None = None  # the written page's boxes, mm
    bleed_box: tuple[float, float] | None = None
    cut: tuple[float, float] | None = None  # the card's size, and with its bleed, mm
    bled: tuple[float, float] | None = None
    text_as_image: bool = False  # the face has text, the written page none (flattened)
    page_order: str | None = None  # the order the profile asks for, where pages are checked
    misplaced: tuple[int, ...] = ()  # pages meant for this side that show its card's other

    def failures(self) -> list[str]:
        """What a print shop would turn this side back for, in a few words each."""
        found = []
        missing = _missing(self.bleed_faults)
        if missing:
            found.append(f"no bleed on the {_edges(missing)} (the design stops at the cut line)")
        if self.expected is not None and self.pixels != self.expected:
            found.append(f"{_size(self.pixels)} px, not the {_size(self.expected)} px asked for")
        if self.smallest_text is not None and self.smallest_text < self.min_text - 0.005:
            found.append(f"text of {self.smallest_text:g} pt, under {self.min_text:g} pt")
        low = [dpi for dpi in self.image_dpi if dpi < self.min_dpi]
        if low:
            found.append(f"a raster image prints at {min(low):g} dpi, under {self.min_dpi:g}")
        if self.unembedded:
            found.append(f"font not embedded: {', '.join(self.unembedded)}")
        if self.ink is not None and self.ink > self.max_ink:
            found.append(f"total ink up to {self.ink:g} %, over the {self.max_ink:g} % print "
                         "shops take")
        if self.cut is not None and not self.boxes_right():
            found.append(f"TrimBox {_mm(self.trim_box)} and BleedBox {_mm(self.bleed_box)}, not "
                         f"the card's {_mm(self.cut)} and {_mm(self.bled)}")
        if self.colour not in ("RGB", "CMYK"):
            found.append(f"colour space {self.colour}, not RGB or CMYK")
        if self.text_as_image:
            found.append("its text is a picture in the file: the side draws something "
                         "transparent (an opacity under 1, an rgba() colour, a picture's alpha), "
                         "which PDF/X-1a cannot hold, so the page was flattened; opaque colours "
                         "keep text as text (over() in a template)")
        if self.misplaced:
            pages = ", ".join(map(str, self.misplaced))
            found.append((f"pages {pages} of the file show" if len(self.misplaced) > 1 else
                          f"page {pages} of the file shows") + " the card's other side, out of "
                         f"the {self.page_order} order the profile asks for")
        return found

    def boxes_right(self) -> bool:
        """Whether the written page's TrimBox is the card and its BleedBox the card with its
        bleed, to 0.1 mm (True where not checked)."""
        pairs = ((self.trim_box, self.cut), (self.bleed_box, self.bled))
        return self.cut is None or all(
            found is not None and wanted is not None
            and max(abs(a - b) for a, b in zip(found, wanted, strict=True)) <= 0.1
            for found, wanted in pairs)

    def drifts(self) -> list[str]:
        """Where a cutting drift shows a sliver of another colour, one pair of colours each."""
        edges: dict[str, list[str]] = {}
        for fault in self.bleed_faults or []:
            edge, _, colours = fault.partition(": ")
            if colours:
                edges.setdefault(colours, []).append(edge)
        return [f"the card just inside the cut is not the colour of its bleed on the "
                f"{_edges(where)} ({colours}): a cutting drift of 1 mm shows a sliver of either"
                for colours, where in edges.items()]


def _missing(faults: list[str] | None) -> list[str]:
    """The edges of missing_bleed's faults whose bleed was left white."""
    return [fault for fault in faults or [] if ":" not in fault]


def _edges(edges: list[str]) -> str:
    """`top edge`, or `top, left edges`."""
    return f"{', '.join(edges)} edge{'s' if len(edges) > 1 else ''}"


def _mm(box: tuple[float, float] | None) -> str:
    """A box's size as `W x H mm`, or `none`."""
    return f"{box[0]:g} x {box[1]:g} mm" if box else "none"


def _size(pixels: tuple[int, int] | None) -> str:
    """A pixel size as `W x H`."""
    return f"{pixels[0]} x {pixels[1]}" if pixels else "no"


def missing_bleed(picture: Image.Image, bleed: int, shape: Shape = RECT,
                  cut: tuple[float, float] = (0, 0)) -> list[str]:
    """What is wrong with the bleed of an RGB card side drawn with `bleed` px of it: each edge
    printed on at the cut line whose bleed was left white, by name, then each other edge whose
    card about 1 mm inside the cut is another colour than its bleed, as `edge: #inside inside,
    #bleed in the bleed`. A shaped piece (its `cut` box in mm) is read along its outline, each
    side of it the part whose outward normal points that way."""
    width, height = picture.size
    if bleed < 2 or width <= 4 * bleed or height <= 4 * bleed:
        return []
    if shape.square:
        missing = _white_bleed(picture, bleed)
        beside = _beside_the_cut(picture, bleed)
    else:
        ring = _Ring(picture, bleed, shape, cut)
        missing, beside = ring.white_bleed(), ring.beside_the_cut()
    return missing + [f"{edge}: {_hex(inside)} inside, {_hex(outside)} in the bleed"
                      for edge, (inside, outside) in beside.items()
                      if edge not in missing and _apart(inside, outside) > DRIFT]


class _Ring:
    """A shaped piece's pixels read along its cut line, `bleed` px out into its bleed and in
    across it, side by side (top, bottom, left, right by the outline's outward normal)."""

    def __init__(self, picture: Image.Image, bleed: int, shape: Shape,
                 cut: tuple[float, float]) -> None:
        self.picture, self.bleed = picture, bleed
        width, height = picture.size
        self.scale = ((width - 2 * bleed) / cut[0], (height - 2 * bleed) / cut[1])
        spacing = 1 / min(self.scale)  # a sample a pixel
        self.sides: dict[str, list[tuple[Point, Point]]] = {}
        for point, normal in along(shape, cut[0], cut[1], spacing):
            self.sides.setdefault(_side(normal), []).append((point, normal))

    def row(self, side: str, out: float) -> Image.Image:
        """The pixels `out` px outside the cut line (negative: inside) along a side, as a row."""
        width, height = self.picture.size
        pixels = []
        for (x, y), (nx, ny) in self.sides[side]:
            px = self.bleed + x * self.scale[0] + nx * out
            py = self.bleed + y * self.scale[1] + ny * out
            pixels.append(self.picture.getpixel((min(max(int(px), 0), width - 1),
                                                 min(max(int(py), 0), height - 1))))
        row = Image.new("RGB", (len(pixels), 1))
        row.putdata(pixels)
        return row

    def white_bleed(self) -> list[str]:
        """The sides printed on at the cut line whose bleed's outermost pixels are paper."""
        deep = max(2, self.bleed // 3)  # as _white_bleed: a band just inside the cut
        return [side for side in _SIDES if side in self.sides
                and sum(_distance(self.row(side, -0.5 - step)) for step in range(deep)) / deep
                > INKED and _distance(self.row(side, self.bleed - 0.5)) < PAPER]

    def beside_the_cut(self) -> dict[str, tuple[Colour, Colour]]:
        """Each side's colour about 1 mm inside the cut and its bleed's halfway out, as
        _beside_the_cut reads a rectangle's."""
        bleed, found = self.bleed, {}
        for side in (side for side in _SIDES if side in self.sides):
            outside = _median(self.row(side, bleed - bleed // 2 - 0.5))
            found[side] = min((_median(self.row(side, -0.5 - at))
                               for at in range(bleed // 4, bleed // 2)),
                              key=lambda colour: _apart(colour, outside)), outside
        return found


_SIDES = ("top", "bottom", "left", "right")


def _side(normal: Point) -> str:
    """Which side of a piece an outward normal points from (y downwards)."""
    nx, ny = normal
    if abs(ny) >= abs(nx):
        return "top" if ny < 0 else "bottom"
    return "left" if nx < 0 else "right"


def _white_bleed(picture: Image.Image, bleed: int) -> list[str]:
    """The edges printed on at the cut line whose outermost pixels are bare paper."""
    width, height = picture.size
    deep = bleed + max(2, bleed // 3)  # a strip just inside the cut line
    strips = {
        "top": ((bleed, 0, width - bleed, 1), (bleed, bleed, width - bleed, deep)),
        "bottom": ((bleed, height - 1, width - bleed, height),
                   (bleed, height - deep, width - bleed, height - bleed)),
        "left": ((0, bleed, 1, height - bleed), (bleed, bleed, deep, height - bleed)),
        "right": ((width - 1, bleed, width, height - bleed),
                  (width - deep, bleed, width - bleed, height - bleed)),
    }
    return [edge for edge, (outer, cut) in strips.items()
            if _distance(picture.crop(cut)) > INKED and _distance(picture.crop(outer)) < PAPER]


def _beside_the_cut(picture: Image.Image, bleed: int) -> dict[str, tuple[Colour, Colour]]:
    """Each edge's colour about 1 mm inside the cut and its bleed's 1.5 mm outside it."""
    # Each is the median colour of a row of pixels along the edge between the cut's corners,
    # so text and lines across the row pass unseen. Inside, the row nearest the bleed's colour
    # of those a quarter to a half of the bleed in (0.75 to 1.5 mm of 3): a line along the
    # edge leaves the rows beside it, and a fine frame counts wherever its edge is rounded to
    # a pixel. Only a panel of another colour is found.
    width, height = picture.size
    rows = {
        "top": lambda at: (bleed, at, width - bleed, at + 1),
        "bottom": lambda at: (bleed, height - 1 - at, width - bleed, height - at),
        "left": lambda at: (at, bleed, at + 1, height - bleed),
        "right": lambda at: (width - 1 - at, bleed, width - at, height - bleed),
    }
    found = {}
    for edge, row in rows.items():
        outside = _median(picture.crop(row(bleed // 2)))
        inside = min((_median(picture.crop(row(at)))
                      for at in range(bleed + bleed // 4, bleed + bleed // 2)),
                     key=lambda colour: _apart(colour, outside))
        found[edge] = inside, outside
    return found


def _median(row: Image.Image) -> Colour:
    """An RGB row of pixels' median colour, channel by channel."""
    red, green, blue = ImageStat.Stat(row).median
    return red, green, blue


def _apart(one: Colour, other: Colour) -> int:
    """How far apart two colours are: their largest difference in a channel, 0 to 255."""
    return max(abs(a - b) for a, b in zip(one, other, strict=True))


def _hex(colour: Colour) -> str:
    """`#rrggbb`."""
    return "#" + "".join(f"{channel:02x}" for channel in colour)


def _distance(strip: Image.Image) -> float:
    """How far a strip of pixels is from white on average, 0 (paper) to 255."""
    return 255 - sum(ImageStat.Stat(strip).mean) / 3


def findings(inspections: list[Inspection]) -> list[Finding]:
    """Each failure a warning at the card it is about, naming the file and side."""
    found = []
    for seen in inspections:
        path, _, line = seen.source.rpartition(":")
        found += [Finding(path, int(line), f"preflight: {seen.deck}/{seen.card} {seen.side} "
                          f"({seen.file}): {failure}", code)
                  for code, failures in ((CODE, seen.failures()), (DRIFT_CODE, seen.drifts()))
                  for failure in failures]
    return sorted(set(found))


def summary(inspections: list[Inspection]) -> list[str]:
    """The report in a few lines: each check and how many sides pass it."""
    count = len(inspections)
    texts = [(seen.smallest_text, seen) for seen in inspections if seen.smallest_text]
    dpis = [dpi for seen in inspections for dpi in seen.image_dpi]
    bled = [seen for seen in inspections if seen.bleed_faults is not None]
    lines = [
        f"{count} card sides checked",
        "bleed on every edge: " + (_passing(bled, lambda s: not _missing(s.bleed_faults))
                                   if bled else "not asked (drawn at the cut size)"),
        "bleed of the colour just inside the cut: " + (
            _passing(bled, lambda s: not s.drifts()) if bled else "not asked"),
        f"fonts embedded: {_passing(inspections, lambda s: not s.unembedded)}",
        "raster images: " + (f"{len(dpis)}, the lowest at {min(dpis):g} dpi" if dpis else
                             "none (every side is drawn as vectors)"),
        f"colour space: {', '.join(sorted({seen.colour for seen in inspections})) or '-'}",
        f"pixel sizes as the profile asks: "
        f"{_passing(inspections, lambda s: s.expected is None or s.pixels == s.expected)}",
    ]
    if any(seen.cut is not None for seen in inspections):
        lines.append("page boxes (TrimBox the card, BleedBox the card and its bleed): "
                     + _passing(inspections, lambda s: s.boxes_right()))
    ordered = [seen for seen in inspections if seen.page_order]
    if ordered:
        lines.append(f"page order ({', '.join(sorted({str(s.page_order) for s in ordered}))}, "
                     f"as the profile asks): {_passing(ordered, lambda s: not s.misplaced)}")
    flattened = sum(seen.text_as_image for seen in inspections)
    if flattened:
        lines.append(f"text drawn as an image (the page flattened): {flattened} of {count}")
    inks = [seen.ink for seen in inspections if seen.ink is not None]
    if inks:
        limits = sorted({seen.max_ink for seen in inspections if seen.ink is not None})
        lines.append(f"total ink (the most of any pixel): at most {max(inks):g} % "
                     f"({_passing(inspections, lambda s: s.ink is None or s.ink <= s.max_ink)} "
                     f"within {'/'.join(f'{limit:g}' for limit in limits)} %)")
    if texts:
        smallest, where = min(texts, key=lambda pair: (pair[0] or 0, pair[1].file))
        lines.insert(4, f"smallest text: {smallest:g} pt ({where.deck}/{where.card} "
                        f"{where.side})")
    return lines


def _passing(inspections: list[Inspection], test: Any) -> str:
    """`all`, or how many of all pass."""
    passed = sum(1 for seen in inspections if test(seen))
    return "all" if passed == len(inspections) else f"{passed} of {len(inspections)}"


def report(game: str, kind: str, profile: str, inspections: list[Inspection]) -> bytes:
    """The report as JSON: the summary, every finding, and every side inspected."""
    data = {"game": game, "export": kind, "profile": profile,
            "summary": summary(inspections),
            "findings": [str(finding) for finding in findings(inspections)],
            "sides": [asdict(seen) for seen in inspections]}
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode()
