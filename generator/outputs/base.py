"""What every kind of output plugs into: the job it plans from, the documents it plans, the
files it finishes them into."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

from ..assemble import LONG_EDGE
from ..cache import BuildOptions
from ..errors import Finding, display_path
from ..faces import Faces, face_documents
from ..fonts import FontRegistry
from ..geometry import Geometry
from ..load import CardBase, Deck, Game
from ..manifest import Entry
from ..parts import LaidOut, Part
from ..render import Face, Renderer


@dataclass
class Job:
    """What a build's outputs are planned from: the game, its print geometry and fonts, the
    options, one renderer, and the decks to plan (every deck in a build; in `pnp validate`,
    the cards that have no error of their own)."""

    game: Game
    geometry: Geometry
    fonts: FontRegistry
    options: BuildOptions
    renderer: Renderer
    decks: list[Deck]

    @cached_property
    def faces(self) -> Faces:
        """Every distinct face and back of the decks, laid out once for every output."""
        return face_documents(self.game, self.decks, self.renderer, self.fonts)

    @property
    def paper(self) -> str:
        """The paper asked for."""
        return self.options.paper


@dataclass
class Document:
    """One output file in the making: its parts in order, the faces drawn into them from the
    faces parts `drawn`, the part whose pages are printed over theirs, and how it is flipped
    when printed on both sides. `kept` are parts it was planned from but does not join, kept
    in the cache all the same."""

    file: str
    parts: list[Part]
    faces: Faces | None = None
    drawn: list[Part] = field(default_factory=list)
    overlay: Part | None = None
    duplex: str | None = LONG_EDGE
    kept: list[Part] = field(default_factory=list)

    def every_part(self) -> list[Part]:
        """Every part laid out for it: its own, the overlay and the faces it draws."""
        return self.parts + ([self.overlay] if self.overlay else []) + self.drawn


@dataclass(frozen=True)
class File:
    """A file an output writes: its name in the game's build folder, its bytes, and its
    manifest entry (none for the HTML written beside a PDF)."""

    name: str
    data: bytes
    entry: Entry | None = None


class OutputKind:
    """One kind of output, planned as documents of parts and finished into files.

    A kind plans its documents (`plan`), may plan more parts once the first are laid out
    (`revise`: the rulebook numbers its pages), and turns each assembled PDF into files and
    manifest entries (`finish`). `switches` are command-line switches of its own (`booklet`
    gives `--booklet`), on in `job.options` when given; `check` adds findings to `pnp
    validate` and to every build's checks. One instance serves one build.
    """

    name: ClassVar[str]
    switches: ClassVar[dict[str, str]] = {}

    def __init__(self, job: Job) -> None:
        self.job = job

    def check(self) -> list[Finding]:
        """Problems in the pack that only this kind sees."""
        return []

    def plan(self) -> list[Document]:
        """The documents to lay out."""
        raise NotImplementedError

    def revise(self, document: Document, laid: Callable[[Part], LaidOut]) -> Document:
        """The document again once its parts are laid out (`laid` gives each), with parts
        planned from their page counts; by default it stays as it is."""
        return document

    def finish(self, document: Document, pdf: bytes, pages: int) -> list[File]:
        """The files an assembled document becomes."""
        raise NotImplementedError

    def file_pages(self, document: Document, pages: int) -> int:
        """The pages of the file an assembled document of `pages` pages becomes."""
        return pages

    def missing(self) -> Finding:
        """Why this kind, asked for by name, has nothing to make."""
        game = self.job.game
        return Finding(display_path(game.root / "game.yaml"), 0,
                       f"the game has no {self.name} output", "E001")

    def entry(self, file: str, pages: int, decks: dict[str, dict[str, int]] | None = None
              ) -> Entry:
        """A manifest entry for one of this kind's PDFs; the kind is named by its file."""
        kind = file.removesuffix(".pdf").removesuffix(f"-{self.job.paper}")
        return Entry(file, kind, self.job.paper, pages, decks or {})


@dataclass(frozen=True)
class ExportSettings:
    """What `pnp export` was asked for: the profile, the dpi and image format, the print-shop
    file's page order, crop marks and colour, and how strict the preflight is."""

    profile: str = "generic"
    dpi: float = 300
    image_format: str = "png"
    backs_last: bool = False
    marks: bool = False
    cmyk: bool = False
    strict: bool = False


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

    def __init__(self, job: Job, settings: ExportSettings = ExportSettings()) -> None:
        super().__init__(job)
        self.settings = settings

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
