"""`rebirth new variant NAME --extends BASE`: the files a variant author starts from, written in their own
folder. The starter names its base and its board by the bundled names, so it works from any folder with no
path into the installation, and it checks clean as written (tests/surfaces/test_variant_author.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import shown, write_text_atomic
from rebirth_dsl.lang.fmt import format_rules
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.lang.refs import bundled_name
from rebirth_dsl.records.resources import board_for, find, name_of


def ruleset_name(stem: str) -> str:
    """A file's stem as a ruleset NAME: letters, digits and `_`, not starting with a digit."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "variant"
    return f"_{name}" if name[0].isdigit() else name


def variant_files(name: str, base: str, folder: Path) -> list[tuple[Path, str]]:
    """Each file a new variant starts with, and its text: NAME.rules, which extends `base` (a bundled
    ruleset by name, or a rules file) and names its board, and NAME.tests, which plays the base's reference
    positions (where it has a tests file) against the variant; `new_variant` writes them all or none."""
    target = folder / (name if name.endswith(".rules") else f"{name}.rules")
    base_path = find("rules", base)
    bundled = bundled_name(base, ".rules") or name_of("rules", base_path)
    if bundled is not None:
        extends = bundled
    else:  # a file of the author's: by its path from the new file, as `extends` reads it
        extends = Path(os.path.relpath(base_path.resolve(), target.parent.resolve())).as_posix()
    base_rules = load_rules(base_path)
    title = base_rules.header.title or base_rules.header.name
    board = board_for(base_path)
    board_line = ""
    if board is not None:
        board_name = name_of("boards", board)
        if board_name is None:
            ref = '"' + Path(os.path.relpath(board.resolve(), target.parent.resolve())).as_posix() + '"'
        else:
            ref = board_name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", board_name) else f'"{board_name}"'
        board_line = (f"# the board it plays on (or a board file beside this one: board \"{target.stem}.json\")\n"
                      f"board {ref}\n")
    stem = target.name
    text = f"""# {target.stem}: a variant of {title}.
#
#   rebirth check {stem}                     finds the problems, each at its line
#   rebirth rules {stem} --diff {extends}    says in English what this file changes
#   rebirth play --rules {stem} --agents human,greedy    plays it against the computer
#
# Every statement of {extends} holds, except those this file replaces, adds or removes: a statement
# of the same kind replaces the base's (docs/language.md, "Extending a ruleset"; `rebirth rules {extends}`
# lists them). Cite the rule each statement encodes in a comment, as the bundled rules do.

ruleset {ruleset_name(target.stem)} "{target.stem[:1].upper() + target.stem[1:]} (a variant of {title})" extends "{extends}"
{board_line}
# First changes to try: remove the `#` in front of one.
#
# Completed areas of 3 hexes pay 9 and 4 (a block's items replace the base's one by one):
# area settlement {{
#   pay size 3: 9, 4
# }}
#
# Farms score double (the same event and category: it replaces the base's farm scoring):
# on place food, energy: score 2 * size(group(placed)) as farms
#
# A new scoring category is declared, then scored into:
# category wells
# on place energy: score 1 as wells
"""
    files = [(target, format_rules(text, shown(target)))]  # laid out as `rebirth fmt --check` wants it
    base_tests = base_path.with_suffix(".tests")
    if base_tests.is_file():  # the base's reference positions, replayed against the variant
        ref = extends if bundled is not None else Path(os.path.relpath(base_tests.resolve(),
                                                                        target.parent.resolve())).as_posix()
        files.append((target.with_suffix(".tests"), _tests_text(target, ref)))
    return files


def _tests_text(target: Path, base_ref: str) -> str:
    """NAME.tests: the base's positions against the variant, and a commented position of the author's own."""
    stem = target.with_suffix(".tests").name
    return f"""# {stem}: reference positions of {target.name}, run by `rebirth test {stem}`.
#
# A position is a game set up by hand and what it must give (scores, holders, winners, a refused move),
# worked out from the rules with the arithmetic in its comments (docs/formats.md, "Tests files").
# The base's own positions are played against your rules first: while the variant changes nothing they all
# pass, and a change that alters one of them shows there, at the expectation it breaks.

rules "{target.name}"
positions from "{base_ref}"

# Your own positions, for what your variant changes (remove the `#`s and put in a hex of your board):
# position "farms score double"   # the rule id your statement cites
#   players Ann, Bob
#   move Ann food (X,Y)
#   expect Ann: 2, farms 2
"""


def new_variant(name: str, base: str, folder: Path) -> list[Path]:
    """Write a new variant's files (variant_files) into `folder`: all of them, or none when one exists
    already (never overwritten); each written whole or not at all."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise RebirthError.single(f"{shown(name)!r}: a variant's name is a file name in this folder, e.g. hills")
    files = variant_files(name, base, folder)
    there = [p for p, _ in files if os.path.lexists(p)]
    if there:
        raise RebirthError.single(f"{', '.join(shown(p) for p in there)} already exists: not overwritten (remove it "
                                  "or choose another name)")
    for path, text in files:
        write_text_atomic(path, text, exclusive=True)  # a file made meanwhile is not overwritten either
    return [p for p, _ in files]
