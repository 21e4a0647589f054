"""Stage 1, load: a game's other languages. What a pack holds to be translated (`Unit`), what
its translations hold (`Entry`, from translations/<language>.yaml and a spreadsheet's
`<field>@<language>` columns), and the hash that tells a translation made from an older text."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..check.findings import Finding, display_path
from ..pipeline.owned import Refused, open_named
from ..text import icons
from ..text.icons import NAME as ICON_NAME
from .files import FileRefused, pack_bytes
from .rules import PLACEHOLDER
from .schema import DeckSpec, GameSpec, Limits
from .yamlfile import line_of, read_yaml

if TYPE_CHECKING:
    from .load import Game

TRANSLATIONS = "translations"  # the pack's folder of translations/<language>.yaml
_ICON = re.compile(rf":{ICON_NAME}:")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")  # a hex colour: a `color` field's, a table cell's
RULES_ONLY = ("checks",)  # rules.yaml's section only validate reads (its `terms` are
# translated: they find a number restated in each language's text)


def languages(spec: GameSpec) -> list[str]:
    """Every language the game ships in, its source first."""
    return list(spec.languages) or [spec.language]


def source_hash(text: str) -> str:
    """The short hash a translation records of the source text it was made from."""
    return _digest(text.encode("utf-8"))


def translatable(text: str) -> bool:
    """Whether a source text asks for a translation: a letter outside its placeholders and
    icons, and not a colour (`{crew.pilot.cost}`, `2–4` and `#1f3a52` do not)."""
    if _COLOUR.fullmatch(text.strip()):
        return False
    words = _ICON.sub("", PLACEHOLDER.sub("", text))
    return any(unicodedata.category(char).startswith("L") for char in words)


@dataclass(frozen=True)
class Unit:
    """One translatable source text: its section (`cards`, `game`, `rules`), its key there
    (`crew/C1/text`, `decks.crew.name`, `terms.hire_for`), the text as written (placeholders
    unfilled), and where it is."""

    section: str
    key: str
    text: str
    path: str
    line: int

    @property
    def source(self) -> str:
        """The hash a translation of this text records."""
        return source_hash(self.text)

    @property
    def context(self) -> str:
        """The unit's name, unique in a pack: a PO file's msgctxt."""
        return f"{self.section}:{self.key}"


@dataclass(frozen=True)
class Entry:
    """One translation as the pack holds it: its text (None when a spreadsheet column gives
    it and the YAML records only its source), the source hash it records (None: none), and
    where it is."""

    text: str | None
    source: str | None
    path: str
    line: int


# --- where the texts are -------------------------------------------------------------------

_NEVER = ("id", "qty", "draft", "back", "art")  # card keys that are never text to translate
_KINDS = {"str": "str", "text": "str", "sections": "sections", "rows": "rows"}
_TOP = ("words", "game", "rules", "cards", "rulebook")  # the keys of a translations file
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*")
_PREFIX = re.compile(r"\[[A-Za-z0-9-]+\] ")
_HASH = re.compile(r"[0-9a-f]{8}")


@dataclass(frozen=True)
class Slot:
    """Where a unit's text is in the data it was read from (`loc`, keys and indexes), and its
    name in messages: the card field (`sections.1.text`), else the unit's key."""

    unit: Unit
    loc: tuple[str | int, ...]
    field: str


def text_fields(deck: DeckSpec) -> dict[str, str]:
    """A deck's card keys that hold text to translate, each with its kind: `str`, `list`
    (items of text), `sections` or `rows`."""
    kinds = {"name": "str", "quote": "str", "motto": "str", "sections": "sections"}
    for name, spec in deck.fields.items():
        kind = "list" if spec.type == "list" and spec.items == "text" else _KINDS.get(spec.type)
        if kind is None or not spec.printed:  # data no template prints is not translated
            kinds.pop(name, None)
        else:
            kinds[name] = kind
    return {name: kind for name, kind in kinds.items() if name not in _NEVER}


