"""Stage 1, load: read a game pack's YAML into typed models, every line remembered."""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .. import CARDS_DIR
from ..check.findings import Finding, PackError, display_path
from ..plan.shapes import Shape, builtin_shape, svg_shape
from ..text.language import check_words
from ..text.typography import Marks, pack_marks, typographed_card
from .files import FileRefused, pack_bytes, regular
from .place import command_name, pack_dir
from .rules import expand_tree, plain, strings
from .schema import CardBase, DeckSpec, GameSpec, Limits, accepted_keys, card_model
from .spreadsheet import is_spreadsheet, read_deck, sheet_misplaced, source_misplaced
from .translate import (
    Entry,
    Localizer,
    check_languages,
    in_language,
    is_language_tag,
    languages,
    read_file,
)
from .yamlfile import LineDict, LineList, Naming, line_of, read_yaml

# What card text may not hold, in a YAML, CSV or xlsx deck alike: the C0 controls but tab and
# newline, DEL and the C1 controls (they print as nothing or as a box), and the bidi
# embeddings, overrides and isolates (they make text print otherwise than the file reads).
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(text: str) -> str:
    """Text with each character card text may not hold written as its escape (`\\x07`)."""
    return _UNPRINTABLE.sub(lambda found: f"\\x{ord(found[0]):02x}" if ord(found[0]) < 256
                            else f"\\u{ord(found[0]):04x}", text)


def _unprintable(text: str) -> str | None:
    """What a finding says of a text holding a character card text may not hold, else None."""
    found = _UNPRINTABLE.search(text)
    if found is None:
        return None
    char, start, end = found[0], max(found.start() - 20, 0), found.end() + 20
    excerpt = ("…" if start else "") + _escaped(text[start:end]) + ("…" if end < len(text)
                                                                   else "")
    name = unicodedata.name(char, "")
    what = (f" ({name}), which makes text print otherwise than it reads" if name else
            ", a control character, which prints as nothing or as a box")
    return f"the text '{excerpt}' holds U+{ord(char):04X}{what}: remove it"


