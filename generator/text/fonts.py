"""Fonts come from the project's registry (fonts/fonts.yaml) and the pack's own font files
(game.yaml `font_files`), never from the machine."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import FONTS_DIR
from ..check.findings import Finding, display_path
from ..data import read_data_yaml
from ..pack.files import FileRefused, inside, read_bytes

if TYPE_CHECKING:
    from ..pack.load import Game

CJK_LANGUAGES = {"zh", "ja", "ko"}  # languages set CJK first; their scripts have no italic
IDEOGRAPHS = frozenset(range(0x4E00, 0xA000))  # CJK Unified Ideographs: a CJK family has most


@dataclass(frozen=True)
class FontFace:
    """One face of a family: its weight, its style (normal or italic) and its file; a pack's
    face carries the code points read when its file was checked."""

    family: str
    weight: int
    path: Path
    fallback: bool = False
    style: str = "normal"
    codes: frozenset[int] | None = None


@dataclass(frozen=True)
class FontLanguage:
    """A language with CJK faces of its own, from an optional extra of the distribution: its
    name, the extra, and its Latin families' partners (fonts.yaml `languages`)."""

    tag: str
    name: str
    extra: str
    partners: Mapping[str, str]


@dataclass(frozen=True)
class FontRegistry:
    """Every face the project ships, and a game's own; the partner of each family for the
    other script; the languages with faces of their own, and the extras not installed; what
    checking the pack's font files found."""

    faces: tuple[FontFace, ...]
    partners: Mapping[str, str] = field(default_factory=dict)
    behind: Mapping[str, str] = field(default_factory=dict)  # by script: "latin", "cjk"
    findings: tuple[Finding, ...] = ()
    own: frozenset[str] = frozenset()  # the families the pack declares, usable or not
    languages: tuple[FontLanguage, ...] = ()
    missing: frozenset[str] = frozenset()  # the extras whose packages are not installed
    _memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

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
        """Code points a family has a glyph for, in every one of its faces (worked out once:
        every page asks)."""
        if ("characters", family) not in self._memo:
            maps = [_codes(face) for face in self.faces if face.family == family]
            self._memo["characters", family] = \
                frozenset.intersection(*maps) if maps else frozenset()
        return self._memo["characters", family]

    def language(self, language: str) -> FontLanguage | None:
        """The entry of a language tag with faces of its own: its own (any case), else its
        primary subtag's (`ja-JP` takes `ja`)."""
        tag = language.strip().replace("_", "-").lower()
        known = {entry.tag.lower(): entry for entry in self.languages}
        return known.get(tag) or known.get(tag.split("-")[0])

    def needs_extra(self, language: str) -> FontLanguage | None:
        """The entry of a language whose faces come from an extra that is not installed."""
        entry = self.language(language)
        return entry if entry is not None and entry.extra in self.missing else None

    def partner(self, family: str, language: str) -> str | None:
        """A family's partner for the other script in a language: a Latin family's is the
        language's own CJK face where it has one (and it is installed), else the registry's; a
        language's CJK face's is its Latin family."""
        entry = self.language(language)
        if entry is not None and entry.extra not in self.missing and family in entry.partners:
            return entry.partners[family]
        latin = {cjk: latin for other in self.languages for latin, cjk in other.partners.items()}
        return latin.get(family) or self.partners.get(family)

    def is_cjk(self, family: str) -> bool:
        """Whether a family is set for Chinese, Japanese or Korean: it draws the ideographs."""
        return len(self.characters(family) & IDEOGRAPHS) > 1000

    def stack(self, family: str, language: str) -> tuple[str, ...]:
        """The families text named `family` is set in: in a CJK language a CJK family alone
        (its Latin glyphs serve; a partner's @font-face rules would cost every part a tenth
        more time), else with its partner for the other script, the Latin one first; a family
        of the pack's own first, the registry's family for the script it lacks behind it."""
        partner = self.partner(family, language)
        if partner is not None and is_cjk_language(language) and self.is_cjk(family):
            return (family,)
        if partner is not None:
            cjk_first = is_cjk_language(language)
            return tuple(sorted((family, partner),
                                key=lambda name: self.is_cjk(name) != cjk_first))
        behind = self.behind.get("cjk" if self.is_cjk(family) else "latin")
        if family in self.own and behind in self.families:
            return (family, behind)
        return (family,)

    def stack_characters(self, *families: str) -> frozenset[int]:
        """Code points one of the families or a fallback behind them has a glyph for."""
        return frozenset().union(*(self.characters(family) for family in families),
                                 *(_codes(face) for face in self.fallbacks))

    def page_fonts(self, roles: Mapping[str, str], language: str) -> tuple[dict[str, str], str]:
        """Each role's CSS stack (`'Noto Sans Latin', 'Noto Sans SC'`), and the @font-face
        rules of the families in them and of the pack's own (worked out once per game)."""
        key = ("page", tuple(roles.items()), language)
        if key not in self._memo:
            stacks = {role: self.stack(family, language) for role, family in roles.items()}
            families = {name for stack in stacks.values() for name in stack} | self.own
            self._memo[key] = ({role: ", ".join(f"'{name}'" for name in stack)
                                for role, stack in stacks.items()},
                               self.font_face_css(families))
        css, rules = self._memo[key]
        return dict(css), rules

    def font_face_css(self, families: set[str]) -> str:
        """@font-face rules for the faces of the given families, a face for each weight and
        style a page may ask for, and behind each family the fallbacks, for the characters
        it lacks."""
        rules = []
        for face in self.faces:
            if face.family in families:
                rules.append(_rule(face.family, face, face.weight, face.style))
        for family in sorted(families & self.families):
            faces = [face for face in self.faces if face.family == family]
            for weight, style in SLOTS:
                face = _nearest(faces, weight, style)
                if (face.weight, face.style) != (weight, style):
                    rules.append(_rule(family, face, weight, style))
        behind = list(dict.fromkeys(face.family for face in self.fallbacks))
        for family in sorted(families & self.families - set(behind)):
            have = self.characters(family)
            for stretch, fallback in zip(FALLBACK_STRETCHES, behind, strict=False):
                faces = [face for face in self.fallbacks if face.family == fallback]
                for weight, style in SLOTS:
                    face = _nearest(faces, weight, style)
                    if lacking := _codes(face) - have:
                        rules.append(_rule(family, face, weight, style, lacking, stretch))
        return "\n".join(rules)

    def for_game(self, game: Game) -> FontRegistry:
        """The registry with the pack's own font files (game.yaml `font_files`) added; a file
        that cannot be used is left out, and said in `findings` at its line."""
        from ..pack.yamlfile import line_of

        where = display_path(game.root / "game.yaml")
        faces: list[FontFace] = []
        findings: list[Finding] = []
        lines: dict[tuple[str, int, str], int] = {}
        for index, entry in enumerate(game.spec.font_files):
            line = line_of(game.spec_data, ("font_files", index, "file"))
            key = (entry.family, entry.weight, entry.style)
            said = f"font_files: '{entry.file}'"
            if entry.family in self.families:
                findings.append(Finding(where, line_of(game.spec_data, ("font_files", index,
                                                                        "family")),
                                        f"font_files: family '{entry.family}' is one of the "
                                        "project's (fonts/fonts.yaml): give the pack's font a "
                                        "name of its own", code="E082"))
                continue
            if key in lines:
                findings.append(Finding(where, line, f"{said}: family '{entry.family}' already "
                                        f"has a {entry.weight} {entry.style} face (line "
                                        f"{lines[key]})", code="E082"))
                continue
            lines[key] = line
            try:
                path = inside(game.root / entry.file, (game.root,), name=entry.file)
                codes = read_font(read_bytes(path, game.limits.file_bytes, name=entry.file),
                                  entry.weight, entry.style)
            except FileRefused as exc:
                findings.append(Finding(where, line, f"font_files: {exc.message}",
                                        code=exc.code))
                continue
            except FontUnusable as exc:
                findings.append(Finding(where, line, f"{said} {exc}", code="E082"))
                continue
            faces.append(FontFace(entry.family, entry.weight, path, style=entry.style,
                                  codes=codes))
        own = frozenset(entry.family for entry in game.spec.font_files) - self.families
        return FontRegistry(self.faces + tuple(faces), self.partners, self.behind,
                            tuple(findings), own, self.languages, self.missing)


