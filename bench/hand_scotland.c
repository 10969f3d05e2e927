/* A hand-written engine for random games of Rebirth: Scotland (shared/RULES.md, S-...), the yardstick the
 * generated native engine is measured against (`python -m rebirth_dsl.bench --against-limit`).
 *
 * It is a benchmark, not the product: it holds Scotland's numbers (rules/scotland.rules) by hand, where the
 * project keeps them as data. It plays the SAME random games as the native engine for the same seed: the
 * same generator (xoshiro256** seeded through splitmix64, a draw below n from the high 32 bits), the same
 * deal (each colour's tiles shuffled Fisher-Yates from the top, seat by seat, then the mission deck), the
 * same free lists (per hex kind, in board order, a taken hex replaced by the list's last) and the same
 * choice per move (a uniform hex among the placement rule's free lists, in the rule's order). The board's
 * geometry (hex kinds, coordinates, areas, tags, landmark names) is read once from a flat list of ints made
 * from boards/scotland.json by bench/hand_c.py.
 *
 * State: about 1.5 KB per game, bytes wherever a value fits. Everything the mission cards read is kept as
 * counters while placing, so the end of the game is a pass over the areas, castles and held cards.
 */
#include <stdint.h>
#include <string.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;
typedef int64_t i64;
typedef int32_t i32;
#define EXPORT __attribute__((visibility("default")))

#define MAXH 256   /* hexes (indices fit a byte) */
#define MAXL 32    /* landmarks (a bit each in a u32) */
#define MAXA 32    /* settlement areas (a bit each in a u32) */
#define NP 4
#define NOBODY 0xFF
#define NEUTRAL 0xFE

/* hex kinds as hand_c.py codes them; the first four have free lists, in this order (board order within) */
enum { FOOD, PLAIN, ENERGY, SETTLE, SEA, CASTLE, CATHEDRAL, NKINDS };
/* tile kinds (S-C1) */
enum { T_FOOD, T_ENERGY, T_SETTLE };

/* ----- the board (read once) ----- */
static int NH, NL, NA;
static u8 HKIND[MAXH], AREA[MAXH], NNB[MAXH], NB[MAXH][6];
static u8 HARBOUR[MAXH], NEAR_CATH[MAXH], NEAR_CASTLE[MAXH], NEAR_SEA[MAXH];
static u8 NCAS[MAXH], CAS[MAXH][6];    /* the castles next to a hex (S-K1) */
static u32 CATHMASK[MAXH];             /* the cathedrals next to a hex, as landmark bits (S-M1) */
static u8 ASIZE[MAXA];
static int FOFF[4];                    /* where each free list starts in G.fl */
static int LM_HEX[MAXL], LM_IS_CASTLE[MAXL];
static int CLOVER = -1, STIRLING = -1; /* the castle with the white clover, and Stirling (S-E4) */
static int NNEUT;
static u8 NEUT_HEX[MAXH];              /* hexes tagged neutral, in board order */
static u8 COLOUR[NP + 1][36];          /* one colour's tiles per player count, kind << 3 | influence */
static int NT[NP + 1];

/* ----- Scotland's numbers (rules/scotland.rules) ----- */
/* S-C2: one colour's tiles as (kind, influence), the mix in the rules file's order; S-U3: 4 players return
 * 3 food, 3 energy and one settlement each of 2, 3, 4 (the first of each in that order) */
static const u8 MIX[36][2] = {
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {2,1},{2,1},{2,1},{2,2},{2,2},{2,2},{2,2},{2,3},{2,3},{2,3},{2,4},{2,4}};
#define SET_ASIDE 2   /* S-U4 */
#define NEUTRALS 32   /* S-U2 */
/* the mission deck (S-M3), card ids in the rules file's order; Cathedral gift four times */
enum { GIFT, LORD, CLAN, POWER, HARBOUR_MASTER, PILGRIM, TOWN, BREAD, CHIEF, GUARD, TWIN, COAST, HEART, MAYOR,
       BORDER, CROWN, BRIDGE, NCARDS };
