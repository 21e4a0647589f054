"""Tuck boxes: for each of game.yaml's `boxes`, a one-piece net to cut out, fold and glue
round its decks' cards, laid out by WeasyPrint like any page. Its panels (front, back, sides,
top) are drawn by a template in the sandbox; the box's colour, its bleed, the glue areas and
the cut and fold lines are vector paths. A net too big for the paper prints in two parts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from markupsafe import Markup

from ..check.findings import Finding, display_path
from ..pack.load import Deck
from ..pack.schema import BoxSpec
from ..pack.yamlfile import line_of
from ..pipeline.execute import Assembled
from ..plan.geometry import Box
from ..plan.parts import Part
from ..plan.render import template_problem
from ..plan.tuckbox import (
    FACES,
    Inside,
    Net,
    Panel,
    Placed,
    inside,
    net,
    notch,
    pages,
    printable,
)
from .base import Document, File, OutputKind

HATCH = 2.0  # mm between the lines that hatch a glue area
LABEL_ROOM = (12.0, 4.0)  # mm along and across a glue area that its label needs: a smaller one
# (the dust flaps of a thin deck's box) is hatched only
HATCH_COLOR = "#9a9a9a"
FOLD_DASH = "3 2"  # a fold's dashes and gaps in mm, as the gutter fold's (impose.marks_svg)
SOURCE = "box:"  # what a panel's `data-source` starts with: findings on it name the box


@dataclass(frozen=True)
class Made:
    """A box the pack's data can make: its spec, its place in game.yaml, its decks, the
    copies of their cards, its inside and the nets that print it (one, or two parts)."""

    spec: BoxSpec
    line: int
    decks: list[Deck]
    cards: int
    inside: Inside
    nets: list[Net]


class BoxesOutput(OutputKind):
    """Every box game.yaml asks for, `count` nets of each, in one PDF, single-sided."""

    name = "boxes"

    def check(self) -> list[Finding]:
        """A box naming a deck that is not there, sharing its id, without a template, or too
        big for the paper even in two parts (E121, E022); too big whole (W120)."""
        return self._boxes[1]

    @cached_property
    def _boxes(self) -> tuple[list[Made], list[Finding]]:
        """The boxes that can be made, and what is wrong with the others."""
        job = self.job
        game, geometry = job.game, job.geometry
        where = display_path(game.root / "game.yaml")
        decks = {deck.spec.id: deck for deck in game.decks}
        room = geometry.room(job.paper)
        made, found, seen = [], [], set()

        def at(index: int, *keys: Any) -> int:
            return line_of(game.spec_data, ("boxes", index, *keys))

        for index, spec in enumerate(game.spec.boxes):
            subject = f"box '{spec.id}'"
            problems = [Finding(where, at(index, "decks", number), f"{subject} names deck "
                                f"'{deck}', which the game does not have", "E121")
                        for number, deck in enumerate(spec.decks) if deck not in decks]
            if spec.id in seen:
                problems.append(Finding(where, at(index, "id"), f"{subject}: another box has "
                                        "the same id", "E121"))
            seen.add(spec.id)
            template = template_problem(game, f"cards/{spec.template}.html.j2",
                                        (where, at(index, "template")), f"{subject}: ")
            problems += [template] if template else []
            held = [decks[deck] for deck in spec.decks if deck in decks]
            if problems or any(deck.spec.size not in geometry.sizes for deck in held):
                found += problems  # an unknown size is told as E021
                continue
            sizes = [geometry.sizes[deck.spec.size] for deck in held]
            card = Box(max(size.width for size in sizes), max(size.height for size in sizes))
            cards = sum(deck.copies for deck in held)
            room_inside = inside(card, cards, spec.thickness or geometry.card_thickness,
                                 geometry.box_clearance if spec.clearance is None
                                 else spec.clearance, spec.depth)
            whole = net(room_inside)
            nets = printable(whole, room, geometry.overlap)
            size = (f"its net, {whole.width:g}×{whole.height:g} mm, does not fit the "
                    f"{room.width:g}×{room.height:g} mm that can be printed on {job.paper}")
            if nets is None:
                found.append(Finding(where, at(index), f"{subject}: {size}, even in two parts: "
                                     "give it fewer cards or a smaller `depth`", "E121"))
                continue
            if len(nets) > 1:
                found.append(Finding(where, at(index), f"{subject}: {size}: it prints in two "
                                     "parts, glued along a strip", "W120"))
            made.append(Made(spec, at(index), held, cards, room_inside, nets))
        return made, found

    def plan(self) -> list[Document]:
        """One document of every box's nets, one part a page; none when there are no boxes."""
        job = self.job
        made = self._boxes[0]
        if not made:
            return []
        owners = [box for box in made for _ in range(box.spec.count) for _ in box.nets]
        nets = [item for box in made for _ in range(box.spec.count) for item in box.nets]
        paper = job.geometry.papers[job.paper]
        placed = pages(nets, paper, job.geometry.room(job.paper), job.geometry.gutter)
        faces = {(box.spec.id, panel): self._face(box, panel) for box in made for panel in FACES}
        title = f"{job.game.spec.title} {job.game.spec.version} — boxes ({job.paper})"
        where = display_path(job.game.root / "game.yaml")
        parts, index = [], 0
        for page in placed:
            drawn = []
            for item in page:
                drawn.append(self._drawn(item, owners[index], faces))
                index += 1
            parts.append(Part(job.renderer.render("boxes.html.j2", {
                **job.renderer.page_context(), "title": title, "paper": paper,
                "pages": [drawn]}), where))
        self.counts = {box.spec.id: {"faces": box.spec.count, "backs": 0}
                       | ({"pieces": box.spec.count * 2} if len(box.nets) > 1 else {})
                       for box in made}
        return [Document(f"boxes-{job.paper}.pdf", parts, duplex=None)]

    def _face(self, box: Made, panel: str) -> Markup:
        """One panel of a box drawn by its template."""
        job = self.job
        game, renderer = job.game, job.renderer
        size = net(box.inside).panel(panel).face
        where = (display_path(game.root / "game.yaml"), box.line)
        name = box.spec.name or renderer.words["list_separator"].join(
            deck.spec.name for deck in box.decks)
        return Markup(renderer.render(f"cards/{box.spec.template}.html.j2", {
            "game": game.spec, "palette": game.spec.palette, "words": renderer.words,
            "box": box.spec, "name": name, "decks": [deck.spec for deck in box.decks],
            "count": box.cards, "inside": box.inside, "panel": panel, "size": size,
            "notch": notch(box.inside.width) if panel == "front" else 0,
            "safe": job.geometry.safe, "color": self._color(box),
        }, where))

    def _color(self, box: Made) -> str:
        """The colour a box is painted."""
        return box.spec.color or self.job.game.spec.palette.get("paper", "#ffffff")

    def _drawn(self, item: Placed, box: Made, faces: dict[tuple[str, str], Markup]
               ) -> dict[str, Any]:
        """What the page template draws of one net: where it goes, its panels' faces, its
        glue labels and the vector layers under and over them."""
        geometry = self.job.geometry
        shown = item.net
        return {
            "x": item.x + (shown.height if item.turned else 0), "y": item.y,
            "turned": item.turned, "width": shown.width, "height": shown.height,
            "source": SOURCE + box.spec.id, "part": shown.part,
            "faces": [(faces[box.spec.id, panel.name], panel, panel.face)
                      for panel in shown.panels if panel.name in FACES],
            "glued": [panel for panel in shown.panels if panel.glued and _labelled(panel)],
            "under": _under(shown, self._color(box), geometry.bleed),
            "over": _over(shown, geometry.mark_width, geometry.mark_color),
        }

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The PDF, printed one-sided at its true size."""
        return [File(document.file, made.pdf, self.entry(document.file, made.pages,
                                                          self.counts))]


def _svg(shown: Net, margin: float, body: str) -> Markup:
    """An SVG in mm covering a net and `margin` round it."""
    width, height = shown.width + 2 * margin, shown.height + 2 * margin
    return Markup(
        f'<svg class="box-lines" xmlns="http://www.w3.org/2000/svg" width="{width:.3f}mm" '
        f'height="{height:.3f}mm" viewBox="{-margin:.3f} {-margin:.3f} {width:.3f} '
        f'{height:.3f}" style="left: {-margin:.3f}mm; top: {-margin:.3f}mm">{body}</svg>')


def _under(shown: Net, color: str, bleed: float) -> Markup:
    """The box's colour over every panel and `bleed` mm past every edge."""
    paths = "".join(f'<path d="{panel.path()}"/>' for panel in shown.panels)
    return _svg(shown, bleed, f'<g fill="{color}" stroke="{color}" '
                f'stroke-width="{2 * bleed:g}" stroke-linejoin="round">{paths}</g>')


