"""`rebirth serve`: the web app. Starlette routes over the Hub (hub.py), plain HTML/JS/SVG pages from
`static/`, uvicorn as the server. Starlette and uvicorn are the optional extra `[web]`: nothing else in
the package imports this module. What a request must be before it is acted on is guard.py's; the threat
model is docs/security.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import os
import re
import secrets
import socket
import sys
import traceback
from collections.abc import AsyncIterator, Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.records.record import dumps
from rebirth_dsl.web.analysis import Analyst
from rebirth_dsl.web.guard import (
    MAX_BODY,
    Counter,
    HostGuard,
    Refused,
    allowed_hosts,
    check_page_token,
    check_same_origin,
    is_loopback,
    parse_body,
)
from rebirth_dsl.web.hub import Hub, WebError, catalog

LONG_POLL = 20.0  # seconds a page waits for a change before it asks again
POLLS_PER_CLIENT = 16  # long polls one address may hold open: a table of four seats in tabs, twice over
HEADER_TIMEOUT = 10.0  # seconds a connection has to send a whole request (headers and body)
MAX_CONNECTIONS = 1000  # open connections at once; more are closed at once, never left to use up descriptors

__all__ = ["is_loopback", "make_app", "serve", "static_dir", "default_data_dir"]


def static_dir() -> Path:
    """The page's files, shipped as package data."""
    return Path(str(resources.files("rebirth_dsl.web") / "static"))


