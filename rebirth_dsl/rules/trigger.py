"""Placement triggers: `on place KINDS [at TAG]: score EXPR as CATEGORY` (S-F1, S-H1, ...) and
`on place KINDS [at TAG]: draw DECK` (S-M1).

The kernel is `fires`: whether a tile of a kind placed on a hex sets the statement off. The reactions
score the expression or draw the deck's top card (through the game's `draw_card`, where a deck's empty rule
is kept). The native engine's C of both is `c_score` and `c_draw`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rebirth_dsl.compile.emit import Emitter, c_int
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.rules.kind import CContext, Kind, Placement

if TYPE_CHECKING:
    from rebirth_dsl.compile.ruleset import PlaceDraw, ScoreTrigger
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


# ----- the native engine (native/cgen.py) -----------------------------------------------------------
def c_fires(gen: CContext, e: Emitter, ri: int, r: ScoreTrigger | PlaceDraw) -> str:
    """`fires` in C for the tile of kind k placed on h (the hexes `at` marks: the table AT{ri})."""
    e.locals.require("k", "h")
    cond = f"({gen.kinds_mask(r.kinds)} >> k) & 1"
    if r.at is not None:
        at = e.c_table("u8", f"AT{ri}", c_int(max(gen.t.n, 1)), [int(x) for x in r.at])
        cond += f" && {at}[h]"
    return cond


def c_score(gen: CContext, e: Emitter, ri: int, r: ScoreTrigger) -> None:
    """`react_score` in place(): the expression, read with the tile in place, added to its category."""
    e.locals.require("s", "p", "h")
    cond = c_fires(gen, e, ri, r)
    f = gen.expr(r.expr, f"the placement trigger scoring `{r.category}`")
    e.line(f"if ({cond}) add(s, p, {gen.category(r.category)}, {f}(s, p, h, 0));")


def c_draw(gen: CContext, e: Emitter, ri: int, r: PlaceDraw) -> None:
    """`react_draw` in place(): the placer draws the deck's top card (S-M1)."""
    e.locals.require("s", "p")
    cond = c_fires(gen, e, ri, r)
    e.line(f"if ({cond}) {gen.draw(r.deck)}(s, p);")


SCORE = Kind(
    name="placement trigger",
    react=react_score,
    c_place=c_score,
)
DRAW = Kind(
    name="placement draw",
    react=react_draw,
    c_place=c_draw,
)