def field_key(deck: DeckSpec, path: tuple[str | int, ...]) -> str | None:
    """The name a translation gives a card's text at `path` (list indexes from 0), its
    indexes counted from 1 (`sections.1.label`); None when no text there is translated."""
    kind = text_fields(deck).get(str(path[0])) if path else None
    shapes = {"str": 1, "list": 2, "sections": 3, "rows": 3}
    if kind is None or len(path) != shapes[kind] or any(
            isinstance(part, int) != (depth == 1) for depth, part in enumerate(path)):
        return None
    if kind == "sections" and path[2] not in ("label", "text"):
        return None
    return ".".join(str(part + 1) if isinstance(part, int) else part for part in path)


def _line(data: Any, key: str | int, default: int) -> int:
    """The line of a key of a mapping, or an item of a list, read from YAML."""
    lines = getattr(data, "lines", None)
    if isinstance(data, dict) and isinstance(lines, dict):
        return lines.get(key, default)
    if isinstance(data, list) and isinstance(lines, list) and isinstance(key, int) \
            and key < len(lines):
        return lines[key]
    return default


def _slot(section: str, prefix: str, loc: tuple[str | int, ...], field: str, text: Any,
          path: str, line: int) -> Iterator[Slot]:
    """The slot of one value, when it is a text to translate."""
    if isinstance(text, str) and translatable(text):
        yield Slot(Unit(section, prefix + field, text, path, line), loc, field)


def card_slots(deck: DeckSpec, entry: Any, path: str, line: int) -> Iterator[Slot]:
    """The texts to translate of one card as written (`entry`, its deck file's mapping)."""
    card_id = entry.get("id") if isinstance(entry, dict) else None
    if not isinstance(card_id, str):
        return
    prefix = f"{deck.id}/{card_id}/"
    for name, kind in text_fields(deck).items():
        value, at = entry.get(name), _line(entry, name, line)
        if kind == "str":
            yield from _slot("cards", prefix, (name,), name, value, path, at)
            continue
        for index, item in enumerate(value if isinstance(value, list) else []):
            item_line = _line(value, index, at)
            if kind == "list":
                yield from _slot("cards", prefix, (name, index), f"{name}.{index + 1}", item,
                                 path, item_line)
                continue
            for column, cell in item.items() if isinstance(item, dict) else ():
                if kind == "rows" or column in ("label", "text"):
                    yield from _slot("cards", prefix, (name, index, column),
                                     f"{name}.{index + 1}.{column}", cell, path,
                                     _line(item, column, item_line))


def _named(data: Any, key: str) -> Iterator[tuple[str, int, Any]]:
    """The items of a list of game.yaml (`decks`, `components`): each with its name in a
    path (its `id`, else its number from 1), its index and itself."""
    items = data.get(key) if isinstance(data, dict) else None
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict):
            name = item.get("id")
            yield (name if isinstance(name, str) else str(index + 1)), index, item


def game_slots(data: Any, path: str) -> Iterator[Slot]:
    """The texts to translate of game.yaml as written."""
    wanted: list[tuple[str, tuple[str | int, ...]]] = [
        (key, (key,)) for key in ("title", "subtitle", "players")]
    for kind in ("decks", "components", "boxes", "dice"):
        for name, index, item in _named(data, kind):
            wanted.append((f"{kind}.{name}.name", (kind, index, "name")))
            fields = item.get("fields") if kind == "decks" else None
            for declared in fields if isinstance(fields, dict) else ():
                wanted.append((f"decks.{name}.fields.{declared}.label",
                               (kind, index, "fields", declared, "label")))
    for back in data.get("backs") or {}:
        wanted.append((f"backs.{back}.text", ("backs", back, "text")))
    for table, rows in (data.get("tables") or {}).items():
        for key, row in rows.items() if isinstance(rows, dict) else ():
            for column in row if isinstance(row, dict) else ():
                wanted.append((f"tables.{table}.{key}.{column}", ("tables", table, key, column)))
    wanted += [(f"rulebook.{key}", ("rulebook", key)) for key in ("contents", "gallery", "back")]
    for key, loc in wanted:
        value, line = _at(data, loc)
        yield from _slot("game", "", loc, key, value, path, line)


def _at(data: Any, loc: tuple[str | int, ...]) -> tuple[Any, int]:
    """The value at `loc` in YAML data (None when there is none) and its line."""
    line = getattr(data, "line", 0)
    for part in loc:
        try:
            line = _line(data, part, line)
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None, line
    return data, line


