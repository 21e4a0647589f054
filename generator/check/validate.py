"""Stage 2, validate: check that a loaded pack agrees with itself before anything renders."""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import TEMPLATES_DIR
from ..pack.files import FileRefused, inside, pack_bytes, read_text
from ..pack.images import image_problem
from ..pack.load import Deck, Game, Text
from ..pack.rules import RuleError, lookup, match_rules
from ..pack.schema import CardBase, Limits
from ..pack.yamlfile import line_of
from ..plan.geometry import Geometry
from ..plan.render import Renderer, template_exists, template_problem
from ..plan.shapes import fits
from ..text import icons
from ..text.fonts import FontRegistry
from ..text.typography import pack_marks, printed_marks
from .findings import CODES, Finding, PackError, card_order, display_path, stopping

IMAGE_SUFFIXES = (".svg", ".png", ".jpg", ".jpeg", ".webp", ".gif")
# Errors that stop a face from being laid out (the code table says which): of a card (at its
# entry), of a deck (at its entry in game.yaml, or its file), of every deck (elsewhere in
# game.yaml).
CARD_BLOCKERS, DECK_BLOCKERS, GAME_BLOCKERS = (stopping(scope) for scope in ("card", "deck",
                                                                              "game"))


@dataclass(frozen=True)
class Validated:
    """Every finding on a game's data, the decks whose layout can be checked (less the cards
    that cannot), and what that leaves out, and why."""

    findings: list[Finding]
    decks: list[Deck]
    unchecked: list[str]


def validate(game: Game, geometry: Geometry, fonts: FontRegistry,
             renderer: Renderer) -> Validated:
    """Run every check; every card is rendered once, so a failing template is found too."""
    texts = [*game.texts, *template_texts(game), *rulebook_texts(game)]
    checks = (
        game.findings,
        _check_manifest(game, geometry, fonts),
        _check_shapes(game, geometry),
        _check_unique_ids(game),
        _check_references(game),
        _check_counts(game),
        _check_components(game),
        _check_files(game),
        _check_icons(game),
        _check_glyphs(game, fonts, texts),
        _check_restated_rules(game, texts),
        _check_rule_ranges(game),
        _check_drafts(game),
        _check_faces(game, geometry, renderer),
        _check_printed_fields(game, renderer),
        _check_suppress(game),
    )
    findings = sorted({finding for check in checks for finding in check})
    decks, unchecked = _layable(game, findings)
    return Validated(findings, decks, unchecked)


def _layable(game: Game, findings: list[Finding]) -> tuple[list[Deck], list[str]]:
    """The decks whose faces can be laid out and measured, each less the cards whose own
    errors stop that, and a line for each thing left out."""
    where = _game_where(game)
    errors = [f for f in findings if f.level == "error"]
    blocks = _deck_blocks(game)
    outside = [f for f in errors if f.path == where and f.code in GAME_BLOCKERS
               and not any(start <= f.line < end for start, end in blocks)]
    if outside:
        return [], [f"every deck's layout (game.yaml:{outside[0].line} has an error that stops "
                    "it)"]
    decks, unchecked = [], []
    for deck, (start, end) in zip(game.decks, blocks, strict=True):
        own = [f for f in errors if f.path == display_path(deck.path) or (
            f.path == where and start <= f.line < end)]
        if not deck.readable or any(f.code in DECK_BLOCKERS and (f.path == where or f.line <= 1)
                                    for f in own):
            unchecked.append(f"deck '{deck.spec.id}' (its own errors stop its layout)")
            continue
        held = {line: card.id for card, line in deck.located()}  # each card by its entry's line
        blocked = {held[entry] for entry in (_entry_of(deck, f.line) for f in own
                                             if f.code in CARD_BLOCKERS) if entry in held}
        blocked |= {f.card for f in errors if f.code in CARD_BLOCKERS} & set(held.values())
        unchecked += [f"card '{card_id}' (its own errors stop its layout)"
                      for card_id in sorted(blocked, key=card_order)]
        decks.append(deck.without(blocked))
    return decks, unchecked


