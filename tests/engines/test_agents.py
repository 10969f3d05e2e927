"""Agents: the immediate points read off the position never change it (that they equal the reference
engine's points on every ruleset is test_differential.py's); greedy makes the same moves as the
probe-based greedy it replaces; ISMCTS plays legal games on Scotland and Ireland, keeps what is public in
its determinisations, and never reads what its player cannot see."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.agents import GreedyAgent, pick_choices, pick_tile, smart_answer
from rebirth_dsl.play.ismcts import ISMCTSAgent, Observer
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.points import points_for, probe_points
from rebirth_dsl.play.registry import make_agent, parse_options
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import bundled, rules_and_board
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import colour_tiles, deal, seat_rng

RULESETS = list(bundled("rules"))


@cache
def ruleset(name: str):
    return load_ruleset(*rules_and_board(name, None))[0]


def walk(rs, n: int, seed: int, agent):
    """Yield (game, seat) at every position of a game the agent plays (all seats), then play its move."""
    g = Game(rs, DEFAULT_NAMES[:n], deal(rs, n, seed))
    rngs = [seat_rng(seed, q) for q in range(n)]
    i = 0
    while not g.is_over():
        p = g.turn
        yield g, p
        tile = pick_tile(agent, g, p, rngs[p])
        hexes, _ = g.legal_hexes(tile[0])
        h = agent.choose(g, p, tile, hexes, rngs[p]) if hexes else None
        g.play(p, tile, h, i, pick_choices(agent, g, p, h, rngs[p]) if h is not None else {})
        i += 1


# ----- immediate points (equal to the reference engine's: test_differential.py) ---------------------
def test_fast_points_never_change_the_game() -> None:
    """Reading the points leaves the position as it was (no union-find compression, no draws)."""
    rs = ruleset("ireland")
    for i, (g, p) in enumerate(walk(rs, 3, 5, GreedyAgent())):
        if i % 10 == 0:
            before = (list(g.parent), [list(x) for x in g.hand], {k: list(v) for k, v in g.decks.items()},
                      list(g.track), [dict(d) for d in g.doubled])
            for tile in g.hand[p]:
                points_for(rs).many(g, p, tile, g.legal_hexes(tile[0])[0])
            assert before == (list(g.parent), [list(x) for x in g.hand], {k: list(v) for k, v in g.decks.items()},
                              list(g.track), [dict(d) for d in g.doubled])


class ProbeGreedy(GreedyAgent):
    """Greedy as it was before the fast points: one fork-and-place probe per legal hex."""

    def choose_tile(self, game, p, rng):
        best, pick = -1, game.hand[p][0]
        for tile in dict.fromkeys(game.hand[p]):
            hexes, _ = game.legal_hexes(tile[0])
            pts = max((probe_points(game, p, tile, h) for h in hexes), default=0)
            if pts > best:
                best, pick = pts, tile
        return pick

    def choose(self, game, p, tile, hexes, rng):
        best, picks = -1, []
        for h in hexes:
            pts = probe_points(game, p, tile, h)
            if pts > best:
                best, picks = pts, [h]
            elif pts == best:
                picks.append(h)
        return picks[rng.randrange(len(picks))]


@pytest.mark.parametrize("name", RULESETS)
def test_greedy_makes_the_same_moves_as_before(name: str) -> None:
    """Same seed, same record: the fast greedy and the probe greedy agree move for move (ties included)."""
    rs = ruleset(name)
    for n in range(rs.players[0], rs.players[1] + 1):
        _, fast = play_game(rs, DEFAULT_NAMES[:n], [GreedyAgent() for _ in range(n)], 100 + n)
        _, slow = play_game(rs, DEFAULT_NAMES[:n], [ProbeGreedy() for _ in range(n)], 100 + n)
        assert fast == slow


# ----- the registry --------------------------------------------------------------------------------
def test_agent_options_are_parsed_and_checked() -> None:
    assert parse_options("ismcts:time=0.05:width=8") == ("ismcts", {"time": 0.05, "width": 8})
    a = make_agent("ismcts:budget=40")
    assert isinstance(a, ISMCTSAgent) and a.budget == 40
    assert make_agent("mc:budget=12").budget == 12
    for bad in ("mc:nope=1", "mc:budget", "ismcts:time=soon"):
        with pytest.raises(RebirthError):
            make_agent(bad)


# ----- ISMCTS ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,n", [("scotland", 2), ("ireland", 2), ("ireland", 3)])
def test_ismcts_plays_legal_games(name: str, n: int) -> None:
    """Whole games against greedy: every move goes through the reference engine's validation."""
    rs = ruleset(name)
    agents = [ISMCTSAgent(budget=16, width=4)] + [GreedyAgent() for _ in range(n - 1)]
    game, moves = play_game(rs, DEFAULT_NAMES[:n], agents, 3)
    assert game.is_over() and len(moves) > 40
    assert agents[0].stats["evaluations"] >= 1


