"""Shared fixtures: every real game built once per session on one worker pool, and copies of
the tiny test packs.

Tests that use a real build (`built`, `default_a4`, `default_letter`) or are marked `slow`
are left out of the fast tier, `make test-fast` (pytest -m "not slow"). A test of the fast
tier that lays out a page of a real game fails, naming itself: the marker cannot leak.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image

from generator import CARDS_DIR, DEFAULT_GAME
from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, BuildResult, build_game

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
MM = 72 / 25.4  # PDF points per millimetre
REAL_BUILDS = {"built", "default_a4", "default_letter"}
GAMES = sorted(path.parent.name for path in CARDS_DIR.glob("*/game.yaml"))  # cards/ holds them


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs a real game built is slow."""
    for item in items:
        if REAL_BUILDS & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def fast_lays_out_no_real_game(request: pytest.FixtureRequest,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail a test not marked slow when it lays out a page of a real game (a pack of cards/,
    or a copy of one): the fast tier builds none."""
    if request.node.get_closest_marker("slow"):
        return
    submit = Workers.submit

    def guarded(self: Workers, htmls: list[str], base_dir: Path, *args: object,
                **kwargs: object) -> object:
        if Path(base_dir).name in GAMES:
            pytest.fail(f"{request.node.nodeid} lays out pages of the real game "
                        f"{Path(base_dir).name}: mark it @pytest.mark.slow", pytrace=False)
        return submit(self, htmls, base_dir, *args, **kwargs)

    monkeypatch.setattr(Workers, "submit", guarded)


@pytest.fixture(scope="session", autouse=True)
def hidden_build(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[tuple[subprocess.Popen, Path] | None]:
    """The default game built with the machine's fonts hidden (tests/test_fonts_hidden.py),
    started with the session when that test is to run, so it overlaps the rest."""
    wanted = any(item.nodeid.startswith("tests/test_fonts_hidden.py::test_the_games")
                 for item in request.session.items)
    if not wanted:
        yield None
        return
    from .test_fonts_hidden import start_hidden_build

    folder = tmp_path_factory.mktemp("fonts-hidden")
    process = start_hidden_build(folder)
    try:
        yield process, folder
    finally:
        process.kill()
        process.communicate()


@pytest.fixture(scope="session")
def pool() -> Iterator[Workers]:
    """One pool of layout processes for every build of the session."""
    with Workers().start() as workers:
        yield workers


class Built:
    """Real games built once per session, each on the papers asked for."""

    def __init__(self, root: Path, pool: Workers):
        self.root, self.pool = root, pool
        self.results: dict[tuple[str, str], BuildResult] = {}

    def __call__(self, name: str, paper: str = "a4") -> Path:
        """The game's build folder, built on first use. On Letter only the default game has
        its rulebook built: the others' components are what the paper changes."""
        if (name, paper) not in self.results:
            only = () if paper == "a4" or name == DEFAULT_GAME else ("sheets", "dice")
            self.results[name, paper] = build_game(name, BuildOptions(paper=paper, only=only),
                                                   out_root=self.root / paper,
                                                   workers=self.pool)
        return self.root / paper / name

    def result(self, name: str, paper: str = "a4") -> BuildResult:
        """What building the game returned."""
        self(name, paper)
        return self.results[name, paper]


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, pool: Workers) -> Built:
    """Every real game, built once per session and paper when a test first asks."""
    return Built(tmp_path_factory.mktemp("built"), pool)


@pytest.fixture(scope="session")
def default_a4(built: Built) -> Path:
    """The default game built on A4; returns its build folder."""
    return built(DEFAULT_GAME, "a4")


@pytest.fixture(scope="session")
def default_letter(built: Built) -> Path:
    """The default game built on Letter."""
    return built(DEFAULT_GAME, "letter")


@pytest.fixture
def packs(tmp_path: Path) -> Path:
    """A cards/ folder in tmp holding copies of the test packs, free to break."""
    cards = tmp_path / "cards"
    shutil.copytree(FIXTURES, cards)
    return cards


def give_rulebook(cards: Path) -> Path:
    """Give the tiny pack its rulebook (tests/fixtures/mini-rulebook.md), which the pack
    lacks so that the many tests that build it lay out only its cards; return its path."""
    rulebook = cards / "mini" / "rulebook.md"
    shutil.copyfile(FIXTURES.parent / "mini-rulebook.md", rulebook)
    return rulebook


def copy_real_pack(tmp_path: Path, name: str = DEFAULT_GAME) -> Path:
    """Copy a real game pack into tmp/cards and return that cards folder."""
    cards = tmp_path / "cards"
    shutil.copytree(CARDS_DIR / name, cards / name)
    return cards


def page_texts(pdf: Path) -> list[str]:
    """Text of every page as PDFium extracts it (twenty times faster than pypdf on a CJK
    rulebook), white space removed (CJK has none)."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        return [flat(page.get_textpage().get_text_range()) for page in document]
    finally:
        document.close()


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
    colour = image.getpixel((round(x_mm / 25.4 * dpi), round(y_mm / 25.4 * dpi)))
    assert isinstance(colour, tuple)
    return colour


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in a file, which must hold it."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def give_template(pack: Path, extra: str) -> Path:
    """Give the tiny pack's deck a card template of its own, the generic card with `extra`
    in its extra block and the cost after the deck's name; return the template's path."""
    template = pack / "templates" / "cards" / "spell.html.j2"
    template.parent.mkdir(parents=True, exist_ok=True)
    edit(pack / "game.yaml", "template: card", "template: spell")
    template.write_text('{% extends "cards/card.html.j2" %}\n{% block extra %}' + extra
                        + '{% endblock %}\n{% block kind %}{{ deck.name }} {{ card.cost }}'
                        '{% endblock %}\n', encoding="utf-8")
    return template


def give_rules(cards: Path, rules: str) -> Path:
    """Give the tiny pack a rules file; return the pack's folder."""
    pack = cards / "mini"
    (pack / "rules.yaml").write_text(rules, encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nrules: rules.yaml\n")
    return pack
