"""The game state as a plain slotted structure, the one way events happen, and a copy derived from fields.

`State` declares every field with its type; `copy_state` is generated once from those declarations, so a
field added to the state is copied as deeply as its type says (a list of lists is copied two levels
down; ints, strings, tuples and frozen values are shared) and can never be silently shared between two
copies. Fields marked `shared` hold what depends only on the ruleset and board.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.emit import literal
from rebirth_dsl.compile.ruleset import Ability, CardDef, MajorityRule, Ruleset, TouchRule

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from rebirth_dsl.runtime.game import Game

from rebirth_dsl.rules.view import EMPTY as EMPTY  # the hex codes, re-exported where the state is
from rebirth_dsl.rules.view import NEUTRAL as NEUTRAL

# The answer to an ability's question (I-R1): {key: option}, True to use it with nothing to choose, False to
# decline; and what answers them where no move does (probes, playouts): (game, seat, landmark, ability, key,
# the possible answers or None)
Answer = dict[str, str] | bool
AutoChoose = Callable[["Game", int, int, Ability, str, "list[str] | None"], Answer]


@dataclass(slots=True)
class Event:
    """Something that happened: points scored (possibly 0), a landmark changing hands, a card drawn."""

    index: int | None  # move index; None for end-of-game scoring, -1 for setup
    player: int
    points: int
    category: str
    ids: tuple[str, ...]
    text: str


def _shared() -> Any:  # Any: a field's default stands in for a value of the field's own type
    return field(default=None, metadata={"shared": True})


@dataclass(slots=True, eq=False)
class State:
    """Everything that changes during a game. Hexes are board indices, players are seats (clockwise)."""

    # what depends only on the ruleset and board: shared by every copy
    rs: Ruleset = _shared()
    t: Tables = _shared()
    players: tuple[str, ...] = _shared()
    n_players: int = 0
    scenario: bool = False
    lm_adj: tuple[tuple[int, ...], ...] = _shared()
    metric_of: dict[int, MajorityRule] = _shared()
    cards: dict[str, CardDef] = _shared()
    ability_rules: tuple[TouchRule, ...] = _shared()
    auto_choose: AutoChoose | None = _shared()  # probes and playouts: answers ability questions the record does not
    # the position
    declared_over: bool = False
    quiet: bool = False  # simulations: points only, no event objects and no text
    owner: list[int] = field(default_factory=list)
    tkind: list[int] = field(default_factory=list)
    tval: list[int] = field(default_factory=list)
    tiles_of: list[list[list[int]]] = field(default_factory=list)  # [seat][kind] -> hexes, in placing order
    parent: list[int] = field(default_factory=list)  # union-find over same-owner same-kind neighbours
    gsize: list[int] = field(default_factory=list)
    area_free: list[int] = field(default_factory=list)
    area_inf: list[list[int]] = field(default_factory=list)  # [area][seat]
    area_first: dict[int, int] = field(default_factory=dict)
    area_done: list[bool] = field(default_factory=list)
    lm_owner: list[int] = field(default_factory=list)
    lm_count: list[list[list[int]]] = field(default_factory=list)  # [landmark][metric][seat]
    touched: list[set[int]] = field(default_factory=list)
    free: dict[str, list[int]] = field(default_factory=dict)  # free hexes per hex kind (swap-remove lists)
    free_pos: list[int] = field(default_factory=list)
    # a player's groups of some kinds (Game.groups_of), kept only while a fixed position is read, None otherwise
    memo: dict[tuple[str, int, frozenset[int]], list[list[int]]] | None = _shared()
    # the players
    scores: list[dict[str, int]] = field(default_factory=list)
    track: list[int] = field(default_factory=list)
    start_scores: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    hand: list[list[tuple[int, int]]] = field(default_factory=list)
    supply: list[list[tuple[int, int]]] = field(default_factory=list)  # the end of each list is its top
    set_aside: list[list[tuple[int, int]]] = field(default_factory=list)
    decks: dict[str, list[str]] = field(default_factory=dict)  # top card first
    held: list[list[str]] = field(default_factory=list)
    turn: int = 0
    move_index: int = 0
    passed: list[int] = field(default_factory=list)
    public: list[str] = field(default_factory=list)
    public_by: dict[str, list[int]] = field(default_factory=dict)
    doubled: list[dict[str, int]] = field(default_factory=list)  # per player: card -> its marker's factor
    # what the public missions were last checked against by the generated engine's incremental check
    # (accel/public.py): [hex owners, landmark holders, [areas won], the face-up cards each seat has not
    # fulfilled (bits), how far each seat is from each bounded card's number]; empty until the first check,
    # which reads every card
    public_seen: list[list[int]] = field(default_factory=list)
    pending_draw: dict[int, tuple[int, tuple[int, int], str]] = field(default_factory=dict)  # (n, keep, rest)

    # ----- the one way anything happens ---------------------------------------------------------
    def event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str,
              *args: object) -> None:
        """Points (possibly none) to a player's track and category, and an Event unless quiet. The text is
        a `str.format` template filled with args only when it is kept, so a quiet game never builds words."""
        if pts:
            sc = self.scores[p]
            sc[category] = sc.get(category, 0) + pts
            self.track[p] += pts
        if not self.quiet:
            self.events.append(Event(index, p, pts, category, ids, text.format(*args) if args else text))

    def end_event(self, p: int, pts: int, category: str, ids: tuple[str, ...], text: str, *args: object) -> Event:
        """An end-of-game Event, scored by the caller on top of the track (the state is not changed)."""
        return Event(None, p, pts, category, ids, "" if self.quiet else text.format(*args) if args else text)

    def copy(self) -> State:
        """An independent copy (see copy_state)."""
        return copy_state(self)


# ----- the copy, derived from the field types ------------------------------------------------------
_S = TypeVar("_S", bound="DataclassInstance")  # the dataclass a copy function is derived for
_ATOMIC = {"int", "bool", "str", "float", "None"}


def _copier(ann: str, var: str, depth: int = 0) -> str | None:
    """Source that copies a value of annotation `ann` held in `var`; None when it is shared as it is.
    A container of containers of atoms is copied with `map` (`list(map(list, v))`), one call that runs
    in C where a comprehension would run a loop of bytecode: the same copy."""
    ann = ann.strip()
    if ann in _ATOMIC or ann.startswith("tuple[") or ann.startswith("frozenset["):
        return None
    if "|" in ann and not ann.startswith(("list[", "dict[", "set[")):
        parts = [a.strip() for a in ann.split("|")]
        kept = [p for p in parts if p != "None"]
        if len(kept) == 1:
            src = _copier(kept[0], var, depth)
            return None if src is None else f"(None if {var} is None else {src})"
        return None
    m = re.fullmatch(r"(list|set|dict)\[(.*)\]", ann)
    if m is None:
        return None  # a class: immutable or shared by design (rule objects, tables)
    kind, args = m.groups()
    x = f"x{depth}"
    if kind in ("list", "set"):
        inner = _copier(args, x, depth + 1)
        if inner is None:
            return f"{kind}({var})"
        ctor = _shallow(args)
        if ctor is not None:
            return f"{kind}(map({ctor}, {var}))"
        return f"[{inner} for {x} in {var}]" if kind == "list" else f"{{{inner} for {x} in {var}}}"
    key, _, value = _split_dict(args)
    inner = _copier(value, x, depth + 1)
    if inner is None:
        return f"dict({var})"
    ctor = _shallow(value)
    if ctor is not None:
        return f"dict(zip({var}, map({ctor}, {var}.values())))"
    k = f"k{depth}"
    return f"{{{k}: {inner} for {k}, {x} in {var}.items()}}"


def _shallow(ann: str) -> str | None:
    """`list`, `set` or `dict` when a value of annotation `ann` is copied by that one call (a container
    of shared values), else None."""
    m = re.fullmatch(r"(list|set|dict)\[(.*)\]", ann.strip())
    if m is None:
        return None
    kind, args = m.groups()
    inner = args if kind != "dict" else _split_dict(args)[2]
    return kind if _copier(inner, "x") is None else None


def _split_dict(args: str) -> tuple[str, str, str]:
    """`str, list[int]` -> ('str', ',', 'list[int]'), splitting at the top-level comma."""
    depth = 0
    for i, ch in enumerate(args):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            return args[:i].strip(), ",", args[i + 1:].strip()
    raise ValueError(f"not a dict annotation: {args}")


class _Copy(Protocol):
    """Copies a state of the class it was derived for, or of a subclass (a Game), into one of the same class."""

    def __call__(self, s: _S, /) -> _S: ...


def derive_copy(cls: type[DataclassInstance]) -> _Copy:
    """Generate the copy function of a slotted dataclass from its fields' annotations (source made only
    of the class's own field names and the templates above)."""
    lines = ["def copy(s):", "    n = object.__new__(type(s))"]
    for f in dataclasses.fields(cls):
        ann = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "object")
        src = None if f.metadata.get("shared") else _copier(ann, f"s.{f.name}")
        lines.append(f"    n.{f.name} = {src or f's.{f.name}'}")
    lines.append("    return n")
    env: dict[str, Any] = {"__builtins__": {"object": object, "type": type, "list": list, "dict": dict, "set": set,
                                            "map": map, "zip": zip}}
    exec(compile("\n".join(lines), f"<copy of {cls.__name__}>", "exec"), env)  # noqa: S102 - our own field names
    copy: _Copy = env["copy"]  # the source defines copy
    return copy


