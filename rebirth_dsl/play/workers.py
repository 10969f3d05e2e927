"""The process pool every many-games job runs on (simulate, compare, review, the tools' matches and hashes):
spawned workers (a clean interpreter per worker, the same on every OS) that leave Ctrl-C to the parent."""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent, which ends them; so no worker prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def worker_pool(workers: int) -> Iterator[Pool]:
    """A pool of `workers` spawned processes: closed when the block ends, terminated at once on any error or
    Ctrl-C (no process is left behind), joined either way. A worker's error (errors.RebirthError pickles) is
    raised in the parent by the result's get()."""
    # An ignored signal stays ignored across the exec that starts a worker, so a Ctrl-C while a worker is
    # still importing (before its initializer runs) prints no traceback either: the parent ignores it only
    # while it starts them.
    was = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pool = mp.get_context("spawn").Pool(workers, initializer=_quiet_worker)
    finally:
        signal.signal(signal.SIGINT, was)
    try:
        yield pool
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
