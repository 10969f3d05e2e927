"""A fuzz of every route of `rebirth serve`: one real server, a few real games, then N seeded requests made
from valid ones by type confusion, hostile numbers and text, broken JSON, wrong headers and garbage in paths,
sent as raw bytes over keep-alive connections. No request may get an internal error (HTTP 500), a traceback,
an exception's class name or the server's folders; every refusal of an API route is JSON with an "error".

N is small by default so the suite stays fast; REBIRTH_FUZZ_API=10000 raises it (REBIRTH_FUZZ_SEED picks
another sequence). `pytest -s` prints the summary line.
"""

from __future__ import annotations

import collections
import gzip
import http.client
import json
import os
import random
import re
import socket
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

try:
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as e:
    pytest.fail(f"the web extra is not installed ({e.name}): pip install -e '.[web]'", pytrace=False)

from web_helpers import ROOT, Server  # noqa: E402 - after the check

FUZZ_N = int(os.environ.get("REBIRTH_FUZZ_API") or "400")
FUZZ_SEED = int(os.environ.get("REBIRTH_FUZZ_SEED") or "20261201")
EXCEPTION_NAME = re.compile(r"\b[A-Z][a-zA-Z]+Error\b")
INTERNAL_LOG = re.compile(r"error [0-9a-f]{8} on |Exception in ASGI application|Traceback|the agent stopped")
POST_ROUTE = re.compile(rb"/api/(games|study|games/[A-Za-z0-9_-]{1,64}/(move|undo))")  # those that read a body
PROTOCOL_REFUSAL = b"Invalid HTTP request received."  # uvicorn's answer to bytes that are not HTTP
SCOTLAND_RULES = (ROOT / "rules" / "scotland.rules").read_text(encoding="utf-8")
SCOTLAND_BOARD = (ROOT / "boards" / "scotland.json").read_text(encoding="utf-8")
VARIANT = 'ruleset v extends "scotland"\n'
EXAMPLES = ["scotland-2p", "scotland-3p", "ireland-2p", "unfinished", "scenario-120"]
LANDMARKS = ["castle", "cathedral", "Dunluce", "Hill of Tara", "Edinburgh", "Stirling", "Blarney"]
TILES = ["food", "energy", "settlement", "settlement:1", "settlement:3", "settlement:4", "settlement:0",
         "settlement:99", "settlement:-1", "settlement:", "settlement:3:3", "castle", "sea", "plain", "wind",
         "tower", ":", "food:1", "FOOD", " food", "food\x00", "s" * 61]
TEXTS = ["", " ", "a", "scotland", "ireland", "human", "greedy", "random", "mc", "ismcts", "Ann", "ünïcode",
         "名前", "\x00\x01\x1f\x7f", "\ud800", "\udfff\ud800", "\u202eevil", "🂡" * 3, "../../etc/passwd",
         "/etc/passwd", "~/.bashrc", "%00", "%2e%2e%2f", "#1", "#0", "#99", "-1", "1e999", "NaN", "Infinity",
         "0x10", " 12 ", "１２", "²", "9" * 40, "null", "true", "{}", "[]", "<script>", "'; DROP TABLE games;--",
         "scotland.rules", "v.rules", "x.json", "a" * 61, "a" * 201, "b" * 5000]
NUMBERS = [0, 1, -1, 2, 7, 36, 119, 120, 2000, 2001, 2**31, -2**31, 2**53 + 1, 2**63 - 1, 2**63, -2**63 - 1,
           10**29, -10**29, 0.5, -0.0, 1.5, 1e308, -1e308, 5e-324, 1e-7, 3.0]
RAW_VALUES = [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-1e999", b"9" * 31, b"9" * 5000, b"1" + b"0" * 400,
              b"0." + b"1" * 60, b"-", b"01", b"1.", b".5", b"+1", b"tru", b"nul", b'"\\ud800"', b'"\\udc80x"',
              b'"\\x41"', b'"\\u00"', b'"\xff\xfe"', b'"\xed\xa0\x80"', b'"\xc0\xaf"', b'"a\x00b"', b"[" * 31 + b"]" * 31,
              b"[" * 40 + b"]" * 40, b'{"a":' * 31 + b"1" + b"}" * 31, b"[1,]", b"{,}", b'"' + b"\\" * 5001 + b'"']
STATIC = ["app.js", "index.html", "style.css", "missing.js", "..%2f..%2fpyproject.toml", "%2e%2e/%2e%2e/setup.py",
          "%00", "app.js%00.css", "a" * 5000, "%ff%fe", "./app.js", "//etc/passwd", "app.js/", ".", "%c0%ae%c0%ae/"]


# ----- the server under fuzz -----------------------------------------------------------------------------------
class FuzzServer(Server):
    """`rebirth serve --port 0 --agent-delay 0`, its log in a file, started and stopped by its own process."""

    def __init__(self, data: Path, log: Path) -> None:
        super().__init__(data, 0.0, log=log)


