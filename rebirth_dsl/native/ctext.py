"""The fixed C text of the native engine: types, the game state, the random generator, the expression
helpers, the playout loop and the exported functions. It names no rule of any game: every number it
reads comes from the tables and functions cgen.py generates in front of it (NH hexes, NP seats, ...).
What states a rule is its rule module's C (rules/public.py C_PAY, rules/turn.py C_DRAW and the end of a
turn), which cgen.py puts between these pieces: CORE_BOARD, C_PAY, CORE_MOVES, C_DRAW, play_out(), CORE_GAME.
"""

from __future__ import annotations

from rebirth_dsl.compile.emit import Emitter
from rebirth_dsl.rules import turn

# The exported functions, as cffi reads them (ABI mode): the same for every ruleset.
CDEF = """
int rb_info(int32_t *out, int cap);
int rb_games(uint64_t seed0, int count, int n, int64_t *totals, int64_t *breakdown, int32_t *winners,
             int32_t *lm_owner, int32_t *extra, int64_t *moves);
int rb_record(uint64_t seed, int n, int32_t *setup, int32_t *moves, int32_t *answers, int32_t *counts,
              int64_t *totals, int64_t *breakdown, int32_t *winners, int32_t *lm_owner);
int rb_playouts(const int32_t *flat, int nflat, const int64_t *scores, uint64_t seed, int count, int redeal,
                int64_t *totals, int32_t *moves, int32_t *answers, int32_t *counts);
int rb_search(const int32_t *flat, const int32_t *offs, int ndet, const int64_t *scores, int viewer,
              const int32_t *cands, int ncand, uint64_t seed, int sample, int64_t *margin, int32_t *winners);
"""

PRELUDE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
typedef int64_t i64;
typedef int32_t i32;
typedef int16_t i16;
typedef uint64_t u64;
typedef uint32_t u32;
typedef unsigned char u8;
#define EXPORT __attribute__((visibility("default")))
#define VMASK ((1 << VBITS) - 1)
#define NOFIRST (-100) /* area_first of an area nobody won: never equal to a seat or to `nobody` */
"""

STATE = r"""
/* The position and the players' holdings. Tiles are codes kind << VBITS | value (tile_t, VBITS the bits of the
   ruleset's largest value); cards are card ids (cid_t). Every count and index is of the smallest type its
   values fit (cgen.py state_types: hix_t a hex, hct_t a count of hexes, ainf_t an area's influence, tn_t a
   count of tiles, cn_t of cards, an_t of areas, mv_t of landmarks taken; hk_t, own_t, cnt_t per hex and
   landmark; tv_t a tile's value, uf_t the union-find's entries, dbl_t a doubling factor, pdn_t a pending
   draw's N), fields of wider types first, and an array only as long as what the ruleset can put in it (none
   of what it never reads), so the whole state the search copies, and the part a new game copies from its
   template (up to DEALT), are as small as the ruleset on its board allows. */
typedef int8_t seat_t;  /* a seat or NOFIRST: at most 31 seats (cgen.py refuses more) */
/* a hex's holder p (-1 nobody, -2 neutral) and its tile's kind k (-1 none) as one hk_t: (p + 2) << HKB | (k + 1),
   HKB the bits of NK (cgen.py state_types), read back by OWNER and TKIND */
#define HK(p, k) ((((p) + 2) << HKB) | ((k) + 1))
#define OWNER(s, h) ((int)((s)->hk[h] >> HKB) - 2)
#define TKIND(s, h) ((int)((s)->hk[h] & ((1 << HKB) - 1)) - 1)
typedef struct {
    /* each seat's tiles of each kind an expression reads as hexes (cgen.py: TBS(k) its slot, TBON(k) whether
       it has one; a kind nothing reads them of is kept in none), a bit per hex */
    u64 tbits[NP][NKT][W];
    /* counters kept while placing, so what the missions read at the end is not searched for: each seat's
       tiles on each hex set an expression counts (cexpr.py tile_counter: 16 bits each, four to a word, cgen.py
       HCADD), its largest group per tile kind (glarge: groups only grow), its areas ranked first (nwon) */
    u64 hcnt[NP][NHW];
    u64 touched[NP][NLW];  /* the landmarks each seat has touched, as bits (rules/touch.py) */
    /* the incremental check of the face-up cards (cgen.py public_function), per seat, by card id bits: the
       cards face up and not fulfilled (plive), those something they read changed for since they were last
       read (pdirty), and (pslack, below) per card of the form `E >= N` how far E is known to be short of N */
    u64 plive[NPC ? NP : 1][NCW], pdirty[NPC ? NP : 1][NCW];  /* none where no card lies face up (NPC) */
    i64 score[NP][NCX], track[NP];
    /* the record being written, if any: 3 ints a move (seat, tile, hex), 3 an answer (move, landmark, answer);
       both counts go on past the buffers, so a record that did not fit is refused, never cut (lib.py) */
    i32 *rec_moves, *rec_ans;
    i32 nmoves, nans;
    i32 n, turn, move_index;
    i32 passed[NP];
    u32 pseats;  /* the seats with a card in pdirty: most placements mark none, and the check returns at once */
    ainf_t area_inf[NAX][NP];
    hct_t area_free[NAX];
    /* the free hexes of each hex kind a tile may be placed on: a list per kind from FOFF[fk] in freel, of
       freen[fk] hexes, a taken hex replaced by the list's last. pick_hex draws a place in them (a slot of
       freel), so the hex is taken from its slot, never looked up: no hex's place is kept */
    hct_t freen[NFKX];
    hix_t freel[NH];
    hct_t tcount[NP][NK], glarge[NP][NK];
    tn_t nhand[NP], nsupply[NP], naside[NP];  /* the holdings' counts; their tiles and cards: below */
    cn_t dtop[NDX], dlen[NDX], nheld[NP], npub, ndbl[NP];
    an_t nwon[NP];
    /* what the lab reads besides the scores (play/tally.py): landmarks taken from a holder or unheld, per
       majority statement, and the order of each public card's fulfillers (fallback placements are read off
       the board: extras) */
    mv_t changes[NMAJX][NP], claims[NMAJX][NP];
    hk_t hk[NH];  /* each hex's holder and tile kind in one (HK): one compare finds a seat's tile of a kind */
    own_t lm_owner[NLX];
    /* the value of each hex's tile (0 where none), kept only where an expression reads values off the board
       (TILE_VALUES, cgen.py: else one slot nobody reads; an area's influence is kept apart, area_inf) */
    tv_t tval[TILE_VALUES ? NH : 1];
    cnt_t lm_count[NLX][NM][NP];
    seat_t area_first[NAX];
    u8 area_done[NAX];
    /* per card that may lie face up (NPC: the ids below it, cgen.py constants; one slot where none may) and
       per card that may carry a doubling marker (NDC): a ruleset without either keeps none of their state */
    u8 pub_done[NPCX][NP];
    u8 pub_cnt[NPCX];
    u8 dbl_on[NP][NDCX];
    u8 pend_on[PENDING_DRAWS ? NP : 1];  /* a draw N, keep one pending (none where no ability leaves one) */
    /* a tile or card found no room in its array: the game is refused (-4), never scored without it. load()
       admits only positions whose hands and held cards cannot outgrow their arrays, so it stays 0 */
    u8 lost;
    /* ----- below, each field is written before it is read in a game, so a new game copies the template only
       up to here (DEALT): the generator, the union-find of the tiles' groups, which occupy starts for each tile
       it places (only placed tiles are ever found: a group is of a seat's tiles), a pending draw's numbers (read
       only while its pend_on is set), what the seats' bounded cards lack and which of that is exact (pslack,
       and pknown last: every card of every seat in the game written by pub_fresh at a deal, zeroed by load;
       read only where the cards are read incrementally),
       and the holdings' contents, each read only below its count (above), which a new game deals ----- */
    u64 rng[4];  /* seeded by each game: new_game deals from a copy of its own, then stores it here */
    /* the union-find of the tiles' groups: at a group's root its size (a group is at most GMAX tiles, cgen.py
       state_types; load refuses more), at any other tile UP + its parent hex, above every size */
    uf_t uf[NH];
    pdn_t pend_n[PENDING_DRAWS ? NP : 1];  /* the N of its draw N, keep one */
    tile_t pend_keep[PENDING_DRAWS ? NP : 1];
    u8 pend_rest[PENDING_DRAWS ? NP : 1];  /* REST_BOTTOM, REST_TOP or the box */
    /* per seat and card of the form `E >= N`, how far E is known to be short of N (0: unknown, so the card
       is read); at most SLACK_CAP, a lower bound all the same */
    slack_t pslack[NP][NPCX];
    tile_t hand[NP][HMAX];
    tile_t supply[NP][TMAX];
    tile_t aside[NP][HMAX];  /* a seat's set-aside tiles and hand together are at most HMAX (load) */
    cid_t deck[NDX][DMAX];
    cid_t held[NP][HELDMAX];
    cid_t pub[PUBMAX];
    seat_t pub_order[NPCX][NP];  /* the order of each face-up card's fulfillers, below its pub_cnt */
    dbl_t dbl_f[NP][NDCX];  /* a doubled card's factor, read only where its dbl_on is set */
    /* per seat, by card id bits, the cards whose pslack is exactly what E lacks (cgen.py RD_EXACT: E rises
       by exactly what pub_tile and pub_won take off and never falls), known since the deal (pub_fresh) or
       the card's last reading: such a card is met when its pslack reaches 0, and is not read then. The last
       field, of no size where no card lies face up (NPC), so such a ruleset's state is as it was without it */
    u64 pknown[NPC ? NP : 0][NCW];
} S;
#define DEALT __builtin_offsetof(S, rng)
/* the factor of seat q's doubling marker on face-up card c (1: none; never one where no card can carry one) */
#define DBL_F(s, q, c) (NDC && (s)->dbl_on[q][c] ? (s)->dbl_f[q][c] : 1)

