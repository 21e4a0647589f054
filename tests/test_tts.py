"""`pnp export --to tts`: every card and tile at its real size and shape in Tabletop
Simulator, sheets of the largest cells that fit, images linked at --base-url (or a note that
the save works only here), images.zip, a thumbnail, descriptions a player reads, and a saved
object that a published TTS save-file schema accepts."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from PIL import Image

from generator import cli
from generator.check.findings import PnpError
from generator.exports.base import ExportSettings
from generator.exports.run import export
from generator.exports.tts import CARD_HEIGHT, TILE_HEIGHT, base_url
from generator.layout.workers import Workers
from generator.plan.geometry import load_geometry

from .conftest import FIXTURES

SCHEMA = Path(__file__).parent / "data" / "tts-save.schema.json"
CARD_SIZES = ["euro-poker", "bridge", "mini", "tarot", "square", "a6-landscape"]
URL = "https://example.org/my-game/"


def _decks(pack: Path) -> None:
    """Give the tiny pack a deck of one card for each card size, a deck of 12 poker cards,
    and two decks of tiles: square tokens (a labelled choice, a colour code) and landscape
    boards (a colour code, a reference to a card)."""
    entries = []
    for size in CARD_SIZES:
        (pack / f"{size}.yaml").write_text(f"- id: {size}-1\n  name: 卡 {size}\n  cost: 1\n",
                                           encoding="utf-8")
        entries.append(f"  - {{id: {size}, name: {size}, file: {size}.yaml, size: {size}, "
                       "template: card, back: red, count: 1, color: \"#333333\", "
                       "fields: {cost: {type: int}}}\n")
    (pack / "many.yaml").write_text("".join(
        f"- id: M{number}\n  name: 牌{number}\n  cost: {number}\n" for number in range(12)),
        encoding="utf-8")
    entries.append("  - {id: many, name: 多, file: many.yaml, size: poker, template: card, "
                   "back: red, count: 12, color: \"#333333\", fields: {cost: {type: int}}}\n")
    (pack / "chips.yaml").write_text("- id: 筹码 1\n  name: 筹码\n  resource: 高\n  value: 2\n"
                                     "  color: \"#b8862b\"\n", encoding="utf-8")
    entries.append("  - {id: chips, name: chips, file: chips.yaml, size: token, template: token, "
                   "double_sided: true, count: 1, fields: {resource: {type: choice, choices: "
                   "[低, 高], label: 等级}, value: {type: int}, color: {type: str}}}\n")
    (pack / "boards.yaml").write_text("- id: B1\n  name: 板\n  tint: \"#b8862b\"\n  hero: S1\n",
                                      encoding="utf-8")
    entries.append("  - {id: boards, name: boards, file: boards.yaml, size: a6-landscape, "
                   "template: card, double_sided: true, count: 1, color: \"#333333\", "
                   "fields: {tint: {type: str}, hero: {type: ref, deck: spells}}}\n")
    game = pack / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8") + "".join(entries), encoding="utf-8")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> dict[str, Any]:
    """One export of the tiny pack with every card size, linked at URL, and one without."""
    root = tmp_path_factory.mktemp("tts")
    cards = root / "cards"
    shutil.copytree(FIXTURES, cards)
    _decks(cards / "mini")
    told: list[str] = []
    linked = export("mini", "tts", ExportSettings(base_url=URL), cards, root / "linked",
                    told.append, pool)
    local_told: list[str] = []
    local = export("mini", "tts", ExportSettings(), cards, root / "local", local_told.append,
                   pool)
    save = json.loads((linked / "saved-object.json").read_text(encoding="utf-8"))
    return {"folder": linked, "save": save, "told": told, "local": local,
            "local_told": local_told, "cards": cards, "root": root, "pool": pool,
            "objects": {item["Nickname"] if item["Name"] != "Card" else item["CardID"]: item
                        for item in save["ObjectStates"]}}


def _cards(save: dict[str, Any]) -> list[dict[str, Any]]:
    """Every card object of the save, in decks or alone."""
    found = []
    for item in save["ObjectStates"]:
        if item["Name"] == "Card":
            found.append(item)
        found += [inner for inner in item.get("ContainedObjects", []) if inner["Name"] == "Card"]
    return found


def _urls(value: Any) -> list[str]:
    """Every image link in a saved object."""
    if isinstance(value, dict):
        return [found for key, inner in value.items() for found in (
            [inner] if key.endswith("URL") and isinstance(inner, str) and inner
            else _urls(inner))]
    if isinstance(value, list):
        return [found for inner in value for found in _urls(inner)]
    return []


def _deck_of(save: dict[str, Any], size: str) -> dict[str, Any]:
    """The card object of one of the one-card decks `_decks` adds."""
    return next(card for card in _cards(save) if card["Nickname"] == f"卡 {size}")


def test_every_card_size_comes_out_its_real_size(exported: dict[str, Any]) -> None:
    folder, save = exported["folder"], exported["save"]
    sizes = load_geometry().sizes
    shown = {}
    for size in [*CARD_SIZES, "poker"]:
        card = _deck_of(save, size) if size != "poker" else _cards(save)[0]
        [entry] = card["CustomDeck"].values()
        sheet = Image.open(folder / unquote(entry["FaceURL"].removeprefix(URL)))
        cell = (sheet.width // entry["NumWidth"], sheet.height // entry["NumHeight"])
        scale = card["Transform"]["scaleZ"]
        assert card["Transform"]["scaleX"] == scale
        # TTS: at scale 1 a card is CARD_HEIGHT mm tall, as wide as its cell's aspect makes it
        shown[size] = (CARD_HEIGHT * scale * cell[0] / cell[1], CARD_HEIGHT * scale)
        real = sizes[size]
        assert shown[size][0] == pytest.approx(real.width, rel=0.005), size
        assert shown[size][1] == pytest.approx(real.height, rel=0.001), size
        assert card["SidewaysCard"] is (real.width > real.height), size
    assert round(shown["a6-landscape"][0]) == 148 and round(shown["tarot"][1]) == 120
    assert round(shown["poker"][1], 1) == 88.9


def test_tiles_keep_their_aspect_and_size(exported: dict[str, Any]) -> None:
    folder, objects = exported["folder"], exported["objects"]
    sizes = load_geometry().sizes
    for deck, size in (("chips", "token"), ("boards", "a6-landscape")):
        [tile] = objects[deck]["ContainedObjects"]
        custom = tile["CustomImage"]
        assert custom["CustomTile"]["Stretch"] is False  # the image's aspect, not a square
        assert custom["CustomTile"]["Type"] == 0  # a box: nothing declares a piece round
        image = Image.open(folder / unquote(custom["ImageURL"].removeprefix(URL)))
        real = sizes[size]
        assert image.width / image.height == pytest.approx(real.width / real.height, rel=0.005)
        height = TILE_HEIGHT * tile["Transform"]["scaleZ"]
        assert height == pytest.approx(real.height, rel=0.001)
        assert height * image.width / image.height == pytest.approx(real.width, rel=0.005)


def test_every_link_is_at_the_base_url(exported: dict[str, Any]) -> None:
    folder, save = exported["folder"], exported["save"]
    urls = _urls(save)
    assert len(urls) > 20 and all(url.startswith(URL) for url in urls)
    assert "file:" not in json.dumps(save)
    # a file name percent-encoded, segment by segment: chips/001-筹码_1-front.png
    assert f"{URL}chips/001-%E7%AD%B9%E7%A0%81_1-front.png" in urls
    for url in urls:  # each names a file of the folder
        assert (folder / unquote(url.removeprefix(URL))).is_file(), url
    assert not any("works only on this machine" in line for line in exported["told"])
    assert base_url("https://example.org/g") == "https://example.org/g/"  # a slash added
    assert base_url(URL) == URL and base_url(None) is None


@pytest.mark.parametrize("url", ["ftp://example.org/", "file:///tmp/x/", "example.org/g/",
                                 "https://example.org/g/?a=1", "https:///g/",
                                 "https://example.org/a b/"])
def test_a_base_url_that_is_no_web_address_is_refused(url: str, capsys) -> None:
    with pytest.raises(PnpError) as caught:
        base_url(url)
    assert str(caught.value) == (
        f"--base-url {url!r}: give the http:// or https:// address the images will be "
        "uploaded to, without a query or fragment (e.g. https://example.org/my-game/)")
    assert cli.main(["export", "--cards", str(FIXTURES), "mini", "--to", "tts",
                     "--base-url", url, "--out", "/nonexistent-pnp-out"]) != 0
    assert "--base-url" in capsys.readouterr().err


def test_without_a_base_url_the_save_says_it_works_only_here(exported: dict[str, Any]) -> None:
    local = exported["local"]
    save = json.loads((local / "saved-object.json").read_text(encoding="utf-8"))
    assert all(url.startswith(local.resolve().as_uri() + "/") for url in _urls(save))
    notes = [line for line in exported["local_told"] if "only on this machine" in line]
    assert notes == ["mini: saved-object.json links its images by file:/// paths, so it works "
                     "only on this machine; to share it, upload the images (images.zip) to a "
                     "web host and export again with --base-url URL"]


def test_the_zip_holds_every_linked_image_the_same_every_run(exported: dict[str, Any]) -> None:
    folder, local = exported["folder"], exported["local"]
    linked = sorted({unquote(url.removeprefix(URL)) for url in _urls(exported["save"])})
    data = (folder / "images.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == linked  # every image the save links, sorted
        for name in linked:
            assert archive.read(name) == (folder / name).read_bytes()
            assert archive.getinfo(name).date_time == (1980, 1, 1, 0, 0, 0)
    assert (local / "images.zip").read_bytes() == data  # a second export: the same bytes


def test_a_deck_of_12_poker_cards_gets_sharp_cells_and_no_hidden_slot(
        exported: dict[str, Any]) -> None:
    deck = exported["objects"]["多"]
    [entry] = deck["CustomDeck"].values()
    sheet = Image.open(exported["folder"] / entry["FaceURL"].removeprefix(URL))
    columns, rows = entry["NumWidth"], entry["NumHeight"]
    cell = (sheet.width // columns, sheet.height // rows)
    assert cell == (750, 1050)  # 300 dpi, not the 409 x 573 of a 10-wide grid
    assert columns * rows >= 12 and max(sheet.size) <= 4096
    assert entry["BackIsHidden"] is True  # the back stands for a hidden card
    assert sorted(card["CardID"] % 100 for card in deck["ContainedObjects"]) == list(range(12))


def test_descriptions_are_what_a_player_reads(exported: dict[str, Any]) -> None:
    [chip] = exported["objects"]["chips"]["ContainedObjects"]
    assert chip["Description"] == "等级: 高"  # no colour code, no number without a label
    [board] = exported["objects"]["boards"]["ContainedObjects"]
    assert board["Description"] == "火球术"  # the card's name, not its id or key
    assert "#" not in json.dumps([item["Description"] for item in _cards(exported["save"])])


def test_the_thumbnail_is_a_square_picture_of_the_first_card(exported: dict[str, Any]) -> None:
    thumbnail = Image.open(exported["folder"] / "saved-object.png")
    assert (thumbnail.format, thumbnail.size, thumbnail.mode) == ("PNG", (256, 256), "RGBA")
    assert thumbnail.getpixel((2, 128))[3] == 0  # the ground beside a portrait card is clear
    assert thumbnail.getpixel((128, 128))[3] == 255
    assert thumbnail.getpixel((128, 12))[:3] == (0x33, 0x33, 0x33)  # the deck's colour edge
    assert (exported["local"] / "saved-object.png").read_bytes() == \
        (exported["folder"] / "saved-object.png").read_bytes()


def test_the_saved_object_passes_the_published_schema(exported: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(exported["save"], schema)
    broken = json.loads(json.dumps(exported["save"]))
    del broken["ObjectStates"][0]["CustomDeck"]["1"]["NumWidth"]
    with pytest.raises(jsonschema.ValidationError, match="'NumWidth' is a required property"):
        jsonschema.validate(broken, schema)
    broken = json.loads(json.dumps(exported["save"]))
    broken["ObjectStates"][-1]["ContainedObjects"][0]["CustomImage"]["CustomTile"]["Type"] = 9
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
