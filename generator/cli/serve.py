"""`pnp serve`: a game's every face in the browser, redrawn as its files are saved."""

from __future__ import annotations

import argparse
from typing import Any

from .. import FONTS_DIR, TEMPLATES_DIR
from ..check.findings import PnpError
from .common import EXIT_OK, asked_languages, options, places, progress

PORT = 8765  # the default port
LOCAL = ("127.0.0.1", "localhost", "::1")
EVERY = ("0.0.0.0", "::")  # every address of the machine: reached by its addresses on the network
EDITOR = "vscode://file/{path}:{line}"  # the default editor link


class ServeError(PnpError):
    """The server cannot start: its address cannot be had."""


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the live preview of one game until Ctrl-C."""
    import errno  # here, not above: every other command starts without them
    import secrets
    import threading
    import webbrowser

    from ..layout.workers import Workers
    from ..preview import web
    from ..preview.session import Preview, follow

    [(name, cards, out)] = places(argparse.Namespace(**{**vars(args), "games": [args.game]}))
    [language] = asked_languages(args, cards / name)[:1]
    host = args.host or "127.0.0.1"
    if host not in LOCAL:
        progress(f"warning: serving on {host}, not this machine alone: anyone who "
                 "can reach it and has the address with its token sees the game")
    try:
        sock = web.listen(host, args.port)
    except OSError as exc:
        why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be had ({exc.strerror})"
        raise ServeError(f"port {args.port} on {host} {why}: give another with --port (0 "
                         "picks a free one)") from None
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    hosts = {f"{each}:{port}" for each in (shown, "127.0.0.1", "localhost", "[::1]")}
    token = secrets.token_urlsafe(18)
    address = f"http://{shown}:{port}/?token={token}"
    broadcast = web.Broadcast()
    stop = threading.Event()
    with Workers().start() as workers:
        preview = Preview(name, cards, options(args, language=language), workers,
                          broadcast.publish, progress, out)
        server: Any = web.server(web.make_app(
            preview, broadcast, token, hosts, args.editor,
            lambda: server.should_exit or stop.is_set(), port if host in EVERY else None))
        keeper = threading.Thread(target=follow, name="pnp-serve-follow", daemon=True, args=(
            preview, [cards / name, TEMPLATES_DIR, FONTS_DIR], out, stop))
        progress(f"serving {name} at {address} (Ctrl-C stops)")
        keeper.start()
        if args.open:
            webbrowser.open(address)
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            keeper.join(timeout=30)
            sock.close()
    progress("serve: stopped")
    return EXIT_OK


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add `pnp serve` to the parser."""
    serving = sub.add_parser("serve", parents=[common], help="show every face of a game in "
                             "the browser, redrawn within a moment of each save, each problem "
                             "drawn on its card (Ctrl-C stops)")
    serving.add_argument("game", nargs="?", metavar="GAME", help=games["help"])
    serving.add_argument("--port", type=int, default=PORT,
                         help="the port to serve on (default: %(default)s; 0: any free one)")
    serving.add_argument("--host", default=None, help="serve on another address than "
                         "127.0.0.1 (this machine alone), with a warning")
    serving.add_argument("--open", action="store_true", help="open the page in the browser")
    serving.add_argument("--editor", default=EDITOR, metavar="LINK",
                         help="the link a finding's file and line open, {path} and {line} "
                         "filled in ('' for none; default: %(default)s)")
    serving.add_argument("--lang", metavar="L", help="show the game in one of its languages "
                         "(default: its source)")
    serving.set_defaults(func=cmd_serve)
