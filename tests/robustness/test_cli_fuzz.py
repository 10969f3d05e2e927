"""A seeded fuzz of the whole command line: hostile rules files, maps, boards, records and argument values fed
to every command that reads files (check, rules, eval, moves, hint, draw, play, play --resume, simulate,
compare, board build, list), run in this process.

Every input must end in exit 0, 1 or 2 (never 70, the internal error), with no traceback or "internal
error" on stderr, within a time bound, and without changing any file the command was given. The default
run is small; `REBIRTH_FUZZ_CLI=10000 pytest tests/robustness/test_cli_fuzz.py` raises the count (and
REBIRTH_FUZZ_SEED changes the seed). Failures are gathered by their class (the exception's first line)
and reported together, each with a command that reproduces it.

Not fuzzed: `serve` and `lsp` (servers that run until stopped), and workers > 1 (processes of their own).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# run as a script (see the end) as well: the shared helpers are in tests/, one folder up
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import BOARDS, ROOT, RULES  # noqa: E402

COUNT = int(os.environ.get("REBIRTH_FUZZ_CLI", "300"))
SEED = int(os.environ.get("REBIRTH_FUZZ_SEED", "20261201"))
LIMIT = 30  # seconds per input: every generated command is small (a few games, a playout or two)

ODD_TEXT = ["\ufeff", "\u202e", "\u200b", "\u0301", "\U0001f600", "\x00", "\r", "\r\n", "\t", "\x0b", "\x1b[2J",
            "\u2028", "\udcff", "é", "ß", "١٢٣", "𝟗", "\uffff", "\\", '"', "'", "#", "{", "}", "(", ")", ":", ","]
BIG_NUMBERS = ["9" * 5000, "9" * 4301, str(2**64), str(2**63 - 1), "-" + "9" * 30, "1e309", "0" * 5000 + "1",
               "1_000", "0x10", "-0", "00", "4" * 20]
RULES_WORDS = ["ruleset", "extends", "players", "to", "hex", "tiles", "place", "on", "score", "at", "end", "majority",
               "area", "on place", "when", "pass", "without", "class", "landmark", "deck", "mission", "x3", "per",
               "if", "else", "max", "min", "and", "or", "not", ">=", "==", "+", "*", "-", "/", "as", "food", "farms",
               "castle", "settlement", "plain", "sea", "every", "adjacent", "count", "one tile per hex",
               "turns clockwise", "when no hex is legal: pass", "public", "private", "ability", "tie"]
JSON_ODD: list[Any] = [None, True, False, 0, -1, 1, 2, 3, 5, 2**31, -(2**63), 10**30, 1.5, -0.0, float("inf"),
                       float("-inf"), float("nan"), "", "x", "scotland", "../x.rules", "/etc/passwd", "\x00", "é" * 3,
                       "food", "settlement:9", "settlement:-1", "castle", [], [None], [0, 0], [9999, 9999],
                       [-(10**20), 0], {}, {"a": 1}, ["Ann"], ["Ann", "Ann"], [1, 2, 3], "9" * 5000]


class Hang(BaseException):
    """The alarm: a BaseException, so the command line's handlers do not catch it."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


