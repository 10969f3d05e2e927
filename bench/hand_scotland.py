"""A tight hand-written Python engine for random games of Rebirth: Scotland (shared/RULES.md, S-...): the
yardstick the generated Python engine (rebirth_dsl/pyengine/fast.py) is measured against by
`python -m rebirth_dsl.bench --against-limit`.

It is a benchmark, not the product: it holds Scotland's numbers (rules/scotland.rules) by hand, where the
project keeps them as data, and reads only the board file. It plays the SAME random games as the generated
Python engine for the same seed: the deal from `random.Random(seed)` (each colour's tiles shuffled
Fisher-Yates from the top with j = int(random() * (i + 1)), seat by seat, then the mission deck), each seat's
moves from its own `random.Random(seed * 16 + seat + 1)`, the same free lists (per hex kind, in board order,
a taken hex replaced by the list's last) and the same choice per move (int(random() * total) over the
placement rule's free lists, in the rule's order; else its fallback's).
"""

from __future__ import annotations

import json
from _random import Random  # random.Random's C base: its generator for an int seed, without its Python frames
from collections.abc import Callable
from math import floor
from pathlib import Path

# S-C2: one colour's tiles as (kind, influence) in the rules file's order; kinds 0 food, 1 energy, 2 settlement
MIX = [(0, 0)] * 12 + [(1, 0)] * 12 + [(2, 1)] * 3 + [(2, 2)] * 4 + [(2, 3)] * 3 + [(2, 4)] * 2
SET_ASIDE = 2  # S-U4
NEUTRALS = 32  # S-U2
# S-M3: the mission cards by id (the deck holds Cathedral gift four times, then one of each in the rules
# file's order) and each card's points
CARDS = ["Cathedral gift", "Castle lord", "Clan of the glens", "Power of the north", "Harbour master", "Pilgrim",
         "Town builder", "Bread basket", "Chieftain", "Castle guard", "Twin fields", "Coastline", "Heartland", "Mayor",
         "Borderlands", "Crown of Scotland", "Stirling bridge"]
(GIFT, LORD, CLAN, POWER, HARBOUR, PILGRIM, TOWN, BREAD, CHIEF, GUARD, TWIN, COAST, HEART, MAYOR, BORDER, CROWN,
 BRIDGE) = range(17)
DECK = [GIFT] * 4 + list(range(1, 17))
POINTS = [3, 5, 5, 5, 4, 4, 4, 4, 4, 5, 4, 5, 5, 5, 5, 6, 4]
FREE_KINDS = ("food", "plain", "energy", "settlement")  # the free lists, as the engine orders them


def colour(n: int) -> list[tuple[int, int]]:
    """S-C2, S-U3: with 4 players each colour returns its first 3 food, 3 energy, one settlement of 2, 3, 4."""
    tiles = list(MIX)
    if n == 4:
        for kind, value, count in ((0, None, 3), (1, None, 3), (2, 2, 1), (2, 3, 1), (2, 4, 1)):
            for _ in range(count):
                tiles.remove(next(t for t in tiles if t[0] == kind and value in (None, t[1])))
    return tiles


Result = tuple[list[int], list[int], list[list[tuple[int, int]]] | None, list[int] | None,
               list[tuple[int, int, int, int]] | None]


