"""Hand-computed reference positions (tests/positions/*.json): each number was worked out from
RULES.md with its arithmetic written in the file, never copied from the program's output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.record import SetupRefused, load_record, replay

HERE = Path(__file__).parent
POSITIONS = sorted((HERE / "positions").glob("*.json")) + sorted((HERE / "positions_ireland").glob("*.json"))


def _check(pos_file: Path) -> None:
    pos = json.loads(pos_file.read_text())
    expect = pos["expect"]
    loaded = load_record(pos_file, pos["record"])
    if "setup_error" in expect:
        with pytest.raises(SetupRefused) as ei:
            replay(loaded)
        assert ei.value.rule == expect["setup_error"]["rule"], ei.value.render()
        return
    r = replay(loaded)
    if "error" in expect:
        assert r.error is not None, f"expected move {expect['error']['index']} to be refused ({expect['error']['rule']})"
        assert (r.error.index, r.error.rule) == (expect["error"]["index"], expect["error"]["rule"]), r.error.render()
    else:
        assert r.error is None, r.error.render()
    result = evaluate(r.game)
    players = {p["name"]: p for p in result["players"]}
    for name, want in expect.get("players", {}).items():
        got = players[name]
        if "score" in want:
            assert got["score"] == want["score"], f"{name}: score {got['score']} != {want['score']}; {got}"
        for cat, pts in want.get("breakdown", {}).items():
            have = got["breakdown"].get(cat, 0)
            assert have == pts, f"{name}: {cat} {have} != {pts}; {got['breakdown']}"
    for castle, owner in expect.get("castles", {}).items():
        assert result["castles"].get(castle) == owner, f"{castle}: {result['castles'].get(castle)} != {owner}"
    for name, cards in expect.get("missions", {}).items():
        assert sorted(players[name]["cards"]) == sorted(cards), f"{name}: cards {players[name]['cards']} != {cards}"
    if "winners" in expect:
        assert sorted(result["winners"]) == sorted(expect["winners"]), result


@pytest.mark.parametrize("pos_file", POSITIONS, ids=[p.stem for p in POSITIONS])
def test_reference_position(pos_file: Path) -> None:
    """Replaying the position gives the hand-computed scores, owners, cards, winners or refusal."""
    _check(pos_file)


@pytest.mark.parametrize("prefix", ["S", "I"])
def test_every_rule_is_covered(prefix: str) -> None:
    """Together the positions cite every S- (Scotland) and I- (Ireland) rule id of RULES.md."""
    rules_md = (HERE.parent.parent / "shared" / "RULES.md")
    if not rules_md.exists():
        pytest.skip("shared/RULES.md is not beside the repository")
    import re

    ids = set(re.findall(rf"^- ({prefix}-[A-Z]+\d+)", rules_md.read_text(), re.M))
    assert ids
    covered = set()
    for p in POSITIONS:
        covered.update(json.loads(p.read_text()).get("covers", []))
    covered |= set(EXTRA_COVERAGE)
    assert ids - covered == set(), f"not covered by a reference position: {sorted(ids - covered)}"


# Rule ids tested elsewhere than in positions (the test that covers each is named).
EXTRA_COVERAGE = {
    "S-C1": "test_rules.py::test_tile_mix_per_colour",
    "S-C3": "test_board.py (hex kinds)",
    "S-C4": "test_board.py::test_scotland_board_shape",
    "S-M3": "test_missions.py",
}
