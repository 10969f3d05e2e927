"""Statements that can never act, or always act, on this board with this tile mix: warnings, each at its
statement, naming the board or tile fact that makes it so (docs/language.md, "What check warns of").

- a payout for more places than an area of its size can rank (or than players sit at the table);
- a payout for an area size the board has no area of;
- more tiles of a kind than hexes they may go on;
- a mission card that no player can meet, or that every player meets whatever happens (a public card: that
  every player meets before placing anything), per player count: the tile mix is the one after that
  count's returns.

A card's condition is read by bounds: every built-in function declares the range of its value over a game
(`bound` in lang/functions.py), computed here from the board and the tiles; a function without one leaves
the card unknown, and an unknown card is never warned of. The bounds are upper bounds that ignore the other
players (any player can have at most all of a colour's tiles), so a card they call impossible is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.check.types import ExprError, Scope, type_of
from rebirth_dsl.errors import Diagnostic, Fix
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import ME, NOBODY, SIGNATURES, Bound
from rebirth_dsl.lang.limits import MAX_PLAYERS, MAX_TILES_PER_COLOUR

if TYPE_CHECKING:
    from rebirth_dsl.check.symbols import Board

UNKNOWN = Bound(None, None, None)
# the expression nodes judged in one check, over every card and player count: a real deck has a few hundred
# (Scotland's, 17 cards of up to 15 nodes at 3 counts); a file at the limits could ask for millions
MAX_JUDGED_NODES = 50_000


def check_reach(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Warn of statements that can never act, or always act: payout places no area can fill, and (against
    a full board) payout sizes no area has, tiles beyond the hexes they may go on, and mission cards no
    player can meet or every player meets."""
    out = _payout_places(rules)
    total = sum(c for s in rules.statements if isinstance(s, A.TileSpec) for _, c in s.counts)
    if board is not None and t.require_landmarks and total <= MAX_TILES_PER_COLOUR:  # beyond: check_limits refuses
        mix = _Mix(rules, t)
        out += _payout_sizes(rules, t) + _tiles_beyond_hexes(mix) + _missions(rules, t, mix)
    return out


def _warn(span: A.Span, msg: str, code: str, hint: str | None = None, end: A.Span | None = None) -> Diagnostic:
    last = end or span
    return Diagnostic(msg, file=span.file, line=span.line, col=span.col, end_line=last.end_line,
                      end_col=last.end_col, severity="warning", code=code, hint=hint)


def _players(rules: A.Rules) -> list[int]:
    """The player counts the ruleset allows (2 to 4 when it does not say), as the compiler reads them."""
    ranges = [s for s in rules.statements if isinstance(s, A.PlayersRange)]
    lo, hi = (ranges[-1].low, ranges[-1].high) if ranges else (2, 4)
    return list(range(max(lo, 1), max(lo, min(hi, MAX_PLAYERS)) + 1))


def _counts(ns: Sequence[int]) -> str:
    """Player counts in words: `4 players`, `3 or 4 players`, `2, 3 or 4 players`."""
    if len(ns) == 1:
        return f"{ns[0]} player{'s' if ns[0] != 1 else ''}"
    return f"{', '.join(map(str, ns[:-1]))} or {ns[-1]} players"


# ----- payouts ---------------------------------------------------------------------------------------
def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _payout_places(rules: A.Rules) -> list[Diagnostic]:
    """A payout's amounts past the places an area of its size can rank: one player per hex at most (each
    ranked player has a tile in it), and no more than sit at the table."""
    out: list[Diagnostic] = []
    counts = _players(rules)
    for s in rules.statements:
        if not isinstance(s, A.AreaBlock):
            continue
        pays = [it for it in s.items if isinstance(it, A.Pay)]
        own = {(p.size, p.players) for p in pays}
        for p in pays:
            # a payout without `players N` applies at every count that has no payout of its own for the size
            at = [p.players] if p.players is not None else [n for n in counts if (p.size, n) not in own]
            if not at or len(p.amounts) <= 1:
                continue
            places = max(min(p.size, n) for n in at)
            if len(p.amounts) <= places:
                continue
            if places == p.size:
                why = (f"a {p.size}-hex area holds the tiles of at most {p.size} player{'s' if p.size != 1 else ''}, "
                       "and a player without a tile in it is not ranked")
            else:
                why = f"at most {max(at)} players play {'here' if p.players is None else 'with this payout'}"
            first, kept, last = p.amounts[places], p.amounts[places - 1].span, p.amounts[-1].span
            d = _warn(first.span, f"the {_ordinal(places + 1)} place of `pay size {p.size}` is never paid: {why}",
                      "pay-place-never-paid", "remove the amounts past the last place that can be ranked",
                      end=last)
            if kept.end_line and last.end_line:  # the edit: from the end of the last paid amount to the last
                d.fixes = (Fix("remove the amounts never paid", A.Span(kept.file, kept.end_line, kept.end_col,
                                                                        last.end_line, last.end_col), ""),)
            out.append(d)
    return out


