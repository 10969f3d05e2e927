"""The built-in functions of the expression language, one entry each: what a rules writer sees of a function
(its name, argument and result types, what it means, how it reads in English). Everything that reads the
language's functions loops over SIGNATURES: the checker (check/types.py), the describer, the LSP's hover and
completion and the manual's table (docs/language.md, checked by tests/lang/test_functions.py). What a
function does in each engine is its entry in compile/functions.py, under the same name.

Types: int, bool, player, hex, hexes, groups, landmark, landmarks, areas; `coll` is any collection (hexes,
groups, landmarks, areas); `sel:WHAT` is a name argument (a tile kind or class, a hex kind or tag, a hex kind,
tag or landmark, a landmark kind), resolved when the rules are compiled; `entry` is an entry of a player-count
table, `2 to 3: 15` (players only). A trailing `*` repeats; `a|b` accepts either type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.limits import MAX_PLAYERS
from rebirth_dsl.shared_methods import Node, node, replace

if TYPE_CHECKING:
    from typing import Protocol

    class Facts(Protocol):
        """The board and tile facts a function's range is read from, for one player count (check/reach.py)."""

        def tiles(self, kinds: tuple[A.Expr, ...]) -> Bound: ...  # a player's tiles of these kinds (all: none named)
        def hexes(self, sel: A.Expr) -> frozenset[int]: ...  # the board hexes of a kind or with a tag
        def next_to(self, target: A.Expr) -> frozenset[int]: ...  # the hexes next to a kind, a tag or a landmark
        def ring(self, where: frozenset[int]) -> frozenset[int]: ...  # the hexes next to any of these
        def landmarks_next_to(self, kind: A.Expr, where: frozenset[int] | None) -> Bound: ...  # a kind's, near these
        def groups(self, kinds: tuple[A.Expr, ...]) -> Bound: ...  # a player's groups of these kinds
        def areas_meeting(self, where: frozenset[int] | None) -> Bound: ...  # the areas these hexes lie in
        def winnable(self) -> Bound: ...  # the areas a player can come first in
        def players(self) -> int: ...  # the player count these facts are for


# ----- ranges: what a function's value can be over a whole game (check/reach.py) ------------------------
ME, NOBODY = -2, -1  # the start values of a player expression: `me`, nobody


@node
class Bound(Node):
    """What the checker knows of a value over every position of one game at one player count: it lies in
    lo..hi (None: no bound known), with `why` the board or tile fact that makes hi what it is, and is `start`
    before any tile is placed (None: not known). Truth values are 0 and 1; a collection's value is its size,
    with `where` the hexes its members can be on (a collection of hexes) and `biggest` the most tiles one of
    its groups can hold (a collection of groups, with `why_biggest`)."""

    lo: int | None = 0
    hi: int | None = None
    start: int | None = None
    why: str = ""
    where: frozenset[int] | None = None
    biggest: int | None = None
    why_biggest: str = ""  # the fact that makes `biggest` what it is

    def capped(self, hi: int | None, why: str) -> Bound:
        """The bound with hi lowered to another upper bound (and its reason), when that is lower."""
        if hi is None or (self.hi is not None and self.hi <= hi):
            return self
        return replace(self, hi=hi, why=why)


if TYPE_CHECKING:
    # A function's range: (facts, its arguments as written, their ranges) -> the range of its value.
    Range = Callable[[Facts, tuple[A.Expr, ...], tuple[Bound, ...]], Bound]


def _empty_at_start(b: Bound) -> int | None:
    """0 when a collection drawn from the players' tiles is empty at the start (it starts empty), else unknown."""
    return 0 if b.start == 0 else None


