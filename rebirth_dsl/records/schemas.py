"""`python -m rebirth_dsl.records.schemas` writes schemas/*.schema.json from the pydantic models."""

from __future__ import annotations

import json
from typing import Any

from rebirth_dsl.board.model import board_json_schema
from rebirth_dsl.records.models import game_json_schema
from rebirth_dsl.records.record import write_text_atomic
from rebirth_dsl.records.resources import games_root


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schemas this project publishes, by file name."""
    return {"board.schema.json": board_json_schema(), "game.schema.json": game_json_schema()}


def main() -> None:
    """Write every schema beside the package, under schemas/."""
    out = games_root() / "schemas"
    out.mkdir(exist_ok=True)
    for name, schema in schemas().items():
        write_text_atomic(out / name, json.dumps(schema, indent=2, sort_keys=True) + "\n")
        print(f"wrote {out / name}")


if __name__ == "__main__":
    main()
