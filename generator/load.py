"""Stage 1, load: read a game pack's YAML into typed models, every line remembered."""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from . import BUILD_DIR, CARDS_DIR, DEFAULT_GAME, PACK_BUILD
from .errors import Finding, PackError, display_path
from .files import FileRefused, inside, read_text, regular
from .language import check_words
from .rules import expand_tree, plain, strings
from .schema import (
    DEFAULT_LIMITS,
    CardBase,
    DeckSpec,
    GameSpec,
    Limits,
    accepted_keys,
    card_model,
)


class LineDict(dict):
    """A YAML mapping that remembers the line of each key."""

    line: int = 0
    lines: dict[Any, int]


class LineList(list):
    """A YAML sequence that remembers the line of each item."""

    line: int = 0
    lines: list[int]


_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # LibYAML
_LIBYAML = _SafeLoader is not yaml.SafeLoader
_INT_TAG = "tag:yaml.org,2002:int"
_KEY_SHAPE = "a key must be a plain value, not a list or a mapping"
# What card text may not hold, in a YAML, CSV or xlsx deck alike: the C0 controls but tab and
# newline, DEL and the C1 controls (they print as nothing or as a box), and the bidi
# embeddings, overrides and isolates (they make text print otherwise than the file reads).
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _Refused(Exception):
    """A YAML file past a limit, or of a shape that cannot be read: its line and finding."""

    def __init__(self, line: int, message: str, code: str):
        super().__init__(message)
        self.line, self.message, self.code = line, message, code


class _LineLoader(_SafeLoader):  # type: ignore[valid-type, misc]
    """A safe loader that records line numbers, reports duplicate keys, refuses a key that is
    a list or a mapping and an integer longer than the limit."""

    def __init__(self, stream: str, limits: Limits = DEFAULT_LIMITS):
        super().__init__(stream)
        self.duplicates: list[tuple[int, str]] = []
        self.limits = limits


def _construct_mapping(loader: _LineLoader, node: yaml.Node) -> LineDict:
    if not isinstance(node, yaml.MappingNode):
        raise yaml.constructor.ConstructorError(None, None, "expected a mapping",
                                                node.start_mark)
    loader.flatten_mapping(node)
    data = LineDict()
    data.line = node.start_mark.line + 1
    data.lines = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        if not isinstance(key_node, yaml.ScalarNode):
            raise _Refused(line, _KEY_SHAPE, "E005")  # the event walk finds it first
        key = loader.construct_object(key_node, deep=True)
        if key in data:
            loader.duplicates.append((line, f"duplicate key '{key}'"))
        data[key] = loader.construct_object(value_node, deep=True)
        data.lines[key] = line
    return data


def _construct_sequence(loader: _LineLoader, node: yaml.Node) -> LineList:
    if not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(None, None, "expected a list", node.start_mark)
    data = LineList(loader.construct_object(child, deep=True) for child in node.value)
    data.line = node.start_mark.line + 1
    data.lines = [child.start_mark.line + 1 for child in node.value]
    return data


def _construct_int(loader: _LineLoader, node: yaml.Node) -> Any:
    """An integer, refused past the digits the limits allow, before Python converts it."""
    if isinstance(node, yaml.ScalarNode):
        digits = node.value.lstrip("+-").replace("_", "").replace(":", "")
        if digits[:2].lower() in ("0x", "0b"):
            digits = digits[2:]
        limit = loader.limits.integer_digits
        if len(digits) > limit:
            raise _Refused(node.start_mark.line + 1, f"an integer of {len(digits)} digits, over "
                           f"the limit of {limit} (`limits: integer_digits` in game.yaml)", "E006")
    return _INT(loader, node)


def _scalar(construct: Any) -> Any:
    """A scalar constructor whose value may not convert (`!!int abc`, `2020-13-45`): its
    failure becomes a YAML error at the value's line, not a traceback."""

    def guarded(loader: _LineLoader, node: yaml.Node) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError,
                IndexError) as exc:
            value = node.value if isinstance(node.value, str) else "?"
            kind = node.tag.rsplit(":", 1)[-1]
            raise yaml.constructor.ConstructorError(
                None, None, f"'{value[:40]}' is not a valid {kind} ({exc})", node.start_mark
            ) from None

    return guarded


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_INT = _scalar(yaml.constructor.SafeConstructor.construct_yaml_int)
_LineLoader.add_constructor(_INT_TAG, _construct_int)
for _tag in ("bool", "float", "timestamp", "binary"):
    _LineLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _scalar(
        yaml.constructor.SafeConstructor.yaml_constructors[f"tag:yaml.org,2002:{_tag}"]))


