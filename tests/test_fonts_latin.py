"""Latin faces beside the CJK ones, chosen by the pack's language; a pack's own font files; and
italic and bold that are real faces or a warning (W079)."""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium
import pytest
from fontTools.ttLib import TTFont

from generator import FONTS_DIR
from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, build_game, check, validate_game

from .conftest import edit, flat, page_texts
from .test_fonts import _fonts

CARDS = BuildOptions(only=("sheets",))


class Glyph:
    """One character drawn on a PDF page: where its origin is, its size and its font."""

    def __init__(self, char: str, x: float, size: float, font: str):
        self.char, self.x, self.size, self.font = char, x, size, font


def _glyphs(pdf: Path, index: int) -> list[Glyph]:
    """Every character drawn on a page, in reading order, its font without the subset tag."""
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        text = document[index].get_textpage()
        glyphs = []
        for number in range(text.count_chars()):
            x, y = ctypes.c_double(), ctypes.c_double()
            pdfium.FPDFText_GetCharOrigin(text, number, x, y)
            name = ctypes.create_string_buffer(200)
            pdfium.FPDFText_GetFontInfo(text, number, name, 200, ctypes.c_int())
            glyphs.append(Glyph(chr(pdfium.FPDFText_GetUnicode(text, number)), x.value,
                                pdfium.FPDFText_GetFontSize(text, number),
                                name.value.decode().partition("+")[2]))
        return glyphs
    finally:
        document.close()


def _at(glyphs: list[Glyph], word: str) -> list[Glyph]:
    """The glyphs of the first place a page draws `word`."""
    chars = "".join(glyph.char for glyph in glyphs)
    start = chars.index(word)
    return glyphs[start:start + len(word)]


def _advance(glyphs: list[Glyph], word: str, char: str) -> tuple[float, str]:
    """How far `char` inside `word` moves the pen, in em, and the font it is drawn in."""
    drawn = _at(glyphs, word)
    place = word.index(char)
    glyph = drawn[place]
    return (drawn[place + 1].x - glyph.x) / glyph.size, glyph.font


def _english(cards: Path) -> Path:
    """Make the tiny pack English, its first card “Keeper’s Lantern” with a quote, its rulebook
    with italic; return the pack."""
    pack = cards / "mini"
    edit(pack / "game.yaml", "language: zh-CN  #", "#")
    edit(pack / "game.yaml", "title: 测试小包\n", "title: Lantern Test\nlanguage: en\n")
    edit(pack / "spells.yaml", "name: 火球术",
         "name: Keeper’s Lantern\n  quote: Light the “lamp” first.")
    (pack / "rulebook.md").write_text(
        "## Rules\n\nLight the *Keeper’s Lantern* and say “go”.\n\n"
        "> *The lamp’s light* is **bright**.\n", encoding="utf-8")
    return pack


def _lantern(pack: Path, extra: str = "") -> None:
    """Give a pack its own font, family Lantern (Noto Serif's regular face under another
    name, PostScript name Lantern-Regular), for its headings and flavour text."""
    (pack / "fonts").mkdir()
    font = TTFont(FONTS_DIR / "NotoSerif-Regular.ttf")
    font["name"].setName("Lantern-Regular", 6, 3, 1, 0x409)
    font.save(pack / "fonts" / "lantern.ttf")
    edit(pack / "game.yaml", "fonts: {body: Noto Sans SC, heading: Noto Sans SC, flavor: Noto "
         "Serif SC}", "fonts: {body: Noto Sans SC, heading: Lantern, flavor: Lantern}\n"
         "font_files:\n  - {family: Lantern, weight: 400, file: fonts/lantern.ttf, "
         f"licence: OFL-1.1}}\n{extra}")