typedef i64 (*lam_t)(const S *, int, int, i64);

/* xoshiro256** seeded through splitmix64: the same seed, the same game, on every machine */
static inline u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }
/* the generator on a state of its own (rq_*): a deal draws from a local copy, which the compiler keeps in
   registers rather than loading and storing s->rng around every store of a shuffle */
static inline u64 rq_next(u64 *q) {
    u64 r = rotl(q[1] * 5, 7) * 9, t = q[1] << 17;
    q[2] ^= q[0]; q[3] ^= q[1]; q[1] ^= q[2]; q[0] ^= q[3]; q[2] ^= t; q[3] = rotl(q[3], 45);
    return r;
}
static inline u64 rb_next(S *s) { return rq_next(s->rng); }
/* uniform below n (n < 2^31) from the high 32 bits: the bias is below n / 2^32 */
static inline int rq_below(u64 *q, int n) { return (int)(((rq_next(q) >> 32) * (u64)(u32)n) >> 32); }
static inline int rb_below(S *s, int n) { return rq_below(s->rng, n); }
static inline void rq_seed(u64 *q, u64 seed) {
    for (int i = 0; i < 4; i++) {
        u64 z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        q[i] = z ^ (z >> 31);
    }
}
static void rb_seed(S *s, u64 seed) { rq_seed(s->rng, seed); }
/* Fisher-Yates from the top, as runtime.setup.deal: of tiles (codes) and of cards (ids), each in its own type */
#define RQ_SHUFFLE(name, rb_name, T) \
    static inline void name(u64 *q, T *a, int n) { \
        for (int i = n - 1; i > 0; i--) { int j = rq_below(q, i + 1); T x = a[i]; a[i] = a[j]; a[j] = x; } \
    } \
    static void rb_name(S *s, T *a, int n) { u64 q[4]; memcpy(q, s->rng, sizeof q); name(q, a, n); memcpy(s->rng, q, sizeof q); }
