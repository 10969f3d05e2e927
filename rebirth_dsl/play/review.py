"""`rebirth review GAME`: every move of a game judged against the best move, from the mover's information.

Before each move the position is taken as the mover saw it: what they could not see (the other players'
hands, supplies and cards, their own supply's order) is re-dealt before every playout, as the forecasts do
(play/forecast.py, `resample`). The move played and the best `width` moves of the one-ply evaluation
(play/evaluate.py) are each made on the same `playouts` re-dealt futures and played to the end (common
random numbers: the differences are the moves'); a move's expected final margin is the mover's final
score minus the best other's, averaged. A move loses the best candidate's expected margin minus its own.

It is marked when that loss reaches a threshold (inaccuracy, mistake, blunder: THRESHOLDS) and the paired
difference is beyond noise (its 95 % interval lies above 0), so a noisy sample marks nothing. The best
of several estimates is biased upwards (the candidate that drew the luckiest futures looks best), which
is why the interval, not the mean alone, decides. Each player's chance to win after each move is the
played move's playouts' share of wins.

Random playouts run on the native engine when it can run (rebirth_dsl.native), the moves are split
between `workers` processes, and each process replays the record once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.forecast import Candidate, candidates, play_candidates, screen
from rebirth_dsl.play.loop import agent_list
from rebirth_dsl.play.search import uses_native
from rebirth_dsl.play.stats import mean_ci, paired_t
from rebirth_dsl.play.workers import worker_pool
from rebirth_dsl.records.annotate import annotate
from rebirth_dsl.records.record import Loaded, load_record, replay
from rebirth_dsl.runtime.game import Game

# expected points of final margin lost: (mark, name, at least)
THRESHOLDS: tuple[tuple[str, str, float], ...] = (("??", "blunder", 8.0), ("?", "mistake", 5.0),
                                                  ("?!", "inaccuracy", 3.0))
SEED_STRIDE = 10_007  # move i of a review with seed S: playouts seeded from S * SEED_STRIDE + i


@dataclass
class ReviewJob:
    """What a worker needs to review its moves: the record, and the playouts' settings."""

    path: str
    data: Any
    allow_paths: bool
    rules: Path | None
    board: Path | None
    playouts: int
    width: int
    agents: str
    backend: str
    seed: int


def mark_of(lost: float, significant: bool) -> tuple[str, str] | None:
    """The mark and its name for a loss (see THRESHOLDS), or None."""
    if not significant:
        return None
    for mark, name, at_least in THRESHOLDS:
        if lost >= at_least:
            return mark, name
    return None


def judge(game: Game, i: int, p: int, tile: tuple[int, int], h: int | None, choices: dict[str, Any],
          job: ReviewJob) -> dict[str, Any]:
    """Move i (p places `tile` on h) against the best candidates, from p's information (module docstring)."""
    rs, t = game.rs, game.t
    played: Candidate = (tile, h)
    every = candidates(game, p, list(dict.fromkeys(game.hand[p])))
    cands, _ = screen(game, p, every, job.width)
    if played not in cands:
        cands.append(played)
    res = play_candidates(game, p, cands, job.agents, job.playouts, job.seed * SEED_STRIDE + i, job.backend,
                          choices={played: choices})
    means = [sum(o.margins) / len(o.margins) for o in res]
    k = cands.index(played)
    b = max(range(len(cands)), key=lambda j: (means[j], j == k))
    diffs = [a - c for a, c in zip(res[b].margins, res[k].margins, strict=True)]
    _, (lo, _hi) = paired_t(diffs)
    lost = max(0.0, means[b] - means[k])
    mark = mark_of(lost, b != k and lo > 0)
    n = game.n_players

    def name(c: Candidate) -> dict[str, Any]:
        x, hh = c
        return {"tile": rs.tile_name(*x), "hex": list(t.coords[hh]) if hh is not None else None}

    m, mlo, mhi = mean_ci(res[k].margins)
    return {"move": i, "player": game.players[p], **name(played), "candidates": len(every),
            "played_out": len(cands), "margin": round(m, 3), "margin_ci": [round(mlo, 3), round(mhi, 3)],
            "best": name(cands[b]) | {"margin": round(means[b], 3)}, "lost": round(lost, 3),
            "lost_ci_low": round(lo, 3), "mark": mark[0] if mark else None, "mark_name": mark[1] if mark else None,
            "win_after": {game.players[q]: round(sum(res[k].wins[q]) / len(res[k].wins[q]), 4) for q in range(n)}}


