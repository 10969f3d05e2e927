"""A hash over many seeded games per bundled ruleset and player count: run it before and after a change of
the engine that must not change a game, and compare.

    .venv/bin/python tools/gamehash.py                          # 300 games per line; prints the hash lines
    .venv/bin/python tools/gamehash.py --out /tmp/before.json   # store them (atomically; never over an input)
    .venv/bin/python tools/gamehash.py --check /tmp/before.json # exit 1 naming every line that differs
    .venv/bin/python tools/gamehash.py --games 20 --rules ireland --workers 2

One line per bundled ruleset (every file under rules/, variants included), player count it allows (within
2 to 4) and engine:

- `reference`: random seats played on the reference engine (play.loop.play_game, not quiet, so every
  event and its text is recorded), as `rebirth play --agents random --seed S` plays them;
- `generated`: the same seats on the generated playout loop (pyengine.fast.random_game, the path of
  `rebirth simulate` and of `rebirth play` with all-random seats), quiet: no events during the game, only
  the end-of-game events of the generated end scoring;
- `greedy`: greedy seats on the reference engine, as `rebirth play --seed S` plays them by default (it
  also covers play/points.py, the greedy agent's immediate-points scorer, and the smart ability answers);
- `oneply`: one-ply seats (play/evaluate.py, the lab's default agent) on the reference engine, as
  `rebirth play --agents oneply --seed S` plays them: every hex it chooses, so a faster evaluation can be
  shown to make the same choices.

Game i of a line is dealt and played from seed `--seed * 1_000_000 + i` (play.simulate.game_seed). Its
summary (moves with tile, hex and ability answers; every event: move index, player, points, category,
rule ids, text; the end-of-game events; totals; per-category breakdowns; winners and the tie-break that
decided; each seat's held mission cards with fulfilled and paid; the face-up missions with who fulfilled
them and what it paid; passes; length) is written as canonical JSON (sort_keys, no spaces) and hashed
with SHA-256; a line's hash is the SHA-256 of its games' digests in game order. Workers change nothing:
chunks are put back in game order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import check_output, read_text, write_text_atomic
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.play.simulate import game_seed
from rebirth_dsl.play.tally import held_missions, public_missions
from rebirth_dsl.play.workers import worker_pool
from rebirth_dsl.pyengine.fast import random_game
from rebirth_dsl.records.inputs import rules_files
from rebirth_dsl.records.record import load_ruleset_keyed
from rebirth_dsl.records.resources import bundled, rules_and_board
from rebirth_dsl.runtime.game import Event, Game

FORMAT = "rebirth-gamehash 1"
ENGINES = ("reference", "generated", "greedy", "oneply")
CHUNK = 50  # games per worker task

Task = tuple[str, str, int, str, int, int, int]  # rules, board, players, engine, seed, start, stop


def canonical(obj: Any) -> bytes:
    """The one JSON text of a summary: sorted keys, no spaces, tuples as lists."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _event(e: Event) -> list[Any]:
    return [e.index, e.player, e.points, e.category, list(e.ids), e.text]


def _outcome(g: Game) -> dict[str, Any]:
    """What the final position says: end events, totals, breakdowns, winners, cards, passes."""
    rs = g.rs
    end = g.end_events()
    totals = g.final_scores(end)
    winners, decided = g.winners(totals)
    cats = list(rs.categories)
    breakdown = [[g.scores[q].get(c, 0) for c in cats] for q in range(g.n_players)]
    for e in end:
        breakdown[e.player][cats.index(e.category)] += e.points
    return {
        "end": [_event(e) for e in end],
        "totals": totals,
        "categories": cats,
        "breakdown": breakdown,
        "winners": winners,
        "decided": decided,
        "held": [list(h) for h in g.held],  # each seat's private mission cards at the end, in hand order
        "missions": held_missions(g, end),  # (seat, card, fulfilled, paid) per held card
        "public": public_missions(g),  # face-up cards: (seat, paid) per fulfiller, in order (Ireland)
        "passes": list(g.passed),
        "length": g.move_index,
        "track": list(g.track),
    }


