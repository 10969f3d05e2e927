"""Words of the language that carry a fixed meaning: places in a ranking, and the tie-break steps of an
area ranking. Each step is one value holding everything about it: its words, its English, and the sort
key that is its meaning, so the checker, the describer and the engine cannot disagree."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl.shared_methods import Node, node

PLACES = ("first", "second", "third", "fourth", "fifth", "sixth")


@node
class TieStep(Node):
    """One step of an area's tie-break chain (S-A2): players still tied are ordered by `key`, lowest first."""

    words: tuple[str, ...]
    text: str
    key: Callable[[int, int, int], int]  # (seat, completer, number of players) -> sort key


def _clockwise(q: int, completer: int, n: int) -> int:
    return (q - completer) % n or n  # the completer counts as last in the round


def _counterclockwise(q: int, completer: int, n: int) -> int:
    return (completer - q) % n or n


TIE_STEPS: dict[tuple[str, ...], TieStep] = {s.words: s for s in (
    TieStep(("completer", "last"), "the player who completed the area loses the tie",
            lambda q, c, n: 1 if q == c else 0),
    TieStep(("completer", "first"), "the player who completed the area wins the tie",
            lambda q, c, n: 0 if q == c else 1),
    TieStep(("clockwise", "from", "completer"), "the first player clockwise after the completer wins", _clockwise),
    TieStep(("counterclockwise", "from", "completer"),
            "the first player counter-clockwise from the completer wins", _counterclockwise),
    TieStep(("seat", "order"), "the earlier seat wins", lambda q, c, n: q),
)}
