"""Piece outlines as data: a rectangle, rounded corners, a circle, a hexagon or a pack's own
SVG path, each grown outward for the bleed and shrunk inward for the safe zone, in mm.

Every outline lies in its piece's cut box, (0, 0) at its top left corner, y downwards.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from functools import lru_cache

from ..text.fonts import Point, svg_contours

KINDS = ("rect", "rounded", "circle", "hex", "path")
CONVEX = ("rect", "rounded", "circle", "hex")  # a box is inside these when its corners are
ARC_STEPS = 96  # segments of a full circle when an outline is drawn as a polygon (0.01 mm off
# the true circle at 15 mm radius)
CURVE_STEPS = 16  # segments of each Bézier curve of a pack's SVG outline
MAX_POINTS = 2000  # corners an SVG outline may have once its curves are cut into segments:
# every text of every face is measured against it, so a stranger's million-point path is refused
MITRE_LIMIT = 4  # a sharp corner grown further than this many times the growth is bevelled
SAMPLE_MM = 0.5  # how far apart the points of a box are tested against an outline
TEXT_BOX_WIDTHS = 24  # widths tried for the text box inside a circle, a hex or an outline
TEXT_BOX_HALVINGS = 20  # halvings that find the tallest text box of a width (40 mm: 0.04 µm)
_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*mm\s*$")


@dataclass(frozen=True)
class Shape:
    """What a piece's cut line is: `kind` (rect, rounded, circle, hex or path), the corner
    radius of a rounded rectangle, whether a hexagon has a point at its top (else a flat
    edge), and a path's outline as points scaled to a 1 x 1 box."""

    kind: str = "rect"
    radius: float = 0
    pointy: bool = True
    points: tuple[Point, ...] = ()
    source: str = ""  # the pack file a path came from, for messages

    @property
    def square(self) -> bool:
        """Whether it is a plain rectangle, cut with straight lines and crop marks."""
        return self.kind == "rect"

    @property
    def on_grid(self) -> bool:
        """Whether pieces of it share cut lines on a grid with crop marks, cut straight (a
        rectangle; rounded corners are punched after); else each is cut along its outline."""
        return self.kind in ("rect", "rounded")

    @property
    def name(self) -> str:
        """How a message names it: `circle`, `hex (flat top)`, `corners 3 mm`, the SVG file."""
        if self.kind == "rounded":
            return f"rounded rectangle (corners {self.radius:g} mm)"
        if self.kind == "hex":
            return "hex (pointy top)" if self.pointy else "hex (flat top)"
        if self.kind == "path":
            return self.source or "outline"
        return self.kind


RECT = Shape()


def corner_radius(value: str | float | int | None) -> float:
    """`corners:` as mm: a number or `3mm`; ValueError for anything else."""
    if value is None:
        return 0.0
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str) and (match := _LENGTH.match(value)):
        number = float(match.group(1))
    else:
        raise ValueError("corners must be a length in mm, such as 3mm")
    if not 0 <= number <= 100:
        raise ValueError("corners must be between 0 and 100 mm")
    return number


def builtin_shape(value: str | None, corners: str | float | None = None) -> Shape:
    """The shape a `shape:` word and a `corners:` length name (not a path: see svg_shape);
    ValueError naming what is allowed."""
    radius = corner_radius(corners)
    if value in (None, "rect", "rectangle"):
        return Shape("rounded", radius) if radius else RECT
    if radius:
        raise ValueError(f"corners apply to a rectangle, not to shape '{value}'")
    if value == "circle":
        return Shape("circle")
    if value in ("hex", "hex-pointy"):
        return Shape("hex", pointy=True)
    if value == "hex-flat":
        return Shape("hex", pointy=False)
    raise ValueError(f"unknown shape '{value}': use rect, circle, hex (hex-pointy), hex-flat, "
                     "corners: 3mm, or a closed path in an .svg file of the pack")


