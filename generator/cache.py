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
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import FONTS_DIR, TEMPLATES_DIR
from .errors import CODES
from .parts import (
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

Notice = Callable[[str], None]
STATE = ".state.json"  # in each output set: what each file holds and what each paper read


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


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file's content, read in chunks."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def read_state(out_dir: Path) -> dict[str, Any]:
    """An output set's record, `{"files": {name: {"sha256", "kind", "paper"}}, "papers":
    {paper: {"inputs", "files"}}}`, or an empty one when it is missing or damaged."""
    try:
        state = json.loads((out_dir / STATE).read_text(encoding="utf-8"))
        files, papers = state["files"], state["papers"]
        if not (isinstance(files, dict) and isinstance(papers, dict)
                and all(isinstance(info, dict) and isinstance(info.get("sha256"), str)
                        and all(isinstance(info.get(key), str | None) for key in ("kind", "paper"))
                        for info in files.values())
                and all(isinstance(record, dict) and isinstance(record.get("files"), list)
                        and all(isinstance(name, str) for name in record["files"])
                        for record in papers.values())):
            raise ValueError("not an output set's record")
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return {"files": {}, "papers": {}}
    return {"files": files, "papers": papers}


def is_fresh(out_dir: Path, paper: str, digest: str) -> bool:
    """Whether the last build into out_dir on this paper had these inputs, and every file it
    wrote (the manifest included) still has the content it was written with."""
    state = read_state(out_dir)
    record = state["papers"].get(paper)
    if not record or record.get("inputs") != digest or not record["files"]:
        return False
    try:
        return all(file_sha256(out_dir / name) == state["files"][name]["sha256"]
                   for name in [*record["files"], "manifest.json"])
    except (OSError, KeyError, TypeError):
        return False


def parts_folder(out_root: Path, game: str) -> Path:
    """Where a game's laid-out parts are kept, outside its output sets."""
    return out_root / ".cache" / "parts" / game


KEEP_BUILDS = 4  # a part no output uses any more stays for this many builds, itself included


class Damaged(ValueError):
    """A kept part or output whose bytes or record are not what was written."""


class PartCache:
    """Laid-out parts and joined outputs on disk, `<name>.pdf` with `<name>.json`, the name a
    hash of the key and of the pack's folder `base` (relative URLs in the same HTML read
    different files in another folder).

    A part whose record is damaged, or whose PDF does not have the hash the record gives, is
    a miss told through `notice`; a folder that cannot be used is an empty cache, told once.
    `read_only` (pnp validate) reads parts and writes nothing.
    """

    def __init__(self, folder: Path, base: Path | None = None,
                 notice: Notice = lambda message: None, read_only: bool = False):
        self.folder, self.base, self.notice, self.read_only = folder, base, notice, read_only
        self.hits = 0
        self.misses = 0
        self.used: dict[str, list[str]] = {}  # output file: the keys of what it is made of
        self.damaged: set[str] = set()  # names found damaged in this build: never taken again
        self.usable = self._usable()

    def _usable(self) -> bool:
        """Whether the folder can hold the cache, made when missing (not in read-only mode)."""
        try:
            if self.folder.is_symlink() or self.folder.exists() and not self.folder.is_dir():
                if self.read_only:
                    raise NotADirectoryError(0, "not a folder")
                self.folder.unlink()
                self.notice(f"{self.folder} was not a folder; the cache starts anew")
            if not self.read_only:
                self.folder.mkdir(parents=True, exist_ok=True)
                sweep(self.folder)
            elif not self.folder.exists():
                return True
            os.listdir(self.folder)
        except OSError as exc:
            self.notice(f"{self.folder} cannot be used ({exc.strerror or exc}); everything "
                        "is laid out anew")
            return False
        return True

    def _name(self, key: str) -> str:
        """The file name of what is kept under `key` for this pack's folder."""
        if self.base is None:
            return key
        return sha256(f"{self.base.resolve()}\n{key}".encode())

    def _read(self, key: str) -> tuple[dict[str, Any], bytes] | None:
        """A kept record and its PDF, both checked; None when nothing is kept under `key`.
        Raises Damaged when what is kept is not what was written."""
        name = self._name(key)
        if not self.usable or name in self.damaged:
            return None
        try:
            text = (self.folder / f"{name}.json").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeError) as exc:
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
        try:
            pdf = (self.folder / f"{name}.pdf").read_bytes()
        except OSError as exc:
            raise Damaged(f"its PDF cannot be read: {exc.strerror or exc}") from None
        if sha256(pdf) != meta.get("sha256"):
            raise Damaged("its PDF does not match its hash")
        return meta, pdf

    def _write(self, key: str, pdf: bytes, meta: dict[str, Any]) -> None:
        """Keep a PDF and its record, the record sealed and written last."""
        if self.read_only or not self.usable:
            return
        name = self._name(key)
        record = {**meta, "key": key, "sha256": sha256(pdf)}
        record = json.loads(json.dumps(record, ensure_ascii=False))  # tuples as lists
        record["seal"] = sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode())
        try:
            write_atomic(self.folder / f"{name}.pdf", pdf)
            write_atomic(self.folder / f"{name}.json",
                         json.dumps(record, ensure_ascii=False).encode())
        except OSError as exc:
            self.usable = False
            self.notice(f"cannot write {exc.filename or self.folder}: {exc.strerror or exc}; "
                        "nothing more is kept in this build")
        self.damaged.discard(name)

    def discard(self, key: str, why: str = "", what: str = "part",
                again: str = "laid out again") -> None:
        """Never take what is kept under `key` in this build, and delete it; say why, if
        given."""
        name = self._name(key)
        self.damaged.add(name)
        if why:
            self.notice(f"{what} {name[:8]}… was damaged ({why}); {again}")
        if not self.read_only:
            for suffix in (".json", ".pdf"):
                with contextlib.suppress(OSError):
                    (self.folder / f"{name}{suffix}").unlink(missing_ok=True)

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
                                    "links": part.links, "faces": part.faces})

    def joined(self, key: str, join: Callable[[], bytes]) -> bytes:
        """An output joined from its parts before, or joined now and kept."""
        try:
            kept = self._read(key)
        except Damaged as exc:
            self.discard(key, str(exc), "joined output", "joined again")
            kept = None
        if kept is not None:
            return kept[1]
        data = join()
        self._write(key, data, {})
        return data

    def keep_only(self) -> None:
        """Record what each output file is made of; delete the parts that none of the last
        KEEP_BUILDS builds used, so undoing an edit finds its parts still there."""
        if self.read_only or not self.usable:
            return
        index_path = self.folder / "index.json"
        try:
            index = json.loads(index_path.read_text(encoding="utf-8"))
            outputs, recent = dict(index["outputs"]), list(index["recent"])
            if not all(isinstance(keys, list) and all(isinstance(key, str) for key in keys)
                       for keys in [*outputs.values(), *recent]):
                raise ValueError("not lists of names")
        except FileNotFoundError:
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
            write_atomic(index_path, json.dumps({"outputs": outputs, "recent": recent},
                                                indent=1, sort_keys=True).encode())
            for path in self.folder.iterdir():
                if path.is_file() and not path.name.startswith(".") and path.stem not in live:
                    path.unlink(missing_ok=True)
        except OSError as exc:
            self.notice(f"cannot tidy {self.folder}: {exc.strerror or exc}")


