"""`python -m rebirth_dsl.bench`: the engine's speed, printed as figures (never asserted in tests).

Prints: full random games per second for 2, 3 and 4 players on one process (with end-of-game scoring
and the winner), microseconds per move, the time to compile the rules, and the whole-process time
of `rebirth eval` on the bundled example.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def games_per_second(rs: object, n: int, seconds: float) -> tuple[float, float]:
    """Random games per second and microseconds per move, over about `seconds` of play."""
    from .fast import random_game
    from .play import DEFAULT_NAMES

    names = DEFAULT_NAMES[:n]
    random_game(rs, names, 0)  # warm up (generates the specialised engine)
    games = moves = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        g, _ = random_game(rs, names, games)
        g.winners(g.final_scores(g.end_events()))
        games += 1
        moves += g.move_index
    dt = time.perf_counter() - t0
    return games / dt, dt / moves * 1e6


def compile_time(rules: Path, board: Path, repeat: int = 5) -> float:
    """Median seconds to parse, check and compile the rules against the board (parser already built)."""
    from .board import load_board
    from .compiler import compile_rules
    from .fast import generate
    from .parser import lark_parser, load_rules

    lark_parser()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        rs = compile_rules(load_rules(rules), load_board(board))
        generate(rs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def eval_process_time(example: Path, repeat: int = 5) -> float:
    """Median wall time of a whole `python -m rebirth_dsl eval EXAMPLE` process."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rebirth_dsl", "eval", str(example)], check=True,
                       capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    ap = argparse.ArgumentParser(prog="python -m rebirth_dsl.bench")
    ap.add_argument("--rules", default=str(ROOT / "rules" / "scotland.rules"))
    ap.add_argument("--board", default=str(ROOT / "boards" / "scotland.json"))
    ap.add_argument("--seconds", type=float, default=3.0, help="time spent per player count")
    ap.add_argument("--example", default=str(ROOT / "examples" / "scotland-3p.json"))
    args = ap.parse_args(argv)
    from .record import load_ruleset

    rs, _ = load_ruleset(Path(args.rules), Path(args.board))
    print(f"rebirth-dsl benchmark: {rs.title} on {Path(args.board).name}, Python {sys.version.split()[0]}, "
          "one process")
    for n in (2, 3, 4):
        gps, us = games_per_second(rs, n, args.seconds)
        print(f"  {n} players: {gps:8,.0f} random games/s  {us:6.2f} us/move (incl. setup, end scoring, winner)")
    print(f"  compile {Path(args.rules).name} + board + fast engine: {compile_time(Path(args.rules), Path(args.board)) * 1000:.1f} ms")
    print(f"  `rebirth eval {Path(args.example).name}` whole process: {eval_process_time(Path(args.example)) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
