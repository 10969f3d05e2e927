"""C source for one ruleset on one board, the way pyengine/fast.py generates Python: integer tables from the
compiled Ruleset, each reaction of the ruleset inlined in file order from its rule module's C (`Kind.c_place`,
found through rules.table.kind_of; this module is the `rules.kind.CContext` those templates see), every
expression compiled to a C function (cexpr.py), around the fixed text of ctext.py.

Safety: the source is made of this module's and ctext.py's own text and of integers checked to be ints
(`c_int`). Kinds, tags, landmarks, categories, cards and decks are resolved to integer indices here; no
name, string or number text from a rules or board file is ever written into the C source. What Python
needs to read the engine's integers back (card names, tile names, landmark names) stays in `Plan`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.compile.emit import Emitter, c_u64
from rebirth_dsl.compile.prims import selected_kinds
from rebirth_dsl.compile.reads import GROUP, REACH, VALUE
from rebirth_dsl.compile.ruleset import MajorityRule, Ruleset
from rebirth_dsl.lang import ast as A
from rebirth_dsl.native.cexpr import ExprGen, Unsupported, c_int, c_ints
from rebirth_dsl.native.ctext import (
    CORE_BOARD,
    CORE_GAME,
    CORE_MOVES,
    HELPERS,
    PRELUDE,
    PUBLIC_READS,
    STATE,
    play_out,
)
from rebirth_dsl.rules import majority, public, touch, turn
from rebirth_dsl.rules.kind import Kind
from rebirth_dsl.rules.table import kind_of
from rebirth_dsl.runtime.game import static
from rebirth_dsl.runtime.setup import colour_tiles

# in TH_GROW (public_tables), beside reads.py's VALUE, GROUP and REACH: E rises by the landmarks of the card's
# kind (TH_TOUCHK) next to the hex that the tile's holder had not touched yet
GROW_TOUCH = -4
# and E (`count(areas(tiles(me, K)))`) rises by one only where the hex lies in an area none of whose other
# hexes holds a tile of the card's kinds (TH_AREAK) of the tile's holder
GROW_AREA = -5

FORMAT = 2  # the layout of the exported functions' buffers; part of every cache key (2: rb_search)
VBITS = 20  # a tile is kind << vbits | value, vbits at most VBITS: values are at most lang.limits.MAX_NUMBER < 2^20
REST = {"bottom": 0, "top": 1, "box": 2}  # I-R1 "draw N keep K, rest to ..."
ABILITY_ASKS = {"TakeAsideEffect": "take", "DrawKeepEffect": "keep", "DoubleEffect": "double"}


@dataclass
class Plan:
    """What Python needs to read the engine's integers: names in the order of the C tables."""

    source: str
    categories: list[str]
    card_names: list[str]  # card id -> name
    deck_names: list[str]  # deck index -> name (the C deck order)
    ability_key: list[str | None]  # landmark -> the key its answer is recorded under, if it asks
    sizes: dict[str, int] = field(default_factory=dict)


def _per_hex_lists(name: str, lists: list[list[int]], out: list[str]) -> str:
    """`NAME_OFF[NH+1]` and `NAME[]`: a list per hex (or per landmark) as offsets into one array."""
    offs, flat = [0], []
    for items in lists:
        flat.extend(items)
        offs.append(len(flat))
    out.append(f"static const i32 {name}_OFF[{c_int(len(offs))}] = {c_ints(offs)};")
    out.append(f"static const i32 {name}[{c_int(max(len(flat), 1))}] = {c_ints(flat)};")
    return name


