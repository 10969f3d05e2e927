"""The one way generated code is written: literals checked to be plain values (Python's, and C's ints), and
the Emitter (indentation, names bound once, declared locals) the Python and C generators share; and the one
way generated Python is run (run_source)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, FunctionType

from rebirth_dsl import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


def literal(v: object) -> str:
    """Source for a plain value, after checking it is one: int, bool, str, None, or tuples or dicts of them.
    The one way generated code (here and in fast.py) receives data."""
    if isinstance(v, bool | int | str) or v is None:
        return repr(v)
    if isinstance(v, tuple):
        return "(" + "".join(literal(x) + ", " for x in v) + ")"
    if isinstance(v, dict):
        return "{" + "".join(f"{literal(k)}: {literal(x)}, " for k, x in v.items()) + "}"
    raise TypeError(f"not a literal: {type(v).__name__}")


def run_source(source: str, filename: str, env: dict[str, Any]) -> None:
    """Run generated source in `env`, the code of the functions it defines named `filename` (what
    tracebacks and profiles show), as `exec(compile(source, filename, "exec"), env)` does. compile() is
    not called: it first checks whether it was given an AST, and the first such check in a process builds
    every class of Python's `ast` module, which costs a command that compiles a few expressions more than
    compiling them does. exec() of the text compiles it alike, naming the code "<string>"."""
    exec(source, env)  # noqa: S102 - the callers' generators write the text, from checked literals only
    for value in env.values():
        if type(value) is FunctionType and value.__globals__ is env and value.__code__.co_filename == "<string>":
            value.__code__ = _named(value.__code__, filename)


def _named(code: CodeType, filename: str) -> CodeType:
    """The code, and the code of the functions, lambdas and comprehensions in it, named `filename`."""
    consts = tuple(_named(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def c_int(v: object) -> str:
    """A C integer literal from a checked Python int (never any other type)."""
    if isinstance(v, bool):
        v = int(v)
    if type(v) is not int or not -(1 << 62) <= v <= (1 << 62):
        raise TypeError(f"not an int literal: {type(v).__name__}")
    return str(v) if v >= 0 else f"({v})"


def c_u64(v: object) -> str:
    """A C unsigned 64-bit literal from a checked Python int."""
    if type(v) is not int or not 0 <= v < 1 << 64:
        raise TypeError(f"not a 64-bit word: {type(v).__name__}")
    return f"0x{v:x}ULL"


def c_ints(values: list[int] | tuple[int, ...], words: bool = False) -> str:
    """`{1, 2, 3}` from checked ints (`{0}` for none: C has no empty initialiser)."""
    emit = c_u64 if words else c_int
    return "{" + (", ".join(emit(v) for v in values) if values else "0") + "}"


def bitset(mask: list[bool] | tuple[bool, ...], words: int) -> list[int]:
    """A per-hex truth table as 64-bit words."""
    out = [0] * words
    for h, on in enumerate(mask):
        if on:
            out[h >> 6] |= 1 << (h & 63)
    return out


class UndeclaredLocal(NameError):
    """A template asked for a local its enclosing generated function does not declare."""


class Locals:
    """The locals an enclosing generated function declares for the templates it emits: a template asks for
    each name it reads (`loc("groot")`), so no template relies on a generator's names by convention."""

    def __init__(self, names: frozenset[str] = frozenset()) -> None:
        self._names = names

    def declare(self, *names: str) -> Locals:
        """These locals and more (the function binds them before the templates that read them)."""
        return Locals(self._names | frozenset(names))

    def __call__(self, name: str) -> str:
        """The local's name in the source; an undeclared one is refused at generation time."""
        if name not in self._names:
            raise UndeclaredLocal(f"the generated function declares no local {name!r}")
        return name

    def require(self, *names: str) -> None:
        """A template's check that every local it reads is declared (else UndeclaredLocal)."""
        for name in names:
            self(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names


def assigned(lines: list[str]) -> tuple[str, ...]:
    """The names simple assignment lines (`a = ...`, `a, b = ...`) bind: what they declare as locals."""
    out: list[str] = []
    for ln in lines:
        head = ln.split(" = ", 1)[0]
        out.extend(x.strip() for x in head.split(","))
    return tuple(out)


class Emitter:
    """Generated source built one line at a time: the indentation of the blocks it is in, the names bound
    to values once for the whole module (constants as checked literals, objects by reference into the exec
    namespace), and the locals declared for the templates it emits."""

    def __init__(self, namespace: dict[str, object] | None = None, indent: str = "    ") -> None:
        self.lines: list[str] = []
        self.consts: list[str] = []  # `NAME = literal` lines, before every function
        self.namespace: dict[str, object] = {} if namespace is None else namespace
        self.locals = Locals()
        self._names: set[str] = set()  # the names bound by const, ref and c_table
        self._unit = indent
        self._indent = ""

    # ----- lines and blocks
    def line(self, text: str = "") -> None:
        """One line at the current indentation (an empty one stays empty)."""
        self.lines.append(self._indent + text if text else "")

    def extend(self, lines: list[str]) -> None:
        """Lines (a template's, indented relative to each other) at the current indentation."""
        for ln in lines:
            self.line(ln)

    @contextmanager
    def block(self, header: str | None = None, close: str | None = None) -> Iterator[None]:
        """`with e.block("if x:")`: the header at this indentation, what is emitted inside one deeper
        (no header: only deeper, as after a header emitted by hand); `close` (C's "}") after it, at the
        header's indentation."""
        if header is not None:
            self.line(header)
        saved = self._indent
        self._indent += self._unit
        try:
            yield
        finally:
            self._indent = saved
        if close is not None:
            self.line(close)

    # ----- declared locals
    def declare(self, *names: str) -> None:
        """The enclosing function binds these locals: templates emitted from now on may read them."""
        self.locals = self.locals.declare(*names)

    @contextmanager
    def scope(self) -> Iterator[None]:
        """A generated function's own locals: those declared inside are forgotten after it."""
        saved = self.locals
        try:
            yield
        finally:
            self.locals = saved

    def local(self, name: str) -> str:
        """A declared local's name (else UndeclaredLocal)."""
        return self.locals(name)

    # ----- names bound once
    def const(self, name: str, value: object) -> str:
        """A module-level constant: a plain value, checked to be one (literal)."""
        self._bind(name)
        self.consts.append(f"{name} = {literal(value)}")
        return name

    def ref(self, name: str, obj: object) -> str:
        """A module-level name for an object passed by reference into the namespace, never as text."""
        self._bind(name)
        self.namespace[name] = obj
        return name

    def child(self) -> Emitter:
        """An emitter of its own lines, at no indentation, sharing this one's bound names and declared locals
        (a body built once and emitted in several places)."""
        e = Emitter(self.namespace, self._unit)
        e.consts = self.consts
        e.locals = self.locals
        e._names = self._names
        return e

    def names_read(self, start: int, known: set[str]) -> list[str]:
        """The names of `known` that the lines from `start` on read (Python's tokenizer, not a regex: words in
        strings and comments are not names), sorted."""
        import tokenize  # only where engines are generated: not on the path of `rebirth eval`

        text = "\n".join(self.lines[start:]) + "\n"
        toks = tokenize.generate_tokens(io.StringIO(text).readline)
        return sorted({tk.string for tk in toks if tk.type == tokenize.NAME} & known)

    def c_table(self, ctype: str, name: str, size: str, values: list[int] | tuple[int, ...]) -> str:
        """A C constant table `static const ctype name[size] = {...};` of checked ints (c_ints)."""
        self._bind(name)
        self.consts.append(f"static const {ctype} {name}[{size}] = {c_ints(values)};")
        return name

    def bound(self) -> set[str]:
        """Every module-level name bound so far (constants, references and whatever the namespace held)."""
        return self._names | set(self.namespace)

    def _bind(self, name: str) -> None:
        if not name.isidentifier():
            raise ValueError(f"not an identifier: {name!r}")
        self._names.add(name)
