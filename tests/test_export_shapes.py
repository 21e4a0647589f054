"""Exports of shaped pieces (issue 32): Tabletop Simulator tiles of the matching type (a token
for an SVG outline), per-card PNGs transparent outside the shape grown by the bleed, a
print-shop die line as a spot-colour path on its own layer (none in PDF/X-1a), and a preflight
that reads the bleed along the shape."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pikepdf
import pytest
from PIL import Image, ImageDraw

from generator.check.findings import PackError
from generator.exports import preflight
from generator.exports.base import ExportSettings
from generator.exports.profiles import DieLine, load_profile, read_profile
from generator.exports.run import export
from generator.layout.workers import Workers
from generator.plan.shapes import RECT, Shape, builtin_shape, distance, outline

from .conftest import FIXTURES, MM

SCHEMA = Path(__file__).parent / "data" / "tts-save.schema.json"
BLUE = "#1040c0"
TOKEN = 30.0  # mm: print.yaml's token size
BLEED = 3.0
# A face all white but a blue disc that fills the bleed box (its bleed runs to the bleed
# circle), or that stops at the cut circle (no bleed at all).
DISC = ('<div class="face"><div class="bleed-area" style="background: #ffffff"></div>'
        f'<div class="{{where}}" style="background: {BLUE}; border-radius: 50%"></div></div>')
LEAF = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<path d="M5 0 L10 10 L0 10 Z"/></svg>')
# deck id: (size, shape words, template, back or double-sided)
DECKS = {
    "chips": ("token", "shape: circle", "disc", "back: red"),
    "short": ("token", "shape: circle", "short", "back: red"),
    "hexp": ("token", "shape: hex-pointy", "disc", "double_sided: true"),
    "hexf": ("token", "shape: hex-flat", "disc", "double_sided: true"),
    "rounded": ("square", "corners: 3mm", "card", "double_sided: true"),
    "boxes": ("square", "shape: rect", "card", "double_sided: true"),
    "leaves": ("token", "shape: art/leaf.svg", "fill", "double_sided: true"),
    "rcards": ("poker", "corners: 3mm", "card", "back: red"),
}


def _shaped(cards: Path) -> None:
    """Give the tiny pack a deck of one piece for each shape in DECKS."""
    pack = cards / "mini"
    templates = pack / "templates" / "cards"
    templates.mkdir(parents=True)
    (templates / "disc.html.j2").write_text(DISC.format(where="bleed-area"), "utf-8")
    (templates / "short.html.j2").write_text(DISC.format(where="cut"), "utf-8")
    (templates / "fill.html.j2").write_text(  # blue over the whole face, bleed and all
        f'<div class="face"><div class="bleed-area" style="background: {BLUE}"></div></div>',
        "utf-8")
    (pack / "art").mkdir()
    (pack / "art" / "leaf.svg").write_text(LEAF, "utf-8")
    entries = []
    for number, (deck, (size, shape, template, back)) in enumerate(DECKS.items()):
        (pack / f"{deck}.yaml").write_text(f"- id: P{number}\n  name: {deck}\n  cost: 1\n",
                                           "utf-8")
        entries.append(f"  - {{id: {deck}, name: {deck}, file: {deck}.yaml, size: {size}, "
                       f"{shape}, template: {template}, {back}, count: 1, "
                       "fields: {cost: {type: int}}}\n")
    game = pack / "game.yaml"
    game.write_text(game.read_text("utf-8") + "".join(entries), "utf-8")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> dict[str, Any]:
    """The shaped pack exported as images, for TTS and for a print-and-cut shop (RGB, and
    the circles in CMYK), with what each export said."""
    root = tmp_path_factory.mktemp("shapes")
    cards = root / "cards"
    shutil.copytree(FIXTURES, cards)
    _shaped(cards)
    told: dict[str, list[str]] = {}
    folders = {}
    for name, to, settings in (
            ("images", "images", ExportSettings()),
            ("tts", "tts", ExportSettings()),
            ("printshop", "printshop", ExportSettings(profile="cutcontour")),
            ("cmyk", "printshop", ExportSettings(profile="cutcontour", cmyk=True,
                                                 decks=("chips",))),
            ("jpg", "images", ExportSettings(image_format="jpg", decks=("chips",)))):
        told[name] = []
        folders[name] = export("mini", to, settings, cards, root / name, told[name].append,
                               pool)
    return {"folders": folders, "told": told, "cards": cards}


def _alpha(image: Image.Image, x_mm: float, y_mm: float, bled_mm: float) -> int:
    """The alpha of the pixel at a point given in mm from an image's top left corner."""
    scale = image.width / bled_mm
    value = image.getpixel((min(image.width - 1, int(x_mm * scale)),
                            min(image.height - 1, int(y_mm * scale))))
    assert isinstance(value, tuple)
    return value[3]


