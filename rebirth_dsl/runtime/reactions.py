"""What a placement sets off: every statement's reaction, in file order, each from its rule module
(rules/trigger.py, area.py, majority.py, touch.py, public.py) through the one table of rules/table.py."""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.rules import touch
from rebirth_dsl.rules.kind import Placement

if TYPE_CHECKING:
    from typing import Any

    from rebirth_dsl.runtime.game import Game


def react(g: Game, p: int, kind: int, h: int, index: int | None, choices: dict[str, Any]) -> None:
    """Every statement's reaction to p's tile of `kind` placed on h, in the rules' order. The landmarks this
    placement touches first are found before any reaction and marked touched after all of them, so every
    `on first touch KIND` statement fires on the same first touch."""
    touched = g.touched[p]
    at = Placement(p, kind, h, index, choices, touch.first_touches(g.lm_adj[h], touched))
    for react_one, r in g.reactors:  # g.rs.reactions, each with kind_of(r).react
        react_one(g, r, at)
    touch.mark(touched, at.first)
