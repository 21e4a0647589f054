"""What every kind of output plugs into: the job it plans from, the documents it plans, the
files it finishes them into."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from ..check.findings import Finding, display_path
from ..pack.load import Deck, Game
from ..pack.translate import languages
from ..pdf.assemble import LONG_EDGE
from ..pipeline.cache import BuildOptions
from ..pipeline.manifest import Entry
from ..plan.faces import FACES_PER_PART, Faces, face_documents
from ..plan.geometry import Geometry
from ..plan.parts import LaidOut, Part
from ..plan.render import Renderer
from ..text.fonts import FontRegistry

if TYPE_CHECKING:
    from ..pipeline.execute import Assembled

@dataclass
class Job:
    """What a build's outputs are planned from: the game, its print geometry and fonts, the
    options, one renderer, and the decks to plan (every deck in a build; in `pnp validate`,
    the cards that have no error of their own), and how many faces are laid out together
    (`pnp serve` lays out each alone, so that an edit lays out one face again)."""

    game: Game
    geometry: Geometry
    fonts: FontRegistry
    options: BuildOptions
    renderer: Renderer
    decks: list[Deck]
    faces_per_part: int = FACES_PER_PART

    @cached_property
    def faces(self) -> Faces:
        """Every distinct face and back of the decks, laid out once for every output."""
        return face_documents(self.game, self.decks, self.renderer, self.faces_per_part)

    @property
    def paper(self) -> str:
        """The paper asked for."""
        return self.options.paper

    @property
    def translation(self) -> str | None:
        """The language built when it is not the game's source language; None for the
        source."""
        return translation(self.game)


def translation(game: Game) -> str | None:
    """The language a game is loaded in when it is not its source language; None for the
    source."""
    return None if game.spec.language == languages(game.spec)[0] else game.spec.language


def language_name(name: str, language: str | None) -> str:
    """A file's name in a language other than the source: the language before the extension
    (`cards-a4-es.pdf`); the source language's (None) as it is."""
    if language is None:
        return name
    stem, dot, extension = name.rpartition(".")
    return f"{stem}-{language}.{extension}" if dot else f"{name}-{language}"


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

    def in_language(self, language: str | None) -> File:
        """The file as a build of `language` (None: the source) names it, its entry too."""
        if language is None:
            return self
        entry = self.entry and replace(self.entry, file=language_name(self.entry.file, language))
        return File(language_name(self.name, language), self.data, entry)


class OutputKind:
    """One kind of output, planned as documents of parts and finished into files.

    A kind plans its documents (`plan`), may plan more parts once the first are laid out
    (`revise`: the rulebook numbers its pages), and turns each assembled PDF into files and
    manifest entries (`finish`). The switches the registry gives it (`booklet` gives
    `--booklet`) are on in `job.options` when given; `check` adds findings to `pnp validate`
    and to every build's checks. One instance serves one build.
    """

    name: ClassVar[str]

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

    def finish(self, document: Document, made: Assembled) -> list[File]:
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
        return Entry(file, kind, self.job.paper, self.job.game.spec.language, pages,
                     decks or {})
