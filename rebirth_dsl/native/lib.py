"""The native engine of one ruleset: the generated C loaded through cffi (ABI mode), and what it plays
turned back into Python values: scores, per-category breakdowns, winners, landmark holders, and records
(the dealt setup and the moves with their ability answers) that the reference engine replays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.native.build import Built, build
from rebirth_dsl.native.cgen import Plan
from rebirth_dsl.native.ctext import CDEF
from rebirth_dsl.rules.public import held_points, payout
from rebirth_dsl.runtime.game import Game, static
from rebirth_dsl.runtime.setup import Setup

U64 = (1 << 64) - 1
_INFO = ("FORMAT", "NH", "NP", "NC", "NL", "NK", "ND", "TMAX", "MAXMOVES", "MAXANS", "SETUPMAX", "NCARD", "VBITS",
         "EXTRA", "NMAJ")
# play/tally.py's GameExtra, field by field: length, passes, fallbacks, changes, claims, missions, public
Extra = tuple[int, tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...],
              tuple[tuple[int, str, bool, int], ...], tuple[tuple[str, tuple[tuple[int, int], ...]], ...]]


@dataclass
class Batch:
    """Many games: per game the final scores, per-category breakdowns (seat by category), winner seats and
    landmark holders; and how many moves they took."""

    totals: list[list[int]]
    breakdown: list[list[list[int]]]
    winners: list[list[int]]
    lm_owner: list[list[int]]
    moves: int


@dataclass
class NativeGame:
    """One game played natively, with its record: the dealt setup and the moves (record entries)."""

    seed: int
    setup: Setup
    moves: list[dict[str, Any]]
    totals: list[int]
    breakdown: list[list[int]]
    winners: list[int]
    lm_owner: list[int]


class NativeRefused(RebirthError):
    """A position the native engine cannot play exactly as the reference engine would: something in it could
    outgrow the engine's fixed sizes or cannot be written in its integers. Callers on `auto` play it on the
    Python engine instead (rebirth_dsl.native.random_playouts)."""


def _refuse(why: str) -> NativeRefused:
    """The refusal of a position, saying why."""
    return NativeRefused.single(f"the native engine cannot play this position: {why}")


def _seats(mask: int, n: int) -> list[int]:
    """The seats of a bit mask, in order."""
    return [q for q in range(n) if mask >> q & 1]


class NativeEngine:
    """Random games of one ruleset at machine speed."""

    def __init__(self, rs: Ruleset, plan: Plan, built: Built) -> None:
        """Load the verified library and check it matches the plan it was generated with."""
        from cffi import FFI  # the optional extra: imported only when the native engine is used

        self.rs, self.plan, self.built = rs, plan, built
        self.ffi = FFI()
        self.ffi.cdef(CDEF)
        self.lib = self.ffi.dlopen(str(built.path))
        info = self.ffi.new("int32_t[]", 32)
        got = dict(zip(_INFO, self.ffi.unpack(info, self.lib.rb_info(info, 32)), strict=False))
        want = {k: plan.sizes[k] for k in _INFO}
        if got != want:  # a library that does not match its source is never used
            raise RuntimeError(f"the native library does not match its source: {got} != {want}")
        self.sizes = want
        self.card_defs = static(rs).cards
        # what each private card pays at the end, unfulfilled and fulfilled (rules.public.held_points), read per
        # held card of every game a batch returns: looked up, not decided again
        self._held = {name: (held_points(c.points, False), held_points(c.points, True))
                      for name, c in self.card_defs.items()}
        # what flatten writes tiles and cards as, each checked once (a playout call converts a whole position)
        self._codes = _TileCodes(want["NK"], want["VBITS"])
        self._card_ids = _CardIds({name: i for i, name in enumerate(plan.card_names)})

    # ----- many games ----------------------------------------------------------------------------
    def games(self, n: int, first_seed: int, count: int) -> Batch:
        """Games first_seed .. first_seed + count - 1 (each seed is one game, whatever the batch)."""
        ffi, nc, nl = self.ffi, self.sizes["NC"], self.sizes["NL"]
        self._check_players(n)
        totals = ffi.new("int64_t[]", max(count * n, 1))
        bd = ffi.new("int64_t[]", max(count * n * nc, 1))
        win = ffi.new("int32_t[]", max(count, 1))
        lmo = ffi.new("int32_t[]", max(count * nl, 1))
        moves = ffi.new("int64_t *")
        rc = self.lib.rb_games(first_seed & U64, count, n, totals, bd, win, lmo, ffi.NULL, moves)
        if rc != 0:
            raise RuntimeError(f"native engine error {rc}")
        t = ffi.unpack(totals, count * n)
        b = ffi.unpack(bd, count * n * nc)
        w = ffi.unpack(win, count)
        lo = ffi.unpack(lmo, count * nl)
        return Batch([t[g * n:(g + 1) * n] for g in range(count)],
                     [[b[(g * n + q) * nc:(g * n + q + 1) * nc] for q in range(n)] for g in range(count)],
                     [_seats(w[g], n) for g in range(count)],
                     [lo[g * nl:(g + 1) * nl] for g in range(count)], moves[0])

    def results(self, n: int, first_seed: int, count: int, extras: bool = False) -> list[Any]:
        """Per game (scores, breakdown per seat in the ruleset's category order, winner seats), and with
        `extras` what the lab reads besides (`Extra`): what `rebirth simulate` summarises. Tuples, cut from
        the flat buffers by zip (reading back would otherwise cost as much as playing)."""
        ffi, nc, ne = self.ffi, self.sizes["NC"], self.sizes["EXTRA"]
        self._check_players(n)
        totals = ffi.new("int64_t[]", max(count * n, 1))
        bd = ffi.new("int64_t[]", max(count * n * nc, 1))
        win = ffi.new("int32_t[]", max(count, 1))
        ex = ffi.new("int32_t[]", max(count * ne, 1)) if extras else ffi.NULL
        if self.lib.rb_games(first_seed & U64, count, n, totals, bd, win, ffi.NULL, ex, ffi.NULL) != 0:
            raise RuntimeError("native engine error")
        t = list(zip(*[iter(ffi.unpack(totals, count * n))] * n, strict=True))
        rows = list(zip(*[iter(ffi.unpack(bd, count * n * nc))] * nc, strict=True))
        b = list(zip(*[iter(rows)] * n, strict=True))
        seats = [tuple(_seats(m, n)) for m in range(1 << n)]
        w = [seats[m] for m in ffi.unpack(win, count)]
        if not extras:
            return list(zip(t, b, w, strict=True))
        flat = ffi.unpack(ex, count * ne)
        x = [self._extra(flat[g * ne:(g + 1) * ne], n) for g in range(count)]
        return list(zip(t, b, w, x, strict=True))

    def _extra(self, x: list[int], n: int) -> Extra:
        """One game's EXTRA block (ctext.extras) as the lab's GameExtra fields."""
        s, plan, rs = self.sizes, self.plan, self.rs
        np_, nmaj, held_max = s["NP"], s["NMAJ"], self.plan.sizes["HELDMAX"]
        cards, held = self.card_defs, self._held
        i = 1
        passes = tuple(x[i:i + n])
        i += np_
        fallbacks = tuple(x[i:i + n])
        i += np_
        stride = self.plan.sizes["NMAJX"] * np_
        changes = tuple(tuple(x[i + m * np_:i + m * np_ + n]) for m in range(nmaj))
        claims = tuple(tuple(x[i + stride + m * np_:i + stride + m * np_ + n]) for m in range(nmaj))
        i += 2 * stride
        missions = []
        for p in range(np_):
            for j in range(x[i] if p < n else 0):
                name = plan.card_names[x[i + 1 + 2 * j]]
                ok = bool(x[i + 2 + 2 * j])
                missions.append((p, name, ok, held[name][ok]))
            i += 1 + 2 * held_max
        public = []
        for j in range(x[i]):
            e = i + 1 + j * (2 + 2 * np_)
            name = plan.card_names[x[e]]
            card = cards[name]
            order = x[e + 2:e + 2 + x[e + 1]]
            public.append((name, tuple((q, payout(card.points, card.small, k, x[e + 2 + np_ + q]))
                                       for k, q in enumerate(order))))
        return (x[0], passes, fallbacks, changes, claims, tuple(missions) if rs.end_held is not None else (),
                tuple(public))

    def speed(self, n: int, first_seed: int, count: int) -> int:
        """Play games without reading anything back but the move count (for the benchmark's raw figure)."""
        moves = self.ffi.new("int64_t *")
        null = self.ffi.NULL
        if self.lib.rb_games(first_seed & U64, count, n, null, null, null, null, null, moves) != 0:
            raise RuntimeError("native engine error")
        return int(moves[0])

    def _check_players(self, n: int) -> None:
        """Refuse a player count the ruleset does not allow."""
        lo, hi = self.rs.players
        if not lo <= n <= hi:
            raise ValueError(f"{n} players: this ruleset is for {lo} to {hi}")

    # ----- one game with its record -----------------------------------------------------------------
    def play(self, names: list[str], seed: int) -> NativeGame:
        """One game from a seed, with its setup and moves as a record replays them."""
        ffi, s = self.ffi, self.sizes
        n = len(names)
        self._check_players(n)
        setup = ffi.new("int32_t[]", s["SETUPMAX"])
        moves = ffi.new("int32_t[]", 3 * s["MAXMOVES"])
        ans = ffi.new("int32_t[]", 3 * s["MAXANS"])
        counts = ffi.new("int32_t[]", 2)
        totals = ffi.new("int64_t[]", n)
        bd = ffi.new("int64_t[]", max(n * s["NC"], 1))
        win = ffi.new("int32_t *")
        lmo = ffi.new("int32_t[]", max(s["NL"], 1))
        if self.lib.rb_record(seed & U64, n, setup, moves, ans, counts, totals, bd, win, lmo) != 0:
            raise RuntimeError("native engine error")
        nmoves, nans = self._recorded(counts)
        nc = s["NC"]
        b = ffi.unpack(bd, n * nc)
        return NativeGame(seed, self._setup(ffi.unpack(setup, s["SETUPMAX"]), n),
                          self._moves(names, ffi.unpack(moves, 3 * nmoves), ffi.unpack(ans, 3 * nans)),
                          ffi.unpack(totals, n), [b[q * nc:(q + 1) * nc] for q in range(n)],
                          _seats(win[0], n), ffi.unpack(lmo, s["NL"]))

    def _recorded(self, counts: Any) -> tuple[int, int]:
        """The moves and answers the engine recorded, refused when more than its buffers hold (it stops
        writing there, but counts on: a position with more tiles in play than a game deals)."""
        nmoves, nans = counts[0], counts[1]
        if nmoves > self.sizes["MAXMOVES"] or nans > self.sizes["MAXANS"]:
            raise RuntimeError("native record overflow")
        return nmoves, nans

    def tile(self, code: int) -> tuple[int, int]:
        """A tile code back to (kind id, value)."""
        vbits = self.sizes["VBITS"]
        return code >> vbits, code & ((1 << vbits) - 1)

    def _setup(self, buf: list[int], n: int) -> Setup:
        """The dealt setup from the engine's buffer (codes and card ids back to tiles and names)."""
        i = 0
        aside: list[list[tuple[int, int]]] = []
        supply: list[list[tuple[int, int]]] = []
        for _ in range(n):
            for out in (aside, supply):
                c = buf[i]
                out.append([self.tile(x) for x in buf[i + 1:i + 1 + c]])
                i += 1 + c
        decks = {}
        for name in self.plan.deck_names:
            c = buf[i]
            decks[name] = [self.plan.card_names[x] for x in buf[i + 1:i + 1 + c]]
            i += 1 + c
        return Setup(aside, supply, decks)

    def _moves(self, names: list[str], mv: list[int], ans: list[int]) -> list[dict[str, Any]]:
        """The engine's moves and answers as record entries."""
        rs, t = self.rs, self.rs.t
        out: list[dict[str, Any]] = []
        for i in range(0, len(mv), 3):
            p, code, h = mv[i:i + 3]
            out.append({"player": names[p], "tile": rs.tile_name(*self.tile(code)),
                        "hex": list(t.coords[h]) if h >= 0 else None})
        for i in range(0, len(ans), 3):
            m, lm, code = ans[i:i + 3]
            key = self.plan.ability_key[lm]
            if key is None:
                continue
            if code < 0:
                # nothing could be done when the ability was used: recorded as declined (the same position
                # follows), since the move's answers are checked against the options before the placement
                value: Any = False
            elif key == "double":
                value = {key: self.plan.card_names[code]}
            else:
                value = {key: rs.tile_name(*self.tile(code))}
            out[m].setdefault("choices", {})[t.landmark_name[lm]] = value
        return out

    # ----- playouts from a position -----------------------------------------------------------------
    def fits(self, g: Game) -> None:
        """Raise NativeRefused, saying why, when the position could outgrow the engine's arrays in a playout.
        A hand grows only by the set-aside tiles an ability takes into it (the draw after a turn replaces the
        tile played) and held cards only by draws from the decks, so hand plus set-aside and held plus the
        decks' cards bound them to the end (ctext.py load checks the same, for its own memory's sake)."""
        s, who = self.plan.sizes, g.players
        decks = {name: len(g.decks.get(name, [])) for name in self.plan.deck_names}
        for name, k in decks.items():
            if k > s["DMAX"]:
                raise _refuse(f"the {name!r} deck holds {k} cards, more than the rules' longest deck ({s['DMAX']})")
        if len(g.public) > s["PUBMAX"]:
            raise _refuse(f"{len(g.public)} face-up cards, more than the rules lay out ({s['PUBMAX']})")
        for p in range(g.n_players):
            k = len(g.hand[p]) + len(g.set_aside[p])
            if k > s["HMAX"]:
                raise _refuse(f"{who[p]}'s hand and set-aside tiles ({k}) could pass the {s['HMAX']} a hand holds")
            for pile, k in (("supply", len(g.supply[p])), ("set-aside pile", len(g.set_aside[p]))):
                if k > s["TMAX"]:
                    raise _refuse(f"{who[p]}'s {pile} holds {k} tiles, more than the tile mix ({s['TMAX']})")
            k = len(g.held[p]) + sum(decks.values())
            if k > s["HELDMAX"]:
                raise _refuse(f"{who[p]}'s held cards and the decks' cards ({k}) could pass the {s['HELDMAX']} "
                              "cards a seat holds")
        for p in range(g.n_players if s["GMAX"] < s["NH"] else 0):  # ctext.py rebuild: a group past uf_t's room
            for k in sorted(self.rs.group_kinds):
                held = sum(x[0] == k for pile in (g.hand[p], g.supply[p], g.set_aside[p]) for x in pile)
                if len(g.tiles_of[p][k]) + held > s["GMAX"]:
                    raise _refuse(f"{who[p]}'s {self.rs.tile_kinds[k]} tiles on the board and in hand, supply and "
                                  f"set-aside pile ({len(g.tiles_of[p][k]) + held}) could form a group past the "
                                  f"{s['GMAX']} tiles a group holds")
        for name, seats in g.public_by.items():
            if len(set(seats)) != len(seats):
                raise _refuse(f"a seat is listed twice among the fulfillers of {name!r}")

    def flatten(self, g: Game) -> tuple[list[int], list[int]]:
        """A Game between turns as the integers `rb_playouts` reads (ints, and the int64 scores); NativeRefused
        when it does not fit the engine (`fits`, and a tile or card it cannot write)."""
        if g.scenario or g.pending_draw:
            raise ValueError("native playouts start from a game between turns (not a scenario)")
        self.fits(g)
        plan, t, n = self.plan, g.t, g.n_players
        card, code = self._card_ids, self._codes
        flat = [n, g.turn, g.move_index]
        for h in range(t.n):
            flat += [g.owner[h], g.tkind[h], g.tval[h]]
        for a in range(len(t.area_hexes)):
            flat += [g.area_first.get(a, -1), int(g.area_done[a])]
        flat += list(g.lm_owner)
        for p in range(n):
            flat += [int(lm in g.touched[p]) for lm in range(len(t.landmark_hex))]
        for holder in (g.hand, g.supply, g.set_aside):
            for p in range(n):
                flat.append(len(holder[p]))
                flat += [code[x] for x in holder[p]]
        for name in plan.deck_names:
            deck = g.decks.get(name, [])
            flat.append(len(deck))
            flat += [card[c] for c in deck]
        for p in range(n):
            flat.append(len(g.held[p]))
            flat += [card[c] for c in g.held[p]]
        flat += list(g.passed)
        flat.append(len(g.public))
        flat += [card[c] for c in g.public]
        flat.append(len(g.public_by))
        for name, seats in g.public_by.items():
            flat += [card[name], len(seats), *seats]
        for p in range(n):
            flat.append(len(g.doubled[p]))
            for name, factor in g.doubled[p].items():
                flat += [card[name], factor]
        scores: list[int] = []
        for p in range(n):
            scores += [g.scores[p].get(c, 0) for c in plan.categories] + [g.track[p]]
        return flat, scores

    def playouts(self, g: Game, count: int, seed: int, redeal: bool = True,
                 record: list[dict[str, Any]] | None = None) -> list[list[int]]:
        """Final scores of `count` uniformly random playouts from the position; with `redeal`, each first
        reshuffles every supply and the rest of every deck (the hidden future). `record`, when given, receives
        the first playout's moves as record entries."""
        ffi, s = self.ffi, self.sizes
        flat, scores = self.flatten(g)
        n = g.n_players
        totals = ffi.new("int64_t[]", max(count * n, 1))
        moves = ffi.new("int32_t[]", 3 * s["MAXMOVES"]) if record is not None else ffi.NULL
        ans = ffi.new("int32_t[]", 3 * s["MAXANS"]) if record is not None else ffi.NULL
        counts = ffi.new("int32_t[]", 2)
        try:
            cflat, cscores = ffi.new("int32_t[]", flat), ffi.new("int64_t[]", scores)
        except OverflowError as e:
            raise _refuse(f"a number past its 32- or 64-bit integers ({e})") from None
        rc = self.lib.rb_playouts(cflat, len(flat), cscores, seed & U64, count, int(redeal), totals, moves, ans, counts)
        if rc == -2:  # what `fits` does not name: a board or a count outside the engine's ranges
            raise _refuse("it does not read it (a board, count or marker outside its ranges)")
        if rc == -4:
            raise _refuse("a playout needed more room than its arrays")
        if rc != 0:
            raise RuntimeError(f"native engine error {rc}")
        if record is not None and count:
            nmoves, nans = self._recorded(counts)
            record.extend(self._moves(list(g.players), ffi.unpack(moves, 3 * nmoves), ffi.unpack(ans, 3 * nans)))
        t = ffi.unpack(totals, count * n)
        return [t[i * n:(i + 1) * n] for i in range(count)]


    def search(self, dets: list[Game], viewer: int, cands: list[tuple[int, int]], seed: int,
               sample: int) -> tuple[list[list[int]], list[list[list[int]]]]:
        """`rb_search`: from each determinisation (the same position with its hidden parts dealt by the caller,
        `viewer` to move), each candidate (tile index in the viewer's hand, hex or -1 for a pass) played and
        then a playout seeded `seed + j` for determinisation j (random, or `sample` >= 2: each hex the best by
        immediate points of `sample` drawn). Per determinisation and candidate: the viewer's final margin over
        the best other seat, and the winner seats (S-E4). NativeRefused as `playouts` when a position does not
        fit the engine."""
        ffi = self.ffi
        flat: list[int] = []
        offs = [0]
        scores: list[int] = []
        for g in dets:
            f, scores = self.flatten(g)
            flat += f
            offs.append(len(flat))
        nd, nc, n = len(dets), len(cands), dets[0].n_players if dets else 0
        margin = ffi.new("int64_t[]", max(nd * nc, 1))
        win = ffi.new("int32_t[]", max(nd * nc, 1))
        try:
            cflat, cscores = ffi.new("int32_t[]", flat or [0]), ffi.new("int64_t[]", scores or [0])
        except OverflowError as e:
            raise _refuse(f"a number past its 32- or 64-bit integers ({e})") from None
        pairs = ffi.new("int32_t[]", [x for c in cands for x in c] or [0])
        rc = self.lib.rb_search(cflat, ffi.new("int32_t[]", offs), nd, cscores, viewer, pairs, nc, seed & U64,
                                sample, margin, win)
        if rc == -2:
            raise _refuse("it does not read it (a board, count or marker outside its ranges)")
        if rc == -4:
            raise _refuse("a playout needed more room than its arrays")
        if rc != 0:
            raise RuntimeError(f"native engine error {rc}")
        m: list[int] = ffi.unpack(margin, nd * nc)
        w: list[int] = ffi.unpack(win, nd * nc)
        return ([m[j * nc:(j + 1) * nc] for j in range(nd)],
                [[_seats(x, n) for x in w[j * nc:(j + 1) * nc]] for j in range(nd)])


class _TileCodes(dict[tuple[int, int], int]):
    """(kind id, value) tiles to the engine's codes kind << vbits | value (vbits: the bits of the largest value
    the rules deal, cgen.py), each tile checked once: a value past vbits bits would read as a tile of another
    kind, so it is refused."""

    def __init__(self, nk: int, vbits: int) -> None:
        super().__init__()
        self.nk, self.vbits = nk, vbits

    def __missing__(self, tile: tuple[int, int]) -> int:
        k, v = tile
        if not (0 <= v < 1 << self.vbits and 0 <= k < self.nk):
            raise _refuse(f"the tile (kind {k}, value {v}) has no code (values below 2^{self.vbits}, the bits of "
                          "the largest value the rules deal)")
        self[tile] = code = k << self.vbits | v
        return code


class _CardIds(dict[str, int]):
    """Card names to the engine's ids; a name the rules do not have is refused, not a KeyError."""

    def __missing__(self, name: str) -> int:
        raise _refuse(f"{name!r} is not one of the rules' cards")


def load(rs: Ruleset, plan: Plan) -> NativeEngine:
    """Build (or take from the cache) and load the library of a generated plan."""
    return NativeEngine(rs, plan, build(plan.source))
