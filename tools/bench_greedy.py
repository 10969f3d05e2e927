"""Greedy before and after the fast immediate points, A/B interleaved in one process.

    .venv/bin/python tools/bench_greedy.py --games 20 --players 3 [--rules scotland]

"before" is greedy as it was: one fork-and-place probe per legal hex (`points.probe_points`); "after" is
the agent in play/agents.py. Each game is played by both, alternately, from the same seed (so load on a
shared machine hits both alike), and their records must be identical: the same moves, ties included.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from rebirth_dsl.play.agents import GreedyAgent
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.points import probe_points
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board


class ProbeGreedy(GreedyAgent):
    """Greedy before the fast points: the same choices, each hex scored by a probe on a copy."""

    def choose_tile(self, game: Any, p: int, rng: Any) -> Any:
        """The hand tile whose best placement scores most."""
        best, pick = -1, game.hand[p][0]
        for tile in dict.fromkeys(game.hand[p]):
            hexes, _ = game.legal_hexes(tile[0])
            pts = max((probe_points(game, p, tile, h) for h in hexes), default=0)
            if pts > best:
                best, pick = pts, tile
        return pick

    def choose(self, game: Any, p: int, tile: Any, hexes: list[int], rng: Any) -> int:
        """A hex with the most immediate points."""
        best, picks = -1, []
        for h in hexes:
            pts = probe_points(game, p, tile, h)
            if pts > best:
                best, picks = pts, [h]
            elif pts == best:
                picks.append(h)
        return picks[rng.randrange(len(picks))]


def main(argv: list[str] | None = None) -> int:
    """Time both greedy agents over the same games and check they play them identically."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rs = load_ruleset(*rules_and_board(args.rules, None))[0]
    names = DEFAULT_NAMES[: args.players]
    spent = {"before": 0.0, "after": 0.0}
    make = {"before": ProbeGreedy, "after": GreedyAgent}
    play_game(rs, names, [GreedyAgent() for _ in names], 0)  # warm up: the generated engine, the scorer
    for i in range(args.games):
        seed = args.seed * 1_000_000 + i
        records = {}
        for which in (("before", "after") if i % 2 == 0 else ("after", "before")):
            t = time.perf_counter()
            _, records[which] = play_game(rs, names, [make[which]() for _ in names], seed)
            spent[which] += time.perf_counter() - t
        if records["before"] != records["after"]:
            print(f"game {i}: the two greedy agents played differently", file=sys.stderr)
            return 1
    b, a = args.games / spent["before"], args.games / spent["after"]
    print(f"{args.rules}, {args.players} players, {args.games} games each, identical records: "
          f"before {b:.1f} games/s, after {a:.1f} games/s, {a / b:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
