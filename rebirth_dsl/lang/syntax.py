"""Parsing rules text: one cached LALR parser; Lark's errors become the project's own, with file:line:col
and a caret. Only text not parsed before comes here (lang.parser keeps each file's AST in the data-only
cache), so Lark is imported by cold runs and editors only."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from rebirth_dsl import cache
from rebirth_dsl.errors import Diagnostic, Fix, RulesSyntaxError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.limits import MAX_EXPR_DEPTH, MAX_NUMBER

if TYPE_CHECKING:
    from lark import Lark, Token, Tree, UnexpectedInput
    from lark.lexer import TerminalDef

_HERE = Path(__file__).resolve().parent  # the grammar beside this module (see lang.parser._HERE)

# Common slips, matched by Lark's match_examples: each label becomes a hint under the caret.
_EXAMPLES: dict[str, list[str]] = {
    "a tile count is written `x12` after the kind (e.g. `food x12`)": [
        "ruleset a tiles { food 12 }",
        "ruleset a tiles { settlement influence 1 3 }",
    ],
    "a trigger reads `on place KINDS: score EXPR as CATEGORY`": [
        "ruleset a on place food: score 1",
        "ruleset a on place food score 1 as farms",
    ],
    "a rules file starts with `ruleset NAME \"Title\"`": ["players 2 to 4", "tiles { food x1 }"],
    "a payout reads `pay size N: A, B, ...`": ["ruleset a area s { pay 2: 5, 3 }", "ruleset a area s { pay size 2 5, 3 }"],
    "a block is closed by `}`": ["ruleset a tiles { food x1 "],
    "a card reads `card \"Name\" POINTS: CONDITION`": [
        "ruleset a deck m { card Name 3: always }",
        "ruleset a deck m { card \"Name\": always }",
    ],
}


_LARK_OPTIONS: dict[str, str | bool] = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}
_KEYWORD_END = r"(?![A-Za-z0-9_])"
_KEYWORD_FORMAT = 2  # the version of the keyword rewriting below, part of the cache key


def _whole_word(t: TerminalDef) -> None:
    """A keyword matches only as a whole word: `onn` is a name (and a typo reported on it), never the
    keyword `on` followed by `n`; `placee` is never `place` + `e`."""
    from lark.lexer import PatternRE

    if t.pattern.type == "str" and t.pattern.value.isidentifier():
        t.pattern = PatternRE(re.escape(t.pattern.value) + _KEYWORD_END)
        t.priority = 2  # above NAME, which matches the same letters


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    """The one Lark LALR parser, built once per process. Building the tables takes about 210 ms, loading
    them from the data-only cache (rebirth_dsl.cache) about 17 ms; Lark's own pickle cache is never used."""
    return cached_lark(_HERE.joinpath("grammar.lark").read_text(encoding="utf-8"), "lark")


def cached_lark(grammar: str, kind: str) -> Lark:
    """A Lark parser for a grammar whose keywords match as whole words, its tables kept in the data-only
    cache under `kind` by the grammar's content (the rules language's and the position notation's)."""
    import lark  # 38 ms to import: `rebirth eval` with a cached AST never needs it
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    key = cache.digest(lark.__version__, repr(sorted(_LARK_OPTIONS.items())), str(_KEYWORD_FORMAT), grammar)
    stored = cache.load(kind, key)
    if stored is not None:
        try:
            tables = cache.decode(stored, {})
            loaded = lark.Lark._load_from_dict(tables["data"], tables["memo"], propagate_positions=True)
            if isinstance(loaded, lark.Lark):  # Lark leaves its loader untyped
                return loaded
        except Exception:  # noqa: BLE001 - any damage to an entry is a miss: build the tables afresh
            pass
    parser = lark.Lark(grammar, cache=False, edit_terminals=_whole_word, **_LARK_OPTIONS)
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    options = data.get("options") if isinstance(data, dict) else None
    if isinstance(options, dict):  # the terminals are already edited; the loader needs no callback
        options["edit_terminals"] = None
    try:
        cache.store(kind, key, cache.encode({"data": data, "memo": memo}))
    except TypeError:
        pass  # something the data codec cannot hold: simply not cached
    return parser


