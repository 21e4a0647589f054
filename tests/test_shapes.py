"""Pieces of every shape (issue 32): the outlines' geometry, the shared templates drawn in
each shape, text measured against the shape's safe zone (E070), and shapes that cannot be cut
(E113)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PIL import Image

from generator.check.findings import told
from generator.layout.engine import render
from generator.pipeline.build import check, validate_game
from generator.plan import shapes
from generator.plan.faces import face_documents
from generator.plan.shapes import RECT, Shape

from .conftest import edit, pixel_mm, render_page

BLEED, SAFE = 3.0, 3.2  # templates/print.yaml
DPI = 150
ACCENT = (0x33, 0x33, 0x33)  # the tiny pack's deck colour: its frame band
WHITE = (255, 255, 255)  # the tiny pack's paper, and the page where a face draws nothing
TOKEN, MARKER = (0x8A, 0x5A, 0x0B), (0x3D, 0x5A, 0x73)
EXTRA_DECKS = """\
  - id: tokens
    name: 代币
    file: tokens.yaml
    size: token
    template: token
    double_sided: true
    count: 1
    {shape}
    fields:
      resource: {{type: str, required: true}}
      value: {{type: int, required: true}}
      color: {{type: str, required: true}}
  - id: markers
    name: 标记
    file: markers.yaml
    size: token
    template: marker
    double_sided: true
    count: 1
    {shape}
    fields:
      note: {{type: str, required: true}}
      color: {{type: str, required: true}}
