"""The public missions' incremental check (I-M1), a speed device of the generated engine (pyengine/fast.py):
after every placement a card is re-read for a player only when something its condition reads (compile/reads.py)
changed since the last check, and a bounded card (`E >= N`) only once what changed may have brought E to N.
The rule itself is rules/public.check, which the reference engine runs; this check decides only when to read,
reads a card as `check` does and pays through rules.public.pay, and tests/test_public_reads.py proves it gives
exactly the events of `check` on every bundled ruleset and on generated mission cards.

This layer sits above rules/ and below runtime/ (whose generated engine uses it), so it sees the game as an
untyped value: the runtime's Game, with the fields listed where they are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import compress
from operator import ne
from typing import TYPE_CHECKING, Any

from rebirth_dsl.compile.emit import Emitter, Locals, assigned, literal
from rebirth_dsl.compile.exprgen import direct_function
from rebirth_dsl.compile.reads import GROUP, REACH, VALUE
from rebirth_dsl.compile.ruleset import PublicRule
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.limits import MAX_PLAYERS
from rebirth_dsl.rules.public import pay, seats
from rebirth_dsl.rules.table import kind_of
from rebirth_dsl.rules.view import EMPTY, NEUTRAL

if TYPE_CHECKING:
    from rebirth_dsl.compile.ruleset import Ruleset

Game = Any  # runtime.game.Game, a layer above this one


# ----- the incremental check -----------------------------------------------------------------------
# A bounded card (compile/reads.py Threshold: `E >= N`, where only its holder's own tiles, landmarks taken and
# areas won raise E, each by at most a known amount) is not read again until they may have raised E by what it
# lacked at its last read, which is kept per seat and card (g.public_seen[4]) and brought down by the most each
# change may raise it. A card whose E is a largest group (GROUP) is read when the tile's own group reaches N, the
# only way its largest group grows.
def public_missions(g: Game, p: int, r: PublicRule, index: int | None, h: int = -1) -> None:
    """After every placement (here on h): each player, the placer first, then clockwise, against every
    face-up card they have not fulfilled, re-reading a card for a player only when something its condition
    reads (compile/reads.py) changed since the last check."""
    if not g.public:
        return
    w = (g.rs.derived.public_reads or _watches(g.rs))[g.n_players]  # built once per ruleset, read inline
    seen = g.public_seen
    if seen and h >= 0:  # the usual case, first: what changed since the last check is this placement's doing
        so, sl, sw, live, lack = seen
        q = g.owner[h]
        if so[h] == EMPTY and q >= 0:
            # Tiles are only ever added by a placement, and every placement, in either engine, runs this check
            # among its reactions: the tile on h is the only one added since the last check.
            so[h] = q
            plain, bits, steps, anyone = w.at[g.tkind[h]][h]
            lq = live[q]
            d = plain & lq  # most often nothing, or a card or two of the placer's own
            if bits & lq:
                d |= _closer(g, h, steps, lq, lack, q * w.ncards)
            if sl == g.lm_owner and sw[0] == len(g.area_first) and not anyone:  # and nothing else changed
                if d:
                    _read_for(g, q, d, r, index, w)
            else:
                _after(g, w, h, q, d, anyone, r, index)
            return
    _read_cards(g, p, r, index, _changed(g, w, h), w)


# ----- forks that start warm ----------------------------------------------------------------------
# The reference engine runs the rule itself and keeps no incremental state, so a fork of its game starts with
# none, and the generated engine's first check on the fork compares the position with the empty one: every
# card not bounded, and every bounded one the tiles since may have closed, is read for every player. An agent
# forks one position hundreds of times (playouts, probes, determinisations). So the state a check at that
# position leaves is found once, on a scratch copy, and every fork of the position starts from a copy of it;
# that check itself starts from the state found for the position before, when this one grew out of it (as
# the generated engine's own checks do, comparing), so following a game costs a check per position.
def warm_fork(g: Game) -> Game:
    """g.fork() for the generated engine to play on, with its incremental check as a check at this position
    leaves it when that check would pay nothing there (see _warm); a plain fork otherwise. Only the generated
    engine may play on it: a move of the reference engine, which keeps no state, would leave it behind."""
    f = g.fork()
    if f.public_seen or not g.public:  # a game of the generated engine carries its own (the fork copied it)
        return f
    seen = _warm(g)
    if seen is not None:
        f.public_seen = list(map(list, seen))  # the fork's own lists: its checks change them in place
    return f


@dataclass(frozen=True)
class _Position:
    """What the cards' reads and the check's state depend on, copied: the tiles, the landmarks' holders, the
    areas won, the face-up cards and who has fulfilled each (what a card reads beyond these is read at every
    check: _Watch.always)."""

    n: int
    owner: list[int]
    tkind: list[int]
    tval: list[int]
    lm_owner: list[int]
    won: dict[int, int]
    public: list[str]
    by: dict[str, list[int]]

    @staticmethod
    def of(g: Game) -> _Position:
        """g's position, copied."""
        by = g.public_by
        return _Position(g.n_players, list(g.owner), list(g.tkind), list(g.tval), list(g.lm_owner),
                         dict(g.area_first), list(g.public), {c: list(done) for c, done in by.items()})

    def same(self, g: Game) -> bool:
        """Whether g is at this position."""
        return bool(self.owner == g.owner and self.lm_owner == g.lm_owner and self.by == g.public_by
                and self.tkind == g.tkind and self.tval == g.tval and self.won == g.area_first
                and self.n == g.n_players and self.public == g.public)

    def grew_into(self, g: Game) -> bool:
        """Whether g's position is this one after moves: every tile still there, the areas won then still the
        first won, the fulfillers then still the first of each card (landmarks may have changed hands)."""
        won = list(self.won.items())
        if self.n != g.n_players or self.public != g.public or won != list(g.area_first.items())[:len(won)]:
            return False
        by = g.public_by
        if any(by.get(c, [])[:len(done)] != done for c, done in self.by.items()):
            return False
        so = self.owner
        for was, now in ((so, g.owner), (self.tkind, g.tkind), (self.tval, g.tval)):
            # a hex that differs was empty then (the few tiles placed since; compared in C, not hex by hex)
            if was != now and any(so[x] != EMPTY for x in compress(range(len(was)), map(ne, was, now))):
                return False
        return True


