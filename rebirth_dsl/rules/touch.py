"""First touches: `on first touch KIND [by TILES]: ACTION` (S-M1 draws, I-R1 abilities, score actions).

A tile touches a landmark when its hex is next to the landmark's hex. A placement touches first the
landmarks next to its hex that the placer has not touched before; each `on first touch KIND` statement
acts once for every landmark of its kind among them, in the rules' order. The landmarks are found before
any reaction and marked touched after all of them, so every statement sees the same first touch
(`first_touches`, `mark`).

The filter `by TILES` (tile kinds or classes): `on first touch well by settlement: score 2 as bonus` reads
"the first settlement you place next to a well scores 2". Decided here, and in docs/language.md:

- the placed tile must be of one of the kinds, else the statement does nothing;
- "first" is counted among the player's tiles of those kinds only, per landmark and player: the statement
  acts for a well when no other tile of the player of those kinds stands next to it. A player whose food
  touched the well earlier still gets the settlement bonus the first time a settlement touches it, and
  the unfiltered statements (and `touched(me, KIND)`) go on counting every tile as before;
- tiles never leave the board nor change hands, so "touched before by one of the player's tiles of those
  kinds" is read off the board (`untouched_by`): no state per filter, and every engine, copy and record
  agrees on it by construction. Two statements with the same filter count the same first touch, like two
  unfiltered ones;
- `use ability` takes no filter (check refuses it): a printed ability is used once per player and
  landmark (I-R1), and a filter would let a second kind of tile use it again.

Here: the kernels (`first_touches`, `untouched_by`), the reaction (`react`, `touch`), the generated Python
engine's block (`python_source`) and the native engine's C (`c_prologue`, `c_place`, `c_source`, `c_mark`), and the
English (`english`). The check of a filter lives in check/checks.py (check sits below this layer).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import Emitter, Locals, c_int, literal
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import Ruleset, TouchRule
from rebirth_dsl.lang import ast as A
from rebirth_dsl.rules.kind import Kind, Placement, landmarks_next_to
from rebirth_dsl.rules.words import Words

if TYPE_CHECKING:
    from typing import Any, TypeGuard

    from rebirth_dsl.rules.kind import CContext, PyGen
    from rebirth_dsl.rules.view import GameView


# ----- kernels --------------------------------------------------------------------------------------
def first_touches(adj: Sequence[int], touched: Collection[int]) -> tuple[int, ...]:
    """The landmarks next to the hex (adj) the player has not touched yet: those the placement touches first."""
    return tuple(lm for lm in adj if lm not in touched)


def mark(touched: set[int], first: Sequence[int]) -> None:
    """After every reaction: the landmarks the placement touched first are touched now."""
    touched.update(first)


def untouched_by(near: Sequence[int], owner: Sequence[int], tkind: Sequence[int], p: int, h: int,
                 by: Collection[int]) -> bool:
    """Whether no tile of p of a kind in `by` stands next to the landmark (near: the hexes next to it) on a
    hex other than h, the one just placed on: p's first touch of it among those kinds."""
    for m in near:
        if m != h and owner[m] == p and tkind[m] in by:
            return False
    return True


# ----- the reaction ---------------------------------------------------------------------------------
def react(g: GameView, r: TouchRule, at: Placement) -> None:
    """The statement's reaction to p's tile of `kind` on h (`at.first`: the landmarks it touches first)."""
    t = g.t
    p, kind, h, index, choices, first = at.p, at.kind, at.h, at.index, at.choices, at.first
    if r.by is None:
        for lm in first:
            if t.landmark_kind[lm] == r.kind:
                touch(g, lm, p, r, index, choices, h)
    elif kind in r.by:
        for lm in g.lm_adj[h]:
            if t.landmark_kind[lm] == r.kind and untouched_by(t.neighbours[t.landmark_hex[lm]], g.owner, g.tkind,
                                                               p, h, r.by):
                touch(g, lm, p, r, index, choices, h)


