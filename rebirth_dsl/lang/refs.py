"""What a rules file names outside itself, found one way for every command, the editor and the web: the
ruleset it extends (`extends "scotland"`, `extends "../mine.rules"`) and the board it plays on
(`board scotland`, `board "wells.json"`).

A path is relative to the folder of the file that wrote it (never the current folder); a name without a
path is a bundled game, so `extends "scotland"` and `extends "scotland.rules"` work from any folder. A file
beside the rules file wins over a bundled game of the same name: an author's own copy is the one meant.
"""

from __future__ import annotations

import os
from pathlib import Path

from rebirth_dsl.bundle import bundled
from rebirth_dsl.errors import Diagnostic, did_you_mean
from rebirth_dsl.files import shown
from rebirth_dsl.lang import ast as A


def bundled_name(text: str, suffix: str) -> str | None:
    """The bundled name `text` reads as (`scotland`, `scotland.rules`, `variants/korean-castles`), or None
    when it reads as a path (a leading dot, slash or tilde, a `..`) or names nothing bundled."""
    name = text.removesuffix(suffix)
    if not name or name.startswith((".", "/", "~", "\\")) or ".." in name.split("/") or "\x00" in name:
        return None
    return name if name in bundled("rules" if suffix == ".rules" else "boards") else None


def find_base(folder: Path, ext: str, root: Path | None = None) -> Path | None:
    """The file `extends EXT` names from a rules file in `folder`, or None when there is none: the path
    relative to the folder (or absolute) when it exists, with `.rules` added when it has no suffix; else the
    bundled ruleset of that name. With `root` (a web world: the bundled rulesets are pinned inside it) the
    bundled name is the world's copy. May raise OSError or ValueError (a name too long, a NUL)."""
    p = folder / ext
    if p.exists():
        return p
    if not ext.endswith(".rules"):
        q = folder / f"{ext}.rules"
        if q.exists():
            return q
    name = bundled_name(ext, ".rules")
    if name is None:
        return None
    if root is not None:
        pinned = root / f"{name}.rules"
        return pinned if pinned.exists() else None
    return bundled("rules")[name]


def base_not_found(folder: Path, ext: str, root: Path | None = None) -> str:
    """Why `extends EXT` finds nothing, with the bundled names it may mean."""
    names = list(bundled("rules"))
    dym = did_you_mean(ext.removesuffix(".rules"), names)
    where = "beside it" if root is not None else f"in {shown(os.path.abspath(folder))}"
    return (f"extended ruleset {shown(ext)!r} not found (looked {where}), and no bundled ruleset has that name"
            + (f"; did you mean {dym!r}?" if dym else "") + f" (bundled rulesets: {', '.join(names) or 'none'})")


def inside(root: Path, folder: Path, ext: str) -> bool:
    """Whether `extends EXT` from a file in `folder` stays inside `root`, by its words and after links."""
    if not ext or "\x00" in ext or Path(ext).is_absolute() or ext.startswith("~"):
        return False
    try:
        top = root.resolve()
        lexical = Path(os.path.normpath(folder.resolve() / ext))
        target = (find_base(folder, ext, root) or folder / ext).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return lexical.is_relative_to(top) and target.is_relative_to(top)


# ----- the board a ruleset names ---------------------------------------------------------------------
def board_statement(rules: A.Rules) -> A.BoardDecl | None:
    """The ruleset's `board` statement (after merging, its own or the one it inherits), or None."""
    found = [s for s in rules.statements if isinstance(s, A.BoardDecl)]
    return found[-1] if found else None


def with_folder(rules: A.Rules, folder: Path) -> A.Rules:
    """The rules with their `board` statements told the folder they were read from (a path in them is
    relative to it)."""
    if not any(isinstance(s, A.BoardDecl) for s in rules.statements):
        return rules
    where = os.fspath(folder)
    statements = tuple(A.BoardDecl(s.ref, s.named, s.span, where, s.key) if isinstance(s, A.BoardDecl) else s
                       for s in rules.statements)
    return A.Rules(rules.header, statements, rules.file, rules.source, rules.sources, rules.inherited_categories)


def board_of(decl: A.BoardDecl) -> Path | None:
    """The board file a `board` statement names, or None when there is none: a bundled board by name; a
    path relative to the rules file that wrote it (a quoted name without a suffix may be a bundled one)."""
    if not decl.named:
        try:
            p = Path(decl.folder or ".") / decl.ref
            if p.is_file():
                return p
        except (OSError, ValueError):
            return None
    name = bundled_name(decl.ref, ".json") if decl.named or not decl.ref.endswith(".json") else None
    return bundled("boards")[name] if name is not None else None


def board_problem(decl: A.BoardDecl) -> Diagnostic | None:
    """What is wrong with a `board` statement (it names no board there is), at its span; None when fine."""
    if board_of(decl) is not None:
        return None
    names = list(bundled("boards"))
    sp = decl.span
    if decl.named:
        dym = did_you_mean(decl.ref, names)
        msg = f"no bundled board is named {decl.ref!r}" + (f"; did you mean {dym!r}?" if dym else "")
        hint = f"bundled boards: {', '.join(names) or 'none'}; a board file is named by a quoted path: board \"my.json\""
    else:
        msg = f"board file {shown(decl.ref)!r} not found in {shown(decl.folder or '.')}"
        hint = "a board file's path is relative to this rules file; a bundled board is named bare: " + \
               (f"board {names[0]}" if names else "board NAME")
    return Diagnostic(msg, file=sp.file, line=sp.line, col=sp.col, end_line=sp.end_line, end_col=sp.end_col,
                      hint=hint, code="unknown-board")
