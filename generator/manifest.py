"""Stage 6, write: build/<game>/manifest.json lists every output file and what it holds."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .cache import write_atomic


@dataclass
class Entry:
    """One written file: its kind, paper, page count and the decks it prints."""

    file: str
    kind: str
    paper: str
    pages: int
    decks: dict[str, dict[str, int]] = field(default_factory=dict)


def write_manifest(out_dir: Path, game: str, version: str, outputs: list[Entry]) -> dict:
    """Write the manifest, keeping entries of other papers that are still on disk."""
    path = out_dir / "manifest.json"
    kept: list[dict] = []
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        if old.get("version") == version:
            new_files = {o.file for o in outputs}
            kept = [o for o in old.get("outputs", [])
                    if o.get("file") not in new_files and (out_dir / o.get("file", "")).is_file()]
    entries = sorted(kept + [asdict(o) for o in outputs], key=lambda o: o["file"])
    manifest = {"game": game, "version": version, "outputs": entries}
    text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    write_atomic(path, text.encode("utf-8"))
    return manifest