def default_data_dir() -> Path:
    """Where games are kept unless --data says: $XDG_DATA_HOME/rebirth-dsl or ~/.local/share/rebirth-dsl."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rebirth-dsl"


def make_app(hub: Hub, hosts: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1"}),
             page_token: str | None = None) -> Starlette:
    """The Starlette application over a Hub, answering only to `hosts`."""
    token = page_token or secrets.token_urlsafe(24)
    polls = Counter(POLLS_PER_CLIENT)
    analyst = Analyst(hub)
    page_html = (static_dir() / "index.html").read_text(encoding="utf-8").replace(
        "<head>", f'<head>\n<meta name="rebirth-page" content="{token}">', 1)

    async def call(fn: Callable[..., Any], *args: Any) -> Any:
        """Run a Hub method in a worker thread."""
        return await run_in_threadpool(fn, *args)  # the engine's work never blocks the event loop

    async def soon(fn: Callable[..., Any], gid: str, *args: Any) -> Any:
        """Run a Hub method that reads a game: right here when the game is in memory and nobody is changing
        it (drawing a view costs less than handing it to a worker thread and back), else in a worker."""
        live = hub.loaded(gid)
        if live is not None and live.lock.acquire(blocking=False):
            try:
                return fn(gid, *args)
            finally:
                live.lock.release()
        return await call(fn, gid, *args)

    async def body(request: Request) -> dict[str, Any]:
        """The request's JSON object: from this server's pages only, size- and depth-limited."""
        check_same_origin(request.headers)
        size = request.headers.get("content-length")
        if size is not None and (not size.isascii() or not size.isdigit() or int(size[:12]) > MAX_BODY):
            raise Refused(413, f"the request is over {MAX_BODY:,} bytes")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise Refused(413, f"the request is over {MAX_BODY:,} bytes")
        return parse_body(bytes(raw))

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        """Refusals as JSON with their status; an unexpected failure as a message with an id, its details
        in the server's log only (never a traceback or an exception's text to the browser)."""
        async def wrapped(request: Request) -> Response:
            """The handler, its refusals turned into JSON."""
            try:
                return await handler(request)
            except WebError as e:
                return JSONResponse(e.body(), status_code=e.status)
            except Refused as e:
                return JSONResponse({"error": e.message}, status_code=e.status)
            except RebirthError as e:
                return JSONResponse({"error": hub.scrub(e.render())}, status_code=400)
            except ClientDisconnect:
                return Response(status_code=400)
            except Exception as e:  # noqa: BLE001 - a message, not a dropped connection
                eid = secrets.token_hex(4)
                print(f"rebirth serve: error {eid} on {request.method} {request.url.path}: {type(e).__name__}\n"
                      + "".join(traceback.format_exception(e)), file=sys.stderr)
                return JSONResponse({"error": f"the server failed on this request (error {eid}, in its log)"},
                                    status_code=500)
        return wrapped

    def query(request: Request, name: str) -> str | None:
        """A query parameter, bounded in length (a token is 22 characters)."""
        value = request.query_params.get(name)
        return None if value is None else value[:200]

    async def page(request: Request) -> Response:
        """The one page: its script reads the address (home, a game, a study, my games)."""
        return Response(page_html, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                 "Content-Security-Policy": "frame-ancestors 'none'",
                                 "Referrer-Policy": "no-referrer"})

    async def api_catalog(request: Request) -> Response:
        """GET: the bundled games and the agents, for the new-game form."""
        return JSONResponse({**await call(catalog), "local_files": hub.local_files})

    async def api_create(request: Request) -> Response:
        """POST: a new game, or a branch of a record; its links, one secret per person's seat."""
        spec = await body(request)
        check_page_token(request.headers, token)  # it reads files (bundled, or a record to branch from)
        live, links = await call(hub.create, spec)
        return JSONResponse({"id": live.id, "links": links}, status_code=201)

    async def api_view(request: Request) -> Response:
        """GET: the seat's view; with `after`, first wait (up to `wait` s) until the game changes."""
        gid = request.path_params["gid"]
        tok = query(request, "t")
        after_text = query(request, "after")
        if after_text is not None:
            if not re.fullmatch(r"-?[0-9]{1,18}", after_text):  # not "--5", "²" or 5,000 digits: int() refuses them
                raise WebError(400, "after: a version number")
            after = int(after_text)
            try:
                wait = float(query(request, "wait") or LONG_POLL)
            except ValueError:
                wait = float("nan")
            if not math.isfinite(wait):
                raise WebError(400, "wait: a number of seconds")
            wait = min(max(wait, 0.0), LONG_POLL)
            v = await call(hub.version, gid, tok)
            client = request.client.host if request.client else ""
            if v <= after and wait > 0:
                if not polls.enter(client):
                    raise WebError(429, f"this address holds {POLLS_PER_CLIENT} waiting pages already: close some")
                try:
                    loop = asyncio.get_running_loop()
                    end = loop.time() + wait
                    while v <= after and loop.time() < end and not hub.stopping.is_set():
                        await asyncio.sleep(0.05)
                        v = hub.version(gid, tok)  # a dict look-up once the game is loaded
                finally:
                    polls.leave(client)
            if v <= after:
                return JSONResponse({"version": v, "unchanged": True})
        gz = accepts_gzip(request)
        data = await soon(hub.view_json, gid, tok, gz)  # made once per version and seat
        return Response(data, media_type="application/json", headers=packed_headers(gz))

    async def api_svg(request: Request) -> Response:
        """GET: the game's position as SVG, drawn once per version for every seat."""
        gz = accepts_gzip(request)
        data = await soon(hub.svg, request.path_params["gid"], query(request, "t"), gz)
        return Response(data, media_type="image/svg+xml",
                        headers={**packed_headers(gz), "X-Content-Type-Options": "nosniff",
                                 "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})

    async def api_move(request: Request) -> Response:
        """POST: the seat's move, or its answer to the question its placement asked."""
        data = await body(request)
        out = await call(hub.move, request.path_params["gid"], data.get("t"), data)
        return JSONResponse(out)

    async def api_undo(request: Request) -> Response:
        """POST: take back the seat's last move (against agents, when it reveals nothing)."""
        data = await body(request)
        return JSONResponse(await call(hub.undo, request.path_params["gid"], data.get("t")))

    async def api_summary(request: Request) -> Response:
        """GET: the game in a line for the seat's link (the My games page lists them)."""
        return JSONResponse(await soon(hub.summary, request.path_params["gid"], query(request, "t")),
                            headers={"Cache-Control": "no-store"})

    async def api_record(request: Request) -> Response:
        """GET: the finished game's record, as a download."""
        data, name = await call(hub.record, request.path_params["gid"], query(request, "t"))
        return Response(dumps(data) + "\n", media_type="application/json",
                        headers={"Content-Disposition": attachment(name)})

    async def api_file(request: Request) -> Response:
        """GET: an uploaded rules or board file of a game, as the store keeps it."""
        text, name = await call(hub.file, request.path_params["gid"], query(request, "t"),
                                request.path_params["key"])
        return Response(text, media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": attachment(name), "X-Content-Type-Options": "nosniff"})

    async def api_study(request: Request) -> Response:
        """POST: a record's position after a number of moves."""
        data = await body(request)
        check_page_token(request.headers, token)  # it reads files: bundled examples, or a path with --local-files
        return JSONResponse(await call(hub.study, data.get("source"), data.get("step")))

    def client_key(request: Request) -> tuple[str, str]:
        """The rate key of the client's address."""
        return ("client", request.client.host if request.client else "")

    async def analysis_body(request: Request, key: Any) -> dict[str, Any]:
        """An analysis request: from this server's page (origin and page secret: it costs a core for a
        second), within the rate for `key` and for the client's address."""
        data = await body(request)
        check_page_token(request.headers, token)
        client = client_key(request)
        analyst.admit(key)
        if key != client:
            analyst.admit(client)
        return data

    async def api_hint(request: Request) -> Response:
        """POST: the seat's moves ranked by playouts (`rebirth hint`), from what the seat may see."""
        gid = request.path_params["gid"]
        data = await analysis_body(request, ("game", gid))
        return JSONResponse(await call(analyst.seat_hint, gid, data.get("t")))

    async def api_forecast(request: Request) -> Response:
        """POST: each player's expected final score and chance to win, from the seat's view."""
        gid = request.path_params["gid"]
        data = await analysis_body(request, ("game", gid))
        return JSONResponse(await call(analyst.seat_forecast, gid, data.get("t")))

    async def api_position(request: Request) -> Response:
        """POST: a notation (text the page posts, never a file) -> its board, scores, legal moves, setup."""
        data = await body(request)
        check_page_token(request.headers, token)
        if data.get("edit") is not None:
            return JSONResponse(await call(analyst.edit, data.get("notation"), data.get("edit")))
        return JSONResponse(await call(analyst.analyse, data.get("notation")))

    async def api_position_hint(request: Request) -> Response:
        """POST: `rebirth hint` on a notation."""
        data = await analysis_body(request, client_key(request))
        return JSONResponse(await call(analyst.position_hint, data.get("notation")))

    async def api_position_forecast(request: Request) -> Response:
        """POST: `rebirth eval --forecast` on a notation."""
        data = await analysis_body(request, client_key(request))
        return JSONResponse(await call(analyst.position_forecast, data.get("notation")))

    async def api_position_from(request: Request) -> Response:
        """POST: the notation of a record's position after a number of moves (Analyse from here)."""
        data = await body(request)
        check_page_token(request.headers, token)  # it reads records as the study does
        return JSONResponse(await call(analyst.from_record, data.get("source"), data.get("step")))

    async def api_review(request: Request) -> Response:
        """POST: the review of a finished record: every move against the best, each player's chances."""
        data = await analysis_body(request, client_key(request))
        return JSONResponse(await call(analyst.review, data.get("source")))

    async def not_found(request: Request) -> Response:
        """Any other API address: 404 as JSON."""
        raise WebError(404, "no such address")

    routes = [
        Route("/", page),
        Route("/game/{gid}", page),
        Route("/study", page),
        Route("/games", page),
        Route("/analyse", page),
        Route("/api/catalog", guarded(api_catalog)),
        Route("/api/games", guarded(api_create), methods=["POST"]),
        Route("/api/games/{gid}", guarded(api_view)),
        Route("/api/games/{gid}/move", guarded(api_move), methods=["POST"]),
        Route("/api/games/{gid}/undo", guarded(api_undo), methods=["POST"]),
        Route("/api/games/{gid}/summary", guarded(api_summary)),
        Route("/api/games/{gid}/record", guarded(api_record)),
        Route("/api/games/{gid}/board.svg", guarded(api_svg)),
        Route("/api/games/{gid}/files/{key}", guarded(api_file)),
        Route("/api/study", guarded(api_study), methods=["POST"]),
        Route("/api/games/{gid}/hint", guarded(api_hint), methods=["POST"]),
        Route("/api/games/{gid}/forecast", guarded(api_forecast), methods=["POST"]),
        Route("/api/position", guarded(api_position), methods=["POST"]),
        Route("/api/position/hint", guarded(api_position_hint), methods=["POST"]),
        Route("/api/position/forecast", guarded(api_position_forecast), methods=["POST"]),
        Route("/api/position/from", guarded(api_position_from), methods=["POST"]),
        Route("/api/review", guarded(api_review), methods=["POST"]),
        Route("/api/{rest:path}", guarded(not_found), methods=["GET", "POST"]),
        # the page's scripts are compressed per request (they are small and the browser keeps them)
        Mount("/static", GZipMiddleware(StaticFiles(directory=str(static_dir())), minimum_size=2048), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """On shutdown, stop the agents."""
        yield
        hub.stop()  # agent threads stop at their next step

    async def http_refusal(request: Request, exc: Exception) -> Response:
        """Starlette's own refusals (a method a route does not take): JSON on the API, as every other."""
        status = getattr(exc, "status_code", 400)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": f"{request.method} is not taken at this address"}, status_code=status,
                                headers=getattr(exc, "headers", None))
        return Response(status_code=status, headers=getattr(exc, "headers", None))

    return Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: http_refusal},
                     middleware=[Middleware(HostGuard, hosts=hosts)])


def accepts_gzip(request: Request) -> bool:
    """Whether to compress an answer: the client reads gzip (every browser does) and is not on this machine
    (on loopback, compressing costs more than sending; behind a reverse proxy the client is the one the
    proxy names)."""
    if "gzip" not in (request.headers.get("accept-encoding") or "").lower():
        return False
    return not (request.client is not None and is_loopback(request.client.host))


def packed_headers(gz: bool) -> dict[str, str]:
    """The headers of an answer made once per version: never cached, compressed when asked."""
    out = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
    if gz:
        out["Content-Encoding"] = "gzip"
    return out


def attachment(name: str) -> str:
    """A Content-Disposition for a download: the name in ASCII, and in UTF-8 for browsers that read it."""
    from urllib.parse import quote

    plain = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in name)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe='')}"


