"""A validated board as plain data, and the cache that validates each board's bytes only once.

`rebirth eval` starts a fresh process for one game; importing pydantic and building the board models
costs it about 100 ms, more than everything else it does. Boards are validated by the pydantic models
(board.model; jsonschema names every problem of a board they refuse) the first time their bytes are seen;
what the models produce is stored as JSON in the private data-only cache (rebirth_dsl.cache), keyed by
the SHA-256 of the file's bytes and of the validating code. Later runs on the same bytes read that data
back into the plain objects below without importing pydantic. A board is always handed to the engine
as these objects, fresh or cached, so both paths run the very same code.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING, __version__, cache
from rebirth_dsl.board.data import Geometry, load_json
from rebirth_dsl.files import read_bytes, shown

if TYPE_CHECKING:
    from typing import Any


class HexView:
    """One validated hex: the attributes of board.model.Hex."""

    __slots__ = ("q", "r", "kind", "name", "area", "tags", "ability")

    def __init__(self, q: int, r: int, kind: str, name: str | None, area: str | None, tags: list[str],
                 ability: str | None) -> None:
        self.q, self.r, self.kind, self.name, self.area, self.tags, self.ability = q, r, kind, name, area, tags, ability

    def __repr__(self) -> str:
        return f"HexView(q={self.q}, r={self.r}, kind={self.kind!r}, name={self.name!r})"


class BoardView:
    """A validated board: the attributes of board.model.Board (name, title, notes, hexes, geometry)."""

    __slots__ = ("name", "title", "notes", "hexes", "digest", "_geometry")

    def __init__(self, name: str, title: str, notes: str, hexes: list[HexView], digest: str = "") -> None:
        self.name, self.title, self.notes, self.hexes = name, title, notes, hexes
        self.digest = digest  # the cache key of the bytes it was validated from: later stages key on it
        self._geometry: Geometry | None = None

    @property
    def geometry(self) -> Geometry:
        """Integer hex ids and neighbour tables, computed once."""
        if self._geometry is None:
            self._geometry = Geometry(self)
        return self._geometry

    @classmethod
    def of(cls, dump: dict[str, Any], digest: str = "") -> BoardView:
        """The view of a board model's `model_dump()` (fresh, or read back from the cache)."""
        return cls(dump["name"], dump["title"], dump["notes"], [HexView(**h) for h in dump["hexes"]], digest)

    def __repr__(self) -> str:
        return f"BoardView(name={self.name!r}, {len(self.hexes)} hexes)"


@lru_cache(maxsize=1)
def _validator_code() -> bytes:
    """What decides whether a board is valid: the models, the checks beside them, pydantic's version."""
    here = Path(__file__).resolve().parent  # not importlib.resources: see lang.parser._HERE
    return cache.code_of([here / f for f in ("model.py", "data.py", "view.py")], package="pydantic")


def load_board_view(path: str | Path) -> BoardView:
    """Load and validate a board file (validation skipped for bytes the cache says were valid before)."""
    raw = read_bytes(path, "JSON file")
    key = cache.digest(__version__, _validator_code(), raw)
    stored = cache.load("board", key)
    if stored is not None:
        try:
            return BoardView.of(stored, key)
        except (TypeError, KeyError, AttributeError):  # not what this code writes: a miss, validate afresh
            pass
    from rebirth_dsl.board.model import validate_board_data  # pydantic: only for bytes not seen before

    dump = validate_board_data(load_json(path, raw), file=shown(path)).model_dump()
    cache.store("board", key, dump)
    return BoardView.of(dump, key)
