"""The language tables: every word the shared templates print, in the pack's language.

`templates/lang/<language>.yaml` holds a table per language (`en`, `zh-CN`, `ja`, `he`, …);
game.yaml's `language` picks one, its `words:` overrides any entry, and the templates see the
result as `words`. The calibration page, which belongs to no pack, has its own `calibrate`
section. A language written right to left gives its pages `dir="rtl"` (`direction`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import TEMPLATES_DIR
from ..check.findings import Finding
from ..data import read_data_yaml

if TYPE_CHECKING:
    from ..pack.schema import GameSpec
    from .fonts import FontRegistry

LANG_DIR = TEMPLATES_DIR / "lang"
FALLBACK = "en"  # the table behind every other, and the one a language without a table gets
PAGE_ONLY = ("calibrate", "changelog")  # sections of a table that are not words a card prints
# Languages written right to left (ISO 639 codes), and the scripts that are (ISO 15924), for a
# tag such as `az-Arab`.
RTL_LANGUAGES = {"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ps", "sd", "syr", "ug", "ur",
                 "yi"}
RTL_SCRIPTS = {"adlm", "arab", "hebr", "mand", "nkoo", "rohg", "samr", "syrc", "thaa"}


def languages() -> list[str]:
    """The languages that have a table."""
    return sorted(path.stem for path in LANG_DIR.glob("*.yaml"))


def table_name(language: str) -> str | None:
    """The table for a language tag: its own (any case), else its primary subtag's (`en-GB`
    takes `en`); None when there is neither."""
    known = {name.lower(): name for name in languages()}
    tag = language.strip().replace("_", "-").lower()
    return known.get(tag) or known.get(tag.split("-")[0])


def direction(language: str) -> str:
    """The direction a language is written in: "rtl" (Hebrew, Arabic, `az-Arab`) or "ltr"."""
    subtags = language.strip().replace("_", "-").lower().split("-")
    script = next((tag for tag in subtags[1:] if len(tag) == 4 and tag.isalpha()), None)
    if script is not None:
        return "rtl" if script in RTL_SCRIPTS else "ltr"
    return "rtl" if subtags[0] in RTL_LANGUAGES else "ltr"


def _table(name: str) -> dict[str, Any]:
    """One table as written, read afresh (`pnp watch` sees an edit)."""
    return dict(read_data_yaml(LANG_DIR / f"{name}.yaml"))


def table(language: str) -> dict[str, str]:
    """The words of a language's table, English where it has none or lacks a word."""
    words = {key: value for key, value in _table(FALLBACK).items() if key not in PAGE_ONLY}
    name = table_name(language)
    if name is not None and name != FALLBACK:
        words.update((key, value) for key, value in _table(name).items() if key in words)
    return {key: str(value) for key, value in words.items()}


def pack_words(spec: GameSpec) -> dict[str, str]:
    """The words a pack's pages print: its language's table, under the `contents`, `back`
    and `gallery` headings its `rulebook` gives, under its `words:`."""
    words = table(spec.language)
    rulebook = spec.rulebook
    given = {"contents": rulebook.contents, "back": rulebook.back,
             "gallery": rulebook.gallery if isinstance(rulebook.gallery, str) else None}
    words.update((key, value) for key, value in given.items() if value is not None)
    words.update((key, value) for key, value in spec.words.items() if key in words)
    return words


def section_words(language: str, section: str) -> dict[str, str]:
    """The words of one section of the tables (`calibrate`, `changelog`) in a language,
    English where its table has none."""
    name = table_name(language) or FALLBACK
    words = dict(_table(FALLBACK)[section])
    words.update(_table(name).get(section, {}))
    return {key: str(value) for key, value in words.items()}


def calibration_words(language: str) -> dict[str, str]:
    """The calibration page's words in a language (English where its table has none)."""
    return section_words(language, "calibrate")


def check_words(spec: GameSpec, where: str, line: Callable[[tuple[str | int, ...]], int]
                ) -> list[Finding]:
    """game.yaml's `words:` names only words the templates print (E010 at the key's line),
    its `language` has a table, or `words:` gives every word (W027 at its line), and the
    fonts of each of its languages are installed (E135); `line` gives the line of a key in
    game.yaml."""
    known = sorted(table(FALLBACK))
    found = [Finding(where, line(("words", key)),
                     f"unknown field 'words.{key}' (accepted: {', '.join(known)})", "E010")
             for key in spec.words if key not in known]
    missing = [key for key in known if key not in spec.words]
    if table_name(spec.language) is None and missing:
        found.append(Finding(where, line(("language",)),
                             f"language '{spec.language}' has no table in templates/lang/ "
                             f"(known: {', '.join(languages())}), so the shared templates "
                             f"print English for: {', '.join(missing)} (give them in "
                             "`words:`)", "W027"))
    return found + check_fonts(spec, where, line)


DISTRIBUTION = "pnp-generator"  # pyproject.toml's project name, for `pip install`


def check_fonts(spec: GameSpec, where: str, line: Callable[[tuple[str | int, ...]], int]
                ) -> list[Finding]:
    """Each language of the pack whose faces come from an optional extra has it installed
    (E135 at its `language` or `languages` line, naming the extra)."""
    from .fonts import load_fonts

    fonts = load_fonts()
    given = getattr(spec, "languages", None) or []  # `languages:`, where the pack has it
    tags: list[tuple[str, tuple[str | int, ...]]] = [(spec.language, ("language",))]
    tags += [(tag, ("languages", index)) for index, tag in enumerate(given)]
    found: list[Finding] = []
    told: set[str] = set()
    for tag, key in tags:
        message = fonts_missing(fonts, tag)
        if message is not None and tag not in told:
            told.add(tag)
            found.append(Finding(where, line(key), message, "E135"))
    return found


def fonts_missing(fonts: FontRegistry, language: str) -> str | None:
    """What stops a language's text from printing when its fonts' extra is not installed,
    and the `pip install` that fixes it; None when nothing does."""
    entry = fonts.needs_extra(language)
    if entry is None:
        return None
    return (f"language '{language}' needs the {entry.name} fonts, which are not installed: "
            f"pip install '{DISTRIBUTION}[{entry.extra}]'")
