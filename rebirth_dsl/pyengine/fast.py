"""A specialised engine per (ruleset, board): Python source generated once, compiled once, run many times.

The generated functions work on the same `Game` state as the reference engine, without validation,
events or text: `place` applies a placement with every reaction of the ruleset inlined in order, and
`run_random` plays uniformly random moves to the end. Safety: no text from a rules or board file ever
becomes code. Identifiers in the source are the generator's own; every value taken from the ruleset
or board (numbers, kind names, category names, tables) is emitted with `repr` of an int, str or tuple
checked to be one, and expressions the generator does not recognise are called as compiled closures.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from itertools import count
from math import floor
from typing import Any, Protocol

from rebirth_dsl.accel.public import PUBLIC_START, fresh_start, public_missions, public_source
from rebirth_dsl.compile.emit import Emitter, Locals, assigned, literal, run_source
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import Ability, Ruleset
from rebirth_dsl.rules import area, touch
from rebirth_dsl.rules.kind import Placement, Where
from rebirth_dsl.rules.table import kind_of
from rebirth_dsl.rules.turn import PYTHON_SEATS, draw, fixed_turns, python_end_of_turn
from rebirth_dsl.runtime.abilities import quick_uses, use
from rebirth_dsl.runtime.game import Game, static
from rebirth_dsl.runtime.setup import seat_rng
from rebirth_dsl.runtime.state import Answer, AutoChoose


def _kind_test(var: str, kinds: frozenset[int] | None) -> str:
    if kinds is None:
        return "True"
    return " or ".join(f"{var} == {literal(int(k))}" for k in sorted(kinds)) or "False"


class MoveSink(Protocol):
    """What run_random hands each move to, when asked to: a list, or a tally (play.tally.Tally)."""

    def append(self, move: tuple[int, int, int, int], /) -> None:
        """One move: (seat, tile kind, tile value, hex), hex -1 for a pass."""




@dataclass
class Compiled:
    """The generated source and the functions compiled from it."""

    source: str
    place: Callable[[Game, int, int, int, int], None]  # (g, p, tile kind, tile value, hex)
    run_random: Callable[[Game, list[random.Random], MoveSink | None], None]


def generate(rs: Ruleset) -> Compiled:
    """Generate and compile the specialised functions for one ruleset on one board."""
    t = rs.t
    env: dict[str, Any] = {"__builtins__": {"len": len, "range": range, "int": int, "sum": sum, "enumerate": enumerate, "zip": zip,
                                            "tuple": tuple}}
    e = Emitter(env)
    const, closure = e.const, e.ref  # closure: a compiled expression closure or a rule object, by reference

    const("NB", tuple(tuple(int(m) for m in nb) for nb in t.neighbours))
    const("HK", tuple(str(k) for k in t.hex_kind))
    const("AREA", tuple(int(a) for a in t.area_of))
    const("ASIZE", tuple(len(hs) for hs in t.area_hexes))
    const("LMADJ", tuple(tuple(int(x) for x in adj) for adj in static(rs).lm_adj))
    closure("Ctx", Ctx)
    closure("bool", bool)
    # the reference engine's own rule functions, called where the generated code does not inline a rule
    for name, fn in dict(DRAW=draw, SCORE_AREA=area.score, TOUCH=touch.touch, REACT=_react,
                         PAYOUTS=area.payouts, NEXTS={}, COUNT=count, FLOOR=floor, PUBLIC=public_missions, PUBFRESH=fresh_start,
                         TURNS=fixed_turns, USE=use).items():
        closure(name, fn)

    # per-rule adjacency tables (their values are kept too: the playout loop specialises on them)
    tables: dict[str, tuple[Any, ...]] = {"AREA": tuple(int(a) for a in t.area_of), "LMADJ": static(rs).lm_adj}
    # A tile of kind k only ever stands on a hex of a kind it may be placed on (placement.check_place refuses
    # any other; neutral tiles belong to nobody): the neighbours a group of k can join through, per hex.
    for kid in sorted(rs.group_kinds):
        ok = {*rs.primary.get(kid, ()), *rs.fallback.get(kid, ())}
        table = tuple(tuple(int(m) for m in nb if t.hex_kind[m] in ok) for nb in t.neighbours)
        tables[const(f"NBK{kid}", table)] = table
    top = _Body(rs, e, tables, frozenset(), None)  # the module level: only its names and tables are used
    for ri, r in enumerate(rs.reactions):  # each statement's own tables, from its rule module
        kind_of(r).python_tables(top, ri, r)
    closure("NOCHOICE", {})
    closure("ANSWER", _answer_per_seat)

    # The placement body, written once against local names bound by a prologue: emitted as `place()`
    # and again inline in the playout loop, where the prologue runs once per game instead of per move.
    prologue = [
        "owner = g.owner", "tkind = g.tkind", "tval = g.tval", "tiles_of = g.tiles_of", "free = g.free",
        "fp = g.free_pos", "parent = g.parent", "gsize = g.gsize", "area_free = g.area_free",
        "area_inf = g.area_inf", "lm_count = g.lm_count", "lm_owner = g.lm_owner", "scores = g.scores",
        "track = g.track", "touched_by = g.touched", "area_done = g.area_done", "held = g.held",
        "decks = g.decks", "n = g.n_players", "quiet = g.quiet",
    ]
    with e.scope(), e.block("def place(g, p, k, v, h):"):
        e.declare("g", "p", "k", "v", "h", *assigned(prologue))
        e.extend(prologue)
        e.extend(_place_body(rs, e, tables))

    # the random playout loop: legal hexes are the free lists of the placement rule's kinds, in order
    e.line()
    loop_start = len(e.lines)
    fixed = _fixed_turns(rs)
    free_var = {kk: f"FL{i}" for i, kk in enumerate(sorted(_placeable(rs)))}
    per_game: list[str] = []  # what the statements' placements read, bound once per game (python_loop_locals)
    for r in rs.reactions:
        per_game.extend(ln for ln in kind_of(r).python_loop_locals(top, r) if ln not in per_game)
    with e.scope(), e.block("def run_random(g, rngs, moves):"):
        e.declare("g", "rngs", "moves", *assigned(prologue), *free_var.values(), "rnd", "rec", "p", "k", "v", "h",
                  *assigned(per_game))
        e.extend(prologue)
        # the free lists live as long as the game (mutated in place, never replaced): bind each once
        for kk, var in free_var.items():
            e.line(f"{var} = free[{literal(kk)}]")
        e.extend(per_game)
        e.line("rnd = [r.random for r in rngs]  # int(random() * n): the draw RandomAgent makes (agents.pick)")
        e.line("rec = moves is not None")
        quick = quick_uses(rs, {r.kind for r in static(rs).ability_rules}) if static(rs).ability_rules else None
        if quick is not None:
            closure("QUICK", quick)
            e.declare("below")
            # a quiet game whose questions this playout answers (ANSWER): each seat's draw, for the abilities'
            # quick use (rules.touch.python_source)
            e.line("below = [r._randbelow for r in rngs] if quiet and g.auto_choose is None else None")
        with e.block("if g.auto_choose is None:"):
            e.line("g.auto_choose = ANSWER(rngs)")
        if fixed:  # every move's seat and tile are known before the first: one iterator gives them (fixed_turns)
            loop = "for p, (k, v) in TURNS(g, rnd):"
        else:
            e.declare("hand", "supply", "pending", *assigned(PYTHON_SEATS), "hp", "mi", "ti", "nh", "tile")
            e.line("hand = g.hand")
            e.line("supply = g.supply")
            e.line("pending = g.pending_draw")
            e.line("n = g.n_players")
            e.extend(PYTHON_SEATS)  # read by the end of each turn (python_end_of_turn)
            e.line("p = g.turn")
            e.line("hp = hand[p]  # the hand of the seat to play: after the first move, the next seat's is known not empty")
            with e.block("if not hp:"):
                e.line("return")
            loop = "for mi in COUNT(g.move_index):"
        with e.block(loop):
            if not fixed:
                # FLOOR(x) is int(x) for x >= 0 (a draw times a count): one C call where int() builds an argument tuple
                e.line("ti = FLOOR(rnd[p]() * nh) if (nh := len(hp)) > 1 else 0  # the hand's length read once")
                e.line("k, v = tile = hp[ti]")
            _moves(rs, e, tables, free_var)
            with e.block("if rec:"):
                e.line("moves.append((p, k, v, h))")
            if not fixed:
                e.extend(python_end_of_turn(fixed, e.locals))  # rules.turn.end_turn, inline (S-T1)
    # The loop reads module-level tables and helpers on every move: bound as keyword-only defaults they
    # are locals (LOAD_FAST) instead of globals; callers never pass them.
    used = e.names_read(loop_start, (e.bound() | set(env["__builtins__"])) - {"__builtins__"})
    if used:
        e.lines[loop_start] = f"def run_random(g, rngs, moves, *, {', '.join(f'{w}={w}' for w in used)}):"
    source = "\n".join(["# generated by rebirth_dsl.fast: specialised for one ruleset and board", *e.consts, "", *e.lines,
                        ""])
    # source built only from the generator's own text and checked literals
    run_source(source, f"<rebirth fast: {rs.name} on {t.board.name if t.board else '?'}>", env)
    return Compiled(source, env["place"], env["run_random"])


def _moves(rs: Ruleset, e: Emitter, tables: dict[str, tuple[Any, ...]], free_var: dict[str, str]) -> None:
    """One move of the playout loop: the tile (k, v) of seat p onto a random free hex h, or a pass (h = -1).

    Each branch knows the tile kind, and after the pick the free list (the hex kind) the hex came from:
    there the placement body is emitted specialised to both (see _place_body), ending the move's
    placement; a tile with no free hex passes."""
    free_hexes = static(rs).free
    passing = ["h = -1", "g.passed[p] += 1"]
    first = True
    for kid in range(len(rs.tile_kinds)):
        tiers = [tuple(kk for kk in kinds if kk in free_var)
                 for kinds in (rs.primary.get(kid, ()), rs.fallback.get(kid, ()))]
        tiers = [t_ for t_ in tiers if t_]
        if not tiers:
            continue  # the final else: no hex kind takes this tile
        # `KIND{kid}[k]` (a tuple of bools) rather than `k == {kid}`: a comparison followed by a jump as long
        # as a placement is never specialised by CPython 3.11 (an EXTENDED_ARG comes between), and the
        # generic comparison costs twice the quick one; a tuple read and a test of a bool are quick
        kind_is = e.const(f"KIND{kid}", tuple(j == kid for j in range(len(rs.tile_kinds))))
        with e.block(f"{'if' if first else 'elif'} {kind_is}[k]:"), ExitStack() as tiers_open:
            first = False
            for kinds in tiers:
                names = [free_var[kk] for kk in kinds]
                if len(names) > 1:  # the lengths before the last are read again by the pick
                    for j, nm in enumerate(names[:-1]):
                        e.line(f"len{j} = len({nm})")
                    e.line(f"tot = {' + '.join([*(f'len{j}' for j in range(len(names) - 1)), f'len({names[-1]})'])}")
                else:
                    e.line(f"tot = len({names[0]})")
                with e.block("if tot:"):
                    e.line("r = FLOOR(rnd[p]() * tot)")
                    # the placement specialised to each list; where it is the same for all of them (written for a
                    # list named `fl`), it is written once after the pick, which only chooses the list: shorter
                    # code, and the pick's test then jumps over a line instead of a placement
                    e.declare("r", "fl", *(f"len{j}" for j in range(len(names) - 1)), "tot")
                    shared = {tuple(_place_body(rs, e, tables, Where(kid, "fl", free_hexes[kk]))) for kk in kinds}
                    if len(names) > 1 and len(shared) == 1:
                        _emit_pick(e, [[f"fl = {nm}"] for nm in names])
                        e.extend(["h = fl[r]", *shared.pop()])
                    else:
                        bodies = [[f"h = {nm}[r]", *_place_body(rs, e, tables, Where(kid, nm, free_hexes[kk]))]
                                  for kk, nm in zip(kinds, names, strict=True)]
                        _emit_pick(e, bodies)
                e.line("else:")
                tiers_open.enter_context(e.block())
            e.extend(passing)  # no hex in any tier (S-P5)
    if first:  # no tile kind has a hex kind: every move passes
        e.extend(passing)
    else:
        with e.block("else:"):
            e.extend(passing)


def _values(table: tuple[Any, ...], where: Where | None) -> set[Any] | None:
    """The values a per-hex table takes over the hexes a placement can be on; None when nothing is known
    (no `where`, or a free list of a hex kind the board does not have: a branch never taken)."""
    return None if where is None or not where.hexes else {table[h] for h in where.hexes}


class _Body:
    """The generator's side of one placement body, as the rule modules' templates see it (rules.kind.PyGen):
    the body's own emitter (sharing the module's bound names), the per-hex tables, and what is known where
    the body is emitted (`where`), with the tests decided from it."""

    def __init__(self, rs: Ruleset, e: Emitter, tables: dict[str, tuple[Any, ...]], fused: frozenset[int],
                 where: Where | None) -> None:
        self.rs = rs
        self.where = where
        self.tables = tables
        self.fused = fused
        self.public_locals = PUBLIC_START
        self.b = e.child()
        areas = _values(tables["AREA"], where)
        self.in_area = None if areas is None else (True if min(areas) >= 0 else False if max(areas) < 0 else None)
        # the landmarks next to h, read once when some loops over them can be skipped on hexes next to none
        self.adj_guard = where is not None and self.nonempty("LMADJ") is None
        self.guard_end = -1  # the number of lines just after the last `if adj:` block (to add to it, not test again)

    @property
    def locals(self) -> Locals:
        """The locals the body declares so far."""
        return self.b.locals

    def const(self, name: str, value: object) -> str:
        """A module-level constant (Emitter.const)."""
        return self.b.const(name, value)

    def closure(self, name: str, obj: object) -> str:
        """A module-level name for an object passed by reference (Emitter.ref)."""
        return self.b.ref(name, obj)

    def table(self, name: str, value: tuple[Any, ...]) -> str:
        """A per-hex table as a constant, its values kept for the tests on it."""
        self.tables[self.b.const(name, value)] = value
        return name

    def line(self, text: str = "") -> None:
        """One line of the body."""
        self.b.line(text)

    def extend(self, lines: list[str]) -> None:
        """A template's lines in the body."""
        self.b.extend(lines)

    def block(self, header: str | None = None) -> AbstractContextManager[None]:
        """A block of the body (Emitter.block)."""
        return self.b.block(header)

    def local(self, name: str) -> str:
        """A declared local's name."""
        return self.b.local(name)

    def kind_in(self, kinds: frozenset[int] | None) -> str:
        """The test that k is of these kinds: "True"/"False" when the kind is known."""
        if self.where is None:
            return _kind_test("k", kinds)
        return "True" if kinds is None or self.where.kid in kinds else "False"

    def values(self, table: tuple[Any, ...]) -> set[Any] | None:
        """The values a per-hex table takes over the hexes the placement can be on (_values)."""
        return _values(table, self.where)

    def nonempty(self, name: str) -> bool | None:
        """Whether table `name` is non-empty at h: True/False on every possible hex, else None."""
        vals = _values(self.tables[name], self.where)
        if vals is None:
            return None
        flags = {bool(x) for x in vals}
        return flags.pop() if len(flags) == 1 else None

    def loop_over(self, name: str) -> bool:
        """Whether to emit a loop over table `name` at h (not when it is empty on every possible hex)."""
        return self.nonempty(name) is not False

    def guarded(self, name: str, block: list[str]) -> None:
        """A loop over table `name`, behind the `if adj:` test when that test is exact for it (every hex
        where it is non-empty is next to a landmark)."""
        lmadj, table = self.tables["LMADJ"], self.tables[name]
        if self.where is not None and self.adj_guard and all(lmadj[h] or not table[h] for h in self.where.hexes):
            # else the block just emitted is one `if adj:` too: added to it
            with self.b.block("if adj:" if self.guard_end != len(self.b.lines) else None):
                self.b.extend(block)
            self.guard_end = len(self.b.lines)
        else:
            self.b.extend(block)

    def public_source(self, rule: str, placer_first: bool) -> list[str] | None:
        """The incremental public check written out where the tile's kind is known (accel/public.py)."""
        w = self.where
        if w is None:
            return None
        return public_source(self.rs, rule, w.kid, w.hexes, self.closure, self.locals, placer_first)


