"""The `rebirth` command line: argument handling and output only; the work is in the library."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rebirth_dsl import __version__
from rebirth_dsl.board.maps import load_map, render_board
from rebirth_dsl.board.model import load_board, load_json
from rebirth_dsl.check.checks import check
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.loop import play_command
from rebirth_dsl.play.moves import legal_moves
from rebirth_dsl.play.simulate import simulate_command
from rebirth_dsl.present.describe import describe
from rebirth_dsl.present.render import draw
from rebirth_dsl.present.report import evaluate, explain, render_table
from rebirth_dsl.records.record import load_record, replay, write_text_atomic
from rebirth_dsl.records.resources import bundled, default_board, find

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 70


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse exits 2 on usage errors; keep that, without noise
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """All subcommands and their options."""
    p = _Parser(prog="rebirth", description="Rebirth rules compiler, validator and engine.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    c = sub.add_parser("check", help="parse and check a rules file, and its fit with a board")
    c.add_argument("rules", help="a rules file, or a bundled ruleset by name (`rebirth list`)")
    c.add_argument("--board", help="a board file or bundled name to check against (default: the ruleset's "
                   "bundled board, if it has one)")
    c.add_argument("--no-board", action="store_true", help="check the rules alone")
    c.add_argument("--strict", action="store_true", help="also require every statement to cite a rule id")

    e = sub.add_parser("eval", help="replay a game record and score it")
    e.add_argument("game", help="a game record, or a bundled example by name")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--explain", action="store_true", help="list every scoring event with its rule id")

    m = sub.add_parser("moves", help="legal hexes for the next tile, with the points each scores at once")
    m.add_argument("game")
    m.add_argument("--tile", help="the tile to place (default: the tile in hand), e.g. food or settlement:3")
    m.add_argument("--player", help="scenarios: whose tile it is (default: the first player)")
    m.add_argument("--json", action="store_true")

    d = sub.add_parser("draw", help="draw a board, or a game's position, as SVG or text")
    d.add_argument("file", help="a board or a game record (a file, or a bundled board by name)")
    d.add_argument("-o", "--output", help="write SVG here (default: text to the terminal)")

    pl = sub.add_parser("play", help="play one full game with an agent per seat and write its record")
    pl.add_argument("--rules", default=None, help="rules file or bundled name (default: rules/DEFAULT)")
    pl.add_argument("--board", default=None, help="board file or bundled name (default: the ruleset's own)")
    pl.add_argument("--players", default="3", help="a count 2..4, or names separated by commas")
    pl.add_argument("--agents", default="greedy", help="agent per seat, comma separated (random, greedy, mc, human)")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("-o", "--output", help="write the game record here (default: print it)")
    pl.add_argument("--quiet", action="store_true", help="do not print the score table")

    s = sub.add_parser("simulate", help="play many games and report score statistics per seat")
    s.add_argument("--rules", default=None)
    s.add_argument("--board", default=None)
    s.add_argument("--games", type=int, default=100)
    s.add_argument("--players", type=int, default=4)
    s.add_argument("--agents", default="random", help="agent per seat, or one for all")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--workers", type=int, default=1)
    s.add_argument("--backend", choices=["local", "ray"], default="local")
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-progress", action="store_true")

    r = sub.add_parser("rules", help="describe a ruleset in English, from the rules file itself")
    r.add_argument("rules", help="a rules file, or a bundled ruleset by name")

    sub.add_parser("list", help="the bundled rulesets, variants, boards and examples")

    bd = sub.add_parser("board", help="make board files")
    bds = bd.add_subparsers(dest="board_command", required=True, parser_class=_Parser)
    bb = bds.add_parser("build", help="build a board from a map file (docs/maps.md)")
    bb.add_argument("map", help="a map file, or a bundled map by name (boards/maps/NAME.txt: scotland, ireland)")
    bb.add_argument("-o", "--output", required=True, help="the board JSON file to write")
    bb.add_argument("--check", action="store_true", help="write nothing; exit 1 if the board file is missing or "
                    "differs from what the map builds")
    return p


def _version() -> str:
    return f"rebirth-dsl {__version__}"


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand; errors are printed, never a traceback."""
    args = build_parser().parse_args(argv)
    try:
        return int(COMMANDS[args.command](args) or 0)
    except RebirthError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_PROBLEMS
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the last line of defence: a message, not a traceback
        print(f"rebirth: internal error: {type(e).__name__}: {e}\n(this is a bug in rebirth-dsl; "
              "please report it with the command you ran)", file=sys.stderr)
        return EXIT_INTERNAL


