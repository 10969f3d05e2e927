"""The one way generated code receives data: literals checked to be plain values (Python's, and C's ints)."""

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


def c_int(v: object) -> str:
    """A C integer literal from a checked Python int (never any other type)."""
    if isinstance(v, bool):
        v = int(v)
    if type(v) is not int or not -(1 << 62) <= v <= (1 << 62):
        raise TypeError(f"not an int literal: {type(v).__name__}")
    return str(v) if v >= 0 else f"({v})"


def bitset(mask: list[bool] | tuple[bool, ...], words: int) -> list[int]:
    """A per-hex truth table as 64-bit words."""
    out = [0] * words
    for h, on in enumerate(mask):
        if on:
            out[h >> 6] |= 1 << (h & 63)
    return out
