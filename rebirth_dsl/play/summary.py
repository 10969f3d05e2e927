"""The per-game numbers of a simulation run, as series (one value per game) and as summaries with 95 %
intervals: seat scores and wins, each category's share of the points, landmarks changing hands, passes,
fallbacks, game length, and mission cards (private ones held at the end, Ireland's face-up ones).

`rebirth simulate` prints these for one ruleset; the balance lab (lab.py) pairs the same series of two
rulesets game by game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.play.stats import chi2_sf, clip, mean_ci, sd_ci, wilson

Result = Sequence[Any]  # a simulate.GameResult: (scores, breakdown, winners, GameExtra)


def _ci(xs: Sequence[float], nd: int = 4, lo_hi: tuple[float, float] | None = None) -> dict[str, Any]:
    m, lo, hi = mean_ci(xs)
    if lo_hi is not None:
        lo, hi = clip(lo, *lo_hi), clip(hi, *lo_hi)
    return no_negative_zero({"mean": round(m, nd), "ci": [round(lo, nd), round(hi, nd)]})


def seat_intervals(scores: Sequence[float], wins: float, games: int) -> dict[str, Any]:
    """A seat's intervals: its mean score (t), its score spread (asymptotic) and its win rate (Wilson)."""
    _, lo, hi = mean_ci(scores)
    _, slo, shi = sd_ci(scores)
    wlo, whi = wilson(wins, games)
    return {"mean_ci": [round(lo, 3), round(hi, 3)], "sd_ci": [round(slo, 3), round(shi, 3)],
            "win_ci": [round(wlo, 4), round(whi, 4)]}


def win_shares(results: Sequence[Result], seat: int) -> list[float]:
    """Per game: the seat's share of the win (1, a part of a shared win, or 0)."""
    return [1 / len(r[2]) if seat in r[2] else 0.0 for r in results]


def category_shares(results: Sequence[Result], categories: Sequence[str]) -> dict[str, list[float]]:
    """Per category, per game: its share of all the points the players scored in that game."""
    out: dict[str, list[float]] = {c: [] for c in categories}
    for r in results:
        total = sum(r[0])
        for i, c in enumerate(categories):
            out[c].append(sum(b[i] for b in r[1]) / total if total else 0.0)
    return out


def category_points(results: Sequence[Result], categories: Sequence[str]) -> dict[str, list[list[float]]]:
    """Per category, per seat, per game: the points the seat scored in it (track and end of game)."""
    return {c: [[float(r[1][q][i]) for r in results] for q in range(len(results[0][0]) if results else 0)]
            for i, c in enumerate(categories)}


def place_points(results: Sequence[Result]) -> list[list[float]]:
    """Per finishing place (1st, 2nd, ...), per game: the final score of the player in that place."""
    ranked = [sorted(r[0], reverse=True) for r in results]
    return [[float(x[k]) for x in ranked] for k in range(len(results[0][0]) if results else 0)]


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, ..."""
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def margin(scores: Sequence[int], winners: Sequence[int]) -> float:
    """The winner's final score minus the best other player's (0 for a shared win; negative when a
    tie-break that looks beyond the tied players gives the win to a player behind)."""
    if len(winners) != 1 or len(scores) < 2:
        return 0.0
    w = winners[0]
    return float(scores[w] - max(s for q, s in enumerate(scores) if q != w))


def quality_series(results: Sequence[Result]) -> dict[str, list[float] | None]:
    """Per game, how the game went (the measures Ludii reports for its games): the winning margin, whether
    a tie-break or a shared win decided it, lead changes on the score track, the move after which the
    final winner led alone for good (the game's length when it never did: the end-of-game scoring, a tie
    on top or a tie-break decided), whether the player leading on the track at the end won. None for a
    measure these games did not record (the native engine follows no score track)."""
    out: dict[str, list[float] | None] = {
        "winning margin": [margin(r[0], r[2]) for r in results],
        "won on a tie-break": [1.0 if len(r[2]) == 1 and r[0].count(max(r[0])) > 1 else 0.0 for r in results],
        "shared win": [1.0 if len(r[2]) > 1 else 0.0 for r in results],
    }
    tracked = all(r[3].lead_changes is not None for r in results)
    out["lead changes"] = [float(r[3].lead_changes) for r in results] if tracked else None
    out["winner leads for good after move"] = [
        float(r[3].lead_from if r[3].leader in r[2] else r[3].length) for r in results] if tracked else None
    out["track leader at the end wins"] = [1.0 if r[3].leader in r[2] else 0.0 for r in results] if tracked else None
    return out


RATES = ("won on a tie-break", "shared win", "track leader at the end wins")  # quality_series' 0/1 measures
COUNTS = ("lead changes", "winner leads for good after move")  # and its counts (never below 0)


def seat_wins(results: Sequence[Result], n_players: int) -> list[list[float]]:
    """Per seat, per game: its share of the win (1, a part of a shared win, or 0)."""
    return [win_shares(results, q) for q in range(n_players)]


def chi2_equal(wins: Sequence[float], games: int) -> float:
    """The chi-square of the seats' win counts against games / N each."""
    exp = games / len(wins)
    return sum((w - exp) ** 2 / exp for w in wins) if games else 0.0


