"""The editor features beyond problems, hover and definition, with no editor protocol in them: the names
a position stands for and where else they occur (references, rename), the outline, the tokens to colour,
signature help, folding, inlay hints and the completions a context narrows to.

Positions are 0-based lines and characters in code points, as in analysis.py. Occurrences are found in the
token stream (comments and strings set apart), in the namespace the token's place gives it: a word after
`as` is a scoring category, any other word a kind, class, tag, deck or ability, and a string after a
landmark kind that landmark's name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

from rebirth_dsl.check.types import VARIABLES
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.lsp.analysis import (
    Analysis,
    Completion,
    Range,
    Symbols,
    grammar_keywords,
    is_bundled,
    param_words,
    token_at,
)

_TOKEN = re.compile(r'"[^"\n]*"?|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|#[^\n]*|[{}():,=+*/<>-]')
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COUNT = re.compile(r"x[0-9]+")  # `food x12`: a count, not a name
_RULE_ID = re.compile(r"\b[A-Z]{1,3}-[A-Z]{0,3}[0-9]+\b")  # as lang.ids reads them


@dataclass(frozen=True)
class Tok:
    """One token of a text: where, what, and the word before it (comments skipped)."""

    line: int
    start: int
    end: int
    text: str
    prev: str
    head: str = ""  # the first word of its line

    @property
    def category(self) -> bool:
        """Whether a word names a scoring category: after `as`, or in a declaration of categories."""
        return self.prev == "as" or (self.head.startswith("categor") and self.text != self.head)


def tokens(text: str) -> Iterator[Tok]:
    """The tokens of a rules text, each with the token before it (comments are yielded, not counted)."""
    prev = ""
    for n, line in enumerate(text.split("\n")):
        head = ""
        for m in _TOKEN.finditer(line):
            t = m.group()
            head = head or t
            yield Tok(n, m.start(), m.end(), t, prev, head)
            if not t.startswith("#"):
                prev = t


# ----- what a position names, and where else it occurs ------------------------------------------
@dataclass(frozen=True)
class Target:
    """A name as the language reads it: its namespace (category, class, deck, landmark name, ...) and text."""

    what: str  # "category", "class", "deck", "landmark", "landmark kind", "tile kind", "hex kind", "tag", ...
    name: str
    kind: str = ""  # a landmark name's landmark kind


RENAMEABLE = ("category", "class", "deck", "landmark")


def _what(word: str, sym: Symbols) -> str | None:
    """The namespace of a bare word (not after `as`), None for a keyword, function or variable."""
    for what, names in (("class", sym.classes), ("deck", sym.decks), ("ability", sym.abilities),
                        ("landmark kind", sym.landmark_kinds), ("tile kind", sym.tile_kinds),
                        ("hex kind", sym.hex_kinds), ("tag", sym.tags)):
        if word in names:
            return what
    return None


def target_at(a: Analysis, line: int, ch: int) -> tuple[Target, Range] | None:
    """The name at a position and its range, if it names a category, kind, class, tag, deck, ability or
    landmark."""
    sym = a.symbols
    if sym is None or line >= len(a.text.split("\n")):
        return None
    for t in tokens(a.text):
        if t.line < line:
            continue
        if t.line > line or t.start > ch:
            return None
        if not (t.start <= ch <= t.end) or t.text.startswith("#"):
            continue
        r = Range((t.line, t.start), (t.line, t.end))
        if t.text.startswith('"'):
            if t.prev in sym.landmark_kinds and t.text.endswith('"') and len(t.text) > 1:
                return Target("landmark", t.text[1:-1], t.prev), Range((t.line, t.start + 1), (t.line, t.end - 1))
            continue
        if not _IDENT.fullmatch(t.text) or _COUNT.fullmatch(t.text):
            continue
        if t.category:
            return Target("category", t.text), r
        what = _what(t.text, sym)
        if what is not None:
            return Target(what, t.text), r
    return None


def occurrences(text: str, target: Target, sym: Symbols) -> list[Range]:
    """Where a name occurs in one text, in its own namespace only."""
    out: list[Range] = []
    if target.what == "landmark":
        quoted = f'"{target.name}"'
        for t in tokens(text):
            if t.text == quoted and t.prev in sym.landmark_kinds and (not target.kind or t.prev == target.kind):
                out.append(Range((t.line, t.start + 1), (t.line, t.end - 1)))
        return out
    for t in tokens(text):
        if t.text != target.name:
            continue
        if t.category == (target.what == "category"):
            out.append(Range((t.line, t.start), (t.line, t.end)))
    return out


Place = tuple[Path | None, Range]  # None: the document itself


def references(a: Analysis, line: int, ch: int, include_base: bool = True) -> list[Place]:
    """Every occurrence of the name at a position, in the document and (when asked) in its base's files."""
    found = target_at(a, line, ch)
    if found is None or a.symbols is None:
        return []
    target = found[0]
    out: list[Place] = [(None, r) for r in occurrences(a.text, target, a.symbols)]
    if include_base:
        for path, text in a.base_files:
            out.extend((path, r) for r in occurrences(text, target, a.symbols))
    return out


