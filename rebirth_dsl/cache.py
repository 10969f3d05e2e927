"""A cache on disk that can never run code: plain JSON data in a folder only the current user can write.

What it holds (the parser's tables, parsed rules, boards and records as their validators produced them,
the fact that a ruleset passed its checks on a board) is rebuilt whenever an entry is missing, foreign,
corrupt or stale, so the cache can only ever make a command faster, never change what it does:

- Entries are JSON, decoded into a fixed set of classes named by the caller (never pickle: a planted file
  can at most be ignored).
- The folder is made with mode 0700; it is used only if it is a real folder owned by the current user
  and closed to others, and an entry only if it is a regular file owned by the user that nobody else may
  write. Anything else is ignored, never an error.
- Each entry records the format version, its key and a MAC of its namespace, key and payload (BLAKE2b
  keyed with the secret, the MAC mode BLAKE2 is made for and hashlib documents in place of HMAC) under a
  secret of the user's own (KEY_FILE in the folder: 32 random bytes, mode 0600, made with
  O_CREAT|O_EXCL|O_NOFOLLOW). One byte changed, a truncated file, another version, or a payload edited
  and given a fresh checksum by anyone who cannot read the secret (a script, another tool run as the
  same user, a hand edit) reads as a miss and the entry is rebuilt. A secret that is missing, a link,
  not a regular file of the user's or open to anyone else is replaced by a new one, which turns every
  entry into a miss: the cache starts empty.
- The folder is pruned to the MAX_ENTRIES entries used last (reading an entry renews its time), and
  entries unused for MAX_AGE are removed.

`REBIRTH_CACHE=off` turns it off; `REBIRTH_CACHE=DIR` moves it (default: $XDG_CACHE_HOME/rebirth-dsl or
~/.cache/rebirth-dsl).
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.files import json_loads
from rebirth_dsl.shared_methods import Struct, field_names

if TYPE_CHECKING:
    from typing import Any

# hashlib's own BLAKE2 and hmac's own constant-time comparison, from the modules hashlib and hmac take them
# from: importing either of those loads OpenSSL, a noticeable part of every `rebirth eval`'s start
try:
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it: hashlib's (from OpenSSL)
    from hashlib import blake2b
try:
    from _operator import _compare_digest as compare_digest
except ImportError:
    from hmac import compare_digest  # type: ignore[no-redef]  # the same function

FORMAT = 2  # 2: BLAKE2b keys and MACs
MAX_ENTRIES = 256
MAX_AGE = 60 * 60 * 24 * 30  # seconds: a month
MAX_ENTRY_BYTES = 16 * 1024 * 1024
KEY_FILE = "secret.key"  # not .json: pruning never removes it
KEY_BYTES = 32


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is off."""
    root = os.environ.get("REBIRTH_CACHE")
    if root == "off":
        return None
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "rebirth-dsl")
    return Path(root)


def _private_dir(path: Path) -> bool:
    """Make the folder if needed; True only if it is ours, a real folder, and closed to others."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return False  # a link, or somebody else's folder: never read from it
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)  # ours but open (e.g. made by an older version with 0755): close it
        except OSError:
            return False
    return True


def _key_name(namespace: str, key: str) -> str:
    return f"{namespace}-{key}.json"


def digest(*parts: bytes | str) -> str:
    """A 256-bit BLAKE2b key over the parts (separated, so no two part lists collide)."""
    h = blake2b(digest_size=32)
    for p in parts:
        b = p.encode("utf-8", "surrogatepass") if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "big"))
        h.update(b)
    return h.hexdigest()


def code_of(files: list[Path], package: str | None = None) -> bytes:
    """What identifies the code a cached result depends on: these source files as the system knows them,
    and the installed version of a package that judged it (its version.py, found without importing it);
    part of a cache key. A file is known by its name, size, inode and the times of its last change: any
    write, replacement, copy or touch gives it a new change time (st_ctime, which no program can set back),
    so an edited file misses, however its modification time is set, as Python's own bytecode cache is
    fresh by a file's size and modification time. Hashing the files' contents instead read and hashed
    the checker's whole source at every start of every command."""
    parts = []
    for f in files:
        st = os.stat(f)
        parts.append(f"{f.name}\0{st.st_size}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}".encode())
    if package is not None:
        import importlib.util

        spec = importlib.util.find_spec(package)  # found, not imported
        try:
            parts.append(Path(spec.origin).with_name("version.py").read_bytes() if spec and spec.origin else b"?")
        except OSError:
            parts.append(b"?")
    return b"\0".join(parts)


