"""How fast `rebirth lsp` answers after a change on the bundled Scotland rules: a real server process and
pygls's client (the test editor of tests/surfaces/test_lsp.py), each request timed from the change.

    PYTHONPATH=$PWD .venv/bin/python tools/bench_lsp.py [--changes 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "surfaces")]

from lsprotocol import types as T  # noqa: E402
from test_lsp import SCOTLAND, Editor, position  # noqa: E402


def requests(ed: Editor, uri: str, here: T.Position, farms: T.Position,
             ds: list[T.Diagnostic]) -> list[tuple[str, Callable[[], Any]]]:
    """The requests timed after each change, each a function that sends it."""
    c = ed.client
    doc = T.TextDocumentIdentifier(uri=uri)
    whole = T.Range(start=T.Position(line=0, character=0), end=T.Position(line=200, character=0))
    return [
        ("hover", lambda: ed.hover(uri, here)),
        ("completion", lambda: ed.complete(uri, here)),
        ("code action", lambda: c.text_document_code_action_async(T.CodeActionParams(
            text_document=doc, range=ds[0].range if ds else whole,
            context=T.CodeActionContext(diagnostics=list(ds))))),
        ("semantic tokens", lambda: c.text_document_semantic_tokens_full_async(
            T.SemanticTokensParams(text_document=doc))),
        ("document symbols", lambda: c.text_document_document_symbol_async(
            T.DocumentSymbolParams(text_document=doc))),
        ("folding", lambda: c.text_document_folding_range_async(T.FoldingRangeParams(text_document=doc))),
        ("inlay hints", lambda: c.text_document_inlay_hint_async(T.InlayHintParams(
            text_document=doc, range=whole))),
        ("signature help", lambda: c.text_document_signature_help_async(T.SignatureHelpParams(
            text_document=doc, position=here))),
        ("references", lambda: c.text_document_references_async(T.ReferenceParams(
            text_document=doc, position=farms, context=T.ReferenceContext(include_declaration=True)))),
    ]


async def run(changes: int) -> dict[str, list[float]]:
    """Alternately break and mend one word, and time every feature's answer from the change."""
    ed = Editor()
    with tempfile.TemporaryDirectory() as tmp:
        await ed.start(Path(tmp))
        try:
            uri = ed.open(SCOTLAND)
            await ed.diagnostics(uri, 1)
            figures: dict[str, list[float]] = {}
            for i in range(changes):
                old, new = ("plain", "plian") if i % 2 == 0 else ("plian", "plain")
                t0 = time.perf_counter()
                v = ed.edit(uri, f"place food on food, {old}", f"place food on food, {new}")
                text = ed.texts[uri]
                here = position(text, "largest(groups(me, food))", len("largest(groups(me, "))
                farms = position(text, "as farms", 4)

                async def timed(what: str, job: Any, start: float | None = None) -> Any:
                    begun = time.perf_counter() if start is None else start
                    out = await asyncio.wait_for(job, 20)
                    figures.setdefault(what, []).append((time.perf_counter() - begun) * 1000)
                    return out
                ds = await timed("diagnostics", ed.diagnostics(uri, v), t0)
                for what, send in requests(ed, uri, here, farms, ds):  # one at a time: each figure is its own
                    await timed(what, send())
            return figures
        finally:
            await ed.stop()


def main() -> int:
    """Print the median and the slowest answer of each feature, in milliseconds from the change."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--changes", type=int, default=20)
    args = ap.parse_args()
    figures = asyncio.run(run(args.changes))
    print(f"rebirth lsp, Scotland rules, {args.changes} changes: ms from the change to its diagnostics, then "
          "each request alone, from its sending to its answer:")
    for what, ms in figures.items():
        print(f"  {what:17} median {statistics.median(ms):6.1f}  max {max(ms):6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