def _key_line(data: Any, loc: tuple[Any, ...]) -> int:
    """Line of the key named by loc itself (not of its value)."""
    parent_line = line_of(data, loc[:-1])
    parent = data
    for part in loc[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return parent_line
    if isinstance(parent, LineDict):
        return parent.lines.get(loc[-1], parent_line)
    return parent_line


def model_findings(
    model: type[BaseModel], data: Any, exc: ValidationError, where: str, subject: str,
    noun: str = "field",
) -> list[Finding]:
    """Turn pydantic errors into path:line findings with readable messages, naming each key
    a `noun` (a spreadsheet deck's are columns)."""
    found = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        dotted = ".".join(str(p) for p in loc)
        if error["type"] == "extra_forbidden":
            accepted = ", ".join(accepted_keys(model, loc))
            message = f"unknown {noun} '{dotted}' (accepted: {accepted})"
            line = _key_line(data, loc)
        elif error["type"] == "missing":
            message = f"missing required {noun} '{dotted}'"
            line = line_of(data, loc[:-1])
        elif loc and type(loc[-1]) is int:  # an item of a list, counted from 1
            within = ".".join(str(p) for p in loc[:-1])
            message = f"{noun} '{within}', item {loc[-1] + 1}: {error['msg'].lower()}"
            line = line_of(data, loc)
        else:
            message = f"{noun} '{dotted}': {error['msg'].lower()}"
            line = line_of(data, loc)
        found.append(Finding(where, line, f"{subject}{message}", code="E010"))
    return found


@dataclass
class Deck:
    """A deck's spec together with its cards, where each came from and the YAML it was read
    from; and of the entries that did not load, their ids and copies, so that counts and
    references are still checked right."""

    spec: DeckSpec
    path: Path
    cards: list[CardBase] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    entries: list[Any] = field(default_factory=list)  # each card's YAML, lines kept
    raw: list[Any] = field(default_factory=list)  # every entry as written (placeholders
    # unfilled, in the source language), one for each of `starts`
    columns: dict[int, dict[str, dict[str, Entry]]] = field(default_factory=dict)  # a
    # spreadsheet's `<field>@<language>` cells: by entry index, language and field
    starts: list[int] = field(default_factory=list)  # the first line of every entry
    failed_ids: set[str] = field(default_factory=set)
    failed_copies: int = 0
    failed_qty: dict[str, int] = field(default_factory=dict)  # by id: what each would print
    read: list[CardBase] = field(default_factory=list)  # every card, one that did not load
    # with its values as written (its error told once): what the rulebook quotes
    readable: bool = True  # False when the file could not be read as a list, or the deck is
    # refused whole (its copies past the limit): nothing is laid out from it
    shape: Shape | None = None  # its own `shape:` or `corners:`, else its size's

    def located(self) -> list[tuple[CardBase, int]]:
        """Each card with the line its YAML entry starts on."""
        return list(zip(self.cards, self.lines, strict=True))

    @property
    def copies(self) -> int:
        """How many physical cards the deck prints."""
        return sum(card.qty for card in self.cards)

    def without(self, card_ids: set[str]) -> Deck:
        """The same deck less some cards."""
        kept = [index for index, card in enumerate(self.cards) if card.id not in card_ids]
        return replace(self, cards=[self.cards[i] for i in kept],
                       lines=[self.lines[i] for i in kept],
                       entries=[self.entries[i] for i in kept])


@dataclass(frozen=True)
class Text:
    """A string of the pack as the designer wrote it (placeholders unfilled), and where."""

    path: str
    line: int
    text: str


@dataclass
class Game:
    """A loaded game pack."""

    name: str
    root: Path
    spec: GameSpec
    decks: list[Deck]
    spec_data: Any = None
    rules: dict = field(default_factory=dict)
    rules_data: Any = None
    texts: list[Text] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # what loading found, not fatal
    size_shapes: dict[str, Shape] = field(default_factory=dict)  # the pack's sizes' shapes
    rule_texts: list[Text] = field(default_factory=list)  # the rules' strings, and where
    source_language: str = ""  # the language the pack is written in; `language` is the read's
    source_data: Any = None  # game.yaml as written, in the source language
    source_rules: Any = None  # the rules as written, in the source language

    @property
    def language(self) -> str:
        """The language the game was loaded in."""
        return self.spec.language

    @property
    def limits(self) -> Limits:
        """What the pack may ask for (game.yaml `limits`): file sizes, counts, templates."""
        return self.spec.limits


FATAL = "; nothing else was checked, as the rest depends on it"


def load_game(name: str, cards_dir: Path = CARDS_DIR, language: str | None = None) -> Game:
    """Load game.yaml and every deck file, in one of the game's languages (None: its source
    language): another is the same pack with each of its translations laid over the data
    before placeholders are filled and models validated. A card that does not load is left
    out and the rest go on, its problems in `Game.findings` (after `[language] ` for another
    language); only a game.yaml or rules file that cannot be read raises PackError, as
    everything else depends on it."""
    root = pack_dir(name, cards_dir)
    findings: list[Finding] = []
    data, spec = read_spec(root, findings)
    source = spec.language
    if language is None or language == source:
        return _load(root, name, data, spec, findings, None)
    tags = languages(spec)
    if language not in tags or not is_language_tag(language):  # told as it is, untagged
        raise PackError([Finding(display_path(root / "game.yaml"),
                                 line_of(data, ("languages",)) or 1, f"the game is not in "
                                 f"'{language}' (its languages: {', '.join(tags)})", "E130")])
    try:
        return _load(root, name, data, spec, findings, language)
    except PackError as exc:
        raise PackError(in_language(exc.findings, language, source)) from None


def _load(root: Path, name: str, data: Any, spec: GameSpec, findings: list[Finding],
          language: str | None) -> Game:
    """The pack whose game.yaml is read, in its source language (`language` None) or
    another."""
    where = display_path(root / "game.yaml")
    source, source_data = spec.language, data
    findings += check_languages(spec, data, where)
    findings += check_words(spec, where, lambda loc: line_of(data, loc))
    localizer, localized = None, dict[str, Any]()
    if language is not None:
        localizer = _localizer(root, name, spec, data, language, findings)
        source_data = as_written(data)
        localizer.game_data(data, where, findings)
        spec = _validated(data, where, findings)
        # game.yaml's `words:` are the source language's; a translation gives its own
        localized = {"language": language, "words": localizer.read.words,
                     "rulebook": spec.rulebook.model_copy(update={
                         "file": localizer.rulebook(root, spec, findings)})}
        spec = spec.model_copy(update=localized)
    limits = spec.limits
    findings += _check_dice(spec, data, where)
    findings += _check_named(root, spec, data, where)
    for index, entry in enumerate(spec.decks):
        findings += source_misplaced(entry, where, line_of(data, ("decks", index, "source")))
    before = len(findings)
    rules_data = _load_rules(root, spec, data, findings)
    if len(findings) > before and any(f.code != "E003" for f in findings[before:]):
        raise PackError(_fatal(findings))
    source_rules, rules_where = rules_data, display_path(root / (spec.rules or ""))
    if localizer is not None and rules_data is not None:
        source_rules = as_written(rules_data)
        localizer.rules_data(rules_data, rules_where, findings)
    rules = plain(rules_data) if rules_data else {}
    moved = localizer.relocated if localizer is not None else _unmoved
    texts = [Text(*moved(where, line, text), text) for line, text in strings(data)]
    rule_texts = [Text(*moved(rules_where, line, text), text)
                  for line, text in strings(rules_data)]
    if rules and "tables" in data:  # table text may quote the rules too
        if source_data is data:
            source_data = as_written(data)
        before = len(findings)
        expand_tree(data["tables"], rules, where, findings, data.lines.get("tables", 0),
                    limits.integer_digits)
        if len(findings) == before:
            spec = GameSpec.model_validate(data).model_copy(update=localized)
    marks = pack_marks(spec)
    decks = [_load_deck(root, deck, rules, findings, texts,
                        Naming(where, line_of(data, ("decks", index, "file")),
                               f"deck '{deck.id}': file", deck.file), limits, marks,
                        localizer, [tag for tag in languages(spec) if tag != source])
             for index, deck in enumerate(spec.decks)]
    if localizer is not None:
        localizer.unused(findings, {deck.spec.id for deck in decks if not deck.readable})
    size_shapes = {}
    for key, size in spec.sizes.items():
        if (shape := _shape(root, size.shape, size.corners, limits, findings, where,
                            lambda part, key=key: line_of(data, ("sizes", key, part)),
                            f"size '{key}'")) is not None:
            size_shapes[key] = shape
    for index, deck in enumerate(decks):
        deck.shape = _shape(root, deck.spec.shape, deck.spec.corners, limits, findings, where,
                            lambda part, index=index: line_of(data, ("decks", index, part)),
                            f"deck '{deck.spec.id}'")
        if deck.copies > limits.copies:
            findings.append(Finding(where, line_of(data, ("decks", index)),
                                    f"deck '{deck.spec.id}' prints {deck.copies} cards, over "
                                    f"the limit of {limits.copies} (`limits: copies` in "
                                    "game.yaml)", "E006"))
            deck.readable = False  # nothing is planned from it
    return Game(name=name, root=root, spec=spec, decks=decks, spec_data=data, rules=rules,
                rules_data=rules_data, texts=texts,
                findings=in_language(findings, spec.language, source),
                size_shapes=size_shapes, rule_texts=rule_texts, source_language=source,
                source_data=source_data, source_rules=source_rules)


def as_written(data: Any) -> Any:
    """A copy of YAML data, its lines kept (shared: they do not change), for the rules or a
    translation to fill the data in place."""
    if isinstance(data, LineDict):
        mapping = LineDict((key, as_written(value)) for key, value in data.items())
        mapping.line, mapping.lines = data.line, data.lines
        return mapping
    if isinstance(data, LineList):
        items = LineList(as_written(value) for value in data)
        items.line, items.lines = data.line, data.lines
        return items
    return data


def _unmoved(path: str, line: int, text: str) -> tuple[str, int]:
    """Where a text of the pack is, read in its source language: where it is written."""
    return path, line


def _localizer(root: Path, name: str, spec: GameSpec, data: Any, language: str,
               findings: list[Finding]) -> Localizer:
    """What lays a language's translations over the pack (one of its languages). Its
    `words:` are checked like game.yaml's."""
    read = read_file(root, spec.limits, language, findings)
    own = spec.model_copy(update={"language": language, "words": read.words})
    findings += check_words(own, read.path, lambda loc: line_of(read.data, loc))
    return Localizer(command_name(root, name), spec, language, read)


def _validated(data: Any, where: str, findings: list[Finding]) -> GameSpec:
    """game.yaml's data validated again once translated; PackError when it is not valid."""
    try:
        return GameSpec.model_validate(data)
    except ValidationError as exc:
        raise PackError(_fatal(findings + model_findings(GameSpec, data, exc, where, ""))
                        ) from None


def _shape(root: Path, shape: str | None, corners: str | float | None, limits: Limits,
           findings: list[Finding], where: str, line: Any, subject: str) -> Shape | None:
    """The shape a deck or a size asks for (None when it names none): a word, rounded corners
    or a closed path in an .svg file of the pack; a finding (E113) at its line when it cannot
    be one."""
    if shape is None and corners is None:
        return None
    try:
        if shape is not None and shape.lower().endswith(".svg"):
            if corners is not None:
                raise ValueError("corners apply to a rectangle, not to an outline file")
            try:
                data = pack_bytes(root, shape, limits.file_bytes)
            except FileRefused as exc:
                findings.append(Finding(where, line("shape"), f"{subject}: shape {exc.message}",
                                        exc.code))
                return None
            try:
                return svg_shape(data, shape)
            except ValueError as exc:
                raise ValueError(f"the outline file '{shape}' {exc}") from None
        return builtin_shape(shape, corners)
    except ValueError as exc:
        part = "corners" if shape is None or "corners" in str(exc) and corners else "shape"
        findings.append(Finding(where, line(part), f"{subject}: {exc}", "E113"))
        return None


def load_spec(root: Path) -> GameSpec:
    """A pack's game.yaml alone, as `pnp list` shows it; PackError when it does not load."""
    return read_spec(root, [])[1]


def read_spec(root: Path, findings: list[Finding]) -> tuple[Any, GameSpec]:
    """game.yaml read and checked, its data with lines kept and its spec; PackError when it
    cannot be, as nothing else can be checked without it."""
    game_path = root / "game.yaml"
    where = display_path(game_path)
    data = read_yaml(game_path, findings)
    if data is None:
        raise PackError(_fatal(findings) if findings else
                        [Finding(where, 1, "game.yaml is empty" + FATAL, "E004")])
    if not isinstance(data, dict):
        raise PackError(_fatal([*findings, Finding(where, getattr(data, "line", 0) or 1,
                                                   "game.yaml must be a YAML mapping", "E005")]))
    try:
        return data, GameSpec.model_validate(data)
    except ValidationError as exc:
        raise PackError(_fatal(findings + model_findings(GameSpec, data, exc, where, ""))
                        ) from None


def _fatal(findings: list[Finding]) -> list[Finding]:
    """The findings that stop loading, the last one saying so."""
    last = max(findings)
    return [replace(last, message=last.message + FATAL) if f is last else f for f in findings]


def _check_dice(spec: GameSpec, data: Any, where: str) -> list[Finding]:
    """A die whose count passes the limit, at its count's line."""
    limit = spec.limits.dice
    return [Finding(where, line_of(data, ("dice", index, "count")), f"die '{die.id}': count "
                    f"{die.count} is over the limit of {limit} (`limits: dice` in game.yaml)",
                    "E006")
            for index, die in enumerate(spec.dice) if die.count > limit]


def _check_named(root: Path, spec: GameSpec, data: Any, where: str) -> list[Finding]:
    """The stylesheet and the rulebook game.yaml names, when they are there: each a regular
    file inside the pack within the size limit, or a finding at the line that names it (a
    missing one is reported where it is read)."""
    found = []
    named = [("stylesheet", spec.stylesheet, ("stylesheet",)),
             ("rulebook", spec.rulebook.file, ("rulebook", "file"))]
    for what, name, loc in named:
        if name is None or not os.path.lexists(root / name):
            continue
        try:
            regular(root / name, [root], spec.limits.file_bytes, name=name)
        except FileRefused as exc:
            found.append(Finding(where, line_of(data, loc), f"{what} {exc.message}", exc.code))
    return found


def _load_rules(root: Path, spec: GameSpec, spec_data: Any, findings: list[Finding]) -> Any:
    """Read the rules data file named in game.yaml, lines kept; None when there is none."""
    if spec.rules is None:
        return None
    path = root / spec.rules
    naming = Naming(display_path(root / "game.yaml"), line_of(spec_data, ("rules",)),
                    "rules file", spec.rules)
    data = read_yaml(path, findings, spec.limits, naming, root)
    if data is not None and not isinstance(data, dict):
        findings.append(Finding(display_path(path), 1, "the rules file must be a YAML mapping",
                                code="E005"))
        return None
    return data


def _load_deck(root: Path, spec: DeckSpec, rules: dict, findings: list[Finding],
               texts: list[Text], naming: Naming, limits: Limits, marks: Marks | None,
               localizer: Localizer | None, others: list[str]) -> Deck:
    """Load one deck file: a YAML list of cards, or a spreadsheet's rows (and their
    columns in the `others` languages), each translated by `localizer` when given, rule
    placeholders filled, each checked, its text typographed with `marks` (when the pack's
    typography is on); a card whose qty passes the limit is left out, its copies counted but
    never made."""
    path = root / spec.file
    deck = Deck(spec=spec, path=path)
    where = display_path(path)
    failed: set[int] = set()  # a spreadsheet's rows whose cells did not read
    noun = "column" if is_spreadsheet(path) else "field"
    if noun == "column":
        sheet = read_deck(path, root, spec, limits, naming, findings, others)
        data, failed = (sheet.cards, sheet.failed) if sheet is not None else (None, failed)
        deck.columns = sheet.translations if sheet is not None else {}
    else:
        findings += sheet_misplaced(spec, path, naming)
        data = read_yaml(path, findings, limits, naming, root)
    if data is None:
        deck.readable = False
        return deck
    if not isinstance(data, list):
        findings.append(Finding(where, 1, "a deck file must be a YAML list of cards", code="E005"))
        deck.readable = False
        return deck
    model = card_model(spec)
    for index, item in enumerate(data):
        line = getattr(data, "lines", [])[index]
        deck.starts.append(line)
        deck.raw.append(item)
        if not isinstance(item, dict):
            findings.append(Finding(where, line, "a card must be a mapping of keys", code="E005"))
            deck.failed_copies += 1
            continue
        if localizer is not None:
            deck.raw[-1] = as_written(item)
            localizer.card(spec, item, where, line,
                           deck.columns.get(index, {}).get(localizer.language, {}), findings)
        written = list(strings(item, line))
        if localizer is None and any("{" in text for _, text in written):
            deck.raw[-1] = as_written(item)  # the rules fill the entry in place
        moved = localizer.relocated if localizer is not None else _unmoved
        texts.extend(Text(*moved(where, at, text), text) for at, text in written)
        card_id = item.get("id")
        subject = f"card '{_escaped(card_id)}': " if isinstance(card_id, str) else ""
        before = len(findings)
        findings.extend(Finding(*moved(where, at, text), f"{subject}{message}", "E010")
                        for at, text in written if (message := _unprintable(text)))
        expand_tree(item, rules, where, findings, line, limits.integer_digits)
        card = None
        if len(findings) == before and index not in failed:
            try:
                card = model.model_validate(item)
            except ValidationError as exc:
                findings.extend(model_findings(model, item, exc, where, subject, noun))
        if card is not None and card.qty > limits.qty:
            findings.append(Finding(where, line_of(item, ("qty",)), f"card '{card.id}': qty "
                                    f"{card.qty} is over the limit of {limits.qty} "
                                    "(`limits: qty` in game.yaml)", "E006"))
            card = None
        if card is None:
            qty = item.get("qty", 1)
            qty = qty if isinstance(qty, int) and qty > 0 else 1
            deck.failed_copies += qty
            if isinstance(card_id, str):
                deck.failed_ids.add(card_id)
                deck.failed_qty[card_id] = qty
                deck.read.append(model.model_construct(**{  # each value as written: the
                    key: value for key, value in item.items() if key in model.model_fields}))
            continue
        card = typographed_card(card, spec, marks)
        deck.read.append(card)
        deck.cards.append(card)
        deck.lines.append(line)
        deck.entries.append(item)
    return deck