def review_moves(job: ReviewJob, mine: list[int]) -> list[dict[str, Any]]:
    """Replay the record and judge the moves whose indices are in `mine` (a worker's share)."""
    loaded = load_record(job.path, job.data, job.allow_paths, job.rules, job.board)
    return _walk(loaded, job, set(mine))


def _walk(loaded: Loaded, job: ReviewJob, mine: set[int]) -> list[dict[str, Any]]:
    rs = loaded.rs
    game = replay(loaded, stop_at=0).game
    out = []
    for i, m in enumerate(loaded.record.moves):
        p = game.player_index(m.player, i)
        tile = rs.parse_tile(m.tile)
        h = game.t.index[(m.hex[0], m.hex[1])] if m.hex is not None else None
        if i in mine:
            out.append(judge(game, i, p, tile, h, dict(m.choices), job))
        game.play(p, tile, h, i, m.choices)
    return out


def review(job: ReviewJob, workers: int = 1) -> dict[str, Any]:
    """The review of a whole record (see the module's docstring): per move, the per-player summary, and
    each player's chance to win after each move."""
    if job.playouts < 2 or job.playouts > 100_000:
        raise RebirthError.single(f"--playouts {job.playouts}: from 2 to 100,000 (the marks need an interval)")
    loaded = load_record(job.path, job.data, job.allow_paths, job.rules, job.board)
    rec = loaded.record
    if rec.scenario:
        raise RebirthError.single("a scenario has no turns to review: review a game record (rebirth play -o)")
    r = replay(loaded)
    if r.error is not None:
        raise RebirthError([*r.error.diagnostics])
    n_moves = len(rec.moves)
    if workers <= 1 or n_moves < 2:
        moves = _walk(loaded, job, set(range(n_moves)))
    else:
        shares = [list(range(k, n_moves, workers)) for k in range(workers)]  # interleaved: early moves cost most
        with worker_pool(workers) as pool:
            parts = [pool.apply_async(review_moves, (job, s)) for s in shares if s]
            moves = sorted((m for part in parts for m in part.get()), key=lambda m: m["move"])
    game = r.game
    players = []
    for name in game.players:
        mine = [m for m in moves if m["player"] == name]
        lost = [m["lost"] for m in mine]
        counts = {n_: sum(1 for m in mine if m["mark_name"] == n_) for _, n_, _ in THRESHOLDS}
        players.append({"name": name, "moves": len(mine), "lost_per_move": round(sum(lost) / len(lost), 3) if lost
                        else 0.0, "lost": round(sum(lost), 3), **counts})
    final = game.final_scores(game.end_events()) if game.is_over() else list(game.track)
    winners = game.winners(final)[0] if game.is_over() else []
    start = replay(loaded, stop_at=0).game
    native = set(agent_list(job.agents, game.n_players)) == {"random"} and uses_native(start, job.backend)
    return {"game": job.path, "moves": moves, "players": players, "playouts": job.playouts, "width": job.width,
            "agents": agent_list(job.agents, game.n_players), "seed": job.seed,
            "native": native,
            "thresholds": {name: at for _, name, at in THRESHOLDS}, "final": dict(zip(game.players, final, strict=True)),
            "over": game.is_over(), "result": {q: (1 / len(winners) if i in winners else 0.0)
                                                for i, q in enumerate(game.players)} if winners else None}


