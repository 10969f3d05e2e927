"""`rebirth lsp`: the Language Server Protocol over stdio, through pygls 2 (the optional extra
`rebirth-dsl[lsp]`). The protocol lives here; what the server knows of the language is in analysis.py
(problems, hover, completion, definition) and features.py (rename, references, outline, tokens, signature
help, folding, inlay hints, the completions a context narrows to).

Each opened or changed document is parsed and checked at once (the Scotland rules take about 15 ms), so
the diagnostics always belong to the text the hover, completion and definition requests then ask about.
"""

from __future__ import annotations

import asyncio
import json
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
from rebirth_dsl.files import shown
from rebirth_dsl.lang.functions import SIGNATURES
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
from rebirth_dsl.lsp.features import (
    TOKEN_TYPES,
    RenameRefused,
    context_completions,
    expects_statement,
    folds,
    inlay_hints,
    outline,
    prepare_rename,
    references,
    rename,
    semantic_tokens,
    signature_at,
    signature_parts,
)

log = logging.getLogger(__name__)

_KINDS = {"keyword": T.CompletionItemKind.Keyword, "function": T.CompletionItemKind.Function,
          "variable": T.CompletionItemKind.Variable, "kind": T.CompletionItemKind.EnumMember,
          "class": T.CompletionItemKind.Class, "tag": T.CompletionItemKind.Property,
          "landmark": T.CompletionItemKind.Constant, "deck": T.CompletionItemKind.Module,
          "ability": T.CompletionItemKind.Method, "file": T.CompletionItemKind.File,
          "value": T.CompletionItemKind.Value}
_SYMBOL_KINDS = {"header": T.SymbolKind.File, "block": T.SymbolKind.Namespace, "trigger": T.SymbolKind.Event,
                 "declaration": T.SymbolKind.Constant, "statement": T.SymbolKind.Property,
                 "item": T.SymbolKind.Field, "card": T.SymbolKind.Object}
