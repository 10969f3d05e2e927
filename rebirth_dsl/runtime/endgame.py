"""End-of-game scoring (S-E1..S-E3) and the winner with the rules' tie-break chain (S-E4)."""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.rules.public import held_points
from rebirth_dsl.runtime.state import Event

if TYPE_CHECKING:
    from collections.abc import Callable

    from rebirth_dsl.runtime.game import Game


def end_events(g: Game) -> list[Event]:
    """What end-of-game scoring adds now, without changing the state. A quiet game is scored by the
    ruleset's generated end scoring (accel/fast_end.end_quiet: the same events without text;
    tests/engines/test_differential.py proves them equal)."""
    if g.quiet:
        end: list[Event] = (g.rs.derived.end_quiet or _end_quiet(g))(g)
        return end
    g.memo = {}  # the position is fixed while scoring: groups() is memoised
    try:
        return _end_events(g)
    finally:
        g.memo = None


def _end_quiet(g: Game) -> Callable[[Game], list[Event]]:
    """The ruleset's generated end scoring, made at its first quiet game (a command that scores one game
    with its text never imports the generator)."""
    from rebirth_dsl.accel.fast_end import end_quiet

    return end_quiet(g.rs, Event)


def _end_events(g: Game) -> list[Event]:
    rs, t = g.rs, g.t
    who = g.players
    out: list[Event] = []
    for kind, fn, cat, ids in rs.end_incomplete:  # S-E1
        for a in range(len(t.area_hexes)):
            if g.area_done[a] or g.area_free[a] == 0 or t.area_kind[a] != kind:
                continue
            for q in range(g.n_players):
                inf = g.area_inf[a][q]
                if inf > 0:
                    pts = fn(Ctx(g, q, -1, inf))
                    out.append(g.end_event(q, pts, cat, ids, "incomplete area {}: {} influence {}: {}",
                                           t.area_names[a], who[q], inf, pts))
    for kind, fn, cat, ids in rs.end_owned:  # S-E2
        for lm, owner in enumerate(g.lm_owner):
            if owner >= 0 and t.landmark_kind[lm] == kind:
                pts = fn(Ctx(g, owner))
                out.append(g.end_event(owner, pts, cat, ids, "{} holds {}: {}", who[owner], t.landmark_name[lm], pts))
    if rs.end_held is not None:  # S-E3
        cat, ids = rs.end_held
        for q in range(g.n_players):
            ctx = Ctx(g, q)
            for name in g.held[q]:
                card = g.cards[name]
                ok = bool(card.cond(ctx))
                pts = held_points(card.points, ok)
                out.append(g.end_event(q, pts, cat, card.ids or ids, "{}'s card {!r}: {}: {}", who[q], name,
                                       "fulfilled" if ok else "not fulfilled", pts))
    return out


def final_scores(g: Game, end: list[Event]) -> list[int]:
    """Track plus end-of-game points."""
    out = list(g.track)
    for e in end:
        out[e.player] += e.points
    return out


def winners(g: Game, totals: list[int]) -> tuple[list[int], str]:
    """Most points wins; ties are broken by the rules' chain (S-E4); else the win is shared."""
    top = max(totals)
    tied = [q for q, s in enumerate(totals) if s == top]
    if len(tied) == 1:
        return tied, "most points"
    ctx = Ctx(g)
    for fn, among, text in g.rs.winner_ties:
        w = fn(ctx)
        if w >= 0 and (w in tied or not among):
            return [w], f"tie broken by {text}"
    return tied, "tie stands: shared win"
