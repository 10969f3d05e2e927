"""The game-record models: what a valid record is (the JSON Schema of records is exported from them).

Only a record whose bytes were not validated before imports these (pydantic); see records.view.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from rebirth_dsl.board.data import schema_errors
from rebirth_dsl.errors import Diagnostic, RebirthError


class MoveRecord(BaseModel):
    """One move: who, which tile, where (null: passed under the pass rule), and any choices; a comment on it,
    and variations: other lines that could have been played instead of it, each a list of moves from the
    position before it (their moves may carry comments and variations of their own)."""

    model_config = ConfigDict(extra="forbid")

    player: StrictStr
    tile: StrictStr = Field(description="a tile kind, or KIND:VALUE for a kind with a value (settlement:3)")
    hex: tuple[StrictInt, StrictInt] | None = Field(description="axial [q, r], or null for a passed tile")
    choices: dict[str, Any] = Field(default_factory=dict, description="answers to abilities that ask the player")
    comment: StrictStr | None = Field(default=None, description="a remark on this move (kept by replay, shown by "
                                      "`eval --explain`)")
    variations: list[list[MoveRecord]] | None = Field(default=None, description="other lines instead of this move, "
                                                      "each played from the position before it")


class MetaRecord(BaseModel):
    """What a game record says about the game: where and when it was played, who the players are."""

    model_config = ConfigDict(extra="forbid")

    event: StrictStr | None = None
    site: StrictStr | None = None
    date: StrictStr | None = Field(default=None, pattern=r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$",
                                   description="YYYY, YYYY-MM or YYYY-MM-DD")
    round: StrictStr | None = None
    names: dict[str, StrictStr] | None = Field(default=None, description="each player's full name, by seat name")
    annotator: StrictStr | None = None
    tags: list[StrictStr] | None = None


class SetupRecord(BaseModel):
    """What the game starts from; what is not given is drawn from `seed`."""

    model_config = ConfigDict(extra="forbid")

    seed: StrictInt | None = None
    set_aside: dict[str, list[str]] | None = None
    supply: dict[str, list[str]] | None = Field(default=None, description="per player, in draw order")
    decks: dict[str, list[str]] | None = Field(default=None, description="per deck, top card first")
    missions: list[str] | None = Field(default=None, description="shorthand: the order of the ruleset's first deck")
    scores: dict[str, StrictInt] | None = Field(default=None, description="scenario only: starting track points")
    missions_held: dict[str, list[str]] | None = Field(default=None, description="scenario only: cards in hand")
    position: StrictStr | None = Field(default=None, description="a position in the notation (docs/notation.md): "
                                       "the game starts there; nothing else of the setup is given with it")


class GameRecord(BaseModel):
    """A game record: rules, board, players in seat order, setup, moves."""

    model_config = ConfigDict(extra="forbid")

    rules: StrictStr = Field(description="a bundled ruleset by name, or a .rules file relative to the record")
    board: StrictStr = Field(description="a bundled board by name, or a .json file relative to the record")
    players: list[StrictStr] = Field(min_length=1, json_schema_extra={"uniqueItems": True})
    setup: SetupRecord = Field(default_factory=SetupRecord)
    moves: list[MoveRecord] = Field(default_factory=list)
    scenario: StrictBool = Field(default=False, description="free order: no turn-order or supply checks")
    over: StrictBool = Field(default=False, description="scenario only: score it as a finished game")
    agents: list[StrictStr] | None = Field(default=None, description="informational: who played each seat")
    comment: StrictStr | None = Field(default=None, description="a remark on the whole game")
    meta: MetaRecord | None = Field(default=None, description="the event, date, players' names and tags")

    @field_validator("players")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("players must have different names")
        return v


def game_json_schema() -> dict[str, Any]:
    """The game-record JSON Schema, exported from the models."""
    schema = GameRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://rebirth-dsl.invalid/schemas/game.schema.json"
    return schema


def parse_record(data: Any, file: str = "") -> GameRecord:
    """Validate raw JSON against the schema; every problem names its JSON path (see validate_board_data)."""
    try:
        return GameRecord.model_validate(data)
    except ValidationError:
        raise RebirthError(schema_errors(game_json_schema(), data, file)
                           or [Diagnostic("not a valid game record", file=file, path="$")]) from None
