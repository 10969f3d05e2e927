"""What every rule module gives the engines, in one shape: a `Kind` per compiled statement type, found
through `rules.table.kind_of`, so no engine asks which type a statement is."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.shared_methods import Node, Record, node, slotted_record

if TYPE_CHECKING:
    from typing import Any, Protocol, TypeGuard

    from rebirth_dsl.check.symbols import Tables
    from rebirth_dsl.compile.emit import Emitter, Locals
    from rebirth_dsl.compile.ruleset import MajorityRule, Ruleset, TouchRule
    from rebirth_dsl.lang import ast as A
    from rebirth_dsl.rules.view import GameView

    class PyGen(Protocol):
        """What a rule module's Python templates ask of the generator of the Python engine (pyengine/fast.py):
        the names it binds once for the whole module, the per-hex tables it keeps, and the placement body being
        written, with what the generator knows there (`where`) and the tests it decides from that. The body's
        locals are those of `place(g, p, k, v, h)` (the tile v of kind k on hex h) and its prologue: owner, tkind,
        tval, lm_count, lm_owner, scores, track, touched_by, decks, held, n, quiet and the others it declares."""

        @property
        def rs(self) -> Ruleset:
            """The ruleset (and its board, rs.t) generated for."""

        @property
        def where(self) -> Where | None:
            """The playout loop's tile kind and free list; None in `place`, where neither is known."""

        @property
        def tables(self) -> dict[str, tuple[Any, ...]]:
            """The per-hex tables by bound name, their values kept to decide tests on (loop_over, guarded)."""

        @property
        def fused(self) -> frozenset[int]:
            """The statements (by index) whose tile counts are made in their own loop, not before the reactions."""

        @property
        def in_area(self) -> bool | None:
            """Whether h is in an area (the local `a`, AREA[h]) on every possible hex (True), on none (False)."""

        @property
        def locals(self) -> Locals:
            """The locals the body declares so far (templates ask for those they read)."""

        @property
        def public_locals(self) -> list[str]:
            """The lines binding the locals public_source reads, once per game (accel/public.py)."""

        def const(self, name: str, value: object) -> str:
            """A module-level constant, a checked literal (Emitter.const); its name."""

        def closure(self, name: str, obj: object) -> str:
            """A module-level name for an object passed by reference (Emitter.ref); its name."""

        def table(self, name: str, value: tuple[Any, ...]) -> str:
            """A per-hex table bound as a constant and kept for the body's tests on it; its name."""

        def line(self, text: str = "") -> None:
            """One line of the body."""

        def extend(self, lines: list[str]) -> None:
            """A template's lines in the body."""

        def block(self, header: str | None = None) -> AbstractContextManager[None]:
            """`with gen.block("if x:")`: what is emitted inside goes one deeper."""

        def local(self, name: str) -> str:
            """A declared local's name (else UndeclaredLocal)."""

        def kind_in(self, kinds: frozenset[int] | None) -> str:
            """The test that the placed kind k is of these kinds: "True"/"False" where the kind is known."""

        def values(self, table: tuple[Any, ...]) -> set[Any] | None:
            """The values a per-hex table takes over the hexes the placement can be on (None: nothing known)."""

        def loop_over(self, name: str) -> bool:
            """Whether to emit a loop over table `name` at h (not where it is empty on every possible hex)."""

        def guarded(self, name: str, block: list[str]) -> None:
            """A loop over table `name`, behind the body's `if adj:` test where that test is exact for it."""

        def public_source(self, rule: str, placer_first: bool) -> list[str] | None:
            """The public missions' incremental check written out for this placement (accel/public.py's
            public_source, a layer above this one), or None where it is not (then the caller emits the call)."""

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

        def landmark_sets(self, name: str, sets: list[list[int]]) -> str:
            """Per hex a set of landmarks as a C bit set, `u64 name[h][NLW]` (landmark lm: bit lm & 63 of word
            lm >> 6), walked in the landmarks' order; returns `name`."""
            ...

        def function(self, source: str) -> None:
            """A generated C function, declared before place()."""
            ...


