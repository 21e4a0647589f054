"""Which rules of the page's stylesheet can reach a face (tinycss2, and cssselect2's selector
parser): a face's print fingerprint holds those rules alone, so a stylesheet edit changes the
revision tags of only the faces it can restyle.

A style rule reaches a face when every name one of its selectors needs (an element, class, id
or attribute, outside `:not()`, `:is()` and the like) is in the face or in what holds it on a
page (PAGE_NAMES). Combinators and pseudo-classes are not tested, so a rule may reach a face it
does not match but never misses one it does; a pseudo-element is its element. At-rules, and
rules whose selectors cannot be read, reach every face.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from html import unescape

import tinycss2
from cssselect2 import parser as selectors

# What holds every face: the faces page it is laid out on (templates/faces.html.j2: <html lang>
# <body> <section class="sheet"> <div class="card deck--…" id="face-…">, data-shape and
# data-cut on a piece that is not a rectangle) and the sheets it is drawn into (sheets.html.j2,
# printshop.html.j2: a clipping `sheet-slot`), so a rule on them reaches every face; and the
# elements an HTML parser adds (a table's tbody).
PAGE_NAMES = frozenset({
    "html", "head", "body", "section", "div", "tbody", "colgroup",
    ".sheet", ".sheet--front", ".sheet--back", ".sheet-slot", ".card",
    "[lang", "[class", "[id", "[style", "[data-source", "[data-clip", "[data-face", "[data-turn",
    "[data-shape", "[data-cut",
})
PAGE_IDS = "face-"  # the faces page's id for each face's box: `face-<deck>.<n>`


def deck_names(deck_id: str) -> frozenset[str]:
    """What holds each face of a deck: the page's names, and its deck's class."""
    return PAGE_NAMES | {f".deck--{deck_id}"}


# A start tag and its attributes, as an HTML parser reads them: a quote opens a value only
# after `=`, and a quoted value may hold `>`. The alternatives never match the same text, so
# a tag a pack's template leaves unclosed costs linear time, not exponential.
_TAG = re.compile(r"""<([a-zA-Z][^\s/>]*)((?:=\s*"[^"]*"|=\s*'[^']*'|=(?!\s*["'])|[^>=])*)>""")
_ATTRIBUTE = re.compile(r"""([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")


def html_names(html: str) -> set[str]:
    """The elements (by lowercase name), `.classes`, `#ids` and `[attributes` of some HTML;
    a tag in a comment or a script counts too, which only makes a face need more rules."""
    names = set()
    for tag in _TAG.finditer(html):
        names.add(tag.group(1).lower())
        for attribute in _ATTRIBUTE.finditer(tag.group(2)):
            name = attribute.group(1).lower()
            names.add(f"[{name}")
            if name == "class":
                names.update(f".{each}" for each in _value(attribute).split())
            elif name == "id":
                names.add(f"#{_value(attribute)}")
    return names


def _value(attribute: re.Match[str]) -> str:
    """An attribute's value, its character references read."""
    return unescape("".join(attribute.groups("")[1:]))


class PageStyle:
    """A page's stylesheet, parsed once: each rule's text, and what each selector of its style
    rules needs of a face (an at-rule, or a rule whose selectors cannot be read, needs
    nothing: it reaches every face)."""

    def __init__(self, css: str):
        self.texts: list[str] = []
        self.everywhere: set[int] = set()  # the rules that need nothing
        self.by_name: dict[str, list[tuple[int, frozenset[str]]]] = {}  # filed by one need
        for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
            if rule.type not in ("qualified-rule", "at-rule"):
                continue  # what cannot be parsed styles nothing, as WeasyPrint reads it
            needs = _needs(rule.prelude) if rule.type == "qualified-rule" else None
            for need in needs or [frozenset()]:
                if not need:
                    self.everywhere.add(len(self.texts))
                else:  # filed by a class or id where it has one: fewer faces have it
                    key = min(need, key=lambda name: (name[0] not in ".#", name))
                    self.by_name.setdefault(key, []).append((len(self.texts), need))
            self.texts.append(rule.serialize())

    def reaching(self, names: set[str] | frozenset[str]) -> list[str]:
        """The text of each rule that can reach a face with these names, in stylesheet order."""
        reached = set(self.everywhere)
        for name in names & self.by_name.keys():
            reached.update(index for index, need in self.by_name[name] if need <= names)
        return [self.texts[index] for index in sorted(reached)]


@lru_cache(maxsize=4)
def parsed_style(css: str) -> PageStyle:
    """A page's stylesheet parsed, kept for the next game read with the same one (`pnp serve`
    and `pnp watch` read it again at every edit)."""
    return PageStyle(css)


def _needs(prelude: list) -> list[frozenset[str]] | None:
    """What each selector of a rule needs of a face; None if a selector cannot be read."""
    try:
        return [frozenset(_required(selector.parsed_tree))
                for selector in selectors.parse(prelude)]
    except selectors.SelectorError:
        return None


def _required(tree: object) -> Iterable[str]:
    """The names a parsed selector needs, each compound's, whatever the combinators."""
    if isinstance(tree, selectors.CombinedSelector):
        yield from _required(tree.left)
        yield from _required(tree.right)
    elif isinstance(tree, selectors.CompoundSelector):
        for simple in tree.simple_selectors:
            yield from _required(simple)
    elif isinstance(tree, selectors.LocalNameSelector):
        yield tree.lower_local_name
    elif isinstance(tree, selectors.ClassSelector):
        yield f".{tree.class_name}"
    elif isinstance(tree, selectors.IDSelector) and not tree.ident.startswith(PAGE_IDS):
        yield f"#{tree.ident}"
    elif isinstance(tree, selectors.AttributeSelector):
        yield f"[{tree.lower_name}"
