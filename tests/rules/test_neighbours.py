"""`neighbours(H)`: the hexes next to a hex or a set of hexes, the given hexes left out. A hand-computed
position on the field board, read by the reference engine and by the generated Python engine; native games
of a variant using it replayed by the reference engine (so the C agrees with the hand-computed reference);
and its check error, English and editor help."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import beyond_bundled_findings

from rebirth_dsl import native
from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.lsp.analysis import Analyser, completions, hover
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.present.describe import describe
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.records.record import load_record, make_setup, replay
from rebirth_dsl.runtime.game import Game

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VARIANT = HERE / "neighbours.rules"
FIELD = ROOT / "rules" / "positions" / "scotland" / "field.json"
SCOTLAND = ROOT / "rules" / "scotland.rules"

# field.json (see its notes): (q,0) touches (q-1,0), (q+1,0), (q-1,1), (q,1); (q,1) touches (q-1,1), (q+1,1),
# (q,0), (q+1,0). Kinds: row 0 plain, plain, food, food, energy; row 1 food, plain, plain, energy, energy.
MOVES = [
    ("Ann", "food", (2, 0)),
    ("Ann", "food", (3, 0)),
    ("Bob", "energy", (4, 1)),
    ("Bob", "energy", (3, 1)),
    ("Ann", "energy", (4, 0)),
]
# The arithmetic, from RULES.md S-F1 (a farm scores its group) and the two variant rules:
# move 0 Ann food (2,0): neighbours (3,0) food, (1,0) plain, (1,1) plain, (2,1) plain: 0 energy -> wells 0;
#        group {(2,0)} -> farms 1
# move 1 Ann food (3,0): neighbours (4,0) energy, (2,0) food, (2,1) plain, (3,1) energy: 2 -> wells 2;
#        group {(2,0),(3,0)} -> farms 1+2 = 3
# move 2 Bob energy (4,1): group {(4,1)}, its neighbours (4,0), (3,1) -> edges 2; farms 1
# move 3 Bob energy (3,1): group {(4,1),(3,1)}; (4,1)'s neighbours (4,0), (3,1) and (3,1)'s (4,1), (4,0),
#        (3,0), (2,1): the union less the group itself = {(4,0), (3,0), (2,1)} -> edges 3, Bob edges 2+3 = 5;
#        farms 2, Bob farms 1+2 = 3
# move 4 Ann energy (4,0): Bob's energy next to it is not Ann's group: group {(4,0)}, neighbours (3,0),
#        (3,1), (4,1) -> edges 3; farms 1, Ann farms 3+1 = 4
EXPECTED = {"Ann": {"farms": 4, "wells": 2, "edges": 3}, "Bob": {"farms": 3, "edges": 5}}


def _record() -> dict:
    return {"rules": "neighbours.rules", "board": "../../rules/positions/scotland/field.json", "players": ["Ann", "Bob"],
            "scenario": True, "setup": {},
            "moves": [{"player": p, "tile": k, "hex": list(h)} for p, k, h in MOVES]}


def _scores(g: Game) -> dict[str, dict[str, int]]:
    return {name: {c: v for c, v in g.scores[p].items() if v} for p, name in enumerate(g.players)}


def test_S_F1_neighbours_scores_the_hexes_next_to_a_placement_on_the_reference_engine() -> None:
    """The record replayed by the reference engine (placement and reactions) gives the hand-computed scores."""
    loaded = load_record(HERE / "position.json", _record(), allow_paths=True)
    r = replay(loaded)
    assert r.error is None, r.error.render()
    assert _scores(r.game) == EXPECTED


def test_S_F1_neighbours_scores_the_same_on_the_generated_python_engine() -> None:
    """The same moves through the generated `place` (pyengine/fast.py, the expressions of exprgen.py)."""
    loaded = load_record(HERE / "position.json", _record(), allow_paths=True)
    rs = loaded.rs
    g = Game(rs, ["Ann", "Bob"], make_setup(loaded.record, rs), scenario=True)
    place = compiled(rs).place
    for name, kind, h in MOVES:
        k, v = rs.parse_tile(kind)
        place(g, g.players.index(name), k, v, rs.t.index[h])
    assert _scores(g) == EXPECTED


def test_S_F1_neighbours_of_one_hex_and_of_a_set_in_the_closures() -> None:
    """The closures (the reference the generated code is tested against) on the position: the set form
    leaves the set out, the one-hex form is the hex's ring."""
    from rebirth_dsl.compile.closures import compile_expr
    from rebirth_dsl.compile.prims import Ctx
    from rebirth_dsl.lang import ast as A

    loaded = load_record(HERE / "position.json", _record(), allow_paths=True)
    g = replay(loaded).game
    t = loaded.rs.t
    at = t.index
    group = A.Call("neighbours", (A.Call("group", (A.Name("placed"),)),))
    one = A.Call("neighbours", (A.Name("placed"),))
    # Bob's group {(4,1),(3,1)}: next to it (4,0), (3,0), (2,1) (move 3 above)
    assert sorted(compile_expr(group, t)(Ctx(g, 1, at[(3, 1)], 0))) == sorted(at[h] for h in [(4, 0), (3, 0), (2, 1)])
    # (0,0) is a corner: (1,0) and (0,1)
    assert sorted(compile_expr(one, t)(Ctx(g, 0, at[(0, 0)], 0))) == sorted(at[h] for h in [(1, 0), (0, 1)])


