"""What a card condition reads: which changes of the position can change its value for a player `me`.

The engine checks every face-up mission after every placement (I-M1); most placements cannot change most
cards for most players. `reads_of` derives, from a checked expression alone, the state its value for `me`
depends on, so the engine re-reads a card for a player only after something it reads changed:

- tiles: per tile kind, the hexes (a bitmask over board hexes) where a new tile can change the value,
  split into `mine` (only a tile of `me` itself does: `tiles(me, food)`) and `anyone` (anybody's does:
  `tiles(best(...))`, and everything under `most`/`fewest`/`best`, which read every player);
- landmark holders (`owned`, `owner`) and won areas (`won`), each `mine` (only a change that gives `me` a
  landmark or takes one away, or an area `me` wins) or `anyone`;
- `everything`: a shape this analysis does not know, re-read after every placement.

And `taken_only`: a condition that reads `me`'s landmarks (landmarks_mine) but can only turn true when `me`
takes one, never when it loses one (`owner(L) == me and count(owned(me, castle)) >= 3`): a landmark lost need
not be read for it. `holds`: a landmark the condition is false without `me` holding it (`owner(L) == me and
...`): it need be read only for that landmark's holder.

The context values `placed` and `influence` are constants for a card (it is read for a player only), and
so are numbers, landmarks, `me`, `nobody`, `always` and `hexes(...)`. Tiles are only ever added to the
board and an added tile never changes kind or value, which is what makes "where a tile was added" enough.
"""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.functions import FUNCTIONS
from rebirth_dsl.compile.prims import selected_kinds
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES, player_table
from rebirth_dsl.lang.limits import MAX_PLAYERS
from rebirth_dsl.shared_methods import Node, node, replace

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Tables


@node
class Reads(Node):
    """What an expression's value for `me` depends on (see the module text). Hex sets are int bitmasks."""

    mine: tuple[int, ...]  # per tile kind: hexes where a tile of `me` can change the value
    anyone: tuple[int, ...]  # per tile kind: hexes where anybody's tile can change it
    landmarks_mine: bool = False
    landmarks_anyone: bool = False
    won_mine: bool = False
    won_anyone: bool = False
    everything: bool = False
    taken_only: bool = False  # set for a whole condition only (reads_of): not carried through `|`
    holds: int = -1  # the same (a landmark index, -1: none)

    def __or__(self, o: Reads) -> Reads:
        return Reads(tuple(a | b for a, b in zip(self.mine, o.mine, strict=True)),
                     tuple(a | b for a, b in zip(self.anyone, o.anyone, strict=True)),
                     self.landmarks_mine or o.landmarks_mine, self.landmarks_anyone or o.landmarks_anyone,
                     self.won_mine or o.won_mine, self.won_anyone or o.won_anyone, self.everything or o.everything)

    def widened(self) -> Reads:
        """The same reads for every player: what `me` reads, read for each player in turn (most, best...)."""
        return Reads(tuple(0 for _ in self.mine), tuple(a | b for a, b in zip(self.mine, self.anyone, strict=True)),
                     False, self.landmarks_mine or self.landmarks_anyone, False, self.won_mine or self.won_anyone,
                     self.everything)


class _Unknown(Exception):
    """A shape the analysis does not know: the expression reads everything."""


