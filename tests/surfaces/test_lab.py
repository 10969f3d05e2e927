"""The balance lab (`rebirth compare`), the intervals of `simulate`, forecasts and hints (issue 12).

Seeded and small: a few dozen games per run. The statistics are checked against scipy where it is
installed (the lab itself never needs it)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES, TESTS

from rebirth_dsl.play import stats
from rebirth_dsl.play.agents import RandomAgent
from rebirth_dsl.play.forecast import forecast, hint, resample
from rebirth_dsl.play.lab import category_pairs, compare
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.simulate import Job, run_local
from rebirth_dsl.play.tally import play_tallied
from rebirth_dsl.records.record import load_record, load_ruleset, replay
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal

SCOTLAND = RULES / "scotland.rules"
SCOTLAND_BOARD = BOARDS / "scotland.json"
LAB = TESTS / "lab"


def variant(tmp_path: Path, name: str, body: str) -> Path:
    """A variant of Scotland in a temporary file (it plays on Scotland's board)."""
    p = tmp_path / f"{name}.rules"
    p.write_text(f'ruleset {name} "Scotland, {name}" extends "{SCOTLAND.as_posix()}"\n{body}\n', encoding="utf-8")
    return p


def run(tmp_rules: Path, games: int = 40, players: int = 3, workers: int = 1, backend: str = "local", seed: int = 5):
    report, rows, _, _ = compare(SCOTLAND, SCOTLAND_BOARD, tmp_rules, SCOTLAND_BOARD, games, players,
                                 ["random"] * players, seed, workers, backend)
    return report, rows


# ----- statistics --------------------------------------------------------------------------------------
def test_statistics_match_scipy() -> None:
    """t, Wilcoxon, McNemar, Welch and the t quantile agree with scipy to many digits."""
    sp = pytest.importorskip("scipy.stats")
    rng = random.Random(1)
    d = [rng.gauss(0.3, 1) for _ in range(50)]
    assert stats.paired_t(d)[0] == pytest.approx(sp.ttest_1samp(d, 0).pvalue, rel=1e-9)
    r = [round(x) for x in d]
    assert stats.wilcoxon(r) == pytest.approx(
        sp.wilcoxon(r, zero_method="wilcox", correction=True, method="approx").pvalue, rel=1e-9)
    assert stats.mcnemar(10, 25) == pytest.approx(sp.binomtest(10, 35).pvalue, rel=1e-9)
    x = [rng.gauss(0, 1) for _ in range(40)]
    y = [rng.gauss(0.5, 2) for _ in range(60)]
    assert stats.welch(x, y)[0] == pytest.approx(sp.ttest_ind(y, x, equal_var=False).pvalue, rel=1e-9)
    for df in (1, 3, 30, 2000):
        assert stats.t_quantile(0.975, df) == pytest.approx(sp.t.ppf(0.975, df), rel=1e-9)


def test_holm_and_degenerate_cases() -> None:
    """Holm steps down and never decreases; identical samples give p = 1, a constant shift p = 0."""
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.paired_t([0.0] * 10)[0] == 1.0
    assert stats.paired_t([2.0] * 10)[0] == 0.0
    assert stats.wilcoxon([0, 0, 0]) == 1.0 and stats.mcnemar(0, 0) == 1.0
    assert stats.pitman_morgan([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    lo, hi = stats.wilson(0, 20)
    assert lo == 0.0 and 0.1 < hi < 0.2
    assert stats.mean_ci([5.0] * 7) == (5.0, 5.0, 5.0)


# ----- per-game data -----------------------------------------------------------------------------------
def _truth(rs, names, seed):
    """Landmarks changing hands, claims and fallbacks, counted on the reference engine by comparing every
    landmark's owner before and after each move of the same random game."""
    g, moves = play_game(rs, names, [RandomAgent()] * len(names), seed)
    ref = Game(rs, names, deal(rs, len(names), seed))
    ref.auto_choose = None
    n = len(names)
    changes = [[0] * n for _ in rs.majorities]
    claims = [[0] * n for _ in rs.majorities]
    stmt = {lm: i for i, m in enumerate(rs.majorities) for lm in m.landmarks}
    fallbacks = [0] * n
    for m in moves:
        p = names.index(m["player"])
        tile = rs.parse_tile(m["tile"])
        h = rs.t.index[tuple(m["hex"])] if m["hex"] else None
        if h is not None:
            fallbacks[p] += ref.t.hex_kind[h] not in rs.primary.get(tile[0], ())
        before = list(ref.lm_owner)
        ref.play(p, tile, h, None, m.get("choices", {}))
        for lm, (a, b) in enumerate(zip(before, ref.lm_owner, strict=True)):
            if a != b:
                (changes if a >= 0 else claims)[stmt[lm]][b] += 1
    return g, changes, claims, fallbacks


@pytest.mark.parametrize("rules,board,n,seed", [
    ("scotland.rules", "scotland.json", 3, 1), ("scotland.rules", "scotland.json", 2, 4),
    ("ireland.rules", "ireland.json", 4, 2), ("variants/korean-castles.rules", "scotland.json", 3, 3)])
def test_the_tally_counts_what_the_reference_engine_does(rules: str, board: str, n: int, seed: int) -> None:
    """Changes of hands, claims, fallbacks, passes, length, private and public missions of a quiet game
    on the generated engine equal those read off the same game played move by move on the reference one."""
    rs = load_ruleset(RULES / rules, BOARDS / board)[0]
    names = DEFAULT_NAMES[:n]
    g, tally = play_tallied(rs, names, ("random",) * n, seed)
    ref, changes, claims, fallbacks = _truth(rs, names, seed)
    end = g.end_events()
    x = tally.extra(g, end)
    assert x.changes == tuple(map(tuple, changes)) and x.claims == tuple(map(tuple, claims))
    assert x.fallbacks == tuple(fallbacks) and x.passes == tuple(ref.passed) and x.length == ref.move_index
    assert sum(sum(c) for c in x.claims) + sum(sum(c) for c in x.changes) >= 1
    held = [(q, c) for q in range(n) for c in ref.held[q]]
    assert [(q, c) for q, c, _, _ in x.missions] == held
    ref_end = ref.end_events()
    paid = {(e.player, e.text.split("'s card ")[1].split("'")[1]): e.points for e in ref_end if "'s card " in e.text}
    assert all(paid[(q, c)] == pts and ok == (pts > 0) for q, c, ok, pts in x.missions)
    if ref.public:  # Ireland: who fulfilled each face-up card, and the points the events paid
        assert [c for c, _ in x.public] == ref.public
        events = [e for e in ref.events if e.category == rs.public_category and e.points]
        assert sum(p for _, f in x.public for _, p in f) == sum(e.points for e in events)
        assert {c: [q for q, _ in f] for c, f in x.public} == ref.public_by


def test_workers_and_ray_give_identical_comparisons(tmp_path: Path) -> None:
    """`compare` with one worker, two workers and Ray: the same rows, number for number (Ray and matplotlib
    are in the `test` extra: never skipped)."""
    v = variant(tmp_path, "bigtowns", "area settlement {\n  pay size 3: 12, 5, 0  # S-A3\n}")
    one = run(v, games=24, workers=1)[1]
    two = run(v, games=24, workers=2)[1]
    ray = run(v, games=24, workers=2, backend="ray")[1]
    assert one == two == ray


def test_extras_are_the_same_on_every_worker_count() -> None:
    """The per-game extra data travels through the process pool unchanged and in game order."""
    job = Job(str(SCOTLAND), str(SCOTLAND_BOARD), 3, ("random", "greedy", "random"), 9)
    assert run_local(job, 6, 1, lambda k: None) == run_local(job, 6, 2, lambda k: None)


# ----- compare -----------------------------------------------------------------------------------------
def test_a_changed_payout_is_significant(tmp_path: Path) -> None:
    """Size-3 areas paying 12 instead of 8 to the first: more points for every seat and a larger share
    of area points, significant after Holm; the castles do not move (random play is the same game)."""
    v = variant(tmp_path, "bigtowns", "area settlement {\n  pay size 3: 12, 5, 0  # S-A3\n}")
    report, rows = run(v)
    assert report["same_deals"]
    by = {r["metric"]: r for r in rows}
    for q in range(3):
        r = by[f"mean score {q + 1} {DEFAULT_NAMES[q]}"]
        assert r["significant"] and r["diff"] > 0 and r["test"] == "paired t-test"
    assert by["share of points: areas"]["significant"] and by["share of points: areas"]["diff"] > 0
    assert not by["castles changing hands"]["significant"] and by["castles changing hands"]["diff"] == 0
    assert report["tests"] == sum(1 for r in rows if r["p"] is not None) and report["correction"] == "Holm-Bonferroni"


@pytest.mark.parametrize("body", [
    "area settlement as towns {\n  pay size 3: 8, 5, 0  # S-A3\n}",  # renames a category
    "place food on food, plain  # S-P2\nmajority castle {\n  final tie: owner keeps  # S-K5\n}",  # restates the base
])
def test_a_variant_that_changes_nothing_that_matters_shows_no_difference(tmp_path: Path, body: str) -> None:
    """A renamed category is compared with the one it renames; a restated rule changes no game: nothing is
    significant, and every paired difference is exactly zero."""
    report, rows = run(variant(tmp_path, "same", body))
    assert not [r["metric"] for r in rows if r["significant"]]
    assert all(r["diff"] == 0 for r in rows if r["diff"] is not None)
    if "towns" in body:
        assert any(r["metric"] == "share of points: areas -> towns" for r in rows)


def test_category_pairs() -> None:
    """Same names pair; the leftovers pair in order only when both sides have as many."""
    assert category_pairs(["a", "b", "c"], ["a", "x", "c"]) == [("a", "a"), ("b", "x"), ("c", "c")]
    assert category_pairs(["a", "b"], ["a", "x", "y"]) == [("a", "a"), ("b", None), (None, "x"), (None, "y")]


def test_compare_cli_json_and_plots(run_cli, tmp_path: Path) -> None:
    """`rebirth compare BASE VARIANT --json --plot DIR`: one JSON object with the rows, and five PNG charts."""
    charts = tmp_path / "charts"
    code, out, err = run_cli("compare", "scotland", "variants/korean-castles", "--games", "12", "--players", "3",
                             "--seed", "2", "--json", "--plot", charts, "--no-progress")
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 12 and data["same_deals"] and data["rows"]
    assert {p.name for p in charts.iterdir()} == {"scores.png", "shares.png", "wins.png", "changes.png", "missions.png"}
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in charts.iterdir())
    code, out, err = run_cli("compare", "scotland", "variants/korean-castles", "--games", "8", "--no-progress")
    assert code == 0, err
    assert "castles changing hands" in out and "Holm-Bonferroni" in out


def test_simulate_reports_intervals_and_missions(run_cli) -> None:
    """`simulate --json` carries the intervals, category shares, per-game counts and the mission table."""
    code, out, err = run_cli("simulate", "--games", "10", "--players", "3", "--json", "--no-progress")
    assert code == 0, err
    s = json.loads(out)
    seat = s["seats"][0]
    assert seat["mean_ci"][0] <= seat["mean"] <= seat["mean_ci"][1]
    assert seat["win_ci"][0] <= seat["win_rate"] <= seat["win_ci"][1]
    assert abs(sum(v["mean"] for v in s["shares"].values()) - 1) < 1e-3
    assert s["per_game"]["moves"]["mean"] == 102 and "castles changing hands" in s["per_game"]
    assert sum(m["held"] for m in s["missions"].values()) > 0
    code, out, err = run_cli("simulate", "--rules", "ireland", "--games", "4", "--players", "3", "--no-progress")
    assert code == 0, err
    assert "public mission (face up)" in out


# ----- forecasts and hints -----------------------------------------------------------------------------
def _scenario_game() -> Game:
    path = LAB / "hint_area_for_eight.json"
    rec = json.loads(path.read_text(encoding="utf-8"))["record"]
    r = replay(load_record(path, data=rec, allow_paths=True))  # the test board lies beside the folder
    assert r.error is None
    return r.game


def test_hint_ranks_the_area_completion_first() -> None:
    """Ann's settlement:1 completes Lewis for 8 on (1,2); the other hexes score 1 or 0: (1,2) comes first,
    with the margin the position's arithmetic gives (8 - 20)."""
    game = _scenario_game()
    h = hint(game, 0, game.rs.parse_tile("settlement:1"), playouts=8)
    best = h["moves"][0]
    assert best["hex"] == [1, 2] and best["points"] == 8 and best["margin"]["mean"] == -12
    assert [m["margin"]["mean"] for m in h["moves"][1:]] == [-15, -16, -16]
    assert sorted(m["points"] for m in h["moves"][1:]) == [0, 0, 1]


def test_hint_cli_on_a_scenario(run_cli, tmp_path: Path) -> None:
    """`rebirth hint GAME --tile --player --as-is` on a scenario record prints the ranking; the area move first.
    (--as-is: this test board holds more settlement:1 tiles than a colour has, so no deal can follow it.)"""
    rec = json.loads((LAB / "hint_area_for_eight.json").read_text(encoding="utf-8"))["record"]
    rec["board"] = str((ROOT / "rules" / "positions" / "scotland" / "areas.json").as_posix())
    f = tmp_path / "s.json"
    f.write_text(json.dumps(rec), encoding="utf-8")
    code, out, err = run_cli("hint", f, "--allow-paths", "--tile", "settlement:1", "--player", "Ann", "--playouts",
                             "4", "--json", "--as-is")
    assert code == 0, err
    assert json.loads(out)["moves"][0]["hex"] == [1, 2]
    code, _, err = run_cli("hint", f, "--allow-paths", "--playouts", "4", "--as-is")
    assert code == 1 and "--tile" in err
    code, _, err = run_cli("hint", f, "--allow-paths", "--tile", "settlement:1", "--playouts", "4")
    assert code == 1 and "more tiles on the board than one colour has" in err and "--as-is" in err


def test_forecast_of_a_finished_game_is_its_result(run_cli) -> None:
    """`eval --forecast` on a finished game: the actual final scores, intervals of zero width."""
    code, out, err = run_cli("eval", "scotland-3p", "--forecast", "--json")
    assert code == 0, err
    data = json.loads(out)
    f = data["forecast"]
    assert f["exact"] and f["playouts"] == 0
    for p, real in zip(f["players"], data["players"], strict=True):
        assert p["final"]["mean"] == real["score"] and p["final"]["ci"] == [real["score"], real["score"]]
        assert p["win"]["ci"][0] == p["win"]["ci"][1] == (1.0 if p["name"] in data["winners"] else 0.0)


def _unfinished() -> Game:
    return replay(load_record(ROOT / "examples" / "unfinished.json")).game


def test_resample_keeps_what_the_viewer_knows() -> None:
    """A re-deal keeps the viewer's hand, cards and set-aside tiles (visible in Scotland), every count and
    every colour's tiles; it changes what the viewer cannot see."""
    game = _unfinished()
    v = game.turn
    changed = False
    for seed in range(5):
        g = game.fork()
        resample(g, v, random.Random(seed))
        assert g.hand[v] == game.hand[v] and g.held[v] == game.held[v] and g.set_aside[v] == game.set_aside[v]
        assert sorted(g.supply[v]) == sorted(game.supply[v])
        for q in range(game.n_players):
            assert [len(x[q]) for x in (g.hand, g.supply, g.set_aside, g.held)] == \
                   [len(x[q]) for x in (game.hand, game.supply, game.set_aside, game.held)]
            assert sorted(g.hand[q] + g.supply[q] + g.set_aside[q]) == \
                   sorted(game.hand[q] + game.supply[q] + game.set_aside[q])
        cards = lambda x: sorted(c for q in range(x.n_players) for c in x.held[q]) + sorted(  # noqa: E731
            c for d in x.decks.values() for c in d)
        assert sorted(cards(g)) == sorted(cards(game))
        changed |= any(g.supply[q] != game.supply[q] or g.held[q] != game.held[q] for q in range(game.n_players))
    assert changed


def test_forecast_never_reads_hidden_information() -> None:
    """Rearranging what the viewer cannot see (others' tiles and cards, the deck, the viewer's supply order)
    leaves the forecast exactly as it was."""
    game = _unfinished()
    v = game.turn
    before = forecast(game, v, playouts=30, seed=3)
    other = game.clone()
    rng = random.Random(99)
    resample(other, v, rng)  # a different but consistent hidden state
    assert any(other.supply[q] != game.supply[q] for q in range(game.n_players))
    assert forecast(other, v, playouts=30, seed=3) == before
    assert len(before["players"]) == 3 and not before["exact"]
    for p in before["players"]:
        assert p["final"]["ci"][0] <= p["final"]["mean"] <= p["final"]["ci"][1] and p["final"]["mean"] >= p["now"]
    assert abs(sum(p["win"]["mean"] for p in before["players"]) - 1) < 1e-3


def test_forecast_cli_from_another_view(run_cli) -> None:
    """`eval GAME --forecast --as NAME --playouts N --agents greedy` runs and says what it sampled."""
    code, out, err = run_cli("eval", "unfinished", "--forecast", "--as", "Cat", "--playouts", "3", "--agents", "greedy")
    assert code == 0, err
    assert "Forecast from Cat's view" in out and "sampled each playout" in out
