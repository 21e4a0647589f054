"""Editions: what was printed, recorded in the pack, and what prints differently since.

`pnp release` writes `editions/<name>.json` into the pack, to be committed with it: for every
face and back, the fingerprint of how it prints (render.py: its HTML with the rules filled in,
the stylesheets, the fonts and the files it links to) and the revision tag it prints, the rules
it reads, its card's data and copies; the rules' values, the game version and the rulebook by
section. A game in many languages records its source language so, and each other language's
faces, cards, rules and rulebook under `languages` (a record without it, as older ones, lacks
those languages: each of their faces is new). `compare` tells, face by face, what changed since
and why: the card's fields, a rule it reads, or else its template or style.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..check.findings import _CONTROL, PnpError, display_path
from ..outputs.base import Job
from ..pack.files import FileRefused, pack_text
from ..pack.load import Deck, Game
from ..pipeline.owned import Refused, open_named
from ..plan.render import CARDS_READ, Face

FOLDER = "editions"
FORMAT = 1  # the record's layout
LANGUAGE_PART = ("game", "rules", "backs", "cards", "faces", "rulebook")  # what a language has
_NAME = re.compile(r"\w[\w.-]{0,63}")  # an edition's name, matched whole
MAX_NUMBER = 1_000_000  # editions are numbered from 1; a record numbered past this is left out
MAX_DEPTH = 256  # a record nests a card's data (YAML: at most 200 deep) in a few levels of its own
MAX_VALUES = 2_000_000  # the values of one record's JSON (~200 MB as Python objects) at most
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')  # a JSON string, escapes included
_BRACKET = re.compile(r"[\[\]{}]")
_PLACEHOLDER = re.compile(r"\{([^{}:\n]+)\}")  # `{a.b + 1}`; not YAML's `{key: value}`
_PATH = re.compile(r"[A-Za-z_][\w-]*(?:\.[\w-]+)*")
_HEADING = re.compile(r"^(#{1,3}) +(.+?) *#*$")
SHORT = 60  # characters of a value a change shows, either side of the arrow
CONTEXT = 8  # characters kept either side of where a long text changed


class EditionError(PnpError):
    """An edition that cannot be found, named, read or written."""

    code = "E102"


def flatten(data: Any, path: str = "") -> dict[str, Any]:
    """The values of nested mappings and lists by dotted path."""
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)  # type: ignore[assignment]
    else:
        return {path: data}
    found: dict[str, Any] = {}
    for key, value in items:
        found.update(flatten(value, f"{path}.{key}" if path else str(key)))
    return found


def face_key(deck: Deck, face: Face) -> str:
    """How a record names a face: `deck/card-id`, or `deck/back:back-id`."""
    return f"{deck.spec.id}/{face.source}"


def record(job: Job, name: str, number: int, rulebook: str | None) -> dict[str, Any]:
    """What an edition records of a game as it prints now."""
    faces: dict[str, dict[str, Any]] = {}
    cards: dict[str, Any] = {}
    renderer = job.renderer
    for deck in job.decks:
        quoted = _placeholders(deck)
        for card, line in deck.located():
            front = renderer.face(deck, card, line)
            back = renderer.back(deck, card, front)
            cards[f"{deck.spec.id}/{card.id}"] = card.model_dump(mode="json", exclude_defaults=True)
            for face in [front] + ([back] if back is not None and back is not front else []):
                key = face_key(deck, face)
                entry = faces.setdefault(key, {
                    "deck": deck.spec.id, "card": card.id if face is front else face.source,
                    "name": card.name if face is front else deck.spec.name,
                    "copies": 0, "print": face.fingerprint, "tag": face.tag,
                    "rules": sorted(face.rules | (quoted.get(card.id, set())
                                                  if face is front else set()))})
                entry["copies"] += card.qty
    backs = {key: back.model_dump(mode="json") for key, back in job.game.spec.backs.items()}
    return {"format": FORMAT, "edition": name, "number": number,
            "game": job.game.spec.title, "version": job.game.spec.version,
            "rules": flatten(job.game.rules), "backs": backs, "cards": cards, "faces": faces,
            "rulebook": sections(rulebook) if rulebook is not None else {}}


def _placeholders(deck: Deck) -> dict[str, set[str]]:
    """The rules each card's YAML quotes as `{path}`, by card id."""
    try:
        lines = deck.path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    starts = [*deck.starts, len(lines) + 1]
    found: dict[str, set[str]] = {}
    for card, line in deck.located():
        if line not in deck.starts:
            continue
        text = "\n".join(lines[line - 1:starts[deck.starts.index(line) + 1] - 1])
        found[card.id] = {path for inside in _PLACEHOLDER.findall(text)
                          for path in _PATH.findall(inside)}
    return found


