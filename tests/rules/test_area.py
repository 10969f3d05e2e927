"""Areas (S-A1..S-A4), rules/area.py: the ranking and payout choice against the rules, by hand; the reference
reaction's payments; the generated engines' inline ranking against the kernel, exhaustively. (That the
reference, generated and native engines agree on whole games: tests/test_fast.py, tests/test_native.py.)"""

from __future__ import annotations

from functools import cache
from itertools import product
from typing import Any

import pytest

from rebirth_dsl.compile.ruleset import AreaRule, Ruleset
from rebirth_dsl.lang.vocab import TIE_STEPS
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.rules import area
from rebirth_dsl.rules.area import order, paid_places, payout_key

# S-A2 as Scotland writes it: `ties: completer last, then clockwise from completer`
SCOTTISH_TIES = (TIE_STEPS[("completer", "last")], TIE_STEPS[("clockwise", "from", "completer")])


@cache
def ruleset(name: str) -> Ruleset:
    """A bundled ruleset on its own board."""
    return load_ruleset(*rules_and_board(name, None))[0]


def settlements(name: str = "scotland") -> AreaRule:
    """The ruleset's settlement area rule, as compiled."""
    return ruleset(name).areas["settlement"]


# ----- S-A1, S-A2: the ranking ----------------------------------------------------------------------
@pytest.mark.parametrize(("influence", "completer", "expected"), [
    ((5, 2, 7), 2, [2, 0, 1]),  # no tie: 7, 5, 2
    ((3, 3, 0), 0, [1, 0]),  # seat 2 has no influence and does not rank; the completer (0) loses the tie
    ((3, 3, 1), 1, [0, 1, 2]),  # the completer (1) loses its tie with seat 0
    ((2, 2, 2), 1, [2, 0, 1]),  # completer 1 last; of 2 and 0, seat 2 comes first clockwise after seat 1
    ((2, 2, 2), 0, [1, 2, 0]),  # completer 0 last; then 1, 2 clockwise after it
    ((0, 0, 0), 0, []),  # nobody has influence: nobody ranks
])
def test_S_A2_ties_completer_last_then_clockwise(influence: tuple[int, ...], completer: int,
                                                 expected: list[int]) -> None:
    assert order(influence, completer, len(influence), SCOTTISH_TIES) == expected


def test_S_A2_clockwise_from_a_completer_without_influence() -> None:
    # 4 seats, influence 1, 3, 3, 0, completer 3 (who ranks not: 0 influence). Seats 1 and 2 tie at 3:
    # clockwise after seat 3 comes 0, then 1, then 2, so 1 before 2; then seat 0 with 1
    assert order((1, 3, 3, 0), 3, 4, SCOTTISH_TIES) == [1, 2, 0]


def test_S_A2_the_compiled_rule_has_the_scottish_chain() -> None:
    assert [s.words for s in settlements().ties] == [s.words for s in SCOTTISH_TIES]


# ----- S-A3, I-A1: which table pays, and which places it pays ---------------------------------------
@pytest.mark.parametrize(("size", "n", "key"), [
    (1, 3, (1, None)), (2, 2, (2, None)), (3, 4, (3, None)),
    (4, 2, (4, 2)),  # I-A1: an area of 4 in a 2-player game pays 17 / 8
    (4, 3, (4, None)), (4, 4, (4, None)),  # ... with more players, 12 / 8 / 5
    (5, 3, None),  # no table for size 5: the area pays nothing
])
def test_S_A3_I_A1_payout_table_by_size_and_player_count(size: int, n: int, key: tuple[int, int | None] | None
                                                         ) -> None:
    assert payout_key(size, n, settlements("ireland").pay) == key


def test_S_A3_payout_table_numbers() -> None:
    fixed = area.fixed_pay(settlements("ireland"), ruleset("ireland").t.attributes)
    assert fixed is not None
    # -1: the player's influence (size 1); the rest as RULES.md writes them (S-A3, I-A1)
    assert area.payout_table(1, 3, fixed) == (-1,)
    assert area.payout_table(2, 3, fixed) == (5, 3)
    assert area.payout_table(3, 3, fixed) == (8, 5, 0)
    assert area.payout_table(4, 3, fixed) == (12, 8, 5)
    assert area.payout_table(4, 2, fixed) == (17, 8)
    assert area.payout_table(5, 2, fixed) == ()


@pytest.mark.parametrize(("place", "ranked", "places", "expected"), [
    (0, 1, 2, (0, 1)),  # alone in an area of size 2: first + second, 5 + 3 = 8
    (0, 1, 3, (0, 1)),  # alone in an area of size 3: 8 + 5 = 13
    (0, 1, 1, (0,)),  # alone in an area of size 1: its one payout (the influence); there is no second
    (1, 3, 2, (1,)),  # second of three in an area of size 2: 3
    (2, 3, 2, ()),  # third of three in an area of size 2: beyond the table, nothing
    (0, 2, 3, (0,)),  # first of two: its own place
])
def test_S_A3_alone_takes_first_plus_second(place: int, ranked: int, places: int, expected: tuple[int, ...]) -> None:
    alone = settlements().alone
    assert alone == (0, 1)
    assert paid_places(place, ranked, alone, places) == expected


