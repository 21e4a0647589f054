"""Line breaks WeasyPrint does not choose well by itself: HTML in, the same HTML with what must
stay on one line wrapped in `<nobr>`.

Pango breaks lines by UAX 14, which allows a break between any two ideographs and between a
number and the unit after it, and WeasyPrint has no `text-wrap: pretty`. So a paragraph could
end on a line holding one CJK character ("需要消耗一点干 / 劲"), a number could end a line and
its unit start the next ("终局 +5 / 分"), and an English paragraph could end on one short word.
`keep_together` keeps on one line, by Unicode class and for any language:

- a number with its sign and its unit: `+5 分`, `2点`, `3 coins`;
- the last two CJK letters of a paragraph, with what stands between them and what closes it:
  `殊胜。」`;
- the last two words of a paragraph in any other script, so no word ends it alone.

`<nobr>` is kept on one line by WeasyPrint's own stylesheet, and no pack's rule for `span`
reaches it. Only the text between tags is cut, and only between characters (a character
reference stays whole), so escaped text stays escaped. The content of `<style>`, `<script>`,
SVG, MathML, `<pre>` and `<nobr>` is left alone. A paragraph ends at any tag but a few inline ones
(`<b>`, `<em>`, `<a>`, …), which a kept group wraps whole; a group wider than `LONGEST` Latin
letters (a CJK character counts two) is never made, so nothing is pushed out of its box.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .markdown_cjk import is_ideograph

LONGEST = 20  # how wide a kept group is at most: Latin letters, CJK characters counting two
UNIT = 10  # letters of a word after a number that is kept with it as its unit
INLINE = frozenset({"a", "abbr", "b", "cite", "code", "em", "i", "mark", "s", "small",
                    "strong", "sub", "sup", "u"})  # what a kept group may wrap whole
RAW_TEXT = frozenset({"iframe", "noembed", "noframes", "noscript", "plaintext", "script",
                      "style", "textarea", "title", "xmp"})  # content that is not text
# Content `<nobr>` would break out of (SVG, MathML), already on one line, or broken as written.
ALONE = frozenset({"math", "nobr", "pre", "svg"})

# A comment, a tag (a quoted value whole, even holding `>`), a character reference (its `;`
# left out or not), text, or one character. Every alternative goes on to the end of the text
# rather than fail: linear.
_TOKEN = re.compile(r"""<!--.*?(?:-->|\Z)|<[A-Za-z/!?](?:"[^"]*"?|'[^']*'?|[^"'>])*>?"""
                    r"|&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);?|[^<&]+|.",
                    re.DOTALL)
_NAME = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
_NUMBER = re.compile(r"(?<![0-9A-Za-z.,])[+\-−±]?[0-9]+(?:[.,][0-9]+)*[%％]?")
_WORD = re.compile(r"[^\W\d_]+")


Cursor = tuple[int, int]  # a place in the HTML: a piece, and an offset in its raw text


@dataclass(frozen=True)
class _Piece:
    """A piece of the HTML: text it prints (a reference prints one character), an inline
    element's tag (`step` +1 opening, -1 closing), or anything a paragraph ends at."""

    raw: str
    text: str = ""
    step: int = 0

    def cursor(self, index: int, offset: int, after: bool) -> Cursor:
        """The place before (or after) the character at `offset` of its text."""
        if self.raw == self.text:
            return index, offset + after
        return index, len(self.raw) if after else 0


def _pieces(html: str) -> list[_Piece]:
    """The HTML cut into text, references and tags; an element left alone is a single piece
    that ends a paragraph."""
    pieces: list[_Piece] = []
    pos = 0
    while pos < len(html):
        token = _TOKEN.match(html, pos)
        assert token is not None  # `.` takes any character
        raw, pos = token.group(), token.end()
        name = _NAME.match(raw)
        tag, closing, closed = (name[2].lower(), bool(name[1]), raw.endswith("/>")) if name \
            else ("", False, False)
        if not raw.startswith(("<", "&")) or raw in ("<", "&"):
            pieces.append(_Piece(raw, raw))
        elif raw.startswith("&"):
            pieces.append(_Piece(raw, "\ufffc"))  # a character: no letter, digit or space
        elif tag in RAW_TEXT and not closing or tag in ALONE and not closing and not closed:
            pos = _content_end(html, pos, tag)
            pieces.append(_Piece(html[token.start():pos]))
        elif tag in INLINE and not closed:
            pieces.append(_Piece(raw, step=-1 if closing else 1))
        else:
            pieces.append(_Piece(raw))
    return pieces


def _content_end(html: str, pos: int, name: str) -> int:
    """Where the element `name` opened before `pos` ends: after its closing tag (counting
    elements of its own name inside it, but in raw text), or at the end."""
    if name in RAW_TEXT:
        found = re.compile(rf"</{name}\b[^>]*>?", re.IGNORECASE).search(html, pos)
        return found.end() if found else len(html)
    depth = 1
    for tag in re.compile(rf"<(/?){name}\b[^>]*>?", re.IGNORECASE).finditer(html, pos):
        depth += -1 if tag[1] else 0 if tag.group().endswith("/>") else 1
        if depth == 0:
            return tag.end()
    return len(html)