def sections(markdown: str) -> dict[str, str]:
    """A rulebook's text by heading (levels 1 to 3), the text before the first under ``."""
    found: dict[str, list[str]] = {"": []}
    current = ""
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            current = heading.group(2).replace("*", "")
            while current in found:
                current += " "
            found[current] = []
        found[current].append(line)
    return {title: "\n".join(lines).strip() for title, lines in found.items()
            if "\n".join(lines).strip()}


class FaceRecord(BaseModel):
    """One face as an edition records it."""

    deck: str
    card: str
    name: str
    copies: int
    print: str
    tag: str
    rules: list[str]


class LanguageRecord(BaseModel):
    """What an edition records of a language other than the game's source."""

    game: str
    rules: dict[str, Any]
    backs: dict[str, dict[str, Any]]
    cards: dict[str, dict[str, Any]]
    faces: dict[str, FaceRecord]
    rulebook: dict[str, str]


class Record(LanguageRecord):
    """The shape of an edition's record, checked before it is compared (the pack is untrusted:
    a record another tool wrote is refused, not half-read): the source language's faces, and
    each other language's under `languages` (none in a record older than them)."""

    format: int
    edition: str
    number: int
    version: str
    languages: dict[str, LanguageRecord] = {}


def with_languages(source: dict[str, Any], others: dict[str, dict[str, Any]]
                   ) -> dict[str, Any]:
    """A record of the source language with what the records of other languages (by tag)
    record of each; a game in one language's record as it always was."""
    if not others:
        return source
    return {**source, "languages": {tag: {key: data[key] for key in LANGUAGE_PART}
                                    for tag, data in others.items()}}


def in_language(data: dict[str, Any], language: str | None, now: dict[str, Any]
                ) -> dict[str, Any]:
    """An edition's record as one language printed it (None: the source): a language it
    lacks printed nothing, so each of its faces and rulebook sections is new now (`now`'s
    rules taken as they are, none of them changed)."""
    if language is None:
        return data
    header = {key: data.get(key) for key in ("edition", "number", "version")}
    kept = data.get("languages", {}).get(language)
    if kept is not None:
        return {**header, **kept}
    return {**header, "game": now.get("game"), "rules": now["rules"], "backs": {},
            "cards": {}, "faces": {}, "rulebook": {}}


def folder(game: Game) -> Path:
    """Where a pack keeps its editions."""
    return game.root / FOLDER


class _LeftOut(Exception):
    """A file in editions/ that is no record this pnp reads: why, and its line when known."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(message)
        self.message, self.line = message, line


def listed(game: Game) -> list[dict[str, Any]]:
    """The pack's editions, oldest first: each record's name, number, version and faces. A file
    there that is no record this pnp reads is left out with a notice naming it; a record of
    pnp's format but of another shape is refused (PnpError)."""
    found = []
    for path in sorted(folder(game).glob("*.json")):
        try:
            found.append(_record(game, path))
        except _LeftOut as exc:
            where = f"{display_path(path)}:{exc.line}" if exc.line else display_path(path)
            _tell(f"{where}: {exc.message}; left out")
    return sorted(found, key=lambda data: (data["number"], data["edition"]))


