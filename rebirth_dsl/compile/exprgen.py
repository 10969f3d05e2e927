"""Expressions compiled to Python source: one generated function per expression, same interface as the
closures of closures.py (`f(ctx)`), and checked equal to them by a property test. The same source is
also made as a function of the game and the player directly (`f(g, me, placed, influence)`, see
`compile_direct_source`), for callers that read many expressions over one position (end scoring).

Safety: the source is made only of the generator's own identifiers, operators from a fixed table, and
literals: ints, and tuples of ints or bools computed from the board. No name, string or number from a
rules or board file is ever spliced in as text; kinds, tags and landmarks are resolved to integers first.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import literal, run_source
from rebirth_dsl.compile.functions import FUNCTIONS
from rebirth_dsl.compile.prims import CompiledExpr, Ctx, best_of, fewest_of, most_of, selected_kinds
from rebirth_dsl.lang import ast as A

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.prims import DirectFn, Fn

    _T = TypeVar("_T")

_OPS = {"+": "+", "-": "-", "*": "*", ">=": ">=", "<=": "<=", ">": ">", "<": "<", "==": "==", "!=": "!=",
        "and": "and", "or": "or"}
_GROUPS = {"+": "sum", "-": "sum", "*": "prod", "and": "and", "or": "or"}  # left-associative in both languages


def _or_bits(bits: tuple[int, ...], *lists: list[int]) -> int:
    """The bits of every hex of these lists or-ed together. A loop, whose tuple reads the interpreter
    specialises, where or-ing the bits of the hexes with any bits, picked by a frozenset, through reduce
    and map calls a method per hex."""
    out = 0
    for hexes in lists:
        for h in hexes:
            out |= bits[h]
    return out


def _count_in(bits: tuple[int, ...], *lists: list[int]) -> int:
    """The bits (0 or 1) of every hex of these lists added up: how many of them lie in a fixed set. A loop
    that takes no turn on whether a hex is in the set, where intersecting a set with the lists hashes each
    hex into a table many times the size of the lists and keeps the ones found."""
    out = 0
    for hexes in lists:
        for h in hexes:
            out += bits[h]
    return out


def _reader(values: tuple[_T, ...]) -> Callable[[int], _T]:
    """A constant table's __getitem__, of a list copy (see _Gen.table)."""
    return list(values).__getitem__


