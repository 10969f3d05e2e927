"""Expressions compiled to C: one generated C function per expression, `i64 f(const S *s, int me, int placed,
i64 inf)`, with the meaning of compile/closures.py and of the generated Python of compile/exprgen.py
(the two are proven equal by tests/engines/test_fast.py).

Representation: every value that is a number, truth, player, hex or landmark is an `i64`; a collection of
hexes is a bitset (`u64[W]`); a collection of groups is the array of its groups' sizes (nothing else can
be read off a group collection: `largest`, `atleast`, `count`); landmarks and areas are only ever counted,
so they are their count. Safety: the C text is made of this generator's own words and integers checked
to be ints; kinds, tags and landmarks are resolved to integer tables first, and no name or text from a
rules or board file is ever written into the source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rebirth_dsl.check.types import VARIABLES
from rebirth_dsl.compile.emit import bitset, c_int, c_ints
from rebirth_dsl.compile.functions import FUNCTIONS
from rebirth_dsl.compile.prims import selected_kinds
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Tables

MAX_COUNTERS = 64  # tile counters (ExprGen.tile_counter): four to a u64, each 16 bits
BOUND = 1 << 40  # a value an expression may reach; totals of many such stay far inside 64 bits
_ARITH = {"+": "+", "-": "-", "*": "*"}
_CMP = {">=": ">=", "<=": "<=", ">": ">", "<": "<", "==": "==", "!=": "!="}
_INTLIKE = {"int", "bool", "player", "hex", "landmark", "landmarks", "areas"}


class Unsupported(Exception):
    """A construct the native backend cannot express; its message names it."""


@dataclass
class ExprGen:
    """Collects the C functions and constant tables of every expression of one ruleset."""

    t: Tables
    words: int
    max_value: int  # the largest tile value: bounds `influence`
    group_kinds: frozenset[int]
    functions: list[str] = field(default_factory=list)
    consts: list[str] = field(default_factory=list)
    _n: int = 0
    _const_of: dict[tuple, str] = field(default_factory=dict)
    # counters of a seat's tiles of some kinds on a fixed set of hexes, kept by occupy (ctext.py hcnt) so that
    # counting them reads one number: (kind mask, hexes) per counter, in their index order
    counters: list[tuple[int, tuple[bool, ...]]] = field(default_factory=list)
    tile_counts: bool = False  # an expression reads the per-kind tile counts (rb_tcount): occupy keeps them
    tile_values: bool = False  # an expression reads the values of tiles on the board (rb_valsum): occupy keeps them
    tile_sets: int = 0  # the tile kinds (a mask) whose hexes per seat an expression reads (tbits): occupy keeps them

    # ----- public --------------------------------------------------------------------------------
    def function(self, node: A.Expr, where: str) -> str:
        """The name of a new C function computing `node`."""
        try:
            self.bound(node)
            return self._function(node)
        except RecursionError:
            raise Unsupported(f"{where}: an expression nested too deep") from None
        except Unsupported as e:
            msg = str(e)
            raise Unsupported(msg if msg.startswith(where) else f"{where}: {msg}") from None

    # ----- types and bounds ----------------------------------------------------------------------
    def type_of(self, node: A.Expr) -> str:
        """The checked type of an expression (the checker has accepted it)."""
        match node:
            case A.Num():
                return "int"
            case A.Name(id=name):
                return VARIABLES[name][0] if name in VARIABLES else "int"
            case A.Landmark():
                return "landmark"
            case A.Not():
                return "bool"
            case A.BinOp(op=op):
                return "int" if op in _ARITH else "bool"
            case A.Call(fn=fn):
                if fn in self.t.attributes:
                    return "int"
                if fn in SIGNATURES:
                    return SIGNATURES[fn].result
        raise Unsupported(f"an expression of an unknown kind ({type(node).__name__})")

    def bound(self, node: A.Expr) -> int:
        """An upper bound of the absolute value an expression can take; Unsupported when it or any part of it
        may pass BOUND (C's integers are 64 bits; Python's do not overflow)."""
        b = self._bound(node)
        if b > BOUND:
            raise Unsupported(f"arithmetic that may pass {BOUND:,} (Python's integers do not overflow)")
        return b

    def _bound(self, node: A.Expr) -> int:
        """The bound of one node, from its parts' bounds."""
        n = max(self.t.n, 1)
        match node:
            case A.Num(value=v):
                return abs(int(v))
            case A.Name(id=name):
                if name == "influence" or name in self.t.attributes:
                    return n * self.max_value
                return n
            case A.Landmark() | A.Not():
                return max(len(self.t.landmark_hex), 1)
            case A.BinOp(op=op, left=a, right=b):
                if op in ("+", "-"):
                    return self.bound(a) + self.bound(b)
                if op == "*":
                    return self.bound(a) * self.bound(b)
                self.bound(a), self.bound(b)
                return 1
            case A.PlayerEntry(value=v):
                return abs(int(v))
            case A.Call(fn=fn, args=args):
                # a player-count table's value is one of its entries' numbers
                most = 0
                for x in args:
                    if not isinstance(x, A.Name) or x.id in VARIABLES:
                        got = self.bound(x)
                        most = max(most, got) if isinstance(x, A.PlayerEntry) else most
                if fn in self.t.attributes:
                    return n * self.max_value
                return max(n, most)
        raise Unsupported(f"an expression of an unknown kind ({type(node).__name__})")

    # ----- generation ----------------------------------------------------------------------------
    def _name(self, prefix: str) -> str:
        """A fresh identifier of the generator's own: prefix and a counter."""
        self._n += 1
        return f"{prefix}{self._n}"

    def _function(self, node: A.Expr) -> str:
        """Emit `node` as a C function of (s, me, placed, inf) and return its name."""
        name = self._name("x")
        stmts, expr, kind = self.gen(node)
        if kind != "int":
            raise Unsupported("an expression whose value is a collection")
        body = "".join(f"    {s}\n" for s in stmts)
        self.functions.append(f"static i64 {name}(const S *s, int me, int placed, i64 inf) {{\n"
                              f"    (void)s; (void)me; (void)placed; (void)inf;\n{body}    return {expr};\n}}\n")
        return name

    def const(self, key: tuple, ctype: str, values: list[int]) -> str:
        """A static constant table, shared by equal uses."""
        name = self._const_of.get(key)
        if name is None:
            name = self._name("K")
            self._const_of[key] = name
            init = c_ints(values, words=ctype == "u64")
            self.consts.append(f"static const {ctype} {name}[{c_int(max(len(values), 1))}] = {init};")
        return name

    def hexmask(self, mask: list[bool] | tuple[bool, ...]) -> str:
        """A constant bitset of the hexes whose entry is true."""
        return self.const(("hexes", tuple(mask)), "u64", bitset(mask, self.words))

    def tile_counter(self, kinds: int, hexes: list[bool] | tuple[bool, ...]) -> int | None:
        """The index of the counter of a seat's tiles of the kinds (a bit mask) on the hexes, shared by equal
        uses; None past MAX_COUNTERS, or on a board of 2^16 hexes or more (a counter is a 16-bit lane of a u64:
        cgen.py HCADD)."""
        key = (kinds, tuple(bool(x) for x in hexes))
        if key in self.counters:
            return self.counters.index(key)
        if len(self.counters) == MAX_COUNTERS or self.t.n >= 1 << 16:
            return None
        self.counters.append(key)
        return len(self.counters) - 1

    def kindmask(self, args: tuple[A.Expr, ...]) -> int:
        """The tile kinds named by selector arguments (none: every kind), as a bit mask."""
        m = 0
        for k in selected_kinds(self.t, args):
            m |= 1 << k
        return m

    def gen(self, node: A.Expr) -> tuple[list[str], str, str]:  # noqa: C901 - a case per node
        """(statements, C expression, kind) with kind 'int', 'hexes' (a u64[W] name) or 'groups' (a name
        whose count is `n` + name)."""
        t = self.t
        match node:
            case A.Num(value=v):
                return [], f"((i64){c_int(int(v))})", "int"
            case A.Name(id="me"):
                return [], "((i64)me)", "int"
            case A.Name(id="placed"):
                return [], "((i64)placed)", "int"
            case A.Name(id="always"):
                return [], "((i64)1)", "int"
            case A.Name(id="nobody"):
                return [], "((i64)-1)", "int"
            case A.Name(id=name) if name == "influence" or name in t.attributes:
                return [], "inf", "int"
            case A.Landmark(kind=kind, name=lname, tag=tag):
                lm = t.find_landmark(kind, lname, tag)
                return [], f"((i64){c_int(-1 if lm is None else int(lm))})", "int"
            case A.Not(operand=o):
                s, e = self.scalar(o)
                return s, f"((i64)!({e}))", "int"
            case A.BinOp(op=op, left=left, right=right):
                return self.binop(op, left, right)
            case A.Call(fn=fn, args=args):
                if fn in t.attributes:
                    s, e = self.hexes(args[0])
                    self.tile_values = True
                    return s, f"rb_valsum(s, {e})", "int"
                entry = FUNCTIONS[fn]
                made = entry.c(self, args)
                if made is None:
                    raise Unsupported(f"the function `{fn}`")
                if entry.c_helpers and entry.c_helpers not in self.consts:  # once, before the functions
                    self.consts.append(entry.c_helpers)
                return made
        raise Unsupported(f"an expression of an unknown kind ({type(node).__name__})")

    def scalar(self, node: A.Expr) -> tuple[list[str], str]:
        """A node whose value is an int (a number, truth, player, hex, landmark or count)."""
        s, e, kind = self.gen(node)
        if kind != "int":
            raise Unsupported("a collection where a number is read")
        return s, e

    def hexes(self, node: A.Expr) -> tuple[list[str], str]:
        """A node whose value is a set of hexes (a bitset's name)."""
        s, e, kind = self.gen(node)
        if kind != "hexes":
            raise Unsupported("hexes expected")
        return s, e

    def groups(self, node: A.Expr) -> tuple[list[str], str]:
        """A node whose value is a collection of groups (the name of its sizes)."""
        s, e, kind = self.gen(node)
        if kind != "groups":
            raise Unsupported("groups expected")
        return s, e

    def binop(self, op: str, left: A.Expr, right: A.Expr) -> tuple[list[str], str, str]:
        """Arithmetic, a comparison, or `and`/`or` with Python's short circuit."""
        if op in ("==", "!=") and (self.type_of(left) not in _INTLIKE or self.type_of(right) not in _INTLIKE
                                   or {self.type_of(left), self.type_of(right)} & {"landmarks", "areas"}):
            raise Unsupported(f"`{op}` between collections (Python compares the lists element by element)")
        sl, el = self.scalar(left)
        sr, er = self.scalar(right)
        if op in _ARITH:
            return sl + sr, f"({el} {_ARITH[op]} {er})", "int"
        if op in _CMP:
            return sl + sr, f"((i64)({el} {_CMP[op]} {er}))", "int"
        if op in ("and", "or"):
            if not sr:  # no statements on the right: C's own short circuit
                return sl, f"((i64)(({el}) {'&&' if op == 'and' else '||'} ({er})))", "int"
            v = self._name("v")
            test = v if op == "and" else f"!{v}"
            inner = "".join(f" {x}" for x in sr)
            return sl + [f"i64 {v} = ({el}) != 0;", f"if ({test}) {{{inner} {v} = ({er}) != 0; }}"], v, "int"
        raise Unsupported(f"the operator `{op}`")

    def tiles_read(self, mask: int) -> int:
        """The mask of tile kinds an expression reads a seat's hexes of (rb_tiles, rb_group, rb_groups), noted so
        occupy keeps their bit sets (tile_sets)."""
        self.tile_sets |= mask
        return mask

    def _group_mask(self) -> int:
        """The kinds that form groups, as a bit mask."""
        m = 0
        for k in self.group_kinds:
            m |= 1 << k
        return m

    # ----- landmarks and areas (counted) -----------------------------------------------------------
    def _landmarks_of(self, kind_arg: A.Expr) -> tuple[str, int]:
        """The landmarks of a kind, as a constant table and its length."""
        assert isinstance(kind_arg, A.Name)
        lms = [i for i, k in enumerate(self.t.landmark_kind) if k == kind_arg.id]
        return self.const(("lms", tuple(lms)), "i32", lms), len(lms)

    # ----- comparisons across players: the inner expression as its own function of `me` -------------
    def _per_player(self, helper: str, node: A.Expr, with_me: bool) -> tuple[list[str], str, str]:
        """A helper reading the inner expression for each player, bound as `me`."""
        inner = self._function(node)
        me = "me, " if with_me else ""
        return [], f"{helper}(s, {me}placed, inf, {inner})", "int"
