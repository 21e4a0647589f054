"""Tuck boxes as data: the inside a stack of cards needs, and the one-piece net that folds
round it, in mm from the net's top left corner, y downwards.

The net is the usual one: front, side, back, side and a glue tab in a row; the top flap on
the back with its tongue, which tucks inside the front under a thumb notch; dust flaps on the
sides' top edges; the bottom on the front, glued to the sides' lower flaps. An edge two panels
share is a fold, every other edge is cut. A net too big for the paper is printed in two parts,
cut apart between the first side and the back: the first part ends in a glue strip the back
is laid on.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

from .geometry import Box
from .shapes import svg_number

TONGUE = 15  # mm: the top flap's tongue (at most a third of the height)
TONGUE_CORNER = 5  # mm: the radius of the tongue's rounded corners
GLUE_TAB = 10  # mm: the tab along the last side, glued inside the front
BEVEL = 3  # mm: how far the ends of a glue tab or strip are bevelled
NOTCH = 8  # mm: the radius of the thumb notch in the front's top edge (a quarter of it at most)
DUST_TAPER = 0.25  # a dust flap's edge beside another flap slants in by this much of the depth
FACES = ("front", "back", "side", "top")  # the panels a box's template draws

Point = tuple[float, float]


@dataclass(frozen=True)
class Inside:
    """The room inside a box, in mm: the cards' width and height, and the stack's depth."""

    width: float
    height: float
    depth: float


def inside(card: Box, cards: int, thickness: float, clearance: float,
           depth: float | None = None) -> Inside:
    """What a stack of `cards` cards of size `card` needs: their width and height plus the
    clearance, and the stack's thickness plus the clearance (or the `depth` given)."""
    deep = cards * thickness + clearance if depth is None else depth
    return Inside(round(card.width + clearance, 4), round(card.height + clearance, 4),
                  round(deep, 4))


@dataclass(frozen=True)
class Edge:
    """One edge of a panel's outline: straight, or an arc of `radius` (SVG's sweep flag:
    1 turns clockwise on the page)."""

    start: Point
    end: Point
    radius: float = 0
    sweep: int = 1

    def key(self) -> Hashable:
        """The edge whichever way a straight one runs, its ends rounded: two panels sharing
        it agree (an arc is no one else's)."""
        ends = tuple((round(x, 3), round(y, 3)) for x, y in (self.start, self.end))
        return (ends, self.radius) if self.radius else frozenset(ends)

    def segment(self) -> str:
        """The edge as SVG path data from its start: a line or an arc, in mm."""
        end = f"{svg_number(self.end[0])} {svg_number(self.end[1])}"
        if self.radius:
            return f"A{svg_number(self.radius)} {svg_number(self.radius)} 0 0 {self.sweep} {end}"
        return f"L{end}"

    def path(self) -> str:
        """The edge alone as SVG path data."""
        return f"M{svg_number(self.start[0])} {svg_number(self.start[1])}{self.segment()}"

    def moved(self, dx: float, dy: float) -> Edge:
        """The same edge shifted by (dx, dy)."""
        return replace(self, start=(self.start[0] + dx, self.start[1] + dy),
                       end=(self.end[0] + dx, self.end[1] + dy))


@dataclass(frozen=True)
class Panel:
    """A piece of the net: what it is, the rectangle its face is drawn in (left, top, width,
    height), its outline, the quarter turns (clockwise) its face is drawn at so that it reads
    the right way up once folded, and whether glue goes on it."""

    name: str
    x: float
    y: float
    width: float
    height: float
    outline: tuple[Edge, ...]
    turn: int = 0
    glued: bool = False

    @property
    def face(self) -> Box:
        """The panel as its template draws it, upright."""
        return Box(self.height, self.width) if self.turn % 180 else Box(self.width, self.height)

    def path(self) -> str:
        """The outline as one closed SVG path."""
        start = self.outline[0].start
        return (f"M{svg_number(start[0])} {svg_number(start[1])}"
                + "".join(edge.segment() for edge in self.outline) + "Z")

    def moved(self, dx: float, dy: float) -> Panel:
        """The same panel shifted by (dx, dy)."""
        return replace(self, x=round(self.x + dx, 4), y=round(self.y + dy, 4),
                       outline=tuple(edge.moved(dx, dy) for edge in self.outline))


