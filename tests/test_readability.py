"""Readability checks on the laid-out faces: contrast (W076), size (W077), safe zone (W078)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.check.colors import contrast, ink
from generator.layout.workers import Workers
from generator.pipeline.build import validate_game

from .conftest import edit, give_template

READABILITY = ("W076", "W077", "W078")
# Three faults on the tiny pack's card: a pale gold label, 4 pt text, text above the safe zone.
FAULTS = ('<div class="dim" data-field="dim">淡金标签</div>'
          '<div class="tiny" data-field="tiny">四磅小字</div>'
          '<div class="edge" data-field="edge">出界</div>')
STYLE = """.dim { color: #c9a227; }
.tiny { font-size: 4pt; }
.edge { position: absolute; left: 0; top: -3mm; font-size: 6pt; }
"""


def _readability(cards: Path, pool: Workers | None = None) -> list[str]:
    report = validate_game("mini", cards, out_root=cards.parent / "out", workers=pool)
    return [str(f) for f in report.findings if f.code in READABILITY]


def _faulty(cards: Path, extra: str = FAULTS) -> tuple[Path, Path]:
    """Give the tiny pack's cards the faults and their stylesheet; return its deck file and
    game.yaml."""
    pack = cards / "mini"
    give_template(pack, extra)
    (pack / "style.css").write_text(STYLE, encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    return pack / "spells.yaml", pack / "game.yaml"


def test_wcag_contrast_ratios() -> None:
    assert contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21)
    assert contrast((1, 1, 1), (1, 1, 1)) == pytest.approx(1)
    gold = (0xc9 / 255, 0xa2 / 255, 0x27 / 255)
    assert contrast(gold, (1, 1, 1)) == pytest.approx(2.42, abs=0.01)


def test_ink_darkens_a_colour_only_as_far_as_it_must() -> None:
    assert ink("#1a1a1a", "#ffffff") == "#1a1a1a"
    darker = ink("#c9a227", "#fbf5e6")
    assert darker == "#816819"
    shade = tuple(int(darker[i:i + 2], 16) / 255 for i in (1, 3, 5))
    assert contrast(shade, (0xfb / 255, 0xf5 / 255, 0xe6 / 255)) >= 4.5
    assert ink("#c9a227", "#fbf5e6", large=True) != darker
    assert ink("red", "#ffffff") == "red"


def test_each_fault_is_found_once_per_card_and_field(packs: Path) -> None:
    spells, _ = _faulty(packs)
    found = _readability(packs)
    expected = []
    for line, card in ((1, "S1"), (8, "S2"), (12, "S3")):
        expected += [
            f"{spells}:{line}: warning: W076: card '{card}': 'dim' is #c9a227 on #ffffff, "
            "contrast 2.4:1, below 4.5:1 (WCAG AA)",
            f"{spells}:{line}: warning: W078: card '{card}': 'edge' lies 2.4 mm outside the safe "
            "zone (top edge)",
            f"{spells}:{line}: warning: W077: card '{card}': 'tiny' is set in 4.0 pt, below the "
            "6 pt minimum",
        ]
    assert found == expected


def test_large_text_needs_less_contrast_and_a_plate_gives_it(packs: Path) -> None:
    spells, _ = _faulty(packs, '<div class="dim big" data-field="big">大字</div><div '
                        'class="plate" data-field="plate"><span class="dim">金字黑底</span></div>')
    edit(spells.parent / "style.css", ".tiny", ".big { font-size: 18pt; color: #8a8a8a; }\n"
         ".plate { background: rgba(0, 0, 0, 0.8); }\n.tiny")
    assert _readability(packs) == []  # #8a8a8a on white is 3.4:1, enough at 18 pt


def test_a_semi_transparent_colour_is_composited_over_what_is_beneath(packs: Path) -> None:
    spells, _ = _faulty(packs, '<div class="veil" data-field="veil">薄纱</div>')
    edit(spells.parent / "style.css", ".tiny",
         ".veil { background: #000000; color: rgba(255, 255, 255, 0.3); }\n.tiny")
    assert _readability(packs)[0] == (
        f"{spells}:1: warning: W076: card 'S1': 'veil' is #4c4c4c on #000000, contrast 2.4:1, "
        "below 4.5:1 (WCAG AA)")


def test_decoration_is_not_checked(packs: Path) -> None:
    _faulty(packs, f'<div aria-hidden="true">{FAULTS}</div>')
    assert _readability(packs) == []


def test_the_version_stamp_has_its_own_minimum(packs: Path) -> None:
    spells, _ = _faulty(packs, "")
    edit(spells.parent / "style.css", ".tiny", ".face .footer { font-size: 4pt; }\n.tiny")
    assert _readability(packs) == []
    edit(spells.parent / "style.css", "font-size: 4pt; }", "font-size: 3.5pt; }")
    assert _readability(packs)[0] == (
        f"{spells}:1: warning: W077: card 'S1': 'footer' is set in 3.5 pt, below the 4 pt "
        "minimum")


def test_a_pack_sets_its_own_minimum_in_game_yaml(packs: Path) -> None:
    spells, game = _faulty(packs, FAULTS.replace("dim", "plain"))
    edit(game, "players: 1-2人\n", "players: 1-2人\nreadability: {min_text: 4}\n")
    assert not [f for f in _readability(packs) if "W077" in f]
    edit(game, "{min_text: 4}", "{min_text: 7, min_stamp: 6}")
    small = [f for f in _readability(packs) if "W077" in f and "'S1'" in f]
    assert small == [
        f"{spells}:1: warning: W077: card 'S1': 'edge' is set in 6.0 pt, below the 7 pt minimum",
        f"{spells}:1: warning: W077: card 'S1': 'footer' is set in 5.0 pt, below the 6 pt "
        "minimum",
        f"{spells}:1: warning: W077: card 'S1': 'tiny' is set in 4.0 pt, below the 7 pt minimum",
    ]
