"""The native backend (rebirth_dsl.native) repeats the rules' meaning in generated C. Its games and its
playouts from a position, recorded and replayed on the reference engine, are held equal to it by the
differential harness (test_differential.py), on every bundled ruleset and variant, a crowded board and a
coverage ruleset. This file keeps the rest: what can be expressed natively and what falls back (with a
notice), that no text of a rules file becomes C, record files replayed through `records`, hands kept in
the reference order, the incremental card check against reading every card, batches and threads, the
statistics of many native games against the Python engine's, `simulate --backend native`, the library
cache, and positions past the engine's fixed sizes. Tests that need cffi and a C compiler skip, with the
reason, where either is missing; the rest (generation, fallbacks) run everywhere."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from functools import cache
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest
import test_public_reads as public_reads  # its own folder is on sys.path (no __init__.py)
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth_dsl import native
from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.native import build as nbuild
from rebirth_dsl.native import lib as nlib
from rebirth_dsl.native.cgen import generate
from rebirth_dsl.native.lib import load
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.simulate import simulate_command
from rebirth_dsl.play.tally import GameExtra, Tally
from rebirth_dsl.pyengine.fast import random_game
from rebirth_dsl.records.record import load_record, load_ruleset, replay
from rebirth_dsl.records.resources import bundled, rules_and_board
from rebirth_dsl.runtime.game import Game, static
from rebirth_dsl.runtime.setup import deal

COVERAGE = ROOT / "tests" / "native" / "coverage.rules"
FALLBACK = ROOT / "rules" / "positions" / "scotland" / "fallback.json"
WHY = native.unavailable()
needs_native = pytest.mark.skipif(WHY is not None, reason=f"the native backend cannot run here: {WHY}")


def _no_compiler() -> str | None:
    """Why no library can be built here, or None."""
    try:
        nbuild.compiler()
    except nbuild.BuildError as e:
        return str(e)
    return None


CC_WHY = _no_compiler()
needs_cc = pytest.mark.skipif(CC_WHY is not None, reason=f"no library can be built here: {CC_WHY}")

# every bundled ruleset and variant on its own board, the crowded board (passes, fallbacks), the coverage rules
CASES = [(name, None) for name in bundled("rules")] + [("scotland", str(FALLBACK)), (str(COVERAGE), "ireland")]


@cache
def ruleset(name: str, board: str | None):
    """A bundled or test ruleset on its board, compiled once."""
    return load_ruleset(*rules_and_board(name, board))[0]


def fresh(rules: Path, board: Path):
    """A ruleset compiled anew (no engine cached on it yet)."""
    return compile_rules(load_rules(rules), load_board(board))


def engine(rs):
    """The ruleset's native engine (the caller is marked needs_native)."""
    eng = native.engine(rs)
    assert eng is not None
    return eng


def outcome(rs, game: Game, tally: Tally | None = None) -> tuple:
    """Scores, per-category breakdowns, castle holders, winners (and the lab's tally) of a finished game."""
    assert game.is_over()
    end = game.end_events()
    totals = game.final_scores(end)
    cats = rs.categories
    bd = [[game.scores[q].get(c, 0) for c in cats] for q in range(game.n_players)]
    for e in end:
        bd[e.player][cats.index(e.category)] += e.points
    winners, _ = game.winners(totals)
    return totals, bd, list(game.lm_owner), winners, (tally.extra(game, end) if tally else None)


def apply(rs, game: Game, moves: list[dict], tally: Tally | None = None) -> None:
    """The record's moves on the reference engine, each validated (a refused move fails the test)."""
    for i, m in enumerate(moves):
        p = game.players.index(m["player"])
        tile = rs.parse_tile(m["tile"])
        h = rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
        game.play(p, tile, h, i, m.get("choices"))
        if tally is not None:
            tally.append((p, tile[0], tile[1], -1 if h is None else h))


# ----- generation: needs neither cffi nor a compiler ------------------------------------------------------
def test_the_cases_cover_every_bundled_ruleset() -> None:
    """The list this file runs over is the bundled games (a new variant is compared without a test edit)."""
    assert {"scotland", "ireland"} <= {c for c, _ in CASES} and any("/" in c for c, _ in CASES)


@pytest.mark.parametrize("name,board", CASES)
def test_every_case_is_expressible_natively(name: str, board: str | None) -> None:
    """Nothing of the bundled games or the coverage rules falls back to the Python engine."""
    assert native.unsupported(ruleset(name, board)) == []


def _variant(tmp_path: Path, body: str) -> Path:
    """A variant of Scotland written into tmp_path."""
    f = tmp_path / "variant.rules"
    f.write_text(f'ruleset variant "A variant" extends "{ROOT / "rules" / "scotland.rules"}"\n{body}\n', encoding="utf-8")
    return f


