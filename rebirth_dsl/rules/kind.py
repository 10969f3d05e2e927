"""What every rule module gives the engines, in one shape: a `Kind` per compiled statement type, found
through `rules.table.kind_of`, so no engine asks which type a statement is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rebirth_dsl.rules.view import GameView


@dataclass(frozen=True, slots=True)
class Placement:
    """One placement as the reactions see it: p's tile of `kind` on hex h, the move's index in the record
    (None in a probe), the ability answers given with it, and the landmarks it touches first (found before
    any reaction, so every `on first touch` statement sees the same first touch)."""

    p: int
    kind: int
    h: int
    index: int | None
    choices: dict[str, Any]
    first: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Kind:
    """A compiled statement kind: its reference reaction to a placement (the kernel and the events it
    tells)."""

    name: str
    react: Callable[[GameView, Any, Placement], None]