def _warm(g: Game) -> list[list[int]] | None:
    """The incremental state a check at g's position leaves (found once per position: the last one asked for
    is kept), or None where that check would pay something: a card met and not paid yet (a reaction after
    the check changed what it reads), which the fork's own first check must find, so the fork starts cold."""
    slot = _warm_slot(g.rs)
    last, base = slot  # (position, state or None) of the last position asked for; of the last with a state
    if last is not None and last[0].same(g):
        seen: list[list[int]] | None = last[1]
        return seen
    seen = None
    rules = [r for r in g.rs.reactions if kind_of(r).reads_public]
    if len(rules) == 1:
        s = g.fork()  # scratch: the check runs there, after no placement (h -1)
        if base is not None and base[0].grew_into(g):  # compared with the position before, as after any check
            w = _watch(g.rs, g.n_players)
            s.public_seen = [list(x) for x in base[1]]
            s.public_seen[3] = _live(s, w)  # the cards fulfilled since are not read
        paid = sum(map(len, s.public_by.values()))
        public_missions(s, g.turn, rules[0], None)
        if s.public_seen and sum(map(len, s.public_by.values())) == paid:
            seen = s.public_seen  # paying nothing, the check changed nothing else: its state is the position's
    pos = _Position.of(g)
    slot[:] = [(pos, seen), (pos, seen) if seen is not None else base]
    return seen


def _warm_slot(rs: Ruleset) -> list[Any]:
    """Where _warm keeps its two entries, in the ruleset's `derived` field."""
    slot: list[Any] | None = rs.derived.public_warm
    if slot is None:
        slot = rs.derived.public_warm = [None, None]
    return slot


def _after(g: Game, w: _Watch, h: int, q: int, d: int, anyone: int, r: PublicRule, index: int | None) -> None:
    """Read the cards after q's tile on h, the only one added since the last check and taken already (d: q's
    cards to read for it; anyone: the cards it changes for every player), when landmarks next to h changed
    hands or areas were won (the cards these change found as after any comparison: _others); when a landmark
    elsewhere changed hands too, compared in full."""
    seen = g.public_seen
    sl, sw = seen[1], seen[2]
    lm_owner, won = g.lm_owner, g.area_first
    moved = []
    for lm in g.lm_adj[h]:
        was = sl[lm]
        if was != lm_owner[lm]:
            moved.append((lm, was))
            sl[lm] = lm_owner[lm]
    if sl != lm_owner or sw[0] > len(won):
        for lm, was in moved:  # left as they were for the comparison
            sl[lm] = was
        # the full comparison takes the tile again, which is safe (what a bounded card lacks may be
        # under-estimated, never over-estimated)
        seen[0][h] = EMPTY
        dirty = _changed(g, w, h)
        dirty[q] |= d  # those already found (public_source may have taken landmarks next to h: seen above)
        _read_cards(g, q, r, index, dirty, w)
        return
    dirty = [0] * g.n_players
    dirty[q] = d
    _read_cards(g, q, r, index, _others(g, w, dirty, moved, _winners(g), anyone), w)