def summary(rs: Any, players: int, engine: str, seed: int) -> dict[str, Any]:
    """One seeded game, played on the engine, as plain data."""
    names = DEFAULT_NAMES[:players]
    if engine == "generated":
        g, raw = random_game(rs, names, seed, record=True)
        t = g.t
        moves: list[Any] = [[names[p], rs.tile_name(k, v), None if h < 0 else list(t.coords[h])]
                            for p, k, v, h in raw or ()]
    else:
        agent = "random" if engine == "reference" else engine
        g, moves = play_game(rs, names, [make_agent(agent) for _ in names], seed)
    return {"seed": seed, "players": names, "engine": engine, "moves": moves,
            "events": [_event(e) for e in g.events], **_outcome(g)}


_RULESETS: dict[tuple[str, str], Any] = {}


def _ruleset(rules: str, board: str) -> Any:
    key = (rules, board)
    if key not in _RULESETS:
        _RULESETS[key] = load_ruleset_keyed(Path(rules), Path(board))[0]
    return _RULESETS[key]


def play_chunk(task: Task) -> tuple[list[bytes], float]:
    """Games start..stop-1 of a line: each game's SHA-256 digest, in game order, and the seconds taken."""
    rules, board, players, engine, seed, start, stop = task
    t0 = time.perf_counter()
    rs = _ruleset(rules, board)
    out = [hashlib.sha256(canonical(summary(rs, players, engine, game_seed(seed, i)))).digest()
           for i in range(start, stop)]
    return out, time.perf_counter() - t0



def lines_to_run(only: list[str] | None, engines: list[str], players: list[int] | None
                 ) -> list[tuple[str, str, str, int, str, str]]:
    """(label, rules path, board path, players, engine, rules digest) per line, in a fixed order."""
    names = bundled("rules")
    chosen = only or list(names)
    out = []
    for name in chosen:
        if name not in names:
            raise RebirthError.single(f"--rules {name}: not a bundled ruleset (bundled: {', '.join(names)})")
        rules, board = rules_and_board(name, None)
        rs, _, content = load_ruleset_keyed(rules, board)
        lo, hi = rs.players
        for n in range(max(2, lo), min(4, hi) + 1):
            if players and n not in players:
                continue
            for engine in engines:
                out.append((f"{name} {n}p {engine}", str(rules.resolve()), str(board.resolve()), n, engine, content))
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play every line's games and hash them: the result object (`lines`: label -> games, sha256)."""
    lines = lines_to_run(args.rules, args.engines or list(ENGINES), args.players)
    tasks: list[tuple[str, Task]] = []
    for label, rules, board, n, engine, _ in lines:
        for a in range(0, args.games, CHUNK):
            tasks.append((label, (rules, board, n, engine, args.seed, a, min(a + CHUNK, args.games))))
    t0 = time.perf_counter()
    if args.workers <= 1:
        results = [play_chunk(t) for _, t in tasks]
    else:
        with worker_pool(args.workers) as pool:
            results = pool.map(play_chunk, [t for _, t in tasks], chunksize=1)  # map keeps task order
    wall = time.perf_counter() - t0
    digests: dict[str, list[bytes]] = {label: [] for label, *_ in lines}
    seconds: dict[str, float] = dict.fromkeys(digests, 0.0)
    for (label, _), (ds, s) in zip(tasks, results, strict=True):
        digests[label].extend(ds)
        seconds[label] += s
    out: dict[str, Any] = {"format": FORMAT, "seed": args.seed, "games": args.games, "lines": {}}
    for label, *_, content in lines:
        ds = digests[label]
        out["lines"][label] = {"games": len(ds), "sha256": hashlib.sha256(b"".join(ds)).hexdigest(),
                               "rules_content": content}
    out["seconds"] = {"wall": round(wall, 2), "workers": args.workers,
                      "lines": {k: round(v, 2) for k, v in seconds.items()}}
    return out