def is_cjk_language(language: str) -> bool:
    """Whether a language tag is Chinese, Japanese or Korean (`zh-CN`, `ja`, `ko-KR`)."""
    return language.strip().replace("_", "-").split("-")[0].lower() in CJK_LANGUAGES


# The weights and styles pages ask for. A family lacking one gets a face for it all the same,
# its nearest lighter face, italic where it has one (a page's italic is its oblique too), else
# upright: so that fontconfig never makes one up. The machine's fontconfig rules
# (90-synthetic.conf) would make the bold or oblique, and rename the font in the PDF, while
# WeasyPrint draws it as the face it is; without them, a PDF would differ. Text that asks for
# a face its family lacks is told by the layout check (W079).
SLOTS = ((400, "normal"), (700, "normal"), (400, "oblique"), (700, "oblique"))
# Pango names a font by family, weight, style and stretch, and WeasyPrint embeds one font per
# name: under the family's name, weight and style, a fallback's glyphs would be written with
# the family's own file (or another fallback's). A stretch no stylesheet asks for gives each
# fallback family a name of its own (and puts it after the family's faces when fontconfig
# sorts them): the first fallback of fonts.yaml ultra-condensed, the next extra-condensed.
FALLBACK_STRETCHES = ("ultra-condensed", "extra-condensed")