class RenameRefused(Exception):
    """A rename the server will not make; the message says why, for the editor to show."""


@dataclass(frozen=True)
class BoardEdit:
    """A landmark's `"name"` in a board file, renamed with it."""

    path: Path
    range: Range


def prepare_rename(a: Analysis, line: int, ch: int) -> tuple[Target, Range]:
    """The name a rename at a position would change, or why it will not."""
    if a.rules is None:  # its uses could not all be found: a rename would miss some
        raise RenameRefused("this file has errors that stop it being read whole (see its problems): fix them "
                            "first, so that every use of the name is found")
    found = target_at(a, line, ch)
    if found is None:
        raise RenameRefused("only a category, class, deck or landmark name can be renamed here")
    target, r = found
    if target.what not in RENAMEABLE:
        raise RenameRefused(f"`{target.name}` is a {target.what}: only categories, classes, decks and landmark "
                            "names are renamed (a kind, tag or ability is also named by boards and the engine's "
                            "vocabulary)")
    for path, text in a.base_files:
        if is_bundled(path) and a.symbols is not None and occurrences(text, target, a.symbols):
            raise RenameRefused(
                f"`{target.name}` is used by the bundled ruleset {path.name}, which this file extends: a bundled "
                f"file is part of the installation and is not edited, and renaming `{target.name}` here alone "
                "would no longer match it")
    if target.what == "landmark":
        if a.board_path is None:
            raise RenameRefused(f'no board is known for this ruleset, so "{target.name}" cannot be renamed on it')
        if is_bundled(a.board_path):
            raise RenameRefused(f'"{target.name}" is a landmark of the bundled board {a.board_path.name}, which '
                                "is part of the installation and is not edited: copy the board to rename it")
    return target, r


def rename(a: Analysis, line: int, ch: int, new: str) -> tuple[list[Place], BoardEdit | None, str]:
    """The edits of a rename: each occurrence in the document and its (not bundled) base, the board's
    `"name"` of a landmark, and the text that replaces each (a landmark name's without its quotes)."""
    target, _ = prepare_rename(a, line, ch)
    sym = a.symbols or Symbols()
    if target.what == "landmark":
        if not new or '"' in new or "\n" in new or "\\" in new:
            raise RenameRefused("a landmark's name is a string without quotes, backslashes or line breaks")
        if any(n == new for _, n in sym.landmarks):
            raise RenameRefused(f'the board already has a landmark "{new}": names are unique on a board')
    else:
        if not _IDENT.fullmatch(new) or new in grammar_keywords() or new in SIGNATURES or new in VARIABLES:
            raise RenameRefused(f"`{new}` cannot be a name: a name is a letter or _ then letters, digits or _, "
                                "and not a keyword, function or variable")
        taken = _what(new, sym)
        if target.what != "category" and taken is not None:
            raise RenameRefused(f"`{new}` is already a {taken} of this ruleset")
    places = references(a, line, ch)
    board = None
    if target.what == "landmark" and a.board_path is not None:
        board = _board_name(a.board_path, target.name)
    return places, board, new


