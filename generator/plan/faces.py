"""Stage 3c, faces: every distinct card face is planned once, at the top of a page of its own,
and drawn from there (a PDF form) into each sheet slot and gallery figure showing it.

Sheets and gallery pages are laid out with empty boxes marked `data-face` (which face) inside
a box marked `data-clip` (where it is cut). Their layout then no longer depends on the cards'
text, so an edited card lays out only its own face again, and a card printed nine times is
laid out once and stored once in the PDF.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..check.findings import display_path
from ..pack.load import Deck, Game
from ..pack.translate import languages
from .geometry import Box
from .parts import Part
from .render import Face, FaceShape, Renderer

FACES_PER_PART = 6  # faces laid out together: an edited card lays out this many again
ROOM = 297.0  # mm of page below each face, for text run past its box (as on a sheet of A4)


@dataclass(frozen=True)
class FacePage:
    """Where a face is laid out: its faces part, and its size with the bleed (mm)."""

    part: Part
    size: Box


@dataclass(frozen=True)
class Faces:
    """Every distinct face and back of the decks planned, each on a page of its own: the parts
    to lay out (by deck), the key each face is drawn by, and where each key is laid out.

    A key names the face's deck and place in it, not its content, so the sheets and gallery
    pages that show it stay as they were when a card's text changes.
    """

    parts: dict[str, list[Part]]
    keys: dict[Face, str]
    pages: dict[str, FacePage]

    def parts_of(self, deck_ids: list[str]) -> list[Part]:
        """The faces parts of the decks given."""
        return [part for deck_id in deck_ids for part in self.parts.get(deck_id, [])]


def face_anchor(key: str) -> str:
    """The id a face's box has in its faces part, which tells the page it landed on."""
    return f"face-{key}"


def face_documents(game: Game, decks: list[Deck], renderer: Renderer,
                   per_part: int = FACES_PER_PART) -> Faces:
    """Each deck's distinct faces and backs, in order, `per_part` to a part."""
    return joined([deck_faces(game, deck, renderer, per_part) for deck in decks])


def deck_faces(game: Game, deck: Deck, renderer: Renderer,
               per_part: int = FACES_PER_PART) -> Faces:
    """One deck's distinct faces and backs, in order, `per_part` to a part; in a game of
    several languages, its backs in parts of their own (a back that prints no text is then laid
    out once for every language; one language is spared the parts it would not share)."""
    apart = len(languages(game.spec)) > 1
    parts: dict[str, list[Part]] = {}
    keys: dict[Face, str] = {}
    pages: dict[str, FacePage] = {}
    fronts: list[Face] = []
    backs: list[Face] = []
    both: list[Face] = []
    for card, line in deck.located():
        face = renderer.face(deck, card, line)
        for shown, side in ((face, fronts), (renderer.back(deck, card, face), backs)):
            if shown is not None and shown not in keys:
                keys[shown] = f"{deck.spec.id}.{len(both)}"
                side.append(shown)
                both.append(shown)
    for distinct in (fronts, backs) if apart else (both,):
        parts.setdefault(deck.spec.id, []).extend(faces_parts(
            renderer, distinct, keys, renderer.shape(deck),
            f"{game.spec.title} — {deck.spec.name}", display_path(deck.path), pages, per_part))
    return Faces(parts, keys, pages)


def joined(faces: list[Faces]) -> Faces:
    """Several decks' faces as one (a face is of one deck: no two have a face in common)."""
    parts: dict[str, list[Part]] = {}
    for each in faces:
        for deck_id, deck_parts in each.parts.items():
            parts.setdefault(deck_id, []).extend(deck_parts)
    return Faces(parts, {face: key for each in faces for face, key in each.keys.items()},
                 {key: page for each in faces for key, page in each.pages.items()})


def faces_parts(renderer: Renderer, faces: list[Face], keys: dict[Face, str], shape: FaceShape,
                title: str, where: str, pages: dict[str, FacePage],
                per_part: int = FACES_PER_PART) -> list[Part]:
    """The parts laying out faces of one size and shape, `per_part` to a part; where each
    face's key is laid out is added to `pages`."""
    bleed, size = renderer.geometry.bleed, shape.size
    page = Box(size.width + 2 * bleed, size.height + 2 * bleed)
    context = renderer.page_context()
    parts = []
    for start in range(0, len(faces), per_part):
        chunk = faces[start:start + per_part]
        html = renderer.render("faces.html.j2", {
            **context, "page": page, "room": ROOM, "faces": chunk, "keys": keys,
            "shape": shape, "anchor": face_anchor, "title": title})
        parts.append(Part(html, where))
        pages.update((keys[face], FacePage(parts[-1], page)) for face in chunk)
    return parts