def test_S_A3_without_an_alone_rule_one_player_takes_first_only() -> None:
    assert paid_places(0, 1, (), 3) == (0,)


def test_S_A3_payouts_per_area_size_for_the_inline_engine() -> None:
    fixed = area.fixed_pay(settlements(), ruleset("scotland").t.attributes)
    assert fixed is not None
    per_area, orders = area.payouts(fixed, settlements().alone, (1, 2, 3), 3, SCOTTISH_TIES)
    # (table, alone fixed points, alone times influence): size 1 alone pays its influence once; size 2 alone
    # 5 + 3 = 8; size 3 alone 8 + 5 = 13
    assert per_area == (((-1,), 0, 1), ((5, 3), 8, 0), ((8, 5, 0), 13, 0))
    # per completer, the seats by the tie steps alone: completer last, the others clockwise after it
    assert orders == ((1, 2, 0), (2, 0, 1), (0, 1, 2))


# ----- the reference reaction -----------------------------------------------------------------------
class _Game:
    """What area.score reads: the Scottish board, three seats, the influence of one area."""

    def __init__(self, a: int, influence: list[int]) -> None:
        rs = ruleset("scotland")
        self.rs, self.t = rs, rs.t
        self.players = ("Ann", "Bob", "Cat")
        self.n_players = 3
        na = len(rs.t.area_hexes)
        self.area_free = [0] * na
        self.area_inf = [[0, 0, 0] for _ in range(na)]
        self.area_inf[a] = influence
        self.area_done = [False] * na
        self.area_first: dict[int, int] = {}
        self.events: list[tuple[Any, ...]] = []

    def event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str,
              *args: object) -> None:
        self.events.append((p, pts, ids))


def _area_of_size(size: int) -> int:
    return next(a for a, hs in enumerate(ruleset("scotland").t.area_hexes) if len(hs) == size)


PAID = ("S-A1", "S-A2", "S-A3")


@pytest.mark.parametrize(("size", "influence", "completer", "paid", "first"), [
    # size 3, influence 3, 3, 1, completer Ann: Ann loses the tie: Bob 8, Ann 5, Cat 0
    (3, [3, 3, 1], 0, [(1, 8), (0, 5), (2, 0)], 1),
    # size 2, only Bob has influence (4): alone, first + second = 5 + 3 = 8
    (2, [0, 4, 0], 1, [(1, 8)], 1),
    # size 2, three players with 2 each, completer Bob: Bob last; Cat then Ann clockwise: Cat 5, Ann 3, Bob 0
    (2, [2, 2, 2], 1, [(2, 5), (0, 3), (1, 0)], 2),
    # size 1: the tile's influence, 3
    (1, [0, 0, 3], 2, [(2, 3)], 2),
])
def test_S_A1_S_A3_completed_area_pays_its_ranking(size: int, influence: list[int], completer: int,
                                                   paid: list[tuple[int, int]], first: int) -> None:
    a = _area_of_size(size)
    g = _Game(a, influence)
    area.score(g, a, completer, settlements(), None)  # type: ignore[arg-type]
    assert [(p, pts) for p, pts, _ in g.events] == paid
    assert all(ids == PAID for _, _, ids in g.events)
    assert g.area_done[a] and g.area_first == {a: first}


def test_S_A1_nobody_with_influence_nobody_scores() -> None:
    # S-A4: an area filled with neutral tiles only holds no influence
    a = _area_of_size(2)
    g = _Game(a, [0, 0, 0])
    area.score(g, a, 0, settlements(), None)  # type: ignore[arg-type]
    assert [(p, pts) for p, pts, _ in g.events] == [(0, 0)]
    assert g.area_done[a] and g.area_first == {}


# ----- the generated engines' inline ranking --------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("steps", [SCOTTISH_TIES, (TIE_STEPS[("completer", "first")], TIE_STEPS[("seat", "order")]),
                                   (TIE_STEPS[("counterclockwise", "from", "completer")],), ()])
def test_S_A2_inline_ranking_is_the_kernel(n: int, steps: tuple[Any, ...]) -> None:
    # python_score's form: the seats with influence in tie order, then a stable sort by influence
    orders = area.tie_orders(steps, n)
    for influence in product(range(3), repeat=n):
        for c in range(n):
            ranked = [q for q in orders[c] if influence[q] > 0]
            ranked.sort(key=influence.__getitem__, reverse=True)
            assert ranked == order(influence, c, n, steps), (influence, c)