def _place_body(rs: Ruleset, e: Emitter, tables: dict[str, tuple[Any, ...]], where: Where | None = None
                ) -> list[str]:
    """The source lines of one placement (p, k, v, h) with every reaction of the ruleset, in order, each
    statement written by its rule module (kind_of(r).python_place) or, where it writes none, its reference
    reaction called (REACT).

    With `where` (the playout loop), the tile kind and the hex's free list are known: tests of the kind are
    decided here, and a per-hex table that has the same value on every hex of the list is read here instead
    of in the game (a reaction that can never fire there disappears, a test that always holds is dropped).
    Without it (`place`), every test is made in the game. The names are bound in `e`, and the body reads
    the locals `e` declares (the function's parameters and prologue) and declares its own."""
    gen = _Body(rs, e, tables, frozenset(), where)
    b = gen.b
    b.declare("lst", "pos", "last", "adj", "a", "sc", "pts")
    L = b.line
    in_area = gen.in_area

    L("owner[h] = p")
    L("tkind[h] = k")
    L("tval[h] = v")
    L("tiles_of[p][k].append(h)")
    lst = "lst" if where is None else where.free_list
    if where is None:
        L("lst = free[HK[h]]")
        L("pos = fp[h]")
    pos = "pos" if where is None else "r"  # the loop took h at index r of its free list: fp[h] is r
    # swap-remove: the list's last hex takes h's place (nothing moves when h is the last)
    L(f"last = {lst}.pop()")
    with b.block("if last != h:"):
        L(f"{lst}[{pos}] = last")
        L(f"fp[last] = {pos}")
    L("fp[h] = -1")
    if gen.adj_guard:
        L("adj = LMADJ[h]")
    joins = gen.kind_in(rs.group_kinds) if rs.group_kinds else "False"
    if joins != "False":  # the root of the placed tile's group: read by the reactions after (gsize[groot])
        b.declare("groot", "m", "rm")
        L("groot = h")
        nb = "NB" if where is None else f"NBK{where.kid}"
        with nullcontext() if joins == "True" else b.block(f"if {joins}:"), b.block(f"for m in {nb}[h]:"), \
                b.block("if owner[m] == p and tkind[m] == k:"):
            L("rm = m")
            with b.block("while parent[rm] != rm:"):
                L("parent[rm] = parent[parent[rm]]")
                L("rm = parent[rm]")
            with b.block("if rm != groot:"):
                with b.block("if gsize[rm] > gsize[groot]:"):
                    L("rm, groot = groot, rm")
                L("parent[rm] = groot")
                L("gsize[groot] += gsize[rm]")
    if in_area is not False:
        L("a = AREA[h]")
        with b.block("if a >= 0:") if in_area is None else nullcontext():
            L("area_free[a] -= 1")
            L("area_inf[a][p] += v")
    # A placement first counts itself next to each landmark of a majority (placement.occupy), and the
    # majority reaction later compares the counts. Where every reaction before it is one written out here
    # that reads neither counts nor holders (python_pure: a fixed or group-size trigger, an area paying
    # numbers), the count and the comparison are made in one loop over the landmarks, at the reaction's place.
    kinds = [(ri, kind_of(r), r) for ri, r in enumerate(rs.reactions)]
    fused: set[int] = set()
    plain = True
    counted: set[int] = set()  # the landmarks of the majorities so far: one sharing them no longer fuses
    for ri, kd, r in kinds:
        if kd.counted is not None:
            mine = kd.counted(r)
            plain = plain and not counted & mine
            counted |= mine
            if plain:
                fused.add(ri)
        elif not kd.python_pure(gen, r):
            plain = False
    gen.fused = frozenset(fused)
    for ri, kd, r in kinds:
        if ri not in fused:
            kd.python_count(gen, ri, r)
    L("sc = scores[p]")
    for ri, kd, r in kinds:
        if kd.python_place is not None:
            kd.python_place(gen, ri, r)
        else:  # a statement its rule module does not write out: the reference engine's reaction
            L(f"REACT(g, {gen.closure(f'RULE{ri}', r)}, p, k, h)")
    # every landmark next to h is touched now (touch.mark)
    if where is None:
        L(touch.python_mark("LMADJ[h]", b.locals))
    elif gen.adj_guard:
        with b.block("if adj:" if gen.guard_end != len(b.lines) else None):
            L(touch.python_mark(b.local("adj"), b.locals))
    elif gen.nonempty("LMADJ"):
        L(touch.python_mark("LMADJ[h]", b.locals))
    return b.lines


