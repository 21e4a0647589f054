"""The game-pack format: pydantic models for game.yaml and the card models built from it."""

from __future__ import annotations

import datetime
import math
from functools import cache
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .. import TEMPLATES_DIR
from ..data import read_data_yaml

Color = Annotated[str, StringConstraints(pattern=r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]+)$")]
FontFamily = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9 _-]+$")]
# An id names files (`<nnn>-<card-id>-front.png`): 48 characters of 4 bytes each, and what
# goes round them, stay within the 255 bytes a file name may have.
Id = Annotated[str, StringConstraints(max_length=48)]
IconName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_-]*$", max_length=48)]

FieldType = Literal[
    "str", "text", "int", "bool", "ref", "refs", "choice", "list", "sections", "counts", "image",
    "rows",
]
Scalar = str | int | float | bool
Cell = Scalar | list[Scalar]


LOCAL_HOSTS = ("127.0.0.1", "localhost")  # the only hosts a source may reach by plain http


def source_problem(url: str) -> str | None:
    """What is wrong with a deck's `source:` address, else None: it must be https (http only
    to this machine, for tests), name a host, and hold no password nor control character."""
    if any(char.isspace() or not char.isprintable() for char in url):
        return "must be one address, without spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises
    except ValueError:
        return "is not a web address"
    if not parts.hostname:
        return "must be a web address, https://…"
    if parts.username is not None or parts.password is not None:
        return "must not hold a user name or password: share the sheet instead"
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOCAL_HOSTS):
        return None
    return "must be an https:// address (http:// only to 127.0.0.1 or localhost, for tests)"


def _checked_source(url: str | None) -> str | None:
    """A deck's `source:`, refused unless source_problem finds nothing."""
    if url is not None and (problem := source_problem(url)):
        raise PydanticCustomError("source", problem)
    return url


class Strict(BaseModel):
    """A model that rejects unknown keys and does not coerce types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class FieldSpec(Strict):
    """A deck-specific card field, declared in game.yaml."""

    type: FieldType = "str"
    required: bool = False
    label: str | None = None
    deck: str | None = Field(None, description="for ref/refs: the deck whose card ids are valid")
    table: str | None = Field(None, description="for ref/refs: the table whose keys are valid")
    choices: list[str | int | float] | None = Field(None, description="for choice: the "
                                                    "allowed values, text or numbers")
    items: Literal["text", "number"] = Field("text", description="for list: what each item "
                                             "is; a number given for text is its text")
    printed: bool = Field(True, description="false for data no card template prints (a "
                          "reference the rules use), so validate does not ask for it (W026)")
    fit: Literal["shrink"] | None = Field(None, description="shrink: the text is set at the "
                                          "largest size that fits its box, down to `min`")
    min: str | None = Field(None, pattern=r"^\d+(\.\d+)?(pt|mm)$", description="with `fit: "
                            "shrink`, the smallest size (`6pt`); by default the card's "
                            "smallest readable size")


class BackSpec(Strict):
    """A card back: drawn by a template from a colour, an emblem, a pattern and a motto."""

    template: str = "back"
    color: Color
    accent: Color | None = None  # the frame and motto; by default white, darkened to read
    emblem: str | None = None
    pattern: str | None = None
    text: str | None = None


class Shaped(Strict):
    """The keys that give a piece's cut line a shape (a deck's, or a size's)."""

    shape: str | None = Field(None, description="the cut line: rect (the default), circle, "
                              "hex (a point at the top; also hex-pointy), hex-flat, or an "
                              ".svg file in the pack whose largest closed path is the outline, "
                              "scaled to the size")
    corners: str | float | None = Field(None, description="a rectangle's rounded corners: "
                                        "their radius, `3mm`")


class DeckSpec(Shaped):
    """One deck: its file, card size, template, back and expected count."""

    id: Id
    name: str
    file: str
    size: str
    template: str
    count: int = Field(ge=0)
    back: str | None = None
    double_sided: bool = Field(False, description="the back of each card is its own face")
    output: str = Field("cards", pattern=r"^\w[\w-]*$", description="the PDF its sheets go "
                        "in, `<output>-<paper>.pdf`: letters, digits, `_` and `-`")
    crop_marks: bool = Field(True, description="false for sheets used uncut, e.g. score pads")
    overview: bool = Field(False, description="a tiled component is also printed whole, "
                           "scaled to one page")
    own_sheets: bool = Field(False, description="never share a sheet with another deck of "
                             "the same size (a deck printed on other card stock)")
    color: Color | None = None
    fields: dict[str, FieldSpec] = {}
    sheet: str | None = Field(None, description="for an .xlsx file: the sheet its cards are "
                              "on (default: the first)")
    source: Annotated[str | None, AfterValidator(_checked_source)] = Field(
        None, description="for a .csv or .xlsx file: the https address `pnp pull` downloads "
        "it from (a Google Sheets share link works)",
        json_schema_extra={"pattern": r"^(https://|http://(127\.0\.0\.1|localhost)[:/])"})


