"""The generated playouts use a printed ability (I-R1) through runtime.abilities.quick_uses, the ability's
question and effect decided once per landmark, where the reference engine runs `use` with the playout's
answerer. Here both are run from the same positions for every landmark and seat: the same state after, and
the same draws from the seat's generator (the differential harness compares whole games; this reaches the
rarer cases too: an empty supply for "draw 3", no set-aside tile left, every marker placed)."""

from __future__ import annotations

import random
from functools import cache

import pytest
from test_differential import snapshot  # its own folder is on sys.path (no __init__.py)
from test_fast import random_position

from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.pyengine.fast import _answer_per_seat, compiled
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.runtime.abilities import quick_uses, use
from rebirth_dsl.runtime.game import Game, static
from rebirth_dsl.runtime.setup import deal, seat_rng


@cache
def ireland():
    return load_ruleset(*rules_and_board("ireland", None))[0]


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("cut", [0.0, 0.5, 0.97])
def test_quick_use_equals_use(n: int, seed: int, cut: float) -> None:
    """Every tower's quick use leaves the state `use` leaves and draws the same answers."""
    rs = ireland()
    rules = static(rs).ability_rules
    quick = quick_uses(rs, {r.kind for r in rules})
    assert quick is not None and sum(q is not None for q in quick) == 8  # Ireland's eight round towers (I-R0)
    g = random_position(ireland(), n, seed, cut)
    kinds_used = set()
    for lm, qu in enumerate(quick):
        if qu is None:
            continue
        kinds_used.add(type(rs.abilities[rs.t.landmark_ability[lm] or ""].effect).__name__)
        for p in range(n):
            a, b = g.fork(), g.fork()
            ra, rb = random.Random(seed * 100 + lm), random.Random(seed * 100 + lm)
            a.auto_choose = _answer_per_seat([ra] * n)
            use(a, lm, p, rules[0], None, {})
            qu(b, p, rb._randbelow)
            assert snapshot(a) == snapshot(b), (lm, p)
            assert ra.getstate() == rb.getstate(), (lm, p)
    assert kinds_used == {"ScoreEffect", "TakeAsideEffect", "DrawKeepEffect", "DrawCardEffect", "DoubleEffect"}


def test_a_landmark_without_its_ability_is_left_to_use() -> None:
    """A landmark an ability statement touches with no ability printed: no quick use at all (`use` refuses
    it, so the playouts call `use`); landmarks of other kinds have none."""
    rs = ireland()
    quick = quick_uses(rs, {"tower"})
    assert quick is not None
    assert all((q is None) == (k != "tower") for q, k in zip(quick, rs.t.landmark_kind, strict=True))
    assert quick_uses(rs, {"castle"}) is None  # castles print no ability


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_playout_that_keeps_events_uses_the_same_abilities(n: int) -> None:
    """A playout of a game that keeps its events (not quiet) calls `use` for every ability, a quiet one the
    quick uses: the same moves, answers and points either way."""
    rs = ireland()
    out = []
    for quiet in (True, False):
        g = Game(rs, DEFAULT_NAMES[:n], deal(rs, n, 7))
        g.quiet = quiet
        moves: list[tuple[int, int, int, int]] = []
        compiled(rs).run_random(g, [seat_rng(7, i) for i in range(n)], moves)
        out.append((moves, snapshot(g)))
    (quick_moves, quick_state), (slow_moves, slow_state) = out
    assert quick_moves == slow_moves and len(quick_moves) > 40
    assert quick_state == slow_state
    assert any(sc.get("towers") for sc in quick_state["scores"])  # abilities were used (score_3, score_13)
    assert any(len(x) < 4 for x in quick_state["set_aside"])  # and a set-aside tile taken (extra_tile)
