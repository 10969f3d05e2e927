"""Public missions (I-M1) are checked after every placement. The rule (rules.public.check, which the reference
engine runs) reads every unfulfilled card for every player; the generated engine's incremental check
(accel/public.py) re-reads a card for a player only when something its condition reads changed since the last
check (compile/reads.py). These tests prove the incremental check gives exactly the events of the rule, in
both engines (each run either way), along random and
greedy games of every bundled ruleset with public missions and of rulesets whose mission cards are
generated from the whole expression language (most, fewest, best, owner, nested players, non-monotone
comparisons), and that the analysis marks what it does not know as reading everything."""

from __future__ import annotations

import dataclasses
import random
import re
import shutil
from contextlib import contextmanager, nullcontext
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import snapshot  # its own folder is on sys.path (no __init__.py)

from rebirth_dsl.accel import public as incremental
from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.closures import compile_expr
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.reads import REACH, reads_of, threshold_of
from rebirth_dsl.compile.ruleset import PublicRule
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.limits import MAX_PLAYERS
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.agents import GreedyAgent, RandomAgent
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.pyengine import fast
from rebirth_dsl.pyengine.fast import compiled, random_game
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import bundled, rules_and_board
from rebirth_dsl.rules import public
from rebirth_dsl.runtime.game import Game, first_choice
from rebirth_dsl.runtime.setup import deal, seat_rng


@cache
def ruleset(name: str) -> Any:
    return load_ruleset(*rules_and_board(name, None))[0]


PUBLIC = [n for n in bundled("rules") if ruleset(n).public is not None]


def test_some_bundled_ruleset_has_public_missions() -> None:
    """The bundled games this file runs over are not empty (Ireland lays missions face up)."""
    assert "ireland" in PUBLIC


