"""东方符斗祭: the 156-card deck with every copy's corner index, and the 48 characters."""

from __future__ import annotations

import json
import re

from generator.pack.load import load_game

from .conftest import page_texts

GAME = "thbattle"
_ID = re.compile(r"[a-z0-9]+-[SHCD](?:10|[2-9JQKA])(?![0-9])")


def test_the_deck_holds_156_cards_and_48_characters(built) -> None:
    manifest = json.loads((built(GAME) / "manifest.json").read_text(encoding="utf-8"))
    faces = {deck: info["faces"] for o in manifest["outputs"] for deck, info in o["decks"].items()}
    assert faces["basic"] + faces["spell"] + faces["equipment"] == 156
    assert faces["characters"] == 48
    game = load_game(GAME)
    kinds = {card.kind for deck in game.decks if deck.spec.id in ("basic", "spell", "equipment")
             for card in deck.cards}
    assert len(kinds) == 45


def test_every_copy_prints_its_suit_and_rank_in_two_corners(built) -> None:
    game = load_game(GAME)
    cards = {card.id: card for deck in game.decks if deck.spec.id in ("basic", "spell",
                                                                       "equipment")
             for card in deck.cards}
    text = "".join(page_texts(built(GAME) / "cards-a4.pdf"))
    seen: dict[str, int] = {}
    start = 0
    for match in _ID.finditer(text):
        card = cards[match.group()]
        body = text[start:match.start()]
        assert body.count(f"{card.rank}{card.suit}") >= 2, card.id
        seen[card.id] = seen.get(card.id, 0) + 1
        start = match.end()
    assert seen == {card_id: card.qty for card_id, card in cards.items()}
