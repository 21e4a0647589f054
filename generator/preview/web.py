"""`pnp serve`'s web side, with Starlette and uvicorn (the one module importing them): the page,
its state as JSON, the pictures, and Server-Sent Events telling the page what changed.

Every request must name this server by its address (`Host`, against DNS rebinding) and carry
the token printed with the address; anything else is refused before it reaches a route.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import PROJECT_ROOT
from .session import Preview
from .snapshot import Snapshot

STATIC = ("index.html", "app.js", "app.css")  # the page's own files, in generator/preview/static
TYPES = {"html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
         "css": "text/css; charset=utf-8"}
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
QUIET = 15.0  # seconds between the comments that keep an idle event stream open


def static_file(name: str) -> bytes:
    """One of the page's own files."""
    return resources.files("generator.preview").joinpath("static", name).read_bytes()


class Broadcast:
    """Tells every open page of each new snapshot, from whichever thread made it."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queues: set[asyncio.Queue[Snapshot]] = set()

    def publish(self, snapshot: Snapshot) -> None:
        """Hand a snapshot to every open page (thread-safe)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        for queue in list(self.queues):
            loop.call_soon_threadsafe(queue.put_nowait, snapshot)


def editor_link(template: str, path: str, line: int) -> str:
    """The link that opens a file at a line in the designer's editor (`{path}`, `{line}` in
    the template); '' without a template."""
    if not template or not path:
        return ""
    where = Path(path) if Path(path).is_absolute() else PROJECT_ROOT / path
    return template.replace("{path}", quote(str(where))).replace("{line}", str(line or 1))


def state(snapshot: Snapshot, editor: str) -> dict[str, Any]:
    """A snapshot as the page reads it, each finding with its editor link."""
    data = snapshot.as_json()
    for finding in [*data["findings"], *(item for face in data["faces"]
                                          for item in face["findings"])]:
        finding["link"] = editor_link(editor, finding["path"], finding["line"])
    data["editor"] = bool(editor)
    return data


def make_app(preview: Preview, broadcast: Broadcast, token: str, hosts: set[str],
             editor: str, stopping: Callable[[], bool], any_ip: int | None = None) -> Any:
    """The ASGI application: its routes behind the Host and token check (`any_ip`: the port
    of a server on every address, which any IP address on it names)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    def own(name: str) -> Response:
        data = static_file(name).replace(b"__TOKEN__", token.encode())  # URL-safe as it is
        return Response(data, media_type=TYPES[name.rsplit(".", 1)[1]],
                        headers={"Cache-Control": "no-store"})

    async def page(request: Request) -> Response:
        return own("index.html")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("no such file", 404)
        return own(name)

    async def current(request: Request) -> Response:
        return JSONResponse(state(preview.snapshot, editor),
                            headers={"Cache-Control": "no-store"})

    async def picture(request: Request) -> Response:
        data = preview.picture(request.path_params["name"])
        if data is None:
            return PlainTextResponse("no such picture (the face has changed since)", 404)
        return Response(data, media_type="image/png",
                        headers={"Cache-Control": "private, max-age=31536000, immutable"})

    async def output_page(request: Request) -> Response:
        data = await asyncio.to_thread(preview.page, request.path_params["file"],
                                       request.path_params["number"])
        if data is None:
            return PlainTextResponse("no such page", 404)
        return Response(data, media_type="image/png", headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        queue: asyncio.Queue[Snapshot] = asyncio.Queue()
        broadcast.loop = asyncio.get_running_loop()
        broadcast.queues.add(queue)

        async def stream() -> AsyncIterator[str]:
            try:
                yield _event(preview.snapshot)
                while not stopping():
                    try:
                        snapshot = await asyncio.wait_for(queue.get(), 0.25)
                    except TimeoutError:
                        continue
                    yield _event(snapshot)
            finally:
                broadcast.queues.discard(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    app = Starlette(routes=[
        Route("/", page), Route("/static/{name}", asset), Route("/api/state", current),
        Route("/image/{name}.png", picture), Route("/page/{file}/{number:int}.png", output_page),
        Route("/events", events)])
    return Guard(app, token, hosts, any_ip)


def _event(snapshot: Snapshot) -> str:
    """One Server-Sent Event: the version, what is still being made and the faces changed."""
    return "event: update\ndata: " + json.dumps({
        "version": snapshot.version, "busy": snapshot.busy,
        "changed": list(snapshot.changed)}) + "\n\n"


def names_ip(host: str, port: int | None) -> bool:
    """Whether a Host header is an IP address (never a name, which DNS rebinding could point
    here) with the port."""
    address, _, given = host.rpartition(":")
    if port is None or given != str(port):
        return False
    if address.startswith("[") and address.endswith("]"):
        address = address[1:-1]
    elif ":" in address:
        return False
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: a request must name this server in its Host header (one of `hosts`,
    or when it serves on every address any IP address on its port, `any_ip`) and carry the
    token (`?token=`); every answer tells the browser to load nothing from elsewhere."""

    def __init__(self, app: Any, token: str, hosts: set[str], any_ip: int | None = None
                 ) -> None:
        self.app, self.token, self.hosts, self.any_ip = app, token, hosts, any_ip

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        from starlette.datastructures import Headers, QueryParams
        from starlette.responses import PlainTextResponse

        host = Headers(scope=scope).get("host", "")
        given = QueryParams(scope.get("query_string", b"")).get("token", "")
        refused = None
        if host.lower() not in self.hosts and not names_ip(host, self.any_ip):
            refused = f"pnp serve answers only to its own address, not to Host '{host}'"
        elif not secrets.compare_digest(given.encode(), self.token.encode()):
            refused = "pnp serve needs the token it printed with its address (?token=…)"
        if refused is not None:
            return await PlainTextResponse(refused, 403)(scope, receive, send)

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []),
                                      (b"content-security-policy", POLICY.encode()),
                                      (b"referrer-policy", b"no-referrer"),
                                      (b"x-content-type-options", b"nosniff")]
            await send(message)

        return await self.app(scope, receive, secured)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on the address (port 0: any free one), so that a browser opening
    the address printed waits for the server rather than being refused; OSError when it
    cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def server(app: Any) -> Any:
    """The uvicorn server of the application, quiet but for errors; `run(sockets=[…])` serves
    until Ctrl-C, and `should_exit` stops it."""
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off",
                                         timeout_graceful_shutdown=2, access_log=False))
