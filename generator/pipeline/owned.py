"""Everything pnp writes, replaces or removes goes through here: below a folder it opened,
never through a symbolic link, and a folder removed only when its mark proves pnp made it.

A pack may come from a stranger with its own `build/`, caches and links in them, so every
folder is opened one step at a time from its parent with O_NOFOLLOW: a link anywhere on the
way is refused, never followed, replaced or removed. A folder pnp makes holds a mark,
`.pnp-made`, naming the folder's own device and inode; a folder whose mark is missing or does
not name it (one that came with a pack, or was copied) is not pnp's, and pnp neither writes
into it nor removes it. Files are written to a temporary neighbour and renamed into place, so
an existing file is replaced, never written through (a hard link to a user's file stays as it
was); a new record is linked into place, so one that exists is never overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from ..check.findings import RenderError
from ..pack.files import FileRefused, read_bytes

MARK = ".pnp-made"
TEMP = ".tmp"  # the ending of a temporary file or folder's name; its name holds the pid
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
PACK_FILE = "game.yaml"  # a folder holding one is a pack: its build/ may have come with it


class Refused(RenderError):
    """A path pnp will not write into, replace or remove: a link, or not pnp's own."""


def _plain(name: str) -> str:
    """A name of one entry in a folder, never a path."""
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise RenderError(f"{name!r} is not the name of a file; a bug in pnp")
    return name