def _payout_sizes(rules: A.Rules, t: Tables) -> list[Diagnostic]:
    """A payout for an area size the board has no area of: it is never paid on this board."""
    out: list[Diagnostic] = []
    sizes: dict[str, set[int]] = {}
    for kind, hexes in zip(t.area_kind, t.area_hexes, strict=True):
        sizes.setdefault(kind, set()).add(len(hexes))
    board = t.board_file or "the board"
    for s in rules.statements:
        if not isinstance(s, A.AreaBlock) or s.kind not in t.hex_kinds:
            continue  # an undeclared kind is check_names' to say
        have = sorted(sizes.get(s.kind, ()))
        for p in s.items:
            if isinstance(p, A.Pay) and p.size not in have:
                fact = (f"its {s.kind} areas have {_or(have)} hexes" if have else f"it has no {s.kind} areas")
                out.append(_warn(p.span, f"`pay size {p.size}` is never paid: {board} has no {p.size}-hex {s.kind} "
                                 f"area ({fact})", "pay-size-not-on-board"))
    return out


def _or(xs: Sequence[int]) -> str:
    return str(xs[0]) if len(xs) == 1 else f"{', '.join(map(str, xs[:-1]))} or {xs[-1]}"


# ----- the tile mix on the board ---------------------------------------------------------------------
class _Mix:
    """A colour's tiles at each player count (after that count's returns), and the hexes each kind may go
    on (its place and fallback rules, less the hexes neutral tiles take at that count)."""

    def __init__(self, rules: A.Rules, t: Tables) -> None:
        self.t = t
        self.counts = _players(rules)
        st = rules.statements
        self.values: dict[str, dict[int, int]] = {}  # kind -> value -> tiles of a colour
        for s in st:
            if isinstance(s, A.TileSpec):
                for v, c in s.counts:
                    key = v if s.attribute else 0
                    self.values.setdefault(s.kind, {})[key] = self.values.setdefault(s.kind, {}).get(key, 0) + c
        self.spec = {s.kind: s for s in st if isinstance(s, A.TileSpec)}  # the first line of each kind
        self.returns: dict[int, A.Returns] = {s.players: s for s in st if isinstance(s, A.Returns)}
        aside = [s for s in st if isinstance(s, A.SetAside)]
        self.aside = aside[-1].count if aside else 0
        on: dict[str, set[str]] = {}
        for s in st:
            if isinstance(s, A.PlaceRule):
                on.setdefault(s.tile, set()).update(s.on)
        self.on = on
        self.neutral = {s.players: s for s in st if isinstance(s, A.Neutral)}
        self.takeable = {h for kinds in on.values() for h in kinds}
        self.grouped = {k for s in st if isinstance(s, A.GroupDecl) for k in s.kinds}
        self._where: dict[tuple[str, int], frozenset[int]] = {}
        self.sets: dict[tuple[object, ...], frozenset[int]] = {}  # the hexes of a name, next to a target

    def left(self, n: int, kind: str) -> dict[int, int]:
        """A colour's tiles of a kind with n players, by value, after the returns."""
        out = dict(self.values.get(kind, {}))
        r = self.returns.get(n)
        for tc in r.tiles if r else ():
            if tc.kind == kind:
                key = tc.value if tc.value is not None else 0
                out[key] = max(out.get(key, 0) - tc.count, 0)
        return out

    def tiles(self, n: int, kind: str) -> int:
        return sum(self.left(n, kind).values())

    def where(self, n: int, kind: str) -> frozenset[int]:
        """The hexes a tile of a kind may go on with n players."""
        key = (kind, n)
        if key not in self._where:
            t, hexes = self.t, self.on.get(kind, set())
            neutral = self.neutral.get(n)
            taken = neutral.tag if neutral else None
            self._where[key] = frozenset(h for h in range(t.n) if t.hex_kind[h] in hexes
                                         and (taken is None or taken not in t.hex_tags[h]))
        return self._where[key]

    def after_returns(self, n: int) -> str:
        """How a count of a colour's tiles ends: after that player count's returns, if it has any."""
        return " after the returns" if n in self.returns else ""