def _over(shown: Net, width: float, color: str) -> Markup:
    """The glue areas hatched, the folds dashed and the cuts solid, each line on a white
    halo so that it shows on any colour."""
    hatch = "".join(f'<path d="M{x0:.3f} {y0:.3f}L{x1:.3f} {y1:.3f}"/>'
                    for panel in shown.panels if panel.glued for x0, y0, x1, y1 in _hatch(panel))
    folds = "".join(edge.path() for edge in shown.folds())
    cuts = "".join(edge.path() for edge in shown.cuts())
    halo = f'stroke="#ffffff" stroke-width="{3 * width:g}"'
    line = f'stroke="{color}" stroke-width="{width:g}"'
    return _svg(shown, 1, (
        f'<g fill="none">'
        f'<g stroke="{HATCH_COLOR}" stroke-width="0.3">{hatch}</g>'
        f'<path class="box-fold" d="{folds}" {halo} stroke-dasharray="{FOLD_DASH}"/>'
        f'<path class="box-cut" d="{cuts}" {halo}/>'
        f'<path class="box-fold" d="{folds}" {line} stroke-dasharray="{FOLD_DASH}"/>'
        f'<path class="box-cut" d="{cuts}" {line}/></g>'))


def _hatch(panel: Panel) -> list[tuple[float, float, float, float]]:
    """Lines at 45 degrees across a convex panel, HATCH mm apart."""
    corners = [edge.start for edge in panel.outline]
    low = min(x - y for x, y in corners)
    high = max(x - y for x, y in corners)
    lines = []
    step = HATCH * 2 ** 0.5  # along x, for lines HATCH apart
    offset = low + step / 2
    while offset < high:
        ends = []
        for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1], strict=True):
            across = (x1 - x0) - (y1 - y0)
            if across:
                share = (offset - x0 + y0) / across
                if 0 <= share <= 1:
                    ends.append((x0 + share * (x1 - x0), y0 + share * (y1 - y0)))
        if len(ends) >= 2:
            first, last = min(ends), max(ends)
            lines.append((*first, *last))
        offset += step
    return lines


def _labelled(panel: Panel) -> bool:
    """Whether a glue area is big enough to carry its label, read along its turn."""
    along, across = (panel.height, panel.width) if panel.turn % 180 else (panel.width,
                                                                           panel.height)
    return along >= LABEL_ROOM[0] and across >= LABEL_ROOM[1]
