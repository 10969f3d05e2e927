"""`rebirth fmt` (rebirth_dsl/lang/fmt.py): the canonical layout changes no parse, keeps every comment with
the statements whose rule ids it cites, is idempotent, and the bundled rules are laid out by it."""

from __future__ import annotations

import dataclasses
import io
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, RULES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth_dsl.errors import RulesSyntaxError, Span
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.fmt import format_rules
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.lang.parser import parse_text

pytestmark = pytest.mark.usefixtures("module_cache")  # conftest: a cache folder of this module's own

BUNDLED = sorted(RULES.rglob("*.rules"))
EVERY_FILE = sorted(p for p in ROOT.rglob("*.rules") if ".git" not in p.parts)  # bundled and tests' own

# the tokens of the rules language, as the tests see them (independently of the formatter's own reading)
TOKEN = re.compile(r'"[^"\n]*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|>=|<=|==|!=|[<>{}():,=+\-*/]')


def tokens(text: str) -> list[str]:
    """Every token and comment of a text, in order (comments without their trailing spaces)."""
    return [t.rstrip() for t in TOKEN.findall(text)]


def shape(node: Any) -> Any:
    """An AST as plain data with every span (and the source text) left out: what formatting must keep."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(
            (f.name, shape(getattr(node, f.name))) for f in dataclasses.fields(node)
            if f.name not in ("span", "file", "source", "sources"))
    if isinstance(node, tuple | list):
        return tuple(shape(x) for x in node)
    return node


def cited(rules: A.Rules) -> list[tuple[str, tuple[str, ...]]]:
    """For every node of the AST with a span, in order: the rule ids on the lines it covers (what a refused
    move or a scoring event cites, rebirth_dsl/check/symbols.Tables.ids)."""
    table = comment_ids(rules.source)
    out: list[tuple[str, tuple[str, ...]]] = []
    todo: list[Any] = [rules.header, *rules.statements]
    while todo:
        node = todo.pop(0)
        if isinstance(node, tuple | list):
            todo[:0] = list(node)
            continue
        if not (dataclasses.is_dataclass(node) and not isinstance(node, type)) or isinstance(node, Span):
            continue
        sp = getattr(node, "span", None)
        if isinstance(sp, Span) and sp.line:
            ids = tuple(i for ln in range(sp.line, (sp.end_line or sp.line) + 1) for i in table.get(ln, ()))
            out.append((type(node).__name__, ids))
        todo[:0] = [getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "span"]
    return out


def assert_same_meaning(before: str, after: str) -> None:
    """The formatted text parses to the same AST, with the same tokens, comments and cited rule ids."""
    a, b = parse_text(before, "f.rules"), parse_text(after, "f.rules")
    assert shape(b) == shape(a)
    assert tokens(after) == tokens(before)
    assert cited(b) == cited(a)


def test_the_comparison_sees_a_changed_meaning_or_rule_id() -> None:
    """The properties below are not vacuous: a changed number, a moved rule id or a lost comment shows."""
    base = "ruleset x\nplayers 2 to 4  # S-U1\nturns clockwise\n"
    with pytest.raises(AssertionError):
        assert_same_meaning(base, base.replace("4", "3"))
    with pytest.raises(AssertionError):
        assert_same_meaning(base, "ruleset x\nplayers 2 to 4\nturns clockwise  # S-U1\n")
    with pytest.raises(AssertionError):
        assert_same_meaning(base, "ruleset x\nplayers 2 to 4\nturns clockwise\n")


# ----- the files of the repository -------------------------------------------------------------------------
def test_every_rules_file_of_the_repository_is_found() -> None:
    """The properties below run over the bundled rules and the tests' own rules files."""
    assert {RULES / "scotland.rules", RULES / "ireland.rules"} <= set(BUNDLED)
    assert len(EVERY_FILE) > len(BUNDLED)