def _tiles_beyond_hexes(mix: _Mix) -> list[Diagnostic]:
    """More tiles of a kind dealt than hexes that kind may go on: the rest can never be placed."""
    out: list[Diagnostic] = []
    t = mix.t
    takeable = sum(1 for h in range(t.n) if t.hex_kind[h] in mix.takeable)
    fits = set()
    for n in mix.counts:  # when every kind together does not fit, check_supply says so, once
        neutral = mix.neutral.get(n)
        if n * (sum(mix.tiles(n, k) for k in mix.spec) - mix.aside) <= takeable - (neutral.count if neutral else 0):
            fits.add(n)
    for kind, spec in mix.spec.items():
        if kind not in mix.on:
            continue  # no placement rule at all: check_placement refuses that
        over: list[tuple[int, int, int]] = []  # (players, tiles dealt, hexes)
        for n in sorted(fits):
            dealt, hexes = n * mix.tiles(n, kind), len(mix.where(n, kind))
            if dealt > hexes:
                over.append((n, dealt, hexes))
        if over:
            n, dealt, hexes = over[-1]
            out.append(_warn(spec.span, f"more {kind} tiles than hexes they may go on with {_counts([o[0] for o in over])}: "
                             f"with {n} players {dealt} are dealt ({dealt // n} a colour), but {t.board_file or 'the board'} "
                             f"has {hexes} hexes a {kind} tile may go on, so up to {dealt - hexes} are never placed",
                             "tiles-beyond-hexes", "give fewer tiles of the kind, return some at this player count, or "
                             "let them go on more hexes"))
    return out


