"""Fuzz (issue 17): a game pack may come from a stranger, so no input gives a traceback, a hang
or unbounded memory; every problem is a finding `path:line: error|warning: CODE: message`.

Real packs are copied into tmp once; each example rewrites one or two of their YAML files
(game.yaml, the rules, the decks), runs the validation without a new interpreter (load,
validate, every kind's own check and plan: all of `pnp validate` but the layout), checks what
came back, and puts the files back. Two kinds of mutation:

- text: bytes flipped, spans deleted or repeated, lines moved or re-indented, and snippets
  inserted anywhere, as a value or as a key: YAML syntax (`&a`, `*a`, `[`, `{`, `: `, `- `,
  tabs, tags such as `!!python/object`, `!!binary`, `!!int x`), huge numbers, bad dates, NUL,
  invalid UTF-8, line separators, Jinja (`{{`), `{rule.path}` placeholders of the pack's own
  rules, deep nesting, alias bombs, long strings;
- structure: the YAML loaded, a value somewhere replaced by another type (list, map, None,
  huge or negative int, float, long or odd string, a path out of the pack, a placeholder, raw
  YAML such as a recursive alias), keys deleted, renamed (to a list key, say) or added, items
  repeated; then dumped.

Each case runs in a forked process, so that a crash, a hang or a runaway cannot take the test
run down: it must raise nothing but PackError (anything else is raised again here, from the
line it came from, so Hypothesis tells crashes apart), finish in PNP_FUZZ_TIMEOUT seconds
(default 20; then faulthandler shows where it was), and grow its peak resident memory by less
than 300 MB (its address space is capped 1.5 GB above the start: a MemoryError). Each finding
must have a known code and a path, a line >= 1 (and not past the end) when the file it names
exists and is not empty, and print as one line of UTF-8.

`make test` runs 40 examples of each (about 20 s each) and `pnp validate` in a subprocess,
layout included, on four packs (three fixed, one drawn; marked slow), checking its exit code
and every line it prints. `make fuzz` sets PNP_FUZZ_EXAMPLES (5000 by default): half of them
each for text and structure, a hundredth for the command line.
"""

from __future__ import annotations

import builtins
import copy
import faulthandler
import os
import pickle
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator import CARDS_DIR, DEFAULT_GAME, PROJECT_ROOT
from generator.check.findings import CODES, Finding, PackError
from generator.pipeline.build import check

from .conftest import FIXTURES, GAMES, copy_real_pack

pytestmark = pytest.mark.fuzz

EXAMPLES = int(os.environ.get("PNP_FUZZ_EXAMPLES") or 0)  # 0: the quick run of `make test`
TIMEOUT = float(os.environ.get("PNP_FUZZ_TIMEOUT") or 20)  # seconds one case may take
MEMORY_MB = 300  # growth of the peak resident memory one case may cause
MAX_FILE = 4 << 20  # a mutated file is cut here: past the pack's own limits, not a disk filler
ADDRESS_SPACE_MB = 1536  # a hard cap over the address space, so a runaway is a MemoryError

PACKS = GAMES
# A finding as Finding.__str__ prints it; the line is left out when it is 0.
FINDING_LINE = re.compile(r"^(?P<path>.+?)(?::(?P<line>\d+))?: (?P<level>error|warning): "
                          r"(?P<code>[EW]\d{3}): \S")
SUMMARY_LINE = re.compile(r"^\S+: \d+ errors?, \d+ warnings?")
YAML_BREAK = re.compile(rb"\r\n|\r|\n|\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9")  # what YAML counts


def fuzz_settings(quick: int, share: float = 1.0) -> settings:
    """Settings for one fuzz test: `quick` examples in `make test`, PNP_FUZZ_EXAMPLES (times
    `share`) in `make fuzz`; derandomized, so a run repeats."""
    examples = max(1, round(EXAMPLES * share)) if EXAMPLES else quick
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


# --- what the packs hold --------------------------------------------------------------------


SMALL = "mini"  # the tiny test pack, which the command line is fuzzed on


@cache
def originals(pack: str) -> dict[str, bytes]:
    """Every YAML file of a real pack, or of the tiny test pack (game.yaml, the rules, the
    decks) by name, as committed."""
    folder = FIXTURES / pack if pack == SMALL else CARDS_DIR / pack
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.yaml"))}


@cache
def parsed(pack: str, file: str) -> Any:
    """A real YAML file loaded plainly, for the structure mutations to copy."""
    return yaml.safe_load(originals(pack)[file])


@cache
def rule_paths(pack: str) -> list[str]:
    """Dotted paths into the pack's rules, leaves and branches, for `{placeholder}`s."""
    rules = parsed(pack, "rules.yaml") if "rules.yaml" in originals(pack) else None
    found: list[str] = []

    def walk(data: Any, prefix: str) -> None:
        if len(found) > 400:
            return
        items = (data.items() if isinstance(data, dict) else
                 enumerate(data) if isinstance(data, list) else ())
        for key, value in items:
            path = f"{prefix}.{key}" if prefix else str(key)
            found.append(path)
            walk(value, path)

    walk(rules, "")
    return found or ["nope"]


