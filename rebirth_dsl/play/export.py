"""`--out DIR` of `rebirth simulate` and `rebirth compare`: the games as a table, one row per game and seat,
for pandas, polars or DuckDB (the columns: docs/formats.md, "Game tables").

DIR receives `games.csv` (always; the standard library's csv), `games.parquet` (`--format parquet`, with the
`parquet` extra: pyarrow) and `games.json` (the run: command, seed, players, agents, rulesets with their
SHA-256, version, and the column schema), each written to a temp file and renamed into place, the metadata
last. DIR may exist and hold other files, which are never touched; it is created when missing (its parent
must exist). A DIR that already holds a `games.*` file of an earlier run is refused unless `--force`, which
replaces those files only (a `games.parquet` this run does not write is removed, so the folder never mixes
two runs). Every refusal comes before the first game is played.

Compare writes both sides into one table, told apart by `side` (base, variant) and paired by `seed`. A
category that one ruleset lacks is an empty cell (null) on that ruleset's rows, not 0: it was not scored,
and a row's categories still sum to its total.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rebirth_dsl import __version__
from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import (
    atomic_file,
    check_output,
    check_output_folder,
    read_bytes,
    shown,
    write_text_atomic,
)
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.records.resources import name_of

if TYPE_CHECKING:  # simulate and lab import this module: nothing of theirs is imported at run time
    from rebirth_dsl.play.simulate import GameResult

CSV, PARQUET, META = "games.csv", "games.parquet", "games.json"
OURS = (CSV, PARQUET, META)
FORMAT_VERSION = 1
PARQUET_EXTRA = "pip install 'rebirth-dsl[parquet]'"


@dataclass(frozen=True)
class Column:
    """A column of the table: its name, its type (int, str, bool) and what it holds."""

    name: str
    type: str
    about: str
    nullable: bool = False


# the columns before the categories, and after them; a category is a column named after it
HEAD = [
    Column("game", "int", "the game's index in the run, from 0"),
    Column("seed", "int", "the game's seed (seed * 1,000,000 + game): `rebirth play --seed` replays it"),
    Column("side", "str", "compare only: base or variant (both sides play the same seeds)"),
    Column("seat", "int", "the seat, from 1 (the first player starts)"),
    Column("player", "str", "the player's name in the seat (Ann, Bob, Cat, Dan)"),
    Column("players", "int", "players in the game"),
    Column("agent", "str", "the agent that played the seat, with its options"),
]
TAIL = [
    Column("total", "int", "the seat's final score: the sum of its category columns"),
    Column("place", "int", "1 for each winner; below them, 1 + the players ahead (equal totals share a place)"),
    Column("winner", "bool", "the seat won, alone or shared (the ruleset's tie-breaks decide first)"),
    Column("winners", "int", "how many seats won the game: more than 1 is a shared win"),
    Column("moves", "int", "the game's length in moves, passes included (the same on every seat's row)"),
    Column("passes", "int", "tiles this seat passed because no hex was legal"),
    Column("fallbacks", "int", "tiles this seat placed on a fallback hex"),
    Column("rules", "str", "the rules file: a bundled name, or the path as given"),
    Column("board", "str", "the board file: a bundled name, or the path as given"),
    Column("rules_sha256", "str", "SHA-256 of the rules texts: the file and every file it extends, in order"),
    Column("board_sha256", "str", "SHA-256 of the board file's bytes"),
]
FIXED = {c.name for c in HEAD + TAIL}


@dataclass
class Target:
    """Where the tables go, checked before any game is played, and the rulesets' files as they were then."""

    folder: Path
    parquet: bool
    force: bool
    files: list[dict[str, str]] = field(default_factory=list)  # per side: rules, board and their digests


def parquet_missing() -> str | None:
    """The module `--format parquet` lacks (pyarrow), or None when it can write Parquet."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:
        return e.name or "pyarrow"
    return None


def usage_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the export options as options (the command line reports it as a usage error,
    exit 2), or None."""
    out = getattr(args, "out", None)
    fmt = getattr(args, "format", "csv")
    if out is None:
        if fmt != "csv":
            return f"--format {fmt} needs --out DIR"
        if getattr(args, "force", False):
            return "--force needs --out DIR"
        return None
    if out == "":
        return "--out: an empty folder name"
    if fmt == "parquet":
        missing = parquet_missing()
        if missing is not None:
            return f"--format parquet needs pyarrow ({missing} cannot be imported): {PARQUET_EXTRA}"
    return None


def _name(path: Path, folder: str) -> str:
    return name_of(folder, path) or shown(path)


