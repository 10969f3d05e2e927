"""The position notation (docs/notation.md, grammar records/notation.lark): a position as a few lines of
text, read into a Position (None where something is not known), written back, taken from a game in
progress, and turned into a game that plays on (`start_game`).

A position says what a record's replay would have built: every placed tile with its owner, the landmarks'
holders, the areas won, each player's track and categories, hands, supplies, set-aside tiles and cards, the
decks, the face-up missions and who fulfilled them, the move number and the player to move. What follows
from the tiles (groups, area influence, majority counts, touched landmarks, free hexes) is not written: it
is computed again by the engine's own `placement.occupy`, so it cannot disagree with the tiles.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rebirth_dsl.errors import Diagnostic, RebirthError, did_you_mean

if TYPE_CHECKING:
    from lark import Lark

    from rebirth_dsl.compile.ruleset import Ruleset
    from rebirth_dsl.runtime.game import Game

_HERE = Path(__file__).resolve().parent  # the grammar beside this module (see lang.parser._HERE)
Span = tuple[int, int, int]  # line, column, end column (1-based, end exclusive)
MAX_TILES = 1000  # a count in a list (tiles, cards, passes): far past any tile mix or deck
MAX_NUMBER = 10**6  # scores, move numbers, coordinates: far past any game, and within any engine's integers
Hex = tuple[int, int]


@dataclass
class Seat:
    """One player's part of a position; a list that is None is not known (`?`), its count then in *_count."""

    name: str
    score: int = 0
    categories: dict[str, int] | None = None  # None: the score is not split (all of it starting points)
    tiles: list[tuple[str, Hex]] = field(default_factory=list)
    owns: list[str] = field(default_factory=list)
    won: list[str] = field(default_factory=list)
    hand: list[str] | None = field(default_factory=list)
    hand_count: int | None = None
    supply: list[str] | None = field(default_factory=list)  # the next tile drawn first
    supply_count: int | None = None
    aside: list[str] | None = field(default_factory=list)
    aside_count: int | None = None
    cards: list[str] | None = field(default_factory=list)
    cards_count: int | None = None
    passed: int = 0
    doubled: dict[str, int] = field(default_factory=dict)


@dataclass
class Position:
    """A position as the notation gives it (not yet checked against a ruleset: see `start_game`)."""

    rules: str
    board: str
    seats: list[Seat]
    move: int = 0
    turn: str | None = None
    decks: dict[str, list[str] | None] = field(default_factory=dict)  # top card first; None: order not known
    deck_counts: dict[str, int] = field(default_factory=dict)
    public: list[tuple[str, list[str]]] | None = None  # face-up cards and who fulfilled each; None: not given
    scenario: bool = False
    over: bool = False
    file: str = field(default="<position>", compare=False)
    text: str = field(default="", repr=False, compare=False)
    spans: dict[str, Span] = field(default_factory=dict, repr=False, compare=False)

    @property
    def players(self) -> list[str]:
        """The players in seat order."""
        return [s.name for s in self.seats]

    def seat(self, name: str) -> Seat:
        """A player's seat by name."""
        return next(s for s in self.seats if s.name == name)

    def unknowns(self) -> list[str]:
        """What is not known, as the notation keys of the spans (`Ann.supply`, `deck.mission`)."""
        out = [f"{s.name}.{what}" for s in self.seats for what in ("hand", "supply", "aside", "cards")
               if getattr(s, what) is None]
        return out + [f"deck.{d}" for d, cards in self.decks.items() if cards is None]

    def error(self, key: str, message: str, hint: str | None = None, rule: str | None = None) -> RebirthError:
        """A problem at the characters that gave `key` (the position's start when they are not known)."""
        line, col, end = self.spans.get(key, (1, 1, 2))
        lines = self.text.split("\n")
        src = lines[line - 1] if 0 < line <= len(lines) else None
        return RebirthError([Diagnostic(message, file=self.file, line=line, col=col, end_line=line, end_col=end,
                                        source_line=src, hint=hint, rule=rule, code="position")])


