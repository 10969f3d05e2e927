"""Majorities (S-K1..S-K5), rules/majority.py: the kernel against the rules, by hand; the reference reaction's
events and the rule ids they cite; the generated Python's inline form against the kernel, exhaustively.
(That the reference, generated and native engines agree on whole games: tests/test_fast.py, test_native.py.)"""

from __future__ import annotations

from functools import cache
from itertools import product
from typing import Any

import pytest

from rebirth_dsl.compile.emit import Locals
from rebirth_dsl.compile.ruleset import MajorityRule
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.rules import majority
from rebirth_dsl.rules.kind import Placement
from rebirth_dsl.rules.majority import HELD, UNOWNED, challenge

FOOD, ENERGY, SETTLEMENT = 0, 1, 2  # Scotland's tile kinds, in the order of its tiles statement
ANY, FARMS = 0, 1  # Scotland's metrics: `compare tiles any, then tiles farm`
FINAL = 2  # the final tie: the step after the two comparisons


@cache
def castles(name: str = "scotland") -> MajorityRule:
    """A bundled ruleset's castle majority, as compiled."""
    return load_ruleset(*rules_and_board(name, None))[0].majorities[0]


def counts(any_: tuple[int, int, int], farms: tuple[int, int, int]) -> list[list[int]]:
    """counts[metric][seat] for three seats."""
    return [list(any_), list(farms)]


# ----- the kernel -----------------------------------------------------------------------------------
def test_S_K2_unowned_castle_goes_to_the_placer() -> None:
    assert challenge(counts((0, 1, 0), (0, 1, 0)), -1, 1, False) == (1, UNOWNED)


def test_S_K1_the_holder_placing_again_decides_nothing() -> None:
    assert challenge(counts((0, 5, 0), (0, 5, 0)), 1, 1, False) == (1, HELD)


def test_S_K3_more_tiles_take_the_castle() -> None:
    # placer 2 has 3 adjacent tiles, holder 0 has 2: 3 > 2, the placer takes it on the first count
    assert challenge(counts((2, 0, 3), (0, 0, 0)), 0, 2, False) == (2, ANY)


def test_S_K3_fewer_tiles_leave_the_castle() -> None:
    # placer 2 has 1 tile, holder 0 has 2: 1 < 2, decided on the first count, the holder keeps it (even with
    # more farms: the farm count is never reached)
    assert challenge(counts((2, 0, 1), (0, 0, 1)), 0, 2, False) == (0, ANY)


def test_S_K4_equal_tiles_more_farms_take_the_castle() -> None:
    # 2 tiles each; farms: placer 1 has 2, holder 2 has 1: 2 > 1 on the second count
    assert challenge(counts((0, 2, 2), (0, 2, 1)), 2, 1, False) == (1, FARMS)


def test_S_K4_equal_tiles_fewer_farms_leave_the_castle() -> None:
    # 3 tiles each; farms 0 (placer 0) against 1 (holder 1): the holder keeps it on the second count
    assert challenge(counts((3, 3, 0), (0, 1, 0)), 1, 0, False) == (1, FARMS)


def test_S_K5_tied_on_both_counts_the_placer_loses() -> None:
    # 2 tiles and 1 farm each: tied on every count, the castle stays with holder 0
    assert challenge(counts((2, 2, 0), (1, 1, 0)), 0, 1, False) == (0, FINAL)


def test_S_K5_korean_variant_gives_the_last_tie_to_the_placer() -> None:
    rule = castles("variants/korean-castles")
    assert rule.placer_takes_tie
    assert challenge(counts((2, 2, 0), (1, 1, 0)), 0, 1, rule.placer_takes_tie) == (1, FINAL)


def test_S_K3_tile_not_yet_counted_is_added() -> None:
    # the immediate-points reader asks before the tile is counted: placer 1 has 1 tile and 0 farms, holder
    # 0 has 2 and 1; a food tile adds 1 to both counts: 2 = 2 tiles, then 1 = 1 farm: tied, the holder keeps
    added = majority.added(castles().metrics, FOOD)
    assert added == (1, 1)
    assert challenge(counts((2, 1, 0), (1, 0, 0)), 0, 1, False, added) == (0, FINAL)
    # a settlement adds 1 tile and no farm: 2 = 2 tiles, then 0 < 1 farm: the holder keeps it on the farms
    added = majority.added(castles().metrics, SETTLEMENT)
    assert added == (1, 0)
    assert challenge(counts((2, 1, 0), (1, 0, 0)), 0, 1, False, added) == (0, FARMS)


