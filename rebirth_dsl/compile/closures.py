"""Expressions compiled into closures `f(ctx)`: evaluating one does no dictionary dispatch and no tree
walking. `ctx` carries the game, the player `me`, and the hex `placed` or the area `influence` where the
context defines them. This is the reference the generated source of exprgen.py is tested against."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.functions import FUNCTIONS
from rebirth_dsl.compile.prims import Ctx, selected_kinds
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang import ast as A

if TYPE_CHECKING:
    from rebirth_dsl.compile.prims import Fn


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
                return FUNCTIONS[fn].closure(self, args)
        sp = node.span
        raise RebirthError.single("cannot compile this expression", file=sp.file, line=sp.line, col=sp.col)

    # a selector argument resolved at compile time
    def tile_kinds(self, args: tuple[A.Expr, ...]) -> frozenset[int]:
        return frozenset(selected_kinds(self.t, args))

    def hex_pred(self, a: A.Expr) -> Callable[[int], bool]:
        assert isinstance(a, A.Name)
        mask = self.t.hex_matches(a.id)
        return mask.__getitem__

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
