"""Starting and stopping `rebirth serve` for the web tests: a real server process on 127.0.0.1 with a free
port, its address read from the line it prints, and small JSON helpers over plain urllib."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# the real browser the web tests drive: the system Chromium (Playwright cannot download its own here)
CHROMIUM = os.environ.get("REBIRTH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
# the README's screenshots are taken by the browser tests; they are written into docs/ only when asked
# (REBIRTH_SCREENSHOTS=1), so a run of the suite leaves the checkout as it found it
DOCS = ROOT / "docs" if os.environ.get("REBIRTH_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="shots-"))


class Server:
    """`rebirth serve --port 0` on a data folder; `url` is the address it printed. Its error output goes to a
    file (`log`): a pipe nobody reads would fill up and stall the server."""

    def __init__(self, data: Path, agent_delay: float = 0.0, extra: tuple[str, ...] = (),
                 log: Path | None = None) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.data = data
        if log is None:
            fd, name = tempfile.mkstemp(prefix="rebirth-serve-", suffix=".log")
            os.close(fd)
            log = Path(name)
        self.log_path = log
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rebirth_dsl", "serve", "--host", "127.0.0.1", "--port", "0", "--data", str(data),
             "--agent-delay", str(agent_delay), *extra],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=self._log, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if m is None:
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r} {self.log()[-2000:]}")
        self.port = int(m.group(1))
        self.url = f"http://127.0.0.1:{self.port}"
        self.banner = line
        self.page_token = page_token(self.url)

    def log(self) -> str:
        """What the server wrote to its error output so far."""
        self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        """End the server (it is ours: by its own process)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._log.close()

    def call(self, path: str, body: Any = None, raw: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """(status, JSON) of a GET, or of a POST when a body is given; `headers` replace the page's own
        (a value of None drops that header)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        # as the server's own page sends it: its origin, JSON, and the page's secret
        sent = {"Content-Type": "application/json", "Origin": self.url, "X-Rebirth-Page": self.page_token}
        sent.update(headers or {})
        headers = {k: v for k, v in sent.items() if v is not None}
        req = urllib.request.Request(self.url + path, data=data, method="POST" if data is not None else "GET",
                                     headers=headers)
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


def page_token(url: str) -> str:
    """The secret the server writes into its page (requests that read files must carry it)."""
    with urllib.request.urlopen(url + "/", timeout=30) as r:
        html = r.read().decode()
    m = re.search(r'<meta name="rebirth-page" content="([^"]+)">', html)
    if m is None:
        raise RuntimeError("the page carries no page token")
    return m.group(1)


def new_game(server: Server, agents: list[str], rules: str = "scotland", seed: int = 1) -> tuple[str, list[str]]:
    """A game made through the API: its id and each seat's token (then the spectator's)."""
    names = ["Ann", "Bob", "Cat", "Dan"][: len(agents)]
    status, made = server.call("/api/games", {"rules": rules, "seed": seed,
                                              "seats": [{"name": n, "agent": a} for n, a in zip(names, agents, strict=True)]})
    assert status == 201, made
    return made["id"], [link["token"] for link in made["links"]]
