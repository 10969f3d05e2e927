"""The bundled games: rulesets, boards, schemas and example records, found by name.

The repository's top-level `rules/`, `boards/`, `schemas/` and `examples/` are the single source. A
wheel carries a copy of them inside the package (`rebirth_dsl/games/`, written by the build); a source
checkout (an editable install) reads the top-level folders themselves. Either way they are found
beside the package's own files (its `__file__`), so nothing depends on the current folder.

A *name* is a bundled file's path inside its folder without the suffix: `scotland`, `ireland`,
`variants/korean-castles`. Everywhere a name is accepted, a file path works too.
"""

from __future__ import annotations

from pathlib import Path

from rebirth_dsl.errors import RebirthError, did_you_mean
from rebirth_dsl.files import read_bytes
from rebirth_dsl.lang.limits import MAX_RULES_BYTES

# folder -> the suffix of its files
FOLDERS = {"rules": ".rules", "boards": ".json", "schemas": ".json", "examples": ".json", "boards/maps": ".txt"}


def games_root() -> Path:
    """The folder that holds rules/, boards/, schemas/ and examples/."""
    # the package's folder from this file, as importlib.resources.files would find it for a package on disk,
    # without importing importlib.resources (and zipfile) on every command's start
    pkg = Path(__file__).resolve().parents[1]
    installed = pkg / "games"
    if installed.is_dir():
        return installed
    # a source checkout: the package sits beside the top-level folders
    checkout = pkg.parent
    if (checkout / "rules").is_dir() and (checkout / "boards").is_dir():
        return checkout
    raise RebirthError.single("the bundled games are missing from this installation of rebirth-dsl "
                              "(reinstall it from a wheel or a source checkout)")


def bundled(folder: str) -> dict[str, Path]:
    """Every bundled file of a folder by name, sorted: {name: path}."""
    root = games_root() / folder
    suffix = FOLDERS[folder]
    if not root.is_dir():
        return {}
    # rulesets and boards have variants in subfolders; an example's subfolders hold what it uses (its boards)
    found = root.glob(f"*{suffix}") if folder == "examples" else root.rglob(f"*{suffix}")
    out = {p.relative_to(root).with_suffix("").as_posix(): p for p in found if p.is_file()}
    return dict(sorted(out.items()))


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
    names = bundled(folder)
    if text in names:
        return names[text]
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


def default_board(rules: Path) -> Path | None:
    """The board a ruleset plays on when none is given: the bundled board of the ruleset's own name, else
    that of the ruleset it extends, and so on (a variant of a game plays on that game's board)."""
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
    return None if ext is None else rules.parent / ext


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
    if board:
        return rules_path, find("boards", board)
    board_path = default_board(rules_path)
    if board_path is None:
        raise RebirthError.single(f"{rules_path}: no bundled board goes with this ruleset; name one with --board "
                                  f"(bundled boards: {', '.join(bundled('boards')) or 'none'})")
    return rules_path, board_path