@pytest.mark.parametrize(("kind", "expected"), [(FOOD, [[0, 1], [0, 1]]), (ENERGY, [[0, 1], [0, 1]]),
                                                 (SETTLEMENT, [[0, 1], [0, 0]])])
def test_S_K3_S_K4_all_tiles_count_farms_count_as_farms(kind: int, expected: list[list[int]]) -> None:
    # S-K3 counts all kinds (settlements included), S-K4 only food + energy
    c = [[0, 0], [0, 0]]
    majority.count(c, castles().metrics, 1, kind)
    assert c == expected


def test_S_K_steps_cite_their_rule_ids() -> None:
    rule = castles()
    assert rule.step_ids[majority.step_key(UNOWNED, 2)] == ("S-K2",)
    assert rule.step_ids[majority.step_key(ANY, 2)] == ("S-K3",)
    assert rule.step_ids[majority.step_key(FARMS, 2)] == ("S-K4",)
    assert rule.step_ids[majority.step_key(FINAL, 2)] == ("S-K5",)


# ----- the reference reaction -----------------------------------------------------------------------
class _Tables:
    landmark_name = ["Stirling"]


class _Game:
    """Just what majority.react reads: one castle (landmark 0) next to hex 0."""

    def __init__(self, rule: MajorityRule, owner: int, c: list[list[int]]) -> None:
        self.t = _Tables()
        self.players = ("Ann", "Bob", "Cat")
        self.n_players = 3
        self.lm_adj = ((0,),)
        self.metric_of = {0: rule}
        self.lm_owner = [owner]
        self.lm_count = [c]
        self.events: list[tuple[Any, ...]] = []

    def event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str,
              *args: object) -> None:
        self.events.append((p, pts, ids, text.format(*args)))


@pytest.mark.parametrize(("owner", "c", "holder", "ids", "text"), [
    (-1, counts((0, 1, 0), (0, 1, 0)), 1, ("S-K1", "S-K2"), "Stirling had no owner: Bob takes it"),
    (0, counts((2, 3, 0), (0, 0, 0)), 1, ("S-K1", "S-K3"), "Stirling: Bob has 3 adjacent tiles to Ann's 2: takes it"),
    (2, counts((0, 2, 2), (0, 1, 2)), 2, ("S-K1", "S-K4"),
     "Stirling: Bob has 1 adjacent farm tiles to Cat's 2: Cat keeps it"),
    (0, counts((2, 2, 0), (1, 1, 0)), 0, ("S-K1", "S-K5"), "Stirling: tied on every count: Ann keeps it"),
])
def test_S_K_reaction_tells_who_holds_the_castle(owner: int, c: list[list[int]], holder: int,
                                                 ids: tuple[str, ...], text: str) -> None:
    rule = castles()
    g = _Game(rule, owner, c)
    majority.react(g, rule, Placement(1, 0, 0, None, {}, ()))  # type: ignore[arg-type]
    assert g.lm_owner == [holder]
    assert g.events == [(1, 0, ids, text)]


def test_S_K1_holder_placing_again_tells_nothing() -> None:
    rule = castles()
    g = _Game(rule, 1, counts((0, 1, 0), (0, 1, 0)))
    majority.react(g, rule, Placement(1, 0, 0, None, {}, ()))  # type: ignore[arg-type]
    assert g.lm_owner == [1] and g.events == []


# ----- the generated engine's inline form -----------------------------------------------------------
@pytest.mark.parametrize("placer_takes_tie", [False, True])
def test_S_K_inline_python_decides_as_the_kernel(placer_takes_tie: bool) -> None:
    rule = MajorityRule("castle", "castles", (0,), castles().metrics, placer_takes_tie, ())
    # the locals the function below binds, declared to the template
    lines = majority.python_challenge(rule, "MAJ", None, Locals().declare("p", "h", "lm_owner", "lm_count"))
    env: dict[str, Any] = {}
    exec("def run(p, h, lm_owner, lm_count, MAJ):\n" + "".join(f"    {ln}\n" for ln in lines), env)  # noqa: S102
    for owner, placer, a0, a1, f0, f1 in product((-1, 0, 1), (0, 1), range(3), range(3), range(3), range(3)):
        c = [[a0, a1], [f0, f1]]
        holder = [owner]
        env["run"](placer, 0, holder, [c], ((0,),))
        assert holder[0] == challenge(c, owner, placer, placer_takes_tie)[0], (owner, placer, c)
