"""The rules language: grammar, parse errors, name checks, extends/overrides, and the bundled rules."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from conftest import ROOT, RULES, beyond_bundled_findings
from hypothesis import given
from hypothesis import strategies as st
from lark import Lark

from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.errors import RebirthError, RulesSyntaxError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules, parse_text


def test_grammar_is_conflict_free_lalr() -> None:
    """strict=True makes Lark fail on any shift/reduce or terminal collision."""
    grammar = (ROOT / "rebirth_dsl" / "lang" / "grammar.lark").read_text()
    Lark(grammar, parser="lalr", strict=True, maybe_placeholders=True)


def test_S_C1_scotland_rules_parse_and_declare_the_game() -> None:
    """S-C1: 36 tiles a colour, of three kinds; the file names the game's pieces, not the engine."""
    rules = load_rules(RULES / "scotland.rules")
    t = Tables(rules)
    assert t.tile_kinds == ["food", "energy", "settlement"]
    assert "castle" in t.landmark_kinds and "cathedral" in t.landmark_kinds


def test_S_C1_S_C2_tile_mix_per_colour() -> None:
    """S-C1, S-C2: 12 food, 12 energy, 12 settlements of influence 1,1,1,2,2,2,2,3,3,3,4,4."""
    from rebirth_dsl.lang import ast as A

    rules = load_rules(RULES / "scotland.rules")
    specs = {s.kind: s for s in rules.statements if isinstance(s, A.TileSpec)}
    assert specs["food"].counts == ((0, 12),)
    assert specs["energy"].counts == ((0, 12),)
    influences = [v for v, c in specs["settlement"].counts for _ in range(c)]
    assert influences == [1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4]


def test_syntax_error_shows_file_line_col_line_and_caret() -> None:
    """A syntax error names file:line:col, quotes the line and puts a caret under the column."""
    text = 'ruleset x "X"\nplayers 2 to 4\ntiles {\n  food 12\n}\n'
    with pytest.raises(RulesSyntaxError) as ei:
        parse_text(text, "bad.rules")
    d = ei.value.diagnostics[0]
    assert (d.file, d.line, d.col) == ("bad.rules", 4, 8)
    rendered = ei.value.render()
    assert rendered.startswith("bad.rules:4:8: unexpected '12'")
    assert "  food 12\n" in rendered + "\n"
    assert rendered.splitlines()[2].index("^") == 4 + 7
    assert "x12" in (d.hint or "")


def test_unexpected_end_of_file() -> None:
    """A statement cut off by the end of the file is reported there (an unclosed block is reported at its
    `{`: tests/lang/test_errors.py)."""
    with pytest.raises(RulesSyntaxError) as ei:
        parse_text('ruleset x\ntiles {\n  food\n', "eof.rules")
    d = ei.value.diagnostics[0]
    assert d.line == 3 and "end of file" in d.message


def _assert_inside(text: str, line: int, col: int) -> None:
    """A position (1-based) that lies in the text: a line of it, a column of that line or just after it."""
    lines = text.split("\n")
    assert 1 <= line <= max(len(lines), 1), (line, len(lines))
    assert 1 <= col <= len(lines[line - 1]) + 1, (line, col)


def _assert_parsed_from(rules: A.Rules, text: str) -> None:
    """The success path: a parse that returns holds what the text says, at places inside the text. The
    header's name is written after `ruleset` (comments aside); every statement's span lies in the text, in source order,
    and the text at the start of each span is not blank or a comment."""
    lines = text.split("\n")
    uncommented = re.sub(r"#[^\n]*", " ", text)  # a comment may stand between `ruleset` and the name
    assert rules.header.name and re.search(rf"\bruleset\s+{re.escape(rules.header.name)}\b", uncommented)
    last = (0, 0)
    for st_ in (rules.header, *rules.statements):
        sp = st_.span
        _assert_inside(text, sp.line, sp.col)
        assert (sp.line, sp.col) >= last, "statements out of source order"
        last = (sp.line, sp.col)
        assert lines[sp.line - 1][sp.col - 1:].strip()[:1] not in ("", "#"), (sp, lines[sp.line - 1])