def _readable(term: str) -> str:
    """A terminal's name as the user would type it."""
    try:
        pattern = lark_parser().get_terminal(term).pattern
    except KeyError:
        return term
    if pattern.type == "str":
        return f"'{pattern.value}'"
    if pattern.value.endswith(_KEYWORD_END):  # a keyword made whole-word by _whole_word
        return f"'{pattern.value.removesuffix(_KEYWORD_END).replace(chr(92), '')}'"
    return {"NAME": "a name", "INT": "a number", "STRING": "a \"string\"", "COUNT": "a count like x3",
            "CMP": "a comparison", "ADDOP": "'+' or '-'", "MULOP": "'*'", "VISIBILITY": "'visible' or 'hidden'",
            "ANY": "'any'", "$END": "the end of the file"}.get(term, term)


def _syntax_error(e: UnexpectedInput, text: str, file: str) -> RulesSyntaxError:
    from lark import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken  # lark only once text is parsed

    line = getattr(e, "line", 0) or 0
    col = getattr(e, "column", 0) or 0
    lines = text.split("\n")  # Lark counts lines by "\n" only
    if lines and lines[-1] == "":
        lines.pop()
    if isinstance(e, UnexpectedEOF) or line <= 0:
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        what = "unexpected end of file"
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        what = "unexpected end of file" if tok.type == "$END" else f"unexpected {str(tok)!r}"
    elif isinstance(e, UnexpectedCharacters):
        what = f"unexpected character {e.char!r}"
    else:
        what = "syntax error"
    said = _what_the_author_did(e, text, file, lines, line, col)
    if said is not None:
        return RulesSyntaxError([said])
    expected = sorted({_readable(t) for t in (getattr(e, "expected", None) or getattr(e, "allowed", None) or [])})
    msg = what
    if expected:
        shown = ", ".join(expected[:12]) + (", ..." if len(expected) > 12 else "")
        msg += f"; expected {shown}"
    hint = _example_signatures().get(_signature(e))
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    tok_text = str(getattr(e, "token", "") or "")
    end = max(col, 1) + len(tok_text) if tok_text and "\n" not in tok_text else 0  # underline the whole token
    return RulesSyntaxError([Diagnostic(msg, file=file, line=line, col=max(col, 1), source_line=src, hint=hint,
                                        end_line=line if end else 0, end_col=end, code="syntax")])


# The statements that stand only inside a block, by their first word, and the block. A parser meeting one
# outside its block would list every keyword it could take instead.
_BLOCK_WORDS: dict[str, str] = {
    **dict.fromkeys(("rank", "ties", "pay", "alone"), "area K { ... }"),
    **dict.fromkeys(("over", "unowned", "compare", "final"), "majority K { ... }"),
    "card": "deck NAME { ... }",
    **dict.fromkeys(("set", "hand"), "setup { ... }"),
    **dict.fromkeys(("incomplete", "each", "held", "winner"), "end { ... }"),
}
_PHRASE = {"rank": "rank by", "pay": "pay size", "over": "over adjacent", "final": "final tie", "set": "set aside",
           "held": "held cards", "winner": "winner ties", "each": "each KIND owned"}
# where a statement may stand: between statements of the file (a top-level keyword is expected) or of a block
_BOUNDARY = frozenset({"AREA", "RBRACE"})


def _braces(text: str, upto: int | None = None) -> list[tuple[int, int, int]]:
    """The `{` still open (offset, line, col) after reading the text (up to an offset), outside comments and
    strings; a `}` that closes none is left to the parser."""
    open_: list[tuple[int, int, int]] = []
    line, start, i, n = 1, 0, 0, len(text) if upto is None else min(upto, len(text))
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, start = line + 1, i + 1
        elif ch == "#":  # a comment runs to the end of its line
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif ch == '"':  # a string ends at its quote or, unterminated, at the end of its line
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 1
            i = j + 1 if j < n and text[j] == '"' else j
            continue
        elif ch == "{":
            open_.append((i, line, i - start + 1))
        elif ch == "}" and open_:
            open_.pop()
        i += 1
    return open_


def _offset(lines: list[str], line: int, col: int) -> int:
    """The offset in the text of a 1-based line and column."""
    return sum(len(x) + 1 for x in lines[:line - 1]) + col - 1


