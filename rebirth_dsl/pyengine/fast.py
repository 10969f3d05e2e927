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
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass
from itertools import count
from math import floor
from typing import Any, Protocol

from rebirth_dsl.accel.public import PUBLIC_LOCALS, public_missions, public_source
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.emit import Emitter, assigned, literal
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import (
    Ability,
    AreaRule,
    MajorityRule,
    PublicRule,
    Ruleset,
    ScoreTrigger,
    TouchRule,
)
from rebirth_dsl.lang import ast as A
from rebirth_dsl.rules import area, majority, touch
from rebirth_dsl.rules.kind import Placement
from rebirth_dsl.rules.table import kind_of
from rebirth_dsl.rules.turn import PYTHON_SEATS, draw, fixed_turns, python_end_of_turn
from rebirth_dsl.runtime.abilities import use
from rebirth_dsl.runtime.game import Game, static
from rebirth_dsl.runtime.setup import deal, seat_rng
from rebirth_dsl.runtime.state import Answer, AutoChoose


def _kind_test(var: str, kinds: frozenset[int] | None) -> str:
    if kinds is None:
        return "True"
    return " or ".join(f"{var} == {literal(int(k))}" for k in sorted(kinds)) or "False"


def _is_group_size(e: A.Expr) -> bool:
    """`size(group(placed))` / `count(group(placed))`: the union-find root's size."""
    return (isinstance(e, A.Call) and e.fn in ("size", "count") and len(e.args) == 1
            and isinstance(e.args[0], A.Call) and e.args[0].fn == "group" and len(e.args[0].args) == 1
            and isinstance(e.args[0].args[0], A.Name) and e.args[0].args[0].id == "placed")


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
                         PAYOUTS=area.payouts, NEXTS={}, COUNT=count, FLOOR=floor, PUBLIC=public_missions,
                         TURNS=fixed_turns, USE=use).items():
        closure(name, fn)

    # per-rule adjacency tables (their values are kept too: the playout loop specialises on them)
    maj_tables: dict[int, str] = {}
    tables: dict[str, tuple[Any, ...]] = {"AREA": tuple(int(a) for a in t.area_of), "LMADJ": static(rs).lm_adj}
    # A tile of kind k only ever stands on a hex of a kind it may be placed on (placement.check_place refuses
    # any other; neutral tiles belong to nobody): the neighbours a group of k can join through, per hex.
    for kid in sorted(rs.group_kinds):
        ok = {*rs.primary.get(kid, ()), *rs.fallback.get(kid, ())}
        table = tuple(tuple(int(m) for m in nb if t.hex_kind[m] in ok) for nb in t.neighbours)
        tables[const(f"NBK{kid}", table)] = table
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, MajorityRule):
            mine = set(r.landmarks)
            table = tuple(tuple(lm for lm in _adj(t, h) if lm in mine) for h in range(t.n))
            maj_tables[ri] = const(f"MAJ{ri}", table)
            tables[maj_tables[ri]] = table
        elif isinstance(r, TouchRule):
            table = tuple(tuple(lm for lm in _adj(t, h) if t.landmark_kind[lm] == r.kind) for h in range(t.n))
            tables[const(f"TOUCH{ri}", table)] = table
            if r.by is not None and "LMRING" not in tables:  # the hexes next to each landmark (touch.untouched_by)
                ring = tuple(tuple(int(m) for m in t.neighbours[x]) for x in t.landmark_hex)
                tables[const("LMRING", ring)] = ring
        elif isinstance(r, ScoreTrigger) and r.at is not None:
            const(f"AT{ri}", tuple(bool(x) for x in r.at))
        elif isinstance(r, AreaRule):
            const(f"AREAOK{ri}", tuple(k == r.kind for k in t.area_kind))
            pay = area.fixed_pay(r, t.attributes)
            if pay is not None:  # payouts that are numbers or the influence itself: scored inline
                const(f"PAY{ri}", pay)
                const(f"ALONE{ri}", tuple(int(i) for i in r.alone))
                closure(f"PAYN{ri}", {})  # player count -> (per area (payouts, alone points, alone influence
                #                           count), per completer the seats in tie-break order)
                closure(f"TIES{ri}", r.ties)  # TieStep values, passed by reference to PAYOUTS (the seats' tie order)
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
        e.extend(_place_body(rs, maj_tables, e, tables))

    # the random playout loop: legal hexes are the free lists of the placement rule's kinds, in order
    e.line()
    loop_start = len(e.lines)
    fixed = _fixed_turns(rs)
    free_var = {kk: f"FL{i}" for i, kk in enumerate(sorted(_placeable(rs)))}
    publics = any(isinstance(r, PublicRule) for r in rs.reactions)
    with e.scope(), e.block("def run_random(g, rngs, moves):"):
        e.declare("g", "rngs", "moves", *assigned(prologue), *free_var.values(), "rnd", "rec", "p", "k", "v", "h",
                  *(assigned(PUBLIC_LOCALS) if publics else ()))
        e.extend(prologue)
        # the free lists live as long as the game (mutated in place, never replaced): bind each once
        for kk, var in free_var.items():
            e.line(f"{var} = free[{literal(kk)}]")
        if publics:  # read by the placements public_source writes
            e.extend(PUBLIC_LOCALS)
        e.line("rnd = [r.random for r in rngs]  # int(random() * n): the draw RandomAgent makes (agents.pick)")
        e.line("rec = moves is not None")
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
            _moves(rs, e, maj_tables, tables, free_var)
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
    code = compile(source, f"<rebirth fast: {rs.name} on {t.board.name if t.board else '?'}>", "exec")
    exec(code, env)  # noqa: S102 - source built only from the generator's own text and checked literals
    return Compiled(source, env["place"], env["run_random"])


