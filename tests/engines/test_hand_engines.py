"""The hand-written Scotland engines of bench/ (the yardsticks of `python -m rebirth_dsl.bench --against-limit`)
play real games of the rules: each one's games, deal and moves included, replayed through the reference
engine (runtime.game.Game, every move validated) end with the totals and winners the hand engine computed;
and they are the project engines' own games: for the same seed the hand C engine ends every game as the
native engine does, the hand Python engine as the generated Python engine does. The C half skips, with the
reason, where no C compiler or cffi is at hand."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES

from rebirth_dsl import native
from rebirth_dsl.native.build import BuildError
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.pyengine.fast import random_game
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import Setup

sys.path.insert(0, str(ROOT / "bench"))
import hand_c  # noqa: E402 - bench/ is not a package: found through the path above
import hand_scotland  # noqa: E402

BOARD = BOARDS / "scotland.json"
PLAYERS = (2, 3, 4)
REPLAYED = 50  # games per player count replayed move by move through the reference engine
COMPARED = 300  # games per player count compared with the project's engine for the same seed


@cache
def ruleset():
    """Scotland on its board, compiled once."""
    return load_ruleset(RULES / "scotland.rules", BOARD)[0]


@cache
def hand_c_engine() -> hand_c.HandC | str:
    """The hand-written C engine, or why it cannot be built here."""
    try:
        return hand_c.load(BOARD)
    except BuildError as e:
        return str(e)


def c_engine() -> hand_c.HandC:
    """The hand-written C engine; skips the test where it cannot be built."""
    eng = hand_c_engine()
    if isinstance(eng, str):
        pytest.skip(f"the hand-written C engine cannot be built here: {eng}")
    return eng


def replay(n: int, tiles: list[list[tuple[int, int]]], deck: list[int],
           moves: list[tuple[int, int, int, int]]) -> tuple[list[int], list[int]]:
    """A hand engine's game through the reference engine: its deal as the setup, each move validated and
    applied by Game.play (an illegal one raises), then the end scoring and the winner."""
    rs = ruleset()
    aside = hand_scotland.SET_ASIDE
    setup = Setup([t[:aside] for t in tiles], [t[aside:] for t in tiles],
                  {"mission": [hand_scotland.CARDS[c] for c in deck]})
    g = Game(rs, list(DEFAULT_NAMES[:n]), setup)
    for i, (p, k, v, h) in enumerate(moves):
        assert g.turn == p, f"move {i}: the hand engine's seat {p} is not the one to play ({g.turn})"
        g.play(p, (k, v), None if h < 0 else h, i)
    assert g.is_over()
    totals = g.final_scores(g.end_events())
    return list(totals), list(g.winners(totals)[0])


@pytest.mark.parametrize("n", PLAYERS)
def test_hand_python_games_replay_on_the_reference_engine(n: int) -> None:
    """The hand Python engine's games, replayed move by move, end with its totals and winners."""
    play = hand_scotland.engine(BOARD)
    for seed in range(REPLAYED):
        totals, winners, tiles, deck, moves = play(n, seed, True)
        assert tiles is not None and deck is not None and moves is not None
        assert replay(n, tiles, deck, moves) == (totals, winners), f"{n} players, seed {seed}"


@pytest.mark.parametrize("n", PLAYERS)
def test_hand_python_plays_the_generated_engines_games(n: int) -> None:
    """For the same seed, the hand Python engine ends as the generated Python engine does."""
    play = hand_scotland.engine(BOARD)
    rs, names = ruleset(), list(DEFAULT_NAMES[:n])
    for seed in range(COMPARED // 3):
        g, _ = random_game(rs, names, seed)
        totals = g.final_scores(g.end_events())
        assert play(n, seed)[:2] == (list(totals), list(g.winners(totals)[0])), f"{n} players, seed {seed}"


@pytest.mark.parametrize("n", PLAYERS)
def test_hand_c_games_replay_on_the_reference_engine(n: int) -> None:
    """The hand C engine's games, replayed move by move, end with its totals and winners."""
    eng = c_engine()
    for seed in range(REPLAYED):
        tiles, deck, moves, totals, win = eng.record(n, seed)
        dealt = [[(t >> 3, t & 7) for t in seat] for seat in tiles]
        played = [(p, t >> 3, t & 7, h) for p, t, h in moves]
        winners = [q for q in range(n) if win >> q & 1]
        assert replay(n, dealt, deck, played) == (totals, winners), f"{n} players, seed {seed}"


@pytest.mark.parametrize("n", PLAYERS)
def test_hand_c_plays_the_native_engines_games(n: int) -> None:
    """For the same seed, the hand C engine ends as the native engine does (totals and winners)."""
    eng = c_engine()
    why = native.unavailable()
    if why is not None:
        pytest.skip(f"the native backend cannot run here: {why}")
    nat = native.engine(ruleset())
    assert nat is not None
    totals, win = eng.games(n, 0, COMPARED)
    for seed, (t, _bd, winners) in enumerate(nat.results(n, 0, COMPARED)):
        assert totals[seed * n:(seed + 1) * n] == list(t), f"{n} players, seed {seed}"
        assert [q for q in range(n) if win[seed] >> q & 1] == list(winners), f"{n} players, seed {seed}"


def test_hand_c_refuses_a_board_it_cannot_play(tmp_path: Path) -> None:
    """A board whose settlement hex lies in no area is refused, not played wrongly."""
    eng = c_engine()
    flat = hand_c.board_ints(BOARD)
    settle = next(i for i in range(flat[0]) if flat[1 + 8 * i] == hand_c.KINDS.index("settlement"))
    flat[1 + 8 * settle + 3] = -1
    assert eng.lib.hand_board(eng.ffi.new("int32_t[]", flat), len(flat)) == -1
    good = hand_c.board_ints(BOARD)  # the engine is shared by the other tests: the real board back
    assert eng.lib.hand_board(eng.ffi.new("int32_t[]", good), len(good)) == 0
