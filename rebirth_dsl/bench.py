"""`python -m rebirth_dsl.bench`: the engine's speed, printed as figures (never asserted in tests).

`--against-limit` instead measures both engines against hand-written ones (bench/against_limit.py, in a
checkout only: the hand-written engines are benchmarks, not part of the package).

Prints, for each bundled ruleset (or the one named): full random games per second for each player count
on one process (with end-of-game scoring and the winner) and microseconds per move; the time to compile
the rules; and the whole-process time of `rebirth eval` on a bundled example. Runs from an installed
package in any folder: every file comes from the bundled games.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.lang.parser import lark_parser, load_rules
from rebirth_dsl.native import engine as native_engine
from rebirth_dsl.native import speed as native_speed
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.pyengine.fast import generate, random_game
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import bundled, default_rules, find, name_of, rules_and_board


def games_per_second(rs: Ruleset, n: int, seconds: float) -> tuple[float, float]:
    """Random games per second and microseconds per move, over about `seconds` of play."""
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
    lark_parser()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        rs = compile_rules(load_rules(rules), load_board(board))
        generate(rs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


@dataclass(frozen=True)
class StartUp:
    """Medians of interleaved whole-process runs: `rebirth eval EXAMPLE` against a bare `python -c pass`."""

    runs: int
    eval_wall: float  # seconds
    eval_cpu: float  # user + system seconds of the child
    bare_wall: float
    bare_cpu: float


def _children_cpu() -> float:
    """User + system seconds of this process's finished children (NaN where the system does not say: Windows)."""
    try:
        import resource
    except ImportError:
        return float("nan")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one process run to its end."""
    before = _children_cpu()
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=cwd, env=env)
    wall = time.perf_counter() - t0
    return wall, _children_cpu() - before


def eval_process_time(example: Path, repeat: int = 20) -> StartUp:
    """Medians of `repeat` whole `python -m rebirth_dsl eval EXAMPLE` processes and as many bare `python -c
    pass`, interleaved (the machine's load of the moment falls on both alike), run from an empty folder
    after one run of each that fills the caches. Python may keep the modules' bytecode, as in an installed
    package (pip compiles it at install): a PYTHONDONTWRITEBYTECODE=1 in the environment would have a
    checkout compile its source again in every run, which no installed copy does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmds = {"eval": [sys.executable, "-m", "rebirth_dsl", "eval", str(example)], "bare": [sys.executable, "-c", "pass"]}
    times: dict[str, list[tuple[float, float]]] = {"eval": [], "bare": []}
    with tempfile.TemporaryDirectory() as cwd:
        for cmd in cmds.values():
            subprocess.run(cmd, check=True, capture_output=True, cwd=cwd, env=env)
        for i in range(repeat):
            # each goes first in every other round: neither always runs just after the other
            for name in ("eval", "bare") if i % 2 == 0 else ("bare", "eval"):
                times[name].append(_timed(cmds[name], cwd, env))
    med = {name: [statistics.median(t[k] for t in ts) for k in (0, 1)] for name, ts in times.items()}
    return StartUp(repeat, med["eval"][0], med["eval"][1], med["bare"][0], med["bare"][1])


def _print_startup(example: Path, repeat: int) -> None:
    """The start-up figures: `rebirth eval EXAMPLE` against bare Python, and the ratio of the two."""
    s = eval_process_time(example, repeat)
    print(f"`rebirth eval {example.name}` whole process, median of {s.runs} runs interleaved with `python -c pass` "
          "(caches warm, bytecode kept as installed):")
    print(f"  eval  {s.eval_wall * 1000:6.1f} ms wall  {s.eval_cpu * 1000:6.1f} ms CPU")
    print(f"  bare  {s.bare_wall * 1000:6.1f} ms wall  {s.bare_cpu * 1000:6.1f} ms CPU")
    print(f"  ratio {s.eval_wall / s.bare_wall:6.2f}x wall    {s.eval_cpu / max(s.bare_cpu, 1e-9):6.2f}x CPU")


def _example_of(rules: Path) -> Path | None:
    """The first bundled example played with this ruleset."""
    name = name_of("rules", rules)
    for path in bundled("examples").values():
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("rules") == name:
                return path
        except (OSError, ValueError):
            continue
    return None


def _against_limit(args: argparse.Namespace) -> int:
    """--against-limit: run the checkout's bench/against_limit.py, which holds the hand-written engines' own
    game (they are written for one bundled ruleset, so they live beside the package, not in it)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "bench" / "against_limit.py"
    spec = importlib.util.spec_from_file_location("rebirth_bench_against_limit", path)
    if not path.is_file() or spec is None or spec.loader is None:
        print(f"--against-limit needs a checkout of rebirth-dsl: the hand-written engines are in bench/, not "
              f"installed ({path} is missing)", file=sys.stderr)
        return 2
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return int(mod.against_limit(args.slice, args.rounds, not args.no_callgrind, args.callgrind_games))


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    ap = argparse.ArgumentParser(prog="python -m rebirth_dsl.bench")
    ap.add_argument("--rules", action="append", help="a ruleset by name or path (repeatable; default: every "
                    "bundled ruleset that is not a variant)")
    ap.add_argument("--board", default=None, help="a board by name or path (default: the ruleset's own)")
    ap.add_argument("--seconds", type=float, default=3.0, help="time spent per player count")
    ap.add_argument("--example", default=None, help="the record `rebirth eval` is timed on (default: a bundled "
                    "example of the default ruleset)")
    ap.add_argument("--against-limit", action="store_true", help="instead: the native and generated Python "
                    "engines against hand-written ones (bench/, a checkout only), interleaved on one "
                    "core, with instructions per game under callgrind when valgrind is installed")
    ap.add_argument("--rounds", type=int, default=5, help="with --against-limit: interleaved rounds")
    ap.add_argument("--slice", type=float, default=0.3, help="with --against-limit: seconds per engine, player "
                    "count and round")
    ap.add_argument("--no-callgrind", action="store_true", help="with --against-limit: skip callgrind")
    ap.add_argument("--callgrind-games", type=int, default=1000, help="with --against-limit: games under callgrind")
    ap.add_argument("--startup", action="store_true", help="only the start-up figures: `rebirth eval EXAMPLE` "
                    "against a bare `python -c pass`, interleaved runs, wall and CPU medians")
    ap.add_argument("--runs", type=int, default=20, help="runs of each process for the start-up figures (default 20)")
    args = ap.parse_args(argv)
    if args.against_limit:
        return _against_limit(args)
    example = find("examples", args.example) if args.example else _example_of(default_rules())
    if args.startup:
        if example is None:
            print("--startup: no bundled example of the default ruleset; name one with --example", file=sys.stderr)
            return 2
        _print_startup(example, max(1, args.runs))
        return 0
    names = args.rules or [n for n in bundled("rules") if "/" not in n]
    print(f"rebirth-dsl benchmark: Python {sys.version.split()[0]}, one process")
    for name in names:
        rules, board = rules_and_board(name, args.board)
        rs, _ = load_ruleset(rules, board)
        print(f"{rs.title} on {board.name}:")
        eng = native_engine(rs)  # None, after a one-line notice, without the extra [native] or a C compiler
        lo, hi = rs.players
        for n in range(lo, min(hi, len(DEFAULT_NAMES)) + 1):
            gps, us = games_per_second(rs, n, args.seconds)
            print(f"  {n} players: {gps:8,.0f} random games/s  {us:6.2f} us/move (incl. setup, end scoring, winner)")
            if eng is not None:  # right after the Python figure: the two share the machine's load of the moment
                ngps, nus = native_speed.games_per_second(eng, n, args.seconds)
                print(f"  {n} players: {ngps:8,.0f} random games/s  {nus:6.2f} us/move native, "
                      f"{ngps / gps:.0f}x (results read back into Python)")
        print(f"  compile {rules.name} + board + fast engine: {compile_time(rules, board) * 1000:.1f} ms")
        if eng is not None:
            fu = native_speed.first_use(rs)
            print(f"  native engine: C generated in {fu.generate * 1000:.0f} ms, compiled on first use in "
                  f"{fu.compile:.2f} s ({fu.compiler}), then loaded from the cache in {fu.cached * 1000:.1f} ms")
    if example is not None:
        _print_startup(example, max(1, args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
