"""`pnp calibrate`: the duplex test sheet that reads a printer's back offset."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .. import BUILD_DIR
from ..text.language import languages
from .common import EXIT_OK, PRINTERS_FILE, papers, printer, printing_options, progress


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Write the duplex calibration sheet."""
    from ..outputs.calibrate import write_calibration
    from ..plan.geometry import load_geometry

    kept = printer(args)
    path = write_calibration(args.out or BUILD_DIR, args.paper, load_geometry().papers[args.paper],
                             kept.duplex, kept.back_offset, args.lang)
    progress(f"wrote {path}: print it on both sides, hold it to the light and read the "
              "back offset off its scales")
    return EXIT_OK


def add_commands(sub: Any, base: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 games: dict[str, Any]) -> None:
    """Add this group's commands to the parser."""
    calibrate = sub.add_parser("calibrate", parents=[base], help="write a duplex test sheet "
                               "whose scales read your printer's back offset in mm")
    calibrate.add_argument("--paper", choices=papers(), default="a4", metavar="PAPER",
                           help="the paper: %(choices)s (default: %(default)s)")
    calibrate.add_argument("--out", type=Path, default=None,
                           help="output folder (default: build/)")
    calibrate.add_argument("--printer", metavar="NAME",
                           help=f"print with the settings kept for NAME in ./{PRINTERS_FILE}, "
                                "to check them: every scale should then read 0")
    calibrate.add_argument("--lang", choices=languages(), default="en",
                           help="the language of the page's instructions")
    printing_options(calibrate)
    calibrate.set_defaults(func=cmd_calibrate)
