"""Per-card images (`pnp export --to images`): every distinct face and back an image at its
profile's pixel size, with bleed on every edge, listed with its card's name and copies. A PNG
of a shaped piece (a circle, a hex, rounded corners, an SVG outline) is transparent outside
its shape grown by the bleed; a JPEG, which has no transparency, keeps the whole rectangle.

The faces are those every output draws from (faces.py); each is rendered off the top of its
page in its faces part, so nothing is laid out a second time. A rendered image is kept in the
build cache under a key of the face's HTML, the files its part read and the pixel size, so a
second export after one card's edit renders only that card's images again.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import asdict, dataclass
from typing import Any

from ..check.findings import Finding, display_path
from ..outputs.base import Document, File
from ..pack.load import Deck
from ..pack.yamlfile import line_of
from ..pdf.raster import Inside, draw, encode, inspect
from ..pipeline.execute import Assembled
from ..plan.geometry import MIN_DPI, Box
from ..plan.parts import LaidOut, code_digest
from ..plan.render import Face
from ..plan.shapes import RECT, Shape, outline
from ..text.icons import as_text
from .base import ExportKind, Side
from .preflight import Inspection, missing_bleed
from .profiles import Pixels

MAX_PIXELS = 60_000_000  # one image, ~240 MB as drawn (a 500 x 400 mm board at 300 dpi: 28)
SUPERSAMPLE = 4  # a shape's mask is drawn this many times sharper, then shrunk: a smooth edge


@dataclass(frozen=True)
class Listed:
    """One row of images.csv: a file, and the card side it shows."""

    file: str
    deck: str
    card: str
    name: str
    side: str
    copies: int
    width: int
    height: int


class ImagesExport(ExportKind):
    """Every card's front and back as PNG or JPEG files, with images.csv and images.json."""

    name = "images"

    for_shop = True

    def check(self) -> list[Finding]:
        """A deck of a size the profile's shop does not sell (left out), and a deck whose
        images would be larger than an export draws, at its `size:` line."""
        job = self.job
        where = display_path(job.game.root / "game.yaml")
        found = self.left_out()
        for deck in job.decks:
            index = [each.spec.id for each in job.game.decks].index(deck.spec.id)
            line = line_of(job.game.spec_data, ("decks", index, "size"))
            pixels = self.pixels(deck)
            if pixels is not None and pixels[0] * pixels[1] > MAX_PIXELS:
                found.append(Finding(where, line, f"deck '{deck.spec.id}': its images would be "
                                     f"{pixels[0]} x {pixels[1]} px, past the "
                                     f"{MAX_PIXELS // 1_000_000} million an export draws (a "
                                     "lower --dpi)", "E084"))
        return found

    def pixels(self, deck: Deck) -> Pixels | None:
        """The pixel size of one side of a deck's cards in the chosen profile: the shop's own
        for the size it sells, else the cut and bleed at the profile's dpi (or --dpi)."""
        geometry = self.job.geometry
        size = geometry.sizes.get(deck.spec.size)
        if size is None:
            return None
        return self.profile.pixels(size, geometry.bleed, self.settings.dpi)

    def plan(self) -> list[Document]:
        """Nothing of its own to lay out: the faces parts, drawn from when finished."""
        faces = self.job.faces
        return [Document(self.name, [], faces,
                         faces.parts_of([deck.spec.id for deck in self.job.decks]), duplex=None)]

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """Each distinct face an image file, each card side a row of the lists."""
        self.draw_from(made)
        files: dict[str, bytes] = {}
        rows: list[Listed] = []
        named: dict[Face, str] = {}
        for side in self.sides():
            pixels = self.pixels(side.deck)
            assert pixels is not None  # left out by the kind otherwise
            if side.face not in named:
                named[side.face] = self.file_name(side)
                data = self.image(side.face, pixels, bleed=True, shape=self.shape(side.deck))
                files[named[side.face]] = data
                self.inspect(side, named[side.face], data, pixels)
            rows.append(Listed(named[side.face], side.deck.spec.id, side.card.id,
                               as_text(side.card.name, self.job.game.spec.icons), side.side,
                               side.card.qty, *pixels))
        listed = [asdict(row) for row in rows]
        return [*(File(name, data) for name, data in files.items()),
                File("images.csv", _csv(listed)),
                File("images.json", (json.dumps({"images": listed}, ensure_ascii=False,
                                                indent=2) + "\n").encode())]

    def file_name(self, side: Side) -> str:
        """An image's file by the profile's naming, `<deck>/<nnn>-<card-id>-front.png` unless
        it says otherwise; a back the deck's cards share is one file, `<deck>/back-<back-id>`."""
        suffix = f".{self.settings.image_format}"
        if side.face.source.startswith("back:"):
            return self.profile.file("back", deck=side.deck.spec.id,
                                     back=side.face.source.removeprefix("back:")) + suffix
        return self.profile.file("image", deck=side.deck.spec.id, number=f"{side.number:03d}",
                                 card=side.card.id, side=side.side) + suffix

    def _dpi(self) -> float:
        """The dpi the images print at, as their files say."""
        return float(self.profile.dpi or self.settings.dpi)

    def face_page(self, face: Face) -> tuple[bytes, int, Box, LaidOut]:
        """Where a face is laid out: its faces part's PDF, its page there, its size with the
        bleed, and the part laid out."""
        from ..plan.faces import face_anchor

        faces = self.job.faces
        key = faces.keys[face]
        where = faces.pages[key]
        laid = self.laid[where.part.key]
        return laid.pdf, laid.anchors[face_anchor(key)], where.size, laid

    def shape(self, deck: Deck) -> Shape:
        """The shape a deck's pieces are cut to."""
        return self.job.geometry.shape(deck.spec.size, deck.shape)

    def picture(self, face: Face, pixels: Pixels, bleed: bool) -> Any:
        """A face drawn at exactly `pixels`, with its bleed or cut at the card's edge, from the
        cache when drawn before from the same face and files."""
        from PIL import Image

        data = self._cached(face, pixels, bleed, "png")
        return Image.open(io.BytesIO(data)).convert("RGB")

    def image(self, face: Face, pixels: Pixels, bleed: bool, shape: Shape = RECT) -> bytes:
        """A face's image file in the chosen format, from the cache when drawn before; a PNG
        transparent outside `shape` (grown by the bleed when drawn with it)."""
        return self._cached(face, pixels, bleed, self.settings.image_format, shape)

    def _cached(self, face: Face, pixels: Pixels, bleed: bool, image_format: str,
                shape: Shape = RECT) -> bytes:
        """A face's image, drawn once for the same face, files, size, format and shape."""
        pdf, page, size, laid = self.face_page(face)
        edge = self.job.geometry.bleed
        box = (0.0, 0.0, size.width, size.height) if bleed else \
            (edge, edge, size.width - 2 * edge, size.height - 2 * edge)
        shaped = image_format == "png" and not shape.square
        key = hashlib.sha256(json.dumps([code_digest(), str(face.html), laid.files, pixels, box,
                                         image_format, self._dpi()]
                                        + ([repr(shape)] if shaped else [])).encode()).hexdigest()
        self.kept.append(key)

        def drawn() -> bytes:
            self.rendered += 1
            picture = draw(pdf, page, box, pixels)
            if shaped:
                picture = cut_out(picture, shape, (size.width - 2 * edge,
                                                   size.height - 2 * edge), edge if bleed else 0)
            return encode(picture, image_format, self._dpi())

        if self.cache is None:
            return drawn()
        return self.cache.joined(key, drawn, "image", "drawn again")

    def inspect(self, side: Side, file: str, data: bytes, expected: Pixels,
                colour: str | None = None) -> None:
        """Preflight one image: its pixel size and colour, its bleed, and the text, fonts and
        images of the face it shows."""
        from PIL import Image

        picture = Image.open(io.BytesIO(data))
        pixels = picture.size
        bled, bleed = self.face_page(side.face)[2], self.job.geometry.bleed
        bleed_px = round(bleed * pixels[0] / bled.width)
        self.inspected.append(self.inspection(
            side, file, pixels, expected, colour or _colour(picture.mode),
            missing_bleed(picture.convert("RGB"), bleed_px, self.shape(side.deck),
                          (bled.width - 2 * bleed, bled.height - 2 * bleed))))

    def inspection(self, side: Side, file: str, pixels: Pixels | None, expected: Pixels | None,
                   colour: str, missing: list[str] | None) -> Inspection:
        """What the preflight records of one file showing a card side."""
        inside = self.inside(side.face)
        return Inspection(file, side.deck.spec.id, side.card.id, side.side,
                          f"{side.where[0]}:{side.where[1]}", pixels, expected, missing,
                          inside.smallest_text, list(inside.unembedded), list(inside.image_dpi),
                          colour, MIN_DPI, self.job.game.spec.readability.min_stamp)

    def inside(self, face: Face) -> Inside:
        """The text sizes, fonts and images of a face as laid out."""
        pdf, page, size, _ = self.face_page(face)
        return inspect(pdf, page, (size.width, size.height))


