"""Stage 4, lay out: a part's HTML becomes pages with WeasyPrint, measured and written.

The only module that imports WeasyPrint, and the only one that reads its box tree (internal
API, pinned by the version in pyproject): the URL fetcher that serves only the project's
files, the layout itself, the walks that measure text against its box and find where card
faces go, and the capture of WeasyPrint's log, every line of which becomes a `Found`.

Measuring: each card is the element marked `data-source` (a card id or `back:<id>`); its
text must stay inside the nearest `.safe` box or element marked `data-box`, and above that
box's `.footer`; the field named is the nearest `data-field`, else the text's own class.
Text in no such box is reported as not checked.

Readability: every text of a card is also checked for its size (the `--pnp-min-text` that
base.css.j2 gives a card and its version stamp, from the `readability` settings), for the
safe zone (`--pnp-safe-inset` inside the card's edge), and for its contrast (WCAG 2 AA) with
what is painted beneath the middle of its ink, the boxes taken in WeasyPrint's own painting
order, semi-transparent colours composited over white paper. A card that is not a rectangle
(its page gives its shape and cut size: `data-shape`, `data-cut`) has its shape's safe zone
instead, and text outside it is an error: the shape cuts it off. Text over an image or a
gradient is not measured for contrast: put it on a plate of colour to have it checked. Text
under `aria-hidden="true"` is decoration (a watermark), not checked for readability.

Faces: text set in italic or bold, anywhere, is checked against the face it was drawn in
(its OS/2 weight and italic bit): a family with no such face has it drawn in another (W079).
Chinese, Japanese and Korean have no italic: their characters, and any text of a document in
those languages, are not asked for one.
"""

from __future__ import annotations

import atexit
import logging
import math
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache, lru_cache, partial
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote, urljoin, urlsplit

from .. import PROJECT_ROOT
from ..check.colors import contrast, to_hex
from ..pack.files import FileRefused, read_bytes
from ..pack.schema import DEFAULT_LIMITS
from ..pdf.assemble import embedded_fonts
from ..plan import shapes
from ..plan.parts import CSS_SOURCE, FaceBox, Found, LaidOut, Link, stamp
from ..plan.qr import MODULES_ATTRIBUTE, QUIET_ZONE
from ..text.fonts import BOLD, cut_font, face_key, face_name, is_cjk_language

PX_PER_MM = 96 / 25.4
PT_PER_PX = 0.75  # CSS px to PDF points
TOLERANCE_MM = 0.1  # rounding slack before text counts as past its box
QR_MODULE_MM = 0.4  # the smallest module of a QR code that prints and scans reliably
DESCENDER_EM = 0.12  # how far below the baseline a CJK glyph's ink reaches (ideographic em box)


class FetchRefused(ValueError):
    """A document asked for something outside the project, or for the network (E052), or
    for a file of the pack it may not read (its own code: too large, not a regular file)."""

    def __init__(self, message: str, code: str = "E052"):
        super().__init__(message)
        self.code = code


class FetchMissing(ValueError):
    """A document asked for a file of the project or the pack that does not exist."""


@cache
def _weasyprint() -> Any:
    """Import WeasyPrint only when a page is really laid out (the import takes a second)."""
    import weasyprint
    from weasyprint import html

    svg = "{http://www.w3.org/2000/svg}svg"
    html.HTML_HANDLERS[svg] = partial(_inline_svg, html.HTML_HANDLERS[svg])
    return weasyprint


def _inline_svg(handle: Any, element: Any, box: Any, *args: Any) -> Any:
    """An icon drawn in text (an inline SVG of class `icon`) has its `currentColor` in the
    colour of the text around it: WeasyPrint draws an inline SVG as a picture of its own,
    which would otherwise take black (internal API, pinned with WeasyPrint's version)."""
    if "icon" in (element.get("class") or "").split() and element.get("color") is None:
        red, green, blue, alpha = box.style["color"].to("srgb")
        element.set("color", f"rgba({red * 255:.0f}, {green * 255:.0f}, {blue * 255:.0f}, "
                             f"{alpha:g})")
    return handle(element, box, *args)


def preload() -> None:
    """Import WeasyPrint now, as a worker process does before its first part."""
    _weasyprint()


def make_fetcher(
    allowed_files: Iterable[Path] = (), roots: Sequence[Path] = (PROJECT_ROOT,),
    served: set[Path] | None = None, cuts: CutFonts | None = None,
    refused: list[Found] | None = None, max_bytes: int = DEFAULT_LIMITS.file_bytes,
) -> Any:
    """A URL fetcher that serves data: URLs and files inside `roots`, and nothing else; a
    file of the last root (the pack) must be a regular file of at most `max_bytes`.

    A font file of `cuts` is served cut down to the document's characters.
    Each file served is added to `served`, so a cached layout knows what it depends on.
    Given `refused`, each URL refused or missing is found there and WeasyPrint goes on, so
    that every one is told; else the first stops the layout.
    """
    known = cuts if cuts is not None else CutFonts((), "")
    weasyprint = _weasyprint()
    from weasyprint.urls import URLFetcherResponse

    roots = tuple(root.resolve() for root in roots)
    pack = roots[-1]  # the game pack's folder, when it is given
    extra = {p.resolve() for p in allowed_files}
    where = " or ".join(str(root) for root in roots)

    class ProjectFetcher(weasyprint.URLFetcher):  # type: ignore[name-defined]
        """Refuses the network and every file outside the project."""

        def __init__(self) -> None:
            super().__init__(allowed_protocols={"data", "file"}, allow_redirects=False,
                             fail_on_errors=refused is None)
            self.refused: set[str] = set()  # the URLs found refused or missing

        def fetch(self, url: str, headers: Any = None) -> Any:
            try:
                return self._fetch(url, headers)
            except (FetchRefused, FetchMissing) as exc:
                if refused is not None and url not in self.refused:
                    refused.append(_refused(exc))
                self.refused.add(url)
                raise

        def _fetch(self, url: str, headers: Any = None) -> Any:
            scheme = urlsplit(url).scheme.lower()
            if scheme == "data":
                return super().fetch(url, headers)
            if scheme == "file":
                path = Path(unquote(urlsplit(url).path)).resolve()
                inside = any(path.is_relative_to(root) for root in roots)
                if (inside or path in extra) and path.is_file():
                    if served is not None:
                        served.add(path)
                    if path in known:
                        return URLFetcherResponse(url, body=known.body(path))
                    if not path.is_relative_to(pack):  # the project's files
                        return URLFetcherResponse(url, body=path.read_bytes())
                    try:
                        return URLFetcherResponse(url, body=read_bytes(path, max_bytes))
                    except FileRefused as exc:
                        raise FetchRefused(f"refused to fetch {url}: {exc.message}",
                                           exc.code) from None
                if inside:
                    raise FetchMissing(f"{url} does not exist")
            raise FetchRefused(f"refused to fetch {url}: only files inside {where} are allowed")

    return ProjectFetcher()