RQ_SHUFFLE(rq_shuffle, rb_shuffle, tile_t)
RQ_SHUFFLE(rq_shuffle_cards, rb_shuffle_cards, cid_t)
static inline void add(S *s, int p, int cat, i64 pts) { if (cat >= 0) s->score[p][cat] += pts; s->track[p] += pts; }
"""

HELPERS = r"""
/* ----- what expressions read: the meaning of compile/exprgen.py and compile/closures.py ----- */
/* the bits set in a word, inline: without -mpopcnt (build.py's flags) __builtin_popcountll is a call to libgcc */
static inline int rb_pop64(u64 x) {
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
static int rb_popcount(const u64 *t) { int c = 0; for (int w = 0; w < W; w++) c += rb_pop64(t[w]); return c; }
static void rb_and(const u64 *a, const u64 *b, u64 *out) { for (int w = 0; w < W; w++) out[w] = a[w] & b[w]; }
static i64 rb_valsum(const S *s, const u64 *t) {
    i64 v = 0;
    for (int w = 0; w < W; w++) for (u64 b = t[w]; b; b &= b - 1) v += s->tval[w * 64 + __builtin_ctzll(b)];
    return v;
}
static void rb_tiles(const S *s, int p, u32 km, u64 *out) {
    memset(out, 0, sizeof(u64) * W);
    if (p < 0 || p >= s->n) return;
    for (int k = 0; k < NK; k++) if ((km >> k) & 1) for (int w = 0; w < W; w++) out[w] |= s->tbits[p][TBS(k)][w];
}
static i64 rb_tcount(const S *s, int p, u32 km) {
    if (p < 0 || p >= s->n) return 0;
    i64 c = 0;
    for (int k = 0; k < NK; k++) if ((km >> k) & 1) c += s->tcount[p][k];
    return c;
}
#define UP (GMAX + 1)
static inline int rb_find(const S *s, int h) { while (s->uf[h] >= UP) h = s->uf[h] - UP; return h; }
static inline int rb_gsize(const S *s, int h) { return s->uf[rb_find(s, h)]; }  /* the size of h's group */
static int rb_group_ok(const S *s, int h) {
    return (unsigned)h < NH && OWNER(s, h) >= 0 && ((GROUPMASK >> TKIND(s, h)) & 1);
}
static i64 rb_group_size(const S *s, int h) { return rb_group_ok(s, h) ? rb_gsize(s, h) : 0; }
static void rb_group(const S *s, int h, u64 *out) {
    memset(out, 0, sizeof(u64) * W);
    if (!rb_group_ok(s, h)) return;
    int r = rb_find(s, h);
    const u64 *t = s->tbits[OWNER(s, h)][TBS(TKIND(s, h))];
    for (int w = 0; w < W; w++)
        for (u64 b = t[w]; b; b &= b - 1) { int x = w * 64 + __builtin_ctzll(b); if (rb_find(s, x) == r) out[w] |= 1ULL << (x & 63); }
}
/* A group's root is one of its own tiles, so the roots among a seat's tiles are its groups; nobody (-1)
   has none (Game.groups_of). */
static int rb_groups(const S *s, int p, u32 km, i32 *out) {
    int n = 0;
    if (p < 0 || p >= s->n) return 0;
    for (int k = 0; k < NK; k++) if ((km >> k) & 1) {
        const u64 *t = s->tbits[p][TBS(k)];
        for (int w = 0; w < W; w++)
            for (u64 b = t[w]; b; b &= b - 1) { int x = w * 64 + __builtin_ctzll(b); if (s->uf[x] < UP) out[n++] = s->uf[x]; }
    }
    return n;
}
static i64 rb_largest(const S *s, int p, u32 km) {  /* the largest of the seat's groups, kept by occupy */
    i64 best = 0;
    if (p < 0 || p >= s->n) return 0;
    for (int k = 0; k < NK; k++) if (((km >> k) & 1) && s->glarge[p][k] > best) best = s->glarge[p][k];
    return best;
}
/* the seat's tiles on a hex set counted by counter i (cexpr.py tile_counter); nobody holds none */
static inline i64 rb_hcount(const S *s, int p, int i) {
    return p >= 0 && p < s->n ? (i64)((s->hcnt[p][i >> 2] >> (16 * (i & 3))) & 0xFFFF) : 0;
}
static i64 rb_max(const i32 *g, int n) { i64 m = 0; for (int i = 0; i < n; i++) if (g[i] > m) m = g[i]; return m; }
static int rb_atleast(const i32 *g, int n, i64 least, i32 *out) {
    int m = 0;
    for (int i = 0; i < n; i++) if (g[i] >= least) out[m++] = g[i];
    return m;
}
/* landmarks of the list next to one of p's tiles; nobody (-1, also an empty hex's owner) touches none */
static i64 rb_touched(const S *s, i64 p, const i32 *lms, int n) {
    i64 c = 0;
    if (p < 0) return 0;
    for (int i = 0; i < n; i++) {
        int lm = lms[i];
        for (int j = LMRING_OFF[lm]; j < LMRING_OFF[lm + 1]; j++) if (OWNER(s, LMRING[j]) == p) { c++; break; }
    }
    return c;
}
static i64 rb_owned(const S *s, i64 p, const i32 *lms, int n) {
    i64 c = 0;
    for (int i = 0; i < n; i++) if (s->lm_owner[lms[i]] == p) c++;
    return c;
}
static i64 rb_owner(const S *s, i64 lm) { return lm >= 0 && lm < NL ? s->lm_owner[lm] : -1; }
static i64 rb_areas(const S *s, const u64 *t) {
    u8 seen[NAX];
    i64 c = 0;
    memset(seen, 0, sizeof seen);
    for (int w = 0; w < W; w++)
        for (u64 b = t[w]; b; b &= b - 1) {
            int a = AREA_OF[w * 64 + __builtin_ctzll(b)];
            if (a >= 0 && !seen[a]) { seen[a] = 1; c++; }
        }
    return c;
}
/* the areas that ranked p first: area_first is a seat or NOFIRST, so nobody (-1) won none */
static i64 rb_won(const S *s, i64 p) { return p >= 0 && p < s->n ? s->nwon[p] : 0; }
static i64 rb_most(const S *s, int me, int placed, i64 inf, lam_t f) {
    i64 v = f(s, me, placed, inf);
    for (int q = 0; q < s->n; q++) if (q != me && f(s, q, placed, inf) > v) return 0;
    return 1;
}
static i64 rb_fewest(const S *s, int me, int placed, i64 inf, lam_t f) {
    i64 v = f(s, me, placed, inf);
    for (int q = 0; q < s->n; q++) if (q != me && f(s, q, placed, inf) < v) return 0;
    return 1;
}
static i64 rb_best(const S *s, int placed, i64 inf, lam_t f) {
    i64 top = 0; int who = -1, ties = 0;
    for (int q = 0; q < s->n; q++) {
        i64 v = f(s, q, placed, inf);
        if (q == 0 || v > top) { top = v; who = q; ties = 1; } else if (v == top) ties++;
    }
    return top > 0 && ties == 1 ? who : -1;
}
"""

CORE_BOARD = r"""
/* ----- the board: placing a tile and what follows from it (runtime/placement.py occupy) ----- */
/* the root of h's group, each tile on the way pointed at its grandparent (or kept on the root) */
static inline int find_mut(S *s, int h) {
    while (s->uf[h] >= UP) { int up = s->uf[h] - UP, g = s->uf[up]; if (g >= UP) s->uf[h] = g; h = up; }
    return h;
}
/* the group of root b joins that of root a */
static inline void uf_join(S *s, int a, int b) { s->uf[a] += s->uf[b]; s->uf[b] = UP + a; }
/* hex h's slot in freel (its free list's), found by reading the list: -1 for a taken hex and for a hex of no
   free list. Only for a hex not drawn by pick_hex (a neutral tile, the search's given move) */
static int free_slot(const S *s, int h) {
    int fk = HEX_FK[h];
    if (fk < 0) return -1;
    for (int i = FOFF[fk]; i < FOFF[fk] + s->freen[fk]; i++) if (s->freel[i] == h) return i;
    return -1;
}
/* hex h, at `slot` of freel (-1: on no free list), is no longer free: the list's last takes its slot */
static inline __attribute__((always_inline)) void take_free(S *s, int h, int slot) {
    if (slot < 0) return;
    int fk = HEX_FK[h];
    s->freel[slot] = s->freel[FOFF[fk] + --s->freen[fk]];
}
static void occupy_neutral(S *s, int h) {
    s->hk[h] = HK(-2, -1); if (TILE_VALUES) s->tval[h] = 0;
    take_free(s, h, free_slot(s, h));
    int a = AREA_OF[h];
    if (a >= 0) { s->area_free[a]--; if (s->area_free[a] == 0) s->area_done[a] = 1; }
}
/* returns the root of the placed tile's group (its size the group's, s->uf[root]) */
static inline __attribute__((always_inline)) int occupy(S *s, int h, int slot, int p, int k, int v) {
    s->hk[h] = HK(p, k); if (TILE_VALUES) s->tval[h] = v;
    s->tbits[p][TBS(k)][h >> 6] |= TBON(k) << (h & 63);  /* nothing where no expression reads them */
    if (TILE_COUNTS) s->tcount[p][k]++;  /* only count(tiles(...)) reads them (cgen.py) */
    take_free(s, h, slot);
    s->uf[h] = 1;  /* its own group of one (not copied from the template: DEALT) */
    int root = h;  /* the placed tile's group: itself unless it joins others */
    if ((GROUPMASK >> k) & 1) {
        for (u32 b = NBKM[k][h]; b; b &= b - 1) {  /* the neighbours a tile of kind k can stand on (cgen.py) */
            int m = NB[h][__builtin_ctz(b)];
            if (s->hk[m] == HK(p, k)) {
                int rm = find_mut(s, m);
                if (rm != root) {  /* union by size: every neighbouring group joins */
                    if (s->uf[rm] > s->uf[root]) { int x = rm; rm = root; root = x; }
                    uf_join(s, root, rm);
                }
            }
        }
    }
    if (s->uf[root] > s->glarge[p][k]) s->glarge[p][k] = s->uf[root];
    for (int w = 0; w < NHW; w++) s->hcnt[p][w] += HCADD[k][h][w];
    int a = AREA_OF[h];
    if (a >= 0) { s->area_free[a]--; s->area_inf[a][p] += v; }
    /* the tile's majority counts next to landmarks (placement.occupy) are added by each majority statement
       just before it challenges the landmark's holder (rules/majority.py c_place): nothing else reads them */
    return root;
}

/* a new position (its marks all zero: a copy of a template, or loaded into a cleared state): every face-up
   card a seat has not fulfilled is read at the first check */
static void pub_init(S *s) {
    if (!s->npub) return;  /* no face-up card: nothing to read (the marks are all zero) */
    u64 every[NCW] = {0}, done[NCW] = {0};  /* the face-up cards, and those of them somebody has fulfilled */
    for (int i = 0; i < s->npub; i++) {
        int c = s->pub[i];
        every[c >> 6] |= 1ULL << (c & 63);
        if (s->pub_cnt[c]) done[c >> 6] |= 1ULL << (c & 63);
    }
    for (int q = 0; q < s->n; q++) {
        u64 any = 0;
        for (int w = 0; w < NCW; w++) {
            u64 live = every[w];
            for (u64 b = done[w]; b; b &= b - 1)
                if (s->pub_done[w * 64 + __builtin_ctzll(b)][q]) live &= ~(b & -b);
            s->plive[q][w] |= live;
            any |= live;
        }
        if (any) s->pseats |= 1u << q;
    }
    memcpy(s->pdirty, s->plive, sizeof s->pdirty);
}
"""

# after rules/public.py's C_PAY: placing a tile and answering the abilities' questions
CORE_MOVES = r"""
/* the legal hexes of a tile: pick_hex, generated per tile kind from the placement rules (cgen.py), draws a
   hex and its slot of freel */

static void answer(S *s, int lm, int code) {
    if (!s->rec_ans) return;
    if (s->nans < MAXANS) {
        i32 *a = s->rec_ans + 3 * s->nans;
        a[0] = s->nmoves - 1; a[1] = lm; a[2] = code;
    }
    s->nans++;
}
static inline void hand_add(S *s, int p, int code) {
    if (s->nhand[p] < HMAX) s->hand[p][s->nhand[p]++] = code; else s->lost = 1;
}

/* ability questions answered at random, as fast._answer_per_seat: the distinct tiles, uniformly. A tile is
   kept where none before it is the same: compared with every one before it, without a branch on the tiles
   (which are dealt at random), and written in the next place whether kept or not */
static int distinct_pick(S *s, const tile_t *tiles, int n) {
    i32 seen[TMAX]; int m = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= tiles[j] == tiles[i];
        seen[m] = tiles[i];
        m += !dup;
    }
    return m ? seen[rb_below(s, m)] : -1;
}
static void take_aside(S *s, int lm, int p) {
    int code = distinct_pick(s, s->aside[p], s->naside[p]);
    answer(s, lm, code);
    if (code < 0) return;
    for (int i = 0; i < s->naside[p]; i++) if (s->aside[p][i] == code) {
        memmove(&s->aside[p][i], &s->aside[p][i + 1], sizeof(tile_t) * (s->naside[p] - i - 1));
        s->naside[p]--;
        break;
    }
    hand_add(s, p, code);
}
static void draw_keep(S *s, int lm, int p, int n, int rest) {
    int top = n < s->nsupply[p] ? n : s->nsupply[p];
    int code = n ? distinct_pick(s, &s->supply[p][s->nsupply[p] - top], top) : -1;
    answer(s, lm, code);
    if (code < 0) return;
    s->pend_on[p] = 1; s->pend_n[p] = n; s->pend_keep[p] = code; s->pend_rest[p] = rest;
}
static void double_mission(S *s, int lm, int p, int factor, int markers, int any) {
    i32 opts[PUBMAX]; int m = 0;
    if (s->ndbl[p] < markers)
        for (int i = 0; i < s->npub; i++) {
            int c = s->pub[i];
            if (!s->dbl_on[p][c] && (any || !s->pub_done[c][p])) opts[m++] = c;
        }
    int c = m ? opts[rb_below(s, m)] : -1;
    answer(s, lm, c);
    if (c < 0) return;
    if (!s->dbl_on[p][c]) s->ndbl[p]++;
    s->dbl_on[p][c] = 1; s->dbl_f[p][c] = factor;
}

