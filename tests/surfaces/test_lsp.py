"""`rebirth lsp`, driven as an editor drives it: a real server process (`python -m rebirth_dsl lsp`) and
pygls's client, talking JSON-RPC over the process's pipes. Needs the extra `rebirth-dsl[lsp]`."""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the editor server is the optional extra rebirth-dsl[lsp]")

from conftest import ROOT, beyond_bundled_findings
from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

SCOTLAND = ROOT / "rules" / "scotland.rules"
SCOTLAND_BOARD = ROOT / "boards" / "scotland.json"
TIMEOUT = 20.0  # seconds for any one answer: the first check imports the whole checker


class Editor:
    """A test editor: a pygls client on a server process, which keeps the diagnostics published to it."""

    def __init__(self, configuration: dict[str, Any] | None = None) -> None:
        self.client = LanguageClient("rebirth-test-editor", "1")
        self.published: dict[str, list[T.PublishDiagnosticsParams]] = {}
        self.arrived = asyncio.Condition()
        self.configuration = configuration
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def on_diagnostics(params: T.PublishDiagnosticsParams) -> None:
            async with self.arrived:
                self.published.setdefault(params.uri, []).append(params)
                self.arrived.notify_all()

        @self.client.feature(T.WORKSPACE_CONFIGURATION)
        def on_configuration(params: T.ConfigurationParams) -> list[Any]:
            return [self.configuration for _ in params.items]

    async def start(self, cwd: Path, options: Any = None) -> None:
        """Start the server and initialize it as an editor would."""
        env = dict(os.environ, PYTHONPATH=str(ROOT))  # the tree under test, wherever the test runs from
        await self.client.start_io(sys.executable, "-m", "rebirth_dsl", "lsp", cwd=str(cwd), env=env)
        caps = T.ClientCapabilities(
            workspace=T.WorkspaceClientCapabilities(configuration=self.configuration is not None),
            text_document=T.TextDocumentClientCapabilities(
                hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown]),
                publish_diagnostics=T.PublishDiagnosticsClientCapabilities(version_support=True)))
        result = await asyncio.wait_for(self.client.initialize_async(T.InitializeParams(
            capabilities=caps, root_uri=from_fs_path(str(cwd)), initialization_options=options)), TIMEOUT)
        assert result.capabilities.hover_provider and result.capabilities.completion_provider
        self.capabilities = result.capabilities
        self.client.initialized(T.InitializedParams())

    async def stop(self) -> None:
        """Shut the server down as an editor does; it must exit by itself."""
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)

    def open(self, path: Path, text: str | None = None) -> str:
        """Open a document (its text from disk unless given); returns its URI."""
        uri = from_fs_path(str(path))
        self.texts[uri] = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri] = 1
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id="rebirth", version=1, text=self.texts[uri])))
        return uri

    def edit(self, uri: str, old: str, new: str) -> int:
        """Replace the first `old` in a document by `new`, sent as an incremental change; the new version."""
        text = self.texts[uri]
        start = position(text, old)
        end = position(text, old, len(old))
        self.texts[uri] = text.replace(old, new, 1)
        self.versions[uri] += 1
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[T.TextDocumentContentChangePartial(range=T.Range(start=start, end=end), text=new)]))
        return self.versions[uri]

    def mark(self, uri: str) -> int:
        """How many diagnostics publications a document has had: `diagnostics(after=...)` skips them."""
        return len(self.published.get(uri, []))

    async def diagnostics(self, uri: str, version: int | None = None,
                          until: Callable[[list[T.Diagnostic]], bool] | None = None,
                          after: int = 0) -> list[T.Diagnostic]:
        """The diagnostics published for a version of a document (or the first that satisfy `until`), less the
        bundled games' own findings (tests/conftest.py: a base's warnings ride along with every variant)."""
        def found() -> list[T.Diagnostic] | None:
            for p in self.published.get(uri, [])[after:]:
                ds = beyond_bundled_findings(p.diagnostics)
                if (version is None or p.version == version) and (until is None or until(ds)):
                    return ds
            return None

        async def wait() -> list[T.Diagnostic]:
            async with self.arrived:
                await self.arrived.wait_for(lambda: found() is not None)
            return found() or []
        return await asyncio.wait_for(wait(), TIMEOUT)

    async def hover(self, uri: str, at: T.Position) -> str:
        """The hover text at a position ("" for none)."""
        h = await asyncio.wait_for(self.client.text_document_hover_async(
            T.HoverParams(text_document=T.TextDocumentIdentifier(uri=uri), position=at)), TIMEOUT)
        return h.contents.value if h is not None else ""  # type: ignore[union-attr]

    async def complete(self, uri: str, at: T.Position) -> dict[str, T.CompletionItem]:
        """The completions at a position, by label."""
        got = await asyncio.wait_for(self.client.text_document_completion_async(
            T.CompletionParams(text_document=T.TextDocumentIdentifier(uri=uri), position=at)), TIMEOUT)
        items = got.items if isinstance(got, T.CompletionList) else (got or [])
        return {i.label: i for i in items}

    async def definition(self, uri: str, at: T.Position) -> T.Location | None:
        """Where the thing at a position is defined."""
        got = await asyncio.wait_for(self.client.text_document_definition_async(
            T.DefinitionParams(text_document=T.TextDocumentIdentifier(uri=uri), position=at)), TIMEOUT)
        if isinstance(got, list):
            return got[0] if got else None
        return got  # type: ignore[return-value]