def _landmark_sets(name: str, sets: list[list[int]], nl: int) -> str:
    """`static const u64 NAME[len(sets)][NLW]`: per hex a set of landmarks, bit lm & 63 of word lm >> 6."""
    nlw = max(1, (nl + 63) // 64)
    rows = [c_ints([sum(1 << (lm & 63) for lm in lms if lm >> 6 == w) for w in range(nlw)], words=True)
            for lms in sets] or [c_ints([0] * nlw, words=True)]
    return f"static const u64 {name}[{c_int(max(len(sets), 1))}][NLW] = {{{', '.join(rows)}}};"


def _fk_mask(kinds: tuple[str, ...], fk_of: dict[str, int]) -> int:
    """The free lists (hex kinds) a placement rule names, as a bit mask."""
    m = 0
    for k in kinds:
        if k in fk_of:
            m |= 1 << fk_of[k]
    return m


def _mask(kinds: frozenset[int] | None, nk: int) -> int:
    """Tile kind ids (None: every kind) as a bit mask."""
    m = 0
    for k in range(nk) if kinds is None else sorted(kinds):
        m |= 1 << int(k)
    return m


class _Gen:
    """One generation: tables, expression functions and rule functions, then the source."""

    def __init__(self, rs: Ruleset, full_reads: bool = False) -> None:
        """Index the ruleset's categories, cards and decks as the C tables will."""
        self.rs = rs
        self.t = rs.t
        self.problems: list[str] = []
        self.kinds = [self._kind(r) for r in rs.reactions]
        # the face-up cards are read incrementally (public_function) unless asked to read them all every time
        # (only where cards lie face up: a state without them keeps no marks, ctext.py plive)
        self.incremental = (not full_reads and rs.public is not None
                            and any(k is not None and k.reads_public for k in self.kinds))
        self.tables: list[str] = []
        self.rules: list[str] = []  # generated rule functions
        t = rs.t
        self.nk = len(rs.tile_kinds)
        self.words = max(1, (t.n + 63) // 64)
        values = [v for _, v in rs.mix] or [0]
        # a tile code's value bits: those of the mix's largest value, the only values a game of the ruleset deals
        # (a position holding a larger one is refused, lib.py _TileCodes and ctext.py load, and played in Python)
        self.vbits = max(1, max(values).bit_length())
        self.ex = ExprGen(t, self.words, max(max(values), 1), rs.group_kinds)
        self.cat = {c: i for i, c in enumerate(rs.categories)}
        st = static(rs)
        self.lm_adj: tuple[tuple[int, ...], ...] = st.lm_adj
        self.metric_of: dict[int, MajorityRule] = st.metric_of
        self.cards = list(st.cards)  # card id -> name, in the engine's dict order (the last definition wins)
        self.card_id = {name: i for i, name in enumerate(self.cards)}
        self.deck_names = list(rs.decks)
        self.deck_id = {name: i for i, name in enumerate(self.deck_names)}
        # the most a bounded card's slack is kept at (public_tables; without incremental reading none is kept)
        self.slack_cap = _slack_cap(1)
        self.draw_fns: dict[str, str] = {}

    # ----- expressions ------------------------------------------------------------------------
    def expr(self, node: A.Expr | None, where: str) -> str:
        """A C function computing the expression, or a placeholder after recording why it cannot be one."""
        if node is None:
            self.problems.append(f"{where}: its expression was not kept by the compiler")
            return "x_none"
        try:
            return self.ex.function(node, where)
        except Unsupported as e:
            self.problems.append(str(e))
            return "x_none"

    def _kind(self, r: object) -> Kind | None:
        """The rule module's Kind of a reaction, if it has a native form (else a problem)."""
        try:
            k = kind_of(r)
        except TypeError:
            k = None
        if k is None or k.c_place is None:
            self.problems.append(f"the reaction {type(r).__name__} (its rule module gives no C)")
            return None
        return k

    # ----- what the rule modules' C templates ask for (rules.kind.CContext) --------------------------
    def category(self, name: str) -> str:
        """A score category's index as C text (-1: none)."""
        return c_int(self.cat.get(name, -1))

    def kinds_mask(self, kinds: frozenset[int] | None) -> str:
        """Tile kinds (None: every kind) as a C u32 mask."""
        return f"(u32){c_int(_mask(kinds, self.nk))}u"

    def lists(self, name: str, lists: list[list[int]]) -> str:
        """A C list per hex or landmark (_per_hex_lists) among the tables."""
        return _per_hex_lists(name, lists, self.tables)

    def landmark_sets(self, name: str, sets: list[list[int]]) -> str:
        """Per hex a set of landmarks as a C bit set `u64 name[h][NLW]` among the tables."""
        self.tables.append(_landmark_sets(name, sets, len(self.t.landmark_hex)))
        return name

    def function(self, source: str) -> None:
        """A generated C function, declared before place()."""
        self.rules.append(source)

    # ----- generation -------------------------------------------------------------------------
    def generate(self) -> Plan:
        """The whole source and its plan; Unsupported names everything that cannot be expressed."""
        rs, t = self.rs, self.t
        if self.nk > 31 or len(rs.categories) > 1 << 16:
            self.problems.append("more tile kinds than a 32-bit mask holds")
        if rs.players[1] > 31:
            self.problems.append("more seats than a 32-bit mask holds")
        if any(not 0 <= v < 1 << VBITS for _, v in rs.mix):
            self.problems.append("a tile value of 2^20 or more")
        if self.problems:
            raise Unsupported("; ".join(self.problems))
        sizes = self.constants()
        self.board_tables()
        self.deal_tables()
        body = self.place_function()
        self.ability_function()
        self.public_function()
        self.end_functions()
        sizes.update(self.counter_table())  # after every expression: the counters they asked for
        sizes["TILE_COUNTS"] = int(self.ex.tile_counts)
        sizes["TILE_VALUES"] = int(self.ex.tile_values)
        self.tile_sets(sizes)
        # a "draw N, keep one" ability leaves a draw pending (ctext.py draw_keep): else the turn never tests one
        sizes["PENDING_DRAWS"] = int(any(isinstance(ab.effect, A.DrawKeepEffect) for ab in rs.abilities.values()))
        # a hand may hold more than one tile in a dealt game (a hand of more, or an ability taking a set-aside
        # tile into it): the end of a turn is then written for a hand of two (rules/turn.py c_end_of_turn)
        sizes["HAND_GROWS"] = int(rs.hand > 1 or any(isinstance(ab.effect, A.TakeAsideEffect)
                                                     for ab in rs.abilities.values()))
        if self.problems:
            raise Unsupported("; ".join(self.problems))
        consts = "\n".join([*(f"#define {k} {c_int(v)}" for k, v in sizes.items()), *self.state_types(sizes)])
        source = "\n".join([
            "/* generated by rebirth_dsl.native.cgen: one ruleset on one board */",
            PRELUDE, consts, *self.tables, STATE, HELPERS, majority.c_count(),
            "static i64 x_none(const S *s, int me, int placed, i64 inf) { (void)s; (void)me; (void)placed; (void)inf; return 0; }",
            *self.ex.consts, *self.ex.functions,
            "static void end_scoring(S *s, i64 *totals, i64 *bd);",
            "static i32 winners_of(S *s, const i64 *totals);",
            "static void use_ability(S *s, int lm, int p);",
            "static void public_missions(S *s, int p, int placer_first, int cat);",
            "static i64 card_cond(const S *s, int c, int me);",
            *([PUBLIC_READS] if self.incremental else []), CORE_BOARD, public.C_PAY, CORE_MOVES, turn.C_DRAW,
            play_out(max(self.nk, 1)), CORE_GAME, *self.rules, body, "",
        ])
        ability_key: list[str | None] = []
        for lm in range(len(t.landmark_hex)):
            ab = rs.abilities.get(t.landmark_ability[lm] or "")
            ability_key.append(ABILITY_ASKS.get(type(ab.effect).__name__) if ab is not None else None)
        return Plan(source, list(rs.categories), self.cards, self.deck_names, ability_key, sizes)

    def constants(self) -> dict[str, int]:
        """The sizes every table and buffer is declared with (#define)."""
        rs, t = self.rs, self.t
        np_ = max(rs.players[1], 1)
        tmax = max(len(rs.mix), 1)
        decks = [len(c) for c in rs.decks.values()]
        pub = rs.public.count if rs.public is not None else 0
        self.free_kinds = list(static(rs).free)
        metrics = max([len(m.metrics) for m in rs.majorities] or [1])
        # a seat's hand and set-aside tiles together, as a loaded position may hold them (a dealt game holds at
        # most hand + set-aside; two spare): the hand array, which no playout can outgrow (ctext.py load)
        hmax = rs.hand + rs.set_aside + 2
        sizes = {
            "FORMAT": FORMAT, "VBITS": self.vbits, "NH": t.n, "W": self.words, "NK": self.nk, "NP": np_,
            "NL": len(t.landmark_hex), "NLX": max(len(t.landmark_hex), 1), "NA": len(t.area_hexes),
            "NAX": max(len(t.area_hexes), 1), "NC": len(rs.categories), "NCX": max(len(rs.categories), 1),
            "NFK": len(self.free_kinds), "NFKX": max(len(self.free_kinds), 1), "NM": metrics,
            "NCARD": len(self.cards), "NCARDX": max(len(self.cards), 1), "ND": len(decks),
            "NDX": max(len(decks), 1), "DMAX": max(decks or [1]), "TMAX": tmax, "TMAXX": tmax,
            # HELDMAX: every deck's cards, the most a seat's held cards and the decks' cards together may be in a
            # loaded position (a draw moves a card from one to the other): the held array, never outgrown
            "HMAX": hmax, "HELDMAX": max(sum(decks), 1), "PUBMAX": max(pub, 1),
            # every move spends one of its seat's tiles: a loaded position holds at most HMAX in hand and
            # set-aside and TMAX in supply per seat; an ability answer is a first touch, once a seat and landmark
            "MAXMOVES": np_ * (hmax + tmax) + 1, "MAXANS": np_ * max(len(t.landmark_hex), 1) + 1,
            "SETUPMAX": np_ * (2 * tmax + 2) + max(len(decks), 1) * (max(decks or [1]) + 1),
            "HAND": rs.hand, "SET_ASIDE": rs.set_aside, "GROUPMASK": _mask(rs.group_kinds, self.nk),
            "REST_BOTTOM": REST["bottom"], "REST_TOP": REST["top"],
            "PUB_DECK": self.deck_id.get(rs.public.deck, -1) if rs.public is not None else -1,
            "PUB_COUNT": pub, "NMAJ": len(rs.majorities), "NMAJX": max(len(rs.majorities), 1),
            "NCW": max(1, (len(self.cards) + 63) // 64),
            # the landmarks next to one hex: what one placement can touch first (place's `first`)
            "NFIRST": max([len(a) for a in static(rs).lm_adj] + [1]),
            "NLW": max(1, (len(t.landmark_hex) + 63) // 64),  # words of a bit set over the landmarks
        }
        # the cards that may lie face up: every card id below NPC (a public deck's cards are some of the ids,
        # so all are kept where there is one), none without; those that may carry a doubling marker (an
        # ability's, on a face-up card): the same, none without such an ability. Their per-card state is kept
        # only for these (ctext.py STATE)
        doubles = any(isinstance(ab.effect, A.DoubleEffect) for ab in rs.abilities.values())
        npc = len(self.cards) if rs.public is not None else 0
        sizes.update({"NPC": npc, "NPCX": max(npc, 1), "NDC": npc if doubles else 0,
                      "NDCX": max(npc if doubles else 0, 1)})
        # GMAX: the most tiles a group may hold, what the union-find's entries (uf_t, state_types) hold above the
        # hexes: a group is a seat's tiles of a kind that forms groups, at most those of the mix in a dealt game (a
        # colour's, before any are returned), so the type is the smallest holding a hex and those, and GMAX all
        # it holds beyond the hexes (never more than the hexes); a loaded position whose seat could hold more of a
        # kind is refused (lib.py fits, ctext.py rebuild)
        mix = max([sum(k == kid for k, _ in rs.mix) for kid in range(self.nk) if kid in rs.group_kinds] + [1])
        sizes["GMAX"] = min(_umax(t.n + mix) - t.n, max(t.n, 1))
        sizes["EXTRA"] = (1 + 2 * np_ + 2 * sizes["NMAJX"] * np_ + np_ * (1 + 2 * sizes["HELDMAX"])
                          + 1 + sizes["PUBMAX"] * (2 + 2 * np_))
        return sizes

    def state_types(self, sizes: dict[str, int]) -> list[str]:
        """The smallest C types of the state's arrays and counts (ctext.py STATE) for the values this ruleset on
        this board can put there, so a game's state is small, copied whole by the search and stays in cache:
        a hex's holder and tile kind in one (ctext.py HK), a landmark's holder, tile values and codes (TVMAX,
        the largest value VBITS bits hold, those of the mix's largest), a hex (0 .. NH - 1) and a count of hexes
        (0 .. NH: a group's size, a free list's length, a seat's tiles of a kind, an area's free hexes; the
        union-find's parents and sizes both), an area's influence (its hexes times TVMAX), majority counts (at
        most the tiles next to a landmark), and the counts of tiles in a hand or pile, of cards in a deck, a
        hand of cards or face up, of areas won, and of landmarks claimed or changed per seat (at most those
        next to the hex of each move), a card id, a doubling marker's factor (those the rules' abilities give),
        a pending draw's N (the rules' abilities' too), and how far a bounded face-up card is known to be short
        (its N less E's numbers at most, public_tables; above SLACK_CAP it is kept as SLACK_CAP, a lower bound
        still)."""
        t = self.t
        ring = max([len(t.neighbours[h]) for h in t.landmark_hex] + [1])
        tvmax = (1 << self.vbits) - 1
        area = max([len(a) for a in t.area_hexes] + [1])
        cards = max(sizes["DMAX"], sizes["HELDMAX"], sizes["NCARD"], sizes["PUBMAX"])
        hkb = max(1, sizes["NK"].bit_length())  # bits of a tile kind + 1 (ctext.py HK)
        # the factors the rules' doubling markers give (I-R1 `double ... by F`): a loaded position's are of them
        factors = [ab.effect.factor for ab in self.rs.abilities.values() if isinstance(ab.effect, A.DoubleEffect)]
        lo, hi = min(factors + [1]), max(factors + [1])
        # the N of the rules' "draw N, keep one" abilities (I-R1): a pending draw's
        draws = [ab.effect.draw for ab in self.rs.abilities.values() if isinstance(ab.effect, A.DrawKeepEffect)] + [0]
        return [f"typedef {_ctype(-1, sizes['NP'])} own_t;  /* a landmark's holder (-1 nobody) */",
                f"#define HKB {c_int(hkb)}",
                f"typedef {_utype((sizes['NP'] + 1) << hkb | sizes['NK'])} hk_t;  /* a hex's holder and tile kind */",
                f"typedef {_ctype(0, tvmax)} tv_t;  /* a tile's value */",
                f"#define TVMAX {c_int(tvmax)}",
                f"typedef {_utype((sizes['NK'] << self.vbits) - 1)} tile_t;  /* a tile's code */",
                f"typedef {_utype(max(t.n - 1, 0))} hix_t;  /* a hex */",
                f"typedef {_utype(t.n)} hct_t;  /* a count of hexes (a group's size, a free list's length) */",
                f"typedef {_utype(sizes['GMAX'] + t.n)} uf_t;  /* a group's size, or GMAX + 1 + a hex */",
                f"typedef {_ctype(0, area * tvmax)} ainf_t;  /* an area's influence */",
                f"typedef {_ctype(0, ring)} cnt_t;  /* a majority count */",
                f"typedef {_utype(max(sizes['HMAX'], sizes['TMAX']))} tn_t;  /* a count of tiles */",
                f"typedef {_utype(cards)} cn_t;  /* a count of cards */",
                f"typedef {_utype(max(sizes['NCARD'] - 1, 0))} cid_t;  /* a card id */",
                f"typedef {_ctype(min(lo, 0), hi)} dbl_t;  /* a doubling marker's factor */",
                f"typedef {_utype(max(draws))} pdn_t;  /* the N of a pending draw N, keep one */",
                f"#define DBL_LO {c_int(lo)}",
                f"#define DBL_HI {c_int(hi)}",
                f"typedef {_utype(sizes['NA'])} an_t;  /* a count of areas */",
                f"typedef {_utype(sizes['MAXMOVES'] * sizes['NFIRST'])} mv_t;  /* landmarks claimed or changed */",
                f"typedef {_utype(self.slack_cap)} slack_t;  /* how far a bounded card is known to be short */",
                f"#define SLACK_CAP {c_int(self.slack_cap)}"]

    def tile_sets(self, sizes: dict[str, int]) -> None:
        """Which tile kinds' hexes per seat the state keeps as bit sets (ctext.py tbits): those an expression
        reads (cexpr.py tiles_read), NKT of them, kind k in slot TBS(k) where TBON(k); slot 0 takes nothing
        (an OR of 0) from a kind nothing reads, so occupy keeps them without a test."""
        kinds = [k for k in range(self.nk) if self.ex.tile_sets >> k & 1]
        sizes["NKT"] = max(len(kinds), 1)
        if len(kinds) == self.nk:
            self.tables += ["#define TBS(k) (k)", "#define TBON(k) 1ULL"]
            return
        slot = [kinds.index(k) if k in kinds else 0 for k in range(self.nk)]
        on = [int(k in kinds) for k in range(self.nk)]
        self.tables += [f"static const u8 TBSLOT[{c_int(max(self.nk, 1))}] = {c_ints(slot or [0])};",
                        f"static const u64 TBBIT[{c_int(max(self.nk, 1))}] = {c_ints(on or [0], words=True)};",
                        "#define TBS(k) TBSLOT[k]", "#define TBON(k) TBBIT[k]"]

    def counter_table(self) -> dict[str, int]:
        """HCADD[k][h]: what a tile of kind k on hex h adds to its seat's tile counters (cexpr.py tile_counter),
        four counters of 16 bits to a u64 word, so occupy keeps them all with one addition per word; and the
        words (NHW; a seat's tiles are at most the board's hexes, below 2^16, so a lane never carries)."""
        t, counters = self.t, self.ex.counters
        words = max(1, (len(counters) + 3) // 4)
        rows = []
        for k in range(self.nk):
            cells = []
            for h in range(t.n):
                add = [0] * words
                for i, (km, hexes) in enumerate(counters):
                    if km >> k & 1 and hexes[h]:
                        add[i >> 2] |= 1 << (16 * (i & 3))
                cells.append(c_ints(add, words=True))
            rows.append(f"{{{', '.join(cells) or c_ints([0] * words, words=True)}}}")
        self.tables.append(f"static const u64 HCADD[{c_int(max(self.nk, 1))}][{c_int(max(t.n, 1))}][NHW] = "
                           f"{{{', '.join(rows) or '{{0}}'}}};")
        return {"NHC": len(counters), "NHW": words}

    def board_tables(self) -> None:
        """Neighbours, areas, free lists, landmark rings, majority metrics and abilities."""
        rs, t, out = self.rs, self.t, self.tables
        nb = [list(t.neighbours[h]) + [-1] * (6 - len(t.neighbours[h])) for h in range(t.n)]
        if any(len(x) > 6 for x in t.neighbours):
            self.problems.append("a hex with more than six neighbours")
            nb = [x[:6] for x in nb]
        out.append(f"static const i16 NB[{c_int(max(t.n, 1))}][6] = {{{', '.join(c_ints(x) for x in nb) or '{0}'}}};")
        out.append(f"static const i32 NNB[{c_int(max(t.n, 1))}] = {c_ints([len(x) for x in t.neighbours])};")
        # per tile kind and hex, the neighbours (bits over NB's slots) on a hex kind the kind's placement or
        # fallback allows: the only ones a tile of that kind, hence its group, can stand on (S-P2..S-P4;
        # occupy's union reads no other)
        nbk_rows = []
        for kid in range(self.nk):
            ok = {*rs.primary.get(kid, ()), *rs.fallback.get(kid, ())}
            nbk_rows.append(c_ints([sum(1 << j for j, m in enumerate(t.neighbours[h][:6]) if t.hex_kind[m] in ok)
                                    for h in range(t.n)] or [0]))
        out.append(f"static const u8 NBKM[{c_int(max(self.nk, 1))}][{c_int(max(t.n, 1))}] = "
                   f"{{{', '.join(nbk_rows) or '{0}'}}};")
        out.append(f"static const i32 AREA_OF[{c_int(max(t.n, 1))}] = {c_ints([int(a) for a in t.area_of])};")
        out.append(f"static const i32 AREA_SIZE[NAX] = {c_ints([len(a) for a in t.area_hexes])};")
        fk_of = {k: i for i, k in enumerate(self.free_kinds)}
        out.append(f"static const i32 HEX_FK[{c_int(max(t.n, 1))}] = "
                   f"{c_ints([fk_of.get(t.hex_kind[h], -1) for h in range(t.n)])};")
        free0: list[int] = []
        offs = [0]
        for k in self.free_kinds:
            free0.extend(h for h in range(t.n) if t.hex_kind[h] == k)
            offs.append(len(free0))
        out.append(f"static const i32 FOFF[{c_int(len(offs))}] = {c_ints(offs)};")
        out.append(f"static const i32 FREE0[{c_int(max(len(free0), 1))}] = {c_ints(free0)};")
        self.pick_function(fk_of)
        _per_hex_lists("LMRING", [list(t.neighbours[t.landmark_hex[lm]]) for lm in range(len(t.landmark_hex))], out)
        st = static(rs)
        # per landmark: the tile kinds each metric of its majority counts (runtime/placement.occupy)
        met = []
        for lm in range(len(t.landmark_hex)):
            rule = st.metric_of.get(lm)
            met.append([_mask(m, self.nk) for m in rule.metrics] if rule is not None else [])
        nm = max([len(m) for m in met] + [1])
        rows = ", ".join(c_ints(m + [0] * (nm - len(m))) for m in met) or c_ints([])
        out.append(f"static const u32 LM_MET[NLX][NM] = {{{rows}}};")
        out.append(f"static const i32 LM_NMET[NLX] = {c_ints([len(m) for m in met])};")
        # the landmarks next to each hex whose majority counts a tile there may add to (occupy)
        out.append(_landmark_sets("MADJM", [[lm for lm in st.lm_adj[h] if lm in st.metric_of] for h in range(t.n)],
                                  len(t.landmark_hex)))
        ab_index = {name: i for i, name in enumerate(rs.abilities)}
        lm_ab = []
        users = {r.kind for r in st.ability_rules}
        for lm in range(len(t.landmark_hex)):
            name = t.landmark_ability[lm]
            if t.landmark_kind[lm] in users and (name is None or name not in ab_index):
                self.problems.append(f"landmark {lm} uses abilities but carries no declared ability")
            lm_ab.append(ab_index.get(name or "", -1))
        out.append(f"static const i32 LM_AB[NLX] = {c_ints(lm_ab)};")

    def pick_function(self, fk_of: dict[str, int]) -> None:
        """pick_hex: a uniform free hex of the tile kind's placement rule, else of its fallback (S-P2, S-P3), else
        -1 (a pass, S-P5), and its slot in the free lists (ctext.py freel, take_free); specialised per tile kind so each tier is a couple of loads. PRIMFK: the
        primary hex kinds per tile kind, so a placement on another counts as a fallback (the lab's tally, ctext.py
        extras). Inlined into the playout loop."""
        rs = self.rs
        self.tables.append(f"static const u32 PRIMFK[NK] = "
                           f"{c_ints([_fk_mask(rs.primary.get(k, ()), fk_of) for k in range(self.nk)])};")
        e = Emitter()
        with e.block("static inline __attribute__((always_inline)) int pick_hex(S *s, int k, int *slot) {", "}"):
            e.line("switch (k) {")  # the cases at the switch's own indentation
            for kid in range(self.nk):
                with e.block(f"case {c_int(kid)}: {{", "}"):
                    for table in (rs.primary, rs.fallback):
                        fks = [fk_of[k] for k in table.get(kid, ()) if k in fk_of]
                        if not fks:
                            continue
                        with e.block("{", "}"):
                            e.line(f"int tot = {' + '.join(f's->freen[{c_int(fk)}]' for fk in fks)};")
                            with e.block("if (tot) {", "}"):
                                e.line("int r = rb_below(s, tot);")
                                if len(fks) == 1:
                                    e.line(f"*slot = FOFF[{c_int(fks[0])}] + r;")
                                    e.line("return s->freel[*slot];")
                                    continue
                                # the draw's list: the last whose counts before it the draw reaches, chosen
                                # by masks, not branches, since where a uniform draw lands is a coin toss
                                # (the sign of upto - 1 - r, all ones where r >= upto: arithmetic a
                                # compiler keeps, where it may turn a select into a branch once the tile's
                                # kind is a constant); off is the list's start in freel less the counts
                                # before it
                                e.line(f"int upto = 0, off = FOFF[{c_int(fks[0])}];")
                                for prev, fk in zip(fks, fks[1:], strict=False):
                                    e.line(f"upto += s->freen[{c_int(prev)}];")
                                    e.line(f"off += (FOFF[{c_int(fk)}] - upto - off) & -(int)((u32)(upto - 1 - r) >> 31);")
                                e.line("*slot = off + r;")
                                e.line("return s->freel[off + r];")
                    e.line("return -1;")
            e.line("}")
            e.line("return -1;")
        self.rules.append("\n".join(e.lines))

    def deal_tables(self) -> None:
        """Each player count's colour tiles (last first) and neutral hexes, the decks and the cards' points."""
        rs, t, out = self.rs, self.t, self.tables
        np_ = max(rs.players[1], 1)
        colour: list[int] = []
        neut: list[int] = []
        coffs, noffs = [0], [0]
        for n in range(0, np_ + 1):
            if rs.players[0] <= n <= rs.players[1]:  # last first: a supply's order, its top the end (new_game)
                colour.extend(reversed([k << self.vbits | v for k, v in colour_tiles(rs, n)]))
                nt = rs.neutral.get(n)
                if nt is not None:
                    neut.extend([h for h in range(t.n) if nt.tag in t.hex_tags[h]][: nt.count])
            coffs.append(len(colour))
            noffs.append(len(neut))
        out.append(f"static const i32 COLOUR_OFF[NP + 2] = {c_ints(coffs)};")
        out.append(f"static const tile_t COLOUR[{c_int(max(len(colour), 1))}] = {c_ints(colour)};")
        out.append(f"static const i32 NEUT_OFF[NP + 2] = {c_ints(noffs)};")
        out.append(f"static const i32 NEUT[{c_int(max(len(neut), 1))}] = {c_ints(neut)};")
        deck0: list[int] = []
        doffs = [0]
        for cards in rs.decks.values():
            deck0.extend(self.card_id[c.name] for c in cards)
            doffs.append(len(deck0))
        out.append(f"static const i32 DECK_OFF[{c_int(len(doffs))}] = {c_ints(doffs)};")
        out.append(f"static const cid_t DECK0[{c_int(max(len(deck0), 1))}] = {c_ints(deck0)};")
        defs = static(rs).cards
        out.append(f"static const i64 CARD_POINTS[NCARDX] = {c_ints([defs[c].points for c in self.cards])};")
        out.append(f"static const i64 CARD_SMALL[NCARDX] = {c_ints([defs[c].small or 0 for c in self.cards])};")

    # ----- one placement with every reaction, in file order ------------------------------------------
    def draw(self, deck: str) -> str:
        """The function a draw from a deck calls (S-M1): the top card, or the deck's empty rule."""
        fn = self.draw_fns.get(deck)
        if fn is not None:
            return fn
        fn = f"draw_{len(self.draw_fns)}"
        self.draw_fns[deck] = fn
        d = self.deck_id.get(deck, -1)
        empty = self.rs.empty_decks.get(deck)
        e = Emitter()
        with e.block(f"static void {fn}(S *s, int p) {{", "}"):
            e.line(f"int d = {c_int(d)};")
            with e.block("if (d >= 0 && s->dtop[d] < s->dlen[d]) {", "}"):
                e.line("if (s->nheld[p] < HELDMAX) s->held[p][s->nheld[p]++] = s->deck[d][s->dtop[d]++];")
                e.line("else s->lost = 1;")
                e.line("return;")
            if empty is not None and empty.fn is not None:
                f = self.expr(empty.fn.node, "a draw from an empty deck")
                e.line(f"add(s, p, {self.category(empty.category)}, {f}(s, p, -1, 0));")
        self.rules.append("\n".join(e.lines))
        return fn

    def place_function(self) -> str:
        """place() (place_tile inlined): occupy the hex, then every reaction in file order."""
        rs, t = self.rs, self.t
        st = static(rs)
        _per_hex_lists("LMADJ", [list(st.lm_adj[h]) for h in range(t.n)], self.tables)
        self.tables.append(f"static const i32 LM_KIND[NLX] = "
                           f"{c_ints([t.landmark_kinds.index(k) for k in t.landmark_kind])};")
        # the landmarks next to each hex and of each kind, as bit sets of NLW words (rules/touch.py's C)
        nlw = max(1, (len(t.landmark_hex) + 63) // 64)
        adjm = [[sum(1 << (lm - 64 * w) for lm in st.lm_adj[h] if lm // 64 == w) for w in range(nlw)]
                for h in range(t.n)] or [[0] * nlw]
        self.tables.append(f"static const u64 LMADJM[{c_int(max(t.n, 1))}][NLW] = "
                           f"{{{', '.join(c_ints(x, words=True) for x in adjm)}}};")
        kindm = [[sum(1 << (lm - 64 * w) for lm, k in enumerate(t.landmark_kind) if k == kk and lm // 64 == w)
                  for w in range(nlw)] for kk in t.landmark_kinds] or [[0] * nlw]
        self.tables.append(f"static const u64 LMKINDM[{c_int(len(kindm))}][NLW] = "
                           f"{{{', '.join(c_ints(x, words=True) for x in kindm)}}};")
        # the landmarks this placement touches first are found before any reaction and marked touched after
        # all of them, so every `on first touch KIND` statement sees the same first touch (rules/touch.py)
        e = Emitter()
        e.consts = self.tables  # the C tables, declared before every function
        e.declare("s", "p", "k", "v", "h")
        with e.block("static inline __attribute__((always_inline)) void place_tile(S *s, int p, int k, int v, int h, "
                     "int slot) {", "}"):
            e.line("int root = occupy(s, h, slot, p, k, v);")
            e.line("(void)v; (void)root;")
            if self.incremental:
                e.line("pub_tile(s, p, k, h, root);")
            e.extend(touch.c_prologue(e.locals))
            e.declare(*touch.C_FIRST)
            for ri, (r, kind) in enumerate(zip(rs.reactions, self.kinds, strict=True)):
                if kind is not None and kind.c_place is not None:
                    kind.c_place(self, e, ri, r)  # the rule module's C, its functions and tables beside it
            e.extend(touch.c_mark(e.locals))
        # inlined into the random playout loop (its every move); called from the search's paths
        e.line("static void place(S *s, int p, int k, int v, int h, int slot) { place_tile(s, p, k, v, h, slot); }")
        return "\n".join(e.lines)

    def ability_function(self) -> None:
        """I-R1: the landmark's printed ability, answered at random."""
        rs = self.rs
        e = Emitter()
        with e.block("static void use_ability(S *s, int lm, int p) {", "}"):
            e.line("switch (LM_AB[lm]) {")  # the cases at the switch's own indentation
            for ai, ab in enumerate(rs.abilities.values()):
                with e.block(f"case {c_int(ai)}:"):
                    self.ability_case(e, ab.effect)
                    e.line("break;")
            e.line("}")
            e.line("(void)s; (void)lm; (void)p;")
        self.rules.append("\n".join(e.lines))

    def ability_case(self, e: Emitter, eff: Any) -> None:
        """One ability's effect in use_ability's switch."""
        match eff:
            case A.ScoreEffect():
                f = self.expr(eff.expr, f"the ability scoring {_safe(eff.category)}")
                e.line(f"add(s, p, {self.category(eff.category)}, {f}(s, p, -1, 0));")
            case A.TakeAsideEffect():
                e.line("take_aside(s, lm, p);")
            case A.DrawKeepEffect(draw=n, rest=rest):
                if rest not in REST:
                    self.problems.append("a draw-and-keep ability whose rest goes somewhere unknown")
                e.line(f"draw_keep(s, lm, p, {c_int(n)}, {c_int(REST.get(rest, 2))});")
            case A.DrawCardEffect(deck=deck):  # a draw like any other, the deck's `when empty` included
                e.line(f"{self.draw(deck)}(s, p);")
            case A.DoubleEffect(factor=factor, markers=markers, target=target):
                e.line(f"double_mission(s, lm, p, {c_int(factor)}, {c_int(markers)}, {c_int(int(target == 'any'))});")
            case _:
                self.problems.append(f"the ability effect {type(eff).__name__}")

    def card_function(self) -> None:
        """A card's condition by card id (cards, end scoring: the engine runs them as exprgen's Python)."""
        cond: dict[str, A.Expr] = {}
        for cards in self.rs.decks.values():
            for c in cards:
                cond[c.name] = c.cond.node  # the last definition of a name wins, as Static.cards
        e = Emitter()
        with e.block("static i64 card_cond(const S *s, int c, int me) {", "}"):
            e.line("switch (c) {")
            for ci, name in enumerate(self.cards):
                e.line(f"case {c_int(ci)}: return {self.expr(cond.get(name), f'mission card {ci + 1}')}(s, me, -1, 0);")
            e.line("}")
            e.line("(void)s; (void)me;")
            e.line("return 0;")
        self.rules.append("\n".join(e.lines))

    def public_function(self) -> None:
        """I-M1: after every placement each seat (the placer first, or in seat order) against every face-up
        card: big points to the first to fulfil it, small to each later one, times a doubling marker.
        Incremental (the default, as accel.public.public_missions): a card is read for a seat only once something
        its condition reads (compile/reads.py) changed for that seat; `full_reads`: every card, every time
        (the reference the incremental check is tested against)."""
        if not self.incremental:
            self.rules.append(public.c_check())  # the rule as rules.public.check states it
            return
        self.public_tables()
        e = Emitter()
        e.declare("s", "q", "cat")
        # one seat's marked cards, read (pub_pay pays each met); `return` ends that seat's reading
        with e.block("static inline __attribute__((always_inline)) void pub_read_seat(S *s, int q, int cat) {", "}"):
            e.line("u64 d[NCW], any = 0;")
            with e.block("for (int w = 0; w < NCW; w++) {", "}"):
                e.line("d[w] = (s->pdirty[q][w] | RD_ALWAYS[w]) & s->plive[q][w];")
                e.line("s->pdirty[q][w] = 0;")
                e.line("any |= d[w];")
            e.line("if (!any) return;")
            e.line("/* by card id, not in face-up order: a seat's cards are paid independently of each other (the")
            e.line("   order of a card's fulfillers is the seats' order), and a card face up twice is one bit */")
            with e.block("for (int w = 0; w < NCW; w++) for (u64 bits = d[w]; bits; bits &= bits - 1) {", "}"):
                e.line("int c = w * 64 + __builtin_ctzll(bits);")
                e.line("if (s->pub_done[c][q]) continue;")
                e.line("if (CARD_HOLDS[c] >= 0 && s->lm_owner[CARD_HOLDS[c]] != q) continue;  /* false unless q holds it */")
                with e.block("if ((RD_BOUNDED[w] >> (c & 63)) & 1) {  /* `E >= N`: keep how far E is from N "
                             "(pub_tile) */"):
                    e.line("/* known exactly: met where nothing is lacking, not read (RD_EXACT) */")
                    with e.block("if ((s->pknown[q][w] >> (c & 63)) & 1) {"):
                        e.line("if (s->pslack[q][c]) continue;")
                    with e.block("} else {", "}"):
                        e.line("i64 left = TH_LIMIT[s->n * NCARDX + c] - card_measure(s, c, q);")
                        with e.block("if (left > 0) {", "}"):
                            e.line("s->pslack[q][c] = left < SLACK_CAP ? (slack_t)left : SLACK_CAP;")
                            e.line("if (left <= SLACK_CAP) s->pknown[q][w] |= RD_EXACT[w] & (1ULL << (c & 63));")
                            e.line("continue;")
                e.line("} else if (!card_cond(s, c, q)) continue;")
                e.line("pub_pay(s, c, q, cat);")
        e.declare("p", "placer_first")
        with e.block("static void public_read(S *s, int p, int placer_first, int cat) {", "}"):
            e.line("u32 seats = RD_HAS_ALWAYS ? (1u << s->n) - 1 : s->pseats;")
            e.line("s->pseats = 0;")
            e.line("if (!s->npub || !seats) return;")
            # one seat to read (most often the placer's own cards): the order the seats are read in is moot
            e.line("if (!(seats & (seats - 1))) { pub_read_seat(s, __builtin_ctz(seats), cat); return; }")
            with e.block("for (int step = 0; step < s->n; step++) {", "}"):
                e.declare("step")
                e.line(f"int q = {public.c_seat(e.locals)};")  # rules.public.seats
                e.line("if ((seats >> q) & 1) pub_read_seat(s, q, cat);")
        # most placements mark no card to read (pseats 0): that test is made in place(), the reading called
        e.line("static inline __attribute__((always_inline)) void public_missions(S *s, int p, int placer_first, "
               "int cat) {")
        e.line("    if (RD_HAS_ALWAYS || s->pseats) public_read(s, p, placer_first, cat);")
        e.line("}")
        self.rules.append("\n".join(e.lines))

    def public_tables(self) -> None:
        """What each card's condition reads (compile/reads.py), as masks over the card ids: per tile kind and
        hex the cards a tile there may change for its own seat (RD_MINE) or for every seat (RD_ANY); those a
        landmark changing hands or an area won may change; those read after every placement (RD_ALWAYS).
        And per card of the threshold form `E >= N` (reads.Threshold): N per player count (TH_LIMIT, a row per
        count: N may follow it, `players(2 to 3: 15, 4: 13)`), and how far E can rise per tile kind and hex
        (TH_GROW), per landmark taken (TH_LM) and per area won (TH_WON), and E where its holder has nothing
        (TH_BASE: what it lacks at a new game, pub_fresh). A card counting the landmarks of a kind
        its holder touched (`count(touched(me, K))`) rises by a tile only by those next to it the holder had not
        touched yet (s->touched, marked after the placement's reactions): GROW_TOUCH, with K in TH_TOUCHK, as
        accel/public.py's _touches has it for the generated Python engine."""
        t, nk, ncw = self.t, self.nk, max(1, (len(self.cards) + 63) // 64)
        nh, nl, ncx = max(t.n, 1), max(len(t.landmark_hex), 1), max(len(self.cards), 1)
        defs = static(self.rs).cards
        mine, anyone = [0] * (nk * nh * ncw), [0] * (nk * nh * ncw)
        masks = {"lm_mine": [0] * ncw, "lm_any": [0] * ncw, "won_mine": [0] * ncw, "won_any": [0] * ncw,
                 "always": [0] * ncw, "bounded": [0] * ncw, "taken_only": [0] * ncw, "exact": [0] * ncw}
        holds = [-1] * ncx  # per card, a landmark it is false without its reader holding (Reads.holds)
        np1 = max(self.rs.players[1], 1) + 1  # TH_LIMIT's rows: a row per count to NP (s->n indexes it)
        limit, reach, won, touchk, base = [0] * (np1 * ncx), [0] * ncx, [0] * ncx, [0] * ncx, [0] * ncx
        areak = [0] * ncx
        lm_adj = static(self.rs).lm_adj
        grow, lm_grow = [0] * (nk * nh * ncx), [0] * (nl * ncx)
        measures: list[tuple[int, str]] = []
        for c, name in enumerate(self.cards):
            w, b = c >> 6, 1 << (c & 63)
            rd, th = defs[name].reads, defs[name].threshold
            if rd is None or rd.everything:
                masks["always"][w] |= b
                continue
            for k in range(nk):
                for table, hexes in ((mine, rd.mine[k]), (anyone, rd.anyone[k])):
                    for h in range(t.n):
                        if hexes >> h & 1:
                            table[(k * nh + h) * ncw + w] |= b
            holds[c] = int(rd.holds)
            for key, on in (("lm_mine", rd.landmarks_mine), ("lm_any", rd.landmarks_anyone),
                            ("won_mine", rd.won_mine), ("won_any", rd.won_anyone), ("taken_only", rd.taken_only)):
                if on:
                    masks[key][w] |= b
            if th is None or any(not -(1 << 31) < x < 1 << 31 for x in th.limits[:np1]):
                continue  # a number past 32 bits (`E >= 1000000 * players`): read whenever its reads change
            masks["bounded"][w] |= b
            reach[c], won[c], base[c] = int(th.reach), int(th.won_grow), int(th.base)
            for n in range(np1):
                limit[n * ncx + c] = int(th.limits[n])
            # compiled first: the tile kinds it reads as hexes are then kept (tile sets, cexpr.py), which
            # GROW_AREA reads
            measures.append((c, self.expr(th.measure, f"the measure of mission card {c + 1}")))
            special = 0
            exact = _exact(t, th.measure)
            match th.measure:
                case A.Call(fn="count" | "size", args=(A.Call(fn="touched", args=(
                        A.Name(id="me"), A.Name(id=kind))),)) if kind in t.landmark_kinds:
                    near = [sum(t.landmark_kind[lm] == kind for lm in lm_adj[h]) for h in range(t.n)]
                    # the growth reads.py gives it: the landmarks of the kind around each hex (else left as is)
                    if all(list(row) == near for row in th.grow):
                        special = GROW_TOUCH
                        touchk[c] = t.landmark_kinds.index(kind)
                case A.Call(fn="count" | "size", args=(A.Call(fn="areas", args=(
                        A.Call(fn="tiles", args=(A.Name(id="me"), *sel)),)),)) if all(
                        isinstance(x, A.Name) for x in sel):
                    kinds = selected_kinds(t, tuple(sel))
                    # the growth reads.py gives it (one on every hex for a tile of the kinds), and the kinds'
                    # tiles kept as hexes per seat (else left as is)
                    if (all(list(th.grow[k]) == [int(k in kinds)] * t.n for k in range(nk))
                            and all(self.ex.tile_sets >> k & 1 for k in kinds)):
                        special = GROW_AREA
                        areak[c] = _mask(frozenset(kinds), nk)
            # a count of landmarks touched or of areas rises by exactly what is kept only in its own form
            if exact or special:
                masks["exact"][w] |= b
            for k in range(nk):
                for h in range(t.n):
                    up = int(th.grow[k][h])
                    grow[(k * nh + h) * ncx + c] = special if special and up > 0 else up
            for lm, up in enumerate(th.lm_grow):
                lm_grow[lm * ncx + c] = int(up)
        if any(not -(1 << 31) < v < 1 << 31 for v in (*limit, *reach, *won, *grow, *lm_grow, *base)):
            self.problems.append("a mission card's number or growth past 32 bits")
        out = self.tables
        out.append(f"#define GROW_VALUE {c_int(VALUE)}")
        out.append(f"#define GROW_GROUP {c_int(GROUP)}")
        out.append(f"#define GROW_REACH {c_int(REACH)}")
        out.append(f"#define GROW_TOUCH {c_int(GROW_TOUCH)}")
        out.append(f"#define GROW_AREA {c_int(GROW_AREA)}")
        self.area_tables()
        out.append(f"#define RD_HAS_ANY {c_int(int(any(anyone)))}")
        out.append(f"#define RD_HAS_LM_ANY {c_int(int(any(masks['lm_any'])))}")
        out.append(f"#define RD_HAS_WON_ANY {c_int(int(any(masks['won_any'])))}")
        out.append(f"#define RD_HAS_ALWAYS {c_int(int(any(masks['always'])))}")
        out.append(f"static const u64 RD_MINE[{c_int(len(mine))}] = {c_ints(mine, words=True)};")
        out.append(f"static const u64 RD_ANY[{c_int(len(anyone))}] = {c_ints(anyone, words=True)};")
        # the most a bounded card can lack: E is its numbers (TH_BASE) and counts, sizes and values of its holder's,
        # never below the numbers, so N less those (state_types: pslack's type; a loaded position's E the same)
        bounded = [c for c in range(len(self.cards)) if masks["bounded"][c >> 6] >> (c & 63) & 1]
        self.slack_cap = _slack_cap(max([limit[n * ncx + c] - base[c] for n in range(np1) for c in bounded] + [1]))
        for c in bounded:  # what a card lacks is exact only where its slack is never capped
            if any(limit[n * ncx + c] - base[c] > self.slack_cap for n in range(np1)):
                masks["exact"][c >> 6] &= ~(1 << (c & 63))
        for key, m in masks.items():
            out.append(f"static const u64 RD_{key.upper()}[NCW] = {c_ints(m, words=True)};")
        out.append(f"static const i32 CARD_HOLDS[NCARDX] = {c_ints(holds)};")
        held = [c for c in range(len(self.cards)) if holds[c] >= 0]  # the same, listed (pub_unheld)
        out.append(f"#define NHOLD {c_int(len(held))}")
        out.append(f"static const i32 HOLD_CARD[{c_int(max(len(held), 1))}] = {c_ints(held)};")
        out.append(f"static const i32 TH_LIMIT[(NP + 1) * NCARDX] = {c_ints(limit)};")
        # a new deal of n players (pub_fresh): what a bounded card lacks where its holder has nothing (capped as
        # public_read caps it; 0: met there, paid at the first check), and the cards not read then
        lack0 = [0] * (np1 * ncx)
        short0 = [0] * (np1 * ncw)
        for n in range(np1):
            for c in range(len(self.cards)):
                if masks["bounded"][c >> 6] >> (c & 63) & 1 and limit[n * ncx + c] - base[c] > 0:
                    lack0[n * ncx + c] = min(limit[n * ncx + c] - base[c], self.slack_cap)
                    short0[n * ncw + (c >> 6)] |= 1 << (c & 63)
        out.append(f"static const slack_t PUB_LACK0[(NP + 1) * NCARDX] = {c_ints(lack0)};")
        out.append(f"static const u64 PUB_SHORT0[(NP + 1) * NCW] = {c_ints(short0, words=True)};")
        out.append(f"static const i32 TH_REACH[NCARDX] = {c_ints(reach)};")
        out.append(f"static const i32 TH_TOUCHK[NCARDX] = {c_ints(touchk)};")
        out.append(f"static const u32 TH_AREAK[NCARDX] = {c_ints(areak)};")
        out.append(f"static const i32 TH_BASE[NCARDX] = {c_ints(base)};")  # E where its holder has nothing
        out.append(f"static const i32 TH_WON[NCARDX] = {c_ints(won)};")
        out.append(f"static const i32 TH_GROW[{c_int(len(grow))}] = {c_ints(grow)};")
        out.append(f"static const i32 TH_LM[{c_int(len(lm_grow))}] = {c_ints(lm_grow)};")
        self.pub_tile_function(mine, grow, masks["bounded"], reach, touchk, areak)
        e = Emitter()
        with e.block("static i64 card_measure(const S *s, int c, int me) {", "}"):
            e.line("switch (c) {")
            for c, f in measures:
                e.line(f"case {c_int(c)}: return {f}(s, me, -1, 0);")
            e.line("}")
            e.line("(void)s; (void)me;")
            e.line("return 0;")
        self.rules.append("\n".join(e.lines))

    def area_tables(self) -> None:
        """PUB_AREAX[h][AXW]: the other hexes of h's area (none off every area), in AXW words of a hex set from
        word PUB_AW0[h]: two words where no area spans more (areas are a few neighbouring hexes), else all W,
        so pub_new_area reads a seat's tiles there without a loop over the area."""
        t = self.t
        spans = [(min(a) >> 6, max(a) >> 6) for a in t.area_hexes if a]
        axw = min(self.words, 2) if all(hi - lo <= 1 for lo, hi in spans) else self.words
        rows, w0s = [], []
        for h in range(t.n):
            a = int(t.area_of[h])
            others = [m for m in t.area_hexes[a] if m != h] if a >= 0 else []
            w0 = min(min(others or [0]) >> 6, self.words - axw) if axw < self.words else 0
            row = [0] * axw
            for m in others:
                row[(m >> 6) - w0] |= 1 << (m & 63)
            rows.append(c_ints(row, words=True))
            w0s.append(w0)
        self.tables.append(f"#define AXW {c_int(axw)}")
        self.tables.append(f"static const u8 PUB_AW0[{c_int(max(t.n, 1))}] = {c_ints(w0s or [0])};")
        self.tables.append(f"static const u64 PUB_AREAX[{c_int(max(t.n, 1))}][AXW] = "
                           f"{{{', '.join(rows) or c_ints([0] * axw, words=True)}}};")

    def pub_tile_function(self, mine: list[int], grow: list[int], bounded: list[int], reach: list[int],
                          touchk: list[int], areak: list[int]) -> None:
        """pub_tile(s, p, k, h, root): after seat p's tile of kind k on hex h (its groups merged into the group
        of `root`, as occupy leaves it: its size is read there, not found again), p's face-up cards it may
        change (RD_MINE) marked to be read, but a bounded card (`E >= N`) only once E may have reached N.
        Per kind, each bounded card a tile of the kind may bring closer is a test of its own, its growth written
        out where it has one form over the hexes (a number, by a table where it differs from hex to hex; the
        tile's value; its group's size; the landmarks of a kind next to h not touched yet; an area new to p),
        decided here instead of decoding TH_GROW card by card on every placement; pub_grown decodes it where the
        forms differ."""
        t, nk, ncw = self.t, self.nk, len(bounded)
        nh, ncx = max(t.n, 1), max(len(self.cards), 1)
        e = Emitter()
        e.declare("s", "p", "k", "h", "root")
        words = [f"b{w}" for w in range(ncw)]
        with e.block("static inline __attribute__((always_inline)) void pub_tile(S *s, int p, int k, int h, int root) "
                     "{", "}"):
            e.line("(void)root;")
            e.line("const u64 *mine = &RD_MINE[(k * NH + h) * NCW];")
            for w, b in enumerate(words):
                e.line(f"u64 {b} = mine[{c_int(w)}] & s->plive[p][{c_int(w)}];")
            e.line("switch (k) {")
            for k in range(nk):
                cards: list[tuple[int, str]] = []  # (card, its growth's test)
                for c in range(len(self.cards)):
                    w, bit = c >> 6, 1 << (c & 63)
                    if not bounded[w] & bit:
                        continue
                    hexes = [h for h in range(t.n) if mine[(k * nh + h) * ncw + w] & bit]
                    if not hexes:
                        continue
                    ups = [grow[(k * nh + h) * ncx + c] for h in hexes]
                    forms = {up if up < 0 else 1 for up in ups if up}
                    if not forms or forms == {1}:  # a number per hex (0: it reads the tile, and E cannot rise)
                        if len(set(ups)) == 1:
                            by = c_int(ups[0])
                        else:
                            per = [grow[(k * nh + h) * ncx + c] for h in range(nh)]
                            by = f"{self.table_of(f'PUBUP{k}_{c}', per)}[h]"
                        test = f"pub_short(s, p, {c_int(c)}, {by}, 0)"
                    elif len(forms) > 1 or 0 in ups:
                        test = f"pub_grown(s, p, k, h, {c_int(c)})"
                    elif forms == {VALUE}:  # by the tile's value
                        test = f"pub_short(s, p, {c_int(c)}, s->tval[h], 0)"
                    elif forms == {GROUP}:  # the largest group is now at least the tile's own
                        test = f"pub_short(s, p, {c_int(c)}, 0, s->uf[root])"
                    elif forms == {REACH}:  # one more group of the size only if the tile's own now is one
                        test = f"pub_short(s, p, {c_int(c)}, s->uf[root] >= {c_int(reach[c])}, 0)"
                    elif forms == {GROW_AREA}:  # an area more only where h's area held none of its holder's
                        test = f"pub_short(s, p, {c_int(c)}, pub_new_area(s, p, h, {c_int(areak[c])}u), 0)"
                    else:  # GROW_TOUCH: the landmarks of the card's kind next to h its holder had not touched
                        test = f"pub_short(s, p, {c_int(c)}, pub_untouched(s, p, h, {c_int(touchk[c])}), 0)"
                    cards.append((c, test))
                if not cards:
                    continue
                with e.block(f"case {c_int(k)}: {{", "}"):
                    for c, test in cards:
                        word, one = words[c >> 6], c_u64(1 << (c & 63))
                        e.line(f"if (({word} & {one}) && {test}) {word} &= ~{one};")
                    e.line("break;")
            e.line("}")
            for w, b in enumerate(words):
                e.line(f"pub_mark(s, p, {c_int(w)}, {b});")
            with e.block("if (RD_HAS_ANY) {", "}"):
                e.line("const u64 *any = &RD_ANY[(k * NH + h) * NCW];")
                e.line("for (int q = 0; q < s->n; q++) for (int w = 0; w < NCW; w++) "
                       "pub_mark(s, q, w, any[w] & s->plive[q][w]);")
        self.rules.append("\n".join(e.lines))

    def table_of(self, name: str, values: list[int]) -> str:
        """A per-hex i32 table among the C tables; its name."""
        self.tables.append(f"static const i32 {name}[{c_int(len(values))}] = {c_ints(values)};")
        return name

    def end_functions(self) -> None:
        """S-E1..S-E3 and the winner with its tie chain (S-E4), as runtime/endgame.py."""
        rs, t = self.rs, self.t
        self.card_function()
        e = Emitter()
        e.consts = self.tables  # the C tables, declared before every function
        e.declare("s", "totals", "bd", "with_bd")
        # written twice by the compiler: with the per-category breakdown (bd) and, where the caller reads none,
        # without it
        with e.block("static inline __attribute__((always_inline)) void end_scores(S *s, i64 *totals, i64 *bd, "
                     "const int with_bd) {", "}"):
            e.line("int n = s->n;")
            e.line("for (int q = 0; q < n; q++) { totals[q] = s->track[q]; "
                   "if (with_bd) for (int c = 0; c < NC; c++) bd[q * NC + c] = s->score[q][c]; }")
            for i, (kind, fn, cat, _ids) in enumerate(rs.end_incomplete):  # S-E1
                f = self.expr(fn.node, f"incomplete-area scoring {i + 1}")
                inc = e.c_table("u8", f"INC{i}", "NAX", [int(k == kind) for k in t.area_kind])
                with e.block(f"for (int a = 0; a < NA; a++) if (!s->area_done[a] && s->area_free[a] && {inc}[a])"), \
                        e.block("for (int q = 0; q < n; q++) if (s->area_inf[a][q] > 0) {", "}"), e.scope():
                    e.line(f"i64 pts = {f}(s, q, -1, s->area_inf[a][q]);")
                    e.declare("q", "pts")
                    self._end_points(e, cat)
            for i, (kind, fn, cat, _ids) in enumerate(rs.end_owned):  # S-E2
                f = self.expr(fn.node, f"end scoring of held landmarks {i + 1}")
                own = e.c_table("u8", f"OWN{i}", "NLX", [int(k == kind) for k in t.landmark_kind])
                with e.block(f"for (int lm = 0; lm < NL; lm++) if (s->lm_owner[lm] >= 0 && {own}[lm]) {{", "}"), \
                        e.scope():
                    e.line("int q = s->lm_owner[lm];")
                    e.line(f"i64 pts = {f}(s, q, -1, 0);")
                    e.declare("q", "pts")
                    self._end_points(e, cat)
            if rs.end_held is not None:  # S-E3
                with e.block("for (int q = 0; q < n; q++) for (int i = 0; i < s->nheld[q]; i++) {", "}"), e.scope():
                    e.line("int c = s->held[q][i];")
                    e.declare("c", "q")
                    e.line(f"i64 pts = {public.c_held_points(e.locals)};")
                    e.declare("pts")
                    self._end_points(e, rs.end_held[0])
        e.line("/* the end of the game's scores: totals[n], and the breakdown bd[n * NC] unless bd is NULL */")
        e.line("static void end_scoring(S *s, i64 *totals, i64 *bd) { if (bd) end_scores(s, totals, bd, 1); "
               "else end_scores(s, totals, bd, 0); }")
        self.rules.append("\n".join(e.lines))
        w = Emitter()
        with w.block("static i32 winners_of(S *s, const i64 *totals) {", "}"):  # S-E4
            w.line("i64 top = totals[0]; i32 tied = 0;")
            w.line("for (int q = 1; q < s->n; q++) if (totals[q] > top) top = totals[q];")
            w.line("for (int q = 0; q < s->n; q++) if (totals[q] == top) tied |= 1 << q;")
            w.line("if (!(tied & (tied - 1))) return tied;  /* one seat tied for the top */")
            for fn, among, _text in rs.winner_ties:
                f = self.expr(fn.node, "a winner tie-break")
                with w.block("{", "}"):
                    w.line(f"i64 w = {f}(s, -1, -1, 0);")
                    w.line(f"if (w >= 0 && w < s->n && (((tied >> w) & 1) || !{c_int(int(among))})) return 1 << w;")
            w.line("return tied;")
        self.rules.append("\n".join(w.lines))

    def _end_points(self, e: Emitter, category: str) -> None:
        """End scoring's `pts` for seat q added to its total and to its category's column."""
        e.locals.require("totals", "bd", "with_bd", "q", "pts")
        ci = self.category(category)
        e.line(f"totals[q] += pts; if (with_bd && {ci} >= 0) bd[q * NC + {ci}] += pts;")


def _additive(t: Any, x: A.Expr) -> bool:
    """A hex set that only `me`'s tiles join, one hex per tile, never leaving it: the seat's tiles, or those of
    them at or near something (reads.py's `additive`)."""
    match x:
        case A.Call(fn="tiles", args=(A.Name(id="me"), *_)):
            return True
        case A.Call(fn="at" | "near", args=(y, _)):
            return _additive(t, y)
    return False


def _exact(t: Any, e: A.Expr) -> bool:
    """Whether a bounded card's measure E rises by exactly the growth reads.py bounds it by (public_tables'
    tables and pub_won take off exactly what it gains) and never falls, so what is kept of how far it is short
    is exact: numbers, counts of a hex set of the seat's tiles, sums of their values, its largest group and
    the areas it won, and these added; not the landmarks it holds (they can be taken) nor its groups of a size
    (merged groups go). A count of landmarks touched or of areas is exact in its own growth form (cgen's
    GROW_TOUCH, GROW_AREA), decided where that is."""
    match e:
        case A.Num():
            return True
        case A.BinOp(op="+", left=a, right=b):
            return _exact(t, a) and _exact(t, b)
        case A.Call(fn="count" | "size", args=(A.Call(fn="won", args=(A.Name(id="me"),)),)):
            return True
        case A.Call(fn="largest", args=(A.Call(fn="groups", args=(A.Name(id="me"), *_)),)):
            return True
        case A.Call(fn=fn, args=(x,)) if fn in ("count", "size") or fn in t.attributes:
            return _additive(t, x)
    return False


def _ctype(lo: int, hi: int) -> str:
    """The smallest signed C integer type holding lo .. hi (state_types)."""
    for name, bits in (("int8_t", 8), ("int16_t", 16), ("int32_t", 32)):
        if -(1 << (bits - 1)) <= lo and hi < 1 << (bits - 1):
            return name
    return "int64_t"


def _umax(hi: int) -> int:
    """The largest value of the type _utype gives for 0 .. hi."""
    return {"uint8_t": (1 << 8) - 1, "uint16_t": (1 << 16) - 1, "int32_t": (1 << 31) - 1}.get(_utype(hi), (1 << 63) - 1)


def _slack_cap(need: int) -> int:
    """The largest value of the smallest type holding 0 .. need (uint8_t, uint16_t, else int32_t: 2^31 - 1), so
    a slack is kept whole up to `need` and capped above it (state_types)."""
    return min(_umax(need), (1 << 31) - 1)


def _utype(hi: int) -> str:
    """The smallest C integer type holding 0 .. hi, unsigned where it is narrower than int (read as int in
    every expression, so a count stays a count), else int32_t or int64_t (state_types)."""
    for name, bits in (("uint8_t", 8), ("uint16_t", 16)):
        if hi < 1 << bits:
            return name
    return _ctype(0, hi)


def _safe(category: str) -> str:
    """A category name for a problem message (never for the C source)."""
    return f"`{category}`"


def generate(rs: Ruleset, full_reads: bool = False) -> Plan:
    """The C source and its reading plan for a ruleset; raises Unsupported naming everything it cannot express.
    `full_reads`: read every face-up card for every seat after every placement (the reference check the
    incremental one is tested against; tests only)."""
    return _Gen(rs, full_reads).generate()