def _nearest(faces: list[FontFace], weight: int, style: str = "normal") -> FontFace:
    """The face standing in for `weight` and `style`: of the same slant when the family has
    one (its italic for oblique), the heaviest no heavier than `weight`, else the lightest."""
    slanted = style != "normal"
    same = [face for face in faces if (face.style != "normal") == slanted] or faces
    lighter = [face for face in same if face.weight <= weight]
    return max(lighter, key=lambda face: face.weight) if lighter else \
        min(same, key=lambda face: face.weight)


def _rule(family: str, face: FontFace, weight: int, style: str = "normal",
          fallback: frozenset[int] = frozenset(), stretch: str = "") -> str:
    """One @font-face rule: `face` under `family`, at `weight` and `style`; a fallback draws
    only the characters `fallback` (its unicode-range), at its own `stretch`, so what the
    family has still comes from the family, and a game never names it."""
    extra = f"font-style: {style}; " if style != "normal" else ""
    if fallback:
        extra += f"font-stretch: {stretch}; "
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


def _codes(face: FontFace) -> frozenset[int]:
    """The code points a face has glyphs for: a pack's as read when it was checked."""
    return face.codes if face.codes is not None else _cmap(face.path)


def _cmap(path: Path) -> frozenset[int]:
    """The code points a font file maps to glyphs, read by HarfBuzz once a process and
    version of the file (milliseconds, where fontTools takes a tenth of a second on a CJK
    font); not kept on disk, as `pnp validate` writes nothing."""
    status = path.stat()
    return _unicodes(path, (status.st_mtime_ns, status.st_size))


@cache
def _unicodes(path: Path, stamp: tuple[int, int]) -> frozenset[int]:
    """`_cmap`, once per process and version of the file."""
    return frozenset(_harfbuzz_face(path, stamp).unicodes)


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
def _harfbuzz_face(path: Path, stamp: tuple[int, int]) -> Any:
    """A font file opened by HarfBuzz, once per process and version of the file (a pack's
    font may change while `pnp watch` runs)."""
    import uharfbuzz

    return uharfbuzz.Face(uharfbuzz.Blob.from_file_path(str(path)))


def subset_font(path: Path, text: str) -> bytes:
    """The font cut down to the characters of `text` (and those CSS may add), by HarfBuzz."""
    return cut_font(path, text)[0]