class _Reader:
    def __init__(self, t: Tables) -> None:
        self.t = t
        self.nk = len(t.tile_kinds)
        self.all_hexes = (1 << t.n) - 1
        self.none = Reads((0,) * self.nk, (0,) * self.nk)
        # the tile kinds whose tiles carry a value: every other tile is worth 0 to an attribute sum
        self.valued = frozenset(t.tile_kinds.index(s.kind) for s in t.rules.statements
                                if isinstance(s, A.TileSpec) and (s.attribute or any(v for v, _ in s.counts)))

    def mask(self, flags: list[bool]) -> int:
        return sum(1 << h for h, f in enumerate(flags) if f)

    def tiles_at(self, kinds: tuple[int, ...], hexes: int, mine: bool) -> Reads:
        row = tuple(hexes if k in kinds else 0 for k in range(self.nk))
        return Reads(row, self.none.anyone) if mine else Reads(self.none.mine, row)

    @staticmethod
    def is_me(e: A.Expr) -> bool:
        return isinstance(e, A.Name) and e.id == "me"

    def player(self, e: A.Expr) -> tuple[bool, Reads]:
        """Whether a player argument is `me` itself, and what computing it reads."""
        return self.is_me(e), self.value(e)

    def value(self, node: A.Expr) -> Reads:  # noqa: C901 - one case per node kind
        """The reads of any expression read as a whole value."""
        t = self.t
        match node:
            case A.Num() | A.Landmark():
                return self.none
            case A.Name(id=name) if name in ("me", "placed", "always", "nobody", "influence") or name in t.attributes:
                return self.none  # constants while a card is read for one player
            case A.Not(operand=o):
                return self.value(o)
            case A.BinOp(op="==" | "!=", left=A.Call(fn="owner", args=(lm,)), right=A.Name(id="me")) | \
                    A.BinOp(op="==" | "!=", left=A.Name(id="me"), right=A.Call(fn="owner", args=(lm,))):
                # whether `me` holds a landmark changes only when it passes to or from `me`
                return self.value(lm) | Reads(self.none.mine, self.none.anyone, landmarks_mine=True)
            case A.BinOp(left=left, right=right):
                return self.value(left) | self.value(right)
            case A.Call(fn=fn, args=args):
                if fn in t.attributes:  # a sum of values: a tile of a kind without values adds 0 to it
                    adds, other = self.hexset(args[0])
                    return self.only_kinds(adds, self.valued) | other
                entry = FUNCTIONS.get(fn)
                got = entry.reads(self, args) if entry is not None else None
                if got is not None:
                    return got
        raise _Unknown(type(node).__name__)

    def coll(self, node: A.Expr) -> tuple[Reads, Reads]:
        """A collection's reads as (where added tiles change it, what else changes it)."""
        if isinstance(node, A.Call) and node.fn in FUNCTIONS:
            got = FUNCTIONS[node.fn].reads_set(self, node.args)
            if got is not None:
                return got
        raise _Unknown(type(node).__name__)

    def hexset(self, node: A.Expr) -> tuple[Reads, Reads]:
        """A hex set's reads as (where an added tile joins it, what else changes it): `at` and `near` keep
        only the added tiles that fall where they look."""
        if isinstance(node, A.Call) and node.fn in SIGNATURES and SIGNATURES[node.fn].result == "hexes":
            return self.coll(node)
        raise _Unknown(type(node).__name__)

    @staticmethod
    def only_kinds(r: Reads, kinds: frozenset[int]) -> Reads:
        keep = [k in kinds for k in range(len(r.mine))]
        return Reads(tuple(m if ok else 0 for m, ok in zip(r.mine, keep, strict=True)),
                     tuple(m if ok else 0 for m, ok in zip(r.anyone, keep, strict=True)), r.landmarks_mine,
                     r.landmarks_anyone, r.won_mine, r.won_anyone, r.everything)

    @staticmethod
    def only(r: Reads, hexes: int) -> Reads:
        return Reads(tuple(m & hexes for m in r.mine), tuple(m & hexes for m in r.anyone), r.landmarks_mine,
                     r.landmarks_anyone, r.won_mine, r.won_anyone, r.everything)


def reads_of(node: A.Expr, t: Tables) -> Reads:
    """What a checked expression, read for one player with no placed hex, depends on (see the module)."""
    r = _Reader(t)
    try:
        out = r.value(node)
        if out.landmarks_mine and _holdings(node, t) == _UP:
            out = replace(out, taken_only=True)
        held = _held(node, t)
        if held is not None:
            out = replace(out, holds=held)
        return out
    except (_Unknown, ValueError, TypeError, AttributeError, RecursionError):
        return Reads(r.none.mine, r.none.anyone, everything=True)