def scramble(g: Game, p: int, rng: random.Random) -> Game:
    """A twin of the game that differs only in what p cannot see: the other players' hands, supplies,
    set-aside tiles and held cards, p's own supply order (and its own set-aside tiles when face down),
    the decks' order and which unseen cards are in them."""
    t = g.clone()
    rs = g.rs
    for q in range(g.n_players):
        if q == p:
            pool = t.supply[q] + ([] if rs.set_aside_visible else t.set_aside[q])
            rng.shuffle(pool)
            if not rs.set_aside_visible:
                t.set_aside[q], pool = pool[: len(t.set_aside[q])], pool[len(t.set_aside[q]):]
            t.supply[q] = pool
            continue
        pool = t.hand[q] + t.supply[q] + t.set_aside[q]
        rng.shuffle(pool)
        a, b = len(t.hand[q]), len(t.set_aside[q])
        t.hand[q], t.set_aside[q], t.supply[q] = pool[:a], pool[a:a + b], pool[a + b:]
    cards = [c for q in range(g.n_players) if q != p for c in t.held[q]]
    for name in sorted(t.decks):
        cards += t.decks[name]
    rng.shuffle(cards)
    for q in range(g.n_players):
        if q != p:
            t.held[q], cards = cards[: len(t.held[q])], cards[len(t.held[q]):]
    for name in sorted(t.decks):
        k = len(t.decks[name])
        t.decks[name], cards = cards[:k], cards[k:]
    return t


@pytest.mark.parametrize("name,n", [("scotland", 2), ("scotland", 3), ("ireland", 2), ("ireland", 4)])
def test_ismcts_never_reads_hidden_information(name: str, n: int) -> None:
    """Positions that differ only in what the searching player cannot see get the same tile, the same
    hex and the same answers, with the same seed; and the twins do differ in hidden parts."""
    rs = ruleset(name)
    differed = compared = 0
    for i, (g, p) in enumerate(walk(rs, n, 21, GreedyAgent())):
        if i % 9 != 4:
            continue
        twin = scramble(g, p, random.Random(i))
        differed += (twin.hand != g.hand or twin.supply != g.supply or twin.decks != g.decks
                     or twin.held != g.held or twin.set_aside != g.set_aside)
        got = []
        for state in (g, twin):
            agent = ISMCTSAgent(budget=12, width=3)
            rng = random.Random(99)
            tile = pick_tile(agent, state, p, rng)
            hexes, _ = state.legal_hexes(tile[0])
            h = agent.choose(state, p, tile, hexes, rng) if hexes else None
            answers = []
            if h is not None:
                for lm, _ in state.pending_abilities(p, h):
                    decl, key, options = state.ability_options(p, lm)
                    # a face-down take names the unseen tile it happens to be; "keep" answers after looking
                    # at the tiles drawn (I-R1), which differ in the twin: only the other questions compare
                    if key not in ("take", "keep") or (key == "take" and rs.set_aside_visible):
                        answers.append(agent.answer(state, p, lm, decl, key, options))
            got.append((tile, h, answers, rng.random()))
        assert got[0] == got[1], (name, i)
        compared += 1
    assert compared >= 5 and differed >= compared - 1


@pytest.mark.parametrize("name,n", [("scotland", 2), ("ireland", 3)])
def test_determinisations_keep_the_public_position(name: str, n: int) -> None:
    """A determinisation keeps the board, the sizes and the searcher's own hand (and seen set-aside tiles);
    every player's tiles add up to their colour's mix; the cards add up to the deck."""
    rs = ruleset(name)
    mix = Counter(colour_tiles(rs, n))
    for i, (g, p) in enumerate(walk(rs, n, 4, GreedyAgent())):
        if i % 11:
            continue
        obs = Observer(g, p)
        for s in range(3):
            d = obs.deal(random.Random(s))
            assert d.owner == g.owner and d.track == g.track and d.lm_owner == g.lm_owner
            assert d.hand[p] == g.hand[p]
            if rs.set_aside_visible:
                assert d.set_aside[p] == g.set_aside[p]
            for q in range(n):
                assert (len(d.hand[q]), len(d.supply[q]), len(d.set_aside[q]), len(d.held[q])) == \
                       (len(g.hand[q]), len(g.supply[q]), len(g.set_aside[q]), len(g.held[q]))
                placed = Counter((k, g.tval[h]) for k, hs in enumerate(g.tiles_of[q]) for h in hs)
                assert not (placed + Counter(d.hand[q] + d.supply[q] + d.set_aside[q])) - mix
            assert {k: len(v) for k, v in d.decks.items()} == {k: len(v) for k, v in g.decks.items()}
            everything = Counter(c.name for cards in rs.decks.values() for c in cards)
            dealt = Counter(list(d.public) + [c for cs in d.decks.values() for c in cs]
                            + [c for q in range(n) for c in d.held[q]])
            assert dealt == everything
            assert d.held[p] == g.held[p]


def test_I_U1_ismcts_answers_a_face_down_take_blind() -> None:
    """Ireland's set-aside tiles are face down (I-U1): which one is taken depends only on public counts."""
    rs = ruleset("ireland")
    g = Game(rs, DEFAULT_NAMES[:2], deal(rs, 2, 1))
    agent = ISMCTSAgent()
    options = sorted({rs.tile_name(*x) for x in g.set_aside[0]})
    a = agent.answer(g, 0, 0, None, "take", options)
    twin = g.clone()
    twin.set_aside[0] = list(reversed(twin.set_aside[0]))
    b = agent.answer(twin, 0, 0, None, "take", options)
    k = (g.move_index * 7) % len(g.set_aside[0])
    assert a == {"take": rs.tile_name(*g.set_aside[0][k])} and b == {"take": rs.tile_name(*twin.set_aside[0][k])}
    two = list(g.public[:2])
    assert agent.answer(g, 0, 0, None, "double", two) == smart_answer(g, 0, 0, None, "double", two)
