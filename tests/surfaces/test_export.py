"""`rebirth simulate --out DIR` and `rebirth compare --out DIR`: the games as a table, read back by pandas
(issue 23, item 6). pandas and pyarrow are test dependencies only (the `test` and `parquet` extras)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import BOARDS, ROOT, RULES

from rebirth_dsl.files import atomic_file
from rebirth_dsl.play import export, simulate
from rebirth_dsl.records.record import load_ruleset

SCOTLAND = RULES / "scotland.rules"
CATEGORIES = ["farms", "harbours", "areas", "incomplete_areas", "castles", "missions"]


def _games(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "games.csv")


def test_simulate_out_reads_back_with_its_dtypes_and_the_json_numbers(run_cli, tmp_path: Path) -> None:
    """A seeded run: one row per game and seat with integer, string and boolean columns; each row's categories
    add up to its total; the seat means, category means and win rates are `--json`'s for the same seed."""
    code, out, err = run_cli("simulate", "--games", "12", "--players", "3", "--seed", "4", "--json", "--no-progress")
    assert code == 0, err
    summary = json.loads(out)
    folder = tmp_path / "run"  # created: its parent exists
    code, out, err = run_cli("simulate", "--games", "12", "--players", "3", "--seed", "4", "--out", folder,
                             "--no-progress")
    assert code == 0, err
    assert f"wrote {folder / 'games.csv'}, {folder / 'games.json'}" in out
    df = _games(folder)
    assert len(df) == 36 and list(df.columns[:6]) == ["game", "seed", "seat", "player", "players", "agent"]
    for col in ["game", "seed", "seat", "players", *CATEGORIES, "total", "place", "winners", "moves", "passes",
                "fallbacks"]:
        assert df[col].dtype == "int64", col
    assert df["winner"].dtype == bool
    for col in ["player", "agent", "rules", "board", "rules_sha256", "board_sha256"]:
        assert pd.api.types.is_string_dtype(df[col]), col
    assert (df[CATEGORIES].sum(axis=1) == df["total"]).all()
    assert (df["seed"] == 4 * 1_000_000 + df["game"]).all() and set(df["rules"]) == {"scotland"}
    # each game: its winners placed 1st and flagged, as many as `winners` says; places follow the totals
    for _, g in df.groupby("game"):
        assert g["winner"].sum() == g["winners"].iloc[0] >= 1
        assert (g.loc[g["winner"], "place"] == 1).all() and (g.loc[~g["winner"], "place"] > 1).all()
        assert g.sort_values("place")["total"].is_monotonic_decreasing
    seats = df.groupby("seat")
    for s in summary["seats"]:
        rows = seats.get_group(s["seat"])
        assert rows["total"].mean() == pytest.approx(s["mean"], abs=1e-3)
        assert (rows["total"].min(), rows["total"].max()) == (s["min"], s["max"])
        assert (rows["winner"] / rows["winners"]).mean() == pytest.approx(s["win_rate"], abs=1e-4)
        for c in CATEGORIES:
            assert rows[c].mean() == pytest.approx(s["categories"][c], abs=1e-3), c
    assert df.groupby("game")["moves"].first().mean() == pytest.approx(summary["per_game"]["moves"]["mean"])
    meta = json.loads((folder / "games.json").read_text(encoding="utf-8"))
    assert meta["command"] == "simulate" and meta["seed"] == 4 and meta["games"] == 12 and meta["rows"] == 36
    assert meta["argv"][:2] == ["rebirth", "simulate"] and meta["files"] == ["games.csv"]
    assert [c["name"] for c in meta["columns"]] == list(df.columns)
    (ruleset,) = meta["rulesets"]
    assert ruleset["categories"] == CATEGORIES and ruleset["rules_sha256"] == df["rules_sha256"][0]
    assert len(ruleset["content"]) == 64


