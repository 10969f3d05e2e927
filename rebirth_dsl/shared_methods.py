"""Dataclasses whose methods are written once, instead of compiled afresh for every class at every start.

`@dataclass` builds the source of each class's __init__, __repr__, __eq__ (and, frozen, __hash__,
__setattr__, __delattr__) and compiles it every time the module is imported. For the 54 AST node classes
and the compiled ruleset's classes that was about a third of a warm `rebirth eval` once pydantic had left
it (timed around dataclasses._process_class); for the game state, the rule kinds, the errors' classes and
the others a warm eval makes once, another 57 M of its 450 M instructions (callgrind). Nor is `dataclasses`
imported: it imports inspect, ast and dis besides. The decorators below collect a class's
fields as @dataclass does (annotations in order, bases' first; defaults, and `field()` for factories and
fields left out of the repr or the comparisons), make it slotted where asked, and give it
`__dataclass_fields__` made on first use, so `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`
see each class as the dataclass it stands for (importing dataclasses only then). The methods come from a
base class that reads the recorded fields, with the behaviour the decorator would give them: fields set by
position or keyword with their defaults (factories called afresh); equality over the compared fields of
objects of the very same class; `Name(id='x', ...)` as the repr.

- `Record` classes are mutable and unhashable, as `@dataclass` makes them (`slotted_record`: with slots);
- `Node` classes are frozen (FrozenInstanceError on assignment), hashable over their compared fields, and
  slotted;
- `Struct` classes are mutable and slotted, and equal and hashed as objects are, as
  `@dataclass(slots=True, eq=False)` leaves them: the game state.

The shared constructor is several times slower than a generated one: a class made in an engine's loop
(an event, a placement, a dealt setup) writes its own out, storing every field in order. This module sits
at the bottom of the package, beside errors, whose Span, Fix and Diagnostic use it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

from rebirth_dsl import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**kwargs: object) -> Callable[[_T], _T]:
        """typing.dataclass_transform, which only type checkers read: the decorator itself, unchanged."""
        return lambda decorator: decorator

_set = object.__setattr__
_META: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


class _Missing:
    """No default given (dataclasses.MISSING's counterpart)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FieldSpec:
    """One field as `field()` declares it and the decorators below record it (`dataclasses.Field`'s part
    that these classes use): its name, type and default, and whether it is shown and compared."""

    __slots__ = ("name", "type", "default", "default_factory", "repr", "hash", "compare", "metadata")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True,  # noqa: A002
                 hash: bool | None = None, compare: bool = True,  # noqa: A002 - dataclasses.field's names
                 metadata: Mapping[Any, Any] | None = None) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name, self.type = "", ""
        self.default, self.default_factory, self.repr, self.hash, self.compare = (default, default_factory, repr, hash,
                                                                                  compare)
        self.metadata: Mapping[Any, Any] = {} if metadata is None else metadata

    def __repr__(self) -> str:
        return f"FieldSpec(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True,  # noqa: A002
          hash: bool | None = None, compare: bool = True, metadata: Mapping[Any, Any] | None = None) -> Any:
    """A field with a default, a default factory, or left out of the repr or the comparisons, as
    `dataclasses.field` declares it (for the classes below: every field is set by the constructor). Typed
    Any, as the field's value: no overloads by argument (they need typing.overload at run time)."""
    return FieldSpec(default, default_factory, repr, hash, compare, metadata)


def _is_class_var(annotation: object) -> bool:
    """Whether an annotation (a string, under `from __future__ import annotations`) is a ClassVar."""
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def _fields_of_new(bases: tuple[type, ...], own: Mapping[str, Any]) -> tuple[FieldSpec, ...]:
    """The fields of a class being made from `bases` and the namespace `own`: its bases' (in MRO order) then
    its own annotated names, each with the default its class body gives (a plain value or a field()), as
    @dataclass collects them."""
    found: dict[str, FieldSpec] = {}
    if len(bases) == 1:  # the usual class statement: its one base's MRO as it is
        mro: Sequence[type] = bases[0].__mro__
    else:
        mro = []
        for b in bases:
            mro.extend([c for c in b.__mro__ if c not in mro])
    for base in reversed(mro):
        for f in vars(base).get("__shared_fields__", ()):
            found[f.name] = f
    for name, annotation in own.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        value = own.get(name, MISSING)
        if isinstance(value, FieldSpec):
            f = value
        elif type(value).__name__ == "Field" and "dataclasses" in sys.modules \
                and isinstance(value, sys.modules["dataclasses"].Field):  # dataclasses.field(): imported already
            f = _from_dataclass_field(value)
        else:
            f = FieldSpec(default=value)
        if f.default is not MISSING and type(f.default).__hash__ is None:  # a list, dict or set shared by all
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        f.name, f.type = name, annotation
        found[name] = f
    seen_default = False
    for f in found.values():  # the constructor takes them in this order, as @dataclass's does
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default |= has_default
    return tuple(found.values())