class Client:
    """Raw HTTP/1.1 over one keep-alive connection at a time: any bytes go out, the answer is read back."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.reused = False

    def close(self) -> None:
        """Drop the connection (the next request opens a new one)."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def send(self, raw: bytes, method: str) -> tuple[int, dict[str, str], bytes]:
        """(status, headers lower-cased, body) of one request; status 0 when no answer came."""
        for _ in range(2):
            if self.sock is None:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
                self.reused = False
            reused, self.reused = self.reused, True
            try:
                self.sock.sendall(raw)
                resp = http.client.HTTPResponse(self.sock, method=method)
                resp.begin()
                body = resp.read()
            except (OSError, http.client.HTTPException):
                self.close()
                if reused:
                    continue  # the server closed an idle keep-alive connection first: send it again
                return 0, {}, b""
            headers = {k.lower(): v for k, v in resp.getheaders()}
            if resp.will_close:
                self.close()
            if headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            return resp.status, headers, body
        return 0, {}, b""


# ----- requests ------------------------------------------------------------------------------------------------
@dataclass
class Req:
    """One request as bytes on the wire, what it was made from, and the statuses it must get (None: any
    status but an internal error)."""

    method: str
    target: bytes
    headers: list[tuple[bytes, bytes]]
    body: bytes | None = None
    chunked: bool = False
    label: str = ""
    expect: set[int] | None = None

    def wire(self) -> bytes:
        """The request's bytes."""
        head = [self.method.encode() + b" " + self.target + b" HTTP/1.1"]
        head += [k + b": " + v for k, v in self.headers]
        payload = b""
        if self.body is not None:
            if self.chunked:
                head.append(b"Transfer-Encoding: chunked")
                pieces = [self.body[i:i + 4096] for i in range(0, len(self.body), 4096)]
                payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
            else:
                head.append(b"Content-Length: %d" % len(self.body))
                payload = self.body
        return b"\r\n".join(head) + b"\r\n\r\n" + payload

    def short(self) -> str:
        """The request, cut to a readable length for a failure message."""
        body = b"" if self.body is None else self.body[:300]
        return f"[{self.label}] {self.method} {self.target[:300]!r} {self.headers!r:.400} {body!r}"


@dataclass
class Game:
    """A game of the fuzzed server: its id, its people's tokens, the spectator's."""

    gid: str
    seats: list[str]
    watch: str
    rules: str = ""
    record: dict[str, Any] | None = None


