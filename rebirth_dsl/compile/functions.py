"""What each built-in function does, one class per function beside its signature (lang/functions.py): the
closure (compile/closures.py's reference), the generated Python (compile/exprgen.py), the C (native/cexpr.py),
the delta evaluator of immediate points (play/points.py), and what it reads for the incremental mission
checks (compile/reads.py) and for the immediate points (play/points.py). Each of those consumers keeps the
shared part of its job (the node kinds other than calls, its helpers, its constants) and asks the entry
of a call's function for the rest, so a new function is one entry here and one in lang/functions.py.

An entry's method gets the consumer as its first argument (`c`, `gen`, `cg`, `dc`, `r`, `pr`): the
consumer's helpers are the entry's tools (what each uses is its Protocol below), and the entry holds only
what is this function's own. A method an entry leaves out means "not this way": no C (the native backend
refuses the ruleset and says which function), no delta (the immediate-points reader asks the probe for
that hex), no reads (the expression reads everything: it is re-read after every placement). Each is exact
by construction, only slower.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import itemgetter

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.emit import bitset, c_int, literal
from rebirth_dsl.compile.prims import Ctx, best, fewest, most, selected_kinds
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES, Signature, player_table
from rebirth_dsl.shared_methods import replace

if TYPE_CHECKING:
    from typing import Any, ClassVar, Protocol

    from rebirth_dsl.compile.prims import ExprGame, Fn
    from rebirth_dsl.compile.reads import Reads
    from rebirth_dsl.compile.ruleset import Ruleset

    # ----- the consumers, as the entries see them ------------------------------------------------------------
    # Each consumer is a class of its own module, some above compile/ (native/, play/), which this module may not
    # import: an entry names what it uses of its consumer here, and mypy checks each consumer class against it
    # where it hands itself to an entry.
    class DeltaView(Protocol):
        """One candidate placement as a delta evaluator reads it (play/points.Delta): the position, the tile
        placed and what it changes, and the position's values cached for the batch."""

        @property
        def g(self) -> ExprGame: ...
        @property
        def p(self) -> int: ...  # the placer
        @property
        def k(self) -> int: ...  # the placed tile's kind
        @property
        def v(self) -> int: ...  # its value
        @property
        def h(self) -> int: ...  # its hex
        @property
        def merged(self) -> tuple[int, ...]: ...  # roots (of the position) the new tile's group absorbs
        @property
        def new_size(self) -> int: ...  # the new tile's group size; 0 when its kind does not group
        @property
        def lm_post(self) -> dict[int, int]: ...  # landmarks changing hands
        @property
        def area_post(self) -> tuple[int, int] | None: ...  # (area, first place) of an area it completes
        @property
        def cache(self) -> dict[Any, Any]: ...  # (node id, seat, ...) -> a base value of the position

    Ev = Callable[[DeltaView, int], Any]  # a delta evaluator: f(delta, me) -> the value after the delta's placement

    class ClosureCompiler(Protocol):
        """What an entry's `closure` uses of compile/closures._Compiler."""

        @property
        def t(self) -> Tables: ...
        def expr(self, node: A.Expr) -> Fn: ...
        def tile_kinds(self, args: tuple[A.Expr, ...]) -> frozenset[int]: ...
        def hex_pred(self, a: A.Expr) -> Callable[[int], bool]: ...

    class PythonGen(Protocol):
        """What an entry's `python` uses of compile/exprgen._Gen."""

        @property
        def t(self) -> Tables: ...
        @property
        def group_kinds(self) -> frozenset[int] | None: ...
        def const(self, value: object) -> str: ...
        def derived(self, helper: str, const: str) -> str: ...
        def src(self, node: A.Expr, me: str) -> str: ...
        def kinds(self, args: tuple[A.Expr, ...]) -> tuple[int, ...]: ...
        def mask(self, a: A.Expr) -> str: ...
        def reads(self, table: str, items: tuple[int, ...]) -> str: ...
        def per_player(self, e: A.Expr) -> str: ...
        def my_owned_count(self, e: A.Expr) -> bool: ...
        def against_all(self, e: A.Expr, me: str, op: str) -> str: ...
        def my_tiles(self, node: A.Expr) -> bool: ...
        def hex_list(self, node: A.Expr, me: str, only: frozenset[int] | None = None) -> str: ...
        def sums(self, read: str, hexes: A.Expr, me: str, only: frozenset[int] | None = None) -> str: ...
        def my_tiles_in(self, node: A.Call, me: str) -> str: ...
        def hex_flags(self, node: A.Call) -> list[bool]: ...
        def table(self, values: tuple[object, ...]) -> str: ...
        def near_mask(self, target: A.Expr) -> str: ...
        def my_touches(self, kind: A.Expr, me: str) -> str: ...
        def landmarks(self, kind: A.Expr) -> tuple[int, ...]: ...

    class CGen(Protocol):
        """What an entry's `c` uses of native/cexpr.ExprGen."""

        @property
        def t(self) -> Tables: ...
        @property
        def words(self) -> int: ...
        tile_counts: bool
        def _name(self, prefix: str) -> str: ...
        def const(self, key: tuple[str, ...], ctype: str, values: list[int]) -> str: ...
        def hexmask(self, mask: list[bool] | tuple[bool, ...]) -> str: ...
        def kindmask(self, args: tuple[A.Expr, ...]) -> int: ...
        def tiles_read(self, mask: int) -> int: ...
        def tile_counter(self, kinds: int, hexes: list[bool] | tuple[bool, ...]) -> int | None: ...
        def gen(self, node: A.Expr) -> tuple[list[str], str, str]: ...
        def scalar(self, node: A.Expr) -> tuple[list[str], str]: ...
        def hexes(self, node: A.Expr) -> tuple[list[str], str]: ...
        def groups(self, node: A.Expr) -> tuple[list[str], str]: ...
        def _group_mask(self) -> int: ...
        def _landmarks_of(self, kind_arg: A.Expr) -> tuple[str, int]: ...
        def _per_player(self, helper: str, node: A.Expr, with_me: bool) -> tuple[list[str], str, str]: ...

    class DeltaCompiler(Protocol):
        """What an entry's `delta` uses of play/points._DeltaCompiler."""

        @property
        def rs(self) -> Ruleset: ...
        @property
        def t(self) -> Tables: ...
        def expr(self, node: A.Expr) -> Ev: ...
        def kinds(self, args: tuple[A.Expr, ...]) -> frozenset[int]: ...
        def _filter(self, f: Ev, mask: list[bool] | tuple[bool, ...], key: int) -> Ev: ...
        def _lms(self, kind: str) -> list[int]: ...

    class ValueReads(Protocol):
        """What an entry's `reads`/`reads_set` use of compile/reads._Reader."""

        @property
        def t(self) -> Tables: ...
        @property
        def nk(self) -> int: ...  # how many tile kinds
        @property
        def all_hexes(self) -> int: ...  # every hex, as a bit mask
        @property
        def none(self) -> Reads: ...  # reads nothing
        def mask(self, flags: list[bool]) -> int: ...
        def tiles_at(self, kinds: tuple[int, ...], hexes: int, mine: bool) -> Reads: ...
        def player(self, e: A.Expr) -> tuple[bool, Reads]: ...
        def value(self, node: A.Expr) -> Reads: ...
        def coll(self, node: A.Expr) -> tuple[Reads, Reads]: ...
        def hexset(self, node: A.Expr) -> tuple[Reads, Reads]: ...
        def only(self, r: Reads, hexes: int) -> Reads: ...

    class PlacementReads(Protocol):
        """What an entry's `touches`/`touches_set` use of play/points._Reads."""

        @property
        def t(self) -> Tables: ...
        @property
        def nk(self) -> int: ...  # how many tile kinds
        @property
        def near_kind(self) -> dict[str, list[bool]]: ...  # landmark kind -> the hexes next to one
        @property
        def near_any(self) -> list[bool]: ...  # the hexes next to any landmark
        def none(self) -> Table: ...
        def every(self, row: list[bool]) -> Table: ...
        def lor(self, a: Table, b: Table) -> Table: ...
        def scalar(self, node: A.Expr) -> tuple[Table, bool]: ...
        def anyset(self, node: A.Expr) -> tuple[Table, bool]: ...
        def coll(self, node: A.Expr) -> tuple[Table, Table, bool]: ...
        def hexset(self, node: A.Expr) -> tuple[Table, Table, bool]: ...

