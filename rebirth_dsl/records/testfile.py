"""Tests files (`NAME.tests`): a variant author's own reference positions, read into game records.

A tests file is data, never code: a small line format (docs/formats.md, "Tests files") whose positions
become the game records of docs/formats.md (scenarios by default) and the `expect` keys of the reference
positions in tests/positions/. This module only reads the text; present/testrun.py plays and judges them.
Every statement keeps its place in the file, so a problem and a failed expectation both say file:line:col.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rebirth_dsl.errors import Diagnostic, RebirthError, Span
from rebirth_dsl.lang.ids import comment_ids

# one token: a "string", a hex (q,r), an integer, a word (a name, a tile such as settlement:3, a rule id
# such as S-P1), or one of the punctuation marks , and :
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+)
  | (?P<comment>\#[^\n]*)
  | (?P<newline>\n)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<hex>\(\s*-?\d+\s*,\s*-?\d+\s*\))
  | (?P<int>-?\d+(?![\w-]))
  | (?P<word>[^\W\d][\w-]*(?::\d+)?)
  | (?P<punct>[,:])
""", re.VERBOSE)

# `players N`: the names `rebirth play --players N` gives (play.loop.DEFAULT_NAMES, a layer above this one)
PLAY_NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fin"]

# words a player may not be called: they start an expectation of another kind
RESERVED = frozenset({"winners", "cards", "nobody", "pass", "refused", "choose"})


@dataclass(frozen=True)
class Tok:
    """A token and where it is."""

    kind: str  # str, hex, int, word, punct
    text: str
    line: int
    col: int

    @property
    def value(self) -> Any:
        """The token's value: a string's text, a hex's (q, r), an int, or the word itself."""
        if self.kind == "str":
            return re.sub(r"\\(.)", r"\1", self.text[1:-1])
        if self.kind == "hex":
            q, r = self.text.strip("()").split(",")
            return (int(q), int(r))
        if self.kind == "int":
            return int(self.text)
        return self.text


@dataclass
class ScoreExpect:
    """`expect Ann: 7, farms 2`: a player's total and points per category (each optional)."""

    player: str
    total: int | None
    categories: dict[str, int]
    span: Span


@dataclass
class OwnerExpect:
    """`expect castle "NAME": Ann` (or `nobody`): who holds a landmark held by majority."""

    kind: str
    name: str
    owner: str | None
    span: Span


@dataclass
class WinnersExpect:
    """`expect winners: Ann, Bob`: the winners of a finished game (a shared win lists them all)."""

    names: list[str]
    span: Span


@dataclass
class CardsExpect:
    """`expect cards Ann: "CARD"` (or `none`): the private mission cards a player holds."""

    player: str
    cards: list[str]
    span: Span


@dataclass
class PublicExpect:
    """`expect public "Wind farmer": Ann, Bob` (or `none`): who fulfilled a face-up public mission, in order."""

    card: str
    names: list[str]
    span: Span


Expect = ScoreExpect | OwnerExpect | WinnersExpect | CardsExpect | PublicExpect


@dataclass
class Move:
    """One `move` line, as a record's move, with where it is and the refusal it expects, if any."""

    data: dict[str, Any]
    span: Span
    refused: str | None = None


@dataclass
class Position:
    """One `position`: the record it describes and what it expects."""

    name: str
    span: Span
    covers: tuple[str, ...]  # the rule ids its line's comment cites
    rules: tuple[str, Span] | None = None
    board: tuple[str, Span] | None = None
    record: tuple[str, Span] | None = None  # a game record file the position starts from
    players: list[str] = field(default_factory=list)
    players_span: Span | None = None
    scenario: bool = True
    over: bool = False
    setup: dict[str, Any] = field(default_factory=dict)
    setup_spans: dict[str, Span] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    setup_refused: tuple[str, Span] | None = None
    expects: list[Expect] = field(default_factory=list)


@dataclass
class TestsFile:
    """A parsed tests file: its default rules and board, and its positions in order."""

    file: str
    rules: tuple[str, Span] | None
    board: tuple[str, Span] | None
    positions: list[Position]
    source: str
    # `positions from "scotland"`: another tests file (a bundled ruleset's by name, or a path) whose
    # positions are played against this file's rules too: what a variant changes of its base's positions
    includes: list[tuple[str, Span]] = field(default_factory=list)


