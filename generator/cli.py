"""The `pnp` command: build, validate and list game packs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import BUILD_DIR, CARDS_DIR, DEFAULT_GAME
from .build import BuildOptions, build_game, check
from .errors import PackError, PnpError
from .load import list_games, load_game

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


def _progress(message: str) -> None:
    print(f"pnp: {message}", file=sys.stderr, flush=True)


def _games(names: list[str]) -> list[str]:
    return names or [DEFAULT_GAME]


def cmd_build(args: argparse.Namespace) -> int:
    """Validate, then render every output of each game."""
    options = BuildOptions(paper=args.paper, backs=not args.no_backs, html=args.html)
    for name in _games(args.games):
        build_game(name, options, out_root=args.out, cards_dir=args.cards, progress=_progress)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Check each game and print every finding, then a summary."""
    status = EXIT_OK
    for name in _games(args.games):
        try:
            _, _, _, findings = check(name, args.cards, strict=False)
        except PackError as exc:
            findings = exc.findings
        for finding in findings:
            print(finding)
        errors = sum(f.level == "error" for f in findings)
        if errors:
            status = EXIT_ERRORS
        print(f"{name}: {errors} errors, {len(findings) - errors} warnings")
    return status


def cmd_list(args: argparse.Namespace) -> int:
    """Print every game pack with its title, version and card count."""
    for name in list_games(args.cards):
        try:
            game = load_game(name, args.cards)
        except PackError as exc:
            print(f"{name}\t(does not load: {len(exc.findings)} errors)")
            continue
        cards = sum(d.copies for d in game.decks)
        print(f"{name}\t{game.spec.title}\t{game.spec.version}\t{cards} cards")
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    """The argument parser."""
    top = argparse.ArgumentParser(prog="pnp", description=__doc__)
    top.add_argument("--debug", action="store_true", help="show tracebacks")
    top.add_argument("--cards", type=Path, default=CARDS_DIR,
                     help="the folder holding the game packs (default: cards/)")
    sub = top.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="validate and render PDFs into build/<game>/")
    build.add_argument("games", nargs="*", metavar="GAME", help=f"default: {DEFAULT_GAME}")
    build.add_argument("--paper", choices=["a4", "letter"], default="a4")
    build.add_argument("--no-backs", action="store_true", help="leave the backs pages out")
    build.add_argument("--html", action="store_true", help="also write the HTML of each PDF")
    build.add_argument("--out", type=Path, default=BUILD_DIR,
                       help="output folder (default: build/)")
    build.set_defaults(func=cmd_build)

    validate = sub.add_parser("validate", help="check game packs without rendering")
    validate.add_argument("games", nargs="*", metavar="GAME", help=f"default: {DEFAULT_GAME}")
    validate.set_defaults(func=cmd_validate)

    listing = sub.add_parser("list", help="list the game packs under cards/")
    listing.set_defaults(func=cmd_list)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; designer mistakes print clean messages, never tracebacks."""
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except PackError as exc:
        if args.debug:
            raise
        for finding in exc.findings:
            print(finding, file=sys.stderr)
        errors = sum(f.level == "error" for f in exc.findings)
        print(f"pnp: {errors} errors; nothing was written", file=sys.stderr)
        return EXIT_ERRORS
    except (PnpError, FileNotFoundError) as exc:
        if args.debug:
            raise
        print(f"pnp: error: {exc}; nothing was written", file=sys.stderr)
        return EXIT_ERRORS
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