def public_source(rs: Ruleset, rule: str, kid: int, hexes: tuple[int, ...], bind: Callable[[str, Any], str],
                  loc: Locals, placer_first: bool = True) -> list[str] | None:
    """public_missions' usual case as source for the generated playout loop, where the tile's kind (kid) is
    known and its hex is one of `hexes`: the tables of that kind are read at the hex, or decided here when the
    same on every such hex, and each bounded card the tile may bring closer to its number is a test of its
    own; landmarks and areas go to _after (PUBMOVED), cards to read to _read_for (PUBREAD), with the ruleset's
    _Watch of the game's player count (PUBW[n]), anything else to public_missions (PUBLIC). `rule` names the rule
    in the generated code, `bind(name, value)` names there a per-hex tuple or one of these (passed by reference,
    never as text). None: the caller emits the call. The source reads the locals `loc` declares (the enclosing
    loop's g, p, v, h, n (the player count), groot, gsize, lm_owner, touched_by and the names PUBLIC_LOCALS
    binds; asked for, an undeclared one is an error) and assigns lq, m, d, i, left, x, lm, same, xw, lx, dx of
    its own. `placer_first`: the rule reads the placer's cards first (else in seat order).

    In the playout loop the tile on h is always one the last check has not seen (the hex was free, and that check
    saw the position before), so the source takes it without asking (public_missions asks). Most placements
    bring no card to its number and move no holder: that case is kept to a few tests, and everything a card
    read or a holder moved needs (the placer's live cards, their offset in `lack`) is found only there."""
    ws = _watches(rs)
    w = ws[rs.players[0]]  # what a tile may change is the same at every count; only the numbers N follow it
    if not hexes:
        return None
    loc.require("g", "p", "v", "h", "n", "gsize", "lm_owner", "touched_by", *assigned(PUBLIC_LOCALS))
    loc = loc.declare("lq", "m", "d", "i", "left", "x", "lm", "same", "xw", "lx", "dx")
    at = w.at[kid]
    base = f"p * {literal(w.ncards)}"  # the placer's cards' offset in `lack`

    def at_hex(name: str, values: tuple[int, ...], where: Iterable[int] = hexes) -> str | None:
        """A per-hex table's value at h: a literal when it is the same on every hex of `where` (those of the list,
        or those of them where the line runs), None when 0."""
        seen = {values[h] for h in where}
        if seen == {0}:
            return None
        return literal(seen.pop()) if len(seen) == 1 else f"{bind(f'PUB{kid}{name}', values)}[h]"

    anyone = at_hex("ANY", tuple(a[3] for a in at))
    if anyone is not None and not anyone.endswith("[h]"):
        return None  # a tile on any of these hexes changes cards for every player: the call reads them
    plain = at_hex("PLAIN", tuple(a[0] for a in at))
    tests = ["ps"]
    body = ["so[h] = p", f"d = {plain} & live[p]" if plain else "d = 0"]
    if anyone is not None:
        tests.append(f"not {anyone}")
    cards: list[str] = []  # the tests of the cards in m
    grown = 0  # their bits
    after: list[str] = []  # the tests of the cards a tile on every hex of the list may bring to their number
    # m: the placer's live cards among the bounded ones a tile on h brings closer (at[h][1]: those with a growth
    # there, of the one form each has over these hexes), tested once per card instead of the card's liveness
    # and then its growth on h. A card read by the size of the tile's group (GROUP, REACH), which grows on every
    # hex of the list, is left out of m: the size is compared first, and only when it is reached is the card's
    # liveness asked (a group seldom reaches the size, while most placements have such a card live).
    for b, i in sorted({st[:2] for a in at for st in a[2]}):
        grow = [next((st[2:] for st in a[2] if st[0] == b), (0, 0)) for a in at]  # per hex: (how much, N)
        forms = {_FORMS.get(up, "by") for up, _ in (grow[h] for h in hexes)} - {None}
        if not forms:
            continue
        if len(forms) > 1 or len({grow[h][1] for h in hexes if grow[h][0] < 0}) > 1:
            return None  # growths of different forms over these hexes: the call takes them
        form = forms.pop()
        lower = [f"i = {base} + {literal(i)}", "left = lack[i] = lack[i] - {}", "if left <= 0:",
                 f"    d |= {literal(b)}"]
        if form == "by":  # a number of its own per hex
            ups = tuple(max(up, 0) for up, _ in grow)
            by = at_hex(f"UP{i}", ups, [h for h in hexes if ups[h]])  # read only where the card is in m
            assert by is not None
            block = [ln.format(by) for ln in lower]
            near = _touches(rs, w, b, ups)
            if near is not None and str(at_hex(f"UP{i}", ups)).endswith("[h]"):
                # the landmarks it counts that the tile is next to and the placer had not touched (the game marks
                # them touched after every reaction): what the count grows by, where the table has at most that
                block = [f"x = len({bind(f'PUBNEAR{i}', near)}[h].difference(touched_by[p]))",
                         "if x:", *("    " + ln.format("x") for ln in lower)]
        else:
            # the GROUP limit N (or REACH size) per player count, one number over these hexes at each count
            per: list[int] = []
            for wc in ws:
                nc = {st[3] for h in hexes for st in wc.at[kid][h][2] if st[0] == b and st[2] < 0}
                if len(nc) != 1:
                    return None
                per.append(nc.pop())
            n = literal(per[0]) if len(set(per)) == 1 else f"{bind(f'PUBN{i}', tuple(per))}[{loc('n')}]"
            if form == "value":  # by the tile's value
                block = [ln.format("v") for ln in lower]
            else:
                reached = f"gsize[{loc('groot')}] >= {n}"
                # group: the largest group is now at least the tile's own; reach: one more group of the size if
                # the tile's own now is one
                then = [f"d |= {literal(b)}"] if form == "group" else [ln.format("1") for ln in lower]
                if all(grow[h][0] < 0 for h in hexes):
                    after += [f"if {reached} and live[p] & {literal(b)}:", *("    " + ln for ln in then)]
                    continue
                block = [f"if {reached}:", *("    " + ln for ln in then)]
        cards += [f"if m & {literal(b)}:", *("    " + ln for ln in block)]
        grown |= b
    if cards:
        ms = at_hex(f"M{grown}", tuple(a[1] & grown for a in at))
        if ms is not None:
            body += [f"m = live[p] & {ms}", "if m:", *("    " + ln for ln in cards)]
    body += after
    taken = _taken_source(w, bind, base)
    won = _won_source(w, "lq", "d", base)
    read, moved, watch = bind("PUBREAD", _read_for), bind("PUBMOVED", _after), f"{bind('PUBW', ws)}[{loc('n')}]"
    # _read_for's first step (a card needing its reader to hold a landmark is false without it), made here:
    # taking a landmark often makes such a card worth reading for nothing

    def reading(e: Emitter, seat: str, dv: str) -> None:
        """Read for `seat` the cards of the bits `dv` (a local name), when there are some."""
        with e.block(f"if {dv}:"):
            for b, lm in w.holds:
                with e.block(f"if {dv} & {literal(b)} and lm_owner[{literal(lm)}] != {seat}:"):
                    e.line(f"{dv} ^= {literal(b)}")
            with e.block(f"if {dv}:") if w.holds else nullcontext():
                e.line(f"{read}(g, {seat}, {dv}, {rule}, None, {watch})")

    def compared(e: Emitter) -> None:
        """Whatever else changed since the last check, compared in full (_after)."""
        e.line(f"{moved}(g, {watch}, h, p, d, 0, {rule}, None)")
        e.extend(PUBLIC_LOCALS)

    # Where no statement may change a landmark's holder or win an area by the time the check runs (a placement
    # on these hexes, the statements after the check on any), the holders and the areas won are those of the
    # last check, which brought its own up to date: they are not compared. Where only some of the hexes may
    # move a holder, the holders are compared only on those (a table of the board's hexes).
    holders_at = _holders_at(rs)
    holders, areas = any(holders_at[h] for h in hexes), _unsettled(rs, hexes)[1]
    moving = "" if all(holders_at[h] for h in hexes) else f"{bind('PUBHOLD', holders_at)}[h] and "
    e = Emitter()
    with e.block(f"if {' and '.join(tests)}:"):
        e.extend(body)
        if not holders and not areas:  # nothing but the tile changed since the last check
            reading(e, "p", "d")
        elif not areas:
            with e.block(f"if {moving}sl != lm_owner:"):
                if taken:  # the holders compared again only after taking those the placer took next to h
                    e.extend(["lq = live[p]", *taken])
                    with e.block("if sl == lm_owner:"):
                        reading(e, "p", "d")
                    with e.block("else:"):
                        compared(e)
                else:
                    compared(e)
            with e.block("else:"):
                reading(e, "p", "d")
        else:
            if holders and taken:
                with e.block(f"if {moving}sl != lm_owner:"):
                    e.extend(["lq = live[p]", *taken])
                    e.line("same = sl == lm_owner")
                with e.block("else:"):
                    e.line("same = True")
            elif holders:
                e.line(f"same = {'not ' + moving[:-5] + ' or ' if moving else ''}sl == lm_owner")
            same = ["same"] if holders else []
            with e.block(f"if {' and '.join([*same, 'sw[0] == len(won)'])}:"):
                reading(e, "p", "d")
            if won:
                # the winner of the area won last (areas are only ever won, in order: the dict's last entry); another
                # seat's cards are read after the placer's, as _read_cards reads them when the placer reads first
                last = f"{bind('NEXT', next)}({bind('REVERSED', reversed)}(won.values()))"
                if placer_first:
                    with e.block(f"elif {' and '.join([*same, 'sw[0] + 1 == len(won)'])}:"):
                        e.line("sw[0] += 1")
                        e.line(f"xw = {last}")
                        with e.block("if xw == p:"):
                            e.extend(["lq = live[p]", *won])
                            reading(e, "p", "d")
                        with e.block("else:"):
                            reading(e, "p", "d")
                            with e.block("if xw >= 0:"):
                                e.extend(["lx = live[xw]", "dx = 0",
                                          *_won_source(w, "lx", "dx", f"xw * {literal(w.ncards)}")])
                                reading(e, "xw", "dx")
                else:  # in seat order: only the placer's own area here (another seat may read before the placer)
                    with e.block(f"elif {' and '.join([*same, 'sw[0] + 1 == len(won)', f'{last} == p'])}:"):
                        e.line("sw[0] += 1")
                        e.extend(["lq = live[p]", *won])
                        reading(e, "p", "d")
            with e.block("else:"):
                compared(e)
    with e.block("else:"):
        e.line(f"PUBLIC(g, p, {rule}, None, h)")
        e.extend(PUBLIC_LOCALS)
    return e.lines


