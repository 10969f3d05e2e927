"""What a rule's reaction may see of a game: the fields and methods it reads or changes, as a Protocol, so
the rule modules sit below the runtime that implements them (runtime.game.Game satisfies it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.ruleset import MajorityRule, Ruleset


class GameView(Protocol):
    """The game as the rule modules see it (each rule module adds what it reads, nothing more)."""

    rs: Ruleset
    t: Tables
    players: tuple[str, ...]
    n_players: int
    quiet: bool

    # areas (rules/area.py): per area its free hexes, influence per seat, whether scored, and who won it
    area_free: list[int]
    area_inf: list[list[int]]
    area_done: list[bool]
    area_first: dict[int, int]

    # majorities (rules/majority.py): the landmarks next to each hex, the majority rule of each landmark, its
    # holder (-1: nobody) and its counts per metric and seat
    lm_adj: tuple[tuple[int, ...], ...]
    metric_of: dict[int, MajorityRule]
    lm_owner: list[int]
    lm_count: list[list[list[int]]]

    def event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str,
              *args: object) -> None:
        """Record an event (and its points) for player p."""
