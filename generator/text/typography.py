"""Typography: straight quotes, `--` and `...` printed as the pack's language writes them.

One implementation for card text and the rulebook: markdown-it's typographer. Its
`smartquotes` rule sets `"` and `'` as the language's marks (the `quote_open`, `quote_close`,
`quote_inner_open`, `quote_inner_close` words) and an apostrophe inside a word as ’; its
`replacements` rule sets `--` as –, `---` as — and `...` as …, but leaves (c), (r) and (tm) as
they are, as a card lists its choices (a), (b), (c). The rulebook's parser turns it on
(`enable`); card text goes through a markdown-it that parses nothing else (`typographed`).

CommonMark pairs quotes by the space and punctuation around them, and Chinese writes no space:
in 他说"你好"。 each quote has a letter on either side, which reads as inside a word, and
stays straight. So a quote that touches a CJK character sees that side as punctuation (the
"CJK-friendly" reading `markdown_cjk` gives emphasis): quotes between CJK text pair up, the
first of a pair opening.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.replacements import replace_rare
from markdown_it.token import Token

from .language import pack_words
from .markdown_cjk import is_cjk

if TYPE_CHECKING:
    from ..pack.schema import CardBase, DeckSpec, GameSpec

MARK_KEYS = ("quote_open", "quote_close", "quote_inner_open", "quote_inner_close")
MADE = "’–—…±"  # what the typographer prints besides the quote marks
TEXT_KINDS = ("str", "text", "list", "sections", "rows")  # the field types typographed
QUOTES = "\"'"
EDGE = "cjk_edge"  # a token between a quote and the CJK character it touches, while quotes pair
EDGE_MARK = "\u3001"  # what such a token holds: punctuation, as smartquotes reads it

Marks = tuple[str, str, str, str]  # double open and close, single open and close


def pack_marks(spec: GameSpec) -> Marks | None:
    """The marks a pack's straight quotes print as (its language's, under its `words:`), or
    None when its typography is off."""
    if spec.typography.quotes != "smart":
        return None
    words = pack_words(spec)
    return (words[MARK_KEYS[0]], words[MARK_KEYS[1]], words[MARK_KEYS[2]], words[MARK_KEYS[3]])


def enable(md: MarkdownIt, marks: Marks) -> MarkdownIt:
    """markdown-it's typographer on `md`, quoting with `marks`."""
    md.options["typographer"] = True
    md.options["quotes"] = list(marks)
    md.enable(["replacements", "smartquotes"])
    md.core.ruler.at("replacements", _replacements)
    md.core.ruler.before("smartquotes", "cjk_quote_edges", _mark_edges)
    md.core.ruler.after("smartquotes", "cjk_quote_edges_gone", _drop_edges)
    return md


@cache
def _inline(marks: Marks) -> MarkdownIt:
    """A markdown-it that parses nothing, only sets quotes, dashes and ellipses."""
    return enable(MarkdownIt("zero"), marks)


def typographed(text: str, marks: Marks | None) -> str:
    """Card text with its quotes, dashes and ellipses set (as it is when `marks` is None)."""
    if marks is None or not text:
        return text
    [line] = _inline(marks).parseInline(text)
    return "".join(child.content for child in line.children or [])


def typographed_card(card: CardBase, deck: DeckSpec, marks: Marks | None) -> CardBase:
    """A card with the text it prints typographed: its name, quote, motto and sections, and
    the printed fields of type str, text, list, sections and rows (every string of a row);
    never its id, back, art, numbers, choices, references or images."""
    if marks is None:
        return card
    kinds = {"name": "str", "quote": "str", "motto": "str", "sections": "sections"}
    kinds.update((name, spec.type) for name, spec in deck.fields.items() if spec.printed)
    update = {name: _typographed_value(getattr(card, name), kind, marks)
              for name, kind in kinds.items()
              if kind in TEXT_KINDS and getattr(card, name, None) is not None}
    return card.model_copy(update=update)


def _typographed_value(value: Any, kind: str, marks: Marks) -> Any:
    """A field's value typographed as its type says."""
    if kind == "list":
        return [typographed(item, marks) for item in value]
    if kind == "sections":
        return [section.model_copy(update={
            "label": section.label and typographed(section.label, marks),
            "text": typographed(section.text, marks)}) for section in value]
    if kind == "rows":
        return [{key: _typographed_cell(cell, marks) for key, cell in row.items()}
                for row in value]
    return typographed(value, marks)  # str, text


def _typographed_cell(cell: Any, marks: Marks) -> Any:
    """A row's cell with its strings typographed."""
    if isinstance(cell, list):
        return [_typographed_cell(item, marks) for item in cell]
    return typographed(cell, marks) if isinstance(cell, str) else cell


def printed_marks(marks: Marks) -> str:
    """Every character the typographer may print for a pack: its quote marks, the apostrophe,
    the dashes, the ellipsis and ±."""
    return "".join(marks) + MADE


def _replacements(state: StateCore) -> None:
    """Core rule: markdown-it's replacements but (c), (r) and (tm)."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            replace_rare(token.children)


def _mark_edges(state: StateCore) -> None:
    """Core rule: a token read as punctuation between each quote and a CJK character next to
    it in the same text."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = [piece for child in token.children for piece in _edged(child)]


def _edged(token: Token) -> list[Token]:
    """A text token cut at each edge between a quote and a CJK character, an edge token in
    each cut; any other token as it is."""
    text = token.content
    if token.type != "text" or not any(quote in text for quote in QUOTES):
        return [token]
    cuts = [at for at in range(1, len(text))
            if (text[at] in QUOTES and is_cjk(text[at - 1]))
            or (text[at - 1] in QUOTES and is_cjk(text[at]))]
    if not cuts:
        return [token]
    pieces: list[Token] = []
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        if pieces:
            pieces.append(Token(EDGE, "", 0, level=token.level, content=EDGE_MARK))
        pieces.append(Token("text", "", 0, level=token.level, content=text[start:end]))
    return pieces


def _drop_edges(state: StateCore) -> None:
    """Core rule: the edge tokens gone once quotes are paired (`text_join`, which comes next,
    joins the text they cut)."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = [child for child in token.children if child.type != EDGE]
