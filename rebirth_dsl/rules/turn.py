"""The end of a turn (S-T1): the tile played leaves the hand, the player draws the top of their supply (or
answers a pending "draw N, keep one", I-R1), the move is counted, and the turn passes clockwise to the next
player who still holds a tile; when nobody does, the game is over (S-T2).

`next_seat` is the decision, `draw` the draw step and `end_turn` the whole step; the reference engine, the
searches and the generated playouts call them. Two speed devices follow the same rule and sit here beside it:
`fixed_turns` (the whole order of a playout's moves, known before the first when hands hold one tile) and
the generated loop's end of a turn (`python_end_of_turn`); the native engine's is `c_leaving`, `C_DRAW` and
`c_end_of_turn`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, repeat, zip_longest
from math import floor

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import Locals

if TYPE_CHECKING:
    from rebirth_dsl.rules.view import GameView

Tile = tuple[int, int]


def next_seat(hands: Sequence[Sequence[object]], turn: int, n: int) -> int:
    """The seat that plays after `turn`: the next one clockwise still holding a tile (S-T1), `turn` itself when
    only it does, -1 when nobody does (the game is over, S-T2)."""
    for step in range(1, n + 1):
        q = (turn + step) % n
        if hands[q]:
            return q
    return -1


def draw(g: GameView, p: int) -> None:
    """The draw step (S-T1), or a pending "draw N, keep one" (I-R1: the others go under the supply, in the
    order drawn)."""
    supply, hand = g.supply[p], g.hand[p]
    pend = g.pending_draw.pop(p, None) if g.pending_draw else None
    if pend is None:
        if supply:
            hand.append(supply.pop())
        return
    n, keep, rest = pend
    k = min(n, len(supply))
    if not k:
        return
    drawn = supply[-k:]  # the top k (the end of the list), drawn from the top down
    del supply[-k:]
    drawn.reverse()
    kept = keep if keep in drawn else drawn[0]
    drawn.remove(kept)
    hand.append(kept)
    if rest == "bottom":  # each in the order drawn put under the supply (its bottom is index 0): the last lowest
        supply[:0] = drawn[::-1]
    elif rest == "top":  # back on top, the first drawn to be drawn first again
        supply.extend(reversed(drawn))
    # "box": out of the game


def end_turn(g: GameView, p: int, tile: Tile) -> None:
    """The end of p's turn after playing `tile` (placed or passed): it leaves the hand (the first tile equal to
    it), p draws, the move is counted and the turn passes on (S-T1); at the end of the game it stays."""
    g.hand[p].remove(tile)
    draw(g, p)
    g.move_index += 1
    q = next_seat(g.hand, g.turn, g.n_players)
    if q >= 0:
        g.turn = q


# ----- speed devices that follow the rule above ---------------------------------------------------------------
def fixed_turns(g: GameView, rnd: Sequence[Callable[[], float]]) -> Iterable[tuple[int, Tile]]:
    """(seat, tile) of every move of a playout where nothing but the turn's own draw changes a hand and hands
    hold at most one tile (pyengine.fast._fixed_turns), as `end_turn` would make them one by one.

    With one tile in hand a seat has nothing to pick: it plays its hand, then its supply from the top, and
    `next_seat` skips a seat that has run out, so it drops out of the rounds. The whole order is known
    before the first move, and so is the end: the hands and supplies played are emptied, the turn and move
    count set here (no move reads them). Hands of several tiles (only if some were handed out by other
    means) are played move by move (`picks`)."""
    hand, supply, n, p = g.hand, g.supply, g.n_players, g.turn
    if not hand[p]:  # the seat to play has nothing: the game is over
        return ()
    if max(map(len, hand)) > 1:
        return picks(g, rnd)
    order = [q for q in (*range(p, n), *range(p)) if hand[q]]  # clockwise from the turn
    seqs = [[*hand[q], *reversed(supply[q])] for q in order]  # the end of a supply is its top
    sizes = list(map(len, seqs))
    longest = max(sizes)
    if min(sizes) == longest:  # as many tiles each (a new game): round after round, every seat in turn
        # the tiles in playing order, each seat's every m-th from its place in the round, beside the seats
        # repeated: the loop then steps two lists, not a chain of iterators over the seats' sequences
        m = len(order)
        tiles = seqs[0] * m  # as long as the game's moves; every slot is written below
        for i, seq in enumerate(seqs):
            tiles[i::m] = seq
        moves: Iterable[tuple[int, Tile]] = zip(order * longest, tiles, strict=True)
        g.turn = order[-1]  # the seat that plays last
    else:  # rounds in which the seats that have run out are left out (zip_longest's None)
        moves = filter(None, chain.from_iterable(zip_longest(*map(zip, map(repeat, order), seqs))))
        g.turn = [q for q, m in zip(order, sizes, strict=True) if m == longest][-1]  # the last of the last round
    for q in order:
        hand[q].clear()
        supply[q].clear()
    g.move_index += sum(sizes)
    return moves


def picks(g: GameView, rnd: Sequence[Callable[[], float]]) -> Iterator[tuple[int, Tile]]:
    """(seat, tile) of each move as the general loop makes it: a random pick from the seat's hand, then,
    once the move is made, `end_turn`."""
    hand = g.hand
    while True:
        p = g.turn
        hp = hand[p]
        ti = floor(rnd[p]() * len(hp)) if len(hp) > 1 else 0
        tile = hp[ti]
        yield p, tile
        end_turn(g, p, tile)
        if g.turn == p and not hand[p]:  # nobody holds a tile: the game is over
            return


# The seats after each seat, clockwise, for the generated loop (NEXTS: per player count, kept in its module);
# the turn is kept in a local `p` and stored on the way out.
PYTHON_SEATS = [
    "seats = NEXTS.get(n)",
    "if seats is None:",
    "    nexts = [tuple((q + s) % n for s in range(1, n + 1)) for q in range(n)]",
    "    seats = NEXTS[n] = (nexts, [ns[0] for ns in nexts])",
    "nexts, nxt = seats",
]


def python_end_of_turn(fixed: bool, loc: Locals) -> list[str]:
    """`end_turn` as source for the generated playout loop (pyengine.fast), which keeps the seat to play in
    `p`, its hand in `hp` and the seats after each in `nxt` (the next one) and `nexts` (all, clockwise): the
    draw step inline (DRAW, `draw`, when an ability left a draw pending), then `next_seat`, trying the next
    seat first since it usually still holds a tile. Nothing when `fixed` (fixed_turns made the order)."""
    if fixed:
        return []
    loc.require("g", "p", "hp", "tile", "pending", "supply", "hand", "nxt", "nexts")
    return [
        "hp.remove(tile)  # the first tile equal to it, as Game.play takes it from a hand",
        "if pending:",
        "    DRAW(g, p)",
        "else:",
        "    sp = supply[p]",
        "    if sp:",
        "        hp.append(sp.pop())",
        "q = nxt[p]  # usually the next seat clockwise still holds a tile",
        "hq = hand[q]",
        "if hq:",
        "    p = q",
        "    hp = hq",
        "else:",
        "    for q in nexts[p]:",
        "        if hand[q]:",
        "            p = q",
        "            hp = hand[q]",
        "            break",
        "    else:",
        "        g.turn, g.move_index = p, mi + 1",
        "        return",
    ]


# `draw` in the native engine (native/cgen.py puts it before ctext.py's play_out): hand_add keeps the hand
# in the reference order. The usual step, the top of the supply, is inlined into the playout loop; a pending
# "draw N, keep one" is the call out of it, and no test at all where no ability leaves one (PENDING_DRAWS,
# cgen.py).
C_DRAW = """\
/* a pending draw N, keep one, as `draw` */
static __attribute__((noinline)) void draw_pending(S *s, int p) {
    s->pend_on[p] = 0;
    i32 drawn[TMAX]; int m = 0;
    while (m < s->pend_n[p] && s->nsupply[p]) drawn[m++] = s->supply[p][--s->nsupply[p]];
    if (!m) return;
    int kept = 0;
    for (int i = 0; i < m; i++) if (drawn[i] == s->pend_keep[p]) { kept = i; break; }
    hand_add(s, p, drawn[kept]);
    memmove(&drawn[kept], &drawn[kept + 1], sizeof(i32) * (m - kept - 1));
    m--;
    if (s->pend_rest[p] == REST_BOTTOM) {  /* each under the supply in turn: the last drawn ends lowest */
        memmove(&s->supply[p][m], &s->supply[p][0], sizeof s->supply[p][0] * s->nsupply[p]);
        for (int i = 0; i < m; i++) s->supply[p][m - 1 - i] = drawn[i];
        s->nsupply[p] += m;
    } else if (s->pend_rest[p] == REST_TOP) {  /* back on top, the first drawn to be drawn first again */
        for (int i = m - 1; i >= 0; i--) s->supply[p][s->nsupply[p]++] = drawn[i];
    }
}
/* the draw step of a turn (the top of the supply), or a pending draw N, keep one, as `draw` */
static inline __attribute__((always_inline)) void draw_after_turn(S *s, int p) {
    if (PENDING_DRAWS && s->pend_on[p]) draw_pending(s, p);
    else if (s->nsupply[p]) hand_add(s, p, s->supply[p][--s->nsupply[p]]);
}
"""

def c_leaving(loc: Locals) -> list[str]:
    """`end_turn`'s first step in the native playout loop (native/ctext.py play_out), which picked the tile
    `code` at index `ti` of p's hand: the first tile equal to it is the one to leave the hand, as
    `end_turn` takes it (an equal tile may come before the one picked), so the order left is the reference
    engine's and the same draws pick the same tiles. Found before the move, while the move can only append
    to the hand (an ability's tile). In a hand of two (`nh` tiles before the move) the tiles are next to
    each other, and taking either of two equal neighbours leaves the same hand: only a longer hand is
    searched, so the usual hand tests its size, not the tile drawn (a coin toss in a hand of two)."""
    loc.require("s", "p", "nh", "ti", "code")
    return ["if (nh > 2) for (int j = 0; j < ti; j++) if (s->hand[p][j] == code) { ti = j; break; }"]


def c_end_of_turn(loc: Locals, stop: str = "return;", count: str = "s->move_index++;",
                  to: str = "s->turn = q;") -> list[str]:
    """`end_turn` in the native playout loop after the move: the tile at `ti` (c_leaving) leaves the hand,
    the draw step (C_DRAW), the move counted (`count`), `next_seat` (the turn passed by `to`, q the seat);
    the playout ends (`stop`) when nobody holds a tile. The usual turn, the top of the supply drawn with no
    draw pending, puts the drawn tile last without a count changed: where a hand holds one tile
    (HAND_GROWS 0, cgen.py), the played one's place; where it may hold two, the tile not played goes first
    and the drawn one second, whichever of the two was played (a coin toss, so not a test)."""
    loc.require("s", "p", "ti")
    return [
        "int left = s->nhand[p] - 1;",
        "if ((HAND_GROWS ? left <= 1 : ti == left) && !(PENDING_DRAWS && s->pend_on[p]) && s->nsupply[p]) {",
        "    if (HAND_GROWS) s->hand[p][0] = s->hand[p][!ti];  /* left 1: the tile not played (left 0: none) */",
        "    s->hand[p][left] = s->supply[p][--s->nsupply[p]];",
        "} else {",
        "    for (int i = ti + 1; i <= left; i++) s->hand[p][i - 1] = s->hand[p][i];  /* hands are short */",
        "    s->nhand[p] = left;",
        "    draw_after_turn(s, p);",
        "}",
        count,
        "int q = p + 1 == s->n ? 0 : p + 1;  /* the next seat clockwise that holds a tile: usually the next */",
        "if (!s->nhand[q]) {",
        "    for (int step = 2; step <= s->n; step++) {",
        "        if (++q == s->n) q = 0;",
        "        if (s->nhand[q]) break;",
        "    }",
        f"    if (!s->nhand[q]) {stop}",
        "}",
        to,
    ]