def _deck_blocks(game: Game) -> list[tuple[int, int]]:
    """The lines each deck's entry of game.yaml spans: from its first to the next one's."""
    starts = [line_of(game.spec_data, ("decks", index)) for index in range(len(game.decks))]
    last = max(game.spec_data.lines.values(), default=0)
    after = min([line for line in game.spec_data.lines.values()
                 if starts and line > starts[-1]] or [last + 10**6])
    return list(zip(starts, starts[1:] + [after], strict=True))


def _entry_of(deck: Deck, line: int) -> int:
    """The first line of the deck file's entry that holds `line` (0 before the first)."""
    index = bisect.bisect_right(deck.starts, line) - 1
    return deck.starts[index] if index >= 0 else 0


def _check_faces(game: Game, geometry: Geometry, renderer: Renderer) -> Iterator[Finding]:
    """Render every card's face and back that can be: a template that fails is an error at
    the card's line."""
    for deck in game.decks:
        for card, line in renderable(game, geometry, deck):
            try:
                renderer.back(deck, card, renderer.face(deck, card, line))
            except PackError as exc:
                yield from exc.findings


def renderable(game: Game, geometry: Geometry, deck: Deck) -> list[tuple[CardBase, int]]:
    """The cards of a deck (with their lines) whose face and back can be rendered: its size
    is known, and their templates are there and compile."""
    if deck.spec.size not in geometry.sizes or not template_exists(
            game, f"cards/{deck.spec.template}.html.j2"):
        return []
    backs = {back: back in game.spec.backs and template_exists(
        game, f"cards/{game.spec.backs[back].template}.html.j2")
        for back in {card.back or deck.spec.back for card in deck.cards} - {None}}
    return [(card, line) for card, line in deck.located()
            if backs.get(card.back or deck.spec.back, True)]


def _game_where(game: Game) -> str:
    return display_path(game.root / "game.yaml")


def _deck_line(game: Game, index: int, *keys: str) -> int:
    return line_of(game.spec_data, ("decks", index, *keys))


def _check_manifest(game: Game, geometry: Geometry, fonts: FontRegistry) -> Iterator[Finding]:
    """Sizes, templates, backs, fonts and field specs named in game.yaml exist."""
    where = _game_where(game)
    seen: set[str] = set()
    for index, deck in enumerate(game.spec.decks):
        if deck.id in seen:
            yield Finding(where, _deck_line(game, index, "id"), f"duplicate deck id '{deck.id}'",
                          code="E020")
        seen.add(deck.id)
        if deck.size not in geometry.sizes:
            known = ", ".join(sorted(geometry.sizes))
            yield Finding(where, _deck_line(game, index, "size"),
                          f"deck '{deck.id}': unknown size '{deck.size}' (known: {known})",
                          code="E021")
        problem = template_problem(game, f"cards/{deck.template}.html.j2",
                                   (where, _deck_line(game, index, "template")),
                                   f"deck '{deck.id}': ")
        if problem is not None:
            yield problem
        if deck.back is not None and deck.double_sided:
            yield Finding(where, _deck_line(game, index, "double_sided"),
                          f"deck '{deck.id}': a double-sided deck has no separate back",
                          code="E023")
        elif deck.back is not None and deck.back not in game.spec.backs:
            yield Finding(where, _deck_line(game, index, "back"),
                          f"deck '{deck.id}': unknown back '{deck.back}'", code="E023")
        for name, field in deck.fields.items():
            line = _deck_line(game, index, "fields", name)
            if field.type in ("ref", "refs"):
                if field.deck and field.deck not in {d.id for d in game.spec.decks}:
                    yield Finding(where, line, f"field '{name}': unknown deck '{field.deck}'",
                                  code="E024")
                elif field.table and field.table not in game.spec.tables:
                    yield Finding(where, line, f"field '{name}': unknown table '{field.table}'",
                                  code="E024")
                elif not (field.deck or field.table):
                    yield Finding(where, line, f"field '{name}': a {field.type} needs a deck "
                                  "or a table", code="E024")
            if field.type == "choice" and not field.choices:
                yield Finding(where, line, f"field '{name}': a choice needs choices", code="E024")
    for back_id, back in game.spec.backs.items():
        problem = template_problem(game, f"cards/{back.template}.html.j2",
                                   (where, line_of(game.spec_data, ("backs", back_id,
                                                                    "template"))),
                                   f"back '{back_id}': ")
        if problem is not None:
            yield problem
    for role, family in game.spec.fonts.items():
        if family not in fonts.families | fonts.own:  # a pack's unusable font is told below
            known = ", ".join(sorted(fonts.families))
            yield Finding(where, line_of(game.spec_data, ("fonts", role)),
                          f"font '{role}': unknown family '{family}' (known: {known}; the "
                          "pack's own fonts are declared in `font_files`)", code="E025")
    yield from fonts.findings  # the pack's font files that cannot be used


