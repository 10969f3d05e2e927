"""Speed devices of the engines, each proven equal to the rule or plain code it accelerates (rules/,
runtime/): the public missions' incremental check (public.py), the deal's shuffle and seeding (shuffle.py),
new games from a written-out copy of the blank position (fresh.py), and the generated end scoring of quiet
games (fast_end.py). This layer sits between rules/ and runtime/, so the engines (runtime/setup.py,
runtime/game.py, runtime/endgame.py, pyengine/fast.py) may use it and it never reads the runtime's classes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from rebirth_dsl import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypeVar

    _K = TypeVar("_K", bound=Hashable)
    _F = TypeVar("_F")


def written_out(made: dict[_K, _F], uses: dict[_K, int], key: _K, after: int, write: Callable[[], _F]) -> _F | None:
    """The device made[key], written by write() at the use of key after the first `after`; None before,
    when the caller runs the plain code it stands for. Writing a device out costs as much as hundreds of
    uses save, so a command that uses it a few times never pays for it and a long simulation hardly notices."""
    f = made.get(key)
    if f is None:
        count = uses[key] = uses.get(key, 0) + 1
        if count <= after:
            return None
        f = made[key] = write()
    return f
