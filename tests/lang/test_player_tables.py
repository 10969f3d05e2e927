"""A number by player count, `players(2 to 3: 15, 4: 13)` (issue 23 item 5): how a table parses, lowers and is
laid out by `rebirth fmt`; that every engine reads the same number at every count (the closures, the generated
Python, the delta evaluator of the greedy agent, the agents' by_count, the checker's ranges, and the C of the
native engine); the checker's `player-tables` diagnostics at their columns, for a ruleset and for variants that
narrow or widen the player range; the describer's English; the LSP's hover and signature help.

The numbers expected are written by hand: Scotland's Pilgrim asks 15 with 2 or 3 players and 13 with 4
(before the table, `15 - (players - 2) * (players - 3)`: 15 - 0*-1 = 15, 15 - 1*0 = 15, 15 - 2*1 = 13)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT, RULES

from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.compile.closures import compile_expr
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.compile.exprgen import compile_expr_source
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.errors import Diagnostic
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.fmt import format_rules
from rebirth_dsl.lang.functions import SIGNATURES, player_table, say_table
from rebirth_dsl.lang.parser import load_rules, parse_text
from rebirth_dsl.play.evaluate import by_count
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.points import _DeltaCompiler
from rebirth_dsl.present.describe import describe, expr_text
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal

SCOTLAND = RULES / "scotland.rules"
BOARD = ROOT / "boards" / "scotland.json"
PILGRIM = "players(2 to 3: 15, 4: 13)"


def card_text(body: str) -> str:
    """A whole small ruleset whose one card's condition is `body`."""
    return f'ruleset t\nplayers 2 to 4\ndeck m {{\n  card "X" 3: {body}\n}}\n'


def condition(text: str) -> A.Expr:
    """The condition of the first card of a rules text."""
    rules = parse_text(text, "t.rules")
    deck = next(s for s in rules.statements if isinstance(s, A.DeckBlock))
    return deck.cards[0].condition


def table_of(card: str) -> A.Call:
    """The threshold (the right side) of a Scotland card, a player-count table."""
    rules = load_rules(SCOTLAND)
    deck = next(s for s in rules.statements if isinstance(s, A.DeckBlock))
    cond = next(c.condition for c in deck.cards if c.name == card)
    assert isinstance(cond, A.BinOp) and isinstance(cond.right, A.Call)
    return cond.right


# ----- parse, lower, format --------------------------------------------------------------------------------
def test_a_table_lowers_to_its_entries_each_at_its_column() -> None:
    text = card_text(f"count(won(me)) >= {PILGRIM}")
    line = text.split("\n")[3]
    table = condition(text).right  # type: ignore[union-attr]
    assert isinstance(table, A.Call) and table.fn == "players"
    first, second = table.args
    assert isinstance(first, A.PlayerEntry) and isinstance(second, A.PlayerEntry)
    assert (first.low, first.high, first.value) == (2, 3, 15)
    assert (second.low, second.high, second.value) == (4, 4, 13)  # `4: 13`: one count, low and high the same
    assert (first.span.line, first.span.col) == (4, line.index("2 to 3") + 1)
    assert first.span.end_col == line.index("2 to 3: 15") + len("2 to 3: 15") + 1
    assert (second.span.line, second.span.col) == (4, line.index("4: 13") + 1)
    assert table.span.col == line.index("players(") + 1


def test_the_bare_count_is_still_the_count() -> None:
    for written in ("players", "players()"):
        right = condition(card_text(f"count(won(me)) >= 9 - {written}")).right  # type: ignore[union-attr]
        assert isinstance(right, A.BinOp) and right.right == A.Call("players", (), right.right.span)


def test_fmt_lays_a_table_out_and_keeps_its_meaning() -> None:
    messy = card_text("count(won(me)) >=  players(  2  to 3 :15 ,4:13 )")
    laid = format_rules(messy, "t.rules")
    assert f"count(won(me)) >= {PILGRIM}" in laid
    assert format_rules(laid, "t.rules") == laid  # idempotent
    before, after = condition(messy).right, condition(laid).right  # type: ignore[union-attr]
    assert isinstance(before, A.Call) and isinstance(after, A.Call)
    assert [(e.low, e.high, e.value) for e in before.args] == [(e.low, e.high, e.value) for e in after.args]  # type: ignore[union-attr]


def test_scotland_is_laid_out_by_fmt() -> None:
    text = SCOTLAND.read_text(encoding="utf-8")
    assert format_rules(text, str(SCOTLAND)) == text


