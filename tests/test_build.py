"""The default game's real PDFs: page boxes, text, counts, backs, viewer preferences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from generator import CARDS_DIR, DEFAULT_GAME
from generator.pipeline.build import BuildOptions, build_game
from generator.plan.geometry import load_geometry

from .conftest import MM, flat, page_texts, pixel_mm, render_page

PACK = CARDS_DIR / DEFAULT_GAME
GAME = yaml.safe_load((PACK / "game.yaml").read_text(encoding="utf-8"))
EXPECTED = {"collective": 12, "personal-general": 20, "personal-profession": 16, "beings": 10,
            "vows": 8, "bodhisattva": 4, "roles": 4, "tokens": 45, "markers": 25,
            "achievements": 12, "choices": 8, "track-calamity": 1, "track-saved": 1,
            "track-round": 1, "action-cards": 4, "aids": 4, "score-sheet": 1}
SINGLE_SIDED = ("roles", "track-calamity", "track-saved", "track-round", "score-sheet")


def _cards(deck_id: str) -> list[dict]:
    deck = next(d for d in GAME["decks"] if d["id"] == deck_id)
    return yaml.safe_load((PACK / deck["file"]).read_text(encoding="utf-8"))


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def test_counts_match_the_rulebook(default_a4: Path) -> None:
    decks = {}
    for output in _manifest(default_a4)["outputs"]:
        decks.update(output["decks"])
    dice = decks.pop("d6")
    assert dice == {"faces": 2, "backs": 0}  # §2.1: two dice
    boxes = {deck: decks.pop(deck) for deck in list(decks) if deck.endswith("-box")}
    assert boxes == {f"{deck}-box": {"faces": 1, "backs": 0} for deck in (  # one a deck of cards
        "collective", "personal-general", "personal-profession", "beings", "vows",
        "bodhisattva", "choices")}
    assert {deck: info["faces"] for deck, info in decks.items()} == EXPECTED
    assert {deck: info["backs"] for deck, info in decks.items()} == {
        **EXPECTED, **dict.fromkeys(SINGLE_SIDED, 0)}
    for deck_id, count in EXPECTED.items():
        assert sum(card.get("qty", 1) for card in _cards(deck_id)) == count


@pytest.mark.slow  # builds the default game, by getfixturevalue
@pytest.mark.parametrize(("paper", "width", "height"), [("a4", 210, 297), ("letter", 215.9, 279.4)])
def test_every_page_is_the_paper(paper: str, width: float, height: float, request) -> None:
    folder = request.getfixturevalue(f"default_{paper}")
    outputs = _manifest(folder)["outputs"]
    assert len(outputs) >= 6  # cards, boards, tokens, aids, score, dice, rulebook
    for output in outputs:
        reader = PdfReader(folder / output["file"])
        assert len(reader.pages) == output["pages"] > 0
        for page in reader.pages:
            for box in (page.mediabox, page.cropbox, page.trimbox):
                assert float(box.width) == pytest.approx(width * MM, abs=0.05)
                assert float(box.height) == pytest.approx(height * MM, abs=0.05)


def test_poker_cards_sit_three_by_three_on_both_papers() -> None:
    geometry = load_geometry()
    for paper in ("a4", "letter"):
        grid = geometry.grid(paper, "poker")
        assert (grid.cols, grid.rows) == (3, 3)
        assert grid.left - geometry.bleed > 0 and grid.top - geometry.bleed > 0


def test_every_card_name_and_the_version_are_in_the_pdf(default_a4: Path) -> None:
    texts = {}
    for deck in GAME["decks"]:
        if deck["id"] == "tokens":  # a token prints its value over its resource, not its name
            continue
        output = deck.get("output", "cards")
        if output not in texts:
            texts[output] = "".join(page_texts(default_a4 / f"{output}-a4.pdf"))
        for card in _cards(deck["id"]):
            assert flat(card["name"]) in texts[output], card["id"]
    fronts = page_texts(default_a4 / "cards-a4.pdf")[0]
    assert fronts.count(flat(GAME["version"])) == 9


def test_card_text_is_escaped_not_markup(default_a4: Path) -> None:
    text = "".join(page_texts(default_a4 / "cards-a4.pdf"))
    assert "**" not in text


def test_decks_of_one_size_share_sheets_and_backs_follow_mirrored(default_a4: Path) -> None:
    """The poker decks run on from one to the next: personal-profession's last card, PF16,
    is the 48th poker card, so it sits top right on the sixth sheet with the first being
    (B01) below it on the left; on the back page the personal back is top left and the
    being back middle right."""
    pdf = default_a4 / "cards-a4.pdf"
    texts = page_texts(pdf)
    manifest = json.loads((default_a4 / "manifest.json").read_text(encoding="utf-8"))
    cards = next(o for o in manifest["outputs"] if o["file"] == "cards-a4.pdf")
    assert cards["pages"] == 2 * -(-sum(d["faces"] for d in cards["decks"].values()) // 9)
    front_index = next(i for i, t in enumerate(texts) if "PF16" in t)
    assert front_index == 2 * 5 and "B01" in texts[front_index]
    assert "别业因缘" in texts[front_index + 1] and "众生" in texts[front_index + 1]
    grid = load_geometry().grid("a4", "poker")
    back = render_page(pdf, front_index + 1)

    def centre(col: int, row: int) -> tuple[int, int, int]:
        return pixel_mm(back, grid.left + (col + 0.5) * grid.card.width,
                        grid.top + row * grid.card.height + 1.5)

    personal, being = centre(0, 0), centre(2, 1)
    assert personal[2] > personal[0] + 40  # the deep-blue personal back, behind PF16
    assert being[0] > being[2] + 15  # the brown being back, behind B01


def test_viewer_preferences_stop_scaling_and_ask_duplex_only_with_backs(
        default_a4: Path) -> None:
    manifest = json.loads((default_a4 / "manifest.json").read_text(encoding="utf-8"))
    flips = {}
    for entry in manifest["outputs"]:
        prefs = PdfReader(default_a4 / entry["file"]).trailer["/Root"]["/ViewerPreferences"]
        assert prefs["/PrintScaling"] == "/None"
        flips[entry["file"]] = prefs["/Duplex"]
    assert flips == {"aids-a4.pdf": "/DuplexFlipLongEdge", "boards-a4.pdf": "/Simplex",
                     "boxes-a4.pdf": "/Simplex",
                     "cards-a4.pdf": "/DuplexFlipLongEdge", "dice-a4.pdf": "/Simplex",
                     "rulebook-a4.pdf": "/DuplexFlipLongEdge", "score-a4.pdf": "/Simplex",
                     "tokens-a4.pdf": "/DuplexFlipLongEdge"}


def test_crop_marks_lie_outside_the_cards(default_a4: Path) -> None:
    grid = load_geometry().grid("a4", "poker")
    page = render_page(default_a4 / "cards-a4.pdf", 0, dpi=300)
    top_mark_y = grid.top - load_geometry().bleed - 2.5
    for col in range(grid.cols + 1):
        x = grid.left + col * grid.card.width
        assert max(pixel_mm(page, x, top_mark_y, dpi=300)) < 128, col
        assert pixel_mm(page, x + 2, top_mark_y, dpi=300) == (255, 255, 255)


@pytest.mark.slow
def test_no_backs_option(tmp_path: Path, pool) -> None:
    options = BuildOptions(only=("sheets",), switches=frozenset({"no_backs"}))
    manifest = build_game(DEFAULT_GAME, options, out_root=tmp_path, workers=pool).manifest
    assert {o["kind"] for o in manifest["outputs"]} == {"cards", "boards", "tokens", "aids",
                                                         "score"}
    cards = next(o for o in manifest["outputs"] if o["kind"] == "cards")
    assert all(info["backs"] == 0 for info in cards["decks"].values())
    assert len(PdfReader(tmp_path / DEFAULT_GAME / "cards-a4.pdf").pages) == cards["pages"] == 9


def test_only_the_registered_fonts_are_embedded(default_a4: Path) -> None:
    """No fallback to whatever fonts the machine has: every font comes from fonts/."""
    for name in ("cards-a4.pdf", "boards-a4.pdf", "tokens-a4.pdf"):
        embedded = set()
        for page in PdfReader(default_a4 / name).pages:
            embedded |= _fonts(page["/Resources"])
        assert embedded <= {"NotoSansSC-Regular", "NotoSansCJKsc-Bold", "NotoSerifSC-Regular"}, name
        assert "NotoSansSC-Regular" in embedded


def _fonts(resources) -> set[str]:
    """The fonts a page or form uses, its forms' (the faces drawn on a sheet) included."""
    found = {font.get_object()["/BaseFont"].split("+", 1)[1]
             for font in resources.get("/Font", {}).values()}
    for form in resources.get("/XObject", {}).values():
        if "/Resources" in form.get_object():
            found |= _fonts(form.get_object()["/Resources"])
    return found


