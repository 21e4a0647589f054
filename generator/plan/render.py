"""Stage 3a, render: card faces and backs become HTML fragments through Jinja templates."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, NamedTuple

import jinja2
from markupsafe import Markup, escape

from .. import FONTS_DIR, TEMPLATES_DIR
from ..check.colors import ink, legible, over
from ..check.findings import Finding, PackError, display_path
from ..pack.files import FileRefused, pack_bytes, pack_text
from ..pack.load import Deck, Game
from ..pack.schema import CardBase, DeckSpec, Limits
from ..pack.yamlfile import line_of
from ..text import icons
from ..text.fonts import FontRegistry
from ..text.language import direction, pack_words
from ..text.typeset import keep_together
from . import sandbox, shapes
from .geometry import Box, Geometry
from .parts import CSS_SOURCE
from .qr import STYLE as QR_STYLE
from .qr import qr
from .style import PageStyle, deck_names, html_names, parsed_style

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def rich(text: str | None) -> Markup:
    """Escape card text, then allow only **bold** and line breaks: text is data, not markup."""
    if not text:
        return Markup("")
    escaped = str(escape(text))
    escaped = _BOLD.sub(r"<b>\1</b>", escaped)
    return Markup(escaped.replace("\n", "<br>"))


def mm(value: float) -> str:
    """A number as a CSS length in mm, three decimals at most: `39.37mm`."""
    return f"{float(value):.3f}".rstrip("0").rstrip(".") + "mm"


@cache
def _environment(pack_templates: Path, limits: Limits) -> jinja2.Environment:
    """One sandboxed Jinja environment per pack: its own templates/ first, then the shared
    ones."""
    env = sandbox.environment([pack_templates, TEMPLATES_DIR], limits,
                              autoescape=lambda name: not (name or "").endswith(".css.j2"))
    env.filters["rich"] = rich
    env.globals["ink"] = ink
    env.globals["over"] = over
    env.globals["legible"] = legible
    env.globals["qr"] = qr
    env.filters["mm"] = mm
    return env


def css_source(name: str) -> str:
    """A CSS comment saying which file the next lines of a stylesheet come from, so CSS that
    WeasyPrint ignores is reported at that file's line."""
    return f"/* {CSS_SOURCE} {name.replace('*/', '* /')} */\n"  # a file's name ends no comment


def environment(game: Game) -> jinja2.Environment:
    """The Jinja environment for a game pack."""
    return _environment(game.root / "templates", game.spec.limits)


def template_exists(game: Game, name: str) -> bool:
    """Whether the pack or the shared templates provide `name`, readable and compiling."""
    return template_problem(game, name, ("", 0), "") is None


def template_problem(game: Game, name: str, where: tuple[str, int],
                     subject: str) -> Finding | None:
    """Why the template `name` cannot be used, as a finding at `where` (or at the template's
    own line for a syntax error); None when it can."""
    try:
        environment(game).get_template(name)
    except jinja2.TemplateNotFound:
        return Finding(*where, f"{subject}no template '{name}'", code="E022")
    except jinja2.TemplateError as exc:
        return sandbox.failure(exc, where, subject, "E060")
    return None


CARDS_READ = "@cards"  # how a face's rules read names another card it reads: @cards.deck.id
REVISION_MARK = "\ue000revision\ue000"  # where a face's revision tag goes, until it is known
TAG_LETTERS = 4  # a revision tag: this many letters of the face's print fingerprint
TAG_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"
_LINKED = re.compile(r"""(?:src|href)\s*=\s*["']([^"'#?:]+)["']|url\(\s*["']?([^"')#?:]+)""")


@dataclass(frozen=True)
class Face:
    """One rendered side of a card: its HTML, its deck, what it is (a card id or a back), the
    fingerprint of how it prints and the rules it reads."""

    html: Markup
    deck_id: str
    source: str = ""
    fingerprint: str = ""
    rules: frozenset[str] = frozenset()

    @property
    def tag(self) -> str:
        """The short revision tag the face prints, which changes only with its fingerprint."""
        return revision_tag(self.fingerprint)


def revision_tag(fingerprint: str) -> str:
    """A fingerprint's revision tag: a few capital letters, no digit to be read as a number
    of the game's, and no I or O to be read as one."""
    value, tag = int(fingerprint[:16] or "0", 16), ""
    for _ in range(TAG_LETTERS):
        value, index = divmod(value, len(TAG_ALPHABET))
        tag += TAG_ALPHABET[index]
    return tag


class Area(NamedTuple):
    """A box on a face, in mm from the face's top left corner (its bleed's)."""

    left: float
    top: float
    width: float
    height: float


