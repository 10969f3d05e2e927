"""The game: a state with its moves. `Game.play` validates and applies one move; what a placement sets
off lives in reactions.py, abilities.py and placement.py; end-of-game scoring and the winner in
endgame.py. Everything here is generic: hexes are integers, tiles are (kind id, value) pairs, and every
number, name and tie-break comes from the compiled Ruleset.
"""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.accel import written_out
from rebirth_dsl.compile.ruleset import Ability, CardDef, MajorityRule, Ruleset, TouchRule
from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.rules.kind import Placement
from rebirth_dsl.rules.table import kind_of
from rebirth_dsl.rules.turn import end_turn
from rebirth_dsl.runtime import abilities, endgame, placement, reactions
from rebirth_dsl.runtime.decks import draw_card as _draw_card
from rebirth_dsl.runtime.placement import cite
from rebirth_dsl.runtime.setup import Setup, deal_into
from rebirth_dsl.runtime.state import EMPTY, NEUTRAL, Answer, Event, State, copy_state
from rebirth_dsl.shared_methods import Node, node

if TYPE_CHECKING:
    import random
    from typing import Any, TypeVar

__all__ = ["EMPTY", "NEUTRAL", "Event", "Game", "first_choice"]

if TYPE_CHECKING:
    _G = TypeVar("_G", bound="Game")  # Game, or a subclass of it (a blank position is made of the class asked for)
_NO_SETUP = Setup([], [])  # what Game.dealt passes to __new__, which reads no setup
FRESH_AFTER = 128  # games copied by copy_state before the copy is written out (Game.__new__)


@node
class Static(Node):
    """Tables a new game shares instead of recomputing: landmark adjacency, free lists, cards."""

    lm_adj: tuple[tuple[int, ...], ...]
    metric_of: dict[int, MajorityRule]
    free: dict[str, tuple[int, ...]]
    free_pos: tuple[int, ...]
    cards: dict[str, CardDef]
    ability_rules: tuple[TouchRule, ...]  # `on first touch KIND: use ability` statements (I-R1)
    reactors: tuple[tuple[Callable[[Any, Any, Placement], None], object], ...]  # (reaction, statement), in order


def static(rs: Ruleset) -> Static:
    """The ruleset's runtime tables, computed once and kept in its `derived` field."""
    st: Static | None = rs.derived.static
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
    ab = tuple(r for r in rs.reactions if kind_of(r).uses_ability(r))
    st = Static(tuple(tuple(a) for a in adj), metric_of, {k: tuple(v) for k, v in free.items()}, tuple(free_pos),
                cards, ab, tuple((kind_of(r).react, r) for r in rs.reactions))
    rs.derived.static = st
    return st


def _derive_fresh(g: _G) -> Callable[[], _G]:
    """accel.fresh.derive_fresh, imported when a ruleset's games have been copied often enough to write the
    copy out: a command that plays a game or two never imports it."""
    from rebirth_dsl.accel.fresh import derive_fresh

    return derive_fresh(g)


def blank(rs: Ruleset, n: int, cls: type[_G]) -> _G:
    """The empty position of a ruleset for n players, with its neutral tiles (S-U2) placed: made once and
    kept in the ruleset's `derived` field; every new game starts from a copy of it."""
    key = (n, cls)
    g: _G | None = rs.derived.blank.get(key)
    if g is not None:
        return g
    t = rs.t
    st = static(rs)
    nh, nl = t.n, len(t.landmark_hex)
    g = object.__new__(cls)
    State.__init__(
        g, rs=rs, t=t, players=(), n_players=n, scenario=False,
        lm_adj=st.lm_adj, metric_of=st.metric_of, cards=st.cards, ability_rules=st.ability_rules,
        reactors=st.reactors,
        owner=[EMPTY] * nh, tkind=[-1] * nh, tval=[0] * nh,
        tiles_of=[[[] for _ in rs.tile_kinds] for _ in range(n)],
        parent=list(range(nh)), gsize=[1] * nh,
        area_free=[len(hs) for hs in t.area_hexes], area_inf=[[0] * n for _ in t.area_hexes],
        area_done=[False] * len(t.area_hexes),
        lm_owner=[-1] * nl,
        lm_count=[[[0] * n for _ in st.metric_of[i].metrics] if i in st.metric_of else [] for i in range(nl)],
        touched=[set() for _ in range(n)],
        free={k: list(v) for k, v in st.free.items()}, free_pos=list(st.free_pos),
        scores=[dict.fromkeys(rs.categories, 0) for _ in range(n)],
        track=[0] * n, start_scores=[0] * n, hand=[[] for _ in range(n)], supply=[[] for _ in range(n)],
        set_aside=[[] for _ in range(n)], held=[[] for _ in range(n)], passed=[0] * n,
        doubled=[{} for _ in range(n)],
    )
    neutral = rs.neutral.get(n)
    if neutral is not None:
        tagged = [h for h in range(nh) if neutral.tag in t.hex_tags[h]][: neutral.count]
        for h in tagged:
            placement.occupy(g, h, NEUTRAL, -1, 0)
    rs.derived.blank[key] = g
    return g