@dataclass
class Fuzz:
    """The generator's state: the server, its games, and what came back."""

    server: FuzzServer
    rng: random.Random
    games: list[Game]
    client: Client
    records: list[dict[str, Any]] = field(default_factory=list)
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    sent: int = 0

    # --- pieces of requests ----------------------------------------------------------------------------------
    def headers(self, json_body: bool) -> list[tuple[bytes, bytes]]:
        """The headers the server's own page sends."""
        out = [(b"Host", f"127.0.0.1:{self.server.port}".encode()), (b"Origin", self.server.url.encode()),
               (b"X-Rebirth-Page", self.server.page_token.encode())]
        if json_body:
            out.append((b"Content-Type", b"application/json"))
        return out

    def token(self) -> Any:
        """A token: mostly a real one (of any seat of any game), sometimes junk."""
        r = self.rng.random()
        g = self.rng.choice(self.games)
        if r < 0.6:
            return self.rng.choice(g.seats) if g.seats else g.watch
        if r < 0.75:
            return g.watch
        return self.junk()

    def junk(self, depth: int = 0) -> Any:
        """A value of any JSON type, hostile in size or content."""
        r = self.rng.random()
        if r < 0.08:
            return self.rng.choice([None, True, False])
        if r < 0.3:
            return self.rng.choice(NUMBERS)
        if r < 0.7 or depth > 2:
            return self.rng.choice(TEXTS)
        if r < 0.8:
            return [self.junk(depth + 1) for _ in range(self.rng.randint(0, 3))]
        if r < 0.9:
            return {str(self.junk(depth + 1))[:30]: self.junk(depth + 1) for _ in range(self.rng.randint(0, 3))}
        deep: Any = self.rng.choice([1, "x", None, {}])
        for _ in range(self.rng.choice([8, 29, 30, 31, 32, 33, 40])):  # within and beyond the nesting limit
            deep = [deep] if self.rng.random() < 0.5 else {"k": deep}
        return deep

    def confuse(self, obj: Any) -> Any:
        """A copy of a valid body with one value somewhere in it swapped, dropped or added."""
        if isinstance(obj, dict):
            obj = dict(obj)
            r = self.rng.random()
            if not obj or r < 0.1:
                obj[str(self.junk())[:20]] = self.junk()
                return obj
            key = self.rng.choice(list(obj))
            if r < 0.2:
                del obj[key]
            elif r < 0.55 or not isinstance(obj[key], (dict, list)):
                obj[key] = self.junk()
            else:
                obj[key] = self.confuse(obj[key])
            return obj
        if isinstance(obj, list):
            obj = list(obj)
            if not obj or self.rng.random() < 0.3:
                obj.append(self.junk())
            else:
                i = self.rng.randrange(len(obj))
                obj[i] = self.confuse(obj[i]) if self.rng.random() < 0.5 else self.junk()
            return obj
        return self.junk()

    def encode(self, body: Any) -> bytes:
        """The body as JSON bytes, sometimes with a raw literal no encoder writes put in place of a value."""
        if isinstance(body, dict) and body and self.rng.random() < 0.25:
            body = dict(body)
            key = self.rng.choice(list(body))
            body[key] = "\x00RAW\x00"
            return json.dumps(body).encode().replace(b'"\\u0000RAW\\u0000"', self.rng.choice(RAW_VALUES), 1)
        return json.dumps(body).encode()

    def wreck(self, raw: bytes) -> bytes:
        """Bytes that are not quite the JSON they were: cut, flipped, re-encoded, or plain garbage."""
        r = self.rng.random()
        if r < 0.25 and raw:
            return raw[: self.rng.randrange(len(raw))]
        if r < 0.45 and raw:
            b = bytearray(raw)
            for _ in range(self.rng.randint(1, 4)):
                b[self.rng.randrange(len(b))] = self.rng.randrange(256)
            return bytes(b)
        if r < 0.55:
            return b"\xef\xbb\xbf" + raw
        if r < 0.6:
            return raw.decode("latin-1").encode("utf-16")
        return self.rng.choice([b"", b"null", b"[]", b'"x"', b"1", b"[" * 100_000, b"{" * 33, b'{"a":' * 40,
                                b"\xff" * 10, b"{}" * 3, b'{"t": "a", "t": "b"}', b" " * 20_000 + b"{}", b"\x00",
                                b'{"' + b"k" * 300_000 + b'": 1}', b"[" + b"0," * 200_000 + b"0]"])

    def quote(self, value: Any) -> str:
        """A query value as text, sometimes with raw percent garbage."""
        if self.rng.random() < 0.15:
            return self.rng.choice(["%FF%FE", "%C3%A9", "%", "%zz", "%00", "%C2%B2", "%ED%A0%80", "a%20b", "+", "%2B1"])
        text = value if isinstance(value, str) else json.dumps(value)
        return urllib.parse.quote(text, safe="", errors="surrogatepass")

    def gid(self) -> str:
        """A game id: mostly a real one, sometimes garbage (percent-encoded)."""
        if self.rng.random() < 0.85:
            return self.rng.choice(self.games).gid
        return self.rng.choice(["nope", "a" * 64, "a" * 65, "a" * 5000, "%00", "%FF", "..", "%2e%2e", "%2F", "é",
                                "%C3%A9", "x%20y", "-", "_", urllib.parse.quote(str(self.junk()), safe="", errors="surrogatepass")])

    def api(self, method: str, path: str, body: Any = None, label: str = "", exact: bool = False) -> Req:
        """A request as the page sends it (its body sometimes with a raw literal in it, unless `exact`)."""
        data = None if body is None else json.dumps(body).encode() if exact else self.encode(body)
        return Req(method, path.encode(), self.headers(data is not None), data, label=label)

    # --- one request of each route ---------------------------------------------------------------------------
    def seats_spec(self, n: int | None = None) -> list[dict[str, Any]]:
        """Seats for a new game: people mostly, a cheap agent sometimes (agents' games use the cores)."""
        n = n or self.rng.randint(2, 4)
        return [{"name": f"P{i}", "agent": "human" if i == 0 or self.rng.random() < 0.7 else "random"}
                for i in range(n)]

    def rules_text(self) -> str:
        """A ruleset to upload: the variant, or the Scotland rules broken a little."""
        r = self.rng.random()
        if r < 0.3:
            return VARIANT + self.rng.choice(["", "players 2 to 9\n", "hand 3\n", "tiles { food x2 }\n",
                                              'extends "ireland"\n', "((((" * 2000 + "\n", "x" * 300_000])
        if r < 0.4:
            return f'ruleset v extends "{self.rng.choice(["v", "../../etc/hostname", "ireland", "nope", "", "v.rules"])}"\n'
        text = SCOTLAND_RULES
        for _ in range(self.rng.randint(1, 3)):
            i = self.rng.randrange(len(text))
            op = self.rng.random()
            if op < 0.35:
                text = text[:i] + chr(self.rng.choice([0, 9, 10, 34, 35, 40, 41, 123, 125, 0xE9, 0x202E,
                                                       self.rng.randrange(32, 127)])) + text[i + 1:]
            elif op < 0.55:
                text = text[:i]
            elif op < 0.75:
                j = min(len(text), i + self.rng.randint(1, 200))
                text = text[:i] + text[j:]
            else:
                text = text[:i] + self.rng.choice(["(" * 500, "9" * 40, " x999999999", "{", "}", '"', "\\"]) + text[i:]
        return text

    def board_text(self) -> str:
        """A board to upload: Scotland's, broken a little, or any JSON."""
        r = self.rng.random()
        if r < 0.3:
            return SCOTLAND_BOARD
        if r < 0.5:
            return SCOTLAND_BOARD[: self.rng.randrange(len(SCOTLAND_BOARD))]
        board = json.loads(SCOTLAND_BOARD)
        if r < 0.85:
            for _ in range(self.rng.randint(1, 3)):
                h = self.rng.choice(board["hexes"])
                h[self.rng.choice(["kind", "q", "r", "area", "tags", "name", "extra"])] = self.junk()
            return json.dumps(board)
        return json.dumps(self.confuse(board) if self.rng.random() < 0.5 else self.junk())

    def create(self) -> Req:
        """POST /api/games: a fresh game, one of uploaded files, or a branch of a record."""
        r = self.rng.random()
        if r < 0.4:
            rules = self.rng.choice(["scotland", "ireland"])
            spec: dict[str, Any] = {"rules": rules, "seed": self.rng.randint(0, 10**6), "seats": self.seats_spec()}
            if self.rng.random() < 0.3:
                spec["board"] = self.rng.choice(["scotland", "ireland"])
            label = "create"
        elif r < 0.75:
            spec = {"rules_file": {"name": self.rng.choice(["v.rules", "w.rules"]), "text": self.rules_text()},
                    "seats": self.seats_spec(), "seed": 1}
            if self.rng.random() < 0.6:
                spec["board_file"] = {"name": "vb.json", "text": self.board_text()}
            else:
                spec["board"] = "scotland"
            if self.rng.random() < 0.2:
                spec["rules_files"] = [{"name": "x.rules", "text": self.rules_text()}]
            label = "upload"
        else:
            source: dict[str, Any] = ({"name": self.rng.choice(EXAMPLES)} if not self.records or self.rng.random() < 0.5
                                      else {"record": self.rng.choice(self.records)})
            spec = {"from": source, "at": self.rng.choice([None, 0, 1, 2, 5, 40, 500, -1]),
                    "seats": self.seats_spec(self.rng.choice([2, 2, 3, 4]))}
            label = "branch"
        if self.rng.random() < 0.6:
            spec = self.confuse(spec)
        return self.api("POST", "/api/games", spec, label)

    def view(self) -> Req:
        """GET /api/games/G with t, after, wait."""
        query = []
        if self.rng.random() < 0.9:
            query.append("t=" + self.quote(self.token()))
        if self.rng.random() < 0.5:
            after = self.rng.choice(["0", "1", "5", "999999", "-1", "--5", "-", "", "²", "１", "9" * 18, "9" * 19,
                                     "9" * 5000, "1e3", "0x1", " 1", "+1", "1.0", "٣", "-0", "00001"])
            query.append("after=" + self.quote(after))
            if self.rng.random() < 0.7:
                # a finite wait over a fraction of a second would hold the fuzz up: only junk, 0 or short ones
                query.append("wait=" + self.quote(self.rng.choice(["0", "0.01", "-5", "nan", "inf", "-inf", "1e400",
                                                                   "abc", "", "0x10", "9" * 400, "²", "1_0"])))
        if self.rng.random() < 0.1:
            query.append(self.rng.choice(["t", "t=", "t=a&t=b", "&&", "=", "after", ";", "t=%"]))
        return self.api("GET", f"/api/games/{self.gid()}?{'&'.join(query)}", label="view")

    def move(self) -> Req:
        """POST /api/games/G/move: random tiles, hexes and answers, from any seat."""
        body: dict[str, Any] = {"t": self.token(), "tile": self.rng.choice(TILES),
                                "hex": [self.rng.randint(-3, 20), self.rng.randint(-3, 20)]}
        if self.rng.random() < 0.3:
            body["hex"] = self.rng.choice([None, [10**29, 1], [0], [1, 2, 3], [1.0, 2], [True, 1], ["1", "2"], "1,2",
                                           {"q": 1, "r": 2}, [-2**63, 2**63]])
        if self.rng.random() < 0.3:
            lm = self.rng.choice(LANDMARKS)
            body["choices"] = self.rng.choice([{}, {lm: False}, {lm: {"take": "#1"}}, {lm: {"take": "#999"}},
                                               {lm: {"take": "food"}}, {lm: {"swap": "#0"}}, {lm: {"a": 1, "b": 2}},
                                               {lm: True}, {lm: None}, [], "x", {lm: {"take": "#" + "9" * 5000}}])
        if self.rng.random() < 0.2:
            body["version"] = self.rng.choice([1, 2, -1, "1", None, 10**29, 1.5])
        if self.rng.random() < 0.4:
            body = self.confuse(body)
        return self.api("POST", f"/api/games/{self.gid()}/move", body, "move")

    def legal_move(self) -> None:
        """A real move of a person whose turn it is (its question answered), so the games go on."""
        g = self.rng.choice(self.games)
        if not g.seats:
            return
        tok = self.rng.choice(g.seats)
        status, _, data = self.send(self.api("GET", f"/api/games/{g.gid}?t={tok}", label="legal-view"))
        try:
            view = json.loads(data)
        except ValueError:
            return
        if status != 200 or view.get("over") or view.get("turn") != view.get("you") or not view.get("legal"):
            return
        tile, options = self.rng.choice(list(view["legal"].items()))
        if not options:
            return
        option = self.rng.choice(options)
        body = {"t": tok, "tile": tile, "hex": option["hex"], "version": view["version"]}
        if self.rng.random() < 0.3:  # a legal placement with answers it may not ask for, face-down ones too
            lm = self.rng.choice([*LANDMARKS, *view.get("castles", {})])
            body["choices"] = {lm: self.rng.choice([{"take": "#²"}, {"take": "#" + "9" * 5000}, {"take": "#1"},
                                                    {"take": "#-1"}, {"take": "#0"}, {"take": "#１"}, False,
                                                    {"take": self.junk()}, self.junk()])}
        status, _, data = self.send(self.api("POST", f"/api/games/{g.gid}/move", body, "legal-move", exact=True))
        try:
            out = json.loads(data)
        except ValueError:
            return
        if status == 200 and out.get("status") == "question":
            view = json.loads(self.send(self.api("GET", f"/api/games/{g.gid}?t={tok}", label="legal-view"))[2])
            choices: dict[str, Any] = {}
            for q in (view.get("pending") or {}).get("questions", []):
                choices[q["landmark"]] = (False if self.rng.random() < 0.3 or not q["options"]
                                          else {q["key"]: self.rng.choice(q["options"])["value"]})
            body = {"t": tok, "tile": tile, "hex": option["hex"], "choices": choices}
            self.send(self.api("POST", f"/api/games/{g.gid}/move", body, "legal-answer", exact=True))

    def study(self) -> Req:
        """POST /api/study: bundled examples, uploaded records (broken ones too), paths."""
        r = self.rng.random()
        if r < 0.4 or not self.records:
            source: Any = {"name": self.rng.choice(EXAMPLES)}
        elif r < 0.7:
            source = {"record": self.rng.choice(self.records)}
        elif r < 0.85:
            source = {"record": self.confuse(self.rng.choice(self.records))}
        elif r < 0.9:  # a game of this server, by its link (studied once it is over)
            source = {"game": self.gid(), "t": self.token()}
        else:
            source = {"path": self.rng.choice(["/etc/passwd", str(self.server.data / "games.sqlite3"), "~"])}
        body = {"source": source, "step": self.rng.choice([None, 0, 1, 3, 10, 36, 72, 119, 2000, -1])}
        if self.rng.random() < 0.4:
            body = self.confuse(body)
        return self.api("POST", "/api/study", body, "study")

    def page(self) -> Req:
        """GET /, /study, /games, /game/X, /static/...: the page and its files."""
        path = self.rng.choice(["/", "/study", "/games", f"/game/{self.gid()}?t={self.quote(self.token())}", "/game/",
                                f"/static/{self.rng.choice(STATIC)}", "/favicon.ico", "/%2e%2e/", "/index.html"])
        return Req(self.rng.choice(["GET", "GET", "HEAD", "POST"]), path.encode(), self.headers(False), label="page")

    def other(self) -> Req:
        """The other API routes: catalog, undo, record, summary, files, unknown addresses, wrong methods."""
        r = self.rng.random()
        tok = self.quote(self.token())
        if r < 0.15:
            return self.api("GET", "/api/catalog" + self.rng.choice(["", "?x=%FF", "?" + "a" * 3000]), label="catalog")
        if r < 0.4:
            body = {"t": self.token()}
            return self.api("POST", f"/api/games/{self.gid()}/undo", self.confuse(body) if r < 0.2 else body,
                            "undo")
        if r < 0.48:
            return self.api("GET", f"/api/games/{self.gid()}/record?t={tok}", label="record")
        if r < 0.55:
            return self.api("GET", f"/api/games/{self.gid()}/summary?t={tok}", label="summary")
        if r < 0.75:
            key = self.rng.choice(["rules", "board", "rules", "board", "x", "%00", "..", "rules%2F..", "é", "a" * 3000])
            return self.api("GET", f"/api/games/{self.gid()}/files/{key}?t={tok}", label="files")
        if r < 0.9:
            path = self.rng.choice(["/api/", "/api/x", "/api/games/", "/api/games/a/b/c", "/api/%FF", "/api/..%2f..",
                                    "/api/games/x/move/more", "/api/" + "z" * 5000, "/api/study/1"])
            return self.api(self.rng.choice(["GET", "POST"]), path, {} if self.rng.random() < 0.5 else None,
                            "unknown")
        path = self.rng.choice(["/api/games", "/api/study", "/api/catalog", f"/api/games/{self.gid()}/move"])
        return self.api(self.rng.choice(["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"]), path, {}, "method")

    # --- hostile wrappers ------------------------------------------------------------------------------------
    def mangle(self, req: Req) -> Req:
        """The request with its body, headers or path made hostile (or left as it is)."""
        posting = req.method == "POST" and req.body is not None
        r = self.rng.random()
        if posting and r < 0.15:
            req.body, req.label = self.wreck(req.body or b""), req.label + "+body"
        elif posting and r < 0.25:
            kind = self.rng.choice([b"text/plain", b"application/x-www-form-urlencoded", b"multipart/form-data",
                                    b"application/jsonx", b"json", b"", b"application/json-patch+json",
                                    b"text/json", b"application/\xe9json"])
            req.headers = [h for h in req.headers if h[0] != b"Content-Type"]
            if kind:
                req.headers.append((b"Content-Type", kind))
            if POST_ROUTE.fullmatch(req.target):
                req.expect = {415}  # a POST to a real route: refused for its type before anything else
            req.label += "+type"
        elif posting and r < 0.3:
            req.headers = [h if h[0] != b"Content-Type" else (h[0], self.rng.choice(
                [b"APPLICATION/JSON", b"application/json; charset=latin-1", b"application/json;;;", b" application/json"]))
                for h in req.headers]
            req.label += "+type-ok"
        elif r < 0.4:
            origin = self.rng.choice([None, b"null", b"http://evil.example", b"file://", b"http://127.0.0.1",
                                      b"http://127.0.0.1:1", b"\xe9\xff", b"http://[::1", b"::::",
                                      b"https://127.0.0.1:%d" % self.server.port, b"http://localhost:%d" % self.server.port])
            req.headers = [h for h in req.headers if h[0] != b"Origin"]
            if origin is not None:
                req.headers.append((b"Origin", origin))
            elif self.rng.random() < 0.5:
                req.headers.append((b"Sec-Fetch-Site", self.rng.choice([b"same-origin", b"cross-site", b"\xff"])))
            if posting and origin in (b"null", b"http://evil.example", b"file://") and POST_ROUTE.fullmatch(req.target):
                req.expect = {403}
            req.label += "+origin"
        elif r < 0.47:
            host = self.rng.choice([b"evil.example", b"127.0.0.1:99999", b"\xe9", b"[::1]", b"localhost", b"[::1",
                                    b"127.0.0.1:%d" % self.server.port + b"x" * 3000, b"", b"LOCALHOST:1"])
            req.headers = [h for h in req.headers if h[0] != b"Host"] + [(b"Host", host)]
            if host == b"evil.example":
                req.expect = {421}
            req.label += "+host"
        elif r < 0.53:
            value = self.rng.choice([b"", b"\xe9\xe9", b"x" * 10_000, self.server.page_token.encode()[:-1],
                                     self.server.page_token.encode() + b"\x00", "é".encode()])
            req.headers = [h if h[0] != b"X-Rebirth-Page" else (h[0], value) for h in req.headers]
            req.label += "+page"
        elif r < 0.58:
            req.headers.append(self.rng.choice([(b"X-Junk", b"\x01\x02"), (b"Accept-Encoding", b"gzip"),
                                                (b"Cookie", b"a=" + b"b" * 8000), (b"Host", b"second.example"),
                                                (b"Content-Length", b"abc"), (b"Expect", b"100-continue"),
                                                (b"X-Long", b"y" * 20_000), (b"Connection", b"close"),
                                                (b"Transfer-Encoding", b"gzip"), (b"bad header", b"1")]))
            req.label += "+header"
        elif posting and r < 0.62:
            req.chunked, req.label = True, req.label + "+chunked"
        elif r < 0.68:
            path, _, query = req.target.partition(b"?")
            junk = self.rng.choice([b"%FF", b"%00", b"%", b"%zz", b"\xff", b"\x00", b" ", b"%2F..%2F", b"\xc3\xa9",
                                    b"/../..", b"//", b"#frag", b"\t"])
            req.target = path + junk + (b"?" + query if query else b"") if self.rng.random() < 0.5 else \
                path + b"?" + query + b"&" + junk
            req.label += "+path"
        return req

    def garbage(self) -> Req:
        """A request line and headers that are barely HTTP."""
        method = self.rng.choice(["GET", "POST", "G\x00T", "get", "PRI", "CONNECT", "A" * 200])
        target = self.rng.choice([b"*", b"http://127.0.0.1/api/catalog", b"api/catalog", b"/\xff\xfe",
                                  b"/" + b"a" * 70_000, b"", b"/api/games?" + b"t=" * 5000, b"/%",
                                  b"/api/games/%s?t=%s" % (self.gid().encode(), "é".encode())])
        return Req(method, target, self.headers(False), label="garbage")

    # --- sending and checking --------------------------------------------------------------------------------
    def send(self, req: Req) -> tuple[int, dict[str, str], bytes]:
        """Send one request, check its answer, and keep count."""
        status, headers, body = self.client.send(req.wire(), req.method if req.method.isalpha() else "GET")
        self.sent += 1
        self.statuses[status] += 1
        for problem in answer_problems(req, status, headers, body, self.hidden()):
            self.failures.append(f"{problem}: {req.short()} -> {status} {body[:300]!r}")
        if status == 201 and req.label in ("create", "upload", "branch") and len(self.games) < 40:
            self.learn(body)
        return status, headers, body

    def hidden(self) -> list[str]:
        """Text no answer may contain: the server's folders."""
        return [str(self.server.data), str(self.server.data.resolve()), str(ROOT)]

    def learn(self, body: bytes) -> None:
        """Keep a game the fuzz made (uploads that parsed, branches) for the requests after it."""
        try:
            made = json.loads(body)
            links = made["links"]
            self.games.append(Game(made["id"], [x["token"] for x in links if x["seat"] is not None],
                                   next(x["token"] for x in links if x["seat"] is None)))
        except (ValueError, KeyError, TypeError, StopIteration):
            self.failures.append(f"a 201 without an id and links: {body[:300]!r}")

    def step(self) -> None:
        """One fuzzed request of a route picked at random."""
        r = self.rng.random()
        if r < 0.06:
            self.legal_move()
            return
        if r < 0.1:
            req = self.page()
        elif r < 0.24:
            req = self.create()
        elif r < 0.42:
            req = self.view()
        elif r < 0.62:
            req = self.move()
        elif r < 0.72:
            req = self.study()
        elif r < 0.96:
            req = self.other()
        else:
            self.send(self.garbage())
            return
        self.send(self.mangle(req))


