"""A validated game record as plain data, and the cache that validates each record's bytes only once.

As with boards (board.view): the pydantic models (records.models) validate a record the first time its
bytes are seen, and what they produce (`model_dump()`, defaults filled in) is kept as JSON in the private
data-only cache, keyed by the SHA-256 of the bytes and of the validating code, so `rebirth eval` of a
record it has read before does not import pydantic. Every record reaches the engine as these objects.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING, __version__, cache
from rebirth_dsl.board.data import load_json
from rebirth_dsl.files import read_bytes

if TYPE_CHECKING:
    from typing import Any


class MoveView:
    """One move: the attributes of records.models.MoveRecord (variations: each a line of MoveViews)."""

    __slots__ = ("player", "tile", "hex", "choices", "comment", "variations")

    def __init__(self, player: str, tile: str, hex: list[int] | tuple[int, int] | None,  # noqa: A002 - the field's name
                 choices: dict[str, Any], comment: str | None = None,
                 variations: list[list[Any]] | None = None) -> None:
        self.player, self.tile, self.choices, self.comment = player, tile, choices, comment
        self.hex = None if hex is None else (hex[0], hex[1])
        self.variations: list[list[MoveView]] | None = None if variations is None else [
            [m if isinstance(m, MoveView) else MoveView(**m) for m in line] for line in variations]

    def data(self) -> dict[str, Any]:
        """The move as a record writes it: MoveRecord's `model_dump(exclude_defaults=True)`, the hex a list."""
        out: dict[str, Any] = {"player": self.player, "tile": self.tile, "hex": list(self.hex) if self.hex else None}
        if self.choices:
            import copy  # only when a record's data is asked for (`copy` looks for Jython's modules at import)

            out["choices"] = copy.deepcopy(self.choices)
        if self.comment is not None:
            out["comment"] = self.comment
        if self.variations is not None:
            out["variations"] = [[m.data() for m in line] for line in self.variations]
        return out


class SetupView:
    """What the game starts from: the attributes of records.models.SetupRecord."""

    __slots__ = ("seed", "set_aside", "supply", "decks", "missions", "scores", "missions_held", "position")

    def __init__(self, seed: int | None, set_aside: dict[str, list[str]] | None, supply: dict[str, list[str]] | None,
                 decks: dict[str, list[str]] | None, missions: list[str] | None, scores: dict[str, int] | None,
                 missions_held: dict[str, list[str]] | None, position: str | None = None) -> None:
        self.seed, self.set_aside, self.supply, self.decks = seed, set_aside, supply, decks
        self.missions, self.scores, self.missions_held, self.position = missions, scores, missions_held, position


class RecordView:
    """A validated game record: the attributes of records.models.GameRecord."""

    __slots__ = ("rules", "board", "players", "setup", "moves", "scenario", "over", "agents", "comment", "meta")

    def __init__(self, rules: str, board: str, players: list[str], setup: SetupView, moves: list[MoveView],
                 scenario: bool, over: bool, agents: list[str] | None, comment: str | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        self.rules, self.board, self.players, self.setup, self.moves = rules, board, players, setup, moves
        self.scenario, self.over, self.agents, self.comment, self.meta = scenario, over, agents, comment, meta

    @classmethod
    def of(cls, dump: dict[str, Any]) -> RecordView:
        """The view of a GameRecord's `model_dump()` (fresh, or read back from the cache)."""
        d = dict(dump)
        d["setup"] = SetupView(**d["setup"])
        d["moves"] = [MoveView(**m) for m in d["moves"]]
        return cls(**d)


@lru_cache(maxsize=1)
def _validator_code() -> bytes:
    """What decides whether a record is valid: its models, the JSON reader, pydantic's version."""
    here = Path(__file__).resolve().parent  # not importlib.resources: see lang.parser._HERE
    return cache.code_of([here / "models.py", here / "view.py", here.parent / "board" / "data.py"], package="pydantic")


def record_view(path: str | Path, file: str, data: Any = None) -> RecordView:
    """Validate a record file (or JSON data already read, never cached) into a RecordView; a file's bytes
    that validated before are not validated again."""
    from_file = data is None
    raw = read_bytes(path, "JSON file") if from_file else b""
    key = cache.digest(__version__, _validator_code(), raw) if from_file else ""
    if from_file:
        stored = cache.load("record", key)
        if stored is not None:
            try:
                return RecordView.of(stored)
            except (TypeError, KeyError, AttributeError, IndexError):  # not what this code writes: validate afresh
                pass
        data = load_json(path, raw)
    from rebirth_dsl.records.models import parse_record  # pydantic: only for a record not validated before

    dump = parse_record(data, file).model_dump()
    if from_file:
        cache.store("record", key, dump)
    return RecordView.of(dump)
