"""`rebirth fmt`: the canonical layout of a rules file, by re-laying its tokens and comments.

The formatter works on the token stream, not on the AST: it keeps every token and every comment in their
order and changes only the whitespace between them, so it cannot drop a comment or a rule id, and a new
statement of the grammar needs no change here. The parse tree is read for three facts only: where each
statement starts (a top-level item, or an item of a `{ }` block), which `(` opens a call (`size(...)`,
written tight) and which `:` is a tile's value (`settlement:2`, written tight).

The layout:
- each statement on a line of its own, block items indented two spaces a level, `}` on its own line; a
  line the author broke inside a statement stays broken, its continuation indented four more spaces;
- a source line with a trailing comment is never split, since the rule ids of that comment belong to
  every statement on its line (docs/language.md, "Comments and rule ids");
- one space between tokens, none before `,` `:` `)`, none after `(`;
- blank lines kept, at most one in a row, none at the start or end of the file or of a block;
- trailing comments aligned: a run of consecutive lines with trailing comments shares one column, 70,
  or 90 when two or more lines of the run do not fit before 70; a line too long for its run's column has
  its comment three spaces after its code. Full-line comments are indented as the line they stand above.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rebirth_dsl.errors import Diagnostic, RulesSyntaxError

if TYPE_CHECKING:
    from lark import Token, Tree

INDENT = 2  # spaces per block level
CONTINUATION = 4  # more spaces for a line that continues a statement the author broke
COLUMNS = (69, 89)  # 0-based columns of aligned trailing comments, as the bundled rules files have them
LONG_GAP = 3  # spaces before the comment of a line too long for every column

# The terminals of grammar.lark, for splitting text into tokens and whitespace: a keyword or a count
# (`x12`) splits like a name, and a `#` inside a string starts no comment.
_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v]+)
  | (?P<comment>\#[^\n]*)
  | (?P<token>"[^"\n]*" | [A-Za-z_][A-Za-z0-9_]* | [0-9]+ | >= | <= | == | != | [<>{}():,=+\-*/])
""", re.X)


@dataclass(frozen=True, slots=True)
class _Tok:
    text: str
    start: int  # offset in the source
    comment: bool


@dataclass(slots=True)
class _Line:
    indent: int
    tokens: list[_Tok] = field(default_factory=list)
    comment: str | None = None  # a trailing comment, or the text of a full-line comment
    full: bool = False  # a line holding a comment only


def format_rules(text: str, file: str = "<rules>") -> str:
    """The text of a rules file in the canonical layout; RulesSyntaxError if it does not parse."""
    from rebirth_dsl.lang.parser import lark_parser, parse_text

    parse_text(text, file)  # the project's own error, at file:line:col with a caret, for a text that does not parse
    tree = lark_parser().parse(text)
    lines = _source_lines(text, file)
    code = [t for line in lines for t in line[1] if not t.comment]
    starts, tight_open, tight_colon = _tree_facts(tree, code)
    out = _lay_out(lines, starts)
    return _render(out, tight_open, tight_colon)


def _source_lines(text: str, file: str) -> list[tuple[int, list[_Tok]]]:
    """The source's lines that hold tokens, each with the number of blank lines before it."""
    lines: list[tuple[int, list[_Tok]]] = []
    current: list[_Tok] = []
    blank = 0
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # the parser accepted the text, so only a character outside the grammar gets here
            line = text.count("\n", 0, pos) + 1
            col = pos - (text.rfind("\n", 0, pos) + 1) + 1
            raise RulesSyntaxError([Diagnostic(f"unexpected character {text[pos]!r}", file=file, line=line,
                                               col=col, code="syntax")])
        kind = m.lastgroup
        if kind == "nl":
            if current:
                lines.append((blank, current))
                current, blank = [], 0
            else:
                blank += 1
        elif kind != "ws":
            piece = m.group().rstrip() if kind == "comment" else m.group()
            current.append(_Tok(piece, pos, kind == "comment"))
        pos = m.end()
    if current:
        lines.append((blank, current))
    return lines


