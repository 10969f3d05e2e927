"""`rebirth lsp`'s features beyond problems, hover and definition, each asked as an editor asks it: over
a real server process and pygls's client (the Editor of test_lsp.py)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the editor server is the optional extra rebirth-dsl[lsp]")

from lsprotocol import types as T  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from test_lsp import SCOTLAND, SCOTLAND_BOARD, TIMEOUT, Editor, position, session  # noqa: E402


def doc(uri: str) -> T.TextDocumentIdentifier:
    return T.TextDocumentIdentifier(uri=uri)


async def ask(job: Any) -> Any:
    return await asyncio.wait_for(job, TIMEOUT)


def apply(text: str, edits: list[T.TextEdit]) -> str:
    """A text with edits applied (ASCII text: characters are UTF-16 units), the last first."""
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)

    def at(p: T.Position) -> int:
        return offsets[p.line] + p.character
    for e in sorted(edits, key=lambda e: at(e.range.start), reverse=True):
        text = text[:at(e.range.start)] + e.new_text + text[at(e.range.end):]
    return text


def line_of(path: Path, sub: str) -> int:
    """The 1-based line of a file where a text first stands (how a person reads `file:NN`)."""
    return next(n for n, ln in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if sub in ln)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(text, encoding="utf-8")
    return p


# a variant of the bundled Scotland (by path): one payout replaced, a farm scoring replaced, a deck of its own
VARIANT = """ruleset variant "A variant" extends "{base}"
area settlement {{
  pay size 3: 9, 4, 1
}}
on place farm: score 2 * size(group(placed)) as farms   # X-F1
deck tricks {{
  when empty: draw nothing
  card "Lone" 2: count(tiles(me, food)) >= 1
}}
on first touch castle: draw tricks
"""


def test_code_action_applies_a_did_you_mean(tmp_path: Path) -> None:
    """A diagnostic's fix is a quick fix; applying its edit clears the diagnostic."""
    rules = write(tmp_path, "v.rules", VARIANT.format(base=SCOTLAND).replace("group(placed)", "group(placd)"))

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        [d] = await ed.diagnostics(uri, 1)
        assert "placd" in d.message
        actions = await ask(ed.client.text_document_code_action_async(T.CodeActionParams(
            text_document=doc(uri), range=d.range, context=T.CodeActionContext(diagnostics=[d]))))
        [act] = actions
        assert act.kind == T.CodeActionKind.QuickFix and "placed" in act.title and list(act.diagnostics) == [d]
        [edit] = act.edit.changes[uri]
        assert edit.range == d.range and edit.new_text == "placed"
        # elsewhere in the file: no action
        none = await ask(ed.client.text_document_code_action_async(T.CodeActionParams(
            text_document=doc(uri), range=T.Range(start=T.Position(line=0, character=0), end=T.Position(line=0, character=3)),
            context=T.CodeActionContext(diagnostics=[]))))
        assert not none
        v = ed.edit(uri, "placd", "placed")
        assert await ed.diagnostics(uri, v) == []

    session(exchange, tmp_path)