def _count(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return Bound(b[0].lo, b[0].hi, b[0].start, b[0].why)


def _tiles(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return f.tiles(args[1:])  # any player's tiles come from the same mix


def _hexes(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    where = f.hexes(args[0])
    return Bound(len(where), len(where), len(where), f"the board has {len(where)} such hexes", where)


def _group(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    g = f.groups(())
    return Bound(0, g.biggest, None, g.why_biggest)  # only a placed hex has a group: not at the start


def _groups(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return f.groups(args[1:])


def _largest(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return Bound(0, b[0].biggest, _empty_at_start(b[0]), b[0].why_biggest)


def _atleast(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    g, n = b
    if n.lo is not None and g.biggest is not None and n.lo > g.biggest:
        return Bound(0, 0, 0, f"no group can hold {n.lo} tiles: {g.why_biggest}", frozenset(), g.biggest,
                     g.why_biggest)
    return Bound(0, g.hi, _empty_at_start(g), g.why, None, g.biggest, g.why_biggest)


def _within(b: Bound, area: frozenset[int], what: str) -> Bound:
    """A collection of hexes narrowed to the hexes of an area of the board."""
    where = area if b.where is None else b.where & area
    out = Bound(0, b.hi, _empty_at_start(b), b.why, where)
    if b.where is not None and b.lo == b.hi == b.start == len(b.where):  # a fixed set of board hexes (`hexes`)
        return Bound(len(where), len(where), len(where), f"the board has {len(where)} {what}", where)
    return out.capped(len(where), f"the board has {len(where)} {what} where those tiles can go")


def _at(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return _within(b[0], f.hexes(args[1]), "such hexes")


def _near(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return _within(b[0], f.next_to(args[1]), "hexes next to one")


def _neighbours(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    if b[0].where is None:
        return Bound(0, None, None)
    ring = f.ring(b[0].where)
    return Bound(0, len(ring), _empty_at_start(b[0]), f"{len(ring)} hexes lie next to them", ring)


def _touched(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return f.landmarks_next_to(args[1], f.tiles(()).where)


def _owned(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return f.landmarks_next_to(args[1], f.tiles(()).where)  # held by the majority of the tiles next to it


def _owner(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return Bound(None, None, NOBODY)  # nobody holds a landmark before a tile is placed


def _areas(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    a = f.areas_meeting(b[0].where)
    return Bound(0, b[0].hi, _empty_at_start(b[0]), b[0].why, b[0].where).capped(a.hi, a.why)


def _won(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return f.winnable()


# ----- a player-count table: `players(2 to 3: 15, 4: 13)` -----------------------------------------------
# The one place a table's meaning is decided: every engine (compile/functions.py Players: the closures, the
# generated Python, the C, the delta evaluator; play/evaluate.py by_count), the checker's ranges (_players
# below) and the describer read a table through these two functions.
def player_table(entries: Iterable[A.Expr]) -> dict[int, int]:
    """The number a `players(...)` table gives at each player count it names: every count from an entry's
    low to its high gives the entry's value. Counts past MAX_PLAYERS are never played and are left out; a
    count named twice keeps the first entry's number (check/checks.py refuses the table: `player-tables`)."""
    out: dict[int, int] = {}
    for e in entries:
        if isinstance(e, A.PlayerEntry):
            for n in range(max(e.low, 0), min(e.high, MAX_PLAYERS) + 1):
                out.setdefault(n, e.value)
    return out


def _counts_said(low: int, high: int) -> str:
    """`2`, `2 or 3`, `2, 3 or 4`; a long run as `2 to 6`."""
    if low >= high:
        return str(low)
    if high - low > 2:
        return f"{low} to {high}"
    ns = list(range(low, high + 1))
    return f"{', '.join(map(str, ns[:-1]))} or {ns[-1]}"


def say_table(entries: Iterable[A.Expr]) -> str:
    """A table in English, its entries in the order written: `15 with 2 or 3 players, 13 with 4`."""
    parts = [e for e in entries if isinstance(e, A.PlayerEntry)]
    if not parts:
        return "the number of players"
    noun = "player" if parts[0].low == parts[0].high == 1 else "players"
    said = [f"{e.value} with {_counts_said(e.low, e.high)}" for e in parts]
    return f"{said[0]} {noun}" + "".join(f", {x}" for x in said[1:])


def _players(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    n = f.players()
    if not args:
        return Bound(n, n, n, f"{n} players play")
    v = player_table(args).get(n)  # None: a count the table leaves out (`player-tables` refuses it)
    return Bound(v, v, v, f"the table gives {v} with {n} players" if v is not None else "")


def _per_player(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    # before any tile every player has the same value: each has at least (at most) as much as every other
    return Bound(0, 1, 1 if b[0].start is not None else None)


def _best(f: Facts, args: tuple[A.Expr, ...], b: tuple[Bound, ...]) -> Bound:
    return Bound(None, None, NOBODY if b[0].start is not None else None)  # all tied: nobody has strictly most


@node
class Signature(Node):
    """One built-in function as the language declares it."""

    name: str
    params: tuple[str, ...]  # argument types; the last may end in `*` (repeats, zero or more times)
    result: str
    doc: str  # one line: what it gives, in the words of the rules
    per_player: bool = False  # the argument is read once for every player, `me` bound to each in turn
    english: str = "{name}({args})"  # how `rebirth rules` says a call; {name}, {args} and {0}, {1}... fill it
    # the range of its value over a game, from the board and the tile mix (check/reach.py: "can never be met",
    # "always met"); None: not known, and a card that calls it is neither warned of
    bound: Range | None = None

    def say(self, args: list[str]) -> str:
        """A call in English, its arguments already said."""
        return self.english.format(*args, name=self.name, args=", ".join(args))


_ALL = (
    Signature("count", ("coll",), "int", "the number of things in a collection (hexes, groups, landmarks, areas)", bound=_count),
    Signature("size", ("coll",), "int", "same as count; reads well for a group", bound=_count),
    Signature("tiles", ("player", "sel:tile*"), "hexes",
              "the hexes holding the player's tiles, of the given kinds or classes", bound=_tiles),
    Signature("hexes", ("sel:hex",), "hexes", "every board hex of a kind or with a tag", bound=_hexes),
    Signature("group", ("hex",), "hexes", "the group (same owner, same kind, adjacent) containing a hex", bound=_group),
    Signature("groups", ("player", "sel:tile*"), "groups", "the player's groups of the given kinds", bound=_groups),
    Signature("largest", ("groups",), "int", "the size of the largest group, 0 if none", bound=_largest),
    Signature("atleast", ("groups", "int"), "groups", "the groups of at least N tiles", bound=_atleast),
    Signature("at", ("hexes", "sel:hex"), "hexes", "the hexes that are of a kind or carry a tag", bound=_at),
    Signature("near", ("hexes", "sel:near"), "hexes",
              "the hexes adjacent to a hex of a kind or tag, or to a landmark", bound=_near),
    Signature("neighbours", ("hexes|hex",), "hexes",
              "the hexes next to a hex or to a set of hexes, not counting those hexes themselves",
              english="the hexes next to {0}", bound=_neighbours),
    Signature("touched", ("player", "sel:landmark"), "landmarks",
              "landmarks of a kind next to one of the player's tiles", bound=_touched),
    Signature("owned", ("player", "sel:landmark"), "landmarks", "landmarks of a kind the player holds (majorities)", bound=_owned),
    Signature("owner", ("landmark",), "player", "who holds a landmark, or nobody", bound=_owner),
    Signature("areas", ("hexes",), "areas", "the distinct settlement areas the hexes lie in", bound=_areas),
    Signature("won", ("player",), "areas", "completed areas in which the player ranked first", bound=_won),
    Signature("players", ("entry*",), "int", "the number of players at the table (2 to 4 in Rebirth), written "
              "bare; or, given a table `players(2 to 3: 15, 4: 13)`, the number it gives for the count at the "
              "table (15 with 2 or 3 players, 13 with 4)", english="the number of players", bound=_players),
    Signature("most", ("int",), "bool", "true if `me` has at least as much as every other player (ties count)",
              per_player=True, bound=_per_player),
    Signature("fewest", ("int",), "bool", "true if `me` has at most as much as every other player (ties count)",
              per_player=True, bound=_per_player),
    Signature("best", ("int",), "player", "the one player with strictly the most (above 0), or nobody",
              per_player=True, bound=_best),
)

SIGNATURES: dict[str, Signature] = {s.name: s for s in _ALL}
PER_PLAYER = frozenset(s.name for s in _ALL if s.per_player)

TABLE_BEGIN, TABLE_END = "<!-- functions: begin -->", "<!-- functions: end -->"


def function_table() -> str:
    """The manual's table of functions (docs/language.md, between TABLE_BEGIN and TABLE_END), made from the
    entries: `python -c "from rebirth_dsl.lang.functions import function_table; print(function_table())"`."""
    rows = ["| function | type | what it gives |", "|---|---|---|"]
    bar = "\\|"  # a `|` inside a cell
    for s in _ALL:
        typ = f"{s.name}({', '.join(s.params)}) → {s.result}".replace("|", bar)
        rows.append(f"| [`{s.name}`](#{s.name}) | `{typ}` | {s.doc.replace('|', bar)} |")
    return "\n".join(rows)


__all__ = ["ME", "NOBODY", "PER_PLAYER", "SIGNATURES", "TABLE_BEGIN", "TABLE_END", "Bound", "Facts", "Range", "Signature",
           "function_table", "player_table", "say_table"]
