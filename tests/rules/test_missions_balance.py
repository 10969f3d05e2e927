"""Missions that matter (issue 12): on a seeded lab run, every conditional mission card of Scotland and
Ireland is fulfilled by between 15 % and 75 % of the players who hold it.

Scotland is checked with the search agent, on the very run docs/missions.md shows (`python -m
rebirth_dsl.play.missions`: ismcts:budget=64 in every seat, 3 players, 40 games, seed 0): the band is a
property of players who play for their cards, and the greedy agent does not (it scores each placement
alone: measured with tools/mission_values.py, its holders touch all 8 cathedrals, put 20 tiles by castles
or touch 11 castles only 3 to 11 times in a hundred). The run takes about a minute of CPU, on two workers;
it needs the native playouts (on the Python ones the same seed plays other games, and far more slowly), so
it is skipped where those cannot run. Ireland is checked with greedy seats: its search run costs some five times as much a
game, and its cards are in the band for both agents (docs/missions.md)."""

from __future__ import annotations

import os

import pytest

from rebirth_dsl import native
from rebirth_dsl.play.missions import AGENT, GAMES, PLAYERS, SEED, CardRate, card_rates, out_of_band

WHY = native.unavailable()


@pytest.mark.skipif(WHY is not None, reason=f"the search agent's native playouts cannot run here: {WHY}")
def test_scotland_cards_are_fulfilled_by_15_to_75_percent_of_searching_holders() -> None:
    """The search agent of docs/missions.md, its seed and games: each Scotland card's rate lies in the band."""
    workers = min(2, os.cpu_count() or 1)
    rates = card_rates("scotland", PLAYERS, GAMES, [AGENT] * PLAYERS, seed=SEED, workers=workers)
    assert len(rates) == 17  # 16 conditional cards and the Cathedral gift, each held at least once
    assert min(r.held for r in rates) >= 30, "too few holders for a rate"
    assert out_of_band(rates) == [], [(r.card, round(r.rate, 2)) for r in out_of_band(rates)]


def test_ireland_cards_are_fulfilled_by_15_to_75_percent_of_greedy_players() -> None:
    """Greedy seats, 3 players, a fixed seed: each Ireland card's rate (every player holds a face-up card)
    lies in the band."""
    rates = card_rates("ireland", 3, 20, ["greedy"] * 3, seed=1)
    assert len(rates) >= 12
    assert out_of_band(rates) == [], [(r.card, round(r.rate, 2)) for r in out_of_band(rates)]


def test_the_band_check_can_fail() -> None:
    """A card everyone fulfils, or nobody, is out of the band; an unconditional one never is."""
    easy = CardRate("Easy", "4", "count(tiles(me)) >= 1", 10, 10, 0.7, 1.0, False)
    none = CardRate("None", "4", "count(tiles(me)) >= 99", 10, 0, 0.0, 0.3, False)
    gift = CardRate("Gift", "3", "always", 10, 10, 0.7, 1.0, True)
    assert out_of_band([easy, none, gift]) == [easy, none]