def answer_problems(req: Req, status: int, headers: dict[str, str], body: bytes, hidden: list[str]) -> list[str]:
    """What is wrong with an answer: an internal error, a leak, or an API refusal that is not JSON."""
    problems = []
    if status == 0:
        problems.append("no answer")
        return problems
    if status == 500 or not 100 <= status < 600:
        problems.append(f"status {status}")
    refused_as_bytes = status == 400 and body == PROTOCOL_REFUSAL  # uvicorn's, before any route or guard
    if req.expect is not None and status not in req.expect and not refused_as_bytes:
        problems.append(f"status {status}, not {sorted(req.expect)}")
    text = body.decode("utf-8", "replace")
    if "Traceback" in text:
        problems.append("a traceback")
    problems += [f"the folder {p}" for p in hidden if p and p in text]
    path = urllib.parse.unquote_to_bytes(req.target.split(b"?", 1)[0])
    if not path.startswith(b"/api/") or req.method == "HEAD":
        return problems
    if EXCEPTION_NAME.search(text):
        problems.append(f"an exception's name ({EXCEPTION_NAME.search(text).group()})")  # type: ignore[union-attr]
    if refused_as_bytes:
        return problems
    if status == 405 and "allow" in headers:
        return problems  # Starlette's, before any route: a method the address does not take
    kind = headers.get("content-type", "")
    if kind.startswith("application/json") or 400 <= status < 500:
        try:
            data = json.loads(body)
        except ValueError:
            problems.append("an API answer that is not JSON")
            return problems
        if 400 <= status < 500 and not (isinstance(data, dict) and isinstance(data.get("error"), str)):
            problems.append("an API refusal without an \"error\" string")
    return problems


