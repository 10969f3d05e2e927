"""`python -m rebirth_dsl` is the `rebirth` command."""

from rebirth_dsl.cli import program

raise SystemExit(program())
