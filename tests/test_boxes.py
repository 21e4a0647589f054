"""Tuck boxes: the inside a deck needs, the net folded round it, measured on the laid-out PDF
(where its cut and fold lines are drawn, what its front says), and what a box too big for the
paper or a mistake in `boxes:` is told."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image

from generator.check.findings import PackError
from generator.pipeline.build import BuildOptions, build_game, check
from generator.plan.geometry import Box, load_geometry
from generator.plan.tuckbox import Net, halves, inside, net, pages, printable

from .conftest import MM, edit, flat, render_page

DPI = 300
POKER = Box(63.5, 88.9)
BOX_LINE = 23  # `- id:` of the box appended to the tiny pack's game.yaml (21 lines, `boxes:`)


def boxed(packs: Path, box: str, copies: int = 36) -> Path:
    """The tiny pack with `copies` cards in its deck and `box` (YAML lines under `- id: b`)
    as its one tuck box; returns game.yaml."""
    pack = packs / "mini"
    edit(pack / "spells.yaml", "qty: 2", f"qty: {copies - 2}")
    edit(pack / "game.yaml", "count: 4", f"count: {copies}")
    game = pack / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8") + "boxes:\n  - id: b\n" + box,
                    encoding="utf-8")
    return game


def built(packs: Path, out: Path, paper: str = "a4") -> Path:
    """The boxes PDF of the tiny pack, built alone."""
    build_game("mini", BuildOptions(paper=paper, only=("boxes",)), out_root=out,
               cards_dir=packs)
    return out / "mini" / f"boxes-{paper}.pdf"


def placed(copies: int, paper: str = "a4") -> tuple[Net, float, float]:
    """The whole net of a poker deck's box and where it lies upright on the page."""
    geometry = load_geometry()
    whole = net(inside(POKER, copies, 0.3, 1))
    [[spot]] = pages([whole], geometry.papers[paper], geometry.room(paper), geometry.gutter)
    assert not spot.turned
    return whole, spot.x, spot.y


def dark(image: Image.Image, x_mm: float, y_mm: float) -> bool:
    """Whether ink is printed at a point (mm from the page's top left), the pixel either side
    of it across a thin line counted too."""
    x, y = round(x_mm / 25.4 * DPI), round(y_mm / 25.4 * DPI)
    return any(sum(image.getpixel((x + dx, y))) < 300 for dx in (-1, 0, 1))  # type: ignore[arg-type]


def lines_across(image: Image.Image, top: float, bottom: float, left: float, right: float,
                 vertical: bool) -> list[float]:
    """The middle (mm) of each line drawn across a band of the page: vertical lines across
    the band from `top` to `bottom`, found between `left` and `right`; or horizontal ones."""
    step = 25.4 / DPI
    inked = []
    at = left if vertical else top
    end = right if vertical else bottom
    while at < end:
        across = [top + i * step for i in range(int((bottom - top) / step))] if vertical else \
            [left + i * step for i in range(int((right - left) / step))]
        if any(sum(image.getpixel((round((at if vertical else a) / step),  # type: ignore[arg-type]
                                   round((a if vertical else at) / step)))) < 300
               for a in across):
            inked.append(at)
        at += step
    runs: list[list[float]] = []
    for mm in inked:
        if runs and mm - runs[-1][-1] < 2 * step:
            runs[-1].append(mm)
        else:
            runs.append([mm])
    return [(run[0] + run[-1]) / 2 for run in runs]


def test_the_inside_is_the_cards_plus_clearance_and_the_stack() -> None:
    assert inside(POKER, 36, 0.3, 1) == inside(Box(63.5, 88.9), 0, 0, 1, depth=11.8)
    room = inside(POKER, 36, 0.3, 1)
    assert (room.width, room.height, room.depth) == (64.5, 89.9, 11.8)


