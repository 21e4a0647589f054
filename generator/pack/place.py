"""Where a pack is: by name under cards/ or by folder, and where its builds go. Read before
anything of the pack loads, so a build with nothing to do answers fast."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .. import BUILD_DIR, CARDS_DIR, DEFAULT_GAME, PACK_BUILD
from ..check.findings import Finding, PackError, display_path


def command_name(root: Path, name: str) -> str:
    """How a command names a pack: by its name under cards/, else by its folder."""
    return name if root.parent.resolve() == CARDS_DIR.resolve() else display_path(root)


def pack_dir(name: str, cards_dir: Path = CARDS_DIR) -> Path:
    """Return the folder of a game pack, or raise a clean error listing the known games."""
    root = cards_dir / name
    if not (root / "game.yaml").is_file():
        known = ", ".join(list_games(cards_dir)) or "none"
        raise PackError([Finding(display_path(root), 0, f"no game '{name}' (known: {known})",
                                 "E001")])
    return root


@dataclass(frozen=True)
class PackPlace:
    """Where a pack named on the command line is: its name, the folder holding it, and
    where its builds go unless --out says."""

    name: str
    cards_dir: Path
    out_root: Path


def locate_pack(given: str | None, cards_dir: Path | None = None,
                default: str = DEFAULT_GAME) -> PackPlace:
    """A pack by folder (`.`, `../my-game`, `~/games/x`: one holding game.yaml, which builds
    into its own build/) or by name under `cards_dir`; none given: the current folder when
    it holds a game.yaml, else `default` under cards/."""
    folder = None
    if given is None and cards_dir is None and Path("game.yaml").is_file():
        folder = Path.cwd()
    elif given is not None and cards_dir is None:
        path = Path(given).expanduser()
        if path.name == "game.yaml":
            path = path.parent
        looks_like_path = os.sep in given or given.startswith((".", "~"))
        if looks_like_path or (path / "game.yaml").is_file():
            folder = path.resolve()
    if folder is not None and folder.parent != CARDS_DIR.resolve():
        return PackPlace(folder.name, folder.parent, folder / PACK_BUILD)
    if folder is not None:
        return PackPlace(folder.name, CARDS_DIR, BUILD_DIR)
    return PackPlace(given or default, cards_dir or CARDS_DIR, BUILD_DIR)


def list_games(cards_dir: Path = CARDS_DIR) -> list[str]:
    """Names of every folder under cards/ that holds a game.yaml."""
    return sorted(p.parent.name for p in cards_dir.glob("*/game.yaml"))
