"""Where to put a mission card's threshold: for every card whose condition is `VALUE >= N` (or `<=`, `>`,
`<`), the distribution of VALUE at the end of seeded lab games, over the players who held the card (a
holder plays for it) and over those who did not, and the holders' fulfilment rate at each threshold.

    python tools/mission_values.py --rules scotland --games 40 --agents ismcts:budget=64 --seed 0 --workers 2

Games are played exactly as `python -m rebirth_dsl.play.missions` plays them (the same Job and seeds), so a
rate here at the current threshold is the rate docs/missions.md shows. Private (held) cards only.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from rebirth_dsl.compile.closures import compile_expr
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.evaluate import by_count
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.simulate import Job, game_seed
from rebirth_dsl.play.tally import held_missions, play_tallied
from rebirth_dsl.play.workers import worker_pool
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board

# Per game: for each threshold card, (value, held) for every seat.
GameValues = dict[str, list[tuple[int, bool]]]


def threshold_cards(rules_path: Path) -> dict[str, A.BinOp]:
    """Card name -> its condition, for the cards whose condition compares a value with a number."""
    out = {}
    for s in load_rules(rules_path).statements:
        for c in getattr(s, "cards", ()):
            cond = c.condition
            # N a number, or a number by player count (`13 - 2 * players`)
            if isinstance(cond, A.BinOp) and cond.op in (">=", ">", "<=", "<") and by_count(cond.right) is not None:
                out[c.name] = cond
    return out


def _values(job: Job, start: int, stop: int) -> list[GameValues]:
    rs = load_ruleset(Path(job.rules), Path(job.board))[0]
    cards = threshold_cards(Path(job.rules))
    fns = {name: compile_expr(cond.left, rs.t) for name, cond in cards.items()}
    out = []
    for i in range(start, stop):
        game, _ = play_tallied(rs, DEFAULT_NAMES[: job.players], job.agents, game_seed(job.seed, i))
        holders = {(q, name) for q, name, _, _ in held_missions(game, game.end_events())}
        out.append({name: [(int(f(Ctx(game, q))), (q, name) in holders) for q in range(job.players)]
                    for name, f in fns.items()})
    return out


def main() -> None:
    """Print, per threshold card, the value distribution of holders and non-holders."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--agents", default="ismcts:budget=64")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cards", nargs="*", help="only these cards")
    args = ap.parse_args()
    rules_path, board_path = rules_and_board(args.rules, None)
    job = Job(str(rules_path.resolve()), str(board_path.resolve()), args.players, (args.agents,) * args.players,
              args.seed)
    size = max(1, args.games // (args.workers * 4))
    chunks = [(a, min(a + size, args.games)) for a in range(0, args.games, size)]
    if args.workers > 1:
        with worker_pool(args.workers) as pool:
            parts = pool.starmap(_values, [(job, a, b) for a, b in chunks])
    else:
        parts = [_values(job, a, b) for a, b in chunks]
    games = [g for part in parts for g in part]
    cards = threshold_cards(rules_path)
    print(f"{args.rules}: {args.games} games, {args.players} players, {args.agents}, seed {args.seed}")
    for name, cond in cards.items():
        if args.cards and name not in args.cards:
            continue
        held = Counter(v for g in games for v, h in g[name] if h)
        other = Counter(v for g in games for v, h in g[name] if not h)
        n = sum(held.values())
        limit = by_count(cond.right)(args.players)  # type: ignore[misc]  # threshold_cards kept only these
        print(f"\n{name}: value {cond.op} {limit} with {args.players} players; held {n} times")
        print(f"  {'value':>5} {'held':>5} {'others':>6}  holders fulfilling at `>= value`")
        for v in range(min((held | other), default=0), max((held | other), default=0) + 1):
            at_least = sum(c for x, c in held.items() if x >= v)
            print(f"  {v:>5} {held[v]:>5} {other[v]:>6}  {at_least / n if n else 0:.0%}")


if __name__ == "__main__":
    main()
