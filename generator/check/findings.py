"""Designer-facing problems: findings that name a file and a line, never a traceback.

Every problem a build or `pnp validate` can report has a code in CODES, with its level and
what it means; the table of docs/reference/findings.md is checked against this one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

from .. import PROJECT_ROOT


class Code(NamedTuple):
    """What a finding's code means: its level, what it checks in one line, and what it does
    to the rest of the build: the layout an error stops (`stops`: of its card, its deck or
    every deck), the code whose findings it makes redundant (`hides`), and whether a card's
    finding is told at its deck's entry, one mistake with the other cards' there whatever
    its message (`grouped`: see `mistake`)."""

    level: str
    meaning: str
    stops: str = ""
    hides: str = ""
    grouped: bool = False


CODES: dict[str, Code] = {
    "E001": Code("error", "a file the pack names, or the game itself, is missing or unreadable"),
    "E002": Code("error", "YAML syntax (Python tags included: YAML is read safely)"),
    "E003": Code("error", "a key appears twice in one YAML mapping"),
    "E004": Code("error", "game.yaml is empty"),
    "E005": Code("error", "a file has the wrong shape: a deck is a list of cards, a card and "
                 "the rules are mappings",
                 stops="deck"),
    "E006": Code("error", "a limit is crossed: a file's size, YAML aliases or nesting, an "
                 "integer's size, a qty, a deck's copies, a die count (game.yaml `limits`)",
                 stops="card deck game"),
    "E007": Code("error", "a `{placeholder}` names no rule, or adds something not a number"),
    "E010": Code("error", "the schema: a type, a required field, or an unknown key (the "
                 "accepted keys are listed)"),
    "E011": Code("error", "game.yaml's `suppress` names a code pnp does not have, or an error "
                 "(only warnings can be silenced)"),
    "E020": Code("error", "two decks have the same id", stops="deck"),
    "E021": Code("error", "a deck's size is not in print.yaml nor the pack's `sizes`",
                 stops="deck"),
    "E022": Code("error", "a deck's or a back's template does not exist", stops="deck game"),
    "E023": Code("error", "a deck's back does not exist, or a double-sided deck names one",
                 stops="deck game"),
    "E024": Code("error", "a field spec is incomplete: a ref without its deck or table, a "
                 "choice without choices",
                 stops="deck"),
    "E025": Code("error", "a font family is not in fonts/fonts.yaml nor the pack's `font_files`",
                 stops="game"),
    "W026": Code("warning", "a deck declares a field its card template never prints "
                 "(`printed: false` on a field that is only data)"),
    "W027": Code("warning", "game.yaml's `language` has no table in templates/lang/: the words it "
                 "lacks print in English"),
    "E030": Code("error", "two cards have the same id"),
    "E031": Code("error", "a card's back does not exist", stops="card"),
    "E032": Code("error", "a `ref` names a card or table key that does not exist"),
    "E040": Code("error", "a deck does not hold the `count` of cards game.yaml gives"),
    "E041": Code("error", "the component list of game.yaml disagrees with what prints"),
    "E042": Code("error", "the component list names a deck, card or die that does not exist"),
    "E043": Code("error", "a standee names a deck, card, size or template that does not exist, "
                 "asks for the back of cards that have none, or has another's id"),
    "W044": Code("warning", "a standee does not fit on the paper, upright or turned: it is left "
                 "out"),
    "E050": Code("error", "a file the pack names lies outside the pack (a symlink out "
                 "included) or is not a regular file",
                 stops="card game"),
    "E051": Code("error", "an image or stylesheet does not exist", stops="card game"),
    "E052": Code("error", "a page asks for a file outside the project and the pack, or for "
                 "the network, and is refused"),
    "E053": Code("error", "text names an icon (`:name:`) that game.yaml's `icons` does not"),
    "E060": Code("error", "a card template fails (a missing field is an error, never a blank)",
                 stops="card game"),
    "E061": Code("error", "the rulebook's Markdown refers to data that does not exist"),
    "E062": Code("error", "a template reaches past the sandbox, or runs past its time or "
                 "output limit",
                 stops="card game"),
    "E063": Code("error", "a rulebook image is given an attribute other than its width and "
                 "height in mm, cm, in, pt or %"),
    "E070": Code("error", "text runs past its box on the laid-out page, or outside the safe "
                 "zone of a piece that is not a rectangle (where its shape cuts it off)"),
    "E071": Code("error", "a raster image prints below 300 dpi"),
    "W072": Code("warning", "text on a face lies in no `.safe` or `data-box` box, so its fit "
                 "is not checked",
                 grouped=True),
    "W073": Code("warning", "CSS that WeasyPrint ignores"),
    "W074": Code("warning", "any other warning WeasyPrint gives while laying out a page"),
    "E075": Code("error", "WeasyPrint could not load or draw something a page asks for",
                 stops="card game"),
    "W076": Code("warning", "text contrasts too little with what is beneath it (WCAG AA: "
                 "4.5:1, 3:1 at 18 pt or 14 pt bold)"),
    "W077": Code("warning", "text is smaller than the `readability` minimum (6 pt, a version "
                 "stamp 4 pt)"),
    "W078": Code("warning", "text lies outside the safe zone (print.yaml `safe` inside the cut "
                 "line)"),
    "W079": Code("warning", "text is set in italic or bold, but its family has no such face: "
                 "it prints upright or regular"),
    "E080": Code("error", "a character has no glyph in the pack's body font", hides="E081"),
    "E081": Code("error", "a character was drawn with no glyph on the laid-out page"),
    "E083": Code("error", "text is drawn in a font of the machine's, not of the project or the "
                 "pack"),
    "E084": Code("error", "an export has no deck left (its profile's shop sells none of their "
                 "card sizes), or its images would be past 60 million pixels"),
    "W085": Code("warning", "an export's preflight: no bleed on an edge, text under the stamp "
                 "minimum, a raster image under 300 dpi, a font not embedded, total ink over "
                 "240 %, or not the pixel size the profile asks for (`pnp export --strict` "
                 "stops on it)"),
    "W086": Code("warning", "an export's preflight: the card just inside the cut is another "
                 "colour than the bleed beside it, so a cutting drift of 1 mm shows a sliver "
                 "of either (`pnp export --strict` stops on it)"),
    "W087": Code("warning", "an overview page shrinks its component so far that text at the "
                 "readable minimum prints smaller"),
    "W088": Code("warning", "a QR code's modules print smaller than 0.4 mm, too small to scan "
                 "reliably"),
    "E082": Code("error", "a font file of the pack's cannot be used: not a TrueType or OpenType "
                 "font, forbidding embedding, not the weight or style declared, or named like "
                 "one of the project's"),
    "E090": Code("error", "a literal number restates a rule and disagrees with rules.yaml"),
    "E091": Code("error", "a term or a check in rules.yaml is malformed"),
    "E092": Code("error", "a rule that must not be negative is"),
    "E093": Code("error", "a rule lies off the track it is checked against"),
    "E094": Code("error", "the rows of a rules table leave a gap or overlap"),
    "E100": Code("error", "the command line asks for what cannot be done: a value out of "
                 "range, a folder that is not empty, a language there is no pack in"),
    "E101": Code("error", "printers.yaml is missing, malformed, or has no such printer"),
    "E102": Code("error", "an edition: none yet or no such one, a name taken or malformed, or "
                 "a record pnp did not write"),
    "E103": Code("error", "a git revision of the pack cannot be read, or is also an edition's "
                 "name"),
    "E104": Code("error", "Ghostscript or LittleCMS's tools are missing, failed, or took too long"),
    "E105": Code("error", "an output cannot be written: the disk, a folder pnp did not make, "
                 "or a file pnp made unsound (a bug)"),
    "E106": Code("error", "a deck cannot be written as CSV and read back the same"),
    "E107": Code("error", "`pnp pull` cannot pull a deck's `source`: the server's answer, a "
                 "page that is no spreadsheet, a file too big or that does not read as the deck, "
                 "or a deck file pnp may not replace"),
    "E110": Code("error", "an export profile (templates/profiles/ or a pack's profiles/) is "
                 "malformed: an unknown key, a value out of range, a pixel size that is not "
                 "its cut plus bleed, a file name pattern that is no relative path"),
    "W111": Code("warning", "an export leaves out a deck of a card size the profile's shop "
                 "does not sell (it names the nearest size the shop sells)"),
    "E112": Code("error", "a page nests its elements too deeply to lay out or draw (an SVG's "
                 "groups within groups, say)"),
    "E113": Code("error", "a deck's or size's `shape:` or `corners:` cannot be a cut line: an "
                 "unknown word, a length that is not mm, corners on a circle or over half the "
                 "piece's side, or an .svg outline with no closed path or more than 2,000 "
                 "points", stops="deck"),
    "W120": Code("warning", "a tuck box's net is larger than the paper's printable room: it "
                 "prints in two parts, glued along a strip"),
    "E121": Code("error", "a tuck box cannot be made: it names a deck the game does not have, "
                 "shares its id with another box, or is too big for the paper even in two "
                 "parts"),
    "E130": Code("error", "game.yaml's `languages`: its first is not the pack's `language`, a "
                 "language is listed twice or is not a language tag, or a build asks for a "
                 "language the game is not in"),
    "E135": Code("error", "a language of the pack (game.yaml `language` or `languages`) needs "
                 "fonts from an optional extra that is not installed (Japanese, Korean, "
                 "Traditional Chinese): the message names the `pip install` to run"),
    "E137": Code("error", "a PO file given to `pnp translations --import` cannot be read: not "
                 "UTF-8, a line that is no part of a message, or a file of another language"),
    "W131": Code("warning", "a text of the pack has no translation in one of its languages "
                 "(a card's fields, a game.yaml or rules text, the rulebook): the source text "
                 "prints"),
    "W132": Code("warning", "a translation was made from another source text than the pack's "
                 "now, or records none (`pnp translations GAME --lang L --mark-current` "
                 "accepts it once reviewed)"),
    "E133": Code("error", "a translation translates nothing: an unknown deck, card, field or "
                 "path, a field that is not text (`qty`, an int), or a field translated twice "
                 "(a spreadsheet column and translations/L.yaml)"),
    "E134": Code("error", "a translation drops, adds or changes a `{placeholder}` or an "
                 "`:icon:` of its source text: the source text prints"),
    "W001": Code("warning", "a card is marked `draft: true`"),
    "W010": Code("warning", "a literal number restates a rule correctly: quote it instead"),
}


# A control character a pack holds is shown escaped: a finding is one line of plain text, and
# a bidi override or isolate cannot turn the rest of the line (or the terminal) around.
_CONTROL = {code: f"\\x{code:02x}" for code in [*range(32), *range(127, 160)] if code != 9} | {
    code: f"\\u{code:04x}" for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}


@cache
def counted(number: int, noun: str) -> str:
    """A number and its noun, plural unless the number is one: `1 error`, `2 errors`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def display_path(path: Path | str) -> str:
    """Return a path relative to the project root when it lies inside it, else relative to
    the current folder when it lies there, else as given."""
    path = Path(path)
    for root in (PROJECT_ROOT, Path.cwd()):
        try:
            return str(path.resolve().relative_to(root))
        except (ValueError, OSError, RuntimeError):  # outside it, or a symlink loop
            continue
    return str(path)


