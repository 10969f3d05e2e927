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
from dataclasses import dataclass
from typing import Any

from rebirth_dsl.compile.emit import literal
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import AreaRule, MajorityRule, PublicRule, Ruleset, ScoreTrigger, TouchRule
from rebirth_dsl.lang import ast as A
from rebirth_dsl.runtime.abilities import draw_after_turn
from rebirth_dsl.runtime.game import Game, static
from rebirth_dsl.runtime.reactions import public_missions, rank, react_one, score_area, touch
from rebirth_dsl.runtime.setup import deal, seat_rng
from rebirth_dsl.runtime.state import Event


def _kind_test(var: str, kinds: frozenset[int] | None) -> str:
    if kinds is None:
        return "True"
    return " or ".join(f"{var} == {literal(int(k))}" for k in sorted(kinds)) or "False"


def _is_group_size(e: A.Expr) -> bool:
    """`size(group(placed))` / `count(group(placed))`: the union-find root's size."""
    return (isinstance(e, A.Call) and e.fn in ("size", "count") and len(e.args) == 1
            and isinstance(e.args[0], A.Call) and e.args[0].fn == "group" and len(e.args[0].args) == 1
            and isinstance(e.args[0].args[0], A.Name) and e.args[0].args[0].id == "placed")


@dataclass
class Compiled:
    """The generated source and the functions compiled from it."""

    source: str
    place: Any
    run_random: Any
    end_quiet: Any  # endgame._end_events for quiet games: the same events, no text


