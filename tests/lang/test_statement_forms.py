"""The language keeps its word: every statement form the grammar accepts either changes what happens in a
game or is refused by `check` at its position. The forms are read from the grammar itself, so a form added
to grammar.lark without a case here fails `test_every_form_has_a_case`.

A case edits a bundled rules file (the statement as written there, against the same file with the
statement removed or changed) and plays the same seeded game with both; the outcomes (scores, castles,
held cards and every event) must differ, or `check` must refuse one of them.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT

from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import lark_parser, load_rules
from rebirth_dsl.play.agents import RandomAgent
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.present.report import evaluate, explain
from rebirth_dsl.records.record import load_record, load_ruleset, replay

RULES = ROOT / "rules"

# the grammar's containers: their forms are the alternatives inside them
CONTAINERS = {"tiles_block", "setup_block", "area_block", "majority_block", "deck_block", "end_block", "trigger",
              "without", "ability_decl"}
SUBFORMS = ("setup_item", "area_item", "majority_item", "ability_effect", "end_item", "tb_step", "tile_spec",
            "without", "deck_empty", "public_order")


def grammar_forms(parser: object = None) -> set[str]:
    """Every statement form of the grammar: item alternatives, the alternatives inside blocks, and each
    trigger event with each action."""
    rules = (parser or lark_parser()).rules  # type: ignore[attr-defined]
    by_origin: dict[str, set[str]] = {}
    for r in rules:
        name = r.alias or " ".join(str(getattr(x, "name", x)) for x in r.expansion)
        by_origin.setdefault(r.origin.name, set()).add(name)
    forms = {f for f in by_origin["item"] if f not in CONTAINERS}
    for origin in SUBFORMS:
        forms |= by_origin[origin]
    forms |= {f"{e}+{a}" for e, a in itertools.product(by_origin["event"], by_origin["action"])}
    forms |= {"extends"}  # the header's `extends` clause
    return forms


@dataclass(frozen=True)
class Case:
    """The statement's file, the text as written there (`old`) and the text without it (`new`)."""

    rules: str  # a bundled ruleset
    old: str
    new: str
    players: int = 3
    board: str = ""  # default: the ruleset's own
    refused: bool = False  # the form itself is refused by check (the `new` text is the refused one)
    record: str = ""  # a scenario (JSON, see RECORDS) played instead of a random game
    both: tuple[tuple[str, str], ...] = ()  # edits made to both texts (a card the scenario needs)


SC, IE = "scotland", "ireland"
FREE_CARD = (('card "Round tower pilgrim" 7 / 3: count(touched(me, tower)) >= 8',
              'card "Free" 5 / 1: always'),)
