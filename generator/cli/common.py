"""What the commands share: where the packs and outputs are, the printer, the build options,
the options every command takes, and the exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..pipeline.cache import BuildOptions
from ..plan.printer import FLIPS, Printer, load_printer, parse_offset

PRINTERS_FILE = "printers.yaml"  # in the folder pnp is run from
ALL_LANGUAGES = "all"  # --lang all: every language of the game

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3
EXIT_CODES = """exit codes:
  0  success: no errors (warnings allowed unless --strict)
  1  the pack has errors, or warnings under --strict, or the disk cannot be written; a
     build then writes nothing
  2  wrong command-line usage
  3  a bug in pnp (--debug shows the traceback)
  130  stopped by Ctrl-C, SIGTERM or SIGHUP; nothing half written"""


class Choices:
    """An option's choices read from the project's YAML only when asked (the option given, or
    the help shown): a build with nothing to do parses no YAML."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self.names = names

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.names()))

    def __contains__(self, name: object) -> bool:
        return name in set(self.names())


def papers() -> Choices:
    """The paper names of templates/print.yaml, as choices."""
    return Choices(_paper_names)


def _paper_names() -> list[str]:
    """The paper names of templates/print.yaml."""
    from ..plan.geometry import load_geometry

    return list(load_geometry().papers)


def progress(message: str) -> None:
    """Tell the user how far pnp got, on standard error."""
    print(f"pnp: {message}", file=sys.stderr, flush=True)


def places(args: argparse.Namespace) -> list[tuple[str, Path, Path]]:
    """Each pack the command names (a folder or a name under --cards; none: the current
    folder's, else the default game), as its name, the folder holding it and its output
    folder (--out, else build/, or the pack's own build/ for a pack outside cards/)."""
    from ..pack.place import locate_pack

    places = [locate_pack(given, args.cards) for given in args.games or [None]]
    return [(place.name, place.cards_dir, args.out or place.out_root) for place in places]


def printer(args: argparse.Namespace) -> Printer:
    """How the printer turns sheets over: printers.yaml's entry for --printer, then
    --duplex and --back-offset over it."""
    kept = load_printer(Path(PRINTERS_FILE), args.printer) if args.printer else Printer()
    return Printer(args.duplex or kept.duplex,
                   parse_offset(args.back_offset) if args.back_offset else kept.back_offset)


def options(args: argparse.Namespace, only: tuple[str, ...] = (),
            language: str | None = None) -> BuildOptions:
    """The build options the command line gives, for one language (None: the source)."""
    from ..outputs import switches

    kept = printer(args)
    return BuildOptions(paper=args.paper, html=getattr(args, "html", False), strict=args.strict,
                        only=only, switches=frozenset(
                            name for name in switches() if getattr(args, name, False)),
                        duplex=kept.duplex, back_offset=kept.back_offset, language=language)


def asked_languages(args: argparse.Namespace, pack: Path) -> list[str | None]:
    """The languages `--lang` asks for in a pack, its source language as None: none given,
    the source alone; `all`, the source then each other language of game.yaml's `languages`.
    A language the game is not in is given as it is, for loading to refuse (E130)."""
    asked = getattr(args, "lang", None)
    if asked is None:
        return [None]
    from ..pack.load import load_spec
    from ..pack.translate import languages

    source, *others = languages(load_spec(pack))
    if asked == ALL_LANGUAGES:
        return [None, *others]
    return [None if asked == source else asked]


def language_option(parser: argparse.ArgumentParser, does: str, named: str) -> None:
    """--lang: one of the game's languages, or all of them; `named` says what carries the
    language of a build other than the source's."""
    parser.add_argument("--lang", metavar="LANG", default=None,
                        help=f"{does} in LANG, one of the game's `languages` (game.yaml), or "
                        f"in every one with `{ALL_LANGUAGES}` (default: its source language); "
                        f"{named}")


def common_options(switches: dict[str, str],
                   base: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options every command that builds or checks a game shares: the paper (from
    templates/print.yaml), where the packs and the output are, strictness, and each output
    kind's own switches."""
    common = argparse.ArgumentParser(add_help=False, parents=[base])
    common.add_argument("--paper", choices=papers(), default="a4", metavar="PAPER",
                        help="the paper: %(choices)s (default: %(default)s)")
    common.add_argument("--strict", action="store_true", help="warnings fail too")
    common.add_argument("--out", type=Path, default=None, help="output folder (default: "
                        "build/, or a pack folder's own build/ for a pack outside cards/)")
    for name, text in switches.items():
        common.add_argument(f"--{name.replace('_', '-')}", dest=name, action="store_true",
                            help=text)
    common.add_argument("--printer", metavar="NAME",
                        help=f"use the duplex settings kept for NAME in ./{PRINTERS_FILE}")
    printing_options(common)
    return common


def base_options() -> argparse.ArgumentParser:
    """The options every command takes: where the packs are, and tracebacks."""
    base = argparse.ArgumentParser(add_help=False)
    base.add_argument("--cards", type=Path, default=None,
                      help="the folder holding the game packs named by name (default: cards/)")
    base.add_argument("--debug", action="store_true", help="show tracebacks")
    return base


def printing_options(parser: argparse.ArgumentParser) -> None:
    """--duplex and --back-offset, for building and for the calibration page."""
    parser.add_argument("--duplex", choices=FLIPS, default=None,
                        help="the edge your printer turns sheets over (default: long)")
    parser.add_argument("--back-offset", metavar="X,Y", default=None,
                        help="move every back X mm right and Y mm down, as seen on the back, "
                             "to undo your printer's shift (read it off `pnp calibrate`)")