KEYS = sorted({"id", "name", "qty", "draft", "back", "art", "quote", "sections", "motto",
               "label", "text", "title", "version", "players", "date", "language", "url",
               "palette", "fonts", "decks", "backs", "tables", "stylesheet", "rules", "sizes",
               "dice", "components", "rulebook", "file", "size", "template", "count",
               "double_sided", "output", "crop_marks", "overview", "color", "fields", "type",
               "required", "deck", "table", "choices", "width", "height", "edge", "faces",
               "ink", "accent", "emblem", "pattern", "cards", "contents", "gallery", "body",
               "heading", "limits", "terms", "checks", "non_negative", "within", "contiguous",
               "min", "max", "first", "last"})


# --- snippets: YAML-significant text, numbers, tags, placeholders ----------------------------

def _bomb(width: int, depth: int) -> str:
    """A flow sequence of aliases that stands for width**depth strings."""
    levels = [f"&a0 [{', '.join(['lol'] * width)}]"]
    levels += [f"&a{d} [{', '.join([f'*a{d - 1}'] * width)}]" for d in range(1, depth)]
    return f"[{', '.join(levels)}]"


def _nest(kind: str, depth: int) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    if kind == "map":
        return "{a: " * depth + "1" + "}" * depth
    return "[{a: " * depth + "1" + "}]" * depth


# Raw YAML that a value may be: what a dumper would never write.
RAW_VALUES = [
    "9" * 4301, "1" + "0" * 5000, "-" + "9" * 20000, "0x" + "f" * 5000, "0o" + "7" * 20000,
    "0b" + "1" * 100_000, "1" + ":59" * 3000, "190:20:30", "1e400", "-1e400", ".nan", ".inf",
    "1" * 5000 + ".5", "0x7fffffffffffffff", "-0", "2001-02-30", "0000-01-01",
    "2001-12-14 23:59:60", "2001-12-14t21:59:43.10-05:00", "!!python/object/apply:os.system "
    "['true']", "!!python/name:os.system ''", "!!python/object:builtins.dict {}",
    "!!binary aGVsbG8=", "!!binary '!!!'", "!!set {a, b}", "!!omap [a: 1, b: 2]",
    "!!pairs [a: 1, a: 2]", "!!timestamp 2001-12-14", "!!timestamp x", "!!float x", "!!int x",
    "!!int ''", "!!bool x", "!!null x", "!!str 1", "!!map {a: 1}", "!!seq [1]", "!!map [1]",
    "!!seq {a: 1}", "!<tag:yaml.org,2002:int> 0x", "!local x", "!!merge x", "=", "*nope",
    "&a [*a]", "&a {k: *a}", "&a [1, [2, *a]]", "{<<: *nope}", "{<<: [1, 2]}", "{<<: 1}",
    "{<<: {a: 1}, a: 2}", "[a, b]", "{a: 1}", "[]", "{}", "''", '""', "~", "null", "yes", "no",
    "on", "off", "'{{ 7*7 }}'", "'{{ self.__init__.__globals__ }}'",
    "'{% for i in range(999999999) %}x{% endfor %}'", "'{{ lipsum.__globals__.os }}'",
    '"\\0"', '"\\ud800"', '"a\\x85b"', '"\\u2028"', '"\\e[31m"', '"a\\nb"', '"\\r"',
    _bomb(10, 9), _bomb(3, 30), _bomb(200, 2),
    _nest("list", 100), _nest("list", 1000), _nest("list", 10_000), _nest("map", 500),
    _nest("map", 3000), _nest("mixed", 400),
]
# Raw YAML that a key may be.
RAW_KEYS = ["[a, b]", "{a: 1}", "[]", "{}", "1", "-1", "1.5", ".nan", "~", "null", "yes",
            "2001-12-14", "'9999'", "9" * 5000, "0x" + "f" * 5000, "*nope", "&k x", "!!binary "
            "aGk=", "!!python/name:os.system ''", "''", '"\\0"', '"\\ud800"', "<<", "'id'",
            "? [a, b]", _nest("list", 1000)]

