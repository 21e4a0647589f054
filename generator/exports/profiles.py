"""Export profiles: what a print shop takes, as data (templates/profiles/<name>.yaml, or a
pack's own <pack>/profiles/<name>.yaml): the card sizes it sells with their exact pixel sizes,
bleed, safe zone, page order, colour and ink limit, how files are named, and the die line a
print-and-cut shop's cutter follows. Read without
loading the exports, for the command line."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import TEMPLATES_DIR
from ..check.findings import Finding, PackError, PnpError, display_path
from ..plan.geometry import Box

MM_PER_INCH = 25.4
MAX_DPI = 1200
MATCH_MM = 1.0  # a deck's cut within this of a shop's size on both edges is that size
PIXEL_SLACK = 0.01  # a listed pixel size within 1 % of the cut plus bleed at the dpi
PROFILES = "profiles"  # the folder of profiles, in templates/ and in a pack
CODE = "E110"
MAX_MB = 0.1  # a profile is a few dozen lines: a larger file is refused unread
PAGE_ORDERS = ("front-back", "back-front", "fronts-backs")
COLOURS = ("RGB", "CMYK")
PLACEHOLDERS = {"image": ("deck", "number", "card", "side"), "back": ("deck", "back"),
                "pdf": ("deck",)}
DEFAULT_NAMING = {"image": "{deck}/{number}-{card}-{side}", "back": "{deck}/back-{back}",
                  "pdf": "{deck}"}
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_PATTERN = re.compile(r"(?:[\w.-]|\{\w+\})+(?:/(?:[\w.-]|\{\w+\})+)*")
_KEYS = {"title", "dpi", "bleed", "safe", "page_orders", "colour", "standard", "max_ink",
         "naming", "sizes", "die_line"}
_DIE_KEYS = {"spot", "width_pt", "alternate", "rectangles"}
_SPOT = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,62}")  # a spot colour's name, a PDF name as is
Pixels = tuple[int, int]


@dataclass(frozen=True)
class ShopSize:
    """A card size a shop sells: its name, its cut (mm) and, when the shop gives it, the exact
    pixel size of one side with its bleed at the profile's dpi."""

    name: str
    cut: Box
    pixels: Pixels | None = None


@dataclass(frozen=True)
class DieLine:
    """The cut path a shop's cutter follows: stroked `width_pt` wide in the spot colour
    `spot` (shown as the CMYK `alternate`), on every shaped piece, rectangles too when asked."""

    spot: str
    width_pt: float = 0.25
    alternate: tuple[float, float, float, float] = (0.0, 1.0, 0.0, 0.0)
    rectangles: bool = False


