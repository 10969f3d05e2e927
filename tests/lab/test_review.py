"""`rebirth review` marks a planted blunder (issue 24 item 4): a move that gives away an 8-point area.

The record is built here on the test board rules/positions/scotland/areas.json (Scotland's rules, two
players, each colour's tiles in an order chosen so the position arises by the turn rule):

- Ann's supply: settlement:1 x2, settlement:2 x4, settlement:3 x3, settlement:4, settlement:1, then her
  23 farms; her set-aside tiles: settlement:4 and a food farm, so her 11 settlements are all placed by
  move 20 and none is left for later.
- Bob's supply: his 22 farms first (10 food, 12 energy; 2 food set aside), then his 12 settlements. The
  board has 2 plains and no farm symbol: his first two farms go on the plains, the others pass (S-P5).
- Ann fills Lewis's (1,1) and (2,1) with her two settlement:1, then every other settlement hex but Iona
  (0,0); at move 20 she holds her last settlement:1 with two free hexes: (1,2) completes Lewis, (0,0)
  completes Iona. The record plants (0,0).

By hand (S-A1..S-A3), Bob's first settlement afterwards (v, drawn evenly from his 12: s1 x3, s2 x4,
s3 x3, s4 x2, as Ann sees it) goes on the last free settlement hex, and nothing else scores:
- best, (1,2): Lewis complete, Ann alone: 13; then Bob completes Iona: v. Margin part: 13 - v.
- planted, (0,0): Iona, size 1: Ann 1. Bob completes Lewis: Ann's influence 1 + 1 = 2 against v: v = 1
  Ann 8, Bob 5; v = 2 a tie the completer loses (S-A2): Ann 8, Bob 5; v = 3 or 4: Bob 8, Ann 5.
  Margin part: 1 + 3 (v <= 2) or 1 - 3 (v >= 3).
- lost: v=1: 12 - 4 = 8; v=2: 11 - 4 = 7; v=3: 10 + 2 = 12; v=4: 9 + 2 = 11; expected
  (3*8 + 4*7 + 3*12 + 2*11) / 12 = 110 / 12 = 9.17 points: a blunder (>= 8), every playout between 7 and 12.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT

from rebirth_dsl.play.review import ReviewJob, review

BOARD = ROOT / "rules" / "positions" / "scotland" / "areas.json"
ANN_SETTLEMENTS = ["settlement:1", "settlement:1"] + ["settlement:2"] * 4 + ["settlement:3"] * 3 + [
    "settlement:4", "settlement:1"]
ANN_HEXES = [[1, 1], [2, 1], [1, 0], [2, 0], [3, 0], [4, 0], [3, 1], [4, 1], [3, 2], [0, 2], [0, 0]]
BOB_SUPPLY = ["food"] * 10 + ["energy"] * 12 + ["settlement:1"] * 3 + ["settlement:2"] * 4 + [
    "settlement:3"] * 3 + ["settlement:4"] * 2


def planted(tmp_path: Path) -> Path:
    """The record of the module's docstring, written beside the test."""
    moves = []
    bob_hexes = [[0, 1], [2, 2]] + [None] * 8
    for i in range(11):
        moves.append({"player": "Ann", "tile": ANN_SETTLEMENTS[i], "hex": ANN_HEXES[i]})
        if i < 10:
            moves.append({"player": "Bob", "tile": BOB_SUPPLY[i], "hex": bob_hexes[i]})
    rec = {"rules": "scotland", "board": BOARD.as_posix(), "players": ["Ann", "Bob"],
           "setup": {"supply": {"Ann": ANN_SETTLEMENTS + ["food"] * 11 + ["energy"] * 12, "Bob": BOB_SUPPLY},
                     "set_aside": {"Ann": ["settlement:4", "food"], "Bob": ["food", "food"]}},
           "moves": moves}
    f = tmp_path / "planted.json"
    f.write_text(json.dumps(rec), encoding="utf-8")
    return f


def test_review_marks_the_planted_blunder(tmp_path: Path) -> None:
    """Move 20 (Ann on Iona instead of completing Lewis) is a blunder, its loss within the hand-computed
    range (7 to 12 in every future, 9.17 expected), the best move is (1,2); Bob, who only passes and fills
    plains, loses nothing."""
    f = planted(tmp_path)
    rv = review(ReviewJob(str(f), None, True, None, None, 40, 4, "random", "auto", 0))
    m = rv["moves"][20]
    assert (m["player"], m["hex"], m["best"]["hex"]) == ("Ann", [0, 0], [1, 2])
    assert m["mark"] == "??" and m["mark_name"] == "blunder"
    assert 8 <= m["lost"] <= 12 and m["lost_ci_low"] > 0
    assert abs(m["lost"] - 110 / 12) < 1.5
    bob = next(p for p in rv["players"] if p["name"] == "Bob")
    assert bob["lost"] == 0 and bob["blunder"] == 0
    ann = next(p for p in rv["players"] if p["name"] == "Ann")
    assert ann["blunder"] >= 1 and ann["moves"] == 11


def test_review_cli_prints_the_marks_chart_and_annotations(run_cli, tmp_path: Path) -> None:
    """`rebirth review` states its thresholds, lists the marked move, writes the chart (PNG and SVG), the
    JSON has every move's win chances, and --annotate writes a commented copy, never over the record."""
    f = planted(tmp_path)
    png, svg, notes = tmp_path / "r.png", tmp_path / "r.svg", tmp_path / "notes.json"
    code, out, err = run_cli("review", f, "--allow-paths", "--playouts", "20", "--width", "3", "--plot", png,
                             "--annotate", notes)
    assert code == 0, err
    assert "inaccuracy ?! at 3+, mistake ? at 5+, blunder ?? at 8+" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("20 "))
    assert "settlement:1 (0,0)" in line and "settlement:1 (1,2)" in line and "?? blunder" in line
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    comments = [m.get("comment") for m in json.loads(notes.read_text(encoding="utf-8"))["moves"]]
    assert comments[20] and comments[20].startswith("?? blunder") and "(1,2)" in comments[20]
    code, out, err = run_cli("eval", notes, "--allow-paths", "--explain")  # a valid record: the mark is shown
    assert code == 0, err
    assert "?? blunder" in out
    code, out, err = run_cli("review", f, "--allow-paths", "--playouts", "5", "--width", "2", "--json", "--plot", svg)
    assert code == 0, err
    data = json.loads(out)
    assert len(data["moves"]) == 21 and data["thresholds"] == {"blunder": 8.0, "mistake": 5.0, "inaccuracy": 3.0}
    assert all(abs(sum(m["win_after"].values()) - 1) < 1e-6 for m in data["moves"])
    assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    code, _, err = run_cli("review", f, "--allow-paths", "--annotate", f)
    assert code != 0 and "input" in err
    code, _, err = run_cli("review", f, "--allow-paths", "--plot", tmp_path / "r.gif")
    assert code == 2 and ".png or .svg" in err
