"""What the editor server knows about one rules document, with no editor protocol in it: the document's
problems (those `rebirth check` reports), the statement or function under a position, the names to
complete, and where a name is defined.

Positions are 0-based lines and characters counted in code points (Python string indices), as the
parser counts columns; the server converts them to the client's units.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field, fields, is_dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Protocol

from rebirth_dsl.board.model import Board, load_board
from rebirth_dsl.bundle import bundled
from rebirth_dsl.check.checks import check
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.check.types import VARIABLES
from rebirth_dsl.errors import Diagnostic, RebirthError, RulesSyntaxError
from rebirth_dsl.files import shown
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES, say_table
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.lang.limits import MAX_RULES_BYTES
from rebirth_dsl.lang.parser import load_rules, merge, parse_text, statement_identity
from rebirth_dsl.lang.refs import base_not_found, find_base, with_folder
from rebirth_dsl.present.describe import describe_statement
from rebirth_dsl.records.resources import board_for
from rebirth_dsl.rules import touch
from rebirth_dsl.rules.words import Words

Pos = tuple[int, int]  # (line, character), both 0-based


@dataclass(frozen=True)
class Range:
    """A stretch of a document, end exclusive."""

    start: Pos
    end: Pos


@dataclass(frozen=True)
class Location:
    """A place in a file: a definition's target."""

    path: Path
    range: Range


@dataclass(frozen=True)
class Edit:
    """A fix in this document's terms: its title and the text that replaces a range (empty: inserted)."""

    title: str
    range: Range
    text: str


@dataclass(frozen=True)
class Problem:
    """One diagnostic in the editor's terms: where in this document, how bad, what, and the edits that
    would mend it (the checker's `Diagnostic.fixes` that fall in this document)."""

    range: Range
    severity: str  # "error" or "warning"
    code: str
    message: str
    fixes: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Completion:
    """One completion: the text shown and inserted, what it is, and its documentation."""

    label: str
    kind: str  # keyword, function, variable, kind, class, tag, landmark, deck, file
    detail: str = ""
    documentation: str = ""
    insert: str | None = None  # when it differs from the label


@dataclass
class Symbols:
    """The names a ruleset and its board declare: what completion offers (kept from the last parse that
    worked, since a document being typed seldom parses)."""

    hex_kinds: list[str] = field(default_factory=list)
    tile_kinds: list[str] = field(default_factory=list)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    landmark_kinds: list[str] = field(default_factory=list)
    decks: list[str] = field(default_factory=list)
    abilities: list[str] = field(default_factory=list)
    landmarks: list[tuple[str, str]] = field(default_factory=list)  # (kind, name) of the board's named landmarks
    area_sizes: dict[int, int] = field(default_factory=dict)  # the board's area sizes: how many areas of each
    board: str = ""  # the board's name

    @classmethod
    def of(cls, rules: A.Rules, board: Board | None) -> Symbols:
        """The names of a (merged) ruleset and, when known, its board's landmarks and area sizes."""
        t = Tables(rules)
        landmarks = [(h.kind, h.name) for h in board.hexes if h.name and h.kind in t.landmark_kinds] if board else []
        abilities = [s.name for s in rules.statements if isinstance(s, A.AbilityDecl)]
        sizes = Counter(Counter(h.area for h in board.hexes if h.area).values()) if board else Counter()
        return cls(list(t.hex_kinds), list(t.tile_kinds), dict(t.classes), list(t.tags), list(t.landmark_kinds),
                   list(t.decks), abilities, landmarks, dict(sorted(sizes.items())), board.name if board else "")


@dataclass
class Analysis:
    """One version of a document, analysed: its own statements, the ruleset they make with their base,
    the board it is checked against, and its problems."""

    text: str
    path: Path | None  # None for a document not on disk
    file: str  # the name the document's spans carry
    own: A.Rules | None = None  # this document's statements (None when it does not parse)
    rules: A.Rules | None = None  # merged over the base it extends
    base_path: Path | None = None
    board: Board | None = None
    board_path: Path | None = None
    problems: list[Problem] = field(default_factory=list)
    symbols: Symbols | None = None
    too_large: bool = False  # over the size `rebirth check` reads: refused unparsed, and asked nothing
    base_files: list[tuple[Path, str]] = field(default_factory=list)  # each file of the base, with its text
    # a statement (or block item) of this document that replaces one of its base's, or a `without` and the
    # first statement it removes: (line, col) -> the base statement's span
    replaced: dict[tuple[int, int], A.Span] = field(default_factory=dict)