LEGEND = T.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=[])
SETTINGS_WAIT = 5.0  # seconds a document waits for the client's settings before it is checked without them
REQUEST_FAILED = -32803  # the protocol's RequestFailed: the request was understood, and refused
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
        # whether the client's settings are known (asked for after `initialized`); the documents opened or
        # changed before, to check then: once, against the board they name, not first against another
        self.configured = False
        self.pending: set[str] = set()

    def set_board(self, board: str | None) -> None:
        """Use another board setting (None: the command line's, else each ruleset's own) and re-check."""
        setting = board or self.default_board
        if setting == self.analyser.board_setting:
            return  # nothing changes: publishing the same diagnostics again would only flicker
        self.analyser.board_setting = setting
        for uri in [u for u in self.analyses if u not in self.pending]:  # the pending are checked when settled
            self.refresh(uri)

    def analysis(self, uri: str) -> Analysis | None:
        """A document's latest analysis; one opened but not yet checked (its open waits for the client's
        settings) is analysed now, its diagnostics published when the open is handled."""
        a = self.analyses.get(uri)
        if a is None and uri in self.workspace.text_documents:
            a = self.analyses[uri] = self._analyse(uri, self.workspace.get_text_document(uri))
            if a.symbols is not None:
                self.symbols[uri] = a.symbols
        return a

    def _analyse(self, uri: str, doc: Any) -> Analysis:
        path = _path(uri)
        try:
            return self.analyser.analyse(doc.source, path, None if path else uri)
        except Exception as e:  # noqa: BLE001 - a bug in a check must show in the editor, not stop the server
            log.error("analysing %s failed:\n%s", uri, traceback.format_exc())
            a = Analysis(doc.source, path, uri)
            a.problems = [Problem(Range((0, 0), (0, 0)), "error", "internal-error",
                                  f"rebirth-dsl internal error: {type(e).__name__}: {e} (please report it)")]
            return a

    def refresh(self, uri: str) -> None:
        """Analyse a document's current text and publish its diagnostics."""
        doc = self.workspace.get_text_document(uri)
        a = self._analyse(uri, doc)
        self.analyses[uri] = a
        if a.symbols is not None:
            self.symbols[uri] = a.symbols
        lines = a.text.split("\n")
        diagnostics = [T.Diagnostic(range=_client_range(doc, lines, p.range), message=p.message,
                                    severity=_SEVERITY.get(p.severity, T.DiagnosticSeverity.Error),
                                    code=p.code, source="rebirth") for p in a.problems]
        self.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=doc.version))

    def touched(self, uri: str) -> None:
        """A document opened or changed: checked and published now, or once the settings are known."""
        if self.configured:
            self.refresh(uri)
            return
        self.analyses.pop(uri, None)  # a request meanwhile analyses the current text (see analysis)
        if not self.pending:  # a client that never says `initialized` is not waited for long
            asyncio.get_running_loop().call_later(SETTINGS_WAIT, self.settle)
        self.pending.add(uri)

    def settle(self) -> None:
        """The settings are known (or no longer waited for): check the documents that waited."""
        self.configured = True
        pending, self.pending = self.pending, set()
        for uri in pending:
            if uri in self.workspace.text_documents:  # not closed meanwhile
                self.refresh(uri)

    def forget(self, uri: str) -> None:
        """A closed document: its diagnostics cleared, its analysis dropped."""
        self.pending.discard(uri)
        self.analyses.pop(uri, None)
        self.symbols.pop(uri, None)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def at(self, uri: str, position: T.Position) -> tuple[Analysis, Pos] | None:
        """A document's analysis and a client position in its code points."""
        a = self.analysis(uri)
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
            got = await asyncio.wait_for(ls.workspace_configuration_async(
                T.ConfigurationParams(items=[T.ConfigurationItem(section="rebirth")])), SETTINGS_WAIT)
        except Exception:  # noqa: BLE001 - a client that cannot answer keeps the settings it gave
            return
        section = got[0] if got else None
        if isinstance(section, dict):
            ls.set_board(board_setting(section))

    @server.feature(T.INITIALIZED)
    async def initialized(ls: RebirthServer, params: T.InitializedParams) -> None:
        try:
            await pull(ls)
        finally:
            ls.settle()

    @server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def changed_configuration(ls: RebirthServer, params: T.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and ("rebirth" in settings or "board" in settings):
            ls.set_board(board_setting(settings))
        else:  # a client of the pull model sends no settings, only the news that they changed
            await pull(ls)

    # Both handlers are synchronous, so a request sent after a change is answered from the changed text.
    # A client that answers workspace/configuration is asked right after `initialized` and opens its first
    # document before the answer: checking it then and again when the answer came published its
    # diagnostics twice (issue 22); it is checked once the settings are known instead.
    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RebirthServer, params: T.DidOpenTextDocumentParams) -> None:
        ls.touched(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RebirthServer, params: T.DidChangeTextDocumentParams) -> None:
        ls.touched(params.text_document.uri)

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
        sym = ls.symbols.get(uri)
        narrowed = context_completions(a, sym or Symbols(), line, ch)
        if narrowed is not None:
            got, keywords_first = narrowed, False
        else:
            got, keywords_first = completions(a, sym, line, ch), expects_statement(a, line, ch)
        # where a name is expected the names come first and the keywords after; where a statement starts,
        # the keywords do (clients sort by sort_text, then by label)
        items = [T.CompletionItem(label=c.label, kind=_KINDS.get(c.kind), detail=c.detail or None,
                                  documentation=c.documentation or None, insert_text=c.insert,
                                  sort_text=f"{int((c.kind == 'keyword') != keywords_first)}{n:04d}")
                 for n, c in enumerate(got)]
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: RebirthServer, params: T.DefinitionParams) -> T.Location | None:
        found = ls.at(params.text_document.uri, params.position)
        loc = definition(found[0], *found[1]) if found else None
        if loc is None:
            return None
        return _location(ls.workspace.get_text_document(params.text_document.uri), loc)

    _register_more(server)
    return server


def _doc_range(doc: Any, a: Analysis, r: Range) -> T.Range:
    return _client_range(doc, a.text.split("\n"), r)