@contextmanager
def incremental_reads() -> Any:
    """The reference engine with the generated engine's incremental check in place of the rule."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(public, "_check", incremental.public_missions)
        yield


@contextmanager
def full_reads(rs: Any) -> Any:
    """The generated engine with the rule (rules.public.check) in place of its incremental check, inline
    source and handler both: generated afresh for the ruleset, and the usual engine put back after."""
    kept, rs.derived.fast = rs.derived.fast, None  # the public check is part of the generated engine only
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fast, "public_source", lambda *a, **k: None)
            mp.setattr(fast, "public_missions", lambda g, p, r, index, h=-1: public.check(g, p, r, index))
            yield
    finally:
        rs.derived.fast = kept


def events(g: Game) -> list[tuple[Any, ...]]:
    return [(e.index, e.player, e.points, e.category, e.ids, e.text) for e in g.events]


def both_ways(rs: Any, n: int, seed: int, agent: Any = RandomAgent) -> tuple[Game, Game]:
    """The same game played on the reference engine with the incremental check and with the rule."""
    names = DEFAULT_NAMES[:n]
    g1, _ = play_game(rs, names, [agent()] * n, seed)
    assert g1.public_reader is incremental.public_missions
    g2, _ = play_game(rs, names, [agent()] * n, seed, plain=True)
    assert g2.public_reader is None
    return g1, g2


def fast_both_ways(rs: Any, n: int, seed: int) -> tuple[Game, Game]:
    """The same random playout in the generated engine with its incremental check and with the rule."""
    names = DEFAULT_NAMES[:n]
    g1, _ = random_game(rs, names, seed)
    with full_reads(rs):
        g2, _ = random_game(rs, names, seed)
    return g1, g2


def readers_equal_closures(rs: Any, g: Game) -> None:
    """Each card as both checks read it (the _Watch's readers: the condition, and the measure and number of
    a threshold, as functions of the game and the reader) gives what the closure interpreter gives for its
    written condition and threshold, for every seat, on this position: the two checks above share them."""
    w = incremental._watch(rs, g.n_players)  # the numbers N of g's player count
    written = {c.name: c.condition for s in rs.t.rules.statements if isinstance(s, A.DeckBlock) for c in s.cards}
    assert set(w.readers) == set(written) == set(g.cards)
    for name, card in g.cards.items():
        _, measure, limit, cond = w.readers[name]
        th = threshold_of(written[name], rs.t)
        assert (measure is None, th) == (card.measure is None, card.threshold), name
        for q in range(g.n_players):
            assert cond(g, q) == compile_expr(written[name], rs.t)(Ctx(g, q)), name
            if th is not None:
                assert (measure(g, q), limit) == (compile_expr(th.measure, rs.t)(Ctx(g, q)), th.limits[g.n_players]), name


@pytest.mark.parametrize("name", PUBLIC)
@settings(max_examples=12)
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4))
def test_incremental_check_equals_reading_every_card(name: str, seed: int, n: int) -> None:
    """Random games: the same events (who fulfils which card on which move, points, order) either way."""
    rs = ruleset(name)
    n = max(rs.players[0], min(n, rs.players[1]))
    g1, g2 = both_ways(rs, n, seed)
    assert events(g1) == events(g2)
    f1, f2 = fast_both_ways(rs, n, seed)
    assert snapshot(f1) == snapshot(f2)
    readers_equal_closures(rs, g1)


@pytest.mark.parametrize("name", PUBLIC)
def test_the_first_seeds_fulfil_missions_either_way(name: str) -> None:
    """Not a comparison of empty games: the first seeds fulfil public missions, the same ones either way."""
    rs = ruleset(name)
    fulfilled = 0
    for seed in range(10):
        f1, f2 = fast_both_ways(rs, rs.players[1], seed)
        assert f1.public_by == f2.public_by and f1.track == f2.track
        fulfilled += sum(map(len, f1.public_by.values()))
    assert fulfilled >= 5


def first_seeds_as_the_reference(rs: Any) -> None:
    for n in range(rs.players[0], rs.players[1] + 1):
        names = DEFAULT_NAMES[:n]
        for seed in range(25):
            g1, _ = random_game(rs, names, seed)
            g2, _ = play_game(rs, names, [RandomAgent()] * n, seed)
            assert snapshot(g1) == snapshot(g2), (n, seed)


def test_the_first_seeds_in_seat_order_play_as_the_reference_engine(tmp_path: Path) -> None:
    """The same where the cards are read in seat order, not the placer's first (the loop then leaves an area
    another seat won to the reference handler)."""
    text = (ROOT / "rules" / "ireland.rules").read_text(encoding="utf-8")
    new = re.sub(r"(public mission as [^\n]*), placer first", r"\1, seat order", text, count=1)
    assert new != text
    shutil.copy(ROOT / "rules" / "scotland.rules", tmp_path / "scotland.rules")
    (tmp_path / "ireland.rules").write_text(new, encoding="utf-8")
    rs = compile_rules(load_rules(tmp_path / "ireland.rules"), load_board(rules_and_board("ireland", None)[1]))
    assert [r.placer_first for r in rs.reactions if isinstance(r, PublicRule)] == [False]
    first_seeds_as_the_reference(rs)


@pytest.mark.parametrize("name", PUBLIC)
def test_incremental_check_along_greedy_games(name: str) -> None:
    """Greedy agents probe every move on copies of the position (clones carry the last check along)."""
    rs = ruleset(name)
    g1, g2 = both_ways(rs, 3, 7, GreedyAgent)
    assert events(g1) == events(g2)


# ----- generated mission cards -------------------------------------------------------------------------
PLAYERS = ["me", "me", "me", "best(count(tiles(me, food)))", "owner(castle with clover)",
           "best(count(owned(me, castle)))", "best(count(tiles(me)))"]


@st.composite
def number(draw: Any, players: tuple[str, ...] = tuple(PLAYERS)) -> str:
    """An int expression over the position of one of the players (`me` most often)."""
    p = draw(st.sampled_from(players))
    kind = draw(st.sampled_from(["food", "energy", "settlement", "farm"]))
    grouped = draw(st.sampled_from(["food", "energy", "farm"]))  # the kinds that form groups
    return draw(st.sampled_from([
        f"count(tiles({p}, {kind}))", f"count(tiles({p}))", f"largest(groups({p}, {grouped}))",
        f"count(atleast(groups({p}, food), {draw(st.integers(1, 4))}))", f"count(areas(tiles({p}, settlement)))",
        f"count(won({p}))", f"count(touched({p}, tower))", f"count(touched({p}, castle))",
        f"count(owned({p}, castle))", f"count(at(tiles({p}), wind))", f"count(near(tiles({p}), sea))",
        f"count(near(tiles({p}, {kind}), tower \"Hill of Tara\"))", f"influence(tiles({p}))",
        f"count(at(near(tiles({p}), castle), wind))", "count(hexes(wind))",
    ]))


@st.composite
def condition(draw: Any, depth: int = 2) -> str:
    """A card condition: comparisons (== and != too, so a card can become true and false again), most,
    fewest, best, owners, and their combinations."""
    leaves = st.one_of(
        st.builds(lambda a, op, k: f"{a} {op} {k}", number(), st.sampled_from([">=", "<=", "==", "!=", ">"]),
                  st.integers(0, 9)),
        number().map(lambda a: f"most({a})"), number().map(lambda a: f"fewest({a})"),
        number().map(lambda a: f"best({a}) == me"), number().map(lambda a: f"best({a}) != me"),
        st.just("owner(castle with clover) == me"), st.just("me != owner(castle with clover)"),
        st.just("owner(castle with clover) == nobody"),
        st.builds(lambda a, b: f"{a} > {b}", number(), number()),
    )
    if depth == 0 or draw(st.booleans()):
        return draw(leaves)
    a, b = draw(condition(depth - 1)), draw(condition(depth - 1))
    return draw(st.sampled_from([f"({a}) and ({b})", f"({a}) or ({b})", f"not ({a})"]))


@st.composite
def threshold(draw: Any) -> str:
    """A card `E >= N` (or >, or N <= E, N < E) over the holder's own position: the form the engine keeps
    the distance of, reading the card only once the holder's tiles may have closed it."""
    e = draw(number(("me",)))
    if draw(st.booleans()):
        e = f"{e} + {draw(number(('me',)))}"
    n = draw(st.one_of(  # N a number, or one per player count (Threshold.limits): a table, or `K - players`
        st.integers(0, 12).map(str),
        st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12)).map(
            lambda v: f"players(2: {v[0]}, 3: {v[1]}, 4: {v[2]})"),
        st.tuples(st.integers(0, 12), st.integers(0, 12)).map(lambda v: f"players(2 to 3: {v[0]}, 4: {v[1]})"),
        st.integers(4, 14).map(lambda k: f"{k} - players")))
    return draw(st.sampled_from([f"{e} >= {n}", f"{e} > {n}", f"{n} <= {e}", f"{n} < {e}"]))


