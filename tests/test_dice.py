"""Dice nets: page size, packing, reproducibility, pips and a fold simulation of the layout."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image
from pypdf import PdfReader

from generator.outputs.dice import NET_CELLS, NET_TABS, dice_pdf, net_faces, net_size
from generator.pack.schema import DieSpec
from generator.plan.geometry import Box

A4 = Box(210, 297)
LETTER = Box(215.9, 279.4)
MM = 72 / 25.4
DPI = 100


def die(**kw: object) -> DieSpec:
    """A die spec with test defaults."""
    return DieSpec(**{"id": "d6", "name": "D6", **kw})


def render(pdf: bytes, page: int = 0) -> Image.Image:
    """Page `page` of `pdf` as an RGB image at DPI."""
    doc = pypdfium2.PdfDocument(pdf)
    try:
        return doc[page].render(scale=DPI / 72).to_pil().convert("RGB")
    finally:
        doc.close()


def pixel(img: Image.Image, x_mm: float, y_mm: float) -> tuple[int, int, int]:
    """The pixel at (x, y) mm from the page's top-left."""
    return img.getpixel((round(x_mm / 25.4 * DPI), round(y_mm / 25.4 * DPI)))


def near(actual: tuple[int, ...], expected: tuple[int, ...], tol: int = 12) -> bool:
    """Whether two RGB colours match within `tol` per channel."""
    return all(abs(a - e) <= tol for a, e in zip(actual, expected, strict=True))


# --- a fold simulation: roll a cube across the net; each cell gets the cube face it touches ---

_STEP = {"right": (1, 0), "left": (-1, 0), "bottom": (0, 1), "top": (0, -1)}
# Rolling towards a side: the face looking that way lands on the table, and so on round.
_ROLL = {
    "right": {"right": "down", "down": "left", "left": "up", "up": "right"},
    "left": {"left": "down", "down": "right", "right": "up", "up": "left"},
    "bottom": {"bottom": "down", "down": "top", "top": "up", "up": "bottom"},
    "top": {"top": "down", "down": "bottom", "bottom": "up", "up": "top"},
}
_OPPOSITE = {"A": "a", "B": "b", "C": "c"}


def fold() -> dict[tuple[int, int], dict[str, str]]:
    """Each net cell's cube orientation (which cube face looks down/up/left/...) after rolling."""
    cells = {(c, r) for c, r, _ in NET_CELLS}
    start = (NET_CELLS[0][0], NET_CELLS[0][1])
    seen = {start: {"down": "A", "up": "a", "top": "B", "bottom": "b", "left": "C", "right": "c"}}
    todo = [start]
    while todo:
        col, row = todo.pop()
        for side, (dc, dr) in _STEP.items():
            nxt = (col + dc, row + dr)
            if nxt in cells and nxt not in seen:
                here = seen[(col, row)]
                seen[nxt] = {_ROLL[side].get(k, k): v for k, v in here.items()}
                todo.append(nxt)
    assert set(seen) == cells, "the net is not connected"
    return seen


def test_fold_gives_a_cube_with_opposite_faces_summing_to_seven() -> None:
    orient = fold()
    label = {orient[(c, r)]["down"]: face for c, r, face in NET_CELLS}
    assert len(label) == 6, "two cells land on the same cube face"
    faces = DieSpec(id="x", name="x").faces
    assert faces == [1, 2, 3, 4, 5, 6]
    pairs = {frozenset((label[u], label[lo])) for u, lo in _OPPOSITE.items()}
    assert pairs == {frozenset((0, 5)), frozenset((1, 4)), frozenset((2, 3))}
    assert all(faces[i] + faces[j] == 7 for i, j in pairs)


