"""The `rebirth` command line: argument handling and output only; the work is in the library."""

from __future__ import annotations

import errno
import functools
import gc
import os
import sys
from types import SimpleNamespace

from rebirth_dsl import TYPE_CHECKING, __version__
from rebirth_dsl.board.data import load_json
from rebirth_dsl.board.view import load_board_view
from rebirth_dsl.errors import Diagnostic, RebirthError
from rebirth_dsl.files import check_output, shown, write_text_atomic
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.records.resources import board_for, bundled, default_board, default_rules, find, name_of

if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any

# Start-up: the modules above are what every command may need (finding bundled games, reading files,
# reporting errors). Each command imports its own modules inside its function: measured with
# `python -X importtime -m rebirth_dsl eval scotland-3p`, importing them all at the top cost eval about
# 100 ms of its start (play.loop alone pulls in the agents, the table and the points code), and the game
# engine eval replays with (records.games, present.report) is a third of `rebirth list` or `--version`.
# Nor does a warm eval import pydantic or the checks: boards, records and passed checks are remembered by
# content in the data-only cache (board.view, records.view, compile.compiler).

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 70
GC_YOUNG = 10_000  # allocations between collections of the youngest generation in the program (see program)


@functools.cache
def _parser_class() -> type[argparse.ArgumentParser]:
    """The command line's parser class, made at its first use: a plain command line is read without argparse
    (see _plain_args), which imports gettext, whose lookup of the messages' translations imports locale."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def __init__(self, raw_description: bool = False, **kwargs: Any) -> None:
            # the help formatter with the terminal's width given: argparse makes one per option (to check its
            # metavar), and one left to find the width itself imports shutil (with bz2, lzma and fnmatch) in
            # every command, only to format help that is never shown
            formatter = argparse.RawDescriptionHelpFormatter if raw_description else argparse.HelpFormatter
            kwargs["formatter_class"] = functools.partial(formatter, width=_columns() - 2)  # as HelpFormatter's default
            super().__init__(**kwargs)

        def error(self, message: str) -> Any:  # argparse exits 2 on usage errors; keep that, without noise
            self.print_usage(sys.stderr)
            print(f"{self.prog}: error: {message}", file=sys.stderr)
            raise SystemExit(EXIT_USAGE)

    return _Parser


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size() finds it (what argparse's help is wrapped to): the
    COLUMNS variable if it is a positive number, else the width of the terminal standard output is, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Subcommands:
    """Registers the subcommands: all of them, or only the one being run (the others are never read when
    the command line starts with that command's name). Building every subcommand's parser took 31 M
    instructions, eval's alone takes 15 M (callgrind): a few milliseconds of every `rebirth eval`."""

    def __init__(self, sub: Any, command: str | None) -> None:
        self.sub, self.command = sub, command

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        """The subcommand's parser, or a stand-in that ignores its options when it is not the one run."""
        if self.command in (None, name):
            return self.sub.add_parser(name, **kwargs)
        return _Unused()


class _Unused:
    """Stands in for the parser of a subcommand that is not being run."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        """Ignored."""

    def add_subparsers(self, **kwargs: Any) -> _Unused:
        """Itself: nested subcommands are not built either."""
        return self

    def add_parser(self, *args: Any, **kwargs: Any) -> _Unused:
        """Itself."""
        return self


def _command_of(argv: list[str]) -> str | None:
    """The subcommand argv starts with, or None (no command, a top-level option such as --help or
    --version first, or an unknown word: then every subcommand is built, for the help and the errors)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


class _Declared:
    """A parser's declarations as _declare makes them, recorded without argparse: its options and its
    subcommands (add_subparsers gives the parser itself, whose add_parser records a subcommand)."""

    def __init__(self) -> None:
        self.options: list[tuple[tuple[str, ...], dict[str, Any]]] = []
        self.commands: dict[str, _Declared] = {}

    def add_argument(self, *names: str, **kwargs: Any) -> None:
        """Recorded."""
        self.options.append((names, kwargs))

    def add_subparsers(self, **kwargs: Any) -> _Declared:
        """Itself: its add_parser records a subcommand."""
        return self

    def add_parser(self, name: str, **kwargs: Any) -> _Declared:
        """A new subcommand's declarations."""
        made = self.commands[name] = _Declared()
        return made


def _plain_args(argv: list[str]) -> Any:
    """The arguments argparse would read from a plain command line, read without it: a subcommand (with no
    subcommands of its own) followed by its positional arguments and its on/off flags, each written out in
    full, in any order. Anything else (an option with a value, an abbreviation, -h, --, a word that starts
    with -, an argument too many or too few) gives None: argparse reads that line, with its help and its
    errors. The values come from the declarations argparse is given (_declare), so the two cannot differ."""
    command = _command_of(argv)
    if command is None:
        return None
    root = _Declared()
    _declare(root, command)
    parser = root.commands[command]
    if parser.commands or any(kw.get("action") not in ("version", "help") for _, kw in root.options):
        return None
    values: dict[str, Any] = {"command": command}
    flags: dict[str, tuple[str, bool]] = {}
    positionals: list[str] = []
    for names, kw in parser.options:
        action = kw.get("action", "store")
        if not names[0].startswith("-"):
            if set(kw) - {"help", "metavar"}:  # nargs, type or choices: argparse's to check
                return None
            positionals.append(names[0])
            continue
        dest = kw.get("dest") or next((n for n in names if n.startswith("--")), names[0]).lstrip("-").replace("-", "_")
        if kw.get("required"):
            return None
        if action in ("store_true", "store_false"):
            values[dest] = kw.get("default", action == "store_false")
            flags.update(dict.fromkeys(names, (dest, action == "store_true")))
        elif action in ("store", "append") and not ("type" in kw and isinstance(kw.get("default"), str)):
            values[dest] = kw.get("default")  # argparse passes a default given as text through `type`
        else:
            return None
    given: list[str] = []
    for word in argv[1:]:
        if word.startswith("-"):
            if word not in flags:
                return None
            dest, value = flags[word]
            values[dest] = value
        else:
            given.append(word)
    if len(given) != len(positionals):
        return None
    values.update(zip(positionals, given, strict=True))
    return SimpleNamespace(**values)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """All subcommands and their options (with `command`, that subcommand alone)."""
    p = _parser_class()(prog="rebirth", description="Rebirth rules compiler, validator and engine.")
    _declare(p, command)
    return p


def _declare(p: Any, command: str | None) -> None:
    """Declare the subcommands and their options on p (an argparse parser, or a _Declared that records them);
    with `command`, that subcommand alone. Nested parsers are of p's class (argparse's default)."""
    p.add_argument("--version", action="version", version=_version())
    sub = _Subcommands(p.add_subparsers(dest="command", required=True), command)

    c = sub.add_parser("check", help="parse and check a rules file, and its fit with a board")
    c.add_argument("rules", help="a rules file, or a bundled ruleset by name (`rebirth list`)")
    c.add_argument("--board", help="a board file or bundled name to check against (default: the ruleset's "
                   "bundled board, if it has one)")
    c.add_argument("--no-board", action="store_true", help="check the rules alone")
    c.add_argument("--json", action="store_true", help="print the diagnostics as JSON objects in the shape of "
                   "the Language Server Protocol (file, range, severity, code, message, hint)")
    c.add_argument("--strict", action="store_true", help="also require every statement to cite a rule id")

    e = sub.add_parser("eval", help="replay a game record and score it")
    e.add_argument("game", help=GAME_HELP)
    _record_options(e)
    _at_option(e)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--explain", action="store_true", help="list every scoring event with its rule id")
    e.add_argument("--forecast", action="store_true", help="each player's expected final score and chance to win, "
                   "from playouts that re-deal what the viewer cannot see")
    _playout_options(e, 200)
    e.add_argument("--as", dest="viewer", metavar="NAME", help="whose view: other players' secret cards are not shown "
                   "(default with --forecast: the player to move)")
    _position_options(e)

    h = sub.add_parser("hint", help="rank the moves of the player to move by expected final margin, from playouts")
    h.add_argument("game", help=GAME_HELP)
    _record_options(h)
    _at_option(h)
    h.add_argument("--tile", help="the tile to place (default: each tile in hand; scenarios must say)")
    h.add_argument("--player", help="scenarios: whose move (default: the first player)")
    _playout_options(h, 50, "oneply")
    h.add_argument("--width", type=count, default=8, help="play out only the moves the one-ply evaluation ranks "
                   "in its best WIDTH (default 8; 0: every move); the others are listed as screened out")
    _position_options(h)
    h.add_argument("--top", type=count, default=10, help="how many moves to list (default 10; --json lists all)")
    h.add_argument("--json", action="store_true")

    m = sub.add_parser("moves", help="legal hexes for the next tile, with the points each scores at once")
    m.add_argument("game", help=GAME_HELP)
    _record_options(m)
    _at_option(m)
    m.add_argument("--tile", help="the tile to place (default: the tile in hand), e.g. food or settlement:3")
    m.add_argument("--player", help="scenarios: whose tile it is (default: the first player)")
    m.add_argument("--json", action="store_true")

    _review_parser(sub)

    d = sub.add_parser("draw", help="draw a board, or a game's position, as SVG or text")
    d.add_argument("file", help="a board, a game record or a position in the notation (a file, or a bundled "
                   "board by name; - reads standard input)")
    d.add_argument("-o", "--output", help="write SVG here (default: text to the terminal)")
    d.add_argument("--allow-paths", action="store_true", help="let a record name files outside its folder")

    pl = sub.add_parser("play", help="play one full game with an agent per seat and write its record")
    pl.add_argument("--rules", default=None, help="rules file or bundled name (default: rules/DEFAULT)")
    pl.add_argument("--board", default=None, help="board file or bundled name (default: the ruleset's own)")
    pl.add_argument("--players", default="3", help="a count 2..4, or names separated by commas")
    pl.add_argument("--agents", default=None, help="agent per seat, comma separated (random, greedy, oneply, lookahead, mc, human; "
                    "default greedy, or the saved game's with --resume)")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("-o", "--output", help="write the game record here (default: print it)")
    pl.add_argument("--quiet", action="store_true", help="do not print the score table")
    pl.add_argument("--resume", metavar="GAME", help="continue a saved game record (a human seat saves one on `q`); "
                    "written back to it unless -o names another file; or play on from a position in the notation "
                    "(a file, its text or -), written as a record to -o")
    pl.add_argument("--allow-paths", action="store_true", help="--resume: let the record name files outside its folder")

    s = sub.add_parser("simulate", help="play many games and report score statistics per seat")
    s.add_argument("--rules", default=None)
    s.add_argument("--board", default=None)
    s.add_argument("--games", type=count, default=100)
    s.add_argument("--players", type=count, default=4)
    s.add_argument("--agents", default=None, help="agent per seat, or one for all (default oneply; random with "
                   "--backend native)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--workers", type=count, default=1)
    s.add_argument("--backend", choices=["local", "ray", "native"], default="local",
                   help="native: the compiled C engine (random agents; pip install 'rebirth-dsl[native]')")
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-progress", action="store_true")
    _export_options(s)
    s.add_argument("--map-stats", nargs="?", const="", default=None, metavar="DIR",
                   help="per hex, area and landmark: how often taken, completed, contested, changing hands, and a "
                   "seat fairness test; with DIR, heat maps of the board there (SVG; PNG too with the extra [lab])")

    cp = sub.add_parser("compare", help="the balance lab: play two rulesets on the same seeds and report every "
                        "difference with its 95%% interval and test")
    cp.add_argument("base", help="the base ruleset (a file or bundled name)")
    cp.add_argument("variant", help="the variant ruleset (a file or bundled name)")
    cp.add_argument("--board", default=None, help="the base's board (default: its own); the variant's too unless "
                    "--variant-board")
    cp.add_argument("--variant-board", default=None, help="the variant's board (default: its own, else the base's)")
    cp.add_argument("--games", type=count, default=1000, help="games per ruleset (default 1000)")
    cp.add_argument("--players", type=count, default=3)
    cp.add_argument("--agents", default=None, help="agent per seat, or one for all (default oneply; random with "
                    "--backend native)")
    cp.add_argument("--seed", type=int, default=0)
    cp.add_argument("--workers", type=count, default=1)
    cp.add_argument("--backend", choices=["local", "ray", "native"], default="local",
                    help="native: the compiled C engine (random agents; pip install 'rebirth-dsl[native]')")
    cp.add_argument("--test", choices=["t", "wilcoxon"], default="t",
                    help="test of paired means: paired t-test (default) or Wilcoxon signed-rank")
    cp.add_argument("--all", action="store_true", help="list every mission card, not only those that differ")
    cp.add_argument("--json", action="store_true")
    cp.add_argument("--plot", metavar="DIR", help="write PNG charts into DIR (needs the extra [lab]: matplotlib)")
    cp.add_argument("--no-progress", action="store_true")
    _export_options(cp)
    cp.add_argument("--map-stats", nargs="?", const="", default=None, metavar="DIR",
                    help="both sides on one board: each side's map statistics and where they differ; with DIR, "
                    "heat maps into DIR/base and DIR/variant (as simulate --map-stats)")

    sv = sub.add_parser("serve", help="the web app: play, watch and study games in a browser (extra [web])")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=port, default=8000, help="port (0: any free one; the address is printed)")
    sv.add_argument("--data", default=None, help="folder of the games' store (default ~/.local/share/rebirth-dsl)")
    sv.add_argument("--agent-delay", type=float, default=0.6, help="seconds between agents' moves, to follow them")
    sv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="a host name the server is reached by (behind a reverse proxy, or on a network); repeatable")
    sv.add_argument("--local-files", action="store_true",
                    help="let the study page read records by path (a loopback server only; docs/security.md)")

    r = sub.add_parser("rules", help="describe a ruleset in English, from the rules file itself")
    r.add_argument("rules", help="a rules file, or a bundled ruleset by name")
    r.add_argument("--diff", metavar="BASE", help="say only what RULES changes against BASE (a file or name), "
                   "and the boards' differences when the two play on different boards")
    r.add_argument("--board", help="--diff: RULES' board (a file or bundled name; default: its own)")
    r.add_argument("--base-board", help="--diff: BASE's board (a file or bundled name; default: its own)")

    tf = sub.add_parser("test", help="play the reference positions of a tests file and check what each expects",
                        description=TESTS_HELP, raw_description=True)
    tf.add_argument("file", help="a tests file (NAME.tests), or a bundled ruleset's by the ruleset's name")
    tf.add_argument("--rules", help="run the positions against this ruleset (a file or bundled name) instead of "
                    "the one the tests file names")

    sub.add_parser("list", help="the bundled rulesets, variants, boards and examples")
    _position_parser(sub)

    f = sub.add_parser("fmt", help="lay out rules files in the canonical format, in place (docs/language.md)")
    f.add_argument("files", nargs="*", metavar="FILE", help="rules files or folders (their .rules files, "
                   "recursively); `-` reads standard input and prints (default: the current folder)")
    f.add_argument("--check", action="store_true", help="write nothing; list the files that would change and "
                   "exit 1 if any would")
    f.add_argument("--stdout", action="store_true", help="print the formatted text instead of writing the files")
    nw = sub.add_parser("new", help="start a variant in this folder: `rebirth new variant NAME --extends BASE`")
    nws = nw.add_subparsers(dest="new_command", required=True)
    nv = nws.add_parser("variant", help="write NAME.rules: a commented starter that extends a ruleset, names its "
                        "board and checks clean (an existing file is never overwritten)")
    nv.add_argument("name", help="the variant's name: NAME.rules is written in the current folder")
    nv.add_argument("--extends", dest="base", default=None, help="the ruleset it varies: a bundled name "
                    "(`rebirth list`) or a rules file (default: the default ruleset, as `rebirth play` uses)")

    ls = sub.add_parser("lsp", help="serve .rules files to an editor over stdin/stdout (Language Server Protocol; "
                        "needs the extra: pip install 'rebirth-dsl[lsp]')")
    ls.add_argument("--board", help="check against this board (a file or bundled name) unless the editor's "
                    "`rebirth.board` setting names one (default: each ruleset's bundled board)")

    bd = sub.add_parser("board", help="make board files")
    bds = bd.add_subparsers(dest="board_command", required=True)
    bb = bds.add_parser("build", help="build a board from a map file (docs/maps.md)")
    bb.add_argument("map", help="a map file, or a bundled map by name (the file boards/maps/NAME.txt)")
    bb.add_argument("-o", "--output", required=True, help="the board JSON file to write")
    bb.add_argument("--check", action="store_true", help="write nothing; exit 1 if the board file is missing or "
                    "differs from what the map builds")