def test_rename_across_the_file_and_its_base(tmp_path: Path) -> None:
    """A class, category or deck renamed in a variant and in its base (a file of the author's); a landmark
    renamed on a board of the author's too; a bundled base or board refused with the reason."""
    base = write(tmp_path / "mine", "base.rules", SCOTLAND.read_text(encoding="utf-8"))
    board = write(tmp_path / "mine", "board.json", SCOTLAND_BOARD.read_text(encoding="utf-8"))
    rules = write(tmp_path / "mine", "v.rules", VARIANT.format(base="base.rules")
                  + 'end {\n  winner ties: owner(castle "Stirling") among tied\n}\n')

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        assert await ed.diagnostics(uri, 1) == []
        text = ed.texts[uri]
        base_uri = from_fs_path(str(base))
        base_text = base.read_text(encoding="utf-8")

        async def rename(at: T.Position, new: str) -> T.WorkspaceEdit:
            return await ask(ed.client.text_document_rename_async(T.RenameParams(
                text_document=doc(uri), position=at, new_name=new)))

        # the class `farm`: its declaration in the base, its use there and here
        prep = await ask(ed.client.text_document_prepare_rename_async(T.PrepareRenameParams(
            text_document=doc(uri), position=position(text, "on place farm", len("on place f")))))
        assert prep.placeholder == "farm" and prep.range.start == position(text, "farm")
        got = await rename(position(text, "on place farm", len("on place f")), "crops")
        mine, theirs = apply(text, got.changes[uri]), apply(base_text, got.changes[base_uri])
        assert "on place crops: score" in mine and "as farms" in mine  # the category keeps its name
        assert "class crops = food, energy" in theirs and "class farm" not in theirs

        # the category `farms`: after `as` only, here and in the base; never the class `farm`
        got = await rename(position(text, "as farms", 4), "fields")
        mine, theirs = apply(text, got.changes[uri]), apply(base_text, got.changes[base_uri])
        assert "as fields   # X-F1" in mine and "on place farm:" in mine
        assert theirs.count("as fields") == base_text.count("as farms") and "class farm" in theirs

        # a deck of this file only: no edit in the base
        got = await rename(position(text, "deck tricks", 6), "tricks2")
        assert set(got.changes) == {uri}
        assert apply(text, got.changes[uri]).count("tricks2") == 2  # its block and `draw tricks`

        # a landmark's name: here, in the base, and its "name" in the board the setting names
        got = await rename(position(text, '"Stirling"', 2), "Sterling")
        assert '"Sterling"' in apply(text, got.changes[uri])
        assert '"Stirling"' not in apply(base_text, got.changes[base_uri])
        assert '"name": "Sterling"' in apply(board.read_text(encoding="utf-8"), got.changes[from_fs_path(str(board))])

        # refused: not a name that renames, a keyword as the new name
        with pytest.raises(JsonRpcException, match="only categories, classes, decks and landmark names"):
            await rename(position(text, "tiles(me, food)", len("tiles(me, f")), "grain")
        with pytest.raises(JsonRpcException, match="cannot be a name"):
            await rename(position(text, "deck tricks", 6), "card")

    session(exchange, tmp_path, options={"rebirth": {"board": str(board)}})


def test_rename_refused_in_a_bundled_base_and_board(tmp_path: Path) -> None:
    """The bundled Scotland is part of the installation: a name it uses is not renamed from a variant."""
    rules = write(tmp_path, "v.rules", VARIANT.format(base=SCOTLAND))

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        assert await ed.diagnostics(uri, 1) == []
        text = ed.texts[uri]
        for at in (position(text, "as farms", 4), position(text, "on place farm", 10)):
            with pytest.raises(JsonRpcException, match="bundled ruleset scotland.rules"):
                await ask(ed.client.text_document_prepare_rename_async(T.PrepareRenameParams(
                    text_document=doc(uri), position=at)))
        # a name of the variant's own still renames
        got = await ask(ed.client.text_document_rename_async(T.RenameParams(
            text_document=doc(uri), position=position(text, "draw tricks", 6), new_name="tricks2")))
        assert set(got.changes) == {uri} and len(got.changes[uri]) == 2
        # not while the file does not parse: some uses would be missed
        v = ed.edit(uri, "draw tricks", "draw tricks tricks")
        assert [d.code for d in await ed.diagnostics(uri, v)] == ["syntax"]
        with pytest.raises(JsonRpcException, match="fix them first"):
            await ask(ed.client.text_document_prepare_rename_async(T.PrepareRenameParams(
                text_document=doc(uri), position=position(ed.texts[uri], "deck tricks", 6))))

    session(exchange, tmp_path)


def test_references_of_a_category(tmp_path: Path) -> None:
    """The category `farms` where it is scored, here and in the base; the class `farm` apart."""
    rules = write(tmp_path, "v.rules", VARIANT.format(base=SCOTLAND))

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        await ed.diagnostics(uri, 1)
        text = ed.texts[uri]
        refs = await ask(ed.client.text_document_references_async(T.ReferenceParams(
            text_document=doc(uri), position=position(text, "as farms", 5),
            context=T.ReferenceContext(include_declaration=True))))
        scot = SCOTLAND.read_text(encoding="utf-8")
        here = [r for r in refs if r.uri == uri]
        there = [r for r in refs if r.uri == from_fs_path(str(SCOTLAND))]
        assert [r.range.start for r in here] == [position(text, "farms")]
        assert len(there) == scot.count("as farms") and len(refs) == len(here) + len(there)
        refs = await ask(ed.client.text_document_references_async(T.ReferenceParams(
            text_document=doc(uri), position=position(text, "place farm", 7),
            context=T.ReferenceContext(include_declaration=True))))
        assert any(r.range.start == position(scot, "class farm", 6) for r in refs)

    session(exchange, tmp_path)