@dataclass(frozen=True)
class Profile:
    """What a print shop takes: the sizes it sells (None: any), the dpi (None: --dpi), the
    bleed and safe zone in mm (None: print.yaml's), the page orders it takes (the first its
    own), colour (RGB or CMYK), the PDF standard and total ink limit (percent) it asks for,
    the file name patterns, and the die line it asks for (None: none); `path` is where it was
    read."""

    name: str
    title: str
    path: str
    dpi: float | None = None
    bleed: float | None = None
    safe: float | None = None
    sizes: tuple[ShopSize, ...] | None = None
    page_orders: tuple[str, ...] = ("front-back", "fronts-backs")
    colour: str = "RGB"
    standard: str | None = None
    max_ink: float | None = None
    naming: tuple[tuple[str, str], ...] = tuple(DEFAULT_NAMING.items())
    die_line: DieLine | None = None

    @property
    def page_order(self) -> str:
        """The page order the shop asks for."""
        return self.page_orders[0]

    def order(self, backs_last: bool) -> str:
        """The page order of a print-shop file: the shop's own, or every front then every
        back when asked for and the shop takes it."""
        if not backs_last:
            return self.page_order
        if "fronts-backs" not in self.page_orders:
            raise PnpError(f"--backs-last: the {self.name} profile takes its pages only as "
                           f"{' or '.join(self.page_orders)} ({self.path})")
        return "fronts-backs"

    def size_for(self, cut: Box) -> ShopSize | None:
        """The size the shop sells that a card of `cut` mm is, within MATCH_MM on each edge,
        turned when the card is (a landscape poker card is poker); None when it sells none (a
        profile of any size gives the cut itself)."""
        if self.sizes is None:
            return ShopSize("", cut)
        return next((size for size in self._both_ways() if _apart(size.cut, cut) <= MATCH_MM),
                    None)

    def nearest(self, cut: Box) -> ShopSize:
        """The size the shop sells nearest a card of `cut` mm, either way round."""
        return min(self._both_ways(), key=lambda size: _apart(size.cut, cut))

    def _both_ways(self) -> list[ShopSize]:
        """Every size the shop sells, upright and turned a quarter."""
        assert self.sizes  # a profile lists at least one size, else any size
        return [*self.sizes, *(ShopSize(size.name, Box(size.cut.height, size.cut.width),
                                        size.pixels[::-1] if size.pixels else None)
                               for size in self.sizes)]

    def pixels(self, cut: Box, bleed: float, dpi: float) -> Pixels | None:
        """The pixel size of one side of a card of `cut` mm with `bleed` mm on every edge:
        the shop's own for its size, else at the profile's dpi (or `dpi`); None when the shop
        sells no such size."""
        size = self.size_for(cut)
        if size is None:
            return None
        return size.pixels or at_dpi(cut, bleed, self.dpi or dpi)

    def file(self, kind: str, **values: str) -> str:
        """A file name by the profile's `kind` pattern (image, back, pdf), each value made
        safe as a part of a file name."""
        from ..pack.files import file_part

        return re.sub(r"\{(\w+)\}", lambda match: file_part(values[match[1]]),
                      dict(self.naming)[kind])


def at_dpi(cut: Box, bleed: float, dpi: float) -> Pixels:
    """The pixels of `cut` mm with `bleed` mm on every edge at `dpi`."""
    return (round((cut.width + 2 * bleed) / MM_PER_INCH * dpi),
            round((cut.height + 2 * bleed) / MM_PER_INCH * dpi))


def _apart(one: Box, other: Box) -> float:
    """How far two sizes are apart, mm: the larger difference of their edges."""
    return max(abs(one.width - other.width), abs(one.height - other.height))


def profile_files(pack: Path | None) -> dict[str, Path]:
    """Every profile file by name: the shipped ones, then a pack's own, which take their
    place. A pack's folder or file that is a symlink is not listed (never followed)."""
    found = {path.stem: path for path in sorted((TEMPLATES_DIR / PROFILES).glob("*.yaml"))}
    folder = pack / PROFILES if pack is not None else None
    if folder is not None and folder.is_dir() and not folder.is_symlink():
        with os.scandir(folder) as entries:
            found.update((entry.name.removesuffix(".yaml"), Path(entry.path))
                         for entry in sorted(entries, key=lambda entry: entry.name)
                         if entry.name.endswith(".yaml")
                         and entry.is_file(follow_symlinks=False))
    return found


def load_profile(name: str, pack: Path | None = None) -> Profile:
    """The profile called `name`, a pack's own first; an unknown name is an error listing
    the profiles there are, a malformed file one at its line (PackError)."""
    files = profile_files(pack)
    if name not in files:
        raise PnpError(f"--profile {name}: no such profile (there are: {', '.join(files)}; a "
                       f"pack's own goes in <pack>/{PROFILES}/<name>.yaml)")
    return read_profile(files[name], pack)


def read_profile(path: Path, pack: Path | None = None) -> Profile:
    """One profile file, read as a pack's files are (safe YAML, a regular file inside its
    folder, within MAX_MB), every problem a finding at its line."""
    from ..pack.schema import Limits
    from ..pack.yamlfile import read_yaml

    findings: list[Finding] = []
    root = pack if pack is not None and path.is_relative_to(pack) else path.parent
    data = read_yaml(path, findings, Limits(file_mb=MAX_MB), root=root)
    if findings:
        raise PackError(findings)
    return _parse(path, data)


