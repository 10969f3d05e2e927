"""`rebirth lsp`: the Language Server Protocol over stdio, through pygls 2 (the optional extra
`rebirth-dsl[lsp]`). The protocol lives here; what the server knows of the language is in analysis.py.

Each opened or changed document is parsed and checked at once (the Scotland rules take about 15 ms), so
the diagnostics always belong to the text the hover, completion and definition requests then ask about.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from rebirth_dsl import __version__
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lsp.analysis import (
    Analyser,
    Analysis,
    Location,
    Pos,
    Problem,
    Range,
    Symbols,
    completions,
    definition,
    hover,
)

log = logging.getLogger(__name__)

_KINDS = {"keyword": T.CompletionItemKind.Keyword, "function": T.CompletionItemKind.Function,
          "variable": T.CompletionItemKind.Variable, "kind": T.CompletionItemKind.EnumMember,
          "class": T.CompletionItemKind.Class, "tag": T.CompletionItemKind.Property,
          "landmark": T.CompletionItemKind.Constant, "deck": T.CompletionItemKind.Module,
          "ability": T.CompletionItemKind.Method, "file": T.CompletionItemKind.File}
_SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning}


UINTEGER_MAX = 2**31 - 1  # the largest line or character the protocol allows (its `uinteger`)


class RebirthProtocol(LanguageServerProtocol):
    """pygls's protocol, which answers every request: a position the protocol does not allow (a negative
    line, a character past 2^31) would fail to deserialize, and pygls would log it and never answer."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A message as pygls reads it, its impossible positions moved past the end of any document (so the
        request is answered with nothing); a request that still cannot be read is answered with an error."""
        if "jsonrpc" not in data:  # the JSON decoder's hook sees every object, innermost first
            if data.keys() == {"line", "character"} and not all(
                    type(v) is int and 0 <= v <= UINTEGER_MAX for v in data.values()):
                return {"line": UINTEGER_MAX, "character": 0}
            return data
        try:
            return super().structure_message(data)
        except JsonRpcException as e:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=e.to_response_error())
            raise


class RebirthServer(LanguageServer):
    """The server: the analyser (with the board setting) and the latest analysis of each open document."""

    def __init__(self, board: str | None = None) -> None:
        super().__init__("rebirth-lsp", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
                         protocol_cls=RebirthProtocol)
        self.default_board = board  # from the command line; a client's setting overrides it
        self.analyser = Analyser(board)
        self.analyses: dict[str, Analysis] = {}
        self.symbols: dict[str, Symbols] = {}  # the last names each document declared while it parsed

    def set_board(self, board: str | None) -> None:
        """Use another board setting (None: the command line's, else each ruleset's own) and re-check."""
        self.analyser.board_setting = board or self.default_board
        for uri in list(self.analyses):
            self.refresh(uri)

    def refresh(self, uri: str) -> None:
        """Analyse a document's current text and publish its diagnostics."""
        doc = self.workspace.get_text_document(uri)
        path = _path(uri)
        try:
            a = self.analyser.analyse(doc.source, path, None if path else uri)
        except Exception as e:  # noqa: BLE001 - a bug in a check must show in the editor, not stop the server
            log.error("analysing %s failed:\n%s", uri, traceback.format_exc())
            a = Analysis(doc.source, path, uri)
            a.problems = [Problem(Range((0, 0), (0, 0)), "error", "internal-error",
                                  f"rebirth-dsl internal error: {type(e).__name__}: {e} (please report it)")]
        self.analyses[uri] = a
        if a.symbols is not None:
            self.symbols[uri] = a.symbols
        lines = a.text.split("\n")
        diagnostics = [T.Diagnostic(range=_client_range(doc, lines, p.range), message=p.message,
                                    severity=_SEVERITY.get(p.severity, T.DiagnosticSeverity.Error),
                                    code=p.code, source="rebirth") for p in a.problems]
        self.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=doc.version))

    def forget(self, uri: str) -> None:
        """A closed document: its diagnostics cleared, its analysis dropped."""
        self.analyses.pop(uri, None)
        self.symbols.pop(uri, None)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def at(self, uri: str, position: T.Position) -> tuple[Analysis, Pos] | None:
        """A document's analysis and a client position in its code points."""
        a = self.analyses.get(uri)
        if a is None or a.too_large:
            return None
        lines = a.text.split("\n")
        if position.line >= len(lines):  # past the document (the protocol allows no negative position)
            return None
        return a, _server_pos(self.workspace.get_text_document(uri), lines, position)


