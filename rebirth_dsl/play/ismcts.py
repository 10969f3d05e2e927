"""Information-set Monte Carlo tree search (single observer), honest about hidden information.

Each iteration samples a *determinisation*: a full game state consistent with what the searching player
can see, built from a public copy of the position that holds nothing hidden (see `Observer`): the other
players' hands, supplies and set-aside tiles are re-dealt from their colour's tiles less those on the
board; the player's own supply (and, in Ireland, its own face-down set-aside tiles, I-U1) is re-dealt
from its own unseen tiles; the other players' private mission cards are drawn from the cards the player
has not seen, and the decks are shuffled from the rest. Sizes (tiles left, cards held) are public and kept.

The search: the root's moves (tile, hex) are ranked by their immediate points (play/points.py) and the best
`width` are compared by sequential halving, each round on a shared batch of determinisations with shared
random seeds (common random numbers: a difference between two moves is measured on the same deals and
nearly the same playouts, so far fewer playouts tell them apart than independent ones would). Below each
root move grows an information-set tree over the following moves of every player (UCB1 with availability
counts, children opened in order of the mover's immediate points, progressively widened) down to `depth`
moves; from there a uniformly random playout on the generated engine finishes the game. A game's reward
for each player is a smoothed margin over the best other player, 0.5 + 0.5 * tanh(margin / scale).

Measured (tools/agent_match.py, Scotland, two players, equal time per move): the shared deals and seeds are
what make it strong (98% against the same search with independent deals, `shared=0`); at a few hundred
playouts a move the tree below the root neither helps nor hurts (`depth=1` plays as well as `depth=2`).
Other players' tiles in hand are treated as hidden (RULES.md does not say they are shown); tiles passed
(S-P5) are not recorded by the state, so a player's spare unseen tiles are taken from kinds that have no
legal hex left, which is where a passed tile comes from.

`backend` (an agent option, `ismcts:backend=native`): the engine of the random playout below the tree.
`auto` (the default) runs it natively (rebirth_dsl.native) when that can run, else on the Python engine
exactly as before; `native` requires it; `python` never uses it. The determinisation is made first, by the
observer, and the tree's moves are played on it; the native playout then runs from that state with
`redeal=False`: re-dealing there would reshuffle the supplies and decks a second time, a re-deal the
observer did not choose (it is already a sample of what p cannot see), and would give the survivors of a
round different futures where common random numbers want the same ones. Its seed comes from the
iteration's shared playout seed, so the same seed gives the same moves for a given backend. Handing a
position to the C engine costs about as much as one Python playout, and each further playout from it
about a fiftieth of that, so a native leaf is scored by `leaf` playouts (default 8; 1 on Python, as
before), its reward their mean.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.accel.public import warm_fork
from rebirth_dsl.play.agents import smart_answer
from rebirth_dsl.play.points import points_for
from rebirth_dsl.play.search import uses_native
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.rules.turn import end_turn
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import colour_tiles

Tile = tuple[int, int]
Move = tuple[Tile, int]  # (tile, hex); hex -1 is a pass (S-P5)


# ----- what a player can see -------------------------------------------------------------------------
class Observer:
    """The position as player p sees it, and determinisations of it.

    `public` is a copy of the game with every hidden field emptied (others' hands, supplies, set-aside
    tiles and held cards, the player's own supply order, the decks), so a determinisation can only be made
    of what p may know: the hidden fields are refilled from the pools below and a random generator."""

    def __init__(self, game: Game, p: int) -> None:
        rs = game.rs
        n = game.n_players
        self.p = p
        self.n = n
        own_aside_seen = rs.set_aside_visible
        # sizes are public: how many tiles each holds, has left, has set aside; how many cards each holds
        self.hand_n = [len(game.hand[q]) for q in range(n)]
        self.supply_n = [len(game.supply[q]) for q in range(n)]
        self.aside_n = [len(game.set_aside[q]) for q in range(n)]
        self.held_n = [len(game.held[q]) for q in range(n)]
        self.deck_n = {name: len(cards) for name, cards in game.decks.items()}
        self.own_hand = list(game.hand[p])
        self.own_aside = list(game.set_aside[p]) if own_aside_seen else None
        self.own_held = list(game.held[p])
        # the tiles each player has not placed: their colour's mix less what is on the board (public)
        mix = colour_tiles(rs, n)
        dead = {k for k in range(len(rs.tile_kinds)) if not game.legal_hexes(k)[0]}
        self.pools: list[list[Tile]] = []
        self.spare: list[int] = []  # tiles beyond the slots: passed (S-P5) or boxed, never to be played
        for q in range(n):
            left = list(mix)
            for k, hexes in enumerate(game.tiles_of[q]):
                for h in hexes:
                    if (k, game.tval[h]) in left:  # a scenario may start with tiles beyond the mix
                        left.remove((k, game.tval[h]))
            if q == p:
                for t in self.own_hand + (self.own_aside or []):
                    if t in left:
                        left.remove(t)
            slots = self.supply_n[q] + (0 if q == p else self.hand_n[q])
            slots += 0 if (q == p and own_aside_seen) else self.aside_n[q]
            left.sort()  # canonical: the same public position gives the same pool whatever the hidden order
            self.spare.append(max(0, len(left) - slots))
            self.pools.append(left)
        # a passed tile had no legal hex then and has none now (hexes never free up): those go first
        self.dead = dead
        # the cards p has not seen: every deck's cards less the face-up ones and p's own
        seen = list(game.public) + self.own_held
        self.unseen: dict[str, list[str]] = {}
        for name in sorted(rs.decks):
            cards = sorted(c.name for c in rs.decks[name])
            for c in seen:
                if c in cards:
                    cards.remove(c)
            self.unseen[name] = cards
        pub = warm_fork(game)
        for q in range(n):
            if q != p:
                pub.hand[q] = []
                pub.held[q] = []
                pub.set_aside[q] = []
            pub.supply[q] = []
        if not own_aside_seen:
            pub.set_aside[p] = []
        pub.decks = {name: [] for name in game.decks}
        pub.pending_draw = {}
        self.public = pub

    def deal(self, rng: random.Random) -> Game:
        """One determinisation: the public position with every hidden part dealt at random."""
        g = self.public.clone()
        g.quiet = True
        rnd = rng.random
        p = self.p
        for q in range(self.n):
            pool = list(self.pools[q])
            _shuffle(pool, rnd)
            spare = self.spare[q]
            if spare:
                # drop tiles of kinds that can no longer be placed first (the passed ones), then any
                keep = [t for t in pool if t[0] not in self.dead]
                gone = len(pool) - len(keep)
                pool = keep + [t for t in pool if t[0] in self.dead][: max(0, gone - spare)] if gone >= spare \
                    else keep[: len(pool) - spare]
                _shuffle(pool, rnd)
            if q == p:
                if self.own_aside is None:
                    g.set_aside[q] = pool[: self.aside_n[q]]
                    pool = pool[self.aside_n[q]:]
                g.supply[q] = pool[: self.supply_n[q]]
            else:
                a, b = self.hand_n[q], self.aside_n[q]
                g.hand[q] = pool[:a]
                g.set_aside[q] = pool[a: a + b]
                g.supply[q] = pool[a + b: a + b + self.supply_n[q]]
        spare_cards: list[str] = []
        for name, cards in self.unseen.items():
            cards = list(cards)
            _shuffle(cards, rnd)
            k = self.deck_n.get(name, 0)
            g.decks[name] = cards[:k]
            spare_cards.extend(cards[k:])
        _shuffle(spare_cards, rnd)
        for q in range(self.n):
            if q != p:
                g.held[q] = spare_cards[: self.held_n[q]]
                spare_cards = spare_cards[self.held_n[q]:]
        return g


def _shuffle(xs: list[Any], rnd: Any) -> None:
    """Fisher-Yates from float draws (as setup.deal): the same distribution as random.shuffle, faster."""
    for i in range(len(xs) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        xs[i], xs[j] = xs[j], xs[i]


# ----- the tree --------------------------------------------------------------------------------------
@dataclass(eq=False)
class Node:
    """An information set reached by a sequence of moves; statistics of the move that led here."""

    player: int  # who made the move into this node
    visits: int = 0
    reward: float = 0.0
    avail: int = 0  # how often this move was legal when its parent was visited (ISMCTS availability)
    children: dict[Move, Node] = field(default_factory=dict)


def legal_moves(g: Game, q: int) -> list[Move]:
    """Every (tile, hex) the player to move may play, each distinct tile once; a pass when none is legal."""
    out: list[Move] = []
    for tile in dict.fromkeys(g.hand[q]):
        hexes, _ = g.legal_hexes(tile[0])
        if hexes:
            out.extend((tile, h) for h in hexes)
        else:
            out.append((tile, -1))
    return out


def apply_move(g: Game, fast: Any, q: int, move: Move) -> None:
    """Play a move on a quiet copy: place with every reaction, then the turn's draw and the next player."""
    tile, h = move
    if h >= 0:
        fast.place(g, q, tile[0], tile[1], h)
    else:
        g.passed[q] += 1
    end_turn(g, q, tile)


def rewards(g: Game, scale: float, final: list[int] | None = None) -> list[float]:
    """Each player's reward in [0, 1] from the final scores (the game's own, or `final` when the playout
    ran elsewhere): a smoothed margin over the best other player (scale 0: 1 for a win, 0.5 for a shared
    win, 0 for a loss)."""
    if final is None:
        final = g.final_scores(g.end_events())
    out = []
    for q, s in enumerate(final):
        other = max(x for i, x in enumerate(final) if i != q)
        m = s - other
        out.append((1.0 if m > 0 else 0.5 if m == 0 else 0.0) if scale <= 0 else 0.5 + 0.5 * math.tanh(m / scale))
    return out


@dataclass
class ISMCTSAgent:
    """Single-observer ISMCTS over determinisations, with a time or iteration budget per move."""

    budget: int = 0  # iterations per move; 0: use `time`
    time: float = 0.05  # seconds per move when budget is 0
    width: int = 12  # root moves compared (the best by immediate points)
    depth: int = 2  # moves in the tree below the root move before the random playout
    c: float = 0.7  # UCB1 exploration below the root
    widen: float = 1.5  # children open below the root: widen * visits ** 0.5
    scale: float = 15.0  # reward smoothing: 0.5 + 0.5 * tanh(margin / scale)
    seed: int = 0  # mixed into the per-move generator (the seat's generator is the main source)
    shared: int = 1  # 1: the moves compared in a round share deals and playout seeds (0: independent)
    backend: str = "auto"  # the playouts' engine: auto (native when it can run), native or python
    leaf: int = 0  # random playouts per leaf, reward their mean; 0: 8 natively, 1 on Python
    name: str = "ismcts"
    _native: bool = field(default=False, repr=False)
    _plan: dict[Any, Move] = field(default_factory=dict, repr=False)
    stats: dict[str, float] = field(default_factory=dict, repr=False)  # last move's iterations etc.

    # ----- the agent interface ------------------------------------------------------------------
    def choose_tile(self, game: Game, p: int, rng: random.Random) -> Tile:
        """With several tiles in hand (I-R1): search every tile's moves at once, keep the plan for `choose`."""
        move = self._search(game, p, legal_moves(game, p), rng)
        self._plan = {(game.move_index, p): move}
        return move[0]

    def choose(self, game: Game, p: int, tile: Tile, hexes: list[int], rng: random.Random) -> int:
        """The hex the search prefers for this tile."""
        planned = self._plan.pop((game.move_index, p), None)
        if planned is not None and planned[0] == tile and planned[1] in hexes:
            return planned[1]
        if len(hexes) == 1:
            return hexes[0]
        return self._search(game, p, [(tile, h) for h in hexes], rng)[1]

    def answer(self, game: Game, p: int, lm: int, decl: Any, key: str, options: list[str] | None) -> Any:
        """Ability questions: a face-down set-aside tile is taken blind (I-U1): a position among the tiles,
        which are not looked at; anything else as smart_answer (those options are seen by the player)."""
        if options and key == "take" and not game.rs.set_aside_visible:
            aside = game.set_aside[p]
            # the i-th face-down tile: i depends on public counts only; which tile that is stays unseen
            tile = aside[(game.move_index * 7 + p) % len(aside)]
            return {key: game.rs.tile_name(*tile)}
        return smart_answer(game, p, lm, decl, key, options)

    # ----- the search -----------------------------------------------------------------------------
    def _search(self, game: Game, p: int, moves: list[Move], rng: random.Random) -> Move:
        start = time.perf_counter()
        if len(moves) == 1:
            return moves[0]
        seed = rng.getrandbits(62) ^ self.seed  # one draw from the seat's generator per search
        r = random.Random(seed)
        obs = Observer(game, p)
        fast = compiled(game.rs)
        self._native = uses_native(game, self.backend)
        scorer = points_for(game.rs)
        # the root's candidates: most immediate points first, random order among equals. They are read on a
        # determinisation, not on the game: points never depend on hidden parts, and this way nothing the
        # search reads can (a pass has no hex and scores nothing)
        dealt = obs.deal(r)
        first: Game | None = dealt  # one_deal uses it once, then rebinds it to None
        pts: dict[Move, int] = {}
        for tile in dict.fromkeys(t for t, _ in moves):
            hs = [h for t, h in moves if t == tile]
            if hs[0] < 0:
                pts[(tile, -1)] = 0
                continue
            for h, x in zip(hs, scorer.many(dealt, p, tile, hs), strict=True):
                pts[(tile, h)] = x
        order = sorted(moves, key=lambda m: (-pts[m], r.random()))
        cands = order[: max(2, self.width)]
        roots = {m: Node(p) for m in cands}
        total = [0.0] * len(cands)  # summed reward per candidate, over determinisations every survivor shared
        alive = list(range(len(cands)))
        deadline = start + self.time
        spent = 0

        def one_deal() -> None:
            nonlocal spent, first
            det, first = first or obs.deal(r), None
            pseed = r.getrandbits(62)  # the playouts of every survivor start from the same seed
            for i in alive:
                if not self.shared and i != alive[0]:  # the ablation: independent deals and seeds
                    det, pseed = obs.deal(r), r.getrandbits(62)
                total[i] += self._iterate(det, fast, scorer, p, cands[i], roots[cands[i]], pseed)
            spent += len(alive)

        # sequential halving: ceil(log2 K) rounds share the evaluations equally; after each round the
        # better half survives. With a time budget, the first deal times an evaluation to size the rounds.
        t0 = time.perf_counter()
        one_deal()
        if self.budget > 0:
            planned = self.budget
        else:
            per_eval = (time.perf_counter() - t0) / len(cands)
            planned = spent + int(max(0.0, deadline - time.perf_counter()) / per_eval)
        deals = 1  # deals the current survivors have all been evaluated on this round
        while len(alive) > 1:
            rounds_left = math.ceil(math.log2(len(alive)))
            target = max(1, int((planned - spent + deals * len(alive)) / rounds_left / len(alive)))
            stop = False
            while deals < target:
                if self.budget <= 0 and time.perf_counter() > deadline:
                    stop = True
                    break
                one_deal()
                deals += 1
            if stop or (self.budget > 0 and spent >= self.budget and deals < target):
                break
            alive.sort(key=lambda i: (-total[i], i))
            alive = alive[: (len(alive) + 1) // 2]
            deals = 0
        best = max(alive, key=lambda i: (total[i], -i))
        self.stats = {"evaluations": spent, "candidates": len(cands), "seconds": time.perf_counter() - start}
        return cands[best]

    def _iterate(self, det: Game, fast: Any, scorer: Any, p: int, move: Move, node: Node, pseed: int) -> float:
        """One ISMCTS iteration under a root move on a copy of the determinisation; p's reward."""
        g = det.clone()
        g.auto_choose = smart_answer  # moves in the tree answer abilities sensibly
        apply_move(g, fast, p, move)
        path = [node]
        depth = 1
        rng = random.Random(pseed)
        while depth < self.depth and not g.is_over():
            q = g.turn
            moves = legal_moves(g, q)
            # progressive widening: the children open so far, in order of the mover's immediate points
            allowed = max(1, int(self.widen * math.sqrt(node.visits + 1)))
            if len(node.children) < allowed and len(node.children) < len(moves):
                fresh = [m for m in moves if m not in node.children]
                if fresh:
                    pick = self._best_prior(g, scorer, q, fresh, rng)
                    child = node.children[pick] = Node(q)
                    for m in moves:
                        c = node.children.get(m)
                        if c is not None:
                            c.avail += 1
                    apply_move(g, fast, q, pick)
                    path.append(child)
                    node = child
                    break
            best, best_val = None, -1.0
            for m in moves:
                c = node.children.get(m)
                if c is None:
                    continue
                c.avail += 1
                val = c.reward / c.visits + self.c * math.sqrt(math.log(max(1, c.avail)) / c.visits) \
                    if c.visits else 1e9
                if val > best_val:
                    best, best_val = m, val
            if best is None:  # none of the known moves is legal in this deal: open one
                pick = self._best_prior(g, scorer, q, moves, rng)
                child = node.children[pick] = Node(q)
                child.avail = 1
                apply_move(g, fast, q, pick)
                path.append(child)
                node = child
                break
            node = node.children[best]
            apply_move(g, fast, q, best)
            path.append(node)
            depth += 1
        k = self.leaf or (8 if self._native else 1)
        if g.is_over():
            rew = rewards(g, self.scale)
        elif k == 1 and not self._native:  # today's playout: one, on the Python engine, from this generator
            g.auto_choose = None  # the playout answers abilities at random, each seat from its generator
            fast.run_random(g, [rng] * g.n_players, None)
            rew = rewards(g, self.scale)
        else:  # k playouts from the determinisation as it stands: no second re-deal (see the docstring)
            from rebirth_dsl.native import random_playouts

            # the agent's own backend when native (auto: a position the native engine refuses plays on Python)
            finals = random_playouts(g, k, rng.getrandbits(62), redeal=False,
                                     backend=self.backend if self._native else "python")
            rew = [sum(col) / k for col in zip(*(rewards(g, self.scale, f) for f in finals), strict=True)]
        for nd in path:
            nd.visits += 1
            nd.reward += rew[nd.player]
        return rew[p]

    def _best_prior(self, g: Game, scorer: Any, q: int, moves: list[Move], rng: random.Random) -> Move:
        """The move with the most immediate points for its mover (random among equals)."""
        best: list[Move] = []
        top = None
        by_tile: dict[Tile, list[int]] = {}
        for t, h in moves:
            by_tile.setdefault(t, []).append(h)
        for t, hs in by_tile.items():
            if hs[0] < 0:
                vals = [0] * len(hs)
            else:
                vals = scorer.many(g, q, t, hs)
            for h, v in zip(hs, vals, strict=True):
                if top is None or v > top:
                    top, best = v, [(t, h)]
                elif v == top:
                    best.append((t, h))
        return best[int(rng.random() * len(best))]
