"""What every board command needs without pydantic: the board limits, hex geometry, safe JSON reading
and JSON Schema messages. The pydantic models (board.model) import this; `rebirth eval` with a board it
has validated before needs only this module (see board.view)."""

from __future__ import annotations

import re
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.errors import Diagnostic, RebirthError
from rebirth_dsl.files import decode_text, json_loads, read_text, shown

if TYPE_CHECKING:
    from typing import Any, Protocol

    class _HasHexes(Protocol):
        @property
        def hexes(self) -> Any: ...

# Axial neighbour offsets (Red Blob Games), in clockwise order starting east.
NEIGHBOUR_OFFSETS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"
# Limits no map comes near (Scotland: 223 hexes, q -5..11, r 0..22), so no board can exhaust the engine.
MAX_COORD = 1_000  # |q| and |r|
MAX_HEXES = 5_000
MAX_TEXT = 200  # characters of a name, area or tag (a title or notes: MAX_NOTES)
MAX_NOTES = 10_000
MAX_TAGS = 20  # tags on one hex
MAX_JSON_DEPTH = 64  # nesting of any JSON file read (a board nests 3 deep, a game record 4)
# the strings and brackets of a JSON text: compiled when a text has brackets enough to nest too deep (_nesting)
_JSON_TOKENS = r'"(?:[^"\\]|\\.)*"|[\[\]{}]'


class Geometry:
    """Hexes numbered 0..n-1 in board order, with neighbour tuples of ids."""

    def __init__(self, board: _HasHexes) -> None:
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


def _json_path(parts: Any) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def load_json(path: str | Path, data: bytes | None = None) -> Any:
    """Read a JSON file (or its bytes, already read by files.read_bytes), turning I/O and syntax failures
    into the project's error with line:col."""
    file = shown(path)
    # regular files only, size-limited, UTF-8 with the bad byte's place
    text = read_text(path, "JSON file") if data is None else decode_text(data, path, "JSON file")
    depth = _nesting(text)
    if depth > MAX_JSON_DEPTH:
        raise RebirthError.single(f"JSON nested {depth} deep; no board or game record nests more than "
                                  f"{MAX_JSON_DEPTH}", file=file, path="$")
    try:
        return json_loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # too many digits in a number; NaN; nesting json cannot follow
        import json  # json_loads has raised json's own error

        if not isinstance(e, json.JSONDecodeError):
            raise RebirthError.single(f"invalid JSON: {str(e)[:200]}", file=file, path="$") from None
        # no source line: a file that is not JSON at all (a secret given by mistake) is never echoed
        raise RebirthError(
            [Diagnostic(f"invalid JSON: {e.msg}", file=file, line=e.lineno, col=e.colno)]
        ) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _nesting(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings not counted), found
    without parsing it: json.loads recurses once per level and fails deep down."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    for m in re.finditer(_JSON_TOKENS, text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def schema_errors(schema: dict[str, Any], data: Any, file: str) -> list[Diagnostic]:
    """Every violation of a JSON Schema, each at its JSON path."""
    import jsonschema  # 66 ms to import (python -X importtime): only paid when a file is rejected

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted((leaf for e in validator.iter_errors(data) for leaf in _leaves(e)),
                    key=lambda e: [(isinstance(k, str), k) for k in e.absolute_path])
    seen = dict.fromkeys((_schema_message(e), _json_path(e.absolute_path)) for e in errors)  # once each, in order
    return [Diagnostic(message, file=file, path=path) for message, path in seen]


def _leaves(e: Any) -> list[Any]:
    """The violations under an `anyOf` that an optional field is (`X or null`): those of its one non-null
    branch, at their own deeper paths (`$.moves[4].hex: expected array, got string`), rather than the anyOf
    itself; a choice among several real shapes stays one violation at the choice."""
    if e.validator not in ("anyOf", "oneOf") or not e.context:
        return [e]
    branches = e.validator_value if isinstance(e.validator_value, list) else []
    real = [i for i, b in enumerate(branches) if not (isinstance(b, dict) and b.get("type") == "null")]
    if len(real) != 1:
        return [e]
    inner = [c for c in e.context if c.relative_schema_path and c.relative_schema_path[0] == real[0]]
    return [leaf for c in inner for leaf in _leaves(c)] or [e]


def _schema_message(e: Any) -> str:
    """A schema violation in words that name the rule broken, never the offending value (which may be the
    content of a file that was never meant to be read)."""
    v, want = e.validator, e.validator_value
    if v == "type":
        types = want if isinstance(want, list) else [want]
        return f"expected {' or '.join(types)}, got {_json_type(e.instance)}"
    if v == "required":
        missing = [k for k in want if isinstance(e.instance, dict) and k not in e.instance]
        return f"missing required field {', '.join(repr(k) for k in missing)}"
    if v == "additionalProperties":
        extra = [k for k in e.instance if k not in e.schema.get("properties", {})] if isinstance(e.instance, dict) else []
        names = ", ".join(repr(k[:40]) for k in extra[:5])
        return f"unknown field{'s' if len(extra) > 1 else ''} {names}"
    if v == "uniqueItems":
        return "the items must all be different"
    if v in ("minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "pattern", "enum", "const"):
        return f"breaks the schema's {v} ({str(want)[:60]})"
    return f"breaks the schema's {v} rule"


def _json_type(x: Any) -> str:
    if isinstance(x, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "integer", float: "number", type(None): "null"
            }.get(type(x), type(x).__name__)