def generate(rs: Ruleset) -> Compiled:
    """Generate and compile the specialised functions for one ruleset on one board."""
    t = rs.t
    env: dict[str, Any] = {"__builtins__": {"len": len, "range": range, "int": int, "sum": sum, "enumerate": enumerate,
                                            "tuple": tuple}}
    consts: list[str] = []
    lines: list[str] = []

    def const(name: str, value: Any) -> str:
        consts.append(f"{name} = {literal(value)}")
        return name

    def closure(name: str, fn: Any) -> str:
        env[name] = fn  # a compiled expression closure or a rule object, passed by reference, never as text
        return name

    const("NB", tuple(tuple(int(m) for m in nb) for nb in t.neighbours))
    const("HK", tuple(str(k) for k in t.hex_kind))
    const("AREA", tuple(int(a) for a in t.area_of))
    const("ASIZE", tuple(len(hs) for hs in t.area_hexes))
    const("LMADJ", tuple(tuple(int(x) for x in adj) for adj in static(rs).lm_adj))
    env["Ctx"] = Ctx
    env["bool"] = bool
    # the reference engine's own rule functions, called where the generated code does not inline a rule
    env.update(DRAW=draw_after_turn, SCORE_AREA=score_area, TOUCH=touch, REACT_ONE=react_one, RANK=rank,
               PUBLIC=public_missions)

    # per-rule adjacency tables
    maj_tables: dict[int, str] = {}
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, MajorityRule):
            mine = set(r.landmarks)
            table = tuple(tuple(lm for lm in _adj(t, h) if lm in mine) for h in range(t.n))
            maj_tables[ri] = const(f"MAJ{ri}", table)
        elif isinstance(r, TouchRule):
            table = tuple(tuple(lm for lm in _adj(t, h) if t.landmark_kind[lm] == r.kind) for h in range(t.n))
            const(f"TOUCH{ri}", table)
        elif isinstance(r, ScoreTrigger) and r.at is not None:
            const(f"AT{ri}", tuple(bool(x) for x in r.at))
        elif isinstance(r, AreaRule):
            const(f"AREAOK{ri}", tuple(k == r.kind for k in t.area_kind))
            pay = _pay_table(r, t)
            if pay is not None:  # payouts that are numbers or the influence itself: scored inline
                const(f"PAY{ri}", pay)
                const(f"ALONE{ri}", tuple(int(i) for i in r.alone))
                env[f"TIES{ri}"] = r.ties  # TieStep values, passed by reference to the shared `rank`

    # The placement body, written once against local names bound by a prologue: emitted as `place()`
    # and again inline in the playout loop, where the prologue runs once per game instead of per move.
    prologue = [
        "owner = g.owner", "tkind = g.tkind", "tval = g.tval", "tiles_of = g.tiles_of", "free = g.free",
        "fp = g.free_pos", "parent = g.parent", "gsize = g.gsize", "area_free = g.area_free",
        "area_inf = g.area_inf", "lm_count = g.lm_count", "lm_owner = g.lm_owner", "scores = g.scores",
        "track = g.track", "touched_by = g.touched", "area_done = g.area_done", "held = g.held",
        "decks = g.decks", "n = g.n_players", "quiet = g.quiet",
    ]
    body = _place_body(rs, maj_tables, closure)

    def emit(lines_: list[str], indent: str) -> None:
        lines.extend(indent + ln if ln else "" for ln in lines_)

    L = lines.append
    L("def place(g, p, k, v, h):")
    emit(prologue, "    ")
    emit(body, "    ")
    env["NOCHOICE"] = {}
    env["ANSWER"] = _answer_per_seat

    # the random playout loop: legal hexes are the free lists of the placement rule's kinds, in order
    R = lines.append
    R("")
    R("def run_random(g, rngs, moves):")
    emit(prologue, "    ")
    # the free lists live as long as the game (mutated in place, never replaced): bind each once
    free_var = {kk: f"FL{i}" for i, kk in enumerate(sorted(_placeable(rs)))}
    for kk, var in free_var.items():
        R(f"    {var} = free[{literal(kk)}]")
    R("    rnd = [r.random for r in rngs]  # int(random() * n): the draw RandomAgent makes (agents.pick)")
    R("    if g.auto_choose is None:")
    R("        g.auto_choose = ANSWER(rngs)")
    R("    hand = g.hand")
    R("    supply = g.supply")
    R("    pending = g.pending_draw")
    R("    n = g.n_players")
    R("    # the seats after each seat, clockwise; the turn is kept in a local and stored on the way out")
    R("    nexts = [tuple((q + s) % n for s in range(1, n + 1)) for q in range(n)]")
    R("    p = g.turn")
    R("    mi = g.move_index")
    R("    while True:")
    R("        hp = hand[p]")
    R("        if not hp:")
    R("            g.turn, g.move_index = p, mi")
    R("            return")
    R("        ti = int(rnd[p]() * len(hp)) if len(hp) > 1 else 0")
    R("        k, v = hp[ti]")
    R("        h = -1")
    first = True
    for kid in range(len(rs.tile_kinds)):
        R(f"        {'if' if first else 'elif'} k == {kid}:")
        first = False
        tiers = [tuple(free_var[kk] for kk in kinds if kk in free_var)
                 for kinds in (rs.primary.get(kid, ()), rs.fallback.get(kid, ()))]
        tiers = [t_ for t_ in tiers if t_]
        if not tiers:
            R("            pass")
        ind = "            "
        for ti, names in enumerate(tiers):
            R(f"{ind}tot = {' + '.join(f'len({nm})' for nm in names)}")
            R(f"{ind}if tot:")
            R(f"{ind}    r = int(rnd[p]() * tot)")
            _emit_pick(R, ind + "    ", names)
            if ti + 1 < len(tiers):  # the fallback tier, only when no primary hex is free (S-P3)
                R(f"{ind}else:")
                ind += "    "
    R("        if h >= 0:")
    emit(body, "            ")
    R("        else:")
    R("            g.passed[p] += 1")
    R("        if moves is not None:")
    R("            moves.append((p, k, v, h))")
    R("        del hp[ti]")
    R("        if pending:")
    R("            DRAW(g, p)")
    R("        else:")
    R("            sp = supply[p]")
    R("            if sp:")
    R("                hp.append(sp.pop())")
    R("        mi += 1")
    R("        for q in nexts[p]:")
    R("            if hand[q]:")
    R("                p = q")
    R("                break")
    R("        else:")
    R("            g.turn, g.move_index = p, mi")
    R("            return")
    lines.extend(["", *_end_source(rs, const, closure)])
    env["EV"] = Event
    source = "\n".join(["# generated by rebirth_dsl.fast: specialised for one ruleset and board", *consts, "", *lines, ""])
    code = compile(source, f"<rebirth fast: {rs.name} on {t.board.name if t.board else '?'}>", "exec")
    exec(code, env)  # noqa: S102 - source built only from the generator's own text and checked literals
    return Compiled(source, env["place"], env["run_random"], env["end_quiet"])


