"""The bundled games: rulesets, boards, schemas and example records, found by name.

Where they are is rebirth_dsl.bundle (the language's loader finds bundled names there too); this module
adds what the commands need: a name or a path as the user gave it, the defaults, the board of a ruleset.

A *name* is a bundled file's path inside its folder without the suffix: `scotland`, `ireland`,
`variants/korean-castles`. Everywhere a name is accepted, a file path works too.
"""

from __future__ import annotations

from pathlib import Path

from rebirth_dsl.bundle import FOLDERS as FOLDERS  # re-exported: where the bundled games are, found by name
from rebirth_dsl.bundle import bundled as bundled
from rebirth_dsl.bundle import bundled_file as bundled_file
from rebirth_dsl.bundle import games_root as games_root
from rebirth_dsl.errors import RebirthError, did_you_mean
from rebirth_dsl.files import read_bytes
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.limits import MAX_RULES_BYTES
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.lang.refs import board_of, board_problem, board_statement, find_base


def is_name(text: str) -> bool:
    """Whether text reads as a bundled name rather than a file path (no suffix, no leading dot or slash)."""
    return bool(text) and not text.endswith((".rules", ".json")) and not text.startswith((".", "/", "~"))


def find(folder: str, text: str) -> Path:
    """A bundled file by name, or a file path as given: the path when it names a file, else the bundled
    file of that name; an error that lists the names when neither exists."""
    if "\x00" in text:
        raise RebirthError.single("cannot read: the path contains a NUL byte", file=text.replace("\x00", "\\x00"))
    p = Path(text)
    if p.is_file() or not is_name(text):
        return p
    found = bundled_file(folder, text)
    if found is not None:
        return found
    names = bundled(folder)
    what = {"rules": "ruleset", "boards": "board", "schemas": "schema", "examples": "example",
            "boards/maps": "map"}[folder]
    dym = did_you_mean(text, list(names))
    raise RebirthError.single(f"{text}: no such file, and no bundled {what} of that name"
                              + (f"; did you mean {dym!r}?" if dym else "")
                              + f" (bundled: {', '.join(names) or 'none'}; `rebirth list` shows them)")


def name_of(folder: str, path: Path) -> str | None:
    """The bundled name of a path, if it is a bundled file."""
    try:
        resolved = path.resolve()
    except (OSError, ValueError):  # ValueError: a NUL in the path (a rules file's `extends "\x00"`)
        return None
    for name, p in bundled(folder).items():
        if p.resolve() == resolved:
            return name
    return None


def board_for(rules_path: Path | None, board: str | None = None, *, rules: A.Rules | None = None,
              base: Path | None = None, strict: bool = True) -> Path | None:
    """The board a ruleset plays on, for every command and the editor: `board` (a command's --board, a file
    or a bundled name) when given; else the ruleset's `board` statement, its own or the one it inherits;
    else the bundled board of its name or of the ruleset it extends. `rules`: the ruleset already loaded
    (the editor's buffer, merged over its base `base`). A `board` statement that names no board is an error
    at its span when `strict`; else None (`check` reports it with the other problems)."""
    if board:
        return find("boards", board)
    if rules is None and rules_path is not None:
        try:
            rules = load_rules(rules_path)
        except RebirthError:
            if strict:
                raise
    decl = board_statement(rules) if rules is not None else None
    if decl is not None:
        found = board_of(decl)
        if found is None and strict:
            problem = board_problem(decl)
            assert problem is not None  # no board found: the statement's problem says why
            raise RebirthError([problem])
        return found
    if base is not None or (rules is not None and rules.header.extends is None):
        # the rules as given (the editor's buffer) say what they extend, not the file on disk
        own = name_of("rules", rules_path) if rules_path is not None else None
        boards = bundled("boards")
        if own is not None and own in boards:
            return boards[own]
        return default_board(base) if base is not None else None
    return default_board(rules_path) if rules_path is not None else None


def default_board(rules: Path) -> Path | None:
    """The board a ruleset without a `board` statement plays on: the bundled board of the ruleset's own
    name, else that of the ruleset it extends, and so on (a variant of a game plays on that game's board)."""
    boards = bundled("boards")
    seen: set[Path] = set()
    path: Path | None = rules
    while path is not None and path not in seen:
        seen.add(path)
        name = name_of("rules", path)
        if name is not None and name in boards:
            return boards[name]
        path = _extends(path)
    return None


def _extends(rules: Path) -> Path | None:
    """The file a rules file extends, read from its header line (no parsing: this only picks a default)."""
    try:  # files.read_bytes: a FIFO or a device named by `extends` is refused, not waited on; a NUL is refused
        head = read_bytes(rules, "rules", MAX_RULES_BYTES)[:4096].decode("utf-8", "replace")
    except RebirthError:
        return None
    ext = header_extends(head)
    try:
        return None if ext is None else find_base(rules.parent, ext)
    except (OSError, ValueError):
        return None


def header_extends(text: str) -> str | None:
    """What a rules text's header line says it extends (None: nothing), read without parsing."""
    for line in text[:4096].splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("ruleset "):
            if " extends " not in line:
                return None
            return line.rsplit(" extends ", 1)[1].strip().strip('"')
    return None


def default_rules() -> Path:
    """The ruleset commands use when none is named: the one `rules/DEFAULT` names."""
    root = games_root() / "rules"
    try:
        name = (root / "DEFAULT").read_text(encoding="utf-8").split()[0]
    except (OSError, IndexError):
        names = list(bundled("rules"))
        if not names:
            raise RebirthError.single("no bundled ruleset: name a rules file with --rules") from None
        name = names[0]
    return find("rules", name)


def rules_and_board(rules: str | None, board: str | None) -> tuple[Path, Path]:
    """The rules and board files a command uses: each by name or path, else the defaults."""
    rules_path = find("rules", rules) if rules else default_rules()
    board_path = board_for(rules_path, board)
    if board_path is None:
        raise RebirthError.single(f"{rules_path}: no board goes with this ruleset; name one with --board, or in the "
                                  "ruleset with a `board` statement (`board NAME`, `board \"my-board.json\"`) "
                                  f"(bundled boards: {', '.join(bundled('boards')) or 'none'})")
    return rules_path, board_path