# ----- reading ------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The notation's LALR parser, built once per process and its tables kept in the data-only cache by the
    grammar's content, as the rules language's are (lang.syntax.lark_parser): building them took 1.9 s on a
    loaded machine (Lark's terminal collision checks), loading them 0.25 s (tools/bench_notation.py)."""
    from rebirth_dsl.lang.syntax import cached_lark

    return cached_lark(_HERE.joinpath("notation.lark").read_text(encoding="utf-8"), "lark-notation")


_READABLE = {"WORD": "a name", "STRING": "a quoted name", "INT": "a number", "HEX": "a hex (q,r)",
             "COUNT": "a count (x3)", "LBRACE": "`{`", "RBRACE": "`}`", "COMMA": "`,`", "COLON": "`:`",
             "QMARK": "`?`", "LSQB": "`[`", "RSQB": "`]`", "$END": "the end"}
# what a writer of the notation most often gets wrong, by the token met and what was expected
_TEACH = [
    ({"HEX"}, "a hex is written (q,r) after its tile: `tiles food (3,6) (4,6), settlement:3 (-1,12)`"),
    ({"LBRACE"}, "a player's part is written `NAME { ... }`; a list of names is separated by commas "
                 "(`players Ann, Bob, Cat`)"),
    ({"COLON"}, "categories follow the total: `score 12: farms 4, settlements 8`"),
]


def _syntax(e: Exception, text: str, file: str) -> RebirthError:
    """Lark's error as the project's: file:line:col, the line with a caret under the token, what was expected
    in words, and how the notation writes the thing that was probably meant."""
    from lark import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    lines = text.split("\n")
    line, col = getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0
    width = 1
    expected: set[str] = set(getattr(e, "expected", None) or getattr(e, "allowed", None) or ())
    at_end = isinstance(e, UnexpectedToken) and e.token.type == "$END"
    if isinstance(e, UnexpectedEOF) or line <= 0 or at_end:
        while len(lines) > 1 and not lines[-1].split("#", 1)[0].strip():  # the end of the last line written
            lines.pop()
        line = len(lines)
        col = len(lines[line - 1]) + 1
        what = "the position ends too soon"
    elif isinstance(e, UnexpectedToken):
        tok = str(e.token)
        what = f"unexpected {tok!r}"
        width = max(1, len(tok)) if "\n" not in tok else 1
    elif isinstance(e, UnexpectedCharacters):
        ch = e.char
        what = f"unexpected character {ch!r}"
        if ch == "(":
            what += " (a hex is written (q,r) with two whole numbers)"
    else:
        what = "syntax error"
    words = sorted({_READABLE.get(t, f"`{t.lower()}`" if t.isalpha() else t) for t in expected})
    msg = what + (f"; expected {', '.join(words[:10])}" + (", ..." if len(words) > 10 else "") if words else "")
    hint = next((h for want, h in _TEACH if want & expected), None)
    keywords = [t.lower() for t in expected if t.isalpha() and t not in _READABLE]
    if isinstance(e, UnexpectedToken) and e.token.type in ("WORD", "STRING") and keywords:
        dym = did_you_mean(str(e.token).strip('"'), keywords)
        if dym:
            hint = f"did you mean `{dym}`?"
    if "RBRACE" in expected and (isinstance(e, UnexpectedEOF) or at_end):
        hint = "a player's part ends with `}`"
    if line == 1 and col <= 1 and not text.lstrip().startswith("position"):
        hint = ("a position starts with `position RULES on BOARD`: a bundled ruleset's name or a .rules file, "
                "then a bundled board's name or a .json file")
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    return RebirthError([Diagnostic(msg, file=file, line=line, col=max(col, 1), source_line=src, hint=hint,
                                    end_line=line, end_col=max(col, 1) + width, code="syntax")])


def read_position(text: str, file: str = "<position>") -> Position:
    """Parse the notation into a Position; a syntax error, or a clause given twice, at its character."""
    from lark import UnexpectedInput

    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax(e, text, file) from None
    return _Build(text, file).build(tree)


class _Build:
    """Turns the parse tree into a Position, keeping where each part was written."""

    def __init__(self, text: str, file: str) -> None:
        self.spans: dict[str, Span] = {}
        self.pos = Position("", "", [], file=file, text=text, spans=self.spans)

    def span(self, key: str, node: Any, force: bool = False) -> None:
        """Remember where `key` was written: a token, or a subtree's first token (`force`: the more precise
        place of something already placed, such as the `?` of `supply ?`)."""
        line, col = getattr(node, "line", None), getattr(node, "column", None)
        if line is None and hasattr(node, "meta") and not node.meta.empty:
            line, col = node.meta.line, node.meta.column
            end = node.meta.end_column if node.meta.end_line == line else col + 1
        else:
            end = getattr(node, "end_column", None) or (col or 1) + 1
        if line is not None and (force or key not in self.spans):
            self.spans[key] = (line, col or 1, end)

    def number(self, tok: Any, key: str, lo: int, hi: int) -> int:
        """A whole number within its range, else an error at it (a number past any game is a mistake)."""
        text = str(tok)  # a number of thousands of digits is refused before Python is asked to read it
        n = int(text) if len(text) <= 15 else hi + 1
        if not lo <= n <= hi:
            self.span(key + "#n", tok)
            raise self.pos.error(key + "#n", f"{text if len(text) < 13 else text[:12] + '...'}: out of range "
                                 f"({lo} to {hi})")
        return n

    def count(self, tok: Any, key: str) -> int | None:
        """A count written `xN` (none: None), at most MAX_TILES."""
        if tok is None:
            return None
        digits = str(tok)[1:]
        n = int(digits) if len(digits) <= 15 else MAX_TILES + 1
        if n > MAX_TILES:
            self.span(key + "#n", tok)
            raise self.pos.error(key + "#n", f"x{digits if len(digits) < 13 else digits[:12] + '...'}: more than {MAX_TILES}; "
                                 "no tile mix or deck has that many")
        return n

    def twice(self, key: str, node: Any, what: str) -> None:
        """Refuse a clause given twice (the second is where the error is)."""
        if key in self.spans:
            self.span(key + "#2", node)
            raise self.pos.error(key + "#2", f"{what} is given twice", hint=f"the first is at line {self.spans[key][0]}")
        self.span(key, node)

    def build(self, tree: Any) -> Position:
        """Every clause in order."""
        pos = self.pos
        rules, board, *clauses = tree.children
        pos.rules, pos.board = _name(rules), _name(board)
        self.span("rules", rules)
        self.span("board", board)
        for c in clauses:
            getattr(self, "c_" + str(c.data))(c)
        if not pos.seats:
            raise pos.error("rules", "the position names no players", hint="add `players Ann, Bob` (in seat order)")
        for s in pos.seats:  # a hand or supply not written is not known, but in a scenario, which has none
            for what in ("hand", "supply"):
                if f"{s.name}.{what}" not in self.spans and not pos.scenario:
                    setattr(s, what, None)
                    self.spans[f"{s.name}.{what}"] = self.spans.get(f"{s.name}.block", self.spans["players"])
        if pos.turn is None:
            pos.turn = pos.seats[pos.move % len(pos.seats)].name if not pos.scenario else pos.seats[0].name
        return pos

    def c_players(self, t: Any) -> None:
        self.twice("players", t, "`players`")
        for n in t.children:
            name = _name(n)
            if any(s.name == name for s in self.pos.seats):
                self.span(f"player.{name}#2", n)
                raise self.pos.error(f"player.{name}#2", f"player {name!r} is named twice")
            self.span(f"player.{name}", n)
            self.pos.seats.append(Seat(name))

    def c_move(self, t: Any) -> None:
        self.twice("move", t, "`move`")
        self.pos.move = self.number(t.children[0], "move", 0, MAX_NUMBER)
        if self.pos.move < 0:
            raise self.pos.error("move", "the move number counts the moves made: 0 or more")

    def c_turn(self, t: Any) -> None:
        self.twice("turn", t.children[0], "`turn`")
        self.pos.turn = _name(t.children[0])

    def c_scenario(self, t: Any) -> None:
        self.twice("scenario", t, "`scenario`")
        self.pos.scenario = True

    def c_over(self, t: Any) -> None:
        self.twice("over", t, "`over`")
        self.pos.over = True

    def c_deck(self, t: Any) -> None:
        name = _name(t.children[0])
        self.twice(f"deck.{name}", t.children[0], f"deck {name!r}")
        cards, count = self.cards(t.children[1], f"deck.{name}")
        self.pos.decks[name] = cards
        if count is not None:
            self.pos.deck_counts[name] = count

    def c_public(self, t: Any) -> None:
        self.twice("public", t, "`public`")
        out: list[tuple[str, list[str]]] = []
        for i, pc in enumerate(t.children):
            card, *by = pc.children
            self.span(f"public.{i}", card)
            names = []
            for j, n in enumerate(x for x in by if x is not None):
                self.span(f"public.{i}.{j}", n)
                names.append(_name(n))
            out.append((_name(card), names))
        self.pos.public = out

    def c_seat(self, t: Any) -> None:
        who, *items = t.children
        name = _name(who)
        self.twice(f"{name}.block", who, f"the part of {name!r}")
        seat = next((s for s in self.pos.seats if s.name == name), None)
        if seat is None:
            known = [s.name for s in self.pos.seats]
            dym = did_you_mean(name, known)
            raise self.pos.error(f"{name}.block", f"{name!r} is not a player" + (f"; did you mean {dym!r}?" if dym else ""),
                                 hint="`players A, B, ...` comes first and names every player in seat order"
                                 if not known else f"the players are {', '.join(known)}")
        for it in items:
            kind = str(it.data)
            key = f"{name}.{kind}"
            self.twice(key, it, f"{name}'s `{kind}`")
            getattr(self, "s_" + kind)(seat, it, key)

    def s_score(self, seat: Seat, t: Any, key: str) -> None:
        total, *cats = t.children
        seat.score = self.number(total, key + ".total", -MAX_NUMBER, MAX_NUMBER)
        self.span(key + ".total", total)
        if cats and cats[0] is not None:
            seat.categories = {}
            for c in cats:
                cname = _name(c.children[0])
                pts = self.number(c.children[1], f"{key}.{cname}.points", -MAX_NUMBER, MAX_NUMBER)
                self.span(f"{key}.{cname}", c.children[0])
                if cname in seat.categories:
                    raise self.pos.error(f"{key}.{cname}", f"category {cname!r} is given twice")
                seat.categories[cname] = pts
            added = sum(seat.categories.values())
            if added != seat.score:
                parts = " + ".join(f"{c} {v}" for c, v in seat.categories.items())
                raise self.pos.error(key + ".total", f"{seat.name}'s categories add up to {added} ({parts}), "
                                     f"not {seat.score}", hint="the total comes first and is the sum of the categories "
                                     "(`start N` counts points a position starts with)")

    def s_tiles(self, seat: Seat, t: Any, key: str) -> None:
        for pl in (c for c in t.children if c is not None):
            tile, *hexes = pl.children
            for h in hexes:
                parts = str(h).strip("() \t").split(",")
                q, r = (int(x) if len(x.strip()) <= 15 else MAX_NUMBER + 1 for x in parts)
                if max(abs(q), abs(r)) > MAX_NUMBER:
                    self.span(f"{key}.far", h)
                    raise self.pos.error(f"{key}.far", "there is no hex so far out on any board")
                self.span(f"{key}.{len(seat.tiles)}", h)
                self.span(f"{key}.{len(seat.tiles)}.tile", tile)
                seat.tiles.append((_name(tile), (q, r)))

    def s_hand(self, seat: Seat, t: Any, key: str) -> None:
        seat.hand, seat.hand_count = self.tiles(t.children[0], key)

    def s_supply(self, seat: Seat, t: Any, key: str) -> None:
        seat.supply, seat.supply_count = self.tiles(t.children[0], key)

    def s_aside(self, seat: Seat, t: Any, key: str) -> None:
        seat.aside, seat.aside_count = self.tiles(t.children[0], key)

    def s_cards(self, seat: Seat, t: Any, key: str) -> None:
        seat.cards, seat.cards_count = self.cards(t.children[0], key)

    def s_owns(self, seat: Seat, t: Any, key: str) -> None:
        for n in (c for c in t.children if c is not None):
            self.span(f"{key}.{len(seat.owns)}", n)
            seat.owns.append(_name(n))

    def s_won(self, seat: Seat, t: Any, key: str) -> None:
        for n in (c for c in t.children if c is not None):
            self.span(f"{key}.{len(seat.won)}", n)
            seat.won.append(_name(n))

    def s_passed(self, seat: Seat, t: Any, key: str) -> None:
        seat.passed = self.number(t.children[0], key, 0, MAX_TILES)

    def s_doubled(self, seat: Seat, t: Any, key: str) -> None:
        kids = t.children
        for i in range(0, len(kids), 2):
            self.span(f"{key}.{_name(kids[i])}", kids[i])
            seat.doubled[_name(kids[i])] = self.number(kids[i + 1], f"{key}.{_name(kids[i])}", 1, MAX_TILES)

    def unknown(self, t: Any, key: str) -> tuple[None, int | None] | None:
        """A list written `?` or `? xN`: not known, with its count if given; None for a list written out."""
        first = t.children[0] if t.children else None
        if first is None or getattr(first, "data", None) != "unknown":
            return None
        self.span(key, first, force=True)
        return None, self.count(first.children[0], key)

    def tiles(self, t: Any, key: str) -> tuple[list[str] | None, int | None]:
        """A list of tiles (runs expanded), or unknown with its count if given."""
        unknown = self.unknown(t, key)
        if unknown is not None:
            return unknown
        out: list[str] = []
        for run in (c for c in t.children if c is not None):
            tile, n = run.children
            self.span(f"{key}.{len(out)}", tile)
            out.extend([_name(tile)] * (self.count(n, f"{key}.{len(out)}") or 1))
            if len(out) > MAX_TILES:
                raise self.pos.error(f"{key}.{len(out) - 1}", f"more than {MAX_TILES} tiles in one list: no tile mix "
                                     "has that many")
        return out, None

    def cards(self, t: Any, key: str) -> tuple[list[str] | None, int | None]:
        """A list of cards, or unknown with its count if given."""
        unknown = self.unknown(t, key)
        if unknown is not None:
            return unknown
        out: list[str] = []
        for c in (c for c in t.children if c is not None):
            self.span(f"{key}.{len(out)}", c)
            out.append(_name(c))
        return out, None


def _name(node: Any) -> str:
    """A `name` subtree's text: a word as written, a quoted name without its quotes."""
    tok = node.children[0] if hasattr(node, "children") else node
    s = str(tok)
    return s[1:-1] if s.startswith('"') else s




# ----- writing ------------------------------------------------------------------------------------------
def _quote(name: str) -> str:
    """A name as a word when it reads as one, else quoted."""
    import re

    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(:[0-9]+)?", name) and name not in _KEYWORDS and not re.fullmatch(
            r"x[0-9]+", name):
        return name
    return '"' + name + '"'


