"""`rebirth compare BASE VARIANT`: the balance lab. Both rulesets play the same games, and every
difference is reported with its interval, its test and whether it survives the number of comparisons.

Pairing. Game i of both runs uses the same seed: `setup.deal` draws the same tiles and cards wherever the
two tile mixes and decks agree, and each seat's generator is the same, so a random agent makes the same
choices until the rules make the positions differ. Per-game differences are then far less noisy than
two independent runs, and paired tests read them: a paired t-test (or Wilcoxon's signed-rank test) on
means and shares, McNemar's test on who won, the Pitman-Morgan test on spreads. Mission cards are held
by different players in different games, so their rates are compared unpaired (two-proportion z-test,
Welch's t on what they pay). The p-values of all rows are corrected together (Holm-Bonferroni).

Effects come in points first: each scoring category's points a game per player (the mean of the seats)
and per seat, base against variant, then the rest; shares of the points follow as a second view (a
change to one category moves every share). Categories that exist in one ruleset only are paired in file
order when both sides have the same number of them (a variant that renames `areas` to `towns` compares
towns with areas); otherwise each is a row of its own, 0 on the side that lacks it (`wells (variant
only)`). The text, `--json` and changes.png show the same rows in the same order.

How the games went follows (the measures Ludii reports for its games): the winning margin, the score of
each finishing place, how often a tie-break or a shared win decided, lead changes on the score track,
the move after which the final winner led alone for good, how often the track's leader at the end won
(paired t-tests, McNemar for the rates), and seat advantage: each side's chi-square of the seats' wins
against 1/N with its p, their difference with a paired bootstrap (the same resampled games on both
sides: an interval and a p). The native engine follows no score track: its rows say "not measured"
instead of a 0.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import check_output_folder, shown
from rebirth_dsl.play import export, stats
from rebirth_dsl.play.loop import DEFAULT_NAMES, agent_list
from rebirth_dsl.play.registry import default_agents, make_agent
from rebirth_dsl.play.simulate import (
    MAX_GAMES,
    GameResult,
    Job,
    Progress,
    check_workers,
    game_seed,
    run_local,
    run_native,
    run_ray,
    summarise,
)
from rebirth_dsl.play.stats import clip
from rebirth_dsl.play.summary import (
    COUNTS,
    RATES,
    category_points,
    category_shares,
    change_label,
    chi2_equal,
    describe_runs,
    game_series,
    mission_records,
    no_negative_zero,
    ordinal,
    place_points,
    public_records,
    quality_series,
    seat_advantage,
    seat_wins,
    win_shares,
)
from rebirth_dsl.present.plots import PERCENT, write_charts
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import board_for, find, rules_and_board
from rebirth_dsl.runtime.setup import deal

ALPHA = 0.05


@dataclass
class Side:
    """One of the two rulesets of a comparison, with its games once played."""

    rules: Path
    board: Path
    rs: Ruleset
    results: list[GameResult]

    @property
    def label(self) -> str:
        """The ruleset's title and file."""
        return f"{self.rs.title} ({shown(self.rules)})"


# ----- rows ------------------------------------------------------------------------------------------
Bounds = tuple[float, float] | None  # the range a row's values lie in (a rate: 0..1; a count: 0 and up)
RATE: Bounds = (0.0, 1.0)
COUNT: Bounds = (0.0, math.inf)


def _row(group: str, metric: str, b: tuple[float, Sequence[float]] | None, v: tuple[float, Sequence[float]] | None,
         diff: float | None, diff_ci: Sequence[float] | None, test: str | None, p: float | None,
         unit: str = "", bounds: Bounds = None) -> dict[str, Any]:
    """A row; every interval clipped to the range of what it measures (a rate's to [0, 1], its difference's
    to [-1, 1]; a count's to 0 and up), and no negative zero anywhere."""
    lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
    dlo, dhi = (lo - hi, hi - lo) if bounds is not None else (-math.inf, math.inf)

    def side(x: tuple[float, Sequence[float]] | None) -> dict[str, Any] | None:
        return None if x is None else {"value": clip(x[0], lo, hi), "ci": [clip(x[1][0], lo, hi), clip(x[1][1], lo, hi)]}

    return {"group": group, "metric": metric, "unit": unit, "base": side(b), "variant": side(v),
            "diff": None if diff is None else clip(diff, dlo, dhi),
            "diff_ci": None if diff_ci is None else [clip(diff_ci[0], dlo, dhi), clip(diff_ci[1], dlo, dhi)],
            "test": test, "p": p}


