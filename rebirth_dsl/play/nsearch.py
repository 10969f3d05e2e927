"""The `search` agent: the most promising moves compared by determinised playouts on the native engine.

For the seat to move, `playouts` determinisations are dealt from what that seat may know, by the
forecast's own `resample` (play/forecast.py: the other seats' hands, supplies and set-aside tiles shuffled
together and dealt back, the seat's own supply order, the other seats' private cards drawn from every card
it has not seen, the decks' order; each pool sorted first, so nothing depends on how the hidden tiles and
cards really lie). The candidate moves (tile, hex) are the `width` best by the one-ply agent's worth
(play/evaluate.py; `width=0`: every legal move), and a tile with no legal hex is a pass (S-P5). One native
call (`rb_search`, docs/native.md) plays every candidate on every determinisation and the game on from
there with the same playout seed per determinisation (common random numbers: the moves are compared on the
same futures), by the playout `policy`: `points` (each move the best by immediate points of `sample`
hexes drawn at random, the default) or `random`. The move with the best mean final margin (own final score
less the best other seat's) is played; among equal means, the one the worth ranks first.

Options: `search:playouts=24:width=6:policy=points:sample=3`. The same seed gives the same moves. It runs
only on the native engine: without a C compiler (or cffi), for a ruleset the generator cannot express, or
on a position the engine refuses, it stops with an error saying why (no Python fallback: at Python speed
the budget would cost seconds a move). The root move's own ability questions are answered at random in the
playouts (as the playouts answer theirs); the move actually played answers them as greedy does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.agents import smart_answer
from rebirth_dsl.play.evaluate import evaluation_for
from rebirth_dsl.play.hidden import resample
from rebirth_dsl.runtime.game import Game

POLICIES = {"random": 0, "points": None}  # policy -> hexes drawn per playout move (None: `sample`)


@dataclass
class NativeSearchAgent:
    """Flat determinised search over the worth's best moves, played out natively."""

    playouts: int = 24  # determinisations a move; every candidate is played out once on each
    width: int = 6  # candidates: the moves the one-ply worth ranks best (0: every legal move)
    policy: str = "points"  # the playouts' moves: points (best immediate points of `sample` hexes) or random
    sample: int = 3
    name: str = "search"
    answer = staticmethod(smart_answer)
    # choose_tile's whole decision for `choose`: the game itself (not its id, which a later game may reuse),
    # the move index, the tile and the hex (None: a pass, and `choose` is not called)
    _chosen: tuple[Game, int, tuple[int, int], int | None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise RebirthError.single(f"agent 'search': policy {self.policy!r}: one of {', '.join(POLICIES)}")
        for key in ("playouts", "width", "sample"):
            value = getattr(self, key)
            if not isinstance(value, int) or value < (1 if key == "playouts" else 0):
                raise RebirthError.single(f"agent 'search': {key}={value!r} must be a whole number"
                                          + (" of at least 1" if key == "playouts" else " of at least 0"))

    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        """The tile of the best move over every tile in hand (the hex is kept for `choose`)."""
        tile, h = self.search(game, p, list(dict.fromkeys(game.hand[p])), rng)
        self._chosen = (game, game.move_index, tile, h)
        return tile

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """The hex of the best move with this tile (the one `choose_tile` found, when it chose this tile)."""
        got, self._chosen = self._chosen, None
        if got is not None and got[0] is game and got[1] == game.move_index and got[2] == tile and got[3] in hexes:
            return got[3]
        if len(hexes) == 1:
            return hexes[0]
        _, h = self.search(game, p, [tile], rng)
        return hexes[0] if h is None else h

    def search(self, game: Game, p: int, tiles: list[tuple[int, int]],
               rng: random.Random) -> tuple[tuple[int, int], int | None]:
        """The best (tile, hex) of these tiles' moves (hex None: a pass), by mean playout margin."""
        cands, totals = self.evaluate(game, p, tiles, rng)
        best = max(range(len(cands)), key=lambda c: (totals[c], -c))  # equal means: the worth's order
        return cands[best]

    def evaluate(self, game: Game, p: int, tiles: list[tuple[int, int]],
                 rng: random.Random) -> tuple[list[tuple[tuple[int, int], int | None]], list[int]]:
        """The candidate moves, the worth's best first, and each one's summed playout margin (one draw from
        `rng`; no playout when there is a single candidate)."""
        eng = _engine(game)
        ev = evaluation_for(game.rs)
        ranked: list[tuple[float, int, tuple[int, int], int]] = []
        passes: list[tuple[tuple[int, int], int | None]] = []
        for tile in tiles:
            hexes, _ = game.legal_hexes(tile[0])
            if not hexes:
                passes.append((tile, None))
                continue
            for h, val in zip(hexes, ev.placements(game, p, tile, hexes, prune=True), strict=True):
                ranked.append((-val, len(ranked), tile, h))
        ranked.sort()  # the best worth first; among equals, the order of the hand and of the legal hexes
        cands = [(t, h) for _, _, t, h in (ranked[:self.width] if self.width else ranked)] + passes
        if len(cands) == 1:
            return cands, [0]

        seed = rng.getrandbits(62)
        dets = []
        for j in range(self.playouts):
            g = game.fork()
            resample(g, p, random.Random(seed + j))  # what p cannot see, dealt again; p's own hand is kept
            dets.append(g)
        hand = game.hand[p]
        pairs = [(hand.index(t), -1 if h is None else h) for t, h in cands]
        sample = self.sample if POLICIES[self.policy] is None else 0
        margins, _ = eng.search(dets, p, pairs, seed, sample)
        return cands, [sum(m[c] for m in margins) for c in range(len(cands))]


def _engine(game: Game) -> Any:
    """The native engine for this game, or a clear error saying why there is none."""
    if game.scenario:
        raise RebirthError.single("agent 'search' plays games, not scenarios (it needs the hands and supplies)")
    from rebirth_dsl import native

    eng = native.engine(game.rs, notice=False)
    if eng is None:
        got = game.rs.derived.native  # engine() keeps the reason it cannot run there
        why = got if isinstance(got, str) else "it could not be built"
        raise RebirthError.single(f"agent 'search' needs the native engine (rebirth_dsl.native), which cannot "
                                  f"run for {game.rs.title}: {why}")
    return eng
