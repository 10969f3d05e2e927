"""Errors that say what the author did (issue 22, item 5): a block never closed is named at its `{` with the
`}` to insert; a block's statement outside its block names the block; an undeclared name says how to
declare it, once however often it is used; problems come in reading order, in the LSP's shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BOARDS, RULES, applied

from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.errors import Diagnostic, RulesSyntaxError
from rebirth_dsl.lang.parser import load_rules, parse_text

BASE = f'ruleset v "V" extends "{RULES / "scotland.rules"}"\n'


def syntax_error(text: str) -> Diagnostic:
    with pytest.raises(RulesSyntaxError) as ei:
        parse_text(text, "v.rules")
    [d] = ei.value.diagnostics
    return d


def test_a_block_never_closed_is_named_at_its_brace_with_the_brace_to_insert() -> None:
    """The `}` of an area block left out: named at the `{` of line 2 (not at `end`, where the parser
    stopped); the fix puts the `}` on a line after the block's last statement, and then the file parses."""
    text = ('ruleset v "V"\n'
            'area settlement {\n'
            '  pay size 4: 12, 8, 5   # I-A1\n'
            '\n'
            'end {\n'
            '  incomplete settlement: influence as incomplete_areas\n'
            '}\n')
    d = syntax_error(text)
    assert d.message == "the `{` opened at line 2 is never closed"
    assert (d.line, d.col, d.end_col) == (2, 17, 18) and d.code == "syntax"
    assert "`end` at line 5" in (d.hint or "")
    [fix] = d.fixes
    assert (fix.span.line, fix.span.col, fix.text) == (4, 1, "}\n")  # after line 3, before the blank line
    parse_text(applied(text, fix), "v.rules")  # mended


def test_a_block_open_at_the_end_of_the_file() -> None:
    """The file ends inside a block: the fix closes it at the end, at the block's indent."""
    text = 'ruleset v "V"\ntiles {\n  food x12 # S-C2\n'
    d = syntax_error(text)
    assert d.message == "the `{` opened at line 2 is never closed" and (d.line, d.col) == (2, 7)
    [fix] = d.fixes
    assert (fix.span.line, fix.text) == (4, "}\n")
    parse_text(applied(text, fix), "v.rules")
    no_newline = 'ruleset v "V"\nsetup {\n  hand 1'
    [fix] = syntax_error(no_newline).fixes
    assert applied(no_newline, fix) == 'ruleset v "V"\nsetup {\n  hand 1\n}'


def test_a_closed_block_with_a_bad_statement_is_not_called_unclosed() -> None:
    """Balanced braces: the parser's own message, at the bad word."""
    d = syntax_error('ruleset v "V"\ntiles {\n  food 12\n}\n')
    assert d.message.startswith("unexpected '12'") and d.line == 3


def test_a_brace_that_closes_nothing() -> None:
    d = syntax_error('ruleset v "V"\ntiles {\n  food x12\n}\n}\n')
    assert d.message.startswith("this `}` closes no block") and (d.line, d.col) == (5, 1)


@pytest.mark.parametrize(("statement", "says"), [
    ("pay size 3: 9, 4, 1", "`pay size` belongs inside `area K { ... }`"),
    ("rank by influence", "`rank by` belongs inside `area K { ... }`"),
    ("over adjacent", "`over adjacent` belongs inside `majority K { ... }`"),
    ('card "Gift" 3: always', "`card` belongs inside `deck NAME { ... }`"),
    ("hand 2", "`hand` belongs inside `setup { ... }`"),
    ("players 4: return food x3", "`players N: ...` belongs inside `setup { ... }`"),
    ("winner ties: owner(castle with clover) among tied", "`winner ties` belongs inside `end { ... }`"),
    ("food x12", "`food x12` belongs inside `tiles { ... }`"),
])
def test_a_block_statement_outside_its_block_names_the_block(statement: str, says: str) -> None:
    """Not a list of every keyword that could stand there: the block the statement belongs in."""
    d = syntax_error(f'ruleset v "V"\nplayers 2 to 4\n{statement}\n')
    assert d.message.startswith(says) and d.line == 3, d.message
    assert "expected" not in d.message


