"""Setup and seeds (S-U1..S-U4): one colour's tiles, a random deal from a seed, and each seat's generator."""

from __future__ import annotations

from collections.abc import Callable
from math import floor

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.accel.shuffle import draws, seeded, shuffle
from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.shared_methods import Record, field, record

if TYPE_CHECKING:
    import random
    from typing import TypeVar


@record
class Setup(Record):
    """What a game starts from (S-U1..S-U4): per-player set-aside tiles and supply order, decks."""

    set_aside: list[list[tuple[int, int]]]
    supply: list[list[tuple[int, int]]]  # draw order, first tile first
    decks: dict[str, list[str]] = field(default_factory=dict)  # top card first
    scores: list[int] | None = None  # scenario: starting track points
    held: list[list[str]] | None = None  # scenario: cards already in hand

    # made for every dealt game (simulations): written out, as @dataclass would generate it
    def __init__(self, set_aside: list[list[tuple[int, int]]], supply: list[list[tuple[int, int]]],
                 decks: dict[str, list[str]] | None = None, scores: list[int] | None = None,
                 held: list[list[str]] | None = None) -> None:
        self.set_aside = set_aside
        self.supply = supply
        self.decks = {} if decks is None else decks
        self.scores = scores
        self.held = held


def deal(rs: Ruleset, n_players: int, seed: int) -> Setup:
    """A random setup from a seed: each colour's tiles (less returns), shuffled, set aside, decks shuffled
    (the order deal_into decides)."""
    supply: list[list[tuple[int, int]]] = [[] for _ in range(n_players)]
    set_aside: list[list[tuple[int, int]]] = [[] for _ in range(n_players)]
    decks: dict[str, list[str]] = {}
    deal_into(rs, seed, supply, set_aside, decks)
    for s in supply:
        s.reverse()  # a Setup lists the first tile drawn first
    return Setup(set_aside, supply, decks)


def deal_into(rs: Ruleset, seed: int, supply: list[list[tuple[int, int]]], set_aside: list[list[tuple[int, int]]],
              decks: dict[str, list[str]]) -> None:
    """The deal from a seed into empty lists, one supply and one set-aside per seat, and a deck dict: each
    colour's tiles (less returns) shuffled, its first tiles set aside, the rest its supply, drawn from the end
    (as a game keeps it: the top of a supply is its end); then each deck shuffled, top card first, in name
    order. Every shuffle is fisher_yates below from one random.Random(seed), both through their speed devices
    (accel.shuffle: the same swaps from the same draws, proven in tests/engines/test_fast.py)."""
    n_players = len(supply)
    rnd = draws(seed)
    tiles = rs.derived.colour_tiles.get(n_players)
    if tiles is None:  # the same for every game of this ruleset and player count
        tiles = rs.derived.colour_tiles[n_players] = tuple(colour_tiles(rs, n_players))
    k = rs.set_aside
    for mine, aside in zip(supply, set_aside):  # noqa: B905 - one of each per seat
        mine += tiles
        shuffle(mine, rnd, fisher_yates)
        aside += mine[:k]
        del mine[:k]
        mine.reverse()
    names = rs.derived.deck_names
    if names is None:  # the same for every game of this ruleset
        names = rs.derived.deck_names = tuple((name, tuple(c.name for c in rs.decks[name])) for name in sorted(rs.decks))
    for name, cards_ in names:
        cards = decks[name] = list(cards_)
        shuffle(cards, rnd, fisher_yates)


if TYPE_CHECKING:
    _T = TypeVar("_T")


def fisher_yates(items: list[_T], rnd: Callable[[], float]) -> None:
    """Shuffle in place (S-U4): from the last item down to the second, item i swaps with item j, j drawn
    evenly from 0..i as int(rnd() * (i + 1)). This is random.shuffle as Python 3.10 did it given a float
    source; the standard library's shuffle now draws j from integer bits and deals other orders, so it
    would change every seeded game and every record replayed from its seed."""
    for i in range(len(items) - 1, 0, -1):
        j = floor(rnd() * (i + 1))
        items[i], items[j] = items[j], items[i]


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
    # random.Random of an int (accel.shuffle.seeded): an int seeds fast; a string would be hashed with SHA-512
    return seeded(seed * 16 + seat + 1)
