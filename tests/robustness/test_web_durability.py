"""A move the server acknowledged is on disk: the server is killed with SIGKILL in the middle of a stream of
moves over several games, restarted, and every acknowledged move is found, in order, in a game that
replays (`rebirth eval` reads the stored record). Cycles: REBIRTH_KILL_CYCLES (default 4)."""

from __future__ import annotations

import http.client
import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

try:
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as e:
    pytest.fail(f"the web extra is not installed ({e.name}): pip install -e '.[web]'", pytrace=False)

from web_helpers import ROOT, Server  # noqa: E402 - after the check

CYCLES = int(os.environ.get("REBIRTH_KILL_CYCLES", "4"))
GAMES = 4


def play_one(server: Server, gid: str, tokens: list[str]) -> tuple[str, list[int] | None] | None:
    """One move of the seat to move (its question answered with the first option): the move, once the
    server acknowledged it; None if it did not."""
    status, v = server.call(f"/api/games/{gid}?t={tokens[0]}")
    if status != 200 or v["over"]:
        return None
    token = tokens[v["turn"]]
    status, v = server.call(f"/api/games/{gid}?t={token}")
    if v.get("pending"):  # a placement of an earlier round waits for its answer (I-R1)
        pend = v["pending"]
        tile, hexq, questions = pend["tile"], pend["hex"], pend["questions"]
    else:
        tile, rows = next(iter(v["legal"].items()))
        hexq = rows[0]["hex"] if rows else None
        status, out = server.call(f"/api/games/{gid}/move", {"t": token, "tile": tile, "hex": hexq})
        if status != 200:
            return None
        if out["status"] == "moved":
            return tile, hexq
        questions = server.call(f"/api/games/{gid}?t={token}")[1]["pending"]["questions"]  # as the page reads them
    choices = {q["landmark"]: {q["key"]: q["options"][0]["value"]} for q in questions}
    status, out = server.call(f"/api/games/{gid}/move", {"t": token, "tile": tile, "hex": hexq, "choices": choices})
    return (tile, hexq) if status == 200 and out["status"] == "moved" else None


def stream(server: Server, games: dict[str, list[str]], acked: dict[str, list[tuple[str, list[int] | None]]],
           stop: threading.Event) -> None:
    """Play moves in every game, round robin, as fast as the server answers; note each acknowledged one."""
    while not stop.is_set():
        for gid, tokens in games.items():
            try:
                move = play_one(server, gid, tokens)
            except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError):
                return  # the server is gone (an answer cut off too): what was acknowledged before is what counts
            if move is not None:
                acked[gid].append(move)


def stored(data: Path) -> dict[str, dict]:
    """Every stored game's record, read from the store as it is on disk."""
    db = sqlite3.connect(data / "games.sqlite3")
    try:
        return {gid: json.loads(rec) for gid, rec in db.execute("SELECT id, record FROM games")}
    finally:
        db.close()


@pytest.mark.parametrize("cycle", range(CYCLES))
def test_every_acknowledged_move_survives_a_kill(tmp_path: Path, cycle: int) -> None:
    rng = random.Random(cycle)
    data = tmp_path / "store"
    server = Server(data)
    acked: dict[str, list[tuple[str, list[int] | None]]] = {}
    games: dict[str, list[str]] = {}
    try:
        for g in range(GAMES):
            status, made = server.call("/api/games", {"rules": "scotland" if g % 2 else "ireland", "seed": g + 10 * cycle,
                                                      "seats": [{"name": "Ann", "agent": "human"},
                                                                {"name": "Bob", "agent": "human"}]})
            assert status == 201, made
            games[made["id"]] = [link["token"] for link in made["links"] if link["seat"] is not None]
            acked[made["id"]] = []
        stop = threading.Event()
        t = threading.Thread(target=stream, args=(server, games, acked, stop))
        t.start()
        # the kill lands after a number of acknowledged moves rather than a time, so that no game has ended
        # on a fast machine (a two-player game is 60 moves or more) and some have begun on a slow one
        target, deadline = rng.randint(8, 40), time.monotonic() + 60
        while sum(map(len, acked.values())) < target and time.monotonic() < deadline and t.is_alive():
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.05))  # and at no particular point of the move in flight
        server.proc.kill()  # SIGKILL: no shutdown, no flush but what the store already did
        server.proc.wait()
        stop.set()
        t.join(timeout=60)
    finally:
        server.stop()
    assert sum(map(len, acked.values())) > 0
    records = stored(data)
    for gid, moves in acked.items():
        rec = records[gid]
        kept = [(m["tile"], m["hex"]) for m in rec["moves"]]
        assert kept[: len(moves)] == moves, (gid, len(kept), len(moves))
        path = tmp_path / f"{gid}.json"
        path.write_text(json.dumps(rec))
        done = subprocess.run([sys.executable, "-m", "rebirth_dsl", "eval", str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    # the restarted server resumes them, each where the store left it
    again = Server(data)
    try:
        for gid, tokens in games.items():
            status, v = again.call(f"/api/games/{gid}?t={tokens[0]}")
            assert status == 200 and v["moves"] == len(records[gid]["moves"]), v
            assert play_one(again, gid, tokens) is not None
    finally:
        again.stop()