@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: str(p.relative_to(ROOT)))
def test_formatting_every_rules_file_is_idempotent_and_keeps_its_meaning(path: Path) -> None:
    """Formatting a formatted file changes nothing, and formatting changes no parse and no cited rule id."""
    text = path.read_text(encoding="utf-8")
    once = format_rules(text, str(path))
    assert format_rules(once, str(path)) == once
    assert_same_meaning(text, once)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_bundled_rules_are_formatted(path: Path) -> None:
    """The bundled rulesets and variants are in the canonical layout (run `rebirth fmt rules` after an edit)."""
    text = path.read_text(encoding="utf-8")
    assert format_rules(text, str(path)) == text


def test_fmt_check_passes_over_the_bundled_rules(run_cli: Any) -> None:
    """What CI runs: `rebirth fmt --check rules` lists nothing and exits 0."""
    code, out, err = run_cli("fmt", "--check", RULES)
    assert (code, out) == (0, ""), err


# ----- the layout ------------------------------------------------------------------------------------------
MESSY = '''

# head
ruleset   x "T"   # the header



players 2 to 4 turns clockwise
tiles { food x12 energy x3 }
tiles {  # S-C2
    food   x1

  # inside

    energy x2   # S-C2


   # before the close

}
setup{players 4:return food x3,settlement:2,settlement : 3 x1 }
on place food , energy : score size ( group ( placed ) ) * (1+2) as farms
deck mission {
  card "A" 3: count(touched(me, cathedral)) >= 8
          and most(count(tiles(me)))   # S-M3
  # last
}
# end'''

TIDY = '''# head
ruleset x "T"                                                        # the header

players 2 to 4
turns clockwise
tiles {
  food x12
  energy x3
}
tiles {                                                              # S-C2
  food x1

  # inside

  energy x2                                                          # S-C2

  # before the close
}
setup {
  players 4: return food x3, settlement:2, settlement:3 x1
}
on place food, energy: score size(group(placed)) * (1 + 2) as farms
deck mission {
  card "A" 3: count(touched(me, cathedral)) >= 8
      and most(count(tiles(me)))                                     # S-M3
  # last
}
# end
'''


def test_the_canonical_layout() -> None:
    """One statement a line, blocks indented by two, a broken statement's rest by four more; one space
    between tokens but none before `,` `:` `)`, after `(`, before a call's `(` or around a tile value's
    `:`; blank lines at most one in a row and none at the edges of the file or of a block; trailing
    comments at column 70; full-line comments indented as the line below them."""
    assert format_rules(MESSY) == TIDY
    assert format_rules(TIDY) == TIDY
    assert_same_meaning(MESSY, TIDY)


def test_a_line_with_a_trailing_comment_is_never_split() -> None:
    """The rule ids of a comment belong to every statement on its line (docs/language.md, "Comments and rule
    ids"): splitting the line would take them from all but the last statement."""
    text = 'ruleset x\none tile per hex turns clockwise  # S-P1\nplayers 2 to 4\n'
    out = format_rules(text)
    assert out.splitlines()[1] == "one tile per hex turns clockwise" + " " * 37 + "# S-P1"
    assert_same_meaning(text, out)


def code(n: int) -> str:
    """A statement whose line is `n` characters long (a `place` with a long list of hex kinds)."""
    head = "place food on "
    names = "p" * (n - len(head))
    return head + names


def test_trailing_comments_share_a_column_per_run() -> None:
    """A run of consecutive commented lines shares column 70; one line too long for it has its comment
    three spaces after its code; two or more move the whole run to column 90; a blank line ends a run."""
    rows = [code(20), code(75), code(30), "", code(20), code(75), code(80), code(30), "", code(95), code(20)]
    text = "ruleset x\n" + "\n".join(f"{r}  # S-P{i}" if r else "" for i, r in enumerate(rows)) + "\n"
    out = format_rules(text).splitlines()[1:]
    cols = [line.index("#") if line else None for line in out]
    # run 1: 20, 75, 30 -> one line past column 69: it goes 3 spaces after its 75 characters (column 78)
    # run 2: 20, 75, 80, 30 -> two past 69: the run at column 89 (1-based 90)
    # run 3: 95 is past every column (3 spaces: 98); 20 alone fits column 69
    assert cols == [69, 78, 69, None, 89, 89, 89, 89, None, 98, 69]


