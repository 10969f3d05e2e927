"""Agents behind one small interface: given the game and the legal hexes, pick one."""

from __future__ import annotations

import random
from typing import Protocol

from .engine import Game


class Agent(Protocol):
    """Chooses where the tile in hand goes. `hexes` is never empty (a pass needs no choice)."""

    name: str

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """The hex to place on."""
        ...


class RandomAgent:
    """Uniform over the legal hexes."""

    name = "random"

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """A uniformly random legal hex."""
        return hexes[rng.randrange(len(hexes))]


def immediate_points(game: Game, p: int, tile: tuple[int, int], h: int) -> int:
    """The points placing here scores at once for `p` (a probe on a quiet copy, with the fast engine)."""
    from .fast import compiled

    g = game.fork()
    compiled(game.rs).place(g, p, tile[0], tile[1], h)
    return g.track[p] - game.track[p]


class GreedyAgent:
    """The best immediate points; ties broken by the seeded random generator."""

    name = "greedy"

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """A hex with the most immediate points."""
        best, picks = -1, []
        for h in hexes:
            pts = immediate_points(game, p, tile, h)
            if pts > best:
                best, picks = pts, [h]
            elif pts == best:
                picks.append(h)
        return picks[rng.randrange(len(picks))]


def make_agent(name: str, **options: int) -> Agent:
    """An agent by name: random, greedy, mc (flat Monte Carlo), human."""
    name = name.strip().lower()
    if name == "random":
        return RandomAgent()
    if name == "greedy":
        return GreedyAgent()
    if name in ("mc", "montecarlo"):
        from .search import MonteCarloAgent

        return MonteCarloAgent(**options)
    if name == "human":
        from .human import HumanAgent

        return HumanAgent()
    from .errors import RebirthError, did_you_mean

    dym = did_you_mean(name, ["random", "greedy", "mc", "human"])
    raise RebirthError.single(f"unknown agent {name!r}" + (f"; did you mean {dym!r}?" if dym else "")
                              + " (agents: random, greedy, mc, human)")