def test_no_text_of_a_rules_or_board_file_becomes_c(tmp_path: Path) -> None:
    """Card, category, landmark and area names never reach the C source, however they are written: the
    source's only string literal is the generator's own visibility attribute."""
    hostile = 'Evil */ } int main(void) { system(0); /*'
    f = _variant(tmp_path, "deck mission {\n  when empty: draw nothing\n"
                           f'  card "{hostile}" 3 x4: always\n'
                           '  card "Stirling bridge" 4: owner(castle "Stirling") == me\n}\n'
                           "on place food: score 1 as evil_category_xyz\n")
    rs = fresh(f, ROOT / "boards" / "scotland.json")
    src = generate(rs).source
    assert set(re.findall(r'"[^"\n]*"', src)) <= {'"default"'}
    for text in [hostile, "Stirling", "evil_category_xyz", "Edinburgh", "castle", "settlement", "cathedral",
                 *rs.t.area_names]:
        assert text not in src, text


def test_what_cannot_be_expressed_is_named_and_falls_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A comparison of two collections (Python compares lists element by element) and arithmetic that could
    pass 64 bits are reported by name; the engine is then the Python one, after a one-line notice, and
    playouts still run."""
    f = _variant(tmp_path, "deck mission {\n  when empty: draw nothing\n"
                           "  card \"Same\" 3 x4: tiles(me, food) == tiles(me, food)\n"
                           "  card \"Huge\" 3: count(tiles(me)) * 1000000 * 1000000 * 1000000 >= 1\n}\n")
    rs = fresh(f, ROOT / "boards" / "scotland.json")
    problems = native.unsupported(rs)
    assert any("between collections" in p for p in problems) and any("arithmetic" in p for p in problems), problems
    assert native.engine(rs) is None
    assert native.engine(rs) is None  # the notice is given once
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "native backend not used for A variant" in err and "Python engine" in err
    g, _ = random_game(rs, DEFAULT_NAMES[:3], 1)
    assert native.random_playouts(g, 2, 5) == native.random_playouts(g, 2, 5, backend="python")


def test_a_statement_kind_without_c_is_named_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The native engine runs a statement only through its rule module's C (`Kind.c_place`): a kind that
    gives none is named, and the ruleset is left to the Python engine, never generated without it."""
    import dataclasses

    from rebirth_dsl.compile.ruleset import AreaRule
    from rebirth_dsl.rules import table

    rs = ruleset("scotland", None)
    monkeypatch.setitem(table.KINDS, AreaRule, dataclasses.replace(table.KINDS[AreaRule], c_place=None))
    assert any(p.startswith("the reaction AreaRule") for p in native.unsupported(rs)), native.unsupported(rs)
    monkeypatch.undo()
    assert native.unsupported(rs) == []


