"""Export profiles as data (templates/profiles/, a pack's own profiles/): each shop's pixel and
page sizes as its file gives them, DriveThruCards' page order and boxes, a deck of a size the
shop does not sell left out, `--decks`, the cut line at the profile's bleed, and a pack's own
profile, refused at its line when malformed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pikepdf
import pytest
import yaml
from PIL import Image

from generator import TEMPLATES_DIR
from generator.check.findings import PackError, PnpError, display_path
from generator.exports import printshop
from generator.exports.base import ExportSettings
from generator.exports.profiles import load_profile, profile_files
from generator.exports.run import export
from generator.layout.workers import Workers
from generator.plan.geometry import Box

from .conftest import FIXTURES, MM, edit, pixel_mm, render_page

POKER = (63.5, 88.9)  # mm: the tiny pack's cards
TOKENS = """  - id: tokens
    name: 标记
    file: tokens.yaml
    size: token
    template: card
    back: red
    count: 1
    fields: {}
"""


def _shop(name: str) -> dict:
    """A shipped profile's file, read as plain YAML, apart from the code that reads it."""
    return yaml.safe_load((TEMPLATES_DIR / "profiles" / f"{name}.yaml").read_text("utf-8"))


def _with_tokens(cards: Path) -> Path:
    """Give the tiny pack a second deck, of 30 mm tokens, which no shop profile sells."""
    pack = cards / "mini"
    (pack / "game.yaml").write_text((pack / "game.yaml").read_text("utf-8") + TOKENS, "utf-8")
    (pack / "tokens.yaml").write_text("- id: T1\n  name: 金币\n", "utf-8")
    return pack


def _export(cards: Path, out: Path, to: str = "images", told: list[str] | None = None,
            pool: Workers | None = None, **settings: object) -> Path:
    return export("mini", to, ExportSettings(**settings), cards, out,  # type: ignore[arg-type]
                  (told if told is not None else []).append, pool)


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test packs, the tiny one with a deck of tokens too, shared by this module's
    exports (which do not edit it)."""
    folder = tmp_path_factory.mktemp("profiles") / "cards"
    shutil.copytree(FIXTURES, folder)
    _with_tokens(folder)
    return folder


@pytest.fixture(scope="module")
def drivethru(cards: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The tiny pack exported for DriveThruCards, and what the export said."""
    told: list[str] = []
    out = tmp_path_factory.mktemp("drivethru")
    return _export(cards, out, "printshop", told, profile="drivethru"), told


@pytest.mark.parametrize("name", ["tgc", "mpc"])
def test_a_shops_images_have_the_pixel_size_its_profile_gives(
        cards: Path, tmp_path: Path, pool: Workers, name: str) -> None:
    poker = next(size for size in _shop(name)["sizes"].values() if size["cut"] == list(POKER))
    folder = _export(cards, tmp_path, pool=pool, profile=name, decks=("spells",))
    images = sorted(folder.rglob("*.png"))
    assert len(images) == 6
    assert {Image.open(image).size for image in images} == {tuple(poker["pixels"])}


def test_the_generic_profile_draws_the_cut_and_print_yaml_bleed_at_the_dpi(
        cards: Path, tmp_path: Path, pool: Workers) -> None:
    assert _shop("generic")["bleed"] is None and _shop("generic")["sizes"] is None
    folder = _export(cards, tmp_path, pool=pool, dpi=50)
    bleed = yaml.safe_load((TEMPLATES_DIR / "print.yaml").read_text("utf-8"))["bleed"]
    assert Image.open(folder / "spells/001-S1-front.png").size == (
        round((63.5 + 2 * bleed) / 25.4 * 50), round((88.9 + 2 * bleed) / 25.4 * 50))
    assert Image.open(folder / "tokens/001-T1-front.png").size == (
        round((30 + 2 * bleed) / 25.4 * 50), round((30 + 2 * bleed) / 25.4 * 50))