def position(text: str, sub: str, offset: int = 0, nth: int = 0) -> T.Position:
    """The position of the nth occurrence of sub in text, plus offset characters (text is ASCII here)."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(sub, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    return T.Position(line=line, character=i - (text.rfind("\n", 0, i) + 1))


def session(test: Callable[[Editor], Awaitable[None]], cwd: Path, options: Any = None,
            configuration: dict[str, Any] | None = None) -> None:
    """Run an exchange with a fresh server, shutting it down even when the test fails."""
    async def main() -> None:
        editor = Editor(configuration)
        await editor.start(cwd, options)
        try:
            await test(editor)
        finally:
            await editor.stop()
    asyncio.run(main())


def test_typing_in_the_scotland_rules(tmp_path: Path) -> None:
    """Open the bundled Scotland rules, make a typo and fix it, then hover, complete and jump."""
    async def exchange(ed: Editor) -> None:
        uri = ed.open(SCOTLAND)
        assert await ed.diagnostics(uri, 1) == []  # the bundled game is clean, against its own board

        # a typo: the diagnostic sits on the word, with the checker's message and suggestion
        v = ed.edit(uri, "place food on food, plain", "place food on fod, plain")
        [d] = await ed.diagnostics(uri, v)
        text = ed.texts[uri]
        start = position(text, "place food on fod", len("place food on "))
        assert d.range == T.Range(start=start, end=T.Position(line=start.line, character=start.character + 3))
        assert "fod" in d.message and "food" in d.message and d.severity == T.DiagnosticSeverity.Error
        assert d.source == "rebirth"
        v = ed.edit(uri, "place food on fod, plain", "place food on food, plain")
        assert await ed.diagnostics(uri, v) == []  # fixed: cleared

        # a syntax error is a diagnostic too, under the offending word
        v = ed.edit(uri, "players 2 to 4", "players 2 to four")
        [d] = await ed.diagnostics(uri, v)
        start = position(ed.texts[uri], "four")
        assert d.code == "syntax" and d.range.start == start and d.range.end.character == start.character + 4
        v = ed.edit(uri, "players 2 to four", "players 2 to 4")
        assert await ed.diagnostics(uri, v) == []

        # hover: the statement in English with its rule ids; a function's signature and doc
        text = ed.texts[uri]
        h = await ed.hover(uri, position(text, "place food on food", 2))
        assert "S-P2" in h and "goes on a free food or plain hex" in h
        h = await ed.hover(uri, position(text, "pay size 2: 5, 3", 4))
        assert "S-A3" in h and "size 2 pays 5 / 3" in h and "size 3" not in h  # the item, under its block
        h = await ed.hover(uri, position(text, "largest(groups(me, food))", 3))
        assert "largest(groups) -> int" in h and "largest group" in h

        # completion: keywords, the ruleset's kinds, tags and decks, the board's landmarks, the functions
        items = await ed.complete(uri, position(text, "held cards as missions"))
        for label in ("majority", "ruleset", "extends", "plain", "settlement", "farm", "harbour", "castle",
                      "mission", "largest", "near", "me", "Stirling"):
            assert label in items, label
        assert items["largest"].kind == T.CompletionItemKind.Function and "groups" in (items["largest"].detail or "")
        assert items["Stirling"].insert_text == '"Stirling"' and items["Stirling"].detail == "castle"
        items = await ed.complete(uri, position(text, 'owner(castle "Stirling")', len('owner(castle "')))
        assert "Stirling" in items and "Edinburgh" in items and "majority" not in items  # a castle's name
        assert all(i.detail == "castle" for i in items.values())

        # definition: a landmark's name goes to its entry in the board JSON
        loc = await ed.definition(uri, position(text, 'castle "Stirling"', 10))
        assert loc is not None and loc.uri == from_fs_path(str(SCOTLAND_BOARD))
        board_lines = SCOTLAND_BOARD.read_text(encoding="utf-8").split("\n")
        assert '"name": "Stirling"' in board_lines[loc.range.start.line]

        # latency: each change answered (diagnostics, hover, completion) on the full Scotland rules
        figures: dict[str, list[float]] = {"diagnostics": [], "hover": [], "completion": []}
        for i in range(12):
            old, new = ("plain", "plian") if i % 2 == 0 else ("plian", "plain")
            t0 = time.perf_counter()
            v = ed.edit(uri, f"place food on food, {old}", f"place food on food, {new}")
            here = position(ed.texts[uri], "largest(groups(me, food))", 3)

            async def timed(what: str, job: Awaitable[Any], start: float = t0) -> Any:
                out = await job
                figures[what].append((time.perf_counter() - start) * 1000)
                return out
            got = await asyncio.gather(timed("diagnostics", ed.diagnostics(uri, v)), timed("hover", ed.hover(uri, here)),
                                       timed("completion", ed.complete(uri, here)))
            assert bool(got[0]) == (i % 2 == 0) and "largest" in got[1] and "largest" in got[2]
        print("\nrebirth lsp, Scotland rules, ms from a change to the answer (12 changes): "
              + "; ".join(f"{k} median {statistics.median(v):.1f}, max {max(v):.1f}" for k, v in figures.items()))

    session(exchange, tmp_path)


def _variant(tmp_path: Path, body: str, base: Path = SCOTLAND) -> Path:
    """A ruleset in a folder of its own that extends a base by a relative path."""
    p = tmp_path / "mine" / "variant.rules"
    p.parent.mkdir(exist_ok=True)
    p.write_text(f'ruleset variant "A variant" extends "{os.path.relpath(base, p.parent)}"\n{body}', encoding="utf-8")
    return p


WINNER = 'end {\n  winner ties: owner(castle "Stirling") among tied   # X-E1\n}\n'


def test_extends_and_the_board_setting(tmp_path: Path) -> None:
    """A ruleset extending Scotland from elsewhere: checked with its base and the base's board; `extends`
    jumps to the base; a board named by the initialization options, then changed by the settings."""
    other = tmp_path / "other.json"
    other.write_text(SCOTLAND_BOARD.read_text(encoding="utf-8").replace('"Stirling"', '"Sterling"'), encoding="utf-8")
    variant = _variant(tmp_path, WINNER)
    (variant.parent / "sibling.rules").write_text('ruleset sibling "S"\n', encoding="utf-8")

    async def exchange(ed: Editor) -> None:
        uri = ed.open(variant)
        ds = await ed.diagnostics(uri, 1)  # the setting's board (a path relative to the workspace) is used
        text = ed.texts[uri]
        mine = [d for d in ds if d.range.start == position(text, 'castle "Stirling"')]
        assert len(mine) == 1 and 'no castle "Stirling"' in mine[0].message
        # the base's own card "Stirling bridge" fails too: shown on the extends clause, naming its place
        [base] = [d for d in ds if d not in mine]
        assert base.message.startswith(f"{SCOTLAND}:") and 'no castle "Stirling"' in base.message
        assert base.range.start == position(text, '"', nth=2)  # the extends string
        loc = await ed.definition(uri, position(ed.texts[uri], "castle", 1))  # a kind: its declaration
        assert loc is not None and loc.uri == from_fs_path(str(SCOTLAND))

        mark = ed.mark(uri)
        ed.client.workspace_did_change_configuration(T.DidChangeConfigurationParams(settings={"rebirth": {"board": ""}}))
        assert await ed.diagnostics(uri, until=lambda ds: not ds, after=mark) == []  # the base's own board
        text = ed.texts[uri]
        loc = await ed.definition(uri, position(text, "scotland.rules", 2))
        assert loc is not None and loc.uri == from_fs_path(str(SCOTLAND.resolve())) and loc.range.start.line == 0
        loc = await ed.definition(uri, position(text, '"Stirling"', 3))
        assert loc is not None and loc.uri == from_fs_path(str(SCOTLAND_BOARD))
        h = await ed.hover(uri, position(text, "winner ties", 1))
        assert "X-E1" in h and 'castle "Stirling"' in h
        h = await ed.hover(uri, position(text, "ruleset", 1))
        assert "Extends" in h
        items = await ed.complete(uri, position(text, "scotland.rules"))  # inside the extends string
        assert "sibling.rules" in items and "variant.rules" not in items  # the rules files beside it

        # a base that is not there: the problem sits on the extends string
        v = ed.edit(uri, "scotland.rules", "scotlnd.rules")
        [d] = await ed.diagnostics(uri, v)
        assert "not found" in d.message
        assert d.range.start == position(ed.texts[uri], '"', nth=2)  # the opening quote of the file name

    session(exchange, tmp_path, options={"rebirth": {"board": "other.json"}})


def test_the_board_setting_pulled_from_the_editor(tmp_path: Path) -> None:
    """An editor that answers workspace/configuration (as VS Code does) names the board that way."""
    other = tmp_path / "other.json"
    other.write_text(SCOTLAND_BOARD.read_text(encoding="utf-8").replace('"Stirling"', '"Sterling"'), encoding="utf-8")
    variant = _variant(tmp_path, WINNER)

    async def exchange(ed: Editor) -> None:
        uri = ed.open(variant)
        ds = await ed.diagnostics(uri, until=lambda ds: bool(ds))
        assert any('no castle "Stirling"' in d.message and 'did you mean "Sterling"' in d.message for d in ds)
        # the setting changes: such an editor sends no settings, only the news; the server asks again
        ed.configuration = {"board": ""}
        mark = ed.mark(uri)
        ed.client.workspace_did_change_configuration(T.DidChangeConfigurationParams(settings=None))
        assert await ed.diagnostics(uri, until=lambda ds: not ds, after=mark) == []

    session(exchange, tmp_path, configuration={"board": str(other)})
