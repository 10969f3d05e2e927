"""Hand-computed reference positions (tests/positions/*.json): each number was worked out from
RULES.md with its arithmetic written in the file, never copied from the program's output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, TESTS

from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.record import SetupRefused, load_record, replay

POSITIONS = sorted((TESTS / "positions").glob("*.json")) + sorted((TESTS / "positions_ireland").glob("*.json"))


def _check(pos_file: Path) -> None:
    pos = json.loads(pos_file.read_text())
    expect = pos["expect"]
    loaded = load_record(pos_file, pos["record"], allow_paths=True)
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


# The rule ids come from the repository's own copy of shared/RULES.md (tests/data/RULES.md, written by
# `python tools/sync_rules.py`), so this test runs wherever the repository is checked out and never skips.
RULES_COPY = TESTS / "data" / "RULES.md"
RULES_SHARED = ROOT.parent / "shared" / "RULES.md"  # beside the repository in the team's tree only
RULE_ID = re.compile(r"^- ([SI]-[A-Z]+\d+)", re.M)
MISSIONS = sorted((TESTS / "missions").glob("*.json"))


def _rule_ids() -> set[str]:
    ids = set(RULE_ID.findall(RULES_COPY.read_text(encoding="utf-8")))
    assert len(ids) >= 40, f"{RULES_COPY}: only {len(ids)} rule ids"
    return ids


@pytest.mark.parametrize("prefix", ["S", "I"])
def test_every_rule_is_covered(prefix: str) -> None:
    """Together the reference positions (tests/positions*, tests/missions) cite every S- (Scotland) and I-
    (Ireland) rule id of RULES.md, each position only for what it checks."""
    ids = {i for i in _rule_ids() if i.startswith(prefix + "-")}
    covered: set[str] = set()
    for p in POSITIONS + MISSIONS:
        covered.update(json.loads(p.read_text()).get("covers", []))
    assert ids - covered == set(), f"not covered by a reference position: {sorted(ids - covered)}"


def test_positions_cite_only_real_rule_ids() -> None:
    """Every id a position's `covers` lists is a rule of RULES.md (or a mission card, `card:NAME`)."""
    ids = _rule_ids()
    for p in POSITIONS + MISSIONS:
        for cited in json.loads(p.read_text()).get("covers", []):
            assert cited in ids or cited.startswith("card:"), f"{p.name}: {cited!r} is not a rule id of RULES.md"


def test_the_rules_copy_is_current() -> None:
    """tests/data/RULES.md equals shared/RULES.md wherever that is beside the repository (the team's tree);
    a checkout without it (CI) tests against the copy alone. Out of date: `python tools/sync_rules.py`."""
    assert RULES_COPY.is_file(), "tests/data/RULES.md is missing: python tools/sync_rules.py"
    if RULES_SHARED.is_file():
        assert RULES_COPY.read_text(encoding="utf-8") == RULES_SHARED.read_text(encoding="utf-8"), (
            "tests/data/RULES.md is out of date: python tools/sync_rules.py")
