"""Rule details no reference position shows, each worked out by hand from RULES.md (and the decisions the
README records where RULES.md leaves room). Found by the mutation run (tools/mutate.py, docs/testing.md):
each test here kills a planted bug that every other test let through."""

from __future__ import annotations

from pathlib import Path

from conftest import BOARDS, ROOT, RULES

from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import Setup, deal

PROVINCE = ROOT / "rules" / "positions" / "ireland" / "province.json"


def test_I_M1_ireland_lays_eight_public_missions_from_the_top_of_the_deck() -> None:
    """I-M1: 8 public mission cards lie face up (`public 8 from mission`): the top 8 of the shuffled deck;
    the others stay in the deck for the round towers' private missions (I-R1)."""
    rs = load_ruleset(RULES / "ireland.rules", BOARDS / "ireland.json")[0]
    for n in (2, 3, 4):
        setup = deal(rs, n, 7)
        game = Game(rs, ["Ann", "Bob", "Cat", "Dan"][:n], setup)
        assert game.public == setup.decks["mission"][:8]
        assert game.decks["mission"] == setup.decks["mission"][8:]


def test_I_M1_public_missions_check_the_placer_first(tmp_path: Path) -> None:
    """I-M1 (README decision: the placer is checked first, then clockwise): a card every player fulfils at
    once goes first to the placer, even in the second seat. Ireland with its deck replaced by one card that
    is always fulfilled, "Gift" 5 / 2, laid face up. Bob (seat 2) places a food on the plain (0,0) of province.json:
    checked after the placement, Bob first -> 5 (the big number), then Ann later -> 2 (the small one)."""
    rules = tmp_path / "gift.rules"
    rules.write_text(f'ruleset gift "Gift" extends "{RULES / "ireland.rules"}"\n'
                     'setup {\n  public 1 from mission   # I-M1\n}\n'
                     'deck mission {\n  card "Gift" 5 / 2: always   # I-M1\n}\n')
    rs = load_ruleset(rules, PROVINCE)[0]
    game = Game(rs, ["Ann", "Bob"], Setup([[], []], [[], []], {"mission": ["Gift"]}), scenario=True)
    assert game.public == ["Gift"]
    game.play(1, rs.parse_tile("food"), game.t.index[(0, 0)], 0)
    assert game.public_by["Gift"] == [1, 0]
    assert [game.scores[q].get("public_missions", 0) for q in (0, 1)] == [2, 5]


def test_I_U1_I_R1_a_taken_set_aside_tile_leaves_the_set_aside_pile() -> None:
    """I-U1, I-R1: Ann's 4 set-aside tiles are settlement:4, settlement:3, energy, food. On abbey.json her
    food on (1,0) first touches Turlough (take a set-aside tile) and she takes settlement:4: it joins her
    hand, with the food she then draws (S-T1), and leaves the pile, which holds 3 tiles: it can never be
    taken twice."""
    rs = load_ruleset(RULES / "ireland.rules", ROOT / "rules" / "positions" / "ireland" / "abbey.json")[0]
    tiles = [rs.parse_tile(t) for t in ("settlement:4", "settlement:3", "energy", "food")]
    supply = [rs.parse_tile(t) for t in ("food", "food", "energy")]
    decks = {name: [c.name for c in cards] for name, cards in rs.decks.items()}
    game = Game(rs, ["Ann", "Bob"], Setup([list(tiles), list(tiles)], [list(supply), list(supply)], decks))
    game.play(0, rs.parse_tile("food"), game.t.index[(1, 0)], 0, {"Turlough": {"take": "settlement:4"}})
    assert sorted(rs.tile_name(*t) for t in game.set_aside[0]) == ["energy", "food", "settlement:3"]
    assert sorted(rs.tile_name(*t) for t in game.hand[0]) == ["food", "settlement:4"]


def test_S_M3_fewest_is_fulfilled_on_a_tie(tmp_path: Path) -> None:
    """S-M3: cards that compare with other players are fulfilled on a tie, `fewest` as `most`. Scotland with
    one card, "Humble" 5: fewest(count(tiles(me, food))), held by both players, on field.json. Ann's food
    on (0,0), Bob's on (3,0): 1 = 1, both fulfil (5 each); Bob's second food on (2,1): Ann 1 < 2 fulfils, Bob
    does not."""
    rules = tmp_path / "humble.rules"
    rules.write_text(f'ruleset humble "Humble" extends "{RULES / "scotland.rules"}"\n'
                     'deck mission {\n  card "Humble" 5: fewest(count(tiles(me, food)))   # S-M3\n}\n')
    rs = load_ruleset(rules, ROOT / "rules" / "positions" / "scotland" / "field.json")[0]
    held = [["Humble"], ["Humble"]]
    game = Game(rs, ["Ann", "Bob"], Setup([[], []], [[], []], {"mission": []}, None, held), scenario=True)
    food = rs.parse_tile("food")
    game.play(0, food, game.t.index[(0, 0)], 0)
    game.play(1, food, game.t.index[(3, 0)], 1)

    def missions() -> list[int]:
        return [sum(e.points for e in game.end_events() if e.player == q and e.category == "missions") for q in (0, 1)]

    assert missions() == [5, 5]
    game.play(1, food, game.t.index[(2, 1)], 2)
    assert missions() == [5, 0]
