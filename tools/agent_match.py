"""A match between two agents: win rate with a 95% interval, and each agent's seconds per move.

    .venv/bin/python tools/agent_match.py ismcts:time=0.03 mc --games 200 --workers 2

Games come in pairs: deal i is played twice, once with each agent in the first seat (two players; with more
players the first agent sits in seat i mod n and the second fills the other seats), so the luck of the deal
and of the seat cancels out. Both agents' decision time (choose_tile + choose + ability answers) is measured
in the same run, on the same machine load, so the two figures are comparable even when the load is not
steady. A shared win counts half.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.play.workers import worker_pool
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board


class Timed:
    """An agent with a stopwatch: the time of every decision it makes, and how many moves it chose."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0
        self.moves = 0
        if hasattr(agent, "choose_tile"):
            self.choose_tile = self._choose_tile
        if hasattr(agent, "answer"):
            self.answer = self._answer

    def _choose_tile(self, *args: Any) -> Any:
        t = time.perf_counter()
        try:
            return self.agent.choose_tile(*args)
        finally:
            self.seconds += time.perf_counter() - t

    def choose(self, *args: Any) -> Any:
        """The wrapped agent's choice, timed; one move counted."""
        t = time.perf_counter()
        try:
            return self.agent.choose(*args)
        finally:
            self.seconds += time.perf_counter() - t
            self.moves += 1

    def _answer(self, *args: Any) -> Any:
        t = time.perf_counter()
        try:
            return self.agent.answer(*args)
        finally:
            self.seconds += time.perf_counter() - t


_RULESETS: dict[tuple[str, str | None], Any] = {}


def _ruleset(rules: str, board: str | None) -> Any:
    key = (rules, board)
    if key not in _RULESETS:
        _RULESETS[key] = load_ruleset(*rules_and_board(rules, board))[0]
    return _RULESETS[key]


def play_pair_game(args: tuple[str, str | None, int, str, str, int, int]) -> dict[str, Any]:
    """Game i: deal `seed * 1_000_000 + i // 2`; agent A in seat (i % players) ... (a worker's task)."""
    rules, board, players, a_spec, b_spec, seed, i = args
    rs = _ruleset(rules, board)
    seat_a = i % players
    specs = [a_spec if q == seat_a else b_spec for q in range(players)]
    agents = [Timed(make_agent(s)) for s in specs]
    deal_seed = seed * 1_000_000 + i // 2
    game, _ = play_game(rs, DEFAULT_NAMES[:players], agents, deal_seed)  # type: ignore[arg-type]
    game.quiet = True
    totals = game.final_scores(game.end_events())
    winners, _ = game.winners(totals)
    a_time = sum(ag.seconds for q, ag in enumerate(agents) if q == seat_a)
    a_moves = sum(ag.moves for q, ag in enumerate(agents) if q == seat_a)
    b_time = sum(ag.seconds for q, ag in enumerate(agents) if q != seat_a)
    b_moves = sum(ag.moves for q, ag in enumerate(agents) if q != seat_a)
    share = (1.0 / len(winners)) if seat_a in winners else 0.0
    best_b = max(s for q, s in enumerate(totals) if q != seat_a)
    return {"i": i, "seat_a": seat_a, "totals": totals, "winners": winners, "a_win": share,
            "margin": totals[seat_a] - best_b, "a_time": a_time, "a_moves": a_moves, "b_time": b_time,
            "b_moves": b_moves}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def summary(results: list[dict[str, Any]], a: str, b: str, players: int) -> dict[str, Any]:
    """Win rate of A with its interval, by seat, the mean margin, and both agents' seconds per move."""
    n = len(results)
    wins = sum(r["a_win"] for r in results)
    lo, hi = wilson(wins, n)
    margins = [r["margin"] for r in results]
    mean_m = sum(margins) / n
    sd_m = math.sqrt(sum((m - mean_m) ** 2 for m in margins) / max(1, n - 1))
    by_seat = {}
    for s in range(players):
        rs = [r for r in results if r["seat_a"] == s]
        if rs:
            w = sum(r["a_win"] for r in rs)
            by_seat[s + 1] = {"games": len(rs), "win_rate": w / len(rs), "ci95": wilson(w, len(rs))}
    a_spm = sum(r["a_time"] for r in results) / max(1, sum(r["a_moves"] for r in results))
    b_spm = sum(r["b_time"] for r in results) / max(1, sum(r["b_moves"] for r in results))
    return {"a": a, "b": b, "games": n, "a_win_rate": wins / n, "ci95": (lo, hi), "by_seat_of_a": by_seat,
            "a_margin_mean": mean_m, "a_margin_ci95": (mean_m - 1.96 * sd_m / math.sqrt(n),
                                                       mean_m + 1.96 * sd_m / math.sqrt(n)),
            "a_seconds_per_move": a_spm, "b_seconds_per_move": b_spm}



