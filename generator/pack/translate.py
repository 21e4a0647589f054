"""Stage 1, load: a game's other languages. What a pack holds to be translated (`Unit`), what
its translations hold (`Entry`, from translations/<language>.yaml and a spreadsheet's
`<field>@<language>` columns), and the hash that tells a translation made from an older text."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from ..text.icons import NAME as ICON_NAME
from .rules import PLACEHOLDER
from .schema import GameSpec

TRANSLATIONS = "translations"  # the pack's folder of translations/<language>.yaml
_ICON = re.compile(rf":{ICON_NAME}:")


def languages(spec: GameSpec) -> list[str]:
    """Every language the game ships in, its source first."""
    return list(spec.languages) or [spec.language]


def source_hash(text: str) -> str:
    """The short hash a translation records of the source text it was made from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def translatable(text: str) -> bool:
    """Whether a source text asks for a translation: a letter outside its placeholders and
    icons (`{crew.pilot.cost}` and `2–4` do not)."""
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