class SizeSpec(Shaped):
    """A pack's own component size at the cut line, in mm; larger than the paper is tiled."""

    width: float = Field(gt=0, le=2000)
    height: float = Field(gt=0, le=2000)


class DieSpec(Strict):
    """A printable fold-and-glue die: a cube net with pips on each face."""

    id: Id
    name: str
    count: int = Field(1, ge=1)
    edge: float = Field(18, gt=5, le=40, description="cube edge in mm")
    color: Color = "#ffffff"
    ink: Color = "#000000"
    faces: list[Annotated[int, Field(ge=0, le=9)]] = Field([1, 2, 3, 4, 5, 6], min_length=6,
                                                          max_length=6)


class BoxSpec(Strict):
    """A tuck box for a deck, or several decks stacked in one: a one-piece net to cut out,
    fold and glue, its panels drawn by a template."""

    id: Id
    name: str | None = Field(None, description="the name its panels print; by default its "
                             "decks' names")
    decks: list[Id] = Field(min_length=1, max_length=100, description="the decks whose cards "
                            "it holds, stacked: every copy of every card counts")
    clearance: float | None = Field(None, ge=0, le=20, allow_inf_nan=False, description="mm "
                                    "added to the cards' width, height and stack; by default "
                                    "templates/print.yaml's `box: clearance` (1 mm)")
    thickness: float | None = Field(None, gt=0, le=5, allow_inf_nan=False, description="mm a "
                                    "card adds to the stack; by default templates/print.yaml's "
                                    "`box: card_thickness` (0.3 mm, unsleeved 300 gsm card)")
    depth: float | None = Field(None, gt=0, le=300, allow_inf_nan=False, description="the "
                                "inside's depth in mm, instead of the one the cards give")
    template: str = Field("box", description="the panels' template, "
                          "`templates/cards/<template>.html.j2`, the pack's own first")
    color: Color | None = Field(None, description="the colour every panel is painted, bleed "
                                "included; by default the palette's `paper`, else white")
    art: str | None = Field(None, description="an image in the pack the template may print "
                            "(the shared one puts it on the front)")
    count: int = Field(1, ge=1, le=100, description="how many of this box to print")
class StandeeSpec(Strict):
    """Standing figures folded from a deck's cards: each card's face in front, its mirror (or
    the deck's back) behind, joined at a fold over the head, on folded feet or a base's slot."""

    id: Id = Field(description="names the standees in findings and the manifest")
    deck: str = Field(description="the deck whose cards become standees")
    cards: list[str] | None = Field(None, description="the cards that do, by id (default: "
                                    "every card of the deck)")
    size: str | None = Field(None, description="each panel's size at the cut line, from "
                             "print.yaml or the pack's `sizes` (default: the deck's)")
    base: Literal["tab", "slot"] = Field("tab", description="tab: a foot below each panel, "
                                         "folded under and glued to a base; slot: a plain "
                                         "bottom edge for a plastic base, its slot marked")
    foot: float = Field(12, gt=0, le=50, allow_inf_nan=False, description="with `base: tab`, "
                        "how deep each foot is, in mm")
    slot: float = Field(25, gt=0, le=200, allow_inf_nan=False, description="with `base: slot`, "
                        "the width of the base's slot marked on the bottom edge, in mm")
    template: str | None = Field(None, description="the front's card template (default: the "
                                 "deck's own, so the front is exactly the card's face)")
    back: bool = Field(False, description="true: the back panel shows the card's back; by "
                       "default it shows the front mirrored, as the figure seen from behind")
    count: int | None = Field(None, ge=1, le=100, description="the copies of each standee "
                              "(default: each card's qty)")


class ComponentSpec(Strict):
    """One line of the component list the rulebook states, and what in the pack prints it."""

    name: str
    count: int = Field(ge=0)
    decks: list[str] = []
    cards: list[str] = []
    dice: list[str] = []


class RulebookSpec(Strict):
    """The rulebook: its Markdown source in the pack, whether it ends in a card gallery, and
    the words its frame prints when not the language's (the same as `words:` gives)."""

    file: str = "rulebook.md"
    contents: str | None = Field(None, description="the table of contents' heading; by "
                                 "default the language's word (`words: contents`)")
    gallery: str | bool | None = Field(True, description="the card gallery's heading, true for "
                                       "the language's word (`words: gallery`); false or null "
                                       "leaves the gallery out")
    back: str | None = Field(None, description="the gallery's caption for a deck's back, after "
                             "the deck's name; by default the language's word (`words: back`)")


