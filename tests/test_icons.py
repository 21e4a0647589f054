"""Icons in text: `:coin:` draws the pack's image inline, on the line, in the text's colour;
an unknown name is an error at its line; exports that carry text say `[coin]`."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2
from PIL import Image, ImageChops

from generator.exports.tts import describe
from generator.pipeline.build import BuildOptions, build_game, check, validate_game
from generator.text.icons import draw, markup

from .conftest import (
    MM,
    edit,
    give_rulebook,
    give_template,
    page_texts,
    pixel_mm,
    render_page,
)

RED = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">' \
      '<rect width="20" height="10" fill="#ff0000"/></svg>'
COIN = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)">' \
       '<script>alert(1)</script><circle cx="5" cy="5" r="5" fill="currentColor"/></svg>'
DPI = 200


def _iconic(packs: Path, text: str) -> Path:
    """The tiny pack with the icons gem (a red 2:1 box) and coin (a disc in currentColor),
    and `text` as the first card's effect; returns the pack."""
    pack = packs / "mini"
    (pack / "gem.svg").write_text(RED, encoding="utf-8")
    (pack / "coin.svg").write_text(COIN, encoding="utf-8")
    edit(pack / "game.yaml", "palette:", "icons: {coin: coin.svg, gem: gem.svg}\npalette:")
    edit(pack / "spells.yaml", "text: 造成 **3** 点伤害。<b>不是标记</b>", f"text: '{text}'")
    return pack


def _box(image, colour: tuple[int, int, int]) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels of a pure `colour` in the page's first card."""
    card = image.crop((0, 0, round(80 / 25.4 * DPI), round(100 / 25.4 * DPI)))
    wanted = [band.point(lambda v, full=full: 255 if (v > 200) == full else 0)
              for band, full in zip(card.split(), (c == 255 for c in colour), strict=True)]
    hit = wanted[0]
    for band in wanted[1:]:
        hit = ImageChops.multiply(hit, band)
    return hit.getbbox()


def _chars(pdf: Path, wanted: str) -> list[tuple[float, float, float, float]]:
    """The boxes (left, bottom, right, top in points) of each of `wanted`'s characters on
    the first page, in order."""
    document = pypdfium2.PdfDocument(pdf)
    text = document[0].get_textpage()
    found = {}
    for index in range(text.count_chars()):
        char = text.get_text_range(index, 1)
        if char in wanted and char not in found:
            found[char] = text.get_charbox(index)
    document.close()
    return [found[char] for char in wanted]


def test_an_icon_is_drawn_on_the_line_as_high_as_the_text(packs: Path, tmp_path: Path) -> None:
    _iconic(packs, "造成 :gem: 伤害")
    build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "cards-a4.pdf"
    assert "造成伤害" in page_texts(pdf)[0] and ":gem:" not in page_texts(pdf)[0]
    box = _box(render_page(pdf, 0, DPI), (255, 0, 0))
    assert box is not None
    left, top, right, bottom = (value * 25.4 / DPI for value in box)  # mm from the corner
    before, after = _chars(pdf, "成伤")
    height_mm = (before[3] - before[1]) / MM
    page_height = pypdfium2.PdfDocument(pdf)[0].get_height()
    assert before[2] / MM <= left + 0.3 and right <= after[0] / MM + 0.3  # between the two
    assert abs((bottom - top) - height_mm) < 0.25 * height_mm  # 1 em high
    assert abs((right - left) - 2 * (bottom - top)) < 0.3  # its shape kept: 2:1
    line_top, line_bottom = (page_height - before[3]) / MM, (page_height - before[1]) / MM
    assert line_top - 0.6 < top and bottom < line_bottom + 0.6  # on the characters' line


def test_an_svg_icon_takes_the_colour_of_its_text_and_loses_its_scripts(packs: Path,
                                                                     tmp_path: Path) -> None:
    pack = _iconic(packs, "造成伤害")
    give_template(pack, '<div class="section" data-field="paid" style="color: #0000ff">'
                        '付 :coin: 金</div>')
    build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "cards-a4.pdf"
    before, after = _chars(pdf, "付金")
    height = pypdfium2.PdfDocument(pdf)[0].get_height()
    middle = ((before[2] + after[0]) / 2 / MM, (height - (before[1] + before[3]) / 2) / MM)
    assert pixel_mm(render_page(pdf, 0, DPI), *middle, dpi=DPI) == (0, 0, 255)  # the disc
    drawn = markup("coin", Path("coin.svg"), COIN.encode())
    assert "script" not in drawn and "onload" not in drawn and 'class="icon icon-coin"' in drawn