TESTS_HELP = """\
Play each position of a tests file against its ruleset and check what it expects; every failure is
reported at its line (file:line:col) with what was expected and what the game gives. Exit 1 on any
failure or a malformed file, else 0 with a one-line summary. The format (docs/formats.md, "Tests files"):

  rules "hills.rules"                # relative to this file, or a bundled ruleset's name
  board "small.json"                 # optional: the default board (else the ruleset's own)

  position "a castle is taken"       # H-K2   (the rule ids in this comment: what it covers)
    players Ann, Bob                 # seat order (players 3: Ann, Bob, Cat); a scenario unless `in turn order`
    move Ann food (1,0)              # player, tile (food, settlement:3), hex (q,r) or `pass`
    move Bob energy (2,1) refused H-P1    # the last move: refused, citing this rule id
    over                             # score it as a finished game
    expect Ann: 7, farms 2, castles 5     # total first, then points per category (each optional)
    expect castle "Hilltop": Ann     # who holds a landmark (or nobody)
    expect winners: Ann
    expect cards Ann: "Hill walker"  # the mission cards a player holds (or none)
    expect public "Hill walker": Ann, Bob   # who fulfilled a face-up public mission, in order

Also: seed N, scores Ann 87, holds Ann: "CARD", set aside Ann: TILE..., supply Ann: TILE...,
missions "CARD"..., deck NAME: "CARD"..., setup refused RULE, record "game.json",
move ... choose NAME: decline | take TILE | keep TILE | double "CARD". A line ending in a comma
continues on the next. Nothing in a tests file runs code."""


