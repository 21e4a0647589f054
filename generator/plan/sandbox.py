"""Jinja for a pack's templates: a sandbox that runs no Python, reads only the pack's own and
the project's templates, and stops a template that runs too long or writes too much.

Card templates, the rulebook's Markdown and its macros come from whoever made the pack, so
they render in Jinja's sandbox: no attribute that starts with `_`, no Python internals, and no
operator, filter or call that builds a huge string or number at once. (A template may still
fill a dict or list of its own, as `names.update(...)` does: that changes nothing outside the
render.) Time and output are bounded by the game's `limits`: each render's, and the time of
all the renders of one loaded pack, so a pack of a thousand slow cards stops within its budget.
"""

from __future__ import annotations

import math
import os
import re
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment

from .. import TEMPLATES_DIR
from ..check.findings import Finding, about, display_path
from ..pack.files import FileRefused, inside, read_text
from ..pack.schema import GameSpec, Limits

MAX_TRUSTED = 1 << 30  # the project's templates are read whatever the pack's limit
TEMPLATE_SUFFIXES = (".j2", ".md")  # the files whose frames locate a template's line
LEAST_SECONDS = 0.001  # less left of a pack's time than this is none: the timer cannot be set
_FORMAT_WIDTH = re.compile(r"%[-#0 +]*(\*|\d{5,})|%[-#0 +]*\d*\.(\*|\d{5,})")


class TemplateRefused(jinja2.TemplateError):
    """A template the pack names that may not be read: outside the pack, not a regular file,
    or too large."""

    def __init__(self, refused: FileRefused):
        super().__init__(refused.message)
        self.code = refused.code


class TemplateLimit(Exception):
    """A template ran past the time or output the game's limits allow."""


class PackLoader(jinja2.BaseLoader):
    """Templates from a list of folders, the first that has one winning; a template must be a
    regular file inside its folder (a symlink out is refused) and no larger than the limit."""

    def __init__(self, roots: Sequence[Path], max_bytes: int, trusted: Path = TEMPLATES_DIR):
        self.roots = [root.resolve() for root in roots]  # one made later is seen (watch)
        self.max_bytes = max_bytes
        self.trusted = trusted.resolve()  # the project's own templates: no size limit

    def get_source(self, environment: jinja2.Environment,
                   template: str) -> tuple[str, str, Callable[[], bool]]:
        """The source of the first folder's `template`, its path, and whether it is unchanged."""
        pieces = split_template_path(template)  # `..` is refused as not found
        for root in self.roots:
            path = root.joinpath(*pieces)
            if not os.path.lexists(path):
                continue
            try:
                name = display_path(path)
                limit = self.max_bytes if root != self.trusted else MAX_TRUSTED
                source = read_text(inside(path, [root], name=name), limit, name=name)
            except FileRefused as exc:
                raise TemplateRefused(exc) from None
            mtime = path.stat().st_mtime
            return source, str(path), lambda path=path, mtime=mtime: _unchanged(path, mtime)
        raise jinja2.TemplateNotFound(template)


def _unchanged(path: Path, mtime: float) -> bool:
    try:
        return path.stat().st_mtime == mtime
    except OSError:
        return False


@contextmanager
def reading(env: jinja2.Environment, obj: Any) -> Iterator[set[str]]:
    """The names a render reads of `obj` (`card.cost`, `card['cost']`), while it runs."""
    read: set[str] = set()
    watched = env.watched if isinstance(env, PackSandbox) else {}
    watched[id(obj)] = read
    try:
        yield read
    finally:
        watched.pop(id(obj), None)


WHOLE = frozenset({"items", "values", "keys", "get", "__iter__", "__len__", "__contains__"})


def rule_paths(rules: Any, path: str = "", found: dict[int, str] | None = None
               ) -> dict[int, str]:
    """Every mapping and list in the rules, by id, with its dotted path."""
    found = {} if found is None else found
    if isinstance(rules, dict | list):
        found[id(rules)] = path
        items = rules.items() if isinstance(rules, dict) else enumerate(rules)
        for key, value in items:
            rule_paths(value, f"{path}.{key}" if path else str(key), found)
    return found


@contextmanager
def tracing(env: jinja2.Environment, paths: dict[int, str]) -> Iterator[set[str]]:
    """The dotted paths of the rules a render reads while it runs: each value it reads, and
    each mapping or list it iterates or searches, whole. `paths` is `rule_paths(rules)`."""
    read: set[str] = set()
    if isinstance(env, PackSandbox):
        env.traced = (paths, read)
    try:
        yield read
    finally:
        if isinstance(env, PackSandbox):
            env.traced = None


