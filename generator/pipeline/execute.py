"""Runs a build's plan: every part laid out once, from the cache when it is there, else side
by side on the workers (stage 4); then each document assembled from its parts (stage 5), and
what laying them out found located at the file and line it comes from."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from .. import PROJECT_ROOT
from ..check.findings import CODES, Finding, RenderError
from ..layout.workers import Workers
from ..outputs.base import Document
from ..pack.files import FileRefused, read_text
from ..pack.schema import DEFAULT_LIMITS
from ..pdf.assemble import MM, FaceSource, Recodings, join, unsound
from ..plan.faces import face_anchor
from ..plan.geometry import MIN_DPI
from ..plan.parts import Found, LaidOut, Part, html_title, part_key
from ..text.fonts import FontRegistry, face_key
from .cache import PartCache


@dataclass(frozen=True)
class Assembled:
    """One document joined into a PDF (empty when a part of it has an error), its pages, how
    many parts it is made of, and how many of those were laid out in this build, in how many
    seconds."""

    file: str
    pdf: bytes
    pages: int
    parts: int
    laid_out: int
    seconds: float
    laid: dict[str, LaidOut] = field(default_factory=dict, repr=False)  # its parts, by key


class Site(NamedTuple):
    """Where a card or back is written (path, line), and what a problem with its template
    names, where (`group`, at group_path:group_line)."""

    path: str
    line: int
    group: str
    group_path: str
    group_line: int


class Executor:
    """Every part of a build laid out once, and the build's documents assembled."""

    def __init__(self, root: Path, fonts: FontRegistry, cache: PartCache, workers: Workers,
                 write: bool = True, keep_workers: bool = False,
                 max_bytes: int = DEFAULT_LIMITS.file_bytes, drafts: bool = False):
        self.root, self.fonts, self.cache, self.write = root, fonts, cache, write
        self.drafts = drafts  # a part with an error written all the same (pnp serve)
        self.max_bytes = max_bytes  # the largest file of the pack a page may read
        self.workers, self.keep_workers = workers, keep_workers
        self.done: dict[str, LaidOut] = {}
        self.origins: dict[str, str] = {}  # each part's origin, where its findings go
        self.anew: set[str] = set()  # started here, not taken from the cache
        self.waiting: list[Callable[[], None]] = []
        self.dangling: dict[str, set[str]] = {}  # part key: anchors its links miss everywhere

    def start(self, parts: Iterable[Part]) -> None:
        """Start laying out every part not yet done nor started, taking what the cache has."""
        todo: dict[str, Part] = {}
        for part in parts:
            self.origins.setdefault(part.key, part.origin)
            if part.key in self.done or part.key in self.anew or part.key in todo:
                continue
            cached = self.cache.get(part.key)
            if cached is None:
                todo[part.key] = part
            else:
                self.done[part.key] = cached
        if not todo:
            return
        self.anew.update(todo)
        results = self.workers.submit([part.html for part in todo.values()], self.root,
                                      self.fonts.files(), MIN_DPI, self.write, self.max_bytes,
                                      self.drafts)

        def finish() -> None:
            for key, laid in zip(todo, results(), strict=True):
                self.done[key] = laid
                if laid.pdf:
                    self.cache.put(key, laid)

        self.waiting.append(finish)

    def wait(self, parts: Iterable[Part] | None = None) -> None:
        """Wait for the parts given, or for every part started."""
        keys = None if parts is None else [part.key for part in parts]
        while self.waiting and (keys is None or any(key not in self.done for key in keys)):
            self.waiting.pop(0)()

    def only(self, parts: list[Part]) -> None:
        """Wait for every part started, then forget those not among `parts` (started ahead
        of the checks for cards they then left out): what they found is not the build's."""
        self.wait()
        kept = {part.key for part in parts}
        for key in [key for key in self.done if key not in kept]:
            del self.done[key]
            self.anew.discard(key)
            self.origins.pop(key, None)

    def laid(self, part: Part) -> LaidOut:
        """A part laid out, waiting for it if need be."""
        self.wait([part])
        return self.done[part.key]

    def release(self) -> None:
        """Once nothing is left to lay out, end the workers (unless kept for the next build),
        so their memory is free before the outputs are assembled."""
        if not self.waiting and not self.keep_workers:
            self.workers.stop()

    def failed(self, parts: Iterable[Part]) -> bool:
        """Whether a part has an error, so the output it belongs to cannot be assembled."""
        return any(found.error for part in parts for found in self.done[part.key].found)

    def check_links(self, document: Document) -> None:
        """Note each link of the document's parts to an anchor none of them holds."""
        anchors = {anchor for part in document.parts for anchor in self.done[part.key].anchors}
        for part in document.parts:
            missing = {link.anchor for link in self.done[part.key].links} - anchors
            if missing:
                self.dangling.setdefault(part.key, set()).update(missing)

    def assemble(self, document: Document) -> Assembled:
        """One document's parts joined, its faces drawn into them, its overlay over them;
        taken from the cache when joined before from the same parts."""
        every = document.every_part()
        self.wait(every)
        self.check_links(document)
        self.cache.used[document.file] = [part.key for part in every + document.kept]
        laid = [self.done[part.key] for part in document.parts]
        mine = {part.key for part in every} & self.anew
        seconds = sum(self.done[key].seconds for key in mine)
        pages = sum(part.pages for part in laid)
        result = Assembled(document.file, b"", pages, len({p.key for p in every}), len(mine),
                           seconds, {p.key: self.done[p.key] for p in every if p.key in self.done})
        if not self.write or not document.parts or self.failed(every):
            return result  # nothing to join: not written, drawn by its kind, or failed
        try:
            pdf = self._joined(document)
        except Exception as exc:  # parts kept that do not fit together: lay them out anew
            kept = [part for part in every if part.key not in self.anew]
            if not kept:
                raise
            why = f"{type(exc).__name__}: {exc}".splitlines()[0]
            self.cache.notice(f"the {len(kept)} parts of {document.file} taken from it did not "
                              f"fit together ({why}); laid out again")
            for part in kept:
                self.cache.discard(part.key)
                del self.done[part.key]
            self.start(kept)
            self.wait(kept)
            pdf = self._joined(document)
            pages = sum(self.done[part.key].pages for part in document.parts)
        return Assembled(document.file, pdf, pages, result.parts, result.laid_out, seconds,
                         {part.key: self.done[part.key] for part in every})

    def _joined(self, document: Document) -> bytes:
        """A document's parts joined, its faces drawn into them, its overlay over them; taken
        from the cache when joined before from the same parts."""
        laid = [self.done[part.key] for part in document.parts]
        overlay = self.done[document.overlay.key] if document.overlay else None
        shown = self._shown(document, laid)
        title = html_title(document.parts[0].html)
        # keyed by the parts' bytes: a part laid out again for a changed image keeps its key
        pieces = [self.done[part.key].pdf for part in document.every_part()] + [json.dumps(
            [(key, face.page, (face.width, face.height)) for key, face in sorted(shown.items())]
        ).encode(), str(document.duplex).encode(), str(title).encode()]
        key = part_key("\n".join(hashlib.sha256(piece).hexdigest() for piece in pieces))

        kept = hashlib.sha256(f"recoded drawings of {document.file}".encode()).hexdigest()

        def joined() -> bytes:  # checked before it is kept, so a bad join is never taken again
            recodings = Recodings(self.cache.kept(kept, "kept recoding") or b"")
            pdf = join(laid, shown, overlay, document.duplex,
                       {face_key(path): path for path in self.fonts.files()}, recodings, title)
            problem = unsound(pdf)
            if problem:
                raise RenderError(f"{document.file} was joined unsound ({problem}); a bug in pnp")
            self.cache.keep(kept, recodings.packed())
            return pdf

        pdf = self.cache.joined(key, joined)
        self.cache.used[document.file] += [key, kept]
        return pdf

    def _shown(self, document: Document, laid: list[LaidOut]) -> dict[str, FaceSource]:
        """Each face the parts draw: its faces part's PDF, its page there, and its size."""
        if document.faces is None:
            return {}
        shown = {}
        for key in sorted({face.key for part in laid for face in part.faces}):
            page = document.faces.pages[key]
            face_part = self.done[page.part.key]
            shown[key] = FaceSource(face_part.pdf, face_part.anchors[face_anchor(key)],
                                    page.size.width * MM, page.size.height * MM)
        return shown

    def findings(self, sites: dict[str, Site]) -> list[Finding]:
        """What laying out the build's parts found, each once, at its card's file and line,
        at the file and line WeasyPrint gave, or at the part's origin."""
        located: set[Finding] = set()
        for key, laid in sorted(self.done.items()):
            dangling = [Found("W074", f"a link to #{anchor} leads nowhere: no such anchor")
                        for anchor in sorted(self.dangling.get(key, ()))]
            located.update(locate(found, self.origins[key], sites)
                           for found in laid.found + dangling)
        return sorted(located)


    def shrunk(self, sites: dict[str, Site]) -> list[dict[str, str]]:
        """Each field of a card set smaller to fit its box: where the card is, its id, the
        field and the size."""
        told = {(source, name, points) for laid in self.done.values()
                for source, name, points in laid.shrunk}
        return [{"where": f"{sites[source].path}:{sites[source].line}" if source in sites
                 else "", "card": source, "field": name, "size": f"{points:g}pt"}
                for source, name, points in sorted(told)]


