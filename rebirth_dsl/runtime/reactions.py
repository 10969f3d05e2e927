"""What a placement sets off, statement by statement in file order: scoring triggers (S-F1, S-H1, ...),
completed areas (S-A1..S-A4), majorities (S-K1..S-K5), first touches (S-M1 draws, I-R1 abilities) and
public missions (I-M1). Each reaction kind has its home here; `react_one` dispatches on the compiled
statement's type in this one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import AreaRule, MajorityRule, PlaceDraw, PublicRule, ScoreTrigger, TouchRule
from rebirth_dsl.lang.ids import join_ids as join
from rebirth_dsl.lang.vocab import TieStep
from rebirth_dsl.rules import public, touch
from rebirth_dsl.runtime.decks import draw_card

if TYPE_CHECKING:
    from rebirth_dsl.runtime.game import Game


def plain_public_check(g: Game, p: int, r: PublicRule, index: int | None, h: int = -1) -> None:
    """I-M1 as the rule states it (rules.public.check): every face-up card for every player."""
    public.check(g, p, r, index)


# The public missions' check the reference engine runs after a placement: the rule itself, no caches
# (random games on it take about 1.6x the time of the incremental check, greedy ones the same). The
# generated engine's incremental check (accel/public.py) is proven equal to it by tests/test_public_reads.py,
# which also runs the reference engine with the incremental check put here.
public_check: Callable[[Game, int, PublicRule, int | None, int], None] = plain_public_check


def react(g: Game, p: int, kind: int, h: int, index: int | None, choices: dict[str, Any]) -> None:
    """Every statement's reaction to p's tile of `kind` placed on h, in the rules' order. The landmarks this
    placement touches first are found before any reaction and marked touched after all of them, so every
    `on first touch KIND` statement fires on the same first touch."""
    touched = g.touched[p]
    first = touch.first_touches(g.lm_adj[h], touched)
    for r in g.rs.reactions:
        react_one(g, r, p, kind, h, index, choices, first)
    touch.mark(touched, first)


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
        a = t.area_of[h]
        if a >= 0 and g.area_free[a] == 0 and not g.area_done[a] and t.area_kind[a] == r.kind:
            score_area(g, a, p, r, index)
    elif isinstance(r, MajorityRule):
        for lm in g.lm_adj[h]:
            if g.metric_of.get(lm) is r:
                challenge(g, lm, p, r, index)
    elif isinstance(r, TouchRule):
        touch.react(g, r, p, kind, h, index, choices, first)
    elif isinstance(r, PublicRule):
        public_check(g, p, r, index, h)
    else:  # a compiled statement kind without a reaction would be accepted and ignored: never
        raise TypeError(f"no reaction for {type(r).__name__}")


# ----- areas (S-A1..S-A4) ---------------------------------------------------------------------------
def rank_area(g: Game, a: int, completer: int, rule: AreaRule) -> list[int]:
    """Players with influence in the area, best first, by the rule's tie-break chain (S-A1, S-A2)."""
    return rank(g.area_inf[a], completer, g.n_players, rule.ties)


def rank(inf: list[int], completer: int, n: int, steps: tuple[TieStep, ...]) -> list[int]:
    """Seats with influence above 0, most first, ties broken by the steps in order (the generated engine
    calls this same function)."""
    ranked = [q for q in range(n) if inf[q] > 0]
    if len(ranked) < 2:
        return ranked
    return sorted(ranked, key=lambda q: [-inf[q]] + [s.key(q, completer, n) for s in steps])


def score_area(g: Game, a: int, completer: int, rule: AreaRule, index: int | None) -> None:
    """A completed area pays its ranking by its size's payout table (S-A3), or the alone rule."""
    t = g.t
    g.area_done[a] = True
    order = rank_area(g, a, completer, rule)
    size = len(t.area_hexes[a])
    key = (size, g.n_players) if (size, g.n_players) in rule.pay else (size, None)
    table = rule.pay.get(key, ())
    by_place_ids, alone_ids = rule.paid_ids.get(key, (rule.rank_ids, rule.rank_ids))
    name = t.area_names[a]
    if not order:
        g.event(index, completer, 0, rule.category, rule.ids, "area {} complete: nobody has influence", name)
        return
    g.area_first[a] = order[0]
    alone = len(order) == 1 and bool(rule.alone)
    for place, q in enumerate(order):
        inf = g.area_inf[a][q]
        ctx = Ctx(g, q, -1, inf)
        if alone:
            pts = sum(table[i](ctx) for i in rule.alone if i < len(table))
            ids = alone_ids
        else:
            pts = table[place](ctx) if place < len(table) else 0
            ids = by_place_ids
        how = "alone" if alone else f"place {place + 1}"
        g.event(index, q, pts, rule.category, ids, "area {} (size {}) complete: {} {} with influence {}: {}",
                name, size, g.players[q], how, inf, pts)


# ----- majorities (S-K1..S-K5) ----------------------------------------------------------------------
def challenge(g: Game, lm: int, p: int, rule: MajorityRule, index: int | None) -> None:
    """A placement next to a landmark challenges its holder: compare the metrics in order (S-K3, S-K4),
    then the final tie (S-K5)."""
    owner = g.lm_owner[lm]
    if owner == p:
        return
    name = g.t.landmark_name[lm]
    who = g.players
    over = rule.step_ids.get("over", ())
    if owner < 0:
        take(g, lm, p, rule, index, join(over, rule.step_ids.get("unowned", ())),
             "{} had no owner: {} takes it", name, who[p])
        return
    for mi, c in enumerate(g.lm_count[lm]):
        mine, theirs = c[p], c[owner]
        if mine == theirs:
            continue
        what = "tiles" if rule.metrics[mi] is None else f"{rule.metric_names[mi]} tiles"
        ids = join(over, rule.step_ids.get(f"compare.{mi}", ()))
        if mine > theirs:
            take(g, lm, p, rule, index, ids, "{}: {} has {} adjacent {} to {}'s {}: takes it", name, who[p], mine,
                 what, who[owner], theirs)
        else:
            g.event(index, p, 0, rule.category, ids, "{}: {} has {} adjacent {} to {}'s {}: {} keeps it", name,
                    who[p], mine, what, who[owner], theirs, who[owner])
        return
    ids = join(over, rule.step_ids.get("final", ()))
    if rule.placer_takes_tie:
        take(g, lm, p, rule, index, ids, "{}: tied on every count: the placer {} takes it", name, who[p])
    else:
        g.event(index, p, 0, rule.category, ids, "{}: tied on every count: {} keeps it", name, who[owner])


def take(g: Game, lm: int, p: int, rule: MajorityRule, index: int | None, ids: tuple[str, ...], text: str,
         *args: object) -> None:
    """The landmark changes hands."""
    g.lm_owner[lm] = p
    g.event(index, p, 0, rule.category, ids, text, *args)


