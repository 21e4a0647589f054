"""The rules data: one file of numbers that card text quotes as {path} and templates read."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from typing import Any

from ..check.findings import Finding

_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*"
PLACEHOLDER = re.compile(r"\{\s*(" + _NAME + r"(?:\s*[-+]\s*(?:" + _NAME + r"|\d+))*)\s*\}")
_TERM = re.compile(r"([-+]?)\s*(" + _NAME + r"|\d+)")


class RuleError(ValueError):
    """A placeholder that names no rule, or does arithmetic on something not a number."""

    code = "E007"


class NumberTooLong(RuleError):
    """A placeholder adds a number longer than the limit of digits."""

    code = "E006"


def plain(data: Any) -> Any:
    """Copy YAML data into plain dicts and lists, dropping line bookkeeping."""
    if isinstance(data, dict):
        return {key: plain(value) for key, value in data.items()}
    if isinstance(data, list):
        return [plain(value) for value in data]
    return data


def lookup(rules: Any, path: str) -> Any:
    """The value at a dotted path such as 'actions.labor.gain' or 'refuge.timing.0.merit'."""
    current, walked = rules, list[str]()
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and len(part) < 10 \
                and int(part) < len(current):
            current = current[int(part)]
        else:
            where = f"{'.'.join(walked)} has" if walked else "the rules have"
            known = ", ".join(str(k) for k in current) if isinstance(current, dict) else ""
            hint = f" (known: {known})" if known else ""
            raise RuleError(f"unknown rule '{path}': {where} no '{part}'{hint}")
        walked.append(part)
    return current


def evaluate(rules: Any, expression: str, digits: int = 12) -> Any:
    """Value of 'path', or of a sum such as 'a.b + c.d - 1' whose terms are numbers, none of
    them written with more than `digits` digits."""
    terms = _TERM.findall(expression)
    if len(terms) == 1 and not terms[0][0]:
        return lookup(rules, terms[0][1])
    total: int | float = 0
    for sign, term in terms:
        if term.isdigit() and len(term) > digits:
            raise NumberTooLong(f"a number of {len(term)} digits, over the limit of {digits} "
                                "(`limits: integer_digits` in game.yaml)")
        value = int(term) if term.isdigit() else lookup(rules, term)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RuleError(f"rule '{term}' is not a number, so '{expression}' cannot add it")
        total = total - value if sign == "-" else total + value
    return total


def expand(text: str, rules: Any, digits: int = 12) -> Any:
    """Fill every {placeholder} in text; a text that is one placeholder keeps its value's type."""
    whole = PLACEHOLDER.fullmatch(text.strip())
    if whole:
        return evaluate(rules, whole.group(1), digits)
    return PLACEHOLDER.sub(lambda match: str(evaluate(rules, match.group(1), digits)), text)


def _items(data: Any, line: int) -> Iterator[tuple[Any, int]]:
    """The keys or indexes of a loaded mapping or list, each with its line."""
    if isinstance(data, dict):
        lines = getattr(data, "lines", {})
        yield from ((key, lines.get(key, line)) for key in data)
    elif isinstance(data, list):
        lines = getattr(data, "lines", [])
        yield from ((i, lines[i] if i < len(lines) else line) for i in range(len(data)))


def strings(data: Any, line: int = 0) -> Iterator[tuple[int, str]]:
    """Every string value in loaded YAML, with the line of its key or item."""
    for key, key_line in _items(data, line):
        value = data[key]
        if isinstance(value, str):
            yield key_line, value
        else:
            yield from strings(value, key_line)


def expand_tree(data: Any, rules: Any, where: str, findings: list[Finding], line: int = 0,
                digits: int = 12) -> Any:
    """Expand placeholders in every string of loaded YAML, in place; problems become findings.
    A number a placeholder adds may have at most `digits` digits."""
    for key, key_line in list(_items(data, line)):
        value = data[key]
        if isinstance(value, str) and "{" in value:
            try:
                data[key] = expand(value, rules, digits)
            except RuleError as exc:
                findings.append(Finding(where, key_line, str(exc), code=exc.code))
        else:
            expand_tree(value, rules, where, findings, key_line, digits)
    return data


def match_rules(rules: Any, pattern: str) -> list[str]:
    """Dotted paths of the rules a pattern names; a segment may hold * (actions.*.cost)."""
    found = [("", rules)]
    for part in pattern.split("."):
        step = []
        for prefix, value in found:
            keys = (value.keys() if isinstance(value, dict) else
                    (str(i) for i in range(len(value))) if isinstance(value, list) else ())
            for key in keys:
                if fnmatch.fnmatchcase(str(key), part):
                    child = value[int(key)] if isinstance(value, list) else value[key]
                    step.append((f"{prefix}.{key}" if prefix else str(key), child))
        found = step
    return [path for path, _ in found]