def test_every_seam_gets_exactly_one_glue_tab() -> None:
    orient = fold()
    cells = {(c, r) for c, r, _ in NET_CELLS}
    seams: Counter[frozenset[str]] = Counter()
    seam_of: dict[tuple[int, int, str], frozenset[str]] = {}
    for col, row in cells:
        for side, (dc, dr) in _STEP.items():
            if (col + dc, row + dr) not in cells:  # an outline edge
                o = orient[(col, row)]
                seam_of[(col, row, side)] = frozenset((o["down"], o[side]))
                seams[seam_of[(col, row, side)]] += 1
    assert len(seam_of) == 14 and len(seams) == 7 and set(seams.values()) == {2}
    assert len(NET_TABS) == 7 and len(set(NET_TABS)) == 7
    assert all(tab in seam_of for tab in NET_TABS), "a tab on an inner edge"
    assert {seam_of[tab] for tab in NET_TABS} == set(seams)


def test_net_faces_is_the_cross() -> None:
    assert sorted(net_faces(10)) == sorted(
        [(10, 0, 1), (0, 10, 2), (10, 10, 0), (20, 10, 3), (10, 20, 4), (10, 30, 5)]
    )
    size = net_size(18)
    assert size.width == pytest.approx(54) and size.height == pytest.approx(72 + 0.35 * 18)


@pytest.mark.parametrize("paper", [A4, LETTER], ids=["a4", "letter"])
def test_page_box_is_the_paper(paper: Box) -> None:
    pdf, pages = dice_pdf([die()], paper)
    reader = PdfReader(io.BytesIO(pdf))
    assert pages == len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert float(box.left) == pytest.approx(0, abs=0.01)
    assert float(box.bottom) == pytest.approx(0, abs=0.01)
    assert float(box.width) == pytest.approx(paper.width * MM, abs=0.01)
    assert float(box.height) == pytest.approx(paper.height * MM, abs=0.01)


def test_page_count() -> None:
    # A4 less 10 mm margins is 190 x 277 mm; an 18 mm net is 54 x 78.3 mm plus a 3 mm gap,
    # so 3 across and 3 down: 9 nets a page.
    two_pairs = [die(id="a", count=2), die(id="b", count=2, color="#ffcc00")]
    pdf, pages = dice_pdf(two_pairs, A4)
    assert pages == len(PdfReader(io.BytesIO(pdf)).pages) == 1
    pdf, pages = dice_pdf([die(count=9)], A4)
    assert pages == 1
    pdf, pages = dice_pdf([die(count=10)], A4)
    assert pages == 2
    pdf, pages = dice_pdf([die(count=30)], A4)
    assert pages == len(PdfReader(io.BytesIO(pdf)).pages) == 4


def test_same_input_same_bytes() -> None:
    specs = [
        die(count=3, color="#f6efe0", ink="navy"),
        die(id="b", edge=25, faces=[9, 8, 7, 0, 1, 2]),
    ]
    first = dice_pdf(specs, A4, title="骰子 Dice")
    assert first == dice_pdf(specs, A4, title="骰子 Dice")
    assert first[0] != dice_pdf(specs, LETTER, title="骰子 Dice")[0]


def test_title_is_metadata_not_page_text() -> None:
    pdf, _ = dice_pdf([die()], A4, title="骰子")
    reader = PdfReader(io.BytesIO(pdf))
    assert reader.metadata.title == "骰子"
    assert reader.pages[0].extract_text().strip() == ""


YELLOW = (255, 204, 0)  # "#fc0"
NAVY = (0, 0, 128)  # "navy"
WHITE = (255, 255, 255)
TAB_GREY = (217, 217, 217)


def test_pips_and_face_colours_by_hand() -> None:
    # The first net's grid starts at the margin, (10, 10) mm.  Face 0 (the "1") is the cell at
    # column 1, row 1: x, y 28..46 mm, centre (37, 37).  Face 1 (the "2") is column 1, row 0:
    # centre (37, 19), its pips at the top-right and bottom-left pip spots, (41.5, 14.5) and
    # (32.5, 23.5).  The tab on that face's left edge fills x 21.7..28, centre about (25, 19).
    # The net is 3 x 18 = 54 mm wide, so the second net starts 3 mm after x = 64, at 67 mm.
    img = render(dice_pdf([die(color="#fc0", ink="navy", count=2)], A4)[0])
    assert near(pixel(img, 37, 37), NAVY)
    assert near(pixel(img, 37, 19), YELLOW)
    assert near(pixel(img, 41.5, 14.5), NAVY)
    assert near(pixel(img, 32.5, 23.5), NAVY)
    assert near(pixel(img, 25, 19), TAB_GREY)
    assert near(pixel(img, 15, 15), WHITE)  # empty corner of the grid, left of the tab
    assert near(pixel(img, 5, 5), WHITE)  # margin
    assert near(pixel(img, 63, 37), YELLOW)  # first net's right arm
    assert near(pixel(img, 65.5, 37), WHITE)  # the gap
    assert near(pixel(img, 68, 37), YELLOW)  # second net's left arm
    assert near(pixel(img, 67 + 37 - 10, 37), NAVY)  # second net's "1"