def with_cards(folder: Path, conds: list[str]) -> Path:
    """Ireland with its mission deck replaced by the given conditions (same file layout, so `extends`
    still finds Scotland)."""
    text = (ROOT / "rules" / "ireland.rules").read_text(encoding="utf-8")
    cards = "\n".join(f'  card "Card {i}" {3 + i % 5} / {1 + i % 3}: {c}' for i, c in enumerate(conds))
    new = re.sub(r"(deck mission \{\n  when empty:[^\n]*\n)(.*?)(\n\})", lambda m: m.group(1) + cards + m.group(3),
                 text, count=1, flags=re.S)
    assert new != text
    shutil.copy(ROOT / "rules" / "scotland.rules", folder / "scotland.rules")
    path = folder / "ireland.rules"
    path.write_text(new, encoding="utf-8")
    return path


def incremental_equals_full(tmp_path: Path, conds: list[str], seed: int, n: int) -> None:
    """Ireland with these cards: both engines' incremental checks give the rule's game, and the cards'
    readers give the closures' values."""
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(with_cards(tmp_path, conds)), load_board(board))
    g1, g2 = both_ways(rs, n, seed)
    assert events(g1) == events(g2)
    f1, f2 = fast_both_ways(rs, n, seed)
    assert snapshot(f1) == snapshot(f2)
    readers_equal_closures(rs, g1)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(conds=st.lists(condition(), min_size=8, max_size=12), seed=st.integers(0, 10**9), n=st.integers(2, 4))
def test_generated_cards_incremental_equals_full(tmp_path: Path, conds: list[str], seed: int, n: int) -> None:
    """Cards over the whole expression language: the incremental check misses no change they read."""
    incremental_equals_full(tmp_path, conds, seed, n)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(conds=st.lists(threshold(), min_size=8, max_size=12), seed=st.integers(0, 10**9), n=st.integers(2, 4))
def test_generated_thresholds_incremental_equals_full(tmp_path: Path, conds: list[str], seed: int, n: int) -> None:
    """Cards of the threshold form: a card is fulfilled on the very move it reaches its number."""
    incremental_equals_full(tmp_path, conds, seed, n)