# ----- mission cards ---------------------------------------------------------------------------------
class _Facts:
    """The board and tile facts of one player count, as the functions' ranges read them."""

    def __init__(self, mix: _Mix, n: int) -> None:
        self.mix, self.n, self.t = mix, n, mix.t
        self._components: dict[frozenset[int], int] = {}
        self._tiles: dict[tuple[str, ...], Bound] = {}

    def players(self) -> int:
        """The player count these facts are for."""
        return self.n

    def _kinds(self, names: Iterable[A.Expr]) -> list[str]:
        named = [a.id for a in names if isinstance(a, A.Name)]
        kinds = [k for nm in named for k in self.t.classes.get(nm, (nm,))] if named else list(self.mix.spec)
        return list(dict.fromkeys(k for k in kinds if k in self.mix.spec))

    def _why_tiles(self, kinds: list[str], count: int) -> str:
        what = " or ".join(kinds) if kinds else "no"
        return f"with {self.n} players a colour has {count} {what} tiles{self.mix.after_returns(self.n)}"

    def tiles(self, kinds: tuple[A.Expr, ...]) -> Bound:
        ks = self._kinds(kinds)
        if tuple(ks) not in self._tiles:
            self._tiles[tuple(ks)] = self._tiles_of(ks)
        return self._tiles[tuple(ks)]

    def _tiles_of(self, ks: list[str]) -> Bound:
        if any(k not in self.mix.on for k in ks):
            return Bound(0, None, 0)  # a kind with no placement rule: check_placement refuses that, once
        count = sum(self.mix.tiles(self.n, k) for k in ks)
        where = frozenset().union(*(self.mix.where(self.n, k) for k in ks)) if ks else frozenset()
        b = Bound(0, count, 0, self._why_tiles(ks, count), where)
        return b.capped(len(where), f"{self.t.board_file or 'the board'} has {len(where)} hexes those tiles can go on")

    def hexes(self, sel: A.Expr) -> frozenset[int]:
        if not isinstance(sel, A.Name):
            return frozenset(range(self.t.n))
        key = ("hexes", sel.id)
        if key not in self.mix.sets:  # each name's hexes found once, for every card and player count
            self.mix.sets[key] = frozenset(h for h, m in enumerate(self.t.hex_matches(sel.id)) if m)
        return self.mix.sets[key]

    def next_to(self, target: A.Expr) -> frozenset[int]:
        key = ("near", target.id if isinstance(target, A.Name) else
               (target.kind, target.name, target.tag) if isinstance(target, A.Landmark) else "")
        if key not in self.mix.sets:
            mask = self.t.near_mask(target)
            self.mix.sets[key] = (frozenset(range(self.t.n)) if mask is None
                                  else frozenset(h for h, m in enumerate(mask) if m))
        return self.mix.sets[key]

    def ring(self, where: frozenset[int]) -> frozenset[int]:
        return frozenset(x for h in where for x in self.t.neighbours[h])

    def landmarks_next_to(self, kind: A.Expr, where: frozenset[int] | None) -> Bound:
        if not isinstance(kind, A.Name):
            return Bound(0, None, 0)
        t = self.t
        lms = [i for i, k in enumerate(t.landmark_kind) if k == kind.id]
        near = [i for i in lms if where is None or where.intersection(t.neighbours[t.landmark_hex[i]])]
        board = t.board_file or "the board"
        why = (f"{board} has {len(lms)} {kind.id} landmarks" if len(near) == len(lms) else
               f"{board} has {len(near)} {kind.id} landmarks next to a hex a tile can go on")
        return Bound(0, len(near), 0, why)

    def _component(self, where: frozenset[int]) -> int:
        """The most hexes of a set that are connected through each other."""
        if where not in self._components:
            best, seen = 0, set()
            for h in where:
                if h in seen:
                    continue
                size, todo = 0, [h]
                seen.add(h)
                while todo:
                    x = todo.pop()
                    size += 1
                    for m in self.t.neighbours[x]:
                        if m in where and m not in seen:
                            seen.add(m)
                            todo.append(m)
                best = max(best, size)
            self._components[where] = best
        return self._components[where]

    def groups(self, kinds: tuple[A.Expr, ...]) -> Bound:
        ks = [k for k in self._kinds(kinds) if k in self.mix.grouped]
        if not ks:
            return Bound(0, None, 0)  # groups of kinds that form none: check_meaning says so, not a card
        count = sum(self.mix.tiles(self.n, k) for k in ks)
        biggest, why = 0, f"{', '.join(ks) or 'those'} tiles form no groups"
        for k in ks:  # a group is of one kind: at most that kind's tiles, on hexes joined to each other
            tiles, room = self.mix.tiles(self.n, k), self._component(self.mix.where(self.n, k))
            size = min(tiles, room)
            if size > biggest or not biggest:
                biggest = size
                why = (self._why_tiles([k], tiles) if tiles <= room else
                       f"the most hexes a {k} tile may go on that join each other is {room}")
        return Bound(0, count, 0, self._why_tiles(ks, count) if ks else why, None, biggest, why)

    def areas_meeting(self, where: frozenset[int] | None) -> Bound:
        t = self.t
        areas = {t.area_of[h] for h in (where if where is not None else range(t.n)) if t.area_of[h] >= 0}
        return Bound(0, len(areas), 0, f"those hexes lie in {len(areas)} areas of {t.board_file or 'the board'}")

    def winnable(self) -> Bound:
        return self.areas_meeting(self.tiles(()).where)


