"""Immediate points without copying the game: what a placement (p, tile, h) would score for p right now.

The probe (`probe_points`: fork the game, apply the generated `place`, read the track) costs a copy of the
whole state per legal hex. `Points` reads the same number off the position instead, per ruleset:

- scoring triggers with a fixed number (harbours, wind collectors) are a per-hex table;
- a farm's group is 1 + the sizes of the distinct union-find roots of the placer's same-kind neighbours;
- an area whose last free hex is h is ranked and its payout table chosen by rules/area.py's kernel, with
  the placer's influence added, and paid by the rule's own payout functions;
- who holds a landmark after the placement (read by public missions) is rules/majority.py's kernel;
- first touches: a draw scores nothing unless the deck runs out and its empty rule scores; a printed
  ability scores its number; a doubling marker changes what a public mission pays in the same placement;
- public missions (I-M1): each card's condition is compiled once into a *delta* evaluator that reads the
  position as it would be after the placement (base values cached per position, the placed tile added,
  merged groups, landmarks changing hands, an area completed), so no state is copied.

Whatever the fast path cannot compute exactly (an expression of an unknown shape, a payout that reads the
board, an ability answerer other than the probe's) falls back to the probe for that hex, so the result is
always exactly the probe's; tests/engines/test_differential.py proves it along games on every bundled ruleset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.accel.public import warm_fork
from rebirth_dsl.compile.functions import FUNCTIONS, DeltaUnsupported, Table, _Hexes, _root
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import (
    AreaRule,
    MajorityRule,
    PlaceDraw,
    PublicRule,
    Ruleset,
    ScoreTrigger,
    TouchRule,
)
from rebirth_dsl.lang import ast as A
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.rules import area, majority, touch, trigger
from rebirth_dsl.rules.public import ahead, payout
from rebirth_dsl.runtime.game import Game, first_choice
from rebirth_dsl.runtime.state import EMPTY

if TYPE_CHECKING:
    from rebirth_dsl.compile.functions import DeltaView, Ev


def probe_points(game: Game, p: int, tile: tuple[int, int], h: int) -> int:
    """The reference: points p scores at once by placing here (a quiet copy and the generated engine)."""
    g = warm_fork(game)
    compiled(game.rs).place(g, p, tile[0], tile[1], h)
    return g.track[p] - game.track[p]


# An expression or reaction the fast path does not compute; its hexes use the probe.
Unsupported = DeltaUnsupported


class _NoGame:
    """Stands in for the game where a function should need only its context's numbers (a payout of
    `influence` or a fixed number); reading the game means the fast path cannot know, so it refuses."""

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(name)


NOGAME = _NoGame()


def _pure(fn: Callable[[Ctx], Any], me: int, influence: int = 0) -> int:
    """A function's value when it reads nothing from the game; Unsupported otherwise."""
    return fn(Ctx(NOGAME, me, -1, influence))


# ----- the position after a placement, as the delta evaluator sees it ---------------------------------
class Delta:
    """One candidate placement and what it changes, plus the cached base values of the position."""

    __slots__ = ("g", "p", "k", "v", "h", "merged", "new_size", "lm_post", "area_post", "cache", "null")

    def __init__(self, g: Game, p: int) -> None:
        self.g = g
        self.p = p
        self.k = -1
        self.v = 0
        self.h = -1
        self.merged: tuple[int, ...] = ()  # roots (of the position) the new tile's group absorbs
        self.new_size = 0  # size of the new tile's group; 0 when its kind does not group
        self.lm_post: dict[int, int] = {}  # landmarks changing hands
        self.area_post: tuple[int, int] | None = None  # (area, first place) of an area this completes
        self.cache: dict[Any, Any] = {}  # base values of the position: (node id, seat, ...) -> value
        self.null: dict[str, bool] = {}  # missions' values before the placement, where it cannot change them