def test_outline_tokens_folding_signature_and_hints_on_scotland(tmp_path: Path) -> None:
    """On the bundled Scotland rules: the outline, the semantic tokens, folds, signature help, inlay hints."""
    async def exchange(ed: Editor) -> None:
        uri = ed.open(SCOTLAND)
        await ed.diagnostics(uri, 1)
        text = ed.texts[uri]

        symbols = await ask(ed.client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc(uri))))
        by_name = {s.name: s for s in symbols}
        assert "ruleset scotland \"Rebirth: Scotland\"" in by_name
        assert [c.name for c in by_name["tiles"].children] == ["food x12", "energy x12",
                                                                "settlement influence 1 x3, 2 x4, 3 x3, 4 x2"]
        area = by_name["area settlement as areas"]
        pay2 = next(c for c in area.children if c.name == "pay size 2: 5, 3")
        assert pay2.detail == "S-A3" and by_name["place food on food, plain"].detail == "S-P2"

        got = await ask(ed.client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(text_document=doc(uri))))
        legend = ed.capabilities.semantic_tokens_provider.legend.token_types
        toks: dict[tuple[int, int], tuple[int, str]] = {}
        line = ch = 0
        data = got.data
        for i in range(0, len(data), 5):
            line += data[i]
            ch = data[i + 1] if data[i] else ch + data[i + 1]
            toks[(line, ch)] = (data[i + 2], legend[data[i + 3]])

        def tok(sub: str, offset: int = 0) -> tuple[int, str]:
            p = position(text, sub, offset)
            return toks[(p.line, p.character)]
        assert tok("pay size 2") == (3, "keyword")
        assert tok("as farms", 3) == (5, "type")  # a category
        assert tok("place food on food", 6) == (4, "enumMember")  # a tile kind
        assert tok("class farm", 6) == (4, "class")
        assert tok("S-P2") == (4, "decorator")  # a rule id, inside its comment
        assert tok("size(group(placed))") == (4, "function") and tok("group(placed)", 6) == (6, "variable")
        assert tok("food x12", 5) == (3, "number")
        assert tok("# Rebirth: Scotland")[1] == "comment"

        folds = await ask(ed.client.text_document_folding_range_async(T.FoldingRangeParams(text_document=doc(uri))))
        spans = {(f.start_line, f.end_line, f.kind) for f in folds}
        tiles = position(text, "tiles {").line
        assert (tiles, position(text, "}", nth=0).line, T.FoldingRangeKind.Region) in spans
        assert (0, 5, T.FoldingRangeKind.Comment) in spans  # the six comment lines that open the file

        at = position(text, "largest(groups(me, food))", len("largest(groups(me, "))
        h = await ask(ed.client.text_document_signature_help_async(T.SignatureHelpParams(text_document=doc(uri), position=at)))
        sig = h.signatures[0]
        assert sig.label.startswith("groups(") and h.active_parameter == 1 and "player" in sig.parameters[0].label
        at = position(text, "owner(castle", len("owner("))
        h = await ask(ed.client.text_document_signature_help_async(T.SignatureHelpParams(text_document=doc(uri), position=at)))
        assert h.signatures[0].label.startswith("owner(") and h.active_parameter == 0
        h = await ask(ed.client.text_document_signature_help_async(T.SignatureHelpParams(
            text_document=doc(uri), position=position(text, "pay size 2", 3))))
        assert h is None

        p = position(text, "pay size 2: 5, 3")
        hints = await ask(ed.client.text_document_inlay_hint_async(T.InlayHintParams(
            text_document=doc(uri), range=T.Range(start=p, end=T.Position(line=p.line, character=80)))))
        assert [(x.position, x.label) for x in hints] == [
            (position(text, "pay size 2: 5, 3", len("pay size 2: ")), "1st:"),
            (position(text, "pay size 2: 5, 3", len("pay size 2: 5, ")), "2nd:")]

    session(exchange, tmp_path)