# ----- the test ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("api-fuzz")
    s = FuzzServer(folder / "store", folder / "server.log")
    yield s
    s.stop()


def made(fuzz: Fuzz, spec: dict[str, Any], rules: str) -> Game:
    """A game made before the fuzz, which must be made."""
    status, _, body = fuzz.send(fuzz.api("POST", "/api/games", spec, "setup", exact=True))
    assert status == 201, body
    out = json.loads(body)
    return Game(out["id"], [x["token"] for x in out["links"] if x["seat"] is not None],
                next(x["token"] for x in out["links"] if x["seat"] is None), rules)


def real_games(fuzz: Fuzz) -> None:
    """Scotland and Ireland, people and agents, an uploaded variant on an uploaded board, and a finished game
    (agents only) whose record the fuzz uploads again."""
    people = [{"name": "Ann", "agent": "human"}, {"name": "Bob", "agent": "human"}]
    mixed = [{"name": "Ann", "agent": "human"}, {"name": "Bob", "agent": "greedy"}]
    fuzz.games += [
        made(fuzz, {"rules": "scotland", "seed": 1, "seats": mixed}, "scotland"),
        made(fuzz, {"rules": "scotland", "seed": 2, "seats": [*people, {"name": "Cat", "agent": "random"}]},
             "scotland"),
        made(fuzz, {"rules": "ireland", "seed": 3, "seats": mixed}, "ireland"),
        made(fuzz, {"rules": "ireland", "seed": 4, "seats": people}, "ireland"),
        made(fuzz, {"rules_file": {"name": "v.rules", "text": VARIANT}, "seed": 5, "seats": mixed,
                    "board_file": {"name": "v-board.json", "text": SCOTLAND_BOARD}}, "v"),
    ]
    done = made(fuzz, {"rules": "scotland", "seed": 6, "seats": [{"name": "A", "agent": "greedy"},
                                                                  {"name": "B", "agent": "random"}]}, "scotland")
    fuzz.games.append(done)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        status, _, body = fuzz.send(fuzz.api("GET", f"/api/games/{done.gid}?t={done.watch}", label="setup"))
        if status == 200 and json.loads(body)["over"]:
            break
        time.sleep(0.2)
    status, _, body = fuzz.send(fuzz.api("GET", f"/api/games/{done.gid}/record?t={done.watch}", label="setup"))
    assert status == 200, body
    fuzz.records.append(json.loads(body))


