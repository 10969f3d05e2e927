"""Rebirth as a single-agent Gymnasium environment: one seat learns, the built-in agents play the others
(`pip install 'rebirth-dsl[rl]'`).

    from rebirth_dsl.envs.single import RebirthEnv
    e = RebirthEnv(rules="scotland", players=2, seat=0, opponents="greedy")

The actions, observations and rewards are those of the PettingZoo environment (`envs.aec`), for the
learning seat. The opponents draw from `seat_rng(seed, seat)` as `rebirth play --seed` does, so an
episode in which the learner plays as an agent would is the game `rebirth play` makes with those agents.
An action the mask does not allow ends the episode with `illegal_reward` (`info["illegal"]` says why);
`action_masks()` gives the mask for libraries that ask for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from rebirth_dsl.api import Game, Move, Rules, load
from rebirth_dsl.envs.aec import REWARDS, end_rewards, observation_space
from rebirth_dsl.envs.observe import Encoder
from rebirth_dsl.envs.table import AgentPlayer, Table, spec_for
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.present.report import render_table


class RebirthEnv(gymnasium.Env):
    """One seat of Rebirth against built-in agents (`random`, `greedy`, `mc`) in the other seats."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, rules: str | Rules | None = None, players: int = 2, seat: int = 0,
                 opponents: str | Sequence[str] = "greedy", board: str | None = None, reward: str = "win",
                 illegal_reward: float = -1.0, render_mode: str | None = None) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r}: one of {', '.join(REWARDS)}")
        self.rules = rules if isinstance(rules, Rules) else load(rules, board)
        lo, hi = self.rules.players
        if not lo <= players <= hi:
            raise ValueError(f"{players} players: {self.rules.title} is for {lo} to {hi}")
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat}: seats are 0 to {players - 1}")
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"{len(names)} opponents for {players - 1} other seats")
        for a in names:
            make_agent(a)  # an unknown name is refused now, with the list of agents
        self.opponent_names = names
        self.players, self.seat = players, seat
        self.reward_mode, self.illegal_reward = reward, float(illegal_reward)
        self.render_mode = render_mode
        self.numbering = spec_for(self.rules.ruleset)
        self.encoder = Encoder(self.rules.ruleset, players, self.numbering)
        self.observation_space = observation_space(self.encoder, self.numbering)
        self.action_space = spaces.Discrete(self.numbering.size)
        self.game: Game | None = None
        self.table: Table | None = None
        self._others: dict[int, AgentPlayer] = {}

    # ----- the episode ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game dealt from `seed` (else from the environment's generator); the opponents play until
        the learning seat decides."""
        super().reset(seed=seed)
        game_seed = int(seed) if seed is not None else int(self.np_random.integers(2**31))
        self.game = self.rules.new_game(DEFAULT_NAMES[:self.players], game_seed)
        self.game.keep_undo = False
        self.table = Table(self.game.engine, self.numbering)
        others = [q for q in range(self.players) if q != self.seat]
        self._others = {q: AgentPlayer(make_agent(a), game_seed, q)
                        for q, a in zip(others, self.opponent_names, strict=True)}
        self._track = 0
        self._opponents_play()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """The learning seat's action; then the opponents play until it decides again or the game ends."""
        assert self.table is not None and self.game is not None, "reset() first"
        if self.game.is_over:
            raise RuntimeError("the episode is over: reset() first")
        a = int(action)
        if a not in self.table.legal_actions():
            info = self._info()
            info["illegal"] = self.table.why_illegal(a)
            return self._obs(), self.illegal_reward, True, False, info
        done = self.table.step(a)
        if done is not None:
            self.game.play(Move(*self.table.move_of(done)))
            self._opponents_play()
        reward = 0.0
        if self.reward_mode == "points":
            track = self.game.engine.track[self.seat]
            reward, self._track = float(track - self._track), track
        over = self.game.is_over
        if over:
            reward += end_rewards(self.game, self.reward_mode)[self.seat]
        return self._obs(), reward, over, False, self._info()

    def _opponents_play(self) -> None:
        """The built-in agents decide until the learning seat is to decide, or the game is over."""
        assert self.table is not None and self.game is not None
        t = self.table
        while not self.game.is_over and t.seat() != self.seat:
            done = t.step(self._others[t.seat()].action(t))
            if done is not None:
                self.game.play(Move(*t.move_of(done)))

    def _obs(self) -> dict[str, np.ndarray]:
        assert self.table is not None
        return {"observation": self.encoder.encode(self.table, self.seat), "action_mask": self.action_masks().astype(np.int8)}

    def _info(self) -> dict[str, Any]:
        assert self.table is not None
        return {"action_mask": self.action_masks(), "phase": self.table.phase()}

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (all False once the game is over)."""
        assert self.table is not None
        mask = np.zeros(self.numbering.size, dtype=bool)
        if not self.table.game.is_over():
            mask[self.table.legal_actions()] = True
        return mask

    def render(self) -> str | None:
        """The score table (`ansi`)."""
        if self.render_mode != "ansi" or self.game is None:
            return None
        return render_table(self.game.result(), self.rules.ruleset.categories)


ENV_ID = "rebirth_dsl/Rebirth-v0"
if ENV_ID not in gymnasium.registry:  # importing twice (or reloading) must not register twice
    gymnasium.register(id=ENV_ID, entry_point="rebirth_dsl.envs.single:RebirthEnv")