def _variant(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "variant.rules"
    f.write_text(f'ruleset variant "A variant" extends "{SCOTLAND}"\n{body}\n', encoding="utf-8")
    return f


NATIVE_BODY = """
on place food: score count(at(neighbours(placed), sea)) as shores                   # S-F1
on place energy: score count(neighbours(group(placed))) as edges                  # S-F1
on place settlement: score influence(neighbours(placed)) as neighbourhood         # S-F1
deck mission {
  when empty: draw nothing                                                        # S-M1
  card "Borders" 3: count(neighbours(tiles(me, settlement))) >= 55                 # S-M3
  card "Sea view" 3: count(at(neighbours(tiles(me)), sea)) >= 42                   # S-M3
}
"""


@pytest.mark.skipif(native.unavailable() is not None, reason=f"no native backend here: {native.unavailable()}")
def test_S_F1_neighbours_native_games_replay_on_the_reference_engine(tmp_path: Path) -> None:
    """neighbours in C (one hex and a set, counted, under `at`, in an attribute sum and in mission cards): native games of a
    variant on the Scotland board, replayed move by move by the reference engine, reach the same scores per
    category (the reference agrees with the hand-computed position above)."""
    rs = compile_rules(load_rules(_variant(tmp_path, NATIVE_BODY)), load_board(ROOT / "boards" / "scotland.json"))
    assert native.unsupported(rs) == []
    eng = native.engine(rs)
    assert eng is not None
    for seed in range(6):
        names = DEFAULT_NAMES[:3]
        ng = eng.play(names, 500 + seed)
        game = Game(rs, names, ng.setup)
        for i, m in enumerate(ng.moves):
            h = rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
            game.play(game.players.index(m["player"]), rs.parse_tile(m["tile"]), h, i, m.get("choices"))
        cats = rs.categories
        assert all(game.scores[p].get("edges", 0) and game.scores[p].get("neighbourhood", 0) for p in range(3))
        end = game.end_events()
        bd = [[game.scores[q].get(c, 0) for c in cats] for q in range(3)]
        for e in end:
            bd[e.player][cats.index(e.category)] += e.points
        assert (game.final_scores(end), bd) == (ng.totals, ng.breakdown)


def test_neighbours_of_a_player_is_refused_by_the_checker(tmp_path: Path) -> None:
    """`neighbours` takes a hex or hexes: a player is a type error at the argument."""
    f = _variant(tmp_path, "on place food: score count(neighbours(me)) as wells           # S-F1")
    found = beyond_bundled_findings(check(load_rules(f), load_board(ROOT / "boards" / "scotland.json")))
    assert [d.message for d in found] == ["expected hexes or hex, got player"], found
    assert found[0].col == len("on place food: score count(neighbours(") + 1
    with pytest.raises(RebirthError, match="expected hexes or hex, got player"):
        compile_rules(load_rules(f), load_board(ROOT / "boards" / "scotland.json"))


def test_neighbours_in_english_and_in_the_editor(tmp_path: Path) -> None:
    """`rebirth rules` says "the hexes next to"; the LSP hovers and completes it with its signature."""
    text = describe(load_rules(VARIANT))
    assert "count(at(the hexes next to placed, energy))" in text
    assert "count(the hexes next to group(placed))" in text
    src = VARIANT.read_text(encoding="utf-8")
    a = Analyser().analyse(src, VARIANT)
    i = src.index("neighbours(placed)")
    line, col = src.count("\n", 0, i), i - (src.rfind("\n", 0, i) + 1)
    h = hover(a, line, col + 2)
    assert h is not None and "neighbours(hexes or hex) -> hexes" in h and "not counting those hexes" in h
    labels = {c.label: c for c in completions(a, a.symbols, line, col)}
    assert labels["neighbours"].detail == "neighbours(hexes or hex) -> hexes"
