"""Agents by name: the one place that knows every agent, so agents never import each other in a circle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rebirth_dsl.errors import RebirthError, did_you_mean
from rebirth_dsl.play.agents import Agent, GreedyAgent, RandomAgent
from rebirth_dsl.play.human import HumanAgent
from rebirth_dsl.play.search import MonteCarloAgent

# name -> (factory taking the agent options, one line for help texts)
AGENTS: dict[str, tuple[Callable[..., Any], str]] = {
    "random": (lambda **o: RandomAgent(), "uniform over the legal hexes"),
    "greedy": (lambda **o: GreedyAgent(), "the most immediate points, seeded ties"),
    "mc": (lambda **o: MonteCarloAgent(**o), "flat Monte Carlo: random playouts from the best hexes"),
    "human": (lambda **o: HumanAgent(), "asks on the terminal"),
}
ALIASES = {"montecarlo": "mc"}


def make_agent(name: str, **options: int) -> Agent:
    """An agent by name (see AGENTS); an unknown name is refused with the list and a suggestion."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in AGENTS:
        return AGENTS[key][0](**options)
    dym = did_you_mean(key, list(AGENTS))
    raise RebirthError.single(f"unknown agent {name!r}" + (f"; did you mean {dym!r}?" if dym else "")
                              + f" (agents: {', '.join(AGENTS)})")
