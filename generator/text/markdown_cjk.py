"""markdown-it plugins for Chinese text: emphasis that meets CJK punctuation, and table cells
that keep two-character words whole.

CommonMark lets `**` open only where it is "left-flanking": next to a punctuation mark it must
have white space or punctuation on its other side, which Chinese never writes, so
`**【中宫】与**` would print its asterisks. `cjk_friendly` scans delimiter runs as the
"CommonMark CJK-friendly amendments" do (tats-u/markdown-cjk-friendly): a CJK character on
either side of a `*` run lets punctuation on the other side flank it. `_` keeps the strict
rule, as it does inside words.

A table column squeezed to one character breaks 数量 into 数 / 量, and 天灾共业 into 天灾共 / 业.
Chinese marks no word boundaries, so `table_words` wraps each run of two to four ideographs in
a cell (between punctuation, digits or spaces), six in a header, in `<nobr>`, kept on one line
by WeasyPrint's own stylesheet: no word of such a run is broken, and the column is at least
that wide.
"""

from __future__ import annotations

import itertools
import unicodedata

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter, Scanned
from markdown_it.token import Token

WORD_CHARS = 4  # a run of at most this many ideographs in a table cell is kept on one line
HEADER_CHARS = 6  # and in a header cell, which names its column in a word or two


def is_cjk(char: str) -> bool:
    """Whether a character is CJK: East Asian Wide, Fullwidth or Halfwidth, no emoji, or
    Hangul."""
    if ord(char) < 0x1100:
        return False
    width = unicodedata.east_asian_width(char)
    if width in ("F", "H"):
        return True
    if width == "W":
        return not (unicodedata.category(char) == "So" and ord(char) >= 0x1F000)
    return unicodedata.name(char, "").startswith("HANGUL")


def is_ideograph(char: str) -> bool:
    """Whether a character is a CJK letter (a word's character, not punctuation)."""
    return is_cjk(char) and unicodedata.category(char) == "Lo"


def scan_delims(state: StateInline, start: int, can_split_word: bool) -> Scanned:
    """Whether the run of `*` or `_` at `start` can open or close emphasis, CJK-friendly."""
    marker = state.src[start]
    last = state.src[start - 1] if start > 0 else " "
    pos = start
    while pos < state.posMax and state.src[pos] == marker:
        pos += 1
    following = state.src[pos] if pos < state.posMax else " "
    last_space, next_space = isWhiteSpace(ord(last)), isWhiteSpace(ord(following))
    if last_space or next_space:
        return Scanned(not next_space, not last_space, pos - start)
    last_punct = isMdAsciiPunct(ord(last)) or isPunctChar(last)
    next_punct = isMdAsciiPunct(ord(following)) or isPunctChar(following)
    left, right = last_punct, next_punct
    if can_split_word:
        either_cjk = is_cjk(following) or is_cjk(last)
        left = left or either_cjk or not next_punct
        right = right or either_cjk or not last_punct
    return Scanned(left, right, pos - start)


def emphasis(state: StateInline, silent: bool) -> bool:
    """markdown-it's emphasis rule with `scan_delims`: each marker a text token, and a
    delimiter for the pairing pass."""
    marker = state.src[state.pos]
    if silent or marker not in ("_", "*"):
        return False
    scanned = scan_delims(state, state.pos, marker == "*")
    for _ in range(scanned.length):
        token = state.push("text", "", 0)
        token.content = marker
        state.delimiters.append(Delimiter(ord(marker), scanned.length, len(state.tokens) - 1,
                                          -1, scanned.can_open, scanned.can_close))
    state.pos += scanned.length
    return True


def cjk_friendly(md: MarkdownIt) -> None:
    """Plugin: emphasis delimiters next to CJK text flank as the CJK-friendly amendments say."""
    md.inline.ruler.at("emphasis", emphasis)


def _runs(text: str) -> list[tuple[str, bool]]:
    """`text` cut into runs of ideographs and of everything else: (run, ideographs?) each."""
    runs: list[tuple[str, bool]] = []
    for char in text:
        kind = is_ideograph(char)
        if runs and runs[-1][1] == kind:
            runs[-1] = (runs[-1][0] + char, kind)
        else:
            runs.append((char, kind))
    return runs


def _nowrap(text: str) -> list[Token]:
    """`text` in `<nobr>`, kept on one line."""
    opening = Token("nowrap_open", "nobr", 1)
    closing = Token("nowrap_close", "nobr", -1)
    return [opening, Token("text", "", 0, content=text), closing]


def _cell_words(children: list[Token], longest: int) -> list[Token]:
    """A cell's inline tokens with each run of two to `longest` ideographs kept whole."""
    out: list[Token] = []
    for token in children:
        if token.type != "text":
            out.append(token)
            continue
        for run, ideographs in _runs(token.content):
            if ideographs and 1 < len(run) <= longest:
                out += _nowrap(run)
            else:
                out.append(Token("text", "", 0, content=run))
    return out


def _table_words(state: StateCore) -> None:
    """Core rule: the inline content of every table cell through `_cell_words`."""
    for cell, token in itertools.pairwise(state.tokens):
        if cell.type in ("th_open", "td_open") and token.type == "inline" and token.children:
            token.children = _cell_words(token.children, HEADER_CHARS if cell.type == "th_open"
                                         else WORD_CHARS)


def table_words(md: MarkdownIt) -> None:
    """Plugin: short runs of ideographs in table cells never broken."""
    md.core.ruler.push("table_words", _table_words)