class CellRef(int):
    """A spreadsheet row (a line, for sorting and for which card it is) that prints as its
    cell, `Cards!C5`: a finding at one reads `beings.xlsx:Cards!C5: error: …`."""

    ref: str

    def __new__(cls, row: int, ref: str) -> CellRef:
        """The row number, told as the cell `ref`."""
        made = super().__new__(cls, row)
        made.ref = ref
        return made

    def __getnewargs__(self) -> tuple[int, str]:  # type: ignore[override]
        """Kept whole when copied or pickled."""
        return int(self), self.ref

    def __str__(self) -> str:
        """The cell, as a finding prints its place."""
        return self.ref


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in a game pack, located at path:line (a CellRef line prints as a
    spreadsheet's cell); its level comes from its code. `card` is the id of the card it is
    about when that place is shared with other cards' (a template's line, a deck's entry),
    so that one mistake many cards hit is told once (`told`)."""

    path: str
    line: int
    message: str
    level: str = field(init=False)
    code: str
    card: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "level", CODES[self.code].level)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.level}: {self.code}: {self.message}".translate(_CONTROL)


def about(card: str) -> str:
    """How a message names the card it is about, before what it says; '' for no card."""
    return f"card '{card}': " if card else ""


def mistake(finding: Finding) -> tuple[str, int, str, bool, str]:
    """What makes findings one mistake, told in one line: the same file, line and code, each
    about a card (`card`) or none about one, and the same message once the card each is
    about is taken out of it (its `card '<id>': `); for a grouped code (W072), whatever the
    message says (each card's quotes its own text, but the mistake is the template's)."""
    message = finding.message.replace(about(finding.card), "", 1)
    return (finding.path, finding.line, finding.code, bool(finding.card),
            "" if CODES[finding.code].grouped else message)


MOST_CARDS = 3  # a line about many cards names this many of them
MOST_UNCHECKED = 10  # the "not checked:" list names this many things


def listed(names: list[str], most: int) -> str:
    """The first `most` names, and how many more: `S1, S2, S3 and 69 more`."""
    shown = ", ".join(names[:most])
    return f"{shown} and {len(names) - most} more" if len(names) > most else shown


def card_order(card: str) -> list[str | int]:
    """A card id's sort key, its numbers read as numbers: S2 before S10."""
    return [int(piece) if index % 2 else piece  # split by its numbers: each second piece
            for index, piece in enumerate(re.split(r"(\d+)", card))]


def told(findings: list[Finding]) -> list[Finding]:
    """The findings as printed: one for each mistake (`mistake`), in order. A mistake of
    many cards is its first card's finding, that card taken out of the message, with how
    many cards and the first three: `… (72 cards: S1, S2, S3 and 69 more)`."""
    mistakes: dict[tuple[str, int, str, bool, str], list[Finding]] = {}
    for finding in sorted(set(findings)):
        mistakes.setdefault(mistake(finding), []).append(finding)
    lines = []
    for same in mistakes.values():
        cards = sorted({finding.card for finding in same} - {""}, key=card_order)
        if len(cards) < 2:
            lines.append(same[0])
            continue
        first = next(finding for finding in same if finding.card == cards[0])
        message = first.message.replace(about(first.card), "", 1)
        lines.append(Finding(first.path, first.line, f"{message} ({len(cards)} cards: "
                             f"{listed(cards, MOST_CARDS)})", first.code))
    return lines


def tally(findings: list[Finding]) -> tuple[int, int]:
    """How many errors and warnings the findings are, counted as they are told: one for
    each mistake, however many cards it is found on."""
    lines = told(findings)
    errors = sum(finding.level == "error" for finding in lines)
    return errors, len(lines) - errors


def stopping(scope: str) -> set[str]:
    """The codes of errors that stop the layout of a card, a deck or every deck."""
    return {code for code, entry in CODES.items() if scope in entry.stops.split()}


def hidden_by(findings: list[Finding]) -> set[str]:
    """The codes these findings make redundant."""
    return {CODES[finding.code].hides for finding in findings} - {""}


def errors_only(findings: list[Finding]) -> list[Finding]:
    """The findings that stop a build."""
    return [f for f in findings if f.level == "error"]


class PnpError(Exception):
    """Base class of every error the CLI reports as a clean message: a finding with a code,
    at a file and line when it has one (`finding`, as --json gives it)."""

    code = "E100"

    def __init__(self, message: str, code: str | None = None, path: str = "", line: int = 0):
        super().__init__(message)
        self.message, self.path, self.line = message, path, line
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        """The message, after its place when it has one."""
        where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: " if self.path \
            else ""
        return f"{where}{self.message}"

    @property
    def finding(self) -> Finding:
        """The error as a finding."""
        return Finding(self.path, self.line, self.message, self.code)


class PackError(PnpError):
    """A game pack has one or more errors; carries every finding at once."""

    def __init__(self, findings: list[Finding]):
        self.findings = sorted(set(findings))
        super().__init__("\n".join(str(f) for f in told(self.findings)))

    def __str__(self) -> str:
        """Every mistake, one a line (`told`)."""
        return self.message


class RenderError(PnpError):
    """Rendering failed for a reason the designer can act on."""

    code = "E105"