_KEYWORDS = frozenset({"position", "on", "players", "move", "turn", "scenario", "over", "deck", "public", "score",
                       "tiles", "hand", "supply", "aside", "cards", "owns", "won", "passed", "doubled", "none"})


def _runs(tiles: list[str]) -> str:
    """Tiles in order, a run of the same tile written once with its count (`food x3`)."""
    out: list[str] = []
    i = 0
    while i < len(tiles):
        j = i
        while j < len(tiles) and tiles[j] == tiles[i]:
            j += 1
        out.append(_quote(tiles[i]) + (f" x{j - i}" if j - i > 1 else ""))
        i = j
    return ", ".join(out)


def _known(items: list[str] | None, count: int | None, tiles: bool = True) -> str:
    """A list as the notation writes it: `?` (with its count) when not known, `none` when empty."""
    if items is None:
        return "?" + (f" x{count}" if count is not None else "")
    if not items:
        return "none"
    return _runs(items) if tiles else ", ".join(_quote(c) for c in items)


def write_position(pos: Position) -> str:
    """The notation of a position: a header line, a line per player, a line of decks and face-up cards;
    reading it back gives the same Position."""
    head = [f"position {_quote(pos.rules)} on {_quote(pos.board)}",
            "players " + ", ".join(_quote(s.name) for s in pos.seats), f"move {pos.move}"]
    if pos.turn is not None:
        head.append(f"turn {_quote(pos.turn)}")
    if pos.scenario:
        head.append("scenario")
    if pos.over:
        head.append("over")
    lines = ["  ".join(head)]
    for s in pos.seats:
        # a line for the score and what the player holds on the board, one for the tiles placed, one for what
        # is in hand, supply and set aside (and cards): a player's part reads down, not across
        first = [f"score {s.score}" + (": " + ", ".join(f"{_quote(c)} {v}" for c, v in s.categories.items())
                                        if s.categories else "")]
        if s.owns:
            first.append("owns " + ", ".join(_quote(x) for x in s.owns))
        if s.won:
            first.append("won " + ", ".join(_quote(x) for x in s.won))
        if s.passed:
            first.append(f"passed {s.passed}")
        if s.doubled:
            first.append("doubled " + ", ".join(f"{_quote(c)} {f}" for c, f in s.doubled.items()))
        rows = ["  ".join(first)]
        if s.tiles:
            by_tile: dict[str, list[Hex]] = {}
            for tile, h in s.tiles:
                by_tile.setdefault(tile, []).append(h)
            rows.append("tiles " + ", ".join(_quote(t) + " " + " ".join(f"({q},{r})" for q, r in hs)
                                             for t, hs in by_tile.items()))
        # a scenario has no hands nor supplies (docs/formats.md): written only when it says something
        held = [f"{what} " + _known(getattr(s, what), getattr(s, f"{what}_count")) for what in ("hand", "supply")
                if not (pos.scenario and getattr(s, what) == [])]
        if s.aside is None or s.aside:
            held.append("aside " + _known(s.aside, s.aside_count))
        if s.cards is None or s.cards:
            held.append("cards " + _known(s.cards, s.cards_count, tiles=False))
        if held:
            rows.append("  ".join(held))
        pad = " " * (len(_quote(s.name)) + 3)
        lines.append(f"{_quote(s.name)} {{ " + f"\n{pad}".join(rows) + " }")
    tail = []
    if pos.public is not None:
        tail.append("public " + ", ".join(_quote(c) + (" [" + ", ".join(_quote(n) for n in by) + "]" if by else "")
                                          for c, by in pos.public))
    for d, cards in pos.decks.items():
        tail.append(f"deck {_quote(d)} " + _known(cards, pos.deck_counts.get(d), tiles=False))
    if tail:
        lines.append("  ".join(tail))
    return "\n".join(lines) + "\n"


