"""Game speed of this tree against a kept copy of the engine at another commit, on one machine.

    python tools/bench_against.py 266f776 [--players 2 3 4] [--rounds 7] [--seconds 1.5] [--rules scotland]
    python tools/bench_against.py ca33853 --engine native|greedy [--players 3] [--rounds 3]
    python tools/bench_against.py 266f776 --callgrind [--games 300]
    python tools/bench_against.py . --base-rules scotland --rules ireland [--callgrind]

The second form compares two rulesets of this tree: REV "." is this tree itself (nothing extracted), and
--base-rules is what the base side plays (default: the same as --rules). The ratio printed is then, for
example, Ireland's rate as a fraction of Scotland's.

`git archive REV` is extracted into a temporary folder. Each measurement is a fresh Python process with
PYTHONPATH set to its own tree (the kept copy or this one), a private cache folder of its own side (so a
native library or cache entry built by one tree is never loaded by the other) and the same code: games of
N players of the bundled rules on their board, played by --engine:

- python (the default): random games of the generated Python engine, each with end scoring and the
  winner, exactly what `python -m rebirth_dsl.bench` measures (`random_game`, then
  `g.winners(g.final_scores(g.end_events()))`);
- native: random games of the native C engine (rebirth_dsl.native, what `rebirth simulate --backend native`
  plays), their scores, breakdowns and winners read back into Python in batches, exactly what the bench's
  native line measures (`NativeEngine.results`); it needs the extra [native] and a C compiler;
- greedy: games of the greedy agent in every seat (`play_game` with `GreedyAgent`, as
  tools/bench_greedy.py plays them), each with end scoring and the winner.

The two sides run interleaved, round after round, so the load of a shared machine falls on both alike;
the median games/s of each side and their ratio are printed per player count.

With --callgrind, each side instead plays a fixed number of games under `valgrind --tool=callgrind`, once
with all the games and once with a fifth of them; the difference divided by the games between is the
instructions per game (setup, imports, the engine's generation and any lazy first-use work cancel out). Deterministic, but slow (minutes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run in each tree: imports whichever layout the tree has (flat before the package split, layered after),
# checks the import really came from that tree, then times games or plays a fixed number of them.
WORKER = r"""
import sys, time
from pathlib import Path
root, rules, n, mode, amount = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
engine = sys.argv[6]
try:
    from rebirth_dsl.records.record import load_ruleset
    try:
        from rebirth_dsl.pyengine.fast import random_game
    except ImportError:  # before the generated engine left runtime/
        from rebirth_dsl.runtime.fast import random_game
except ImportError:
    from rebirth_dsl.record import load_ruleset
    from rebirth_dsl.fast import random_game
import rebirth_dsl
if Path(rebirth_dsl.__file__).resolve().parent.parent != root.resolve():
    sys.exit(f"imported {rebirth_dsl.__file__}, not the tree {root}")
rs, _ = load_ruleset(root / "rules" / f"{rules}.rules", root / "boards" / f"{rules}.json")
names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fin"][:n]
step = 1  # games per call of play(seed, count)
if engine == "native":
    from rebirth_dsl.native import engine as native_engine
    eng = native_engine(rs)  # generated, compiled into this side's own cache, loaded (or a notice and None)
    if eng is None:
        sys.exit("the native engine cannot run here (the notice above says why)")
    step = 200  # a batch per call, as the bench's native figure reads them (results back into Python)

    def play(seed, count):
        eng.results(n, seed, count)
elif engine == "greedy":
    try:
        from rebirth_dsl.play.agents import GreedyAgent
        from rebirth_dsl.play.loop import play_game
    except ImportError:
        from rebirth_dsl.agents import GreedyAgent
        from rebirth_dsl.play import play_game

    def play(seed, count):
        for s in range(seed, seed + count):
            g, _ = play_game(rs, names, [GreedyAgent() for _ in names], s)
            g.winners(g.final_scores(g.end_events()))
else:
    def play(seed, count):
        for s in range(seed, seed + count):
            g, _ = random_game(rs, names, s)
            g.winners(g.final_scores(g.end_events()))
play(0, step)  # warm up: generates the specialised engine, imports what the end needs
games = 0
if mode == "time":
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < amount:
        play(games, step)
        games += step
    print(games / (time.perf_counter() - t0))
else:
    while games < amount:
        count = min(step, int(amount) - games)
        play(games, count)
        games += count
