"""`pnp serve`'s faces laid out while the pack is still being checked."""

from __future__ import annotations

from ..check.findings import PackError
from ..check.validate import renderable
from ..layout.workers import Workers
from ..outputs.base import Job
from ..pack.load import Deck, Game
from ..pipeline.cache import PartCache
from ..pipeline.execute import Executor
from ..plan.faces import Faces, deck_faces, joined
from ..plan.render import Renderer
from ..text.fonts import FontRegistry


class Ahead:
    """A refresh's faces laid out while its checks run: once the renderer is ready, each
    deck's faces are rendered and started, the deck saved last first (an edited card is laid
    out while the rest of the game is checked); a card the checks then leave out lays out
    nothing that is kept."""

    def __init__(self, cache: PartCache, workers: Workers) -> None:
        self.cache, self.workers = cache, workers
        self.executor: Executor | None = None
        self.decks: dict[str, tuple[Deck, Faces]] = {}  # each deck started: as it was, its faces

    def start(self, renderer: Renderer) -> None:
        """Render the faces of every deck whose every card can be rendered, one to a part,
        and start laying them out, the deck saved last first."""
        game = renderer.game
        self.executor = executor = _executor(game, renderer.fonts, self.cache, self.workers)
        for deck in sorted(game.decks, key=_saved, reverse=True):
            if not deck.readable or len(renderable(game, renderer.geometry, deck)) != len(
                    deck.cards):
                continue
            try:
                faces = deck_faces(game, deck, renderer, 1)
            except PackError:  # a template that fails: the checks say so
                continue
            self.decks[deck.spec.id] = (deck, faces)
            executor.start(faces.parts_of([deck.spec.id]))

    def laid(self, job: Job) -> Executor:
        """The job's faces, one to a part, laid out (those started ahead taken): an executor
        that has laid out those alone."""
        game, renderer = job.game, job.renderer
        job.faces_per_part = 1
        job.faces = joined([kept[1] if kept is not None and _same(kept[0], deck)
                            else deck_faces(game, deck, renderer, 1) for deck in job.decks
                            for kept in [self.decks.get(deck.spec.id)]])
        executor = self.executor or _executor(game, job.fonts, self.cache, self.workers)
        parts = job.faces.parts_of([deck.spec.id for deck in job.decks])
        executor.start(parts)
        executor.only(parts)
        return executor


def _executor(game: Game, fonts: FontRegistry, cache: PartCache, workers: Workers) -> Executor:
    """An executor of the preview's: the workers kept, parts kept in memory."""
    return Executor(game.root, fonts, cache, workers, keep_workers=True,
                    max_bytes=game.spec.limits.file_bytes, drafts=True)


def _saved(deck: Deck) -> int:
    """When a deck's file was last saved (0 when it cannot be told)."""
    try:
        return deck.path.stat().st_mtime_ns
    except OSError:
        return 0


def _same(one: Deck, other: Deck) -> bool:
    """Whether two decks are the same cards of the same deck, on the same lines."""
    return one.spec is other.spec and one.lines == other.lines and len(one.cards) == len(
        other.cards) and all(a is b for a, b in zip(one.cards, other.cards, strict=True))
