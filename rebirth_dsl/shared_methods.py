"""Dataclasses whose methods are written once, instead of compiled afresh for every class at every start.

`@dataclass` builds the source of each class's __init__, __repr__, __eq__ (and, frozen, __hash__,
__setattr__, __delattr__) and compiles it every time the module is imported. For the 54 AST node classes
and the compiled ruleset's classes that was about a third of a warm `rebirth eval` once pydantic had left
it (timed around dataclasses._process_class); for the game state, the rule kinds, the errors' classes and
the others a warm eval makes once, another 57 M of its 450 M instructions (callgrind). The classes below
are still dataclasses, decorated with those methods switched off (`fields`, `replace`, `match` and the
cache's codec see them as before); the methods come from a base class that reads the fields from the
dataclass metadata, with the behaviour the decorator would give them: fields set by position or keyword
with their defaults (factories called afresh); equality over the compared fields of objects of the very
same class; `Name(id='x', ...)` as the repr.

- `Record` classes are mutable and unhashable, as `@dataclass` makes them (`slotted_record`: with slots);
- `Node` classes are frozen (FrozenInstanceError on assignment), hashable over their compared fields, and
  slotted;
- `Struct` classes are mutable and slotted, and equal and hashed as objects are, as
  `@dataclass(slots=True, eq=False)` leaves them: the game state.

The shared constructor is several times slower than a generated one: a class made in an engine's loop
(an event, a placement, a dealt setup) keeps `@dataclass`. This module sits at the bottom of the package,
beside errors, whose Span, Fix and Diagnostic use it.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

_T = TypeVar("_T")
_set = object.__setattr__
_META: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _meta(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A class's (compared, shown, all) field names, read once from its dataclass fields."""
    meta = _META.get(cls)
    if meta is None:
        fs = fields(cls)
        meta = _META[cls] = (tuple(f.name for f in fs if f.compare), tuple(f.name for f in fs if f.repr),
                             tuple(f.name for f in fs))
    return meta


class Struct:
    """The shared constructor and repr of a dataclass (see the module's docstring); equality and hash are
    those of objects, as `@dataclass(eq=False)` leaves them."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # set on each subclass by @dataclass; Any: as typeshed's

    def __init__(self, *args: object, **kwargs: object) -> None:
        names = self.__match_args__  # every field is an init field, in order
        if not kwargs and len(args) == len(names):  # the AST's usual call: every field by position
            for name, value in zip(names, args, strict=True):
                _set(self, name, value)
            return
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments, got {len(args)}")
        for name, value in zip(names, args, strict=False):
            _set(self, name, value)
        for f in fields(self)[len(args):]:
            if f.name in kwargs:
                value = kwargs.pop(f.name)
            elif f.default is not MISSING:
                value = f.default
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            else:
                raise TypeError(f"{type(self).__name__}() missing the argument {f.name!r}")
            _set(self, f.name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected or repeated arguments {sorted(kwargs)}")

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _meta(type(self))[1])
        return f"{self.__class__.__qualname__}({inner})"


class Record(Struct):
    """The shared methods of a mutable dataclass (see the module's docstring)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # mutable with equality: unhashable, as @dataclass makes it

    def _compared(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in _meta(type(self))[0])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._compared() == other._compared()
        return NotImplemented


class Node(Record):
    """The shared methods of a frozen, slotted dataclass (see the module's docstring)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]  # frozen: hashable again, as @dataclass(frozen=True)
        return hash(self._compared())

    def __getstate__(self) -> list[object]:  # copy and pickle: a slotted object has no __dict__
        return [getattr(self, name) for name in _meta(type(self))[2]]

    def __setstate__(self, state: list[object]) -> None:
        for name, value in zip(_meta(type(self))[2], state, strict=True):
            _set(self, name, value)


@dataclass_transform(eq_default=False)  # the constructor from the fields; objects' own equality
def struct(cls: type[_T]) -> type[_T]:
    """A Struct class: a slotted dataclass whose constructor and repr are Struct's, equal only to itself."""
    assert issubclass(cls, Struct) and not issubclass(cls, Record) and "__repr__" not in vars(cls)
    return dataclass(slots=True, init=False, repr=False, eq=False)(cls)


@dataclass_transform()  # type checkers see the fields as the constructor, as with @dataclass
def record(cls: type[_T]) -> type[_T]:
    """A Record class: a dataclass whose methods are Record's."""
    assert issubclass(cls, Record) and "__eq__" not in vars(cls) and "__repr__" not in vars(cls)
    return dataclass(init=False, repr=False, eq=False)(cls)


@dataclass_transform()
def slotted_record(cls: type[_T]) -> type[_T]:
    """A Record class with slots: `@dataclass(slots=True)` with Record's methods."""
    assert issubclass(cls, Record) and "__eq__" not in vars(cls) and "__repr__" not in vars(cls)
    return dataclass(slots=True, init=False, repr=False, eq=False)(cls)


@dataclass_transform(frozen_default=True)  # the constructor from the fields; assignment refused
def node(cls: type[_T]) -> type[_T]:
    """A Node class: a slotted dataclass whose methods are Node's."""
    assert issubclass(cls, Node) and "__eq__" not in vars(cls) and "__repr__" not in vars(cls)
    return dataclass(slots=True, init=False, repr=False, eq=False)(cls)
