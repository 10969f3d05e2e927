"""First touches (S-M1, and the `by TILES` filter of rules/touch.py), by hand-computed positions in every
engine: the reference, the generated Python engine, the immediate-points reader and the native C engine,
then `eval`, `check` and `rules` through the CLI.

The rules (tests/rules/data/touch-by.rules) extend Scotland with
    on first touch cathedral by settlement: score 2 as pilgrims          # V-T1
    on first touch cathedral by food: score 1 as pilgrims                # V-T2
beside the base game's `on first touch cathedral: draw mission` (S-M1), which counts every tile.

The board is rules/positions/scotland/cathedrals.json: Dunkeld (1,1) has neighbours (2,1),(2,0),(1,0),(0,1),(0,2),(1,2);
Dunblane (3,1) has (4,1),(4,0),(3,0),(2,1),(2,2),(3,2); (2,1) touches both; the settlement hexes are
(1,2) and (2,2), the area Fife (size 2: pays 5, 3, S-A3).

The moves, worked out by hand from RULES.md and the filter's meaning (docs/language.md):
  0 Ann food (1,0): farm 1 (S-F1). First Ann tile next to Dunkeld: draws "Cathedral gift" (S-M1). V-T2: no
    other Ann food next to Dunkeld: +1 pilgrims. Ann: farms 1, pilgrims 1.
  1 Ann food (0,1): next to (1,0): group 2, farms +2. Dunkeld touched already: no card; V-T2: Ann's food
    (1,0) is next to Dunkeld: nothing. Ann: farms 3, pilgrims 1.
  2 Ann settlement:2 (1,2): next to Dunkeld only. S-M1: touched already, no card. V-T1: no Ann settlement
    next to Dunkeld before (her food there does not count): +2. Fife has (2,2) free. Ann: pilgrims 3.
  3 Bob settlement:3 (2,2): next to Dunblane only. First Bob tile there: draws "Harbour master". V-T1: +2.
    Fife complete: Bob 3 influence first -> 5, Ann 2 second -> 3. Bob: pilgrims 2, areas 5; Ann: areas 3.
  4 Bob food (2,1): next to both. S-M1: Dunkeld first for Bob -> draws "Castle lord"; Dunblane touched
    by his settlement: no card. V-T2: no Bob food next to either: +1 +1. Farm 1 (its neighbours hold no
    Bob farm). Bob: pilgrims 4, areas 5, farms 1.
Totals: Ann farms 3 + pilgrims 3 + areas 3 = 9; Bob pilgrims 4 + areas 5 + farms 1 = 10.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rebirth_dsl import native
from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.points import Points
from rebirth_dsl.present.report import evaluate
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.records.record import load_record, make_setup, replay
from rebirth_dsl.rules import touch
from rebirth_dsl.runtime.game import Game

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
RULES = DATA / "touch-by.rules"
BOARD = ROOT / "rules" / "positions" / "scotland" / "cathedrals.json"
DECK = ["Cathedral gift", "Harbour master", "Castle lord", "Clan of the glens"]
MOVES = [("Ann", "food", (1, 0)), ("Ann", "food", (0, 1)), ("Ann", "settlement:2", (1, 2)),
         ("Bob", "settlement:3", (2, 2)), ("Bob", "food", (2, 1))]
WANT = {"Ann": (9, {"farms": 3, "pilgrims": 3, "areas": 3}), "Bob": (10, {"pilgrims": 4, "areas": 5, "farms": 1})}
CARDS = {"Ann": ["Cathedral gift"], "Bob": ["Harbour master", "Castle lord"]}
# what each move scores at once (the module text): farms + pilgrims (+ the area it completes)
AT_ONCE = [1 + 1, 2, 2, 2 + 5, 1 + 2]


def _record(board: str, rules: str) -> dict:
    return {"rules": rules, "board": board, "players": ["Ann", "Bob"], "scenario": True,
            "setup": {"missions": DECK},
            "moves": [{"player": p, "tile": tile, "hex": list(h)} for p, tile, h in MOVES]}


@pytest.fixture(scope="module")
def rs():
    """The filtered rules on the cathedrals board."""
    return compile_rules(load_rules(RULES), load_board(BOARD))


def _position(rs) -> Game:
    """The record's position before its first move, on the fixture's ruleset."""
    loaded = load_record(DATA / "touch-by.json", _record(str(BOARD), str(RULES)), allow_paths=True)
    return Game(rs, ["Ann", "Bob"], make_setup(loaded.record, rs), scenario=True)


def test_S_M1_first_touch_by_kind_counts_only_that_kind_reference() -> None:
    """The reference engine: the hand-computed scores, breakdowns and held cards."""
    loaded = load_record(DATA / "touch-by.json", _record(str(BOARD), str(RULES)), allow_paths=True)
    r = replay(loaded)
    assert r.error is None, r.error.render()
    players = {p["name"]: p for p in evaluate(r.game)["players"]}
    for name, (score, breakdown) in WANT.items():
        assert players[name]["score"] == score
        assert {c: v for c, v in players[name]["breakdown"].items() if v} == breakdown
        assert players[name]["cards"] == CARDS[name]


def test_S_M1_first_touch_by_kind_generated_python(rs) -> None:
    """The generated engine's placement (a quiet game: points only) reaches the same totals and cards."""
    g = _position(rs)
    g.quiet = True
    place = compiled(rs).place
    for who, tile, h in MOVES:
        k, v = rs.parse_tile(tile)
        place(g, g.players.index(who), k, v, rs.t.index[h])
    for q, name in enumerate(g.players):
        assert g.track[q] == WANT[name][0]
        assert {c: x for c, x in g.scores[q].items() if x} == WANT[name][1]
        assert g.held[q] == CARDS[name]


