"""Tabletop Simulator (`pnp export --to tts`): each deck of cards as face sheets of at most
10 x 7 cards and 4096 px a side, with its back (or a sheet of backs when its cards' backs
differ), and one saved object holding every deck, to put in TTS's `Saves/Saved Objects` with
its thumbnail beside it; `images.zip` holds every image the save links, ready to upload.

A deck of more cards than a sheet holds spans several CustomDeck entries; a card's CardID is
its entry's key times 100 plus its slot, and copies repeat it. No slot is kept for a hidden
card: the back stands for it (`BackIsHidden`). Pieces without a back of their own (tokens,
boards, tracks, double-sided pieces) become custom tiles, a bag of them a deck. Cards are
drawn at their cut size, without bleed: a virtual table shows the whole image.

Shapes. A TTS card is a rounded rectangle, so a deck of rectangles or rounded rectangles stays
a deck of cards; a round or hex piece, with a back or not, becomes a custom tile of TTS's
matching type (TILE_TYPES), its back the tile's bottom image; a piece cut to a pack's SVG
outline becomes a custom token, which TTS cuts out along its image's transparency (TTS's
Knowledge Base, Custom Token: "able to 'cut out' the transparency of an image"; a token has
one image, so such a piece shows its front on both sides). A shaped piece's images are
transparent outside its shape, the colours kept beneath, whether TTS reads the alpha or not.

Real sizes. TTS sizes a custom card from its sheet cell's shape: at scale 1 a card is 88.9 mm
(3.5 in, a poker card) tall and as wide as the cell's aspect makes it, so the scale is the
card's height / 88.9 mm. Sources: an analysis of the Clank Legacy mod's cards (cells of 0.72
and 1.44 aspect at scale 1 show 2.5 x 3.5 in and 5 x 3.5 in; "TTS Scaling System", on GitHub),
shoggoth's TTS export (tokeeto/shoggoth, PR 212: landscape 1050 x 750 cells need 0.714 the
scale of portrait ones for the same 63 x 88 mm card: 63 / 88.9 = 0.709), and issue 31's own
figures (148 x 105 mm aids at scale 148 / 63.5 = 2.33 arrived 292 x 207 mm: 88.9 x 2.33 tall).
A custom tile is sized the same way from a smaller base: at scale 1 it is 1.318 in (33.5 mm)
tall, as wide as its image's aspect makes it once `Stretch` is off (TTS's Knowledge Base,
Custom Tile: "Stretch Aspect Ratio ... if unchecked, your tile will stretch to fit the image
dimensions"); the 1.318 in is the same analysis's, measured on a 20 x 29 in board at scale 22,
a single calibration, less sure than the cards'.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from ..check.findings import PnpError
from ..outputs.base import Document, File
from ..pack.files import file_part
from ..pack.load import Deck, Game
from ..pack.schema import CardBase, Section
from ..pipeline.execute import Assembled
from ..plan.render import Face
from ..plan.shapes import Shape
from ..text.icons import as_text
from .base import Side
from .images import ImagesExport
from .profiles import Pixels

MAX_COLUMNS, MAX_ROWS = 10, 7
MIN_GRID = 2  # columns and rows a sheet has at least, as TTS's deck import dialog asks
MAX_SIDE = 4096  # px: the largest image TTS loads
SLOTS = MAX_COLUMNS * MAX_ROWS  # no slot kept for a hidden card: the back stands for it
CARD_DPI = 300  # the sharpest a card is drawn, when a sheet has room
MM_PER_INCH = 25.4
CARD_HEIGHT = 88.9  # mm: a card's height at scale 1, its width from its cell's aspect
TILE_HEIGHT = 1.318 * MM_PER_INCH  # mm: a custom tile's height at scale 1, likewise
# TTS's CustomTile Type by shape kind: Box 0, Hex 1, Circle 2, Rounded 3 (typed-tabletop-
# simulator, packages/declaration/src/objectData.d.ts `TileType`; TTS's API docs,
# custom-game-objects.md, list 0-2, and Berserk-Games/Tabletop-Simulator-API PR 160 adds "3
# for the type" as rounded corners). TTS has one hex tile: pointy and flat hexes both map to it.
TILE_TYPES = {"rect": 0, "hex": 1, "circle": 2, "rounded": 3}
TOKEN = "path"  # a pack's SVG outline: a Custom_Token, cut out along its image's alpha
MERGE_DISTANCE = 15.0  # px: how closely a token's edge follows its image's (TTS's default)
SAVE = "saved-object.json"
THUMBNAIL = "saved-object.png"  # TTS keeps a saved object's picture beside it, same name
THUMBNAIL_SIZE, THUMBNAIL_MARGIN = 256, 11  # px: a square picture, the piece centred in it
ZIP = "images.zip"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # every entry's timestamp: the same zip every run
COLOUR_CODE = re.compile(r"#[0-9a-fA-F]{3,8}")


@dataclass(frozen=True)
class Sheet:
    """One CustomDeck entry: its key, the cards' distinct faces in slot order, its grid and
    the pixel size of a cell."""

    key: int
    fronts: list[Face]
    backs: list[Face]
    columns: int
    rows: int
    cell: Pixels


class TtsExport(ImagesExport):
    """A Tabletop Simulator saved object of every deck, with its sheet images."""

    name = "tts"

    def check(self) -> list:
        """Nothing a profile could refuse: cells are sized to fit the sheets. A --base-url
        that is no http(s) address stops the export before anything is drawn."""
        base_url(self.settings.base_url)
        return []

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The sheets and tiles as PNG files, the saved object linking them, its thumbnail,
        and the images zipped."""
        self.draw_from(made)
        files: dict[str, bytes] = {}
        objects: list[dict[str, Any]] = []
        key = 0
        for index, deck in enumerate(self.job.decks):
            sides = [side for side in self.sides() if side.deck is deck]
            if not sides:
                continue
            place = {"posX": round(3.0 * index, 2), "posY": 1.0, "posZ": 0.0}
            if _is_cards(deck, sides, self.shape(deck)):
                sheets = self._sheets(deck, sides, key)
                key = sheets[-1].key
                objects.append(self._deck(deck, sides, sheets, files, place))
            else:
                objects.append(self._tiles(deck, sides, files, place))
        if self.settings.base_url is None:
            self.notes.append(f"{SAVE} links its images by file:/// paths, so it works only on "
                              "this machine; to share it, upload the images (images.zip) to a "
                              "web host and export again with --base-url URL")
        save = {"SaveName": self.job.game.spec.title, "GameMode": "", "Date": "",
                "VersionNumber": "", "Gravity": 0.5, "PlayArea": 0.5, "Note": "",
                "ObjectStates": objects}
        images = dict(files)
        files[SAVE] = (json.dumps(save, ensure_ascii=False, indent=2) + "\n").encode()
        files[THUMBNAIL] = self._thumbnail()
        files[ZIP] = zipped(images)
        return [File(name, data) for name, data in files.items()]

    def _link(self, name: str) -> str:
        """Where the save finds an image: at --base-url, else its file on this machine."""
        url = base_url(self.settings.base_url)
        if url is not None:
            return url + quote(name, safe="/")
        folder = self.folder if self.folder is not None else Path(".")
        return (folder / name).as_uri()

    def _sheets(self, deck: Deck, sides: list[Side], last_key: int) -> list[Sheet]:
        """A deck's distinct fronts, SLOTS to a sheet, each sheet a CustomDeck key."""
        fronts: list[Face] = []
        backs: list[Face] = []
        for side in sides:
            if side.side == "front" and side.face not in fronts:
                fronts.append(side.face)
                backs.append(_back_of(sides, side))
        size = self.job.geometry.sizes[deck.spec.size]
        sheets: list[Sheet] = []
        for start in range(0, len(fronts), SLOTS):
            chunk = fronts[start:start + SLOTS]
            columns, rows = grid(size.width, size.height, len(chunk))
            sheets.append(Sheet(last_key + 1 + len(sheets), chunk, backs[start:start + SLOTS],
                                columns, rows, _cell(size.width, size.height, columns, rows)))
        return sheets

    def _deck(self, deck: Deck, sides: list[Side], sheets: list[Sheet], files: dict[str, bytes],
              place: dict[str, float]) -> dict[str, Any]:
        """A DeckCustom of every copy of every card (a lone card is a Card), its sheets
        written to `files`."""
        shared = len({id(back) for sheet in sheets for back in sheet.backs}) == 1
        entries: dict[str, dict[str, Any]] = {}
        slot_of: dict[int, tuple[int, int]] = {}
        for sheet in sheets:
            face_file = f"{file_part(deck.spec.id)}-{sheet.key}.png"
            files[face_file] = self._sheet(sheet.fronts, sheet)
            if shared:
                back_file = f"{file_part(deck.spec.id)}-back.png"
                if back_file not in files:
                    files[back_file] = self.image(sheet.backs[0], sheet.cell, bleed=False)
            else:
                back_file = f"{file_part(deck.spec.id)}-{sheet.key}-backs.png"
                files[back_file] = self._sheet(sheet.backs, sheet)
            entries[str(sheet.key)] = {
                "FaceURL": self._link(face_file), "BackURL": self._link(back_file),
                "NumWidth": sheet.columns, "NumHeight": sheet.rows, "BackIsHidden": True,
                "UniqueBack": not shared, "Type": 0}
            slot_of.update((id(face), (sheet.key, slot)) for slot, face in enumerate(sheet.fronts))
            first = {id(side.face): side for side in reversed(sides)}
            for slot, face in enumerate(sheet.fronts):
                self.inspected.append(self.inspection(
                    first[id(face)], f"{face_file} slot {slot}", sheet.cell, sheet.cell, "RGB",
                    None))
        size = self.job.geometry.sizes[deck.spec.size]
        scale = size.height / CARD_HEIGHT
        sideways = size.width > size.height
        game = self.job.game
        cards = []
        for side in sides:
            if side.side != "front":
                continue
            deck_key, slot = slot_of[id(side.face)]
            for copy in range(side.card.qty):
                cards.append({
                    "GUID": _guid(game.name, deck.spec.id, side.card.id, copy),
                    "Name": "Card", "Transform": _transform(place, scale, face_down=True),
                    "Nickname": as_text(side.card.name, game.spec.icons),
                    "Description": describe(deck, side.card, game.spec.icons, game),
                    "SidewaysCard": sideways, "CardID": deck_key * 100 + slot,
                    "CustomDeck": {str(deck_key): entries[str(deck_key)]}})
        if len(cards) == 1:
            return cards[0]
        return {"GUID": _guid(game.name, deck.spec.id), "Name": "DeckCustom",
                "Transform": _transform(place, scale, face_down=True),
                "Nickname": deck.spec.name, "Description": "", "SidewaysCard": sideways,
                "DeckIDs": [card["CardID"] for card in cards], "CustomDeck": entries,
                "ContainedObjects": cards}

    def _sheet(self, faces: list[Face], sheet: Sheet) -> bytes:
        """A grid of faces, cell by cell from the top left, the free cells filled with the
        last face so no cell is transparent."""
        from PIL import Image

        width, height = sheet.cell
        grid_image = Image.new("RGB", (width * sheet.columns, height * sheet.rows), "white")
        filler = faces[-1]
        for slot in range(sheet.columns * sheet.rows):
            face = faces[slot] if slot < len(faces) else filler
            picture = self.picture(face, sheet.cell, bleed=False)
            grid_image.paste(picture, ((slot % sheet.columns) * width,
                                       (slot // sheet.columns) * height))
        out = io.BytesIO()
        grid_image.save(out, "PNG")
        return out.getvalue()

    def _tiles(self, deck: Deck, sides: list[Side], files: dict[str, bytes],
               place: dict[str, float]) -> dict[str, Any]:
        """A bag of custom tiles, one a copy, each with its front and back images, at its
        real size and shape (not stretched to a square)."""
        size = self.job.geometry.sizes[deck.spec.size]
        pixels = _cell(size.width, size.height, 1, 1)
        shape = self.shape(deck)
        named: dict[int, str] = {}
        tiles = []
        game = self.job.game
        for side in sides:
            if id(side.face) not in named:
                named[id(side.face)] = f"{file_part(deck.spec.id)}/{side.number:03d}-" \
                                       f"{file_part(side.card.id)}-{side.side}.png"
                files[named[id(side.face)]] = self.image(side.face, pixels, bleed=False,
                                                        shape=shape)
                self.inspected.append(self.inspection(side, named[id(side.face)], pixels,
                                                      pixels, "RGB", None))
        for side in sides:
            if side.side != "front":
                continue
            back = _back_of(sides, side)
            image: dict[str, Any] = {"ImageURL": self._link(named[id(side.face)])}
            if shape.kind == TOKEN:
                image["CustomToken"] = {"Thickness": 0.1, "MergeDistancePixels": MERGE_DISTANCE,
                                        "StandUp": False, "Stackable": False}
            else:
                image.update({"ImageSecondaryURL": self._link(named[id(back)])
                              if back is not side.face else "", "WidthScale": 0.0,
                              "CustomTile": {"Type": tile_type(shape), "Thickness": 0.1,
                                             "Stackable": False, "Stretch": False}})
            for copy in range(side.card.qty):
                tiles.append({
                    "GUID": _guid(game.name, deck.spec.id, side.card.id, copy),
                    "Name": "Custom_Token" if shape.kind == TOKEN else "Custom_Tile",
                    "Transform": _transform(place, size.height / TILE_HEIGHT, face_down=False),
                    "Nickname": as_text(side.card.name, game.spec.icons),
                    "Description": describe(deck, side.card, game.spec.icons, game),
                    "CustomImage": image})
        return {"GUID": _guid(game.name, deck.spec.id), "Name": "Bag",
                "Transform": _transform(place, 1.0, face_down=False),
                "Nickname": deck.spec.name, "Description": "", "ContainedObjects": tiles}

    def _thumbnail(self) -> bytes:
        """The saved object's picture, as TTS shows it in its list: the first deck's first
        face, THUMBNAIL_SIZE px square, centred on a transparent ground."""
        from PIL import Image

        inner = THUMBNAIL_SIZE - 2 * THUMBNAIL_MARGIN
        thumbnail = Image.new("RGBA", (THUMBNAIL_SIZE, THUMBNAIL_SIZE), (0, 0, 0, 0))
        first = next((side for side in self.sides() if side.side == "front"), None)
        if first is not None:
            size = self.job.geometry.sizes[first.deck.spec.size]
            fit = min(inner / size.width, inner / size.height)
            pixels = (max(1, round(size.width * fit)), max(1, round(size.height * fit)))
            picture = self.picture(first.face, pixels, bleed=False)
            thumbnail.paste(picture, ((THUMBNAIL_SIZE - pixels[0]) // 2,
                                      (THUMBNAIL_SIZE - pixels[1]) // 2))
        out = io.BytesIO()
        thumbnail.save(out, "PNG")
        return out.getvalue()


def base_url(url: str | None) -> str | None:
    """--base-url as the save's links start: an http(s) address ending in `/`; None when
    not given; a PnpError for anything else."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query \
            or parts.fragment or any(char.isspace() for char in url):
        raise PnpError(f"--base-url {url!r}: give the http:// or https:// address the images "
                       "will be uploaded to, without a query or fragment "
                       "(e.g. https://example.org/my-game/)")
    return url if url.endswith("/") else url + "/"


def grid(width: float, height: float, count: int) -> tuple[int, int]:
    """The columns x rows of a sheet of `count` cards of `width` x `height` mm whose cells
    are the largest that fit (the fewest cells, then the fewest columns, among equals)."""
    options = [(columns, rows) for columns in range(MIN_GRID, MAX_COLUMNS + 1)
               for rows in range(MIN_GRID, MAX_ROWS + 1) if columns * rows >= count]
    return max(options, key=lambda shape: (_cell(width, height, *shape)[0],
                                           -shape[0] * shape[1], -shape[0]))


def tile_type(shape: Shape) -> int:
    """The TTS custom tile type of a piece's shape (a pack's SVG outline is a token, not a
    tile: a box, should it be asked)."""
    return TILE_TYPES.get(shape.kind, TILE_TYPES["rect"])


def zipped(files: dict[str, bytes]) -> bytes:
    """The files in a zip at their relative paths, sorted, stored as they are, with fixed
    timestamps and permissions: the same bytes every run."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(files):
            entry = zipfile.ZipInfo(name, ZIP_TIME)
            entry.create_system = 3  # Unix, whatever system writes it
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, files[name])
    return out.getvalue()


def _is_cards(deck: Deck, sides: list[Side], shape: Shape) -> bool:
    """Whether a deck goes to the table as cards: rectangles (TTS's cards have rounded
    corners) each with a back of its own."""
    return shape.kind in ("rect", "rounded") and not deck.spec.double_sided and all(
        any(other.card is side.card and other.side == "back" for other in sides)
        for side in sides if side.side == "front")


def _back_of(sides: list[Side], front: Side) -> Face:
    """The face on the other side of a card: its back, or its front again when it has none."""
    return next((side.face for side in sides
                 if side.card is front.card and side.side == "back"), front.face)


def _cell(width: float, height: float, columns: int, rows: int) -> Pixels:
    """The largest whole-pixel cell of a card's aspect that fits `columns` x `rows` in
    MAX_SIDE px, and no sharper than CARD_DPI."""
    sharpest = width / MM_PER_INCH * CARD_DPI
    cell_w = min(MAX_SIDE // columns, math.floor(sharpest),
                 math.floor(MAX_SIDE // rows * width / height))
    return cell_w, min(MAX_SIDE // rows, round(cell_w * height / width))


def _transform(place: dict[str, float], scale: float, face_down: bool) -> dict[str, float]:
    """Where an object lies on the table, face down for a deck of cards."""
    return {**place, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0 if face_down else 0.0,
            "scaleX": round(scale, 4), "scaleY": 1.0, "scaleZ": round(scale, 4)}


def _guid(*names: str | int) -> str:
    """A GUID of six hex digits, the same for the same object of the same game."""
    return hashlib.sha256("/".join(map(str, names)).encode()).hexdigest()[:6]


def describe(deck: Deck, card: CardBase, icons: Collection[str] = (),
             game: Game | None = None) -> str:
    """A card's text as a player reads it, field by declared field, without markup (an icon of
    `icons` as `[name]`): each value after its label, alone when it has none (a key is the
    pack's, not the player's: a number without a label says nothing and is left out); a
    reference as the name of the card or table row it names (given the `game`); no colour
    codes."""
    lines = []
    for name, spec in deck.spec.fields.items():
        value = getattr(card, name, None)
        if value in (None, "", [], {}) or not spec.printed or spec.type in ("image", "bool") \
                or (isinstance(value, str) and COLOUR_CODE.fullmatch(value)):
            continue
        if game is not None and spec.type in ("ref", "refs"):
            value = _names(game, spec.deck, spec.table, value)
        if not spec.label and spec.type == "int":
            continue
        label = f"{spec.label}: " if spec.label else ""
        if isinstance(value, list) and value and isinstance(value[0], Section):
            lines += [f"{item.label}: {item.text}" if item.label else item.text
                      for item in value]
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            lines += [label + _row(row) for row in value]
        elif isinstance(value, list):
            lines.append(label + ", ".join(map(str, value)))
        elif isinstance(value, dict):
            lines.append(label + ", ".join(f"{key} {amount}" for key, amount in value.items()))
        else:
            lines.append(label + str(value))
    if "sections" not in deck.spec.fields:
        lines += [f"{item.label}: {item.text}" if item.label else item.text
                  for item in card.sections]
    lines += [text for name in ("quote", "motto") if name not in deck.spec.fields
              for text in [getattr(card, name)] if text]
    return "\n".join(as_text(line.replace("**", ""), icons) for line in lines)


def _row(row: dict[str, Any]) -> str:
    """A row of a `rows` field as text: its values in order, without colour codes."""
    return " ".join(", ".join(map(str, value)) if isinstance(value, list) else str(value)
                    for value in row.values()
                    if value not in (None, "") and not COLOUR_CODE.fullmatch(str(value)))


def _names(game: Game, deck_id: str | None, table: str | None, value: Any) -> Any:
    """A reference's ids as names: a card's name in the deck it names, a row's label in the
    table it names; an id neither knows stays as written."""
    names: dict[str, str] = {}
    for deck in game.decks:
        if deck.spec.id == deck_id:
            names = {card.id: card.name for card in deck.cards}
    for key, row in game.spec.tables.get(table or "", {}).items():
        names[key] = str(row.get("label") or row.get("name") or key)
    if isinstance(value, list):
        return [names.get(item, item) for item in value]
    return names.get(value, value)
