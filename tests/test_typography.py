"""Line breaks and page breaks as a player reads them off the real PDFs: no paragraph of a card
or rulebook ends on a line of one CJK character, no number is split from its unit (thbattle's
弹幕, 功德轮回's hero markers), English is hyphenated and ends no paragraph on one short word
(harbour-lights), no contents page or chapter tail holds a few lines, and the build log gives a
booklet's real page count."""

from __future__ import annotations

import itertools
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader

from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, build_game
from generator.plan.geometry import load_geometry
from generator.plan.render import rich
from generator.text.markdown_cjk import is_ideograph
from generator.text.typeset import keep_together

from .conftest import flat, give_rulebook
from .test_rulebook_typography import (
    BOOKS,
    FEWEST_ROWS,
    GAMES,
    Line,
    game_words,
    read_blocks,
    read_book,
)

EXAMPLES = Path(__file__).parents[1] / "examples"
TAIL_ROWS = 5  # rows a chapter's last page holds at least (thbattle's held two short paragraphs)
RUNT = 5  # letters of a word that may not end a paragraph alone


def follows(line: Line, other: Line) -> bool:
    """Whether `other` is the next line of the paragraph of `line`: just below it, aligned
    left or centred alike."""
    aligned = abs(other.left - line.left) < 2 or \
        abs(other.left + other.right - line.left - line.right) < 4
    return aligned and 0 <= other.top - line.bottom < 0.8 * (line.bottom - line.top)


def read_lines(pdf: Path) -> list[list[list[Line]]]:
    """Each page's blocks of lines, words apart."""
    return [blocks for _, blocks in read_blocks(pdf, " ")]


def block_endings(pdf: Path) -> list[tuple[int, Line, Line]]:
    """The last two lines of each block of two or more: (page, line, last line)."""
    return [(number, block[-2], block[-1])
            for number, blocks in enumerate(read_lines(pdf), start=1)
            for block in blocks if len(block) > 1]


def successions(pdf: Path) -> list[tuple[int, Line, Line, bool]]:
    """Each line followed by the next of its paragraph, whatever block each is in: (page,
    line, next line, whether the next is the paragraph's last)."""
    found = []
    for number, blocks in enumerate(read_lines(pdf), start=1):
        lines = sorted((line for block in blocks for line in block), key=lambda line: line.top)
        pairs = [(a, b) for index, a in enumerate(lines)
                 for b in itertools.takewhile(lambda b, a=a: b.top < 2 * a.bottom - a.top,
                                              lines[index + 1:]) if follows(a, b)]
        inner = {id(a) for a, _ in pairs}
        found += [(number, a, b, id(b) not in inner) for a, b in pairs]
    return found


def lone_character(line: Line, last: Line) -> bool:
    """Whether a paragraph's last line is one CJK character (and what closes it)."""
    letters = [char for char in flat(last.text) if unicodedata.category(char)[0] not in "PS"]
    return len(letters) == 1 and is_ideograph(letters[0]) and len(flat(line.text)) >= 4


def runt(line: Line, last: Line) -> bool:
    """Whether a paragraph's last line is one short word."""
    words = last.text.split()
    return len(words) == 1 and 0 < len(re.sub(r"\W", "", words[0])) <= RUNT \
        and len(line.text.split()) > 2