def seat_advantage(results: Sequence[Result], n_players: int) -> tuple[float, float, list[float]]:
    """Chi-square of the seats' wins against 1/N each (a shared win split): (statistic, p, seat rates)."""
    games = len(results)
    wins = [sum(w) for w in seat_wins(results, n_players)]
    x2 = chi2_equal(wins, games)
    return x2, chi2_sf(x2, n_players - 1), [w / games if games else 0.0 for w in wins]


def no_negative_zero(x: Any) -> Any:
    """The value with every -0.0 inside it made 0.0 (JSON and text never show a negative zero)."""
    if isinstance(x, float):
        return x + 0.0  # -0.0 + 0.0 is 0.0; every other float is unchanged
    if isinstance(x, dict):
        return {k: no_negative_zero(v) for k, v in x.items()}
    if isinstance(x, list):
        return [no_negative_zero(v) for v in x]
    if isinstance(x, tuple):
        return tuple(no_negative_zero(v) for v in x)
    return x


def change_label(category: str, claims: bool = False) -> str:
    """The name of a majority statement's per-game count of landmarks changing hands (or first taken)."""
    return f"{category} {'first taken' if claims else 'changing hands'}"


def game_series(results: Sequence[Result], rs: Ruleset) -> dict[str, list[float]]:
    """Per game: landmarks taken from an owner and landmarks taken with none (per majority category),
    passes, fallbacks, moves."""
    out: dict[str, list[float]] = {}
    for claims in (False, True):
        for i, m in enumerate(rs.majorities):
            series = out.setdefault(change_label(m.category, claims), [0.0] * len(results))
            for g, r in enumerate(results):
                series[g] += sum((r[3].claims if claims else r[3].changes)[i])
    out["passes"] = [float(sum(r[3].passes)) for r in results]
    out["fallbacks"] = [float(sum(r[3].fallbacks)) for r in results]
    out["moves"] = [float(r[3].length) for r in results]
    return out


def mission_records(results: Sequence[Result]) -> dict[str, list[tuple[bool, int]]]:
    """Per private card: (fulfilled, points paid) for each time a player held it at the end."""
    out: dict[str, list[tuple[bool, int]]] = {}
    for r in results:
        for _, card, ok, paid in r[3].missions:
            out.setdefault(card, []).append((ok, paid))
    return dict(sorted(out.items()))


def public_records(results: Sequence[Result], n_players: int) -> dict[str, dict[str, Any]]:
    """Per face-up card: for each game it lay face up, how many players fulfilled it and what it paid in
    all; and how often each seat fulfilled it (first or later)."""
    out: dict[str, dict[str, Any]] = {}
    for r in results:
        for card, paid in r[3].public:
            rec = out.setdefault(card, {"fulfillers": [], "paid": [], "by_seat": [0] * n_players,
                                        "first_by_seat": [0] * n_players})
            rec["fulfillers"].append(len(paid))
            rec["paid"].append(sum(p for _, p in paid))
            for i, (q, _) in enumerate(paid):
                rec["by_seat"][q] += 1
                if i == 0:
                    rec["first_by_seat"][q] += 1
    return dict(sorted(out.items()))


def mission_summary(recs: list[tuple[bool, int]]) -> dict[str, Any]:
    """A private card: times held, fulfilment rate (Wilson) and mean points paid per card held (t)."""
    n = len(recs)
    k = sum(1 for ok, _ in recs if ok)
    lo, hi = wilson(k, n)
    return {"held": n, "fulfilled": k, "rate": round(k / n, 4) if n else 0.0, "rate_ci": [round(lo, 4), round(hi, 4)],
            "paid": _ci([p for _, p in recs], 3)}


def public_summary(rec: dict[str, Any]) -> dict[str, Any]:
    """A face-up card: games face up, how often anyone fulfilled it (Wilson), fulfillers and points a game."""
    n = len(rec["fulfillers"])
    k = sum(1 for f in rec["fulfillers"] if f)
    lo, hi = wilson(k, n)
    return {"face_up": n, "fulfilled": k, "rate": round(k / n, 4) if n else 0.0,
            "rate_ci": [round(lo, 4), round(hi, 4)], "fulfillers": _ci(rec["fulfillers"], 3),
            "paid": _ci(rec["paid"], 3), "by_seat": rec["by_seat"], "first_by_seat": rec["first_by_seat"]}