def test_drivethru_pages_are_cut_plus_its_bleed_each_back_before_its_front(
        drivethru: tuple[Path, list[str]]) -> None:
    folder, _ = drivethru
    shop = _shop("drivethru")
    assert (shop["bleed"], shop["page_orders"]) == (3.175, ["back-front"])
    assert (shop["colour"], shop["standard"], shop["max_ink"]) == ("CMYK", "PDF/X-1a:2003", 240)
    width, height = (edge + 2 * shop["bleed"] for edge in shop["sizes"]["poker"]["cut"])
    bleed = shop["bleed"] * MM
    with pikepdf.open(folder / "spells.pdf") as pdf:
        assert len(pdf.pages) == 8  # S1, S2, and S3 twice: a back and a front each
        for page in pdf.pages:
            assert [float(v) for v in page.MediaBox] == pytest.approx([0, 0, width * MM,
                                                                       height * MM])
            assert [float(v) for v in page.MediaBox] == pytest.approx([0, 0, 198, 270])
            assert [float(v) for v in page.BleedBox] == pytest.approx([0, 0, 198, 270])
            assert [float(v) for v in page.TrimBox] == pytest.approx(
                [bleed, bleed, 198 - bleed, 270 - bleed])
    pages = [render_page(folder / "spells.pdf", index, 30) for index in range(8)]
    backs = [pixel_mm(page, 35, 25, 30) for page in pages[0::2]]  # red, green, blue backs,
    strongest = [max(range(3), key=colour.__getitem__) for colour in backs]  # now in CMYK
    assert strongest == [0, 1, 2, 2] and all(min(colour) < 100 for colour in backs)
    assert [min(pixel_mm(page, 35, 63.5, 30)) for page in pages[1::2]] >= [250] * 4  # fronts


def test_drivethru_files_are_cmyk_pdfx_within_its_ink_limit(
        drivethru: tuple[Path, list[str]]) -> None:
    folder, told = drivethru
    with pikepdf.open(folder / "spells.pdf") as pdf:
        assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
        assert pdf.Root.OutputIntents[0].S == "/GTS_PDFX"
    report = json.loads((folder / "preflight.json").read_text("utf-8"))
    inks = [side["ink"] for side in report["sides"]]
    assert inks and all(ink is not None and ink <= 240 for ink in inks)
    assert any(line.startswith("mini: PDF/X-1a:2003, 1 file (spells.pdf)") for line in told)


def test_a_deck_the_shop_does_not_sell_is_left_out_naming_the_nearest_size(
        cards: Path, drivethru: tuple[Path, list[str]]) -> None:
    folder, told = drivethru
    game = cards / "mini" / "game.yaml"
    assert [message for message in told if "W111" in message] == [
        f"{game}:25: warning: W111: deck 'tokens': DriveThruCards sells no 30 x 30 mm card "
        "(size 'token'); the nearest it sells is 'mini', 44.45 x 63.5 mm: the deck is left "
        "out of the drivethru export"]
    assert sorted(path.name for path in folder.glob("*.pdf")) == ["spells.pdf"]


def test_no_deck_left_is_an_error(cards: Path, tmp_path: Path) -> None:
    with pytest.raises(PackError) as caught:
        _export(cards, tmp_path, profile="mpc", decks=("tokens",))
    assert [str(finding) for finding in caught.value.findings] == [
        f"{cards / 'mini' / 'game.yaml'}: error: E084: no deck left to export: the mpc profile "
        f"({display_path(TEMPLATES_DIR / 'profiles' / 'mpc.yaml')}) sells none of their card "
        "sizes"]
    assert not (tmp_path / "mini-export").exists()


def test_decks_exports_only_the_decks_named_and_refuses_an_unknown_one(
        cards: Path, tmp_path: Path, pool: Workers) -> None:
    folder = _export(cards, tmp_path, pool=pool, dpi=20, decks=("tokens",))
    assert sorted(str(path.relative_to(folder)) for path in folder.rglob("*.png")) == [
        "tokens/001-T1-front.png", "tokens/back-red.png"]
    with pytest.raises(PnpError) as caught:
        _export(cards, tmp_path, decks=("spells", "spels"))
    assert str(caught.value) == "--decks: no deck 'spels' (the game's decks: spells, tokens)"


