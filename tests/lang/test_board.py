"""Boards: schema, validation errors with JSON paths, geometry, and the bundled Scotland map."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES, beyond_bundled_findings

from rebirth_dsl.board.model import NEIGHBOUR_OFFSETS, load_board, validate_board_data
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.records.schemas import schemas


def test_schema_files_equal_the_models() -> None:
    """schemas/*.json are exported from the pydantic models (python -m rebirth_dsl.records.schemas)."""
    for name, schema in schemas().items():
        on_disk = json.loads((ROOT / "schemas" / name).read_text())
        assert on_disk == json.loads(json.dumps(schema)), f"schemas/{name} is stale: run python -m rebirth_dsl.records.schemas"


def test_broken_board_names_the_json_path() -> None:
    """A schema violation is reported at its JSON path."""
    data = {"name": "b", "hexes": [{"q": 0, "r": 0, "kind": "plain"}, {"q": 1, "r": "x", "kind": "food"}]}
    with pytest.raises(RebirthError) as ei:
        validate_board_data(data, "b.json")
    assert "$.hexes[1].r" in ei.value.render()


def test_duplicate_hex_is_refused() -> None:
    """Two hexes at one coordinate: the second is named."""
    data = {"name": "b", "hexes": [{"q": 0, "r": 0, "kind": "plain"}, {"q": 0, "r": 0, "kind": "food"}]}
    with pytest.raises(RebirthError) as ei:
        validate_board_data(data, "b.json")
    assert "$.hexes[1]" in ei.value.render()


def test_neighbours_are_the_six_axial_offsets() -> None:
    """Geometry: a hex in the middle of a 3x3 axial block has exactly its six neighbours."""
    data = {"name": "g", "hexes": [{"q": q, "r": r, "kind": "plain"} for q in (-1, 0, 1) for r in (-1, 0, 1)]}
    geo = validate_board_data(data).geometry
    centre = geo.index[(0, 0)]
    got = {geo.coords[m] for m in geo.neighbours[centre]}
    assert got == {(dq, dr) for dq, dr in NEIGHBOUR_OFFSETS if (dq, dr) in geo.index}
    assert len(got) == 6


def test_S_C4_scotland_board_shape() -> None:
    """S-C4 (reconstructed): 105-120 tile hexes, ~1/3 settlements in areas of 1-3, >=6 harbours, 8 cathedrals,
    10-12 castles with Edinburgh (clover) and Stirling, exactly 32 neutral hexes."""
    b = load_board(BOARDS / "scotland.json")
    kinds = Counter(h.kind for h in b.hexes)
    tiles = sum(kinds[k] for k in ("plain", "food", "energy", "settlement"))
    assert 105 <= tiles <= 120
    assert 0.25 <= kinds["settlement"] / tiles <= 0.4
    areas = Counter(h.area for h in b.hexes if h.area)
    assert set(areas.values()) == {1, 2, 3}
    assert sum("harbour" in h.tags for h in b.hexes) >= 6
    assert kinds["cathedral"] == 8 and 10 <= kinds["castle"] <= 12
    names = {h.name: h for h in b.hexes if h.name}
    assert "clover" in names["Edinburgh"].tags and names["Stirling"].kind == "castle"
    assert sum("neutral" in h.tags for h in b.hexes) == 32


@pytest.mark.parametrize("side", ["scotland"])
def test_bundled_rules_and_board_check_clean(side: str) -> None:
    """`rebirth check rules/X.rules --board boards/X.json` finds nothing."""
    from rebirth_dsl.check.checks import check
    from rebirth_dsl.lang.parser import load_rules

    path = BOARDS / f"{side}.json"
    assert beyond_bundled_findings(check(load_rules(RULES / f"{side}.rules"), load_board(path), str(path),
                                         strict=True)) == []


def test_board_problems_against_rules(tmp_path: Path) -> None:
    """Rules-board consistency: undeclared kinds, split areas, missing payouts, harbours off settlements."""
    from rebirth_dsl.check.checks import check
    from rebirth_dsl.lang.parser import load_rules

    hexes = [
        {"q": 0, "r": 0, "kind": "settlement", "area": "Split"},
        {"q": 3, "r": 0, "kind": "settlement", "area": "Split"},
        {"q": 1, "r": 0, "kind": "plain", "tags": ["harbour"]},
        {"q": 2, "r": 0, "kind": "lava"},
        {"q": 0, "r": 1, "kind": "settlement", "area": "Big"},
        {"q": 1, "r": 1, "kind": "settlement", "area": "Big"},
        {"q": 2, "r": 1, "kind": "settlement", "area": "Big"},
        {"q": 3, "r": 1, "kind": "settlement", "area": "Big"},
    ]
    f = tmp_path / "b.json"
    f.write_text(json.dumps({"name": "b", "hexes": hexes}))
    text = "\n".join(d.render() for d in check(load_rules(RULES / "scotland.rules"), load_board(f), str(f)))
    assert "$.hexes[3].kind: hex kind 'lava' is not declared" in text
    assert "area 'Split' is not contiguous" in text
    assert "area 'Big' has 4 hexes, but the rules have no `pay size 4`" in text
    assert "'harbour' on a plain hex (1,0): the rules put harbour only on settlement hexes" in text
    assert "32 neutral tiles" in text


def test_rules_on_the_wrong_map_name_what_is_missing() -> None:
    """Ireland's rules against the Scotland map: no towers, no wind collectors, no Hill of Tara."""
    from rebirth_dsl.check.checks import check
    from rebirth_dsl.lang.parser import load_rules

    path = BOARDS / "scotland.json"
    text = "\n".join(d.render() for d in check(load_rules(RULES / "ireland.rules"), load_board(path), str(path)))
    assert "this rule acts on tower hexes, but" in text
    assert "this rule acts on hexes tagged wind, but" in text
    assert 'the board has no tower "Hill of Tara"' in text