# ----- from a game --------------------------------------------------------------------------------------
def position_of(game: Game, rules: str, board: str, viewer: int | None = None) -> Position:
    """The position of a game in progress, every part known; with `viewer` (a seat), only what that seat
    may see (`view_of`)."""
    rs, t = game.rs, game.t
    seats: list[Seat] = []
    for q, name in enumerate(game.players):
        s = Seat(name, score=game.track[q])
        cats = {c: v for c, v in game.scores[q].items() if v}
        if game.start_scores[q]:
            cats = {"start": game.start_scores[q], **cats}
        s.categories = cats or None
        placed = sorted((game.tkind[h], game.tval[h], h) for k in game.tiles_of[q] for h in k)
        s.tiles = [(rs.tile_name(k, v), t.coords[h]) for k, v, h in placed]
        s.owns = [t.landmark_name[lm] for lm in range(len(t.landmark_hex)) if game.lm_owner[lm] == q]
        s.won = [t.area_names[a] for a in sorted(game.area_first) if game.area_first[a] == q]
        s.hand = [rs.tile_name(*x) for x in game.hand[q]]
        s.supply = [rs.tile_name(*x) for x in reversed(game.supply[q])]
        s.aside = [rs.tile_name(*x) for x in game.set_aside[q]]
        s.cards = list(game.held[q])
        s.passed = game.passed[q]
        s.doubled = dict(game.doubled[q])
        seats.append(s)
    decks: dict[str, list[str] | None] = {d: list(c) for d, c in game.decks.items()}
    public = [(c, [game.players[x] for x in game.public_by.get(c, [])]) for c in game.public] if rs.public else None
    over = game.scenario and game.declared_over
    pos = Position(rules, board, seats, game.move_index, game.players[game.turn] if game.players else None,
                   decks, {}, public, game.scenario, over)
    return pos if viewer is None else view_of(pos, game.players[viewer], rs.set_aside_visible)