def test_tts_tiles_take_the_shapes_type_and_the_save_passes_the_schema(
        exported: dict[str, Any]) -> None:
    save = json.loads((exported["folders"]["tts"] / "saved-object.json").read_text("utf-8"))
    jsonschema.validate(save, json.loads(SCHEMA.read_text("utf-8")))
    objects = {item["Nickname"]: item for item in save["ObjectStates"] if "Nickname" in item}
    types = {deck: objects[deck]["ContainedObjects"][0]["CustomImage"]["CustomTile"]["Type"]
             for deck in ("chips", "hexp", "hexf", "rounded", "boxes")}
    assert types == {"chips": 2, "hexp": 1, "hexf": 1, "rounded": 3, "boxes": 0}
    chip = objects["chips"]["ContainedObjects"][0]
    assert chip["Name"] == "Custom_Tile"  # round cards with backs: a tile, its back below
    assert chip["CustomImage"]["ImageSecondaryURL"].endswith("chips/001-P0-back.png")
    [leaf] = objects["leaves"]["ContainedObjects"]
    assert leaf["Name"] == "Custom_Token" and "CustomTile" not in leaf["CustomImage"]
    assert objects["rcards"]["Name"] == "Card"  # rounded cards stay cards
    [entry] = objects["rcards"]["CustomDeck"].values()
    assert entry["Type"] == 0  # TTS's card: a rounded rectangle
    broken = json.loads(json.dumps(save))
    next(item for item in broken["ObjectStates"] if item.get("Nickname") == "leaves")[
        "ContainedObjects"][0]["CustomImage"]["CustomToken"]["Stackable"] = "no"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json.loads(SCHEMA.read_text("utf-8")))


def test_tts_tile_and_token_images_are_transparent_outside_the_cut(
        exported: dict[str, Any]) -> None:
    folder = exported["folders"]["tts"]
    chip = Image.open(folder / "chips" / "001-P0-front.png")
    assert chip.mode == "RGBA"
    assert _alpha(chip, 0.5, 0.5, TOKEN) == 0 and _alpha(chip, 15, 15, TOKEN) == 255
    leaf = Image.open(folder / "leaves" / "001-P6-front.png")  # a triangle, point up
    assert _alpha(leaf, 2, 2, TOKEN) == 0 and _alpha(leaf, 15, 25, TOKEN) == 255
    assert Image.open(folder / "boxes" / "001-P5-front.png").mode == "RGB"


def test_a_circle_png_is_transparent_outside_its_bleed_circle(exported: dict[str, Any]) -> None:
    image = Image.open(exported["folders"]["images"] / "chips" / "001-P0-front.png")
    bled = TOKEN + 2 * BLEED
    assert image.mode == "RGBA" and image.size == (425, 425)  # 36 mm at 300 dpi
    centre, cut, grown = bled / 2, TOKEN / 2, TOKEN / 2 + BLEED
    diagonal = math.sqrt(0.5)
    assert _alpha(image, 0.2, 0.2, bled) == 0  # the square's corner
    assert _alpha(image, centre, centre, bled) == 255
    assert _alpha(image, centre + cut - 0.3, centre, bled) == 255  # just inside the cut
    assert _alpha(image, centre, centre - cut + 0.3, bled) == 255
    at = (grown + 0.3) * diagonal  # just outside the bleed circle, on the diagonal
    assert _alpha(image, centre + at, centre + at, bled) == 0
    at = (grown - 0.3) * diagonal  # just inside it
    assert _alpha(image, centre + at, centre + at, bled) == 255
    assert Image.open(exported["folders"]["images"] / "spells" / "001-S1-front.png").mode == \
        "RGB"  # a rectangle as before
    jpeg = Image.open(exported["folders"]["jpg"] / "chips" / "001-P0-front.jpg")
    assert jpeg.mode == "RGB" and jpeg.getpixel((2, 2)) == pytest.approx((255, 255, 255),
                                                                          abs=3)


