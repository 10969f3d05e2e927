"""The expression language: built-in functions, their types, and the compiler from AST to closures.

An expression compiles once into a Python closure `f(ctx)`; evaluating it does no dictionary dispatch
and no tree walking. `ctx` carries the game, the player `me`, and the hex `placed` or the area
`influence` where the context defines them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import ast as A
from .errors import RebirthError, did_you_mean

if TYPE_CHECKING:
    from .compiler import Tables

Fn = Callable[["Ctx"], Any]


class Ctx:
    """What an expression can see: the game state, `me`, and context values."""

    __slots__ = ("g", "me", "placed", "influence")

    def __init__(self, g: Any, me: int = -1, placed: int = -1, influence: int = 0) -> None:
        self.g = g
        self.me = me
        self.placed = placed
        self.influence = influence

    def with_me(self, me: int) -> Ctx:
        """The same context seen from another player."""
        return Ctx(self.g, me, self.placed, self.influence)


# Types: int, bool, player, hex, hexes, groups, landmark, landmarks, areas; "sel:..." is a name argument.
# Each signature: (argument types, result type). A trailing "*" argument type repeats.
SIGNATURES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "count": (("coll",), "int", "the number of things in a collection (hexes, groups, landmarks, areas)"),
    "size": (("coll",), "int", "same as count; reads well for a group"),
    "tiles": (("player", "sel:tile*"), "hexes", "the hexes holding the player's tiles, of the given kinds or classes"),
    "hexes": (("sel:hex",), "hexes", "every board hex of a kind or with a tag"),
    "group": (("hex",), "hexes", "the group (S-F1) containing a hex"),
    "groups": (("player", "sel:tile*"), "groups", "the player's groups of the given kinds"),
    "largest": (("groups",), "int", "the size of the largest group, 0 if none"),
    "atleast": (("groups", "int"), "groups", "the groups of at least N tiles"),
    "at": (("hexes", "sel:hex"), "hexes", "the hexes that are of a kind or carry a tag"),
    "near": (("hexes", "sel:near"), "hexes", "the hexes adjacent to a hex of a kind or tag, or to a landmark"),
    "touched": (("player", "sel:landmark"), "landmarks", "landmarks of a kind next to one of the player's tiles"),
    "owned": (("player", "sel:landmark"), "landmarks", "landmarks of a kind the player holds (majorities)"),
    "owner": (("landmark",), "player", "who holds a landmark, or nobody"),
    "areas": (("hexes",), "areas", "the distinct settlement areas the hexes lie in"),
    "won": (("player",), "areas", "completed areas in which the player ranked first"),
    "most": (("int",), "bool", "true if `me` has at least as much as every other player (ties count)"),
    "fewest": (("int",), "bool", "true if `me` has at most as much as every other player (ties count)"),
    "best": (("int",), "player", "the one player with strictly the most (above 0), or nobody"),
}
VARIABLES: dict[str, tuple[str, str]] = {
    "me": ("player", "the player the expression is evaluated for"),
    "placed": ("hex", "the hex just placed on (placement triggers)"),
    "influence": ("int", "the player's influence in the area (payouts, incomplete areas)"),
    "always": ("bool", "true"),
    "nobody": ("player", "no player"),
}
COLLECTIONS = {"hexes", "groups", "landmarks", "areas"}


@dataclass(frozen=True)
class Scope:
    """Which context variables an expression may use."""

    placed: bool = False
    influence: bool = False


class ExprError(RebirthError):
    """A name, type or arity error in an expression."""


def _err(msg: str, node: Any, hint: str | None = None) -> ExprError:
    sp = node.span
    return ExprError.single(msg, file=sp.file, line=sp.line, col=sp.col, hint=hint)


def type_of(node: A.Expr, t: Tables, scope: Scope, errors: list[ExprError]) -> str:
    """Check an expression, collecting errors; return its type ('?' when unknown)."""
    match node:
        case A.Num():
            return "int"
        case A.Name(id=name):
            if name in VARIABLES:
                if name == "placed" and not scope.placed:
                    errors.append(_err("`placed` only exists in a placement trigger", node))
                if name == "influence" and not scope.influence:
                    errors.append(_err("`influence` only exists in an area payout or incomplete-area rule", node))
                return VARIABLES[name][0]
            if name in t.attributes:
                if not scope.influence:
                    errors.append(_err(f"`{name}` alone only exists in an area payout; use {name}(HEXES)", node))
                return "int"
            known = list(VARIABLES) + list(t.attributes)
            sel = t.selector_kind(name)
            if sel:
                errors.append(_err(f"{sel} `{name}` is not a value here; it can only be an argument "
                                   "(e.g. tiles(me, food))", node))
            else:
                dym = did_you_mean(name, known + t.all_selector_names())
                errors.append(_err(f"unknown name `{name}`", node, f"did you mean `{dym}`?" if dym else None))
            return "?"
        case A.Landmark(kind=kind, name=lname, tag=tag):
            if kind not in t.landmark_kinds:
                dym = did_you_mean(kind, t.landmark_kinds)
                errors.append(_err(f"unknown landmark kind `{kind}`", node, f"did you mean `{dym}`?" if dym else None))
            if tag is not None and tag not in t.tags:
                dym = did_you_mean(tag, t.tags)
                errors.append(_err(f"unknown tag `{tag}`", node, f"did you mean `{dym}`?" if dym else None))
            if t.board is not None and t.require_landmarks and t.find_landmark(kind, lname, tag) is None:
                what = f'"{lname}"' if lname is not None else f"with {tag}"
                names = [n for k, n in t.landmark_names if k == kind]
                dym = did_you_mean(lname, names) if lname else None
                errors.append(_err(f"the board has no {kind} {what}", node, f'did you mean "{dym}"?' if dym else None))
            return "landmark"
        case A.Not(operand=o):
            _expect(o, "bool", t, scope, errors)
            return "bool"
        case A.BinOp(op=op, left=left, right=right):
            if op in ("and", "or"):
                _expect(left, "bool", t, scope, errors)
                _expect(right, "bool", t, scope, errors)
                return "bool"
            if op in ("+", "-", "*"):
                _expect(left, "int", t, scope, errors)
                _expect(right, "int", t, scope, errors)
                return "int"
            lt = type_of(left, t, scope, errors)
            rt = type_of(right, t, scope, errors)
            if op in ("==", "!="):
                if "?" not in (lt, rt) and lt != rt:
                    errors.append(_err(f"cannot compare {lt} with {rt}", node))
            elif "?" not in (lt, rt) and (lt != "int" or rt != "int"):
                errors.append(_err(f"`{op}` compares numbers, not {lt} and {rt}", node))
            return "bool"
        case A.Call(fn=fn, args=args):
            if fn in t.attributes:
                if len(args) != 1:
                    errors.append(_err(f"{fn}() takes 1 argument (hexes), not {len(args)}", node))
                else:
                    _expect(args[0], "hexes", t, scope, errors)
                return "int"
            if fn not in SIGNATURES:
                dym = did_you_mean(fn, list(SIGNATURES) + list(t.attributes))
                errors.append(_err(f"unknown function `{fn}`", node, f"did you mean `{dym}`?" if dym else None))
                return "?"
            params, result, _doc = SIGNATURES[fn]
            variadic = params and params[-1].endswith("*")
            fixed = params[:-1] if variadic else params
            if len(args) < len(fixed) or (not variadic and len(args) > len(params)):
                want = f"{len(fixed)}+" if variadic else str(len(params))
                errors.append(_err(f"{fn}() takes {want} argument(s), not {len(args)}", node,
                                   f"{fn}({', '.join(p.rstrip('*') for p in params)}): {_doc}"))
                return result
            for i, arg in enumerate(args):
                ptype = params[min(i, len(params) - 1)].rstrip("*")
                if ptype.startswith("sel:"):
                    _check_selector(arg, ptype[4:], t, errors)
                elif ptype == "coll":
                    at = type_of(arg, t, scope, errors)
                    if at not in COLLECTIONS and at != "?":
                        errors.append(_err(f"{fn}() counts a collection, not {at}", arg))
                else:
                    _expect(arg, ptype, t, scope, errors)
            return result
    return "?"


def _expect(node: A.Expr, want: str, t: Tables, scope: Scope, errors: list[ExprError]) -> None:
    got = type_of(node, t, scope, errors)
    if got not in (want, "?"):
        errors.append(_err(f"expected {want}, got {got}", node))


def _check_selector(node: A.Expr, what: str, t: Tables, errors: list[ExprError]) -> None:
    if what == "near" and isinstance(node, A.Landmark):
        type_of(node, t, Scope(), errors)
        return
    if not isinstance(node, A.Name):
        errors.append(_err(f"expected the name of a {_SEL_DOC[what]}", node))
        return
    options = t.selector_options(what)
    if node.id not in options:
        dym = did_you_mean(node.id, options)
        errors.append(_err(f"`{node.id}` is not a {_SEL_DOC[what]}", node, f"did you mean `{dym}`?" if dym else None))


_SEL_DOC = {
    "tile": "tile kind or class",
    "hex": "hex kind or tag",
    "near": "hex kind, tag or landmark",
    "landmark": "landmark kind",
}


# ----- compiling to closures ------------------------------------------------------------------
def compile_expr(node: A.Expr, t: Tables) -> Fn:
    """Compile a (checked) expression into a closure over a Ctx."""
    c = _Compiler(t)
    return c.expr(node)


class _Compiler:
    def __init__(self, t: Tables) -> None:
        self.t = t

    def expr(self, node: A.Expr) -> Fn:  # noqa: C901 - one case per node kind
        t = self.t
        match node:
            case A.Num(value=v):
                return lambda ctx: v
            case A.Name(id="me"):
                return lambda ctx: ctx.me
            case A.Name(id="placed"):
                return lambda ctx: ctx.placed
            case A.Name(id="always"):
                return lambda ctx: True
            case A.Name(id="nobody"):
                return lambda ctx: -1
            case A.Name(id=name) if name == "influence" or name in t.attributes:
                return lambda ctx: ctx.influence
            case A.Landmark(kind=kind, name=lname, tag=tag):
                # A landmark the board lacks is nobody's (tiny test boards need not have them all).
                lm = t.find_landmark(kind, lname, tag)
                lm = -1 if lm is None else lm
                return lambda ctx: lm
            case A.Not(operand=o):
                f = self.expr(o)
                return lambda ctx: not f(ctx)
            case A.BinOp(op=op, left=left, right=right):
                fl, fr = self.expr(left), self.expr(right)
                return _BINOPS[op](fl, fr)
            case A.Call(fn=fn, args=args):
                if fn in t.attributes:
                    fh = self.expr(args[0])

                    def attr_sum(ctx: Ctx, fh: Fn = fh) -> int:
                        val = ctx.g.tval
                        return sum(val[h] for h in fh(ctx))

                    return attr_sum
                return getattr(self, "fn_" + fn)(args)
        raise _err("cannot compile this expression", node)

    # a selector argument resolved at compile time
    def tile_kinds(self, args: tuple[A.Expr, ...]) -> frozenset[int]:
        return frozenset(selected_kinds(self.t, args))

    def hex_pred(self, a: A.Expr) -> Callable[[int], bool]:
        assert isinstance(a, A.Name)
        mask = self.t.hex_matches(a.id)
        return mask.__getitem__

    def fn_count(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: len(f(ctx))

    fn_size = fn_count

    def fn_tiles(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        kinds = self.tile_kinds(args[1:])

        order = sorted(kinds)

        def tiles(ctx: Ctx) -> list[int]:
            # kept per seat and kind as tiles are placed; callers only read the list
            mine = ctx.g.tiles_of[fp(ctx)] if fp(ctx) >= 0 else None
            if mine is None:
                return []
            if len(order) == 1:
                return mine[order[0]]
            return [h for k in order for h in mine[k]]

        return tiles

    def fn_hexes(self, args: tuple[A.Expr, ...]) -> Fn:
        pred = self.hex_pred(args[0])
        hexes = [h for h in range(self.t.n) if pred(h)]
        return lambda ctx: hexes

    def fn_group(self, args: tuple[A.Expr, ...]) -> Fn:
        fh = self.expr(args[0])
        return lambda ctx: ctx.g.group_of(fh(ctx))

    def fn_groups(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        kinds = self.tile_kinds(args[1:])
        return lambda ctx: ctx.g.groups_of(fp(ctx), kinds)

    def fn_largest(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: max((len(g) for g in f(ctx)), default=0)

    def fn_atleast(self, args: tuple[A.Expr, ...]) -> Fn:
        f, fn = self.expr(args[0]), self.expr(args[1])
        return lambda ctx: [g for g in f(ctx) if len(g) >= fn(ctx)]

    def fn_at(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        pred = self.hex_pred(args[1])
        return lambda ctx: [h for h in f(ctx) if pred(h)]

    def fn_near(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        target = args[1]
        nb = self.t.neighbours
        if isinstance(target, A.Landmark):
            lm = self.t.find_landmark(target.kind, target.name, target.tag)
            ring = frozenset(nb[self.t.landmark_hex[lm]]) if lm is not None else frozenset()
            return lambda ctx: [h for h in f(ctx) if h in ring]
        pred = self.hex_pred(target)
        near = [any(pred(m) for m in nb[h]) for h in range(self.t.n)]
        return lambda ctx: [h for h in f(ctx) if near[h]]

    def fn_touched(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        assert isinstance(args[1], A.Name)
        kind = args[1].id
        lms = [i for i, k in enumerate(self.t.landmark_kind) if k == kind]
        rings = {i: self.t.neighbours[self.t.landmark_hex[i]] for i in lms}

        def touched(ctx: Ctx) -> list[int]:
            p = fp(ctx)
            owner = ctx.g.owner
            return [i for i in lms if any(owner[h] == p for h in rings[i])]

        return touched

    def fn_owned(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        assert isinstance(args[1], A.Name)
        kind = args[1].id
        lms = [i for i, k in enumerate(self.t.landmark_kind) if k == kind]
        return lambda ctx: [i for i in lms if ctx.g.lm_owner[i] == fp(ctx)]

    def fn_owner(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        def owner(ctx: Ctx) -> int:
            lm = f(ctx)
            return ctx.g.lm_owner[lm] if lm >= 0 else -1

        return owner

    def fn_areas(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        area_of = self.t.area_of
        return lambda ctx: sorted({area_of[h] for h in f(ctx) if area_of[h] >= 0})

    def fn_won(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        return lambda ctx: [a for a, first in ctx.g.area_first.items() if first == fp(ctx)]

    def fn_most(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: most(ctx.g.n_players, ctx.me, lambda q: f(ctx.with_me(q)))

    def fn_fewest(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: fewest(ctx.g.n_players, ctx.me, lambda q: f(ctx.with_me(q)))

    def fn_best(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: best(ctx.g.n_players, lambda q: f(ctx.with_me(q)))


# Comparisons across players, shared by the closures here and the generated source of exprgen.py.
def most(n: int, me: int, f: Callable[[int], Any]) -> bool:
    """`me` has at least as much as every other player (a tie fulfils it)."""
    v = f(me)
    return all(f(q) <= v for q in range(n) if q != me)


def fewest(n: int, me: int, f: Callable[[int], Any]) -> bool:
    """`me` has at most as much as every other player."""
    v = f(me)
    return all(f(q) >= v for q in range(n) if q != me)


def best(n: int, f: Callable[[int], Any]) -> int:
    """The one player with strictly the most, above 0; else -1 (nobody)."""
    vals = [f(q) for q in range(n)]
    top = max(vals)
    return vals.index(top) if top > 0 and vals.count(top) == 1 else -1


def selected_kinds(t: Tables, args: tuple[A.Expr, ...]) -> tuple[int, ...]:
    """Tile kind ids named by selector arguments (kinds or classes); none named means every kind."""
    if not args:
        return tuple(range(len(t.tile_kinds)))
    out: set[int] = set()
    for a in args:
        assert isinstance(a, A.Name)
        out |= t.tile_kind_ids(a.id)
    return tuple(sorted(out))


def _binop(op: str) -> Callable[[Fn, Fn], Fn]:
    table: dict[str, Callable[[Fn, Fn], Fn]] = {
        "+": lambda a, b: lambda ctx: a(ctx) + b(ctx),
        "-": lambda a, b: lambda ctx: a(ctx) - b(ctx),
        "*": lambda a, b: lambda ctx: a(ctx) * b(ctx),
        ">=": lambda a, b: lambda ctx: a(ctx) >= b(ctx),
        "<=": lambda a, b: lambda ctx: a(ctx) <= b(ctx),
        ">": lambda a, b: lambda ctx: a(ctx) > b(ctx),
        "<": lambda a, b: lambda ctx: a(ctx) < b(ctx),
        "==": lambda a, b: lambda ctx: a(ctx) == b(ctx),
        "!=": lambda a, b: lambda ctx: a(ctx) != b(ctx),
        "and": lambda a, b: lambda ctx: a(ctx) and b(ctx),
        "or": lambda a, b: lambda ctx: a(ctx) or b(ctx),
    }
    return table[op]


_BINOPS = {op: _binop(op) for op in ("+", "-", "*", ">=", "<=", ">", "<", "==", "!=", "and", "or")}