@dataclass
class _Open:
    """A mapping or list whose end the event walk has not reached."""

    anchor: str | None
    start: int  # the nodes counted before it
    mapping: bool
    children: int = 0  # in a mapping, keys and values alternate
    height: int = 0  # how deep the collections inside it nest


def _check_events(text: str, limits: Limits) -> None:
    """Walk the YAML's events before anything is built, raising _Refused where mappings and
    lists nest past the limit, where the nodes (a string of n characters counting 1 + n/100),
    each alias expanded, pass it, where a string is too long, or where a key
    is a list or a mapping. Linear: an anchor's expanded size and height are remembered and
    an alias adds them; the walk stops at the first limit crossed, so 100,000 nested `[` are
    never composed."""
    anchors: dict[str, tuple[int, int]] = {}  # each anchor: its nodes and its height
    stack: list[_Open] = []
    total = 0
    for event in yaml.parse(text, Loader=_SafeLoader):
        if isinstance(event, yaml.CollectionEndEvent):
            done = stack.pop()
            height = done.height + 1
            if done.anchor is not None:
                anchors[done.anchor] = (total - done.start, height)
        elif isinstance(event, yaml.NodeEvent):
            line = event.start_mark.line + 1 if event.start_mark else 1
            opens = isinstance(event, yaml.CollectionStartEvent)
            if isinstance(event, yaml.AliasEvent):
                nodes, height = anchors.get(event.anchor or "", (1, 0))
            elif isinstance(event, yaml.ScalarEvent):
                if len(event.value) > limits.string_chars:
                    raise _Refused(line, f"a string of {len(event.value)} characters, over the "
                                   f"limit of {limits.string_chars} (`limits: string_chars` in "
                                   "game.yaml)", "E006")
                nodes, height = 1 + len(event.value) // 100, 0  # text counts as nodes too
            else:
                nodes, height = 1, int(opens)
            parent = stack[-1] if stack else None
            if parent is not None and parent.mapping and parent.children % 2 == 0 and height:
                raise _Refused(line, _KEY_SHAPE, "E005")
            if len(stack) + height > limits.yaml_depth:
                raise _Refused(line, _depth_message(limits), "E006")
            if total + nodes > limits.yaml_nodes:
                raise _Refused(line, f"more than {limits.yaml_nodes} YAML nodes, aliases "
                               "expanded (`limits: yaml_nodes` in game.yaml)", "E006")
            if parent is not None:
                parent.children += 1
            if opens:
                if event.anchor is not None:
                    anchors[event.anchor] = (1, 1)  # an alias inside it is recursive
                stack.append(_Open(event.anchor, total, isinstance(event, yaml.MappingStartEvent)))
                total += 1
                continue
            total += nodes
            if event.anchor is not None and isinstance(event, yaml.ScalarEvent):
                anchors[event.anchor] = (nodes, 0)
        else:
            continue
        if stack:
            stack[-1].height = max(stack[-1].height, height)


@dataclass(frozen=True)
class Naming:
    """Where game.yaml names a file: a file that cannot be read at all is reported there."""

    where: str  # game.yaml, as findings name it
    line: int
    subject: str  # what the file is, e.g. "deck 'spells': file"
    name: str  # the file as game.yaml writes it


def read_yaml(path: Path, findings: list[Finding], limits: Limits = DEFAULT_LIMITS,
              naming: Naming | None = None, root: Path | None = None) -> Any:
    """Parse one YAML file safely, a regular file inside `root` (default its folder) within
    the limits; problems go to findings, and None comes back. A file that cannot be read at
    all is reported where game.yaml names it, when `naming` says where."""
    try:
        real = inside(path, [root or path.parent], name=naming.name if naming else None)
        text = read_text(real, limits.file_bytes, name=naming.name if naming else None)
    except FileRefused as exc:
        if naming is None or exc.line:
            findings.append(Finding(display_path(path), exc.line, exc.message, exc.code))
        else:
            findings.append(Finding(naming.where, naming.line, f"{naming.subject} {exc.message}",
                                    exc.code))
        return None
    return parse_yaml(text, path, findings, limits)


