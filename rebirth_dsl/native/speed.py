"""Figures for `python -m rebirth_dsl.bench`: native random games per second, and what the first use of a
ruleset costs (generating the C, compiling it, or loading it verified from the cache)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.native.build import build, compiler
from rebirth_dsl.native.cgen import generate
from rebirth_dsl.native.lib import NativeEngine

CHUNK = 1000  # games per call while timing


def games_per_second(eng: NativeEngine, n: int, seconds: float) -> tuple[float, float]:
    """Random games per second with their scores, breakdowns and winners read back into Python, and
    microseconds per move, over about `seconds` (the Python figure's counterpart)."""
    eng.results(n, 0, 100)  # warm up
    games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        eng.results(n, games, CHUNK)
        games += CHUNK
    dt = time.perf_counter() - t0
    moves = eng.speed(n, 0, 200) / 200 * games  # the mean length, from a second short run
    return games / dt, dt / moves * 1e6


@dataclass(frozen=True)
class FirstUse:
    """What a ruleset's native engine costs the first time, and once cached."""

    generate: float  # seconds to generate the C source
    compile: float  # seconds the C compiler takes (first use, or the cache cleared)
    cached: float  # seconds to find and verify the cached library
    compiler: str


def first_use(rs: Ruleset) -> FirstUse:
    """Time generating the C, compiling it afresh (into a temporary folder: the cache is not touched), and
    taking it from the cache (building it there first if it is not yet)."""
    t0 = time.perf_counter()
    plan = generate(rs)
    gen = time.perf_counter() - t0
    fresh = build(plan.source, fresh=True)
    build(plan.source)  # into the cache, if it was not there
    cached = build(plan.source)
    return FirstUse(gen, fresh.seconds, cached.seconds, compiler()[1])
