"""`rebirth lsp` keeps the CLI's limits: a document over the rules size limit gets one diagnostic and no
analysis, a leading byte-order mark is read as the CLI reads it, and every request is answered, whatever
position it names. A real server process, spoken to in raw JSON-RPC over its pipes: pygls's client will not
send a position the protocol forbids, and an editor with a bug may."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the editor server is the optional extra rebirth-dsl[lsp]")

from conftest import ROOT, beyond_bundled_findings
from pygls.uris import from_fs_path  # noqa: E402

from rebirth_dsl.lang.limits import MAX_RULES_BYTES  # noqa: E402

SCOTLAND = ROOT / "rules" / "scotland.rules"
TIMEOUT = 20.0  # seconds for any one answer: the first check imports the whole checker
REQUESTS = ("textDocument/hover", "textDocument/completion", "textDocument/definition")


class Raw:
    """A JSON-RPC client on a server process: it sends any JSON, and keeps what the server sends back."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.answers: dict[int, dict[str, Any]] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}

    def send(self, method: str, params: Any, request: bool = True) -> int:
        """Send a request (its id returned) or a notification."""
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.next_id

    async def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while (line := await self.proc.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(await self.proc.stdout.readexactly(length))

    async def until(self, done: Any) -> None:
        """Read what the server sends until done() holds (a request of the server's is answered null)."""
        async def loop() -> None:
            while not done():
                msg = await self._read()
                if "method" in msg and "id" in msg:
                    self.send_answer(msg["id"])
                elif "id" in msg:
                    self.answers[msg["id"]] = msg
                elif msg.get("method") == "textDocument/publishDiagnostics":
                    self.diagnostics[msg["params"]["uri"]] = msg["params"]["diagnostics"]
        await asyncio.wait_for(loop(), TIMEOUT)

    def send_answer(self, msg_id: int) -> None:
        """Answer a request of the server's with null."""
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": None}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def ask(self, method: str, params: Any) -> dict[str, Any]:
        """A request's answer (result or error)."""
        i = self.send(method, params)
        await self.until(lambda: i in self.answers)
        return self.answers[i]

    def open(self, path: Path, text: str) -> str:
        """Open a document; its URI."""
        uri = from_fs_path(str(path))
        self.diagnostics.pop(uri, None)
        self.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rebirth", "version": 1,
                                                            "text": text}}, request=False)
        return uri

    async def published(self, uri: str) -> list[dict[str, Any]]:
        """The diagnostics the server publishes for a document, less the bundled games' own findings
        (tests/conftest.py)."""
        await self.until(lambda: uri in self.diagnostics)
        return beyond_bundled_findings(self.diagnostics[uri])


def exchange(test: Any, cwd: Path) -> None:
    """Start a server, initialize it, run the test, and shut the server down (it must exit by itself)."""
    async def main() -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "rebirth_dsl", "lsp", cwd=str(cwd), env=env,
                                                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        raw = Raw(proc)
        try:
            got = await raw.ask("initialize", {"processId": None, "rootUri": from_fs_path(str(cwd)), "capabilities": {}})
            assert "result" in got
            raw.send("initialized", {}, request=False)
            await test(raw)
            await raw.ask("shutdown", None)
            raw.send("exit", None, request=False)
            assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    asyncio.run(main())