"""

# after rules/turn.py's C_DRAW: the playout loop (play_out), then
CORE_GAME = r"""
/* ----- a new game: the board with its neutral tiles per player count, then the deal ----- */
static S TEMPLATE[NP + 1];
static void build_template(int n) {
    S *s = &TEMPLATE[n];
    memset(s, 0, sizeof *s);
    s->n = n;
    for (int h = 0; h < NH; h++) s->hk[h] = HK(-1, -1);
    for (int fk = 0; fk < NFK; fk++) s->freen[fk] = FOFF[fk + 1] - FOFF[fk];
    for (int i = 0; i < FOFF[NFK]; i++) s->freel[i] = FREE0[i];
    for (int a = 0; a < NA; a++) { s->area_free[a] = AREA_SIZE[a]; s->area_first[a] = NOFIRST; }
    for (int lm = 0; lm < NL; lm++) s->lm_owner[lm] = -1;
    for (int i = NEUT_OFF[n]; i < NEUT_OFF[n + 1]; i++) occupy_neutral(s, NEUT[i]);
}
__attribute__((constructor)) static void init_templates(void) { for (int n = 1; n <= NP; n++) build_template(n); }

static void draw_hands(S *s) {
    for (int p = 0; p < s->n; p++)
        for (int i = 0; i < HAND; i++) if (s->nsupply[p]) hand_add(s, p, s->supply[p][--s->nsupply[p]]);
}
static void new_game(S *s, int n, u64 seed, i32 *setup) {
    memcpy(s, &TEMPLATE[n], DEALT);  /* the holdings' contents are dealt below */
    u64 q[4];  /* the generator, in s->rng again once the deal is done */
    rq_seed(q, seed);
    int nt = COLOUR_OFF[n + 1] - COLOUR_OFF[n];
    for (int p = 0; p < n; p++) {
        /* runtime.setup.deal shuffles the colour tiles t[0..nt) Fisher-Yates from the top, sets the first
           SET_ASIDE aside and makes the rest the supply, whose top is the end (t[SET_ASIDE] drawn first). The
           shuffle is done in place in the supply, which holds t last first (COLOUR is stored so): with `end`
           just past the dealt tiles, end[-1 - i] is t[i]; the set-aside tiles are then the supply's last and
           the rest is already in the supply's order */
        tile_t *end = s->supply[p] + nt;
        memcpy(s->supply[p], &COLOUR[COLOUR_OFF[n]], sizeof(tile_t) * nt);
        for (int i = nt - 1; i > 0; i--) {
            int j = rq_below(q, i + 1); tile_t x = end[-1 - i]; end[-1 - i] = end[-1 - j]; end[-1 - j] = x;
        }
        int aside = SET_ASIDE < nt ? SET_ASIDE : nt;
        for (int i = 0; i < aside; i++) s->aside[p][i] = end[-1 - i];
        s->naside[p] = aside;
        s->nsupply[p] = nt - aside;
        if (setup) {
            *setup++ = aside; for (int i = 0; i < aside; i++) *setup++ = end[-1 - i];
            *setup++ = nt - aside; for (int i = aside; i < nt; i++) *setup++ = end[-1 - i];
        }
    }
    for (int d = 0; d < ND; d++) {
        s->dlen[d] = DECK_OFF[d + 1] - DECK_OFF[d];
        memcpy(s->deck[d], &DECK0[DECK_OFF[d]], sizeof(cid_t) * s->dlen[d]);
        rq_shuffle_cards(q, s->deck[d], s->dlen[d]);
        if (setup) { *setup++ = s->dlen[d]; for (int i = 0; i < s->dlen[d]; i++) *setup++ = s->deck[d][i]; }
    }
    memcpy(s->rng, q, sizeof q);
    if (PUB_DECK >= 0) {  /* public cards: face up from the top of their deck */
        int c = PUB_COUNT < s->dlen[PUB_DECK] ? PUB_COUNT : s->dlen[PUB_DECK];
        memcpy(s->pub, s->deck[PUB_DECK], sizeof(cid_t) * c);
        s->npub = c;
        s->dtop[PUB_DECK] = c;
    }
    pub_init(s);
#ifdef PUB_FRESH
    pub_fresh(s);  /* read incrementally: what the bounded cards lack at the start is known */
#endif
    draw_hands(s);
}

