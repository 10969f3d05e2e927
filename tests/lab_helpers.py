"""The balance lab's tests' shared runs: a variant of tests/lab/variants/ against Scotland on its board,
random seats (they make the same choices in both rulesets until the rules make the positions differ), and
the readers of the report they check."""

from __future__ import annotations

import re
from typing import Any

from conftest import BOARDS, RULES, TESTS

from rebirth_dsl.play.lab import compare, plot_data

SCOTLAND = RULES / "scotland.rules"
SCOTLAND_BOARD = BOARDS / "scotland.json"
VARIANTS = TESTS / "lab" / "variants"
NEGATIVE_ZERO = re.compile(r"-0(\.0+)?(?![0-9.])")  # "-0", "-0.0", "-0.00" as a whole number


def run(variant: str, games: int, seed: int = 3, players: int = 3) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """The report, its rows and the chart data of Scotland against the variant, seeded."""
    report, rows, base, var = compare(SCOTLAND, SCOTLAND_BOARD, VARIANTS / f"{variant}.rules", SCOTLAND_BOARD, games,
                                      players, ["random"] * players, seed)
    return report, rows, plot_data(report, rows, base, var)


def by_metric(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The rows by their metric's name."""
    return {r["metric"]: r for r in rows}


def first_significant_line(text: str) -> str:
    """The text table's first row marked significant."""
    return next(line for line in text.splitlines() if line.rstrip().endswith("*"))
