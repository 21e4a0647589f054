"""Stage 5, pdf: lay out an HTML document with WeasyPrint, fetching only the project's files."""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
import re
import signal
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from functools import cache, lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from . import PROJECT_ROOT
from .cache import LaidOut, stamp
from .compose import Placement, add_forms, draw_faces, placements, to_points
from .errors import RenderError
from .fonts import subset_font
from .geometry import Box

MM = 72 / 25.4  # PDF points per millimetre


class FetchRefused(ValueError):
    """A document asked for something outside the project."""


@cache
def _weasyprint() -> Any:
    """Import WeasyPrint only when a PDF is really made (the import takes a second)."""
    import weasyprint

    return weasyprint


def make_fetcher(
    allowed_files: Iterable[Path] = (), roots: Iterable[Path] = (PROJECT_ROOT,),
    served: set[Path] | None = None, aliases: dict[Path, Path] | None = None,
) -> Any:
    """A URL fetcher that serves data: URLs and files inside `roots`, and nothing else.

    A file named in `aliases` is served from the file it maps to (a font from its subset).
    Each file served is added to `served`, so a cached layout knows what it depends on.
    """
    aliases = aliases or {}
    weasyprint = _weasyprint()
    from weasyprint.urls import URLFetcherResponse

    roots = tuple(root.resolve() for root in roots)
    extra = {p.resolve() for p in allowed_files}
    where = " or ".join(str(root) for root in roots)

    class ProjectFetcher(weasyprint.URLFetcher):
        """Refuses the network and every file outside the project."""

        def __init__(self) -> None:
            super().__init__(allowed_protocols={"data", "file"}, allow_redirects=False,
                             fail_on_errors=True)

        def fetch(self, url: str, headers: Any = None) -> Any:
            scheme = urlsplit(url).scheme.lower()
            if scheme == "data":
                return super().fetch(url, headers)
            if scheme == "file":
                path = Path(unquote(urlsplit(url).path)).resolve()
                inside = any(path.is_relative_to(root) for root in roots)
                if (inside or path in extra) and path.is_file():
                    if served is not None:
                        served.add(path)
                    return URLFetcherResponse(url, body=aliases.get(path, path).read_bytes())
            raise FetchRefused(f"refused to fetch {url}: only files inside {where} are allowed")

    return ProjectFetcher()


@cache
def font_configuration() -> Any:
    """One FontConfiguration per process, for documents drawn with the fonts as they are."""
    from weasyprint.text.fonts import FontConfiguration

    return FontConfiguration()


def _viewer_preferences(document: Any, pdf: Any) -> None:
    """Print at 100 %: PrintScaling None, and duplex flipping on the long edge."""
    import pydyf

    pdf.catalog["ViewerPreferences"] = pydyf.Dictionary({
        "PrintScaling": "/None",
        "Duplex": "/DuplexFlipLongEdge",
    })


class _LogWatch(logging.Handler):
    """Collects WeasyPrint's warnings: missing glyphs, and CSS it ignored."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.glyphs: list[str] = []
        self.css: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "glyph" in message.lower():
            self.glyphs.append(message)
        elif message.startswith("Ignored"):
            self.css.append(message)


@contextmanager
def _watching(warn: Callable[[str], None]) -> Iterator[None]:
    """Stop on WeasyPrint's missing-glyph warnings; pass on the CSS it ignored, once each."""
    watch = _LogWatch()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(watch)
    try:
        yield
    finally:
        logger.removeHandler(watch)
    if watch.glyphs:
        raise RenderError("missing glyphs: " + "; ".join(sorted(set(watch.glyphs))))
    for message in sorted(set(watch.css)):
        warn(f"CSS {message}")


def layout(
    html: str,
    base_dir: Path,
    allowed_files: Iterable[Path] = (),
    warn: Callable[[str], None] = lambda message: None,
    served: set[Path] | None = None,
    aliases: dict[Path, Path] | None = None,
) -> Any:
    """Lay out one HTML document into pages; refuse outside files and missing glyphs.

    Files are served from the project and from base_dir, the game pack's own folder, fonts
    from their subsets in `aliases`; each is added to `served`. CSS that WeasyPrint ignores
    goes to `warn`.
    """
    weasyprint = _weasyprint()
    fetcher = make_fetcher(allowed_files, (PROJECT_ROOT, base_dir), served, aliases)
    # A FontConfiguration keeps each font by its URL, so cut-down fonts need one of their own.
    if aliases:
        from weasyprint.text.fonts import FontConfiguration

        fonts = FontConfiguration()
    else:
        fonts = font_configuration()
    base_url = base_dir.resolve().as_uri() + "/"
    with _watching(warn):
        try:
            html, rules = _split_style(html)
            sheets = [_stylesheet(rules, base_url)] if rules else []
            return weasyprint.HTML(string=html, base_url=base_url, url_fetcher=fetcher).render(
                font_config=fonts, stylesheets=sheets)
        except weasyprint.urls.FatalURLFetchingError as exc:
            raise RenderError(str(exc.__cause__ or exc)) from None


FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}")


def _split_style(html: str) -> tuple[str, str]:
    """The document keeping only the @font-face rules of its stylesheet, and the other rules.

    Parsing a stylesheet costs WeasyPrint about 50 ms, more than laying out a short part, and
    every part of an output has the same one: so it is parsed once per process (_stylesheet)
    and given as a user stylesheet, which cascades as the document's own did, there being no
    other (style attributes win over both). Font faces stay, as they load each part's fonts;
    a stylesheet that imports another stays whole, so the file it reads is recorded.
    """
    start, end = html.find("<style>"), html.find("</style>")
    if start < 0 or end < start or "@import" in html[start:end]:
        return html, ""
    css = html[start + len("<style>"):end]
    faces = "\n".join(FONT_FACE.findall(css))
    return html[:start] + f"<style>\n{faces}\n" + html[end:], FONT_FACE.sub("", css)


@lru_cache(maxsize=16)
def _stylesheet(rules: str, base_url: str) -> Any:
    """A parsed stylesheet, kept for the next part that has the same."""
    return _weasyprint().CSS(string=rules, base_url=base_url)


def write_pdf(document: Any) -> bytes:
    """The PDF bytes of a laid-out document, asking viewers to print at 100 %.

    Glyphs are drawn here, so a missing one stops the build here too.
    """
    with _watching(lambda message: None):
        return document.write_pdf(finisher=_viewer_preferences)


def render(html: str, base_dir: Path, fonts: list[Path], min_dpi: float,
           write: bool = True) -> LaidOut:
    """Lay out, measure and (when `write` and nothing is an error) write one part, its fonts
    cut down to its own characters first. Runs in a worker process."""
    started = time.perf_counter()
    warnings: list[str] = []
    served: set[Path] = set()
    with tempfile.TemporaryDirectory(prefix="pnp-fonts-") as folder:
        aliases = {}
        for index, path in enumerate(fonts):
            aliases[path] = Path(folder) / f"{index}{path.suffix}"
            aliases[path].write_bytes(subset_font(path, html))
        document = layout(html, base_dir, fonts, warnings.append, served, aliases)
        return _finish(document, min_dpi, write, warnings, served, started)


def _finish(document: Any, min_dpi: float, write: bool, warnings: list[str], served: set[Path],
            started: float) -> LaidOut:
    """Measure and write a laid-out part."""
    from .fit import measure

    found = measure(document, min_dpi)
    data = write_pdf(document) if write and not found else b""  # every finding is an error
    anchors: dict[str, int] = {}
    for index, page in enumerate(document.pages):
        for anchor in page.anchors:
            anchors.setdefault(anchor, index)
    boxes: dict[tuple[int, str], tuple[float, float, float, float]] = {}
    for index, page in enumerate(document.pages):
        for kind, target, (left, top, right, bottom), _ in page.links:
            if kind == "internal" and target not in anchors:  # one box around a link's boxes
                was = boxes.get((index, target), (left, top, right, bottom))
                boxes[index, target] = (min(was[0], left), min(was[1], top),
                                        max(was[2], right), max(was[3], bottom))
    links = [(index, target, to_points(box, document.pages[index].height))
             for (index, target), box in boxes.items()]
    return LaidOut(data, len(document.pages), found, warnings,
                   [stamp(path) for path in sorted(served)], anchors, links,
                   time.perf_counter() - started, placements(document))


