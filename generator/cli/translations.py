"""`pnp translations`: a game's other languages handed to translators as PO files and taken
back, how far each language is, and its translations accepted as current after review."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import EXIT_OK, places, progress

if TYPE_CHECKING:
    from ..pack.load import Game
    from ..pack.translate import Entry

PO_SUFFIXES = (".po", ".pot")


def cmd_translations(args: argparse.Namespace) -> int:
    """Export, import, mark current, or tell how far each language is (the default)."""
    from ..check.findings import PnpError, display_path
    from ..pack.load import load_game
    from ..pack.translate import coverage, languages

    [(name, cards, _)] = places(argparse.Namespace(**{**vars(args), "games": [args.game]}))
    game = load_game(name, cards)
    others = languages(game.spec)[1:]
    acting = args.export or args.import_ or args.mark_current
    if args.lang is None and (args.export or args.import_):
        flag = "--export" if args.export else "--import"
        raise PnpError(f"{flag} needs --lang, one of the game's languages to translate into "
                       f"({', '.join(others) or 'none'})", "E100")
    for lang in [args.lang] if args.lang else []:
        if lang not in others:
            told = "is the source language the others translate" if lang == game.spec.language \
                else f"is not one of the game's languages ({', '.join(languages(game.spec))})"
            raise PnpError(f"--lang {lang}: '{lang}' {told}: translate into one of "
                           f"{', '.join(others) or 'none (list them in `languages:`)'}", "E100",
                           display_path(game.root / "game.yaml"))
    if args.export:
        _export(game, args.lang, args.export)
    elif args.import_:
        _import(game, args.lang, args.import_)
    elif args.mark_current:
        for lang in [args.lang] if args.lang else others:
            _mark_current(game, lang)
    elif not others:
        print(f"{name}: one language ({game.spec.language}), nothing to translate: list the "
              "others after it in game.yaml's `languages:`")
    for lang in [] if acting else [args.lang] if args.lang else others:
        print(f"{lang}: {coverage(game, lang, _entries(game, lang))}")
    return EXIT_OK


def _entries(game: Game, lang: str) -> dict[str, Entry]:
    """The language's translations; PackError when its file has errors (they are fixed
    before pnp reads or rewrites it)."""
    from ..check.findings import Finding, PackError
    from ..pack.translate import read_translations

    findings: list[Finding] = []
    entries = read_translations(game, lang, findings)
    errors = [finding for finding in findings if finding.level == "error"]
    if errors:
        raise PackError(errors)
    return entries


def _export(game: Game, lang: str, target: str) -> None:
    """Write the language's PO file to `target` (`-`: standard output)."""
    from ..check.findings import PnpError
    from ..pack.place import command_name
    from ..pack.po import export_po
    from ..pipeline.owned import open_named

    data = export_po(game, lang, _entries(game, lang))
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    path = Path(target)
    if path.suffix.lower() not in PO_SUFFIXES:
        raise PnpError(f"--export {target}: pnp writes a PO file: give a name ending in .po "
                       "(or - for standard output)", "E100")
    with open_named(path.parent, make=False) as folder:
        folder.write(path.name, data)
    progress(f"{lang}: wrote {path}, {_counted_messages(data)}: hand it to the translator, "
             f"then `pnp translations {command_name(game.root, game.name)} --lang {lang} "
             f"--import {target}`")


def _counted_messages(data: bytes) -> str:
    """How many messages a PO file pnp wrote holds, in words."""
    from ..check.findings import counted

    return counted(data.count(b"\nmsgctxt "), "message")


def _import(game: Game, lang: str, source: str) -> None:
    """Lay a PO file's translations over the language's, into translations/<lang>.yaml."""
    from ..check.findings import PnpError, counted, display_path
    from ..pack.files import FileRefused, read_bytes
    from ..pack.po import import_po
    from ..pack.translate import write_translations

    try:
        data = read_bytes(Path(source), game.limits.file_bytes)
    except FileRefused as exc:
        raise PnpError(exc.message, "E137", source) from None
    imported = import_po(game, lang, data, source, _entries(game, lang))
    for note in imported.notes:
        print(note)
    path = write_translations(game, lang, imported.entries)
    stale = f" ({imported.stale} stale: validate says which)" if imported.stale else ""
    cells = f", and the source of {counted(imported.cells, 'spreadsheet cell')}," \
        if imported.cells else ""
    print(f"{lang}: imported {counted(imported.taken, 'translation')}{stale}{cells} from "
          f"{source} into {display_path(path)}")


def _mark_current(game: Game, lang: str) -> None:
    """Record the current source of every translated text of the language (and its
    rulebook's, when it has one)."""
    from ..check.findings import display_path
    from ..pack.translate import has_rulebook, marked_current, rulebook_source, write_translations

    entries, changed = marked_current(game, _entries(game, lang))
    rulebook = rulebook_source(game) if has_rulebook(game, lang) else None
    path = write_translations(game, lang, entries, rulebook)
    translated = sum(entry.text is not None for entry in entries.values())
    also = " and of the rulebook" if rulebook else ""
    print(f"{lang}: recorded the current source of {translated} translated texts ({changed} "
          f"stale before){also} in {display_path(path)}")


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add this group's commands to the parser."""
    translating = sub.add_parser("translations", parents=[base], help="hand a game's texts to "
                                 "translators as PO files and take them back, tell how far "
                                 "each language is, or accept its translations as current")
    translating.add_argument("game", nargs="?", metavar="GAME", help=games["help"])
    translating.add_argument("--lang", metavar="L", default=None, help="one of the game's "
                             "languages (`languages:` in game.yaml) other than the source "
                             "(default for --status: every one)")
    action = translating.add_mutually_exclusive_group()
    action.add_argument("--export", metavar="F.po", help="write every text of the pack, "
                        "with its translation, as a PO file for Poedit, Weblate or Crowdin "
                        "(- for standard output); a stale translation is marked fuzzy")
    action.add_argument("--import", dest="import_", metavar="F.po", help="take a PO file's "
                        "translations into translations/L.yaml, each recording the source text "
                        "it was made from (a spreadsheet column is never rewritten)")
    action.add_argument("--status", action="store_true", help="per language: the texts "
                        "translated, missing and stale, and the rulebook (the default)")
    action.add_argument("--mark-current", action="store_true", help="after review, record the "
                        "current source of every translated text of L (of every language without "
                        "--lang), so that it is no longer stale (W132)")
    translating.set_defaults(func=cmd_translations, out=None)
