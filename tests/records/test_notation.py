"""The position notation (docs/notation.md): reading a position written by hand, errors at the character,
the round trip record -> notation -> record over generated games, `rebirth position` both ways and --as."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import lru_cache

import pytest
from cli_helpers import rebirth
from conftest import BOARDS, ROOT, RULES, TESTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.agents import RandomAgent
from rebirth_dsl.play.loop import play_game, record_for
from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.annotate import _apply
from rebirth_dsl.records.position import (
    check_position,
    position_of,
    read_position,
    record_of,
    start_game,
    write_position,
)
from rebirth_dsl.records.record import load_record, load_ruleset, replay
from rebirth_dsl.records.view import MoveView
from rebirth_dsl.runtime.setup import deal

NAMES = ["Ann", "Bob", "Cat", "Dan"]

# Written by hand, as the issue asks: three players, twenty tiles on the board, hands known, supplies not.
# Twenty moves made: Ann (seat 0) made moves 0, 3, ..., 18 (7 tiles), Bob 1, ..., 19 (7), Cat 2, ..., 17 (6);
# move 20 is Cat's (20 mod 3 = 2). One colour for 3 players is 36 tiles (S-C2, nothing returned, S-U3):
# Ann and Bob hold 7 placed + 1 in hand + 2 set aside, so 26 in supply; Cat 6 + 1 + 2, so 27.
HAND_WRITTEN = """\
# a position set up by hand
position scotland on scotland
players Ann, Bob, Cat   move 20   turn Cat
Ann { score 12: farms 8, areas 4
      tiles food (7,2) (7,3), energy (6,1) (5,2), settlement:2 (7,1) (8,1), settlement:3 (3,4)
      owns Ardvreck   hand food   supply ? x26   aside settlement:2, energy }
Bob { score 9: farms 6, areas 3
      tiles food (5,5) (6,5), energy (4,4) (3,5) (2,6), settlement:4 (4,6), settlement:1 (4,7)
      hand energy   supply ? x26   aside food, energy }
Cat { score 7
      tiles food (8,6) (10,6), energy (6,8), settlement:3 (9,7) (9,8), settlement:1 (5,8)
      hand settlement:2   supply ? x27   aside energy, food }
