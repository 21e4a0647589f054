"""Fonts every reader draws: each embedded CID-keyed CFF font gives a glyph the CID its code
names (MuPDF and Ghostscript look glyphs up through the charset; Poppler and PDFium do not),
and Ghostscript draws the tiny pack's Chinese as PDFium does."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pypdfium2
import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageChops, ImageStat

from generator import PROJECT_ROOT
from generator.layout.workers import Workers
from generator.pipeline.build import build_game

from .conftest import flat, page_texts

DPI = 100


def _built(packs: Path, pool: Workers) -> Path:
    """The tiny pack's card sheets, built."""
    out = packs.parent / "out"
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    return out / "mini" / "cards-a4.pdf"


def test_every_cid_font_has_an_identity_charset(packs: Path, pool: Workers) -> None:
    """Glyph i is CID i in every CID-keyed CFF font of the file, Chinese ones included."""
    checked = []
    with pikepdf.open(_built(packs, pool)) as pdf:
        for font in pdf.objects:
            if isinstance(font, pikepdf.Dictionary) and font.get("/Type") == "/FontDescriptor" \
                    and "/FontFile3" in font:
                top = TTFont(io.BytesIO(font.FontFile3.read_bytes()))["CFF "].cff.topDictIndex[0]
                if hasattr(top, "ROS"):
                    names = list(top.charset)
                    assert names == [".notdef", *(f"cid{index:05d}"
                                                  for index in range(1, len(names)))]
                    checked.append(str(font.FontName))
    assert any("SC" in name for name in checked), checked


@pytest.mark.parametrize("name", ["cards-a4.pdf", "rulebook-a4.pdf"])
def test_each_face_is_embedded_once_per_file(default_a4: Path, name: str) -> None:
    """The default game's parts each cut their own subset of a face; the file holds one font
    per face, named by it, cut to the glyphs the whole file draws, with no mark of the join's
    left, and its text still reads."""
    with pikepdf.open(default_a4 / name) as pdf:
        faces = [str(font.BaseFont).split("+")[1] for font in pdf.objects
                 if isinstance(font, pikepdf.Dictionary) and font.get("/Type") == "/Font"
                 and font.get("/Subtype") == "/Type0"]
        marks = [font for font in pdf.objects if isinstance(font, pikepdf.Dictionary)
                 and ("/PnpFace" in font or "/PnpGlyphs" in font)]
    assert sorted(faces) == sorted(set(faces)) and "NotoSansSC-Regular" in faces, faces
    assert not marks
    text = "".join(page_texts(default_a4 / name))
    assert ("集体事件" if name.startswith("cards") else "在这个世界里，众生皆苦") in flat(text)


def test_a_joined_font_draws_what_each_part_drew(packs: Path, pool: Workers) -> None:
    """Two parts draw different Chinese in the same face: joined, the one font has each
    part's glyphs, and every page reads as its part did."""
    from generator.layout.engine import render
    from generator.pdf.assemble import join
    from generator.text.fonts import face_key, load_fonts

    fonts = load_fonts().files()
    css = "".join(f"@font-face {{ font-family: F{i}; src: url('{path.as_uri()}'); }}"
                  for i, path in enumerate(fonts))
    family = next(i for i, path in enumerate(fonts) if path.name == "NotoSansSC-Regular.otf")
    pages = ["天地玄黄", "宇宙洪荒 abc", "天 荒"]
    parts = [render(f"<style>{css} p {{ font-family: F{family} }}</style><p>{text}</p>",
                    PROJECT_ROOT, fonts, 0) for text in pages]
    joined = join(parts, {}, fonts={face_key(path): path for path in fonts})
    with pikepdf.open(io.BytesIO(joined)) as pdf:
        assert len([font for font in pdf.objects if isinstance(font, pikepdf.Dictionary)
                    and font.get("/Subtype") == "/Type0"]) == 1
    document = pypdfium2.PdfDocument(joined)
    assert [document[index].get_textpage().get_text_range() for index in range(3)] == pages


@pytest.mark.skipif(shutil.which("gs") is None, reason="needs Ghostscript")
def test_ghostscript_draws_the_chinese_as_pdfium_does(packs: Path, pool: Workers,
                                                      tmp_path: Path) -> None:
    """Page 1 drawn by Ghostscript and by PDFium at 100 dpi: the same ink, not boxes where
    glyphs go."""
    pdf = _built(packs, pool)
    drawn = tmp_path / "gs.png"
    subprocess.run(["gs", "-q", "-dSAFER", "-dNOPAUSE", "-dBATCH", "-sDEVICE=png16m",
                    f"-r{DPI}", "-dFirstPage=1", "-dLastPage=1", "-dTextAlphaBits=4",
                    "-dGraphicsAlphaBits=4", f"-sOutputFile={drawn}", str(pdf)],
                   check=True, timeout=120)
    ghostscript = Image.open(drawn).convert("RGB")
    page = pypdfium2.PdfDocument(str(pdf))[0]
    pdfium = page.render(scale=DPI / 72).to_pil().convert("RGB").resize(ghostscript.size)
    inked = ImageChops.darker(ghostscript, pdfium).convert("L").point(lambda v: 255 * (v < 160))
    apart = ImageChops.difference(ghostscript, pdfium).convert("L")
    where = ImageStat.Stat(apart, mask=inked).mean[0]  # mean difference where either inks
    assert where < 20, where  # 15 here; 27 where Ghostscript drew boxes for the glyphs


def test_a_font_fonttools_cannot_read_is_left_as_it_is(packs: Path, pool: Workers) -> None:
    """A damaged font stream stops nothing: the file keeps it, and the other fonts are made
    identity still."""
    from generator.pdf.assemble import embedded_fonts

    with pikepdf.open(_built(packs, pool)) as pdf:
        fonts = [font for font in pdf.objects if isinstance(font, pikepdf.Dictionary)
                 and font.get("/Type") == "/FontDescriptor" and "/FontFile3" in font]
        fonts[0].FontFile3.write(b"not a font")
        buffer = io.BytesIO()
        pdf.save(buffer)
    with pikepdf.open(io.BytesIO(embedded_fonts(buffer.getvalue()))) as again:
        kept = [font.FontFile3.read_bytes() for font in again.objects
                if isinstance(font, pikepdf.Dictionary)
                and font.get("/Type") == "/FontDescriptor" and "/FontFile3" in font]
    assert b"not a font" in kept