GAME_HELP = ("a game record (JSON), a position in the notation (a file, or the text itself; docs/notation.md), "
             "a bundled example by name, or - for standard input")


def _at_option(p: argparse.ArgumentParser) -> None:
    """--at N: the game as of move N (the first N moves of the record played)."""
    p.add_argument("--at", type=count, metavar="N", help="as of move N: only the record's first N moves are played")


def _position_parser(sub: Any) -> None:
    """`rebirth position GAME`: a record's position as notation, or a notation as a record."""
    po = sub.add_parser("position", help="a game's position in the notation (docs/notation.md), or a notation as a "
                        "game record")
    po.add_argument("game", help=GAME_HELP)
    _record_options(po)
    _at_option(po)
    po.add_argument("--as", dest="viewer", metavar="NAME", help="write only what this player may see (the others' "
                    "hands and cards, the supplies' and decks' order: unknown)")
    po.add_argument("--record", action="store_true", help="write a game record (JSON) that starts from the "
                    "position (the default when GAME is a notation)")
    po.add_argument("--notation", action="store_true", help="write the notation (the default when GAME is a record)")
    po.add_argument("-o", "--output", help="write it here (default: print it); never over an input")


def _record_options(p: argparse.ArgumentParser) -> None:
    """Options of the commands that read a game record."""
    p.add_argument("--allow-paths", action="store_true",
                   help="let the record name rules or board files outside its own folder (records are exchanged: "
                   "by default only bundled games and files beside the record are read)")
    p.add_argument("--rules", help="use this ruleset (a file or bundled name) instead of the record's")
    p.add_argument("--board", help="use this board (a file or bundled name) instead of the record's")