def _parse(path: Path, data: Any) -> Profile:
    """A profile from its file's data; PackError at the line of each problem."""
    from ..pack.yamlfile import LineDict, line_of

    where, findings = display_path(path), []

    def refuse(loc: tuple[Any, ...], message: str) -> None:
        findings.append(Finding(where, line_of(data, loc) or 1, message, CODE))

    if not isinstance(data, LineDict):
        raise PackError([Finding(where, 1, "a profile is a mapping of its keys (see "
                                 "templates/profiles/generic.yaml)", CODE)])
    for key in sorted(set(map(str, data)) - _KEYS):
        refuse((key,), f"unknown key '{key}' (a profile takes: {', '.join(sorted(_KEYS))})")
    name = path.stem
    if not _NAME.fullmatch(name):
        refuse((), f"a profile's file name is lowercase letters, digits, - and _, not '{name}'")
    dpi = _number(data, "dpi", refuse, 10, MAX_DPI)
    bleed = _number(data, "bleed", refuse, 0, 25)
    safe = _number(data, "safe", refuse, 0, 25)
    max_ink = _number(data, "max_ink", refuse, 100, 400)
    orders = data.get("page_orders", ["front-back", "fronts-backs"])
    if not (isinstance(orders, list) and orders and all(order in PAGE_ORDERS
                                                        for order in orders)):
        refuse(("page_orders",), f"page_orders is a list of {', '.join(PAGE_ORDERS)}")
        orders = ["front-back"]
    colour = data.get("colour", "RGB")
    if colour not in COLOURS:
        refuse(("colour",), f"colour is {' or '.join(COLOURS)}, not '{colour}'")
    standard = data.get("standard")
    if standard is not None and not isinstance(standard, str):
        refuse(("standard",), "standard is the name of a PDF standard, e.g. PDF/X-1a:2003")
    naming = _naming(data.get("naming") or {}, refuse)
    sizes = _sizes(data, dpi, bleed, refuse, pixels_checked=not findings)
    title = data.get("title", name)
    die_line = _die_line(data.get("die_line"), refuse)
    if findings:
        raise PackError(findings)
    return Profile(name, str(title), where, dpi, bleed, safe, sizes, tuple(orders), str(colour),
                   standard, max_ink, naming, die_line)