class _DeltaCompiler:
    """Compiles a checked expression into `f(delta, me)`: its value after the delta's placement."""

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        self.t = rs.t

    def expr(self, node: A.Expr) -> Ev:  # noqa: C901 - one case per node kind
        t = self.t
        match node:
            case A.Num(value=v):
                return lambda d, me: v
            case A.Name(id="me"):
                return lambda d, me: me
            case A.Name(id="always"):
                return lambda d, me: True
            case A.Name(id="nobody"):
                return lambda d, me: -1
            case A.Landmark(kind=kind, name=lname, tag=tag):
                found = t.find_landmark(kind, lname, tag)
                lm = -1 if found is None else found
                return lambda d, me: lm
            case A.Not(operand=o):
                f = self.expr(o)
                return lambda d, me: not f(d, me)
            case A.BinOp(op=op, left=left, right=right):
                return _BIN[op](self.expr(left), self.expr(right))
            case A.Call(fn=fn, args=args):
                if fn in t.attributes:
                    return self.attr_sum(args)
                entry = FUNCTIONS.get(fn)
                made = entry.delta(self, args) if entry is not None else None
                if made is not None:
                    return made
        raise Unsupported(type(node).__name__)  # `placed`, `influence` and group(...) mean nothing in a card

    def kinds(self, args: tuple[A.Expr, ...]) -> frozenset[int]:
        from rebirth_dsl.compile.prims import selected_kinds

        return frozenset(selected_kinds(self.t, args))

    def _filter(self, f: Ev, mask: list[bool] | tuple[bool, ...], key: int) -> Ev:
        def filtered(d: DeltaView, me: int) -> _Hexes:
            x = f(d, me)
            if type(x) is not _Hexes:
                raise Unsupported("a filter of a non-hex set")
            # the child's base list is cached for the whole batch (or a constant), so its identity names it
            ck = (key, id(x.base))
            base = d.cache.get(ck)
            if base is None:
                base = [h for h in x.base if mask[h]]
                d.cache[ck] = base
            return _Hexes(base, x.extra if x.extra >= 0 and mask[x.extra] else -1)

        return filtered

    def attr_sum(self, args: tuple[A.Expr, ...]) -> Ev:
        f = self.expr(args[0])
        key = id(args)

        def total(d: DeltaView, me: int) -> int:
            x = f(d, me)
            if type(x) is not _Hexes:
                raise Unsupported("attribute of a non-hex set")
            ck = (key, id(x.base))
            base = d.cache.get(ck)
            if base is None:
                tval = d.g.tval
                base = sum(tval[h] for h in x.base)
                d.cache[ck] = base
            return base + (d.v if x.extra >= 0 else 0)

        return total

    def _lms(self, kind: str) -> list[int]:
        return [i for i, k in enumerate(self.t.landmark_kind) if k == kind]

def _bin(op: str) -> Callable[[Ev, Ev], Ev]:
    table: dict[str, Callable[[Ev, Ev], Ev]] = {
        "+": lambda a, b: lambda d, me: a(d, me) + b(d, me),
        "-": lambda a, b: lambda d, me: a(d, me) - b(d, me),
        "*": lambda a, b: lambda d, me: a(d, me) * b(d, me),
        ">=": lambda a, b: lambda d, me: a(d, me) >= b(d, me),
        "<=": lambda a, b: lambda d, me: a(d, me) <= b(d, me),
        ">": lambda a, b: lambda d, me: a(d, me) > b(d, me),
        "<": lambda a, b: lambda d, me: a(d, me) < b(d, me),
        "==": lambda a, b: lambda d, me: a(d, me) == b(d, me),
        "!=": lambda a, b: lambda d, me: a(d, me) != b(d, me),
        "and": lambda a, b: lambda d, me: a(d, me) and b(d, me),
        "or": lambda a, b: lambda d, me: a(d, me) or b(d, me),
    }
    return table[op]


