"""Text that shrinks to fit: a field declared `fit: shrink` is set at the largest size, in
steps of 0.25 pt, at which its text fits its box; at its floor and still too long, E070."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2

from generator import cli
from generator.pipeline.build import BuildOptions, build_game, validate_game

from .conftest import edit

EFFECT = "造成三点伤害，然后抽一张牌。" * 28  # too long for a poker card at 9 pt


def _shrinking(packs: Path, floor: str = "") -> Path:
    """The tiny pack with its sections declared to shrink and S1's effect too long."""
    pack = packs / "mini"
    extra = f", min: {floor}" if floor else ""
    edit(pack / "game.yaml", "      cost: {type: int, required: true}",
         "      cost: {type: int, required: true}\n"
         f"      sections: {{type: sections, fit: shrink{extra}}}")
    edit(pack / "spells.yaml", "text: 造成 **3** 点伤害。<b>不是标记</b>", f"text: {EFFECT}")
    return pack


def _width(pdf: Path, char: str) -> float:
    """The width in points of the first `char` on the first page."""
    document = pypdfium2.PdfDocument(pdf)
    text = document[0].get_textpage()
    index = next(i for i in range(text.count_chars()) if text.get_text_range(i, 1) == char)
    left, _, right, _ = text.get_charbox(index)
    document.close()
    return right - left


def test_a_field_shrinks_to_the_largest_size_that_fits(packs: Path, tmp_path: Path,
                                                       capsys) -> None:
    _shrinking(packs)
    result = build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    assert result.warnings == []
    pdf = tmp_path / "mini" / "cards-a4.pdf"
    assert abs(_width(pdf, "造") - 0.925 * 6.75) < 0.15  # an ideograph: 0.925 em of ink box
    assert cli.main(["--cards", str(packs), "validate", "mini", "--json", "--out",
                     str(tmp_path)]) == 0
    [game] = json.loads(capsys.readouterr().out)["games"]
    assert game["shrunk"] == [{"where": f"{packs / 'mini' / 'spells.yaml'}:1", "card": "S1",
                               "field": "sections.0 效果", "size": "6.75pt"}]
    first = pdf.read_bytes()
    build_game("mini", BuildOptions(), out_root=tmp_path / "again", cards_dir=packs)
    assert (tmp_path / "again" / "mini" / "cards-a4.pdf").read_bytes() == first


def test_a_field_at_its_floor_and_still_too_long_is_past_its_box(packs: Path,
                                                                 tmp_path: Path) -> None:
    _shrinking(packs, floor="7pt")  # 6.75 pt is the largest that fits: 7 does not
    report = validate_game("mini", packs, out_root=tmp_path)
    [past] = [f for f in report.findings if f.code == "E070"]
    assert past.message.startswith("card 'S1': 'sections.0 效果' runs ")
    assert report.shrunk[0]["size"] == "7pt"


def test_a_field_that_fits_keeps_its_size_and_no_other_field_shrinks(packs: Path,
                                                                       tmp_path: Path) -> None:
    pack = _shrinking(packs)
    edit(pack / "spells.yaml", f"text: {EFFECT}", "text: 造成三点伤害。")
    report = validate_game("mini", packs, out_root=tmp_path)
    assert report.findings == [] and report.shrunk == []
    build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    assert abs(_width(tmp_path / "mini" / "cards-a4.pdf", "造") - 0.925 * 9) < 0.15