Table = list[list[bool]]  # [tile kind][hex]: which placements can change a value (play/points.py _Reads)


class DeltaUnsupported(Exception):
    """An expression the delta evaluator does not compute; its hexes use the probe (play/points.py)."""


# ----- the delta evaluator's values: the position's part (cached) and what the placement adds -------------
class _Hexes:
    __slots__ = ("base", "extra")

    def __init__(self, base: list[int], extra: int) -> None:
        self.base, self.extra = base, extra  # extra: the placed hex when it belongs, else -1


class _Groups:
    __slots__ = ("base", "roots", "removed", "added")

    def __init__(self, base: list[int], roots: dict[int, int], removed: tuple[int, ...], added: int) -> None:
        self.base, self.roots, self.removed, self.added = base, roots, removed, added


class _Items:
    __slots__ = ("items",)

    def __init__(self, items: list[int]) -> None:
        self.items = items  # landmarks or areas, the post-placement list in full


def _root(parent: list[int], x: int) -> int:
    """Union-find root without path halving: the position is only read, never changed."""
    while parent[x] != x:
        x = parent[x]
    return x


def _neighbours(rings: tuple[tuple[int, ...], ...], hexes: Iterable[int]) -> list[int]:
    """The hexes next to any of `hexes` and not among them, in hex order."""
    inside = set(hexes)
    out: set[int] = set()
    for h in inside:
        out.update(rings[h])
    return sorted(out - inside)


def _is_hex(node: A.Expr) -> bool:
    """Whether an argument is one hex (`placed`) rather than a set of hexes."""
    from rebirth_dsl.check.types import VARIABLES  # the expression types: asked by code generation only

    return isinstance(node, A.Name) and VARIABLES.get(node.id, ("",))[0] == "hex"


NEIGHBOURS_C = r"""
/* the hexes next to a set of hexes, the set left out; RINGS holds each hex's neighbours as W words */
static void rb_neighbours(const u64 *rings, const u64 *src, u64 *out) {
    memset(out, 0, sizeof(u64) * W);
    for (int w = 0; w < W; w++)
        for (u64 b = src[w]; b; b &= b - 1) {
            const u64 *r = rings + (w * 64 + __builtin_ctzll(b)) * W;
            for (int x = 0; x < W; x++) out[x] |= r[x];
        }
    for (int w = 0; w < W; w++) out[w] &= ~src[w];
}
static void rb_neighbours_of(const u64 *rings, i64 h, u64 *out) {
    memset(out, 0, sizeof(u64) * W);
    if (h < 0 || h >= NH) return;
    for (int w = 0; w < W; w++) out[w] = rings[h * W + w];
}
"""


# ----- the entries ------------------------------------------------------------------------------------
class Builtin:
    """One built-in function: its signature (from lang/functions.py) and its implementation per consumer."""

    name: ClassVar[str]
    # what the function's generated Python may call (added to exprgen's helpers) and the C it needs (emitted
    # once, after the state and helpers of native/ctext.py, when an expression uses it)
    py_helpers: ClassVar[dict[str, Callable[..., Any]]] = {}
    c_helpers: ClassVar[str] = ""

    @property
    def sig(self) -> Signature:
        """The function as the language declares it."""
        return SIGNATURES[self.name]

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        """The reference: a closure f(ctx) of the call (c: closures._Compiler)."""
        raise NotImplementedError(self.name)

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        """The call as a Python expression reading `g` and `me` (gen: exprgen._Gen)."""
        raise NotImplementedError(self.name)

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str] | None:
        """(statements, C expression, kind) of the call (cg: native.cexpr.ExprGen); None: no C for it."""
        return None

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev | None:
        """The call's value after a candidate placement (dc: points._DeltaCompiler); None: the probe."""
        return None

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        """A collection's reads (r: reads._Reader) as (where an added tile joins it, what else changes it);
        None: not known."""
        return None

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        """What the call's value for `me` depends on (reads._Reader.value); None: not known."""
        got = self.reads_set(r, args)
        return None if got is None else got[0] | got[1]

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        """A collection's placements that change it (pr: points._Reads), as (where the placed hex joins it,
        what else changes it, whether it reads who won an area); None: not known."""
        return None

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        """The placements that change the call's value, and whether it reads who won an area."""
        got = self.touches_set(pr, args)
        return None if got is None else (pr.lor(got[0], got[1]), got[2])