def _die_line(value: Any, refuse: Any) -> DieLine | None:
    """The die line a profile asks for: its spot colour's name, stroke width in points, CMYK
    alternate (each 0 to 1) and whether rectangles get one too; None when not asked."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - _DIE_KEYS or "spot" not in value:
        refuse(("die_line",), "die_line is {spot: CutContour, width_pt: 0.25, alternate: "
               "[0, 1, 0, 0], rectangles: false} (keys: " + ", ".join(sorted(_DIE_KEYS))
               + "; spot required)")
        return None
    spot, width = value["spot"], value.get("width_pt", 0.25)
    alternate, rectangles = value.get("alternate", [0, 1, 0, 0]), value.get("rectangles", False)
    if not (isinstance(spot, str) and _SPOT.fullmatch(spot)):
        refuse(("die_line", "spot"), f"die_line spot is a colour name of letters, digits, - "
               f"and _, such as CutContour, not {spot!r}")
    elif isinstance(width, bool) or not isinstance(width, int | float) or \
            not 0.01 <= width <= 5:
        refuse(("die_line", "width_pt"), f"die_line width_pt is 0.01 to 5 points, not {width!r}")
    elif not (isinstance(alternate, list) and len(alternate) == 4 and all(
            isinstance(ink, int | float) and not isinstance(ink, bool) and 0 <= ink <= 1
            for ink in alternate)):
        refuse(("die_line", "alternate"), "die_line alternate is the spot's look in CMYK, four "
               "numbers from 0 to 1, such as [0, 1, 0, 0]")
    elif not isinstance(rectangles, bool):
        refuse(("die_line", "rectangles"), "die_line rectangles is true or false")
    else:
        cyan, magenta, yellow, black = (float(ink) for ink in alternate)
        return DieLine(spot, float(width), (cyan, magenta, yellow, black), rectangles)
    return None


def _number(data: Any, key: str, refuse: Any, low: float, high: float) -> float | None:
    """An optional number key within [low, high]."""
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            not math.isfinite(value) or not low <= value <= high:
        refuse((key,), f"{key} is a number from {low:g} to {high:g}, or null, not {value!r}")
        return None
    return float(value)


def _naming(naming: Any, refuse: Any) -> tuple[tuple[str, str], ...]:
    """The file name patterns, each a relative path of names and its placeholders only."""
    if not isinstance(naming, dict) or set(naming) - set(PLACEHOLDERS):
        refuse(("naming",), f"naming maps {', '.join(PLACEHOLDERS)} to file name patterns")
        return tuple(DEFAULT_NAMING.items())
    patterns = {**DEFAULT_NAMING, **naming}
    for kind, pattern in patterns.items():
        used = re.findall(r"\{(\w+)\}", str(pattern))
        if not (isinstance(pattern, str) and _PATTERN.fullmatch(pattern)) or \
                ".." in pattern.split("/") or set(used) - set(PLACEHOLDERS[kind]):
            refuse(("naming", kind), f"naming {kind}: '{pattern}' is a relative path of "
                   "letters, digits, '.', '-', '_' and /, with the placeholders "
                   f"{', '.join('{' + name + '}' for name in PLACEHOLDERS[kind])}")
        elif kind != "pdf" and not used:
            refuse(("naming", kind), f"naming {kind}: '{pattern}' names every file the same")
    return tuple(patterns.items())


def _sizes(data: Any, dpi: float | None, bleed: float | None, refuse: Any,
           pixels_checked: bool) -> tuple[ShopSize, ...] | None:
    """The sizes a shop sells, each a cut in mm and maybe its exact pixels; None: any. The
    pixels are checked against the cut, bleed and dpi once those read."""
    sizes = data.get("sizes")
    if sizes is None:
        return None
    if not isinstance(sizes, dict) or not sizes:
        refuse(("sizes",), "sizes maps each size's name to {cut: [width, height] in mm, "
               "pixels: [width, height]}, or is null for any size")
        return None
    found = []
    for name, spec in sizes.items():
        cut = _pair(spec.get("cut") if isinstance(spec, dict) else None, float)
        pixels = _pair(spec.get("pixels"), int) if isinstance(spec, dict) else None
        if not isinstance(spec, dict) or set(spec) - {"cut", "pixels"} or cut is None or \
                not 5 <= min(cut) <= max(cut) <= 2000 or \
                ("pixels" in spec and (pixels is None or min(pixels) < 1)):
            refuse(("sizes", name), f"size '{name}': cut: [width, height] in mm (5 to 2000), "
                   "and pixels: [width, height] when the shop gives them")
            continue
        if pixels is not None and pixels_checked:
            if dpi is None:
                refuse(("sizes", name), f"size '{name}': pixels need the profile's dpi")
                continue
            expected = at_dpi(Box(*cut), bleed or 0, dpi)
            if any(abs(got - want) > PIXEL_SLACK * want for got, want in zip(pixels, expected,
                                                                               strict=True)):
                refuse(("sizes", name, "pixels"), f"size '{name}': {pixels[0]} x {pixels[1]} "
                       f"px is not its cut plus the bleed at {dpi:g} dpi ({expected[0]} x "
                       f"{expected[1]} px)")
                continue
        found.append(ShopSize(str(name), Box(*cut), pixels))
    return tuple(found)


def _pair(value: Any, kind: type) -> Any:
    """Two numbers as a tuple of `kind`, None when it is not two numbers."""
    if not (isinstance(value, list) and len(value) == 2 and all(
            isinstance(item, int | float) and not isinstance(item, bool)
            and math.isfinite(item) for item in value)):
        return None
    if kind is int and not all(float(item).is_integer() for item in value):
        return None
    return (kind(value[0]), kind(value[1]))