/* ----- a position from Python (a Game between turns): what is not given is derived from the board ----- */
static int rebuild(S *s) {
    memset(s->tbits, 0, sizeof s->tbits); memset(s->tcount, 0, sizeof s->tcount);
    memset(s->lm_count, 0, sizeof s->lm_count);
    memset(s->glarge, 0, sizeof s->glarge); memset(s->hcnt, 0, sizeof s->hcnt); memset(s->nwon, 0, sizeof s->nwon);
    for (int a = 0; a < NA; a++) if (s->area_first[a] >= 0) s->nwon[s->area_first[a]]++;
    for (int fk = 0; fk < NFK; fk++) s->freen[fk] = 0;
    for (int a = 0; a < NA; a++) s->area_free[a] = 0;
    for (int h = 0; h < NH; h++) {
        s->uf[h] = 1;
        int p = OWNER(s, h), k = TKIND(s, h), a = AREA_OF[h], fk = HEX_FK[h];
        if (p == -1 && fk >= 0) s->freel[FOFF[fk] + s->freen[fk]++] = h;
        if (a >= 0 && p == -1) s->area_free[a]++;
        if (p < 0) continue;
        s->tbits[p][TBS(k)][h >> 6] |= TBON(k) << (h & 63);
        s->tcount[p][k]++;
        for (int w = 0; w < NHW; w++) s->hcnt[p][w] += HCADD[k][h][w];
        for (int w = 0; w < NLW; w++) for (u64 b = MADJM[h][w]; b; b &= b - 1) {
            count_majority(s, w * 64 + __builtin_ctzll(b), p, k);
        }
    }
    /* a group is at most GMAX tiles (uf_t holds no more) where that is fewer than the hexes: a seat's tiles of a
       kind that forms groups, on the board and in its holdings (which it may place), at most those of its
       colour in a dealt game */
    for (int p = 0; GMAX < NH && p < s->n; p++) {
        int have[NK];
        for (int k = 0; k < NK; k++) have[k] = s->tcount[p][k];
        for (int i = 0; i < s->nhand[p]; i++) have[s->hand[p][i] >> VBITS]++;
        for (int i = 0; i < s->nsupply[p]; i++) have[s->supply[p][i] >> VBITS]++;
        for (int i = 0; i < s->naside[p]; i++) have[s->aside[p][i] >> VBITS]++;
        for (int k = 0; k < NK; k++) if (((GROUPMASK >> k) & 1) && have[k] > GMAX) return -2;
    }
    for (int h = 0; h < NH; h++) {  /* groups: union every same-owner same-kind neighbour pair */
        int p = OWNER(s, h), k = TKIND(s, h);
        if (p < 0 || !((GROUPMASK >> k) & 1)) continue;
        for (int j = 0; j < NNB[h]; j++) {
            int m = NB[h][j];
            if (m < h && s->hk[m] == HK(p, k)) {
                int a = find_mut(s, h), b = find_mut(s, m);
                if (a != b) {
                    if (s->uf[a] < s->uf[b]) { int x = a; a = b; b = x; }
                    uf_join(s, a, b);
                }
            }
        }
    }
    for (int h = 0; h < NH; h++) {  /* each seat's largest group per tile kind: its roots' sizes */
        int p = OWNER(s, h), k = TKIND(s, h);
        if (p >= 0 && s->uf[h] < UP && s->uf[h] > s->glarge[p][k]) s->glarge[p][k] = s->uf[h];
    }
    return 0;
}
/* the range checked on the int read, before it is stored: a field narrower than 32 bits would wrap first */
#define TAKE_IN(x, lo, hi) do { if (i >= nflat || flat[i] < (lo) || flat[i] > (hi)) return -2; (x) = flat[i++]; } while (0)
static int load(S *s, const i32 *flat, int nflat, const i64 *scores) {
    int i = 0, n, c, x;
    memset(s, 0, sizeof *s);
    TAKE_IN(n, 1, NP); s->n = n;
    TAKE_IN(s->turn, 0, n - 1); TAKE_IN(s->move_index, 0, 1 << 30);
    for (int h = 0; h < NH; h++) {
        int o, k, v;
        TAKE_IN(o, -2, n - 1); TAKE_IN(k, -1, NK - 1); TAKE_IN(v, 0, TVMAX);
        if (o >= 0 && k < 0) return -2;
        s->hk[h] = HK(o, k);
        if (TILE_VALUES) s->tval[h] = v;
        if (o >= 0 && AREA_OF[h] >= 0) s->area_inf[AREA_OF[h]][o] += v;  /* its area's influence (rebuild the rest) */
    }
    for (int a = 0; a < NA; a++) { TAKE_IN(s->area_first[a], -1, n - 1); if (s->area_first[a] < 0) s->area_first[a] = NOFIRST; TAKE_IN(s->area_done[a], 0, 1); }
    for (int lm = 0; lm < NL; lm++) TAKE_IN(s->lm_owner[lm], -1, n - 1);
    for (int p = 0; p < n; p++) for (int lm = 0; lm < NL; lm++) { TAKE_IN(x, 0, 1); if (x) s->touched[p][lm >> 6] |= 1ULL << (lm & 63); }
    for (int p = 0; p < n; p++) {
        for (int cat = 0; cat < NC; cat++) s->score[p][cat] = scores[p * (NC + 1) + cat];
        s->track[p] = scores[p * (NC + 1) + NC];
    }
    for (int p = 0; p < n; p++) { TAKE_IN(c, 0, HMAX); s->nhand[p] = c; for (int j = 0; j < c; j++) TAKE_IN(s->hand[p][j], 0, (NK << VBITS) - 1); }
    for (int p = 0; p < n; p++) { TAKE_IN(c, 0, TMAX); s->nsupply[p] = c; for (int j = 0; j < c; j++) TAKE_IN(s->supply[p][j], 0, (NK << VBITS) - 1); }
    for (int p = 0; p < n; p++) { TAKE_IN(c, 0, HMAX); s->naside[p] = c; for (int j = 0; j < c; j++) TAKE_IN(s->aside[p][j], 0, (NK << VBITS) - 1); }
    for (int d = 0; d < ND; d++) { TAKE_IN(c, 0, DMAX); s->dlen[d] = c; for (int j = 0; j < c; j++) TAKE_IN(s->deck[d][j], 0, NCARD - 1); }
    for (int p = 0; p < n; p++) { TAKE_IN(c, 0, HELDMAX); s->nheld[p] = c; for (int j = 0; j < c; j++) TAKE_IN(s->held[p][j], 0, NCARD - 1); }
    /* what a playout can add to: a hand only the set-aside tiles an ability takes into it (the draw after a
       turn replaces the tile played), held cards only the decks' cards; so these sums never grow, and a
       position within them never needs more room than its arrays (hand_add, the draw functions) */
    int deck_cards = 0;
    for (int d = 0; d < ND; d++) deck_cards += s->dlen[d];
    for (int p = 0; p < n; p++) if (s->nhand[p] + s->naside[p] > HMAX || s->nheld[p] + deck_cards > HELDMAX) return -2;
    for (int p = 0; p < n; p++) TAKE_IN(s->passed[p], 0, 1 << 30);
    /* face-up cards and doubling markers only of the cards that may carry them (NPC, NDC): their arrays */
    TAKE_IN(c, 0, NPC ? PUBMAX : 0); s->npub = c; for (int j = 0; j < c; j++) TAKE_IN(s->pub[j], 0, NPC - 1);
    TAKE_IN(c, 0, NPC);
    for (int j = 0; j < c; j++) {
        int card, m;
        TAKE_IN(card, 0, NPC - 1); TAKE_IN(m, 0, n);
        s->pub_cnt[card] = m;
        for (int r = 0; r < m; r++) { TAKE_IN(x, 0, n - 1); if (s->pub_done[card][x]) return -2; s->pub_done[card][x] = 1; }
    }
    for (int p = 0; p < n; p++) {
        TAKE_IN(c, 0, NDC); s->ndbl[p] = c;
        for (int j = 0; j < c; j++) {
            int card; TAKE_IN(card, 0, NDC - 1);
            if (s->dbl_on[p][card]) return -2;  /* one marker a card: ndbl counts cards */
            s->dbl_on[p][card] = 1; TAKE_IN(s->dbl_f[p][card], DBL_LO, DBL_HI);
        }
    }
    if (i != nflat) return -2;
    if (rebuild(s)) return -2;
    pub_init(s);
    return 0;
}