def _export_options(p: argparse.ArgumentParser) -> None:
    """Options of the commands that write their games as a table (simulate, compare; play/export.py)."""
    p.add_argument("--out", metavar="DIR", help="write one row per game and seat into DIR: games.csv and games.json "
                   "(the run and the columns; docs/formats.md)")
    p.add_argument("--format", choices=["csv", "parquet"], default="csv", help="--out: parquet also writes "
                   "games.parquet (needs the extra [parquet]: pyarrow)")
    p.add_argument("--force", action="store_true", help="--out: replace the games.* files of an earlier run in DIR "
                   "(nothing else there is touched)")


def _check_export(args: argparse.Namespace) -> None:
    """Usage errors of the export options (exit 2), before any game is played."""
    from rebirth_dsl.play.export import usage_problem

    problem = usage_problem(args)
    if problem is not None:
        build_parser(args.command).error(problem)


def _review_parser(sub: Any) -> None:
    """`rebirth review GAME`: its options."""
    rv = sub.add_parser("review", help="judge every move of a game against the best move, from the mover's "
                        "information, and chart each player's chance to win")
    rv.add_argument("game", help=GAME_HELP)
    _record_options(rv)
    rv.add_argument("--playouts", type=count, default=100, help="playouts per candidate move (default 100)")
    rv.add_argument("--width", type=count, default=6, help="candidates per move: the one-ply evaluation's best "
                    "WIDTH, and the move played (default 6; 0: every legal move)")
    rv.add_argument("--agents", default="random", help="playout agent per seat, or one for all (default random: "
                    "on the native engine when it can run)")
    rv.add_argument("--seed", type=int, default=0, help="the playouts' seed")
    rv.add_argument("--backend", choices=["auto", "native", "python"], default="auto",
                    help="where random playouts run (as hint's --backend)")
    rv.add_argument("--workers", type=count, default=1, help="processes to share the moves between")
    rv.add_argument("--all", action="store_true", help="list every move, not only the marked ones")
    rv.add_argument("--json", action="store_true", help="print one JSON object")
    rv.add_argument("--plot", metavar="FILE", help="chart each player's chance to win after each move: FILE.png "
                    "or FILE.svg (needs the extra [lab]: matplotlib)")
    rv.add_argument("--annotate", metavar="OUT", help="write a copy of the record with a comment on each marked move")


def cmd_review(args: argparse.Namespace) -> int:
    """`rebirth review GAME`: every move against the best, marked, summed up and charted."""
    from pathlib import Path

    from rebirth_dsl.play.review import ReviewJob, annotated, render_review, review, write_plot
    from rebirth_dsl.records.games import game_data

    path, data, _ = game_data(args.game)  # a record, a notation (its moves: none), an example or -
    outs = {}
    for flag, value in (("--plot", args.plot), ("--annotate", args.annotate)):
        if value:  # refused before any playout: a bad name, or an input of the command
            if flag == "--plot" and Path(value).suffix.lower() not in (".png", ".svg"):
                build_parser("review").error(f"--plot {value}: name a .png or .svg file")
            outs[flag] = check_output(value, [path])
    if args.workers < 1:
        build_parser("review").error("--workers: at least 1")
    job = ReviewJob(str(path), data, args.allow_paths, find("rules", args.rules) if args.rules else None,
                    board_for(None, args.board) if args.board else None, args.playouts, args.width, args.agents,
                    args.backend, args.seed)
    rv = review(job, args.workers)
    rv["game"] = shown(path)
    import json  # JSON output only: a command reads its input's JSON with files.json_loads

    print(json.dumps(rv, indent=2, ensure_ascii=False) if args.json else render_review(rv, args.all))
    if "--plot" in outs:
        write_plot(rv, outs["--plot"])
        print(f"wrote {shown(outs['--plot'])}", file=sys.stderr if args.json else sys.stdout)
    if "--annotate" in outs:
        from rebirth_dsl.records.record import write_json_atomic

        write_json_atomic(outs["--annotate"], annotated(data if data is not None else load_json(path), rv))
        print(f"wrote {shown(outs['--annotate'])}", file=sys.stderr if args.json else sys.stdout)
    return EXIT_OK


def _position_options(p: argparse.ArgumentParser) -> None:
    """Options of the commands that play a set-up position on (runtime/complete.py)."""
    p.add_argument("--as-is", action="store_true", help="scenarios: score the position as it stands instead of "
                   "dealing what is left of the tiles and cards (seeded by --seed) and playing on")


def _playout_options(p: argparse.ArgumentParser, playouts: int, agents: str = "random") -> None:
    """Options of the commands that play the game out (eval --forecast, hint)."""
    p.add_argument("--agents", default=agents, help=f"playout agent per seat, or one for all (default {agents})")
    p.add_argument("--playouts", type=count, default=playouts, help=f"playouts (hint: per move; default {playouts})")
    p.add_argument("--seed", type=int, default=0, help="the playouts' seed")
    p.add_argument("--backend", choices=["auto", "native", "python"], default="auto",
                   help="where random playouts run: auto (native C when cffi and a compiler are there, else "
                   "Python), native or python; playouts by other agents always run on Python")


MAX_COUNT = 10**9  # games, players, workers, playouts, moves listed: far past any run that ends


