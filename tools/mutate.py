"""Mutation score of the test suite: plant one small bug at a time and see whether a test notices.

Each mutant is (file, exact old text, new text, description). The tree is copied once to a temporary
folder (without .venv, .git and caches; /work/main itself is never changed), the copy's tests are run
unmutated first (the baseline must pass), then for every mutant the one file is rewritten in the copy,
the tests other than the golden files run with `-x` and a time limit, and the file is put back.

    python tools/mutate.py                     # every mutant, one at a time (about 40 minutes on one core)
    python tools/mutate.py --list              # the mutants
    python tools/mutate.py --check             # each old text occurs exactly once; each mutant still compiles
    python tools/mutate.py --only merge-first-group,neutral-31
    python tools/mutate.py --jobs 2 --json mutation.json --golden

A mutant is *killed* when a test fails (the first failing test is reported), *timeout* when the run
exceeds --timeout (counted as killed: an endless loop is noticed), *survived* when every test passes.
A mutant whose old text no longer occurs exactly once (the code moved on) is *stale* and not counted:
--check lists them so the table below can be updated. With --golden, survivors are run once more
against the golden files only, to show what only a golden file would have caught.

The tests run with a fixed hypothesis seed (`--hypothesis-seed=0`) so a score is reproducible.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_TESTS = ("tests/surfaces/test_cli.py::test_eval_json_golden",)
# Test files in the order they run: cheap files that kill many mutants first, so that a killed mutant
# costs seconds; every other test file (tests/*/test_*.py) follows, and the slow packaging test comes last.
FIRST = ("test_positions.py", "test_missions.py", "test_rule_details.py", "test_golden_pairs.py", "test_engine_oracle.py",
         "test_fast.py", "test_differential.py", "test_properties.py", "test_variants.py", "test_rules.py", "test_oracle.py")
LAST = ("test_hardening.py", "test_wheel.py")
IGNORE = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".hypothesis", ".pytest_cache", ".ruff_cache",
                                "build", "dist", "*.egg-info", "tmp", ".mutation*")


@dataclass(frozen=True)
class Mutant:
    """One planted bug: in `file`, the text `old` (occurring exactly once) becomes `new`."""

    name: str
    file: str
    old: str
    new: str
    what: str
    planted: bool = False  # one of the bugs issue 10 names (planted by hand, or listed as wanted)


R, F, C = "rebirth_dsl/runtime/", "rebirth_dsl/pyengine/fast.py", "rebirth_dsl/compile/"
MUTANTS: tuple[Mutant, ...] = (
    # ----- placement.py: legality, groups, areas, majority counts --------------------------------
    Mutant("merge-first-group", R + "placement.py",
           "                    gsize[root] += gsize[rm]\n",
           "                    gsize[root] += gsize[rm]\n                    break\n",
           "a placed farm merges with only the first neighbouring group (S-F1)", planted=True),
    Mutant("group-mixes-kinds", R + "placement.py",
           "            if owner[m] == p and tkind[m] == kind:\n",
           "            if owner[m] == p:\n",
           "union-find joins food and energy of one owner (S-F1)"),
    Mutant("fallback-always-legal", R + "placement.py",
           "    out = [h for k in g.rs.primary.get(kind, ()) for h in free.get(k, ())]\n",
           "    out = [h for k in (*g.rs.primary.get(kind, ()), *g.rs.fallback.get(kind, ())) for h in free.get(k, ())]\n",
           "fallback hexes are legal while a primary hex is free (S-P3)"),
    Mutant("fallback-never", R + "placement.py",
           "    out = [h for k in g.rs.fallback.get(kind, ()) for h in free.get(k, ())]\n",
           "    out = []\n",
           "no fallback hexes: the tile is passed instead (S-P3)"),
    Mutant("fallback-not-refused", R + "placement.py",
           "        if free_primary:\n",
           "        if False:\n",
           "a fallback placement is accepted while a primary hex is free (S-P3)"),
    Mutant("influence-counts-tiles", R + "placement.py",
           "            g.area_inf[a][p] += value\n",
           "            g.area_inf[a][p] += 1\n",
           "influence is the number of tiles, not their icons (S-A1)"),
    Mutant("majority-metric-inverted", R + "placement.py",
           "                    if kinds is None or kind in kinds:\n",
           "                    if kinds is None or kind not in kinds:\n",
           "the farm count of a castle counts the non-farms (S-K4)"),
    # ----- game.py: setup, turns, passes, groups ------------------------------------------------
    Mutant("neutral-31", R + "game.py",
           "[: neutral.count]", "[: neutral.count - 1]",
           "two players: 31 neutral tiles instead of 32 (S-U2)", planted=True),
    Mutant("turn-counterclockwise", R + "game.py",
           "            q = (self.turn + step) % n\n", "            q = (self.turn - step) % n\n",
           "the turn passes counter-clockwise (S-T1)"),
    Mutant("pass-while-legal", R + "game.py",
           "            if legal:\n                q, r = self.t.coords[legal[0]]\n",
           "            if False:\n                q, r = self.t.coords[legal[0]]\n",
           "a tile may be passed while a hex is legal (S-P5)"),
    Mutant("neutral-hex-free", R + "placement.py",
           "    if g.owner[h] != EMPTY:\n", "    if g.owner[h] >= 0:\n",
           "a tile may go on a hex under a neutral tile (S-U2, S-P1)"),
    Mutant("group-of-mixes-kinds", R + "game.py",
           "                if m not in seen and self.owner[m] == p and self.tkind[m] == k:\n",
           "                if m not in seen and self.owner[m] == p:\n",
           "group(placed) joins food and energy (S-F1 in the reference engine)"),
    Mutant("public-seven", R + "game.py",
           "deck[: rs.public.count], deck[rs.public.count:]", "deck[: rs.public.count - 1], deck[rs.public.count:]",
           "Ireland: 7 public missions face up instead of 8 (I-M1)"),
    Mutant("groups-of-one-root", R + "game.py",
           "                buckets.setdefault(find(h), []).append(h)\n",
           "                buckets.setdefault(h, []).append(h)\n",
           "groups() reports every tile as its own group (mission cards, S-M3)"),
    # ----- reactions.py: areas, majorities, first touches, public missions ------------------------
    Mutant("zero-influence-ranks", R + "reactions.py",
           "    ranked = [q for q in range(n) if inf[q] > 0]\n", "    ranked = [q for q in range(n) if inf[q] >= 0]\n",
           "players with no influence rank in an area (S-A1)"),
    Mutant("rank-lowest-first", R + "reactions.py",
           "key=lambda q: [-inf[q]] +", "key=lambda q: [inf[q]] +",
           "the area ranking puts the least influence first (S-A2)"),
    Mutant("tie-steps-ignored", R + "reactions.py",
           "key=lambda q: [-inf[q]] + [s.key(q, completer, n) for s in steps])",
           "key=lambda q: [-inf[q]])",
           "area ties are broken by seat order instead of the rules' chain (S-A2)"),
    Mutant("payout-off-by-one", R + "reactions.py",
           "            pts = table[place](ctx) if place < len(table) else 0\n",
           "            pts = table[place + 1](ctx) if place + 1 < len(table) else 0\n",
           "each place is paid the next place's payout (S-A3)", planted=True),
    Mutant("alone-ignored", R + "reactions.py",
           "    alone = len(order) == 1 and bool(rule.alone)\n", "    alone = False\n",
           "a lone player takes only first place (S-A3 alone)"),
    Mutant("pay-by-players-ignored", R + "reactions.py",
           "    key = (size, g.n_players) if (size, g.n_players) in rule.pay else (size, None)\n",
           "    key = (size, None)\n",
           "Ireland: the 2-player 17 / 8 payout is never used (I-A1)"),
    Mutant("area-scored-early", R + "reactions.py",
           "        if a >= 0 and g.area_free[a] == 0 and not g.area_done[a]",
           "        if a >= 0 and g.area_free[a] <= 1 and not g.area_done[a]",
           "an area is scored when one hex is still free (S-A1)"),
    Mutant("majority-skip-farms", R + "reactions.py",
           "        if mine == theirs:\n            continue\n", "        if mine == theirs:\n            break\n",
           "a count tie goes straight to the final tie; farms are never compared (S-K4)"),
    Mutant("majority-ge", R + "reactions.py",
           "        if mine == theirs:\n            continue\n        what",
           "        if mine == theirs and mi > 0:\n            continue\n        mine += mine == theirs\n        what",
           "majority compare >= instead of >: an equal tile count takes the castle (S-K3)", planted=True),
    Mutant("unowned-not-taken", R + "reactions.py",
           "    if owner < 0:\n        take(", "    if owner < -1:\n        take(",
           "a castle with no owner is not simply taken (S-K2)"),
    Mutant("final-tie-inverted", R + "reactions.py",
           "    if rule.placer_takes_tie:\n", "    if not rule.placer_takes_tie:\n",
           "the placer wins the final castle tie (S-K5)"),
    Mutant("harbour-anywhere", R + "reactions.py",
           "        if (r.kinds is None or kind in r.kinds) and (r.at is None or r.at[h]):\n            pts =",
           "        if (r.kinds is None or kind in r.kinds):\n            pts =",
           "a hex-tag trigger (harbour, wind) scores on every hex (S-H1, I-H1)"),
    Mutant("touch-every-time", R + "reactions.py",
           "    first = tuple(lm for lm in g.lm_adj[h] if lm not in touched)\n",
           "    first = tuple(g.lm_adj[h])\n",
           "every touch of a cathedral draws a card, not only the first (S-M1)"),
    Mutant("draw-from-bottom", R + "decks.py",
           "        g.held[p].append(deck.pop(0))\n", "        g.held[p].append(deck.pop())\n",
           "mission cards are drawn from the bottom of the deck (S-M1)"),
    Mutant("doubling-ignored", R + "reactions.py",
           " * g.doubled[q].get(name, 1)", " * 1",
           "the doubling marker pays nothing extra (I-R1, I-M1)", planted=True),
    Mutant("later-pays-big", R + "reactions.py",
           "(card.points if not done else (card.small or 0))", "card.points",
           "every player fulfilling a public mission scores its big number (I-M1)"),
    Mutant("public-seat-order", R + "reactions.py",
           "            q = (p + step) % n if r.placer_first else step\n", "            q = step\n",
           "public missions are checked from seat 1, not from the placer (I-M1)"),
    Mutant("reactions-reversed", R + "reactions.py",
           "    for r in g.rs.reactions:\n", "    for r in reversed(g.rs.reactions):\n",
           "a placement's reactions run in reverse file order (S-H1 before the area, I-M1 last)"),
    # ----- endgame.py ------------------------------------------------------------------------------
    Mutant("incomplete-areas-skipped", R + "endgame.py",
           "            if g.area_done[a] or g.area_free[a] == 0 or t.area_kind[a] != kind:\n",
           "            if True:\n",
           "end of game: incomplete areas score nothing (S-E1)", planted=True),
    Mutant("incomplete-counts-complete", R + "endgame.py",
           "            if g.area_done[a] or g.area_free[a] == 0 or t.area_kind[a] != kind:\n",
           "            if t.area_kind[a] != kind:\n",
           "end of game: completed areas pay their influence again (S-E1)"),
    Mutant("castle-seat0-unpaid", R + "endgame.py",
           "            if owner >= 0 and t.landmark_kind[lm] == kind:\n",
           "            if owner > 0 and t.landmark_kind[lm] == kind:\n",
           "end of game: the first seat's castles score nothing (S-E2)"),
    Mutant("unfulfilled-missions-pay", R + "endgame.py",
           "                pts = card.points if ok else 0\n", "                pts = card.points\n",
           "end of game: every held mission card scores (S-E3, S-M2)"),
    Mutant("winner-among-inverted", R + "endgame.py",
           "        if w >= 0 and (w in tied or not among):\n", "        if w >= 0 and (w in tied or among):\n",
           "the winner tie-break's `among tied` / `anywhere` are swapped (S-E4, I-E2)"),
    Mutant("tie-break-never-seat-one", R + "endgame.py",
           "        if w >= 0 and (w in tied or not among):\n", "        if w > 0 and (w in tied or not among):\n",
           "a tie-break landmark held by the first seat decides nothing (S-E4)"),
    Mutant("tie-break-unused", R + "endgame.py",
           "    for fn, among, text in g.rs.winner_ties:\n", "    for fn, among, text in g.rs.winner_ties[:0]:\n",
           "a tie always stands: no clover, no Stirling (S-E4)"),
    # ----- abilities.py (I-R1) ---------------------------------------------------------------------
    Mutant("draw3-rest-on-top", R + "abilities.py",
           "        for tile in drawn:\n            supply.insert(0, tile)\n",
           "        for tile in drawn:\n            supply.append(tile)\n",
           "draw 3 keep 1: the other two go back on top of the supply (I-R1)"),
    Mutant("draw3-keep-ignored", R + "abilities.py",
           "    kept = keep if keep in drawn else drawn[0]\n", "    kept = drawn[0]\n",
           "draw 3 keep 1: the first tile drawn is kept, not the chosen one (I-R1)"),
    Mutant("double-fulfilled-allowed", R + "abilities.py",
           "and (target == \"any\" or p not in g.public_by[c])", "and True",
           "the doubling marker may go on a mission the player has fulfilled (I-R1)"),
    Mutant("ability-every-touch", R + "abilities.py",
           "if g.t.landmark_kind[lm] == r.kind and lm not in g.touched[p])",
           "if g.t.landmark_kind[lm] == r.kind)",
           "a tower's ability is asked for on every touch, not only the first (I-R1)"),
    Mutant("take-aside-stays", R + "abilities.py",
           "            g.set_aside[p].remove(tile)\n", "",
           "a set-aside tile taken into hand also stays set aside (I-R1)"),
    # ----- setup.py, state.py, vocab.py -------------------------------------------------------------
    Mutant("returns-any-value", R + "setup.py",
           "                if k == kid and (tc.value is None or v == tc.value):\n",
           "                if k == kid:\n",
           "4 players: the returned settlements are the first ones, whatever their influence (S-U3)"),
    Mutant("copy-shares-lists", R + "state.py",
           "    if ann in _ATOMIC or ann.startswith(\"tuple[\")",
           "    if ann in _ATOMIC or ann.startswith(\"list[\") or ann.startswith(\"tuple[\")",
           "a copied state shares its lists with the original (probes change the game)"),
    Mutant("clockwise-reversed", "rebirth_dsl/lang/vocab.py",
           "    return (q - completer) % n or n  # the completer", "    return (completer - q) % n or n  # the completer",
           "tie-break direction: counter-clockwise from the completer wins area ties (S-A2)", planted=True),
    Mutant("completer-wins-ties", "rebirth_dsl/lang/vocab.py",
           "            lambda q, c, n: 1 if q == c else 0),", "            lambda q, c, n: 0 if q == c else 1),",
           "`completer last` makes the completer win ties (S-A2)"),
    # ----- fast.py: the generated engine -----------------------------------------------------------
    Mutant("fast-merge-first-group", F,
           '        L("                gsize[groot] += gsize[rm]")\n',
           '        L("                gsize[groot] += gsize[rm]")\n        L("                break")\n',
           "generated engine: a farm merges with only the first neighbouring group (S-F1)", planted=True),
    Mutant("fast-draw3-ignored", F,
           '    R("        if pending:")\n', '    R("        if False:")\n',
           "generated engine: Ireland's draw 3 keep 1 is ignored (I-R1)", planted=True),
    Mutant("fast-majority-ge", F,
           '                L(f"{ind}if x > y:")\n', '                L(f"{ind}if x >= y:")\n',
           "generated engine: majority compare >= instead of > (S-K3, S-K4)", planted=True),
    Mutant("fast-no-fallback", F,
           "        tiers = [t_ for t_ in tiers if t_]\n", "        tiers = [t_ for t_ in tiers if t_][:1]\n",
           "generated playouts never fall back; they pass (S-P3)"),
    Mutant("fast-influence-counts-tiles", F,
           '    L("    area_inf[a][p] += v")\n', '    L("    area_inf[a][p] += 1")\n',
           "generated engine: influence counts tiles (S-A1)"),
    Mutant("fast-group-points-of-hex", F,
           '                L("    pts = gsize[groot]")\n', '                L("    pts = gsize[h]")\n',
           "generated engine: a farm scores the size stored at its own hex, not its root (S-F1)"),
    Mutant("fast-touch-every-time", F,
           '            L("    if lm not in touched:")\n', '            L("    if True:")\n',
           "generated engine: every touch draws or uses an ability (S-M1, I-R1)"),
    Mutant("fast-turn-counterclockwise", F,
           "nexts = [tuple((q + s) % n for s in", "nexts = [tuple((q - s) % n for s in",
           "generated playouts pass the turn counter-clockwise (S-T1)"),
    Mutant("fast-unowned-kept", F,
           '            L("    if o < 0:")\n            L("        lm_owner[lm] = p")\n',
           '            L("    if o < 0:")\n            L("        pass")\n',
           "generated engine: a castle with no owner is not taken (S-K2)"),
    Mutant("fast-final-tie-inverted", F,
           "'lm_owner[lm] = p' if r.placer_takes_tie else 'pass'", "'pass' if r.placer_takes_tie else 'lm_owner[lm] = p'",
           "generated engine: the placer wins the final castle tie (S-K5)"),
    Mutant("fast-metric-inverted", F,
           '                    L(f"    if {_kind_test(\'k\', kinds)}:")\n',
           '                    L(f"    if not ({_kind_test(\'k\', kinds)}):")\n',
           "generated engine: the farm count of a castle counts the non-farms (S-K4)"),
    Mutant("fast-completer-next-seat", F,
           'ranked = RANK(inf, p, n, TIES{ri})', 'ranked = RANK(inf, (p + 1) % n, n, TIES{ri})',
           "generated engine (quiet games): the next seat counts as the area's completer (S-A2)"),
    Mutant("fast-payout-off-by-one", F,
           '                L("                    if place_ < len(pay):")\n'
           '                L("                        pts = inf[q] if pay[place_] < 0 else pay[place_]")\n',
           '                L("                    if place_ + 1 < len(pay):")\n'
           '                L("                        pts = inf[q] if pay[place_ + 1] < 0 else pay[place_ + 1]")\n',
           "generated engine (quiet games): each place is paid the next place's payout (S-A3)"),
    Mutant("fast-alone-ignored", F,
           'L(f"            if len(ranked) == 1 and ALONE{ri}:")', 'L(f"            if False:")',
           "generated engine (quiet games): a lone player takes only first place (S-A3)"),
    Mutant("fast-trigger-at-ignored", F,
           '                cond = f"AT{ri}[h]" if r.kinds is None else f"({cond}) and AT{ri}[h]"\n',
           "                pass\n",
           "generated engine: harbour/wind points on every hex (S-H1, I-H1)"),
    # ----- compile/: compiler, closures, generated expressions, primitives ---------------------------
    Mutant("compile-final-tie-inverted", C + "compiler.py",
           "                placer_takes = it.placer_takes\n", "                placer_takes = not it.placer_takes\n",
           "compiler: `final tie: owner keeps` means the placer takes (S-K5)"),
    Mutant("compile-metrics-any", C + "compiler.py",
           '                metrics = tuple(None if m == "any" else t.tile_kind_ids(m) for m in it.metrics)\n',
           "                metrics = tuple(None for m in it.metrics)\n",
           "compiler: `then tiles farm` counts every tile (S-K4)"),
    Mutant("compile-alone-first-only", C + "compiler.py",
           "                alone = tuple(PLACES.index(p) for p in it.places)\n", "                alone = (0,)\n",
           "compiler: `alone: first + second` pays first place only (S-A3)"),
    Mutant("compile-among-inverted", C + "compiler.py",
           "(_generated(st.expr, t), st.among_tied, _text(rules, st.span))",
           "(_generated(st.expr, t), not st.among_tied, _text(rules, st.span))",
           "compiler: `among tied` and `anywhere` are swapped (S-E4)"),
    Mutant("compile-fallback-as-primary", C + "compiler.py",
           "                    rs.fallback[kid] = tuple(dict.fromkeys(s.on))\n",
           "                    rs.primary[kid] = rs.primary.get(kid, ()) + tuple(dict.fromkeys(s.on))\n",
           "compiler: fallback hexes are added to the primary ones (S-P3)"),
    Mutant("compile-card-copies-once", C + "compiler.py",
           "                    for c in s.cards for _ in range(c.copies)\n", "                    for c in s.cards\n",
           "compiler: `x4` cards are in the deck once (S-M2 Cathedral gift)"),
    Mutant("compile-ties-dropped", C + "compiler.py",
           "                ties = tuple(TIE_STEPS[st] for st in it.steps)\n", "                ties = ()\n",
           "compiler: the area tie-break chain is dropped (S-A2)"),
    Mutant("most-strict", C + "prims.py",
           "    return all(f(q) <= v for q in range(n) if q != me)\n", "    return all(f(q) < v for q in range(n) if q != me)\n",
           "most(): a tie does not fulfil a mission (S-M3)"),
    Mutant("fewest-strict", C + "prims.py",
           "    return all(f(q) >= v for q in range(n) if q != me)\n", "    return all(f(q) > v for q in range(n) if q != me)\n",
           "fewest(): a tie does not fulfil (the language's comparisons are fulfilled on a tie, S-M3)"),
    Mutant("best-first-of-tied", C + "prims.py",
           "    return vals.index(top) if top > 0 and vals.count(top) == 1 else -1\n",
           "    return vals.index(top) if top > 0 else -1\n",
           "best(): a tie goes to the first seat (I-E2 Hill of Tara)"),
    Mutant("closure-ge-is-gt", C + "closures.py",
           '        ">=": lambda a, b: lambda ctx: a(ctx) >= b(ctx),\n', '        ">=": lambda a, b: lambda ctx: a(ctx) > b(ctx),\n',
           "closure interpreter: >= means > (scoring expressions)"),
    Mutant("closure-atleast-strict", C + "functions.py",
           "[g for g in f(ctx) if len(g) >= n]", "[g for g in f(ctx) if len(g) > n]",
           "closure interpreter: atleast(groups, 3) needs 4 (S-M3)"),
    Mutant("closure-won-inverted", C + "functions.py",
           "[a for a, first in ctx.g.area_first.items() if first == p]",
           "[a for a, first in ctx.g.area_first.items() if first != p]",
           "closure interpreter: won() lists the areas others won (S-M3)"),
    Mutant("gen-ge-is-gt", C + "exprgen.py",
           '_OPS = {"+": "+", "-": "-", "*": "*", ">=": ">=",', '_OPS = {"+": "+", "-": "-", "*": "*", ">=": ">",',
           "generated expressions: >= means > (mission cards, S-M3)"),
    Mutant("gen-atleast-strict", C + "functions.py",
           "    return [x for x in sizes if x >= n]\n", "    return [x for x in sizes if x > n]\n",
           "generated expressions: atleast(groups, 3) needs 4 (S-M3)"),
    Mutant("gen-influence-counts-tiles", C + "exprgen.py",
           'return f"sum(g.tval[h] for h in {self.src(args[0], me)})"', 'return f"len({self.src(args[0], me)})"',
           "generated expressions: influence(tiles) counts tiles (S-M3 Chieftain, S-E1)"),
    Mutant("gen-near-all", C + "exprgen.py",
           "near = tuple(any(m[x] for x in t.neighbours[h]) for h in range(t.n))",
           "near = tuple(all(m[x] for x in t.neighbours[h]) for h in range(t.n))",
           "generated expressions: near(tiles, sea) needs sea on every side (S-M3 Coastline)"),
)


# ----- running ------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What the tests did with one mutant."""

    name: str
    status: str  # killed, timeout, survived, stale
    test: str  # the first failing test, or why not
    seconds: float
    what: str
    planted: bool
    golden: str = ""  # with --golden: what the golden files made of a survivor