def _record(game: Game, path: Path) -> dict[str, Any]:
    """An edition's record as pnp wrote it, checked: _LeftOut when the file is none."""
    try:  # inside the pack, a regular file, within the pack's limit, as every file it has
        text = pack_text(game.root, f"{FOLDER}/{path.name}", game.spec.limits.file_bytes)
    except FileRefused as exc:
        raise _LeftOut(exc.message, exc.line) from None
    _check_json(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _LeftOut(f"not JSON ({exc.msg})", exc.lineno) from None
    except ValueError as exc:  # an integer of thousands of digits
        raise _LeftOut(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _LeftOut(f"not an edition record of format {FORMAT}, the one this pnp writes")
    try:
        checked = Record.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise EditionError(f"{display_path(path)}: not an edition record pnp wrote "
                       f"({where}: {first['msg']})") from None
    if not 1 <= checked.number <= MAX_NUMBER:
        raise _LeftOut(f"its number is not from 1 to {MAX_NUMBER}")
    if not _NAME.fullmatch(checked.edition):
        raise _LeftOut("its edition name is not one pnp writes (letters, digits, '.', '-' and "
                       "'_', at most 64)")
    return {**data, "number": checked.number}  # "3" read as 3, as the other numbers are


def _check_json(text: str) -> None:
    """Refuse JSON that nests past MAX_DEPTH or holds more than MAX_VALUES values, before it
    is parsed (Python's parser recurses, and builds an object for each value)."""
    bare = _STRING.sub('""', text)  # a string holds no line break: lines stay where they are
    if bare.count(",") + bare.count("[") + bare.count("{") > MAX_VALUES:
        raise _LeftOut(f"it holds more than {MAX_VALUES} values")
    depth = 0
    for bracket in _BRACKET.finditer(bare):
        depth += 1 if bracket.group() in "[{" else -1
        if depth < 0:  # a bracket closing none: the parser tells where
            return
        if depth > MAX_DEPTH:
            raise _LeftOut(f"it nests more than {MAX_DEPTH} deep",
                           bare.count("\n", 0, bracket.start()) + 1)


_told: set[str] = set()


def _tell(notice: str) -> None:
    """A notice on stderr, once in a process however often the editions are listed."""
    if notice not in _told:
        _told.add(notice)
        print(f"pnp: {notice}".translate(_CONTROL), file=sys.stderr, flush=True)


def next_number(game: Game) -> int:
    """The number the next edition of the game records: one more than the last's."""
    number = 1 + max((data["number"] for data in listed(game)), default=0)
    if number > MAX_NUMBER:
        raise EditionError(f"{game.name}: the last edition is numbered {MAX_NUMBER}, the highest "
                       "number an edition may have")
    return number


def load(game: Game, name: str | None) -> dict[str, Any]:
    """An edition's record by name, the last one when `name` is None."""
    known = listed(game)
    if not known:
        raise EditionError(f"{game.name}: no edition yet: `pnp release {game.name} NAME` records "
                       "what you print")
    if name is None:
        return known[-1]
    for data in known:
        if data.get("edition") == name:
            return data
    raise EditionError(f"{game.name}: no edition '{name}' (there are: "
                   f"{', '.join(str(data.get('edition')) for data in known)})")


def check_name(name: str) -> None:
    """Refuse an edition name other than letters, digits, '.', '-' and '_', at most 64."""
    if not _NAME.fullmatch(name):
        raise EditionError(f"edition name {name!r}: letters, digits, '.', '-' and '_' only, "
                           "at most 64")


def save(game: Game, data: dict[str, Any]) -> Path:
    """Write an edition's record into the pack; a name already used is refused."""
    name = str(data["edition"])
    check_name(name)
    path = folder(game) / f"{name}.json"
    if path.exists() or path.is_symlink():
        raise EditionError(f"edition '{name}' exists already; give the new one another name",
                           path=str(path))
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    try:
        with open_named(game.root, make=False) as pack, pack.sub(FOLDER, mark=False) as records:
            records.write(path.name, text.encode("utf-8"), replace=False)
    except Refused as exc:
        raise EditionError(f"edition '{name}' is not written: {exc}", path=str(path)) from None
    return path


@dataclass
class Changed:
    """One face that prints differently: where it is, its copies, its tags, and why."""

    key: str
    deck: str
    card: str
    name: str
    copies: int
    old_tag: str
    new_tag: str
    why: list[str]


@dataclass
class RuleChange:
    """One rule value changed, and the faces and rulebook sections it reaches."""

    path: str
    old: Any
    new: Any
    faces: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)


@dataclass
class Changes:
    """Everything that prints differently from an edition to now."""

    since: str
    old_version: str
    new_version: str
    changed: list[Changed]
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]
    counts: list[tuple[str, str, int, int]]  # key, name, copies before, now
    rules: list[RuleChange]
    rulebook: list[tuple[str, list[str]]]  # section, unified diff lines
    language: str = ""  # the language the faces print in

    @property
    def empty(self) -> bool:
        """Whether nothing prints differently."""
        return not (self.changed or self.added or self.removed or self.counts or self.rulebook)

    def as_json(self) -> dict[str, Any]:
        """The changes as plain data, for tools."""
        return {"language": self.language, "since": self.since,
                "version": [self.old_version, self.new_version],
                "changed": [vars(item) for item in self.changed], "added": self.added,
                "removed": self.removed,
                "counts": [{"key": key, "name": name, "before": before, "now": now}
                           for key, name, before, now in self.counts],
                "rules": [vars(item) for item in self.rules],
                "rulebook": [{"section": section, "diff": lines}
                             for section, lines in self.rulebook]}


