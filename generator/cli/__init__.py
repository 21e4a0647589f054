"""The `pnp` command: build, validate and list game packs, and write their rulebooks."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import BUILD_DIR, CARDS_DIR, DEFAULT_GAME
from .cache import BuildOptions, input_digest
from .calibrate import languages
from .errors import PackError, PnpError
from .geometry import load_geometry
from .manifest import is_fresh
from .printer import FLIPS, Printer, load_printer, parse_offset

PRINTERS_FILE = "printers.yaml"  # in the folder pnp is run from

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3
EXIT_CODES = """exit codes:
  0  success: no errors (warnings allowed unless --strict)
  1  the pack has errors, or warnings under --strict, or the disk cannot be written; a
     build then writes nothing
  2  wrong command-line usage
  3  a bug in pnp (--debug shows the traceback)
  130  stopped by Ctrl-C, SIGTERM or SIGHUP; nothing half written"""


def _progress(message: str) -> None:
    print(f"pnp: {message}", file=sys.stderr, flush=True)


def _places(args: argparse.Namespace) -> list[tuple[str, Path, Path]]:
    """Each pack the command names (a folder or a name under --cards; none: the current
    folder's, else the default game), as its name, the folder holding it and its output
    folder (--out, else build/, or the pack's own build/ for a pack outside cards/)."""
    from .load import locate_pack

    places = [locate_pack(given, args.cards) for given in args.games or [None]]
    return [(place.name, place.cards_dir, args.out or place.out_root) for place in places]


def _printer(args: argparse.Namespace) -> Printer:
    """How the printer turns sheets over: printers.yaml's entry for --printer, then
    --duplex and --back-offset over it."""
    kept = load_printer(Path(PRINTERS_FILE), args.printer) if args.printer else Printer()
    return Printer(args.duplex or kept.duplex,
                   parse_offset(args.back_offset) if args.back_offset else kept.back_offset)


def _options(args: argparse.Namespace, only: tuple[str, ...] = ()) -> BuildOptions:
    """The build options the command line gives."""
    from .outputs import switches

    printer = _printer(args)
    return BuildOptions(paper=args.paper, html=getattr(args, "html", False), strict=args.strict,
                        only=only, switches=frozenset(
                            name for name in switches() if getattr(args, name, False)),
                        duplex=printer.duplex, back_offset=printer.back_offset)


def cmd_build(args: argparse.Namespace, only: tuple[str, ...] = ()) -> int:
    """Validate, then render every output of each game whose inputs changed."""
    options = _options(args, only)
    for name, cards, out in _places(args):
        pack = cards / name
        if not args.force and (pack / "game.yaml").is_file() and is_fresh(
                out / name, options.paper, input_digest(pack, options)):
            _progress(f"{name}: up to date (nothing changed since the last build; --force "
                      "rebuilds)")
            continue
        from .build import build_game

        build_game(name, options, out_root=out, cards_dir=cards, progress=_progress)
    return EXIT_OK


def cmd_rulebook(args: argparse.Namespace) -> int:
    """Validate, then write only the rulebook of each game."""
    return cmd_build(args, only=("rulebook",))


def cmd_watch(args: argparse.Namespace) -> int:
    """Build a game, then again each time one of its files changes, until Ctrl-C."""
    from .watch import watch

    [(name, cards, out)] = _places(argparse.Namespace(**{**vars(args), "games": [args.game]}))
    watch(name, _options(args), out_root=out, cards_dir=cards, progress=_progress)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Check each game and print every finding, then a summary (or all of it as JSON)."""
    from .build import validate_game

    status, report = EXIT_OK, []
    for name, cards, out in _places(args):
        result = validate_game(name, cards, _options(args), out, progress=_progress)
        errors = sum(f.level == "error" for f in result.findings)
        warnings = len(result.findings) - errors
        if errors or (args.strict and warnings):
            status = EXIT_ERRORS
        if args.json:
            report.append({"game": name, "errors": errors, "warnings": warnings,
                           "findings": [asdict(f) for f in result.findings],
                           "unchecked": result.unchecked})
            continue
        for finding in result.findings:
            print(finding)
        unchecked = f"; not checked: {', '.join(result.unchecked)}" if result.unchecked else ""
        print(f"{name}: {errors} errors, {warnings} warnings{unchecked}")
    if args.json:
        print(json.dumps({"games": report}, ensure_ascii=False, indent=2))
    return status


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Write the duplex calibration sheet."""
    from .calibrate import write_calibration

    printer = _printer(args)
    path = write_calibration(args.out or BUILD_DIR, args.paper, load_geometry().papers[args.paper],
                             printer.duplex, printer.back_offset, args.lang)
    _progress(f"wrote {path}: print it on both sides, hold it to the light and read the "
              "back offset off its scales")
    return EXIT_OK


def cmd_deck_csv(args: argparse.Namespace) -> int:
    """Write one deck of a game as CSV (UTF-8 with a BOM, for spreadsheets), to --out or to
    standard output; reading it back as the deck's file gives the same cards."""
    from .load import load_game, locate_pack
    from .spreadsheet import deck_csv

    place = locate_pack(args.game, args.cards)
    data = ("\ufeff" + deck_csv(load_game(place.name, place.cards_dir), args.deck)).encode()
    if args.out is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        args.out.write_bytes(data)
        _progress(f"wrote {args.out}: point the deck's `file:` in game.yaml at it to use it")
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    """Write the JSON Schemas of a pack's files for editors (without GAME, those that hold
    for any pack); with --modeline, point the pack's YAML files at them."""
    from .jsonschema import add_modelines, generic_schemas, pack_schemas, write_schemas
    from .load import load_spec, locate_pack, pack_dir

    if args.game is None:
        if args.modeline:
            print("pnp schema: error: --modeline needs a GAME", file=sys.stderr)
            return EXIT_USAGE
        out = args.out or BUILD_DIR / "schemas"
        written = write_schemas(out, generic_schemas())
        _progress(f"wrote {len(written)} schemas to {out}")
        return EXIT_OK
    place = locate_pack(args.game, args.cards)
    root = pack_dir(place.name, place.cards_dir)
    spec = load_spec(root)
    schemas = pack_schemas(spec)
    out = args.out or root / "schemas"
    written = write_schemas(out, schemas)
    _progress(f"{place.name}: wrote {len(written)} schemas to {out}")
    if args.modeline:
        changed = add_modelines(root, out, schemas, spec.limits.file_bytes)
        names = ", ".join(path.name for path in changed) or "none (each has one)"
        _progress(f"{place.name}: added the schema line to {names}")
    return EXIT_OK


def cmd_new(args: argparse.Namespace) -> int:
    """Write a small working pack into a new or empty folder, its schemas with it."""
    from .scaffold import new_pack

    folder = new_pack(args.folder, args.lang)
    _progress(f"wrote a new pack to {folder}: edit it (its README.md says what is where), "
              f"then run `pnp validate {args.folder}` and `pnp build {args.folder}`")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Export each game's cards as images, print-shop PDFs or a Tabletop Simulator object."""
    from .export import export
    from .outputs.base import ExportSettings

    settings = ExportSettings(args.profile, args.dpi, args.format, args.backs_last, args.marks,
                              args.cmyk, args.strict)
    for name, cards, out in _places(args):
        export(name, args.to, settings, cards, out, _progress)
    return EXIT_OK


def cmd_release(args: argparse.Namespace) -> int:
    """Record what the game prints now as an edition in its pack."""
    from .reprint import release

    name, cards, out = _places(argparse.Namespace(**{**vars(args), "games": [args.game]}))[0]
    path = release(name, args.name, cards, out, _progress)
    _progress(f"{name}: recorded edition {path.stem} in {path}")
    return EXIT_OK


def cmd_editions(args: argparse.Namespace) -> int:
    """List each game's editions, oldest first."""
    from .editions import listed
    from .load import load_game

    for name, cards, _ in _places(args):
        for data in listed(load_game(name, cards)):
            print(f"{name}\t{data.get('edition')}\t{data.get('version')}\t"
                  f"{len(data.get('faces', {}))} faces")
    return EXIT_OK


def cmd_changes(args: argparse.Namespace) -> int:
    """Print what prints differently since an edition or a git revision, and why."""
    from .reprint import changes, report

    for name, cards, _ in _places(args):
        found, checked = changes(name, args.since, cards)
        if args.json:
            print(json.dumps(found.as_json(), ensure_ascii=False, indent=2))
        else:
            print(report(found, checked))
    return EXIT_OK


def cmd_reprint(args: argparse.Namespace) -> int:
    """Write only the faces that print differently, with CHANGELOG.md."""
    from .reprint import reprint

    for name, cards, out in _places(args):
        reprint(name, args.since, _options(args), cards, out, _progress)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """Print every game pack with its title, version and card count, from game.yaml alone."""
    from .load import list_games, load_spec

    folder = args.cards or CARDS_DIR
    for name in list_games(folder):
        try:
            spec = load_spec(folder / name)
        except PackError as exc:
            print(f"{name}\t(game.yaml does not load: {len(exc.findings)} errors)")
            continue
        cards = sum(deck.count for deck in spec.decks)
        print(f"{name}\t{spec.title}\t{spec.version}\t{cards} cards")
    return EXIT_OK


def _common(switches: dict[str, str], base: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options every command that builds or checks a game shares: the paper (from
    templates/print.yaml), where the packs and the output are, strictness, and each output
    kind's own switches."""
    common = argparse.ArgumentParser(add_help=False, parents=[base])
    common.add_argument("--paper", choices=sorted(load_geometry().papers), default="a4")
    common.add_argument("--strict", action="store_true", help="warnings fail too")
    common.add_argument("--out", type=Path, default=None, help="output folder (default: "
                        "build/, or a pack folder's own build/ for a pack outside cards/)")
    for name, text in switches.items():
        common.add_argument(f"--{name.replace('_', '-')}", dest=name, action="store_true",
                            help=text)
    common.add_argument("--printer", metavar="NAME",
                        help=f"use the duplex settings kept for NAME in ./{PRINTERS_FILE}")
    _printing(common)
    return common


def _base() -> argparse.ArgumentParser:
    """The options every command takes: where the packs are, and tracebacks."""
    base = argparse.ArgumentParser(add_help=False)
    base.add_argument("--cards", type=Path, default=None,
                      help="the folder holding the game packs named by name (default: cards/)")
    base.add_argument("--debug", action="store_true", help="show tracebacks")
    return base


def _printing(parser: argparse.ArgumentParser) -> None:
    """--duplex and --back-offset, for building and for the calibration page."""
    parser.add_argument("--duplex", choices=FLIPS, default=None,
                        help="the edge your printer turns sheets over (default: long)")
    parser.add_argument("--back-offset", metavar="X,Y", default=None,
                        help="move every back X mm right and Y mm down, as seen on the back, "
                             "to undo your printer's shift (read it off `pnp calibrate`)")


def parser() -> argparse.ArgumentParser:
    """The argument parser."""
    from .outputs import EXPORTS, switches
    from .outputs.images import load_profiles

    top = argparse.ArgumentParser(prog="pnp", description=__doc__, epilog=EXIT_CODES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)
    base = _base()
    common = _common(switches(), base)
    games: dict[str, Any] = {"nargs": "*", "metavar": "GAME", "help": "a pack folder (one "
                             "holding game.yaml) or a pack's name under cards/; default: the "
                             f"current folder's pack, else {DEFAULT_GAME}"}

    build = sub.add_parser("build", parents=[common],
                           help="validate and render PDFs into build/<game>/")
    build.add_argument("games", **games)
    build.add_argument("--html", action="store_true", help="also write the HTML of each PDF")
    build.add_argument("--force", action="store_true",
                       help="build even when nothing changed since the last build")
    build.set_defaults(func=cmd_build)

    rulebook = sub.add_parser("rulebook", parents=[common],
                              help="validate and write only the rulebook PDF")
    rulebook.add_argument("games", **games)
    rulebook.add_argument("--html", action="store_true", help="also write the HTML")
    rulebook.add_argument("--force", action="store_true",
                          help="build even when nothing changed since the last build")
    rulebook.set_defaults(func=cmd_rulebook)

    watching = sub.add_parser("watch", parents=[common], help="build, then rebuild each time a "
                              "file of the game changes, with WeasyPrint kept loaded (Ctrl-C "
                              "stops)")
    watching.add_argument("game", nargs="?", metavar="GAME", help=games["help"])
    watching.set_defaults(func=cmd_watch)

    validate = sub.add_parser("validate", parents=[common], help="check game packs, their "
                              "layout included, without writing any output")
    validate.add_argument("games", **games)
    validate.add_argument("--json", action="store_true", help="print the findings as JSON")
    validate.set_defaults(func=cmd_validate)

    calibrate = sub.add_parser("calibrate", parents=[base], help="write a duplex test sheet "
                               "whose scales read your printer's back offset in mm")
    calibrate.add_argument("--paper", choices=sorted(load_geometry().papers), default="a4")
    calibrate.add_argument("--out", type=Path, default=None,
                           help="output folder (default: build/)")
    calibrate.add_argument("--printer", metavar="NAME",
                           help=f"print with the settings kept for NAME in ./{PRINTERS_FILE}, "
                                "to check them: every scale should then read 0")
    calibrate.add_argument("--lang", choices=languages(), default="zh-CN",
                           help="the language of the page's instructions")
    _printing(calibrate)
    calibrate.set_defaults(func=cmd_calibrate)

    deck_to_csv = sub.add_parser("deck-csv", parents=[base], help="write one deck as CSV, "
                                 "for a spreadsheet (a deck's `file:` may be .csv or .xlsx)")
    deck_to_csv.add_argument("game", metavar="GAME", help=games["help"].split(";")[0])
    deck_to_csv.add_argument("deck", metavar="DECK", help="the deck's id in game.yaml")
    deck_to_csv.add_argument("--out", type=Path, default=None, metavar="FILE",
                             help="the CSV file to write (default: standard output)")
    deck_to_csv.set_defaults(func=cmd_deck_csv)

    schema = sub.add_parser("schema", parents=[base], help="write JSON Schemas of a pack's "
                            "YAML files, for editors to complete and check them")
    schema.add_argument("game", nargs="?", metavar="GAME", help=games["help"].split(";")[0]
                        + "; without it, the schemas that hold for any pack")
    schema.add_argument("--out", type=Path, default=None, metavar="DIR", help="where to write "
                        "them (default: the pack's schemas/, or build/schemas/ without GAME)")
    schema.add_argument("--modeline", action="store_true", help="also make the first line of "
                        "each of the pack's YAML files point the editor at its schema")
    schema.set_defaults(func=cmd_schema)

    from .scaffold import scaffold_languages

    new = sub.add_parser("new", help="write a small working pack to start a game from")
    new.add_argument("--debug", action="store_true", help="show tracebacks")
    new.add_argument("folder", type=Path, metavar="DIR", help="a new or empty folder")
    new.add_argument("--lang", choices=scaffold_languages(), default="en",
                     help="the pack's language (default: en)")
    new.set_defaults(func=cmd_new)

    export = sub.add_parser("export", parents=[base], help="export the cards for a print shop "
                            "or a virtual table into <out>/<game>-export/<to>/, with a "
                            "preflight report (preflight.json)")
    export.add_argument("games", **games)
    export.add_argument("--to", choices=[kind.name for kind in EXPORTS], default="images",
                        help="images: each card side an image, listed with copies; printshop: "
                             "a PDF a deck, a card side a page with TrimBox and BleedBox; tts: "
                             "Tabletop Simulator sheets and saved object (default: images)")
    export.add_argument("--profile", choices=sorted(load_profiles()), default="generic",
                        help="image pixel sizes: generic (cut + bleed at --dpi), tgc (The Game "
                             "Crafter, 1/8 in bleed at 300 dpi), mpc (MakePlayingCards: poker, "
                             "tarot); templates/export.yaml")
    export.add_argument("--dpi", type=float, default=300, help="for the generic profile")
    export.add_argument("--format", choices=["png", "jpg"], default="png")
    export.add_argument("--backs-last", action="store_true", help="printshop: every front, "
                        "then every back (default: each front followed by its back)")
    export.add_argument("--marks", action="store_true", help="printshop: crop marks in a "
                        "slug round the bleed")
    export.add_argument("--cmyk", action="store_true", help="printshop: convert to CMYK with "
                        "Ghostscript (which must be installed)")
    export.add_argument("--strict", action="store_true", help="a preflight finding fails the "
                        "export, and nothing is written")
    export.add_argument("--out", type=Path, default=None, help="output folder (default: "
                        "build/, or a pack folder's own build/)")
    export.set_defaults(func=cmd_export)

    since: dict[str, Any] = {"metavar": "NAME|REV", "default": None,
                             "help": "an edition's name, or a git revision of the pack "
                                     "(default: the last edition)"}
    releasing = sub.add_parser("release", parents=[base], help="record what the game prints "
                               "now as an edition, in the pack's editions/ folder")
    releasing.add_argument("game", nargs="?", metavar="GAME", help=games["help"])
    releasing.add_argument("name", nargs="?", metavar="NAME", help="the edition's name "
                           "(default: e1, e2, …)")
    releasing.add_argument("--out", type=Path, default=None, help="where the pictures of the "
                           "faces are kept for later proofs (default: build/, or a pack "
                           "folder's own build/)")
    releasing.set_defaults(func=cmd_release, games=None)
    listing_editions = sub.add_parser("editions", parents=[base], help="list a game's editions")
    listing_editions.add_argument("games", **games)
    listing_editions.set_defaults(func=cmd_editions, out=None)
    changing = sub.add_parser("changes", parents=[common], help="what prints differently since "
                              "an edition or a git revision, face by face, and why")
    changing.add_argument("games", **games)
    changing.add_argument("--since", **since)
    changing.add_argument("--json", action="store_true", help="as JSON, for tools")
    changing.set_defaults(func=cmd_changes)
    reprinting = sub.add_parser("reprint", parents=[common], help="write only the faces that "
                                "print differently (reprint-<paper>.pdf) and CHANGELOG.md into "
                                "<out>/<game>-reprint/")
    reprinting.add_argument("games", **games)
    reprinting.add_argument("--since", **since)
    reprinting.set_defaults(func=cmd_reprint)

    listing = sub.add_parser("list", parents=[base], help="list the game packs under cards/")
    listing.set_defaults(func=cmd_list)
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
    except PackError as exc:
        if args.debug:
            raise
        for finding in exc.findings:
            print(finding, file=sys.stderr)
        errors = sum(f.level == "error" for f in exc.findings)
        warnings = f", {len(exc.findings) - errors} warnings" if len(exc.findings) > errors else ""
        print(f"pnp: {errors} errors{warnings}; nothing was written", file=sys.stderr)
        return EXIT_ERRORS
    except (PnpError, FileNotFoundError) as exc:
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


if __name__ == "__main__":
    sys.exit(main())