def _check_shapes(game: Game, geometry: Geometry) -> Iterator[Finding]:
    """Each shape a deck or a pack's size gives can be cut at its size: rounded corners no
    more than half its side (E113 at `corners:`)."""
    where = _game_where(game)
    for key, shape in game.size_shapes.items():
        size = geometry.sizes[key]
        if (problem := fits(shape, size.width, size.height)) is not None:
            yield Finding(where, line_of(game.spec_data, ("sizes", key, "corners")),
                          f"size '{key}': {problem}", code="E113")
    for index, deck in enumerate(game.decks):
        if deck.shape is None or deck.spec.size not in geometry.sizes:
            continue
        size = geometry.sizes[deck.spec.size]
        if (problem := fits(deck.shape, size.width, size.height)) is not None:
            yield Finding(where, _deck_line(game, index, "corners"),
                          f"deck '{deck.spec.id}': {problem}", code="E113")


def _check_unique_ids(game: Game) -> Iterator[Finding]:
    """Card ids are unique across the whole game."""
    first: dict[str, str] = {}
    for deck in game.decks:
        where = display_path(deck.path)
        for card, line in deck.located():
            here = f"{where}:{line}"
            if card.id in first:
                yield Finding(where, line,
                              f"duplicate card id '{card.id}' (first at {first[card.id]})",
                              code="E030")
            else:
                first[card.id] = here


def _check_references(game: Game) -> Iterator[Finding]:
    """Every ref/refs field names a card of its deck or a key of its table; backs exist."""
    ids = {deck.spec.id: {card.id for card in deck.cards} | deck.failed_ids
           for deck in game.decks}
    for deck in game.decks:
        where = display_path(deck.path)
        for card, line in deck.located():
            if card.back is not None and card.back not in game.spec.backs:
                yield Finding(where, line, f"card '{card.id}': unknown back '{card.back}'",
                              code="E031")
            for name, field in deck.spec.fields.items():
                value = getattr(card, name)
                if value is None or field.type not in ("ref", "refs"):
                    continue
                targets = ids.get(field.deck, set()) if field.deck else set(
                    game.spec.tables.get(field.table or "", {}))
                for target in value if field.type == "refs" else [value]:
                    if target not in targets:
                        known = ", ".join(sorted(targets))
                        yield Finding(where, line,
                                      f"card '{card.id}': {name} '{target}' does not exist "
                                      f"(known: {known})", code="E032")


def _check_counts(game: Game) -> Iterator[Finding]:
    """Each deck holds as many cards as game.yaml says it should."""
    for index, deck in enumerate(game.decks):
        copies = deck.copies + deck.failed_copies  # a card that did not load still counts
        if deck.readable and copies != deck.spec.count:
            yield Finding(_game_where(game), _deck_line(game, index, "count"),
                          f"deck '{deck.spec.id}' has {copies} cards, game.yaml says "
                          f"{deck.spec.count}", code="E040")


