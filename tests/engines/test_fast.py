"""The generated engine (pyengine/fast.py) repeats the rules' meaning for speed. Its random playouts, its
one-move probes and its end scoring are held equal to the reference engine by the differential harness
(test_differential.py); this file keeps what the harness does not compare: playouts from hands the rules
never deal, fresh copies of the blank position, the seeding and the shuffle, and generated expressions
against the closure interpreter on every expression the compiler generates (cards, end-of-game scoring,
winner tie-breaks, and the shapes exprgen writes in its own way)."""

from __future__ import annotations

import dataclasses
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_differential import snapshot  # its own folder is on sys.path (no __init__.py)

from rebirth_dsl.accel.fresh import derive_fresh
from rebirth_dsl.accel.shuffle import draws, seeded, shuffle
from rebirth_dsl.compile.closures import compile_expr
from rebirth_dsl.compile.exprgen import compile_expr_source
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.lang import ast as A
from rebirth_dsl.play.agents import RandomAgent, decide
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.tally import finish
from rebirth_dsl.pyengine.fast import compiled, random_game
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import bundled, rules_and_board
from rebirth_dsl.runtime.game import FRESH_AFTER, Game, blank
from rebirth_dsl.runtime.setup import colour_tiles, deal, fisher_yates, seat_rng
from rebirth_dsl.runtime.state import State, copy_state

# every bundled ruleset, variants included, each on its own default board
RULESETS = list(bundled("rules"))


@cache
def ruleset(name: str):
    return load_ruleset(*rules_and_board(name, None))[0]


def test_every_bundled_ruleset_is_covered() -> None:
    """The list this file runs over is the bundled games (a new variant is compared without a test edit)."""
    assert {"scotland", "ireland"} <= set(RULESETS) and any("/" in n for n in RULESETS)


@pytest.mark.parametrize("name", RULESETS)
@pytest.mark.parametrize("seed", [3, 8])
def test_playouts_from_fuller_hands_equal_the_reference(name: str, seed: int) -> None:
    """Hands holding more tiles than the rules deal (given by other means) and seats out of step: the
    generated loop picks and draws as the reference engine's random agents do (the loop cannot take the
    order of the moves from the supplies alone here)."""
    rs = ruleset(name)
    n = min(3, rs.players[1])
    names = DEFAULT_NAMES[:n]
    games = []
    for _ in range(2):
        g = Game(rs, names, deal(rs, n, seed))
        g.quiet = True
        for q in range(n - 1):  # every seat but the last holds one tile more
            g.hand[q].append(g.supply[q].pop())
        g.supply[n - 1].pop()  # and the last seat one tile fewer in all
        games.append(g)
    a, b = games
    moves: list[tuple[int, int, int, int]] = []
    compiled(rs).run_random(a, [seat_rng(seed, i) for i in range(n)], moves)
    played: list[tuple[int, int, int, int]] = []
    finish(b, [RandomAgent()] * n, [seat_rng(seed, i) for i in range(n)], played)  # type: ignore[arg-type]
    assert moves == played and len(moves) > 20
    assert snapshot(a) == snapshot(b) and a.move_index == b.move_index


def _containers(v: object, out: list[object]) -> list[object]:
    """Every list, dict and set in v, v included."""
    if isinstance(v, list | dict | set):
        out.append(v)
        for x in v.values() if isinstance(v, dict) else v:
            _containers(x, out)
    return out


@pytest.mark.parametrize("name", RULESETS)
def test_new_games_are_fresh_copies_of_the_blank(name: str) -> None:
    """A new game starts from the ruleset's blank position copied by a function written out once for it
    (accel.fresh.derive_fresh): field by field what copy_state makes, sharing no list, dict or set with the
    blank or with another game."""
    rs = ruleset(name)
    for n in range(rs.players[0], rs.players[1] + 1):
        b = blank(rs, n, Game)
        make = derive_fresh(b)
        x, y, ref = make(), make(), copy_state(b)
        for f in dataclasses.fields(State):
            assert type(getattr(x, f.name)) is type(getattr(ref, f.name)), f.name
            assert getattr(x, f.name) == getattr(ref, f.name), f.name
        xs, ys, bs = ({id(c) for f in dataclasses.fields(State) if not f.metadata.get("shared")
                       for c in _containers(getattr(s, f.name), [])} for s in (x, y, b))
        assert xs and not xs & ys and not xs & bs


@given(seed=st.integers(-(2**70), 2**70))
def test_seeded_generators_are_random_random(seed: int) -> None:
    """accel.shuffle.seeded (the C seeding without Random.__init__'s frames) gives the generator
    random.Random(seed) gives, in the same state, for any int seed (negative and beyond 64 bits too)."""
    mine, ref = seeded(seed), random.Random(seed)
    assert type(mine) is random.Random and mine.getstate() == ref.getstate()
    assert [mine.random() for _ in range(3)] == [ref.random() for _ in range(3)]
    assert mine.gauss(0, 1) == ref.gauss(0, 1) and mine.gauss(0, 1) == ref.gauss(0, 1)