def _holders_at(rs: Ruleset) -> tuple[bool, ...]:
    """Per hex of the board, whether a landmark may have changed hands since the last check when the check after
    a placement there runs (_unsettled's first answer, for that hex alone)."""
    kinds = [(kind_of(r), r) for r in rs.reactions]
    first = next((i for i, (kd, _) in enumerate(kinds) if kd.reads_public), len(kinds))
    later = any(kd.moves_holder(r, rs, h) for kd, r in kinds[first + 1:] for h in range(rs.t.n))
    return tuple(later or any(kd.moves_holder(r, rs, h) for kd, r in kinds[:first + 1]) for h in range(rs.t.n))


def _unsettled(rs: Ruleset, hexes: tuple[int, ...]) -> tuple[bool, bool]:
    """Whether, when the check after a placement on one of `hexes` runs, a landmark may have changed hands and
    an area may have been won since the last check: a statement of the ruleset may do it on these hexes
    (Kind.moves_holder, Kind.wins_area), or a statement after the check may, on any hex (after the last
    placement's check). Before its first check a game's check is public_missions', which compares."""
    kinds = [(kind_of(r), r) for r in rs.reactions]
    first = next((i for i, (kd, _) in enumerate(kinds) if kd.reads_public), len(kinds))
    every = range(rs.t.n)
    holders = any(kd.moves_holder(r, rs, h) for i, (kd, r) in enumerate(kinds) for h in (every if i > first else hexes))
    areas = any(kd.wins_area(r, rs, h) for i, (kd, r) in enumerate(kinds) for h in (every if i > first else hexes))
    return holders, areas


# The check's lists (g.public_seen) as locals of the generated loop, bound before it and again after each call
# that may make them anew (public_missions, _after: a first check, or one that starts again); the other calls
# (_read_for) only change them in place. Read by public_source's source.
PUBLIC_LOCALS = ["ps = g.public_seen", "so, sl, sw, live, lack = ps or (None, None, None, None, None)",
                 "won = g.area_first"]
