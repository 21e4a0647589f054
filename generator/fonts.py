"""Fonts come from the project's registry (fonts/fonts.yaml), never from the machine."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
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
    fallback: bool = False


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

    @property
    def fallbacks(self) -> tuple[FontFace, ...]:
        """The faces behind every family, for the characters it has no glyph for."""
        return tuple(face for face in self.faces if face.fallback)

    def characters(self, family: str) -> frozenset[int]:
        """Code points a family has a glyph for, in every one of its faces."""
        maps = [_cmap(face.path) for face in self.faces if face.family == family]
        return frozenset.intersection(*maps) if maps else frozenset()

    def stack_characters(self, family: str) -> frozenset[int]:
        """Code points a family or a fallback behind it has a glyph for."""
        return self.characters(family).union(*(_cmap(face.path) for face in self.fallbacks))

    def font_face_css(self, families: set[str]) -> str:
        """@font-face rules for the faces of the given families, a face for each weight and
        style a page may ask for, and behind each family the fallbacks, for the characters
        it lacks."""
        rules = []
        for face in self.faces:
            if face.family in families:
                rules.append(_rule(face.family, face, face.weight))
        for family in sorted(families & self.families):
            faces = [face for face in self.faces if face.family == family]
            for weight, style in SLOTS:
                face = _nearest(faces, weight)
                if (face.weight, style) != (weight, "normal"):
                    rules.append(_rule(family, face, weight, style))
        for family in sorted(families & self.families - {face.family for face in self.fallbacks}):
            have = self.characters(family)
            for face in self.fallbacks:
                if lacking := _cmap(face.path) - have:
                    rules += [_rule(family, face, weight, style, lacking)
                              for weight, style in SLOTS]
        return "\n".join(rules)


# The weights and styles pages ask for. A family lacking one gets a face for it all the same,
# its nearest lighter face, upright: so that fontconfig never makes one up. The machine's
# fontconfig rules (90-synthetic.conf) would make the bold or oblique, and rename the font in
# the PDF, while WeasyPrint draws it as the face it is; without them, a PDF would differ.
SLOTS = ((400, "normal"), (700, "normal"), (400, "oblique"), (700, "oblique"))
# Pango names a font by family, weight, style and stretch, and WeasyPrint embeds one font per
# name: under the family's name, weight and style, a fallback's glyphs would be written with
# the family's own file. A stretch no stylesheet asks for gives a fallback a name of its own
# (and puts it after the family's faces when fontconfig sorts them).
FALLBACK_STRETCH = "ultra-condensed"


def _nearest(faces: list[FontFace], weight: int) -> FontFace:
    """The heaviest face no heavier than `weight`, else the lightest."""
    lighter = [face for face in faces if face.weight <= weight]
    return max(lighter, key=lambda face: face.weight) if lighter else \
        min(faces, key=lambda face: face.weight)


def _rule(family: str, face: FontFace, weight: int, style: str = "normal",
          fallback: frozenset[int] = frozenset()) -> str:
    """One @font-face rule: `face` under `family`, at `weight` and `style`; a fallback draws
    only the characters `fallback` (its unicode-range), so what the family has still comes
    from the family, and a game never names it."""
    extra = f"font-style: {style}; " if style != "normal" else ""
    if fallback:
        extra += f"font-stretch: {FALLBACK_STRETCH}; "
    rule = (f"@font-face {{ font-family: '{family}'; font-weight: {weight}; {extra}"
            f"src: url('{face.path.as_uri()}'); ")
    return rule + (f"unicode-range: {unicode_ranges(fallback)}; }}" if fallback else "}")


def unicode_ranges(codes: Iterable[int]) -> str:
    """Code points as a CSS unicode-range: U+25B2, U+2630-2637, …"""
    spans: list[list[int]] = []
    for code in sorted(codes):
        if spans and code == spans[-1][1] + 1:
            spans[-1][1] = code
        else:
            spans.append([code, code])
    return ", ".join(f"U+{start:X}" if start == end else f"U+{start:X}-{end:X}"
                     for start, end in spans)


@cache
def _cmap(path: Path) -> frozenset[int]:
    """The code points a font file maps to glyphs, read once a process (fontTools takes a
    sixth of a second on a CJK font's cmap); not kept on disk, as `pnp validate` writes
    nothing."""
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True) as font:
        return frozenset(font.getBestCmap())


def sample(path: Path, wanted: str = "字a") -> str:
    """A little text a font file draws: those of `wanted` it has, else its first two
    characters."""
    codes = _cmap(path)
    found = [char for char in wanted if ord(char) in codes]
    return "".join(found or [chr(code) for code in sorted(codes) if code > 0x20][:2])


# Characters CSS may draw without their being in the HTML: punctuation, list markers, counters.
ALWAYS = (set(range(0x20, 0x7F)) | set(range(0xA0, 0x100)) | set(range(0x2000, 0x2070))
          | set(range(0x3000, 0x3040)) | set(range(0xFF00, 0xFFF0))
          | set(map(ord, "〇一二三四五六七八九十百千")))
# The markers of list-style-type circle, square and disclosure (disc's • is in ALWAYS), kept
# only where a document may draw them: kept everywhere, they would renumber the glyphs of every
# document, and so change its bytes.
MARKERS = {"circle": "◦", "square": "▪", "disclosure-open": "▾", "disclosure-closed": "▸"}
LIST_TAG = re.compile(r"<(/?)(?:ul|ol|menu|dir)\b", re.IGNORECASE)
MARKER_STYLE = re.compile(r"list-style(?:-type)?\s*:[^;}]*?\b(" + "|".join(MARKERS) + r")\b")


def list_markers(text: str) -> set[int]:
    """The markers an HTML document may draw: ◦ in a list within a list, ▪ a level deeper
    (WeasyPrint's stylesheet), ▾ ▸ for <summary>, and each one its CSS names."""
    names = set(MARKER_STYLE.findall(text))
    depth = deepest = 0
    for closing in LIST_TAG.findall(text):
        depth = max(depth - 1, 0) if closing else depth + 1
        deepest = max(deepest, depth)
    names |= {"circle"} if deepest >= 2 else set()
    names |= {"square"} if deepest >= 3 else set()
    names |= {"disclosure-open", "disclosure-closed"} if "<summary" in text else set()
    return {ord(MARKERS[name]) for name in names}


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
    for code in sorted(ALWAYS | list_markers(text) | set(map(ord, set(text)))):
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
        faces.append(FontFace(entry["family"], int(entry["weight"]), file.resolve(),
                              bool(entry.get("fallback", False))))
    return FontRegistry(tuple(faces))