def cut_font(path: Path, text: str) -> tuple[bytes, list[int]]:
    """The font cut down to the characters of `text` (and those CSS may add), by HarfBuzz,
    and the glyph of the whole font each of its glyphs is.

    WeasyPrint subsets fonts too, but keeps every glyph id below the highest one used: from a
    full CJK font that is ~150 kB per face per document, from the cut-down font next to nothing.
    A CID-keyed CFF font's charset is made identity (glyph i is CID i), as the PDF's codes,
    which are glyph ids, need for MuPDF and Ghostscript.
    """
    status = path.stat()
    stamp = (status.st_mtime_ns, status.st_size)
    wanted = (ALWAYS | list_markers(text) | set(map(ord, set(text)))) & _unicodes(path, stamp)
    return _cut_to(path, stamp, frozenset(wanted))


@lru_cache(maxsize=32)
def _cut_to(path: Path, stamp: tuple[int, int], codes: frozenset[int]
            ) -> tuple[bytes, list[int]]:
    """`cut_font` to the code points of the font's that are wanted, kept for the parts that
    want the same ones (a Latin face behind Chinese text: its digits and punctuation)."""
    import uharfbuzz

    request = uharfbuzz.SubsetInput()
    request.unicode_set.update(sorted(codes))
    # every name but IDs 0-6 (HarfBuzz's default, inverted): the licence stays, and the
    # family names go, so that fontconfig never takes a face of ours for a generic family
    # (`sans-serif`), which would hide text drawn in no declared font (E083)
    request.sets(uharfbuzz.SubsetInputSets.NAME_ID).invert()
    request.flags = uharfbuzz.SubsetFlags.CFF_IDENTITY_CHARSET
    return _cut(path, request)


def cut_glyphs(path: Path, glyphs: Iterable[int]) -> tuple[bytes, list[int]]:
    """The font cut down to `glyphs` (ids of the whole font) for embedding in a PDF: no
    hinting, no layout tables, an identity charset; and the glyph of the whole font each of
    its glyphs is."""
    import uharfbuzz

    request = uharfbuzz.SubsetInput()
    request.glyph_set.update(glyphs)
    request.flags = (uharfbuzz.SubsetFlags.CFF_IDENTITY_CHARSET
                     | uharfbuzz.SubsetFlags.NO_HINTING
                     | uharfbuzz.SubsetFlags.NO_LAYOUT_CLOSURE)
    request.sets(uharfbuzz.SubsetInputSets.DROP_TABLE_TAG).update(
        _tag(tag) for tag in PDF_UNUSED_TABLES)
    return _cut(path, request)


PDF_UNUSED_TABLES = ("BASE", "DSIG", "GDEF", "GPOS", "GSUB", "JSTF", "LTSH", "PCLT", "SVG ",
                     "VORG", "vhea", "vmtx", "MATH", "meta")


def _tag(name: str) -> int:
    """An OpenType table tag as HarfBuzz's number."""
    return int.from_bytes(name.encode("latin-1"), "big")


def _cut(path: Path, request: Any) -> tuple[bytes, list[int]]:
    """A HarfBuzz subset of the font at `path`, and the old glyph of each new one."""
    import uharfbuzz

    status = path.stat()
    plan = uharfbuzz.SubsetPlan(_harfbuzz_face(path, (status.st_mtime_ns, status.st_size)),
                                request)
    data = plan.execute().blob.data
    old = plan.new_to_old_glyph_mapping
    return data, [old[index] for index in range(len(old))]


def face_key(path: Path) -> str:
    """A font file's name in the PDFs a build lays out, for the join to find it by (its path,
    size and time: never a path read back from a PDF)."""
    status = path.stat()
    return hashlib.sha256(f"{path}\0{status.st_size}\0{status.st_mtime_ns}".encode()
                          ).hexdigest()[:24]


def _resolve(source: str) -> Path | None:
    """Turn a registry source into a file path; None when its package is not installed."""
    if source.startswith("package:"):
        module, _, name = source.removeprefix("package:").partition("/")
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations))) / name
    return FONTS_DIR / source


REGISTRY = FONTS_DIR / "fonts.yaml"