def load(namespace: str, key: str) -> Any | None:
    """The payload stored under the key, or None for a miss (absent, foreign, corrupt, stale or not signed
    with this user's secret)."""
    root = cache_dir()
    if root is None or not _private_dir(root):
        return None
    path = root / _key_name(namespace, key)
    raw = read_private(path, MAX_ENTRY_BYTES)
    if raw is None:
        return None
    secret = secret_key(root)
    if secret is None:
        return None
    header, sep, body = raw.partition(b"\n")
    try:
        meta = json_loads(header)
        mac = meta.get("mac")
        if (not sep or meta.get("format") != FORMAT or meta.get("key") != key or not isinstance(mac, str)
                or not compare_digest(mac, _mac(secret, namespace, key, body))):
            raise ValueError("stale, corrupt or not ours")
        payload = json_loads(body)
    except (ValueError, AttributeError, RecursionError):
        _remove(path)  # rebuilt by the caller
        return None
    try:  # used: pruning keeps the entries used last (the parser's tables outlive a stream of records)
        os.utime(path, follow_symlinks=False)
    except OSError:
        pass
    return payload


def _mac(secret: bytes, namespace: str, key: str, body: bytes) -> str:
    """The entry's MAC (BLAKE2b keyed with the secret): the format, where it is filed and what it holds, each
    length-prefixed."""
    parts = [str(FORMAT).encode(), namespace.encode("utf-8", "surrogatepass"), key.encode("utf-8", "surrogatepass"),
             body]
    return blake2b(b"".join(len(p).to_bytes(8, "big") + p for p in parts), digest_size=32, key=secret).hexdigest()


def sign(root: Path, *parts: bytes | str) -> str | None:
    """A MAC of the parts under the secret of the private folder `root` (None if none can be kept)."""
    secret = secret_key(root)
    return None if secret is None else blake2b(bytes.fromhex(digest(*parts)), digest_size=32, key=secret).hexdigest()


def verify(root: Path, mac: object, *parts: bytes | str) -> bool:
    """True if `mac` is sign(root, *parts): the parts were written by this user's copy of the program."""
    good = sign(root, *parts)
    return good is not None and isinstance(mac, str) and compare_digest(mac, good)