def test_compare_out_pairs_both_sides_by_seed(run_cli, tmp_path: Path) -> None:
    """Both sides in one table, paired by seed; a category one side lacks is an empty cell on its rows."""
    towns = tmp_path / "towns.rules"  # renames the base's `areas` category
    towns.write_text(f'ruleset towns "Scotland, towns" extends "{SCOTLAND.as_posix()}"\n'
                     "area settlement as towns {\n  pay size 3: 8, 5, 0  # S-A3\n}\n", encoding="utf-8")
    folder = tmp_path / "lab"
    code, out, err = run_cli("compare", "scotland", towns, "--games", "5", "--players", "3", "--seed", "2",
                             "--out", folder, "--no-progress", "--json")
    assert code == 0, err
    assert json.loads(out)["out"] == [str(folder / "games.csv"), str(folder / "games.json")]
    df = _games(folder)
    assert len(df) == 2 * 5 * 3 and list(df["side"].unique()) == ["base", "variant"]
    assert "towns" in df.columns and "areas" in df.columns
    base, var = df[df["side"] == "base"], df[df["side"] == "variant"]
    assert base["towns"].isna().all() and var["areas"].isna().all() and base["areas"].notna().all()
    assert (df[[*CATEGORIES, "towns"]].sum(axis=1) == df["total"]).all()
    paired = base.merge(var, on=["seed", "seat"], suffixes=("_b", "_v"))
    assert len(paired) == 15 and (paired["game_b"] == paired["game_v"]).all()
    assert (paired["areas_b"] == paired["towns_v"]).all()  # a renamed category plays the same games
    assert (paired["total_b"] == paired["total_v"]).all()
    meta = json.loads((folder / "games.json").read_text(encoding="utf-8"))
    assert [r["side"] for r in meta["rulesets"]] == ["base", "variant"]
    assert meta["rulesets"][1]["rules"] == str(towns) and meta["rulesets"][0]["rules"] == "scotland"
    assert {c["name"]: c["nullable"] for c in meta["columns"]}["towns"] is True


def test_parquet_round_trip(run_cli, tmp_path: Path) -> None:
    """`--format parquet` writes games.parquet beside games.csv: the same table, with typed columns and the
    metadata inside."""
    pytest.importorskip("pyarrow")
    code, out, err = run_cli("simulate", "--games", "4", "--players", "2", "--seed", "1", "--out", tmp_path,
                             "--format", "parquet", "--no-progress")
    assert code == 0, err
    pq = pd.read_parquet(tmp_path / "games.parquet")
    csv = _games(tmp_path)
    pd.testing.assert_frame_equal(pq, csv, check_dtype=False)
    assert pq["winner"].dtype == bool and pq["total"].dtype == "int64"
    import pyarrow.parquet

    meta = pyarrow.parquet.read_schema(tmp_path / "games.parquet").metadata[b"rebirth_dsl.games"]
    assert json.loads(meta)["files"] == ["games.csv", "games.parquet"]


