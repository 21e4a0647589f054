"""The English sample game in examples/harbour-lights: it builds on A4, prints every card with
its numbers from rules.yaml, embeds its own font and a real italic, prints no CJK character,
and validates without a single finding."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pikepdf
import pytest
from fontTools.ttLib import TTFont

from generator.layout.workers import Workers
from generator.pack.load import load_game
from generator.pipeline.build import BuildOptions, build_game, validate_game

from .conftest import flat, page_texts

EXAMPLES = Path(__file__).parents[1] / "examples"
GAME = "harbour-lights"
OUTPUTS = ["boards-a4.pdf", "cards-a4.pdf", "rulebook-a4.pdf", "tokens-a4.pdf"]
CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


@pytest.fixture(scope="module")
def out_root(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> Path:
    """The folder the example is built into, once for the module, on A4."""
    root = tmp_path_factory.mktemp("example")
    build_game(GAME, BuildOptions(), out_root=root, cards_dir=EXAMPLES, workers=pool)
    return root


def _fonts(pdf: Path) -> list[tuple[str, TTFont]]:
    """Every font embedded in a PDF (each part embeds its own subset), faces drawn as forms
    included: its name without the subset tag, and the embedded file read by fontTools."""
    fonts = []
    with pikepdf.open(pdf) as document:
        for obj in document.objects:
            if not isinstance(obj, pikepdf.Dictionary) or obj.get("/Type") != "/FontDescriptor":
                continue
            for key in ("/FontFile3", "/FontFile2"):
                if key in obj:
                    name = str(obj.FontName).lstrip("/").partition("+")[2]
                    fonts.append((name, TTFont(io.BytesIO(obj[key].read_bytes()))))
    return fonts


def _widths(font: TTFont) -> dict[int, int]:
    """The advance width of each character a font maps."""
    return {code: font["hmtx"][glyph][0] for code, glyph in font.getBestCmap().items()}


def _drawn_from(embedded: TTFont, path: Path) -> bool:
    """Whether an embedded subset was cut from the font file at `path`: every character it
    maps, and it maps some, is as wide as in that file."""
    subset, original = _widths(embedded), _widths(TTFont(path))
    return len(subset) > 3 and all(original.get(code) == width for code, width in subset.items())


def test_example_builds_every_output(out_root: Path) -> None:
    """The four outputs are written on A4, and the manifest lists them."""
    folder = out_root / GAME
    assert sorted(path.name for path in folder.glob("*.pdf")) == OUTPUTS
    assert "cards-a4.pdf" in (folder / "manifest.json").read_text(encoding="utf-8")


def test_example_cards_print_every_name_and_rule(out_root: Path) -> None:
    """Every crew card (YAML) and ship card (CSV) is printed by name, with its numbers filled
    in from rules.yaml."""
    text = "".join(page_texts(out_root / GAME / "cards-a4.pdf"))
    game = load_game(GAME, EXAMPLES)
    decks = {deck.spec.id: deck for deck in game.decks}
    names = [card.name for deck in ("crew", "ships") for card in decks[deck].cards]
    assert {"Lamplighter", "Old Salt", "The Grey Heron", "The Last Lantern"} <= set(names)
    assert [name for name in names if flat(name) not in text] == []
    rules = game.rules
    assert flat(f"Take {rules['crew']['merchant']['oil']} from the supply.") in text  # :oil:
    assert ":oil:" not in text and ":coin:" not in text  # drawn, not printed
    assert flat(f"before tide {rules['ships']['pepper_tide']}.") in text
    for deck in ("crew", "ships"):  # each card numbered in its deck: "Crew · 3 / 8"
        count = len(decks[deck].cards)
        assert [n for n in range(1, count + 1) if f"·{n}/{count}" not in text] == [], deck
    rulebook = "".join(page_texts(out_root / GAME / "rulebook-a4.pdf"))
    assert flat(f"Reveal {rules['tide']['ships']} ships from the deck") in rulebook


def test_example_embeds_its_own_font_and_real_italics(out_root: Path) -> None:
    """EB Garamond (as Harbour Garamond), the pack's font file, is embedded; the cards' quotes
    are in its italic face and the rulebook's *emphasis* in Noto Sans Latin's, each a real
    italic (the file's italic bit), not the regular face standing in."""
    fonts = EXAMPLES / GAME / "fonts"
    cards = _fonts(out_root / GAME / "cards-a4.pdf")
    rulebook = _fonts(out_root / GAME / "rulebook-a4.pdf")
    regular = [font for name, font in cards if name == "EBGaramond12-Regular"]
    italic = [font for name, font in cards if name == "EBGaramond12-Italic"]
    emphasis = [font for name, font in rulebook if name == "NotoSans-Italic"]
    assert regular and italic and emphasis
    assert all(_drawn_from(font, fonts / "EBGaramond-Regular.otf") for font in regular)
    assert all(_drawn_from(font, fonts / "EBGaramond-Italic.otf") for font in italic)
    assert not any(_drawn_from(font, fonts / "EBGaramond-Regular.otf") for font in italic)
    for font in italic + emphasis:
        assert font["OS/2"].fsSelection & 1 and font["head"].macStyle & 2


def test_example_prints_no_cjk(out_root: Path) -> None:
    """An English pack prints no CJK character and embeds no CJK font."""
    for name in OUTPUTS:
        pdf = out_root / GAME / name
        assert [text for text in page_texts(pdf) if CJK.search(text)] == [], name
        assert [font for font, _ in _fonts(pdf) if "-SC" in font] == [], name


def test_example_validates_clean(out_root: Path, pool: Workers) -> None:
    """validate finds nothing at all: no error, no warning, nothing left unchecked."""
    report = validate_game(GAME, EXAMPLES, out_root=out_root, workers=pool)
    assert [str(finding) for finding in report.findings] == []
    assert report.unchecked == []