# ----- mutations ---------------------------------------------------------------------------------------
def mutate_text(rng: random.Random, text: str) -> str:
    """A text with one to three hostile edits: flips, cuts, odd characters, huge numbers, deep nesting..."""
    for _ in range(rng.randint(1, 3)):
        n = len(text)
        i = rng.randint(0, n)
        kind = rng.randrange(14)
        if kind == 0 and n:  # a flipped character
            text = text[:i] + chr(rng.randint(0, 0x2FF)) + text[i + 1:]
        elif kind == 1:  # truncated
            text = text[:i]
        elif kind == 2:
            text = text[:i] + rng.choice(ODD_TEXT) * rng.choice([1, 2, 50]) + text[i:]
        elif kind == 3:  # a number replaced by a huge or odd one
            nums = [m.span() for m in re.finditer(r"\d+", text)]
            if nums:
                a, b = rng.choice(nums)
                text = text[:a] + rng.choice(BIG_NUMBERS) + text[b:]
        elif kind == 4:  # deep nesting
            depth = rng.choice([50, 300, 3000])
            text = text[:i] + "(" * depth + "1" + ")" * rng.choice([depth, 0]) + text[i:]
        elif kind == 5:
            text = "\ufeff" + text
        elif kind == 6:
            text = text.replace("\n", "\r\n")
        elif kind == 7:  # a line deleted, duplicated or moved
            lines = text.splitlines(keepends=True)
            if lines:
                j = rng.randrange(len(lines))
                line = lines.pop(j)
                if rng.random() < 0.6:
                    lines.insert(rng.randrange(len(lines) + 1), line * rng.choice([1, 2]))
                text = "".join(lines)
        elif kind == 8:
            text = text[:i] + " " + rng.choice(RULES_WORDS) + " " + text[i:]
        elif kind == 9:  # a word replaced by another
            words = [m.span() for m in re.finditer(r"[A-Za-z_]+", text)]
            if words:
                a, b = rng.choice(words)
                text = text[:a] + rng.choice(RULES_WORDS) + text[b:]
        elif kind == 10:
            text = text[:i] + "\x00" + text[i:]
        elif kind == 11:  # a line repeated many times
            lines = text.splitlines(keepends=True)
            if lines:
                j = rng.randrange(len(lines))
                lines[j] = lines[j] * rng.choice([10, 200])
                text = "".join(lines)
        elif kind == 12:  # a very long line or name
            text = text[:i] + rng.choice(["a", "9", " ", "x_"]) * rng.choice([1000, 20000]) + text[i:]
        else:
            text = text[:i] + text[i:][::-1][: rng.randint(0, 40)] + text[i:]
    return text


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """Bytes with hostile edits below the text level: invalid UTF-8, UTF-16, NULs, cuts."""
    kind = rng.randrange(5)
    i = rng.randint(0, len(data))
    if kind == 0 and data:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 1:
        return data[:i] + bytes([rng.choice([0x80, 0xC3, 0xE2, 0xF0, 0xFF, 0xFE])]) + data[i:]
    if kind == 2:
        return b"\xff\xfe" + data.decode("utf-8", "replace").encode("utf-16-le")[:2000]
    if kind == 3:
        return data[:i]
    return data[:i] + b"\x00" * rng.randint(1, 3) + data[i:]


def _paths(obj: Any, here: tuple = ()) -> list[tuple]:
    """Every path into a JSON value (keys and indexes), the root included."""
    out = [here]
    if len(here) > 12:  # deep enough: nesting is its own mutation
        return out
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(_paths(v, here + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:40]):  # enough places: a board has hundreds of hexes
            out.extend(_paths(v, here + (i,)))
    return out


def _deep(rng: random.Random) -> Any:
    depth = rng.choice([100, 990, 5000])
    value: Any = 0
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"a": value}
    return value