class Folder:
    """An open folder pnp writes in, and where it is (for messages only)."""

    def __init__(self, fd: int, path: Path):
        self.fd, self.path = fd, path

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let the folder go."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def kind(self, name: str) -> str | None:
        """What stands at `name`, not followed: 'file', 'folder', 'link', 'other' or None."""
        try:
            mode = os.stat(_plain(name), dir_fd=self.fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None
        return ("link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode)
                else "file" if stat.S_ISREG(mode) else "other")

    def names(self) -> list[str]:
        """The names in the folder, sorted."""
        return sorted(os.listdir(self.fd))

    def sub(self, name: str, *, make: bool = True, mark: bool = True) -> Folder:
        """A folder in this one: made (with pnp's mark unless `mark` is off) when missing and
        `make`; an existing one must carry the mark when `mark` is on. A link, or anything
        but a folder, is refused."""
        shown = self.path / name
        try:
            fd = os.open(_plain(name), FOLDER, dir_fd=self.fd)
        except FileNotFoundError:
            if not make:
                raise
            return self._made(name, mark)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise Refused(f"{shown} is {self._what(name)}, not a folder pnp made; pnp "
                              "neither follows nor replaces it (move it away)") from None
            raise
        folder = Folder(fd, shown)
        if mark and not folder.marked():
            folder.close()
            raise Refused(f"{shown} is a folder pnp did not make (it came with the pack, was "
                          "copied, or an older pnp made it); pnp neither writes into it nor "
                          "deletes it (delete or move it, or give --out another folder)")
        return folder

    def _made(self, name: str, mark: bool) -> Folder:
        """A new folder at `name`, which appears with its mark already in it (made under a
        temporary name, then renamed): a run beside this one never sees it unmarked, and
        when that run made it first, it is the one opened."""
        made = f".{name[:64]}.{os.getpid()}.{_token()}{TEMP}" if mark else name
        try:
            os.mkdir(made, 0o755, dir_fd=self.fd)
        except FileExistsError:  # made by a run beside this one just now
            return self.sub(name, make=False, mark=mark)
        folder = Folder(os.open(made, FOLDER, dir_fd=self.fd), self.path / name)
        if not mark:
            return folder
        try:
            folder._write_mark()
            os.rename(made, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError as exc:
            folder.close()
            _rmtree(made, dir_fd=self.fd, ignore_errors=True)
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
            return self.sub(name, make=False, mark=mark)
        return folder

    def _what(self, name: str) -> str:
        """How a message calls what stands at `name`."""
        return {"link": "a symbolic link", "file": "a file", "other": "a special file",
                "folder": "a folder"}.get(self.kind(name) or "", "gone")

    def _write_mark(self) -> None:
        """Mark this folder as made by pnp: its own device and inode."""
        info = os.fstat(self.fd)
        self.write(MARK, json.dumps({"made by": "pnp", "device": info.st_dev,
                                     "inode": info.st_ino}).encode())

    def marked(self) -> bool:
        """Whether this folder carries pnp's mark, naming this very folder."""
        try:
            mark = json.loads(self.read(MARK, 4096))
            info = os.fstat(self.fd)
            return (mark.get("made by") == "pnp" and mark.get("device") == info.st_dev
                    and mark.get("inode") == info.st_ino)
        except (OSError, FileRefused, ValueError, AttributeError):
            return False

    def read(self, name: str, limit: int) -> bytes:
        """A regular file's bytes, not through a link, at most `limit` of them."""
        return read_bytes(Path(_plain(name)), limit, name=str(self.path / name), dir_fd=self.fd)

    def digest(self, name: str) -> str:
        """The hex SHA-256 of a regular file here (not through a link), read in chunks."""
        fd = os.open(_plain(name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0), dir_fd=self.fd)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(self.path / name))
            return hashlib.file_digest(handle, "sha256").hexdigest()

    def write(self, name: str, data: bytes, *, replace: bool = True, mode: int = 0o644) -> None:
        """Put a file in place whole: a temporary neighbour renamed over it. A link or a folder
        where it goes is refused; without `replace`, so is any file there."""
        temporary = self._temporary(name, data, mode)
        try:
            if not replace:
                try:
                    os.link(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd,
                            follow_symlinks=False)
                except FileExistsError:
                    raise Refused(f"{self.path / name} exists already; pnp does not "
                                  "overwrite it") from None
                return
            if self.kind(name) not in (None, "file"):
                raise Refused(f"{self.path / name} is {self._what(name)}; pnp replaces only "
                              "a file it wrote")
            os.replace(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=self.fd)

    def _temporary(self, name: str, data: bytes, mode: int = 0o644) -> str:
        """A new file beside `name` holding the data; its name holds this process's id."""
        temporary = f".{_plain(name)[:64]}.{os.getpid()}.{_token()}{TEMP}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                os.fchmod(handle.fileno(), mode)
        except BaseException:
            os.unlink(temporary, dir_fd=self.fd)
            raise
        return temporary

    def remove(self, name: str) -> None:
        """Delete a file (or a link: never what it points to); a folder is refused."""
        if self.kind(name) == "folder":
            raise Refused(f"{self.path / name} is a folder; a bug in pnp")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_plain(name), dir_fd=self.fd)

    def remove_tree(self, name: str) -> None:
        """Delete a folder pnp made, and all in it (links deleted, never followed); one
        without its mark is refused."""
        with self.sub(name, make=False):
            pass
        _rmtree(name, dir_fd=self.fd)

    def rename(self, old: str, new: str) -> None:
        """Give an entry of this folder another name, replacing a file or empty folder
        there."""
        os.replace(_plain(old), _plain(new), src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def exchange(self, one: str, other: str) -> None:
        """Swap two folders' names in one step (renameat2 RENAME_EXCHANGE); where the system
        cannot, two renames through a temporary name."""
        renameat2 = _renameat2()
        if renameat2 is not None and renameat2(self.fd, _plain(one).encode(), self.fd,
                                               _plain(other).encode(), EXCHANGE) == 0:
            return
        between = f".swap.{os.getpid()}.{_token()}{TEMP}"
        self.rename(one, between)
        self.rename(other, one)
        self.rename(between, other)

    def link_to(self, name: str, target: str) -> None:
        """Make `name` a symbolic link to `target`, replacing a link there in one rename."""
        temporary = f".link.{os.getpid()}.{_token()}{TEMP}"
        os.symlink(target, temporary, dir_fd=self.fd)
        try:
            if self.kind(name) not in (None, "link"):
                raise Refused(f"{self.path / name} is {self._what(name)}; pnp replaces only "
                              "a link it made")
            try:
                os.replace(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, str(self.path / name)) from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=self.fd)

    def target(self, name: str) -> str | None:
        """Where a link points, None when `name` is not a link."""
        return os.readlink(_plain(name), dir_fd=self.fd) if self.kind(name) == "link" else None

    @contextlib.contextmanager
    def locked(self, name: str) -> Iterator[None]:
        """Hold an exclusive lock on a file of this folder, made if missing (never a link)."""
        fd = os.open(_plain(name), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW
                     | getattr(os, "O_CLOEXEC", 0), 0o644, dir_fd=self.fd)
        try:
            try:
                import fcntl
            except ImportError:  # not on this system: runs of one game are not side by side
                yield
                return
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def staging(self, stem: str) -> str:
        """Make a new marked folder for a run to fill before it is swapped in: its name holds
        this process's id, so a later `sweep` knows when it was left behind."""
        name = f".{_plain(stem)}.{os.getpid()}.{_token()}{TEMP}"
        self.sub(name).close()
        return name

    def sweep(self) -> None:
        """Delete the temporary files and folders that runs no longer running left here."""
        for name in self.names():
            if not (name.startswith(".") and name.endswith(TEMP)):
                continue
            try:
                pid = int(name.removesuffix(TEMP).split(".")[-2])
            except (ValueError, IndexError):
                continue
            if pid <= 0 or running(pid):
                continue
            with contextlib.suppress(OSError, Refused):
                if self.kind(name) == "folder":
                    self.remove_tree(name)
                else:
                    self.remove(name)