def mirrored(shape: Shape, left_right: bool) -> Shape:
    """The shape seen from behind once turned over: flipped left to right, or top to bottom
    (only a pack's outline changes; every built-in shape is symmetric both ways)."""
    if shape.kind != "path":
        return shape
    flipped = [(1 - x, y) if left_right else (x, 1 - y) for x, y in shape.points]
    return Shape("path", points=tuple(flipped[::-1]), source=shape.source)  # still clockwise


def fits(shape: Shape, width: float, height: float) -> str | None:
    """Why a shape cannot be a `width` x `height` piece, else None."""
    if shape.kind == "rounded" and shape.radius * 2 > min(width, height) + 1e-9:
        return (f"corners of {shape.radius:g} mm are more than half the {width:g}×{height:g} mm "
                "piece's side")
    return None


def outline(shape: Shape, width: float, height: float, grow: float = 0) -> list[Point]:
    """The outline as a polygon, clockwise on the page, grown `grow` mm outward (negative:
    inward). Curves become short straight segments, 0.01 mm off at most."""
    return list(_outline(shape, width, height, grow))


@lru_cache(maxsize=256)
def _outline(shape: Shape, width: float, height: float, grow: float) -> tuple[Point, ...]:
    """outline, worked out once for each piece of a sheet."""
    return tuple(_drawn_outline(shape, width, height, grow))


def _drawn_outline(shape: Shape, width: float, height: float, grow: float) -> list[Point]:
    if shape.kind == "rect":
        return [(-grow, -grow), (width + grow, -grow), (width + grow, height + grow),
                (-grow, height + grow)]
    if shape.kind == "circle":
        rx, ry = max(width / 2 + grow, 0), max(height / 2 + grow, 0)
        return [(width / 2 + rx * math.cos(a), height / 2 + ry * math.sin(a))
                for a in (2 * math.pi * step / ARC_STEPS for step in range(ARC_STEPS))]
    if shape.kind == "rounded":
        radius = max(shape.radius + grow, 0)
        left, top, right, bottom = -grow, -grow, width + grow, height + grow
        centres = ((right - radius, top + radius, -90), (right - radius, bottom - radius, 0),
                   (left + radius, bottom - radius, 90), (left + radius, top + radius, 180))
        points: list[Point] = []
        steps = ARC_STEPS // 4
        for cx, cy, start in centres:
            for step in range(steps + 1):
                angle = math.radians(start + 90 * step / steps)
                points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
        return _deduplicated(points)
    return offset(_polygon(shape, width, height), grow)


def _polygon(shape: Shape, width: float, height: float) -> list[Point]:
    """A hexagon's or a path's corners in a `width` x `height` box."""
    if shape.kind == "hex" and shape.pointy:
        unit = [(0.5, 0), (1, 0.25), (1, 0.75), (0.5, 1), (0, 0.75), (0, 0.25)]
    elif shape.kind == "hex":
        unit = [(0.25, 0), (0.75, 0), (1, 0.5), (0.75, 1), (0.25, 1), (0, 0.5)]
    else:
        unit = list(shape.points)
    return [(x * width, y * height) for x, y in unit]


def _deduplicated(points: list[Point], within: float = 1e-9) -> list[Point]:
    """Points without one repeating the one before it (`within` mm of it)."""
    out: list[Point] = []
    for point in points:
        if not out or math.dist(out[-1], point) > within:
            out.append(point)
    if len(out) > 1 and math.dist(out[0], out[-1]) <= within:
        out.pop()
    return out


def area(points: list[Point]) -> float:
    """A polygon's signed area: positive when clockwise on the page (y downwards)."""
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in
               zip(points, points[1:] + points[:1], strict=True)) / 2