def main(argv: list[str] | None = None) -> int:
    """Run the match and print (and optionally write) the summary."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="agent A, with options: ismcts:time=0.03")
    ap.add_argument("b", help="agent B, e.g. mc")
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--board", default=None)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=200, help="an even number keeps the seats balanced")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="also write the summary and every game here")
    args = ap.parse_args(argv)
    for spec in (args.a, args.b):
        make_agent(spec)  # a misspelt agent or option fails now, not in a worker
    tasks = [(args.rules, args.board, args.players, args.a, args.b, args.seed, i) for i in range(args.games)]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    if args.workers <= 1:
        for t in tasks:
            results.append(play_pair_game(t))
            _progress(results, start)
    else:
        with worker_pool(args.workers) as pool:
            for r in pool.imap_unordered(play_pair_game, tasks):
                results.append(r)
                _progress(results, start)
    results.sort(key=lambda r: r["i"])
    s = summary(results, args.a, args.b, args.players)
    s["seconds"] = time.perf_counter() - start
    s["command"] = " ".join(sys.argv)
    print(f"\n{args.a} vs {args.b}: {s['games']} games of {args.rules}, {args.players} players, seed {args.seed}, "
          f"{args.workers} workers, {s['seconds']:.0f} s")
    lo, hi = s["ci95"]
    print(f"  {args.a} wins {100 * s['a_win_rate']:.1f}% [95% {100 * lo:.1f}, {100 * hi:.1f}]"
          f" (shared wins count half)")
    for seat, v in s["by_seat_of_a"].items():
        print(f"    in seat {seat}: {100 * v['win_rate']:.1f}% of {v['games']} "
              f"[{100 * v['ci95'][0]:.1f}, {100 * v['ci95'][1]:.1f}]")
    mlo, mhi = s["a_margin_ci95"]
    print(f"  mean margin of {args.a} over the best other: {s['a_margin_mean']:+.1f} [{mlo:+.1f}, {mhi:+.1f}]")
    print(f"  seconds per move: {args.a} {s['a_seconds_per_move']:.4f}, {args.b} {s['b_seconds_per_move']:.4f}"
          f" (ratio {s['a_seconds_per_move'] / max(1e-12, s['b_seconds_per_move']):.2f})")
    if args.json:
        args.json.write_text(json.dumps({"summary": s, "games": results}, indent=1))
    return 0


def _progress(results: list[dict[str, Any]], start: float) -> None:
    n = len(results)
    if n % 10 == 0:
        w = sum(r["a_win"] for r in results)
        a_spm = sum(r["a_time"] for r in results) / max(1, sum(r["a_moves"] for r in results))
        b_spm = sum(r["b_time"] for r in results) / max(1, sum(r["b_moves"] for r in results))
        print(f"{n} games, A {100 * w / n:.1f}%, s/move A {a_spm:.4f} B {b_spm:.4f}, "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
