"""What a rule's reaction may see of a game: the fields and methods it reads or changes, as a Protocol, so
the rule modules sit below the runtime that implements them (runtime.game.Game satisfies it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.ruleset import Ruleset, TouchRule


class GameView(Protocol):
    """The game as the rule modules see it (each rule module adds what it reads, nothing more)."""

    rs: Ruleset
    t: Tables
    players: tuple[str, ...]
    n_players: int
    quiet: bool

    def event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str,
              *args: object) -> None:
        """Record an event (and its points) for player p."""

    # ----- first touches (rules/touch.py) ---------------------------------------------------------
    owner: list[int]
    tkind: list[int]
    touched: list[set[int]]
    lm_adj: tuple[tuple[int, ...], ...]

    def draw_card(self, p: int, deck: str, ids: tuple[str, ...], index: int | None, why: str) -> None:
        """The top card of a deck into p's hand (S-M1), or the deck's empty rule."""

    def use_ability(self, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any]) -> None:
        """Use the ability printed on landmark lm for p (I-R1)."""