def test_reads_of_the_ireland_cards() -> None:
    """What the analysis finds for known shapes: the holder's own tiles where they count, landmark holders,
    won areas, every player under most/best, and nothing it does not know is left out."""
    rs = ruleset("ireland")
    t = rs.t
    asts = {c.name: c.condition for c in t.decks["mission"].cards}
    food, energy = t.tile_kinds.index("food"), t.tile_kinds.index("energy")
    wind = sum(1 << h for h, m in enumerate(t.hex_matches("wind")) if m)
    everywhere = (1 << t.n) - 1
    r = reads_of(asts["Wind farmer"], t)
    assert r.mine == (wind,) * len(t.tile_kinds) and not any(r.anyone) and not r.everything
    r = reads_of(asts["Harvest"], t)
    assert r.mine[food] == everywhere and r.mine[energy] == 0 and not any(r.anyone)
    r = reads_of(asts["Castle keeper"], t)
    assert r.landmarks_mine and not r.landmarks_anyone and not any(r.mine)
    r = reads_of(asts["Blarney stone"], t)  # `owner(...) == me`: only a change to or from `me` matters
    assert r.landmarks_mine and not r.landmarks_anyone
    r = reads_of(asts["Chieftain of Ireland"], t)  # a sum of influence: only valued tiles add to it
    settlement = t.tile_kinds.index("settlement")
    assert [k for k, m in enumerate(r.mine) if m] == [settlement]
    r = reads_of(asts["Lord of the province"], t)
    assert r.won_mine and not r.won_anyone
    most = A.Call(fn="most", args=(asts["Harvest"].left,), span=asts["Harvest"].span)
    r = reads_of(most, t)
    assert not any(r.mine) and r.anyone[food] == everywhere
    unknown = A.Call(fn="no such function", args=(), span=asts["Harvest"].span)
    assert reads_of(unknown, t).everything


def _conditions(text: str) -> dict[str, A.Expr]:
    """Card name -> condition, from card lines written here (the bundled cards' numbers follow the player
    count, and are re-tuned: the tests here write their own)."""
    from rebirth_dsl.lang.parser import parse_text

    rules = parse_text('ruleset x "X"\ndeck mission {\n' + text + "\n}\n")
    return {c.name: c.condition for s in rules.statements if isinstance(s, A.DeckBlock) for c in s.cards}


def test_thresholds_of_landmarks_and_areas() -> None:
    """`count(owned(me, K)) >= N` rises by one per landmark of kind K the holder takes (none of another
    kind), `count(won(me)) >= N` by one per area won, and tiles move neither."""
    t = ruleset("ireland").t
    asts = _conditions('card "Castle keeper" 7 / 3: count(owned(me, castle)) >= 6\n'
                       'card "Lord of the province" 8 / 4: count(won(me)) >= 6')
    th = threshold_of(asts["Castle keeper"], t)
    assert th is not None and set(th.limits) == {6} and th.won_grow == 0 and not any(map(any, th.grow))
    assert th.lm_grow == tuple(int(k == "castle") for k in t.landmark_kind) and 0 < sum(th.lm_grow) < len(th.lm_grow)
    th = threshold_of(asts["Lord of the province"], t)
    assert th is not None and th.won_grow == 1 and not any(th.lm_grow) and not any(map(any, th.grow))


def test_thresholds_whose_number_follows_the_player_count() -> None:
    """N written per player count is bounded at each count (Threshold.limits, indexed by the count; Ireland
    plays 2 to 4): a `players(...)` table, `9 - players`, and the `E > N`, `N <= E`, `N < E` forms. A table that
    leaves out a count played has no bound."""
    t = ruleset("ireland").t
    assert t.players == (2, 4)
    asts = _conditions('card "A" 8 / 4: count(won(me)) >= players(2: 7, 3: 5, 4: 4)\n'
                       'card "B" 8 / 4: count(won(me)) > 9 - players\n'
                       'card "C" 6 / 3: players(2 to 3: 15, 4: 13) <= count(near(tiles(me), sea))\n'
                       'card "D" 6 / 3: players(2 to 3: 15, 4: 13) < count(near(tiles(me), sea))\n'
                       'card "E" 6 / 3: largest(groups(me, food)) >= players(2 to 3: 8, 4: 6)\n'
                       'card "F" 6 / 3: count(won(me)) >= players(2 to 3: 8)\n'
                       'card "G" 6 / 3: count(won(me)) >= 6')
    th = {name: threshold_of(cond, t) for name, cond in asts.items()}
    played = {name: None if x is None else x.limits[2:5] for name, x in th.items()}  # with 2, 3, 4 players
    assert played["A"] == (7, 5, 4)  # the table: 7 with 2, 5 with 3, 4 with 4
    assert played["B"] == (8, 7, 6)  # E > 9 - n is E >= 10 - n
    assert played["C"] == (15, 15, 13)  # 15 with 2 or 3, 13 with 4
    assert played["D"] == (16, 16, 14)  # N < E is E >= N + 1
    assert played["E"] == (8, 8, 6)
    assert played["F"] is None  # says nothing for 4 players
    assert played["G"] == (6, 6, 6)
    # every count to MAX_PLAYERS has a number (a scenario may seat one the ruleset does not play): `9 - players`
    # its own (E >= 10 - n), a table the nearest played count's
    assert th["B"] is not None and th["B"].limits == tuple(10 - n for n in range(MAX_PLAYERS + 1))
    assert th["A"] is not None and th["A"].limits == (7, 7, 7, 5) + (4,) * (MAX_PLAYERS - 3)