def count(text: str) -> int:
    """An argument that counts something: an int of at most MAX_COUNT either way. The commands check their
    own ranges (2 to 4 players, at least 1 game), but a number too big for a list or an index (a list of
    -10**20 agents) raised OverflowError before they could."""
    n = int(text)  # argparse turns a ValueError into "invalid count value: 'x'"
    if abs(n) > MAX_COUNT:
        import argparse  # loaded already: argparse calls this

        raise argparse.ArgumentTypeError(f"{text[:20]}{'...' if len(text) > 20 else ''}: out of range (at most "
                                         f"{MAX_COUNT:,} either way)")
    return n


def port(text: str) -> int:
    """A TCP port: 0 to 65535."""
    n = int(text)
    if not 0 <= n <= 65535:
        import argparse  # loaded already: argparse calls this

        raise argparse.ArgumentTypeError(f"{text[:20]}: a port is 0 to 65535")
    return n


def _version() -> str:
    return f"rebirth-dsl {__version__}"


def program() -> int:
    """The `rebirth` program itself (the console script and `python -m rebirth_dsl`): `main` on the
    process's own command line, for a process that ends when it returns."""
    # Python collects its youngest generation every 700 allocations: while a command imports its modules
    # and builds its tables (objects that live to the end) it walks them again and again for nothing.
    # Every 10,000 here: cycles are still found, a little later. Only in the program's own process, as
    # below.
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    code = main()
    # Python's last act before exiting is a full garbage collection over every object still alive (the AST,
    # the compiled ruleset, the game): for a warm `rebirth eval` 22 M instructions of 400 M (callgrind), to
    # find cycles in memory the system takes back anyway. Frozen objects are left out of it; everything is
    # still released as the modules are torn down, and every file this package writes is closed before
    # here (files.write_text_atomic), so nothing waits on that collection. Only here, never in `main`: a
    # caller that goes on running (the tests, the API) keeps its collector whole.
    gc.freeze()
    return code


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand; errors are printed, never a traceback."""
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 is shown escaped, never a crash
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    argv = sys.argv[1:] if argv is None else argv
    try:  # parsing too: building the parsers imports modules, which needs free file descriptors
        args = _plain_args(argv)
        if args is None:
            args, unknown = build_parser(_command_of(argv)).parse_known_args(argv)
            if unknown:  # the error is the whole parser's, with every subcommand in its usage line
                args = build_parser().parse_args(argv)
        if getattr(args, "output", None) == "":  # else taken as no -o: `play --resume` wrote back to the record
            build_parser(args.command).error("argument -o/--output: an empty file name")
        args.argv = argv  # the command line as given, for the files that record their run (play/export.py)
        return int(COMMANDS[args.command](args) or 0)
    except RebirthError as e:
        print(e.render(), file=sys.stderr)
        return EXIT_PROBLEMS
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as e:
        if e.errno in _OUT_OF_RESOURCES:
            print(_resource_message(e), file=sys.stderr)  # the machine's limit, not a bug: say which and where
            return EXIT_PROBLEMS
        if e.filename is None:  # no file named: not the user's input, a read or write nothing guards
            return _internal(e)
        # the system refused a file the user named (a name too long, a link loop, no permission) where a
        # check such as Path.is_file() lets the error through: the file and the reason, as files.py says them
        print(f"{shown(e.filename)}: cannot use: {e.strerror or e}", file=sys.stderr)
        return EXIT_PROBLEMS
    except MemoryError:
        print("rebirth: out of memory", file=sys.stderr)
        return EXIT_PROBLEMS
    except Exception as e:  # noqa: BLE001 - the last line of defence: a message, not a traceback
        return _internal(e)


# errors that say the machine ran out of something (file descriptors, memory, disk), whatever the input
_OUT_OF_RESOURCES = frozenset(getattr(errno, n) for n in ("EMFILE", "ENFILE", "ENOMEM", "ENOSPC", "EDQUOT")
                              if hasattr(errno, n))


def _resource_message(e: OSError) -> str:
    """One line: what ran out, the file in use then, and what to do."""
    where = f" ({shown(e.filename)})" if e.filename else ""
    hint = {errno.EMFILE: "; close other files or raise the limit (ulimit -n)",
            errno.ENFILE: "; the whole system is out of open files"}.get(e.errno or 0, "")
    return f"rebirth: {e.strerror or e}{where}{hint}"


def _internal(e: BaseException) -> int:
    """Report a bug: the exception in one message, not a traceback."""
    print(f"rebirth: internal error: {type(e).__name__}: {e}\n(this is a bug in rebirth-dsl; "
          "please report it with the command you ran)", file=sys.stderr)
    return EXIT_INTERNAL


def cmd_check(args: argparse.Namespace) -> int:
    """`rebirth check RULES [--board BOARD]`."""
    from rebirth_dsl.check.checks import check  # see the start-up note at the top

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
        board_path: Path | None = None
        if args.board:
            board_path = board_for(None, args.board)
        elif rules_path is not None and not args.no_board:
            # a `board` statement that names no board is reported by the checks, at the statement
            board_path = board_for(rules_path, rules=rules, strict=False) if rules is not None else default_board(rules_path)
        if board_path is not None:
            board_file = str(board_path)
            board = load_board_view(board_path)
    except RebirthError as e:
        problems.extend(e.diagnostics)
    if rules is not None:
        problems.extend(check(rules, board, board_file=board_file, strict=args.strict))
    # A variant's own file is the author's to mend; a warning about a statement of a bundled base it extends
    # (a card the base's tile mix cannot meet) is the base's, as `rebirth check BASE` shows it: named in one
    # line, not counted against the variant by --strict. Errors are always shown, wherever they are.
    inherited = _inherited_warnings(problems, rules_path)
    from pathlib import Path  # the start-up note at the top: only where a command needs it
    problems = [d for d in problems if d not in inherited]
    errors = [d for d in problems if d.severity != "warning"]
    failed = bool(errors) or (args.strict and bool(problems))  # --strict: warnings fail too
    if args.json:
        import json  # JSON output only: a command reads its input's JSON with files.json_loads

        print(json.dumps([d.to_lsp() for d in [*problems, *inherited]], indent=2, ensure_ascii=False))
        return EXIT_PROBLEMS if failed else EXIT_OK
    for d in problems:
        print(d.render(), file=sys.stderr)
    for base in sorted({d.file for d in inherited}):
        n = sum(d.file == base for d in inherited)
        name = name_of("rules", Path(base)) or shown(base)
        print(f"note: {n} warning{'s' if n != 1 else ''} about the bundled ruleset {name}, which this extends: "
              f"`rebirth check {name}` shows {'them' if n != 1 else 'it'}", file=sys.stderr)
    if problems:
        warnings = len(problems) - len(errors)
        counts = [f"{n} {w}{'s' if n != 1 else ''}" for n, w in ((len(errors), "problem"), (warnings, "warning")) if n]
        print(", ".join(counts), file=sys.stderr)
    if failed:
        return EXIT_PROBLEMS
    assert rules is not None  # not failed: the rules loaded
    n = len(rules.statements) if rules else 0
    what = f" against {board_file} ({len(board.hexes)} hexes)" if board else ""
    print(f"{args.rules}: ok: ruleset {rules.header.name!r}, {n} statements{what}")
    return EXIT_OK


def _inherited_warnings(problems: list[Diagnostic], rules_path: Path | None) -> list[Diagnostic]:
    """The warnings that sit in a bundled ruleset other than the file checked (a base it extends)."""
    from pathlib import Path  # see the start-up note at the top

    if rules_path is None:
        return []
    own = rules_path.resolve()
    ours = {p.resolve() for p in bundled("rules").values()} - {own}
    return [d for d in problems if d.severity == "warning" and d.file and Path(d.file).resolve() in ours]


def _load_replay(args: argparse.Namespace) -> Any:
    """The game a command names (a record, a notation, an example or `-`: records.games), replayed (with the
    --rules/--board overrides, --allow-paths and --at)."""
    from rebirth_dsl.records.games import load_game  # the engine: only the commands that replay a game

    rules = find("rules", args.rules) if args.rules else None
    board = board_for(None, args.board) if args.board else None
    # a position's unknown parts are dealt with the command's seed (runtime/complete.py), and said; --as-is deals
    # nothing, so a position that does not say them is refused, saying which
    seed = None if getattr(args, "as_is", False) else getattr(args, "seed", None) or 0
    return load_game(args.game, allow_paths=args.allow_paths, rules=rules, board=board, at=getattr(args, "at", None),
                     deal_seed=seed)


def cmd_eval(args: argparse.Namespace) -> int:
    """`rebirth eval GAME [--json] [--explain]`."""
    from rebirth_dsl.present.report import evaluate, explain, render_table

    r = _load_replay(args)
    game = r.game
    dealt = None
    if args.forecast:
        game, dealt = _played_on(args, r, game.player_index(args.viewer) if args.viewer else None, None)
    elif r.loaded.dealt is not None:  # a position's unknown parts, dealt as it was loaded: said, as a forecast's
        dealt = _dealt_text(r, args)
    result = evaluate(game, _viewer(args, game))
    if dealt is not None:
        result["dealt"] = dealt
    if r.error is not None:
        result["error"] = {"move": r.error.index, "rule": r.error.rule, "message": r.error.diagnostics[0].message}
    if args.explain:
        result["events"] = explain(game)
        _annotations(r, result, args.at)
    if args.forecast:
        from rebirth_dsl.play.forecast import forecast, render_forecast  # playouts: not on eval's plain path

        viewer = game.player_index(args.viewer) if args.viewer else None
        result["forecast"] = forecast(game, viewer, args.agents, args.playouts, args.seed, args.backend)
    if args.json:
        import json  # JSON output only: a command reads its input's JSON with files.json_loads

        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        rec = r.loaded.record
        at = f" (as of move {args.at})" if args.at is not None else ""
        at += " from a position" if rec.setup.position is not None else ""
        print(f"{game.rs.title}: {len(rec.moves)} moves{at}, {len(game.players)} players"
              + (" (scenario)" if rec.scenario else ""))
        if dealt and not args.forecast:
            print(dealt)
        if args.explain:
            _print_explained(result)
        print(render_table(result, game.rs.categories))
        if args.forecast:
            print("\n" + (f"{dealt}\n" if dealt else "") + render_forecast(result["forecast"]))
    if r.error is not None:
        print(f"{args.game}: {r.error.render()}\nnothing after this move was applied", file=sys.stderr)
        return EXIT_PROBLEMS
    return EXIT_OK


def _annotations(r: Any, result: dict[str, Any], at: int | None) -> None:
    """eval --explain: the record's metadata, comments and variations beside the events (records.annotate)."""
    from rebirth_dsl.records.annotate import read_annotations

    result.update(read_annotations(r, at))


