"""`rebirth play`: one full game from the ruleset's setup, an agent per seat, written as a game record."""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path
from typing import Any

from .agents import Agent, make_agent, pick_choices, pick_tile
from .engine import Game, deal
from .errors import RebirthError

DEFAULT_NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fin"]


def player_names(spec: str) -> list[str]:
    """`3` -> Ann, Bob, Cat; `Ann,Bob` -> those names."""
    spec = str(spec).strip()
    if spec.isdigit():
        n = int(spec)
        if not 1 <= n <= len(DEFAULT_NAMES):
            raise RebirthError.single(f"--players {n}: give 2 to 4 players (or names separated by commas)")
        return DEFAULT_NAMES[:n]
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if len(set(names)) != len(names):
        raise RebirthError.single(f"--players {spec}: player names must differ")
    return names


def agent_list(spec: str, n: int) -> list[str]:
    """One agent name for all seats, or one per seat."""
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if len(names) == 1:
        return names * n
    if len(names) != n:
        raise RebirthError.single(f"--agents names {len(names)} agents for {n} players")
    return names


def seat_rng(seed: int, seat: int) -> random.Random:
    """Each seat's own generator, so one agent's draws never shift another's."""
    return random.Random(seed * 16 + seat + 1)  # an int seeds fast; a string would be hashed with SHA-512


def play_game(rs: Any, names: list[str], agents: list[Agent], seed: int) -> tuple[Game, list[dict[str, Any]]]:
    """Play a whole game; return the final state and the moves as record entries."""
    setup = deal(rs, len(names), seed)
    game = Game(rs, names, setup)
    rngs = [seat_rng(seed, i) for i in range(len(names))]
    moves: list[dict[str, Any]] = []
    coords = game.t.coords
    while not game.is_over():
        p = game.turn
        tile = pick_tile(agents[p], game, p, rngs[p])
        hexes, _ = game.legal_hexes(tile[0])
        h = agents[p].choose(game, p, tile, hexes, rngs[p]) if hexes else None
        choices = pick_choices(agents[p], game, p, h, rngs[p]) if h is not None else {}
        game.play(p, tile, h, len(moves), choices)
        move: dict[str, Any] = {"player": names[p], "tile": rs.tile_name(*tile),
                                "hex": list(coords[h]) if h is not None else None}
        if choices:
            move["choices"] = choices
        moves.append(move)
    return game, moves


def record_for(rs: Any, rules: Path, board: Path, out_dir: Path, names: list[str], agents: list[str], seed: int,
               setup: Any, moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The game record, with explicit setup so it replays without this program's random generator."""
    def rel(p: Path) -> str:
        return os.path.relpath(p.resolve(), out_dir.resolve())

    return {
        "rules": rel(rules),
        "board": rel(board),
        "players": names,
        "agents": agents,
        "setup": {
            "seed": seed,
            "set_aside": {n: [rs.tile_name(*t) for t in setup.set_aside[i]] for i, n in enumerate(names)},
            "supply": {n: [rs.tile_name(*t) for t in setup.supply[i]] for i, n in enumerate(names)},
            "decks": setup.decks,
        },
        "moves": moves,
    }


def play_command(args: argparse.Namespace) -> int:
    """Run `rebirth play` and write (or print) the record."""
    from .cli import default_path
    from .record import dumps, load_ruleset, write_json_atomic
    from .report import evaluate, render_table

    rules = Path(args.rules) if args.rules else default_path("rules", "scotland.rules")
    board = Path(args.board) if args.board else default_path("boards", "scotland.json")
    rs, _ = load_ruleset(rules, board)
    names = player_names(args.players)
    lo, hi = rs.players
    if not lo <= len(names) <= hi:
        raise RebirthError.single(f"{len(names)} players: {rs.title} is for {lo} to {hi} players")
    agent_names = agent_list(args.agents, len(names))
    agents = [make_agent(a) for a in agent_names]
    game, moves = play_game(rs, names, agents, args.seed)
    setup = deal(rs, len(names), args.seed)
    out = Path(args.output) if args.output else None
    rec = record_for(rs, rules, board, (out.parent if out else Path.cwd()), names, agent_names, args.seed, setup, moves)
    if out:
        write_json_atomic(out, rec)
        if not args.quiet:
            print(render_table(evaluate(game), rs.categories))
            print(f"\nwrote {out} ({len(moves)} moves)")
    else:
        print(dumps(rec))
    return 0
