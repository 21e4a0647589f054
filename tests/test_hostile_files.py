"""Files a pack names that would print wrong, or read what is not the pack's: each is an
error at the line that names it, in `pnp validate` as in `pnp build`."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from generator import PROJECT_ROOT
from generator.check.findings import PackError, display_path
from generator.pipeline.build import build_game, check

from .conftest import edit, give_rulebook, give_template


def _found(cards: Path) -> list[str]:
    return [str(finding) for finding in check("mini", cards).findings]


def _with_art(cards: Path, name: str, data: bytes) -> Path:
    """Give card S2 the art `name` holding `data`; return the deck file."""
    pack = cards / "mini"
    (pack / name).write_bytes(data)
    spells = pack / "spells.yaml"
    edit(spells, "- id: S2\n", f"- id: S2\n  art: {name}\n")
    return spells


def _png_header(width: int, height: int) -> bytes:
    """A PNG that says it is width × height and holds nothing: what a decompression bomb's
    header looks like."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def test_a_corrupt_png_is_an_error_at_its_card(packs: Path, tmp_path: Path) -> None:
    Image.new("RGB", (50, 50), "red").save(tmp_path / "good.png")
    data = (tmp_path / "good.png").read_bytes()
    spells = _with_art(packs, "broken.png", data[:60] + b"\0" * 40 + data[100:])
    [found] = _found(packs)
    assert found.startswith(f"{spells}:9: error: E075: card 'S2': art 'broken.png' is not an "
                            "image Pillow can read (")


def test_a_png_bomb_is_an_error_at_its_card(packs: Path) -> None:
    spells = _with_art(packs, "bomb.png", _png_header(40000, 40000))
    [found] = _found(packs)
    assert found.startswith(f"{spells}:9: error: E075: card 'S2': art 'bomb.png' is too large "
                            "to open (Image size (1600000000 pixels) exceeds limit")
    (packs / "mini" / "bomb.png").write_bytes(_png_header(10000, 8000))
    assert _found(packs) == [f"{spells}:9: error: E075: card 'S2': art 'bomb.png' is "
                             "10000×8000 px, more than the limit of 50 million pixels "
                             "(`limits: image_megapixels` in game.yaml)"]


def test_an_svg_with_entities_or_links_out_is_an_error(packs: Path) -> None:
    svg = ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           '<svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>')
    spells = _with_art(packs, "entity.svg", svg.encode())
    assert _found(packs) == [f"{spells}:9: error: E075: card 'S2': art 'entity.svg' is an SVG "
                             "that declares entities (external ones would read files)"]
    linked = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/'
              'xlink"><image xlink:href="../../secret.png" width="9" height="9"/></svg>')
    (packs / "mini" / "entity.svg").write_text(linked, encoding="utf-8")
    assert _found(packs) == [f"{spells}:9: error: E052: card 'S2': art 'entity.svg' is an SVG "
                             "that links to ../../secret.png, outside the game pack"]


def test_art_that_is_not_a_regular_file_is_refused(packs: Path) -> None:
    pack = packs / "mini"
    os.mkfifo(pack / "pipe.png")  # reading it would wait for ever
    spells = pack / "spells.yaml"
    edit(spells, "- id: S2\n", "- id: S2\n  art: pipe.png\n")
    assert _found(packs) == [f"{spells}:9: error: E050: card 'S2': art 'pipe.png' is not a "
                             "regular file"]