def test_what_does_not_parse_is_refused_at_its_place() -> None:
    """A text that does not parse raises the project's syntax error, at file:line:col, as every command
    shows it."""
    with pytest.raises(RulesSyntaxError) as e:
        format_rules("ruleset x\nplayers 2 to\n", "bad.rules")
    d = e.value.diagnostics[0]
    assert (d.file, d.line) == ("bad.rules", 2)
    assert "bad.rules:2:" in e.value.render()


# ----- comments in every position --------------------------------------------------------------------------
SMALL = '''ruleset small "Small" extends "scotland.rules"
players 2 to 3
tiles {
  settlement influence 1 x3, 2 x4
}
setup {
  players 3: return food x3, settlement:2 x1
}
on place food, energy: score size(group(placed)) * (2 + 1) as farms
area settlement {
  pay size 2: 5, 3
}
deck mission {
  card "A b" 3 / 1 x2: count(touched(me, castle)) >= 2 and not most(count(tiles(me, food)))
}
end {
  winner ties: owner(castle "Stirling") among tied, then nobody anywhere
}
'''


def gaps(text: str) -> list[int]:
    """The offsets between two tokens of a text (and at its end), where a comment may stand."""
    return [m.end() for m in TOKEN.finditer(text)]


def test_a_comment_survives_in_every_position() -> None:
    """A comment after any token of a file (a trailing one, and one on a line of its own) is kept, in its
    order, with the same parse; and so are comments after every token at once."""
    for at in gaps(SMALL):
        for comment in (f"  # S-Z{at}\n", f"\n# S-Z{at}\n"):
            text = SMALL[:at] + comment + SMALL[at:]
            out = format_rules(text)
            assert f"# S-Z{at}" in out
            assert format_rules(out) == out
            assert_same_meaning(text, out)
    every = "".join(SMALL[a:b] + f" # S-Z{i}\n" for i, (a, b) in enumerate(zip([0, *gaps(SMALL)], gaps(SMALL), strict=False)))
    out = format_rules(every)
    assert format_rules(out) == out
    assert_same_meaning(every, out)


def test_a_file_without_a_last_newline_or_with_a_comment_last() -> None:
    """The end of the file: exactly one newline after the last line, a last comment kept."""
    assert format_rules("ruleset x\nplayers 2 to 4") == "ruleset x\nplayers 2 to 4\n"
    assert format_rules("ruleset x\nplayers 2 to 4\n\n\n# the end") == "ruleset x\nplayers 2 to 4\n\n# the end\n"
    assert format_rules("ruleset x\r\nplayers 2 to 4  \r\n") == "ruleset x\nplayers 2 to 4\n"


# ----- generated rulesets ----------------------------------------------------------------------------------
def _games() -> Any:
    """The strategy of generated rulesets in tests/engines/test_extreme_rules.py (its rules texts), imported
    here at the module's import: a test module defines its tests with @given, which hypothesis refuses
    inside a running test."""
    sys.path.insert(0, str(ROOT / "tests" / "engines"))
    try:
        from test_extreme_rules import games  # a test module of a sibling folder (no __init__.py)
    finally:
        sys.path.pop(0)
    return games().map(lambda g: g[0])


GENERATED = _games()


SEPARATORS = [" ", "  ", "\t", "\n", "\n\n\n", "  # S-X{n} a comment\n", "\n    # S-Y{n}\n\n", ""]


@st.composite
def relaid(draw: Any) -> tuple[str, str]:
    """(a generated ruleset, the same tokens with other whitespace and comments between them)."""
    text = draw(GENERATED)
    toks = TOKEN.findall(text)
    out = [toks[0]]
    for n, (prev, tok) in enumerate(zip(toks, toks[1:], strict=False)):
        sep = draw(st.sampled_from(SEPARATORS)).format(n=n)
        if sep == "" and (prev[-1].isalnum() or prev[-1] in '_"') and (tok[0].isalnum() or tok[0] in '_"'):
            sep = " "  # two words (or a word and a number) would run together
        out.append(sep + tok)
    return text, "".join(out) + draw(st.sampled_from(["", "\n", "\n\n", "  # S-E1 last\n"]))


