"""Sheets shared across sizes: what is left of each size, and the single-sided pieces, fill
each other's room (turned where that helps), so the files of issue 28 take fewer sheets;
every back lands behind its own front on a sheet of mixed sizes, on either flip, moved by
the printer's offset, or beside it on a gutter-fold sheet; a deck with `own_sheets` keeps
its own; and an overview that shrinks its text below the readable minimum says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from markupsafe import Markup
from pypdf import PdfReader

from generator import CARDS_DIR
from generator.outputs.sheets import SheetsOutput
from generator.pipeline.build import check
from generator.pipeline.cache import BuildOptions
from generator.plan.geometry import Box, load_geometry
from generator.plan.impose import Duplex, Item, Piece, Sheet, Slot, pack
from generator.plan.render import Face

from .conftest import edit

GEOMETRY = load_geometry()
POKER, MINI = GEOMETRY.sizes["poker"], GEOMETRY.sizes["mini"]


@pytest.mark.parametrize(("game", "file", "pages"), [
    ("tianjibian", "cards-a4.pdf", 28),  # 15: 3 poker cards left over share the minis' sheet
    ("path-to-salvation", "cards-a4.pdf", 8),  # 5: 3 events beside the 10 deeds, turned
])  # (the packs' tokens are round: cut alone, packed as test_cutting.py checks)
def test_sizes_share_sheets(game: str, file: str, pages: int, built) -> None:
    folder = built(game)
    manifest = built.result(game).manifest
    [entry] = [output for output in manifest["outputs"] if output["file"] == file]
    assert len(PdfReader(folder / file).pages) == entry["pages"] == pages
    kind = _planned(game)
    mixed = [sheet for sheet in kind.sheets[file]
             if len({slot.upright for slot in sheet.slots}) > 1]
    assert mixed and all(sheet.side in ("front", "back") for sheet in mixed)


def _planned(game: str, cards: Path = CARDS_DIR, **options) -> SheetsOutput:
    """The sheets output of a pack, planned (nothing laid out)."""
    checked = check(game, cards, BuildOptions(only=("sheets",), **options))
    assert [str(finding) for finding in checked.findings if finding.level == "error"] == []
    [kind] = [made for made in checked.kinds if isinstance(made, SheetsOutput)]
    kind.plan()
    return kind


def _item(size: Box, name: str) -> Item:
    """An item whose front's source is its name, and its back's the name and '-back'."""
    return Item(Piece(Face(Markup(name), "x", name)), Piece(Face(Markup(name), "x",
                                                                  f"{name}-back")), size, "x")


def _behind(front: Slot, flip: str, offset: tuple[float, float] = (0, 0)) -> tuple:
    """Where a front's back must be: its box mirrored across the flip edge's middle line,
    moved by the offset; the same size, turned half round when the flip turns it."""
    paper = GEOMETRY.papers["a4"]
    if flip == "short":
        x, y = front.x, paper.height - front.y - front.height
        turn = front.turn if front.turn % 180 else (front.turn + 180) % 360
    else:
        x, y = paper.width - front.x - front.width, front.y
        turn = (front.turn + 180) % 360 if front.turn % 180 else front.turn
    return (pytest.approx(x + offset[0]), pytest.approx(y + offset[1]), front.width,
            front.height, turn)


def _where(slot: Slot) -> tuple:
    return slot.x, slot.y, slot.width, slot.height, slot.turn


@pytest.mark.parametrize(("duplex", "flip", "offset"), [
    (Duplex(), "long", (0, 0)),
    (Duplex(flip="short", offset=(1.5, -0.5)), "short", (1.5, -0.5)),
    (Duplex(offset=(-2.0, 1.0)), "long", (-2.0, 1.0)),
    (Duplex(flip="short", fold=True), "long", (0, 0)),  # a fold always turns it sideways
])
def test_each_back_lands_behind_its_own_front_on_a_mixed_size_sheet(
        duplex: Duplex, flip: str, offset: tuple[float, float]) -> None:
    """Three poker cards and ten minis: one sheet; each back, named after its front, is
    where its front is seen from behind, with the bleed on the mirrored edges."""
    items = [_item(POKER, f"P{n}") for n in range(3)] + [_item(MINI, f"M{n}") for n in range(10)]
    sheets = pack(items, "a4", GEOMETRY, duplex)
    if duplex.fold:  # half the paper each: more sheets, fronts left of the fold
        assert {sheet.side for sheet in sheets} == {"fold"}
        fronts = [slot for sheet in sheets for slot in sheet.slots
                  if not slot.piece.face.source.endswith("-back")]
        backs = [slot for sheet in sheets for slot in sheet.slots
                 if slot.piece.face.source.endswith("-back")]
        assert all(slot.x + slot.width <= 105 for slot in fronts)
    else:
        assert [sheet.side for sheet in sheets] == ["front", "back"]
        fronts, backs = sheets[0].slots, sheets[1].slots
        assert {slot.upright for slot in fronts} == {POKER, MINI}
        assert any(slot.turn for slot in fronts)  # the minis turned, below the poker cards
    behind = {slot.piece.face.source: slot for slot in backs}
    assert sorted(behind) == sorted(f"{slot.piece.face.source}-back" for slot in fronts)
    for front in fronts:
        back = behind[f"{front.piece.face.source}-back"]
        assert _where(back) == _behind(front, flip, offset), front.piece.face.source
        bleeds = (front.bleed_left, front.bleed_top, front.bleed_right, front.bleed_bottom)
        mirrored = (bleeds[0], bleeds[3], bleeds[2], bleeds[1]) if flip == "short" else \
            (bleeds[2], bleeds[1], bleeds[0], bleeds[3])
        assert (back.bleed_left, back.bleed_top, back.bleed_right, back.bleed_bottom) == mirrored


def test_the_backs_of_a_real_mixed_sheet_are_behind_their_fronts() -> None:
    """天机变's last cards sheet: six branches (mini) and three stars (poker); the page after
    it holds each one's back where it lands."""
    sheets = _planned("tianjibian").sheets["cards-a4.pdf"]
    [index] = [n for n, sheet in enumerate(sheets)
               if sheet.side == "front" and len({slot.upright for slot in sheet.slots}) > 1]
    front, back = sheets[index], sheets[index + 1]
    assert back.side == "back" and len(front.slots) == len(back.slots) == 9
    assert sorted(slot.piece.face.deck_id for slot in front.slots) == ["branches"] * 6 + [
        "stars"] * 3
    for slot in front.slots:
        [there] = [other for other in back.slots if _where(other) == _behind(slot, "long")]
        assert there.piece.face.deck_id == slot.piece.face.deck_id
        assert there.piece.face.source.startswith("back:")