@given(seed=st.integers(-(2**70), 2**70))
def test_a_deal_draws_what_random_random_draws(seed: int) -> None:
    """accel.shuffle.draws, what a deal shuffles with (the C generator, without importing random), gives the
    floats random.Random(seed).random gives, in order, for any int seed (negative and beyond 64 bits too)."""
    mine, ref = draws(seed), random.Random(seed).random
    assert [mine() for _ in range(700)] == [ref() for _ in range(700)]


def test_the_written_out_shuffle_is_fisher_yates() -> None:
    """The deal's shuffle, written out per list length (accel.shuffle), swaps item i with item
    int(random() * (i + 1)) for i from the end down, as setup.fisher_yates does and as written here once
    more: the same lists from the same generator, which is left in the same state."""
    for m in range(40):
        mine, plain, ref = random.Random(m), random.Random(m), random.Random(m)
        items, loop, expected = list(range(m)), list(range(m)), list(range(m))
        shuffle(items, mine.random)
        fisher_yates(loop, plain.random)
        for i in range(m - 1, 0, -1):
            j = int(ref.random() * (i + 1))
            expected[i], expected[j] = expected[j], expected[i]
        assert items == loop == expected and mine.random() == plain.random() == ref.random()


@pytest.mark.parametrize("name", RULESETS)
def test_a_deal_is_each_colour_then_each_deck_shuffled_in_turn(name: str) -> None:
    """setup.deal (through deal_into, cut and turned in place) for every player count and seeds up to 2**70:
    each seat's colour tiles shuffled from one random.Random(seed), the first set aside, the rest the supply
    in drawing order; then each deck in name order, shuffled from the same generator."""
    rs = ruleset(name)
    for n in range(rs.players[0], rs.players[1] + 1):
        for seed in (*range(-3, 40), 2**70):
            ref = random.Random(seed).random
            colours = [list(colour_tiles(rs, n)) for _ in range(n)]
            for c in colours:
                fisher_yates(c, ref)
            decks = {name: [c.name for c in rs.decks[name]] for name in sorted(rs.decks)}
            for cards in decks.values():
                fisher_yates(cards, ref)
            d = deal(rs, n, seed)
            assert d.set_aside == [c[:rs.set_aside] for c in colours]
            assert d.supply == [c[rs.set_aside:] for c in colours]
            assert d.decks == decks and list(d.decks) == list(decks)


@pytest.mark.parametrize("name", RULESETS)
def test_a_game_dealt_in_place_is_the_game_of_its_deal(name: str) -> None:
    """Game.dealt (the deal filled straight into the new game's lists, what random playouts start from) makes
    field by field the game Game(rs, names, deal(...)) makes, for every player count, from the plain copy of
    the blank and from the written-out one (after FRESH_AFTER games)."""
    rs = ruleset(name)
    for n in range(rs.players[0], rs.players[1] + 1):
        names = DEFAULT_NAMES[:n]
        for seed in range(FRESH_AFTER + 20):
            a, b = Game.dealt(rs, names, seed), Game(rs, names, deal(rs, n, seed))
            for f in dataclasses.fields(State):
                x, y = getattr(a, f.name), getattr(b, f.name)
                assert x == y and (list(x) == list(y) if isinstance(x, dict) else True), f.name  # dicts: in order


def test_the_standard_shuffle_deals_other_orders() -> None:
    """Why the deal does not call random.shuffle: since Python 3.11 it draws j from integer bits
    (_randbelow), not from random(), and deals other orders from the same seed, which would change every
    seeded game and every record replayed from its seed."""
    differ = 0
    for m in range(2, 40):
        ours, std = list(range(m)), list(range(m))
        fisher_yates(ours, random.Random(m).random)
        random.Random(m).shuffle(std)
        differ += ours != std
    assert differ > 30


