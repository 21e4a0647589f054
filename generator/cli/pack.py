"""`pnp new`, `schema`, `deck-csv`, `pull` and `list`: starting a pack, and helping edit one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import BUILD_DIR, CARDS_DIR
from ..check.findings import _CONTROL, PackError, counted
from .common import EXIT_OK, EXIT_USAGE, progress


def cmd_deck_csv(args: argparse.Namespace) -> int:
    """Write one deck of a game as CSV (UTF-8 with a BOM, for spreadsheets), to --out or to
    standard output; reading it back as the deck's file gives the same cards."""
    from ..pack.load import load_game
    from ..pack.place import locate_pack
    from ..pack.spreadsheet import deck_csv

    place = locate_pack(args.game, args.cards)
    data = ("\ufeff" + deck_csv(load_game(place.name, place.cards_dir), args.deck)).encode()
    if args.out is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        args.out.write_bytes(data)
        progress(f"wrote {args.out}: point the deck's `file:` in game.yaml at it to use it")
    return EXIT_OK


def cmd_pull(args: argparse.Namespace) -> int:
    """Download each deck's `source:` into the deck's file and print which cards were added,
    removed and changed; the only command that uses the network."""
    from ..pack.place import locate_pack, pack_dir
    from ..pack.pull import pull_game

    place = locate_pack(args.game, args.cards)
    for pulled in pull_game(pack_dir(place.name, place.cards_dir), args.deck):
        for line in pulled.report():
            print(line.translate(_CONTROL))  # card ids come from a stranger's sheet
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    """Write the JSON Schemas of a pack's files for editors (without GAME, those that hold
    for any pack); with --modeline, point the pack's YAML files at them."""
    from ..pack.jsonschema import add_modelines, generic_schemas, pack_schemas, write_schemas
    from ..pack.load import load_spec
    from ..pack.place import locate_pack, pack_dir

    if args.game is None:
        if args.modeline:
            print("pnp schema: error: --modeline needs a GAME", file=sys.stderr)
            return EXIT_USAGE
        out = args.out or BUILD_DIR / "schemas"
        written = write_schemas(out, generic_schemas())
        progress(f"wrote {counted(len(written), 'schema')} to {out}")
        return EXIT_OK
    place = locate_pack(args.game, args.cards)
    root = pack_dir(place.name, place.cards_dir)
    spec = load_spec(root)
    schemas = pack_schemas(spec)
    out = args.out or root / "schemas"
    written = write_schemas(out, schemas)
    progress(f"{place.name}: wrote {counted(len(written), 'schema')} to {out}")
    if args.modeline:
        changed = add_modelines(root, out, schemas, spec.limits.file_bytes)
        names = ", ".join(path.name for path in changed) or "none (each has one)"
        progress(f"{place.name}: added the schema line to {names}")
    return EXIT_OK


def cmd_new(args: argparse.Namespace) -> int:
    """Write a small working pack into a new or empty folder, its schemas with it."""
    from ..pack.scaffold import new_pack

    folder = new_pack(args.folder, args.lang)
    progress(f"wrote a new pack to {folder}: edit it (its README.md says what is where), "
              f"then run `pnp validate {args.folder}` and `pnp build {args.folder}`")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """Print every game pack with its title, version and card count, from game.yaml alone."""
    from ..pack.load import load_spec
    from ..pack.place import list_games

    folder = args.cards or CARDS_DIR
    for name in list_games(folder):
        try:
            spec = load_spec(folder / name)
        except PackError as exc:
            print(f"{name}\t(game.yaml does not load: {counted(len(exc.findings), 'error')})")
            continue
        cards = sum(deck.count for deck in spec.decks)
        print(f"{name}\t{spec.title}\t{spec.version}\t{counted(cards, 'card')}")
    return EXIT_OK


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add this group's commands to the parser."""
    deck_to_csv = sub.add_parser("deck-csv", parents=[base], help="write one deck as CSV, "
                                 "for a spreadsheet (a deck's `file:` may be .csv or .xlsx)")
    deck_to_csv.add_argument("game", metavar="GAME", help=games["help"].split(";")[0])
    deck_to_csv.add_argument("deck", metavar="DECK", help="the deck's id in game.yaml")
    deck_to_csv.add_argument("--out", type=Path, default=None, metavar="FILE",
                             help="the CSV file to write (default: standard output)")
    deck_to_csv.set_defaults(func=cmd_deck_csv)

    pull = sub.add_parser("pull", parents=[base], help="download each deck's `source:` (a "
                          "Google Sheets link, or any https address of a .csv or .xlsx file) "
                          "into the deck's file, and tell which cards changed; the only command "
                          "that uses the network")
    pull.add_argument("game", nargs="?", metavar="GAME", help=games["help"])
    pull.add_argument("--deck", metavar="DECK", default=None,
                      help="pull only this deck (its id in game.yaml)")
    pull.set_defaults(func=cmd_pull)

    schema = sub.add_parser("schema", parents=[base], help="write JSON Schemas of a pack's "
                            "YAML files, for editors to complete and check them")
    schema.add_argument("game", nargs="?", metavar="GAME", help=games["help"].split(";")[0]
                        + "; without it, the schemas that hold for any pack")
    schema.add_argument("--out", type=Path, default=None, metavar="DIR", help="where to write "
                        "them (default: the pack's schemas/, or build/schemas/ without GAME)")
    schema.add_argument("--modeline", action="store_true", help="also make the first line of "
                        "each of the pack's YAML files point the editor at its schema")
    schema.set_defaults(func=cmd_schema)

    from ..pack.scaffold import scaffold_languages

    new = sub.add_parser("new", help="write a small working pack to start a game from")
    new.add_argument("--debug", action="store_true", help="show tracebacks")
    new.add_argument("folder", type=Path, metavar="DIR", help="a new or empty folder")
    new.add_argument("--lang", choices=scaffold_languages(), default="en",
                     help="the pack's language (default: en)")
    new.set_defaults(func=cmd_new)

    listing = sub.add_parser("list", parents=[base], help="list the game packs under cards/")
    listing.set_defaults(func=cmd_list)