# scenarios for forms a random game does not reach (hand-made: ties, a forced fallback, a card all fulfil)
RECORDS = {
    # food on both food hexes and the plain, then a food with only energy free: legal only as a fallback
    "fallback": {"players": ["Ann", "Bob"], "scenario": True, "over": True, "moves": [
        {"player": "Ann", "tile": "food", "hex": [1, 0]}, {"player": "Bob", "tile": "food", "hex": [0, 1]},
        {"player": "Ann", "tile": "food", "hex": [0, 0]}, {"player": "Bob", "tile": "food", "hex": [2, 0]}]},
    # Ann 10 + food next to Edinburgh (takes it, farm 1) + 5 for the castle = 16; Bob 16: a tie the clover breaks
    "clover_tie": {"players": ["Ann", "Bob"], "scenario": True, "over": True, "setup": {"scores": {"Ann": 10, "Bob": 16}, "missions": []},
                   "moves": [{"player": "Ann", "tile": "food", "hex": [4, 15]}]},
    # Bob 11 + food next to Stirling (farm 1, castle 5) = 17 = Ann's 17; nobody holds the clover castle
    # (an empty mission deck: a cathedral nearby draws nothing)
    "stirling_tie": {"players": ["Ann", "Bob"], "scenario": True, "over": True,
                     "setup": {"scores": {"Ann": 17, "Bob": 11}, "missions": []}, "moves": [{"player": "Bob", "tile": "food", "hex": [3, 13]}]},
    # a face-up card everyone fulfils at the first placement, made by Bob: who is checked first takes it big
    "free_card": {"players": ["Ann", "Bob", "Cat"], "scenario": True,
                  "setup": {"decks": {"mission": ["Free", "Wind farmer", "Harvest", "Peat power", "Town council",
                                                  "Castle keeper", "Green fields", "Coastal clans"]}},
                  "moves": [{"player": "Bob", "tile": "food", "hex": [10, 3]}]},
}
CASES: dict[str, Case] = {
    "extends": Case(IE, 'ruleset ireland "Rebirth: Ireland" extends "scotland.rules"', 'ruleset ireland "Rebirth: Ireland"'),
    "players_range": Case(SC, "players 2 to 4", "players 3 to 4", players=2),
    # the board a game is played on is the test's own (--board overrides it): a board that is not there
    # is refused at the statement; tests/surfaces/test_variant_author.py plays on the board one names
    "board_decl": Case(SC, "one tile per hex", "one tile per hex\nboard nowhere", refused=True),
    # without the declaration, `public_missions` reads as a misspelling of Scotland's `missions`: refused
    "category_decl": Case(IE, "category public_missions", ""),
    "hex_decl": Case(SC, "hex plain, food, energy, settlement, sea", "hex plain, food, energy, settlement"),
    "landmark_decl": Case(SC, "landmark castle, cathedral", "landmark castle"),
    "tag_decl": Case(SC, "tag neutral ", "# no neutral tag "),
    "class_decl": Case(SC, "class farm = food, energy", "class farm = food", players=4),
    "place_rule": Case(SC, "place food on food, plain", "place food on food"),
    "fallback_rule": Case(SC, "fallback food on energy", "", players=2, board="rules/positions/scotland/fallback.json",
                          record="fallback"),
    "one_tile": Case(SC, "one tile per hex", ""),
    "turns": Case(SC, "turns clockwise", ""),
    "pass_rule": Case(SC, "when no hex is legal: pass", ""),
    "group_decl": Case(SC, "group food, energy", "group food"),
    "public_decl": Case(IE, "public mission as public_missions: first big, later small, placer first", ""),
    "tile_plain": Case(SC, "food x12", "food x11"),
    "tile_valued": Case(SC, "settlement influence 1 x3, 2 x4, 3 x3, 4 x2", "settlement influence 1 x4, 2 x3, 3 x3, 4 x2"),
    "set_aside": Case(SC, "set aside 2 visible", "set aside 3 visible"),
    "hand": Case(SC, "hand 1", "hand 2"),
    "returns": Case(SC, "players 4: return food x3, energy x3, settlement:2, settlement:3, settlement:4", "", players=4),
    "neutral": Case(SC, "players 2: neutral 32 on neutral", "players 2: neutral 20 on neutral", players=2),
    "public_setup": Case(IE, "public 8 from mission", "public 6 from mission"),
    "rank_by": Case(SC, "rank by influence", ""),
    "ties": Case(SC, "ties: completer last, then clockwise from completer", "ties: completer first, then seat order",
                 players=4),
    "pay": Case(SC, "pay size 2: 5, 3", "pay size 2: 5, 1"),
    "alone": Case(SC, "alone: first + second", ""),
    "over_adjacent": Case(SC, "over adjacent", ""),
    "unowned_takes": Case(SC, "unowned: placer takes", ""),
    "compare": Case(SC, "compare tiles any, then tiles farm", "compare tiles farm", players=4),
    "final_owner": Case(SC, "final tie: owner keeps", "final tie: placer takes", players=4),
    "final_placer": Case("variants/korean-castles", "final tie: placer takes", "final tie: owner keeps", players=4),
    "ab_score": Case(IE, "ability score_3: score 3 as towers", "ability score_3: score 4 as towers", players=4),
    "ab_take_aside": Case(IE, "ability extra_tile: take set aside", "ability extra_tile: score 0 as towers", players=4),
    "ab_draw_keep": Case(IE, "ability draw_three: draw 3 keep 1, rest to bottom",
                         "ability draw_three: draw 3 keep 1, rest to box", players=4),
    "ab_draw_card": Case(IE, "ability private_mission: draw mission", "ability private_mission: score 0 as towers",
                         players=4),
    "ab_double": Case(IE, "ability double_mission: double mission by 2, 1 per player, on unfulfilled",
                      "ability double_mission: double mission by 3, 1 per player, on unfulfilled", players=4),
    "end_incomplete": Case(SC, "incomplete settlement: influence as incomplete_areas", ""),
    "end_owned": Case(SC, "each castle owned: 5 as castles", "each castle owned: 4 as castles"),
    "end_held": Case(SC, "held cards as missions", ""),
    "winner_ties": Case(SC, 'winner ties: owner(castle with clover) among tied, then owner(castle "Stirling") anywhere',
                        "", players=2, record="clover_tie"),
    "tb_among": Case(SC, "owner(castle with clover) among tied, then", "", players=2, record="clover_tie"),
    "tb_anywhere": Case(SC, ', then owner(castle "Stirling") anywhere', "", players=2, record="stirling_tie"),
    "without_trigger": Case(IE, "without on place any at harbour", ""),
    "without_ability": Case(IE, "ability score_13: score 13 as towers", "without ability score_13", players=4),
    "empty_nothing": Case(SC, "when empty: draw nothing", "when empty: score 2 as consolation", players=4),
    "empty_score": Case(SC, "when empty: draw nothing", "when empty: score 2 as consolation", players=4),
    "order_placer_first": Case(IE, "first big, later small, placer first", "first big, later small, seat order",
                               players=3, record="free_card", both=FREE_CARD),
    "order_seats": Case(IE, "first big, later small, placer first", "first big, later small, seat order", players=3,
                        record="free_card", both=FREE_CARD),
    "ev_place+act_score": Case(SC, "on place any at harbour: score 1 as harbours", ""),
    "ev_place+act_draw": Case(SC, "on first touch cathedral: draw mission",
                              "on first touch cathedral: draw mission\non place settlement: draw mission"),
    "ev_place+act_ability": Case(IE, "on first touch tower: use ability",
                                 "on first touch tower: use ability\non place food: use ability", refused=True),
    "ev_touch+act_score": Case(SC, "on first touch cathedral: draw mission",
                               "on first touch cathedral: draw mission\non first touch castle: score 2 as visits"),
    "ev_touch+act_draw": Case(SC, "on first touch cathedral: draw mission", ""),
    "ev_touch+act_ability": Case(IE, "on first touch tower: use ability", ""),
}