def _worker() -> None:
    """A worker ignores Ctrl-C, which the main process handles for all, and loads WeasyPrint."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _weasyprint()


class Workers:
    """Processes that lay out parts side by side, one a core: WeasyPrint is single-threaded.

    The processes start when asked, early in a build, and import WeasyPrint while the build
    reads and renders the game; the pool lives as long as the build, so later rounds find them
    ready. Without a started pool, a single part is laid out in this process.
    """

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> Workers:
        """Start the processes now, each importing WeasyPrint."""
        cores = os.cpu_count() or 1
        if self._pool is None and cores > 1:
            self._pool = ProcessPoolExecutor(cores, mp_context=multiprocessing.get_context("fork"),
                                             initializer=_worker)
            self._pool.submit(int)  # the processes start at the first task
        return self

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """End the processes, giving their memory back."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def warm(self, fonts: list[Path]) -> list[Future]:
        """Have each process lay out a line in every font, so that the first part it is given
        does not pay for WeasyPrint's first page (about 0.3 s); nobody need wait for them."""
        if self._pool is None:
            return []
        faces = "".join(f"@font-face {{ font-family: f{index}; src: url('{path.as_uri()}') }}"
                        for index, path in enumerate(fonts))
        lines = "".join(f"<p style='font-family: f{index}'>字 a</p>" for index in range(len(fonts)))
        html = f"<html><head><style>{faces}</style></head><body>{lines}</body></html>"
        return [self._pool.submit(render, html, PROJECT_ROOT, fonts, 0)
                for _ in range(os.cpu_count() or 1)]  # as many as start() made

    def submit(self, htmls: list[str], base_dir: Path, fonts: list[Path], min_dpi: float,
               write: bool = True) -> Callable[[], list[LaidOut]]:
        """Start rendering parts, the longest first; the call returned waits for them and
        gives them in the order given."""
        jobs = [(html, base_dir, fonts, min_dpi, write) for html in htmls]
        if self._pool is None and len(jobs) > 1:
            _weasyprint()  # imported once, before the processes fork
            self.start()
        if self._pool is None:
            done = [render(*job) for job in jobs]
            return lambda: done
        order = sorted(range(len(jobs)), key=lambda i: -len(htmls[i]))
        try:
            futures = {i: self._pool.submit(render, *jobs[i]) for i in order}
        except BrokenProcessPool:  # a process died since the last build: start new ones
            self.stop()
            return self.start().submit(htmls, base_dir, fonts, min_dpi, write)

        def results() -> list[LaidOut]:
            try:
                return [futures[i].result() for i in range(len(jobs))]
            except BrokenProcessPool:
                raise RenderError("a layout process stopped before it finished (out of "
                                  "memory?)") from None

        return results


def join_pdfs(parts: list[bytes], overlay: bytes = b"",
              links: Iterable[tuple[int, list[float], int]] = (),
              placed: Iterable[Placement] = (),
              faces: dict[str, tuple[bytes, int, tuple[float, float]]] | None = None) -> bytes:
    """One PDF of the parts' pages in order, each under the overlay's page of the same number,
    with the first part's title, every part's outline, links from one part into another
    (page, rectangle, target page), asking viewers to print at 100 %.

    Faces are drawn into the boxes `placed` on the pages (page, face key, box, clip), each
    from the top of its page of a faces part (`faces`: key to the part's PDF, the page, and
    the face's width and height in points), copied once per file.

    pikepdf (qpdf) copies pages without parsing their drawing, a few times faster than pypdf.
    """
    placed = list(placed)
    if len(parts) == 1 and not overlay and not placed:
        return parts[0]
    import pikepdf

    joined = pikepdf.Pdf.new()
    sources = [pikepdf.open(io.BytesIO(data)) for data in parts]  # open until saved
    outline: list = []
    for part in sources:
        offset = len(joined.pages)
        if "/Outlines" in part.Root:  # not on sheets, faces or plain pages
            where = {page.objgen: index for index, page in enumerate(part.pages)}
            with part.open_outline() as items:
                outline += [_moved(item, where, offset) for item in items.root]
        joined.pages.extend(part.pages)
    for key in ("/Title", "/Producer"):
        if key in sources[0].docinfo:
            joined.docinfo[key] = sources[0].docinfo[key]
    if placed:
        _draw_placed(joined, placed, faces or {}, sources)
    if overlay:
        sources.append(pikepdf.open(io.BytesIO(overlay)))
        for page, folio in zip(joined.pages, sources[-1].pages, strict=True):
            _overlay(joined, page, joined.copy_foreign(folio.as_form_xobject()))
    with joined.open_outline() as items:
        items.root.extend(outline)
    for index, rectangle, target in links:
        page = joined.pages[index].obj
        if "/Annots" not in page:
            page.Annots = pikepdf.Array()
        page.Annots.append(joined.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=rectangle,
            Border=[0, 0, 0], Dest=[joined.pages[target].obj, pikepdf.Name.Fit])))
    joined.Root.ViewerPreferences = _preferences("/DuplexFlipLongEdge")
    data = _saved(joined)
    for part in sources:
        part.close()
    return data


