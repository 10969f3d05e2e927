"""`rebirth test FILE`: a variant author's reference positions (docs/formats.md, "Tests files"). The
bundled rulesets' own tests files (rules/*.tests, made from tests/positions*/ by tools/positions_to_tests.py)
pass; a wrong expectation, a wrong refusal and a malformed file each fail with file:line:col and what was
expected against what the game gives. Every expected number here is worked out by hand from RULES.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTS
from hypothesis import given
from hypothesis import strategies as st

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.present.testrun import run_tests
from rebirth_dsl.records.testfile import parse_tests

CASTLES = (ROOT / "rules" / "positions" / "scotland" / "castles.json").as_posix()
SCOTLAND = (ROOT / "rules" / "scotland.rules").as_posix()

# castles.json (rules/positions/scotland): Edinburgh (1,1) [clover] and Stirling (3,1); (1,0) is a food hex next to
# Edinburgh, (4,0) an energy hex next to Stirling, (2,1) a plain hex touching both castles.
# move Ann food (1,0): farm {(1,0)} = 1 (S-F1); first tile next to Edinburgh, unowned -> Ann (S-K2)
# move Bob energy (4,0): farm 1; takes Stirling
# over: Ann 1 + Edinburgh 5 = 6; Bob 1 + Stirling 5 = 6; tie on points -> owner of the clover castle
# (Edinburgh, Ann) among the tied wins (S-E4)
GOOD = f'''rules "{SCOTLAND}"
board "{CASTLES}"

position "two castles"   # S-K2 S-E2 S-E4
  players Ann, Bob
  move Ann food (1,0)
  move Bob energy (4,0)
  over
  expect Ann: 6, farms 1, castles 5
  expect Bob: 6, farms 1, castles 5
  expect castle "Edinburgh": Ann
  expect castle "Stirling": Bob
  expect winners: Ann
'''


def _write(tmp_path: Path, text: str, name: str = "mine.tests") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("name", ["scotland", "ireland"])
def test_the_bundled_tests_files_pass(name: str) -> None:
    """rules/NAME.tests holds every hand-computed position of tests/positions*/ for that game, and each
    passes against its ruleset."""
    folder = {"scotland": "positions", "ireland": "positions_ireland"}[name]
    outcomes = run_tests(ROOT / "rules" / f"{name}.tests")
    assert [o.position.name for o in outcomes] == sorted(p.stem for p in (TESTS / folder).glob("*.json"))
    failed = [d.render() for o in outcomes for d in o.failures]
    assert failed == []


@pytest.mark.parametrize(("folder", "tests", "boards"), [("positions", "scotland", "positions/scotland"),
                                                      ("positions_ireland", "ireland", "positions/ireland")])
def test_the_bundled_tests_files_are_the_reference_positions(folder: str, tests: str, boards: str) -> None:
    """rules/NAME.tests and the boards beside it are what tools/positions_to_tests.py makes of tests/positions*/
    (the wheel carries rules/, not tests/): the two copies of the hand computations cannot drift apart."""
    done = subprocess.run([sys.executable, "tools/positions_to_tests.py", f"tests/{folder}", f"rules/{tests}.tests",
                           "--boards", boards, "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_passing_file_says_so_in_one_line(tmp_path: Path, run_cli) -> None:
    """All positions hold: exit 0 and one line on stdout."""
    code, out, err = run_cli("test", _write(tmp_path, GOOD))
    assert (code, err) == (0, "")
    assert out.strip().splitlines() == [f"{tmp_path / 'mine.tests'}: 1 position passed"]


def test_a_bundled_ruleset_s_tests_by_name(run_cli) -> None:
    """`rebirth test scotland` runs rules/scotland.tests."""
    code, out, _ = run_cli("test", "scotland")
    assert code == 0 and out.strip().endswith("scotland.tests: 50 positions passed")


def test_positions_from_a_base_are_played_against_this_file_s_rules(tmp_path: Path, run_cli) -> None:
    """`positions from "scotland"` plays Scotland's 50 positions against the file's own rules (a variant that
    scores every farm twice: those scoring a farm fail, at Scotland's line); an unknown base is named."""
    (tmp_path / "v.rules").write_text('ruleset v extends "scotland"\n'
                                      "on place food, energy: score 2 * size(group(placed)) as farms   # S-F1\n")
    (tmp_path / "v.tests").write_text('rules "v.rules"\npositions from "scotland"\n')
    code, out, err = run_cli("test", tmp_path / "v.tests")
    assert code == 1 and "rules/scotland.tests:" in err and "expected farms 1, got 2" in err
    last = (out + err).strip().splitlines()[-1]  # the summary: "v.tests: N of 50 positions failed"
    failed = int(last.split(": ")[-1].split(" of ")[0])
    assert 0 < failed < 50 and last.endswith("of 50 positions failed"), last
    # the line before it says where those failures come from: the base's positions, changed by the variant
    assert f"note: {failed} of the 50 positions from 'scotland' fail against these rules" in err, err
    (tmp_path / "w.tests").write_text('rules "v.rules"\npositions from "scotlnd"\n')
    code, _, err = run_cli("test", tmp_path / "w.tests")
    assert code == 1 and "w.tests:2:16: positions from 'scotlnd'" in err and "did you mean 'scotland'?" in err, err


def test_a_wrong_expectation_fails_with_expected_and_got(tmp_path: Path, run_cli) -> None:
    """A wrong total and a wrong category: exit 1, the expectation's file:line:col, expected vs got."""
    bad = GOOD.replace("expect Ann: 6, farms 1, castles 5", "expect Ann: 7, farms 1, castles 6")
    path = _write(tmp_path, bad)
    code, out, err = run_cli("test", path)
    assert code == 1 and out == ""
    assert (f"{path}:9:3: position 'two castles' (line 4): Ann: expected score 7, got 6; expected castles 6, got 5"
            in err), err
    assert "hint: Ann has 6 (farms 1, castles 5)" in err
    assert err.strip().splitlines()[-1] == f"{path}: 1 of 1 position failed"


def test_a_wrong_owner_and_winner_fail(tmp_path: Path, run_cli) -> None:
    """Edinburgh is Ann's and Ann wins the tie (S-E4): expecting Bob fails on both lines."""
    bad = GOOD.replace('castle "Edinburgh": Ann', 'castle "Edinburgh": Bob').replace("winners: Ann", "winners: Bob")
    path = _write(tmp_path, bad)
    code, _, err = run_cli("test", path)
    assert code == 1
    assert f"{path}:11:3: position 'two castles' (line 4): castle 'Edinburgh': expected held by Bob, got Ann" in err
    assert f"{path}:13:3: position 'two castles' (line 4): expected winners Bob, got Ann" in err


def test_a_category_typo_is_named(tmp_path: Path) -> None:
    """`farm` is no category of Scotland: said so with a did-you-mean, not read as 0 points."""
    (o,) = run_tests(_write(tmp_path, GOOD.replace("farms 1, castles 5\n  expect Bob", "farm 1\n  expect Bob")))
    (d,) = o.failures
    assert "'farm' is not a category of this ruleset; did you mean 'farms'?" in d.message
    assert d.line == 9


def test_a_refusal_by_another_rule_fails(tmp_path: Path) -> None:
    """(1,1) is Edinburgh, a landmark that takes no tile: refused by S-P1, not S-P2."""
    text = GOOD.replace("  move Bob energy (4,0)\n", "  move Bob energy (1,1) refused S-P2\n").replace(
        "  over\n", "").split("  expect")[0] + "  expect Ann: 1\n"
    (o,) = run_tests(_write(tmp_path, text))
    (d,) = o.failures
    assert d.line == 7 and "expected the move refused by S-P2, got S-P1" in d.message, d.render()
    (ok,) = run_tests(_write(tmp_path, text.replace("S-P2", "S-P1")))
    assert ok.failures == []  # the position before the refusal: Ann's farm of 1


def test_a_refusal_that_does_not_happen_fails(tmp_path: Path) -> None:
    """A legal move marked refused: said at its line."""
    (o,) = run_tests(_write(tmp_path, GOOD.replace("move Bob energy (4,0)", "move Bob energy (4,0) refused S-P1")))
    assert [(d.line, d.message) for d in o.failures] == [
        (7, "position 'two castles' (line 4): expected this move refused by S-P1, but it is played")]


def test_an_unexpected_refusal_fails_at_its_move(tmp_path: Path) -> None:
    """A move the rules refuse, not marked: the move's line, the rule, and how to mark it."""
    (o,) = run_tests(_write(tmp_path, GOOD.replace("move Bob energy (4,0)", "move Bob energy (1,1)")))
    d = o.failures[0]
    assert d.line == 7 and "the move is refused" in d.message and "(S-P1)" in d.message
    assert d.hint == "if it should be, end the line with `refused S-P1`"


@pytest.mark.parametrize(("line", "col", "message"), [
    ("  move Ann food (1,0", 17, "unexpected character '('"),
    ("  move Ann food", 16, "expected the hex, as (q,r), or `pass` here; the line ends"),
    ("  expect Ann 6", 14, "expected ':', not '6'"),
    ("  expect Ann: farms two", 21, "expected the points in farms (a whole number), not 'two'"),
    ("  expect Ann: 6, 7", 18, "the total comes first, once"),
    ("  flip Ann", 3, "unknown statement 'flip'"),
    ('  expect castle "Edinburgh: Ann', 17, "unexpected character '\"'"),
])
def test_a_malformed_file_says_file_line_col(tmp_path: Path, run_cli, line: str, col: int, message: str) -> None:
    """A line that does not read: exit 1 with file:line:col, the line and a caret, nothing run."""
    path = _write(tmp_path, GOOD.replace("  over\n", line + "\n"))
    code, out, err = run_cli("test", path)
    assert code == 1 and out == ""
    assert err.startswith(f"{path}:8:{col}: {message}"), err
    assert line in err and "^" in err


def test_every_problem_of_a_file_at_once() -> None:
    """Two bad lines, two diagnostics, in the order of the file; a statement before any position too."""
    with pytest.raises(RebirthError) as ei:
        parse_tests('players Ann\nposition "a"\n  seed x\n  players Ann, Ann\n', "t.tests")
    assert [(d.line, d.col) for d in ei.value.diagnostics] == [(1, 1), (3, 8), (4, 3)]
    assert "belongs to a position" in ei.value.diagnostics[0].message


def test_a_record_problem_is_said_at_its_line(tmp_path: Path) -> None:
    """A tile the ruleset does not have: at the move's line, citing the tile mix."""
    (o,) = run_tests(_write(tmp_path, GOOD.replace("move Bob energy (4,0)", "move Bob wood (4,0)")))
    assert o.failures[0].line == 7 and "wood" in o.failures[0].message


def test_rules_replaces_the_files_ruleset(tmp_path: Path, run_cli) -> None:
    """--rules: the Korean castle tie (the placer takes a castle on a final tie, RULES.md) fails exactly the
    Scotland positions that rest on S-K5's owner keeping it."""
    code, _, err = run_cli("test", "scotland", "--rules", "variants/korean-castles")
    assert code == 1
    failed = sorted({line.split("position '")[1].split("'")[0] for line in err.splitlines() if "position '" in line})
    assert failed == ["s_e2_castles_five_each", "s_k5_owner_keeps_final_tie"]
    assert err.strip().splitlines()[-1].endswith("scotland.tests: 2 of 50 positions failed")


def test_the_help_shows_the_format(run_cli) -> None:
    """`rebirth test --help` shows a whole position and names the manual's section."""
    code, out, _ = run_cli("test", "--help")
    assert code == 0
    for text in ('position "a castle is taken"', "expect winners: Ann", "refused H-P1", "Tests files"):
        assert text in out


def test_the_manual_s_example_passes(tmp_path: Path) -> None:
    """The example of docs/formats.md ("Tests files") holds on the board it describes (rules/positions/scotland/castles.json)
    and the Scotland rules: its numbers are the hand computation of GOOD above."""
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8").split("## Tests files")[1]
    example = text.split("```\n")[1]
    example = example.replace('rules "hills.rules"', f'rules "{SCOTLAND}"').replace('board "small.json"',
                                                                                   f'board "{CASTLES}"')
    outcomes = run_tests(_write(tmp_path, example))
    assert [o.position.name for o in outcomes] == ["the first tile next to a castle takes it", "a castle takes no tile"]
    assert [d.render() for o in outcomes for d in o.failures] == []
    # the failure the manual shows, for the edit it names
    shown = text.split("```\n")[3].split("\n")
    edited = _write(tmp_path, example.replace("expect Ann: 6, farms 1, castles 5", "expect Ann: 7, farms 1, castles 6"),
                    "hills.tests")
    (failure,) = [d for o in run_tests(edited) for d in o.failures]
    assert failure.render().split("\n") == [shown[0].replace("hills.tests", str(edited)), *shown[1:4]]


def test_a_record_file_starts_a_position(tmp_path: Path, run_cli) -> None:
    """`record` reads a game record: examples/scenario-120.json is RULES.md's S-E5 example, 87 on the track,
    5 icons in an incomplete area, 3 castles at 5 and missions 5 + 5 + 3: Ann 87 + 5 + 15 + 13 = 120."""
    path = _write(tmp_path, f'rules "{SCOTLAND}"\n\nposition "S-E5"   # S-E5\n'
                            f'  record "{(ROOT / "examples" / "scenario-120.json").as_posix()}"\n'
                            "  expect Ann: 120, incomplete_areas 5, castles 15, missions 13\n  expect winners: Ann\n")
    code, out, err = run_cli("test", path)
    assert code == 0, err
    bad = path.read_text().replace("Ann: 120", "Ann: 121")
    (o,) = run_tests(_write(tmp_path, bad))
    assert [d.message for d in o.failures] == ["position 'S-E5' (line 3): Ann: expected score 121, got 120"]


def test_a_broken_ruleset_is_the_rules_file_s_problem(tmp_path: Path, run_cli) -> None:
    """A tests file naming a rules file that does not parse: the rules file's own diagnostic, exit 1."""
    rules = tmp_path / "broken.rules"
    rules.write_text('ruleset broken "B"\nplace food on\n', encoding="utf-8")
    path = _write(tmp_path, GOOD.replace(SCOTLAND, "broken.rules"))
    code, _, err = run_cli("test", path)
    assert code == 1 and err.startswith(f"{rules}:2:"), err


def test_a_missing_board_fails_at_its_line(tmp_path: Path) -> None:
    """A board file that is not there: the position fails at the file's `board` line."""
    (o,) = run_tests(_write(tmp_path, GOOD.replace(CASTLES, "nowhere.json")))
    assert o.failures and o.failures[0].line == 2 and "nowhere.json" in o.failures[0].message


def test_players_may_not_take_a_word_of_the_format(tmp_path: Path) -> None:
    """`expect winners: ...` is the winners: a player called winners is refused where the players are named."""
    with pytest.raises(RebirthError) as ei:
        parse_tests('position "a"\n  players Ann, winners\n', "t.tests")
    (d,) = ei.value.diagnostics
    assert (d.line, d.col) == (2, 16) and "may not be called 'winners'" in d.message


TOKENS = ["position", '"p"', "players", "Ann", "Bob", ",", ":", "move", "food", "settlement:3", "(1,0)", "(-2,3)",
          "pass", "refused", "S-P1", "expect", "winners", "cards", "castle", '"Edinburgh"', "nobody", "7", "farms",
          "over", "seed", "in", "turn", "order", "choose", "decline", "holds", "none", "set", "aside", "#", '"',
          "(", "\n", "\n", " ", "rules", "board", "record", "é", "\\", "-"]


@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_any_text_reads_or_is_refused_with_a_place_inside_it(text: str) -> None:
    """Whatever the text, reading it gives a tests file or the project's error, every diagnostic at a line
    and column inside the text (never another exception)."""
    lines = text.split("\n")
    try:
        parse_tests(text, "t.tests")
    except RebirthError as e:
        for d in e.diagnostics:
            assert 1 <= d.line <= len(lines), d
            assert 1 <= d.col <= len(lines[d.line - 1]) + 1, d


def test_a_player_count_names_them_as_play_does(tmp_path: Path) -> None:
    """`players 2` is Ann, Bob: the names `rebirth play --players 2` gives."""
    from rebirth_dsl.play.loop import DEFAULT_NAMES
    from rebirth_dsl.records.testfile import PLAY_NAMES

    assert PLAY_NAMES == DEFAULT_NAMES
    (o,) = run_tests(_write(tmp_path, GOOD.replace("players Ann, Bob", "players 2")))
    assert o.failures == []
    with pytest.raises(RebirthError, match="give 1 to 6 players"):
        parse_tests('position "a"\n  players 9\n', "t.tests")


LINES = ["  move Ann food (2,1)", "  move Bob energy (9,9)", "  move Cat food (0,2)", "  move Ann wood (1,0)",
         "  move Ann settlement:9 (1,2)", "  move Bob food pass", "  move Ann food (2,0) refused S-P1",
         "  move Ann food (2,0) choose Edinburgh: decline", "  move Ann food (2,0) choose Edinburgh: double \"X\"",
         "  over", "  in turn order", "  seed 3", "  scores Ann 5, Zed 2", "  holds Ann: \"Nope\"", "  holds Bob: none",
         "  set aside Ann: food, energy", "  supply Bob: food", "  missions \"Pilgrim\"", "  missions none",
         "  deck mission: \"Mayor\"", "  deck nothing: none", "  setup refused S-C2", "  expect Ann: 3",
         "  expect Zed: 1", "  expect Ann: farms 1, wood 2", "  expect castle \"Nowhere\": Ann",
         "  expect cathedral \"Edinburgh\": nobody", "  expect winners: Ann", "  expect cards Ann: none",
         "  expect cards Bob: \"Mayor\"", "  record \"missing.json\"", "  board \"nowhere.json\"", "  players Ann",
         "  players Ann, Bob, Cat, Dan, Eve"]


@given(st.lists(st.sampled_from(LINES), max_size=8))
def test_any_position_is_judged_or_refused(lines: list[str]) -> None:
    """Whatever a position says (moves off the board, tiles and cards that do not exist, unknown players,
    setups the rules refuse), `rebirth test` judges it or refuses the file: never another exception."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.tests"
        path.write_text(GOOD + "\n".join(lines) + "\n", encoding="utf-8")
        try:
            outcomes = run_tests(path)
        except RebirthError as e:
            assert all(d.message for d in e.diagnostics)
            return
        for d in outcomes[0].failures:
            assert d.line >= 1 and d.message.startswith("position 'two castles' (line 4): ")


def test_who_fulfilled_a_public_mission(tmp_path: Path) -> None:
    """rules/ireland.tests' i_m1_public_first_and_later (hand-computed there: Ann fulfils Wind farmer at move
    6, Bob at move 7, Cat at move 8), with the order of fulfilment expected: it holds, and another order, a
    card that is not face up and a face-up card nobody fulfilled are each judged."""
    text = (ROOT / "rules" / "ireland.tests").read_text(encoding="utf-8")
    block = "position " + text.split("\nposition ")[[b.split()[0] for b in text.split("\nposition ")].index(
        '"i_m1_public_first_and_later"')]
    board = (ROOT / "rules" / "positions" / "ireland" / "wind_row.json").as_posix()
    head = f'rules "{(ROOT / "rules" / "ireland.rules").as_posix()}"\n\n'
    body = block.replace('board "positions/ireland/wind_row.json"', f'board "{board}"').rstrip("\n")
    good = body + '\n  expect public "Wind farmer": Ann, Bob, Cat\n  expect public "Castle keeper": none\n'
    (o,) = run_tests(_write(tmp_path, head + good))
    assert o.failures == []
    bad = body + ('\n  expect public "Wind farmer": Bob, Ann, Cat\n  expect public "Harvest": Ann\n'
                  '  expect public "Castle keeper": Ann\n')
    (o,) = run_tests(_write(tmp_path, head + bad))
    said = [d.message.split("): ", 1)[1] for d in o.failures]
    assert said[0] == ("public mission 'Wind farmer': expected fulfilled by Bob, Ann, Cat, got Ann, Bob, Cat "
                       "(in the order they fulfilled it)")
    assert said[1].startswith("'Harvest' is not a face-up public mission")  # the 9th card: in the deck
    assert said[2] == "public mission 'Castle keeper': expected fulfilled by Ann, got none (in the order they fulfilled it)"
