"""Two rulesets' speed in the native and the generated Python engine, and the second's as a fraction of the
first's (issue 25: Ireland at least 0.7 of Scotland in each engine): random whole games with end scoring and
the winner, timed interleaved on one core and counted under callgrind (deterministic, whatever else the
machine runs).

    python tools/ruleset_speed.py                       # scotland then ireland, 2-4 players, both engines
    python tools/ruleset_speed.py --engine python --players 3 --no-timed --python-games 100
    python tools/ruleset_speed.py --no-callgrind --rounds 9 --slice 0.4

Timed: one process pinned to one core plays, round after round, a slice of random games of each engine, player
count and ruleset in turn, so the load of a shared machine falls on all alike; printed are the median games per
second over the rounds and moves per second (a ruleset's games differ in length: Ireland sets aside 4 tiles, so
its games are shorter), and the second ruleset's rate over the first's, per game and per move. Native games are
played in C batches into buffers (bench/against_limit.py's); Python games one a call, with end scoring and the
winner, and the median microseconds a game spends in its deal, its moves and its end.

Counted: native, bench/against_limit.py's C driver plays `--native-games` games and a fifth of them from seed 0
(the difference divided by the games between: loading and setup cancel out), with simulated branch prediction
(mispredicted conditional and indirect branches). Python: a process plays `--python-games` whole games under
callgrind with instrumentation switched on only around them (callgrind_control), after `--python-warmup` games
uncounted (start-up, generating the engine and the devices written out once they pay back cost nothing), with a simulated cache (D1 misses: first-level data cache read and write misses). Each is
printed per game and per move. Needs valgrind for the counts.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

PLAY = r"""
import os, subprocess, sys
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.pyengine.fast import random_game
from rebirth_dsl.play.loop import DEFAULT_NAMES
name, n, count, warm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rs, _ = load_ruleset(*rules_and_board(name, None))
names = list(DEFAULT_NAMES[:n])
for s in range(max(warm, 1)):  # generates the engine, and the devices written out once they pay back
    g, _ = random_game(rs, names, 10**6 + s)
    g.winners(g.final_scores(g.end_events()))
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=True)
for s in range(count):
    g, _ = random_game(rs, names, s)
    g.winners(g.final_scores(g.end_events()))
subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True, check=True)
"""


@dataclass(frozen=True)
class Counts:
    """Per game of one engine, ruleset and player count: instructions, mispredicted branches (native), first-level
    data cache misses (Python), and moves."""

    ir: float
    mispredicted: float
    d1: float
    moves: float


def _events(cmd: list[str], sim: list[str], env: dict[str, str] | None = None, *, off: bool = False
            ) -> dict[str, int]:
    """The event totals callgrind counts for one process (`off`: instrumentation off until switched on)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *sim,
              *(["--instr-atstart=no"] if off else [])]
        proc = subprocess.run([*vg, *cmd], capture_output=True, text=True, env=env, timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"callgrind failed: {proc.stderr.strip()[-400:]}")
        text = out.read_text()
        events = re.search(r"^events:\s*(.+)$", text, re.M)
        m = re.search(r"^totals:\s*(.+)$", text, re.M) or re.search(r"^summary:\s*(.+)$", text, re.M)
        if events is None or m is None:
            raise RuntimeError("callgrind wrote no totals")
        return dict(zip(events.group(1).split(), map(int, m.group(1).split()), strict=False))


def _mispredicted(ev: dict[str, int]) -> int:
    """Simulated mispredicted conditional and indirect branches."""
    return ev.get("Bcm", 0) + ev.get("Bim", 0)


def _d1(ev: dict[str, int]) -> int:
    """Simulated first-level data cache read and write misses."""
    return ev.get("D1mr", 0) + ev.get("D1mw", 0)


def _rules(name: str) -> Any:
    """A bundled ruleset, compiled."""
    from rebirth_dsl.records.record import load_ruleset
    from rebirth_dsl.records.resources import rules_and_board

    return load_ruleset(*rules_and_board(name, None))[0]


def _native(rules: str) -> Any:
    """The ruleset's native engine."""
    from rebirth_dsl.native import engine

    eng = engine(_rules(rules))
    if eng is None:
        raise RuntimeError(f"no native engine for {rules}")
    return eng