@dataclass(frozen=True)
class FaceShape:
    """What a face template knows of its piece's shape (`outline`, its cut box `size`, the
    `bleed` round it and the `safe` zone inside): its kind, corner radius and top, the cut
    line, the bleed's and the safe zone's outlines as SVG path data in mm in the face's box,
    the box its text keeps to, and the largest disc centred in its safe zone."""

    outline: shapes.Shape
    size: Box
    margin: float  # the bleed: where the cut box starts in the face's box
    inset: float  # the safe zone: how far inside the cut line text stays

    @property
    def kind(self) -> str:
        """rect, rounded, circle, hex or path."""
        return self.outline.kind

    @property
    def radius(self) -> float:
        """A rounded rectangle's corner radius, in mm."""
        return self.outline.radius

    @property
    def pointy(self) -> bool:
        """Whether a hexagon has a point at its top (else a flat edge)."""
        return self.outline.pointy

    @property
    def square(self) -> bool:
        """Whether it is a plain rectangle."""
        return self.outline.square

    @property
    def name(self) -> str:
        """How a message names it."""
        return self.outline.name

    @property
    def data(self) -> str:
        """The outline as text, for the layout's checks (templates/faces.html.j2)."""
        return shapes.encoded(self.outline)

    @cached_property
    def cut(self) -> str:
        """The cut line."""
        return self.path(0)

    @cached_property
    def bleed(self) -> str:
        """The bleed's outer edge: the cut line grown by the bleed."""
        return self.path(self.margin)

    @cached_property
    def safe(self) -> str:
        """The safe zone's edge: the cut line shrunk by the safe zone."""
        return self.path(-self.inset)

    def path(self, grow: float = 0) -> str:
        """The cut line grown `grow` mm outward (negative: inward), as SVG path data in mm."""
        return shapes.svg_path(self.outline, self.size.width, self.size.height, float(grow),
                               (self.margin, self.margin))

    @property
    def view(self) -> str:
        """The viewBox of an SVG the size of the face that draws these paths."""
        return shapes.view_box(self.size.width, self.size.height, self.margin)

    def corners(self, grow: float = 0) -> str:
        """The CSS `border-radius` that rounds a box the size of the cut line grown `grow` mm
        to the shape: `50%` for a circle, the corners' radius for a rounded rectangle, else
        empty (a rectangle; a hexagon or an outline is drawn as SVG)."""
        if self.kind == "circle":
            return "50%"
        if self.kind == "rounded":
            return mm(max(self.radius + float(grow), 0))
        return ""

    @cached_property
    def text(self) -> Area:
        """The largest rectangle centred on the piece inside its safe zone: where text goes
        (the safe zone itself on a rectangle)."""
        left, top, right, bottom = shapes.text_box(self.outline, self.size.width,
                                                   self.size.height, self.inset)
        return Area(self.margin + left, self.margin + top, right - left, bottom - top)

    @cached_property
    def disc(self) -> Area:
        """The box of the largest disc centred on the piece inside its safe zone."""
        radius = shapes.inner_radius(self.outline, self.size.width, self.size.height,
                                     self.inset)
        return Area(self.margin + self.size.width / 2 - radius,
                    self.margin + self.size.height / 2 - radius, 2 * radius, 2 * radius)


