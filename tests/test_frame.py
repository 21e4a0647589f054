"""The frame the shared card template draws: the accent colour from the bleed across the cut
line into the card, so a cutting drift of 1 mm either way shows no sliver of another colour;
and the export's preflight that checks the colour just inside the cut against the bleed
beside it (W086)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from generator.exports.base import ExportSettings
from generator.exports.preflight import Inspection, _apart, findings, missing_bleed
from generator.exports.run import export
from generator.layout.workers import Workers
from generator.pack.scaffold import new_pack

EXAMPLES = Path(__file__).parents[1] / "examples"
DPI = 100
BLEED = 3.0  # mm, templates/print.yaml
PAPER = (0xFB, 0xF8, 0xF1)  # the scaffold's palette.paper
ACTION, EVENT = (0x1F, 0x5A, 0x8E), (0x9A, 0x34, 0x12)  # the scaffold's two kinds of card
ACROSS = (-1.5, -1.0, -0.5, 0.5, 1.0)  # mm from the cut line, inward positive
EDGES = ("top", "bottom", "left", "right")


def _export(pack: Path, out: Path, pool: Workers) -> tuple[Path, dict]:
    """A pack's images export at DPI and its preflight report."""
    folder = export(pack.name, "images", ExportSettings(dpi=DPI), pack.parent, out,
                    workers=pool)
    return folder, json.loads((folder / "preflight.json").read_text(encoding="utf-8"))