def test_a_deck_with_own_sheets_keeps_to_them(packs: Path) -> None:
    """The tiny pack's four poker spells share their sheet with two mini runes; its three
    chits keep a sheet of their own, and share the first once they no longer ask to."""
    pack = packs / "mini"
    (pack / "runes.yaml").write_text("- {id: R1, name: 火}\n- {id: R2, name: 水}\n",
                                     encoding="utf-8")
    (pack / "chits.yaml").write_text("- {id: C1, name: 一, qty: 3}\n", encoding="utf-8")
    with (pack / "game.yaml").open("a", encoding="utf-8") as game:
        game.write("  - {id: runes, name: 符文, file: runes.yaml, size: mini, template: card, "
                   "back: green, count: 2}\n"
                   "  - {id: chits, name: 筹码, file: chits.yaml, size: token, template: card, "
                   "back: blue, count: 3, own_sheets: true}\n")

    def decks(sheet: Sheet) -> list[str]:
        return sorted({slot.piece.face.deck_id for slot in sheet.slots})

    sheets = _planned("mini", packs).sheets["cards-a4.pdf"]
    assert [(sheet.side, decks(sheet)) for sheet in sheets] == [
        ("front", ["runes", "spells"]), ("back", ["runes", "spells"]),
        ("front", ["chits"]), ("back", ["chits"])]
    edit(pack / "game.yaml", "own_sheets: true", "own_sheets: false")
    sheets = _planned("mini", packs).sheets["cards-a4.pdf"]
    assert [(sheet.side, decks(sheet)) for sheet in sheets] == [
        ("front", ["chits", "runes", "spells"]), ("back", ["chits", "runes", "spells"])]


@pytest.mark.parametrize(("paper", "shown", "points"), [("a4", "47%", "2.8"),
                                                        ("letter", "49%", "2.9")])
def test_an_overview_that_shrinks_text_below_the_minimum_says_so(paper: str, shown: str,
                                                                 points: str) -> None:
    """天机变's 420 mm board fits its overview page at 47 % (Letter 49 %): its 6 pt labels
    print at 2.8 pt there, which no layout of one page mends; a warning at the deck's
    `overview` line says so."""
    checked = check("tianjibian", options=BuildOptions(paper=paper))
    game = CARDS_DIR / "tianjibian" / "game.yaml"
    line = game.read_text(encoding="utf-8").splitlines().index("    overview: true") + 1
    assert [str(finding) for finding in checked.findings if finding.code == "W087"] == [
        f"cards/tianjibian/game.yaml:{line}: warning: W087: deck 'board': its overview page "
        f"shows the 420×420 mm component at {shown} of its size, so text set at the 6 pt "
        f"readable minimum prints at {points} pt there (the glued pieces print it at full "
        "size)"]