class _Gen:
    def __init__(self, t: Tables, placed: str = "ctx.placed", influence: str = "ctx.influence",
                 group_kinds: frozenset[int] | None = None) -> None:
        self.t = t
        # the ruleset's group kinds when the caller knows them (else the helpers read them in the game)
        self.group_kinds = group_kinds
        self.consts: list[str] = []
        self.named: dict[str, str] = {}  # a constant's definition -> its name: one name for one value
        self.n = 0
        # where the context values are read: the Ctx's fields, or the direct function's parameters
        self.placed = placed
        self.influence = influence
        # the tile kinds whose tiles carry a value (as compile/reads.py): every other tile is worth 0 to an
        # attribute sum (ruleset.parse_tile refuses a value for them, the mix deals them as 0)
        self.valued = frozenset(t.tile_kinds.index(s.kind) for s in t.rules.statements
                                if isinstance(s, A.TileSpec) and (s.attribute or any(v for v, _ in s.counts)))

    def define(self, prefix: str, value: str) -> str:
        name = self.named.get(value)
        if name is None:
            name = self.named[value] = f"{prefix}{len(self.consts)}"
            self.consts.append(f"{name} = {value}")
        return name

    def const(self, value: object) -> str:
        return self.define("C", literal(value))

    def derived(self, helper: str, const: str) -> str:
        """A value computed once from a constant by one of this module's helpers, named like a constant."""
        return self.define("D", f"{helper}({const})")

    def src(self, node: A.Expr, me: str) -> str:  # noqa: C901 - one case per node kind
        t = self.t
        match node:
            case A.Num(value=v):
                return literal(int(v))
            case A.Name(id="me"):
                return me
            case A.Name(id="placed"):
                return self.placed
            case A.Name(id="always"):
                return "True"
            case A.Name(id="nobody"):
                return "-1"
            case A.Name(id=name) if name == "influence" or name in t.attributes:
                return self.influence
            case A.Landmark(kind=kind, name=lname, tag=tag):
                lm = t.find_landmark(kind, lname, tag)
                return literal(-1 if lm is None else int(lm))
            case A.Not(operand=o):
                return f"(not {self.src(o, me)})"
            case A.BinOp():
                return self.chain(node, me)
            case A.Call(fn=fn, args=args):
                if fn in t.attributes:
                    return self.sums("g.tval.__getitem__", args[0], me, self.valued)
                return FUNCTIONS[fn].python(self, args, me)
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

    def fresh(self, prefix: str) -> str:
        """A new local name."""
        self.n += 1
        return f"{prefix}{self.n}"

    @staticmethod
    def reads(table: str, items: tuple[int, ...]) -> str:
        """A tuple display of a game table's entries at fixed indices (a few: landmarks, a tag's hexes)."""
        return "(" + "".join(f"{table}[{literal(i)}], " for i in items) + ")"

    def per_player(self, e: A.Expr) -> str:
        """`[e for each seat]`, `me` bound to each in turn: the values best compares, read in one
        comprehension where a function per player would be called once per seat."""
        if self.my_owned_count(e):  # the owners read once, each seat counted among them
            assert isinstance(e, A.Call) and isinstance(e.args[0], A.Call)
            return f"[*map({self.reads('g.lm_owner', self.landmarks(e.args[0].args[1]))}.count, range(g.n_players))]"
        var = self.fresh("q")
        return f"[{self.src(e, var)} for {var} in range(g.n_players)]"

    @staticmethod
    def my_owned_count(e: A.Expr) -> bool:
        """`count(owned(me, KIND))`."""
        return isinstance(e, A.Call) and e.fn == "count" and isinstance(e.args[0], A.Call) \
            and e.args[0].fn == "owned" and isinstance(e.args[0].args[0], A.Name) and e.args[0].args[0].id == "me"

    def against_all(self, e: A.Expr, me: str, op: str) -> str:
        """`me`'s value of e `op` every other seat's, read as prims.most reads it: `me`'s first (bound by a
        first `for` over a one-element tuple), then each other seat's in order, stopping at the first that
        fails; no function is called per seat."""
        mine, var = self.fresh("v"), self.fresh("q")
        return (f"all({self.src(e, var)} {op} {mine} for {mine} in ({self.src(e, me)},) "
                f"for {var} in range(g.n_players) if {var} != {me})")

    @staticmethod
    def my_tiles(node: A.Expr) -> bool:
        """`tiles(me, ...)`: `me` is always a seat, so the player's lists are read with no test."""
        return isinstance(node, A.Call) and node.fn == "tiles" and isinstance(node.args[0], A.Name) \
            and node.args[0].id == "me"

    def hex_list(self, node: A.Expr, me: str, only: frozenset[int] | None = None) -> str:
        """Source for a hex list that is only read (iterated, counted): `tiles(me, ...)` is the player's list
        of its one kind, or its lists unpacked into one in place (no call of _tiles); with `only`, the
        player's tiles of other kinds are left out (the caller knows they add nothing)."""
        if not self.my_tiles(node):
            return self.src(node, me)
        lists = self.my_lists(node, me, only)
        return lists[0] if len(lists) == 1 else f"[{', '.join('*' + x for x in lists)}]"

    def sums(self, read: str, hexes: A.Expr, me: str, only: frozenset[int] | None = None) -> str:
        """The sum of a per-hex table (`read`: its __getitem__) over a hex list, read in C."""
        return f"sum(map({read}, {self.hex_list(hexes, me, only)}))"

    def all_my_tiles(self, node: A.Expr) -> bool:
        """`tiles(me)` of every kind: exactly the hexes whose owner is `me` (a tile's hex joins its owner's
        list when it is placed, and neither ever changes again)."""
        return isinstance(node, A.Call) and self.my_tiles(node) and len(self.kinds(node.args[1:])) == len(self.t.tile_kinds)

    def my_tiles_in(self, node: A.Call, me: str) -> str:
        """`count(at(tiles(me...), X))` / `count(near(...))`: how many of the player's tiles lie in X.
        Over every kind and an X of at most a sixteenth of the board, the owners of X's hexes are read in
        one call and `me` counted among them; else X's mark (1 in X, else 0) is added up over the player's
        lists (a player's tiles are distinct hexes)."""
        flags = self.hex_flags(node)
        where = tuple(h for h in range(self.t.n) if flags[h])
        if self.all_my_tiles(node.args[0]) and len(where) <= self.t.n // 16:
            return f"{self.reads('g.owner', where)}.count({me})"
        return f"_count_in({self.const(tuple(int(f) for f in flags))}, {', '.join(self.my_lists(node.args[0], me))})"

    def my_lists(self, node: A.Expr, me: str, only: frozenset[int] | None = None) -> list[str]:
        """The player's lists `tiles(me, ...)` reads, one per kind (with `only`, of those kinds alone)."""
        assert isinstance(node, A.Call) and self.my_tiles(node)
        return [f"g.tiles_of[{me}][{literal(k)}]" for k in self.kinds(node.args[1:]) if only is None or k in only]

    def hex_flags(self, node: A.Call) -> list[bool]:
        """Per hex: does an `at` or `near` call keep it."""
        if node.fn == "at":
            assert isinstance(node.args[1], A.Name)
            return self.t.hex_matches(node.args[1].id)
        near = self.t.near_mask(node.args[1])
        assert near is not None  # the checks allow only a landmark, kind or tag here
        return near

    def table(self, values: tuple[object, ...]) -> str:
        """The reader (`__getitem__`) of a per-hex constant, for `map`: made once, and a list's, a direct
        method, where a tuple's is a slot wrapper taking about twice as long per element (never mutated)."""
        return self.derived("_reader", self.const(values))

    def near_mask(self, target: A.Expr) -> str:
        near = self.t.near_mask(target)
        assert near is not None  # the checks allow only a landmark, kind or tag here
        return self.const(tuple(near))

    def my_touches(self, kind: A.Expr, me: str) -> str:
        """`count(touched(me, kind))`: the landmarks of the kind next to a hex `me` owns: the landmarks next
        to each of the player's tiles as bits (bit i: the kind's i-th landmark), or-ed together and counted."""
        t = self.t
        rings = [set(t.neighbours[t.landmark_hex[i]]) for i in self.landmarks(kind)]
        bits = tuple(sum(1 << i for i, ring in enumerate(rings) if h in ring) for h in range(t.n))
        lists = ", ".join(f"g.tiles_of[{me}][{literal(k)}]" for k in range(len(t.tile_kinds)))  # tiles(me)
        return f"_or_bits({self.const(bits)}, {lists}).bit_count()"

    def landmarks(self, kind: A.Expr) -> tuple[int, ...]:
        """The landmarks of a kind."""
        assert isinstance(kind, A.Name)
        return tuple(i for i, k in enumerate(self.t.landmark_kind) if k == kind.id)


