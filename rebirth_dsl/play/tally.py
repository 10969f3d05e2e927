"""What a simulated game leaves besides its scores: mission fulfilment, landmarks changing hands, passes,
fallbacks and length, counted while the game runs quiet (no events, no text).

Most of it is read off the final state (`passed`, `held`, `public`, `public_by`, `move_index`). A
landmark changing hands leaves no trace there, so a `Tally` watches the moves: the generated playout
loop hands every move to `moves.append` right after the placement and its reactions, and the reference
loop below does the same, so one object counts both. It looks only at the majority landmarks next to the
hex just filled (the only ones a placement can move), which keeps it to a few list reads a move.

The same hook follows the lead on the score track: after each placement, who alone has the most points.
Most moves score for the mover alone: two list compares in C (the track against a copy of it before the
move) tell so, and the mover's score against the top decides; only a move that scores for other seats
too (an area completed) reads the whole track. A lead
change is a seat leading alone where another led alone before (a tie on top in between changes nothing);
the lead run is the move from which the seat now alone in the lead has stayed there. The native engine
does not count these: its games carry None, and the lab says so instead of a 0.

`rebirth simulate --map-stats` plays with a `MapTally` instead, which also keeps, per hex, the points the
move that filled it scored for its placer and, per landmark, how often it changed hands; it reads the rest
(which tile kind ended on each hex, each area's state) off the final position into `GameExtra.map`. A run
without the flag never makes one, so it costs nothing there.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from rebirth_dsl.accel.public import public_missions as incremental_check
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.play.agents import Agent, decide
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.rules.public import payout
from rebirth_dsl.runtime.game import Event, Game
from rebirth_dsl.runtime.setup import deal, seat_rng
from rebirth_dsl.runtime.state import EMPTY, NEUTRAL


@dataclass(frozen=True)
class GameExtra:
    """Per-game data beyond the scores (plain tuples, so it pickles and compares across processes)."""

    length: int  # moves, passes included
    passes: tuple[int, ...]  # per seat
    fallbacks: tuple[int, ...]  # per seat: tiles placed on a fallback hex (S-P3)
    changes: tuple[tuple[int, ...], ...]  # per majority statement, per seat: landmarks taken from an owner
    claims: tuple[tuple[int, ...], ...]  # per majority statement, per seat: landmarks taken with no owner
    missions: tuple[tuple[int, str, bool, int], ...]  # private cards held at the end: seat, card, fulfilled, paid
    public: tuple[tuple[str, tuple[tuple[int, int], ...]], ...]  # face-up card: (seat, paid) per fulfiller, in order
    # the score track during play (None: not measured, as on the native engine)
    lead_changes: int | None = None  # times a seat took the lead alone from another seat that led alone
    leader: int | None = None  # the seat alone in the lead on the track after the last move (-1: a tie on top)
    lead_from: int | None = None  # the number of moves after which `leader` has led alone to the end
    map: MapExtra | None = None  # per hex, area and landmark (simulate --map-stats only)


@dataclass(frozen=True)
class MapExtra:
    """Where a game's tiles went (simulate --map-stats): hexes, areas and landmarks are board indices."""

    tiles: tuple[int, ...]  # per hex: the kind of the player's tile on it at the end, NEUTRAL, or EMPTY
    points: tuple[int, ...]  # per hex: what the move that filled it scored for its placer (0 if none)
    areas: tuple[int, ...]  # per area: -1 incomplete at the end, else how many players had influence in it
    changes: tuple[int, ...]  # per landmark: times taken from an owner
    owners: tuple[int, ...]  # per landmark: its owner at the end (-1: nobody)


@dataclass(frozen=True)
class _Tables:
    """Per ruleset: the majority landmarks next to each hex, and each tile kind's primary hex kinds."""

    near: tuple[tuple[tuple[int, int], ...], ...]  # hex -> ((landmark, majority statement index), ...)
    primary: tuple[frozenset[str], ...]
    hex_kind: tuple[str, ...]


