"""`pnp release`, `editions`, `changes` and `reprint`: what was printed, and what to print again."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .common import (
    ALL_LANGUAGES,
    EXIT_OK,
    asked_languages,
    language_option,
    options,
    places,
    progress,
)


def cmd_release(args: argparse.Namespace) -> int:
    """Record what the game prints now as an edition in its pack."""
    from ..editions.reprint import release

    name, cards, out = places(argparse.Namespace(**{**vars(args), "games": [args.game]}))[0]
    path = release(name, args.name, cards, out, progress)
    progress(f"{name}: recorded edition {path.stem} in {path}")
    return EXIT_OK


def cmd_editions(args: argparse.Namespace) -> int:
    """List each game's editions, oldest first."""
    from ..editions.record import listed
    from ..pack.load import load_game

    for name, cards, _ in places(args):
        for data in listed(load_game(name, cards)):
            print(f"{name}\t{data.get('edition')}\t{data.get('version')}\t"
                  f"{len(data.get('faces', {}))} faces")
    return EXIT_OK


def cmd_changes(args: argparse.Namespace) -> int:
    """Print what prints differently since an edition or a git revision, and why, in each
    language asked for: with `--lang all`, a section (a JSON object) for each."""
    from ..editions.reprint import changes_in, report

    every = args.lang == ALL_LANGUAGES
    for name, cards, _ in places(args):
        found = changes_in(name, args.since, cards, asked_languages(args, cards / name))
        if args.json:
            said = {checked.game.language: changes.as_json() for changes, checked in found}
            print(json.dumps(said if every else said.popitem()[1], ensure_ascii=False,
                             indent=2))
        else:
            print("\n".join(f"[{checked.game.language}]\n\n{report(changes, checked)}"
                            if every else report(changes, checked)
                            for changes, checked in found))
    return EXIT_OK


def cmd_reprint(args: argparse.Namespace) -> int:
    """Write only the faces that print differently, with CHANGELOG.md, in each language asked
    for."""
    from ..editions.reprint import reprint

    for name, cards, out in places(args):
        reprint(name, args.since, options(args), cards, out, progress,
                asked=asked_languages(args, cards / name))
    return EXIT_OK


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add this group's commands to the parser."""
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
    language_option(changing, "compare the faces as they print", "with `all`, a section "
                    "(in JSON, an object by language) for each")
    changing.set_defaults(func=cmd_changes)
    reprinting = sub.add_parser("reprint", parents=[common], help="write only the faces that "
                                "print differently (reprint-<paper>.pdf), their proof "
                                "(changes-<paper>.pdf) and CHANGELOG.md into "
                                "<out>/<game>-reprint/")
    reprinting.add_argument("games", **games)
    reprinting.add_argument("--since", **since)
    language_option(reprinting, "reprint", "another language's files carry it: "
                    "reprint-<paper>-<LANG>.pdf, changes-<paper>-<LANG>.pdf, CHANGELOG.<LANG>.md")
    reprinting.set_defaults(func=cmd_reprint)