# The same, once per game before the playout's first move: where the game starts, the state its first check would
# leave without reading (fresh_start, bound as PUBFRESH), so that check is the written-out one.
PUBLIC_START = ["ps = PUBFRESH(g)", *PUBLIC_LOCALS[1:]]


_FORMS = {0: None, VALUE: "value", GROUP: "group", REACH: "reach"}  # a growth's form (any other: "by" itself)


def _touches(rs: Ruleset, w: _Watch, b: int, up: tuple[int, ...]) -> tuple[frozenset[int], ...] | None:
    """For the card of bit b when its threshold's measure is `count(touched(me, K))` (or size) and `up` (what a
    tile may add to it, per hex) is the number of K landmarks around each hex: those landmarks, per hex (a tile
    next to one its holder has touched already adds nothing for it). None for any other card."""
    t = rs.t
    cards = {c.name: c for cards in rs.decks.values() for c in cards}  # as _watch has them
    card = next((c for name, c in cards.items() if w.bit[name] == b), None)
    if card is None or card.threshold is None:
        return None
    match card.threshold.measure:
        case A.Call(fn="count" | "size", args=(A.Call(fn="touched", args=(A.Name(id="me"), A.Name(id=kind))),)):
            pass
        case _:
            return None
    near: list[set[int]] = [set() for _ in range(t.n)]
    for lm, k in enumerate(t.landmark_kind):
        if k == kind:
            for m in t.neighbours[t.landmark_hex[lm]]:
                near[m].add(lm)
    if any(len(s) != u for s, u in zip(near, up, strict=True)):
        return None  # not the growth this knows
    return tuple(map(frozenset, near))


def _taken_source(w: _Watch, bind: Callable[[str, Any], str], base: str) -> list[str]:
    """_after's work for the landmarks next to h the placer p has taken since the last check, as source for
    public_source (run where the last check's holders `sl` differ from `lm_owner`, the placer's live cards in
    `lq`, their offset in `lack` the expression `base`): each is marked seen, and
    the cards it may change for its taker are added to d, bounded ones brought closer by what each landmark
    raises them (a table per card over the landmarks). Whatever else changed (a landmark elsewhere or taken
    by another, an area won) is left for _after, called when `sl` still differs. None of this when a
    landmark changing hands may change cards for others (lost, or read by every player): _after does it all."""
    if w.lm_lost or w.landmarks_anyone or w.always or not (w.lm_plain or any(w.lm_steps)):
        return []
    block = ["if lm_owner[lm] == p and sl[lm] != p:", "    sl[lm] = p"]
    if w.lm_plain:
        block.append(f"    d |= {literal(w.lm_plain)} & lq")
    for b, i in sorted({st[:2] for steps in w.lm_steps for st in steps}):
        ups = tuple(next((up for b_, _, up in steps if b_ == b), 0) for steps in w.lm_steps)
        block += [f"    if lq & {literal(b)}:", f"        x = {bind(f'PUBLMUP{i}', ups)}[lm]", "        if x:",
                  f"            i = {base} + {literal(i)}", "            left = lack[i] = lack[i] - x",
                  "            if left <= 0:", f"                d |= {literal(b)}"]
    return ["for lm in LMADJ[h]:", *("    " + ln for ln in block)]


def _won_source(w: _Watch, live: str, dv: str, base: str) -> list[str]:
    """_after's work for one area won since the last check, as source for public_source (run where nothing else
    changed, once it is marked seen): the cards it may change for its winner (live cards `live`, what they lack
    from `base`) added to `dv`, bounded ones brought closer. None of this (an empty list) when an area won may
    change cards for every player; ["pass"] when it changes none."""
    if w.won_anyone or w.always:
        return []
    out = []
    if w.won_plain:
        out.append(f"{dv} |= {literal(w.won_plain)} & {live}")
    for b, i, up in w.won_steps:
        out += [f"if {live} & {literal(b)}:", f"    i = {base} + {literal(i)}",
                f"    left = lack[i] = lack[i] - {literal(up)}", "    if left <= 0:", f"        {dv} |= {literal(b)}"]
    return out or ["pass"]


def _read_cards(g: Game, p: int, r: PublicRule, index: int | None, dirty: list[int] | None, w: _Watch) -> None:
    """Read the face-up cards for each player in turn (the placer first, or in seat order); `dirty[q]`: the
    cards (bits of w.bit) to read for seat q, None for all."""
    for q in seats(p, g.n_players, r.placer_first):
        d = -1 if dirty is None else dirty[q]
        if d:
            _read_for(g, q, d, r, index, w)


def _read_for(g: Game, q: int, d: int, r: PublicRule, index: int | None, w: _Watch) -> None:
    """Read for seat q the face-up cards of the bits d, in their face-up order, and pay those fulfilled."""
    if d & w.held:  # a card that needs its reader to hold a landmark q does not hold is false: not read
        lm_owner = g.lm_owner
        for b, lm in w.holds:
            if d & b and lm_owner[lm] != q:
                d ^= b
        if not d:
            return
    public_by = g.public_by
    one = w.name_of.get(d)  # one card, the usual case (only a single bit names a card)
    if one is not None:
        names: Any = (one,)
    else:
        bit = w.bit
        names = [name for name in g.public if d & bit[name]]
    seen = g.public_seen
    readers = w.readers
    g.memo = {}  # the position is fixed while the cards are read
    try:
        for name in names:
            done = public_by[name]
            if q in done:
                continue
            i, measure, limit, cond = readers[name]
            if measure is not None and seen:  # `E >= N`: keep what E lacks (the fields above)
                short = limit - measure(g, q)
                if short > 0:
                    seen[4][q * w.ncards + i] = short
                    continue
            elif not cond(g, q):
                continue
            pay(g, q, name, r, index)
            if seen:
                seen[3][q] &= ~w.bit[name]
    finally:
        g.memo = None


