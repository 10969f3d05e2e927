"""The position notation's costs and sizes, against the record it stands for.

    .venv/bin/python tools/bench_notation.py [--game scotland-3p] [--at 50] [--repeat 200]

Prints: building the notation's parser (once a process), reading, writing, taking a position from a game and
making a game from it (each the median of `--repeat` runs), and the size of the notation against the record
JSON cut at the same move.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from rebirth_dsl.records import position as P
from rebirth_dsl.records.record import load_record, replay
from rebirth_dsl.records.resources import find


def _median_ms(f: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="scotland-3p")
    ap.add_argument("--at", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=200)
    a = ap.parse_args()
    path = find("examples", a.game)
    loaded = load_record(path)
    game = replay(loaded, stop_at=a.at).game
    rec = loaded.record
    t = time.perf_counter()
    P._parser()
    build = (time.perf_counter() - t) * 1000
    pos = P.position_of(game, rec.rules, rec.board)
    text = P.write_position(pos)
    rs = loaded.rs
    print(f"{a.game} at move {a.at}: {sum(len(s.tiles) for s in pos.seats)} tiles placed")
    print(f"  parser built once a process: {build:.1f} ms")
    print(f"  read_position:  {_median_ms(lambda: P.read_position(text), a.repeat):.2f} ms")
    print(f"  write_position: {_median_ms(lambda: P.write_position(pos), a.repeat):.2f} ms")
    print(f"  position_of:    {_median_ms(lambda: P.position_of(game, rec.rules, rec.board), a.repeat):.2f} ms")
    print(f"  start_game:     {_median_ms(lambda: P.start_game(pos, rs), a.repeat):.2f} ms")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["moves"] = data["moves"][: a.at]
    print(f"  size: notation {len(text.encode())} bytes, {text.count(chr(10))} lines; "
          f"the record cut there {len(json.dumps(data).encode())} bytes (compact JSON)")


if __name__ == "__main__":
    main()