def _saved(pdf: Any) -> bytes:
    """A PDF's bytes, the same for the same content (no random file id), objects compressed."""
    import pikepdf

    buffer = io.BytesIO()
    pdf.save(buffer, deterministic_id=True, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return buffer.getvalue()


def _draw_placed(joined: Any, placed: list[Placement],
                 faces: dict[str, tuple[bytes, int, tuple[float, float]]],
                 sources: list[Any]) -> None:
    """Draw every placed face, each face's page copied into the file once, cut to the face."""
    import pikepdf

    opened: dict[bytes, Any] = {}
    forms: dict[str, Any] = {}
    pages: dict[int, list] = {}
    for index, key, box, clip in placed:
        if key not in forms:
            data, page, (width, height) = faces[key]
            if data not in opened:
                opened[data] = pikepdf.open(io.BytesIO(data))
                sources.append(opened[data])  # closed once the file is saved
            form = joined.copy_foreign(opened[data].pages[page].as_form_xobject())
            top = float(form.BBox[3])
            form.BBox = [0, round(top - height, 3), round(width, 3), top]
            forms[key] = form
        pages.setdefault(index, []).append((key, box, clip))
    draw_faces(joined, pages, forms)


def _overlay(pdf: Any, page: Any, form: Any) -> None:
    """Draw a form over a page of the same size."""
    import pikepdf

    add_forms(page, {"/Folio": form})
    page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
    page.contents_add(pikepdf.Stream(pdf, b"\nQ q /Folio Do Q\n"))


def _moved(item: Any, where: dict, offset: int) -> Any:
    """An outline entry pointing at the same spot of the same page, now `offset` pages on."""
    import pikepdf

    target = item.destination
    if isinstance(target, pikepdf.Array) and len(target) >= 4 and target[0].objgen in where:
        top = float(target[3]) if target[1] == pikepdf.Name.XYZ else None
        moved = pikepdf.OutlineItem(item.title, where[target[0].objgen] + offset,
                                    pikepdf.PageLocation.XYZ if top is not None else None,
                                    top=top, left=float(target[2]))
    else:
        moved = pikepdf.OutlineItem(item.title)
    moved.children.extend(_moved(child, where, offset) for child in item.children)
    return moved


def html_to_pdf(html: str, base_dir: Path, allowed_files: Iterable[Path] = ()) -> bytes:
    """Lay out and write one HTML document."""
    return write_pdf(layout(html, base_dir, allowed_files))


def impose_booklet(pdf: bytes, sheet: Box, order: list[tuple[int | None, int | None]]) -> bytes:
    """Place a PDF's pages two up on landscape `sheet`s, in the given (left, right) order."""
    import pikepdf

    width, height = sheet.height * MM, sheet.width * MM  # landscape
    with pikepdf.open(io.BytesIO(pdf)) as source:
        booklet = pikepdf.Pdf.new()
        forms = [booklet.copy_foreign(page.as_form_xobject()) for page in source.pages]
        for side in order:
            drawing, placed = [], pikepdf.Dictionary()
            for slot, index in enumerate(side):
                if index is None:
                    continue
                box = source.pages[index].mediabox
                x = slot * width / 2 + (width / 2 - float(box[2] - box[0])) / 2
                y = (height - float(box[3] - box[1])) / 2
                placed[f"/P{slot}"] = forms[index]
                drawing.append(f"q 1 0 0 1 {x:.4f} {y:.4f} cm /P{slot} Do Q")
            page = pikepdf.Dictionary(
                Type=pikepdf.Name.Page, MediaBox=[0, 0, width, height],
                Resources=pikepdf.Dictionary(XObject=placed),
                Contents=pikepdf.Stream(booklet, "\n".join(drawing).encode()))
            booklet.pages.append(pikepdf.Page(page))
        if "/Title" in source.docinfo:
            booklet.docinfo["/Title"] = source.docinfo["/Title"]
        booklet.Root.ViewerPreferences = _preferences("/DuplexFlipShortEdge")  # landscape
        return _saved(booklet)


def _preferences(duplex: str) -> Any:
    """Print at 100 %, duplex flipping as given."""
    import pikepdf

    return pikepdf.Dictionary(PrintScaling=pikepdf.Name("/None"), Duplex=pikepdf.Name(duplex))