def _board_name(board_path: Path, name: str) -> BoardEdit | None:
    """The range of a landmark's name string (inside its quotes) in a board JSON file."""
    try:
        text = board_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = re.search(r'"name"\s*:\s*"(' + re.escape(json.dumps(name)[1:-1]) + ')"', text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start(1))
    col = m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1)
    return BoardEdit(board_path, Range((line, col), (line, col + len(m.group(1)))))


# ----- the outline ------------------------------------------------------------------------------
@dataclass
class Outline:
    """One entry of the document's outline: a statement, or an item of a block."""

    name: str
    detail: str
    kind: str  # "block", "statement", "declaration", "trigger", "item", "card"
    range: Range
    selection: Range
    children: list[Outline]


def _span_range(sp: A.Span, lines: list[str]) -> Range:
    end_line = (sp.end_line or sp.line) - 1
    end_col = sp.end_col - 1 if sp.end_col else len(lines[end_line]) if end_line < len(lines) else 0
    return Range((sp.line - 1, sp.col - 1), (end_line, end_col))


def _head(lines: list[str], sp: A.Span) -> tuple[str, Range]:
    """The first line of a node's text (its comment and an opening brace left off), and where it stands."""
    line = lines[sp.line - 1] if sp.line - 1 < len(lines) else ""
    start = sp.col - 1
    end = len(line) if sp.end_line != sp.line else sp.end_col - 1
    code = line[start:end]
    m = re.search(r'#(?=(?:[^"]*"[^"]*")*[^"]*$)', code)  # a `#` outside strings starts the comment
    if m:
        code = code[:m.start()]
    code = code.rstrip().removesuffix("{").rstrip()
    return code or line.strip(), Range((sp.line - 1, start), (sp.line - 1, start + len(code)))


def _children(node: object) -> list[object]:
    """The items of a block statement: the nodes of its tuple fields that carry a span of their own."""
    out: list[object] = []
    if not is_dataclass(node):
        return out
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, tuple) and value and all(is_dataclass(v) and getattr(getattr(v, "span", None), "line", 0)
                                                      for v in value):
            if not isinstance(value[0], A.Name | A.Num):
                out.extend(value)
    return out


def outline(a: Analysis) -> list[Outline]:
    """The document's statements as an outline, a block's items under it, each with the rule ids it cites."""
    own = a.own
    if own is None:
        return []
    lines = a.text.split("\n")
    ids = comment_ids(a.text)

    def cited(sp: A.Span) -> str:
        got: list[str] = []
        for n in range(sp.line, (sp.end_line or sp.line) + 1):
            got.extend(i for i in ids.get(n, ()) if i not in got)
        return " ".join(got)

    out: list[Outline] = []
    header = own.header
    name, sel = _head(lines, header.span)
    out.append(Outline(name, "", "header", _span_range(header.span, lines), sel, []))
    for s in own.statements:
        name, sel = _head(lines, s.span)
        kids = []
        for item in _children(s):
            sp = item.span  # type: ignore[attr-defined]
            if sp.line == s.span.line:
                continue
            iname, isel = _head(lines, sp)
            kids.append(Outline(iname, cited(sp), "card" if isinstance(item, A.Card) else "item",
                                _span_range(sp, lines), isel, []))
        kind = ("block" if kids or "{" in lines[s.span.line - 1] else
                "trigger" if isinstance(s, A.Trigger) else
                "declaration" if isinstance(s, A.Declare | A.ClassDecl | A.AbilityDecl) else "statement")
        detail = cited(A.Span(s.span.file, s.span.line, s.span.col)) if kids else cited(s.span)
        out.append(Outline(name, detail, kind, _span_range(s.span, lines), sel, kids))
    return _group(out, a.text, lines)


