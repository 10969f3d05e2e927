"""Reading mission cards: the public missions (I-M1) and the private ones scored at the end (S-M2, S-E3).

I-M1: after every placement each player, the placer first then clockwise (or every player in seat order),
is checked against every face-up card they have not fulfilled; the first to fulfil a card scores its big
number, each later one its small number, once each, times a doubling marker on it (I-R1). S-M2/S-E3: a
private card pays its points at the end when fulfilled, nothing otherwise.

`seats`, `payout`, `ahead` and `held_points` are the decisions; `pay` records a fulfilment and `check` is
the rule itself, as the reference engine runs it. The incremental check of the generated engine
(accel/public.py, a speed device proven equal to `check` by tests/test_public_reads.py) decides when to
read a card and pays through `pay`; the immediate-points reader (play/points.py) counts with `ahead` and
`payout`; the native engine's text is `C_PAY`, `c_seat`, `c_check`, `c_place` and `c_held_points` below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import Emitter, Locals, c_int
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.lang.ids import join_ids
from rebirth_dsl.rules.kind import Kind, Placement, never_at

if TYPE_CHECKING:
    from rebirth_dsl.compile.ruleset import PublicRule
    from rebirth_dsl.rules.kind import CContext, PyGen
    from rebirth_dsl.rules.view import GameView


def seats(p: int, n: int, placer_first: bool) -> list[int]:
    """The order the players are checked in after p's placement: p first then clockwise, or seat order."""
    return [*range(p, n), *range(p)] if placer_first else list(range(n))


def payout(points: int, small: int | None, before: int, factor: int = 1) -> int:
    """What a face-up card pays a fulfiller with `before` players ahead of them: the big number to the first,
    the small one (none: nothing) to each later one, times their doubling marker's factor."""
    return (points if before == 0 else (small or 0)) * factor


def ahead(p: int, done: Sequence[int], fulfils: Callable[[int], bool], n: int, placer_first: bool) -> int:
    """How many fulfil a card before p when p fulfils it in this check: those who did earlier (`done`) and
    those checked before p now (only in seat order: the placer is checked first) who fulfil it."""
    before = len(done)
    for q in seats(p, n, placer_first):
        if q == p:
            break
        if q not in done and fulfils(q):
            before += 1
    return before


def held_points(points: int, fulfilled: bool) -> int:
    """What a private card pays at the end (S-M2, S-E3): its points when fulfilled, else nothing."""
    return points if fulfilled else 0


def pay(g: GameView, q: int, name: str, r: PublicRule, index: int | None) -> None:
    """q fulfils the face-up card `name` now: it pays (`payout`) and q joins its fulfillers, in order."""
    done = g.public_by[name]
    card = g.cards[name]
    factor = g.doubled[q].get(name, 1)
    pts = payout(card.points, card.small, len(done), factor)
    done.append(q)
    if g.quiet:  # the points alone: the event's ids and words are made only where they are kept
        g.event(index, q, pts, r.category, (), "")
    else:
        g.event(index, q, pts, r.category, join_ids(r.ids, card.ids), "{} fulfils public mission {!r} {}: {}{}",
                g.players[q], name, ordinal(len(done)), pts, " (doubled)" if name in g.doubled[q] else "")


def check(g: GameView, p: int, r: PublicRule, index: int | None) -> None:
    """I-M1 after p's placement: each player in the rule's order against every face-up card they have not
    fulfilled, in face-up order; each card fulfilled now pays."""
    if not g.public:
        return
    g.memo = {}  # the position is fixed while the cards are read: groups found once
    try:
        for q in seats(p, g.n_players, r.placer_first):
            ctx = Ctx(g, q)
            for name in g.public:
                if q not in g.public_by[name] and g.cards[name].cond(ctx):
                    pay(g, q, name, r, index)
    finally:
        g.memo = None


def react(g: GameView, r: PublicRule, at: Placement) -> None:
    """I-M1 after p's placement: `check`, or the reader the layer that plays the game put in its place (the
    incremental check of accel/public.py, proven equal to it by tests/engines/test_public_reads.py)."""
    (g.public_reader or _check)(g, at.p, r, at.index, at.h)