def hoist_common(body: str, prefix: str = "x") -> tuple[list[str], str]:
    """Common subexpressions of a generated expression read once (compile/hoist.py, which imports `ast`)."""
    from rebirth_dsl.compile.hoist import hoist_common as hoist

    return hoist(body, prefix)


# What the generated source may call: a few builtins and this module's helpers, nothing else.
_BUILTINS = {"all": all, "len": len, "sum": sum, "max": max, "map": map, "range": range, "sorted": sorted,
             "list": list, "frozenset": frozenset, "True": True, "False": False}
_HELPERS = {"_most_of": most_of, "_fewest_of": fewest_of, "_best_of": best_of, "_reader": _reader,
            "_or_bits": _or_bits, "_count_in": _count_in}
for _entry in FUNCTIONS.values():  # each function's own (compile/functions.py)
    _HELPERS.update(_entry.py_helpers)

def _run(source: str) -> Callable[..., Any]:
    env: dict[str, Any] = {"__builtins__": dict(_BUILTINS), **_HELPERS}
    run_source(source, "<rebirth expression>", env)  # generator text + literals only
    f: Callable[..., Any] = env["f"]  # the source defines f
    return f


def compile_expr_source(node: A.Expr, t: Tables) -> tuple[Fn, str]:
    """A generated function `f(ctx)` for a checked expression, and its source."""
    source = _expr_source(node, t)
    return _run(source), source


def _expr_source(node: A.Expr, t: Tables) -> str:
    gen = _Gen(t)
    body = gen.src(node, "me")
    return "\n".join([*gen.consts, "def f(ctx):", "    g = ctx.g", "    me = ctx.me", f"    return {body}", ""])


