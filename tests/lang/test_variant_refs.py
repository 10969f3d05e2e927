"""A variant author's file outside the checkout (issue 22, items 1-3): `extends` a bundled game by name from
any folder, one resolver for the CLI, the API, the editor and the web; a ruleset's `board` statement; and
categories that are inherited or declared, so that a misspelt one is an error instead of a second scoring.

Every test works in a temporary folder that is also the current folder: nothing is found through the
checkout's own `rules/` beside the file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, beyond_bundled_findings

from rebirth_dsl.bundle import bundled
from rebirth_dsl.check.checks import check
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.records.resources import board_for, rules_and_board

SCOTLAND = ROOT / "rules" / "scotland.rules"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder of the author's own, and the current folder."""
    assert not tmp_path.resolve().is_relative_to(ROOT.resolve())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def board_of_check(rules: Path, board: str | None = None) -> list:
    """`rebirth check` of a file, as the command picks its board."""
    from rebirth_dsl.board.view import load_board_view

    loaded = load_rules(rules)
    b = board_for(rules, board, rules=loaded, strict=False)
    # the bundled base's own known findings (conftest.BUNDLED_FINDINGS) are the base's, not the variant's
    return beyond_bundled_findings(check(loaded, load_board_view(b) if b else None, board_file=str(b or "")))


# ----- 1. extends a bundled game by name ----------------------------------------------------------
@pytest.mark.parametrize("ext", ["scotland", "scotland.rules"])
def test_extends_a_bundled_name_from_any_folder(folder: Path, ext: str) -> None:
    """Both spellings find the bundled Scotland from a folder that holds no copy of it."""
    f = write(folder / "hills.rules", f'ruleset hills extends "{ext}"\n')
    rules = load_rules(f)
    # every statement is Scotland's: the variant adds none
    assert len(rules.statements) == len(load_rules(SCOTLAND).statements)
    assert rules.header.name == "hills"
    assert board_of_check(f) == []


