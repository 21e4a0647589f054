"""How a printer turns sheets over: the flip edge and the back offset, from the command line
or kept per printer in printers.yaml."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..check.findings import Finding, PnpError
from ..pack.files import FileRefused, read_text

FLIPS = ("long", "short")
MAX_OFFSET = 20  # mm: a back offset beyond this is a typo, not a printer
MAX_BYTES = 1_000_000  # printers.yaml keeps a few printers: a larger file is refused unread
_GAME_LIMIT = re.compile(r" \(`limits: \w+` in game\.yaml\)")  # printers.yaml's are fixed


@dataclass(frozen=True)
class Printer:
    """The flip edge and the offset every back is moved by (mm, right and down as seen on
    the back)."""

    duplex: str = "long"
    back_offset: tuple[float, float] = (0.0, 0.0)


def parse_offset(text: str, where: str = "--back-offset", path: str = "", line: int = 0,
                 code: str = "E100") -> tuple[float, float]:
    """'X,Y' in mm, e.g. '-1.5,0.5'; `where` names it, at `path` and `line` if in a file."""
    parts = [part.strip() for part in str(text).split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise PnpError(f"{where}: '{text}' is not X,Y in mm (for example -1.5,0.5)", code, path,
                       line) from None
    if not (abs(x) <= MAX_OFFSET and abs(y) <= MAX_OFFSET):
        raise PnpError(f"{where}: {x:g},{y:g} mm is more than {MAX_OFFSET} mm; "
                       "print `pnp calibrate` and read the scales again", code, path, line)
    return x, y


def _refused(shown: str, line: int, message: str) -> PnpError:
    """printers.yaml refused at its line; the default limits it is read with are no game's."""
    return PnpError(_GAME_LIMIT.sub('', message), "E101", shown, line or 1)


def load_printer(path: Path, name: str) -> Printer:
    """The settings kept for printer `name` in a printers.yaml, read as a pack's files are (a
    regular file within MAX_BYTES, YAML within the default limits): it may come with a
    stranger's folder."""
    from ..pack.yamlfile import LineDict, parse_yaml

    shown = path.name
    try:
        text = read_text(path, MAX_BYTES, name=shown)
    except FileRefused as exc:
        if exc.code == "E001" and not path.exists():
            raise PnpError(f"--printer {name}: there is no {path} (see the README: "
                           "printers.yaml)", "E101") from None
        raise _refused(shown, exc.line, exc.message) from None
    findings: list[Finding] = []
    data = parse_yaml(text, path, findings)
    if findings:
        raise _refused(shown, findings[0].line, findings[0].message)
    if not isinstance(data, LineDict):
        raise PnpError("should map each printer's name to its settings", "E101", shown, 1)
    lines = {str(key): line for key, line in data.lines.items()}
    if name not in data:
        known = ", ".join(sorted(map(str, data))) or "none"
        raise PnpError(f"no printer '{name}' (it has: {known})", "E101", shown)
    settings, line = data[name], lines.get(name, 1)
    if not isinstance(settings, dict) or set(settings) - {"duplex", "back_offset"}:
        raise PnpError(f"printer '{name}' takes duplex (long or short) and back_offset (X,Y in "
                       "mm), nothing else", "E101", shown, line)
    duplex = str(settings.get("duplex", "long"))
    if duplex not in FLIPS:
        raise PnpError(f"printer '{name}': duplex is long or short, not '{duplex}'", "E101",
                       shown, line)
    offset = settings.get("back_offset", "0,0")
    if isinstance(offset, list):
        offset = ",".join(map(str, offset))
    return Printer(duplex, parse_offset(offset, f"printer '{name}'", shown, line, "E101"))