"""
SHIELD = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
          '<path d="M0 0 H100 V60 L50 100 L0 60 Z"/></svg>')


def _shaped(cards: Path, shape: str, size: str = "square") -> Path:
    """Give the tiny pack's spells `shape` at `size`, and a token and a marker deck of that
    shape; return the pack."""
    pack = cards / "mini"
    edit(pack / "game.yaml", "    size: poker\n", f"    size: {size}\n    {shape}\n")
    with (pack / "game.yaml").open("a", encoding="utf-8") as game:
        game.write(EXTRA_DECKS.format(shape=shape))
    (pack / "tokens.yaml").write_text(
        '- {id: T1, name: 金1, resource: 金币, value: 3, color: "#8a5a0b"}\n', encoding="utf-8")
    (pack / "markers.yaml").write_text(
        '- {id: M1, name: 先手, note: 每轮先行动, color: "#3d5a73"}\n', encoding="utf-8")
    (pack / "art").mkdir(exist_ok=True)
    (pack / "art" / "shield.svg").write_text(SHIELD, encoding="utf-8")
    return pack


def _found(cards: Path) -> list[str]:
    """What `pnp validate` prints for the tiny pack: one line a mistake."""
    report = validate_game("mini", cards, out_root=cards.parent / "out")
    return [str(finding) for finding in told(report.findings)]


def _faces(cards: Path, folder: Path) -> dict[str, Image.Image]:
    """Each deck's first face as laid out on its faces page (the face alone, in its bleed
    box), by deck id."""
    job = check("mini", cards).job
    faces = face_documents(job.game, job.decks, job.renderer)
    pictures = {}
    for deck, parts in faces.parts.items():
        laid = render(parts[0].html, job.game.root, job.fonts.files(), 300)
        assert laid.pdf, laid.found
        (folder / f"{deck}.pdf").write_bytes(laid.pdf)
        pictures[deck] = render_page(folder / f"{deck}.pdf", 0, DPI)
    return pictures


def _near(colour: tuple[int, ...], expected: tuple[int, int, int]) -> bool:
    return max(abs(a - b) for a, b in zip(colour, expected, strict=True)) <= 6


# The outlines' geometry.

def test_a_hexagon_grown_keeps_its_edges_parallel_at_the_distance() -> None:
    width, height = 60, 60 * 2 / math.sqrt(3)  # a regular hexagon, pointy top
    hexagon = Shape("hex", pointy=True)
    grown = shapes.outline(hexagon, width, height, 3)
    xs, ys = [x for x, _ in grown], [y for _, y in grown]
    assert (min(xs), max(xs)) == (pytest.approx(-3, abs=0.1), pytest.approx(63, abs=0.1))
    assert min(ys) == pytest.approx(-3 / math.cos(math.radians(30)), abs=0.1)  # -3.46
    cut = shapes.outline(hexagon, width, height)
    assert all(shapes.distance(cut, point) == pytest.approx(3 / math.cos(math.radians(30)),
                                                            abs=0.1) for point in grown)
    shrunk = shapes.outline(Shape("hex", pointy=False), height, width, -SAFE)
    assert min(y for _, y in shrunk) == pytest.approx(SAFE, abs=0.1)  # a flat top
    assert min(x for x, _ in shrunk) == pytest.approx(SAFE / math.cos(math.radians(30)),
                                                      abs=0.1)


def test_outside_a_circles_safe_zone_is_measured_from_its_edge() -> None:
    circle = Shape("circle")
    # the corner of a 30 mm token lies 15√2 mm from its centre; the safe zone's radius is 11.8
    assert shapes.outside_mm(circle, 30, 30, SAFE, (0, 0, 1, 1)) == pytest.approx(
        15 * math.sqrt(2) - 11.8, abs=0.1)
    assert shapes.outside_mm(circle, 30, 30, SAFE, (10, 10, 20, 20)) == 0
    assert shapes.outside_mm(circle, 30, 30, SAFE, (14, 1, 16, 2)) == pytest.approx(2.2, abs=0.1)
    assert shapes.outside_mm(RECT, 30, 30, SAFE, (0, 0, 1, 1)) == pytest.approx(
        SAFE * math.sqrt(2), abs=0.1)  # to the safe zone's corner


def test_an_outline_that_is_not_convex_is_measured_along_the_box() -> None:
    arch = shapes.svg_shape(b'<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 H100 V100 '
                            b'H60 V40 H40 V100 H0 Z"/></svg>', "art/arch.svg")
    # a box across the arch's gap has its corners on both legs, its middle in the gap
    assert shapes.outside_mm(arch, 100, 100, 0, (30, 60, 70, 70)) == pytest.approx(10, abs=0.1)
    assert shapes.outside_mm(arch, 100, 100, 0, (5, 45, 35, 95)) == 0


def test_text_boxes_and_discs_lie_inside_the_safe_zone() -> None:
    left, top, right, bottom = shapes.text_box(Shape("circle"), 30, 30, SAFE)
    assert right - left == pytest.approx(23.6 / math.sqrt(2), abs=0.1)
    assert bottom - top == pytest.approx(23.6 / math.sqrt(2), abs=0.1)
    assert shapes.text_box(RECT, 63.5, 88.9, SAFE) == (SAFE, SAFE, 63.5 - SAFE, 88.9 - SAFE)
    assert shapes.text_box(Shape("rounded", 3), 63.5, 88.9, SAFE)[0] == SAFE
    assert shapes.text_box(Shape("rounded", 10.2), 63.5, 88.9, SAFE)[0] == pytest.approx(
        SAFE + 7 * (1 - math.sqrt(0.5)), abs=0.01)
    for shape in (Shape("circle"), Shape("hex"), Shape("hex", pointy=False),
                  Shape("rounded", 12), shapes.svg_shape(SHIELD.encode(), "shield.svg")):
        box = shapes.text_box(shape, 70, 70, SAFE)
        assert box[2] - box[0] > 20 and box[3] - box[1] > 20, shape
        assert shapes.outside_mm(shape, 70, 70, SAFE, box) <= 0.01, shape
    regular = 60 * 2 / math.sqrt(3)
    assert shapes.inner_radius(Shape("hex"), 60, regular, SAFE) == pytest.approx(30 - SAFE,
                                                                                  abs=0.1)


def test_a_shape_survives_the_page_that_carries_it() -> None:
    arch = shapes.svg_shape(SHIELD.encode(), "art/shield.svg")
    for shape in (RECT, Shape("rounded", 3), Shape("hex", pointy=False), arch):
        assert shapes.decoded(shapes.encoded(shape)) == shape
    for text in ('{"kind": "circle"}', "circle", '{"kind": "star", "radius": 0, "pointy": true, '
                 '"points": [], "source": ""}', '{"kind": "path", "radius": 0, "pointy": true, '
                 '"points": [[0, 0]], "source": ""}'):
        with pytest.raises(ValueError, match="not a shape"):
            shapes.decoded(text)


# The shared templates in every shape.

@pytest.mark.parametrize("shape", ["shape: circle", "shape: hex", "shape: hex-flat",
                                   "corners: 3mm", "shape: art/shield.svg"])
def test_the_shared_templates_fit_every_shape(packs: Path, shape: str) -> None:
    _shaped(packs, shape, "poker" if shape.startswith("corners") else "square")
    assert _found(packs) == []


def test_a_round_card_token_and_marker_are_drawn_round(packs: Path, tmp_path: Path) -> None:
    _shaped(packs, "shape: circle")
    faces = _faces(packs, tmp_path)
    card = faces["spells"]  # 70 mm across, in a 76 mm bleed box
    middle = BLEED + 35
    for angle in range(0, 360, 45):  # just inside the cut line, all round: the frame's band
        x, y = (middle + 34.5 * math.cos(math.radians(angle)),
                middle + 34.5 * math.sin(math.radians(angle)))
        assert _near(pixel_mm(card, x, y, DPI), ACCENT), angle
    inner = middle - 34.5 * math.sqrt(0.5) + 3  # 3 mm further in, on the diagonal: the panel
    assert pixel_mm(card, inner, inner, DPI) == WHITE
    assert pixel_mm(card, 1, 1, DPI) == WHITE  # the square's corner, outside the bleed circle
    assert _near(pixel_mm(card, 1, middle, DPI), ACCENT)  # the bleed
    for deck, colour in (("tokens", TOKEN), ("markers", MARKER)):
        token = faces[deck]  # 30 mm across, in a 36 mm bleed box
        assert _near(pixel_mm(token, BLEED + 0.5, 18, DPI), colour), deck
        assert _near(pixel_mm(token, 18, BLEED + 0.5, DPI), colour), deck
        assert pixel_mm(token, 1, 1, DPI) == WHITE, deck
        # the disc's paper ring lies just inside the safe zone, 3.2 mm inside the cut
        assert _near(pixel_mm(token, BLEED + SAFE + 0.3, 18, DPI), WHITE), deck


def test_a_hexagons_band_follows_its_slanted_edges(packs: Path, tmp_path: Path) -> None:
    _shaped(packs, "shape: hex")
    card = _faces(packs, tmp_path)["spells"]
    # the upper right edge runs from (35, 0) to (70, 17.5) in the cut box; its outward normal
    normal = (17.5 / math.hypot(35, 17.5), -35 / math.hypot(35, 17.5))
    middle = (BLEED + 52.5, BLEED + 8.75)

    def inward(mm: float) -> tuple[float, float]:
        return middle[0] - normal[0] * mm, middle[1] - normal[1] * mm

    assert _near(pixel_mm(card, *inward(0.5), DPI), ACCENT)
    assert _near(pixel_mm(card, *inward(1.5), DPI), ACCENT)
    assert pixel_mm(card, *inward(3), DPI) == WHITE  # the panel, past the 2 mm band
    assert pixel_mm(card, BLEED + 35, BLEED + 35, DPI) == WHITE


def test_rounded_corners_round_the_band_and_the_bleed(packs: Path, tmp_path: Path) -> None:
    _shaped(packs, "corners: 6mm", "poker")
    card = _faces(packs, tmp_path)["spells"]
    assert pixel_mm(card, 0.5, 0.5, DPI) == WHITE  # outside the bleed's 9 mm corner
    corner = BLEED + 6 - 6 * math.sqrt(0.5)  # where the cut line's arc crosses the diagonal
    assert _near(pixel_mm(card, corner + 0.7, corner + 0.7, DPI), ACCENT)
    assert pixel_mm(card, corner + 2.5, corner + 2.5, DPI) == WHITE  # the panel, rounded too


# The safe zone of a shape.

def _chip(pack: Path, left: str) -> None:
    """Draw the pack's tokens with a template setting their value `left` of the square safe
    zone's top left corner."""
    chip = pack / "templates" / "cards" / "chip.html.j2"
    chip.parent.mkdir(parents=True)
    chip.write_text('<div class="face"><div class="bleed-area" style="background: '
                    '{{ card.color }}"></div><div class="safe"><div data-field="value" style="'
                    f'position: absolute; left: {left}; top: 0; font-size: 8pt; line-height: 1; '
                    'color: #fff">{{ card.value }} {{ card.resource }}</div></div></div>\n',
                    encoding="utf-8")
    edit(pack / "game.yaml", "template: token", "template: chip")


