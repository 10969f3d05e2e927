"""Majorities (S-K1..S-K5): a landmark held by whoever has most tiles around it, challenged by every tile
placed next to it.

Here is everything about the rule: the kernel (`count`: what a tile adds to the counts around a landmark;
`challenge`: who holds the landmark after a placement, and which step of the rule decided it), the
reference reaction (`react`: the kernel and the events it tells), the Python lines the generated engine
runs (`python_count`, `python_challenge`), the C text of the native engine (`c_challenge`, `c_count`,
`c_place`) and
the English (`english`). The generated Python writes the kernel out inline in the playout loop's locals
because a benchmark says so: calling `challenge` there instead costs 6% more per random game (callgrind,
3-player Scotland playouts: 1.41M instructions a game against 1.33M). tests/rules/test_majority.py holds
the inline form to the kernel, tests/test_fast.py and tests/test_native.py the engines to the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import Emitter, Locals, c_int
from rebirth_dsl.errors import Span
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.ids import join_ids
from rebirth_dsl.rules.kind import Kind, Placement, landmarks_next_to, never_at
from rebirth_dsl.rules.words import Words

if TYPE_CHECKING:
    from rebirth_dsl.compile.ruleset import MajorityRule, Ruleset
    from rebirth_dsl.rules.kind import CContext, PyGen
    from rebirth_dsl.rules.view import GameView

# The steps of the rule that can decide a challenge (`challenge`'s second value): a metric's index for the
# comparison by that metric (S-K3, S-K4), or one of these.
HELD = -2  # the placer already holds the landmark: nothing to decide
UNOWNED = -1  # nobody held it: the placer takes it (S-K2)


# The final tie (S-K5) is step number `metrics` (the number of comparisons), after the last comparison.


def step_key(step: int, metrics: int) -> str:
    """The key of a step in `MajorityRule.step_ids` (the rule ids its event cites), of a rule comparing
    `metrics` counts."""
    if step == UNOWNED:
        return "unowned"
    return "final" if step == metrics else f"compare.{step}"


# ----- the kernel -----------------------------------------------------------------------------------
def count(counts: list[list[int]], metrics: Sequence[frozenset[int] | None], p: int, kind: int) -> None:
    """Count p's tile of `kind` next to a landmark in each metric that counts that kind (None: every kind;
    S-K3 counts all tiles, S-K4 farms only); counts[metric][seat]."""
    for mi, kinds in enumerate(metrics):
        if kinds is None or kind in kinds:
            counts[mi][p] += 1


def challenge(counts: Sequence[Sequence[int]], owner: int, placer: int, placer_takes_tie: bool,
              added: Sequence[int] = ()) -> tuple[int, int]:
    """Who holds the landmark after the placer's tile next to it, and the step that decided it: HELD (the
    placer holds it already), UNOWNED (S-K2: the placer takes it), a metric's index (S-K3, S-K4: the first
    count on which placer and holder differ; more takes it), or the number of metrics (S-K5: tied on every
    count, the holder keeps it unless the rule gives the tie to the placer). counts[metric][seat] include the tile;
    `added` (per metric) is what the tile adds to the placer's counts when `counts` do not include it yet."""
    if owner == placer:
        return owner, HELD
    if owner < 0:
        return placer, UNOWNED
    for mi, c in enumerate(counts):
        mine = c[placer] + added[mi] if added else c[placer]
        theirs = c[owner]
        if mine != theirs:
            return (placer if mine > theirs else owner), mi
    return (placer if placer_takes_tie else owner), len(counts)


def added(metrics: Sequence[frozenset[int] | None], kind: int) -> tuple[int, ...]:
    """What a tile of `kind` adds to each metric's count (1 where the metric counts the kind, else 0)."""
    return tuple(1 if kinds is None or kind in kinds else 0 for kinds in metrics)


# ----- the reference reaction -----------------------------------------------------------------------
def react(g: GameView, rule: MajorityRule, at: Placement) -> None:
    """S-K1: p's tile on h challenges the holder of every landmark of this rule next to h (`challenge`), and
    an event says how each challenge went."""
    p, index = at.p, at.index
    for lm in g.lm_adj[at.h]:
        if g.metric_of.get(lm) is not rule:
            continue
        owner = g.lm_owner[lm]
        counts = g.lm_count[lm]
        new, step = challenge(counts, owner, p, rule.placer_takes_tie)
        if step == HELD:
            continue
        name = g.t.landmark_name[lm]
        who = g.players
        ids = join_ids(rule.step_ids.get("over", ()), rule.step_ids.get(step_key(step, len(counts)), ()))
        g.lm_owner[lm] = new
        if step == UNOWNED:
            g.event(index, p, 0, rule.category, ids, "{} had no owner: {} takes it", name, who[p])
        elif step == len(counts):  # the final tie
            if new == p:
                g.event(index, p, 0, rule.category, ids, "{}: tied on every count: the placer {} takes it", name,
                        who[p])
            else:
                g.event(index, p, 0, rule.category, ids, "{}: tied on every count: {} keeps it", name, who[owner])
        else:
            mine, theirs = counts[step][p], counts[step][owner]
            what = "tiles" if rule.metrics[step] is None else f"{rule.metric_names[step]} tiles"
            if new == p:
                g.event(index, p, 0, rule.category, ids, "{}: {} has {} adjacent {} to {}'s {}: takes it", name,
                        who[p], mine, what, who[owner], theirs)
            else:
                g.event(index, p, 0, rule.category, ids, "{}: {} has {} adjacent {} to {}'s {}: {} keeps it", name,
                        who[p], mine, what, who[owner], theirs, who[owner])