def _laid_out(meta: dict[str, Any], pdf: bytes) -> LaidOut | None:
    """A part from its record and PDF, None when a file it read has changed; Damaged when the
    record is not the shape of one."""
    try:
        pages = meta["pages"]
        if type(pages) is not int or pages < 0:
            raise ValueError("pages")
        found = [Found(*entry) for entry in meta["found"]]
        if not all(item.code in CODES and type(item.line) is int and all(isinstance(text, str)
                   for text in (item.message, item.source, item.path)) for item in found):
            raise ValueError("found")
        files = [(str(path), int(size), int(mtime)) for path, size, mtime in meta["files"]]
        anchors = {str(anchor): page for anchor, page in dict(meta["anchors"]).items()}
        links = [Link(int(page), str(anchor), [float(x) for x in rectangle])
                 for page, anchor, rectangle in meta["links"]]
        faces = [FaceBox(int(page), str(face), [float(x) for x in box],
                         [float(x) for x in clip], float(radius), int(turn))
                 for page, face, box, clip, radius, turn in meta["faces"]]
        if any(face.turn not in (0, 90, 180, 270) for face in faces):
            raise ValueError("a turn")
        on_pages = [*anchors.values(), *(link.page for link in links),
                    *(face.page for face in faces)]
        if not all(type(page) is int and 0 <= page < pages for page in on_pages):
            raise ValueError("a page out of range")
        if any(len(box) != 4 for face in faces for box in (face.box, face.clip)) or any(
                len(link.rectangle) != 4 for link in links):
            raise ValueError("a box")
    except (KeyError, TypeError, ValueError) as exc:
        raise Damaged(f"its record is not the shape of a part ({exc})") from None
    if any(stamp_or_none(Path(path)) != (path, size, mtime) for path, size, mtime in files):
        return None
    return LaidOut(pdf, pages, found, files, anchors, links, faces)


def stamp_or_none(path: Path) -> tuple[str, int, int] | None:
    """A file's stamp, or None when it is gone."""
    try:
        return stamp(path)
    except OSError:
        return None


TEMP = ".tmp"


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file through a temporary neighbour and a rename, so readers never see half.
    The neighbour's name holds this process's id, so a later `sweep` knows it left over."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP,
                               dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sweep(folder: Path) -> None:
    """Delete the temporary files that processes no longer running left in a folder."""
    for path in folder.glob(f".*{TEMP}"):
        try:
            pid = int(path.name.removesuffix(TEMP).split(".")[-2])
        except (ValueError, IndexError):
            continue
        if pid > 0 and not _running(pid):
            path.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    """Whether a process of this id is running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True
