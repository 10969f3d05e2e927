"""Areas (S-A1..S-A4): an area is scored the moment its last hex is filled; the players with influence in
it are ranked, ties broken by the rule's chain, and paid by the table for the area's size.

Here is everything about the rule: the kernel (`order`: the ranking with its tie-breaks; `payout_key`: which
payout table an area of a size pays with a number of players; `payouts`: the payout tables as numbers, per
area), the reference reaction (`react`, `score`: the kernel, the payouts and the events), the Python lines
of the generated engine (`fixed_pay`, `python_score`), the C text of the native engine (`c_tie_keys`,
`c_paykey`, `c_area`, `c_place`) and the English (`english`). The generated Python writes the ranking out inline
(`python_score`: `tie_orders` once per player count, then a sort by influence) because a benchmark says so:
calling `order` there instead costs 11% more per random game (callgrind, 3-player Scotland playouts: 1.47M
instructions a game against 1.33M). tests/rules/test_area.py holds the inline form to the kernel,
tests/test_fast.py and tests/test_native.py the engines to the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import Emitter, Locals, c_int, literal
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.errors import Span
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.vocab import TIE_STEPS, TieStep
from rebirth_dsl.rules.kind import Kind, Placement, never_at
from rebirth_dsl.rules.words import Words

if TYPE_CHECKING:
    from typing import TypeVar

    from rebirth_dsl.compile.ruleset import AreaRule, Ruleset
    from rebirth_dsl.rules.kind import CContext, PyGen
    from rebirth_dsl.rules.view import GameView

if TYPE_CHECKING:
    T = TypeVar("T")
PayKey = tuple[int, "int | None"]  # (area size, number of players or None for any number)


# ----- the kernel -----------------------------------------------------------------------------------
def order(influence: Sequence[int], completer: int, n: int, ties: Sequence[TieStep]) -> list[int]:
    """The seats with influence above 0 (S-A1), most first, ties broken by the steps in order (S-A2: each
    step's key, lowest first, from the seat, the completer and n); seats still tied keep seat order."""
    ranked = [q for q in range(n) if influence[q] > 0]
    if len(ranked) < 2:
        return ranked
    return sorted(ranked, key=lambda q: [-influence[q]] + [s.key(q, completer, n) for s in ties])


def tie_orders(ties: Sequence[TieStep], n: int) -> tuple[tuple[int, ...], ...]:
    """Per completer, every seat in the order of the tie steps alone (seat order among equals). `order` is
    this with the seats without influence left out, then a stable sort by influence, most first (the form
    the generated engine runs: the steps depend only on the seat, the completer and n)."""
    return tuple(tuple(sorted(range(n), key=lambda q: [s.key(q, c, n) for s in ties])) for c in range(n))


def payout_key(size: int, n: int, pay: Mapping[PayKey, object]) -> PayKey | None:
    """The payout table an area of `size` pays with n players (S-A3, I-A1): the one for that size and
    player count, else the one for the size alone, else None (the area pays nothing)."""
    if (size, n) in pay:
        return (size, n)
    return (size, None) if (size, None) in pay else None


def payout_table(size: int, n: int, pay: Mapping[PayKey, tuple[T, ...]]) -> tuple[T, ...]:
    """The payouts, by place, of an area of `size` with n players (payout_key's table; none: nothing)."""
    key = payout_key(size, n, pay)
    return pay[key] if key is not None else ()


def paid_places(place: int, ranked: int, alone: Sequence[int], places: int) -> tuple[int, ...]:
    """Which payouts of the table (by index; the table has `places`) the player ranked at `place` of `ranked`
    players takes, summed (S-A3): a player ranked alone, under an alone rule, the places it names (first +
    second: 8 for size 2, 13 for size 3); anyone else their own place's; beyond the table, nothing."""
    if ranked == 1 and alone:
        return tuple(filter(places.__gt__, alone))
    return (place,) if place < places else ()


def payouts(pay: Mapping[PayKey, tuple[int, ...]], alone: Sequence[int], sizes: Sequence[int], n: int,
            ties: Sequence[TieStep]) -> tuple[tuple[tuple[tuple[int, ...], int, int], ...], tuple[tuple[int, ...], ...]]:
    """For n players, from payouts that are numbers (-1: the player's influence, see fixed_pay): per area (by
    its size), its payout table (payout_key) and the alone payout (S-A3) as fixed points plus a number of
    times the player's influence; and per completer, the seats in tie order (tie_orders)."""
    out = []
    for size in sizes:
        table = payout_table(size, n, pay)
        fixed = times = 0
        for i in paid_places(0, 1, alone, len(table)) if alone else ():
            if table[i] < 0:
                times += 1
            else:
                fixed += table[i]
        out.append((table, fixed, times))
    return tuple(out), tie_orders(ties, n)


# ----- the reference reaction -----------------------------------------------------------------------
def react(g: GameView, rule: AreaRule, at: Placement) -> None:
    """S-A1: p's tile on h filled the last hex of an area of the rule's kind not yet scored: score it."""
    t = g.t
    a = t.area_of[at.h]
    if a >= 0 and g.area_free[a] == 0 and not g.area_done[a] and t.area_kind[a] == rule.kind:
        score(g, a, at.p, rule, at.index)


def score(g: GameView, a: int, completer: int, rule: AreaRule, index: int | None) -> None:
    """A completed area pays its ranking (order) by its size's payout table (payout_key, S-A3), or the
    alone rule."""
    t = g.t
    n = g.n_players
    g.area_done[a] = True
    inf = g.area_inf[a]
    ranked = order(inf, completer, n, rule.ties)
    size = len(t.area_hexes[a])
    key = payout_key(size, n, rule.pay)
    table = rule.pay[key] if key is not None else ()
    # the ids the payment cites: the payout table's (by place, or alone), else the ranking's
    by_place_ids, alone_ids = rule.paid_ids[key] if key in rule.paid_ids else (rule.rank_ids, rule.rank_ids)
    name = t.area_names[a]
    if not ranked:
        g.event(index, completer, 0, rule.category, rule.ids, "area {} complete: nobody has influence", name)
        return
    g.area_first[a] = ranked[0]
    alone = len(ranked) == 1 and bool(rule.alone)
    ids = alone_ids if alone else by_place_ids
    for place, q in enumerate(ranked):
        ctx = Ctx(g, q, -1, inf[q])
        pts = 0
        for i in paid_places(place, len(ranked), rule.alone, len(table)):
            pts += table[i](ctx)
        how = "alone" if alone else f"place {place + 1}"
        g.event(index, q, pts, rule.category, ids, "area {} (size {}) complete: {} {} with influence {}: {}",
                name, size, g.players[q], how, inf[q], pts)


# ----- the generated Python engine (pyengine/fast.py) ------------------------------------------------
def fixed_pay(rule: AreaRule, attributes: Collection[str]) -> dict[PayKey, tuple[int, ...]] | None:
    """The rule's payouts as numbers per payout key (-1: the player's influence, or a tile attribute, which
    is what influence sums), or None when a payout is another expression (then the reference scores it)."""
    out: dict[PayKey, tuple[int, ...]] = {}
    for key in rule.pay:
        exprs = rule.pay_exprs.get(key)
        if exprs is None:
            return None
        amounts = []
        for e in exprs:
            if isinstance(e, A.Num):
                amounts.append(int(e.value))
            elif isinstance(e, A.Name) and (e.id == "influence" or e.id in attributes):
                amounts.append(-1)
            else:
                return None
        out[(int(key[0]), None if key[1] is None else int(key[1]))] = tuple(amounts)
    return out


def python_score(ri: int, rule: AreaRule, reference: str, loc: Locals) -> list[str]:
    """`score` for quiet games (probes, playouts) over the placement's locals (g, p, a, n, quiet, area_done,
    area_inf, scores, track), with the rule's fixed_pay; `reference` names `score` called with the rule,
    as SCORE_AREA(g, a, p, rule, None), for games that tell events. The caller binds PAYOUTS (`payouts`),
    PAY{ri} (fixed_pay), ALONE{ri} (rule.alone), TIES{ri} (rule.ties), PAYN{ri} (a dict) and ASIZE.

    `order` inlined: the seats with influence in tie order (PAYN's orders, per completer), then a stable
    sort by influence, most first (reversed or not, a stable sort keeps the order of equal keys)."""
    loc.require("g", "p", "a", "n", "quiet", "area_done", "area_inf", "scores", "track")
    cat = literal(rule.category)
    out = ["if not quiet:",
           f"    SCORE_AREA(g, a, p, {reference}, None)",
           "else:",
           "    area_done[a] = True",
           "    inf = area_inf[a]",
           f"    payn = PAYN{ri}.get(n)",
           "    if payn is None:",
           f"        payn = PAYN{ri}[n] = PAYOUTS(PAY{ri}, ALONE{ri}, ASIZE, n, TIES{ri})",
           "    ranked = [q for q in payn[1][p] if inf[q] > 0]",
           "    if len(ranked) > 1:",
           "        ranked.sort(key=inf.__getitem__, reverse=True)",
           "    if ranked:",
           "        g.area_first[a] = ranked[0]",
           "        pay, alone_pts, alone_inf = payn[0][a]"]
    ind = "        "
    if rule.alone:  # the alone payout, summed once per area size and player count (payouts)
        out += ["        if len(ranked) == 1:",
                "            q = ranked[0]",
                "            pts = alone_pts + alone_inf * inf[q]",
                f"            scores[q][{cat}] += pts",
                "            track[q] += pts",
                "        else:"]
        ind += "    "
    out += [f"{ind}for q, x in zip(ranked, pay):  # places beyond the table score nothing",
            f"{ind}    pts = inf[q] if x < 0 else x",
            f"{ind}    scores[q][{cat}] += pts",
            f"{ind}    track[q] += pts"]
    return out


def python_tables(gen: PyGen, ri: int, r: AreaRule) -> None:
    """AREAOK{ri}: whether each area is of the rule's kind; with payouts that are numbers (fixed_pay), what
    python_score reads: PAY{ri}, ALONE{ri}, PAYN{ri} (per player count, `payouts`) and TIES{ri}."""
    t = gen.rs.t
    gen.const(f"AREAOK{ri}", tuple(k == r.kind for k in t.area_kind))
    pay = fixed_pay(r, t.attributes)
    if pay is not None:  # payouts that are numbers or the influence itself: scored inline
        gen.const(f"PAY{ri}", pay)
        gen.const(f"ALONE{ri}", tuple(int(i) for i in r.alone))
        gen.closure(f"PAYN{ri}", {})  # player count -> (per area (payouts, alone points, alone influence
        #                               count), per completer the seats in tie-break order)
        gen.closure(f"TIES{ri}", r.ties)  # TieStep values, passed by reference to PAYOUTS (the seats' tie order)


def python_pure(gen: PyGen, r: AreaRule) -> bool:
    """An area paying numbers (scored inline) reads no majority count nor holder."""
    return fixed_pay(r, gen.rs.t.attributes) is not None


def python_place(gen: PyGen, ri: int, r: AreaRule) -> None:
    """`react`: the area of h (the local a) scored when its last hex is filled, by python_score where the
    payouts are numbers, else by `score` (SCORE_AREA); not written where h is in no area of the kind."""
    t = gen.rs.t
    in_area = gen.in_area
    if in_area is False:
        return
    gen.locals.require("g", "p", "a", "area_free", "area_done")
    conds = [] if in_area else ["a >= 0"]
    areas = gen.values(gen.tables["AREA"])
    oks = None if areas is None else {t.area_kind[a_] == r.kind for a_ in areas if a_ >= 0}
    if oks == {False}:
        return
    if oks != {True}:
        conds.append(f"AREAOK{ri}[a]")
    # `not area_free[a]`, not `== 0`: a comparison before a jump as long as this block is never
    # specialised by CPython 3.11 (EXTENDED_ARG follows it), a truth test is quick anyway
    with gen.block(f"if {' and '.join([*conds, 'not area_free[a]', 'not area_done[a]'])}:"):
        rule = gen.closure(f"RULE{ri}", r)
        if fixed_pay(r, t.attributes) is None:
            gen.line(f"SCORE_AREA(g, a, p, {rule}, None)")
        else:  # score inlined for quiet games (probes, playouts)
            gen.extend(python_score(ri, r, rule, gen.locals))


# ----- the native engine (native/cgen.py) ----------------------------------------------------------
# the tie-break steps of lang/vocab.py, by their words: the sort key of seat q (completer c, n players) in C
C_TIE_KEYS = {
    ("completer", "last"): "(q == c ? 1 : 0)",
    ("completer", "first"): "(q == c ? 0 : 1)",
    ("clockwise", "from", "completer"): "(((q - c) % n + n) % n ? ((q - c) % n + n) % n : n)",
    ("counterclockwise", "from", "completer"): "(((c - q) % n + n) % n ? ((c - q) % n + n) % n : n)",
    ("seat", "order"): "q",
}


def c_tie_keys(ties: Sequence[TieStep]) -> list[str | None]:
    """Each tie step's key in C (None: a step the native engine does not know)."""
    return [C_TIE_KEYS.get(tuple(step.words)) for step in ties]


def c_paykey(rule: AreaRule, sizes: Sequence[int], max_players: int) -> list[int]:
    """Per area (by its size) and player count 0..max_players: the index in `rule.pay` of the table it pays
    (payout_key), or -1 for none."""
    tables = list(rule.pay)
    out = []
    for size in sizes:
        for n in range(max_players + 1):
            key = payout_key(size, n, rule.pay)
            out.append(tables.index(key) if key is not None else -1)
    return out


def c_area(ri: str, rule: AreaRule, fns: Mapping[PayKey, Sequence[str]], keys: Sequence[str], cat: str,
           tell_won: bool = False) -> str:
    """`score` in C as `area{ri}(s, a, c)` (c: the completer), with `pay{ri}` (the payouts per table index,
    place and alone rule: `fns` names each table's C functions f(s, q, -1, inf), in rule.pay's order) and
    `before{ri}` (`order`'s comparison; `keys`: the tie steps' keys, c_tie_keys, over the locals q, c, n);
    the table an area pays is read from PAYKEY{ri} (c_paykey). `tell_won`: the incremental reader of the
    face-up cards is told who won the area (pub_won). `ri` and `cat` are C integer text (cexpr.c_int)."""
    e = Emitter()
    with e.block(f"static i64 pay{ri}(const S *s, int key, int place, int q, i64 inf, int alone) {{", "}"):
        e.line("switch (key) {")  # the cases at the switch's own indentation
        for ki, pay_key in enumerate(rule.pay):
            f = fns[pay_key]
            with e.block(f"case {ki:d}:"):
                if rule.alone:
                    terms = " + ".join(f"{f[i]}(s, q, -1, inf)" for i in paid_places(0, 1, rule.alone, len(f))) or "0"
                    e.line(f"if (alone) return {terms};")
                e.line("switch (place) {")
                for pi, fn in enumerate(f):
                    e.line(f"case {pi:d}: return {fn}(s, q, -1, inf);")
                e.line("}")
                e.line("return 0;")
        e.line("}")
        e.line("(void)s; (void)place; (void)q; (void)inf; (void)alone;")
        e.line("return 0;")
    with e.block(f"static int before{ri}(const S *s, int a, int c, int x, int y) {{", "}"):
        e.line("int n = s->n; (void)n; (void)c;")
        e.line("if (s->area_inf[a][x] != s->area_inf[a][y]) return s->area_inf[a][x] > s->area_inf[a][y];")
        e.line(" ".join(f"{{ int kx, ky; {{ int q = x; kx = {k}; }} {{ int q = y; ky = {k}; }} if (kx != ky) return kx < ky; }}"
                        for k in keys))
        e.line("return x < y;")
    with e.block(f"static void area{ri}(S *s, int a, int c) {{", "}"):
        e.line("int order[NP], m = 0;")
        e.line("s->area_done[a] = 1;")
        with e.block("for (int q = 0; q < s->n; q++) if (s->area_inf[a][q] > 0) {", "}"):
            e.line("int j = m++;")
            e.line(f"while (j > 0 && before{ri}(s, a, c, q, order[j - 1])) {{ order[j] = order[j - 1]; j--; }}")
            e.line("order[j] = q;")
        e.line("if (!m) return;")
        e.line("s->area_first[a] = order[0];")
        e.line("s->nwon[order[0]]++;  /* won(P) reads the count (ctext.py rb_won) */")
        if tell_won:
            e.line("pub_won(s, order[0]);")
        e.line(f"int key = PAYKEY{ri}[a * (NP + 1) + s->n], alone = m == 1 && {int(bool(rule.alone)):d};")
        with e.block("for (int place = 0; place < m; place++) {", "}"):
            e.line("int q = order[place];")
            e.line(f"add(s, q, {cat}, key < 0 ? 0 : pay{ri}(s, key, place, q, s->area_inf[a][q], alone));")
    return "\n".join(e.lines)


def c_place(gen: CContext, e: Emitter, ri: int, rule: AreaRule) -> None:
    """`react` in place(): p's tile on h filled the last hex of an area of the rule's kind not yet scored
    (AOK{ri}: the areas of its kind), which `area{ri}` scores (c_area: the tie chain's keys, each payout
    compiled to C, the table per area, PAYKEY{ri})."""
    e.locals.require("s", "p", "h")
    rs, t = gen.rs, gen.t
    keys: list[str] = []
    for i, key in enumerate(c_tie_keys(rule.ties)):
        if key is None:
            gen.problems.append(f"the area tie-break step {i + 1} (words unknown to the native engine)")
            key = "0"
        keys.append(key)
    exprs = rule.pay_exprs
    if set(exprs) != set(rule.pay) or any(len(exprs[k]) != len(rule.pay[k]) for k in rule.pay):
        gen.problems.append("an area's payouts do not line up with its statements")
        return
    paykey = c_paykey(rule, [len(hs) for hs in t.area_hexes], max(rs.players[1], 1))
    e.c_table("i32", f"PAYKEY{ri}", c_int(max(len(paykey), 1)), paykey)
    fns = {key: [gen.expr(x, f"an area payout for size {key[0]}") for x in exprs[key]] for key in rule.pay}
    gen.function(c_area(c_int(ri), rule, fns, keys, gen.category(rule.category), gen.incremental))
    ok = e.c_table("u8", f"AOK{ri}", "NAX", [int(k == rule.kind) for k in t.area_kind])
    e.line("{ int a = AREA_OF[h];")
    e.line(f"  if (a >= 0 && s->area_free[a] == 0 && !s->area_done[a] && {ok}[a]) area{ri}(s, a, p); }}")


# ----- English (present/describe.py) ----------------------------------------------------------------
def english(block: A.AreaBlock, cite: Callable[[Span], tuple[str, ...]], expr_text: Callable[[A.Expr], str]
            ) -> list[Words]:
    """The area block in English: its heading, then one line per item, each with the ids it cites
    (expr_text: an expression in the rules' own notation)."""
    out = [Words(f"A {block.kind} area is scored when its last hex is filled ({block.category or block.kind}):",
                 cite(block.span))]
    for it in block.items:
        match it:
            case A.RankBy():
                out.append(Words(f"players rank by the {it.attribute} of their tiles there; 0 does not rank",
                                 cite(it.span), 1))
            case A.Ties():
                steps = "; then ".join(TIE_STEPS[st].text if st in TIE_STEPS else " ".join(st) for st in it.steps)
                out.append(Words("ties: " + steps, cite(it.span), 1))
            case A.Pay():
                who = f" with {it.players} players" if it.players else ""
                out.append(Words(f"size {it.size}{who} pays " + " / ".join(expr_text(a) for a in it.amounts),
                                 cite(it.span), 1))
            case A.Alone():
                out.append(Words(f"alone in an area: the {' + '.join(it.places)} places' payouts", cite(it.span), 1))
    return out


# ----- what the engines ask of the rule (rules/table.py) -----------------------------------------------
def wins_area(rule: AreaRule, rs: Ruleset, h: int) -> bool:
    """A placement on h can complete, and so win, only the area of h, and only one of the rule's kind (react)."""
    t = rs.t
    a = t.area_of[h]
    return a >= 0 and t.area_kind[a] == rule.kind


KIND = Kind(
    name="area",
    react=react,
    python_tables=python_tables,
    python_place=python_place,
    python_pure=python_pure,
    c_place=c_place,
    moves_holder=never_at,
    wins_area=wins_area,
)
