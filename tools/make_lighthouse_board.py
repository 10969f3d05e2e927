"""Derive boards/variants/lighthouses.json: the Scotland map with four lighthouses on the coast.

A lighthouse replaces a sea hex next to the land; which ones is chosen here, by name and position.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    board = json.loads((ROOT / "boards" / "scotland.json").read_text())
    hexes = board["hexes"]
    at = {(h["q"], h["r"]): h for h in hexes}
    land = {"plain", "food", "energy", "settlement"}
    offsets = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

    def land_neighbours(q: int, r: int) -> int:
        return sum(1 for dq, dr in offsets if at.get((q + dq, r + dr), {}).get("kind") in land)

    def touches_landmark(q: int, r: int) -> bool:
        return any(at.get((q + dq, r + dr), {}).get("kind") in ("castle", "cathedral") for dq, dr in offsets)

    coast = [c for c, h in at.items() if h["kind"] == "sea" and land_neighbours(*c) >= 3 and not touches_landmark(*c)]
    # the north-west, north-east, south-west and east-most coastal sea hexes, by drawing position
    def x(c: tuple[int, int]) -> float:
        return c[0] + c[1] / 2

    picks = {
        "Cape Wrath": min(coast, key=lambda c: (c[1], x(c))),
        "Kinnaird Head": min(coast, key=lambda c: (c[1] - 2 * x(c))),
        "Mull of Galloway": max(coast, key=lambda c: (c[1] - x(c))),
        "Bell Rock": max(coast, key=lambda c: (x(c) + 0.3 * c[1])),
    }
    if len(set(picks.values())) != len(picks):
        print("lighthouse sites collide", picks, file=sys.stderr)
        return 1
    for name, c in picks.items():
        at[c]["kind"] = "lighthouse"
        at[c]["name"] = name
    board["name"] = "scotland_lighthouses"
    board["title"] = "Scotland (reconstructed) with four lighthouses (variant)"
    out = ROOT / "boards" / "variants" / "lighthouses.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(board, indent=1) + "\n")
    os.replace(tmp, out)
    print(f"wrote {out}: " + ", ".join(f"{n} {c}" for n, c in picks.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