@pytest.mark.parametrize(("html", "kept"), [
    ("若为出牌阶段使用，需要消耗一点干劲", "若为出牌阶段使用，需要消耗一点<nobr>干劲</nobr>"),
    ("英雄时刻 · 终局 +5 分", "英雄时刻 · 终局 <nobr>+5 分</nobr>"),
    ("他说：「好。」否则在此放置【屯】。", "他说：「好。」否则在此放<nobr>置【屯】。</nobr>"),
    ("「人之将死，若能令其心生净念，功德殊胜。」",
     "「人之将死，若能令其心生净念，功德<nobr>殊胜。」</nobr>"),
    ("造成 <b>3</b> 点伤害。", "造成 <nobr><b>3</b> 点</nobr><nobr>伤害。</nobr>"),
    ("获福<b>无量</b>。<br>天灾共业，渡化-1",
     "获福<nobr><b>无量</b>。</nobr><br>天灾共业，渡<nobr>化-1</nobr>"),
    ("Light a ship now, paying <b>2</b> oil less.",
     "Light a ship now, paying <nobr><b>2</b> oil less.</nobr>"),
    ("<p>Take 3 coins.</p><p>Draw a card.</p>",
     "<p>Take <nobr>3 coins.</nobr></p><p>Draw <nobr>a card.</nobr></p>"),
    ("弹幕", "弹幕"),  # a paragraph kept whole could only overflow its box
    ("Free to hire", "Free <nobr>to hire</nobr>"),
    ("<b>很长很长的一段粗体文字很长很长的一段粗体文字无</b>量。",  # too long to keep
     "<b>很长很长的一段粗体文字很长很长的一段粗体文字无</b>量。"),
])
def test_what_stays_on_one_line(html: str, kept: str) -> None:
    """A number with its unit, a paragraph's last two CJK letters with what closes it, or its
    last two words; inline elements wrapped whole, a paragraph ending at any other tag."""
    assert keep_together(html) == kept


def test_card_text_stays_data_and_markup_is_left_alone() -> None:
    """Escaped card text stays escaped (a reference is one character, never cut); attribute
    values, style sheets, SVG, preformatted text and what is already in <nobr> are left as
    they are."""
    text = rich('<i>伏笔</i> & "3 点"，需要消耗一点干劲。\n**2** <b>')
    assert keep_together(text) == ("&lt;i&gt;伏笔&lt;/i&gt; &amp; &#34;<nobr>3 点</nobr>&#34;，"
                                   "需要消耗一点<nobr>干劲。</nobr><br><b>2</b> &lt;b&gt;")
    alone = ('<div title="a>需要消耗一点干劲" data-x=\'3 点\'><style>p > b { content: "3 点" }'
             '</style><svg><text>3 点</text><svg/><text>消耗一点干劲</text></svg>'
             '<nobr>消耗一点干劲</nobr><pre>消耗一点干劲</pre><!-- 3 点 --></div>')
    assert keep_together(alone) == alone


@pytest.mark.parametrize("game", GAMES)
def test_no_paragraph_ends_on_one_cjk_character(built, game: str) -> None:
    """thbattle's 弹幕 printed "需要消耗一点干 / 劲" on all 46 copies, 功德轮回's hero markers
    "终局 +5 / 分"; now no paragraph of any card, board or rulebook page of the five games
    ends on a line of one CJK character, and no number ends a line without its unit."""
    pdfs = sorted(built(game).glob("*-a4.pdf"))
    assert {pdf.name: [(page, line.text, last.text) for page, line, last in block_endings(pdf)
                       if lone_character(line, last)] for pdf in pdfs} == \
        {pdf.name: [] for pdf in pdfs}
    lines = {pdf.name: [flat(line.text) for page in read_lines(pdf) for block in page
                        for line in block] for pdf in pdfs}
    if game == "thbattle":
        cards = lines["cards-a4.pdf"]
        assert sum(line.endswith("干劲") for line in cards) >= 46
        assert not any(line.endswith("一点干") for line in cards)
    if game == "gongde-lunhui":
        tokens = lines["tokens-a4.pdf"]
        assert sum(line.endswith("+5分") for line in tokens) >= 8  # the hero markers
        assert not any(line.endswith("+5") for line in tokens)