def line_text(label: str, entry: dict[str, Any]) -> str:
    """`scotland 2p reference 300 games sha256=...`"""
    return f"{label} {entry['games']} games sha256={entry['sha256']}"


def compare(result: dict[str, Any], stored: dict[str, Any], subset: bool = False) -> list[str]:
    """Every line whose games or hash differ from the stored file's, or that only one of them has (a
    `subset` run, one of --rules, --players or --engine, compares only the lines it ran)."""
    diffs = []
    old, new = stored.get("lines", {}), result["lines"]
    if subset:
        old = {k: v for k, v in old.items() if k in new}
    if stored.get("seed") != result["seed"]:
        diffs.append(f"seed: stored {stored.get('seed')}, now {result['seed']} (every line differs)")
    for label in [*new, *(k for k in old if k not in new)]:
        a, b = old.get(label), new.get(label)
        if a is None:
            diffs.append(f"{label}: not in the stored file (now {line_text(label, b)})")
        elif b is None:
            diffs.append(f"{label}: stored but not run now (stored {line_text(label, a)})")
        elif (a.get("games"), a.get("sha256")) != (b["games"], b["sha256"]):
            why = "; the rules or board files differ too" if a.get("rules_content") != b["rules_content"] else ""
            diffs.append(f"{label}: stored {a.get('games')} games sha256={a.get('sha256')}, "
                         f"now {line_text(label, b)}{why}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300, help="seeded games per line (default 300)")
    ap.add_argument("--seed", type=int, default=0, help="game i is played from seed * 1_000_000 + i (default 0)")
    ap.add_argument("--rules", action="append", help="only this bundled ruleset (repeatable; default all)")
    ap.add_argument("--players", type=int, action="append", help="only this player count (repeatable)")
    ap.add_argument("--engine", dest="engines", action="append", choices=ENGINES, help="only this engine (repeatable)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1; the hashes do not depend on it)")
    ap.add_argument("--json", action="store_true", help="print the result as a JSON object")
    ap.add_argument("--out", help="write the result (JSON) to this file")
    ap.add_argument("--check", help="compare with a stored --out file; exit 1 naming every line that differs")
    args = ap.parse_args(argv)
    try:
        if not 1 <= args.games <= 1_000_000:
            raise RebirthError.single(f"--games {args.games}: from 1 to 1,000,000")
        if args.workers < 1:
            raise RebirthError.single(f"--workers {args.workers}: at least 1")
        stored = None
        if args.check:
            try:
                stored = json.loads(read_text(args.check, "JSON file", 10_000_000))
            except json.JSONDecodeError as e:
                raise RebirthError.single(f"not a gamehash file: {e}", file=args.check) from None
            if not isinstance(stored, dict) or stored.get("format") != FORMAT:
                raise RebirthError.single(f"not a gamehash file (no \"format\": \"{FORMAT}\")", file=args.check)
        out = None
        if args.out:  # refused before any game is played: never over a rules file, a board or the --check file
            inputs: list[str | Path] = [p for name in bundled("rules") for p in rules_files(rules_and_board(name, None)[0])]
            inputs += list(bundled("boards").values())
            if args.check:
                inputs.append(args.check)
            out = check_output(args.out, inputs)
        result = run(args)
    except RebirthError as e:
        print(e.render() if hasattr(e, "render") else str(e), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        for label, entry in result["lines"].items():
            print(f"{line_text(label, entry)}  ({result['seconds']['lines'][label]:.1f} s)")
        print(f"total {result['seconds']['wall']:.1f} s wall, {args.workers} worker(s)")
    if out is not None:
        write_text_atomic(out, json.dumps(result, indent=2, sort_keys=True) + "\n")
    if stored is not None:
        diffs = compare(result, stored, bool(args.rules or args.players or args.engines))
        for d in diffs:
            print(f"DIFFERS {d}", file=sys.stderr)
        if diffs:
            print(f"{len(diffs)} line(s) differ from {args.check}", file=sys.stderr)
            return 1
        print(f"all {len(result['lines'])} lines match {args.check}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