_BIN = {op: _bin(op) for op in ("+", "-", "*", ">=", "<=", ">", "<", "==", "!=", "and", "or")}




class _Reads:
    """Which placements (tile kind, hex) can change an expression's value: a table per tile kind, and whether
    it reads who won an area (a placement that completes one changes that). A mission no placement of this
    tile on this hex can touch keeps the value it has now, computed once per position instead of per hex."""

    def __init__(self, rs: Ruleset) -> None:
        self.t = rs.t
        self.nk = len(rs.tile_kinds)
        t = rs.t
        lm_hexes: dict[str, set[int]] = {}
        for lm, kind in enumerate(t.landmark_kind):
            lm_hexes.setdefault(kind, set()).update(t.neighbours[t.landmark_hex[lm]])
        self.near_kind = {kind: [h in hs for h in range(t.n)] for kind, hs in lm_hexes.items()}
        self.near_any = [any(h in hs for hs in lm_hexes.values()) for h in range(t.n)]

    def none(self) -> Table:
        return [[False] * self.t.n for _ in range(self.nk)]

    def every(self, row: list[bool]) -> Table:
        return [list(row) for _ in range(self.nk)]

    @staticmethod
    def lor(a: Table, b: Table) -> Table:
        return [[x or y for x, y in zip(ra, rb, strict=True)] for ra, rb in zip(a, b, strict=True)]

    def scalar(self, node: A.Expr) -> tuple[Table, bool]:  # noqa: C901 - one case per node kind
        match node:
            case A.Num() | A.Name() | A.Landmark():
                return self.none(), False
            case A.Not(operand=o):
                return self.scalar(o)
            case A.BinOp(left=left, right=right):
                (a, wa), (b, wb) = self.scalar(left), self.scalar(right)
                return self.lor(a, b), wa or wb
            case A.Call(fn=fn, args=args):
                if fn in self.t.attributes:
                    return self.anyset(args[0])
                entry = FUNCTIONS.get(fn)
                got = entry.touches(self, args) if entry is not None else None
                if got is not None:
                    return got
        raise Unsupported(type(node).__name__)

    def anyset(self, node: A.Expr) -> tuple[Table, bool]:
        """A set's reads: what adds to it and what changes it otherwise, together."""
        adds, other, w = self.coll(node)
        return self.lor(adds, other), w

    def coll(self, node: A.Expr) -> tuple[Table, Table, bool]:
        """A collection's reads, split: where the placed hex joins it, and what else changes it."""
        if isinstance(node, A.Call) and node.fn in FUNCTIONS:
            got = FUNCTIONS[node.fn].touches_set(self, node.args)
            if got is not None:
                return got
        raise Unsupported(type(node).__name__)

    def hexset(self, node: A.Expr) -> tuple[Table, Table, bool]:
        """A hex set's reads, split: where the placed hex joins it, and what else changes it."""
        return self.coll(node)


