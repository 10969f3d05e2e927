"""Compiling the generated C with the system compiler, once: the source and the shared library are kept in
the project's private cache folder (rebirth_dsl/cache.py's folder rules), named by the SHA-256 of the
source, the compiler's version and the flags, and verified before they are loaded.

A shared library is code, so it is loaded only from a folder that is a real folder owned by the current
user and closed to everybody else (0700), only if it is a regular file owned by the user that nobody else
can read or write, and only if its SHA-256 is the one recorded when this program built it, under an
HMAC with the folder's own secret (rebirth_dsl/cache.py's secret_key), so a library swapped in and given a
fresh SHA-256 by anybody who cannot read the secret is refused too. Anything else is ignored and rebuilt. `REBIRTH_CACHE=off` builds into a fresh private temporary folder per process.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rebirth_dsl import cache as dcache

FLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu11", "-fvisibility=hidden", "-fno-strict-aliasing", "-w")
MAX_LIB_BYTES = 64 * 1024 * 1024
MAX_AGE = dcache.MAX_AGE
BUILD_TIMEOUT = 300  # seconds: a huge board's tables compile in a few; a stuck compiler is stopped


class BuildError(Exception):
    """The C compiler is missing or failed; the message says which."""


@dataclass(frozen=True)
class Built:
    """A verified shared library ready to load, and what it cost to get it."""

    path: Path
    key: str
    compiled: bool  # built now (False: taken from the cache)
    seconds: float  # compile time when built now, else the time to verify the cached library


@cache
def compiler() -> tuple[str, str]:
    """The C compiler (`$CC`, else cc, gcc or clang on PATH) and the first line of its `--version`."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30, check=True)
        except (OSError, subprocess.SubprocessError):
            continue
        return path, (out.stdout.splitlines() or ["?"])[0].strip()
    raise BuildError("no C compiler found (install gcc or clang, or set CC)")


def _folder() -> Path:
    """The private folder the libraries live in: <cache>/native, else a temporary one of this process."""
    root = dcache.cache_dir()
    if root is not None and dcache._private_dir(root) and dcache._private_dir(root / "native"):
        return root / "native"
    return _temporary_folder()


@cache
def _temporary_folder() -> Path:
    """A private folder of this process, removed at exit (the cache is off or unusable)."""
    path = Path(tempfile.mkdtemp(prefix="rebirth-native-"))  # mode 0700, ours
    atexit.register(shutil.rmtree, path, True)
    return path


def key_of(source: str) -> str:
    """The cache key: the generated source, the compiler's version and the flags."""
    _, version = compiler()
    return dcache.digest("rebirth-native", source, version, " ".join(FLAGS))


def _private_file(path: Path) -> bytes | None:
    """The bytes of a library fit to load: cache.read_private, closed to group and others entirely."""
    return dcache.read_private(path, MAX_LIB_BYTES, others=0o077)


def _folder_ok(folder: Path) -> bool:
    """The folder is still a real folder of ours that nobody else can enter (checked again before loading)."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def verified(folder: Path, key: str) -> Path | None:
    """The cached library of this key, if its folder, owner, mode and SHA-256 are all as this program left
    them; None otherwise (it is then rebuilt)."""
    if not _folder_ok(folder):
        return None
    meta_raw = _private_file(folder / f"{key}.json")
    lib = folder / f"{key}.so"
    data = _private_file(lib)
    if meta_raw is None or data is None:
        return None
    try:
        meta = json.loads(meta_raw)
    except ValueError:
        return None
    sha = hashlib.sha256(data).hexdigest()
    if not isinstance(meta, dict) or meta.get("key") != key or meta.get("sha256") != sha:
        return None
    if not dcache.verify(folder, meta.get("mac"), key, sha):
        return None
    return lib


def _write_private(path: Path, data: bytes, folder: Path) -> None:
    """Write a file atomically with mode 0600 (mkstemp's) into the private folder."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        _remove(Path(tmp))
        raise


def _remove(path: Path) -> None:
    """Remove a file if it is there."""
    try:
        path.unlink()
    except OSError:
        pass


def build(source: str, fresh: bool = False) -> Built:
    """The verified library for this source: from the cache, else compiled now and cached. `fresh`: compile
    it now into a new private temporary folder, whatever the cache holds (what the benchmark times)."""
    cc, _ = compiler()
    key = key_of(source)
    folder = Path(tempfile.mkdtemp(prefix="rebirth-native-")) if fresh else _folder()
    if fresh:
        atexit.register(shutil.rmtree, folder, True)
    t0 = time.perf_counter()
    lib = None if fresh else verified(folder, key)
    if lib is not None:
        return Built(lib, key, False, time.perf_counter() - t0)
    for attempt in range(2):
        if attempt:  # another process raced us in the shared cache: build where only we write
            folder = _temporary_folder()
        _compile(cc, source, key, folder)
        lib = verified(folder, key)
        if lib is not None:
            _prune(folder)
            return Built(lib, key, True, time.perf_counter() - t0)
    raise BuildError("the built library could not be verified")


def _compile(cc: str, source: str, key: str, folder: Path) -> None:
    """Write the source and compile it into `<key>.so` beside it, with its SHA-256 recorded in `<key>.json`."""
    src = folder / f"{key}.c"
    _write_private(src, source.encode("utf-8"), folder)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".so")
    os.close(fd)
    try:
        try:
            proc = subprocess.run([cc, *FLAGS, "-o", tmp, str(src)], capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT)
        except (OSError, subprocess.SubprocessError) as e:
            raise BuildError(f"the C compiler could not run: {e}") from None
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
            raise BuildError(f"the C compiler failed: {first}")
        os.chmod(tmp, 0o700)  # the compiler honours the umask; the library must be ours alone
        data = _private_file(Path(tmp))
        if data is None:
            raise BuildError("the built library is not a private regular file")
        sha = hashlib.sha256(data).hexdigest()
        mac = dcache.sign(folder, key, sha)
        if mac is None:
            raise BuildError("no private secret could be kept beside the built library")
        meta = json.dumps({"key": key, "sha256": sha, "mac": mac, "compiler": compiler()[1],
                           "flags": list(FLAGS)}).encode()
        os.replace(tmp, folder / f"{key}.so")
        _write_private(folder / f"{key}.json", meta, folder)
    finally:
        _remove(Path(tmp))


def _prune(folder: Path) -> None:
    """Remove libraries, sources and records older than the data cache keeps its entries (a month); never
    the folder's secret."""
    now = time.time()
    try:
        for p in folder.iterdir():
            st = os.lstat(p)
            if (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and now - st.st_mtime > MAX_AGE
                    and p.name != dcache.KEY_FILE):  # the secret outlives the libraries it signed
                _remove(p)
    except OSError:
        return