class Game(State):
    """A game in progress. Player indices are seats, clockwise; hexes are board indices."""

    __slots__ = ()

    def __new__(cls, rs: Ruleset, players: list[str], setup: Setup, scenario: bool = False) -> Game:
        """A fresh copy of the ruleset's empty position for this player count (board tables, free lists,
        neutral tiles: built once per ruleset and count, see `blank`); __init__ then deals the setup."""
        n = len(players)
        lo, hi = rs.players
        if not scenario and not lo <= n <= hi:
            raise RebirthError.single(f"{n} players: this ruleset is for {lo} to {hi} players",
                                      rule=rs.cites.players[0] if rs.cites.players else None)
        # copy_state of the blank, written out once it pays back (accel.fresh; the same copy: tests/engines/
        # test_fast.py): the first FRESH_AFTER games of a ruleset and player count are copied by copy_state
        make: Callable[[], Game] | None = written_out(rs.derived.fresh, rs.derived.copied, (n, cls), FRESH_AFTER,
                                                      lambda: _derive_fresh(blank(rs, n, cls)))
        return copy_state(blank(rs, n, cls)) if make is None else make()

    def __init__(self, rs: Ruleset, players: list[str], setup: Setup, scenario: bool = False) -> None:
        # The copy of the blank position __new__ made holds no points, cards or tiles (zeros and empty lists, one
        # per seat): the setup is filled into its lists, which are replaced only when the setup has another shape.
        n = len(players)
        self.players = tuple(players)
        self.scenario = scenario
        if setup.scores:
            track = self.track = list(setup.scores)
            self.start_scores = list(track)
            for q, pts in enumerate(track):
                if pts:
                    self.events.append(Event(-1, q, pts, "start", (), f"{players[q]} starts with {pts} points (scenario)"))
        decks = self.decks
        for k, v in setup.decks.items():
            decks[k] = list(v)
        for name, cards in rs.decks.items():
            if name not in decks:
                decks[name] = [c.name for c in cards]
        if len(setup.supply) == n:
            for mine, s in zip(self.supply, setup.supply):  # noqa: B905 - both have n
                mine += s
                mine.reverse()  # the setup lists the first tile drawn first; the top of a supply is its end
        elif setup.supply:
            self.supply = [list(reversed(s)) for s in setup.supply]
        if len(setup.set_aside) == n:
            for mine, s in zip(self.set_aside, setup.set_aside):  # noqa: B905 - both have n
                mine += s
        elif setup.set_aside:
            self.set_aside = [list(s) for s in setup.set_aside]
        if setup.held:
            self.held = [list(h) for h in setup.held]
        self._start(rs, scenario)

    @classmethod
    def dealt(cls, rs: Ruleset, players: list[str], seed: int) -> Game:
        """The game `Game(rs, players, deal(rs, len(players), seed))` makes, dealt straight into the new game's
        own lists (setup.deal_into, the one order of the deal) instead of through a Setup: random playouts."""
        self = cls.__new__(cls, rs, players, _NO_SETUP)
        self.players = tuple(players)
        deal_into(rs, seed, self.supply, self.set_aside, self.decks)  # every deck of the ruleset, shuffled
        self._start(rs, False)
        return self

    def _start(self, rs: Ruleset, scenario: bool) -> None:
        """After the deal: the public missions laid out (I-M1) and, unless a scenario, each hand drawn (S-T1)."""
        if rs.public is not None:  # I-M1: public missions laid face up from the top of their deck
            deck = self.decks.setdefault(rs.public.deck, [])
            self.public, deck[:] = deck[: rs.public.count], deck[rs.public.count:]
            public_by = self.public_by
            for c in self.public:
                public_by[c] = []
        if not scenario:
            supply, hand = self.supply, self.hand
            for p in range(self.n_players):
                for _ in range(rs.hand):
                    if supply[p]:
                        hand[p].append(supply[p].pop())

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
        """All of a player's groups of the given kinds, read off the union-find roots (nobody has none)."""
        if p < 0:
            return []
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
        return placement.legal_hexes(self, kind)

    def pending_abilities(self, p: int, h: int) -> list[tuple[int, TouchRule]]:
        """Landmarks whose ability a placement on h would trigger for p (I-R1)."""
        return abilities.pending(self, p, h)

    def use_ability(self, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any]) -> None:
        """Use the ability printed on landmark lm for p, with the move's answer (I-R1)."""
        abilities.use(self, lm, p, rule, index, choices)

    def draw_card(self, p: int, deck: str, ids: tuple[str, ...], index: int | None, why: str) -> None:
        """The top card of a deck into p's hand, or the deck's empty rule (S-M1)."""
        _draw_card(self, p, deck, ids, index, why)

    def ability_options(self, p: int, lm: int) -> tuple[Ability, str, list[str] | None]:
        """A landmark's ability, the key of its answer, and the possible answers (I-R1)."""
        return abilities.options(self, p, lm)

    # ----- moves ------------------------------------------------------------------------------
    def player_index(self, name: str, index: int | None = None) -> int:
        """Seat of a player name."""
        try:
            return self.players.index(name)
        except ValueError:
            raise IllegalMove(f"unknown player {name!r} (players: {', '.join(self.players)})",
                              cite(self.rs.cites.turns, "the turn rule"), index) from None

    def play(self, p: int, tile: tuple[int, int], h: int | None, index: int | None = None,
             choices: dict[str, Any] | None = None) -> list[Event]:
        """Validate and apply one move; return the events it caused. Nothing changes if it is refused."""
        rs = self.rs
        first_event = len(self.events)
        if not self.scenario:
            if self.is_over():
                raise IllegalMove("the game is over: every tile has been placed",
                                  cite(rs.cites.turns, "the end-of-game rule"), index)
            if p != self.turn:
                raise IllegalMove(f"it is {self.players[self.turn]}'s turn, not {self.players[p]}'s",
                                  cite(rs.cites.turns, "the turn rule"), index)
            if tile not in self.hand[p]:
                held = ", ".join(rs.tile_name(*x) for x in self.hand[p]) or "nothing"
                raise IllegalMove(f"{self.players[p]} holds {held}, not {rs.tile_name(*tile)}",
                                  cite(rs.cites.turns, "the turn rule"), index)
        kind, value = tile
        if h is None:
            legal, _ = self.legal_hexes(kind)
            if legal:
                q, r = self.t.coords[legal[0]]
                raise IllegalMove(f"{rs.tile_name(*tile)} cannot be passed: {len(legal)} hex(es) are legal, e.g. "
                                  f"({q},{r})", cite(rs.cites.passes, "the pass rule"), index)
            self.passed[p] += 1
            self.event(index, p, 0, "pass", rs.cites.passes,
                       "{} passes {}: no legal hex", self.players[p], rs.tile_name(*tile))
        else:
            placement.check_place(self, kind, h, index)
            choices = choices or {}
            abilities.check_choices(self, p, h, choices, index)
            placement.occupy(self, h, p, kind, value)
            reactions.react(self, p, kind, h, index, choices)
        if self.scenario:
            self.move_index += 1  # a scenario's record says whose turn it is: no hand to play from
        else:
            end_turn(self, p, tile)
        return self.events[first_event:]

    # ----- end of game ------------------------------------------------------------------------
    def end_events(self) -> list[Event]:
        """What end-of-game scoring adds now (S-E1..S-E3), without changing the state."""
        return endgame.end_events(self)

    def final_scores(self, end: list[Event]) -> list[int]:
        """Track plus end-of-game points."""
        return endgame.final_scores(self, end)

    def winners(self, totals: list[int]) -> tuple[list[int], str]:
        """Most points wins; ties are broken by the rules' chain (S-E4); else the win is shared."""
        return endgame.winners(self, totals)

    # ----- copies -----------------------------------------------------------------------------
    def clone(self) -> Game:
        """An independent copy sharing the immutable ruleset and tables (see state.copy_state)."""
        return copy_state(self)

    def shuffle_hidden(self, rng: random.Random) -> None:
        """Shuffle the orders nobody has seen (each supply, then each deck) for a playout that must not
        follow the real draws."""
        for q in range(self.n_players):
            rng.shuffle(self.supply[q])
        for deck in self.decks.values():
            rng.shuffle(deck)

    def fork(self) -> Game:
        """A copy for a simulated future: no event history, quiet, abilities answered plainly."""
        events, self.events = self.events, []
        try:
            g = self.clone()
        finally:
            self.events = events
        g.quiet = True
        if g.auto_choose is None:
            g.auto_choose = first_choice
        return g


def first_choice(game: Game, p: int, lm: int, ability: Ability, key: str, options: list[str] | None) -> Answer:
    """The plain answer for probes: use the ability, and take the first possible option."""
    return {key: options[0]} if options else True