class Renderer:
    """Renders a game's card faces and backs, each back once."""

    def __init__(self, game: Game, geometry: Geometry, fonts: FontRegistry):
        self.game = game
        self.geometry = geometry
        self.fonts = fonts
        self.env = environment(game)
        self.words = pack_words(game.spec)  # the words the shared templates print
        self._backs: dict[tuple[str, str, str], Face] = {}
        self._faces: dict[tuple[str, str, int, str, str], Face] = {}
        self._shapes: dict[tuple[str, shapes.Shape | None], FaceShape] = {}
        self.fields_read: dict[str, set[str]] = {}  # by deck: the card fields its faces read
        self.lookup = {
            deck.spec.id: {card.id: card for card in deck.cards} for deck in game.decks
        }
        self.numbers = {  # each card's place in its deck, from 1, in the deck's order
            deck.spec.id: {card.id: index for index, card in enumerate(deck.cards, start=1)}
            for deck in game.decks
        }
        self.whole = {deck.spec.id: (len(deck.cards), deck.copies) for deck in game.decks}
        self.rule_paths = sandbox.rule_paths(game.rules)  # traced as faces are rendered
        self.rule_paths[id(self.lookup)] = CARDS_READ  # and the other cards a face reads
        self.rule_paths.update((id(cards), f"{CARDS_READ}.{deck}")
                               for deck, cards in self.lookup.items())
        self._linked: dict[str, bytes] = {}  # each file a face links to: its content's hash
        self._paths: dict[Path, str] = {}  # each file a face comes from, as findings name it

    def context(self, deck: Deck) -> dict[str, Any]:
        """What every card template sees; the deck counted whole, as the game has it (the
        layout checks may be given it less the cards they cannot lay out)."""
        size = self.geometry.sizes[deck.spec.size]
        count, copies = self.whole.get(deck.spec.id, (len(deck.cards), deck.copies))
        return {
            "count": count,
            "copies": copies,
            "game": self.game.spec,
            "deck": deck.spec,
            "tables": self.game.spec.tables,
            "rules": self.game.rules,
            "palette": self.game.spec.palette,
            "cards": self.lookup,
            "size": size,
            "bleed": self.geometry.bleed,
            "safe": self.geometry.safe,
            "shape": self.shape(deck),
            "words": self.words,
            "revision": REVISION_MARK,
        }

    def shape(self, deck: Deck) -> FaceShape:
        """A deck's shape as its faces see it, worked out once."""
        key = (deck.spec.size, deck.shape)
        if key not in self._shapes:
            geometry = self.geometry
            self._shapes[key] = FaceShape(geometry.shape(*key), geometry.sizes[deck.spec.size],
                                          geometry.bleed, geometry.safe)
        return self._shapes[key]

    def page_context(self) -> dict[str, Any]:
        """What every document template sees: the game, its fonts and its stylesheets."""
        return {**self._shared_page_context, "pack_css": Markup(self._pack_css())}

    @cached_property
    def _shared_page_context(self) -> dict[str, Any]:
        """The page context less the pack's stylesheet (worked out once: every page asks)."""
        game = self.game.spec
        stacks, font_css = self.fonts.page_fonts(game.fonts, game.language)  # Latin and CJK faces
        context = {
            "game": game,
            "palette": game.palette,
            "fonts": stacks,
            "bleed": self.geometry.bleed,
            "safe": self.geometry.safe,
            "words": self.words,
            "direction": direction(game.language),  # "rtl" puts dir="rtl" on the page
        }
        return {
            **context,
            "font_css": Markup(font_css),
            "base_css": Markup(css_source("templates/base.css.j2")
                               + self.render("base.css.j2", context)
                               + QR_STYLE + (icons.STYLE if game.icons else "")),
        }

    def _pack_css(self) -> str:
        """The pack's stylesheet, headed by its name; a PackError when it cannot be read."""
        game = self.game.spec
        if not game.stylesheet:
            return ""
        try:
            text = pack_text(self.game.root, game.stylesheet, game.limits.file_bytes)
        except FileRefused as exc:
            raise PackError([Finding(display_path(self.game.root / "game.yaml"),
                                     line_of(self.game.spec_data, ("stylesheet",)),
                                     f"stylesheet {exc.message}", code=exc.code)]) from None
        return css_source(display_path(self.game.root / game.stylesheet)) + text

    def face(self, deck: Deck, card: CardBase, line: int = 0) -> Face:
        """Render the front of one card, once for each template and size its deck is given
        (a standee may give others); `line` locates it for error messages."""
        key = (deck.spec.id, card.id, line, deck.spec.template, deck.spec.size)
        if key not in self._faces:
            with sandbox.reading(self.env, card) as read, \
                    sandbox.tracing(self.env, self.rule_paths) as rules:
                html = self._render(f"cards/{deck.spec.template}.html.j2", deck,
                                    (self._shown(deck.path), line), card.id, card=card,
                                    index=self.numbers.get(deck.spec.id, {}).get(card.id, 0))
            self.fields_read.setdefault(deck.spec.id, set()).update(read)
            self._faces[key] = self._stamped(fitted(html, deck.spec), deck.spec.id, card.id,
                                             rules)
        return self._faces[key]

    def back(self, deck: Deck, card: CardBase, face: Face | None = None) -> Face | None:
        """Render the back a card uses, once for each size its deck is given: its own face if
        double-sided, None if single-sided."""
        if deck.spec.double_sided:
            return face
        back_id = card.back or deck.spec.back
        if back_id is None:
            return None
        key = (deck.spec.id, back_id, deck.spec.size)
        if key not in self._backs:
            back = self.game.spec.backs[back_id]
            line = line_of(self.game.spec_data, ("backs", back_id))
            with sandbox.tracing(self.env, self.rule_paths) as rules:
                html = self._render(f"cards/{back.template}.html.j2", deck,
                                    (self._shown(self.game.root / "game.yaml"), line),
                                    back=back)
            self._backs[key] = self._stamped(html, deck.spec.id, f"back:{back_id}", rules)
        return self._backs[key]

    def _shown(self, path: Path) -> str:
        """A file faces come from as findings name it (display_path), worked out once."""
        if path not in self._paths:
            self._paths[path] = display_path(path)
        return self._paths[path]

    def _stamped(self, html: Markup, deck_id: str, source: str, rules: set[str]) -> Face:
        """A face with its fingerprint, and its revision tag printed where the template put
        `revision`. The fingerprint is of what the face prints with: its HTML, the files it
        links to, the fonts, and the rules of the page's stylesheet that can reach it."""
        digest = hashlib.sha256(self.font_digest.encode())
        digest.update(str(html).encode())
        for found in _LINKED.finditer(html):
            digest.update(self._linked_digest(found.group(1) or found.group(2)))
        for rule in self.page_style.reaching(html_names(str(html)) | deck_names(deck_id)):
            digest.update(rule.encode() + b"\n")
        fingerprint = digest.hexdigest()
        tagged = Markup(str(html).replace(REVISION_MARK, revision_tag(fingerprint)))
        return Face(tagged, deck_id, source, fingerprint, frozenset(rules))

    def _linked_digest(self, name: str) -> bytes:
        """The hash of a file a face links to, by its name in the pack (empty when it is not
        there: the checks say so)."""
        if name not in self._linked:
            path = self.game.root / name.strip()
            try:
                inside = path.resolve().is_relative_to(self.game.root.resolve())
                if inside and path.is_file():
                    with path.open("rb") as handle:  # in chunks, however large the file
                        self._linked[name] = hashlib.file_digest(handle, "sha256").digest()
                else:
                    self._linked[name] = b""
            except (OSError, ValueError):  # a name no file can have (a NUL in it)
                self._linked[name] = b""
        return self._linked[name]

    @cached_property
    def font_digest(self) -> str:
        """What every face prints with besides its HTML and styles: the fonts (each file's
        name and size; the pack's own by content) and the game's language."""
        game = self.game.spec
        digest = hashlib.sha256(f"{game.language}\n".encode())
        for font in sorted(FONTS_DIR.iterdir()):
            digest.update(f"{font.name}:{font.stat().st_size}\n".encode())
        for own in game.font_files:
            digest.update(self._linked_digest(own.file))
        digest.update(repr(sorted(game.fonts.items())).encode())
        return digest.hexdigest()

    @cached_property
    def page_style(self) -> PageStyle:
        """The stylesheet of the page every face is laid out on: the shared one as the game
        renders it, then the pack's (left out when it cannot be read: the checks say why)."""
        try:
            pack_css = self._pack_css()
        except PackError:
            pack_css = ""
        return parsed_style(str(self._shared_page_context["base_css"]) + pack_css)

    def render(self, name: str, context: dict[str, Any],
               where: tuple[str, int] | None = None, card: str = "") -> str:
        """One template of the pack or the shared ones, in the sandbox and within the game's
        limits; a failure is a PackError at `where`, else at the template's own line, naming
        the `card` it renders (sandbox.failure)."""
        try:
            return sandbox.render(self.env.get_template(name), self.game.spec.limits, **context)
        except Exception as exc:  # noqa: BLE001 - a pack's template may fail in any way
            at = where or (display_path(TEMPLATES_DIR / name), 0)
            raise PackError([sandbox.failure(exc, at, "", "E060", card)]) from None

    def _render(self, name: str, deck: Deck, where: tuple[str, int], card_id: str = "",
                **extra: Any) -> Markup:
        """A face (of the card `card_id`) or a back, its icons drawn, its paragraphs ending
        on no lone character or word."""
        html = self.render(name, {**self.context(deck), **extra}, where, card_id)
        return Markup(keep_together(icons.draw(html, self.icons)))

    @cached_property
    def icons(self) -> dict[str, str]:
        """What draws each icon of the game, by name."""
        return icon_markup(self.game)


