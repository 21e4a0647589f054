"""Stage 6, write: a game's outputs, its manifest.json and the record of what they hold are
put in place together, or not at all.

`build/<game>` is a symbolic link to the game's current *set*, `build/.sets/<game>/<n>/`. A
build writes a new set beside it: the files it made, the files of the current set it does
not make again (another paper's or language's PDFs, an output kind it was not asked for) as
hard links, the manifest, and `.state.json` (each file's hash, and what the last build of
each paper and language read); then it replaces the link in one rename. A build that fails
or is killed before that leaves the current set as it was, and what it left behind is
deleted by the next build. Every folder and file goes through owned.py: a folder, file or
link at `build/<game>` that pnp did not make is refused, never replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..check.findings import RenderError
from ..pack.files import FileRefused
from .cache import sha256
from .owned import MARK, Folder, Refused, open_path, open_root

SETS = ".sets"  # under the output folder: every game's sets
MANIFEST = "manifest.json"
STATE = ".state.json"  # in each set: what each file holds and what each paper and language read
LOCK = ".lock"
MAX_RECORD = 64 << 20  # bytes: a set's manifest or record larger than this is damaged
MAX_KEPT = 1 << 34  # bytes: a file of a set copied where hard links cannot be made


@dataclass
class Entry:
    """One written file: its kind, paper, language, page count and the decks it prints."""

    file: str
    kind: str
    paper: str
    language: str
    pages: int
    decks: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Output:
    """A file a build writes: its name, its bytes, the output kind that made it, and its
    manifest entry (none for the HTML written beside a PDF)."""

    name: str
    data: bytes
    kind: str
    entry: Entry | None = None


@dataclass(frozen=True)
class Written:
    """What a build asks to be written for one game on one paper in one language, and what it
    read."""

    game: str
    version: str
    paper: str
    inputs: str  # the hash of everything the build read
    outputs: list[Output]
    kinds: frozenset[str]  # the output kinds it made: their old files on this paper go
    language: str | None = None  # None: the game's source language


def set_key(paper: str, language: str | None) -> str:
    """What `.state.json` records a paper and language's last build under: the paper alone
    for the source language (None), as records before languages did."""
    return paper if language is None else f"{paper}/{language}"


def write_set(out_root: Path, written: Written,
              notice: Callable[[str], None] = lambda message: None) -> dict:
    """Write a game's outputs as a new set and make it the current one; return the manifest.

    Raises RenderError, naming the file, when the disk refuses (full, read-only) or when
    something pnp did not make stands where the sets go; the current set is then as it was.
    """
    game = written.game
    try:
        with open_root(out_root) as root, open_path(root, (SETS, game)) as sets, \
                sets.locked(LOCK):
            current = _current(root, sets, game)
            _tidy(sets, current, notice)
            name = str(_next(sets))
            with sets.sub(name) as new:
                try:
                    manifest = _fill(new, sets, current, written, notice, root.path / game)
                    root.link_to(game, f"{SETS}/{game}/{name}")
                except BaseException:
                    sets.remove_tree(name)
                    raise
            if current is not None:
                with contextlib.suppress(OSError, Refused):  # else the next build deletes it
                    sets.remove_tree(current)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out_root / SETS / game
        raise RenderError(f"cannot write {where}: {exc.strerror or exc}") from None
    return manifest


def _fill(new: Folder, sets: Folder, current: str | None, written: Written,
          notice: Callable[[str], None], shown: Path) -> dict:
    """Fill a new set: the files made, those of the current set kept, the manifest, and the
    record of every file's hash, written last."""
    files: dict[str, dict[str, Any]] = {}
    for output in written.outputs:
        _put(new, output.name, output.data, shown)
        files[output.name] = {"sha256": sha256(output.data), "kind": output.kind,
                              "paper": written.paper, "language": written.language}
    old_manifest: dict[str, Any] = {}
    old: dict[str, Any] = {"files": {}, "papers": {}}
    kept: dict[str, dict[str, Any]] = {}
    if current is not None:
        with sets.sub(current, make=False) as before:
            old_manifest, old = _manifest(before), read_state(before)
            kept = _keep(new, before, old_manifest, old, written, notice)
    files.update(kept)
    key = set_key(written.paper, written.language)
    papers = {other: record for other, record in old["papers"].items()
              if other != key and all(name in kept for name in record["files"])}
    papers[key] = {"inputs": written.inputs,
                   "files": sorted(output.name for output in written.outputs)}
    entries = [asdict(output.entry) for output in written.outputs if output.entry is not None]
    entries += [entry for entry in old_manifest.get("outputs", []) if entry["file"] in kept]
    manifest = {"game": written.game, "version": written.version,
                "outputs": sorted(entries, key=lambda entry: entry["file"])}
    text = (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    _put(new, MANIFEST, text, shown)
    files[MANIFEST] = {"sha256": sha256(text)}
    state = {"files": dict(sorted(files.items())), "papers": dict(sorted(papers.items()))}
    _put(new, STATE, (json.dumps(state, indent=1) + "\n").encode(), shown)
    return manifest


def _keep(new: Folder, current: Folder, manifest: dict[str, Any], state: dict[str, Any],
          written: Written, notice: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """Link into the new set each file of the current one this build does not make again, of
    the same game and version, its content checked; return what each holds."""
    if (manifest.get("game"), manifest.get("version")) != (written.game, written.version):
        return {}  # another edition: its other papers' files are out of date
    made = {output.name for output in written.outputs}
    remade = {(written.paper, written.language, kind) for kind in written.kinds}
    wanted = {name: info for name, info in state["files"].items()
              if name != MANIFEST and name not in made
              and (info.get("paper"), info.get("language"), info.get("kind")) not in remade}
    kept = {}
    for name, info in sorted(wanted.items()):
        if not _plain(name) or current.kind(name) != "file":
            continue
        try:
            digest: str | None = current.digest(name)
        except OSError:
            digest = None
        if digest is None or digest != info["sha256"]:
            notice(f"{name} was damaged since it was written; left out (build its paper again)")
            continue
        try:
            os.link(name, name, src_dir_fd=current.fd, dst_dir_fd=new.fd,
                    follow_symlinks=False)
        except OSError:  # a file system without hard links
            new.write(name, current.read(name, MAX_KEPT), replace=False)
        kept[name] = {**info, "sha256": digest}
    return kept


def _manifest(folder: Folder) -> dict[str, Any]:
    """A set's manifest, its entries those that name a file; empty when it has none."""
    try:
        manifest = json.loads(folder.read(MANIFEST, MAX_RECORD))
        outputs = [entry for entry in manifest.get("outputs", [])
                   if isinstance(entry, dict) and isinstance(entry.get("file"), str)]
    except (OSError, FileRefused, ValueError, AttributeError, TypeError, RecursionError):
        return {}
    return {**manifest, "outputs": outputs}


def _plain(name: str) -> bool:
    """Whether a file name names a file in the set itself, not one elsewhere nor hidden."""
    return bool(name) and Path(name).name == name and not name.startswith(".")


def _put(folder: Folder, name: str, data: bytes, shown: Path) -> None:
    """Write a file of the new set. It is not forced to the disk: a kill leaves the current
    set whole, and after a power cut the hashes in the record tell the next build what to
    make again."""
    if not _plain(name) and name != STATE:
        raise RenderError(f"an output may not be named {name!r}")
    try:
        folder.write(name, data, replace=False)
    except OSError as exc:
        raise RenderError(f"cannot write {shown / name}: {exc.strerror or exc}") from None


def _current(root: Folder, sets: Folder, game: str) -> str | None:
    """The name of the game's current set: where its link points, when that is one of its
    sets. Anything else at the link's place (a folder, a file, a link elsewhere) is not pnp's,
    and is refused."""
    kind = root.kind(game)
    if kind is None:
        return None
    target = root.target(game)
    prefix = f"{SETS}/{game}/"
    if target is None or not target.startswith(prefix) or not re.fullmatch(
            "[0-9]+", target.removeprefix(prefix)):
        what = "a link elsewhere than its sets" if target else f"a {kind}"
        raise Refused(f"{root.path / game} is {what}, not pnp's: pnp neither follows nor "
                      "replaces it (move it away)")
    name = target.removeprefix(prefix)
    return name if sets.kind(name) == "folder" else None


def _tidy(sets: Folder, current: str | None, notice: Callable[[str], None]) -> None:
    """Delete what builds that failed or were killed left among the sets."""
    for name in sets.names():
        if name in (current, LOCK, MARK):
            continue
        try:
            if sets.kind(name) == "folder":
                sets.remove_tree(name)
            else:
                sets.remove(name)
        except (OSError, Refused) as exc:
            notice(f"cannot delete {sets.path / name}: {getattr(exc, 'strerror', None) or exc}")


def _next(sets: Folder) -> int:
    """A number no set of the game has."""
    return 1 + max((int(name) for name in sets.names() if re.fullmatch("[0-9]+", name)),
                   default=0)


def read_state(folder: Folder) -> dict[str, Any]:
    """An output set's record, `{"files": {name: {"sha256", "kind", "paper", "language"}},
    "papers": {set_key: {"inputs", "files"}}}`, or an empty one when it is missing or damaged
    (a record older than languages has no "language": its files are the source's)."""
    try:
        state = json.loads(folder.read(STATE, MAX_RECORD))
        files, papers = state["files"], state["papers"]
        if not (isinstance(files, dict) and isinstance(papers, dict)
                and all(isinstance(info, dict) and isinstance(info.get("sha256"), str)
                        and all(isinstance(info.get(key), str | None)
                                for key in ("kind", "paper", "language"))
                        for info in files.values())
                and all(isinstance(record, dict) and isinstance(record.get("files"), list)
                        and all(isinstance(name, str) for name in record["files"])
                        for record in papers.values())):
            raise ValueError("not an output set's record")
    except (OSError, FileRefused, ValueError, KeyError, TypeError, RecursionError):
        return {"files": {}, "papers": {}}
    return {"files": files, "papers": papers}


def is_fresh(out_dir: Path, paper: str, digest: str, language: str | None = None) -> bool:
    """Whether the last build into out_dir (`<out>/<game>`) on this paper in this language
    (None: the source) had these inputs, and every file it wrote (the manifest included)
    still has the content it was written with; read through pnp's own link only."""
    try:
        with open_root(out_dir.parent, make=False) as root, \
                open_path(root, (SETS, out_dir.name), make=False) as sets:
            current = _current(root, sets, out_dir.name)
            if current is None:
                return False
            with sets.sub(current, make=False) as folder:
                state = read_state(folder)
                record = state["papers"].get(set_key(paper, language))
                if not record or record.get("inputs") != digest or not record["files"]:
                    return False
                return all(folder.digest(name) == state["files"][name]["sha256"]
                           for name in [*record["files"], MANIFEST])
    except (OSError, Refused, KeyError, TypeError):
        return False