def _what_the_author_did(e: UnexpectedInput, text: str, file: str, lines: list[str], line: int,
                         col: int) -> Diagnostic | None:
    """The slip behind a parse error, in the author's words, when it is one of the common ones: a block
    never closed (named at its `{`, with the `}` to insert where its statements stop), a `}` closing none,
    a block's statement outside its block. None: the parser's own words."""
    from lark import UnexpectedCharacters, UnexpectedToken

    def at(ln: int, c: int, msg: str, width: int, hint: str | None, fixes: tuple[Fix, ...] = ()) -> Diagnostic:
        src = lines[ln - 1] if 0 < ln <= len(lines) else ""
        return Diagnostic(msg, file=file, line=ln, col=c, source_line=src, hint=hint, end_line=ln, end_col=c + width,
                          code="syntax", fixes=fixes)

    if isinstance(e, UnexpectedCharacters):
        return None  # a character no word is made of: that, not a brace, is what to mend first
    here = _offset(lines, line, col) if 0 < line <= len(lines) else len(text)
    expected = set(getattr(e, "expected", None) or ())
    unclosed = _braces(text)
    open_here = _braces(text, here)
    never = {o for o, _, _ in unclosed}
    still = [b for b in open_here if b[0] in never]
    if still and "RBRACE" in expected:  # a `}` could have ended the innermost block open here, never closed
        _, bl, bc = still[-1]
        tok = getattr(e, "token", None)
        ended = tok is None or getattr(tok, "type", "") == "$END"
        opening = lines[bl - 1]
        fix_at, text_in = _close_at(lines, line, col, ended, opening[:len(opening) - len(opening.lstrip())],
                                    text.endswith("\n"))
        hint = ("its statements run to the end of the file: add `}` after the last one" if ended else
                f"its statements stop before `{tok}` at line {line}: add `}}` there")
        fix = Fix("close the block with `}`", A.Span(file, fix_at[0], fix_at[1], fix_at[0], fix_at[1]), text_in)
        return at(bl, bc, f"the `{{` opened at line {bl} is never closed", 1, hint, (fix,))
    if not isinstance(e, UnexpectedToken):
        return None
    tok = e.token
    if str(tok) == "}" and not open_here:
        return at(line, col, "this `}` closes no block: every `{` before it is closed already", 1,
                  "remove it, or open the block it was meant to close")
    word = str(tok)
    if word in _BLOCK_WORDS and tok.type != "NAME" and expected & _BOUNDARY:
        phrase, block = _PHRASE.get(word, word), _BLOCK_WORDS[word]
        opener = block.split(" {")[0]
        return at(line, col, f"`{phrase}` belongs inside `{block}`", len(word),
                  f"move it into the `{opener}` block" + (f", or open one before it: `{opener} {{`" if "AREA" in expected
                                                          else ""))
    before = text[:here]
    if tok.type == "COLON" and expected == {"TO"} and re.search(r"\bplayers\s+[0-9]+\s*$", before):
        return at(line, col, "`players N: ...` belongs inside `setup { ... }` (here `players` can only start "
                  "`players LOW to HIGH`)", 1, "move it into the setup block")
    count = re.match(r"[ \t]+(x[0-9]+)\b", text[here + len(word):])
    if tok.type == "NAME" and "AREA" in expected and count:
        return at(line, col, f"`{word} {count.group(1)}` belongs inside `tiles {{ ... }}`", len(word),
                  "move it into the tiles block")
    return None


def _close_at(lines: list[str], line: int, col: int, ended: bool, indent: str,
              newline_at_end: bool) -> tuple[tuple[int, int], str]:
    """Where the `}` of a block goes, and the text to insert: after the last statement before the word the
    parser stopped at (the end of the file when it ran out), on a line of its own at the block's indent."""
    if not ended and lines[line - 1][:col - 1].split("#", 1)[0].strip():
        return (line, col), "} "  # the word that cannot stand in the block shares a line with the block's last
    last = (len(lines) if ended else line - 1)
    while last > 0 and not lines[last - 1].split("#", 1)[0].strip():
        last -= 1  # blank and comment-only lines before the word belong to what follows
    if last >= len(lines) and not newline_at_end:
        return (max(last, 1), len(lines[-1]) + 1 if lines else 1), f"\n{indent}}}"
    return (last + 1, 1), f"{indent}}}\n"


def _signature(e: UnexpectedInput) -> tuple[object, ...]:
    """Where the parser stood and what it met. Unlike Lark's match_examples, which also compares the
    depth of the parse stack, this ignores how many statements came before the error."""
    state = getattr(e, "state", None)
    token = getattr(e, "token", None)
    return (type(e).__name__, getattr(state, "position", None), getattr(token, "type", None))


