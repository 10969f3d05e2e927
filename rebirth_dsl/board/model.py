"""Boards: JSON validated by a JSON Schema, loaded into pydantic models, with axial hex geometry."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rebirth_dsl.errors import Diagnostic, RebirthError

# Axial neighbour offsets (Red Blob Games), in clockwise order starting east.
NEIGHBOUR_OFFSETS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"


class Hex(BaseModel):
    """One hex of the map. `kind` and `tags` are names the rules file declares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q: int = Field(description="axial column")
    r: int = Field(description="axial row")
    kind: str = Field(pattern=IDENT, description="hex kind, declared by the rules (plain, food, castle, ...)")
    name: str | None = Field(default=None, min_length=1, description="name of a landmark (castle, cathedral, tower)")
    area: str | None = Field(default=None, min_length=1, description="the settlement area this hex belongs to")
    tags: list[str] = Field(default_factory=list, description="marks on the hex: harbour, clover, neutral, ...")
    ability: str | None = Field(default=None, pattern=IDENT, description="ability printed on a landmark (Ireland towers)")


class Board(BaseModel):
    """A map: a name and its hexes."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=IDENT)
    title: str = ""
    notes: str = ""
    hexes: list[Hex] = Field(min_length=1)

    @cached_property
    def geometry(self) -> Geometry:
        """Integer hex ids and neighbour tables, computed once."""
        return Geometry(self)


class Geometry:
    """Hexes numbered 0..n-1 in board order, with neighbour tuples of ids."""

    def __init__(self, board: Board) -> None:
        self.coords: list[tuple[int, int]] = [(h.q, h.r) for h in board.hexes]
        self.index: dict[tuple[int, int], int] = {c: i for i, c in enumerate(self.coords)}
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                self.index[(q + dq, r + dr)]
                for dq, dr in NEIGHBOUR_OFFSETS
                if (q + dq, r + dr) in self.index
            )
            for q, r in self.coords
        )


def board_json_schema() -> dict[str, Any]:
    """The board JSON Schema, exported from the models (kept equal to schemas/board.schema.json by a test)."""
    schema = Board.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://rebirth-dsl.invalid/schemas/board.schema.json"
    return schema


def _json_path(parts: Any) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def load_json(path: str | Path) -> Any:
    """Read a JSON file, turning I/O and syntax failures into the project's error with line:col."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RebirthError.single(f"cannot read: {e.strerror or e}", file=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        lines = text.splitlines()
        src = lines[e.lineno - 1] if 0 < e.lineno <= len(lines) else None
        raise RebirthError(
            [Diagnostic(f"invalid JSON: {e.msg}", file=str(path), line=e.lineno, col=e.colno, source_line=src)]
        ) from None


def schema_errors(schema: dict[str, Any], data: Any, file: str) -> list[Diagnostic]:
    """Every violation of a JSON Schema, each at its JSON path."""
    import jsonschema  # 66 ms to import (python -X importtime): only paid when a file is rejected

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    return [Diagnostic(e.message, file=file, path=_json_path(e.absolute_path)) for e in errors]


def validate_board_data(data: Any, file: str = "") -> Board:
    """Validate raw JSON against the schema, then the cross-hex facts a schema cannot state.

    The schema is exported from the models, so the models accept exactly what it accepts: valid
    boards take the fast path through pydantic, and anything it rejects is reported by jsonschema,
    every error at its JSON path."""
    try:
        board = Board.model_validate(data)
    except ValidationError:
        raise RebirthError(schema_errors(board_json_schema(), data, file)
                           or [Diagnostic("not a valid board", file=file, path="$")]) from None
    problems: list[Diagnostic] = []
    seen: dict[tuple[int, int], int] = {}
    names: dict[str, int] = {}
    for i, h in enumerate(board.hexes):
        if (h.q, h.r) in seen:
            problems.append(
                Diagnostic(f"hex ({h.q}, {h.r}) is listed twice (first at $.hexes[{seen[(h.q, h.r)]}])",
                           file=file, path=f"$.hexes[{i}]")
            )
        seen.setdefault((h.q, h.r), i)
        if h.name is not None:
            if h.name in names:
                problems.append(
                    Diagnostic(f"name {h.name!r} is used twice (first at $.hexes[{names[h.name]}])",
                               file=file, path=f"$.hexes[{i}].name")
                )
            names.setdefault(h.name, i)
    if problems:
        raise RebirthError(problems)
    return board


def load_board(path: str | Path) -> Board:
    """Load and validate a board file."""
    return validate_board_data(load_json(path), file=str(path))