def fitted(html: Markup, deck: DeckSpec) -> Markup:
    """A face with each field its deck shrinks to fit (`fit: shrink`) marked for the layout,
    wherever the template marks the field (`data-field`)."""
    for name, spec in deck.fields.items():
        if spec.fit == "shrink":
            marks = 'data-fit="shrink"' + (f' data-fit-min="{spec.min}"' if spec.min else "")
            html = Markup(re.sub(rf'(?=data-field="{re.escape(name)}[".])', marks + " ",
                                 str(html)))
    return html


def icon_markup(game: Game) -> dict[str, str]:
    """The inline HTML drawing each icon game.yaml names; one whose file cannot be read is
    left out (validate has said why, at its line)."""
    drawn = {}
    for name, file in game.spec.icons.items():
        try:
            data = pack_bytes(game.root, file, game.spec.limits.file_bytes)
        except FileRefused:
            continue
        drawn[name] = icons.markup(name, Path(file), data)
    return drawn


def render_shared(name: str, **context: Any) -> str:
    """One of the project's own templates that no game is in (the calibration page)."""
    from ..pack.schema import DEFAULT_LIMITS

    template = _environment(TEMPLATES_DIR, DEFAULT_LIMITS).get_template(name)
    return sandbox.render(template, DEFAULT_LIMITS, **context)
