"""`check` stays linear in the size of a rules file: a pathological file (Scotland extended by N copies of
one statement) gets at most a fixed number of diagnostics per copy, one per cause. Nothing is timed: the
diagnostics are counted, at N=50 and N=400, so a check that reports pairs (N² warnings) fails."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT

from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.lang.parser import load_rules

SCOTLAND = ROOT / "rules" / "scotland.rules"
SCOTLAND_BOARD = ROOT / "boards" / "scotland.json"
SMALL, LARGE = 50, 400

# one statement to repeat, `{i}` numbering the copy where the copies must differ
REPEATED = {
    "place trigger": "on place food: score 1 as farms      # S-F1\n",
    "any trigger": "on place any at harbour: score {i} as farms      # S-H1\n",
    "class trigger": "on place farm at harbour: score {i} as farms      # S-F1\n",
    "touch trigger": "on first touch cathedral: score {i} as chapels      # S-M1\n",
    "unknown names": "on place fod{i}: score 1 as farms      # S-F1\n",
    "unknown at": "on place food at harbor{i}: score 1 as harbours      # S-H1\n",
    "class": "class c{i} = food, energy      # S-F1\n",
    "hex kinds": "hex h{i}      # S-C3\n",
    "area": "area settlement {{\n  pay size 2: 6, 3      # S-A3\n}}\n",
    "public": "public mission as public_missions: first big, later small, placer first   # I-M1\n",
    "misspelt names": "on place food: score count(tiles(me, food_{i})) + lagest{i} as farms      # S-F1\n",
    "unknown function": "on place food: score lagest(groups(me, food{i})) as farms      # S-F1\n",
    "deck": 'deck d{i} {{\n  when empty: draw nothing      # S-M1\n  card "Gift" 3: always      # S-M2\n}}\n',
}


def diagnostics(tmp_path: Path, what: str, n: int) -> list:
    """What check says of Scotland extended by n copies of a statement, against Scotland's board."""
    f = tmp_path / f"{what.replace(' ', '_')}_{n}.rules"
    f.write_text(f'ruleset v "Variant" extends "{SCOTLAND}"\n' + "".join(REPEATED[what].format(i=i) for i in range(n)),
                 encoding="utf-8")
    return check(load_rules(f), load_board(SCOTLAND_BOARD), board_file=str(SCOTLAND_BOARD))


@pytest.mark.parametrize("what", sorted(REPEATED))
def test_the_diagnostics_grow_linearly(what: str, tmp_path: Path) -> None:
    """Eight times the copies: at most eight times the diagnostics of each code (and eight more: a
    first copy may replace the base's statement rather than add to it)."""
    small = Counter(d.code for d in diagnostics(tmp_path, what, SMALL))
    large = Counter(d.code for d in diagnostics(tmp_path, what, LARGE))
    for code, count in large.items():
        assert count <= LARGE // SMALL * (small.get(code, 0) + 1), (code, small.get(code, 0), count)


@pytest.mark.parametrize("what", ["place trigger", "any trigger", "class trigger"])
def test_one_double_scoring_warning_per_statement(what: str, tmp_path: Path) -> None:
    """Each copy doubles the base's trigger (and the copies before it): one warning for each copy, naming
    the base's statement, the first it doubles, and counting the others."""
    warned = [d for d in diagnostics(tmp_path, what, LARGE) if d.code == "double-scoring"]
    assert len(warned) == LARGE
    assert all(f"{SCOTLAND}:46 " in d.message for d in warned)  # the base's `on place food, energy`
    assert "both count" in warned[0].message and "as do 1 other earlier statement:" in warned[1].message
    assert "as do at least" in warned[-1].message  # the count stops where reading it would stop helping


def test_touch_triggers_warn_once_each(tmp_path: Path) -> None:
    """Touch triggers of one landmark kind into one category: the second copy on, one warning each."""
    warned = [d for d in diagnostics(tmp_path, "touch trigger", SMALL) if d.code == "double-scoring"]
    assert len(warned) == SMALL - 1 and all(d.line == 3 + i for i, d in enumerate(warned))


def test_a_deck_problem_is_reported_once_however_often_the_deck_is_made_public(tmp_path: Path) -> None:
    """A card of a public deck without its small number is one problem of the card, not one per statement."""
    small = [d for d in diagnostics(tmp_path, "public", SMALL) if d.code == "decks"]
    large = [d for d in diagnostics(tmp_path, "public", LARGE) if d.code == "decks"]
    assert small and len(large) == len(small)


def test_a_real_double_scoring_variant_is_warned_on_its_category(tmp_path: Path) -> None:
    """The variant that meant to replace `on place food, energy` but wrote `on place food`: one warning, on
    the category it scores twice, naming the base's statement."""
    f = tmp_path / "twice.rules"
    f.write_text(f'ruleset v "Variant" extends "{SCOTLAND}"\non place food: score 1 as farms      # S-F1\n'
                 "on place energy at harbour: score 2 as harbours      # S-H1\n", encoding="utf-8")
    warned = [d for d in check(load_rules(f)) if d.code == "double-scoring"]
    assert [(d.line, d.col, d.end_col, d.severity) for d in warned] == [(2, 27, 32, "warning"), (3, 40, 48, "warning")]
    assert f"{SCOTLAND}:46 already" in warned[0].message and "both count" in warned[0].message
    assert f"{SCOTLAND}:47 already" in warned[1].message


def test_placements_that_cannot_meet_are_not_warned(tmp_path: Path) -> None:
    """Disjoint kinds, different `at` hexes or another category: nothing scores twice."""
    f = tmp_path / "apart.rules"
    f.write_text(f'ruleset v "Variant" extends "{SCOTLAND}"\n'
                 "on place settlement at neutral: score 1 as farms      # S-F1\n"
                 "on place settlement at clover: score 1 as farms      # S-F1\n"
                 "on place food at clover: score 1 as bonus      # S-F1\n"
                 "on place food at neutral: score 1 as bonus      # S-F1\n"
                 "on place any at neutral: score 1 as bonus      # S-F1\n", encoding="utf-8")
    warned = [(d.line, d.message) for d in check(load_rules(f)) if d.code == "double-scoring"]
    assert [ln for ln, _ in warned] == [6]  # `any at neutral` meets `food at neutral`, and only it
    assert f"{f}:5 already" in warned[0][1]


def test_an_unknown_deck_is_one_diagnostic(tmp_path: Path) -> None:
    """A draw from a misspelt deck: one diagnostic with its suggestion (the names check asked twice)."""
    f = tmp_path / "deck.rules"
    f.write_text(f'ruleset v "Variant" extends "{SCOTLAND}"\non first touch cathedral: draw missoin      # S-M1\n',
                 encoding="utf-8")
    found = [d for d in check(load_rules(f)) if "missoin" in d.message]
    assert len(found) == 1 and found[0].hint == "did you mean `mission`?"


def test_suggestions_stay_within_their_budget(tmp_path: Path) -> None:
    """Thousands of misspelt names: each reported, the first ones with a guess, the rest without one
    (each guess reads every declared name)."""
    many = diagnostics(tmp_path, "misspelt names", LARGE)
    spelt = [d for d in many if "is not a tile kind" in d.message]
    assert len(spelt) == LARGE and spelt[0].hint == "did you mean `food`?" and spelt[-1].hint is None
    assert len([d for d in many if "unknown name `lagest" in d.message]) == LARGE
