"""The preflight report of an export: what a print shop checks before it prints, card side by
card side: bleed on every edge, the dpi of raster images, the smallest text, embedded fonts,
the colour space and the pixel size a profile asks for. Printed, and written as JSON; each
failure is a finding at the card it is about."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from PIL import Image, ImageStat

from .errors import Finding

WHITE = 245  # a channel at least this light is paper
INKED = 12.0  # a strip's mean distance from white past which it is printed on, not paper
PAPER = 2.0  # an edge strip this close to white on average is bare paper
CODE = "W085"
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
    bleed_missing: list[str] | None  # None where the export has no bleed (TTS)
    smallest_text: float | None
    unembedded: list[str]
    image_dpi: list[float]
    colour: str
    min_dpi: float
    min_text: float
    ink: float | None = None  # the highest total ink of a CMYK page, percent
    max_ink: float = MAX_INK

    def failures(self) -> list[str]:
        """What a print shop would turn this side back for, in a few words each."""
        found = []
        if self.bleed_missing:
            found.append(f"no bleed on the {', '.join(self.bleed_missing)} edge"
                         f"{'s' if len(self.bleed_missing) > 1 else ''} (the design stops at "
                         "the cut line)")
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
        if self.colour not in ("RGB", "CMYK"):
            found.append(f"colour space {self.colour}, not RGB or CMYK")
        return found


def _size(pixels: tuple[int, int] | None) -> str:
    """A pixel size as `W x H`."""
    return f"{pixels[0]} x {pixels[1]}" if pixels else "no"


def missing_bleed(picture: Image.Image, bleed: int) -> list[str]:
    """The edges of a card side drawn with `bleed` px of bleed where the design is printed on
    at the cut line but the outermost pixels are bare paper: the bleed was left white."""
    width, height = picture.size
    if bleed < 2 or width <= 4 * bleed or height <= 4 * bleed:
        return []
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


def _distance(strip: Image.Image) -> float:
    """How far a strip of pixels is from white on average, 0 (paper) to 255."""
    return 255 - sum(ImageStat.Stat(strip).mean) / 3


def findings(inspections: list[Inspection]) -> list[Finding]:
    """Each failure a warning at the card it is about, naming the file and side."""
    found = []
    for seen in inspections:
        path, _, line = seen.source.rpartition(":")
        found += [Finding(path, int(line), f"preflight: {seen.deck}/{seen.card} {seen.side} "
                          f"({seen.file}): {failure}", CODE) for failure in seen.failures()]
    return sorted(set(found))


def summary(inspections: list[Inspection]) -> list[str]:
    """The report in a few lines: each check and how many sides pass it."""
    count = len(inspections)
    texts = [(seen.smallest_text, seen) for seen in inspections if seen.smallest_text]
    dpis = [dpi for seen in inspections for dpi in seen.image_dpi]
    bled = [seen for seen in inspections if seen.bleed_missing is not None]
    lines = [
        f"{count} card sides checked",
        "bleed on every edge: " + (_passing(bled, lambda s: not s.bleed_missing) if bled else
                                   "not asked (drawn at the cut size)"),
        f"fonts embedded: {_passing(inspections, lambda s: not s.unembedded)}",
        "raster images: " + (f"{len(dpis)}, the lowest at {min(dpis):g} dpi" if dpis else
                             "none (every face is drawn as vectors)"),
        f"colour space: {', '.join(sorted({seen.colour for seen in inspections})) or '-'}",
        f"pixel sizes as the profile asks: "
        f"{_passing(inspections, lambda s: s.expected is None or s.pixels == s.expected)}",
    ]
    inks = [seen.ink for seen in inspections if seen.ink is not None]
    if inks:
        lines.append(f"total ink: at most {max(inks):g} % "
                     f"({_passing(inspections, lambda s: s.ink is None or s.ink <= s.max_ink)} "
                     f"within {MAX_INK:g} %)")
    if texts:
        smallest, where = min(texts, key=lambda pair: (pair[0] or 0, pair[1].file))
        lines.insert(3, f"smallest text: {smallest:g} pt ({where.deck}/{where.card} "
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