def _print_explained(result: dict[str, Any]) -> None:
    """eval --explain as text: the game's metadata and comment, then each event, a move's comment and its
    variations after its events."""
    from rebirth_dsl.records.annotate import render_annotated

    print(render_annotated(result))


def cmd_position(args: argparse.Namespace) -> int:
    """`rebirth position GAME [--at N] [--as NAME] [-o FILE]`: record -> notation, notation -> record."""
    from rebirth_dsl.records.games import game_data, position_for
    from rebirth_dsl.records.inputs import record_files
    from rebirth_dsl.records.position import record_of, write_position
    from rebirth_dsl.records.record import dumps

    if args.record and args.notation:
        build_parser("position").error("--record and --notation: one or the other")
    target = None
    if args.output:  # before any work: never over the game, nor a file it names (standard input is read once)
        path, data, _ = game_data(args.game) if args.game != "-" else (None, None, None)
        inputs = record_files(path, data, args.allow_paths) if path is not None and path.name != "<position>" else []
        target = check_output(args.output, inputs)
    rules = find("rules", args.rules) if args.rules else None
    board = board_for(None, args.board) if args.board else None
    pos, notation = position_for(args.game, args.allow_paths, rules, board, args.at, args.viewer)
    as_record = args.record or (notation and not args.notation)
    out = dumps(record_of(pos)) + "\n" if as_record else write_position(pos)
    if target is not None:
        write_text_atomic(target, out)
        print(f"wrote {shown(target)}")
    else:
        sys.stdout.write(out)
    return EXIT_OK


def _dealt_text(r: Any, args: argparse.Namespace) -> str:
    """What was dealt to a position's unknown parts, as runtime/complete.py says it."""
    seed = getattr(args, "seed", None) or 0
    return f"dealt (seed {seed}): " + ("; ".join(r.loaded.dealt) or "nothing: the position says it all")


def _viewer(args: argparse.Namespace, game: Any) -> int | None:
    """Whose view `eval` shows: --as, or with --forecast the player to move (the forecast's own viewer);
    None: the record's whole content (a record holds every card)."""
    if args.viewer:
        return int(game.player_index(args.viewer))
    return int(game.turn) if args.forecast and not game.is_over() else None