def offset(points: list[Point], grow: float) -> list[Point]:
    """A polygon with every edge moved `grow` mm outward (negative: inward), corners mitred
    (bevelled past MITRE_LIMIT)."""
    if not grow:
        return list(points)
    if area(points) < 0:
        points = points[::-1]
    count, out = len(points), []
    for index in range(count):
        before, here, after = points[index - 1], points[index], points[(index + 1) % count]
        n0, n1 = _normal(before, here), _normal(here, after)
        bisector = (n0[0] + n1[0], n0[1] + n1[1])
        cos_half = math.hypot(*bisector) / 2
        if cos_half < 1e-9:
            continue
        mitre = 1 / cos_half
        if mitre > MITRE_LIMIT and grow > 0:  # bevel a spike
            out += [(here[0] + n0[0] * grow, here[1] + n0[1] * grow),
                    (here[0] + n1[0] * grow, here[1] + n1[1] * grow)]
            continue
        scale = grow * mitre / (2 * cos_half)
        out.append((here[0] + bisector[0] * scale, here[1] + bisector[1] * scale))
    return out


def _normal(start: Point, end: Point) -> Point:
    """The outward unit normal of a clockwise polygon's edge (y downwards)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1
    return dy / length, -dx / length


def contains(points: list[Point], point: Point) -> bool:
    """Whether a polygon holds a point (even-odd)."""
    x, y = point
    inside = False
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def distance(points: list[Point], point: Point) -> float:
    """How far a point lies from a polygon's outline."""
    return min(_to_segment(point, a, b) for a, b in zip(points, points[1:] + points[:1],
                                                         strict=True))


def _to_segment(point: Point, start: Point, end: Point) -> float:
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = dx * dx + dy * dy
    t = 0.0 if not length else max(0.0, min(1.0, ((point[0] - start[0]) * dx
                                                  + (point[1] - start[1]) * dy) / length))
    return math.dist(point, (start[0] + t * dx, start[1] + t * dy))


def clipped(points: list[Point], box: tuple[float, float, float, float]) -> list[Point]:
    """The part of a polygon inside a box (left, top, right, bottom): Sutherland-Hodgman."""
    left, top, right, bottom = box
    if all(left <= x <= right and top <= y <= bottom for x, y in points):
        return _deduplicated(list(points), 1e-3)  # wholly inside: nothing to cut
    edges = ((0, left, 1), (1, top, 1), (0, right, -1), (1, bottom, -1))  # axis, at, inward
    out = list(points)
    for axis, at, inward in edges:
        kept: list[Point] = []
        for index, here in enumerate(out):
            before = out[index - 1]
            inside, was_inside = ((here[axis] - at) * inward >= 0,
                                  (before[axis] - at) * inward >= 0)
            if inside != was_inside:
                t = (at - before[axis]) / (here[axis] - before[axis])
                kept.append((before[0] + t * (here[0] - before[0]),
                             before[1] + t * (here[1] - before[1])))
            if inside:
                kept.append(here)
        out = kept
    return _deduplicated(out, 1e-3)  # a corner the box shaves by a hair is one corner


def below(fixed: list[Point], moving: list[Point], across: float) -> float | None:
    """How far down `moving`, first moved `across` mm right, must go so that in every
    vertical line it lies below `fixed` (as it would stop sliding up under it); None when the
    two share no vertical line. Exact for polygons: checked at every corner of either."""
    moved = [(x + across, y) for x, y in moving]
    low, high = max(min(x for x, _ in fixed), min(x for x, _ in moved)), \
        min(max(x for x, _ in fixed), max(x for x, _ in moved))
    if low > high + 1e-9:
        return None
    worst = -math.inf
    for x in sorted({x for x, _ in fixed + moved if low - 1e-9 <= x <= high + 1e-9}
                    | {low, high}):
        bottom, top = _span(fixed, x)[1], _span(moved, x)[0]
        worst = max(worst, bottom - top)
    return worst


def _span(points: list[Point], x: float) -> tuple[float, float]:
    """The top and bottom of a polygon along the vertical line `x` (which must cross it)."""
    ys = []
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        if min(x0, x1) - 1e-9 <= x <= max(x0, x1) + 1e-9:
            if abs(x1 - x0) < 1e-9:
                ys += [y0, y1]
            else:
                t = min(1.0, max(0.0, (x - x0) / (x1 - x0)))
                ys.append(y0 + t * (y1 - y0))
    return min(ys), max(ys)


