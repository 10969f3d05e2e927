"""Agents behind one small interface: given the game and the legal hexes, pick one."""

from __future__ import annotations

import random
from typing import Any, Protocol

from rebirth_dsl.play.points import points_for
from rebirth_dsl.runtime.game import Game


class Agent(Protocol):
    """Chooses where the tile in hand goes. `hexes` is never empty (a pass needs no choice)."""

    name: str

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """The hex to place on."""
        ...


def pick(rng: random.Random, n: int) -> int:
    """A uniform index below n from one float draw: the generated playout loop draws the same way, so a
    random agent and a fast playout from the same seed make the same game."""
    return int(rng.random() * n)


def random_answer(rng: random.Random) -> Any:
    """An ability answerer for random play: always use the ability, any possible option."""

    def answer(game: Game, p: int, lm: int, decl: Any, key: str, options: list[str] | None) -> Any:
        return {key: options[rng.randrange(len(options))]} if options else True

    return answer


def smart_answer(game: Game, p: int, lm: int, decl: Any, key: str, options: list[str] | None) -> Any:
    """A sensible ability answer: keep or take the strongest tile (a hidden set-aside tile is taken blind,
    I-U1), and double the richest public mission nobody has fulfilled yet."""
    if not options:
        return True
    if key == "take" and not game.rs.set_aside_visible:
        return {key: options[(game.move_index * 7 + p) % len(options)]}  # blind, but reproducible
    if key in ("take", "keep"):
        return {key: max(options, key=lambda o: (":" in o, o))}
    if key == "double":
        cards = game.cards
        return {key: max(options, key=lambda c: (not game.public_by[c], cards[c].points, c))}
    return {key: options[0]}


def pick_tile(agent: Agent, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
    """Which tile of a hand of several to place (I-R1 can give a second tile)."""
    hand = game.hand[p]
    if len(hand) == 1:
        return hand[0]
    chooser = getattr(agent, "choose_tile", None)
    if chooser is not None:
        return chooser(game, p, rng)
    return hand[pick(rng, len(hand))]


def pick_choices(agent: Agent, game: Game, p: int, h: int, rng: random.Random) -> dict[str, Any]:
    """Answers for every ability this placement triggers, recorded in the move."""
    out: dict[str, Any] = {}
    answer = getattr(agent, "answer", None) or random_answer(rng)
    for lm, _ in game.pending_abilities(p, h):
        decl, key, options = game.ability_options(p, lm)
        out[game.t.landmark_name[lm]] = answer(game, p, lm, decl, key, options)
    return out


class RandomAgent:
    """Uniform over the legal hexes."""

    name = "random"

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """A uniformly random legal hex."""
        return hexes[pick(rng, len(hexes))]


def immediate_points(game: Game, p: int, tile: tuple[int, int], h: int) -> int:
    """The points placing here scores at once for `p`, read off the position (play/points.py; always equal
    to the probe `points.probe_points` on a copy)."""
    return points_for(game.rs).one(game, p, tile, h)


class GreedyAgent:
    """The best immediate points; ties broken by the seeded random generator."""

    name = "greedy"
    answer = staticmethod(smart_answer)

    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        """The hand tile whose best placement scores most."""
        best, pick = None, game.hand[p][0]  # None, not -1: a rules file may make every placement cost points
        scorer = points_for(game.rs)
        for tile in dict.fromkeys(game.hand[p]):
            hexes, _ = game.legal_hexes(tile[0])
            pts = max(scorer.many(game, p, tile, hexes), default=0)
            if best is None or pts > best:
                best, pick = pts, tile
        return pick

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """A hex with the most immediate points."""
        best, picks = None, []  # None, not -1: with only negative points there must still be a pick
        # all hexes at once: the scorer shares its per-position work; same order, so the same tie draw
        for h, pts in zip(hexes, points_for(game.rs).many(game, p, tile, hexes), strict=True):
            if best is None or pts > best:
                best, picks = pts, [h]
            elif pts == best:
                picks.append(h)
        return picks[rng.randrange(len(picks))]


def decide(agent: Agent, game: Game, p: int, rng: random.Random) -> tuple[tuple[int, int], int | None, dict[str, Any]]:
    """The seat's whole decision: which hand tile, which hex (None: passed, no hex is legal) and the answers
    to the questions the placement asks."""
    tile = pick_tile(agent, game, p, rng)
    hexes, _ = game.legal_hexes(tile[0])
    h = agent.choose(game, p, tile, hexes, rng) if hexes else None
    choices = pick_choices(agent, game, p, h, rng) if h is not None else {}
    return tile, h, choices


def move_entry(game: Game, p: int, tile: tuple[int, int], h: int | None, choices: dict[str, Any]) -> dict[str, Any]:
    """A decision as a game record's move."""
    move: dict[str, Any] = {"player": game.players[p], "tile": game.rs.tile_name(*tile),
                            "hex": list(game.t.coords[h]) if h is not None else None}
    if choices:
        move["choices"] = choices
    return move