def test_the_net_folds_where_panels_meet_and_is_cut_elsewhere() -> None:
    whole = net(inside(POKER, 36, 0.3, 1))
    width, depth = 64.5, 11.8
    vertical = sorted({round(edge.start[0], 3) for edge in whole.folds()
                       if edge.start[0] == edge.end[0]})
    assert vertical == [width, width + depth, 2 * width + depth, 2 * (width + depth)]
    assert len(whole.folds()) == 11  # 4 in the row, top and tongue, 2 dust, bottom, 2 flaps
    assert all(edge.key() not in {fold.key() for fold in whole.folds()}
               for edge in whole.cuts())
    one, two = halves(whole, 10)
    assert one.width == pytest.approx(width + depth + 10)
    assert two.width == pytest.approx(width + depth + 10)  # the back, a side, the glue tab
    assert [panel.name for panel in one.panels if panel.glued] == ["flap", "strip"]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_poker_deck_of_54_fits_whole(paper: str) -> None:
    geometry = load_geometry()
    whole = net(inside(POKER, 54, geometry.card_thickness, geometry.box_clearance))
    assert printable(whole, geometry.room(paper), geometry.overlap) == [whole]


def test_the_pdf_draws_the_inside_the_formula_gives(packs: Path, tmp_path: Path) -> None:
    boxed(packs, "    decks: [spells]\n")
    pdf = built(packs, tmp_path / "out")
    image = render_page(pdf, 0, DPI)
    whole, left, top = placed(36)
    front, tab = whole.panel("front"), whole.panel("tab")
    body_bottom = top + front.y + front.height
    # the vertical lines just above the bottom folds: the front's left cut, then the folds
    found = lines_across(image, body_bottom - 3, body_bottom - 0.5, left - 2,
                         left + tab.x + 1, vertical=True)
    edges = [0, 64.5, 64.5 + 11.8, 2 * 64.5 + 11.8, 2 * (64.5 + 11.8)]
    assert found == pytest.approx([left + edge for edge in edges], abs=0.2)
    assert found[1] - found[0] == pytest.approx(63.5 + 1, abs=0.5)  # inside width
    assert found[2] - found[1] == pytest.approx(36 * 0.3 + 1, abs=0.5)  # inside depth
    # the front's top edge and its bottom fold, well left of the notch and of the text
    rows = lines_across(image, top + front.y - 3, body_bottom + 3, left + 6, left + 8.5,
                        vertical=False)
    assert rows[1] - rows[0] == pytest.approx(88.9 + 1, abs=0.5)  # inside height
    document = pypdfium2.PdfDocument(pdf)
    try:
        page = document[0]
        height = page.get_height()
        text = page.get_textpage().get_text_bounded(
            left * MM, height - body_bottom * MM, (left + front.width) * MM,
            height - (top + front.y) * MM)
    finally:
        document.close()
    assert flat(text) == "测试小包法术36张卡牌"  # the game, the deck, its count, on the front


def test_folds_are_dashed_and_cuts_solid(packs: Path, tmp_path: Path) -> None:
    boxed(packs, "    decks: [spells]\n")
    image = render_page(built(packs, tmp_path / "out"), 0, DPI)
    whole, left, top = placed(36)
    front = whole.panel("front")
    along = [top + front.y + 1 + i * 0.25 for i in range(int((front.height - 2) / 0.25))]
    fold = [dark(image, left + front.width, y) for y in along]
    cut = [dark(image, left, y) for y in along]
    assert all(cut)
    dashes = sum(1 for now, before in zip(fold[1:], fold, strict=False) if now and not before)
    assert dashes >= 15  # 3 mm on, 2 mm off down 88 mm
    assert 0.5 < sum(fold) / len(fold) < 0.75


