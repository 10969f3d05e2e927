"""`rebirth ARGS...` run in this process under a time limit, shared by the tests that feed it extreme or
hostile input (a hang fails the test instead of stalling the run)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
from pathlib import Path
from typing import Any

import pytest


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so the command line's last line of defence does not catch it."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


def rebirth(*args: str | Path, limit: int) -> tuple[int, str, str]:
    """`rebirth ARGS...` in this process, failing the test after `limit` seconds: (exit code, stdout, stderr)."""
    from rebirth_dsl.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(limit)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([os.fspath(a) if isinstance(a, Path) else str(a) for a in args])
            except SystemExit as e:
                code = int(e.code or 0)
    except Hang:
        pytest.fail(f"`rebirth {' '.join(map(str, args))}` ran over {limit} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()