def _group(entries: list[Outline], text: str, lines: list[str]) -> list[Outline]:
    """`tiles { }`, `setup { }` and `end { }` are no statements of their own (their items are): each becomes
    an entry named by its head, holding the items between its braces."""
    starts = {o.range.start[0] for o in entries}
    opened: list[tuple[int, int]] = []
    blocks: list[tuple[int, int, int]] = []  # (line, column of the head, closing line)
    for t in tokens(text):
        if t.text == "{":
            opened.append((t.line, t.start))
        elif t.text == "}" and opened:
            line, col = opened.pop()
            if line not in starts and not opened:
                blocks.append((line, col, t.line))
    out = list(entries)
    for line, col, close in blocks:
        head = lines[line][:col].strip()
        inside = [o for o in out if line <= o.range.start[0] <= close and o.kind != "header"]
        if not head or not inside:
            continue
        start = len(lines[line]) - len(lines[line].lstrip())
        block = Outline(head, "", "block", Range((line, start), (close, len(lines[close]))),
                        Range((line, start), (line, start + len(head))), inside)
        at = out.index(inside[0])
        out = [o for o in out if o not in inside]
        out.insert(at, block)
    return out


# ----- semantic tokens ----------------------------------------------------------------------------
TOKEN_TYPES = ["keyword", "variable", "number", "comment", "string", "function", "enumMember", "class",
               "property", "namespace", "type", "method", "decorator"]
# category: type; kinds: enumMember; tag: property; deck: namespace; ability: method; rule id: decorator
_NAMESPACE_TYPE = {"class": "class", "deck": "namespace", "ability": "method", "landmark kind": "enumMember",
                   "tile kind": "enumMember", "hex kind": "enumMember", "tag": "property"}


def semantic_tokens(a: Analysis) -> list[tuple[int, int, int, str]]:
    """The document's tokens to colour, as (line, start, end, type): keywords, names by what they name,
    numbers, strings, comments, and the rule ids a comment cites (a token of their own)."""
    sym = a.symbols or Symbols()
    keywords = set(grammar_keywords())
    lines = a.text.split("\n")
    out: list[tuple[int, int, int, str]] = []
    for t in tokens(a.text):
        if t.text.startswith("#"):
            pos = t.start
            for m in _RULE_ID.finditer(t.text):
                if t.start + m.start() > pos:
                    out.append((t.line, pos, t.start + m.start(), "comment"))
                out.append((t.line, t.start + m.start(), t.start + m.end(), "decorator"))
                pos = t.start + m.end()
            if pos < t.end:
                out.append((t.line, pos, t.end, "comment"))
            continue
        if t.text.startswith('"'):
            out.append((t.line, t.start, t.end, "string"))
            continue
        if t.text[0].isdigit() or _COUNT.fullmatch(t.text):
            out.append((t.line, t.start, t.end, "number"))
            continue
        if not _IDENT.fullmatch(t.text):
            continue
        typ: str | None = None
        if t.category:
            typ = "type"
        elif t.text in SIGNATURES and lines[t.line][t.end:].lstrip().startswith("("):
            typ = "function"
        elif (what := _what(t.text, sym)) is not None:
            typ = _NAMESPACE_TYPE[what]
        elif t.text in VARIABLES:
            typ = "variable"
        elif t.text in keywords:
            typ = "keyword"
        if typ is not None:
            out.append((t.line, t.start, t.end, typ))
    return out


# ----- signature help ---------------------------------------------------------------------------
def signature_at(a: Analysis, line: int, ch: int) -> tuple[str, int] | None:
    """The built-in function whose call a position is inside, and the argument it stands at."""
    lines = a.text.split("\n")
    if line >= len(lines):
        return None
    before = "\n".join(lines[max(0, line - 5):line] + [lines[line][:ch]])
    depth, commas, colon = 0, 0, False
    for i in range(len(before) - 1, -1, -1):
        c = before[i]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", before[:i])
                # past a colon only a call whose arguments hold colons: a player-count table's entries
                if m and m.group(1) in SIGNATURES and (not colon or "entry*" in SIGNATURES[m.group(1)].params):
                    return m.group(1), commas
                return None  # a bracket of the expression itself: no call
            depth -= 1
        elif c == "," and depth == 0:
            commas += 1
        elif c == ":" and depth == 0:
            colon = True  # an entry's `2 to 3:`, or the statement's colon: the `(` found tells which
        elif c in "#{}" and depth == 0:
            return None  # the call would have started before a comment or a block
    return None