def guarded_protocol(header_timeout: float, max_connections: int) -> type:
    """uvicorn's HTTP/1.1 protocol (httptools' parser when installed, else h11) with two bounds it lacks: a
    connection that has not sent a whole request within `header_timeout` seconds is closed (a half-sent
    request holds no descriptor for ever), and past `max_connections` open connections a new one is closed
    at once."""
    base: type
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        base = HttpToolsProtocol
    except ImportError:  # httptools is uvicorn's optional C parser: the pure-Python h11 does the same job
        from uvicorn.protocols.http.h11_impl import H11Protocol

        base = H11Protocol

    class Guarded(base):  # type: ignore[misc, valid-type]
        """The protocol with a request deadline and a bound on open connections."""

        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            """Accept the connection if there is room, and start the clock for its first request."""
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.close()
                return
            self._arm()

        _armed_for: object = None  # the request cycle that was current when the clock started

        def _arm(self) -> None:
            self._disarm()
            self._armed_for = self.cycle
            self._deadline = self.loop.call_later(header_timeout, self._expire)

        def _received(self) -> bool:
            """Whether a request begun since the clock started is all here."""
            cycle = self.cycle
            return cycle is not None and cycle is not self._armed_for and not cycle.more_body

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if not self._received():  # the request is not all here yet
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            """Read as uvicorn does; once a request is all here, its deadline no longer applies."""
            super().data_received(data)
            if self._deadline is not None and self._received():
                self._disarm()

        def on_response_complete(self) -> None:
            """The next request on this connection has its own deadline (idle, uvicorn's keep-alive ends it)."""
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            """Forget the clock with the connection."""
            self._disarm()
            super().connection_lost(exc)

    return Guarded