def file_digests(rules: Path, board: Path) -> dict[str, str]:
    """The rules and board a side plays, by name, with the SHA-256 of what they hold now."""
    texts = load_rules(rules).sources  # the file and the files it extends, as the parser read them
    h = hashlib.sha256()
    for text in texts.values():
        data = text.encode("utf-8")
        h.update(len(data).to_bytes(8, "big") + data)
    return {"rules": _name(rules, "rules"), "board": _name(board, "boards"), "rules_sha256": h.hexdigest(),
            "board_sha256": hashlib.sha256(read_bytes(board, "JSON file")).hexdigest()}


def _input_files(rules: Path, board: Path) -> list[Path]:
    out = [rules, board]
    for name in load_rules(rules).sources:
        p = Path(name)
        if p.is_file():
            out.append(p)
    return out


def prepare(args: argparse.Namespace, sides: Sequence[tuple[Path, Path]]) -> Target | None:
    """The export target of `--out DIR` (None without it), refused now if it cannot be written: DIR a file,
    its parent missing or read-only, a `games.*` file there from an earlier run (without --force), a link,
    or an input of the command."""
    out = getattr(args, "out", None)
    if out is None:
        return None
    folder = check_output_folder(out, "--out")
    name = shown(folder)
    if folder.is_dir():
        inputs = [p for r, b in sides for p in _input_files(r, b)]
        force = bool(getattr(args, "force", False))
        earlier = []
        for f in OURS:
            p = folder / f
            if os.path.lexists(p):
                check_output(p, inputs)  # a link, a device, a folder or an input is never written over
                earlier.append(f)
        if earlier and not force:
            raise RebirthError.single(f"--out: {', '.join(earlier)} of an earlier run in this folder: not "
                                      "overwritten (--force replaces the games.* files; nothing else in the "
                                      "folder is touched)", file=name)
    parquet = getattr(args, "format", "csv") == "parquet"
    return Target(folder, parquet, bool(getattr(args, "force", False)), [file_digests(r, b) for r, b in sides])


# ----- rows ------------------------------------------------------------------------------------------
def columns(categories: Sequence[str], with_side: bool, nullable: Sequence[str] = ()) -> list[Column]:
    """The table's columns: HEAD, one per category (`NAME_points` where a name is taken), TAIL."""
    head = [c for c in HEAD if with_side or c.name != "side"]
    cats = [Column(category_column(c), "int", f"points scored in the category `{c}`", c in nullable)
            for c in categories]
    return head + cats + TAIL


def category_column(category: str) -> str:
    """The column of a category: its name, unless a fixed column has it."""
    return f"{category}_points" if category in FIXED else category


def place(totals: Sequence[int], winners: Sequence[int], q: int) -> int:
    """The seat's finishing place: 1 for every winner; else 1 + the seats ahead of it (a higher total, or
    the same total and a winner)."""
    return 1 if q in winners else 1 + sum(
        1 for p, t in enumerate(totals) if p != q and (t > totals[q] or (t == totals[q] and p in winners)))


def seat_rows(results: Sequence[GameResult], rs: Ruleset, agents: Sequence[str], seeds: Sequence[int],
              files: dict[str, str], side: str | None = None) -> Iterator[dict[str, Any]]:
    """One row per game and seat, in game then seat order (`seeds`: each game's seed), made as they are
    written: a run's table is never held whole in memory."""
    cats = [category_column(c) for c in rs.categories]
    for i, (totals, breakdown, winners, extra) in enumerate(results):
        n = len(totals)
        for q in range(n):
            row: dict[str, Any] = {"game": i, "seed": seeds[i]}
            if side is not None:
                row["side"] = side
            row.update({"seat": q + 1, "player": DEFAULT_NAMES[q], "players": n, "agent": agents[q]})
            row.update(zip(cats, breakdown[q], strict=True))
            row.update({"total": totals[q], "place": place(totals, winners, q), "winner": q in winners,
                        "winners": len(winners), "moves": extra.length, "passes": extra.passes[q],
                        "fallbacks": extra.fallbacks[q], **files})
            yield row


Rows = Callable[[], Iterable[dict[str, Any]]]  # the table's rows, afresh at each call (one pass a file)


# ----- files -----------------------------------------------------------------------------------------
def write_csv(f: IO[str], cols: Sequence[Column], rows: Iterable[dict[str, Any]]) -> int:
    """The rows as CSV: a header of column names; booleans `true`/`false`, a missing value an empty cell.
    Returns the number of rows."""
    w = csv.writer(f, lineterminator="\n")
    w.writerow([c.name for c in cols])
    bools = {c.name for c in cols if c.type == "bool"}
    n = 0
    for r in rows:
        w.writerow(["" if (v := r.get(c.name)) is None else ("true" if v else "false") if c.name in bools else v
                    for c in cols])
        n += 1
    return n