def _held(node: A.Expr, t: Tables) -> int | None:
    """A landmark a condition needs `me` to hold: one part of a top-level `and` is `owner(L) == me`."""
    match node:
        case A.BinOp(op="and", left=a, right=b):
            first = _held(a, t)
            return first if first is not None else _held(b, t)
        case A.BinOp(op="==", left=A.Call(fn="owner", args=(A.Landmark(kind=k, name=n, tag=tag),)),
                     right=A.Name(id="me")) | \
                A.BinOp(op="==", left=A.Name(id="me"),
                        right=A.Call(fn="owner", args=(A.Landmark(kind=k, name=n, tag=tag),))):
            return t.find_landmark(k, n, tag)
    return None


# ----- how a condition moves when `me` takes a landmark --------------------------------------------------
_UP, _DOWN, _FLAT = 1, -1, 0  # never falls, never rises, does not move (False < True for a condition)


def _with(a: int | None, b: int | None) -> int | None:
    """The direction of a sum (or `and`, `or`) of two parts moving in directions a and b; None: unknown."""
    if a is None or b is None or a * b < 0:
        return None
    return a or b


def _holdings(node: A.Expr, t: Tables) -> int | None:  # noqa: C901 - one case per node kind
    """How the value of a checked expression for `me` moves when `me` takes one more landmark, everything else
    the same: _UP, _DOWN, _FLAT, or None when this analysis cannot tell."""
    match node:
        case A.Num() | A.Landmark() | A.Name():
            return _FLAT
        case A.Not(operand=o):  # a condition (the checker allows no other operand)
            d = _holdings(o, t)
            return None if d is None else -d
        case A.BinOp(op="==" | "!=" as op, left=A.Call(fn="owner", args=(lm,)), right=A.Name(id="me")) | \
                A.BinOp(op="==" | "!=" as op, left=A.Name(id="me"), right=A.Call(fn="owner", args=(lm,))):
            if _holdings(lm, t) != _FLAT:
                return None
            return _UP if op == "==" else _DOWN  # `me` holds it, or not
        case A.BinOp(op="and" | "or" | "+", left=a, right=b):  # conditions, or numbers added
            return _with(_holdings(a, t), _holdings(b, t))
        case A.BinOp(op="-" | ">=" | ">", left=a, right=b):
            d = _holdings(b, t)
            return _with(_holdings(a, t), None if d is None else -d)
        case A.BinOp(op="<=" | "<", left=a, right=b):
            d = _holdings(a, t)
            return _with(None if d is None else -d, _holdings(b, t))
        case A.Call(fn="count" | "size", args=(A.Call(fn="owned", args=(A.Name(id="me"), A.Name())),)):
            return _UP  # one more landmark of the kind, or the same count
    try:  # anything else: does not move if it reads no landmark holder at all
        r = _Reader(t).value(node)
    except (_Unknown, ValueError, TypeError, AttributeError, RecursionError):
        return None
    return None if r.landmarks_mine or r.landmarks_anyone else _FLAT




# ----- how far a card can move ------------------------------------------------------------------------
VALUE = -1  # in a growth table: by the added tile's own value
GROUP = -2  # in a growth table: E becomes at least the size of the added tile's group (`largest`)
REACH = -3  # in a growth table: E rises by one if the added tile's group now has Threshold.reach tiles, else 0


@node
class Threshold(Node):
    """A card `E >= N` (or `E > N`, `N <= E`, `N < E`) whose E, read for `me`, only `me`'s own tiles can raise,
    each by at most `grow[kind][hex]` (VALUE: by the tile's value): while E is `limit - s` short, the card
    cannot be fulfilled before `me`'s tiles have raised it by s, so the engine need not read it till then.
    (GROUP: E is a largest group, and a tile changes it only to its own group's size if that is more.)
    N may follow the player count (a constant of the game): `limits` holds it per count."""

    measure: A.Expr
    # N per player count (indexed by the count, 0 to MAX_PLAYERS): the card is fulfilled once E >= limits[n]
    # with n players; a number written per count (`players(2 to 3: 15, 4: 13)`, `9 - players`) is bounded at
    # each count, as a literal is (limits_by_count says what a count the ruleset does not play holds)
    limits: tuple[int, ...]
    grow: tuple[tuple[int, ...], ...]  # [kind][hex]
    # the most E rises when `me` takes landmark lm (`count(owned(me, K))`), and per area `me` wins; a landmark
    # lost or an area won by another never raises E
    lm_grow: tuple[int, ...] = ()
    won_grow: int = 0
    reach: int = 0  # REACH's group size (`count(atleast(groups(me, K), reach))`)
    base: int = 0  # E where `me` has no tile, landmark or area: the numbers added in it (every other term is 0)