FUNCTIONS: dict[str, Builtin] = {}


def builtin(cls: type[Builtin]) -> type[Builtin]:
    """Register an entry under its function's name (which lang/functions.py must declare)."""
    assert cls.name in SIGNATURES, cls.name
    FUNCTIONS[cls.name] = cls()
    return cls


# ----- helpers of the generated Python -----------------------------------------------------------------
# Calls whose arguments are expressions get a helper: each argument is evaluated once, where a comprehension
# would evaluate it again for every element (nested, that multiplies: a threshold inside a threshold...).
def _tiles(g: ExprGame, p: int, kinds: tuple[int, ...]) -> list[int]:
    if p < 0:
        return []
    mine = g.tiles_of[p]
    if len(kinds) == 1:
        return mine[kinds[0]]
    out: list[int] = []
    for k in kinds:  # list extension copies in C: a comprehension would step through every hex in Python
        out += mine[k]
    return out


def _atleast(sizes: list[int], n: int) -> list[int]:
    return [x for x in sizes if x >= n]


def _group_sizes(g: ExprGame, p: int, kinds: tuple[int, ...]) -> list[int]:
    """The sizes of a player's groups of these kinds, read off the union-find roots. A `groups` value is
    only ever counted, measured (`largest`) or filtered by size (`atleast`), so the generated code carries
    sizes where the closures carry hex lists: no group is built or sorted (tests/engines/test_fast.py proves the
    two give the same results). A group's root is one of its own tiles (a union only links tiles of one
    owner and kind), so the roots are the player's tiles that are their own parent: one per group."""
    if p < 0:
        return []
    group_kinds, parent, gsize, mine = g.rs.group_kinds, g.parent, g.gsize, g.tiles_of[p]
    # loops (the interpreter specialises their list reads) where a comprehension costs a frame and map() a
    # method call per tile
    out: list[int] = []
    for k in kinds:
        if k in group_kinds:
            for h in mine[k]:
                if parent[h] == h:
                    out.append(gsize[h])
    return out


def _largest_in(gsize: list[int], *lists: list[int]) -> int:
    """The largest size recorded on any tile of these lists, 0 for none (see _largest). A loop: its list reads
    and comparisons are specialised by the interpreter, where max(map(gsize.__getitem__, ...)) calls a method
    per tile."""
    top = 0
    for hexes in lists:
        for h in hexes:
            s = gsize[h]
            if s > top:
                top = s
    return top


def _largest(g: ExprGame, p: int, kinds: tuple[int, ...]) -> int:
    """`largest(groups(p, kinds))` without finding a root: the largest size recorded on any of the tiles.
    A union adds the joining root's size to the other root's, and only a root's size ever changes, so a
    tile that stopped being a root keeps the size its group had then, never more than its root's now: the
    largest of all the tiles' sizes is the largest root's."""
    if p < 0:
        return 0
    group_kinds, mine = g.rs.group_kinds, g.tiles_of[p]
    return _largest_in(g.gsize, *(mine[k] for k in kinds if k in group_kinds))


def _touched(g: ExprGame, rings: tuple[tuple[int, Callable[[list[int]], tuple[int, ...]]], ...], p: int) -> list[int]:
    if p < 0:  # nobody touches anything (an empty hex's owner is -1 too)
        return []
    owner = g.owner
    return [i for i, ring in rings if p in ring(owner)]


def _ring_getters(
    rings: tuple[tuple[int, tuple[int, ...]], ...],
) -> tuple[tuple[int, Callable[[list[int]], tuple[int, ...]]], ...]:
    """Each landmark's ring of hexes as an itemgetter, reading the owners around it in one call (a ring of
    one hex is read twice, so the getter still returns a tuple)."""
    return tuple((i, itemgetter(*ring) if len(ring) > 1 else itemgetter(*ring, *ring)) for i, ring in rings if ring)


def _owned(g: ExprGame, lms: tuple[int, ...], p: int) -> list[int]:
    lm_owner = g.lm_owner
    return [i for i in lms if lm_owner[i] == p]


def _won(g: ExprGame, p: int) -> list[int]:
    return [a for a, first in g.area_first.items() if first == p]