def _die_paths(page: Any) -> list[tuple[list[tuple[float, float]], Any]]:
    """Each path stroked in the die line's spot colour on a page: its points in mm from the
    page's top left corner, and the optional-content property it is marked with (or None)."""
    height = float(page.mediabox[3])
    spaces = {str(name): value for name, value in page.Resources.get("/ColorSpace", {}).items()}
    found, points, marked, space = [], [], None, None
    for operands, operator in pikepdf.parse_content_stream(page):
        op = str(operator)
        if op == "BDC" and str(operands[0]) == "/OC":
            marked = operands[1]
        elif op == "EMC":
            marked = None
        elif op == "CS":
            space = spaces.get(str(operands[0]))
        elif op in ("m", "l"):
            points.append((float(operands[0]) / MM, (height - float(operands[1])) / MM))
        elif op == "S" and space is not None and str(space[0]) == "/Separation":
            found.append((points, marked, str(space[1])))
            points = []
        elif op in ("S", "f", "f*", "n", "B", "b"):
            points = []
    return [(points, marked) for points, marked, spot in found if spot == "/CutContour"]


@pytest.mark.parametrize("deck, shape", [("chips", "circle"), ("hexf", "hex-flat"),
                                         ("hexp", "hex-pointy")])
def test_the_die_line_is_the_cut_outline_in_cutcontour_on_its_own_layer(
        exported: dict[str, Any], deck: str, shape: str) -> None:
    cut = outline(builtin_shape(shape), TOKEN, TOKEN)
    with pikepdf.open(exported["folders"]["printshop"] / f"{deck}.pdf") as pdf:
        layers = pdf.Root.OCProperties.OCGs
        assert [str(layer.Name) for layer in layers] == ["CutContour"]
        for page in pdf.pages:
            [(points, marked)] = _die_paths(page)
            assert len(points) == len(cut)
            assert max(distance(cut, (x - BLEED, y - BLEED)) for x, y in points) <= 0.1
            assert page.Resources.Properties[str(marked)].objgen == layers[0].objgen
    assert f"mini: {deck}.pdf: a CutContour die line on 2 pages, on a layer of its own" in \
        exported["told"]["printshop"]


def test_rectangles_get_a_die_line_when_the_profile_asks(exported: dict[str, Any]) -> None:
    with pikepdf.open(exported["folders"]["printshop"] / "spells.pdf") as pdf:
        [(points, _)] = _die_paths(pdf.pages[0])
    assert [value for point in points for value in point] == pytest.approx(
        [3, 3, 66.5, 3, 66.5, 91.9, 3, 91.9], abs=0.001)


def test_in_pdfx_1a_the_die_line_is_a_spot_colour_path_without_a_layer(
        exported: dict[str, Any], tmp_path: Path) -> None:
    written = exported["folders"]["cmyk"] / "chips.pdf"
    with pikepdf.open(written) as pdf:
        assert pdf.pdf_version == "1.3" and "/OCProperties" not in pdf.Root
        assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
        [(points, marked)] = _die_paths(pdf.pages[0])
        assert marked is None and len(points) == len(outline(Shape("circle"), TOKEN, TOKEN))
    assert any("chips.pdf: a CutContour die line on 2 pages, without a layer" in line
               for line in exported["told"]["cmyk"])
    # Ghostscript separates it as a plate of its own, ink along the circle only
    subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=tiffsep", "-r72",
                    f"-sOutputFile={tmp_path}/page%d.tif", "-dFirstPage=1", "-dLastPage=1",
                    str(written)], check=True)
    plate = Image.open(tmp_path / "page1(CutContour).tif").convert("L")
    side = plate.width / (TOKEN + 2 * BLEED)  # px a mm
    inked = [(x / side - BLEED - TOKEN / 2, y / side - BLEED - TOKEN / 2)
             for y in range(plate.height) for x in range(plate.width)
             if plate.getpixel((x, y)) < 128]
    assert inked and all(abs(math.hypot(x, y) - TOKEN / 2) < 1.0 for x, y in inked)