static void outputs(S *s, int64_t *totals, int64_t *breakdown, int32_t *winners, int32_t *lm_owner) {
    i64 t[NP], bd[NP * NCX];
    end_scoring(s, t, breakdown ? bd : 0);
    if (totals) memcpy(totals, t, sizeof(i64) * s->n);
    if (breakdown) memcpy(breakdown, bd, sizeof(i64) * s->n * NC);
    if (winners) *winners = winners_of(s, t);
    if (lm_owner) for (int lm = 0; lm < NL; lm++) lm_owner[lm] = s->lm_owner[lm];
}
/* EXTRA ints: moves, passes[NP], fallbacks[NP], changes[NMAJX][NP], claims[NMAJX][NP], then per seat the
   held cards (count, then HELDMAX pairs card, fulfilled), then the face-up cards (count, then PUBMAX
   entries: card, fulfillers, their seats[NP] in order, each seat's doubling factor[NP]) */
static void extras(const S *s, i32 *x) {
    memset(x, 0, sizeof(i32) * EXTRA);
    *x++ = s->move_index;
    memcpy(x, s->passed, sizeof s->passed); x += NP;
    /* fallback placements: a seat's tiles on a hex kind outside its kind's placement rule. A game of
       rb_games starts from a new deal and no tile ever moves, so every seat's tile on the board is one it
       placed in this game: counted here once rather than on every move */
    for (int h = 0; h < NH; h++) {
        int q = OWNER(s, h);
        if (q >= 0 && HEX_FK[h] >= 0 && !((PRIMFK[TKIND(s, h)] >> HEX_FK[h]) & 1)) x[q]++;
    }
    x += NP;
    for (int i = 0; i < NMAJX * NP; i++) x[i] = s->changes[i / NP][i % NP];
    x += NMAJX * NP;
    for (int i = 0; i < NMAJX * NP; i++) x[i] = s->claims[i / NP][i % NP];
    x += NMAJX * NP;
    for (int p = 0; p < NP; p++) {
        int m = p < s->n ? s->nheld[p] : 0;
        x[0] = m;
        for (int i = 0; i < m; i++) { x[1 + 2 * i] = s->held[p][i]; x[2 + 2 * i] = card_cond(s, s->held[p][i], p) != 0; }
        x += 1 + 2 * HELDMAX;
    }
    *x++ = s->npub;
    for (int i = 0; i < PUBMAX; i++, x += 2 + 2 * NP) {
        if (i >= s->npub) continue;
        int c = s->pub[i];
        x[0] = c; x[1] = s->pub_cnt[c];
        for (int j = 0; j < s->pub_cnt[c]; j++) x[2 + j] = s->pub_order[c][j];
        for (int q = 0; q < NP; q++) x[2 + NP + q] = q < s->n ? DBL_F(s, q, c) : 1;
    }
}

/* ----- exported ----- */
EXPORT int rb_info(int32_t *out, int cap) {
    const i32 info[] = {FORMAT, NH, NP, NC, NL, NK, ND, TMAX, MAXMOVES, MAXANS, SETUPMAX, NCARD, VBITS, EXTRA, NMAJ};
    int m = (int)(sizeof info / sizeof info[0]);
    for (int i = 0; i < m && i < cap; i++) out[i] = info[i];
    return m;
}
EXPORT int rb_games(uint64_t seed0, int count, int n, int64_t *totals, int64_t *breakdown, int32_t *winners,
                    int32_t *lm_owner, int32_t *extra, int64_t *moves) {
    if (n < 1 || n > NP || count < 0) return -1;
    S *s = malloc(sizeof *s);
    if (!s) return -3;
    i64 total_moves = 0;
    for (int g = 0; g < count; g++) {
        new_game(s, n, seed0 + (u64)g, 0);
        play_out(s);
        if (s->lost) { free(s); return -4; }
        total_moves += s->nmoves;
        outputs(s, totals ? totals + (i64)g * n : 0, breakdown ? breakdown + (i64)g * n * NC : 0,
                winners ? winners + g : 0, lm_owner ? lm_owner + (i64)g * NL : 0);
        if (extra) extras(s, extra + (i64)g * EXTRA);
    }
    if (moves) *moves = total_moves;
    free(s);
    return 0;
}
EXPORT int rb_record(uint64_t seed, int n, int32_t *setup, int32_t *moves, int32_t *answers, int32_t *counts,
                     int64_t *totals, int64_t *breakdown, int32_t *winners, int32_t *lm_owner) {
    if (n < 1 || n > NP) return -1;
    S *s = malloc(sizeof *s);
    if (!s) return -3;
    new_game(s, n, seed, setup);
    s->rec_moves = moves; s->rec_ans = answers;
    play_out(s);
    if (s->lost) { free(s); return -4; }
    counts[0] = s->nmoves; counts[1] = s->nans;
    outputs(s, totals, breakdown, winners, lm_owner);
    free(s);
    return 0;
}
EXPORT int rb_playouts(const int32_t *flat, int nflat, const int64_t *scores, uint64_t seed, int count, int redeal,
                       int64_t *totals, int32_t *moves, int32_t *answers, int32_t *counts) {
    S *base = malloc(sizeof *base), *s = malloc(sizeof *s);
    if (!base || !s) { free(base); free(s); return -3; }
    int rc = load(base, flat, nflat, scores);
    for (int g = 0; rc == 0 && g < count; g++) {
        memcpy(s, base, sizeof *s);
        rb_seed(s, seed + (u64)g);
        if (redeal) {  /* the hidden future: every supply and the rest of every deck reshuffled */
            for (int p = 0; p < s->n; p++) rb_shuffle(s, s->supply[p], s->nsupply[p]);
            for (int d = 0; d < ND; d++) rb_shuffle_cards(s, &s->deck[d][s->dtop[d]], s->dlen[d] - s->dtop[d]);
        }
        if (g == 0 && moves) { s->rec_moves = moves; s->rec_ans = answers; }
        play_out(s);
        if (s->lost) { rc = -4; break; }
        if (g == 0 && counts) { counts[0] = s->nmoves; counts[1] = s->nans; }
        outputs(s, totals + (i64)g * s->n, 0, 0, 0);
    }
    free(base); free(s);
    return rc;
}

/* ----- the search agent (play/nsearch.py): moves compared over the same determinisations ----- */
/* the hex of tile kind k, value v, for seat p with the most immediate points (track gained) of m drawn as
   pick_hex draws (the first among equals), and its slot; each is tried on a copy, so s is changed only by the
   draws */
