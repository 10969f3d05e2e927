"""A position's worth to each player under any compiled ruleset, and the one-ply agent that plays by it.

The worth of seat q, seen by seat p (`Evaluation.values`):

- the score track;
- what the ruleset's `end` block would pay if the game ended now: every incomplete area's rule
  (`end { incomplete ...}`) and every owned landmark's rule (`each castle owned: ...`), read by the
  ruleset's own functions, exactly as runtime/endgame.py pays them;
- the expected value of mission cards not yet paid, by their progress:
  * a private card p holds (the viewer's own only: the others' are secret): its points when its condition
    holds now; when the condition is `E >= N` (or its mirror), points * HOPE * E / N (E's value where the
    holder has nothing counted as 0 progress); any other false condition: points * HOPE * PRIOR;
  * a card another seat holds, unseen: what an average card of its deck is worth (`deck_value`);
  * a face-up mission a seat has not fulfilled: what it would pay that seat now (its big number if
    nobody has fulfilled it, else its small one) * HOPE * progress, the progress read as above.

Nothing here names a game: the landmark kinds, area kinds, payouts and cards are the ruleset's.

`OnePlyAgent` scores every legal hex by what the placement changes of the placer's worth, without copying
the game (the immediate points from play/points.py, the landmarks that change hands from rules/majority.py's
kernel, the incomplete area it enlarges or completes, the mission cards it advances, the card a first
touch draws), plus half of what it takes from the others (landmarks taken from them, incomplete-area
influence their completion of an area ends). It costs about 3.4 times greedy's instructions a game
(tools/bench_agents.py --callgrind): greedy's points, plus the landmarks, areas and cards read once per kind
of hex or card rather than per hex.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.compile.exprgen import direct_function, direct_source_function
from rebirth_dsl.compile.functions import DeltaUnsupported, _root
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.reads import GROUP, REACH, VALUE, Threshold
from rebirth_dsl.compile.ruleset import CardDef, Ruleset
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import player_table
from rebirth_dsl.play.agents import smart_answer
from rebirth_dsl.play.points import NOGAME, Delta, Points, _DeltaCompiler, _Reads, points_for
from rebirth_dsl.rules import majority
from rebirth_dsl.rules.public import payout
from rebirth_dsl.runtime.game import Game

HOPE = 0.8  # an unfinished threshold card counts this share of its points per unit of progress
PRIOR = 0.3  # a card whose condition is false and has no measure of progress (a `most`, an owner ==)
OTHERS = 0.5  # what the one-ply agent counts of the worth it takes from the other players
PRUNED_WIDTH = 3  # pruned: the cards are read for at most this many hexes, the most promising by a bound


def _fn(fn: Callable[[Ctx], Any], g: Game, q: int, influence: int = 0) -> int:
    """An end rule's points for seat q (a payout reads its context's numbers, or the game)."""
    return int(fn(Ctx(g, q, -1, influence)))


@dataclass
class _Card:
    """A card's shape for the evaluation: its condition's measure E and number N when it reads `E >= N`."""

    measure: Callable[[Ctx], Any] | None  # E, read for a seat
    limit: int | Callable[[int], int]  # N, or N by player count (`E >= 9 - players`)
    base: int
    delta_cond: Any  # the condition compiled to read the position after a placement (play/points.py), or None
    delta_measure: Any  # E, compiled likewise, or None
    always: bool  # the condition reads nothing and holds: the card pays whatever happens
    reads: list[tuple[bool, ...]] | None  # per tile kind, the hexes whose placement can change it (None: all)
    reads_won: bool  # it reads who won an area
    exact: bool = False  # the whole condition is `E >= N` (measure >= lim): E alone says whether it holds
    lims: dict[int, int] = field(default_factory=dict)  # N by player count, read once
    threshold: Threshold | None = None  # the growth bounds the evaluation reads (_card: not every card's)
    # E and the condition as generated functions of the game and the reader (compile/exprgen.py: no context
    # object made), the same numbers as `measure` and the card's `cond`; None where no source was generated
    read_measure: Callable[[Any, int], Any] | None = None
    read_cond: Callable[[Any, int], Any] | None = None

    def lim(self, n: int) -> int:
        """N with n players."""
        got = self.lims.get(n)
        if got is None:
            got = self.lims[n] = self.limit if isinstance(self.limit, int) else self.limit(n)
        return got


def by_count(node: A.Expr) -> Callable[[int], int] | None:
    """A number that depends on nothing but the player count (`9 - players`, `players(2: 6, 3 to 4: 5)`), as a
    function of the count; None when it reads anything else."""
    match node:
        case A.Num(value=v):
            return lambda n: int(v)
        case A.Call(fn="players", args=()):
            return lambda n: n
        case A.Call(fn="players", args=args):  # a player-count table (lang/functions.py player_table)
            return player_table(args).__getitem__
        case A.BinOp(op="+" | "-" | "*" as op, left=a, right=b):
            fa, fb = by_count(a), by_count(b)
            if fa is None or fb is None:
                return None
            if op == "+":
                return lambda n: fa(n) + fb(n)
            return (lambda n: fa(n) - fb(n)) if op == "-" else (lambda n: fa(n) * fb(n))
    return None


class Evaluation:
    """The ruleset's evaluation (built once per ruleset: `evaluation_for`)."""

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        t = rs.t
        self.points: Points = points_for(rs)
        self.area_kind_rules = [(kind, fn) for kind, fn, _, _ in rs.end_incomplete]
        # per landmark: the end rules paying its owner (`each castle owned: 5`)
        self.owned_rules: list[list[Callable[[Ctx], Any]]] = [
            [fn for kind, fn, _, _ in rs.end_owned if t.landmark_kind[lm] == kind] for lm in range(len(t.landmark_kind))]
        dc = _DeltaCompiler(rs)
        rd = _Reads(rs)
        asts: dict[str, A.Expr] = {}
        for block in t.decks.values():
            for c in block.cards:
                asts[c.name] = c.condition
        self.cards: dict[str, _Card] = {}
        self._limits: dict[int, dict[str, int]] = {}  # `limits`, per player count
        for deck in rs.decks.values():
            for card in deck:
                if card.name not in self.cards:
                    self.cards[card.name] = self._card(card, asts.get(card.name), dc, rd)
        self.deck_value = {name: (sum(self._prior(c) for c in deck) / len(deck) if deck else 0.0)
                           for name, deck in rs.decks.items()}
        # hexes next to no landmark and in no area: a placement there changes no landmark, area or touch
        self.lone = [t.area_of[h] < 0 and not any(m in t.landmark_of_hex for m in t.neighbours[h])
                     for h in range(t.n)]
        # the decks a first touch draws from, per touch rule (None: the rule does something else)
        self.touch_decks = [r.action.deck if isinstance(r.action, A.DrawAction) else None
                            for r in self.points.touch_rules]
        # per hex, what its placement's worth without the cards depends on besides its immediate points: the
        # landmarks next to it per majority and touch rule, and its area. Hexes alike share one reading per
        # call of `placements` (-1: a lone hex)
        sc = self.points
        kinds: dict[tuple[Any, ...], int] = {}
        self.alike = [-1 if self.lone[h] else kinds.setdefault(
            (tuple(adj[h] for adj in sc.maj_adj), t.area_of[h], tuple(adj[h] for adj in sc.touch_adj)), len(kinds))
            for h in range(t.n)]
        # per kind of hex, what its hexes have alike: the landmarks next to them per majority rule (the rules with
        # none left out), their area, and whether they touch a landmark of a touch rule's kind
        n_kinds = len(kinds)
        self.kind_lms: list[tuple[tuple[int, tuple[int, ...]], ...]] = [()] * n_kinds
        self.kind_area = [-1] * n_kinds
        self.kind_touch = [False] * n_kinds
        for h in range(t.n):
            kind = self.alike[h]
            if kind >= 0:
                self.kind_lms[kind] = tuple((ri, adj[h]) for ri, adj in enumerate(sc.maj_adj) if adj[h])
                self.kind_area[kind] = t.area_of[h]
                self.kind_touch[kind] = any(adj[h] for adj in sc.touch_adj)
        # the end rules as generated functions of the game, the seat and the influence (compile/exprgen.py: no
        # context object made), the same numbers as `owned_rules` and `area_kind_rules` read through `_fn`: per
        # landmark, the rules paying its owner; per area, its kind's incomplete-area rules
        self.owned_direct = [[direct_function(fn, t, rs.group_kinds)[0] for kind, fn, _, _ in rs.end_owned
                              if t.landmark_kind[lm] == kind] for lm in range(len(t.landmark_kind))]
        direct = [(kind, direct_function(fn, t, rs.group_kinds)[0]) for kind, fn, _, _ in rs.end_incomplete]
        self.area_direct = [[fn for kind, fn in direct if t.area_kind[a] == kind] for a in range(len(t.area_hexes))]

    def _card(self, card: CardDef, node: A.Expr | None, dc: _DeltaCompiler, rd: _Reads) -> _Card:
        measure: Callable[[Ctx], Any] | None = None
        limit: int | Callable[[int], int] = 0
        base, e_node = 0, None
        th = card.threshold
        if th is not None and len(set(th.limits)) > 1:
            # N follows the player count (reads.Threshold.limits): valued by E and N alone (by_count below), as
            # before such a card had a threshold form, so the one-ply agent's choices stay as they were
            th = None
        if th is not None and card.measure is not None:
            measure, limit, base, e_node = card.measure, th.limits[0], th.base, th.measure
        elif node is not None:
            match node:
                case A.BinOp(op=">=" | ">" as op, left=e, right=A.Num(value=n)):
                    e_node, limit = e, int(n) + (op == ">")
                case A.BinOp(op="<=" | "<" as op, left=A.Num(value=n), right=e):
                    e_node, limit = e, int(n) + (op == "<")
                case A.BinOp(op=">=" | ">" as op, left=e, right=k) if (f := by_count(k)) is not None:
                    e_node, limit = e, (lambda n, f=f, up=int(op == ">"): f(n) + up)
            if e_node is not None:
                from rebirth_dsl.compile.closures import compile_expr

                try:
                    measure = compile_expr(e_node, self.rs.t)
                except Exception:  # noqa: BLE001 - a shape the closures refuse alone: no measure
                    measure, e_node = None, None
        always = False
        try:
            always = bool(card.cond(Ctx(NOGAME, 0)))
        except (DeltaUnsupported, Exception):  # noqa: BLE001 - it reads the game: not constant
            always = False
        delta_cond = delta_measure = None
        if node is not None:
            try:
                delta_cond = dc.expr(node)
            except Exception:  # noqa: BLE001 - a shape the delta compiler refuses: bounds only
                delta_cond = None
        if e_node is not None:
            try:
                delta_measure = dc.expr(e_node)
            except Exception:  # noqa: BLE001
                delta_measure = None
        reads: list[tuple[bool, ...]] | None = None
        won = True
        if node is not None:
            try:
                table, won = rd.scalar(node)
                reads = [tuple(row) for row in table]
            except Exception:  # noqa: BLE001 - unknown reads: every placement may change it
                reads, won = None, True
        # every E above is one side of the whole condition `E >= N` (a threshold is the whole condition too,
        # compile/reads.threshold_of), so E alone says whether the card holds: read once, not twice
        exact = measure is not None
        # None where no source is generated: the closures (measure, the card's cond) read it
        t, gk = self.rs.t, self.rs.group_kinds
        read_measure = None if e_node is None else direct_source_function(e_node, t, gk)
        read_cond = direct_source_function(card.cond.node, t, gk)
        return _Card(measure, limit, base, delta_cond, delta_measure, always, reads, won, exact,
                     read_measure=read_measure, read_cond=read_cond, threshold=th)

    def limits(self, n: int) -> dict[str, int]:
        """Every card's N with n players (`_Card.lim`), by name: read once per player count."""
        got = self._limits.get(n)
        if got is None:
            got = self._limits[n] = {name: c.lim(n) for name, c in self.cards.items()}
        return got

    def _prior(self, card: CardDef) -> float:
        """An unseen card's worth: its points if it always pays, else a share of them."""
        return card.points * (1.0 if self.cards[card.name].always else HOPE * PRIOR)

    # ----- a whole position ---------------------------------------------------------------------------
    def card_value(self, g: Game, q: int, name: str, points: int) -> float:
        """What a card worth `points` to q is worth now: all of it when its condition holds, else by progress."""
        card = g.cards[name]
        if card.cond(Ctx(g, q)):
            return float(points)
        return points * HOPE * self._progress(self.cards[name], g, q)

    @staticmethod
    def _progress(c: _Card, g: Game, q: int) -> float:
        limit = c.lim(g.n_players)
        if c.measure is None or limit <= c.base:
            return PRIOR
        e = int(c.measure(Ctx(g, q)))
        return max(0.0, min(1.0, (e - c.base) / (limit - c.base)))

    def end_now(self, g: Game) -> list[int]:
        """What the end block's incomplete-area and landmark rules would pay each seat if the game ended now."""
        t = g.t
        out = [0] * g.n_players
        for kind, afn in self.area_kind_rules:
            for a in range(len(t.area_hexes)):
                if g.area_done[a] or g.area_free[a] == 0 or t.area_kind[a] != kind:
                    continue
                for q, inf in enumerate(g.area_inf[a]):
                    if inf > 0:
                        out[q] += _fn(afn, g, q, inf)
        for lm, owner in enumerate(g.lm_owner):
            if owner >= 0:
                for fn in self.owned_rules[lm]:
                    out[owner] += _fn(fn, g, owner)
        return out

    def missions(self, g: Game, viewer: int) -> list[float]:
        """The expected worth of each seat's unpaid missions, as the viewer can know it."""
        out = [0.0] * g.n_players
        if self.rs.end_held is not None:
            for q in range(g.n_players):
                for name in g.held[q]:
                    if q == viewer:
                        out[q] += self.card_value(g, q, name, g.cards[name].points)
                    else:  # unseen: an average card of its deck
                        out[q] += self._prior(g.cards[name])
        for name in g.public:
            card = g.cards[name]
            done = g.public_by.get(name, ())
            pts = payout(card.points, card.small, len(done))
            for q in range(g.n_players):
                if q not in done and pts:
                    out[q] += pts * g.doubled[q].get(name, 1) * HOPE * self._progress(self.cards[name], g, q)
        return out

    def values(self, g: Game, viewer: int) -> list[float]:
        """Each seat's worth: track + the end block now + missions by progress (module text)."""
        end = self.end_now(g)
        mis = self.missions(g, viewer)
        return [g.track[q] + end[q] + mis[q] for q in range(g.n_players)]

    def margin(self, g: Game, p: int) -> float:
        """p's worth minus the best other seat's (p alone: p's worth)."""
        v = self.values(g, p)
        return v[p] - max((x for q, x in enumerate(v) if q != p), default=0.0)

    # ----- one placement --------------------------------------------------------------------------------
    def placements(self, g: Game, p: int, tile: tuple[int, int], hexes: list[int], prune: bool = False
                   ) -> list[float]:
        """For each hex, what placing the tile there changes of p's worth (immediate points included), plus
        OTHERS times what it takes from the other players. With `prune` (the agents' speed: a heuristic),
        cards that hold already are taken to stay held, and the cards are read only at the PRUNED_WIDTH hexes
        whose worth plus a bound of what the cards can add (`_bounds`) is highest, and only while that can
        beat the best so far: the other hexes keep their worth without the cards.

        What does not depend on the hex is read once per call: hexes next to the same landmarks in the same
        area (`alike`) change the same beyond their immediate points, a landmark's new holder and what its end
        rule pays and an area's incomplete-area change are read once, and each live card's measure once for
        its value now and its bound. tests/engines/test_evaluation.py keeps the same evaluation written hex by
        hex (`placements_plain`) and compares the two on many positions; tools/gamehash.py's oneply lines,
        whole games."""
        k, v = tile
        pts = self.points.many(g, p, tile, hexes)
        sc = self.points
        n = g.n_players
        # the position's values the cards' delta evaluators read (a seat's tiles, groups, landmarks) are cached
        # in d and shared by the hexes whose cards are read (`_missions_after`)
        d = Delta(g, p)
        live = self._live(g, p)
        area_direct = self.area_direct  # per area, its kind's incomplete-area rules
        nothing: dict[int, int] = {}
        majs = [(sc.maj_added[ri][k], r.placer_takes_tie) for ri, r in enumerate(sc.majorities)]
        draws = [(sc.touch_adj[ti], self.deck_value[deck]) for ti, deck in enumerate(self.touch_decks)
                 if deck is not None and g.decks.get(deck)]
        touched = g.touched[p]
        lm_owner, lm_count = g.lm_owner, g.lm_count
        owned: dict[tuple[int, int], int] = {}  # (landmark, seat) -> what the end block pays that seat for it
        # per majority rule, landmark -> its holder after the tile, read from the holder it has now (a landmark
        # an earlier rule already gave away in this placement is challenged afresh)
        taken: list[dict[int, int]] = [{} for _ in majs]
        by_area: dict[int, tuple[int, int]] = {}  # area -> (p's change, what the others lose), in points

        def held(lm: int, q: int) -> int:
            got = owned.get((lm, q))
            if got is None:
                got = owned[lm, q] = sum(int(fn(g, q)) for fn in self.owned_direct[lm])
            return got

        def area_change(a: int) -> tuple[int, int]:
            # the incomplete-area rules of the area the tile lands in (the plain loop's arithmetic, in integers:
            # every term is a whole number of points, so the sum is the same in any order)
            mine = others = 0
            inf = g.area_inf[a]
            for fn in area_direct[a]:
                if g.area_free[a] == 1:  # completed: its incomplete-area points end (its payout is in pts)
                    for q in range(n):
                        if inf[q] > 0:
                            lost = int(fn(g, q, -1, inf[q]))
                            if q == p:
                                mine -= lost
                            else:
                                others += lost
                elif v:
                    mine += int(fn(g, p, -1, inf[p] + v)) - (int(fn(g, p, -1, inf[p])) if inf[p] > 0 else 0)
            by_area[a] = (mine, others)
            return mine, others

        area_done = g.area_done
        challenge = majority.challenge

        free = g.area_free
        # every hex of a kind (`alike`) changes the same beyond its immediate points: each kind is read once, at its
        # first hex (a lone hex, kind -1, changes nothing beyond them)
        alike, kind_lms, kind_area, kind_touch = self.alike, self.kind_lms, self.kind_area, self.kind_touch
        read: dict[int, tuple[int, float, dict[int, int], list[float] | None, bool]] = {}
        out: list[float] = []
        posts: list[dict[int, int]] = []
        special: list[int] = []  # the hexes (by index) whose tile takes a landmark or completes its area
        for i, h in enumerate(hexes):
            kind = alike[h]
            if kind < 0:
                out.append(float(pts[i]))
                posts.append(nothing)
                continue
            got = read.get(kind)
            if got is None:
                # whole points for p, OTHERS times what the others lose, the landmarks changing hands, the draws'
                # expected worths in order, and whether the tile takes a landmark or completes its area
                val = other = 0
                post = nothing  # no landmark changes hands: shared, never written
                for ri, lms in kind_lms[kind]:  # landmarks changing hands (S-K1..S-K5's kernel), rules in order
                    added, takes = majs[ri]
                    memo = taken[ri]
                    for lm in lms:
                        now = lm_owner[lm]
                        owner = post.get(lm, now)
                        if owner == now:
                            new = memo.get(lm)
                            if new is None:
                                new = memo[lm] = challenge(lm_count[lm], owner, p, takes, added)[0]
                        else:
                            new = challenge(lm_count[lm], owner, p, takes, added)[0]
                        if new != owner:
                            if post is nothing:
                                post = {}
                            post[lm] = new
                odd = bool(post)
                for lm in post:
                    old = lm_owner[lm]
                    val += held(lm, p)
                    if old >= 0:
                        other += held(lm, old)
                a = kind_area[kind]
                if a >= 0 and not area_done[a]:
                    if free[a] == 1:
                        odd = True
                    if area_direct[a]:
                        mine, others = by_area.get(a) or area_change(a)
                        val += mine
                        other += others
                worths = None
                if draws and kind_touch[kind]:
                    worths = [worth for adj, worth in draws for lm in adj[h] if lm not in touched] or None
                got = read[kind] = (val, OTHERS * other, post, worths, odd)
            fval = float(pts[i] + got[0])  # whole points until the draws' expected worth, as in the plain loop
            if got[3] is not None:
                for worth in got[3]:  # a first touch that draws a card
                    fval += worth
            out.append(fval + got[1])
            posts.append(got[2])
            if got[4]:
                special.append(i)
        return self._with_cards(g, p, k, v, hexes, out, posts, live, prune, d, special)

    def _live(self, g: Game, p: int) -> list[tuple[str, _Card, int, float, float, int | None]]:
        """p's held cards and the face-up missions p has not fulfilled, as the test's `placements_plain` lists them, each
        with its measure E now where it has one (None where it has not): E read once for the value and bounds,
        by the card's generated reader (`read_measure`, the closure's number where it has none)."""
        live: list[tuple[str, _Card, int, float, float, int | None]] = []
        lims = self.limits(g.n_players)

        def measure(c: _Card) -> int:
            if c.read_measure is not None:
                return int(c.read_measure(g, p))
            assert c.measure is not None
            return int(c.measure(Ctx(g, p)))

        def holds(name: str, c: _Card) -> bool:
            return bool(c.read_cond(g, p)) if c.read_cond is not None else bool(g.cards[name].cond(Ctx(g, p)))

        if self.rs.end_held is not None:
            for name in g.held[p]:
                c = self.cards[name]
                if c.always:
                    continue
                pc = g.cards[name].points
                limit = lims[name]
                if c.measure is not None and limit > c.base:
                    e = measure(c)
                    # card_value: all of it when the condition holds, else by progress (`_progress`)
                    met = e >= limit if c.exact else holds(name, c)
                    now = float(pc) if met else pc * HOPE * max(0.0, min(1.0, (e - c.base) / (limit - c.base)))
                    live.append((name, c, pc, now, float(pc), e))
                else:
                    now = float(pc) if holds(name, c) else pc * HOPE * PRIOR
                    live.append((name, c, pc, now, float(pc), None))
        for name in g.public:
            done = g.public_by.get(name, ())
            if p in done:
                continue
            card = g.cards[name]
            pc = payout(card.points, card.small, len(done), g.doubled[p].get(name, 1))
            if pc:
                c = self.cards[name]
                limit = lims[name]
                if c.measure is None or limit <= c.base:
                    live.append((name, c, pc, pc * HOPE * PRIOR, 0.0, None))
                else:
                    e = measure(c)
                    prog = max(0.0, min(1.0, (e - c.base) / (limit - c.base)))
                    live.append((name, c, pc, pc * HOPE * prog, 0.0, e))
        return live

    def _with_cards(self, g: Game, p: int, k: int, v: int, hexes: list[int], out: list[float],
                    posts: list[dict[int, int]], live: list[tuple[str, _Card, int, float, float, int | None]],
                    prune: bool, d: Delta, special: list[int]) -> list[float]:
        """The hexes' worth without the cards, plus what the placement changes of p's live cards (`special`: the
        hexes, by index, where the tile takes a landmark or completes an area; none of the others does)."""
        if not live:
            return out
        if not prune:
            for i, h in enumerate(hexes):
                out[i] += self._missions_after(g, p, k, v, h, d, posts[i], live)
            return out
        # pruned: a card that holds already is taken to stay held (p's own tile rarely undoes a mission)
        live = [x for x in live if x[3] < x[2]]
        if not live:
            return out
        hi = [x + b for x, b in zip(out, self._bounds(g, p, k, v, hexes, posts, live, special), strict=True)]
        best = float("-inf")
        # the most promising first, equal bounds in hex order (a stable sort: reverse=True keeps their order)
        for i in sorted(range(len(hexes)), key=hi.__getitem__, reverse=True)[:PRUNED_WIDTH]:
            if hi[i] <= best:
                break  # neither this hex nor any after it can beat the best
            out[i] += self._missions_after(g, p, k, v, hexes[i], d, posts[i], live)
            best = max(best, out[i])
        return out

    def _bounds(self, g: Game, p: int, k: int, v: int, hexes: list[int], posts: list[dict[int, int]],
                live: list[tuple[str, _Card, int, float, float, int | None]], special: list[int]) -> list[float]:
        """Per hex, at least what the placement can add to p's live cards' worth: a threshold card's measure
        rises by at most its growth table's number (compile/reads.Threshold), any other card to its points.
        Only the `special` hexes can complete an area or take a landmark; a threshold card's bound at any other
        hex depends on its growth number alone, so it is worked out once per number (`_rise`)."""
        area_of, area_free, area_done = g.t.area_of, g.area_free, g.area_done
        completes = [False] * len(hexes)
        for i in special:
            a = area_of[hexes[i]]
            completes[i] = a >= 0 and area_free[a] == 1 and not area_done[a]
        up = [1e-9] * len(hexes)
        lims = self.limits(g.n_players)
        for name, c, pc, now, full, e_now in live:
            row = c.reads[k] if c.reads is not None else None
            th = c.threshold
            span = lims[name] - c.base
            most = max(full, pc * HOPE) - now  # the most the card's worth can rise
            won = c.reads_won
            if th is None or c.measure is None or span <= 0:
                if row is None:
                    for i in range(len(up)):
                        up[i] += most
                    continue
                for i, h in enumerate(hexes):
                    if row[h]:
                        up[i] += most
                if won:
                    for i in special:
                        if completes[i] and not row[hexes[i]]:
                            up[i] += most
                continue
            e = int(c.measure(Ctx(g, p))) if e_now is None else e_now
            grow = th.grow[k]
            top = c.base + span
            by_grow: dict[int, float] = {}
            for i, h in enumerate(hexes):
                if row is not None and not row[h] and not (won and completes[i]):
                    continue
                by = grow[h]
                if completes[i] or posts[i]:
                    e_up = e + (v if by == VALUE else by) + (th.won_grow if completes[i] else 0)
                    if th.lm_grow and posts[i]:
                        e_up += sum(th.lm_grow[lm] for lm, new in posts[i].items() if new == p)
                    up[i] += _rise(by, e_up, e, top, most, pc, c.base, span, now)
                    continue
                rise = by_grow.get(by)
                if rise is None:
                    rise = by_grow[by] = _rise(by, e + (v if by == VALUE else by), e, top, most, pc, c.base, span, now)
                up[i] += rise
        return up

    def _missions_after(self, g: Game, p: int, k: int, v: int, h: int, d: Delta, post: dict[int, int],
                        live: list[tuple[str, _Card, int, float, float, int | None]]) -> float:
        """What the placement changes of p's live cards' worth (delta evaluators; bounds where they refuse)."""
        a = g.t.area_of[h]
        completes = a >= 0 and g.area_free[a] == 1 and not g.area_done[a]
        touched = [x for x in live if x[1].reads is None or x[1].reads[k][h] or (x[1].reads_won and completes)]
        if not touched:
            return 0.0  # this placement cannot change any of the cards
        d.k, d.v, d.h = k, v, h
        d.lm_post = post
        d.area_post = None
        if completes:
            for rule in self.points.area_rules:
                if g.t.area_kind[a] == rule.kind:
                    first = self.points._area(g, p, v, a, rule)[1]
                    d.area_post = (a, first) if first >= 0 else None
                    break
        if k in self.rs.group_kinds:
            roots: list[int] = []
            for x in g.t.neighbours[h]:
                if g.owner[x] == p and g.tkind[x] == k:
                    r = _root(g.parent, x)
                    if r not in roots:
                        roots.append(r)
            d.merged = tuple(roots)
            d.new_size = 1 + sum(g.gsize[r] for r in roots)
        else:
            d.merged, d.new_size = (), 0
        gain = 0.0
        lims = self.limits(g.n_players)
        for name, c, pc, now, full, e_now in touched:
            limit = lims[name]
            try:
                if c.delta_measure is not None and limit > c.base:
                    e = int(c.delta_measure(d, p))
                elif c.delta_cond is not None:
                    if c.delta_cond(d, p):
                        gain += full - now
                    continue
                elif c.measure is not None and limit > c.base:
                    e = (int(c.measure(Ctx(g, p))) if e_now is None else e_now) + self._grow(g, name, k, v, h, post, p)
                else:
                    continue
            except DeltaUnsupported:
                continue
            prog = max(0.0, min(1.0, (e - c.base) / (limit - c.base)))
            gain += (full if prog >= 1.0 else pc * HOPE * prog) - now
        return gain

    def _grow(self, g: Game, name: str, k: int, v: int, h: int, post: dict[int, int], p: int) -> int:
        """The most the card's measure rises by with this tile (compile/reads.Threshold's bound)."""
        th = self.cards[name].threshold
        if th is None:
            return 0
        by = th.grow[k][h]
        up = v if by == VALUE else 0 if by in (GROUP, REACH) else by
        for lm, new in post.items():
            if new == p and th.lm_grow:
                up += th.lm_grow[lm]
        return up