def rule_slots(data: Any, path: str, loc: tuple[str | int, ...] = (), line: int = 0
               ) -> Iterator[Slot]:
    """The texts to translate of the rules as written: every string, by its path as a
    placeholder names it (`ranks.0.name`)."""
    pairs = data.items() if isinstance(data, dict) else enumerate(data) \
        if isinstance(data, list) else ()
    for key, value in pairs:
        if not loc and key in RULES_ONLY:
            continue
        at = _line(data, key, line)
        if isinstance(value, str):
            yield from _slot("rules", "", (*loc, key), ".".join(map(str, (*loc, key))), value,
                             path, at)
        else:
            yield from rule_slots(value, path, (*loc, key), at)


def source_units(game: Game) -> list[Unit]:
    """Every text of the pack to translate, as written in its source language, each once."""
    found = [*game_slots(game.source_data, display_path(game.root / "game.yaml"))]
    if game.spec.rules is not None:
        found += rule_slots(game.source_rules, display_path(game.root / game.spec.rules))
    for deck in game.decks:
        where = display_path(deck.path)
        for entry, line in zip(deck.raw, deck.starts, strict=True):
            found += card_slots(deck.spec, entry, where, line)
    units: dict[str, Unit] = {}
    for slot in found:
        units.setdefault(slot.unit.context, slot.unit)
    return list(units.values())


# --- reading a language's translations -----------------------------------------------------


@dataclass
class TranslationFile:
    """translations/<language>.yaml as read: its entries by context, the line of each card's
    mapping (by `deck/card`), its `words:` and its rulebook record."""

    path: str
    entries: dict[str, Entry] = field(default_factory=dict)
    cards: dict[str, int] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)
    data: Any = None
    rulebook: Entry | None = None


def translations_path(root: Path, language: str) -> Path:
    """Where a pack keeps a language's translations."""
    return root / TRANSLATIONS / f"{language}.yaml"


def read_file(root: Path, limits: Limits, language: str,
              findings: list[Finding]) -> TranslationFile:
    """A language's translations file read safely (inside the pack, within its limits); a
    pack without one has no translations yet, and a wrong shape is a finding at its line."""
    path = translations_path(root, language)
    read = TranslationFile(display_path(path))
    if not os.path.lexists(path):
        return read
    data = read_yaml(path, findings, limits, root=root)
    if data is None:
        return read
    if not isinstance(data, dict):
        findings.append(Finding(read.path, getattr(data, "line", 0) or 1, "a translations file "
                                f"is a YAML mapping of {', '.join(_TOP)}", "E005"))
        return read
    read.data = data
    for key in data:
        if key not in _TOP:
            findings.append(Finding(read.path, _line(data, key, 1), f"unknown key '{key}' "
                                    f"(accepted: {', '.join(sorted(_TOP))})", "E010"))
    for section in ("game", "rules"):
        block = _block(data, section, read.path, findings)
        for key, value in block.items():
            _keep(read, f"{section}:{key}", value, _line(block, key, 0), f"{section} '{key}'",
                  findings)
    decks = _block(data, "cards", read.path, findings)
    for deck, cards in decks.items():
        cards = _block(decks, deck, read.path, findings, f"cards: deck '{deck}'")
        for card, fields in cards.items():
            read.cards[f"{deck}/{card}"] = _line(cards, card, 0)
            fields = _block(cards, card, read.path, findings, f"card '{card}'")
            for name, value in fields.items():
                _keep(read, f"cards:{deck}/{card}/{name}", value, _line(fields, name, 0),
                      f"card '{card}': '{name}'", findings)
    words = _block(data, "words", read.path, findings)
    for key, value in words.items():
        if isinstance(value, str):
            read.words[str(key)] = value
        else:
            findings.append(Finding(read.path, _line(words, key, 0), f"words: '{key}' must be "
                                    "a text", "E010"))
    if "rulebook" in data:
        record = _entry(data["rulebook"], read.path, _line(data, "rulebook", 0), "rulebook",
                        findings)
        if record is not None and record.text is not None:
            findings.append(Finding(read.path, record.line, "rulebook: records only the "
                                    "`source` the rulebook's translation (rulebook."
                                    f"{language}.md) was made from", "E010"))
        else:
            read.rulebook = record
    return read


