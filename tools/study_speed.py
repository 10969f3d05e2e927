"""How fast Study steps through a record: the server's answer for each position, the first time it is
asked for (worked out from the record) and again (kept per record), as the web app's Study asks.

    python tools/study_speed.py                       # examples/scotland-3p.json
    python tools/study_speed.py --record examples/ireland-4p.json

It calls the server's Hub directly (no HTTP: the figures are the work per position, not the network) on a
data folder of its own that is removed afterwards, and prints the median and the slowest step of each pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rebirth_dsl.web.hub import Hub


def main() -> None:
    """Step through the record twice and print the time per position."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", default="examples/scotland-3p.json")
    args = ap.parse_args()
    record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="study-speed-") as data:
        hub = Hub(Path(data), agent_delay=0.0)
        try:
            total = hub.study({"record": record}, 0)["total"]
            for label in ("first time", "again"):
                times = []
                for k in range(total + 1):
                    t0 = time.perf_counter()
                    hub.study({"record": record}, k)
                    times.append(time.perf_counter() - t0)
                print(f"{label:>10}: {total + 1} positions, median {statistics.median(times) * 1000:.1f} ms, "
                      f"slowest {max(times) * 1000:.1f} ms, all {sum(times):.2f} s")
        finally:
            hub.stop()
            hub.store.close()


if __name__ == "__main__":
    main()