@builtin
class Count(Builtin):
    name = "count"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        return lambda ctx: len(f(ctx))

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        a = args[0]
        if isinstance(a, A.Call) and a.fn in ("at", "near"):  # counted, never built
            if gen.my_tiles(a.args[0]):
                return gen.my_tiles_in(a, me)
            return gen.sums(gen.table(tuple(gen.hex_flags(a))), a.args[0], me)  # a sum of the mask's bools
        if isinstance(a, A.Call) and a.fn == "areas":  # counted: no need to sort them
            area = gen.table(tuple(int(x) for x in gen.t.area_of))
            # the set with -1 (no area) in it for sure, minus that one
            return f"(len({{-1, *map({area}, {gen.hex_list(a.args[0], me)})}}) - 1)"
        if gen.my_tiles(a):  # the lengths of the player's lists
            assert isinstance(a, A.Call)
            return "(" + " + ".join(f"len(g.tiles_of[{me}][{literal(k)}])" for k in gen.kinds(a.args[1:])) + ")"
        if isinstance(a, A.Call) and a.fn == "touched" and isinstance(a.args[0], A.Name) and a.args[0].id == "me":
            return gen.my_touches(a.args[1], me)
        if isinstance(a, A.Call) and a.fn == "owned":  # the owners read and counted, no list
            return f"{gen.reads('g.lm_owner', gen.landmarks(a.args[1]))}.count({gen.src(a.args[0], me)})"
        if isinstance(a, A.Call) and a.fn == "won":  # the first places counted, no list
            return f"[*g.area_first.values()].count({gen.src(a.args[0], me)})"
        return f"len({gen.src(a, me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """count/size of any collection, from counters where it can be."""
        a = args[0]
        if isinstance(a, A.Call) and a.fn == "tiles":  # the per-seat counters, no bitset
            mask = cg.kindmask(a.args[1:])
            s, p = cg.scalar(a.args[0])
            cg.tile_counts = True
            return s, f"rb_tcount(s, (int){p}, {c_int(mask)}u)", "int"
        if isinstance(a, A.Call) and a.fn == "group":  # the union-find root's size
            s, h = cg.scalar(a.args[0])
            return s, f"rb_group_size(s, (int){h})", "int"
        counted = _c_tile_counter(cg, a)
        if counted is not None:
            return counted
        s, e, kind = cg.gen(a)
        if kind == "hexes":
            return s, f"rb_popcount({e})", "int"
        if kind == "groups":
            return s, f"((i64)n{e})", "int"
        return s, e, "int"  # landmarks and areas are their count

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f = dc.expr(args[0])

        def count(d: DeltaView, me: int) -> int:
            x = f(d, me)
            if type(x) is _Hexes:
                return len(x.base) + (x.extra >= 0)
            if type(x) is _Groups:
                rm = sum(1 for r in x.removed if r in x.roots)
                return len(x.base) - rm + (x.added > 0)
            return len(x.items)

        return count

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        adds, other = r.coll(args[0])
        return adds | other

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        return pr.anyset(args[0])

@builtin
class Size(Count):
    name = "size"  # count under another name: the same in every engine


@builtin
class Tiles(Builtin):
    name = "tiles"
    py_helpers = {"_tiles": _tiles}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        fp = c.expr(args[0])
        kinds = c.tile_kinds(args[1:])

        order = sorted(kinds)

        def tiles(ctx: Ctx) -> list[int]:
            # kept per seat and kind as tiles are placed; callers only read the list
            p = fp(ctx)  # once: the player may be an expression (best(...)), costly to evaluate
            if p < 0:
                return []
            mine = ctx.g.tiles_of[p]
            if len(order) == 1:
                return mine[order[0]]
            return [h for k in order for h in mine[k]]

        return tiles

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        kinds = gen.kinds(args[1:])
        if isinstance(args[0], A.Name) and args[0].id == "me" and len(kinds) == 1:
            return f"g.tiles_of[{me}][{literal(kinds[0])}]"  # `me` is always a seat
        return f"_tiles(g, {gen.src(args[0], me)}, {literal(kinds)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """tiles(P, kinds...): the player's tiles (nobody's: none)."""
        mask = cg.tiles_read(cg.kindmask(args[1:]))
        s, p = cg.scalar(args[0])
        v = cg._name("t")
        return s + [f"u64 {v}[W]; rb_tiles(s, (int){p}, {c_int(mask)}u, {v});"], v, "hexes"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        fp = dc.expr(args[0])
        kinds = dc.kinds(args[1:])
        order = sorted(kinds)
        key = id(args)

        def tiles(d: DeltaView, me: int) -> _Hexes:
            who = fp(d, me)
            ck = (key, who)
            base = d.cache.get(ck)
            if base is None:
                base = []
                if who >= 0:
                    mine = d.g.tiles_of[who]
                    for k in order:  # the kinds in order, each list copied whole
                        base += mine[k]
                d.cache[ck] = base
            return _Hexes(base, d.h if who == d.p and d.k in kinds else -1)

        return tiles

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        me, who = r.player(args[0])
        return r.tiles_at(selected_kinds(r.t, args[1:]), r.all_hexes, me), who

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        kinds = frozenset(selected_kinds(pr.t, args[1:]))
        other, w = pr.scalar(args[0])
        return [[k in kinds] * pr.t.n for k in range(pr.nk)], other, w

@builtin
class Hexes(Builtin):
    name = "hexes"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        pred = c.hex_pred(args[0])
        hexes = [h for h in range(c.t.n) if pred(h)]
        return lambda ctx: hexes

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        assert isinstance(args[0], A.Name)
        m = gen.t.hex_matches(args[0].id)
        return gen.const(tuple(h for h in range(gen.t.n) if m[h]))

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """hexes(KIND|TAG): a constant set."""
        assert isinstance(args[0], A.Name)
        return [], cg.hexmask(cg.t.hex_matches(args[0].id)), "hexes"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        assert isinstance(args[0], A.Name)
        m = dc.t.hex_matches(args[0].id)
        hexes = [h for h in range(dc.t.n) if m[h]]
        return lambda d, me: _Hexes(hexes, -1)

    # The set is the board's hexes of a kind and never changes, but what lies on them does: a tile anyone
    # places on one of them joins what a sum of values over the set (`influence(hexes(K))`) reads.
    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        assert isinstance(args[0], A.Name)
        return r.tiles_at(tuple(range(r.nk)), r.mask(r.t.hex_matches(args[0].id)), False), r.none

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        assert isinstance(args[0], A.Name)
        return pr.every(list(pr.t.hex_matches(args[0].id))), pr.none(), False

@builtin
class Group(Builtin):
    name = "group"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        fh = c.expr(args[0])
        return lambda ctx: ctx.g.group_of(fh(ctx))

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"g.group_of({gen.src(args[0], me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """group(H): the hexes of the group holding H (none for an empty or ungrouped hex)."""
        cg.tiles_read(cg._group_mask())
        s, h = cg.scalar(args[0])
        v = cg._name("t")
        return s + [f"u64 {v}[W]; rb_group(s, (int){h}, {v});"], v, "hexes"

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        # a group grows by merging, far from the added tile: anybody's tile anywhere, never filtered
        every = r.tiles_at(tuple(range(r.nk)), r.all_hexes, False)
        return r.none, every | r.value(args[0])

@builtin
class Groups(Builtin):
    name = "groups"
    py_helpers = {"_group_sizes": _group_sizes}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        fp = c.expr(args[0])
        kinds = c.tile_kinds(args[1:])
        return lambda ctx: ctx.g.groups_of(fp(ctx), kinds)

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_group_sizes(g, {gen.src(args[0], me)}, {literal(gen.kinds(args[1:]))})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """groups(P, kinds...): the sizes of the player's groups of those kinds."""
        mask = cg.tiles_read(cg.kindmask(args[1:]) & cg._group_mask())
        s, p = cg.scalar(args[0])
        v = cg._name("g")
        return s + [f"i32 {v}[TMAXX]; int n{v} = rb_groups(s, (int){p}, {c_int(mask)}u, {v});"], v, "groups"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        fp = dc.expr(args[0])
        kinds = dc.kinds(args[1:]) & dc.rs.group_kinds
        order = sorted(kinds)
        key = id(args)

        def groups(d: DeltaView, me: int) -> _Groups:
            who = fp(d, me)
            ck = (key, who)
            got = d.cache.get(ck)
            if got is None:
                roots: dict[int, int] = {}
                if who >= 0:
                    parent, gsize, mine = d.g.parent, d.g.gsize, d.g.tiles_of[who]
                    for k in order:
                        for h in mine[k]:
                            r = h  # its root (_root, written in place: a call per tile is most of the cost)
                            while parent[r] != r:
                                r = parent[r]
                            roots[r] = gsize[r]
                got = (list(roots.values()), roots)
                d.cache[ck] = got
            base, roots = got
            if who == d.p and d.k in kinds:
                return _Groups(base, roots, d.merged, d.new_size)
            return _Groups(base, roots, (), 0)

        return groups

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        me, who = r.player(args[0])  # groups merge anywhere: every hex of the kinds
        return r.tiles_at(selected_kinds(r.t, args[1:]), r.all_hexes, me), who

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        kinds = frozenset(selected_kinds(pr.t, args[1:]))
        a, w = pr.scalar(args[0])
        return [[k in kinds] * pr.t.n for k in range(pr.nk)], a, w

