"""`rebirth draw`: a board or a game's position as a text map or as SVG (rebirth_dsl/render.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.present.render import draw

RULES = ROOT / "rules" / "scotland.rules"
SVG = "{http://www.w3.org/2000/svg}"

# Two rows: a coast, a two-hex settlement area with a harbour, two castles (one with the clover), a
# cathedral, and a name that needs escaping in XML.
BOARD: dict[str, Any] = {
    "name": "tiny",
    "title": "Tiny <test> board & co",
    "hexes": [
        {"q": 0, "r": 0, "kind": "sea"},
        {"q": 1, "r": 0, "kind": "food", "tags": ["neutral"]},
        {"q": 2, "r": 0, "kind": "plain"},
        {"q": 3, "r": 0, "kind": "energy"},
        {"q": 4, "r": 0, "kind": "cathedral", "name": "St Andrews"},
        {"q": 0, "r": 1, "kind": "settlement", "area": "Skye", "tags": ["harbour"]},
        {"q": 1, "r": 1, "kind": "settlement", "area": "Skye"},
        {"q": 2, "r": 1, "kind": "castle", "name": "Edinburgh", "tags": ["clover"]},
        {"q": 3, "r": 1, "kind": "castle", "name": "Tom & Jerry's <Keep>"},
        {"q": 4, "r": 1, "kind": "plain"},
    ],
}
LANDMARKS = ["St Andrews", "Edinburgh", "Tom & Jerry's <Keep>"]


def _board(tmp_path: Path, data: dict[str, Any] | None = None) -> Path:
    p = tmp_path / "board.json"
    p.write_text(json.dumps(data or BOARD))
    return p


def _record(tmp_path: Path, moves: list[dict[str, Any]], over: bool = True) -> tuple[Path, dict[str, Any]]:
    _board(tmp_path)
    data = {"rules": str(RULES), "board": "board.json", "players": ["Ann", "Bob"], "scenario": True,
            "over": over, "setup": {}, "moves": moves}
    p = tmp_path / "game.json"
    p.write_text(json.dumps(data))
    return p, data


MOVES = [
    {"player": "Ann", "tile": "food", "hex": [2, 0]},  # touches Edinburgh and the Keep: Ann takes both
    {"player": "Bob", "tile": "settlement:3", "hex": [0, 1]},  # harbour
    {"player": "Bob", "tile": "energy", "hex": [3, 0]},  # touches the cathedral and the Keep
]


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    vb = [float(v) for v in root.attrib["viewBox"].split()]
    assert len(vb) == 4 and vb[2] > 0 and vb[3] > 0
    return root


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_board_svg_has_one_polygon_per_hex(tmp_path: Path) -> None:
    path = _board(tmp_path)
    root = _svg(draw(str(path), json.loads(path.read_text()), svg=True, allow_paths=True))
    polys = list(root.iter(f"{SVG}polygon"))
    assert len(polys) == len(BOARD["hexes"])
    fills = {p.attrib["fill"] for p in polys}
    assert len(fills) == len({h["kind"] for h in BOARD["hexes"]}), "one fill per kind"
    texts = _texts(root)
    for name in ["Edinburgh", "Tom & Jerry's <Keep>"]:
        assert name in texts, texts
    assert any("St" in t for t in texts) and any("Andrews" in t for t in texts)
    assert root.find(f".//{SVG}path[@class='areas']") is not None, "the settlement area is outlined"
    assert root.find(f".//{SVG}g[@class='harbour']") is not None
    assert root.find(f".//{SVG}g[@class='clover']") is not None
    assert root.find(f".//{SVG}circle[@class='neutral']") is not None
    assert root.find(f".//{SVG}circle[@class='tile']") is None, "a bare board has no tiles"


def test_viewbox_fits_the_hexes(tmp_path: Path) -> None:
    path = _board(tmp_path)
    root = _svg(draw(str(path), json.loads(path.read_text()), svg=True, allow_paths=True))
    x, y, w, h = (float(v) for v in root.attrib["viewBox"].split())
    for poly in root.iter(f"{SVG}polygon"):
        for pt in poly.attrib["points"].split():
            px, py = (float(v) for v in pt.split(","))
            assert x <= px <= x + w and y <= py <= y + h


def test_board_text_names_each_landmark(tmp_path: Path) -> None:
    path = _board(tmp_path)
    out = draw(str(path), json.loads(path.read_text()), svg=False, allow_paths=True)
    for name in LANDMARKS:
        assert name in out
    lines = out.splitlines()
    assert all(len(line) < 160 for line in lines)
    row0 = next(line for line in lines if line.startswith("  0 "))
    row1 = next(line for line in lines if line.startswith("  1 "))
    # (q, r) sits at column 2q + r, two characters a hex: (0,1) is half a hex right of (0,0)
    assert row0.index("~") + 2 == row1.index("s+")
    assert "C*" in row1, "the clover castle, upper case, with its mark"
    assert "C castle" in out and "A cathedral" in out, "letters are given in name order: castle first"
    assert "~ sea" in out and "s settlement" in out, "sea and settlement get different letters"


def test_record_svg(tmp_path: Path) -> None:
    path, data = _record(tmp_path, MOVES)
    root = _svg(draw(str(path), data, svg=True, allow_paths=True))
    assert len(list(root.iter(f"{SVG}polygon"))) == len(BOARD["hexes"])
    tiles = root.findall(f".//{SVG}circle[@class='tile']")
    assert len(tiles) == len(MOVES) + 1, "and the neutral tile of a 2-player game on the neutral hex"
    assert root.find(f".//{SVG}circle[@class='neutral']") is None, "the neutral tile covers the neutral mark"
    texts = _texts(root)
    assert {"F", "E", "3"} <= set(texts), texts
    for name in ["Ann", "Bob", "Edinburgh", "total"]:
        assert name in texts, texts
    assert any(t.startswith("Winner") for t in texts)
    owners = root.findall(f".//{SVG}path[@class='owner']")
    assert len(owners) == 2, "Edinburgh and the Keep are held"


def test_record_text(tmp_path: Path) -> None:
    path, data = _record(tmp_path, MOVES)
    out = draw(str(path), data, svg=False, allow_paths=True)
    for name in LANDMARKS:
        assert name in out
    assert "Edinburgh (2,1) castle [clover]  held by Ann (a)" in out
    assert "a Ann" in out and "b Bob" in out
    assert "aF" in out and "b3" in out and "bE" in out and "##" in out
    assert "total" in out and "Winner" in out
    assert all(len(line) < 160 for line in out.splitlines())


def test_unfinished_record_shows_track_and_if_ended_now(tmp_path: Path) -> None:
    path, data = _record(tmp_path, MOVES[:1], over=False)
    root = _svg(draw(str(path), data, svg=True, allow_paths=True))
    assert "if ended now" in _texts(root)
    assert "not over" in draw(str(path), data, svg=False, allow_paths=True)


def test_refused_move_draws_the_position_before_it(tmp_path: Path) -> None:
    moves = [*MOVES[:1], {"player": "Bob", "tile": "food", "hex": [2, 1]}]  # a castle takes no tile
    path, data = _record(tmp_path, moves)
    out = draw(str(path), data, svg=False, allow_paths=True)
    assert "stopped" in out and "move 1" in out
    root = _svg(draw(str(path), data, svg=True, allow_paths=True))
    assert len(root.findall(f".//{SVG}circle[@class='tile']")) == 2, "Ann's food and the neutral tile"


def test_unknown_kinds_get_fallback_colours_and_letters(tmp_path: Path) -> None:
    board = {"name": "odd", "hexes": [{"q": 0, "r": 0, "kind": "swamp"}, {"q": 1, "r": 0, "kind": "swamp_deep"},
                                      {"q": 0, "r": 1, "kind": "folly", "name": "Big Folly"}]}
    path = _board(tmp_path, board)
    root = _svg(draw(str(path), board, svg=True, allow_paths=True))
    assert len(list(root.iter(f"{SVG}polygon"))) == 3
    out = draw(str(path), board, svg=False, allow_paths=True)
    assert "s swamp" in out and "w swamp_deep" in out and "F folly" in out and "Big Folly" in out


def test_not_a_board_or_record(tmp_path: Path) -> None:
    with pytest.raises(RebirthError):
        draw(str(tmp_path / "x.json"), {"something": 1}, svg=False, allow_paths=True)
    with pytest.raises(RebirthError):
        draw(str(tmp_path / "x.json"), {"name": "b", "hexes": []}, svg=False, allow_paths=True)  # the board schema refuses it


def test_cli_writes_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rebirth_dsl.cli import main

    path = _board(tmp_path)
    out = tmp_path / "board.svg"
    assert main(["draw", str(path), "-o", str(out)]) == 0
    _svg(out.read_text())
    assert main(["draw", str(path)]) == 0
    assert "Edinburgh" in capsys.readouterr().out