# Odd strings a value may be: paths out of the pack, names, colours, text.
STRINGS = [
    "", " ", "\t", "\n", "\x00", "a\x00b", "a\x00b.yaml", "\ud800", "a\udfffb", "\u2028",
    "\x85", "\ufeff", "\u202e", "\x1b[31m", "\x7f", "功德", "𝕏", "é" * 3, "../game.yaml",
    "../../../../../../etc/passwd", "/etc/passwd", "/dev/zero", "/dev/urandom", "/dev/stdin",
    "/proc/self/mem", "/tmp", ".", "..", "art", "templates", "game.yaml", "rules.yaml",
    "rulebook.md", "style.css", "nope.yaml", "x" * 300 + ".yaml", "a/" * 200 + "b",
    "file:///etc/passwd", "http://example.com/x.png", "../../templates/cards/card",
    "cards/../../x", "card", "back", "../card", "%s%s%n", "${HOME}", "$(id)", "`id`",
    "<script>alert(1)</script>", "</style><style>", "*/ body {display:none} /*",
    "url(file:///etc/passwd)", "#fff", "#ff", "red", "#12345678", "notacolour", "Noto Serif SC",
    "Nope Font", "a4", "letter", "poker", "tarot", "nope-size", "{{", "}}", "{{ 7*7 }}",
    "{% raw %}", "{#", "{", "}", "{}", "{ }", "{nope}", "{nope.nope}", "{a+}", "{1}", "{-1}",
    "{a." * 3000 + "a}", "{a" + "+a" * 20_000 + "}", "{" * 50_000, "{{" * 10_000,
]


@st.composite
def placeholder(draw: st.DrawFn, pack: str) -> str:
    """A `{rule.path}` of the pack, on its own, in sums, indexed past its end, or unknown."""
    paths = rule_paths(pack)
    p, q = draw(st.sampled_from(paths)), draw(st.sampled_from(paths))
    return draw(st.sampled_from([
        f"{{{p}}}", f"{{ {p} + 1 }}", f"{{{p} - {q}}}", f"{{{p}+{q}+{p}}}", f"{{{p}.0}}",
        f"{{{p}.99999999999999999999}}", f"{{{p}." + "9" * 5000 + "}", f"{{{p}.nope}}",
        f"text {{{p}}} text {{{q}}}", f"{{{{{p}}}}}", f"{{{p}}}" * 200, f"{{{p} + " + "9" * 5000
        + "}", f"{{{p}.{p}}}"]))


def long_text(draw: st.DrawFn) -> str:
    unit = draw(st.sampled_from(["x", "功", "{", "a b ", "\n", "- ", "&a ", "\\"]))
    return unit * draw(st.sampled_from([300, 5000, 100_000, 900_000]))


@st.composite
def snippet(draw: st.DrawFn, pack: str) -> bytes:
    """A piece of text to insert: YAML syntax, a number, a tag, a placeholder, bad bytes."""
    choice = draw(st.integers(0, 9))
    if choice <= 2:
        return draw(st.sampled_from(SYNTAX))
    if choice == 3:
        return draw(st.sampled_from(RAW_VALUES + RAW_KEYS)).encode()
    if choice == 4:
        return draw(st.sampled_from(STRINGS)).encode("utf-8", "surrogatepass")
    if choice == 5:
        return draw(placeholder(pack)).encode()
    if choice == 6:
        return draw(st.sampled_from(BAD_BYTES))
    if choice == 7:
        return long_text(draw).encode()
    if choice == 8:
        return str(draw(st.one_of(st.integers(), st.floats()))).encode()
    return draw(st.text(max_size=12)).encode("utf-8", "surrogatepass")


SYNTAX = [s.encode() for s in [
    "&a ", "*a", "&a", "*a ", "[", "]", "{", "}", ": ", ":", "- ", "-", "? ", ",", "\t",
    "  ", "#", "|", "|-", ">", ">+", "|9", "---\n", "...\n", "%YAML 1.1\n---\n",
    "%TAG ! tag:x,2000:\n", "'", '"', "''", "\\", "!", "!!", "&", "*", "%", "@", "`",
    "<<: *a\n", "<<: ", "&a x\n", "a: &a [1]\nb: *a\n", "\n", "\r", "\r\n", "{{", "}}",
    "{%", "%}", "{#", "{rule.path}", "{ }", "!!python/object:os.system ",
    "!!python/object/apply:os.system ['true']", "!!binary ", "!!set ", "!!int ", "!!float ",
    "!!timestamp ", "!!str ", "!!map ", "!!seq ", "!!omap ", "!!null ", "!!bool ",
    "99999999999999999999", "9" * 4301, "-1", "0", "1e999", ".nan", "0x" + "f" * 40, "1:2:3",
    "2001-02-30", "2001-12-14", "null", "~", "yes", "on", "=",
]]
BAD_BYTES = [b"\x00", b"\xff", b"\xfe", b"\xc3", b"\xed\xa0\x80", b"\xe4\xb8", b"\x80",
             b"\xef\xbb\xbf", b"\xe2\x80\xa8", b"\xc2\x85", b"\x1b", b"\x7f", b"\x0b", b"\x0c",
             b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xff\xfe", b"\xfe\xff\x00a"]


# --- cases ------------------------------------------------------------------------------------


class Case:
    """One mutated pack: the new bytes of some of its files, and how they came about (a plain
    class, so that Hypothesis prints its repr: the edits, not the bytes)."""

    def __init__(self, pack: str, files: tuple[tuple[str, bytes], ...], how: tuple[str, ...]):
        self.pack, self.files, self.how = pack, files, how

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name} ({len(data)} bytes)" for name, data in self.files)
        return f"Case({self.pack}: {sizes}; " + "; ".join(self.how) + ")"