def _paired_mean(group: str, metric: str, xb: Sequence[float], xv: Sequence[float], test: str,
                 unit: str = "", bounds: Bounds = None) -> dict[str, Any]:
    """Means of two paired series, their difference and its test (t or Wilcoxon on per-game differences)."""
    mb, lb, hb = stats.mean_ci(xb)
    mv, lv, hv = stats.mean_ci(xv)
    d = [v - b for b, v in zip(xb, xv, strict=True)]
    p, dci = stats.paired_t(d)
    name = "paired t-test"
    if test == "wilcoxon":
        p, name = stats.wilcoxon(d), "Wilcoxon signed-rank"
    return _row(group, metric, (mb, (lb, hb)), (mv, (lv, hv)), mv - mb, dci, name, p, unit, bounds)


def _paired_rate(group: str, metric: str, xb: Sequence[float], xv: Sequence[float]) -> dict[str, Any]:
    """How often something happened (a 0/1 series per game) on both sides: Wilson intervals, the paired
    difference with its t interval, McNemar's test on the games where it happened on one side only."""
    games = len(xb)
    kb, kv = sum(xb), sum(xv)
    b = sum(1 for x, y in zip(xb, xv, strict=True) if x and not y)
    c = sum(1 for x, y in zip(xb, xv, strict=True) if y and not x)
    _, dci = stats.paired_t([y - x for x, y in zip(xb, xv, strict=True)])
    return _row(group, metric, (kb / games, stats.wilson(kb, games)), (kv / games, stats.wilson(kv, games)),
                (kv - kb) / games, dci, "McNemar", stats.mcnemar(b, c), "%", RATE)


NATIVE_NOTE = "not measured (native engine)"