def view_of(pos: Position, viewer: str, set_aside_visible: bool = True) -> Position:
    """What one player may see of a position: the others' hands and cards, every supply's order (a supply is
    drawn face down, S-T1) and every deck's order become unknown, with their counts, which are public; the
    others' set-aside tiles too where the rules set them aside hidden (`set aside N hidden`)."""
    import copy

    if viewer not in pos.players:
        dym = did_you_mean(viewer, pos.players)
        raise RebirthError.single(f"{viewer!r} is not a player" + (f"; did you mean {dym!r}?" if dym else "")
                                  + f" (the players are {', '.join(pos.players)})")
    out = copy.deepcopy(pos)

    def hide(s: Seat, what: str) -> None:
        items = getattr(s, what)
        if items:  # none at all is public: a count of 0 hides nothing
            setattr(s, what, None)
            setattr(s, f"{what}_count", len(items))

    for s in out.seats:
        if s.name != viewer:
            hide(s, "hand")
            hide(s, "cards")
            if not set_aside_visible:
                hide(s, "aside")
        hide(s, "supply")
    for d, cards in list(out.decks.items()):
        if cards is not None:
            out.decks[d] = None
            out.deck_counts[d] = len(cards)
    return out


# ----- to a game ----------------------------------------------------------------------------------------
def start_game(position: Position, rs: Ruleset, board: Any = None, rng: random.Random | None = None,
               seed: int | None = None) -> Game:
    """The game a position describes, ready to play on: checked against the ruleset and board (each problem
    at its character). Unknown parts (`?`) are dealt from what is left of the tile mix and the decks
    (runtime/complete.py) when a generator or seed is given; without one they are refused, saying which."""
    check_position(position, rs)
    if not _missing(position, rs):
        return _build(position, rs)
    if seed is None and rng is None:
        missing = _missing(position, rs)
        what = ", ".join(m.replace(".", "'s ", 1) if not m.startswith("deck.") else f"deck {m[5:]!r}"
                         for m in missing)
        raise position.error(missing[0], f"this position does not say {what}: a game cannot be played on from it",
                             hint="write them out (`supply food, energy x2, settlement:3`), or take a whole position "
                             "from a record with `rebirth position GAME --at N`")
    return complete_position(position, rs, seed if seed is not None else (rng or random.Random()).randrange(2**31))[0]


