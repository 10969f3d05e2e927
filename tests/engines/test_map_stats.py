"""`rebirth simulate --map-stats`: per hex, area and landmark counts that equal the games they come from,
and the seat fairness test.

The small board rules/positions/scotland/castles.json (13 hexes: 9 farm hexes, the 2-hex area Leith, the
castles Edinburgh and Stirling) is filled in every game: three players hold far more tiles than it has hexes,
so every hex a tile may take is taken each game, by a settlement on Leith's hexes and a farm elsewhere.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES

from rebirth_dsl.play import stats, summary
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.mapstats import map_summary
from rebirth_dsl.play.simulate import Job, run_local
from rebirth_dsl.play.tally import MapTally, play_tallied
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal

CASTLES = ROOT / "rules" / "positions" / "scotland" / "castles.json"
SCOTLAND = (RULES / "scotland.rules", BOARDS / "scotland.json")


def _run(rules: Path, board: Path, players: int, games: int, agents: str = "random", map_stats: bool = True):
    rs = load_ruleset(rules, board)[0]
    job = Job(str(rules), str(board), players, (agents,) * players, 3, map_stats=map_stats)
    return rs, run_local(job, games, 1, lambda k: None)


def test_every_hex_of_a_full_board_is_taken_each_game() -> None:
    """castles.json with 3 players: each of its 11 free hexes is taken in every game, Leith's by
    settlements and the rest by farms; the counts sum to the tiles placed, and each castle ends with one
    seat in every game (the owners per seat sum to the games)."""
    games = 12
    rs, results = _run(RULES / "scotland.rules", CASTLES, 3, games)
    ms = map_summary(results, rs, DEFAULT_NAMES[:3])
    assert ms["games"] == games
    by_kind = {(h["q"], h["r"]): h for h in ms["hexes"]}
    free = [h for h in ms["hexes"] if h["kind"] not in ("castle", "sea")]
    assert len(free) == 11
    for h in free:
        assert h["taken"] == games and h["taken_rate"] == 1.0, h
        assert sum(h["by_kind"].values()) == games
        if h["kind"] == "settlement":
            assert h["by_kind"] == {"settlement": games} and h["area"] == "Leith"
        else:
            assert set(h["by_kind"]) <= {"food", "energy"}
        assert h["points"] is not None and h["points"] >= 1  # a farm scores its group, at least itself
    for xy in ((1, 1), (3, 1)):  # the castles themselves
        assert by_kind[xy]["taken"] == 0 and by_kind[xy]["points"] is None
    placed = sum(r[3].length - sum(r[3].passes) for r in results)
    assert sum(h["taken"] for h in ms["hexes"]) == placed == 11 * games
    [leith] = ms["areas"]
    assert leith["completed"] == games and leith["incomplete"] == 0
    assert leith["contested"] + leith["alone"] + leith["nobody"] == games and leith["nobody"] == 0
    assert {lm["name"] for lm in ms["landmarks"]} == {"Edinburgh", "Stirling"}
    for lm in ms["landmarks"]:
        assert sum(lm["owner_at_end"].values()) + lm["nobody"] == games and lm["nobody"] == 0
    changes = sum(lm["changes"] for lm in ms["landmarks"])  # equal to the per-statement tally's count
    assert changes == sum(sum(sum(s) for s in r[3].changes) for r in results)


def test_contested_counts_the_players_with_influence() -> None:
    """An area's count is, per game, the seats with influence in it at the end (its tiles never move):
    contested with two or more, alone with one."""
    rs, results = _run(*SCOTLAND, 3, 8)
    t = rs.t
    ms = map_summary(results, rs, DEFAULT_NAMES[:3])
    for a, row in enumerate(ms["areas"]):
        assert row["name"] == t.area_names[a]
        assert row["completed"] + row["incomplete"] == 8
        counts = [r[3].map.areas[a] for r in results]
        assert row["contested"] == sum(1 for c in counts if c >= 2)
        assert row["alone"] == sum(1 for c in counts if c == 1)
        if row["size"] == 1:
            assert row["contested"] == 0  # one hex, one tile: one player at most
    assert sum(a["contested"] for a in ms["areas"]) > 0 and sum(a["incomplete"] for a in ms["areas"]) > 0


@pytest.mark.parametrize("seed", [1, 2])
def test_hex_points_are_the_placers_points_of_the_move(seed: int) -> None:
    """The generated engine's quiet game with a MapTally gives each hex what its placer scored on that
    move, as the reference engine's events of the same game say it."""
    rs = load_ruleset(*SCOTLAND)[0]
    names = DEFAULT_NAMES[:3]

    class Recording(MapTally):
        __slots__ = ("played",)

        def append(self, move: tuple[int, int, int, int]) -> None:
            self.played.append(move)
            super().append(move)

    game = Game(rs, names, deal(rs, 3, seed))
    game.quiet = True
    tally = Recording(game)
    tally.played = []
    from rebirth_dsl.pyengine.fast import compiled
    from rebirth_dsl.runtime.setup import seat_rng
    compiled(rs).run_random(game, [seat_rng(seed, i) for i in range(3)], tally)
    ref = Game(rs, names, deal(rs, 3, seed))
    expected = [0] * rs.t.n
    for p, k, v, h in tally.played:
        events = ref.play(p, (k, v), None if h < 0 else h)
        if h >= 0:
            expected[h] = sum(e.points for e in events if e.player == p)
    assert tally.points == expected
    assert sum(expected) > 0 and ref.track == game.track
    # play_tallied gives the same map
    g2, t2 = play_tallied(rs, names, ("random",) * 3, seed, map_stats=True)
    assert t2.points == expected and g2.lm_owner == game.lm_owner