@dataclass(frozen=True)
class _Watch:
    """Per ruleset and player count, the cards' reads as bitmasks over the cards (one bit per card name), looked
    up by what changed: a tile of kind k added on hex h, a landmark changing hands, an area won. Per count
    because a card's number N may follow it (reads.Threshold.limits): what a card lacks, and the GROUP limits."""

    bit: dict[str, int]
    name_of: dict[int, str]  # the card of each bit
    mine: tuple[tuple[int, ...], ...]  # [kind][hex]: cards a tile there may change for its own holder
    anyone: tuple[tuple[int, ...], ...]  # [kind][hex]: cards a tile there may change for every player, and
    # those whose reads are unknown (read after every placement)
    # (the cards a seat can still fulfil are kept per game, in g.public_seen)
    landmarks_mine: int  # cards a landmark changing hands may change for the two holders
    landmarks_anyone: int
    won_mine: int  # cards an area won may change for its winner
    won_anyone: int
    always: int  # cards whose reads are unknown
    ncards: int
    bounded: int  # cards with a threshold form (compile/reads.py Threshold)
    # per [kind][hex], for a tile there: what it may change for its holder less the bounded cards (plain),
    # the bounded cards it may bring closer to their number (their bits, and per card: bit, card index, how
    # much, GROUP limit or REACH size), and `anyone` (with `always`)
    at: tuple[tuple[tuple[int, int, tuple[tuple[int, int, int, int], ...], int], ...], ...]
    lm_plain: int  # landmarks_mine less the bounded cards: read for the seat that takes a landmark
    lm_lost: int  # those of them a landmark lost may turn true (not Reads.taken_only): read for the seat losing it
    lm_steps: tuple[tuple[tuple[int, int, int], ...], ...]  # [landmark]: (bit, card index, how much) for its taker
    won_plain: int
    won_steps: tuple[tuple[int, int, int], ...]  # (bit, card index, how much) per area won, for its winner
    held: int  # cards that need their reader to hold a landmark (Reads.holds)
    holds: tuple[tuple[int, int], ...]  # (bit, landmark) of each
    lack0: tuple[int, ...]  # per card, what a bounded one lacks where its reader has nothing (0: not bounded)
    first: int  # the cards the first check reads: those not bounded, and those met where the reader has nothing
    # per card name: its index (its bit's position), and its measure (None: not a threshold), number and
    # condition as functions of the game and the reader (exprgen.direct_function: no context object made)
    readers: dict[str, tuple[int, Callable[..., Any] | None, int, Callable[..., Any]]]


def _watch(rs: Ruleset, n: int) -> _Watch:
    """The ruleset's _Watch for games of n players (_watches)."""
    return _watches(rs)[n]


def _watches(rs: Ruleset) -> tuple[_Watch, ...]:
    """The ruleset's _Watch per player count (indexed by the count, 0 to MAX_PLAYERS: a scenario may seat a
    count the ruleset does not play), built once and kept in its `derived` field; counts whose cards have
    the same numbers share one."""
    kept: tuple[_Watch, ...] | None = rs.derived.public_reads
    if kept is not None:
        return kept
    cards = {c.name: c for cards in rs.decks.values() for c in cards}  # as game.static has them: g.cards
    t = rs.t
    # the cards' measures and conditions as functions, made once for every count
    fns = {name: (None if card.measure is None else direct_function(card.measure, t, rs.group_kinds)[0],
                  direct_function(card.cond, t, rs.group_kinds)[0]) for name, card in cards.items()}
    made: dict[tuple[int | None, ...], _Watch] = {}
    ws = []
    for n in range(MAX_PLAYERS + 1):
        key = tuple(None if c.threshold is None else c.threshold.limits[n] for c in cards.values())
        if key not in made:
            made[key] = _watch_for(rs, cards, fns, n)
        ws.append(made[key])
    out = tuple(ws)
    rs.derived.public_reads = out
    return out