def test_backs_last_only_where_the_profile_takes_it(cards: Path, tmp_path: Path) -> None:
    with pytest.raises(PnpError) as caught:
        _export(cards, tmp_path, "printshop", profile="drivethru", backs_last=True)
    assert str(caught.value) == ("--backs-last: the drivethru profile takes its pages only as "
                                 "back-front (templates/profiles/drivethru.yaml)")


def test_the_cut_line_is_at_the_profiles_bleed(packs: Path, tmp_path: Path,
                                               pool: Workers) -> None:
    """A face green inside its cut line and grey in its bleed, drawn for The Game Crafter:
    1/8 in of bleed at 300 dpi is 37.5 px on every edge (print.yaml's 3 mm stretched to the
    same image would put the cut at 35.6 px)."""
    pack = packs / "mini"
    template = pack / "templates" / "cards" / "edges.html.j2"
    template.parent.mkdir(parents=True)
    template.write_text('<div class="bleed-area" style="background: #808080"></div>'
                        '<div class="cut" style="background: #00ff00"></div>'
                        '<div data-field="name">{{ card.name }}</div>', "utf-8")
    edit(pack / "game.yaml", "template: card", "template: edges")
    folder = _export(packs, tmp_path, pool=pool, profile="tgc")
    face = Image.open(folder / "spells/001-S1-front.png").convert("RGB")
    assert face.size == (825, 1125)
    row, column = 600, 400  # clear of the name at the top
    across = [_colour(face.getpixel((x, row))) for x in (36, 38, 786, 788)]
    down = [_colour(face.getpixel((column, y))) for y in (36, 38, 1086, 1088)]
    assert across == down == ["grey", "green", "green", "grey"]


def _colour(pixel: tuple[int, int, int]) -> str:
    """Which of the test face's two colours a pixel is, within a few levels."""
    named = {"grey": (128, 128, 128), "green": (0, 255, 0)}
    return next((name for name, colour in named.items()
                 if max(abs(a - b) for a, b in zip(pixel, colour, strict=True)) <= 8), str(pixel))


SHOP = """title: Corner Shop
dpi: 100
bleed: 2
page_orders: [back-front, fronts-backs]
naming: {image: "{deck}-{card}-{side}", back: "{deck}-back-{back}"}
sizes:
  poker: {cut: [63.5, 88.9], pixels: [266, 366]}
"""


def test_a_packs_own_profile_is_found_by_name(packs: Path, tmp_path: Path,
                                              pool: Workers) -> None:
    profiles = packs / "mini" / "profiles"
    profiles.mkdir()
    (profiles / "corner.yaml").write_text(SHOP, "utf-8")
    assert set(profile_files(packs / "mini")) == {"generic", "tgc", "mpc", "drivethru",
                                                   "cutcontour", "corner"}
    folder = _export(packs, tmp_path, pool=pool, profile="corner")
    assert sorted(path.name for path in folder.glob("*.png")) == [
        "spells-S1-front.png", "spells-S2-front.png", "spells-S3-front.png",
        "spells-back-blue.png", "spells-back-green.png", "spells-back-red.png"]
    assert Image.open(folder / "spells-S1-front.png").size == (266, 366)
    with pytest.raises(PnpError) as caught:
        _export(packs, tmp_path, profile="nowhere")
    assert str(caught.value) == ("--profile nowhere: no such profile (there are: cutcontour, "
                                 "drivethru, generic, mpc, tgc, corner; a pack's own goes in "
                                 "<pack>/profiles/<name>.yaml)")