def test_completion_by_context(tmp_path: Path) -> None:
    """After `on first touch `: the landmark kinds only; after `pay size `: the board's area sizes; names
    before keywords where a name is expected, keywords first where a statement starts."""
    rules = write(tmp_path, "v.rules", VARIANT.format(base=SCOTLAND))

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        await ed.diagnostics(uri, 1)
        text = ed.texts[uri]
        items = await ed.complete(uri, position(text, "on first touch castle", len("on first touch ")))
        assert set(items) == {"castle", "cathedral"}  # scotland.rules: `landmark castle, cathedral`
        items = await ed.complete(uri, position(text, "pay size 3", len("pay size ")))
        # the Scotland board's 18 areas: 4 of one hex, 8 of two, 6 of three (boards/scotland.json's "area"s)
        assert set(items) == {"1", "2", "3"} and "6 areas" in (items["3"].detail or "")
        v = ed.edit(uri, "  pay size 3: 9, 4, 1\n", "  pay size 3: 9, 4, 1\n  pay size \n")  # half typed
        assert [d.code for d in await ed.diagnostics(uri, v)] == ["syntax"]
        items = await ed.complete(uri, position(ed.texts[uri], "  pay size \n", len("  pay size ")))
        assert set(items) == {"1", "2", "3"}  # the board of the last parse that worked
        v = ed.edit(uri, "  pay size \n", "")
        assert await ed.diagnostics(uri, v) == []
        text = ed.texts[uri]

        def order(items: dict[str, T.CompletionItem]) -> list[str]:
            return [i.label for i in sorted(items.values(), key=lambda i: (i.sort_text or "", i.label))]
        ranked = order(await ed.complete(uri, position(text, "score 2 *", len("score "))))
        assert ranked.index("placed") < ranked.index("majority") and ranked.index("farm") < ranked.index("ruleset")
        ranked = order(await ed.complete(uri, position(text, "on first touch", 0)))
        assert ranked.index("majority") < ranked.index("placed")

    session(exchange, tmp_path)


def test_hover_says_what_a_statement_replaces(tmp_path: Path) -> None:
    """A statement (and a block's item) of a variant that replaces its base's says where that one is; a
    `without`, which one it removes."""
    rules = write(tmp_path, "v.rules", VARIANT.format(base=SCOTLAND) + "without on place any at harbour\n")

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        await ed.diagnostics(uri, 1)
        text = ed.texts[uri]
        h = await ed.hover(uri, position(text, "on place farm", 1))
        assert f"Replaces the base's statement at scotland.rules:{line_of(SCOTLAND, 'as farms')}." in h
        h = await ed.hover(uri, position(text, "pay size 3", 1))
        assert f"Replaces the base's item at scotland.rules:{line_of(SCOTLAND, 'pay size 3')}." in h
        h = await ed.hover(uri, position(text, "deck tricks", 1))
        assert "Replaces" not in h  # a deck of its own
        h = await ed.hover(uri, position(text, "without", 1))
        assert f"Removes the base's statement at scotland.rules:{line_of(SCOTLAND, 'on place any at harbour')}." in h
        hints = await ask(ed.client.text_document_inlay_hint_async(T.InlayHintParams(
            text_document=doc(uri), range=T.Range(start=T.Position(line=0, character=0),
                                                  end=T.Position(line=20, character=0)))))
        labels = [x.label for x in hints]
        assert f" replaces scotland.rules:{line_of(SCOTLAND, 'as farms')}" in labels
        assert f" replaces scotland.rules:{line_of(SCOTLAND, 'area settlement')}" in labels
        assert f" removes scotland.rules:{line_of(SCOTLAND, 'on place any at harbour')}" in labels

    session(exchange, tmp_path)


def test_diagnostics_published_once_on_open(tmp_path: Path) -> None:
    """An editor that answers workspace/configuration (VS Code, Neovim) gets one publication per open, not
    one before its settings arrive and one after (issue 22)."""
    async def exchange(ed: Editor) -> None:
        uri = ed.open(SCOTLAND)
        assert await ed.diagnostics(uri, 1) == []
        await ed.hover(uri, position(ed.texts[uri], "players", 1))  # every message before it is handled
        await asyncio.sleep(0.5)
        assert ed.mark(uri) == 1

    session(exchange, tmp_path, configuration={"board": ""})


def test_formatting_calls_the_formatter(tmp_path: Path) -> None:
    """textDocument/formatting answers with `rebirth fmt`'s text for the document."""
    fmt = pytest.importorskip("rebirth_dsl.lang.fmt", reason="the formatter is another change of issue 22")
    messy = SCOTLAND.read_text(encoding="utf-8").replace("players 2 to 4", "players   2 to 4", 1)
    rules = write(tmp_path, "scotland.rules", messy)
    shutil.copy(SCOTLAND_BOARD, tmp_path / "scotland.json")

    async def exchange(ed: Editor) -> None:
        uri = ed.open(rules)
        edits = await ask(ed.client.text_document_formatting_async(T.DocumentFormattingParams(
            text_document=doc(uri), options=T.FormattingOptions(tab_size=2, insert_spaces=True))))
        assert apply(messy, edits or []) == fmt.format_rules(messy, str(rules))
        assert "players 2 to 4" in apply(messy, edits or [])

    session(exchange, tmp_path)
