"""Starting and stopping `rebirth serve` for the web tests: a real server process on 127.0.0.1 with a free
port, its address read from the line it prints, and small JSON helpers over plain urllib."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class Server:
    """`rebirth serve --port 0` on a data folder; `url` is the address it printed."""

    def __init__(self, data: Path, agent_delay: float = 0.0) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rebirth_dsl", "serve", "--host", "127.0.0.1", "--port", "0", "--data", str(data),
             "--agent-delay", str(agent_delay)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if m is None:
            self.stop()
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise RuntimeError(f"the server did not start: {line!r} {err[-2000:]}")
        self.url = f"http://127.0.0.1:{m.group(1)}"
        self.banner = line

    def stop(self) -> None:
        """End the server (it is ours: by its own process)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()

    def call(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
        """(status, JSON) of a GET, or of a POST when a body is given."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.url + path, data=data, method="POST" if data is not None else "GET",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
                status = r.status
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            status = e.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text


def new_game(server: Server, agents: list[str], rules: str = "scotland", seed: int = 1) -> tuple[str, list[str]]:
    """A game made through the API: its id and each seat's token (then the spectator's)."""
    names = ["Ann", "Bob", "Cat", "Dan"][: len(agents)]
    status, made = server.call("/api/games", {"rules": rules, "seed": seed,
                                              "seats": [{"name": n, "agent": a} for n, a in zip(names, agents, strict=True)]})
    assert status == 201, made
    return made["id"], [link["token"] for link in made["links"]]