def test_text_in_a_round_tokens_corner_is_cut_off(packs: Path) -> None:
    pack = _shaped(packs, "shape: circle")
    _chip(pack, "0")
    # the text starts at the corner of the square safe zone, 3.2 mm in from both edges: 16.7 mm
    # from the centre, 4.9 mm past the round safe zone's 11.8 mm radius (its ink a little less)
    assert _found(packs) == [f"{pack / 'tokens.yaml'}:1: error: E070: card 'T1': 'value' runs "
                             "4.8 mm outside the safe zone of its circle"]
    edit(pack / "game.yaml", "template: chip\n    double_sided: true\n    count: 1\n"
         "    shape: circle\n", "template: chip\n    double_sided: true\n    count: 1\n")
    assert _found(packs) == []  # a square token's safe zone reaches its corner


def test_rounded_corners_cut_off_only_text_in_a_corner_rounder_than_the_safe_zone(
        packs: Path) -> None:
    """3 mm corners leave the safe zone the rectangle it was: text past it is still told as on
    a rectangle (W078); 12 mm corners cut into it, so text in the corner is E070."""
    pack = _shaped(packs, "corners: 3mm")
    _chip(pack, "-1mm")
    assert _found(packs) == [f"{pack / 'tokens.yaml'}:1: warning: W078: card 'T1': 'value' "
                             "lies 1.0 mm outside the safe zone (left edge)"]
    game = pack / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("corners: 3mm", "corners: 12mm"),
                    encoding="utf-8")
    found = _found(packs)
    assert len(found) == 1 and found[0].startswith(
        f"{pack / 'tokens.yaml'}:1: error: E070: card 'T1': 'value' runs "), found
    assert found[0].endswith(" mm outside the safe zone of its rounded rectangle (corners 12 mm)")


