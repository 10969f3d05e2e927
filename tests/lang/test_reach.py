"""Statements that can never act, or always act, against the board and the tile mix (issue 22, item 4):
warnings with the statement's place and the board or tile fact behind them (check/reach.py). Each case
on a small board, then the bundled games' real cases, per player count."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import RULES, applied

from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.errors import Diagnostic
from rebirth_dsl.lang import functions
from rebirth_dsl.lang.parser import load_rules

# A colour: 4 food, and settlements of influence 1, 1, 2, 2 (6 in all). With 4 players each returns one food
# and the settlement of influence 2: 3 food, and settlements 1, 1, 2 (3 tiles, influence 4).
TINY = """ruleset tiny "Tiny"
players 2 to 4
turns clockwise
hex plain, food, settlement, sea
landmark cathedral
tiles {
  food x4
  settlement influence 1 x2, 2 x2
}
setup {
  players 4: return food x1, settlement:2
}
one tile per hex
place food on food, plain
place settlement on settlement
when no hex is legal: pass
group food
on place food: score size(group(placed)) as farms
on first touch cathedral: draw mission
area settlement as areas {
  rank by influence
  pay size 1: influence
  pay size 2: 5, 3
  pay size 3: 9, 4, 1, 1
  pay size 3 players 2: 9, 4, 1
  pay size 5: 20, 10
}
deck mission {
  when empty: draw nothing
  card "Pilgrim" 4: count(touched(me, cathedral)) >= 8
  card "Town builder" 4: count(areas(tiles(me, settlement))) >= 4
  card "Harvest" 3: largest(groups(me, food)) >= 4
  card "Chieftain" 3: influence(tiles(me)) >= 6
  card "Gift" 3: always
  card "Anything" 2: count(tiles(me)) >= 0
  card "Bread basket" 2: most(count(tiles(me, food)))
  card "Two towns" 2: count(areas(tiles(me, settlement))) >= 2
}
"""


def tiny_board(path: Path) -> Path:
    """Six settlement hexes in three areas (1, 2 and 3 hexes), 16 food and 2 plain hexes in a block, and 3
    cathedrals: room for every tile (24 at most), but not for every settlement tile (8 to 12 of them)."""
    hexes: list[dict[str, object]] = []
    areas = ["One", "Two", "Two", "Three", "Three", "Three"]
    hexes += [{"q": q, "r": 0, "kind": "settlement", "area": a} for q, a in enumerate(areas)]
    hexes += [{"q": q, "r": 1, "kind": "food"} for q in range(9)]
    hexes += [{"q": q, "r": 2, "kind": "food"} for q in range(7)]
    hexes += [{"q": q, "r": 3, "kind": "plain"} for q in range(2)]
    hexes += [{"q": q, "r": 3, "kind": "cathedral", "name": f"Kirk {q}"} for q in range(2, 5)]
    path.write_text(json.dumps({"name": "tiny", "hexes": hexes}))
    return path


def reach(tmp_path: Path, text: str = TINY) -> list[Diagnostic]:
    """The warnings of check/reach.py for a ruleset against the tiny board."""
    f = tmp_path / "tiny.rules"
    f.write_text(text)
    b = tiny_board(tmp_path / "tiny.json")
    codes = {"pay-place-never-paid", "pay-size-not-on-board", "mission-never-met", "mission-always-met",
             "mission-met-at-start", "tiles-beyond-hexes"}
    found = [d for d in check(load_rules(f), load_board(b), str(b)) if d.code in codes]
    assert all(d.severity == "warning" for d in found)
    return found


def line_of(text: str, words: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if words in ln)


def one(found: list[Diagnostic], code: str, words: str) -> Diagnostic:
    [d] = [d for d in found if d.code == code and words in d.message]
    return d


def test_a_payout_place_beyond_the_area_size_is_never_paid(tmp_path: Path) -> None:
    """`pay size 3: 9, 4, 1, 1`: a 3-hex area ranks at most 3 players, so the 4th amount is never paid;
    `pay size 3 players 2: 9, 4, 1`: two players rank at most 2."""
    found = reach(tmp_path)
    d = one(found, "pay-place-never-paid", "4th place of `pay size 3`")
    row = line_of(TINY, "pay size 3: 9, 4, 1, 1")
    assert (d.line, d.col) == (row, len("  pay size 3: 9, 4, 1, ") + 1)  # at the 4th amount
    assert "a 3-hex area holds the tiles of at most 3 players" in d.message
    [fix] = d.fixes  # the editor's code action: the amounts no place is paid, gone
    assert "  pay size 3: 9, 4, 1\n" in applied(TINY, fix)
    d = one(found, "pay-place-never-paid", "3rd place of `pay size 3`")
    assert d.line == line_of(TINY, "pay size 3 players 2") and "at most 2 players" in d.message
    assert len([d for d in found if d.code == "pay-place-never-paid"]) == 2  # size 2: 5, 3 pays both


def test_a_payout_for_a_size_the_board_lacks(tmp_path: Path) -> None:
    """No 5-hex settlement area on the board: `pay size 5` never pays, and the warning names the sizes."""
    d = one(reach(tmp_path), "pay-size-not-on-board", "pay size 5")
    assert d.line == line_of(TINY, "pay size 5") and "its settlement areas have 1, 2 or 3 hexes" in d.message


def test_more_tiles_of_a_kind_than_hexes_they_may_go_on(tmp_path: Path) -> None:
    """Settlements: 2 x 4 = 8 (2 players), 3 x 4 = 12 (3 players), 4 x 3 = 12 (4 players) tiles for 6
    settlement hexes: with 4 players up to 12 - 6 = 6 are never placed. Food fits (at most 3 x 4 = 12 on 18)."""
    found = [d for d in reach(tmp_path) if d.code == "tiles-beyond-hexes"]
    [d] = found
    assert d.line == line_of(TINY, "settlement influence 1 x2")
    assert "with 2, 3 or 4 players" in d.message and "12 are dealt (3 a colour)" in d.message
    assert "has 6 hexes a settlement tile may go on, so up to 6 are never placed" in d.message


def test_missions_that_can_never_be_met_name_the_fact_and_the_player_count(tmp_path: Path) -> None:
    """Pilgrim: 3 cathedrals, 8 wanted, at any count. Town builder: the settlement hexes lie in 3 areas, 4
    wanted. Harvest: a food group of 4 needs 4 food tiles, and with 4 players a colour has 3. Chieftain:
    influence 6 needs the whole colour (1 + 1 + 2 + 2), and with 4 players it is 1 + 1 + 2 = 4."""
    found = reach(tmp_path)
    d = one(found, "mission-never-met", '"Pilgrim"')
    assert "with 2, 3 or 4 players" in d.message and "is at most 3" in d.message
    assert "has 3 cathedral landmarks" in d.message
    assert d.line == line_of(TINY, '"Pilgrim"') and d.col == TINY.splitlines()[d.line - 1].index("count") + 1
    d = one(found, "mission-never-met", '"Town builder"')
    assert "with 2, 3 or 4 players" in d.message and "is at most 3 (those hexes lie in 3 areas" in d.message
    d = one(found, "mission-never-met", '"Harvest"')
    assert "with 4 players:" in d.message and "is at most 3" in d.message and "3 food tiles" in d.message
    d = one(found, "mission-never-met", '"Chieftain"')
    assert "with 4 players:" in d.message and "at most 4" in d.message
    assert not [d for d in found if '"Two towns"' in d.message or '"Bread basket"' in d.message]
    assert not [d for d in found if '"Gift"' in d.message]  # `always`: a gift, as written


def test_a_mission_every_player_meets(tmp_path: Path) -> None:
    """`count(tiles(me)) >= 0` holds whatever anyone does."""
    d = one(reach(tmp_path), "mission-always-met", '"Anything"')
    assert "with 2, 3 or 4 players" in d.message


def test_a_public_mission_met_before_anything_is_placed(tmp_path: Path) -> None:
    """A face-up card is checked after every placement: `most(...)` holds for everyone while everyone has
    0, so every player claims it at once. Private, the same card is read at the end only: no warning."""
    public = (TINY.replace('card "Bread basket" 2:', 'card "Bread basket" 2 / 1:')
              .replace("players 4: return", "public 1 from mission\n  players 4: return")
              + "public mission as public_missions: first big, later small, placer first\n")
    for name in ("Pilgrim", "Town builder", "Harvest", "Chieftain", "Gift", "Anything", "Two towns"):
        public = public.replace(f'card "{name}" 4:', f'card "{name}" 4 / 1:').replace(
            f'card "{name}" 3:', f'card "{name}" 3 / 1:').replace(f'card "{name}" 2:', f'card "{name}" 2 / 1:')
    d = one(reach(tmp_path, public), "mission-met-at-start", '"Bread basket"')
    assert "checked after every placement" in d.message
    assert not [d for d in reach(tmp_path) if d.code == "mission-met-at-start"]


def test_a_function_without_a_range_leaves_its_card_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranges are the registry's: take `touched`'s away and Pilgrim is no longer judged."""
    assert one(reach(tmp_path), "mission-never-met", '"Pilgrim"')
    plain = dataclasses.replace(functions.SIGNATURES["touched"], bound=None)
    monkeypatch.setitem(functions.SIGNATURES, "touched", plain)
    assert not [d for d in reach(tmp_path) if '"Pilgrim"' in d.message]