def _moves(rs: Ruleset, e: Emitter, maj_tables: dict[int, str], tables: dict[str, tuple[Any, ...]],
           free_var: dict[str, str]) -> None:
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
                    shared = {tuple(_place_body(rs, maj_tables, e, tables, _Where(kid, "fl", free_hexes[kk])))
                              for kk in kinds}
                    if len(names) > 1 and len(shared) == 1:
                        _emit_pick(e, [[f"fl = {nm}"] for nm in names])
                        e.extend(["h = fl[r]", *shared.pop()])
                    else:
                        bodies = [[f"h = {nm}[r]", *_place_body(rs, maj_tables, e, tables,
                                                                  _Where(kid, nm, free_hexes[kk]))]
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


@dataclass(frozen=True)
class _Where:
    """What the playout loop knows where it emits a placement: the tile kind, and the free list the hex
    was taken from (a local name; h is its element r) with every hex that list can hold."""

    kid: int
    free_list: str
    hexes: tuple[int, ...]


def _values(table: tuple[Any, ...], where: _Where | None) -> set[Any] | None:
    """The values a per-hex table takes over the hexes a placement can be on; None when nothing is known
    (no `where`, or a free list of a hex kind the board does not have: a branch never taken)."""
    return None if where is None or not where.hexes else {table[h] for h in where.hexes}


def _place_body(rs: Ruleset, maj_tables: dict[int, str], e: Emitter, tables: dict[str, tuple[Any, ...]],
                where: _Where | None = None) -> list[str]:
    """The source lines of one placement (p, k, v, h) with every reaction of the ruleset, in order.

    With `where` (the playout loop), the tile kind and the hex's free list are known: tests of the kind are
    decided here, and a per-hex table that has the same value on every hex of the list is read here instead
    of in the game (a reaction that can never fire there disappears, a test that always holds is dropped).
    Without it (`place`), every test is made in the game. The names are bound in `e`, and the body reads
    the locals `e` declares (the function's parameters and prologue) and declares its own."""
    t = rs.t
    closure = e.ref
    b = e.child()
    b.declare("lst", "pos", "last", "adj", "a", "sc", "pts")
    L = b.line

    def kind_in(kinds: frozenset[int] | None) -> str:
        """The test that k is of these kinds: "True"/"False" when the kind is known."""
        if where is None:
            return _kind_test("k", kinds)
        return "True" if kinds is None or where.kid in kinds else "False"

    def nonempty(name: str) -> bool | None:
        """Whether table `name` is non-empty at h: True/False on every possible hex, else None."""
        vals = _values(tables[name], where)
        if vals is None:
            return None
        flags = {bool(x) for x in vals}
        return flags.pop() if len(flags) == 1 else None

    def loop_over(name: str) -> bool:
        """Whether to emit a loop over table `name` at h (not when it is empty on every possible hex)."""
        return nonempty(name) is not False

    areas = _values(tables["AREA"], where)
    in_area = None if areas is None else (True if min(areas) >= 0 else False if max(areas) < 0 else None)
    # the landmarks next to h, read once when some loops over them can be skipped on hexes next to none
    adj_guard = where is not None and nonempty("LMADJ") is None
    lmadj = tables["LMADJ"]

    guard_end = -1  # the number of lines just after the last `if adj:` block (to add to it, not test again)

    def guarded(name: str, block: list[str]) -> None:
        """A loop over table `name`, behind the `if adj:` test when that test is exact for it (every hex
        where it is non-empty is next to a landmark)."""
        nonlocal guard_end
        if adj_guard and all(lmadj[h] or not tables[name][h] for h in where.hexes):  # type: ignore[union-attr]
            # else the block just emitted is one `if adj:` too: added to it
            with b.block("if adj:" if guard_end != len(b.lines) else None):
                b.extend(block)
            guard_end = len(b.lines)
        else:
            b.extend(block)

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
    if adj_guard:
        L("adj = LMADJ[h]")
    joins = kind_in(rs.group_kinds) if rs.group_kinds else "False"
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
    # that reads neither counts nor holders (a fixed or group-size trigger, an area paying numbers), the
    # count and the comparison are made in one loop over the landmarks, at the reaction's place.
    count_lines: dict[int, list[str]] = {}
    fused: set[int] = set()
    plain = True
    counted: set[int] = set()  # the landmarks of the majorities so far: one sharing them no longer fuses
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, MajorityRule):
            plain = plain and not counted & set(r.landmarks)
            counted |= set(r.landmarks)
            count_lines[ri] = majority.python_count(r.metrics, kind_in)
            if plain:
                fused.add(ri)
        elif not (isinstance(r, ScoreTrigger) and _trigger_expr(r, rs) is not None
                  or isinstance(r, AreaRule) and area.fixed_pay(r, t.attributes) is not None):
            plain = False
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, MajorityRule) and ri not in fused and loop_over(maj_tables[ri]):
            guarded(maj_tables[ri], majority.python_count_at(maj_tables[ri], count_lines[ri], b.locals))
    L("sc = scores[p]")
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, ScoreTrigger):
            conds = []
            test = kind_in(r.kinds)
            if test == "False":
                continue
            if test != "True":
                conds.append(f"({test})")
            if r.at is not None:
                ats = _values(tuple(bool(x) for x in r.at), where)
                if ats == {False}:
                    continue
                if ats != {True}:
                    conds.append(f"AT{ri}[h]")
            with b.block(f"if {' and '.join(conds)}:") if conds else nullcontext():
                src = _trigger_expr(r, rs)
                if src == "group":  # the root of the group just joined (h itself where no group can form)
                    L(f"pts = gsize[{b.local('groot') if joins != 'False' else 'h'}]")
                elif src is not None:
                    L(f"pts = {src}")
                else:
                    L(f"pts = {closure(f'TRIG{ri}', r.fn)}(Ctx(g, p, h))")
                L(f"sc[{literal(r.category)}] += pts")
                L("track[p] += pts")
        elif isinstance(r, AreaRule):
            if in_area is False:
                continue
            conds = [] if in_area else ["a >= 0"]
            oks = None if areas is None else {t.area_kind[a_] == r.kind for a_ in areas if a_ >= 0}
            if oks == {False}:
                continue
            if oks != {True}:
                conds.append(f"AREAOK{ri}[a]")
            # `not area_free[a]`, not `== 0`: a comparison before a jump as long as this block is never
            # specialised by CPython 3.11 (EXTENDED_ARG follows it), a truth test is quick anyway
            with b.block(f"if {' and '.join([*conds, 'not area_free[a]', 'not area_done[a]'])}:"):
                rule = closure(f"RULE{ri}", r)
                if area.fixed_pay(r, t.attributes) is None:
                    L(f"SCORE_AREA(g, a, p, {rule}, None)")
                else:  # rules/area.py's score inlined for quiet games (probes, playouts)
                    b.extend(area.python_score(ri, r, rule, b.locals))
        elif isinstance(r, MajorityRule):
            if not loop_over(maj_tables[ri]):
                continue
            block = majority.python_challenge(r, maj_tables[ri], count_lines[ri] if ri in fused else None,
                                              b.locals)
            guarded(maj_tables[ri], block)
        elif isinstance(r, TouchRule):
            if not loop_over(f"TOUCH{ri}"):
                continue
            empty = rs.empty_decks.get(r.action.deck) if isinstance(r.action, A.DrawAction) else None
            block = touch.python_source(r, f"TOUCH{ri}", closure(f"RULE{ri}", r), empty is None or empty.fn is None,
                                        b.locals, kind_in(r.by))
            if block:
                guarded(f"TOUCH{ri}", block)
        elif isinstance(r, PublicRule):  # the usual case inline where the kind is known, else the handler
            rule = closure(f"RULE{ri}", r)
            inline = None if where is None else public_source(rs, rule, where.kid, where.hexes, closure, b.locals,
                                                          r.placer_first)
            b.extend(inline or [f"PUBLIC(g, p, {rule}, None, h)"])
        else:  # a reaction kind this generator does not specialise: the reference engine's handler
            L(f"REACT(g, {closure(f'RULE{ri}', r)}, p, k, h)")
    # every landmark next to h is touched now (touch.mark)
    if where is None:
        L(touch.python_mark("LMADJ[h]", b.locals))
    elif adj_guard:
        with b.block("if adj:" if guard_end != len(b.lines) else None):
            L(touch.python_mark(b.local("adj"), b.locals))
    elif nonempty("LMADJ"):
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


