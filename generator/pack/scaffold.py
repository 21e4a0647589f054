"""`pnp new`: a small working pack written into a new or empty folder, to start a game from.

The pack's files are plain files in `generator/data/scaffolds/<language>/`, copied with the title
filled in; its YAML files point the editor at the schemas (`jsonschema.py`), written with it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from .. import PACKAGE_DIR
from ..check.findings import PnpError

SCAFFOLDS = PACKAGE_DIR / "data" / "scaffolds"
TITLE = "@TITLE@"  # in a scaffold's game.yaml and README.md: the game's title


def scaffold_languages() -> list[str]:
    """The languages a new pack can be written in."""
    return sorted(path.name for path in SCAFFOLDS.iterdir() if path.is_dir())


def title_of(name: str) -> str:
    """A title from a folder's name: `lantern-harbor` is "Lantern Harbor"."""
    words = [word[:1].upper() + word[1:] for word in re.split(r"[-_\s]+", name) if word]
    return " ".join(words) or "New Game"


def new_pack(folder: Path, language: str = "en") -> Path:
    """Write the scaffold pack in `language` into `folder`, which must not exist or be empty,
    with its schemas; its path. Nothing is left behind when it fails."""
    from .jsonschema import pack_schemas, write_schemas  # here: `pnp` starts without them
    from .load import load_spec

    folder = folder.expanduser()
    if folder.exists() and not folder.is_dir():
        raise PnpError(f"{folder} is a file: pnp new writes a pack into a new or empty folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise PnpError(f"{folder} is not empty: pnp new writes a pack into a new or empty "
                       "folder")
    source = SCAFFOLDS / language
    if language not in scaffold_languages():
        raise PnpError(f"no new pack in '{language}' (known: {', '.join(scaffold_languages())})")
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        title = title_of(folder.resolve().name)
        for path in sorted(source.rglob("*")):
            if path.is_file():
                target = folder / path.relative_to(source)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(_filled(path, title), encoding="utf-8", newline="\n")
        write_schemas(folder / "schemas", pack_schemas(load_spec(folder)))
    except BaseException:
        _remove(folder, made)
        raise
    return folder


def _filled(path: Path, title: str) -> str:
    """A scaffold file's text with the title in; in YAML, as a quoted string."""
    text = path.read_text(encoding="utf-8")
    value = json.dumps(title, ensure_ascii=False) if path.suffix == ".yaml" else title
    return text.replace(TITLE, value)


def _remove(folder: Path, made: bool) -> None:
    """Undo a pack half written: the folder if pnp made it, else what it holds."""
    if made:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