def test_S_M1_first_touch_by_kind_immediate_points(rs) -> None:
    """The immediate-points reader prices each move as the module text adds it up, before it is played."""
    g = _position(rs)
    pts = Points(rs)
    for (who, tile, h), want in zip(MOVES, AT_ONCE, strict=True):
        p, t, hx = g.players.index(who), rs.parse_tile(tile), rs.t.index[h]
        assert pts.one(g, p, t, hx) == want, (who, tile, h)
        g.play(p, t, hx)


def test_S_M1_the_filter_is_read_off_the_board() -> None:
    """The kernel: a landmark counts as untouched by p's kinds when no other hex next to it holds such a tile."""
    owner, tkind = [-1, 0, 1, 0], [-1, 2, 2, 1]  # hex 1: p0's kind 2; hex 2: p1's kind 2; hex 3: p0's kind 1
    near = (1, 2, 3)
    assert not touch.untouched_by(near, owner, tkind, 0, 3, {2})  # p0's kind-2 tile on hex 1
    assert touch.untouched_by(near, owner, tkind, 0, 1, {2})  # hex 1 is the one just placed on
    assert touch.untouched_by(near, owner, tkind, 1, 2, {2})  # p1 has only the new tile there
    assert not touch.untouched_by(near, owner, tkind, 0, 1, {1, 2})  # hex 3 holds p0's kind 1
    assert touch.first_touches((4, 5, 6), {5}) == (4, 6)


def test_S_M1_eval_via_the_cli(run_cli, tmp_path: Path) -> None:
    """`rebirth eval --json` of the record gives the hand-computed totals."""
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(_record(str(BOARD), str(RULES))))
    code, out, err = run_cli("eval", rec, "--allow-paths", "--json")
    assert code == 0, err
    got = {p["name"]: p["score"] for p in json.loads(out)["players"]}
    assert got == {name: score for name, (score, _) in WANT.items()}


def test_S_M1_check_names_an_unknown_kind_at_its_place(run_cli, tmp_path: Path) -> None:
    """A misspelt kind after `by` is refused with a suggestion and a caret under the name."""
    bad = tmp_path / "bad.rules"
    bad.write_text(f'ruleset bad "bad" extends "{ROOT / "rules" / "scotland.rules"}"\n\n'
                   "on first touch cathedral by settlment: score 2 as pilgrims\n")
    code, _, err = run_cli("check", bad)
    assert code == 1
    lines = err.splitlines()
    i = next(n for n, ln in enumerate(lines) if "unknown tile kind or class `settlment`" in ln)
    assert lines[i].startswith(f"{bad}:3:29:")
    src, caret = lines[i + 1], lines[i + 2]
    assert src.index("settlment") == caret.index("^")
    assert "did you mean `settlement`?" in err


def test_S_M1_check_refuses_a_filter_that_can_never_fire(run_cli, tmp_path: Path) -> None:
    """A filter on a kind no `place` rule places, and a filtered ability, are refused."""
    bad = tmp_path / "bad.rules"
    bad.write_text(f'ruleset bad "bad" extends "{ROOT / "rules" / "scotland.rules"}"\n\n'
                   "tiles {\n  stone x1\n}\n"
                   "on first touch cathedral by stone: score 2 as pilgrims\n"
                   "on first touch castle by food: use ability\n")
    code, _, err = run_cli("check", bad)
    assert code == 1
    assert "no `place` rule places a stone tile: this first touch by stone never fires" in err
    assert "`use ability` takes no `by` filter" in err


def test_S_M1_rules_in_english_carry_their_ids(run_cli) -> None:
    """`rebirth rules` says the filter in words, with the statement's rule ids."""
    code, out, err = run_cli("rules", RULES)
    assert code == 0, err
    assert ("- The first time you place a settlement next to a cathedral (counting only your settlement tiles "
            "there), you score 2 (pilgrims). [V-T1]") in out.splitlines()
    assert "- The first time you place next to a cathedral, you draw the top mission card. [S-M1]" in out.splitlines()


# ----- the native engine ---------------------------------------------------------------------------
WHY = native.unavailable()


