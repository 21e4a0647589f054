"""The build cache: a build whose inputs have not changed is not redone, nor is a part of one.

A whole build is skipped when every file of the game pack, the shared templates, the font
registry, this package's own source, the options and the library versions are as they were,
and every file the last build wrote still has the content it was written with. Otherwise each
part (a sheet, a few card faces, a rulebook chapter or gallery deck) is looked up by the hash
of its HTML, of the pack's folder and of the code that lays it out, and only the parts not
found are laid out again. Every part and joined output kept carries the hash of its PDF; one
whose bytes or record do not match is damaged, said so, and made again. Only the standard
library is imported here, so a no-change build never loads WeasyPrint.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .. import FONTS_DIR, TEMPLATES_DIR
from ..check.findings import CODES
from ..pack.files import FileRefused
from ..plan.parts import (
    FaceBox,
    Found,
    LaidOut,
    Link,
    code_digest,
    hash_files,
    pack_files,
    source_files,
    stamp,
)
from .owned import Folder, Refused, open_path, open_root

Notice = Callable[[str], None]


@dataclass(frozen=True)
class BuildOptions:
    """What the designer asked for: the paper, the HTML too, warnings as errors, which output
    kinds (all when none is named), and which of the output kinds' own switches are on."""

    paper: str = "a4"
    html: bool = False
    strict: bool = False
    only: tuple[str, ...] = ()
    switches: frozenset[str] = frozenset()
    duplex: str = "long"  # the edge the printer turns the sheet over: long or short
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm every back is moved, right and down
    bleed: float | None = None  # mm every face is laid out with (an export's profile); None:
    # print.yaml's
    language: str | None = None  # one of the game's `languages`; None: its source language

    def on(self, switch: str) -> bool:
        """Whether an output kind's switch (`booklet`, `no_backs`) is on."""
        return switch in self.switches


def input_digest(pack: Path, options: BuildOptions) -> str:
    """One hash of everything a build of `pack` with `options` reads."""
    asked = {**asdict(options), "switches": sorted(options.switches)}
    digest = hashlib.sha256(json.dumps(asked, sort_keys=True).encode())
    digest.update(code_digest().encode())
    for root, files in ((pack, pack_files(pack)), (TEMPLATES_DIR, source_files(TEMPLATES_DIR)),
                        (FONTS_DIR, [FONTS_DIR / "fonts.yaml"])):
        hash_files(digest, root, files)
    return digest.hexdigest()


def sha256(data: bytes) -> str:
    """The hex SHA-256 of some bytes."""
    return hashlib.sha256(data).hexdigest()


CACHE = ".cache"  # below the output folder: every kept part, image and picture


def parts_place(game: str) -> tuple[str, ...]:
    """Where below the output folder a game's laid-out parts are kept, outside its sets."""
    return (CACHE, "parts", game)


def parts_folder(out_root: Path, game: str) -> Path:
    """The folder of a game's laid-out parts."""
    return out_root.joinpath(*parts_place(game))


INDEX = "index.json"  # in a cache's folder: what each output is made of, and recent builds
MAX_RECORD = 64 << 20  # bytes: a kept record or index larger than this is damaged
MAX_KEPT = 1 << 31  # bytes: kept data larger than this is damaged


KEEP_BUILDS = 4  # a part no output uses any more stays for this many builds, itself included


class Damaged(ValueError):
    """A kept part or output whose bytes or record are not what was written."""