def _missing(position: Position, rs: Ruleset) -> list[str]:
    """The parts not known, as keys of the spans; a deck the position does not name is not known either."""
    return position.unknowns() + [f"deck.{d}" for d in rs.decks if d not in position.decks and not position.scenario]


def complete_position(position: Position, rs: Ruleset, seed: int) -> tuple[Game, list[str]]:
    """A checked position with unknown parts made a game: the known parts as given, the rest dealt by the
    completion (runtime/complete.py: each player's unplaced tiles less what is known, the unseen cards), seeded;
    and what was dealt, in words."""
    import copy

    from rebirth_dsl.runtime.complete import Known, complete

    check_position(position, rs)
    known_part = copy.deepcopy(position)
    for s in known_part.seats:  # built without the unknown parts; the completion deals them
        for what in ("hand", "supply", "aside", "cards"):
            if getattr(s, what) is None:
                setattr(s, what, [])
    g = _build(known_part, rs)
    g.scenario = False
    players = position.players

    def tiles(items: list[str] | None) -> list[tuple[int, int]] | None:
        return None if items is None else [rs.parse_tile(x) for x in items]

    known = Known(players.index(position.turn or players[0]),
                  [tiles(s.hand) for s in position.seats],
                  [tiles(s.supply) for s in position.seats],
                  [tiles(s.aside) for s in position.seats],
                  [list(s.cards or []) for s in position.seats],
                  [s.cards_count or 0 if s.cards is None else 0 for s in position.seats],
                  {d: list(c) for d, c in position.decks.items() if c is not None} or None)
    done = complete(g, known, seed)
    done.game.move_index = position.move
    return done.game, done.dealt