def load_fonts(path: Path | None = None) -> FontRegistry:
    """Read the registry (fonts/fonts.yaml) and check that every file is present: a face of
    an optional extra whose package is not installed is left out, and its extra noted."""
    data = read_data_yaml(path or REGISTRY)
    faces, missing = [], set()
    for entry in data["faces"]:
        file = _resolve(entry["source"])
        if file is None and entry.get("extra"):
            missing.add(str(entry["extra"]))
            continue
        if file is None:
            raise FileNotFoundError(f"font package of '{entry['source']}' is not installed "
                                    "(run make)")
        if not file.is_file():
            raise FileNotFoundError(f"font file missing: {file} (run make)")
        faces.append(FontFace(entry["family"], int(entry["weight"]), file.resolve(),
                              bool(entry.get("fallback", False)), entry.get("style", "normal")))
    partners = {}
    for first, second in data.get("partners", {}).items():
        partners[first], partners[second] = second, first
    languages = tuple(FontLanguage(tag, str(entry["name"]), str(entry["extra"]),
                                   dict(entry.get("partners", {})))
                      for tag, entry in data.get("languages", {}).items())
    return FontRegistry(tuple(faces), partners, dict(data.get("behind", {})),
                        languages=languages, missing=frozenset(missing))


class FontUnusable(ValueError):
    """A font file of the pack's that cannot be used, and why."""


SFNT = (b"\x00\x01\x00\x00", b"OTTO", b"true")  # how TrueType and OpenType files begin
NO_EMBEDDING = 0x0002  # OS/2 fsType: restricted licence, when no other permission bit is set
BITMAP_ONLY = 0x0200  # OS/2 fsType: only bitmaps may be embedded
BOLD = 600  # from this weight on, a face is bold


def read_font(data: bytes, weight: int, style: str) -> frozenset[int]:
    """The code points of a pack's font file, checked: a TrueType or OpenType font with
    outlines and characters, that allows embedding, of the weight and style declared."""
    from fontTools.ttLib import TTFont

    if data[:4] not in SFNT:
        raise FontUnusable("is not a TrueType or OpenType font (.ttf, .otf)")
    try:
        with TTFont(BytesIO(data)) as font:
            codes = frozenset(font.getBestCmap() or ())
            outlines = any(tag in font for tag in ("glyf", "CFF ", "CFF2"))
            os2 = font.get("OS/2")
            mac_style = font["head"].macStyle
            fs_type = os2.fsType if os2 is not None else 0
            heavy = os2.usWeightClass if os2 is not None else 700 if mac_style & 1 else 400
            italic = bool(mac_style & 2 or (os2 is not None and os2.fsSelection & 0x201))
    except Exception as exc:  # fontTools raises many kinds on a damaged file
        reason = f"no '{exc.args[0]}' table" if isinstance(exc, KeyError) else \
            " ".join(str(exc).split())[:80] or type(exc).__name__
        raise FontUnusable(f"cannot be read as a font ({reason})") from None
    if not codes or not outlines:
        raise FontUnusable("has no characters or no outlines")
    if fs_type & 0x000F == NO_EMBEDDING or fs_type & BITMAP_ONLY:
        raise FontUnusable(f"does not allow embedding in a PDF (OS/2 fsType {fs_type:#06x})")
    if (weight >= BOLD) != (heavy >= BOLD):
        raise FontUnusable(f"is a face of weight {heavy}, but is declared weight {weight}")
    if italic != (style == "italic"):
        raise FontUnusable(f"is {'an italic' if italic else 'an upright'} face, but is "
                           f"declared {style}")
    return codes


POSTSCRIPT_NAME = re.compile(r"[A-Za-z0-9._-]{1,56}")


def face_name(path: Path) -> str | None:
    """The face's own PostScript name (name ID 6), when it has a sound one: what a PDF
    should call the face, rather than the family, weight and style the text asked for."""
    status = path.stat()
    return _face_name(path, (status.st_mtime_ns, status.st_size))


@cache
def _face_name(path: Path, stamp: tuple[int, int]) -> str | None:
    """`face_name`, once per process and version of the file."""
    from fontTools.ttLib import TTFont

    try:
        opened = TTFont(path, lazy=True, fontNumber=0)
        name = opened["name"].getDebugName(6) if "name" in opened else None
    except Exception:  # noqa: BLE001 - a face fontTools cannot read keeps WeasyPrint's name
        return None
    return name if name and POSTSCRIPT_NAME.fullmatch(name) else None