def engine(board: Path) -> Callable[[int, int, bool], Result]:
    """`play(n, seed, record=False)` for this board: (totals, winner seats, and with `record` each seat's
    shuffled tiles (the first two set aside), the deck's card ids top first and the moves (seat, kind,
    influence, hex or -1))."""
    hexes = json.loads(board.read_text(encoding="utf-8"))["hexes"]
    nh = len(hexes)
    at = {(x["q"], x["r"]): i for i, x in enumerate(hexes)}
    kind = [x["kind"] for x in hexes]
    nbs = [[at[q + dq, r + dr] for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)) if (q + dq, r + dr) in at]
           for q, r in ((x["q"], x["r"]) for x in hexes)]
    lms = [h for h in range(nh) if kind[h] in ("castle", "cathedral")]
    lm_of = {h: i for i, h in enumerate(lms)}
    castles = [lm_of[h] for h in lms if kind[h] == "castle"]
    clover = next((lm_of[h] for h in lms if "clover" in hexes[h].get("tags", ())), -1)
    stirling = next((lm_of[h] for h in lms if hexes[h].get("name") == "Stirling"), -1)
    names: dict[str, int] = {}
    area = [names.setdefault(x["area"], len(names)) if "area" in x else -1 for x in hexes]
    asize = [area.count(a) for a in range(len(names))]
    harbour = [int("harbour" in x.get("tags", ())) for x in hexes]
    cas = [tuple(lm_of[m] for m in nbs[h] if kind[m] == "castle") for h in range(nh)]
    cath = [tuple(lm_of[m] for m in nbs[h] if kind[m] == "cathedral") for h in range(nh)]
    # what the mission cards count per tile (S-M3), packed a byte each in one int added per placement: next to
    # a cathedral, next to a castle, next to the sea, on a harbour (a colour has at most 36 tiles)
    pack = [int(any(kind[m] == "cathedral" for m in nbs[h])) | int(any(kind[m] == "castle" for m in nbs[h])) << 8
            | int(any(kind[m] == "sea" for m in nbs[h])) << 16 | harbour[h] << 24 for h in range(nh)]
    abit = [1 << a if a >= 0 else 0 for a in area]  # per hex, the bit of its area
    # a tile of one kind only ever stands on the hexes its placement allows: the neighbours its group can join
    farm_ok = {0: ("food", "plain", "energy"), 1: ("energy", "plain", "food")}
    nbk = [[tuple(m for m in nbs[h] if kind[m] in farm_ok[k]) for h in range(nh)] for k in (0, 1)]
    neutral = [h for h in range(nh) if "neutral" in hexes[h].get("tags", ())][:NEUTRALS]
    tiles_of = {n: colour(n) for n in (2, 3, 4)}

    def blank(n: int) -> tuple[list[int], list[list[int]], list[int]]:
        """owner (-1 empty, -2 neutral, else seat * 4 + kind), free lists, area hexes free."""
        owner = [-1] * nh
        free: list[list[int]] = [[h for h in range(nh) if kind[h] == k] for k in FREE_KINDS]
        fpos = [-1] * nh
        for lst in free:
            for i, h in enumerate(lst):
                fpos[h] = i
        afree = list(asize)
        if n == 2:  # S-U2, S-A4
            for h in neutral:
                owner[h] = -2
                if kind[h] in FREE_KINDS:
                    lst = free[FREE_KINDS.index(kind[h])]
                    last = lst.pop()
                    if last != h:
                        lst[fpos[h]] = last
                        fpos[last] = fpos[h]
                    fpos[h] = -1
                if area[h] >= 0:
                    afree[area[h]] -= 1
        return owner, free, afree

    blanks = {n: blank(n) for n in (2, 3, 4)}
    # Fisher-Yates from the top (S-U4): i and i + 1 as a float (the same product, without an int to convert),
    # per player count for the colours' tiles and under 0 for the deck
    steps = {n: [(i, float(i + 1)) for i in range(len(tiles_of[n]) - 1, 0, -1)] for n in (2, 3, 4)}
    steps[0] = [(i, float(i + 1)) for i in range(len(DECK) - 1, 0, -1)]
    na, nl = len(asize), len(lms)

    def play(n: int, seed: int, record: bool = False, *, floor: Callable[[float], int] = floor, nbk: list = nbk,
             area: list[int] = area, harbour: list[int] = harbour, cas: list = cas, cath: list = cath,
             pack: list[int] = pack, abit: list[int] = abit, asize: list[int] = asize,
             steps: dict[int, list[tuple[int, float]]] = steps) -> Result:
        """One random game of n players from a seed."""
        owner0, free0, afree0 = blanks[n]
        owner, afree = owner0[:], afree0[:]
        food, plain, energy, settle = [lst[:] for lst in free0]
        parent = list(range(nh))
        gsize = [1] * nh
        ainf = [[0] * n for _ in range(na)]
        adone = [False] * na
        cowner = [-1] * nl
        ctiles = [[0] * n for _ in range(nl)]
        cfarms = [[0] * n for _ in range(nl)]
        touched: list[set[int]] = [set() for _ in range(n)]
        score = [0] * n
        counted = [0] * n  # per seat, the sum of pack[h] over its tiles
        won = [0] * n  # areas won (S-M3)
        areas_of = [0] * n  # the areas holding one of the seat's settlements, as bits
        farms: list[list[int]] = [[] for _ in range(n)]
        held: list[list[int]] = [[] for _ in range(n)]
        # S-U4: the deal, from one generator
        rnd = Random(seed).random
        dealt = []
        for _ in range(n):
            mine = list(tiles_of[n])
            for i, k in steps[n]:
                j = floor(rnd() * k)
                mine[i], mine[j] = mine[j], mine[i]
            dealt.append(mine)
        deck = list(DECK)
        for i, k in steps[0]:
            j = floor(rnd() * k)
            deck[i], deck[j] = deck[j], deck[i]
        setup = ([list(d) for d in dealt], list(deck)) if record else None
        deck.reverse()  # the top at the end: drawn by pop()
        seats = [Random(seed * 16 + p + 1).random for p in range(n)]
        moves: list[tuple[int, int, int, int]] | None = [] if record else None
        for i in range(SET_ASIDE, len(dealt[0])):  # S-T1, S-T2: rounds clockwise; the set-aside never play
            for p in range(n):
                k, v = dealt[p][i]
                # S-P2..S-P5: a free hex of the placement rule's kinds, else the fallback's, else a pass
                if k == 2:
                    t = len(settle)
                    if not t:
                        if moves is not None:
                            moves.append((p, k, v, -1))
                        continue
                    r = floor(seats[p]() * t)
                    lst = settle
                else:
                    if k == 0:
                        a, b, c = food, plain, energy
                    else:
                        a, b, c = energy, plain, food
                    na_ = len(a)
                    t = na_ + len(b)
                    if t:
                        r = floor(seats[p]() * t)
                        if r < na_:
                            lst = a
                        else:
                            r -= na_
                            lst = b
                    else:
                        t = len(c)
                        if not t:
                            if moves is not None:
                                moves.append((p, k, v, -1))
                            continue
                        r = floor(seats[p]() * t)
                        lst = c
                h = lst[r]
                last = lst.pop()  # S-P1: h leaves its free list, the last free hex takes its place
                if last != h:
                    lst[r] = last
                me = p * 4 + k
                owner[h] = me
                counted[p] += pack[h]  # what the mission cards count of this tile
                if k == 2:
                    score[p] += harbour[h]  # S-H1
                    a_ = area[h]
                    areas_of[p] |= abit[h]
                    inf = ainf[a_]
                    inf[p] += v
                    afree[a_] -= 1
                    if not afree[a_]:  # S-A1..S-A3: ranked by influence, the completer last, then clockwise
                        adone[a_] = True
                        ranked = sorted((q for q in range(n) if inf[q]), key=lambda q: (-inf[q], (q - p - 1) % n))
                        w = ranked[0]
                        won[w] += 1
                        size = asize[a_]
                        if size == 1:
                            score[w] += inf[w]
                        elif len(ranked) == 1:
                            score[w] += 8 if size == 2 else 13
                        elif size == 2:
                            score[w] += 5
                            score[ranked[1]] += 3
                        else:
                            score[w] += 8
                            score[ranked[1]] += 5
                else:  # S-F1: the group it creates or enlarges, itself included
                    root = h
                    for m in nbk[k][h]:
                        if owner[m] == me:
                            while parent[m] != m:
                                parent[m] = parent[parent[m]]
                                m = parent[m]
                            if m != root:
                                if gsize[m] > gsize[root]:
                                    m, root = root, m
                                parent[m] = root
                                gsize[root] += gsize[m]
                    score[p] += gsize[root]
                    farms[p].append(h)
                for lm in cas[h]:  # S-K1..S-K5
                    ct, cf = ctiles[lm], cfarms[lm]
                    ct[p] += 1
                    if k != 2:
                        cf[p] += 1
                    o = cowner[lm]
                    if o != p and (o < 0 or ct[p] > ct[o] or (ct[p] == ct[o] and cf[p] > cf[o])):
                        cowner[lm] = p
                if cath[h]:  # S-M1
                    mine_ = touched[p]
                    for lm in cath[h]:
                        if lm not in mine_:
                            mine_.add(lm)
                            if deck:
                                held[p].append(deck.pop())
                if moves is not None:
                    moves.append((p, k, v, h))
        # the end (S-E1..S-E3)
        totals = list(score)
        for a_ in range(na):
            if not adone[a_] and afree[a_]:
                for q, x in enumerate(ainf[a_]):
                    totals[q] += x
        owned = [0] * n
        near_castles = [0] * n
        for lm in castles:
            o = cowner[lm]
            if o >= 0:
                owned[o] += 1
                totals[o] += 5
            for q, x in enumerate(ctiles[lm]):
                if x:
                    near_castles[q] += 1
        big = (n - 2) * (n - 3)
        largest_food, largest_energy, pairs = [0] * n, [0] * n, [0] * n
        for q in range(n):
            for h in farms[q]:
                if parent[h] == h:
                    s = gsize[h]
                    if owner[h] & 3 == 0:
                        largest_food[q] = max(largest_food[q], s)
                        pairs[q] += s >= 2
                    else:
                        largest_energy[q] = max(largest_energy[q], s)
        for q in range(n):
            st = counted[q]
            for card in held[q]:
                if card == GIFT:
                    ok = True
                elif card == LORD:
                    ok = owned[q] >= 1 and owned[q] == max(owned)
                elif card == CLAN:
                    ok = largest_food[q] >= 8 - n
                elif card == POWER:
                    ok = largest_energy[q] >= 6
                elif card == HARBOUR:
                    ok = st >> 24 >= 8 - n
                elif card == PILGRIM:
                    ok = st & 255 >= 15 - big
                elif card == TOWN:
                    ok = areas_of[q].bit_count() >= 10 - big
                elif card == BREAD:
                    ok = largest_food[q] >= 2 and largest_food[q] == max(largest_food)
                elif card == CHIEF:
                    ok = won[q] >= 1 and won[q] == max(won)
                elif card == GUARD:
                    ok = st >> 8 & 255 >= 21 - 2 * big
                elif card == TWIN:
                    ok = pairs[q] >= 3
                elif card == COAST:
                    ok = st >> 16 & 255 >= 22 - 2 * big
                elif card == HEART:
                    ok = largest_food[q] >= 6 or largest_energy[q] >= 6
                elif card == MAYOR:
                    ok = won[q] >= 13 - 2 * n
                elif card == BORDER:
                    ok = near_castles[q] >= 14 - n
                elif card == CROWN:
                    ok = clover >= 0 and cowner[clover] == q
                else:  # BRIDGE
                    ok = stirling >= 0 and cowner[stirling] == q
                if ok:
                    totals[q] += POINTS[card]
        # S-E4: the clover castle's owner among the tied, then Stirling's owner anywhere
        top = max(totals)
        tied = [q for q in range(n) if totals[q] == top]
        if len(tied) > 1:
            if clover >= 0 and cowner[clover] in tied:
                tied = [cowner[clover]]
            elif stirling >= 0 and cowner[stirling] >= 0:
                tied = [cowner[stirling]]
        if setup is None:
            return totals, tied, None, None, None
        return totals, tied, setup[0], setup[1], moves

    return play