class PartCache:
    """Laid-out parts and joined outputs on disk, `<name>.pdf` with `<name>.json`, the name a
    hash of the key and of the pack's folder `base` (relative URLs in the same HTML read
    different files in another folder), in the folder `where` below `root`, opened without
    following a link (owned.py).

    A part whose record is damaged, or whose PDF does not have the hash the record gives, is
    a miss told through `notice`; a folder that cannot be used (a link, one pnp did not make)
    is an empty cache, told once. `read_only` (pnp validate) reads parts and writes nothing.
    The same store keeps exported images and an edition's pictures (`suffix` their ending).
    """

    def __init__(self, root: Path, where: tuple[str, ...] = (), base: Path | None = None,
                 notice: Notice = lambda message: None, read_only: bool = False,
                 suffix: str = ".pdf"):
        self.folder = root.joinpath(*where)
        self.base, self.notice, self.read_only, self.suffix = base, notice, read_only, suffix
        self.hits = 0
        self.misses = 0
        self.used: dict[str, list[str]] = {}  # output file: the keys of what it is made of
        self.damaged: set[str] = set()  # names found damaged in this build: never taken again
        self._open: Folder | None = None
        self.usable = self._usable(root, where)

    def _usable(self, root: Path, where: tuple[str, ...]) -> bool:
        """Whether the folder can hold the cache, made when missing (not in read-only mode)."""
        try:
            with open_root(root, make=not self.read_only) as opened:
                self._open = open_path(opened, where, make=not self.read_only)
            weakref.finalize(self, self._open.close)
            if not self.read_only:
                self._open.sweep()
        except FileNotFoundError:
            return self.read_only
        except Refused as exc:
            self.notice(f"{exc}; the cache is not used")
            return False
        except OSError as exc:
            self.notice(f"{self.folder} cannot be used ({exc.strerror or exc}); everything is "
                        "made anew")
            return False
        return True

    @property
    def _folder(self) -> Folder:
        """The open folder (only when usable)."""
        assert self._open is not None
        return self._open

    def _name(self, key: str) -> str:
        """The file name of what is kept under `key` for this pack's folder."""
        if self.base is None:
            return key
        return sha256(f"{self.base.resolve()}\n{key}".encode())

    def _read(self, key: str) -> tuple[dict[str, Any], bytes] | None:
        """A kept record and its data, both checked; None when nothing is kept under `key`.
        Raises Damaged when what is kept is not what was written."""
        name = self._name(key)
        if not self.usable or self._open is None or name in self.damaged:
            return None
        if self._folder.kind(f"{name}.json") is None:
            return None
        try:
            text = self._folder.read(f"{name}.json", MAX_RECORD).decode("utf-8")
        except (OSError, FileRefused, UnicodeError) as exc:
            raise Damaged(f"its record cannot be read: {exc}") from None
        try:
            meta = json.loads(text)
            seal = meta.pop("seal")
        except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
            raise Damaged("its record is not JSON of a part") from None
        if seal != sha256(json.dumps(meta, sort_keys=True, ensure_ascii=False).encode()):
            raise Damaged("its record does not match its seal")
        if meta.get("key") != key:
            raise Damaged("its record is another part's")
        what = "PDF" if self.suffix == ".pdf" else "image"
        try:
            data = self._folder.read(f"{name}{self.suffix}", MAX_KEPT)
        except (OSError, FileRefused) as exc:
            raise Damaged(f"its {what} cannot be read: {exc}") from None
        if sha256(data) != meta.get("sha256"):
            raise Damaged(f"its {what} does not match its hash")
        return meta, data

    def _write(self, key: str, data: bytes, meta: dict[str, Any]) -> None:
        """Keep some data and its record, the record sealed and written last."""
        if self.read_only or not self.usable:
            return
        name = self._name(key)
        record = {**meta, "key": key, "sha256": sha256(data)}
        record = json.loads(json.dumps(record, ensure_ascii=False))  # tuples as lists
        record["seal"] = sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode())
        try:
            self._folder.write(f"{name}{self.suffix}", data)
            self._folder.write(f"{name}.json", json.dumps(record, ensure_ascii=False).encode())
        except (OSError, Refused) as exc:
            self.usable = False
            self.notice(f"cannot write {getattr(exc, 'filename', None) or self.folder}: "
                        f"{getattr(exc, 'strerror', None) or exc}; nothing more is kept in "
                        "this run")
        self.damaged.discard(name)

    def discard(self, key: str, why: str = "", what: str = "part",
                again: str = "laid out again") -> None:
        """Never take what is kept under `key` in this build, and delete it; say why, if
        given."""
        name = self._name(key)
        self.damaged.add(name)
        if why:
            self.notice(f"{what} {name[:8]}… was damaged ({why}); {again}")
        if not self.read_only and self.usable:
            for suffix in (".json", self.suffix):
                with contextlib.suppress(OSError, Refused):
                    self._folder.remove(f"{name}{suffix}")

    def get(self, key: str) -> LaidOut | None:
        """A part laid out before, if it is sound and every file it read is unchanged."""
        try:
            kept = self._read(key)
            part = None if kept is None else _laid_out(*kept)
        except Damaged as exc:
            self.discard(key, str(exc))
            part = None
        if part is None:
            self.misses += 1
            return None
        self.hits += 1
        return part

    def put(self, key: str, part: LaidOut) -> None:
        """Keep a written part for the next build."""
        self._write(key, part.pdf, {"pages": part.pages, "found": part.found,
                                    "files": part.files, "anchors": part.anchors,
                                    "links": part.links, "faces": part.faces,
                                    "shrunk": part.shrunk})

    def joined(self, key: str, join: Callable[[], bytes], what: str = "joined output",
               again: str = "joined again") -> bytes:
        """What was made under `key` before (an output joined from its parts, an image), or
        made now by `join` and kept."""
        try:
            kept = self._read(key)
        except Damaged as exc:
            self.discard(key, str(exc), what, again)
            kept = None
        if kept is not None:
            return kept[1]
        data = join()
        self._write(key, data, {})
        return data

    def keep(self, key: str, data: bytes) -> None:
        """Keep some data under `key`."""
        self._write(key, data, {})

    def kept(self, key: str, what: str = "kept picture") -> bytes | None:
        """What is kept under `key`, checked; None when nothing sound is."""
        try:
            found = self._read(key)
        except Damaged as exc:
            self.discard(key, str(exc), what, "left out")
            return None
        return None if found is None else found[1]

    def keep_only(self) -> None:
        """Record what each output file is made of; delete the parts that none of the last
        KEEP_BUILDS builds used, so undoing an edit finds its parts still there."""
        if self.read_only or not self.usable:
            return
        folder = self._folder
        try:
            index = json.loads(folder.read(INDEX, MAX_RECORD))
            outputs, recent = dict(index["outputs"]), list(index["recent"])
            if not all(isinstance(keys, list) and all(isinstance(key, str) for key in keys)
                       for keys in [*outputs.values(), *recent]):
                raise ValueError("not lists of names")
        except FileRefused as exc:
            if exc.code != "E001" or folder.kind(INDEX) is not None:
                self.notice("index.json was damaged; it starts anew")
            outputs, recent = {}, []
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            self.notice("index.json was damaged; it starts anew")
            outputs, recent = {}, []
        outputs.update({file: [self._name(key) for key in keys]
                        for file, keys in self.used.items()})
        now = sorted({name for names in outputs.values() for name in names})
        recent = [now, *recent][:KEEP_BUILDS]
        live = {name for names in recent for name in names} | {"index"}
        try:
            folder.write(INDEX, json.dumps({"outputs": outputs, "recent": recent},
                                           indent=1, sort_keys=True).encode())
            for name in folder.names():
                if not name.startswith(".") and name.split(".")[0] not in live \
                        and folder.kind(name) == "file":
                    folder.remove(name)
        except (OSError, Refused) as exc:
            self.notice(f"cannot tidy {self.folder}: {getattr(exc, 'strerror', None) or exc}")