def _watch_for(rs: Ruleset, cards: dict[str, Any], fns: dict[str, tuple[Callable[..., Any] | None,
               Callable[..., Any]]], n: int) -> _Watch:
    """The _Watch of games of n players: every bounded card's number N is the count's (Threshold.limits[n])."""
    t, nk = rs.t, len(rs.tile_kinds)
    bit = {name: 1 << i for i, name in enumerate(cards)}
    mine = [[0] * t.n for _ in range(nk)]
    anyone = [[0] * t.n for _ in range(nk)]
    lm_m = lm_a = won_m = won_a = always = taken = 0
    holds: list[tuple[int, int]] = []
    for name, card in cards.items():
        b, rd = bit[name], card.reads
        if rd is None or rd.everything:
            always |= b
            continue
        for k in range(nk):
            for table, hexes in ((mine, rd.mine[k]), (anyone, rd.anyone[k])):
                row = table[k]
                while hexes:
                    low = hexes & -hexes
                    row[low.bit_length() - 1] |= b
                    hexes ^= low
        lm_m |= b if rd.landmarks_mine else 0
        if rd.holds >= 0:
            holds.append((b, rd.holds))
        taken |= b if rd.taken_only else 0
        lm_a |= b if rd.landmarks_anyone else 0
        won_m |= b if rd.won_mine else 0
        won_a |= b if rd.won_anyone else 0
    ths = {bit[name]: card.threshold for name, card in cards.items()
           if card.threshold is not None and card.measure is not None and not always & bit[name]}
    bounded = sum(ths)
    limit = {b: th.limits[n] for b, th in ths.items()}  # N with n players
    lack0 = [0] * len(bit)
    for b, th in ths.items():
        lack0[b.bit_length() - 1] = limit[b] - th.base
    steps = [[tuple((b, b.bit_length() - 1, th.grow[k][h], limit[b] if th.grow[k][h] == GROUP else th.reach)
                    for b, th in ths.items() if mine[k][h] & b and th.grow[k][h])  # where the reads see a change
              for h in range(t.n)] for k in range(nk)]
    lm_steps = tuple(tuple((b, b.bit_length() - 1, th.lm_grow[lm]) for b, th in ths.items()
                           if lm_m & b and lm < len(th.lm_grow) and th.lm_grow[lm] > 0)
                     for lm in range(len(t.landmark_kind)))
    won_steps = tuple((b, b.bit_length() - 1, th.won_grow) for b, th in ths.items() if won_m & b and th.won_grow > 0)
    anyone = [[a | always for a in row] for row in anyone]
    at = tuple(tuple((mine[k][h] & ~bounded, sum(st[0] for st in steps[k][h]), tuple(steps[k][h]), anyone[k][h])
                     for h in range(t.n)) for k in range(nk))
    w = _Watch(bit, {b: name for name, b in bit.items()}, tuple(map(tuple, mine)), tuple(map(tuple, anyone)),
               lm_m, lm_a, won_m, won_a, always, len(bit), bounded, at, lm_m & ~bounded, lm_m & ~bounded & ~taken,
               lm_steps, won_m & ~bounded, won_steps, sum(b for b, _ in holds), tuple(holds), tuple(lack0),
               ~bounded | sum(b for b, th in ths.items() if limit[b] <= th.base),
               {name: (bit[name].bit_length() - 1, fns[name][0],
                       0 if card.threshold is None else card.threshold.limits[n], fns[name][1])
                for name, card in cards.items()})
    return w


def _closer(g: Game, h: int, steps: tuple[tuple[int, int, int, int], ...], lq: int, lack: list[int],
            base: int) -> int:
    """Of the bounded cards a tile on h may bring closer to their number (`steps`), the live ones of its
    holder (bits lq, what they lack from lack[base]) it may have brought there; the others' lack brought down."""
    d = 0
    size = 0
    for b, i, up, n in steps:
        if lq & b:
            i += base
            if up > 0:
                left = lack[i] = lack[i] - up
            elif up == VALUE:
                left = lack[i] = lack[i] - g.tval[h]
            else:
                if not size:  # the tile's group, found without compressing the union-find
                    parent, x = g.parent, h
                    while parent[x] != x:
                        x = parent[x]
                    size = g.gsize[x]
                if up == GROUP:  # the largest group is now at least the tile's own
                    if size >= n:
                        d |= b
                    continue
                if size < n:  # REACH: one more group of the size only if the tile's own now is one
                    continue
                left = lack[i] = lack[i] - 1
            if left <= 0:
                d |= b
    return d


def _gained(steps: tuple[tuple[int, int, int], ...], lq: int, lack: list[int], base: int) -> int:
    """The bounded cards (`steps`: bit, card index, how much) a landmark taken or an area won may have brought
    to their number for a seat (live cards lq, what they lack from base); the others' lack brought down."""
    d = 0
    for b, i, up in steps:
        if lq & b:
            i += base
            left = lack[i] = lack[i] - up
            if left <= 0:
                d |= b
    return d


def _winners(g: Game) -> list[int]:
    """The winners of the areas won since the last check (areas are only ever won, in order: the last
    entries), brought up to date."""
    sw, won = g.public_seen[2], g.area_first
    if sw[0] == len(won):
        return []
    out = list(won.values())[sw[0]:]
    sw[0] = len(won)
    return out


def _dirty(g: Game, w: _Watch, tiles: list[int], moved: list[tuple[int, int]], winners: list[int]) -> list[int]:
    """Per seat, the cards to read after the tiles on `tiles` were added, the landmarks `moved` (with their
    holder before) changed hands and the areas were won by `winners`."""
    _, _, _, live, lack = g.public_seen
    owner, tkind = g.owner, g.tkind
    dirty = [0] * g.n_players
    anyone = 0
    for x in tiles:
        q = owner[x]
        plain, bits, steps, also = w.at[tkind[x]][x]
        lq = live[q]
        dirty[q] |= plain & lq
        if bits & lq:
            dirty[q] |= _closer(g, x, steps, lq, lack, q * w.ncards)
        anyone |= also
    return _others(g, w, dirty, moved, winners, anyone)


def _others(g: Game, w: _Watch, dirty: list[int], moved: list[tuple[int, int]], winners: list[int],
            anyone: int) -> list[int]:
    """`dirty` with the cards to read for the landmarks `moved` changing hands, the areas won by `winners`
    and the cards every player reads (anyone, and those whose reads are unknown)."""
    _, _, _, live, lack = g.public_seen
    lm_owner = g.lm_owner
    anyone |= w.always
    for lm, was in moved:
        anyone |= w.landmarks_anyone
        if was >= 0:  # losing a landmark never raises a bounded card
            dirty[was] |= w.lm_lost & live[was]
        q = lm_owner[lm]
        if q >= 0:
            dirty[q] |= (w.lm_plain & live[q]) | _gained(w.lm_steps[lm], live[q], lack, q * w.ncards)
    for q in winners:
        anyone |= w.won_anyone
        if q >= 0:
            dirty[q] |= (w.won_plain & live[q]) | _gained(w.won_steps, live[q], lack, q * w.ncards)
    if anyone:
        for q, lq in enumerate(live):
            dirty[q] |= anyone & lq
    return dirty


