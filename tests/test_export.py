"""`pnp export`: per-card images at a profile's pixel size, print-shop PDFs with their page
boxes, Tabletop Simulator sheets and saved object, and the preflight report of each; the same
bytes every time, drawn from the faces the card sheets show."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pikepdf
import pypdfium2
import pytest
from PIL import Image, ImageChops, ImageStat

from generator import cli
from generator.check.findings import PackError
from generator.exports.base import ExportSettings
from generator.exports.run import export
from generator.layout.workers import Workers
from generator.pipeline.build import build_game
from generator.pipeline.cache import BuildOptions
from generator.pipeline.owned import MARK

from .conftest import edit, give_template, page_texts

POKER = (63.5, 88.9)  # mm, cut
BLEED = 3.0


def _export(packs: Path, out: Path, to: str = "images", pool: Workers | None = None,
            messages: list[str] | None = None, **settings: object) -> Path:
    told = messages if messages is not None else []
    return export("mini", to, ExportSettings(**settings), packs, out,  # type: ignore[arg-type]
                  told.append, pool)


def _rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "images.csv").open(encoding="utf-8") as rows:
        return list(csv.DictReader(rows))


def _difference(one: Image.Image, other: Image.Image) -> float:
    """Mean difference of two RGB images of one size, 0 to 255, each seen at a quarter of its
    size (two renderings' antialiasing and a pixel of rounding blur away)."""
    small = (max(1, one.width // 4), max(1, one.height // 4))
    return sum(ImageStat.Stat(ImageChops.difference(
        one.resize(small, Image.Resampling.BOX), other.resize(small, Image.Resampling.BOX))
    ).mean) / 3


def test_each_face_and_back_is_an_image_listed_with_its_card(packs: Path, tmp_path: Path,
                                                             pool: Workers) -> None:
    folder = _export(packs, tmp_path / "out", pool=pool, dpi=100)
    listed = [(row["file"], row["name"], row["side"], row["copies"]) for row in _rows(folder)]
    assert listed == [
        ("spells/001-S1-front.png", "火球术", "front", "1"),
        ("spells/back-red.png", "火球术", "back", "1"),
        ("spells/002-S2-front.png", "治疗术", "front", "1"),
        ("spells/back-green.png", "治疗术", "back", "1"),
        ("spells/003-S3-front.png", "冰冻术", "front", "2"),
        ("spells/back-blue.png", "冰冻术", "back", "2"),
    ]
    files = sorted(str(path.relative_to(folder)) for path in folder.rglob("*.png"))
    assert files == sorted({file for file, *_ in listed})  # the manifest lists every file
    assert json.loads((folder / "images.json").read_text(encoding="utf-8"))["images"][4] == {
        "file": "spells/003-S3-front.png", "deck": "spells", "card": "S3", "name": "冰冻术",
        "side": "front", "copies": 2, "width": 274, "height": 374}
    # poker 63.5 x 88.9 mm with 3 mm of bleed on every edge, at 100 dpi
    for file in files:
        assert Image.open(folder / file).size == (274, 374)
        assert Image.open(folder / file).mode == "RGB"
    front = Image.open(folder / "spells/001-S1-front.png").convert("RGB")
    assert front.getpixel((4, 187)) == (0x33, 0x33, 0x33)  # the deck's colour in the bleed
    assert front.getpixel((137, 250)) == (255, 255, 255)  # the paper of the face
    assert Image.open(folder / "spells/back-red.png").convert("RGB").getpixel((137, 100)) \
        == (255, 0, 0)


def test_profiles_give_the_shops_pixel_sizes(packs: Path, tmp_path: Path, pool: Workers) -> None:
    tgc = _export(packs, tmp_path / "tgc", pool=pool, profile="tgc")
    assert Image.open(tgc / "spells/001-S1-front.png").size == (825, 1125)
    mpc = _export(packs, tmp_path / "mpc", pool=pool, profile="mpc", image_format="jpg")
    picture = Image.open(mpc / "spells/001-S1-front.jpg")
    assert (picture.format, picture.size) == ("JPEG", (822, 1122))
    report = json.loads((mpc / "preflight.json").read_text(encoding="utf-8"))
    assert {tuple(side["pixels"]) for side in report["sides"]} == {(822, 1122)}
    assert report["findings"] == []


def test_an_image_too_large_to_draw_is_refused_before_it_is_drawn(packs: Path,
                                                                  tmp_path: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "size: poker", "size: huge")
    edit(game, "players: 1-2人\n", "players: 1-2人\nsizes: {huge: {width: 2000, height: 2000}}\n")
    with pytest.raises(PackError) as caught:
        _export(packs, tmp_path / "out")
    assert [str(f) for f in caught.value.findings] == [
        f"{game}:16: error: E084: deck 'spells': its images would be 23693 x 23693 px, past "
        "the 60 million an export draws (a lower --dpi)"]
    assert not (tmp_path / "out" / "mini-export").exists()


def test_two_exports_are_byte_identical_and_an_edit_draws_only_its_card(
        packs: Path, tmp_path: Path, capsys) -> None:
    for to in ("images", "printshop", "tts"):
        first = _export(packs, tmp_path / "out", to, dpi=60)
        before = {path: path.read_bytes() for path in first.rglob("*")
                  if path.is_file() and path.name != MARK}
        assert cli.main(["export", "--cards", str(packs), "mini", "--to", to, "--dpi", "60",
                         "--out", str(tmp_path / "out")]) == 0
        assert {path: path.read_bytes() for path in first.rglob("*")
                  if path.is_file() and path.name != MARK} == before
    told = capsys.readouterr().err
    assert "mini: wrote 8 files (images, generic)" in told
    assert "(0 images drawn, the rest from the cache)" in told
    edit(packs / "mini" / "spells.yaml", "name: 治疗术", "name: 大治疗术")
    messages: list[str] = []
    folder = _export(packs, tmp_path / "out", messages=messages, dpi=60)
    assert "(1 image drawn, the rest from the cache)" in messages[-1]
    assert _rows(folder)[2]["name"] == "大治疗术"


def _sheet_face(pdf: Path, dpi: int) -> Image.Image:
    """The first card face drawn on a sheet, cut out of the page at `dpi` with its bleed,
    located by the matrix the sheet draws it with."""
    with pikepdf.open(pdf) as document:
        page = document.pages[0]
        form = page.Resources.XObject["/Face0"]
        x0, y0, x1, y1 = (float(value) for value in form.BBox)
        for operands, operator in pikepdf.parse_content_stream(page):
            if str(operator) == "cm" and len(operands) == 6 and float(operands[0]) > 0:
                a, _, _, d, e, f = (float(value) for value in operands)
                break
        height = float(page.mediabox[3])
    left, top = a * x0 + e, height - (d * y1 + f)
    width, tall = a * (x1 - x0), d * (y1 - y0)
    shown = pypdfium2.PdfDocument(str(pdf))[0].render(scale=dpi / 72).to_pil().convert("RGB")
    scale = dpi / 72
    return shown.crop((round(left * scale), round(top * scale), round((left + width) * scale),
                       round((top + tall) * scale)))


def test_an_image_is_the_face_the_sheets_show(packs: Path, tmp_path: Path,
                                              pool: Workers) -> None:
    build_game("mini", BuildOptions(only=("sheets",)), tmp_path / "out", packs, workers=pool)
    on_sheet = _sheet_face(tmp_path / "out" / "mini" / "cards-a4.pdf", 150)
    folder = _export(packs, tmp_path / "out", pool=pool, dpi=150)
    image = Image.open(folder / "spells/001-S1-front.png").convert("RGB")
    assert abs(on_sheet.width - image.width) <= 2 and abs(on_sheet.height - image.height) <= 2
    inked = (image.width // 8, image.height // 20, 7 * image.width // 8, image.height // 3)
    seen = on_sheet.resize(image.size).crop(inked)  # the title and text, inside the cut
    assert _difference(seen, image.crop(inked)) < 3
    other = Image.open(folder / "spells/002-S2-front.png").convert("RGB")
    assert _difference(seen, other.crop(inked)) > 2 * _difference(seen, image.crop(inked))


def _boxes(page: pikepdf.Page) -> dict[str, list[float]]:
    return {name: [round(float(value), 2) for value in page.obj[f"/{name}"]]
            for name in ("MediaBox", "BleedBox", "TrimBox")}


def test_printshop_pages_are_card_sides_with_their_boxes(packs: Path, tmp_path: Path,
                                                         pool: Workers) -> None:
    folder = _export(packs, tmp_path / "a", "printshop", pool=pool)
    pdf = folder / "spells.pdf"
    # each copy's front, then its back: S1, red, S2, green, S3, blue, S3, blue
    texts = page_texts(pdf)
    assert len(texts) == 8
    assert ["火球术" in text for text in texts] == [True] + [False] * 7
    assert ["冰冻术" in text for text in texts] == [False] * 4 + [True, False, True, False]
    assert ["蓝" in text for text in texts] == [False] * 5 + [True, False, True]
    cut = [value / 25.4 * 72 for value in POKER]
    bleed = BLEED / 25.4 * 72
    with pikepdf.open(pdf) as document:
        for page in document.pages:
            boxes = _boxes(page)
            assert boxes["MediaBox"] == boxes["BleedBox"] == \
                [0, 0, round(cut[0] + 2 * bleed, 2), round(cut[1] + 2 * bleed, 2)]
            assert boxes["TrimBox"] == [round(bleed, 2), round(bleed, 2),
                                        round(bleed + cut[0], 2), round(bleed + cut[1], 2)]
        fonts = [font for page in document.pages for font in
                 page.Resources.XObject["/Face0"].Resources.get("/Font", {}).values()]
        assert fonts
        for font in fonts:
            described = font.DescendantFonts[0] if "/DescendantFonts" in font else font
            assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(
                described.FontDescriptor.keys())
    back = pypdfium2.PdfDocument(str(pdf))[1].render(scale=1).to_pil().convert("RGB")
    assert back.getpixel((2, 2)) == (255, 0, 0)  # the red back runs to the page's edge

    marked = _export(packs, tmp_path / "b", "printshop", pool=pool, marks=True,
                     backs_last=True)
    texts = page_texts(marked / "spells.pdf")
    assert ["火球术" in text for text in texts] == [True] + [False] * 7
    assert ["红" in text for text in texts] == [False] * 4 + [True, False, False, False]
    with pikepdf.open(marked / "spells.pdf") as document:
        boxes = _boxes(document.pages[0])
    slug = 6 / 25.4 * 72  # the crop marks' 5 mm and 1 mm short of the bleed
    assert boxes["BleedBox"][:2] == [round(slug, 2), round(slug, 2)]
    assert boxes["TrimBox"][:2] == [round(slug + bleed, 2), round(slug + bleed, 2)]
    assert boxes["MediaBox"][2] == round(cut[0] + 2 * bleed + 2 * slug, 2)


def test_tts_sheets_and_saved_object(packs: Path, tmp_path: Path, pool: Workers) -> None:
    folder = _export(packs, tmp_path / "out", "tts", pool=pool)
    save = json.loads((folder / "saved-object.json").read_text(encoding="utf-8"))
    [deck] = save["ObjectStates"]
    assert deck["Name"] == "DeckCustom" and deck["Nickname"] == "法术"
    entry = deck["CustomDeck"]["1"]
    assert (entry["NumWidth"], entry["NumHeight"], entry["UniqueBack"], entry["BackIsHidden"]) \
        == (2, 2, True, True)  # 3 distinct fronts, no slot kept for a hidden card
    assert entry["FaceURL"] == (folder.resolve() / "spells-1.png").as_uri()
    assert entry["BackURL"] == (folder.resolve() / "spells-1-backs.png").as_uri()
    assert deck["DeckIDs"] == [100, 101, 102, 102]  # the two copies of S3 share a CardID
    cards = deck["ContainedObjects"]
    assert [(card["Nickname"], card["CardID"]) for card in cards] == [
        ("火球术", 100), ("治疗术", 101), ("冰冻术", 102), ("冰冻术", 102)]
    assert cards[0]["Description"] == "效果: 造成 3 点伤害。<b>不是标记</b>"
    assert cards[0]["CustomDeck"] == {"1": entry}
    sheet = Image.open(folder / "spells-1.png").convert("RGB")
    backs = Image.open(folder / "spells-1-backs.png").convert("RGB")
    assert sheet.size == backs.size and sheet.width <= 4096 and sheet.height <= 4096
    cell = (sheet.width // 2, sheet.height // 2)
    assert sheet.size == (cell[0] * 2, cell[1] * 2)
    images = _export(packs, tmp_path / "images", pool=pool, dpi=300)
    edge = round(BLEED / 25.4 * 300)
    for card in cards:
        slot = card["CardID"] % 100
        box = ((slot % 2) * cell[0], (slot // 2) * cell[1])
        shown = sheet.crop((*box, box[0] + cell[0], box[1] + cell[1]))
        number = ["S1", "S2", "S3"].index(next(
            row["card"] for row in _rows(images) if row["name"] == card["Nickname"])) + 1
        own = Image.open(next(images.glob(f"spells/00{number}-*-front.png"))).convert("RGB")
        cut = own.crop((edge, edge, own.width - edge, own.height - edge)).resize(cell)
        assert _difference(shown, cut) < 6, card["Nickname"]
    assert backs.getpixel((cell[0] // 2, 10)) == (255, 0, 0)  # S1's red back in slot 0
    assert backs.getpixel((cell[0] // 2, cell[1] + 10)) == (0, 0, 255)  # S3's blue


def test_preflight_names_the_card_whose_bleed_is_white_and_strict_stops(
        packs: Path, tmp_path: Path, pool: Workers) -> None:
    pack = packs / "mini"
    (pack / "style.css").write_text(  # white to the cut: no band of the frame there
        ".bleed-area { inset: 3mm; }\n.frame { border: 0; border-radius: 0; }\n", encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    messages: list[str] = []
    folder = _export(packs, tmp_path / "out", pool=pool, messages=messages, dpi=100)
    report = json.loads((folder / "preflight.json").read_text(encoding="utf-8"))
    cards = pack / "spells.yaml"
    assert (
        f"{cards}:1: warning: W085: preflight: spells/S1 back (spells/back-red.png): no "
        "bleed on the top, bottom, left, right edges (the design stops at the cut line)"
    ) in report["findings"]
    assert len(report["findings"]) == 3  # the fronts are white up to the cut line: no finding
    assert "mini: preflight: bleed on every edge: 3 of 6" in messages
    with pytest.raises(PackError) as caught:
        _export(packs, tmp_path / "strict", pool=pool, dpi=100, strict=True)
    assert [f.code for f in caught.value.findings] == ["W085"] * 3
    assert not (tmp_path / "strict" / "mini-export").exists()


def test_a_deck_past_one_sheet_spans_several_custom_decks(packs: Path, tmp_path: Path,
                                                          pool: Workers, monkeypatch) -> None:
    import generator.exports.tts as tts

    monkeypatch.setattr(tts, "SLOTS", 2)  # as if a sheet held two cards, not 69
    folder = _export(packs, tmp_path / "out", "tts", pool=pool)
    [deck] = json.loads((folder / "saved-object.json").read_text(encoding="utf-8"))[
        "ObjectStates"]
    assert sorted(deck["CustomDeck"]) == ["1", "2"]
    assert deck["DeckIDs"] == [100, 101, 200, 200]
    assert [card["CustomDeck"] == {str(card["CardID"] // 100): deck["CustomDeck"][
        str(card["CardID"] // 100)]} for card in deck["ContainedObjects"]] == [True] * 4
    assert (deck["CustomDeck"]["2"]["NumWidth"], deck["CustomDeck"]["2"]["NumHeight"]) == (2, 2)
    assert sorted(path.name for path in folder.glob("spells*.png")) == [
        "spells-1-backs.png", "spells-1.png", "spells-2-backs.png", "spells-2.png"]


def test_preflight_gives_each_raster_image_its_dpi(packs: Path, tmp_path: Path,
                                                   pool: Workers) -> None:
    pack = packs / "mini"
    give_template(pack, '{% if card.art %}<img src="{{ card.art }}" '
                        'style="width: 25.4mm; height: 25.4mm">{% endif %}')
    edit(pack / "spells.yaml", "  cost: 2\n", "  cost: 2\n  art: art.png\n")
    Image.new("RGB", (320, 320), (200, 30, 30)).save(pack / "art.png")  # 1 in wide: 320 dpi
    messages: list[str] = []
    folder = _export(packs, tmp_path / "out", pool=pool, messages=messages, dpi=60)
    report = json.loads((folder / "preflight.json").read_text(encoding="utf-8"))
    assert [side["image_dpi"] for side in report["sides"]] == [[], [], [320.0], [], [], []]
    assert report["findings"] == []  # under 300 dpi the build refuses it already (E071)
    assert "mini: preflight: raster images: 1, the lowest at 320 dpi" in messages


@pytest.mark.skipif(shutil.which("gs") is None or shutil.which("linkicc") is None,
                    reason="Ghostscript or LittleCMS's tools are not installed")
def test_a_cmyk_printshop_file_keeps_its_boxes_and_looks_the_same(
        packs: Path, tmp_path: Path, pool: Workers) -> None:
    rgb = _export(packs, tmp_path / "rgb", "printshop", pool=pool)
    messages: list[str] = []
    cmyk = _export(packs, tmp_path / "cmyk", "printshop", pool=pool, messages=messages,
                   cmyk=True)
    assert "mini: PDF/X-1a:2003, 1 file (spells.pdf): CMYK for Ghostscript's default_cmyk.icc, " \
           "the output intent, total ink held under 240 %" in messages
    with pikepdf.open(rgb / "spells.pdf") as before, pikepdf.open(cmyk / "spells.pdf") as after:
        assert after.pdf_version == "1.3"
        assert str(after.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
        assert str(after.docinfo["/Title"]) == "测试小包 t1 — 法术"
        for old, new in zip(before.pages, after.pages, strict=True):
            assert _boxes(old) == _boxes(new)
            assert "/Font" in new.Resources  # text stays text
    front, back = ([pypdfium2.PdfDocument(str(folder / "spells.pdf"))[index].render(
        scale=100 / 72).to_pil().convert("RGB") for folder in (rgb, cmyk)] for index in (0, 1))
    assert _difference(*front) < 3  # the title and text where the RGB file has them
    red = back[1].getpixel((back[1].width // 2, 20))
    assert red[0] > 180 and red[1] < 90 and red[2] < 90  # the red back, as CMYK can print it
    report = json.loads((cmyk / "preflight.json").read_text(encoding="utf-8"))
    assert {side["colour"] for side in report["sides"]} == {"CMYK"}
    assert all(0 < side["ink"] <= 400 for side in report["sides"])


def test_a_card_id_with_slashes_stays_a_file_name_in_the_export(packs: Path, tmp_path: Path,
                                                               pool: Workers) -> None:
    edit(packs / "mini" / "spells.yaml", "- id: S1\n", "- id: ../../../../S1\n")
    folder = _export(packs, tmp_path / "out", pool=pool, dpi=50)
    written = sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*S1*"))
    assert written == ["out/mini-export/images/spells/001-_.._.._.._S1-front.png"]
    assert _rows(folder)[0]["file"] == "spells/001-_.._.._.._S1-front.png"
