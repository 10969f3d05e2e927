"""Variants are rules files: changing a number or rule there changes results with no Python change.

Expected values are worked by hand from the reference positions' own arithmetic (tests/positions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES, beyond_bundled_findings

from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.record import SetupRefused, load_record, replay

POS = ROOT / "tests" / "positions"


def _eval(position: str, rules: Path, tmp_path: Path) -> dict:
    pos = json.loads((POS / f"{position}.json").read_text())
    rec = pos["record"]
    rec["rules"] = str(rules)
    rec["board"] = str((POS / rec["board"]).resolve())
    r = replay(load_record(tmp_path / "x.json", rec, allow_paths=True))
    assert r.error is None, r.error.render()
    return evaluate(r.game)


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    text = (RULES / "scotland.rules").read_text()
    assert old in text
    f = tmp_path / "variant.rules"
    f.write_text(text.replace(old, new))
    return f


def test_S_K5_korean_castle_tie_placer_takes(tmp_path: Path) -> None:
    """S-K5 flipped in rules/variants/korean-castles.rules. Position s_k5_owner_keeps_final_tie:
    move 1 Ann ties Bob on tiles 1-1 and farms 1-1 -> the placer Ann takes Stirling;
    move 2 Bob food (4,1): Bob 2 tiles vs Ann 1 -> Bob takes it back;
    move 3 Ann energy (3,0): tiles 2-2, farms 2-2 -> placer Ann takes it.
    End: Ann farms 2 + Stirling 5 = 7; Bob farms 2 = 2 (Scotland: Ann 2, Bob 7)."""
    res = _eval("s_k5_owner_keeps_final_tie", RULES / "variants" / "korean-castles.rules", tmp_path)
    scores = {p["name"]: p["score"] for p in res["players"]}
    assert res["castles"]["Stirling"] == "Ann"
    assert scores == {"Ann": 7, "Bob": 2}
    assert res["winners"] == ["Ann"]


def test_changed_payout(tmp_path: Path) -> None:
    """`pay size 2: 7, 2` instead of 5, 3. Position s_a2_medium_tie_completer: Skye tie, completer Bob
    -> Ann 7, Bob 2; Mull tie, completer Ann -> Bob 7, Ann 2; Ann's harbour 1.
    Ann 7 + 2 + 1 = 10; Bob 2 + 7 = 9 (Scotland: 9 and 8)."""
    f = _variant(tmp_path, "pay size 2: 5, 3 ", "pay size 2: 7, 2 ")
    res = _eval("s_a2_medium_tie_completer", f, tmp_path)
    assert {p["name"]: p["score"] for p in res["players"]} == {"Ann": 10, "Bob": 9}


def test_S_C2_changed_tile_mix(tmp_path: Path) -> None:
    """A fifth settlement of influence 4 per colour: a record dealt for the 12/12/12 mix is now refused
    (S-C2), and a seeded game deals 37 - 2 set aside = 35 tiles per player with 3 players."""
    from rebirth_dsl.records.record import load_ruleset
    from rebirth_dsl.runtime.setup import colour_tiles

    f = _variant(tmp_path, "3 x3, 4 x2 ", "3 x3, 4 x3 ")
    pos = json.loads((POS / "s_u3_four_players_27.json").read_text())
    rec = pos["record"]
    rec["rules"] = str(f)
    rec["board"] = str((POS / rec["board"]).resolve())
    with pytest.raises(SetupRefused) as ei:
        replay(load_record(tmp_path / "x.json", rec, allow_paths=True))
    assert ei.value.rule == "S-C2"
    rs, _ = load_ruleset(f, BOARDS / "scotland.json")
    assert len(colour_tiles(rs, 3)) - rs.set_aside == 35
    assert len(colour_tiles(rs, 4)) - rs.set_aside == 37 - 9 - 2


def _lighthouse_board(tmp_path: Path) -> Path:
    """A tiny coast: lighthouse L at (1,1) with land on five sides."""
    hexes = [{"q": 1, "r": 1, "kind": "lighthouse", "name": "Bell Rock"}]
    for q, r, kind in [(2, 1, "plain"), (2, 0, "food"), (1, 0, "food"), (0, 1, "energy"), (0, 2, "plain"),
                       (1, 2, "sea"), (3, 0, "plain")]:
        hexes.append({"q": q, "r": r, "kind": kind})
    f = tmp_path / "coast.json"
    f.write_text(json.dumps({"name": "coast", "hexes": hexes}))
    return f


def test_lighthouse_variant_is_a_rules_file_and_a_board(tmp_path: Path) -> None:
    """rules/variants/lighthouses.rules: a majority over adjacent tiles, 3 points at the end (V-L1, V-L2).
    Moves: Ann food (1,0) farm 1, lighthouse unowned -> Ann; Bob energy (0,1) farm 1, tiles 1-1 -> Ann keeps;
    Bob plain (0,2) energy: group {(0,1),(0,2)} = 2, tiles Bob 2 vs Ann 1 -> Bob takes;
    Ann food (2,0): group {(1,0),(2,0)} = 2, tiles 2-2, no farm tie-break configured -> Bob keeps;
    Ann food (3,0): not adjacent; group {(1,0),(2,0),(3,0)} = 3.
    End: Ann farms 1+2+3 = 6; Bob farms 1+2 = 3, lighthouse 3 -> 6. Tie at 6; no clover, no Stirling -> shared."""
    board = _lighthouse_board(tmp_path)
    rec = {"rules": str(RULES / "variants" / "lighthouses.rules"), "board": str(board), "players": ["Ann", "Bob"],
           "scenario": True, "over": True, "moves": [
               {"player": "Ann", "tile": "food", "hex": [1, 0]}, {"player": "Bob", "tile": "energy", "hex": [0, 1]},
               {"player": "Bob", "tile": "energy", "hex": [0, 2]}, {"player": "Ann", "tile": "food", "hex": [2, 0]},
               {"player": "Ann", "tile": "food", "hex": [3, 0]}]}
    r = replay(load_record(tmp_path / "g.json", rec, allow_paths=True))
    assert r.error is None
    res = evaluate(r.game)
    by = {p["name"]: p for p in res["players"]}
    assert res["castles"] == {"Bell Rock": "Bob"}
    assert by["Ann"]["score"] == 6 and by["Bob"]["score"] == 6
    assert by["Bob"]["breakdown"]["lighthouses"] == 3
    assert sorted(res["winners"]) == ["Ann", "Bob"]


def test_lighthouse_board_checks_clean() -> None:
    """The bundled lighthouse board fits the lighthouse rules."""
    from rebirth_dsl.board.model import load_board
    from rebirth_dsl.check.checks import check
    from rebirth_dsl.lang.parser import load_rules

    b = BOARDS / "variants" / "lighthouses.json"
    assert beyond_bundled_findings(check(load_rules(RULES / "variants" / "lighthouses.rules"), load_board(b),
                                         str(b))) == []
