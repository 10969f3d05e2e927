"""Expressions compiled to Python source: one generated function per expression, same interface as the
closures of closures.py (`f(ctx)`), and checked equal to them by a property test.

Safety: the source is made only of the generator's own identifiers, operators from a fixed table, and
literals: ints, and tuples of ints or bools computed from the board. No name, string or number from a
rules or board file is ever spliced in as text; kinds, tags and landmarks are resolved to integers first.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from rebirth_dsl.compile.emit import literal
from rebirth_dsl.compile.prims import Ctx, Fn, best, fewest, most, selected_kinds
from rebirth_dsl.lang import ast as A

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Tables

_OPS = {"+": "+", "-": "-", "*": "*", ">=": ">=", "<=": "<=", ">": ">", "<": "<", "==": "==", "!=": "!=",
        "and": "and", "or": "or"}
_GROUPS = {"+": "sum", "-": "sum", "*": "prod", "and": "and", "or": "or"}  # left-associative in both languages


def _tiles(g: Any, p: int, kinds: tuple[int, ...]) -> list[int]:
    if p < 0:
        return []
    mine = g.tiles_of[p]
    if len(kinds) == 1:
        return mine[kinds[0]]
    out: list[int] = []
    for k in kinds:  # list extension copies in C: a comprehension would step through every hex in Python
        out += mine[k]
    return out


# Helpers for calls whose arguments are expressions: each argument is evaluated once, where a comprehension
# would evaluate it again for every element (nested, that multiplies: a threshold inside a threshold...).
def _atleast(sizes: list[int], n: int) -> list[int]:
    return [x for x in sizes if x >= n]


def _group_sizes(g: Any, p: int, kinds: frozenset[int]) -> list[int]:
    """The sizes of a player's groups of these kinds, read off the union-find roots. A `groups` value is
    only ever counted, measured (`largest`) or filtered by size (`atleast`), so the generated code carries
    sizes where the closures carry hex lists: no group is built or sorted (tests/test_fast.py proves the
    two give the same results)."""
    memo = g.memo
    key = ("sizes", p, kinds)
    if memo is not None and key in memo:
        return memo[key]
    if p < 0:
        return []
    parent, gsize, mine = g.parent, g.gsize, g.tiles_of[p]
    roots = set()
    for k in kinds & g.rs.group_kinds:
        for h in mine[k]:
            while parent[h] != h:  # the root, read without compressing: a function call per tile costs more
                h = parent[h]
            roots.add(h)
    out = [gsize[r] for r in roots]
    if memo is not None:
        memo[key] = out
    return out


def _touched(g: Any, rings: tuple[tuple[int, Callable[[list[int]], tuple[int, ...]]], ...], p: int) -> list[int]:
    if p < 0:  # nobody touches anything (an empty hex's owner is -1 too)
        return []
    owner = g.owner
    return [i for i, ring in rings if p in ring(owner)]


def _ring_getters(rings: tuple[tuple[int, tuple[int, ...]], ...]) -> tuple[tuple[int, Callable[..., Any]], ...]:
    """Each landmark's ring of hexes as an itemgetter, reading the owners around it in one call (a ring of
    one hex is read twice, so the getter still returns a tuple)."""
    return tuple((i, itemgetter(*ring) if len(ring) > 1 else itemgetter(*ring, *ring)) for i, ring in rings if ring)


def _owned(g: Any, lms: tuple[int, ...], p: int) -> list[int]:
    lm_owner = g.lm_owner
    return [i for i in lms if lm_owner[i] == p]


def _won(g: Any, p: int) -> list[int]:
    return [a for a, first in g.area_first.items() if first == p]


class _Gen:
    def __init__(self, t: Tables) -> None:
        self.t = t
        self.consts: list[str] = []
        self.n = 0

    def const(self, value: Any) -> str:
        name = f"C{len(self.consts)}"
        self.consts.append(f"{name} = {literal(value)}")
        return name

    def derived(self, helper: str, const: str) -> str:
        """A value computed once from a constant by one of this module's helpers, named like a constant."""
        name = f"D{len(self.consts)}"
        self.consts.append(f"{name} = {helper}({const})")
        return name

    def src(self, node: A.Expr, me: str) -> str:  # noqa: C901 - one case per node kind
        t = self.t
        match node:
            case A.Num(value=v):
                return literal(int(v))
            case A.Name(id="me"):
                return me
            case A.Name(id="placed"):
                return "ctx.placed"
            case A.Name(id="always"):
                return "True"
            case A.Name(id="nobody"):
                return "-1"
            case A.Name(id=name) if name == "influence" or name in t.attributes:
                return "ctx.influence"
            case A.Landmark(kind=kind, name=lname, tag=tag):
                lm = t.find_landmark(kind, lname, tag)
                return literal(-1 if lm is None else int(lm))
            case A.Not(operand=o):
                return f"(not {self.src(o, me)})"
            case A.BinOp():
                return self.chain(node, me)
            case A.Call(fn=fn, args=args):
                if fn in t.attributes:
                    return f"sum(map(g.tval.__getitem__, {self.src(args[0], me)}))"
                return getattr(self, "fn_" + fn)(args, me)
        raise ValueError("cannot generate this expression")

    def chain(self, node: A.BinOp, me: str) -> str:
        """`a + b - c` as one flat Python expression: the lowering folds a chain to the left, and Python's
        operators of one group associate to the left the same way, so only the chain as a whole needs
        parentheses (a long chain would otherwise nest a pair per operator). Comparisons never chain:
        Python reads `a == b == c` differently."""
        group = _GROUPS.get(node.op)
        tail: list[str] = []
        cur: A.Expr = node
        while isinstance(cur, A.BinOp) and (cur is node or (group is not None and _GROUPS.get(cur.op) == group)):
            tail.append(f" {_OPS[cur.op]} {self.src(cur.right, me)}")
            cur = cur.left
        return "(" + self.src(cur, me) + "".join(reversed(tail)) + ")"

    def kinds(self, args: tuple[A.Expr, ...]) -> tuple[int, ...]:
        return selected_kinds(self.t, args)

    def mask(self, a: A.Expr) -> str:
        assert isinstance(a, A.Name)
        return self.const(tuple(bool(x) for x in self.t.hex_matches(a.id)))

    def lambda_of(self, e: A.Expr) -> str:
        self.n += 1
        var = f"q{self.n}"
        return f"(lambda {var}: {self.src(e, var)})"

    def fn_count(self, args: tuple[A.Expr, ...], me: str) -> str:
        a = args[0]
        if isinstance(a, A.Call) and a.fn in ("at", "near"):  # counted, never built: a sum of the mask's bools
            return f"sum(map({self.hex_filter(a)}.__getitem__, {self.src(a.args[0], me)}))"
        if isinstance(a, A.Call) and a.fn == "areas":  # counted: no need to sort them
            area = self.const(tuple(int(x) for x in self.t.area_of))
            return f"len({{{area}[h] for h in {self.src(a.args[0], me)}}} - {{-1}})"
        return f"len({self.src(a, me)})"

    fn_size = fn_count

    def fn_tiles(self, args: tuple[A.Expr, ...], me: str) -> str:
        kinds = self.kinds(args[1:])
        if isinstance(args[0], A.Name) and args[0].id == "me" and len(kinds) == 1:
            return f"g.tiles_of[{me}][{literal(kinds[0])}]"  # `me` is always a seat
        return f"_tiles(g, {self.src(args[0], me)}, {literal(kinds)})"

    def fn_hexes(self, args: tuple[A.Expr, ...], me: str) -> str:
        assert isinstance(args[0], A.Name)
        m = self.t.hex_matches(args[0].id)
        return self.const(tuple(h for h in range(self.t.n) if m[h]))

    def fn_group(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"g.group_of({self.src(args[0], me)})"

    def fn_groups(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_group_sizes(g, {self.src(args[0], me)}, frozenset({literal(self.kinds(args[1:]))}))"

    def fn_largest(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"max({self.src(args[0], me)}, default=0)"  # groups are sizes here

    def fn_atleast(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_atleast({self.src(args[0], me)}, {self.src(args[1], me)})"

    def fn_at(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"[h for h in {self.src(args[0], me)} if {self.mask(args[1])}[h]]"

    def fn_near(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"[h for h in {self.src(args[0], me)} if {self.near_mask(args[1])}[h]]"

    def hex_filter(self, node: A.Call) -> str:
        """The mask constant of an `at` or `near` call."""
        return self.mask(node.args[1]) if node.fn == "at" else self.near_mask(node.args[1])

    def near_mask(self, target: A.Expr) -> str:
        near = self.t.near_mask(target)
        assert near is not None  # the checks allow only a landmark, kind or tag here
        return self.const(tuple(near))

    def fn_touched(self, args: tuple[A.Expr, ...], me: str) -> str:
        t = self.t
        assert isinstance(args[1], A.Name)
        rings = tuple((i, tuple(t.neighbours[t.landmark_hex[i]])) for i, k in enumerate(t.landmark_kind)
                      if k == args[1].id)
        return f"_touched(g, {self.derived('_ring_getters', self.const(rings))}, {self.src(args[0], me)})"

    def fn_owned(self, args: tuple[A.Expr, ...], me: str) -> str:
        t = self.t
        assert isinstance(args[1], A.Name)
        lms = tuple(i for i, k in enumerate(t.landmark_kind) if k == args[1].id)
        return f"_owned(g, {self.const(lms)}, {self.src(args[0], me)})"

    def fn_owner(self, args: tuple[A.Expr, ...], me: str) -> str:
        lm = self.src(args[0], me)
        if lm.lstrip("-").isdigit():  # a landmark resolved at compile time
            return "-1" if int(lm) < 0 else f"g.lm_owner[{lm}]"
        return f"(lambda L: g.lm_owner[L] if L >= 0 else -1)({lm})"

    def fn_areas(self, args: tuple[A.Expr, ...], me: str) -> str:
        area = self.const(tuple(int(a) for a in self.t.area_of))
        return f"sorted({{{area}[h] for h in {self.src(args[0], me)} if {area}[h] >= 0}})"  # as closures.py: a sorted list

    def fn_won(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_won(g, {self.src(args[0], me)})"

    def fn_most(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_most(g.n_players, {me}, {self.lambda_of(args[0])})"

    def fn_fewest(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_fewest(g.n_players, {me}, {self.lambda_of(args[0])})"

    def fn_best(self, args: tuple[A.Expr, ...], me: str) -> str:
        return f"_best(g.n_players, {self.lambda_of(args[0])})"


def compile_expr_source(node: A.Expr, t: Tables) -> tuple[Fn, str]:
    """A generated function `f(ctx)` for a checked expression, and its source."""
    gen = _Gen(t)
    body = gen.src(node, "me")
    source = "\n".join([*gen.consts, "def f(ctx):", "    g = ctx.g", "    me = ctx.me", f"    return {body}", ""])
    env: dict[str, Any] = {"__builtins__": {"len": len, "sum": sum, "max": max, "map": map, "any": any,
                                            "frozenset": frozenset, "sorted": sorted, "True": True, "False": False},
                           "_most": most, "_fewest": fewest, "_best": best, "_tiles": _tiles, "_atleast": _atleast, "_group_sizes": _group_sizes,
                           "_touched": _touched, "_ring_getters": _ring_getters, "_owned": _owned, "_won": _won}
    exec(compile(source, "<rebirth expression>", "exec"), env)  # noqa: S102 - generator text + literals only
    return env["f"], source


__all__ = ["compile_expr_source", "Ctx"]