# ----- the generated Python engine (pyengine/fast.py) ------------------------------------------------
# `count` and `challenge` written out inline over the placement's locals (p, k, h, lm_count, lm_owner), as
# the benchmark in the module text says: tests/rules/test_majority.py holds the inline challenge to the
# kernel on every small count, tests/test_fast.py the engine to the reference on every bundled ruleset.
def python_count(metrics: Sequence[frozenset[int] | None], kind_in: Callable[[frozenset[int] | None], str]
                 ) -> list[str]:
    """`count` for p's tile of kind k into `c` (the counts of one landmark); kind_in(kinds) is the test
    that k is of these kinds, "True"/"False" where the generator knows it."""
    lines = []
    for mi, kinds in enumerate(metrics):
        test = kind_in(kinds)
        if test == "True":
            lines.append(f"c[{mi}][p] += 1")
        elif test != "False":
            lines.extend([f"if {test}:", f"    c[{mi}][p] += 1"])
    return lines


def python_count_at(table: str, count_lines: list[str], loc: Locals) -> list[str]:
    """python_count's lines for every landmark of the rule next to h (`table`: the per-hex tuple of them)."""
    loc.require("p", "k", "h", "lm_count")
    return [f"for lm in {table}[h]:", "    c = lm_count[lm]", *("    " + ln for ln in count_lines)]


def python_challenge(rule: MajorityRule, table: str, count_lines: list[str] | None, loc: Locals) -> list[str]:
    """`challenge` for every landmark of the rule next to h (`table`: the per-hex tuple of them), setting
    lm_owner; with count_lines (python_count's), the tile is counted in the same loop first."""
    loc.require("p", "h", "lm_count", "lm_owner")
    if count_lines is not None:
        block = [*python_count_at(table, count_lines, loc), "    o = lm_owner[lm]", "    if o == p:", "        continue",
                 "    if o < 0:", "        lm_owner[lm] = p", "        continue"]
    else:
        block = [f"for lm in {table}[h]:", "    o = lm_owner[lm]", "    if o == p:", "        continue",
                 "    if o < 0:", "        lm_owner[lm] = p", "        continue", "    c = lm_count[lm]"]
    ind = "    "
    for mi in range(len(rule.metrics)):
        block.extend([f"{ind}x = c[{mi}][p]", f"{ind}y = c[{mi}][o]", f"{ind}if x > y:", f"{ind}    lm_owner[lm] = p"])
        if mi + 1 < len(rule.metrics) or rule.placer_takes_tie:  # a tie goes on to the next metric, or to the placer
            block.append(f"{ind}elif x == y:")
            ind += "    "
    if rule.placer_takes_tie:
        block.append(f"{ind}lm_owner[lm] = p")
    return block


def python_tables(gen: PyGen, ri: int, rule: MajorityRule) -> None:
    """MAJ{ri}: per hex, the landmarks of the rule next to it."""
    t = gen.rs.t
    mine = set(rule.landmarks)
    gen.table(f"MAJ{ri}", tuple(tuple(lm for lm in landmarks_next_to(t, h) if lm in mine) for h in range(t.n)))


def counted(rule: MajorityRule) -> frozenset[int]:
    """The landmarks whose tile counts the rule compares."""
    return frozenset(rule.landmarks)


def moves_holder(rule: MajorityRule, rs: Ruleset, h: int) -> bool:
    """A placement on h challenges the holders of the rule's landmarks next to h (react), no other."""
    return any(lm in rule.landmarks for lm in landmarks_next_to(rs.t, h))


def python_count_first(gen: PyGen, ri: int, rule: MajorityRule) -> None:
    """`count` for every landmark of the rule next to h, before any reaction (placement.occupy)."""
    name = f"MAJ{ri}"
    if gen.loop_over(name):
        gen.guarded(name, python_count_at(name, python_count(rule.metrics, gen.kind_in), gen.locals))


def python_place(gen: PyGen, ri: int, rule: MajorityRule) -> None:
    """`challenge` for every landmark of the rule next to h; where the generator fuses it (gen.fused), the
    tile is counted in the same loop first."""
    name = f"MAJ{ri}"
    if not gen.loop_over(name):
        return
    fused = python_count(rule.metrics, gen.kind_in) if ri in gen.fused else None
    gen.guarded(name, python_challenge(rule, name, fused, gen.locals))