# ----- the language's words ----------------------------------------------------------------------
@lru_cache(maxsize=1)
def grammar_keywords() -> tuple[str, ...]:
    """Every keyword of the language: the quoted words of grammar.lark (terminal alternatives included)."""
    text = resources.files("rebirth_dsl.lang").joinpath("grammar.lark").read_text(encoding="utf-8")
    code = re.sub(r"(^|\s)//[^\n]*", r"\1", text)  # grammar comments may quote words too
    return tuple(sorted(set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', code))))


_ARG_WORDS = {"coll": "collection", "int": "number", "entry": "count: number", "sel:tile": "tile kind or class", "sel:hex": "hex kind or tag",
              "sel:near": "hex kind, tag or landmark kind", "sel:landmark": "landmark kind"}


def param_words(fn: str) -> list[str]:
    """A built-in function's parameters in words (`…` after one that repeats)."""
    return [_ARG_WORDS.get(a.rstrip("*"), a.rstrip("*").replace("|", " or ")) + ("…" if a.endswith("*") else "")
            for a in SIGNATURES[fn].params]


def signature(fn: str) -> str:
    """A built-in function's signature in words, e.g. `tiles(player, tile kind or class…) -> hexes`."""
    return f"{fn}({', '.join(param_words(fn))}) -> {SIGNATURES[fn].result}"


# ----- analysing a document ----------------------------------------------------------------------
class Analyser:
    """Analyses documents against the board a setting names, or else the ruleset's own; holds the
    setting and a cache of loaded boards."""

    def __init__(self, board: str | None = None, root: Path | None = None) -> None:
        self.board_setting = board or None
        self.root = root
        self._boards: dict[Path, tuple[tuple[int, int], Board]] = {}

    def analyse(self, text: str, path: Path | None, file: str | None = None) -> Analysis:
        """Parse and check one document's text as `rebirth check` checks a file: every problem found."""
        name = file or (shown(path) if path else "<rules>")
        size = len(text.encode("utf-8", "surrogatepass"))  # the bytes the file would have: milliseconds for 5 MB
        if size > MAX_RULES_BYTES:  # as load_rules refuses the file: one problem, found before any parsing
            a = Analysis("", path, name, too_large=True)
            a.problems = [Problem(Range((0, 0), (0, 0)), "error", "limits",
                                  f"rules is {size:,} bytes; the limit is {MAX_RULES_BYTES:,} (the size `rebirth "
                                  "check` reads): not checked")]
            return a
        if text.startswith("\ufeff"):
            # a byte-order mark, which read_text strips from a file: here a space stands in its place, so the
            # rules read as the CLI reads them and every column stays the one the editor counts (the editor
            # counts the mark as the first character of the first line)
            text = " " + text[1:]
        a = Analysis(text, path, name)
        diags: list[Diagnostic] = []
        try:
            a.own = parse_text(text, name)
        except RulesSyntaxError as e:
            diags.extend(replace(d, code=d.code or "syntax") for d in e.diagnostics)
        try:
            if a.own is not None:
                a.rules, a.base_path, base = self._with_base(a.own, path)
                if base is not None:
                    a.base_files = _files_of(base)
                    a.replaced = _replaced(base, a.own)
        except RebirthError as e:
            diags.extend(e.diagnostics)
        board_file = ""
        try:
            a.board_path = self._board_path(path, a.rules, a.base_path)
            if a.board_path is not None:
                board_file = shown(a.board_path)
                a.board = self._load_board(a.board_path)
        except RebirthError as e:
            diags.extend(e.diagnostics)
        if a.rules is not None:
            diags.extend(check(a.rules, a.board, board_file=board_file))
            a.symbols = Symbols.of(a.rules, a.board)
        lines = text.split("\n")
        # a warning about a statement of a bundled base is the base's (`rebirth check` names it in a note):
        # not put on the variant's `extends` line, where the author could do nothing about it
        diags = [d for d in diags if not (d.severity == "warning" and d.file and d.file != name
                                          and is_bundled(Path(d.file)))]
        a.problems = [_problem(d, name, lines, _extends_range(lines)) for d in diags]
        return a

    def _with_base(self, own: A.Rules, path: Path | None) -> tuple[A.Rules, Path | None, A.Rules | None]:
        """The document's statements merged over the ruleset it extends, found beside the document (not
        the editor's current folder), as load_rules finds it beside a file."""
        folder = path.parent if path is not None else (self.root or Path.cwd())
        own = with_folder(own, folder)  # a `board "file.json"` is beside the document
        ext = own.header.extends
        if ext is None:
            return own, None, None
        r = _extends_range(own.source.split("\n"))  # the problems of the clause sit on its file name
        where = {"file": own.file, "line": r.start[0] + 1, "col": r.start[1] + 1, "end_line": r.end[0] + 1,
                 "end_col": r.end[1] + 1}
        try:
            found = find_base(folder, ext)
            base_path = found.resolve() if found is not None else None
        except (OSError, ValueError, RuntimeError) as e:
            raise RebirthError.single(f"cannot read extended ruleset {shown(ext)!r}: {e}", **where) from None
        if base_path is None:  # as load_rules says it: the bundled names it may mean
            raise RebirthError.single(base_not_found(folder, ext), code="unknown-base", **where)
        if path is not None and base_path == path.resolve():
            raise RebirthError.single(f"ruleset extends itself through {shown(ext)!r}", **where)
        # the base from disk: an unsaved base is checked when it is saved (the server then re-checks all)
        base = load_rules(base_path)
        return merge(base, own), base_path, base

    def _board_path(self, path: Path | None, rules: A.Rules | None, base_path: Path | None) -> Path | None:
        """The board named by the setting, else the ruleset's own, as every command picks it
        (records.resources.board_for): its `board` statement, else its bundled board or its base's."""
        setting = self.board_setting
        if setting:
            p = Path(setting).expanduser()
            for folder in ([] if p.is_absolute() else [self.root, path.parent if path else None]):
                if folder is not None and (folder / p).is_file():
                    return folder / p
            return board_for(None, setting)
        if rules is None and path is None:
            return None
        # the buffer's statements, not the file on disk: a `board` statement that names no board is a
        # problem the checks report at the statement
        return board_for(path, rules=rules, base=base_path, strict=False) if rules is not None else \
            board_for(path, strict=False)

    def _load_board(self, path: Path) -> Board:
        """A board, loaded again only when its file changes."""
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            return load_board(path)  # it reports the failure
        cached = self._boards.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        board = load_board(path)
        self._boards[path] = (stamp, board)
        return board


def _files_of(base: A.Rules) -> list[tuple[Path, str]]:
    """The files a base ruleset was read from (its own base's too), with their text."""
    return [(Path(f), text) for f, text in base.sources.items() if f]


def _replaced(base: A.Rules, own: A.Rules) -> dict[tuple[int, int], A.Span]:
    """Which statements of a document replace a statement of its base (the identity merge uses), and which
    items of a block replace the base block's item of the same key: by the place they start at."""
    classes = {s.name: s.kinds for s in (*base.statements, *own.statements) if isinstance(s, A.ClassDecl)}
    by_identity: dict[object, A.Statement] = {}
    for base_st in base.statements:
        key = statement_identity(base_st, classes)
        if key is not None:
            by_identity.setdefault(key, base_st)
    out: dict[tuple[int, int], A.Span] = {}
    for st in own.statements:
        if isinstance(st, A.Without):
            # what a `without` removes, as merge removes it: the base statements gone once it alone is merged
            try:
                kept = {id(k) for k in merge(base, replace(own, statements=(st,))).statements}
            except RebirthError:
                continue  # it names nothing of the base: check reports it
            gone = [old for old in base.statements if id(old) not in kept]
            if gone:
                out[(st.span.line, st.span.col)] = gone[0].span
            continue
        key = statement_identity(st, classes)
        old = by_identity.get(key) if key is not None else None
        if old is None:
            continue
        out[(st.span.line, st.span.col)] = old.span
        if isinstance(st, A.AreaBlock | A.MajorityBlock) and isinstance(old, type(st)):
            items = {getattr(i, "key", None): i for i in old.items}
            for item in st.items:
                was = items.get(getattr(item, "key", None))
                if was is not None and getattr(item, "key", None) is not None:
                    out[(item.span.line, item.span.col)] = was.span
    return out


def is_bundled(path: Path) -> bool:
    """Whether a file is one of the installation's own rulesets or boards (which an edit must not touch)."""
    p = _resolved(path)
    return p in {_resolved(b) for kind in ("rules", "boards") for b in bundled(kind).values()}


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


# ----- problems in the editor's terms -----------------------------------------------------------
_TOKEN = re.compile(r'"[^"\n]*"?|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|#[^\n]*')


def token_at(line: str, ch: int) -> re.Match[str] | None:
    """The word, number, string or comment at a character of a line (or just before it: an editor's
    cursor stands after the word being typed)."""
    before = None
    for m in _TOKEN.finditer(line):
        if m.start() <= ch < m.end():
            return m
        if m.end() == ch:
            before = m
        if m.start() > ch:
            break
    return before


def _extends_range(lines: list[str]) -> Range:
    """The `extends "file"` string of the header, where problems in the base are shown; else the top."""
    for n, line in enumerate(lines):
        m = re.match(r'\s*ruleset\b[^#]*?\bextends\s+("[^"\n]*"?)', line)
        if m:
            return Range((n, m.start(1)), (n, m.end(1)))
        if line.split("#", 1)[0].strip():
            break  # the header is the first statement: it has passed
    return Range((0, 0), (0, 0))


def _problem(d: Diagnostic, file: str, lines: list[str], elsewhere: Range) -> Problem:
    """A diagnostic shown in this document: at its own range; one in another file (the base ruleset, the
    board) at the extends clause or the top, naming its place."""
    message = d.message + (f"\n{d.hint}" if d.hint else "")
    code = d.code or "problem"
    fixes = tuple(Edit(f.title, _span_range(f.span), f.text) for f in d.fixes if f.span.file in (file, ""))
    if d.file in (file, "") and not d.path:
        lsp = d.to_lsp()["range"]
        start = (lsp["start"]["line"], lsp["start"]["character"])  # type: ignore[index]
        end = (lsp["end"]["line"], lsp["end"]["character"])  # type: ignore[index]
        if not (d.end_line or d.end_col) and d.line:
            # no end known: cover the word the problem starts at, so the squiggle is under the whole word
            line = lines[start[0]] if start[0] < len(lines) else ""
            m = token_at(line, start[1])
            if m is not None and m.start() == start[1] and not m.group().startswith("#"):
                end = (start[0], m.end())
        return Problem(Range(start, end), d.severity, code, message, fixes)
    where = d.file or "board"
    where += f":{d.line}:{d.col}" if d.line else ""
    where += f": {d.path}" if d.path else ""
    return Problem(elsewhere, d.severity, code, f"{where}: {message}", fixes)


def _span_range(sp: A.Span) -> Range:
    """A 1-based span (end exclusive; no end: empty, an insertion at its start) in 0-based positions."""
    start = (max(sp.line - 1, 0), max(sp.col - 1, 0))
    return Range(start, (sp.end_line - 1, sp.end_col - 1) if sp.end_line else start)


# ----- what is under a position ------------------------------------------------------------------
class _Spanned(Protocol):
    @property
    def span(self) -> A.Span: ...


def _pick(nodes: tuple[_Spanned, ...], line: int, col: int) -> _Spanned | None:
    """Among nodes, the one whose lines hold a 1-based position: the last that starts at or before it."""
    on_line = [n for n in nodes if n.span.line <= line <= (n.span.end_line or n.span.line)]
    before = [n for n in on_line if (n.span.line, n.span.col) <= (line, col)]
    pool = before or on_line
    return pool[-1 if before else 0] if pool else None


def _source(rules: A.Rules, span: A.Span) -> str:
    """The text of a span, on one line."""
    lines = rules.source.split("\n")[span.line - 1:(span.end_line or span.line)]
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0][span.col - 1:(span.end_col - 1) if span.end_col else None]
    return " ".join([lines[0][span.col - 1:]] + [ln.strip() for ln in lines[1:-1]] + [lines[-1][:span.end_col - 1]])


def _wording(rules: A.Rules, node: object, part: object | None) -> str:
    """A statement (or one item of a block, with the block's head) in English, as markdown."""
    shown_node = node
    if isinstance(node, A.AreaBlock) and isinstance(part, A.AreaItem):
        shown_node = replace(node, items=(part,))
    elif isinstance(node, A.MajorityBlock) and isinstance(part, A.MajorityItem):
        shown_node = replace(node, items=(part,))
    elif isinstance(node, A.DeckBlock) and isinstance(part, A.Card):
        shown_node = replace(node, cards=(part,))
    # the words as values: each sentence's text without its rule ids, items (depth 1) under their statement
    words = describe_statement(rules, shown_node)  # type: ignore[arg-type]
    if isinstance(shown_node, A.DeckBlock) and part is not None:
        words = [Words(f"A card of the {node.name} deck:", ()), *words[1:]]  # type: ignore[attr-defined]
    if not words:
        return _fallback(rules, node)
    out: list[str] = []
    for w in words:
        if w.depth:
            if out and not out[-1].startswith("- "):
                out.append("")  # a markdown list needs a blank line above it
            out.append("- " + w.text)
        else:
            out.append(w.text)
    return "\n".join(out)


def _fallback(rules: A.Rules, node: object) -> str:
    """Words for the statements `describe` leaves out (declarations and removals)."""
    match node:
        case A.Declare(what="hex", names=names):
            return f"Hex kinds a board may use: {', '.join(names)}."
        case A.Declare(what="landmark", names=names):
            return f"Landmark kinds: named hexes of the board, which take no tile: {', '.join(names)}."
        case A.Declare(what="tag", names=names):
            return f"Tags a board hex may carry: {', '.join(names)}."
        case A.ClassDecl(name=name, kinds=kinds):
            return f"`{name}` stands for the tile kinds {', '.join(kinds)}."
        case A.Without():
            what = _source(rules, node.span).removeprefix("without").strip()
            return f"Removes `{what}` from the ruleset this one extends."
    return f"`{_source(rules, node.span)}`"  # type: ignore[attr-defined]


def _nodes(node: object) -> list[object]:
    """Every AST node inside a statement (expressions included), found without recursion."""
    out: list[object] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif is_dataclass(n) and not isinstance(n, type):
            out.append(n)
            stack.extend(getattr(n, f.name) for f in fields(n) if f.name != "span")
    return out


def hover(a: Analysis, line: int, ch: int) -> str | None:
    """Markdown for a position: a built-in function's signature and doc, a variable's meaning, a landmark
    of the board, or else the statement there in English with the rule ids its lines cite."""
    lines = a.text.split("\n")
    if line >= len(lines):
        return None
    m = token_at(lines[line], ch)
    word = m.group() if m else ""
    if m and word in SIGNATURES and lines[line][m.end():].lstrip().startswith("("):
        text = f"```\n{signature(word)}\n```\n{SIGNATURES[word].doc}"
        table = _table_at(a.own, line + 1, m.start() + 1) if word == "players" else None
        return text if table is None else f"{text}\n\nHere: {say_table(table.args)}."
    own = a.own
    if own is None:
        return None
    l1, c1 = line + 1, ch + 1
    if own.header.span.line <= l1 <= (own.header.span.end_line or own.header.span.line):
        h = own.header
        text = f"Ruleset `{h.name}`" + (f": {h.title}" if h.title else "")
        if h.extends:
            text += (f"\n\nExtends `{h.extends}`: its statements hold, except those this file replaces (same "
                     "head) or removes (`without`).")
        return text
    stmt = _pick(own.statements, l1, c1)
    if stmt is None:
        return None
    if word == "by" and isinstance(stmt, A.Trigger) and isinstance(stmt.event, A.TouchEvent) and stmt.event.by:
        return touch.BY_DOC
    if m and not word.startswith(("#", '"')):
        for n in _nodes(stmt):
            if isinstance(n, A.Name) and n.id == word and n.span.line == l1 and n.span.col == m.start() + 1:
                if word in VARIABLES:
                    typ, doc = VARIABLES[word]
                    return f"```\n{word}: {typ}\n```\n{doc}"
    if m and word.startswith('"') and a.board is not None:
        for n in _nodes(stmt):
            if isinstance(n, A.Landmark) and n.name is not None and n.span.line == l1 and n.span.col <= c1:
                if word.strip('"') == n.name:
                    return _landmark_hover(a.board, n.kind, n.name)
    parts = stmt.items if isinstance(stmt, A.AreaBlock | A.MajorityBlock) else (
        stmt.cards if isinstance(stmt, A.DeckBlock) else ())
    part = _pick(parts, l1, c1) if parts else None
    shown_node = part if part is not None else stmt
    sp = shown_node.span
    ids_by_line = comment_ids(own.source)
    ids: list[str] = []
    for n in range(sp.line, (sp.end_line or sp.line) + 1):
        ids.extend(i for i in ids_by_line.get(n, ()) if i not in ids)
    head = f"**{', '.join(ids)}**\n\n" if ids else ""
    text = head + _wording(own, stmt, part)
    was = a.replaced.get((sp.line, sp.col)) or a.replaced.get((stmt.span.line, stmt.span.col))
    if was is not None:
        what = "item" if part is not None and (sp.line, sp.col) in a.replaced else "statement"
        verb = "Removes" if isinstance(stmt, A.Without) else "Replaces"
        text += f"\n\n{verb} the base's {what} at {Path(was.file).name}:{was.line}."
    return text


def _table_at(own: A.Rules | None, line: int, col: int) -> A.Call | None:
    """The player-count table `players(...)` whose name starts at a place (1-based), if one does."""
    if own is None:
        return None
    stmt = _pick(own.statements, line, col)
    for n in _nodes(stmt) if stmt is not None else ():
        if isinstance(n, A.Call) and n.fn == "players" and n.args and (n.span.line, n.span.col) == (line, col):
            return n
    return None


def _landmark_hover(board: Board, kind: str, name: str) -> str:
    """A named landmark's hex on the board."""
    for h in board.hexes:
        if h.kind == kind and h.name == name:
            extra = f"; tags: {', '.join(h.tags)}" if h.tags else ""
            extra += f"; ability: {h.ability}" if h.ability else ""
            return f'{kind} "{name}": the hex at q={h.q}, r={h.r} of board `{board.name}`{extra}'
    return f'The board `{board.name}` has no {kind} "{name}".'


# ----- completion -------------------------------------------------------------------------------
def completions(a: Analysis, symbols: Symbols | None, line: int, ch: int) -> list[Completion]:
    """What may be typed at a position: inside a string, the board's landmark names (or, after `extends`,
    the rules files beside the document); elsewhere keywords, the ruleset's names and the functions."""
    lines = a.text.split("\n")
    text = lines[line][:ch] if line < len(lines) else ""
    quotes, comment = 0, False
    for c in text:
        if c == '"':
            quotes += 1
        elif c == "#" and quotes % 2 == 0:
            comment = True
            break
    if comment:
        return []
    sym = symbols or Symbols()
    if quotes % 2:  # inside a string
        before = text[:text.rfind('"')].rstrip()
        if before.endswith("extends"):
            return _rules_files(a.path)
        kind = re.search(r"([A-Za-z_][A-Za-z0-9_]*)$", before)
        wanted = kind.group(1) if kind and kind.group(1) in sym.landmark_kinds else None
        return [Completion(n, "landmark", k) for k, n in sym.landmarks if wanted in (None, k)]
    out: dict[str, Completion] = {}

    def add(c: Completion) -> None:
        old = out.get(c.label)
        if old is None:
            out[c.label] = c
        elif c.detail and c.detail not in old.detail:  # a name both hex kind and tile kind says both
            out[c.label] = replace(old, detail=f"{old.detail}, {c.detail}")

    for k in grammar_keywords():
        add(Completion(k, "keyword", "keyword"))
    for fn, sig in SIGNATURES.items():
        add(Completion(fn, "function", signature(fn), sig.doc))
    for v, (typ, doc) in VARIABLES.items():
        add(Completion(v, "variable", typ, doc))
    for n in sym.tile_kinds:
        add(Completion(n, "kind", "tile kind"))
    for n, kinds in sym.classes.items():
        add(Completion(n, "class", f"class of {', '.join(kinds)}"))
    for n in sym.hex_kinds:
        add(Completion(n, "kind", "hex kind"))
    for n in sym.landmark_kinds:
        add(Completion(n, "kind", "landmark kind"))
    for n in sym.tags:
        add(Completion(n, "tag", "tag"))
    for n in sym.decks:
        add(Completion(n, "deck", "deck"))
    for n in sym.abilities:
        add(Completion(n, "ability", "ability"))
    for k, n in sym.landmarks:
        add(Completion(n, "landmark", k, insert=json.dumps(n, ensure_ascii=False)))
    return list(out.values())


def _rules_files(path: Path | None) -> list[Completion]:
    """The rulesets an `extends` may name: the bundled ones by name, and the rules files beside the document
    and in the folder above."""
    out = [Completion(name, "file", "bundled ruleset") for name in bundled("rules")]
    if path is None:
        return out
    for folder, prefix in ((path.parent, ""), (path.parent.parent, "../")):
        try:
            found = sorted(folder.glob("*.rules"))
        except OSError:
            continue
        out.extend(Completion(prefix + p.name, "file", "rules file") for p in found if p != path)
    return out


# ----- definitions ------------------------------------------------------------------------------
def definition(a: Analysis, line: int, ch: int) -> Location | None:
    """Where the thing at a position is defined: the base file of `extends "x.rules"`, the board JSON's
    entry of a landmark `KIND "NAME"`, or the statement that declares a kind, class, tag or deck."""
    lines = a.text.split("\n")
    if line >= len(lines):
        return None
    m = token_at(lines[line], ch)
    if m is None or m.group().startswith("#"):
        return None
    word = m.group()
    if word.startswith('"'):
        before = lines[line][:m.start()].rstrip()
        name = word.strip('"')
        if before.endswith("extends") and re.match(r"\s*ruleset\b", lines[line]):
            folder = a.path.parent if a.path is not None else Path.cwd()
            target = a.base_path or (folder / name)
            return Location(target, Range((0, 0), (0, 0))) if target.is_file() else None
        kind = re.search(r"([A-Za-z_][A-Za-z0-9_]*)$", before)  # `KIND "NAME"`: a landmark by name
        kinds = a.symbols.landmark_kinds if a.symbols else None
        if kind and a.board_path is not None and (kinds is None or kind.group(1) in kinds):
            return _board_entry(a.board_path, name)
        return None
    rules = a.rules
    if rules is None:
        return None
    for s in rules.statements:
        declared: tuple[str, ...] = ()
        match s:
            case A.Declare(names=names):
                declared = names
            case A.TileSpec(kind=k):
                declared = (k,)
            case A.ClassDecl(name=n) | A.DeckBlock(name=n) | A.AbilityDecl(name=n):
                declared = (n,)
        if word in declared and (s.span.line, s.span.file) != (line + 1, a.file):
            return _statement_location(a, s.span, word)
    return None


def _statement_location(a: Analysis, span: A.Span, word: str) -> Location | None:
    """A declaring statement's place: in this document, or in a base ruleset on disk."""
    path = a.path if span.file == a.file else Path(span.file)
    if path is None:
        return None
    source = a.text if span.file == a.file else (a.rules.sources.get(span.file, "") if a.rules else "")
    text = source.split("\n")[span.line - 1] if source else ""
    col = span.col - 1
    m = re.search(rf"\b{re.escape(word)}\b", text[col:])
    start = col + m.start() if m else col
    return Location(path, Range((span.line - 1, start), (span.line - 1, start + (len(word) if m else 0))))


def _board_entry(board_path: Path, name: str) -> Location | None:
    """The line of a landmark's `"name"` in the board JSON (the raw text: the parsed JSON has no lines).
    Names are unique on a board (load_board refuses a repeated one), so the name alone finds it."""
    try:
        text = board_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for written in dict.fromkeys((json.dumps(name), json.dumps(name, ensure_ascii=False))):
        for m in re.finditer(r'"name"\s*:\s*' + re.escape(written), text):
            line = text.count("\n", 0, m.start())
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1)
            return Location(board_path, Range((line, col), (line, col + len(m.group()))))
    return None
