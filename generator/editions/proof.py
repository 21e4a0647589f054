"""The proof sheet of a reprint (`changes-<paper>.pdf`): each face that prints differently,
before and after side by side, the region that changed outlined on both, with why it changed.

The "after" pictures are drawn from the faces as laid out now; the "before" ones were kept in
the build cache by `pnp release` (`.cache/editions/<game>/<edition>/`, each face keyed by its
language), or the proof says they were not kept on this machine.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..check.findings import display_path
from ..outputs.base import Document, File, OutputKind
from ..pack.files import file_part
from ..pipeline.cache import CACHE, PartCache
from ..pipeline.execute import Assembled
from ..plan.parts import Part
from ..text.language import section_words

PROOF_DPI = 100  # faces are kept and shown this sharp
CHANGED = "#e0201b"  # the outline round what changed
BAND_GAP = 4  # rows of pixels that do not change between two that do, in one box


@dataclass(frozen=True)
class Pair:
    """One face before and after (PNG bytes; None when the before was not kept), where they
    differ (left, top, right, bottom in pixels), and its caption."""

    before: bytes | None
    after: bytes
    boxes: list[tuple[int, int, int, int]]
    title: str
    why: list[str]


def kept_store(out_root: Path, game: str, edition: str, pack: Path,
               progress: Callable[[str], None] = lambda message: None,
               read_only: bool = False) -> PartCache:
    """Where `pnp release` keeps an edition's pictures, each sealed and checked like a part:
    `.cache/editions/<game>/<edition>/`, the edition's name made one safe file-name part."""
    return PartCache(out_root, (CACHE, "editions", game, file_part(edition)), pack,
                     lambda message: progress(f"{game}: kept pictures: {message}"),
                     read_only, ".png")


def _key(key: str, language: str | None) -> str:
    """What a face's picture is kept under: its face key, after its language but the
    source's (None)."""
    return key if language is None else f"{language}:{key}"


def keep(store: PartCache, pictures: dict[str, bytes], language: str | None = None) -> None:
    """Keep an edition's pictures of one language (None: the source) by face key."""
    for key, data in sorted(pictures.items()):
        store.keep(_key(key, language), data)


def kept(store: PartCache, keys: list[str], language: str | None = None) -> dict[str, bytes]:
    """The pictures kept of these faces in a language (None: the source), by face key: those
    not kept, or damaged, left out."""
    found = {key: store.kept(_key(key, language)) for key in keys}
    return {key: data for key, data in found.items() if data is not None}


def changed_boxes(before: bytes, after: bytes) -> list[tuple[int, int, int, int]]:
    """Where two pictures of a face differ, in pixels, a box for each band of rows that
    changes (the number in the text, the revision tag in the footer); none where they do not,
    the whole picture when they differ in size."""
    from PIL import Image, ImageChops

    one, other = (Image.open(io.BytesIO(data)).convert("RGB") for data in (before, after))
    if one.size != other.size:  # the component grew or shrank: all of it changed
        return [(0, 0, *other.size)]
    difference = ImageChops.difference(one, other).convert("L")
    width = difference.width
    rows = [y for y in range(difference.height)
            if difference.crop((0, y, width, y + 1)).getbbox() is not None]
    bands: list[list[int]] = []
    for y in rows:
        if bands and y - bands[-1][1] <= BAND_GAP:
            bands[-1][1] = y
        else:
            bands.append([y, y])
    boxes = []
    for top, bottom in bands:
        found = difference.crop((0, top, width, bottom + 1)).getbbox()
        if found:
            boxes.append((found[0], top, found[2], bottom + 1))
    return boxes


class ProofOutput(OutputKind):
    """The before-and-after proof of the faces that print differently."""

    name = "proof"

    def __init__(self, job: Any, pairs: list[Pair], heading: str) -> None:
        super().__init__(job)
        self.pairs, self.heading = pairs, heading

    def plan(self) -> list[Document]:
        """One document of every pair, two to a page or as many as fit."""
        job = self.job
        words = section_words(job.game.spec.language, "changelog")
        figures = [{"title": pair.title, "why": pair.why,
                    "before": _uri(pair.before) if pair.before else None,
                    "after": _uri(pair.after),
                    "boxes": [_percent(box, pair.after) for box in pair.boxes]}
                   for pair in self.pairs]
        html = job.renderer.render("proof.html.j2", {
            **job.renderer.page_context(), "paper": job.geometry.papers[job.paper],
            "heading": self.heading, "figures": figures, "changelog": words,
            "marked": CHANGED})
        where = display_path(job.game.root / "game.yaml")
        return [Document(f"changes-{job.paper}.pdf", [Part(html, where)], duplex=None)]

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The proof as it is."""
        return [File(document.file, made.pdf)]


def _uri(data: bytes) -> str:
    """A PNG as a data URI."""
    return "data:image/png;base64," + base64.b64encode(data).decode()


def _percent(box: tuple[int, int, int, int], picture: bytes) -> list[float]:
    """A box in pixels as left, top, width, height in percent of the picture."""
    from PIL import Image

    width, height = Image.open(io.BytesIO(picture)).size
    left, top, right, bottom = box
    return [round(100 * left / width, 3), round(100 * top / height, 3),
            round(100 * (right - left) / width, 3), round(100 * (bottom - top) / height, 3)]