def native_per_game(rules: str, n: int, games: int, driver: Path) -> Counts:
    """Native counts per game: `games` and a fifth of them, the difference over the games between."""
    eng = _native(rules)
    lib = str(eng.built.path)
    sim = ["--branch-sim=yes", "--cache-sim=yes"]
    many = _events([str(driver), lib, "native", str(n), str(games), ""], sim)
    few = _events([str(driver), lib, "native", str(n), str(games // 5), ""], sim)
    span = games - games // 5
    moves = eng.speed(n, 0, games) - eng.speed(n, 0, games // 5)
    return Counts((many["Ir"] - few["Ir"]) / span, (_mispredicted(many) - _mispredicted(few)) / span,
                  (_d1(many) - _d1(few)) / span, moves / span)


def python_per_game(rules: str, n: int, games: int, warm: int) -> Counts:
    """Generated Python counts per game, counted around the games only, after `warm` games uncounted (the
    shuffles and the blank game's copy are written out after their first hundreds of uses, runtime/game.py)."""
    from rebirth_dsl.play.loop import DEFAULT_NAMES
    from rebirth_dsl.pyengine.fast import random_game

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ev = _events([sys.executable, "-c", PLAY, rules, str(n), str(games), str(warm)], ["--branch-sim=yes", "--cache-sim=yes"],
                 env, off=True)
    rs, names = _rules(rules), list(DEFAULT_NAMES[:n])
    moves = sum(random_game(rs, names, s)[0].move_index for s in range(games))
    return Counts(ev["Ir"] / games, _mispredicted(ev) / games, _d1(ev) / games, moves / games)


@functools.cache
def _bench_module() -> ModuleType:
    """bench/against_limit.py: its C driver and native batch."""
    spec = importlib.util.spec_from_file_location("rebirth_bench_against_limit", ROOT / "bench" / "against_limit.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _driver(tmp: Path) -> Path:
    """bench/against_limit.py's C driver, compiled."""
    from rebirth_dsl.native.build import compiler

    src, exe = tmp / "driver.c", tmp / "driver"
    src.write_text(_bench_module().DRIVER)
    subprocess.run([compiler()[0], "-O2", "-o", str(exe), str(src), "-ldl"], check=True, capture_output=True)
    return exe


class _Rate:
    """One engine, ruleset and player count, timed slice by slice by bench/against_limit.py's rate (games and
    moves per second, `timer`), with the microseconds a game spends in each part where the play times them."""

    def __init__(self, play: Callable[[int], tuple[int, int]], parts: list[float] | None = None) -> None:
        self.timer = _bench_module()._Rate(play)  # first seed -> (games played, their moves)
        self.parts = parts  # seconds the play spends in each part of a game so far (Python: _python_rate)
        self.per_part: list[list[float]] = []  # per round, microseconds a game in each part

    def run(self, seconds: float) -> None:
        """Play games for about `seconds`."""
        before = list(self.parts or [])
        games = self.timer.run(seconds)
        if self.parts is not None:
            self.per_part.append([(x - y) / games * 1e6 for x, y in zip(self.parts, before, strict=True)])


def _native_rate(rules: str, n: int, batch: int = 200) -> _Rate:
    """Native C batches: totals and winners into buffers, the moves counted by the engine."""
    eng = _native(rules)
    ffi, lib = eng.ffi, eng.lib
    totals, win, moves = ffi.new("int64_t[]", batch * n), ffi.new("int32_t[]", batch), ffi.new("int64_t *")

    def play(seed: int) -> tuple[int, int]:
        if lib.rb_games(seed, batch, n, totals, ffi.NULL, win, ffi.NULL, ffi.NULL, moves) != 0:
            raise RuntimeError("native engine error")
        return batch, int(moves[0])

    play(10**6)  # warm up
    return _Rate(play)


def _python_rate(rules: str, n: int) -> _Rate:
    """The generated Python engine: a whole game with end scoring and the winner a call, played as
    pyengine.fast.random_game plays it, each of its parts timed: the deal and the new game, the moves, the end
    scoring and the winner."""
    from rebirth_dsl.play.loop import DEFAULT_NAMES
    from rebirth_dsl.pyengine.fast import compiled
    from rebirth_dsl.runtime.game import Game
    from rebirth_dsl.runtime.setup import deal, seat_rng

    rs, names = _rules(rules), list(DEFAULT_NAMES[:n])
    run_random = compiled(rs).run_random  # generates the engine
    parts = [0.0, 0.0, 0.0]
    clock = time.perf_counter

    def play(seed: int) -> tuple[int, int]:
        t0 = clock()
        g = Game(rs, names, deal(rs, n, seed))
        g.quiet = True
        rngs = [seat_rng(seed, i) for i in range(n)]
        t1 = clock()
        run_random(g, rngs, None)
        t2 = clock()
        g.winners(g.final_scores(g.end_events()))
        t3 = clock()
        parts[0] += t1 - t0
        parts[1] += t2 - t1
        parts[2] += t3 - t2
        return 1, g.move_index

    for s in range(300):  # what is written out once it pays back (runtime/game.py), before the first round
        play(10**6 + s)
    return _Rate(play, parts)


def timed(engines: list[str], players: list[int], base: str, other: str, rounds: int, seconds: float) -> None:
    """Print the interleaved medians and the ratios."""
    pinned = _bench_module()._pin()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"timed: one process {pinned}, {rounds} rounds of {seconds:g} s per engine, player count and ruleset, "
          f"interleaved; medians (load {load:.2f} at the start)", flush=True)
    rates: dict[tuple[str, int, str], _Rate] = {}
    for engine in engines:
        for n in players:
            for r in (base, other):
                rates[engine, n, r] = (_native_rate if engine == "native" else _python_rate)(r, n)
    for i in range(rounds):
        # each ruleset goes first in every other round: neither always runs just after the other
        pair = (base, other) if i % 2 == 0 else (other, base)
        for engine in engines:
            for n in players:
                for r in pair:
                    rates[engine, n, r].run(seconds)
    end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for engine in engines:
        for n in players:
            a, b = rates[engine, n, base], rates[engine, n, other]
            ag, bg, am, bm = a.timer.rates, b.timer.rates, a.timer.move_rates, b.timer.move_rates
            ga, gb, ma, mb = (statistics.median(x) for x in (ag, bg, am, bm))
            # per round, the ratio of the two slices run side by side, then the median of those
            rg = statistics.median(y / x for x, y in zip(ag, bg, strict=True))
            rm = statistics.median(y / x for x, y in zip(am, bm, strict=True))
            print(f"{engine:7} {n} players  {base} {ga:9,.0f} games/s {1e6 / ma:7.3f} us/move  {other} {gb:9,.0f} "
                  f"games/s {1e6 / mb:7.3f} us/move  {other}/{base} per game {rg:.3f} per move {rm:.3f}", flush=True)
            if a.per_part and b.per_part:
                pa, pb = ([statistics.median(r[i] for r in x.per_part) for i in range(3)] for x in (a, b))
                print(f"{'':7} {n} players  us a game in the deal, the moves, the end: {base} "
                      f"{' / '.join(f'{x:.0f}' for x in pa)}  {other} {' / '.join(f'{x:.0f}' for x in pb)}", flush=True)
    print(f"(load {end:.2f} at the end)")


def counted(engines: list[str], players: list[int], base: str, other: str, native_games: int,
            python_games: int, warm: int) -> None:
    """Print the callgrind counts per game and per move, and the ratios of instructions."""
    print(f"counted (callgrind): native {native_games} games less {native_games // 5}, Python {python_games} games "
          f"after {warm}; "
          "per game (per move): instructions, mispredicted branches, D1 misses", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        driver = _driver(Path(tmp)) if "native" in engines else None
        for engine in engines:
            for n in players:
                if engine == "native":
                    assert driver is not None
                    a, b = (native_per_game(r, n, native_games, driver) for r in (base, other))
                else:
                    a, b = (python_per_game(r, n, python_games, warm) for r in (base, other))
                for r, c in ((base, a), (other, b)):
                    print(f"{engine:7} {n} players  {r:9} {c.ir:12,.0f} Ir ({c.ir / c.moves:8,.0f})  "
                          f"{c.mispredicted:9,.0f} mispredicted ({c.mispredicted / c.moves:6.1f})  "
                          f"{c.d1:9,.0f} D1 misses ({c.d1 / c.moves:6.1f})  {c.moves:5.1f} moves", flush=True)
                print(f"{engine:7} {n} players  {other}/{base} speed by instructions: per game {a.ir / b.ir:.3f}, "
                      f"per move {(a.ir / a.moves) / (b.ir / b.moves):.3f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--rules", nargs=2, default=["scotland", "ireland"], metavar=("BASE", "OTHER"),
                    help="the two bundled rulesets (default: scotland ireland)")
    ap.add_argument("--engine", choices=["native", "python", "both"], default="both")
    ap.add_argument("--players", type=int, action="append", help="a player count (repeatable; default 2, 3, 4)")
    ap.add_argument("--no-timed", action="store_true", help="skip the interleaved timing")
    ap.add_argument("--rounds", type=int, default=7, help="timed: interleaved rounds (default 7)")
    ap.add_argument("--slice", type=float, default=0.3, help="timed: seconds per engine, count, ruleset and round")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the callgrind counts")
    ap.add_argument("--native-games", type=int, default=2000)
    ap.add_argument("--python-games", type=int, default=40)
    ap.add_argument("--python-warmup", type=int, default=1000, help="Python games played before counting (default "
                    "1000: what a timed run plays long before its median)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    engines = ["native", "python"] if args.engine == "both" else [args.engine]
    players = args.players or [2, 3, 4]
    base, other = args.rules
    if not args.no_timed:
        timed(engines, players, base, other, max(1, args.rounds), args.slice)
    if not args.no_callgrind:
        if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
            print("the counts need valgrind (callgrind and callgrind_control)", file=sys.stderr)
            return 2
        counted(engines, players, base, other, args.native_games, args.python_games, args.python_warmup)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