def test_watch_takes_each_counts_number() -> None:
    """The incremental check's tables per player count: rules/ireland.rules' Harvest, `largest(groups(me,
    food)) >= players(2 to 3: 8, 4: 6)`, is read with 2 or 3 players once a food group of 8 stands, with 4 once
    one of 6 does; where its holder has nothing it lacks 8 (2, 3 players) or 6 (4 players)."""
    rs = ruleset("ireland")
    food = rs.t.tile_kinds.index("food")
    for n, want in ((2, 8), (3, 8), (4, 6)):
        w = incremental._watch(rs, n)
        i = w.bit["Harvest"].bit_length() - 1
        assert w.lack0[i] == want and w.readers["Harvest"][2] == want
        groups = {st[3] for at in w.at[food] for st in at[2] if st[1] == i}
        assert groups == {want}, n


def test_threshold_of_groups_reaching_a_size() -> None:
    """`count(atleast(groups(me, food), 3)) >= 2` rises only by a food tile whose group then has 3 tiles."""
    t = ruleset("ireland").t
    asts = _conditions('card "Green fields" 6 / 3: count(atleast(groups(me, food), 3)) >= 2')
    th = threshold_of(asts["Green fields"], t)
    food = t.tile_kinds.index("food")
    assert th is not None and set(th.limits) == {2} and th.reach == 3
    assert set(th.grow[food]) == {REACH} and not any(any(row) for k, row in enumerate(th.grow) if k != food)


@pytest.mark.parametrize("seed", range(6))
def test_a_card_dealt_face_up_twice(seed: int) -> None:
    """A record may deal one card face up twice: it stays one card to the check, never another card's bit."""
    rs = ruleset("ireland")
    names = DEFAULT_NAMES[:4]
    games = []
    for full in (False, True):
        setup = deal(rs, 4, seed)
        deck = list(setup.decks["mission"])
        deck[1] = deck[0]
        g = Game(rs, names, dataclasses.replace(setup, decks={**setup.decks, "mission": deck}))
        g.quiet = True
        with full_reads(rs) if full else nullcontext():
            compiled(rs).run_random(g, [seat_rng(seed, i) for i in range(4)], None)
        games.append(snapshot(g))
    assert games[0] == games[1]


def test_landmark_directions_and_holders(tmp_path: Path) -> None:
    """`taken_only`: a card only a landmark taken can turn true (never one lost); `holds`: a landmark the card
    needs its reader to hold. Both are claimed only where they hold."""
    cases = {
        "owner(castle with clover) == me and count(owned(me, castle)) >= 3": (True, True),
        "me == owner(castle with clover)": (True, True),
        "count(owned(me, castle)) >= 6": (True, False),
        "owner(castle with clover) != me": (False, False),
        "not (owner(castle with clover) == me)": (False, False),
        "count(owned(me, castle)) <= 2": (False, False),
        "count(owned(me, castle)) - count(owned(me, tower)) >= 1": (False, False),
        "(owner(castle with clover) == me) or largest(groups(me, food)) >= 10": (True, False),
        "largest(groups(me, food)) >= 10 and owner(castle with clover) == me": (True, True),
        "largest(groups(me, food)) >= 10 and not (owner(castle with clover) == me)": (False, False),
        "count(owned(best(count(tiles(me))), castle)) >= 1": (False, False),
    }
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(with_cards(tmp_path, list(cases))), load_board(board))
    t = rs.t
    blarney = t.find_landmark("castle", None, "clover")
    assert blarney is not None
    for card, (taken, holds) in zip(t.decks["mission"].cards, cases.values(), strict=True):
        r = reads_of(card.condition, t)
        assert (r.taken_only, r.holds) == (taken, blarney if holds else -1), card.name


EDGE_CARDS = [
    "count(tiles(me)) >= 0",  # met at the empty position: fulfilled by every player at the first check
    "count(tiles(me)) + 2 >= 4",  # a constant in the measure
    "owner(castle with clover) != me",  # true at the empty position, false once held
    "owner(castle with clover) == me and count(tiles(me, food)) >= 2",
    "owner(castle with clover) == nobody",
    "count(owned(me, castle)) >= 2",
    "influence(at(tiles(me), wind)) >= 2",
    "count(atleast(groups(me, food), 2)) >= 2 and largest(groups(me, energy)) >= 2",
]