def test_every_builtin_declares_its_range() -> None:
    """Every function of the registry says what its value can be (or the cards calling it go unjudged)."""
    assert [n for n, s in functions.SIGNATURES.items() if s.bound is None] == []


# ----- the bundled games --------------------------------------------------------------------------------
# Ireland's deck before it followed the player count (issue 23): three of its cards are issue 22's cases.
OLD_IRELAND_DECK = """deck mission {
  when empty: draw nothing
  card "Round tower pilgrim" 7 / 3: count(touched(me, tower)) >= 8
  card "Wind farmer" 5 / 2: count(at(tiles(me), wind)) >= 3
  card "Harvest" 6 / 3: largest(groups(me, food)) >= 10
  card "Peat power" 6 / 3: largest(groups(me, energy)) >= 8
  card "Town council" 6 / 3: count(areas(tiles(me, settlement))) >= 10
  card "Castle keeper" 7 / 3: count(owned(me, castle)) >= 6
  card "Lord of the province" 8 / 4: count(won(me)) >= 6
  card "Green fields" 6 / 3: count(atleast(groups(me, food), 3)) >= 2
  card "Coastal clans" 6 / 3: count(near(tiles(me), sea)) >= 16
  card "Kingdom of Tara" 8 / 4: count(near(tiles(me), tower "Hill of Tara")) >= 3
  card "Blarney stone" 7 / 3: owner(castle with clover) == me and count(owned(me, castle)) >= 3
  card "Chieftain of Ireland" 6 / 3: influence(tiles(me)) >= 27
}
"""