@builtin
class Largest(Builtin):
    name = "largest"
    py_helpers = {"_largest": _largest, "_largest_in": _largest_in}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        return lambda ctx: max((len(g) for g in f(ctx)), default=0)

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        a = args[0]
        if isinstance(a, A.Call) and a.fn == "groups":
            kinds = gen.kinds(a.args[1:])
            if gen.group_kinds is not None and isinstance(a.args[0], A.Name) and a.args[0].id == "me":
                kinds = tuple(k for k in kinds if k in gen.group_kinds)
                if not kinds:
                    return "0"
                # the player's lists of the kinds read in place (`me` is a seat): no test per kind in the game
                return f"_largest_in(g.gsize, {', '.join(f'g.tiles_of[{me}][{literal(k)}]' for k in kinds)})"
            return f"_largest(g, {gen.src(a.args[0], me)}, {literal(kinds)})"
        return f"max({gen.src(a, me)}, default=0)"  # groups are sizes here

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """largest(GROUPS): the largest size, 0 if none."""
        a = args[0]
        if isinstance(a, A.Call) and a.fn == "groups":  # no array: the largest root straight off the bitsets
            s, p = cg.scalar(a.args[0])
            mask = cg.kindmask(a.args[1:]) & cg._group_mask()
            return s, f"rb_largest(s, (int){p}, {c_int(mask)}u)", "int"
        s, g = cg.groups(a)
        return s, f"rb_max({g}, n{g})", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f = dc.expr(args[0])

        def largest(d: DeltaView, me: int) -> int:
            x = f(d, me)
            if type(x) is not _Groups:
                raise DeltaUnsupported("largest of a non-group set")
            # the groups merged into the new one are smaller than it, so they never decide the maximum
            top = max(x.base, default=0)
            return x.added if x.added > top else top

        return largest

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        adds, other = r.coll(args[0])
        return adds | other

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        return pr.anyset(args[0])

