"""The expression language's names and types: built-in functions with their signatures, context
variables, and the type checker that reports every name, type and arity error at its place."""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.errors import Fix, RebirthError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES
from rebirth_dsl.shared_methods import Node, node, replace

if TYPE_CHECKING:
    from typing import Any

    from rebirth_dsl.check.symbols import Tables

# The built-in functions are declared in lang/functions.py (one entry each); the checker reads their
# signatures from there.
VARIABLES: dict[str, tuple[str, str]] = {
    "me": ("player", "the player the expression is evaluated for"),
    "placed": ("hex", "the hex just placed on (placement triggers)"),
    "influence": ("int", "the player's influence in the area (payouts, incomplete areas)"),
    "always": ("bool", "true"),
    "nobody": ("player", "no player"),
}
COLLECTIONS = {"hexes", "groups", "landmarks", "areas"}


@node
class Scope(Node):
    """Which context variables an expression may use."""

    placed: bool = False
    influence: bool = False
    me: bool = True  # a winner tie-break is read for nobody in particular: `me` means nothing there


class ExprError(RebirthError):
    """A name, type or arity error in an expression."""


def _err(msg: str, node: Any, hint: str | None = None, fixes: tuple[Fix, ...] = ()) -> ExprError:
    sp = node.span
    return ExprError.single(msg, file=sp.file, line=sp.line, col=sp.col, hint=hint, fixes=fixes)


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
                if name == "me" and not scope.me:
                    errors.append(_err("`me` means nobody in a winner tie-break: it is read once for the whole "
                                       "table", node, "name the player by a landmark's owner or best(...)"))
                return VARIABLES[name][0]
            if name in t.attributes:
                if not scope.influence:
                    errors.append(_err(f"`{name}` alone only exists in an area payout; use {name}(HEXES)", node))
                return "int"
            sel = t.selector_kind(name)
            if sel:
                errors.append(_err(f"{sel} `{name}` is not a value here; it can only be an argument "
                                   "(e.g. tiles(me, food))", node))
            else:
                dym = t.suggest(name, [*VARIABLES, *t.attributes, *t.all_selector_names()])
                fix = (Fix(f"change to `{dym}`", node.span, dym),) if dym else ()  # the name's own span: it alone
                errors.append(_err(f"unknown name `{name}`", node, f"did you mean `{dym}`?" if dym else None, fix))
            return "?"
        case A.Landmark(kind=kind, name=lname, tag=tag):
            if not t.is_selector("landmark", kind):
                errors.append(ExprError([t.unknown(node.span, f"unknown landmark kind `{kind}`", "landmark kind", kind,
                                                   t.landmark_kinds)]))
            if tag is not None and not t.is_selector("tag", tag):
                errors.append(ExprError([t.unknown(node.span, f"unknown tag `{tag}`", "tag", tag, t.tags)]))
            if t.board is not None and t.require_landmarks and t.find_landmark(kind, lname, tag) is None:
                what = f'"{lname}"' if lname is not None else f"with {tag}"
                names = t.landmarks_of(kind)
                dym = t.suggest(lname, names) if lname else None
                errors.append(_err(f"the board has no {kind} {what}", node, f'did you mean "{dym}"?' if dym else None))
            return "landmark"
        case A.Not(operand=o):
            _expect(o, "bool", t, scope, errors)
            return "bool"
        case A.PlayerEntry(low=low, high=high, value=v):
            counts = str(low) if low == high else f"{low} to {high}"
            errors.append(_err(f"`{counts}: {v}` is an entry of a player-count table: it stands only inside "
                               "`players(...)`", node, f"write players({counts}: {v}, ...) with an entry for "
                               "every player count"))
            return "?"
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
                dym = t.suggest(fn, list(SIGNATURES) + list(t.attributes))
                errors.append(_err(f"unknown function `{fn}`", node, f"did you mean `{dym}`?" if dym else None))
                return "?"
            sig = SIGNATURES[fn]
            params, result, _doc = sig.params, sig.result, sig.doc
            variadic = params and params[-1].endswith("*")
            fixed = params[:-1] if variadic else params
            if len(args) < len(fixed) or (not variadic and len(args) > len(params)):
                want = f"{len(fixed)}+" if variadic else str(len(params))
                errors.append(_err(f"{fn}() takes {want} argument(s), not {len(args)}", node,
                                   f"{fn}({', '.join(p.rstrip('*') for p in params)}): {_doc}"))
                return result
            if sig.per_player:  # the argument is read once per player, `me` bound to each
                scope = replace(scope, me=True)
            for i, arg in enumerate(args):
                ptype = params[min(i, len(params) - 1)].rstrip("*")
                if ptype == "entry":  # a player-count table's entry, `2 to 3: 15` (check_player_tables: its counts)
                    if not isinstance(arg, A.PlayerEntry):
                        errors.append(_err(f"{fn}(...) takes a table of entries `COUNT: NUMBER` or `LOW to HIGH: "
                                           "NUMBER`, not an expression", arg,
                                           f"e.g. {fn}(2 to 3: 15, 4: 13); `{fn}` alone is the count itself"))
                elif isinstance(arg, A.PlayerEntry):
                    type_of(arg, t, scope, errors)
                elif ptype.startswith("sel:"):
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
    wants = want.split("|")  # an argument may take either of two types (`hexes|hex`)
    if got not in (*wants, "?"):
        errors.append(_err(f"expected {' or '.join(wants)}, got {got}", node))


def _check_selector(node: A.Expr, what: str, t: Tables, errors: list[ExprError]) -> None:
    if what == "near" and isinstance(node, A.Landmark):
        type_of(node, t, Scope(), errors)
        return
    if not isinstance(node, A.Name):
        errors.append(_err(f"expected the name of a {_SEL_DOC[what]}", node))
        return
    if not t.is_selector(what, node.id):
        # a name declared as something else is in the wrong place; one declared as nothing, maybe undeclared
        sort = _SEL_DOC[what] if t.selector_kind(node.id) is None else ""
        errors.append(ExprError([t.unknown(node.span, f"`{node.id}` is not a {_SEL_DOC[what]}", sort, node.id,
                                           t.selector_options(what))]))


_SEL_DOC = {
    "tile": "tile kind or class",
    "hex": "hex kind or tag",
    "near": "hex kind, tag or landmark",
    "landmark": "landmark kind",
}
