"""Stage 3a, render: card faces and backs become HTML fragments through Jinja templates."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from . import BUILD_DIR, TEMPLATES_DIR
from .errors import Finding, PackError, display_path
from .fonts import FontRegistry
from .geometry import Geometry
from .load import Deck, Game, line_of
from .parts import CSS_SOURCE
from .schema import CardBase

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def rich(text: str | None) -> Markup:
    """Escape card text, then allow only **bold** and line breaks: text is data, not markup."""
    if not text:
        return Markup("")
    escaped = str(escape(text))
    escaped = _BOLD.sub(r"<b>\1</b>", escaped)
    return Markup(escaped.replace("\n", "<br>"))


@cache
def compiled_templates() -> jinja2.BytecodeCache:
    """Compiled templates kept on disk between builds: compiling them takes longer than the rest
    of a one-card rebuild's HTML. Jinja checks each template's source before using them."""
    folder = BUILD_DIR / ".cache" / "jinja"
    folder.mkdir(parents=True, exist_ok=True)
    return jinja2.FileSystemBytecodeCache(str(folder))


@cache
def _environment(pack_templates: Path | None) -> jinja2.Environment:
    """One Jinja environment per pack: its own templates/ first, then the shared ones."""
    loaders = [jinja2.FileSystemLoader(str(TEMPLATES_DIR))]
    if pack_templates is not None and pack_templates.is_dir():
        loaders.insert(0, jinja2.FileSystemLoader(str(pack_templates)))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=lambda name: not (name or "").endswith(".css.j2"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=compiled_templates(),
    )
    env.filters["rich"] = rich
    env.filters["mm"] = lambda value: f"{float(value):.3f}".rstrip("0").rstrip(".") + "mm"
    return env


def css_source(name: str) -> str:
    """A CSS comment saying which file the next lines of a stylesheet come from, so CSS that
    WeasyPrint ignores is reported at that file's line."""
    return f"/* {CSS_SOURCE} {name.replace('*/', '* /')} */\n"  # a file's name ends no comment


def environment(game: Game) -> jinja2.Environment:
    """The Jinja environment for a game pack."""
    return _environment(game.root / "templates")


def template_exists(game: Game, name: str) -> bool:
    """Whether the pack or the shared templates provide `name`."""
    try:
        environment(game).get_template(name)
    except jinja2.TemplateNotFound:
        return False
    return True


@dataclass(frozen=True)
class Face:
    """One rendered side of a card: its HTML, its deck, and what it is (a card id or a back)."""

    html: Markup
    deck_id: str
    source: str = ""


class Renderer:
    """Renders a game's card faces and backs, each back once."""

    def __init__(self, game: Game, geometry: Geometry):
        self.game = game
        self.geometry = geometry
        self.env = environment(game)
        self._backs: dict[tuple[str, str], Face] = {}
        self._faces: dict[tuple[str, str, int], Face] = {}
        self.lookup = {
            deck.spec.id: {card.id: card for card in deck.cards} for deck in game.decks
        }

    def context(self, deck: Deck) -> dict[str, Any]:
        """What every card template sees."""
        size = self.geometry.sizes[deck.spec.size]
        return {
            "game": self.game.spec,
            "deck": deck.spec,
            "tables": self.game.spec.tables,
            "rules": self.game.rules,
            "palette": self.game.spec.palette,
            "cards": self.lookup,
            "size": size,
            "bleed": self.geometry.bleed,
            "safe": self.geometry.safe,
        }

    def page_context(self, fonts: FontRegistry) -> dict[str, Any]:
        """What every document template sees: the game, its fonts and its stylesheets."""
        game = self.game.spec
        context = {
            "game": game,
            "palette": game.palette,
            "fonts": {role: f"'{family}'" for role, family in game.fonts.items()},
            "bleed": self.geometry.bleed,
            "safe": self.geometry.safe,
        }
        pack_css = ""
        if game.stylesheet:
            path = self.game.root / game.stylesheet
            pack_css = css_source(display_path(path)) + path.read_text(encoding="utf-8")
        return {
            **context,
            "font_css": Markup(fonts.font_face_css(set(game.fonts.values()))),
            "base_css": Markup(css_source("templates/base.css.j2")
                               + self.env.get_template("base.css.j2").render(**context)),
            "pack_css": Markup(pack_css),
        }

    def face(self, deck: Deck, card: CardBase, line: int = 0) -> Face:
        """Render the front of one card, once; `line` locates it for error messages."""
        key = (deck.spec.id, card.id, line)
        if key not in self._faces:
            html = self._render(f"cards/{deck.spec.template}.html.j2", deck, card=card,
                                where=(display_path(deck.path), line))
            self._faces[key] = Face(html, deck.spec.id, card.id)
        return self._faces[key]

    def back(self, deck: Deck, card: CardBase, face: Face | None = None) -> Face | None:
        """Render the back a card uses: its own face if double-sided, None if single-sided."""
        if deck.spec.double_sided:
            return face
        back_id = card.back or deck.spec.back
        if back_id is None:
            return None
        key = (deck.spec.id, back_id)
        if key not in self._backs:
            back = self.game.spec.backs[back_id]
            line = line_of(self.game.spec_data, ("backs", back_id))
            html = self._render(f"cards/{back.template}.html.j2", deck, back=back,
                                where=(display_path(self.game.root / "game.yaml"), line))
            self._backs[key] = Face(html, deck.spec.id, f"back:{back_id}")
        return self._backs[key]

    def _render(self, name: str, deck: Deck, where: tuple[str, int], **extra: Any) -> Markup:
        try:
            template = self.env.get_template(name)
            return Markup(template.render(**self.context(deck), **extra))
        except jinja2.TemplateError as exc:
            lineno = getattr(exc, "lineno", None)
            at = f" (template {name}{':' + str(lineno) if lineno else ''})"
            raise PackError([Finding(where[0], where[1], f"{exc.message}{at}", code="E060")]) \
                from None
