"""Instructions per random game of two rulesets in the native and the generated Python engine, counted by
callgrind (deterministic, whatever else the machine runs), and the second's speed as a fraction of the first's
(issue 25: Ireland at least 0.7 of Scotland in each engine).

    python tools/ruleset_speed.py                       # scotland then ireland, 2-4 players, both engines
    python tools/ruleset_speed.py --engine native --players 4 --native-games 5000

Native: bench/against_limit.py's C driver plays `--native-games` games and a fifth of them from seed 0 (the
difference divided by the games between: loading and setup cancel out). Python: a process plays
`--python-games` whole games (end scoring and the winner) under callgrind with instrumentation switched on only
around them (callgrind_control), so start-up and generating the engine cost nothing. Needs valgrind.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLAY = r"""
import os, subprocess, sys
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.pyengine.fast import random_game
from rebirth_dsl.play.loop import DEFAULT_NAMES
name, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rs, _ = load_ruleset(*rules_and_board(name, None))
names = list(DEFAULT_NAMES[:n])
g, _ = random_game(rs, names, 10**6)  # generates the engine
g.winners(g.final_scores(g.end_events()))
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=True)
for s in range(count):
    g, _ = random_game(rs, names, s)
    g.winners(g.final_scores(g.end_events()))
subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True, check=True)
"""


def _instructions(cmd: list[str], env: dict[str, str] | None = None, *, off: bool = False) -> int:
    """Instructions callgrind counts for one process (`off`: instrumentation off until switched on)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *(["--instr-atstart=no"] if off else [])]
        proc = subprocess.run([*vg, *cmd], capture_output=True, text=True, env=env, timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"callgrind failed: {proc.stderr.strip()[-400:]}")
        text = out.read_text()
        m = re.search(r"^totals:\s*(\d+)", text, re.M) or re.search(r"^summary:\s*(\d+)", text, re.M)
        if m is None:
            raise RuntimeError("callgrind wrote no totals")
        return int(m.group(1))


def native_per_game(rules: str, n: int, games: int, driver: Path) -> float:
    """Native instructions per game: `games` and a fifth of them, the difference over the games between."""
    sys.path.insert(0, str(ROOT))
    from rebirth_dsl.native import engine
    from rebirth_dsl.records.record import load_ruleset
    from rebirth_dsl.records.resources import rules_and_board

    rs, _ = load_ruleset(*rules_and_board(rules, None))
    eng = engine(rs)
    if eng is None:
        raise RuntimeError(f"no native engine for {rules}")
    lib = str(eng.built.path)
    many = _instructions([str(driver), lib, "native", str(n), str(games), ""])
    few = _instructions([str(driver), lib, "native", str(n), str(games // 5), ""])
    return (many - few) / (games - games // 5)


def python_per_game(rules: str, n: int, games: int) -> float:
    """Generated Python instructions per game, counted around the games only."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return _instructions([sys.executable, "-c", PLAY, rules, str(n), str(games)], env, off=True) / games


def _driver(tmp: Path) -> Path:
    """bench/against_limit.py's C driver, compiled."""
    spec = importlib.util.spec_from_file_location("rebirth_bench_against_limit", ROOT / "bench" / "against_limit.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    from rebirth_dsl.native.build import compiler

    src, exe = tmp / "driver.c", tmp / "driver"
    src.write_text(mod.DRIVER)
    subprocess.run([compiler()[0], "-O2", "-o", str(exe), str(src), "-ldl"], check=True, capture_output=True)
    return exe


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", nargs=2, default=["scotland", "ireland"], metavar=("BASE", "OTHER"),
                    help="the two bundled rulesets (default: scotland ireland)")
    ap.add_argument("--engine", choices=["native", "python", "both"], default="both")
    ap.add_argument("--players", type=int, action="append", help="a player count (repeatable; default 2, 3, 4)")
    ap.add_argument("--native-games", type=int, default=2000)
    ap.add_argument("--python-games", type=int, default=20)
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("needs valgrind (callgrind and callgrind_control)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    base, other = args.rules
    with tempfile.TemporaryDirectory() as tmp:
        driver = _driver(Path(tmp)) if args.engine != "python" else None
        for engine in (["native", "python"] if args.engine == "both" else [args.engine]):
            for n in args.players or [2, 3, 4]:
                if engine == "native":
                    assert driver is not None
                    a, b = (native_per_game(r, n, args.native_games, driver) for r in (base, other))
                else:
                    a, b = (python_per_game(r, n, args.python_games) for r in (base, other))
                print(f"{engine:7} {n} players  {base} {a:12,.0f}  {other} {b:12,.0f} instructions per game  "
                      f"{other}/{base} speed {a / b:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
