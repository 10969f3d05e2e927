"""The web app's games on disk: one SQLite file in the data folder.

A game is stored as its record (rules, board, players, agents, setup, moves), never as a pickled state:
the record is what the engine replays, what a person downloads and what `rebirth eval` reads, so a
restart of the server resumes every game from it. Each change is one transaction that also bumps the
game's version; a write whose version is stale is refused, so two writers can never lose a move.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    record TEXT NOT NULL,               -- the game record as JSON
    tokens TEXT NOT NULL,               -- JSON list: each seat's secret
    watch TEXT NOT NULL,                -- a spectator's secret
    pending TEXT NOT NULL DEFAULT '{}', -- placements waiting for an ability's answer, by seat
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
    hash TEXT PRIMARY KEY,              -- of the name and the text: the folder the file is written to
    name TEXT NOT NULL,
    text TEXT NOT NULL
);
"""


@dataclass
class Row:
    """One stored game."""

    id: str
    record: dict[str, Any]
    tokens: list[str]
    watch: str
    pending: dict[int, dict[str, Any]]
    version: int


class StaleWrite(Exception):
    """The game changed since it was read: the write is refused (the caller reloads)."""


class Store:
    """Games and uploaded files in `folder/games.sqlite3`; uploaded files also under `folder/files/`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "games.sqlite3"
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")  # readers do not wait for a writer; a setting of the file
            db.executescript(SCHEMA)
        finally:
            db.close()

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection per use (threads never share one), committed on success, rolled back on error."""
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")  # one writer at a time: a version check and its write are one step
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()

    def create(self, gid: str, record: dict[str, Any], tokens: list[str], watch: str) -> None:
        """Store a new game at version 1."""
        now = time.time()
        with self._db() as db:
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, '{}', 1)",
                       (gid, now, now, json.dumps(record), json.dumps(tokens), watch))

    def load(self, gid: str) -> Row | None:
        """A stored game, or None."""
        with self._db() as db:
            row = db.execute("SELECT id, record, tokens, watch, pending, version FROM games WHERE id = ?",
                             (gid,)).fetchone()
        if row is None:
            return None
        pending = {int(k): v for k, v in json.loads(row[4]).items()}
        return Row(row[0], json.loads(row[1]), json.loads(row[2]), row[3], pending, row[5])

    def save(self, gid: str, version: int, record: dict[str, Any], pending: dict[int, dict[str, Any]]) -> int:
        """Write a game's new record over version `version`; return the new version (StaleWrite if the
        stored game is no longer at that version)."""
        with self._db() as db:
            cur = db.execute("UPDATE games SET record = ?, pending = ?, version = version + 1, updated = ? "
                             "WHERE id = ? AND version = ?",
                             (json.dumps(record), json.dumps({str(k): v for k, v in pending.items()}), time.time(),
                              gid, version))
            if cur.rowcount != 1:
                raise StaleWrite(gid)
        return version + 1

    def ids(self) -> list[str]:
        """Every stored game, oldest first."""
        with self._db() as db:
            return [r[0] for r in db.execute("SELECT id FROM games ORDER BY created")]

    def add_file(self, name: str, text: str) -> Path:
        """Keep an uploaded rules or board file; return where it is written (a folder per content)."""
        digest = hashlib.sha256(f"{name}\0{text}".encode()).hexdigest()[:16]
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO files VALUES (?, ?, ?)", (digest, name, text))
        return self._materialise(digest, name, text)

    def restore_files(self) -> None:
        """Write every stored file back to disk (the files folder may have been cleaned)."""
        with self._db() as db:
            rows = db.execute("SELECT hash, name, text FROM files").fetchall()
        for digest, name, text in rows:
            self._materialise(digest, name, text)

    def _materialise(self, digest: str, name: str, text: str) -> Path:
        folder = self.folder / "files" / digest
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        return target
