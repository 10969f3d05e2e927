"""The public Python API: load a game, list and play moves, undo, score, explain, and read or write records.

Everything here is a thin layer over the engine (`runtime.game.Game`, which refuses an illegal move before
changing anything), the records (`records.record`) and the report (`present.report`). Moves are values
that print readably: a tile name, axial hex coordinates and the answers to the questions a placement asks
(Ireland's round towers, I-R1). `docs/api.md` shows it in use; its examples run as tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any, cast

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.files import write_text_atomic
from rebirth_dsl.play.loop import DEFAULT_NAMES, record_for
from rebirth_dsl.present.report import evaluate, event_dict, explain
from rebirth_dsl.records.record import dumps, load_record, load_ruleset, make_setup, replay, resolve
from rebirth_dsl.records.resources import find, rules_and_board
from rebirth_dsl.runtime import abilities
from rebirth_dsl.runtime.game import Game as Engine
from rebirth_dsl.runtime.setup import Setup, deal

__all__ = ["Game", "IllegalMove", "Move", "RebirthError", "Rules", "from_record", "load", "new_game"]

Answer = str | bool  # an option's name; True: use an ability that asks nothing; False: decline it


@dataclass(frozen=True)
class Move:
    """One move: the tile placed, its hex `(q, r)` (None: the tile is passed under S-P5), and the answers to
    the abilities the placement triggers, as `(landmark, answer)` pairs in board order."""

    tile: str
    hex: tuple[int, int] | None
    choices: tuple[tuple[str, Answer], ...] = ()

    def __str__(self) -> str:
        where = "passed" if self.hex is None else f"at ({self.hex[0]},{self.hex[1]})"
        asks = "; ".join(name if a is True else f"{name}: declined" if a is False else f"{name}: {a}"
                         for name, a in self.choices)
        return f"{self.tile} {where}" + (f" [{asks}]" if asks else "")


@dataclass(frozen=True)
class Rules:
    """A compiled ruleset on its board, and the files they came from."""

    ruleset: Ruleset
    rules_path: Path
    board_path: Path

    @property
    def name(self) -> str:
        """The ruleset's name (`ireland`)."""
        return self.ruleset.name

    @property
    def title(self) -> str:
        """The ruleset's title (`Rebirth: Ireland`)."""
        return self.ruleset.title

    @property
    def players(self) -> tuple[int, int]:
        """The fewest and most players the rules allow."""
        return self.ruleset.players

    @property
    def tiles(self) -> list[str]:
        """The distinct tiles of one colour, by name (`food`, `settlement:3`)."""
        rs = self.ruleset
        return [rs.tile_name(*x) for x in sorted(set(rs.mix))]

    def new_game(self, players: int | Sequence[str] = 2, seed: int = 0) -> Game:
        """A new game dealt from a seed, exactly as `rebirth play --seed` deals it."""
        if isinstance(players, int) and not 1 <= players <= len(DEFAULT_NAMES):
            raise RebirthError.single(f"{players} players: give a number up to {len(DEFAULT_NAMES)}, or the names")
        names = list(DEFAULT_NAMES[:players]) if isinstance(players, int) else list(players)
        if len(set(names)) != len(names):
            raise RebirthError.single("player names must differ")
        setup = deal(self.ruleset, len(names), seed)
        return Game(self, Engine(self.ruleset, names, setup), setup, seed)


def load(rules: str | os.PathLike[str] | None = None, board: str | os.PathLike[str] | None = None) -> Rules:
    """A bundled ruleset by name (`"ireland"`, `"variants/korean-castles"`) or a .rules file, on its own
    board or the named one; with no name, the default ruleset."""
    rules_path, board_path = rules_and_board(str(rules) if rules is not None else None,
                                             str(board) if board is not None else None)
    rs, _ = load_ruleset(rules_path, board_path)
    return Rules(rs, rules_path, board_path)


def new_game(rules: str | os.PathLike[str] | None = None, players: int | Sequence[str] = 2, seed: int = 0) -> Game:
    """`load(rules).new_game(players, seed)` in one call."""
    return load(rules).new_game(players, seed)


