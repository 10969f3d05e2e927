"""The registry of built-in functions: one entry per function in lang/functions.py (what the language says)
and one in compile/functions.py (what each engine does), every consumer reading them, and the manual's table
made from the entries."""

from __future__ import annotations

from pathlib import Path

from rebirth_dsl.compile.functions import FUNCTIONS, Builtin
from rebirth_dsl.lang.functions import SIGNATURES, TABLE_BEGIN, TABLE_END, function_table

ROOT = Path(__file__).resolve().parents[2]
MANUAL = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")


def test_the_manuals_function_table_is_made_from_the_entries() -> None:
    """docs/language.md holds function_table() between its markers: a new entry, or a changed type or doc,
    fails here until the table is pasted again (the docstring of function_table says how)."""
    assert MANUAL.count(TABLE_BEGIN) == 1 and MANUAL.count(TABLE_END) == 1
    shown = MANUAL.split(TABLE_BEGIN)[1].split(TABLE_END)[0].strip()
    assert shown == function_table()
    assert "| [`neighbours`](#neighbours) | `neighbours(hexes\\|hex) → hexes` |" in shown


def test_every_declared_function_has_one_implementation_entry() -> None:
    """The two halves of the registry name the same functions, and every entry has the reference closure and
    the generated Python (C, delta and reads may be left out: those consumers then fall back, exactly)."""
    assert set(FUNCTIONS) == set(SIGNATURES)
    for name, entry in FUNCTIONS.items():
        assert entry.sig is SIGNATURES[name]
        assert type(entry).closure is not Builtin.closure, name
        assert type(entry).python is not Builtin.python, name


def test_every_function_has_c() -> None:
    """The native backend expresses every function (none makes a ruleset fall back to Python)."""
    assert [n for n, e in FUNCTIONS.items() if type(e).c is Builtin.c] == []


def test_the_english_of_a_call_fills_its_template() -> None:
    """A signature says a call in English from its said arguments; by default the language's own notation."""
    assert SIGNATURES["count"].say(["your tiles"]) == "count(your tiles)"
    assert SIGNATURES["neighbours"].say(["placed"]) == "the hexes next to placed"