@pytest.mark.parametrize("name", ["scotland", "ireland"])
def test_a_copy_has_every_field_and_shares_no_container(name: str) -> None:
    """state.copy_state, on a game well under way (hands, supplies, decks, groups, touched landmarks and
    the public missions' incremental state all filled): every field is set and equal to the original's,
    the fields marked shared are the same objects, and no list, dict or set of any other field is shared
    with the original, however deep it nests."""
    rs = ruleset(name)
    g = Game(rs, list(DEFAULT_NAMES[:3]), deal(rs, 3, 5))
    rngs = [seat_rng(5, i) for i in range(3)]
    for i in range(30):  # 30 random moves of the reference engine, the game far from over
        p = g.turn
        tile, h, choices = decide(RandomAgent(), g, p, rngs[p])
        g.play(p, tile, h, i, choices)
    assert not g.is_over() and any(g.touched) and any(g.hand) and g.events
    c = g.clone()
    assert type(c) is Game
    for f in dataclasses.fields(State):
        assert getattr(c, f.name) == getattr(g, f.name), f.name  # unset: AttributeError (slots)
        if f.metadata.get("shared"):
            assert getattr(c, f.name) is getattr(g, f.name), f.name
        else:
            mine, theirs = _containers(getattr(c, f.name), []), _containers(getattr(g, f.name), [])
            assert not {id(x) for x in mine} & {id(x) for x in theirs}, f.name
            assert len(mine) == len(theirs), f.name  # copied as deep as it nests


EXPRS_CACHE: dict[str, list[tuple[str, A.Expr]]] = {}


def compiled_expressions(rs) -> list[tuple[str, A.Expr]]:
    """Every expression of the ruleset the compiler turns into generated code, with what it is."""
    out: list[tuple[str, A.Expr]] = []
    for s in rs.t.rules.statements:
        match s:
            case A.DeckBlock():
                out.extend((f"card {c.name}", c.condition) for c in s.cards)
            case A.EndIncomplete() | A.EndOwned():
                out.append((type(s).__name__, s.expr))
            case A.WinnerTies():
                out.extend(("winner tie", st.expr) for st in s.steps)
    return out


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4), cut=st.floats(0.2, 1.0))
def test_generated_expressions_equal_the_closures(name: str, seed: int, n: int, cut: float) -> None:
    """Every generated expression (cards, end scoring with its influence, tie-breaks) gives what the
    closure interpreter gives, for every player, on finished and unfinished positions."""
    rs = ruleset(name)
    n = max(rs.players[0], min(n, rs.players[1]))
    exprs = compiled_expressions(rs)
    assert any(w.startswith("card") for w, _ in exprs) and any(w == "EndIncomplete" for w, _ in exprs)
    g = random_position(rs, n, seed, cut)  # the first `cut` of the game's moves: 1.0 is the finished game
    for what, e in exprs:
        closure, generated = compile_expr(e, rs.t), compile_expr_source(e, rs.t)[0]
        for q in range(n):
            for inf in (0, 1, 3):
                ctx = Ctx(g, q, -1, inf)
                assert closure(ctx) == generated(ctx), what


def random_position(rs, n: int, seed: int, cut: float) -> Game:
    """The reference engine's position after the first `cut` of a game random agents play."""
    moves = len(random_game(rs, DEFAULT_NAMES[:n], seed, record=True)[1])
    g = Game(rs, DEFAULT_NAMES[:n], deal(rs, n, seed))
    rngs = [seat_rng(seed, i) for i in range(n)]
    for i in range(int(cut * moves)):
        p = g.turn
        tile, h, choices = decide(RandomAgent(), g, p, rngs[p])
        g.play(p, tile, h, i, choices)
    return g