def _check(g: GameView, p: int, r: PublicRule, index: int | None, h: int = -1) -> None:
    check(g, p, r, index)


def ordinal(n: int) -> str:
    """`first`, `second`, `third`, `4th`: the place of a fulfiller in the event's words."""
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


# ----- the native engine (native/cgen.py, native/ctext.py) ------------------------------------------
# `pay` in the native engine: pub_cnt is len(done), the factor the seat's marker's
C_PAY = """\
/* seat q fulfils face-up card c: big points if first, else small, times its doubling marker */
static void pub_pay(S *s, int c, int q, int cat) {
    i64 pts = (s->pub_cnt[c] ? CARD_SMALL[c] : CARD_POINTS[c]) * DBL_F(s, q, c);
    s->pub_done[c][q] = 1; s->pub_order[c][s->pub_cnt[c]++] = q;
    s->plive[q][c >> 6] &= ~(1ULL << (c & 63));
    add(s, q, cat, pts);
}
"""


def c_seat(loc: Locals) -> str:
    """`seats` in C: the seat checked at `step` (0 .. n - 1) after p's placement."""
    loc.require("s", "p", "step", "placer_first")
    return "placer_first ? (p + step) % s->n : step"


def c_check() -> str:
    """`check` in C as public_missions(s, p, placer_first, cat), the reference the incremental reader of
    native/cgen.py is tested against: `seats`, then every face-up card not done, in face-up order."""
    e = Emitter()
    e.declare("s", "p", "placer_first", "cat")
    with e.block("static void public_missions(S *s, int p, int placer_first, int cat) {", "}"):
        e.line("if (!s->npub) return;")
        with e.block("for (int step = 0; step < s->n; step++) {", "}"):
            e.declare("step")
            e.line(f"int q = {c_seat(e.locals)};")
            with e.block("for (int i = 0; i < s->npub; i++) {", "}"):
                e.line("int c = s->pub[i];")
                e.line("if (s->pub_done[c][q] || !card_cond(s, c, q)) continue;")
                e.line("pub_pay(s, c, q, cat);")
    return "\n".join(e.lines)


def c_place(gen: CContext, e: Emitter, ri: int, r: PublicRule) -> None:
    """`react` in place(): the check of every seat against the face-up cards (public_missions)."""
    e.locals.require("s", "p")
    e.line(f"public_missions(s, p, {c_int(int(r.placer_first))}, {gen.category(r.category)});")


# ----- the generated Python engine (pyengine/fast.py) ----------------------------------------------
def python_place(gen: PyGen, ri: int, r: PublicRule) -> None:
    """`react` in the placement body: the incremental check written out where the generator has it (the
    usual case, where the tile's kind is known: gen.public_source), else the check called (PUBLIC)."""
    rule = gen.closure(f"RULE{ri}", r)
    gen.extend(gen.public_source(rule, r.placer_first) or [f"PUBLIC(g, p, {rule}, None, h)"])


def python_loop_locals(gen: PyGen, r: PublicRule) -> list[str]:
    """What the written-out check reads, bound once per game in the playout loop."""
    return gen.public_locals


def python_held_points(points: str, fulfilled: str) -> str:
    """`held_points` as a source expression for the generated end scoring (accel/fast_end.py)."""
    return f"{points} if {fulfilled} else 0"


def c_held_points(loc: Locals) -> str:
    """`held_points` in the native engine's end scoring (native/cgen.py), for seat q's held card c."""
    loc.require("s", "c", "q")
    return "card_cond(s, c, q) ? CARD_POINTS[c] : 0"


# ----- what the engines ask of the rule (rules/table.py) -------------------------------------------
KIND = Kind(
    name="public missions",
    react=react,
    python_place=python_place,
    python_loop_locals=python_loop_locals,
    c_place=c_place,
    reads_public=True,
    moves_holder=never_at,  # it pays the cards met: no landmark, no area
    wins_area=never_at,
)
