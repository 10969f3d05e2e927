"""Placement (S-P1..S-P6): which hexes a tile may go on, why a hex is refused, and what a tile placed
changes in the position (groups, areas, majority counts, free hexes). The generated engine (fast.py)
repeats `occupy` inline for speed; tests/engines/test_differential.py proves the two equal."""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.errors import IllegalMove
from rebirth_dsl.rules import majority
from rebirth_dsl.runtime.state import EMPTY, NEUTRAL

if TYPE_CHECKING:
    from rebirth_dsl.runtime.game import Game


def cite(ids: tuple[str, ...], fallback: str) -> str:
    """The rule id a refusal cites: the rules file's own citation, else the generic rule."""
    return ids[0] if ids else fallback


def legal_hexes(g: Game, kind: int) -> tuple[list[int], bool]:
    """The hexes a tile of this kind may go on, and whether they are fallback hexes (S-P2..S-P4)."""
    free = g.free
    out = [h for k in g.rs.primary.get(kind, ()) for h in free.get(k, ())]
    if out:
        return out, False
    out = [h for k in g.rs.fallback.get(kind, ()) for h in free.get(k, ())]
    return out, bool(out)


def check_place(g: Game, kind: int, h: int, index: int | None) -> None:
    """Refuse, citing the rule, a placement on a taken hex, a hex no tile goes on, or the wrong kind."""
    rs, t = g.rs, g.t
    q, r = t.coords[h]
    name = rs.tile_name(kind, 0).split(":")[0]
    hk = t.hex_kind[h]
    if g.owner[h] != EMPTY:
        who = "a neutral tile" if g.owner[h] == NEUTRAL else f"{g.players[g.owner[h]]}'s tile"
        raise IllegalMove(f"hex ({q},{r}) already holds {who}", cite(rs.cites.one_tile, "the one-tile rule"), index)
    if hk not in g.free:
        what = f"{hk} {t.landmark_name[t.landmark_of_hex[h]]!r}" if h in t.landmark_of_hex else f"a {hk} hex"
        raise IllegalMove(f"hex ({q},{r}) is {what}: no tile goes there", cite(rs.cites.one_tile, "the one-tile rule"),
                          index)
    primary = rs.primary.get(kind, ())
    if hk in primary:
        return
    fallback = rs.fallback.get(kind, ())
    if hk in fallback:
        free_primary = [x for k in primary for x in g.free.get(k, ())]
        if free_primary:
            fq, fr = t.coords[free_primary[0]]
            raise IllegalMove(f"{name} may go on a {hk} hex only when no {' or '.join(sorted(primary))} hex is "
                              f"free; ({fq},{fr}) is free", cite(rs.cites.fallback.get(kind, ()), "the fallback rule"),
                              index)
        return
    allowed = sorted(primary) + [f"{k} (fallback)" for k in sorted(fallback)]
    raise IllegalMove(f"{name} cannot go on {hk} hex ({q},{r}); it goes on {', '.join(allowed)} hexes",
                      cite(rs.cites.place.get(kind, ()), "the placement rule"), index)


def occupy(g: Game, h: int, p: int, kind: int, value: int) -> None:
    """Put a tile (p < 0: a neutral tile) on h and update everything that follows from it."""
    g.owner[h] = p
    g.tkind[h] = kind
    g.tval[h] = value
    if p >= 0:
        g.tiles_of[p][kind].append(h)
    lst = g.free.get(g.t.hex_kind[h])
    if lst is not None:  # swap-remove from the free list of its kind: O(1)
        pos = g.free_pos[h]
        last = lst[-1]
        lst[pos] = last
        g.free_pos[last] = pos
        lst.pop()
        g.free_pos[h] = -1
    if p >= 0 and kind in g.rs.group_kinds:
        root = h
        parent, gsize, owner, tkind = g.parent, g.gsize, g.owner, g.tkind
        for m in g.t.neighbours[h]:
            if owner[m] == p and tkind[m] == kind:
                rm = g.find(m)
                if rm != root:  # union by size; every neighbouring group joins, not just the first
                    if gsize[rm] > gsize[root]:
                        rm, root = root, rm
                    parent[rm] = root
                    gsize[root] += gsize[rm]
    a = g.t.area_of[h]
    if a >= 0:
        g.area_free[a] -= 1
        if p >= 0:
            g.area_inf[a][p] += value
        if g.area_free[a] == 0 and p < 0:
            g.area_done[a] = True  # filled at setup: nobody completed it, nobody scores
    if p >= 0:  # the tile counts next to every landmark of a majority (S-K3, S-K4)
        for lm in g.lm_adj[h]:
            rule = g.metric_of.get(lm)
            if rule is not None:
                majority.count(g.lm_count[lm], rule.metrics, p, kind)