class _Line:
    """The tokens of one statement (a line, continued on the next while it ends with a comma)."""

    def __init__(self, toks: list[Tok], file: str, source_lines: list[str]) -> None:
        self.toks, self.i, self.file, self.lines = toks, 0, file, source_lines

    def span(self, t: Tok | None = None) -> Span:
        """The token's span; without one, the statement's (to its last token on its first line)."""
        if t is not None:
            return Span(self.file, t.line, t.col, t.line, t.col + len(t.text))
        first = self.toks[0]
        last = [x for x in self.toks if x.line == first.line][-1]
        return Span(self.file, first.line, first.col, first.line, last.col + len(last.text))

    def error(self, message: str, t: Tok | None = None) -> RebirthError:
        if t is None:
            t = self.toks[self.i] if self.i < len(self.toks) else None
        if t is None:  # at the end of the line: point just after its last token
            last = self.toks[-1]
            line, col, width = last.line, last.col + len(last.text), 1
        else:
            line, col, width = t.line, t.col, len(t.text)
        return RebirthError([Diagnostic(message, file=self.file, line=line, col=col, end_line=line,
                                        end_col=col + width, source_line=self.lines[line - 1],
                                        code="tests-syntax")])

    def peek(self, offset: int = 0) -> Tok | None:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else None

    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    def next(self, what: str) -> Tok:
        t = self.peek()
        if t is None:
            raise self.error(f"expected {what} here; the line ends")
        self.i += 1
        return t

    def word(self, what: str, *allowed: str) -> str:
        t = self.next(what)
        if t.kind != "word" or (allowed and t.text not in allowed):
            raise self.error(f"expected {what}, not {t.text!r}", t)
        return t.text

    def accept(self, *texts: str) -> bool:
        t = self.peek()
        if t is not None and t.kind in ("word", "punct") and t.text in texts:
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        t = self.next(f"'{text}'")
        if t.text != text:
            raise self.error(f"expected '{text}', not {t.text!r}", t)

    def string(self, what: str) -> str:
        t = self.next(what)
        if t.kind != "str":
            raise self.error(f"expected {what} in double quotes, not {t.text!r}", t)
        return str(t.value)

    def name(self, what: str) -> str:
        """A player's or landmark's name: a word, or a "string" for one with spaces."""
        t = self.next(what)
        if t.kind not in ("word", "str"):
            raise self.error(f"expected {what}, not {t.text!r}", t)
        return str(t.value)

    def integer(self, what: str) -> int:
        t = self.next(what)
        if t.kind != "int":
            raise self.error(f"expected {what} (a whole number), not {t.text!r}", t)
        return int(t.value)

    def listed(self, item: Any) -> list[Any]:
        """One item or more, separated by commas."""
        out = [item()]
        while self.accept(","):
            out.append(item())
        return out

    def done(self) -> None:
        if not self.at_end():
            raise self.error(f"unexpected {self.toks[self.i].text!r}: the statement ends before it")


def tokenize(text: str, file: str) -> list[list[Tok]]:
    """The statements of a tests file as lists of tokens (comments dropped); a character no token starts
    with is an error at its line and column."""
    lines = text.split("\n")
    out: list[list[Tok]] = []
    cur: list[Tok] = []
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        col = pos - line_start + 1
        if m is None:
            ch = text[pos]
            raise RebirthError([Diagnostic(f"unexpected character {ch!r}" + (
                ": a string runs to the end of the line without its closing quote" if ch == '"' else ""),
                file=file, line=line, col=col, end_line=line, end_col=col + 1, source_line=lines[line - 1],
                code="tests-syntax")])
        kind = m.lastgroup or ""
        if kind == "newline":
            if cur and not (cur[-1].kind == "punct" and cur[-1].text == ","):  # a trailing comma continues
                out.append(cur)
                cur = []
            line, line_start = line + 1, m.end()
        elif kind not in ("space", "comment"):
            cur.append(Tok(kind, m.group(), line, col))
        pos = m.end()
    if cur:
        out.append(cur)
    return out