def _adj(t: Tables, h: int) -> list[int]:
    return [t.landmark_of_hex[m] for m in t.neighbours[h] if m in t.landmark_of_hex]


def _trigger_expr(r: ScoreTrigger, rs: Ruleset) -> str | None:
    """Source for a trigger's points when it is a known shape: a number, or the placed tile's group size."""
    expr = getattr(r, "expr", None)
    if expr is None:
        return None
    if isinstance(expr, A.Num):
        return literal(int(expr.value))
    if _is_group_size(expr) and r.kinds is not None and r.kinds <= rs.group_kinds:
        return "group"
    return None


def compiled(rs: Ruleset) -> Compiled:
    """The specialised functions for a ruleset, generated once and kept on the ruleset."""
    c: Compiled | None = rs.derived.fast
    if c is None:
        c = rs.derived.fast = generate(rs)
    return c


def random_game(rs: Ruleset, names: list[str], seed: int, record: bool = False
                ) -> tuple[Game, list[tuple[int, int, int, int]] | None]:
    """A whole game of uniformly random moves, as `rebirth play --agents random` plays it."""
    g = Game(rs, names, deal(rs, len(names), seed))
    g.quiet = True
    moves: list[tuple[int, int, int, int]] | None = [] if record else None  # (seat, tile kind, value, hex)
    compiled(rs).run_random(g, [seat_rng(seed, i) for i in range(len(names))], moves)
    return g, moves