def compare(old: dict[str, Any], new: dict[str, Any], rulebook_source: str = "",
            language: str = "") -> Changes:
    """What prints differently in `new` than in the edition `old` (both of one language),
    and why."""
    old_rules, new_rules = old.get("rules", {}), new["rules"]
    rule_changes = [RuleChange(path, old_rules.get(path), new_rules.get(path))
                    for path in sorted(set(old_rules) | set(new_rules))
                    if old_rules.get(path) != new_rules.get(path)]
    old_faces, new_faces = old.get("faces", {}), new["faces"]
    changed, counts = [], []
    for key, face in new_faces.items():
        before = old_faces.get(key)
        if before is None:
            continue
        if before.get("print") != face["print"]:
            why = _why(key, before, face, old, new, rule_changes)
            changed.append(Changed(key, face["deck"], face["card"], face["name"],
                                   face["copies"], before.get("tag", ""), face["tag"], why))
        if before.get("copies") != face["copies"]:
            counts.append((key, face["name"], int(before.get("copies", 0)), face["copies"]))
    added = [{"key": key, **face} for key, face in new_faces.items() if key not in old_faces]
    removed = [{"key": key, **face} for key, face in old_faces.items() if key not in new_faces]
    for rule in rule_changes:
        direct = {key for key, face in new_faces.items()
                  if any(_reaches(read, rule.path) for read in face.get("rules", []))}
        quoting = {f"{CARDS_READ}.{key.replace('/', '.', 1)}" for key in direct}
        printed = {item.key for item in changed}  # of those, and the faces reading them,
        rule.faces = [key for key, face in new_faces.items()  # those that print differently
                      if key in printed and (key in direct or quoting & set(face["rules"]))]
    book = _rulebook_diff(old.get("rulebook", {}), new.get("rulebook", {}))
    for rule in rule_changes:
        rule.sections = [section for section, _ in book
                         if _mentions(rulebook_source, section, rule.path)]
    return Changes(str(old.get("edition", "")), str(old.get("version", "")),
                   str(new.get("version", "")), changed, added, removed, counts, rule_changes,
                   book, language)


