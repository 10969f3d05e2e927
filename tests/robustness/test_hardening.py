"""Hardening: nothing read from disk runs code, errors cross process boundaries, a simulation ends cleanly
on a failing game or Ctrl-C, and outputs never destroy inputs. Each test reproduces a finding of a probe
with hostile or careless inputs."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from rebirth_dsl import cache
from rebirth_dsl.errors import Diagnostic, IllegalMove, RebirthError, RulesSyntaxError
from rebirth_dsl.play.simulate import Job, run_local


def rebirth(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 120
            ) -> subprocess.CompletedProcess[str]:
    """The command line in a fresh process."""
    return subprocess.run([sys.executable, "-m", "rebirth_dsl", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd or ROOT, timeout=timeout)


# ----- caches never run code -----------------------------------------------------------------------
class _Boom:
    """Unpickling this runs a command that leaves a marker file: what a planted pickle would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.marker}",))


def _plant_everywhere(folder: Path, marker: Path) -> None:
    """A pickle under every name either cache could look up, and Lark's own cache names in TMPDIR."""
    payload = pickle.dumps(_Boom(marker))
    for p in list(folder.glob("*.json")):
        p.write_bytes(payload)
        os.chmod(p, 0o600)
    for name in ("ast.pickle", ".lark_cache_root_x_3.11.tmp"):
        (folder / name).write_bytes(payload)


def test_planted_pickles_in_both_caches_run_no_code(tmp_path: Path) -> None:
    """A planted pickle under the exact names the AST cache and the parser-table cache use (and the names
    Lark's own cache would use in TMPDIR) is never unpickled: `rebirth eval` and `check` still work."""
    cache_dir, tmp = tmp_path / "cache", tmp_path / "tmp"
    tmp.mkdir()
    env = {"REBIRTH_CACHE": str(cache_dir), "TMPDIR": str(tmp)}
    assert rebirth("check", "scotland", env=env).returncode == 0  # fills the cache
    entries = sorted(cache_dir.glob("*.json"))
    assert any(p.name.startswith("ast-") for p in entries) and any(p.name.startswith("lark-") for p in entries)
    marker = tmp_path / "ran"
    _plant_everywhere(cache_dir, marker)
    _plant_everywhere(tmp, marker)
    for args in (("eval", "examples/scotland-3p.json"), ("check", "scotland")):
        done = rebirth(*args, env=env)
        assert done.returncode == 0, done.stderr
    assert not marker.exists()


def test_cache_entries_are_rebuilt_when_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One byte changed, a truncated file, another format version: each reads as a miss, never an error."""
    monkeypatch.setenv("REBIRTH_CACHE", str(tmp_path / "c"))
    cache.store("t", "k1", {"a": [1, 2, 3]})
    assert cache.load("t", "k1") == {"a": [1, 2, 3]}
    entry = tmp_path / "c" / "t-k1.json"
    raw = entry.read_bytes()
    current = f'"format": {cache.FORMAT}'.encode()
    assert current in raw  # so the third case below does change the version
    for damaged in (raw[:-1] + b"4", raw[: len(raw) // 2], raw.replace(current, b'"format": 99'), b"\x80\x04junk"):
        entry.write_bytes(damaged)
        assert cache.load("t", "k1") is None
        cache.store("t", "k1", {"a": [1, 2, 3]})
        assert cache.load("t", "k1") == {"a": [1, 2, 3]}


def test_cache_refuses_foreign_or_open_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry others may write is ignored; the folder is made 0700 (and closed if it was left open)."""
    folder = tmp_path / "c"
    monkeypatch.setenv("REBIRTH_CACHE", str(folder))
    cache.store("t", "k", [1])
    assert (folder.stat().st_mode & 0o777) == 0o700
    entry = folder / "t-k.json"
    os.chmod(entry, 0o666)
    assert cache.load("t", "k") is None
    os.chmod(folder, 0o755)
    cache.store("t", "k2", [2])
    assert (folder.stat().st_mode & 0o777) == 0o700
    link = folder / "t-k3.json"
    link.symlink_to(folder / "t-k2.json")
    assert cache.load("t", "k3") is None  # a link is never followed


def test_cache_decodes_only_the_named_classes() -> None:
    """The codec rebuilds dataclasses only from the names it is given."""
    from rebirth_dsl.errors import Span

    data = cache.encode({"s": Span("f", 1, 2), (1, 2): (3,)})
    assert cache.decode(data, {"Span": Span}) == {"s": Span("f", 1, 2), (1, 2): (3,)}
    with pytest.raises(KeyError):
        cache.decode({"c": "Popen", "f": {"args": "id"}}, {"Span": Span})


