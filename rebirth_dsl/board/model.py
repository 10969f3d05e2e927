"""Boards: JSON validated by a JSON Schema, loaded into pydantic models, with axial hex geometry."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rebirth_dsl.board.data import (  # noqa: F401 - re-exported: the board's public names stay here
    IDENT,
    MAX_COORD,
    MAX_HEXES,
    MAX_JSON_DEPTH,
    MAX_NOTES,
    MAX_TAGS,
    MAX_TEXT,
    NEIGHBOUR_OFFSETS,
    Geometry,
    load_json,
    schema_errors,
)
from rebirth_dsl.errors import Diagnostic, RebirthError
from rebirth_dsl.files import shown


class Hex(BaseModel):
    """One hex of the map. `kind` and `tags` are names the rules file declares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q: int = Field(ge=-MAX_COORD, le=MAX_COORD, description="axial column")
    r: int = Field(ge=-MAX_COORD, le=MAX_COORD, description="axial row")
    kind: str = Field(pattern=IDENT, max_length=MAX_TEXT, description="hex kind, declared by the rules (plain, food, castle, ...)")
    name: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT, description="name of a landmark (castle, cathedral, tower)")
    area: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT, description="the settlement area this hex belongs to")
    tags: list[Annotated[str, Field(max_length=MAX_TEXT)]] = Field(default_factory=list, max_length=MAX_TAGS, description="marks on the hex: harbour, clover, neutral, ...")
    ability: str | None = Field(default=None, pattern=IDENT, max_length=MAX_TEXT, description="ability printed on a landmark, a name the rules declare with `ability`")


class Board(BaseModel):
    """A map: a name and its hexes."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=IDENT, max_length=MAX_TEXT)
    title: str = Field(default="", max_length=MAX_TEXT)
    notes: str = Field(default="", max_length=MAX_NOTES)
    hexes: list[Hex] = Field(min_length=1, max_length=MAX_HEXES)

    @cached_property
    def geometry(self) -> Geometry:
        """Integer hex ids and neighbour tables, computed once."""
        return Geometry(self)


def board_json_schema() -> dict[str, Any]:
    """The board JSON Schema, exported from the models (kept equal to schemas/board.schema.json by a test)."""
    schema = Board.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://rebirth-dsl.invalid/schemas/board.schema.json"
    return schema


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
    return validate_board_data(load_json(path), file=shown(path))
