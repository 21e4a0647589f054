"""Stage 5b, compose: every distinct card face is laid out once, at the top of a page of its
own, and drawn from there (a PDF form XObject) into each sheet slot and gallery figure showing
it.

Sheets and gallery pages are laid out with empty boxes marked `data-face` (which face) inside
a box marked `data-clip` (where it is cut). Their layout then no longer depends on the cards'
text, so an edited card lays out only its own face again, and a card printed nine times is
laid out once and stored once in the PDF.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .fit import children
from .fonts import FontRegistry
from .geometry import Box
from .load import Game
from .render import Face, Renderer

PT_PER_PX = 0.75  # CSS px to PDF points
KAPPA = 0.5523  # a quarter circle as one Bezier curve: control points this far along the tangents

FACES_PER_PART = 6  # faces laid out together: an edited card lays out this many again
ROOM = 297.0  # mm of page below each face, for text run past its box (as on a sheet of A4)

Placement = tuple[int, str, list[float], list[float]]  # page, face key, face box, clip box + radius


@dataclass(frozen=True)
class Faces:
    """Every distinct face and back of a game, each on a page of its own: the parts to lay
    out, the key each face is drawn by, and the part and page each key is on.

    A key names the face's deck and place in it, not its content, so the sheets and gallery
    pages that show it stay as they were when a card's text changes.
    """

    parts: list[str]
    keys: dict[Face, str]
    pages: dict[str, tuple[str, Box]]  # key: its part, and its size with the bleed (mm)


def face_documents(game: Game, renderer: Renderer, fonts: FontRegistry) -> Faces:
    """Each deck's distinct faces and backs, in order, a few to a part."""
    context = renderer.page_context(fonts)
    template = renderer.env.get_template("faces.html.j2")
    bleed = renderer.geometry.bleed
    parts, keys, pages = [], {}, {}
    for deck in game.decks:
        distinct: list[Face] = []
        for card, line in deck.located():
            face = renderer.face(deck, card, line)
            for shown in (face, renderer.back(deck, card, face)):
                if shown is not None and shown not in keys:
                    keys[shown] = f"{deck.spec.id}.{len(distinct)}"
                    distinct.append(shown)
        size = renderer.geometry.sizes[deck.spec.size]
        page = Box(size.width + 2 * bleed, size.height + 2 * bleed)
        for start in range(0, len(distinct), FACES_PER_PART):
            chunk = distinct[start:start + FACES_PER_PART]
            parts.append(template.render(**context, page=page, room=ROOM, faces=chunk, keys=keys,
                                         anchor=face_anchor,
                                         title=f"{game.spec.title} — {deck.spec.name}"))
            pages.update((keys[face], (parts[-1], page)) for face in chunk)
    return Faces(parts, keys, pages)


def face_anchor(key: str) -> str:
    """The id a face's box has in its faces part, which tells the page it landed on."""
    return f"face-{key}"


def _boxes(box: Any, clip: list[float]) -> Iterator[tuple[str, list[float], list[float]]]:
    """Every face box under `box` (face key, box, clip), in painting order, in CSS px from the
    page's top left."""
    element = getattr(box, "element", None)
    if element is not None and getattr(box, "element_tag", None) is not None:
        x, y, width, height = box.padding_box_x(), box.padding_box_y(), \
            box.padding_width(), box.padding_height()
        if element.get("data-clip") is not None:
            clip = [x, y, x + width, y + height, box.border_top_left_radius[0]]
        if element.get("data-face"):
            yield element.get("data-face"), [x, y, x + width, y + height], clip
            return
    for child in children(box):
        yield from _boxes(child, clip)


def placements(document: Any) -> list[Placement]:
    """Where each page of a laid-out document shows a face: (page, key, face box, clip box
    with its corner radius), in PDF points from the page's bottom left."""
    found = []
    for index, page in enumerate(document.pages):
        for key, box, clip in _boxes(page._page_box, [0, 0, page.width, page.height, 0]):
            found.append((index, key, to_points(box, page.height), to_points(clip[:4], page.height)
                          + [round(clip[4] * PT_PER_PX, 3)]))
    return found


def to_points(box: list[float] | tuple[float, ...], height: float) -> list[float]:
    """A box (left, top, right, bottom) in CSS px from the top left, in PDF points from the
    bottom left (left, bottom, right, top)."""
    x0, y0, x1, y1 = box
    return [round(value * PT_PER_PX, 3) for value in (x0, height - y1, x1, height - y0)]


def _clip_path(x0: float, y0: float, x1: float, y1: float, radius: float) -> str:
    """A rectangle, its corners rounded by `radius`, as a PDF clipping path."""
    if radius <= 0:
        return f"{x0:.3f} {y0:.3f} {x1 - x0:.3f} {y1 - y0:.3f} re W n"
    r, k = radius, radius * (1 - KAPPA)
    return " ".join([
        f"{x0 + r:.3f} {y0:.3f} m {x1 - r:.3f} {y0:.3f} l",
        f"{x1 - k:.3f} {y0:.3f} {x1:.3f} {y0 + k:.3f} {x1:.3f} {y0 + r:.3f} c",
        f"{x1:.3f} {y1 - r:.3f} l",
        f"{x1:.3f} {y1 - k:.3f} {x1 - k:.3f} {y1:.3f} {x1 - r:.3f} {y1:.3f} c",
        f"{x0 + r:.3f} {y1:.3f} l",
        f"{x0 + k:.3f} {y1:.3f} {x0:.3f} {y1 - k:.3f} {x0:.3f} {y1 - r:.3f} c",
        f"{x0:.3f} {y0 + r:.3f} l",
        f"{x0:.3f} {y0 + k:.3f} {x0 + k:.3f} {y0:.3f} {x0 + r:.3f} {y0:.3f} c h W n"])


def draw_faces(pdf: Any, pages: dict[int, list[tuple[str, list[float], list[float]]]],
               forms: dict[str, Any]) -> None:
    """Draw each page's faces under everything else on it: each face's form scaled into its
    box and cut to its clip. `forms` holds each face's form XObject, in `pdf` already, its
    bounding box the face's own."""
    import pikepdf

    for index, placed in sorted(pages.items()):
        page = pdf.pages[index]
        drawing = []
        for number, (key, box, clip) in enumerate(placed):
            x0, y0, x1, y1 = (float(value) for value in forms[key].BBox)
            scale_x, scale_y = (box[2] - box[0]) / (x1 - x0), (box[3] - box[1]) / (y1 - y0)
            drawing.append(f"q {_clip_path(*clip)} {scale_x:.6f} 0 0 {scale_y:.6f} "
                           f"{box[0] - x0 * scale_x:.3f} {box[1] - y0 * scale_y:.3f} cm "
                           f"/Face{number} Do Q")
        add_forms(page, {f"/Face{number}": forms[key]
                         for number, (key, _, _) in enumerate(placed)})
        page.contents_add(pikepdf.Stream(pdf, ("\n".join(drawing) + "\n").encode()),
                          prepend=True)


def add_forms(page: Any, forms: dict[str, Any]) -> None:
    """Give a page forms to draw, each under a fixed name (pikepdf's own overlays name theirs
    at random, and the same input must give the same bytes)."""
    import pikepdf

    resources = pikepdf.Dictionary(page.obj.get("/Resources", pikepdf.Dictionary()))
    xobjects = pikepdf.Dictionary(resources.get("/XObject", pikepdf.Dictionary()))
    xobjects.update(forms)
    resources["/XObject"] = xobjects
    page.obj["/Resources"] = resources