static int pick_points(S *s, S *tmp, int p, int k, int v, int m, int *slot) {
    int best = pick_hex(s, k, slot);
    if (best < 0 || m < 2) return best;
    i64 most = 0;
    int first = *slot;
    for (int j = 0; j < m; j++) {
        int at = first, h = j ? pick_hex(s, k, &at) : best;
        memcpy(tmp, s, sizeof *s);
        tmp->rec_moves = 0; tmp->rec_ans = 0;
        place(tmp, p, k, v, h, at);
        i64 got = tmp->track[p] - s->track[p];
        if (j == 0 || got > most) { most = got; best = h; *slot = at; }
    }
    return best;
}
/* ndet positions (flat[offs[j]] .. flat[offs[j + 1]], all with the same scores: the determinisations the
   caller dealt from what `viewer`, the seat to move, may know); per position j and candidate c (tile index
   cands[2c] of the viewer's hand, hex cands[2c + 1], -1 a pass) the move played, then a playout seeded
   seed + j (the same for every candidate: moves are compared on the same futures), random (sample < 2)
   or by pick_points of `sample` hexes; margin[j * ncand + c] = the viewer's final score less the best other
   seat's, winners[j * ncand + c] = the winning seats' mask, ties settled by the rules' tie-break chain */
EXPORT int rb_search(const int32_t *flat, const int32_t *offs, int ndet, const int64_t *scores, int viewer,
                     const int32_t *cands, int ncand, uint64_t seed, int sample, int64_t *margin, int32_t *winners) {
    if (ndet < 0 || ncand < 0) return -1;
    S *base = malloc(sizeof *base), *s = malloc(sizeof *s), *tmp = malloc(sizeof *tmp);
    if (!base || !s || !tmp) { free(base); free(s); free(tmp); return -3; }
    int rc = 0;
    for (int j = 0; rc == 0 && j < ndet; j++) {
        rc = load(base, flat + offs[j], offs[j + 1] - offs[j], scores);
        if (rc == 0 && (viewer != base->turn || viewer >= base->n)) rc = -1;
        for (int c = 0; rc == 0 && c < ncand; c++) {
            int ti = cands[2 * c], h = cands[2 * c + 1];
            if (ti < 0 || ti >= base->nhand[viewer] || h < -1 || h >= NH) { rc = -1; break; }
            memcpy(s, base, sizeof *s);
            rb_seed(s, seed + (u64)j);
            move_at(s, ti, h);
            if (sample >= 2) play_points(s, tmp, sample); else play_out(s);
            if (s->lost) { rc = -4; break; }
            i64 t[NP], best = 0;
            end_scoring(s, t, 0);
            int first = 1;
            for (int q = 0; q < s->n; q++) if (q != viewer && (first || t[q] > best)) { best = t[q]; first = 0; }
            margin[(i64)j * ncand + c] = t[viewer] - (first ? 0 : best);
            winners[(i64)j * ncand + c] = winners_of(s, t);
        }
    }
    free(base); free(s); free(tmp);
    return rc;
}
"""

def play_out(kinds: int) -> str:
    """play_out(s): uniformly random moves to the end of the game, as fast.run_random; play_points(s, tmp, m):
    the same with each hex the best by immediate points of m drawn as pick_hex draws (the search's playout
    policy); move_at(s, ti, h): one given move, tile ti of the hand on hex h (-1: a pass). The end of each
    turn is rules/turn.py's (c_leaving, c_end_of_turn), the same text in all three. play_out's loop is written
    twice by the compiler (play_loop inlined with `rec` a constant), so a game that writes no record tests
    for none on every move; and its move once per tile kind (of `kinds`), the kind a constant in each, so
    what the kind decides (the hexes it may take, the groups it forms, the face-up cards it may bring closer,
    the reactions naming it) is decided once, where the tile is known, not again in each of them."""
    e = Emitter()
    e.line("static void place(S *s, int p, int k, int v, int h, int slot);")
    e.line("static inline __attribute__((always_inline)) void place_tile(S *s, int p, int k, int v, int h, int slot);")
    e.line("static inline __attribute__((always_inline)) int pick_hex(S *s, int k, int *slot);")
    e.line("static int pick_points(S *s, S *tmp, int p, int k, int v, int m, int *slot);")
    e.line()
    e.line("/* uniformly random moves to the end of the game, as fast.run_random (rec: a record is written). The")
    e.line("   seat to play and the moves made are kept in locals and stored when the game ends: no move reads them")
    e.line("   (an ability's answer reads nmoves, only while a record is written) */")
    e.declare("s")
    with e.scope(), e.block("static inline __attribute__((always_inline)) void play_loop(S *s, const int rec) {",
                            "}"):
        e.declare("rec")
        e.line("int p = s->turn, moved = 0;")
        e.declare("p")
        with e.block("for (;;) {", "}"):
            e.line("int nh = s->nhand[p];")
            e.line("if (!nh) break;")
            e.line("int ti = nh > 1 ? rb_below(s, nh) : 0;")
            e.line("int code = s->hand[p][ti];")
            e.declare("nh", "ti", "code")
            e.extend(turn.c_leaving(e.locals))
            e.line("switch (code >> VBITS) {")  # the cases at the switch's own indentation
            for kind in range(kinds):
                # a tile code's kind is below NK (new_game deals them, load checks them): the last is the default
                with e.block(f"case {kind}: {{" if kind < kinds - 1 else "default: {", "}"), e.scope():
                    e.line(f"const int k = {kind};")
                    e.line("int slot = -1, h = pick_hex(s, k, &slot);")
                    e.declare("k", "slot", "h")
                    _move(e, "rec", "place_tile", "if (rec) s->nmoves++;")
                    e.line("break;")
            e.line("}")
            e.extend(turn.c_end_of_turn(e.locals, stop="break;", count="moved++;", to="p = q;"))
        e.line("s->turn = p;")
        e.line("s->move_index += moved;")
        e.line("if (!rec) s->nmoves += moved;")
    e.line("static void play_out(S *s) { if (s->rec_moves) play_loop(s, 1); else play_loop(s, 0); }")
    e.line()
    e.line("/* the search's playouts: each move the best by immediate points of m hexes drawn as pick_hex draws */")
    with e.scope(), e.block("static void play_points(S *s, S *tmp, int m) {", "}"), e.block("for (;;) {", "}"):
        e.declare("tmp", "m")
        _turn(e, "pick_points(s, tmp, p, k, code & VMASK, m, &slot)", "s->rec_moves")
    e.line()
    e.line("/* one given move of the seat to move: tile ti of its hand on hex h (-1: a pass, when no hex can take it) */")
    with e.scope(), e.block("static void move_at(S *s, int ti, int h) {", "}"):
        e.declare("ti", "h")
        e.line("int p = s->turn, nh = s->nhand[p];")
        e.line("int code = s->hand[p][ti];")
        e.declare("p", "nh", "code")
        e.extend(turn.c_leaving(e.locals))
        e.line("int k = code >> VBITS, slot = h >= 0 ? free_slot(s, h) : -1;")
        _move(e, "s->rec_moves")
        e.extend(turn.c_end_of_turn(e.locals))
    return "\n".join(e.lines)


def _turn(e: Emitter, pick: str, rec: str, place: str = "place") -> None:
    """One turn of a playout loop: a random hand tile, its hex by `pick`, the move (by `place`), the end of
    the turn."""
    e.line("int p = s->turn, nh = s->nhand[p];")
    e.line("if (!nh) return;")
    e.line("int ti = nh > 1 ? rb_below(s, nh) : 0;")
    e.line("int code = s->hand[p][ti];")
    e.declare("p", "nh", "ti", "code")
    e.extend(turn.c_leaving(e.locals))
    e.line(f"int slot = -1, k = code >> VBITS, h = {pick};")
    _move(e, rec, place)
    e.extend(turn.c_end_of_turn(e.locals))


def _move(e: Emitter, rec: str, place: str = "place", count: str = "s->nmoves++;") -> None:
    """The move itself: recorded when a record is being written (`rec`), counted (`count`), placed or passed
    (S-P5): the hex h at `slot` of the free lists (take_free). Fallback placements are counted from the board
    when they are read (extras), not here on every move."""
    with e.block(f"if ({rec} && s->nmoves < MAXMOVES) {{", "}"):
        e.line("i32 *m = s->rec_moves + 3 * s->nmoves;")
        e.line("m[0] = p; m[1] = code; m[2] = h;")
    e.line(count)
    e.line(f"if (h >= 0) {place}(s, p, k, code & VMASK, h, slot); else s->passed[p]++;")


# Included only when the face-up cards are read incrementally (cgen.py public_function): it needs the
# tables public_tables generates.
PUBLIC_READS = r"""
/* ----- what the face-up cards read changed (cgen.py public_tables): mark them to be read again ----- */
static inline void pub_mark(S *s, int p, int w, u64 cards) { if (cards) { s->pdirty[p][w] |= cards; s->pseats |= 1u << p; } }
/* a bounded card c of seat p whose E rose by at most `up`, or (a largest group) to at least `most`: whether it
   is still short of N (not to be read); an unknown distance (0) is never short */
