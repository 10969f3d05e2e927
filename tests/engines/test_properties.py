"""Hypothesis properties over whole games: the compiled rules against plain recomputations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import BOARDS, RULES, TESTS
from hypothesis import given
from hypothesis import strategies as st
from oracle import score_record

from rebirth_dsl.play.agents import GreedyAgent, RandomAgent
from rebirth_dsl.play.loop import play_game, record_for
from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.record import load_record, load_ruleset, replay
from rebirth_dsl.runtime.game import NEUTRAL, Game
from rebirth_dsl.runtime.setup import colour_tiles

NAMES = ["Ann", "Bob", "Cat", "Dan"]


@lru_cache(maxsize=4)
def ruleset(rules: str = "scotland", board: str = "scotland"):
    return load_ruleset(RULES / f"{rules}.rules", BOARDS / f"{board}.json")[0]


def played(seed: int, n: int, rules: str = "scotland", board: str = "scotland", greedy: bool = False):
    rs = ruleset(rules, board)
    agents = [GreedyAgent() if greedy and i == 0 else RandomAgent() for i in range(n)]
    return play_game(rs, NAMES[:n], agents, seed)


def as_record(rs, seed: int, n: int, moves, rules: str = "scotland", board: str = "scotland") -> dict:
    from rebirth_dsl.runtime.setup import deal

    return record_for(rs, RULES / f"{rules}.rules", BOARDS / f"{board}.json", TESTS, NAMES[:n],
                      ["random"] * n, seed, deal(rs, n, seed), moves)


games = st.tuples(st.integers(0, 10**9), st.integers(2, 4))
sides = st.sampled_from(["scotland", "ireland"])


def _bfs_group(game: Game, h: int) -> set[int]:
    """A plain flood fill: same owner, same kind, adjacent (S-F1)."""
    p, k = game.owner[h], game.tkind[h]
    seen, todo = {h}, [h]
    while todo:
        x = todo.pop()
        for m in game.t.neighbours[x]:
            if m not in seen and game.owner[m] == p and game.tkind[m] == k:
                seen.add(m)
                todo.append(m)
    return seen


@given(games)
def test_S_F1_a_placed_farm_scores_the_size_of_its_group(g: tuple[int, int]) -> None:
    """S-F1: replaying move by move, each farm placement scores exactly its group's size at that moment."""
    seed, n = g
    rs = ruleset()
    game, moves = played(seed, n)
    rec = as_record(rs, seed, n, moves)
    loaded = load_record(TESTS / "x.json", rec, allow_paths=True)
    for i in range(len(moves)):
        r = replay(loaded, stop_at=i + 1)
        m = moves[i]
        if m["hex"] is None or m["tile"] not in ("food", "energy"):
            continue
        h = r.game.t.index[tuple(m["hex"])]
        farm_points = sum(e.points for e in r.game.events if e.index == i and e.category == "farms")
        assert farm_points == len(_bfs_group(r.game, h))
        if i > 12:
            break  # the first moves suffice per example; many examples cover the rest


@given(games, sides)
def test_events_per_category_equal_the_oracle(g: tuple[int, int], side: str) -> None:
    """Every point comes from an event, and the events of each category add up to what the naive oracle
    (tests/oracle, RULES.md only) computes from the record: not to the engine's own total, which the same
    call (State.event) adds to, so that comparison could never fail. Uncovered categories (missions,
    towers) are summed against the reported breakdown, and the whole against the oracle's total."""
    seed, n = g
    rs = ruleset(side, side)
    game, moves = played(seed, n, side, side)
    result = score_record(as_record(rs, seed, n, moves, side, side), TESTS)
    report = evaluate(game)
    events = game.events + game.end_events()
    for q, row in enumerate(report["players"]):
        name = row["name"]
        mine = [e for e in events if e.player == q]
        per_category = {c: sum(e.points for e in mine if e.category == c) for c in result.categories}
        assert per_category == result.points[name], name
        extra = sum(e.points for e in mine if e.category in result.uncovered)
        assert extra == sum(row["breakdown"].get(c, 0) for c in result.uncovered)
        assert sum(e.points for e in mine) == result.total(name, {name: extra}) == row["score"]


