"""Forecasts and hints from playouts that never read what the viewer cannot see.

`rebirth eval GAME --forecast` plays the game to its end many times from the position and reports each
player's expected final score and chance to win; `rebirth hint GAME` plays each legal move of the player
to move that way and ranks the moves by the expected final margin (own final score minus the best other
player's). Before every playout the hidden information is re-dealt consistently with what the viewer
knows (`resample`): tiles stay with their colour and every count stays as it is, but

- each other player's hand, supply and set-aside tiles are shuffled together and dealt back (the viewer
  knows which tiles of that colour are still unplaced, not where they are);
- the viewer's own supply order is unknown to them too, so it is shuffled, and with their set-aside tiles
  when those lie face down (I-U1);
- other players' private cards are replaced by cards drawn from everything the viewer has not seen of
  that deck (the deck and those cards), and the deck's order is shuffled.

The face-up missions, the board, every score and the viewer's own hand and cards are kept. Each pool is
sorted before it is shuffled, so a forecast depends on what the viewer knows and on the seed, never on
how the hidden tiles and cards actually lie (tests/surfaces/test_lab.py rearranges them and compares). Playout j uses
the same re-deal and the same generators for every move of a hint (common random numbers), so moves are
compared on the same futures. Random playouts run on the generated engine; other agents on the
reference one.

`backend` (`--backend auto|native|python`): where all-random playouts run. `auto` (the default) runs them on
the native engine (rebirth_dsl.native, C through cffi) when it can run, else on the generated Python
engine as before; `native` requires it; `python` never uses it. Each playout is still re-dealt here by
`resample`, then handed to the C engine without a second re-deal (`redeal=False`), with the playout's seed:
the same seed gives the same forecast for a given backend (the engines draw different random numbers, so
the two backends' forecasts differ within their intervals). When an agent other than random is asked
for, the playouts run on the Python reference engine whatever `backend` says. A top score tied between
players is settled by the rules' tie-break chain on the playout's end position, which the native engine
then hands back as its moves and the reference engine replays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.agents import Agent, smart_answer
from rebirth_dsl.play.hidden import hidden_info, resample
from rebirth_dsl.play.loop import agent_list
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.play.search import native_engine
from rebirth_dsl.play.stats import mean_ci, paired_t, wilson
from rebirth_dsl.play.summary import interval
from rebirth_dsl.play.tally import finish
from rebirth_dsl.pyengine.fast import compiled
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import seat_rng

SEED_STRIDE = 1_000_000  # playout j of a run with seed S uses S * SEED_STRIDE + j


# ----- playouts ---------------------------------------------------------------------------------------
def _agents(spec: str, n: int) -> list[Agent] | None:
    """The playout agents (None: all random, played on the generated engine)."""
    names = agent_list(spec, n)
    agents = [make_agent(a) for a in names]
    for a, name in zip(agents, names, strict=True):
        if getattr(a, "needs_terminal", False):
            raise RebirthError.single(f"agent {name!r} asks a person at a terminal; playouts need agents that "
                                      "play alone")
    return None if all(a.name == "random" for a in agents) else agents


def _native_engine(game: Game, agents: list[Agent] | None, backend: str) -> Any:
    """The native engine for these playouts, or None (Python): only all-random playouts run natively."""
    if agents is not None and backend in ("auto", "native", "python"):
        return None  # agents' playouts run on the Python engine
    return native_engine(game, backend, "--backend")


def _play_out(g: Game, agents: list[Agent] | None, seed: int, eng: Any = None) -> tuple[list[int], list[int]]:
    """Play a re-dealt copy to its end (natively with `eng`); its final scores and winners."""
    if eng is not None and not g.pending_draw and not g.is_over():
        final = eng.playouts(g, 1, seed, redeal=False)[0]
        top = max(final)
        if sum(1 for x in final if x == top) == 1 or not g.rs.winner_ties:
            return final, [q for q, x in enumerate(final) if x == top]
        moves: list[dict[str, Any]] = []  # a tie on top: the chain reads the end position, so replay it
        eng.playouts(g, 1, seed, redeal=False, record=moves)
        for m in moves:
            h = g.rs.t.index[tuple(m["hex"])] if m["hex"] is not None else None
            g.play(g.players.index(m["player"]), g.rs.parse_tile(m["tile"]), h, None, m.get("choices"))
        winners, _ = g.winners(final)
        return final, winners
    rngs = [seat_rng(seed, q) for q in range(g.n_players)]
    g.auto_choose = None  # the playout's own agents answer abilities (random ones at random)
    if agents is None:
        compiled(g.rs).run_random(g, rngs, None)
    else:
        finish(g, agents, rngs)
    end = g.end_events()
    final = g.final_scores(end)
    winners, _ = g.winners(final)
    return final, winners


def _validate(playouts: int) -> None:
    if not 1 <= playouts <= 1_000_000:
        raise RebirthError.single(f"--playouts {playouts}: from 1 to 1,000,000")


def _summary(values: Sequence[float], exact: bool) -> dict[str, Any]:
    m, lo, hi = mean_ci(values)
    if exact:
        lo = hi = m
    return {"mean": round(m, 3), "ci": [round(lo, 3), round(hi, 3)]}


def _win(shares: Sequence[float], exact: bool) -> dict[str, Any]:
    n = len(shares)
    w = sum(shares) / n
    lo, hi = (w, w) if exact else wilson(sum(shares), n)
    return {"mean": round(w, 4), "ci": [round(lo, 4), round(hi, 4)]}


def forecast(game: Game, viewer: int | None = None, agents: str = "random", playouts: int = 200,
             seed: int = 0, backend: str = "auto") -> dict[str, Any]:
    """Each player's expected final score and chance to win, with 95 % intervals, from the viewer's side
    (default: the player to move). A finished game is its own forecast: the actual scores, zero width.
    `backend`: where all-random playouts run (auto, native or python; see the module's docstring)."""
    _validate(playouts)
    n = game.n_players
    v = game.turn if viewer is None else viewer
    out: dict[str, Any] = {"viewer": game.players[v], "to_move": game.players[game.turn], "agents":
                           agent_list(agents, n)}
    if game.is_over():  # nothing left to play or to hide: the result itself
        end = game.end_events()
        final = game.final_scores(end)
        winners, _ = game.winners(final)
        finals = [[float(final[q])] for q in range(n)]
        wins = [[1 / len(winners) if q in winners else 0.0] for q in range(n)]
        out.update(playouts=0, exact=True, sampled=[])
    else:
        ags = _agents(agents, n)
        eng = _native_engine(game, ags, backend)
        finals = [[] for _ in range(n)]
        wins = [[] for _ in range(n)]
        for j in range(playouts):
            s = seed * SEED_STRIDE + j
            g = game.fork()
            resample(g, v, random.Random(s * 16))  # seat generators are s * 16 + seat + 1: distinct streams
            final, winners = _play_out(g, ags, s, eng)
            for q in range(n):
                finals[q].append(float(final[q]))
                wins[q].append(1 / len(winners) if q in winners else 0.0)
        out.update(playouts=playouts, exact=False, sampled=hidden_info(game, v))
    out["players"] = [{"name": game.players[q], "now": game.track[q], "final": _summary(finals[q], out["exact"]),
                       "win": _win(wins[q], out["exact"])} for q in range(n)]
    return out


def render_forecast(f: dict[str, Any]) -> str:
    """The forecast as text."""
    if f["exact"]:
        head = "Forecast: the game is over; these are its final scores (no playout needed)"
    else:
        head = (f"Forecast from {f['viewer']}'s view ({f['to_move']} to move), {f['playouts']} playouts by "
                f"{', '.join(dict.fromkeys(f['agents']))}; 95% intervals\nsampled each playout: "
                + "; ".join(f["sampled"]))
    rows = [["player", "now", "expected final", "chance to win %"]]
    for p in f["players"]:
        rows.append([p["name"], str(p["now"]), interval(p["final"]["mean"], p["final"]["ci"]),
                     interval(p["win"]["mean"], p["win"]["ci"], scale=100)])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return head + "\n" + "\n".join(lines)


# ----- hints ------------------------------------------------------------------------------------------
Candidate = tuple[tuple[int, int], int | None]  # (tile, hex or None for a pass)


def candidates(game: Game, p: int, tiles: Sequence[tuple[int, int]]) -> list[Candidate]:
    """Every legal move of p with these tiles: each legal hex, or the pass when a tile has none."""
    t = game.t
    cands: list[Candidate] = []
    for x in tiles:
        hexes, _ = game.legal_hexes(x[0])
        cands += [(x, h) for h in sorted(hexes, key=lambda h: t.coords[h])] if hexes else [(x, None)]
    return cands


def screen(game: Game, p: int, cands: list[Candidate], width: int) -> tuple[list[Candidate], dict[Candidate, float]]:
    """The `width` candidates the one-ply evaluation (play/evaluate.py: the position's worth after the
    move) values most, and every candidate's value; width 0 or more than there are: all of them."""
    from rebirth_dsl.play.evaluate import evaluation_for  # the evaluation's tables: built on first use

    ev = evaluation_for(game.rs)
    value: dict[Candidate, float] = {}
    by_tile: dict[tuple[int, int], list[int]] = {}
    for x, h in cands:
        if h is None:
            value[(x, h)] = float("-inf")  # a pass: the tile has no hex, so nothing else was possible
        else:
            by_tile.setdefault(x, []).append(h)
    for x, hexes in by_tile.items():
        for h, v in zip(hexes, ev.placements(game, p, x, hexes), strict=True):
            value[(x, h)] = float(v)
    if width <= 0 or len(cands) <= width:
        return list(cands), value
    ranked = sorted(cands, key=lambda c: (-value[c], game.t.coords[c[1]] if c[1] is not None else ()))
    return ranked[:width], value


@dataclass
class Outcomes:
    """One candidate's playouts: the mover's margins and final scores, and every player's win shares."""

    margins: list[float] = field(default_factory=list)
    own: list[float] = field(default_factory=list)
    wins: list[list[float]] = field(default_factory=list)  # per player, per playout


def play_candidates(game: Game, p: int, cands: Sequence[Candidate], agents: str = "random", playouts: int = 100,
                    seed: int = 0, backend: str = "auto",
                    choices: dict[Candidate, dict[str, Any]] | None = None) -> list[Outcomes]:
    """Each candidate move of p made on `playouts` re-dealt copies (what p cannot see drawn anew,
    `resample`) and played to the end; playout j deals the same future to every candidate (common random
    numbers), so the differences are the moves' own. `choices`: a candidate's own answers to its ability
    questions (a move played in a record); the others' are answered as greedy and mc answer them."""
    _validate(playouts)
    n = game.n_players
    ags = _agents(agents, n)
    eng = _native_engine(game, ags, backend)
    out: list[Outcomes] = []
    for x, h in cands:
        o = Outcomes(wins=[[] for _ in range(n)])
        for j in range(playouts):
            s = seed * SEED_STRIDE + j  # the same future for every move: differences are the moves' own
            g = game.fork()
            resample(g, p, random.Random(s * 16))
            g.auto_choose = smart_answer  # the move's own ability questions: answered as greedy and mc do
            g.play(p, x, h, None, _possible(g, p, h, dict((choices or {}).get((x, h), {}))))
            final, winners = _play_out(g, ags, s, eng)
            o.margins.append(float(final[p] - max((final[q] for q in range(n) if q != p), default=0)))
            o.own.append(float(final[p]))
            for q in range(n):
                o.wins[q].append(1 / len(winners) if q in winners else 0.0)
        out.append(o)
    return out


def _possible(g: Game, p: int, h: int | None, choices: dict[str, Any]) -> dict[str, Any]:
    """A recorded move's ability answers that are still possible on a re-dealt copy. An answer naming a
    face-down set-aside tile (I-U1: its owner takes one blind) that the re-deal put elsewhere is left to
    the copy's own answer (`smart_answer`: taken blind too), instead of taking a tile that is not there."""
    if not choices or h is None:
        return choices
    from rebirth_dsl.runtime.abilities import options, pending

    names = {g.t.landmark_name[lm]: lm for lm, _ in pending(g, p, h)}
    out: dict[str, Any] = {}
    for name, c in choices.items():
        lm = names.get(name)
        if lm is not None and isinstance(c, dict):
            _, key, opts = options(g, p, lm)
            if key in c and c[key] not in (opts or []):
                continue
        out[name] = c
    return out


def hint(game: Game, player: int | None = None, tile: tuple[int, int] | None = None, agents: str = "random",
         playouts: int = 100, seed: int = 0, backend: str = "auto", width: int = 0) -> dict[str, Any]:
    """Every legal move of the player to move (or a scenario's `player` with `tile`), ranked by expected
    final margin over the same re-dealt futures, with 95 % intervals, and what each does now
    (play/reasons.py). `width` > 0: only the moves the one-ply evaluation ranks in its best `width` are
    played out; the others are listed, marked screened, with that evaluation. `backend`: where all-random
    playouts run (auto, native or python; see the module's docstring)."""
    from rebirth_dsl.play.reasons import effects_text, holders_of, move_effects

    _validate(playouts)
    rs, t = game.rs, game.t
    if game.scenario:
        if tile is None:
            raise RebirthError.single("a scenario has no hands: say which tile with --tile (e.g. --tile food)")
        p = 0 if player is None else player
        tiles = [tile]
    else:
        if game.is_over():
            raise RebirthError.single("the game is over: no move is left to rank")
        p = game.turn
        if player is not None and player != p:
            raise RebirthError.single(f"it is {game.players[p]}'s turn, not {game.players[player]}'s")
        if tile is not None and tile not in game.hand[p]:
            held = ", ".join(rs.tile_name(*x) for x in game.hand[p])
            raise RebirthError.single(f"{game.players[p]} holds {held}, not {rs.tile_name(*tile)}")
        tiles = [tile] if tile is not None else list(dict.fromkeys(game.hand[p]))
    n = game.n_players
    every = candidates(game, p, tiles)
    cands, value = screen(game, p, every, width) if width > 0 else (every, {})
    results = play_candidates(game, p, cands, agents, playouts, seed, backend)
    holders = holders_of(game)

    def entry(x: tuple[int, int], h: int | None) -> dict[str, Any]:
        eff = move_effects(game, p, x, h) if h is not None else None
        return {"tile": rs.tile_name(*x), "hex": list(t.coords[h]) if h is not None else None,
                "hex_kind": t.hex_kind[h] if h is not None else None, "points": eff.total if eff else 0,
                "does": effects_text(eff, holders) if eff else "passes: no legal hex",
                "effects": eff.data() if eff else None}

    moves: list[dict[str, Any]] = []
    for (x, h), o in zip(cands, results, strict=True):
        moves.append(entry(x, h) | {"margin": _summary(o.margins, False), "final": _summary(o.own, False),
                                    "win": _win(o.wins[p], False), "_margins": o.margins})
    moves.sort(key=lambda m: (-m["margin"]["mean"], -m["points"], m["tile"], m["hex"] or []))
    best = moves[0]["_margins"]
    for m in moves:
        # paired over the same futures: how far behind the best move, and whether that is more than noise
        p_value, ci = paired_t([a - b for a, b in zip(m.pop("_margins"), best, strict=True)])
        m["vs_best"] = {"mean": round(m["margin"]["mean"] - moves[0]["margin"]["mean"], 3),
                        "ci": [round(ci[0], 3), round(ci[1], 3)], "p": p_value}
    chosen = set(cands)
    screened = sorted((c for c in every if c not in chosen), key=lambda c: -value[c])
    out_screened = [entry(x, h) | {"screened": True, "value": round(value[(x, h)], 3)} for x, h in screened]
    return {"player": game.players[p], "playouts": playouts, "agents": agent_list(agents, n),
            "sampled": hidden_info(game, p), "width": width, "moves": moves, "screened": out_screened}


def render_hint(hnt: dict[str, Any], top: int = 10) -> str:
    """The ranked moves as text (the best `top`), each with what it does now."""
    ms = hnt["moves"]
    scr = hnt.get("screened", [])
    total = len(ms) + len(scr)
    screened = (f"; the one-ply evaluation's best {len(ms)} played out, {len(scr)} screened out (--width)"
                if scr else "")
    head = (f"{hnt['player']} to move: {total} legal move{'s' if total != 1 else ''}{screened}, ranked by expected "
            f"final margin (own final score - best other), {hnt['playouts']} playouts each by "
            f"{', '.join(dict.fromkeys(hnt['agents']))}, the same futures for every move; 95% intervals\n"
            "sampled each playout: " + "; ".join(hnt["sampled"]))
    rows = [["rank", "tile", "hex", "now", "margin", "vs best (paired)", "own final", "win %", "does now"]]
    for i, m in enumerate(ms[:top]):
        where = f"({m['hex'][0]},{m['hex'][1]}) {m['hex_kind']}" if m["hex"] else "pass"
        rows.append([str(i + 1), m["tile"], where, f"{m['points']:+d}", interval(m["margin"]["mean"], m["margin"]["ci"],
                     "{:+.1f}"), "-" if i == 0 else interval(m["vs_best"]["mean"], m["vs_best"]["ci"], "{:+.1f}"),
                     interval(m["final"]["mean"], m["final"]["ci"]),
                     interval(m["win"]["mean"], m["win"]["ci"], scale=100), m["does"]])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    last = len(widths) - 1
    lines = ["  ".join(c if i == last else c.ljust(w) if i in (1, 2) else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    more = f"\n... and {len(ms) - top} more (--top, or --json for all)" if len(ms) > top else ""
    return head + "\n" + "\n".join(lines) + more
