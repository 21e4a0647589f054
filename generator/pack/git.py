"""The only module that runs git: a pack as a revision has it, read as data (raw blobs, no
filter, attribute, link or hook) within the pack's size limits."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .. import PACK_BUILD
from ..check.findings import Finding, PackError, PnpError
from .files import CHUNK, too_big

TIMEOUT = 120  # seconds one git command may run
MAX_FILES = 10_000  # files of the pack a revision may hold
TOTAL = 50  # a revision's files of the pack may hold this many times the size limit of one
LISTING = 16 << 20  # bytes of `git ls-tree` output read at most
SHOWN = 200  # characters of git's own message an error shows
FILES = ("100644", "100755")  # the modes of the blobs written; 120000 is a link, 160000 a submodule

# Given on the command line, these win over the repository's own configuration: no command it
# names runs (fsmonitor reads the index, which `--since :path` asks for), no hook, no
# attributes from outside the repository, no network or local transport (a partial clone
# fetches what it lacks), no bare repository found by walking up from the pack.
SETTINGS = ("core.fsmonitor=false", "core.hooksPath=/dev/null", "core.attributesFile=/dev/null",
            "protocol.allow=never", "safe.bareRepository=explicit")
ENVIRONMENT = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
               "GIT_ATTR_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
               "GIT_NO_REPLACE_OBJECTS": "1", "GIT_OPTIONAL_LOCKS": "0",
               "GIT_NO_LAZY_FETCH": "1",  # git 2.45 and later
               "GIT_ALLOW_PROTOCOL": "none"}  # no transport, whatever protocol.<name>.allow says


class GitError(PnpError):
    """Git could not name or read a revision; the message says why, on one line."""

    code = "E103"


def commit_of(folder: Path, revision: str) -> str:
    """The commit a revision names in the repository holding `folder`; text git could take
    as an option is refused before git sees it."""
    if revision.startswith("-") or not revision.isprintable():
        raise GitError("a revision does not start with '-' nor hold a control character")
    named = _output(folder, "rev-parse", "--verify", "--quiet", "--end-of-options",
                    f"{revision}^{{commit}}", said="not a commit of the pack's repository")
    return named.decode("ascii", errors="replace").strip()


def write_pack(folder: Path, commit: str, revision: str, into: Path, limit: int) -> None:
    """Write the files of the pack in `folder` as `commit` has them into `into` (made here):
    raw blobs, none over `limit` bytes, without links, submodules or the pack's build/; a
    file refused is a finding at `<revision>:<path>`, and nothing is read then."""
    prefix = os.fsdecode(_output(folder, "rev-parse", "--show-prefix")).removesuffix("\n")
    listing = _output(folder, "ls-tree", "-r", "-z", "--long", "--full-tree", commit,
                      *(["--", prefix] if prefix else []), most=LISTING)
    findings, wanted, total = [], [], 0
    for record in filter(None, listing.split(b"\0")):
        head, _, name = record.partition(b"\t")
        mode, _, blob, size = head.decode("ascii", errors="replace").split()
        path = os.fsdecode(name)
        parts = path.removeprefix(prefix).split("/")
        where = f"{revision}:{path}"
        if mode == "160000" or (len(parts) > 1 and parts[0] == PACK_BUILD):
            continue
        if mode == "120000":
            findings.append(Finding(where, 0, "a symlink; a revision is read without its links",
                                    "E050"))
        elif mode not in FILES or not path.startswith(prefix) or {"", ".", ".."} & set(parts):
            findings.append(Finding(where, 0, "not a regular file inside the pack", "E050"))
        elif int(size) > limit:
            findings.append(Finding(where, 0, too_big(Path(path), None, int(size), limit)
                                    .message, "E006"))
        else:
            wanted.append((blob, parts))
            total += int(size)
    if len(wanted) > MAX_FILES or total > TOTAL * limit:
        findings.append(Finding(f"{revision}:{prefix}", 0, f"the pack holds {len(wanted)} files "
                                f"of {total} bytes there, over the limit of {MAX_FILES} files "
                                f"or {TOTAL} times `limits: file_mb` in game.yaml", "E006"))
    if findings:
        raise PackError(findings)
    if not wanted:
        raise GitError(f"it holds no file in {prefix or 'the repository'}")
    with tempfile.TemporaryFile() as asked:  # a file, so git never waits on us to read
        asked.write(b"".join(blob.encode() + b"\n" for blob, _ in wanted))
        asked.seek(0)
        with _git(folder, "cat-file", "--batch", stdin=asked) as out:
            for blob, parts in wanted:
                told = out.readline(SHOWN).split()
                if told[:2] != [blob.encode(), b"blob"] or len(told) != 3 \
                        or not told[2].isdigit() or int(told[2]) > limit:
                    raise GitError(f"{revision}:{prefix}{'/'.join(parts)} cannot be read "
                                   f"({b' '.join(told).decode(errors='replace') or 'git ended'})")
                target = into.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with target.open("xb") as written:
                    _copy(out, written, int(told[2]))
                _exactly(out, 1)  # the newline after each object


def _output(folder: Path, *args: str, said: str = "", most: int = 1 << 16) -> bytes:
    """What a git command writes, at most `most` bytes; `said` is why it failed when git says
    nothing."""
    with _git(folder, *args, said=said) as out:
        told = out.read(most + 1)
        if len(told) > most:
            raise GitError(f"git {args[0]} gives more than {most} bytes")
        return told


def _copy(source: IO[bytes], target: IO[bytes], size: int) -> None:
    """Copy `size` bytes from a stream to a file, a chunk at a time."""
    while size:
        chunk = _exactly(source, min(CHUNK, size))
        target.write(chunk)
        size -= len(chunk)


def _exactly(stream: IO[bytes], size: int) -> bytes:
    """The next `size` bytes of a stream; EOFError when it ends before."""
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return data


@contextmanager
def _git(folder: Path, *args: str, stdin: int | IO[bytes] = subprocess.DEVNULL,
         said: str = "") -> Iterator[IO[bytes]]:
    """The output of git running `args` in `folder` with a clean environment, killed after
    TIMEOUT seconds or when the caller fails; output ending short (EOFError) or git failing is
    a GitError with git's message on one line (else `said`)."""
    command = ["git", "--no-pager", "--literal-pathspecs",
               *(word for setting in SETTINGS for word in ("-c", setting)), *args]
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("GIT_")} | ENVIRONMENT
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen(command, cwd=folder, env=environment, stdin=stdin,
                                       stdout=subprocess.PIPE, stderr=errors)
        except OSError as exc:
            raise GitError(f"git cannot be run: {exc.strerror or exc}") from None
        late = threading.Event()

        def stop() -> None:
            late.set()
            process.kill()

        timer = threading.Timer(TIMEOUT, stop)
        timer.start()
        assert process.stdout is not None
        short = False
        try:
            try:
                yield process.stdout
            except EOFError:
                short = True
            code = process.wait()
        finally:  # on the caller's own error too
            timer.cancel()
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()
        errors.seek(0)
        message = " ".join(errors.read(SHOWN * 4).decode(errors="replace").split())[:SHOWN]
    if code and late.is_set():
        raise GitError(f"git {args[0]} ran past {TIMEOUT} s and was stopped")
    if code or short:
        raise GitError(message or said or f"git {args[0]} stopped (exit {code})")