def _castle_owners_from_scratch(game: Game, moves: list[dict]) -> dict[str, str | None]:
    """S-K1..S-K5 recomputed naively: a fresh board, counting neighbours for every placement."""
    t = game.t
    owner_at: dict[int, int] = {}
    kind_at: dict[int, str] = {}
    for h in range(t.n):
        if game.owner[h] == NEUTRAL:
            owner_at[h] = NEUTRAL
    holder: dict[int, int] = {}
    castles = [i for i, k in enumerate(t.landmark_kind) if k == "castle"]
    for m in moves:
        if m["hex"] is None:
            continue
        h = t.index[tuple(m["hex"])]
        p = NAMES.index(m["player"])
        owner_at[h] = p
        kind_at[h] = m["tile"].split(":")[0]
        for c in castles:
            ring = t.neighbours[t.landmark_hex[c]]
            if h not in ring:
                continue
            o = holder.get(c, -1)
            if o == p:
                continue
            if o < 0:
                holder[c] = p
                continue
            mine = sum(1 for x in ring if owner_at.get(x) == p)
            theirs = sum(1 for x in ring if owner_at.get(x) == o)
            if mine == theirs:
                mine = sum(1 for x in ring if owner_at.get(x) == p and kind_at[x] in ("food", "energy"))
                theirs = sum(1 for x in ring if owner_at.get(x) == o and kind_at[x] in ("food", "energy"))
            if mine > theirs:
                holder[c] = p
    return {t.landmark_name[c]: (game.players[holder[c]] if c in holder else None) for c in castles}


@given(games, sides)
def test_castle_owners_equal_a_recomputation_from_the_moves(g: tuple[int, int], side: str) -> None:
    """The incremental majority bookkeeping agrees with counting from scratch after every game."""
    seed, n = g
    game, moves = played(seed, n, side, side)
    assert evaluate(game)["castles"] == _castle_owners_from_scratch(game, moves)


@given(games, sides)
def test_the_record_replays_to_the_live_game_and_the_oracle(g: tuple[int, int], side: str) -> None:
    """A played game's record replays (every move legal) to the same position as the live game, and the
    replay scores what the naive oracle computes from the same record."""
    seed, n = g
    rs = ruleset(side, side)
    game, moves = played(seed, n, side, side, greedy=True)
    rec = as_record(rs, seed, n, moves, side, side)
    r = replay(load_record(TESTS / "x.json", rec, allow_paths=True))
    assert r.error is None
    assert r.game.owner == game.owner and r.game.tkind == game.tkind and r.game.tval == game.tval
    assert r.game.lm_owner == game.lm_owner and r.game.held == game.held
    oracle = score_record(rec, TESTS)
    report = evaluate(r.game)
    for row in report["players"]:
        assert {c: row["breakdown"].get(c, 0) for c in oracle.categories} == oracle.points[row["name"]]
    assert report["castles"] == oracle.castles


@given(games, sides)
def test_whole_game_invariants(g: tuple[int, int], side: str) -> None:
    """Tiles placed + passed equal the supply rules (plus set-aside tiles taken by I-R1); no hex holds two
    tiles; the game ends (S-T2)."""
    seed, n = g
    rs = ruleset(side, side)
    game, moves = played(seed, n, side, side)
    per_player = len(colour_tiles(rs, n)) - rs.set_aside
    taken = [sum(1 for m in moves if m["player"] == NAMES[q] for c in m.get("choices", {}).values()
                 if isinstance(c, dict) and "take" in c) for q in range(n)]
    assert len(moves) == n * per_player + sum(taken)
    placed = [tuple(m["hex"]) for m in moves if m["hex"] is not None]
    assert len(placed) == len(set(placed))
    assert game.is_over()
    assert sum(1 for o in game.owner if o >= 0) == len(placed)
    for q in range(n):
        assert sum(1 for m in moves if m["player"] == NAMES[q]) == per_player + taken[q]


@pytest.mark.parametrize(("side", "agents"), [("scotland", "greedy,random,mc"), ("ireland", "greedy,random,greedy")])
def test_same_seed_same_game_in_other_processes(side: str, agents: str, tmp_path: Path) -> None:
    """`rebirth play` is a function of its seed: two processes with different string hashing
    (PYTHONHASHSEED) write the same record. Running twice in one process could never show an order that
    depends on hashing (iterating a set of names, say); two processes can."""
    outs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"{side}-{hash_seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-m", "rebirth_dsl", "play", "--rules", side, "--players", "3",
                               "--seed", "9", "--agents", agents, "-o", str(out), "--quiet"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1]
    assert len(outs[0]["moves"]) >= 3 * 30


@given(games, sides)
def test_generated_expressions_equal_the_closures(g: tuple[int, int], side: str) -> None:
    """cel-python's habit: every card condition and tie-break, compiled to Python source, gives what the
    closure interpreter gives, for every player, on random final positions."""
    from rebirth_dsl.compile.closures import compile_expr
    from rebirth_dsl.compile.exprgen import compile_expr_source
    from rebirth_dsl.compile.prims import Ctx
    from rebirth_dsl.lang import ast as A

    seed, n = g
    rs = ruleset(side, side)
    exprs = [c.condition for d in rs.t.decks.values() for c in d.cards]
    exprs += [st.expr for s in rs.t.rules.statements if isinstance(s, A.WinnerTies) for st in s.steps]
    game, _ = played(seed, n, side, side)
    for e in exprs:
        interpreted, generated = compile_expr(e, rs.t), compile_expr_source(e, rs.t)[0]
        for q in range(n):
            assert interpreted(Ctx(game, q)) == generated(Ctx(game, q))