def parse_tests(text: str, file: str) -> TestsFile:
    """Read a tests file; every problem in it is raised at once, each with its file:line:col."""
    lines = text.split("\n")
    cites = comment_ids(text)
    rules: tuple[str, Span] | None = None
    board: tuple[str, Span] | None = None
    positions: list[Position] = []
    includes: list[tuple[str, Span]] = []
    problems: list[Diagnostic] = []
    names: dict[str, Span] = {}
    for toks in tokenize(text, file):
        st = _Line(toks, file, lines)
        try:
            head = st.word("a statement (rules, board, position, players, move, expect, ...)")
            pos = positions[-1] if positions else None
            if head == "position":
                name = st.string("the position's name")
                st.done()
                if name in names:
                    raise st.error(f"a second position named {name!r} (the first is at line {names[name].line})",
                                   toks[1])
                names[name] = st.span()
                positions.append(Position(name, st.span(), cites.get(toks[0].line, ())))
            elif head in ("rules", "board") and pos is None:
                value = (st.name(f"the {head} file or bundled name"), st.span(toks[1]))
                st.done()
                if head == "rules":
                    rules = value
                else:
                    board = value
            elif head == "positions" and pos is None:
                st.expect("from")
                includes.append((st.name("a tests file or a bundled ruleset's name"), st.span(toks[2])))
                st.done()
            elif pos is None:
                raise st.error(f"{head!r} belongs to a position: start one with `position \"NAME\"` first",
                               toks[0])
            else:
                _statement(st, head, pos)
        except RebirthError as e:
            problems.extend(e.diagnostics)
    if not positions and not includes and not problems:
        problems.append(Diagnostic("no position in this file: add one with `position \"NAME\"`", file=file,
                                   line=1, col=1, code="tests-syntax"))
    if problems:
        raise RebirthError(problems)
    return TestsFile(file, rules, board, positions, text, includes)


def _tile(st: _Line) -> str:
    t = st.next("a tile (food, energy, settlement:3, ...)")
    if t.kind != "word":
        raise st.error(f"expected a tile (food, energy, settlement:3, ...), not {t.text!r}", t)
    return t.text


def _statement(st: _Line, head: str, pos: Position) -> None:
    """One statement inside a position."""
    first = st.toks[0]
    if head in ("rules", "board", "record"):
        value = (st.name(f"the {head} file" + ("" if head == "record" else " or bundled name")), st.span(st.toks[1]))
        setattr(pos, head, value)
    elif head == "players":
        pos.players_span = st.span()
        count = st.peek()
        if count is not None and count.kind == "int":  # `players 3`: the names `rebirth play` gives
            st.i += 1
            if not 1 <= int(count.value) <= len(PLAY_NAMES):
                raise st.error(f"give 1 to {len(PLAY_NAMES)} players, or their names", count)
            pos.players = PLAY_NAMES[: int(count.value)]
            st.done()
            return
        start = st.i
        pos.players = st.listed(lambda: st.name("a player's name"))
        for t, n in zip(st.toks[start::2], pos.players, strict=False):
            if n in RESERVED:
                raise st.error(f"a player may not be called {n!r}: it is a word of tests files", t)
        if len(set(pos.players)) != len(pos.players):
            raise st.error("players must have different names", first)
    elif head == "seed":
        pos.setup["seed"] = st.integer("the seed")
        pos.setup_spans["seed"] = st.span()
    elif head == "over":
        pos.over = True
    elif head == "in":
        st.word("'turn'", "turn")
        st.word("'order'", "order")
        pos.scenario = False
    elif head == "scores":
        scores = pos.setup.setdefault("scores", {})

        def one() -> None:
            who = st.name("a player's name")
            scores[who] = st.integer(f"{who}'s starting points")
        st.listed(one)
        pos.setup_spans["scores"] = st.span()
    elif head in ("holds", "supply", "set"):
        if head == "set":
            st.word("'aside'", "aside")
        key = {"holds": "missions_held", "supply": "supply", "set": "set_aside"}[head]
        who = st.name("a player's name")
        st.expect(":")
        item = (lambda: st.string("a card's name")) if head == "holds" else (lambda: _tile(st))
        items = [] if head == "holds" and st.accept("none") else st.listed(item)
        pos.setup.setdefault(key, {})[who] = items
        pos.setup_spans[key] = st.span()
    elif head == "missions":
        pos.setup["missions"] = [] if st.accept("none") else st.listed(lambda: st.string("a card's name"))
        pos.setup_spans["missions"] = st.span()
    elif head == "deck":
        deck = st.name("the deck's name")
        st.expect(":")
        pos.setup.setdefault("decks", {})[deck] = [] if st.accept("none") else st.listed(
            lambda: st.string("a card's name"))
        pos.setup_spans["decks"] = st.span()
    elif head == "move":
        _move(st, pos)
    elif head == "setup":
        st.word("'refused'", "refused")
        pos.setup_refused = (st.name("the rule id the setup breaks"), st.span())
    elif head == "expect":
        pos.expects.append(_expectation(st))
    else:
        raise st.error(f"unknown statement {head!r}; a position has: rules, board, record, players, seed, "
                       "in turn order, over, scores, holds, set aside, supply, missions, deck, move, "
                       "setup refused, expect", first)
    st.done()