def _block(data: Any, key: Any, where: str, findings: list[Finding],
           name: str | None = None) -> dict:
    """A mapping inside the translations file (an empty one when it is left out or is not
    one: a finding says so)."""
    value = data.get(key)
    if value is None or isinstance(value, dict):
        return value or {}
    findings.append(Finding(where, _line(data, key, 0), f"{name or key} must be a mapping",
                            "E005"))
    return {}


def _keep(read: TranslationFile, context: str, value: Any, line: int, name: str,
          findings: list[Finding]) -> None:
    """One entry of the file kept by its context, when it has the shape of one."""
    entry = _entry(value, read.path, line, name, findings)
    if entry is not None:
        read.entries[context] = entry


def _entry(value: Any, where: str, line: int, name: str,
           findings: list[Finding]) -> Entry | None:
    """A translation as the file gives it: a text, or `{text, source}`, or `{source}`
    alone (a spreadsheet column gives the text); None, and a finding, for another shape."""
    if isinstance(value, str):
        return Entry(value, None, where, line)
    if not isinstance(value, dict):
        findings.append(Finding(where, line, f"{name}: a translation is a text, or a mapping "
                                "{text, source}", "E005"))
        return None
    text, source = value.get("text"), value.get("source")
    if isinstance(source, int) and not isinstance(source, bool):
        source = str(source).zfill(8)  # written unquoted, all digits
    unknown = [key for key in value if key not in ("text", "source")]
    problem = (f"unknown key '{unknown[0]}' (accepted: source, text)" if unknown else
               "'text' must be a text" if text is not None and not isinstance(text, str) else
               "'source' must be the 8 hex digits `pnp translations` records" if source is not
               None and not (isinstance(source, str) and _HASH.fullmatch(source)) else
               "give its 'text', its 'source' or both" if text is None and source is None
               else None)
    if problem is not None:
        findings.append(Finding(where, _line(value, unknown[0], line) if unknown else line,
                                f"{name}: {problem}", "E010"))
        return None
    return Entry(text, source if isinstance(source, str) else None, where, line)


def read_translations(game: Game, lang: str, findings: list[Finding]) -> dict[str, Entry]:
    """A language's translations by unit context: translations/<lang>.yaml's entries, and
    the text of spreadsheet decks' `<field>@<lang>` columns (with the source the YAML
    records for it, if any). A field given both ways is an error (E133), and the column's
    entry is kept."""
    read = read_file(game.root, game.limits, lang, findings)
    entries = dict(read.entries)
    for deck in game.decks:
        for index, columns in deck.columns.items():
            card_id = deck.raw[index].get("id")
            for key, cell in columns.get(lang, {}).items():
                context = f"cards:{deck.spec.id}/{card_id}/{key}"
                given = entries.get(context)
                if given is not None and given.text is not None:
                    findings.append(_twice(f"card '{card_id}'", key, cell, given))
                entries[context] = replace(cell, source=given.source if given else None)
    return entries


def _twice(subject: str, key: str, column: Entry, given: Entry) -> Finding:
    """A field translated both in a spreadsheet column and in the translations file."""
    return Finding(given.path, given.line, f"{subject}: '{key}' is translated twice, in the "
                   f"deck's column ({column.path}:{column.line}) and here: keep one (here, "
                   "`{source: …}` alone records the column's source)", "E133")


def placeholder_problem(source: str, text: str, icon_names: Collection[str] = ()) -> str | None:
    """What a translation does to its source's `{placeholders}` (and icons, of the names
    given) when it drops, adds or changes one: `drops {a} and adds {b}`; None when it keeps
    each as many times."""
    wanted, given = _marks(source, icon_names), _marks(text, icon_names)
    dropped, added = list((wanted - given).elements()), list((given - wanted).elements())
    told = ([f"drops {', '.join(dropped)}"] if dropped else []) + (
        [f"adds {', '.join(added)}"] if added else [])
    return " and ".join(told) or None


def _marks(text: str, icon_names: Collection[str]) -> Counter[str]:
    """The placeholders of a text (spaces inside left out) and the icons it uses."""
    found = Counter("{" + "".join(match.group(1).split()) + "}"
                    for match in PLACEHOLDER.finditer(text))
    found.update(f":{name}:" for name in icons.used(text) if name in icon_names)
    return found


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:8]