def _polygon(points: list[Point]) -> tuple[Edge, ...]:
    """The straight edges of a closed polygon."""
    return tuple(Edge(a, b) for a, b in zip(points, points[1:] + points[:1], strict=True))


def _panel(name: str, x: float, y: float, width: float, height: float, turn: int = 0
           ) -> Panel:
    """A plain rectangular panel."""
    corners = [(x, y), (x + width, y), (x + width, y + height), (x, y + height)]
    return Panel(name, x, y, width, height, _polygon(corners), turn)


def _tab(name: str, x: float, top: float, bottom: float, width: float) -> Panel:
    """A glue tab or strip on the vertical edge at `x`, its outer ends bevelled."""
    bevel = min(BEVEL, width, (bottom - top) / 4)
    points = [(x, top), (x + width, top + bevel), (x + width, bottom - bevel), (x, bottom)]
    return Panel(name, x, top, width, bottom - top, _polygon(points), 90, glued=True)


@dataclass(frozen=True)
class Net:
    """A box's net, or one of its two parts (`part` 1 or 2; 0 when whole): its panels and
    the box they fill, from (0, 0)."""

    panels: tuple[Panel, ...]
    width: float
    height: float
    part: int = 0

    def _edges(self) -> list[list[Edge]]:
        """Every edge with the edges of other panels that lie on it."""
        shared: dict[Hashable, list[Edge]] = {}
        for panel in self.panels:
            for edge in panel.outline:
                shared.setdefault(edge.key(), []).append(edge)
        return list(shared.values())

    def folds(self) -> list[Edge]:
        """The edges two panels share, once each: folded."""
        return [edges[0] for edges in self._edges() if len(edges) > 1]

    def cuts(self) -> list[Edge]:
        """The edges of one panel only: cut."""
        return [edges[0] for edges in self._edges() if len(edges) == 1]

    def panel(self, name: str) -> Panel:
        """The first panel of that name."""
        return next(panel for panel in self.panels if panel.name == name)

    def size(self) -> Box:
        """Its width and height."""
        return Box(self.width, self.height)


def notch(width: float) -> float:
    """The radius of the thumb notch in the top edge of a front that wide: how far it reaches
    down into the front."""
    return min(NOTCH, width / 4)


def net(room: Inside) -> Net:
    """The one-piece net of a box with that inside."""
    width, height, depth = room.width, room.height, room.depth
    tongue = min(TONGUE, height / 3)
    tab = min(GLUE_TAB, width / 2)
    flap = min(depth, width / 2)  # the dust flaps, each reaching at most half across
    taper = DUST_TAPER * depth
    cutout = notch(width)
    corner = min(TONGUE_CORNER, tongue / 2, width / 4)
    x1, x2, x3, x4 = width, width + depth, 2 * width + depth, 2 * (width + depth)
    y0, y1 = tongue, tongue + depth
    y2, y3 = y1 + height, y1 + height + depth
    middle = width / 2
    front = Panel("front", 0, y1, width, height, (
        Edge((0, y1), (middle - cutout, y1)),
        Edge((middle - cutout, y1), (middle + cutout, y1), cutout, 0),
        Edge((middle + cutout, y1), (x1, y1)),
        *_polygon([(x1, y1), (x1, y2), (0, y2), (0, y1)])[:3]))
    tongue_panel = Panel("tongue", x2, 0, width, tongue, (
        Edge((x2, y0), (x2, corner)),
        Edge((x2, corner), (x2 + corner, 0), corner),
        Edge((x2 + corner, 0), (x3 - corner, 0)),
        Edge((x3 - corner, 0), (x3, corner), corner),
        Edge((x3, corner), (x3, y0)),
        Edge((x3, y0), (x2, y0))))
    panels = (
        front,
        _panel("side", x1, y1, depth, height, 90),
        _panel("back", x2, y1, width, height),
        _panel("side", x3, y1, depth, height, 90),
        _tab("tab", x4, y1, y2, tab),
        _panel("top", x2, y0, width, depth, 180),
        tongue_panel,
        Panel("dust", x1, y1 - flap, depth, flap,
              _polygon([(x1, y1), (x1, y1 - flap), (x2 - taper, y1 - flap), (x2, y1)])),
        Panel("dust", x3, y1 - flap, depth, flap,
              _polygon([(x3, y1), (x3 + taper, y1 - flap), (x4, y1 - flap), (x4, y1)])),
        _panel("bottom", 0, y2, width, depth),
        Panel("flap", x1, y2, depth, flap,
              _polygon([(x1, y2), (x2, y2), (x2, y2 + flap), (x1 + taper, y2 + flap)]),
              glued=True),
        Panel("flap", x3, y2, depth, flap,
              _polygon([(x3, y2), (x4, y2), (x4, y2 + flap), (x3, y2 + flap)]), glued=True),
    )
    return Net(panels, round(x4 + tab, 4), round(y3, 4))