def _place_body(rs: Ruleset, maj_tables: dict[int, str], closure: Any) -> list[str]:
    """The source lines of one placement (p, k, v, h) with every reaction of the ruleset, in order."""
    out: list[str] = []
    L = out.append
    L("owner[h] = p")
    L("tkind[h] = k")
    L("tval[h] = v")
    L("tiles_of[p][k].append(h)")
    L("lst = free[HK[h]]")
    L("pos = fp[h]")
    L("last = lst[-1]")
    L("lst[pos] = last")
    L("fp[last] = pos")
    L("lst.pop()")
    L("fp[h] = -1")
    L("groot = h")
    if rs.group_kinds:
        L(f"if {_kind_test('k', rs.group_kinds)}:")
        L("    for m in NB[h]:")
        L("        if owner[m] == p and tkind[m] == k:")
        L("            rm = m")
        L("            while parent[rm] != rm:")
        L("                parent[rm] = parent[parent[rm]]")
        L("                rm = parent[rm]")
        L("            if rm != groot:")
        L("                if gsize[rm] > gsize[groot]:")
        L("                    rm, groot = groot, rm")
        L("                parent[rm] = groot")
        L("                gsize[groot] += gsize[rm]")
    L("a = AREA[h]")
    L("if a >= 0:")
    L("    area_free[a] -= 1")
    L("    area_inf[a][p] += v")
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, MajorityRule):
            L(f"for lm in {maj_tables[ri]}[h]:")
            L("    c = lm_count[lm]")
            for mi, kinds in enumerate(r.metrics):
                if kinds is None:
                    L(f"    c[{mi}][p] += 1")
                else:
                    L(f"    if {_kind_test('k', kinds)}:")
                    L(f"        c[{mi}][p] += 1")
    L("sc = scores[p]")
    for ri, r in enumerate(rs.reactions):
        if isinstance(r, ScoreTrigger):
            cond = _kind_test("k", r.kinds)
            if r.at is not None:
                cond = f"AT{ri}[h]" if r.kinds is None else f"({cond}) and AT{ri}[h]"
            L(f"if {cond}:")
            src = _trigger_expr(r, rs)
            if src == "group":
                L("    pts = gsize[groot]")
            elif src is not None:
                L(f"    pts = {src}")
            else:
                L(f"    pts = {closure(f'TRIG{ri}', r.fn)}(Ctx(g, p, h))")
            L(f"    sc[{literal(r.category)}] += pts")
            L("    track[p] += pts")
        elif isinstance(r, AreaRule):
            L(f"if a >= 0 and AREAOK{ri}[a] and area_free[a] == 0 and not area_done[a]:")
            if _pay_table(r, rs.t) is None:
                L(f"    SCORE_AREA(g, a, p, {closure(f'RULE{ri}', r)}, None)")
            else:
                # reactions.score_area inlined for quiet games (probes, playouts); events need the reference
                L("    if not quiet:")
                L(f"        SCORE_AREA(g, a, p, {closure(f'RULE{ri}', r)}, None)")
                L("    else:")
                L("        area_done[a] = True")
                L("        inf = area_inf[a]")
                L(f"        ranked = RANK(inf, p, n, TIES{ri})")
                L("        if ranked:")
                L("            g.area_first[a] = ranked[0]")
                L(f"            pay = PAY{ri}.get((ASIZE[a], n)) or PAY{ri}.get((ASIZE[a], -1), ())")
                L(f"            if len(ranked) == 1 and ALONE{ri}:")
                L("                q = ranked[0]")
                L(f"                pts = sum(inf[q] if pay[i] < 0 else pay[i] for i in ALONE{ri} if i < len(pay))")
                L(f"                scores[q][{literal(r.category)}] += pts")
                L("                track[q] += pts")
                L("            else:")
                L("                for place_, q in enumerate(ranked):")
                L("                    if place_ < len(pay):")
                L("                        pts = inf[q] if pay[place_] < 0 else pay[place_]")
                L(f"                        scores[q][{literal(r.category)}] += pts")
                L("                        track[q] += pts")
        elif isinstance(r, MajorityRule):
            L(f"for lm in {maj_tables[ri]}[h]:")
            L("    o = lm_owner[lm]")
            L("    if o == p:")
            L("        continue")
            L("    if o < 0:")
            L("        lm_owner[lm] = p")
            L("        continue")
            L("    c = lm_count[lm]")
            ind = "    "
            for mi in range(len(r.metrics)):
                L(f"{ind}x = c[{mi}][p]")
                L(f"{ind}y = c[{mi}][o]")
                L(f"{ind}if x > y:")
                L(f"{ind}    lm_owner[lm] = p")
                L(f"{ind}elif x == y:")
                ind += "    "
            L(f"{ind}{'lm_owner[lm] = p' if r.placer_takes_tie else 'pass'}")
        elif isinstance(r, TouchRule):
            L("touched = touched_by[p]")  # marked touched after every reaction (reactions.react)
            L(f"for lm in TOUCH{ri}[h]:")
            L("    if lm not in touched:")
            empty = rs.empty_decks.get(r.action.deck) if isinstance(r.action, A.DrawAction) else None
            if isinstance(r.action, A.DrawAction) and (empty is None or empty.fn is None):
                # reactions.draw_card inlined for quiet games: the top card, or nothing from an empty deck
                L(f"        dk = decks.get({literal(r.action.deck)})")
                L("        if quiet and dk:")
                L("            held[p].append(dk.pop(0))")
                L("        elif not quiet:")
                L(f"            TOUCH(g, lm, p, {closure(f'RULE{ri}', r)}, None, NOCHOICE, h)")
            else:
                L(f"        TOUCH(g, lm, p, {closure(f'RULE{ri}', r)}, None, NOCHOICE, h)")
        elif isinstance(r, PublicRule):  # the reference engine's handler, called without the dispatch
            L(f"PUBLIC(g, p, {closure(f'RULE{ri}', r)}, None, h)")
        else:  # a reaction kind this generator does not specialise: the reference engine's handler
            L(f"REACT_ONE(g, {closure(f'RULE{ri}', r)}, p, k, h, None, NOCHOICE)")
    L("touched_by[p].update(LMADJ[h])")  # every landmark next to h is touched now (reactions.react)
    return out


