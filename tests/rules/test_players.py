"""`players`: the number of players at the table, written bare, so a threshold can follow the player count
(`count(won(me)) >= 9 - players`). Read by the closures, the generated Python and the C at 2, 3 and 4 players
(native games replayed by the reference engine), judged by `rebirth check` at each count, said in English.
Its table form, `players(2 to 3: 15, 4: 13)`, is tests/lang/test_player_tables.py's."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import beyond_bundled_findings

from rebirth_dsl import native
from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.compile.closures import compile_expr
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules, parse_text
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.present.describe import describe
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal

ROOT = Path(__file__).resolve().parents[2]
SCOTLAND = ROOT / "rules" / "scotland.rules"
BOARD = ROOT / "boards" / "scotland.json"


def _variant(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "variant.rules"
    f.write_text(f'ruleset variant "A variant" extends "{SCOTLAND}"\n{body}\n', encoding="utf-8")
    return f


def test_players_is_written_bare_and_read_as_a_call() -> None:
    """`players` alone is the call of the built-in (as `players()` is); `me` stays a name."""
    rules = parse_text('ruleset x "X"\ndeck mission {\n  card "A" 4: count(won(me)) >= 9 - players\n}\n')
    (deck,) = [s for s in rules.statements if isinstance(s, A.DeckBlock)]
    cond = deck.cards[0].condition
    assert isinstance(cond, A.BinOp) and isinstance(cond.right, A.BinOp)
    assert isinstance(cond.right.right, A.Call) and cond.right.right.fn == "players" and cond.right.right.args == ()


# A scoring rule and a card that read the count: with n players a placed settlement scores 10 * n, and the
# card asks for at least 9 - n tiles next to the sea.
BODY = """
on place settlement: score players * 10 as headcount                             # S-F1 (variant)
deck mission {
  when empty: draw nothing                                                       # S-M1
  card "Shore" 4: count(near(tiles(me), sea)) >= 9 - players                      # S-M3 (variant)
}
"""


@pytest.mark.parametrize("n", [2, 3, 4])
def test_players_in_the_closures_and_the_generated_python(tmp_path: Path, n: int) -> None:
    """With n players `players` is n and `9 - players` is 9 - n, on the closures and the generated code;
    a placed settlement scores 10 * n on the generated engine."""
    rs = compile_rules(load_rules(_variant(tmp_path, BODY)), load_board(BOARD))
    names = DEFAULT_NAMES[:n]
    g = Game(rs, names, deal(rs, n, 7))
    assert compile_expr(A.Call("players", ()), rs.t)(Ctx(g, 0)) == n
    assert compile_expr(A.BinOp("-", A.Num(9), A.Call("players", ())), rs.t)(Ctx(g, 0)) == 9 - n
    k, v = rs.parse_tile("settlement:1")
    h = next(h for h in range(rs.t.n) if rs.t.hex_kind[h] == "settlement" and len(rs.t.area_hexes[rs.t.area_of[h]]) > 1
             and not any(x in rs.t.hex_tags[h] for x in ("harbour",)))
    compiled(rs).place(g, 0, k, v, h)
    assert g.scores[0].get("headcount") == 10 * n


@pytest.mark.skipif(native.unavailable() is not None, reason=f"no native backend here: {native.unavailable()}")
@pytest.mark.parametrize("n", [2, 3, 4])
def test_players_native_games_replay_on_the_reference_engine(tmp_path: Path, n: int) -> None:
    """The C reads the seat count: native games at each count, replayed by the reference engine, reach the
    same scores per category, each settlement having scored 10 per player."""
    rs = compile_rules(load_rules(_variant(tmp_path, BODY)), load_board(BOARD))
    assert native.unsupported(rs) == []
    eng = native.engine(rs)
    assert eng is not None
    names = DEFAULT_NAMES[:n]
    for seed in range(3):
        ng = eng.play(names, 900 + seed)
        game = Game(rs, names, ng.setup)
        for i, m in enumerate(ng.moves):
            h = rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
            game.play(game.players.index(m["player"]), rs.parse_tile(m["tile"]), h, i, m.get("choices"))
        cats = rs.categories
        assert all(game.scores[p].get("headcount", 0) % (10 * n) == 0 and game.scores[p].get("headcount", 0)
                   for p in range(n))
        end = game.end_events()
        bd = [[game.scores[q].get(c, 0) for c in cats] for q in range(n)]
        for e in end:
            bd[e.player][cats.index(e.category)] += e.points
        assert (game.final_scores(end), bd) == (ng.totals, ng.breakdown)


def test_check_judges_a_card_with_players_at_each_count(tmp_path: Path) -> None:
    """`rebirth check` reads `players` as the count it judges. A colour has 12 settlement tiles (S-C2), 9
    with 4 players (S-U3 returns 3), so `count(areas(tiles(me, settlement))) >= 14 - players` asks for 12
    areas with 2 players (12 tiles: can be met), 11 with 3 (12 tiles: can be met) and 10 with 4 (9 tiles:
    never)."""
    f = _variant(tmp_path, 'deck mission {\n  when empty: draw nothing   # S-M1\n'
                           '  card "Towns" 4: count(areas(tiles(me, settlement))) >= 14 - players   # S-M3\n}')
    found = [d.message for d in beyond_bundled_findings(check(load_rules(f), load_board(BOARD)))]
    assert any('card "Towns" can never be met with 4 players' in m for m in found), found
    assert not any('"Towns" can never be met with 2' in m or '"Towns" can never be met with 3' in m for m in found)


def test_players_in_english(tmp_path: Path) -> None:
    """`rebirth rules` says "the number of players"."""
    text = describe(load_rules(_variant(tmp_path, BODY)))
    assert "at least 9 - the number of players" in text


def test_the_one_ply_evaluation_reads_a_threshold_by_player_count(tmp_path: Path) -> None:
    """The lab agent measures progress towards `E >= 9 - players` against 9 - n with n players (7 with two,
    5 with four), as it does towards a plain number."""
    from rebirth_dsl.play.evaluate import Evaluation

    rs = compile_rules(load_rules(_variant(tmp_path, BODY)), load_board(BOARD))
    card = Evaluation(rs).cards["Shore"]
    assert card.measure is not None
    assert [card.lim(n) for n in (2, 3, 4)] == [7, 6, 5]
