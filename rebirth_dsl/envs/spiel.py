"""Rebirth as an OpenSpiel Python game, `python_rebirth` (`pip install 'rebirth-dsl[rl]'`).

    import pyspiel
    import rebirth_dsl.envs.spiel  # registers the game
    game = pyspiel.load_game("python_rebirth", {"rules": "ireland", "players": 3})

Parameters: `rules` (a bundled name or a .rules file), `board` (empty: the ruleset's own), `players`, and
`returns` (`win`: +1 to each winner, -1 to the others; `score`: the final scores). Player actions are the
numbering of `envs.table.Spec`, as in the PettingZoo environment; observations (`observation_tensor`,
`observation_string`) are `envs.observe.Encoder`'s view of one seat.

Chance nodes are the game's draws, made when they happen and never before: the set-aside tiles and the
first hand of each player and the face-up public missions at the start, each tile drawn from a supply
(the draw after a turn, and the tiles a "draw N keep 1" shows once the placement is made), and each
mission card drawn. Chance actions `0 .. T-1` are the ruleset's tile types (sorted, as in the
observation's tile columns), `T ..` its cards; a draw's outcomes are what is left, in proportion.
Tiles whose place is known stay known: those a "draw N" put back under the supply (or on top) are drawn
without chance.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pyspiel

from rebirth_dsl.api import Rules, load
from rebirth_dsl.envs.observe import HIGH, Encoder
from rebirth_dsl.envs.table import Spec, Table, Turn, spec_for
from rebirth_dsl.lang import ast as A
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.rules.table import kind_of
from rebirth_dsl.runtime import abilities
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import Setup, colour_tiles

NAME = "python_rebirth"
PARAMS = {"rules": "", "board": "", "players": 2, "returns": "win"}  # "": the default ruleset (rules/DEFAULT)

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Rebirth (rebirth-dsl)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,  # shared wins and 3-4 players: not zero-sum
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=len(DEFAULT_NAMES),
    min_num_players=1,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMS,
)


class Config:
    """What every state of one game shares: the rules, the numbering, the encoder, the chance tables."""

    def __init__(self, rules: Rules, players: int, returns: str, params: dict[str, Any]) -> None:
        rs = rules.ruleset
        self.rules, self.rs, self.n, self.returns = rules, rs, players, returns
        self.params = dict(params)
        self.spec: Spec = spec_for(rs)
        self.encoder = Encoder(rs, players, self.spec)
        self.tiles = self.encoder.tiles  # chance action i < T: this tile type
        self.cards = self.encoder.cards  # chance action T + j: this card
        self.names = DEFAULT_NAMES[:players]
        self.colour = colour_tiles(rs, players)
        # whether any placement can draw a card, not only a first touch (Core._card_draws skips its trial
        # move when neither can happen); a filtered first touch (`by KINDS`) can fire on a touched landmark
        self.may_draw_on_place = any(kind_of(r).draws_without_first_touch(r) for r in rs.reactions)
        self.decks = sorted(rs.decks)


_CONFIGS: dict[tuple[tuple[str, Any], ...], Config] = {}


def config_for(params: dict[str, Any]) -> Config:
    """The shared configuration of a game's parameters (compiled once per process)."""
    p = {**PARAMS, **params}
    key = tuple(sorted(p.items()))
    if key not in _CONFIGS:
        if p["returns"] not in ("win", "score"):
            raise ValueError(f"returns={p['returns']!r}: win or score")
        rules = load(p["rules"] or None, p["board"] or None)
        n = int(p["players"])
        lo, hi = rules.players
        if not lo <= n <= hi:
            raise ValueError(f"{n} players: {rules.title} is for {lo} to {hi}")
        _CONFIGS[key] = Config(rules, n, p["returns"], p)
    return _CONFIGS[key]


