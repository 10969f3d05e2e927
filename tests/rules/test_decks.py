"""The mission decks as data (S-C1, S-M2, S-M3, I-M1): how many cards the box holds and what they pay.

RULES.md S-C1: "The box holds 32 mission cards in all (Scotland private + Ireland public)". The decks live in
rules/scotland.rules (20 cards: 16 conditional cards and 4 Cathedral gifts, S-M2) and rules/ireland.rules
(12 cards). Copies count: `card "Cathedral gift" 3 x4` is four cards. Each count is read twice: from the
parsed rules (the statements `check` sees) and from the decks the compiler hands the engine.
"""

from __future__ import annotations

import pytest
from conftest import BOARDS, RULES

from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.records.record import load_ruleset

GIFT = "Cathedral gift"


def _deck_block(game: str) -> A.DeckBlock:
    """The `deck mission { ... }` block of a bundled ruleset, after `extends` is applied."""
    decks = [s for s in load_rules(RULES / f"{game}.rules").statements
             if isinstance(s, A.DeckBlock) and s.name == "mission"]
    assert len(decks) == 1, f"{game}: {len(decks)} mission decks"
    return decks[0]


def _copies(game: str) -> int:
    return sum(c.copies for c in _deck_block(game).cards)


def _engine_deck(game: str) -> list[str]:
    """The mission deck as the compiled ruleset holds it: one entry per physical card."""
    rs, _ = load_ruleset(RULES / f"{game}.rules", BOARDS / f"{game}.json")
    return [c.name for c in rs.decks["mission"]]


def _is_always(cond: A.Expr) -> bool:
    return isinstance(cond, A.Name) and cond.id == "always"


def test_S_C1_the_box_holds_32_mission_cards() -> None:
    """S-C1: Scotland's private deck and Ireland's public deck together hold 32 cards, copies counted."""
    assert _copies("scotland") + _copies("ireland") == 32
    assert len(_engine_deck("scotland")) + len(_engine_deck("ireland")) == 32


@pytest.mark.parametrize(("game", "cards"), [("scotland", 20), ("ireland", 12)])
def test_each_deck_size(game: str, cards: int) -> None:
    """Scotland 20 cards, Ireland 12: in the rules text and in the deck the engine draws from."""
    assert _copies(game) == cards
    assert len(_engine_deck(game)) == cards


def test_S_M2_scotland_holds_four_cathedral_gifts() -> None:
    """S-M2: four of Scotland's 20 cards are the Cathedral gift (3 points, no condition); the other 16 are
    conditional cards, one copy each."""
    block = _deck_block("scotland")
    gifts = [c for c in block.cards if c.name == GIFT]
    assert len(gifts) == 1 and gifts[0].copies == 4 and gifts[0].points == 3 and _is_always(gifts[0].condition)
    assert _engine_deck("scotland").count(GIFT) == 4
    others = [c for c in block.cards if c.name != GIFT]
    assert len(others) == 16 and all(c.copies == 1 for c in others)
    assert not any(_is_always(c.condition) for c in others), "a second unconditional card"


def test_I_M1_ireland_has_no_cathedral_gift() -> None:
    """Ireland's 12 public cards are all conditional and each has a big and a small number (I-M1)."""
    block = _deck_block("ireland")
    assert all(not _is_always(c.condition) for c in block.cards)
    assert all(c.small is not None and c.small < c.points for c in block.cards)
    assert sum(c.copies for c in block.cards) == len(block.cards) == 12


def test_every_conditional_scotland_card_pays_more_than_the_gift() -> None:
    """A card with a condition is worth more than the 3 points the Cathedral gift pays for nothing."""
    block = _deck_block("scotland")
    (gift,) = [c for c in block.cards if c.name == GIFT]
    conditional = {c.name: c.points for c in block.cards if not _is_always(c.condition)}
    assert len(conditional) == 16
    cheap = {name: pts for name, pts in conditional.items() if pts <= gift.points}
    assert cheap == {}, f"conditional cards paying no more than the Cathedral gift ({gift.points}): {cheap}"
    rs, _ = load_ruleset(RULES / "scotland.rules", BOARDS / "scotland.json")
    assert all(c.points > gift.points for c in rs.decks["mission"] if c.name != GIFT)
