"""What every export plugs into: what `pnp export` was asked for, each card side as an export
shows it, and the kind of output an export is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..check.findings import display_path
from ..outputs.base import Job, OutputKind
from ..pack.load import CardBase, Deck
from ..pipeline.cache import PartCache
from ..pipeline.execute import Assembled
from ..plan.parts import LaidOut
from ..plan.render import Face
from .preflight import Inspection


@dataclass(frozen=True)
class ExportSettings:
    """What `pnp export` was asked for: the profile, the dpi and image format, the print-shop
    file's page order, crop marks and colour, how strict the preflight is, and the web
    address a Tabletop Simulator save links its images at."""

    profile: str = "generic"
    dpi: float = 300
    image_format: str = "png"
    backs_last: bool = False
    marks: bool = False
    cmyk: bool = False
    strict: bool = False
    base_url: str | None = None  # tts: where the images will be uploaded


@dataclass(frozen=True)
class Side:
    """One side of one card as an export shows it: its deck, its number in the deck, the card,
    front or back, the face drawn, and where the card is written (path, line)."""

    deck: Deck
    number: int
    card: CardBase
    side: str
    face: Face
    where: tuple[str, int]


class ExportKind(OutputKind):
    """An output `pnp export` makes and a build never does, written whole into the game's
    `<game>-export/<name>/` folder; it inspects what it writes for the preflight report."""

    def __init__(self, job: Job, settings: ExportSettings = ExportSettings(),
                 cache: PartCache | None = None, folder: Path | None = None) -> None:
        super().__init__(job)
        self.settings = settings
        self.cache = cache  # where drawn images are kept between exports
        self.folder = folder  # where the export is put in place
        self.laid: dict[str, LaidOut] = {}  # the laid-out parts its files are drawn from
        self.inspected: list[Inspection] = []  # what the preflight reports
        self.rendered = 0  # images drawn in this export, not taken from the cache
        self.notes: list[str] = []  # what the export says of its files beside the preflight
        self.kept: list[str] = []  # the cache keys of the images it used

    def draw_from(self, made: Assembled) -> None:
        """Take the laid-out parts of a made document, which the export's images are drawn
        from."""
        self.laid = made.laid

    def keep_only(self) -> None:
        """Drop the kept images that none of the last few exports used."""
        if self.cache is not None:
            self.cache.used = {"images": self.kept}
            self.cache.keep_only()

    def sides(self) -> list[Side]:
        """Every card's front, then its back, deck by deck; a double-sided card's back is its
        own face again, and a single-sided card has none."""
        renderer, found = self.job.renderer, []
        for deck in self.job.decks:
            for number, (card, line) in enumerate(deck.located(), start=1):
                front = renderer.face(deck, card, line)
                back = renderer.back(deck, card, front)
                where = (display_path(deck.path), line)
                found.append(Side(deck, number, card, "front", front, where))
                if back is not None:
                    found.append(Side(deck, number, card, "back", back, where))
        return found
