"""The terminal seat for `rebirth play`: a map whose legal hexes are numbered, the other players' moves and
scores, the hand and the missions; the tile-in-hand and ability questions asked at a prompt; `q` or the end
of input stops the game so that it is saved and can be resumed."""

from __future__ import annotations

import itertools
import os
import random
import shutil
import sys
from typing import Any, TextIO

from rebirth_dsl.errors import IllegalMove
from rebirth_dsl.play.agents import immediate_points
from rebirth_dsl.runtime.game import NEUTRAL, Game, static
from rebirth_dsl.runtime.placement import check_place

SHOWN = 10  # the best hexes listed under the map; `all` lists every one
SEAT_LETTERS = "abcdefghij"
# ANSI colours of the seats, in seat order: red, blue, green, magenta, then the rest
SEAT_COLOURS = ("31", "34", "32", "35", "36", "33", "91", "94", "92", "95")


class Pen:
    """Colours for the terminal: each seat its own, legal hexes bright, empty hexes dim. Off (plain text)
    when the output is not a terminal or NO_COLOR is set (https://no-color.org), or TERM is `dumb`."""

    def __init__(self, on: bool) -> None:
        self.on = on

    @staticmethod
    def for_stream(stream: TextIO) -> Pen:
        """Colour when the stream is a terminal and neither NO_COLOR nor TERM=dumb says otherwise."""
        isatty = getattr(stream, "isatty", None)
        tty = bool(isatty and isatty())
        return Pen(tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb")

    def paint(self, code: str, text: str) -> str:
        """The text in an SGR colour, or as it is when colour is off."""
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text

    def seat(self, q: int, text: str, bold: bool = False) -> str:
        """A seat's colour (no colour for nobody, q < 0)."""
        if q < 0:
            return self.paint("1", text) if bold else text
        return self.paint(("1;" if bold else "") + SEAT_COLOURS[q % len(SEAT_COLOURS)], text)

    def legal(self, text: str) -> str:
        """A hex the tile in hand may go on."""
        return self.paint("1;33", text)

    def dim(self, text: str) -> str:
        """An empty hex no tile in hand can take, or a neutral tile."""
        return self.paint("2", text)

    def water(self, text: str) -> str:
        """Sea and lakes."""
        return self.paint("2;36", text)


def short_names(names: list[str]) -> list[str]:
    """A distinct three-letter name per landmark: its first three letters, else its initial and two later
    letters of its name in order, so that `Harbourtown` is `Har` and a second `Har...` gets a name of its own."""
    out: list[str] = []
    for n, name in enumerate(names):
        chars = [c for c in name if c.isalnum()] or ["x"]
        first, rest = chars[0].upper(), [c.lower() for c in chars[1:]]
        pairs = itertools.chain(itertools.combinations(rest, 2), [(f"{n:02d}"[0], f"{n:02d}"[1])])
        out.append(next(p for p in (first + x + y for x, y in pairs) if p not in out))
    return out


def wrap(text: str, width: int, indent: str) -> list[str]:
    """Lines of at most `width` visible characters (colour codes do not count), each indented."""
    words = text.split(" ")
    lines: list[str] = []
    line, seen = indent, len(indent)
    for w in words:
        visible = len(_strip(w))
        if seen + visible + 1 > width and seen > len(indent):
            lines.append(line.rstrip())
            line, seen = indent, len(indent)
        line += w + " "
        seen += visible + 1
    if seen > len(indent):
        lines.append(line.rstrip())
    return lines


def _strip(text: str) -> str:
    """The text without its SGR colour codes."""
    out, skip = [], False
    for c in text:
        if c == "\x1b":
            skip = True
        elif skip and c == "m":
            skip = False
        elif not skip:
            out.append(c)
    return "".join(out)


def letters(kinds: list[str], upper: set[str]) -> dict[str, str]:
    """A distinct character per hex kind: its first free letter (upper case for landmarks), `~` for water."""
    out: dict[str, str] = {}
    for k in kinds:
        pool = ["~"] if k in ("sea", "water", "lake") else []
        pool += [c.upper() if k in upper else c.lower() for c in k if c.isalpha()] + list("xyzwvu123456789")
        out[k] = next(c for c in pool if c not in out.values())
    return out


class SaveGame(Exception):  # noqa: N818 - a request, not a failure
    """The person at the terminal stopped (`q` or the end of input): the game so far is to be saved."""


class HumanAgent:
    """Asks on the terminal; accepts a hex's number, `q,r`, `all`, `map`, or `q` to save and stop."""

    name = "human"
    needs_terminal = True  # simulate refuses it: nobody answers in a worker process

    def __init__(self, stdin: TextIO | None = None, out: TextIO | None = None) -> None:
        self._in, self._out = stdin, out
        self.table: Any = None  # set by play/table.py: the record, card texts and a redacted move log
        self._seen = 0  # moves already shown
        self._status_for = -1  # the move whose status was printed
        self._letter: dict[str, str] = {}
        self._short: list[str] = []
        self._numbers: dict[int, int] = {}
        self._by_number: dict[int, int] = {}
        self._numbers_of: object = None
        self._pen: Pen | None = None
        self._does: dict[int, tuple[int, str]] = {}  # per legal hex: points now and what the move does
        self._takes: dict[int, int] = {}  # per legal hex: how many landmarks the move takes

    @property
    def pen(self) -> Pen:
        """The colours of this terminal, decided at the first line drawn."""
        if self._pen is None:
            self._pen = Pen.for_stream(self._out or sys.stderr)
        return self._pen

    # ----- input and output (read at call time, so a test may swap sys.stdin) -----------------------
    def say(self, text: str = "") -> None:
        """One line to the terminal (stderr: stdout stays for the record)."""
        out = self._out or sys.stderr
        out.write(text + "\n")
        out.flush()

    def ask(self, prompt: str) -> str:
        """A line of input; `q` or the end of input stops the game (SaveGame)."""
        out = self._out or sys.stderr
        out.write(prompt)
        out.flush()
        line = (self._in or sys.stdin).readline()
        if not line:
            self.say("")
            raise SaveGame("end of input")
        text = line.strip()
        if text.lower() in ("q", "quit", "exit"):
            raise SaveGame("quit")
        return text

    # ----- what the seat sees ---------------------------------------------------------------------
    def status(self, game: Game, p: int) -> None:
        """Once a turn: the others' moves since this seat's last, the scores, the hand and the missions."""
        if self._status_for == game.move_index:
            return
        self._status_for = game.move_index
        rs = game.rs
        self.say("")
        log = self.table.log(p, start=self._seen) if self.table is not None else []
        for m in log:
            if m["seat"] == p:
                continue
            where = self._where(game, m["hex"]) if m["hex"] else "nowhere (passed)"
            self.say(f"  move {m['n']}: {self.pen.seat(m['seat'], m['player'])} placed {m['tile']} on {where}")
            for e in m["events"]:
                pts = f"{e['points']:+d} " if e["points"] else ""
                self.say(f"      {pts}{e['text']} ({', '.join(e['rules'])})")
        self._seen = len(self.table.moves) if self.table is not None else game.move_index
        scores = ", ".join(f"{self.pen.seat(q, n)}{' (you)' if q == p else ''} {game.track[q]}"
                           for q, n in enumerate(game.players))
        self.say(f"== move {game.move_index}: {game.players[p]} to play. Scores: {scores}")
        held = [game.players[o] for o in game.lm_owner]
        owned = [f"{game.t.landmark_name[lm]}: {held[lm]}" for lm in sorted(game.metric_of) if game.lm_owner[lm] >= 0]
        if owned:
            self.say("   held: " + ", ".join(owned))
        aside = game.set_aside[p]
        aside_text = (", ".join(rs.tile_name(*t) for t in aside) if rs.set_aside_visible
                      else f"{len(aside)} face down")
        self.say(f"   your hand: {', '.join(rs.tile_name(*t) for t in game.hand[p])}; supply {len(game.supply[p])} "
                 f"tiles; set aside: {aside_text or 'none'}")
        texts = self.table.card_texts() if self.table is not None else {}
        for c in game.held[p]:
            card = game.cards.get(c)
            self.say(f"   your mission: {c!r} ({card.points if card else '?'}): {texts.get(c, '')}")
        for c in game.public:
            card = game.cards[c]
            by = ", ".join(game.players[q] for q in game.public_by[c]) or "nobody yet"
            dbl = " [your doubling marker]" if c in game.doubled[p] else ""
            self.say(f"   public mission {c!r} {card.points}/{card.small or 0}: {texts.get(c, '')}; done by {by}{dbl}")

    def numbering(self, game: Game) -> dict[int, int]:
        """A number for every hex a tile may ever go on, in reading order (row by row, then along the row),
        the same all game: hex 17 is hex 17 on every turn, whichever tile is in hand."""
        if self._numbers_of is not game.t:
            t = game.t
            placeable = [h for h in range(len(t.coords)) if t.hex_kind[h] in static(game.rs).free]
            placeable.sort(key=lambda h: (t.coords[h][1], t.coords[h][0]))
            self._numbers = {h: i for i, h in enumerate(placeable, 1)}
            self._by_number = {i: h for h, i in self._numbers.items()}
            self._numbers_of = t
        return self._numbers

    def _where(self, game: Game, qr: list[int]) -> str:
        """A hex as the seat reads it: its number and coordinates, and the landmark's name on a landmark."""
        q, r = qr
        h = game.t.index.get((q, r))
        if h is None:
            return f"({q},{r})"
        n = self.numbering(game).get(h)
        return f"hex {n} ({q},{r})" if n else f"({q},{r})"

    def draw_map(self, game: Game, legal: list[int]) -> None:
        """The board as rows of three-character cells; a legal hex shows its number. Hex (q, r) is in row r,
        and q counts up by one per cell from the row's first q, shown at its left."""
        t = game.t
        numbers = self.numbering(game)
        legal_set = set(legal)
        rows: dict[int, list[int]] = {}
        for h, (_q, r) in enumerate(t.coords):
            rows.setdefault(r, []).append(h)
        xs = [2 * q + r for q, r in t.coords]
        x0 = min(xs)
        kinds = sorted(set(t.hex_kind))
        self._letter = letters(kinds, set(t.landmark_kind))
        self._short = short_names([t.landmark_name[lm] for lm in range(len(t.landmark_name))])
        for r in range(min(rows), max(rows) + 1):
            hs = sorted(rows.get(r, []), key=lambda h: t.coords[h][0])
            line, col = [], 0
            for h in hs:
                c = 2 * (xs[h] - x0)
                line.append(" " * (c - col) + self._cell(game, h, numbers, legal_set))
                col = c + 3
            first = f"q{t.coords[hs[0]][0]:>3}" if hs else ""
            self.say(f"r{r:>3} {first:>4} |{''.join(line).rstrip()}")
        for text in self.legend(game, kinds):
            self.say(text)

    def legend(self, game: Game, kinds: list[str]) -> list[str]:
        """What the cells mean and which landmark is which, wrapped to the terminal's width."""
        t, pen = game.t, self.pen
        width = max(40, shutil.get_terminal_size((100, 24)).columns - 1)
        seats = ", ".join(pen.seat(q, f"{SEAT_LETTERS[q]} {n}") for q, n in enumerate(game.players))
        empty = ", ".join(f"{self._letter[k]} {k}" for k in kinds if k not in t.landmark_kind)
        parts = [f"a number: a legal hex (the same number all game; type it); empty hexes: {empty}; ### neutral;",
                 f"a tile: its seat's letter ({seats}), its kind's letter and its value;"]
        by_kind: dict[str, list[str]] = {}
        for lm, name in enumerate(t.landmark_name):
            o = game.lm_owner[lm]
            q, r = t.coords[t.landmark_hex[lm]]
            held = f", {game.players[o]}'s" if o >= 0 else ""
            by_kind.setdefault(t.landmark_kind[lm], []).append(pen.seat(o, f"{self._short[lm]} {name}") + f" ({q},{r}{held})")
        for kind, marks in by_kind.items():
            parts.append(f"{kind}: " + ", ".join(marks) + ";")
        return wrap(" ".join(parts).rstrip(";") + ".", width, "   ")

    def _cell(self, game: Game, h: int, numbers: dict[int, int], legal: set[int]) -> str:
        """Three characters for a hex: its number when legal, a tile, a landmark's short name, or its kind."""
        t, pen = game.t, self.pen
        o = game.owner[h]
        if o == NEUTRAL:
            return pen.dim("###")
        if o >= 0:
            k = game.rs.tile_kinds[game.tkind[h]]
            value = str(game.tval[h]) if t.attribute_of.get(k) else " "
            return pen.seat(o, SEAT_LETTERS[o % len(SEAT_LETTERS)] + k[0].upper() + value[:1])
        if h in legal:
            n = numbers.get(h, 0)
            return pen.legal(f"{n:>3}")
        lm = t.landmark_of_hex.get(h)
        if lm is not None:
            return pen.seat(game.lm_owner[lm], self._short[lm], bold=True)
        kind = t.hex_kind[h]
        if kind in ("sea", "water", "lake"):
            return pen.water("~  ")
        return pen.dim(self._letter[kind] + "  ")

    # ----- the questions --------------------------------------------------------------------------
    def choose_tile(self, game: Game, p: int, rng: random.Random) -> tuple[int, int]:
        """Which of the hand's tiles to place (an ability gave a second one)."""
        hand = list(dict.fromkeys(game.hand[p]))
        if len(hand) == 1:
            return hand[0]
        self.status(game, p)
        names = [game.rs.tile_name(*t) for t in hand]
        self.say("   you hold " + "  ".join(f"{i}. {n}" for i, n in enumerate(names, 1)))
        while True:
            text = self.ask("which tile do you place (its number or name; q saves and stops)? ")
            if text.isdigit() and 1 <= int(text) <= len(hand):
                return hand[int(text) - 1]
            if text in names:
                return hand[names.index(text)]
            self.say(f"  type 1 to {len(hand)}, or one of: {', '.join(names)}")

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """Prompt until a legal hex is given: its number (the same all game) or its coordinates q,r."""
        t = game.t
        self.status(game, p)
        numbers = self.numbering(game)
        self._does = self.effects(game, p, tile)
        # best first: points now, then landmarks taken (their points come at the end), then the hex's number
        options = sorted(((self._does[h][0] if h in self._does else immediate_points(game, p, tile, h), h)
                          for h in hexes), key=lambda x: (-x[0], -self._takes.get(x[1], 0), numbers[x[1]]))
        self.draw_map(game, hexes)
        self.list_options(game, tile, options, SHOWN)
        while True:
            text = self.ask("your move (a hex's number or q,r; all, map; q saves and stops): ")
            low = text.lower()
            if low in ("all", "?", "list"):
                self.list_options(game, tile, options, len(options))
                continue
            if low == "map":
                self.draw_map(game, hexes)
                continue
            if text.isdigit():
                h = self._by_number.get(int(text))
                if h is None:
                    self.say(f"  no hex is numbered {text}: the numbers run from 1 to {len(numbers)}")
                    continue
            else:
                try:
                    q, r = (int(x) for x in text.replace("(", "").replace(")", "").split(","))
                except ValueError:
                    self.say("  type a hex's number (on the map or in the list), or q,r (e.g. 3,-1)")
                    continue
                found = t.index.get((q, r))
                if found is None:
                    self.say(f"  ({q},{r}) is not on the board")
                    continue
                h = found
            if h in hexes:
                return h
            self.say("  " + self.refusal(game, tile, h))

    def effects(self, game: Game, p: int, tile: tuple[int, int]) -> dict[int, tuple[int, str]]:
        """Per legal hex: the points the move scores now and what it does, in words (the table's previews:
        the engine's own placement on a copy, so the words are the scoring events' own)."""
        self._takes = {}
        if self.table is None:
            return {}
        rows = self.table.previews(p).get(game.rs.tile_name(*tile), [])
        out = {}
        for row in rows:
            out[row["index"]] = (row["points"], row["text"] if row["text"] != "nothing now" else "")
            self._takes[row["index"]] = len(row["takes"])
        return out

    def refusal(self, game: Game, tile: tuple[int, int], h: int) -> str:
        """Why the tile in hand cannot go on this hex: what is there, and the rule, as a record's replay says."""
        q, r = game.t.coords[h]
        label = f"hex {self._numbers[h]} ({q},{r})" if h in self._numbers else f"({q},{r})"
        try:
            check_place(game, tile[0], h, None)
        except IllegalMove as e:
            return f"{label}: {e.diagnostics[0].message}"
        return f"{label} is not legal for this tile now"

    def list_options(self, game: Game, tile: tuple[int, int], options: list[tuple[int, int]], limit: int) -> None:
        """The legal hexes, best first: number, coordinates, hex kind and points now, in aligned columns."""
        t, numbers = game.t, self.numbering(game)
        name = game.rs.tile_name(*tile)
        self.say(f"   {name} goes on {len(options)} hexes; the best:" if limit < len(options)
                 else f"   {name} goes on {len(options)} hexes:")
        width = max(40, shutil.get_terminal_size((100, 24)).columns - 1)
        for pts, h in options[:limit]:
            q, r = t.coords[h]
            head = f"  {self.pen.legal(f'{numbers[h]:>3}')}  {f'({q},{r})':<9} {t.hex_kind[h]:<11} {pts:+3d}"
            does = self._does.get(h, (0, ""))[1]
            pad = len(_strip(head)) + 2  # what the move does, in a column of its own
            lines = wrap(does, width, " " * pad) if does else []
            self.say(head + ("  " + lines[0][pad:] if lines else ""))
            for more in lines[1:]:
                self.say(more)
        if limit < len(options):
            self.say(f"   ... {len(options) - limit} more: type `all`")

    def answer(self, game: Game, p: int, lm: int, decl: Any, key: str, options: list[str] | None) -> Any:
        """A landmark's ability question (I-R1): which tile to take or keep, which mission to double, or
        decline. A face-down set-aside tile (I-U1) is chosen by its place, unseen."""
        if not options:
            return True
        name = game.t.landmark_name[lm]
        blind = key == "take" and not game.rs.set_aside_visible
        shown = ([f"face-down tile {i}" for i in range(1, len(game.set_aside[p]) + 1)] if blind else list(options))
        self.say(f"   {name}: {decl.name}: choose ({key})")
        self.say("   " + "  ".join(f"{i}. {o}" for i, o in enumerate(shown, 1)) + "  0. decline")
        while True:
            text = self.ask("your answer (a number; q saves and stops): ")
            if text == "0":
                return False
            if text.isdigit() and 1 <= int(text) <= len(shown):
                i = int(text) - 1
                if blind:
                    return {key: game.rs.tile_name(*game.set_aside[p][i])}
                return {key: options[i]}
            if text in options and not blind:
                return {key: text}
            self.say(f"  type 1 to {len(shown)}, or 0 to decline")