def _rebuild(params: dict[str, Any], actions: list[int]) -> Core:
    """A state from its game's parameters and its actions (unpickling: the engine holds compiled closures,
    which do not pickle, so a state is saved as the actions that made it)."""
    core = Core(config_for(params))
    for a in actions:
        core.apply(a)
    return core


class Core:
    """The state proper, in one object whose deepcopy is a cheap copy (pyspiel clones a Python state by
    deep-copying its attributes; the ruleset and tables must be shared, not copied)."""

    def __init__(self, cfg: Config) -> None:
        rs, n = cfg.rs, cfg.n
        self.cfg = cfg
        self.actions: list[int] = []  # every action applied, chance ones included: what a pickle keeps
        # the deal, before the engine exists: what is left of each colour, and the steps still to draw
        self.pool: list[Counter[tuple[int, int]]] | None = [Counter(cfg.colour) for _ in range(n)]
        self.aside: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.first: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.public: list[str] = []
        self.steps: list[tuple[str, int]] = [("aside", p) for p in range(n) for _ in range(rs.set_aside)]
        if rs.public is not None:
            self.steps += [("public", 0)] * min(rs.public.count, len(rs.decks.get(rs.public.deck, [])))
        self.steps += [("hand", p) for p in range(n) for _ in range(rs.hand)]
        self.game: Game | None = None
        self.table: Table | None = None
        # each supply: [0, bottom) known tiles put back under it, [len - top, len) drawn by chance or put
        # back on top, in between the unknown part, whose order means nothing
        self.bottom = [0] * n
        self.top = [0] * n
        self.done: Turn | None = None  # a finished move waiting for its draws
        self.card_draws: dict[str, int] | None = None
        self.card_fixed: dict[str, int] = {}
        self.steps.reverse()  # popped from the end
        if not self.steps:
            self._build()

    def __deepcopy__(self, memo: dict[int, Any]) -> Core:
        c = object.__new__(Core)
        c.__dict__.update(self.__dict__)  # the config and the immutable parts shared; the rest copied below
        c.actions = list(self.actions)
        c.pool = [Counter(x) for x in self.pool] if self.pool is not None else None
        c.aside = [list(x) for x in self.aside]
        c.first = [list(x) for x in self.first]
        c.public = list(self.public)
        c.steps = list(self.steps)
        c.bottom, c.top = list(self.bottom), list(self.top)
        c.card_draws = dict(self.card_draws) if self.card_draws is not None else None
        c.card_fixed = dict(self.card_fixed)
        if self.game is not None and self.table is not None:
            c.game = self.game.clone()
            c.table = self.table.clone(c.game)
        return c

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (self.cfg.params, list(self.actions))

    def apply(self, a: int) -> None:
        """A chance outcome or a player's decision, whichever the state waits for."""
        if self.need() is not None:
            self.chance(a)
        else:
            self.decide(a)
        self.actions.append(a)
        self.need()  # a move whose draws are all made is played now

    # ----- the deal -----------------------------------------------------------------------------
    def _build(self) -> None:
        """The engine's game from the dealt tiles and cards: each supply holds the first hand on top of
        the rest of the colour (in an order that means nothing: every later draw is a chance node)."""
        cfg, rs = self.cfg, self.cfg.rs
        assert self.pool is not None
        supply = [self.first[p] + sorted(self.pool[p].elements()) for p in range(cfg.n)]
        decks = {d: [c.name for c in rs.decks[d]] for d in cfg.decks}
        if rs.public is not None:
            decks[rs.public.deck] = self.public + self.public_pool()
        self.game = Game(rs, list(cfg.names), Setup(self.aside, supply, decks))
        self.game.quiet = True  # no event texts: search and rollouts need the points only
        self.table = Table(self.game, cfg.spec)
        self.pool = None

    # ----- whose node ---------------------------------------------------------------------------
    def need(self) -> tuple[str, int, str] | None:
        """The chance draw the game waits for, as (what, seat or index, deck); None when a player decides
        or the game is over. Commits a finished move once its draws are made."""
        if self.steps:
            what, p = self.steps[-1]
            return what, p, ""
        assert self.game is not None and self.table is not None
        g, t = self.game, self.table
        if t.turn is not None and t.phase() == "keep":
            p = t.turn.p
            want = min(t.keep_count(), len(g.supply[p]))
            self._settle(p)
            if self.top[p] < want:
                return "tile", p, ""
            return None
        if self.done is None:
            return None
        p = self.done.p
        if self.card_draws is None:
            self.card_draws = self._card_draws(self.done)
        for d, k in self.card_draws.items():
            if self.card_fixed.get(d, 0) < k:
                return "card", self.card_fixed.get(d, 0), d
        if not self._keeps(self.done) and g.supply[p]:
            self._settle(p)
            if self.top[p] == 0:
                return "tile", p, ""
        self._commit()
        return None

    def _settle(self, p: int) -> None:
        """When the unknown part of a supply is empty, the known bottom tiles are next: relabel them."""
        if len(self.game.supply[p]) - self.bottom[p] - self.top[p] == 0 and self.bottom[p]:  # type: ignore[union-attr]
            self.top[p] += self.bottom[p]
            self.bottom[p] = 0

    def _keeps(self, turn: Turn) -> list[A.DrawKeepEffect]:
        """The "draw N keep" effects the move answered (their draw replaces the turn's draw)."""
        g = self.game
        assert g is not None
        out = []
        for name, c in turn.choices.items():
            if isinstance(c, dict) and "keep" in c:
                eff = abilities.ability_of(g, g.t.landmark_name.index(name)).effect
                if isinstance(eff, A.DrawKeepEffect):
                    out.append(eff)
        return out

    def _card_draws(self, turn: Turn) -> dict[str, int]:
        """How many cards of each deck the move draws: found by playing it on a quiet copy. Only a
        placement can draw (on placing, or on first touching a landmark), so most moves need no trial."""
        g = self.game
        assert g is not None
        p, h = turn.p, turn.h
        if h is None or not any(g.decks.get(d) for d in self.cfg.decks):
            return {}
        if not self.cfg.may_draw_on_place and all(lm in g.touched[p] for lm in g.lm_adj[h]):
            return {}
        trial = g.clone()
        trial.quiet = True
        trial.play(p, turn.tile, h, None, dict(turn.choices))
        return {d: len(g.decks.get(d, ())) - len(trial.decks.get(d, ())) for d in self.cfg.decks
                if len(g.decks.get(d, ())) > len(trial.decks.get(d, ()))}

    def _commit(self) -> None:
        """Play the finished move on the engine, then account for what left the supply."""
        g, turn = self.game, self.done
        assert g is not None and turn is not None
        p = turn.p
        keeps = self._keeps(turn)
        before = len(g.supply[p])
        g.play(p, turn.tile, turn.h, None, dict(turn.choices))
        if keeps:
            eff = keeps[-1]  # two keeps in one move: the later one's draw is the one made
            m = min(eff.draw, before)
            self.top[p] -= m
            back = m - 1 if m else 0
            rest = getattr(eff, "rest", "bottom")
            if rest == "bottom":
                self.bottom[p] += back
            elif rest == "top":
                self.top[p] += back
        elif before:
            if self.top[p]:
                self.top[p] -= 1
            else:
                self.bottom[p] -= 1
        self.done, self.card_draws, self.card_fixed = None, None, {}

    # ----- chance ---------------------------------------------------------------------------------
    def outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes of the current draw, with their probabilities."""
        need = self.need()
        assert need is not None
        what, i, deck = need
        T = len(self.cfg.tiles)
        if what in ("aside", "hand"):
            assert self.pool is not None
            counts = self.pool[i]
        elif what == "tile":
            counts = Counter(self._unknown(i))
        else:
            cards = Counter(self.public_pool() if what == "public" else self.game.decks[deck][i:])  # type: ignore[union-attr]
            idx, total = self.cfg.encoder.card_index, sum(cards.values())
            return [(T + idx[c], cards[c] / total) for c in sorted(cards, key=idx.__getitem__)]
        total = sum(counts.values())
        ti = self.cfg.encoder.tile_index
        return [(ti[x], counts[x] / total) for x in sorted(counts, key=ti.__getitem__) if counts[x]]

    def public_pool(self) -> list[str]:
        """The cards still in the deck the public missions are laid from."""
        rs = self.cfg.rs
        assert rs.public is not None
        left = Counter(c.name for c in rs.decks[rs.public.deck])
        left.subtract(self.public)
        return list(left.elements())

    def _unknown(self, p: int) -> list[tuple[int, int]]:
        s = self.game.supply[p]  # type: ignore[union-attr]
        return s[self.bottom[p]: len(s) - self.top[p]]

    def chance(self, a: int) -> None:
        """Apply a chance outcome to the current draw."""
        need = self.need()
        assert need is not None
        what, i, deck = need
        T = len(self.cfg.tiles)
        if what in ("aside", "hand", "tile"):
            tile = self.cfg.tiles[a]
            if what == "tile":
                s = self.game.supply[i]  # type: ignore[union-attr]
                lo, hi = self.bottom[i], len(s) - self.top[i]
                j = lo + s[lo:hi].index(tile)  # the drawn tile goes to the top of the unknown part
                s[j], s[hi - 1] = s[hi - 1], s[j]
                self.top[i] += 1
            else:
                assert self.pool is not None
                self.pool[i][tile] -= 1
                (self.aside if what == "aside" else self.first)[i].append(tile)
                self.steps.pop()
                if not self.steps:
                    self._build()
            return
        card = self.cfg.cards[a - T]
        if what == "public":
            self.public.append(card)
            self.steps.pop()
            if not self.steps:
                self._build()
            return
        d = self.game.decks[deck]  # type: ignore[union-attr]
        j = d.index(card, i)
        d[i], d[j] = d[j], d[i]
        self.card_fixed[deck] = i + 1

    def decide(self, a: int) -> None:
        """A player's decision; a finished move waits for its draws (see need)."""
        assert self.table is not None
        done = self.table.step(a)
        if done is not None:
            self.done = done