def test_a_shape_that_cannot_be_cut_is_an_error_at_its_line(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "    size: poker\n", "    size: poker\n    shape: triangle\n")
    line = game.read_text(encoding="utf-8").splitlines().index("    shape: triangle") + 1
    assert _found(packs) == [
        f"{game}:{line}: error: E113: deck 'spells': unknown shape 'triangle': use rect, circle, "
        "hex (hex-pointy), hex-flat, corners: 3mm, or a closed path in an .svg file of the pack"]
    edit(game, "    shape: triangle\n", "    corners: 40mm\n")
    assert _found(packs) == [
        f"{game}:{line}: error: E113: deck 'spells': corners of 40 mm are more than half the "
        "63.5×88.9 mm piece's side"]
    edit(game, "    corners: 40mm\n", "    shape: art/open.svg\n")
    (packs / "mini" / "art").mkdir()
    (packs / "mini" / "art" / "open.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L10 0 L10 10"/></svg>',
        encoding="utf-8")
    assert _found(packs) == [
        f"{game}:{line}: error: E113: deck 'spells': the outline file 'art/open.svg' has no closed "
        "path: the outline must be one <path> ending in Z"]
    edit(game, "    shape: art/open.svg\n", "    shape: art/jagged.svg\n")
    jagged = " ".join(f"L{step % 2} {step}" for step in range(1, 2501))
    (packs / "mini" / "art" / "jagged.svg").write_text(  # a stranger's path of 2,501 corners
        f'<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 {jagged} L50 2500 Z"/></svg>',
        encoding="utf-8")
    assert _found(packs) == [
        f"{game}:{line}: error: E113: deck 'spells': the outline file 'art/jagged.svg' has an "
        "outline of 2502 points once its curves are drawn, more than the 2000 a cut line may "
        "have: simplify it"]
