"""Rulebook typography, read off the real PDFs of every game of cards/ as a player sees them: no
Markdown left in the text, no page stranded with a line or two, no heading or question at the
foot of a page, no short word broken in a table cell, gallery decks that flow on, and a
booklet that ends on a back cover."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from pypdf import PdfReader

from generator import DEFAULT_GAME
from generator.outputs.rulebook import markdown_html
from generator.pack.load import load_game
from generator.pipeline.build import BuildOptions, build_game
from generator.plan.geometry import load_geometry
from generator.text.language import pack_words
from generator.text.markdown_cjk import WORD_CHARS, is_ideograph

from .conftest import GAMES, MM, flat, give_rulebook

BOOKS = [(game, "a4") for game in GAMES] + [(DEFAULT_GAME, "letter")]
FEWEST_ROWS = 4  # lines (or table rows) a page holds at least, unless it ends a chapter
XHTML = "{http://www.w3.org/1999/xhtml}"
QUESTION = re.compile(r"^(Q\d*|问)[:：]")


@dataclass
class Line:
    """A line of text as pdftotext finds it: its box in points from the page's top left."""

    left: float
    top: float
    right: float
    bottom: float
    text: str


@dataclass
class Page:
    """A page's blocks of lines (each table cell a block of its own) and the headings the
    outline puts on it: (title, top in points, depth)."""

    number: int
    height: float
    blocks: list[list[Line]]
    headings: list[tuple[str, float, int]] = field(default_factory=list)
    rows: list[list[Line]] = field(default_factory=list)  # the body's lines, as a reader sees

    def body(self, top: float, bottom: float) -> None:
        """Merge the lines between the running head and the folio into rows: table cells side
        by side are one row."""
        lines = sorted((line for block in self.blocks for line in block
                        if line.top >= top and line.bottom <= self.height - bottom),
                       key=lambda line: (line.top, line.left))
        for line in lines:
            if self.rows and line.top < self.rows[-1][0].bottom - 3:
                self.rows[-1].append(line)
            else:
                self.rows.append([line])


@dataclass
class Book:
    """A rulebook PDF read back: its pages, where its chapters start, where its gallery is."""

    pages: list[Page]
    chapters: set[int]  # the pages a chapter (or the gallery) starts on
    gallery: int  # the page the gallery starts on; past the last page if none

    def ends_chapter(self, page: Page) -> bool:
        """Whether the page is the last of a chapter, or of the front matter."""
        return page.number + 1 in self.chapters or page.number == len(self.pages)

    def text(self) -> str:
        """Every line of the book."""
        return "\n".join(line.text for page in self.pages for block in page.blocks
                         for line in block)


def read_blocks(pdf: Path, space: str = "") -> list[tuple[float, list[list[Line]]]]:
    """Each page's height and blocks of lines as pdftotext finds them (a paragraph, a table
    cell; a justified line may be a block of its own), words joined by `space`."""
    xml = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], check=True,
                         capture_output=True).stdout
    root = ET.fromstring(re.sub(rb"<!DOCTYPE[^>]*>", b"", xml))
    return [(float(page.get("height", 0)),
             [[Line(*(float(line.get(key, 0)) for key in ("xMin", "yMin", "xMax", "yMax")),
                    space.join(word.text or "" for word in line.iter(f"{XHTML}word")))
               for line in block.iter(f"{XHTML}line")] for block in page.iter(f"{XHTML}block")])
            for page in root.iter(f"{XHTML}page")]