@given(st.text(alphabet=string.printable + "äé→", max_size=200))
def test_any_text_parses_or_raises_our_error_inside_the_input(text: str) -> None:
    """jmespath's property: any text either parses to what it says or raises the project's error, at a
    position in it."""
    try:
        rules = parse_text(text, "fuzz.rules")
    except RulesSyntaxError as e:
        d = e.diagnostics[0]
        _assert_inside(text, d.line, d.col)
        return
    _assert_parsed_from(rules, text)


@given(st.lists(st.sampled_from(
    ["ruleset", "x", '"t"', "tiles", "{", "}", "food", "x12", "players", "2", "to", "4", ":", ",", "on",
     "place", "score", "as", "(", ")", "+", "area", "pay", "size", "1", "\n", "#c\n", "majority", "end"]),
    max_size=30))
def test_token_soup_parses_or_raises_our_error(tokens: list[str]) -> None:
    """Near-valid token sequences reach deeper parser states; still only our error type, and a sequence
    that parses holds its statements where the text has them."""
    text = " ".join(tokens)
    try:
        rules = parse_text(text, "soup.rules")
    except RulesSyntaxError as e:
        _assert_inside(text, e.diagnostics[0].line, e.diagnostics[0].col)
        return
    _assert_parsed_from(rules, text)


def test_the_success_path_is_reached() -> None:
    """The two fuzz properties above do reach their success path: short texts of their alphabets parse."""
    for text in ("ruleset x", "ruleset x \n players 2 to 4", 'ruleset x "t" tiles { food x12 }'):
        _assert_parsed_from(parse_text(text, "ok.rules"), text)


def _tables_cut(text: str, lo: int, hi: int) -> str:
    """The text with each player-count table `players(2 to 3: 15, 4: 13)` cut to the counts lo..hi, each
    keeping its number: an entry for a count the ruleset no longer plays is an error (`player-tables`)."""
    def cut(m: re.Match[str]) -> str:
        table = {n: int(v) for a, b, v in re.findall(r"(\d+)(?: to (\d+))?: (\d+)", m.group(1))
                 for n in range(int(a), int(b or a) + 1)}
        return "players(" + ", ".join(f"{n}: {table[n]}" for n in range(lo, hi + 1)) + ")"

    return re.sub(r"players\(([^)]*)\)", cut, text)


@given(lo=st.integers(2, 3), more=st.integers(0, 1), food=st.integers(4, 40), first=st.integers(0, 99),
       second=st.integers(0, 99), castle=st.integers(0, 50), neutral=st.integers(0, 32), gifts=st.integers(1, 9))
def test_edited_numbers_parse_and_compile_to_what_the_text_says(lo: int, more: int, food: int, first: int,
                                                                 second: int, castle: int, neutral: int,
                                                                 gifts: int) -> None:
    """The success path with meaning: the Scotland rules with some numbers changed parse, and compile
    against the Scotland board, to exactly those numbers (S-U1, S-C2, S-U2, S-A3, S-E2, S-M2)."""
    from rebirth_dsl.board.model import load_board
    from rebirth_dsl.compile.compiler import compile_rules
    from rebirth_dsl.compile.prims import Ctx

    text = _tables_cut(SCOTLAND_TEXT, lo, lo + more)
    for old, new in (("players 2 to 4 ", f"players {lo} to {lo + more} "), ("food x12 ", f"food x{food} "),
                     ("pay size 2: 5, 3 ", f"pay size 2: {first}, {second} "),
                     ("each castle owned: 5 as", f"each castle owned: {castle} as"),
                     ("neutral 32 on neutral", f"neutral {neutral} on neutral"),
                     ('card "Cathedral gift" 3 x4:', f'card "Cathedral gift" 3 x{gifts}:')):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    rules = parse_text(text, "edited.rules")
    _assert_parsed_from(rules, text)
    (players,) = [s for s in rules.statements if isinstance(s, A.PlayersRange)]
    assert (players.low, players.high) == (lo, lo + more)
    rs = compile_rules(rules, load_board(ROOT / "boards" / "scotland.json"))
    assert rs.players == (lo, lo + more)
    assert rs.mix.count((rs.tile_kinds.index("food"), 0)) == food
    assert 2 not in rs.neutral or rs.neutral[2].count == neutral
    ctx = Ctx(None, 0, -1, 0)
    assert [f(ctx) for f in rs.areas["settlement"].pay[(2, None)]] == [first, second]
    assert [fn(ctx) for kind, fn, _, _ in rs.end_owned if kind == "castle"] == [castle]
    assert sum(c.name == "Cathedral gift" for c in rs.decks["mission"]) == gifts