def mutate_json(rng: random.Random, data: Any) -> Any:
    """A JSON value with one to three type confusions, removals, odd values or deep nesting."""
    data = json.loads(json.dumps(data))
    for _ in range(rng.randint(1, 3)):
        paths = _paths(data)
        path = rng.choice(paths)
        parent: Any = None
        node = data
        for k in path:
            parent, node = node, node[k]
        kind = rng.randrange(7)
        new: Any
        if kind == 0:
            new = rng.choice(JSON_ODD)
        elif kind == 1:
            new = _deep(rng)
        elif kind == 2 and isinstance(node, list) and node:  # a list shortened, lengthened or emptied
            new = rng.choice([node[:1], node * 3, [], node[::-1], node + [rng.choice(JSON_ODD)]])
        elif kind == 3 and isinstance(node, int) and not isinstance(node, bool):
            new = rng.choice([node + 1, -node, node * 10**6, 10**5000 if rng.random() < 0.3 else 10**20])
        elif kind == 4 and isinstance(node, str):
            new = node + rng.choice(ODD_TEXT) if rng.random() < 0.5 else rng.choice(JSON_ODD)
        else:
            new = None
            if parent is not None and kind in (5, 6):  # a key or element removed, or an unknown key added
                key = path[-1]
                if isinstance(parent, dict):
                    if kind == 5:
                        del parent[key]
                    else:
                        parent[rng.choice(["extra", "hexes", "moves", "record", "rules", "board"])] = \
                            rng.choice(JSON_ODD)
                elif isinstance(parent, list) and parent:
                    parent.pop(key)
                continue
            new = rng.choice(JSON_ODD)
        if not path:
            data = new
        else:
            parent[path[-1]] = new
        if kind == 1:
            break  # the nesting stays as made: walking it again would be the fuzzer's own recursion
    return data


def dump_json(rng: random.Random, data: Any) -> bytes:
    """JSON text of `data` (NaN and Infinity as Python writes them), at times mangled below the JSON level."""
    try:
        text = json.dumps(data, ensure_ascii=rng.random() < 0.5)
    except (ValueError, RecursionError):  # an int of over 4,300 digits, nesting past Python's limit
        text = "[" * 100_000 if rng.random() < 0.5 else '{"hexes": ' + "9" * 5000 + "}"
    raw = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.15:
        raw = mutate_bytes(rng, raw)
    return raw


# ----- the inputs ------------------------------------------------------------------------------------------
class World:
    """The files a fuzzed command reads, in a folder of their own, rewritten for every input."""

    def __init__(self, folder: Path) -> None:
        self.dir = folder
        self.base_rules = (RULES / "scotland.rules").read_text(encoding="utf-8")
        self.ireland = (RULES / "ireland.rules").read_text(encoding="utf-8")
        self.board = json.loads((BOARDS / "scotland.json").read_text(encoding="utf-8"))
        self.map = (BOARDS / "maps" / "scotland.txt").read_text(encoding="utf-8")
        self.records = [json.loads(p.read_text(encoding="utf-8")) for p in
                        (ROOT / "examples" / "unfinished.json", ROOT / "examples" / "scotland-2p.json",
                         ROOT / "examples" / "scenario-120.json")]

    def reset(self) -> None:
        """Only the unmutated inputs in the folder."""
        for p in self.dir.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
        (self.dir / "base.rules").write_text(self.base_rules, encoding="utf-8")
        (self.dir / "v.rules").write_text('ruleset v "V" extends "base.rules"\nplayers 2 to 3\n', encoding="utf-8")
        (self.dir / "board.json").write_text(json.dumps(self.board), encoding="utf-8")
        (self.dir / "map.txt").write_text(self.map, encoding="utf-8")

    def write(self, name: str, data: bytes) -> Path:
        """An input file, given as bytes."""
        p = self.dir / name
        p.write_bytes(data)
        return p

    def rules(self, rng: random.Random) -> Path:
        """A rules file: a mutated base or variant, or one of the intact ones."""
        r = rng.random()
        if r < 0.15:
            return self.dir / rng.choice(["base.rules", "v.rules"])
        if r < 0.3:  # a variant that is fine, over a mutated base
            self.write("base.rules", self._rules_bytes(rng, self.base_rules))
            return self.dir / "v.rules"
        if r < 0.4:
            text = mutate_text(rng, 'ruleset w "W" extends "' + rng.choice(["v.rules", "w.rules", "base.rules",
                                                                              "nope.rules", "/dev/zero", "."])
                               + '"\n' + rng.choice(["", "players 2 to 9\n", "without majority castle\n"]))
            self.write("w.rules", text.encode("utf-8", "surrogatepass"))
            return self.dir / "w.rules"
        source = self.ireland.replace('extends "scotland.rules"', 'extends "base.rules"') if r < 0.5 \
            else self.base_rules
        return self.write("m.rules", self._rules_bytes(rng, source))

    def _rules_bytes(self, rng: random.Random, text: str) -> bytes:
        raw = mutate_text(rng, text).encode("utf-8", "surrogatepass")
        return mutate_bytes(rng, raw) if rng.random() < 0.15 else raw

    def board_file(self, rng: random.Random) -> Path:
        """A board file: mutated or intact."""
        if rng.random() < 0.3:
            return self.dir / "board.json"
        return self.write("mb.json", dump_json(rng, mutate_json(rng, self.board)))

    def map_file(self, rng: random.Random) -> Path:
        """A map file (docs/maps.md), mutated."""
        if rng.random() < 0.1:
            return self.dir / "map.txt"
        raw = mutate_text(rng, self.map).encode("utf-8", "surrogatepass")
        return self.write("mm.txt", mutate_bytes(rng, raw) if rng.random() < 0.1 else raw)

    def record(self, rng: random.Random) -> Path:
        """A game record naming files beside it (at times mutated ones), itself mutated or not."""
        rec = json.loads(json.dumps(rng.choice(self.records)))
        if rng.random() < 0.4:
            rec["rules"] = rng.choice(["base.rules", "v.rules", "m.rules", "scotland", "nope.rules", "../x.rules"])
            if rec["rules"] == "m.rules":
                self.rules(rng)
        if rng.random() < 0.3:
            rec["board"] = rng.choice(["board.json", "mb.json", "scotland", "ireland", "nope.json"])
            if rec["board"] == "mb.json":
                self.board_file(rng)
        if rng.random() < 0.8:
            rec = mutate_json(rng, rec)
        if rng.random() < 0.1:
            rec = {"record": rec}  # a reference position
        return self.write("rec.json", dump_json(rng, rec))