def test_only_the_print_and_cut_profile_asks_for_a_die_line() -> None:
    assert load_profile("cutcontour").die_line == DieLine("CutContour", 0.25, (0, 1, 0, 0), True)
    assert [load_profile(name).die_line for name in ("generic", "tgc", "mpc", "drivethru")] == \
        [None] * 4


def test_a_malformed_die_line_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cutter.yaml"
    path.write_text("title: cutter\ndie_line:\n  spot: Cut Contour\n", "utf-8")
    with pytest.raises(PackError) as raised:
        read_profile(path)
    assert [str(finding) for finding in raised.value.findings] == [
        f"{path}:3: error: E110: die_line spot is a colour name of letters, digits, - and _, "
        "such as CutContour, not 'Cut Contour'"]


def test_the_preflight_reads_a_circles_bleed_along_its_ring(exported: dict[str, Any]) -> None:
    report = json.loads((exported["folders"]["images"] / "preflight.json").read_text("utf-8"))
    faults = {side["deck"]: side["bleed_faults"] for side in report["sides"]
              if side["side"] == "front"}
    assert faults["chips"] == [] and faults["hexf"] == []
    assert faults["short"] == ["top", "bottom", "left", "right"]
    findings = [line for line in exported["told"]["images"] if "W085" in line]
    assert findings == [
        f"{exported['cards'] / 'mini' / 'short.yaml'}:1: warning: W085: preflight: short/P1 "
        "front (short/001-P1-front.png): no bleed on the top, bottom, left, right edges (the "
        "design stops at the cut line)"]
    shop = json.loads((exported["folders"]["printshop"] / "preflight.json").read_text("utf-8"))
    assert {side["deck"] for side in shop["sides"] if side["bleed_faults"]} == {"short"}


def _disc(radius_mm: float, band: float = 0) -> Image.Image:
    """A token drawn at 10 px a mm with its bleed: white, but a blue disc of `radius_mm`, with
    a white band `band` mm wide inside the cut circle."""
    scale, bled = 10, TOKEN + 2 * BLEED
    picture = Image.new("RGB", (int(bled * scale), int(bled * scale)), "white")
    draw = ImageDraw.Draw(picture)
    centre = bled / 2 * scale

    def disc(radius: float, colour: str) -> None:
        draw.ellipse([centre - radius * scale, centre - radius * scale,
                      centre + radius * scale, centre + radius * scale], fill=colour)

    disc(radius_mm, BLUE)
    if band:
        disc(TOKEN / 2 - 0.2, "white")
        disc(TOKEN / 2 - 0.2 - band, BLUE)
    return picture


def test_the_corners_outside_a_circles_bleed_are_not_missing_bleed() -> None:
    circle, bleed_px = Shape("circle"), int(BLEED * 10)
    bled = _disc(TOKEN / 2 + BLEED)
    assert preflight.missing_bleed(bled, bleed_px, circle, (TOKEN, TOKEN)) == []
    assert f"top: {BLUE} inside, #ffffff in the bleed" in \
        preflight.missing_bleed(bled, bleed_px, RECT)  # read as a square, its corners' paper
    assert preflight.missing_bleed(_disc(TOKEN / 2), bleed_px, circle, (TOKEN, TOKEN)) == [
        "top", "bottom", "left", "right"]
    drift = preflight.missing_bleed(_disc(TOKEN / 2 + BLEED, band=1.5), bleed_px, circle,
                                    (TOKEN, TOKEN))
    assert drift == [f"{side}: #ffffff inside, {BLUE} in the bleed"
                     for side in ("top", "bottom", "left", "right")]
