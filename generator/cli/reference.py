"""The command-line reference page (docs/reference/cli.md), written from the parser itself so
that it cannot drift from `pnp --help`; `make docs` writes it, a test compares."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .program import parser

WIDTH = "100"  # the help's line width, whatever the terminal that writes the page


def _commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each command's own parser, in the order `pnp --help` lists them."""
    [action] = [action for action in top._actions  # argparse keeps its commands private
                if isinstance(action, argparse._SubParsersAction)]
    return dict(action.choices)


def cli_reference() -> str:
    """The page: `pnp --help`, then each command's help, as Markdown."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        top = parser()
        lines = ["# The `pnp` command", "",
                 "Generated from the parser by `make docs`; `pnp COMMAND --help` prints the "
                 "same.", "", "```text", top.format_help().rstrip(), "```"]
        for name, command in _commands(top).items():
            lines += ["", f"## pnp {name}", "", "```text", command.format_help().rstrip(), "```"]
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(cli_reference(), encoding="utf-8")
