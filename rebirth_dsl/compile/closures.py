"""Expressions compiled into closures `f(ctx)`: evaluating one does no dictionary dispatch and no tree
walking. `ctx` carries the game, the player `me`, and the hex `placed` or the area `influence` where the
context defines them. This is the reference the generated source of exprgen.py is tested against."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.prims import Ctx, Fn, best, fewest, most, selected_kinds
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang import ast as A


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
                compile_call: Callable[[tuple[A.Expr, ...]], Fn] = getattr(self, "fn_" + fn)  # one method per function
                return compile_call(args)
        sp = node.span
        raise RebirthError.single("cannot compile this expression", file=sp.file, line=sp.line, col=sp.col)

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
            p = fp(ctx)  # once: the player may be an expression (best(...)), costly to evaluate
            if p < 0:
                return []
            mine = ctx.g.tiles_of[p]
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
        def atleast(ctx: Ctx) -> list[list[int]]:
            n = fn(ctx)  # once, not per group: nested thresholds would multiply
            return [g for g in f(ctx) if len(g) >= n]

        return atleast

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
            if p < 0:  # nobody touches anything (an empty hex's owner is -1 too)
                return []
            owner = ctx.g.owner
            return [i for i in lms if any(owner[h] == p for h in rings[i])]

        return touched

    def fn_owned(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        assert isinstance(args[1], A.Name)
        kind = args[1].id
        lms = [i for i, k in enumerate(self.t.landmark_kind) if k == kind]
        def owned(ctx: Ctx) -> list[int]:
            p, lm_owner = fp(ctx), ctx.g.lm_owner
            return [i for i in lms if lm_owner[i] == p]

        return owned

    def fn_owner(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        def owner(ctx: Ctx) -> int:
            lm = f(ctx)
            return ctx.g.lm_owner[lm] if lm >= 0 else -1

        return owner

    def fn_areas(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        area_of = self.t.area_of
        return lambda ctx: sorted({area_of[h] for h in f(ctx) if area_of[h] >= 0})  # one shape with exprgen: a sorted list

    def fn_won(self, args: tuple[A.Expr, ...]) -> Fn:
        fp = self.expr(args[0])
        def won(ctx: Ctx) -> list[int]:
            p = fp(ctx)
            return [a for a, first in ctx.g.area_first.items() if first == p]

        return won

    def fn_most(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: most(ctx.g.n_players, ctx.me, lambda q: f(ctx.with_me(q)))

    def fn_fewest(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: fewest(ctx.g.n_players, ctx.me, lambda q: f(ctx.with_me(q)))

    def fn_best(self, args: tuple[A.Expr, ...]) -> Fn:
        f = self.expr(args[0])
        return lambda ctx: best(ctx.g.n_players, lambda q: f(ctx.with_me(q)))


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
