"""Write a tests file (docs/formats.md, "Tests files") from the hand-computed reference positions of a folder
(tests/positions/*.json): how rules/scotland.tests and rules/ireland.tests were made. Each position keeps
its `about` and its arithmetic as comments (a line of arithmetic about move N just above that move) and its
rule ids in the comment of its `position` line. The boards the positions use live in one place, beside the
tests file (rules/positions/, which the wheel carries), where the JSON positions read them too.

    python tools/positions_to_tests.py tests/positions rules/scotland.tests --boards positions/scotland
    python tools/positions_to_tests.py tests/positions_ireland rules/ireland.tests --boards positions/ireland
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

WIDTH = 110
WORD = re.compile(r"[^\W\d][\w-]*")


def name(text: str) -> str:
    """A player's or landmark's name: bare when it is one word, else in double quotes."""
    return text if WORD.fullmatch(text) and text not in ("winners", "cards", "nobody") else quoted(text)


def quoted(text: str) -> str:
    """A string in double quotes."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def comment(text: str, indent: str = "  ") -> list[str]:
    """A comment, wrapped to the width."""
    return [f"{indent}# {line}" for line in textwrap.wrap(text, WIDTH - len(indent) - 2)] or [f"{indent}#"]


def listing(head: str, items: list[str], indent: str = "  ") -> list[str]:
    """`head item, item, ...`, continued on the next lines (after a comma) past the width."""
    lines, cur = [], f"{indent}{head} "
    for i, it in enumerate(items):
        piece = it + ("," if i < len(items) - 1 else "")
        if len(cur) + len(piece) > WIDTH and cur.strip() != head:
            lines.append(cur.rstrip())
            cur = indent + "    "
        cur += piece + " "
    lines.append(cur.rstrip())
    return lines


def choice(value: Any) -> str:
    """A move's answer to an ability, in the tests file's words."""
    if value is False:
        return "decline"
    ((what, v),) = value.items()
    return f"{what} {quoted(v) if what == 'double' else v}"


def convert(pos_file: Path, board_dir: str, kinds: dict[str, str]) -> list[str]:
    """One position's lines."""
    pos = json.loads(pos_file.read_text(encoding="utf-8"))
    rec, expect = pos["record"], pos["expect"]
    covers = " ".join(pos.get("covers", []))
    out = [f"position {quoted(pos_file.stem)}" + (f"   # {covers}" if covers else "")]
    out += comment(pos["about"])
    out.append(f"  board {quoted(board_dir + '/' + Path(rec['board']).name)}")
    out.append("  players " + ", ".join(name(p) for p in rec["players"]))
    if not rec.get("scenario"):
        out.append("  in turn order")
    setup = rec.get("setup", {})
    if "seed" in setup:
        out.append(f"  seed {setup['seed']}")
    if "scores" in setup:
        out.append("  scores " + ", ".join(f"{name(p)} {n}" for p, n in setup["scores"].items()))
    for p, cards in setup.get("missions_held", {}).items():
        out += listing(f"holds {name(p)}:", [quoted(c) for c in cards] or ["none"])
    for key, word in (("set_aside", "set aside"), ("supply", "supply")):
        for p, tiles in setup.get(key, {}).items():
            out += listing(f"{word} {name(p)}:", tiles)
    if "missions" in setup:
        out += listing("missions", [quoted(c) for c in setup["missions"]] or ["none"])
    for deck, cards in setup.get("decks", {}).items():
        out += listing(f"deck {deck}:", [quoted(c) for c in cards] or ["none"])
    # the arithmetic: lines about move N just above it, the others before the moves or after them
    above: dict[int, list[str]] = {}
    before, after = [], []
    seen_move = False
    for line in pos.get("arithmetic", []):
        m = re.match(r"moves? (\d+)\b", line)
        if m and int(m.group(1)) < len(rec["moves"]):
            above.setdefault(int(m.group(1)), []).append(line)
            seen_move = True
        else:
            (after if seen_move else before).append(line)
    for line in before:
        out += comment(line)
    if "setup_error" in expect:
        out.append(f"  setup refused {expect['setup_error']['rule']}")
    refused = expect.get("error", {})
    for i, mv in enumerate(rec["moves"]):
        for line in above.get(i, []):
            out += comment(line)
        if "setup_error" in expect:  # the game never starts: its moves are never applied
            continue
        hx = "pass" if mv["hex"] is None else f"({mv['hex'][0]},{mv['hex'][1]})"
        text = f"  move {name(mv['player'])} {mv['tile']} {hx}"
        for what, value in mv.get("choices", {}).items():
            text += f" choose {name(what)}: {choice(value)}"
        if refused and refused["index"] == i:
            text += f" refused {refused['rule']}"
            out.append(text)
            break
        out.append(text)
    if rec.get("over"):
        out.append("  over")
    for line in after:
        out += comment(line)
    for p, want in expect.get("players", {}).items():
        parts = ([str(want["score"])] if "score" in want else []) + [f"{c} {n}" for c, n in want.get("breakdown", {}).items()]
        if parts:
            out.append(f"  expect {name(p)}: " + ", ".join(parts))
    for lm, owner in expect.get("castles", {}).items():
        out.append(f"  expect {kinds[lm]} {quoted(lm)}: {'nobody' if owner is None else name(owner)}")
    for p, cards in expect.get("missions", {}).items():
        out.append(f"  expect cards {name(p)}: " + (", ".join(quoted(c) for c in cards) or "none"))
    if "winners" in expect:
        out.append("  expect winners: " + ", ".join(name(w) for w in expect["winners"]))
    return out


