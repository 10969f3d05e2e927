"""S-T1/S-T2, the end of a turn, as the kernel in rules/turn.py decides it (expected seats and hands worked out
by hand from RULES.md: the tile leaves the hand, the top of the supply is drawn, the next player clockwise
who still holds a tile plays; nobody holding a tile ends the game)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rebirth_dsl.rules.turn import end_turn, fixed_turns, next_seat

A, B, C, D = (0, 1), (0, 2), (1, 1), (1, 2)  # tiles (kind, value)


def game(hand: list[list[Any]], supply: list[list[Any]], turn: int = 0) -> Any:
    return SimpleNamespace(hand=hand, supply=supply, pending_draw={}, turn=turn, move_index=0, n_players=len(hand))


def test_S_T1_the_next_seat_clockwise_holding_a_tile() -> None:
    """From seat 1 of 4: seat 2 when it holds a tile; seats 2 and 3 empty: round to seat 0."""
    assert next_seat([[A], [A], [A], [A]], 1, 4) == 2
    assert next_seat([[A], [A], [], []], 1, 4) == 0  # 2 and 3 skipped, 3 -> 0 wraps clockwise
    assert next_seat([[A], [], [], [A]], 3, 4) == 0  # the last seat's next is the first


def test_S_T1_a_lone_holder_plays_again_and_S_T2_nobody_holding_ends() -> None:
    """Only seat 1 holds a tile: it plays again (every other seat skipped); no tile anywhere: -1 (game over)."""
    assert next_seat([[], [A], []], 1, 3) == 1
    assert next_seat([[], [], []], 1, 3) == -1


def test_S_T1_end_turn_removes_draws_counts_and_passes() -> None:
    """Seat 0 plays A: its hand is then [] + the top of its supply (the list's end, D); seat 1 has nothing and
    is skipped, seat 2 plays next; one move counted."""
    g = game([[A], [], [B]], [[C, D], [], []])
    end_turn(g, 0, A)
    assert (g.hand[0], g.supply[0], g.turn, g.move_index) == ([D], [C], 2, 1)


def test_S_T1_the_first_equal_tile_leaves_the_hand() -> None:
    """Two equal tiles in hand: one leaves, the other stays, nothing to draw; the only other seat plays."""
    g = game([[A, B, A], [C]], [[], []])
    end_turn(g, 0, A)
    assert (g.hand[0], g.turn) == ([B, A], 1)


def test_S_T2_the_turn_stays_when_the_last_tile_is_played() -> None:
    g = game([[A], []], [[], []], turn=0)
    end_turn(g, 0, A)
    assert (g.hand, g.turn, g.move_index) == ([[], []], 0, 1)


def test_S_T1_fixed_turns_is_end_turn_step_by_step() -> None:
    """One tile in hand each, supplies of 2, 0 and 1 tiles, seat 1 to play. By hand: seat 1 (B), seat 2 (C),
    seat 0 (A); then seat 1 has run out: seat 2 (its supply's top D), seat 0 (its supply's top D, then C);
    seat 2 is out: seat 0 plays its last C. Six moves; the last played by seat 0."""
    g = game([[A], [B], [C]], [[C, D], [], [D]], turn=1)
    moves = list(fixed_turns(g, [lambda: 0.0] * 3))
    assert moves == [(1, B), (2, C), (0, A), (2, D), (0, D), (0, C)]
    assert (g.turn, g.move_index, g.hand, g.supply) == (0, 6, [[], [], []], [[], [], []])
    # the same moves made one by one with the kernel
    g2 = game([[A], [B], [C]], [[C, D], [], [D]], turn=1)
    seen = []
    while g2.hand[g2.turn]:
        p = g2.turn
        seen.append((p, g2.hand[p][0]))
        end_turn(g2, p, g2.hand[p][0])
    assert seen == moves and (g2.turn, g2.move_index) == (0, 6)