class PackSandbox(SandboxedEnvironment):
    """Jinja's sandbox, with the operators that could build a huge value checked first."""

    intercepted_binops = frozenset(["*", "**", "%"])

    def __init__(self, max_output: int, **options: Any):
        super().__init__(**options)
        self.max_output = max_output
        self.watched: dict[int, set[str]] = {}  # by id(object): the names read of it
        self.traced: tuple[dict[int, str], set[str]] | None = None  # the rules' paths read
        for name in ("lipsum", "cycler", "joiner"):  # nothing a card needs, and a way in
            self.globals.pop(name, None)
        self.filters["center"] = self._bounded(self.filters["center"])
        self.filters["indent"] = self._bounded(self.filters["indent"])
        self.filters["format"] = self._formatting(self.filters["format"])

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any,
                   right: Any) -> Any:
        """`*` that repeats past the output limit, `**` past a few thousand bits and `%` with
        a huge width are refused before they run."""
        if operator == "*":
            for times, repeated in ((left, right), (right, left)):
                if isinstance(times, int) and isinstance(repeated, str | list | tuple) \
                        and times * len(repeated) > self.max_output:
                    raise SecurityError("a repetition past the template's output limit")
        elif operator == "**" and _huge_power(left, right):
            raise SecurityError(f"the power {left!r} ** {right!r} is too large")
        elif operator == "%" and isinstance(left, str) and _FORMAT_WIDTH.search(left):
            raise SecurityError("a format width or precision of 10,000 or more")
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`obj.attribute`, noted when `obj` is watched or is part of the rules traced."""
        if id(obj) in self.watched:
            self.watched[id(obj)].add(attribute)
        value = super().getattr(obj, attribute)
        if self.traced is not None and id(obj) in self.traced[0]:
            self._trace(obj, attribute, value)
        return value

    def getitem(self, obj: Any, argument: Any) -> Any:
        """`obj[argument]`, noted when `obj` is watched and `argument` is a name, or when
        `obj` is part of the rules traced."""
        if id(obj) in self.watched and isinstance(argument, str):
            self.watched[id(obj)].add(argument)
        value = super().getitem(obj, argument)
        if self.traced is not None and id(obj) in self.traced[0]:
            self._trace(obj, argument, value)
        return value

    def _trace(self, obj: Any, name: Any, value: Any) -> None:
        """Note the rules path read: a value's own, or its mapping's or list's whole when it is
        iterated or searched; a mapping reached on the way is noted by what is read of it."""
        paths, read = self.traced or ({}, set())
        base = paths[id(obj)]
        if isinstance(name, str) and name in WHOLE and callable(value):
            read.add(base)
        elif not isinstance(value, dict):
            read.add(f"{base}.{name}" if base else str(name))

    def call(__self, __context: jinja2.runtime.Context, __obj: Any,  # noqa: N805
             *args: Any, **kwargs: Any) -> Any:
        """A call given a number past the output limit (`'x'.ljust(10**9)`) is refused."""
        for value in (*args, *kwargs.values()):
            if isinstance(value, int) and abs(value) > __self.max_output:
                raise SecurityError(f"a call with the number {value}, past the template's "
                                    "output limit")
        return super().call(__context, __obj, *args, **kwargs)

    def _bounded(self, fill: Callable[..., Any]) -> Callable[..., Any]:
        """A filter whose width argument may not pass the output limit."""

        def bounded(value: Any, width: Any = 80, *args: Any, **kwargs: Any) -> Any:
            if isinstance(width, int) and abs(width) > self.max_output:
                raise SecurityError(f"a width of {width}, past the template's output limit")
            return fill(value, width, *args, **kwargs)

        return bounded

    @staticmethod
    def _formatting(fill: Callable[..., Any]) -> Callable[..., Any]:
        def formatting(value: Any, *args: Any, **kwargs: Any) -> Any:
            if _FORMAT_WIDTH.search(str(value)):
                raise SecurityError("a format width or precision of 10,000 or more")
            return fill(value, *args, **kwargs)

        return formatting


def _huge_power(base: Any, exponent: Any) -> bool:
    """Whether base ** exponent would be a number of more than 4,096 bits."""
    if not isinstance(base, int | float) or not isinstance(exponent, int | float):
        return False
    if isinstance(exponent, float) or isinstance(base, float) or abs(base) < 2:
        return False
    return exponent * math.log2(abs(base)) > 4096


def environment(roots: Sequence[Path], limits: Limits, **options: Any) -> PackSandbox:
    """A sandboxed environment loading templates from `roots`, the first that has one winning;
    a missing value is an error, never a blank."""
    return PackSandbox(
        max_output=int(limits.template_output_mb * 1_000_000),
        loader=PackLoader(roots, limits.file_bytes),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        **options,
    )


def render(template: jinja2.Template, limits: Limits, **context: Any) -> str:
    """A template's output, stopped with TemplateLimit when it runs past the game's time or
    output limit. A pack's renders (each given its loaded `game`) share its total time: once
    it is spent, each later render fails at once."""
    budget = int(limits.template_output_mb * 1_000_000)
    game = context.get("game")
    pack = game if isinstance(game, GameSpec) else None  # the calibration page has none
    left = math.inf if pack is None else limits.template_seconds_total - _spent.get(id(pack), 0)
    total = f"{limits.template_seconds_total:g} s"
    named = "(`limits: template_seconds_total` in game.yaml)"
    if left < LEAST_SECONDS:
        raise TemplateLimit(f"is not rendered: the pack's templates have taken the {total} they "
                            f"may take in all {named}")
    if left < limits.template_seconds:
        seconds, past = left, f"runs past the {total} all the pack's templates may take {named}"
    else:
        seconds = limits.template_seconds
        past = f"runs past {seconds:g} s (`limits: template_seconds` in game.yaml)"
    chunks, size = [], 0
    started = time.monotonic()
    try:
        with _deadline(seconds, past):
            for chunk in template.generate(**context):
                size += len(chunk)
                if size > budget:
                    raise TemplateLimit(f"writes more than {limits.template_output_mb:g} MB "
                                        "(`limits: template_output_mb` in game.yaml)")
                chunks.append(chunk)
    finally:
        if pack is not None:
            _charge(pack, time.monotonic() - started)
    return "".join(chunks)


_spent: dict[int, float] = {}  # by id(a loaded pack's GameSpec): the seconds its renders took


def _charge(pack: GameSpec, seconds: float) -> None:
    """Add a render's time to its pack's; forgotten with the pack, so a pack loaded again (the
    next build in `pnp watch`, the next test) starts anew."""
    if id(pack) not in _spent:
        weakref.finalize(pack, _spent.pop, id(pack), None)
    _spent[id(pack)] = _spent.get(id(pack), 0.0) + seconds


@contextmanager
def _deadline(seconds: float, past: str) -> Iterator[None]:
    """Raise TemplateLimit(past) in the block once `seconds` have passed (main thread,
    POSIX)."""
    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TemplateLimit(past)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def template_line(exc: BaseException) -> tuple[str | None, int]:
    """The template file and line an error came from (Jinja rewrites tracebacks so that its
    frames carry them); (None, 0) when no template frame is found."""
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.filename:
        return exc.filename, exc.lineno
    found: tuple[str | None, int] = (None, 0)
    tb = exc.__traceback__ or sys.exc_info()[2]
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith(TEMPLATE_SUFFIXES):
            found = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def failure(exc: Exception, where: tuple[str, int], subject: str, code: str,
            card: str = "") -> Finding:
    """The finding for a template that fails: a sandbox breach or a limit (E062) at the
    template's own line, a refused file at its own code, a syntax error (or any error, when
    `where` has no line) at the template's line; for a `card`, any error in a template of the
    pack's at that template's line too; anything else as `code` at `where` with the
    template's line named (the card's data, which a template of the project's fails on). At
    the template's line, the card is named: one mistake with its other cards' (`told`)."""
    if isinstance(exc, TemplateRefused):
        return Finding(where[0], where[1], f"{subject}{exc.message}", code=exc.code)
    filename, line = template_line(exc)
    message = exc.message if isinstance(exc, jinja2.TemplateError) and exc.message else str(exc)

    def at_template(text: str, code: str) -> Finding:
        return Finding(display_path(filename or ""), line, f"{subject}{about(card)}{text}",
                       code, card)

    if isinstance(exc, SecurityError | TemplateLimit):
        prefix = "the sandbox refuses this: " if isinstance(exc, SecurityError) else "it "
        return at_template(f"{prefix}{message}", "E062") if filename else \
            Finding(where[0], where[1] or 1, f"{subject}{prefix}{message}", code="E062")
    if filename and (isinstance(exc, jinja2.TemplateSyntaxError) or not where[1] or (
            card and not Path(filename).resolve().is_relative_to(TEMPLATES_DIR.resolve()))):
        return at_template(message, code)
    named = f" (template {display_path(filename)}:{line})" if filename else ""
    return Finding(where[0], where[1], f"{subject}{message}{named}", code=code)