def _path(uri: str) -> Path | None:
    """The file of a `file:` URI; None for an unsaved (untitled) document."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def _units(doc: Any, text: str) -> int:
    """The length of a text in the client's position units (UTF-16 unless it chose otherwise)."""
    return doc.position_codec.client_num_units(text)


def _server_pos(doc: Any, lines: list[str], p: T.Position) -> Pos:
    """A client position in code points, over lines split as the parser splits them (at "\\n" only)."""
    line = lines[p.line] if p.line < len(lines) else ""
    units = 0
    for i, c in enumerate(line):
        if units >= p.character:
            return p.line, i
        units += _units(doc, c)
    return p.line, len(line)


def _client_range(doc: Any, lines: list[str], r: Range) -> T.Range:
    """A range in code points as the client counts it."""
    def pos(p: Pos) -> T.Position:
        line = lines[p[0]] if p[0] < len(lines) else ""
        return T.Position(line=p[0], character=_units(doc, line[:p[1]]))
    return T.Range(start=pos(r.start), end=pos(r.end))


def _location(doc: Any, loc: Location) -> T.Location:
    """A definition's place, its characters counted in the target file's own line."""
    try:
        lines = loc.path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        lines = []
    return T.Location(uri=from_fs_path(str(loc.path)) or loc.path.as_uri(), range=_client_range(doc, lines, loc.range))


def board_setting(options: Any) -> str | None:
    """The board a client's settings name: `{"board": ...}` or `{"rebirth": {"board": ...}}`; None if none."""
    if not isinstance(options, dict):
        return None
    section = options.get("rebirth", options)
    value = section.get("board") if isinstance(section, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def build(board: str | None = None) -> RebirthServer:
    """The server with its features registered."""
    server = RebirthServer(board)

    @server.feature(T.INITIALIZE)
    def initialize(ls: RebirthServer, params: T.InitializeParams) -> None:
        root = ls.workspace.root_path
        ls.analyser.root = Path(root) if root else None
        ls.analyser.board_setting = board_setting(params.initialization_options) or ls.default_board
        try:
            from rebirth_dsl.lang.parser import lark_parser

            lark_parser()  # load the parse tables now, not on the first keystroke
        except RebirthError:
            pass

    async def pull(ls: RebirthServer) -> None:
        """Ask a client that keeps settings (VS Code, Neovim) for the `rebirth` section, and use its board."""
        caps = ls.client_capabilities.workspace
        if caps is None or not caps.configuration:
            return
        try:
            got = await ls.workspace_configuration_async(
                T.ConfigurationParams(items=[T.ConfigurationItem(section="rebirth")]))
        except Exception:  # noqa: BLE001 - a client that cannot answer keeps the settings it gave
            return
        section = got[0] if got else None
        if isinstance(section, dict):
            ls.set_board(board_setting(section))

    @server.feature(T.INITIALIZED)
    async def initialized(ls: RebirthServer, params: T.InitializedParams) -> None:
        await pull(ls)

    @server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def changed_configuration(ls: RebirthServer, params: T.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and ("rebirth" in settings or "board" in settings):
            ls.set_board(board_setting(settings))
        else:  # a client of the pull model sends no settings, only the news that they changed
            await pull(ls)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RebirthServer, params: T.DidOpenTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RebirthServer, params: T.DidChangeTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RebirthServer, params: T.DidSaveTextDocumentParams) -> None:
        for uri in list(ls.analyses):  # a saved base changes the rulesets that extend it
            ls.refresh(uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RebirthServer, params: T.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: RebirthServer, params: T.HoverParams) -> T.Hover | None:
        found = ls.at(params.text_document.uri, params.position)
        text = hover(found[0], *found[1]) if found else None
        if text is None:
            return None
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=['"']))
    def on_completion(ls: RebirthServer, params: T.CompletionParams) -> T.CompletionList:
        uri = params.text_document.uri
        found = ls.at(uri, params.position)
        if found is None:
            return T.CompletionList(is_incomplete=False, items=[])
        a, (line, ch) = found
        items = [T.CompletionItem(label=c.label, kind=_KINDS.get(c.kind), detail=c.detail or None,
                                  documentation=c.documentation or None, insert_text=c.insert)
                 for c in completions(a, ls.symbols.get(uri), line, ch)]
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: RebirthServer, params: T.DefinitionParams) -> T.Location | None:
        found = ls.at(params.text_document.uri, params.position)
        loc = definition(found[0], *found[1]) if found else None
        if loc is None:
            return None
        return _location(ls.workspace.get_text_document(params.text_document.uri), loc)

    return server


def serve(board: str | None = None) -> int:
    """Serve on stdin/stdout until the client says exit."""
    build(board).start_io()
    return 0