def test_no_request_gets_an_internal_error(server: FuzzServer) -> None:
    """FUZZ_N requests of every route, mutated: none gets a 500, a traceback, an exception's name or a folder
    of the server; the server lives on and its log records no internal error."""
    fuzz = Fuzz(server, random.Random(FUZZ_SEED), [], Client(server.port))
    real_games(fuzz)
    start = time.monotonic()
    setup = fuzz.sent
    while fuzz.sent - setup < FUZZ_N:
        fuzz.step()
    took = time.monotonic() - start
    fuzz.client.close()
    time.sleep(0.3)  # an agent thread's last words reach the log
    log = server.log()
    logged = [line for line in log.splitlines() if INTERNAL_LOG.search(line)]
    # each failure logs its id line (or uvicorn's, or the agent thread's) and then a traceback: count it once
    internal = max(fuzz.statuses[500], sum(1 for line in logged if not line.startswith("Traceback")))
    print(f"\napi fuzz: {fuzz.sent - setup} inputs sent (seed {FUZZ_SEED}) in {took:.0f} s; statuses "
          f"{dict(sorted(fuzz.statuses.items()))}; {len(fuzz.games)} games; internal errors {internal}; "
          f"other problems {len(fuzz.failures) - fuzz.statuses[500]}")
    assert server.proc.poll() is None, "the server died"
    assert not logged, "the server logged internal errors:\n" + "\n".join(logged[:20]) + "\n" + log[-4000:]
    assert not fuzz.failures, f"{len(fuzz.failures)} bad answers:\n" + "\n".join(fuzz.failures[:25])