def signature_parts(fn: str) -> tuple[str, list[str]]:
    """A function's signature label and its parameters' labels (each a substring of the label)."""
    words = param_words(fn)
    return f"{fn}({', '.join(words)}) -> {SIGNATURES[fn].result}", words


# ----- folding ----------------------------------------------------------------------------------
def folds(a: Analysis) -> list[tuple[int, int, str]]:
    """Ranges to fold, as (first line, last line, "region" or "comment"): each `{ }` block spanning lines
    and each run of two or more comment lines."""
    out: list[tuple[int, int, str]] = []
    opened: list[int] = []
    for t in tokens(a.text):
        if t.text == "{":
            opened.append(t.line)
        elif t.text == "}" and opened:
            first = opened.pop()
            if t.line > first:
                out.append((first, t.line, "region"))
    run: list[int] = []
    for n, line in enumerate([*a.text.split("\n"), ""]):
        if line.lstrip().startswith("#"):
            run.append(n)
            continue
        if len(run) >= 2:
            out.append((run[0], run[-1], "comment"))
        run = []
    return sorted(out)


# ----- inlay hints ------------------------------------------------------------------------------
_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def inlay_hints(a: Analysis, first: int, last: int) -> list[tuple[int, int, str, str]]:
    """Hints between lines first and last, as (line, character, label, tooltip): before each amount of a
    `pay size` line the place it pays ("1st:"), and after a statement that replaces one of its base's,
    where the replaced one is."""
    own = a.own
    if own is None:
        return []
    lines = a.text.split("\n")
    out: list[tuple[int, int, str, str]] = []
    for s in own.statements:
        if (s.span.end_line or s.span.line) - 1 < first or s.span.line - 1 > last:
            continue
        items = s.items if isinstance(s, A.AreaBlock) else ()
        for item in items:
            if isinstance(item, A.Pay) and len(item.amounts) > 1:
                for place, amount in enumerate(item.amounts, 1):
                    sp = amount.span
                    if first <= sp.line - 1 <= last:
                        out.append((sp.line - 1, sp.col - 1, f"{_ORDINAL.get(place, f'{place}th')}:",
                                    f"what the player of place {place} in the area's ranking scores"))
        for node in (s, *_children(s)):
            sp = node.span  # type: ignore[attr-defined]
            was = a.replaced.get((sp.line, sp.col))
            if was is None or not first <= sp.line - 1 <= last:
                continue
            _, head = _head(lines, sp)
            if isinstance(node, A.Without):
                out.append((head.end[0], head.end[1], f" removes {Path(was.file).name}:{was.line}",
                            "this statement removes its base's statement"))
                continue
            out.append((head.end[0], head.end[1], f" replaces {Path(was.file).name}:{was.line}",
                        "this statement replaces its base's statement of the same identity"))
    return sorted(out)


# ----- completion by context --------------------------------------------------------------------
def context_completions(a: Analysis, sym: Symbols, line: int, ch: int) -> list[Completion] | None:
    """The few completions a context allows (after `on first touch `: the landmark kinds; after `pay size `:
    the sizes of the board's areas), or None where the general list applies."""
    lines = a.text.split("\n")
    text = lines[line][:ch] if line < len(lines) else ""
    if re.search(r"\bfirst\s+touch\s+[A-Za-z_0-9]*$", text):
        return [Completion(k, "kind", "landmark kind") for k in sym.landmark_kinds]
    if re.search(r"\bpay\s+size\s+[0-9]*$", text):  # the sizes of the last parse's board: the line is half typed
        return [Completion(str(n), "value", f"{count} area{'s' if count > 1 else ''} of {n} on board {sym.board}")
                for n, count in sym.area_sizes.items()]
    return None


def expects_statement(a: Analysis, line: int, ch: int) -> bool:
    """Whether a position stands where a statement (or a block's item) starts: keywords come first there,
    names everywhere else."""
    lines = a.text.split("\n")
    text = lines[line][:ch] if line < len(lines) else ""
    m = token_at(text, len(text))
    before = text[:m.start()] if m is not None and m.end() == len(text) else text
    return before.strip() in ("", "{")