@pytest.mark.parametrize(("old", "new", "line", "message"), [
    ("bleed: 2", "bleed: lots", 3, "bleed is a number from 0 to 25, or null, not 'lots'"),
    ("pixels: [266, 366]", "pixels: [300, 366]", 7,
     "size 'poker': 300 x 366 px is not its cut plus the bleed at 100 dpi (266 x 366 px)"),
    ('image: "{deck}-{card}-{side}"', 'image: "../{deck}-{card}"', 5,
     "naming image: '../{deck}-{card}' is a relative path of letters, digits, '.', '-', '_' "
     "and /, with the placeholders {deck}, {number}, {card}, {side}"),
    ('image: "{deck}-{card}-{side}"', 'image: "{deck.__class__}"', 5,
     "naming image: '{deck.__class__}' is a relative path of letters, digits, '.', '-', '_' "
     "and /, with the placeholders {deck}, {number}, {card}, {side}"),
    ("page_orders: [back-front, fronts-backs]", "page_orders: [sideways]", 4,
     "page_orders is a list of front-back, back-front, fronts-backs"),
    ("title: Corner Shop", "title: Corner Shop\ncolor: CMYK", 2,
     "unknown key 'color' (a profile takes: bleed, colour, die_line, dpi, max_ink, naming, "
     "page_orders, safe, sizes, standard, title)"),
    ("sizes:", "sizes: [", 8, "YAML syntax: while parsing a flow sequence did not find "
     "expected ',' or ']'"),
])
def test_a_malformed_pack_profile_is_refused_at_its_line(
        packs: Path, tmp_path: Path, old: str, new: str, line: int, message: str) -> None:
    path = packs / "mini" / "profiles" / "corner.yaml"
    path.parent.mkdir()
    path.write_text(SHOP.replace(old, new), "utf-8")
    with pytest.raises(PackError) as caught:
        _export(packs, tmp_path, profile="corner")
    code = "E002" if message.startswith("YAML") else "E110"
    assert [str(finding) for finding in caught.value.findings] == [
        f"{path}:{line}: error: {code}: {message}"]


def test_a_pack_profile_that_is_a_symlink_is_not_followed(packs: Path, tmp_path: Path) -> None:
    outside = tmp_path / "corner.yaml"
    outside.write_text(SHOP, "utf-8")
    (packs / "mini" / "profiles").mkdir()
    (packs / "mini" / "profiles" / "corner.yaml").symlink_to(outside)
    assert "corner" not in profile_files(packs / "mini")
    with pytest.raises(PnpError, match="no such profile"):
        load_profile("corner", packs / "mini")


def test_a_landscape_card_is_the_shops_size_turned() -> None:
    mpc = load_profile("mpc")
    turned = mpc.size_for(Box(88.9, 63.5))
    assert turned is not None and turned.name == "poker"
    assert turned.pixels == tuple(reversed(_shop("mpc")["sizes"]["poker"]["pixels"]))
    assert mpc.pixels(Box(88.9, 63.5), 3.048, 300) == (1122, 822)
    assert mpc.size_for(Box(148, 105)) is None
    assert mpc.nearest(Box(140, 89)).name == "jumbo"


def test_the_preflight_reads_the_page_order_off_the_file(
        cards: Path, tmp_path: Path, drivethru: tuple[Path, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each written page is told from its card's other side: DriveThruCards' file passes, and
    one whose fronts and backs are swapped (its pages read in pairs the wrong way round) is
    named page by page."""
    _, told = drivethru
    assert "mini: preflight: page order (back-front, as the profile asks): all" in told
    drawn = printshop.draw_pages

    def swapped(*args: object) -> list[Image.Image]:
        pages = drawn(*args)  # type: ignore[arg-type]
        return [page for pair in zip(pages[1::2], pages[0::2], strict=True) for page in pair]

    monkeypatch.setattr(printshop, "draw_pages", swapped)
    told_now: list[str] = []
    folder = _export(cards, tmp_path, "printshop", told_now, decks=("spells",),
                     profile="drivethru")
    assert "mini: preflight: page order (back-front, as the profile asks): 0 of 6" in told_now
    report = json.loads((folder / "preflight.json").read_text("utf-8"))
    found = [finding.split(": W085: preflight: ")[1] for finding in report["findings"]]
    assert "spells/S3 front (spells.pdf p. 6): pages 6, 8 of the file show the card's other " \
           "side, out of the back-front order the profile asks for" in found
    assert "spells/S1 back (spells.pdf p. 1): page 1 of the file shows the card's other side, " \
           "out of the back-front order the profile asks for" in found