def test_the_checks_catch_an_internal_error() -> None:
    """The fuzz's checks are not vacuous: a 500, a traceback, a folder, a bare refusal are each caught."""
    req = Req("POST", b"/api/games", [], b"{}", label="create")
    ok = {"content-type": "application/json"}
    assert answer_problems(req, 400, ok, b'{"error": "seats: a list"}', ["/srv/data"]) == []
    assert answer_problems(req, 500, ok, b'{"error": "the server failed (error 1a2b3c4d)"}', [])
    assert answer_problems(req, 400, ok, b'{"error": "Traceback (most recent call last)"}', [])
    assert answer_problems(req, 400, ok, b'{"error": "ValueError: bad"}', [])
    assert answer_problems(req, 400, ok, b'{"error": "no /srv/data/games.sqlite3"}', ["/srv/data"])
    assert answer_problems(req, 403, {"content-type": "text/plain"}, b"Forbidden", [])
    assert answer_problems(req, 400, ok, b'{"message": "x"}', [])
    assert answer_problems(req, 0, {}, b"", [])
    assert answer_problems(Req("GET", b"/api/x", [], expect={421}), 404, ok, b'{"error": "x"}', [])
    assert not answer_problems(Req("GET", b"/api/\xff", [], expect={421}), 400, {}, PROTOCOL_REFUSAL, [])