def threshold_of(node: A.Expr, t: Tables) -> Threshold | None:
    """The threshold form of a card condition, or None when it has none this analysis can bound."""
    r = reads_of(node, t)
    if r.everything or any(r.anyone) or r.landmarks_anyone or r.won_anyone:
        return None  # other players' moves could move it: never bounded by `me`'s own tiles
    match node:
        case A.BinOp(op=">=" | ">" as op, left=e, right=n):
            up = op == ">"  # E > N holds once E >= N + 1
        case A.BinOp(op="<=" | "<" as op, left=n, right=e):
            up = op == "<"
        case _:
            return None
    limits = limits_by_count(n, t.players)
    if limits is None:
        return None
    try:
        gr = _Growth(t)
        grow = gr.of(e, top=True)
    except (_Unknown, ValueError, TypeError, AttributeError, RecursionError):
        return None
    return Threshold(e, tuple(x + up for x in limits), tuple(tuple(row) for row in grow), tuple(gr.lm), gr.won,
                     gr.reach, _numbers(e))


def limits_by_count(n: A.Expr, players: tuple[int, int]) -> tuple[int, ...] | None:
    """A number that reads nothing but the player count, a constant of the game (a literal, `players`, a
    `players(...)` table, or these added, subtracted or multiplied), per count from 0 to MAX_PLAYERS. None for
    anything else, or a table that leaves out a count the ruleset plays (`players`: its (fewest, most);
    check/checks.py refuses such a table). A count it does not play (a scenario may set one) where a table
    says nothing holds the nearest played count's number: the card itself cannot be read there."""
    lo, hi = players

    def at(x: A.Expr, c: int) -> int | None:
        match x:
            case A.Num(value=v):
                return int(v)
            case A.Call(fn="players", args=()):
                return c
            case A.Call(fn="players", args=args):
                return player_table(args).get(c)
            case A.BinOp(op="+" | "-" | "*" as op, left=a, right=b):
                va, vb = at(a, c), at(b, c)
                if va is None or vb is None:
                    return None
                return va + vb if op == "+" else va - vb if op == "-" else va * vb
        return None

    per = [at(n, c) for c in range(MAX_PLAYERS + 1)]
    if any(per[c] is None for c in range(lo, hi + 1)):
        return None
    out: list[int] = []
    for c, v in enumerate(per):
        near = per[min(max(c, lo), hi)]
        out.append(v if v is not None else near if near is not None else 0)
    return tuple(out)


def _numbers(e: A.Expr) -> int:
    """The numbers added in a measure _Growth accepts: its value where `me` has nothing."""
    match e:
        case A.Num(value=n):
            return int(n)
        case A.BinOp(op="+", left=a, right=b):
            return _numbers(a) + _numbers(b)
    return 0  # a count, size, largest group or sum of values of `me`'s own tiles, landmarks or areas


