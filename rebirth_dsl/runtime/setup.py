"""Setup and seeds (S-U1..S-U4): one colour's tiles, a random deal from a seed, and each seat's generator."""

from __future__ import annotations

import _random
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from math import floor
from typing import Any, Protocol, TypeVar

from rebirth_dsl.compile.emit import literal
from rebirth_dsl.compile.ruleset import Ruleset


@dataclass
class Setup:
    """What a game starts from (S-U1..S-U4): per-player set-aside tiles and supply order, decks."""

    set_aside: list[list[tuple[int, int]]]
    supply: list[list[tuple[int, int]]]  # draw order, first tile first
    decks: dict[str, list[str]] = field(default_factory=dict)  # top card first
    scores: list[int] | None = None  # scenario: starting track points
    held: list[list[str]] | None = None  # scenario: cards already in hand


def deal(rs: Ruleset, n_players: int, seed: int) -> Setup:
    """A random setup from a seed: each colour's tiles (less returns), shuffled, set aside, decks shuffled."""
    rng = seeded(seed)
    tiles = rs.derived.colour_tiles.get(n_players)
    if tiles is None:  # the same for every game of this ruleset and player count
        tiles = rs.derived.colour_tiles[n_players] = tuple(colour_tiles(rs, n_players))
    set_aside: list[list[tuple[int, int]]] = []
    supply: list[list[tuple[int, int]]] = []
    rnd = rng.random
    for _ in range(n_players):
        mine = list(tiles)
        _shuffle(mine, rnd)
        set_aside.append(mine[:rs.set_aside])
        supply.append(mine[rs.set_aside:])
    names = rs.derived.deck_names
    if names is None:  # the same for every game of this ruleset
        names = rs.derived.deck_names = tuple((name, tuple(c.name for c in rs.decks[name])) for name in sorted(rs.decks))
    decks: dict[str, list[str]] = {}
    for name, cards_ in names:
        cards = list(cards_)
        _shuffle(cards, rnd)
        decks[name] = cards
    return Setup(set_aside, supply, decks)


_T = TypeVar("_T")


class _Shuffle(Protocol):
    """Shuffles a list in place, drawing floats in [0, 1) from rnd."""

    def __call__(self, a: list[_T], rnd: Callable[[], float], /) -> None: ...


def _shuffle(items: list[_T], rnd: Callable[[], float]) -> None:
    """Fisher-Yates from float draws: the same distribution as random.shuffle in a quarter of its time."""
    shuffle = _SHUFFLES.get(len(items))
    if shuffle is None:
        shuffle = _SHUFFLES[len(items)] = _shuffler(len(items))
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
    exec(compile("\n".join(lines), f"<shuffle of {m}>", "exec"), env)  # noqa: S102 - our own names and ints
    shuffle: _Shuffle = env["shuffle"]  # the source defines shuffle
    return shuffle


_SHUFFLES: dict[int, _Shuffle] = {}


def colour_tiles(rs: Ruleset, n_players: int) -> list[tuple[int, int]]:
    """One colour's tiles for this player count: the mix less what is returned (S-C2, S-U3)."""
    tiles = list(rs.mix)
    for tc in rs.returns.get(n_players, []):
        kid = rs.tile_kinds.index(tc.kind)
        for _ in range(tc.count):
            for i, (k, v) in enumerate(tiles):
                if k == kid and (tc.value is None or v == tc.value):
                    del tiles[i]
                    break
    return tiles


def seat_rng(seed: int, seat: int) -> random.Random:
    """Each seat's own generator, so one agent's draws never shift another's."""
    return seeded(seed * 16 + seat + 1)  # an int seeds fast; a string would be hashed with SHA-512


def seeded(seed: int) -> random.Random:
    """`random.Random(seed)` for an int seed, the same generator in the same state: seeded by the C
    method random.Random.seed itself calls, without the two Python frames and type checks around it."""
    rng = _RANDOM.__new__(_RANDOM)
    _SEED(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined] # not in the stubs; what Random.__init__ and Random.seed set after seeding
    return rng


_RANDOM = random.Random
_SEED = _random.Random.seed
