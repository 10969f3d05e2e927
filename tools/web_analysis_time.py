"""How long the web app's analyses take with their budgets (rebirth_dsl/web/analysis.py): a seat's hint and
forecast at a few points of the bundled games, and a finished game's review, each timed as the server
runs it (one thread). The budgets aim at about a second, two at most, on one core of a shared machine.

    .venv/bin/python tools/web_analysis_time.py                    # every bundled example, moves 0, 20, 40
    .venv/bin/python tools/web_analysis_time.py --at 0 --at 30 --repeat 3

Prints one line per position and analysis: seconds (the best of --repeat runs), and the budget used.
"""

from __future__ import annotations

import argparse
import json
import time

from rebirth_dsl.play.forecast import forecast, hint
from rebirth_dsl.play.review import ReviewJob, review
from rebirth_dsl.play.table import table_from_record
from rebirth_dsl.records.resources import bundled
from rebirth_dsl.web import analysis as A


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """The shortest of `repeat` runs, in seconds."""
    out = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def main() -> None:
    """Print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--at", type=int, action="append", help="moves into each example (default 0, 20, 40)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    ats = args.at or [0, 20, 40]
    print(f"hint: {A.HINT_PLAYOUTS} playouts x {A.HINT_WIDTH} moves by {A.HINT_AGENTS}; forecast: "
          f"{A.FORECAST_PLAYOUTS} playouts by {A.FORECAST_AGENTS}; review: {A.REVIEW_PLAYOUTS} playouts x "
          f"{A.REVIEW_WIDTH + 1} moves, random")
    for name, path in bundled("examples").items():
        data = json.loads(path.read_text())
        if data.get("scenario") or "setup" in data and "position" in data["setup"]:
            continue
        for at in ats:
            if at >= len(data["moves"]):
                continue
            g = table_from_record(data, path, at=at, playable=False).game
            th = best(lambda g=g: hint(g, None, None, A.HINT_AGENTS, A.HINT_PLAYOUTS, 0, "auto", width=A.HINT_WIDTH),
                      args.repeat)
            tf = best(lambda g=g: forecast(g, g.turn, A.FORECAST_AGENTS, A.FORECAST_PLAYOUTS, 0, "auto"), args.repeat)
            print(f"{name:24} move {at:3}  hint {th:5.2f} s  forecast {tf:5.2f} s")
        job = ReviewJob(str(path), data, False, None, None, A.REVIEW_PLAYOUTS, A.REVIEW_WIDTH, "random", "auto", 0)
        try:
            tr = best(lambda job=job: review(job, workers=1), args.repeat)
        except Exception as e:  # noqa: BLE001 - a figure missing is said, the others still printed
            print(f"{name:24} review failed: {type(e).__name__}: {e}")
            continue
        print(f"{name:24} review of {len(data['moves'])} moves  {tr:5.2f} s")


if __name__ == "__main__":
    main()