def _played_on(args: argparse.Namespace, r: Any, player: int | None, tile: tuple[int, int] | None) -> tuple[Any, str | None]:
    """A scenario position completed so that it plays on (runtime/complete.py), and what was dealt in words;
    any other game as it is (None: nothing dealt). --as-is keeps a scenario as it stands."""
    game = r.game
    if r.loaded.dealt is not None:  # a position whose unknown parts were dealt as it was loaded (records.games)
        return game, _dealt_text(r, args)
    if not game.scenario or game.is_over() or getattr(args, "as_is", False):
        return game, None
    from rebirth_dsl.runtime.complete import complete, known_of_record, render_dealt

    to_move = 0 if player is None else player
    done = complete(game, known_of_record(r.loaded.record, game, to_move, tile), args.seed)
    return done.game, render_dealt(done, args.seed)


def cmd_moves(args: argparse.Namespace) -> int:
    """`rebirth moves GAME [--tile KIND]`."""
    from rebirth_dsl.play.moves import legal_moves  # see the start-up note at the top
    r = _load_replay(args)
    if r.error is not None:
        raise RebirthError([*r.error.diagnostics])
    info = legal_moves(r.game, args.tile, args.player)
    if r.loaded.dealt is not None:  # a position's unknown parts, dealt as it was loaded: said
        info["dealt"] = _dealt_text(r, args)
        if not args.json:
            print(info["dealt"])
    if args.json:
        import json  # JSON output only: a command reads its input's JSON with files.json_loads

        print(json.dumps(info, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(_moves_text(info))
    return EXIT_OK


def _moves_text(info: dict[str, Any]) -> str:
    """`rebirth moves` as text: a line per legal hex with what the move does now."""
    head = f"{info['player']} to place {info['tile']}"
    if not info["in_hand"]:
        head += f" (not in hand: {info['player']} holds {', '.join(info['hand']) or 'nothing'}; what it would do)"
    lines = [head + (" (fallback hexes: no primary hex is free)" if info["fallback"] else "")]
    if not info["moves"]:
        lines.append("  no legal hex: the tile is passed")
    for mv in info["moves"]:
        q, rr = mv["hex"]
        lines.append(f"  ({q:>3},{rr:>3}) {mv['hex_kind']:<11} {mv['points']:+3d}  {mv['does']}")
    return "\n".join(lines)


def cmd_hint(args: argparse.Namespace) -> int:
    """`rebirth hint GAME`: the legal moves ranked by expected final margin."""
    from rebirth_dsl.play.forecast import hint, render_hint  # imported by the commands that play out only

    r = _load_replay(args)
    if r.error is not None:
        raise RebirthError([*r.error.diagnostics])
    game = r.game
    player = game.player_index(args.player) if args.player else None
    tile = game.rs.parse_tile(args.tile) if args.tile else None
    game, dealt = _played_on(args, r, player, tile)
    if dealt is not None:
        player = None  # the completed position: its player to move holds the tile
    result = hint(game, player, tile, args.agents, args.playouts, args.seed, args.backend, width=args.width)
    if dealt is not None:
        result["dealt"] = dealt
    text = render_hint(result, max(1, args.top))
    import json  # JSON output only: a command reads its input's JSON with files.json_loads

    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else (f"{dealt}\n" if dealt else "") + text)
    return EXIT_OK


def cmd_draw(args: argparse.Namespace) -> int:
    """`rebirth draw FILE [-o out.svg]`."""
    from rebirth_dsl.present.render import draw  # see the start-up note at the top
    from rebirth_dsl.records.inputs import record_files  # draw's own: not on eval's path

    path, data = _drawn(args.file)
    # before any work is done; a record's rules (and the files they extend) and board are inputs too
    target = check_output(args.output, record_files(path, data, args.allow_paths)) if args.output else None
    out = draw(shown(path), data, svg=target is not None, allow_paths=args.allow_paths)
    if target is not None:
        write_text_atomic(target, out)
        print(f"wrote {shown(target)}")
    else:
        print(out)
    return EXIT_OK


def _drawn(arg: str) -> tuple[Any, Any]:
    """What `draw` draws: a board or a record (a file or a bundled board by name), or a position in the
    notation (a file, the text, or `-`), as the record that starts from it (records.games)."""
    from pathlib import Path

    from rebirth_dsl.records.games import game_data, is_notation

    try:
        notation_file = not arg.endswith(".json") and Path(arg).is_file()
    except (OSError, ValueError):
        notation_file = False
    if arg == "-" or is_notation(arg) or notation_file:
        path, data, _ = game_data(arg)
        if data is not None:  # `<stdin>` and `<position>`: names relative to the current folder
            return path, data
    path = find("boards", arg)
    return path, load_json(path)


def cmd_play(args: argparse.Namespace) -> int:
    """`rebirth play`: one full game."""
    from rebirth_dsl.play.loop import play_command  # see the start-up note at the top
    return play_command(args)


def cmd_simulate(args: argparse.Namespace) -> int:
    """`rebirth simulate`: many games."""
    from rebirth_dsl.play.simulate import simulate_command  # see the start-up note at the top
    _check_export(args)
    _native_map_stats(args)
    return simulate_command(args)


def _native_map_stats(args: argparse.Namespace) -> None:
    """--map-stats with --backend native: a usage error (the native engine keeps no per-hex data)."""
    if args.map_stats is not None and args.backend == "native":
        from rebirth_dsl.play.mapstats import NATIVE_MAP_STATS
        build_parser(args.command).error(NATIVE_MAP_STATS)


def cmd_compare(args: argparse.Namespace) -> int:
    """`rebirth compare BASE VARIANT`: the balance lab."""
    from rebirth_dsl.play.lab import compare_command  # statistics and plots: imported by this command only
    _check_export(args)
    _native_map_stats(args)
    return compare_command(args)


def cmd_serve(args: argparse.Namespace) -> int:
    """`rebirth serve`: the web app, until interrupted."""
    try:  # an optional extra: the rest of the package never needs Starlette or uvicorn
        from rebirth_dsl.web.app import serve
    except ImportError as e:
        raise RebirthError.single(f"`rebirth serve` needs the web extra ({e.name} is missing): "
                                  "pip install 'rebirth-dsl[web]'") from None
    from pathlib import Path  # only for the --data folder

    serve(args.host, args.port, Path(args.data) if args.data else None, max(0.0, args.agent_delay),
          allow_hosts=args.allow_host, local_files=args.local_files)
    return EXIT_OK


def cmd_rules(args: argparse.Namespace) -> int:
    """`rebirth rules RULES`: the ruleset in English."""
    from rebirth_dsl.present.describe import describe  # start-up note at the top
    if (args.board or args.base_board) and not args.diff:
        build_parser("rules").error("--board and --base-board are the two sides of --diff BASE")
    rules_path = find("rules", args.rules)
    rules = load_rules(rules_path)
    if args.diff:
        from rebirth_dsl.present.changes import describe_diff

        base_path = find("rules", args.diff)
        old, new = (find("boards", b) if b else default_board(p)
                    for b, p in ((args.base_board, base_path), (args.board, rules_path)))
        # the boards are diffed only when both sides have one and they are not the same file
        if old is None or new is None or old.resolve() == new.resolve():
            print(describe_diff(load_rules(base_path), rules))
        else:
            print(describe_diff(load_rules(base_path), rules, load_board_view(old), load_board_view(new)))
        return EXIT_OK
    print(describe(rules))
    return EXIT_OK


def cmd_test(args: argparse.Namespace) -> int:
    """`rebirth test FILE [--rules R]`: a tests file's positions, played and judged."""
    from rebirth_dsl.present.testrun import run_tests, summary, tests_path  # this command's own

    path = tests_path(args.file)
    outcomes = run_tests(path, rules=find("rules", args.rules) if args.rules else None)
    for o in outcomes:
        for d in o.failures:
            print(d.render(), file=sys.stderr)
    line = summary(path, outcomes)
    failed = any(o.failures for o in outcomes)
    print(line, file=sys.stderr if failed else sys.stdout)
    return EXIT_PROBLEMS if failed else EXIT_OK


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


def cmd_fmt(args: argparse.Namespace) -> int:
    """`rebirth fmt [FILE...] [--check] [--stdout]`: rules files in the canonical layout, written in place."""
    import os

    from rebirth_dsl.files import decode_text, read_text
    from rebirth_dsl.lang.fmt import format_rules  # see the start-up note at the top
    from rebirth_dsl.lang.limits import MAX_RULES_BYTES

    paths: list[str] = []
    for target in args.files or ["."]:
        if target != "-" and os.path.isdir(target):  # a folder: its rules files, but not in hidden folders
            for top, dirs, names in os.walk(target):  # (.git, .venv) nor in a virtual environment
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and not os.path.exists(os.path.join(top, d, "pyvenv.cfg")))
                paths.extend(os.path.normpath(os.path.join(top, n)) for n in sorted(names) if n.endswith(".rules")
                             and not n.startswith("."))
        else:
            paths.append(target)
    failed = False
    changed: list[str] = []
    for path in paths:
        name = "<stdin>" if path == "-" else shown(path)
        try:
            if path == "-":
                data = sys.stdin.buffer.read(MAX_RULES_BYTES + 1)
                if len(data) > MAX_RULES_BYTES:
                    raise RebirthError.single(f"rules are over the limit of {MAX_RULES_BYTES:,} bytes", file=name)
                text = decode_text(data, name, "rules")
            else:
                text = read_text(path, "rules", MAX_RULES_BYTES)
            formatted = format_rules(text, name)
            if formatted != text:
                changed.append(name)
            if args.check:
                continue
            if args.stdout or path == "-":
                sys.stdout.write(formatted)
            elif formatted != text:
                out = check_output(path)
                mode = out.stat().st_mode & 0o7777
                write_text_atomic(out, formatted)
                if out.stat().st_mode & 0o7777 != mode:  # the file keeps its permissions, as an editor's save does
                    os.chmod(out, mode)
                print(f"formatted {name}")
        except RebirthError as e:
            print(e.render(), file=sys.stderr)
            failed = True
    if args.check:
        for name in changed:
            print(name)
        if changed:
            print(f"{len(changed)} of {len(paths)} rules files would be reformatted; run `rebirth fmt` on them",
                  file=sys.stderr)
    elif not paths:
        print(f"no .rules files in {', '.join(map(shown, args.files or ['.']))}", file=sys.stderr)
    return EXIT_PROBLEMS if failed or (args.check and changed) else EXIT_OK
