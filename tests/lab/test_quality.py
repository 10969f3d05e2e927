"""How the games went (issue 23 item 2): winning margin, score by finishing place, lead changes, the
move after which the winner led for good, tie-breaks and shared wins, seat advantage, each with its
interval and paired test; measures the native engine does not take are said to be missing.

Seeded and small: the variants in tests/lab/variants/ against Scotland, a hundred-odd random games each.
Random seats make the same choices in both rulesets until the rules make the positions differ, so an end
rule or a payout that no random choice reads gives per-game differences without noise."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from lab_helpers import (
    SCOTLAND,
    SCOTLAND_BOARD,
    by_metric,
    run,
)

from rebirth_dsl.play import lab, stats
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.summary import quality_series
from rebirth_dsl.play.tally import GameExtra
from rebirth_dsl.records.record import load_ruleset


def test_moving_area_points_between_places_shows_by_finishing_place() -> None:
    """Areas paying their first place alone: every area pays what it did, so the areas' points a player
    and each seat's mean score stay; the winner scores more, the last less, the margin grows."""
    _, rows, _ = run("area-places", 150)
    by = by_metric(rows)
    assert by["areas"]["diff"] == pytest.approx(0.0) and not by["areas"]["significant"]
    assert not any(by[f"mean score {q + 1} {DEFAULT_NAMES[q]}"]["significant"] for q in range(3))
    first, last = by["score of the 1st"], by["score of the 3rd"]
    assert first["significant"] and first["diff_ci"][0] > 0
    assert last["significant"] and last["diff_ci"][1] < 0
    assert by["winning margin"]["diff"] > 0
    assert by["lead changes"]["base"]["value"] > 0 and by["lead changes"]["test"] == "paired t-test"



def test_seat_advantage_is_a_chi_square_against_equal_shares() -> None:
    """The chi-square's tail agrees with scipy for 1 to 5 degrees of freedom."""
    sp = pytest.importorskip("scipy.stats")
    for df in range(1, 6):
        for x in (0.3, 2.0, 7.5, 25.0):
            assert stats.chi2_sf(x, df) == pytest.approx(sp.chi2.sf(x, df), rel=1e-9)



def test_measures_the_native_engine_does_not_take_are_said_so() -> None:
    """Games without a score track (the native engine's) give None for the track's measures, and the lab
    prints "not measured" in their rows, never a 0."""
    extra = GameExtra(100, (0, 0), (0, 0), (), (), (), ())
    games = [([50, 40], [[50], [40]], [0], extra)] * 3
    q = quality_series(games)
    assert q["lead changes"] is None and q["winning margin"] == [10.0] * 3
    side = lab.Side(SCOTLAND, SCOTLAND_BOARD, load_ruleset(SCOTLAND, SCOTLAND_BOARD)[0], games)
    rows = {r["metric"]: r for r in lab._game_rows(side, side, 2, "t")}
    assert rows["lead changes"]["test"] == lab.NATIVE_NOTE and rows["lead changes"]["base"] is None


def test_the_seat_advantage_difference_is_a_paired_bootstrap() -> None:
    """The same games on both sides: a difference of exactly 0 with p 1; a clear difference: an interval
    that excludes 0 and a small p; the same seed gives the same answer."""
    same = stats.paired_bootstrap(lambda idx: (float(len(idx)), float(len(idx))), 50)
    assert same == (1.0, (0.0, 0.0))
    xs = [float(i % 7) for i in range(200)]

    def shifted(idx: Sequence[int]) -> tuple[float, float]:
        return sum(xs[i] for i in idx) / len(idx), sum(xs[i] + 1 for i in idx) / len(idx)

    p, (lo, hi) = stats.paired_bootstrap(shifted, len(xs))
    assert p == 0.0 and lo == pytest.approx(1.0) and hi == pytest.approx(1.0)
    assert stats.paired_bootstrap(shifted, len(xs), seed=4) == stats.paired_bootstrap(shifted, len(xs), seed=4)