def _laid_out(meta: dict[str, Any], pdf: bytes) -> LaidOut | None:
    """A part from its record and PDF, None when a file it read has changed; Damaged when the
    record is not the shape of one."""
    try:
        pages = meta["pages"]
        if type(pages) is not int or pages < 0:
            raise ValueError("pages")
        found = [_found(entry) for entry in meta["found"]]
        if not all(item.code in CODES and type(item.line) is int and all(isinstance(text, str)
                   for text in (item.message, item.source, item.path)) for item in found):
            raise ValueError("found")
        files = [(str(path), int(size), int(mtime)) for path, size, mtime in meta["files"]]
        anchors = {str(anchor): page for anchor, page in dict(meta["anchors"]).items()}
        links = [Link(int(page), str(anchor), [float(x) for x in rectangle])
                 for page, anchor, rectangle in meta["links"]]
        faces = [FaceBox(int(page), str(face), [float(x) for x in box],
                         [float(x) for x in clip], float(radius), int(turn), mirror,
                         tuple(float(x) for x in outline))
                 for page, face, box, clip, radius, turn, mirror, outline in meta["faces"]]
        if any(face.turn not in (0, 90, 180, 270) or type(face.mirror) is not bool
               for face in faces):
            raise ValueError("a turn")
        if any(len(face.outline) % 2 for face in faces):
            raise ValueError("an outline")
        shrunk = [(str(source), str(name), float(points))
                  for source, name, points in meta.get("shrunk", [])]
        on_pages = [*anchors.values(), *(link.page for link in links),
                    *(face.page for face in faces), *(item.box[0] for item in found if item.box)]
        if not all(type(page) is int and 0 <= page < pages for page in on_pages):
            raise ValueError("a page out of range")
        if any(len(box) != 4 for face in faces for box in (face.box, face.clip)) or any(
                len(link.rectangle) != 4 for link in links):
            raise ValueError("a box")
    except (KeyError, TypeError, ValueError) as exc:
        raise Damaged(f"its record is not the shape of a part ({exc})") from None
    if any(stamp_or_none(Path(path)) != (path, size, mtime) for path, size, mtime in files):
        return None
    return LaidOut(pdf, pages, found, files, anchors, links, faces, shrunk=shrunk)


def _found(entry: list[Any]) -> Found:
    """A finding as a record keeps it (a record of an older pnp has no box, or no line), its
    box a tuple again: (page, left, top, right, bottom), or empty."""
    found = Found(*entry)
    box = tuple(found.box)
    if box and (len(box) != 5 or type(box[0]) is not int or not all(
            type(value) is float for value in box[1:])):
        raise ValueError("a finding's box")
    return found._replace(box=box)


def stamp_or_none(path: Path) -> tuple[str, int, int] | None:
    """A file's stamp, or None when it is gone."""
    try:
        return stamp(path)
    except OSError:
        return None
