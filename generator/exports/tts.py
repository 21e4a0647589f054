"""Tabletop Simulator (`pnp export --to tts`): each deck of cards as face sheets of at most
10 x 7 cards and 4096 px a side, with its back (or a sheet of backs when its cards' backs
differ), and one saved object holding every deck, to put in TTS's `Saves/Saved Objects`.

A deck of more cards than a sheet holds spans several CustomDeck entries; a card's CardID is
its entry's key times 100 plus its slot, and copies repeat it. Pieces without a back of their
own (tokens, boards, tracks, double-sided pieces) become custom tiles, a bag of them a deck.
Cards are drawn at their cut size, without bleed: a virtual table shows the whole image.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..outputs.base import Document, File
from ..pack.files import file_part
from ..pack.load import Deck
from ..pack.schema import CardBase, Section
from ..pipeline.execute import Assembled
from ..plan.render import Face
from ..text.icons import as_text
from .base import Side
from .images import ImagesExport
from .profiles import Pixels

MAX_COLUMNS, MAX_ROWS = 10, 7
MAX_SIDE = 4096  # px: the largest image TTS loads
SLOTS = MAX_COLUMNS * MAX_ROWS - 1  # the last slot stays for the hidden-card image
CARD_DPI = 300  # the sharpest a card is drawn, when a sheet has room
MM_PER_INCH = 25.4
POKER_WIDTH = 63.5  # mm: a card of this width is TTS's scale 1
SAVE = "saved-object.json"


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
        """Nothing a profile could refuse: cells are sized to fit the sheets."""
        return []

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The sheets and tiles as PNG files, and the saved object naming them by file URL."""
        self.draw_from(made)
        folder = self.folder if self.folder is not None else Path(".")
        files: dict[str, bytes] = {}
        objects: list[dict[str, Any]] = []
        key = 0
        for index, deck in enumerate(self.job.decks):
            sides = [side for side in self.sides() if side.deck is deck]
            if not sides:
                continue
            place = {"posX": round(3.0 * index, 2), "posY": 1.0, "posZ": 0.0}
            if _is_cards(deck, sides):
                sheets = self._sheets(deck, sides, key)
                key = sheets[-1].key
                objects.append(self._deck(deck, sides, sheets, files, folder, place))
            else:
                objects.append(self._tiles(deck, sides, files, folder, place))
        save = {"SaveName": self.job.game.spec.title, "GameMode": "", "Date": "",
                "VersionNumber": "", "Gravity": 0.5, "PlayArea": 0.5, "Note": "",
                "ObjectStates": objects}
        files[SAVE] = (json.dumps(save, ensure_ascii=False, indent=2) + "\n").encode()
        return [File(name, data) for name, data in files.items()]

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
            columns = max(2, min(MAX_COLUMNS, len(chunk)))
            rows = max(2, math.ceil((len(chunk) + 1) / columns))
            sheets.append(Sheet(last_key + 1 + len(sheets), chunk, backs[start:start + SLOTS],
                                columns, rows, _cell(size.width, size.height, columns, rows)))
        return sheets

    def _deck(self, deck: Deck, sides: list[Side], sheets: list[Sheet], files: dict[str, bytes],
              folder: Path, place: dict[str, float]) -> dict[str, Any]:
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
                "FaceURL": (folder / face_file).as_uri(), "BackURL": (folder / back_file).as_uri(),
                "NumWidth": sheet.columns, "NumHeight": sheet.rows, "BackIsHidden": True,
                "UniqueBack": not shared, "Type": 0}
            slot_of.update((id(face), (sheet.key, slot)) for slot, face in enumerate(sheet.fronts))
            first = {id(side.face): side for side in reversed(sides)}
            for slot, face in enumerate(sheet.fronts):
                self.inspected.append(self.inspection(
                    first[id(face)], f"{face_file} slot {slot}", sheet.cell, sheet.cell, "RGB",
                    None))
        scale = self.job.geometry.sizes[deck.spec.size].width / POKER_WIDTH
        cards = []
        for side in sides:
            if side.side != "front":
                continue
            deck_key, slot = slot_of[id(side.face)]
            for copy in range(side.card.qty):
                cards.append({
                    "GUID": _guid(self.job.game.name, deck.spec.id, side.card.id, copy),
                    "Name": "Card", "Transform": _transform(place, scale, face_down=True),
                    "Nickname": as_text(side.card.name, self.job.game.spec.icons),
                    "Description": describe(deck, side.card, self.job.game.spec.icons),
                    "CardID": deck_key * 100 + slot,
                    "CustomDeck": {str(deck_key): entries[str(deck_key)]}})
        if len(cards) == 1:
            return cards[0]
        return {"GUID": _guid(self.job.game.name, deck.spec.id), "Name": "DeckCustom",
                "Transform": _transform(place, scale, face_down=True),
                "Nickname": deck.spec.name, "Description": "",
                "DeckIDs": [card["CardID"] for card in cards], "CustomDeck": entries,
                "ContainedObjects": cards}

    def _sheet(self, faces: list[Face], sheet: Sheet) -> bytes:
        """A grid of faces, cell by cell from the top left, the free cells filled with the
        last face so no cell is transparent."""
        from PIL import Image

        width, height = sheet.cell
        grid = Image.new("RGB", (width * sheet.columns, height * sheet.rows), "white")
        filler = faces[-1]
        for slot in range(sheet.columns * sheet.rows):
            face = faces[slot] if slot < len(faces) else filler
            picture = self.picture(face, sheet.cell, bleed=False)
            grid.paste(picture, ((slot % sheet.columns) * width, (slot // sheet.columns) * height))
        out = io.BytesIO()
        grid.save(out, "PNG")
        return out.getvalue()

    def _tiles(self, deck: Deck, sides: list[Side], files: dict[str, bytes], folder: Path,
               place: dict[str, float]) -> dict[str, Any]:
        """A bag of custom tiles, one a copy, each with its front and back images."""
        size = self.job.geometry.sizes[deck.spec.size]
        pixels = _cell(size.width, size.height, 1, 1)
        named: dict[int, str] = {}
        tiles = []
        for side in sides:
            if id(side.face) not in named:
                named[id(side.face)] = f"{file_part(deck.spec.id)}/{side.number:03d}-" \
                                       f"{file_part(side.card.id)}-{side.side}.png"
                files[named[id(side.face)]] = self.image(side.face, pixels, bleed=False)
                self.inspected.append(self.inspection(side, named[id(side.face)], pixels,
                                                      pixels, "RGB", None))
        for side in sides:
            if side.side != "front":
                continue
            back = _back_of(sides, side)
            for copy in range(side.card.qty):
                tiles.append({
                    "GUID": _guid(self.job.game.name, deck.spec.id, side.card.id, copy),
                    "Name": "Custom_Tile",
                    "Transform": _transform(place, size.width / POKER_WIDTH, face_down=False),
                    "Nickname": as_text(side.card.name, self.job.game.spec.icons),
                    "Description": describe(deck, side.card, self.job.game.spec.icons),
                    "CustomImage": {
                        "ImageURL": (folder / named[id(side.face)]).as_uri(),
                        "ImageSecondaryURL": (folder / named[id(back)]).as_uri()
                        if back is not side.face else "",
                        "WidthScale": 0.0,
                        "CustomTile": {"Type": 0, "Thickness": 0.1, "Stackable": False,
                                       "Stretch": True}}})
        return {"GUID": _guid(self.job.game.name, deck.spec.id), "Name": "Bag",
                "Transform": _transform(place, 1.0, face_down=False),
                "Nickname": deck.spec.name, "Description": "", "ContainedObjects": tiles}


def _is_cards(deck: Deck, sides: list[Side]) -> bool:
    """Whether a deck goes to the table as cards: each card has a back of its own."""
    return not deck.spec.double_sided and all(
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
            "scaleX": round(scale, 3), "scaleY": 1.0, "scaleZ": round(scale, 3)}


def _guid(*names: str | int) -> str:
    """A GUID of six hex digits, the same for the same object of the same game."""
    return hashlib.sha256("/".join(map(str, names)).encode()).hexdigest()[:6]


def describe(deck: Deck, card: CardBase, icons: Collection[str] = ()) -> str:
    """A card's text as plain lines, field by declared field, without markup (an icon of
    `icons` as `[name]`): each value after its label, or after its key when it is not text."""
    lines = []
    for name, spec in deck.spec.fields.items():
        value = getattr(card, name, None)
        if value in (None, "", [], {}) or not spec.printed or spec.type in ("image", "bool"):
            continue
        named = spec.label or (None if spec.type in ("str", "text") else name)
        label = f"{named}: " if named else ""
        if isinstance(value, list) and value and isinstance(value[0], Section):
            lines += [f"{item.label}: {item.text}" if item.label else item.text
                      for item in value]
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
