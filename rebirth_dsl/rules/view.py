"""What a rule's reaction may see of a game: the fields and methods it reads or changes, as a Protocol, so
the rule modules sit below the runtime that implements them (runtime.game.Game satisfies it)."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Protocol

    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.prims import ExprGame
    from rebirth_dsl.compile.ruleset import CardDef, MajorityRule, TouchRule

    class GameView(ExprGame, Protocol):
        """The game as the rule modules see it: what an expression reads (compile.prims.ExprGame) and what each
        rule module adds, nothing more."""

        t: Tables
        players: tuple[str, ...]
        quiet: bool

        # the end of a turn (rules/turn.py, S-T1)
        hand: list[list[tuple[int, int]]]
        supply: list[list[tuple[int, int]]]  # the end of each list is its top
        pending_draw: dict[int, tuple[int, tuple[int, int], str]]  # a "draw N, keep one" (I-R1): (n, keep, rest)
        turn: int
        move_index: int

        # reading mission cards (rules/public.py, I-M1, S-M2)
        cards: dict[str, CardDef]
        public: list[str]  # the face-up cards, in order
        public_by: dict[str, list[int]]  # per face-up card, its fulfillers in order
        doubled: list[dict[str, int]]  # per player: card -> its doubling marker's factor
        memo: dict[Any, Any] | None  # set while a fixed position is read
        # the check the layer playing the game put in place of rules.public.check (None: the check itself)
        public_reader: Callable[..., None] | None

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

        # ----- first touches (rules/touch.py) ---------------------------------------------------------
        owner: list[int]
        tkind: list[int]
        touched: list[set[int]]  # per player, the landmarks touched (lm_adj above: the landmarks next to each hex)

        def draw_card(self, p: int, deck: str, ids: tuple[str, ...], index: int | None, why: str) -> None:
            """The top card of a deck into p's hand (S-M1), or the deck's empty rule."""

        def use_ability(self, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any]) -> None:
            """Use the ability printed on landmark lm for p (I-R1)."""

# what a hex holds besides a seat's tile: nothing, or a neutral tile (S-U2); the runtime's state uses the same
EMPTY = -1
NEUTRAL = -2