def _bool(b: Bound) -> tuple[int, int]:
    """A truth value's range: (1, 1) surely true, (0, 0) surely false, (0, 1) not known."""
    lo = 1 if b.lo == 1 else 0
    hi = 0 if b.hi == 0 else 1
    return lo, hi


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def bound(e: A.Expr, f: _Facts) -> Bound:
    """The range of an expression's value for a player over a game, from its functions' ranges."""
    match e:
        case A.Num(value=v):
            return Bound(v, v, v)
        case A.Name(id="me"):
            return Bound(None, None, ME)
        case A.Name(id="nobody"):
            return Bound(None, None, NOBODY)
        case A.Name(id="always"):
            return Bound(1, 1, 1)
        case A.Not(operand=o):
            b = bound(o, f)
            lo, hi = _bool(b)
            return Bound(1 - hi, 1 - lo, None if b.start is None else 1 - b.start)
        case A.BinOp(op="and" | "or" as op, left=left, right=right):
            a, b = bound(left, f), bound(right, f)
            (alo, ahi), (blo, bhi) = _bool(a), _bool(b)
            if op == "and":
                start = 0 if 0 in (a.start, b.start) else (1 if a.start == b.start == 1 else None)
                return Bound(min(alo, blo), min(ahi, bhi), start)
            start = 1 if 1 in (a.start, b.start) else (0 if a.start == b.start == 0 else None)
            return Bound(max(alo, blo), max(ahi, bhi), start)
        case A.BinOp(op="+" | "-" | "*" as op, left=left, right=right):
            a, b = bound(left, f), bound(right, f)
            start = None if a.start is None or b.start is None else (
                a.start + b.start if op == "+" else a.start - b.start if op == "-" else a.start * b.start)
            if op == "+":
                return Bound(_add(a.lo, b.lo), _add(a.hi, b.hi), start, a.why or b.why)
            if op == "-":
                return Bound(_add(a.lo, None if b.hi is None else -b.hi), _add(a.hi, None if b.lo is None else -b.lo),
                             start, a.why)
            ends = [a.lo, a.hi, b.lo, b.hi]
            if any(x is None for x in ends):
                return Bound(None, None, start)
            corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]  # type: ignore[operator]
            return Bound(min(corners), max(corners), start)
        case A.BinOp(op=op, left=left, right=right):
            return _compare(op, bound(left, f), bound(right, f))
        case A.Call(fn=fn, args=args) if fn in f.t.attributes and len(args) == 1:
            return _attribute_sum(fn, bound(args[0], f), f)
        case A.Call(fn=fn, args=args) if fn in SIGNATURES:
            rng = SIGNATURES[fn].bound
            if rng is None:
                return UNKNOWN  # a function that declares no range: nothing is known of what calls it
            return rng(f, args, tuple(bound(a, f) for a in args))
    return UNKNOWN


def _compare(op: str, a: Bound, b: Bound) -> Bound:
    """A comparison's truth range, from the ranges of its sides (players: only at the start)."""
    start = None
    if a.start is not None and b.start is not None:
        start = int({"==": a.start == b.start, "!=": a.start != b.start, ">=": a.start >= b.start,
                     ">": a.start > b.start, "<=": a.start <= b.start, "<": a.start < b.start}[op])
    lo, hi = 0, 1
    known = None not in (a.lo, a.hi, b.lo, b.hi)
    alo, ahi, blo, bhi = a.lo, a.hi, b.lo, b.hi
    if op in (">=", ">") and ahi is not None and blo is not None:
        hi = int(ahi > blo if op == ">" else ahi >= blo)
        if alo is not None and bhi is not None:
            lo = int(alo > bhi if op == ">" else alo >= bhi)
    elif op in ("<=", "<") and alo is not None and bhi is not None:
        hi = int(alo < bhi if op == "<" else alo <= bhi)
        if ahi is not None and blo is not None:
            lo = int(ahi < blo if op == "<" else ahi <= blo)
    elif op in ("==", "!=") and known:
        assert alo is not None and ahi is not None and blo is not None and bhi is not None
        apart = ahi < blo or bhi < alo
        same = alo == ahi == blo == bhi
        lo, hi = (int(same), int(not apart)) if op == "==" else (int(apart), int(not same))
    return Bound(lo, hi, start)


def _attribute_sum(attribute: str, hexes: Bound, f: _Facts) -> Bound:
    """`influence(HEXES)`: at most the highest values of a colour's tiles that carry the attribute, as many
    as the hexes can hold."""
    values = sorted((v for k in f.mix.spec if f.t.attribute_of.get(k) == attribute
                     for v, c in f.mix.left(f.n, k).items() for _ in range(c)), reverse=True)
    take = values if hexes.hi is None else values[:hexes.hi]
    start = 0 if hexes.start == 0 else None
    why = f"with {f.n} players the {attribute} of a colour's tiles adds up to {sum(values)}{f.mix.after_returns(f.n)}"
    if hexes.hi is not None and hexes.hi < len(values):
        why = f"{hexes.why}, whose {attribute} adds up to at most {sum(take)}"
    return Bound(0, sum(take), start, why)


def _text(rules: A.Rules, sp: A.Span) -> str:
    """The source text of an expression, on one line."""
    lines = rules.sources.get(sp.file, "").split("\n")[sp.line - 1:(sp.end_line or sp.line)]
    if not lines or not sp.end_col:
        return ""
    if len(lines) == 1:
        return lines[0][sp.col - 1:sp.end_col - 1]
    return " ".join([lines[0][sp.col - 1:]] + [x.strip() for x in lines[1:-1]] + [lines[-1][:sp.end_col - 1]])