static const u8 DECK0[] = {GIFT, GIFT, GIFT, GIFT, LORD, CLAN, POWER, HARBOUR_MASTER, PILGRIM, TOWN, BREAD,
                           CHIEF, GUARD, TWIN, COAST, HEART, MAYOR, BORDER, CROWN, BRIDGE};
#define DECKN ((int)sizeof DECK0)
static const u8 CARD_POINTS[NCARDS] = {3, 5, 5, 5, 4, 4, 4, 4, 4, 5, 4, 5, 5, 5, 5, 6, 4};

/* ----- one game ----- */
typedef struct {
    u64 rng[4];
    u8 owner[MAXH], parent[MAXH], gsize[MAXH], fpos[MAXH];
    u8 fl[MAXH];     /* the free hexes of each hex kind that takes tiles, a list per kind from FOFF[kind] */
    u8 fn[4];
    u8 afree[MAXA], adone[MAXA], ainf[MAXA][NP];
    u8 cowner[MAXL], ctiles[MAXL][NP], cfarms[MAXL][NP];
    u32 touched[NP];                /* the cathedrals each seat has touched */
    u32 areas_of[NP];               /* the areas holding one of the seat's settlements */
    u8 near_cath[NP], near_castle[NP], near_sea[NP], harbours[NP], won[NP];
    u8 deck[DECKN], dtop, held[NP][8], nheld[NP];
    u8 farms[NP][24], nfarms[NP];   /* the seat's farm hexes (the roots among them are its groups) */
    u8 tiles[NP][36];               /* each colour's shuffled tiles: kind << 3 | influence */
    i32 score[NP];
    int n;
} G;

static G TEMPLATE[NP + 1];

static inline u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }
static inline u64 next(G *g) {
    u64 *q = g->rng;
    u64 r = rotl(q[1] * 5, 7) * 9, t = q[1] << 17;
    q[2] ^= q[0]; q[3] ^= q[1]; q[1] ^= q[2]; q[0] ^= q[3]; q[2] ^= t; q[3] = rotl(q[3], 45);
    return r;
}
static inline int below(G *g, int n) { return (int)(((next(g) >> 32) * (u64)(u32)n) >> 32); }
static void seed_rng(G *g, u64 seed) {
    for (int i = 0; i < 4; i++) {
        u64 z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        g->rng[i] = z ^ (z >> 31);
    }
}

static inline void take_free(G *g, int h) {
    int fk = HKIND[h];
    if (fk > SETTLE) return;
    u8 *fl = g->fl + FOFF[fk];
    int pos = g->fpos[h], last = fl[--g->fn[fk]];
    fl[pos] = (u8)last;
    g->fpos[last] = (u8)pos;
}

/* ----- the board from hand_c.py: NH, then per hex kind, q, r, area (-1 none), harbour, neutral, clover,
 * stirling; landmarks are the castle and cathedral hexes, numbered in board order ----- */