def cmd_new(args: argparse.Namespace) -> int:
    """`rebirth new variant NAME --extends BASE`: a variant's starting files in the current folder."""
    from pathlib import Path  # only for the current folder

    from rebirth_dsl.records.starter import new_variant  # writing files: this command's own

    written = new_variant(args.name, args.base or name_of("rules", default_rules()) or str(default_rules()), Path("."))
    for p in written:
        print(f"wrote {shown(p)}")
    rules = next((p for p in written if p.suffix == ".rules"), None)
    if rules is not None:
        print(f"next: edit it, then `rebirth check {shown(rules)}` and `rebirth play --rules {shown(rules)}`")
    return EXIT_OK


def cmd_board(args: argparse.Namespace) -> int:
    """`rebirth board build MAP -o BOARD.json [--check]`: a board made from a map file."""
    from rebirth_dsl.board.maps import load_map, render_board  # see the start-up note at the top
    map_path = find("boards/maps", args.map)
    out = check_output(args.output, [map_path])
    data = load_map(map_path)
    text = render_board(data)
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
    write_text_atomic(out, text)
    print(f"wrote {out}: {len(data['hexes'])} hexes")
    return EXIT_OK


def cmd_lsp(args: argparse.Namespace) -> int:
    """`rebirth lsp [--board BOARD]`: the editor server, until the editor closes it."""
    try:
        # pygls is an optional extra (rebirth-dsl[lsp]): imported only by this command, so the others need
        # not have it installed
        from rebirth_dsl.lsp.server import serve
    except ImportError as e:
        if (e.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        print(f"rebirth lsp: {e.name} is not installed; install the extra: pip install 'rebirth-dsl[lsp]'",
              file=sys.stderr)
        return EXIT_USAGE
    return serve(board=args.board)


COMMANDS = {"check": cmd_check, "eval": cmd_eval, "moves": cmd_moves, "hint": cmd_hint, "draw": cmd_draw, "play": cmd_play,
            "simulate": cmd_simulate, "compare": cmd_compare, "serve": cmd_serve, "rules": cmd_rules, "test": cmd_test, "list": cmd_list,
            "fmt": cmd_fmt, "board": cmd_board, "lsp": cmd_lsp, "new": cmd_new, "review": cmd_review,
            "position": cmd_position}