@pytest.mark.parametrize("seed", range(4))
def test_edge_cards_incremental_equals_full(tmp_path: Path, seed: int) -> None:
    """Cards met at the empty position (the first check's), constants in a measure, landmark holders and
    their negations: the same events either way, in both engines."""
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(with_cards(tmp_path, EDGE_CARDS)), load_board(board))
    n = 2 + seed % 3
    g1, g2 = both_ways(rs, n, seed)
    assert events(g1) == events(g2)
    assert sum(map(len, g1.public_by.values())) > 0
    f1, f2 = fast_both_ways(rs, n, seed)
    assert snapshot(f1) == snapshot(f2)


@pytest.mark.parametrize("seed", range(3))
def test_a_landmark_changing_hands_away_from_the_placement(tmp_path: Path, seed: int) -> None:
    """A landmark given to a player between two placements (mostly not next to the next placed tile): the
    check compares in full then, and misses nothing the full reading sees."""
    board = rules_and_board("ireland", None)[1]
    cards = ["count(owned(me, castle)) >= 4", "owner(castle with clover) == me and count(owned(me, castle)) >= 3",
             "owner(castle with clover) != me", "count(tiles(me)) >= 12", "count(won(me)) >= 1"] * 2
    rs = compile_rules(load_rules(with_cards(tmp_path, cards)), load_board(board))
    games = []
    for full in (False, True):
        g = Game(rs, DEFAULT_NAMES[:3], deal(rs, 3, seed))
        g.auto_choose = first_choice
        rng = random.Random(seed)
        with incremental_reads() if not full else nullcontext():
            for i in range(40):
                if i == 20:  # every castle to the player to move
                    for lm, kind in enumerate(rs.t.landmark_kind):
                        if kind == "castle":
                            g.lm_owner[lm] = g.turn
                p, tile = g.turn, g.hand[g.turn][0]
                hexes, _ = g.legal_hexes(tile[0])
                g.play(p, tile, hexes[rng.randrange(len(hexes))] if hexes else None)
        games.append(events(g))
    assert games[0] == games[1]
    assert any("public mission 'Card 0'" in e[5] or "public mission 'Card 1'" in e[5] for e in games[0])


def test_threshold_base_is_the_measure_where_nobody_has_anything(tmp_path: Path) -> None:
    """Threshold.base (what the first check takes a bounded card's measure to be at the empty position) is
    what the compiled measure reads on a new game, for every seat."""
    conds = ["count(tiles(me)) + 2 >= 4", "3 + count(owned(me, castle)) >= 5", "largest(groups(me, food)) >= 3",
             "1 + count(at(tiles(me), wind)) + 1 >= 9", "count(atleast(groups(me, food), 2)) + 4 >= 5",
             "count(near(tiles(me), sea)) >= 0"] * 2
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(with_cards(tmp_path, conds)), load_board(board))
    cards = rs.decks["mission"]
    assert all(c.threshold is not None and c.measure is not None for c in cards)
    for n in (2, 4):
        g = Game(rs, DEFAULT_NAMES[:n], deal(rs, n, 0))
        for card in cards:
            for q in range(n):
                assert card.measure(Ctx(g, q)) == card.threshold.base, card.name
    assert [c.threshold.base for c in cards] == [2, 3, 0, 2, 4, 0] * 2


# ----- forks that start warm (accel/public.warm_fork) ------------------------------------------------------
def playouts_from(rs: Any, g: Game, fork: Any, seed: int, full: bool = False) -> list[Any]:
    """Random playouts on the generated engine from forks of g made by `fork` (with the rule in place of the
    incremental check when `full`), each from its own seed: their end positions."""
    out = []
    with full_reads(rs) if full else nullcontext():
        for j in range(3):
            f = fork(g)
            f.auto_choose = None
            rng = random.Random(seed * 10 + j)
            f.shuffle_hidden(rng)
            compiled(rs).run_random(f, [rng] * f.n_players, None)
            out.append(snapshot(f))
    return out


