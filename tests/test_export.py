"""`pnp export --to images`: each distinct face and back an image at its profile's pixel size,
with bleed on every edge, listed with its card's name and copies, the same bytes every time."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from PIL import Image

from generator import cli
from generator.errors import PackError
from generator.export import export_images

from .conftest import edit


def _export(packs: Path, out: Path, **options: object) -> Path:
    return export_images("mini", packs, out, **options)  # type: ignore[arg-type]


def test_each_face_and_back_is_an_image_listed_with_its_card(packs: Path,
                                                             tmp_path: Path) -> None:
    folder = _export(packs, tmp_path / "out", dpi=100)
    with (folder / "images.csv").open(encoding="utf-8") as rows:
        listed = [(row["file"], row["name"], row["side"], row["copies"]) for row in
                  csv.DictReader(rows)]
    assert listed == [
        ("spells/001-S1-front.png", "火球术", "front", "1"),
        ("spells/back-red.png", "火球术", "back", "1"),
        ("spells/002-S2-front.png", "治疗术", "front", "1"),
        ("spells/back-green.png", "治疗术", "back", "1"),
        ("spells/003-S3-front.png", "冰冻术", "front", "2"),
        ("spells/back-blue.png", "冰冻术", "back", "2"),
    ]
    files = sorted(str(path.relative_to(folder)) for path in folder.rglob("*.png"))
    assert files == sorted({file for file, *_ in listed})
    # poker 63.5 x 88.9 mm with 3 mm of bleed on every edge, at 100 dpi
    for file in files:
        assert Image.open(folder / file).size == (274, 374)
    front = Image.open(folder / "spells/001-S1-front.png").convert("RGB")
    assert front.getpixel((4, 187)) == (0x33, 0x33, 0x33)  # the deck's colour in the bleed
    assert front.getpixel((137, 250)) == (255, 255, 255)  # the paper of the face
    assert Image.open(folder / "spells/back-red.png").convert("RGB").getpixel((137, 100)) \
        == (255, 0, 0)


def test_profiles_give_the_shops_pixel_sizes(packs: Path, tmp_path: Path) -> None:
    tgc = _export(packs, tmp_path / "tgc", profile="tgc")
    assert Image.open(tgc / "spells/001-S1-front.png").size == (825, 1125)
    mpc = _export(packs, tmp_path / "mpc", profile="mpc", image_format="jpg")
    picture = Image.open(mpc / "spells/001-S1-front.jpg")
    assert (picture.format, picture.size) == ("JPEG", (822, 1122))


def test_a_size_a_profile_lacks_is_an_error_naming_the_deck(packs: Path,
                                                            tmp_path: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "size: poker", "size: mini")
    with pytest.raises(PackError) as caught:
        _export(packs, tmp_path / "out", profile="mpc")
    assert [str(f) for f in caught.value.findings] == [
        f"{game}:15: error: E084: deck 'spells': the mpc profile has no size 'mini' (it has: "
        "poker, tarot)"]
    assert not (tmp_path / "out" / "mini-export").exists()


def test_two_exports_are_byte_identical_and_the_cli_writes_them(packs: Path, tmp_path: Path,
                                                                capsys) -> None:
    first = _export(packs, tmp_path / "out", dpi=60)
    before = {path.name: path.read_bytes() for path in first.rglob("*") if path.is_file()}
    assert cli.main(["export", "--cards", str(packs), "mini", "--dpi", "60", "--out",
                     str(tmp_path / "out")]) == 0
    assert "mini: wrote 6 images (generic)" in capsys.readouterr().err
    after = {path.name: path.read_bytes() for path in first.rglob("*") if path.is_file()}
    assert after == before
    assert Image.open(io.BytesIO(after["back-blue.png"])).size == (164, 224)


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