def shares_sides(points: list[Point], width: float) -> bool:
    """Whether two copies of a polygon side by side, `width` mm apart, can share a straight
    cut: it runs straight down x = 0 and x = `width` along the same stretch (a pointy hex)."""
    sides: list[set[tuple[float, float]]] = [set(), set()]
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        for index, at in enumerate((0, width)):
            if abs(x0 - at) < 1e-6 and abs(x1 - at) < 1e-6 and abs(y1 - y0) > 1e-6:
                sides[index].add((round(min(y0, y1), 4), round(max(y0, y1), 4)))
    return bool(sides[0] & sides[1])


def corner_arcs(shape: Shape, width: float, height: float, at: Point = (0, 0)) -> str:
    """A rounded rectangle's four corner arcs alone, as SVG path data in mm, its cut box's
    top left corner at `at` (the straight sides are cut along crop marks)."""
    r, (x0, y0) = shape.radius, at
    left, top, right, bottom = x0, y0, x0 + width, y0 + height
    arc = f"A{_n(r)} {_n(r)} 0 0 1 "
    return (f"M{_n(left)} {_n(top + r)}{arc}{_n(left + r)} {_n(top)}"
            f"M{_n(right - r)} {_n(top)}{arc}{_n(right)} {_n(top + r)}"
            f"M{_n(right)} {_n(bottom - r)}{arc}{_n(right - r)} {_n(bottom)}"
            f"M{_n(left + r)} {_n(bottom)}{arc}{_n(left)} {_n(bottom - r)}")


def corner_bands(shape: Shape, width: float, height: float, band: float,
                 at: Point = (0, 0)) -> list[list[Point]]:
    """The strip `band` mm wide just outside each of a rounded rectangle's corner arcs and
    inside its cut box: what a corner punch cuts off first, as four polygons in mm."""
    r, (x0, y0) = shape.radius, at
    box = (x0, y0, x0 + width, y0 + height)
    steps = ARC_STEPS // 4
    bands = []
    for cx, cy, start in ((x0 + r, y0 + r, 180), (x0 + width - r, y0 + r, 270),
                          (x0 + width - r, y0 + height - r, 0), (x0 + r, y0 + height - r, 90)):
        angles = [math.radians(start + 90 * step / steps) for step in range(steps + 1)]
        ring = [(cx + (r + band) * math.cos(a), cy + (r + band) * math.sin(a)) for a in angles]
        ring += [(cx + r * math.cos(a), cy + r * math.sin(a)) for a in reversed(angles)]
        bands.append(clipped(ring, box))
    return bands


def outside_mm(shape: Shape, width: float, height: float, inset: float,
               box: tuple[float, float, float, float]) -> float:
    """How far a box (left, top, right, bottom, mm in the cut box) reaches outside the shape
    shrunk by `inset` mm: 0 when inside. A convex shape's farthest point is a corner of the
    box; a path's edges are tested every SAMPLE_MM."""
    zone = _zone(shape, width, height, inset)
    points = _corners(*box) if shape.kind in CONVEX else _edge_points(*box)
    return max((distance(zone, point) for point in points if not contains(zone, point)),
               default=0.0)


@lru_cache(maxsize=64)
def _zone(shape: Shape, width: float, height: float, inset: float) -> list[Point]:
    """The outline shrunk by `inset`, worked out once (every text of a face is measured
    against it); callers do not change it."""
    return outline(shape, width, height, -inset)


def _corners(left: float, top: float, right: float, bottom: float) -> list[Point]:
    return [(left, top), (right, top), (right, bottom), (left, bottom)]