def _check_files(game: Game) -> Iterator[Finding]:
    """Images, icons and the stylesheet the pack names are regular files inside the pack,
    within the size limit, and each image one that will print (Pillow opens it)."""
    limits = game.spec.limits
    for path_value, where, line, what in _pack_files(game):
        path = game.root / path_value
        try:
            data = pack_bytes(game.root, path_value, limits.file_bytes)
        except FileRefused as exc:
            if exc.code == "E001" and not os.path.lexists(path):
                yield Finding(where, line, f"{what} '{path_value}' does not exist", code="E051")
            else:
                yield Finding(where, line, f"{what} {exc.message}", exc.code)
            continue
        problem = None if what == "stylesheet" else image_problem(
            path, data, int(limits.image_megapixels * 1_000_000), game.root)
        if problem:
            yield Finding(where, line, f"{what} '{path_value}' {problem[1]}", code=problem[0])


def _pack_files(game: Game) -> Iterator[tuple[str, str, int, str]]:
    where = _game_where(game)
    for back_id, back in game.spec.backs.items():
        for key in ("emblem", "pattern"):
            value = getattr(back, key)
            if value:
                yield value, where, line_of(game.spec_data, ("backs", back_id, key)), f"{key}"
    if game.spec.stylesheet:
        yield game.spec.stylesheet, where, line_of(game.spec_data, ("stylesheet",)), "stylesheet"
    for name, file in game.spec.icons.items():
        yield file, where, line_of(game.spec_data, ("icons", name)), f"icon '{name}':"
    for index, box in enumerate(game.spec.boxes):
        if box.art:
            yield (box.art, where, line_of(game.spec_data, ("boxes", index, "art")),
                   f"box '{box.id}': art")
    for table_name, table in game.spec.tables.items():
        for key, row in table.items():
            for column, value in row.items():
                if isinstance(value, str) and value.lower().endswith(IMAGE_SUFFIXES):
                    loc = ("tables", table_name, key, column)
                    yield value, where, line_of(game.spec_data, loc), "image"
    for deck in game.decks:
        keys = ["art"] + [n for n, f in deck.spec.fields.items() if f.type == "image"]
        for card, entry in zip(deck.cards, deck.entries, strict=True):
            for key in keys:
                value = getattr(card, key)
                if isinstance(value, str):
                    yield (value, display_path(deck.path), line_of(entry, (key,)),
                           f"card '{card.id}': {key}")


def _check_printed_fields(game: Game, renderer: Renderer) -> Iterator[Finding]:
    """Each field a deck declares is read by its card template when its faces are rendered,
    or said not to be: a template never drops a designer's data without a word."""
    for index, deck in enumerate(game.spec.decks):
        template = f"cards/{deck.template}.html.j2"
        printed = renderer.fields_read.get(deck.id)
        if printed is None:  # no face rendered: nothing to tell
            continue
        for field, spec in deck.fields.items():
            if field not in printed and spec.printed:
                yield Finding(_game_where(game), _deck_line(game, index, "fields", field),
                              f"deck '{deck.id}': field '{field}' is declared, but its template "
                              f"'{template}' never prints it (`printed: false` if it is only "
                              "data)", code="W026")


def _check_drafts(game: Game) -> Iterator[Finding]:
    """Drafted cards are listed as warnings, so none is printed unnoticed."""
    for deck in game.decks:
        for card, line in deck.located():
            if card.draft:
                yield Finding(display_path(deck.path), line,
                              f"card '{card.id}' ({card.name}) is a draft", code="W001")


_JINJA = (("{{", "}}"), ("{%", "%}"))  # Jinja left out when matching a term in text
_TAG = (("<", ">"),)  # an HTML tag, left out too


def _checked_line(line: str) -> bool:
    """Whether a line holds more than ASCII (for the glyph check) or a digit (for the terms
    check)."""
    return not line.isascii() or any(char.isdigit() for char in line)


def _source_lines(path: Path, root: Path, limits: Limits,
                  wanted: Callable[[str], bool] = _checked_line) -> Iterator[Text]:
    """A template's `wanted` lines, Jinja comments blanked out; nothing when it may not be
    read (using it is an error, found there)."""
    try:
        text = read_text(inside(path, [root]), limits.file_bytes)
    except FileRefused:
        return
    source = without_spans(text, (("{#", "#}"),), lines=True)
    where = display_path(path)
    for number, line in enumerate(source.splitlines(), start=1):
        if wanted(line):
            yield Text(where, number, line)