@cache
def font_configuration() -> Any:
    """One FontConfiguration per process, for documents drawn with the fonts as they are; its
    copies of their fonts are removed when the process exits (a worker's, which exits without
    that, with the folder its pool made)."""
    folder = Path(tempfile.mkdtemp(prefix="pnp-fonts-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return _font_configuration(folder)


def _font_configuration(folder: Path | None) -> Any:
    """A FontConfiguration that copies the documents' fonts into `folder`, which its caller
    removes: the folder WeasyPrint makes without one goes only when the garbage collector
    frees the configuration, which a process that exits or is killed never waits for."""
    from weasyprint.text.fonts import FontConfiguration

    fonts = FontConfiguration()
    if folder is not None:
        fonts._folder = folder  # internal API, pinned with WeasyPrint's version
    return fonts


# What WeasyPrint logs about the machine, not the pack: without libharfbuzz-subset0 it says so
# at every font of every PDF. `make` tells it once (the Makefile's `system` target).
MACHINE_NOTICES = (
    'Using fontTools instead of HarfBuzz-Subset for font "%s". This will be unsupported in '
    'future versions of WeasyPrint. Please install HarfBuzz-Subset >= 4.1.0 with your '
    'package manager.',
)


class _LogWatch(logging.Handler):
    """Collects what WeasyPrint logs at warning level and above about the document."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg not in MACHINE_NOTICES:
            self.records.append((record.levelno, record.getMessage()))


@contextmanager
def _watching(found: list[Found], css: str = "",
              told: Collection[str] = frozenset()) -> Iterator[None]:
    """Turn each line WeasyPrint logs into a `Found`, once each; CSS it ignored is located in
    the stylesheet `css` was made from, where its source comments tell. A line about a URL
    already `told` (refused by the fetcher) is left out."""
    watch = _LogWatch()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(watch)
    try:
        yield
    finally:
        logger.removeHandler(watch)
    for level, message in sorted(set(watch.records)):
        if message.startswith(CROSS_PART) or any(url in message for url in told):
            continue  # a link into another part, resolved when the output is assembled
        if "glyph" in message.lower():
            found.append(Found("E081", f"WeasyPrint: {message}"))
        elif message.startswith(("Ignored", "Deprecated")):
            path, line = _css_source(css, message)
            text = CSS_AT.sub("", message.removeprefix("Ignored ")).rstrip(".")
            found.append(Found("W073", f"CSS ignored by WeasyPrint: {text}", path=path,
                               line=line))
        elif level >= logging.ERROR:
            found.append(Found("E075", f"WeasyPrint: {message}"))
        else:
            found.append(Found("W074", f"WeasyPrint: {message}"))


CROSS_PART = ("No anchor #", "Content discarded: target points to undefined anchor")
CSS_AT = re.compile(r" at (\d+):\d+")
SOURCE_COMMENT = re.compile(r"/\* " + CSS_SOURCE + r" (.+?) \*/")


def _css_source(css: str, message: str) -> tuple[str, int]:
    """The stylesheet and line a message about CSS points at: the last source comment before
    its line names the file, whose first line follows it. Templates are rendered, so their
    lines are not the source's, and only their name is given."""
    at = CSS_AT.search(message)
    if not at:
        return "", 0
    line, path, first = int(at.group(1)), "", 0
    for number, text in enumerate(css.splitlines(), start=1):
        if number >= line:
            break
        source = SOURCE_COMMENT.search(text)
        if source:
            path, first = source.group(1), number
    if not path or path.endswith(".j2"):
        return path, 0
    return path, line - first


def layout(
    html: str,
    base_dir: Path,
    found: list[Found],
    allowed_files: Iterable[Path] = (),
    served: set[Path] | None = None,
    cuts: CutFonts | None = None,
    max_bytes: int = DEFAULT_LIMITS.file_bytes,
    folder: Path | None = None,
    shrunk: list[Shrunk] | None = None,
) -> Any:
    """Lay out one HTML document into pages, refusing outside files; None if it cannot be.

    Files are served from the project and from base_dir, the game pack's own folder, fonts
    of `cuts` cut down, which WeasyPrint copies into `folder` (the caller removes it) when
    given; each is added to `served`. What WeasyPrint says, and a file it
    may not have, goes to `found`. Given `shrunk`, text marked to shrink is set at the
    largest size that fits, each so set told there.
    """
    weasyprint = _weasyprint()
    fetcher = make_fetcher(allowed_files, (PROJECT_ROOT, base_dir), served, cuts, found,
                           max_bytes)
    # A FontConfiguration keeps each font by its URL, so cut-down fonts need one of their own.
    fonts = _font_configuration(folder) if cuts is not None else font_configuration()
    base_url = base_dir.resolve().as_uri() + "/"
    html, rules = _split_style(html)
    with _watching(found, rules or _style_of(html), fetcher.refused):
        try:
            sheets = [_stylesheet(rules, base_dir)] if rules else []
            page = weasyprint.HTML(string=html, base_url=base_url, url_fetcher=fetcher)
            document = page.render(font_config=fonts, stylesheets=sheets)
            if shrunk is not None:
                document = _shrink(document, lambda: page.render(
                    font_config=fonts, stylesheets=sheets), shrunk)
            for url in _attachments(page, document) + _svg_images(document):
                fetcher.fetch(url).close()  # else fetched only when the PDF is written
            return None if fetcher.refused else document
        except weasyprint.urls.URLFetchingError as exc:  # a colour profile, say
            if not fetcher.refused:
                found.append(_refused(exc))
        except (FetchRefused, FetchMissing):  # an attachment, found by the fetcher
            pass
        except RecursionError:
            found.append(TOO_DEEP)
        return None


TOO_DEEP = Found("E112", "the page nests its elements too deeply for WeasyPrint to lay out or "
                          "draw (an SVG's groups within groups, say): flatten the nesting")
FIT_STEP_PT = 0.25  # text that shrinks to fit is tried at sizes this far apart
FIT_FLOOR_PT = 6.0  # the smallest size it shrinks to, when neither the field nor the card says


class Shrunk(NamedTuple):
    """A field set smaller to fit its box: its card (or `back:<id>`), its name, its size."""

    source: str
    field: str
    points: float


def _shrink(document: Any, again: Callable[[], Any], shrunk: list[Shrunk]) -> Any:
    """The document with each field marked `data-fit="shrink"` that runs past its box set at
    the largest size that fits, from its own down to its floor (`data-fit-min`, else the
    card's smallest readable size) in steps of FIT_STEP_PT, found by halving: every such
    field of the part is tried at once, each layout a real one. A field that does not fit
    at its floor stays there (and is told as past its box)."""
    fits = {key: fit for key, fit in _fitting(document).items()
            if key in _overflowing(document)}
    if not fits:
        return document
    sizes = {key: _sizes(base, floor) for key, (_, base, floor) in fits.items()}
    bounds = {key: [0, len(tried) - 1] for key, tried in sizes.items()}

    def set_sizes(choose: Callable[[tuple[str, str]], int]) -> Any:
        for key, (element, _, _) in fits.items():
            element.set("style", f"{element.get('data-fit-style', '')};font-size:"
                                 f"{sizes[key][choose(key)]:g}pt")
        return again()

    while any(low < high for low, high in bounds.values()):
        middle = {key: (low + high) // 2 for key, (low, high) in bounds.items()}
        over = _overflowing(set_sizes(middle.__getitem__))
        for key, (low, high) in bounds.items():
            if low < high:
                bounds[key] = [low, middle[key]] if key not in over else [middle[key] + 1, high]
    shrunk += [Shrunk(source, field, sizes[source, field][bounds[source, field][0]])
               for source, field in sorted(fits)]
    return set_sizes(lambda key: bounds[key][0])


def _sizes(base: float, floor: float) -> list[float]:
    """The sizes, in points, a field tries below its own: FIT_STEP_PT apart, the floor last."""
    count = max(1, math.ceil(round((base - floor) / FIT_STEP_PT, 6)))
    return [max(floor, round(base - FIT_STEP_PT * step, 4)) for step in range(1, count + 1)]


def _fitting(document: Any) -> dict[tuple[str, str], tuple[Any, float, float]]:
    """Each field of a card marked to shrink, by card and field name: its element (its own
    style kept aside), its size and its floor, in points."""
    fits: dict[tuple[str, str], tuple[Any, float, float]] = {}
    for page in document.pages:
        for box, context in _walk(page._page_box, _Context()):
            element = _element(box)
            if element is None or element.get("data-fit") != "shrink" or not context.source:
                continue
            key = (context.source, element.get("data-field") or _field_name(box, context))
            if key in fits:
                continue
            base = box.style["font_size"] * PT_PER_PX
            floor = _points(element.get("data-fit-min") or "")
            if floor is None:
                readable = _length_px(box.style, "__pnp_min_text")
                floor = readable * PT_PER_PX if readable else FIT_FLOOR_PT
            if element.get("data-fit-style") is None:
                element.set("data-fit-style", element.get("style") or "")
            if floor < base:
                fits[key] = (element, base, floor)
    return fits


def _points(length: str) -> float | None:
    """A length in pt, mm or px as points; None when it is not one."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(pt|mm|px)\s*", length)
    if not match:
        return None
    scale = {"pt": 1.0, "mm": 72 / 25.4, "px": PT_PER_PX}[match.group(2)]
    return float(match.group(1)) * scale


def _overflowing(document: Any) -> set[tuple[str, str]]:
    """Each field of a card whose text runs past its box, by card and field name."""
    over = set()
    for page in document.pages:
        for box, context in _walk(page._page_box, _Context()):
            if context.source and context.bottom is not None and (
                    type(box).__name__ == "TextBox" and box.text.strip() or _is_icon(box)) \
                    and _overflow_mm(box, context)[0] > TOLERANCE_MM:
                over.add((context.source, _field_name(box, context)))
    return over


XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"


def _svg_images(document: Any) -> list[str]:
    """The URLs the `<image>` elements of a document's SVG ask for (not `data:` ones)."""
    from weasyprint.images import SVGImage

    urls = []
    boxes = [page._page_box for page in document.pages]
    while boxes:
        box = boxes.pop()
        image = getattr(box, "replacement", None)  # what a replaced box draws
        if isinstance(image, SVGImage):
            svg, nodes = image._svg, [image._svg.tree]
            while nodes:
                node = nodes.pop()
                url = node.get_href(node.get(XML_BASE) or svg.url) if node.tag == "image" \
                    else None
                if url and not url.startswith("data:"):
                    urls.append(url)
                nodes.extend(node)
        boxes.extend(children(box))
    return urls


def _attachments(page: Any, document: Any) -> list[str]:
    """The URLs a document attaches to its PDF (`rel="attachment"` on a link or an anchor)."""
    urls = [url for laid in document.pages for kind, url, _, _ in laid.links
            if kind == "attachment"]
    for element in page.wrapper_element.etree_element.iter("link"):
        if "attachment" in element.get("rel", "").lower().split() and element.get("href"):
            urls.append(urljoin(page.base_url or "", element.get("href").strip()))
    return urls


def _refused(exc: Exception) -> Found:
    """What a fetch the fetcher refused (E052) or could not serve (E075) is found as."""
    cause = exc.__cause__ or exc
    code = "E075" if isinstance(cause, FetchMissing) else getattr(cause, "code", "E052")
    return Found(code, str(cause))


FETCHING_RULES = ("@import", "@color-profile")  # read a file when the stylesheet is parsed
FONT_FACE = re.compile(r"@font-face\s*\{[^{}]*\}")  # no brace inside: linear


def _style_of(html: str) -> str:
    """The text of a document's style element."""
    start, end = html.find("<style>"), html.find("</style>")
    return html[start + len("<style>"):end] if 0 <= start < end else ""


def _split_style(html: str) -> tuple[str, str]:
    """The document keeping only the @font-face rules of its stylesheet, and the other rules.

    Parsing a stylesheet costs WeasyPrint about 50 ms, more than laying out a short part, and
    every part of an output has the same one: so it is parsed once per process (_stylesheet)
    and given as a user stylesheet, which cascades as the document's own did, there being no
    other (style attributes win over both). Font faces stay, as they load each part's fonts;
    a stylesheet that imports another or a colour profile stays whole, so that the file it
    reads goes through the document's fetcher and is recorded.
    """
    start, end = html.find("<style>"), html.find("</style>")
    if start < 0 or end < start or any(rule in html[start:end] for rule in FETCHING_RULES):
        return html, ""
    css = html[start + len("<style>"):end]
    faces = "\n".join(FONT_FACE.findall(css))
    return html[:start] + f"<style>\n{faces}\n" + html[end:], FONT_FACE.sub("", css)


@lru_cache(maxsize=16)
def _stylesheet(rules: str, base_dir: Path) -> Any:
    """A parsed stylesheet, kept for the next part that has the same; it fetches nothing
    (rules that would stay in the document), and what it asked for would be refused."""
    return _weasyprint().CSS(string=rules, base_url=base_dir.resolve().as_uri() + "/",
                             url_fetcher=make_fetcher((), (PROJECT_ROOT, base_dir)))


FACE_FAMILY = re.compile(r"@font-face\s*\{[^}]*?font-family:\s*(['\"]?)([^;'\"}]+)\1")


class CutFonts:
    """Font files served cut down to one document's characters: each cut when the document
    first asks for it (a page fetches only the faces its @font-face rules name), and what each
    cut is, by its bytes, for `write_pdf`."""

    def __init__(self, paths: Iterable[Path], text: str):
        self.paths, self.text = frozenset(paths), text
        self.given: dict[bytes, GivenFont] = {}
        self._cut: dict[Path, bytes] = {}

    def __contains__(self, path: object) -> bool:
        return path in self.paths

    def body(self, path: Path) -> bytes:
        """The font file cut down to the document's characters."""
        if path not in self._cut:
            cut, glyphs = cut_font(path, self.text)
            self._cut[path] = cut
            self.given[cut] = GivenFont(face_name(path), face_key(path), glyphs)
        return self._cut[path]


class GivenFont(NamedTuple):
    """A font file a part was given: its face's PostScript name, the key the join finds its
    whole font by, and the glyph of the whole font each of its glyphs is."""

    name: str | None
    key: str
    glyphs: list[int]


def write_pdf(document: Any, found: list[Found], html: str | None = None,
              given: Mapping[bytes, GivenFont] | None = None) -> bytes:
    """The PDF bytes of a laid-out document. Glyphs are drawn here, so a missing one is found
    here too, and, given its `html`, text drawn in a font no @font-face of it declares: a
    font of the machine's, which another machine would not have (E083). `given` tells of
    each font file it was given, by content: its fonts are named by their faces and marked
    for the join, which embeds each face once per file."""
    before = len(found)
    with _watching(found):
        try:
            data = bytes(document.write_pdf())
        except _weasyprint().urls.URLFetchingError as exc:
            found.append(_refused(exc))
            return b""
        except RecursionError:
            found.append(TOO_DEEP)
            return b""
    if html is not None:
        declared = {match[2].strip() for match in FACE_FAMILY.finditer(html)}
        for family in sorted({font.family for font in document.fonts.values()} - declared):
            found.append(Found("E083", f"text is drawn in '{family}', a font of this machine, "
                               "not of the project or the pack: name a family of "
                               "fonts/fonts.yaml or of the pack's `font_files`"))
    # an image an SVG asks for is fetched only now: refused, nothing is written
    if _errors(found[before:]):
        return b""
    if given is None:  # whole font files, as WeasyPrint cut them
        return embedded_fonts(data)
    return embedded_fonts(data, *_given_fonts(document, given))


def _given_fonts(document: Any, given: Mapping[bytes, GivenFont]
                 ) -> tuple[dict[str, str], dict[str, tuple[str, list[int]]]]:
    """For the fonts cut from files `given` tells of, by WeasyPrint's name of each (family,
    weight and the style asked for: an upright face set in italics is "…-Oblique"): its subset
    tag and the face's own PostScript name, and its whole font's key and glyphs. A variable or
    colour font, which WeasyPrint changes before it embeds it, is named but not marked."""
    from weasyprint.text.fonts import get_hb_object_data

    names, marks = {}, {}
    for font in document.fonts.values():
        known = given.get(get_hb_object_data(font.hb_face))
        if known is None:
            continue
        called = font.name.decode("latin-1").lstrip("/")
        if known.name:
            names[called] = f"{called.split('+')[0]}+{known.name}"
        if not font.variations and not font.bitmap:
            marks[called] = (known.key, known.glyphs[:max(font.widths, default=0) + 1])
    return names, marks


def html_to_pdf(html: str, base_dir: Path, allowed_files: Iterable[Path] = ()) -> tuple[
        bytes, list[Found]]:
    """Lay out and write one HTML document, and what was found doing it."""
    found: list[Found] = []
    document = layout(html, base_dir, found, allowed_files)
    return (write_pdf(document, found) if document is not None else b""), found


def render(html: str, base_dir: Path, fonts: list[Path], min_dpi: float,
           write: bool = True, max_bytes: int = DEFAULT_LIMITS.file_bytes,
           drafts: bool = False) -> LaidOut:
    """Lay out, measure and (when `write` and nothing is an error, or in `drafts` whatever
    was found: pnp serve draws a draft with its problems outlined) write one part, its fonts
    cut down to its own characters first; no file of the pack larger than `max_bytes` is
    read. Runs in a worker process."""
    started = time.perf_counter()
    found: list[Found] = []
    served: set[Path] = set()
    cuts = CutFonts(fonts, html)
    shrunk: list[Shrunk] = []
    with tempfile.TemporaryDirectory(prefix="pnp-fonts-") as folder:
        document = layout(html, base_dir, found, fonts, served, cuts, max_bytes, Path(folder),
                          shrunk if "data-fit=" in html else None)
        if document is None:
            return LaidOut(b"", 0, found, [], {}, [], [], time.perf_counter() - started)
        found += measure(document, min_dpi)
        kept = write and (drafts or not _errors(found))
        data = write_pdf(document, found, html, cuts.given) if kept else b""
        return LaidOut(data, len(document.pages), found,
                       [stamp(path) for path in sorted(served)], _anchors(document),
                       _links(document), placements(document), time.perf_counter() - started,
                       [(item.source, item.field, item.points) for item in shrunk])


def _errors(found: list[Found]) -> bool:
    """Whether anything found stops the build (a part with an error is not written)."""
    return any(item.error for item in found)


def _anchors(document: Any) -> dict[str, int]:
    """The page each anchor landed on."""
    anchors: dict[str, int] = {}
    for index, page in enumerate(document.pages):
        for anchor in page.anchors:
            anchors.setdefault(anchor, index)
    return anchors


def _links(document: Any) -> list[Link]:
    """Links to anchors the document does not hold, one box around each link's boxes."""
    anchors = _anchors(document)
    boxes: dict[tuple[int, str], tuple[float, float, float, float]] = {}
    for index, page in enumerate(document.pages):
        for kind, target, (left, top, right, bottom), _ in page.links:
            if kind == "internal" and target not in anchors:
                was = boxes.get((index, target), (left, top, right, bottom))
                boxes[index, target] = (min(was[0], left), min(was[1], top),
                                        max(was[2], right), max(was[3], bottom))
    return [Link(index, target, to_points(box, document.pages[index].height))
            for (index, target), box in boxes.items()]


def to_points(box: list[float] | tuple[float, ...], height: float) -> list[float]:
    """A box (left, top, right, bottom) in CSS px from the top left, in PDF points from the
    bottom left (left, bottom, right, top)."""
    x0, y0, x1, y1 = box
    return [round(value * PT_PER_PX, 3) for value in (x0, height - y1, x1, height - y0)]


def children(box: Any) -> Iterator[Any]:
    """A laid-out box's children, absolutely placed ones included."""
    for child in getattr(box, "children", ()):
        yield getattr(child, "_box", child)  # absolutely placed boxes hide behind a placeholder


def _element(box: Any) -> Any:
    """The element a box stands for, None for anonymous boxes."""
    element = getattr(box, "element", None)
    return element if element is not None and getattr(box, "element_tag", None) else None


Clip = tuple[list[float], float, list[float]]  # a box, its corner radius, an outline


def _face_boxes(box: Any, clip: Clip) -> Iterator[tuple[str, list[float], Clip, int, bool]]:
    """Every face box under `box` (face key, box, clip with its radius and outline, turn,
    mirrored), in painting order, in CSS px from the page's top left."""
    element = _element(box)
    if element is not None:
        x, y, width, height = box.padding_box_x(), box.padding_box_y(), \
            box.padding_width(), box.padding_height()
        if element.get("data-clip") is not None:
            clip = ([x, y, x + width, y + height], box.border_top_left_radius[0],
                    _clip_outline(element.get("data-clip-path"), x, y))
        if element.get("data-face"):
            yield (element.get("data-face"), [x, y, x + width, y + height], clip,
                   int(element.get("data-turn") or 0), element.get("data-mirror") is not None)
            return
    for child in children(box):
        yield from _face_boxes(child, clip)


def _clip_outline(value: str | None, x: float, y: float) -> list[float]:
    """A clip's `data-clip-path` (x y pairs in mm from its box's top left) as x, y in CSS px
    from the page's top left; empty when it has none, or not a polygon of numbers."""
    try:
        numbers = [float(number) for number in (value or "").split()[:2 * MAX_OUTLINE]]
    except ValueError:
        return []
    if len(numbers) < 6 or len(numbers) % 2 or not all(map(math.isfinite, numbers)):
        return []
    return [(y if index % 2 else x) + number * PX_PER_MM for index, number in enumerate(numbers)]


MAX_OUTLINE = 4096  # corners of a clipping outline at most


def placements(document: Any) -> list[FaceBox]:
    """Where each page of a laid-out document shows a face, in PDF points."""
    found = []
    for index, page in enumerate(document.pages):
        for key, box, (clip, radius, points), turn, mirror in _face_boxes(
                page._page_box, ([0, 0, page.width, page.height], 0, [])):
            found.append(FaceBox(index, key, to_points(box, page.height),
                                 to_points(clip, page.height), round(radius * PT_PER_PX, 3),
                                 turn, mirror, _in_points(points, page.height)))
    return found


def _in_points(points: list[float], height: float) -> tuple[float, ...]:
    """x, y pairs in CSS px from a page's top left, in PDF points from its bottom left."""
    return tuple(round((height - value if odd % 2 else value) * PT_PER_PX, 3)
                 for odd, value in enumerate(points))


Rect = tuple[float, float, float, float]  # left, top, right, bottom, in CSS px


class _Zone(NamedTuple):
    """The safe zone of a card that is not a rectangle: its shape, its cut box (mm), where
    that box's top left corner lies on the page (px), and how far inside the cut line the
    safe zone lies (mm)."""

    shape: shapes.Shape
    width: float
    height: float
    left: float
    top: float
    inset: float

    def outside(self, ink: Rect) -> float:
        """How far a box of ink (px on the page) reaches outside the safe zone, in mm."""
        box = ((ink[0] - self.left) / PX_PER_MM, (ink[1] - self.top) / PX_PER_MM,
               (ink[2] - self.left) / PX_PER_MM, (ink[3] - self.top) / PX_PER_MM)
        return shapes.outside_mm(self.shape, self.width, self.height, self.inset, box)


@dataclass(frozen=True)
class _Context:
    """Where a box sits: its card and the card's safe zone, its container, the edges its text
    must stay inside (px), and its field."""

    source: str = ""
    safe: Rect | None = None  # the card's safe zone, when its page tells how far in it lies
    container: int = 0  # which box holds it: an id, 0 for none
    bottom: float | None = None
    right: float | None = None
    field: str = ""
    floor: float | None = None  # the container's own bottom, which the footer may reach
    read: bool = True  # False under `aria-hidden="true"`: decoration, not checked for readability
    zone: _Zone | None = None  # the safe zone of a card that is not a rectangle
    left: float = 0.0  # the container's left and top edges (px)
    top: float = 0.0

    def kept_in(self) -> Rect:
        """The box its text must keep inside: its container, down to the edge it may reach."""
        assert self.bottom is not None and self.right is not None
        return self.left, self.top, self.right, self.bottom


def _classes(box: Any) -> list[str]:
    element = _element(box)
    return (element.get("class") or "").split() if element is not None else []


def _container(context: _Context, box: Any) -> _Context:
    """A container's edges; a `.footer` inside it is off limits to the rest of its text."""
    floor = box.border_box_y() + box.border_height()
    bottom = min([floor] + [child.border_box_y() for child in children(box)
                            if "footer" in _classes(child)])
    return _Context(context.source, context.safe, id(box), bottom,
                    box.border_box_x() + box.border_width(), "", floor, context.read,
                    context.zone, box.border_box_x(), box.border_box_y())


def _walk(box: Any, context: _Context, parent: Any = None) -> Iterator[tuple[Any, _Context]]:
    """Every box with the context it inherits; an element's attributes are read at its first
    box, not again at the boxes WeasyPrint makes inside it (its lines, its text), which carry
    its element too: else each line of text set straight in a `data-box` would be a box of
    its own, never overflowed."""
    element = _element(box)
    if element is not None and element is not parent:
        classes = _classes(box)
        if element.get("data-source") is not None:
            context = _Context(element.get("data-source"), _safe_zone(box),
                               zone=_shape_zone(box) if element.get("data-shape") else None)
        if "safe" in classes or element.get("data-box") is not None:
            context = _container(context, box)
        elif "footer" in classes and context.floor is not None:
            context = replace(context, bottom=context.floor, field="footer")
        if element.get("data-field"):
            context = replace(context, field=element.get("data-field"))
        if element.get("aria-hidden") == "true":
            context = replace(context, read=False)
    yield box, context
    for child in children(box):
        yield from _walk(child, context, getattr(box, "element", None))


def _overflow_mm(text: Any, context: _Context) -> tuple[float, str]:
    """How far a text's ink reaches past the bottom or right edge it must keep to, in mm.

    The ink ends at the ideographic em box, 0.12 em below the baseline: line metrics reach further
    and would flag text that sits well inside.
    """
    assert context.bottom is not None and context.right is not None
    _, _, ink_right, ink_bottom = _ink(text)
    bottom = ink_bottom - context.bottom
    right = ink_right - context.right
    if bottom >= right:
        return bottom / PX_PER_MM, "bottom"
    return right / PX_PER_MM, "right"


def _ink(box: Any) -> Rect:
    """Where a text's ink lies, in px: its width, from the top of its ideographic em box to
    0.12 em below its baseline; a picture's (an icon's, an image's) content box."""
    if type(box).__name__ == "TextBox":
        size, baseline = box.style["font_size"], box.position_y + box.baseline
        return (box.position_x, baseline - EM_TOP * size, box.position_x + box.width,
                baseline + DESCENDER_EM * size)
    left, top = box.content_box_x(), box.content_box_y()
    return left, top, left + box.width, top + box.height


Placed = tuple[int, Rect]  # a rectangle on a page: the page's index in the part, px


def _spread(places: dict[Any, Placed], key: Any, page: int, *rects: Rect) -> None:
    """Grow the box kept under `key` to hold `rects`, when on the page it was first kept on."""
    kept = places.get(key)
    if kept is not None and kept[0] != page:
        return
    every = [*rects, kept[1]] if kept is not None else list(rects)
    places[key] = (page, (min(rect[0] for rect in every), min(rect[1] for rect in every),
                          max(rect[2] for rect in every), max(rect[3] for rect in every)))


def _mm(placed: Placed) -> tuple[float, ...]:
    """A rectangle on a page as a finding's box: the page, then left, top, right and bottom
    in mm from its top left corner, to 0.01 mm."""
    page, rect = placed
    return (page, *(round(value / PX_PER_MM, 2) for value in rect))


def _field_name(text: Any, context: _Context) -> str:
    if context.field:
        return context.field
    classes = (text.element.get("class") or "").split() if text.element is not None else []
    return classes[0] if classes else text.element_tag or "text"


@dataclass
class _Extent:
    """How far down a field's text reaches in its container: its top and bottom, in px."""

    top: float
    bottom: float


def measure(document: Any, min_dpi: float) -> list[Found]:
    """Text past its box, text in no box, raster images printed below `min_dpi`, text hard
    to read (too faint, too small, outside the safe zone), and QR codes whose modules print
    too small to scan, by card.

    A field pushed out by a taller field above it in the same box names that field too: its
    text is what grew.

    Each finding has the box on the page it is about (`Found.box`): text past its box (E070)
    the box it must keep inside grown to hold every text of its field that runs past it; a
    readability finding the union of every text of its field with that problem, a coarse
    image the union of every place it prints on its card (each on the page first seen); a QR
    code, text in no box (W072) and a face a family lacks (W079) the one text or code the
    message tells of.
    """
    worst: dict[tuple[str, str], tuple[float, str, int]] = {}
    spread: dict[tuple[str, str], Placed] = {}  # E070: the box and the ink past it
    coarse: dict[tuple[str, str], float] = {}
    images: dict[tuple[str, str], Placed] = {}
    loose: dict[str, tuple[str, Placed]] = {}
    extents: dict[int, dict[str, _Extent]] = {}
    legibility, faces = _Legibility(), _Faces()
    codes: dict[str, tuple[float, int]] = {}  # by card: its QR code of the smallest modules
    code_boxes: dict[str, Placed] = {}
    for index, page in enumerate(document.pages):
        texts: dict[int, _Context] = {}  # each text box of a card, by id, with its context
        for box, context in _walk(page._page_box, _Context()):
            if type(box).__name__ == "TextBox":
                faces.read(box, context, index)
            code = _qr_module(box)
            if code is not None and code < codes.get(context.source, (math.inf, 0)):
                codes[context.source] = code
                code_boxes[context.source] = (index, _ink(box))
            if not context.source:
                continue
            kind = type(box).__name__
            if kind == "TextBox" and box.text.strip() or _is_icon(box):
                texts[id(box)] = context
                if context.bottom is None:
                    loose.setdefault(context.source, (getattr(box, "text", ":icon:").strip(),
                                                      (index, _ink(box))))
                    continue
                field = _field_name(box, context)
                top, bottom = box.position_y, box.position_y + box.height
                extent = extents.setdefault(context.container, {}).setdefault(
                    field, _Extent(top, bottom))
                extent.top, extent.bottom = min(extent.top, top), max(extent.bottom, bottom)
                if kind != "TextBox":
                    legibility.icon(box, context, index)
                amount, edge = _overflow_mm(box, context)
                key = (context.source, field)
                if amount > TOLERANCE_MM:
                    _spread(spread, key, index, context.kept_in(), _ink(box))
                    if amount > worst.get(key, (0, "", 0))[0]:
                        worst[key] = (amount, edge, context.container)
            elif kind in ("InlineReplacedBox", "BlockReplacedBox"):
                dpi = _dpi(box)
                if dpi is not None and dpi < min_dpi:
                    key = (context.source, box.element.get("src", ""))
                    coarse[key] = min(dpi, coarse.get(key, dpi))
                    _spread(images, key, index, _ink(box))
        legibility.read(page._page_box, texts, index)
    found = []
    for (source, field), (amount, edge, container) in sorted(worst.items()):
        pushed = _pushed(field, extents.get(container, {})) if edge == "bottom" else ""
        found.append(Found("E070", f"{_subject(source)}: '{field}' runs {amount:.1f} mm past "
                           f"its box ({edge} edge){pushed}", source,
                           box=_mm(spread[source, field])))
    for (source, src), dpi in sorted(coarse.items()):
        found.append(Found("E071", f"{_subject(source)}: image '{src}' prints at {dpi:.0f} dpi, "
                           f"below {min_dpi:.0f}", source, box=_mm(images[source, src])))
    for source, (text, placed) in sorted(loose.items()):
        found.append(Found("W072", "text in no .safe or data-box box, so not checked for "
                           f"overflow (first: '{_short(text)}')", source, box=_mm(placed)))
    for source, (module, modules) in sorted(codes.items()):
        if module < QR_MODULE_MM:
            subject = f"{_subject(source)}: a" if source else "A"
            shown = math.floor(module * 100) / 100  # never "0.40 mm, below 0.4 mm"
            needed = _tenths_up(QR_MODULE_MM * (modules + 2 * QUIET_ZONE))
            found.append(Found("W088", f"{subject} QR code of {modules} modules prints them "
                               f"{shown:.2f} mm wide, below {QR_MODULE_MM:g} mm: print it at "
                               f"least {needed:.1f} mm wide, or give it a shorter text", source,
                               box=_mm(code_boxes[source])))
    return found + legibility.found(told=set(worst)) + faces.found()


def _is_icon(box: Any) -> bool:
    """Whether a box is an icon drawn in text (game.yaml `icons`), measured as text is."""
    return type(box).__name__ == "InlineReplacedBox" and "icon" in _classes(box)


def _tenths_up(length: float) -> float:
    """A length rounded up to a tenth (of a millimetre)."""
    return math.ceil(round(length * 10, 6)) / 10


def _qr_module(box: Any) -> tuple[float, int] | None:
    """A QR code's module width as laid out, in mm, and its modules across (quiet zone left
    out); None for any other box."""
    element = _element(box)
    modules = element.get(MODULES_ATTRIBUTE) if element is not None else None
    if modules is None or not hasattr(box, "replacement") or not modules.isdigit() or \
            int(modules) == 0:
        return None
    return box.width / PX_PER_MM / (int(modules) + 2 * QUIET_ZONE), int(modules)


def _pushed(field: str, extents: dict[str, _Extent]) -> str:
    """Which field above `field` in its box takes the most room, when not itself: the one
    whose text grew."""
    own = extents.get(field)
    if own is None:
        return ""
    above = [(extent.bottom - extent.top, name) for name, extent in extents.items()
             if name != field and extent.bottom <= own.top + 1]
    if not above:
        return ""
    height, name = max(above)
    if height <= own.bottom - own.top:
        return ""
    return f", pushed down by '{name}' ({height / PX_PER_MM:.1f} mm tall)"


def _short(text: str, length: int = 20) -> str:
    return text if len(text) <= length else text[:length] + "…"


def _subject(source: str) -> str:
    """How a message names what a finding is on: a card, a back (`back:<id>`) or a tuck box
    (`box:<id>`)."""
    kind, _, name = source.partition(":")
    return f"{kind} '{name}'" if kind in ("back", "box") and name else f"card '{source}'"


def _dpi(box: Any) -> float | None:
    """Pixels per inch of a raster image at its printed width; None for vector images."""
    image = box.replacement
    if type(image).__name__ != "RasterImage" or not box.width:
        return None
    pixels, _, _ = image.get_intrinsic_size(1, 16)
    return float(pixels / (box.width / 96)) if pixels else None


# Readability: WCAG 2 AA contrast, large text being 18 pt, or 14 pt bold.
CONTRAST, LARGE_CONTRAST = 4.5, 3.0
LARGE_PT, LARGE_BOLD_PT = 18.0, 14.0
EM_TOP = 1 - DESCENDER_EM  # how far above the baseline the ideographic em box reaches, in em
PAPER = (1.0, 1.0, 1.0)  # what lies beneath everything: white paper


class _Paint(NamedTuple):
    """A colour (r, g, b, alpha in 0-1), or an image (None), painted over a rounded box
    (left, top, width, height, then each corner's radii: top left, top right, bottom right,
    bottom left), in px."""

    area: tuple[Any, ...]
    color: tuple[float, float, float, float] | None


def _length_px(style: Any, name: str) -> float | None:
    """A custom property holding one length (pt, mm or px), in px; None when not set."""
    for token in style[name] or ():
        if token.type == "dimension" and token.unit in UNIT_PX:
            return float(token.value) * UNIT_PX[token.unit]
    return None


UNIT_PX = {"px": 1.0, "pt": 1 / PT_PER_PX, "mm": PX_PER_MM}


def _safe_zone(card: Any) -> Rect | None:
    """A card's safe zone, `--pnp-safe-inset` inside its border box; None when not given."""
    inset = _length_px(card.style, "__pnp_safe_inset")
    if inset is None:
        return None
    left, top = card.border_box_x(), card.border_box_y()
    return (left + inset, top + inset, left + card.border_width() - inset,
            top + card.border_height() - inset)


def _shape_zone(card: Any) -> _Zone | None:
    """The safe zone of a card whose page gives its shape and cut size (`data-shape`,
    `data-cut`), the cut box centred in its border box; None when they cannot be read."""
    element, inset = card.element, _length_px(card.style, "__pnp_safe_inset")
    try:
        shape = shapes.decoded(element.get("data-shape"))
        width, height = (float(value) for value in (element.get("data-cut") or "").split())
    except ValueError:
        return None
    bleed_x = (card.border_width() - width * PX_PER_MM) / 2
    bleed_y = (card.border_height() - height * PX_PER_MM) / 2
    if inset is None or shape.square:
        return None
    safe = (inset - bleed_x) / PX_PER_MM
    if shape.kind == "rounded" and shape.radius <= safe + TOLERANCE_MM:
        return None  # corners no rounder than the safe zone is deep: its zone is the rectangle
    return _Zone(shape, width, height, card.border_box_x() + bleed_x,
                 card.border_box_y() + bleed_y, safe)


def _painting(page: Any) -> Iterator[_Paint | tuple[Any, float]]:
    """What a page paints, in WeasyPrint's own order (weasyprint.draw): each background and
    image as a `_Paint`, each text box with the opacity it is drawn at."""
    from weasyprint.stacking import StackingContext

    for background in (page.background, page.canvas_background):
        yield from _background(background, 1.0)
    yield from _context_paints(StackingContext.from_page(page), 1.0)


def _context_paints(context: Any, opacity: float) -> Iterator[_Paint | tuple[Any, float]]:
    """What a stacking context paints, in the order of weasyprint.draw.draw_stacking_context."""
    from weasyprint.formatting_structure import boxes

    box = context.box
    opacity *= box.style["opacity"]
    if isinstance(box, (boxes.BlockBox, boxes.MarginBox, boxes.InlineBlockBox,
                        boxes.TableCellBox, boxes.FlexContainerBox, boxes.GridContainerBox,
                        boxes.ReplacedBox)):
        yield from _background(getattr(box, "background", None), opacity)
    for child in context.negative_z_contexts:
        yield from _context_paints(child, opacity)
    for block in context.block_level_boxes:
        yield from _background(getattr(block, "background", None), opacity)
    for child in context.float_contexts:
        yield from _context_paints(child, opacity)
    if isinstance(box, boxes.InlineBox):
        yield from _inline_paints(box, opacity)
    yield from _block_paints({box: context.blocks_and_cells}, opacity)
    for child in context.zero_z_contexts + context.positive_z_contexts:
        yield from _context_paints(child, opacity)


def _inline_paints(box: Any, opacity: float) -> Iterator[_Paint | tuple[Any, float]]:
    """What an inline-level box paints (weasyprint.draw.draw_inline_level)."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.stacking import StackingContext

    if isinstance(box, StackingContext):
        yield from _context_paints(box, opacity)
        return
    yield from _background(getattr(box, "background", None), opacity)
    if isinstance(box, (boxes.InlineBox, boxes.LineBox)):
        for child in box.children:
            if isinstance(child, boxes.TextBox):
                yield child, opacity
            else:
                yield from _inline_paints(child, opacity)
    elif isinstance(box, boxes.InlineReplacedBox):
        yield _image(box)
    elif isinstance(box, boxes.TextBox):
        yield box, opacity


def _block_paints(blocks: dict[Any, Any], opacity: float) -> Iterator[_Paint | tuple[Any, float]]:
    """What block-level boxes paint inside (weasyprint.draw.draw_block_level)."""
    from weasyprint.formatting_structure import boxes

    for block, inner in blocks.items():
        if isinstance(block, boxes.ReplacedBox):
            yield _image(block)
        elif block.children and isinstance(block.children[-1], boxes.LineBox):
            for child in block.children:
                yield from _inline_paints(child, opacity)
        yield from _block_paints(inner, opacity)


def _image(box: Any) -> _Paint:
    """A replaced box (an img, an SVG) as an image over its content box."""
    return _Paint((box.content_box_x(), box.content_box_y(), box.width, box.height), None)


def _background(background: Any, opacity: float) -> Iterator[_Paint]:
    """A box's background: its colour, then its images and gradients, bottom layer first."""
    if background is None or not background.layers:
        return
    color = background.color
    if color.alpha > 0:
        yield _Paint(tuple(background.layers[-1].clipped_boxes[0]),
                     (*_rgb(color), color.alpha * opacity))
    for layer in reversed(background.layers):
        if layer.image is not None:
            yield _Paint(tuple(layer.clipped_boxes[0]), None)


def _rgb(color: Any) -> tuple[float, float, float]:
    """A colour's red, green and blue in sRGB, 0-1."""
    red, green, blue = color.to("srgb").coordinates
    return red, green, blue


def _covers(area: tuple[Any, ...], x: float, y: float) -> bool:
    """Whether a rounded box holds the point (x, y)."""
    left, top, width, height, *radii = area
    right, bottom = left + width, top + height
    if not (left <= x <= right and top <= y <= bottom):
        return False
    corners = ((left, top, 1, 1), (right, top, -1, 1), (right, bottom, -1, -1),
               (left, bottom, 1, -1))
    for (rx, ry), (cx, cy, sx, sy) in zip(radii or [(0, 0)] * 4, corners, strict=True):
        if rx > 0 and ry > 0:
            dx, dy = (cx + sx * rx - x) / rx, (cy + sy * ry - y) / ry
            if sx * (x - cx) < rx and sy * (y - cy) < ry and dx * dx + dy * dy > 1:
                return False
    return True


def _backdrop(paints: list[_Paint], x: float, y: float) -> tuple[float, float, float] | None:
    """The colour painted beneath (x, y) so far: the topmost opaque colour there, paper when
    none, with the semi-transparent ones above it composited; None over an image."""
    above: list[tuple[float, float, float, float]] = []
    color = PAPER
    for paint in reversed(paints):
        if not _covers(paint.area, x, y):
            continue
        if paint.color is None:
            return None
        if paint.color[3] >= 1:
            color = paint.color[:3]
            break
        above.append(paint.color)
    for red, green, blue, alpha in reversed(above):
        color = _over((red, green, blue), alpha, color)
    return color


def _over(top: tuple[float, ...], alpha: float,
          below: tuple[float, ...]) -> tuple[float, float, float]:
    """A colour of some opacity composited over an opaque one."""
    red, green, blue = (alpha * a + (1 - alpha) * b for a, b in zip(top, below, strict=True))
    return red, green, blue


class _Legibility:
    """The worst readability problem of each field of each card, of each kind, and the union
    of the boxes of the field's texts that have it (`boxes`, by kind, card and field)."""

    def __init__(self) -> None:
        self.faint: dict[tuple[str, str], tuple[float, float, str, str]] = {}
        self.small: dict[tuple[str, str], tuple[float, float]] = {}
        self.outside: dict[tuple[str, str], tuple[float, str]] = {}  # by edge, or by shape
        self.boxes: dict[tuple[str, str, str], Placed] = {}

    def read(self, page: Any, texts: dict[int, _Context], index: int) -> None:
        """Check every text of a page (the part's `index`th) that belongs to a card, against
        what is beneath it."""
        paints: list[_Paint] = []
        for item in _painting(page):
            if isinstance(item, _Paint):
                paints.append(item)
            elif id(item[0]) in texts:
                self._text(*item, texts[id(item[0])], paints, index)

    def _text(self, text: Any, opacity: float, context: _Context, paints: list[_Paint],
              index: int) -> None:
        style = text.style
        color = style["color"]
        alpha = color.alpha * opacity
        if alpha <= 0 or style["visibility"] != "visible" or not context.read:
            return
        key = (context.source, _field_name(text, context))
        size = style["font_size"]
        minimum = _length_px(style, "__pnp_min_text")
        ink = _ink(text)
        if minimum is not None and round(size, 3) < round(minimum, 3):
            _spread(self.boxes, ("small", *key), index, ink)
            if size < self.small.get(key, (size + 1, 0))[0]:
                self.small[key] = (size, minimum)
        self._within_safe(key, ink, context, index)
        below = _backdrop(paints, (ink[0] + ink[2]) / 2, (ink[1] + ink[3]) / 2)
        if below is None:
            return
        shown = _over(_rgb(color), alpha, below)
        ratio = contrast(shown, below)
        points = size * PT_PER_PX
        large = points >= LARGE_PT or (points >= LARGE_BOLD_PT and style["font_weight"] >= 700)
        need = LARGE_CONTRAST if large else CONTRAST
        if ratio < need:
            _spread(self.boxes, ("faint", *key), index, ink)
            if ratio < self.faint.get(key, (need, 0, "", ""))[0]:
                self.faint[key] = (ratio, need, to_hex(shown), to_hex(below))

    def icon(self, box: Any, context: _Context, index: int) -> None:
        """Check an icon drawn in text keeps to the safe zone, as its text must."""
        self._within_safe((context.source, _field_name(box, context)), _ink(box), context,
                          index)

    def _within_safe(self, key: tuple[str, str], ink: Rect, context: _Context,
                     index: int) -> None:
        """Keep how far ink reaches outside its card's safe zone, the worst of each field."""
        if context.safe is None or context.bottom is None:  # else told as W072
            return
        if context.zone is not None:
            amount, edge = context.zone.outside(ink), _named(context.zone.shape)
        else:
            amount, edge = max((context.safe[0] - ink[0], "left"), (ink[2] - context.safe[2],
                               "right"), (context.safe[1] - ink[1], "top"),
                               (ink[3] - context.safe[3], "bottom"))
            amount /= PX_PER_MM
        if amount > TOLERANCE_MM:
            _spread(self.boxes, ("outside", *key), index, ink)
            if amount > self.outside.get(key, (0, ""))[0]:
                self.outside[key] = (amount, edge)

    def found(self, told: set[tuple[str, str]]) -> list[Found]:
        """One finding per card, field and problem, the worst instance of it; a field `told`
        past its box (E070) is not told faint or outside the safe zone too."""
        found = []
        for (source, field), (ratio, need, shown, below) in sorted(self.faint.items()):
            if (source, field) in told:  # where it overflowed to says nothing of its contrast
                continue
            found.append(Found("W076", f"{_subject(source)}: '{field}' is {shown} on {below}, "
                               f"contrast {math.floor(ratio * 10) / 10:.1f}:1, below {need:g}:1 "
                               "(WCAG AA)", source, box=_mm(self.boxes["faint", source, field])))
        for (source, field), (size, minimum) in sorted(self.small.items()):
            found.append(Found("W077", f"{_subject(source)}: '{field}' is set in "
                               f"{size * PT_PER_PX:.1f} pt, below the "
                               f"{minimum * PT_PER_PX:g} pt minimum", source,
                               box=_mm(self.boxes["small", source, field])))
        for (source, field), (amount, edge) in sorted(self.outside.items()):
            if (source, field) in told:
                continue
            box = _mm(self.boxes["outside", source, field])
            if edge in EDGES:
                found.append(Found("W078", f"{_subject(source)}: '{field}' lies {amount:.1f} mm "
                                   f"outside the safe zone ({edge} edge)", source, box=box))
            else:  # a shape's edge is its cut line: text past it is cut off
                found.append(Found("E070", f"{_subject(source)}: '{field}' runs {amount:.1f} mm "
                                   f"outside the safe zone of its {edge}", source, box=box))
        return found


EDGES = ("left", "right", "top", "bottom")


def _named(shape: shapes.Shape) -> str:
    """A shape as an E070 names it: `circle`, `hex (flat top)`, `outline 'art/leaf.svg'`."""
    return f"outline '{shape.source}'" if shape.kind == "path" else shape.name


FACE_NAMES = {(False, False): "regular", (True, False): "bold", (False, True): "italic",
              (True, True): "bold italic"}


def _cjk(char: str) -> bool:
    """Whether a character is of a script with no italic: CJK ideographs, kana, hangul, and
    their punctuation and full-width forms."""
    code = ord(char)
    return (0x2E80 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF or 0xF900 <= code <= 0xFAFF
            or 0xFE30 <= code <= 0xFE4F or 0xFF00 <= code <= 0xFFEF or code >= 0x20000)


class _Faces:
    """Text set in italic or bold that its family draws in another face, having no such face
    of its own (W079): per card and field, elsewhere per family, the first text quoted."""

    def __init__(self) -> None:
        # by (card, field): the message, its card and the box of the text it quotes
        self.missing: dict[tuple[str, str], tuple[str, str, Placed]] = {}

    def read(self, text: Any, context: _Context, index: int) -> None:
        """Check the faces a text box (on the part's `index`th page) asking for italic or bold
        was drawn in."""
        style = text.style
        italic = style["font_style"] != "normal" and not is_cjk_language(style["lang"] or "")
        bold = style["font_weight"] >= BOLD
        if not (italic or bold) or not text.text.strip():
            return
        for chars, family, weight, slanted in _runs(text):
            slant = italic and any(char.isalnum() and not _cjk(char) for char in chars)
            if (slant and not slanted) or (bold and weight < BOLD):
                asked, drawn = FACE_NAMES[bold, slant], FACE_NAMES[weight >= BOLD, slanted]
                told = (f"is set in {asked}, but '{family}' has no {asked} face: it prints in "
                        f"its {drawn} face")
                if context.source:
                    key = (context.source, _field_name(text, context))
                    message = f"{_subject(key[0])}: '{key[1]}' {told}"
                else:
                    key = ("", told)
                    message = f"'{_short(' '.join(text.text.split()))}' {told}"
                self.missing.setdefault(key, (message, context.source, (index, _ink(text))))

    def found(self) -> list[Found]:
        """One finding per card and field, or per family and face for other text, with the
        box of the first text it was found in."""
        return [Found("W079", message, source, box=_mm(placed))
                for _, (message, source, placed) in sorted(self.missing.items())]


def _runs(text: Any) -> Iterator[tuple[str, str, int, bool]]:
    """Each run of a text box drawn in one font, but a fallback's: its characters, the family
    it was asked for by, and the weight and italic bit of the face that drew it."""
    from weasyprint.text.ffi import ffi, pango

    layout = text.pango_layout
    layout.reactivate(text.style)  # as drawing it does: WeasyPrint lets go of its Pango layout
    try:
        encoded = layout.text.encode()
        line, _ = layout.get_first_line()
        run = line.runs
        while run != ffi.NULL:
            item = run.data.item
            run = run.next
            chars = encoded[item.offset:item.offset + item.length].decode(errors="replace")
            font = item.analysis.font
            description = ffi.gc(pango.pango_font_describe_with_absolute_size(font),
                                 pango.pango_font_description_free)
            family = ffi.string(pango.pango_font_description_get_family(description)).decode()
            drawn = pango.pango_font_description_hash(description)
            fallback = False  # a fallback is set at a stretch of FALLBACK_STRETCHES
            for stretch in (pango.PANGO_STRETCH_ULTRA_CONDENSED,
                            pango.PANGO_STRETCH_EXTRA_CONDENSED):
                pango.pango_font_description_set_stretch(description, stretch)
                fallback = fallback or pango.pango_font_description_hash(description) == drawn
            if chars.strip() and not fallback:
                yield (chars, family, *_face_style(font))
    finally:
        layout.deactivate()


def _face_style(font: Any) -> tuple[int, bool]:
    """The weight and italic bit a font file gives itself (OS/2, else the head table)."""
    from weasyprint.text.ffi import ffi, harfbuzz, pango

    face = harfbuzz.hb_font_get_face(pango.pango_font_get_hb_font(font))

    def table(tag: bytes) -> bytes:
        blob = harfbuzz.hb_face_reference_table(face, harfbuzz.hb_tag_from_string(tag, -1))
        try:
            length = ffi.new("unsigned int *")
            data = harfbuzz.hb_blob_get_data(blob, length)
            return b"" if data == ffi.NULL else bytes(ffi.unpack(data, int(length[0])))
        finally:
            harfbuzz.hb_blob_destroy(blob)

    os2 = table(b"OS/2")
    if len(os2) >= 64:
        return int.from_bytes(os2[4:6], "big"), bool(int.from_bytes(os2[62:64], "big") & 0x201)
    head = table(b"head")
    mac_style = int.from_bytes(head[44:46], "big") if len(head) >= 46 else 0
    return (700 if mac_style & 1 else 400), bool(mac_style & 2)
