"""Stage 0, cache: a build whose inputs have not changed since the last one is not redone.

The inputs are every file of the game pack, the shared templates, the font registry, this
package's own source, the options and the versions of the libraries that draw the pages. Only
the standard library is imported here, so a no-change build never loads WeasyPrint.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

from . import FONTS_DIR, TEMPLATES_DIR

PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BuildOptions:
    """What the designer asked for."""

    paper: str = "a4"
    backs: bool = True
    html: bool = False
    strict: bool = False
    booklet: bool = False
LIBRARIES = ("weasyprint", "jinja2", "reportlab", "pypdf", "markdown-it-py", "qrcode")


def _files(folder: Path, pattern: str = "*") -> list[Path]:
    return sorted(p for p in folder.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


def input_digest(pack: Path, options: BuildOptions) -> str:
    """One hash of everything a build of `pack` with `options` reads."""
    digest = hashlib.sha256(json.dumps(asdict(options), sort_keys=True).encode())
    for name in LIBRARIES:
        digest.update(f"{name}={metadata.version(name)}\n".encode())
    for root, files in ((pack, _files(pack)), (TEMPLATES_DIR, _files(TEMPLATES_DIR)),
                        (FONTS_DIR, [FONTS_DIR / "fonts.yaml"]),
                        (PACKAGE_DIR, _files(PACKAGE_DIR, "*.py"))):
        for path in files:
            digest.update(f"{root.name}/{path.relative_to(root)}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _state(out_dir: Path, paper: str) -> Path:
    return out_dir / f".inputs-{paper}.json"


def is_fresh(out_dir: Path, paper: str, digest: str) -> bool:
    """Whether the last build into out_dir on this paper had these inputs, its files all there."""
    try:
        state = json.loads(_state(out_dir, paper).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    files = state.get("files", [])
    return state.get("inputs") == digest and bool(files) and all(
        (out_dir / name).is_file() for name in files)


def remember(out_dir: Path, paper: str, digest: str, files: list[str]) -> None:
    """Record what a successful build read and wrote."""
    text = json.dumps({"inputs": digest, "files": sorted(files)}, indent=2) + "\n"
    _state(out_dir, paper).write_text(text, encoding="utf-8")