def _check_text(tmp_path: Path, text: str) -> list[str]:
    from rebirth_dsl.check.checks import check

    f = tmp_path / "t.rules"
    f.write_text(text)
    return [d.render() for d in check(load_rules(f))]


def test_typo_in_a_name_gets_did_you_mean(tmp_path: Path) -> None:
    """A misspelt kind is reported where it is, with the closest declared name."""
    text = (RULES / "scotland.rules").read_text().replace("place energy on energy, plain",
                                                          "place energy on enrgy, plain")
    problems = _check_text(tmp_path, text)
    assert len(problems) == 1
    assert "unknown hex kind `enrgy`" in problems[0] and "did you mean `energy`?" in problems[0]
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "enrgy" in ln)
    assert problems[0].startswith(f"{tmp_path / 't.rules'}:{line}:")


def test_expression_type_and_arity_errors(tmp_path: Path) -> None:
    """Functions are checked for arity and argument types; unknown functions get a suggestion."""
    text = (RULES / "scotland.rules").read_text()
    for good, bad in (('card "Borderlands" 5: count(touched(me, castle)) >= players(2: 12, 3: 11, 4: 10)',
                       'card "Borderlands" 5: count(touchd(me, castle)) >= players(2: 12, 3: 11, 4: 10)'),
                      ('card "Coastline" 5: count(near(tiles(me), sea)) >=',
                       'card "Coastline" 5: count(near(tiles(me))) >='),
                      ('card "Mayor" 5: count(won(me)) >= players(2: 9, 3: 7, 4: 5)', 'card "Mayor" 5: count(won(me))')):
        assert text.count(good) == 1, f"{good!r} is not a card line of scotland.rules (were the cards changed?)"
        text = text.replace(good, bad)
    problems = "\n".join(_check_text(tmp_path, text))
    assert "unknown function `touchd`" in problems and "did you mean `touched`" in problems
    assert "near() takes 2 argument(s), not 1" in problems
    assert "this must be a bool, but it is an int" in problems


def test_extends_replaces_and_without_removes(tmp_path: Path) -> None:
    """A child ruleset replaces statements by key and removes them with `without`."""
    from rebirth_dsl.lang import ast as A

    (tmp_path / "child.rules").write_text(
        f'ruleset child extends "{RULES / "scotland.rules"}"\n'
        "area settlement { pay size 2: 6, 2   # X-1\n }\n"
        "without on place any at harbour\n"
    )
    rules = load_rules(tmp_path / "child.rules")
    area = next(s for s in rules.statements if isinstance(s, A.AreaBlock))
    pays = {(p.size, p.players): p for p in area.items if isinstance(p, A.Pay)}
    assert [a.value for a in pays[(2, None)].amounts] == [6, 2]
    assert [a.value for a in pays[(3, None)].amounts] == [8, 5, 0]
    assert not any(isinstance(s, A.Trigger) and s.event.key == ("place", None, "harbour") for s in rules.statements)


def test_without_something_missing_is_an_error(tmp_path: Path) -> None:
    """Overrides must name things that exist in the base."""
    (tmp_path / "child.rules").write_text(f'ruleset child extends "{RULES / "scotland.rules"}"\n'
                                          "without on place any at lighthouse\n")
    with pytest.raises(RebirthError) as ei:
        load_rules(tmp_path / "child.rules")
    assert "child.rules:2:1" in ei.value.render()


