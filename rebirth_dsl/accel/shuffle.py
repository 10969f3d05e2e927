"""The deal's speed devices (S-U4), each proven equal to what it accelerates by tests/engines/test_fast.py:
the Fisher-Yates shuffle of runtime/setup.fisher_yates written out per list length, and `random.Random(seed)`
seeded without the Python frames around the C seeding. A game of the generated engine deals once and seeds a
generator per seat, so the two are a few per cent of a whole random game.
"""

from __future__ import annotations

import _random
from collections.abc import Callable
from math import floor

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.accel import written_out
from rebirth_dsl.compile.emit import literal, run_source

if TYPE_CHECKING:
    import random
    from typing import Any, Protocol, TypeVar

    _T = TypeVar("_T")

    class _Shuffle(Protocol):
        """Shuffles a list in place, drawing floats in [0, 1) from rnd."""

        def __call__(self, a: list[_T], rnd: Callable[[], float], /) -> None: ...


def shuffle(items: list[_T], rnd: Callable[[], float], loop: _Shuffle | None = None) -> None:
    """runtime.setup.fisher_yates, the same swaps from the same draws, in three quarters of its time. With
    `loop` (fisher_yates itself), the first WRITE_OUT_AFTER shuffles of a length run it instead (written_out)."""
    m = len(items)
    shuffle = written_out(_SHUFFLES, _CALLS, m, 0 if loop is None else WRITE_OUT_AFTER, lambda: _shuffler(m))
    if shuffle is None:
        assert loop is not None  # written_out gives None only while uses are within `after`
        loop(items, rnd)
    else:
        shuffle(items, rnd)


def _shuffler(m: int) -> _Shuffle:
    """Fisher-Yates for lists of m items, written out step by step: for i = m-1 .. 1, j = int(rnd() * (i+1))
    and items i and j swap. Without the loop there is nothing to iterate or unpack per step; the counts
    are floats (a float times a float is the interpreter's quick case, and the product is the one with
    the int: it converts exactly), passed as defaults so they are locals. Source: our own names and ints."""
    counts = range(m, 1, -1)
    lines = [f"def shuffle(a, rnd, floor=floor{''.join(f', k{k}=k{k}' for k in counts)}):"]
    for k in counts:
        i = literal(k - 1)
        lines.append(f"    j = floor(rnd() * k{literal(k)})")  # floor: int() of a float >= 0, a quicker call
        lines.append(f"    a[{i}], a[j] = a[j], a[{i}]")
    lines.append("    return")
    env: dict[str, Any] = {"__builtins__": {}, "floor": floor, **{f"k{k}": float(k) for k in counts}}
    run_source("\n".join(lines), f"<shuffle of {m}>", env)  # our own names and ints
    shuffle: _Shuffle = env["shuffle"]  # the source defines shuffle
    return shuffle


_SHUFFLES: dict[int, _Shuffle] = {}
_CALLS: dict[int, int] = {}  # shuffles of each length run by `loop` so far
WRITE_OUT_AFTER = 512


def seeded(seed: int) -> random.Random:
    """`random.Random(seed)` for an int seed, the same generator in the same state: seeded by the C
    method random.Random.seed itself calls, without the two Python frames and type checks around it."""
    global _RANDOM
    cls = _RANDOM
    if cls is None:  # the seats' generators, for the agents: a deal alone needs only `draws`
        import random

        cls = _RANDOM = random.Random
    rng = cls.__new__(cls)
    _SEED(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined] # not in the stubs; what Random.__init__ and Random.seed set after seeding
    return rng


def draws(seed: int) -> Callable[[], float]:
    """`random.Random(seed).random` for an int seed: the same floats in the same order, from the C generator
    random.Random is made of, seeded by the C method random.Random.seed itself calls for an int. What a deal
    draws from, without importing `random` (with bisect and SHA-512) into every command that deals a game."""
    return _random.Random(seed).random


_SEED = _random.Random.seed
_RANDOM: type[random.Random] | None = None  # random.Random, imported at the first seeded generator