def outcome(rules_text: str, file_name: str, board: str, players: int, record: str = "", seed: int = 5) -> str:
    """What a seeded game of random agents (or the scenario) comes to under these rules, or the refusal."""
    path = Path(file_name)
    path.write_text(rules_text)
    try:
        rules = load_rules(path)
        compile_rules(rules, load_board(board))  # check refuses here, before any play
        if record:
            data = dict(RECORDS[record], rules=str(path), board=board)
            r = replay(load_record(path.with_suffix(".json"), data, allow_paths=True))
            refused = r.error.render() if r.error else ""
            return json.dumps([evaluate(r.game), explain(r.game), refused], sort_keys=True)
        rs = load_ruleset(path, Path(board))[0]
        game, _ = play_game(rs, DEFAULT_NAMES[:players], [RandomAgent()] * players, seed)
    except RebirthError as e:
        return "refused: " + e.render()
    return json.dumps([evaluate(game), explain(game)], sort_keys=True)


def test_every_form_has_a_case() -> None:
    """A form the grammar gains without a case here fails; a case for a form the grammar lost fails too."""
    assert set(CASES) == grammar_forms()


def test_the_form_list_can_fail() -> None:
    """A grammar with one more setup item (planted here) has a form no case covers: the coverage test would
    fail on it."""
    from lark import Lark

    text = (ROOT / "rebirth_dsl" / "lang" / "grammar.lark").read_text()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith('| "hand" INT'))
    planted = text.replace(line, line + '\n           | "bonus" INT -> bonus')
    forms = grammar_forms(Lark(planted, parser="lalr", maybe_placeholders=True))
    assert forms - set(CASES) == {"bonus"}


@pytest.mark.parametrize("form", sorted(CASES))
def test_each_form_changes_the_game_or_is_refused(form: str, tmp_path: Path) -> None:
    """With the statement and without it (or with it changed), the same seeded game ends differently; or
    check refuses the statement at its own line."""
    case = CASES[form]
    base_file = RULES / f"{case.rules}.rules"
    text = base_file.read_text()
    assert case.old in text or case.refused, f"{form}: {case.old!r} is not in {base_file.name}"
    # extends paths are relative to the file: make them absolute for the copy in tmp_path
    text = text.replace('extends "../scotland.rules"', f'extends "{RULES / "scotland.rules"}"')
    text = text.replace('extends "scotland.rules"', f'extends "{RULES / "scotland.rules"}"')
    old = case.old.replace('extends "scotland.rules"', f'extends "{RULES / "scotland.rules"}"')
    new = case.new
    for a, b in case.both:
        assert a in text
        text = text.replace(a, b)
    board = str(ROOT / case.board) if case.board else str(_default_board(case.rules))
    with_it = text if not case.refused else text.replace(old, new)
    without_it = text.replace(old, new) if not case.refused else text
    a = outcome(with_it, str(tmp_path / "with.rules"), board, case.players, case.record)
    b = outcome(without_it, str(tmp_path / "without.rules"), board, case.players, case.record)
    if case.refused:
        assert a.startswith("refused") and "with.rules" in a, a[:300]
        assert not b.startswith("refused"), b[:300]
        line = next(i for i, ln in enumerate(with_it.splitlines(), 1) if ln.strip().startswith(new.splitlines()[-1]))
        assert f"with.rules:{line}:" in a, a[:300]
    else:
        assert not a.startswith("refused"), a[:400]
        assert a != b, f"{form}: the statement changes nothing in this game"


def _default_board(rules: str) -> Path:
    from rebirth_dsl.records.resources import default_board, find

    return default_board(find("rules", rules))  # type: ignore[return-value]
