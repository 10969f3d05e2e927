"""`rebirth simulate`: many games, on local processes or a Ray cluster, with identical results per seed.

Game i of a run with seed S is dealt and played from seed S * 1_000_000 + i, whatever process plays it,
and results are put back in game order before they are summarised, so the worker count and the
backend never change a number.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import shown
from rebirth_dsl.native import random_results
from rebirth_dsl.play import export
from rebirth_dsl.play.loop import DEFAULT_NAMES, agent_list
from rebirth_dsl.play.registry import default_agents, make_agent
from rebirth_dsl.play.summary import describe_runs, extras_table, no_negative_zero, seat_intervals
from rebirth_dsl.play.tally import GameExtra, play_tallied
from rebirth_dsl.play.workers import worker_pool
from rebirth_dsl.records.record import load_ruleset_keyed
from rebirth_dsl.records.resources import rules_and_board

# scores, breakdown per seat, winner seats, and what the lab reads besides (missions, castles, passes...)
GameResult = tuple[list[int], list[list[int]], list[int], GameExtra]


MAX_GAMES = 10_000_000  # a run a day long on one core: more is a typo

@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play a range of games (plain data, so it pickles)."""

    rules: str
    board: str
    players: int
    agents: tuple[str, ...]
    seed: int
    # load_ruleset_keyed's digest of the files the run began with ("": none pinned): a worker that reads
    # other rules or another board refuses, so that one run never mixes two versions of the game
    content: str = ""
    map_stats: bool = False  # keep per hex, area and landmark data (GameExtra.map; play/mapstats.py)


def game_seed(seed: int, i: int) -> int:
    """The seed of game i of a run."""
    return seed * 1_000_000 + i


def _ruleset(job: Job) -> Any:
    """The job's ruleset from records' content-keyed cache (an edited file is compiled afresh)."""
    rs, _, content = load_ruleset_keyed(Path(job.rules), Path(job.board))
    if job.content and content != job.content:
        raise RebirthError.single(f"{job.rules} (or a file it extends, or the board {job.board}) changed while "
                                  "the games were played; run again to play them all on the new rules")
    return rs


def play_one(job: Job, i: int) -> GameResult:
    """Play game i of the job and return its scores, per-category breakdowns and winners."""
    return _play(_ruleset(job), job, i)


def _play(rs: Any, job: Job, i: int) -> GameResult:
    """Game i of the job on its compiled ruleset."""
    names = DEFAULT_NAMES[: job.players]
    seed = game_seed(job.seed, i)
    game, tally = play_tallied(rs, names, job.agents, seed, job.map_stats)  # quiet from the first move
    end = game.end_events()
    totals = game.final_scores(end)
    winners, _ = game.winners(totals)
    cats = rs.categories
    breakdown = [[game.scores[q].get(c, 0) for c in cats] for q in range(job.players)]
    for e in end:
        breakdown[e.player][cats.index(e.category)] += e.points
    return totals, breakdown, winners, tally.extra(game, end)


def play_range(job: Job, start: int, stop: int) -> list[GameResult]:
    """Games start..stop-1 (a worker's chunk)."""
    rs = _ruleset(job)  # once a chunk: the files are read and hashed, a cost per game would be a random game's
    return [_play(rs, job, i) for i in range(start, stop)]