def template_texts(game: Game) -> Iterator[Text]:
    """The text of the pack's and the shared HTML templates, line by line."""
    for folder in (game.root / "templates", TEMPLATES_DIR):
        for path in sorted(folder.rglob("*.html.j2")):
            yield from _source_lines(path, folder, game.spec.limits)


def _check_glyphs(game: Game, fonts: FontRegistry, texts: list[Text]) -> Iterator[Finding]:
    """Every character the pack prints has a glyph in its body font's stack (the family, its
    partner for the other script) or the fallback: no tofu. With typography on, the marks it
    prints (the language's quotes, ’ – — …) are checked at `typography` in game.yaml."""
    family = game.spec.fonts.get("body")
    if family not in fonts.families:
        return
    have = fonts.stack_characters(*fonts.stack(family, game.spec.language))
    marks = pack_marks(game.spec)
    mark_texts = [Text(_game_where(game), line_of(game.spec_data, ("typography",)),
                       printed_marks(marks))] if marks else []
    for item in [*texts, *game.rule_texts, *mark_texts]:
        missing = sorted({ch for ch in item.text if ord(ch) not in have and ch.isprintable()
                          and not ch.isspace()})
        if missing:
            listed = ", ".join(f"'{ch}' (U+{ord(ch):04X})" for ch in missing)
            yield Finding(item.path, item.line, f"font '{family}' has no glyph for {listed}",
                          code="E080")


_LOOSE = re.compile(r"[\s*，,、：:；;（）()]")  # left out when matching a term in text
_PLURAL = re.compile(r"([a-z]{2,}?)e?s$")  # "points", "boxes": matched as "point", "box"


def without_spans(text: str, pairs: tuple[tuple[str, str], ...], lines: bool = False) -> str:
    """The text less each span from an opening mark to the first closing mark after it, as
    re.sub of `open.*?close|…` (re.S) would give, but in linear time: a mark that no closing
    one follows never makes the scan start over. With `lines`, a span leaves its line breaks."""
    kept, pos, done = [], 0, 0
    ahead = [text.find(opening) for opening, _ in pairs]  # each pair's next opening, -1: none
    while True:
        for index, (opening, _) in enumerate(pairs):
            if 0 <= ahead[index] < pos:
                ahead[index] = text.find(opening, pos)
        live = [(at, index) for index, at in enumerate(ahead) if at >= 0]
        if not live:
            break
        start, index = min(live)
        opening, closing = pairs[index]
        end = text.find(closing, start + len(opening))
        if end < 0:  # no closing mark after this one, so none after a later one either
            ahead[index] = -1
            continue
        end += len(closing)
        kept.append(text[done:start])
        if lines:
            kept.append("\n" * text.count("\n", start, end))
        done = pos = end
    kept.append(text[done:])
    return "".join(kept)


_STRAIGHT = str.maketrans("’‘“”", "''\"\"")  # a term matches text typographed or not


def _lower(char: str) -> str:
    """A character in lower case, when that is one character (İ and ẞ are kept), a curly
    quote or apostrophe straight."""
    lower = char.lower()
    return (lower if len(lower) == 1 else char).translate(_STRAIGHT)


class _Lowered(dict[int, str]):
    """`_lower` as a table for str.translate, each character's entry made when first met."""

    def __missing__(self, code: int) -> str:
        self[code] = _lower(chr(code))
        return self[code]


_LOWERED = _Lowered()


def _loose(text: str) -> str:
    """Text as a term is matched in it: what _LOOSE matches left out, the rest `_lower`ed."""
    return _LOOSE.sub("", text).translate(_LOWERED)


