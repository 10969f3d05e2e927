"""Agents by name: the one place that knows every agent, so agents never import each other in a circle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rebirth_dsl.errors import RebirthError, did_you_mean
from rebirth_dsl.play.agents import Agent, GreedyAgent, RandomAgent
from rebirth_dsl.play.evaluate import OnePlyAgent
from rebirth_dsl.play.human import HumanAgent
from rebirth_dsl.play.ismcts import ISMCTSAgent
from rebirth_dsl.play.lookahead import LookaheadAgent
from rebirth_dsl.play.nsearch import POLICIES, NativeSearchAgent
from rebirth_dsl.play.search import MonteCarloAgent

# name -> (factory taking the agent options, one line for help texts)
AGENTS: dict[str, tuple[Callable[..., Any], str]] = {
    "random": (lambda **o: RandomAgent(), "uniform over the legal hexes"),
    "greedy": (lambda **o: GreedyAgent(), "the most immediate points, seeded ties"),
    "oneply": (lambda **o: OnePlyAgent(), "one ply on the whole worth: track, end block now, missions by progress"),
    "lookahead": (lambda **o: LookaheadAgent(**o), "the one-ply's best hexes, each played on a round by one-ply moves "
                  "(width=, replies=, samples=)"),
    "mc": (lambda **o: MonteCarloAgent(**o), "flat Monte Carlo: random playouts from the best hexes"),
    "ismcts": (lambda **o: ISMCTSAgent(**o), "information-set tree search over determinisations (time=s)"),
    "search": (lambda **o: NativeSearchAgent(**o), "the worth's best moves compared by determinised native playouts "
               "(playouts=, width=, policy=points|random, sample=)"),
    "human": (lambda **o: HumanAgent(), "asks on the terminal"),
}
ALIASES = {"montecarlo": "mc"}
# The lab's default (`rebirth simulate`, `rebirth compare` without --agents): the strongest agent that plays
# 1,000 three-player games of Scotland in under a minute on two cores (tools/bench_agents.py; README's
# agent ladder). `--backend native` plays random agents only, so there the default is random.
DEFAULT_AGENT = "oneply"
DEFAULT_OPPONENT = "oneply"  # the web app's preselected opponent (rebirth_dsl/web: the new-game form, a branch)


def default_agents(spec: str | None, backend: str = "local") -> str:
    """The --agents the lab plays: the one given, else DEFAULT_AGENT (random on the native backend)."""
    if spec:
        return spec
    return "random" if backend == "native" else DEFAULT_AGENT
BACKENDS = ("auto", "native", "python")  # `backend=`: where mc and ismcts run their random playouts


def parse_options(spec: str) -> tuple[str, dict[str, int | float | str]]:
    """`ismcts:time=0.05:width=12` -> ('ismcts', {'time': 0.05, 'width': 12}): options after the name,
    each `key=number`, separated by colons (commas already separate the seats in --agents); the word
    options are `backend=auto|native|python` (mc and ismcts: the engine of their random playouts) and
    `policy=points|random` (search: its playouts' moves)."""
    name, *parts = spec.strip().split(":")
    options: dict[str, int | float | str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if key.strip() == "backend" and eq:  # the one word-valued option: the playout engine (mc, ismcts)
            if value.strip() not in BACKENDS:
                raise RebirthError.single(f"agent {spec!r}: backend is one of {', '.join(BACKENDS)}")
            options["backend"] = value.strip()
            continue
        if key.strip() == "policy" and eq:  # the search agent's playout policy, a word
            if value.strip() not in POLICIES:
                raise RebirthError.single(f"agent {spec!r}: policy is one of {', '.join(POLICIES)}")
            options["policy"] = value.strip()
            continue
        try:
            options[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else float(value)
        except ValueError:
            eq = ""
        if not eq or not key.strip():
            raise RebirthError.single(f"agent {spec!r}: options are written key=number after the name, e.g. "
                                      "ismcts:time=0.05 or mc:budget=200")
    return name, options


def make_agent(name: str, **options: int | float | str) -> Agent:
    """An agent by name (see AGENTS), with options written after it (`mc:budget=200`) or passed as
    keywords; an unknown name or option is refused with the list and a suggestion."""
    name, written = parse_options(name)
    options = {**written, **options}
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in AGENTS:
        try:
            return AGENTS[key][0](**options)
        except TypeError as e:  # an option the agent does not take
            raise RebirthError.single(f"agent {key!r}: {e}") from None
    dym = did_you_mean(key, list(AGENTS))
    raise RebirthError.single(f"unknown agent {name!r}" + (f"; did you mean {dym!r}?" if dym else "")
                              + f" (agents: {', '.join(AGENTS)})")
