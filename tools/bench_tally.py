"""The lab's per-move hook (play/tally.py) before and after it followed the lead, A/B interleaved in one
process: whole random games on the generated engine, as `simulate` plays them.

    .venv/bin/python tools/bench_tally.py [--rules scotland] [--players 3] [--games 300] [--runs 11]

"no hook" plays without a tally; "before" is the hook as it was before the score track was followed (its
`append` copied here: fallbacks and landmarks changing hands); "after" is play/tally.py's. Then both again
inside simulate's whole per-game path (`play_range`: deal, play, end scoring, winners, the lab's data), which
is what `simulate` and `compare` pay. Figures are CPU
time (time.process_time), so other processes on a shared machine count less; the median of the runs is
the figure to read, the best shows the floor.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from rebirth_dsl.play import tally
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.simulate import Job, play_range
from rebirth_dsl.play.tally import Tally
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal, seat_rng


class Before(Tally):
    """The hook before it followed the lead (commit 04ae339)."""

    __slots__ = ()

    def append(self, move: tuple[int, int, int, int]) -> None:
        """One move has been applied."""
        p, k, _, h = move
        if h < 0:
            return
        if self.hex_kind[h] not in self.primary[k]:
            self.fallbacks[p] += 1
        owner, prev = self.g.lm_owner, self.prev
        for lm, i in self.near[h]:
            o = owner[lm]
            if o != prev[lm]:
                (self.changes if prev[lm] >= 0 else self.claims)[i][o] += 1
                prev[lm] = o


def main() -> None:
    """Print games/s per hook: median and best of the runs."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    rules, board = rules_and_board(a.rules, None)
    rs = load_ruleset(rules, board)[0]
    names = DEFAULT_NAMES[: a.players]
    fast = compiled(rs)
    deals = [deal(rs, a.players, s) for s in range(a.games)]
    hooks: list[tuple[str, Any]] = [("no hook", None), ("before", Before), ("after", Tally)]
    rates: dict[str, list[float]] = {name: [] for name, _ in hooks}
    for _ in range(a.runs):
        for name, cls in hooks:
            t0 = time.process_time()
            for s in range(a.games):
                g = Game(rs, names, deals[s])
                g.quiet = True
                fast.run_random(g, [seat_rng(s, i) for i in range(a.players)], cls(g) if cls else None)
            rates[name].append(a.games / (time.process_time() - t0))
    # the same, through simulate's whole per-game path (deal, play, end scoring, winners, the lab's data)
    job = Job(str(rules), str(board), a.players, ("random",) * a.players, 0)
    for _ in range(a.runs):
        for name, cls in hooks[1:]:
            tally.Tally = cls  # play_tallied builds its tally from the module's name
            t0 = time.process_time()
            play_range(job, 0, a.games)
            rates[f"simulate, {name}"] = [*rates.get(f"simulate, {name}", []), a.games / (time.process_time() - t0)]
    tally.Tally = Tally
    print(f"{rs.title}, {a.players} players, {a.games} games x {a.runs} runs (CPU time)")
    for name, v in rates.items():
        med = statistics.median(v)
        print(f"  {name:16s} median {med:7,.0f} games/s ({1e6 / med:5.0f} us a game), best {max(v):7,.0f}")


if __name__ == "__main__":
    main()
