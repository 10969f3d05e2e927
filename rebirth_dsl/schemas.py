"""`python -m rebirth_dsl.schemas` writes schemas/*.schema.json from the pydantic models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schemas this project publishes, by file name."""
    from .board import board_json_schema
    from .record import game_json_schema

    return {"board.schema.json": board_json_schema(), "game.schema.json": game_json_schema()}


def main() -> None:
    """Write every schema beside the package, under schemas/."""
    from .record import write_text_atomic

    out = Path(__file__).resolve().parent.parent / "schemas"
    out.mkdir(exist_ok=True)
    for name, schema in schemas().items():
        write_text_atomic(out / name, json.dumps(schema, indent=2, sort_keys=True) + "\n")
        print(f"wrote {out / name}")


if __name__ == "__main__":
    main()
