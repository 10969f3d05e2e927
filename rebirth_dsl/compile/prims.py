"""Primitives shared by the closure interpreter (closures.py) and generated expression code (exprgen.py):
the evaluation context and the comparisons across players."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING, shared_methods
from rebirth_dsl.lang import ast as A

if TYPE_CHECKING:
    from typing import Any, Protocol

    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.ruleset import Ruleset

    # An expression's value: a number, a truth, a list of hexes, landmarks or areas, or a list of groups. Which
    # one, check/types.py proves from the rules before anything is compiled; to mypy it stays Any.
    Fn = Callable[["Ctx"], Any]

    class ExprGame(Protocol):
        """What an expression reads of the game (runtime.game.Game has it; compile/ sits below runtime/)."""

        @property
        def rs(self) -> Ruleset: ...
        @property
        def n_players(self) -> int: ...
        @property
        def owner(self) -> list[int]: ...  # per hex: its tile's owner, or -1
        @property
        def tval(self) -> list[int]: ...  # per hex: its tile's value (influence)
        @property
        def tiles_of(self) -> list[list[list[int]]]: ...  # [seat][tile kind] -> hexes
        @property
        def parent(self) -> list[int]: ...  # union-find over the groups (S-F1)
        @property
        def gsize(self) -> list[int]: ...
        @property
        def lm_owner(self) -> list[int]: ...  # per landmark: its holder, or -1
        @property
        def area_first(self) -> dict[int, int]: ...  # completed area -> the player ranked first

        def group_of(self, h: int) -> list[int]:
            """The hexes of the group containing h."""

        def groups_of(self, p: int, kinds: frozenset[int]) -> list[list[int]]:
            """A player's groups of these kinds."""

    class DirectFn(Protocol):
        """An expression as a function of the values a Ctx would carry (exprgen.direct_function)."""

        def __call__(self, g: ExprGame, me: int, placed: int = -1, influence: int = 0) -> Any: ...


@shared_methods.node
class CompiledExpr(shared_methods.Node):
    """An expression as the compiler hands it on: the checked node and the function of a Ctx computing it
    (generated Python, or the closures where Python cannot compile the source). Calling it calls `fn`;
    later stages read `node` from it (the generated engines specialise its shape, the C generator
    translates it), never from the statements again."""

    node: A.Expr
    fn: Fn

    def __call__(self, ctx: Ctx) -> Any:
        """The expression's value in this context."""
        return self.fn(ctx)


class Ctx:
    """What an expression can see: the game state, `me`, and context values."""

    __slots__ = ("g", "me", "placed", "influence")

    def __init__(self, g: ExprGame, me: int = -1, placed: int = -1, influence: int = 0) -> None:
        self.g = g
        self.me = me
        self.placed = placed
        self.influence = influence

    def with_me(self, me: int) -> Ctx:
        """The same context seen from another player."""
        return Ctx(self.g, me, self.placed, self.influence)


# Comparisons across players, shared by the closures here and the generated source of exprgen.py.
def most(n: int, me: int, f: Callable[[int], int]) -> bool:
    """`me` has at least as much as every other player (a tie fulfils it)."""
    v = f(me)
    for q in range(n):  # all(...) over a generator, as a plain loop: the same calls of f, stopping as early
        if q != me and not f(q) <= v:
            return False
    return True


def fewest(n: int, me: int, f: Callable[[int], int]) -> bool:
    """`me` has at most as much as every other player."""
    v = f(me)
    for q in range(n):
        if q != me and not f(q) >= v:
            return False
    return True


def best(n: int, f: Callable[[int], int]) -> int:
    """The one player with strictly the most, above 0; else -1 (nobody)."""
    vals = [f(q) for q in range(n)]
    top = max(vals)
    return vals.index(top) if top > 0 and vals.count(top) == 1 else -1


# The same comparisons over the players' values read beforehand into one list (the generated source of
# exprgen.py reads them in one comprehension). Values of one expression are all ints or all bools, so the
# largest is at most mine exactly when no other is above it (a truth is an int to these comparisons).
def most_of(vals: list[int], me: int) -> bool:
    """`me` has at least as much as every other player, given every player's value."""
    return max(vals) <= vals[me]


def fewest_of(vals: list[int], me: int) -> bool:
    """`me` has at most as much as every other player, given every player's value."""
    return min(vals) >= vals[me]


def best_of(vals: list[int]) -> int:
    """The one player with strictly the most, above 0, given every player's value; else -1 (nobody)."""
    top = max(vals)
    return vals.index(top) if top > 0 and vals.count(top) == 1 else -1


def selected_kinds(t: Tables, args: tuple[A.Expr, ...]) -> tuple[int, ...]:
    """Tile kind ids named by selector arguments (kinds or classes); none named means every kind."""
    if not args:
        return tuple(range(len(t.tile_kinds)))
    out: set[int] = set()
    for a in args:
        assert isinstance(a, A.Name)
        out |= t.tile_kind_ids(a.id)
    return tuple(sorted(out))