class TypographySpec(Strict):
    """How the straight marks of card text and the rulebook print."""

    quotes: Literal["straight", "smart"] = Field("straight", description="smart: straight "
                                                 "quotes print as the language's marks, an "
                                                 "apostrophe as ’, `--` as –, `---` as — and "
                                                 "`...` as …; straight (the default): as typed")


class Limits(Strict):
    """What a pack may ask for before it is refused (E006): a pack may come from a stranger,
    so sizes and counts are bounded; raise one in game.yaml (`limits: {qty: 5000}`). Every
    limit has a ceiling no pack may raise it past, which keeps memory near 1 GB at most and
    time within minutes on a small machine, and Python itself safe: its stack, its integers."""

    file_mb: float = Field(20, gt=0, le=200, allow_inf_nan=False, description="the size of "
                           "any one file the pack reads: a deck, the rules, the rulebook, an "
                           "image, a font, a template")
    yaml_nodes: int = Field(100_000, gt=0, le=1_000_000, description="the nodes of one YAML "
                            "file, every alias expanded")
    yaml_depth: int = Field(40, gt=0, le=200, description="how deep mappings and lists nest in "
                            "a YAML file")
    string_chars: int = Field(10_000, gt=0, le=10_000_000, description="the characters of "
                              "one YAML string")
    integer_digits: int = Field(12, gt=0, le=4000, description="the digits of one integer in "
                                "YAML")
    qty: int = Field(1000, gt=0, le=20_000, description="the copies of one card")
    copies: int = Field(5000, gt=0, le=20_000, description="the physical cards of one deck")
    dice: int = Field(100, gt=0, le=1000, description="the count of one die")
    template_seconds: float = Field(10, gt=0, le=60, allow_inf_nan=False, description="the "
                                    "time one template render may take")
    template_seconds_total: float = Field(60, gt=0, le=600, allow_inf_nan=False, description=(
        "the time all the pack's template renders may take in one command (a validate, a "
        "build, an export)"))
    template_output_mb: float = Field(16, gt=0, le=100, allow_inf_nan=False, description="the "
                                      "HTML one template render may give")
    image_megapixels: float = Field(50, gt=0, le=150, allow_inf_nan=False, description="the "
                                    "pixels of one raster image, in millions (a decompression "
                                    "bomb has billions)")

    @property
    def file_bytes(self) -> int:
        """file_mb in bytes."""
        return int(self.file_mb * 1_000_000)


DEFAULT_LIMITS = Limits()  # game.yaml itself is read with these, and a page that is given none


@cache
def print_readability() -> dict[str, float]:
    """The `readability` block of templates/print.yaml: the smallest text sizes, in pt."""
    data = read_data_yaml(TEMPLATES_DIR / "print.yaml")
    return {key: float(value) for key, value in data["readability"].items()}


class Readability(Strict):
    """The smallest text `pnp validate` accepts on a face, in pt; what game.yaml leaves out
    comes from templates/print.yaml `readability`. The page carries both (base.css.j2)."""

    min_text: float = Field(default_factory=lambda: print_readability()["min_text"], gt=0,
                            le=72, allow_inf_nan=False, description="any text a player reads")
    min_stamp: float = Field(default_factory=lambda: print_readability()["min_stamp"], gt=0,
                             le=72, allow_inf_nan=False, description="the version stamp: a "
                             "card's `.footer`, a token's `.token-version`")


class FontFileSpec(Strict):
    """One face of a font the pack ships itself (game.yaml `font_files`)."""

    family: FontFamily = Field(description="the name `fonts:` and the pack's CSS call it by")
    weight: int = Field(400, ge=1, le=1000, description="400 regular, 700 bold, …")
    style: Literal["normal", "italic"] = "normal"
    file: str = Field(description="the TrueType or OpenType file, inside the pack")
    licence: str = Field(min_length=1, description="the licence the font is under (OFL-1.1): "
                         "the pack's PDFs embed it")