def _int_arg(rng: random.Random, small: list[int]) -> str:
    """A count: mostly small, at times negative, zero, huge or not a number."""
    r = rng.random()
    if r < 0.8:
        return str(rng.choice(small))
    return rng.choice(["-1", "0", "-99999999999999999999", "9" * 5000, "1e3", "x", "", " 2", "٣", "0x2"])


def _seed(rng: random.Random) -> str:
    return rng.choice(["0", "1", "7", "-1", str(2**64), "-" + "9" * 40, "9" * 5000, "x"])


def _players(rng: random.Random) -> str:
    return rng.choice(["2", "3", "4", "1", "0", "5", "-3", "99999999999", "Ann,Bob", "Ann,Ann", "Ann,,Bob", ",",
                       "\u202eAnn,Bob", "a" * 300 + ",b", "Ann\x00,Bob", "é,ß,😀", " ", "2,3"])


def _agents(rng: random.Random) -> str:
    return rng.choice(["random", "random,random", "greedy", "random,greedy,random", "nope", "", ",", "RANDOM",
                       "human", "random,human", "mc", "random," * 6])


def _odd_path(rng: random.Random, world: World) -> str:
    return rng.choice(["", ".", "/", "/dev/null", "/dev/zero", "/proc/self/mem", str(world.dir), "no/such/file",
                       "a\x00b", "\udcff.rules", "x" * 5000, "-", "--", "scotland", "ireland", "korean-castles",
                       "variants/lighthouses", "nope", "../" * 30 + "etc/passwd"])