def identity_charset(font: bytes) -> bytes | None:
    """An embedded CID-keyed CFF font (OpenType) whose charset gives each glyph the CID of its
    own index, as a PDF's Identity-H codes (glyph indexes) need: MuPDF and Ghostscript look a
    code's glyph up through the charset, which a subset keeps from the whole font (CID 62741 at
    glyph 965). None when the font is not CID-keyed CFF or is identity already."""
    from fontTools.ttLib import TTFont

    opened = TTFont(io.BytesIO(font), lazy=True, recalcBBoxes=False, recalcTimestamp=False)
    if "CFF " not in opened:
        return None
    top = opened["CFF "].cff.topDictIndex[0]
    names = list(top.charset)
    identity = [".notdef", *(f"cid{index:05d}" for index in range(1, len(names)))]
    if not hasattr(top, "ROS") or names == identity:
        return None
    at = {name: index for index, name in enumerate(names)}
    strings = top.CharStrings
    strings.charStrings = {identity[at[name]]: kept for name, kept in strings.charStrings.items()}
    top.charset = identity
    opened.setGlyphOrder(identity)  # the other tables stay as they are, never decompiled
    out = io.BytesIO()
    opened.save(out)
    return out.getvalue()


Point = tuple[float, float]


def svg_contours(data: bytes, steps: int) -> list[tuple[list[Point], bool]]:
    """The contours of an SVG drawing's paths (fontTools' svgLib), each as points with every
    curve cut into `steps` straight segments, and whether it is closed; ValueError saying
    what is wrong with the file."""
    from fontTools.svgLib import SVGPath

    try:
        drawing = SVGPath.fromstring(data)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the file's
        raise ValueError(f"is not an SVG file ({exc})") from None
    pen = _FlatPen(steps)
    try:
        drawing.draw(pen)
    except Exception as exc:  # noqa: BLE001 - a path the parser cannot follow
        raise ValueError(f"has a path that cannot be read ({exc})") from None
    return pen.contours


class _FlatPen:
    """A fontTools pen that keeps each contour as straight segments."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.contours: list[tuple[list[Point], bool]] = []
        self.points: list[Point] = []

    def moveTo(self, point: Point) -> None:  # noqa: N802 - the pen protocol's names
        self._end(False)
        self.points = [point]

    def lineTo(self, point: Point) -> None:  # noqa: N802
        self.points.append(point)

    def curveTo(self, *points: Point) -> None:  # noqa: N802
        start = self.points[-1]
        for c1, c2, end in _cubics(start, points):
            for step in range(1, self.steps + 1):
                t = step / self.steps
                u = 1 - t
                self.points.append(tuple(  # type: ignore[arg-type]
                    u ** 3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t ** 3 * d
                    for a, b, c, d in zip(start, c1, c2, end, strict=True)))
            start = end

    def qCurveTo(self, *points: Point) -> None:  # noqa: N802
        start = self.points[-1]
        controls, end = points[:-1], points[-1]
        for index, control in enumerate(controls):  # implied on-curve points between controls
            stop = end if index == len(controls) - 1 else (
                (control[0] + controls[index + 1][0]) / 2,
                (control[1] + controls[index + 1][1]) / 2)
            for step in range(1, self.steps + 1):
                t = step / self.steps
                u = 1 - t
                self.points.append((u * u * start[0] + 2 * u * t * control[0] + t * t * stop[0],
                                    u * u * start[1] + 2 * u * t * control[1] + t * t * stop[1]))
            start = stop

    def closePath(self) -> None:  # noqa: N802
        self._end(True)

    def endPath(self) -> None:  # noqa: N802
        self._end(False)

    def _end(self, shut: bool) -> None:
        if self.points:
            self.contours.append((self.points, shut))
        self.points = []


def _cubics(start: Point, points: tuple[Point, ...]) -> list[tuple[Point, Point, Point]]:
    """A pen's curveTo points as cubic segments (two controls and an end each)."""
    if len(points) == 3:
        return [(points[0], points[1], points[2])]
    from fontTools.pens.basePen import decomposeSuperBezierSegment

    return decomposeSuperBezierSegment(list(points))
