"""Full sheets, marks a home printer prints, and ways to correct or avoid duplex: the sheet
counts of every game of cards/, crop marks on Letter pixels, the back offset, the short-edge flip,
gutter-fold sheets, the calibration page and printers.yaml."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from markupsafe import Markup
from pypdf import PdfReader

from generator import CARDS_DIR
from generator.check.findings import PnpError
from generator.cli import main
from generator.outputs.calibrate import back_scales, stations
from generator.pack.load import load_spec
from generator.pdf.assemble import _face_matrix
from generator.pipeline.build import BuildOptions, build_game
from generator.plan.geometry import Box, load_geometry
from generator.plan.impose import Item, Piece, _turned, pack_grid, pack_single
from generator.plan.printer import load_printer, parse_offset
from generator.plan.render import Face

from .conftest import GAMES, render_page

GEOMETRY = load_geometry()
RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)


def _item(size: Box, name: str = "x", back: bool = True) -> Item:
    """An item whose face's HTML is its name, and its back's the name and '-back'."""
    back_piece = Piece(Face(Markup(f"{name}-back"), name)) if back else None
    return Item(Piece(Face(Markup(name), name)), back_piece, size, name)


@pytest.mark.parametrize("game", GAMES)
def test_each_size_takes_no_more_sheets_than_a_hand_imposition(game: str, built) -> None:
    """In every file printed on both sides, ⌈cards ÷ cards per sheet⌉ sheets per size: a
    fronts page and its backs page each (a single-sided deck's pages get blank backs); a
    file of round or hex pieces is packed otherwise, and counted in test_cutting.py."""
    folder = built(game, "a4")
    spec = load_spec(CARDS_DIR / game)
    geometry = GEOMETRY.with_sizes({k: Box(v.width, v.height) for k, v in spec.sizes.items()})
    decks = {deck.id: deck for deck in spec.decks}
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    checked = 0
    for output in manifest["outputs"]:
        if output["kind"] in ("rulebook", "dice") or not any(
                info["backs"] for info in output["decks"].values()):
            continue
        if any(decks[deck_id].shape not in (None, "rect") for deck_id in output["decks"]):
            continue  # round and hex pieces are cut alone, not on a grid (test_cutting.py)
        per_size: dict[str, int] = {}
        for deck_id, info in output["decks"].items():
            if info["backs"]:
                per_size[decks[deck_id].size] = per_size.get(decks[deck_id].size, 0) + info["faces"]
        sheets = sum(math.ceil(count / geometry.grid("a4", size).per_sheet)
                     for size, count in per_size.items())
        singles = sum(1 for info in output["decks"].values() if not info["backs"])
        # sizes share the pages their leftovers leave: never more than each alone
        assert output["pages"] <= (sheets + singles) * 2, output["file"]
        checked += 1
        if not singles and len(per_size) == 1:
            assert output["pages"] == 2 * sheets, output["file"]
    assert checked  # every game has an output with backs


def test_the_default_games_boards_fill_three_pages(default_a4: Path) -> None:
    """Four role boards, the 470 mm track in two turned pieces, the 250 mm track whole and
    turned, the round track: three pages (were five)."""
    assert len(PdfReader(default_a4 / "boards-a4.pdf").pages) == 3


def test_single_sided_pieces_pack_without_overlap_inside_the_margins() -> None:
    paper, room = GEOMETRY.papers["a4"], GEOMETRY.room("a4")
    items = ([_item(Box(148, 105), f"r{i}", back=False) for i in range(4)]
             + [_item(Box(240, 60), f"c{i}", back=False) for i in range(2)]
             + [_item(Box(250, 48), "s", back=False), _item(Box(190, 64), "t", back=False)])
    sheets = pack_single(items, paper, room, GEOMETRY)
    assert len(sheets) == 3
    assert sorted(s.piece.face.deck_id for sheet in sheets for s in sheet.slots) == sorted(
        item.group for item in items)
    sizes = {item.group: item.size for item in items}
    for sheet in sheets:
        for slot in sheet.slots:
            assert slot.turn in (0, 90) and slot.upright == sizes[slot.piece.face.deck_id]
            assert GEOMETRY.min_margin - 0.01 <= slot.x and slot.x + slot.width <= paper.width
            assert GEOMETRY.min_margin - 0.01 <= slot.y and slot.y + slot.height <= paper.height
            for other in sheet.slots:
                if other is not slot:
                    a, b = slot.outer, other.outer
                    assert a[2] <= b[0] + 0.21 or b[2] <= a[0] + 0.21 or \
                        a[3] <= b[1] + 0.21 or b[3] <= a[1] + 0.21  # apart, or a seam apart


@pytest.mark.parametrize("turn", [0, 90, 180, 270])
def test_a_turned_face_fills_its_box_corner_to_corner(turn: int) -> None:
    """The drawing matrix maps the face's top-left corner where turning it puts it."""
    bbox, box = [0, 100, 60, 190], [10, 20, 100, 80]  # a 60 x 90 face; its box on the page
    if turn % 180 == 0:
        box = [10, 20, 70, 110]
    a, b, c, d, e, f = (float(v) for v in _face_matrix(bbox, box, turn).split())
    corners = {(x, y): (a * x + c * y + e, b * x + d * y + f)
               for x in (0, 60) for y in (100, 190)}
    top_left = {0: (box[0], box[3]), 90: (box[2], box[3]), 180: (box[2], box[1]),
                270: (box[0], box[1])}[turn]
    assert corners[(0, 190)] == pytest.approx(top_left)
    xs, ys = [p[0] for p in corners.values()], [p[1] for p in corners.values()]
    assert (min(xs), min(ys), max(xs), max(ys)) == pytest.approx(tuple(box))
    assert _turned(0, 0, 60, 90, turn) == {0: (0, 0), 90: (90, 0), 180: (60, 90),
                                          270: (0, 60)}[turn]


def test_backs_land_behind_their_fronts_on_either_flip_moved_by_the_offset() -> None:
    paper = GEOMETRY.papers["a4"]
    grid = GEOMETRY.grid("a4", "poker")
    items = [_item(GEOMETRY.sizes["poker"], "a"), _item(GEOMETRY.sizes["poker"], "b")]
    front, back = pack_grid(items, paper, grid, GEOMETRY, True)
    a, b = back.slots  # a sits top left on the front, so top right behind; b beside it
    assert a.piece.face.html == "a-back" and b.piece.face.html == "b-back"
    assert (a.x, a.y) == pytest.approx((paper.width - grid.left - 63.5, grid.top))
    assert b.x == pytest.approx(a.x - 63.5) and front.slots[1].x == pytest.approx(grid.left + 63.5)
    _, short = pack_grid(items, paper, grid, GEOMETRY, True, "short", (1.5, -0.5))
    a = next(s for s in short.slots if s.piece.face.html == "a-back")
    assert (a.x, a.y) == pytest.approx((grid.left + 1.5, paper.height - grid.top - 88.9 - 0.5))
    assert a.turn == 180 and front.slots[0].turn == 0


def test_every_cut_line_on_letter_has_a_guide_to_cut_to(default_letter: Path) -> None:
    """Letter leaves 6.35 mm above and below 3 x 3 poker cards: each vertical cut line's guide
    runs from just short of the cut through the outer bleed to 3.05 mm from the edge, 3 mm
    long; each horizontal one's is in the side margins, at least 5 mm from the edge."""
    dpi = 300
    page = render_page(default_letter / "cards-letter.pdf", 0, dpi=dpi)
    grid = GEOMETRY.grid("letter", "poker")
    paper = GEOMETRY.papers["letter"]

    def dark(x_mm: float, y_mm: float) -> bool:
        return max(page.getpixel((round(x_mm / 25.4 * dpi), round(y_mm / 25.4 * dpi)))) < 90

    def px(mm: float) -> int:
        return round(mm / 25.4 * dpi)

    for col in range(grid.cols + 1):
        x = grid.left + col * grid.card.width
        column = [max(page.getpixel((px(x), y))) for y in range(px(3.2), px(grid.top - 0.4))]
        assert max(column) < 90, f"no 3 mm guide above the cut line at x = {x} mm"
        bottom = grid.top + grid.rows * grid.card.height
        column = [max(page.getpixel((px(x), y)))
                  for y in range(px(bottom + 0.4), px(paper.height - 3.2))]
        assert max(column) < 90, f"no 3 mm guide below the cut line at x = {x} mm"
        for y in range(0, px(2.9)):  # nothing of the guide nearer the edge
            assert not (max(page.getpixel((px(x), y))) < 90
                        and min(page.getpixel((px(x) + 4, y))) > 200)
    for row in range(grid.rows + 1):
        y = grid.top + row * grid.card.height
        assert any(dark(x, y) for x in (5.5, 6, 7, 8)), f"no guide left of y = {y} mm"
        assert any(dark(paper.width - x, y) for x in (5.5, 6, 7, 8)), y
        assert not any(dark(x, y) for x in (1, 2, 3, 4, 4.8))


def _mini(packs: Path, tmp_path: Path, **options) -> Path:
    build_game("mini", BuildOptions(only=("sheets",), **options), out_root=tmp_path,
               cards_dir=packs)
    return tmp_path / "mini" / "cards-a4.pdf"


def _flip(pdf: Path) -> str:
    return str(PdfReader(pdf).trailer["/Root"]["/ViewerPreferences"]["/Duplex"])


@pytest.mark.slow
def test_back_offset_short_flip_and_gutter_fold(packs: Path, tmp_path: Path) -> None:
    """Mini's four poker cards: S1 red, S2 green, S3 blue twice."""
    grid = GEOMETRY.grid("a4", "poker")
    width, height = grid.card.width, grid.card.height
    row0 = grid.top + height / 2

    plain = _mini(packs, tmp_path / "plain")
    back = render_page(plain, 1, dpi=100)
    at = grid.left + 2 * width + 1  # just inside the right column, where S1's red back is
    assert back.getpixel((round(at / 25.4 * 100), round(row0 / 25.4 * 100))) == RED
    assert _flip(plain) == "/DuplexFlipLongEdge"

    moved = render_page(_mini(packs, tmp_path / "moved", back_offset=(2.0, 0.0)), 1, dpi=100)
    assert moved.getpixel((round(at / 25.4 * 100), round(row0 / 25.4 * 100))) == GREEN
    assert moved.getpixel((round((at + 2) / 25.4 * 100), round(row0 / 25.4 * 100))) == RED

    short = _mini(packs, tmp_path / "short", duplex="short")
    assert _flip(short) == "/DuplexFlipShortEdge"
    page = render_page(short, 1, dpi=100)
    bottom_left = (grid.left + width / 2, grid.top + 2.5 * height)
    assert page.getpixel(tuple(round(v / 25.4 * 100) for v in bottom_left)) == RED

    fold = _mini(packs, tmp_path / "fold", switches=frozenset({"fold"}))
    assert _flip(fold) == "/Simplex" and len(PdfReader(fold).pages) == 2
    half = GEOMETRY.grid("a4", "poker", half=True)
    assert half.left + width <= 105 - GEOMETRY.fold_gutter / 2 + 1e-6
    page = render_page(fold, 0, dpi=100)
    mirror = 210 - half.left - width / 2
    colours = [page.getpixel((round(mirror / 25.4 * 100),
                              round((half.top + (row + 0.5) * height) / 25.4 * 100)))
               for row in range(3)]
    assert colours == [RED, GREEN, BLUE]


def test_the_calibration_page_puts_each_scale_behind_its_line(tmp_path: Path) -> None:
    paper = GEOMETRY.papers["a4"]
    lines = stations(paper)
    for flip in ("long", "short"):
        for (x1, y1, x2, y2), scale in zip(lines, back_scales(paper, flip, (0, 0)), strict=True):
            x, y = (x1 + x2) / 2, (y1 + y2) / 2
            assert (scale.x, scale.y) == ((paper.width - x, y) if flip == "long"
                                          else (x, paper.height - y))
            assert scale.across == (x1 == x2)


def test_pnp_calibrate_writes_a_two_page_duplex_sheet(tmp_path: Path) -> None:
    assert main(["calibrate", "--out", str(tmp_path), "--paper", "letter",
                 "--back-offset", "-1.5,0.5", "--lang", "en"]) == 0
    pdf = tmp_path / "calibrate-letter.pdf"
    reader = PdfReader(pdf)
    assert len(reader.pages) == 2 and _flip(pdf) == "/DuplexFlipLongEdge"
    assert float(reader.pages[0].mediabox.width) == pytest.approx(215.9 * 72 / 25.4, abs=0.05)
    assert "Duplex calibration page" in reader.pages[0].extract_text()
    assert "-1.5" in reader.pages[1].extract_text()
    dpi = 300
    page = render_page(pdf, 1, dpi=dpi)
    paper = GEOMETRY.papers["letter"]
    zero_x, zero_y = paper.width / 2 - 1.5, paper.height / 2 + 0.5  # moved by the offset

    def shade(x: float, y: float) -> int:
        return max(page.getpixel((round(x / 25.4 * dpi), round(y / 25.4 * dpi))))

    assert shade(zero_x, zero_y + 2.8) < 128  # the long zero tick
    assert shade(zero_x + 1, zero_y + 2.8) > 200  # the +1 tick is shorter
    assert shade(paper.width / 2, paper.height / 2 + 2.8) > 200  # not where it was


def test_printers_yaml_keeps_each_printers_flip_and_offset(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "printers.yaml"
    path.write_text("office:\n  duplex: short\n  back_offset: [-1.5, 0.5]\n"
                    "home:\n  duplex: sideways\n", encoding="utf-8")
    office = load_printer(path, "office")
    assert (office.duplex, office.back_offset) == ("short", (-1.5, 0.5))
    with pytest.raises(PnpError, match=r"printers.yaml:4: printer 'home': duplex is long or "
                                       r"short, not 'sideways'"):
        load_printer(path, "home")
    with pytest.raises(PnpError, match=r"no printer 'work' \(it has: home, office\)"):
        load_printer(path, "work")
    with pytest.raises(PnpError, match=r"'1;2' is not X,Y in mm"):
        parse_offset("1;2")
    with pytest.raises(PnpError, match=r"more than 20 mm"):
        parse_offset("25,0")
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "--out", str(tmp_path), "--printer", "office",
                 "--back-offset", "0.5,0"]) == 0
    assert _flip(tmp_path / "calibrate-a4.pdf") == "/DuplexFlipShortEdge"
    assert main(["calibrate", "--out", str(tmp_path), "--printer", "home"]) == 1