def occurrences(root: Path, m: Mutant) -> int:
    """How often the mutant's old text occurs in its file under `root`."""
    path = root / m.file
    return path.read_text(encoding="utf-8").count(m.old) if path.exists() else 0


def test_files(root: Path) -> list[str]:
    """tests/*/test_*.py (one folder per layer) in the order they run (see FIRST and LAST)."""
    where = {p.name: p.relative_to(root).as_posix() for p in sorted((root / "tests").glob("**/test_*.py"))}
    first = [n for n in FIRST if n in where]
    last = [n for n in LAST if n in where]
    middle = [n for n in sorted(where) if n not in first and n not in last]
    return [where[n] for n in first + middle + last]


def environment(root: Path) -> dict[str, str]:
    """The copy first on the import path; no bytecode (a mutated file of the same size and second must
    never be read from a stale .pyc); a cache of its own; hypothesis reports a failure without shrinking."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["REBIRTH_CACHE"] = str(root / ".mutation-cache")
    env["REBIRTH_HYPOTHESIS_PROFILE"] = "mutation"  # tests/conftest.py: no shrinking, no example database
    env.pop("REBIRTH_UPDATE_GOLDEN", None)
    return env


def imported_from(root: Path) -> str:
    """Where `import rebirth_dsl` finds the package with the copy's environment."""
    done = subprocess.run([sys.executable, "-c", "import rebirth_dsl; print(rebirth_dsl.__file__)"], cwd=root,
                          env=environment(root), capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


def pytest_args(root: Path, golden_only: bool = False, excluded: tuple[str, ...] = (), first_failure: bool = True
                ) -> list[str]:
    """The pytest command: -x, a fixed hypothesis seed, the golden tests and `excluded` deselected (a file
    named without `::` is ignored whole: it failed to import at the baseline)."""
    base = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "--hypothesis-seed=0",
            "--no-header", "-W", "ignore"] + (["-x"] if first_failure else [])
    if golden_only:
        return base + list(GOLDEN_TESTS)
    skip = []
    for t in (*GOLDEN_TESTS, *excluded):
        skip += ["--deselect", t] if "::" in t else ["--ignore", t]
    return base + skip + test_files(root)


FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)
ACTIVE: set[int] = set()  # process groups of the pytest runs under way, ended on an interrupt
STOP = threading.Event()


def end_active() -> None:
    """Kill the process groups of the pytest runs under way (an interrupt must not leave them running)."""
    for pid in list(ACTIVE):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_tests(root: Path, timeout: float, golden_only: bool = False, excluded: tuple[str, ...] = (),
              first_failure: bool = True) -> tuple[str, str, float]:
    """(status, failing tests (the first with -x), seconds) of one run of the tests in `root`."""
    shutil.rmtree(root / ".hypothesis", ignore_errors=True)  # no example remembered from another mutant
    start = time.perf_counter()
    args = pytest_args(root, golden_only, excluded, first_failure)
    proc = subprocess.Popen(args, cwd=root, env=environment(root), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    ACTIVE.add(proc.pid)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the run's own process group: pytest and what it started
        proc.communicate()
        return "timeout", f"over {timeout:.0f} s", time.perf_counter() - start
    except BaseException:  # interrupted (Ctrl-C, or SIGTERM below): end this run's processes too
        end_active()
        raise
    finally:
        ACTIVE.discard(proc.pid)
    seconds = time.perf_counter() - start
    if proc.returncode == 0:
        return "survived", "", seconds
    failed = FAILED.findall(out)
    if failed:
        return "killed", " ".join(dict.fromkeys(failed)), seconds
    tail = " | ".join(out.strip().splitlines()[-3:])
    return "killed", f"(pytest exit {proc.returncode}: {tail[:300]})", seconds


def run_mutant(root: Path, m: Mutant, timeout: float, golden: bool, excluded: tuple[str, ...]) -> Outcome:
    """Apply one mutant to the copy, run the tests, and put the file back."""
    path = root / m.file
    original = path.read_text(encoding="utf-8")
    if original.count(m.old) != 1:
        return Outcome(m.name, "stale", f"old text occurs {original.count(m.old)} times", 0.0, m.what, m.planted)
    path.write_text(original.replace(m.old, m.new), encoding="utf-8")
    try:
        status, test, seconds = run_tests(root, timeout, excluded=excluded)
        outcome = Outcome(m.name, status, test, seconds, m.what, m.planted)
        if golden and status == "survived":
            g_status, g_test, _ = run_tests(root, timeout, golden_only=True)
            outcome.golden = "a golden file fails" if g_status != "survived" else "golden files pass too"
        return outcome
    finally:
        path.write_text(original, encoding="utf-8")


def copy_tree(dest: Path) -> Path:
    """A copy of the repository to mutate (never /work/main itself)."""
    root = dest / "repo"
    shutil.copytree(ROOT, root, ignore=IGNORE, symlinks=True)
    return root


def check_mutants(mutants: tuple[Mutant, ...]) -> list[str]:
    """Problems with the table: an old text not occurring exactly once, a mutant that no longer compiles,
    a name used twice."""
    problems = []
    seen: set[str] = set()
    for m in mutants:
        if m.name in seen:
            problems.append(f"{m.name}: name used twice")
        seen.add(m.name)
        n = occurrences(ROOT, m)
        if n != 1:
            problems.append(f"{m.name}: old text occurs {n} times in {m.file} (stale)")
            continue
        text = (ROOT / m.file).read_text(encoding="utf-8").replace(m.old, m.new)
        try:
            compile(text, m.file, "exec")
        except SyntaxError as e:
            problems.append(f"{m.name}: the mutated {m.file} does not compile: {e}")
    return problems


def summary(outcomes: list[Outcome]) -> str:
    counted = [o for o in outcomes if o.status != "stale"]
    killed = [o for o in counted if o.status in ("killed", "timeout")]
    lines = [f"{'mutant':30} {'status':9} {'s':>6}  first failing test / note"]
    for o in outcomes:
        mark = " *" if o.planted else ""
        note = o.test + (f"  [{o.golden}]" if o.golden else "")
        lines.append(f"{o.name + mark:30} {o.status:9} {o.seconds:6.1f}  {note}")
    score = 100.0 * len(killed) / len(counted) if counted else 0.0
    planted = [o for o in counted if o.planted]
    lines.append("")
    lines.append(f"mutation score: {len(killed)}/{len(counted)} killed = {score:.1f}% by tests other than golden files"
                 f" ({sum(o.status == 'timeout' for o in killed)} by timeout; "
                 f"{sum(o.status == 'stale' for o in outcomes)} stale not counted)")
    lines.append(f"planted bugs (*): {sum(o.status in ('killed', 'timeout') for o in planted)}/{len(planted)} killed")
    survivors = [o.name for o in counted if o.status == "survived"]
    if survivors:
        lines.append("survived: " + ", ".join(survivors))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--check", action="store_true", help="check the table against the code and exit")
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per mutant (default: 4x the baseline, >= 300)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once, each in its own copy")
    ap.add_argument("--json", type=Path, help="write the outcomes as JSON")
    ap.add_argument("--golden", action="store_true", help="also run survivors against the golden files")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copies")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the unmutated run (quick iterations on a few mutants only: a test that already "
                         "fails then counts as a kill; leave it out with --exclude)")
    ap.add_argument("--exclude", action="append", default=[], metavar="TEST",
                    help="a test node id (or file) to leave out, as a failing baseline test is")
    args = ap.parse_args(argv)

    mutants = MUTANTS
    if args.only:
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [w for w in wanted if w not in {m.name for m in MUTANTS}]
        if unknown:
            print(f"unknown mutant(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        mutants = tuple(m for m in MUTANTS if m.name in wanted)
    if args.list:
        for m in mutants:
            print(f"{m.name:30} {m.file:34} {m.what}{'  (planted in issue 10)' if m.planted else ''}")
        return 0
    problems = check_mutants(mutants)
    if args.check:
        print("\n".join(problems) or f"{len(mutants)} mutants: each old text occurs once and each mutant compiles")
        return 1 if problems else 0
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))  # `kill PID`: clean up like Ctrl-C
    tmp = Path(tempfile.mkdtemp(prefix="rebirth-mutate-"))
    try:
        jobs = max(1, args.jobs)
        roots = [copy_tree(tmp / f"w{i}") for i in range(jobs)]
        for root in roots:
            where = imported_from(root)
            if not where.startswith(str(root)):
                print(f"the copy is not what is imported: rebirth_dsl comes from {where!r}", file=sys.stderr)
                return 2
        print(f"copies in {tmp}; rebirth_dsl imported from {imported_from(roots[0])}", flush=True)
        # The baseline runs every test (no -x). Tests that already fail unmutated (work in progress in the
        # shared tree) would kill every mutant: they are left out of the mutant runs, and said so.
        excluded: tuple[str, ...] = tuple(args.exclude)
        if args.no_baseline:
            status, test, seconds = "survived", "", 0.0
            print("warning: no baseline run: a test failing unmutated would count as a kill", file=sys.stderr)
        else:
            status, test, seconds = run_tests(roots[0], timeout=3600, excluded=excluded, first_failure=False)
        if status == "timeout":
            print("the unmutated tests did not finish in an hour", file=sys.stderr)
            return 2
        if status == "killed":
            failing = tuple(t for t in test.split() if t.startswith("tests/"))
            excluded += failing
            if not failing:
                print(f"the unmutated tests fail: {test}", file=sys.stderr)
                return 2
            print(f"warning: {len(failing)} test(s) fail unmutated and are left out: {' '.join(failing)}",
                  file=sys.stderr, flush=True)
        timeout = args.timeout or max(300.0, 4 * seconds)
        done = "not run" if args.no_baseline else f"the tests other than the golden files pass in {seconds:.0f} s"
        print(f"baseline: {done}; {len(mutants)} mutants, {timeout:.0f} s each at most", flush=True)

        outcomes: dict[str, Outcome] = {}

        def work(i: int) -> None:
            root = roots[i]
            for m in mutants[i::jobs]:
                if STOP.is_set():
                    return
                o = run_mutant(root, m, timeout, args.golden, excluded)
                outcomes[m.name] = o
                print(f"{o.name:30} {o.status:9} {o.seconds:6.1f}s  {o.test}", flush=True)

        if jobs == 1:
            work(0)
        else:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                try:
                    list(pool.map(work, range(jobs)))
                except BaseException:
                    STOP.set()  # the workers take no further mutant ...
                    end_active()  # ... and their runs under way end now
                    raise
        ordered = [outcomes[m.name] for m in mutants]
        print()
        print(summary(ordered))
        if excluded:
            print(f"left out (failing unmutated): {' '.join(excluded)}")
        if args.json:
            data = {"excluded": list(excluded), "baseline_seconds": round(seconds, 1),
                    "outcomes": [asdict(o) for o in ordered]}
            args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        counted = [o for o in ordered if o.status != "stale"]
        return 0 if all(o.status != "survived" for o in counted if o.planted) else 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
