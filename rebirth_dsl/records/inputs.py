"""The files a command reads, directly or not: a rules file and every file its `extends` chain names, and the
rules and board files a game record names. A command's -o is checked against all of them (files.check_output),
so writing a result never replaces a file the same command read through a variant or a record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import MAX_EXTENDS_DEPTH, load_rules
from rebirth_dsl.lang.refs import find_base
from rebirth_dsl.records.record import resolve

# what finding a file can raise besides a RebirthError: a name too long, a link loop, a NUL in a path
_LOOKUP_ERRORS = (RebirthError, OSError, ValueError, RuntimeError, RecursionError)


def rules_files(path: str | Path) -> list[Path]:
    """The rules file and each file it extends, nearest first, found as lang.parser.load_rules finds them."""
    p = Path(path)
    out = [p]
    # a chain that cannot be loaded stops here: the command's own load_rules then fails before writing anything
    try:
        for _ in range(MAX_EXTENDS_DEPTH + 1):
            ext = load_rules(p).header.extends  # the merged ruleset keeps the header of the file named
            if ext is None:
                break
            found = find_base(p.parent, ext)
            if found is None:
                break
            p = found.resolve()
            out.append(p)
    except _LOOKUP_ERRORS:
        pass
    return out


def record_files(path: str | Path, data: Any, allow_paths: bool = False, rules: Path | None = None,
                 board: Path | None = None) -> list[Path]:
    """The files replaying a record reads: the record, its rules file with its extends chain and its board
    (`rules`/`board` replace the record's, as in records.record.load_record). A reference position's record
    (its `record` object) counts as the record; a board file has no further files."""
    out = [Path(path)]
    if isinstance(data, dict) and "moves" not in data and "rules" not in data and isinstance(data.get("record"), dict):
        data = data["record"]
    if not isinstance(data, dict) or "hexes" in data:
        return out
    base = Path(path).parent
    for override, key, folder in ((rules, "rules", "rules"), (board, "board", "boards")):
        named = override
        if named is None and isinstance(data.get(key), str):
            try:
                named = resolve(base, data[key], folder, allow_paths)
            except _LOOKUP_ERRORS:
                continue  # refused or unknown: the command's own load reports it before writing anything
        if named is not None:
            out.extend(rules_files(named) if key == "rules" else [named])
    return out
