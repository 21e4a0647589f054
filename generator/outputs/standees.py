"""Standees: standing figures folded from cards' faces, packed on pages of their own.

A standee is two panels of a card's size, head to head across a fold: the card's face upright
below, and above it the face again, mirrored and turned (or the card's back, turned), so that
folded back to back and glued each side reads upright. The faces are those every output draws
(plan/faces.py), drawn into boxes left for them; a standee given another template or size than
its deck's has its faces laid out once more, for it alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..check.findings import Finding, display_path
from ..pack.load import Deck
from ..pack.schema import CardBase, StandeeSpec
from ..pack.yamlfile import line_of
from ..pipeline.execute import Assembled
from ..plan.faces import Faces, faces_parts
from ..plan.geometry import Box
from ..plan.impose import Item, Piece, Sheet, Slot, pack_single
from ..plan.parts import Part
from ..plan.render import Face, template_problem
from .base import Document, File, OutputKind

Rect = tuple[float, float, float, float]  # left, top, right, bottom, in mm
SLOT_MARK = 3.0  # mm: how far into the panel a base's slot is marked (the slot hides it)


@dataclass(frozen=True)
class Figure:
    """One standee's cut box, upright, in mm from its top left: the back panel above the
    fold over the heads, the front below it, and a foot beyond each (none on a slot base)."""

    panel: Box
    foot: float = 0
    slot: float = 0

    @property
    def size(self) -> Box:
        """The whole standee at the cut line."""
        return Box(self.panel.width, round(2 * self.panel.height + 2 * self.foot, 4))

    @property
    def fold(self) -> float:
        """Where the fold over the heads is, from the top."""
        return self.foot + self.panel.height

    @property
    def back(self) -> Rect:
        """The back panel, upside down above the fold."""
        return 0, self.foot, self.panel.width, self.fold

    @property
    def front(self) -> Rect:
        """The front panel, upright below the fold."""
        return 0, self.fold, self.panel.width, self.fold + self.panel.height

    @property
    def folds(self) -> list[float]:
        """Every fold line, from the top: a foot's, the heads', the other foot's."""
        return sorted({self.fold, *((self.foot, self.fold + self.panel.height)
                                    if self.foot else ())})

    @property
    def feet(self) -> list[Rect]:
        """The back's foot at the top and the front's at the bottom (none on a slot base)."""
        if not self.foot:
            return []
        width, height = self.size.width, self.size.height
        return [(0, 0, width, self.foot), (0, height - self.foot, width, height)]

    @property
    def slots(self) -> list[Rect]:
        """Where a slot base grips each panel's bottom edge: the back's at the top, the
        front's at the bottom (none on a tab base, or one narrower than the slot)."""
        width, height = self.size.width, self.size.height
        if not self.slot or self.slot >= width:
            return []
        left, right = (width - self.slot) / 2, (width + self.slot) / 2
        return [(left, 0, right, SLOT_MARK), (left, height - SLOT_MARK, right, height)]


@dataclass(frozen=True, kw_only=True)
class Standee(Piece):
    """What fills a standee's slot: the front face (the piece's own), the face its back panel
    shows and whether mirrored, and its figure."""

    behind: Face
    mirrored: bool
    figure: Figure


@dataclass(frozen=True)
class Drawn:
    """A face as the page draws it: its key, its box with the bleed and the box it is cut
    to (left, top, width, height in mm), its quarter turns and whether mirrored."""

    key: str
    box: tuple[float, float, float, float]
    clip: tuple[float, float, float, float]
    turn: int
    mirror: bool


