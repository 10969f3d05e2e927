"""What a request must be before the server acts on it (docs/security.md).

- **Host**: only the names the server is reached by (its own address, loopback names for a loopback server,
  `--allow-host` names): a page on another site that re-points its own name at this server (DNS
  rebinding) is refused before any route runs.
- **Origin**: a request that changes anything (every POST) must come from the server's own pages: an
  `Origin` equal to the request's host (or, without one, `Sec-Fetch-Site: same-origin`) and a JSON body
  (`application/json` cannot be sent cross-site without a preflight, which this server never grants).
- **Page token**: routes that read files (new games, study) also need the secret written into the page.
- **Bodies**: size-limited, JSON only, nesting at most MAX_DEPTH deep, no NaN or Infinity, numbers of
  bounded length.
- **Rates**: moves per seat and open long polls per client are bounded.

Nothing here knows the game: it is the server's front door only.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

MAX_BODY = 1024 * 1024  # a rules file is at most 256 KB, a board about 60 KB, a record about 10 KB
MAX_DEPTH = 32  # the deepest real body (a record's setup) nests 4 deep
MAX_NUMBER_DIGITS = 30  # a seed, a version, a coordinate: none is longer

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class Refused(Exception):
    """A request refused at the door: an HTTP status and a message that names nothing of the server's."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def host_name(value: str) -> str:
    """The name part of a Host header or an origin's netloc, lower case, without the port."""
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value[1:value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def is_loopback(host: str) -> bool:
    """Whether an address is this machine's own (then a page may name files by path, with --local-files)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host names a server listening on `host` answers to: the address itself, loopback names for a
    loopback or wildcard address, this machine's name and addresses for a wildcard one, and `extra`."""
    names = {host_name(h) for h in extra if h.strip()}
    names.add(host.strip("[]").lower())
    wildcard = host in ("0.0.0.0", "::", "")
    if is_loopback(host) or wildcard:
        names |= {"localhost", "127.0.0.1", "::1"}
    if wildcard:
        import socket

        try:
            me = socket.gethostname()
            names.add(me.lower())
            names |= {str(a[4][0]).lower() for a in socket.getaddrinfo(me, None)}
        except OSError:
            pass
    return frozenset(n for n in names if n)


class HostGuard:
    """ASGI middleware: a request whose Host is not one of the server's names is answered 421 at once."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        """Pass on a request addressed to this server; answer any other with 421."""
        if scope["type"] == "http":
            host = ""
            for k, v in scope.get("headers") or ():
                if k == b"host":
                    host = v.decode("latin-1")
                    break
            if host_name(host) not in self.hosts:
                body = json.dumps({"error": "this server does not answer to that host name (see --allow-host)"})
                await send({"type": "http.response.start", "status": 421,
                            "headers": [(b"content-type", b"application/json"), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await self.app(scope, receive, send)


def check_same_origin(headers: Any) -> None:
    """Refuse a state-changing request that does not come from the server's own pages."""
    host = host_name(headers.get("host") or "")
    origin = headers.get("origin")
    if origin is not None:
        try:
            parts = urlsplit(origin)
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or host_name(parts.netloc) != host:
            raise Refused(403, "this request comes from another site's page: refused")
    elif (headers.get("sec-fetch-site") or "") != "same-origin":
        raise Refused(403, "a request that changes a game must come from this server's pages (no Origin header)")
    kind = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, "the request body must be sent as application/json")


def same_secret(given: Any, secret: str) -> bool:
    """Whether a request carries a secret, compared in constant time (a secret is a password); anything
    that is not text, or is empty, is simply not it (a lone surrogate from JSON too)."""
    if not isinstance(given, str) or not given:
        return False
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode())


def check_page_token(headers: Any, token: str) -> None:
    """Refuse a request that reads files unless it carries the secret written into this server's page."""
    if not same_secret(headers.get("x-rebirth-page"), token):
        raise Refused(403, "this request must come from this server's page (reload the page)")


def _depth_ok(raw: bytes, limit: int) -> bool:
    """Whether the JSON text nests at most `limit` deep (read before parsing: the parser recurses)."""
    depth, in_str, esc = 0, False, False
    for b in raw:
        if in_str:
            if esc:
                esc = False
            elif b == 0x5C:  # backslash
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return False
        elif b in (0x5D, 0x7D):
            depth -= 1
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number this server takes")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError("a number too long")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise ValueError("a number too long")
    return float(text)


def parse_body(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object, or Refused with what is wrong with it."""
    if len(raw) > MAX_BODY:
        raise Refused(413, f"the request is over {MAX_BODY:,} bytes")
    if not _depth_ok(raw, MAX_DEPTH):
        raise Refused(400, f"the request body nests more than {MAX_DEPTH} deep")
    try:
        data = json.loads(raw or b"{}", parse_constant=_no_constant, parse_int=_int, parse_float=_float)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused(400, "the request body is not JSON (numbers must be finite and short)") from None
    if not isinstance(data, dict):
        raise Refused(400, "the request body is a JSON object")
    return data


class RateLimit:
    """Token buckets by key: `rate` actions a second on average, `burst` at once."""

    def __init__(self, rate: float, burst: int, keys: int = 100_000) -> None:
        self.rate, self.burst, self.keys = rate, burst, keys
        self._buckets: dict[Any, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: Any) -> bool:
        """Take one action for key if its bucket has one."""
        now = time.monotonic()
        with self._lock:
            level, then = self._buckets.get(key, (float(self.burst), now))
            level = min(float(self.burst), level + (now - then) * self.rate)
            if level < 1.0:
                self._buckets[key] = (level, now)
                return False
            if len(self._buckets) >= self.keys:  # bounded memory: the oldest buckets are forgotten
                for k in list(self._buckets)[: self.keys // 10]:
                    del self._buckets[k]
            self._buckets[key] = (level - 1.0, now)
            return True


class Counter:
    """How many of something each key has open at once (long polls per client), with a bound."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[Any, int] = {}
        self._lock = threading.Lock()

    def enter(self, key: Any) -> bool:
        """Open one for key, unless it has `limit` open already."""
        with self._lock:
            n = self._open.get(key, 0)
            if n >= self.limit:
                return False
            self._open[key] = n + 1
            return True

    def leave(self, key: Any) -> None:
        """Close one for key."""
        with self._lock:
            n = self._open.get(key, 0) - 1
            if n <= 0:
                self._open.pop(key, None)
            else:
                self._open[key] = n
