"""Fonts come from the project's registry (fonts/fonts.yaml), never from the machine."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from . import FONTS_DIR


@dataclass(frozen=True)
class FontFace:
    """One face of a family: its weight and its file."""

    family: str
    weight: int
    path: Path


@dataclass(frozen=True)
class FontRegistry:
    """Every face the project ships."""

    faces: tuple[FontFace, ...]

    @property
    def families(self) -> set[str]:
        """Names a game may use."""
        return {face.family for face in self.faces}

    def files(self) -> list[Path]:
        """Every font file, for the URL fetcher's allow-list."""
        return [face.path for face in self.faces]

    def characters(self, family: str) -> frozenset[int]:
        """Code points a family has a glyph for, in every one of its faces."""
        maps = [_cmap(face.path) for face in self.faces if face.family == family]
        return frozenset.intersection(*maps) if maps else frozenset()

    def font_face_css(self, families: set[str]) -> str:
        """@font-face rules for the faces of the given families."""
        rules = []
        for face in self.faces:
            if face.family in families:
                rules.append(
                    f"@font-face {{ font-family: '{face.family}'; font-weight: {face.weight}; "
                    f"src: url('{face.path.as_uri()}'); }}"
                )
        return "\n".join(rules)


@cache
def _cmap(path: Path) -> frozenset[int]:
    """The code points a font file maps to glyphs (fontTools reads only its cmap table)."""
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True) as font:
        return frozenset(font.getBestCmap())


def _resolve(source: str) -> Path:
    """Turn a registry source into a file path."""
    if source.startswith("package:"):
        module, _, name = source.removeprefix("package:").partition("/")
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(f"font package '{module}' is not installed (run make)")
        return Path(next(iter(spec.submodule_search_locations))) / name
    return FONTS_DIR / source


def load_fonts(path: Path = FONTS_DIR / "fonts.yaml") -> FontRegistry:
    """Read the registry and check that every file is present."""
    faces = []
    for entry in yaml.safe_load(path.read_text(encoding="utf-8")):
        file = _resolve(entry["source"])
        if not file.is_file():
            raise FileNotFoundError(f"font file missing: {file} (run make)")
        faces.append(FontFace(entry["family"], int(entry["weight"]), file.resolve()))
    return FontRegistry(tuple(faces))