def _from_dataclass_field(f: Any) -> FieldSpec:
    """A `dataclasses.field()` given to one of these classes, as a FieldSpec."""
    dc = sys.modules["dataclasses"]
    if not f.init or f.kw_only is True:
        raise TypeError("the shared constructor sets every field, by position or name: no init=False or kw_only")
    return FieldSpec(MISSING if f.default is dc.MISSING else f.default,
                     MISSING if f.default_factory is dc.MISSING else f.default_factory,
                     f.repr, f.hash, f.compare, f.metadata)


class _DataclassFields:
    """`__dataclass_fields__`, made on first use: `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`
    see these classes as the dataclasses they stand for, and only a caller of them imports `dataclasses`
    (with inspect, ast and dis: a tenth of a warm `rebirth eval`, which never calls them)."""

    def __get__(self, obj: object, cls: type | None = None) -> dict[str, Any]:
        import dataclasses

        owner = type(obj) if cls is None else cls
        made: dict[str, Any] = {}
        for f in owner.__shared_fields__:  # type: ignore[attr-defined]  # set by the decorators below
            real: Any = dataclasses.field(default=dataclasses.MISSING if f.default is MISSING else f.default,
                                     default_factory=dataclasses.MISSING if f.default_factory is MISSING
                                     else f.default_factory, repr=f.repr, hash=f.hash, compare=f.compare,
                                     metadata=f.metadata)
            real.name, real.type = f.name, f.type
            real._field_type = dataclasses._FIELD  # type: ignore[attr-defined]  # the mark fields() keeps
            made[f.name] = real
        type.__setattr__(owner, "__dataclass_fields__", made)  # made once per class
        return made


def _decorate(cls: type[_T], slots: bool) -> type[_T]:
    """The class with its fields recorded (and, with `slots`, remade with a slot per field, as
    `@dataclass(slots=True)` remakes it): the defaults move into the shared constructor."""
    if "__shared_fields__" in vars(cls):  # made so by _OneStep as its class statement ran
        return cls
    fs = _fields_of_new(cls.__bases__, vars(cls))
    own = dict(vars(cls))
    made: Any = cls
    annotations = own.get("__annotations__") or {}
    mine = {f.name for f in fs if f.name in annotations}
    if slots:
        inherited = {s for base in cls.__mro__[1:-1] for s in vars(base).get("__slots__", ())}
        own["__slots__"] = tuple(f.name for f in fs if f.name not in inherited)
        for name in (*mine, "__dict__", "__weakref__"):
            own.pop(name, None)
        qualname = cls.__qualname__
        meta: Any = type(cls)
        made = meta(cls.__name__, cls.__bases__, own)
        made.__qualname__ = qualname
    else:
        for f in fs:
            if f.name not in mine:
                continue
            if f.default is MISSING:
                if f.name in own:
                    delattr(made, f.name)
            else:
                setattr(made, f.name, f.default)
    made.__shared_fields__ = fs
    made.__match_args__ = tuple(f.name for f in fs)  # type: ignore[misc]  # Any; mypy still refuses the name
    made.__dataclass_fields__ = _DataclassFields()
    return made  # type: ignore[no-any-return]


