"""Reading input files and writing output files safely.

Reading: only regular files are read (a FIFO, a device or /dev/zero is refused at once instead of hanging
or filling memory), up to a size no real rules, board or record file comes near, decoded as UTF-8 with
the place of a bad byte named. Writing: to a temp file beside the target, then renamed into place
(never a half-written file); a target that is an input of the same command, or anything but a regular
file (a link, a device, a folder), is refused before any work starts.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.errors import RebirthError

if TYPE_CHECKING:
    from typing import IO, Any

MAX_INPUT_BYTES = 8 * 1024 * 1024  # the Scotland board is about 60 KB, a whole game record about 10 KB


def shown(path: str | Path) -> str:
    """A path as it can be printed: bytes that are not UTF-8 in a file name shown as escapes."""
    text = os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")
    # control characters (a NUL, a newline, an escape sequence) would be printed raw: show them escaped
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def read_bytes(path: str | Path, what: str = "file", limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file, or a RebirthError naming the file and the reason."""
    name = shown(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not block; it is refused just below
        fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except ValueError:
        raise RebirthError.single(f"cannot read {what}: the path contains a NUL byte", file=name) from None
    except OSError as e:
        raise RebirthError.single(f"cannot read {what}: {e.strerror or e}", file=name) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise RebirthError.single(f"cannot read {what}: {kind}", file=name)
        if st.st_size > limit:
            raise RebirthError.single(f"{what} is {st.st_size:,} bytes; the limit is {limit:,}", file=name)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # a file growing while it is read
                raise RebirthError.single(f"{what} is over the limit of {limit:,} bytes", file=name)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise RebirthError.single(f"cannot read {what}: {e.strerror or e}", file=name) from None
    finally:
        os.close(fd)


def read_text(path: str | Path, what: str = "file", limit: int = MAX_INPUT_BYTES) -> str:
    """A regular file's text as UTF-8; a file in another encoding is refused at its first bad byte."""
    return decode_text(read_bytes(path, what, limit), path, what)


def decode_text(data: bytes, path: str | Path, what: str = "file") -> str:
    """A file's bytes (read by read_bytes) as UTF-8 text, with read_text's refusals."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise RebirthError.single(f"{what} is UTF-16; save it as UTF-8", file=shown(path), line=1, col=1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise RebirthError.single(f"{what} is not UTF-8 text (byte 0x{data[e.start]:02x}); save it as UTF-8",
                                  file=shown(path), line=line, col=col) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise RebirthError.single(f"{what} holds a NUL character: not a text file", file=shown(path), line=line)
    return text.removeprefix("\ufeff")  # a byte-order mark some editors write


def json_loads(text: str | bytes, parse_constant: Callable[[str], Any] | None = None) -> Any:
    """`json.loads(text, parse_constant=...)`, read by the C scanner json.loads itself uses, without importing
    json: its decoder compiles its regular expressions as it is imported, on every start of a command that
    only reads JSON (a warm `rebirth eval`). A text this does not read as json.loads would (an encoding other than UTF-8,
    a byte-order mark, anything json refuses) is given to json.loads, so its value and its errors are json's."""
    scan = _SCANNERS.get(parse_constant)
    if scan is None:
        scan = _SCANNERS[parse_constant] = _scanner(parse_constant)
    s: str | bytes | None = text
    if type(text) is bytes:  # json.loads finds the encoding: UTF-8 unless a BOM or NULs say otherwise
        s = None if text[:3] == b"\xef\xbb\xbf" or b"\0" in text[:4] else _utf8(text)
    if scan is not False and type(s) is str:
        start = len(s) - len(s.lstrip(" \t\n\r"))  # json's whitespace around the value
        try:
            value, end = scan(s, start)
        except Exception:  # noqa: BLE001 - json.loads below raises json's own error (the scanner alone cannot:
            pass  # it finds json's error class in json.decoder, which is not imported)
        else:
            if end == len(s) or not s[end:].lstrip(" \t\n\r"):
                return value
    import json

    return json.loads(text, parse_constant=parse_constant)


def _utf8(data: bytes) -> str | None:
    """The bytes as json.loads decodes UTF-8 (surrogates passed), or None when they are not UTF-8."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


class _ScanContext:
    """What the C scanner reads from a json.JSONDecoder: its defaults, with `parse_constant` given."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int

    def __init__(self, parse_constant: Callable[[str], Any] | None) -> None:
        # json.decoder's own constants when none is given: -Infinity, Infinity and NaN as floats
        self.parse_constant = parse_constant or {"-Infinity": float("-inf"), "Infinity": float("inf"),
                                                 "NaN": float("nan")}.__getitem__


def _scanner(parse_constant: Callable[[str], Any] | None) -> Any:
    """The C scanner of json.loads for these settings (False where Python has none: json.loads reads all)."""
    try:
        from _json import make_scanner
    except ImportError:
        return False
    return make_scanner(_ScanContext(parse_constant))  # type: ignore[arg-type]  # the stubs want a JSONDecoder


_SCANNERS: dict[Callable[[str], Any] | None, Any] = {}


def check_output(path: str | Path, inputs: Sequence[str | Path] = ()) -> Path:
    """Refuse, before any work is done, an output path that would destroy an input or is not a plain file
    to write: an input of the same command, a link, a device, a folder, or a missing or read-only folder."""
    name = shown(path)
    try:
        p = Path(os.fspath(path))
        os.fspath(p).encode("utf-8", "surrogateescape")
        if "\x00" in os.fspath(p):
            raise ValueError
    except (ValueError, TypeError):
        raise RebirthError.single("cannot write: the path contains a NUL byte", file=name) from None
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise RebirthError.single(f"cannot write: {e.strerror or e}", file=name) from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise RebirthError.single("will not write through a symbolic link; name the file itself", file=name)
        if not stat.S_ISREG(st.st_mode):
            raise RebirthError.single("will not write over something that is not a regular file", file=name)
        for inp in inputs:
            try:
                if os.path.samefile(p, inp):
                    raise RebirthError.single(f"will not overwrite an input of this command ({shown(inp)})",
                                              file=name)
            except OSError:
                continue
    folder = p.parent if str(p.parent) else Path(".")
    try:
        is_folder = folder.is_dir()
    except OSError as e:  # is_dir() lets a name too long or a permission error through
        raise RebirthError.single(f"cannot write: {e.strerror or e}", file=name) from None
    if not is_folder:
        raise RebirthError.single(f"cannot write: the folder {shown(folder)} does not exist", file=name)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise RebirthError.single(f"cannot write: the folder {shown(folder)} is not writable", file=name)
    return p


def check_output_folder(path: str | Path, flag: str) -> Path:
    """Refuse, before any work is done, a folder an option writes into that cannot take the files: a file
    or a device in its place, a link to nothing, a missing parent or a folder that is not writable. A
    missing folder whose parent can take it is made when the files are written."""
    folder = Path(path)
    name = shown(folder)
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise RebirthError.single(f"{flag}: cannot use the folder: {e.strerror or e}", file=name) from None
    if st is None:
        if os.path.lexists(folder):  # a link to nothing: making the folder would fail after the games
            raise RebirthError.single(f"{flag}: a symbolic link to nothing (name a folder)", file=name)
        parent = folder.parent
        if not parent.is_dir():
            raise RebirthError.single(f"{flag}: the folder {shown(parent)} does not exist", file=name)
        if not os.access(parent, os.W_OK | os.X_OK):
            raise RebirthError.single(f"{flag}: cannot create the folder: {shown(parent)} is not writable",
                                      file=name)
    else:
        if not stat.S_ISDIR(st.st_mode):
            raise RebirthError.single(f"{flag}: not a folder (name a folder: the files are written into it)",
                                      file=name)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise RebirthError.single(f"{flag}: the folder is not writable", file=name)
    return folder


def write_text_atomic(path: str | Path, text: str, exclusive: bool = False) -> None:
    """Write text to a temp file beside the target, then rename it into place. `exclusive`: never over a
    file that exists, even one made meanwhile (the temp file is linked into place, which fails if so)."""
    with atomic_file(path, exclusive) as f:
        f.write(text)


@contextmanager
def atomic_file(path: str | Path, exclusive: bool = False, binary: bool = False) -> Iterator[IO[Any]]:
    """write_text_atomic for a file written piece by piece (a table of many rows, streamed; `binary`: bytes):
    the open temp file, renamed into place when the block ends, removed if it raises."""
    import tempfile  # writing only (it pulls in shutil, bz2, lzma, random): not on a reading command's path

    p = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=str(p.parent) or ".", prefix=f".{p.name}.", suffix=".tmp")
    except OSError as e:
        raise RebirthError.single(f"cannot write: {e.strerror or e}", file=shown(path)) from None
    try:
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes files private; give the file the usual mode
        if exclusive:
            try:
                os.link(tmp, p)
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: claim the name first, then move the text onto it
                os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
                os.replace(tmp, p)
            else:
                _unlink(tmp)
        else:
            os.replace(tmp, p)
    except FileExistsError:
        _unlink(tmp)
        raise RebirthError.single("already exists: not overwritten (remove it or choose another name)",
                                  file=shown(path)) from None
    except OSError as e:
        _unlink(tmp)
        raise RebirthError.single(f"cannot write: {e.strerror or e}", file=shown(path)) from None
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
