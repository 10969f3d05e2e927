"""The web app's games on disk: one SQLite file in a private data folder.

A game is stored as its record (rules, board, players, agents, setup, moves), never as a pickled state:
the record is what the engine replays, what a person downloads and what `rebirth eval` reads, so a
restart of the server resumes every game from it. Each game also keeps the text of every file it was
begun with (its ruleset, the rulesets that one extends, its board): a stored game plays to the end by the
rules it began with, whatever happens to the files it named.

Safety of the folder: it holds every seat's secret and every hidden tile, so it is made private (0700,
files 0600), refused when another user owns it, and nothing in it is written through a link (files are
created with O_EXCL and O_NOFOLLOW; folders are checked with lstat).

Durability: every change is one transaction that also bumps the game's version; a write whose version is
stale is refused, so two writers can never lose a move. Writes go through one writer thread that commits
all the changes waiting at that moment in one transaction (a group commit) with a synchronous WAL write,
so a change is acknowledged only once it is on disk, and the cost of the disk flush is shared by every
game that moved meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    record TEXT NOT NULL,               -- the game record as JSON
    tokens TEXT NOT NULL,               -- JSON list: each seat's secret
    watch TEXT NOT NULL,                -- a spectator's secret
    pending TEXT NOT NULL DEFAULT '{}', -- placements waiting for an ability's answer, by seat
    version INTEGER NOT NULL,
    world TEXT NOT NULL DEFAULT '',     -- the digest of the files the game began with (table worlds)
    rules TEXT NOT NULL DEFAULT '',     -- the game's rules file inside its world
    board TEXT NOT NULL DEFAULT '',     -- the game's board file inside its world
    waiting TEXT NOT NULL DEFAULT '',   -- who the game waits for: 'agent', 'person', 'nobody' (over)
    options TEXT NOT NULL DEFAULT '{}'  -- JSON: what the seats agreed at creation ({"hints": false})
);
CREATE TABLE IF NOT EXISTS worlds (
    digest TEXT NOT NULL,               -- of every (path, text) pair of the world
    path TEXT NOT NULL,                 -- inside the world's folder: rules/NAME.rules, boards/NAME.json
    text TEXT NOT NULL,
    PRIMARY KEY (digest, path)
);
"""
# older stores: games made before worlds existed name their files by absolute path in the record
MIGRATIONS = ("ALTER TABLE games ADD COLUMN world TEXT NOT NULL DEFAULT ''",
              "ALTER TABLE games ADD COLUMN rules TEXT NOT NULL DEFAULT ''",
              "ALTER TABLE games ADD COLUMN board TEXT NOT NULL DEFAULT ''",
              "ALTER TABLE games ADD COLUMN waiting TEXT NOT NULL DEFAULT ''",
              "ALTER TABLE games ADD COLUMN options TEXT NOT NULL DEFAULT '{}'")

BATCH = 256  # changes committed together at the most: a bound on one transaction's size


@dataclass
class Row:
    """One stored game."""

    id: str
    record: dict[str, Any]
    tokens: list[str]
    watch: str
    pending: dict[int, dict[str, Any]]
    version: int
    world: str
    rules: str
    board: str
    options: dict[str, Any] = field(default_factory=dict)


class StaleWrite(Exception):
    """The game changed since it was read: the write is refused (the caller reloads)."""


class UnsafeFolder(RebirthError):
    """The data folder cannot be trusted with the games' secrets."""