def check_position(pos: Position, rs: Ruleset) -> None:
    """Every name and number of the position against the ruleset and board, at the characters that gave it:
    players, tiles and hexes (on the board, free, a hex kind the tile may go on), landmarks, areas, cards,
    categories, decks, and each player's tiles within the tile mix (S-C2, S-U3)."""
    from collections import Counter

    from rebirth_dsl.runtime.setup import colour_tiles

    t = rs.t
    n = len(pos.seats)
    lo, hi = rs.players
    if not pos.scenario and not lo <= n <= hi:
        raise pos.error("players", f"{n} players: this ruleset is for {lo} to {hi} players",
                        rule=rs.cites.players[0] if rs.cites.players else None)
    if pos.turn not in pos.players:
        dym = did_you_mean(pos.turn or "", pos.players)
        raise pos.error("turn", f"{pos.turn!r} is not a player" + (f"; did you mean {dym!r}?" if dym else ""))
    tiles_ok = {rs.tile_name(k, v) for k, v in rs.mix}
    lm_names = {name: i for i, name in enumerate(t.landmark_name)}
    area_names = set(t.area_names)
    all_cards = Counter(c.name for cards in rs.decks.values() for c in cards)
    cats = set(rs.categories) | {"start"}
    blank_taken = _neutral_hexes(rs, n)
    seen: dict[Hex, str] = {}
    mix = Counter(rs.tile_name(k, v) for k, v in colour_tiles(rs, n))

    def tile_known(name: str, key: str) -> None:
        if name not in tiles_ok:
            dym = did_you_mean(name, tiles_ok)
            raise pos.error(key, f"no tile {name!r} in this ruleset" + (f"; did you mean {dym!r}?" if dym else ""),
                            hint=f"the tiles are {', '.join(sorted(tiles_ok))}")

    for s in pos.seats:
        key = f"{s.name}.score"
        for c in s.categories or {}:
            if c not in cats:
                dym = did_you_mean(c, cats)
                raise pos.error(f"{key}.{c}", f"no scoring category {c!r}" + (f"; did you mean {dym!r}?" if dym else ""),
                                hint=f"the categories are {', '.join(rs.categories)}, and `start`")
        used: Counter[str] = Counter()
        for i, (tile, (q, r)) in enumerate(s.tiles):
            tkey = f"{s.name}.tiles.{i}"
            tile_known(tile, tkey + ".tile")
            h = t.index.get((q, r))
            if h is None:
                raise pos.error(tkey, f"there is no hex ({q},{r}) on the board",
                                rule=rs.cites.one_tile[0] if rs.cites.one_tile else None)
            if (q, r) in seen or h in blank_taken:
                who = seen.get((q, r), "a neutral tile")
                raise pos.error(tkey, f"hex ({q},{r}) already holds {who}'s tile" if who != "a neutral tile"
                                else f"hex ({q},{r}) holds a neutral tile, set out before the first move",
                                rule=rs.cites.one_tile[0] if rs.cites.one_tile else None)
            seen[(q, r)] = s.name
            kind = rs.parse_tile(tile)[0]
            hk = t.hex_kind[h]
            if hk not in rs.primary.get(kind, ()) and hk not in rs.fallback.get(kind, ()):
                allowed = sorted(rs.primary.get(kind, ())) + [f"{k} (fallback)" for k in sorted(rs.fallback.get(kind, ()))]
                raise pos.error(tkey, f"{tile.split(':')[0]} cannot go on {hk} hex ({q},{r}); it goes on "
                                f"{', '.join(allowed) or 'no'} hexes",
                                rule=(rs.cites.place.get(kind) or (None,))[0])
            used[tile] += 1
        for what in ("hand", "supply", "aside"):
            items = getattr(s, what)
            for i, tile in enumerate(items or []):
                tile_known(tile, f"{s.name}.{what}.{i}")
                used[tile] += 1
        if not pos.scenario:
            over = used - mix
            if over:
                extra = ", ".join(f"{k} {used[k]} (the mix has {mix[k]})" for k in sorted(over))
                raise pos.error(f"{s.name}.block", f"{s.name} has more tiles than one colour of the tile mix for {n} "
                                f"players: {extra}", rule=rs.cites.mix[0] if rs.cites.mix else None,
                                hint="placed tiles, hand, supply and set-aside tiles together are one colour's tiles")
        for i, lm in enumerate(s.owns):
            if lm not in lm_names:
                dym = did_you_mean(lm, list(lm_names))
                raise pos.error(f"{s.name}.owns.{i}", f"no landmark {lm!r} on the board" + (f"; did you mean {dym!r}?"
                                                                                             if dym else ""))
            if not any(lm_names[lm] in rule.landmarks for rule in rs.majorities):
                raise pos.error(f"{s.name}.owns.{i}", f"{lm!r} is not held by majority in this ruleset")
            other = next((o.name for o in pos.seats if o is not s and lm in o.owns), None)
            if other is not None:
                raise pos.error(f"{s.name}.owns.{i}", f"{lm!r} is held by {other} too")
        for i, a in enumerate(s.won):
            if a not in area_names:
                dym = did_you_mean(a, area_names)
                raise pos.error(f"{s.name}.won.{i}", f"no area {a!r} on the board" + (f"; did you mean {dym!r}?"
                                                                                    if dym else ""))
            other = next((o.name for o in pos.seats if o is not s and a in o.won), None)
            if other is not None:
                raise pos.error(f"{s.name}.won.{i}", f"area {a!r} is won by {other} too: one player ranks first")
    covered = {t.index[h] for s in pos.seats for _, h in s.tiles if h in t.index} | blank_taken
    for s in pos.seats:
        for i, a in enumerate(s.won):
            hexes = t.area_hexes[t.area_names.index(a)]
            done = sum(h in covered for h in hexes)
            if done < len(hexes):  # an area is scored, and won, when its last hex is filled (S-A3)
                raise pos.error(f"{s.name}.won.{i}", f"area {a!r} is not complete: {done} of its {len(hexes)} hexes "
                                "hold tiles", rule=_area_rule(rs))
        for i, c in enumerate(s.cards or []):
            if c not in all_cards:
                dym = did_you_mean(c, list(all_cards))
                raise pos.error(f"{s.name}.cards.{i}", f"no card {c!r} in the ruleset's decks"
                                + (f"; did you mean {dym!r}?" if dym else ""))
    for d, cards in pos.decks.items():
        if d not in rs.decks:
            dym = did_you_mean(d, list(rs.decks))
            raise pos.error(f"deck.{d}", f"no deck {d!r} in this ruleset" + (f"; did you mean {dym!r}?" if dym else ""))
        known = {c.name for c in rs.decks[d]}
        for i, c in enumerate(cards or []):
            if c not in known:
                dym = did_you_mean(c, known)
                raise pos.error(f"deck.{d}.{i}", f"no card {c!r} in deck {d!r}" + (f"; did you mean {dym!r}?" if dym
                                                                                    else ""))
    for i, (c, by) in enumerate(pos.public or []):
        if c not in all_cards:
            raise pos.error(f"public.{i}", f"no card {c!r} in the ruleset's decks")
        for j, who in enumerate(by):
            if who not in pos.players:
                raise pos.error(f"public.{i}.{j}", f"{who!r} is not a player")


