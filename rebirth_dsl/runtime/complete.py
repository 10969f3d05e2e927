"""Positions set up by hand, completed so they can be played on.

A scenario record (or a position typed in a notation) says where tiles lie, who owns them and what the
players score; it need not say what each player still holds. Such a position cannot be played on: no
hand, no supply, no turn. `complete` deals what is left, consistently with what is known, and returns an
ordinary game whose hints and forecasts play to the end:

- each player's unplaced tiles are their colour's tiles (the mix less returns, S-C2, S-U3) less the tiles
  of theirs on the board and less what the position says they hold (hand, supply, set-aside tiles);
- what is not known is dealt from those unplaced tiles: the set-aside tiles first (S-U4's count), then
  the hand (the rules' hand size), then the supply, every pool sorted before it is shuffled, as the
  forecasts re-deal hidden information (play/forecast.py), so the deal depends on what is known and on
  the seed only;
- the decks are every card of the ruleset less the cards face up (I-M1) and less the cards known held;
  a player known to hold cards that are not named is dealt that many from them; the rest, shuffled, are
  the decks.

Hints and forecasts re-deal what their viewer cannot see before every playout anyway; what the deal
fixes is what the viewer is taken to hold (their own hand and cards when the position does not say),
and every dealt part is said (`Completion.dealt`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import colour_tiles

Tile = tuple[int, int]


@dataclass
class Known:
    """What a position says about what the players hold; None (or a missing entry): not known, dealt."""

    to_move: int
    hands: list[list[Tile] | None] = field(default_factory=list)  # filled up to the hand size when short
    supplies: list[list[Tile] | None] = field(default_factory=list)  # draw order, first tile drawn first
    set_aside: list[list[Tile] | None] = field(default_factory=list)
    held: list[list[str]] = field(default_factory=list)  # private cards known to be held
    unknown_held: list[int] = field(default_factory=list)  # how many more cards each holds, unnamed
    decks: dict[str, list[str]] | None = None  # the decks' order (top first) when known


@dataclass
class Completion:
    """The completed game and what was dealt to it, in words."""

    game: Game
    dealt: list[str]


def _at(xs: list[Any], q: int, default: Any = None) -> Any:
    return xs[q] if q < len(xs) else default


def placed_tiles(game: Game, q: int) -> Counter[Tile]:
    """The tiles of player q on the board, as (kind, value)."""
    out: Counter[Tile] = Counter()
    for k, hexes in enumerate(game.tiles_of[q]):
        for h in hexes:
            out[(k, game.tval[h])] += 1
    return out


def _deal(rng: random.Random, pool: list[Any]) -> list[Any]:
    """The pool sorted, then shuffled: the order depends on its contents and the generator only."""
    out = sorted(pool)
    rng.shuffle(out)
    return out


def complete(game: Game, known: Known, seed: int = 0) -> Completion:
    """A copy of `game` (a position: tiles placed, landmark owners and scores as they stand) that can be
    played on: hands, supplies, set-aside tiles and cards that `known` does not give are dealt from what
    is left (see the module's docstring), and `known.to_move` is to move."""
    rs, n = game.rs, game.n_players
    if not 0 <= known.to_move < n:
        raise RebirthError.single(f"no seat {known.to_move} to move: the position has {n} players")
    g = game.clone()
    g.scenario, g.declared_over = False, False
    rng = random.Random(seed)
    mix = Counter(colour_tiles(rs, n))
    dealt: list[str] = []
    who = game.players
    for q in range(n):
        left = mix - placed_tiles(game, q)
        over = placed_tiles(game, q) - mix
        if over:
            extra = ", ".join(f"{rs.tile_name(*t)} x{c}" for t, c in sorted(over.items()))
            raise RebirthError.single(f"{who[q]} has more tiles on the board than one colour has ({extra} too many "
                                      f"for {n} players): no deal can follow this position (--as-is: score it as it stands)")
        parts: dict[str, list[Tile] | None] = {"hand": _at(known.hands, q), "supply": _at(known.supplies, q),
                                               "set aside": _at(known.set_aside, q)}
        named = Counter(t for part in parts.values() if part for t in part)
        if named - left:
            extra = ", ".join(f"{rs.tile_name(*t)} x{c}" for t, c in sorted((named - left).items()))
            raise RebirthError.single(f"{who[q]} is said to hold {extra} more than is left unplaced of their "
                                      "colour's tiles")
        pool = _deal(rng, list((left - named).elements()))
        out: dict[str, list[Tile]] = {}
        said: list[str] = []
        for part, size in (("set aside", rs.set_aside), ("hand", rs.hand), ("supply", len(pool))):
            given = parts[part]
            if given is not None and part != "hand":
                out[part] = list(given)
                continue
            have = list(given or [])  # a hand named in part (a tile a command asks about) is filled up
            take = min(max(0, size - len(have)), len(pool))
            out[part], pool = have + pool[:take], pool[take:]
            if part == "hand" and take:
                said.append(f"hand {', '.join(rs.tile_name(*t) for t in out[part][len(have):])}")
            elif take:
                said.append(f"{part} {take} tile{'s' if take != 1 else ''}")
        if pool:  # every part was known and tiles are left over: out of the game, as set-aside tiles are
            out["set aside"] += pool
            said.append(f"{len(pool)} tile{'s' if len(pool) != 1 else ''} out of the game (set aside)")
        g.hand[q] = out["hand"]
        g.supply[q] = list(reversed(out["supply"]))  # the end of a supply list is its top
        g.set_aside[q] = out["set aside"]
        if said:
            dealt.append(f"{who[q]} " + ", ".join(said))
    dealt += _deal_cards(g, known, rng)
    if not g.hand[known.to_move]:
        raise RebirthError.single(f"{who[known.to_move]} is to move but has no tile left to play")
    g.turn = known.to_move
    return Completion(g, dealt)


def _deal_cards(g: Game, known: Known, rng: random.Random) -> list[str]:
    """The decks and the unnamed held cards, from every card the position does not show."""
    rs, who = g.rs, g.players
    for q in range(g.n_players):
        g.held[q] = list(_at(known.held, q, []))
    if known.decks is not None:
        g.decks = {name: list(cards) for name, cards in known.decks.items()}
    said: list[str] = []
    seen = Counter(c for q in range(g.n_players) for c in g.held[q]) + Counter(g.public)
    deck_of = {c.name: d for d, cards in rs.decks.items() for c in cards}
    for name, cards in rs.decks.items():
        if known.decks is not None and name in known.decks:
            continue
        unseen = Counter(c.name for c in cards)
        for c, k in seen.items():
            if deck_of.get(c) == name:
                unseen[c] -= min(k, unseen[c])
        g.decks[name] = _deal(rng, list(unseen.elements()))
    dealt_decks = [name for name in rs.decks if known.decks is None or name not in known.decks]
    first = next(iter(rs.decks), None)
    for q in range(g.n_players):
        k = _at(known.unknown_held, q, 0)
        if not k:
            continue
        deck = g.decks.get(first, []) if first is not None else []
        if len(deck) < k:
            raise RebirthError.single(f"{who[q]} is said to hold {k} unnamed cards; only {len(deck)} are unseen")
        g.held[q] += [deck.pop() for _ in range(k)]
        said.append(f"{who[q]} {k} card{'s' if k != 1 else ''}")
    return said + [f"deck {name} {len(g.decks[name])} cards" for name in dealt_decks if g.decks[name]]


def known_of_record(record: Any, game: Game, to_move: int, tile: Tile | None = None) -> Known:
    """What a scenario record says its players hold: the supplies, set-aside tiles and held cards its setup
    names (the rest is dealt), and `tile` in the hand of the player to move when a command names it."""
    rs, n = game.rs, game.n_players
    s = record.setup
    players = list(record.players)
    supplies: list[list[Tile] | None] = [None] * n
    aside: list[list[Tile] | None] = [None] * n
    for q, p in enumerate(players):
        if s.supply is not None and p in s.supply:
            supplies[q] = [rs.parse_tile(x) for x in s.supply[p]]
        if s.set_aside is not None and p in s.set_aside:
            aside[q] = [rs.parse_tile(x) for x in s.set_aside[p]]
    hands: list[list[Tile] | None] = [None] * n
    if tile is not None:
        hands[to_move] = [tile]
    named = [list((s.missions_held or {}).get(p, [])) for p in players]
    decks: dict[str, list[str]] | None = None
    if s.decks is not None or s.missions is not None:  # the record gives the decks: what its moves drew is known
        decks = {k: list(v) for k, v in game.decks.items()}
        return Known(to_move, hands, supplies, aside, [list(h) for h in game.held], [0] * n, decks)
    # the moves drew from a deck the record does not give (dealt from its seed): how many is known, not which
    unknown = [max(0, len(game.held[q]) - len(named[q])) for q in range(n)]
    return Known(to_move, hands, supplies, aside, named, unknown, decks)


def render_dealt(c: Completion, seed: int) -> str:
    """The dealt parts as one line."""
    return f"dealt (seed {seed}): " + ("; ".join(c.dealt) if c.dealt else "nothing: the position says it all")