@slotted_record
class Placement(Record):
    """One placement as the reactions see it: p's tile of `kind` on hex h, the move's index in the record
    (None in a probe), the ability answers given with it, and the landmarks it touches first (found before
    any reaction, so every `on first touch` statement sees the same first touch). The reactions only read
    it; it is not frozen because one is made every move, and frozen fields are set through
    object.__setattr__."""

    p: int
    kind: int
    h: int
    index: int | None
    choices: dict[str, Any]
    first: tuple[int, ...]

    # made for every placement: written out, as @dataclass would generate it (the shared one is slower)
    def __init__(self, p: int, kind: int, h: int, index: int | None, choices: dict[str, Any],
                 first: tuple[int, ...]) -> None:
        self.p = p
        self.kind = kind
        self.h = h
        self.index = index
        self.choices = choices
        self.first = first


# ----- the generated Python engine (pyengine/fast.py) ----------------------------------------------
@node
class Where(Node):
    """What the playout loop knows where it emits a placement: the tile kind, and the free list the hex
    was taken from (a local name; h is its element r) with every hex that list can hold."""

    kid: int
    free_list: str
    hexes: tuple[int, ...]


def landmarks_next_to(t: Tables, h: int) -> list[int]:
    """The landmarks next to hex h, in the order of h's neighbours (the templates' per-hex tables)."""
    return [t.landmark_of_hex[m] for m in t.neighbours[h] if m in t.landmark_of_hex]


def _no_tables(gen: PyGen, ri: int, rule: Any) -> None:
    """Nothing of its own at module level."""


def _not_pure(gen: PyGen, rule: Any) -> bool:
    """Not known to leave the majority counts and holders unread."""
    return False


def _no_lines(gen: PyGen, rule: Any) -> list[str]:
    """No line of its own."""
    return []


def _never(rule: Any) -> bool:
    """Never."""
    return False


def _no_ability(rule: Any) -> TypeGuard[TouchRule]:
    """Uses no landmark's ability."""
    return False


def _may(rule: Any, rs: Ruleset, h: int) -> bool:
    """May: nothing known says otherwise."""
    return True


def never_at(rule: Any, rs: Ruleset, h: int) -> bool:
    """Never, wherever the tile is placed."""
    return False


# ----- the native engine (native/cgen.py) ---------------------------------------------------------


@node
class Kind(Node):
    """A compiled statement kind: its reference reaction to a placement (the kernel and the events it
    tells), and what each engine asks of it (every field below `react` has a default: a module gives what
    its statements need)."""

    name: str
    react: Callable[[GameView, Any, Placement], None]

    # ----- the generated Python engine (pyengine/fast.py): for statement number ri of the ruleset,
    # its module-level tables; the statement in the placement body (None: the reference reaction is called
    # there); whether that is written out reading neither majority counts nor holders; the landmarks whose
    # tile counts it compares (None: none), which every placement next to them counts before any reaction,
    # or in the statement's own loop where nothing before it reads counts or holders (PyGen.fused); that
    # count, made before the reactions; and the lines the playout loop runs once per game for it
    python_tables: Callable[[PyGen, int, Any], None] = _no_tables
    python_place: Callable[[PyGen, int, Any], None] | None = None
    python_pure: Callable[[PyGen, Any], bool] = _not_pure
    counted: Callable[[Any], frozenset[int]] | None = None
    python_count: Callable[[PyGen, int, Any], None] = _no_tables
    python_loop_locals: Callable[[PyGen, Any], list[str]] = _no_lines
    # ----- the reference engine and the environments: whether the statement uses a landmark's ability
    # (I-R1), and whether it may draw a card on a placement that touches no landmark for the first time
    uses_ability: Callable[[Any], TypeGuard[TouchRule]] = _no_ability
    draws_without_first_touch: Callable[[Any], bool] = _never
    # ----- the native engine (native/cgen.py): the statement in place() over its locals s, p, k, v, h (and its
    # functions and tables through the context); None: the native engine cannot run it
    c_place: Callable[[CContext, Emitter, int, Any], None] | None = None
    # ----- every engine: the statement reads the face-up cards after a placement (I-M1), so the engines keep
    # their incremental readers of them (accel/public.py, the native engine's)
    reads_public: bool = False
    # ----- the generated Python engine's incremental check of the face-up cards (accel/public.py): whether the
    # statement, reacting to a placement on hex h, may change a landmark's holder, and whether it may win an
    # area; where no statement may, the check does not compare the holders or the areas won with its last
    # ones (by default a statement may)
    moves_holder: Callable[[Any, Ruleset, int], bool] = _may
    wins_area: Callable[[Any, Ruleset, int], bool] = _may
