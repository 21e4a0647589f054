"""Stage 1, load: read a game pack's YAML into typed models, every line remembered."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from . import CARDS_DIR
from .errors import Finding, PackError, display_path
from .rules import expand_tree, plain, strings
from .schema import CardBase, DeckSpec, GameSpec, accepted_keys, card_model


class LineDict(dict):
    """A YAML mapping that remembers the line of each key."""

    line: int = 0
    lines: dict[Any, int]


class LineList(list):
    """A YAML sequence that remembers the line of each item."""

    line: int = 0
    lines: list[int]


_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # LibYAML


class _LineLoader(_SafeLoader):  # type: ignore[valid-type, misc]
    """A safe loader that records line numbers and reports duplicate keys."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.duplicates: list[tuple[int, str]] = []


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    data = LineDict()
    data.line = node.start_mark.line + 1
    data.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in data:
            loader.duplicates.append((line, f"duplicate key '{key}'"))
        data[key] = loader.construct_object(value_node, deep=True)
        data.lines[key] = line
    return data


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    data = LineList(loader.construct_object(child, deep=True) for child in node.value)
    data.line = node.start_mark.line + 1
    data.lines = [child.start_mark.line + 1 for child in node.value]
    return data


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def read_yaml(path: Path, findings: list[Finding]) -> Any:
    """Parse one YAML file safely; problems go to findings, and None comes back."""
    where = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        findings.append(Finding(where, 0, "file not found", code="E001"))
        return None
    except (OSError, UnicodeDecodeError) as exc:
        findings.append(Finding(where, 0, f"cannot read file: {exc}", code="E001"))
        return None
    loader = _LineLoader(text)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        problem = " ".join(filter(None, [exc.context, exc.problem]))
        findings.append(Finding(where, line, f"YAML syntax: {problem}", code="E002"))
        return None
    except yaml.YAMLError as exc:
        findings.append(Finding(where, 0, f"YAML: {exc}", code="E002"))
        return None
    finally:
        loader.dispose()
    findings.extend(Finding(where, line, msg, code="E003") for line, msg in loader.duplicates)
    return data


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
    model: type[BaseModel], data: Any, exc: ValidationError, where: str, subject: str
) -> list[Finding]:
    """Turn pydantic errors into path:line findings with readable messages."""
    found = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        dotted = ".".join(str(p) for p in loc)
        if error["type"] == "extra_forbidden":
            accepted = ", ".join(accepted_keys(model, loc))
            message = f"unknown field '{dotted}' (accepted: {accepted})"
            line = _key_line(data, loc)
        elif error["type"] == "missing":
            message = f"missing required field '{dotted}'"
            line = line_of(data, loc[:-1])
        else:
            message = f"field '{dotted}': {error['msg'].lower()}"
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
    readable: bool = True  # False when the file itself could not be read as a list

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


def pack_dir(name: str, cards_dir: Path = CARDS_DIR) -> Path:
    """Return the folder of a game pack, or raise a clean error listing the known games."""
    root = cards_dir / name
    if not (root / "game.yaml").is_file():
        known = ", ".join(list_games(cards_dir)) or "none"
        raise PackError([Finding(display_path(root), 0, f"no game '{name}' (known: {known})",
                                 "E001")])
    return root


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
    game_path = root / "game.yaml"
    where = display_path(game_path)
    data = read_yaml(game_path, findings)
    if data is None:
        raise PackError(_fatal(findings) or [Finding(where, 0, "game.yaml is empty" + FATAL,
                                                     "E004")])
    try:
        spec = GameSpec.model_validate(data)
    except ValidationError as exc:
        raise PackError(_fatal(findings + model_findings(GameSpec, data, exc, where, ""))
                        ) from None
    before = len(findings)
    rules_data = _load_rules(root, spec, findings)
    if len(findings) > before and any(f.code != "E003" for f in findings[before:]):
        raise PackError(_fatal(findings))
    rules = plain(rules_data) if rules_data else {}
    texts = [Text(where, line, text) for line, text in strings(data)]
    if rules and "tables" in data:  # table text may quote the rules too
        before = len(findings)
        expand_tree(data["tables"], rules, where, findings, data.lines.get("tables", 0))
        if len(findings) == before:
            spec = GameSpec.model_validate(data)
    decks = [_load_deck(root, deck, rules, findings, texts) for deck in spec.decks]
    return Game(name=name, root=root, spec=spec, decks=decks, spec_data=data, rules=rules,
                rules_data=rules_data, texts=texts, findings=findings)


def _fatal(findings: list[Finding]) -> list[Finding]:
    """The findings that stop loading, the last one saying so."""
    last = max(findings)
    return [replace(last, message=last.message + FATAL) if f is last else f for f in findings]


def _load_rules(root: Path, spec: GameSpec, findings: list[Finding]) -> Any:
    """Read the rules data file named in game.yaml, lines kept; None when there is none."""
    if spec.rules is None:
        return None
    path = root / spec.rules
    data = read_yaml(path, findings)
    if data is not None and not isinstance(data, dict):
        findings.append(Finding(display_path(path), 1, "the rules file must be a YAML mapping",
                                code="E005"))
        return None
    return data


def _load_deck(root: Path, spec: DeckSpec, rules: dict, findings: list[Finding],
               texts: list[Text]) -> Deck:
    """Load one deck file: a YAML list of cards, rule placeholders filled, each checked."""
    path = root / spec.file
    deck = Deck(spec=spec, path=path)
    where = display_path(path)
    data = read_yaml(path, findings)
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
        before = len(findings)
        expand_tree(item, rules, where, findings, line)
        card = None
        if len(findings) == before:
            subject = f"card '{card_id}': " if isinstance(card_id, str) else ""
            try:
                card = model.model_validate(item)
            except ValidationError as exc:
                findings.extend(model_findings(model, item, exc, where, subject))
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
