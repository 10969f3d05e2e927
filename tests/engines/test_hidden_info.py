"""A refused move or ability answer names only what the asker may see: never a face-down set-aside tile
(I-U1: its owner may not look at them) nor the top of a supply before a question shows it (I-R1)."""

from __future__ import annotations

import pytest

from rebirth_dsl.errors import IllegalMove
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.play.table import Table, new_table
from rebirth_dsl.records.resources import find


def tower_question(key: str) -> tuple[Table, int, str, list[int], str]:
    """An Ireland game between two people where the seat to move can first touch a tower whose question has
    this key ("take": a set-aside tile, "keep": one of the top tiles), found by playing seeds forward: the
    table, the seat, the tile, the hex and the tower's name."""
    first = make_agent("random")
    for seed in range(1, 40):
        t = new_table(find("rules", "ireland"), find("boards", "ireland"), ["Ann", "Bob"], ["human", "human"], seed)
        for _ in range(24):
            g = t.game
            p = g.turn
            for tile in dict.fromkeys(g.hand[p]):
                for h in g.legal_hexes(tile[0])[0]:
                    q = next((q for q in t.questions(p, h) if q["key"] == key), None)
                    if q is not None:
                        return t, p, g.rs.tile_name(*tile), list(g.t.coords[h]), q["landmark"]
            t.apply_record_move(t.agent_move(agent=first))
    raise AssertionError(f"no seed below 40 reaches a {key!r} tower")


def hidden_names(t: Table, p: int) -> set[str]:
    """The names of p's face-down set-aside tiles."""
    return {t.game.rs.tile_name(*x) for x in t.game.set_aside[p]}


@pytest.mark.parametrize("answer", [{"take": "zzz"}, {"take": "#9"}, {"take": None}, {"keep": "#1"}, True])
def test_I_R1_a_wrong_take_answer_lists_the_face_down_positions_not_the_tiles(answer: object) -> None:
    t, p, tile, hexq, tower = tower_question("take")
    assert not t.game.rs.set_aside_visible
    assert t.submit(p, tile, hexq)["status"] == "question"
    with pytest.raises(IllegalMove) as e:
        t.submit(p, tile, hexq, {tower: answer})
    msg = e.value.diagnostics[0].message
    assert "#1" in msg and "I-R1" in msg, msg
    assert not [n for n in hidden_names(t, p) if n in msg], msg
    assert p in t.pending and len(t.moves) == len(t.record()["moves"])  # nothing changed: the question stands


def test_a_guessed_tile_name_is_refused_without_looking_at_the_face_down_tiles() -> None:
    t, p, tile, hexq, tower = tower_question("take")
    t.submit(p, tile, hexq)
    held = sorted(hidden_names(t, p))[0]  # a name that is face down there: accepting it would confirm it
    with pytest.raises(IllegalMove, match="#1"):
        t.submit(p, tile, hexq, {tower: {"take": held}})
    assert t.submit(p, tile, hexq, {tower: {"take": "#2"}})["status"] == "moved"


def test_the_engine_s_refusal_names_no_face_down_tile_either() -> None:
    """A move checked without its question (ask=False: an answer given up front) is refused by the engine,
    which now says how many tiles lie face down instead of naming them."""
    t, p, tile, hexq, tower = tower_question("take")
    with pytest.raises(IllegalMove) as e:
        t.submit(p, tile, hexq, {tower: {"take": "zzz"}}, ask=False)
    msg = e.value.diagnostics[0].message
    assert "face-down" in msg and not [n for n in hidden_names(t, p) if n in msg], msg


def test_the_engine_s_refusal_does_not_show_the_top_of_the_supply() -> None:
    """A "draw 3, keep 1" answer refused before its question was shown must not list the tiles drawn."""
    t, p, tile, hexq, tower = tower_question("keep")
    top = {t.game.rs.tile_name(*x) for x in t.game.supply[p][-3:]}
    with pytest.raises(IllegalMove) as e:
        t.submit(p, tile, hexq, {tower: {"keep": "zzz"}}, ask=False)
    msg = e.value.diagnostics[0].message
    assert "supply" in msg and not [n for n in top if f"'{n}'" in msg], msg
