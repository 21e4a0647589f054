"""Designer-facing errors: findings that name a file and a line, never a traceback."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import PROJECT_ROOT


@cache
def display_path(path: Path | str) -> str:
    """Return a path relative to the project root when it lies inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in a game pack, located at path:line."""

    path: str
    line: int
    message: str
    level: str = "error"
    code: str = "E000"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.level}: {self.code}: {self.message}"


class PnpError(Exception):
    """Base class of every error the CLI reports as a clean message."""


class PackError(PnpError):
    """A game pack has one or more errors; carries every finding at once."""

    def __init__(self, findings: list[Finding]):
        self.findings = sorted(findings)
        super().__init__("\n".join(str(f) for f in self.findings))


class RenderError(PnpError):
    """Rendering failed for a reason the designer can act on."""
