"""What one player may see, as a flat float32 vector (numpy): the observation of every environment.

Seats are relative to the observer (0 is the observer, 1 the next player clockwise, ...), so one policy
can play any seat. What is public: the board (every tile's owner, kind and value), landmark owners and
the landmarks each player has touched, the track scores, how many tiles each player holds in hand,
supply and set-aside, the tiles each player passed, how many cards each holds, the face-up public
missions with who fulfilled them and the doubling markers on them, the size of each deck, whose turn it
is and the move number. What is the observer's own: the tiles in hand by slot, the set-aside tiles when
the rules let their owner look at them (`set aside N visible`), the tiles not yet seen (supply and hidden
set-aside together, as counts: their order is unknown), the cards held, and while answering a question,
the placement it belongs to and the tiles a "draw N keep 1" shows. Never in it: another player's hand,
supply, set-aside or cards, any supply's order, the order of a deck, or which of one's own unseen tiles
are set aside face down.
"""

from __future__ import annotations

import numpy as np

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.envs.table import Spec, Table
from rebirth_dsl.runtime.game import EMPTY, NEUTRAL

HIGH = 10_000.0  # the observation's upper bound: above any count or score a game reaches
PHASES = ("place", "take", "keep", "double")


class Encoder:
    """The observation layout of one ruleset, board and player count, and the encoding itself."""

    def __init__(self, rs: Ruleset, n_players: int, spec: Spec) -> None:
        t, n = rs.t, n_players
        self.rs, self.n, self.spec = rs, n, spec
        self.tiles = sorted(set(rs.mix))  # tile types: (kind id, value)
        self.tile_index = {x: i for i, x in enumerate(self.tiles)}
        # card names, each once (a deck may hold several cards of one name: they are the same card)
        self.cards = list(dict.fromkeys(c.name for deck in sorted(rs.decks) for c in rs.decks[deck]))
        self.card_index = {c: i for i, c in enumerate(self.cards)}
        self.decks = sorted(rs.decks)
        n_pub = rs.public.count if rs.public is not None else 0
        H, L, T, C = t.n, len(t.landmark_hex), len(self.tiles), len(self.cards)
        # (name, shape): the named views a reader can take of the flat vector (see `views`)
        self.segments: list[tuple[str, tuple[int, ...]]] = [
            ("hex_occupant", (H, 2 + n)),  # empty, neutral, then seats relative to the observer
            ("hex_tile", (H, len(rs.tile_kinds))),
            ("hex_value", (H,)),
            ("landmark_owner", (L, 1 + n)),  # nobody, then relative seats
            ("landmark_touched", (L, n)),
            ("score", (n,)),  # the track
            ("counts", (n, 4)),  # tiles in hand, in supply, set aside; cards held
            ("passed", (n, T)),
            ("doubled", (n, n_pub)),  # the factor of each player's marker on each public position
            ("public_card", (n_pub, C)),
            ("public_done", (n_pub, n)),
            ("deck_size", (len(self.decks),)),
            ("hand", (spec.slots, T)),
            ("set_aside", (rs.set_aside, T)),  # own, when visible to its owner
            ("unseen", (T,)),  # own supply and hidden set-aside, as counts
            ("cards", (C,)),  # own cards, counted by name
            ("to_move", (n,)),
            ("phase", (len(PHASES),)),  # own decision only
            ("pending", (spec.slots + H,)),  # own placement waiting for answers: slot, hex
            ("drawn", (spec.keep, T)),  # own "draw N keep" tiles, in draw order
            ("move", (1,)),
        ]
        self.offsets: dict[str, tuple[int, int]] = {}
        at = 0
        for name, shape in self.segments:
            size = int(np.prod(shape)) if shape else 1
            self.offsets[name] = (at, at + size)
            at += size
        self.size = at

    def views(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """The named, reshaped views of a flat observation (writing to a view writes to the vector)."""
        return {name: vec[a:b].reshape(shape) for (name, shape), (a, b) in zip(self.segments, self.offsets.values(),
                                                                              strict=True)}

    def encode(self, table: Table, observer: int) -> np.ndarray:
        """A new observation of the table for one seat."""
        out = np.zeros(self.size, dtype=np.float32)
        self.fill(out, table, observer)
        return out

    def fill(self, out: np.ndarray, table: Table, observer: int) -> None:
        """Write the observation of the table for one seat into `out` (all of it)."""
        out.fill(0.0)
        v = self.views(out)
        g, rs, n, me = table.game, self.rs, self.n, observer
        ti = self.tile_index
        rel = [(q - me) % n for q in range(n)]
        owner = np.asarray(g.owner)
        col = np.where(owner == EMPTY, 0, np.where(owner == NEUTRAL, 1, 2 + (owner - me) % n))
        v["hex_occupant"][np.arange(len(col)), col] = 1.0
        kinds = np.asarray(g.tkind)
        placed = np.flatnonzero(kinds >= 0)
        v["hex_tile"][placed, kinds[placed]] = 1.0
        v["hex_value"][:] = g.tval
        lo = v["landmark_owner"]
        for lm, o in enumerate(g.lm_owner):
            lo[lm, 0 if o < 0 else 1 + rel[o]] = 1.0
        touched = v["landmark_touched"]
        counts, passed = v["counts"], v["passed"]
        for q in range(n):
            r = rel[q]
            for lm in g.touched[q]:
                touched[lm, r] = 1.0
            v["score"][r] = g.track[q]
            counts[r] = (len(g.hand[q]), len(g.supply[q]), len(g.set_aside[q]), len(g.held[q]))
            for i, c in enumerate(g.public):
                v["doubled"][r, i] = _marker(g.doubled[q], c)
            for x in table.passed.get(q, ()):  # the engine counts passes; the table keeps which tiles
                passed[r, ti[x]] += 1
        for i, c in enumerate(g.public):
            v["public_card"][i, self.card_index[c]] = 1.0
            for q in g.public_by[c]:
                v["public_done"][i, rel[q]] = 1.0
        for i, d in enumerate(self.decks):
            v["deck_size"][i] = len(g.decks.get(d, ()))
        # the observer's own
        for s, x in enumerate(g.hand[me]):
            v["hand"][s, ti[x]] = 1.0
        if rs.set_aside_visible:
            for s, x in enumerate(g.set_aside[me]):
                v["set_aside"][s, ti[x]] = 1.0
        unseen = v["unseen"]
        for x in g.supply[me]:
            unseen[ti[x]] += 1
        if not rs.set_aside_visible:
            for x in g.set_aside[me]:
                unseen[ti[x]] += 1
        for c in g.held[me]:
            v["cards"][self.card_index[c]] += 1.0
        if not g.is_over():
            v["to_move"][rel[table.seat()]] = 1.0
        if table.seat() == me and not g.is_over():
            phase = table.phase()
            v["phase"][PHASES.index(phase)] = 1.0
            turn = table.turn
            if turn is not None:
                v["pending"][turn.slot] = 1.0
                if turn.h is not None:
                    v["pending"][self.spec.slots + turn.h] = 1.0
                if phase == "keep":
                    k = table.keep_count()
                    for i, x in enumerate(reversed(g.supply[me][-k:] if k else [])):
                        v["drawn"][i, ti[x]] = 1.0
        v["move"][0] = g.move_index


def _marker(doubled: object, card: str) -> float:
    """The factor of a player's doubling marker on a card (0: none). The engine keeps a dict per player
    (card -> factor); a single card name is read as a marker of 2 (the older form)."""
    if isinstance(doubled, dict):
        return float(doubled.get(card, 0))
    return 2.0 if doubled == card else 0.0