# Every shape compile/exprgen.py writes in its own way (most/fewest/best without a function per seat, counts
# that build no list, sums and lengths per tile list, masks read through sets or owners, touched landmarks
# as bits, group sizes read off the roots or the largest size recorded), and the ordinary form beside each:
# `nobody` and other players where `me` usually stands, kinds with no landmark, non-group and value-less
# tile kinds, nesting inside most. Written for Scotland; on Ireland's board some names select nothing.
SHAPES = [
    "most(influence(tiles(me)))", "fewest(influence(tiles(me)))", "best(influence(tiles(me)))",
    "most(count(owned(me, castle)))", "fewest(count(owned(me, castle)))", "best(count(owned(me, castle)))",
    "count(owned(me, castle)) >= 1 and most(count(owned(me, castle)))", "most(count(owned(me, tower)))",
    "most(count(tiles(me, food)))", "fewest(count(tiles(me)))", "most(largest(groups(me, farm)))",
    "fewest(largest(groups(me, food)))", "most(count(touched(me, cathedral)) + count(won(me)))",
    "most(count(tiles(me)) - 2 * count(owned(me, castle)))", "best(count(near(tiles(me), sea)))",
    "count(owned(me, castle))", "count(owned(nobody, castle))", 'count(owned(owner(castle "Stirling"), castle))',
    "count(owned(me, tower))", "count(owned(me, cathedral))",
    "count(touched(me, castle))", "count(touched(me, cathedral))", "count(touched(me, tower))",
    "count(touched(owner(castle with clover), castle))", "count(touched(nobody, cathedral))",
    "count(at(tiles(me), harbour))", "count(at(tiles(me), wind))", "count(at(tiles(me, settlement), harbour))",
    "count(near(tiles(me), sea))", "count(near(tiles(me, food, energy), castle))",
    'count(near(tiles(me), castle "Stirling"))', 'count(near(tiles(me), tower "Hill of Tara"))',
    "count(at(tiles(owner(castle with clover)), harbour))", "count(at(tiles(nobody), sea))",
    "count(at(at(tiles(me), settlement), harbour))", "count(near(at(tiles(me), food), sea))",
    "count(at(hexes(settlement), harbour))",
    "influence(tiles(me))", "influence(tiles(me, food))", "influence(tiles(me, farm, settlement))",
    "influence(at(tiles(me), harbour))", 'influence(tiles(owner(castle "Stirling")))', "influence(tiles(nobody))",
    "2 * count(areas(tiles(me, settlement))) - count(areas(tiles(me)))", "count(areas(tiles(nobody)))",
    "count(areas(at(tiles(me), harbour)))",
    "largest(groups(me, food))", "largest(groups(me, farm))", "largest(groups(me, settlement))",
    "largest(groups(me, farm, settlement))", "largest(groups(nobody, food))",
    'largest(groups(owner(castle "Stirling"), farm))', "largest(atleast(groups(me, farm), 3))",
    "count(groups(me, farm))", "count(atleast(groups(me, food), 3))", "count(atleast(groups(me, settlement), 1))",
    "count(atleast(groups(owner(castle with clover), farm), 2))",
    "count(won(me))", "count(won(nobody))", "count(won(owner(castle with clover)))",
    "count(tiles(me))", "size(tiles(me, food, energy))", 'count(tiles(owner(castle "Stirling"), settlement))',
    'owner(castle "Stirling") == me',
    # parts read more than once, hoisted to a local of the direct function (exprgen.hoist_common), where the
    # first reading is certain and where it is cut short
    "count(won(me)) >= 1 and most(count(won(me)))", "largest(groups(me, food)) >= 2 and most(largest(groups(me, food)))",
    "largest(groups(me, food)) >= 9 and most(largest(groups(me, food)))", "most(count(won(me))) or count(won(me)) >= 2",
]


@pytest.mark.parametrize("name", ["scotland", "ireland"])
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4), cut=st.sampled_from([0.0, 0.3, 0.7, 1.0]))
def test_generated_shapes_equal_the_closures(name: str, seed: int, n: int, cut: float) -> None:
    """Each shape of SHAPES gives what the closure interpreter gives, for every seat, as f(ctx) and as the
    direct function f(g, me) (with the ruleset's group kinds, and without), on positions of the generated
    engine and of the reference engine, part-way through and at the end."""
    from rebirth_dsl.compile.exprgen import compile_direct_source
    from rebirth_dsl.lang.parser import parse_text

    rs = ruleset(name)
    exprs = [(text, parse_text(f'ruleset x deck d {{ card "a" 1: {text} }}').statements[0].cards[0].condition)
             for text in SHAPES]
    fns = [(text, compile_expr(e, rs.t), compile_expr_source(e, rs.t)[0], compile_direct_source(e, rs.t)[0],
            compile_direct_source(e, rs.t, rs.group_kinds)[0]) for text, e in exprs]
    for g in (random_game(rs, DEFAULT_NAMES[:n], seed)[0], random_position(rs, n, seed, cut)):
        for text, closure, generated, direct, grouped in fns:
            for q in range(n):
                want = closure(Ctx(g, q))
                assert generated(Ctx(g, q)) == want and direct(g, q) == want and grouped(g, q) == want, text


def test_hoist_common_reads_a_repeated_part_once() -> None:
    """A computed part read twice becomes one local when its first reading always happens; a part only
    under a test that may cut it short, or reading a comprehension's variable, stays where it is; a display
    of reads rebuilt for every element of a comprehension is made once; a local's name is never one the
    expression already uses."""
    from rebirth_dsl.compile.exprgen import hoist_common

    assert hoist_common("f(me) >= 1 and all(f(q) <= v for v in (f(me),) for q in r)") == \
        (["x0 = f(me)"], "x0 >= 1 and all((f(q) <= v for v in (x0,) for q in r))")
    assert hoist_common("(c and f(me)) + (d and f(me))") == ([], "(c and f(me)) + (d and f(me))")
    assert hoist_common("[f(q) + f(q) for q in r]") == ([], "[f(q) + f(q) for q in r]")
    assert hoist_common("all([*g.d.values()].count(q) <= 1 for q in r)") == \
        (["x0 = [*g.d.values()]"], "all((x0.count(q) <= 1 for q in r))")
    assert hoist_common("h(x0) + h(x0)") == (["x1 = h(x0)"], "x1 + x1")
