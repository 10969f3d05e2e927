"""The score track followed move by move (play/tally.py): lead changes, who leads alone at the end and
from which move, counted by the generated engine's per-move hook, against the reference engine's track
read after every move of the same game (issue 23 item 2)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import BOARDS, RULES

from rebirth_dsl.play.agents import RandomAgent
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.tally import play_tallied
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal


def _lead_by_reference(rs: Any, names: list[str], seed: int) -> tuple[int, int, int]:
    """Lead changes, the seat alone in the lead at the end (-1: a tie) and the move from which it led alone
    to the end, from the same random game replayed move by move on the reference engine."""
    _, moves = play_game(rs, names, [RandomAgent()] * len(names), seed)
    ref = Game(rs, names, deal(rs, len(names), seed))
    ref.auto_choose = None
    alone = []
    for m in moves:
        h = rs.t.index[tuple(m["hex"])] if m["hex"] else None
        ref.play(names.index(m["player"]), rs.parse_tile(m["tile"]), h, None, m.get("choices", {}))
        top = max(ref.track)
        alone.append(ref.track.index(top) if ref.track.count(top) == 1 else -1)
    leads = [q for q in alone if q >= 0]
    changes = sum(1 for a, b in zip(leads, leads[1:], strict=False) if a != b)
    end = alone[-1]
    since = len(alone)
    if end >= 0:
        while since > 1 and alone[since - 2] == end:
            since -= 1
    return changes, end, since


@pytest.mark.parametrize("rules,board,n,seed", [
    ("scotland.rules", "scotland.json", 3, 1), ("scotland.rules", "scotland.json", 2, 4),
    ("scotland.rules", "scotland.json", 4, 7), ("ireland.rules", "ireland.json", 3, 2)])
def test_the_tally_follows_the_lead_as_the_reference_engine_does(rules: str, board: str, n: int, seed: int) -> None:
    """Lead changes, the final sole leader and the start of its last lead, counted by the generated engine's
    per-move hook, equal those read off the track after every move of the same game on the reference one."""
    rs = load_ruleset(RULES / rules, BOARDS / board)[0]
    names = DEFAULT_NAMES[:n]
    g, tally = play_tallied(rs, names, ("random",) * n, seed)
    x = tally.extra(g, g.end_events())
    assert (x.lead_changes, x.leader, x.lead_from) == _lead_by_reference(rs, names, seed)
    assert x.lead_changes > 0
