"""Copy shared/RULES.md into the repository as tests/data/RULES.md, printing what changes.

The rule-coverage test (tests/rules/test_positions.py) reads the rule ids from this copy, so it runs wherever
the repository is checked out (CI has no shared/ folder beside it) and never skips. When shared/RULES.md
is beside the repository, the same test also fails if the copy is out of date: run this then.

    python tools/sync_rules.py            # copy ../shared/RULES.md, print the diff
    python tools/sync_rules.py --check    # only print the diff; exit 1 if the copy differs
    python tools/sync_rules.py --source PATH
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "RULES.md"
COPY = ROOT / "tests" / "data" / "RULES.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=SOURCE, help=f"the RULES.md to copy (default {SOURCE})")
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 when the copy differs")
    args = ap.parse_args(argv)
    if not args.source.is_file():
        print(f"{args.source}: not found", file=sys.stderr)
        return 2
    new = args.source.read_text(encoding="utf-8")
    old = COPY.read_text(encoding="utf-8") if COPY.exists() else ""
    diff = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     str(COPY.relative_to(ROOT)), str(args.source)))
    sys.stdout.writelines(diff)
    if not diff:
        print(f"{COPY.relative_to(ROOT)} is up to date")
        return 0
    if args.check:
        return 1
    COPY.parent.mkdir(parents=True, exist_ok=True)
    COPY.write_text(new, encoding="utf-8")
    print(f"wrote {COPY.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