"""


def extract(rev: str, into: Path) -> Path:
    """`git archive REV` of this repository, unpacked into a folder; returns the folder."""
    tar = into / "tree.tar"
    with open(tar, "wb") as f:
        subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, stdout=f)
    out = into / "tree"
    out.mkdir()
    with tarfile.open(tar) as tf:
        tf.extractall(out, filter="data")
    return out


ENGINES = {"python": "random games of the Python engine", "native": "random games of the native C engine",
           "greedy": "games of the greedy agent in every seat"}


def run(tree: Path, rules: str, n: int, mode: str, amount: float, engine: str, cache: Path,
        prefix: list[str] | None = None) -> str:
    """One fresh process of the worker in `tree`, with the side's own cache folder; its standard output."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", "REBIRTH_CACHE": str(cache)}
    cmd = [*(prefix or []), sys.executable, "-c", WORKER, str(tree), rules, str(n), mode, str(amount), engine]
    res = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"worker failed in {tree} ({n} players):\n{res.stderr}")
    return res.stdout


def instructions(tree: Path, rules: str, n: int, games: int, engine: str, cache: Path, tmp: Path) -> int:
    """Instructions executed by the worker playing `games` games, under callgrind."""
    out = tmp / f"cg.{os.getpid()}.{n}.{games}.{tree.name}"
    run(tree, rules, n, "games", games, engine, cache,
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    sys.exit(f"no totals in {out}")


def rate(x: float) -> str:
    """Games per second, with a decimal where they are few (greedy plays tens of games a second)."""
    return f"{x:8,.0f}" if x >= 100 else f"{x:8.1f}"


def main(argv: list[str] | None = None) -> int:
    """Print the median games/s (or instructions per game) of both trees and their ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="the commit of the kept copy, e.g. 266f776, or . for this tree")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds per player count")
    ap.add_argument("--seconds", type=float, default=1.5, help="timed play per process")
    ap.add_argument("--rules", default="scotland", help="a bundled ruleset present in both trees (same-named board)")
    ap.add_argument("--base-rules", help="the ruleset the base side plays (default: --rules)")
    ap.add_argument("--engine", choices=list(ENGINES), default="python",
                    help="what plays the games: the Python engine's random games (default), the native C "
                         "engine's random games, or the greedy agent in every seat")
    ap.add_argument("--callgrind", action="store_true", help="instructions per game instead of games/s")
    ap.add_argument("--games", type=int, default=300, help="games per callgrind run")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-against-") as tmp_:
        tmp = Path(tmp_)
        base_rules = args.base_rules or args.rules
        base = args.rev if not args.base_rules else base_rules if args.rev == "." else f"{args.rev} {base_rules}"
        this = "this tree" if not args.base_rules else args.rules if args.rev == "." else f"this tree {args.rules}"
        # label -> (tree, rules, cache folder); the base label always comes first
        sides = {base: (ROOT if args.rev == "." else extract(args.rev, tmp), base_rules, tmp / "cache-base"),
                 this: (ROOT, args.rules, tmp / "cache-this")}
        # byte-compiles the fresh copy first (and builds the native library into the side's cache), so no
        # measured run pays for that
        for tree, rules, cache in sides.values():
            run(tree, rules, args.players[0], "games", 1, args.engine, cache)
        print(f"{ENGINES[args.engine]} with end scoring and the winner, Python {sys.version.split()[0]}")
        for n in args.players:
            if args.callgrind:
                per = {}
                for label, (tree, rules, cache) in sides.items():
                    few = args.games // 5  # the base run plays some games too: any lazy work is in both
                    full = instructions(tree, rules, n, args.games, args.engine, cache, tmp)
                    start = instructions(tree, rules, n, few, args.engine, cache, tmp)
                    per[label] = (full - start) / (args.games - few)
                print(f"  {n} players: {base} {per[base] / 1e6:.3f}M instr/game, "
                      f"{this} {per[this] / 1e6:.3f}M, ratio {per[base] / per[this]:.2f}x "
                      f"(callgrind, {args.games - few} games)")
                continue
            rates: dict[str, list[float]] = {label: [] for label in sides}
            for i in range(args.rounds):
                order = list(sides.items()) if i % 2 == 0 else list(reversed(sides.items()))
                for label, (tree, rules, cache) in order:
                    rates[label].append(float(run(tree, rules, n, "time", args.seconds, args.engine, cache)))
            a, b = statistics.median(rates[base]), statistics.median(rates[this])
            print(f"  {n} players: {base} {rate(a)} games/s, {this} {rate(b)} games/s, ratio {b / a:.2f}x "
                  f"(median of {args.rounds} interleaved rounds of {args.seconds:g} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
