"""A bounded load test of `rebirth serve` on loopback: moves per second over concurrent games, and latency.

    python tools/web_load.py                      # 20 games, 20 s, a server of this checkout started here
    python tools/web_load.py --games 20 --seconds 30 --players 2
    python tools/web_load.py --url http://127.0.0.1:8000   # a server already running (loopback only)

Each game has a person in every seat, played by one client thread as a page would: read the view of the
seat to move (it lists the legal hexes) and, at each new version, the board's picture; post a move; and
so on to the end of the game, then a new game. It prints the moves acknowledged per second, and the
p50/p90/p99/max latency of a move's POST and of a view's GET. Everything stays on this machine: the
server is started on 127.0.0.1 (or --url must be a loopback address), every loop is bounded by --seconds
and --max-moves, and the server it started is stopped by its own process id.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Client:
    """One keep-alive connection, speaking as the server's own page does."""

    def __init__(self, url: str, page: str) -> None:
        u = urlsplit(url)
        self.url, self.host, self.port, self.page = url, u.hostname or "127.0.0.1", u.port or 80, page
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)

    def call(self, method: str, path: str, body: object = None, raw: bool = False) -> tuple[int, object, float]:
        """(status, JSON or, with raw, the bytes, seconds) of one request."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Origin": self.url, "Content-Type": "application/json", "X-Rebirth-Page": self.page,
                   "Accept-Encoding": "gzip"}  # as a browser asks
        start = time.perf_counter()
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                data_in = r.read()
                if r.getheader("Content-Encoding") == "gzip":
                    data_in = gzip.decompress(data_in)
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt:
                    raise
        took = time.perf_counter() - start
        return r.status, (data_in if raw else json.loads(data_in) if data_in else None), took


def start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    """`rebirth serve` of this checkout on a free loopback port."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "rebirth_dsl", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data", str(data), "--agent-delay", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if m is None:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{m.group(1)}"


def page_token(url: str) -> str:
    """The secret the server writes into its page."""
    c = Client(url, "")
    c.conn.request("GET", "/")
    html = c.conn.getresponse().read().decode()
    m = re.search(r'<meta name="rebirth-page" content="([^"]+)">', html)
    return m.group(1) if m else ""


def play(url: str, page: str, players: int, rules: str, seed: int, stop: threading.Event, until: float,
         budget: list[int], lock: threading.Lock, moves: list[float], views: list[float], errors: list[str]) -> None:
    """One client thread: games one after another, every seat played as a page would, until told to stop."""
    c = Client(url, page)
    names = ["Ann", "Bob", "Cat", "Dan"][:players]
    while not stop.is_set() and time.monotonic() < until:
        status, made, _ = c.call("POST", "/api/games", {"rules": rules, "seed": seed,
                                                       "seats": [{"name": n, "agent": "human"} for n in names]})
        seed += 1
        if status != 201 or not isinstance(made, dict):
            errors.append(f"create: {status} {made}")
            return
        gid, tokens = made["id"], [link["token"] for link in made["links"] if link["seat"] is not None]
        turn, drawn = 0, -1
        while not stop.is_set() and time.monotonic() < until:
            status, v, took = c.call("GET", f"/api/games/{gid}?t={tokens[turn]}")
            views.append(took)
            if status != 200 or not isinstance(v, dict):
                errors.append(f"view: {status} {v}")
                return
            if v["version"] != drawn:  # the page draws the board anew at each version, as the browser does
                status, _, _ = c.call("GET", f"{v['svg_url']}&t={tokens[turn]}", raw=True)
                if status != 200:
                    errors.append(f"svg: {status}")
                    return
                drawn = v["version"]
            if v["over"]:
                break
            turn = v["turn"]
            if v.get("you") != turn:
                continue  # the view was of the seat that just moved: ask again as the seat to move
            tile, rows = next(iter(v["legal"].items()))
            hexq = rows[0]["hex"] if rows else None
            with lock:
                if budget[0] <= 0:
                    stop.set()
                    return
                budget[0] -= 1
            status, out, took = c.call("POST", f"/api/games/{gid}/move",
                                       {"t": tokens[turn], "tile": tile, "hex": hexq, "version": v["version"]})
            if status == 200 and isinstance(out, dict) and out.get("status") == "question":
                pend = c.call("GET", f"/api/games/{gid}?t={tokens[turn]}")[1]
                assert isinstance(pend, dict)
                choices = {x["landmark"]: {x["key"]: x["options"][0]["value"]} for x in pend["pending"]["questions"]}
                status, out, took2 = c.call("POST", f"/api/games/{gid}/move",
                                            {"t": tokens[turn], "tile": tile, "hex": hexq, "choices": choices})
                took += took2
            if status != 200:
                errors.append(f"move: {status} {out}")
                return
            moves.append(took)
            turn = (turn + 1) % players  # a guess; the next view says whose turn it really is


def pct(xs: list[float], q: float) -> float:
    """The q-quantile of xs, in milliseconds."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return 1000 * s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    """Run the load, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server on this machine (default: start one of this checkout)")
    ap.add_argument("--games", type=int, default=20, help="concurrent games, one client thread each")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rules", default="scotland")
    ap.add_argument("--seconds", type=float, default=20.0, help="how long to run (at most 300)")
    ap.add_argument("--max-moves", type=int, default=100_000, help="stop after this many moves")
    args = ap.parse_args()
    seconds = min(max(args.seconds, 1.0), 300.0)
    proc = None
    tmp = None
    if args.url:
        if urlsplit(args.url).hostname not in LOOPBACK:
            raise SystemExit("--url must be a loopback address: this load test sends traffic to this machine only")
        url = args.url.rstrip("/")
    else:
        tmp = tempfile.TemporaryDirectory(prefix="rebirth-load-")
        proc, url = start_server(Path(tmp.name) / "store")
    try:
        page = page_token(url)
        stop = threading.Event()
        lock = threading.Lock()
        budget = [args.max_moves]
        moves: list[float] = []
        views: list[float] = []
        errors: list[str] = []
        start = time.monotonic()
        until = start + seconds
        threads = [threading.Thread(target=play, args=(url, page, args.players, args.rules, 1000 * i, stop, until,
                                                       budget, lock, moves, views, errors), daemon=True)
                   for i in range(max(1, min(args.games, 200)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=seconds + 60)
        stop.set()
        took = time.monotonic() - start
        print(f"{args.games} concurrent {args.rules} games of {args.players} people, {took:.1f} s on {url}")
        print(f"moves acknowledged: {len(moves)}  ({len(moves) / took:.1f} moves/s)")
        print(f"move POST latency ms: p50 {pct(moves, 0.50):.1f}  p90 {pct(moves, 0.90):.1f}  "
              f"p99 {pct(moves, 0.99):.1f}  max {pct(moves, 1.0):.1f}")
        print(f"view GET latency ms:  p50 {pct(views, 0.50):.1f}  p90 {pct(views, 0.90):.1f}  "
              f"p99 {pct(views, 0.99):.1f}  max {pct(views, 1.0):.1f}  ({len(views)} views)")
        if moves:
            print(f"mean move {1000 * statistics.fmean(moves):.1f} ms")
        for e in errors[:10]:
            print("error:", e)
        return 1 if errors else 0
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
