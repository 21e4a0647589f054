"""The sample game in its other languages: examples/harbour-lights in Spanish and Simplified
Chinese builds its cards and rulebook with every card in that language, the numbers from the
one rules.yaml, the language's quotes, and no English card name left; every language validates
without a finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.layout.workers import Workers
from generator.pack.load import load_game
from generator.pipeline.build import BuildOptions, build_game, validate_game

from .conftest import flat, page_texts

EXAMPLES = Path(__file__).parents[1] / "examples"
GAME = "harbour-lights"
LANGUAGES = {"es": ("«", "»"), "zh-CN": ("「", "」")}


@pytest.fixture(scope="module")
def out_root(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> Path:
    """The example's cards and rulebook built in each other language, once for the module."""
    root = tmp_path_factory.mktemp("example-languages")
    for language in LANGUAGES:
        build_game(GAME, BuildOptions(language=language, only=("sheets", "rulebook")),
                   out_root=root, cards_dir=EXAMPLES, workers=pool)
    return root


def test_each_language_is_its_own_files_in_the_manifest(out_root: Path) -> None:
    """Each language's files carry its tag, and the manifest says which language each is."""
    manifest = json.loads((out_root / GAME / "manifest.json").read_text(encoding="utf-8"))
    found = {(entry["file"], entry["language"]) for entry in manifest["outputs"]}
    assert {("cards-a4-es.pdf", "es"), ("rulebook-a4-es.pdf", "es"),
            ("cards-a4-zh-CN.pdf", "zh-CN"), ("rulebook-a4-zh-CN.pdf", "zh-CN")} <= found


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_prints_in_its_language(out_root: Path, language: str) -> None:
    """Every crew card (YAML) and ship card (a CSV's `@` columns) prints its translated name,
    the crew text with the rules' numbers, in the language's quotes; no English name is left."""
    text = flat("".join(page_texts(out_root / GAME / f"cards-a4-{language}.pdf")))
    source, game = load_game(GAME, EXAMPLES), load_game(GAME, EXAMPLES, language)
    for deck_id in ("crew", "ships"):
        [deck] = [deck for deck in game.decks if deck.spec.id == deck_id]
        [english] = [deck for deck in source.decks if deck.spec.id == deck_id]
        for card, original in zip(deck.cards, english.cards, strict=True):
            assert card.name != original.name and flat(card.name) in text
            assert flat(original.name) not in text
    merchant = next(card for deck in game.decks for card in deck.cards if card.id == "C2")
    oil = str(game.rules["crew"]["merchant"]["oil"])
    assert oil in merchant.text and flat(merchant.text.replace("**", "").replace(
        ":oil:", "")) in text
    opening, closing = LANGUAGES[language]
    assert text.count(opening) >= 15 and text.count(opening) == text.count(closing)


def test_the_rulebook_is_the_translated_one(out_root: Path) -> None:
    """The rulebook of each language is its rulebook.<language>.md, with the rules' numbers."""
    spanish = flat("".join(page_texts(out_root / GAME / "rulebook-a4-es.pdf")))
    chinese = flat("".join(page_texts(out_root / GAME / "rulebook-a4-zh-CN.pdf")))
    assert "Índice" in spanish and "Preparación" in spanish and "2–4jugadores" in spanish
    assert "目录" in chinese and "准备" in chinese
    assert "Setup" not in spanish and "Setup" not in chinese


def test_every_language_validates_clean(pool: Workers, tmp_path: Path) -> None:
    """`pnp validate --lang all`: no finding in any language (glyphs, fit, translations)."""
    report = validate_game(GAME, EXAMPLES, BuildOptions(language="all"), tmp_path, pool)
    assert [str(finding) for finding in report.findings] == []
