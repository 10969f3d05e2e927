"""Rebirth as a PettingZoo AEC environment, for any ruleset and board (`pip install 'rebirth-dsl[rl]'`).

    from rebirth_dsl.envs.aec import env
    e = env(rules="ireland", players=3)

Agents are `player_0`, `player_1`, ... in seat order (the game's players are named as `rebirth play`
names them: Ann, Bob, ...). The action numbering is `envs.table.Spec`; the observation is a dict of
`observation` (`envs.observe.Encoder`: only what that player may see) and `action_mask` (int8, all zeros
for an agent that does not decide now). Rewards come at the end of the game (`reward="win"`: +1 to each
winner, -1 to the others; `"score"`: the final score), or as the points happen (`"points"`: every
player's track points as they are scored, and the end-of-game points at the end, so that an agent's
rewards add up to its final score). `env.unwrapped.game` is the public API's `Game`: scores, explanation
and the record (`game.save("g.json")`, which `rebirth eval` scores the same).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rebirth_dsl.api import Game, Move, Rules, load
from rebirth_dsl.envs.observe import HIGH, Encoder
from rebirth_dsl.envs.table import Spec, Table, Turn, spec_for
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.present.report import render_table

REWARDS = ("win", "score", "points")


def end_rewards(game: Game, mode: str) -> list[float]:
    """Each seat's reward when the game ends: win (+1 each winner, -1 the others), the final score, or (for
    `points`, whose track points came move by move) the end-of-game points."""
    result = game.result()
    if mode == "win":
        return [1.0 if p["name"] in result["winners"] else -1.0 for p in result["players"]]
    if mode == "score":
        return [float(p["score"]) for p in result["players"]]
    eng = game.engine
    return [float(p["score"] - eng.track[q]) for q, p in enumerate(result["players"])]


def observation_space(encoder: Encoder, spec: Spec) -> spaces.Dict:
    """The observation space: the seat's view and the action mask."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, HIGH, (encoder.size,), np.float32),
        "action_mask": spaces.Box(0, 1, (spec.size,), np.int8),
    })


class RebirthAEC(AECEnv):
    """Rebirth for PettingZoo: one agent per seat, turn by turn, each decision one action."""

    metadata: dict[str, Any] = {"name": "rebirth_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: str | Rules | None = None, players: int = 2, board: str | None = None,
                 reward: str = "win", render_mode: str | None = None) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r}: one of {', '.join(REWARDS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: one of {self.metadata['render_modes']}")
        self.rules = rules if isinstance(rules, Rules) else load(rules, board)
        lo, hi = self.rules.players
        if not lo <= players <= hi:
            raise ValueError(f"{players} players: {self.rules.title} is for {lo} to {hi}")
        self.names = DEFAULT_NAMES[:players]
        self.reward_mode = reward
        self.render_mode = render_mode
        self.numbering: Spec = spec_for(self.rules.ruleset)
        self.encoder = Encoder(self.rules.ruleset, players, self.numbering)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        # made once: observation_space(agent) returns the same object every call, as PettingZoo seeds it
        self.observation_spaces = {a: observation_space(self.encoder, self.numbering) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.numbering.size) for a in self.possible_agents}
        self.game: Game | None = None
        self.table: Table | None = None
        self.seed: int | None = None

    def __str__(self) -> str:
        return self.metadata["name"]

    def observation_space(self, agent: str) -> spaces.Space:
        """The agent's observation space (one object per agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The agent's action space: Discrete(spec.size)."""
        return self.action_spaces[agent]

    # ----- the episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game dealt from `seed` as `rebirth play --seed` deals it (no seed: a random one)."""
        self.seed = int(seed) if seed is not None else secrets.randbits(31)
        self.game = self.rules.new_game(self.names, self.seed)
        self.game.keep_undo = False  # an environment never undoes: no copy per move
        self.table = Table(self.game.engine, self.numbering)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.table.seat()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What this agent sees now, and its action mask."""
        assert self.table is not None, "reset() first"
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self.numbering.size, dtype=np.int8)
        if self.table.seat() == seat and not self.table.game.is_over():
            mask[self.table.legal_actions()] = 1
        return {"observation": self.encoder.encode(self.table, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        """The deciding agent's action; an illegal one raises ValueError (env() ends the game instead)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.table is not None and self.game is not None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        eng = self.game.engine
        before = list(eng.track)
        done = self.table.step(int(action))
        if done is not None:
            self._play(done)
            if self.reward_mode == "points":
                for q, a in enumerate(self.possible_agents):
                    self.rewards[a] = float(eng.track[q] - before[q])
        if self.game.is_over:
            for q, r in enumerate(end_rewards(self.game, self.reward_mode)):
                self.rewards[self.possible_agents[q]] += r
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.table.seat()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def _play(self, turn: Turn) -> None:
        """A finished move, played through the public API (so the game's record holds it)."""
        assert self.table is not None and self.game is not None
        tile, hexq, choices = self.table.move_of(turn)
        self.game.play(Move(tile, hexq, choices))

    def render(self) -> str | None:
        """The score table and whose turn it is (`ansi` returns it, `human` prints it)."""
        if self.render_mode is None or self.game is None:
            return None
        assert self.table is not None  # made with the game, in reset()
        g = self.game
        head = "game over" if g.is_over else f"{g.to_move} ({self.agent_selection}) to decide: {self.table.phase()}"
        return render_table(g.result(), self.rules.ruleset.categories) + "\n" + head

    def close(self) -> None:
        """Nothing to release."""

    def state(self) -> np.ndarray:
        """Not provided: every observation is one seat's view (there is no global observation)."""
        raise NotImplementedError("Rebirth has hidden information: observe(agent) gives each seat's view")


def raw_env(**kwargs: Any) -> RebirthAEC:
    """The environment without wrappers (an illegal action raises ValueError)."""
    return RebirthAEC(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual wrappers: an illegal action ends the game with -1 for the
    agent that made it; actions out of range and calls out of order are refused."""
    e: AECEnv = RebirthAEC(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
