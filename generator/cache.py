"""The build cache: a build whose inputs have not changed is not redone, nor is a part of one.

A whole build is skipped when every file of the game pack, the shared templates, the font
registry, this package's own source, the options and the library versions are as they were.
Otherwise each part (a sheet, a few card faces, a rulebook chapter or gallery deck) is looked
up by the hash of its HTML and of the code that lays it out, and only the parts not found are
laid out again. Only the standard library is imported here, so a no-change build never loads
WeasyPrint.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from . import FONTS_DIR, TEMPLATES_DIR
from .parts import FaceBox, Found, LaidOut, Link, code_digest, hash_files, source_files, stamp


@dataclass(frozen=True)
class BuildOptions:
    """What the designer asked for: the paper, the HTML too, warnings as errors, which output
    kinds (all when none is named), and which of the output kinds' own switches are on."""

    paper: str = "a4"
    html: bool = False
    strict: bool = False
    only: tuple[str, ...] = ()
    switches: frozenset[str] = frozenset()

    def on(self, switch: str) -> bool:
        """Whether an output kind's switch (`booklet`, `no_backs`) is on."""
        return switch in self.switches


def input_digest(pack: Path, options: BuildOptions) -> str:
    """One hash of everything a build of `pack` with `options` reads."""
    asked = {**asdict(options), "switches": sorted(options.switches)}
    digest = hashlib.sha256(json.dumps(asked, sort_keys=True).encode())
    digest.update(code_digest().encode())
    for root, files in ((pack, source_files(pack)), (TEMPLATES_DIR, source_files(TEMPLATES_DIR)),
                        (FONTS_DIR, [FONTS_DIR / "fonts.yaml"])):
        hash_files(digest, root, files)
    return digest.hexdigest()


def _state(out_dir: Path, paper: str) -> Path:
    return out_dir / f".inputs-{paper}.json"


def is_fresh(out_dir: Path, paper: str, digest: str) -> bool:
    """Whether the last build into out_dir on this paper had these inputs, its files all there."""
    try:
        state = json.loads(_state(out_dir, paper).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    files = state.get("files", [])
    return state.get("inputs") == digest and bool(files) and all(
        (out_dir / name).is_file() for name in files)


def remember(out_dir: Path, paper: str, digest: str, files: list[str]) -> None:
    """Record what a successful build read and wrote."""
    text = json.dumps({"inputs": digest, "files": sorted(files)}, indent=2) + "\n"
    _state(out_dir, paper).write_text(text, encoding="utf-8")


KEEP_BUILDS = 4  # a part no output uses any more stays for this many builds, itself included


class PartCache:
    """Laid-out parts on disk, `<key>.pdf` with `<key>.json`, under build/<game>/.parts."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.hits = 0
        self.misses = 0
        self.used: dict[str, list[str]] = {}  # output file: the parts it is made from

    def get(self, key: str) -> LaidOut | None:
        """A part laid out before, if every file it read is unchanged."""
        try:
            meta = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
            files = [tuple(entry) for entry in meta["files"]]
            if any(stamp(Path(path)) != (path, size, mtime) for path, size, mtime in files):
                raise ValueError("a file it read has changed")
            part = LaidOut((self.folder / f"{key}.pdf").read_bytes(), meta["pages"],
                           [Found(*found) for found in meta["found"]], files, meta["anchors"],
                           [Link(*link) for link in meta["links"]],
                           [FaceBox(*face) for face in meta["faces"]])
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return part

    def put(self, key: str, part: LaidOut) -> None:
        """Keep a written part for the next build."""
        self.folder.mkdir(parents=True, exist_ok=True)
        meta = {"pages": part.pages, "found": part.found, "files": part.files,
                "anchors": part.anchors, "links": part.links, "faces": part.faces}
        write_atomic(self.folder / f"{key}.pdf", part.pdf)
        write_atomic(self.folder / f"{key}.json", json.dumps(meta, ensure_ascii=False).encode())

    def joined(self, key: str, join: Callable[[], bytes]) -> bytes:
        """An output joined from its parts before, or joined now and kept."""
        path = self.folder / f"{key}.pdf"
        try:
            return path.read_bytes()
        except OSError:
            data = join()
            write_atomic(path, data)
            return data

    def keep_only(self) -> None:
        """Record what each output file is made of; delete the parts that none of the last
        KEEP_BUILDS builds used, so undoing an edit finds its parts still there."""
        index_path = self.folder / "index.json"
        try:
            index = json.loads(index_path.read_text(encoding="utf-8"))
            outputs, recent = dict(index["outputs"]), list(index["recent"])
        except (OSError, ValueError, KeyError, TypeError):
            outputs, recent = {}, []
        outputs.update(self.used)
        now = sorted({key for keys in outputs.values() for key in keys})
        recent = [now, *recent][:KEEP_BUILDS]
        write_atomic(index_path, json.dumps({"outputs": outputs, "recent": recent}, indent=1,
                                            sort_keys=True).encode())
        live = {key for keys in recent for key in keys} | {"index"}
        for path in self.folder.iterdir():
            if path.is_file() and not path.name.startswith(".") and path.stem not in live:
                path.unlink(missing_ok=True)


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