def _changed(g: Game, w: _Watch, h: int) -> list[int]:
    """Per seat, the cards whose value may have changed since the last check, found by comparing the
    position with what it was then (g.public_seen), which is brought up to date. Comparing rather than being
    told makes it right whatever changed the position: the reference engine, the generated one, a reaction
    after this one in the rules' order or between two placements."""
    owner, lm_owner = g.owner, g.lm_owner
    seen = g.public_seen
    if not seen:
        return _first(g, w, h)
    so, sl, sw = seen[0], seen[1], seen[2]
    fresh: list[int] = []
    if h >= 0 and so[h] == EMPTY and owner[h] != EMPTY:  # the placement that set off this check
        so[h] = owner[h]
        fresh.append(h)
    if so != owner:  # anything else: tiles are only ever added, so only empty hexes may differ
        new = list(compress(range(len(so)), map(ne, so, owner)))
        if any(so[x] != EMPTY for x in new):
            return _reset(g)
        fresh += new
        so[:] = owner
    for x in fresh:
        if owner[x] < 0:  # a tile of no seat (neutral): not what the tables describe
            return _reset(g)
    if sw[0] > len(g.area_first):
        return _reset(g)
    moved: list[tuple[int, int]] = []
    if sl != lm_owner:
        # the landmarks next to the placed hex first (those a placement moves), then any other difference
        moved = [(lm, sl[lm]) for lm in (g.lm_adj[h] if h >= 0 else ()) if sl[lm] != lm_owner[lm]]
        for lm, _ in moved:
            sl[lm] = lm_owner[lm]
        if sl != lm_owner:
            moved += [(lm, was) for lm, was in enumerate(sl) if was != lm_owner[lm]]
            sl[:] = lm_owner
    # every card returned is read, which sets what a bounded one lacks afresh
    return _dirty(g, w, fresh, moved, _winners(g))


def _first(g: Game, w: _Watch, h: int) -> list[int]:
    """The first check of a game. Every game starts from a position where no player has a tile, a landmark or
    an area (neutral tiles aside, S-U2) and only ever adds to it, so that position is taken as the last
    check's: a bounded card lacks there its number less its measure's numbers (Threshold.base), and what
    changed since is compared as after any other check. The cards that are not bounded, and those met there,
    are read. The tile on h (when h >= 0) is the one whose placement set off this check."""
    live = _live(g, w)
    n = g.n_players
    # the hexes' owners there: the neutral tiles, the same in every game of the ruleset for n players (were it
    # not so, the comparison would see a tile taken away and read every card)
    start = _start(g)
    g.public_seen = [list(start), [-1] * len(g.lm_owner), [0], live, list(w.lack0) * n]
    dirty = _changed(g, w, h)  # h: taken as the first check after any other (no scan of the board for it)
    if g.public_seen[3] is not live:  # the position is not one the empty one grew into: every card was read
        return dirty
    return [d | (lq & w.first) for d, lq in zip(dirty, live, strict=True)]


def fresh_start(g: Game) -> list[list[int]]:
    """g.public_seen, made here where g is where every game starts (no seat has a tile, a landmark, an area or a
    card fulfilled) and the first check would read nothing the first placement did not change: the state _first
    makes there, so that check is the usual one (the generated playout binds it once per game, PUBLIC_START).
    Else as it is ([] before a game's first check, which public_missions then makes: _first)."""
    seen: list[list[int]] = g.public_seen
    if seen or not g.public:
        return seen
    n = g.n_players
    w = (g.rs.derived.public_reads or _watches(g.rs))[n]
    start = _start(g)
    if tuple(g.owner) != start or g.area_first or any(x >= 0 for x in g.lm_owner) or any(g.public_by.values()):
        return seen
    live = _live(g, w)
    # what the first check reads besides: the cards not bounded and those met with nothing, but for one false
    # without its reader holding a landmark (nobody holds one yet, and taking one is a change the check sees)
    if any(lq & w.first & ~w.held for lq in live):
        return seen
    seen = g.public_seen = [list(start), [-1] * len(g.lm_owner), [0], live, list(w.lack0) * n]
    return seen


def _start(g: Game) -> tuple[int, ...]:
    """The hexes' owners where every game of g's player count starts: its neutral tiles (the same in every game
    of the ruleset for n players), kept in the ruleset's `derived` field."""
    n = g.n_players
    start: tuple[int, ...] | None = g.rs.derived.public_start.get(n)
    if start is None:
        start = g.rs.derived.public_start[n] = tuple(NEUTRAL if o == NEUTRAL else EMPTY for o in g.owner)
    return start


def _live(g: Game, w: _Watch) -> list[int]:
    """Per seat, the face-up cards not fulfilled yet: the only ones ever read."""
    bit = w.bit
    every = 0
    for c in g.public:  # or-ed, not summed: a card face up twice (a record may deal it so) is one bit
        every |= bit[c]
    live = [every] * g.n_players
    for c, done in g.public_by.items():
        for q in done:
            live[q] &= ~bit[c]
    return live


def _reset(g: Game) -> list[int]:
    """A change the comparison does not expect: the position now is taken as the last check's, and every
    card is read."""
    w = _watch(g.rs, g.n_players)
    live = _live(g, w)
    # what a bounded card lacks is not known: every card is read now, which sets it
    g.public_seen = [list(g.owner), list(g.lm_owner), [len(g.area_first)], live, [0] * (g.n_players * w.ncards)]
    return list(live)


