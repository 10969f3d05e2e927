"""The terminal seat as a person sees it, through a real pseudo-terminal: two turns of `rebirth play` with
colour on (a terminal) and off (NO_COLOR), hexes numbered the same on every turn, landmarks by name, and a
refused hex that says what is on it."""

from __future__ import annotations

import json
import os
import re
import select
import sys
import time
from pathlib import Path

import pytest

pty = pytest.importorskip("pty")  # POSIX only

SGR = re.compile(r"\x1b\[[0-9;]*m")
PROMPT = "your move ("


class Terminal:
    """`rebirth play` on a pseudo-terminal of 100 columns: what it printed, and a way to type a line."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the CLI, as a person would start it
            os.execvpe(sys.executable, [sys.executable, "-m", "rebirth_dsl", *args], env)
        self.pid, self.fd, self.text = pid, fd, ""

    def until(self, marker: str, count: int, timeout: float = 60.0) -> str:
        """Read until `marker` has been printed `count` times; everything printed so far."""
        end = time.monotonic() + timeout
        while self.text.count(marker) < count:
            left = end - time.monotonic()
            assert left > 0, f"no {marker!r} after {timeout} s:\n{self.text[-2000:]}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.text

    def type(self, line: str) -> None:
        """A line typed at the prompt."""
        os.write(self.fd, (line + "\n").encode())

    def close(self) -> int:
        """Wait for the game to save and stop; its exit status."""
        self.until("saved the game", 1)
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def listed(turn: str) -> dict[int, tuple[int, int]]:
    """The numbered legal hexes of one turn's list: number -> (q, r)."""
    plain = SGR.sub("", turn)
    return {int(n): (int(q), int(r)) for n, q, r in re.findall(r"^\s+(\d+)\s+\((-?\d+),(-?\d+)\)\s+\w+\s+[+-]\d+(?:  .*)?$",
                                                             plain, re.M)}


def two_turns(tmp_path: Path, colour: bool) -> tuple[str, int, dict]:
    """Two turns of Ann's against greedy (the best listed hex each time, a refused hex between), then `q`."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="50")
    if not colour:
        env["NO_COLOR"] = "1"
    out = tmp_path / f"g{int(colour)}.json"
    term = Terminal(["play", "--players", "2", "--agents", "human,greedy", "--seed", "4", "-o", str(out)], env)
    first = SGR.sub("", term.until(PROMPT, 1))
    best = next(iter(listed(first)))  # the list is best first
    castle = re.search(r"castle: \w+ [\w' ]+? \((-?\d+),(-?\d+)\)", first)
    assert castle, first
    term.type(f"{castle.group(1)},{castle.group(2)}")  # a castle's hex: refused, saying what is there
    term.until(PROMPT, 2)
    term.type(str(best))
    term.until(PROMPT, 3)
    term.type("q")
    code = term.close()
    return term.text, code, json.loads(out.read_text())


@pytest.mark.parametrize("colour", [True, False], ids=["colour", "NO_COLOR"])
def test_two_turns_at_a_terminal(tmp_path: Path, colour: bool) -> None:
    text, code, record = two_turns(tmp_path, colour)
    assert code == 0, text[-2000:]
    # colour exactly when asked: each seat its own (Ann red, Bob blue), none at all under NO_COLOR
    assert bool(SGR.search(text)) is colour
    if colour:
        assert "\x1b[31mAnn" in text and "\x1b[34mBob" in text
    plain = SGR.sub("", text)
    turns = plain.split(PROMPT)
    one, two = listed(turns[0]), listed(turns[2])
    assert one and two
    # a hex keeps its number all game: any number listed on both turns names the same hex
    numbered = {**one, **two}
    assert all(one[n] == two[n] for n in set(one) & set(two))
    assert len(set(numbered.values())) == len(numbered)
    # Ann's move went where its number said; greedy answered between the two turns
    ann = [m for m in record["moves"] if m["player"] == "Ann"]
    assert len(ann) == 1 and tuple(ann[0]["hex"]) == one[next(iter(one))]
    assert re.search(r"move 1: Bob placed \S+ on hex \d+ \(-?\d+,-?\d+\)", turns[2])
    # the refused castle hex says what stands there, and the rule
    assert re.search(r"\(-?\d+,-?\d+\) is castle '[\w' ]+': no tile goes there \(S-\w+\)", turns[1]), turns[1]
    # landmarks by name in the legend, with a three-letter mark on the map; no line wider than the terminal
    assert "castle: " in turns[0] and "cathedral: " in turns[0]
    # each listed move says what it does now: its points by category (and landmarks taken, areas completed)
    assert re.search(r"^\s+\d+\s+\(-?\d+,-?\d+\)\s+\w+\s+\+[1-9]\d*  \w+ \+[1-9]", turns[0], re.M), turns[0]
    board = plain.split("saved the game")[0]  # what the game drew (the closing line names a file's path)
    assert all(len(line) <= 100 for line in board.splitlines()), max(board.splitlines(), key=len)
