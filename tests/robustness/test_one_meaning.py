"""One meaning per rule (issue 21): an engine learns what a compiled statement is from its rule module's
`Kind` (rules.table.kind_of), never by testing the statement's type. The check reads the source: every
`isinstance(x, T)` whose T names a statement type of rules.table.KINDS, outside rules/ itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

from rebirth_dsl.rules.table import KINDS

PKG = ROOT / "rebirth_dsl"
STATEMENTS = frozenset(t.__name__ for t in KINDS)

# modules whose dispatch on statement types is still to move into the rule modules (issue 21); a module
# may leave this list, none may join it
PENDING = frozenset({
    "rebirth_dsl/play/points.py",  # the immediate-points reader
})


def type_tests(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, type name) of every isinstance test against a statement type of KINDS in a module."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2:
            for sub in ast.walk(node.args[1]):
                if isinstance(sub, ast.Name) and sub.id in STATEMENTS:
                    out.append((node.lineno, sub.id))
                elif isinstance(sub, ast.Attribute) and sub.attr in STATEMENTS:
                    out.append((node.lineno, sub.attr))
    return out


def offenders(root: Path) -> dict[str, list[tuple[int, str]]]:
    """The modules outside rules/ that test a statement's type, with where."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if rel.startswith("rebirth_dsl/rules/"):
            continue
        found = type_tests(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            out[rel] = found
    return out


def test_no_engine_tests_a_statements_type_outside_its_rule_module() -> None:
    """The generated Python engine, the reference engine and the environments ask the Kind; only the
    modules still listed as pending test types."""
    found = offenders(PKG)
    assert set(found) <= PENDING, {m: w for m, w in found.items() if m not in PENDING}


def test_the_check_finds_a_type_test() -> None:
    """The check can fail: a type test on a statement, plain or in a tuple or union, is found."""
    src = ("def f(r):\n"
           "    if isinstance(r, MajorityRule):\n        pass\n"
           "    return isinstance(r, (A.Num, R.TouchRule)) or isinstance(r, AreaRule | int)\n")
    assert type_tests(ast.parse(src)) == [(2, "MajorityRule"), (4, "TouchRule"), (4, "AreaRule")]