static int load_board(const i32 *flat, int nflat) {
    if (nflat < 1 || flat[0] < 1 || flat[0] > MAXH || nflat != 1 + 8 * flat[0]) return -1;
    NH = flat[0]; NL = 0; NA = 0; NNEUT = 0; CLOVER = STIRLING = -1;
    static i32 Q[MAXH], R[MAXH];
    int lm_of[MAXH];
    for (int h = 0; h < NH; h++) {
        const i32 *x = flat + 1 + 8 * h;
        if (x[0] < 0 || x[0] >= NKINDS || x[3] >= MAXA || (x[0] == SETTLE) != (x[3] >= 0)) return -1;
        HKIND[h] = (u8)x[0]; Q[h] = x[1]; R[h] = x[2];
        AREA[h] = x[3] < 0 ? NOBODY : (u8)x[3];
        if (x[3] >= 0 && x[3] + 1 > NA) NA = x[3] + 1;
        HARBOUR[h] = (u8)x[4];
        if (x[5]) NEUT_HEX[NNEUT++] = (u8)h;
        lm_of[h] = -1;
        if (x[0] == CASTLE || x[0] == CATHEDRAL) {
            if (NL == MAXL) return -1;
            lm_of[h] = NL; LM_HEX[NL] = h; LM_IS_CASTLE[NL] = x[0] == CASTLE;
            if (x[6]) CLOVER = NL;
            if (x[7]) STIRLING = NL;
            NL++;
        }
    }
    memset(ASIZE, 0, sizeof ASIZE);
    for (int h = 0; h < NH; h++) if (AREA[h] != NOBODY) ASIZE[AREA[h]]++;
    /* the six axial neighbours present on the board */
    static const int DQ[6] = {1, -1, 0, 0, 1, -1}, DR[6] = {0, 0, 1, -1, -1, 1};
    for (int h = 0; h < NH; h++) {
        NNB[h] = 0; NCAS[h] = 0; CATHMASK[h] = 0; NEAR_CATH[h] = NEAR_CASTLE[h] = NEAR_SEA[h] = 0;
        for (int d = 0; d < 6; d++)
            for (int m = 0; m < NH; m++)
                if (Q[m] == Q[h] + DQ[d] && R[m] == R[h] + DR[d]) {
                    NB[h][NNB[h]++] = (u8)m;
                    if (HKIND[m] == SEA) NEAR_SEA[h] = 1;
                    if (HKIND[m] == CASTLE) { NEAR_CASTLE[h] = 1; CAS[h][NCAS[h]++] = (u8)lm_of[m]; }
                    if (HKIND[m] == CATHEDRAL) { NEAR_CATH[h] = 1; CATHMASK[h] |= 1u << lm_of[m]; }
                }
    }
    /* a new game's position per player count: free lists, then the neutral tiles (S-U2, S-A4) */
    int count[4] = {0, 0, 0, 0};
    for (int h = 0; h < NH; h++) if (HKIND[h] <= SETTLE) count[HKIND[h]]++;
    for (int fk = 1; fk < 4; fk++) FOFF[fk] = FOFF[fk - 1] + count[fk - 1];
    for (int n = 2; n <= NP; n++) {
        G *g = &TEMPLATE[n];
        memset(g, 0, sizeof *g);
        g->n = n;
        memset(g->owner, NOBODY, sizeof g->owner);
        memset(g->cowner, NOBODY, sizeof g->cowner);
        for (int h = 0; h < NH; h++) {
            g->parent[h] = (u8)h; g->gsize[h] = 1;
            int fk = HKIND[h];
            if (fk <= SETTLE) { g->fpos[h] = g->fn[fk]; g->fl[FOFF[fk] + g->fn[fk]++] = (u8)h; }
        }
        for (int a = 0; a < NA; a++) g->afree[a] = ASIZE[a];
        if (n == 2)
            for (int i = 0; i < NNEUT && i < NEUTRALS; i++) {
                int h = NEUT_HEX[i];
                g->owner[h] = NEUTRAL;
                take_free(g, h);
                if (AREA[h] != NOBODY) g->afree[AREA[h]]--;
            }
        /* S-C2, S-U3 */
        int nt = 0;
        u8 ret[3] = {0, 0, 0};  /* returned so far: food, energy, settlements */
        u8 ret_inf = 0;         /* settlement influences returned (bits) */
        for (int i = 0; i < 36; i++) {
            int k = MIX[i][0], v = MIX[i][1];
            if (n == 4) {
                if (k == T_FOOD && ret[0] < 3) { ret[0]++; continue; }
                if (k == T_ENERGY && ret[1] < 3) { ret[1]++; continue; }
                if (k == T_SETTLE && v >= 2 && !(ret_inf >> v & 1)) { ret_inf |= (u8)(1 << v); continue; }
            }
            COLOUR[n][nt++] = (u8)(k << 3 | v);
        }
        NT[n] = nt;
        memcpy(g->deck, DECK0, DECKN);
    }
    return 0;
}