def command(rng: random.Random, world: World) -> list[str]:
    """One hostile command line."""
    def rules() -> str:
        return str(world.rules(rng)) if rng.random() < 0.9 else _odd_path(rng, world)

    def board() -> str:
        return str(world.board_file(rng)) if rng.random() < 0.9 else _odd_path(rng, world)

    def record() -> str:
        return str(world.record(rng)) if rng.random() < 0.92 else _odd_path(rng, world)

    def output(ext: str) -> list[str]:
        r = rng.random()
        if r < 0.4:
            return []
        if r < 0.8:
            return ["-o", str(world.dir / f"out.{ext}")]
        # an input, a folder, a device, a missing folder, a NUL
        return ["-o", rng.choice([str(world.dir / n) for n in ("base.rules", "v.rules", "board.json", "rec.json",
                                                                "map.txt", "m.rules", "mb.json")]
                                 + [str(world.dir), "/dev/null", str(world.dir / "no" / "x"), "a\x00b", ""])]

    which = rng.choice(["check", "check", "rules", "eval", "eval", "moves", "hint", "draw", "draw", "play", "play",
                        "resume", "resume", "simulate", "compare", "board", "board", "list", "usage"])
    board_opt = ["--board", board()] if rng.random() < 0.5 else []
    if which == "check":
        return ["check", rules(), *board_opt, *rng.choice([[], ["--json"], ["--strict"], ["--no-board"]])]
    if which == "rules":
        return ["rules", rules(), *(["--diff", rules()] if rng.random() < 0.3 else [])]

    def rec_opts() -> list[str]:
        return [*(["--allow-paths"] if rng.random() < 0.2 else []), *(["--rules", rules()] if rng.random() < 0.15
                                                                      else []),
                *(["--board", board()] if rng.random() < 0.15 else [])]

    if which == "eval":
        extra = rng.choice([[], ["--json"], ["--explain"], ["--forecast", "--playouts", _int_arg(rng, [1, 2]),
                                                             "--backend", "python", "--seed", _seed(rng)],
                            ["--forecast", "--playouts", "1", "--as", rng.choice(["Ann", "Zed", "\x00", ""])]])
        return ["eval", record(), *rec_opts(), *extra]
    if which == "moves":
        return ["moves", record(), *rec_opts(), *rng.choice([[], ["--json"], ["--tile", rng.choice(
            ["food", "settlement:3", "settlement:99", "castle", "x", "", "settlement:" + "9" * 5000])],
            ["--player", rng.choice(["Ann", "Bob", "Zed", "-1"])]])]
    if which == "hint":
        return ["hint", record(), *rec_opts(), "--playouts", rng.choice(["1", "0", "-1"]), "--backend", "python",
                "--top", _int_arg(rng, [1, 3]), *(["--json"] if rng.random() < 0.5 else [])]
    if which == "draw":
        target = record() if rng.random() < 0.6 else board()
        return ["draw", target, *output("svg"), *(["--allow-paths"] if rng.random() < 0.2 else [])]
    if which == "play":
        return ["play", "--rules", rules(), *board_opt, "--players", _players(rng), "--agents",
                rng.choice(["random", "random", _agents(rng)]), "--seed", _seed(rng), "--quiet", *output("json")]
    if which == "resume":
        return ["play", "--resume", record(), *(["--agents", _agents(rng)] if rng.random() < 0.5 else []),
                "--quiet", *output("json"), *(["--allow-paths"] if rng.random() < 0.2 else [])]
    if which == "simulate":
        return ["simulate", "--rules", rules(), *board_opt, "--games", _int_arg(rng, [0, 1, 2]),
                "--players", _int_arg(rng, [2, 3, 4]), "--agents", rng.choice(["random", _agents(rng)]),
                "--seed", _seed(rng), "--workers", rng.choice(["1", "0", "-1", "99999"]), "--no-progress",
                *(["--json"] if rng.random() < 0.5 else [])]
    if which == "compare":
        return ["compare", rules(), rules(), *board_opt, "--games", _int_arg(rng, [1, 2]),
                "--players", _int_arg(rng, [2, 3]), "--seed", _seed(rng), "--no-progress",
                "--test", rng.choice(["t", "wilcoxon"]), *(["--json"] if rng.random() < 0.5 else [])]
    if which == "board":
        m = str(world.map_file(rng)) if rng.random() < 0.9 else _odd_path(rng, world)
        out = output("json") or ["-o", str(world.dir / "out.json")]
        return ["board", "build", m, *out, *(["--check"] if rng.random() < 0.2 else [])]
    if which == "list":
        return ["list"]
    return rng.choice([[], ["--version"], ["nope"], ["check"], ["play", "--seed", "x"], ["board"], ["eval", "-x"],
                       ["simulate", "--games", "-" * 3], ["draw", "--allow-paths"], ["\x00"], ["--help"]])