def file_hash(data: bytes) -> str:
    """The hash a translation of a whole file (the rulebook) records of its source's bytes."""
    return _digest(data)


# --- writing a language's translations -----------------------------------------------------

_WIDE = float("inf")  # YAML lines are never folded: one entry, one line
_BREAKS = "\n\r\x85\u2028\u2029"  # what YAML reads as a line break


def column_contexts(game: Game, lang: str) -> set[str]:
    """The units of spreadsheet decks whose `<field>@<lang>` column gives the text."""
    return {f"cards:{deck.spec.id}/{deck.raw[index].get('id')}/{key}"
            for deck in game.decks for index, columns in deck.columns.items()
            for key in columns.get(lang, {})}


def yaml_scalar(text: str) -> str:
    """A text as one line of YAML, plain where that reads back the same, quoted otherwise,
    that stands as a key or a value in a flow mapping."""
    style = '"' if any(char in _BREAKS for char in text) else None  # escaped, on one line
    dumped = yaml.safe_dump([text], default_flow_style=True, allow_unicode=True, width=_WIDE,
                            default_style=style)
    return dumped.rstrip("\n")[1:-1]


def _written_entry(entry: Entry, column: bool) -> str | None:
    """An entry as translations/<lang>.yaml holds it: `{text: …, source: "…"}` (a source
    quoted, as a hash of digits alone reads as a number), only the source for a column's
    text; None when nothing is left to write."""
    parts = [] if column or entry.text is None else [f"text: {yaml_scalar(entry.text)}"]
    if entry.source is not None:
        parts.append(f'source: "{entry.source}"')
    return "{" + ", ".join(parts) + "}" if parts else None


def translations_text(game: Game, lang: str, entries: dict[str, Entry], words: dict[str, str],
                      rulebook: str | None) -> str:
    """translations/<lang>.yaml as pnp writes it: a header, then `words`, `game`, `rules`,
    `cards` (deck, card, field) and `rulebook`, each in the order of the pack's texts."""
    title = " ".join(game.spec.title.split())
    lines = [f"# {title} in {lang}: its texts translated. pnp writes this file whole (comments "
             "go) when it",
             f"# imports a PO file or marks the translations current: pnp translations GAME "
             f"--lang {lang}",
             f"# --import {lang}.po | --mark-current. Edit a text here, or in a PO file "
             f"(--export {lang}.po).",
             "# `source` is the hash of the source text a translation was made from (W132 when "
             "it changed)."]
    if words:
        lines.append("words:")
        lines += [f"  {yaml_scalar(key)}: {yaml_scalar(value)}" for key, value in words.items()]
    order = {unit.context: index for index, unit in enumerate(source_units(game))}
    columns = column_contexts(game, lang)
    written = [(context, text) for context, entry in sorted(
        entries.items(), key=lambda item: order.get(item[0], len(order)))
        if (text := _written_entry(entry, context in columns)) is not None]
    for section in ("game", "rules"):
        chosen = [(context.split(":", 1)[1], text) for context, text in written
                  if context.split(":", 1)[0] == section]
        if chosen:
            lines.append(f"{section}:")
            lines += [f"  {yaml_scalar(key)}: {text}" for key, text in chosen]
    cards: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for context, text in written:
        section, key = context.split(":", 1)
        if section == "cards":
            deck, rest = key.split("/", 1)
            card, name = rest.rsplit("/", 1)
            cards.setdefault(deck, {}).setdefault(card, []).append((name, text))
    if cards:
        lines.append("cards:")
    for deck, by_card in cards.items():
        lines.append(f"  {yaml_scalar(deck)}:")
        for card, fields in by_card.items():
            lines.append(f"    {yaml_scalar(card)}:")
            lines += [f"      {yaml_scalar(name)}: {text}" for name, text in fields]
    if rulebook is not None:
        lines.append(f'rulebook: {{source: "{rulebook}"}}')
    return "\n".join(lines) + "\n"