def test_a_document_over_the_size_limit_gets_one_diagnostic(tmp_path: Path) -> None:
    """Scotland's rules copied past the limit (1 MB and 5 MB): one diagnostic at the top naming the size and
    the limit, at once (it took 26 s to analyse 1 MB); requests on it are answered with nothing."""
    text = SCOTLAND.read_text(encoding="utf-8")

    async def test(raw: Raw) -> None:
        for megabytes in (1, 5):
            big = text * (megabytes * 2**20 // len(text) + 1)
            uri = raw.open(tmp_path / f"big{megabytes}.rules", big)
            [d] = await raw.published(uri)
            assert d["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
            assert f"{len(big.encode()):,} bytes" in d["message"] and f"{MAX_RULES_BYTES:,}" in d["message"]
            assert d["severity"] == 1 and d["code"] == "limits"
            for method in REQUESTS:
                got = await raw.ask(method, {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 2}})
                assert got["result"] in (None, {"isIncomplete": False, "items": []}), (method, got)
        # just within the limit is analysed: the limit is the CLI's, not less
        within = text + "#" * (MAX_RULES_BYTES - len(text.encode()) - 1) + "\n"
        uri = raw.open(tmp_path / "within.rules", within)
        assert not [d for d in await raw.published(uri) if d["code"] == "limits"]

    exchange(test, tmp_path)


def test_a_byte_order_mark_is_read_as_the_cli_reads_it(tmp_path: Path) -> None:
    """A leading BOM: no error for it, and a problem on the first line sits where the editor counts it (the
    mark is the editor's character 0 of line 0), as does a problem further down."""
    source = SCOTLAND.read_text(encoding="utf-8")
    text = "\ufeff" + source[source.index("ruleset scotland"):]  # the header on the mark's line

    async def test(raw: Raw) -> None:
        uri = raw.open(tmp_path / "bom.rules", text)
        assert await raw.published(uri) == []
        wrong = text.replace('"Rebirth: Scotland"', '"Rebirth: Scotland" extends "nowhere.rules"', 1)
        lines = wrong.split("\n")
        [d] = await raw.published(raw.open(tmp_path / "bom2.rules", wrong))
        assert "not found" in d["message"]
        assert d["range"]["start"] == {"line": 0, "character": lines[0].index('"nowhere')}  # counted with the BOM
        wrong = text.replace("place food on food", "place food on fod", 1)
        lines = wrong.split("\n")
        [d] = await raw.published(raw.open(tmp_path / "bom3.rules", wrong))
        n = next(i for i, ln in enumerate(lines) if "on fod" in ln)
        assert d["range"]["start"] == {"line": n, "character": lines[n].index("fod")} and "`fod`" in d["message"]
        hover = await raw.ask("textDocument/hover", {"textDocument": {"uri": uri},
                                                     "position": {"line": 0, "character": lines[0].index("ruleset") + 1}})
        assert "Ruleset `scotland`" in hover["result"]["contents"]["value"]

    exchange(test, tmp_path)


def position_of(text: str, sub: str) -> dict[str, int]:
    """The position of a piece of an ASCII text."""
    i = text.index(sub)
    return {"line": text.count("\n", 0, i), "character": i - (text.rfind("\n", 0, i) + 1)}


WHERE = [{"line": -1, "character": 0}, {"line": 0, "character": -1}, {"line": 2**33, "character": 0},
         {"line": 0, "character": 2**33}, {"line": 2**31, "character": 2**31}, {"line": 10**6, "character": 3},
         {"line": 1.5, "character": 0}, {"line": "1", "character": 0}, {"line": None}]


def test_every_request_is_answered_wherever_it_points(tmp_path: Path) -> None:
    """Hover, completion and definition at a position the protocol forbids, or past the document: each is
    answered with nothing or an error (pygls dropped the forbidden ones unanswered), and the server goes on."""
    async def test(raw: Raw) -> None:
        uri = raw.open(SCOTLAND, SCOTLAND.read_text(encoding="utf-8"))
        assert await raw.published(uri) == []
        for where in WHERE:
            for method in REQUESTS:
                got = await raw.ask(method, {"textDocument": {"uri": uri}, "position": where})
                assert got.get("result") in (None, {"isIncomplete": False, "items": []}) or "error" in got, \
                    (where, method, got)
        ruleset = position_of(SCOTLAND.read_text(encoding="utf-8"), "ruleset scotland")
        hover = await raw.ask("textDocument/hover", {"textDocument": {"uri": uri}, "position": ruleset})
        assert "Ruleset `scotland`" in hover["result"]["contents"]["value"]

    exchange(test, tmp_path)
