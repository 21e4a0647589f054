"""One mistake prints as one line: the same finding on many cards of one template is told once,
with how many cards and the first three; --json keeps every occurrence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator import cli
from generator.check.findings import Finding, card_order, listed, tally, told

from .conftest import edit, give_template

UNKNOWN_FILTER = "\n{% if card.name %}{{ card.name|extract }}{% endif %}"  # fails as it runs
EXTRA = [f"S{number}" for number in range(4, 13)]  # nine cards more: twelve in all


def _many_cards(packs: Path) -> Path:
    """The tiny pack with nine cards more, its template failing on each; its template."""
    pack = packs / "mini"
    template = give_template(pack, UNKNOWN_FILTER)
    with (pack / "spells.yaml").open("a", encoding="utf-8") as spells:
        spells.writelines(f"- id: {card}\n  name: 法术{card}\n  cost: 1\n" for card in EXTRA)
    edit(pack / "game.yaml", "count: 4", f"count: {4 + len(EXTRA)}")
    return template


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_template_failing_on_every_card_is_one_line_in_validate_and_build(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    template = _many_cards(packs)
    where = ["mini", "--cards", str(packs), "--out", str(tmp_path / "out")]
    line = (f"{template}:3: error: E060: No filter named 'extract' found. (12 cards: S1, S2, S3 "
            "and 9 more)")
    status, out, _ = _run(capsys, "validate", *where)
    assert status == 1
    unchecked = ", ".join(f"card 'S{number}' (its own errors stop its layout)"
                          for number in range(1, 11))
    assert out.splitlines() == [line, f"mini: 1 error, 0 warnings; not checked: {unchecked} "
                                      "and 2 more"]
    status, out, err = _run(capsys, "build", *where)
    assert (status, out) == (1, "")
    assert err.splitlines() == [line, "pnp: 1 error; nothing was written"]
    assert not (tmp_path / "out" / "mini").exists()


def test_json_keeps_every_card_a_template_fails_on(
        packs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    template = _many_cards(packs)
    where = ["mini", "--cards", str(packs), "--out", str(tmp_path / "out"), "--json"]
    status, out, _ = _run(capsys, "validate", *where)
    [game] = json.loads(out)["games"]
    cards = ["S1", "S2", "S3", *EXTRA]
    assert (status, game["errors"], game["warnings"]) == (1, 1, 0)  # mistakes, as printed
    assert sorted(game["findings"], key=lambda found: int(found["card"][1:])) == [
        {"path": str(template), "line": 3, "message": f"card '{card}': No filter named "
         "'extract' found.", "level": "error", "code": "E060", "card": card} for card in cards]
    assert game["unchecked"] == [f"card '{card}' (its own errors stop its layout)"
                                 for card in cards]  # every one, uncut


def test_one_mistake_is_one_line_whatever_card_its_message_names() -> None:
    """Findings at one place with one code are one mistake when their messages differ only
    in the card each names; the cards are listed in their numbers' order."""
    def at(line: int, message: str, card: str = "", code: str = "E060") -> Finding:
        return Finding("templates/cards/spell.html.j2", line, message, code, card)

    same = [at(3, f"card '{card}': it fails", card) for card in ("S10", "S2", "S1", "S9")]
    other = [at(3, "card 'S4': it fails otherwise", "S4"), at(3, "card 'S5': it fails", "S5",
                                                             "E062"),
             at(3, "it fails"),  # about no card: not one with those about one
             at(4, "card 'S6': it fails", "S6"), at(5, "it fails"), at(5, "it fails")]
    assert [str(finding) for finding in told(same + other)] == [
        "templates/cards/spell.html.j2:3: error: E060: it fails (4 cards: S1, S2, S9 and 1 more)",
        "templates/cards/spell.html.j2:3: error: E060: card 'S4': it fails otherwise",
        "templates/cards/spell.html.j2:3: error: E062: card 'S5': it fails",
        "templates/cards/spell.html.j2:3: error: E060: it fails",
        "templates/cards/spell.html.j2:4: error: E060: card 'S6': it fails",
        "templates/cards/spell.html.j2:5: error: E060: it fails"]
    assert tally(same + other) == (6, 0)
    two = [at(3, f"card '{card}': it fails", card) for card in ("S1", "S2")]
    assert str(told(two)[0]).endswith(": it fails (2 cards: S1, S2)")
    unchecked = [f"W072 text of {card}" for card in ("S1", "S2", "S3")]  # grouped: any message
    assert [str(finding) for finding in told(
        [at(2, text, card, "W072") for text, card in zip(unchecked, ("S1", "S2", "S3"),
                                                           strict=True)])] == [
        "templates/cards/spell.html.j2:2: warning: W072: W072 text of S1 (3 cards: S1, S2, S3)"]


def test_a_list_names_so_many_then_how_many_more() -> None:
    names = [f"n{number}" for number in range(1, 13)]
    assert listed(names, 10) == "n1, n2, n3, n4, n5, n6, n7, n8, n9, n10 and 2 more"
    assert listed(names[:10], 10) == "n1, n2, n3, n4, n5, n6, n7, n8, n9, n10"
    assert listed(names[:4], 3) == "n1, n2, n3 and 1 more"
    assert listed(names[:1], 3) == "n1"


def test_cards_are_listed_in_their_numbers_order() -> None:
    ids = ["B2", "A10", "A2", "A", "2", "10", "S²", "S٣", "S1"]
    assert sorted(ids, key=card_order) == ["2", "10", "A", "A2", "A10", "B2", "S1", "S٣", "S²"]