def test_an_english_pack_sets_latin_text_in_the_latin_faces(packs: Path, pool: Workers) -> None:
    _english(packs)
    out = packs.parent / "out"
    assert validate_game("mini", packs, out_root=out, workers=pool).findings == []
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    cards, rulebook = out / "mini" / "cards-a4.pdf", out / "mini" / "rulebook-a4.pdf"
    fonts = {name.partition("+")[2]: embedded for name, embedded in _fonts(cards)}
    assert {"NotoSans-Bold", "NotoSerif-Regular", "NotoSansSC-Regular"} <= set(fonts)
    assert all(fonts.values())
    card = _glyphs(cards, 0)
    # the Latin face's apostrophe is a fifth of an em; the CJK face's is a whole one
    advance, font = _advance(card, "Keeper’s", "’")
    assert font == "NotoSans-Bold" and 0.1 < advance < 0.35
    assert {glyph.font for glyph in _at(card, "“lamp”")} == {"NotoSerif-Regular"}
    assert _at(card, "法术")[0].font == "NotoSansSC-Regular"  # the deck's name: CJK behind Latin
    page = next(index for index, text in enumerate(page_texts(rulebook))
                if "Keeper’sLantern" in text)
    text = flat(page_texts(rulebook)[page])
    assert "LighttheKeeper’sLanternandsay“go”." in text
    glyphs = _glyphs(rulebook, page)
    assert {glyph.font for glyph in _at(glyphs, "Keeper’s")} == {"NotoSans-Italic"}
    assert {glyph.font for glyph in _at(glyphs, "lamp’s")} == {"NotoSerif-Italic"}
    assert {glyph.font for glyph in _at(glyphs, "bright")} == {"NotoSerif-Bold"}


def test_a_chinese_pack_keeps_full_width_quotes_and_sets_emphasis_upright(
        packs: Path, pool: Workers) -> None:
    pack = packs / "mini"
    edit(pack / "spells.yaml", "name: 火球术", "name: 守夜人’s灯")
    (pack / "rulebook.md").write_text("## 规则\n\n点亮*守夜人的灯 v5.7*。**乾☰**\n",
                                      encoding="utf-8")
    out = packs.parent / "out"
    # no W079: not for the upright emphasis, nor for the bold ☰ the symbol fallback draws
    assert validate_game("mini", packs, out_root=out, workers=pool).findings == []
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    advance, font = _advance(_glyphs(out / "mini" / "cards-a4.pdf", 0), "人’s", "’")
    assert font == "NotoSansCJKsc-Bold" and advance > 0.6  # about an em
    rulebook = out / "mini" / "rulebook-a4.pdf"
    page = next(index for index, text in enumerate(page_texts(rulebook)) if "点亮" in text)
    emphasis = _at(_glyphs(rulebook, page), "守夜人的灯 v5.7")
    assert {glyph.font for glyph in emphasis} == {"NotoSansSC-Regular"}  # its upright face


def test_a_pack_font_is_used_and_embedded(packs: Path, pool: Workers) -> None:
    pack = _english(packs)
    _lantern(pack)
    out = packs.parent / "out"
    build_game("mini", CARDS, out_root=out, cards_dir=packs, workers=pool)
    cards = out / "mini" / "cards-a4.pdf"
    assert ("Lantern-Regular", True) in [(name.partition("+")[2], embedded)
                                 for name, embedded in _fonts(cards)]
    glyphs = _glyphs(cards, 0)
    assert {glyph.font for glyph in _at(glyphs, "Light")} == {"Lantern-Regular"}  # flavor
    assert _at(glyphs, "Keeper’s")[0].font == "Lantern-Regular"  # its regular face, at 700
    assert _at(glyphs, "治疗术")[0].font == "NotoSansCJKsc-Bold"  # behind it, for Chinese


def test_the_glyph_check_takes_a_pack_fonts_stack(packs: Path) -> None:
    pack = packs / "mini"
    _lantern(pack)
    edit(pack / "game.yaml", "body: Noto Sans SC", "body: Lantern")
    spells = pack / "spells.yaml"
    edit(spells, "name: 治疗术", "name: 治疗术 ẞ\U00013000")  # ẞ: Lantern's; 治疗术: Noto Sans SC's
    assert [str(finding) for finding in check("mini", packs).findings] == [
        f"{spells}:9: error: E080: font 'Lantern' has no glyph for '\U00013000' (U+13000)"]


