"""Intervals within the range of what they measure, and no negative zero (issue 23 item 7): a rate and
its interval in [0, 100] %, a difference of rates in [-100, +100] points, a count's interval at 0 or
above; neither the text nor the JSON of `rebirth compare` shows "-0.00"."""

from __future__ import annotations

import json

from lab_helpers import NEGATIVE_ZERO, run

from rebirth_dsl.play import lab
from rebirth_dsl.play.lab import render


def test_rates_and_counts_stay_in_their_range() -> None:
    """Six games of a variant that moves area points between places: wide intervals, each clipped."""
    _, rows, _ = run("area-places", 6, 1)
    for r in rows:
        sides = [r[k] for k in ("base", "variant") if r[k] is not None]
        if r["unit"] == "%":
            assert all(0 <= x <= 1 for b in sides for x in [b["value"], *b["ci"]]), r
            assert r["diff_ci"] is None or -1 <= r["diff_ci"][0] <= r["diff_ci"][1] <= 1, r
        if r["group"] == "per game":
            assert all(x >= 0 for b in sides for x in b["ci"]), r


def test_a_row_is_clipped_to_its_bounds() -> None:
    """A win-rate difference of +40 [-30, +130] points reads +40 [-30, +100]; a count's interval that
    reaches below 0 starts at 0, while the difference of two counts may be negative."""
    rate = lab._row("seats", "win rate", (0.5, (0.2, 0.8)), (0.9, (0.6, 1.0)), 0.4, (-0.3, 1.3), "McNemar", 0.1, "%",
                    lab.RATE)
    assert rate["diff_ci"] == [-0.3, 1.0]
    count = lab._row("per game", "fallbacks", (0.01, (-0.02, 0.04)), (0.0, (0.0, 0.0)), -0.01, (-0.05, 0.03),
                     "paired t-test", 0.5, "", lab.COUNT)
    assert count["base"]["ci"] == [0.0, 0.04] and count["diff_ci"] == [-0.05, 0.03]


def test_no_negative_zero_in_text_or_json() -> None:
    """Values that round to zero print without a minus sign; JSON holds no -0.0."""
    assert lab._fmt_diff({"diff": -0.001, "diff_ci": [-0.004, 0.002], "unit": ""}) == "+0.00 [+0.00, +0.00]"
    assert lab._fmt({"value": -0.0001, "ci": [-0.0004, 0.0]}, "") == "0.00 [0.00, 0.00]"
    report, rows, _ = run("restated", 30, 2)
    assert not NEGATIVE_ZERO.search(render(report, rows, all_rows=True))
    assert not NEGATIVE_ZERO.search(json.dumps({**report, "rows": rows}))
    assert all(r["diff"] == 0 for r in rows if r["diff"] is not None)
