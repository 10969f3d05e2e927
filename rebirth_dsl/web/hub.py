"""The games a server holds: each a Table (play/table.py) behind a lock, stored after every change, with a
background thread that plays the agents' turns one at a time.

Everything a browser may do goes through here, with the seat its token names: the engine checks each
move (a refusal carries the rule id), and nothing reaches a browser that its seat may not see.
"""

from __future__ import annotations

import re
import secrets
import shutil
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth_dsl.board.model import load_json
from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.play.registry import AGENTS
from rebirth_dsl.play.table import HUMAN, Table, new_table, table_from_record
from rebirth_dsl.present.render import build_view, render_svg, seat_colour
from rebirth_dsl.records.resources import bundled, default_board, default_rules, find, name_of
from rebirth_dsl.web.store import StaleWrite, Store

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")


class WebError(Exception):
    """A request refused: an HTTP status, a message, and the rule id when a game rule refused it."""

    def __init__(self, status: int, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.rule = status, message, rule

    def body(self) -> dict[str, Any]:
        """The JSON a browser gets."""
        return {"error": self.message, **({"rule": self.rule} if self.rule else {})}


def refused(e: RebirthError, status: int = 400) -> WebError:
    """A library error as a refusal: an illegal move is a conflict with the game's rules (409)."""
    if isinstance(e, IllegalMove):
        return WebError(409, e.diagnostics[0].message, e.rule)
    return WebError(status, e.render())


@dataclass
class Live:
    """A game in memory: its table, the seats' secrets, its version, and what was drawn for it."""

    id: str
    table: Table
    tokens: list[str]
    watch: str
    version: int
    lock: threading.RLock = field(default_factory=threading.RLock)
    svg: tuple[int, str] | None = None
    worker: threading.Thread | None = None


class Hub:
    """The server's games: created, loaded from the store, moved, and their agents played."""

    def __init__(self, folder: Path, agent_delay: float = 0.6, local_files: bool = True) -> None:
        self.store = Store(folder)
        self.store.restore_files()
        self.folder = folder
        self.agent_delay = agent_delay
        self.local_files = local_files  # read records by path only when the server is this machine's own
        self.games: dict[str, Live] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    # ----- finding games and seats --------------------------------------------------------------
    def get(self, gid: str) -> Live:
        """A game by id, loaded from the store on first use (404 if there is none)."""
        with self._lock:
            live = self.games.get(gid)
            if live is not None:
                return live
            row = self.store.load(gid) if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", gid) else None
            if row is None:
                raise WebError(404, f"no game {gid!r} on this server")
            table = table_from_record(row.record, self.folder / "record.json", allow_paths=True)
            table.pending = row.pending
            live = Live(gid, table, row.tokens, row.watch, row.version)
            self.games[gid] = live
            return live

    def seat(self, live: Live, token: str | None) -> int | None:
        """The seat a secret names (None: the spectator's link); 403 for any other."""
        if token and secrets.compare_digest(token, live.watch):  # constant time: a token is a password
            return None
        for i, t in enumerate(live.tokens):
            if token and secrets.compare_digest(t, token):
                return i
        raise WebError(403, "this link's token is not valid for this game")

    def resume_all(self) -> int:
        """After a restart: load every unfinished game whose turn is an agent's, and let it play on."""
        n = 0
        for gid in self.store.ids():
            try:
                live = self.get(gid)
            except (WebError, RebirthError):
                continue  # a game whose files are gone stays stored, and says why when opened
            if not live.table.is_over():
                self.kick(live)
                n += 1
        return n

    # ----- making games -------------------------------------------------------------------------
    def upload(self, upload: Any, suffix: str) -> Path:
        """An uploaded rules or board file ({"name", "text"}), kept in the store. A rules file may extend a
        bundled ruleset by its file name (`extends "scotland.rules"`), so those are put beside it."""
        if not isinstance(upload, dict) or not isinstance(upload.get("text"), str):
            raise WebError(400, f"an uploaded file is {{\"name\": ..., \"text\": ...}} (a {suffix} file)")
        name = Path(str(upload.get("name") or f"upload{suffix}")).name
        if not SAFE_NAME.fullmatch(name) or not name.endswith(suffix):
            raise WebError(400, f"{name!r}: the uploaded file's name must end in {suffix} and use letters, "
                                "digits, dots, dashes and underscores")
        path = self.store.add_file(name, upload["text"])
        if suffix == ".rules":
            for base_name, base in bundled("rules").items():
                if "/" not in base_name and not (path.parent / base.name).exists():
                    shutil.copyfile(base, path.parent / base.name)
        return path

    def create(self, spec: dict[str, Any]) -> tuple[Live, list[dict[str, Any]]]:
        """A new game from the page's form, or a branch of a record from a move (`from` and `at`)."""
        seats = spec.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
            raise WebError(400, "seats: a list of {\"name\", \"agent\"}, one per player")
        agents = [str(s.get("agent") or HUMAN).strip().lower() for s in seats]
        for a in agents:
            if a not in AGENTS:
                raise WebError(400, f"unknown agent {a!r} (agents: {', '.join(AGENTS)})")
        try:
            if spec.get("from") is not None:
                table = self._branch(spec, agents)
            else:
                table = self._fresh(spec, seats, agents)
        except RebirthError as e:
            raise refused(e, 400) from None
        gid = secrets.token_urlsafe(9)
        tokens = [secrets.token_urlsafe(16) for _ in table.players]
        watch = secrets.token_urlsafe(16)
        self.store.create(gid, table.record(), tokens, watch)
        live = Live(gid, table, tokens, watch, 1)
        with self._lock:
            self.games[gid] = live
        self.kick(live)
        links = [{"seat": i, "name": n, "agent": table.agents[i], "token": tokens[i],
                  "url": f"/game/{gid}?t={tokens[i]}"} for i, n in enumerate(table.players)]
        links.append({"seat": None, "name": "spectator", "agent": "", "token": watch, "url": f"/game/{gid}?t={watch}"})
        return live, links

    def _fresh(self, spec: dict[str, Any], seats: list[dict[str, Any]], agents: list[str]) -> Table:
        if spec.get("rules_file") is not None:
            rules = self.upload(spec["rules_file"], ".rules")
        else:
            rules = (find("rules", self._name(spec["rules"], "rules")) if spec.get("rules")
                     else default_rules())  # rules/DEFAULT names it: no game name in code
        if spec.get("board_file") is not None:
            board = self.upload(spec["board_file"], ".json")
        elif spec.get("board"):
            board = find("boards", self._name(spec["board"], "boards"))
        else:
            found = default_board(rules)
            if found is None:
                raise WebError(400, "no bundled board goes with this ruleset: choose a board")
            board = found
        names = [str(s.get("name") or "").strip() or f"Player {i + 1}" for i, s in enumerate(seats)]
        if len(set(names)) != len(names):
            raise WebError(400, "players need different names")
        try:
            seed = int(spec.get("seed") or 0)
        except (TypeError, ValueError):
            raise WebError(400, f"seed: a whole number, not {spec.get('seed')!r}") from None
        return new_table(rules, board, names, agents, seed, base=self.folder)

    def _name(self, text: Any, folder: str) -> str:
        """A bundled game's name (a path is only read when the server runs on this machine only)."""
        text = str(text)
        if text not in bundled(folder) and not self.local_files:
            raise WebError(400, f"{text!r}: no bundled {folder[:-1] if folder == 'boards' else 'ruleset'} of "
                                "that name (this server reads no paths)")
        return text

    def _branch(self, spec: dict[str, Any], agents: list[str]) -> Table:
        data, path = self.open_record(spec["from"])
        at = spec.get("at")
        if at is not None and not isinstance(at, int):
            raise WebError(400, f"at: a move number, not {at!r}")
        table = table_from_record(data, path, allow_paths=False, agents=agents, at=at)
        return table_from_record(self._absolute(table), self.folder / "record.json", allow_paths=True)

    def _absolute(self, table: Table) -> dict[str, Any]:
        """A record naming its files by absolute path, so it replays from the store's folder."""
        data = table.record()
        for key, folder, path in (("rules", "rules", table.rules_path), ("board", "boards", table.board_path)):
            if data[key] not in bundled(folder):
                data[key] = str(path.resolve())
        return data

    def open_record(self, source: Any) -> tuple[dict[str, Any], Path]:
        """A record to study or branch from: {"record": {...}} (uploaded), {"name": "scotland-3p"} (a bundled
        example) or {"path": "..."} (a file on this machine). Returns the data and the path it is read
        relative to."""
        if not isinstance(source, dict):
            raise WebError(400, "a record is given as {\"record\": {...}}, {\"name\": ...} or {\"path\": ...}")
        try:
            if isinstance(source.get("record"), dict):
                return source["record"], self.folder / "uploaded" / "record.json"
            if source.get("record") is not None:
                raise WebError(400, "the uploaded file is not a game record (a JSON object with rules, board, "
                                    "players and moves)")
            if source.get("name"):
                name = str(source["name"])
                if name not in bundled("examples"):
                    raise WebError(400, f"no bundled example {name!r} (examples: {', '.join(bundled('examples'))})")
                path = bundled("examples")[name]
            elif source.get("path"):
                if not self.local_files:
                    raise WebError(403, "this server reads no paths: upload the record instead")
                path = Path(str(source["path"])).expanduser()
            else:
                raise WebError(400, "give a record: upload one, name a bundled example, or give a path")
            data = load_json(path)
            if not isinstance(data, dict):
                raise WebError(400, f"{path.name} is not a game record (a JSON object)")
            return data, path
        except RebirthError as e:
            raise refused(e) from None

    # ----- moves --------------------------------------------------------------------------------
    def move(self, gid: str, token: str | None, body: dict[str, Any]) -> dict[str, Any]:
        """A seat's move (or its answer to a pending question), checked by the engine, then stored."""
        live = self.get(gid)
        p = self.seat(live, token)
        if p is None:
            raise WebError(403, "a spectator's link cannot move")
        tile, hexq, choices = body.get("tile"), body.get("hex"), body.get("choices")
        if not isinstance(tile, str) or not tile:
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
            try:
                out = live.table.submit(p, tile, hexq, choices)
            except RebirthError as e:
                raise refused(e) from None
            try:
                self._save(live)
            except BaseException:
                self._forget(live)
                raise
        self.kick(live)
        return {"status": out["status"], "version": live.version}

    def undo(self, gid: str, token: str | None) -> dict[str, Any]:
        """Take back the seat's last move (and the agents' after it)."""
        live = self.get(gid)
        p = self.seat(live, token)
        if p is None:
            raise WebError(403, "a spectator's link cannot take moves back")
        with live.lock:
            try:
                gone = live.table.undo(p)
            except RebirthError as e:
                raise refused(e, 409) from None
            self._save(live)
        return {"undone": gone, "version": live.version}

    def _save(self, live: Live) -> None:
        """Store the game's record after a change (the caller holds its lock)."""
        try:
            live.version = self.store.save(live.id, live.version, live.table.record(), live.table.pending)
        except StaleWrite:
            with self._lock:
                self.games.pop(live.id, None)  # someone else wrote it: the next request reloads it
            raise WebError(409, "the game was changed elsewhere: look again") from None

    def _forget(self, live: Live) -> None:
        """A change that could not be stored is dropped from memory too: reload the game from the store."""
        with self._lock:
            self.games.pop(live.id, None)

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
        except Exception as e:  # noqa: BLE001 - a thread's last line: say what happened
            print(f"rebirth serve: game {live.id}: the agent stopped: {type(e).__name__}: {e}", file=sys.stderr)
            with live.lock:
                live.worker = None

    def _play_agents(self, live: Live) -> None:
        """Play the agents' turns one at a time, each stored before the next (a pause between them lets
        people follow). A move is thought out on a copy, then applied only if the game did not change
        meanwhile (a take-back)."""
        while not self.stopping.is_set():
            with live.lock:
                t = live.table
                if t.is_over() or t.is_human(t.game.turn) or self.games.get(live.id) is not live:
                    live.worker = None
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
        """Let the agent threads finish (a move half thought out is simply not made)."""
        self.stopping.set()

    # ----- what a browser sees ------------------------------------------------------------------
    def view(self, gid: str, token: str | None) -> dict[str, Any]:
        """The seat's view of its game, with the board drawn by the project's renderer."""
        live = self.get(gid)
        p = self.seat(live, token)
        with live.lock:
            t = live.table
            out = t.view(p)
            out["version"] = live.version
            out["id"] = live.id
            out["svg"] = self._svg(live)
            out["colours"] = [seat_colour(i) for i in range(len(t.players))]
            out["has_files"] = {k: t.data[k] not in bundled(f) for k, f in (("rules", "rules"), ("board", "boards"))}
        return out

    def _svg(self, live: Live) -> str:
        """The position as SVG, drawn once per version (the score table is the page's: the picture's
        would add up other players' secret missions)."""
        if live.svg is not None and live.svg[0] == live.version:
            return live.svg[1]
        svg = position_svg(live.table, self.folder / "record.json")
        live.svg = (live.version, svg)
        return svg

    def version(self, gid: str, token: str | None) -> int:
        """The game's version (cheap: for waiting until something changes)."""
        live = self.get(gid)
        self.seat(live, token)
        return live.version

    def record(self, gid: str, token: str | None) -> tuple[dict[str, Any], str]:
        """The finished game's record, as `rebirth eval` reads it, and a file name for it. Files that are
        not bundled are named by their file name, to be put beside the record."""
        live = self.get(gid)
        self.seat(live, token)
        with live.lock:
            t = live.table
            if not t.is_over():
                raise WebError(403, "the record shows every hidden tile: it is given when the game is over")
            data = t.record()
        for key, folder in (("rules", "rules"), ("board", "boards")):
            if data[key] not in bundled(folder):
                data[key] = Path(data[key]).name
        return data, f"rebirth-{gid}.json"

    def file(self, gid: str, token: str | None, key: str) -> tuple[str, str]:
        """An uploaded rules or board file of a game (to keep beside its downloaded record)."""
        live = self.get(gid)
        self.seat(live, token)
        t = live.table
        path = {"rules": t.rules_path, "board": t.board_path}.get(key)
        if path is None:
            raise WebError(404, "a game's files are `rules` and `board`")
        return path.read_text(encoding="utf-8"), path.name

    # ----- study ----------------------------------------------------------------------------------
    def study(self, source: Any, step: Any) -> dict[str, Any]:
        """A record's position after `step` moves, with everything shown (a record hides nothing)."""
        data, path = self.open_record(source)
        try:
            full = table_from_record(data, path, allow_paths=False, playable=False)
            total = len(full.moves)
            k = total if step is None else step
            if not isinstance(k, int) or not 0 <= k <= total:
                raise WebError(400, f"step: a move number from 0 to {total}")
            table = full if k == total else table_from_record(data, path, at=k, playable=False)
            out = table.view(None, reveal=True)
            out["svg"] = position_svg(table, path)
        except RebirthError as e:
            raise refused(e) from None
        out["step"], out["total"] = k, total
        out["colours"] = [seat_colour(i) for i in range(len(table.players))]
        out["move"] = out["log"][-1] if k and out["log"] else None
        out["record_moves"] = [{"player": m["player"], "tile": m["tile"], "hex": m.get("hex")} for m in full.moves]
        return out


def position_svg(table: Table, path: Path) -> str:
    """The table's position drawn by present/render.py, without its score table."""
    data = table.record()
    data["rules"], data["board"] = str(table.rules_path.resolve()), str(table.board_path.resolve())
    view = build_view(str(path), data, allow_paths=True)
    view.result = None
    view.status = f"{table.game.rs.title}: {', '.join(table.players)}; after {len(table.moves)} moves"
    return render_svg(view)


def catalog() -> dict[str, Any]:
    """What the new-game form offers: bundled rulesets, boards, examples and agents."""
    return {"rules": list(bundled("rules")), "boards": list(bundled("boards")), "examples": list(bundled("examples")),
            "agents": {k: v[1] for k, v in AGENTS.items()}, "default_rules": name_of("rules", default_rules())}