def restated(text: str, head: str, tail: str) -> Iterator[tuple[int, int, str]]:
    """Where each `head`, a number, `tail` is in text, and the number, as re.finditer of
    `head(\\d+(?:\\.\\d+)?)tail` finds them (the longest number that tail follows), in linear
    time: the runs of digits last measured and the places tail starts are carried forward."""
    size, pos = len(text), 0
    runs = [(0, 0), (0, 0)]  # the last two runs of digits measured, [start, end)
    recent: list[int] = []  # the last two places tail starts, none past the number's end
    upcoming = text.find(tail)  # the next place tail starts, past those

    def run_end(at: int) -> int:
        for begin, end in runs:
            if begin <= at < end:
                return end
        end = at
        while end < size and text[end].isdecimal():
            end += 1
        runs[:] = [runs[1], (at, end)]
        return end

    while (found := text.find(head, pos)) >= 0:
        first = found + len(head)
        if first < size and text[first].isdecimal():
            whole = last = run_end(first)  # the integer part ends at whole, the number at last
            if whole + 1 < size and text[whole] == "." and text[whole + 1].isdecimal():
                last = run_end(whole + 1)
            while 0 <= upcoming <= last:
                recent = [*recent[-1:], upcoming]
                upcoming = text.find(tail, upcoming + 1)
            end = next((at for at in reversed(recent) if at > first and at != whole + 1), -1)
            if end >= 0:
                yield found, end + len(tail), text[first:end]
                pos = end + len(tail)
                continue
        pos = found + 1


def _check_restated_rules(game: Game, texts: list[Text]) -> Iterator[Finding]:
    """A literal number where rules.yaml names a term: wrong is an error, right a warning."""
    terms = game.rules.get("terms") or {}
    where = display_path(game.root / (game.spec.rules or ""))
    if not isinstance(terms, dict):
        yield Finding(where, line_of(game.rules_data, ("terms",)), "terms must map rule paths "
                      "to the phrases that restate them", code="E091")
        terms = {}
    patterns = []
    for rule, phrases in terms.items():
        line = line_of(game.rules_data, ("terms", rule))
        try:
            value = lookup(game.rules, str(rule))
        except RuleError as exc:
            yield Finding(where, line, f"term: {exc}", code="E091")
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            yield Finding(where, line, f"term: rule '{rule}' is not a number", code="E091")
            continue
        for phrase in phrases if isinstance(phrases, list) else [phrases]:
            loose = _loose(str(phrase))
            if loose.count("#") != 1:
                yield Finding(where, line, f"term '{phrase}' must hold one '#' where the number "
                              "stands", code="E091")
                continue
            head, tail = loose.split("#")
            tail = _PLURAL.sub(r"\1", tail)
            patterns.append((rule, value, head, tail, frozenset(head + tail)))
    for item in texts:
        text = without_spans(without_spans(item.text, _JINJA), _TAG)
        loose = _loose(text)  # one character for each kept
        present = set(loose)
        kept: list[int] = []  # where each character of `loose` is in text, once needed
        for rule, value, head, tail, needed in patterns:
            if not needed <= present:  # cheaper than the search
                continue
            for start, stop, number in restated(loose, head, tail):
                kept = kept or [at for at, char in enumerate(text) if not _LOOSE.match(char)]
                end = kept[stop - 1] + 1
                while tail[-1:].isascii() and tail[-1:].isalpha() and text[end:end + 1].isalpha():
                    end += 1  # to the end of the word: "points" for "point"
                match = " ".join(text[kept[start]:end].replace("**", "").split())
                if float(number) == value:
                    yield Finding(item.path, item.line, f"'{match}' restates rule '{rule}'"
                                  f"; quote it as {{{rule}}}", code="W010")
                else:
                    yield Finding(item.path, item.line, f"'{match}' says {number}, but rule "
                                  f"'{rule}' is {value}", code="E090")