class RebirthGame(pyspiel.Game):
    """The pyspiel game: parameters `rules`, `board`, `players`, `returns`."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**PARAMS, **(params or {})}
        cfg = config_for(p)
        self.cfg = cfg
        rules, n = cfg.rules, cfg.n
        tiles_per_seat = len(cfg.colour)
        questions = sum(1 for lm in range(len(rules.ruleset.t.landmark_hex)) if rules.ruleset.t.landmark_ability[lm])
        info = pyspiel.GameInfo(
            num_distinct_actions=cfg.spec.size,
            max_chance_outcomes=len(cfg.tiles) + len(cfg.cards),
            num_players=n,
            min_utility=-1.0 if cfg.returns == "win" else 0.0,
            max_utility=1.0 if cfg.returns == "win" else HIGH,
            utility_sum=None,
            max_game_length=n * (tiles_per_seat + questions),  # every tile placed, every question asked
        )
        super().__init__(GAME_TYPE, info, p)

    def new_initial_state(self) -> RebirthState:
        """A game before the deal (the first nodes are chance nodes)."""
        return RebirthState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of one seat's view (the same for every observation type: a seat never sees more)."""
        return Observer(self.cfg, params)


class RebirthState(pyspiel.State):
    """A pyspiel state over the engine's game."""

    def __init__(self, game: RebirthGame) -> None:
        super().__init__(game)
        self.core = Core(game.cfg)

    def current_player(self) -> int:
        """The seat to decide, CHANCE for a draw, or TERMINAL."""
        c = self.core
        if c.need() is not None:
            return pyspiel.PlayerId.CHANCE
        assert c.game is not None and c.table is not None
        if c.game.is_over():
            return pyspiel.PlayerId.TERMINAL
        return c.table.seat()

    def _legal_actions(self, player: int) -> list[int]:
        """The player's legal actions, ascending."""
        assert self.core.table is not None
        return self.core.table.legal_actions() if player == self.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The current draw's outcomes and probabilities."""
        return self.core.outcomes()

    def _apply_action(self, action: int) -> None:
        """A chance outcome or a player's decision."""
        self.core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        """An action in words: a draw, a placement at (q,r), a pass, an answer by position."""
        cfg = self.core.cfg
        if player == pyspiel.PlayerId.CHANCE:
            T = len(cfg.tiles)
            return f"draw {cfg.rs.tile_name(*cfg.tiles[action])}" if action < T else f"card {cfg.cards[action - T]!r}"
        what, i, h = cfg.spec.decode(action)
        if what == "place":
            q, r = cfg.rs.t.coords[h]
            return f"slot {i} on ({q},{r})"
        return f"{what} {i}"

    def is_terminal(self) -> bool:
        """Whether every tile has been placed."""
        c = self.core
        return not c.steps and c.game is not None and c.need() is None and c.game.is_over()

    def returns(self) -> list[float]:
        """Win (+1/-1) or final scores at the end; zeros before."""
        c = self.core
        if not self.is_terminal():
            return [0.0] * c.cfg.n
        g = c.game
        assert g is not None
        totals = g.final_scores(g.end_events())
        if c.cfg.returns == "score":
            return [float(x) for x in totals]
        winners, _ = g.winners(totals)
        return [1.0 if q in winners else -1.0 for q in range(c.cfg.n)]

    def __str__(self) -> str:
        """The whole state in one line (for OpenSpiel's clone and serialisation checks, and debugging)."""
        c = self.core
        name = c.cfg.rs.tile_name
        if c.game is None:
            dealt = [[name(*x) for x in c.aside[p] + c.first[p]] for p in range(c.cfg.n)]
            return f"dealing: {dealt} public {c.public}, {len(c.steps)} draws to go"
        g, t = c.game, c.table
        assert t is not None
        board = " ".join(f"{h}:{o}{name(k, v)}" for h, (o, k, v) in enumerate(zip(g.owner, g.tkind, g.tval, strict=True))
                         if k >= 0)
        turn = "over" if g.is_over() else f"p{t.seat()} {t.phase()}"
        return (f"move {g.move_index} {turn} | track {g.track} | hands {[[name(*x) for x in h] for h in g.hand]} | "
                f"supply {[len(s) for s in g.supply]} known {c.bottom}/{c.top} | set aside "
                f"{[len(s) for s in g.set_aside]} | cards {g.held} | board {board}")


class Observer:
    """OpenSpiel's observer interface over the encoder: `tensor`, `dict`, `set_from`, `string_from`."""

    def __init__(self, cfg: Config, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.cfg = cfg
        self.tensor = np.zeros(cfg.encoder.size, np.float32)
        self.dict = cfg.encoder.views(self.tensor)

    def set_from(self, state: RebirthState, player: int) -> None:
        """The player's view of the state, written into `tensor` (zeros while the deal is going on)."""
        c = state.core
        if c.table is None:
            self.tensor.fill(0.0)
            return
        self.cfg.encoder.fill(self.tensor, c.table, player)

    def string_from(self, state: RebirthState, player: int) -> str:
        """The player's view in words: scores, hand, whose decision."""
        c = state.core
        if c.table is None:
            return f"p{player}: dealing"
        g, rs = c.game, self.cfg.rs
        assert g is not None
        hand = ",".join(rs.tile_name(*x) for x in g.hand[player])
        to = "over" if g.is_over() else f"p{c.table.seat()} {c.table.phase()}"
        return f"p{player} move {g.move_index} scores {g.track} hand [{hand}] {to}"


pyspiel.register_game(GAME_TYPE, RebirthGame)
