"""The `search` agent (play/nsearch.py) and the native entry it runs on (`rb_search`, docs/native.md): legal
moves only, the same moves for the same seed, blind to what the mover cannot see, stronger than `oneply`,
and a clear error where the native engine cannot run.

The tests that run C skip when cffi or a C compiler is missing; the option checks and the error run everywhere.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from rebirth_dsl import native
from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play import forecast, nsearch
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.nsearch import NativeSearchAgent
from rebirth_dsl.play.registry import make_agent, parse_options
from rebirth_dsl.play.stats import wilson
from rebirth_dsl.records.record import load_record, load_ruleset, replay
from rebirth_dsl.records.resources import rules_and_board
from rebirth_dsl.runtime.game import Game

WHY = native.unavailable()
needs_native = pytest.mark.skipif(WHY is not None, reason=f"the native backend cannot run here: {WHY}")


def ruleset(name: str) -> Any:
    return load_ruleset(*rules_and_board(name, None))[0]


class Checked:
    """An agent wrapper that asserts every tile it picks is in hand and every hex is legal for that tile."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.name, self.answer = agent, agent.name, agent.answer
        self.tiles = 0

    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        tile = self.agent.choose_tile(game, p, rng)
        assert tile in game.hand[p]
        self.tiles += 1
        return tile

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        h = self.agent.choose(game, p, tile, hexes, rng)
        assert h in hexes and h in game.legal_hexes(tile[0])[0]
        return h


def test_options_are_parsed_and_checked() -> None:
    assert parse_options("search:playouts=8:policy=random") == ("search", {"playouts": 8, "policy": "random"})
    a = make_agent("search:playouts=8:width=0:policy=random:sample=2")
    assert (a.playouts, a.width, a.policy, a.sample, a.name) == (8, 0, "random", 2, "search")
    for bad in ("search:policy=best", "search:playouts=0", "search:width=-1", "search:playouts=2.5", "search:depth=2"):
        with pytest.raises(RebirthError):
            make_agent(bad)


def test_without_the_native_engine_it_says_why() -> None:
    rs = compile_rules(load_rules(ROOT / "rules" / "scotland.rules"), load_board(ROOT / "boards" / "scotland.json"))
    rs.derived.native = "no C compiler found (test)"  # what engine() keeps when it cannot build
    with pytest.raises(RebirthError, match="needs the native engine .* no C compiler found"):
        play_game(rs, DEFAULT_NAMES[:2], [make_agent("search"), make_agent("greedy")], 1)


@needs_native
@pytest.mark.parametrize(("rules", "players", "spec"), [("scotland", 3, "search:playouts=6"),
                                                        ("ireland", 2, "search:playouts=4:policy=random")])
def test_whole_games_of_legal_moves_that_replay(rules: str, players: int, spec: str, tmp_path: Path) -> None:
    """Every decision legal (tile in hand, hex legal), the game played to its end, and its record replays on
    the reference engine move by move (Ireland: the abilities' second tile, I-R1, goes through choose_tile)."""
    rs = ruleset(rules)
    agent = Checked(make_agent(spec))
    agents: list[Any] = [agent] + [make_agent("greedy") for _ in range(players - 1)]
    game, moves = play_game(rs, DEFAULT_NAMES[:players], agents, 5)
    assert game.is_over()
    rec = {"rules": rules, "board": rules, "players": DEFAULT_NAMES[:players], "setup": {"seed": 5}, "moves": moves}
    again = replay(load_record(tmp_path / "g.json", data=rec))
    assert again.error is None and again.game.move_index == len(moves)
    if rules == "ireland":
        assert agent.tiles > 0  # a hand of two tiles was searched over