def write_translations(game: Game, lang: str, entries: dict[str, Entry],
                       rulebook: str | None = None) -> Path:
    """Write translations/<lang>.yaml whole (`translations_text`), keeping the file's
    `words:` and, unless `rulebook` gives another, its rulebook record; the file is put in
    place as `pnp pull` puts a deck: only a regular file in a folder inside the pack, never
    through a symbolic link, a temporary neighbour renamed over it. Refused (E105) else."""
    path = translations_path(game.root, lang)
    read = read_file(game.root, game.limits, lang, [])
    if rulebook is None and read.rulebook is not None:
        rulebook = read.rulebook.source
    data = translations_text(game, lang, entries, read.words, rulebook).encode("utf-8")
    with open_named(game.root, make=False) as pack:
        if pack.kind(TRANSLATIONS) not in (None, "folder"):
            raise Refused(f"{display_path(path.parent)} is {_kind(pack.kind(TRANSLATIONS))}, "
                          "not a folder: pnp writes translations only into a folder inside the "
                          "pack, never through a link (put the folder itself there)")
        with pack.sub(TRANSLATIONS, mark=False) as folder:
            kind = folder.kind(path.name)
            if kind not in (None, "file"):
                raise Refused(f"{display_path(path)} is {_kind(kind)}: pnp replaces only a "
                              "regular file, never through a link (put the file itself there)")
            mode = stat.S_IMODE(os.stat(path.name, dir_fd=folder.fd,
                                        follow_symlinks=False).st_mode) if kind else 0o644
            folder.write(path.name, data, mode=mode)
    return path


def _kind(kind: str | None) -> str:
    """How a message calls what stands in a place."""
    return {"link": "a symbolic link", "file": "a file"}.get(kind or "", "a special file")


# --- how far a language is -----------------------------------------------------------------


def rulebook_file(spec: GameSpec, lang: str) -> str | None:
    """The rulebook of a language, beside the source's (`rulebook.md` → `rulebook.es.md`);
    None when the source's is no Markdown file."""
    stem, dot, suffix = spec.rulebook.file.rpartition(".")
    return f"{stem}.{lang}.{suffix}" if dot and suffix.lower() == "md" else None


def has_rulebook(game: Game, lang: str) -> bool:
    """Whether the pack holds the language's rulebook."""
    own = rulebook_file(game.spec, lang)
    return own is not None and os.path.lexists(game.root / own)


def rulebook_source(game: Game) -> str | None:
    """The hash a rulebook's translation records of the source rulebook now; None when the
    pack has none, or it cannot be read (its problem is told where it is read)."""
    name = game.spec.rulebook.file
    if not os.path.lexists(game.root / name):
        return None
    try:
        return file_hash(pack_bytes(game.root, name, game.limits.file_bytes))
    except FileRefused:
        return None


@dataclass(frozen=True)
class Coverage:
    """How far a language is: its texts translated from the source as it is now (`done`),
    untranslated and stale; and its rulebook (`translated`, `missing`, `stale`; None when
    the pack has none)."""

    done: int
    missing: int
    stale: int
    rulebook: str | None

    def __str__(self) -> str:
        told = f"{self.done} done, {self.missing} missing, {self.stale} stale"
        return told + (f"; rulebook: {self.rulebook}" if self.rulebook else "")


def coverage(game: Game, lang: str, entries: dict[str, Entry]) -> Coverage:
    """How far the language's translations (`entries`, by context) are."""
    counts = Counter("missing" if entry is None or entry.text is None else
                     "done" if entry.source == unit.source else "stale"
                     for unit in source_units(game)
                     for entry in [entries.get(unit.context)])
    current = rulebook_source(game)
    record = read_file(game.root, game.limits, lang, []).rulebook
    rulebook = None if current is None else "missing" if not has_rulebook(game, lang) else \
        "translated" if record and record.source == current else "stale"
    return Coverage(counts["done"], counts["missing"], counts["stale"], rulebook)


def marked_current(game: Game, entries: dict[str, Entry]) -> tuple[dict[str, Entry], int]:
    """The entries with the current source hash recorded for every translated text, and
    how many recorded another (or none) before."""
    marked, changed = dict(entries), 0
    for unit in source_units(game):
        entry = entries.get(unit.context)
        if entry is not None and entry.text is not None and entry.source != unit.source:
            marked[unit.context] = replace(entry, source=unit.source)
            changed += 1
    return marked, changed


# --- a language laid over the pack ---------------------------------------------------------


