"""YAML read safely, within the pack's limits, every mapping and list remembering the line
of each key and item: what each stage reads a pack's files with, so every finding names
`path:line`."""

from __future__ import annotations

import pickle
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..check.findings import Finding, display_path
from .files import FileRefused, inside, read_text
from .schema import DEFAULT_LIMITS, Limits

MAPPING_HINT = (" (a text holding ': ', as an icon `:coin:` followed by a space does, goes in "
                "quotes: 'pay :coin: now')")

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


KEEP_PARSED_BYTES = 32_000_000  # the texts and data kept_parsed holds at most


class _Kept:
    """YAML parsed before, by its text, file and limits: the data pickled (each caller gets
    its own copy to change) and the findings; the oldest forgotten past KEEP_PARSED_BYTES."""

    def __init__(self) -> None:
        self.parsed: OrderedDict[tuple[str, str, Limits], tuple[bytes, list[Finding]]] = \
            OrderedDict()
        self.size = 0

    def get(self, key: tuple[str, str, Limits], findings: list[Finding]) -> tuple[bool, Any]:
        """Whether the text was parsed before, and its data (its findings added)."""
        kept = self.parsed.get(key)
        if kept is None:
            return False, None
        self.parsed.move_to_end(key)
        findings.extend(kept[1])
        return True, pickle.loads(kept[0])

    def put(self, key: tuple[str, str, Limits], data: Any, found: list[Finding]) -> None:
        """Keep what parsing a text gave."""
        pickled = pickle.dumps(data, pickle.HIGHEST_PROTOCOL)
        self.parsed[key] = (pickled, found)
        self.size += len(key[0]) + len(pickled)
        while self.size > KEEP_PARSED_BYTES and self.parsed:
            text, _, _ = old = next(iter(self.parsed))
            self.size -= len(text) + len(self.parsed.pop(old)[0])


_kept: _Kept | None = None  # on in a process that reads a pack again at every edit


def keep_parsed() -> None:
    """Keep what parse_yaml parses, for a process that reads the same files again and again
    (`pnp serve`, `pnp watch`): a text parsed before is not parsed again."""
    global _kept
    _kept = _kept or _Kept()


def parse_yaml(text: str, path: Path, findings: list[Finding],
               limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse YAML text read from path safely, within the limits; problems go to findings,
    and None comes back. Parsed before (keep_parsed), it is taken as it was."""
    where = display_path(path)
    if _kept is None:
        return _parsed(text, where, findings, limits)
    key = (text, where, limits)
    known, data = _kept.get(key, findings)
    if not known:
        found: list[Finding] = []
        data = _parsed(text, where, found, limits)
        _kept.put(key, data, found)
        findings.extend(found)
    return data


def _parsed(text: str, where: str, findings: list[Finding], limits: Limits) -> Any:
    """parse_yaml's work: the text parsed, its problems found at `where`."""
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
            if "mapping values are not allowed" in problem:
                problem += MAPPING_HINT
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
