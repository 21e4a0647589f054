"""Shared fixtures: real builds of the default game, and copies of the tiny test packs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image
from pypdf import PdfReader

from generator import CARDS_DIR, DEFAULT_GAME
from generator.build import BuildOptions, build_game

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
MM = 72 / 25.4  # PDF points per millimetre


@pytest.fixture(scope="session")
def default_a4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default game built on A4; returns its build folder."""
    out = tmp_path_factory.mktemp("a4")
    build_game(DEFAULT_GAME, BuildOptions(paper="a4"), out_root=out)
    return out / DEFAULT_GAME


@pytest.fixture(scope="session")
def default_letter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default game built on Letter."""
    out = tmp_path_factory.mktemp("letter")
    build_game(DEFAULT_GAME, BuildOptions(paper="letter"), out_root=out)
    return out / DEFAULT_GAME


@pytest.fixture
def packs(tmp_path: Path) -> Path:
    """A cards/ folder in tmp holding copies of the test packs, free to break."""
    cards = tmp_path / "cards"
    shutil.copytree(FIXTURES, cards)
    return cards


def copy_real_pack(tmp_path: Path, name: str = DEFAULT_GAME) -> Path:
    """Copy a real game pack into tmp/cards and return that cards folder."""
    cards = tmp_path / "cards"
    shutil.copytree(CARDS_DIR / name, cards / name)
    return cards


def page_texts(pdf: Path) -> list[str]:
    """Text of every page as a PDF reader extracts it, white space removed (CJK has none)."""
    return [flat(page.extract_text() or "") for page in PdfReader(pdf).pages]


def flat(text: str) -> str:
    """Text without white space, for comparing with what letter-spacing spreads out."""
    return "".join(text.split())


def render_page(pdf: Path, index: int, dpi: int = 50) -> Image.Image:
    """Rasterise one page to an RGB image."""
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        return document[index].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        document.close()


def pixel_mm(image: Image.Image, x_mm: float, y_mm: float, dpi: int = 50) -> tuple[int, ...]:
    """The colour at a point given in millimetres from the top-left corner."""
    return image.getpixel((round(x_mm / 25.4 * dpi), round(y_mm / 25.4 * dpi)))


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in a file, which must hold it."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def give_template(pack: Path, extra: str) -> Path:
    """Give the tiny pack's deck a card template of its own, the generic card with `extra`
    in its extra block; return the template's path."""
    template = pack / "templates" / "cards" / "spell.html.j2"
    template.parent.mkdir(parents=True, exist_ok=True)
    edit(pack / "game.yaml", "template: card", "template: spell")
    template.write_text('{% extends "cards/card.html.j2" %}\n{% block extra %}' + extra
                        + '{% endblock %}\n', encoding="utf-8")
    return template


def give_rules(cards: Path, rules: str) -> Path:
    """Give the tiny pack a rules file; return the pack's folder."""
    pack = cards / "mini"
    (pack / "rules.yaml").write_text(rules, encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nrules: rules.yaml\n")
    return pack
