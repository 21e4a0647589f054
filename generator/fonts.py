"""Fonts come from the project's registry (fonts/fonts.yaml), never from the machine."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

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
    """The code points a font file maps to glyphs, read once a process (fontTools takes a
    sixth of a second on a CJK font's cmap); not kept on disk, as `pnp validate` writes
    nothing."""
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True) as font:
        return frozenset(font.getBestCmap())


# Characters CSS may draw without their being in the HTML: punctuation, list markers, counters.
ALWAYS = (set(range(0x20, 0x7F)) | set(range(0xA0, 0x100)) | set(range(0x2000, 0x2070))
          | set(range(0x3000, 0x3040)) | set(range(0xFF00, 0xFFF0))
          | set(map(ord, "〇一二三四五六七八九十百千")))


@cache
def _harfbuzz_face(path: Path) -> Any:
    """A font file opened by HarfBuzz, once per process."""
    import uharfbuzz

    return uharfbuzz.Face(uharfbuzz.Blob.from_file_path(str(path)))


def subset_font(path: Path, text: str) -> bytes:
    """The font cut down to the characters of `text` (and those CSS may add), by HarfBuzz.

    WeasyPrint subsets fonts too, but keeps every glyph id below the highest one used: from a
    full CJK font that is ~150 kB per face per document, from the cut-down font next to nothing.
    """
    import uharfbuzz

    request = uharfbuzz.SubsetInput()
    for code in sorted(ALWAYS | set(map(ord, set(text)))):
        request.unicode_set.add(code)
    request.sets(uharfbuzz.SubsetInputSets.NAME_ID).invert()  # keep every name
    return uharfbuzz.subset(_harfbuzz_face(path), request).blob.data


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
