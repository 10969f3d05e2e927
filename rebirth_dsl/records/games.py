"""The one loader of every command that takes a game: a record (JSON), a position in the notation (a file, or
the notation itself on the command line), a bundled example by name, or `-` for standard input (either
form). A notation becomes a record that starts from it (`setup.position`), so every command replays the
same way whatever it was given."""

from __future__ import annotations

import sys
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import decode_text, read_bytes, shown
from rebirth_dsl.records.record import Replay, load_record, replay
from rebirth_dsl.records.resources import find

if TYPE_CHECKING:
    from typing import Any

    from rebirth_dsl.records.position import Position

MAX_GAME_BYTES = 16 * 1024 * 1024  # a record of the longest game is about 20 KB; stdin is refused past this


def is_notation(text: str) -> bool:
    """Whether a text reads as the notation rather than JSON: its first word (after comments) is `position`."""
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            return line.startswith("position") and (len(line) == 8 or not line[8].isalnum())
    return False


def game_data(arg: str) -> tuple[Path, Any, str | None]:
    """What a command's GAME argument names: the path its relative names are read from, the record's JSON
    data (None: read the file as a record), and the notation text when it was one."""
    if arg == "-":
        stream = getattr(sys.stdin, "buffer", None)  # a text stream in its place (a test, an embedding) has none
        raw = stream.read(MAX_GAME_BYTES + 1) if stream is not None else sys.stdin.read(MAX_GAME_BYTES + 1).encode()
        if len(raw) > MAX_GAME_BYTES:
            raise RebirthError.single(f"the game is over the limit of {MAX_GAME_BYTES:,} bytes", file="<stdin>")
        text = decode_text(raw, "<stdin>", "game")
        return Path("<stdin>"), _parse_text(text, "<stdin>"), text if is_notation(text) else None
    if is_notation(arg) and not _is_file(arg):  # the notation itself, typed or pasted as the argument
        return Path("<position>"), _parse_text(arg, "<position>"), arg
    path = find("examples", arg)
    if path.suffix == ".json":
        return path, None, None
    text = decode_text(read_bytes(path, "game"), shown(path), "game")
    # a file not named .json that is not JSON is read as the notation, so a slip in its first word is
    # reported by the notation's reader (`a position starts with ...`), not as bad JSON
    notation = is_notation(text) or not text.lstrip().startswith(("{", "["))
    return path, _parse_text(text, shown(path), notation), text if notation else None


def _is_file(arg: str) -> bool:
    """Whether an argument names an existing file (a notation's text is too long a name for some systems)."""
    try:
        return "\n" not in arg and Path(arg).is_file()
    except (OSError, ValueError):
        return False


def _parse_text(text: str, file: str, notation: bool | None = None) -> Any:
    """A record's JSON, or the record that starts from a notation (`notation`: which; None: as the text reads)."""
    if is_notation(text) if notation is None else notation:
        from rebirth_dsl.records.position import read_position, record_of

        return record_of(read_position(text, file), text)
    from rebirth_dsl.board.data import load_json

    return load_json(file, text.encode("utf-8"))


def load_game(arg: str, allow_paths: bool = False, rules: Path | None = None, board: Path | None = None,
              at: int | None = None, deal_seed: int | None = None) -> Replay:
    """A command's game, replayed (to move `at` when given): a record, a notation, an example or `-`. A
    position's unknown parts are dealt with `deal_seed` (what was dealt: `Replay.loaded.dealt`), or refused."""
    path, data, text = game_data(arg)
    # `<stdin>` and `<position>` are no files: their folder, for the names they give, is the current one
    loaded = load_record(path, data=data, allow_paths=allow_paths, rules=rules, board=board)
    loaded.deal_seed = deal_seed
    if text is not None:
        loaded.notation = True
    if at is not None:
        n = len(loaded.record.moves)
        if not 0 <= at <= n:
            raise RebirthError.single(f"--at {at}: the game has {n} moves; N is 0 (the start) to {n}",
                                      file=loaded.file)
    return replay(loaded, stop_at=at)


def position_for(arg: str, allow_paths: bool = False, rules: Path | None = None, board: Path | None = None,
                 at: int | None = None, viewer: str | None = None) -> tuple[Position, bool]:
    """`rebirth position`: the position a GAME argument gives (a record replayed to move `at`, or a notation
    checked against its ruleset and board, unknown parts and all), as `viewer` may see it; and whether it
    was given as a notation."""
    from rebirth_dsl.records.position import check_position, position_of, read_position, view_of

    path, data, text = game_data(arg)
    if text is not None and not at:
        loaded = load_record(path, data=data, allow_paths=allow_paths, rules=rules, board=board)
        pos = read_position(text, shown(path))
        check_position(pos, loaded.rs)
        return (pos if viewer is None else view_of(pos, viewer, loaded.rs.set_aside_visible)), True
    r = load_game(arg, allow_paths, rules, board, at)
    if r.error is not None:
        raise RebirthError([*r.error.diagnostics])
    rec = r.loaded.record
    seat = r.game.player_index(viewer) if viewer is not None else None
    return position_of(r.game, rec.rules, rec.board, seat), text is not None
