"""Mission cards (S-M3): hand-computed reference positions in tests/missions/*.json.

Each position holds cards for Ann in a finished scenario; `expect.players.Ann.breakdown.missions` is the
sum of the points of her fulfilled cards, worked out by hand from RULES.md and the card conditions of
rules/scotland.rules (the arithmetic is written in the file), never copied from the program's output.
Each position also lists the cards it shows fulfilled and unfulfilled (`"card:NAME"`), and the last test
checks that together the positions show every card of the deck both ways.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTS
from test_positions import _check  # its own folder is on sys.path (no __init__.py)

RULES = ROOT / "rules" / "scotland.rules"
POSITIONS = sorted((TESTS / "missions").glob("*.json"))

CARD = re.compile(r'^\s*card\s+"([^"]+)"\s+\d+(?:\s+x\d+)?\s*:\s*(.*?)\s*(?:#.*)?$', re.M)


def _deck() -> dict[str, str]:
    """Card name -> condition text, from the `card "NAME" POINTS [xN]: CONDITION` lines of the rules file."""
    cards = {name: cond for name, cond in CARD.findall(RULES.read_text())}
    assert cards, f"no card lines found in {RULES}"
    return cards


def _positions() -> list[dict]:
    return [json.loads(p.read_text()) for p in POSITIONS]


@pytest.mark.parametrize("pos_file", POSITIONS, ids=[p.stem for p in POSITIONS])
def test_mission_position(pos_file: Path) -> None:
    """Replaying the position gives the hand-computed mission points, cards and castle owners."""
    _check(pos_file)


@pytest.mark.parametrize("pos_file", POSITIONS, ids=[p.stem for p in POSITIONS])
def test_mission_position_is_consistent(pos_file: Path) -> None:
    """The fulfilled/unfulfilled lists name real cards, are disjoint, are in `covers`, and are Ann's cards."""
    pos = json.loads(pos_file.read_text())
    deck = _deck()
    fulfilled, unfulfilled = set(pos["fulfilled"]), set(pos["unfulfilled"])
    assert not fulfilled & unfulfilled, f"both fulfilled and unfulfilled: {fulfilled & unfulfilled}"
    for tag in fulfilled | unfulfilled | set(pos.get("not_held", [])):
        assert tag.startswith("card:") and tag[5:] in deck, f"{tag}: not a card of the deck"
    for tag in fulfilled | unfulfilled:
        assert tag in pos["covers"], f"{tag} missing from covers"
    cards = pos["expect"]["missions"]["Ann"]
    assert sorted(cards) == sorted(t[5:] for t in fulfilled | unfulfilled), (
        "fulfilled + unfulfilled != Ann's cards"
    )
    for tag in pos.get("not_held", []):
        assert tag[5:] not in cards, f"{tag} is listed as not held but Ann holds it"
    assert "missions" in pos["expect"]["players"]["Ann"]["breakdown"]


def _points() -> dict[str, int]:
    """Card name -> its points, from the rules file."""
    return {
        m.group(1): int(m.group(2))
        for m in re.finditer(r'^\s*card\s+"([^"]+)"\s+(\d+)', RULES.read_text(), re.M)
    }


@pytest.mark.parametrize("pos_file", POSITIONS, ids=[p.stem for p in POSITIONS])
def test_mission_position_card_by_card(pos_file: Path, tmp_path: Path) -> None:
    """Card by card, as `rebirth eval --json --explain` reports it: each card listed as fulfilled scores
    its points, each listed as unfulfilled scores 0 (a sum can hide a swap between cards of equal value),
    and the hand-written total equals the sum of the fulfilled cards' points."""
    pos = json.loads(pos_file.read_text())
    points = _points()
    want = {t[5:]: points[t[5:]] for t in pos["fulfilled"]} | {t[5:]: 0 for t in pos["unfulfilled"]}
    assert sum(want.values()) == pos["expect"]["players"]["Ann"]["breakdown"]["missions"], "arithmetic"
    record = dict(pos["record"])
    for key in ("rules", "board"):
        if record[key].endswith((".rules", ".json")):  # a file beside the position; a bare name is bundled
            record[key] = str((pos_file.parent / record[key]).resolve())
    rec_file = tmp_path / pos_file.name
    rec_file.write_text(json.dumps(record))
    out = subprocess.run(
        [sys.executable, "-m", "rebirth_dsl", "eval", "--json", "--explain", "--allow-paths", str(rec_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    got = {}
    for ev in json.loads(out)["events"]:
        m = re.match(r"Ann's card '(.+)'", ev["text"])
        if ev["category"] == "missions" and ev["player"] == "Ann" and m:
            got[m.group(1)] = got.get(m.group(1), 0) + ev["points"]
    assert got == want


def test_every_card_fulfilled_and_unfulfilled() -> None:
    """Every card of the deck is shown fulfilled in some position and unfulfilled in another.

    A card whose condition is `always` (Cathedral gift) cannot be unfulfilled: its negative case is a
    position where the player does not hold it (`"not_held"`)."""
    deck = _deck()
    fulfilled, unfulfilled, not_held = set(), set(), set()
    for pos in _positions():
        fulfilled.update(t[5:] for t in pos["fulfilled"])
        unfulfilled.update(t[5:] for t in pos["unfulfilled"])
        not_held.update(t[5:] for t in pos.get("not_held", []))
    always = {name for name, cond in deck.items() if cond == "always"}
    assert set(deck) - fulfilled == set(), f"never shown fulfilled: {sorted(set(deck) - fulfilled)}"
    never_unfulfilled = {c for c in deck if c not in unfulfilled and not (c in always and c in not_held)}
    assert never_unfulfilled == set(), f"never shown unfulfilled: {sorted(never_unfulfilled)}"
    assert unfulfilled & always == set(), (
        f"an `always` card cannot be unfulfilled: {sorted(unfulfilled & always)}"
    )


def test_deck_parse_sees_every_card_line() -> None:
    """The regex reads every `card "..."` line of the rules file (none is skipped by a format change)."""
    lines = [ln for ln in RULES.read_text().splitlines() if re.match(r'^\s*card\s+"', ln)]
    assert len(_deck()) == len(lines) > 0
    assert _deck()["Cathedral gift"] == "always"