# A lazy expression function's bodies (lazy_expr_function): each runs with the expression's own globals,
# where the names it calls are that expression's; the module's own functions of those names never run.
def _compile_me(ctx: Ctx) -> Any:
    raise AssertionError("only a lazy expression function calls this name, in its own globals")


def _fallback(ctx: Ctx) -> Any:
    raise AssertionError("only a lazy expression function calls this name, in its own globals")


def _first_call(ctx: Ctx) -> Any:
    """The body until the first call: compile the expression, whose body then becomes this function's."""
    return _compile_me(ctx)


def _call_fallback(ctx: Ctx) -> Any:
    """The body where Python could not compile the source: the closures'."""
    return _fallback(ctx)


def lazy_expr_function(node: A.Expr, t: Tables, fallback: Callable[[], Fn]) -> Fn:
    """compile_expr_source's function, generated and compiled at its first call. Compiling is most of what
    a ruleset's compilation costs, and a command that replays a few
    moves calls a few of its expressions. The function is one object from the start (the compiled ruleset
    holds it, compares and hashes it): its first call puts the compiled body in place of its own, in the
    globals it shares with that body, so every later call runs the generated code directly. Where Python
    cannot compile the source (nesting past its parser's limits), `fallback()` (the closures) runs instead."""
    env: dict[str, Any] = {"__builtins__": dict(_BUILTINS), **_HELPERS}
    f = FunctionType(_first_call.__code__, env, "f")

    def compile_me(ctx: Ctx) -> Any:
        try:
            run_source(_expr_source(node, t), "<rebirth expression>", env)  # as _run
            f.__code__ = env["f"].__code__
        except (SyntaxError, RecursionError, MemoryError, OverflowError, ValueError):
            env["_fallback"] = fallback()
            f.__code__ = _call_fallback.__code__
        env.pop("_compile_me", None)
        return f(ctx)

    env["_compile_me"] = compile_me
    return f


def compile_direct_source(node: A.Expr, t: Tables, group_kinds: frozenset[int] | None = None
                          ) -> tuple[DirectFn, str]:
    """The same expression as a function `f(g, me, placed=-1, influence=0)` of the values a Ctx would carry,
    and its source: no context object is made or read (the same body, reading its parameters). With the
    ruleset's `group_kinds` (which compile_expr_source cannot know: it may run before the group statement
    is compiled), group sizes are read in place."""
    gen = _Gen(t, "placed", "influence", group_kinds)
    common, body = hoist_common(gen.src(node, "me"))
    source = "\n".join([*gen.consts, "def f(g, me, placed=-1, influence=0):", *(f"    {ln}" for ln in common),
                        f"    return {body}", ""])
    f: DirectFn = _run(source)
    return f, source


def direct_source_function(node: A.Expr, t: Tables, group_kinds: frozenset[int] | None = None) -> DirectFn | None:
    """compile_direct_source's function of a node, or None where its source is more than Python compiles."""
    try:
        return compile_direct_source(node, t, group_kinds)[0]
    except (SyntaxError, RecursionError, MemoryError, OverflowError, ValueError):
        return None


def direct_function(compiled: CompiledExpr, t: Tables, group_kinds: frozenset[int] | None = None
                    ) -> tuple[DirectFn, bool]:
    """A compiled expression as `f(g, me, placed=-1, influence=0)`, and whether that was generated
    (compile_direct_source of its node); otherwise its function runs, on a Ctx made per call (source Python
    cannot compile, as compiler._generated)."""
    got = direct_source_function(compiled.node, t, group_kinds)
    if got is not None:
        return got, True
    fn = compiled.fn
    return (lambda g, me, placed=-1, influence=0: fn(Ctx(g, me, placed, influence))), False


def value_source(node: A.Expr, t: Tables, influence: str) -> str | None:
    """Source for an expression that is a number or the influence, with the influence read from a local
    name: what a caller can write in its own code instead of calling a function; None for anything else."""
    match node:
        case A.Num(value=v):
            return literal(int(v))
        case A.Name(id=name) if name == "influence" or name in t.attributes:
            return influence
    return None


__all__ = ["compile_direct_source", "compile_expr_source", "lazy_expr_function", "direct_function", "direct_source_function", "value_source", "Ctx"]
