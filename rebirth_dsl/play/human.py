"""The terminal seat for `rebirth play`: a map whose legal hexes are numbered, the other players' moves and
scores, the hand and the missions; the tile-in-hand and ability questions asked at a prompt; `q` or the end
of input stops the game so that it is saved and can be resumed."""

from __future__ import annotations

import random
import sys
from typing import Any, TextIO

from rebirth_dsl.play.agents import immediate_points
from rebirth_dsl.runtime.game import NEUTRAL, Game

SHOWN = 10  # the best hexes listed under the map; `all` lists every one


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
            where = f"({m['hex'][0]},{m['hex'][1]})" if m["hex"] else "nowhere (passed)"
            self.say(f"  move {m['n']}: {m['player']} placed {m['tile']} on {where}")
            for e in m["events"]:
                pts = f"{e['points']:+d} " if e["points"] else ""
                self.say(f"      {pts}{e['text']} ({', '.join(e['rules'])})")
        self._seen = len(self.table.moves) if self.table is not None else game.move_index
        scores = ", ".join(f"{n}{' (you)' if q == p else ''} {game.track[q]}" for q, n in enumerate(game.players))
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

    def draw_map(self, game: Game, numbers: dict[int, int]) -> None:
        """The board as rows of two-character cells; a legal hex shows its number. Hex (q, r) is in row r,
        and q counts up by one per cell from the row's first q, shown at its left."""
        t = game.t
        rows: dict[int, list[int]] = {}
        for h, (_q, r) in enumerate(t.coords):
            rows.setdefault(r, []).append(h)
        xs = [2 * q + r for q, r in t.coords]
        x0 = min(xs)
        width = 2 * (max(xs) - x0) + 2
        kinds = sorted(set(t.hex_kind))
        lm_kinds = set(t.landmark_kind)
        self._letter = letters(kinds, lm_kinds)
        seat_ch = "abcdefghij"
        for r in range(min(rows), max(rows) + 1):
            hs = sorted(rows.get(r, []), key=lambda h: t.coords[h][0])
            line = [" "] * width
            for h in hs:
                c = 2 * (xs[h] - x0)
                line[c:c + 2] = self._cell(game, h, numbers, lm_kinds, seat_ch)
            first = f"q{t.coords[hs[0]][0]:>3}" if hs else ""
            self.say(f"r{r:>3} {first:>4} |{''.join(line).rstrip()}")
        legend = ", ".join(f"{self._letter[k]}={k}" for k in kinds)
        self.say(f"   cells: number = a legal hex (type it), {legend}, ## neutral; a tile is its seat's letter "
                 f"({', '.join(f'{seat_ch[q]}={n}' for q, n in enumerate(game.players))}) and its kind or value")

    def _cell(self, game: Game, h: int, numbers: dict[int, int], lm_kinds: set[str], seat_ch: str) -> str:
        t = game.t
        o = game.owner[h]
        if o == NEUTRAL:
            return "##"
        if o >= 0:
            k = game.rs.tile_kinds[game.tkind[h]]
            second = str(game.tval[h]) if t.attribute_of.get(k) else k[0].upper()
            return seat_ch[o % len(seat_ch)] + second[:1]
        if h in numbers:
            n = numbers[h]
            return f"{n:>2}" if n < 100 else "++"
        kind = t.hex_kind[h]
        if kind in lm_kinds:
            lm = t.landmark_of_hex.get(h)
            lo = game.lm_owner[lm] if lm is not None else -1
            return self._letter[kind] + (seat_ch[lo] if lo >= 0 else " ")
        return self._letter[kind] + " "

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
        """Prompt until a legal hex is given."""
        t = game.t
        self.status(game, p)
        options = sorted(((immediate_points(game, p, tile, h), h) for h in hexes), key=lambda x: (-x[0], t.coords[x[1]]))
        numbers = {h: i for i, (_, h) in enumerate(options, 1)}
        self.draw_map(game, numbers)
        self.list_options(game, tile, options, SHOWN)
        while True:
            text = self.ask("your move (number or q,r; all, map; q saves and stops): ")
            low = text.lower()
            if low in ("all", "?", "list"):
                self.list_options(game, tile, options, len(options))
                continue
            if low == "map":
                self.draw_map(game, numbers)
                continue
            if text.isdigit() and 1 <= int(text) <= len(options):
                return options[int(text) - 1][1]
            try:
                q, r = (int(x) for x in text.replace("(", "").replace(")", "").split(","))
            except ValueError:
                self.say("  type a number from the list (or the map), or q,r (e.g. 3,-1)")
                continue
            h = t.index.get((q, r))
            if h in hexes:
                return h
            self.say(f"  ({q},{r}) is not legal for this tile")

    def list_options(self, game: Game, tile: tuple[int, int], options: list[tuple[int, int]], limit: int) -> None:
        """The legal hexes, best first: number, coordinates, hex kind and points now."""
        t = game.t
        self.say(f"   {game.rs.tile_name(*tile)} goes on {len(options)} hexes; the best:" if limit < len(options)
                 else f"   {game.rs.tile_name(*tile)} goes on {len(options)} hexes:")
        for i, (pts, h) in enumerate(options[:limit], 1):
            q, r = t.coords[h]
            self.say(f"  {i:>3}. ({q},{r}) {t.hex_kind[h]:<11} +{pts}")
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
