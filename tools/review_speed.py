"""How long `rebirth review` takes on a whole game: wall time and CPU time (this process and its workers),
for one and for two worker processes, at the command's default settings.

    .venv/bin/python tools/review_speed.py                      # examples/scotland-3p.json (102 moves)
    .venv/bin/python tools/review_speed.py GAME --workers 2 --playouts 100 --width 6

CPU time is printed beside wall time because the machine may be shared: wall time on two free cores is
about the CPU time divided by the workers, plus the start of the workers.
"""

from __future__ import annotations

import argparse
import resource
import time

from rebirth_dsl.play.review import ReviewJob, review


def cpu() -> float:
    """User + system seconds of this process and of its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", nargs="?", default="examples/scotland-3p.json")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--playouts", type=int, default=100)
    ap.add_argument("--width", type=int, default=6)
    args = ap.parse_args()
    for w in args.workers:
        job = ReviewJob(args.game, None, False, None, None, args.playouts, args.width, "random", "auto", 0)
        c0, t0 = cpu(), time.perf_counter()
        rv = review(job, w)
        wall, used = time.perf_counter() - t0, cpu() - c0
        cands = sum(m["played_out"] for m in rv["moves"])
        print(f"{args.game}: {len(rv['moves'])} moves, {cands} candidates x {args.playouts} playouts "
              f"({'native' if rv['native'] else 'python'}), workers {w}: {wall:.1f} s wall, {used:.1f} s CPU")


if __name__ == "__main__":
    main()