def test_without_cffi_the_python_engine_plays(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The core stays pure Python: with cffi missing the reason is given and everything falls back."""
    monkeypatch.setitem(sys.modules, "cffi", None)  # `import cffi` now raises ImportError
    assert "cffi" in (native.unavailable() or "")
    rs = fresh(ROOT / "rules" / "scotland.rules", ROOT / "boards" / "scotland.json")
    assert native.engine(rs) is None and "cffi" in capsys.readouterr().err
    assert native.random_results(rs, 2, 0, 3) is None
    g, _ = random_game(rs, DEFAULT_NAMES[:2], 3)
    assert len(native.random_playouts(g, 2, 1)) == 2


# ----- native games replayed by the reference engine (the games themselves: test_differential.py) ----------
@needs_native
@pytest.mark.parametrize("name,board", [("scotland", None), ("ireland", None), ("scotland", str(FALLBACK))])
def test_native_record_files_replay_through_records(name: str, board: str | None, tmp_path: Path) -> None:
    """The record as a file (`rebirth eval` reads it): load_record and replay reach the native result."""
    rules, board_path = rules_and_board(name, board)
    rs = ruleset(name, board)
    eng = engine(rs)
    n = min(3, rs.players[1])
    names = DEFAULT_NAMES[:n]
    for seed in (7, 8):
        g = eng.play(names, seed)
        path = tmp_path / f"g{seed}.json"
        path.write_text(json.dumps(native.record_of(rs, rules, board_path, tmp_path, names, g)), encoding="utf-8")
        r = replay(load_record(path, allow_paths=True))
        assert r.error is None
        assert outcome(rs, r.game)[:4] == (g.totals, g.breakdown, g.lm_owner, g.winners)


@needs_native
def test_wide_state_types_play_the_reference_games(tmp_path: Path) -> None:
    """The state's types are chosen per ruleset and board (cgen.py state_types): Scotland's settlements at
    influences up to 300 (tile values and codes past a byte: VBITS 9) on its board with a strip of 40 plains
    added (263 hexes: hexes and their counts past a byte) take the wide types, and the native games and a
    playout from a position loaded with them replay on the reference engine with the same scores."""
    text = (ROOT / "rules" / "scotland.rules").read_text(encoding="utf-8")
    mix = "settlement influence 1 x3, 2 x4, 3 x3, 4 x2"
    assert mix in text
    # 12 settlements as before, 2, 3 and 4 among them (4 players return one of each, S-U3)
    rules = tmp_path / "wide.rules"
    rules.write_text(text.replace(mix, "settlement influence 1 x3, 2 x1, 3 x1, 4 x1, 150 x3, 300 x3"), encoding="utf-8")
    board = json.loads((ROOT / "boards" / "scotland.json").read_text(encoding="utf-8"))
    board["hexes"] += [{"kind": "plain", "q": q, "r": 60} for q in range(40)]
    board_path = tmp_path / "wide.json"
    board_path.write_text(json.dumps(board), encoding="utf-8")
    rs = fresh(rules, board_path)
    assert rs.t.n == 263
    plan = generate(rs)
    assert plan.sizes["VBITS"] == 9  # 300 needs 9 bits
    for wide in ("typedef uint16_t hix_t;", "typedef uint16_t hct_t;", "typedef int16_t tv_t;",
                 "typedef uint16_t tile_t;", "typedef int16_t ainf_t;",  # areas of 3: 3 * 511
                 "typedef uint16_t uf_t;"):  # a hex and a group's size: 263 hexes and more
        assert wide in plan.source, wide
    eng = engine(rs)
    paid = 0
    for n in (2, 3, 4):
        names = DEFAULT_NAMES[:n]
        for seed in (1, 2):
            g = eng.play(names, seed)
            ref = Game(rs, names, g.setup)
            apply(rs, ref, g.moves)
            assert outcome(rs, ref)[:4] == (g.totals, g.breakdown, g.lm_owner, g.winners)
            paid = max(paid, *g.totals)
        g = eng.play(names, 5)  # a position a third into a game, loaded with its wide values
        pos = Game(rs, names, g.setup)
        apply(rs, pos, g.moves[: len(g.moves) // 3])
        _replays(rs, eng, pos, 3)
    assert paid > 300  # the large influences were placed and scored


@needs_native
def test_a_card_slack_takes_the_type_its_numbers_need(tmp_path: Path) -> None:
    """What a bounded face-up card is known to lack (pslack, cgen.py state_types) is kept in the smallest type
    holding the most any card can lack, its N less the numbers added in E: Ireland's largest is 27 (a byte);
    its Chieftain asking 300 with 2 and 3 players takes 16 bits, and the native games, those a position loaded
    a third in plays out included, replay on the reference engine with the same scores."""
    assert "typedef uint8_t slack_t;" in generate(ruleset("ireland", None)).source
    rules_path, board_path = rules_and_board("ireland", None)
    text = rules_path.read_text(encoding="utf-8")
    card = "influence(tiles(me)) >= players(2 to 3: 27, 4: 17)"
    assert card in text
    rules = tmp_path / "wide.rules"
    rules.write_text(text.replace(card, card.replace("27", "300")), encoding="utf-8")
    rs = fresh(rules, board_path)
    assert "typedef uint16_t slack_t;" in generate(rs).source
    eng = engine(rs)
    for n in (2, 3, 4):
        names = DEFAULT_NAMES[:n]
        for seed in (1, 2, 3):
            g = eng.play(names, seed)
            ref = Game(rs, names, g.setup)
            apply(rs, ref, g.moves)
            assert outcome(rs, ref)[:4] == (g.totals, g.breakdown, g.lm_owner, g.winners)
        g = eng.play(names, 5)
        pos = Game(rs, names, g.setup)
        apply(rs, pos, g.moves[: len(g.moves) // 3])
        _replays(rs, eng, pos, 3)


def _native_games_replay(rs, eng, counts: tuple[int, ...], seeds: tuple[int, ...]) -> None:
    """The native games of these player counts and seeds replay on the reference engine with the same ends."""
    for n in counts:
        names = DEFAULT_NAMES[:n]
        for seed in seeds:
            g = eng.play(names, seed)
            ref = Game(rs, names, g.setup)
            apply(rs, ref, g.moves)
            assert outcome(rs, ref)[:4] == (g.totals, g.breakdown, g.lm_owner, g.winners)


@needs_native
def test_a_group_past_the_union_finds_type_is_refused_not_wrapped(tmp_path: Path) -> None:
    """The union-find's entries (uf_t, cgen.py state_types) hold a group's size or, above GMAX, a hex: the
    smallest type holding the hexes and a colour's tiles of a kind that forms groups, GMAX all it holds beyond
    the hexes. Scotland's 223 hexes and 12 tiles of each farm kind take a byte (GMAX 32): a seat with GMAX food
    tiles on the board and in its holdings plays out as the reference engine does, one more is refused (a group
    of them would not fit). With 40 food tiles a colour the entries take 16 bits, and the games replay."""
    rs = ruleset("scotland", None)
    plan = generate(rs)
    assert "typedef uint8_t uf_t;" in plan.source and plan.sizes["GMAX"] == 255 - rs.t.n
    eng = engine(rs)
    gmax = eng.plan.sizes["GMAX"]
    food = rs.tile_kinds.index("food")
    tile = next(x for x in rs.mix if x[0] == food)
    names = DEFAULT_NAMES[:2]
    for seed in range(3):
        pos = Game(rs, names, deal(rs, 2, seed))
        have = sum(x[0] == food for x in pos.hand[0] + pos.set_aside[0])
        pos.supply[0] = [tile] * (gmax - have)
        moves = _replays(rs, eng, pos, seed)
        assert sum(m["player"] == names[0] for m in moves) >= gmax - have  # the seat played every tile
        pos.supply[0].append(tile)
        _refused(pos, eng, "group")
    text = (ROOT / "rules" / "scotland.rules").read_text(encoding="utf-8")
    assert "food x12 " in text
    rules = tmp_path / "food.rules"
    rules.write_text(text.replace("food x12 ", "food x40 "), encoding="utf-8")
    rs = fresh(rules, rules_and_board("scotland", None)[1])
    assert "typedef uint16_t uf_t;" in generate(rs).source and "typedef uint8_t hix_t;" in generate(rs).source
    _native_games_replay(rs, engine(rs), (2, 4), (1, 2))


@needs_native
def test_a_pending_draw_takes_the_type_its_n_needs(tmp_path: Path) -> None:
    """A pending "draw N, keep one" keeps its N in the smallest type holding the rules' largest (pdn_t):
    Ireland's 3 a byte, a draw of 300 (the whole supply) 16 bits, and those games replay on the reference
    engine, the draws answered included."""
    assert "typedef uint8_t pdn_t;" in generate(ruleset("ireland", None)).source
    rules_path, board_path = rules_and_board("ireland", None)
    text = rules_path.read_text(encoding="utf-8")
    assert "draw 3 keep 1" in text
    rules = tmp_path / "draw.rules"
    rules.write_text(text.replace("draw 3 keep 1", "draw 300 keep 1"), encoding="utf-8")
    rs = fresh(rules, board_path)
    assert "typedef uint16_t pdn_t;" in generate(rs).source
    eng = engine(rs)
    _native_games_replay(rs, eng, (2, 3, 4), (1, 2, 3))
    names = DEFAULT_NAMES[:3]
    assert sum(_answers(eng.play(names, seed).moves, "keep") for seed in range(4)) > 0


U64 = (1 << 64) - 1


class NativeDraws:
    """The native engine's random numbers written out in Python (ctext.py: xoshiro256** seeded through
    splitmix64, rb_below), so a test can hand the reference engine the draws a native playout made."""

    def __init__(self, seed: int) -> None:
        self.q = []
        for _ in range(4):
            seed = (seed + 0x9E3779B97F4A7C15) & U64
            z = ((seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9) & U64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & U64
            self.q.append(z ^ (z >> 31))

    @staticmethod
    def _rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & U64

    def next(self) -> int:
        """rb_next: the next 64 bits."""
        q = self.q
        r = self._rotl(q[1] * 5 & U64, 7) * 9 & U64
        t = q[1] << 17 & U64
        q[2] ^= q[0]
        q[3] ^= q[1]
        q[1] ^= q[2]
        q[0] ^= q[3]
        q[2] ^= t
        q[3] = self._rotl(q[3], 45)
        return r

    def below(self, n: int) -> int:
        """rb_below: a uniform index below n from the high 32 bits."""
        return ((self.next() >> 32) * n) >> 32


@needs_native
@pytest.mark.usefixtures("own_cache")
def test_native_hands_keep_the_reference_order(tmp_path: Path) -> None:
    """Hands of three tiles, so a hand often holds equal tiles with another between them. A native playout
    from the deal (no reshuffle) draws, each move, the index of the tile to play in the seat's hand, then one
    number for the hex of a placement (none for a pass); handing the same draws to the reference engine
    replaying its moves, the index drawn into the reference hand is the tile the native engine played, move
    after move: the native hand keeps Game.play's order (the first tile equal to the one played leaves it),
    not only the same tiles. Somewhere the tile played was not the first of its kind in the hand, where
    taking it by position would have left another order."""
    rs = fresh(_variant(tmp_path, "setup { hand 3 }"), ROOT / "boards" / "scotland.json")
    assert rs.hand == 3 and not static(rs).ability_rules  # no ability answer draws a number
    eng = engine(rs)
    elsewhere = 0
    for n in range(rs.players[0], rs.players[1] + 1):
        names = DEFAULT_NAMES[:n]
        for seed in range(8):
            pos = Game(rs, names, deal(rs, n, seed))
            moves: list[dict] = []
            eng.playouts(pos, 1, seed, redeal=False, record=moves)
            draws = NativeDraws(seed)
            for i, m in enumerate(moves):
                p, tile = names.index(m["player"]), rs.parse_tile(m["tile"])
                hand = pos.hand[p]
                ti = draws.below(len(hand)) if len(hand) > 1 else 0
                assert hand[ti] == tile, (n, seed, i, hand, tile)
                elsewhere += hand.index(tile) != ti
                h = rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
                if h is not None:
                    draws.next()  # pick_hex's one draw
                pos.play(p, tile, h, i)
            assert pos.is_over()
    assert elsewhere > 0


@needs_native
def test_random_playouts_on_either_backend() -> None:
    """The agents' entry point: the same meaning on both engines (final scores, one per seat), the same
    numbers for the same seed on one backend, native when it can run."""
    rs = ruleset("ireland", None)
    names = DEFAULT_NAMES[:3]
    g = engine(rs).play(names, 4)
    pos = Game(rs, names, g.setup)
    apply(rs, pos, g.moves[:20])
    for backend in ("native", "python", "auto"):
        out = native.random_playouts(pos, 3, 9, backend=backend)
        assert len(out) == 3 and all(len(s) == 3 for s in out)
        assert out == native.random_playouts(pos, 3, 9, backend=backend)
    assert native.random_playouts(pos, 3, 9) == native.random_playouts(pos, 3, 9, backend="native")
    assert pos.move_index == 20  # the position itself is never changed
    with pytest.raises(ValueError):
        native.random_playouts(pos, 1, 0, backend="gpu")


# ----- the incremental check of the face-up cards against reading every card ---------------------------------
@pytest.fixture
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Libraries of test-only sources are built into a cache folder of the test's own, not the user's."""
    monkeypatch.setenv("REBIRTH_CACHE", str(tmp_path_factory.mktemp("cache")))


