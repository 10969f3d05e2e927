"""Finding 11: the data-only cache trusts only entries signed with the user's own secret. An entry edited by
somebody who cannot read the secret (a script or another tool running as the same user) and given a fresh
SHA-256 is a miss, and the result is computed afresh; the secret is a private 0600 file never read through
a link; REBIRTH_CACHE=off still turns the cache off."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES

import rebirth_dsl
from rebirth_dsl import cache
from rebirth_dsl.board.view import load_board_view
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules

SCENARIO = ROOT / "examples" / "scenario-120.json"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own."""
    monkeypatch.setenv("REBIRTH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _forge(entry: Path, body: bytes) -> None:
    """Rewrite an entry as an attacker without the secret can: the new payload with its plain SHA-256 (what
    the cache checked before), the header otherwise kept (a MAC copied from it is a MAC of the old body)."""
    header = json.loads(entry.read_bytes().partition(b"\n")[0])
    header["sha256"] = hashlib.sha256(body).hexdigest()
    entry.write_bytes(json.dumps(header).encode() + b"\n" + body)


def test_an_edited_record_entry_changes_no_score(folder: Path) -> None:
    """A scenario's starting score edited in its cached record (with a recomputed SHA-256) is ignored: the
    record is validated afresh from its file and scores as before."""
    scores = rebirth_dsl.from_record(SCENARIO).scores()
    assert scores == {"Ann": 120, "Bob": 0}
    [entry] = folder.glob("record-*.json")
    body = entry.read_bytes().partition(b"\n")[2]
    assert body.count(b'"Ann":87') == 1
    _forge(entry, body.replace(b'"Ann":87', b'"Ann":1087'))
    assert rebirth_dsl.from_record(SCENARIO).scores() == scores


def test_a_forged_check_result_lets_no_erroneous_ruleset_run(folder: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruleset with an error (9 players) is refused even after an entry saying it passed its checks is
    planted under its exact key, with a fresh SHA-256 and the MAC of a genuine entry."""
    bad = tmp_path / "bad.rules"
    bad.write_text((RULES / "scotland.rules").read_text().replace("players 2 to 4 ", "players 2 to 9 ", 1))
    board = load_board_view(BOARDS / "scotland.json")
    compile_rules(load_rules(RULES / "scotland.rules"), board)  # a genuine `checked` entry to copy from
    [genuine] = folder.glob("checked-*.json")
    asked: list[tuple[str, str]] = []
    real_load = cache.load
    monkeypatch.setattr(cache, "load", lambda ns, key: asked.append((ns, key)) or real_load(ns, key))
    with pytest.raises(RebirthError, match="at most 6 may play"):
        compile_rules(load_rules(bad), board)
    [key] = [k for ns, k in asked if ns == "checked"]
    planted = folder / f"checked-{key}.json"
    header = json.loads(genuine.read_bytes().partition(b"\n")[0])
    header["key"] = key
    planted.write_bytes(json.dumps(header).encode() + b"\n" + b'{"errors":0}')
    _forge(planted, b'{"errors":0}')
    with pytest.raises(RebirthError, match="at most 6 may play"):
        compile_rules(load_rules(bad), board)
    assert not planted.exists()  # removed: the checks' verdict is the only one left


def test_an_entry_is_valid_only_under_its_own_name(folder: Path) -> None:
    """The MAC covers the namespace and key: a genuine entry copied under another name is a miss."""
    cache.store("t", "k", {"a": 1})
    assert cache.load("t", "k") == {"a": 1}
    (folder / "u-k.json").write_bytes((folder / "t-k.json").read_bytes())
    (folder / "t-j.json").write_bytes((folder / "t-k.json").read_bytes())
    assert cache.load("u", "k") is None and cache.load("t", "j") is None
    assert cache.load("t", "k") == {"a": 1}


def test_the_secret_is_private_and_kept(folder: Path) -> None:
    """The secret is a regular 0600 file of KEY_BYTES bytes in the 0700 folder; it is made once and kept,
    so entries written by one process verify in the next."""
    cache.store("t", "k", [1])
    secret = folder / cache.KEY_FILE
    st = os.lstat(secret)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == cache.KEY_BYTES
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    before = secret.read_bytes()
    cache.store("t", "k2", [2])
    assert secret.read_bytes() == before and cache.load("t", "k") == [1]
    cache.prune(folder, max_entries=0)
    assert secret.exists()  # pruning removes entries, never the secret


def test_a_linked_secret_is_refused(folder: Path, tmp_path: Path) -> None:
    """A secret reached through a link (to bytes somebody else chose) is never read: entries signed with
    those bytes are misses, the link is replaced by a private file and its target is left untouched."""
    cache.store("t", "seed", 0)  # makes the folder
    (folder / cache.KEY_FILE).unlink()
    chosen = tmp_path / "chosen.key"
    chosen.write_bytes(b"x" * cache.KEY_BYTES)
    os.chmod(chosen, 0o600)
    (folder / cache.KEY_FILE).symlink_to(chosen)
    body = b"[42]"
    mac = cache._mac(chosen.read_bytes(), "t", "k", body)
    (folder / "t-k.json").write_bytes(json.dumps({"format": cache.FORMAT, "key": "k", "mac": mac}).encode()
                                      + b"\n" + body)
    assert cache.load("t", "k") is None
    secret = folder / cache.KEY_FILE
    assert not secret.is_symlink() and stat.S_IMODE(os.lstat(secret).st_mode) == 0o600
    assert secret.read_bytes() != chosen.read_bytes() and chosen.read_bytes() == b"x" * cache.KEY_BYTES


@pytest.mark.parametrize("damage", ["open", "short", "folder"])
def test_an_unfit_secret_empties_the_cache(folder: Path, damage: str) -> None:
    """A secret others may read, a truncated one or a folder in its place: every entry is a miss (the cache
    reads as empty) and a new private secret is made, or none when none can be (the cache is unused)."""
    cache.store("t", "k", [1])
    secret = folder / cache.KEY_FILE
    old = secret.read_bytes()
    if damage == "open":
        os.chmod(secret, 0o644)
    elif damage == "short":
        secret.write_bytes(old[:5])
        os.utime(secret, (time.time() - 60, time.time() - 60))  # not one another process is writing now
    else:
        secret.unlink()
        secret.mkdir()
    assert cache.load("t", "k") is None
    if damage == "folder":
        cache.store("t", "k", [1])
        assert cache.load("t", "k") is None and secret.is_dir()
        return
    assert secret.read_bytes() != old and stat.S_IMODE(os.lstat(secret).st_mode) == 0o600
    cache.store("t", "k", [1])
    assert cache.load("t", "k") == [1]


def test_the_cache_off_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    """REBIRTH_CACHE=off: nothing is stored or read, no secret is made, and eval gives the same answer."""
    monkeypatch.setenv("REBIRTH_CACHE", str(tmp_path / "on"))
    code, on, err = run_cli("eval", SCENARIO, "--json")
    assert code == 0, err
    monkeypatch.setenv("REBIRTH_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cache.store("t", "k", [1])
    assert cache.load("t", "k") is None
    code, off, err = run_cli("eval", SCENARIO, "--json")
    assert code == 0, err
    assert json.loads(off) == json.loads(on)
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()


@pytest.mark.skipif(shutil.which(os.environ.get("CC") or "cc") is None, reason="no C compiler")
def test_a_swapped_native_library_with_a_fresh_checksum_is_refused(folder: Path) -> None:
    """The native cache's record of a library carries an HMAC under the folder's secret: another library put
    in its place, with its SHA-256 written into the record, is not loaded; it is rebuilt."""
    from rebirth_dsl.native import build as nbuild

    first = nbuild.build("int rb_mac(void) { return 1; }\n")
    other = nbuild.build("int rb_mac(void) { return 2; }\n")
    assert first.compiled and not nbuild.build("int rb_mac(void) { return 1; }\n").compiled
    lib, meta_file = first.path, first.path.with_suffix(".json")
    lib.write_bytes(other.path.read_bytes())
    meta = json.loads(meta_file.read_text())
    meta["sha256"] = hashlib.sha256(lib.read_bytes()).hexdigest()
    meta_file.write_text(json.dumps(meta))
    assert nbuild.verified(lib.parent, first.key) is None
    again = nbuild.build("int rb_mac(void) { return 1; }\n")
    assert again.compiled and again.path == lib and nbuild.verified(lib.parent, first.key) == lib
    secret = lib.parent / cache.KEY_FILE
    assert stat.S_IMODE(os.lstat(secret).st_mode) == 0o600