@cache
def read_book(pdf: Path, margin: float, gallery_title: str | None) -> Book:
    """The PDF's pages, lines and outline; `margin` is the rulebook's in mm (the head sits 4 mm
    lower)."""
    pages = []
    for number, (height, blocks) in enumerate(read_blocks(pdf), start=1):
        pages.append(Page(number, height, blocks))
        pages[-1].body((margin + 4) * MM - 2, margin * MM - 2)
    reader = PdfReader(pdf)
    gallery = len(pages) + 1

    def walk(items: list, depth: int) -> None:
        nonlocal gallery
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            page = pages[reader.get_destination_page_number(item)]
            page.headings.append((flat(item.title), page.height - float(item.top), depth))
            if depth == 0 and gallery_title and flat(item.title) == flat(gallery_title):
                gallery = page.number

    walk(reader.outline, 0)
    chapters = {page.number for page in pages if any(d == 0 for _, _, d in page.headings)}
    return Book(pages, chapters, gallery)


@cache
def game_words(name: str) -> tuple[str | None, str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """The game's gallery heading, its word for a back, and each deck's name and card names."""
    game = load_game(name)
    decks = tuple((deck.spec.name, tuple(flat(card.name) for card in deck.cards))
                  for deck in game.decks)
    words = pack_words(game.spec)
    return words["gallery"], words["back"], decks


@pytest.fixture(scope="module", params=BOOKS, ids=[f"{g}-{p}" for g, p in BOOKS])
def book(request: pytest.FixtureRequest, built) -> Book:
    """One rulebook as built for the session, read back."""
    name, paper = request.param
    pdf = built(name, paper) / f"rulebook-{paper}.pdf"
    return read_book(pdf, load_geometry().rulebook_margin, game_words(name)[0])


def test_no_markdown_is_left_in_the_text(book: Book) -> None:
    """Bold next to Chinese punctuation is bold, never `**` printed (《天机变》 had 82)."""
    text = book.text()
    assert "**" not in text


def test_no_page_is_blank_or_holds_a_line_or_two_but_a_chapters_last(book: Book) -> None:
    short = [(page.number, [flat("".join(line.text for line in row)) for row in page.rows])
             for page in book.pages[1:]
             if not page.rows or (len(page.rows) < FEWEST_ROWS and not book.ends_chapter(page))]
    assert short == []


def test_no_heading_or_question_ends_a_page(book: Book) -> None:
    stranded, headings = [], 0
    for page in book.pages[1:]:
        headings += len(page.headings)
        for title, top, _ in page.headings:
            below = [row for row in page.rows if row[0].bottom > top + 2]
            covered, index = "", 0
            while index < len(below) and len(covered) < len(title):
                covered += flat("".join(line.text for line in below[index]))
                index += 1
            if index >= len(below):
                stranded.append((page.number, title))
        last = flat("".join(line.text for line in page.rows[-1])).lstrip("•") \
            if page.rows else ""
        if QUESTION.match(last):
            stranded.append((page.number, last))
    assert headings > 10  # the headings were found, so none was passed unseen
    assert stranded == []


def _cut_runs(lines: list[str]) -> list[str]:
    """The runs of ideographs a line break cuts in a block of lines, each with a `|` where."""
    text, breaks = "", []
    for line in lines:
        breaks.append(len(text))
        text += flat(line)
    cut = []
    for at in breaks[1:]:
        start, end = at, at
        while start > 0 and is_ideograph(text[start - 1]):
            start -= 1
        while end < len(text) and is_ideograph(text[end]):
            end += 1
        if start < at < end:
            cut.append(f"{text[start:at]}|{text[at:end]}")
    return cut


def test_table_cells_never_break_a_short_word(book: Book) -> None:
    """No line break in a table cell cuts a run of two to four ideographs (数 / 量, 农 / 夫,
    天灾共 / 业): Chinese marks no word boundaries, so such a run is kept whole."""
    cells, broken = 0, []
    for page in book.pages:
        if page.number not in range(min(book.chapters), book.gallery):
            continue  # the contents' entries and the gallery's cards are not tables
        tops = [round(block[0].top) for block in page.blocks if block]
        for block in page.blocks:
            if not block or tops.count(round(block[0].top)) < 2:
                continue  # a table's cells share a row with others
            cells += 1
            broken += [(page.number, run) for run in _cut_runs([line.text for line in block])
                       if len(run) - 1 <= WORD_CHARS]
    assert cells > 10
    assert broken == []


def test_gallery_decks_flow_on_and_no_back_sits_alone(book: Book, request) -> None:
    """Decks follow one another on a page; a deck's back always shares its page with a card
    of the same deck."""
    name = request.node.callspec.params["book"][0]
    _, back, decks = game_words(name)
    pages = [page for page in book.pages if page.number >= book.gallery]
    assert pages
    assert any(sum(depth == 1 for _, _, depth in page.headings) >= 2 for page in pages)
    backs = 0  # the backs found, so that a caption no page shows is not passed unseen
    for deck, cards in decks:
        # the separator's glyph may be the bullet's too, and read back as "•": any character
        caption = re.compile(re.escape(flat(deck)) + "." + re.escape(flat(back)))
        for page in pages:
            text = flat("".join(line.text for row in page.rows for line in row))
            if caption.search(text):
                backs += 1
                assert any(card in caption.sub("", text) for card in cards), (page.number, deck)
    assert backs > 0


def test_a_booklet_ends_on_a_back_cover_without_folio(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    options = BuildOptions(only=("rulebook",), switches=frozenset({"booklet"}))
    build_game("mini", options, out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "rulebook-booklet-a4.pdf"
    width = float(PdfReader(pdf).pages[0].mediabox.width)

    def half(page: int, right: bool) -> str:
        return subprocess.run(
            ["pdftotext", "-f", str(page), "-l", str(page), "-x", str(int(width / 2) if right
                                                                     else 0),
             "-y", "0", "-W", str(int(width / 2)), "-H", "10000", str(pdf), "-"],
            check=True, capture_output=True, text=True).stdout

    outside_back, front = half(1, False), half(1, True)
    assert flat(front).startswith(flat("测试小包"))
    assert flat(outside_back) == flat("测试小包 t1")  # the colophon: title and version
    assert not re.search(r"\d+\s*$", outside_back.replace("t1", ""))  # no folio


def test_markdown_for_chinese() -> None:
    """Bold meets CJK punctuation; short words in table cells are kept whole; a question or a
    label with a colon is marked to stay with what follows; a chapter's closing rule goes; a
    paragraph's last two characters (or words) stay on one line."""
    html, _ = markdown_html(
        "## 一\n\n棋盘由**【中宫】与外围的【八卦宫位】**共同构成，称为**“区域”**。\n\n"
        "**Q1：可以叠加吗？**\n\n**A**：不可。\n\n**对方选择**（三选一）：\n\n"
        "| 类型 | 游戏中用语 |\n|---|---|\n| 天灾共业，渡化-1 | 功德五六七八 |\n\n---\n")
    assert "**" not in html
    assert "<strong>【中宫】与外围的【八卦宫位】</strong>" in html
    assert "称为<nobr><strong>“区域”</strong>。</nobr>" in html
    assert '<p class="lead"><strong>Q1：可以叠<nobr>加吗？</nobr></strong></p>' in html
    assert '<p><strong>A</strong>：<nobr>不可。</nobr></p>' in html
    assert '<p class="lead"><strong>对方选择</strong>（三<nobr>选一）：</nobr></p>' in html
    assert '<th><nobr>游戏中用语</nobr></th>' in html
    assert '<nobr>天灾共业</nobr>，<nobr>渡化</nobr>-1' in html
    assert "<td>功德五六<nobr>七八</nobr></td>" in html  # a longer run may break
    assert "<hr" not in html
    whole, _ = markdown_html("## 一\n\n[见二][二]\n\n---\n\n## 二\n\n---\n\n文\n\n[二]: #h2\n")
    assert whole.count("<hr />") == 1  # converted whole (a link reaches across): before 文 only
    latin, _ = markdown_html("a **b** c *x*y snake_case_word")
    assert latin == "<p>a <strong>b</strong> c <nobr><em>x</em>y snake_case_word</nobr></p>\n"