def test_without_the_flag_no_map_is_kept() -> None:
    rs, results = _run(RULES / "scotland.rules", CASTLES, 2, 3, map_stats=False)
    assert all(r[3].map is None for r in results)
    with pytest.raises(Exception, match="without map statistics"):
        map_summary(results, rs, DEFAULT_NAMES[:2])


def test_greedy_seats_keep_a_map_on_the_reference_engine() -> None:
    """Agents other than random play on the reference engine; the MapTally hears their moves too."""
    rs, results = _run(RULES / "scotland.rules", CASTLES, 2, 2, agents="greedy")
    ms = map_summary(results, rs, DEFAULT_NAMES[:2])
    assert all(h["taken"] == 2 for h in ms["hexes"] if h["kind"] not in ("castle", "sea"))


def test_seat_fairness_chi_square() -> None:
    """Against scipy where it is installed; by hand otherwise: wins 30/10/20 of 60 give chi-square 10."""
    x2 = summary.chi2_equal([30.0, 10.0, 20.0], 60)  # (10^2 + 10^2 + 0) / 20
    assert x2 == pytest.approx(10.0)
    assert stats.chi2_sf(x2, 2) == pytest.approx(0.006737947, rel=1e-6)  # e^-5, the 2-df tail at 10
    scipy = pytest.importorskip("scipy.stats")
    for df in range(1, 7):
        for x in (0.0, 0.3, 1.0, 2.5, 7.8, 20.0):
            assert stats.chi2_sf(x, df) == pytest.approx(scipy.chi2.sf(x, df), abs=1e-12)


def test_simulate_map_stats_cli(run_cli) -> None:
    """The text tables and the JSON; the native backend is refused as a usage error."""
    code, out, err = run_cli("simulate", "--board", CASTLES, "--games", "4", "--players", "3", "--map-stats",
                             "--no-progress")
    assert code == 0, err
    assert "seat fairness:" in out and "Leith" in out and "Edinburgh" in out and "contested" in out
    code, out, err = run_cli("simulate", "--board", CASTLES, "--games", "4", "--players", "2", "--map-stats",
                             "--json", "--no-progress")
    assert code == 0, err
    data = json.loads(out)["map"]
    assert data["games"] == 4 and sum(data["fairness"]["wins"]) == pytest.approx(4)
    assert 0.0 <= data["fairness"]["p"] <= 1.0
    code, out, err = run_cli("simulate", "--games", "4", "--map-stats", "--backend", "native")
    assert code == 2 and "--map-stats needs the Python engine" in err
    code, out, _ = run_cli("simulate", "--board", CASTLES, "--games", "2", "--players", "2", "--json", "--no-progress")
    assert code == 0 and "map" not in json.loads(out)