def test_a_block_statement_in_the_wrong_block() -> None:
    d = syntax_error('ruleset v "V"\nmajority castle {\n  over adjacent\n  pay size 2: 5, 3\n}\n')
    assert d.message == "`pay size` belongs inside `area K { ... }`" and (d.line, d.col, d.end_col) == (4, 3, 6)


def test_an_undeclared_landmark_kind_is_one_diagnostic_saying_how_to_declare_it(tmp_path: Path) -> None:
    """`well` used by a trigger and by a mission, never declared: one diagnostic (before, two: "unknown
    landmark kind" and "is not a landmark kind", and a third saying the board has no wells), at its first
    use, saying `landmark well`; its fix declares it, after which nothing is said of `well`."""
    text = BASE + ('on first touch well: score 2 as wells   # X-1\n'
                   'deck mission {\n  when empty: draw nothing\n'
                   '  card "Well" 3: count(touched(me, well)) >= 2\n}\n')
    f = tmp_path / "v.rules"
    f.write_text(text)
    said = [d for d in check(load_rules(f)) if "well" in d.message]
    assert [(d.line, d.col, d.message) for d in said] == [(2, 16, "unknown landmark kind `well`")]
    [d] = said
    assert d.code == "undeclared" and d.hint == "declare it with `landmark well` (it is used at line 5 too)"
    [fix] = d.fixes
    assert (fix.span.line, fix.span.col, fix.text) == (2, 1, "landmark well\n")  # under the header
    f.write_text(applied(text, fix))
    assert not [d for d in check(load_rules(f)) if "`well`" in d.message]


def test_a_typo_keeps_its_did_you_mean_as_the_fix(tmp_path: Path) -> None:
    """A name close to a declared one is a typo: "did you mean", and the fix replaces the word."""
    text = BASE + "place food on food, enrgy   # S-P2\n"
    f = tmp_path / "v.rules"
    f.write_text(text)
    [d] = check(load_rules(f))
    assert d.hint == "did you mean `energy`?" and d.code == "names"
    [fix] = d.fixes
    assert applied(text, fix).endswith("place food on food, energy   # S-P2\n")


def test_an_undeclared_tile_kind_used_twice_is_one_diagnostic(tmp_path: Path) -> None:
    f = tmp_path / "v.rules"
    f.write_text(BASE + "place wheat on plain\non place wheat: score 1 as farms\n")
    said = [d for d in check(load_rules(f)) if "wheat" in d.message]
    assert len(said) == 1 and said[0].line == 2 and "tiles { wheat x12 }" in (said[0].hint or "")


def test_problems_come_in_reading_order(tmp_path: Path) -> None:
    """Diagnostics of several checks, sorted by line and column (before, by the check that found them)."""
    f = tmp_path / "v.rules"
    f.write_text(BASE + "on first touch well: score 2 as wells\n"
                 'deck mission {\n  card "Hill" 3: count(near(tiles(me), hill)) >= 2\n}\n'
                 "place food on food, enrgy\n")
    found = check(load_rules(f))
    places = [(d.line, d.col) for d in found if d.line]
    assert places == sorted(places) and len(places) >= 3, [d.render() for d in found]


def test_fixes_travel_in_the_lsp_shape(tmp_path: Path) -> None:
    """to_lsp carries a diagnostic's fixes in its `data`, as LSP edits (0-based), for the code action."""
    d = syntax_error('ruleset v "V"\ntiles {\n  food x12\n')
    lsp = d.to_lsp()
    assert lsp["range"] == {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 7}}
    assert lsp["data"] == {"fixes": [{"title": "close the block with `}`", "newText": "}\n",
                                      "range": {"start": {"line": 3, "character": 0},
                                                "end": {"line": 3, "character": 0}}}]}


def test_an_undeclared_neutral_tag_is_one_diagnostic(tmp_path: Path) -> None:
    """`neutral 32 on nutral`: the unknown tag, not also "the board has 0 nutral hexes"."""
    f = tmp_path / "v.rules"
    f.write_text(BASE + "setup {\n  players 2: neutral 32 on nutral   # S-U2\n}\n")
    board = BOARDS / "scotland.json"
    said = [d.message for d in check(load_rules(f), load_board(board), str(board)) if "nutral" in d.message]
    assert said == ["unknown tag `nutral`"]
