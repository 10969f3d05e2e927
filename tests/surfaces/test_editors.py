"""Editor support without an editor: the TextMate grammar and VS Code extension under editors/, and what
the language server knows (rebirth_dsl/lsp/analysis.py, which needs no extra package). The protocol
exchange itself is tests/surfaces/test_lsp.py."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import ROOT, beyond_bundled_findings

from rebirth_dsl.check.types import VARIABLES
from rebirth_dsl.lang.functions import SIGNATURES
from rebirth_dsl.lang.parser import lark_parser
from rebirth_dsl.lsp.analysis import Analyser, completions, definition, grammar_keywords, hover, token_at

VSCODE = ROOT / "editors" / "vscode"
TM = VSCODE / "syntaxes" / "rebirth.tmLanguage.json"
SCOTLAND = ROOT / "rules" / "scotland.rules"
SCOTLAND_BOARD = ROOT / "boards" / "scotland.json"


# ----- the TextMate grammar ---------------------------------------------------------------------
def _rules(tm: dict) -> list[dict]:
    """Every pattern rule of a TextMate grammar, nested ones included."""
    out: list[dict] = []
    stack = list(tm.get("patterns", [])) + list(tm.get("repository", {}).values())
    while stack:
        r = stack.pop()
        out.append(r)
        stack.extend(r.get("patterns", []))
    return out


def _covered(word: str, tm: dict, scope: str, after: str = "") -> bool:
    """Whether a rule whose scope starts with `scope` matches exactly the word (followed by `after`)."""
    for r in _rules(tm):
        if r.get("name", "").startswith(scope) and "match" in r:
            m = re.match(r["match"], word + after)
            if m and m.group() == word:
                return True
    return False


def uncovered(keywords: tuple[str, ...] | list[str], tm: dict) -> list[str]:
    """The keywords no `keyword.*` rule of the grammar highlights."""
    return [k for k in keywords if not _covered(k, tm, "keyword.")]


def test_the_textmate_grammar_is_valid() -> None:
    """Valid JSON; every include names a rule of the repository; every regex compiles (Python's `re` reads
    the subset of Oniguruma the grammar uses); the scope is the one package.json registers."""
    tm = json.loads(TM.read_text(encoding="utf-8"))
    assert tm["scopeName"] == "source.rebirth"
    for r in _rules(tm):
        if "include" in r:
            assert r["include"].startswith("#") and r["include"][1:] in tm["repository"], r
        for key in ("match", "begin", "end"):
            if key in r:
                re.compile(r[key])
        assert any(k in r for k in ("match", "begin", "include", "patterns")), r


def test_every_keyword_of_the_grammar_is_highlighted() -> None:
    """A keyword added to grammar.lark without a highlighting entry fails here."""
    tm = json.loads(TM.read_text(encoding="utf-8"))
    keywords = grammar_keywords()
    assert {"ruleset", "extends", "majority", "without", "visible", "any"} <= set(keywords)
    assert uncovered(keywords, tm) == []
    assert uncovered(list(keywords) + ["frobnicate"], tm) == ["frobnicate"]  # the check can fail


def test_the_keyword_list_is_the_parsers() -> None:
    """grammar_keywords (read from the grammar's text) holds every word Lark made a literal terminal of."""
    literal = {t.pattern.value for t in lark_parser().terminals
               if t.pattern.type == "str" and re.fullmatch(r"[A-Za-z_]\w*", t.pattern.value)}
    assert literal <= set(grammar_keywords())


def test_functions_and_variables_are_highlighted() -> None:
    """Each built-in function (when called) and each variable has its own scope."""
    tm = json.loads(TM.read_text(encoding="utf-8"))
    assert [f for f in SIGNATURES if not _covered(f, tm, "support.function", "(")] == []
    assert [v for v in VARIABLES if not _covered(v, tm, "variable.language")] == []


def test_the_vscode_extension_registers_rules_files_and_starts_the_server() -> None:
    """package.json: `.rules` is the language `rebirth`, its grammar and configuration files exist, and the
    default command is one the CLI accepts."""
    from rebirth_dsl.cli import build_parser

    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    [lang] = pkg["contributes"]["languages"]
    assert lang["id"] == "rebirth" and ".rules" in lang["extensions"]
    json.loads((VSCODE / lang["configuration"]).read_text(encoding="utf-8"))
    [grammar] = pkg["contributes"]["grammars"]
    assert grammar["scopeName"] == "source.rebirth" and (VSCODE / grammar["path"]).resolve() == TM
    assert (VSCODE / pkg["main"]).is_file()
    command = pkg["contributes"]["configuration"]["properties"]["rebirth.command"]["default"]
    assert command[0] == "rebirth" and build_parser().parse_args(command[1:]).command == "lsp"
    assert "rebirth.board" in pkg["contributes"]["configuration"]["properties"]


# ----- what the server knows --------------------------------------------------------------------
def _at(text: str, sub: str, offset: int = 0) -> tuple[int, int]:
    i = text.index(sub) + offset
    return text.count("\n", 0, i), i - (text.rfind("\n", 0, i) + 1)


@pytest.fixture(scope="module")
def scotland() -> tuple[Analyser, str]:
    return Analyser(), SCOTLAND.read_text(encoding="utf-8")


def test_problems_sit_on_their_word(scotland: tuple[Analyser, str]) -> None:
    """A checker problem and a syntax error, each over the word it is about; the clean file has none."""
    an, text = scotland
    assert beyond_bundled_findings(an.analyse(text, SCOTLAND).problems) == []
    bad = text.replace("place energy on energy, plain", "place energy on enrgy, plain")
    [p] = beyond_bundled_findings(an.analyse(bad, SCOTLAND).problems)
    start = _at(bad, "enrgy")
    assert p.range.start == start and p.range.end == (start[0], start[1] + 5) and "energy" in p.message
    bad = text.replace("set aside 2 visible", "set aside 2 vsible")
    [p] = an.analyse(bad, SCOTLAND).problems
    start = _at(bad, "vsible")
    assert p.code == "syntax" and p.range.start == start and p.range.end == (start[0], start[1] + 6)


def test_a_document_not_on_disk_is_checked_without_a_board(scotland: tuple[Analyser, str]) -> None:
    """An untitled buffer: no path, so no bundled board; its problems still found."""
    an, text = scotland
    a = an.analyse(text.replace("hand 1", "hand x"), None, "untitled:1")
    assert a.board is None and [p.code for p in a.problems] == ["syntax"]


def test_the_board_setting_takes_a_bundled_name(tmp_path: Path) -> None:
    """`rebirth.board` as a bundled name; a name that is none is a problem naming the bundled boards."""
    text = SCOTLAND.read_text(encoding="utf-8")
    a = Analyser("scotland").analyse(text, tmp_path / "copy.rules")
    assert a.board_path is not None and a.board_path.name == "scotland.json" and beyond_bundled_findings(a.problems) == []
    [p] = Analyser("no-such-board").analyse(text, tmp_path / "copy.rules").problems
    assert "no-such-board" in p.message and "scotland" in p.message and p.range.start == (0, 0)


def test_hover_words_statements_items_and_functions(scotland: tuple[Analyser, str]) -> None:
    an, text = scotland
    a = an.analyse(text, SCOTLAND)
    h = hover(a, *_at(text, "majority castle", 1))
    assert h is not None and "S-K1" in h and "S-K5" in h and "held by majority" in h
    h = hover(a, *_at(text, "final tie: owner keeps", 3))
    assert h is not None and h.startswith("**S-K5**") and "holder keeps it" in h and "compared" not in h
    h = hover(a, *_at(text, 'card "Pilgrim"', 8))
    assert h is not None and "S-M3" in h and '"Pilgrim", 4' in h and "Castle lord" not in h
    h = hover(a, *_at(text, "near(tiles(me), castle)", 2))
    assert h is not None and "near(hexes, hex kind, tag or landmark kind) -> hexes" in h
    h = hover(a, *_at(text, "count(owned(me, castle))", 13))
    assert h is not None and "me: player" in h
    h = hover(a, *_at(text, "class farm", 7))
    assert h is not None and "S-F1" in h and "food, energy" in h
    h = hover(a, *_at(text, 'castle "Stirling"', 9))
    assert h is not None and "Stirling" in h and "q=" in h


def test_completion_inside_and_outside_strings(scotland: tuple[Analyser, str]) -> None:
    an, text = scotland
    a = an.analyse(text, SCOTLAND)
    labels = {c.label: c for c in completions(a, a.symbols, *_at(text, "held cards"))}
    for name in ("majority", "food", "farm", "sea", "cathedral", "clover", "mission", "atleast", "placed", "Glamis"):
        assert name in labels, name
    assert "tile kind" in labels["food"].detail and "hex kind" in labels["food"].detail  # both, in one item
    assert completions(a, a.symbols, *_at(text, "# S-U1", 3)) == []  # in a comment: nothing
    inside = completions(a, a.symbols, *_at(text, 'castle "Stirling"', 8))
    assert inside and {c.detail for c in inside} == {"castle"}


def test_completion_keeps_the_last_names_while_the_text_does_not_parse(scotland: tuple[Analyser, str]) -> None:
    an, text = scotland
    good = an.analyse(text, SCOTLAND)
    broken = text.replace("turns clockwise", "turns clockwise\non place fo")
    a = an.analyse(broken, SCOTLAND)
    assert a.symbols is None and a.problems
    labels = {c.label for c in completions(a, good.symbols, *_at(broken, "on place fo", 11))}
    assert {"food", "energy", "place"} <= labels


def test_definitions(scotland: tuple[Analyser, str]) -> None:
    an, text = scotland
    a = an.analyse(text, SCOTLAND)
    loc = definition(a, *_at(text, 'owner(castle "Stirling")', 15))
    assert loc is not None and loc.path == SCOTLAND_BOARD
    line = SCOTLAND_BOARD.read_text(encoding="utf-8").split("\n")[loc.range.start[0]]
    assert line[loc.range.start[1]:loc.range.end[1]] == '"name": "Stirling"'
    loc = definition(a, *_at(text, "draw mission", 6))
    assert loc is not None and loc.path == SCOTLAND and loc.range.start == _at(text, "deck mission", 5)
    assert definition(a, *_at(text, "# S-U1", 3)) is None


def test_token_at_prefers_the_word_the_cursor_touches() -> None:
    m = token_at('  card "A b" 3: count(me)', 22)
    assert m is not None and m.group() == "me"
    m = token_at("place food on food", 10)  # right after `food`: the word being typed
    assert m is not None and m.group() == "food"
    assert token_at("place  food", 6) is None


def test_rebirth_lsp_without_the_extra_says_how_to_install_it(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """With pygls missing, `rebirth lsp` exits 2 with the pip command, not a traceback."""
    monkeypatch.delitem(sys.modules, "rebirth_dsl.lsp.server", raising=False)
    monkeypatch.setitem(sys.modules, "lsprotocol", None)  # None in sys.modules: `import` fails as if absent
    monkeypatch.setitem(sys.modules, "pygls", None)
    code, out, err = run_cli("lsp")
    assert code == 2 and out == "" and "pip install 'rebirth-dsl[lsp]'" in err