def raise_descriptor_limit() -> int:
    """Raise the soft limit of open files to the hard one (a server of many pages needs descriptors);
    return the limit in force."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            target = 65536 if hard == resource.RLIM_INFINITY else hard
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, target), hard))
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, ValueError, OSError):
        return 1024


def serve(host: str = "127.0.0.1", port: int = 8000, data: Path | None = None, agent_delay: float = 0.6,
          announce: Callable[[str], None] | None = None, allow_hosts: Iterable[str] = (),
          local_files: bool = False) -> None:
    """Run the web app until interrupted; print its address first (port 0: a free one)."""
    import uvicorn  # the optional extra: imported when a server is really started

    if local_files and not is_loopback(host):
        raise RebirthError.single("--local-files lets a page read this machine's files by path: only for a server "
                                  "on 127.0.0.1 (or another loopback address)")
    folder = data or default_data_dir()
    hub = Hub(folder, agent_delay=agent_delay, local_files=local_files)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise RebirthError.single(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(512)
    bound = sock.getsockname()[1]
    limit = raise_descriptor_limit()
    hosts = allowed_hosts(host, allow_hosts)
    resumed = hub.resume_all()
    # what is loaded by now (the engine, the bundled games, resumed games) lives as long as the server:
    # the collector need not walk it again at every collection of a busy server
    gc.collect()
    gc.freeze()
    # a move makes and drops thousands of short-lived objects (the previews' trial positions), none in a
    # cycle: collecting the young generation every 700 allocations was a tenth of a busy server's time
    gc.set_threshold(50_000, 20, 100)
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host
    say = announce or (lambda s: print(s, flush=True))
    say(f"rebirth serve: http://{shown_host}:{bound}/  (games in {folder}; {resumed} unfinished game"
        f"{'' if resumed == 1 else 's'} resumed; Ctrl-C stops)")
    if not is_loopback(host):
        say("  listening beyond this machine: anyone who can reach it can start games; seat links are secrets. "
            f"It answers to the host names {', '.join(sorted(hosts))} (add others with --allow-host; see "
            "docs/security.md for TLS behind a reverse proxy)")
    # pages hold a long poll open: on Ctrl-C or SIGTERM those are cut after a second, not waited for
    config = uvicorn.Config(make_app(hub, hosts), log_level="warning", lifespan="on", timeout_graceful_shutdown=1,
                            http=guarded_protocol(HEADER_TIMEOUT, min(MAX_CONNECTIONS, max(limit - 64, 32))),
                            timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024, server_header=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        hub.stop()
        hub.store.close()
        sock.close()
