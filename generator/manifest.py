"""Stage 6, write: a game's outputs, its manifest.json and the record of what they hold are
put in place together, or not at all.

`build/<game>` is a symbolic link to the game's current *set*, `build/.sets/<game>/<n>/`. A
build writes a new set beside it: the files it made, the files of the current set it does
not make again (another paper's PDFs, an output kind it was not asked for) as hard links, the
manifest, and `.state.json` (each file's hash, and what each paper's last build read); then it
replaces the link in one rename. A build that fails or is killed before that leaves the
current set as it was, and what it left behind is deleted by the next build. A folder
`build/<game>` from an older version becomes the first set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .cache import STATE, file_sha256, read_state, sha256
from .errors import RenderError

SETS = ".sets"  # under the output folder: every game's sets
MANIFEST = "manifest.json"


@dataclass
class Entry:
    """One written file: its kind, paper, page count and the decks it prints."""

    file: str
    kind: str
    paper: str
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
    """What a build asks to be written for one game on one paper, and what it read."""

    game: str
    version: str
    paper: str
    inputs: str  # the hash of everything the build read
    outputs: list[Output]
    kinds: frozenset[str]  # the output kinds it made: their old files on this paper go


def write_set(out_root: Path, written: Written,
              notice: Callable[[str], None] = lambda message: None) -> dict:
    """Write a game's outputs as a new set and make it the current one; return the manifest.

    Raises RenderError, naming the file, when the disk refuses (full, read-only); the
    current set is then as it was.
    """
    link, sets = out_root / written.game, out_root / SETS / written.game
    try:
        _folder(out_root / SETS, notice)
        _folder(sets, notice)
        with _locked(sets / ".lock"):
            current = _current(link, sets, notice)
            _tidy(sets, current, notice)
            new = sets / str(_next(sets))
            new.mkdir()
            try:
                manifest = _fill(new, link, current, written, notice)
                _swap(link, new)
            except BaseException:
                shutil.rmtree(new, ignore_errors=True)
                raise
            if current is not None:
                shutil.rmtree(current, ignore_errors=True)  # else the next build deletes it
    except OSError as exc:
        where = exc.filename if exc.filename is not None else sets
        raise RenderError(f"cannot write {where}: {exc.strerror or exc}") from None
    return manifest


def _fill(new: Path, link: Path, current: Path | None, written: Written,
          notice: Callable[[str], None]) -> dict:
    """Fill a new set: the files made, those of the current set kept, the manifest, and the
    record of every file's hash, written last."""
    files: dict[str, dict[str, Any]] = {}
    for output in written.outputs:
        _put(new / output.name, output.data, link / output.name)
        files[output.name] = {"sha256": sha256(output.data), "kind": output.kind,
                              "paper": written.paper}
    kept = _keep(new, current, written, notice) if current is not None else {}
    files.update(kept)
    old = read_state(current) if current is not None else {"papers": {}}
    papers = {paper: record for paper, record in old["papers"].items()
              if paper != written.paper and all(name in kept for name in record["files"])}
    papers[written.paper] = {"inputs": written.inputs,
                             "files": sorted(output.name for output in written.outputs)}
    entries = [asdict(output.entry) for output in written.outputs if output.entry is not None]
    entries += [entry for entry in _manifest(current).get("outputs", []) if entry["file"] in kept]
    manifest = {"game": written.game, "version": written.version,
                "outputs": sorted(entries, key=lambda entry: entry["file"])}
    text = (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    _put(new / MANIFEST, text, link / MANIFEST)
    files[MANIFEST] = {"sha256": sha256(text)}
    state = {"files": dict(sorted(files.items())), "papers": dict(sorted(papers.items()))}
    _put(new / STATE, (json.dumps(state, indent=1) + "\n").encode(), link / STATE)
    return manifest


def _keep(new: Path, current: Path, written: Written,
          notice: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """Link into the new set each file of the current one this build does not make again, of
    the same game and version, its content checked; return what each holds."""
    manifest = _manifest(current)
    if (manifest.get("game"), manifest.get("version")) != (written.game, written.version):
        return {}  # another edition: its other papers' files are out of date
    made = {output.name for output in written.outputs}
    state = read_state(current)
    remade = {(written.paper, kind) for kind in written.kinds}
    if state["files"]:
        wanted = {name: info for name, info in state["files"].items()
                  if name != MANIFEST and name not in made
                  and (info.get("paper"), info.get("kind")) not in remade}
    else:  # a set from an older version, or its record lost: other papers' listed PDFs
        wanted = {entry["file"]: {"kind": None, "paper": entry.get("paper"), "sha256": None}
                  for entry in manifest.get("outputs", []) if entry.get("paper") != written.paper}
    kept = {}
    for name, info in sorted(wanted.items()):
        source = current / name
        if not _plain(name) or source.is_symlink() or not source.is_file():
            continue
        try:
            digest = file_sha256(source)
        except OSError:
            digest = None
        if digest is None or info["sha256"] is not None and digest != info["sha256"]:
            notice(f"{name} was damaged since it was written; left out (build its paper again)")
            continue
        try:
            os.link(source, new / name)
        except OSError:  # a file system without hard links
            shutil.copyfile(source, new / name)
        kept[name] = {**info, "sha256": digest}
    return kept


def _manifest(folder: Path | None) -> dict[str, Any]:
    """A set's manifest, its entries those that name a file; empty when it has none."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8")) if folder else {}
        outputs = [entry for entry in manifest.get("outputs", [])
                   if isinstance(entry, dict) and isinstance(entry.get("file"), str)]
    except (OSError, ValueError, AttributeError, TypeError, RecursionError):
        return {}
    return {**manifest, "outputs": outputs}


def _plain(name: str) -> bool:
    """Whether a file name names a file in the set itself, not one elsewhere nor hidden."""
    return bool(name) and Path(name).name == name and not name.startswith(".")


def _put(path: Path, data: bytes, shown: Path) -> None:
    """Write a file of the new set. It is not forced to the disk: a kill leaves the current
    set whole, and after a power cut the hashes in the record tell the next build what to
    make again."""
    if not _plain(path.name) and path.name != STATE:
        raise RenderError(f"an output may not be named {path.name!r}")
    try:
        with path.open("xb") as handle:
            handle.write(data)
    except OSError as exc:
        raise RenderError(f"cannot write {shown}: {exc.strerror or exc}") from None


def _folder(path: Path, notice: Callable[[str], None]) -> None:
    """Make a folder, replacing a file or link that stands where it goes."""
    if path.is_symlink() or path.exists() and not path.is_dir():
        notice(f"{path} was not a folder; replaced")
        path.unlink()
    path.mkdir(parents=True, exist_ok=True)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold a lock on a game's sets, so two builds of it never write them at once."""
    try:
        import fcntl
    except ImportError:  # not on this system: builds of one game are not run side by side
        yield
        return
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _current(link: Path, sets: Path, notice: Callable[[str], None]) -> Path | None:
    """The game's current set: where its link points, when that is one of its sets. A folder
    from an older version becomes a set; anything else at the link's place is replaced."""
    if link.is_symlink():
        target = os.readlink(link)
        pattern = rf"{re.escape(SETS)}/{re.escape(link.name)}/[0-9]+"
        found = link.parent / target
        if re.fullmatch(pattern, target) and found.is_dir() and not found.is_symlink():
            return found
        notice(f"{link} pointed elsewhere than its sets; replaced")
        return None
    if link.is_dir():  # written by an older version: its files become the first set
        first = sets / str(_next(sets))
        os.rename(link, first)
        _swap(link, first)
        return first
    if link.exists():
        notice(f"{link} was not a folder; replaced")
    return None


def _tidy(sets: Path, current: Path | None, notice: Callable[[str], None]) -> None:
    """Delete what builds that failed or were killed left among the sets."""
    for path in sets.iterdir():
        if path == current or path.name == ".lock":
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError as exc:
            notice(f"cannot delete {path}: {exc.strerror or exc}")


def _next(sets: Path) -> int:
    """A number no set of the game has."""
    return 1 + max((int(path.name) for path in sets.iterdir()
                    if re.fullmatch("[0-9]+", path.name)), default=0)


def _swap(link: Path, target: Path) -> None:
    """Point the link at a set in one step: a new link renamed over the old."""
    temporary = target.parent / f".link.{os.getpid()}.tmp"
    temporary.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, link.parent), temporary)
    try:
        os.replace(temporary, link)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