def test_a_pack_font_that_cannot_be_used_is_an_error_at_its_line(packs: Path) -> None:
    pack = packs / "mini"
    (pack / "fonts").mkdir()
    (pack / "fonts" / "junk.ttf").write_text("not a font", encoding="utf-8")
    (pack / "fonts" / "broken.otf").write_bytes(b"OTTO" + bytes(40))
    shutil.copy(FONTS_DIR / "NotoSans-Regular.ttf", pack / "fonts" / "upright.ttf")
    (packs / "outside.ttf").write_bytes((FONTS_DIR / "NotoSans-Regular.ttf").read_bytes())
    entries = [("Outside", "../outside.ttf", ""), ("Junk", "fonts/junk.ttf", ""),
               ("Slanted", "fonts/upright.ttf", "style: italic, "),
               ("Heavy", "fonts/upright.ttf", "weight: 700, "),
               ("Gone", "fonts/gone.ttf", ""), ("Noto Sans SC", "fonts/upright.ttf", ""),
               ("Broken", "fonts/broken.otf", "")]
    game = pack / "game.yaml"
    edit(game, "fonts: {body: Noto Sans SC, heading: Noto Sans SC,",
         "fonts: {body: Noto Sans SC, heading: Junk,")
    game.write_text(game.read_text(encoding="utf-8") + "font_files:\n" + "".join(
        f"  - {{family: {family}, {extra}file: {file}, licence: OFL-1.1}}\n"
        for family, file, extra in entries), encoding="utf-8")
    first = game.read_text(encoding="utf-8").splitlines().index("font_files:") + 2
    found = [str(finding) for finding in check("mini", packs).findings]
    assert found == [
        f"{game}:{first}: error: E050: font_files: '../outside.ttf' lies outside the game pack",
        f"{game}:{first + 1}: error: E082: font_files: 'fonts/junk.ttf' is not a TrueType or "
        "OpenType font (.ttf, .otf)",
        f"{game}:{first + 2}: error: E082: font_files: 'fonts/upright.ttf' is an upright face, "
        "but is declared italic",
        f"{game}:{first + 3}: error: E082: font_files: 'fonts/upright.ttf' is a face of weight "
        "400, but is declared weight 700",
        f"{game}:{first + 4}: error: E001: font_files: 'fonts/gone.ttf' not found",
        f"{game}:{first + 5}: error: E082: font_files: family 'Noto Sans SC' is one of the "
        "project's (fonts/fonts.yaml): give the pack's font a name of its own",
        f"{game}:{first + 6}: error: E082: font_files: 'fonts/broken.otf' cannot be read as a "
        "font (no 'head' table)",
    ]  # and no E025 for the heading's family 'Junk': its file is what is wrong


def test_a_missing_italic_or_bold_face_is_a_warning(packs: Path, pool: Workers) -> None:
    pack = _english(packs)
    _lantern(pack, "stylesheet: style.css\n")
    (pack / "style.css").write_text(".face .quote { font-style: italic; }\n", encoding="utf-8")
    edit(pack / "game.yaml", "heading: Lantern", "heading: Noto Sans SC")
    found = [str(finding) for finding in
             validate_game("mini", packs, out_root=packs.parent / "out", workers=pool).findings]
    rulebook = pack / "rulebook.md"
    assert found == [
        f"{rulebook}: warning: W079: 'The lamp’s light' is set in italic, but 'Lantern' has no "
        "italic face: it prints in its regular face",
        f"{rulebook}: warning: W079: 'bright' is set in bold, but 'Lantern' has no bold face: "
        "it prints in its regular face",
        f"{pack / 'spells.yaml'}:1: warning: W079: card 'S1': 'quote' is set in italic, but "
        "'Lantern' has no italic face: it prints in its regular face",
    ]


@pytest.mark.parametrize(("css", "codes"), [
    (".face .title { font-family: sans-serif !important; }", {"E083", "E081"}),
    ("@font-face { font-family: 'Mine'; src: local('DejaVu Sans'); }\n"
     ".face .title { font-family: 'Mine' !important; }", {"E052"})], ids=["generic", "local"])
def test_text_in_a_family_no_font_face_declares_stops_the_build(
        packs: Path, tmp_path: Path, pool: Workers, css: str, codes: set[str]) -> None:
    """A stylesheet asking for a generic family takes whatever the machine has (DejaVu Sans
    here, nothing on a machine with no fonts), and one naming a machine font through
    `local()` is refused by the fetcher: an error, never a PDF that differs elsewhere."""
    from generator.check.findings import PackError

    pack = packs / "mini"
    (pack / "style.css").write_text(css + "\n", encoding="utf-8")
    edit(pack / "game.yaml", "language: zh-CN  #", "#")
    edit(pack / "game.yaml", "players: 1-2人\n",
         "players: 1-2人\nstylesheet: style.css\nlanguage: en\n")
    edit(pack / "spells.yaml", "name: 火球术", "name: Fireball")
    with pytest.raises(PackError) as caught:
        build_game("mini", BuildOptions(), out_root=tmp_path / "out", cards_dir=packs,
                   workers=pool)
    assert codes & {finding.code for finding in caught.value.findings}, caught.value.findings
    drawn = [f.message for f in caught.value.findings if f.code == "E083"]
    assert all(message.startswith("text is drawn in '") and "a font of this machine" in message
               for message in drawn)
    assert not (tmp_path / "out" / "mini" / "cards-a4.pdf").exists()