def locate(found: Found, origin: str, sites: dict[str, Site]) -> Finding:
    """One thing found on a laid-out page, at the place a designer would fix it: a grouped
    code's (text a template leaves unchecked) at the entry naming its card's template, one
    mistake with the deck's other cards' there (`told`)."""
    site = sites.get(found.source)
    if site is not None and CODES[found.code].grouped:
        card = "" if found.source.startswith("back:") else found.source
        return Finding(site.group_path, site.group_line, f"{site.group}: {found.message}",
                       found.code, card)
    if site is not None:
        return Finding(site.path, site.line, found.message, found.code)
    if found.path:
        return Finding(found.path, found.line, found.message, found.code)
    return Finding(origin, _line_naming(origin, found.message), found.message, found.code)


URL = re.compile(r"\b[a-z][a-z0-9+.-]*:[^\s'\"]+?(?=:?\s|'|\"|$)")


def _line_naming(origin: str, message: str) -> int:
    """The first line of the file a part comes from (the rulebook, a deck) that names the URL
    a message is about, by the URL or by its file's name; 0 when none does."""
    url = URL.search(message)
    if url is None:
        return 0
    named = [url.group(), unquote(urlsplit(url.group()).path).rsplit("/", 1)[-1]]
    try:
        text = read_text(PROJECT_ROOT / origin, DEFAULT_LIMITS.file_bytes)  # absolute: as is
    except FileRefused:
        return 0
    for name in filter(None, named):
        for number, line in enumerate(text.splitlines(), start=1):
            if name in line:
                return number
    return 0