def touch(g: GameView, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any],
          h: int = -1) -> None:
    """A player's first tile next to a landmark (placed on h): use its ability, draw a card, or score."""
    name = g.t.landmark_name[lm]
    act = rule.action
    if isinstance(act, A.AbilityAction):
        g.use_ability(lm, p, rule, index, choices)
    elif isinstance(act, A.DrawAction):
        g.draw_card(p, act.deck, rule.ids, index, f"first touching {name}")
    elif isinstance(act, A.ScoreAction):
        assert rule.fn is not None
        pts = rule.fn(Ctx(g, p, h))
        g.event(index, p, pts, act.category, rule.ids, "{} first touches {}: {} = {}", g.players[p], name, rule.text,
                pts)
    else:
        raise TypeError(f"no touch reaction for {type(act).__name__}")


# ----- the generated Python engine (pyengine/fast.py) ----------------------------------------------
def kinds_source(var: str, kinds: Collection[int]) -> str:
    """Source testing whether the kind held in `var` is one of `kinds`."""
    ks = sorted(kinds)
    if len(ks) == 1:
        return f"{var} == {literal(ks[0])}"
    return f"{var} in {{{', '.join(literal(k) for k in ks)}}}"


def python_source(r: TouchRule, table: str, rule: str, draw_inline: bool, loc: Locals, placed_test: str = "True",
                  near: str = "LMRING") -> list[str]:
    """The statement in the placement body: `table[h]` the landmarks of its kind next to h, `rule` the bound
    name of the compiled statement, `draw_inline` whether a quiet draw takes the top card in place (the
    deck's empty rule scores nothing), `placed_test` source for whether the placed kind k passes the
    filter, `near` the table of the hexes next to each landmark. Locals of the body: g, p, k, h, owner,
    tkind, touched_by, decks, held, quiet (declared in `loc`); TOUCH and USE are this module's `touch` and the
    ability. Where `loc` declares `below` (the playout loop: per seat, its draw of an answer, or None when the
    game is not quiet or answered by another), an ability is used through QUICK, per landmark
    (runtime.abilities.quick_uses), when it is not None."""
    loc.require("g", "p", "k", "h", "owner", "tkind", "touched_by", "decks", "held", "quiet")
    if r.by is None:
        # marked touched after every reaction (mark): each statement sees the placement's first touches
        block = ["touched = touched_by[p]", f"for lm in {table}[h]:", "    if lm not in touched:"]
    else:
        if placed_test == "False":
            return []
        # untouched_by, inlined: no tile of p of the filter's kinds next to lm but the one just placed
        block = [f"for lm in {table}[h]:", f"    for m in {near}[lm]:",
                 f"        if m != h and owner[m] == p and {kinds_source('tkind[m]', r.by)}:", "            break",
                 "    else:"]
    act = r.action
    if isinstance(act, A.DrawAction) and draw_inline:
        # the reference's draw inlined for quiet games: the top card, or nothing from an empty deck
        block.extend([f"        dk = decks.get({literal(act.deck)})",
                      "        if quiet and dk:",
                      "            held[p].append(dk.pop(0))",
                      "        elif not quiet:",
                      f"            TOUCH(g, lm, p, {rule}, None, NOCHOICE, h)"])
    elif isinstance(act, A.AbilityAction):  # touch's dispatch decided here
        if "below" in loc:  # the playout answers the questions itself: the landmark's ability, decided once (QUICK)
            block.extend(["        if below:", "            QUICK[lm](g, p, below[p])", "        else:",
                          f"            USE(g, lm, p, {rule}, None, NOCHOICE)"])
        else:
            block.append(f"        USE(g, lm, p, {rule}, None, NOCHOICE)")
    else:
        block.append(f"        TOUCH(g, lm, p, {rule}, None, NOCHOICE, h)")
    if r.by is not None and placed_test != "True":
        block = [f"if {placed_test}:", *("    " + ln for ln in block)]
    return block