def test_a_symlinked_rulebook_pointing_out_is_refused(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    secret = tmp_path / "secret.md"
    secret.write_text("# SECRET\n", encoding="utf-8")
    rulebook = packs / "mini" / "rulebook.md"
    rulebook.unlink()
    os.symlink(secret, rulebook)
    [found] = _found(packs)  # told once, where the pack loads
    assert found.endswith(": error: E050: rulebook 'rulebook.md' lies outside the game pack")
    edit(packs / "mini" / "game.yaml", "players: 1-2人\n",
         "players: 1-2人\nrulebook: {file: /etc/passwd}\n")
    assert _found(packs) == [f"{packs / 'mini' / 'game.yaml'}:5: error: E050: rulebook "
                             "'/etc/passwd' lies outside the game pack"]


def test_markdown_images_refused_are_each_told_at_their_line(packs: Path,
                                                              tmp_path: Path) -> None:
    give_rulebook(packs)
    from generator.pipeline.build import validate_game

    rulebook = packs / "mini" / "rulebook.md"
    lines = len(rulebook.read_text(encoding="utf-8").splitlines())
    with rulebook.open("a", encoding="utf-8") as text:
        text.write("\n![a](http://127.0.0.1:9/a.png)\n\n![b](/etc/hostname)\n\n![c](gone.png)\n")
    found = [str(f) for f in validate_game("mini", packs, out_root=tmp_path / "out").findings
             if f.level == "error"]
    assert found == [
        f"{rulebook}:{lines + 2}: error: E052: refused to fetch http://127.0.0.1:9/a.png: only "
        f"files inside {PROJECT_ROOT} or {packs / 'mini'} are allowed",
        f"{rulebook}:{lines + 4}: error: E052: refused to fetch file:///etc/hostname: only "
        f"files inside {PROJECT_ROOT} or {packs / 'mini'} are allowed",
        f"{rulebook}:{lines + 6}: error: E075: {(packs / 'mini' / 'gone.png').as_uri()} does "
        "not exist"]
    assert not (tmp_path / "out").exists()  # validate writes nothing


def test_an_svg_image_a_template_draws_is_checked_by_validate_too(packs: Path,
                                                                  tmp_path: Path) -> None:
    from generator.pipeline.build import validate_game

    from .conftest import give_template

    give_template(packs / "mini", '<svg width="10" height="10"><image href="file:///etc/'
                                  'hostname" width="10" height="10"/></svg>')
    found = {(f.code, f.message) for f in validate_game(
        "mini", packs, out_root=tmp_path / "out").findings}  # WeasyPrint fetches it to draw
    assert found == {("E052", f"refused to fetch file:///etc/hostname: only files inside "
                              f"{PROJECT_ROOT} or {packs / 'mini'} are allowed")}


def test_a_pack_file_a_page_asks_for_keeps_to_the_size_limit(packs: Path,
                                                              tmp_path: Path) -> None:
    from generator.pipeline.build import validate_game

    pack = packs / "mini"
    Image.effect_noise((64, 64), 64).save(pack / "big.png")  # noise: about 4 kB
    (pack / "style.css").write_text(".card { background: url(big.png) }\n", encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n",
         "players: 1-2人\nstylesheet: style.css\nlimits: {file_mb: 0.002}\n")
    found = [f for f in validate_game("mini", packs, out_root=tmp_path / "out").findings
             if f.level == "error"]
    assert found and all(f.code == "E006" and "big.png" in f.message for f in found), found
    edit(pack / "game.yaml", "file_mb: 0.002", "file_mb: 1")
    assert not [f for f in validate_game("mini", packs, out_root=tmp_path / "out").findings
                if f.level == "error"]


def test_an_svg_nested_past_what_weasyprint_can_lay_out_is_an_error(
        packs: Path, tmp_path: Path) -> None:
    """1,200 groups within groups exhaust WeasyPrint's recursion: an error naming the deck,
    not an internal error (which blamed pnp), and nothing written."""
    groups = 1200
    give_template(packs / "mini", '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" '
                  'style="width: 20mm; height: 20mm">' + '<g opacity="0.95">' * groups
                  + '<rect width="10" height="10"/>' + "</g>" * groups + "</svg>")
    with pytest.raises(PackError) as raised:
        build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    assert [str(finding) for finding in raised.value.findings] == [
        f"{display_path(packs / 'mini' / 'spells.yaml')}: error: E112: the page nests its "
        "elements too deeply for WeasyPrint to lay out or draw (an SVG's groups within groups, "
        "say): flatten the nesting"]
    assert not (tmp_path / "out" / "mini").exists()