def turned(rect: Rect, upright: Box, turn: int) -> Rect:
    """A rectangle of an upright box, once the box is turned `turn` degrees clockwise with
    its top left corner kept where it was."""
    corners = []
    for x in (rect[0], rect[2]):
        for y in (rect[1], rect[3]):
            corners.append({90: (upright.height - y, x), 180: (upright.width - x,
                                                                upright.height - y),
                            270: (y, upright.width - x)}.get(turn, (x, y)))
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def drawn_faces(slot: Slot, keys: dict[Face, str], bleed: float) -> list[Drawn]:
    """The back and front panels of a standee's slot as the page draws them: each face's box
    with its bleed all round, cut to its panel and to the slot's bleed on its outer edges
    (never across a fold)."""
    standee = slot.piece
    assert isinstance(standee, Standee)
    figure, trim, outer = standee.figure, slot.trim, slot.drawn
    out = []
    for face, rect, turn, mirror in ((standee.behind, figure.back, 180, standee.mirrored),
                                     (standee.face, figure.front, 0, False)):
        left, top, right, bottom = turned(rect, figure.size, slot.turn)
        left, top, right, bottom = left + slot.x, top + slot.y, right + slot.x, bottom + slot.y
        clip = [outer[side] if abs(edge - trim[side]) < 1e-6 else edge
                for side, edge in enumerate((left, top, right, bottom))]
        out.append(Drawn(keys[face], _box(left - bleed, top - bleed, right + bleed,
                                          bottom + bleed), _box(*clip),
                         (turn + slot.turn) % 360, mirror))
    return out


def _box(left: float, top: float, right: float, bottom: float
         ) -> tuple[float, float, float, float]:
    """A rectangle as left, top, width and height, rounded to 0.1 µm."""
    return round(left, 4), round(top, 4), round(right - left, 4), round(bottom - top, 4)


@dataclass(frozen=True)
class Planned:
    """One standee entry ready to print: its spec, its deck (as the job has it), the deck its
    fronts are rendered with (another template or size), and its figure."""

    spec: StandeeSpec
    deck: Deck
    shown: Deck
    figure: Figure


