"""The project's fonts: every PDF embeds each font it names, all of them the project's; the
symbol fallback behind every family draws what the family lacks, and only that."""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path

import pikepdf
import pytest
from fontTools.ttLib import TTFont

from generator import FONTS_DIR
from generator.layout.workers import Workers
from generator.pipeline.build import build_game, validate_game
from generator.text.fonts import face_name, list_markers, load_fonts, subset_font, unicode_ranges

from .conftest import GAMES, Built, edit, page_texts

HEXAGRAMS = "".join(map(chr, range(0x4DC0, 0x4E00)))  # ䷀…䷿, in King Wen order
TRIGRAMS = "".join(map(chr, range(0x2630, 0x2638)))  # ☰…☷
SYMBOLS = "Noto Sans Symbols 2"


def _fonts(pdf: Path) -> list[tuple[str, bool]]:
    """Each font a PDF holds (a composite font's descendant in its stead): its name, and
    whether its file is embedded."""
    found = []
    with pikepdf.open(pdf) as document:
        for item in document.objects:
            if not isinstance(item, pikepdf.Dictionary) or item.get("/Type") != "/Font":
                continue
            if item.get("/Subtype") in ("/Type0", "/Type3"):
                continue  # a Type0 font's glyphs are its descendant's; a Type3 draws its own
            descriptor = item.get("/FontDescriptor", {})
            embedded = any(key in descriptor for key in ("/FontFile", "/FontFile2",
                                                         "/FontFile3"))
            found.append((str(item.get("/BaseFont")), embedded))
    return found


@pytest.mark.parametrize("name", GAMES)
def test_every_font_of_every_pdf_is_embedded_and_the_projects(built: Built,
                                                              name: str) -> None:
    faces = {face_name(path) for path in load_fonts().files()}
    pdfs = sorted(built(name, "a4").glob("*.pdf"))
    assert pdfs
    for pdf in pdfs:
        for font, embedded in _fonts(pdf):
            assert embedded, f"{pdf.name}: {font} is not embedded"
            assert re.sub(r"^/[A-Z]{6}\+", "", font) in faces, \
                f"{pdf.name}: {font} is not one of the project's fonts"


def test_the_symbol_font_has_the_hexagrams_trigrams_and_list_markers() -> None:
    face = next(face for face in load_fonts().fallbacks if face.family == SYMBOLS)
    assert face.path.parent == FONTS_DIR  # committed, not the machine's
    with TTFont(face.path) as font:
        have = set(font.getBestCmap())
        assert "Open Font License" in font["name"].getDebugName(13)
    assert set(map(ord, HEXAGRAMS + TRIGRAMS + "◦▪▾▸")) <= have
    assert face.path.stat().st_size < 400_000


def test_the_fallback_draws_only_what_a_family_lacks() -> None:
    fonts = load_fonts()
    css = fonts.font_face_css({"Noto Sans SC", "Noto Serif SC"})
    fallbacks = [line for line in css.splitlines() if "unicode-range" in line]
    assert len(fallbacks) == 16  # each weight and style of each family, for each fallback
    hebrew = [line for line in fallbacks if "NotoSansHebrew-" in line]
    assert len(hebrew) == 8 and all("extra-condensed" in line for line in hebrew)
    assert sum("NotoSansHebrew-Bold.ttf" in line for line in hebrew) == 4  # bold, bold oblique
    for family in ("Noto Sans SC", "Noto Serif SC"):
        rule = next(line for line in fallbacks if f"'{family}'" in line)
        assert "NotoSansSymbols2-Regular.ttf" in rule and "ultra-condensed" in rule
        assert "U+4DC0-4DFF" in rule and "U+2630-2637" in rule
        assert "U+25E6" not in rule and "U+25AA" not in rule  # the family's own ◦ ▪
        stack = fonts.stack_characters(family)
        assert set(map(ord, HEXAGRAMS + TRIGRAMS)) <= stack
        assert ord("乾") in stack and 0x1F525 not in stack


def test_unicode_ranges_join_neighbours() -> None:
    assert unicode_ranges([0x2637, 0x25B2, 0x2630, 0x2631, 0x2632, 0x2633, 0x2634, 0x2635,
                           0x2636]) == "U+25B2, U+2630-2637"


def test_list_markers_are_kept_where_a_list_may_draw_them() -> None:
    assert list_markers("<ul><li>一</li></ul><ol><li>二</li></ol>") == set()
    assert list_markers("<ul><li>一<ul><li>二</li></ul></li></ul>") == {ord("◦")}
    assert list_markers("<ol><li><ul><li><ul><li>三") == {ord("◦"), ord("▪")}
    assert list_markers(".x { list-style-type: square }<circle r='2'/>") == {ord("▪")}
    assert list_markers("<details><summary>看</summary></details>") == {ord("▾"), ord("▸")}
    regular = next(face.path for face in load_fonts().faces if face.family == "Noto Sans SC")
    with TTFont(BytesIO(subset_font(regular, "<ul><li>a<ul><li>b"))) as font:
        assert {ord("◦"), ord("•")} <= set(font.getBestCmap())


def test_a_card_prints_hexagrams_and_trigrams_from_the_fallback(packs: Path,
                                                                pool: Workers) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "name: 火球术", "name: 乾䷀☰火球术")
    groups = " ".join(HEXAGRAMS[start:start + 8] for start in range(0, 64, 8))
    edit(spells, "text: 造成 **3** 点伤害。", f"text: 造成 **3** 点伤害。{groups} {TRIGRAMS}")
    out = packs.parent / "out"
    assert validate_game("mini", packs, out_root=out, workers=pool).findings == []
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    cards = out / "mini" / "cards-a4.pdf"
    text = "".join(page_texts(cards))
    assert "乾䷀☰火球术" in text and HEXAGRAMS + TRIGRAMS in text
    fonts = _fonts(cards)
    assert all(embedded for _, embedded in fonts)
    assert any(font.endswith("+NotoSansSymbols2-Regular") for font, _ in fonts)  # the fallback


def test_tianjibian_prints_its_hexagram_symbols(built: Built) -> None:
    text = "".join(t for pdf in sorted(built("tianjibian", "a4").glob("*.pdf"))
                   for t in page_texts(pdf))
    assert set(HEXAGRAMS) <= set(text)
    assert set(TRIGRAMS) <= set(text)