def text_box(shape: Shape, width: float, height: float, inset: float
             ) -> tuple[float, float, float, float]:
    """Where a template sets its text: the largest rectangle (left, top, right, bottom, mm in
    the cut box) centred in the cut box and inside the shape shrunk by `inset`. Rounded
    corners larger than `inset` take the rest of their arc off every side."""
    if shape.kind in ("rect", "rounded"):
        left = inset + max(shape.radius - inset, 0) * (1 - math.sqrt(0.5))
        left = min(left, width / 2, height / 2)
        return left, left, width - left, height - left
    zone = _zone(shape, width, height, inset)
    convex = shape.kind in CONVEX
    middle_x, middle_y = width / 2, height / 2
    most_x, most_y = max(middle_x - inset, 0), max(middle_y - inset, 0)
    best = (0.0, 0.0, 0.0)  # area, half width, half height
    for step in range(1, TEXT_BOX_WIDTHS + 1):
        half_width, low, high = most_x * step / TEXT_BOX_WIDTHS, 0.0, most_y
        for _ in range(TEXT_BOX_HALVINGS):
            half_height = (low + high) / 2
            box = (middle_x - half_width, middle_y - half_height, middle_x + half_width,
                   middle_y + half_height)
            low, high = (half_height, high) if _box_inside(zone, convex, box) else (
                low, half_height)
        if half_width * low > best[0]:
            best = (half_width * low, half_width, low)
    _, half_width, half_height = best
    return (middle_x - half_width, middle_y - half_height, middle_x + half_width,
            middle_y + half_height)


def _box_inside(zone: list[Point], convex: bool, box: tuple[float, float, float, float]
                ) -> bool:
    """Whether a polygon holds a box whole: its corners, and for a polygon that may not be
    convex, no edge of it crossing the box's edges."""
    corners = _corners(*box)
    if not all(contains(zone, corner) for corner in corners):
        return False
    if convex:
        return True
    sides = list(zip(corners, corners[1:] + corners[:1], strict=True))
    return not any(_crossing(a, b, c, d) for a, b in zip(zone, zone[1:] + zone[:1], strict=True)
                   for c, d in sides)


