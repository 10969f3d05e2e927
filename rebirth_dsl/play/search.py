"""A flat Monte Carlo agent: each promising hex is tried in random playouts to the end of the game.

Playouts run on the generated fast engine. The future is not known to a player, so every playout first
reshuffles every player's supply and the decks (a determinisation), then plays uniformly random moves
to the end and scores the game: the hex with the best mean margin (own final score minus the best
other player's) is chosen. It is not blind to everything hidden: the other players' tiles in hand and private
mission cards stay as they really are, and so do every player's set-aside tiles; play/ismcts.py re-deals
all of those.

`backend` (an agent option, `mc:backend=native`): the engine of the playouts. `auto` (the default) runs
them natively (rebirth_dsl.native, C through cffi) when that can run, else on the Python engine exactly as
before; `native` requires it; `python` never uses it. Natively, each candidate's playouts are one
`random_playouts(..., redeal=True)` call from the position after the move, with a seed drawn from the
agent's generator: the same reshuffle of supplies and decks, then uniformly random moves, so the same
seed gives the same moves for a given backend (the two backends draw different random numbers).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rebirth_dsl.accel.public import warm_fork
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.agents import GreedyAgent, immediate_points, smart_answer
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.rules.turn import end_turn
from rebirth_dsl.runtime.game import Game


@dataclass
class MonteCarloAgent:
    """Flat Monte Carlo over playouts, with a budget of playouts per move."""

    budget: int = 96
    candidates: int = 8
    backend: str = "auto"  # the playouts' engine: auto (native when it can run), native or python
    name: str = "mc"
    answer = staticmethod(smart_answer)

    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        """As greedy: the hand tile whose best placement scores most."""
        return GreedyAgent().choose_tile(game, p, rng)

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """The hex with the best mean playout margin among the most promising ones."""
        if len(hexes) == 1:
            return hexes[0]
        # keep the candidates with the best immediate points (random order among equals)
        scored = [(immediate_points(game, p, tile, h), rng.random(), h) for h in hexes]
        scored.sort(reverse=True)
        cands = [h for _, _, h in scored[: self.candidates]]
        per = max(1, self.budget // len(cands))
        fast = compiled(game.rs)
        native = uses_native(game, self.backend)
        best, best_val = cands[0], float("-inf")
        for h in cands:
            total = 0.0
            if native:  # one native call per candidate: reshuffle, play at random, score (as below)
                from rebirth_dsl.native import random_playouts

                g = warm_fork(game)
                fast.place(g, p, tile[0], tile[1], h)
                _after_move(g, p, tile)
                # the agent's own backend: on auto a position the native engine refuses plays on Python
                for final in random_playouts(g, per, rng.getrandbits(62), redeal=True, backend=self.backend):
                    total += final[p] - max(s for q, s in enumerate(final) if q != p)
                if total / per > best_val:
                    best, best_val = h, total / per
                continue
            for _ in range(per):
                g = warm_fork(game)
                g.quiet = True
                fast.place(g, p, tile[0], tile[1], h)
                _after_move(g, p, tile)
                g.shuffle_hidden(rng)
                g.auto_choose = None  # the playout answers abilities at random
                fast.run_random(g, [rng] * g.n_players, None)
                end = g.end_events()
                final = g.final_scores(end)
                total += final[p] - max(s for q, s in enumerate(final) if q != p)
            if total / per > best_val:
                best, best_val = h, total / per
        return best


def native_engine(game: Game, backend: str, flag: str = "backend") -> Any:
    """The native engine random playouts from this game run on, or None for the Python engine: `backend`
    auto (native when it can run and plays this position exactly: lib.NativeEngine.flatten refuses what it
    cannot), native (required: an error saying why not) or python (never). Decided once per move or
    forecast: a re-deal keeps every pile's length, and a position that fits still fits after any move.
    `flag` names the option in the errors."""
    if backend not in ("auto", "native", "python"):
        raise RebirthError.single(f"{flag} {backend!r}: auto, native or python")
    if backend == "python" or game.scenario:
        return None
    from rebirth_dsl.native import engine
    from rebirth_dsl.native.lib import NativeRefused

    eng = engine(game.rs, notice=backend == "native")
    if eng is None:
        if backend == "native":
            raise RebirthError.single(f"{flag} native: no native engine for {game.rs.title} (see the notice above)")
        return None
    try:
        eng.flatten(game)
    except NativeRefused:
        if backend == "native":
            raise
        return None  # auto: this position's playouts run on the Python engine
    return eng


def uses_native(game: Game, backend: str) -> bool:
    """Whether random playouts from this game run natively (native_engine)."""
    return native_engine(game, backend) is not None


def _after_move(g: Game, p: int, tile: tuple[int, int]) -> None:
    """The end of a turn: the tile leaves the hand, the next is drawn, the turn passes (S-T1)."""
    end_turn(g, p, tile)  # the reference engine's own step (I-R1's "draw N, keep one" included)