def category_pairs(base: Sequence[str], variant: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """Which category of the base compares with which of the variant: the same name, else (same count
    left on both sides) the unmatched ones in file order, else each with nothing."""
    common = [c for c in base if c in variant]
    only_b = [c for c in base if c not in variant]
    only_v = [c for c in variant if c not in base]
    pairs: list[tuple[str | None, str | None]] = [(c, c) for c in common]
    if len(only_b) == len(only_v):
        pairs += list(zip(only_b, only_v, strict=True))
    else:
        pairs += [(c, None) for c in only_b] + [(None, c) for c in only_v]
    order = {c: i for i, c in enumerate(base)}
    order_v: dict[str | None, int] = {c: i for i, c in enumerate(variant)}
    return sorted(pairs, key=lambda bv: (order.get(bv[0], len(order)) if bv[0] else len(order), order_v.get(bv[1], 0)))


def _pair_name(b: str | None, v: str | None) -> str:
    if b is not None and b == v:
        return b
    if v is None:
        return f"{b} (base only)"
    if b is None:
        return f"{v} (variant only)"
    return f"{b} -> {v}"


def _point_rows(base: Side, var: Side, pairs: list[tuple[str | None, str | None]], n_players: int,
                test: str) -> list[dict[str, Any]]:
    """Each category's points a game: per player (the mean of the seats), then per seat; a category of
    one ruleset only scores 0 on the other side."""
    games = len(base.results)
    pb, pv = category_points(base.results, base.rs.categories), category_points(var.results, var.rs.categories)
    zero = [[0.0] * games for _ in range(n_players)]
    rows = []
    for cb, cv in pairs:
        xb, xv = pb[cb] if cb else zero, pv[cv] if cv else zero
        name = _pair_name(cb, cv)
        per = [[sum(g) / n_players for g in zip(*x, strict=True)] for x in (xb, xv)]
        rows.append(_paired_mean("points", name, per[0], per[1], test))
        for q in range(n_players):
            rows.append({**_paired_mean("points", f"{name}: {q + 1} {DEFAULT_NAMES[q]}", xb[q], xv[q], test),
                         "category": name, "seat": q + 1})
    return rows


def _game_rows(base: Side, var: Side, n_players: int, test: str) -> list[dict[str, Any]]:
    """How the games went: winning margin, score by finishing place, how often a tie-break or a shared win
    decided, lead changes and the move after which the winner led for good, seat advantage."""
    rows = []
    qb, qv = quality_series(base.results), quality_series(var.results)
    for key in qb:
        xb, xv = qb[key], qv[key]
        if xb is None or xv is None:  # the native engine follows no score track: said, not a fake 0
            rows.append(_row("game", key, None, None, None, None, NATIVE_NOTE, None, "%" if key in RATES else ""))
        elif key in RATES:
            rows.append(_paired_rate("game", key, xb, xv))
        else:
            rows.append(_paired_mean("game", key, xb, xv, test, "", COUNT if key in COUNTS else None))
        if key == "winning margin":
            for k, (xb, xv) in enumerate(zip(place_points(base.results), place_points(var.results), strict=True)):
                rows.append(_paired_mean("game", f"score of the {ordinal(k + 1)}", xb, xv, test))
    (xb2, pb, _), (xv2, pv, _) = seat_advantage(base.results, n_players), seat_advantage(var.results, n_players)
    wb, wv = seat_wins(base.results, n_players), seat_wins(var.results, n_players)

    def both(games: Sequence[int]) -> tuple[float, float]:  # the two chi-squares on a resample of the games
        return (chi2_equal([sum(map(w.__getitem__, games)) for w in wb], len(games)),
                chi2_equal([sum(map(w.__getitem__, games)) for w in wv], len(games)))

    p, dci = stats.paired_bootstrap(both, len(base.results))
    row = _row("game", f"seat advantage (chi-square, {n_players - 1} df)", (xb2, (xb2, xb2)), (xv2, (xv2, xv2)),
               xv2 - xb2, dci, "paired bootstrap", p, "", COUNT)
    row["base"]["p"], row["variant"]["p"] = pb, pv  # each side against 1/N
    row["panel"] = "chi-square"
    rows.append(row)
    return rows


def compare_rows(base: Side, var: Side, n_players: int, test: str = "t") -> list[dict[str, Any]]:
    """Every compared quantity as a row: both values with intervals, the difference, the test and its p."""
    rb, rv = base.results, var.results
    games = len(rb)
    pairs = category_pairs(base.rs.categories, var.rs.categories)
    rows: list[dict[str, Any]] = _point_rows(base, var, pairs, n_players, test)
    rows += _game_rows(base, var, n_players, test)
    for q in range(n_players):
        who = f"{q + 1} {DEFAULT_NAMES[q]}"
        wb, wv = win_shares(rb, q), win_shares(rv, q)
        # McNemar reads who was among the winners; a shared win counts as won on both sides
        bb = sum(1 for x, y in zip(rb, rv, strict=True) if q in x[2] and q not in y[2])
        cc = sum(1 for x, y in zip(rb, rv, strict=True) if q not in x[2] and q in y[2])
        _, dci = stats.paired_t([y - x for x, y in zip(wb, wv, strict=True)])
        nb, nv = sum(wb), sum(wv)
        rows.append(_row("seats", f"win rate {who}", (nb / games, stats.wilson(nb, games)),
                         (nv / games, stats.wilson(nv, games)), (nv - nb) / games, dci, "McNemar",
                         stats.mcnemar(bb, cc), "%", RATE))
    for q in range(n_players):
        who = f"{q + 1} {DEFAULT_NAMES[q]}"
        sb, sv = [float(r[0][q]) for r in rb], [float(r[0][q]) for r in rv]
        rows.append(_paired_mean("seats", f"mean score {who}", sb, sv, test))
        db, dv = stats.sd_ci(sb), stats.sd_ci(sv)
        rows.append(_row("seats", f"score spread (sd) {who}", (db[0], db[1:]), (dv[0], dv[1:]),
                         dv[0] - db[0], None, "Pitman-Morgan", stats.pitman_morgan(sb, sv), "", COUNT))
    shb, shv = category_shares(rb, base.rs.categories), category_shares(rv, var.rs.categories)
    zero = [0.0] * games
    for cb, cv in pairs:
        rows.append(_paired_mean("shares", f"share of points: {_pair_name(cb, cv)}", shb[cb] if cb else zero,
                                 shv[cv] if cv else zero, test, "%", RATE))
    gb, gv = game_series(rb, base.rs), game_series(rv, var.rs)
    renamed = {change_label(cb, c): change_label(cv, c) for cb, cv in pairs if cb and cv for c in (False, True)}
    keys_v = set(gv)
    for kb in gb:
        kv = renamed.get(kb, kb)
        if kv in keys_v:
            keys_v.discard(kv)
            rows.append(_paired_mean("per game", _pair_name(kb, kv), gb[kb], gv[kv], test, "", COUNT))
        else:
            rows.append(_paired_mean("per game", _pair_name(kb, None), gb[kb], zero, test, "", COUNT))
    for kv in [k for k in gv if k in keys_v]:
        rows.append(_paired_mean("per game", _pair_name(None, kv), zero, gv[kv], test, "", COUNT))
    rows += _mission_rows(mission_records(rb), mission_records(rv))
    rows += _public_rows(public_records(rb, n_players), public_records(rv, n_players))
    ps = [r["p"] for r in rows if r["p"] is not None]
    adjusted = iter(stats.holm(ps))
    for r in rows:
        if r["p"] is not None:
            r["p_holm"] = next(adjusted)
            r["significant"] = r["p_holm"] < ALPHA
        else:
            r["p_holm"], r["significant"] = None, False
    return rows


def _rate(recs: Sequence[bool]) -> tuple[float, Sequence[float]] | None:
    if not recs:
        return None
    k = sum(recs)
    return k / len(recs), stats.wilson(k, len(recs))


def _mean(xs: Sequence[float]) -> tuple[float, Sequence[float]] | None:
    if not xs:
        return None
    m, lo, hi = stats.mean_ci(xs)
    return m, (lo, hi)


def _unpaired(group: str, metric: str, okb: list[bool], okv: list[bool], paidb: list[float], paidv: list[float],
              what: str) -> list[dict[str, Any]]:
    """A card's fulfilment rate (two-proportion z-test) and what it pays (Welch's t), base against variant."""
    out = []
    both = bool(okb) and bool(okv)
    p, dci = stats.two_proportions(sum(okb), len(okb), sum(okv), len(okv)) if both else (None, None)
    rb, rv = _rate(okb), _rate(okv)
    out.append(_row(group, f"{metric}: fulfilled", rb, rv, (rv[0] - rb[0]) if rb and rv else None, dci,
                    "two-proportion z" if both else None, p, "%", RATE))
    p, dci = stats.welch(paidb, paidv) if both else (None, None)
    mb, mv = _mean(paidb), _mean(paidv)
    out.append(_row(group, f"{metric}: pays {what}", mb, mv, (mv[0] - mb[0]) if mb and mv else None, dci,
                    "Welch t" if both else None, p))
    return out


def _mission_rows(mb: dict[str, list[tuple[bool, int]]], mv: dict[str, list[tuple[bool, int]]]) -> list[dict[str, Any]]:
    rows = []
    for card in sorted(set(mb) | set(mv)):
        b, v = mb.get(card, []), mv.get(card, [])
        rows += _unpaired("missions", card, [ok for ok, _ in b], [ok for ok, _ in v], [float(x) for _, x in b],
                          [float(x) for _, x in v], "per card held")
    return rows


def _public_rows(pb: dict[str, dict[str, Any]], pv: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    empty: dict[str, Any] = {"fulfillers": [], "paid": []}
    for card in sorted(set(pb) | set(pv)):
        b, v = pb.get(card, empty), pv.get(card, empty)
        rows += _unpaired("public missions", card, [f > 0 for f in b["fulfillers"]], [f > 0 for f in v["fulfillers"]],
                          [float(x) for x in b["paid"]], [float(x) for x in v["paid"]], "per game face up")
    return rows


# ----- text ------------------------------------------------------------------------------------------
def _num(fmt: str, x: float) -> str:
    """x formatted, a value that rounds to zero without a minus sign ("+0.00" in a signed format)."""
    out = fmt.format(x + 0.0)
    if out.startswith("-") and not out.strip("+-0."):
        out = ("+" if "+" in fmt else "") + out[1:]
    return out


def _interval(m: float, ci: Sequence[float], fmt: str, scale: float) -> str:
    return f"{_num(fmt, m * scale)} [{_num(fmt, ci[0] * scale)}, {_num(fmt, ci[1] * scale)}]"


def _fmt(x: tuple[float, Sequence[float]] | dict[str, Any] | None, unit: str) -> str:
    if x is None:
        return "-"
    value, ci = (x["value"], x["ci"]) if isinstance(x, dict) else x
    scale = 100.0 if unit == "%" else 1.0
    fmt = "{:.1f}" if unit == "%" or abs(value) >= 10 else "{:.2f}"
    if isinstance(x, dict) and "p" in x:  # a statistic with its own test (seat advantage): its value and p
        return f"{_num(fmt, value)} (p {_p(x['p'])})"
    return _interval(value, ci, fmt, scale)


def _fmt_diff(r: dict[str, Any]) -> str:
    if r["diff"] is None:
        return "-"
    scale = 100.0 if r["unit"] == "%" else 1.0
    fmt = "{:+.1f}" if abs(r["diff"] * scale) >= 10 else "{:+.2f}"
    if r["diff_ci"] is None:
        return _num(fmt, r["diff"] * scale)
    return _interval(r["diff"], r["diff_ci"], fmt, scale)


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


TITLES = {"points": "points a game (per player; then by seat)", "game": "the games"}


def render(report: dict[str, Any], rows: list[dict[str, Any]], all_rows: bool = False) -> str:
    """The comparison as text: a header, then one table per group of rows."""
    tests = sum(1 for r in rows if r["p"] is not None)
    sig = sum(1 for r in rows if r["significant"])
    head = [
        f"base:    {report['base']['label']} on {report['base']['board']}",
        f"variant: {report['variant']['label']} on {report['variant']['board']}",
        f"{report['games']} games each, {report['players']} players ({', '.join(report['agents'])}), seed "
        f"{report['seed']}, the same seeds for both"
        + (" and the same deals" if report["same_deals"] else " (the tile mixes or decks differ: different deals)")
        + f"; {report['backend']} x{report['workers']}: {report['seconds']:.1f} s",
        f"95% intervals; differences are variant - base; * = significant at {ALPHA:g} after Holm-Bonferroni "
        f"over {tests} tests ({sig} significant)",
    ]
    out = ["\n".join(head)]
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    for group, rs in groups.items():
        if group in ("missions", "public missions") and not all_rows:
            # a card row is shown when it could differ: both sides not identical, or it is significant
            rs = [r for r in rs if r["significant"] or r["base"] != r["variant"]]
            if not rs:
                out.append(f"\n{group}: no card differs (--all shows them)")
                continue
        note = ""
        if group == "points" and not all_rows:
            # a category's rows by seat are shown when some seat's points differ: else its row says it all
            moved = {r["category"] for r in rs if "seat" in r and (r["significant"] or r["base"] != r["variant"])}
            kept = [r for r in rs if "seat" not in r or r["category"] in moved]
            if len(kept) < len(rs):
                note = "\n(by seat only where some seat's points differ; --all shows every seat)"
            rs = kept
        table = [[TITLES.get(group, group), "base", "variant", "difference", "test", "p", "Holm p", ""]]
        for r in rs:
            table.append([r["metric"] + (" %" if r["unit"] == "%" else ""), _fmt(r["base"], r["unit"]),
                          _fmt(r["variant"], r["unit"]), _fmt_diff(r), r["test"] or "-", _p(r["p"]),
                          _p(r["p_holm"]), "*" if r["significant"] else ""])
        widths = [max(len(x[i]) for x in table) for i in range(len(table[0]))]
        lines = ["  ".join(c.ljust(w) if i in (0, 4) else c.rjust(w) for i, (c, w) in
                           enumerate(zip(x, widths, strict=True))).rstrip() for x in table]
        lines.insert(1, "  ".join("-" * w for w in widths))
        out.append("\n" + "\n".join(lines) + note)
    return "\n".join(out)


# ----- the command -----------------------------------------------------------------------------------
def same_deals(a: Ruleset, b: Ruleset, n: int, seed: int) -> bool:
    """Whether both rulesets deal the same tiles and cards from this seed (then from every seed: a deal
    depends only on the tile mix, the set-aside count and the decks)."""
    da, db = deal(a, n, seed), deal(b, n, seed)

    def names(rs: Ruleset, d: Any) -> Any:
        return ([[rs.tile_name(*x) for x in s] for s in d.set_aside], [[rs.tile_name(*x) for x in s] for s in d.supply],
                d.decks)

    return names(a, da) == names(b, db)


def _check(rs: Ruleset, players: int, label: str) -> None:
    lo, hi = rs.players
    if not lo <= players <= hi:
        raise RebirthError.single(f"--players {players}: {label} {rs.title} is for {lo} to {hi} players")


def run_both(jobs: list[Job], games: int, workers: int, backend: str, progress: Callable[[int], None],
             rulesets: Sequence[Ruleset] = ()) -> list[list[GameResult]]:
    """Play each job's games on the backend (Ray started once for all of them; `native`: random seats on
    the compiled C engine, as `simulate --backend native`, each job with its ruleset in `rulesets`)."""
    if backend == "native":
        return [run_native(job, rs, games, workers, progress) for job, rs in zip(jobs, rulesets, strict=True)]
    if backend != "ray":
        return [run_local(job, games, workers, progress) for job in jobs]
    try:
        import ray  # an optional extra, imported only for this backend
    except ImportError:
        raise RebirthError.single("--backend ray needs Ray: pip install 'rebirth-dsl[ray]'") from None
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        return [run_ray(job, games, workers, progress) for job in jobs]
    finally:
        if started:
            ray.shutdown()


def compare(base_rules: Path, base_board: Path, var_rules: Path, var_board: Path, games: int, players: int,
            agents: list[str], seed: int, workers: int = 1, backend: str = "local", test: str = "t",
            progress: Callable[[int], None] | None = None, map_stats: bool = False
            ) -> tuple[dict[str, Any], list[dict[str, Any]], Side, Side]:
    """Play both rulesets on the same seeds; return the report, its rows, and both sides with their games
    (with `map_stats`, each game keeps its map: play/mapstats.py)."""
    rs_b, _ = load_ruleset(base_rules, base_board)
    rs_v, _ = load_ruleset(var_rules, var_board)
    _check(rs_b, players, "base")
    _check(rs_v, players, "variant")
    if not 1 <= games <= MAX_GAMES:
        raise RebirthError.single(f"--games {games}: from 1 to {MAX_GAMES:,}")
    if test not in ("t", "wilcoxon"):
        raise RebirthError.single(f"--test {test}: t or wilcoxon")
    check_workers(workers)
    for a in set(agents):
        if getattr(make_agent(a), "needs_terminal", False):
            raise RebirthError.single(f"agent {a!r} asks a person at a terminal; compare plays without one")
    jobs = [Job(str(r.resolve()), str(b.resolve()), players, tuple(agents), seed, map_stats=map_stats)
            for r, b in ((base_rules, base_board), (var_rules, var_board))]
    t0 = time.perf_counter()
    if backend == "native" and any(a != "random" for a in agents):
        raise RebirthError.single("--backend native plays random agents only (--agents random)")
    res_b, res_v = run_both(jobs, games, workers, backend, progress or (lambda k: None), (rs_b, rs_v))
    seconds = time.perf_counter() - t0
    base = Side(base_rules, base_board, rs_b, res_b)
    var = Side(var_rules, var_board, rs_v, res_v)
    rows = compare_rows(base, var, players, test)
    names = DEFAULT_NAMES[:players]
    report: dict[str, Any] = {
        "games": games, "players": players, "agents": agents, "seed": seed, "backend": backend, "workers": workers,
        "seconds": round(seconds, 3), "same_deals": same_deals(rs_b, rs_v, players, game_seed(seed, 0)),
        "alpha": ALPHA, "correction": "Holm-Bonferroni", "tests": sum(1 for r in rows if r["p"] is not None),
    }
    for key, side in (("base", base), ("variant", var)):
        summary = summarise(side.results, names, agents, side.rs.categories)
        summary.update(describe_runs(side.results, side.rs, players))
        report[key] = {"label": side.label, "title": side.rs.title, "rules": str(side.rules), "board": shown(side.board),
                       "summary": summary}
    return no_negative_zero(report), no_negative_zero(rows), base, var


def plot_data(report: dict[str, Any], rows: list[dict[str, Any]], base: Side, var: Side) -> dict[str, Any]:
    """What the charts draw, as plain data (present/plots.py knows nothing of games)."""
    def pick(group: str, suffix: str = "") -> list[dict[str, Any]]:
        return [r for r in rows if r["group"] == group and r["metric"].endswith(suffix)]

    return {
        "labels": [base.rs.title, var.rs.title],
        "scores": [[s for r in side.results for s in r[0]] for side in (base, var)],
        "seat_scores": [[[r[0][q] for r in side.results] for q in range(report["players"])] for side in (base, var)],
        "wins": pick("seats")[: report["players"]],
        "shares": pick("shares"),
        "missions": pick("missions", ": fulfilled") + pick("public missions", ": fulfilled"),
        "changes": [{**r, "panel": _panel(r)} for r in changed_rows(rows)],
    }


def changed_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows changes.png draws, in the text's order: every paired difference with an interval (a
    category's rows by seat only where the text shows them)."""
    shown = {r["category"] for r in rows if "seat" in r and (r["significant"] or r["base"] != r["variant"])}
    return [r for r in rows if r["group"] in ("points", "game", "seats", "shares", "per game")
            and r["diff"] is not None and r["diff_ci"] is not None and ("seat" not in r or r["category"] in shown)]


def _panel(r: dict[str, Any]) -> str:
    """The unit a row's difference is drawn in on changes.png."""
    if "panel" in r:
        return str(r["panel"])
    if r["unit"] == "%":
        return PERCENT
    return "a game" if r["group"] == "per game" or r["metric"] in COUNTS else "points a game"


def compare_command(args: argparse.Namespace) -> int:
    """Run `rebirth compare BASE VARIANT`."""
    base_rules, base_board = rules_and_board(args.base, args.board)
    var_rules = find("rules", args.variant)
    if args.variant_board:
        var_board = board_for(var_rules, args.variant_board) or base_board  # named: always found
    elif args.board:  # a base board named and no variant board: the variant plays on it too
        var_board = base_board
    else:  # the variant's own board (its `board` statement, or a variant of Scotland: Scotland's), else the base's
        var_board = board_for(var_rules) or base_board
    plot_dir = Path(args.plot) if args.plot else None
    if plot_dir is not None:
        check_output_folder(plot_dir, "--plot")  # before the games, as --out and --map-stats
    agents = agent_list(default_agents(args.agents, args.backend), args.players)
    target = export.prepare(args, [(base_rules, base_board), (var_rules, var_board)])  # refused before any game
    map_dir = getattr(args, "map_stats", None)  # None: off; "": tables and JSON; else a folder (play/mapstats.py)
    if map_dir is not None:
        from rebirth_dsl.play.mapstats import check_compare_maps
        check_compare_maps(base_board, var_board, map_dir, args.backend)
    progress = Progress(2 * args.games, sys.stderr.isatty() and not args.no_progress)
    report, rows, base, var = compare(base_rules, base_board, var_rules, var_board, args.games, args.players, agents,
                                      args.seed, args.workers, args.backend, args.test, progress,
                                      map_stats=map_dir is not None)
    if target is not None:
        seeds = [game_seed(args.seed, i) for i in range(args.games)]
        report["out"] = [shown(p) for p in export.export_compare(target, args, agents, (base, var), seeds)]
    map_text = ""
    if map_dir is not None:
        from rebirth_dsl.play.mapstats import compare_maps
        map_text = compare_maps(report, base.rs, base.results, var.rs, var.results, map_dir)
    if plot_dir is not None:
        report["plots"] = [shown(p) for p in write_charts(plot_data(report, rows, base, var), plot_dir)]
    if args.json:
        print(json.dumps({**report, "rows": rows}, indent=2))
    else:
        print(render(report, rows, args.all))
        if plot_dir is not None:
            print(f"\ncharts: {', '.join(report['plots'])}")
        if target is not None:
            print(f"\nwrote {', '.join(report['out'])}")
        print(map_text, end="")
    return 0