def _crossing(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Whether the segments ab and cd cross or touch."""
    def turn(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return (turn(a, b, c) * turn(a, b, d) <= 0 and turn(c, d, a) * turn(c, d, b) <= 0
            and min(a[0], b[0]) <= max(c[0], d[0]) and min(c[0], d[0]) <= max(a[0], b[0])
            and min(a[1], b[1]) <= max(c[1], d[1]) and min(c[1], d[1]) <= max(a[1], b[1]))


def inner_radius(shape: Shape, width: float, height: float, inset: float) -> float:
    """The radius of the largest circle centred in the cut box inside the shape shrunk by
    `inset` (0 when the centre is outside it): the disc of a token."""
    zone = _zone(shape, width, height, inset)
    middle = (width / 2, height / 2)
    return distance(zone, middle) if contains(zone, middle) else 0.0


def encoded(shape: Shape) -> str:
    """A shape as text, for a page to carry to the layout's checks (`decoded` reads it)."""
    return json.dumps(asdict(shape), separators=(",", ":"))


def decoded(text: str) -> Shape:
    """A shape `encoded` wrote; ValueError when the text is not one."""
    try:
        data = json.loads(text)
        shape = Shape(str(data["kind"]), float(data["radius"]), bool(data["pointy"]),
                      tuple((float(x), float(y)) for x, y in data["points"]),
                      str(data["source"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a shape: {text[:40]!r}") from exc
    if shape.kind not in KINDS or (shape.kind == "path") != (len(shape.points) >= 3):
        raise ValueError(f"not a shape: {text[:40]!r}")
    return shape


def along(shape: Shape, width: float, height: float,
          spacing: float = SAMPLE_MM) -> list[tuple[Point, Point]]:
    """Points along the cut outline at most `spacing` mm apart, each with its outward unit
    normal: where a ring round the cut line (the bleed outside, the card inside) is sampled."""
    points = outline(shape, width, height)
    if area(points) < 0:
        points = points[::-1]
    found = []
    for start, end in zip(points, points[1:] + points[:1], strict=True):
        normal = _normal(start, end)
        steps = max(1, math.ceil(math.dist(start, end) / spacing))
        found += [((start[0] + (end[0] - start[0]) * step / steps,
                    start[1] + (end[1] - start[1]) * step / steps), normal)
                  for step in range(steps)]
    return found


def _edge_points(left: float, top: float, right: float, bottom: float) -> list[Point]:
    """Points along a box's four edges, corners included, at most SAMPLE_MM apart."""
    across = max(1, math.ceil((right - left) / SAMPLE_MM))
    down = max(1, math.ceil((bottom - top) / SAMPLE_MM))
    xs = [left + (right - left) * step / across for step in range(across + 1)]
    ys = [top + (bottom - top) * step / down for step in range(down + 1)]
    return ([(x, top) for x in xs] + [(x, bottom) for x in xs]
            + [(left, y) for y in ys] + [(right, y) for y in ys])


def svg_path(shape: Shape, width: float, height: float, grow: float = 0,
             at: Point = (0, 0)) -> str:
    """The outline as SVG path data in mm, its cut box's top left corner at `at`: true arcs
    for a circle and rounded corners, straight edges for the rest."""
    x0, y0 = at
    if shape.kind == "circle":
        rx, ry = width / 2 + grow, height / 2 + grow
        cx, cy = x0 + width / 2, y0 + height / 2
        return (f"M{_n(cx - rx)} {_n(cy)}A{_n(rx)} {_n(ry)} 0 1 1 {_n(cx + rx)} {_n(cy)}"
                f"A{_n(rx)} {_n(ry)} 0 1 1 {_n(cx - rx)} {_n(cy)}Z")
    if shape.kind == "rounded" and shape.radius + grow > 0:
        r = shape.radius + grow
        left, top, right, bottom = x0 - grow, y0 - grow, x0 + width + grow, y0 + height + grow
        arc = f"A{_n(r)} {_n(r)} 0 0 1 "
        return (f"M{_n(left + r)} {_n(top)}H{_n(right - r)}{arc}{_n(right)} {_n(top + r)}"
                f"V{_n(bottom - r)}{arc}{_n(right - r)} {_n(bottom)}H{_n(left + r)}"
                f"{arc}{_n(left)} {_n(bottom - r)}V{_n(top + r)}{arc}{_n(left + r)} {_n(top)}Z")
    points = outline(RECT if shape.kind == "rounded" else shape, width, height, grow)
    return "M" + "L".join(f"{_n(x0 + x)} {_n(y0 + y)}" for x, y in points) + "Z"


def view_box(width: float, height: float, grow: float) -> str:
    """The SVG viewBox, in mm, of a piece's box grown `grow` mm on every side, its origin at
    that box's top left corner (where `svg_path` draws with `at=(grow, grow)`)."""
    return f"0 0 {_n(width + 2 * grow)} {_n(height + 2 * grow)}"


def svg_number(value: float) -> str:
    """A length as SVG writes it: three decimals at most."""
    return f"{value:.3f}".rstrip("0").rstrip(".") or "0"


_n = svg_number


def svg_shape(data: bytes, source: str) -> Shape:
    """A pack's SVG outline: its largest closed path, scaled to fill the piece's cut box;
    ValueError saying what is wrong with the file."""
    closed = [_deduplicated(points) for points, shut in svg_contours(data, CURVE_STEPS)
              if shut and len(points) >= 3]
    if not closed:
        raise ValueError("has no closed path: the outline must be one <path> ending in Z")
    largest = max(closed, key=lambda points: abs(area(points)))
    if len(largest) > MAX_POINTS:
        raise ValueError(f"has an outline of {len(largest)} points once its curves are "
                         f"drawn, more than the {MAX_POINTS} a cut line may have: simplify it")
    xs, ys = [x for x, _ in largest], [y for _, y in largest]
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    if width <= 0 or height <= 0 or abs(area(largest)) < 1e-6 * width * height:
        raise ValueError("has a closed path with no area")
    unit = [((x - min(xs)) / width, (y - min(ys)) / height) for x, y in largest]
    if area(unit) < 0:
        unit.reverse()
    return Shape("path", points=tuple((round(x, 6), round(y, 6)) for x, y in unit),
                 source=source)