EXPORT int hand_board(const i32 *flat, int nflat) {
    int rc = load_board(flat, nflat);
    if (rc) NH = 0;  /* no games on a board half read */
    return rc;
}

/* ----- placing one tile ----- */
static inline int find(G *g, int h) {
    while (g->parent[h] != h) { g->parent[h] = g->parent[g->parent[h]]; h = g->parent[h]; }
    return h;
}

/* S-A1..S-A3: the area's ranking (influence, the completer last, then clockwise from the completer) and pay */
static void score_area(G *g, int a, int c) {
    int n = g->n, order[NP], key[NP], m = 0;
    g->adone[a] = 1;
    for (int q = 0; q < n; q++) {
        int inf = g->ainf[a][q];
        if (!inf) continue;
        int d = q - c; if (d <= 0) d += n;  /* the completer last (S-A2) */
        int kq = inf * 8 - d, j = m++;
        while (j > 0 && key[j - 1] < kq) { key[j] = key[j - 1]; order[j] = order[j - 1]; j--; }
        key[j] = kq; order[j] = q;
    }
    if (!m) return;
    int first = order[0];
    g->won[first]++;
    switch (ASIZE[a]) {
    case 1: g->score[first] += g->ainf[a][first]; break;
    case 2: if (m == 1) g->score[first] += 8; else { g->score[first] += 5; g->score[order[1]] += 3; } break;
    case 3: if (m == 1) g->score[first] += 13; else { g->score[first] += 8; g->score[order[1]] += 5; } break;
    }
}

static inline void place(G *g, int p, int k, int v, int h, int r) {
    int fk = HKIND[h];
    u8 *fl = g->fl + FOFF[fk];
    int last = fl[--g->fn[fk]];  /* S-P1: the hex is no longer free (h was at position r) */
    fl[r] = (u8)last;
    g->fpos[last] = (u8)r;
    g->owner[h] = (u8)(p << 2 | k);  /* seat and tile kind in one byte */
    int pts = HARBOUR[h];            /* S-H1 */
    g->harbours[p] += (u8)pts;
    g->near_cath[p] += NEAR_CATH[h];
    g->near_castle[p] += NEAR_CASTLE[h];
    g->near_sea[p] += NEAR_SEA[h];
    if (k != T_SETTLE) {             /* S-F1: the group it creates or enlarges */
        int root = h, me = p << 2 | k;
        for (int j = 0; j < NNB[h]; j++) {
            int m = NB[h][j];
            if (g->owner[m] != me) continue;
            int rm = find(g, m);
            if (rm == root) continue;
            if (g->gsize[rm] > g->gsize[root]) { int x = rm; rm = root; root = x; }
            g->parent[rm] = (u8)root;
            g->gsize[root] += g->gsize[rm];
        }
        pts += g->gsize[root];
        g->farms[p][g->nfarms[p]++] = (u8)h;
        g->score[p] += pts;
    } else {
        g->score[p] += pts;
        int a = AREA[h];
        g->areas_of[p] |= 1u << a;
        g->ainf[a][p] += (u8)v;
        if (--g->afree[a] == 0) score_area(g, a, p);  /* S-A1: its last hex */
    }
    for (int i = 0; i < NCAS[h]; i++) {  /* S-K1..S-K5 */
        int lm = CAS[h][i], o = g->cowner[lm];
        g->ctiles[lm][p]++;
        if (k != T_SETTLE) g->cfarms[lm][p]++;
        if (o == p) continue;
        if (o == NOBODY || g->ctiles[lm][p] > g->ctiles[lm][o]
            || (g->ctiles[lm][p] == g->ctiles[lm][o] && g->cfarms[lm][p] > g->cfarms[lm][o]))
            g->cowner[lm] = (u8)p;
    }
    u32 first = CATHMASK[h] & ~g->touched[p];  /* S-M1: a card per cathedral first touched */
    if (first) {
        g->touched[p] |= first;
        for (; first; first &= first - 1)
            if (g->dtop < DECKN) g->held[p][g->nheld[p]++] = g->deck[g->dtop++];
    }
}