def test_extends_a_path_relative_to_the_extending_file_not_the_current_folder(folder: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A path is read from the extending file's folder, wherever the command runs; a file beside the
    variant wins over the bundled game of the same name."""
    write(folder / "base" / "mine.rules", SCOTLAND.read_text().replace("pay size 2: 5, 3", "pay size 2: 7, 1"))
    v = write(folder / "variants" / "v.rules", 'ruleset v extends "../base/mine.rules"\n')
    own = write(folder / "variants" / "scotland.rules", 'ruleset own extends "../base/mine"\n')
    w = write(folder / "variants" / "w.rules", 'ruleset w extends "scotland"\n')
    monkeypatch.chdir(folder / "base")
    assert "pay size 2: 7, 1" in load_rules(v).sources[str((folder / "base" / "mine.rules").resolve())]
    chain = load_rules(w).sources
    assert str(own.resolve()) in chain  # the author's scotland.rules beside w.rules, not the bundled one
    assert str(SCOTLAND.resolve()) not in chain


def test_an_unknown_base_lists_the_bundled_names_with_a_did_you_mean(folder: Path) -> None:
    f = write(folder / "hills.rules", 'ruleset hills extends "scotlnd"\n')
    with pytest.raises(RebirthError) as e:
        load_rules(f)
    msg = e.value.diagnostics[0].message
    assert "did you mean 'scotland'?" in msg
    assert all(name in msg for name in bundled("rules")), msg
    assert e.value.diagnostics[0].line == 1


def test_the_api_and_the_cli_find_the_bundled_base(folder: Path, run_cli) -> None:
    from rebirth_dsl import api

    write(folder / "hills.rules", 'ruleset hills "Hills" extends "scotland"\n')
    assert api.load("hills.rules").ruleset.title == "Hills"
    code, out, err = run_cli("check", "hills.rules")
    assert code == 0 and "ok" in out, err


def test_the_editor_finds_the_bundled_base_of_an_unsaved_buffer(folder: Path) -> None:
    from rebirth_dsl.lsp.analysis import Analyser

    text = 'ruleset hills extends "scotland"\n'
    a = Analyser().analyse(text, folder / "hills.rules")
    assert a.problems == []
    assert a.base_path == SCOTLAND.resolve()
    bad = Analyser().analyse('ruleset hills extends "scotlnd"\n', folder / "hills.rules")
    assert len(bad.problems) == 1 and "did you mean 'scotland'?" in bad.problems[0].message


def test_a_web_upload_extends_by_name_and_plays_on_the_board_it_names(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from rebirth_dsl.web.hub import Hub, WebError

    hub = Hub(tmp_path / "store", agent_delay=0)
    seats = [{"name": "Ann", "agent": "human"}, {"name": "Bob", "agent": "human"}]

    def create(text: str) -> object:
        return hub.create({"rules_file": {"name": "v.rules", "text": text}, "seats": seats})[0]

    # no board chosen and no `board` statement: its base's
    assert create('ruleset w extends "scotland"\n').files["board"] == "boards/scotland.json"  # type: ignore[attr-defined]
    # `board ireland` is the board it is checked on: Scotland's rules do not declare Ireland's wind tags
    with pytest.raises(WebError) as e:
        create('ruleset v extends "scotland"\nboard ireland\n')
    assert "tag 'wind' is not declared by the rules" in e.value.message
    # a board file the server was not sent cannot be read
    with pytest.raises(WebError) as e:
        create('ruleset v extends "scotland"\nboard "wells.json"\n')
    assert "upload that board file" in e.value.message


# ----- 2. a ruleset names its board -------------------------------------------------------------
def test_a_board_file_is_beside_the_rules_file_and_used_unless_overridden(folder: Path, run_cli) -> None:
    (folder / "maps").mkdir()
    board = shutil.copy(ROOT / "boards" / "scotland.json", folder / "maps" / "wells.json")
    f = write(folder / "maps" / "hills.rules", 'ruleset hills extends "scotland"\nboard "wells.json"\n')
    assert board_for(f) == Path(board)
    assert rules_and_board(str(f), None)[1] == Path(board)
    assert board_for(f, "ireland") == bundled("boards")["ireland"]  # --board overrides the statement
    code, out, err = run_cli("check", str(f))
    assert code == 0 and "wells.json" in out, err


def test_a_bundled_board_by_name_and_inheritance(folder: Path) -> None:
    """`board ireland` names the bundled board; a variant of that file plays on it too, unless it names its
    own; a path in an inherited statement stays relative to the file that wrote it."""
    base = write(folder / "a" / "base.rules", 'ruleset base extends "scotland"\nboard ireland\n')
    child = write(folder / "b" / "child.rules", 'ruleset child extends "../a/base.rules"\n')
    own = write(folder / "b" / "own.rules", 'ruleset own extends "../a/base.rules"\nboard scotland\n')
    assert board_for(base) == bundled("boards")["ireland"]
    assert board_for(child) == bundled("boards")["ireland"]
    assert board_for(own) == bundled("boards")["scotland"]
    shutil.copy(ROOT / "boards" / "scotland.json", folder / "a" / "wells.json")
    write(base, 'ruleset base extends "scotland"\nboard "wells.json"\n')
    assert board_for(child) == folder / "a" / "wells.json"


@pytest.mark.parametrize(("line", "expect"), [("board scotlnd", "did you mean 'scotland'?"),
                                               ('board "wells.json"', "board file 'wells.json' not found")])
def test_a_board_that_is_not_there_is_an_error_at_the_statement(folder: Path, run_cli, line: str, expect: str) -> None:
    f = write(folder / "hills.rules", f'ruleset hills extends "scotland"\n{line}\n')
    problems = check(load_rules(f))
    assert [(d.line, d.code) for d in problems] == [(2, "unknown-board")], problems
    assert expect in problems[0].message
    code, _, err = run_cli("play", "--rules", str(f), "--quiet", "-o", str(folder / "g.json"))
    assert code == 1 and "hills.rules:2:1: " in err and expect in err, err


def test_the_editor_checks_against_the_board_the_buffer_names(folder: Path) -> None:
    from rebirth_dsl.lsp.analysis import Analyser

    a = Analyser().analyse('ruleset hills extends "scotland"\nboard ireland\n', folder / "hills.rules")
    assert a.board_path == bundled("boards")["ireland"]
    assert Analyser(board="scotland").analyse('ruleset hills extends "scotland"\nboard ireland\n',
                                              folder / "hills.rules").board_path == bundled("boards")["scotland"]


# ----- 3. categories are inherited or declared ----------------------------------------------------
def test_a_misspelt_category_is_an_error_with_a_did_you_mean_and_its_fixes(folder: Path) -> None:
    """The issue's case: `as farm` beside Scotland's `farms` would add a second farm scoring."""
    line = "on place food, energy: score 2 * size(group(placed)) as farm"
    f = write(folder / "hills.rules", f'ruleset hills extends "scotland"\n{line}\n')
    problems = [d for d in board_of_check(f) if d.severity == "error"]
    assert [(d.code, d.line, d.col, d.end_col) for d in problems] == [
        ("unknown-category", 2, line.index(" farm") + 2, len(line) + 1)], problems
    d = problems[0]
    assert "did you mean `farms`?" in d.message
    change, declare = d.fixes
    assert (change.text, change.span.line, change.span.col, change.span.end_col) == ("farms", 2, d.col, d.end_col)
    assert (declare.text, declare.span.line, declare.span.col) == ("category farm\n", 2, 1)


def test_a_declared_or_a_new_unlike_category_is_accepted(folder: Path) -> None:
    declared = write(folder / "a.rules", 'ruleset a extends "scotland"\ncategory farm\n'
                     'on place energy: score 1 as farm\n')
    new = write(folder / "b.rules", 'ruleset b extends "scotland"\non place energy: score 1 as wells\n')
    assert board_of_check(declared) == []
    assert board_of_check(new) == []


def test_a_replaced_base_statement_keeps_its_category_known(folder: Path) -> None:
    """Replacing the base's farm scoring leaves no `farms` statement of the base in the merged rules; the
    category is still the base's."""
    f = write(folder / "a.rules", 'ruleset a extends "scotland"\n'
              "on place food, energy: score 2 * size(group(placed)) as farms\n"
              "area settlement as area {\n  pay size 3: 9, 4\n}\n")
    problems = board_of_check(f)
    assert [(d.code, d.line) for d in problems] == [("unknown-category", 3)], problems  # `area` for `areas`


def test_a_second_scoring_of_one_event_into_a_base_category_warns_with_both_places(folder: Path) -> None:
    f = write(folder / "a.rules", 'ruleset a extends "scotland"\non place food: score 1 as farms\n')
    problems = board_of_check(f)
    assert [(d.code, d.severity, d.line) for d in problems] == [("double-scoring", "warning", 2)], problems
    (what, where), = problems[0].related
    base_line = next(i for i, ln in enumerate(SCOTLAND.read_text().splitlines(), 1)
                     if ln.startswith("on place food, energy: score size(group(placed)) as farms"))
    assert (Path(where.file).resolve(), where.line) == (SCOTLAND.resolve(), base_line)
    assert problems[0].to_lsp()["related"][0]["range"]["start"]["line"] == base_line - 1  # type: ignore[index]


def test_category_and_board_statements_parse_to_their_nodes() -> None:
    from rebirth_dsl.lang.parser import parse_text

    r = parse_text('ruleset x\nboard "w.json"\nboard ireland\ncategory wells, springs\n')
    assert [type(s) for s in r.statements] == [A.BoardDecl, A.BoardDecl, A.CategoryDecl]
    assert (r.statements[0].ref, r.statements[0].named, r.statements[1].named) == ("w.json", False, True)  # type: ignore[union-attr]


def test_the_editor_completes_extends_with_the_bundled_names(folder: Path) -> None:
    from rebirth_dsl.lsp.analysis import Analyser, completions

    text = 'ruleset hills extends "'
    a = Analyser().analyse(text, folder / "hills.rules")
    labels = [c.label for c in completions(a, a.symbols, 0, len(text))]
    assert set(bundled("rules")) <= set(labels), labels


def test_the_editor_reads_the_buffer_s_header_not_the_file_on_disk(folder: Path) -> None:
    """A buffer that no longer extends Ireland is not checked against Ireland's board because the saved
    file still does."""
    from rebirth_dsl.lsp.analysis import Analyser

    f = write(folder / "v.rules", 'ruleset v extends "ireland"\n')
    assert Analyser().analyse(f.read_text(), f).board_path == bundled("boards")["ireland"]
    assert Analyser().analyse("ruleset v\n", f).board_path is None