# ----- the native engine (native/cgen.py, native/ctext.py) ------------------------------------------
# Both count and challenge in C, over the state S of native/ctext.py: LM_MET[lm][mi] is the mask of tile
# kinds metric mi of lm's majority counts, LM_NMET[lm] its number of metrics (tables cgen.py writes).
def c_count() -> str:
    """`count` in C as count_majority(s, lm, p, k): p's tile of kind k next to landmark lm (c_place and
    ctext.py's rebuild call it)."""
    e = Emitter()
    with e.block("static inline void count_majority(S *s, int lm, int p, int k) {", "}"):
        # over every metric slot, adding 0 or 1 without a branch: a landmark's unused slots are masks of no kind
        e.line("for (int mi = 0; mi < NM; mi++) s->lm_count[lm][mi][p] += (LM_MET[lm][mi] >> k) & 1;")
    return "\n".join(e.lines)


def c_challenge(ri: str, rule: MajorityRule, st: str, tell_taken: bool = False) -> str:
    """`challenge` in C as `challenge{ri}(s, lm, p)`: sets the holder and counts claims (S-K2) and changes
    of hands (S-K3..S-K5) per seat in slot `st`; `tell_taken`: the incremental reader of the face-up cards
    is told when the landmark changes hands (pub_landmark). `ri` and `st` are C integer text (cexpr.c_int)."""
    take = "s->lm_owner[lm] = p;" + (" pub_landmark(s, lm, o, p);" if tell_taken else "")
    e = Emitter()
    with e.block(f"static inline void challenge{ri}(S *s, int lm, int p) {{", "}"):
        e.line("int o = s->lm_owner[lm];")
        e.line("if (o == p) return;")
        e.line(f"if (o < 0) {{ {take} s->claims[{st}][p]++; return; }}")
        with e.block(f"for (int mi = 0; mi < {len(rule.metrics):d}; mi++) {{", "}"):
            e.line("int x = s->lm_count[lm][mi][p], y = s->lm_count[lm][mi][o];")
            e.line("if (x == y) continue;")
            e.line(f"if (x > y) {{ {take} s->changes[{st}][p]++; }}")
            e.line("return;")
        if rule.placer_takes_tie:
            e.line(f"{take} s->changes[{st}][p]++;")
    return "\n".join(e.lines)


def c_place(gen: CContext, e: Emitter, ri: int, rule: MajorityRule) -> None:
    """`react` in place(): p's tile on h challenges the holder of every landmark of this rule next to h
    (MAJ{ri}: those landmarks per hex, a bit set walked in their order), through `challenge{ri}`
    (c_challenge; the claims and changes of hands counted in the rule's slot among the ruleset's
    majorities). The tile is counted next to each (`count`, c_count) in the same loop, just before its
    challenge, as the generated Python fuses them: in C nothing but the challenges reads the counts, and
    each landmark is this rule's or another's (Static.metric_of), so every count is made once, before it is
    read (ctext.py occupy leaves them here)."""
    e.locals.require("s", "p", "h", "k")
    mine = set(rule.landmarks)
    table = gen.landmark_sets(f"MAJ{ri}", [[lm for lm in gen.lm_adj[h] if lm in mine and gen.metric_of.get(lm) is rule]
                                           for h in range(gen.t.n)])
    slot = c_int(next(i for i, m in enumerate(gen.rs.majorities) if m is rule))
    gen.function(c_challenge(c_int(ri), rule, slot, gen.incremental))
    with e.block(f"for (int w = 0; w < NLW; w++) for (u64 b = {table}[h][w]; b; b &= b - 1) {{", "}"):
        e.line("int lm = w * 64 + __builtin_ctzll(b);")
        e.line("count_majority(s, lm, p, k);")
        e.line(f"challenge{c_int(ri)}(s, lm, p);")


# ----- English (present/describe.py) ----------------------------------------------------------------
def english(block: A.MajorityBlock, cite: Callable[[Span], tuple[str, ...]]) -> list[Words]:
    """The majority block in English: its heading, then one line per item, each with the ids it cites."""
    kind = block.kind
    out = [Words(f"A {kind} is held by majority over its neighbouring hexes:", cite(block.span))]
    for it in block.items:
        match it:
            case A.UnownedTakes():
                out.append(Words(f"placing next to an unheld {kind} takes it", cite(it.span), 1))
            case A.Compare():
                ms = ", then ".join("all tiles" if m == "any" else f"{m} tiles" for m in it.metrics)
                out.append(Words(f"otherwise the placer is compared with the holder by {ms}: more takes it",
                                 cite(it.span), 1))
            case A.FinalTie():
                out.append(Words(f"still tied: the {'placer takes it' if it.placer_takes else 'holder keeps it'}",
                                 cite(it.span), 1))
    return out


# ----- what the engines ask of the rule (rules/table.py) -------------------------------------------
KIND = Kind(
    name="majority",
    react=react,
    python_tables=python_tables,
    python_place=python_place,
    counted=counted,
    python_count=python_count_first,
    c_place=c_place,
    moves_holder=moves_holder,
    wins_area=never_at,
)