def test_resource_tokens_are_double_sided(default_a4: Path) -> None:
    """§2.1: 45 tokens, 1/2/5 of 资粮, 功德 and 慧, five of each; each back is its face. The
    tokens and markers are round (cut alone, 42 to an A4 page in offset columns); the
    achievements are cards. Every fronts page is followed by its backs."""
    pages = page_texts(default_a4 / "tokens-a4.pdf")
    assert len(pages) == 6
    fronts, backs = "".join(pages[0::2]), "".join(pages[1::2])
    for name in ("资粮", "功德", "慧"):  # a token is its value over its name
        for value in "125":
            assert fronts.count(value + name) == backs.count(value + name) == 5


def test_markers_and_achievements_match_the_rulebook(default_a4: Path) -> None:
    """§2.1: 皈依 4, 大乘 4, 技能使用 8, one round marker; §七: 8 英雄; §12.13: 12 achievements."""
    pages = page_texts(default_a4 / "tokens-a4.pdf")
    markers = "".join(pages[0::2])  # the fronts pages
    rules = yaml.safe_load((PACK / "rules.yaml").read_text(encoding="utf-8"))
    printed = {
        name: markers.count(flat(name + note))
        for name, note in [("皈依", "皈依后置于角色板"), ("大乘", "发大乘心后置于角色板"),
                           ("技能", "记录主动技能使用次数"),
                           ("回合", f"回合标记{rules['setup']['round']}–{rules['game']['rounds']}"),
                           ("英雄", f"英雄时刻·终局+{rules['scoring']['hero']}分")]
    }
    assert printed == {"皈依": 4, "大乘": 4, "技能": 8, "回合": 1, "英雄": 8}
    assert markers.count(flat(GAME["version"])) == 45 + 25 + 12  # the achievements too
    for card in _cards("achievements"):
        assert card["name"] in markers
    cards = "".join(page_texts(default_a4 / "cards-a4.pdf"))  # choices share poker sheets
    assert (cards.count("AB-A"), cards.count("AB-B")) == (4, 4)
