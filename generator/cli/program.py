"""The `pnp` command: build, validate and list game packs, and write their rulebooks."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from .. import DEFAULT_GAME
from ..check.findings import PackError, PnpError, counted, tally
from . import build, calibrate, editions, export, pack, serve, translations
from .common import EXIT_BUG, EXIT_CODES, EXIT_ERRORS, base_options, common_options

GROUPS = (build, serve, calibrate, pack, export, editions, translations)  # each adds its commands,
# in this order


def parser() -> argparse.ArgumentParser:
    """The argument parser."""
    from ..outputs import switches

    top = argparse.ArgumentParser(prog="pnp", description=__doc__, epilog=EXIT_CODES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)
    base = base_options()
    common = common_options(switches(), base)
    games: dict[str, Any] = {"nargs": "*", "metavar": "GAME", "help": "a pack folder (one "
                             "holding game.yaml) or a pack's name under cards/; default: the "
                             f"current folder's pack, else {DEFAULT_GAME}"}
    for group in GROUPS:
        group.add_commands(sub, base, common, games)
    return top


def _joined(argv: list[str]) -> list[str]:
    """`--back-offset -1.5,0.5` as one argument: argparse takes a value that starts with a
    minus for an option."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--back-offset" and arg.startswith("-"):
            out[-1] = f"--back-offset={arg}"
        else:
            out.append(arg)
    return out


def _command_first(argv: list[str], top: argparse.ArgumentParser) -> list[str]:
    """Options given before the command moved after it (`pnp --paper letter build`), where
    its parser reads them; an option's value is never taken for the command."""
    # argparse keeps its parsers' actions private: the commands, then the options taking a value
    [commands] = [action.choices for action in top._actions
                  if isinstance(action, argparse._SubParsersAction)]
    taking = {option for command in commands.values() for action in command._actions
              if action.nargs != 0 for option in action.option_strings}
    for index, arg in enumerate(argv):
        if arg in commands and (index == 0 or argv[index - 1] not in taking):
            return [arg, *argv[:index], *argv[index + 1:]]
        if not arg.startswith("-") and (index == 0 or argv[index - 1] not in taking):
            break  # a word that is no command: argparse says so
    return argv


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP stop pnp as Ctrl-C does: workers ended, nothing half written."""
    raise KeyboardInterrupt


def _failed(exc: PnpError, as_json: bool) -> int:
    """Tell why nothing was written: each mistake and how many, or with --json every finding
    as JSON."""
    findings = exc.findings if isinstance(exc, PackError) else [exc.finding]
    if as_json:
        print(json.dumps({"errors": [asdict(finding) for finding in findings]},
                         ensure_ascii=False, indent=2))
    elif isinstance(exc, PackError):
        print(exc, file=sys.stderr)
        errors, warnings = tally(findings)
        also = f", {counted(warnings, 'warning')}" if warnings else ""
        print(f"pnp: {counted(errors, 'error')}{also}; nothing was written", file=sys.stderr)
    else:
        print(f"pnp: error: {exc}; nothing was written", file=sys.stderr)
    return EXIT_ERRORS


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; designer mistakes print clean messages, never tracebacks."""
    top = parser()
    args = top.parse_args(_command_first(_joined(list(sys.argv[1:] if argv is None else argv)),
                                         top))
    for stop in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if stop is not None and threading.current_thread() is threading.main_thread():
            signal.signal(stop, _interrupt)
    try:
        return int(args.func(args))
    except PnpError as exc:
        if args.debug:
            raise
        return _failed(exc, getattr(args, "json", False))
    except FileNotFoundError as exc:
        if args.debug:
            raise
        print(f"pnp: error: {exc}; nothing was written", file=sys.stderr)
        return EXIT_ERRORS
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # the machine's own fault: a full disk, a read-only folder
        if args.debug:
            raise
        where = f": {exc.filename}" if exc.filename else ""
        print(f"pnp: error: {exc.strerror or exc}{where}; nothing was written", file=sys.stderr)
        return EXIT_ERRORS
    except Exception as exc:  # noqa: BLE001 - a bug in pnp, told in one line
        if args.debug:
            raise
        print(f"pnp: internal error: {type(exc).__name__}: {exc} (a bug in pnp; --debug "
              "shows the traceback)", file=sys.stderr)
        return EXIT_BUG