def render_review(rv: dict[str, Any], every: bool = False) -> str:
    """The review as text: how it was made, the marked moves (every move with `every`), the summary."""
    marks = ", ".join(f"{name} {mark} at {at:g}+" for mark, name, at in reversed(THRESHOLDS))
    engine = "native engine" if rv["native"] else "Python engine"
    head = [f"Review of {rv['game']}: {len(rv['moves'])} moves; each against the one-ply evaluation's best "
            f"{rv['width']} moves, {rv['playouts']} playouts each by {', '.join(dict.fromkeys(rv['agents']))} "
            f"({engine}) from the mover's information (what they could not see re-dealt every playout)",
            f"marks by expected points of final margin lost against the best move: {marks}; only when the "
            "paired difference is beyond noise (its 95% interval above 0)"]
    rows = [["move", "player", "played", "exp. margin", "best", "best's", "lost", "mark", "win % after"]]
    for m in rv["moves"]:
        if not every and not m["mark"]:
            continue
        rows.append([str(m["move"]), m["player"], _move(m), f"{m['margin']:+.1f}", _move(m["best"]),
                     f"{m['best']['margin']:+.1f}", f"{m['lost']:.1f}", f"{m['mark'] or ''} {m['mark_name'] or ''}".strip(),
                     " ".join(f"{k} {100 * v:.0f}" for k, v in m["win_after"].items())])
    if len(rows) == 1:
        body = ["no move is marked"]
    else:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
        body.insert(1, "  ".join("-" * w for w in widths))
    plural = {"inaccuracy": "inaccuracies"}
    summary = [["player", "moves", "lost per move", "lost",
                *(plural.get(name, name + "s") for _, name, _ in reversed(THRESHOLDS))]]
    for p in rv["players"]:
        summary.append([p["name"], str(p["moves"]), f"{p['lost_per_move']:.2f}", f"{p['lost']:.1f}",
                        *(str(p[name]) for _, name, _ in reversed(THRESHOLDS))])
    widths = [max(len(r[i]) for r in summary) for i in range(len(summary[0]))]
    tail = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in summary]
    tail.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(head + [""] + body + ["", "Expected points lost per move (against the best move):"] + tail)


def _move(m: dict[str, Any]) -> str:
    return f"{m['tile']} ({m['hex'][0]},{m['hex'][1]})" if m["hex"] else f"{m['tile']} pass"


def annotated(record: dict[str, Any], rv: dict[str, Any]) -> dict[str, Any]:
    """The record with a comment on every marked move (records.annotate: a comment already there is kept):
    the mark, the loss and the best move."""
    out = record
    for m in rv["moves"]:
        if m["mark"]:
            out = annotate(out, m["move"], f"{m['mark']} {m['mark_name']}: about {m['lost']:.1f} points of "
                                f"final margin lost; best {_move(m['best'])} ({m['best']['margin']:+.1f} against "
                                f"{m['margin']:+.1f})")
    return out


def write_plot(rv: dict[str, Any], path: Path) -> None:
    """Each player's chance to win after each move, marked moves flagged; PNG or SVG by the name."""
    from rebirth_dsl.files import atomic_file
    from rebirth_dsl.present.plots import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4))
    names = [p["name"] for p in rv["players"]]
    xs = [m["move"] + 1 for m in rv["moves"]]
    for name in names:
        ax.plot(xs, [100 * m["win_after"][name] for m in rv["moves"]], label=name, linewidth=1.6)
    if rv["over"] and rv["moves"]:  # the result, once every card is shown (S-E3): where the lines end
        end = len(rv["moves"]) + 1
        for line, name in zip(ax.get_lines(), names, strict=True):
            ax.plot([end - 1, end], [line.get_ydata()[-1], 100 * rv["result"][name]], color=line.get_color(),
                    linestyle=":", linewidth=1.2)
        ax.annotate("result", (end, 50), fontsize=8, ha="center", rotation=90, color="grey")
    for m in rv["moves"]:
        if m["mark"] in ("?", "??"):  # mistakes and blunders: inaccuracies would crowd the chart
            y = 100 * m["win_after"][m["player"]]
            ax.annotate(m["mark"], (m["move"] + 1, y), textcoords="offset points", xytext=(0, 6), ha="center",
                        fontsize=8, color="crimson")
    ax.set_xlabel("after move")
    ax.set_ylabel("chance to win %")
    ax.set_ylim(-2, 102)
    ax.set_title(f"{Path(rv['game']).name}: each player's chance to win ({rv['playouts']} playouts per move; "
                 "? mistakes, ?? blunders of the mover)", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fmt = "svg" if path.suffix.lower() == ".svg" else "png"
    with atomic_file(path, binary=True) as f:
        fig.savefig(f, format=fmt, dpi=110)
    plt.close(fig)