def python_tables(gen: PyGen, ri: int, r: TouchRule) -> None:
    """TOUCH{ri}: per hex, the landmarks of the statement's kind next to it; for a filter, LMRING (once):
    per landmark, the hexes next to it (untouched_by)."""
    t = gen.rs.t
    gen.table(f"TOUCH{ri}", tuple(tuple(lm for lm in landmarks_next_to(t, h) if t.landmark_kind[lm] == r.kind)
                                  for h in range(t.n)))
    if r.by is not None and "LMRING" not in gen.tables:
        gen.table("LMRING", tuple(tuple(int(m) for m in t.neighbours[x]) for x in t.landmark_hex))


def python_place(gen: PyGen, ri: int, r: TouchRule) -> None:
    """The statement in the placement body (python_source), not written where h is next to no landmark of
    its kind; a quiet draw is taken in place unless the deck's empty rule scores."""
    name = f"TOUCH{ri}"
    if not gen.loop_over(name):
        return
    empty = gen.rs.empty_decks.get(r.action.deck) if isinstance(r.action, A.DrawAction) else None
    block = python_source(r, name, gen.closure(f"RULE{ri}", r), empty is None or empty.fn is None, gen.locals,
                          gen.kind_in(r.by))
    if block:
        gen.guarded(name, block)


def python_mark(adj: str, loc: Locals) -> str:
    """The body's last line: every landmark next to h (adj) is touched now (mark)."""
    loc.require("p", "touched_by")
    return f"touched_by[p].update({adj})"


# ----- the native engine (native/cgen.py) -----------------------------------------------------------
C_FIRST = ("first", "nfirst")  # the locals c_prologue declares in place(): the landmarks touched first


def c_prologue(loc: Locals) -> list[str]:
    """place()'s first touches, found before any reaction (first_touches): `first[nfirst]` (C_FIRST)."""
    loc.require("s", "p", "h")
    # bit sets over the landmarks (cgen.py's LMADJM: the landmarks next to each hex): `first` is those next to
    # h that p has not touched, `nfirst` whether there is any
    return ["u64 first[NLW]; int nfirst = 0;",
            "for (int w = 0; w < NLW; w++) { first[w] = LMADJM[h][w] & ~s->touched[p][w]; nfirst |= first[w] != 0; }",
            "(void)first; (void)nfirst;"]


def c_source(r: TouchRule, do: str, kind: str, by_mask: str, loc: Locals) -> list[str]:
    """The statement in place(): `do` the action's C for landmark lm, `kind` the landmark kind's id,
    `by_mask` the filter's tile kinds as a bit mask (LMRING: the hexes next to each landmark)."""
    if r.by is None:
        loc.require(*C_FIRST)
        if kind == "-1":  # a landmark kind the board does not have: never touched
            return []
        # the first touches of this kind (LMKINDM: the landmarks of each kind), in landmark order as first_touches
        return [f"if (nfirst) for (int w = 0; w < NLW; w++) for (u64 b = first[w] & LMKINDM[{kind}][w]; b; b &= b - 1) {{",
                f"    int lm = w * 64 + __builtin_ctzll(b); {do}",
                "}"]
    # untouched_by: no tile of p of the filter's kinds next to lm but the one on h (owner p: a tile, tkind >= 0)
    loc.require("s", "p", "k", "h")
    return [f"if ((({by_mask}) >> k) & 1) for (int i = LMADJ_OFF[h]; i < LMADJ_OFF[h + 1]; i++) {{",
            f"    int lm = LMADJ[i], seen = 0; if (LM_KIND[lm] != {kind}) continue;",
            "    for (int j = LMRING_OFF[lm]; j < LMRING_OFF[lm + 1] && !seen; j++) {",
            "        int m = LMRING[j];",
            f"        seen = m != h && OWNER(s, m) == p && ((({by_mask}) >> TKIND(s, m)) & 1);",
            "    }",
            f"    if (!seen) {{ {do} }}",
            "}"]