def both_checks(rs) -> tuple:
    """The ruleset's native engine checking the face-up cards incrementally (what every caller gets) and the
    same engine reading every unfulfilled card for every seat after every placement (the reference)."""
    return load(rs, generate(rs)), load(rs, generate(rs, full_reads=True))


def fulfilled(results: list) -> int:
    """How many times a face-up card was fulfilled in these games (results with extras)."""
    return sum(len(seats) for *_, extra in results for _, seats in GameExtra(*extra).public)


@needs_native
@pytest.mark.usefixtures("own_cache")
@pytest.mark.parametrize("name,board", [("ireland", None), (str(COVERAGE), "ireland")])
def test_incremental_card_check_equals_reading_every_card(name: str, board: str | None) -> None:
    """Many games at every player count, and playouts from positions part-way through them (cards already
    fulfilled, doubling markers laid): the same scores, breakdowns, winners and lab tallies (who fulfilled
    which face-up card, in which order) either way, and cards are fulfilled in them."""
    rs = ruleset(name, board)
    inc, full = both_checks(rs)
    assert "pub_tile" in inc.plan.source and "pub_tile(s, p" not in full.plan.source
    lo, hi = rs.players
    for n in range(lo, hi + 1):
        got = inc.results(n, 500, 400, extras=True)
        assert got == full.results(n, 500, 400, extras=True)
        assert fulfilled(got) > 100
        for seed in range(3):
            g = inc.play(DEFAULT_NAMES[:n], 900 + seed)
            pos = Game(rs, DEFAULT_NAMES[:n], g.setup)
            apply(rs, pos, g.moves[: len(g.moves) * (seed + 1) // 4])
            assert inc.playouts(pos, 40, seed) == full.playouts(pos, 40, seed)


@st.composite
def mission_cards(draw: Any) -> list[str]:
    """Card conditions over the whole expression language and of the threshold form (test_public_reads)."""
    return draw(st.lists(st.one_of(public_reads.condition(), public_reads.threshold()), min_size=8, max_size=16))


@needs_native
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(conds=mission_cards(), seed=st.integers(0, 10**9))
def test_generated_cards_incremental_check_equals_reading_every_card(tmp_path: Path, own_cache: None,
                                                                    conds: list[str], seed: int) -> None:
    """Generated mission decks (most, fewest, best, owners, non-monotone comparisons, thresholds): the
    native incremental check misses no change any card reads, at every player count."""
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(public_reads.with_cards(tmp_path, conds)), load_board(board))
    inc, full = both_checks(rs)
    for n in range(rs.players[0], rs.players[1] + 1):
        assert inc.results(n, seed, 120, extras=True) == full.results(n, seed, 120, extras=True)


@needs_native
def test_the_same_seed_gives_the_same_games_whatever_the_batch() -> None:
    """Game i is its seed's game, whatever the chunk it is played in or the number of threads."""
    rs = ruleset("scotland", None)
    eng = engine(rs)
    whole = eng.results(4, 77, 30)
    assert whole == eng.results(4, 77, 11) + eng.results(4, 88, 19)
    assert native.random_results(rs, 4, 77, 30, workers=1) == native.random_results(rs, 4, 77, 30, workers=2) == whole


# ----- statistics: native games against the Python engine's -------------------------------------------------
def _z_mean(a: list[float], b: list[float]) -> float:
    """The two-sample z of a difference of means."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    return (ma - mb) / math.sqrt(va / len(a) + vb / len(b) or 1.0)


def _z_rate(wa: float, na: int, wb: float, nb: int) -> float:
    """The two-sample z of a difference of rates (pooled)."""
    p = (wa + wb) / (na + nb)
    return (wa / na - wb / nb) / math.sqrt(p * (1 - p) * (1 / na + 1 / nb) or 1.0)


@needs_native
@pytest.mark.parametrize("name,n,games", [("scotland", 4, 400), ("ireland", 3, 400)])
def test_statistics_match_the_python_engine(name: str, n: int, games: int) -> None:
    """Per seat, the mean score and the win rate of native random games match the Python engine's: each
    difference lies inside its 95 % interval, family-wise (Bonferroni over the seats' 2n comparisons: the
    two engines draw different random numbers, so they play different games from one distribution)."""
    rs = ruleset(name, None)
    names = DEFAULT_NAMES[:n]
    py = []
    for seed in range(games):
        g, _ = random_game(rs, names, seed)
        totals = g.final_scores(g.end_events())
        py.append((totals, g.winners(totals)[0]))
    nat = native.random_results(rs, n, 10**6, games)
    assert nat is not None
    crit = NormalDist().inv_cdf(1 - 0.05 / (2 * 2 * n))
    for q in range(n):
        z = _z_mean([t[q] for t, _ in py], [t[q] for t, _, _ in nat])
        assert abs(z) < crit, (name, q, "mean score", z)
        pw = sum(1 / len(w) for _, w in py if q in w)
        nw = sum(1 / len(w) for _, _, w in nat if q in w)
        z = _z_rate(pw, games, nw, games)
        assert abs(z) < crit, (name, q, "win rate", z)


# ----- rebirth simulate --backend native -----------------------------------------------------------------
def _simulate(capsys: pytest.CaptureFixture[str], **kw: object) -> dict:
    """`rebirth simulate --backend native --json` with these options, its parsed output."""
    args = argparse.Namespace(rules=None, board=None, games=300, players=3, agents="random", seed=2, workers=1,
                              backend="native", json=True, no_progress=True)
    for k, v in kw.items():
        setattr(args, k, v)
    assert simulate_command(args) == 0
    return json.loads(capsys.readouterr().out)


@needs_native
def test_simulate_on_the_native_backend(capsys: pytest.CaptureFixture[str]) -> None:
    """`rebirth simulate --backend native`: the same summary for any worker count, and per seat a plausible
    game (every seat scores, the win rates add up to one)."""
    one = _simulate(capsys)
    two = _simulate(capsys, workers=2)
    assert one["seats"] == two["seats"] and one["backend"] == "native"
    assert abs(sum(s["win_rate"] for s in one["seats"]) - 1) < 1e-3 and all(s["mean"] > 20 for s in one["seats"])


def test_simulate_native_takes_random_seats_only(capsys: pytest.CaptureFixture[str]) -> None:
    """Search agents need Python between moves: the native backend refuses them, naming the fix."""
    with pytest.raises(RebirthError, match="random agents only"):
        _simulate(capsys, agents="greedy", games=2)


# ----- the library cache ---------------------------------------------------------------------------------
TINY = "int rb_tiny(void) { return 42; }\n"


@needs_cc
def test_the_library_cache_loads_only_what_it_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are named by the SHA-256 of the source and compiler, live in a 0700 folder of the user, and are
    loaded only as a private regular file whose SHA-256 is the one recorded: a changed byte, a file others
    may read, a link or an open folder is refused and the library rebuilt."""
    monkeypatch.setenv("REBIRTH_CACHE", str(tmp_path / "cache"))
    first = nbuild.build(TINY)
    assert first.compiled and first.path.parent == tmp_path / "cache" / "native"
    assert first.path.name == f"{nbuild.key_of(TINY)}.so" and (first.path.parent / f"{first.key}.c").read_text() == TINY
    assert os.stat(first.path.parent).st_mode & 0o777 == 0o700 and os.stat(first.path).st_mode & 0o077 == 0
    assert not nbuild.build(TINY).compiled  # cached
    lib, folder, key = first.path, first.path.parent, first.key
    # one byte changed
    data = bytearray(lib.read_bytes())
    data[-1] ^= 1
    lib.write_bytes(bytes(data))
    assert nbuild.verified(folder, key) is None and nbuild.build(TINY).compiled
    # readable by others
    os.chmod(lib, 0o744)
    assert nbuild.verified(folder, key) is None and nbuild.build(TINY).compiled
    # a link in its place
    real = tmp_path / "elsewhere.so"
    real.write_bytes(lib.read_bytes())
    lib.unlink()
    lib.symlink_to(real)
    assert nbuild.verified(folder, key) is None and nbuild.build(TINY).compiled and not lib.is_symlink()
    # an open folder is not loaded from (and is closed again before anything is written into it)
    os.chmod(folder, 0o755)
    assert nbuild.verified(folder, key) is None
    assert not nbuild.build(TINY).compiled and os.stat(folder).st_mode & 0o777 == 0o700
    if os.getuid() == 0:  # somebody else's file (root can make one)
        os.chown(lib, 12345, 12345)
        assert nbuild.verified(folder, key) is None and nbuild.build(TINY).compiled


@needs_cc
def test_with_the_cache_off_libraries_are_built_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """REBIRTH_CACHE=off: nothing is written to the cache folder; the library lives in a private temporary one."""
    monkeypatch.setenv("REBIRTH_CACHE", "off")
    built = nbuild.build(TINY + "/* off */\n")
    assert built.compiled and built.path.parent.name.startswith("rebirth-native-")
    assert os.stat(built.path.parent).st_mode & 0o777 == 0o700


# ----- positions past the engine's fixed sizes: played as the reference engine plays them, or refused -------
def _replays(rs, eng, pos: Game, seed: int) -> list[dict]:
    """One native playout from `pos` (no reshuffle), recorded and replayed on a copy of the reference
    position: the same end, the same scores (a tile or card the native engine lost would leave the reference
    game unfinished or scored otherwise). The playout's moves."""
    moves: list[dict] = []
    totals = eng.playouts(pos, 1, seed, redeal=False, record=moves)
    ref = pos.clone()
    apply(rs, ref, moves)
    assert outcome(rs, ref)[0] == totals[0]
    return moves


def _answers(moves: list[dict], key: str) -> int:
    """How many ability answers of this kind (take, keep, double) the moves carry."""
    return sum(1 for m in moves for c in (m.get("choices") or {}).values() if isinstance(c, dict) and key in c)


def _refused(pos: Game, eng, match: str) -> None:
    """The native engine refuses the position by name; `auto` plays it on the Python engine instead."""
    with pytest.raises(nlib.NativeRefused, match=match):
        eng.playouts(pos, 1, 0)
    with pytest.raises(nlib.NativeRefused, match=match):
        native.random_playouts(pos, 1, 0, backend="native")
    assert native.random_playouts(pos, 3, 5) == native.random_playouts(pos, 3, 5, backend="python")


@needs_native
def test_a_hand_that_could_outgrow_the_engine_is_refused_not_cut() -> None:
    """A hand's array holds HMAX tiles, and a hand grows only by the set-aside tiles an ability takes into it
    (each turn's draw replaces the tile played). A full hand with tiles still set aside (a take-aside tower
    would drop a tile the reference engine keeps) is refused; at the bound, hand plus set-aside exactly
    HMAX, every take is kept and the playouts replay on the reference engine."""
    rs = ruleset("ireland", None)
    eng = engine(rs)
    hmax = eng.plan.sizes["HMAX"]
    names = DEFAULT_NAMES[:3]
    takes = 0
    for seed in range(6):
        pos = Game(rs, names, deal(rs, 3, seed))
        assert all(len(a) > 0 for a in pos.set_aside)
        for p in range(3):
            while len(pos.hand[p]) < hmax - len(pos.set_aside[p]):
                pos.hand[p].append(pos.supply[p].pop())
        takes += _answers(_replays(rs, eng, pos, seed), "take")
        pos.hand[0].append(pos.supply[0].pop())
        _refused(pos, eng, "hand")
    assert takes > 0


@needs_native
def test_held_cards_that_could_outgrow_the_engine_are_refused_not_cut() -> None:
    """A seat's held cards grow only by draws from the decks, so a seat whose held cards and the decks'
    cards together pass HELDMAX could draw a card the engine has no room for (it would stay on the deck) and
    is refused; at the bound every draw is kept and the playouts replay on the reference engine."""
    rs = ruleset("ireland", None)
    eng = engine(rs)
    cap = eng.plan.sizes["HELDMAX"]
    names = DEFAULT_NAMES[:3]
    (deck_name, cards), = rs.decks.items()
    draws = 0
    for seed in range(6):
        pos = Game(rs, names, deal(rs, 3, seed))
        deck = pos.decks[deck_name]
        assert deck
        for p in range(3):  # every seat at the bound: its held cards plus the deck's are HELDMAX
            pos.held[p] = [c.name for c in cards][: cap - len(deck)]
        before = [len(h) for h in pos.held]
        moves = _replays(rs, eng, pos, seed)
        ref = pos.clone()
        apply(rs, ref, moves)
        draws += sum(len(h) for h in ref.held) - sum(before)
        pos.held[1].append(cards[0].name)
        _refused(pos, eng, "cards")
    assert draws > 0


@needs_native
def test_a_playout_longer_than_a_game_is_recorded_whole() -> None:
    """Every move spends one of its seat's tiles, so a position holding more tiles than a game deals (full
    supplies and set-aside piles at every seat) plays more moves than any dealt game: the record holds all
    of them, and it replays on the reference engine."""
    rs = ruleset("ireland", None)
    eng = engine(rs)
    sz = eng.plan.sizes
    n = rs.players[1]
    names = DEFAULT_NAMES[:n]
    longest = 0
    for seed in range(2):
        pos = Game(rs, names, deal(rs, n, seed))
        for p in range(n):
            mix = pos.hand[p] + pos.supply[p] + pos.set_aside[p]
            pos.supply[p] = (mix * 2)[: sz["TMAX"]]
            pos.set_aside[p] = mix[: sz["HMAX"] - len(pos.hand[p])]
        longest = max(longest, len(_replays(rs, eng, pos, seed)))
    assert longest > n * sz["TMAX"]  # more moves than a game deals tiles


@needs_native
def test_a_record_whose_deck_is_longer_than_the_engines_plays_on_the_python_engine(tmp_path: Path) -> None:
    """A record may list a deck's cards itself, more of them than the rules' deck holds; its positions do not
    fit the native engine: `auto` (random_playouts, forecasts, the search agents) plays them on the Python
    engine, `native` says why it cannot."""
    import random

    from rebirth_dsl.play.forecast import forecast
    from rebirth_dsl.play.ismcts import ISMCTSAgent
    from rebirth_dsl.play.search import MonteCarloAgent

    rs = ruleset("ireland", None)
    eng = engine(rs)
    names = DEFAULT_NAMES[:3]
    rules, board = rules_and_board("ireland", None)
    rec = native.record_of(rs, rules, board, tmp_path, names, eng.play(names, 3))
    (deck_name, deck), = rec["setup"]["decks"].items()
    rec["setup"]["decks"][deck_name] = deck + deck[-1:] * eng.plan.sizes["DMAX"]
    rec["moves"] = rec["moves"][:12]
    path = tmp_path / "long-deck.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    r = replay(load_record(path, allow_paths=True))
    assert r.error is None
    pos = r.game
    _refused(pos, eng, "deck")
    assert forecast(pos, playouts=4, backend="auto") == forecast(pos, playouts=4, backend="python")
    with pytest.raises(RebirthError, match="deck"):
        forecast(pos, playouts=4, backend="native")
    p = pos.turn
    # on auto the agents search such a position exactly as on python (decided once, search.uses_native)
    for make in (lambda b: MonteCarloAgent(budget=4, backend=b), lambda b: ISMCTSAgent(budget=6, backend=b)):
        picks = []
        for backend in ("auto", "python"):
            agent = make(backend)
            tile = agent.choose_tile(pos, p, random.Random(1))
            hexes, _ = pos.legal_hexes(tile[0])
            picks.append((tile, agent.choose(pos, p, tile, sorted(hexes), random.Random(2))))
            assert picks[-1][1] in hexes
        assert picks[0] == picks[1]


@needs_native
def test_what_the_engine_cannot_represent_is_refused() -> None:
    """A tile value past the engine's VBITS bits (it would be read as a tile of another kind) and a seat
    listed twice among a face-up card's fulfillers are refused, not read as something else."""
    rs = ruleset("ireland", None)
    eng = engine(rs)
    names = DEFAULT_NAMES[:3]
    pos = Game(rs, names, deal(rs, 3, 1))
    kind = pos.hand[0][0][0]
    pos.hand[0][0] = (kind, 1 << eng.plan.sizes["VBITS"])
    _refused(pos, eng, "value")
    pos = Game(rs, names, deal(rs, 3, 1))
    pos.public_by[pos.public[0]] = [1, 1]
    _refused(pos, eng, "twice")