class GameSpec(Strict):
    """game.yaml: the title, version, players, palette, fonts and component manifest."""

    @model_validator(mode="before")
    @classmethod
    def _source_language(cls, data: Any) -> Any:
        """`language` left out beside `languages` is their first: the source."""
        if isinstance(data, dict) and "language" not in data:
            listed = data.get("languages")
            if isinstance(listed, list) and listed and isinstance(listed[0], str):
                return {**data, "language": listed[0]}
        return data

    title: str
    version: str
    players: str
    subtitle: str | None = None
    date: str | datetime.date | None = Field(None, description="the edition's date, printed on "
                                             "the rulebook cover")
    language: str = Field("en", description="the pack's language (default: en): its table in "
                          "templates/lang/ gives the words the shared templates print; with "
                          "`languages`, the source language (by default their first)")
    languages: list[str] = Field([], description="every language the game ships in, the source "
                                 "first (`[en, es, zh-CN]`): each other one translated in "
                                 "translations/<language>.yaml")
    words: dict[str, str] = Field({}, description="the pack's own words for any entry of the "
                                  "language table (`words: {draft: Proof}`)")
    url: str | None = None
    palette: dict[str, Color] = {}
    fonts: dict[str, FontFamily]
    font_files: list[FontFileSpec] = Field([], description="the pack's own fonts, usable by "
                                           "family in `fonts` and in the pack's CSS")
    decks: list[DeckSpec]
    backs: dict[Id, BackSpec] = {}
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    stylesheet: str | None = None
    icons: dict[IconName, str] = Field({}, description="images drawn in text: `:coin:` in any "
                                       "text draws the file given for `coin` (SVG or PNG)")
    rules: str | None = Field(None, description="the pack's rules data file, quoted as {path}")
    sizes: dict[str, SizeSpec] = {}
    dice: list[DieSpec] = []
    boxes: list[BoxSpec] = Field([], description="tuck boxes for the decks "
                                 "(`boxes-<paper>.pdf`)")
    standees: list[StandeeSpec] = Field([], description="standing figures folded from cards "
                                        "(`standees-<paper>.pdf`)")
    components: list[ComponentSpec] = Field([], description="the rulebook's component list")
    rulebook: RulebookSpec = RulebookSpec()
    typography: TypographySpec = Field(TypographySpec(), description="`{quotes: smart}` sets "
                                       "the quotes, dashes and ellipses of card text and the "
                                       "rulebook as the language writes them")
    limits: Limits = Field(Limits(), description="what the pack may ask for before it is "
                           "refused; game.yaml itself is read with the defaults")
    readability: Readability = Field(default_factory=Readability, description="the smallest "
                                     "text validate accepts (print.yaml's, unless given)")
    suppress: list[str] = Field([], description="warning codes the pack does not want "
                                "reported (`suppress: [W072]`); an error is never silenced")


class Section(Strict):
    """One labelled paragraph of card text."""

    label: str | None = None
    text: str


class CardBase(Strict):
    """Keys every card has, whatever its deck."""

    id: Id
    name: str
    qty: int = Field(1, ge=1)
    draft: bool = False
    back: str | None = None
    art: str | None = None
    quote: str | None = None
    sections: list[Section] = []
    motto: str | None = None


_PYTHON_TYPES: dict[str, Any] = {
    "str": str,
    "text": str,
    "int": int,
    "bool": bool,
    "ref": str,
    "refs": list[str],
    "choice": str,
    "list": list[str],
    "sections": list[Section],
    "counts": dict[str, int],
    "image": str,
    "rows": list[dict[str, Cell]],
}


def _number_as_text(value: Any) -> Any:
    """A number where text is asked for (`[54, 113]` in a list of text) is its text."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _number(value: Any) -> int | float:
    """A number, or the text of one (`"54"`, `"2.5"`): an item of a list of numbers."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        for kind in (int, float):
            try:
                number = kind(value.strip())
            except ValueError:
                continue
            if math.isfinite(number):
                return number
    raise PydanticCustomError("number", "input should be a number")


_ITEMS: dict[str, Any] = {
    "text": list[Annotated[str, BeforeValidator(_number_as_text)]],
    "number": list[Annotated[Any, BeforeValidator(_number)]],
}


def card_model(deck: DeckSpec) -> type[CardBase]:
    """The pydantic model of one deck's cards from its declared fields, built once."""
    return _card_model(deck.id, tuple((name, spec.type, tuple(spec.choices or ()), spec.required,
                                       spec.items) for name, spec in deck.fields.items()))


@cache
def _card_model(deck_id: str, declared: tuple[tuple[str, str, tuple, bool, str], ...]
                ) -> type[CardBase]:
    fields: dict[str, Any] = {}
    for name, kind, choices, required, items in declared:
        python_type = _ITEMS[items] if kind == "list" else _PYTHON_TYPES[kind]
        if kind == "choice" and choices:
            python_type = Literal[choices]
        built_in = CardBase.model_fields.get(name)  # declared to be shrunk, say: its default
        default = built_in.default if built_in is not None else None
        fields[name] = (python_type, ...) if required else (python_type | None, default)
    return create_model(f"Card_{deck_id}", __base__=CardBase, **fields)


def accepted_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """List the keys the model accepts at the mapping that holds loc's last key."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) if _is_model(current) else None
        if field is None:
            return []
        current = _inner_model(field.annotation)
    return sorted(current.model_fields) if _is_model(current) else []


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _inner_model(annotation: Any) -> Any:
    """Unwrap list[X], dict[str, X] and X | None down to a model class, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        inner = _inner_model(arg)
        if inner is not None:
            return inner
    return None