class StandeesOutput(OutputKind):
    """The game's standees, packed on pages of the paper, printed on one side."""

    name = "standees"

    def check(self) -> list[Finding]:
        """Each standee has an id of its own and what it names exists (E043), and it fits on
        the paper (W044)."""
        game, seen = self.job.game, set()
        found = []
        for index, spec in enumerate(game.spec.standees):
            if spec.id in seen:
                found.append(Finding(display_path(game.root / "game.yaml"), line_of(
                    game.spec_data, ("standees", index, "id")), f"two standees have the id "
                    f"'{spec.id}'", "E043"))
            seen.add(spec.id)
            found += self._problems(index, spec)
        return found

    def _problems(self, index: int, spec: StandeeSpec) -> list[Finding]:
        """Why one standee cannot print: a deck, card, size, template or back it names that
        is not there; or a size the paper cannot hold."""
        game, geometry = self.job.game, self.job.geometry
        where = display_path(game.root / "game.yaml")

        def at(*key: str | int) -> int:
            return line_of(game.spec_data, ("standees", index, *key))

        decks = {deck.spec.id: deck for deck in game.decks}
        deck = decks.get(spec.deck)
        subject = f"standee '{spec.id}': "
        if deck is None:
            return [Finding(where, at("deck"), f"{subject}no deck '{spec.deck}' (decks: "
                            f"{', '.join(sorted(decks))})", "E043")]
        found = []
        known = {card.id for card in deck.cards} | deck.failed_ids
        found += [Finding(where, at("cards", number), f"{subject}deck '{spec.deck}' has no "
                          f"card '{card}'", "E043")
                  for number, card in enumerate(spec.cards or []) if card not in known]
        size = spec.size or deck.spec.size
        if size not in geometry.sizes:
            found.append(Finding(where, at("size"), f"{subject}no size '{size}' in print.yaml "
                                 "nor the pack's `sizes`", "E043"))
        if spec.template is not None:
            problem = template_problem(game, f"cards/{spec.template}.html.j2",
                                       (where, at("template")), subject)
            found += [problem] if problem else []
        if spec.back and not deck.spec.double_sided and not deck.spec.back and any(
                card.back is None for card in self._cards(spec, deck)):
            found.append(Finding(where, at("back"), f"{subject}`back: true`, but deck "
                                 f"'{spec.deck}' gives its cards no back", "E043"))
        if found or size not in geometry.sizes:
            return found
        whole, room = self._figure(spec, geometry.sizes[size]).size, geometry.room(self.job.paper)
        if not any(width <= room.width + 1e-6 and height <= room.height + 1e-6
                   for width, height in ((whole.width, whole.height),
                                         (whole.height, whole.width))):
            found.append(Finding(where, at(), f"{subject}{whole.width:g}×{whole.height:g} mm "
                                 f"does not fit on {self.job.paper} ({room.width:g}×"
                                 f"{room.height:g} mm inside the margins), upright or turned: "
                                 "it is left out (give it a smaller `size`, or `base: slot`)",
                                 "W044"))
        return found

    @staticmethod
    def _figure(spec: StandeeSpec, panel: Box) -> Figure:
        """A standee's geometry with panels of a size."""
        return Figure(panel, spec.foot if spec.base == "tab" else 0,
                      spec.slot if spec.base == "slot" else 0)

    @staticmethod
    def _cards(spec: StandeeSpec, deck: Deck) -> list[CardBase]:
        """The cards of a deck a standee prints, in its order (the deck's by default)."""
        if spec.cards is None:
            return list(deck.cards)
        by_id = {card.id: card for card in deck.cards}
        return [by_id[card] for card in spec.cards if card in by_id]

    def _planned(self) -> list[Planned]:
        """The standees that can print: nothing wrong with them, their deck planned."""
        job = self.job
        decks = {deck.spec.id: deck for deck in job.decks}
        planned = []
        for index, spec in enumerate(job.game.spec.standees):
            if spec.deck not in decks or self._problems(index, spec):
                continue  # the checks have said why
            deck = decks[spec.deck]
            shown = deck
            if spec.template or spec.size:
                shown = replace(deck, spec=deck.spec.model_copy(update={
                    "template": spec.template or deck.spec.template,
                    "size": spec.size or deck.spec.size}))
            figure = self._figure(spec, job.geometry.sizes[shown.spec.size])
            planned.append(Planned(spec, deck, shown, figure))
        return planned

    def plan(self) -> list[Document]:
        """One document of standee pages, when the game has standees that can print."""
        job = self.job
        renderer, geometry = job.renderer, job.geometry
        items: list[Item] = []
        keys, pages = dict(job.faces.keys), dict(job.faces.pages)
        own: list[Part] = []
        self.counts: dict[str, dict[str, int]] = {}
        planned = self._planned()
        for number, entry in enumerate(planned):
            lines = dict(zip((card.id for card in entry.deck.cards), entry.deck.lines,
                             strict=True))
            fresh: list[Face] = []
            for card in self._cards(entry.spec, entry.deck):
                face = renderer.face(entry.shown, card, lines[card.id])
                behind = renderer.back(entry.shown, card, face) if entry.spec.back else face
                assert behind is not None  # a card with no back is an E043
                for shown in (face, behind):
                    if shown not in keys:
                        keys[shown] = f"standee:{number}.{len(fresh)}"
                        fresh.append(shown)
                standee = Standee(face, behind=behind, mirrored=not entry.spec.back,
                                  figure=entry.figure)
                copies = entry.spec.count or card.qty
                items += [Item(standee, None, entry.figure.size, entry.spec.id, False)] * copies
                self.counts.setdefault(entry.spec.id, {"faces": 0, "backs": 0})
                self.counts[entry.spec.id]["faces"] += copies
            own += faces_parts(renderer, fresh, keys, renderer.shape(entry.shown),
                               f"{job.game.spec.title} — {entry.spec.id}",
                               display_path(job.game.root / "game.yaml"), pages)
        if not items:
            return []
        paper = geometry.papers[job.paper]
        sheets = pack_single(items, paper, geometry.room(job.paper), geometry)
        faces = Faces({}, keys, pages)
        file = f"standees-{job.paper}.pdf"
        decks = sorted({entry.deck.spec.id for entry in planned})
        return [Document(file, [Part(self._html(sheets, keys), display_path(
            job.game.root / "game.yaml"))], faces, job.faces.parts_of(decks) + own,
            duplex=None)]

    def _html(self, sheets: list[Sheet], keys: dict[Face, str]) -> str:
        """The pages as one HTML document: each standee's faces as empty boxes they are
        drawn into, its cut line, folds, feet and slot marks over them."""
        job = self.job
        renderer, geometry = job.renderer, job.geometry
        game = job.game.spec
        return renderer.render("standees.html.j2", {
            **renderer.page_context(),
            "title": f"{game.title} {game.version} — standees ({job.paper})",
            "paper": geometry.papers[job.paper],
            "sheets": sheets,
            "faces": lambda slot: drawn_faces(slot, keys, geometry.bleed),
            "line": geometry.mark_width,
            "color": geometry.mark_color,
        })

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The PDF, to print on one side at its true size."""
        return [File(document.file, made.pdf,
                     self.entry(document.file, made.pages, self.counts))]
