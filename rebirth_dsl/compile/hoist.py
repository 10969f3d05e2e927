"""Common subexpressions of a generated expression (compile/exprgen.py's direct functions) read once: the
rewriting works on Python's own syntax tree, so it sits apart from exprgen, and `ast` (with its C tables, a
tenth of what `rebirth eval` spends on imports) is imported only by the callers that make direct functions."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import count

# ----- common subexpressions --------------------------------------------------------------------------------
# Nodes whose value is worth a local: computed (a call, a display, an operation), not a name, constant,
# attribute or plain subscript (each of those is one quick instruction).
_WORTH = (ast.Call, ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.BinOp, ast.BoolOp,
          ast.Compare, ast.IfExp, ast.UnaryOp)


def _always(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes evaluated every time `node` is (node itself included): the operands of an operator or a
    call, the first of `and`/`or` and of a chained comparison, the test of a conditional and the first
    iterable of a comprehension; nothing inside what may be skipped or is evaluated per element."""
    yield node
    match node:
        case ast.BoolOp(values=values):
            yield from _always(values[0])
        case ast.Compare(left=left, comparators=comps):
            yield from _always(left)
            yield from _always(comps[0])
        case ast.IfExp(test=test):
            yield from _always(test)
        case ast.GeneratorExp(generators=gens) | ast.ListComp(generators=gens) | ast.SetComp(generators=gens):
            yield from _always(gens[0].iter)
        case ast.BinOp() | ast.UnaryOp() | ast.Call() | ast.List() | ast.Tuple() | ast.Set() | ast.Starred() \
                | ast.Subscript() | ast.Attribute() | ast.keyword():
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.expr_context):
                    yield from _always(child)


def _reads_only(node: ast.AST) -> bool:
    """A list or tuple display of the game's values only (entries of its tables, a dict's values): nothing in
    it can fail or costs more than a read."""
    def read(n: ast.AST) -> bool:
        match n:
            case ast.Name() | ast.Constant() | ast.expr_context():
                return True
            case ast.Attribute(value=v) | ast.Starred(value=v):
                return read(v)
            case ast.Subscript(value=v, slice=ast.Constant()):
                return read(v)
            case ast.Call(func=ast.Attribute(value=v, attr="values" | "keys"), args=[], keywords=[]):
                return read(v)
        return False

    return isinstance(node, ast.List | ast.Tuple) and all(read(x) for x in node.elts)


def _bound_inside(node: ast.AST) -> set[str]:
    """The names a comprehension inside `node` binds (its loop variables)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class _Swap(ast.NodeTransformer):
    """Every occurrence of one subexpression (by its dump) replaced by a name."""

    def __init__(self, target: str, name: str) -> None:
        self.target, self.name = target, name

    def visit(self, node: ast.AST) -> ast.AST:
        """The node, or the name where it is the subexpression."""
        if isinstance(node, ast.expr) and ast.dump(node) == self.target:
            return ast.copy_location(ast.Name(self.name, ast.Load()), node)
        out: ast.AST = super().visit(node)
        return out

    def swap(self, node: ast.expr) -> ast.expr:
        """`node` with the subexpression replaced."""
        out = ast.fix_missing_locations(self.visit(node))
        assert isinstance(out, ast.expr)  # an expression stays one: only expressions are replaced, by a name
        return out


def hoist_common(body: str, prefix: str = "x") -> tuple[list[str], str]:
    """Common subexpressions of a generated expression read once: a computed part that occurs more than once
    (`most(count(...))` reads the player's own count again beside the others'; `v >= 2 and most(v)` reads v
    twice) and is always evaluated where it first occurs is assigned to a local before the expression and
    read from it everywhere. The expressions read a fixed position and call nothing with effects, so a value
    computed earlier is the same value. Returns the assignments (each after those it reads) and the
    expression."""
    tree = ast.parse(body, mode="eval")
    if any(isinstance(n, ast.Lambda | ast.NamedExpr) for n in ast.walk(tree)):  # names bound inside: left alone
        return [], body
    parts: list[ast.expr] = [tree.body]  # the expression, then each local's value (all always evaluated)
    names: list[str] = []
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}  # the locals' names are new ones
    fresh = (f"{prefix}{i}" for i in count() if f"{prefix}{i}" not in taken)
    while True:
        whole = ast.Tuple(parts, ast.Load())
        loop_vars = _bound_inside(whole)
        seen: dict[str, int] = {}
        for node in ast.walk(whole):
            if isinstance(node, _WORTH):
                key = ast.dump(node)
                seen[key] = seen.get(key, 0) + 1
        always = {ast.dump(n) for part in parts for n in _always(part) if isinstance(n, _WORTH)}
        # a display of reads (a tuple or list of table entries) made again for every element of a comprehension
        # although it reads none of its variables: made once, even where the comprehension may not run (a
        # read never fails, and costs less than a second display)
        per_element = {ast.dump(n) for c in ast.walk(whole) if isinstance(c, ast.GeneratorExp | ast.ListComp | ast.SetComp)
                       for part in (c.elt, *(f for g in c.generators for f in g.ifs)) for n in ast.walk(part)
                       if _reads_only(n)}
        best: ast.expr | None = None
        for node in ast.walk(whole):  # breadth first: the first found is among the largest
            if not isinstance(node, _WORTH) or any(node is part for part in parts[1:]):
                continue
            key = ast.dump(node)
            if (seen[key] > 1 and key in always or key in per_element and key not in always) \
                    and not {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & loop_vars \
                    and not _bound_inside(node):
                best = node
                break
        if best is None:
            break
        name = next(fresh)
        swap = _Swap(ast.dump(best), name)
        parts = [*(swap.swap(part) for part in parts), best]
        names.append(name)
    # each local after the locals its value reads (a later one may have been found inside an earlier one)
    defs = dict(zip(names, parts[1:], strict=True))
    order: list[str] = []

    def place(name: str) -> None:
        if name not in order:
            for n in ast.walk(defs[name]):
                if isinstance(n, ast.Name) and n.id in defs:
                    place(n.id)
            order.append(name)

    for name in names:
        place(name)
    return [f"{name} = {ast.unparse(defs[name])}" for name in order], ast.unparse(parts[0])