# ----- running ------------------------------------------------------------------------------------------
def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}


def run_one(argv: list[str]) -> tuple[int | str, str, str]:
    """`rebirth ARGV` in this process: (exit code, or "hang"/an exception's name; stdout; stderr)."""
    from rebirth_dsl.cli import main
    from rebirth_dsl.records import record

    # each command is a process of its own: a ruleset compiled for an earlier input from a file of the same
    # name, remembered by its path for the life of the process, must not stand in for this input's file
    record._CACHE.clear()
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    code: int | str
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                _stdin(io.StringIO("")):  # a human seat reads end of input: the game is saved
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except Hang:
        code = "hang"
    except BaseException as e:  # noqa: BLE001 - anything main lets out is a finding, reported by its class
        code = f"escaped {type(e).__name__}: {str(e)[:200]}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(stream: io.StringIO) -> Any:
    old = sys.stdin
    sys.stdin = stream
    try:
        yield
    finally:
        sys.stdin = old


def _problem(argv: list[str], code: int | str, err: str, before: dict[str, bytes], after: dict[str, bytes],
             outputs: set[str]) -> str | None:
    """What is wrong with one run, as a class name to gather by, or None."""
    if code not in (0, 1, 2):
        if code == 70:
            line = next((ln for ln in err.splitlines() if "internal error" in ln), err[:200])
            return re.sub(r"\d+", "N", line)[:160]
        return str(code)[:160]
    if "Traceback" in err or "internal error" in err:
        return "traceback on stderr: " + err.strip().splitlines()[-1][:120]
    changed = sorted(n for n in before if n not in outputs and after.get(n) != before[n])
    target = argv[argv.index("-o") + 1] if "-o" in argv[:-1] else None
    if target is not None and Path(target).name in before and after.get(Path(target).name) != before[Path(target).name]:
        # written over: a failure if the command read it, named on the line or by a file it read (an
        # `extends`, a record's rules or board): the files mentioned, followed from the command line
        name = Path(target).name
        read = {Path(a).name for i, a in enumerate(argv) if a != target or argv[i - 1] != "-o"} & set(before)
        while True:
            more = {m for m in before if m not in read and any(m.encode() in before[r] for r in read)}
            if not more:
                break
            read |= more
        if name in read:
            changed.append(name)
    if changed:
        return f"{argv[0]} changed an input: {', '.join(changed)}"
    return None


def make_input(world: World, seed: int, n: int) -> list[str]:
    """Input n of the run of `seed`: its files written into the world's folder, its argv returned. Each input
    has a generator of its own, so any one is made again alone (see the end of this file)."""
    world.reset()
    return command(random.Random(f"{seed}:{n}"), world)