def test_parquet_without_pyarrow_is_a_usage_error(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pyarrow, `--format parquet` names the extra to install, exit 2, before any game."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` raises ImportError
    code, out, err = run_cli("simulate", "--games", "2", "--out", tmp_path, "--format", "parquet")
    assert code == 2 and "pip install 'rebirth-dsl[parquet]'" in err and not list(tmp_path.iterdir())
    code, _, err = run_cli("compare", "scotland", "variants/korean-castles", "--out", tmp_path, "--format", "parquet")
    assert code == 2 and "rebirth-dsl[parquet]" in err
    code, _, err = run_cli("simulate", "--format", "parquet")
    assert code == 2 and "--format parquet needs --out DIR" in err


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game played fails the test: the refusals come first."""
    def played(*args: object, **kw: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(simulate, "run_local", played)


def test_an_output_that_cannot_be_written_is_refused_before_any_game(run_cli, tmp_path: Path, no_games) -> None:
    """A file where the folder should be, a missing parent, a link to nothing, an earlier run (without
    --force): refused at once."""
    a_file = tmp_path / "f.txt"
    a_file.write_text("mine", encoding="utf-8")
    code, _, err = run_cli("simulate", "--games", "3", "--out", a_file)
    assert code == 1 and "not a folder" in err and a_file.read_text(encoding="utf-8") == "mine"
    code, _, err = run_cli("simulate", "--games", "3", "--out", tmp_path / "no" / "such")
    assert code == 1 and "does not exist" in err
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    code, _, err = run_cli("simulate", "--games", "3", "--out", tmp_path / "dangling")
    assert code == 1 and "a symbolic link to nothing" in err
    (tmp_path / "games.csv").write_text("earlier", encoding="utf-8")
    code, _, err = run_cli("simulate", "--games", "3", "--out", tmp_path)
    assert code == 1 and "games.csv of an earlier run" in err and "--force" in err
    assert (tmp_path / "games.csv").read_text(encoding="utf-8") == "earlier"


def test_force_replaces_our_files_only_and_never_an_input(run_cli, tmp_path: Path) -> None:
    """--force replaces games.* (a stale games.parquet goes, so one run's files never mix with another's);
    other files stay; a games.* file that is an input of the command is never written over."""
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "games.csv").write_text("earlier", encoding="utf-8")
    (tmp_path / "games.parquet").write_bytes(b"earlier")
    code, _, err = run_cli("simulate", "--games", "2", "--players", "2", "--out", tmp_path, "--force", "--no-progress")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "games.json", "notes.txt"]
    assert len(_games(tmp_path)) == 4 and (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"
    board = tmp_path / "games.json"
    shutil.copyfile(BOARDS / "scotland.json", board)
    code, _, err = run_cli("simulate", "--games", "2", "--board", board, "--out", tmp_path, "--force")
    assert code == 1 and "will not overwrite an input" in err
    assert board.read_bytes() == (BOARDS / "scotland.json").read_bytes()


def test_place_ranks_winners_first_and_shares_ties_below() -> None:
    """Places: the winners 1st (a tie-broken tie puts the loser 2nd), equal totals below share a place."""
    assert [export.place([10, 10, 5], [1], q) for q in range(3)] == [2, 1, 3]
    assert [export.place([10, 10, 5], [0, 1], q) for q in range(3)] == [1, 1, 3]
    assert [export.place([12, 7, 7, 3], [0], q) for q in range(4)] == [1, 2, 2, 4]
    assert export.columns(["total", "farms"], False)[6].name == "total_points"


def test_a_rows_seed_replays_its_game(run_cli, tmp_path: Path) -> None:
    """`rebirth play --seed SEED` with a row's seed and agents plays that very game: the same points."""
    code, _, err = run_cli("simulate", "--games", "3", "--players", "3", "--seed", "7", "--out", tmp_path,
                           "--no-progress")
    assert code == 0, err
    games = _games(tmp_path)
    row = games.iloc[-1]  # the last game's last seat
    agents = ",".join(games[games["game"] == row["game"]].sort_values("seat")["agent"])  # the lab's default
    record = tmp_path / "g.json"
    code, _, err = run_cli("play", "--players", "3", "--seed", str(row["seed"]), "--agents", agents,
                           "-o", record, "--quiet")
    assert code == 0, err
    code, out, err = run_cli("eval", record, "--json")
    assert code == 0, err
    cat = json.loads(out)["players"][int(row["seat"]) - 1]
    assert cat["score"] == row["total"] and cat["breakdown"] == {c: row[c] for c in CATEGORIES}


def test_a_write_that_fails_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table is written to a temp file and renamed into place: a failure halfway leaves neither the table
    nor the temp file; a run whose Parquet fails keeps its CSV but has no games.json (the metadata comes
    last, so a folder without it holds no finished run)."""
    with pytest.raises(RuntimeError), atomic_file(tmp_path / "t.csv") as f:
        f.write("half a row")
        raise RuntimeError("disk gone")
    assert not list(tmp_path.iterdir())

    def broken(*args: object) -> None:
        raise RuntimeError("pyarrow failed")

    pytest.importorskip("pyarrow")
    monkeypatch.setattr(export, "write_parquet", broken)
    args = type("Args", (), {"out": str(tmp_path / "run"), "format": "parquet", "force": False, "games": 1,
                             "players": 2, "seed": 0, "backend": "local", "workers": 1})()
    target = export.prepare(args, [(SCOTLAND, BOARDS / "scotland.json")])
    assert target is not None
    with pytest.raises(RuntimeError):
        export.export_simulate(target, args, load_ruleset(SCOTLAND, BOARDS / "scotland.json")[0], ["random"] * 2,
                               [], [])
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["games.csv"]  # no Parquet, no temp, no json


def test_the_readme_pandas_example_runs(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's three lines of pandas, run as written on the compare it names (with fewer games)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**The games as a table.**"):]
    command = re.search(r"`(rebirth compare [^`]*--out lab)`", section)
    code_block = re.search(r"```python\n(.*?)```", section, re.S)
    assert command and code_block
    monkeypatch.chdir(tmp_path)
    args = command.group(1).split()[1:]
    args[args.index("--games") + 1] = "3"
    code, _, err = run_cli(*args, "--no-progress")
    assert code == 0, err
    code_lines = code_block.group(1)
    assert len(code_lines.strip().splitlines()) == 3
    printed: list[object] = []
    exec(code_lines, {"print": printed.append})
    (means,) = printed
    assert list(means.index) == [(side, seat) for side in ("base", "variant") for seat in (1, 2, 3)]
