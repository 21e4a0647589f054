"""QR codes drawn by templates (`qr(text)`): vector modules where qrcode puts them, the same
every build, a warning when they print too small (W088), a finding for a text too long, and
drawn in the rulebook's Markdown too."""

from __future__ import annotations

from pathlib import Path

import pikepdf
import qrcode

from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, build_game, validate_game
from generator.plan.geometry import load_geometry
from generator.plan.qr import QUIET_ZONE, draw_markers, qr, qr_marker

from .conftest import edit, give_rulebook, give_template, page_texts, pixel_mm, render_page

CARDS = BuildOptions(only=("sheets",))
DPI = 300
QR_MM = 25.0  # the code's width in the tests that look at it
QR_TOP = 20.0  # mm from the top of the safe zone
LONG_URL = '"https://example.org/games/mini/cards/" ~ card.id ~ "?edition=first-printing&lang=zh"'


def _qr_pack(cards: Path, text: str = "card.id", width: float = QR_MM) -> Path:
    """The tiny pack's cards drawing a QR code of `text` (a Jinja expression), `width` mm wide,
    at the left of the safe zone, `QR_TOP` mm down; return the pack's folder."""
    pack = cards / "mini"
    give_template(pack, '<div class="code">{{ qr(' + text + ') }}</div>')
    (pack / "style.css").write_text(
        f".code {{ position: absolute; left: 0; top: {QR_TOP}mm; }}\n"
        f".code .qr {{ width: {width}mm; }}\n", encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    return pack


def _images(resources: pikepdf.Object) -> int:
    """How many image XObjects a resource dictionary draws, forms followed into."""
    found = 0
    for xobject in dict(resources.get("/XObject", {})).values():
        if xobject.get("/Subtype") == "/Image":
            found += 1
        elif xobject.get("/Subtype") == "/Form" and "/Resources" in xobject:
            found += _images(xobject.Resources)
    return found


def test_a_qr_code_is_drawn_as_vector_modules_the_same_every_build(
        packs: Path, tmp_path: Path, pool: Workers) -> None:
    _qr_pack(packs)
    pdfs = []
    for run in ("first", "second"):
        result = build_game("mini", CARDS, out_root=tmp_path / run, cards_dir=packs,
                            workers=pool)
        assert result.warnings == []
        pdfs.append(tmp_path / run / "mini" / "cards-a4.pdf")
    assert pdfs[0].read_bytes() == pdfs[1].read_bytes()
    with pikepdf.open(pdfs[0]) as pdf:
        forms = dict(pdf.pages[0].Resources.XObject)
        assert forms and _images(pdf.pages[0].Resources) == 0  # faces are forms; no image
    geometry = load_geometry()
    grid = geometry.grid("a4", "poker")
    page = render_page(pdfs[0], 0, dpi=DPI)
    side = 21 + 2 * QUIET_ZONE  # 'S1' is a version 1 symbol, 21 modules across
    module = QR_MM / side
    left, top = grid.left + geometry.safe, grid.top + geometry.safe + QR_TOP  # S1, top left

    def shade(x: float, y: float) -> int:
        """The grey at the middle of a module (x, y), counted from the quiet zone's corner."""
        return min(pixel_mm(page, left + (x + 0.5) * module, top + (y + 0.5) * module, DPI))

    end = side - QUIET_ZONE - 7  # where the right and bottom finder patterns start
    for x0, y0 in ((QUIET_ZONE, QUIET_ZONE), (end, QUIET_ZONE), (QUIET_ZONE, end)):
        assert shade(x0, y0) < 60 and shade(x0 + 6, y0 + 6) < 60  # the ring's corners
        assert shade(x0 + 1, y0 + 1) > 200 and shade(x0 + 5, y0 + 5) > 200  # its light ring
        assert shade(x0 + 3, y0 + 3) < 60  # the middle
    timing = [shade(QUIET_ZONE + x, QUIET_ZONE + 6) < 60 for x in range(8, 13)]
    assert timing == [True, False, True, False, True]
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=QUIET_ZONE)
    code.add_data("S1")
    drawn = [[shade(x, y) < 128 for x in range(side)] for y in range(side)]
    assert drawn == code.get_matrix()  # every module, quiet zone included, as qrcode makes it


def test_a_qr_code_of_a_long_url_printed_small_is_a_warning(packs: Path, pool: Workers) -> None:
    pack = _qr_pack(packs, LONG_URL, width=8)
    report = validate_game("mini", packs, out_root=packs.parent / "out", workers=pool)
    spells = pack / "spells.yaml"
    assert [str(f) for f in report.findings] == [
        f"{spells}:{line}: warning: W088: card '{card}': a QR code of 37 modules prints them "
        "0.17 mm wide, below 0.4 mm: print it at least 18.0 mm wide, or give it a shorter text"
        for line, card in ((1, "S1"), (8, "S2"), (12, "S3"))]
    edit(pack / "style.css", "width: 8mm", "width: 25mm")
    report = validate_game("mini", packs, out_root=packs.parent / "out", workers=pool)
    assert report.findings == []


def test_a_text_longer_than_a_qr_code_holds_is_a_finding_at_the_template(packs: Path) -> None:
    template = _qr_pack(packs, "(card.id|lower) * 1200") / "templates" / "cards" / "spell.html.j2"
    report = validate_game("mini", packs, out_root=packs.parent / "out")
    assert [str(f) for f in report.findings] == [  # at the pack's template, for each card
        f"{template}:2: error: E060: card '{card}': qr(): a text of 2400 bytes is more than a "
        "QR code holds (2,331 bytes at most)" for card in ("S1", "S2", "S3")]


def test_the_text_is_data() -> None:
    svg = str(qr('"/><script>x</script>'))
    assert "<script>" not in svg and svg.count("<") == 4  # <svg>, <rect/>, <path/>, </svg>
    assert draw_markers(f"<p>{qr_marker('x')}</p>") == f"<p>{qr('x')}</p>"
    assert draw_markers("\ue001qrzz\ue001") == "\ue001qrzz\ue001"  # no code: left as it is


def test_the_rulebook_draws_qr_codes_its_markdown_asks_for(packs: Path, tmp_path: Path,
                                                           pool: Workers) -> None:
    rulebook = give_rulebook(packs)
    rulebook.write_text(rulebook.read_text(encoding="utf-8")
                        + "\n扫码：{{ qr('https://example.org/**x**') }}\n", encoding="utf-8")
    options = BuildOptions(only=("rulebook",), html=True)
    result = build_game("mini", options, out_root=tmp_path, cards_dir=packs, workers=pool)
    assert result.warnings == []
    html = (tmp_path / "mini" / "rulebook-a4.html").read_text(encoding="utf-8")
    assert f"<p>扫码：{qr('https://example.org/**x**')}</p>" in html
    assert "\ue001" not in html
    text = "".join(page_texts(tmp_path / "mini" / "rulebook-a4.pdf"))
    assert "扫码：" in text and "6874" not in text