def test_cache_is_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most the newest entries are kept, and none past its age."""
    folder = tmp_path / "c"
    monkeypatch.setenv("REBIRTH_CACHE", str(folder))
    now = time.time()
    for i in range(5):
        cache.store("t", str(i), i)
        os.utime(folder / f"t-{i}.json", (now - (4 - i) * 10, now - (4 - i) * 10))
    cache.prune(folder, max_entries=3)
    assert sorted(p.name for p in folder.glob("*.json")) == ["t-2.json", "t-3.json", "t-4.json"]
    cache.prune(folder, max_entries=10, max_age=5)
    assert sorted(p.name for p in folder.glob("*.json")) == ["t-4.json"]


def test_pruning_keeps_the_entries_used_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading an entry renews it: an old entry still in use outlives newer ones nobody reads."""
    folder = tmp_path / "c"
    monkeypatch.setenv("REBIRTH_CACHE", str(folder))
    now = time.time()
    for i in range(4):
        cache.store("t", str(i), i)
        os.utime(folder / f"t-{i}.json", (now - (4 - i) * 100, now - (4 - i) * 100))
    assert cache.load("t", "0") == 0
    cache.prune(folder, max_entries=2)
    assert sorted(p.name for p in folder.glob("*.json")) == ["t-0.json", "t-3.json"]


# ----- errors cross process boundaries ----------------------------------------------------------------
@pytest.mark.parametrize("err", [
    RebirthError([Diagnostic("m", file="f", line=1, col=2, hint="h")]),
    RulesSyntaxError.single("bad", file="r.rules", line=3, col=4),
    IllegalMove("food cannot go there", "S-P2", 7),
])
def test_errors_pickle_and_unpickle(err: RebirthError) -> None:
    """Every error is rebuilt whole on the other side of a pickle (a worker's error reaches the parent)."""
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and back.render() == err.render() and str(back) == str(err)
    assert getattr(back, "rule", None) == getattr(err, "rule", None)


def test_a_failing_worker_ends_the_run_with_its_message(tmp_path: Path) -> None:
    """A game that fails in a worker process ends the run with that error instead of hanging."""
    job = Job(str(tmp_path / "missing.rules"), str(ROOT / "boards" / "scotland.json"), 3, ("random",) * 3, 0)
    t0 = time.monotonic()
    with pytest.raises(RebirthError, match="cannot read"):
        run_local(job, 8, 2, lambda k: None)
    assert time.monotonic() - t0 < 60


def test_simulate_refuses_human_seats_and_too_many_workers() -> None:
    """A human seat cannot be answered in a worker; workers beyond the cores only add processes."""
    done = rebirth("simulate", "--games", "2", "--agents", "human", "--no-progress", timeout=60)
    assert done.returncode == 1 and "terminal" in done.stderr
    done = rebirth("simulate", "--games", "2", "--workers", str((os.cpu_count() or 1) + 1), "--no-progress")
    assert done.returncode == 1 and "core" in done.stderr and "Traceback" not in done.stderr