def _area_rule(rs: Ruleset) -> str | None:
    """The rule id an area's completion cites (its first payout's), if the rules give one."""
    for rule in rs.areas.values():
        if rule.ids:
            return rule.ids[0]
    return None


def _neutral_hexes(rs: Ruleset, n: int) -> set[int]:
    """The hexes the neutral tiles of n players cover at setup (S-U2), as the engine's blank position has them."""
    neutral = rs.neutral.get(n)
    if neutral is None:
        return set()
    return set([h for h in range(rs.t.n) if neutral.tag in rs.t.hex_tags[h]][: neutral.count])


def _build(pos: Position, rs: Ruleset) -> Game:
    """The Game of a checked, fully known position: a fresh game of these players with nothing dealt, every
    tile put down by the engine's own placement (groups, areas, majority counts, free hexes follow), then the
    parts the tiles do not decide (holders, areas won, tracks, hands, supplies, cards, decks) set as given."""
    from rebirth_dsl.runtime import placement
    from rebirth_dsl.runtime.game import Game
    from rebirth_dsl.runtime.setup import Setup

    n = len(pos.seats)
    t = rs.t
    g = Game(rs, pos.players, Setup([[] for _ in range(n)], [[] for _ in range(n)], {}), scenario=pos.scenario)
    g.events = []
    g.public = []
    g.public_by = {}
    for q, s in enumerate(pos.seats):
        for tile, hx in s.tiles:
            kind, value = rs.parse_tile(tile)
            h = t.index[hx]
            placement.occupy(g, h, q, kind, value)
            g.touched[q].update(g.lm_adj[h])  # every landmark next to a tile of the player's is touched (I-R1)
    lm_of = {name: i for i, name in enumerate(t.landmark_name)}
    area_of = {name: i for i, name in enumerate(t.area_names)}
    for a in range(len(t.area_hexes)):
        if g.area_free[a] == 0:
            g.area_done[a] = True  # a full area has been scored (S-A3): it never pays again
    for q, s in enumerate(pos.seats):
        for held in s.owns:
            g.lm_owner[lm_of[held]] = q
        for area in s.won:
            g.area_first[area_of[area]] = q
        start = (s.categories or {}).get("start", 0) if s.categories is not None else s.score
        g.track[q], g.start_scores[q] = s.score, start
        g.scores[q] = dict.fromkeys(rs.categories, 0)
        for c, v in (s.categories or {}).items():
            if c != "start":
                g.scores[q][c] = v
        g.hand[q] = [rs.parse_tile(x) for x in s.hand or []]
        g.supply[q] = [rs.parse_tile(x) for x in reversed(s.supply or [])]
        g.set_aside[q] = [rs.parse_tile(x) for x in s.aside or []]
        g.held[q] = list(s.cards or [])
        g.passed[q] = s.passed
        g.doubled[q] = dict(s.doubled)
    g.area_first = dict(sorted(g.area_first.items()))
    for d in rs.decks:
        g.decks[d] = list(pos.decks.get(d) or []) if d in pos.decks else []
    if pos.public is not None:
        g.public = [c for c, _ in pos.public]
        g.public_by = {c: [pos.players.index(x) for x in by] for c, by in pos.public}
    g.move_index = pos.move
    g.turn = pos.players.index(pos.turn or pos.players[0])
    g.declared_over = pos.scenario and pos.over
    return g


# ----- records ------------------------------------------------------------------------------------------
def record_of(pos: Position, text: str | None = None) -> dict[str, Any]:
    """A game record that starts from the position (its notation in `setup.position`), with no moves yet."""
    out: dict[str, Any] = {"rules": pos.rules, "board": pos.board, "players": pos.players,
                           "setup": {"position": text if text is not None else write_position(pos)}, "moves": []}
    if pos.scenario:  # the record says so too: it decides how its moves are checked (docs/formats.md)
        out["scenario"] = True
        out["over"] = pos.over
    return out