def _short(data: bytes | str) -> str:
    text = repr(data)
    return text if len(text) <= 120 else f"{text[:100]}...{len(data)} long"


def _lines(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line, its newline left out."""
    spans, start = [], 0
    for match in re.finditer(rb"\n", data):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(data)))
    return spans


@st.composite
def text_op(draw: st.DrawFn, data: bytes, pack: str) -> tuple[bytes, str]:
    """One byte- or line-level edit of a file."""
    op = draw(st.sampled_from(["flip", "delete", "repeat", "insert", "line", "value", "value",
                               "key", "drop_line", "copy_line", "swap_lines", "indent"]))
    size = len(data)
    at = draw(st.integers(0, size))
    lines = _lines(data)
    row = draw(st.integers(0, len(lines) - 1))
    start, end = lines[row]
    where = f"line {row + 1}"
    if op == "flip" and size:
        at = min(at, size - 1)
        byte = draw(st.one_of(st.integers(0, 255), st.sampled_from(
            [data[at] ^ (1 << bit) for bit in range(8)])))
        return data[:at] + bytes([byte]) + data[at + 1:], f"byte {at} -> {byte:#04x}"
    if op == "delete":
        n = draw(st.sampled_from([1, 1, 2, 5, 20, 200, size]))
        return data[:at] + data[at + n:], f"delete {n} bytes at {at}"
    if op == "repeat":
        n = draw(st.sampled_from([1, 3, 10, 50, 400]))
        times = draw(st.sampled_from([1, 1, 2, 10, 1000]))
        span = data[at:at + n]
        times = min(times, MAX_FILE // max(1, len(span)))
        return data[:at] + span * (times + 1) + data[at + n:], \
            f"repeat {_short(span)} at {at} {times} more times"
    if op == "insert":
        piece = draw(snippet(pack))
        return data[:at] + piece + data[at:], f"insert {_short(piece)} at byte {at}"
    if op == "line":
        piece = draw(snippet(pack))
        indent = re.match(rb"[ \t-]*", data[start:end])
        pad = indent.group() if indent and draw(st.booleans()) else b""
        return data[:start] + pad + piece + b"\n" + data[start:], \
            f"insert line {_short(pad + piece)} before {where}"
    if op in ("value", "key"):
        text = data[start:end]
        colon = text.find(b": ") if b": " in text else (len(text) - 1 if text.endswith(b":")
                                                         else -1)
        dash = re.match(rb"\s*- ", text)
        piece = draw(snippet(pack)) if draw(st.booleans()) else draw(st.sampled_from(
            RAW_VALUES if op == "value" else RAW_KEYS)).encode()
        if op == "value" and colon >= 0:
            new = text[:colon + 1] + b" " + piece
        elif op == "value" and dash:
            new = text[:dash.end()] + piece
        elif op == "key" and colon >= 0:
            keep = re.match(rb"[ \t]*(- )?", text)
            new = (keep.group() if keep else b"") + piece + text[colon:]
        else:
            new = piece + text
        return data[:start] + new + data[end:], f"{where} {_short(text)} -> {_short(new)}"
    if op == "drop_line":
        return data[:start] + data[min(end + 1, size):], f"delete {where}"
    if op == "copy_line":
        count = draw(st.sampled_from([1, 1, 2, 5]))
        block = data[start:lines[min(row + count, len(lines) - 1)][0]] or data[start:end] + b"\n"
        times = min(draw(st.sampled_from([1, 1, 3, 2000])), MAX_FILE // len(block))
        return data[:start] + block * (times + 1) + data[start + len(block):], \
            f"repeat {count} lines from {where} {times} more times"
    if op == "swap_lines":
        other = draw(st.integers(0, len(lines) - 1))
        (a0, a1), (b0, b1) = sorted([lines[row], lines[other]])
        if a0 == b0:
            return data, "swap a line with itself"
        new = data[:a0] + data[b0:b1] + data[a1:b0] + data[a0:a1] + data[b1:]
        return new, f"swap {where} and line {lines.index((b0, b1)) + 1}"
    if op == "indent":
        change = draw(st.sampled_from([b" ", b"  ", b"\t", b"-", b"    " * 20, b"", b"\t "]))
        text = data[start:end]
        stripped = text.lstrip(b" ") if draw(st.booleans()) else text
        return data[:start] + change + stripped + data[end:], f"indent {where} with {change!r}"
    return data, "nothing"


def _cut(data: bytes, how: list[str], name: str) -> bytes:
    """A file no longer than MAX_FILE."""
    if len(data) <= MAX_FILE:
        return data
    how.append(f"{name}: cut from {len(data)} to {MAX_FILE} bytes")
    return data[:MAX_FILE]


def _weight(pack: str) -> list[str]:
    """The files to mutate, game.yaml and the rules drawn more often than any one deck."""
    names = list(originals(pack))
    main = [n for n in ("game.yaml", "rules.yaml") if n in names]
    return names + main * 4


pack_names = st.sampled_from([DEFAULT_GAME] * 4 + PACKS)


@st.composite
def text_case(draw: st.DrawFn, packs: st.SearchStrategy[str] = pack_names) -> Case:
    """A pack with one or two files mutated at the byte or line level."""
    pack = draw(packs)
    names = draw(st.lists(st.sampled_from(_weight(pack)), min_size=1, max_size=2, unique=True))
    files, how = [], []
    for name in names:
        data = originals(pack)[name]
        for _ in range(draw(st.integers(1, 4))):
            data, done = draw(text_op(data, pack))
            how.append(f"{name}: {done}")
        files.append((name, _cut(data, how, name)))
    return Case(pack, tuple(files), tuple(how))


class Raw(str):
    """YAML text written as it is where the dumper puts this value."""


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


class _PyDumper(yaml.SafeDumper):
    pass


def _dump(data: Any) -> bytes:
    raws: list[str] = []

    def represent_raw(dumper: yaml.SafeDumper, value: Raw) -> yaml.ScalarNode:
        raws.append(str(value))
        return dumper.represent_scalar("tag:yaml.org,2002:str", f"zzraw{len(raws) - 1}zz")

    _Dumper.add_representer(Raw, represent_raw)
    _PyDumper.add_representer(Raw, represent_raw)
    try:
        text = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    except UnicodeEncodeError:  # LibYAML cannot take a lone surrogate; the Python one escapes it
        raws.clear()
        text = yaml.dump(data, Dumper=_PyDumper, allow_unicode=True, sort_keys=False,
                         width=100)
    return re.sub(r"zzraw(\d+)zz", lambda m: raws[int(m.group(1))], text).encode(
        "utf-8", "surrogatepass")


@st.composite
def leaf(draw: st.DrawFn, pack: str) -> Any:
    """A value of another type: None, bool, numbers, odd strings, placeholders, raw YAML."""
    choice = draw(st.integers(0, 11))
    if choice == 0:
        return draw(st.one_of(st.none(), st.booleans()))
    if choice == 1:
        return draw(st.one_of(st.integers(), st.sampled_from(
            [0, -1, -2**63, 2**31, 2**63, 10**18, 10**30, 10**100])))
    if choice == 2:
        return draw(st.floats())
    if choice == 3:
        return draw(st.text(max_size=30))
    if choice <= 5:
        return draw(st.sampled_from(STRINGS))
    if choice == 6:
        return draw(placeholder(pack))
    if choice == 7:
        return long_text(draw)
    if choice <= 9:
        return Raw(draw(st.sampled_from(RAW_VALUES)))
    if choice == 10:
        return draw(st.dates())
    return draw(st.sampled_from(KEYS))


@cache
def value(pack: str) -> st.SearchStrategy[Any]:
    """A leaf, or lists and maps of them."""
    keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=8))
    return st.recursive(leaf(pack), lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)), max_leaves=6)


@st.composite
def new_key(draw: st.DrawFn) -> Any:
    choice = draw(st.integers(0, 4))
    if choice == 0:
        return Raw(draw(st.sampled_from(RAW_KEYS)))
    if choice == 1:
        return draw(st.one_of(st.integers(), st.none(), st.booleans(), st.floats()))
    if choice == 2:
        return draw(st.sampled_from(STRINGS))
    return draw(st.sampled_from(KEYS))


@st.composite
def structure_op(draw: st.DrawFn, root: Any, pack: str) -> str:
    """One edit of loaded YAML, in place: somewhere in it a value replaced, a key deleted,
    renamed or added, an item repeated or an extra one added."""
    parent, key, path = None, None, []
    node = root
    while isinstance(node, dict | list) and node and (
            parent is None or draw(st.integers(0, 3)) > 0):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, keys[draw(st.integers(0, len(keys) - 1))]
        path.append(str(key))
        node = node[key]
    where = ".".join(path) or "the top"
    if parent is None:
        return "nothing (empty file)"
    op = draw(st.sampled_from(["replace", "replace", "replace", "delete", "rename", "add",
                               "repeat", "wrap"]))
    if op == "replace":
        parent[key] = draw(value(pack))
        return f"{where} = {_short(repr(parent[key]))}"
    if op == "delete":
        del parent[key]
        return f"delete {where}"
    if op == "wrap":
        parent[key] = draw(st.sampled_from([[node], {"x": node}, [node, node], [[[node]]]]))
        return f"wrap {where}"
    if op == "repeat" and isinstance(parent, list):
        times = draw(st.sampled_from([1, 2, 50, 3000]))
        parent[key + 1:key + 1] = [copy.deepcopy(node) for _ in range(min(times, 50))] + \
            [node] * max(0, times - 50)
        return f"repeat {where} {times} more times"
    if isinstance(parent, dict):
        name = draw(new_key())
        if op == "rename":
            items = [(name if k == key else k, v) for k, v in parent.items()]
            parent.clear()
            parent.update(items)
            return f"rename {where} to {_short(repr(name))}"
        parent[name] = draw(value(pack))
        return f"add {_short(repr(name))}: {_short(repr(parent[name]))} beside {where}"
    parent.insert(key, draw(value(pack)))
    return f"insert {_short(repr(parent[key]))} at {where}"


@st.composite
def structure_case(draw: st.DrawFn, packs: st.SearchStrategy[str] = pack_names) -> Case:
    """A pack with one or two files loaded, changed in their structure and dumped."""
    pack = draw(packs)
    names = draw(st.lists(st.sampled_from(_weight(pack)), min_size=1, max_size=2, unique=True))
    files, how = [], []
    for name in names:
        data = copy.deepcopy(parsed(pack, name))
        for _ in range(draw(st.integers(1, 3))):
            how.append(f"{name}: {draw(structure_op(data, pack))}")
        files.append((name, _cut(_dump(data), how, name)))
    return Case(pack, tuple(files), tuple(how))


# --- running a case ---------------------------------------------------------------------------


class CaseHung(Exception):
    """A case ran past the timeout; the message says where it was."""


class CaseRaised(Exception):
    """An exception of the case's process that cannot be made again here as its own type."""


class CaseDied(Exception):
    """The case's process died without reporting: a signal, or a result it could not send."""


def _frames(text: str) -> list[tuple[str, int]]:
    """(file, line) of each frame of a traceback or of faulthandler's dump, innermost last."""
    found = [(m[1], int(m[2])) for m in re.finditer(r'File "([^"]+)", line (\d+)', text)]
    return found[::-1] if "most recent call first" in text else found


def _raise_at(exc: Exception, frames: list[tuple[str, int]]) -> None:
    """Raise exc as if from the innermost frame of the case's process (in generator/ if it
    has any), so that Hypothesis tells distinct crashes apart and shrinks each, and pytest
    shows that line."""
    ours = [f for f in frames if f[0].startswith(str(PROJECT_ROOT / "generator"))]
    file, line = (ours or frames or [(__file__, 1)])[-1]
    if frames and frames[-1] != (file, line):
        exc.add_note(f"raised in {frames[-1][0]}:{frames[-1][1]}")
    exec(compile("\n" * (line - 1) + "raise exc", file, "exec"), {"exc": exc})


def _report(exc: BaseException) -> dict[str, Any]:
    """What the case's process sends of an exception it raised."""
    try:
        message = str(exc)
    except Exception:  # str() of a huge int, say
        message = object.__repr__(exc)
    return {"type": type(exc).__name__, "builtin": type(exc).__module__ == "builtins",
            "message": message[:2000],
            "traceback": "".join(traceback.format_exception(exc))[-10_000:]}


def in_child(what: str, run: Callable[[], list[Finding]]) -> list[Finding]:
    """Run `run` in a forked process and return its findings; what it raises is raised here
    from the same line. The process has TIMEOUT seconds (then faulthandler dumps where it is
    and it is killed: CaseHung), an address space capped ADDRESS_SPACE_MB above what it
    starts with (so a runaway is a MemoryError), and its peak resident memory may grow
    MEMORY_MB at most."""
    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as dump:
        rss = _status_kb("VmRSS")
        pid = os.fork()
        if pid == 0:  # the case's process: never returns
            _child(run, read_end, write_end, dump)
        os.close(write_end)
        chunks, started, hung = [], time.monotonic(), False
        with os.fdopen(read_end, "rb", buffering=0) as pipe:
            while True:
                left = started + TIMEOUT - time.monotonic()
                if left <= 0 or not select.select([pipe], [], [], left)[0]:
                    hung = True
                    os.kill(pid, signal.SIGUSR2)  # faulthandler: where it is
                    time.sleep(0.5)
                    os.kill(pid, signal.SIGKILL)
                    break
                chunk = pipe.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        _, status, usage = os.wait4(pid, 0)
        dump.seek(0)
        where = dump.read().decode("utf-8", "replace")
    if hung:
        _raise_at(CaseHung(f"{what}: ran past {TIMEOUT:g} s; where it was:\n{where}"),
                  _frames(where))
    if not chunks:
        died = (f"was killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else
                f"ended with status {status:#x}")
        _raise_at(CaseDied(f"{what}: the process {died} and sent nothing; where it was:\n"
                           f"{where}"), _frames(where))
    grown = usage.ru_maxrss - rss
    assert grown < MEMORY_MB * 1024, \
        f"{what}: the peak resident memory grew by {grown // 1024} MB"
    kind, result = pickle.loads(b"".join(chunks))
    if kind == "findings":
        return result
    error = CaseRaised
    if result["builtin"]:
        builtin = getattr(builtins, result["type"], None)
        if isinstance(builtin, type) and issubclass(builtin, Exception):
            error = builtin
    try:
        exc = error(f"{result['type']}: {result['message']}")
    except Exception:  # UnicodeDecodeError takes five arguments
        exc = CaseRaised(f"{result['type']}: {result['message']}")
    exc.add_note(f"{what}\nin the case's process:\n{result['traceback']}")
    _raise_at(exc, _frames(result["traceback"]))
    raise AssertionError("unreachable")


def _child(run: Callable[[], list[Finding]], read_end: int, write_end: int, dump: Any) -> None:
    """The forked side of in_child: run, send the findings or the exception, exit."""
    try:
        os.close(read_end)
        faulthandler.register(signal.SIGUSR2, file=dump, all_threads=False)
        faulthandler.enable(file=dump, all_threads=False)  # a segfault, say
        cap = (_status_kb("VmSize") + ADDRESS_SPACE_MB * 1024) * 1024
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY
                                                else min(cap, hard), hard))
        try:
            result: tuple[str, Any] = ("findings", run())
        except BaseException as exc:  # everything goes to the parent
            result = ("raised", _report(exc))
        try:
            data = pickle.dumps(result)
        except Exception as exc:  # a finding that does not pickle
            data = pickle.dumps(("raised", _report(exc)))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
    finally:
        os._exit(0)


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def validate_in_process(name: str, cards: Path) -> list[Finding]:
    """What `pnp validate` finds before laying out: load, validate, each kind's check, then
    each kind's plan (a kind that cannot plan raises PackError, as in validate_game). Any
    exception but PackError is raised."""
    try:
        checked = check(name, cards)
    except PackError as exc:
        return list(exc.findings)
    findings = list(checked.findings)
    for kind in checked.kinds:
        try:
            for document in kind.plan():
                document.every_part()
        except PackError as exc:
            findings += exc.findings
    return findings