def test_pips_follow_the_layout() -> None:
    edge, margin = 20.0, 12.0
    faces = [1, 2, 3, 4, 5, 6]
    img = render(dice_pdf([die(edge=edge, color="#fc0", ink="navy", faces=faces)], A4, margin)[0])
    at = {faces[i]: (margin + x, margin + y) for x, y, i in net_faces(edge)}
    for pips in (1, 3, 5):  # odd counts have a centre pip
        x, y = at[pips]
        assert near(pixel(img, x + edge / 2, y + edge / 2), NAVY), pips
    for pips in (2, 4, 6):  # even counts do not
        x, y = at[pips]
        assert near(pixel(img, x + edge / 2, y + edge / 2), YELLOW), pips
    for pips in (4, 5, 6):  # ... but have all four corners
        x, y = at[pips]
        for fx in (0.25, 0.75):
            for fy in (0.25, 0.75):
                assert near(pixel(img, x + fx * edge, y + fy * edge), NAVY), pips
    x, y = at[6]  # the 6 has its middle row at the sides and nothing top or bottom centre
    assert near(pixel(img, x + 0.25 * edge, y + 0.5 * edge), NAVY)
    assert near(pixel(img, x + 0.5 * edge, y + 0.25 * edge), YELLOW)


def test_blank_faces() -> None:
    img = render(dice_pdf([die(color="#fc0", ink="navy", faces=[0] * 6)], A4)[0])
    for x, y, _ in net_faces(18):
        for fx, fy in ((0.5, 0.5), (0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)):
            assert near(pixel(img, 10 + x + fx * 18, 10 + y + fy * 18), YELLOW)


def test_nets_stay_inside_the_margins() -> None:
    margin = 10
    specs = [die(count=5), die(id="big", edge=30, count=3), die(id="s", edge=8, count=20)]
    pdf, pages = dice_pdf(specs, A4, margin)
    assert pages >= 2
    inset = round((margin - 0.5) / 25.4 * DPI)  # stay clear of anti-aliasing at the margin
    for page in range(pages):
        img = render(pdf, page)
        w, h = img.size
        bands = ((0, 0, w, inset), (0, h - inset, w, h), (0, 0, inset, h), (w - inset, 0, w, h))
        for band in bands:
            assert img.crop(band).getextrema() == ((255, 255),) * 3, (page, band)
        assert img.getextrema() != ((255, 255),) * 3  # something is drawn


def test_too_big_raises() -> None:
    with pytest.raises(ValueError) as err:
        dice_pdf([die(), die(id="big", edge=40.0)], Box(100, 150))
    assert str(err.value) == "die 'big' with edge 40.0 mm does not fit on the paper"


def test_bad_hex_colour_raises() -> None:
    with pytest.raises(ValueError, match="3, 6 or 8 hex digits"):
        dice_pdf([die(color="#abcd")], A4)


def test_the_dice_name_no_font_they_do_not_embed(default_a4: Path) -> None:
    """reportlab opens each page naming Helvetica, never embedded, which print shops'
    preflight rejects; the nets print no text, so no font is left."""
    pages = PdfReader(default_a4 / "dice-a4.pdf").pages
    assert len(pages) > 0
    for page in pages:
        assert "/Font" not in page["/Resources"]
        assert b" Tf" not in page.get_contents().get_data()