def fuzz(folder: Path, count: int, seed: int, report: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Run `count` hostile commands; failures by class, each with its first reproducing argv."""
    world = World(folder)
    failures: dict[str, list[Any]] = {}
    codes: dict[str, int] = {}
    start = time.monotonic()
    slowest = (0.0, [])
    for n in range(count):
        argv = make_input(world, seed, n)
        before = _snapshot(folder)
        # files the command is meant to write: outputs with -o, a resumed record written back to, a save
        outputs = {"out.svg", "out.json"} | {name for name in before if name.startswith("rebirth-save")}
        if "-o" in argv[:-1]:  # checked in _problem: refused if the command reads it
            outputs.add(Path(argv[argv.index("-o") + 1]).name)
        if argv[:2] == ["play", "--resume"] and "-o" not in argv:
            outputs.add(Path(argv[2]).name)
        t0 = time.monotonic()
        code, _, err = run_one(argv)
        took = time.monotonic() - t0
        if took > slowest[0]:
            slowest = (took, argv)
        codes[str(code) if code in (0, 1, 2) else "other"] = codes.get(str(code) if code in (0, 1, 2) else "other",
                                                                        0) + 1
        problem = _problem(argv, code, err, before, _snapshot(folder), outputs)
        if problem is not None:
            entry = failures.setdefault(problem, [0, argv, err[-600:], n])
            entry[0] += 1
        if (n + 1) % 500 == 0:
            report(f"{n + 1}/{count} inputs, {sum(e[0] for e in failures.values())} failures, "
                   f"{time.monotonic() - start:.0f} s")
    return {"count": count, "seconds": time.monotonic() - start, "codes": codes, "failures": failures,
            "slowest": slowest}


def test_cli_fuzz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module_cache: None) -> None:
    """Hostile inputs to every command: exit 0, 1 or 2, no traceback, no input changed, no hang."""
    folder = tmp_path / "in"
    folder.mkdir()
    monkeypatch.chdir(folder)  # a human seat's game is saved in the current folder
    result = fuzz(folder, COUNT, SEED, report=lambda s: print(s, file=sys.__stderr__, flush=True))
    failures = result["failures"]
    internal = sum(e[0] for e in failures.values())
    print(f"\nrebirth CLI fuzz: {result['count']} inputs (seed {SEED}), exit codes {result['codes']}, "
          f"{internal} failures, {result['seconds']:.0f} s; slowest {result['slowest'][0]:.1f} s",
          file=sys.__stderr__, flush=True)
    detail = "\n".join(f"{n}x {cls}\n    first: input {i} (python tests/robustness/test_cli_fuzz.py {SEED} {i} DIR)\n"
                       f"    argv: {[a if len(a) < 200 else a[:60] + '...' for a in argv]!r}\n"
                       f"    stderr: {err[:600]!r}"
                       for cls, (n, argv, err, i) in sorted(failures.items(), key=lambda kv: -kv[1][0]))
    assert not failures, f"{len(failures)} classes of failure over {result['count']} inputs:\n{detail}"
    assert result["codes"].get("0", 0) and result["codes"].get("1", 0)  # the inputs reach both ends


def test_the_fuzzer_sees_an_internal_error_and_a_changed_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 module_cache: None) -> None:
    """The checks above can fail: a command that raises, or writes over its input, is reported by its class."""
    import rebirth_dsl.cli as cli

    def broken(args: Any) -> int:
        raise ZeroDivisionError("planted")

    def overwrites(args: Any) -> int:
        Path(args.rules).write_text("x", encoding="utf-8")
        return 0

    folder = tmp_path / "in"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setitem(cli.COMMANDS, "list", broken)
    monkeypatch.setitem(cli.COMMANDS, "rules", overwrites)
    World(folder).reset()
    before = _snapshot(folder)
    code, _, err = run_one(["list"])
    assert _problem(["list"], code, err, before, _snapshot(folder), set()) == \
        "rebirth: internal error: ZeroDivisionError: planted"
    code, _, err = run_one(["rules", str(folder / "base.rules")])
    assert _problem(["rules"], code, err, before, _snapshot(folder), set()) == "rules changed an input: base.rules"


if __name__ == "__main__":  # python tests/robustness/test_cli_fuzz.py SEED N DIR: input N's files in DIR, and its argv
    out_dir = Path(sys.argv[3])
    out_dir.mkdir(parents=True, exist_ok=True)
    print(make_input(World(out_dir), int(sys.argv[1]), int(sys.argv[2])))
