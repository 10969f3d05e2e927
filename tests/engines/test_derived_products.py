"""What later stages derive from a compiled ruleset is asked for by name, never found in a cache that some
other caller happened to fill first (compile/ruleset.Derived)."""

from __future__ import annotations

import random

import pytest
from conftest import BOARDS, RULES

from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.runtime.game import Game, first_choice
from rebirth_dsl.runtime.setup import deal

NAMES = ["Ann", "Bob", "Cat"]


def _reference_game(name: str, seed: int) -> Game:
    """A whole game on a freshly compiled ruleset, every move played by the reference engine (Game.play),
    so nothing has made the generated engine of that ruleset."""
    rs = compile_rules(load_rules(RULES / f"{name}.rules"), load_board(BOARDS / f"{name}.json"))
    g = Game(rs, NAMES, deal(rs, len(NAMES), seed))
    g.auto_choose = first_choice
    rng = random.Random(seed)
    while not g.is_over():
        p = g.turn
        tile = g.hand[p][0]
        hexes, _ = g.legal_hexes(tile[0])
        g.play(p, tile, rng.choice(hexes) if hexes else None)
    return g


@pytest.mark.parametrize("name", ["scotland", "ireland"])
def test_S_E1_to_S_E3_quiet_end_scoring_is_asked_for_not_found(name: str) -> None:
    """A quiet game is scored by the generated end scoring even when the generated engine was never made
    (before, endgame.end_events used it only if fast.compiled() had run), with the reference's events."""
    g = _reference_game(name, 7)
    rs = g.rs
    assert rs.derived.fast is None and rs.derived.end_quiet is None
    g.quiet = True
    quiet = [(e.index, e.player, e.points, e.category, e.ids) for e in g.end_events()]
    assert rs.derived.fast is None and rs.derived.end_quiet is not None  # asked for by end_events itself
    g.quiet = False
    ref = [(e.index, e.player, e.points, e.category, e.ids) for e in g.end_events()]
    assert quiet == ref and ref


def test_a_compiled_ruleset_is_frozen_but_its_products_are_kept() -> None:
    """After compilation no member of the ruleset is assigned again: every engine reads the rules as
    compiled. The products later stages derive go in `derived`, the member made for them."""
    rs = compile_rules(load_rules(RULES / "scotland.rules"), load_board(BOARDS / "scotland.json"))
    with pytest.raises(AttributeError, match="frozen"):
        rs.hand = 2
    with pytest.raises(AttributeError, match="frozen"):
        rs.reactions = ()
    assert isinstance(rs.reactions, tuple)
    rs.derived.public_warm = None  # the products' member is not the ruleset's own state
    assert rs.hand == 1