/* S-P2..S-P5: a uniform free hex of the tile's placement rule, in the rule's order of hex kinds, else of
 * its fallback; -1: a pass. *r is the hex's position in its free list. */
static inline int pick(G *g, int k, int *r) {
    static const u8 A[3][2] = {{FOOD, PLAIN}, {ENERGY, PLAIN}, {SETTLE, SETTLE}};
    static const u8 FB[3] = {ENERGY, FOOD, 0};
    if (k == T_SETTLE) {
        int t = g->fn[SETTLE];
        if (!t) return -1;
        *r = below(g, t);
        return g->fl[FOFF[SETTLE] + *r];
    }
    int a = A[k][0], b = A[k][1], na = g->fn[a], t = na + g->fn[b];
    if (t) {
        int x = below(g, t);
        if (x < na) { *r = x; return g->fl[FOFF[a] + x]; }
        *r = x - na; return g->fl[FOFF[b] + x - na];
    }
    int f = FB[k];
    t = g->fn[f];
    if (!t) return -1;
    *r = below(g, t);
    return g->fl[FOFF[f] + *r];
}

/* ----- the end (S-E1..S-E4) ----- */
static int most(const int *x, int n, int me) {
    for (int q = 0; q < n; q++) if (x[q] > x[me]) return 0;
    return 1;
}

static int finish(G *g, i64 *totals) {
    int n = g->n;
    i32 t[NP];
    for (int q = 0; q < n; q++) t[q] = g->score[q];
    for (int a = 0; a < NA; a++)  /* S-E1 */
        if (!g->adone[a] && g->afree[a])
            for (int q = 0; q < n; q++) t[q] += g->ainf[a][q];
    int owned[NP] = {0}, touched[NP] = {0};
    for (int lm = 0; lm < NL; lm++) {
        if (!LM_IS_CASTLE[lm]) continue;
        if (g->cowner[lm] != NOBODY) { owned[g->cowner[lm]]++; t[g->cowner[lm]] += 5; }  /* S-E2 */
        for (int q = 0; q < n; q++) touched[q] += g->ctiles[lm][q] > 0;
    }
    /* S-E3: what the held cards read, for every seat (some compare the seats) */
    int food[NP] = {0}, energy[NP] = {0}, pairs[NP] = {0}, won[NP];
    for (int q = 0; q < n; q++) {
        won[q] = g->won[q];
        for (int i = 0; i < g->nfarms[q]; i++) {
            int h = g->farms[q][i];
            if (g->parent[h] != h) continue;
            int s = g->gsize[h];
            if ((g->owner[h] & 3) == T_FOOD) { if (s > food[q]) food[q] = s; pairs[q] += s >= 2; }
            else if (s > energy[q]) energy[q] = s;
        }
    }
    int big = (n - 2) * (n - 3);  /* 2 with 4 players, else 0 (rules/scotland.rules) */
    for (int q = 0; q < n; q++)
        for (int i = 0; i < g->nheld[q]; i++) {
            int c = g->held[q][i], ok = 0;
            switch (c) {
            case GIFT: ok = 1; break;
            case LORD: ok = owned[q] >= 1 && most(owned, n, q); break;
            case CLAN: ok = food[q] >= 8 - n; break;
            case POWER: ok = energy[q] >= 6; break;
            case HARBOUR_MASTER: ok = g->harbours[q] >= 8 - n; break;
            case PILGRIM: ok = g->near_cath[q] >= 15 - big; break;
            case TOWN: ok = __builtin_popcount(g->areas_of[q]) >= 10 - big; break;
            case BREAD: ok = food[q] >= 2 && most(food, n, q); break;
            case CHIEF: ok = won[q] >= 1 && most(won, n, q); break;
            case GUARD: ok = g->near_castle[q] >= 21 - 2 * big; break;
            case TWIN: ok = pairs[q] >= 3; break;
            case COAST: ok = g->near_sea[q] >= 22 - 2 * big; break;
            case HEART: ok = food[q] >= 6 || energy[q] >= 6; break;
            case MAYOR: ok = won[q] >= 13 - 2 * n; break;
            case BORDER: ok = touched[q] >= 14 - n; break;
            case CROWN: ok = CLOVER >= 0 && g->cowner[CLOVER] == q; break;
            case BRIDGE: ok = STIRLING >= 0 && g->cowner[STIRLING] == q; break;
            }
            if (ok) t[q] += CARD_POINTS[c];
        }
    /* S-E4 */
    int top = t[0], tied = 0;
    for (int q = 0; q < n; q++) { if (t[q] > top) top = t[q]; totals[q] = t[q]; }
    for (int q = 0; q < n; q++) if (t[q] == top) tied |= 1 << q;
    if (__builtin_popcount((u32)tied) == 1) return tied;
    if (CLOVER >= 0 && g->cowner[CLOVER] != NOBODY && (tied >> g->cowner[CLOVER] & 1)) return 1 << g->cowner[CLOVER];
    if (STIRLING >= 0 && g->cowner[STIRLING] != NOBODY) return 1 << g->cowner[STIRLING];
    return tied;
}

