"""A small search on the evaluation (play/evaluate.py): the one-ply agent's best few hexes, each played
on through the other players' replies, judged by the whole position's worth.

For each of the `width` hexes the one-ply agent values most, a copy of the game is dealt what the placer
cannot see afresh (every supply and deck reshuffled, each other player's hand drawn again from their hand
and supply together), the placement is made on the generated Python engine (rebirth_dsl.pyengine), and
the other players reply, `replies` moves (default: one each, up to the placer's next turn), each by the
one-ply agent. The copy's margin (the placer's worth minus the best other's, Evaluation.margin) is the
hex's value, averaged over `samples` deals. The native C engine plays only random playouts, so this
search runs on the Python engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rebirth_dsl.accel.public import warm_fork
from rebirth_dsl.play.agents import smart_answer
from rebirth_dsl.play.evaluate import OnePlyAgent, evaluation_for
from rebirth_dsl.play.hidden import resample
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.rules.turn import end_turn
from rebirth_dsl.runtime.game import Game


@dataclass
class LookaheadAgent:
    """The one-ply agent's `width` best hexes, each tried through `replies` one-ply moves."""

    width: int = 6
    replies: int = -1  # -1: a round: one reply per other player, then the placer's own next move
    samples: int = 1
    name: str = "lookahead"
    answer = staticmethod(smart_answer)

    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        """As the one-ply agent: the hand tile whose best placement is worth most."""
        return OnePlyAgent().choose_tile(game, p, rng)

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """The candidate whose copies end the replies with the best margin."""
        if len(hexes) == 1:
            return hexes[0]
        ev = evaluation_for(game.rs)
        vals = ev.placements(game, p, tile, hexes)
        ranked = sorted(zip(vals, [rng.random() for _ in hexes], hexes, strict=True), reverse=True)
        cands = [h for _, _, h in ranked[: max(1, int(self.width))]]
        if len(cands) == 1:
            return cands[0]
        replies = game.n_players if self.replies < 0 else int(self.replies)
        fast = compiled(game.rs)
        one = OnePlyAgent()
        # common random numbers: every candidate meets the same deals and the same tie draws, so the
        # margins differ by the candidates, not by the luck of their copies
        seeds = [rng.getrandbits(62) for _ in range(max(1, int(self.samples)))]
        best, best_val = cands[0], float("-inf")
        for h in cands:
            total = 0.0
            for seed in seeds:
                r = random.Random(seed)
                g = warm_fork(game)
                g.quiet = True
                resample(g, p, r)  # only what p may see: others' hands, set-aside tiles and cards drawn anew
                fast.place(g, p, tile[0], tile[1], h)
                end_turn(g, p, tile)
                for _ in range(replies):
                    q = g.turn
                    if g.is_over() or not g.hand[q]:
                        break
                    t = one.choose_tile(g, q, r) if len(g.hand[q]) > 1 else g.hand[q][0]
                    legal, _ = g.legal_hexes(t[0])
                    if legal:
                        fast.place(g, q, t[0], t[1], one.choose(g, q, t, legal, r))
                    end_turn(g, q, t)
                total += ev.margin(g, p)
            if total > best_val:
                best, best_val = h, total
        return best