@needs_native
def test_the_same_seed_gives_the_same_moves() -> None:
    rs = ruleset("scotland")
    runs = [play_game(rs, DEFAULT_NAMES[:2], [make_agent("search:playouts=6"), make_agent("oneply")], s)[1]
            for s in (3, 3, 4)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def _unfinished() -> Game:
    return replay(load_record(ROOT / "examples" / "unfinished.json")).game


def _hidden_changed(game: Game) -> Game:
    """The same position as the mover sees it, with everything it cannot see arranged otherwise: another
    seat's hand tile swapped with a different tile of its supply, another seat's private card swapped with a
    deck card, the decks and the mover's own supply in another order."""
    g = game.fork()
    p = g.turn
    q = (p + 1) % g.n_players
    j = next(i for i, t in enumerate(g.supply[q]) if t != g.hand[q][0])
    g.hand[q][0], g.supply[q][j] = g.supply[q][j], g.hand[q][0]
    deck = next(iter(g.decks))
    k = next(i for i, c in enumerate(g.decks[deck]) if c not in g.held[q])
    g.held[q][0], g.decks[deck][k] = g.decks[deck][k], g.held[q][0]
    g.decks[deck].reverse()
    g.supply[p].reverse()
    return g


@needs_native
def test_it_never_reads_what_the_mover_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing another seat's hidden hand and private card (and the orders nobody sees) changes neither the
    candidates nor a single summed playout margin for the same seed. The control: with the re-deal switched
    off, the same change does move the margins, so the comparison would catch a leak."""
    game = _unfinished()
    other = _hidden_changed(game)
    p = game.turn
    q = (p + 1) % game.n_players
    assert other.hand[q] != game.hand[q] and other.held[q] != game.held[q]  # the change is real
    agent = NativeSearchAgent(playouts=12, width=0)
    tiles = list(dict.fromkeys(game.hand[p]))
    runs = [agent.evaluate(g, p, tiles, random.Random(7)) for g in (game, other)]
    assert runs[0] == runs[1] and len(runs[0][0]) > 5
    assert agent.search(game, p, tiles, random.Random(7)) == agent.search(other, p, tiles, random.Random(7))
    monkeypatch.setattr(nsearch, "resample", lambda g, viewer, rng: None)  # a search that sees everything
    leaky = [agent.evaluate(g, p, tiles, random.Random(7)) for g in (game, other)]
    assert leaky[0][1] != leaky[1][1]


@needs_native
def test_it_beats_oneply() -> None:
    """Two-player Scotland, 8 deals each played twice with the seats swapped: the search's share of the wins
    (a shared win counts half) must have its 95% Wilson interval above one half."""
    rs = ruleset("scotland")
    won = 0.0
    games = 16
    for i in range(games):
        seat = i % 2
        agents = [make_agent("search") if q == seat else make_agent("oneply") for q in range(2)]
        game, _ = play_game(rs, DEFAULT_NAMES[:2], agents, 100 + i // 2)
        totals = game.final_scores(game.end_events())
        winners, _ = game.winners(totals)
        won += 1 / len(winners) if seat in winners else 0.0
    lo, _ = wilson(won, games)
    assert lo > 0.5, f"search won {won} of {games} against oneply"


@needs_native
@pytest.mark.parametrize("players", [2, 3])
def test_the_root_move_is_the_reference_engines(players: int, tmp_path: Path) -> None:
    """rb_search's move (move_at) against the reference engine at a game's last move, where the playout has
    nothing left to play: for every legal hex, on determinisations dealt as the agent deals them, the margin
    and winners rb_search returns are the reference engine's after Game.play (the placement, its reactions,
    the draw, the end) and its end scoring, held private cards included (Scotland has no ability, so the
    move asks no question answered at random)."""
    rs = ruleset("scotland")
    names = DEFAULT_NAMES[:players]
    _, moves = play_game(rs, names, [make_agent("greedy") for _ in range(players)], 9)
    rec = {"rules": "scotland", "board": "scotland", "players": names, "setup": {"seed": 9}, "moves": moves}
    game = replay(load_record(tmp_path / "g.json", data=rec), stop_at=len(moves) - 1).game
    p = game.turn
    assert not game.is_over() and sum(len(h) + len(s) for h, s in zip(game.hand, game.supply, strict=True)) == 1
    tile = game.hand[p][0]
    hexes = game.legal_hexes(tile[0])[0]
    assert len(hexes) > 3
    eng = native.engine(rs)
    dets = []
    for j in range(3):
        g = game.fork()
        forecast.resample(g, p, random.Random(j))
        dets.append(g)
    margins, winners = eng.search(dets, p, [(0, h) for h in hexes], 1000, 0)
    seen = set()
    for j, det in enumerate(dets):
        for c, h in enumerate(hexes):
            g = det.fork()
            g.play(p, tile, h, None, {})
            assert g.is_over()
            final = g.final_scores(g.end_events())
            assert margins[j][c] == final[p] - max(x for q, x in enumerate(final) if q != p)
            assert winners[j][c] == g.winners(final)[0]
            seen.add(margins[j][c])
    assert len(seen) > 1  # the margins differ: the comparison means something


def test_the_lookahead_agent_shares_the_re_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookahead agent re-deals through the same `resample`: with another seat's hidden hand and private
    card arranged otherwise, every seeded choice stays the same. The control: a re-deal that keeps the other
    seats' hands and cards as they lie (what it did before) lets the change move some choice."""
    from rebirth_dsl.play import lookahead
    from rebirth_dsl.play.lookahead import LookaheadAgent

    game = _unfinished()
    other = _hidden_changed(game)
    p = game.turn
    tile = game.hand[p][0]
    hexes = game.legal_hexes(tile[0])[0]
    assert len(hexes) > 10
    agent = LookaheadAgent(width=10, samples=3)

    def choices() -> list[tuple[int, int]]:
        return [(agent.choose(game, p, tile, hexes, random.Random(s)), agent.choose(other, p, tile, hexes,
                                                                                 random.Random(s)))
                for s in range(8)]
    assert all(a == b for a, b in choices())
    monkeypatch.setattr(lookahead, "resample", lambda g, viewer, rng: g.shuffle_hidden(rng))
    assert any(a != b for a, b in choices())
