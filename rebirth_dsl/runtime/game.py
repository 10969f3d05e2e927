"""The game state: legal moves, applying a move, the events it scores, end-of-game scoring, the winner.

Everything here is generic: hexes are integers, tiles are (kind id, value) pairs, and every number,
name and tie-break comes from the compiled Ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import (
    AreaRule,
    CardDef,
    MajorityRule,
    PublicRule,
    Ruleset,
    ScoreTrigger,
    TouchRule,
)
from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.runtime.setup import Setup

EMPTY = -1
NEUTRAL = -2


@dataclass(slots=True)
class Event:
    """Something that happened: points scored (possibly 0), a landmark changing hands, a card drawn."""

    index: int | None  # move index; None for end-of-game scoring, -1 for setup
    player: int
    points: int
    category: str
    ids: tuple[str, ...]
    text: str


@dataclass
class _Static:
    lm_adj: list[tuple[int, ...]]
    metric_of: dict[int, MajorityRule]
    free: dict[str, list[int]]
    free_pos: list[int]
    cards: dict[str, CardDef]
    ability_rules: list[TouchRule]  # `on first touch KIND: use ability` statements (I-R1)


def _static(rs: Ruleset) -> _Static:
    """Tables a new game copies instead of recomputing: landmark adjacency, free lists, cards."""
    st = getattr(rs, "_static", None)
    if st is not None:
        return st
    t = rs.t
    adj: list[list[int]] = [[] for _ in range(t.n)]
    for i, h in enumerate(t.landmark_hex):
        for m in t.neighbours[h]:
            adj[m].append(i)
    metric_of = {i: rule for rule in rs.majorities for i in rule.landmarks}
    takeable = [k for kinds in (*rs.primary.values(), *rs.fallback.values()) for k in kinds]
    free: dict[str, list[int]] = {k: [] for k in takeable}
    free_pos = [-1] * t.n
    for h in range(t.n):
        k = t.hex_kind[h]
        if k in free:
            free_pos[h] = len(free[k])
            free[k].append(h)
    cards = {c.name: c for cards in rs.decks.values() for c in cards}
    abilities = [r for r in rs.reactions if isinstance(r, TouchRule) and isinstance(r.action, A.AbilityAction)]
    st = _Static([tuple(a) for a in adj], metric_of, free, free_pos, cards, abilities)
    rs._static = st  # type: ignore[attr-defined]  # cached on the ruleset: lives and dies with it
    return st


class Game:
    """A game in progress. Player indices are seats, clockwise; hexes are board indices."""

    def __init__(self, rs: Ruleset, players: list[str], setup: Setup, scenario: bool = False) -> None:
        t = rs.t
        self.rs = rs
        self.t = t
        self.players = list(players)
        self.n_players = n = len(players)
        self.scenario = scenario
        self.declared_over = False
        self.quiet = False  # True in simulations: no event objects, no text
        lo, hi = rs.players
        if not scenario and not lo <= n <= hi:
            raise RebirthError.single(f"{n} players: this ruleset is for {lo} to {hi} (S-U1)")
        nh = t.n
        self.owner = [EMPTY] * nh
        self.tkind = [-1] * nh
        self.tval = [0] * nh
        self.tiles_of: list[list[list[int]]] = [[[] for _ in rs.tile_kinds] for _ in range(n)]  # [seat][kind]
        self.parent = list(range(nh))
        self.gsize = [1] * nh
        self.area_free = [len(hs) for hs in t.area_hexes]
        self.area_inf = [[0] * n for _ in t.area_hexes]
        self.area_first: dict[int, int] = {}
        self.area_done = [False] * len(t.area_hexes)
        st = _static(rs)  # what depends only on the ruleset and board, computed once
        nl = len(t.landmark_hex)
        self.lm_owner = [-1] * nl
        self.lm_adj = st.lm_adj
        self.metric_of = st.metric_of
        self.lm_count: list[list[list[int]]] = [
            [[0] * n for _ in st.metric_of[i].metrics] if i in st.metric_of else [] for i in range(nl)]
        self.touched: list[set[int]] = [set() for _ in range(n)]
        # free hexes per hex kind, swap-remove lists for O(1) updates
        self.free: dict[str, list[int]] = {k: list(v) for k, v in st.free.items()}
        self.free_pos = list(st.free_pos)
        self.memo: dict[Any, Any] | None = None  # set while end-of-game scoring reads a fixed position
        self.scores = [dict.fromkeys(rs.categories, 0) for _ in range(n)]
        self.track = [0] * n
        if setup.scores:
            self.track = list(setup.scores)
        self.start_scores = list(self.track)
        self.events: list[Event] = [Event(-1, q, pts, "start", (), f"{players[q]} starts with {pts} points (scenario)")
                                    for q, pts in enumerate(self.track) if pts]
        self.hand: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.supply: list[list[tuple[int, int]]] = [list(reversed(s)) for s in setup.supply] if setup.supply else [
            [] for _ in range(n)]
        self.set_aside = [list(s) for s in setup.set_aside] if setup.set_aside else [[] for _ in range(n)]
        self.decks = {k: list(v) for k, v in setup.decks.items()}
        for name, cards in rs.decks.items():
            self.decks.setdefault(name, [c.name for c in cards])
        self.cards = st.cards
        self.ability_rules = st.ability_rules
        self.held: list[list[str]] = [list(h) for h in setup.held] if setup.held else [[] for _ in range(n)]
        self.turn = 0
        self.move_index = 0
        self.passed: list[int] = [0] * n
        # I-M1 public missions laid face up from the top of their deck; I-R1 ability state
        self.public: list[str] = []
        if rs.public is not None:
            deck = self.decks.setdefault(rs.public.deck, [])
            self.public, deck[:] = deck[: rs.public.count], deck[rs.public.count:]
        self.public_by: dict[str, list[int]] = {c: [] for c in self.public}
        self.doubled: list[str | None] = [None] * n
        self.pending_draw: dict[int, tuple[int, tuple[int, int]]] = {}
        self.auto_choose: Any = None  # simulations: answers ability questions the record does not
        if not scenario:
            for p in range(n):
                for _ in range(rs.hand):
                    if self.supply[p]:
                        self.hand[p].append(self.supply[p].pop())
        neutral = rs.neutral.get(n)
        if neutral is not None:
            tagged = [h for h in range(nh) if neutral.tag in t.hex_tags[h]][: neutral.count]
            for h in tagged:
                self._occupy(h, NEUTRAL, -1, 0)

    # ----- queries ----------------------------------------------------------------------------
    def find(self, h: int) -> int:
        """Union-find root, with path halving."""
        parent = self.parent
        while parent[h] != h:
            parent[h] = parent[parent[h]]
            h = parent[h]
        return h

    def group_of(self, h: int) -> list[int]:
        """The hexes of the group containing h (S-F1)."""
        if h < 0 or self.owner[h] < 0 or self.tkind[h] not in self.rs.group_kinds:
            return []
        p, k = self.owner[h], self.tkind[h]
        seen, todo = {h}, [h]
        nb = self.t.neighbours
        while todo:
            x = todo.pop()
            for m in nb[x]:
                if m not in seen and self.owner[m] == p and self.tkind[m] == k:
                    seen.add(m)
                    todo.append(m)
        return sorted(seen)

    def groups_of(self, p: int, kinds: frozenset[int]) -> list[list[int]]:
        """All of a player's groups of the given kinds, read off the union-find roots."""
        memo = self.memo
        if memo is not None and ("groups", p, kinds) in memo:
            return memo[("groups", p, kinds)]
        buckets: dict[int, list[int]] = {}
        find = self.find
        mine = self.tiles_of[p]
        for k in sorted(kinds & self.rs.group_kinds):
            for h in mine[k]:
                buckets.setdefault(find(h), []).append(h)
        out = [sorted(b) for b in buckets.values()]
        if memo is not None:
            memo[("groups", p, kinds)] = out
        return out

    def is_over(self) -> bool:
        """S-T2: every hand and supply is empty (a scenario is over when its record says so)."""
        if self.scenario:
            return self.declared_over
        return all(not h for h in self.hand) and all(not s for s in self.supply)

    def legal_hexes(self, kind: int) -> tuple[list[int], bool]:
        """The hexes a tile of this kind may go on, and whether they are fallback hexes (S-P2..S-P4)."""
        free = self.free
        out = [h for k in self.rs.primary.get(kind, ()) for h in free.get(k, ())]
        if out:
            return out, False
        out = [h for k in self.rs.fallback.get(kind, ()) for h in free.get(k, ())]
        return out, bool(out)

    # ----- moves ------------------------------------------------------------------------------
    def player_index(self, name: str, index: int | None = None) -> int:
        """Seat of a player name."""
        try:
            return self.players.index(name)
        except ValueError:
            raise IllegalMove(f"unknown player {name!r} (players: {', '.join(self.players)})",
                              _cite(self.rs.turn_ids, "the turn rule"), index) from None

    def play(self, p: int, tile: tuple[int, int], h: int | None, index: int | None = None,
             choices: dict[str, Any] | None = None) -> list[Event]:
        """Validate and apply one move; return the events it caused. Nothing changes if it is refused."""
        rs = self.rs
        first_event = len(self.events)
        if not self.scenario:
            if self.is_over():
                raise IllegalMove("the game is over: every tile has been placed", _cite(rs.turn_ids, "the end-of-game rule"), index)
            if p != self.turn:
                raise IllegalMove(f"it is {self.players[self.turn]}'s turn, not {self.players[p]}'s",
                                  _cite(rs.turn_ids, "the turn rule"), index)
            if tile not in self.hand[p]:
                held = ", ".join(rs.tile_name(*x) for x in self.hand[p]) or "nothing"
                raise IllegalMove(f"{self.players[p]} holds {held}, not {rs.tile_name(*tile)}",
                                  _cite(rs.turn_ids, "the turn rule"), index)
        kind, value = tile
        if h is None:
            legal, _ = self.legal_hexes(kind)
            if not rs.pass_allowed:
                raise IllegalMove("this ruleset has no pass rule: the tile must be placed", "no pass rule", index)
            if legal:
                q, r = self.t.coords[legal[0]]
                raise IllegalMove(f"{rs.tile_name(*tile)} cannot be passed: {len(legal)} hex(es) are legal, e.g. "
                                  f"({q},{r})", _cite(rs.pass_ids, "the pass rule"), index)
            self.passed[p] += 1
            self._event(index, p, 0, "pass", rs.pass_ids, f"{self.players[p]} passes {rs.tile_name(*tile)}: no legal hex")
        else:
            self._check_place(p, kind, h, index)
            choices = choices or {}
            self._check_choices(p, h, choices, index)
            self._occupy(h, p, kind, value)
            self._react(p, kind, h, index, choices)
        if not self.scenario:
            self.hand[p].remove(tile)
            self._draw(p)
            self._advance()
        self.move_index += 1
        return self.events[first_event:]

    def _draw(self, p: int) -> None:
        """The draw step (S-T1): one tile, or I-R1's "draw 3, keep 1" (the others go under the supply)."""
        supply, hand = self.supply[p], self.hand[p]
        pending = self.pending_draw.pop(p, None) if self.pending_draw else None
        if pending is None:
            if supply:
                hand.append(supply.pop())
            return
        n, keep = pending
        drawn = [supply.pop() for _ in range(min(n, len(supply)))]
        if not drawn:
            return
        kept = keep if keep in drawn else drawn[0]
        drawn.remove(kept)
        hand.append(kept)
        for tile in drawn:  # in the order drawn, to the bottom (the supply list's top is its end)
            supply.insert(0, tile)

    # ----- I-R1 abilities ---------------------------------------------------------------------
    def pending_abilities(self, p: int, h: int) -> list[tuple[int, TouchRule]]:
        """Landmarks whose ability a placement on h would trigger for p (first touch), in board order."""
        out = []
        for r in self.ability_rules:  # empty in Scotland: nothing to scan per move
            out.extend((lm, r) for lm in self.lm_adj[h]
                       if self.t.landmark_kind[lm] == r.kind and lm not in self.touched[p])
        return out

    def ability_options(self, p: int, lm: int) -> tuple[A.AbilityDecl, str, list[str] | None]:
        """The landmark's ability, the key its choice is given under, and the possible answers
        (None: nothing to choose; []: nothing possible, so the ability does nothing)."""
        rs = self.rs
        decl = rs.abilities[self.t.landmark_ability[lm] or ""]
        if decl.effect == "take_aside":
            return decl, "take", sorted({rs.tile_name(*x) for x in self.set_aside[p]})
        if decl.effect == "draw_keep":
            top = self.supply[p][-decl.numbers[0]:] if decl.numbers[0] else []
            return decl, "keep", sorted({rs.tile_name(*x) for x in top}) if not self.scenario else []
        if decl.effect == "double":
            if self.doubled[p] is not None:
                return decl, "double", []
            return decl, "double", [c for c in self.public if p not in self.public_by[c]]
        return decl, "", None

    def _check_choices(self, p: int, h: int, choices: dict[str, Any], index: int | None) -> None:
        """Refuse, before anything changes, a move whose ability choices are missing or impossible."""
        pending = self.pending_abilities(p, h)
        names = {self.t.landmark_name[lm]: lm for lm, _ in pending}
        for key in choices:
            if key not in names:
                ids = next((r.ids for _, r in pending), ()) or self._ability_rule_ids()
                what = ", ".join(repr(n) for n in names) or "no landmark with an ability"
                raise IllegalMove(f"a choice is given for {key!r}, but this move first touches {what}",
                                  _cite(ids, "the ability rule"), index)
        if self.auto_choose is not None:
            return
        for name, lm in names.items():
            decl, key, options = self.ability_options(p, lm)
            ids = self.rs.ability_ids.get(decl.name, ()) or self._ability_rule_ids()
            c = choices.get(name)
            if c is False or (c in (None, True) and not options):
                continue
            if c in (None, True):
                raise IllegalMove(f"{name}'s ability {decl.name} needs a choice: "
                                  f'"choices": {{"{name}": {{"{key}": ...}}}} with one of {options}',
                                  _cite(ids, "the ability rule"), index)
            if not isinstance(c, dict) or set(c) != {key}:
                raise IllegalMove(f"{name}'s ability {decl.name} is answered with {{\"{key}\": ...}} (or false to "
                                  f"decline), not {c!r}", _cite(ids, "the ability rule"), index)
            if c[key] not in options:
                raise IllegalMove(f"{name}'s ability {decl.name}: {c[key]!r} is not possible; choose one of "
                                  f"{options}", _cite(ids, "the ability rule"), index)

    def _ability_rule_ids(self) -> tuple[str, ...]:
        return self.ability_rules[0].ids if self.ability_rules else ()

    def _use_ability(self, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any]) -> None:
        rs = self.rs
        name = self.t.landmark_name[lm]
        decl, key, options = self.ability_options(p, lm)
        ids = _join(rule.ids, rs.ability_ids.get(decl.name, ()))
        c = choices.get(name)
        if c is None and self.auto_choose is not None:
            c = self.auto_choose(self, p, lm, decl, key, options)
        who = self.players[p]
        if c is False:
            self._event(index, p, 0, "ability", ids, f"{who} first touches {name}: declines {decl.name}")
            return
        answer = c[key] if isinstance(c, dict) else None
        if decl.effect == "score":
            pts = rs.ability_fns[decl.name](Ctx(self, p))
            self._score(index, p, pts, decl.category or "abilities", ids, f"{who} first touches {name}: {decl.name} = {pts}")
            return
        if options == [] or (options and answer is None):
            self._event(index, p, 0, "ability", ids, f"{who} first touches {name}: {decl.name} has nothing to act on")
            return
        if decl.effect == "take_aside":
            tile = rs.parse_tile(answer)
            self.set_aside[p].remove(tile)
            self.hand[p].append(tile)
            text = f"takes a set-aside {answer} into hand"
        elif decl.effect == "draw_keep":
            self.pending_draw[p] = (decl.numbers[0], rs.parse_tile(answer))
            text = f"will draw {decl.numbers[0]} and keep {answer}"
        elif decl.effect == "draw_card":
            deck = self.decks.get(decl.target or "", [])
            if not deck:
                self._event(index, p, 0, "ability", ids, f"{who} first touches {name}: the {decl.target} deck is empty")
                return
            self.held[p].append(deck.pop(0))
            text = f"takes a {decl.target} card"
        else:  # double
            self.doubled[p] = answer
            text = f"puts the doubling marker on {answer!r}"
        self._event(index, p, 0, "ability", ids, f"{who} first touches {name}: {decl.name}: {text}")

    def _public(self, p: int, r: PublicRule, index: int | None) -> None:
        """I-M1, after every placement: each player, the placer first, then clockwise."""
        if not self.public:
            return
        self.memo = {}  # the position is fixed while the cards are read
        try:
            self._public_checks(p, r, index)
        finally:
            self.memo = None

    def _public_checks(self, p: int, r: PublicRule, index: int | None) -> None:
        n = self.n_players
        for step in range(n):
            q = (p + step) % n
            ctx = None
            for name in self.public:
                done = self.public_by[name]
                if q in done:
                    continue
                card = self.cards[name]
                if ctx is None:
                    ctx = Ctx(self, q)
                if not card.cond(ctx):
                    continue
                pts = card.points if not done else (card.small or 0)
                if self.doubled[q] == name:
                    pts *= 2
                done.append(q)
                if self.quiet:
                    self.scores[q][r.category] += pts
                    self.track[q] += pts
                    continue
                how = "first" if len(done) == 1 else f"{len(done)}th" if len(done) > 3 else ("second", "third")[len(done) - 2]
                dbl = " (doubled)" if self.doubled[q] == name else ""
                self._score(index, q, pts, r.category, _join(r.ids, card.ids),
                            f"{self.players[q]} fulfils public mission {name!r} {how}: {pts}{dbl}")

    def _advance(self) -> None:
        n = self.n_players
        for step in range(1, n + 1):
            q = (self.turn + step) % n
            if self.hand[q]:
                self.turn = q
                return

    def _check_place(self, p: int, kind: int, h: int, index: int | None) -> None:
        rs, t = self.rs, self.t
        q, r = t.coords[h]
        name = rs.tile_name(kind, 0).split(":")[0]
        hk = t.hex_kind[h]
        if self.owner[h] != EMPTY:
            who = "a neutral tile" if self.owner[h] == NEUTRAL else f"{self.players[self.owner[h]]}'s tile"
            raise IllegalMove(f"hex ({q},{r}) already holds {who}", _cite(rs.one_tile_ids, "the one-tile rule"), index)
        if hk not in self.free:
            what = f"{hk} {t.landmark_name[t.landmark_of_hex[h]]!r}" if h in t.landmark_of_hex else f"a {hk} hex"
            raise IllegalMove(f"hex ({q},{r}) is {what}: no tile goes there", _cite(rs.one_tile_ids, "the one-tile rule"), index)
        primary = rs.primary.get(kind, ())
        if hk in primary:
            return
        fallback = rs.fallback.get(kind, ())
        if hk in fallback:
            free_primary = [x for k in primary for x in self.free.get(k, ())]
            if free_primary:
                fq, fr = t.coords[free_primary[0]]
                raise IllegalMove(f"{name} may go on a {hk} hex only when no {' or '.join(sorted(primary))} hex is "
                                  f"free; ({fq},{fr}) is free", _cite(rs.fallback_ids.get(kind, ()), "the fallback rule"), index)
            return
        allowed = sorted(primary) + [f"{k} (fallback)" for k in sorted(fallback)]
        raise IllegalMove(f"{name} cannot go on {hk} hex ({q},{r}); it goes on {', '.join(allowed)} hexes",
                          _cite(rs.place_ids.get(kind, ()), "the placement rule"), index)

    def _occupy(self, h: int, p: int, kind: int, value: int) -> None:
        self.owner[h] = p
        self.tkind[h] = kind
        self.tval[h] = value
        if p >= 0:
            self.tiles_of[p][kind].append(h)
        # swap-remove from the free list of its kind
        lst = self.free.get(self.t.hex_kind[h])
        if lst is not None:
            pos = self.free_pos[h]
            last = lst[-1]
            lst[pos] = last
            self.free_pos[last] = pos
            lst.pop()
            self.free_pos[h] = -1
        if p >= 0 and kind in self.rs.group_kinds:
            root = h
            parent, gsize, owner, tkind = self.parent, self.gsize, self.owner, self.tkind
            for m in self.t.neighbours[h]:
                if owner[m] == p and tkind[m] == kind:
                    rm = self.find(m)
                    if rm != root:
                        if gsize[rm] > gsize[root]:
                            rm, root = root, rm
                        parent[rm] = root
                        gsize[root] += gsize[rm]
        a = self.t.area_of[h]
        if a >= 0:
            self.area_free[a] -= 1
            if p >= 0:
                self.area_inf[a][p] += value
            if self.area_free[a] == 0 and p < 0:
                self.area_done[a] = True  # filled at setup: nobody completed it, nobody scores
        if p >= 0:
            for lm in self.lm_adj[h]:
                rule = self.metric_of.get(lm)
                if rule is not None:
                    counts = self.lm_count[lm]
                    for mi, kinds in enumerate(rule.metrics):
                        if kinds is None or kind in kinds:
                            counts[mi][p] += 1

    def _react(self, p: int, kind: int, h: int, index: int | None, choices: dict[str, Any]) -> None:
        for r in self.rs.reactions:
            self._react_one(r, p, kind, h, index, choices)

    def _react_one(self, r: Any, p: int, kind: int, h: int, index: int | None, choices: dict[str, Any]) -> None:
        """One statement's reaction to a placement (S-F1, S-H1, S-A*, S-K*, S-M1, ...)."""
        if isinstance(r, ScoreTrigger):
            if (r.kinds is None or kind in r.kinds) and (r.at is None or r.at[h]):
                pts = r.fn(Ctx(self, p, h))
                if self.quiet:
                    self.scores[p][r.category] += pts
                    self.track[p] += pts
                    return
                q, rr = self.t.coords[h]
                self._score(index, p, pts, r.category, r.ids, f"{self.players[p]} {self.rs.tile_name(kind, self.tval[h])} "
                            f"at ({q},{rr}): {r.text} = {pts}")
        elif isinstance(r, AreaRule):
            a = self.t.area_of[h]
            if a >= 0 and self.area_free[a] == 0 and not self.area_done[a] and self.t.area_kind[a] == r.kind:
                self._score_area(a, p, r, index)
        elif isinstance(r, MajorityRule):
            for lm in self.lm_adj[h]:
                if self.metric_of.get(lm) is r:
                    self._challenge(lm, p, r, index)
        elif isinstance(r, TouchRule):
            for lm in self.lm_adj[h]:
                if self.t.landmark_kind[lm] == r.kind and lm not in self.touched[p]:
                    self.touched[p].add(lm)
                    self._touch(lm, p, r, index, choices)
        elif isinstance(r, PublicRule):
            self._public(p, r, index)

    def _score(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str) -> None:
        self.scores[p][category] = self.scores[p].get(category, 0) + pts
        self.track[p] += pts
        self._event(index, p, pts, category, ids, text)

    def _event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str) -> None:
        self.events.append(Event(index, p, pts, category, ids, text))

    def rank_area(self, a: int, completer: int, rule: AreaRule) -> list[int]:
        """Players with influence in the area, best first, by the rule's tie-break chain (S-A1, S-A2)."""
        inf = self.area_inf[a]
        n = self.n_players
        ranked = [q for q in range(n) if inf[q] > 0]
        if len(ranked) < 2:
            return ranked

        def key(q: int) -> tuple[int, ...]:
            out = [-inf[q]]
            for step in rule.ties:
                if step == ("completer", "last"):
                    out.append(1 if q == completer else 0)
                elif step == ("completer", "first"):
                    out.append(0 if q == completer else 1)
                elif step == ("clockwise", "from", "completer"):
                    out.append((q - completer) % n or n)
                elif step == ("counterclockwise", "from", "completer"):
                    out.append((completer - q) % n or n)
                elif step == ("seat", "order"):
                    out.append(q)
            return tuple(out)

        return sorted(ranked, key=key)

    def _score_area(self, a: int, completer: int, rule: AreaRule, index: int | None) -> None:
        t = self.t
        self.area_done[a] = True
        order = self.rank_area(a, completer, rule)
        size = len(t.area_hexes[a])
        key = (size, self.n_players) if (size, self.n_players) in rule.pay else (size, None)
        table = rule.pay.get(key, ())
        pay_ids = rule.pay_ids.get(key, ())
        name = t.area_names[a]
        if not order:
            if not self.quiet:
                self._event(index, completer, 0, rule.category, rule.ids, f"area {name} complete: nobody has influence")
            return
        self.area_first[a] = order[0]
        alone = len(order) == 1 and rule.alone
        for place, q in enumerate(order):
            ctx = Ctx(self, q, -1, self.area_inf[a][q])
            if alone:
                pts = sum(table[i](ctx) for i in rule.alone if i < len(table))
            else:
                pts = table[place](ctx) if place < len(table) else 0
            if self.quiet:  # simulations: points only, no event text
                self.scores[q][rule.category] += pts
                self.track[q] += pts
                continue
            if alone:
                how = "alone"
                ids = _join(rule.rank_ids, pay_ids, rule.alone_ids)
            else:
                how = f"place {place + 1}"
                ids = _join(rule.rank_ids, pay_ids)
            self._score(index, q, pts, rule.category, ids,
                        f"area {name} (size {size}) complete: {self.players[q]} {how} with influence "
                        f"{self.area_inf[a][q]}: {pts}")

    def _challenge(self, lm: int, p: int, rule: MajorityRule, index: int | None) -> None:
        owner = self.lm_owner[lm]
        name = self.t.landmark_name[lm]
        if owner == p:
            return
        over = rule.step_ids.get("over", ())
        if owner < 0:
            self._take(lm, p, rule, index, f"{name} had no owner: {self.players[p]} takes it",
                       _join(over, rule.step_ids.get("unowned", ())))
            return
        counts = self.lm_count[lm]
        for mi, c in enumerate(counts):
            mine, theirs = c[p], c[owner]
            what = "tiles" if rule.metrics[mi] is None else f"{rule.metric_names[mi]} tiles"
            ids = _join(over, rule.step_ids.get(f"compare.{mi}", ()))
            if mine > theirs:
                self._take(lm, p, rule, index, f"{name}: {self.players[p]} has {mine} adjacent {what} to "
                           f"{self.players[owner]}'s {theirs}: takes it", ids)
                return
            if mine < theirs:
                self._event(index, p, 0, rule.category, ids, f"{name}: {self.players[p]} has {mine} adjacent "
                            f"{what} to {self.players[owner]}'s {theirs}: {self.players[owner]} keeps it")
                return
        ids = _join(over, rule.step_ids.get("final", ()))
        if rule.placer_takes_tie:
            self._take(lm, p, rule, index, f"{name}: tied on every count: the placer {self.players[p]} takes it", ids)
        else:
            self._event(index, p, 0, rule.category, ids, f"{name}: tied on every count: {self.players[owner]} keeps it")

    def _take(self, lm: int, p: int, rule: MajorityRule, index: int | None, text: str, ids: tuple[str, ...]) -> None:
        self.lm_owner[lm] = p
        self._event(index, p, 0, rule.category, ids, text)

    def _touch(self, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any]) -> None:
        name = self.t.landmark_name[lm]
        act = rule.action
        if isinstance(act, A.AbilityAction):
            self._use_ability(lm, p, rule, index, choices)
        elif isinstance(act, A.DrawAction):
            deck = self.decks.get(act.deck, [])
            if deck:
                card = deck.pop(0)
                self.held[p].append(card)
                if self.quiet:
                    return
                self._event(index, p, 0, "draw", rule.ids, f"{self.players[p]} first touches {name}: draws a card")
            else:
                self._event(index, p, 0, "draw", rule.ids, f"{self.players[p]} first touches {name}: the deck is empty")

    # ----- end of game ------------------------------------------------------------------------
    def end_events(self) -> list[Event]:
        """What end-of-game scoring adds now (S-E1..S-E3), without changing the state."""
        self.memo = {}  # the position is fixed while scoring: memoise groups()
        try:
            return self._end_events()
        finally:
            self.memo = None

    def _end_events(self) -> list[Event]:
        rs, t = self.rs, self.t
        quiet = self.quiet  # simulations: the same events, without their text
        out: list[Event] = []
        for kind, fn, cat, ids in rs.end_incomplete:
            for a, _hexes in enumerate(t.area_hexes):
                if self.area_done[a] or self.area_free[a] == 0 or t.area_kind[a] != kind:
                    continue
                for q in range(self.n_players):
                    inf = self.area_inf[a][q]
                    if inf > 0:
                        pts = fn(Ctx(self, q, -1, inf))
                        out.append(Event(None, q, pts, cat, ids, "" if quiet else
                                         f"incomplete area {t.area_names[a]}: {self.players[q]} influence {inf}: {pts}"))
        for kind, fn, cat, ids in rs.end_owned:
            for lm, owner in enumerate(self.lm_owner):
                if owner >= 0 and t.landmark_kind[lm] == kind:
                    pts = fn(Ctx(self, owner))
                    out.append(Event(None, owner, pts, cat, ids, "" if quiet else
                                     f"{self.players[owner]} holds {t.landmark_name[lm]}: {pts}"))
        if rs.end_held is not None:
            cat, ids = rs.end_held
            for q in range(self.n_players):
                ctx = Ctx(self, q)
                for name in self.held[q]:
                    card: CardDef = self.cards[name]
                    ok = bool(card.cond(ctx))
                    pts = card.points if ok else 0
                    out.append(Event(None, q, pts, cat, card.ids or ids, "" if quiet else
                                     f"{self.players[q]}'s card {name!r}: {'fulfilled' if ok else 'not fulfilled'}: {pts}"))
        return out

    def final_scores(self, end: list[Event]) -> list[int]:
        """Track plus end-of-game points."""
        out = list(self.track)
        for e in end:
            out[e.player] += e.points
        return out

    def winners(self, totals: list[int]) -> tuple[list[int], str]:
        """Most points wins; ties are broken by the rules' chain (S-E4); else the win is shared."""
        top = max(totals)
        tied = [q for q, s in enumerate(totals) if s == top]
        if len(tied) == 1:
            return tied, "most points"
        ctx = Ctx(self)
        for fn, among, text in self.rs.winner_ties:
            w = fn(ctx)
            if w >= 0 and (w in tied or not among):
                return [w], f"tie broken by {text}"
        return tied, "tie stands: shared win"

    def fork(self) -> Game:
        """A copy for a simulated future: no event history, quiet."""
        events, self.events = self.events, []
        try:
            g = self.clone()
        finally:
            self.events = events
        g.quiet = True
        if g.auto_choose is None:
            g.auto_choose = first_choice
        return g

    def clone(self) -> Game:
        """An independent copy sharing the immutable ruleset and tables (much cheaper than deepcopy)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        for name in ("owner", "tkind", "tval", "parent", "gsize", "area_free", "area_done",
                     "lm_owner", "free_pos", "track", "events", "passed"):
            setattr(g, name, list(getattr(self, name)))
        g.area_inf = [list(x) for x in self.area_inf]
        g.tiles_of = [[list(x) for x in per] for per in self.tiles_of]
        g.area_first = dict(self.area_first)
        g.lm_count = [[list(c) for c in m] for m in self.lm_count]
        g.touched = [set(x) for x in self.touched]
        g.free = {k: list(v) for k, v in self.free.items()}
        g.scores = [dict(x) for x in self.scores]
        g.hand = [list(x) for x in self.hand]
        g.supply = [list(x) for x in self.supply]
        g.set_aside = [list(x) for x in self.set_aside]
        g.decks = {k: list(v) for k, v in self.decks.items()}
        g.held = [list(x) for x in self.held]
        g.public_by = {k: list(v) for k, v in self.public_by.items()}
        g.doubled = list(self.doubled)
        g.pending_draw = dict(self.pending_draw)
        return g


def first_choice(game: Game, p: int, lm: int, decl: A.AbilityDecl, key: str, options: list[str] | None) -> Any:
    """The plain answer for probes: use the ability, and take the first possible option."""
    return {key: options[0]} if options else True


def _join(*parts: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for part in parts:
        out.extend(i for i in part if i not in out)
    return tuple(out)


def _cite(ids: tuple[str, ...], fallback: str) -> str:
    """The rule id a refusal cites: the rules file's own citation, else the generic rule."""
    return ids[0] if ids else fallback
