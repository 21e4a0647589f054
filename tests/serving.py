"""`pnp serve` in a process group of its own, for the tests: its address read off the line it
prints, its state asked over HTTP, and the whole group ended however a test ends."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

START = 60.0  # seconds the tiny pack may take to come up on a loaded machine


class Serving:
    """One `pnp serve` on a free port; `stop()` is Ctrl-C, `kill()` ends every process it
    started (call it in a finalizer)."""

    def __init__(self, cards: Path, game: str, *options: str, cwd: Path | None = None
                 ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "generator.cli", "--cards", str(cards), "serve", game,
             "--port", "0", *options], stderr=subprocess.PIPE, text=True, cwd=cwd,
            start_new_session=True)  # its own group: Ctrl-C and kill reach its workers too
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        line = self.line_with(" at http://")
        self.url = line.split(" at ", 1)[1].split(" ", 1)[0]
        address = urlsplit(self.url)
        self.host, self.port = address.netloc, address.port or 80
        self.token = parse_qs(address.query)["token"][0]

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def line_with(self, text: str, timeout: float = START) -> str:
        """The first line printed that holds `text`, waited for."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = next((line for line in self.lines if text in line), None)
            if found is not None:
                return found
            if self.process.poll() is not None and not self.reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"pnp serve never printed {text!r}: {self.lines}")

    def get(self, path: str, host: str | None = None, token: str | None = None
            ) -> tuple[int, dict[str, str], bytes]:
        """A GET over HTTP with a Host header and token (this server's by default; '' for
        none): its status, headers and body."""
        token = self.token if token is None else token
        if token:
            path += ("&" if "?" in path else "?") + f"token={token}"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("GET", path, headers={"Host": host or self.host})
            answer = connection.getresponse()
            return answer.status, {key.lower(): value for key, value in answer.getheaders()}, \
                answer.read()
        finally:
            connection.close()

    def state(self) -> dict[str, Any]:
        """What the page would show now (/api/state)."""
        status, _, body = self.get("/api/state")
        assert status == 200, body
        data: dict[str, Any] = json.loads(body)
        return data

    def until(self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 30.0
              ) -> dict[str, Any]:
        """The state once `wanted` holds of it and nothing is being made."""
        deadline = time.monotonic() + timeout
        while True:
            data = self.state()
            if not data["busy"] and wanted(data):
                return data
            if time.monotonic() > deadline:
                raise AssertionError(f"pnp serve never got there; it shows {data}; it printed "
                                     f"{self.lines}")
            time.sleep(0.1)

    def ready(self) -> dict[str, Any]:
        """The state once every face and output was made the first time."""
        return self.until(lambda data: data["version"] > 0, START)

    def stop(self, timeout: float = 15.0) -> int:
        """Ctrl-C, as a terminal sends it (to the whole group); its exit code."""
        os.killpg(self.process.pid, signal.SIGINT)
        code = self.process.wait(timeout)
        self.reader.join(timeout)
        return code

    def group_alive(self) -> bool:
        """Whether a process of its group (itself or a worker) still runs."""
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill(self) -> None:
        """End every process of its group at once, whatever state it is in."""
        if self.group_alive():
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def save(path: Path, *edits: tuple[str, str]) -> None:
    """Save edits (old, new) at once, as editors do, so that a watcher never reads half of
    them: a whole new file put in place."""
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, f"{old!r} is not in {path}"
        text = text.replace(old, new)
    temporary = path.with_name(f".{path.name}.tmp")  # hidden: the watcher skips it
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under `folder`: its bytes (b'/' for a folder) and mtime."""
    found = {}
    for root, folders, files in os.walk(folder):
        for name in [*folders, *files]:
            path = Path(root) / name
            found[str(path.relative_to(folder))] = (
                b"/" if path.is_dir() else path.read_bytes(), path.lstat().st_mtime_ns)
    return found


def line_of(path: Path, text: str) -> int:
    """The number of the first line of a file that holds `text`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)

