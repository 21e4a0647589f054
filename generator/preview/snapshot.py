"""What `pnp serve`'s page shows at one moment: each face with its findings, each output, the
changes since the last edition, as plain data the page reads as JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..check.findings import Finding


@dataclass(frozen=True)
class Shown:
    """A finding as the page draws it: its code, level, message and place, and the box on
    its face it is about (left, top, right, bottom in mm from the picture's top left; None
    when it has none)."""

    code: str
    level: str
    message: str
    path: str
    line: int
    box: tuple[float, float, float, float] | None = None

    @staticmethod
    def of(finding: Finding, box: tuple[float, float, float, float] | None = None) -> Shown:
        """A finding, with the box it is about."""
        return Shown(finding.code, finding.level, finding.message, finding.path, finding.line,
                     box)


@dataclass(frozen=True)
class FaceView:
    """One distinct face or back as the page shows it: which it is (`ident`, stable across
    edits), its card, its picture (a name for its bytes; '' before one was drawn), whether
    that picture is older than the pack (a mistake in its data keeps the last good one) or a
    draft (laid out as it is now, with an error on the page such as text past its box, which
    its findings outline), its size, bleed and safe zone and cut outline in mm, the text a
    search finds it by, and its findings."""

    ident: str
    deck: str
    card: str
    side: str
    name: str
    copies: int
    tag: str
    where: str
    image: str
    stale: bool
    width: float
    height: float
    bleed: float
    safe: float
    cut: tuple[tuple[float, float], ...]
    text: str
    findings: tuple[Shown, ...] = ()
    draft: bool = False
    safe_outline: tuple[tuple[float, float], ...] = ()  # the safe zone, as the cut's shape


@dataclass(frozen=True)
class OutputView:
    """One output file as the page shows it: its name, its pages, a name for its bytes, and
    whether it is older than the pack."""

    file: str
    kind: str
    pages: int
    pdf: str
    stale: bool = False


@dataclass(frozen=True)
class ChangeView:
    """One face that prints differently since the game's last edition, as the page shows it:
    which face (as `FaceView.ident`), its name, the edition, why, its pictures then and now
    (names of their bytes; `before` is '' when it was not kept on this machine), and where
    they differ (left, top, right, bottom as fractions of the picture)."""

    ident: str
    name: str
    since: str
    why: tuple[str, ...]
    before: str
    after: str
    boxes: tuple[tuple[float, float, float, float], ...] = ()


@dataclass(frozen=True)
class Snapshot:
    """What the page shows at one moment: a version counting refreshes, the game, its decks,
    every face, the findings on no face, the outputs, what is still being made (`busy`), the
    faces whose picture changed since the last version, how long the faces took, the game's
    last edition ('' when it has none) and the faces that print differently since."""

    version: int
    game: str
    title: str
    language: str
    decks: tuple[tuple[str, str], ...] = ()
    faces: tuple[FaceView, ...] = ()
    findings: tuple[Shown, ...] = ()
    outputs: tuple[OutputView, ...] = ()
    busy: str = "laying out the faces"
    changed: tuple[str, ...] = ()
    seconds: float = 0.0
    edition: str = ""
    changes: tuple[ChangeView, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The snapshot as the page reads it."""
        return asdict(self)
