"""What every export plugs into: what `pnp export` was asked for, each card side as an export
shows it, and the kind of output an export is."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..check.findings import Finding, PnpError, display_path
from ..outputs.base import Job, OutputKind, language_name
from ..pack.load import CardBase, Deck
from ..pack.yamlfile import line_of
from ..pipeline.cache import PartCache
from ..pipeline.execute import Assembled
from ..plan.parts import LaidOut
from ..plan.render import Face
from .preflight import Inspection
from .profiles import Profile, load_profile

SKIPPED = "W111"  # a deck of a size the profile's shop does not sell, left out


@dataclass(frozen=True)
class ExportSettings:
    """What `pnp export` was asked for: the profile, the dpi and image format, the print-shop
    file's page order, crop marks and colour, how strict the preflight is, the decks (none
    named: every deck), and the web address a Tabletop Simulator save links its images at."""

    profile: str = "generic"
    dpi: float = 300
    image_format: str = "png"
    backs_last: bool = False
    marks: bool = False
    cmyk: bool = False
    strict: bool = False
    decks: tuple[str, ...] = ()
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
    `<game>-export/<name>/` folder; it inspects what it writes for the preflight report.
    It plans the decks asked for (`--decks`), less those of a size the profile's shop does
    not sell when the kind is made for a shop (`for_shop`)."""

    for_shop = False

    def __init__(self, job: Job, settings: ExportSettings = ExportSettings(),
                 cache: PartCache | None = None, folder: Path | None = None,
                 profile: Profile | None = None) -> None:
        self.profile = profile or load_profile(settings.profile, job.game.root)
        decks = chosen(job.decks, settings.decks, [deck.spec.id for deck in job.game.decks])
        sizes = job.geometry.sizes  # a size it lacks is the pack's error, found before
        self.skipped = [deck for deck in decks if self.for_shop and deck.spec.size in sizes
                        and self.profile.size_for(sizes[deck.spec.size]) is None]
        super().__init__(replace(job, decks=[deck for deck in decks
                                             if deck not in self.skipped]))
        self.settings = settings
        self.cache = cache  # where drawn images are kept between exports
        self.folder = folder  # where the export is put in place
        self.laid: dict[str, LaidOut] = {}  # the laid-out parts its files are drawn from
        self.inspected: list[Inspection] = []  # what the preflight reports
        self.rendered = 0  # images drawn in this export, not taken from the cache
        self.notes: list[str] = []  # what the export says of its files beside the preflight
        self.kept: list[str] = []  # the cache keys of the images it used

    def left_out(self) -> list[Finding]:
        """A warning for each deck of a size the shop does not sell, naming the nearest it
        does, at the deck's `size:` line; an error when no deck is left."""
        game, where = self.job.game, display_path(self.job.game.root / "game.yaml")
        found = []
        for deck in self.skipped:
            cut = self.job.geometry.sizes[deck.spec.size]
            near = self.profile.nearest(cut)
            index = [each.spec.id for each in game.decks].index(deck.spec.id)
            line = line_of(game.spec_data, ("decks", index, "size"))
            found.append(Finding(where, line, f"deck '{deck.spec.id}': {self.profile.title} "
                                 f"sells no {cut.width:g} x {cut.height:g} mm card (size "
                                 f"'{deck.spec.size}'); the nearest it sells is "
                                 f"'{near.name}', {near.cut.width:g} x {near.cut.height:g} "
                                 f"mm: the deck is left out of the {self.profile.name} export",
                                 SKIPPED))
        if self.skipped and not self.job.decks:
            found.append(Finding(where, 0, f"no deck left to export: the {self.profile.name} "
                                 f"profile ({self.profile.path}) sells none of their card "
                                 "sizes", "E084"))
        return found

    def draw_from(self, made: Assembled) -> None:
        """Take the laid-out parts of a made document, which the export's images are drawn
        from."""
        self.laid = made.laid

    def keep_only(self) -> None:
        """Drop the kept images that none of the last few exports used."""
        if self.cache is not None:
            self.cache.used = {language_name("images", self.job.translation): self.kept}
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


def chosen(decks: list[Deck], asked: tuple[str, ...], ids: list[str]) -> list[Deck]:
    """The decks `--decks` asks for, in the game's order (all when none is asked for); an id
    the game has not is an error listing its decks."""
    unknown = [deck_id for deck_id in asked if deck_id not in ids]
    if unknown:
        raise PnpError(f"--decks: no deck {', '.join(repr(deck_id) for deck_id in unknown)} "
                       f"(the game's decks: {', '.join(ids)})")
    return [deck for deck in decks if not asked or deck.spec.id in asked]