def test_heat_maps_are_drawn_on_the_board(tmp_path: Path) -> None:
    """One SVG per measure, each a well-formed picture of the whole board: on castles.json every free hex is
    taken in every game, so each is drawn in the scale's top colour with the label 100, the castles
    (not covered) faded; the landmark picture has a bar per castle in the seats' colours."""
    import xml.etree.ElementTree as ET

    from rebirth_dsl.play.mapstats import write_maps
    from rebirth_dsl.present.render import HEAT_STOPS

    rs, results = _run(RULES / "scotland.rules", CASTLES, 3, 5)
    ms = map_summary(results, rs, DEFAULT_NAMES[:3])
    written = write_maps(ms, rs, tmp_path / "maps", DEFAULT_NAMES[:3], png=False)
    names = sorted(p.name for p in written)
    assert names == sorted(["taken.svg", "taken-food.svg", "taken-energy.svg", "taken-settlement.svg", "points.svg",
                            "areas-completed.svg", "areas-contested.svg", "landmarks.svg"])
    ns = {"s": "http://www.w3.org/2000/svg"}
    taken = ET.parse(tmp_path / "maps" / "taken.svg").getroot()
    fills = [p.get("fill") for p in taken.iterfind(".//s:polygon", ns)]
    assert len(fills) == 13 and fills.count(HEAT_STOPS[-1]) == 11
    texts = [t.text for t in taken.iterfind(".//s:text", ns)]
    assert texts.count("100") == 11 and "Edinburgh" in texts and "Stirling" in texts
    marks = ET.parse(tmp_path / "maps" / "landmarks.svg").getroot()
    bars = {r.get("fill") for r in marks.iterfind(".//s:rect", ns)}
    assert {"#c62828", "#1f5fbf", "#e6a700"} <= bars  # the three seats' colours
    areas = (tmp_path / "maps" / "areas-completed.svg").read_text()
    assert "Areas completed" in areas and "Leith" in areas