def _why_never(e: A.Expr, f: _Facts, rules: A.Rules) -> str:
    """Why a condition is never true: the part that cannot hold, and the fact that bounds it."""
    match e:
        case A.BinOp(op="and", left=left, right=right):
            return _why_never(left if _bool(bound(left, f))[1] == 0 else right, f, rules)
        case A.BinOp(op="or", left=left, right=right):
            return f"{_why_never(left, f, rules)}, and {_why_never(right, f, rules)}"
        case A.BinOp(op=">=" | ">" | "==", left=left, right=right):
            side = bound(left, f)
            if side.hi is not None:
                return f"`{_text(rules, left.span)}` is at most {side.hi} ({side.why})"
        case A.BinOp(op="<=" | "<", left=left, right=right):
            side = bound(left, f)
            if side.lo is not None:
                return f"`{_text(rules, left.span)}` is at least {side.lo}"
    return f"`{_text(rules, e.span)}` cannot hold on this board"


def _nodes(e: A.Expr) -> int:
    """The nodes of an expression, counted without recursion."""
    n, todo = 0, [e]
    while todo:
        x = todo.pop()
        n += 1
        match x:
            case A.BinOp():
                todo += [x.left, x.right]
            case A.Not():
                todo.append(x.operand)
            case A.Call():
                todo += list(x.args)
    return n


def _ill_typed(e: A.Expr, t: Tables) -> bool:
    """Whether an expression has a name, type or arity error (or is too deep to type)."""
    errors: list[ExprError] = []
    try:
        type_of(e, t, Scope(), errors)
    except RecursionError:
        return True
    return bool(errors)


def _missions(rules: A.Rules, t: Tables, mix: _Mix) -> list[Diagnostic]:
    """Cards no player can meet, or that every player meets, at each player count."""
    out: list[Diagnostic] = []
    facts = {n: _Facts(mix, n) for n in mix.counts}
    cards = [c for s in rules.statements if isinstance(s, A.DeckBlock) for c in s.cards]
    if sum(_nodes(c.condition) for c in cards) * len(facts) > MAX_JUDGED_NODES:
        return out  # a deck too big to judge: its cards stay unknown
    public = {s.deck for s in rules.statements if isinstance(s, A.PublicDecl)}
    laid = {s.deck for s in rules.statements if isinstance(s, A.PublicSetup)}
    for deck in (s for s in rules.statements if isinstance(s, A.DeckBlock)):
        checked_in_play = deck.name in public and deck.name in laid
        for card in deck.cards:
            cond = card.condition
            if isinstance(cond, A.Name) and cond.id == "always":
                continue  # a gift card: met by everyone, as written
            if _ill_typed(cond, t):
                continue  # an unknown name or a wrong type is the problem to mend: check_expressions says it
            bounds = {n: bound(cond, f) for n, f in facts.items()}
            never = [n for n, b in bounds.items() if _bool(b)[1] == 0]
            always = [n for n, b in bounds.items() if _bool(b)[0] == 1]
            text = _text(rules, cond.span)
            if never:
                reason = _why_never(cond, facts[never[0]], rules)  # the fewest players: the board fact, often
                out.append(_warn(cond.span, f"card \"{card.name}\" can never be met with {_counts(never)}: {reason}",
                                 "mission-never-met", "lower its threshold, or give the players more to reach it "
                                 "with (tiles, landmarks, areas)", end=cond.span))
            if always:
                out.append(_warn(cond.span, f"card \"{card.name}\" is met by every player whatever happens with "
                                 f"{_counts(always)}: `{text}` always holds", "mission-always-met",
                                 "write `always` if that is meant, or raise its threshold", end=cond.span))
            elif checked_in_play:
                start = [n for n, b in bounds.items() if b.start == 1]
                if start:
                    out.append(_warn(cond.span, f"card \"{card.name}\" is met by every player before anything is "
                                     f"placed (with {_counts(start)}): the face-up cards are checked after every "
                                     f"placement, so each player claims it at the first check", "mission-met-at-start",
                                     "ask for something a player must build first", end=cond.span))
    return out