def _chunks(n: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def run_local(job: Job, games: int, workers: int, progress: Callable[[int], None]) -> list[GameResult]:
    """Play on this machine: in-process for one worker, else a process pool; results in game order."""
    size = max(1, min(200, games // max(1, workers * 8) or 1))
    chunks = _chunks(games, size)
    results: dict[int, list[GameResult]] = {}
    if workers <= 1:
        for a, b in chunks:
            results[a] = play_range(job, a, b)
            progress(b - a)
    else:
        with worker_pool(workers) as pool:
            pending = {a: pool.apply_async(play_range, (job, a, b)) for a, b in chunks}
            for a, b in chunks:
                # a worker's error (it pickles: errors.RebirthError.__reduce__) is raised here, in the parent
                results[a] = pending[a].get()
                progress(b - a)
    return [r for a, _ in chunks for r in results[a]]


def run_native(job: Job, rs: Any, games: int, workers: int, progress: Callable[[int], None]) -> list[GameResult]:
    """Random seats on the native engine (rebirth_dsl.native; game i from game_seed(seed, i) as on every
    backend, `workers` threads); the Python engine when it cannot run, after a one-line notice."""
    if any(a != "random" for a in job.agents):
        raise RebirthError.single("--backend native plays random agents only (--agents random)")
    results = random_results(rs, job.players, game_seed(job.seed, 0), games, workers, progress, extras=True)
    if results is None:
        return run_local(job, games, workers, progress)
    return [(t, b, w, GameExtra(*x)) for t, b, w, x in results]


def check_workers(workers: int) -> None:
    """At least one worker, and no more than the machine has cores (more only adds processes)."""
    cores = os.cpu_count() or 1
    if workers < 1:
        raise RebirthError.single(f"--workers {workers}: at least 1")
    if workers > cores:
        raise RebirthError.single(f"--workers {workers}: this machine has {cores} core{'s' if cores > 1 else ''}; "
                                  f"use at most {cores}")


def run_ray(job: Job, games: int, workers: int, progress: Callable[[int], None], address: str | None = None
            ) -> list[GameResult]:
    """Play on a Ray cluster (a local one if none is given); results in game order."""
    try:
        import ray
    except ImportError:
        raise RebirthError.single("--backend ray needs Ray: pip install 'rebirth-dsl[ray]'") from None
    started = False
    if not ray.is_initialized():
        ray.init(address=address, num_cpus=None if address else max(1, workers), include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
        started = True
    try:
        remote = ray.remote(play_range)
        size = max(1, min(200, games // max(1, workers * 8) or 1))
        chunks = _chunks(games, size)
        refs = [remote.remote(job, a, b) for a, b in chunks]
        out: list[GameResult] = []
        for (a, b), ref in zip(chunks, refs, strict=True):
            chunk: list[GameResult] = ray.get(ref)
            out.extend(chunk)
            progress(b - a)
        return out
    finally:
        if started:
            ray.shutdown()


def summarise(results: list[GameResult], names: list[str], agents: list[str], categories: list[str]) -> dict[str, Any]:
    """Per seat: mean and spread of scores, win rate (shared wins split), mean of each category."""
    n = len(names)
    games = len(results)
    seats = []
    for q in range(n):
        scores = [r[0][q] for r in results]
        mean = sum(scores) / games
        var = sum((s - mean) ** 2 for s in scores) / (games - 1) if games > 1 else 0.0
        wins = sum(1 / len(r[2]) for r in results if q in r[2])
        seats.append({
            "seat": q + 1, "name": names[q], "agent": agents[q],
            "mean": round(mean, 3), "sd": round(math.sqrt(var), 3), "min": min(scores), "max": max(scores),
            "win_rate": round(wins / games, 4), **seat_intervals(scores, wins, games),
            "categories": {c: round(sum(r[1][q][i] for r in results) / games, 3) for i, c in enumerate(categories)},
        })
    return {"games": games, "players": n, "seats": seats}


class Progress:
    """A progress bar on a terminal (stderr); silent otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.start = time.perf_counter()

    def __call__(self, k: int) -> None:
        """Advance by k games."""
        self.done += k
        if not self.enabled:
            return
        frac = self.done / self.total
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        rate = self.done / max(time.perf_counter() - self.start, 1e-9)
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} games  {rate:,.0f}/s")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def table(summary: dict[str, Any], categories: list[str]) -> str:
    """The summary as a text table."""
    head = ["seat", "agent", "mean [95%]", "sd", "min", "max", "win% [95%]", *categories]
    rows = [head]
    for s in summary["seats"]:
        ci, wi = s["mean_ci"], s["win_ci"]
        rows.append([f"{s['seat']} {s['name']}", s["agent"], f"{s['mean']:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]",
                     f"{s['sd']:.1f}", str(s["min"]), str(s["max"]),
                     f"{100 * s['win_rate']:.1f} [{100 * wi[0]:.1f}, {100 * wi[1]:.1f}]",
                     *(f"{s['categories'][c]:.1f}" for c in categories)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def simulate_command(args: argparse.Namespace) -> int:
    """Run `rebirth simulate`."""
    rules, board = rules_and_board(args.rules, args.board)
    rs, _, content = load_ruleset_keyed(rules, board)
    lo, hi = rs.players
    if not lo <= args.players <= hi:
        raise RebirthError.single(f"--players {args.players}: {rs.title} is for {lo} to {hi} players")
    if not 1 <= args.games <= MAX_GAMES:
        raise RebirthError.single(f"--games {args.games}: from 1 to {MAX_GAMES:,}")
    check_workers(args.workers)
    agents = agent_list(default_agents(args.agents, args.backend), args.players)
    for a in set(agents):
        if getattr(make_agent(a), "needs_terminal", False):  # fail early on a misspelt or interactive agent
            raise RebirthError.single(f"agent {a!r} asks a person at a terminal; simulate plays without one "
                                      "(use it in `rebirth play`)")
    target = export.prepare(args, [(rules, board)])  # a folder it cannot write: refused before any game
    map_dir = getattr(args, "map_stats", None)  # None: off; "": tables and JSON only; else a folder of pictures
    if map_dir is not None:  # before any game is played
        from rebirth_dsl.play.mapstats import NATIVE_MAP_STATS, check_map_dir
        if args.backend == "native":  # the CLI refuses it first, as a usage error
            raise RebirthError.single(NATIVE_MAP_STATS)
        if map_dir:
            check_map_dir(Path(map_dir))
    job = Job(str(rules.resolve()), str(board.resolve()), args.players, tuple(agents), args.seed, content,
              map_stats=map_dir is not None)
    progress = Progress(args.games, sys.stderr.isatty() and not args.no_progress)
    t0 = time.perf_counter()
    if args.backend == "native":
        results = run_native(job, rs, args.games, args.workers, progress)
    elif args.backend == "ray":
        results = run_ray(job, args.games, args.workers, progress)
    else:
        results = run_local(job, args.games, args.workers, progress)
    elapsed = time.perf_counter() - t0
    summary = summarise(results, DEFAULT_NAMES[: args.players], agents, rs.categories)
    summary.update(describe_runs(results, rs, args.players))
    summary.update({"rules": str(rules), "board": str(board), "seed": args.seed, "backend": args.backend,
                    "workers": args.workers})
    if map_dir is not None:
        from rebirth_dsl.play.mapstats import map_summary, map_table, write_maps
        summary["map"] = map_summary(results, rs, DEFAULT_NAMES[: args.players])
        if map_dir:
            pictures = write_maps(summary["map"], rs, Path(map_dir), DEFAULT_NAMES[: args.players])
            summary["map"]["pictures"] = [shown(p) for p in pictures]
    summary = no_negative_zero(summary)  # the text and the JSON alike never show -0.0
    written = []
    if target is not None:
        seeds = [game_seed(args.seed, i) for i in range(args.games)]
        written = export.export_simulate(target, args, rs, agents, results, seeds, content)
        summary["out"] = [shown(p) for p in written]
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{rs.title}: {args.games} games, {args.players} players, seed {args.seed}, "
              f"{args.backend} x{args.workers}: {elapsed:.1f} s ({args.games / elapsed:,.0f} games/s)\n")
        print(table(summary, rs.categories))
        print(extras_table(summary))
        if written:
            print(f"\nwrote {', '.join(map(shown, written))}")
        if map_dir is not None:
            print(map_table(summary["map"], DEFAULT_NAMES[: args.players]))
            if summary["map"].get("pictures"):
                print(f"\nheat maps: {', '.join(summary['map']['pictures'])}")
    return 0