copy_state = derive_copy(State)


_ATOMS = (bool, int, str, type(None))


def derive_fresh(s: _S) -> Callable[[], _S]:
    """A function making new states equal to `s`, for a state every game of a kind starts from (the blank
    position of a ruleset and player count, runtime/game.blank). What copy_state(s) copies is written
    out as displays of its contents (`[...]`, `{...}`), which the interpreter builds in one step each,
    where copy_state calls a constructor per container; what copy_state shares (shared fields, tuples,
    rule objects) is passed in as it is. The source holds only field names and checked literals."""
    env: dict[str, Any] = {"__builtins__": {"object": object, "set": set}, "CLS": type(s)}

    def share(v: object) -> str:
        name = f"V{len(env)}"
        env[name] = v
        return name

    def build(v: object) -> str:
        """A display making a fresh copy of v, every list, dict and set in it new; leaves as they are."""
        if type(v) in _ATOMS:
            return literal(v)
        if type(v) is list:
            if len(v) > 8 and all(type(x) in _ATOMS for x in v):
                return f"[*{share(tuple(v))}]"  # a long flat list: extended from one tuple
            return "[" + "".join(build(x) + ", " for x in v) + "]"
        if type(v) is dict and all(type(k) in _ATOMS for k in v):
            return "{" + "".join(f"{literal(k)}: {build(x)}, " for k, x in v.items()) + "}"
        if type(v) is set and all(type(x) in _ATOMS for x in v):
            return "{" + "".join(literal(x) + ", " for x in v) + "}" if v else "set()"
        if isinstance(v, list | dict | set):
            raise _Unbuilt
        return share(v)  # a value copy_state shares too: a tuple, a frozen or rule object

    lines = ["def fresh():", "    n = object.__new__(CLS)"]
    for f in dataclasses.fields(type(s)):
        v = getattr(s, f.name)
        ann = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "object")
        if f.metadata.get("shared") or _copier(ann, "x") is None:
            src = literal(v) if type(v) in _ATOMS else share(v)
        else:
            try:
                src = build(v)
            except _Unbuilt:  # a container display cannot write: copied as copy_state copies it
                src = _copier(ann, f"{share(s)}.{f.name}") or ""
        lines.append(f"    n.{f.name} = {src}")
    lines.append("    return n")
    exec(compile("\n".join(lines), f"<fresh {type(s).__name__}>", "exec"), env)  # noqa: S102 - our own field names and literals
    fresh: Callable[[], _S] = env["fresh"]  # the source defines fresh
    return fresh


class _Unbuilt(Exception):
    """A value derive_fresh does not write as a display."""