def secret_key(root: Path) -> bytes | None:
    """The user's secret in the private folder `root`, made now if missing or unfit to trust (a link, a
    foreign or open file, the wrong size), which leaves every entry signed before unverifiable; None if
    no secret can be kept there (the cache is then not used)."""
    path = root / KEY_FILE
    secret = _read_secret(path)
    if secret is not None:
        return secret
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError:
        return None
    if st is not None:
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and st.st_size < KEY_BYTES \
                and time.time() - st.st_mtime < 5:
            return None  # another process has just made it and is writing it: use no cache this time
        _remove(path)  # a link, a foreign or open file, the wrong size: replace it (a folder stays and fails)
    new = os.urandom(KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        return _read_secret(path)  # another process made it first: use theirs
    except OSError:
        return None
    try:
        os.fchmod(fd, 0o600)  # the umask may have taken bits away, never added them; be exact anyway
        written = os.write(fd, new)
    except OSError:
        written = 0
    finally:
        os.close(fd)
    if written != KEY_BYTES:
        _remove(path)
        return None
    return new


def _read_secret(path: Path) -> bytes | None:
    """The secret if the file is fit to trust: a regular file of the user's that only the user may read or
    write (no bit of 0o177 set), not reached through a link, of exactly KEY_BYTES bytes."""
    data = read_private(path, KEY_BYTES, others=0o177)
    return data if data is not None and len(data) == KEY_BYTES else None


def read_private(path: Path, limit: int, others: int = 0o022) -> bytes | None:
    """The bytes of a file fit to trust: a regular file owned by the current user, that no one else may
    write (`others`: the mode bits that must be clear), not reached through a link, at most `limit` bytes;
    None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & others or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def store(namespace: str, key: str, payload: Any) -> None:
    """Write the payload under the key, atomically; any failure leaves the cache as it was."""
    root = cache_dir()
    if root is None or not _private_dir(root):
        return
    import json  # only when an entry is written: a warm run reads its entries with files.json_loads

    try:
        body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError, RecursionError):
        return
    secret = secret_key(root)
    if secret is None:
        return
    header = json.dumps({"format": FORMAT, "key": key, "mac": _mac(secret, namespace, key, body)}).encode()
    import tempfile  # only when an entry is written: a warm run never writes

    try:
        fd, tmp = tempfile.mkstemp(dir=root, prefix=".tmp-", suffix=".json")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header + b"\n" + body)
            os.replace(tmp, root / _key_name(namespace, key))
        except BaseException:
            _remove(Path(tmp))
            raise
    except OSError:
        return
    prune(root)


def prune(root: Path, max_entries: int = MAX_ENTRIES, max_age: float = MAX_AGE) -> None:
    """Keep the newest entries: at most max_entries, none older than max_age seconds."""
    try:
        entries = []
        for p in root.iterdir():
            if p.suffix == ".json":
                st = os.lstat(p)
                if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid():
                    entries.append((st.st_mtime, p))
    except OSError:
        return
    entries.sort(reverse=True)
    now = time.time()
    for i, (mtime, p) in enumerate(entries):
        if i >= max_entries or now - mtime > max_age:
            _remove(p)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


# ----- a JSON codec for plain data and a fixed set of dataclasses --------------------------------
def encode(x: Any) -> Any:
    """Plain JSON for dicts (any keys), tuples, lists, scalars and dataclass instances."""
    if x is None or isinstance(x, bool | int | float | str):
        return x
    if isinstance(x, list):
        return [encode(v) for v in x]
    if isinstance(x, tuple):
        return {"t": [encode(v) for v in x]}
    if isinstance(x, dict):
        return {"d": [[encode(k), encode(v)] for k, v in x.items()]}
    names = field_names(type(x))  # the classes of rebirth_dsl/shared_methods.py, without importing dataclasses
    if not names and "dataclasses" in sys.modules:  # any other dataclass: its module is imported already
        dc = sys.modules["dataclasses"]
        names = tuple(f.name for f in dc.fields(x)) if dc.is_dataclass(x) and not isinstance(x, type) else ()
    if names:
        return {"c": type(x).__name__, "f": {name: encode(getattr(x, name)) for name in names}}
    raise TypeError(f"cannot cache a {type(x).__name__}")


_LEAVES = frozenset({str, int, float, bool, type(None)})
_new = object.__new__
_set = object.__setattr__


def decode(x: Any, classes: dict[str, type]) -> Any:
    """The inverse of encode; a dataclass is rebuilt only if its name is one of `classes`."""
    kind = type(x)  # what json.loads (and files.json_loads) makes: these exact types
    if kind in _LEAVES:
        return x
    if kind is list:
        return [decode(v, classes) for v in x]
    if kind is dict:
        if "t" in x:
            return tuple([decode(v, classes) for v in x["t"]])
        if "d" in x:
            return {decode(k, classes): decode(v, classes) for k, v in x["d"]}
        cls = classes[x["c"]]  # a KeyError for any other name: the entry is refused
        f = x["f"]
        if tuple(f) == getattr(cls, "__match_args__", None):  # every field, in the order encode writes them
            if getattr(cls, "__init__", None) is Struct.__init__:
                # the shared constructor given every field by position only sets each (shared_methods.py): set
                # here, without packing the arguments for it, a warm eval decodes its AST in half the time
                made: Any = _new(cls)
                for name, v in f.items():
                    _set(made, name, v if type(v) in _LEAVES else decode(v, classes))
                return made
            return cls(*[decode(v, classes) for v in f.values()])
        return cls(**{k: decode(v, classes) for k, v in f.items()})
    raise TypeError(f"not cache data: {type(x).__name__}")