def _file_range(doc: Any, path: Path, r: Range) -> T.Range:
    """A range in another file (a base ruleset, a board), its characters counted in that file's line."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        lines = []
    return _client_range(doc, lines, r)


def _uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def _register_more(server: RebirthServer) -> None:
    """Code actions, rename, references, outline, semantic tokens, signature help, folding, inlay hints and
    formatting."""

    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    def on_code_action(ls: RebirthServer, params: T.CodeActionParams) -> list[T.CodeAction] | None:
        uri = params.text_document.uri
        a = ls.analysis(uri)
        if a is None or a.too_large:
            return None
        doc = ls.workspace.get_text_document(uri)
        lines = a.text.split("\n")
        want = params.range
        out: list[T.CodeAction] = []
        for p in a.problems:  # each problem's fixes, whatever made them: the code action knows no kind of fix
            if not p.fixes:
                continue
            r = _client_range(doc, lines, p.range)
            if (r.end.line, r.end.character) < (want.start.line, want.start.character) or \
                    (r.start.line, r.start.character) > (want.end.line, want.end.character):
                continue
            sent = [d for d in params.context.diagnostics if d.range == r and d.message == p.message]
            diag = sent[0] if sent else T.Diagnostic(range=r, message=p.message, code=p.code, source="rebirth",
                                                     severity=_SEVERITY.get(p.severity, T.DiagnosticSeverity.Error))
            for f in p.fixes:
                edit = T.TextEdit(range=_client_range(doc, lines, f.range), new_text=f.text)
                out.append(T.CodeAction(title=f.title, kind=T.CodeActionKind.QuickFix, diagnostics=[diag],
                                        is_preferred=len(p.fixes) == 1,
                                        edit=T.WorkspaceEdit(changes={uri: [edit]})))
        return out

    @server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
    def on_prepare_rename(ls: RebirthServer, params: T.PrepareRenameParams) -> T.PrepareRenamePlaceholder | None:
        found = ls.at(params.text_document.uri, params.position)
        if found is None:
            return None
        a, (line, ch) = found
        try:
            target, r = prepare_rename(a, line, ch)
        except RenameRefused as e:
            raise JsonRpcException(str(e), code=REQUEST_FAILED) from None
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return T.PrepareRenamePlaceholder(range=_doc_range(doc, a, r), placeholder=target.name)

    @server.feature(T.TEXT_DOCUMENT_RENAME, T.RenameOptions(prepare_provider=True))
    def on_rename(ls: RebirthServer, params: T.RenameParams) -> T.WorkspaceEdit | None:
        uri = params.text_document.uri
        found = ls.at(uri, params.position)
        if found is None:
            return None
        a, (line, ch) = found
        try:
            places, board, text = rename(a, line, ch, params.new_name)
        except RenameRefused as e:
            raise JsonRpcException(str(e), code=REQUEST_FAILED) from None
        doc = ls.workspace.get_text_document(uri)
        changes: dict[str, list[T.TextEdit]] = {}
        for path, r in places:
            target = uri if path is None else _uri(path)
            rng = _doc_range(doc, a, r) if path is None else _file_range(doc, path, r)
            changes.setdefault(target, []).append(T.TextEdit(range=rng, new_text=text))
        if board is not None:
            changes.setdefault(_uri(board.path), []).append(
                T.TextEdit(range=_file_range(doc, board.path, board.range), new_text=json.dumps(text)[1:-1]))
        return T.WorkspaceEdit(changes=changes)

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: RebirthServer, params: T.ReferenceParams) -> list[T.Location] | None:
        uri = params.text_document.uri
        found = ls.at(uri, params.position)
        if found is None:
            return None
        a, (line, ch) = found
        doc = ls.workspace.get_text_document(uri)
        return [T.Location(uri=uri, range=_doc_range(doc, a, r)) if path is None else
                T.Location(uri=_uri(path), range=_file_range(doc, path, r))
                for path, r in references(a, line, ch)]

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_document_symbol(ls: RebirthServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
        uri = params.text_document.uri
        a = ls.analysis(uri)
        if a is None or a.too_large:
            return []
        doc = ls.workspace.get_text_document(uri)

        def symbol(o: Any) -> T.DocumentSymbol:
            return T.DocumentSymbol(name=o.name or "?", detail=o.detail or None, kind=_SYMBOL_KINDS[o.kind],
                                    range=_doc_range(doc, a, o.range), selection_range=_doc_range(doc, a, o.selection),
                                    children=[symbol(c) for c in o.children] or None)
        return [symbol(o) for o in outline(a)]

    @server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    def on_semantic_tokens(ls: RebirthServer, params: T.SemanticTokensParams) -> T.SemanticTokens:
        uri = params.text_document.uri
        a = ls.analysis(uri)
        if a is None or a.too_large:
            return T.SemanticTokens(data=[])
        doc = ls.workspace.get_text_document(uri)
        lines = a.text.split("\n")
        data: list[int] = []
        last_line, last_start = 0, 0
        index = {t: i for i, t in enumerate(TOKEN_TYPES)}
        for line, start, end, typ in semantic_tokens(a):
            text = lines[line]
            s = _units(doc, text[:start])
            length = _units(doc, text[start:end])
            data += [line - last_line, s - last_start if line == last_line else s, length, index[typ], 0]
            last_line, last_start = line, s
        return T.SemanticTokens(data=data)

    @server.feature(T.TEXT_DOCUMENT_SIGNATURE_HELP, T.SignatureHelpOptions(trigger_characters=["(", ","]))
    def on_signature_help(ls: RebirthServer, params: T.SignatureHelpParams) -> T.SignatureHelp | None:
        found = ls.at(params.text_document.uri, params.position)
        at = signature_at(found[0], *found[1]) if found else None
        if at is None:
            return None
        fn, arg = at
        label, words = signature_parts(fn)
        params_out = [T.ParameterInformation(label=w) for w in words]
        active = min(arg, len(words) - 1) if words else 0  # a repeating last argument stays the active one
        return T.SignatureHelp(signatures=[T.SignatureInformation(
            label=label, documentation=SIGNATURES[fn].doc, parameters=params_out, active_parameter=active)],
            active_signature=0, active_parameter=active)

    @server.feature(T.TEXT_DOCUMENT_FOLDING_RANGE)
    def on_folding(ls: RebirthServer, params: T.FoldingRangeParams) -> list[T.FoldingRange]:
        a = ls.analysis(params.text_document.uri)
        if a is None or a.too_large:
            return []
        kinds = {"region": T.FoldingRangeKind.Region, "comment": T.FoldingRangeKind.Comment}
        return [T.FoldingRange(start_line=s, end_line=e, kind=kinds[k]) for s, e, k in folds(a)]

    @server.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
    def on_inlay_hint(ls: RebirthServer, params: T.InlayHintParams) -> list[T.InlayHint]:
        uri = params.text_document.uri
        a = ls.analysis(uri)
        if a is None or a.too_large:
            return []
        doc = ls.workspace.get_text_document(uri)
        lines = a.text.split("\n")
        out = []
        for line, ch, label, tip in inlay_hints(a, params.range.start.line, params.range.end.line):
            pos = _client_range(doc, lines, Range((line, ch), (line, ch))).start
            out.append(T.InlayHint(position=pos, label=label, tooltip=tip, padding_right=label.endswith(":"),
                                   kind=T.InlayHintKind.Parameter if label.endswith(":") else None))
        return out

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def on_formatting(ls: RebirthServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
        uri = params.text_document.uri
        doc = ls.workspace.get_text_document(uri)
        try:
            from rebirth_dsl.lang.fmt import format_rules  # `rebirth fmt`'s own formatter, loaded when asked
        except ImportError:
            raise JsonRpcException("this rebirth-dsl has no formatter (rebirth_dsl.lang.fmt)",
                                   code=REQUEST_FAILED) from None
        path = _path(uri)
        try:
            new = format_rules(doc.source, shown(path) if path else uri)
        except RebirthError as e:  # a file that does not parse is not formatted; its problems are shown
            raise JsonRpcException(f"not formatted: {e.diagnostics[0].message if e.diagnostics else e}",
                                   code=REQUEST_FAILED) from None
        if new == doc.source:
            return []
        lines = doc.source.split("\n")
        end = T.Position(line=len(lines) - 1, character=_units(doc, lines[-1]))
        return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0), end=end), new_text=new)]


def serve(board: str | None = None) -> int:
    """Serve on stdin/stdout until the client says exit."""
    build(board).start_io()
    return 0
