"""Placement triggers: `on place KINDS [at TAG]: score EXPR as CATEGORY` (S-F1, S-H1, ...) and
`on place KINDS [at TAG]: draw DECK` (S-M1).

The kernel is `fires`: whether a tile of a kind placed on a hex sets the statement off. The reactions
score the expression or draw the deck's top card (through the game's `draw_card`, where a deck's empty rule
is kept). The generated Python engine writes a score trigger out (`python_place`); a draw it leaves to the
reference reaction. The native engine's C of both is `c_score` and `c_draw`."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import Emitter, c_int, literal
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.lang import ast as A
from rebirth_dsl.rules.kind import Kind, Placement, never_at

if TYPE_CHECKING:
    from rebirth_dsl.compile.ruleset import PlaceDraw, Ruleset, ScoreTrigger
    from rebirth_dsl.rules.kind import CContext, PyGen
    from rebirth_dsl.rules.view import GameView


# ----- the kernel -----------------------------------------------------------------------------------
def fires(kinds: frozenset[int] | None, at: Sequence[bool] | None, kind: int, h: int) -> bool:
    """Whether a tile of `kind` placed on hex h sets off a trigger on `kinds` (None: every kind) at the hexes
    `at` marks (None: everywhere)."""
    return (kinds is None or kind in kinds) and (at is None or at[h])


# ----- the reference reactions ----------------------------------------------------------------------
def react_score(g: GameView, r: ScoreTrigger, at: Placement) -> None:
    """The trigger's expression, read with the tile in place, scored as its category."""
    if fires(r.kinds, r.at, at.kind, at.h):
        pts = r.fn(Ctx(g, at.p, at.h))
        x, y = g.t.coords[at.h]
        g.event(at.index, at.p, pts, r.category, r.ids, "{} {} at ({},{}): {} = {}", g.players[at.p],
                g.rs.tile_name(at.kind, g.tval[at.h]), x, y, r.text, pts)


def react_draw(g: GameView, r: PlaceDraw, at: Placement) -> None:
    """The placer draws the deck's top card (S-M1)."""
    if fires(r.kinds, r.at, at.kind, at.h):
        g.draw_card(at.p, r.deck, r.ids, at.index, "placing at ({},{})".format(*g.t.coords[at.h]))


# ----- the generated Python engine (pyengine/fast.py) ----------------------------------------------
def _is_group_size(e: A.Expr) -> bool:
    """`size(group(placed))` / `count(group(placed))`: the union-find root's size."""
    return (isinstance(e, A.Call) and e.fn in ("size", "count") and len(e.args) == 1
            and isinstance(e.args[0], A.Call) and e.args[0].fn == "group" and len(e.args[0].args) == 1
            and isinstance(e.args[0].args[0], A.Name) and e.args[0].args[0].id == "placed")


def python_points(r: ScoreTrigger, rs: Ruleset) -> str | None:
    """Source for a trigger's points when it is a known shape: a number, or "group" for the placed tile's
    group size (the tile's kinds all form groups); None for any other expression (its closure is called)."""
    expr = r.expr
    if expr is None:
        return None
    if isinstance(expr, A.Num):
        return literal(int(expr.value))
    if _is_group_size(expr) and r.kinds is not None and r.kinds <= rs.group_kinds:
        return "group"
    return None


def python_tables(gen: PyGen, ri: int, r: ScoreTrigger) -> None:
    """AT{ri}: whether each hex has the trigger's tag (`at`)."""
    if r.at is not None:
        gen.const(f"AT{ri}", tuple(bool(x) for x in r.at))


def python_pure(gen: PyGen, r: ScoreTrigger) -> bool:
    """A trigger whose points are a number or the group's size reads no majority count nor holder."""
    return python_points(r, gen.rs) is not None


def python_place(gen: PyGen, ri: int, r: ScoreTrigger) -> None:
    """`fires` and the points, scored as the category (quiet: the points alone, no event); the tests the
    generator knows the answer to are left out, and a trigger that cannot fire there is not written."""
    gen.locals.require("g", "p", "h", "sc", "track")
    conds = []
    test = gen.kind_in(r.kinds)
    if test == "False":
        return
    if test != "True":
        conds.append(f"({test})")
    if r.at is not None:
        ats = gen.values(tuple(bool(x) for x in r.at))
        if ats == {False}:
            return
        if ats != {True}:
            conds.append(f"AT{ri}[h]")
    with gen.block(f"if {' and '.join(conds)}:") if conds else nullcontext():
        src = python_points(r, gen.rs)
        if src == "group":  # the root of the group just joined (h itself where no group can form)
            gen.line(f"pts = gsize[{gen.local('groot') if 'groot' in gen.locals else 'h'}]")
        elif src is not None:
            gen.line(f"pts = {src}")
        else:
            gen.line(f"pts = {gen.closure(f'TRIG{ri}', r.fn)}(Ctx(g, p, h))")
        gen.line(f"sc[{literal(r.category)}] += pts")
        gen.line("track[p] += pts")


# ----- the native engine (native/cgen.py) -----------------------------------------------------------
def c_fires(gen: CContext, e: Emitter, ri: int, r: ScoreTrigger | PlaceDraw) -> str:
    """`fires` in C for the tile of kind k placed on h (the hexes `at` marks: the table AT{ri})."""
    e.locals.require("k", "h")
    conds = [] if r.kinds is None else [f"({gen.kinds_mask(r.kinds)} >> k) & 1"]  # None: every kind
    if r.at is not None:
        at = e.c_table("u8", f"AT{ri}", c_int(max(gen.t.n, 1)), [int(x) for x in r.at])
        conds.append(f"{at}[h]")
    return " && ".join(conds) or "1"


def c_score(gen: CContext, e: Emitter, ri: int, r: ScoreTrigger) -> None:
    """`react_score` in place(): the expression, read with the tile in place, added to its category. The
    placed tile's group size on kinds that all form groups (python_points' "group") is its root's size read
    straight off the union-find: the tile on h is p's and forms groups, as the expression would check."""
    e.locals.require("s", "p", "h")
    cond = c_fires(gen, e, ri, r)
    if python_points(r, gen.rs) == "group":
        pts = "rb_gsize(s, h)"
    else:
        pts = f"{gen.expr(r.expr, f'the placement trigger scoring `{r.category}`')}(s, p, h, 0)"
    e.line(f"if ({cond}) add(s, p, {gen.category(r.category)}, {pts});")


def c_draw(gen: CContext, e: Emitter, ri: int, r: PlaceDraw) -> None:
    """`react_draw` in place(): the placer draws the deck's top card (S-M1)."""
    e.locals.require("s", "p")
    cond = c_fires(gen, e, ri, r)
    e.line(f"if ({cond}) {gen.draw(r.deck)}(s, p);")


SCORE = Kind(
    name="placement trigger",
    react=react_score,
    python_tables=python_tables,
    python_place=python_place,
    python_pure=python_pure,
    c_place=c_score,
    moves_holder=never_at,  # it scores, or draws a card: no landmark, no area
    wins_area=never_at,
)


def draws_on_any_place(r: PlaceDraw) -> bool:
    """A placement draw draws whatever the placement touches."""
    return True


DRAW = Kind(
    name="placement draw",
    react=react_draw,
    draws_without_first_touch=draws_on_any_place,
    c_place=c_draw,
    moves_holder=never_at,
    wins_area=never_at,
)