static inline int pub_short(S *s, int p, int c, i64 up, i64 most) {
    /* without branches (which card a tile brings closer is as random as the tile): what is kept is never below
       0, so an unknown distance stays 0 */
    slack_t *left = &s->pslack[p][c];
    i64 was = *left, l = was - up;
    if (most > 0) { i64 m = TH_LIMIT[s->n * NCARDX + c] - most; l = m < l ? m : l; }
    int still = (was > 0) & (l > 0);
    *left = still ? (slack_t)l : 0;  /* l <= was: E only rises */
    return still;
}
/* a new game (new_game): no seat has a tile, a landmark or an area yet (neutral tiles are nobody's), so a bounded
   card's E is the numbers added in it (TH_BASE) and it lacks N less those: it is read at the first check only
   when met there, as accel/public.py's _first has it (a loaded position is read in full: pub_init alone) */
#define PUB_FRESH
static void pub_fresh(S *s) {
    /* the same for every deal of n players (cgen.py public_tables): what each bounded card lacks then (PUB_LACK0,
       0 where it is met with nothing or not bounded, as the template leaves it), and the cards not to read */
    const slack_t *lack = &PUB_LACK0[s->n * NCARDX];
    const u64 *shy = &PUB_SHORT0[s->n * NCW];
    for (int q = 0; q < s->n; q++) {
        memcpy(s->pslack[q], lack, sizeof s->pslack[q]);
        for (int w = 0; w < NCW; w++) { s->pdirty[q][w] &= ~(shy[w] & s->plive[q][w]); s->pknown[q][w] = RD_EXACT[w]; }
    }
}
/* `count(touched(me, K))` after p's tile on h: the landmarks of kind K next to h that p had not touched yet
   (touched is marked after the placement's reactions); counted bit by bit, NFIRST times (a hex has at most
   that many landmarks next to it), so the count's loop ends where the board says, not where the bits do */
static inline i64 pub_untouched(const S *s, int p, int h, int kind) {
    i64 n = 0;
    for (int x = 0; x < NLW; x++) {
        u64 b = LMADJM[h][x] & LMKINDM[kind][x] & ~s->touched[p][x];
        for (int i = 0; i < NFIRST; i++) { n += b != 0; b &= b - 1; }
    }
    return n;
}
/* `count(areas(tiles(me, K)))` after p's tile on h (K the kinds km): one more only where h lies in an area none
   of whose other hexes holds p's tile of those kinds (cgen.py area_tables: those hexes in AXW words) */
static inline i64 pub_new_area(const S *s, int p, int h, u32 km) {
    u64 any = 0;
    for (int k = 0; k < NK; k++) if ((km >> k) & 1)
        for (int i = 0; i < AXW; i++) any |= s->tbits[p][TBS(k)][PUB_AW0[h] + i] & PUB_AREAX[h][i];
    return (AREA_OF[h] >= 0) & !any;
}
/* a bounded card c of seat p after p's tile of kind k on hex h (its groups merged), E risen there by the
   growth TH_GROW gives it, of whatever form: whether it is still short of N (pub_tile, cgen.py, writes out the
   growth where it has one form over the hexes a tile of the kind may stand on, and calls this elsewhere) */
static inline int pub_grown(S *s, int p, int k, int h, int c) {
    i32 up = TH_GROW[(k * NH + h) * NCARDX + c];
    i64 by = up, most = 0;
    if (up == GROW_VALUE) by = s->tval[h];
    else if (up == GROW_REACH) by = rb_gsize(s, h) >= TH_REACH[c];
    else if (up == GROW_GROUP) { by = 0; most = rb_gsize(s, h); }
    else if (up == GROW_TOUCH) by = pub_untouched(s, p, h, TH_TOUCHK[c]);
    else if (up == GROW_AREA) by = pub_new_area(s, p, h, TH_AREAK[c]);
    return pub_short(s, p, c, by, most);
}
/* the cards of word w false without their reader holding a landmark seat q does not hold (Reads.holds): not
   worth reading for q */
static inline u64 pub_unheld(const S *s, int q, int w) {
    u64 out = 0;
    for (int i = 0; i < NHOLD; i++) {
        int c = HOLD_CARD[i];
        if (c >> 6 == w && s->lm_owner[CARD_HOLDS[c]] != q) out |= 1ULL << (c & 63);
    }
    return out;
}
/* landmark lm passed from seat `was` (or nobody, -1) to seat `now` */
static void pub_landmark(S *s, int lm, int was, int now) {
    if (now < 0) return;
    for (int w = 0; w < NCW; w++) {
        /* losing never raises E, nor turns true a card only taking can (Reads.taken_only) */
        if (was >= 0) pub_mark(s, was, w, RD_LM_MINE[w] & ~RD_BOUNDED[w] & ~RD_TAKEN_ONLY[w] & s->plive[was][w]);
        u64 b = RD_LM_MINE[w] & s->plive[now][w], bounded = b & RD_BOUNDED[w];
        if (NHOLD && b) b &= ~pub_unheld(s, now, w);
        for (; bounded; bounded &= bounded - 1) {
            int c = w * 64 + __builtin_ctzll(bounded);
            if (pub_short(s, now, c, TH_LM[lm * NCARDX + c], 0)) b &= ~(bounded & -bounded);
        }
        pub_mark(s, now, w, b);
    }
    if (RD_HAS_LM_ANY) for (int q = 0; q < s->n; q++) for (int w = 0; w < NCW; w++) pub_mark(s, q, w, RD_LM_ANY[w] & s->plive[q][w]);
}
/* an area won by seat p */
static void pub_won(S *s, int p) {
    for (int w = 0; w < NCW; w++) {
        u64 b = RD_WON_MINE[w] & s->plive[p][w], bounded = b & RD_BOUNDED[w];
        for (; bounded; bounded &= bounded - 1) {
            int c = w * 64 + __builtin_ctzll(bounded);
            if (pub_short(s, p, c, TH_WON[c], 0)) b &= ~(bounded & -bounded);
        }
        pub_mark(s, p, w, b);
    }
    if (RD_HAS_WON_ANY) for (int q = 0; q < s->n; q++) for (int w = 0; w < NCW; w++) pub_mark(s, q, w, RD_WON_ANY[w] & s->plive[q][w]);
}
"""
