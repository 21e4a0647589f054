"""`pnp export`: a game's cards for a print shop or a virtual table."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from .common import EXIT_OK, asked_languages, language_option, places, progress


def cmd_export(args: argparse.Namespace) -> int:
    """Export each game's cards as images, print-shop PDFs or a Tabletop Simulator object,
    in each language asked for; several exports share one pool of workers."""
    from ..exports.base import ExportSettings
    from ..exports.run import export
    from ..layout.workers import Workers

    settings = ExportSettings(args.profile, args.dpi, args.format, args.backs_last, args.marks,
                              args.cmyk, args.strict, _deck_ids(args.decks), args.base_url)
    todo = [(name, cards, out, language) for name, cards, out in places(args)
            for language in asked_languages(args, cards / name)]
    with ExitStack() as stack:
        pool = stack.enter_context(Workers().start()) if len(todo) > 1 else None
        for name, cards, out, language in todo:
            export(name, args.to, settings, cards, out, progress, pool, language)
    return EXIT_OK


def _deck_ids(text: str | None) -> tuple[str, ...]:
    """The deck ids of `--decks a,b`, none when not given."""
    return tuple(part.strip() for part in text.split(",") if part.strip()) if text else ()


def _profile_names() -> list[str]:
    """The export profiles shipped in templates/profiles/."""
    from ..exports.profiles import profile_files

    return list(profile_files(None))


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add this group's commands to the parser."""
    from ..outputs import EXPORT, made_by

    export = sub.add_parser("export", parents=[base], help="export the cards for a print shop "
                            "or a virtual table into <out>/<game>-export/<to>/ (<to>-<lang>/ "
                            "for a language other than the source), with a preflight report "
                            "(preflight.json)")
    export.add_argument("games", **games)
    export.add_argument("--to", choices=[kind.name for kind in made_by(EXPORT)], default="images",
                        help="images: each card side an image, listed with copies; printshop: "
                             "a PDF a deck, a card side a page with TrimBox and BleedBox; tts: "
                             "Tabletop Simulator sheets and saved object (default: images)")
    export.add_argument("--profile", default="generic", metavar="PROFILE",
                        help=f"the print shop: its card sizes and their pixel sizes, bleed, "
                        f"page order and colour; one of {', '.join(_profile_names())} "
                        "(templates/profiles/), or a pack's own <pack>/profiles/<name>.yaml: "
                        "generic (any size, cut + print.yaml bleed at --dpi), tgc (The Game "
                        "Crafter), mpc (MakePlayingCards), drivethru (DriveThruCards: each "
                        "back page before its front, 1/8 in bleed, CMYK PDF/X-1a, ink <= 240 "
                        "%%), cutcontour (a print-and-cut shop: any size, each piece's cut "
                        "outline stroked in the CutContour spot colour for its cutter); a deck "
                        "of a size the shop does not sell is left out, with a warning "
                        "(default: generic)")
    export.add_argument("--decks", metavar="A,B", default=None, help="export only these decks "
                        "(their ids, comma-separated; default: every deck)")
    export.add_argument("--dpi", type=float, default=300, help="for a profile of no dpi of "
                        "its own (generic)")
    export.add_argument("--format", choices=["png", "jpg"], default="png")
    export.add_argument("--backs-last", action="store_true", help="printshop: every front, "
                        "then every back, for a profile that takes it (default: the profile's "
                        "page order; generic: each front followed by its back)")
    export.add_argument("--marks", action="store_true", help="printshop: crop marks in a "
                        "slug round the bleed")
    export.add_argument("--cmyk", action="store_true", help="printshop: convert to CMYK, total "
                        "ink under 240 %%, with LittleCMS and Ghostscript (which must be "
                        "installed)")
    export.add_argument("--base-url", metavar="URL", help="tts: the http(s) address the "
                        "images will be uploaded to; the save links each image there (default: "
                        "file:/// paths, which work only on this machine)")
    export.add_argument("--strict", action="store_true", help="a preflight finding fails the "
                        "export, and nothing is written")
    export.add_argument("--out", type=Path, default=None, help="output folder (default: "
                        "build/, or a pack folder's own build/)")
    language_option(export, "export", "another language's folder is <to>-<lang>/ "
                    "(tts-es/)")
    export.set_defaults(func=cmd_export)
