"""Native playouts: the compiled rules turned into C, compiled once by the system C compiler and run
through cffi (the optional extra `pip install 'rebirth-dsl[native]'`; the core stays pure Python).

- `engine(rs)`: the native engine of a ruleset, or None (with a one-line notice on stderr) when cffi or a
  C compiler is missing or the ruleset uses something the generator cannot express (`unsupported(rs)`
  names it); callers then use the Python engine.
- `random_results(rs, n, first_seed, count)`: whole random games, as `rebirth simulate --backend native`
  summarises them.
- `random_playouts(game, count, seed)`: final scores of random playouts from a position, for search agents;
  native when it can be, else the Python engine, with the same meaning.

The same seed gives the same game for a given backend; the native and the Python engines draw different
random numbers, so their games differ, and their statistics agree (tests/engines/test_native.py).
"""

from __future__ import annotations

import os
import random
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.records.resources import name_of

if TYPE_CHECKING:
    from rebirth_dsl.native.lib import NativeEngine, NativeGame
    from rebirth_dsl.runtime.game import Game

_LOCK = threading.Lock()
_NOTICED: set[int] = set()
CHUNK = 2000  # games per native call: a progress step, and the unit shared among threads


def unavailable() -> str | None:
    """Why no native engine can run on this machine (cffi or a C compiler missing), or None."""
    try:
        import cffi  # noqa: F401 - only whether the extra is installed
    except ImportError:
        return "cffi is not installed (pip install 'rebirth-dsl[native]')"
    from rebirth_dsl.native.build import BuildError, compiler

    try:
        compiler()
    except BuildError as e:
        return str(e)
    return None


def unsupported(rs: Ruleset) -> list[str]:
    """What of this ruleset the native backend cannot express, by name (empty: everything)."""
    from rebirth_dsl.native.cexpr import Unsupported
    from rebirth_dsl.native.cgen import generate

    try:
        generate(rs)
    except Unsupported as e:
        return str(e).split("; ")
    return []


def engine(rs: Ruleset, notice: bool = True) -> NativeEngine | None:
    """The ruleset's native engine, generated and built once (kept in `rs.derived`); None when it cannot
    run, after a one-line notice on stderr (once per ruleset and process) unless `notice` is False."""
    with _LOCK:
        got: NativeEngine | str | None = rs.derived.native
        if got is None:
            got = rs.derived.native = _make(rs)
    if isinstance(got, str):
        if notice and id(rs) not in _NOTICED:
            _NOTICED.add(id(rs))
            print(f"rebirth: native backend not used for {rs.title}: {got}; using the Python engine", file=sys.stderr)
        return None
    return got


def _make(rs: Ruleset) -> NativeEngine | str:
    """Generate, build and load the engine, or the reason it cannot run."""
    why = unavailable()
    if why is not None:
        return why
    from rebirth_dsl.native.build import BuildError
    from rebirth_dsl.native.cexpr import Unsupported
    from rebirth_dsl.native.cgen import generate
    from rebirth_dsl.native.lib import load

    try:
        plan = generate(rs)
    except Unsupported as e:
        return f"it cannot express {e}"
    try:
        return load(rs, plan)
    except (BuildError, OSError, RuntimeError) as e:
        return str(e)


def random_results(rs: Ruleset, n: int, first_seed: int, count: int, workers: int = 1,
                   progress: Callable[[int], None] | None = None, extras: bool = False) -> list[Any] | None:
    """Random games first_seed .. first_seed + count - 1, natively: per game (scores, breakdown per seat in
    the ruleset's category order, winner seats), with `extras` also the lab's per-game data (the fields of
    play/tally.py's GameExtra, in order); in game order whatever `workers` (threads: the C code runs
    without the GIL). None when the native engine cannot run (the notice has been printed)."""
    eng = engine(rs)
    if eng is None:
        return None
    chunks = [(a, min(a + CHUNK, count)) for a in range(0, count, CHUNK)]
    out: list[Any] = []
    with ThreadPoolExecutor(max(1, workers)) as pool:
        futures = [pool.submit(eng.results, n, first_seed + a, b - a, extras) for a, b in chunks]
        for (a, b), fut in zip(chunks, futures, strict=True):
            out.extend(fut.result())
            if progress is not None:
                progress(b - a)
    return out


def random_playouts(game: Game, count: int, seed: int, redeal: bool = True, backend: str = "auto") -> list[list[int]]:
    """Final scores (track plus end-of-game scoring, per seat) of `count` uniformly random playouts from the
    game's position, which must be between turns. With `redeal` each playout first reshuffles every supply
    and the rest of every deck (the future a player cannot know), as the Monte Carlo agent does. Ability
    questions are answered at random. `backend`: "auto" (native when it can run, else Python), "native" or
    "python". The same arguments give the same scores for a given backend. A position the native engine
    cannot play exactly (lib.NativeRefused: a hand or held cards that could outgrow its arrays, a tile it
    cannot encode) is played on the Python engine on "auto", as a ruleset it cannot express is, and raises
    NativeRefused on "native"."""
    if backend not in ("auto", "native", "python"):
        raise ValueError(f"backend {backend!r}: auto, native or python")
    if backend != "python" and not game.scenario and not game.pending_draw:
        eng = engine(game.rs, notice=backend == "native")
        if eng is not None:
            from rebirth_dsl.native.lib import NativeRefused

            try:
                return eng.playouts(game, count, seed, redeal)
            except NativeRefused:
                if backend == "native":
                    raise
        elif backend == "native":
            raise RuntimeError(f"no native engine for {game.rs.title}")
    return python_playouts(game, count, seed, redeal)


def python_playouts(game: Game, count: int, seed: int, redeal: bool = True) -> list[list[int]]:
    """`random_playouts` on the Python engine (pyengine/fast.py)."""
    from rebirth_dsl.accel.public import warm_fork
    from rebirth_dsl.pyengine.fast import compiled

    fast = compiled(game.rs)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        g = warm_fork(game)
        if redeal:
            g.shuffle_hidden(rng)
        g.auto_choose = None  # the playout answers abilities at random
        fast.run_random(g, [rng] * g.n_players, None)
        out.append(g.final_scores(g.end_events()))
    return out


def record_of(rs: Ruleset, rules: Path, board: Path, out_dir: Path, names: list[str], game: NativeGame) -> dict[str, Any]:
    """A natively played game as a game record (explicit setup, so it replays without the native generator)."""
    def rel(p: Path, folder: str) -> str:
        """A bundled game by its name, so the record works wherever it is moved; a file relative to it."""
        return name_of(folder, p) or os.path.relpath(p.resolve(), out_dir.resolve())

    setup = game.setup
    return {
        "rules": rel(rules, "rules"),
        "board": rel(board, "boards"),
        "players": names,
        "agents": ["random"] * len(names),
        "setup": {
            "seed": game.seed,
            "set_aside": {n: [rs.tile_name(*t) for t in setup.set_aside[i]] for i, n in enumerate(names)},
            "supply": {n: [rs.tile_name(*t) for t in setup.supply[i]] for i, n in enumerate(names)},
            "decks": setup.decks,
        },
        "moves": game.moves,
    }
