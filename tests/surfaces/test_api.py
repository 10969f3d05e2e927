"""The public Python API (rebirth_dsl.api, re-exported by the package): docs/api.md's examples run as
doctests, and what they do not show is checked here."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

import rebirth_dsl as rb
from rebirth_dsl.cli import main


def test_docs_api_md_examples_run() -> None:
    """Every `>>>` example of docs/api.md gives the output written there."""
    result = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 20
    assert result.failed == 0


def test_import_stays_light() -> None:
    """`import rebirth_dsl` loads none of the API (nor the compiler): the CLI's start-up does not grow;
    the first use of `rebirth_dsl.load` brings it in."""
    code = ("import sys, rebirth_dsl; before = set(sys.modules); rebirth_dsl.load; "
            "print(sorted(m for m in before if m.startswith('rebirth_dsl')), 'rebirth_dsl.api' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['rebirth_dsl'] True"


def test_the_package_exports_the_api() -> None:
    """The names the package promises resolve, are listed by dir(), and nothing else is invented."""
    for name in ("Game", "IllegalMove", "Move", "RebirthError", "Rules", "from_record", "load", "new_game"):
        assert getattr(rb, name) is getattr(rb.api, name)
        assert name in dir(rb)
    with pytest.raises(AttributeError):
        rb.nothing_here  # noqa: B018


def test_a_refused_move_leaves_the_game_untouched() -> None:
    """The engine refuses before changing anything: state, history and undo stack are as they were."""
    game = rb.new_game("ireland", 3, seed=2)
    game.play(game.legal_moves()[0])
    before = (json.dumps(game.record()), game.scores(), game.hand(), len(game._undo))
    for bad in (rb.Move("food", (99, 99)), rb.Move("castle", (0, 0)), rb.Move(game.hand()[0], None)):
        with pytest.raises(rb.IllegalMove) as e:
            game.play(bad)
        assert e.value.rule
    assert (json.dumps(game.record()), game.scores(), game.hand(), len(game._undo)) == before


def test_I_R1_a_question_needs_its_answer_and_refuses_a_wrong_one() -> None:
    """A tower question left unanswered or answered with an impossible option is refused, citing I-R1."""
    game = rb.new_game("ireland", 2, seed=4)
    while not any(m.choices and isinstance(m.choices[0][1], str) for m in game.legal_moves()):
        game.play(max(game.legal_moves(), key=game.points))
    move = next(m for m in game.legal_moves() if m.choices and isinstance(m.choices[0][1], str))
    with pytest.raises(rb.IllegalMove, match="needs a choice") as e:
        game.play(rb.Move(move.tile, move.hex))
    assert e.value.rule == "I-R1"
    with pytest.raises(rb.IllegalMove, match="not possible"):
        game.play(rb.Move(move.tile, move.hex, ((move.choices[0][0], "no such tile"),)))
    game.play(move)
    assert game.moves[-1] == move


def test_undo_and_clone_are_independent() -> None:
    """A clone's moves do not touch the original; undo on either returns to the same position."""
    game = rb.new_game("scotland", 2, seed=5)
    for _ in range(3):
        game.play(game.legal_moves()[-1])
    copy = game.clone()
    copy.play(copy.legal_moves()[0])
    assert len(game.moves) == 3 and len(copy.moves) == 4
    copy.undo()
    copy.undo()
    game.undo()
    assert copy.record() == game.record()
    copy.play(copy.legal_moves()[0])  # a clone's undone state is its own: the original does not move
    assert len(game.moves) == 2
    while game.moves:
        game.undo()
    with pytest.raises(rb.RebirthError, match="nothing to undo"):
        game.undo()


def test_points_equal_what_the_move_scores() -> None:
    """points(move) is the track difference of playing it, for every legal move of a few positions."""
    game = rb.new_game("ireland", 2, seed=1)
    for _ in range(6):
        for m in game.legal_moves()[::7]:
            before = game.scores()[game.to_move]
            trial = game.clone()
            who = trial.to_move
            trial.play(m)
            assert game.points(m) == trial.scores()[who] - before
        game.play(game.legal_moves()[0])


def test_a_saved_record_is_what_rebirth_eval_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """save() writes a record `rebirth eval` replays to the same scores and winners; from_record reads it
    back; an API game's record equals `rebirth play`'s for the same seed and moves."""
    game = rb.new_game("ireland", 2, seed=3)
    while not game.is_over:
        game.play(max(game.legal_moves(), key=game.points))
    out = tmp_path / "g.json"
    game.save(out)
    assert main(["eval", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {p["name"]: p["score"] for p in result["players"]} == game.scores()
    assert result["winners"] == game.winners() and result == game.result()
    again = rb.from_record(out)
    assert again.scores() == game.scores() and again.moves == game.moves
    assert json.loads(game.to_json()) == game.record()


def test_from_record_reports_an_illegal_move(tmp_path: Path) -> None:
    """A record whose move breaks a rule is refused by from_record with the rule and the move number."""
    data = json.loads((ROOT / "examples" / "scotland-2p.json").read_text())
    data["moves"][3]["hex"] = [99, 99]
    with pytest.raises(rb.IllegalMove, match="move 3"):
        rb.from_record(data)


def test_load_names_what_is_missing() -> None:
    """An unknown ruleset name is refused with a suggestion."""
    with pytest.raises(rb.RebirthError, match="did you mean 'scotland'"):
        rb.load("scotlnd")


def test_a_finished_game_has_no_moves() -> None:
    """Over: no player to move, no legal moves, and a move is refused with the end-of-game rule."""
    game = rb.from_record("scotland-2p")
    assert game.is_over and game.to_move is None and game.legal_moves() == []
    with pytest.raises(rb.IllegalMove, match="game is over"):
        game.play(rb.Move("food", game.engine.t.coords[0]))