def _tables(rs: Ruleset) -> _Tables:
    tb: _Tables | None = rs.derived.tally
    if tb is None:
        t = rs.t
        stmt = {lm: i for i, m in enumerate(rs.majorities) for lm in m.landmarks}
        near = tuple(tuple((t.landmark_of_hex[m], stmt[t.landmark_of_hex[m]]) for m in t.neighbours[h]
                           if t.landmark_of_hex.get(m) in stmt) for h in range(t.n))
        primary = tuple(frozenset(rs.primary.get(k, ())) for k in range(len(rs.tile_kinds)))
        tb = _Tables(near, primary, tuple(t.hex_kind))
        rs.derived.tally = tb
    return tb


class Tally:
    """Counts, move by move, fallback placements and landmarks changing hands; `append` is the hook the
    generated playout loop calls with (seat, kind, value, hex) after each move (hex -1: a pass)."""

    __slots__ = ("g", "near", "primary", "hex_kind", "prev", "fallbacks", "changes", "claims", "track", "snap",
                 "top", "moves", "lead", "alone", "lead_changes", "lead_from")

    def __init__(self, g: Game) -> None:
        tb = _tables(g.rs)
        n = g.n_players
        self.g = g
        self.near, self.primary, self.hex_kind = tb.near, tb.primary, tb.hex_kind
        self.prev = list(g.lm_owner)
        self.fallbacks = [0] * n
        self.changes = [[0] * n for _ in g.rs.majorities]
        self.claims = [[0] * n for _ in g.rs.majorities]
        self.track = g.track  # mutated in place by both engines, never replaced
        self.snap = list(g.track)  # the track after the last move
        self.top = max(g.track)  # its most points
        self.moves = 0
        self.lead = -1  # the last seat to lead alone (kept through a tie on top)
        self.alone = False  # whether it leads alone now
        self.lead_changes = 0
        self.lead_from = 0

    def append(self, move: tuple[int, int, int, int]) -> None:
        """One move has been applied."""
        p, k, _, h = move
        self.moves += 1
        if h < 0:
            return  # a pass scores nothing: the lead stands
        if self.hex_kind[h] not in self.primary[k]:
            self.fallbacks[p] += 1
        owner, prev = self.g.lm_owner, self.prev
        for lm, i in self.near[h]:
            o = owner[lm]
            if o != prev[lm]:
                (self.changes if prev[lm] >= 0 else self.claims)[i][o] += 1
                prev[lm] = o
        t = self.track
        snap = self.snap
        if t == snap:
            return  # nothing scored (a list compare in C): the lead stands
        s = t[p]
        before = snap[p]
        snap[p] = s
        if s > before and t == snap:  # the usual move: the mover alone scored, and up
            if s < self.top:
                return
            if s == self.top:  # the mover draws level with the top
                self.alone = False
                return
            self.top = s
            if self.alone and p == self.lead:
                return
        else:  # other seats scored too (an area completed...) or a score went down: read the whole track
            snap[:] = t
            self.top = top = max(t)
            if t.count(top) > 1:
                self.alone = False
                return
            p = t.index(top)
            if self.alone and p == self.lead:
                return
        if p != self.lead:  # p now leads alone, after a tie on top or another seat's lead
            if self.lead >= 0:
                self.lead_changes += 1
            self.lead = p
        self.alone = True
        self.lead_from = self.moves

    def extra(self, g: Game, end: list[Event]) -> GameExtra:
        """The game's extra data, from the counts and the final state (`end`: its end-of-game events)."""
        return GameExtra(g.move_index, tuple(g.passed), tuple(self.fallbacks), tuple(map(tuple, self.changes)),
                         tuple(map(tuple, self.claims)), held_missions(g, end), public_missions(g), self.lead_changes,
                         self.lead if self.alone else -1, self.lead_from if self.alone else self.moves)