class _OneStep(type):
    """Struct's metaclass: a Node or Struct class (not a Record's, which has no slots unless asked) is made
    slotted, its fields recorded, as its class statement runs: what its decorator would do, without making
    the class a second time for its slots as @dataclass(slots=True) does (making a class is dear, and a
    command makes every class of the modules it imports). A class that names its own __slots__ is left
    alone."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: Any) -> Any:
        # loops and list comprehensions, not generator expressions: this runs for every class of every
        # module a command imports, and a generator costs more to make and resume than the loop it drives
        if "__slots__" in ns or not [b for b in bases if isinstance(b, _OneStep)
                                     and (issubclass(b, Node) or not issubclass(b, Record))]:
            return super().__new__(mcls, name, bases, ns, **kwargs)
        fs = _fields_of_new(bases, ns)
        names = tuple([f.name for f in fs])
        annotations = ns.get("__annotations__") or {}
        mine = {n for n in names if n in annotations}
        inherited: set[str] = set()
        for b in bases:
            for c in b.__mro__[:-1]:
                inherited.update(vars(c).get("__slots__", ()))
        ns = {k: v for k, v in ns.items() if k not in mine}
        ns["__slots__"] = tuple([n for n in names if n not in inherited])
        ns["__shared_fields__"] = fs
        ns["__match_args__"] = names
        ns["__dataclass_fields__"] = _DataclassFields()
        return super().__new__(mcls, name, bases, ns, **kwargs)


def field_names(cls: type) -> tuple[str, ...]:
    """The field names of a class made by the decorators below, in order (() for any other class)."""
    return tuple(f.name for f in getattr(cls, "__shared_fields__", ()))


def _meta(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A class's (compared, shown, all) field names, read once from its recorded fields."""
    meta = _META.get(cls)
    if meta is None:
        fs: tuple[FieldSpec, ...] = cls.__shared_fields__  # type: ignore[attr-defined]
        meta = _META[cls] = (tuple(f.name for f in fs if f.compare), tuple(f.name for f in fs if f.repr),
                             tuple(f.name for f in fs))
    return meta


class Struct(metaclass=_OneStep):
    """The shared constructor and repr of a dataclass (see the module's docstring); equality and hash are
    those of objects, as `@dataclass(eq=False)` leaves them."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    __shared_fields__: ClassVar[tuple[FieldSpec, ...]]  # set on each subclass by the decorators below

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
        for f in self.__shared_fields__[len(args):]:
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
        from dataclasses import FrozenInstanceError  # only on this error: see _DataclassFields

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]  # frozen: hashable again, as @dataclass(frozen=True)
        return hash(self._compared())

    def __getstate__(self) -> list[object]:  # copy and pickle: a slotted object has no __dict__
        return [getattr(self, name) for name in _meta(type(self))[2]]

    def __setstate__(self, state: list[object]) -> None:
        for name, value in zip(_meta(type(self))[2], state, strict=True):
            _set(self, name, value)


# A class may write its own __init__ (storing every field, in order, as the shared one does) where it is
# made in an engine's loop: the shared constructor is several times slower than a written-out one.
@dataclass_transform(eq_default=False, field_specifiers=(field,))  # the constructor from the fields; objects' own equality
def struct(cls: type[_T]) -> type[_T]:
    """A Struct class: a slotted class whose constructor and repr are Struct's, equal only to itself."""
    assert issubclass(cls, Struct) and not issubclass(cls, Record) and "__repr__" not in vars(cls)
    return _decorate(cls, slots=True)


@dataclass_transform(field_specifiers=(field,))  # type checkers see the fields as the constructor, as with @dataclass
def record(cls: type[_T]) -> type[_T]:
    """A Record class: a dataclass whose methods are Record's."""
    assert issubclass(cls, Record) and "__eq__" not in vars(cls) and "__repr__" not in vars(cls)
    return _decorate(cls, slots=False)


@dataclass_transform(field_specifiers=(field,))
def slotted_record(cls: type[_T]) -> type[_T]:
    """A Record class with slots: `@dataclass(slots=True)` with Record's methods."""
    assert issubclass(cls, Record) and "__eq__" not in vars(cls) and "__repr__" not in vars(cls)
    return _decorate(cls, slots=True)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))  # the constructor from the fields; assignment refused
def node(cls: type[_T]) -> type[_T]:
    """A Node class: a slotted class whose methods are Node's."""
    assert issubclass(cls, Node) and "__eq__" not in vars(cls) and "__repr__" not in vars(cls)
    return _decorate(cls, slots=True)


def shared_fields(cls: type) -> tuple[FieldSpec, ...]:
    """The fields of a class made by the decorators above, in order (dataclasses.fields without importing it)."""
    fs: tuple[FieldSpec, ...] | None = getattr(cls, "__shared_fields__", None)
    if fs is None:
        raise TypeError(f"{cls.__name__} is not a class made by rebirth_dsl.shared_methods")
    return fs


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of an object of a class made above with some fields changed (dataclasses.replace for them)."""
    names = _meta(type(obj))[2]
    values = [changes.pop(name) if name in changes else getattr(obj, name) for name in names]
    if changes:
        raise TypeError(f"{type(obj).__name__} has no fields {sorted(changes)}")
    return type(obj)(*values)
