"""Regenerate the golden `eval --json` files (tests/golden/*.eval.json) and print what changes.

The golden test (tests/surfaces/test_cli.py::test_eval_json_golden) only compares; it never writes. When a change
of the engine or of an example is meant to change a golden file, run this, read the diff, and check it
against the hand-computed assertions on the same games (tests/rules/test_golden_pairs.py): a golden file is
the program's own past output, a second line behind those.

    python tools/update_goldens.py            # print the diff, write the changed files
    python tools/update_goldens.py --check    # print the diff only; exit 1 if any file would change
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
EXAMPLES = ROOT / "examples"


def evaluated(example: Path) -> str:
    """`rebirth eval EXAMPLE --json`, run in process, as the golden test runs it."""
    from rebirth_dsl.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["eval", str(example), "--json"])
    if code != 0:
        raise SystemExit(f"rebirth eval {example} --json exited {code}")
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only print the diff; exit 1 if a file would change")
    args = ap.parse_args(argv)
    changed = 0
    for example in sorted(EXAMPLES.glob("*.json")):
        golden = GOLDEN / f"{example.stem}.eval.json"
        new = evaluated(example)
        old = golden.read_text(encoding="utf-8") if golden.exists() else ""
        if new == old:
            continue
        changed += 1
        name = str(golden.relative_to(ROOT))
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                   f"{name} (old)", f"{name} (new)"))
        if not args.check:
            golden.write_text(new, encoding="utf-8")
    verb = "would change" if args.check else "rewritten"
    print(f"{changed} golden file(s) {verb}" if changed else "golden files are up to date")
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