def _rise(by: int, e_up: int, e: int, top: int, most: float, pc: int, base: int, span: int, now: float) -> float:
    """A threshold card's bound at a hex whose tile raises its measure E (now e) by `by` to at most e_up: all it
    can rise (`most`) when that reaches its number (top) or is a group's size, else its progress's rise."""
    if by == GROUP or by == REACH or e_up >= top:
        return most
    if e_up > e:
        return max(0.0, pc * HOPE * (e_up - base) / span - now)
    return 0.0


def evaluation_for(rs: Ruleset) -> Evaluation:
    """The ruleset's evaluation, built once and kept with its derived tables."""
    ev: Evaluation | None = rs.derived.evaluation
    if ev is None:
        ev = rs.derived.evaluation = Evaluation(rs)
    return ev


def _best(vals: list[float], hexes: list[int], rng: random.Random) -> int:
    low = max(vals) - 1e-9
    picks = [h for h, x in zip(hexes, vals, strict=True) if x >= low]
    return picks[rng.randrange(len(picks))] if len(picks) > 1 else picks[0]


class OnePlyAgent:
    """The hex that raises the placer's whole worth most (the evaluation above), ties seeded."""

    name = "oneply"
    answer = staticmethod(smart_answer)

    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        """The hand tile whose best placement is worth most."""
        ev = evaluation_for(game.rs)
        best, pick = None, game.hand[p][0]
        for tile in dict.fromkeys(game.hand[p]):
            hexes, _ = game.legal_hexes(tile[0])
            val = max(ev.placements(game, p, tile, hexes, prune=True), default=0.0)
            if best is None or val > best:
                best, pick = val, tile
        return pick

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """A hex with the best change of worth."""
        if len(hexes) == 1:
            return hexes[0]
        return _best(evaluation_for(game.rs).placements(game, p, tile, hexes, prune=True), hexes, rng)