def _move(st: _Line, pos: Position) -> None:
    """`move PLAYER TILE (q,r) [choose NAME: ANSWER]... [refused RULE]`, or `move PLAYER TILE pass`."""
    if pos.moves and pos.moves[-1].refused is not None:
        raise st.error("a move after a refused one: nothing after a refused move is applied", st.toks[0])
    if pos.setup_refused is not None:
        raise st.error("a move after `setup refused`: the game never starts", st.toks[0])
    player = st.name("the player who moves")
    tile = _tile(st)
    t = st.next("the hex, as (q,r), or `pass`")
    if t.kind == "hex":
        hx: list[int] | None = list(t.value)
    elif t.kind == "word" and t.text == "pass":
        hx = None
    else:
        raise st.error(f"expected the hex, as (q,r), or `pass`, not {t.text!r}", t)
    data: dict[str, Any] = {"player": player, "tile": tile, "hex": hx}
    choices: dict[str, Any] = {}
    while st.accept("choose"):
        what = st.name("the name of the landmark whose ability asks")
        st.expect(":")
        answer = st.word("an answer (decline, take TILE, keep TILE, double \"CARD\")")
        if answer == "decline":
            choices[what] = False
        else:
            v = st.next(f"what to {answer}")
            if v.kind not in ("word", "str"):
                raise st.error(f"expected what to {answer}, not {v.text!r}", v)
            choices[what] = {answer: v.value}
    if choices:
        data["choices"] = choices
    refused = st.name("the rule id that refuses the move") if st.accept("refused") else None
    pos.moves.append(Move(data, st.span(), refused))


def _expectation(st: _Line) -> Expect:
    """`expect PLAYER: TOTAL, CATEGORY N...`, `expect KIND "NAME": OWNER`, `expect winners: NAMES`,
    `expect cards PLAYER: "CARD"...`, `expect public "CARD": NAMES`."""
    span = st.span()
    t = st.peek()
    if t is not None and t.kind == "word" and t.text == "winners":
        st.i += 1
        st.expect(":")
        return WinnersExpect(st.listed(lambda: st.name("a winner's name")), span)
    if t is not None and t.kind == "word" and t.text == "cards":
        st.i += 1
        who = st.name("a player's name")
        st.expect(":")
        cards = [] if st.accept("none") else st.listed(lambda: st.string("a card's name"))
        return CardsExpect(who, cards, span)
    nxt = st.peek(1)
    if t is not None and t.kind == "word" and t.text == "public" and nxt is not None and nxt.kind == "str":
        st.i += 2
        st.expect(":")
        names = [] if st.accept("none") else st.listed(lambda: st.name("a player's name"))
        return PublicExpect(str(nxt.value), names, span)
    if t is not None and t.kind == "word" and nxt is not None and nxt.kind == "str":  # castle "NAME"
        st.i += 2
        st.expect(":")
        owner = st.name("who holds it, or nobody")
        return OwnerExpect(t.text, str(nxt.value), None if owner == "nobody" else owner, span)
    who = st.name("a player's name (or winners, cards, or a landmark: KIND \"NAME\")")
    st.expect(":")
    total: int | None = None
    cats: dict[str, int] = {}

    def item() -> None:
        nonlocal total
        v = st.peek()
        if v is not None and v.kind == "int":
            st.i += 1
            if total is not None or cats:
                raise st.error("the total comes first, once", v)
            total = int(v.value)
            return
        c = st.word("a category and its points (farms 2), or the total first")
        if c in cats:
            raise st.error(f"{c} is given twice", st.toks[st.i - 1])
        cats[c] = st.integer(f"the points in {c}")
    st.listed(item)
    return ScoreExpect(who, total, cats, span)
