"""What a placement sets off, statement by statement in file order: scoring triggers (S-F1, S-H1, ...),
completed areas (S-A1..S-A4, in rules/area.py), majorities (S-K1..S-K5, in rules/majority.py), first
touches (S-M1 draws, I-R1 abilities) and public missions (I-M1). `react_one` dispatches on the compiled
statement's type in this one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import AreaRule, MajorityRule, PlaceDraw, PublicRule, ScoreTrigger, TouchRule
from rebirth_dsl.rules import area, majority, public, touch
from rebirth_dsl.runtime.decks import draw_card

if TYPE_CHECKING:
    from rebirth_dsl.runtime.game import Game


def plain_public_check(g: Game, p: int, r: PublicRule, index: int | None, h: int = -1) -> None:
    """I-M1 as the rule states it (rules.public.check): every face-up card for every player."""
    public.check(g, p, r, index)


# The public missions' check the reference engine runs after a placement: the rule itself, no caches. The
# generated engine's incremental check (accel/public.py) is proven equal to it by
# tests/engines/test_public_reads.py; the layer that plays a game may put it on the game (`public_reader`), as
# the agents' game loop does (play/loop.py, play/tally.py), and the tests run the reference both ways.
public_check: Callable[[Game, int, PublicRule, int | None, int], None] = plain_public_check


def react(g: Game, p: int, kind: int, h: int, index: int | None, choices: dict[str, Any]) -> None:
    """Every statement's reaction to p's tile of `kind` placed on h, in the rules' order. The landmarks this
    placement touches first are found before any reaction and marked touched after all of them, so every
    `on first touch KIND` statement fires on the same first touch."""
    touched = g.touched[p]
    first = touch.first_touches(g.lm_adj[h], touched)
    for r in g.rs.reactions:
        own = _RULE_REACT.get(type(r))
        if own is not None:  # a rule module's reaction, called straight away (react_one would call it too)
            own(g, r, p, h, index)
        else:
            react_one(g, r, p, kind, h, index, choices, first)
    touch.mark(touched, first)


# the reactions of rule kinds whose whole meaning lives in a module of rules/, by compiled statement type
_RULE_REACT: dict[type, Callable[..., None]] = {AreaRule: area.react, MajorityRule: majority.react}


def react_one(g: Game, r: ScoreTrigger | PlaceDraw | AreaRule | MajorityRule | TouchRule | PublicRule, p: int,
              kind: int, h: int, index: int | None, choices: dict[str, Any],
              first: tuple[int, ...] = ()) -> None:
    """One statement's reaction to a placement (`first`: the landmarks it touches first)."""
    t = g.t
    if isinstance(r, ScoreTrigger):
        if (r.kinds is None or kind in r.kinds) and (r.at is None or r.at[h]):
            pts = r.fn(Ctx(g, p, h))
            g.event(index, p, pts, r.category, r.ids, "{} {} at ({},{}): {} = {}", g.players[p],
                    g.rs.tile_name(kind, g.tval[h]), t.coords[h][0], t.coords[h][1], r.text, pts)
    elif isinstance(r, PlaceDraw):
        if (r.kinds is None or kind in r.kinds) and (r.at is None or r.at[h]):
            draw_card(g, p, r.deck, r.ids, index, "placing at ({},{})".format(*t.coords[h]))
    elif isinstance(r, AreaRule):
        area.react(g, r, p, h, index)
    elif isinstance(r, MajorityRule):
        majority.react(g, r, p, h, index)
    elif isinstance(r, TouchRule):
        touch.react(g, r, p, kind, h, index, choices, first)
    elif isinstance(r, PublicRule):
        (g.public_reader or public_check)(g, p, r, index, h)
    else:  # a compiled statement kind without a reaction would be accepted and ignored: never
        raise TypeError(f"no reaction for {type(r).__name__}")