def from_record(source: str | os.PathLike[str] | dict[str, Any], allow_paths: bool = False) -> Game:
    """A game replayed from a record: a file (or a bundled example by name), or the record's JSON as a dict
    (its file names are then relative to the current folder). An illegal move raises IllegalMove."""
    if isinstance(source, dict):
        path, data = Path.cwd() / "record.json", source
    else:
        path, data = find("examples", str(source)), None
    loaded = load_record(path, data, allow_paths=allow_paths)
    r = replay(loaded)
    if r.error is not None:
        raise r.error
    rec = loaded.record
    rules = Rules(loaded.rs, resolve(loaded.base, rec.rules, "rules", allow_paths, loaded.file),
                  resolve(loaded.base, rec.board, "boards", allow_paths, loaded.file))
    # the setup the replay started from, kept so that record() writes it out again
    game = Game(rules, r.game, make_setup(rec, loaded.rs), rec.setup.seed)
    for m in rec.moves:
        entry: dict[str, Any] = {"player": m.player, "tile": m.tile, "hex": list(m.hex) if m.hex is not None else None}
        if m.choices:
            entry["choices"] = dict(m.choices)
        game._moves.append(entry)
    return game


class Game:
    """A game in progress: whose turn it is, the legal moves, play and undo, scores and the record.

    `engine` is the rules engine's own state (`rebirth_dsl.runtime.game.Game`), for what this class does
    not wrap; change it only through this class, or `undo` and `record` lose track."""

    def __init__(self, rules: Rules, engine: Engine, setup: Setup, seed: int | None, undo: bool = True) -> None:
        self.rules = rules
        self.engine = engine
        self.setup = setup
        self.seed = seed
        self.keep_undo = undo  # environments turn it off: they never undo, and a copy per move is time
        self._moves: list[dict[str, Any]] = []
        self._undo: list[Engine] = []

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{self.to_move} to move"
        return f"<Game {self.rules.name} {', '.join(self.players)}: move {len(self._moves)}, {state}>"

    # ----- who and what -----------------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        """The players in seat order (clockwise)."""
        return self.engine.players

    @property
    def is_over(self) -> bool:
        """Whether every tile has been placed (S-T2)."""
        return self.engine.is_over()

    @property
    def to_move(self) -> str | None:
        """The player whose turn it is; None when the game is over (or for a scenario, which has no turns)."""
        g = self.engine
        return None if g.scenario or g.is_over() else g.players[g.turn]

    def hand(self, player: str | None = None) -> list[str]:
        """The tiles in a player's hand (the player to move by default)."""
        g = self.engine
        p = g.turn if player is None else g.player_index(player)
        return [g.rs.tile_name(*x) for x in g.hand[p]]

    @property
    def moves(self) -> list[Move]:
        """The moves played so far, in order."""
        return [Move(m["tile"], tuple(m["hex"]) if m["hex"] is not None else None,  # type: ignore[arg-type]
                     tuple((k, v if isinstance(v, bool) else next(iter(v.values())))
                           for k, v in m.get("choices", {}).items()))
                for m in self._moves]

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move: each hand tile on each legal hex (or passed when it has
        none, S-P5), once per combination of answers its abilities allow, sorted by tile and hex."""
        g = self.engine
        if self.to_move is None:
            return []
        p, rs, out = g.turn, g.rs, []
        for tile in sorted(set(g.hand[p])):
            name = rs.tile_name(*tile)
            hexes, _ = g.legal_hexes(tile[0])
            if not hexes:
                out.append(Move(name, None))  # S-P5: passed (every ruleset must say so: check_required)
                continue
            for h in sorted(hexes, key=lambda h: g.t.coords[h]):
                asks: list[list[tuple[str, Answer]]] = []
                for lm, _ in g.pending_abilities(p, h):
                    _, _, opts = g.ability_options(p, lm)
                    asks.append([(g.t.landmark_name[lm], o) for o in opts] if opts else [(g.t.landmark_name[lm], True)])
                for combo in product(*asks):
                    out.append(Move(name, g.t.coords[h], tuple(combo)))
        return out

    def points(self, move: Move) -> int:
        """The points the move scores at once for the player making it (on a copy: nothing changes)."""
        g = self.engine.clone()
        p = g.turn
        before = g.track[p]
        self._apply(g, move)
        return g.track[p] - before

    # ----- changing the game ------------------------------------------------------------------
    def play(self, move: Move) -> list[dict[str, Any]]:
        """Play a move for the player to move; return what it scored, as `rebirth eval --explain` events.
        An illegal move raises IllegalMove naming the rule, and the game is left as it was."""
        if self.engine.scenario:
            raise RebirthError.single("a scenario has no turns: load it to score and explain it")
        before = self.engine.clone() if self.keep_undo else None
        events, entry = self._apply(self.engine, move)
        if before is not None:
            self._undo.append(before)
        self._moves.append(entry)
        return [event_dict(self.engine, e) for e in events]

    def _apply(self, g: Engine, move: Move) -> tuple[list[Any], dict[str, Any]]:
        """Validate and apply a move on an engine state (the engine refuses before changing anything);
        return its events and its record entry, written the way `rebirth play` writes it."""
        p = g.turn
        try:
            tile = g.rs.parse_tile(move.tile)
        except RebirthError as e:
            raise IllegalMove(e.diagnostics[0].message, g.rs.cites.mix[0] if g.rs.cites.mix else "the tile mix",
                              len(self._moves)) from None
        h = None
        if move.hex is not None:
            h = g.t.index.get(cast("tuple[int, int]", tuple(move.hex)))  # Move.hex: (q, r)
            if h is None:
                raise IllegalMove(f"there is no hex ({move.hex[0]},{move.hex[1]}) on the board",
                                  g.rs.cites.one_tile[0] if g.rs.cites.one_tile else "the one-tile rule", len(self._moves))
        choices = self._engine_choices(g, p, h, move.choices)  # read before the move changes the state
        events = g.play(p, tile, h, len(self._moves), choices)
        entry: dict[str, Any] = {"player": g.players[p], "tile": move.tile,
                                 "hex": list(move.hex) if move.hex is not None else None}
        if choices:
            entry["choices"] = choices
        return events, entry

    @staticmethod
    def _engine_choices(g: Engine, p: int, h: int | None, choices: Iterable[tuple[str, Answer]]) -> dict[str, Any]:
        """`(landmark, answer)` pairs as the engine's choices: `{landmark: {key: answer}}`, or True/False."""
        out: dict[str, Any] = {}
        lms = {g.t.landmark_name[lm]: lm for lm, _ in g.pending_abilities(p, h)} if h is not None else {}
        for name, answer in choices:
            if isinstance(answer, bool) or name not in lms:
                out[name] = answer  # the engine refuses an unasked landmark, naming the rule
            else:
                _, key, _ = abilities.options(g, p, lms[name])
                out[name] = {key: answer}
        return out

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self._undo:
            raise RebirthError.single("nothing to undo" if not self._moves else
                                      "no undo history: the moves were replayed from a record, or undo=False")
        move = self.moves[-1]
        # a copy of the saved state: a clone of this game may hold the same saved state in its own history
        self.engine = self._undo.pop().clone()
        self._moves.pop()
        return move

    def clone(self) -> Game:
        """An independent copy (same rules, same history, its own state)."""
        c = Game(self.rules, self.engine.clone(), self.setup, self.seed, self.keep_undo)
        c._moves = [dict(m) for m in self._moves]
        c._undo = list(self._undo)
        return c

    # ----- scores -----------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        """The `rebirth eval --json` object: scores, breakdowns, landmarks, public missions, winners."""
        return evaluate(self.engine)

    def scores(self) -> dict[str, int]:
        """Each player's score: final once the game is over, else the track."""
        return {p["name"]: p["score"] for p in self.result()["players"]}

    def breakdown(self) -> dict[str, dict[str, int]]:
        """Each player's points by category (farms, areas, castles, missions, ...)."""
        return {p["name"]: p["breakdown"] for p in self.result()["players"]}

    def winners(self) -> list[str]:
        """The winners (more than one on a shared win, S-E4); empty while the game goes on."""
        return self.result()["winners"]

    def explain(self) -> list[dict[str, Any]]:
        """Every scoring event with its rule ids and text (with end-of-game scoring once it is over)."""
        return explain(self.engine)

    # ----- records ----------------------------------------------------------------------------
    def record(self, folder: str | os.PathLike[str] | None = None, agents: Sequence[str] | None = None) -> dict[str, Any]:
        """The game record (explicit setup and every move) as JSON data; rules and board files that are not
        bundled are named relative to `folder` (the current folder by default)."""
        if self.engine.scenario:
            raise RebirthError.single("a scenario's record is the file it was loaded from")
        rec = record_for(self.rules.ruleset, self.rules.rules_path, self.rules.board_path,
                         Path(folder) if folder is not None else Path.cwd(), list(self.players),
                         list(agents) if agents else [], self.seed if self.seed is not None else 0, self.setup,
                         [dict(m) for m in self._moves])
        if not agents:
            del rec["agents"]
        if self.seed is None:
            del rec["setup"]["seed"]
        return rec

    def to_json(self, folder: str | os.PathLike[str] | None = None) -> str:
        """The record as JSON text, laid out as `rebirth play -o` writes it."""
        return dumps(self.record(folder)) + "\n"

    def save(self, path: str | os.PathLike[str], agents: Sequence[str] | None = None) -> None:
        """Write the record to a file (atomically), naming non-bundled files relative to it."""
        p = Path(path)
        write_text_atomic(p, dumps(self.record(p.parent, agents)) + "\n")