def _tree_facts(tree: Tree[Token], code: list[_Tok]) -> tuple[set[int], set[int], set[int]]:
    """Read off the parse tree: the offsets where statements start, of the `(` of each call and of the `:`
    of each tile value (`settlement:2`)."""
    from lark import Token, Tree

    def span(node: Tree[Token] | Token) -> tuple[int, int] | None:
        if isinstance(node, Token):
            return (node.start_pos or 0, node.end_pos or 0)
        if node.meta.empty:
            return None
        return (node.meta.start_pos, node.meta.end_pos)

    braces = [t.start for t in code if t.text == "{"]
    starts: set[int] = set()
    todo: list[Tree[Token] | Token] = [c for c in tree.children if isinstance(c, Tree | Token)]
    while todo:  # a statement, and inside a block statement (one holding a `{`) its items
        node = todo.pop()
        where = span(node)
        if where is None:
            continue
        starts.add(where[0])
        if isinstance(node, Tree):
            k = bisect.bisect_left(braces, where[0])  # the statement's first `{`, if it has one
            opening = braces[k] if k < len(braces) and braces[k] < where[1] else None
            if opening is not None:
                for child in node.children:
                    if isinstance(child, Tree | Token) and (s := span(child)) is not None and s[0] > opening:
                        todo.append(child)
    after = {t.start: code[i + 1].start for i, t in enumerate(code[:-1])}  # each token's next token
    tight_open: set[int] = set()
    tight_colon: set[int] = set()
    for sub in tree.iter_subtrees():
        name = sub.children[0] if sub.children else None
        if sub.data == "call" and isinstance(name, Token) and name.start_pos is not None:
            tight_open.add(after.get(name.start_pos, -1))
        elif sub.data == "tile_count" and isinstance(name, Token) and name.start_pos is not None \
                and len(sub.children) > 1 and sub.children[1] is not None:
            tight_colon.add(after.get(name.start_pos, -1))
    return starts, tight_open, tight_colon


def _lay_out(lines: list[tuple[int, list[_Tok]]], starts: set[int]) -> list[_Line | None]:
    """The output lines (None: a blank line), indented by block depth."""
    laid: list[_Line | None] = []
    depth = 0
    for blank, toks in lines:
        if blank:
            laid.append(None)
        code = [t for t in toks if not t.comment]
        comment = toks[-1].text if toks[-1].comment else None
        if not code:
            laid.append(_Line(0, comment=comment, full=True))
            continue
        segments: list[list[_Tok]] = [[code[0]]]
        for prev, tok in zip(code, code[1:], strict=False):
            if comment is None and (tok.start in starts or prev.text == "{" or tok.text == "}"):
                segments.append([tok])
            else:
                segments[-1].append(tok)
        for n, seg in enumerate(segments):
            first = seg[0]
            indent = INDENT * max(depth - 1 if first.text == "}" else depth, 0)
            if first.start not in starts and first.text != "}":
                indent += CONTINUATION  # the author broke a statement here: the rest stands further in
            laid.append(_Line(indent, seg, comment if n == len(segments) - 1 else None))
            for t in seg:
                depth += 1 if t.text == "{" else -1 if t.text == "}" else 0
    # a full-line comment is indented as the code line below it; above a `}`, as the block it closes
    below = 0
    for line in reversed(laid):
        if line is None:
            continue
        if line.full:
            line.indent = below
        else:
            below = line.indent + (INDENT if _closes(line) else 0)
    out: list[_Line | None] = []
    for i, line in enumerate(laid):
        if line is not None:
            out.append(line)
            continue
        after = next((x for x in laid[i + 1:] if x is not None), None)
        # at most one blank line, and none at the start or end of the file or of a block
        if out and out[-1] is not None and not _opens(out[-1]) and after is not None and not _closes(after):
            out.append(None)
    return out


def _opens(line: _Line) -> bool:
    return bool(line.tokens) and line.tokens[-1].text == "{"


def _closes(line: _Line) -> bool:
    return bool(line.tokens) and line.tokens[0].text == "}"


def _join(tokens: list[_Tok], tight_open: set[int], tight_colon: set[int]) -> str:
    """A line's tokens with one space between them, none where the layout writes them tight."""
    parts = [tokens[0].text]
    for prev, tok in zip(tokens, tokens[1:], strict=False):
        tight = (tok.text in (",", ":", ")") or prev.text == "("
                 or (tok.text == "(" and tok.start in tight_open) or (prev.text == ":" and prev.start in tight_colon))
        parts.append(tok.text if tight else " " + tok.text)
    return "".join(parts)


def _render(lines: list[_Line | None], tight_open: set[int], tight_colon: set[int]) -> str:
    """The text: each line's code, and its trailing comment at the column of its run."""
    texts = ["" if ln is None else " " * ln.indent + (str(ln.comment) if ln.full else
             _join(ln.tokens, tight_open, tight_colon)) for ln in lines]
    i = 0
    while i < len(lines):
        if not _trailing(lines[i]):
            i += 1
            continue
        j = i
        while j < len(lines) and _trailing(lines[j]):
            j += 1
        run = range(i, j)  # consecutive lines with trailing comments: one column for all
        # the first column before which all the run's lines fit, but for one: a single long line keeps
        # its comment three spaces after it rather than moving the whole run's comments out
        fitting = [len(texts[k]) for k in run if len(texts[k]) < COLUMNS[-1]]
        column = next((c for c in COLUMNS if sum(n >= c for n in fitting) <= 1), COLUMNS[-1])
        for k in run:
            comment = lines[k].comment  # type: ignore[union-attr]  # _trailing: a line with a comment
            code = texts[k]
            pad = column - len(code) if len(code) < column else LONG_GAP
            texts[k] = code + " " * pad + str(comment)
        i = j
    return "\n".join(texts) + "\n"


def _trailing(line: _Line | None) -> bool:
    return line is not None and not line.full and line.comment is not None
