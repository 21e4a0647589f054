"""Every reader draws every output alike: one page of each file of every real pack (card
sheets, tokens, boards, aids, score sheets, dice, rulebook; the print-shop files of the example
and of the default game; the example's booklet and a reprint's proof of it; the calibration
page), drawn at 50 dpi by Poppler, PDFium, MuPDF and Ghostscript, must show the same ink on a
grid of 4 mm cells.

Anti-aliasing, hinting and how wide each reader draws a hairline differ, so two drawings are
compared where one surely inks a pixel and the other inks nothing within a pixel of it (a blank
glyph, a missing picture or mark), and by each cell's mean ink (a fill in another shade, a
large glyph drawn as a box). The Chinese packs' booklets and the other packs' print-shop files
are left out of the test's time: they place the same fonts through the same code (a booklet
imposes its pages as forms, as card sheets place faces).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pikepdf
import pypdfium2
import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageChops

from generator import CARDS_DIR, DEFAULT_GAME
from generator.cli import main
from generator.editions.reprint import release, reprint
from generator.exports.base import ExportSettings
from generator.exports.run import export
from generator.layout.workers import Workers
from generator.pipeline.build import build_game
from generator.pipeline.cache import BuildOptions

from .conftest import GAMES, Built, edit

DPI = 50  # at 36 a Chinese glyph drawn as a box has about the ink of the glyph
CELL = 8  # pixels a side of a cell compared: 4.1 mm, about two glyphs of card text
INKED, BLANK = 128, 16  # a pixel's ink, 0 paper to 255 black: surely drawn, nothing drawn
STRAY = 8  # pixels of a cell one reader inks and the other leaves blank (5 at most when
# the readers agree, in every file of the packs today)
MASS = 60  # difference of a cell's mean ink (44 at most when they agree; more for boxes)
FIRST_PAGES = 4  # the page drawn is the one with the most characters among these
EXAMPLE = "harbour-lights"
EXAMPLES = Path(__file__).parents[1] / "examples"

Command = Callable[[Path, int, Path], list[str]]
TOOLS: dict[str, tuple[str, str, Command]] = {  # reader: its program, Debian package, command
    "Poppler": ("pdftoppm", "poppler-utils", lambda pdf, page, out: [
        "pdftoppm", "-r", str(DPI), "-f", str(page), "-l", str(page), "-singlefile", str(pdf),
        str(out.with_suffix(""))]),
    "MuPDF": ("mutool", "mupdf-tools", lambda pdf, page, out: [
        "mutool", "draw", "-q", "-r", str(DPI), "-c", "rgb", "-o", str(out), str(pdf),
        str(page)]),
    "Ghostscript": ("gs", "ghostscript", lambda pdf, page, out: [
        "gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=ppmraw", f"-r{DPI}",
        f"-dFirstPage={page}", f"-dLastPage={page}", "-dTextAlphaBits=4",
        "-dGraphicsAlphaBits=4", f"-sOutputFile={out}", str(pdf)]),
}
READERS = ["Poppler", "PDFium", "MuPDF", "Ghostscript"]


@pytest.fixture(scope="module")
def readers() -> None:
    """Skip when a reader's program is not installed (.ci/run installs them)."""
    missing = [f"{program} ({package})" for program, package, _ in TOOLS.values()
               if shutil.which(program) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: apt-get install them to compare the readers")


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> list[Path]:
    """Every PDF of a copy of the example: built with its booklet, exported, reprinted."""
    root = tmp_path_factory.mktemp("example")
    cards, out = root / "cards", root / "out"
    shutil.copytree(EXAMPLES / EXAMPLE, cards / EXAMPLE)
    build_game(EXAMPLE, BuildOptions(switches=frozenset({"booklet"})), out_root=out,
               cards_dir=cards, workers=pool)
    printshop = export(EXAMPLE, "printshop", ExportSettings(), cards, out, workers=pool)
    release(EXAMPLE, "first", cards, out, workers=pool)
    edit(cards / EXAMPLE / "rules.yaml", "merchant: {cost: 1, oil: 3}",
         "merchant: {cost: 1, oil: 4}")
    reprinted = reprint(EXAMPLE, None, cards_dir=cards, out_root=out, workers=pool)
    assert reprinted is not None
    return [*_pdfs(out / EXAMPLE), *_pdfs(printshop), *_pdfs(reprinted)]


def _pdfs(folder: Path) -> list[Path]:
    """The PDFs in a folder, by name."""
    return sorted(folder.glob("*.pdf"))


@pytest.fixture(params=[*GAMES, EXAMPLE])
def outputs(request: pytest.FixtureRequest, built: Built) -> list[Path]:
    """One game's PDFs: every file its build writes, and its extra kinds where drawn."""
    game = request.param
    if game == EXAMPLE:
        return request.getfixturevalue("example")
    files = _pdfs(built(game))
    if game == DEFAULT_GAME:  # its print-shop files, beside its build (faces from the cache)
        files += _pdfs(export(game, "printshop", ExportSettings(), CARDS_DIR, built(game).parent,
                              workers=built.pool))
    return files


def test_every_reader_draws_each_output_alike(readers: None, outputs: list[Path],
                                              tmp_path: Path) -> None:
    """One page of every file of a game looks the same in the four readers."""
    assert len(outputs) >= 4, outputs
    problems = disagreements(outputs, tmp_path)
    assert not problems, "\n".join(problems)


def test_the_calibration_page_is_drawn_alike(readers: None, tmp_path: Path) -> None:
    """The calibration page, in Chinese and English, looks the same in the four readers."""
    files = []
    for language in ("zh-CN", "en"):
        out = tmp_path / language
        assert main(["calibrate", "--out", str(out), "--lang", language]) == 0
        files.append(out / "calibrate-a4.pdf")
    problems = disagreements(files, tmp_path)
    assert not problems, "\n".join(problems)


def test_a_font_two_readers_cannot_read_is_found(readers: None, default_a4: Path,
                                                 tmp_path: Path) -> None:
    """Fonts as before issue 28 (glyph i not CID i): MuPDF blank, Ghostscript boxes, found."""
    broken = tmp_path / "cards-a4.pdf"
    with pikepdf.open(default_a4 / "cards-a4.pdf") as pdf:
        for font in pdf.objects:
            if isinstance(font, pikepdf.Dictionary) and "/FontFile3" in font \
                    and font.get("/Type") == "/FontDescriptor":
                font.FontFile3.write(_shifted_charset(font.FontFile3.read_bytes()))
        pdf.save(broken)
    problems = "\n".join(disagreements([broken], tmp_path))
    for one, other in [("Poppler", "MuPDF"), ("PDFium", "MuPDF"), ("Poppler", "Ghostscript"),
                       ("PDFium", "Ghostscript")]:
        assert f"{broken} page 1: {one} and {other} disagree" in problems, problems
    assert "Poppler and PDFium" not in problems  # both read the font by its glyph indexes
    assert "Poppler inks where MuPDF draws nothing, in " in problems  # blank
    assert "Poppler and Ghostscript disagree: their mean ink differs" in problems  # boxes
    assert " mm" in problems
    kept = _drawn(broken, tmp_path, "MuPDF")
    assert str(kept) in problems and kept.is_file()  # where a developer looks


def _shifted_charset(font: bytes) -> bytes:
    """A CID-keyed CFF font whose glyph i is CID i + 40000, the rest as it was."""
    opened = TTFont(io.BytesIO(font), lazy=True, recalcBBoxes=False, recalcTimestamp=False)
    top = opened["CFF "].cff.topDictIndex[0]
    if not hasattr(top, "ROS"):
        return font
    names = list(top.charset)
    shifted = [".notdef", *(f"cid{index + 40000:05d}" for index in range(1, len(names)))]
    at = {name: index for index, name in enumerate(names)}
    strings = top.CharStrings
    strings.charStrings = {shifted[at[name]]: kept for name, kept in strings.charStrings.items()}
    top.charset = shifted
    opened.setGlyphOrder(shifted)
    out = io.BytesIO()
    opened.save(out)
    return out.getvalue()


def disagreements(files: list[Path], folder: Path) -> list[str]:
    """Each disagreement of the readers: file, page, readers, cells in mm; drawings kept."""
    problems = []
    for pdf, page, drawn in _drawings(files, folder):
        where = f"{pdf} page {page}"
        found = [f"{where}: {reader} could not draw it: {result}"
                 for reader, result in drawn.items() if isinstance(result, str)]
        images = {reader: image for reader, image in drawn.items()
                  if isinstance(image, Image.Image)}
        widths, heights = ([image.size[index] for image in images.values()] for index in (0, 1))
        if max(widths) - min(widths) > 1 or max(heights) - min(heights) > 1:  # more than rounding
            found.append(f"{where}: the readers draw the page at different sizes: " + ", ".join(
                f"{reader} {image.width} × {image.height}" for reader, image in images.items()))
        else:
            width, height = min(widths) // CELL * CELL, min(heights) // CELL * CELL
            seen = {reader: Seen(image.crop((0, 0, width, height)))
                    for reader, image in images.items()}
            found += [line for index, one in enumerate(READERS) for other in READERS[index + 1:]
                      if one in seen and other in seen for line in _compare(
                          f"{where}: {one} and {other} disagree", one, seen[one], other,
                          seen[other])]
        if found:
            for reader, image in images.items():
                image.save(_drawn(pdf, folder, reader))
            found.append(f"  drawn at {DPI} dpi: " + ", ".join(
                str(_drawn(pdf, folder, reader)) for reader in images))
        problems += found
    return problems


class Seen:
    """One reader's drawing as compared: where it surely inks, where it inks nothing within
    a pixel, and each cell's mean ink (0 paper, 255 black)."""

    def __init__(self, drawing: Image.Image):
        ink = ImageChops.invert(drawing.convert("L"))
        self.inked = ink.point([255 * (value >= INKED) for value in range(256)])
        self.blank = _near(ink).point([255 * (value < BLANK) for value in range(256)])
        self.means = ink.reduce(CELL)


def _near(ink: Image.Image) -> Image.Image:
    """The most ink within a pixel of each pixel (a 3 × 3 maximum)."""
    across = ImageChops.lighter(ImageChops.lighter(ink, ImageChops.offset(ink, 1, 0)),
                                ImageChops.offset(ink, -1, 0))
    return ImageChops.lighter(ImageChops.lighter(across, ImageChops.offset(across, 0, 1)),
                              ImageChops.offset(across, 0, -1))


def _compare(where: str, one: str, first: Seen, other: str, second: Seen) -> list[str]:
    """What two readers' drawings of a page disagree on, as lines of the message."""
    lines = []
    for inked, blank, stray in [(one, other, ImageChops.multiply(first.inked, second.blank)),
                                (other, one, ImageChops.multiply(second.inked, first.blank))]:
        found = _cells(stray.reduce(CELL), (STRAY - 0.5) * 255 / CELL ** 2)
        if found:
            lines.append(f"{where}: {inked} inks where {blank} draws nothing, in "
                         f"{len(found)} cells: {_places(found)}")
    apart = _cells(ImageChops.difference(first.means, second.means), MASS)
    if apart:
        lines.append(f"{where}: their mean ink differs by more than {MASS}/255 in "
                     f"{len(apart)} cells: {_places(apart)}")
    return lines


def _cells(values: Image.Image, above: float) -> list[tuple[int, int]]:
    """The cells (column, row) of a pixel-a-cell image above `above`, the largest first."""
    found = [(value, index) for index, value in enumerate(values.tobytes()) if value > above]
    return [(index % values.width, index // values.width) for _, index in sorted(
        found, key=lambda item: -item[0])]


def _drawn(pdf: Path, folder: Path, reader: str) -> Path:
    """Where a reader's drawing of a file is kept when the readers disagree on it."""
    return folder / f"{pdf.parent.name}-{pdf.stem}-{reader}.png"


def _drawings(files: list[Path], folder: Path
              ) -> Iterator[tuple[Path, int, dict[str, Image.Image | str]]]:
    """Each file's busiest page as each reader draws it, or why it could not (the programs
    on threads, PDFium in this one)."""
    with ThreadPoolExecutor(max_workers=3) as threads:
        started: list[tuple[Path, int, dict[str, Future[Image.Image | str]]]] = []
        for number, pdf in enumerate(files):
            page = _busiest_page(pdf)
            outs = {reader: folder / f"{number}-{reader}.ppm" for reader in TOOLS}
            started.append((pdf, page, {
                reader: threads.submit(_run, command(pdf, page, outs[reader]), outs[reader])
                for reader, (_, _, command) in TOOLS.items()}))
        for pdf, page, jobs in started:
            drawn: dict[str, Image.Image | str] = {"PDFium": _pdfium(pdf, page)}
            drawn.update((reader, job.result()) for reader, job in jobs.items())
            yield pdf, page, drawn


def _run(command: list[str], out: Path) -> Image.Image | str:
    """A reader's program run: the page it drew, or what it said when it drew none."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode or not out.is_file():
        return f"exit {done.returncode}: {done.stderr.strip()[-400:]}"
    with Image.open(out) as image:
        drawn = image.convert("RGB")
    out.unlink()
    return drawn


def _pdfium(pdf: Path, page: int) -> Image.Image:
    """PDFium's drawing of a page (numbered from 1)."""
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        return document[page - 1].render(scale=DPI / 72).to_pil().convert("RGB")
    finally:
        document.close()


def _busiest_page(pdf: Path) -> int:
    """The page, numbered from 1, with the most characters among the first few."""
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        counts = [document[index].get_textpage().count_chars()
                  for index in range(min(len(document), FIRST_PAGES))]
    finally:
        document.close()
    return counts.index(max(counts)) + 1


def _places(cells: list[tuple[int, int]]) -> str:
    """The first few cells' centres in mm from the page's top left."""
    size = CELL / DPI * 25.4
    shown = ", ".join(f"({(column + 0.5) * size:.0f}, {(row + 0.5) * size:.0f}) mm"
                      for column, row in cells[:6])
    return shown + (f" and {len(cells) - 6} more" if len(cells) > 6 else "")