@lru_cache(maxsize=1024)
def keep_together(html: str) -> str:
    """The HTML with each group of its paragraphs that must stay on one line in `<nobr>`
    (worked out once a process: a build checks a card's face, then lays it out)."""
    pieces = _pieces(html)
    marks: dict[int, list[tuple[int, int, str]]] = {}  # by piece: (offset, order, tag)
    first = 0
    for index in range(len(pieces) + 1):
        if index == len(pieces) or not (pieces[index].text or pieces[index].step):
            for start, end in _groups(pieces, first, index) if index - first else []:
                marks.setdefault(start[0], []).append((start[1], 1, "<nobr>"))
                marks.setdefault(end[0], []).append((end[1], 0, "</nobr>"))
            first = index + 1
    if not marks:
        return html
    out = []
    for index, piece in enumerate(pieces):
        at = 0
        for offset, _, tag in sorted(marks.get(index, [])):
            out += [piece.raw[at:offset], tag]
            at = offset
        out.append(piece.raw[at:])
    return "".join(out)


def _groups(pieces: list[_Piece], first: int, stop: int) -> list[tuple[Cursor, Cursor]]:
    """The groups of one paragraph (pieces `first` to `stop`) kept on one line, each from a
    place to a place, holding whole elements, apart and in order."""
    text = "".join(pieces[i].text for i in range(first, stop))
    spans = _spans(text) if text.strip() else []
    if not spans:
        return []
    begins = list(itertools.accumulate((len(pieces[i].text) for i in range(first, stop)),
                                       initial=0))

    def cursor(position: int, after: bool) -> Cursor:
        index = bisect.bisect_right(begins, position, hi=stop - first) - 1
        return pieces[first + index].cursor(first + index, position - begins[index], after)

    def position(place: Cursor) -> int:
        return begins[place[0] - first] + len(pieces[place[0]].text[:place[1]])

    def narrow(group: tuple[Cursor, Cursor]) -> bool:
        return _width(text[position(group[0]):position(group[1])]) <= LONGEST

    partner = _partners(pieces, first, stop)
    groups: list[tuple[Cursor, Cursor]] = []
    for start, end in sorted(spans):
        whole = _whole(cursor(start, False), cursor(end - 1, True), pieces, partner)
        if whole is None:
            continue
        if groups and whole[0] < groups[-1][1]:  # overlapping: one group, if not too long
            merged = min(whole[0], groups[-1][0]), max(whole[1], groups[-1][1])
            if narrow(merged):
                groups[-1] = merged
        elif narrow(whole):
            groups.append(whole)
    return groups


def _partners(pieces: list[_Piece], first: int, stop: int) -> dict[int, int | None]:
    """Each inline tag of a paragraph with its partner (its element's other tag), or None
    when the paragraph does not hold it."""
    partner: dict[int, int | None] = {}
    opened: list[int] = []
    for index in range(first, stop):
        if pieces[index].step > 0:
            opened.append(index)
        elif pieces[index].step < 0:
            match = opened.pop() if opened else None
            partner[index] = match
            if match is not None:
                partner[match] = index
    partner.update((index, None) for index in opened)
    return partner


def _whole(start: Cursor, end: Cursor, pieces: list[_Piece],
           partner: dict[int, int | None]) -> tuple[Cursor, Cursor] | None:
    """The group from `start` to `end` widened to hold whole elements; None when one is not
    whole in its paragraph."""
    while True:
        inside = [partner[tag] for tag in partner
                  if start <= (tag, 0) and (tag, len(pieces[tag].raw)) <= end]
        tags = [tag for tag in inside if tag is not None]
        if len(tags) < len(inside):
            return None
        wider = (min([start, *((tag, 0) for tag in tags)]),
                 max([end, *((tag, len(pieces[tag].raw)) for tag in tags)]))
        if wider == (start, end):
            return start, end
        start, end = wider


def _spans(text: str) -> list[tuple[int, int]]:
    """Where a paragraph's text must not break: (start, end) of each group, but for one that
    would be the whole paragraph (kept whole, it could only overflow its box)."""
    spans = [*_numbers(text), *_ending(text)]
    return [(start, end) for start, end in spans if text[:start].strip() or text[end:].strip()]


def _numbers(text: str) -> list[tuple[int, int]]:
    """Each number with its sign and the unit after it: a CJK letter, or a short word."""
    spans = []
    for number in _NUMBER.finditer(text):
        after = number.end() + (text[number.end():number.end() + 1] in (" ", "\u00a0"))
        unit = _WORD.match(text, after)
        if after < len(text) and is_ideograph(text[after]):
            spans.append((number.start(), after + 1))
        elif unit and len(unit.group()) <= UNIT:
            spans.append((number.start(), unit.end()))
    return spans


def _ending(text: str) -> list[tuple[int, int]]:
    """The end of a paragraph that its last line holds, with the punctuation that closes it:
    a last CJK letter with the letter or digit before it (and what stands between), a last
    run of other letters or digits with the CJK letter before it, else the last word with
    the one before."""
    end = len(text.rstrip())
    last = end - 1
    while last >= 0 and unicodedata.category(text[last])[0] in "PS":
        last -= 1
    if last < 0 or text[last].isspace():
        return []
    start = last
    if is_ideograph(text[last]):
        while start > 0 and unicodedata.category(text[start - 1])[0] in "PS" \
                and not text[start - 1].isspace():
            start -= 1
        if start > 0 and not text[start - 1].isspace():
            return [(start - 1, end)]
    else:
        while start > 0 and not (text[start - 1].isspace() or is_ideograph(text[start - 1])):
            start -= 1
        if start > 0 and is_ideograph(text[start - 1]):
            return [(start - 1, end)]
    while start > 0 and text[start - 1].isspace():
        start -= 1
    if start == 0:
        return []  # one word
    while start > 0 and not text[start - 1].isspace() and end - start <= LONGEST:
        start -= 1
    return [(start, end)] if _width(text[start:end]) <= LONGEST else []


def _width(text: str) -> int:
    """How wide a text is in Latin letters: a wide (CJK) character counts two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)
