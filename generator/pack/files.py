"""The one place that reads a file a pack names: inside the pack, a regular file, not too big.

A pack may come from a stranger, so every file it names is resolved first (a symlink that
points out of the pack is refused, one that points inside is followed), opened without
blocking (a FIFO never hangs), refused unless it is a regular file (not /dev/zero, not a
folder), and never read past the size limit.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

CHUNK = 1 << 20  # bytes read at a time


class FileRefused(Exception):
    """A file the pack names that may not be read, with the finding's code and message."""

    def __init__(self, code: str, message: str, line: int = 0):
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return self.message


def file_part(text: str) -> str:
    """A name from a pack (a deck's or card's id) made safe as one part of a file name: every
    character but letters, digits, `-` and `.` becomes `_`, and it does not start with a dot."""
    return re.sub(r"[^\w.-]", "_", text).lstrip(".") or "_"


def _called(path: Path, name: str | None) -> str:
    """How a message names the file: as the pack wrote it, else by its last part; on one
    line, whatever characters the name holds."""
    called = name if name is not None else path.name
    return "'" + "".join(char if char.isprintable() else char.encode("unicode_escape").decode()
                         for char in called) + "'"


def inside(path: Path, roots: Sequence[Path], *, name: str | None = None) -> Path:
    """The path with every symlink resolved, which must exist and lie under one of the roots
    (resolved too); `name` is how messages call the file (default its last part)."""
    try:
        if not _under(path.resolve(), roots):  # outside, whether it exists or not
            raise FileRefused("E050", f"{_called(path, name)} lies outside the game pack")
        real = path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: a symlink loop before
        raise _unreadable(path, name, exc) from None  # Python 3.13; ValueError: a NUL byte
    if not _under(real, roots):
        raise FileRefused("E050", f"{_called(path, name)} lies outside the game pack")
    return real


def _under(path: Path, roots: Sequence[Path]) -> bool:
    """Whether a resolved path lies in one of the roots."""
    return any(path.is_relative_to(root.resolve()) for root in roots)


def _unreadable(path: Path, name: str | None, exc: Exception) -> FileRefused:
    """The finding for a file that is not there or cannot be opened."""
    if isinstance(exc, FileNotFoundError):
        return FileRefused("E001", "file not found" if name is None
                           else f"{_called(path, name)} not found")
    loop = isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP
    reason = "symlink loop" if loop else "its name holds a NUL byte" if isinstance(
        exc, ValueError) else (getattr(exc, "strerror", None) or str(exc)).lower()
    return FileRefused("E001", f"{_called(path, name)} cannot be read: {reason}")


def file_size(size: int) -> str:
    """A file's size as a message tells it: in MB, as the limit is given, or in bytes."""
    if size < 100_000:
        return f"{size} bytes"
    return f"{size / 1_000_000:.1f}".removesuffix(".0") + " MB"


def read_bytes(path: Path, limit: int, *, name: str | None = None,
               dir_fd: int | None = None) -> bytes:
    """The bytes of a regular file no larger than `limit` bytes; anything else is refused
    (a FIFO, a device, a folder) without blocking, and no more than limit + 1 bytes are read.
    With `dir_fd`, `path` is one name in that folder, and a link there is refused."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | (os.O_NOFOLLOW if dir_fd is not None else 0), dir_fd=dir_fd)
    except (OSError, ValueError) as exc:
        if dir_fd is not None and getattr(exc, "errno", None) == errno.ELOOP:
            raise FileRefused("E050", f"{_called(path, name)} is a symbolic link") from None
        raise _unreadable(path, name, exc) from None
    try:
        _vet(os.fstat(fd), path, name, limit)
        chunks, held = [], 0
        while held <= limit:
            chunk = os.read(fd, min(CHUNK, limit + 1 - held))
            if not chunk:
                break
            chunks.append(chunk)
            held += len(chunk)
        if held > limit:  # it grew while being read, or its size was not told
            raise too_big(path, name, held, limit, over=True)
        return b"".join(chunks)
    except OSError as exc:
        raise _unreadable(path, name, exc) from None
    finally:
        os.close(fd)


def regular(path: Path, roots: Sequence[Path], limit: int, *, name: str | None = None) -> Path:
    """The resolved path of a regular file inside the roots and no larger than `limit` bytes,
    checked without opening it (see inside and read_bytes)."""
    real = inside(path, roots, name=name)
    try:
        status = real.stat()
    except OSError as exc:
        raise _unreadable(path, name, exc) from None
    _vet(status, path, name, limit)
    return real


def _vet(status: os.stat_result, path: Path, name: str | None, limit: int) -> None:
    """Refuse a file that is not a regular one, or is larger than the limit."""
    if not stat.S_ISREG(status.st_mode):
        raise FileRefused("E050", f"{_called(path, name)} is not a regular file")
    if status.st_size > limit:
        raise too_big(path, name, status.st_size, limit)


def too_big(path: Path, name: str | None, size: int, limit: int,
             over: bool = False) -> FileRefused:
    """The finding for a file over the size limit."""
    told = "more than " if over else ""
    return FileRefused("E006", f"{_called(path, name)} is {told}{file_size(size)}, over the "
                       f"limit of {file_size(limit)} (`limits: file_mb` in game.yaml)")


def decode(data: bytes) -> str:
    """UTF-8 text with universal newlines, as Path.read_text gives it; a byte that is not
    UTF-8 is refused at its line and column (FileRefused.line)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = _newlines(data[:exc.start].decode("utf-8"))
        line = before.count("\n") + 1
        column = len(before) - before.rfind("\n")
        raise FileRefused("E001", f"not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
                          f"column {column}", line) from None
    return _newlines(text)


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_text(path: Path, limit: int, *, name: str | None = None) -> str:
    """The UTF-8 text of a regular file no larger than `limit` bytes (see read_bytes), with
    universal newlines; invalid UTF-8 is refused at its line and column."""
    return decode(read_bytes(path, limit, name=name))


def pack_bytes(root: Path, name: str, limit: int, roots: Sequence[Path] = ()) -> bytes:
    """The bytes of the file a pack names, `name` relative to its folder `root`: it must lie
    inside `roots` (default the pack's folder), be a regular file and be no larger than limit;
    messages call it by `name`."""
    return read_bytes(inside(root / name, roots or (root,), name=name), limit, name=name)


def pack_text(root: Path, name: str, limit: int, roots: Sequence[Path] = ()) -> str:
    """The UTF-8 text of the file a pack names (see pack_bytes)."""
    return decode(pack_bytes(root, name, limit, roots))