def test_every_bundled_statement_cites_a_rule_id() -> None:
    """The habit made a check: `rebirth check --strict` passes on every bundled ruleset, Scotland, Ireland
    and the variants, each against its own board."""
    from rebirth_dsl.check.checks import check
    from rebirth_dsl.records.record import load_ruleset
    from rebirth_dsl.records.resources import bundled, rules_and_board

    names = list(bundled("rules"))
    assert {"scotland", "ireland"} <= set(names) and any("/" in n for n in names)
    for name in names:
        rules_path, board_path = rules_and_board(name, None)
        board = load_ruleset(rules_path, board_path)[0].t.board
        problems = beyond_bundled_findings(check(load_rules(rules_path), board, str(board_path), strict=True))
        assert problems == [], (name, [d.render() for d in problems])


def test_strict_names_a_statement_without_a_rule_id(tmp_path: Path) -> None:
    """--strict really looks: Ireland with one citation removed is refused at that statement."""
    from rebirth_dsl.check.checks import check

    text = (RULES / "ireland.rules").read_text()
    line = "ability score_3: score 3 as towers                                   # I-R1"
    assert text.count(line) == 1
    f = tmp_path / "ireland.rules"
    f.write_text(text.replace(line, "ability score_3: score 3 as towers"))
    (tmp_path / "scotland.rules").write_text((RULES / "scotland.rules").read_text())
    problems = [d for d in check(load_rules(f), strict=True) if d.file == str(f)]
    row = text.splitlines().index(line) + 1
    assert [d.line for d in problems] == [row], [d.render() for d in problems]


SCOTLAND_TEXT = (RULES / "scotland.rules").read_text()


@given(st.lists(st.tuples(st.integers(0, len(SCOTLAND_TEXT) - 1), st.integers(0, 12),
                          st.sampled_from(["", "x", " ", "1", "food", "castle", "(", ")", ",", ":", "#", "\n", "me",
                                           "tiles(", "energy", "settlement:9", "+", "}", "{", "and"])),
                min_size=1, max_size=3))
def test_mutated_rules_never_crash_the_checker(edits: list[tuple[int, int, str]]) -> None:
    """Any edit of the real rules file either raises our error at a place in the text, or checks to
    diagnostics that point into the text or the board; an edit that checks clean compiles (the checker
    is the compiler's gate: a compile error after a clean check is a checker bug, never swallowed) and
    plays a whole game to its end with a winner."""
    from rebirth_dsl.board.model import load_board
    from rebirth_dsl.check.checks import check
    from rebirth_dsl.compile.compiler import compile_rules

    text = SCOTLAND_TEXT
    for pos, cut, ins in edits:
        pos = min(pos, len(text))
        text = text[:pos] + ins + text[pos + cut:]
    try:
        rules = parse_text(text, "m.rules")
    except RebirthError as e:
        assert e.diagnostics
        for d in e.diagnostics:
            assert d.file == "m.rules", d.render()
            _assert_inside(text, d.line, d.col)
        return
    _assert_parsed_from(rules, text)
    board = load_board(ROOT / "boards" / "scotland.json")
    problems = check(rules, board, "b.json")
    for d in problems:
        assert d.message and (d.file == "m.rules" or d.path or d.file.endswith("b.json")), d.render()
        if d.file == "m.rules" and d.line:
            _assert_inside(text, d.line, d.col)
    if problems:
        return
    rs = compile_rules(rules, board)
    from rebirth_dsl.pyengine.fast import random_game

    lo, hi = rs.players
    n = max(lo, min(2, hi))
    game, _ = random_game(rs, ["A", "B", "C", "D", "E", "F"][:n], 1)
    assert game.is_over()
    winners, _ = game.winners(game.final_scores(game.end_events()))
    assert winners and all(0 <= w < n for w in winners)