def test_a_box_too_big_for_the_paper_prints_in_two_parts(packs: Path, tmp_path: Path) -> None:
    game = boxed(packs, "    decks: [spells]\n    depth: 60\n")
    edit(game, "size: poker", "size: tarot")
    [warning] = check("mini", packs).findings
    assert str(warning) == (
        f"{game}:{BOX_LINE}: warning: W120: box 'b': its net, 272×256 mm, does not fit the "
        "198×285 mm that can be printed on a4: it prints in two parts, glued along a strip")
    pdf = built(packs, tmp_path / "out")
    texts = [flat(text) for text in _texts(pdf)]
    assert len(texts) == 2
    assert "粘贴区→2" in texts[0] and "→" not in texts[1]
    manifest = json.loads((tmp_path / "out" / "mini" / "manifest.json").read_text())
    assert manifest["outputs"][0]["decks"] == {"b": {"faces": 1, "backs": 0, "pieces": 2}}


def _texts(pdf: Path) -> list[str]:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def test_mistakes_in_a_box_are_told_at_their_lines(packs: Path) -> None:
    game = boxed(packs, "    decks: [spells]\n    depth: 250\n  - id: b\n"
                 "    decks: [spells, spels]\n    template: nowhere\n")
    found = [str(finding) for finding in check("mini", packs).findings]
    assert found == [
        f"{game}:{BOX_LINE}: error: E121: box 'b': its net, 639×604.9 mm, does not fit the "
        "198×285 mm that can be printed on a4, even in two parts: give it fewer cards or a "
        "smaller `depth`",
        f"{game}:{BOX_LINE + 3}: error: E121: box 'b': another box has the same id",
        f"{game}:{BOX_LINE + 4}: error: E121: box 'b' names deck 'spels', which the game "
        "does not have",
        f"{game}:{BOX_LINE + 5}: error: E022: box 'b': no template 'cards/nowhere.html.j2'",
    ]


def test_an_unknown_key_is_an_error_at_its_line(packs: Path) -> None:
    game = boxed(packs, "    decks: [spells]\n    colour: red\n")
    with pytest.raises(PackError) as caught:
        check("mini", packs)
    [finding] = caught.value.findings
    assert finding.path == str(game) and finding.line == BOX_LINE + 2
    assert finding.code == "E010"
    assert finding.message.startswith("unknown field 'boxes.0.colour' (accepted: art, clearance, "
                                      "color, count, decks, depth, id, name, template, "
                                      "thickness)")


def test_the_panels_print_text_as_text(packs: Path, tmp_path: Path) -> None:
    boxed(packs, '    name: "<b>A</b> & <i>"\n    decks: [spells]\n', copies=54)
    pdf = built(packs, tmp_path / "out", "letter")
    [text] = [flat(text) for text in _texts(pdf)]
    assert text.count("<b>A</b>&<i>") == 4  # on the front, the back and both sides


def test_text_past_a_panel_is_told_at_the_box(packs: Path, tmp_path: Path) -> None:
    game = boxed(packs, f"    name: {'长' * 40}\n    decks: [spells]\n")
    with pytest.raises(PackError) as caught:
        built(packs, tmp_path / "out")
    told = [str(finding) for finding in caught.value.findings]
    assert any(message.startswith(f"{game}:{BOX_LINE}: error: E070: box 'b': 'name' runs ")
               and message.endswith("mm past its box (right edge)") for message in told), told


def test_missing_art_is_told_at_its_line(packs: Path) -> None:
    game = boxed(packs, "    decks: [spells]\n    art: art/box.png\n")
    found = [str(finding) for finding in check("mini", packs).findings]
    assert found == [f"{game}:{BOX_LINE + 2}: error: E051: box 'b': art 'art/box.png' does "
                     "not exist"]


def test_the_same_pack_gives_the_same_bytes(packs: Path, tmp_path: Path) -> None:
    boxed(packs, "    decks: [spells]\n    color: '#336699'\n")
    first = built(packs, tmp_path / "one").read_bytes()
    assert built(packs, tmp_path / "two").read_bytes() == first
