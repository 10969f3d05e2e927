"""The one way generated code receives data: literals checked to be plain values."""

from __future__ import annotations


def literal(v: object) -> str:
    """Source for a plain value, after checking it is one: int, bool, str, None, or tuples or dicts of them.
    The one way generated code (here and in fast.py) receives data."""
    if isinstance(v, bool | int | str) or v is None:
        return repr(v)
    if isinstance(v, tuple):
        return "(" + "".join(literal(x) + ", " for x in v) + ")"
    if isinstance(v, dict):
        return "{" + "".join(f"{literal(k)}: {literal(x)}, " for k, x in v.items()) + "}"
    raise TypeError(f"not a literal: {type(v).__name__}")