class _Growth:
    """The most an int expression, read for `me`, can rise by after one tile of `me` (per kind and hex);
    _Unknown when it is not bounded so (a group can merge into any size: `largest` is never bounded)."""

    def __init__(self, t: Tables) -> None:
        self.t = t
        self.r = _Reader(t)
        self.nk = len(t.tile_kinds)
        # how far E rises per landmark `me` takes and per area `me` wins: summed over E's terms as `of` meets
        # them (each term appears once in E, so the sum of the terms' bounds bounds E)
        self.lm = [0] * len(t.landmark_kind)
        self.won = 0
        self.reach = 0

    def table(self, kinds: frozenset[int] | tuple[int, ...], mask: list[bool], by: int) -> list[list[int]]:
        return [[by if k in kinds and m else 0 for m in mask] for k in range(self.nk)]

    def additive(self, s: A.Expr) -> tuple[tuple[int, ...], list[bool]]:
        """A hex set that only `me`'s tiles join, one hex per tile, where the mask says: (kinds, mask)."""
        t = self.t
        match s:
            case A.Call(fn="tiles", args=(A.Name(id="me"), *sel)):
                return selected_kinds(t, tuple(sel)), [True] * t.n
            case A.Call(fn="at" | "near", args=(x, target)):
                kinds, mask = self.additive(x)
                probe = A.Call(fn=s.fn, args=(A.Call(fn="tiles", args=(A.Name(id="me"),)), target))
                keep = self.r.hexset(probe)[0].mine[0]  # the filter's hexes, exactly as the reads see them
                return kinds, [m and bool(keep >> h & 1) for h, m in enumerate(mask)]
        raise _Unknown("not additive")

    def of(self, e: A.Expr, top: bool = False) -> list[list[int]]:  # noqa: C901 - one case per shape
        t = self.t
        match e:
            case A.Num():
                return self.table((), [False] * t.n, 0)
            case A.BinOp(op="+", left=a, right=b):
                ga, gb = self.of(a), self.of(b)
                return [[x + y for x, y in zip(ra, rb, strict=True)] for ra, rb in zip(ga, gb, strict=True)]
            case A.Call(fn="largest", args=(A.Call(fn="groups", args=(A.Name(id="me"), *sel)),)) if top:
                return self.table(selected_kinds(t, tuple(sel)), [True] * t.n, GROUP)
            case A.Call(fn=fn, args=(s,)) if fn in t.attributes and top:
                kinds, mask = self.additive(s)
                return self.table(tuple(k for k in kinds if k in self.r.valued), mask, VALUE)
            case A.Call(fn="count" | "size", args=(A.Call(fn="atleast", args=(
                    A.Call(fn="groups", args=(A.Name(id="me"), *sel)), A.Num(value=n))),)) if top:
                # only the tile's own group can newly reach n tiles (merged groups are gone, others unchanged)
                self.reach = int(n)
                return self.table(selected_kinds(t, tuple(sel)), [True] * t.n, REACH)
            case A.Call(fn="count" | "size", args=(s,)):
                match s:
                    case A.Call(fn="areas", args=(x,)):  # one tile adds at most one area
                        kinds, mask = self.additive(x)
                        return self.table(kinds, mask, 1)
                    case A.Call(fn="touched", args=(A.Name(id="me"), A.Name(id=kind))):
                        near = [0] * t.n  # a tile touches at most the landmarks of the kind around it
                        for lm, k in enumerate(t.landmark_kind):
                            if k == kind:
                                for m in t.neighbours[t.landmark_hex[lm]]:
                                    near[m] += 1
                        return [list(near) for _ in range(self.nk)]
                    case A.Call(fn="atleast", args=(A.Call(fn="groups", args=(A.Name(id="me"), *sel)), size)) \
                            if self.r.value(size) == self.r.none:
                        # a tile makes at most one more group reach the size: its own (merging never adds two)
                        return self.table(selected_kinds(t, tuple(sel)), [True] * t.n, 1)
                    case A.Call(fn="owned", args=(A.Name(id="me"), A.Name(id=kind))):
                        for lm, k in enumerate(t.landmark_kind):  # one more for each landmark of the kind taken
                            self.lm[lm] += k == kind
                        return self.table((), [False] * t.n, 0)  # tiles never move it
                    case A.Call(fn="won", args=(A.Name(id="me"),)):
                        self.won += 1  # one more for each area won
                        return self.table((), [False] * t.n, 0)
                kinds, mask = self.additive(s)
                return self.table(kinds, mask, 1)
        raise _Unknown("unbounded")


__all__ = ["GROUP", "REACH", "VALUE", "Reads", "Threshold", "limits_by_count", "reads_of", "threshold_of"]