class MapTally(Tally):
    """A Tally that also keeps, per hex, the points its placer scored with the move that filled it, and,
    per landmark, the times it was taken from an owner (simulate --map-stats)."""

    __slots__ = ("before", "points", "lm_changes")

    def __init__(self, g: Game) -> None:
        super().__init__(g)
        self.before = list(g.track)  # every seat's points before the move
        self.points = [0] * g.t.n
        self.lm_changes = [0] * len(g.lm_owner)

    def append(self, move: tuple[int, int, int, int]) -> None:
        """One move has been applied: its placer's gain goes to the hex (other seats' gains on this move,
        an area's lower places, belong to no hex of theirs), a landmark taken from an owner is counted, and
        Tally.append counts the rest (it moves `prev` on, so the landmarks are read before it)."""
        p, _, _, h = move
        track, before = self.g.track, self.before
        if h >= 0:
            self.points[h] = track[p] - before[p]
            owner, prev = self.g.lm_owner, self.prev
            for lm, _i in self.near[h]:
                if owner[lm] != prev[lm] and prev[lm] >= 0:
                    self.lm_changes[lm] += 1
        before[:] = track
        super().append(move)

    def extra(self, g: Game, end: list[Event]) -> GameExtra:
        """The Tally's data, with the map's (MapExtra) from the counts and the final position."""
        n = g.n_players
        tiles = tuple(k if o >= 0 else o if o == NEUTRAL else EMPTY for o, k in zip(g.owner, g.tkind, strict=True))
        areas = tuple(-1 if g.area_free[a] else sum(1 for q in range(n) if g.area_inf[a][q] > 0)
                      for a in range(len(g.area_free)))
        return replace(super().extra(g, end), map=MapExtra(tiles, tuple(self.points), areas,
                                                           tuple(self.lm_changes), tuple(g.lm_owner)))


def held_missions(g: Game, end: list[Event]) -> tuple[tuple[int, str, bool, int], ...]:
    """Each private card held at the end: seat, card, fulfilled, points paid. The points are those of the
    end-of-game events, whose held-card part comes last, one event per card in seat and hand order
    (runtime/endgame.py); a card's condition is read only for a card worth nothing, where the points
    cannot tell."""
    if g.rs.end_held is None:
        return ()
    held = [(q, name) for q in range(g.n_players) for name in g.held[q]]
    if not held:
        return ()
    out = []
    for (q, name), e in zip(held, end[len(end) - len(held):], strict=True):
        if e.player != q:  # the order of end_events changed: fail loudly rather than misattribute
            raise AssertionError("held-card events are not last in end_events")
        card = g.cards[name]
        ok = e.points != 0 if card.points else bool(card.cond(Ctx(g, q)))
        out.append((q, name, ok, e.points))
    return tuple(out)


def public_missions(g: Game) -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
    """Each face-up card with who fulfilled it, in order, and what it paid them: the big number to the
    first, the small one to each later player, times their doubling marker (as rules.public.pay
    pays it)."""
    out = []
    for name in g.public:
        card = g.cards[name]
        paid = tuple((q, payout(card.points, card.small, i, g.doubled[q].get(name, 1)))
                     for i, q in enumerate(g.public_by.get(name, ())))
        out.append((name, paid))
    return tuple(out)


def finish(g: Game, agents: list[Agent], rngs: list[random.Random], tally: Tally | None = None) -> None:
    """Play a game to its end with the agents, on the reference engine (the moves `play_game` makes from
    the same generators: the same calls in the same order)."""
    if g.public_reader is None:  # the incremental check, proven equal to the rule (accel/public.py)
        g.public_reader = incremental_check
    while not g.is_over():
        p = g.turn
        if not g.hand[p]:  # a scenario: no hands to play from
            return
        tile, h, choices = decide(agents[p], g, p, rngs[p])
        g.play(p, tile, h, None, choices)
        if tally is not None:
            tally.append((p, tile[0], tile[1], -1 if h is None else h))


def play_tallied(rs: Ruleset, names: list[str], agents: tuple[str, ...] | list[str], seed: int,
                 map_stats: bool = False) -> tuple[Game, Tally]:
    """A whole quiet game from the seed's deal, as `rebirth play` and `simulate` play it, with its tally
    (a MapTally with `map_stats`): random seats on the generated engine, any other agent on the reference one."""
    g = Game(rs, names, deal(rs, len(names), seed))
    g.quiet = True
    tally = MapTally(g) if map_stats else Tally(g)
    rngs = [seat_rng(seed, i) for i in range(len(names))]
    if all(a == "random" for a in agents):
        compiled(rs).run_random(g, rngs, tally)  # the loop calls tally.append after every move
    else:
        finish(g, [make_agent(a) for a in agents], rngs, tally)
    return g, tally
