"""Analysis in the browser: a seat's hints and forecast in a game, the analysis board (a position in the
notation, docs/notation.md, set up by clicking or pasted) and the review of a finished game.

Every number comes from the engine functions the commands use: `play/forecast.hint` and `forecast` (as
`rebirth hint` and `eval --forecast`), `play/reasons.py` through the table's previews (as `rebirth moves`),
`play/review.review` (as `rebirth review`); nothing here ranks or scores a move itself.

What a seat may not see never reaches the engine's functions: a seat's hint or forecast is worked out on a
copy of the game whose hidden parts (the others' hands, supplies, set-aside tiles and cards, the decks'
order) are first re-dealt from that seat's view (`play/hidden.resample`), so no answer can depend on how
they really lie. A notation is read from the text the page posts, never from a file: its ruleset and board
must be bundled names (a quoted path is refused before anything is read).

The playouts are few (HINT_PLAYOUTS, FORECAST_PLAYOUTS: two seconds at most on one core,
tools/web_analysis_time.py prints the figures; the intervals say how little that is), run in a worker thread, at most ANALYSES at once on the server and at most
`rate` a second per game or per client.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.table import Table, table_from_record
from rebirth_dsl.records.position import Position, Seat, position_of, read_position, record_of, write_position
from rebirth_dsl.records.resources import bundled, is_name
from rebirth_dsl.web.guard import RateLimit
from rebirth_dsl.web.hub import Hub, WebError, position_svg, tile_art

HINT_AGENTS = "oneply"  # `rebirth hint`'s default playout agent
# 6 playouts of 5 moves: 0.5 s at most on the bundled Scotland games, 1.8 s on Ireland's two-player one and
# 3.0 s at the start of its four-player one, on one core of a loaded machine (tools/web_analysis_time.py,
# run under nice beside other work); 10 x 6 took 3.4 s on Ireland's two-player game
HINT_PLAYOUTS = 6
HINT_WIDTH = 5  # moves played out: the one-ply evaluation's best 5; the others are listed as screened
FORECAST_AGENTS = "oneply"
FORECAST_PLAYOUTS = 24  # 0.4 s at most on Scotland, 1.5 s on Ireland 2p, 2.4 s at Ireland 4p's start
REVIEW_PLAYOUTS = 6  # a finished game's review: random playouts (native when it can), 4 candidates a move
REVIEW_WIDTH = 3
ANALYSES = 2  # analyses running at once on the whole server: the playouts share its cores with the games
MAX_NOTATION = 20_000  # characters of a pasted notation: a 4-player position at the end of a game is ~3,000
REVIEWS_KEPT = 16


class Analyst:
    """The analysis endpoints' work, over a Hub (its games, its records' rules)."""

    def __init__(self, hub: Hub, rate: float = 0.5, burst: int = 4) -> None:
        self.hub = hub
        self.per_game = RateLimit(rate, burst)  # a hint is ~1 s of a core: a seat asks now and then
        self.per_client = RateLimit(rate * 2, burst * 2)
        self.running = threading.BoundedSemaphore(ANALYSES)
        self._reviews: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    # ----- bounds ---------------------------------------------------------------------------------
    def admit(self, key: Any) -> None:
        """Refuse (429) an analysis over the rate for `key` (a game, or a client address)."""
        limit = self.per_game if isinstance(key, tuple) and key[0] == "game" else self.per_client
        if not limit.allow(key):
            raise WebError(429, "too many analyses asked here in a short time: wait a few seconds")

    def _slot(self) -> None:
        if not self.running.acquire(timeout=10):
            raise WebError(503, "the server is busy with other analyses: try again in a moment")

    # ----- a seat's hint and forecast in a game --------------------------------------------------------
    def _seat_copy(self, gid: str, token: Any) -> tuple[Table, Any, int]:
        """The game as the seat may see it: a copy whose hidden parts are re-dealt from its view."""
        from rebirth_dsl.play.hidden import resample

        live = self.hub.get(gid)
        p = self.hub.seat(live, token)
        if p is None:
            raise WebError(403, "a spectator's link cannot ask for hints: they are a seat's")
        if live.options.get("hints", True) is False:
            raise WebError(403, "the seats agreed to play this game without hints and forecasts")
        with live.lock:
            table = live.table
            if table.is_over():
                raise WebError(409, "the game is over: study it (its review shows every move's chances)")
            g = table.game.fork()
        # what p cannot see is dealt anew (seeded by the position, so asking twice gives the same answer):
        # nothing computed below can depend on how the others' tiles and cards really lie
        seed = int(hashlib.sha256(f"{gid}:{p}:{len(table.moves)}".encode()).hexdigest()[:8], 16)
        resample(g, p, random.Random(seed))
        return table, g, p

    def seat_hint(self, gid: str, token: Any) -> dict[str, Any]:
        """The seat's moves ranked as `rebirth hint` ranks them (the seat must be the one to move)."""
        from rebirth_dsl.play.forecast import hint

        table, g, p = self._seat_copy(gid, token)
        if g.turn != p:
            raise WebError(409, f"it is {g.players[g.turn]}'s turn: a hint ranks the moves of the player to move")
        if table.pending.get(p) is not None:
            raise WebError(409, "answer the question of your placement first")
        self._slot()
        try:
            out = hint(g, None, None, HINT_AGENTS, HINT_PLAYOUTS, 0, "auto", width=HINT_WIDTH)
        except RebirthError as e:
            raise self.hub.refused(e) from None
        finally:
            self.running.release()
        return out

    def seat_forecast(self, gid: str, token: Any) -> dict[str, Any]:
        """Each player's expected final score and chance to win, from the seat's view (`eval --forecast --as`)."""
        from rebirth_dsl.play.forecast import forecast

        _, g, p = self._seat_copy(gid, token)
        self._slot()
        try:
            return forecast(g, p, FORECAST_AGENTS, FORECAST_PLAYOUTS, 0, "auto")
        except RebirthError as e:
            raise self.hub.refused(e) from None
        finally:
            self.running.release()

    # ----- the analysis board -------------------------------------------------------------------------
    def read(self, text: Any) -> tuple[Position, Table]:
        """A posted notation as a Position and the table it plays on (unknown parts dealt, seeded by the
        text); the rules and board must be bundled names."""
        if not isinstance(text, str) or not text.strip():
            raise WebError(400, "notation: the position's text (docs/notation.md), e.g. `position RULES on "
                                "BOARD  players Ann, Bob ...` with a bundled ruleset and board")
        if len(text) > MAX_NOTATION:
            raise WebError(413, f"the notation is over {MAX_NOTATION:,} characters")
        try:
            pos = read_position(text, "notation")
            for key, folder, what, noun in (("position.rules", "rules", pos.rules, "ruleset"),
                                            ("position.board", "boards", pos.board, "board")):
                if not is_name(what) or what not in bundled(folder):
                    raise pos.error(key, f"{what!r} is not a bundled {noun}: a position posted here names "
                                         f"bundled games only ({', '.join(bundled(folder))})")
            record = record_of(pos, text)
            # unknown parts dealt with seed 0, as the commands deal them by default (--seed 0)
            table = table_from_record(record, self.hub.folder / "notation", allow_paths=False,
                                      playable=not pos.scenario, deal_seed=0)
        except RebirthError as e:
            raise self.hub.refused(e) from None
        return pos, table

    def analyse(self, text: Any) -> dict[str, Any]:
        """The board, score table, legal moves with their reasons and the setup of a posted notation, and
        the notation written back (`write_position`)."""
        pos, table = self.read(text)
        return self._board(pos, table)

    def _board(self, pos: Position, table: Table) -> dict[str, Any]:
        g = table.game
        rs, t = g.rs, g.t
        out = table.view(None, reveal=True)
        out["svg"] = position_svg(table, pos.move)
        out["notation"] = write_position(pos)
        out["colours"] = _colours(len(table.players))
        out["tile_art"] = tile_art(table)
        out["dealt"] = list(table.loaded.dealt or [])
        out["legal"] = table.previews(g.turn) if not g.is_over() and not g.scenario else {}
        out["setup"] = {
            "players": pos.players, "turn": pos.turn,
            "tiles": _tile_names(rs, len(table.players)),
            "seats": [{"name": s.name, "hand": s.hand, "supply": s.supply, "owns": s.owns,
                       "tiles": [{"tile": tl, "hex": list(h)} for tl, h in s.tiles]} for s in pos.seats],
            "landmarks": [{"name": t.landmark_name[lm], "hex": list(t.coords[t.landmark_hex[lm]])}
                          for lm in range(len(t.landmark_hex))],
        }
        return out

    def edit(self, text: Any, change: Any) -> dict[str, Any]:
        """A posted notation changed by one edit of the board (put a tile, take it off, set a landmark's
        holder, set a hand, set the player to move), checked and written back as notation. A tile put with
        `"holders": "rules"` challenges the landmarks next to it as the majority rule does (`_challenge`);
        without, holders stay as set (the notation gives them: a tie's keeper depends on the history)."""
        pos, _ = self.read(text)
        if not isinstance(change, dict):
            raise WebError(400, "edit: {\"op\": \"put\" | \"remove\" | \"owner\" | \"hand\" | \"turn\", ...}")
        new = copy.deepcopy(pos)
        op = change.get("op")
        names = new.players

        def seat_of(key: str) -> Any:
            name = change.get(key)
            if name not in names:
                raise WebError(400, f"{key}: one of the players ({', '.join(names)})")
            return new.seat(name)

        def hex_of() -> tuple[int, int]:
            h = change.get("hex")
            if (not isinstance(h, list) or len(h) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                  and abs(x) < 10**6 for x in h)):
                raise WebError(400, "hex: [q, r]")
            return (h[0], h[1])

        if op in ("put", "remove"):
            h = hex_of()
            for s in new.seats:  # whatever lay there goes back to its owner's supply, drawn last
                for tl, x in s.tiles:
                    if x == h:
                        _to_supply(s, tl)
                s.tiles = [(tl, x) for tl, x in s.tiles if x != h]
            if op == "put":
                tile = change.get("tile")
                if not isinstance(tile, str) or len(tile) > 60:
                    raise WebError(400, "tile: a tile's name (food, settlement:3)")
                s = seat_of("player")
                _from_supply(s, tile)
                s.tiles.append((tile, h))
                if change.get("holders") == "rules":
                    self._challenge(new, s.name, h)
        elif op == "owner":
            lm = change.get("landmark")
            if not isinstance(lm, str) or len(lm) > 80:
                raise WebError(400, "landmark: a landmark's name")
            for s in new.seats:
                s.owns = [x for x in s.owns if x != lm]
            if change.get("player") is not None:
                seat_of("player").owns.append(lm)
        elif op == "hand":
            tiles = change.get("tiles")
            if not isinstance(tiles, list) or len(tiles) > 8 or not all(isinstance(x, str) and len(x) <= 60
                                                                       for x in tiles):
                raise WebError(400, "tiles: a list of tiles' names (at most 8)")
            s = seat_of("player")
            for tl in s.hand or []:  # a hand is drawn from the supply: the tiles change places, none is made
                _to_supply(s, tl)
            for tl in tiles:
                _from_supply(s, tl)
            s.hand, s.hand_count = list(tiles), None
        elif op == "turn":
            new.turn = seat_of("player").name
        else:
            raise WebError(400, "op: put, remove, owner, hand or turn")
        # the edited position is written and read back: every check (tile mix, free hexes, names) is the
        # notation's own, with its line and column in the text the page shows
        return self.analyse(write_position(new))

    def _challenge(self, pos: Position, placer: str, h: tuple[int, int]) -> None:
        """The holders of the landmarks next to a tile just put, as the majority rule decides them when that
        tile is placed (rules/majority.challenge, S-K1..S-K5: it challenges each holder), written into the
        position's `owns`."""
        from rebirth_dsl.rules.majority import challenge

        _, table = self.read(write_position(pos))  # the counts around each landmark, with the new tile
        g = table.game
        p = g.players.index(placer)
        for lm in g.lm_adj[g.t.index[h]]:
            rule = g.metric_of.get(lm)
            if rule is None:
                continue
            holder, _ = challenge(g.lm_count[lm], g.lm_owner[lm], p, rule.placer_takes_tie)
            name = g.t.landmark_name[lm]
            for s in pos.seats:
                s.owns = [x for x in s.owns if x != name]
            if holder >= 0:
                pos.seats[holder].owns.append(name)

    def position_hint(self, text: Any) -> dict[str, Any]:
        """`rebirth hint` on a posted notation: the moves of the player to move, from their information."""
        from rebirth_dsl.play.forecast import hint

        _, table = self.read(text)
        g = table.game
        if g.is_over() or g.scenario:
            raise WebError(409, "no move to rank: the position is over, or a scenario (no turns)")
        self._slot()
        try:
            return hint(g, None, None, HINT_AGENTS, HINT_PLAYOUTS, 0, "auto", width=HINT_WIDTH)
        except RebirthError as e:
            raise self.hub.refused(e) from None
        finally:
            self.running.release()

    def position_forecast(self, text: Any) -> dict[str, Any]:
        """`rebirth eval --forecast` on a posted notation, from the view of the player to move."""
        from rebirth_dsl.play.forecast import forecast

        _, table = self.read(text)
        self._slot()
        try:
            return forecast(table.game, None, FORECAST_AGENTS, FORECAST_PLAYOUTS, 0, "auto")
        except RebirthError as e:
            raise self.hub.refused(e) from None
        finally:
            self.running.release()

    def from_record(self, source: Any, step: Any) -> dict[str, Any]:
        """The notation of a record's position after `step` moves (a study's "Analyse from here"): as the
        study reads the record (bundled or uploaded, or a finished game of this server by its link)."""
        data, path, files = self.hub._study_record(source)
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise WebError(400, "step: a move number")
        try:
            table = table_from_record(data, path, allow_paths=False, at=step, playable=False,
                                      rules=files.get("rules"), board=files.get("board"))
        except RebirthError as e:
            raise self.hub.refused(e) from None
        rules, board = str(table.data.get("rules")), str(table.data.get("board"))
        if not (is_name(rules) and rules in bundled("rules") and is_name(board) and board in bundled("boards")):
            raise WebError(409, "the analysis board takes bundled rulesets and boards only: this game's are uploaded")
        return {"notation": write_position(position_of(table.game, rules, board))}

    # ----- review -------------------------------------------------------------------------------------
    def review(self, source: Any) -> dict[str, Any]:
        """`rebirth review` of a finished record (few playouts: a page waits for it), kept per record."""
        from rebirth_dsl.play.review import ReviewJob, review

        data, path, files = self.hub._study_record(source)
        key = hashlib.sha256(json.dumps([data, str(path)], sort_keys=True, default=str).encode()).hexdigest()
        with self._lock:
            kept = self._reviews.get(key)
        if kept is not None:
            return kept
        moves = data.get("moves")
        if isinstance(moves, list) and len(moves) > 200:
            raise WebError(413, "a review in the browser takes games of at most 200 moves (`rebirth review` any)")
        self._slot()
        try:
            job = ReviewJob(str(path), data, False, files.get("rules"), files.get("board"), REVIEW_PLAYOUTS,
                            REVIEW_WIDTH, "random", "auto", 0)
            rv = review(job, workers=1)
        except RebirthError as e:
            raise self.hub.refused(e) from None
        finally:
            self.running.release()
        rv["game"] = Path(str(rv["game"])).name
        with self._lock:
            self._reviews[key] = rv
            while len(self._reviews) > REVIEWS_KEPT:
                self._reviews.popitem(last=False)
        return rv


def _from_supply(s: Seat, tile: str) -> None:
    """A tile put on the board comes out of its player's supply (one colour's tiles are all somewhere,
    S-C2): the first of its kind where the supply is known, one fewer unknown tile where it is not."""
    if s.supply is not None and tile in s.supply:
        s.supply.remove(tile)
    elif s.supply is None and s.supply_count:
        s.supply_count -= 1


def _to_supply(s: Seat, tile: str) -> None:
    """A tile taken off the board goes back to its player's supply, drawn last."""
    if s.supply is not None:
        s.supply.append(tile)
    elif s.supply_count is not None:
        s.supply_count += 1


def _colours(n: int) -> list[str]:
    from rebirth_dsl.present.render import seat_colour

    return [seat_colour(i) for i in range(n)]


def _tile_names(rs: Any, n_players: int) -> list[str]:
    """Every tile of one colour's mix at this player count, as the notation names them (S-C2, S-U3)."""
    from rebirth_dsl.runtime.setup import colour_tiles

    return sorted({rs.tile_name(*x) for x in colour_tiles(rs, n_players)})