# ----- one meaning, every engine -----------------------------------------------------------------------------
# Scotland's tables, each count's number worked out from the arithmetic it replaced (p players):
HAND = {
    "Clan of the glens": {2: 6, 3: 5, 4: 4},  # 8 - p
    "Harbour master": {2: 6, 3: 5, 4: 4},  # 8 - p
    "Pilgrim": {2: 15, 3: 15, 4: 13},  # 15 - (p-2)(p-3): (p-2)(p-3) is 0, 0, 2
    "Town builder": {2: 10, 3: 10, 4: 8},  # 10 - (p-2)(p-3)
    "Castle guard": {2: 21, 3: 21, 4: 17},  # 21 - 2(p-2)(p-3)
    "Coastline": {2: 22, 3: 22, 4: 18},  # 22 - 2(p-2)(p-3)
    "Mayor": {2: 9, 3: 7, 4: 5},  # 13 - 2p
    "Borderlands": {2: 12, 3: 11, 4: 10},  # 14 - p
}


@pytest.fixture(scope="module")
def scotland():  # type: ignore[no-untyped-def]
    return compile_rules(load_rules(SCOTLAND), load_board(BOARD))


class _Facts:
    """The one fact a player count's range needs (lang/functions.Facts.players)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def players(self) -> int:
        return self.n


@pytest.mark.parametrize("card", sorted(HAND))
def test_every_engine_reads_the_number_the_table_gives(scotland, card: str) -> None:  # type: ignore[no-untyped-def]
    """The reference closures, the generated Python, the greedy agent's delta evaluator, the agents' by_count
    and the checker's range give, at each count, the number worked out by hand."""
    table = table_of(card)
    rs = scotland
    closure = compile_expr(table, rs.t)
    generated = compile_expr_source(table, rs.t)[0]
    delta = _DeltaCompiler(rs).expr(table)
    counted = by_count(table)
    assert counted is not None
    for n, want in HAND[card].items():
        g = Game(rs, list(DEFAULT_NAMES[:n]), deal(rs, n, 7))
        assert player_table(table.args) [n] == want
        assert closure(Ctx(g, 0)) == want
        assert generated(Ctx(g, 0)) == want
        assert delta(SimpleNamespace(g=g), 0) == want  # type: ignore[arg-type]  # it reads only the position
        assert counted(n) == want
        got = SIGNATURES["players"].bound(_Facts(n), table.args, ())  # type: ignore[misc, arg-type]
        assert (got.lo, got.hi, got.start) == (want, want, want)


def test_the_generated_python_indexes_one_constant() -> None:
    """The generated source reads the table as a constant indexed by the count, not as arithmetic."""
    rs = compile_rules(load_rules(SCOTLAND), load_board(BOARD))
    src = compile_expr_source(table_of("Pilgrim"), rs.t)[1]
    assert "{2: 15, 3: 15, 4: 13, }" in src and "[g.n_players]" in src


NATIVE_RULES = """ruleset native_table "A table in a scoring trigger" extends "{base}"
on place food, energy: score players(2: 5, 3: 7, 4: 11) as farms          # S-F1
"""


