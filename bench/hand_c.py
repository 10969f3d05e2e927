"""Loads the hand-written C engine (bench/hand_scotland.c): compiled with the native engine's own compiler and
flags (rebirth_dsl/native/build.py) into a private temporary folder, opened through cffi, and given the
board's geometry as a flat list of ints read from the board file (kinds, coordinates, areas, tags, names)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rebirth_dsl.native.build import FLAGS, BuildError, compiler

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "hand_scotland.c"
KINDS = ("food", "plain", "energy", "settlement", "sea", "castle", "cathedral")  # hand_scotland.c's codes
CDEF = """
int hand_board(const int32_t *flat, int nflat);
int hand_games(uint64_t seed0, int count, int n, int64_t *totals, int32_t *winners);
int hand_record(uint64_t seed, int n, int32_t *setup, int32_t *moves, int64_t *totals, int32_t *winners);
int hand_sizes(int32_t *out);
"""


def board_ints(board: Path) -> list[int]:
    """The board file as hand_scotland.c reads it: the hex count, then per hex its kind, q, r, area (-1 for
    none, else areas numbered in the order they first appear), harbour, neutral, clover and Stirling flags."""
    data = json.loads(board.read_text(encoding="utf-8"))
    areas: dict[str, int] = {}
    out = [len(data["hexes"])]
    for x in data["hexes"]:
        tags = set(x.get("tags", ()))
        area = areas.setdefault(x["area"], len(areas)) if "area" in x else -1
        out += [KINDS.index(x["kind"]), int(x["q"]), int(x["r"]), area, int("harbour" in tags),
                int("neutral" in tags), int("clover" in tags), int(x.get("name") == "Stirling")]
    return out


@dataclass
class HandC:
    """The loaded hand-written C engine."""

    ffi: Any
    lib: Any
    folder: Path
    state_bytes: int

    def games(self, n: int, seed: int, count: int) -> tuple[list[int], list[int]]:
        """Totals (count * n) and winner seat bits (count) of games seed .. seed + count - 1."""
        totals = self.ffi.new("int64_t[]", count * n)
        win = self.ffi.new("int32_t[]", count)
        if self.lib.hand_games(seed, count, n, totals, win) != 0:
            raise RuntimeError("hand engine error")
        return self.ffi.unpack(totals, count * n), self.ffi.unpack(win, count)

    def record(self, n: int, seed: int) -> tuple[list[list[int]], list[int], list[tuple[int, int, int]], list[int], int]:
        """One game: each seat's shuffled tiles (kind << 3 | influence; the first two set aside), the deck's card
        ids top first, the moves (seat, tile, hex or -1), the totals and the winner seat bits."""
        setup = self.ffi.new("int32_t[]", 4 * 36 + 64)
        moves = self.ffi.new("int32_t[]", 3 * 4 * 36)
        totals = self.ffi.new("int64_t[]", n)
        win = self.ffi.new("int32_t *")
        m = self.lib.hand_record(seed, n, setup, moves, totals, win)
        if m < 0:
            raise RuntimeError("hand engine error")
        sizes = self.ffi.new("int32_t[]", 5)
        self.lib.hand_sizes(sizes)
        nt = sizes[1] if n < 4 else sizes[2]
        flat = self.ffi.unpack(setup, n * nt + sizes[3])
        tiles = [flat[p * nt:(p + 1) * nt] for p in range(n)]
        mv = self.ffi.unpack(moves, 3 * m)
        return (tiles, flat[n * nt:], [(mv[i], mv[i + 1], mv[i + 2]) for i in range(0, 3 * m, 3)],
                self.ffi.unpack(totals, n), win[0])

    def close(self) -> None:
        """Remove the private build folder."""
        shutil.rmtree(self.folder, ignore_errors=True)


def load(board: Path) -> HandC:
    """Compile hand_scotland.c with the native engine's flags and load it for this board; BuildError if no C
    compiler or cffi is at hand."""
    try:
        from cffi import FFI
    except ImportError:
        raise BuildError("cffi is not installed (the extra [native])") from None
    cc, _ = compiler()
    folder = Path(tempfile.mkdtemp(prefix="rebirth-hand-"))  # 0700: the library is code, ours alone
    lib_path = folder / "hand_scotland.so"
    proc = subprocess.run([cc, *FLAGS, "-o", str(lib_path), str(SOURCE)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise BuildError(f"the C compiler failed on {SOURCE.name}: {proc.stderr.strip()[:300]}")
    ffi = FFI()
    ffi.cdef(CDEF)
    lib = ffi.dlopen(str(lib_path))
    flat = board_ints(board)
    if lib.hand_board(ffi.new("int32_t[]", flat), len(flat)) != 0:
        raise ValueError(f"{board}: not a board the hand-written Scotland engine can play")
    sizes = ffi.new("int32_t[]", 5)
    lib.hand_sizes(sizes)
    return HandC(ffi, lib, folder, sizes[0])
