"""`python -m rebirth_dsl` is the `rebirth` command."""

from .cli import main

raise SystemExit(main())