def warm_forks_as_full(rs: Any, n: int, seed: int, moves: tuple[int, ...]) -> int:
    """Along one random game on the reference engine: at each move in `moves`, playouts from forks that start
    warm end as those from plain forks and as those reading every card; how many positions started warm."""
    names = DEFAULT_NAMES[:n]
    g = Game(rs, names, deal(rs, n, seed))
    g.auto_choose = first_choice
    rngs = [seat_rng(seed, i) for i in range(n)]
    warm = 0
    k = 0
    while not g.is_over():
        if k in moves:
            f = incremental.warm_fork(g)
            warm += bool(f.public_seen)
            assert not g.public_seen  # the reference game itself keeps no state
            want = playouts_from(rs, g, Game.fork, seed + k, full=True)
            assert playouts_from(rs, g, incremental.warm_fork, seed + k) == want, k
            assert playouts_from(rs, g, Game.fork, seed + k) == want, k
        p = g.turn
        tile = g.hand[p][0]
        hexes, _ = g.legal_hexes(tile[0])
        g.play(p, tile, hexes[rngs[p].randrange(len(hexes))] if hexes else None, k)
        k += 1
    return warm


@pytest.mark.parametrize("name", PUBLIC)
def test_forks_that_start_warm_play_as_the_rule(name: str) -> None:
    """I-M1 from a forked mid-game position: the fork's incremental check, starting from the state a check
    at the position leaves (found on a scratch copy, from the position before), gives exactly the rule's
    events; the positions followed are consecutive (the state carried along) and skip some (found afresh)."""
    rs = ruleset(name)
    rs.derived.public_warm = None
    n = rs.players[1]
    assert warm_forks_as_full(rs, n, 5, (*range(0, 12), 20, 21, 35, 50)) >= 10
    # another game next: its positions did not grow out of the last one kept (never advanced from it)
    assert warm_forks_as_full(rs, n, 6, (0, 1, 2, 30)) >= 2


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(conds=st.lists(condition() | threshold(), min_size=8, max_size=12), seed=st.integers(0, 10**9),
       n=st.integers(2, 4))
def test_generated_cards_from_warm_forks(tmp_path: Path, conds: list[str], seed: int, n: int) -> None:
    """Cards over the whole expression language, thresholds among them: forks started warm miss nothing."""
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(with_cards(tmp_path, conds)), load_board(board))
    warm_forks_as_full(rs, n, seed, (3, 4, 5, 9, 16, 17, 30))


def test_a_fork_of_a_position_with_a_card_met_and_not_paid_starts_cold(tmp_path: Path) -> None:
    """A landmark given away between two placements (no check has seen it): a card it fulfils is paid at the
    fork's first check, so the fork cannot start as a check there would leave it; it starts cold."""
    board = rules_and_board("ireland", None)[1]
    rs = compile_rules(load_rules(with_cards(tmp_path, ["count(owned(me, castle)) >= 4"] * 8)), load_board(board))
    g = Game(rs, DEFAULT_NAMES[:3], deal(rs, 3, 1))
    g.auto_choose = first_choice
    for _ in range(6):
        p, tile = g.turn, g.hand[g.turn][0]
        g.play(p, tile, g.legal_hexes(tile[0])[0][0])
    assert incremental.warm_fork(g).public_seen
    seat = g.turn
    for lm, kind in enumerate(rs.t.landmark_kind):
        if kind == "castle":
            g.lm_owner[lm] = seat
    assert rs.t.landmark_kind.count("castle") >= 4 and not g.public_by["Card 0"]
    assert not incremental.warm_fork(g).public_seen
    want = playouts_from(rs, g, Game.fork, 1, full=True)
    assert playouts_from(rs, g, incremental.warm_fork, 1) == want
    # every castle is the seat's: it fulfils the card first in every playout, at the fork's first check
    assert all(s["public_by"]["Card 0"][:1] == [seat] for s in want)


def test_a_kept_position_is_advanced_from_only_into_what_grew_out_of_it() -> None:
    """The state kept for a position is advanced to another only when that one is it after moves: tiles only
    added (never another kind or value on a hex), areas won and fulfillers only appended."""
    rs = ruleset("ireland")
    g, _ = play_game(rs, DEFAULT_NAMES[:3], [RandomAgent()] * 3, 2)
    early = Game(rs, DEFAULT_NAMES[:3], deal(rs, 3, 2))
    before = incremental._Position.of(early)
    assert before.grew_into(g) and before.same(early) and not before.same(g)
    assert not incremental._Position.of(g).grew_into(early)  # tiles taken away
    h = next(x for x, o in enumerate(g.owner) if o >= 0)
    other = g.fork()
    other.tval[h] += 1
    assert incremental._Position.of(g).grew_into(g) and not incremental._Position.of(g).grew_into(other)


