"""What a player cannot see, dealt anew: the one place the forecasts, hints, reviews and the search agent
decide which tiles and cards are hidden from a viewer (the rulebook's hidden hands, supplies, face-down
set-aside tiles and private mission cards) and re-deal them consistently with what the viewer knows."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from rebirth_dsl.runtime.game import Game


def _redeal(rng: random.Random, parts: Sequence[list[Any]]) -> None:
    """Shuffle the items of several lists together and deal them back, each list keeping its length."""
    pool = sorted(x for part in parts for x in part)  # sorted first: not even the random stream sees the order
    rng.shuffle(pool)
    i = 0
    for part in parts:
        part[:] = pool[i:i + len(part)]
        i += len(part)


def resample(g: Game, viewer: int, rng: random.Random) -> None:
    """Re-deal in place everything the viewer cannot see (see the module's docstring): the viewer's own supply keeps its
    tiles, in a new order; every other player's hand, supply and set-aside tiles are shuffled together; other
    players' private cards are drawn from the cards the viewer has not seen."""
    rs = g.rs
    for q in range(g.n_players):
        if q == viewer:
            _redeal(rng, [g.supply[q]] if rs.set_aside_visible else [g.supply[q], g.set_aside[q]])
        else:
            _redeal(rng, [g.hand[q], g.supply[q], g.set_aside[q]])
    deck_of = {c.name: d for d, cards in rs.decks.items() for c in cards}
    for name, deck in g.decks.items():
        slots = [(q, j) for q in range(g.n_players) if q != viewer for j, c in enumerate(g.held[q])
                 if deck_of.get(c) == name]
        pool = sorted(list(deck) + [g.held[q][j] for q, j in slots])
        rng.shuffle(pool)
        for q, j in slots:
            g.held[q][j] = pool.pop()
        deck[:] = pool


def hidden_info(g: Game, viewer: int) -> list[str]:
    """What `resample` draws anew for this viewer, in words."""
    rs, who = g.rs, g.players
    out = []
    own = len(g.supply[viewer]) + (0 if rs.set_aside_visible else len(g.set_aside[viewer]))
    if own:
        out.append(f"the order of {who[viewer]}'s supply ({len(g.supply[viewer])} tiles)" if rs.set_aside_visible
                   else f"{who[viewer]}'s supply and face-down set-aside tiles, shuffled together ({own} tiles)")
    for q in range(g.n_players):
        k = len(g.hand[q]) + len(g.supply[q]) + len(g.set_aside[q])
        if q != viewer and k:
            out.append(f"{who[q]}'s hand, supply and set-aside tiles, shuffled together ({k} tiles)")
    held = {who[q]: len(g.held[q]) for q in range(g.n_players) if q != viewer and g.held[q]}
    unseen = sum(len(d) for d in g.decks.values()) + sum(held.values())
    if held:
        cards = ", ".join(f"{name}'s {k}" for name, k in held.items())
        out.append(f"private cards ({cards}), drawn from the {unseen} cards {who[viewer]} has not seen")
    elif unseen:
        out.append(f"the order of the decks ({unseen} cards)")
    return out or ["nothing: every tile and card that matters is known"]
