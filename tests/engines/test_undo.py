"""Taking a move back never shows a seat what it could not have known: no take-back after a tile drawn into
the hand (S-T1), a mission card drawn (S-M1) or a question shown (I-R1), none past another seat's move (it
showed a tile from that hand), none once the game is over (S-T2), and none in a game with another person
(it would need their consent). A move that showed nothing is taken back exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.table import Table, new_table, table_from_record
from rebirth_dsl.records.resources import find


def table(ruleset: str, agents: list[str], seed: int = 3) -> Table:
    """A fresh game of the bundled ruleset and board with one seat per agent."""
    names = ["Ann", "Bob", "Cat", "Dan"][: len(agents)]
    return new_table(find("rules", ruleset), find("boards", ruleset), names, agents, seed)


def person_moves(t: Table, pick: Any = None) -> None:
    """The person to move places their first tile on the first legal hex `pick` allows (any, by default),
    answering a question by declining it."""
    g = t.game
    p = g.turn
    tile = g.hand[p][0]
    hexes = [h for h in g.legal_hexes(tile[0])[0] if pick is None or pick(t, p, tile, h)]
    hexq = list(g.t.coords[hexes[0]]) if hexes else None
    name = g.rs.tile_name(*tile)
    if t.submit(p, name, hexq)["status"] == "question":
        t.submit(p, name, hexq, {q["landmark"]: False for q in t.pending[p]["questions"]})


def play_on(t: Table, until: Any) -> None:
    """Moves (the agents' own, the people's first legal ones) until `until(t)` holds."""
    while not until(t):
        assert not t.is_over(), "the game ended first"
        if t.is_human(t.game.turn):
            person_moves(t)
        else:
            t.apply_record_move(t.agent_move())


def refused(t: Table, p: int, *words: str) -> str:
    """Check that p may not take back their move, for the reason given (in view and undo alike), and that
    trying changes nothing; return the reason."""
    before = json.dumps(t.record())
    assert not t.can_undo(p)
    with pytest.raises(RebirthError) as e:
        t.undo(p)
    assert json.dumps(t.record()) == before
    why = e.value.diagnostics[0].message
    assert all(w in why for w in words), why
    assert t.undo_refusal(p) == why and t.view(p).get("can_undo", False) is False
    return why


def rebuilt(t: Table) -> Table:
    """The same game rebuilt from its record (as the web app resumes it after a restart)."""
    return table_from_record(t.record(), Path.cwd() / "record.json", allow_paths=True, rules=t.rules_path,
                             board=t.board_path)


def cards_after(t: Table, p: int, tile: tuple[int, int], h: int) -> int:
    """How many mission cards p would hold after placing the tile on h (tried on a copy)."""
    trial = t.game.clone()
    trial.play(p, tile, h)
    return len(trial.held[p])


def test_S_T1_a_move_that_drew_a_tile_is_not_taken_back() -> None:
    """Move, read the new hand, take back, move again: the next draw would be known in advance."""
    t = table("scotland", ["human", "random"])
    person_moves(t, lambda t, p, tile, h: cards_after(t, p, tile, h) == len(t.game.held[p]))
    assert t.moves[-1]["player"] == "Ann" and t.game.supply[0]
    refused(t, 0, "drew a tile you have seen", "S-T1")
    refused(rebuilt(t), 0, "drew a tile you have seen")  # known again after a restart, by replaying the move


def test_S_M1_a_move_that_drew_a_mission_card_is_not_taken_back() -> None:
    """First touching a cathedral draws the deck's top card (S-M1): taking it back would show the next one."""
    t = table("scotland", ["human", "random"])
    person_moves(t, lambda t, p, tile, h: cards_after(t, p, tile, h) > len(t.game.held[p]))
    assert t.game.held[0], "no first move touches a cathedral"
    refused(t, 0, "drew a mission card you have seen", "S-M1")


def test_no_take_back_past_an_agent_s_move() -> None:
    """The agent's reply showed the tile it held: after a take-back it would still hold it."""
    t = table("scotland", ["human", "random"])
    play_on(t, lambda t: len(t.moves) == 2)
    refused(t, 0, "Bob has moved since", "hand")


def test_no_take_back_once_the_game_is_over() -> None:
    """The finished game's record shows every tile: a take-back would let the seat replay knowing them."""
    t = table("scotland", ["random", "human"])
    play_on(t, Table.is_over)
    assert t.moves[-1]["player"] == "Bob"
    refused(t, 1, "the game is over")


@pytest.mark.parametrize("agents", [["human", "human"], ["human", "greedy", "human"]])
def test_no_take_back_with_another_person_at_the_table(agents: list[str]) -> None:
    t = table("scotland", agents)
    person_moves(t)
    refused(t, 0, "another person", "consent")


def keep_tower(t: Table, p: int, tile: tuple[int, int], h: int) -> bool:
    """Whether placing on h first touches a tower that shows the top of the supply (draw 3, keep 1)."""
    return any(q["key"] == "keep" for q in t.questions(p, h))


def ready_to_keep(t: Table) -> bool:
    """Ann is to move, has moved before, and can reach a "keep" tower."""
    g = t.game
    p = g.turn
    return (t.is_human(p) and any(m["player"] == "Ann" for m in t.moves)
            and any(keep_tower(t, p, g.hand[p][0], h) for h in g.legal_hexes(g.hand[p][0][0])[0]))


def test_I_R1_no_take_back_once_a_question_has_shown_the_top_of_the_supply() -> None:
    """Ireland: place on a "keep" tower, read the three tiles its question offers (I-R1), take back."""
    t = table("ireland", ["human", "random"])
    play_on(t, ready_to_keep)
    g = t.game
    tile = g.hand[0][0]
    h = next(h for h in g.legal_hexes(tile[0])[0] if keep_tower(t, 0, tile, h))
    name, hexq = g.rs.tile_name(*tile), list(g.t.coords[h])
    out = t.submit(0, name, hexq)
    assert out["status"] == "question" and out["questions"][0]["options"]
    refused(t, 0, "waits for its answer", "question has been shown")
    assert 0 in t.pending
    t.submit(0, name, hexq, {q["landmark"]: False for q in out["questions"]})  # declined: the tiles were seen
    refused(t, 0, "asked you a question", "I-R1")


def supply_empty(t: Table) -> bool:
    """Ann is to move with an empty supply: her move draws nothing (S-T1)."""
    return t.game.turn == 0 and not t.game.supply[0] and bool(t.game.hand[0])


def test_a_move_that_showed_nothing_is_taken_back_exactly() -> None:
    """Ann's last tile, with her supply empty and no mission card drawn, before the agent replies."""
    t = table("scotland", ["human", "random"])
    play_on(t, supply_empty)
    g = t.game
    before = (json.dumps(t.record()), json.dumps(t.view(0)), [list(h) for h in g.hand], [list(s) for s in g.supply],
              list(g.track), [list(c) for c in g.held], list(g.decks["mission"]), len(g.events))
    person_moves(t, lambda t, p, tile, h: cards_after(t, p, tile, h) == len(t.game.held[p]))
    assert t.can_undo(0) and t.view(0)["can_undo"] and t.undo_refusal(0) is None
    assert rebuilt(t).can_undo(0)  # the same answer after a restart
    assert t.undo(0) == 1
    g = t.game
    after = (json.dumps(t.record()), json.dumps(t.view(0)), [list(h) for h in g.hand], [list(s) for s in g.supply],
             list(g.track), [list(c) for c in g.held], list(g.decks["mission"]), len(g.events))
    assert after == before
    refused(t, 0, "Bob has moved since")  # the move before was followed by the agent's