def cmd_check(args: argparse.Namespace) -> int:
    """`rebirth check RULES [--board BOARD]`."""
    problems = []
    rules = board = None
    board_file = ""
    try:
        rules_path = find("rules", args.rules)
        rules = load_rules(rules_path)
    except RebirthError as e:
        problems.extend(e.diagnostics)
        rules_path = None
    try:
        if args.board:
            board_path = find("boards", args.board)
        elif rules_path is not None and not args.no_board:
            board_path = default_board(rules_path)
        else:
            board_path = None
        if board_path is not None:
            board_file = str(board_path)
            board = load_board(board_path)
    except RebirthError as e:
        problems.extend(e.diagnostics)
    if rules is not None:
        problems.extend(check(rules, board, board_file=board_file, strict=args.strict))
    for d in problems:
        print(d.render(), file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
        return EXIT_PROBLEMS
    n = len(rules.statements) if rules else 0
    what = f" against {board_file} ({len(board.hexes)} hexes)" if board else ""
    print(f"{args.rules}: ok: ruleset {rules.header.name!r}, {n} statements{what}")
    return EXIT_OK


def _load_replay(path: str) -> Any:
    return replay(load_record(find("examples", path)))


def cmd_eval(args: argparse.Namespace) -> int:
    """`rebirth eval GAME [--json] [--explain]`."""
    r = _load_replay(args.game)
    game = r.game
    result = evaluate(game)
    if r.error is not None:
        result["error"] = {"move": r.error.index, "rule": r.error.rule, "message": r.error.diagnostics[0].message}
    if args.explain:
        result["events"] = explain(game)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        rec = r.loaded.record
        print(f"{game.rs.title}: {len(rec.moves)} moves, {len(game.players)} players"
              + (" (scenario)" if rec.scenario else ""))
        if args.explain:
            for ev in result["events"]:
                where = "end" if ev["move"] is None else f"move {ev['move']}"
                ids = ", ".join(ev["rules"])
                print(f"  [{where:>8}] {ev['points']:>+4} {ev['category']:<16} {ev['text']}  ({ids})")
            print()
        print(render_table(result, game.rs.categories))
    if r.error is not None:
        print(f"{args.game}: {r.error.render()}\nnothing after this move was applied", file=sys.stderr)
        return EXIT_PROBLEMS
    return EXIT_OK


def cmd_moves(args: argparse.Namespace) -> int:
    """`rebirth moves GAME [--tile KIND]`."""
    r = _load_replay(args.game)
    if r.error is not None:
        raise RebirthError([*r.error.diagnostics])
    info = legal_moves(r.game, args.tile, args.player)
    if args.json:
        print(json.dumps(info, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"{info['player']} to place {info['tile']}" + (" (fallback hexes: no primary hex is free)"
                                                          if info["fallback"] else ""))
    if not info["moves"]:
        print("  no legal hex: the tile is passed")
    for mv in info["moves"]:
        q, rr = mv["hex"]
        detail = ", ".join(f"{k} {v}" for k, v in mv["breakdown"].items() if v)
        print(f"  ({q:>3},{rr:>3}) {mv['hex_kind']:<11} +{mv['points']:<3} {detail}")
    return EXIT_OK


def cmd_draw(args: argparse.Namespace) -> int:
    """`rebirth draw FILE [-o out.svg]`."""
    path = find("boards", args.file)
    data = load_json(path)
    out = draw(str(path), data, svg=bool(args.output))
    if args.output:
        write_text_atomic(args.output, out)
        print(f"wrote {args.output}")
    else:
        print(out)
    return EXIT_OK


def cmd_play(args: argparse.Namespace) -> int:
    """`rebirth play`: one full game."""
    return play_command(args)


def cmd_simulate(args: argparse.Namespace) -> int:
    """`rebirth simulate`: many games."""
    return simulate_command(args)


def cmd_rules(args: argparse.Namespace) -> int:
    """`rebirth rules RULES`: the ruleset in English."""
    print(describe(load_rules(find("rules", args.rules))))
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """`rebirth list`: the bundled games, by the names every command accepts."""
    rules = bundled("rules")
    sections = [
        ("rulesets", [n for n in rules if "/" not in n]),
        ("variants", [n for n in rules if "/" in n]),
        ("boards", list(bundled("boards"))),
        ("examples", list(bundled("examples"))),
    ]
    for title, names in sections:
        print(f"{title}:")
        for n in names:
            print(f"  {n}")
    return EXIT_OK


def cmd_board(args: argparse.Namespace) -> int:
    """`rebirth board build MAP -o BOARD.json [--check]`: a board made from a map file."""
    data = load_map(find("boards/maps", args.map))
    text = render_board(data)
    out = Path(args.output)
    try:
        current = out.read_text(encoding="utf-8") if out.is_file() else None
    except (OSError, UnicodeDecodeError):
        current = None
    if current == text:
        print(f"{out}: up to date")
        return EXIT_OK
    if args.check:
        print(f"{out}: {'missing' if current is None else 'out of date'}: "
              f"run `rebirth board build {args.map} -o {out}`", file=sys.stderr)
        return EXIT_PROBLEMS
    try:
        write_text_atomic(out, text)
    except OSError as e:
        raise RebirthError.single(f"cannot write: {e.strerror or e}", file=str(out)) from None
    print(f"wrote {out}: {len(data['hexes'])} hexes")
    return EXIT_OK


COMMANDS = {"check": cmd_check, "eval": cmd_eval, "moves": cmd_moves, "draw": cmd_draw, "play": cmd_play,
            "simulate": cmd_simulate, "rules": cmd_rules, "list": cmd_list, "board": cmd_board}