def _end_source(rs: Ruleset, const: Any, closure: Any) -> list[str]:
    """endgame._end_events for quiet games (S-E1..S-E3): the same events in the same order, without text;
    the loops over areas and landmarks of a kind become loops over precomputed tuples."""
    t = rs.t
    out = ["def end_quiet(g):", "    out = []", "    n = g.n_players", "    g.memo = {}", "    try:"]
    L = out.append
    for i, (kind, fn, cat, ids) in enumerate(rs.end_incomplete):
        areas = const(f"INC{i}", tuple(a for a in range(len(t.area_hexes)) if t.area_kind[a] == kind))
        L(f"        for a in {areas}:")
        L("            if g.area_done[a] or g.area_free[a] == 0:")
        L("                continue")
        L("            inf = g.area_inf[a]")
        L("            for q in range(n):")
        L("                if inf[q] > 0:")
        L(f"                    out.append(EV(None, q, {closure(f'INCFN{i}', fn)}(Ctx(g, q, -1, inf[q])), "
          f"{literal(cat)}, {literal(tuple(ids))}, ''))")
    for i, (kind, fn, cat, ids) in enumerate(rs.end_owned):
        lms = const(f"OWNED{i}", tuple(lm for lm, k in enumerate(t.landmark_kind) if k == kind))
        L(f"        for lm in {lms}:")
        L("            o = g.lm_owner[lm]")
        L("            if o >= 0:")
        L(f"                out.append(EV(None, o, {closure(f'OWNFN{i}', fn)}(Ctx(g, o)), {literal(cat)}, "
          f"{literal(tuple(ids))}, ''))")
    if rs.end_held is not None:
        cat, ids = rs.end_held
        L("        cards = g.cards")
        L("        for q in range(n):")
        L("            ctx = Ctx(g, q)")
        L("            for name in g.held[q]:")
        L("                card = cards[name]")
        L(f"                out.append(EV(None, q, card.points if card.cond(ctx) else 0, {literal(cat)}, "
          f"card.ids or {literal(tuple(ids))}, ''))")
    if out[-1] == "    try:":
        L("        pass")  # a ruleset with no end-of-game scoring
    out.extend(["    finally:", "        g.memo = None", "    return out"])
    return out