def named_file(path: str) -> bytes | None:
    """The content of the file a finding names, or None when it names no regular file."""
    file = Path(path) if Path(path).is_absolute() else PROJECT_ROOT / path
    try:
        return file.read_bytes() if file.is_file() else None
    except (OSError, ValueError):
        return None


def finding_problems(findings: list[Finding]) -> list[str]:
    """What is wrong with each finding: an unknown code, no path, no line (or one past the
    end) in a file that has lines, or a text that is not one printable line."""
    problems = []
    line_counts: dict[str, int] = {}  # of each file named: 0 when it is none, or empty
    for finding in findings:
        text = str(finding)
        if finding.code not in CODES:
            problems.append(f"unknown code: {text}")
        if not finding.path:
            problems.append(f"no path: {text}")
        if finding.path not in line_counts:
            data = named_file(finding.path) if finding.path else None
            line_counts[finding.path] = len(YAML_BREAK.split(data)) if data else 0
        lines = line_counts[finding.path]
        if lines:
            if not isinstance(finding.line, int) or finding.line < 1:
                problems.append(f"no line in a file of {lines} lines: {text}")
            elif finding.line > lines + 1:
                problems.append(f"line {finding.line} past the end ({lines} lines): {text}")
        if "\n" in text or "\r" in text:
            problems.append(f"spans lines: {text!r}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            problems.append(f"cannot be printed as UTF-8: {text!r}")
    return problems


@contextmanager
def applied(cards: Path, case: Case) -> Iterator[None]:
    """The case's files written into the copied pack, the originals put back after."""
    pack = cards / case.pack
    try:
        for name, data in case.files:
            (pack / name).write_bytes(data)
        yield
    finally:
        for name, _ in case.files:
            (pack / name).write_bytes(originals(case.pack)[name])


def run_case(cards: Path, case: Case) -> list[str]:
    """Validate a mutated pack in a forked process, bounded; the problems of its findings. A
    crash, a hang or too much memory is raised."""
    with applied(cards, case):
        findings = in_child(repr(case), lambda: validate_in_process(case.pack, cards))
        return finding_problems(findings)


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every real pack copied into tmp once, each validated once (so the first example does
    not pay for loading fonts and templates)."""
    root = tmp_path_factory.mktemp("fuzz")
    for pack in PACKS:
        copy_real_pack(root, pack)
    shutil.copytree(FIXTURES / SMALL, root / "cards" / SMALL)
    for pack in PACKS:
        validate_in_process(pack, root / "cards")
    return root / "cards"


def _check_case(cards: Path, case: Case) -> None:
    problems = run_case(cards, case)
    assert not problems, "\n".join(problems)


def test_real_packs_pass_the_fuzz_checks(cards: Path) -> None:
    """Unchanged, every real pack validates with sound findings: what the fuzz tests start
    from is not already broken."""
    for pack in PACKS:
        _check_case(cards, Case(pack, (), ("unchanged",)))


@fuzz_settings(quick=25, share=0.5)
@given(case=text_case())
def test_fuzzed_text_gives_findings_not_crashes(cards: Path, case: Case) -> None:
    _check_case(cards, case)


@fuzz_settings(quick=25, share=0.5)
@given(case=structure_case())
def test_fuzzed_structure_gives_findings_not_crashes(cards: Path, case: Case) -> None:
    _check_case(cards, case)


@pytest.mark.parametrize("how", ["sparse", "dev-zero", "fifo"])
def test_a_huge_or_endless_file_is_not_read_whole(cards: Path, how: str) -> None:
    """A deck file of 3 GB (sparse, so cheap to make), one naming /dev/zero, and one that is
    a FIFO no one writes to: findings, within the time and memory bounds, like any case."""
    pack = cards / DEFAULT_GAME
    deck = pack / "beings.yaml"
    game = originals(DEFAULT_GAME)["game.yaml"]
    case = Case(DEFAULT_GAME, (), (how,))
    try:
        if how == "sparse":
            with deck.open("r+b") as file:
                file.truncate(3 << 30)
        elif how == "dev-zero":
            case = Case(DEFAULT_GAME, (("game.yaml", game.replace(
                b"file: beings.yaml", b"file: /dev/zero", 1)),), (how,))
        else:
            deck.unlink()
            os.mkfifo(deck)
        _check_case(cards, case)
    finally:
        deck.unlink()
        deck.write_bytes(originals(DEFAULT_GAME)["beings.yaml"])


# --- the command line, end to end ---------------------------------------------------------------


def _edits(*edits: tuple[str, str, bytes]) -> Case:
    """The tiny pack with each (file, old, new) edit made, for the command line's fixed
    examples."""
    files: dict[str, bytes] = {}
    for file, old, new in edits:
        data = files.get(file, originals(SMALL)[file])
        assert old.encode() in data, old
        files[file] = data.replace(old.encode(), new, 1)
    return Case(SMALL, tuple(files.items()),
                tuple(f"{file}: {old!r} -> {_short(new)}" for file, old, new in edits))


# A UTF-8 terminal: what cannot be encoded is an error, as it would be for a designer.
CLI_ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHONIO")},
           "LC_ALL": "C.UTF-8", "PYTHONUTF8": "0"}


def _limit_memory() -> None:
    cap = 4096 * 1024 * 1024  # WeasyPrint and its workers map much more than they use
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def cli_problems(cards: Path, out: Path, case: Case) -> list[str]:
    """Run `pnp validate` on the mutated pack in a subprocess: its exit code must be 0 or 1,
    and every line it prints a finding, the summary or a `pnp:` message, with no traceback."""
    with applied(cards, case):
        try:
            run = subprocess.run(
                [sys.executable, "-m", "generator.cli", "--cards", str(cards), "validate",
                 case.pack, "--out", str(out)], capture_output=True, cwd=PROJECT_ROOT,
                timeout=TIMEOUT * 6, preexec_fn=_limit_memory, env=CLI_ENV)
        except subprocess.TimeoutExpired:
            return [f"pnp validate ran past {TIMEOUT * 6:g} s"]
        problems = []
        if run.returncode not in (0, 1):
            problems.append(f"exit code {run.returncode}")
        for stream, raw in (("stdout", run.stdout), ("stderr", run.stderr)):
            text = raw.decode("utf-8", "replace")
            if "Traceback" in text:
                problems.append(f"a traceback on {stream}:\n{text[-3000:]}")
                continue
            for line in text.splitlines():
                match = FINDING_LINE.match(line)
                if match:
                    if match["line"] is None and named_file(match["path"]):
                        problems.append(f"{stream}: a finding with no line: {line}")
                elif not (SUMMARY_LINE.match(line) or line.startswith("pnp: ")):
                    problems.append(f"{stream}: not a finding: {_short(line)}")
        return problems


@fuzz_settings(quick=1, share=0.01)
@given(case=st.one_of(text_case(st.just(SMALL)), structure_case(st.just(SMALL))))
@example(case=_edits(("game.yaml", "title:", b"deep: " + _nest("list", 5000).encode()
                      + b"\ntitle:")))
@example(case=_edits(("game.yaml", "\n", b"\nhuge: " + b"9" * 5000 + b"\n")))
@example(case=_edits(("spells.yaml", "- id: S1", b"- [a, b]: 1\n  id: S1"),
                     ("spells.yaml", "name: 治疗术", b'name: "\\ud800 {nope.nope}"\n  nam: x'),
                     ("spells.yaml", "qty: 2", b"qty: 1000000000000")))
@example(case=_edits(("spells.yaml", "name: 冰冻术", b"name: \xff\xfe")))
@pytest.mark.slow  # a process of its own for each example, WeasyPrint imported in each
def test_pnp_validate_on_fuzzed_packs(cards: Path, tmp_path_factory: pytest.TempPathFactory,
                                      case: Case) -> None:
    out = tmp_path_factory.getbasetemp() / "fuzz-cli-out"  # shared: parts laid out once
    problems = cli_problems(cards, out, case)
    assert not problems, "\n".join(problems)