def test_ctrl_c_ends_a_simulation_cleanly() -> None:
    """Ctrl-C to the process group: exit 130, no traceback, no process left behind."""
    proc = subprocess.Popen([sys.executable, "-m", "rebirth_dsl", "simulate", "--games", "1000000", "--workers",
                             str(min(2, os.cpu_count() or 1)), "--no-progress"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(4)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    time.sleep(1)
    assert _live_in_group(proc.pid) == []  # nothing of the group is left running


def _live_in_group(pgid: int) -> list[int]:
    """Processes of a process group that still run (an exited one not yet reaped is no longer running)."""
    out = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            out.append(int(stat_file.parent.name))
    return out


# ----- records are data people exchange: validated strictly --------------------------------------------
def _record(**changes: object) -> dict:
    rec = json.loads((ROOT / "examples" / "scotland-3p.json").read_text())
    rec.update(changes)
    return rec


@pytest.mark.parametrize("bad, where", [
    ({"scenario": "yes"}, "$.scenario"),
    ({"moves": [{"player": "Ann", "tile": "food", "hex": [True, False]}]}, "$.moves[0].hex"),
    ({"moves": [{"player": "Ann", "tile": "food", "hex": ["1", "2"]}]}, "$.moves[0].hex"),
    ({"moves": [{"player": "Ann", "tile": "settlement:\u0663", "hex": [0, 0]}]}, "$.moves[0].tile"),
    ({"players": ["Ann", "Ann", "Cat"]}, "$.players"),
])
def test_loose_records_are_refused_with_the_json_path(tmp_path: Path, bad: dict, where: str) -> None:
    """Strings for booleans, booleans or strings for numbers, non-ASCII digits, duplicate names: refused."""
    f = tmp_path / "r.json"
    f.write_text(json.dumps(_record(**bad)))
    done = rebirth("eval", str(f), "--allow-paths", timeout=60)
    assert done.returncode == 1, done.stdout
    assert where in done.stderr and "Traceback" not in done.stderr


def test_missions_and_decks_together_are_refused(tmp_path: Path) -> None:
    """`setup.missions` was silently ignored when `decks` gave the same deck: now it is an error."""
    rec = _record()
    rec["setup"]["missions"] = list(rec["setup"]["decks"]["mission"])
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    done = rebirth("eval", str(f), timeout=60)
    assert done.returncode == 1 and "$.setup.missions" in done.stderr


def test_a_record_naming_files_outside_its_folder_needs_allow_paths(tmp_path: Path) -> None:
    """Records are exchanged: one that reaches outside its folder is refused unless the user allows it."""
    rec = _record(rules=str(ROOT / "rules" / "scotland.rules"), board="../boards/scotland.json")
    f = tmp_path / "sub" / "r.json"
    f.parent.mkdir()
    f.write_text(json.dumps(rec))
    (tmp_path / "boards").mkdir()
    (tmp_path / "boards" / "scotland.json").write_text((ROOT / "boards" / "scotland.json").read_text())
    done = rebirth("eval", str(f), timeout=60)
    assert done.returncode == 1 and "outside" in done.stderr and "--allow-paths" in done.stderr
    assert rebirth("eval", str(f), "--allow-paths", timeout=60).returncode == 0


def test_errors_never_echo_a_file_that_is_not_a_rules_file(tmp_path: Path) -> None:
    """A secret handed to eval as a record (or to a record as its board) is not printed back."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"password": "hunter2", oops}\n')
    done = rebirth("eval", str(secret), timeout=60)
    assert done.returncode == 1 and "hunter2" not in done.stderr + done.stdout
    rec = _record(board="secret.json")
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    done = rebirth("eval", str(f), timeout=60)
    assert done.returncode == 1 and "hunter2" not in done.stderr + done.stdout


# ----- outputs never destroy inputs -------------------------------------------------------------------
def test_output_never_replaces_an_input(tmp_path: Path) -> None:
    """`draw b.json -o b.json` and `play --rules r.rules -o r.rules` are refused; the inputs are intact."""
    board = tmp_path / "b.json"
    board.write_text((ROOT / "boards" / "scotland.json").read_text())
    before = board.read_bytes()
    done = rebirth("draw", str(board), "-o", str(board), timeout=60)
    assert done.returncode == 1 and "input" in done.stderr and board.read_bytes() == before
    rules = tmp_path / "r.rules"
    rules.write_text((ROOT / "rules" / "scotland.rules").read_text())
    done = rebirth("play", "--rules", str(rules), "--board", "scotland", "-o", str(rules), timeout=60)
    assert done.returncode == 1 and "input" in done.stderr
    assert rules.read_text() == (ROOT / "rules" / "scotland.rules").read_text()


def test_output_refuses_links_devices_and_missing_folders_before_the_work(tmp_path: Path) -> None:
    """A symlink is not replaced, a device is not written, a missing folder is found before the game."""
    target = tmp_path / "real.svg"
    target.write_text("keep")
    link = tmp_path / "link.svg"
    link.symlink_to(target)
    done = rebirth("draw", "scotland", "-o", str(link), timeout=60)
    assert done.returncode == 1 and link.is_symlink() and target.read_text() == "keep"
    done = rebirth("play", "--players", "2", "-o", "/dev/null", timeout=60)
    assert done.returncode == 1 and "regular file" in done.stderr
    t0 = time.monotonic()
    done = rebirth("play", "--players", "4", "--agents", "greedy", "-o", str(tmp_path / "no" / "g.json"),
                   timeout=60)
    assert done.returncode == 1 and "does not exist" in done.stderr
    assert time.monotonic() - t0 < 10  # refused before a game was played