BATCH = 65_536  # rows per Parquet row group


def write_parquet(f: IO[bytes], cols: Sequence[Column], rows: Iterable[dict[str, Any]], meta: dict[str, Any]) -> None:
    """The rows as Parquet, a row group per BATCH rows (int64, string and bool columns; games.json in the
    file's metadata under `rebirth_dsl.games`)."""
    import pyarrow as pa  # the parquet extra: imported only when asked for
    import pyarrow.parquet as pq

    types = {"int": pa.int64(), "str": pa.string(), "bool": pa.bool_()}
    schema = pa.schema([pa.field(c.name, types[c.type], nullable=c.nullable or c.name == "side") for c in cols],
                       metadata={"rebirth_dsl.games": json.dumps(meta)})
    with pq.ParquetWriter(pa.PythonFile(f, mode="w"), schema) as writer:
        it = iter(rows)
        while batch := list(islice(it, BATCH)):
            writer.write_table(pa.table({c.name: pa.array([r.get(c.name) for r in batch], type=types[c.type])
                                         for c in cols}, schema=schema))


def write(target: Target, cols: Sequence[Column], rows: Rows, meta: dict[str, Any]) -> list[Path]:
    """Write the tables and the metadata (last) into the folder; return the files written."""
    folder = target.folder
    try:
        folder.mkdir(exist_ok=True)
    except OSError as e:
        raise RebirthError.single(f"--out: cannot create the folder: {e.strerror or e}", file=shown(folder)) from None
    meta = {**meta, "files": [CSV, *([PARQUET] if target.parquet else [])],
            "columns": [{"name": c.name, "type": c.type, "nullable": c.nullable, "about": c.about} for c in cols]}
    exclusive = not target.force  # never over a file made since the check, unless told to replace ours
    with atomic_file(folder / CSV, exclusive) as f:
        meta["rows"] = write_csv(f, cols, rows())
    written = [folder / CSV]
    if target.parquet:
        with atomic_file(folder / PARQUET, exclusive, binary=True) as fb:
            write_parquet(fb, cols, rows(), meta)
        written.append(folder / PARQUET)
    elif (folder / PARQUET).exists():  # --force: an earlier run's Parquet would not match this run's CSV
        (folder / PARQUET).unlink()
    write_text_atomic(folder / META, json.dumps(meta, indent=2, ensure_ascii=False) + "\n", exclusive=exclusive)
    return [*written, folder / META]


def _run(args: argparse.Namespace, command: str, agents: Sequence[str]) -> dict[str, Any]:
    argv = getattr(args, "argv", None)
    return {
        "format": "rebirth-dsl games", "format_version": FORMAT_VERSION, "rebirth_dsl": __version__,
        "command": command, "argv": ["rebirth", *argv] if argv is not None else None,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "games": args.games, "players": args.players, "agents": list(agents), "seed": args.seed,
        "backend": args.backend, "workers": args.workers,
    }


def export_simulate(target: Target, args: argparse.Namespace, rs: Ruleset, agents: Sequence[str],
                    results: Sequence[GameResult], seeds: Sequence[int], content: str = "") -> list[Path]:
    """`simulate --out`: the run's games (game i played from seeds[i]), one row per game and seat."""
    files = target.files[0]
    meta = _run(args, "simulate", agents)
    meta["rulesets"] = [{**files, "title": rs.title, "categories": list(rs.categories), "content": content}]
    return write(target, columns(rs.categories, False), lambda: seat_rows(results, rs, agents, seeds, files), meta)


def export_compare(target: Target, args: argparse.Namespace, agents: Sequence[str], sides: Sequence[Any],
                   seeds: Sequence[int]) -> list[Path]:
    """`compare --out`: both sides' games in one table, `side` base or variant, paired by `seed`; the
    categories are the union (the base's in order, then the variant's own), null where a side lacks one."""
    names = ("base", "variant")
    cats: list[str] = []
    for s in sides:
        cats += [c for c in s.rs.categories if c not in cats]
    lacking = [c for c in cats if any(c not in s.rs.categories for s in sides)]
    meta = _run(args, "compare", agents)
    meta["rulesets"] = [{"side": n, **f, "title": s.rs.title, "categories": list(s.rs.categories)}
                        for n, f, s in zip(names, target.files, sides, strict=True)]
    def rows() -> Iterator[dict[str, Any]]:
        for n, f, s in zip(names, target.files, sides, strict=True):
            yield from seat_rows(s.results, s.rs, agents, seeds, f, n)

    return write(target, columns(cats, True, lacking), rows, meta)