deck mission ? x20
"""


@lru_cache(maxsize=4)
def ruleset(name: str = "scotland"):
    return load_ruleset(RULES / f"{name}.rules", BOARDS / f"{name}.json")[0]


# ----- a position written by hand ---------------------------------------------------------------------
def test_hand_written_position_reads_as_written():
    pos = read_position(HAND_WRITTEN, "hand.pos")
    assert pos.players == ["Ann", "Bob", "Cat"]
    assert (pos.rules, pos.board, pos.move, pos.turn) == ("scotland", "scotland", 20, "Cat")
    assert sum(len(s.tiles) for s in pos.seats) == 20
    ann = pos.seat("Ann")
    assert ann.tiles[:2] == [("food", (7, 2)), ("food", (7, 3))]
    assert ann.categories == {"farms": 8, "areas": 4} and ann.score == 12
    assert ann.owns == ["Ardvreck"] and ann.hand == ["food"] and ann.aside == ["settlement:2", "energy"]
    assert ann.supply is None and ann.supply_count == 26
    assert pos.seat("Cat").categories is None and pos.seat("Cat").score == 7  # not split: starting points
    assert pos.unknowns() == ["Ann.supply", "Bob.supply", "Cat.supply", "deck.mission"]
    check_position(pos, ruleset())  # every name, hex and count fits the ruleset and board


def test_hand_written_position_written_back_reads_the_same():
    pos = read_position(HAND_WRITTEN)
    again = read_position(write_position(pos))
    assert again == pos  # spans, file and text are not part of a position's equality
    assert write_position(again) == write_position(pos)


def test_unknown_supplies_are_dealt_from_what_is_left():
    from collections import Counter

    from rebirth_dsl.runtime.setup import colour_tiles

    rs = ruleset()
    game = start_game(read_position(HAND_WRITTEN), rs, None, random.Random(0))
    assert [len(s) for s in game.supply] == [26, 26, 27]  # 36 less placed, hand and set aside (above)
    for q in range(3):  # each colour whole again: placed + hand + supply + set aside = the mix (S-C2)
        placed = [(game.tkind[h], game.tval[h]) for k in game.tiles_of[q] for h in k]
        have = Counter(placed + game.hand[q] + game.supply[q] + game.set_aside[q])
        assert have == Counter(colour_tiles(rs, 3))
    assert [rs.tile_name(*t) for t in game.hand[2]] == ["settlement:2"] and game.turn == 2
    assert len(game.decks["mission"]) == 20 and game.move_index == 20


def test_unknown_supplies_without_a_deal_are_refused_saying_what_is_missing():
    pos = read_position(HAND_WRITTEN, "hand.pos")
    with pytest.raises(RebirthError) as e:
        start_game(pos, ruleset())
    d = e.value.diagnostics[0]
    # the first unknown: Ann's `supply ? x26` on line 6; `?` is column 42 of
    # "      owns Ardvreck   hand food   supply ? x26   aside settlement:2, energy }"
    assert (d.file, d.line, d.col) == ("hand.pos", 6, 42)
    assert "Ann's supply, Bob's supply, Cat's supply, deck 'mission'" in d.message


def test_tiles_beyond_the_tile_mix_are_refused():
    text = HAND_WRITTEN.replace("supply ? x26   aside settlement:2", "supply " + ", ".join(
        ["food"] * 9 + ["energy"] * 9 + ["settlement:1"] * 3 + ["settlement:2"] * 2 + ["settlement:3"] * 2
        + ["settlement:4"] * 1) + "   aside settlement:2")
    # One colour is 12 food, 12 energy, settlements 1 x3, 2 x4, 3 x3, 4 x2 (S-C2). Ann places 2 food, 2 energy,
    # 2 settlement:2 and a settlement:3, holds a food and sets aside a settlement:2 and an energy: with this
    # supply food 3 + 9 = 12, energy 3 + 9 = 12, settlement:1 3, settlement:3 1 + 2 = 3, settlement:4 1 are
    # within the mix, settlement:2 2 + 1 + 2 = 5 is one more than its 4
    pos = read_position(text)
    with pytest.raises(RebirthError) as e:
        check_position(pos, ruleset())
    assert "settlement:2 5 (the mix has 4)" in e.value.diagnostics[0].message
    assert e.value.diagnostics[0].rule == "S-C2"


# ----- errors at the character ------------------------------------------------------------------------
HEAD = "position scotland on scotland  players Ann, Bob\n"


def _error(text: str, with_rules: bool = False):
    with pytest.raises(RebirthError) as e:
        pos = read_position(text, "p.pos")
        if with_rules:
            check_position(pos, ruleset())
    return e.value.diagnostics[0]


@pytest.mark.parametrize(("line", "col", "words"), [
    # "Ann { tiles food 7,2 }": the hex has no brackets; `7` is column 18
    ("Ann { tiles food 7,2 }", 18, "a hex is written (q,r)"),
    # a part for someone the `players` clause does not name
    ("Cat { }", 1, "'Cat' is not a player"),
    # the second `move`: column 8 of "move 3 move 4"
    ("move 3 move 4", 8, "`move` is given twice"),
])
def test_syntax_errors_at_the_character(line, col, words):
    d = _error(HEAD + line)
    assert (d.file, d.line, d.col) == ("p.pos", 2, col)
    assert words in d.message + (d.hint or "")
    assert d.render().splitlines()[2].index("^") == 4 + col - 1


def test_a_misspelt_keyword_and_an_open_brace_are_named():
    d = _error(HEAD + "Ann { tile food (7,2) }")  # `tile` at column 7
    assert (d.line, d.col, d.hint) == (2, 7, "did you mean `tiles`?")
    # "Ann { tiles food (7,2) hand food" is 32 characters: the end is column 33, on the last line written
    d = _error(HEAD + "Ann { tiles food (7,2) hand food\n\n")
    assert (d.line, d.col) == (2, 33) and d.message.startswith("the position ends too soon")
    assert d.hint == "a player's part ends with `}`"


@pytest.mark.parametrize(("line", "col", "words"), [
    ("Ann { supply food x99999999999 }", 19, "more than 1000"),  # never a list of 10**11 tiles in memory
    ("Ann { score " + "9" * 5000 + " }", 13, "out of range"),     # never Python's 4300-digit limit
    ("Ann { tiles food (" + "9" * 5000 + ",1) }", 18, "no hex so far out"),
    ("Ann { cards ? x5000 }", 15, "more than 1000"),
])
def test_numbers_past_any_game_are_refused_at_them(line, col, words):
    d = _error(HEAD + line)
    assert (d.line, d.col) == (2, col) and words in d.message


def test_a_position_without_its_header_is_told_how_it_starts():
    d = _error("players Ann, Bob\n")
    assert (d.line, d.col) == (1, 1)
    assert "a position starts with `position RULES on BOARD`" in (d.hint or "")


@pytest.mark.parametrize(("line", "col", "words", "rule"), [
    # "Ann { tiles foood (7,2) }": the tile name starts at column 13
    ("Ann { tiles foood (7,2) }", 13, "no tile 'foood' in this ruleset; did you mean 'food'?", None),
    # "(70,2)" starts at column 18
    ("Ann { tiles food (70,2) }", 18, "there is no hex (70,2) on the board", "S-P1"),
    # "settlement:2" is 12 characters from column 13, a space, and "(6,0)" (a sea hex) at column 26 (S-P4)
    ("Ann { tiles settlement:2 (6,0) }", 26, "settlement cannot go on sea hex (6,0)", "S-P4"),
    # the same hex twice: the second "(7,2)" is at column 24
    ("Ann { tiles food (7,2) (7,2) }", 24, "hex (7,2) already holds Ann's tile", "S-P1"),
    # 8 + 4 = 12, not 13: the total "13" at column 13
    ("Ann { score 13: farms 8, areas 4 }", 13, "Ann's categories add up to 12 (farms 8 + areas 4), not 13", None),
    # a category the rules do not have, at column 16
    ("Ann { score 4: farm 4 }", 16, "no scoring category 'farm'; did you mean 'farms'?", None),
    # a landmark, at column 12 of "Ann { owns Stirlin }"
    ("Ann { owns Stirlin }", 12, "no landmark 'Stirlin' on the board; did you mean 'Stirling'?", None),
    # Thurso is three hexes, (7,1) (8,1) (9,1): with one tile it is not complete, so nobody has won it (S-A1..A3);
    # "(7,1)" ends at column 30, two spaces, "won" 33..35, a space: "Thurso" at column 37
    ("Ann { tiles settlement:2 (7,1)  won Thurso }", 37, "area 'Thurso' is not complete: 1 of its 3 hexes hold tiles",
     "S-A1"),
    # a card, at column 13
    ('Ann { cards "Castle lrd" }', 13, "no card 'Castle lrd' in the ruleset's decks; did you mean 'Castle lord'?",
     None),
])
def test_errors_against_the_ruleset_at_the_character(line, col, words, rule):
    d = _error(HEAD + line, with_rules=True)
    assert (d.file, d.line, d.col) == ("p.pos", 2, col)
    assert words in d.message
    assert d.rule == rule
    caret = d.render().splitlines()[2]
    assert caret.index("^") == 4 + col - 1


# ----- the round trip over generated positions ----------------------------------------------------------
def _game(seed: int, n: int, rules: str):
    rs = ruleset(rules)
    _, moves = play_game(rs, NAMES[:n], [RandomAgent() for _ in range(n)], seed)
    return record_for(rs, RULES / f"{rules}.rules", BOARDS / f"{rules}.json", TESTS, NAMES[:n], ["random"] * n,
                      seed, deal(rs, n, seed), moves)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 4), st.sampled_from(["scotland", "ireland"]), st.floats(0, 1))
def test_round_trip_record_notation_record(seed, n, rules, cut):
    """A seeded game cut at a random move: its notation read back into a record gives the same notation, the
    same evaluation, and, with the rest of the original moves played on both, the same final result."""
    rec = _game(seed, n, rules)
    k = int(cut * len(rec["moves"]))
    g1 = replay(load_record(TESTS / "g.json", data=rec), stop_at=k).game
    text = write_position(position_of(g1, rules, rules))
    back = replay(load_record(TESTS / "g.json", data=record_of(read_position(text), text)))
    assert back.error is None
    g2 = back.game
    assert write_position(position_of(g2, rules, rules)) == text
    assert evaluate(g2) == evaluate(g1)
    for i, m in enumerate(rec["moves"][k:]):  # the position carries everything the rest of the game needs
        mv = MoveView(m["player"], m["tile"], m["hex"], m.get("choices", {}))
        _apply(g1, mv, k + i)
        _apply(g2, mv, k + i)
    assert evaluate(g2) == evaluate(g1)


@pytest.mark.parametrize("example", ["scotland-2p", "scotland-3p", "scotland-4p", "ireland-2p", "ireland-4p",
                                     "unfinished", "scenario-120"])
def test_every_bundled_example_round_trips(example):
    """Each example's final position (a finished game, an unfinished one, a scenario scored as over) as a
    record that starts from its notation: the same `eval --json`, end-of-game scoring and winner included."""
    folder = ROOT / "examples"
    r1 = replay(load_record(folder / f"{example}.json"))
    rec = r1.loaded.record
    text = write_position(position_of(r1.game, rec.rules, rec.board))
    r2 = replay(load_record(folder / "x.json", data=record_of(read_position(text), text)))
    assert r2.error is None
    assert evaluate(r2.game) == evaluate(r1.game)
    assert r2.game.is_over() == r1.game.is_over()


def test_empty_and_unknown_lists_read_apart():
    pos = read_position(HEAD + "Ann { hand none  supply ? x3  cards none }\nBob { hand ?  supply food x2, energy }")
    ann, bob = pos.seat("Ann"), pos.seat("Bob")
    assert (ann.hand, ann.supply, ann.supply_count, ann.cards) == ([], None, 3, [])
    assert (bob.hand, bob.hand_count, bob.supply) == (None, None, ["food", "food", "energy"])
    assert "hand none" in write_position(pos) and "supply ? x3" in write_position(pos)


# ----- the command line ---------------------------------------------------------------------------------
def test_position_both_ways_on_the_command_line(tmp_path):
    pos = tmp_path / "p20.pos"
    code, out, err = rebirth("position", "scotland-3p", "--at", "20", "-o", pos, limit=60)
    assert code == 0, err
    assert pos.read_text().startswith("position scotland on scotland  players Ann, Bob, Cat  move 20  turn Cat")
    code, table_pos, err = rebirth("eval", pos, limit=60)
    assert code == 0, err
    code, table_at, _ = rebirth("eval", "scotland-3p", "--at", "20", limit=60)
    assert table_pos.splitlines()[1:] == table_at.splitlines()[1:]  # the same table; the header counts moves
    rec = tmp_path / "p20.json"
    code, _, err = rebirth("position", pos, "-o", rec, limit=60)
    assert code == 0, err
    data = json.loads(rec.read_text())
    assert data["moves"] == [] and data["setup"]["position"] == pos.read_text()
    code, table_rec, _ = rebirth("eval", rec, limit=60)
    assert table_rec.splitlines()[1:] == table_at.splitlines()[1:]
    code, _, err = rebirth("position", pos, "-o", pos, limit=60)
    assert code == 1 and "input" in err  # never over an input


def test_position_as_a_player_hides_the_others(tmp_path):
    code, out, err = rebirth("position", "scotland-3p", "--at", "20", "--as", "Bob", limit=60)
    assert code == 0, err
    pos = read_position(out)
    full = read_position(rebirth("position", "scotland-3p", "--at", "20", limit=60)[1])
    assert pos.seat("Bob").hand == full.seat("Bob").hand != []  # Bob's own hand
    for other in ("Ann", "Cat"):
        seat = pos.seat(other)
        assert seat.hand is None and seat.hand_count == 1
        assert seat.cards is None
        assert seat.aside is not None  # Scotland sets aside face up (S-U4: `set aside 2 visible`)
    assert pos.seat("Bob").supply is None  # nobody knows the order of a face-down supply
    assert pos.decks == {"mission": None}
    assert full.seat("Ann").hand and full.seat("Ann").cards is not None
    assert "hand ? x1" in out.split("Ann {")[1].split("}")[0]
    assert pos.unknowns() == ["Ann.hand", "Ann.supply", "Ann.cards", "Bob.supply", "Cat.hand", "Cat.supply",
                              "Cat.cards", "deck.mission"]


def test_a_notation_with_unknowns_converts_without_being_played(tmp_path):
    src = tmp_path / "hand.pos"
    src.write_text(HAND_WRITTEN)
    code, out, err = rebirth("position", src, limit=60)
    assert code == 0, err
    data = json.loads(out)
    assert data["players"] == ["Ann", "Bob", "Cat"] and data["moves"] == []
    assert read_position(data["setup"]["position"]) == read_position(HAND_WRITTEN)
    code, out, err = rebirth("position", src, "--notation", "--as", "Cat", limit=60)
    assert code == 0, err
    seen = read_position(out)
    assert seen.seat("Ann").hand is None and seen.seat("Ann").hand_count == 1
    assert seen.seat("Cat").hand == ["settlement:2"]
    assert seen.seat("Ann").cards == []  # holding none is public: nothing to hide
    code, out, err = rebirth("moves", src, limit=60)  # played on: the unknown parts dealt, and said
    assert code == 0, err
    assert out.startswith("dealt (seed 0): Ann supply 26 tiles; Bob supply 26 tiles; Cat supply 27 tiles; "
                          "deck mission 20 cards\nCat to place settlement:2")


def test_a_hand_written_position_plays_on(tmp_path):
    """The issue's acceptance: typed by hand, supplies unknown, `hint` ranks moves that differ in expected
    final score and the forecast has width."""
    src = tmp_path / "hand.pos"
    src.write_text(HAND_WRITTEN)
    code, out, err = rebirth("hint", src, "--playouts", "8", "--json", limit=300)
    assert code == 0, err
    hint = json.loads(out)
    assert hint["dealt"].startswith("dealt (seed 0): Ann supply 26 tiles")
    finals = {m["final"]["mean"] for m in hint["moves"]}
    assert len(finals) > 1
    code, out, err = rebirth("eval", src, "--forecast", "--playouts", "20", "--json", limit=300)
    assert code == 0, err
    for p in json.loads(out)["forecast"]["players"]:
        low, high = p["final"]["ci"]
        assert high > low


def test_stdin_and_notation_text_are_games(tmp_path):
    text = rebirth("position", "scotland-3p", "--at", "9", limit=60)[1]
    run = subprocess.run([sys.executable, "-m", "rebirth_dsl", "moves", "-"], input=text, capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Ann to place")  # move 9 of 3 players: seat 0
    code, out, err = rebirth("moves", text, limit=60)  # the notation itself as the argument
    assert code == 0 and out == run.stdout


def test_notation_error_on_the_command_line(tmp_path):
    bad = tmp_path / "bad.pos"
    bad.write_text(HEAD + "Ann { tiles foood (7,2) }\n")
    code, out, err = rebirth("eval", bad, limit=60)
    assert code == 1 and not out
    assert "bad.pos:2:13: no tile 'foood' in this ruleset; did you mean 'food'?" in err
    assert "^~~~~" in err
    assert "Traceback" not in err


def test_every_game_command_takes_at(tmp_path):
    pos = tmp_path / "p30.pos"
    assert rebirth("position", "scotland-3p", "--at", "30", "-o", pos, limit=60)[0] == 0
    code, at, err = rebirth("moves", "scotland-3p", "--at", "30", "--json", limit=60)
    assert code == 0, err
    assert json.loads(at) == json.loads(rebirth("moves", pos, "--json", limit=60)[1])


def test_a_file_that_is_not_json_is_read_as_notation(tmp_path):
    slip = tmp_path / "slip.pos"
    slip.write_text("positon scotland on scotland\n")  # the first word misspelt: not JSON either
    code, _, err = rebirth("eval", slip, limit=60)
    assert code == 1 and "slip.pos:1:1: unexpected 'positon'" in err
    assert "a position starts with `position RULES on BOARD`" in err


def test_eval_at_is_the_record_cut_there(tmp_path):
    data = json.loads((ROOT / "examples" / "scotland-3p.json").read_text())
    data["moves"] = data["moves"][:31]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(data))
    code, at, err = rebirth("eval", "scotland-3p", "--at", "31", "--json", limit=60)
    assert code == 0, err
    assert json.loads(at) == json.loads(rebirth("eval", cut, "--json", limit=60)[1])
    code, zero, _ = rebirth("eval", "scotland-3p", "--at", "0", "--json", limit=60)
    assert [p["score"] for p in json.loads(zero)["players"]] == [0, 0, 0]  # nothing placed, no starting points
    code, _, err = rebirth("eval", "scotland-3p", "--at", "500", limit=60)
    assert code == 1 and "the game has 102 moves; N is 0 (the start) to 102" in err


def test_play_resume_goes_on_from_a_position(tmp_path):
    """`play --resume` takes a notation as every game command does: the unknown parts are dealt and said, the
    game is played to its end and written as a record to -o that `eval` replays; without -o it is refused,
    the position never written over."""
    pos = tmp_path / "p20.pos"
    assert rebirth("position", "scotland-3p", "--at", "20", "--as", "Ann", "-o", pos, limit=60)[0] == 0
    before = pos.read_bytes()
    code, _, err = rebirth("play", "--resume", pos, "--agents", "greedy", limit=60)
    assert code != 0 and "name the record to write with -o" in err and "Traceback" not in err
    out = tmp_path / "on.json"
    code, _, err = rebirth("play", "--resume", pos, "--agents", "greedy", "-o", out, limit=120)
    assert code == 0, err
    assert "dealt (seed 0): Ann supply 26 tiles" in err  # 36 tiles, 7 placed, 1 in hand, 2 set aside (S-U3)
    assert pos.read_bytes() == before
    rec = json.loads(out.read_text())
    assert len(rec["moves"]) == 102 - 20  # the rest of a three-player game: 34 tiles each (S-U4)
    code, text, err = rebirth("eval", out, limit=60)
    assert code == 0 and "Winner:" in text, err