def _depth_message(limits: Limits) -> str:
    """What a finding says of YAML nested past the limit."""
    return (f"mappings and lists nest more than {limits.yaml_depth} deep (`limits: yaml_depth` "
            "in game.yaml)")


def parse_yaml(text: str, path: Path, findings: list[Finding],
               limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse YAML text read from path safely, within the limits; problems go to findings,
    and None comes back."""
    where = display_path(path)
    loader = None
    try:
        _check_events(text, limits)
        loader = _LineLoader(text, limits)
        data = loader.get_single_data()
    except _Refused as exc:
        findings.append(Finding(where, exc.line, exc.message, exc.code))
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        problem = " ".join(filter(None, [exc.context, exc.problem]))
        if "maximum nesting depth" in problem:  # PyYAML 6.0.4 stops deep nesting itself
            findings.append(Finding(where, line, _depth_message(limits), code="E006"))
        else:
            findings.append(Finding(where, line, f"YAML syntax: {problem}", code="E002"))
        return None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        before = text.encode()[:exc.position] if _LIBYAML else text[:exc.position].encode()
        line = before.count(b"\n") + 1  # LibYAML tells the byte, Python the character
        findings.append(Finding(where, line, f"YAML: {str(exc).splitlines()[0]}", code="E002"))
        return None
    except yaml.YAMLError as exc:
        findings.append(Finding(where, 1, f"YAML: {' '.join(str(exc).split())}", code="E002"))
        return None
    finally:
        if loader is not None:
            loader.dispose()
    findings.extend(Finding(where, line, msg, code="E003") for line, msg in loader.duplicates)
    return data


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


def line_of(data: Any, loc: tuple[Any, ...]) -> int:
    """Return the line of the deepest part of loc found in a LineDict/LineList tree."""
    line = getattr(data, "line", 0)
    for part in loc:
        in_dict = isinstance(data, LineDict) and part in data.lines
        in_list = isinstance(data, LineList) and isinstance(part, int) and part < len(data)
        if not (in_dict or in_list):
            break
        line = data.lines[part]
        data = data[part]
        line = getattr(data, "line", 0) or line
        if not isinstance(data, LineDict | LineList):
            break
    return line


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
    starts: list[int] = field(default_factory=list)  # the first line of every entry
    failed_ids: set[str] = field(default_factory=set)
    failed_copies: int = 0
    readable: bool = True  # False when the file could not be read as a list, or the deck is
    # refused whole (its copies past the limit): nothing is laid out from it

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

    @property
    def limits(self) -> Limits:
        """What the pack may ask for (game.yaml `limits`): file sizes, counts, templates."""
        return self.spec.limits


def pack_dir(name: str, cards_dir: Path = CARDS_DIR) -> Path:
    """Return the folder of a game pack, or raise a clean error listing the known games."""
    root = cards_dir / name
    if not (root / "game.yaml").is_file():
        known = ", ".join(list_games(cards_dir)) or "none"
        raise PackError([Finding(display_path(root), 0, f"no game '{name}' (known: {known})",
                                 "E001")])
    return root


@dataclass(frozen=True)
class PackPlace:
    """Where a pack named on the command line is: its name, the folder holding it, and
    where its builds go unless --out says."""

    name: str
    cards_dir: Path
    out_root: Path


def locate_pack(given: str | None, cards_dir: Path | None = None,
                default: str = DEFAULT_GAME) -> PackPlace:
    """A pack by folder (`.`, `../my-game`, `~/games/x`: one holding game.yaml, which builds
    into its own build/) or by name under `cards_dir`; none given: the current folder when
    it holds a game.yaml, else `default` under cards/."""
    folder = None
    if given is None and cards_dir is None and Path("game.yaml").is_file():
        folder = Path.cwd()
    elif given is not None and cards_dir is None:
        path = Path(given).expanduser()
        if path.name == "game.yaml":
            path = path.parent
        looks_like_path = os.sep in given or given.startswith((".", "~"))
        if looks_like_path or (path / "game.yaml").is_file():
            folder = path.resolve()
    if folder is not None and folder.parent != CARDS_DIR.resolve():
        return PackPlace(folder.name, folder.parent, folder / PACK_BUILD)
    if folder is not None:
        return PackPlace(folder.name, CARDS_DIR, BUILD_DIR)
    return PackPlace(given or default, cards_dir or CARDS_DIR, BUILD_DIR)


def list_games(cards_dir: Path = CARDS_DIR) -> list[str]:
    """Names of every folder under cards/ that holds a game.yaml."""
    return sorted(p.parent.name for p in cards_dir.glob("*/game.yaml"))


FATAL = "; nothing else was checked, as the rest depends on it"


def load_game(name: str, cards_dir: Path = CARDS_DIR) -> Game:
    """Load game.yaml and every deck file. A card that does not load is left out and the
    rest go on, its problems in `Game.findings`; only a game.yaml or rules file that cannot
    be read raises PackError, as everything else depends on it."""
    root = pack_dir(name, cards_dir)
    findings: list[Finding] = []
    where = display_path(root / "game.yaml")
    data, spec = _read_spec(root, findings)
    limits = spec.limits
    findings += _check_dice(spec, data, where)
    findings += _check_named(root, spec, data, where)
    findings += check_words(spec, where, lambda loc: line_of(data, loc))
    before = len(findings)
    rules_data = _load_rules(root, spec, data, findings)
    if len(findings) > before and any(f.code != "E003" for f in findings[before:]):
        raise PackError(_fatal(findings))
    rules = plain(rules_data) if rules_data else {}
    texts = [Text(where, line, text) for line, text in strings(data)]
    if rules and "tables" in data:  # table text may quote the rules too
        before = len(findings)
        expand_tree(data["tables"], rules, where, findings, data.lines.get("tables", 0),
                    limits.integer_digits)
        if len(findings) == before:
            spec = GameSpec.model_validate(data)
    decks = [_load_deck(root, deck, rules, findings, texts,
                        Naming(where, line_of(data, ("decks", index, "file")),
                               f"deck '{deck.id}': file", deck.file), limits)
             for index, deck in enumerate(spec.decks)]
    for index, deck in enumerate(decks):
        if deck.copies > limits.copies:
            findings.append(Finding(where, line_of(data, ("decks", index)),
                                    f"deck '{deck.spec.id}' prints {deck.copies} cards, over "
                                    f"the limit of {limits.copies} (`limits: copies` in "
                                    "game.yaml)", "E006"))
            deck.readable = False  # nothing is planned from it
    return Game(name=name, root=root, spec=spec, decks=decks, spec_data=data, rules=rules,
                rules_data=rules_data, texts=texts, findings=findings)


def load_spec(root: Path) -> GameSpec:
    """A pack's game.yaml alone, as `pnp list` shows it; PackError when it does not load."""
    return _read_spec(root, [])[1]


def _read_spec(root: Path, findings: list[Finding]) -> tuple[Any, GameSpec]:
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
               texts: list[Text], naming: Naming, limits: Limits) -> Deck:
    """Load one deck file: a YAML list of cards, or a spreadsheet's rows, rule placeholders
    filled, each checked; a card whose qty passes the limit is left out, its copies counted
    but never made."""
    from .spreadsheet import is_spreadsheet, read_deck, sheet_misplaced

    path = root / spec.file
    deck = Deck(spec=spec, path=path)
    where = display_path(path)
    failed: set[int] = set()  # a spreadsheet's rows whose cells did not read
    noun = "column" if is_spreadsheet(path) else "field"
    if noun == "column":
        sheet = read_deck(path, root, spec, limits, naming, findings)
        data, failed = (sheet.cards, sheet.failed) if sheet is not None else (None, failed)
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
        if not isinstance(item, dict):
            findings.append(Finding(where, line, "a card must be a mapping of keys", code="E005"))
            deck.failed_copies += 1
            continue
        texts.extend(Text(where, at, text) for at, text in strings(item, line))
        card_id = item.get("id")
        subject = f"card '{_escaped(card_id)}': " if isinstance(card_id, str) else ""
        before = len(findings)
        findings.extend(Finding(where, at, f"{subject}{message}", "E010")
                        for at, text in strings(item, line) if (message := _unprintable(text)))
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
            if isinstance(card_id, str):
                deck.failed_ids.add(card_id)
            qty = item.get("qty", 1)
            deck.failed_copies += qty if isinstance(qty, int) and qty > 0 else 1
            continue
        deck.cards.append(card)
        deck.lines.append(line)
        deck.entries.append(item)
    return deck
