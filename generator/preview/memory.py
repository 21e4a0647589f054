"""`pnp serve`'s part cache: laid-out parts and drawn pictures kept in memory, never on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..pipeline.cache import PartCache, stamp_or_none
from ..plan.parts import LaidOut

KEEP_REFRESHES = 3  # parts and pictures of the last few refreshes are kept: undo is instant


class MemoryCache(PartCache):
    """Laid-out parts and drawn pictures in memory, for the life of `pnp serve`: a part is
    taken while every file it read is as it was. Only the last few refreshes' are kept."""

    def __init__(self) -> None:  # no folder: nothing is read from disk or written there
        self.hits = self.misses = 0
        self.used: dict[str, list[str]] = {}
        self.damaged: set[str] = set()
        self.usable, self.read_only = False, True
        self.parts: dict[str, LaidOut] = {}
        self.data: dict[str, bytes] = {}
        self.recent: list[set[str]] = [set()]

    def get(self, key: str) -> LaidOut | None:
        """A part laid out before whose files are unchanged."""
        part = self.parts.get(key)
        if part is None or any(stamp_or_none(Path(path)) != (path, size, modified)
                               for path, size, modified in part.files):
            self.misses += 1
            return None
        self.hits += 1
        self.recent[0].add(key)
        return part

    def put(self, key: str, part: LaidOut) -> None:
        """Keep a part laid out."""
        self.parts[key] = part
        self.recent[0].add(key)

    def joined(self, key: str, join: Callable[[], bytes], what: str = "",
               again: str = "") -> bytes:
        """What was joined under `key` before, or joined now and kept."""
        if key not in self.data:
            self.data[key] = join()
        self.recent[0].add(key)
        return self.data[key]

    def keep(self, key: str, data: bytes) -> None:
        """Keep some data under `key`."""
        self.data[key] = data
        self.recent[0].add(key)

    def kept(self, key: str, what: str = "") -> bytes | None:
        """What is kept under `key`."""
        return self.data.get(key)

    def discard(self, key: str, why: str = "", what: str = "", again: str = "") -> None:
        """Forget what is kept under `key`."""
        self.parts.pop(key, None)
        self.data.pop(key, None)

    def keep_only(self) -> None:
        """Forget what none of the last few refreshes used, and start counting a new one."""
        live = set().union(*self.recent)
        for store in (self.parts, self.data):
            for key in [key for key in store if key not in live]:
                del store[key]
        self.recent = [set(), *self.recent][:KEEP_REFRESHES]