def test_the_missions_four_players_could_never_meet(run_cli, tmp_path: Path) -> None:
    """Issue 22's cases, each by its bound with 4 players (3 food, 3 energy and 3 settlements returned,
    of influence 2, 3 and 4): a colour keeps 9 food and 9 settlement tiles, of influence
    3 x 1 + 3 x 2 + 2 x 3 + 1 x 4 = 19. Ireland's old "Town council" wanted 10 areas, with 9 settlements;
    "Harvest" a food group of 10, with 9 food; "Chieftain of Ireland" influence 27 (OLD_IRELAND_DECK, in a
    variant of Ireland). Warnings: `check` still exits 0; with 2 and 3 players (12 of each, influence 28)
    they can be met."""
    old = tmp_path / "old.rules"
    old.write_text('ruleset old "Old Ireland" extends "ireland"\n' + OLD_IRELAND_DECK, encoding="utf-8")
    code, out, err = run_cli("check", old)
    assert code == 0, err
    said = [ln for ln in err.splitlines() if "warning:" in ln]
    assert len(said) == 3, err
    for card, fact in (('"Harvest"', "is at most 9 (with 4 players a colour has 9 food tiles after the returns)"),
                       ('"Town council"', "is at most 9 (with 4 players a colour has 9 settlement tiles after the returns)"),
                       ('"Chieftain of Ireland"', "is at most 19 (with 4 players the influence of a colour's tiles "
                                                  "adds up to 19 after the returns)")):
        [ln] = [ln for ln in said if card in ln]
        assert f"card {card} can never be met with 4 players: " in ln and fact in ln, ln
    code, out, err = run_cli("check", "--strict", old)
    assert code == 1  # --strict: warnings fail


@pytest.mark.parametrize("rules", ["scotland", "ireland"])
def test_the_bundled_decks_can_be_met_at_every_count(run_cli, rules: str) -> None:
    """Both bundled decks follow the player count (`players`, issue 23): with 4 players Scotland's Town
    builder asks 10 - (4 - 2) * (4 - 3) = 8 areas, Ireland's Town council 2 * areas >= 20 - 3 * 2 * 1 = 14
    (7 areas), Harvest a food group of 8 - 2 = 6 and Chieftain of Ireland influence 27 - 5 * 2 = 17, all
    within a colour's 9 settlements, 9 food and influence 19; no card is warned of at any count."""
    code, out, err = run_cli("check", "--strict", RULES / f"{rules}.rules")
    assert code == 0 and "warning" not in err, err


@pytest.mark.parametrize(("edit", "said"), [
    # an undeclared tile kind in a card: "is not a tile kind", not also "can never be met (0 wheat tiles)"
    (('card "Two towns" 2: count(areas(tiles(me, settlement))) >= 2',
      'card "Two towns" 2: count(tiles(me, wheat)) >= 2'), "`wheat` is not a tile kind or class"),
    # groups of a kind that forms none: check_meaning's error, not also a card never met
    (('card "Two towns" 2: count(areas(tiles(me, settlement))) >= 2',
      'card "Two towns" 2: largest(groups(me, settlement)) >= 2'), "`settlement` tiles form no groups"),
    # a kind without a placement rule: check_placement's error, not also "0 hexes it may go on" (nor the
    # cards that count its tiles, nor more tiles than its hexes)
    (("place settlement on settlement\n", ""), "tiles of kind `settlement` have no placement rule"),
])
def test_a_cause_another_check_reports_is_not_warned_again(tmp_path: Path, edit: tuple[str, str], said: str) -> None:
    """One diagnostic per cause: what makes a statement unable to act is said by the check that owns it."""
    f = tmp_path / "tiny.rules"
    f.write_text(TINY.replace(*edit))
    b = tiny_board(tmp_path / "tiny.json")
    found = check(load_rules(f), load_board(b), str(b))
    assert [d for d in found if said in d.message]
    assert [d.message for d in found if '"Two towns"' in d.message] == []
    if "place settlement" not in TINY.replace(*edit):
        assert not [d for d in found if d.code == "tiles-beyond-hexes"]
