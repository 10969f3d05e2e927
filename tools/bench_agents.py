"""How fast each agent plays the lab's games: seconds for 1,000 games as `rebirth simulate` plays them.

    nice .venv/bin/python tools/bench_agents.py --players 3 --workers 2 [--rules scotland] [--games 200]

Each agent plays every seat of `--games` games (the same seeds for all) through simulate's own local runner
(run_local: a process pool of `--workers`), and the wall time is scaled to 1,000 games. An agent whose
figure is under 60 s can be a default of `rebirth simulate` and `rebirth compare` (issue 23). Also prints each
agent's seconds per game on one process, so the figures compare when the machine's load changes.
"""

from __future__ import annotations

import argparse
import sys
import time

from rebirth_dsl.play.simulate import Job, run_local
from rebirth_dsl.records.record import load_ruleset_keyed
from rebirth_dsl.records.resources import rules_and_board


def main(argv: list[str] | None = None) -> int:
    """Time each agent and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("agents", nargs="*", default=["random", "greedy", "oneply", "lookahead"])
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=200, help="games per agent (scaled to 1,000)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rules, board = rules_and_board(args.rules, None)
    _, _, content = load_ruleset_keyed(rules, board)
    print(f"{args.rules}, {args.players} players, {args.games} games per agent, {args.workers} workers "
          "(simulate's runner); scaled to 1,000 games:")
    for agent in args.agents:
        job = Job(str(rules.resolve()), str(board.resolve()), args.players, (agent,) * args.players, args.seed, content)
        run_local(job, 2, 1, lambda k: None)  # warm up in this process (the one-process figure)
        t = time.perf_counter()
        run_local(job, max(2, args.games // 10), 1, lambda k: None)
        one = (time.perf_counter() - t) / max(2, args.games // 10)
        t = time.perf_counter()
        run_local(job, args.games, args.workers, lambda k: None)
        wall = time.perf_counter() - t
        per_1000 = wall * 1000 / args.games
        verdict = "under a minute" if per_1000 < 60 else "over a minute"
        print(f"  {agent:<12} {per_1000:7.1f} s per 1,000 games on {args.workers} workers ({verdict}); "
              f"{one * 1000:7.1f} ms a game on one process", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