def cut_out(picture: Any, shape: Shape, cut: tuple[float, float], margin: float) -> Any:
    """An RGB picture of a piece's `cut` box (mm) and `margin` mm round it, made transparent
    outside its shape grown by the margin: alpha 0 outside, 255 inside, smooth at the edge."""
    from PIL import Image, ImageDraw

    width, height = picture.size
    scale_x = width * SUPERSAMPLE / (cut[0] + 2 * margin)
    scale_y = height * SUPERSAMPLE / (cut[1] + 2 * margin)
    mask = Image.new("L", (width * SUPERSAMPLE, height * SUPERSAMPLE), 0)
    ImageDraw.Draw(mask).polygon([((x + margin) * scale_x, (y + margin) * scale_y) for x, y in
                                  outline(shape, cut[0], cut[1], margin)], fill=255)
    shaped = picture.convert("RGBA")
    shaped.putalpha(mask.resize((width, height), Image.Resampling.BOX))
    return shaped


def _colour(mode: str) -> str:
    """An image's colour space as the preflight names it: RGB with or without its alpha."""
    return "RGB" if mode == "RGBA" else mode


def _csv(rows: list[dict[str, Any]]) -> bytes:
    """Rows as CSV, a header of their keys, that a spreadsheet opening it cannot run."""
    from ..pack.spreadsheet import write_csv

    keys = list(rows[0]) if rows else ["file"]
    return write_csv([keys, *([row[key] for key in keys] for row in rows)]).encode()
