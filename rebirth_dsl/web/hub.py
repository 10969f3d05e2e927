"""The games a server holds: each a Table (play/table.py) behind a lock, stored after every change, with a
background thread that plays the agents' turns one at a time.

Everything a browser may do goes through here, with the seat its token names: the engine checks each
move (a refusal carries the rule id), and nothing reaches a browser that its seat may not see.

A game is played in a closed *world*: a folder of the store holding exactly the files the game began
with (the bundled rulesets, the visitor's uploaded files, the board), laid out by the server itself. The
engine reads nothing else: an uploaded ruleset's `extends` may name only a file of its world, a
visitor's record may name only bundled games, and a game keeps the rules it began with across restarts
and edits of the bundled files. Error messages are shown without the server's folders.
"""

from __future__ import annotations

import collections
import gzip
import hashlib
import json
import posixpath
import re
import secrets
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules, parse_text
from rebirth_dsl.lang.refs import board_statement
from rebirth_dsl.play.registry import AGENTS, DEFAULT_OPPONENT
from rebirth_dsl.play.table import HUMAN, Table, new_table, table_from_record
from rebirth_dsl.present.render import kind_colour, position_view, render_svg, seat_colour
from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.resources import (
    bundled,
    default_rules,
    games_root,
    header_extends,
    is_name,
    name_of,
)
from rebirth_dsl.web.guard import RateLimit, same_secret
from rebirth_dsl.web.store import StaleWrite, Store, world_digest

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_GAMES = 10_000  # games a server stores: each is a few KB, but a bound keeps a flood of creates finite
MAX_LIVE = 256  # games kept in memory; others are loaded from the store when asked for
MAX_STUDY_MOVES = 2_000  # a real game has under 120 moves: a longer record to study is refused
MAX_UPLOADS = 8  # rules files sent with one game (a variant of a variant of ...)
STUDY_RECORDS = 64  # records whose move count is kept for study
STUDY_POSITIONS = 400  # studied positions kept (each ~100 KB with its picture: ~40 MB at most)


def _board_statement(text: str) -> A.BoardDecl | None:
    """A rules text's own `board` statement, or None (none, or the text does not parse: its load says why)."""
    try:
        return board_statement(parse_text(text, "upload.rules"))
    except RebirthError:
        return None