def describe_runs(results: Sequence[Result], rs: Ruleset, n_players: int) -> dict[str, Any]:
    """Everything beyond the seats' scores, with 95 % intervals (for the JSON and the tables)."""
    shares = category_shares(results, rs.categories)
    points = category_points(results, rs.categories)
    x2, p, rates = seat_advantage(results, n_players)
    game: dict[str, Any] = {}
    for k, v in quality_series(results).items():
        game[k] = None if v is None else _ci(v, 4 if k in RATES else 3, (0.0, 1.0) if k in RATES else (
            (0.0, math.inf) if k in COUNTS else None))
    for i, v in enumerate(place_points(results)):
        game[f"score of the {ordinal(i + 1)}"] = _ci(v, 3)
    game["seat advantage"] = no_negative_zero({"chi2": round(x2, 3), "df": n_players - 1, "p": p,
                                               "win_rates": [round(r, 4) for r in rates]})
    return {
        "points": {c: {"per_player": _ci([sum(g) / len(v) for g in zip(*v, strict=True)], 3),
                       "seats": [_ci(s, 3) for s in v]} for c, v in points.items()},
        "shares": {c: _ci(v, 4, (0.0, 1.0)) for c, v in shares.items()},
        "game": game,
        "per_game": {k: _ci(v, 3, (0.0, math.inf)) for k, v in game_series(results, rs).items()},
        "missions": {c: mission_summary(v) for c, v in mission_records(results).items()},
        "public_missions": {c: public_summary(v) for c, v in public_records(results, n_players).items()},
    }


def _rows(rows: list[list[str]], right_from: int = 1) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) if i >= right_from else c.ljust(w) for i, (c, w) in
                       enumerate(zip(r, widths, strict=True))).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def interval(m: float, ci: Sequence[float], fmt: str = "{:.1f}", scale: float = 1.0) -> str:
    """`12.3 [11.9, 12.7]`."""
    return f"{fmt.format(m * scale)} [{fmt.format(ci[0] * scale)}, {fmt.format(ci[1] * scale)}]"


def extras_table(summary: dict[str, Any]) -> str:
    """The text tables of `describe_runs`: category shares, per-game counts, private and public missions."""
    out = ["", "share of all points (95% interval):",
           _rows([["category", "share %"]] + [[c, interval(v["mean"], v["ci"], scale=100)]
                                                for c, v in summary["shares"].items()])]
    game = [[k, interval(v["mean"], v["ci"], "{:.1f}" if k in RATES else "{:.2f}", 100.0 if k in RATES else 1.0)
             + (" %" if k in RATES else "")] for k, v in summary.get("game", {}).items()
            if isinstance(v, dict) and "mean" in v]
    game += [[k, "not measured (native engine)"] for k, v in summary.get("game", {}).items() if v is None]
    if "seat advantage" in summary.get("game", {}):
        sa = summary["game"]["seat advantage"]
        game.append(["seat advantage", f"chi-square {sa['chi2']:.2f}, {sa['df']} df, p {sa['p']:.4f}"])
    if game:
        out += ["", "the games (95% interval):", _rows([["", "mean"], *game])]
    out += ["", "per game (95% interval):",
            _rows([["", "mean"]] + [[k, interval(v["mean"], v["ci"], "{:.2f}")] for k, v in summary["per_game"].items()])]
    if summary["missions"]:
        rows = [["private mission (held at the end)", "held", "fulfilled %", "pays (per card held)"]]
        for c, v in summary["missions"].items():
            rows.append([c, str(v["held"]), interval(v["rate"], v["rate_ci"], scale=100),
                         interval(v["paid"]["mean"], v["paid"]["ci"], "{:.2f}")])
        out += ["", _rows(rows)]
    if summary["public_missions"]:
        rows = [["public mission (face up)", "games", "fulfilled %", "fulfillers/game", "pays/game", "first, by seat"]]
        for c, v in summary["public_missions"].items():
            rows.append([c, str(v["face_up"]), interval(v["rate"], v["rate_ci"], scale=100),
                         interval(v["fulfillers"]["mean"], v["fulfillers"]["ci"], "{:.2f}"),
                         interval(v["paid"]["mean"], v["paid"]["ci"], "{:.1f}"),
                         " ".join(str(x) for x in v["first_by_seat"])])
        out += ["", _rows(rows)]
    return "\n".join(out)