def private_folder(path: Path) -> Path:
    """Make (or check) a folder only this user can enter: not a link, owned by us, mode 0700. A folder of
    ours that others may read is closed (older versions made it 0755); one owned by another user, or a
    link, is refused: whoever controls it could read every secret or plant links in it."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.lstat(path)
    except OSError as e:
        raise UnsafeFolder.single(f"cannot use the data folder: {e.strerror or e}", file=str(path)) from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise UnsafeFolder.single("the data folder is a link or not a folder: name the folder itself",
                                  file=str(path))
    if st.st_uid != os.geteuid():
        raise UnsafeFolder.single(f"the data folder belongs to another user (uid {st.st_uid}): it would see every "
                                  "seat's secret; use a folder of your own", file=str(path))
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def write_private(path: Path, text: str) -> None:
    """Create a new file readable by this user only, never through a link or over an existing file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def world_digest(files: dict[str, str]) -> str:
    """The digest that names a world: of every (path, text) pair, sorted."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode() + b"\0" + files[path].encode() + b"\0")
    return h.hexdigest()[:32]


class Store:
    """Games and the files they began with, in `folder/games.sqlite3`; each game's files are also laid out
    under `folder/worlds/<digest>/` for the engine to read."""

    def __init__(self, folder: Path) -> None:
        self.folder = private_folder(folder)
        self.worlds = private_folder(folder / "worlds")
        self.path = folder / "games.sqlite3"
        old = os.umask(0o077)  # the database and its -wal and -shm files: this user's only
        try:
            db = sqlite3.connect(self.path, timeout=30)
            try:
                db.execute("PRAGMA journal_mode=WAL")  # readers do not wait for the writer; a setting of the file
                db.executescript(SCHEMA)
                cols = {r[1] for r in db.execute("PRAGMA table_info(games)")}
                for m in MIGRATIONS:
                    if m.split()[5] not in cols:
                        db.execute(m)
                db.commit()
            finally:
                db.close()
        finally:
            os.umask(old)
        for name in ("games.sqlite3", "games.sqlite3-wal", "games.sqlite3-shm"):
            p = folder / name
            if p.exists() and not p.is_symlink():
                os.chmod(p, 0o600)  # a store made by an older version was world-readable
        self._local = threading.local()
        self._queue: queue.Queue[tuple[Callable[[sqlite3.Connection], Any], list[Any]] | None] = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="store-writer", daemon=True)
        self._writer.start()

    # ----- the writer: one thread, group commits -------------------------------------------------
    def _write_loop(self) -> None:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        # FULL: the WAL is flushed to disk at every commit, so an acknowledged move survives a power cut too
        db.execute("PRAGMA synchronous=FULL")
        while True:
            first = self._queue.get()
            if first is None:
                db.close()
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)  # stop after this batch
                    break
                batch.append(nxt)
            results: list[tuple[list[Any], Any, BaseException | None]] = []
            try:
                db.execute("BEGIN IMMEDIATE")
                for i, (fn, slot) in enumerate(batch):
                    db.execute(f"SAVEPOINT s{i}")  # one change refused (a stale version) leaves the others
                    try:
                        results.append((slot, fn(db), None))
                        db.execute(f"RELEASE s{i}")
                    except Exception as e:  # noqa: BLE001 - handed to the caller waiting for it
                        db.execute(f"ROLLBACK TO s{i}")
                        db.execute(f"RELEASE s{i}")
                        results.append((slot, None, e))
                db.execute("COMMIT")
            except Exception as e:  # noqa: BLE001 - the whole batch failed (disk full): every caller hears it
                if db.in_transaction:
                    db.execute("ROLLBACK")
                results = [(slot, None, e) for _, slot in batch]
            for slot, value, err in results:
                slot.extend((value, err))
                slot[0].set()

    def _write(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run fn in the writer's next transaction and wait until it is committed to disk."""
        done = threading.Event()
        slot: list[Any] = [done]
        self._queue.put((fn, slot))
        done.wait()
        value, err = slot[1], slot[2]
        if err is not None:
            raise err
        return value

    def close(self) -> None:
        """Stop the writer once every change handed to it is committed."""
        self._queue.put(None)
        self._writer.join(timeout=30)

    def _reader(self) -> sqlite3.Connection:
        """This thread's reading connection (threads never share one)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self._local.db = db
        return db

    # ----- games -----------------------------------------------------------------------------------
    def create(self, gid: str, record: dict[str, Any], tokens: list[str], watch: str, world: str = "",
               rules: str = "", board: str = "", waiting: str = "", options: dict[str, Any] | None = None) -> None:
        """Store a new game at version 1."""
        now = time.time()
        self._write(lambda db: db.execute(
            "INSERT INTO games (id, created, updated, record, tokens, watch, pending, version, world, rules, board, "
            "waiting, options) VALUES (?, ?, ?, ?, ?, ?, '{}', 1, ?, ?, ?, ?, ?)",
            (gid, now, now, json.dumps(record), json.dumps(tokens), watch, world, rules, board, waiting,
             json.dumps(options or {}))))

    def load(self, gid: str) -> Row | None:
        """A stored game, or None."""
        row = self._reader().execute(
            "SELECT id, record, tokens, watch, pending, version, world, rules, board, options FROM games WHERE id = ?",
            (gid,)).fetchone()
        if row is None:
            return None
        pending = {int(k): v for k, v in json.loads(row[4]).items()}
        return Row(row[0], json.loads(row[1]), json.loads(row[2]), row[3], pending, row[5], row[6], row[7], row[8],
                   json.loads(row[9] or "{}"))

    def save(self, gid: str, version: int, record: dict[str, Any], pending: dict[int, dict[str, Any]],
             waiting: str = "") -> int:
        """Write a game's new record over version `version`; return the new version (StaleWrite if the
        stored game is no longer at that version). It returns once the change is on disk."""
        text, pend = json.dumps(record), json.dumps({str(k): v for k, v in pending.items()})

        def write(db: sqlite3.Connection) -> None:
            cur = db.execute("UPDATE games SET record = ?, pending = ?, version = version + 1, updated = ?, "
                             "waiting = ? WHERE id = ? AND version = ?",
                             (text, pend, time.time(), waiting, gid, version))
            if cur.rowcount != 1:
                raise StaleWrite(gid)

        self._write(write)
        return version + 1

    def ids(self, waiting: tuple[str, ...] | None = None) -> list[str]:
        """Every stored game, oldest first; with `waiting`, those that wait for one of these."""
        if waiting is None:
            return [r[0] for r in self._reader().execute("SELECT id FROM games ORDER BY created")]
        marks = ",".join("?" * len(waiting))
        return [r[0] for r in self._reader().execute(
            f"SELECT id FROM games WHERE waiting IN ({marks}) ORDER BY created", waiting)]

    def count(self) -> int:
        """How many games are stored."""
        return int(self._reader().execute("SELECT count(*) FROM games").fetchone()[0])

    def legacy(self) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
        """Games stored by versions before worlds: (id, record, {file path -> text of that version's
        uploads table}), for the hub to give them a world."""
        db = self._reader()
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        uploads: dict[str, str] = {}
        if "files" in tables:  # the old table of uploads: a folder per digest, the file's name in it
            for digest, name, text in db.execute("SELECT hash, name, text FROM files"):
                uploads[str(self.folder / "files" / digest / name)] = text
        return [(gid, json.loads(rec), uploads)
                for gid, rec in db.execute("SELECT id, record FROM games WHERE world = ''").fetchall()]

    def adopt(self, gid: str, record: dict[str, Any], files: dict[str, str], rules: str, board: str,
              waiting: str) -> None:
        """Give a game of an older store its world (its files as that store kept them)."""
        digest = world_digest(files)
        rows = [(digest, p, t) for p, t in sorted(files.items())]

        def write(db: sqlite3.Connection) -> None:
            db.executemany("INSERT OR IGNORE INTO worlds VALUES (?, ?, ?)", rows)
            db.execute("UPDATE games SET record = ?, world = ?, rules = ?, board = ?, waiting = ? WHERE id = ? "
                       "AND world = ''", (json.dumps(record), digest, rules, board, waiting, gid))

        self._write(write)

    # ----- worlds: the files a game began with ------------------------------------------------------
    def add_world(self, files: dict[str, str]) -> str:
        """Keep a world's files (path inside the world -> text); return its digest. Its folder is laid out
        by `world_folder`."""
        digest = world_digest(files)
        rows = [(digest, p, t) for p, t in sorted(files.items())]
        self._write(lambda db: db.executemany("INSERT OR IGNORE INTO worlds VALUES (?, ?, ?)", rows))
        return digest

    def world_files(self, digest: str) -> dict[str, str]:
        """A stored world's files."""
        return dict(self._reader().execute("SELECT path, text FROM worlds WHERE digest = ?", (digest,)).fetchall())

    def world_text(self, digest: str, path: str) -> str | None:
        """One file of a stored world (what a game's file download serves: never a file read from disk)."""
        row = self._reader().execute("SELECT text FROM worlds WHERE digest = ? AND path = ?",
                                     (digest, path)).fetchone()
        return None if row is None else str(row[0])

    def drop_world(self, digest: str) -> None:
        """Forget a world no game uses (a refused create leaves nothing behind)."""
        def drop(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT 1 FROM games WHERE world = ? LIMIT 1", (digest,)).fetchone() is not None:
                return False
            db.execute("DELETE FROM worlds WHERE digest = ?", (digest,))
            return True

        if self._write(drop):
            shutil.rmtree(self.worlds / digest, ignore_errors=True)

    def world_folder(self, digest: str, files: dict[str, str] | None = None) -> Path:
        """The folder the engine reads a world from, laid out from the store when missing. Every file is
        written new (O_EXCL, no link followed) into folders made here; a folder that is not exactly what
        the store holds is laid out again."""
        if not all(c in "0123456789abcdef" for c in digest) or not digest:
            raise RebirthError.single("a damaged store: a world with a bad name")
        files = self.world_files(digest) if files is None else files
        target = self.worlds / digest
        if target.is_dir() and not target.is_symlink() and self._matches(target, files):
            return target
        staging = self.worlds / f".new-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        os.mkdir(staging, 0o700)
        try:
            for rel, text in files.items():
                parts = Path(rel).parts
                if not parts or any(x in ("", ".", "..") for x in parts) or Path(rel).is_absolute():
                    raise RebirthError.single(f"a damaged store: a world file named {rel!r}")
                folder = staging
                for part in parts[:-1]:
                    folder = folder / part
                    if not folder.exists():
                        os.mkdir(folder, 0o700)
                write_private(folder / parts[-1], text)
            if target.exists() or target.is_symlink():
                old = self.worlds / f".old-{time.monotonic_ns()}"
                os.rename(target, old)
                shutil.rmtree(old, ignore_errors=True)
            os.rename(staging, target)
        except FileExistsError:
            pass  # another thread laid the same world out meanwhile
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return target

    def _matches(self, folder: Path, files: dict[str, str]) -> bool:
        """Whether a laid-out world holds exactly its files (regular files, not links, the same text) and
        nothing else (a link planted beside them would be a way out of the world)."""
        expected = set(files) | {p.rsplit("/", i)[0] for p in files for i in range(1, p.count("/") + 1)}
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in (*dirnames, *filenames):
                rel = Path(dirpath, name).relative_to(folder).as_posix()
                if rel not in expected:
                    return False
        for rel, text in files.items():
            try:
                fd = os.open(folder / rel, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                return False
            with os.fdopen(fd, encoding="utf-8") as f:
                try:
                    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode) or f.read() != text:
                        return False
                except (OSError, UnicodeDecodeError):
                    return False
        return True
