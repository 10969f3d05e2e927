"""Missions that matter (issue 12): on a small seeded lab run, every conditional mission card of Scotland
and Ireland is fulfilled by between 15 % and 75 % of the players who hold it (docs/missions.md has the
full run by the search agent, made by `python -m rebirth_dsl.play.missions`)."""

from __future__ import annotations

import pytest

from rebirth_dsl.play.missions import CardRate, card_rates, out_of_band


@pytest.mark.parametrize("rules", ["scotland", "ireland"])
def test_every_conditional_card_is_fulfilled_by_15_to_75_percent(rules: str) -> None:
    """Greedy seats, 3 players, a fixed seed: each card's rate lies in the band."""
    rates = card_rates(rules, 3, 40 if rules == "scotland" else 20, ["greedy"] * 3, seed=1)
    assert len(rates) >= 12
    assert out_of_band(rates) == [], [(r.card, round(r.rate, 2)) for r in out_of_band(rates)]


def test_the_band_check_can_fail() -> None:
    """A card everyone fulfils, or nobody, is out of the band; an unconditional one never is."""
    easy = CardRate("Easy", "4", "count(tiles(me)) >= 1", 10, 10, 0.7, 1.0, False)
    none = CardRate("None", "4", "count(tiles(me)) >= 99", 10, 0, 0.0, 0.3, False)
    gift = CardRate("Gift", "3", "always", 10, 10, 0.7, 1.0, True)
    assert out_of_band([easy, none, gift]) == [easy, none]
