"""Stage 5, pdf: lay out an HTML document with WeasyPrint, fetching only the project's files."""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from . import PROJECT_ROOT
from .errors import RenderError
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
    allowed_files: Iterable[Path] = (), roots: Iterable[Path] = (PROJECT_ROOT,)
) -> Any:
    """A URL fetcher that serves data: URLs and files inside `roots`, and nothing else."""
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
                    return URLFetcherResponse(url, body=path.read_bytes())
            raise FetchRefused(f"refused to fetch {url}: only files inside {where} are allowed")

    return ProjectFetcher()


@cache
def font_configuration() -> Any:
    """One FontConfiguration per process."""
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
) -> Any:
    """Lay out one HTML document into pages; refuse outside files and missing glyphs.

    Files are served from the project and from base_dir, the game pack's own folder. CSS that
    WeasyPrint ignores goes to `warn`.
    """
    weasyprint = _weasyprint()
    fetcher = make_fetcher(allowed_files, (PROJECT_ROOT, base_dir))
    with _watching(warn):
        try:
            return weasyprint.HTML(string=html, base_url=base_dir.resolve().as_uri() + "/",
                                   url_fetcher=fetcher).render(font_config=font_configuration())
        except weasyprint.urls.FatalURLFetchingError as exc:
            raise RenderError(str(exc.__cause__ or exc)) from None


def write_pdf(document: Any) -> bytes:
    """The PDF bytes of a laid-out document, asking viewers to print at 100 %.

    Glyphs are drawn here, so a missing one stops the build here too.
    """
    with _watching(lambda message: None):
        return document.write_pdf(finisher=_viewer_preferences)


@dataclass(frozen=True)
class Rendered:
    """One HTML document made into a PDF: its bytes and pages, what measuring it found, and
    WeasyPrint's warnings about it."""

    pdf: bytes
    pages: int
    findings: list
    warnings: list[str]
    seconds: float


def render(html: str, base_dir: Path, allowed_files: list[Path],
           sites: dict[str, tuple[str, int]], min_dpi: float, write: bool = True) -> Rendered:
    """Lay out, measure and (when `write`) write one document; runs in a worker process."""
    from .fit import measure

    started = time.perf_counter()
    warnings: list[str] = []
    document = layout(html, base_dir, allowed_files, warnings.append)
    findings = measure(document, sites, min_dpi)
    data = write_pdf(document) if write and not any(f.level == "error" for f in findings) else b""
    return Rendered(data, len(document.pages), findings, warnings,
                    time.perf_counter() - started)


def render_all(htmls: list[str], base_dir: Path, allowed_files: list[Path],
               sites: dict[str, tuple[str, int]], min_dpi: float,
               write: bool = True) -> list[Rendered]:
    """Render documents side by side, one process a core: WeasyPrint itself is single-threaded.

    The longest document goes first; the results come back in the order given.
    """
    jobs = [(html, base_dir, allowed_files, sites, min_dpi, write) for html in htmls]
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers < 2:
        return [render(*job) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -len(htmls[i]))
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = {i: pool.submit(render, *jobs[i]) for i in order}
        return [futures[i].result() for i in range(len(jobs))]


def html_to_pdf(html: str, base_dir: Path, allowed_files: Iterable[Path] = ()) -> bytes:
    """Lay out and write one HTML document."""
    return write_pdf(layout(html, base_dir, allowed_files))


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file through a temporary neighbour and a rename, so readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def impose_booklet(pdf: bytes, sheet: Box, order: list[tuple[int | None, int | None]]) -> bytes:
    """Place a PDF's pages two up on landscape `sheet`s, in the given (left, right) order."""
    from pypdf import PdfReader, PdfWriter, Transformation
    from pypdf.generic import NameObject

    reader = PdfReader(io.BytesIO(pdf))
    width, height = sheet.height * MM, sheet.width * MM  # landscape
    writer = PdfWriter()
    for side in order:
        page = writer.add_blank_page(width=width, height=height)
        for slot, index in enumerate(side):
            if index is None:
                continue
            source = reader.pages[index]
            x = slot * width / 2 + (width / 2 - float(source.mediabox.width)) / 2
            y = (height - float(source.mediabox.height)) / 2
            page.merge_transformed_page(source, Transformation().translate(x, y))
    if reader.metadata and reader.metadata.title:
        writer.add_metadata({"/Title": reader.metadata.title})
    writer._root_object[NameObject("/ViewerPreferences")] = writer._add_object(
        _booklet_preferences())
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _booklet_preferences() -> Any:
    """Print at 100 %, duplex flipping on the short edge (a booklet's sheets are landscape)."""
    from pypdf.generic import DictionaryObject, NameObject

    return DictionaryObject({
        NameObject("/PrintScaling"): NameObject("/None"),
        NameObject("/Duplex"): NameObject("/DuplexFlipShortEdge"),
    })