def _oracle_pilgrims(rs, moves: list[dict]) -> dict[str, int]:
    """V-T1 and V-T2 counted from the rule's words alone, over a record's moves: a settlement (food) scores 2
    (1) per cathedral next to it that no earlier settlement (food) of the same player is next to."""
    t = rs.t
    seen: dict[tuple[str, str], set[int]] = {}  # (player, kind) -> cathedrals their tiles of that kind touch
    pts: dict[str, int] = {}
    for m in moves:
        kind = m["tile"].split(":")[0]
        if m["hex"] is None or kind not in ("settlement", "food"):
            continue
        h = t.index[tuple(m["hex"])]
        near = {t.landmark_of_hex[x] for x in t.neighbours[h]
                if x in t.landmark_of_hex and t.landmark_kind[t.landmark_of_hex[x]] == "cathedral"}
        mine = seen.setdefault((m["player"], kind), set())
        pts[m["player"]] = pts.get(m["player"], 0) + (2 if kind == "settlement" else 1) * len(near - mine)
        mine |= near
    return pts


@pytest.mark.skipif(WHY is not None, reason=f"the native backend cannot run here: {WHY}")
def test_S_M1_first_touch_by_kind_native() -> None:
    """Native games on Scotland's board with the filtered rules: the pilgrims each seat scores equal the
    rule's words counted over the game's own moves, and the reference engine replays each game to the
    same scores."""
    rs = compile_rules(load_rules(RULES), load_board(ROOT / "boards" / "scotland.json"))
    eng = native.engine(rs)
    assert eng is not None
    cat = rs.categories.index("pilgrims")
    scored = 0
    for seed in range(6):
        names = ["Ann", "Bob", "Cat"]
        g = eng.play(names, 300 + seed)
        want = _oracle_pilgrims(rs, g.moves)
        assert [g.breakdown[q][cat] for q in range(3)] == [want.get(n, 0) for n in names]
        scored += sum(want.values())
        ref = Game(rs, names, g.setup)
        for i, m in enumerate(g.moves):
            h = rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
            ref.play(ref.players.index(m["player"]), rs.parse_tile(m["tile"]), h, i, m.get("choices"))
        assert ref.final_scores(ref.end_events()) == g.totals
    assert scored > 0


def test_S_M1_two_statements_of_a_kind_act_on_one_first_touch(tmp_path: Path) -> None:
    """The first touches are marked after every reaction, so a second `on first touch cathedral` (a score
    beside the base game's draw) acts on the same touch, in the reference, generated and points engines.
    Ann food (1,0), next to Dunkeld: farm 1 + pilgrims 2 = 3, and she draws "Cathedral gift"."""
    two = tmp_path / "two.rules"
    two.write_text(f'ruleset two "two" extends "{ROOT / "rules" / "scotland.rules"}"\n\n'
                   "on first touch cathedral: score 2 as pilgrims                        # V-T1\n")
    rs = compile_rules(load_rules(two), load_board(BOARD))
    h, tile = rs.t.index[(1, 0)], rs.parse_tile("food")
    g = _position(rs)
    assert Points(rs).one(g, 0, tile, h) == 3
    q = g.clone()
    q.quiet = True
    compiled(rs).place(q, 0, tile[0], tile[1], h)
    g.play(0, tile, h)
    for game in (g, q):
        assert game.track[0] == 3 and game.held[0] == ["Cathedral gift"]


def test_S_M1_the_editor_explains_the_filter() -> None:
    """LSP: hover on `by` gives the filter's meaning, hover on the statement its English, and `by` is offered
    as a keyword with the tile kinds."""
    from rebirth_dsl.lsp.analysis import Analyser, completions, hover

    text = RULES.read_text(encoding="utf-8")
    a = Analyser().analyse(text, RULES)
    assert not [p for p in a.problems if p.severity == "error"], a.problems
    line = next(i for i, ln in enumerate(text.split("\n")) if "by settlement" in ln)
    src = text.split("\n")[line]
    assert hover(a, line, src.index(" by ") + 2) == touch.BY_DOC
    on_kind = hover(a, line, src.index("settlement") + 1)
    assert on_kind is not None and "The first time you place a settlement next to a cathedral" in on_kind
    assert "V-T1" in on_kind
    labels = {c.label for c in completions(a, a.symbols, line, src.index(" by ") + 4)}
    assert {"by", "settlement", "food"} <= labels


def test_S_M1_without_removes_only_the_filtered_statement(tmp_path: Path) -> None:
    """`without on first touch cathedral by settlement` removes that statement; the unfiltered draw stays."""
    child = tmp_path / "child.rules"
    child.write_text(f'ruleset child "child" extends "{RULES}"\n\nwithout on first touch cathedral by settlement\n')
    rs = compile_rules(load_rules(child), load_board(BOARD))
    touches = [(r.kind, r.by) for r in rs.reactions if type(r).__name__ == "TouchRule"]
    food = rs.tile_kinds.index("food")
    assert touches == [("cathedral", None), ("cathedral", frozenset({food}))]
