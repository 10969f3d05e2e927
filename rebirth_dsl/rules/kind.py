"""What every rule module gives the engines, in one shape: a `Kind` per compiled statement type, found
through `rules.table.kind_of`, so no engine asks which type a statement is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.emit import Emitter
    from rebirth_dsl.compile.ruleset import MajorityRule, Ruleset
    from rebirth_dsl.lang import ast as A
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


class CContext(Protocol):
    """What a rule module's C templates ask of the native generator (native/cgen.py): the one context every
    `Kind.c_place` gets, so no template reads the generator's own names. Every value it hands back is C
    text made of checked integers and the generator's own names, never text of a rules or board file."""

    rs: Ruleset
    t: Tables
    problems: list[str]  # what cannot be expressed natively: the ruleset falls back to Python, saying why
    # the face-up cards are read incrementally (native/ctext.py PUBLIC_READS): a template that changes what a
    # card reads (a landmark taken, an area won) tells the reader
    incremental: bool
    lm_adj: tuple[tuple[int, ...], ...]  # the landmarks next to each hex
    metric_of: dict[int, MajorityRule]  # the majority statement of each landmark

    def expr(self, node: A.Expr | None, where: str) -> str:
        """The name of a C function f(s, me, placed, inf) computing the expression (`where`: its place in a
        problem message)."""
        ...

    def category(self, name: str) -> str:
        """A score category's index as C text (-1: none)."""
        ...

    def kinds_mask(self, kinds: frozenset[int] | None) -> str:
        """Tile kinds (None: every kind) as a C u32 mask."""
        ...

    def draw(self, deck: str) -> str:
        """The name of the C function draw(s, p) that draws a deck's top card, or applies its empty rule."""
        ...

    def lists(self, name: str, lists: list[list[int]]) -> str:
        """A C list per hex or landmark, `name_OFF[i] .. name_OFF[i + 1]` into `name[]`; returns `name`."""
        ...

    def function(self, source: str) -> None:
        """A generated C function, declared before place()."""
        ...


@dataclass(frozen=True, slots=True)
class Kind:
    """A compiled statement kind: its reference reaction to a placement (the kernel and the events it
    tells), and what the generated engines emit for it."""

    name: str
    react: Callable[[GameView, Any, Placement], None]
    # the native engine (native/cgen.py): the statement in place() over its locals s, p, k, v, h (and its
    # functions and tables through the context); None: the native engine cannot run it
    c_place: Callable[[CContext, Emitter, int, Any], None] | None = None
    # the statement reads the face-up cards after a placement (I-M1): the native engine keeps its incremental
    # reader of them
    c_reads_public: bool = False