def _react(g: Game, r: object, p: int, k: int, h: int) -> None:
    """A statement this generator does not write out: its rule module's reaction, as the reference runs it."""
    kind_of(r).react(g, r, Placement(p, k, h, None, {}, touch.first_touches(g.lm_adj[h], g.touched[p])))


def _answer_per_seat(rngs: list[random.Random]) -> AutoChoose:
    """Random ability answers in playouts, each seat drawing from its own generator."""
    def answer(game: Game, p: int, lm: int, decl: Ability, key: str, options: list[str] | None) -> Answer:
        # _randbelow: Random's own method, absent from the stubs
        return {key: options[rngs[p]._randbelow(len(options))]} if options else True  # type: ignore[attr-defined]

    return answer


def _fixed_turns(rs: Ruleset) -> bool:
    """Whether nothing but the turn's own draw (S-T1) ever changes a hand: hands of at most one tile and no
    ability (abilities may take a set-aside tile into the hand or draw several, I-R1). Then the seats and
    tiles of a playout's moves follow from the hands and supplies alone (rules.turn.fixed_turns)."""
    return rs.hand <= 1 and not static(rs).ability_rules


def _emit_pick(e: Emitter, bodies: list[list[str]]) -> None:
    """Source that takes element r of the concatenation of the named lists (the lengths of all but the last
    are in len0, len1...), then runs the body of the list it fell in (each body starts by taking h)."""
    with ExitStack() as nested:
        for i, body in enumerate(bodies):
            if i == len(bodies) - 1:
                e.extend(body)
                break
            with e.block(f"if r < {e.local(f'len{i}')}:"):
                e.extend(body)
            e.line("else:")
            nested.enter_context(e.block())
            e.line(f"r -= len{i}")


def _placeable(rs: Ruleset) -> set[str]:
    return {k for kinds in (*rs.primary.values(), *rs.fallback.values()) for k in kinds}


def compiled(rs: Ruleset) -> Compiled:
    """The specialised functions for a ruleset, generated once and kept on the ruleset."""
    c: Compiled | None = rs.derived.fast
    if c is None:
        c = rs.derived.fast = generate(rs)
    return c


def random_game(rs: Ruleset, names: list[str], seed: int, record: bool = False
                ) -> tuple[Game, list[tuple[int, int, int, int]] | None]:
    """A whole game of uniformly random moves, as `rebirth play --agents random` plays it."""
    g = Game.dealt(rs, names, seed)  # Game(rs, names, deal(rs, len(names), seed)), without the Setup between
    g.quiet = True
    moves: list[tuple[int, int, int, int]] | None = [] if record else None  # (seat, tile kind, value, hex)
    compiled(rs).run_random(g, [seat_rng(seed, i) for i in range(len(names))], moves)
    return g, moves