def _across_the_cut(path: Path) -> dict[str, list[tuple[int, ...]]]:
    """The colours at ACROSS on a line through the middle of each edge of an image of a card
    side drawn with its bleed."""
    picture = Image.open(path).convert("RGB")
    width, height = picture.size

    def px(mm: float) -> int:
        return round((BLEED + mm) / 25.4 * DPI)

    return {"top": [picture.getpixel((width // 2, px(mm))) for mm in ACROSS],
            "bottom": [picture.getpixel((width // 2, height - 1 - px(mm))) for mm in ACROSS],
            "left": [picture.getpixel((px(mm), height // 2)) for mm in ACROSS],
            "right": [picture.getpixel((width - 1 - px(mm), height // 2)) for mm in ACROSS]}


def _not(accent: tuple[int, int, int], path: Path) -> dict[str, list[tuple[int, ...]]]:
    """The colours at ACROSS on each edge of a side that are not `accent` (antialiasing and
    the resize to the exact pixel size move a channel by 3 at most)."""
    found = {edge: [colour for colour in colours if _apart(colour, accent) > 3]
             for edge, colours in _across_the_cut(path).items()}
    return {edge: colours for edge, colours in found.items() if colours}


def test_the_scaffolds_cards_and_track_are_their_colour_across_the_cut(
        tmp_path: Path, pool: Workers) -> None:
    pack = new_pack(tmp_path / "lantern")
    folder, report = _export(pack, tmp_path / "out", pool)
    assert _not(ACTION, folder / "cards/001-A1-front.png") == {}
    assert _not(EVENT, folder / "cards/003-E1-front.png") == {}
    assert Image.open(folder / "cards/001-A1-front.png").convert("RGB").getpixel(
        (137, 187)) == PAPER  # the panel in the middle of the card
    # the shared track template: its colour (the action's blue) round a paper panel too
    assert _not(ACTION, folder / "score-track/001-T1-front.png") == {}
    assert report["findings"] == []
    assert "bleed of the colour just inside the cut: all" in report["summary"]


def test_a_face_paper_to_the_cut_inside_a_coloured_bleed_is_found(tmp_path: Path,
                                                                  pool: Workers) -> None:
    pack = new_pack(tmp_path / "lantern")
    with (pack / "style.css").open("a", encoding="utf-8") as css:
        css.write(".frame { border-width: 0; }\n")  # the shared frame as it was: no band
    folder, report = _export(pack, tmp_path / "out", pool)
    assert _across_the_cut(folder / "cards/001-A1-front.png")["left"][3:] == [PAPER] * 2
    off = _not(ACTION, folder / "cards/001-A1-front.png")  # the 2 points inside the cut
    assert {edge: len(colours) for edge, colours in off.items()} == dict.fromkeys(EDGES, 2)
    drift = ("the card just inside the cut is not the colour of its bleed on the top, bottom, "
             "left, right edges (#fbf8f1 inside, {} in the bleed): a cutting drift of 1 mm "
             "shows a sliver of either")
    cards, track = pack / "cards.yaml", pack / "track.yaml"
    assert report["findings"] == [
        f"{cards}:4: warning: W086: preflight: cards/A1 front (cards/001-A1-front.png): "
        + drift.format("#1f5a8e"),
        f"{cards}:10: warning: W086: preflight: cards/A2 front (cards/002-A2-front.png): "
        + drift.format("#1f5a8e"),
        f"{cards}:16: warning: W086: preflight: cards/E1 front (cards/003-E1-front.png): "
        + drift.format("#9a3412"),
        f"{cards}:22: warning: W086: preflight: cards/E2 front (cards/004-E2-front.png): "
        + drift.format("#9a3412"),
        f"{track}:4: warning: W086: preflight: score-track/T1 front "
        "(score-track/001-T1-front.png): " + drift.format("#1f5a8e"),
    ]
    assert "bleed of the colour just inside the cut: 1 of 6" in report["summary"]


@pytest.mark.slow
def test_harbour_lights_is_its_colour_across_the_cut(tmp_path: Path, pool: Workers) -> None:
    folder, report = _export(EXAMPLES / "harbour-lights", tmp_path / "out", pool)
    assert _not((0x7A, 0x3B, 0x1D), folder / "crew/001-C1-front.png") == {}  # the deck's
    assert _not((0x3D, 0x6B, 0x38), folder / "ships/001-S01-front.png") == {}  # tea's
    assert report["findings"] == []  # its backs, tokens, markers and track too


def _side(picture: Image.Image) -> list[str]:
    return missing_bleed(picture, 12)  # 3 mm at 100 dpi


def test_missing_bleed_tells_white_bleed_from_another_colour() -> None:
    picture = Image.new("RGB", (100, 140), (30, 90, 140))
    assert _side(picture) == []  # one colour to the picture's edge
    picture.paste((250, 248, 240), (12, 12, 88, 128))  # paper from the cut line inward
    assert _side(picture) == [f"{edge}: #faf8f0 inside, #1e5a8c in the bleed"
                              for edge in ("top", "bottom", "left", "right")]
    picture.paste((255, 255, 255), (0, 0, 100, 12))  # the top bleed left white
    picture.paste((30, 90, 140), (12, 12, 88, 20))  # a band just inside the top cut
    assert _side(picture) == ["top", "bottom: #faf8f0 inside, #1e5a8c in the bleed",
                              "left: #faf8f0 inside, #1e5a8c in the bleed",
                              "right: #faf8f0 inside, #1e5a8c in the bleed"]
    near = Image.new("RGB", (100, 140), (30, 90, 140))
    near.paste((60, 120, 170), (12, 12, 88, 128))  # 30 apart in every channel: one colour
    assert _side(near) == []
    lines = Image.new("RGB", (100, 140), (30, 90, 140))
    lines.paste((250, 248, 240), (12, 16, 88, 17))  # a rule along the top, 1 mm inside
    lines.paste((250, 248, 240), (40, 0, 44, 140))  # and one across every top and bottom row
    assert _side(lines) == []  # neither is a panel of another colour


def test_the_preflight_words_white_bleed_and_a_sliver_apart() -> None:
    seen = Inspection("c/1.png", "c", "C1", "front", "c.yaml:3", (100, 140), None,
                      ["top", "left: #faf8f0 inside, #1e5a8c in the bleed",
                       "right: #faf8f0 inside, #1e5a8c in the bleed",
                       "bottom: #000000 inside, #1e5a8c in the bleed"],
                      None, [], [], "RGB", 300, 4)
    assert [str(finding) for finding in findings([seen])] == [
        "c.yaml:3: warning: W085: preflight: c/C1 front (c/1.png): no bleed on the top edge "
        "(the design stops at the cut line)",
        "c.yaml:3: warning: W086: preflight: c/C1 front (c/1.png): the card just inside the cut "
        "is not the colour of its bleed on the bottom edge (#000000 inside, #1e5a8c in the "
        "bleed): a cutting drift of 1 mm shows a sliver of either",
        "c.yaml:3: warning: W086: preflight: c/C1 front (c/1.png): the card just inside the cut "
        "is not the colour of its bleed on the left, right edges (#faf8f0 inside, #1e5a8c in "
        "the bleed): a cutting drift of 1 mm shows a sliver of either",
    ]
