"""`pnp build`, `rulebook`, `watch` and `validate`: a game's outputs, and its checks."""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ..check.findings import MOST_UNCHECKED, counted, listed, tally, told
from ..pipeline.cache import BuildOptions, input_digest
from ..pipeline.manifest import is_fresh
from .common import (
    EXIT_ERRORS,
    EXIT_OK,
    asked_languages,
    language_option,
    options,
    places,
    progress,
)


def cmd_build(args: argparse.Namespace, only: tuple[str, ...] = ()) -> int:
    """Validate, then render every output of each game, in each language asked for, whose
    inputs changed; several builds share one pool of workers."""
    todo: list[tuple[str, Path, Path, BuildOptions]] = []
    for name, cards, out in places(args):
        pack = cards / name
        for language in asked_languages(args, pack):
            chosen = options(args, only, language)
            if not args.force and (pack / "game.yaml").is_file() and is_fresh(
                    out / name, chosen.paper, input_digest(pack, chosen), language):
                shown = name if language is None else f"{name} [{language}]"
                progress(f"{shown}: up to date (nothing changed since the last build; --force "
                         "rebuilds)")
                continue
            todo.append((name, cards, out, chosen))
    if not todo:
        return EXIT_OK
    from ..layout.workers import Workers
    from ..pipeline.build import build_game

    with ExitStack() as stack:
        pool = stack.enter_context(Workers().start()) if len(todo) > 1 else None
        for name, cards, out, chosen in todo:
            build_game(name, chosen, out_root=out, cards_dir=cards, progress=progress,
                       workers=pool)
    return EXIT_OK


def cmd_rulebook(args: argparse.Namespace) -> int:
    """Validate, then write only the rulebook of each game."""
    return cmd_build(args, only=("rulebook",))


def cmd_watch(args: argparse.Namespace) -> int:
    """Build a game, then again each time one of its files changes, until Ctrl-C."""
    from ..pipeline.watch import watch

    [(name, cards, out)] = places(argparse.Namespace(**{**vars(args), "games": [args.game]}))
    watch(name, [options(args, language=language)
                 for language in asked_languages(args, cards / name)],
          out_root=out, cards_dir=cards, progress=progress)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Check each game and print every mistake, then a summary (or every finding as JSON);
    the summary counts mistakes, as they are printed."""
    from ..pipeline.build import validate_game

    status, report = EXIT_OK, []
    for name, cards, out in places(args):
        chosen = replace(options(args), language=args.lang)
        result = validate_game(name, cards, chosen, out, progress=progress)
        errors, warnings = tally(result.findings)
        if errors or (args.strict and warnings):
            status = EXIT_ERRORS
        if args.json:
            report.append({"game": name, "errors": errors, "warnings": warnings,
                           "findings": [asdict(f) for f in result.findings],
                           "unchecked": result.unchecked, "shrunk": result.shrunk})
            continue
        for finding in told(result.findings):
            print(finding)
        unchecked = f"; not checked: {listed(result.unchecked, MOST_UNCHECKED)}" \
            if result.unchecked else ""
        print(f"{name}: {counted(errors, 'error')}, {counted(warnings, 'warning')}{unchecked}")
    if args.json:
        print(json.dumps({"games": report}, ensure_ascii=False, indent=2))
    return status


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add this group's commands to the parser."""
    for name, command, does, html in (
            ("build", cmd_build, "validate and render PDFs into build/<game>/",
             "also write the HTML of each PDF"),
            ("rulebook", cmd_rulebook, "validate and write only the rulebook PDF",
             "also write the HTML")):
        building = sub.add_parser(name, parents=[common], help=does)
        building.add_argument("games", **games)
        building.add_argument("--html", action="store_true", help=html)
        building.add_argument("--force", action="store_true",
                              help="build even when nothing changed since the last build")
        language_option(building, "build", "another language's files carry it before the "
                        "extension (cards-a4-es.pdf)")
        building.set_defaults(func=command)

    watching = sub.add_parser("watch", parents=[common], help="build, then rebuild each time a "
                              "file of the game changes, with WeasyPrint kept loaded (Ctrl-C "
                              "stops)")
    watching.add_argument("game", nargs="?", metavar="GAME", help=games["help"])
    language_option(watching, "build", "another language's files carry it before the "
                    "extension (cards-a4-es.pdf)")
    watching.set_defaults(func=cmd_watch)

    validate = sub.add_parser("validate", parents=[common], help="check game packs, their "
                              "layout included, without writing any output")
    validate.add_argument("games", **games)
    validate.add_argument("--json", action="store_true", help="print the findings as JSON")
    validate.add_argument("--lang", metavar="L", help="check the game in one of its languages "
                          "(`languages:` in game.yaml), or in every one with `all`: each "
                          "finding of another than the source after `[L] ` (default: the "
                          "source)")
    validate.set_defaults(func=cmd_validate)