def _pay_table(r: AreaRule, t: Any) -> dict[tuple[int, int], tuple[int, ...]] | None:
    """An area rule's payouts as numbers per (size, players) (-1 players: any count; a -1 amount: the
    player's influence), or None when a payout is another expression (then the reference scores it)."""
    out: dict[tuple[int, int], tuple[int, ...]] = {}
    for (size, players), _fns in r.pay.items():
        exprs = r.pay_exprs.get((size, players))
        if exprs is None:
            return None
        amounts = []
        for e in exprs:
            if isinstance(e, A.Num):
                amounts.append(int(e.value))
            elif isinstance(e, A.Name) and (e.id == "influence" or e.id in t.attributes):
                amounts.append(-1)
            else:
                return None
        out[(int(size), -1 if players is None else int(players))] = tuple(amounts)
    return out


def _answer_per_seat(rngs: list[random.Random]) -> Any:
    """Random ability answers in playouts, each seat drawing from its own generator."""
    def answer(game: Game, p: int, lm: int, decl: Any, key: str, options: list[str] | None) -> Any:
        return {key: options[rngs[p]._randbelow(len(options))]} if options else True

    return answer


def _emit_pick(R: Any, ind: str, names: tuple[str, ...]) -> None:
    """Source that sets h to element r of the concatenation of the named lists."""
    if len(names) == 1:
        R(f"{ind}h = {names[0]}[r]")
        return
    for nm in names[:-1]:
        R(f"{ind}if r < len({nm}):")
        R(f"{ind}    h = {nm}[r]")
        R(f"{ind}else:")
        R(f"{ind}    r -= len({nm})")
        ind += "    "
    R(f"{ind}h = {names[-1]}[r]")


def _placeable(rs: Ruleset) -> set[str]:
    return {k for kinds in (*rs.primary.values(), *rs.fallback.values()) for k in kinds}


def _adj(t: Any, h: int) -> list[int]:
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
    c = rs.derived.get("fast")
    if c is None:
        c = generate(rs)
        rs.derived["fast"] = c
        rs.derived["end_quiet"] = c.end_quiet  # endgame.end_events uses it for quiet games
    return c


def random_game(rs: Ruleset, names: list[str], seed: int, record: bool = False) -> tuple[Game, list[Any] | None]:
    """A whole game of uniformly random moves, as `rebirth play --agents random` plays it."""
    g = Game(rs, names, deal(rs, len(names), seed))
    g.quiet = True
    moves: list[Any] | None = [] if record else None
    compiled(rs).run_random(g, [seat_rng(seed, i) for i in range(len(names))], moves)
    return g, moves