# ----- the per-ruleset scorer ------------------------------------------------------------------------
class Points:
    """Immediate points of placements for one ruleset, read off the position (see the module text)."""

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        t = rs.t
        nk = len(rs.tile_kinds)
        self.group_kinds = rs.group_kinds
        # fixed-number triggers as a table per tile kind; the group-size trigger's own tile counts 1 there
        base = [[0] * t.n for _ in range(nk)]
        self.group_trigger = [False] * nk  # the kind scores its group's size
        self.fallback_kind = [False] * nk  # a trigger of unknown shape: every hex of this kind is probed
        self.area_rules: list[AreaRule] = []
        self.majorities: list[MajorityRule] = []
        self.touch_rules: list[TouchRule] = []
        self.draws: list[PlaceDraw] = []
        self.public: PublicRule | None = None
        self.public_ok = True
        seen_public = False
        for r in rs.reactions:
            if seen_public:
                self.public_ok = False  # something after the missions could change what they read: probe
            if isinstance(r, ScoreTrigger):
                expr = r.expr
                for k in range(nk):
                    if r.kinds is not None and k not in r.kinds:
                        continue
                    if isinstance(expr, A.Num):
                        for h in range(t.n):
                            if r.at is None or r.at[h]:
                                base[k][h] += int(expr.value)
                    elif (expr is not None and _is_group_size(expr) and k in rs.group_kinds and r.at is None
                          and not self.group_trigger[k]):
                        self.group_trigger[k] = True
                        for h in range(t.n):
                            base[k][h] += 1  # the tile itself; the groups it joins are added per position
                    else:
                        self.fallback_kind[k] = True
            elif isinstance(r, AreaRule):
                self.area_rules.append(r)
            elif isinstance(r, MajorityRule):
                self.majorities.append(r)
            elif isinstance(r, TouchRule):
                self.touch_rules.append(r)
            elif isinstance(r, PlaceDraw):
                self.draws.append(r)
            elif isinstance(r, PublicRule):
                self.public = r
                seen_public = True
            else:
                self.fallback_kind = [True] * nk
        self.base = [tuple(b) for b in base]
        # the reactions beyond the tables, in the rules' order (each kind a class of its own: no subclasses)
        self.steps = [r for r in rs.reactions if isinstance(r, (AreaRule, MajorityRule, PlaceDraw, TouchRule,
                                                                PublicRule))]
        # the most cards one placement can draw: a deck with more left cannot run out in it
        self.max_draws = len(self.draws) + 6 * (len(self.touch_rules) + 1)
        # landmarks next to each hex, per touch rule / majority rule
        adj = [tuple(t.landmark_of_hex[m] for m in t.neighbours[h] if m in t.landmark_of_hex) for h in range(t.n)]
        self.touch_adj = [tuple(tuple(lm for lm in adj[h] if t.landmark_kind[lm] == r.kind) for h in range(t.n))
                          for r in self.touch_rules]
        self.maj_adj = [tuple(tuple(lm for lm in adj[h] if lm in set(r.landmarks)) for h in range(t.n))
                        for r in self.majorities]
        # per majority rule and tile kind, what the tile adds to each metric's count
        self.maj_added = [[majority.added(r.metrics, k) for k in range(nk)] for r in self.majorities]
        self.maj_index = {id(r): ri for ri, r in enumerate(self.majorities)}  # by identity: no record compared
        # the face-up missions' conditions, compiled to read the position after a placement
        self.cards: dict[str, Ev | None] = {}
        self.reads: dict[str, tuple[list[tuple[bool, ...]], bool]] = {}  # card -> (table per kind, reads won)
        if self.public is not None:
            dc = _DeltaCompiler(rs)
            rd = _Reads(rs)
            block = t.decks.get(self.public.deck)
            asts = {c.name: c.condition for c in block.cards} if block is not None else {}
            for card in rs.decks.get(self.public.deck, []):
                node = asts.get(card.name)
                try:
                    self.cards[card.name] = dc.expr(node) if node is not None else None
                except (Unsupported, AssertionError, ValueError, TypeError, AttributeError):
                    self.cards[card.name] = None
                try:
                    if node is not None:
                        table, won = rd.scalar(node)
                        self.reads[card.name] = ([tuple(row) for row in table], won)
                except (Unsupported, AssertionError, ValueError, TypeError, AttributeError):
                    pass  # no table: the card is evaluated at every hex

    # ----- the public interface -------------------------------------------------------------------
    def one(self, game: Game, p: int, tile: tuple[int, int], h: int) -> int:
        """Points for one placement (exactly the probe's)."""
        return self.many(game, p, tile, [h])[0]

    def many(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int]) -> list[int]:
        """Points for each of several placements of one tile (exactly the probe's, hex by hex)."""
        k, v = tile
        if self.fallback_kind[k]:
            return [probe_points(game, p, tile, h) for h in hexes]
        g = game
        base = self.base[k]
        out = [base[h] for h in hexes]
        # a farm scores its group: 1 (in the table) + the sizes of the distinct groups it joins, found
        # from the placer's own tiles of that kind (a dozen) rather than from every legal hex
        joins: dict[int, list[int]] = {}
        if k in self.group_kinds:
            owner, parent, gsize, nb = g.owner, g.parent, g.gsize, g.t.neighbours
            for m in g.tiles_of[p][k]:
                r = _root(parent, m)
                for x in nb[m]:
                    if owner[x] == EMPTY:
                        lst = joins.get(x)
                        if lst is None:
                            joins[x] = [r]
                        elif r not in lst:
                            lst.append(r)
            if joins and self.group_trigger[k]:
                for i, h in enumerate(hexes):
                    rl = joins.get(h)
                    if rl is not None:
                        out[i] += sum(gsize[r] for r in rl)
        special = self._special(g, p, k)
        if special is None:
            return out
        d = Delta(g, p) if special is True else None
        if d is not None:
            # each live mission's value now (a delta that adds nothing): kept where the placement cannot touch it
            blank = Delta(g, -2)  # a seat no one has: nothing is added for anybody
            blank.cache = d.cache  # the position's values are shared
            d.null = {}
            for name in g.public:
                fn = self.cards.get(name)
                if fn is not None and name in self.reads and p not in g.public_by[name]:
                    try:
                        d.null[name] = bool(fn(blank, p))
                    except Unsupported:
                        pass
        for i, h in enumerate(hexes):
            if special is not True and h not in special:
                continue
            if d is not None:
                d.k, d.v, d.h = k, v, h
                d.lm_post = {}
                d.area_post = None
                if k in self.group_kinds:
                    roots = joins.get(h, ())
                    d.merged = tuple(roots)
                    d.new_size = 1 + sum(g.gsize[r] for r in roots)
            try:
                out[i] += self._reactions(g, p, k, v, h, d)
            except Unsupported:
                out[i] = probe_points(game, p, tile, h)
        return out

    def _special(self, g: Game, p: int, k: int) -> set[int] | Literal[True] | None:
        """The hexes whose reactions can score beyond the tables and the group: True for every hex (a face-up
        mission could pay p), a set of hexes, or None for none."""
        if self.public is not None and g.public and any(p not in g.public_by[c] for c in g.public):
            return True
        out: set[int] = set()
        t = g.t
        if self.area_rules:
            kinds = {r.kind for r in self.area_rules}
            for a, free in enumerate(g.area_free):
                if free == 1 and not g.area_done[a] and t.area_kind[a] in kinds:
                    out.update(h for h in t.area_hexes[a] if g.owner[h] == EMPTY)
        touched = g.touched[p]
        for r in self.touch_rules:
            if not self._touch_scores(g, r):
                continue
            if r.by is not None:  # `by KINDS`: first among p's tiles of those kinds (touch.untouched_by)
                if k in r.by:
                    for lm in range(len(t.landmark_hex)):
                        ring = t.neighbours[t.landmark_hex[lm]]
                        if t.landmark_kind[lm] == r.kind and touch.untouched_by(ring, g.owner, g.tkind, p, -1, r.by):
                            out.update(ring)
                continue
            for lm in range(len(t.landmark_hex)):
                if t.landmark_kind[lm] == r.kind and lm not in touched:
                    out.update(t.neighbours[t.landmark_hex[lm]])
        for dr in self.draws:
            if (dr.kinds is None or k in dr.kinds) and self._deck_scores(g, dr.deck):
                return True
        return out or None

    def _deck_scores(self, g: Game, deck: str) -> bool:
        """Whether a draw from this deck can score: its empty rule scores and it could run out now."""
        empty = self.rs.empty_decks.get(deck)
        return empty is not None and empty.fn is not None and len(g.decks.get(deck, [])) <= self.max_draws

    def _touch_scores(self, g: Game, r: TouchRule) -> bool:
        act = r.action
        if isinstance(act, A.DrawAction):
            return self._deck_scores(g, act.deck)
        return True

    # ----- the slower parts, for the hexes that need them -----------------------------------------
    def _reactions(self, g: Game, p: int, k: int, v: int, h: int, d: Delta | None) -> int:
        """Points of the reactions beyond the fixed tables and the group, in the rules' order."""
        t = g.t
        pts = 0
        a = t.area_of[h]
        area_scored = False
        decks_left: dict[str, int] = {}
        doubled: dict[str, int] | None = None
        for r in self.steps:
            if isinstance(r, AreaRule):
                if (not area_scored and a >= 0 and g.area_free[a] == 1 and not g.area_done[a]
                        and t.area_kind[a] == r.kind):
                    area_scored = True  # later area rules see it done
                    got, first = self._area(g, p, v, a, r)
                    pts += got
                    if d is not None and first >= 0:
                        d.area_post = (a, first)
            elif isinstance(r, MajorityRule):
                if d is not None:  # only the missions read who holds a landmark within the placement
                    self._challenge(g, p, k, h, r, d.lm_post)
            elif isinstance(r, PlaceDraw):
                if trigger.fires(r.kinds, r.at, k, h):  # S-M1: the trigger's own kernel
                    pts += self._draw(g, p, r.deck, decks_left)
            elif isinstance(r, TouchRule):
                touched = g.touched[p]
                for lm in self.touch_adj[self.touch_rules.index(r)][h]:
                    if r.by is not None:  # `by KINDS`: p's first tile of those kinds next to lm (touch.py)
                        if k not in r.by or not touch.untouched_by(t.neighbours[t.landmark_hex[lm]], g.owner,
                                                                   g.tkind, p, h, r.by):
                            continue
                    elif lm in touched:  # marked touched after every reaction: each statement sees it first
                        continue
                    act = r.action
                    if isinstance(act, A.DrawAction):
                        pts += self._draw(g, p, act.deck, decks_left)
                    elif isinstance(act, A.ScoreAction):
                        if not isinstance(act.expr, A.Num):
                            raise Unsupported("touch score")
                        pts += int(act.expr.value)
                    elif isinstance(act, A.AbilityAction):
                        got, doubled = self._ability(g, p, lm, decks_left, doubled)
                        pts += got
                    else:
                        raise Unsupported("touch action")
            elif d is not None:  # the public missions
                pts += self._public(g, p, r, d, doubled)
        return pts

    def _area(self, g: Game, p: int, v: int, a: int, rule: AreaRule) -> tuple[int, int]:
        """What completing area a pays p, and who comes first (S-A1..S-A3: rules/area.py's kernel)."""
        inf = list(g.area_inf[a])
        inf[p] += v
        n = g.n_players
        ranked = area.order(inf, p, n, rule.ties)
        if not ranked:
            return 0, -1
        if p not in ranked:
            return 0, ranked[0]
        table = area.payout_table(len(g.t.area_hexes[a]), n, rule.pay)
        pts = 0
        for i in area.paid_places(ranked.index(p), len(ranked), rule.alone, len(table)):
            pts += _pure(table[i], p, inf[p])
        return pts, ranked[0]

    def _challenge(self, g: Game, p: int, k: int, h: int, rule: MajorityRule, post: dict[int, int]) -> None:
        """Who holds each landmark of this rule next to h after the placement (S-K1..S-K5: rules/majority.py's
        kernel, the tile of kind k added to the placer's counts)."""
        ri = self.maj_index[id(rule)]
        added = self.maj_added[ri][k]
        takes = rule.placer_takes_tie
        for lm in self.maj_adj[ri][h]:
            owner = post.get(lm, g.lm_owner[lm])
            new = majority.challenge(g.lm_count[lm], owner, p, takes, added)[0]
            if new != owner:
                post[lm] = new

    def _draw(self, g: Game, p: int, deck: str, left: dict[str, int]) -> int:
        """A card drawn: nothing scores, unless the deck is empty and its empty rule scores."""
        n = left.get(deck)
        if n is None:
            n = len(g.decks.get(deck, []))
        if n > 0:
            left[deck] = n - 1
            return 0
        left[deck] = 0
        empty = self.rs.empty_decks.get(deck)
        if empty is None or empty.fn is None:
            return 0
        return _pure(empty.fn, p)

    def _ability(self, g: Game, p: int, lm: int, left: dict[str, int],
                 doubled: dict[str, int] | None) -> tuple[int, dict[str, int] | None]:
        """A printed ability used on first touch, answered as the probe answers (first option)."""
        if g.auto_choose not in (None, first_choice):
            raise Unsupported("another answerer")  # the probe's copy would answer with it (or decline)
        ab = self.rs.abilities[g.t.landmark_ability[lm] or ""]
        eff = ab.effect
        if isinstance(eff, A.ScoreEffect):
            if not isinstance(eff.expr, A.Num):
                raise Unsupported("ability score")
            return int(eff.expr.value), doubled
        if isinstance(eff, (A.TakeAsideEffect, A.DrawKeepEffect)):
            return 0, doubled  # tiles move between hand, supply and set-aside: no points now
        if isinstance(eff, A.DrawCardEffect):
            n = left.get(eff.deck, len(g.decks.get(eff.deck, [])))
            empty = self.rs.empty_decks.get(eff.deck)
            if n == 0 and empty is not None and empty.fn is not None:
                raise Unsupported("an ability's draw from an empty deck that scores")  # the probe knows
            left[eff.deck] = max(0, n - 1)
            return 0, doubled
        if isinstance(eff, A.DoubleEffect):
            mine = dict(g.doubled[p]) if doubled is None else doubled
            if len(mine) >= eff.markers:
                return 0, mine
            opts = [c for c in g.public if c not in mine and (eff.target == "any" or p not in g.public_by[c])]
            if opts:
                mine[opts[0]] = eff.factor
            return 0, mine
        raise Unsupported("ability effect")

    def _public(self, g: Game, p: int, r: PublicRule, d: Delta, doubled: dict[str, int] | None) -> int:
        """What the face-up missions pay p after the placement (I-M1), checked in the rule's order."""
        if not self.public_ok:
            raise Unsupported("reactions after the missions")
        mine = g.doubled[p] if doubled is None else doubled
        pts = 0
        for name in g.public:
            done = g.public_by[name]
            if p in done:
                continue
            fn = self.cards.get(name)
            if fn is None:
                raise Unsupported(name)
            kept = d.null.get(name)
            if kept is not None and r.placer_first:
                table, won = self.reads[name]
                if table[d.k][d.h] or (won and d.area_post is not None):
                    kept = None  # this placement may change it
            if not (fn(d, p) if kept is None else kept):
                continue
            card = g.cards[name]
            before = ahead(p, done, lambda q: bool(fn(d, q)), g.n_players, r.placer_first)  # noqa: B023 - used here
            pts += payout(card.points, card.small, before, mine.get(name, 1))
        return pts


def _is_group_size(e: A.Expr) -> bool:
    """`size(group(placed))` / `count(group(placed))`: the shape the generated engine reads off gsize."""
    return (isinstance(e, A.Call) and e.fn in ("size", "count") and len(e.args) == 1
            and isinstance(e.args[0], A.Call) and e.args[0].fn == "group" and len(e.args[0].args) == 1
            and isinstance(e.args[0].args[0], A.Name) and e.args[0].args[0].id == "placed")


def points_for(rs: Ruleset) -> Points:
    """The ruleset's scorer, built once and kept with the ruleset's derived tables."""
    pts: Points | None = rs.derived.points
    if pts is None:
        pts = rs.derived.points = Points(rs)
    return pts