def test_heat_map_pngs(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from rebirth_dsl.play.mapstats import write_maps

    rs, results = _run(RULES / "scotland.rules", CASTLES, 2, 3)
    ms = map_summary(results, rs, DEFAULT_NAMES[:2])
    written = write_maps(ms, rs, tmp_path, DEFAULT_NAMES[:2], png=True)
    pngs = [p for p in written if p.suffix == ".png"]
    assert {p.name for p in pngs} >= {"taken.png", "points.png", "landmarks.png", "overview.png"}
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_simulate_map_stats_dir_cli(run_cli, tmp_path: Path) -> None:
    out_dir = tmp_path / "maps"
    code, out, err = run_cli("simulate", "--board", CASTLES, "--games", "3", "--players", "3", "--no-progress",
                             "--map-stats", out_dir, "--json")
    assert code == 0, err
    pictures = json.loads(out)["map"]["pictures"]
    assert str(out_dir / "taken.svg") in pictures and (out_dir / "landmarks.svg").is_file()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    code, out, err = run_cli("simulate", "--board", CASTLES, "--games", "3", "--map-stats", a_file)
    assert code == 1 and "not a folder" in err and not out
    # a folder that cannot be made is refused before any game, as --out and --plot refuse theirs
    code, out, err = run_cli("simulate", "--board", CASTLES, "--games", "3", "--map-stats", tmp_path / "no" / "maps")
    assert code == 1 and "does not exist" in err and not out
    (out_dir / "taken.svg").unlink()
    (out_dir / "taken.svg").symlink_to(a_file)  # a link among the pictures is not written through
    code, out, err = run_cli("simulate", "--board", CASTLES, "--games", "3", "--map-stats", out_dir)
    assert code == 1 and "symbolic link" in err and a_file.read_text() == "x"


def test_compare_map_stats(run_cli, tmp_path: Path) -> None:
    """compare --map-stats: both sides' maps in the JSON, from the same board; the Korean castle tie
    changes castles' hands, not where the tiles go (random seats make the same choices until it does)."""
    code, out, err = run_cli("compare", "scotland", "variants/korean-castles", "--board", CASTLES, "--games", "6",
                             "--players", "3", "--no-progress", "--json", "--map-stats")
    assert code == 0, err
    report = json.loads(out)
    b, v = report["base"]["map"], report["variant"]["map"]
    assert b["games"] == v["games"] == 6
    assert [h["taken"] for h in b["hexes"]] == [h["taken"] for h in v["hexes"]]
    for side in (b, v):
        assert all(sum(lm["owner_at_end"].values()) + lm["nobody"] == 6 for lm in side["landmarks"])
    code, out, err = run_cli("compare", "scotland", "variants/korean-castles", "--board", CASTLES, "--games", "3",
                             "--players", "3", "--no-progress", "--map-stats", tmp_path / "maps")
    assert code == 0, err
    assert "map statistics, base -> variant" in out and "Stirling" in out
    assert (tmp_path / "maps" / "base" / "taken.svg").is_file() and (tmp_path / "maps" / "variant" / "landmarks.svg").is_file()
    assert "difference maps:" in out
    code, _, err = run_cli("compare", "scotland", "ireland", "--games", "3", "--map-stats")
    assert code == 1 and "one board" in err
    code, _, err = run_cli("compare", "scotland", "variants/korean-castles", "--games", "3", "--map-stats",
                           "--backend", "native")
    assert code == 2 and "--map-stats needs the Python engine" in err


def test_difference_maps_are_variant_minus_base() -> None:
    """compare's difference maps: each hex's value is the variant's minus the base's, on a scale symmetric
    about 0; a side compared with itself differs nowhere (every value 0, no label)."""
    from rebirth_dsl.play.mapstats import difference_maps

    rs, results = _run(RULES / "scotland.rules", CASTLES, 3, 4)
    ms = map_summary(results, rs, DEFAULT_NAMES[:3])
    same = difference_maps(ms, ms, rs, ("a", "b"))
    assert [s for s, _ in same] == ["taken", "points", "areas-completed", "areas-contested", "landmarks"]
    for _, heat in same:
        assert heat.diverging and heat.lo == -heat.hi
        assert all(v in (None, 0) for v in heat.values) and not any(heat.labels)
    rs2, other = _run(RULES / "variants" / "korean-castles.rules", CASTLES, 3, 4)
    mv = map_summary(other, rs2, DEFAULT_NAMES[:3])
    diff = dict(difference_maps(ms, mv, rs, ("a", "b")))["landmarks"]
    for lb, lv in zip(ms["landmarks"], mv["landmarks"], strict=True):
        h = rs.t.landmark_hex[rs.t.landmark_name.index(lb["name"])]
        assert diff.values[h] == pytest.approx(lv["changes_per_game"] - lb["changes_per_game"])


@pytest.mark.parametrize("agents", [("random",) * 3, ("greedy", "random", "random")])
def test_a_map_tally_counts_what_a_tally_counts(agents: tuple[str, ...]) -> None:
    """--map-stats adds the map and changes nothing else a game reports: the lead on the track, landmarks
    changing hands, fallbacks and passes are the same with and without it."""
    rs = load_ruleset(*SCOTLAND)[0]
    for seed in (3, 4):
        plain = play_tallied(rs, DEFAULT_NAMES[:3], agents, seed)
        mapped = play_tallied(rs, DEFAULT_NAMES[:3], agents, seed, map_stats=True)
        extra, extra_map = plain[1].extra(plain[0], plain[0].end_events()), mapped[1].extra(mapped[0], mapped[0].end_events())
        assert extra_map.map is not None and extra.map is None
        assert replace(extra_map, map=None) == extra
        assert extra.lead_changes is not None and extra.lead_from is not None  # measured, not None as native
