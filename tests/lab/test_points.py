"""The balance lab answers "what does my change do?" in points (issue 23 item 1): each category's points
a game, per player and per seat, before the shares; a category of one ruleset alone is a row of its own.

Seeded and small: the variants in tests/lab/variants/ against Scotland, a hundred-odd random games each.
Random seats make the same choices in both rulesets until the rules make the positions differ, so an end
rule or a payout that no random choice reads gives per-game differences without noise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_helpers import (
    NEGATIVE_ZERO,
    VARIANTS,
    by_metric,
    first_significant_line,
    run,
)

from rebirth_dsl.play.lab import render
from rebirth_dsl.play.loop import DEFAULT_NAMES


def test_castle_points_are_the_first_significant_row(tmp_path: Path) -> None:
    """Castles 5 -> 4 at the end: the first significant row of the text, the JSON and changes.png is the
    castle points a game, 4/5 of the base's (exactly 1 point less for each castle held, game by game),
    and so is each seat's; the other categories' points do not move."""
    report, rows, plot = run("castles-4", 120)
    first = next(r for r in rows if r["significant"])
    assert (first["group"], first["metric"]) == ("points", "castles")
    assert first["base"]["value"] > 0 and first["diff"] == pytest.approx(-first["base"]["value"] / 5)
    assert first["diff_ci"] == pytest.approx([first["diff"]] * 2)  # the same castles held: no noise at all
    by = by_metric(rows)
    for q in range(3):
        seat = by[f"castles: {q + 1} {DEFAULT_NAMES[q]}"]
        assert seat["significant"] and seat["diff"] == pytest.approx(-seat["base"]["value"] / 5)
    for other in ("farms", "areas", "harbours", "missions"):
        assert by[other]["diff"] == 0 and not by[other]["significant"]
    data = json.loads(json.dumps({**report, "rows": rows}))  # what `--json` prints
    assert next(r["metric"] for r in data["rows"] if r["significant"]) == "castles"
    assert first_significant_line(render(report, rows)).startswith("castles ")
    drawn = [r for r in plot["changes"] if r["significant"]]
    assert drawn[0]["metric"] == "castles" and drawn[0]["panel"] == "points a game"
    pytest.importorskip("matplotlib")
    from rebirth_dsl.present.plots import write_charts

    assert (tmp_path / "changes.png") in write_charts(plot, tmp_path)



def test_a_variant_that_changes_nothing_shows_nothing() -> None:
    """Scotland's own castle points restated: no row is significant, every difference is 0, and neither the
    text nor the JSON shows a negative zero."""
    report, rows, plot = run("restated", 80)
    assert not [r["metric"] for r in rows if r["significant"]]
    assert all(r["diff"] == 0 for r in rows if r["diff"] is not None)
    assert not [r for r in plot["changes"] if r["significant"]]
    text = render(report, rows, all_rows=True)
    out = json.dumps({**report, "rows": rows})
    assert not NEGATIVE_ZERO.search(text) and not NEGATIVE_ZERO.search(out)



def test_a_new_category_is_a_row_of_its_own() -> None:
    """`wells`, which Scotland does not score: points and share rows of their own with 0 on the base side,
    drawn on changes.png."""
    _, rows, plot = run("wells", 40)
    by = by_metric(rows)
    wells = by["wells (variant only)"]
    assert wells["base"]["value"] == 0 and wells["variant"]["value"] > 0 and wells["significant"]
    assert wells["diff"] == wells["variant"]["value"]
    assert by["share of points: wells (variant only)"]["significant"]
    assert "wells (variant only)" in [r["metric"] for r in plot["changes"]]


def test_the_command_line_puts_castle_points_first(run_cli, tmp_path: Path) -> None:
    """`rebirth compare scotland castles-4 --json --plot DIR`: the first significant row of the JSON is the
    castle points a player, and changes.png is written; the text's first significant row is the same."""
    variant = str(VARIANTS / "castles-4.rules")
    code, out, err = run_cli("compare", "scotland", variant, "--games", "30", "--players", "3", "--json", "--plot",
                             tmp_path, "--no-progress")
    assert code == 0, err
    data = json.loads(out)
    first = next(r for r in data["rows"] if r["significant"])
    assert first["metric"] == "castles" and first["diff"] == pytest.approx(-first["base"]["value"] / 5)
    assert (tmp_path / "changes.png").read_bytes()[:4] == b"\x89PNG"
    code, out, err = run_cli("compare", "scotland", variant, "--games", "30", "--players", "3", "--no-progress")
    assert code == 0, err
    assert first_significant_line(out).startswith("castles ")