def _reaches(read: str, path: str) -> bool:
    """Whether reading `read` of the rules reads `path`: the same, or a whole it lies in."""
    return path == read or path.startswith(read + ".") or read.startswith(path + ".")


def _why(key: str, before: dict[str, Any], face: dict[str, Any], old: dict[str, Any],
         new: dict[str, Any], rules: list[RuleChange]) -> list[str]:
    """Why a face prints differently: its fields, a rule it reads, or its template or style."""
    card_key = f"{face['deck']}/{face['card']}"
    if face["card"].startswith("back:"):
        back = face["card"].removeprefix("back:")
        was, now = old.get("backs", {}).get(back, {}), new.get("backs", {}).get(back, {})
    else:
        was, now = old.get("cards", {}).get(card_key, {}), new["cards"].get(card_key, {})
    why = _fields(was, now)
    read = set(before.get("rules", [])) | set(face.get("rules", []))
    why += [f"{rule.path}: {_short(rule.old)} → {_short(rule.new)}" for rule in rules
            if any(_reaches(each, rule.path) for each in read)]
    for other in sorted(read):
        if other.startswith(CARDS_READ + ".") and other.count(".") == 2:
            other_key = other.removeprefix(CARDS_READ + ".").replace(".", "/", 1)
            if other_key != card_key:
                why += [f"{other_key} {change}" for change in _fields(
                    old.get("cards", {}).get(other_key, {}), new["cards"].get(other_key, {}))]
    return why or ["restyled"]


def _fields(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each value that differs between two cards' data, by dotted path, old → new."""
    before, after = flatten(was), flatten(now)
    return [_delta(path, before.get(path), after.get(path))
            for path in sorted(set(before) | set(after), key=_natural)
            if before.get(path) != after.get(path)]


def _natural(path: str) -> list[Any]:
    """A dotted path's parts, numbers as numbers, to sort `a.2` before `a.10`."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in path.split(".")]


def _delta(path: str, old: Any, new: Any) -> str:
    """One change: `path: old → new`, a long text cut to where it differs."""
    if isinstance(old, str) and isinstance(new, str) and max(len(old), len(new)) > SHORT:
        start = next((index for index, (a, b) in enumerate(zip(old, new, strict=False))
                      if a != b), min(len(old), len(new)))
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1
        keep = CONTEXT
        cut_old = old[max(0, start - keep):len(old) - max(0, end - keep)]
        cut_new = new[max(0, start - keep):len(new) - max(0, end - keep)]
        lead = "…" if start > keep else ""
        tail = "…" if end > keep else ""
        return f"{path}: {lead}{_short(cut_old)}{tail} → {lead}{_short(cut_new)}{tail}"
    return f"{path}: {_short(old)} → {_short(new)}"


def _short(value: Any) -> str:
    """A value as a change shows it: text as is, other data as JSON, cut to SHORT characters;
    nothing is `—`."""
    if value is None:
        return "—"
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= SHORT else shown[:SHORT - 1] + "…"


def _rulebook_diff(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Each rulebook section whose text changed, added or removed, with its line diff."""
    found = []
    for section in [*new, *[title for title in old if title not in new]]:
        was, now = old.get(section, ""), new.get(section, "")
        if was != now:
            lines = [line for line in difflib.unified_diff(
                was.splitlines(), now.splitlines(), lineterm="", n=0)
                if not line.startswith(("---", "+++", "@@"))]
            found.append((section.strip() or "—", lines))
    return found


def _mentions(source: str, section: str, path: str) -> bool:
    """Whether the rulebook's source quotes a rule path in the section named."""
    start = source.find(section.strip()) if section.strip() else 0
    if start < 0:
        return False
    following = re.search(r"^#{1,3} ", source[start + 1:], re.MULTILINE)
    end = start + 1 + following.start() if following else len(source)
    return path in source[start:end]
