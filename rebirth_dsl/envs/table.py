"""The decision machine the environments share: a fixed action numbering, the legal actions of the
player to decide, and a move built one decision at a time. Pure Python: numpy and the research libraries
are imported by the adapters only.

A move is made in decisions. First the placement: a hand slot and a hex (or passing the tile in a slot
when it has no legal hex, S-P5). Then, if the placement first touches landmarks whose abilities ask
something (I-R1: which set-aside tile to take, which drawn tile to keep, which public mission to double),
one question per such landmark in board order. The placement cannot be taken back once chosen: the
question shows what the player may see only after placing (the tiles a "draw 3" shows).

Answers are positions, never names: a hidden set-aside tile (I-U1) is taken by its position face down, so
neither the mask nor the action says what is there.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.lang import ast as A
from rebirth_dsl.play.agents import Agent, pick_choices, pick_tile
from rebirth_dsl.runtime import abilities
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import seat_rng

QUESTIONS = ("take", "keep", "double")  # the keys of abilities.options that come with answers to choose


@dataclass(frozen=True)
class Spec:
    """The fixed action numbering of one ruleset, board and player count.

    `[0, slots*hexes)`: place the tile in hand slot `a // hexes` on board hex `a % hexes`;
    then `slots` actions: pass the tile in that slot; then `take` actions: take the set-aside tile at that
    position; `keep`: keep the drawn tile at that position (in draw order); `double`: put the doubling
    marker on the face-up public mission at that position."""

    hexes: int
    slots: int
    take: int
    keep: int
    double: int

    @property
    def pass_base(self) -> int:
        """The first pass action."""
        return self.slots * self.hexes

    @property
    def take_base(self) -> int:
        """The first take action."""
        return self.pass_base + self.slots

    @property
    def keep_base(self) -> int:
        """The first keep action."""
        return self.take_base + self.take

    @property
    def double_base(self) -> int:
        """The first double action."""
        return self.keep_base + self.keep

    @property
    def size(self) -> int:
        """How many actions there are."""
        return self.double_base + self.double

    def place(self, slot: int, h: int) -> int:
        """The action placing the tile of a hand slot on hex index h."""
        return slot * self.hexes + h

    def pass_(self, slot: int) -> int:
        """The action passing the tile of a hand slot (S-P5)."""
        return self.pass_base + slot

    def answer(self, key: str, pos: int) -> int:
        """The action answering a `take`, `keep` or `double` question with a position."""
        return {"take": self.take_base, "keep": self.keep_base, "double": self.double_base}[key] + pos

    def decode(self, a: int) -> tuple[str, int, int]:
        """An action as (what, slot or position, hex): `place`, `pass`, `take`, `keep` or `double`."""
        a = int(a)
        if not 0 <= a < self.size:
            raise ValueError(f"action {a} is outside 0..{self.size - 1}")
        if a < self.pass_base:
            return "place", a // self.hexes, a % self.hexes
        for what, base, nxt in (("pass", self.pass_base, self.take_base), ("take", self.take_base, self.keep_base),
                                ("keep", self.keep_base, self.double_base), ("double", self.double_base, self.size)):
            if a < nxt:
                return what, a - base, -1
        raise AssertionError(a)


def spec_for(rs: Ruleset) -> Spec:
    """The numbering for a ruleset on its board: enough hand slots for every extra tile an ability can
    give, and answer positions for the largest question its abilities can ask."""
    t = rs.t
    effects = {name: ab.effect for name, ab in rs.abilities.items()}
    on_board = [effects.get(t.landmark_ability[i] or "") for i in range(len(t.landmark_hex))]
    takes = sum(isinstance(e, A.TakeAsideEffect) for e in on_board)
    keep = max((e.draw for e in effects.values() if isinstance(e, A.DrawKeepEffect)), default=0)
    double = rs.public.count if rs.public is not None and any(isinstance(e, A.DoubleEffect) for e in effects.values()) else 0
    take = rs.set_aside if takes else 0
    return Spec(hexes=t.n, slots=rs.hand + min(takes, rs.set_aside), take=take, keep=keep, double=double)


@dataclass
class Ask:
    """One question of a move: the landmark, and the key its answer goes under."""

    lm: int
    key: str


@dataclass
class Turn:
    """A move being built: the placement, the questions still to answer, and the answers so far."""

    p: int
    slot: int
    tile: tuple[int, int]
    h: int | None
    asks: list[Ask] = field(default_factory=list)
    choices: dict[str, Any] = field(default_factory=dict)  # the engine's form: {landmark: True | {key: name}}


class Table:
    """The decisions of a game in the fixed numbering. `turn` holds a placement waiting for answers."""

    def __init__(self, game: Game, spec: Spec | None = None) -> None:
        self.game = game
        self.spec = spec or spec_for(game.rs)
        self.turn: Turn | None = None
        self.passed: dict[int, list[tuple[int, int]]] = {}  # the tiles each seat passed (public: S-P5)

    def clone(self, game: Game) -> Table:
        """A copy of the table over a copy of its game."""
        c = Table(game, self.spec)
        if self.turn is not None:
            t = self.turn
            c.turn = Turn(t.p, t.slot, t.tile, t.h, [Ask(a.lm, a.key) for a in t.asks], dict(t.choices))
        c.passed = {q: list(v) for q, v in self.passed.items()}
        return c

    # ----- who decides what ---------------------------------------------------------------------
    def seat(self) -> int:
        """The seat that decides next (the turn's player, or the one answering a question)."""
        return self.turn.p if self.turn is not None else self.game.turn

    def phase(self) -> str:
        """`place`, a question key (`take`, `keep`, `double`), or `over`."""
        if self.turn is not None:
            return self.turn.asks[0].key
        return "over" if self.game.is_over() else "place"

    def options(self) -> list[str]:
        """The engine's answers to the current question (tile or card names)."""
        assert self.turn is not None
        return abilities.options(self.game, self.turn.p, self.turn.asks[0].lm)[2] or []

    def legal_actions(self) -> list[int]:
        """The legal actions of the deciding seat, ascending."""
        g, spec = self.game, self.spec
        if self.turn is not None:
            return self._answers()
        if g.is_over():
            return []
        p = g.turn
        out: list[int] = []
        for slot, (kind, _) in enumerate(g.hand[p]):
            hexes, _ = g.legal_hexes(kind)
            if hexes:
                out.extend(spec.place(slot, h) for h in hexes)
            else:  # S-P5: a tile with no legal hex is passed (every ruleset must say so: check_required)
                out.append(spec.pass_(slot))
        return sorted(out)

    def _answers(self) -> list[int]:
        """The positions the current question may be answered with."""
        assert self.turn is not None
        g, p, key = self.game, self.turn.p, self.turn.asks[0].key
        opts = set(self.options())
        if key == "take":
            names = [g.rs.tile_name(*x) for x in g.set_aside[p]]
        elif key == "keep":
            n = self.keep_count()
            names = [g.rs.tile_name(*x) for x in reversed(g.supply[p][-n:])] if n else []  # in draw order
        else:
            names = list(g.public)
        return [self.spec.answer(key, i) for i, n in enumerate(names) if n in opts]

    def keep_count(self) -> int:
        """How many tiles the current `keep` question's ability draws (its options are the supply's top)."""
        assert self.turn is not None
        effect = abilities.ability_of(self.game, self.turn.asks[0].lm).effect
        return effect.draw if isinstance(effect, A.DrawKeepEffect) else 0

    # ----- deciding -----------------------------------------------------------------------------
    def step(self, a: int) -> Turn | None:
        """Take one decision; return the finished move when nothing more is asked (it is not yet played:
        the caller plays it), else None. An illegal action raises ValueError and changes nothing."""
        a = int(a)
        if a not in self.legal_actions():
            raise ValueError(self.why_illegal(a))
        what, i, h = self.spec.decode(a)
        g = self.game
        if self.turn is None:
            p = g.turn
            tile = g.hand[p][i]
            turn = Turn(p, i, tile, h if what == "place" else None)
            if turn.h is not None:
                for lm, _ in g.pending_abilities(p, turn.h):
                    _, key, opts = g.ability_options(p, lm)
                    if opts:
                        if key not in QUESTIONS:
                            raise NotImplementedError(f"an ability asking {key!r} has no actions in this numbering")
                        turn.asks.append(Ask(lm, key))
                    turn.choices[g.t.landmark_name[lm]] = True  # replaced by the answer when one is asked
            self.turn = turn
        else:
            turn = self.turn
            ask = turn.asks[0]
            turn.choices[g.t.landmark_name[ask.lm]] = {ask.key: self._name(ask.key, i)}
            turn.asks.pop(0)
        if self.turn.asks:
            return None
        done, self.turn = self.turn, None
        if done.h is None:
            self.passed.setdefault(done.p, []).append(done.tile)
        return done

    def _name(self, key: str, pos: int) -> str:
        """The engine's answer (a tile or card name) for a position."""
        g, p = self.game, self.seat()
        if key == "take":
            return g.rs.tile_name(*g.set_aside[p][pos])
        if key == "keep":
            return g.rs.tile_name(*g.supply[p][-1 - pos])
        return g.public[pos]

    def why_illegal(self, a: int) -> str:
        """Why an action is not legal now, in words."""
        try:
            what, i, h = self.spec.decode(a)
        except ValueError as e:
            return str(e)
        phase = self.phase()
        if phase == "over":
            return f"action {a}: the game is over"
        if phase != "place":
            return f"action {a} ({what}) does not answer the {phase!r} question being asked"
        if what not in ("place", "pass"):
            return f"action {a} ({what}) answers a question, but a tile is to be placed"
        g = self.game
        hand = g.hand[g.turn]
        if i >= len(hand):
            return f"action {a}: hand slot {i} is empty ({len(hand)} tile(s) in hand)"
        name = g.rs.tile_name(*hand[i])
        if what == "pass":
            return f"action {a}: {name} cannot be passed, it has a legal hex ({_pass_rule(g)})"
        q, r = g.t.coords[h]
        try:
            g.clone().play(g.turn, hand[i], h, None, {})
        except Exception as e:  # the engine's own refusal, with its rule id
            return f"action {a}: {e}"
        return f"action {a}: {name} on ({q},{r}) is not legal"

    def move_of(self, turn: Turn) -> tuple[str, tuple[int, int] | None, tuple[tuple[str, Any], ...]]:
        """A finished move as (tile name, hex coordinates, (landmark, answer) pairs) for the public API."""
        g = self.game
        pairs = tuple((name, c if isinstance(c, bool) else next(iter(c.values()))) for name, c in turn.choices.items())
        return g.rs.tile_name(*turn.tile), (g.t.coords[turn.h] if turn.h is not None else None), pairs


class AgentPlayer:
    """A built-in agent deciding through the numbering, drawing exactly as `rebirth play` does: its seat's
    generator is `seat_rng(seed, seat)`, and at each placement it draws the tile, the hex and every answer
    of the move in one go (pick_tile, choose, pick_choices), then replays those answers as actions."""

    def __init__(self, agent: Agent, seed: int, seat: int) -> None:
        self.agent = agent
        self.seat = seat
        self.rng: random.Random = seat_rng(seed, seat)
        self._plan: dict[str, Any] = {}

    def action(self, table: Table) -> int:
        """The agent's next action at this table (its seat must be the one deciding)."""
        g, spec = table.game, table.spec
        p = table.seat()
        if p != self.seat:
            raise ValueError(f"seat {p} decides, not this agent's seat {self.seat}")
        if table.turn is None:
            tile = pick_tile(self.agent, g, p, self.rng)
            slot = g.hand[p].index(tile)
            hexes, _ = g.legal_hexes(tile[0])
            if not hexes:
                self._plan = {}
                return spec.pass_(slot)
            h = self.agent.choose(g, p, tile, hexes, self.rng)
            self._plan = pick_choices(self.agent, g, p, h, self.rng)
            return spec.place(slot, h)
        ask = table.turn.asks[0]
        answer = self._plan.get(g.t.landmark_name[ask.lm])
        legal = table.legal_actions()
        if isinstance(answer, dict):
            name = next(iter(answer.values()))
            for a in legal:
                if table._name(ask.key, spec.decode(a)[1]) == name:
                    return a
        return legal[0]  # an agent that declines cannot here: the numbering has no decline (see docs/api.md)


def _pass_rule(g: Game) -> str:
    """The rule id the rules file cites for passing (never a hard-coded one)."""
    return g.rs.cites.passes[0] if g.rs.cites.passes else "the pass rule"