# a third of the profile's examples: each is a long ruleset, parsed four times (CI may ask for more)
@settings(max_examples=max(10, settings.default.max_examples // 3), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(relaid())
def test_formatting_changes_no_parse_of_a_generated_ruleset(case: tuple[str, str]) -> None:
    """Over generated rulesets, laid out anyhow with comments anywhere: the formatted text parses to the
    same AST as the original (spans aside), keeps every comment and rule id, and is a fixed point."""
    original, messy = case
    try:
        parse_text(original)
    except RulesSyntaxError:  # the generator goes past a limit now and then: refused, relaid or not
        with pytest.raises(RulesSyntaxError):
            format_rules(messy)
        return
    out = format_rules(messy)
    assert shape(parse_text(out)) == shape(parse_text(original))
    assert_same_meaning(messy, out)
    assert format_rules(out) == out


# ----- the command ---------------------------------------------------------------------------------------
def test_fmt_rewrites_files_in_place_and_check_lists_what_would_change(run_cli: Any, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`rebirth fmt FILE...` rewrites what is not formatted (and nothing else); `--check` writes nothing,
    lists the files that would change and exits 1; with no FILE it formats the folder's rules files."""
    messy, tidy = tmp_path / "messy.rules", tmp_path / "sub" / "tidy.rules"
    tidy.parent.mkdir()
    messy.write_text(MESSY, encoding="utf-8")
    tidy.write_text(TIDY, encoding="utf-8")
    os.chmod(messy, 0o600)
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.rules").write_text(MESSY, encoding="utf-8")  # not in a hidden folder
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("fmt", "--check")
    assert code == 1 and out.splitlines() == ["messy.rules"], (out, err)
    assert messy.read_text(encoding="utf-8") == MESSY
    before = tidy.stat().st_mtime_ns
    code, out, err = run_cli("fmt", "messy.rules", str(tidy))
    assert (code, out) == (0, "formatted messy.rules\n"), err
    assert messy.read_text(encoding="utf-8") == TIDY
    assert messy.stat().st_mode & 0o777 == 0o600  # the file keeps its permissions
    assert tidy.stat().st_mtime_ns == before  # a formatted file is not written
    code, out, err = run_cli("fmt", "--check", ".")
    assert (code, out) == (0, ""), err
    assert (tmp_path / ".hidden" / "x.rules").read_text(encoding="utf-8") == MESSY


def test_fmt_stdout_and_standard_input(run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--stdout` prints instead of writing; `-` reads standard input and prints."""
    messy = tmp_path / "messy.rules"
    messy.write_text(MESSY, encoding="utf-8")
    code, out, err = run_cli("fmt", "--stdout", messy)
    assert (code, out) == (0, TIDY), err
    assert messy.read_text(encoding="utf-8") == MESSY
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MESSY.encode()), encoding="utf-8"))
    code, out, err = run_cli("fmt", "-")
    assert (code, out) == (0, TIDY), err


def test_fmt_shows_a_syntax_error_at_its_place_and_goes_on(run_cli: Any, tmp_path: Path) -> None:
    """A file that does not parse: file:line:col and a caret, exit 1, never a traceback; the other files
    are still formatted."""
    bad, messy = tmp_path / "bad.rules", tmp_path / "messy.rules"
    bad.write_text("ruleset x\nplayers 2 to\n", encoding="utf-8")
    messy.write_text(MESSY, encoding="utf-8")
    code, out, err = run_cli("fmt", bad, messy)
    assert code == 1
    assert f"{bad}:2:" in err and "^" in err and "Traceback" not in err
    assert bad.read_text(encoding="utf-8") == "ruleset x\nplayers 2 to\n"
    assert messy.read_text(encoding="utf-8") == TIDY
    code, out, err = run_cli("fmt", tmp_path / "missing.rules")
    assert code == 1 and "missing.rules: cannot read rules" in err