@pytest.mark.parametrize("n,value", [(2, 5), (3, 7), (4, 11)])
def test_the_native_engine_scores_the_tables_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int,
                                                    value: int) -> None:
    """Each food or energy tile placed scores the table's number for the count in `farms` (a trigger that
    replaces Scotland's group scoring): in a game played by the C engine, and in its replay on the reference
    engine, a seat's farms are its food and energy placements times 5, 7 or 11."""
    from rebirth_dsl import native

    if native.unavailable() is not None:
        pytest.skip(f"the native backend cannot run here: {native.unavailable()}")
    monkeypatch.setenv("REBIRTH_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "table.rules"
    f.write_text(NATIVE_RULES.format(base=SCOTLAND), encoding="utf-8")
    rs = compile_rules(load_rules(f), load_board(BOARD))
    eng = native.engine(rs)
    assert eng is not None, native.unsupported(rs)
    names = list(DEFAULT_NAMES[:n])
    g = eng.play(names, 3)
    farms = rs.categories.index("farms")
    for q, name in enumerate(names):
        placed = sum(1 for m in g.moves if m["player"] == name and m["hex"] is not None
                     and m["tile"].split(":")[0] in ("food", "energy"))
        assert placed > 0
        assert g.breakdown[q][farms] == placed * value
    ref = Game(rs, names, g.setup)
    for i, m in enumerate(g.moves):
        h = rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
        ref.play(names.index(m["player"]), rs.parse_tile(m["tile"]), h, i, m.get("choices"))
    assert [ref.scores[q].get("farms", 0) for q in range(n)] == [g.breakdown[q][farms] for q in range(n)]


# ----- the checker ----------------------------------------------------------------------------------------
def problems(path: Path, board: bool = False) -> list[Diagnostic]:
    return [d for d in check(load_rules(path), load_board(BOARD) if board else None) if d.code == "player-tables"]


def written(tmp_path: Path, body: str) -> tuple[Path, str]:
    """A ruleset with one card of condition `body`; its path and the card's line."""
    f = tmp_path / "t.rules"
    text = (f'ruleset t\nplayers 2 to 4\ntiles {{ food x12 }}\nplace food on food\ndeck mission {{\n'
            f'  card "X" 3: {body}\n}}\n')
    f.write_text(text, encoding="utf-8")
    return f, text.split("\n")[5]


def underlines(d: Diagnostic, line: str, part: str) -> None:
    """The diagnostic stands at `part` of the card's line (line 6), with a caret and tildes under all of it."""
    col = line.index(part) + 1
    assert (d.line, d.col, d.end_col) == (6, col, col + len(part))
    assert d.render().split("\n")[1:3] == ["    " + line, "    " + " " * (col - 1) + "^" + "~" * (len(part) - 1)]


def test_a_count_played_and_left_out_is_refused_at_the_table(tmp_path: Path) -> None:
    f, line = written(tmp_path, "count(tiles(me)) >= players(2: 9, 3: 7)")
    [d] = problems(f)
    assert d.severity == "error"
    assert d.message == ("this table gives no number for 4 players, but the ruleset plays with 2 to 4 players "
                         "(`players 2 to 4`): a game of 4 players would have none here")
    assert d.hint == "add `4: N` to the table"
    underlines(d, line, "players(2: 9, 3: 7)")


def test_a_count_given_twice_is_refused_at_the_second_entry(tmp_path: Path) -> None:
    f, line = written(tmp_path, "count(tiles(me)) >= players(2: 9, 3: 7, 3 to 4: 5)")
    [d] = problems(f)
    assert d.severity == "error"
    assert d.message == (f"`3 to 4: 5` gives a number for 3 players again: the entry `3: 7` at column "
                         f"{line.index('3: 7') + 1} already does")
    underlines(d, line, "3 to 4: 5")


def test_entries_for_counts_never_played_are_refused(tmp_path: Path) -> None:
    f, line = written(tmp_path, "count(tiles(me)) >= players(1 to 2: 9, 3: 7, 4: 5, 5: 4)")
    partly, wholly = problems(f)
    assert partly.message == ("`1 to 2: 9`: the ruleset plays with 2 to 4 players (`players 2 to 4`), never with 1: "
                              "the entry names counts no game has")
    assert partly.hint == "write `2: 9`, or widen `players LOW to HIGH`"
    underlines(partly, line, "1 to 2: 9")
    assert wholly.message == ("`5: 4`: the ruleset plays with 2 to 4 players (`players 2 to 4`), never with 5: "
                              "this entry never applies")
    underlines(wholly, line, "5: 4")
    assert partly.severity == wholly.severity == "error"


def test_an_entry_that_runs_downwards_is_refused(tmp_path: Path) -> None:
    f, line = written(tmp_path, "count(tiles(me)) >= players(4 to 2: 9)")
    uncovered, downwards = problems(f)  # in reading order: the table, then its entry
    assert downwards.message == "`4 to 2: 9` runs downwards: an entry names the counts from LOW up to HIGH"
    assert downwards.hint == "write `2 to 4: 9`"
    underlines(downwards, line, "4 to 2: 9")
    assert "no number for 2 to 4 players" in uncovered.message  # it covers nothing


def test_a_whole_table_is_clean(tmp_path: Path) -> None:
    f, _ = written(tmp_path, "count(tiles(me)) >= players(2: 9, 3 to 4: 7) + players")
    assert problems(f) == []


def test_what_is_no_table_is_a_type_error(tmp_path: Path) -> None:
    f, _ = written(tmp_path, "count(tiles(me)) >= players(4)")
    said = [d.message for d in check(load_rules(f)) if d.code == "expressions"]
    assert said == ["players(...) takes a table of entries `COUNT: NUMBER` or `LOW to HIGH: NUMBER`, not an "
                    "expression"]
    f, _ = written(tmp_path, "count(tiles(me)) >= largest(2: 4)")
    said = [d.message for d in check(load_rules(f)) if d.code == "expressions"]
    assert said == ["`2: 4` is an entry of a player-count table: it stands only inside `players(...)`"]


def variant(tmp_path: Path, players: str) -> Path:
    f = tmp_path / "variant.rules"
    f.write_text(f'ruleset v "V" extends "{SCOTLAND}"\n{players}                         # S-U1\n', encoding="utf-8")
    return f


def test_a_variant_that_narrows_the_range_is_warned_of_its_bases_entries(tmp_path: Path) -> None:
    """Scotland's eight tables each give a number for 4; a variant for 2 or 3 players leaves those behind:
    a warning at each of the base's `4:` entries, naming the variant's line, and no error."""
    found = problems(variant(tmp_path, "players 2 to 3"))
    assert len(found) == len(HAND) and {d.severity for d in found} == {"warning"}
    lines = SCOTLAND.read_text(encoding="utf-8").split("\n")
    for d in found:
        assert d.file == str(SCOTLAND)
        entry = f"4: {lines[d.line - 1][d.col - 1:d.end_col - 1].split(': ')[1]}"
        assert lines[d.line - 1][d.col - 1:d.end_col - 1] == entry
        assert d.message == (f"`{entry}`: the ruleset plays with 2 to 3 players (`players 2 to 3` at "
                             f"{tmp_path / 'variant.rules'}:2), never with 4: this entry never applies")


def test_a_variant_that_widens_the_range_must_give_the_new_count_a_number(tmp_path: Path) -> None:
    found = problems(variant(tmp_path, "players 2 to 5"))
    assert len(found) == len(HAND) and {d.severity for d in found} == {"error"}
    assert all("no number for 5 players" in d.message and d.file == str(SCOTLAND) for d in found)
    assert all(d.related and d.related[0][1].file == str(tmp_path / "variant.rules") for d in found)


def test_the_range_checks_read_the_tables_number(tmp_path: Path) -> None:
    """check/reach.py judges a card at each count with that count's number: with 4 players a colour has 9
    settlement tiles, so 12 areas can never be met at 4, while 10 is not judged impossible at 2 or 3."""
    f = tmp_path / "v.rules"
    f.write_text(f'ruleset v "V" extends "{SCOTLAND}"\ndeck mission {{\n  when empty: draw nothing  # S-M1\n'
                 '  card "Towns" 4: count(areas(tiles(me, settlement))) >= players(2 to 3: 10, 4: 12)   # S-M3\n}\n',
                 encoding="utf-8")
    never = [d.message for d in check(load_rules(f), load_board(BOARD)) if d.code == "mission-never-met"]
    assert never == ['card "Towns" can never be met with 4 players: `count(areas(tiles(me, settlement)))` is at '
                     'most 9 (with 4 players a colour has 9 settlement tiles after the returns)']


# ----- English and the editor --------------------------------------------------------------------------------
def test_the_describer_says_the_table() -> None:
    assert expr_text(table_of("Pilgrim")) == "15 with 2 or 3 players, 13 with 4"
    assert expr_text(table_of("Mayor")) == "9 with 2 players, 7 with 3, 5 with 4"
    text = describe(load_rules(SCOTLAND))
    assert "count(near(tiles(you), cathedral)) at least 15 with 2 or 3 players, 13 with 4" in text
    summed = condition(card_text("count(won(me)) >= players(2: 5, 3 to 4: 4) + 1"))
    assert expr_text(summed) == "count(won(you)) at least (5 with 2 players, 4 with 3 or 4) + 1"
    one = condition(card_text("count(won(me)) >= players(1: 3, 2 to 6: 2)")).right  # type: ignore[union-attr]
    assert say_table(one.args) == "3 with 1 player, 2 with 2 to 6"  # type: ignore[union-attr]


def test_the_plain_english_of_a_card_works_the_table_out_at_the_table() -> None:
    """The web page's and terminal's words (card_english) give the table's number for the count at the table,
    worked out by by_count as for arithmetic."""
    from rebirth_dsl.present.describe import card_english

    pilgrim = condition(card_text(f"count(near(tiles(me), cathedral)) >= {PILGRIM}"))

    def at(n: int):  # type: ignore[no-untyped-def]
        return lambda e: (lambda f: None if f is None else f(n))(by_count(e))

    assert card_english(pilgrim, at(3)) == "at least 15 of your tiles are next to a cathedral"
    assert card_english(pilgrim, at(4)) == "at least 13 of your tiles are next to a cathedral"


def test_the_editor_explains_a_table() -> None:
    from rebirth_dsl.lsp.analysis import Analyser, hover
    from rebirth_dsl.lsp.features import signature_at

    text = SCOTLAND.read_text(encoding="utf-8")
    a = Analyser().analyse(text, SCOTLAND)
    line = next(i for i, ln in enumerate(text.split("\n")) if '"Pilgrim"' in ln)
    src = text.split("\n")[line]
    shown = hover(a, line, src.index(PILGRIM) + 2)
    assert shown is not None
    assert shown.startswith("```\nplayers(count: number…) -> int\n```\n")
    assert shown.endswith("\n\nHere: 15 with 2 or 3 players, 13 with 4.")
    on_card = hover(a, line, src.index("Pilgrim") + 1)
    assert on_card is not None and "at least 15 with 2 or 3 players, 13 with 4" in on_card
    assert signature_at(a, line, src.index("4: 13") + 2) == ("players", 1)  # past the entries' colons
    assert signature_at(a, line, src.index("cathedral")) == ("near", 1)