class WebError(Exception):
    """A request refused: an HTTP status, a message, and the rule id when a game rule refused it."""

    def __init__(self, status: int, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.rule = status, message, rule

    def body(self) -> dict[str, Any]:
        """The JSON a browser gets."""
        return {"error": self.message, **({"rule": self.rule} if self.rule else {})}


@dataclass
class Packed:
    """An answer made once per version of a game, and its gzip form once asked for (a page that reads
    compressed answers costs one compression a version, not one a request)."""

    version: int
    data: bytes
    _gz: bytes | None = None

    def gzip(self) -> bytes:
        """The data, gzip-compressed (made on the first call)."""
        if self._gz is None:
            self._gz = gzip.compress(self.data, compresslevel=1, mtime=0)  # the fastest: SVG still shrinks 6x
        return self._gz


@dataclass
class Live:
    """A game in memory: its table, the seats' secrets, its version, and what was drawn for it."""

    id: str
    table: Table
    tokens: list[str]
    watch: str
    version: int
    world: str = ""
    files: dict[str, str] = field(default_factory=dict)  # "rules", "board" -> its place in the world
    lock: threading.RLock = field(default_factory=threading.RLock)
    svg: Packed | None = None  # the picture of the current version
    views: dict[int | None, Packed] = field(default_factory=dict)  # by seat: its view of the current version
    worker: threading.Thread | None = None
    has_files: dict[str, bool] | None = None  # whether its rules and board were uploaded (to offer them)
    options: dict[str, Any] = field(default_factory=dict)  # what the seats agreed at creation: {"hints": False}


@dataclass
class World:
    """The files a new game begins with: path inside the world -> text, and where its rules and board are."""

    files: dict[str, str]
    rules: str
    board: str
    rules_name: str  # as the record names it: a bundled name, or the uploaded file's name
    board_name: str


class Hub:
    """The server's games: created, loaded from the store, moved, and their agents played."""

    def __init__(self, folder: Path, agent_delay: float = 0.6, local_files: bool = False,
                 max_games: int = MAX_GAMES, max_live: int = MAX_LIVE, move_rate: float = 20.0) -> None:
        self.store = Store(folder)
        self.folder = self.store.folder
        self.agent_delay = agent_delay
        self.local_files = local_files  # study records by path: only `--local-files` on a loopback server
        self.max_games, self.max_live = max_games, max_live
        self.games: collections.OrderedDict[str, Live] = collections.OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self._create_lock = threading.Lock()  # a world is laid out, used or dropped by one create at a time
        self.stopping = threading.Event()
        self.moves = RateLimit(move_rate, int(move_rate * 2))  # per seat: far above a person's pace
        self._study_lock = threading.Lock()
        self._study_whole: collections.OrderedDict[str, tuple[int, list[dict[str, Any]]]] = collections.OrderedDict()
        self._studies: collections.OrderedDict[tuple[str, int], dict[str, Any]] = collections.OrderedDict()
        self._adopt_legacy()
        self._hidden = sorted({str(p) for p in (self.folder, self.folder.resolve(), games_root(),
                                                games_root().resolve())}, key=len, reverse=True)

    # ----- messages ------------------------------------------------------------------------------
    def scrub(self, text: str) -> str:
        """A message without the server's folders in it: a visitor learns nothing of the machine."""
        for prefix in self._hidden:
            text = text.replace(prefix + "/worlds/", "").replace(prefix + "/", "").replace(prefix, "")
        return re.sub(r"\b[0-9a-f]{32}/", "", text)  # a world's folder name

    def refused(self, e: RebirthError, status: int = 400) -> WebError:
        """A library error as a refusal: an illegal move is a conflict with the game's rules (409)."""
        if isinstance(e, IllegalMove):
            return WebError(409, self.scrub(e.diagnostics[0].message), e.rule)
        return WebError(status, self.scrub(e.render()))

    def _adopt_legacy(self) -> None:
        """Games stored by an older version named their uploads by absolute path into the store's old
        files folder: each gets a world made of the texts that store kept (no file is read from disk),
        with the bundled rulesets as they are now. A game whose files the store does not hold stays as it
        is, and says why when opened."""
        for gid, record, uploads in self.store.legacy():
            files = self._bundled_rules()
            places: dict[str, str] = {}
            names: dict[str, str] = {}
            for key, folder in (("rules", "rules"), ("board", "boards")):
                named = str(record.get(key, ""))
                if named in bundled(folder):
                    places[key], names[key] = pinned_place(bundled(folder)[named], folder), named
                    if key == "board":
                        files[places[key]] = bundled(folder)[named].read_text(encoding="utf-8")
                elif named in uploads:
                    name = Path(named).name
                    places[key], names[key] = f"{folder}/{name}", name
                    files[places[key]] = uploads[named]
                    if key == "rules":  # an upload was kept beside its siblings of the same folder
                        for other, text in uploads.items():
                            if Path(other).parent == Path(named).parent and other.endswith(".rules"):
                                files.setdefault(f"rules/{Path(other).name}", text)
            if len(places) < 2:
                continue
            try:
                world = self.store.world_folder(world_digest(files), files)
                table = table_from_record({**record, **names}, world / "record.json", allow_paths=False,
                                          rules=world / places["rules"], board=world / places["board"])
            except (RebirthError, OSError):
                continue
            self.store.adopt(gid, {**record, **names}, files, places["rules"], places["board"], waiting(table))

    # ----- finding games and seats --------------------------------------------------------------
    def get(self, gid: str) -> Live:
        """A game by id, loaded from the store on first use (404 if there is none)."""
        if not isinstance(gid, str) or not GAME_ID.fullmatch(gid):
            raise WebError(404, "no game of that id on this server")
        with self._lock:
            live = self.games.get(gid)
            if live is not None:
                self.games.move_to_end(gid)
                return live
        row = self.store.load(gid)
        if row is None:
            raise WebError(404, "no game of that id on this server")
        try:
            if not row.world:
                raise RebirthError.single("this game was stored by an older version of rebirth-dsl, which kept its "
                                          "files elsewhere; download its record from that version")
            world = self.store.world_folder(row.world)
            table = table_from_record(row.record, world / "record.json", allow_paths=False,
                                      rules=world / row.rules, board=world / row.board)
        except RebirthError as e:
            raise WebError(409, "this stored game cannot be replayed: " + self.scrub(e.render())) from None
        table.pending = row.pending
        live = Live(gid, table, row.tokens, row.watch, row.version, row.world, {"rules": row.rules, "board": row.board},
                    options=row.options)
        with self._lock:
            live = self.games.setdefault(gid, live)  # another request may have loaded it meanwhile
            self.games.move_to_end(gid)
            self._evict()
        return live

    def loaded(self, gid: Any) -> Live | None:
        """The game if it is in memory (no store is read): for answering without a worker thread."""
        with self._lock:
            return self.games.get(gid) if isinstance(gid, str) else None

    def _evict(self) -> None:
        """Keep at most max_live games in memory: the least recently used idle ones go (the caller holds
        _lock); a game whose agents are thinking, or that a request is changing, stays."""
        if len(self.games) <= self.max_live:
            return
        for gid in list(self.games):
            if len(self.games) <= self.max_live:
                return
            live = self.games[gid]
            if live.worker is not None and live.worker.is_alive():
                continue
            if not live.lock.acquire(blocking=False):
                continue  # a request is changing it: a copy loaded now could be a version behind
            try:
                del self.games[gid]
            finally:
                live.lock.release()

    def seat(self, live: Live, token: Any) -> int | None:
        """The seat a secret names (None: the spectator's link); 403 for any other."""
        if same_secret(token, live.watch):  # constant time: a token is a password
            return None
        found = -1
        for i, t in enumerate(live.tokens):
            if same_secret(token, t):
                found = i
        if found < 0:
            raise WebError(403, "this link's token is not valid for this game")
        return found

    def resume_all(self) -> int:
        """After a restart: let every unfinished game whose turn is an agent's play on. Games that wait for
        a person, or are over, stay in the store until someone opens them (a restart replays none of them)."""
        n = 0
        for gid in self.store.ids(waiting=("agent", "")):  # '': stored before the store said whom it waits for
            if self.stopping.is_set():
                break
            try:
                live = self.get(gid)
            except (WebError, RebirthError):
                continue  # a game that cannot be replayed stays stored, and says why when opened
            t = live.table
            if not t.is_over() and not t.is_human(t.game.turn):
                self.kick(live)
                n += 1
        return n

    # ----- worlds ---------------------------------------------------------------------------------
    def _bundled_rules(self) -> dict[str, str]:
        """Every bundled ruleset's text by its place in a world (rules/scotland.rules ...): a game's world
        holds them all, so an uploaded variant extends any of them by name, pinned as they are now."""
        return {pinned_place(p, "rules"): p.read_text(encoding="utf-8") for p in bundled("rules").values()}

    def _upload(self, upload: Any, suffix: str) -> tuple[str, str]:
        """An uploaded file ({"name", "text"}): its checked file name and its text."""
        if not isinstance(upload, dict) or not isinstance(upload.get("text"), str):
            raise WebError(400, f"an uploaded file is {{\"name\": ..., \"text\": ...}} (a {suffix} file)")
        raw = upload.get("name")
        name = raw if isinstance(raw, str) and raw else f"upload{suffix}"
        if not SAFE_NAME.fullmatch(name) or not name.endswith(suffix):
            raise WebError(400, f"{name[:80]!r}: the uploaded file's name must end in {suffix} and use letters, "
                                "digits, dots, dashes and underscores")
        return name, upload["text"]

    def _bundled_name(self, text: Any, folder: str) -> str:
        """A bundled game's name as the form sends it; this server reads no other files."""
        names = bundled(folder)
        if not isinstance(text, str) or text not in names:
            what = "board" if folder == "boards" else "ruleset"
            shown = text[:80] if isinstance(text, str) else type(text).__name__
            raise WebError(400, f"{shown!r}: no bundled {what} of that name (bundled: {', '.join(names)}); upload "
                                "a file to use your own")
        return text

    def _world(self, spec: dict[str, Any]) -> World:
        """The files of a new game from the form: bundled names, or uploaded files."""
        files = self._bundled_rules()
        bundled_paths = set(files)
        extra = spec.get("rules_files") or []
        if not isinstance(extra, list) or len(extra) > MAX_UPLOADS:
            raise WebError(400, f"rules_files: a list of at most {MAX_UPLOADS} more uploaded rules files")
        # rules_file is the game's ruleset; rules_files are more files it may extend
        uploads = ([spec["rules_file"]] if spec.get("rules_file") is not None else []) + extra
        rules_name = None
        for up in uploads:
            name, text = self._upload(up, ".rules")
            if f"rules/{name}" in bundled_paths:
                raise WebError(400, f"{name!r} is the name of a bundled ruleset: give your file another name "
                                    "(it may still `extends` the bundled one)")
            if f"rules/{name}" in files:
                raise WebError(400, f"two uploaded files are named {name!r}: an `extends` could not tell them apart")
            files[f"rules/{name}"] = text
            rules_name = rules_name or name
        if rules_name is None:
            chosen = self._bundled_name(spec["rules"], "rules") if spec.get("rules") else name_of("rules",
                                                                                                 default_rules())
            assert chosen is not None  # rules/DEFAULT names a bundled ruleset
            rules_name, rules_path = chosen, pinned_place(bundled("rules")[chosen], "rules")
        else:
            rules_path = f"rules/{rules_name}"
        if spec.get("board_file") is not None:
            name, text = self._upload(spec["board_file"], ".json")
            board_name, board_path = name, f"boards/{name}"
            files[board_path] = text
        else:
            if spec.get("board"):
                board_name = self._bundled_name(spec["board"], "boards")
            else:
                found = self._default_board(files, rules_path, bundled_paths)
                if found is None:
                    raise WebError(400, "no bundled board goes with this ruleset: choose a board")
                board_name = found
            board_path = f"boards/{board_name}.json"
            files[board_path] = bundled("boards")[board_name].read_text(encoding="utf-8")
        return World(files, rules_path, board_path, rules_name, board_name)

    def _default_board(self, files: dict[str, str], rules_path: str, pinned: set[str]) -> str | None:
        """The bundled board a ruleset plays on when none is chosen, as resources.board_for picks it, read
        from the world's own texts (`pinned`: its bundled files): the nearest `board` statement of the
        ruleset and the files it extends, else the bundled board of its name or its base's."""
        boards = bundled("boards")
        seen = set()
        path: str | None = rules_path
        while path is not None and path in files and path not in seen:
            seen.add(path)
            decl = _board_statement(files[path])
            if decl is not None:
                if decl.named or not decl.ref.endswith(".json"):
                    name = decl.ref
                    if name in boards:
                        return name
                raise WebError(400, f"the ruleset plays on the board {decl.ref!r}, which is no bundled board: "
                                    "upload that board file with it, or choose a board")
            name = path.removeprefix("rules/").removesuffix(".rules")
            if path in pinned and name in boards:
                return name
            ext = header_extends(files[path])
            if ext is None:
                return None
            path = posixpath.normpath(posixpath.join(posixpath.dirname(path),
                                                     ext if ext.endswith(".rules") else f"{ext}.rules"))
        return None

    # ----- making games -------------------------------------------------------------------------
    def create(self, spec: dict[str, Any]) -> tuple[Live, list[dict[str, Any]]]:
        """A new game from the page's form, or a branch of a record from a move (`from` and `at`)."""
        seats = spec.get("seats")
        if not isinstance(seats, list) or not 1 <= len(seats) <= 16 or not all(isinstance(s, dict) for s in seats):
            raise WebError(400, "seats: a list of {\"name\", \"agent\"}, one per player")
        agents = [str(s.get("agent") or HUMAN).strip().lower()[:40] for s in seats]
        for a in agents:
            if a not in AGENTS:
                raise WebError(400, f"unknown agent {a!r} (agents: {', '.join(AGENTS)})")
        if self.store.count() >= self.max_games:
            raise WebError(503, f"this server holds its limit of {self.max_games:,} games; ask its keeper to "
                                "make room")
        hints = spec.get("hints", True)
        if not isinstance(hints, bool):
            raise WebError(400, "hints: true or false (whether a seat may ask for hints and forecasts)")
        options = {} if hints else {"hints": False}
        gid = secrets.token_urlsafe(9)
        with self._create_lock:
            try:
                if spec.get("from") is not None:
                    world, moves = self._branch_world(spec)
                else:
                    world, moves = self._world(spec), None
                digest_s = world_digest(world.files)
                folder = self.store.world_folder(digest_s, world.files)
                try:
                    table = self._table(spec, seats, agents, world, folder, moves)
                except BaseException:
                    self.store.drop_world(digest_s)  # a refused game keeps none of its uploads
                    raise
            except RebirthError as e:
                raise self.refused(e, 400) from None
            tokens = [secrets.token_urlsafe(16) for _ in table.players]
            watch = secrets.token_urlsafe(16)
            self.store.add_world(world.files)
            self.store.create(gid, table.record(), tokens, watch, digest_s, world.rules, world.board, waiting(table),
                              options)
        live = Live(gid, table, tokens, watch, 1, digest_s, {"rules": world.rules, "board": world.board},
                    options=options)
        with self._lock:
            self.games[gid] = live
            self._evict()
        self.kick(live)
        # the people's links and the spectator's: an agent's seat has a secret too (its hand), given to nobody
        links = [{"seat": i, "name": n, "agent": table.agents[i], "token": tokens[i],
                  "url": f"/game/{gid}?t={tokens[i]}"} for i, n in enumerate(table.players) if table.is_human(i)]
        links.append({"seat": None, "name": "spectator", "agent": "", "token": watch, "url": f"/game/{gid}?t={watch}"})
        return live, links

    def _table(self, spec: dict[str, Any], seats: list[dict[str, Any]], agents: list[str], world: World,
               folder: Path, moves: dict[str, Any] | None) -> Table:
        """The new game's table, its files read from its world only."""
        rules, board = folder / world.rules, folder / world.board
        load_rules(rules, root=folder / "rules")  # `extends` must stay inside the world: refused here if not
        if moves is not None:
            table = table_from_record(moves, folder / "record.json", allow_paths=False, agents=agents,
                                      rules=rules, board=board)
        else:
            names = [str(s.get("name") or "").strip()[:40] or f"Player {i + 1}" for i, s in enumerate(seats)]
            if len(set(names)) != len(names):
                raise WebError(400, "players need different names")
            seed = spec.get("seed")
            if seed is None or seed == "":
                seed = 0
            if isinstance(seed, str) and re.fullmatch(r"-?\d{1,30}", seed.strip()):
                seed = int(seed)
            if isinstance(seed, bool) or not isinstance(seed, int) or abs(seed) >= 2**63:
                raise WebError(400, "seed: a whole number (at most 19 digits)")
            table = new_table(rules, board, names, agents, seed, base=folder)
        table.data["rules"], table.data["board"] = world.rules_name, world.board_name
        return table

    def _branch_world(self, spec: dict[str, Any]) -> tuple[World, dict[str, Any]]:
        """The world and the record of a game branched from a record at a move: the record's files must be
        bundled (an uploaded record names no files of this machine)."""
        data, path = self.open_record(spec["from"])
        at = spec.get("at")
        if at is not None and (isinstance(at, bool) or not isinstance(at, int)):
            raise WebError(400, f"at: a move number, not {str(at)[:40]!r}")
        base = table_from_record(data, path, allow_paths=False, at=at, playable=True)
        files = self._bundled_rules()
        rules_name = str(base.data.get("rules"))
        rules_place = pinned_place(base.rules_path, "rules")
        board_text = base.board_path.read_text(encoding="utf-8")
        board_name = str(base.data.get("board"))
        board_path = f"boards/{Path(board_name).name}" + ("" if board_name.endswith(".json") else ".json")
        files[board_path] = board_text
        record = base.record()
        return World(files, rules_place, board_path, rules_name, board_name), record

    def open_record(self, source: Any) -> tuple[dict[str, Any], Path]:
        """A record to study or branch from: {"record": {...}} (uploaded; it may name bundled games only),
        {"name": "scotland-3p"} (a bundled example) or {"path": "..."} (a file of this machine: only on a
        loopback server started with --local-files). Returns the data and the path it is read relative to."""
        if not isinstance(source, dict):
            raise WebError(400, "a record is given as {\"record\": {...}}, {\"name\": ...} or {\"path\": ...}")
        if isinstance(source.get("record"), dict):
            data = source["record"]
            for key, folder in (("rules", "rules"), ("board", "boards")):
                named = data.get(key)
                if not isinstance(named, str) or not is_name(named) or named not in bundled(folder):
                    raise WebError(400, f"an uploaded record may name only bundled games: its {key!r} is not one "
                                        f"(bundled: {', '.join(bundled(folder))})")
            return data, self.folder / "uploaded" / "record.json"
        if source.get("record") is not None:
            raise WebError(400, "the uploaded file is not a game record (a JSON object with rules, board, "
                                "players and moves)")
        try:
            if source.get("name"):
                name = source["name"]
                if not isinstance(name, str) or name not in bundled("examples"):
                    raise WebError(400, f"no bundled example of that name (examples: {', '.join(bundled('examples'))})")
                path = bundled("examples")[name]
            elif source.get("path"):
                if not self.local_files:
                    raise WebError(403, "this server reads no paths (start it with --local-files on 127.0.0.1 to "
                                        "study your own files): upload the record instead")
                path = Path(str(source["path"])).expanduser()
            else:
                raise WebError(400, "give a record: upload one, name a bundled example, or give a path")
            from rebirth_dsl.board.model import load_json

            data = load_json(path)
            if not isinstance(data, dict):
                raise WebError(400, f"{path.name} is not a game record (a JSON object)")
            return data, path
        except RebirthError as e:
            raise self.refused(e) from None

    # ----- moves --------------------------------------------------------------------------------
    def move(self, gid: str, token: Any, body: dict[str, Any]) -> dict[str, Any]:
        """A seat's move (or its answer to a pending question), checked by the engine, then stored."""
        live = self.get(gid)
        p = self.seat(live, token)
        if p is None:
            raise WebError(403, "a spectator's link cannot move")
        if not self.moves.allow((gid, p)):
            raise WebError(429, "too many moves at once from this seat: wait a moment")
        tile, hexq, choices = body.get("tile"), body.get("hex"), body.get("choices")
        if not isinstance(tile, str) or not tile or len(tile) > 60:
            raise WebError(400, "tile: the name of the tile to place, e.g. \"food\" or \"settlement:3\"")
        if hexq is not None and not (isinstance(hexq, list) and len(hexq) == 2
                                     and all(isinstance(x, int) and not isinstance(x, bool) for x in hexq)):
            raise WebError(400, "hex: [q, r], two whole numbers (or null to pass a tile no hex takes)")
        if choices is not None and not isinstance(choices, dict):
            raise WebError(400, "choices: an object, landmark name -> answer")
        with live.lock:
            if not live.table.is_human(p):
                raise WebError(403, f"seat {live.table.players[p]} is played by an agent")
            expected = body.get("version")
            if expected is not None and expected != live.version:
                raise WebError(409, "the game has changed since this page was drawn: look again")
            before = len(live.table.moves), dict(live.table.pending)
            try:
                out = live.table.submit(p, tile, hexq, choices)
            except RebirthError as e:
                self._restore(live, before)
                raise self.refused(e) from None
            self._save(live)
        self.kick(live)
        return {"status": out["status"], "version": live.version}

    def _restore(self, live: Live, before: tuple[int, dict[int, Any]]) -> None:
        """A refused move changes nothing (the engine refuses before it changes anything); should the table
        have been touched all the same, it is dropped and rebuilt from the store."""
        moves, pending = before
        if len(live.table.moves) != moves or live.table.pending != pending:
            self._forget(live)

    def undo(self, gid: str, token: Any) -> dict[str, Any]:
        """Take back the seat's last move (and the agents' after it), when the rules of take-backs allow."""
        live = self.get(gid)
        p = self.seat(live, token)
        if p is None:
            raise WebError(403, "a spectator's link cannot take moves back")
        with live.lock:
            try:
                gone = live.table.undo(p)
            except RebirthError as e:
                raise self.refused(e, 409) from None
            self._save(live)
        return {"undone": gone, "version": live.version}

    def _save(self, live: Live) -> None:
        """Store the game's record after a change (the caller holds its lock). A change that could not be
        stored is dropped from memory too: the next request reloads the game as the store has it."""
        try:
            # the record itself, not a copy: it is written out (as JSON) before the lock is let go
            live.version = self.store.save(live.id, live.version, live.table.data, live.table.pending,
                                           waiting(live.table))
        except StaleWrite:
            self._forget(live)
            raise WebError(409, "the game was changed elsewhere: look again") from None
        except BaseException:
            self._forget(live)
            raise

    def _forget(self, live: Live) -> None:
        """Drop a game from memory: the next request reloads it from the store."""
        with self._lock:
            if self.games.get(live.id) is live:
                del self.games[live.id]

    # ----- the agents -----------------------------------------------------------------------------
    def kick(self, live: Live) -> None:
        """Start the game's agent thread if an agent is to play and none is running."""
        with live.lock:
            t = live.table
            if t.is_over() or t.is_human(t.game.turn) or self.stopping.is_set():
                return
            if live.worker is not None and live.worker.is_alive():
                return
            live.worker = threading.Thread(target=self._agents, args=(live,), name=f"agents-{live.id}", daemon=True)
            live.worker.start()

    def _agents(self, live: Live) -> None:
        """The agent thread: a failure is reported and ends the thread, never the server."""
        try:
            self._play_agents(live)
        except WebError:
            pass  # the game changed elsewhere: it is reloaded, and its agents kicked, at the next request
        except Exception as e:  # noqa: BLE001 - a thread's last line: say what happened
            print(f"rebirth serve: game {live.id}: the agent stopped: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            with live.lock:
                if live.worker is threading.current_thread():
                    live.worker = None

    def _play_agents(self, live: Live) -> None:
        """Play the agents' turns one at a time, each stored before the next (a pause between them lets
        people follow). A move is thought out on a copy, then applied only if the game did not change
        meanwhile (a take-back)."""
        while not self.stopping.is_set():
            with live.lock:
                t = live.table
                if t.is_over() or t.is_human(t.game.turn) or self.games.get(live.id) is not live:
                    return
                version, snapshot = live.version, t.game.clone()
            move = t.agent_move(snapshot)
            if self.agent_delay:
                self.stopping.wait(self.agent_delay)
            with live.lock:
                if live.version != version or self.stopping.is_set():
                    continue
                t.apply_record_move(move)
                self._save(live)

    def stop(self) -> None:
        """Let the agent threads finish (a move half thought out is simply not made); the server closes the
        store after this, once every change handed to it is written."""
        self.stopping.set()

    # ----- what a browser sees ------------------------------------------------------------------
    def view_json(self, gid: str, token: Any, gz: bool = False) -> bytes:
        """The seat's view of its game as JSON (gzip-compressed with `gz`), made once per version and seat:
        a burst of woken long polls costs one view, and one compression."""
        live = self.get(gid)
        p = self.seat(live, token)
        with live.lock:
            cached = live.views.get(p)
            if cached is None or cached.version != live.version:
                if len(live.views) > 8:
                    live.views.clear()
                cached = live.views[p] = Packed(live.version, json.dumps(self._view(live, p)).encode())
            return cached.gzip() if gz else cached.data

    def view(self, gid: str, token: Any) -> dict[str, Any]:
        """The seat's view of its game, with the board drawn by the project's renderer."""
        return json.loads(self.view_json(gid, token))

    def _view(self, live: Live, p: int | None) -> dict[str, Any]:
        t = live.table
        out = t.view(p)
        out["version"] = live.version
        out["id"] = live.id
        # the picture is the same for every seat: fetched from its own address, drawn once per version
        out["svg_url"] = f"/api/games/{live.id}/board.svg?v={live.version}"
        out["colours"] = [seat_colour(i) for i in range(len(t.players))]
        out["tile_art"] = tile_art(t)
        if live.has_files is None:
            live.has_files = {k: t.data[k] not in bundled(f) for k, f in (("rules", "rules"), ("board", "boards"))}
        out["has_files"] = live.has_files
        out["hints"] = live.options.get("hints", True) is not False  # the seats may ask for hints and forecasts
        return out

    def svg(self, gid: str, token: Any, gz: bool = False) -> bytes:
        """The position as SVG (gzip-compressed with `gz`), for any seat or spectator of the game (it shows
        only what all may see), drawn once per version (the score table is the page's: the picture's
        would add up other players' secret missions)."""
        live = self.get(gid)
        self.seat(live, token)
        with live.lock:
            if live.svg is None or live.svg.version != live.version:
                live.svg = Packed(live.version, position_svg(live.table).encode())
            return live.svg.gzip() if gz else live.svg.data

    def version(self, gid: str, token: Any) -> int:
        """The game's version (cheap: for waiting until something changes)."""
        live = self.get(gid)
        self.seat(live, token)
        return live.version

    def record(self, gid: str, token: Any) -> tuple[dict[str, Any], str]:
        """The finished game's record, as `rebirth eval` reads it, and a file name for it. Files that are
        not bundled are named by their file name, to be put beside the record."""
        live = self.get(gid)
        self.seat(live, token)
        with live.lock:
            t = live.table
            if not t.is_over():
                raise WebError(403, "the record shows every hidden tile: it is given when the game is over")
            data = t.record()
        return data, f"rebirth-{gid}.json"

    def file(self, gid: str, token: Any, key: str) -> tuple[str, str]:
        """An uploaded rules or board file of a game (to keep beside its downloaded record), as the store
        keeps it: never a file read from disk at the time of asking."""
        live = self.get(gid)
        self.seat(live, token)
        if key not in ("rules", "board"):
            raise WebError(404, "a game's files are `rules` and `board`")
        if live.table.data[key] in bundled("rules" if key == "rules" else "boards"):
            raise WebError(404, f"this game's {key} file is bundled: it comes with rebirth-dsl")
        text = self.store.world_text(live.world, live.files[key])
        if text is None:
            raise WebError(404, "this game has no such file")
        return text, Path(live.files[key]).name

    # ----- study ----------------------------------------------------------------------------------
    def study(self, source: Any, step: Any) -> dict[str, Any]:
        """A record's position after `step` moves, with everything shown (a record hides nothing). Each
        position is worked out once per record (the same record, uploaded again, is the same key): stepping
        back and forth, or a page that asks for the next moves ahead, costs a look-up."""
        data, path, files = self._study_record(source)
        moves = data.get("moves")
        if isinstance(moves, list) and len(moves) > MAX_STUDY_MOVES:
            raise WebError(413, f"the record has {len(moves):,} moves; a study takes at most {MAX_STUDY_MOVES:,}")
        key = hashlib.sha256(json.dumps([data, str(path), {k: str(v) for k, v in files.items()}],
                                        sort_keys=True, default=str).encode()).hexdigest()
        try:
            with self._study_lock:
                whole = self._study_whole.get(key)
            if whole is None:
                full = table_from_record(data, path, allow_paths=False, playable=False, rules=files.get("rules"),
                                         board=files.get("board"))
                whole = (len(full.moves), [{"player": m["player"], "tile": m["tile"], "hex": m.get("hex")}
                                           for m in full.moves])
            total, record_moves = whole
            k = total if step is None else step
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= total:
                raise WebError(400, f"step: a move number from 0 to {total}")
            with self._study_lock:
                self._study_whole[key] = whole
                self._study_whole.move_to_end(key)
                while len(self._study_whole) > STUDY_RECORDS:
                    self._study_whole.popitem(last=False)
                cached = self._studies.get((key, k))
                if cached is not None:
                    self._studies.move_to_end((key, k))
                    return cached
            table = table_from_record(data, path, at=k, playable=False, rules=files.get("rules"),
                                      board=files.get("board"))
            out = table.view(None, reveal=True)
            out["svg"] = position_svg(table)
        except RebirthError as e:
            raise self.refused(e) from None
        out["step"], out["total"] = k, total
        out["colours"] = [seat_colour(i) for i in range(len(table.players))]
        out["tile_art"] = tile_art(table)
        out["move"] = out["log"][-1] if k and out["log"] else None
        out["record_moves"] = record_moves
        with self._study_lock:
            self._studies[(key, k)] = out
            while len(self._studies) > STUDY_POSITIONS:
                self._studies.popitem(last=False)
        return out

    def _study_record(self, source: Any) -> tuple[dict[str, Any], Path, dict[str, Path]]:
        """A record to study: as open_record reads it, or a finished game of this server by its link
        ({"game": id, "t": token}), with the files it was played with."""
        if isinstance(source, dict) and source.get("game") is not None:
            live = self.get(source["game"])
            self.seat(live, source.get("t"))
            with live.lock:
                t = live.table
                if not t.is_over():
                    raise WebError(403, "a game is studied once it is over (the record shows every hidden tile)")
                return t.record(), t.rules_path.parent / "record.json", {"rules": t.rules_path, "board": t.board_path}
        data, path = self.open_record(source)
        return data, path, {}

    # ----- my games -------------------------------------------------------------------------------
    def summary(self, gid: str, token: Any) -> dict[str, Any]:
        """A game in a line, for the seat its link names: its ruleset, players and scores, whose turn it
        is, and whether it is over (what the seat's own view shows, and nothing more)."""
        live = self.get(gid)
        p = self.seat(live, token)
        with live.lock:
            t, g = live.table, live.table.game
            over = t.is_over()
            out: dict[str, Any] = {
                "id": live.id, "version": live.version, "title": g.rs.title, "rules": t.data["rules"],
                "moves": len(t.moves), "over": over, "you": p, "your_name": None if p is None else t.players[p],
                "players": [{"name": n, "agent": t.agents[q], "score": g.track[q]} for q, n in enumerate(t.players)],
                "turn": None if over else t.players[g.turn],
                "your_turn": (not over) and p is not None and g.turn == p and t.is_human(p),
            }
            if over:
                result = evaluate(g)
                out["winners"] = result["winners"]
                for q, r in enumerate(result["players"]):
                    out["players"][q]["score"] = r["score"]
        return out


def pinned_place(path: Path, folder: str) -> str:
    """Where a bundled file of `folder` (rules, boards) stands in a game's world: its place in that folder."""
    return f"{folder}/{path.resolve().relative_to((games_root() / folder).resolve()).as_posix()}"


def waiting(table: Table) -> str:
    """Whom a game waits for, as the store keeps it (a restart resumes only the agents' games)."""
    if table.is_over():
        return "nobody"
    return "person" if table.is_human(table.game.turn) else "agent"


def position_svg(table: Table, moves: int | None = None) -> str:
    """The table's position drawn by present/render.py, without its score table; `moves`: how many were made
    (default: the table's own, a position's notation says its own)."""
    view = position_view(table.game, table.loaded.board)
    view.result = None
    made = len(table.moves) if moves is None else moves
    view.status = f"{table.game.rs.title}: {', '.join(table.players)}; after {made} moves"
    return render_svg(view)


def tile_art(table: Table) -> dict[str, dict[str, Any]]:
    """How the page draws a tile of each kind: the board's colour for the kind, and the attribute its number
    counts (`influence`: shown as pips), or None for a kind without one."""
    rs = table.game.rs
    return {k: {"colour": kind_colour(k), "attribute": rs.t.attribute_of.get(k)} for k in rs.tile_kinds}


def catalog() -> dict[str, Any]:
    """What the new-game form offers: bundled rulesets, boards, examples and agents (and the opponent it
    preselects)."""
    return {"rules": list(bundled("rules")), "boards": list(bundled("boards")), "examples": list(bundled("examples")),
            "agents": {k: v[1] for k, v in AGENTS.items()}, "default_agent": DEFAULT_OPPONENT,
            "default_rules": name_of("rules", default_rules())}
