"""I-M1 public missions and S-M2/S-E3 held cards, as the kernel in rules/public.py reads them (expected points
worked out by hand from RULES.md: the first to fulfil a face-up card scores its big number, each later one
its small number; the placer is checked first, then clockwise, or every player in seat order)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rebirth_dsl.compile.ruleset import PublicRule
from rebirth_dsl.rules.public import ahead, check, held_points, payout, seats


def test_I_M1_the_placer_first_then_clockwise_or_seat_order() -> None:
    assert seats(2, 4, True) == [2, 3, 0, 1]
    assert seats(2, 4, False) == [0, 1, 2, 3]


def test_I_M1_big_to_the_first_small_later_times_the_marker() -> None:
    """A 5 / 2 card: the first fulfiller 5, any later one 2; doubled (x2) 10 and 4; no small number: 0."""
    assert [payout(5, 2, 0), payout(5, 2, 1), payout(5, 2, 3)] == [5, 2, 2]
    assert [payout(5, 2, 0, 2), payout(5, 2, 1, 2)] == [10, 4]
    assert payout(5, None, 1) == 0


def test_I_M1_who_is_ahead_in_seat_order() -> None:
    """Seat 2 fulfils a card seat 3 did earlier; seats 0 and 1 fulfil it too in this check. Seat order: 1 done
    earlier + seats 0 and 1 ahead = 3. Placer first (seat 2 placed): only the 1 done earlier."""
    fulfils = {0: True, 1: True, 3: True}.get
    assert ahead(2, [3], lambda q: bool(fulfils(q)), 4, False) == 3
    assert ahead(2, [3], lambda q: bool(fulfils(q)), 4, True) == 1


def test_S_M2_a_held_card_pays_when_fulfilled() -> None:
    assert (held_points(4, True), held_points(4, False)) == (4, 0)


class _Game(SimpleNamespace):
    def event(self, index: Any, p: int, pts: int, category: str, ids: Any, text: str, *args: object) -> None:
        self.track[p] += pts


def _game(n: int, holds: dict[str, set[int]]) -> Any:
    """Face-up cards "A" (5 / 2) and "B" (3 / 1), each fulfilled by the seats in `holds`."""
    cards = {name: SimpleNamespace(points=pts, small=small, ids=(), cond=lambda ctx, name=name: ctx.me in holds[name])
             for name, pts, small in (("A", 5, 2), ("B", 3, 1))}
    return _Game(public=["A", "B"], public_by={"A": [], "B": []}, cards=cards, doubled=[{} for _ in range(n)],
                 memo=None, quiet=True, n_players=n, players=tuple("PQRS"[:n]), track=[0] * n)


def test_I_M1_the_placer_checked_first_takes_the_big_number() -> None:
    """Seats 0 and 2 of 3 both fulfil A when seat 2 places: seat 2 is checked first (5), seat 0 later (2);
    B is fulfilled by seat 0 alone (3). Totals: seat 0 2 + 3 = 5, seat 2 5."""
    g = _game(3, {"A": {0, 2}, "B": {0}})
    check(g, 2, PublicRule("mission", "public", ()), None)
    assert g.public_by == {"A": [2, 0], "B": [0]}
    assert g.track == [5, 0, 5]


def test_I_M1_in_seat_order_seat_zero_first() -> None:
    """The same position read in seat order: seat 0 takes A's 5 and B's 3, seat 2 A's small 2."""
    g = _game(3, {"A": {0, 2}, "B": {0}})
    check(g, 2, PublicRule("mission", "public", (), placer_first=False), None)
    assert g.public_by == {"A": [0, 2], "B": [0]}
    assert g.track == [8, 0, 2]


def test_I_M1_once_each_and_doubled() -> None:
    """A second check pays nobody again; a later fulfiller with a x2 marker on A takes 2 * 2 = 4."""
    holds: dict[str, set[int]] = {"A": {1}, "B": set()}
    g = _game(2, holds)
    rule = PublicRule("mission", "public", ())
    check(g, 1, rule, None)
    check(g, 0, rule, None)
    assert g.track == [0, 5]
    holds["A"].add(0)
    g.doubled[0]["A"] = 2
    check(g, 0, rule, None)
    assert g.public_by["A"] == [1, 0] and g.track == [4, 5]