def c_place(gen: CContext, e: Emitter, ri: int, r: TouchRule) -> None:
    """`react` in place(): `touch`'s action (an ability, a draw, a score) for each landmark touched first
    (c_source)."""
    e.locals.require("s", "p", "h")
    t = gen.t
    act = r.action
    if isinstance(act, A.AbilityAction):
        do = "use_ability(s, lm, p);"
    elif isinstance(act, A.DrawAction):
        do = f"{gen.draw(act.deck)}(s, p);"
    elif isinstance(act, A.ScoreAction):
        f = gen.expr(act.expr, f"the first-touch score `{act.category}`")
        do = f"add(s, p, {gen.category(act.category)}, {f}(s, p, h, 0));"
    else:
        gen.problems.append(f"the first-touch action {type(act).__name__}")
        do = ""
    kind = c_int(t.landmark_kinds.index(r.kind)) if r.kind in t.landmark_kinds else "-1"
    e.extend(c_source(r, do, kind, gen.kinds_mask(r.by), e.locals))


def c_mark(loc: Locals) -> list[str]:
    """place()'s last line: the first touches are touched now (mark)."""
    loc.require("s", "p", *C_FIRST)
    return ["if (nfirst) for (int w = 0; w < NLW; w++) s->touched[p][w] |= first[w];"]


BY_DOC = ("`on first touch KIND by TILES: ACTION`: the action happens when you place a tile of one of TILES next "
          "to a KIND none of your TILES tiles touched before; your other tiles there do not count (a food next to "
          "the well earlier does not spend the first settlement's touch).")


# ----- English --------------------------------------------------------------------------------------
def english(ev: A.TouchEvent, act: A.Action, ids: tuple[str, ...], show: Callable[[A.Expr], str]) -> Words:
    """`on first touch KIND [by TILES]: ACTION` in English (`show`: an expression's words)."""
    match act:
        case A.DrawAction(deck=d):
            does = f"draw the top {d} card"
        case A.ScoreAction(expr=e, category=c):
            does = f"score {show(e)} ({c})"
        case _:
            does = "use its ability once"
    if not ev.by:
        return Words(f"The first time you place next to a {ev.kind}, you {does}.", ids)
    kinds = " or ".join(n.id for n in ev.by)
    article = "an" if kinds[:1].lower() in "aeiou" else "a"
    return Words(f"The first time you place {article} {kinds} next to a {ev.kind} (counting only your {kinds} "
                    f"tiles there), you {does}.", ids)


def uses_ability(r: TouchRule) -> TypeGuard[TouchRule]:
    """Whether the statement uses the touched landmark's ability (I-R1)."""
    return isinstance(r.action, A.AbilityAction)


def draws_without_first_touch(r: TouchRule) -> bool:
    """Whether the statement may act (and so draw) on a landmark the placer touched before: a filtered one
    does, on the first tile of its kinds there (untouched_by)."""
    return r.by is not None


# What an ability does (I-R1): it scores, takes a set-aside tile, draws tiles or a card, or places a doubling
# marker; none changes a landmark's holder or wins an area.
_STILL_EFFECTS = (A.ScoreEffect, A.TakeAsideEffect, A.DrawKeepEffect, A.DrawCardEffect, A.DoubleEffect)


def may_move_or_win(r: TouchRule, rs: Ruleset, h: int) -> bool:
    """Whether the statement may change a landmark's holder or win an area: it draws or scores, or uses an
    ability, none of whose effects does (an effect not known here: it may)."""
    return not all(isinstance(ab.effect, _STILL_EFFECTS) for ab in rs.abilities.values())


# ----- what the engines ask of the rule (rules/table.py) -------------------------------------------
KIND = Kind(
    name="first touch",
    react=react,
    python_tables=python_tables,
    python_place=python_place,
    uses_ability=uses_ability,
    draws_without_first_touch=draws_without_first_touch,
    c_place=c_place,
    moves_holder=may_move_or_win,
    wins_area=may_move_or_win,
)
