"""The named types that pass between the stages: a part to lay out, and what laying it out gives.

A plan (stage 3) is made of `Part`s, HTML documents that each start a page. Laying one out
(stage 4, in a worker) gives a `LaidOut`: its PDF, its page count, what measuring it `Found`,
the files it read, its anchors, its `Link`s into other parts and the `FaceBox`es where card
faces are to be drawn. Assembling (stage 5) joins them. Only the standard library is imported
here, so a build with nothing to do never loads WeasyPrint.
"""

from __future__ import annotations

import hashlib
import html as markup
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

from .. import PACK_BUILD, PACKAGE_DIR
from ..check.findings import CODES

LIBRARIES = ("weasyprint", "jinja2", "reportlab", "pikepdf", "markdown-it-py",
             "mdit-py-plugins", "qrcode", "uharfbuzz", "pyphen")

Stamp = tuple[str, int, int]  # a file's path, size and modification time
CSS_SOURCE = "pnp-source:"  # a CSS comment naming the file the stylesheet's next lines are from


def stamp(path: Path) -> Stamp:
    """A file's path, size and modification time: when these hold, its content is taken as is."""
    info = path.stat()
    return str(path), info.st_size, info.st_mtime_ns


def source_files(folder: Path, pattern: str = "*") -> list[Path]:
    """Every file under a folder matching `pattern`, sorted, caches left out."""
    return sorted(p for p in folder.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


def pack_files(pack: Path) -> list[Path]:
    """Every file of a pack, the builds it may hold in its own build/ left out."""
    return [path for path in source_files(pack) if path.relative_to(pack).parts[0] != PACK_BUILD]


def hash_files(digest: hashlib._Hash, root: Path, files: list[Path]) -> None:
    """Add each file's name under `root` and its content (a symlink's target) to a digest."""
    for path in files:
        digest.update(f"{root.name}/{path.relative_to(root)}\n".encode())
        if path.is_symlink():  # where it points: a link out is refused, one in hashed there
            digest.update(os.readlink(path).encode())
            continue
        with path.open("rb") as handle:  # in chunks, however large the file
            digest.update(hashlib.file_digest(handle, "sha256").digest())


@cache
def code_digest() -> str:
    """One hash of this package's source and the versions of the libraries that draw pages."""
    return _code_hash(source_files(PACKAGE_DIR, "*.py"))


def library_versions() -> dict[str, str]:
    """The installed version of each library that draws pages, read off the names of the
    metadata folders on the path as Python finds them (`jinja2-3.1.6.dist-info`): importing
    importlib.metadata would cost a build with nothing to do more than the rest of its check."""
    wanted = {re.sub(r"[-_.]+", "_", name).lower(): name for name in LIBRARIES}
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for entry in names:
            stem = entry.removesuffix(".dist-info")
            name, _, version = stem.partition("-")
            key = re.sub(r"[-_.]+", "_", name).lower()
            if stem != entry and key in wanted and wanted[key] not in found:
                found[wanted[key]] = version
    if len(found) < len(LIBRARIES):  # installed some other way: ask the metadata
        from importlib import metadata

        found |= {name: metadata.version(name) for name in LIBRARIES if name not in found}
    return {name: found[name] for name in LIBRARIES}


def _code_hash(files: list[Path]) -> str:
    """One hash of some of the package's modules and the versions of the libraries that draw
    pages."""
    digest = hashlib.sha256()
    for name, version in library_versions().items():
        digest.update(f"{name}={version}\n".encode())
    hash_files(digest, PACKAGE_DIR, files)
    return digest.hexdigest()


LAYOUT_MODULE = "layout.engine"  # the module that turns a part's HTML into its PDF, in a worker
# An import at a module's top level: `from ..text.fonts import cut_font`, `from .. import X`.
TOP_IMPORT = re.compile(r"^from (\.+)([\w.]*) import \(?([\w, ]+)", re.MULTILINE)


def _module_file(name: str) -> Path | None:
    """The file of a module of the package named by its dotted name ('' is the package)."""
    folder = PACKAGE_DIR.joinpath(*name.split(".")) if name else PACKAGE_DIR
    for path in (folder.with_suffix(".py"), folder / "__init__.py"):
        if path.is_file():
            return path
    return None


def layout_modules() -> list[Path]:
    """The package's modules a part's PDF comes from: `layout.engine` and every module it
    imports at its top level, theirs too, with the packages they sit in (an import inside a
    function, or for type checking only, runs nowhere a part is laid out)."""
    found: dict[str, Path] = {}
    todo = ["", LAYOUT_MODULE]
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if name in found or path is None:
            continue
        found[name] = path
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = [part for part in package if part]
        todo += [".".join(package[:depth]) for depth in range(len(package) + 1)]
        for dots, module, names in TOP_IMPORT.findall(path.read_text(encoding="utf-8")):
            target = ".".join([*package[:len(package) - len(dots) + 1], *filter(None, [module])])
            todo.append(target)
            todo += [f"{target}.{given}".lstrip(".") for given in
                     (item.strip() for item in names.split(",")) if given]
    return sorted(found.values())


@cache
def layout_digest() -> str:
    """One hash of the code a part's PDF comes from and the versions of the libraries that
    draw pages: editing the CLI, a command or a docstring elsewhere keeps every part."""
    return _code_hash(layout_modules())


def part_key(html: str) -> str:
    """The cache key of HTML to lay out: the HTML and the code that lays it out (HTML that
    prints no text keyed without its language, `language_free`). The files it reads, fonts
    and images, are checked apart."""
    return hashlib.sha256(f"{layout_digest()}\n{language_free(html)}".encode()).hexdigest()


_BODY = re.compile(r"<body\b", re.IGNORECASE)
_UNPRINTED = re.compile(r"<(style|script)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_LANG = re.compile(r"(<html\b[^>]*?)\s+lang=\"[^\"]*\"", re.IGNORECASE)
_TITLE = re.compile(r"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_BY_LANGUAGE = re.compile(r":lang\(|\[lang\b", re.IGNORECASE)


def html_title(html: str) -> str | None:
    """The text of a document's `<title>`, None when it has none."""
    found = _TITLE.search(html)
    return markup.unescape(found.group(1)) if found else None


def prints_text(html: str) -> bool:
    """Whether a document prints text: anything but markup and blanks in its body (styles and
    scripts left out). HTML it cannot tell about (no body) is taken to."""
    body = _BODY.search(html)
    if body is None:
        return True
    return bool(_TAG.sub("", _UNPRINTED.sub("", html[body.start():])).strip())


def language_free(html: str) -> str:
    """HTML as the cache knows it: one that prints no text (a back with no motto, art alone,
    a sheet of empty card boxes) and styles nothing by language has its `lang` and its
    `<title>` (which no page prints) left out, so every language of the game shares its
    laid-out pages; any other HTML as it is."""
    if prints_text(html) or _BY_LANGUAGE.search(html):
        return html
    return _TITLE.sub("<title></title>", _LANG.sub(r"\1", html, count=1), count=1)


@dataclass(frozen=True, eq=False)
class Part:
    """One HTML document that starts a page: a sheet, a few card faces, a rulebook chapter.

    `origin` is the file its content comes from, where a problem found on it that no card
    claims is reported; `key` names it in the cache and is computed once.
    """

    html: str
    origin: str
    key: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", part_key(self.html))


class Found(NamedTuple):
    """A problem seen while laying out a part, before it is located: on a card (its id, or
    `back:<id>`), at a file and line, or else at the part's origin; and the box on the page it
    is about, when it has one: (page, left, top, right, bottom), the page's index in the part
    and the rectangle in mm from that page's top left corner (empty: the whole part)."""

    code: str
    message: str
    source: str = ""
    path: str = ""
    line: int = 0
    box: tuple[float, ...] = ()

    @property
    def error(self) -> bool:
        """Whether it stops the build (a part with an error is not written)."""
        return CODES[self.code].level == "error"


class Link(NamedTuple):
    """A link from a part to an anchor it does not hold, for the output to resolve: the page
    it is on, the anchor, and its rectangle in PDF points."""

    page: int
    anchor: str
    rectangle: list[float]


class FaceBox(NamedTuple):
    """Where a page shows a card face: its page, the face's key, the face's box and the box it
    is cut to (left, bottom, right, top, in PDF points), the cut's corner radius, the quarter
    turns (degrees clockwise) the face is drawn at, whether it is mirrored left to right
    before it is turned (a standee's back), and the outline it is cut to within that box when
    that is no rectangle (x, y pairs in PDF points; empty: the box)."""

    page: int
    key: str
    box: list[float]
    clip: list[float]
    radius: float
    turn: int = 0
    mirror: bool = False
    outline: tuple[float, ...] = ()


@dataclass(frozen=True)
class LaidOut:
    """One part laid out: its PDF (empty when not written), its pages, what measuring it
    found, the files it read, the page each anchor landed on, its links into other parts and
    the boxes faces are to be drawn into, and each field it set smaller to fit its box."""

    pdf: bytes
    pages: int
    found: list[Found]
    files: list[Stamp]
    anchors: dict[str, int]
    links: list[Link]
    faces: list[FaceBox]
    seconds: float = 0.0
    shrunk: list[tuple[str, str, float]] = field(default_factory=list)  # card, field, pt