def _check_rule_ranges(game: Game) -> Iterator[Finding]:
    """The rules' own checks: non-negative values, thresholds on their tracks, bands that join;
    checks that are not of that shape, or name no rule, are one error at `checks`."""
    found: list[Finding] = []
    try:
        found.extend(_rule_ranges(game))
    except (RuleError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        found.append(Finding(display_path(game.root / (game.spec.rules or "")),
                             line_of(game.rules_data, ("checks",)),
                             f"the rules' checks cannot be run: {exc}", code="E091"))
    yield from found


def _rule_ranges(game: Game) -> Iterator[Finding]:
    checks = game.rules.get("checks") or {}
    where = display_path(game.root / (game.spec.rules or ""))

    def at(path: str) -> int:
        return line_of(game.rules_data, tuple(int(p) if p.isdigit() else p
                                              for p in path.split(".")))

    for pattern in checks.get("non_negative", []):
        for path in match_rules(game.rules, pattern):
            value = lookup(game.rules, path)
            if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
                yield Finding(where, at(path), f"rule '{path}' is {value}; it must not be "
                              "negative", code="E092")
    for check in checks.get("within", []):
        low, high = (bound if isinstance(bound, int | float) else lookup(game.rules, bound)
                     for bound in (check["min"], check["max"]))
        for pattern in check["rules"]:
            for path in match_rules(game.rules, pattern):
                value = lookup(game.rules, path)
                if not low <= value <= high:
                    yield Finding(where, at(path), f"rule '{path}' is {value}, off its track "
                                  f"{check['min']}–{check['max']} ({low}–{high})", code="E093")
    for path in checks.get("contiguous", []):
        rows = lookup(game.rules, path)
        for index, (row, after) in enumerate(zip(rows, rows[1:], strict=False)):
            end = row.get("max", row.get("last"))
            start = after.get("min", after.get("first"))
            if end is None or start != end + 1:
                yield Finding(where, at(f"{path}.{index + 1}"),
                              f"rule '{path}': row {index + 2} starts at {start}, but row "
                              f"{index + 1} ends at {end}; bands must join", code="E094")


def _check_components(game: Game) -> Iterator[Finding]:
    """The component list the game states (game.yaml `components`) matches what is printed."""
    copies = {card.id: card.qty for deck in game.decks for card in deck.cards}
    copies.update((card, qty) for deck in game.decks for card, qty in deck.failed_qty.items())
    decks = {deck.spec.id: deck.copies + deck.failed_copies for deck in game.decks}
    dice = {die.id: die.count for die in game.spec.dice}
    for index, item in enumerate(game.spec.components):
        line = line_of(game.spec_data, ("components", index))
        held = 0
        for kind, names, known in (("deck", item.decks, decks), ("card", item.cards, copies),
                                   ("die", item.dice, dice)):
            for name in names:
                if name not in known:
                    yield Finding(_game_where(game), line, f"component '{item.name}': no "
                                  f"{kind} '{name}'", code="E042")
                held += known.get(name, 0)
        if held != item.count:
            yield Finding(_game_where(game), line, f"component '{item.name}': the game lists "
                          f"{item.count}, the pack prints {held}", code="E041")


def rulebook_texts(game: Game, wanted: Callable[[str], bool] = _checked_line
                   ) -> Iterator[Text]:
    """The rulebook source's `wanted` lines, as the designer wrote them."""
    yield from _source_lines(game.root / game.spec.rulebook.file, game.root, game.spec.limits,
                             wanted)


def _check_icons(game: Game) -> Iterator[Finding]:
    """Each `:name:` of the pack's text, its rules and its rulebook is an icon game.yaml
    names (a pack that names none has no icons: its colons are only colons)."""
    known = game.spec.icons
    if not known:
        return
    listed = ", ".join(sorted(known))
    for item in [*game.texts, *game.rule_texts,
                 *rulebook_texts(game, lambda line: ":" in line)]:
        for name in sorted(set(icons.used(item.text)) - set(known)):
            yield Finding(item.path, item.line, f"':{name}:' is no icon of the game; its icons "
                          f"are {listed} (`icons:` in game.yaml; `\\:{name}:` prints the "
                          "text)", code="E053")


def _check_suppress(game: Game) -> list[Finding]:
    """Every code game.yaml's `suppress` names is a warning's."""
    found = []
    for index, code in enumerate(game.spec.suppress):
        known = CODES.get(code)
        if known is None or known.level != "warning":
            why = "is no code pnp reports" if known is None else \
                "is an error's: only warnings can be silenced"
            found.append(Finding(_game_where(game), line_of(game.spec_data, ("suppress", index)),
                                 f"suppress: '{code}' {why}", code="E011"))
    return found

