"""`rebirth play`: one full game from the ruleset's setup, an agent per seat, written as a game record."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rebirth_dsl.accel.public import public_missions
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import check_output, shown
from rebirth_dsl.play.agents import Agent, decide, move_entry
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.play.table import play_at_terminal, resume_command
from rebirth_dsl.present.report import evaluate, render_table
from rebirth_dsl.records.inputs import rules_files
from rebirth_dsl.records.record import dumps, load_ruleset, write_json_atomic
from rebirth_dsl.records.resources import name_of, rules_and_board
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import deal, seat_rng

DEFAULT_NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fin"]


def player_names(spec: str) -> list[str]:
    """`3` -> Ann, Bob, Cat; `Ann,Bob` -> those names."""
    spec = str(spec).strip()
    if spec.isdigit():
        n = int(spec)
        if not 1 <= n <= len(DEFAULT_NAMES):
            raise RebirthError.single(f"--players {n}: give 1 to {len(DEFAULT_NAMES)} players, or names separated "
                                      "by commas (the ruleset says how many it plays with)")
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


def play_game(rs: Any, names: list[str], agents: list[Agent], seed: int, plain: bool = False
              ) -> tuple[Game, list[dict[str, Any]]]:
    """Play a whole game; return the final state and the moves as record entries. The public missions are
    checked incrementally (accel/public.py, proven equal to the rule), or with `plain` as the rule states."""
    setup = deal(rs, len(names), seed)
    game = Game(rs, names, setup)
    if not plain:
        game.public_reader = public_missions
    rngs = [seat_rng(seed, i) for i in range(len(names))]
    moves: list[dict[str, Any]] = []
    while not game.is_over():
        p = game.turn
        tile, h, choices = decide(agents[p], game, p, rngs[p])
        game.play(p, tile, h, len(moves), choices)
        moves.append(move_entry(game, p, tile, h, choices))
    return game, moves


def record_for(rs: Any, rules: Path, board: Path, out_dir: Path, names: list[str], agents: list[str], seed: int,
               setup: Any, moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The game record, with explicit setup so it replays without this program's random generator."""
    def rel(p: Path, folder: str) -> str:
        # a bundled game by its name, so the record works wherever it is moved; a file relative to it
        return name_of(folder, p) or os.path.relpath(p.resolve(), out_dir.resolve())

    return {
        "rules": rel(rules, "rules"),
        "board": rel(board, "boards"),
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
    if getattr(args, "resume", None):  # continue a saved game (play/table.py replays its record)
        return resume_command(args.resume, args.agents, args.output, args.quiet, args.allow_paths)
    rules, board = rules_and_board(args.rules, args.board)
    for path in (rules, board):  # a record is UTF-8 JSON: it cannot name a file whose name is not UTF-8
        try:
            str(path).encode("utf-8")
        except UnicodeEncodeError:
            raise RebirthError.single("the file name is not UTF-8, so a game record cannot name it; rename it",
                                      file=shown(path)) from None
    rs, _ = load_ruleset(rules, board)
    names = player_names(args.players)
    lo, hi = rs.players
    if not lo <= len(names) <= hi:
        raise RebirthError.single(f"{len(names)} players: {rs.title} is for {lo} to {hi} players")
    agent_names = agent_list(args.agents or "greedy", len(names))  # no --agents: greedy (--resume: the record's)
    agents = [make_agent(a) for a in agent_names]
    # before the game is played; the files the rules extend are read too
    out = check_output(args.output, [*rules_files(rules), board]) if args.output else None
    if "human" in agent_names:  # a person can stop: the table saves the game so far, to be resumed
        return play_at_terminal(rules, board, names, [a.strip().lower() for a in agent_names], args.seed, out,
                                args.quiet)
    game, moves = play_game(rs, names, agents, args.seed)
    setup = deal(rs, len(names), args.seed)
    rec = record_for(rs, rules, board, (out.parent if out else Path.cwd()), names, agent_names, args.seed, setup, moves)
    if out:
        write_json_atomic(out, rec)
        if not args.quiet:
            print(render_table(evaluate(game), rs.categories))
            print(f"\nwrote {out} ({len(moves)} moves)")
    else:
        print(dumps(rec))
    return 0