@builtin
class Atleast(Builtin):
    name = "atleast"
    py_helpers = {"_atleast": _atleast}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f, fn = c.expr(args[0]), c.expr(args[1])
        def atleast(ctx: Ctx) -> list[list[int]]:
            n = fn(ctx)  # once, not per group: nested thresholds would multiply
            return [g for g in f(ctx) if len(g) >= n]

        return atleast

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_atleast({gen.src(args[0], me)}, {gen.src(args[1], me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """atleast(GROUPS, N): the groups of at least N (N read once)."""
        s, g = cg.groups(args[0])
        s2, n = cg.scalar(args[1])
        v = cg._name("g")
        return s + s2 + [f"i32 {v}[TMAXX]; int n{v} = rb_atleast({g}, n{g}, {n}, {v});"], v, "groups"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f, fn = dc.expr(args[0]), dc.expr(args[1])
        key = id(args)

        def atleast(d: DeltaView, me: int) -> _Groups:
            x = f(d, me)
            if type(x) is not _Groups:
                raise DeltaUnsupported("atleast of a non-group set")
            n = fn(d, me)
            ck = (key, id(x.base), n)  # the child's groups are cached for the batch: their identity names them
            got = d.cache.get(ck)
            if got is None:
                roots = {r: s for r, s in x.roots.items() if s >= n}
                got = d.cache[ck] = (list(roots.values()), roots)
            return _Groups(got[0], got[1], x.removed, x.added if x.added >= n else 0)

        return atleast

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        adds, other = r.coll(args[0])
        return adds, other | r.value(args[1])

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        (a, wa), (b, wb) = pr.anyset(args[0]), pr.scalar(args[1])
        return a, b, wa or wb

def _c_tile_counter(cg: CGen, a: A.Expr) -> tuple[list[str], str, str] | None:
    """count(at/near(... tiles(P, kinds) ..., X)): a seat's tiles of fixed kinds on a fixed set of hexes (each
    `at` and `near` keeps those of its mask), read off the counter occupy keeps; None for any other form."""
    mask = [True] * cg.t.n
    while isinstance(a, A.Call) and a.fn in ("at", "near") and len(a.args) == 2:
        if a.fn == "at":
            if not isinstance(a.args[1], A.Name):
                return None
            keep: list[bool] | None = list(cg.t.hex_matches(a.args[1].id))
        else:
            keep = cg.t.near_mask(a.args[1])
        if keep is None:
            return None
        mask = [x and bool(y) for x, y in zip(mask, keep, strict=True)]
        a = a.args[0]
    if mask == [True] * cg.t.n or not (isinstance(a, A.Call) and a.fn == "tiles"):
        return None  # no filter: the per-kind counts (rb_tcount) already say it
    i = cg.tile_counter(cg.kindmask(a.args[1:]), mask)
    if i is None:
        return None
    s, p = cg.scalar(a.args[0])
    return s, f"rb_hcount(s, (int){p}, {c_int(i)})", "int"


@builtin
class At(Builtin):
    name = "at"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        pred = c.hex_pred(args[1])
        return lambda ctx: [h for h in f(ctx) if pred(h)]

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"[h for h in {gen.hex_list(args[0], me)} if {gen.mask(args[1])}[h]]"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """at(HEXES, KIND|TAG): those of a kind or with a tag."""
        s, src = cg.hexes(args[0])
        assert isinstance(args[1], A.Name)
        mask = cg.hexmask(cg.t.hex_matches(args[1].id))
        v = cg._name("t")
        return s + [f"u64 {v}[W]; rb_and({src}, {mask}, {v});"], v, "hexes"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        assert isinstance(args[1], A.Name)
        return dc._filter(dc.expr(args[0]), dc.t.hex_matches(args[1].id), id(args))

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        if not isinstance(args[1], A.Name):
            return None
        adds, other = r.hexset(args[0])
        return r.only(adds, r.mask(r.t.hex_matches(args[1].id))), other

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        if not isinstance(args[1], A.Name):
            return None
        mask = pr.t.hex_matches(args[1].id)
        adds, other, w = pr.hexset(args[0])
        return [[a and mask[h] for h, a in enumerate(row)] for row in adds], other, w

@builtin
class Near(Builtin):
    name = "near"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        target = args[1]
        nb = c.t.neighbours
        if isinstance(target, A.Landmark):
            lm = c.t.find_landmark(target.kind, target.name, target.tag)
            ring = frozenset(nb[c.t.landmark_hex[lm]]) if lm is not None else frozenset()
            return lambda ctx: [h for h in f(ctx) if h in ring]
        pred = c.hex_pred(target)
        near = [any(pred(m) for m in nb[h]) for h in range(c.t.n)]
        return lambda ctx: [h for h in f(ctx) if near[h]]

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"[h for h in {gen.hex_list(args[0], me)} if {gen.near_mask(args[1])}[h]]"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """near(HEXES, KIND|TAG|LANDMARK): those next to one."""
        t, target = cg.t, args[1]
        s, src = cg.hexes(args[0])
        near = t.near_mask(target)
        assert near is not None  # the checks allow only a landmark, kind or tag here
        mask = cg.hexmask(near)
        v = cg._name("t")
        return s + [f"u64 {v}[W]; rb_and({src}, {mask}, {v});"], v, "hexes"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        near = dc.t.near_mask(args[1])
        if near is None:
            raise DeltaUnsupported("near")
        return dc._filter(dc.expr(args[0]), near, id(args))

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        adds, other = r.hexset(args[0])
        near = r.t.near_mask(args[1])
        if near is None:
            return None
        return r.only(adds, r.mask(near)), other

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        adds, other, w = pr.hexset(args[0])
        near = pr.t.near_mask(args[1])
        if near is None:
            return None
        return [[a and near[h] for h, a in enumerate(row)] for row in adds], other, w

@builtin
class Neighbours(Builtin):
    """The hexes next to a hex or to a set of hexes, the given hexes left out: what a rules writer means by
    "next to" (a hex is not next to itself, and a group's own hexes are not next to the group)."""

    name = "neighbours"
    py_helpers = {"_neighbours": _neighbours}
    c_helpers = NEIGHBOURS_C

    @staticmethod
    def rings(t: Tables) -> tuple[tuple[int, ...], ...]:
        """Each hex's neighbours, in hex order (a constant of the board)."""
        return tuple(tuple(sorted(t.neighbours[h])) for h in range(t.n))

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f, rings = c.expr(args[0]), self.rings(c.t)
        if _is_hex(args[0]):
            return lambda ctx: rings[h] if (h := f(ctx)) >= 0 else ()
        return lambda ctx: _neighbours(rings, f(ctx))

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        rings, arg = gen.const(self.rings(gen.t)), gen.src(args[0], me)
        if _is_hex(args[0]):  # `placed`: a name, read twice
            return f"({rings}[{arg}] if {arg} >= 0 else ())"
        return f"_neighbours({rings}, {gen.hex_list(args[0], me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str] | None:
        t = cg.t
        rings = cg.const(("rings",), "u64", [w for h in range(t.n) for w in bitset([m in t.neighbours[h] for m in range(t.n)], cg.words)])
        s, e, kind = cg.gen(args[0])
        v = cg._name("t")
        if kind == "int":  # a hex
            return s + [f"u64 {v}[W]; rb_neighbours_of({rings}, {e}, {v});"], v, "hexes"
        return s + [f"u64 {v}[W]; rb_neighbours({rings}, {e}, {v});"], v, "hexes"

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        # a tile joining the hexes moves their neighbours, and any tile on a neighbour changes what is on
        # them (an attribute sum): anybody's tile anywhere, never filtered by `at` or `near`
        adds, other = r.hexset(args[0]) if not _is_hex(args[0]) else (r.none, r.value(args[0]))
        every = r.tiles_at(tuple(range(r.nk)), r.all_hexes, False)
        return r.none, every | adds | other


@builtin
class Touched(Builtin):
    name = "touched"
    py_helpers = {"_touched": _touched, "_ring_getters": _ring_getters}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        fp = c.expr(args[0])
        assert isinstance(args[1], A.Name)
        kind = args[1].id
        lms = [i for i, k in enumerate(c.t.landmark_kind) if k == kind]
        rings = {i: c.t.neighbours[c.t.landmark_hex[i]] for i in lms}

        def touched(ctx: Ctx) -> list[int]:
            p = fp(ctx)
            if p < 0:  # nobody touches anything (an empty hex's owner is -1 too)
                return []
            owner = ctx.g.owner
            return [i for i in lms if any(owner[h] == p for h in rings[i])]

        return touched

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        t = gen.t
        rings = tuple((i, tuple(t.neighbours[t.landmark_hex[i]])) for i in gen.landmarks(args[1]))
        return f"_touched(g, {gen.derived('_ring_getters', gen.const(rings))}, {gen.src(args[0], me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """touched(P, KIND): how many of the kind are next to the player's tiles."""
        s, p = cg.scalar(args[0])
        table, n = cg._landmarks_of(args[1])
        return s, f"rb_touched(s, {p}, {table}, {c_int(n)})", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        fp = dc.expr(args[0])
        assert isinstance(args[1], A.Name)
        t = dc.t
        lms = dc._lms(args[1].id)
        rings = {i: t.neighbours[t.landmark_hex[i]] for i in lms}
        # per landmark, its ring's owners read in one call (a landmark with no ring is touched by nobody)
        ring_of = _ring_getters(tuple((i, tuple(rings[i])) for i in lms))
        mine = set(lms)
        # landmarks of this kind next to each hex: a tile there touches them
        near = [tuple(t.landmark_of_hex[m] for m in t.neighbours[h]
                      if m in t.landmark_of_hex and t.landmark_of_hex[m] in mine) for h in range(t.n)]
        key = id(args)

        def touched(d: DeltaView, me: int) -> _Items:
            who = fp(d, me)
            ck = (key, who)
            base = d.cache.get(ck)
            if base is None:
                owner = d.g.owner
                base = [i for i, ring in ring_of if who in ring(owner)]
                d.cache[ck] = base
            if who != d.p:
                return _Items(base)
            extra = [i for i in near[d.h] if i not in base]
            return _Items(base + extra if extra else base)

        return touched

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        p, kind = args
        if not isinstance(kind, A.Name):
            return None
        me, who = r.player(p)
        t, ring = r.t, 0  # a landmark is touched by a tile on a hex around it
        for lm, k in enumerate(t.landmark_kind):
            if k == kind.id:
                for m in t.neighbours[t.landmark_hex[lm]]:
                    ring |= 1 << m
        return r.tiles_at(tuple(range(r.nk)), ring, me), who

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        if not isinstance(args[1], A.Name):
            return None
        a, w = pr.scalar(args[0])
        return pr.every(pr.near_kind.get(args[1].id, [False] * pr.t.n)), a, w

@builtin
class Owned(Builtin):
    name = "owned"
    py_helpers = {"_owned": _owned}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        fp = c.expr(args[0])
        assert isinstance(args[1], A.Name)
        kind = args[1].id
        lms = [i for i, k in enumerate(c.t.landmark_kind) if k == kind]
        def owned(ctx: Ctx) -> list[int]:
            p, lm_owner = fp(ctx), ctx.g.lm_owner
            return [i for i in lms if lm_owner[i] == p]

        return owned

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_owned(g, {gen.const(gen.landmarks(args[1]))}, {gen.src(args[0], me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """owned(P, KIND): how many of the kind the player holds."""
        s, p = cg.scalar(args[0])
        table, n = cg._landmarks_of(args[1])
        return s, f"rb_owned(s, {p}, {table}, {c_int(n)})", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        fp = dc.expr(args[0])
        assert isinstance(args[1], A.Name)
        lms = dc._lms(args[1].id)

        key = id(args)

        def owned(d: DeltaView, me: int) -> _Items:
            who = fp(d, me)
            own, post = d.g.lm_owner, d.lm_post
            if post:
                return _Items([i for i in lms if post.get(i, own[i]) == who])
            # no landmark changes hands: the position's list, read once per seat (`most` reads every seat's)
            ck = (key, who)
            base = d.cache.get(ck)
            if base is None:
                base = d.cache[ck] = [i for i in lms if own[i] == who]
            return _Items(base)

        return owned

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        if not isinstance(args[1], A.Name):
            return None
        me, who = r.player(args[0])
        return replace(r.none, landmarks_mine=me, landmarks_anyone=not me), who

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        if not isinstance(args[1], A.Name):
            return None
        a, w = pr.scalar(args[0])
        return pr.every(pr.near_kind.get(args[1].id, [False] * pr.t.n)), a, w

@builtin
class Owner(Builtin):
    name = "owner"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        def owner(ctx: Ctx) -> int:
            lm = f(ctx)
            return ctx.g.lm_owner[lm] if lm >= 0 else -1

        return owner

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        lm = gen.src(args[0], me)
        if lm.lstrip("-").isdigit():  # a landmark resolved at compile time
            return "-1" if int(lm) < 0 else f"g.lm_owner[{lm}]"
        return f"(lambda L: g.lm_owner[L] if L >= 0 else -1)({lm})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """owner(LANDMARK): its holder, or nobody."""
        s, lm = cg.scalar(args[0])
        return s, f"rb_owner(s, {lm})", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f = dc.expr(args[0])

        def owner(d: DeltaView, me: int) -> int:
            lm = f(d, me)
            return d.lm_post.get(lm, d.g.lm_owner[lm]) if lm >= 0 else -1

        return owner

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        got = r.value(args[0])
        return got | replace(r.none, landmarks_anyone=True)  # whoever takes or loses it

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        a, w = pr.scalar(args[0])
        return pr.lor(a, pr.every(pr.near_any)), w

@builtin
class Areas(Builtin):
    name = "areas"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        area_of = c.t.area_of
        return lambda ctx: sorted({area_of[h] for h in f(ctx) if area_of[h] >= 0})  # one shape with exprgen: a sorted list

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        area = gen.const(tuple(int(a) for a in gen.t.area_of))
        return f"sorted({{{area}[h] for h in {gen.src(args[0], me)} if {area}[h] >= 0}})"  # as closures.py: a sorted list

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """areas(HEXES): how many distinct areas they lie in."""
        s, src = cg.hexes(args[0])
        return s, f"rb_areas(s, {src})", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f = dc.expr(args[0])
        area_of = dc.t.area_of
        key = id(args)

        def areas(d: DeltaView, me: int) -> _Items:
            x = f(d, me)
            if type(x) is not _Hexes:
                raise DeltaUnsupported("areas of a non-hex set")
            ck = (key, id(x.base))
            base = d.cache.get(ck)
            if base is None:
                base = sorted({area_of[h] for h in x.base if area_of[h] >= 0})
                d.cache[ck] = base
            a = area_of[x.extra] if x.extra >= 0 else -1
            return _Items(base + [a] if a >= 0 and a not in base else base)

        return areas

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        adds, other = r.hexset(args[0])
        return adds | other, r.none

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        return pr.hexset(args[0])

@builtin
class Won(Builtin):
    name = "won"
    py_helpers = {"_won": _won}

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        fp = c.expr(args[0])
        def won(ctx: Ctx) -> list[int]:
            p = fp(ctx)
            return [a for a, first in ctx.g.area_first.items() if first == p]

        return won

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_won(g, {gen.src(args[0], me)})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """won(P): how many completed areas ranked the player first."""
        s, p = cg.scalar(args[0])
        return s, f"rb_won(s, {p})", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        fp = dc.expr(args[0])

        def won(d: DeltaView, me: int) -> _Items:
            who = fp(d, me)
            out = [a for a, first in d.g.area_first.items() if first == who]
            if d.area_post is not None and d.area_post[1] == who:
                out.append(d.area_post[0])
            return _Items(out)

        return won

    def reads_set(self, r: ValueReads, args: tuple[A.Expr, ...]) -> tuple[Reads, Reads] | None:
        me, who = r.player(args[0])
        return replace(r.none, won_mine=me, won_anyone=not me), who

    def touches_set(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, Table, bool] | None:
        a, _ = pr.scalar(args[0])
        return a, pr.none(), True

@builtin
class Players(Builtin):
    """The number of players at the table: a constant of the game, so a threshold can follow the count
    (`count(won(me)) >= 9 - players`); with a table, `players(2 to 3: 15, 4: 13)`, the number the table gives
    for that count (lang/functions.py player_table decides it; each engine below reads that one dict). It
    reads no tile: no placement changes it."""

    name = "players"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        if not args:
            return lambda ctx: ctx.g.n_players
        table = player_table(args)
        return lambda ctx: table[ctx.g.n_players]

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        if not args:
            return "g.n_players"
        return f"{gen.const(player_table(args))}[g.n_players]"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str] | None:
        """players: the state's seat count; a table: a constant array indexed by it, over every count the
        ruleset plays (None, no C, for a table that leaves one out: the checker refuses it first)."""
        if not args:
            return [], "((i64)s->n)", "int"
        table = player_table(args)
        lo, hi = cg.t.players
        if any(n not in table for n in range(lo, hi + 1)):
            return None
        values = [table.get(n, 0) for n in range(hi + 1)]  # below `lo` never read: the game refuses the count
        return [], f"((i64){cg.const(('players', ','.join(map(str, values))), 'i64', values)}[s->n])", "int"

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        if not args:
            return lambda d, me: d.g.n_players
        table = player_table(args)
        return lambda d, me: table[d.g.n_players]

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        return r.none

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        return pr.none(), False


class _Standing(Builtin):
    """most(E) and fewest(E): `me` has at least (most) or at most (fewest) as much as every other player; a
    tie fulfils it. One entry for both, the direction its only difference."""

    at_least: ClassVar[bool]

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        prim = most if self.at_least else fewest
        return lambda ctx: prim(ctx.g.n_players, ctx.me, lambda q: f(ctx.with_me(q)))

    # `me` is a seat wherever most/fewest can be read (check/types.py: they are bools, and a winner
    # tie-break, the one place `me` is nobody, is a player), so a list of every seat's value is indexed by it
    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        if gen.my_owned_count(args[0]):
            return f"_{self.name}_of({gen.per_player(args[0])}, {me})"
        return gen.against_all(args[0], me, "<=" if self.at_least else ">=")

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """The C helper rb_most or rb_fewest over every player's value."""
        return cg._per_player(f"rb_{self.name}", args[0], True)

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f = dc.expr(args[0])
        if self.at_least:
            def most_after(d: DeltaView, me: int) -> bool:
                v = f(d, me)
                return all(f(d, q) <= v for q in range(d.g.n_players) if q != me)
            return most_after

        def fewest_after(d: DeltaView, me: int) -> bool:
            v = f(d, me)
            return all(f(d, q) >= v for q in range(d.g.n_players) if q != me)
        return fewest_after

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        return r.value(args[0]).widened()  # read for every player

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        return pr.scalar(args[0])


@builtin
class Most(_Standing):
    name = "most"
    at_least = True


@builtin
class Fewest(_Standing):
    name = "fewest"
    at_least = False

@builtin
class Best(Builtin):
    name = "best"

    def closure(self, c: ClosureCompiler, args: tuple[A.Expr, ...]) -> Fn:
        f = c.expr(args[0])
        return lambda ctx: best(ctx.g.n_players, lambda q: f(ctx.with_me(q)))

    def python(self, gen: PythonGen, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_best_of({gen.per_player(args[0])})"

    def c(self, cg: CGen, args: tuple[A.Expr, ...]) -> tuple[list[str], str, str]:
        """best(E): the one player with strictly the most above 0, or nobody."""
        return cg._per_player("rb_best", args[0], False)

    def delta(self, dc: DeltaCompiler, args: tuple[A.Expr, ...]) -> Ev:
        f = dc.expr(args[0])

        def best(d: DeltaView, me: int) -> int:
            vals = [f(d, q) for q in range(d.g.n_players)]
            top = max(vals)
            return vals.index(top) if top > 0 and vals.count(top) == 1 else -1

        return best

    def reads(self, r: ValueReads, args: tuple[A.Expr, ...]) -> Reads | None:
        return r.value(args[0]).widened()  # read for every player

    def touches(self, pr: PlacementReads, args: tuple[A.Expr, ...]) -> tuple[Table, bool] | None:
        return pr.scalar(args[0])


__all__ = ["FUNCTIONS", "Builtin", "DeltaUnsupported", "builtin"]