@pytest.mark.parametrize("seed", range(3))
def test_a_sum_over_a_kind_of_hexes_is_read_when_anyone_places_there(tmp_path: Path, seed: int) -> None:
    """I-M1 with `influence(hexes(settlement)) >= N`: the hexes of a kind never change, the tiles on them do
    (anyone's), so the incremental checks read the card again after every placement there (they once took
    the set for constant and never paid these cards)."""
    board = rules_and_board("ireland", None)[1]
    conds = ["influence(hexes(settlement)) >= 12", "influence(hexes(settlement)) >= 30",
             "influence(hexes(settlement)) >= 40", "count(at(tiles(me), settlement)) >= 3",
             "count(tiles(me)) >= 5", "count(tiles(me)) >= 9", "influence(tiles(me)) >= 9", "count(tiles(me)) >= 12"]
    rs = compile_rules(load_rules(with_cards(tmp_path, conds)), load_board(board))
    g1, g2 = both_ways(rs, 3, seed)
    assert events(g1) == events(g2)
    assert any(e.category == rs.public_category and e.points for e in g2.events)
    f1, f2 = fast_both_ways(rs, 3, seed)
    assert snapshot(f1) == snapshot(f2)


def test_which_placements_may_move_a_holder_or_win_an_area(tmp_path: Path) -> None:
    """The generated check compares the landmarks' holders and the areas won with the last check's only where
    a statement may have changed them: in Ireland a castle changes hands only by a placement next to it (S-K1,
    the majority), an area is won only by a placement filling it (S-A1, settlement areas), and nothing else moves
    either (triggers, the towers' abilities (I-R1), the public check). Expected from the board alone."""
    rs = ruleset("ireland")
    t = rs.t
    castles = {lm for lm, k in enumerate(t.landmark_kind) if k == "castle"}
    for h in range(t.n):
        next_to = {t.landmark_of_hex[m] for m in t.neighbours[h] if m in t.landmark_of_hex}
        in_area = t.area_of[h] >= 0 and t.area_kind[t.area_of[h]] == "settlement"
        assert incremental._unsettled(rs, (h,)) == (bool(next_to & castles), in_area), h
    assert {incremental._unsettled(rs, (h,)) for h in range(t.n)} == {(a, b) for a in (False, True) for b in (False, True)}
    # a majority after the public check (in the rules' order) changes a holder after the check of the placement
    # that set it off: the next check, wherever it is, compares
    text = (ROOT / "rules" / "ireland.rules").read_text(encoding="utf-8")
    later = "\nmajority tower as towers {\n  over adjacent\n  unowned: placer takes\n  compare tiles any\n  final tie: owner keeps\n}\n"
    shutil.copy(ROOT / "rules" / "scotland.rules", tmp_path / "scotland.rules")
    (tmp_path / "ireland.rules").write_text(text + later, encoding="utf-8")
    rs2 = compile_rules(load_rules(tmp_path / "ireland.rules"), load_board(rules_and_board("ireland", None)[1]))
    assert {incremental._unsettled(rs2, (h,))[0] for h in range(t.n)} == {True}
    assert {incremental._unsettled(rs2, (h,))[1] for h in range(t.n)} == {False, True}  # areas as before


@pytest.mark.parametrize("seed", range(3))
def test_a_playout_from_the_start_takes_the_first_check_as_any_other(tmp_path: Path, seed: int) -> None:
    """Where a game starts and no card needs reading there (fresh_start), the playout starts from the state its
    first check would leave and checks the first placement as any other: the same game as with that first check
    made (public_missions' _first). A card met with nothing (`>= 0`), or a position a tile was placed on, keeps
    the first check."""
    rs = ruleset("ireland")
    n = 2 + seed
    g0 = Game(rs, DEFAULT_NAMES[:n], deal(rs, n, seed))
    assert not g0.public_seen and incremental.fresh_start(g0)
    f1, _ = random_game(rs, DEFAULT_NAMES[:n], seed)
    kept, rs.derived.fast = rs.derived.fast, None
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fast, "fresh_start", lambda g: g.public_seen)
            f2, _ = random_game(rs, DEFAULT_NAMES[:n], seed)
    finally:
        rs.derived.fast = kept
    assert snapshot(f1) == snapshot(f2) and sum(map(len, f1.public_by.values())) > 0
    met = compile_rules(load_rules(with_cards(tmp_path, ["count(tiles(me)) >= 0"] * 8)),
                        load_board(rules_and_board("ireland", None)[1]))
    assert not incremental.fresh_start(Game(met, DEFAULT_NAMES[:n], deal(met, n, seed)))
    g1 = Game(rs, DEFAULT_NAMES[:n], deal(rs, n, seed))
    p, tile = g1.turn, g1.hand[g1.turn][0]
    g1.play(p, tile, g1.legal_hexes(tile[0])[0][0])
    g1.public_seen = []
    assert not incremental.fresh_start(g1)