class Localizer:
    """Lays one language's translations over a pack's data as load_game reads it (game.yaml,
    the rules, each card as written), before placeholders are filled and models validated;
    what it lacks or gets wrong are findings at the translation's line. A translation in
    error prints the source text."""

    def __init__(self, game: str, spec: GameSpec, language: str, read: TranslationFile):
        self.game, self.language, self.source = game, language, spec.language
        self.read, self.icons = read, set(spec.icons)
        self.used: set[str] = set()
        self.moved: dict[tuple[str, int, str], tuple[str, int]] = {}  # where a text now is
        self.cards: dict[str, dict[str, list[str]]] = {deck.id: {} for deck in spec.decks}
        self.subjects = {"game": "game.yaml", "rules": spec.rules or "rules"}

    def game_data(self, data: Any, where: str, findings: list[Finding]) -> None:
        """game.yaml's texts translated in place."""
        self._section("game", list(game_slots(data, where)), data, findings)

    def rules_data(self, data: Any, where: str, findings: list[Finding]) -> None:
        """The rules' texts translated in place."""
        self._section("rules", list(rule_slots(data, where)), data, findings)

    def _section(self, section: str, slots: list[Slot], data: Any,
                 findings: list[Finding]) -> None:
        subject = self.subjects[section]
        for slot in slots:
            if self._lay([slot], data, {}, subject, findings):
                findings.append(Finding(slot.unit.path, slot.unit.line, f"{subject} has no "
                                        f"translation of '{slot.field}': {self._prints}",
                                        "W131"))

    @property
    def _prints(self) -> str:
        return f"the source text ({self.source}) prints"

    def card(self, deck: DeckSpec, entry: Any, where: str, line: int,
             columns: dict[str, Entry], findings: list[Finding]) -> None:
        """One card's texts translated in place (`columns`: its spreadsheet row's
        `<field>@<language>` cells, by field)."""
        slots = list(card_slots(deck, entry, where, line))
        card_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(card_id, str):
            return
        self.cards.setdefault(deck.id, {})[card_id] = [slot.field for slot in slots]
        missing = self._lay(slots, entry, columns, f"card '{card_id}'", findings)
        for key in set(columns) - {slot.field for slot in slots}:
            findings.append(Finding(columns[key].path, columns[key].line, f"card '{card_id}' "
                                    f"has no text '{key}' to translate", "E133"))
        if missing:
            at = self.read.cards.get(f"{deck.id}/{card_id}")
            place = (self.read.path, at) if at else (where, line)
            findings.append(Finding(*place, f"card '{card_id}' (deck '{deck.id}') has no "
                                    f"translation of {', '.join(map(repr, missing))}: "
                                    f"{self._prints}", "W131"))

    def _lay(self, slots: list[Slot], data: Any, columns: dict[str, Entry], subject: str,
             findings: list[Finding]) -> list[str]:
        """Each slot's translation put in its place in `data`; the fields that have none."""
        missing = []
        for slot in slots:
            unit = slot.unit
            entry, column = self.read.entries.get(unit.context), columns.get(slot.field)
            if entry is not None:
                self.used.add(unit.context)
            if column is not None and entry is not None and entry.text is not None:
                findings.append(_twice(subject, slot.field, column, entry))
                continue
            given = column or entry
            if given is None or given.text is None:
                missing.append(slot.field)
                continue
            problem = placeholder_problem(unit.text, given.text, self.icons)
            if problem is not None:
                findings.append(Finding(given.path, given.line, f"{subject}: '{slot.field}' "
                                        f"{problem}", "E134"))
                continue
            recorded = entry.source if entry is not None else None
            if recorded != unit.source:
                findings.append(Finding(given.path, given.line, f"{subject}: the translation "
                                        f"of '{slot.field}' {self._stale(recorded, unit.source)}",
                                        "W132"))
            _put(data, slot.loc, given.text)
            self.moved[(unit.path, unit.line, given.text)] = (given.path, given.line)
        return missing

    def _stale(self, recorded: str | None, current: str) -> str:
        """What a stale translation's finding says: why, and the command that accepts it."""
        why = "records no source text it was made from: check it" if recorded is None else \
            (f"was made from another source text (it records {recorded}, the source is now "
             f"{current}): review it")
        return f"{why}, then run `pnp translations {self.game} --lang {self.language} " \
            "--mark-current`"

    def rulebook(self, root: Path, spec: GameSpec, findings: list[Finding]) -> str:
        """The rulebook file of the language: rulebook.<language>.md beside the source's when
        there is one (stale when made from other source bytes), else the source's."""
        name = spec.rulebook.file
        own = rulebook_file(spec, self.language)
        if own is None or not os.path.lexists(root / own):
            if os.path.lexists(root / name):
                findings.append(Finding(display_path(root / name), 0, "the rulebook has no "
                                        f"translation ({own or name}): {self._prints}", "W131"))
            return name
        record = self.read.rulebook
        try:
            current = file_hash(pack_bytes(root, name, spec.limits.file_bytes))
        except FileRefused:
            return own  # the source's problem is told where it is read
        recorded = record.source if record is not None else None
        if recorded != current:
            place = (record.path, record.line) if record else (display_path(root / own), 0)
            findings.append(Finding(*place, f"{own} {self._stale(recorded, current)}", "W132"))
        return own

    def unused(self, findings: list[Finding], unread: Collection[str] = ()) -> None:
        """Every entry of the file that translates nothing the pack has (E133); the decks
        in `unread` (their file did not load) are left alone."""
        for context, entry in self.read.entries.items():
            if context in self.used:
                continue
            section, key = context.split(":", 1)
            if section != "cards":
                message = f"{self.subjects[section]} has no text '{key}' to translate"
            else:
                deck, rest = key.split("/", 1)
                card, name = rest.rsplit("/", 1)
                if deck in unread:
                    continue
                if deck not in self.cards:
                    message = f"cards: the game has no deck '{deck}' (decks: " \
                        f"{', '.join(self.cards)})"
                elif card not in self.cards[deck]:
                    message = f"deck '{deck}' has no card '{card}'"
                else:
                    texts = ", ".join(self.cards[deck][card]) or "none"
                    message = f"card '{card}' has no text '{name}' to translate (its texts: " \
                        f"{texts})"
            findings.append(Finding(entry.path, entry.line, message, "E133"))

    def relocated(self, path: str, line: int, text: str) -> tuple[str, int]:
        """Where a text of the pack now read in this language is: its translation's place,
        or where it was."""
        return self.moved.get((path, line, text), (path, line))