/* ----- a whole game: the deal (S-U4), then rounds clockwise until every supply is played (S-T1, S-T2) ----- */
static int play(G *g, int n, u64 seed, i32 *setup, i32 *moves, i64 *totals) {
    memcpy(g, &TEMPLATE[n], sizeof *g);
    seed_rng(g, seed);
    int nt = NT[n];
    for (int p = 0; p < n; p++) {
        u8 *a = g->tiles[p];
        memcpy(a, COLOUR[n], (size_t)nt);
        for (int i = nt - 1; i > 0; i--) { int j = below(g, i + 1); u8 x = a[i]; a[i] = a[j]; a[j] = x; }
        if (setup) for (int i = 0; i < nt; i++) *setup++ = a[i];
    }
    for (int i = DECKN - 1; i > 0; i--) { int j = below(g, i + 1); u8 x = g->deck[i]; g->deck[i] = g->deck[j]; g->deck[j] = x; }
    if (setup) for (int i = 0; i < DECKN; i++) *setup++ = g->deck[i];
    int nm = 0;
    for (int i = SET_ASIDE; i < nt; i++)  /* the hand, then the supply from the top: the set-aside never play */
        for (int p = 0; p < n; p++) {
            int tile = g->tiles[p][i], k = tile >> 3, v = tile & 7, r = 0;
            int h = pick(g, k, &r);
            if (h >= 0) place(g, p, k, v, h, r);  /* else S-P5: the tile is passed */
            if (moves) { moves[3 * nm] = p; moves[3 * nm + 1] = tile; moves[3 * nm + 2] = h; }
            nm++;
        }
    return finish(g, totals);
}

/* games seed0 .. seed0 + count - 1 of n players: totals[count * n], winners[count] as seat bits */
EXPORT int hand_games(u64 seed0, int count, int n, i64 *totals, i32 *winners) {
    if (n < 2 || n > NP || !NH) return -1;
    G g;
    for (int i = 0; i < count; i++) {
        i32 w = play(&g, n, seed0 + (u64)i, 0, 0, totals + (i64)i * n);
        if (winners) winners[i] = w;
    }
    return 0;
}

/* one game with its deal (each seat's shuffled tiles, kind << 3 | influence, the first SET_ASIDE set aside,
 * then the deck's card ids, top first) and its moves (seat, tile, hex or -1); returns the number of moves */
EXPORT int hand_record(u64 seed, int n, i32 *setup, i32 *moves, i64 *totals, i32 *winners) {
    if (n < 2 || n > NP || !NH) return -1;
    G g;
    *winners = play(&g, n, seed, setup, moves, totals);
    return n * (NT[n] - SET_ASIDE);
}

EXPORT int hand_sizes(i32 *out) {
    out[0] = (i32)sizeof(G); out[1] = NT[2]; out[2] = NT[4]; out[3] = DECKN; out[4] = SET_ASIDE;
    return 0;
}
