"""How fast each agent plays the lab's games: seconds for 1,000 games as `rebirth simulate` plays them.

    nice .venv/bin/python tools/bench_agents.py --players 3 --workers 2 [--rules scotland] [--games 200]
    nice .venv/bin/python tools/bench_agents.py greedy oneply --interleave --games 100
    nice .venv/bin/python tools/bench_agents.py greedy oneply --callgrind --games 50

Each agent plays every seat of `--games` games (the same seeds for all) through simulate's own local runner
(run_local: a process pool of `--workers`), and the wall time is scaled to 1,000 games. An agent whose
figure is under 60 s can be a default of `rebirth simulate` and `rebirth compare` (issue 23). Also prints each
agent's seconds per game on one process, so the figures compare when the machine's load changes.

--interleave: seconds a game on this one process instead, the agents taking turns game by game (game i
played by every agent, from the same seed, before game i+1), so the load of a shared machine falls on all
of them alike; each game is the lab's (play/tally.play_tallied, quiet, as simulate's workers play it).

--callgrind: instructions a game instead (valgrind's callgrind; deterministic, so figures of two trees
compare exactly): per agent, a fresh process plays `--games` games and another a fifth of them, and the
difference divided by the games between is the instructions a game (imports, compiling the ruleset and
any first-use work cancel out).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.simulate import Job, game_seed, run_local
from rebirth_dsl.play.tally import play_tallied
from rebirth_dsl.records.record import load_ruleset_keyed
from rebirth_dsl.records.resources import rules_and_board

ROOT = Path(__file__).resolve().parents[1]

# run under callgrind: the lab's games of one agent in every seat, from seeds 0..games-1
WORKER = r"""
import sys
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.simulate import game_seed
from rebirth_dsl.play.tally import play_tallied
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
rules, players, agent, games, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rs = load_ruleset(*rules_and_board(rules, None))[0]
names = DEFAULT_NAMES[:players]
play_tallied(rs, names, (agent,) * players, game_seed(seed + 1, 0))  # warm up: generated engine, tables
for i in range(games):
    play_tallied(rs, names, (agent,) * players, game_seed(seed, i))
"""


def _env(tmp: Path) -> dict[str, str]:
    # a cache folder of the run's own: the shared one may be rewritten by other trees' processes meanwhile,
    # and a measured run would pay for compiling the ruleset again
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0", "REBIRTH_CACHE": str(tmp / "cache")}


def instructions(rules: str, players: int, agent: str, games: int, seed: int, tmp: Path) -> int:
    """Instructions a fresh process executes playing `games` lab games of the agent, under callgrind."""
    out = tmp / f"cg.{agent}.{games}"
    env = _env(tmp)
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", WORKER,
           rules, str(players), agent, str(games), str(seed)]
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{agent} under callgrind failed:\n{res.stderr[-2000:]}")
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    sys.exit(f"no totals in {out}")


def callgrind(args: argparse.Namespace) -> int:
    """Print each agent's instructions a game (callgrind)."""
    few = max(1, args.games // 5)
    if args.games <= few:
        sys.exit("--callgrind needs --games of 2 or more")
    print(f"{args.rules}, {args.players} players, callgrind instructions a lab game "
          f"({args.games} - {few} games, seed {args.seed}):")
    with tempfile.TemporaryDirectory(prefix="bench-agents-") as tmp:
        per = {}
        for agent in args.agents:
            # a first process outside callgrind byte-compiles what an edit left stale and fills the caches,
            # so neither measured run pays for that
            subprocess.run([sys.executable, "-c", WORKER, args.rules, str(args.players), agent, "1", str(args.seed)],
                           cwd=ROOT, env=_env(Path(tmp)), check=True, capture_output=True)
            full = instructions(args.rules, args.players, agent, args.games, args.seed, Path(tmp))
            start = instructions(args.rules, args.players, agent, few, args.seed, Path(tmp))
            per[agent] = (full - start) / (args.games - few)
            ratio = f" ({per[agent] / per[args.agents[0]]:.2f}x {args.agents[0]})" if agent != args.agents[0] else ""
            print(f"  {agent:<12} {per[agent] / 1e6:8.2f} M instructions a game{ratio}", flush=True)
    return 0


def interleave(args: argparse.Namespace) -> int:
    """Print each agent's seconds a game on this process, the agents alternating game by game."""
    rs = load_ruleset_keyed(*rules_and_board(args.rules, None))[0]
    names = DEFAULT_NAMES[: args.players]
    spent = dict.fromkeys(args.agents, 0.0)
    for agent in args.agents:  # warm up: the generated engine, the agents' tables
        play_tallied(rs, names, (agent,) * args.players, game_seed(args.seed + 1, 0))
    for i in range(args.games):
        order = args.agents if i % 2 == 0 else list(reversed(args.agents))
        for agent in order:
            t = time.perf_counter()
            play_tallied(rs, names, (agent,) * args.players, game_seed(args.seed, i))
            spent[agent] += time.perf_counter() - t
    first = args.agents[0]
    print(f"{args.rules}, {args.players} players, {args.games} lab games per agent, one process, interleaved:")
    for agent in args.agents:
        ratio = f" ({spent[agent] / spent[first]:.2f}x {first})" if agent != first else ""
        print(f"  {agent:<12} {spent[agent] / args.games * 1000:7.2f} ms a game{ratio}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Time each agent and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("agents", nargs="*", default=["random", "greedy", "oneply", "lookahead"])
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=200, help="games per agent (scaled to 1,000)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--interleave", action="store_true", help="seconds a game on one process, agents alternating")
    ap.add_argument("--callgrind", action="store_true", help="instructions a game (valgrind's callgrind)")
    args = ap.parse_args(argv)
    if args.games < 1:
        sys.exit("--games: at least 1")
    if args.callgrind:
        return callgrind(args)
    if args.interleave:
        return interleave(args)
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