def _put(data: Any, loc: tuple[str | int, ...], value: str) -> None:
    """Set the value at `loc` in YAML data, its line kept."""
    for part in loc[:-1]:
        data = data[part]
    data[loc[-1]] = value


def check_languages(spec: GameSpec, data: Any, where: str) -> list[Finding]:
    """game.yaml's `languages:` (E130): the source first, each once, each a language tag."""
    found = []
    listed = spec.languages
    if listed and listed[0] != spec.language:
        found.append(Finding(where, line_of(data, ("languages", 0)), f"languages: '{listed[0]}' "
                             f"comes first, but `language:` is '{spec.language}': the source "
                             "language is the first", "E130"))
    seen: set[str] = set()
    for index, tag in enumerate(listed):
        line = line_of(data, ("languages", index))
        if not is_language_tag(tag):
            found.append(Finding(where, line, f"languages: '{tag}' is not a language tag "
                                 "(BCP 47: en, es, zh-CN, pt-BR)", "E130"))
        elif tag.lower() in seen:
            found.append(Finding(where, line, f"languages: '{tag}' is listed twice", "E130"))
        seen.add(tag.lower())
    return found


def is_language_tag(tag: str) -> bool:
    """Whether a text looks like a BCP 47 language tag (`en`, `zh-CN`, `sr-Latn-RS`)."""
    return _LANGUAGE_TAG.fullmatch(tag) is not None


def in_language(findings: list[Finding], language: str, source: str) -> list[Finding]:
    """The findings of a game read in `language`, each message after `[language] ` unless it
    is the source language (or already says so)."""
    if language == source:
        return findings
    prefix = f"[{language}] "
    return [f if f.message.startswith(prefix) else replace(f, message=prefix + f.message)
            for f in findings]


def told_once(source: list[Finding], others: list[Finding]) -> list[Finding]:
    """The source language's findings and the other languages', less each of theirs the
    source has too (the same place, code and message but for its `[language] `)."""
    known = {(f.path, f.line, f.code, f.message) for f in source}
    return sorted({*source, *(f for f in others if (f.path, f.line, f.code,
                                                    _PREFIX.sub("", f.message, 1)) not in known)})
