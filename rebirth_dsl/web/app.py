"""`rebirth serve`: the web app. Starlette routes over the Hub (hub.py), plain HTML/JS/SVG pages from
`static/`, uvicorn as the server. Starlette and uvicorn are the optional extra `[web]`: nothing else in
the package imports this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.records.record import dumps
from rebirth_dsl.web.hub import Hub, WebError, catalog

MAX_BODY = 8 * 1024 * 1024  # as files.MAX_INPUT_BYTES: no real record or rules file comes near
LONG_POLL = 20.0  # seconds a page waits for a change before it asks again


def static_dir() -> Path:
    """The page's files, shipped as package data."""
    return Path(str(resources.files("rebirth_dsl.web") / "static"))


def default_data_dir() -> Path:
    """Where games are kept unless --data says: $XDG_DATA_HOME/rebirth-dsl or ~/.local/share/rebirth-dsl."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rebirth-dsl"


def is_loopback(host: str) -> bool:
    """Whether the server listens only to this machine (then a page may name files by path)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_app(hub: Hub) -> Starlette:
    """The Starlette application over a Hub."""

    async def call(fn: Callable[..., Any], *args: Any) -> Any:
        """Run a Hub method in a worker thread."""
        return await run_in_threadpool(fn, *args)  # the engine's work never blocks the event loop

    async def body(request: Request) -> dict[str, Any]:
        """The request's JSON object, size-limited."""
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_BODY:
            raise WebError(413, f"the request is over {MAX_BODY:,} bytes")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise WebError(413, f"the request is over {MAX_BODY:,} bytes")
        try:
            data = json.loads(raw or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise WebError(400, "the request body is not JSON") from None
        if not isinstance(data, dict):
            raise WebError(400, "the request body is a JSON object")
        return data

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        """Refusals as JSON with their status; never a traceback to the browser."""
        async def wrapped(request: Request) -> Response:
            """The handler, its refusals turned into JSON."""
            try:
                return await handler(request)
            except WebError as e:
                return JSONResponse(e.body(), status_code=e.status)
            except RebirthError as e:
                return JSONResponse({"error": e.render()}, status_code=400)
            except Exception as e:  # noqa: BLE001 - a message, not a dropped connection
                print(f"rebirth serve: internal error: {type(e).__name__}: {e}", file=sys.stderr)
                return JSONResponse({"error": f"internal error: {type(e).__name__}: {e}"}, status_code=500)
        return wrapped

    async def page(request: Request) -> Response:
        """The one page: its script reads the address (home, a game, a study)."""
        return FileResponse(static_dir() / "index.html", headers={"Cache-Control": "no-store"})

    async def api_catalog(request: Request) -> Response:
        """GET: the bundled games and the agents, for the new-game form."""
        return JSONResponse(await call(catalog))

    async def api_create(request: Request) -> Response:
        """POST: a new game, or a branch of a record; its links, one secret per seat."""
        spec = await body(request)
        live, links = await call(hub.create, spec)
        return JSONResponse({"id": live.id, "links": links}, status_code=201)

    async def api_view(request: Request) -> Response:
        """GET: the seat's view; with `after`, first wait (up to `wait` s) until the game changes."""
        gid = request.path_params["gid"]
        token = request.query_params.get("t")
        after = request.query_params.get("after")
        if after is not None:
            if not after.lstrip("-").isdigit():
                raise WebError(400, "after: a version number")
            try:
                wait = min(max(float(request.query_params.get("wait") or LONG_POLL), 0.0), LONG_POLL)
            except ValueError:
                raise WebError(400, "wait: a number of seconds") from None
            v = await call(hub.version, gid, token)
            loop = asyncio.get_running_loop()
            end = loop.time() + wait
            while v <= int(after) and loop.time() < end and not hub.stopping.is_set():
                await asyncio.sleep(0.05)
                v = hub.version(gid, token)  # a dict look-up once the game is loaded
            if v <= int(after):
                return JSONResponse({"version": v, "unchanged": True})
        return JSONResponse(await call(hub.view, gid, token), headers={"Cache-Control": "no-store"})

    async def api_move(request: Request) -> Response:
        """POST: the seat's move, or its answer to the question its placement asked."""
        data = await body(request)
        out = await call(hub.move, request.path_params["gid"], data.get("t"), data)
        return JSONResponse(out)

    async def api_undo(request: Request) -> Response:
        """POST: take back the seat's last move (against agents)."""
        data = await body(request)
        return JSONResponse(await call(hub.undo, request.path_params["gid"], data.get("t")))

    async def api_record(request: Request) -> Response:
        """GET: the finished game's record, as a download."""
        data, name = await call(hub.record, request.path_params["gid"], request.query_params.get("t"))
        return Response(dumps(data) + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def api_file(request: Request) -> Response:
        """GET: an uploaded rules or board file of a game."""
        text, name = await call(hub.file, request.path_params["gid"], request.query_params.get("t"),
                                request.path_params["key"])
        return Response(text, media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def api_study(request: Request) -> Response:
        """POST: a record's position after a number of moves."""
        data = await body(request)
        return JSONResponse(await call(hub.study, data.get("source"), data.get("step")))

    async def not_found(request: Request) -> Response:
        """Any other API address: 404 as JSON."""
        raise WebError(404, f"no such address: {request.url.path}")

    routes = [
        Route("/", page),
        Route("/game/{gid}", page),
        Route("/study", page),
        Route("/api/catalog", guarded(api_catalog)),
        Route("/api/games", guarded(api_create), methods=["POST"]),
        Route("/api/games/{gid}", guarded(api_view)),
        Route("/api/games/{gid}/move", guarded(api_move), methods=["POST"]),
        Route("/api/games/{gid}/undo", guarded(api_undo), methods=["POST"]),
        Route("/api/games/{gid}/record", guarded(api_record)),
        Route("/api/games/{gid}/files/{key}", guarded(api_file)),
        Route("/api/study", guarded(api_study), methods=["POST"]),
        Route("/api/{rest:path}", guarded(not_found), methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=str(static_dir())), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """On shutdown, stop the agents."""
        yield
        hub.stop()  # agent threads stop at their next step

    return Starlette(routes=routes, middleware=[Middleware(GZipMiddleware, minimum_size=2048)], lifespan=lifespan)


def serve(host: str = "127.0.0.1", port: int = 8000, data: Path | None = None, agent_delay: float = 0.6,
          announce: Callable[[str], None] | None = None) -> None:
    """Run the web app until interrupted; print its address first (port 0: a free one)."""
    import uvicorn  # the optional extra: imported when a server is really started

    folder = data or default_data_dir()
    hub = Hub(folder, agent_delay=agent_delay, local_files=is_loopback(host))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise RebirthError.single(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(128)
    bound = sock.getsockname()[1]
    resumed = hub.resume_all()
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host
    say = announce or (lambda s: print(s, flush=True))
    say(f"rebirth serve: http://{shown_host}:{bound}/  (games in {folder}; {resumed} unfinished game"
        f"{'' if resumed == 1 else 's'} resumed; Ctrl-C stops)")
    if not is_loopback(host):
        say("  listening beyond this machine: anyone who can reach it can start games; seat links are secrets")
    # pages hold a long poll open: on Ctrl-C or SIGTERM those are cut after a second, not waited for
    config = uvicorn.Config(make_app(hub), log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        hub.stop()
        sock.close()