def halves(whole: Net, strip: float) -> tuple[Net, Net]:
    """The net cut in two between the first side and the back: the front, the first side and
    what hangs on them, ending in a glue `strip` mm wide; then the back, the second side, the
    glue tab and what hangs on them. Each starts at (0, 0)."""
    back = whole.panel("back")
    cut = back.x
    first = [panel for panel in whole.panels if panel.x < cut]
    second = [panel for panel in whole.panels if panel.x >= cut]
    first.append(_tab("strip", cut, back.y, back.y + back.height, strip))
    top = min(panel.y for panel in first)
    one = tuple(panel.moved(0, -top) for panel in first)
    two = tuple(panel.moved(-cut, 0) for panel in second)
    return (Net(one, round(cut + strip, 4), round(whole.height - top, 4), 1),
            Net(two, round(whole.width - cut, 4),
                round(max(p.y + p.height for p in two), 4), 2))


def fits(size: Box, room: Box) -> bool | None:
    """Whether a box fits in the room upright (False), turned a quarter (True), or not at
    all (None)."""
    if size.width <= room.width and size.height <= room.height:
        return False
    if size.height <= room.width and size.width <= room.height:
        return True
    return None


def printable(whole: Net, room: Box, strip: float) -> list[Net] | None:
    """What prints of a net in that room: itself, else its two halves, else nothing."""
    if fits(whole.size(), room) is not None:
        return [whole]
    parts = list(halves(whole, strip))
    return parts if all(fits(part.size(), room) is not None for part in parts) else None


@dataclass(frozen=True)
class Placed:
    """A net on a page: where its top left corner is as it lies on the page (mm from the
    page's top left), and whether it is turned a quarter clockwise."""

    net: Net
    x: float
    y: float
    turned: bool

    @property
    def footprint(self) -> Box:
        """The box it covers on the page."""
        size = self.net.size()
        return Box(size.height, size.width) if self.turned else size


def pages(nets: list[Net], paper: Box, room: Box, gap: float) -> list[list[Placed]]:
    """Nets stacked down the pages, each upright if it fits so, else turned a quarter; every
    net centred across the paper, every page's stack centred down it; `gap` mm apart. Each
    net must fit the room (see `printable`)."""
    stacks: list[list[tuple[Net, bool]]] = [[]]
    used = 0.0
    for item in nets:
        turned = bool(fits(item.size(), room))
        height = item.width if turned else item.height
        if stacks[-1] and used + gap + height > room.height:
            stacks.append([])
            used = 0.0
        used += (gap if stacks[-1] else 0) + height
        stacks[-1].append((item, turned))
    placed = []
    for stack in stacks:
        total = sum(net.width if turned else net.height for net, turned in stack) + \
            gap * (len(stack) - 1)
        y = (paper.height - total) / 2
        page = []
        for item, turned in stack:
            width, height = (item.height, item.width) if turned else (item.width, item.height)
            page.append(Placed(item, round((paper.width - width) / 2, 4), round(y, 4), turned))
            y += height + gap
        placed.append(page)
    return placed