def test_an_escaped_icon_is_text_and_a_pack_without_icons_has_only_colons(
        packs: Path, tmp_path: Path) -> None:
    _iconic(packs, r"造成 \:coin: 伤害")
    build_game("mini", BuildOptions(), out_root=tmp_path / "a", cards_dir=packs)
    assert "造成:coin:伤害" in page_texts(tmp_path / "a" / "mini" / "cards-a4.pdf")[0]
    edit(packs / "mini" / "game.yaml", "icons: {coin: coin.svg, gem: gem.svg}\n", "")
    edit(packs / "mini" / "spells.yaml", r"造成 \:coin: 伤害", "造成 :coin: 伤害")
    build_game("mini", BuildOptions(), out_root=tmp_path / "b", cards_dir=packs)
    assert "造成:coin:伤害" in page_texts(tmp_path / "b" / "mini" / "cards-a4.pdf")[0]
    assert draw("<p>:coin:</p><style>a:coin:b {}</style>", {"coin": "<i></i>"}) == \
        "<p><i></i></p><style>a:coin:b {}</style>"
    assert draw('<p title=":coin:">x&#58;coin:</p>', {"coin": "<i></i>"}) == \
        '<p title=":coin:">x&#58;coin:</p>'


def test_an_unknown_icon_is_an_error_at_its_line_naming_the_games_icons(packs: Path) -> None:
    pack = _iconic(packs, "造成 :gold: 伤害 :coin:")
    give_rulebook(packs)
    with (pack / "rulebook.md").open("a", encoding="utf-8") as rulebook:
        rulebook.write("\n付出 :silver: 一枚，:gem: 不算。\n")
    lines = (pack / "rulebook.md").read_text(encoding="utf-8").count("\n")
    found = [str(f) for f in check("mini", packs).findings if f.code == "E053"]
    spells, book = pack / "spells.yaml", pack / "rulebook.md"
    hint = "its icons are coin, gem (`icons:` in game.yaml; `\\:{}:` prints the text)"
    assert found == [
        f"{book}:{lines}: error: E053: ':silver:' is no icon of the game; "
        + hint.format("silver"),
        f"{spells}:7: error: E053: ':gold:' is no icon of the game; " + hint.format("gold")]


def test_a_missing_icon_file_is_an_error_at_its_line(packs: Path) -> None:
    pack = _iconic(packs, "造成 :coin: 伤害")
    (pack / "coin.svg").unlink()
    found = [str(f) for f in check("mini", packs).findings if f.code == "E051"]
    assert found == [f"{pack / 'game.yaml'}:5: error: E051: icon 'coin': 'coin.svg' does not "
                     "exist"]


def test_icons_in_the_rulebook_and_in_text_exports(packs: Path, tmp_path: Path) -> None:
    pack = _iconic(packs, "造成 :gem: 伤害")
    give_rulebook(packs)
    with (pack / "rulebook.md").open("a", encoding="utf-8") as rulebook:
        rulebook.write("\n付出 :gem: 一枚，\\:gem: 不算。\n")
    edit(pack / "rulebook.md", "## 第一章 规则", "## 第一章 :gem: 规则")
    build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "rulebook-a4.pdf"
    texts = page_texts(pdf)
    page = next(index for index, text in enumerate(texts) if "付出一枚" in text)
    assert ":gem:不算" in texts[page]
    contents = next(index for index, text in enumerate(texts) if "第一章规则" in text)
    assert contents < page and not any(":gem:" in text.replace(":gem:不算", "")
                                       for text in texts)
    for drawn in (page, contents):  # the chapter's text, and its line in the contents
        assert _box(render_page(pdf, drawn, DPI), (255, 0, 0)) is not None, drawn
    game = check("mini", packs).game
    card = game.decks[0].cards[0]
    assert "造成 [gem] 伤害" in describe(game.decks[0], card, game.spec.icons)
    assert json.dumps(describe(game.decks[0], card)).count(":gem:") == 1  # no icons: as written


def test_an_icon_past_its_box_is_an_overflow(packs: Path, tmp_path: Path) -> None:
    _iconic(packs, " ".join([":gem:"] * 400))  # no text at all: only icons run past
    report = validate_game("mini", packs, out_root=tmp_path)
    overflow = [f.message for f in report.findings if f.code == "E070"]
    assert len(overflow) == 1 and overflow[0].startswith(
        "card 'S1': 'sections.0 效果' runs "), overflow


def test_a_png_icon_is_drawn_as_an_image_of_its_file(packs: Path, tmp_path: Path) -> None:
    pack = _iconic(packs, "造成 :tap: 伤害")
    Image.new("RGB", (40, 20), (255, 0, 0)).save(pack / "tap.png")
    edit(pack / "game.yaml", "icons: {coin: coin.svg, gem: gem.svg}",
         "icons: {coin: coin.svg, gem: gem.svg, tap: tap.png}")
    build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "cards-a4.pdf"
    box = _box(render_page(pdf, 0, DPI), (255, 0, 0))
    assert box is not None and ":tap:" not in page_texts(pdf)[0]
    width, height = box[2] - box[0], box[3] - box[1]
    assert abs(width - 2 * height) <= 3  # its 2:1 shape, 1 em high