@cache
def _renameat2() -> Any:
    """glibc's renameat2, where this system has it (loaded when first asked for: ctypes is
    slow to import, and a build with nothing to do swaps no folder)."""
    import ctypes

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                         ctypes.c_uint]
    return function


EXCHANGE = 2  # RENAME_EXCHANGE


def _token() -> str:
    """Eight random hex digits for a temporary name (secrets is imported when first needed:
    a build with nothing to do makes no temporary file)."""
    import secrets

    return secrets.token_hex(4)


def _rmtree(name: str, dir_fd: int, ignore_errors: bool = False) -> None:
    """shutil.rmtree below a folder descriptor (shutil imported when first needed)."""
    import shutil

    shutil.rmtree(name, dir_fd=dir_fd, ignore_errors=ignore_errors)


def running(pid: int) -> bool:
    """Whether a process of this id is running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def open_named(path: Path, *, make: bool = True) -> Folder:
    """A folder the designer named (an --out folder, a pack's own), followed as given; made
    (and marked) if missing."""
    path = Path(os.path.abspath(path.expanduser()))
    if make and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open_named(path.parent, make=False) as parent:
            return parent.sub(path.name)
    return Folder(os.open(path, FOLDER & ~os.O_NOFOLLOW), path)


def open_root(path: Path, *, make: bool = True) -> Folder:
    """The folder outputs go into: one the designer named (see open_named); but a pack's own
    `build/` (a folder beside a game.yaml) is opened like any folder below a root, so one
    that came with the pack, or a link, is refused."""
    path = Path(os.path.abspath(path.expanduser()))
    if (path.parent / PACK_FILE).is_file():
        with open_named(path.parent, make=False) as pack:
            return pack.sub(path.name, make=make)
    return open_named(path, make=make)


def check_root(path: Path, *below: tuple[str, ...]) -> None:
    """Refuse now, before any work, an output folder pnp would refuse to write into, or
    refuse to write into the folders `below` it (each a path of folder names); what is not
    there yet is fine."""
    with contextlib.suppress(FileNotFoundError), open_root(path, make=False) as root:
        for parts in below:
            with contextlib.suppress(FileNotFoundError), open_path(root, parts, make=False):
                pass


def open_path(root: Folder, parts: tuple[str, ...] | list[str], *, make: bool = True,
              mark: bool = True) -> Folder:
    """The folder `parts` below an open root, each step opened as `Folder.sub` does."""
    folder = Folder(os.dup(root.fd), root.path)
    for part in parts:
        with folder:
            folder = folder.sub(part, make=make, mark=mark)
    return folder


@contextlib.contextmanager
def folder_at(out_root: Path, *parts: str, make: bool = True) -> Iterator[Folder]:
    """The folder `out_root/parts…`, opened (and made) step by step, for the block."""
    with open_root(out_root, make=make) as root, open_path(root, parts, make=make) as folder:
        yield folder


def write_tree(folder: Folder, files: dict[str, bytes]) -> None:
    """Write files into a new, empty folder tree: `deck/name.png` makes the folder `deck`."""
    opened: dict[str, Folder] = {}
    try:
        for name, data in files.items():
            *folders, base = name.split("/")
            where = folder
            for depth in range(len(folders)):
                key = "/".join(folders[:depth + 1])
                if key not in opened:
                    opened[key] = where.sub(folders[depth], mark=False)
                where = opened[key]
            where.write(base, data, replace=False)
    finally:
        for sub in opened.values():
            sub.close()
