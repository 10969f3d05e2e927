"""Where the bundled games are: rulesets, boards, schemas and example records, by name.

(A module of its own name, not `games`: a wheel carries the games themselves in the folder rebirth_dsl/games/.)

The repository's top-level `rules/`, `boards/`, `schemas/` and `examples/` are the single source. A
wheel carries a copy of them inside the package (`rebirth_dsl/games/`, written by the build); a source
checkout (an editable install) reads the top-level folders themselves. Either way they are found
beside the package's own files (its `__file__`), so nothing depends on the current folder.

This sits below the language: a rules file may name a bundled ruleset (`extends "scotland"`) or a bundled
board (`board scotland`), so the loader and the checker find them here (records.resources builds on it).
"""

from __future__ import annotations

import os
from pathlib import Path

from rebirth_dsl.errors import RebirthError

# folder -> the suffix of its files
FOLDERS = {"rules": ".rules", "boards": ".json", "schemas": ".json", "examples": ".json", "boards/maps": ".txt"}


def games_root() -> Path:
    """The folder that holds rules/, boards/, schemas/ and examples/."""
    # the package's folder from this file, as importlib.resources.files would find it for a package on disk,
    # without importing importlib.resources (and zipfile) on every command's start
    pkg = Path(__file__).resolve().parent
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


def bundled_file(folder: str, name: str) -> Path | None:
    """`bundled(folder).get(name)`: a name at the top of the folder (`scotland`) is looked up in its listing
    alone, without walking the subfolders of variants for every name (a warm `rebirth eval` names one)."""
    root = games_root() / folder
    file = f"{name}{FOLDERS[folder]}"
    if "/" in name or name in (".", "..") or not root.is_dir():  # a variant's name, or none: the walk decides
        return bundled(folder).get(name)
    p = root / file
    return p if file in os.listdir(root) and p.is_file() else None
