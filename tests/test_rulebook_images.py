"""Rulebook images sized and captioned (`![caption](file){width=40mm}`), their attributes
checked, and an intro that shares its page with the first chapter: read off the PDF."""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c
import pytest
from PIL import Image

from generator.outputs.rulebook import markdown_html
from generator.pipeline.build import BuildOptions, build_game, validate_game
from generator.plan.geometry import load_geometry

from .conftest import MM, flat, give_rulebook, page_texts

RULEBOOK = BuildOptions(only=("rulebook",))
A4_MIDDLE = 105  # mm from the left edge: the column's middle, its margins being equal
HALF_COLUMN = (210 - 2 * load_geometry().rulebook_margin) / 2  # mm, on A4


def _with_board(packs: Path, markdown: str) -> tuple[Path, int]:
    """The tiny pack's rulebook with `markdown` appended, and a board image of 800 x 500
    pixels (over 300 dpi at 40 mm) beside it; the rulebook's path and its lines before."""
    rulebook = give_rulebook(packs)
    Image.new("RGB", (800, 500), (30, 90, 200)).save(packs / "mini" / "board.png")
    lines = len(rulebook.read_text(encoding="utf-8").splitlines())
    with rulebook.open("a", encoding="utf-8") as text:
        text.write(markdown)
    return rulebook, lines


def _image_and_below(pdf: Path) -> tuple[int, tuple[float, ...], str]:
    """The page (from 0) that draws the one image in the PDF, its bounds in mm (left, bottom,
    right, top, from the page's foot) and the text in the 8 mm below it."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        found = [(index, image.get_bounds()) for index, page in enumerate(document)
                 for image in page.get_objects([pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=8)]
        assert len(found) == 1, found
        [(index, (left, bottom, right, top))] = found
        below = document[index].get_textpage().get_text_bounded(left, bottom - 8 * MM, right,
                                                               bottom)
        return index, tuple(value / MM for value in (left, bottom, right, top)), flat(below)
    finally:
        document.close()


@pytest.mark.parametrize(("size", "width", "height"), [
    ("{width=40mm}", 40, 25),
    ("{height=1in}", 40.64, 25.4),
    ('{width="50%"}', HALF_COLUMN, HALF_COLUMN * 500 / 800),
])
def test_an_image_alone_prints_at_its_size_centred_with_its_caption_below(
        packs: Path, tmp_path: Path, size: str, width: float, height: float) -> None:
    _with_board(packs, f"\n![棋盘全貌](board.png){size}\n\n正文继续。\n")
    build_game("mini", RULEBOOK, out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "rulebook-a4.pdf"
    page, (left, bottom, right, top), below = _image_and_below(pdf)
    assert right - left == pytest.approx(width, abs=0.5)
    assert top - bottom == pytest.approx(height, abs=0.5)
    assert (left + right) / 2 == pytest.approx(A4_MIDDLE, abs=0.5)
    assert below == "棋盘全貌"
    assert page_texts(pdf)[page].endswith(flat("游戏结束。 棋盘全貌 正文继续。 第二章 结束 4"))


def test_an_image_in_a_line_of_text_or_without_alt_text_has_no_caption() -> None:
    html, _ = markdown_html("见 ![图](a.png){width=5mm} 图。\n\n![](b.png)\n\n![*大* 图](c.png)\n")
    assert html == (
        '<p>见 <img src="a.png" alt="图" style="width: 5mm" /> 图。</p>\n'
        '<figure class="illustration"><img src="b.png" alt="" /></figure>\n'
        '<figure class="illustration"><img src="c.png" alt="大 图" />'
        "<figcaption><em>大</em> 图</figcaption></figure>\n")


def test_an_attribute_not_a_size_is_refused_at_its_line(packs: Path, tmp_path: Path) -> None:
    markdown = ('\n![a](board.png){width=40mm onclick="alert(1)"}\n\n'
                '文字 ![b](board.png){style="color: red" height=3px} 文字\n\n'
                "![c](board.png){width=50%}\n")
    rulebook, lines = _with_board(packs, markdown)
    found = [str(f) for f in validate_game("mini", packs, out_root=tmp_path / "out").findings]
    taken = "is not allowed: an image takes only its width and height, as {width=40mm}"
    assert found == [
        f"{rulebook}:{lines + 2}: error: E063: image 'board.png': 'onclick' {taken}",
        f"{rulebook}:{lines + 4}: error: E063: image 'board.png': 'style' {taken}",
        f"{rulebook}:{lines + 4}: error: E063: image 'board.png': height '3px' is not a length "
        "in mm, cm, in or pt",
        f"{rulebook}:{lines + 6}: error: E063: image 'board.png': its {{…}} cannot be read as "
        'attributes (a percentage is quoted, as {width="50%"}) and would print as text']
    html, _ = markdown_html(markdown)
    assert "onclick" not in html and "color" not in html and "3px" not in html
    assert '<img src="board.png" alt="a" style="width: 40mm" />' in html


def test_an_image_attribute_jinja_moved_is_found_at_its_line_in_the_source(
        packs: Path, tmp_path: Path) -> None:
    rulebook, lines = _with_board(packs, "{% for card in decks.spells %}\n{% if loop.first %}"
                                         "\n![{{ card.name }}](board.png){.big}\n{% endif %}"
                                         "\n{% endfor %}\n")
    [found] = validate_game("mini", packs, out_root=tmp_path / "out").findings
    assert str(found) == (f"{rulebook}:{lines + 3}: error: E063: image 'board.png': 'class' "
                          "is not allowed: an image takes only its width and height, as "
                          "{width=40mm}")


def test_an_intro_shares_its_page_with_the_first_chapter(packs: Path, tmp_path: Path) -> None:
    rulebook = give_rulebook(packs)
    build_game("mini", RULEBOOK, out_root=tmp_path / "plain", cards_dir=packs)
    plain = page_texts(tmp_path / "plain" / "mini" / "rulebook-a4.pdf")
    intro = "本书讲述如何游玩：导言在第一章之前。"
    rulebook.write_text(f"{intro}\n\n" + rulebook.read_text(encoding="utf-8"), encoding="utf-8")
    build_game("mini", RULEBOOK, out_root=tmp_path / "intro", cards_dir=packs)
    pages = page_texts(tmp_path / "intro" / "mini" / "rulebook-a4.pdf")
    assert len(pages) == len(plain) == 5  # cover, contents, two chapters, gallery
    assert plain[2].startswith(flat("第一章 规则 每张法术牌有费用。"))
    assert pages[2] == flat(intro) + plain[2]
    assert pages[3:] == plain[3:]
    assert pages[1] == plain[1]  # the contents: the chapters' pages unmoved
