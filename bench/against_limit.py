"""`python -m rebirth_dsl.bench --against-limit`: the engines against hand-written ones (issue 25).

The yardsticks are bench/hand_scotland.c and bench/hand_scotland.py, written by hand from the rules for random
Scotland games and playing the very games the native and the generated Python engine play for the same seed
(tests/engines/test_hand_engines.py). In one process pinned to one core, round after round, each engine plays
random games for a short slice at 2, 3 and 4 players, interleaved so the load of a shared machine falls on all
alike; printed are the median games per second, the ratios native / hand C and generated Python / hand Python,
and Ireland's rate as a fraction of Scotland's in each project engine. With valgrind, instructions and
simulated mispredicted branches per game of both C engines are counted with callgrind (deterministic).

Both C engines are timed at C level (a batch per call into buffers, no result read back into Python), the
hand C built with the native engine's own compiler and flags (native/build.py); the Python engines each play
a whole game with end scoring and the winner per call.
"""

from __future__ import annotations

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
from pathlib import Path
from types import ModuleType
from typing import Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.native.build import FLAGS, BuildError, compiler
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.pyengine.fast import random_game
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board

BENCH = Path(__file__).resolve().parents[1] / "bench"  # a checkout's bench/ folder (not installed)
PLAYERS = (2, 3, 4)
BATCH = 200  # C games per call

# A C driver for callgrind: loads one engine's library and plays `count` games of n players from seed 0.
DRIVER = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef int (*native_t)(uint64_t, int, int, int64_t *, int64_t *, int32_t *, int32_t *, int32_t *, int64_t *);
typedef int (*hand_t)(uint64_t, int, int, int64_t *, int32_t *);
typedef int (*board_t)(const int32_t *, int);
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    int hand = argv[2][0] == 'h', n = atoi(argv[3]), count = atoi(argv[4]);
    if (hand) {  /* the board's ints, from the file argv[5] */
        FILE *f = fopen(argv[5], "r");
        int32_t *flat = malloc(sizeof(int32_t) * 4096); int m = 0;
        while (f && m < 4096 && fscanf(f, "%d", &flat[m]) == 1) m++;
        if (((board_t)dlsym(lib, "hand_board"))(flat, m) != 0) return 3;
    }
    int64_t *t = malloc(sizeof(int64_t) * 8 * 64); int32_t *w = malloc(sizeof(int32_t) * 64);
    for (int g = 0; g < count; g += 64) {
        int c = count - g < 64 ? count - g : 64;
        int rc = hand ? ((hand_t)dlsym(lib, "hand_games"))(g, c, n, t, w)
                      : ((native_t)dlsym(lib, "rb_games"))(g, c, n, t, 0, w, 0, 0, 0);
        if (rc) return 4;
    }
    return 0;
}
"""


def _module(name: str) -> ModuleType:
    """A module of the checkout's bench/ folder."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError(BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class _Rate:
    """An engine's games per second over the rounds, and its moves per second where its play counts them:
    `run(seconds)` plays for a slice and records its rates (tools/ruleset_speed.py times with it too)."""

    def __init__(self, play: Callable[[int], tuple[int, int]]) -> None:
        self.play = play  # first seed -> (games played, their moves; 0 where the play does not count them)
        self.seed = 0
        self.rates: list[float] = []
        self.move_rates: list[float] = []

    def run(self, seconds: float) -> int:
        """Play games for about `seconds`, from the next seed on; the games played."""
        games = moves = 0
        t0 = time.perf_counter()
        while True:
            g, m = self.play(self.seed)
            games, moves, self.seed = games + g, moves + m, self.seed + g
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
        self.rates.append(games / dt)
        self.move_rates.append(moves / dt)
        return games

    def median(self) -> float:
        """The median rate over the rounds."""
        return statistics.median(self.rates)


def _native_rate(eng: Any, n: int) -> _Rate:
    """The native engine's C batches: totals and winners into buffers (as the hand C's)."""
    ffi, lib = eng.ffi, eng.lib
    totals, win = ffi.new("int64_t[]", BATCH * n), ffi.new("int32_t[]", BATCH)

    def play(seed: int) -> tuple[int, int]:
        if lib.rb_games(seed, BATCH, n, totals, ffi.NULL, win, ffi.NULL, ffi.NULL, ffi.NULL) != 0:
            raise RuntimeError("native engine error")
        return BATCH, 0

    return _Rate(play)