@lru_cache(maxsize=1)
def _example_signatures() -> dict[tuple[object, ...], str]:
    out: dict[tuple[object, ...], str] = {}
    from lark import UnexpectedInput

    for label, examples in _EXAMPLES.items():
        for text in examples:
            try:
                lark_parser().parse(text)
            except UnexpectedInput as ex:
                out.setdefault(_signature(ex), label)
    return out


def parse_text(text: str, file: str = "<rules>") -> A.Rules:
    """Parse one rules text (without resolving `extends`)."""
    from lark import UnexpectedInput

    from rebirth_dsl.lang.lower import Lower  # imports lark (38 ms): only when text is really parsed

    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, file) from None
    problems = _over_limits(tree, text, file)  # before lowering, which recurses over the tree
    if problems:
        raise RulesSyntaxError(problems)
    header, statements = Lower(file).transform(tree)
    return A.Rules(header, tuple(statements), file, text, {file: text})


_EXPR_RULES = frozenset({"or_expr", "and_expr", "not_", "cmp", "sum", "prod", "num", "name", "call",
                         "landmark_named", "landmark_tagged", "paren"})
_CHAINS = frozenset({"or_expr", "and_expr", "sum", "prod"})


def _number_value(tok: Token) -> int | None:
    """The value of an INT or COUNT token (`12`, `x12`), or None when it has more digits than any limit."""
    written = str(tok).lstrip("x")
    digits = written.lstrip("0") or "0"
    # leading zeros count too: lower.py reads the token as written, and int() refuses over 4,300 digits
    return int(digits) if len(digits) <= len(str(MAX_NUMBER)) and len(written) <= 64 else None


def _over_limits(tree: Tree[Token], text: str, file: str) -> list[Diagnostic]:
    """Numbers above MAX_NUMBER and expressions nested deeper than MAX_EXPR_DEPTH, each at its place.

    Walks the parse tree without recursion (a hostile file may nest 100,000 deep). An expression's depth
    is that of its AST (each operator of a chain `a + b + c` is one level, as lower.py folds it), with
    each pair of parentheses counted as a level too."""
    from lark import Token, Tree

    lines = text.split("\n")
    out: list[Diagnostic] = []

    def at(line: int, col: int, msg: str, hint: str | None = None) -> None:
        src = lines[line - 1] if 0 < line <= len(lines) else None
        out.append(Diagnostic(msg, file=file, line=line, col=max(col, 1), source_line=src, hint=hint))

    deepest: dict[int, tuple[Tree[Token], int]] = {}  # per expression (its root's id): (root, deepest level)
    # (node, level in its expression, the root); a node is a tree, a token, or None for an optional part
    stack: list[tuple[object, int, Tree[Token] | None]] = [(tree, 0, None)]
    while stack:
        node, level, root = stack.pop()
        if isinstance(node, Token):
            if node.type in ("INT", "COUNT"):
                v = _number_value(node)
                if v is None or v > MAX_NUMBER:
                    num = str(node) if len(node) <= 12 else f"{str(node)[:8]}... ({len(node)} digits)"
                    at(node.line or 0, node.column or 0, f"the number {num} is too big; no game needs more "
                       f"than {MAX_NUMBER:,}")
            continue
        if not isinstance(node, Tree):
            continue  # None, for an optional part left out
        if node.data not in _EXPR_RULES and root is None:  # a statement; inside an expression, any rule nests
            stack.extend((c, 0, None) for c in node.children)
            continue
        if root is None:
            root, level = node, 1
        if level > deepest.get(id(root), (root, 0))[1]:
            deepest[id(root)] = (root, level)
        kids = node.children
        if node.data in _CHAINS:
            operands = kids[0::2] if node.data in ("sum", "prod") else kids
            k = len(operands)
            stack.extend((c, level + (k - i if i else k - 1), root) for i, c in enumerate(operands))
            if node.data in ("sum", "prod"):
                stack.extend((c, 0, None) for c in kids[1::2])
        else:
            stack.extend((c, level + 1, root) for c in kids)
    for root, depth in deepest.values():
        if depth > MAX_EXPR_DEPTH:
            meta = root.meta
            at(getattr(meta, "line", 0), getattr(meta, "column", 0),
               f"this expression is nested {depth} deep; the limit is {MAX_EXPR_DEPTH} (each pair of parentheses, "
               "call, `not` and operator of a chain counts a level)", "split it, or write it more simply")
    out.sort(key=lambda d: (d.line, d.col))
    return out
