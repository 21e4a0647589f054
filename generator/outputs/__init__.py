"""The one registry of output kinds: every kind pnp makes, which command makes it, where its
class is, and the command-line switches it adds.

A kind is a subclass of `OutputKind` (base.py) in a module of its own; registering it is one
line in REGISTRY. `pnp build` makes the BUILD kinds in this order (the rulebook last, so that
the card outputs are assembled while its chapters are still laid out) and `--only` picks some;
`pnp export --to` one EXPORT kind; `pnp reprint` the REPRINT kind. A kind's switches become
switches of `pnp build`, `rulebook`, `watch` and `validate`. The registry imports no kind:
the command line and a build with nothing to do read it without loading any.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import OutputKind

BUILD, EXPORT, REPRINT = "build", "export", "reprint"  # the command that makes a kind


@dataclass(frozen=True)
class Registered:
    """One kind of output: its name, the command that makes it, its class as a dotted path,
    and its own switches with their help."""

    name: str
    made_by: str
    where: str
    switches: dict[str, str] = field(default_factory=dict, hash=False)

    def load(self) -> type[OutputKind]:
        """The kind's class, its module imported now."""
        module, _, name = self.where.rpartition(".")
        kind: type[OutputKind] = getattr(importlib.import_module(module), name)
        return kind


REGISTRY: list[Registered] = [
    Registered("sheets", BUILD, "generator.outputs.sheets.SheetsOutput", {
        "no_backs": "leave the backs pages out",
        "fold": "gutter-fold sheets for printers without duplex: each front beside its back, "
                "to fold down the middle, glue and cut"}),
    Registered("dice", BUILD, "generator.outputs.dice.DiceOutput"),
    Registered("boxes", BUILD, "generator.outputs.boxes.BoxesOutput"),
    Registered("standees", BUILD, "generator.outputs.standees.StandeesOutput"),
    Registered("rulebook", BUILD, "generator.outputs.rulebook.RulebookOutput", {
        "booklet": "also write rulebook-booklet-<paper>.pdf: half-size pages two up on the "
                   "paper, in saddle-stitch order"}),
    Registered("images", EXPORT, "generator.exports.images.ImagesExport"),
    Registered("printshop", EXPORT, "generator.exports.printshop.PrintshopExport"),
    Registered("tts", EXPORT, "generator.exports.tts.TtsExport"),
    Registered("proof", REPRINT, "generator.editions.proof.ProofOutput"),
]


def made_by(command: str) -> list[Registered]:
    """The kinds a command makes, in the registry's order."""
    return [kind for kind in REGISTRY if kind.made_by == command]


def registered(name: str) -> Registered:
    """The kind registered under a name."""
    [kind] = [kind for kind in REGISTRY if kind.name == name]
    return kind


def switches() -> dict[str, str]:
    """Every build kind's own switches, with their help."""
    return {switch: text for kind in made_by(BUILD) for switch, text in kind.switches.items()}