@pytest.fixture(scope="module")
def harbour(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> Path:
    """The English sample game's cards and rulebook, its booklet too, built once on A4."""
    root = tmp_path_factory.mktemp("harbour")
    build_game("harbour-lights", BuildOptions(only=("rulebook", "sheets"),
                                              switches=frozenset({"booklet"})),
               out_root=root, cards_dir=EXAMPLES, workers=pool)
    return root / "harbour-lights"


def test_english_is_hyphenated_and_ends_no_paragraph_on_a_short_word(harbour: Path) -> None:
    """Words broken at a line end are the pack's own words, cut by the language's patterns;
    no paragraph of the rulebook or a card ends on one short word ("less.", "card.")."""
    source = " ".join(path.read_text(encoding="utf-8") for path in sorted(
        (EXAMPLES / "harbour-lights").rglob("*")) if path.suffix in (".md", ".yaml", ".csv"))
    broken = [a.text.split()[-1][:-1] + b.text.split()[0] for pdf in harbour.glob("*.pdf")
              for _, a, b, _ in successions(pdf) if re.search(r"\w[\u2010-]$", a.text)]
    assert broken
    assert all(re.sub(r"\W+$", "", word) in source for word in broken), broken
    for pdf in ("rulebook-a4.pdf", "rulebook-booklet-a4.pdf", "cards-a4.pdf"):
        assert [(page, a.text, b.text) for page, a, b, last in successions(harbour / pdf)
                if last and runt(a, b)] == [], pdf


@pytest.mark.parametrize(("name", "paper"), BOOKS, ids=[f"{g}-{p}" for g, p in BOOKS])
def test_no_contents_page_or_chapter_tail_of_a_few_lines(built, name: str, paper: str) -> None:
    """天机变's contents spilled two entries onto a page of their own, v2's last table three
    rows, thbattle's last chapter two short paragraphs: every contents page holds four
    entries or more, and a chapter's last page (but one it starts on, and the gallery's)
    five lines or more."""
    book = read_book(built(name, paper) / f"rulebook-{paper}.pdf",
                     load_geometry().rulebook_margin, game_words(name)[0])
    first = min(book.chapters)
    short = [(page.number, len(page.rows)) for page in book.pages[1:first - 1]
             if len(page.rows) < FEWEST_ROWS]
    short += [(page.number, len(page.rows)) for page in book.pages[first - 1:book.gallery - 1]
              if book.ends_chapter(page) and page.number not in book.chapters
              and len(page.rows) < TAIL_ROWS]
    assert short == []


def test_contents_set_tight_rather_than_spill_a_few_entries(packs: Path, tmp_path: Path,
                                                            pool: Workers) -> None:
    """44 entries take a page and four more set as usual, so they are set closer, on one
    page: the first chapter starts on the next."""
    (packs / "mini" / "rulebook.md").write_text("## 第一章 规则\n\n" + "".join(
        f"### 第{index}节\n\n文字。\n\n" for index in range(1, 42)), encoding="utf-8")
    build_game("mini", BuildOptions(only=("rulebook",)), out_root=tmp_path, cards_dir=packs,
               workers=pool)
    pdf = tmp_path / "mini" / "rulebook-a4.pdf"
    contents, first = (subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf),
                                       "-"], check=True, capture_output=True, text=True).stdout
                       for page in (2, 3))
    assert all(f"第{index}节" in contents for index in range(1, 42))
    assert flat(first).startswith("第一章规则第一章规则第1节")  # its running head, its title


def test_the_log_gives_a_booklets_pages(packs: Path, tmp_path: Path, pool: Workers) -> None:
    """The build log said "rulebook-booklet-a4.pdf: 37 pages" of a file of 20 sides: the
    pages before imposition. It gives the file's."""
    give_rulebook(packs)
    said: list[str] = []
    build_game("mini", BuildOptions(only=("rulebook",), switches=frozenset({"booklet"})),
               out_root=tmp_path, cards_dir=packs, progress=said.append, workers=pool)
    sides = len(PdfReader(tmp_path / "mini" / "rulebook-booklet-a4.pdf").pages)
    [logged] = [line for line in said if "rulebook-booklet-a4.pdf:" in line]
    assert logged.startswith(f"mini: rulebook-booklet-a4.pdf: {sides} pages, ")