def render(folder: Path, tests: Path, boards: str, rules: str | None) -> tuple[str, dict[str, bytes]]:
    """The tests file's text and the boards it uses ({file name: bytes}), from a folder of positions."""
    files = sorted(folder.glob("*.json"))
    kinds: dict[str, str] = {}
    used: dict[str, bytes] = {}
    for f in files:
        rec = json.loads(f.read_text(encoding="utf-8"))["record"]
        board = (f.parent / rec["board"]).resolve()
        used[board.name] = board.read_bytes()
        for h in json.loads(used[board.name])["hexes"]:
            if "name" in h:
                kinds[h["name"]] = h["kind"]
    rules = rules or tests.with_suffix(".rules").name
    head = [f"# Reference positions of {rules}, each worked out by hand from RULES.md (the arithmetic is in",
            f"# its comments), made from {folder.as_posix()}/*.json by tools/positions_to_tests.py.",
            "# Run them with `rebirth test " + tests.name + "`; the format is in docs/formats.md.", "",
            f"rules {quoted(rules)}", ""]
    body: list[str] = []
    for f in files:
        body += convert(f, boards, kinds) + [""]
    return "\n".join(head + body).rstrip("\n") + "\n", used


def main() -> int:
    """Convert a folder of positions into one tests file (--check: write nothing, exit 1 if the tests file
    differs from what the positions give); every board a position uses must be in the --boards folder."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("tests", type=Path)
    ap.add_argument("--boards", required=True, help="the folder of the boards, relative to the tests file")
    ap.add_argument("--rules", help="the ruleset the tests file names (default: the tests file's own name)")
    ap.add_argument("--check", action="store_true", help="compare only")
    args = ap.parse_args()
    text, used = render(args.folder, args.tests, args.boards, args.rules)
    target = args.tests.parent / args.boards
    elsewhere = [n for n, b in used.items() if not (target / n).is_file() or (target / n).read_bytes() != b]
    for n in elsewhere:
        print(f"{args.folder}: a position reads a board {n} that is not the one in {target}", file=sys.stderr)
    if elsewhere:
        return 1
    if args.check:
        stale = [str(args.tests)] if not args.tests.is_file() or args.tests.read_text(encoding="utf-8") != text else []
        for s in stale:
            print(f"{s}: out of date; run python tools/positions_to_tests.py {args.folder} {args.tests} "
                  f"--boards {args.boards}", file=sys.stderr)
        return 1 if stale else 0
    args.tests.write_text(text, encoding="utf-8")
    print(f"wrote {args.tests}: {text.count(chr(10) + 'position ')} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
