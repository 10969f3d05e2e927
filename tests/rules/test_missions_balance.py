"""Missions that matter (issue 12, issue 23 item 5): the balance lab's measure of the mission cards
(rebirth_dsl/play/missions.py, which writes docs/missions.md): each card's fulfilment rate among its holders
at each player count, and how much play changes it, from the same deals played again by random seats.

A card whose condition, read at the end, comes out the same for every seat of every deal whatever is played
is decided by the deal: "most food tiles" when every tile gets played (S-T2: every tile of the supply is
placed, S-P5 aside) is one. The decks are tuned so that with the lab's default agent every conditional card
is met by 15-75 % of its holders at 2, 3 and 4 players, and none is decided by the deal."""

from __future__ import annotations

import os

import pytest

from rebirth_dsl.play.missions import AGENT, BASELINE, COUNTS, SEED, CardRate, card_rates, out_of_band


def test_the_band_check_can_fail() -> None:
    """A card everyone fulfils, or nobody, is out of the band; an unconditional one never is."""
    easy = CardRate("Easy", "4", "count(tiles(me)) >= 1", 10, 10, 0.7, 1.0, False)
    none = CardRate("None", "4", "count(tiles(me)) >= 99", 10, 0, 0.0, 0.3, False)
    gift = CardRate("Gift", "3", "always", 10, 10, 0.7, 1.0, True)
    assert out_of_band([easy, none, gift]) == [easy, none]


def test_a_card_play_never_changes_is_decided_by_the_deal() -> None:
    """The measure tells a card play moves from one the deal decides: a card changed for no seat between the
    lab agent's game and random play on the same deal is decided by the deal, unless nobody meets it."""
    deal = CardRate("Deal", "4", "most(count(tiles(me, food)))", 10, 6, 0.3, 0.8, False, 3, 0.6, 0.0)
    played = CardRate("Played", "4", "count(touched(me, cathedral)) >= 8", 10, 6, 0.3, 0.8, False, 3, 0.1, 0.4)
    never = CardRate("Never", "4", "count(tiles(me)) >= 99", 10, 0, 0.0, 0.3, False, 3, 0.0, 0.0)
    assert [c.decided_by_deal for c in (deal, played, never)] == [True, False, False]


def test_the_lab_measures_how_much_play_changes_each_card() -> None:
    """On a few seeded 3-player Scotland games, each card's rate, its random-play rate on the same deals and
    the share of seats play changes are all measured; the Cathedral gift (S-M2) is met by every holder and
    changed for nobody."""
    rates = {r.card: r for r in card_rates("scotland", 3, 6, ["oneply"] * 3, seed=0, baseline="random")}
    assert all(r.players == 3 and r.baseline is not None and r.changed is not None for r in rates.values())
    gift = rates["Cathedral gift"]
    assert gift.rate == 1.0 and gift.changed == 0.0 and not gift.decided_by_deal
    assert any(r.changed and r.changed > 0 for r in rates.values())


# The band re-checked at every count on the first games of the docs/missions.md run (same agent, same seed:
# game i is dealt and played alike whatever the run's length), half of them to keep this test under a minute
# on two cores (60 games were too few: Clan of the glens and Mayor fell to 12-13 % with two players, 22-24 %
# over the 320): each card is held some 100 times or more (an Ireland card some 230 times: 8 of its 12 lie
# face up, held by every player).
BAND_GAMES = {"scotland": 160, "ireland": 160}
CONDITIONAL = {"scotland": 16, "ireland": 12}  # the cards that are not `always`


@pytest.mark.parametrize("players", COUNTS)
@pytest.mark.parametrize("rules", sorted(BAND_GAMES))
def test_every_conditional_card_is_met_by_15_to_75_percent_of_its_holders(rules: str, players: int) -> None:
    """The lab's default agent in every seat, seed 0: at each player count every conditional card's rate
    among its holders lies in the band, and no card is decided by the deal (random play on the same deals
    changes some seat's outcome)."""
    workers = min(2, os.cpu_count() or 1)
    rates = card_rates(rules, players, BAND_GAMES[rules], [AGENT] * players, seed=SEED, workers=workers,
                       baseline=BASELINE)
    conditional = [r for r in rates if not r.unconditional]
    assert len(conditional) == CONDITIONAL[rules]
    assert min(r.held for r in conditional) >= 80, [(r.card, r.held) for r in conditional if r.held < 80]
    assert out_of_band(rates) == [], [(r.card, round(r.rate, 2)) for r in out_of_band(rates)]
    assert [r.card for r in rates if r.decided_by_deal] == []
