"""The `pnp` command line: one module per group of commands, `main` parses and runs."""

from .program import main, parser

__all__ = ["main", "parser"]
