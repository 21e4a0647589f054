"""Stage 3, plan: every kind of output is a plug-in that plans documents of parts and finishes
them into files and manifest entries.

A kind is a subclass of `OutputKind` (base.py) in a module of its own here; registering it is
adding it to KINDS. Builds make every registered kind, in this order (the rulebook last, so
that the card outputs are assembled while its chapters are still laid out); `--only` picks
some. Exports (EXPORTS) are kinds too, which only `pnp export` makes. A kind's `switches`
become command-line switches of `pnp build`, `rulebook` and `watch`.
"""

from __future__ import annotations

from .base import Document, File, Job, OutputKind
from .dice import DiceOutput
from .images import ImagesExport
from .printshop import PrintshopExport
from .rulebook import RulebookOutput
from .sheets import SheetsOutput
from .tts import TtsExport

KINDS: list[type[OutputKind]] = [SheetsOutput, DiceOutput, RulebookOutput]
EXPORTS: list[type[ImagesExport]] = [ImagesExport, PrintshopExport, TtsExport]  # pnp export

__all__ = ["EXPORTS", "KINDS", "Document", "File", "Job", "OutputKind", "switches"]


def switches() -> dict[str, str]:
    """Every registered kind's own switches, with their help."""
    return {switch: text for kind in KINDS for switch, text in kind.switches.items()}