def _hand_c_rate(hand: Any, n: int) -> _Rate:
    """The hand-written C engine's batches."""
    ffi, lib = hand.ffi, hand.lib
    totals, win = ffi.new("int64_t[]", BATCH * n), ffi.new("int32_t[]", BATCH)

    def play(seed: int) -> tuple[int, int]:
        if lib.hand_games(seed, BATCH, n, totals, win) != 0:
            raise RuntimeError("hand engine error")
        return BATCH, 0

    return _Rate(play)


def _python_rate(rs: Ruleset, n: int) -> _Rate:
    """The generated Python engine: a whole game with end scoring and the winner (as the bench's figure)."""
    names = list(DEFAULT_NAMES[:n])

    def play(seed: int) -> tuple[int, int]:
        g, _ = random_game(rs, names, seed)
        g.winners(g.final_scores(g.end_events()))
        return 1, 0

    play(0)  # generates the engine
    return _Rate(play)


def _hand_py_rate(play_game: Callable[..., Any], n: int) -> _Rate:
    """The hand-written Python engine: a whole game with end scoring and the winner."""
    def play(seed: int) -> tuple[int, int]:
        play_game(n, seed)
        return 1, 0

    return _Rate(play)


def _pin() -> str:
    """Pin this process to one core (the one it runs on); says which, or why not."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[-1]
    os.sched_setaffinity(0, {cpu})
    return f"pinned to cpu {cpu}"


def callgrind(lib: Path, kind: str, n: int, games: int, board_file: Path | None, driver: Path) -> tuple[float, float]:
    """Instructions and simulated mispredicted branches per game of one C engine: callgrind over `games` games
    and over a fifth of them, the difference divided by the games between (loading and setup cancel out)."""
    counts = []
    with tempfile.TemporaryDirectory() as tmp:
        for count in (games, games // 5):
            out = Path(tmp) / f"cg.{count}"
            cmd = ["valgrind", "--tool=callgrind", "--branch-sim=yes", f"--callgrind-out-file={out}", str(driver),
                   str(lib), kind, str(n), str(count), str(board_file or "")]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                raise RuntimeError(f"callgrind failed: {proc.stderr.strip()[-300:]}")
            text = out.read_text()
            events = re.search(r"^events:\s*(.+)$", text, re.M)
            summary = re.search(r"^(?:summary|totals):\s*(.+)$", text, re.M)
            if events is None or summary is None:
                raise RuntimeError("callgrind wrote no summary")
            vals = dict(zip(events.group(1).split(), map(int, summary.group(1).split()), strict=False))
            counts.append((vals.get("Ir", 0), vals.get("Bcm", 0) + vals.get("Bim", 0)))
    span = games - games // 5
    return (counts[0][0] - counts[1][0]) / span, (counts[0][1] - counts[1][1]) / span


def against_limit(seconds: float, rounds: int, use_callgrind: bool, cg_games: int) -> int:
    """Print the figures; 2 (with the reason) when the hand-written engines or a piece they need is missing."""
    if not (BENCH / "hand_scotland.c").is_file():
        print(f"--against-limit needs a checkout of rebirth-dsl: the hand-written engines are in bench/, not "
              f"installed ({BENCH} is missing)", file=sys.stderr)
        return 2
    from rebirth_dsl.native import engine as native_engine
    from rebirth_dsl.native import unavailable

    why = unavailable()
    if why is not None:
        print(f"--against-limit needs the native engine: {why}", file=sys.stderr)
        return 2
    hand_c = _module("hand_c")
    hand_py = _module("hand_scotland")
    scot_rules, scot_board = rules_and_board("scotland", None)
    irl_rules, irl_board = rules_and_board("ireland", None)
    scot, _ = load_ruleset(scot_rules, scot_board)
    irl, _ = load_ruleset(irl_rules, irl_board)
    nat_s, nat_i = native_engine(scot), native_engine(irl)
    if nat_s is None or nat_i is None:
        print("--against-limit: the native engine cannot play the bundled games here (see the notice)",
              file=sys.stderr)
        return 2
    try:
        hand = hand_c.load(scot_board)
    except BuildError as e:
        print(f"--against-limit: {e}", file=sys.stderr)
        return 2
    try:
        play_py = hand_py.engine(scot_board)
        pinned = _pin()
        cc, version = compiler()
        print(f"Engines against hand-written ones (issue 25): Scotland on {scot_board.name}, random games with end "
              f"scoring and the winner; one process {pinned}; {rounds} rounds of {seconds:g} s per engine and "
              f"player count, interleaved; median games/s")
        copied, whole = _native_state_bytes(scot, cc)
        print(f"C: {version}, flags {' '.join(FLAGS)}; state per game, copied from its template per game / whole: "
              f"hand C {hand.state_bytes:,} / {hand.state_bytes:,} bytes, native {copied:,} / {whole:,}")
        rates: dict[tuple[str, int], _Rate] = {}
        for n in PLAYERS:
            rates["native", n] = _native_rate(nat_s, n)
            rates["hand C", n] = _hand_c_rate(hand, n)
            rates["python", n] = _python_rate(scot, n)
            rates["hand Python", n] = _hand_py_rate(play_py, n)
            rates["native Ireland", n] = _native_rate(nat_i, n)
            rates["python Ireland", n] = _python_rate(irl, n)
        for _ in range(rounds):
            for rate in rates.values():
                rate.run(seconds)
        print(f"{'':10} {'native':>9} {'hand C':>9} {'ratio':>6}   {'Python':>7} {'hand Py':>8} {'ratio':>6}   "
              f"{'Ireland/Scotland: native':>24} {'Python':>7}")
        for n in PLAYERS:
            m = {k: r.median() for (k, nn), r in rates.items() if nn == n}
            print(f"{n} players  {m['native']:9,.0f} {m['hand C']:9,.0f} {m['native'] / m['hand C']:6.2f}   "
                  f"{m['python']:7,.0f} {m['hand Python']:8,.0f} {m['python'] / m['hand Python']:6.2f}   "
                  f"{m['native Ireland'] / m['native']:24.2f} {m['python Ireland'] / m['python']:7.2f}")
        if not use_callgrind:
            return 0
        if shutil.which("valgrind") is None:
            print("instructions per game: valgrind is not installed (e.g. `apt-get install valgrind`); then run "
                  "this again")
            return 0
        with tempfile.TemporaryDirectory() as tmp:
            driver = Path(tmp) / "driver"
            src = Path(tmp) / "driver.c"
            src.write_text(DRIVER)
            subprocess.run([cc, "-O2", "-o", str(driver), str(src), "-ldl"], check=True, capture_output=True)
            board_file = Path(tmp) / "board.txt"
            board_file.write_text(" ".join(map(str, hand_c.board_ints(scot_board))))
            print(f"callgrind, {cg_games} games less {cg_games // 5}, per game: instructions (Ir) and simulated "
                  "mispredicted branches (Bcm + Bim)")
            for n in PLAYERS:
                ni, nb = callgrind(nat_s.built.path, "native", n, cg_games, None, driver)
                hi, hb = callgrind(hand.folder / "hand_scotland.so", "hand", n, cg_games, board_file, driver)
                print(f"{n} players  native {ni:9,.0f} Ir {nb:6,.0f} mispredicted   hand C {hi:9,.0f} Ir "
                      f"{hb:6,.0f} mispredicted   native/hand {ni / hi:.2f}x the instructions")
        return 0
    finally:
        hand.close()


def _native_state_bytes(rs: Ruleset, cc: str) -> tuple[int, int]:
    """The native engine's per-game state in bytes: what a new game copies from its template (the generated
    `DEALT`, ctext.py new_game: the holdings' contents after it are dealt, not copied) and the whole `S` (what
    the search copies per candidate); its source compiled with a main that prints both."""
    from rebirth_dsl.native.cgen import generate

    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "size.c", Path(tmp) / "size"
        src.write_text(generate(rs).source + '\n#include <stdio.h>\nint main(void) { printf("%zu %zu\\n", '
                       '(size_t)DEALT, sizeof(S)); return 0; }\n')
        subprocess.run([cc, "-O0", "-w", "-o", str(exe), str(src)], check=True, capture_output=True)
        copied, whole = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
        return int(copied), int(whole)
