"""Rule ids (`S-P2`, `I-R1`) cited in a rules file's comments: the ids a refusal or a scoring event cites."""

from __future__ import annotations

import re

_ID = re.compile(r"\b[A-Z]{1,3}-[A-Z]{0,3}[0-9]+\b")


def comment_ids(source: str) -> dict[int, tuple[str, ...]]:
    """Rule ids cited in each line's comment: {line number: ids}."""
    out: dict[int, tuple[str, ...]] = {}
    for n, line in enumerate(source.splitlines(), 1):
        start = line.find("#")
        if start < 0:
            continue  # most lines: no comment at all
        if '"' in line:  # a `#` inside a "string" starts no comment: walk the quotes
            in_str, start = False, -1
            for i, ch in enumerate(line):
                if ch == '"':
                    in_str = not in_str
                elif ch == "#" and not in_str:
                    start = i
                    break
            if start < 0:
                continue
        ids = tuple(_ID.findall(line[start:]))
        if ids:
            out[n] = ids
    return out


def join_ids(*parts: tuple[str, ...]) -> tuple[str, ...]:
    """Rule ids of several statements or steps, each once, in order (what an event cites)."""
    return tuple(dict.fromkeys(i for part in parts for i in part))
