"""Stage 5, assemble: laid-out parts become one output file, with pikepdf (qpdf).

The only module that imports pikepdf. It joins parts in order (their outlines carried over,
links from one part into another resolved), draws each card face into the boxes left for it
as a PDF form copied once per file, prints an overlay's pages over the parts' (the rulebook's
folios), imposes the booklet, and sets the viewer preferences of every output, one way: print
at 100 %, and flip duplex pages as the output asks. pikepdf copies pages without parsing their
drawing, a few times faster than pypdf; every PDF is saved with a file id made from its
content, so the same input gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import re
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..plan.geometry import Box
from ..plan.parts import FaceBox, LaidOut

if TYPE_CHECKING:
    from .cmyk import Colours

MM = 72 / 25.4  # PDF points per millimetre
KAPPA = 0.5523  # a quarter circle as one Bezier curve: control points this far along the tangents
LONG_EDGE = "/DuplexFlipLongEdge"  # portrait sheets printed on both sides
SHORT_EDGE = "/DuplexFlipShortEdge"  # landscape sheets printed on both sides (the booklet)
SIMPLEX = "/Simplex"  # a file with no backs: printed on both sides, its pieces would clash


@dataclass(frozen=True)
class FaceSource:
    """Where a face to draw is laid out: its faces part's PDF, the page at whose top it sits,
    and its width and height in points."""

    pdf: bytes
    page: int
    width: float
    height: float


def join(parts: list[LaidOut], faces: dict[str, FaceSource], overlay: LaidOut | None = None,
         duplex: str | None = LONG_EDGE, fonts: Mapping[str, Path] | None = None,
         recodings: Recodings | None = None, title: str | None = None) -> bytes:
    """One PDF of the parts' pages in order, each under the overlay's page of the same number,
    titled `title` (by default as its first part), with every part's outline, and the links
    from one part into another; each face drawn into the boxes the parts left for it, and
    each face of `fonts` (their files by `fonts.face_key`) embedded once, its text recoded
    (through `recodings`, when given, what an earlier join of the file recoded)."""
    import pikepdf

    joined = pikepdf.Pdf.new()
    sources = [pikepdf.open(io.BytesIO(part.pdf)) for part in parts]  # open until saved
    outline: list = []
    copied: list = []
    for part in sources:
        if "/Outlines" in part.Root:  # not on sheets, faces or plain pages
            where = {page.objgen: index for index, page in enumerate(part.pages)}
            with part.open_outline() as items:
                outline += [_moved(item, where, len(copied)) for item in items.root]
        copied += [joined.copy_foreign(page.obj) for page in part.pages]
    pages = _set_pages(joined, copied)
    for key in ("/Title", "/Producer"):
        if key in sources[0].docinfo:
            joined.docinfo[key] = sources[0].docinfo[key]
    if title is not None:  # a part shared by every language has the first one's title
        joined.docinfo["/Title"] = pikepdf.String(title)
    placed = _placed(parts)
    if placed:
        _draw_placed(joined, pages, placed, faces, sources)
    if overlay is not None:
        sources.append(pikepdf.open(io.BytesIO(overlay.pdf)))
        for page, folio in zip(pages, sources[-1].pages, strict=True):
            _overlay(joined, page, joined.copy_foreign(folio.as_form_xobject()))
    with joined.open_outline() as items:
        items.root.extend(outline)
    for index, rectangle, target in _links(parts):
        annotated = pages[index].obj
        if "/Annots" not in annotated:
            annotated.Annots = pikepdf.Array()
        annotated.Annots.append(joined.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=rectangle,
            Border=[0, 0, 0], Dest=[pages[target].obj, pikepdf.Name.Fit])))
    _one_font_per_face(joined, fonts or {}, recodings or Recodings())
    _prefer(joined, duplex)
    data = _saved(joined)
    for part in sources:
        part.close()
    return data


def _set_pages(pdf: Any, pages: list[Any]) -> list[Any]:
    """Make page objects (of `pdf` already) the pages of a new, empty `pdf` at once, and
    return them as pages: pikepdf adds a page, or finds one by its number, in a time that
    grows with the pages already there (10,000 pages took seconds, a page at a time)."""
    import pikepdf

    tree = pdf.Root.Pages
    for page in pages:
        page.Parent = tree
    tree.Kids = pikepdf.Array(pages)
    tree.Count = len(pages)
    return list(pdf.pages)


def _placed(parts: list[LaidOut]) -> list[FaceBox]:
    """Every face box of the parts, its page counted over the whole output."""
    placed, pages = [], 0
    for part in parts:
        placed += [face._replace(page=pages + face.page) for face in part.faces]
        pages += part.pages
    return placed


def _links(parts: list[LaidOut]) -> list[tuple[int, list[float], int]]:
    """Links from one part to an anchor in another: (page, rectangle, target page), counted
    over the whole output."""
    pages, where, pending = 0, dict[str, int](), []
    for part in parts:
        for anchor, index in part.anchors.items():
            where.setdefault(anchor, pages + index)
        pending += [(pages + link.page, link.anchor, link.rectangle) for link in part.links]
        pages += part.pages
    return [(page, rectangle, where[anchor]) for page, anchor, rectangle in pending
            if anchor in where]


def finish(pdf: bytes, duplex: str | None = None) -> bytes:
    """A PDF drawn elsewhere (the dice, by reportlab), with this module's viewer preferences
    and its title kept, saved as every other output is."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as source:
        finished = pikepdf.Pdf.new()
        finished.pages.extend(source.pages)
        for page in finished.pages:
            _drop_unused_fonts(finished, page)
        if "/Title" in source.docinfo:
            finished.docinfo["/Title"] = source.docinfo["/Title"]
        _prefer(finished, duplex)
        return _saved(finished)


TEXT_SHOWN = {"Tj", "TJ", "'", '"'}


def _drop_unused_fonts(pdf: Any, page: Any) -> None:
    """Take out text objects that show no text (reportlab opens every page with one naming
    Helvetica) and, when no text is left, the page's fonts: a font never drawn is never
    embedded, and print shops' preflight rejects a font that is not."""
    import pikepdf

    kept: list[Any] = []
    block: list[Any] = []  # the text object being read
    for instruction in pikepdf.parse_content_stream(page):
        name = str(instruction.operator)
        if name == "BT" or block:
            block.append(instruction)
            if name == "ET":
                if any(str(each.operator) in TEXT_SHOWN for each in block):
                    kept += block
                block = []
            continue
        kept.append(instruction)
    if not any(str(each.operator) in TEXT_SHOWN for each in kept):
        page.Contents = pdf.make_stream(pikepdf.unparse_content_stream(kept))
        if "/Font" in page.Resources:
            del page.Resources["/Font"]


def _prefer(pdf: Any, duplex: str | None) -> None:
    """Ask viewers to print at 100 %, on both sides flipped as `duplex` says, or, for a file
    with no backs, on one side."""
    import pikepdf

    preferences = pikepdf.Dictionary(PrintScaling=pikepdf.Name("/None"),
                                     Duplex=pikepdf.Name(duplex or SIMPLEX))
    pdf.Root.ViewerPreferences = preferences


FACE = "/PnpFace"  # a part's font descriptor: the key of the whole font it was cut from
GLYPHS = "/PnpGlyphs"  # and the glyph of the whole font each of its codes is, two bytes each


def embedded_fonts(data: bytes, names: Mapping[str, str] | None = None,
                   marks: Mapping[str, tuple[str, list[int]]] | None = None) -> bytes:
    """A laid-out PDF whose fonts are called by `names` (WeasyPrint's name, such as
    "ABCDEF+Noto-Sans-SC-Oblique", to the face's own, "ABCDEF+NotoSansSC-Regular") and marked
    by `marks` with the whole font each was cut from, for `join` to embed each face once.
    Given neither (the fonts are whole files, not cut by pnp with an identity charset), each
    CID-keyed CFF font's charset is made identity, so every reader (MuPDF and Ghostscript
    too, not only Poppler and PDFium) draws the glyphs the page asks for. The same bytes when
    nothing needs it."""
    import pikepdf

    from ..text.fonts import identity_charset

    whole = names is None and marks is None
    renamed = {pikepdf.Name("/" + old): pikepdf.Name("/" + new)
               for old, new in (names or {}).items()}
    marked = {pikepdf.Name("/" + name): mark for name, mark in (marks or {}).items()}
    pdf = pikepdf.open(io.BytesIO(data))
    changed = False
    for font in pdf.objects:
        if not isinstance(font, pikepdf.Dictionary):
            continue
        given = font.get("/FontName")
        if font.get("/Type") == "/FontDescriptor" and isinstance(given, pikepdf.Name) \
                and given in marked:
            key, glyphs = marked[given]
            font[FACE] = pikepdf.String(key)
            font[GLYPHS] = pikepdf.String(struct.pack(f">{len(glyphs)}H", *glyphs))
            changed = True
        for name in ("/BaseFont", "/FontName"):  # a font, a CID font, a font descriptor
            given = font.get(name)
            if isinstance(given, pikepdf.Name) and given in renamed:
                font[name] = renamed[given]
                changed = True
        if whole and font.get("/Type") == "/FontDescriptor" and "/FontFile3" in font:
            try:
                rewritten = identity_charset(font.FontFile3.read_bytes())
            except Exception:  # noqa: BLE001 - a font fontTools cannot read stays as it is
                rewritten = None
            if rewritten is not None:
                font.FontFile3.write(rewritten)
                changed = True
    return _saved(pdf) if changed else data


def _one_font_per_face(pdf: Any, fonts: Mapping[str, Path], recodings: Recodings) -> None:
    """Embed each face once in a joined PDF: every part embeds its own subset of a face, so
    the fonts marked with the same whole font become one, cut from that font to the glyphs
    they draw together, and every text they show is written in its glyph ids. A font whose
    whole font is not among `fonts` stays as it is; the marks are taken out."""
    import pikepdf

    from ..text.fonts import cut_glyphs, face_name

    groups: dict[str, list[Any]] = {}
    for font in pdf.objects:
        if isinstance(font, pikepdf.Dictionary) and font.get("/Subtype") == "/Type0":
            descriptor = font.DescendantFonts[0].get("/FontDescriptor")
            if descriptor is not None and FACE in descriptor \
                    and font.get("/Encoding") == "/Identity-H":
                groups.setdefault(str(descriptor[FACE]), []).append(font)
    recoded: dict[tuple[int, int], tuple[Any, dict[int, int]]] = {}
    for key, members in sorted(groups.items()):
        path = fonts.get(key)
        if path is None or not path.is_file():
            continue
        used = {objgen: _used_glyphs(font) for font in members
                for objgen in [font.objgen]}
        wanted = sorted({0} | {glyph for glyphs in used.values() for glyph, _ in glyphs.values()})
        data, old = cut_glyphs(path, wanted)
        new = {glyph: index for index, glyph in enumerate(old)}
        merged = _merged_font(pdf, members, data, new, used, face_name(path))
        for font in members:
            recoded[font.objgen] = merged, {code: new[glyph]
                                            for code, (glyph, _) in used[font.objgen].items()}
    if recoded:
        _recode_text(pdf, recoded, recodings)
    for font in pdf.objects:
        if isinstance(font, pikepdf.Dictionary) and FACE in font:
            del font[FACE], font[GLYPHS]


def _used_glyphs(font: Any) -> dict[int, tuple[int, float]]:
    """A marked part font's codes that it has a width for (the glyphs it draws), each to the
    glyph of the whole font it is, and its width."""
    descendant = font.DescendantFonts[0]
    raw = bytes(descendant.FontDescriptor[GLYPHS])
    glyphs = struct.unpack(f">{len(raw) // 2}H", raw[:len(raw) // 2 * 2])
    return {code: (glyphs[code], width)
            for code, width in _widths(descendant.get("/W", [])).items() if code < len(glyphs)}


def _widths(array: Any) -> dict[int, float]:
    """A CID font's W array read: each code's width."""
    import pikepdf

    widths: dict[int, float] = {}
    items, index = list(array), 0
    while index + 1 < len(items):
        first = int(items[index])
        if isinstance(items[index + 1], pikepdf.Array):
            for offset, width in enumerate(items[index + 1]):
                widths[first + offset] = float(width)
            index += 2
        else:
            for code in range(first, int(items[index + 1]) + 1):
                widths[code] = float(items[index + 2])
            index += 3
    return widths


def _merged_font(pdf: Any, members: list[Any], data: bytes, new: dict[int, int],
                 used: dict[tuple[int, int], dict[int, tuple[int, float]]], face: str | None
                 ) -> Any:
    """One Type0 font of the face the members were cut from, its file `data`: the first
    member's dictionaries, with every member's widths and text mapping in the new glyph ids."""
    import pikepdf

    first = members[0]
    widths: dict[int, float] = {}
    unicode: dict[int, bytes] = {}
    for font in members:
        glyphs = used[font.objgen]
        for glyph, width in glyphs.values():
            widths.setdefault(new[glyph], width)
        if "/ToUnicode" in font:
            for code, text in _to_unicode(font.ToUnicode.read_bytes()).items():
                if code in glyphs:
                    unicode.setdefault(new[glyphs[code][0]], text)
    tag = "".join(chr(65 + byte % 26) for byte in hashlib.sha256(data).digest()[:6])
    name = pikepdf.Name(f"/{tag}+{face or str(first.BaseFont).split('+')[-1]}")
    descriptor = pikepdf.Dictionary(first.DescendantFonts[0].FontDescriptor)
    file_key = next(key for key in ("/FontFile3", "/FontFile2", "/FontFile") if key in descriptor)
    stream = pikepdf.Stream(pdf, data)
    if file_key == "/FontFile3":
        stream.Subtype = pikepdf.Name.OpenType
    descriptor[file_key] = pdf.make_indirect(stream)
    descriptor.FontName = name
    for key in (FACE, GLYPHS, "/CIDSet"):
        if key in descriptor:
            del descriptor[key]
    boxes = [font.DescendantFonts[0].FontDescriptor.FontBBox for font in members]
    descriptor.FontBBox = [min(float(box[0]) for box in boxes),
                           min(float(box[1]) for box in boxes),
                           max(float(box[2]) for box in boxes),
                           max(float(box[3]) for box in boxes)]
    descendant = pikepdf.Dictionary(first.DescendantFonts[0])
    descendant.BaseFont = name
    descendant.FontDescriptor = pdf.make_indirect(descriptor)
    descendant.W = _width_array(widths)
    merged = pikepdf.Dictionary(first)
    merged.BaseFont = name
    merged.DescendantFonts = [pdf.make_indirect(descendant)]
    if unicode:
        merged.ToUnicode = pdf.make_stream(_cmap(unicode))
    return pdf.make_indirect(merged)


def _width_array(widths: dict[int, float]) -> list[Any]:
    """A W array: each run of consecutive glyph ids as `first [widths…]`."""
    out: list[Any] = []
    for glyph in sorted(widths):
        if glyph - 1 not in widths:
            out += [glyph, []]
        out[-1].append(round(widths[glyph], 3))
    return out


HEX = re.compile(rb"<([0-9A-Fa-f]+)>")


def _to_unicode(cmap: bytes) -> dict[int, bytes]:
    """A ToUnicode CMap read: each code's text, as UTF-16BE bytes."""
    found: dict[int, bytes] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        values = [bytes.fromhex(value.decode()) for value in HEX.findall(block)]
        for code, text in zip(values[::2], values[1::2], strict=False):
            found[int.from_bytes(code, "big")] = text
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for line in re.findall(rb"<[0-9A-Fa-f]+>\s*<[0-9A-Fa-f]+>\s*(?:<[0-9A-Fa-f]+>|\[[^\]]*\])",
                               block):
            values = [bytes.fromhex(value.decode()) for value in HEX.findall(line)]
            low, high = int.from_bytes(values[0], "big"), int.from_bytes(values[1], "big")
            if b"[" in line:
                found.update(zip(range(low, high + 1), values[2:], strict=False))
            else:
                start = int.from_bytes(values[2], "big")
                found.update((code, (start + code - low).to_bytes(len(values[2]), "big"))
                             for code in range(low, high + 1))
    return found


def _cmap(unicode: dict[int, bytes]) -> bytes:
    """A ToUnicode CMap of two-byte glyph ids."""
    lines = [b"/CIDInit /ProcSet findresource begin", b"12 dict begin", b"begincmap",
             b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
             b"/CMapName /Adobe-Identity-UCS def", b"/CMapType 2 def",
             b"1 begincodespacerange", b"<0000> <ffff>", b"endcodespacerange"]
    codes = sorted(unicode)
    for start in range(0, len(codes), 100):
        batch = codes[start:start + 100]
        lines.append(f"{len(batch)} beginbfchar".encode())
        lines += [f"<{code:04x}> <{unicode[code].hex()}>".encode() for code in batch]
        lines.append(b"endbfchar")
    lines += [b"endcmap", b"CMapName currentdict /CMap defineresource pop", b"end", b"end"]
    return b"\n".join(lines)


class Recodings:
    """Drawings an earlier join of a file recoded, by a hash of what each was and of the new
    codes of its fonts, and those this join recodes, kept for the next: after an edit that
    gives the file no new glyph, only the drawings the edit changed are read again."""

    def __init__(self, kept: bytes = b""):
        self.earlier: dict[bytes, bytes] = {}
        self.now: dict[bytes, bytes] = {}
        at = 0
        while at + RECODING_HEAD <= len(kept):  # a key, the length, the drawing; a part cut
            key, size = kept[at:at + 32], int.from_bytes(kept[at + 32:at + RECODING_HEAD], "big")
            at += RECODING_HEAD
            if at + size <= len(kept):
                self.earlier[key] = kept[at:at + size]
            at += size

    def keep(self, key: bytes, data: bytes) -> None:
        """Keep a drawing recoded in this join for the next."""
        self.now[key] = data

    def packed(self) -> bytes:
        """What this join recoded, to keep."""
        return b"".join(key + len(data).to_bytes(RECODING_HEAD - 32, "big") + data
                        for key, data in self.now.items())


RECODING_HEAD = 36  # a kept drawing's SHA-256 key and its length in four bytes


def _recode_text(pdf: Any, recoded: dict[tuple[int, int], tuple[Any, dict[int, int]]],
                 recodings: Recodings) -> None:
    """Write the text every page and form shows in a recoded font in its merged font's
    glyph ids, and name the merged font in their resources instead."""
    import pikepdf

    drawings: list[tuple[Any, Any]] = []  # each page or form drawing text, and its fonts
    seen: set[tuple[int, int]] = set()
    pending = [page.obj for page in pdf.pages]
    while pending:
        owner = pending.pop()
        if owner.is_indirect:
            if owner.objgen in seen:
                continue
            seen.add(owner.objgen)
        resources = owner.get("/Resources", pikepdf.Dictionary())
        for xobject in resources.get("/XObject", pikepdf.Dictionary()).values():
            if xobject.get("/Subtype") == "/Form":
                pending.append(xobject)
        fonts = resources.get("/Font", pikepdf.Dictionary())
        if any(font.objgen in recoded for font in fonts.values()):
            drawings.append((owner, fonts))
    digests = {objgen: hashlib.sha256(struct.pack(f">{len(codes) * 2}I", *itertools.chain(
        *sorted(codes.items())))).digest() for objgen, (_, codes) in recoded.items()}
    for owner, fonts in drawings:  # every drawing first, while the resources are the parts'
        used = sorted((str(name), font.objgen) for name, font in fonts.items()
                      if font.objgen in recoded)
        by_name = {name: recoded[objgen][1] for name, objgen in used}
        if isinstance(owner, pikepdf.Stream):
            data = owner.read_bytes()
        else:
            contents = owner.Contents
            streams = contents if isinstance(contents, pikepdf.Array) else [contents]
            data = b"\n".join(stream.read_bytes() for stream in streams)
        key = hashlib.sha256(data + b"".join(name.encode("latin-1") + digests[objgen]
                                             for name, objgen in used)).digest()
        data = recodings.earlier.get(key) or _recoded_drawing(owner, data, by_name)
        recodings.keep(key, data)
        if isinstance(owner, pikepdf.Stream):
            owner.write(data)
        else:
            owner.Contents = pdf.make_stream(data)
    for _, fonts in drawings:
        for name in list(fonts.keys()):
            if fonts[name].objgen in recoded:
                fonts[name] = recoded[fonts[name].objgen][0]


# What recoding a drawing reads: a font set (`/F1 9 Tf`), a hex string (the codes shown), q or
# Q, and a literal string or a dictionary's `<<`, read past so that nothing in them is taken
# for the others.
TEXT_STATE = re.compile(rb"(?=[/<qQ(])(?:(/[^\s/\[\]()<>{}%]+)\s+[-+\d.]+\s+Tf(?=\s|$)|<<"
                        rb"|<([0-9A-Fa-f\s]*)>|(?<![^\s\]\[>)])([qQ])(?=\s|$)|\((?:\\.|[^\\)])*\))")
INLINE_IMAGE = re.compile(rb"(?<![^\s])BI(?=\s)")


def _recoded_drawing(owner: Any, data: bytes, fonts: dict[str, dict[int, int]]) -> bytes:
    """The content `data` of one page or form with the strings it shows in the `fonts` given,
    two-byte codes each, rewritten through each font's map of codes (the font in use followed
    through q and Q). Read as bytes, a few times faster than as parsed instructions; one with
    an inline image, whose data could look like anything, is parsed."""
    if INLINE_IMAGE.search(data):
        return _recode_parsed(owner, fonts)
    by_name = {name.encode("latin-1"): codes for name, codes in fonts.items()}
    state: list[dict[int, int] | None] = [None]  # the font in use, then those q saved

    def recode(match: re.Match[bytes]) -> bytes:
        font, shown, saving = match.group(1), match.group(2), match.group(3)
        if font is not None:
            state[-1] = by_name.get(font)
        elif saving == b"q":
            state.append(state[-1])
        elif saving == b"Q" and len(state) > 1:
            state.pop()
        elif shown is not None and state[-1] is not None:
            codes, raw = state[-1], bytes.fromhex(shown.decode("latin-1"))
            return b"<" + b"".join(
                codes.get(int.from_bytes(raw[at:at + 2], "big"), 0).to_bytes(2, "big")
                for at in range(0, len(raw) - 1, 2)).hex().encode() + b">"
        return match.group(0)

    return TEXT_STATE.sub(recode, data)


def _recode_parsed(owner: Any, fonts: dict[str, dict[int, int]]) -> bytes:
    """`_recoded_drawing` by pikepdf's parser: the drawing's new content."""
    import pikepdf

    current: dict[int, int] | None = None
    saved: list[dict[int, int] | None] = []
    out: list[Any] = []
    for instruction in pikepdf.parse_content_stream(owner):
        if isinstance(instruction, pikepdf.ContentStreamInlineImage):
            out.append(instruction)
            continue
        operands, operator = list(instruction.operands), instruction.operator
        name = str(operator)
        if name == "q":
            saved.append(current)
        elif name == "Q":
            current = saved.pop() if saved else None
        elif name == "Tf":
            current = fonts.get(str(operands[0]))
        elif current is not None and name in TEXT_SHOWN:
            operands = [_recoded(operand, current) for operand in operands]
        out.append(pikepdf.ContentStreamInstruction(operands, operator))
    return bytes(pikepdf.unparse_content_stream(out))


def _recoded(operand: Any, codes: dict[int, int]) -> Any:
    """A string of two-byte codes in new codes, or an array of such strings and spacing."""
    import pikepdf

    if isinstance(operand, pikepdf.String):
        raw = bytes(operand)
        return pikepdf.String(b"".join(
            codes.get(int.from_bytes(raw[at:at + 2], "big"), 0).to_bytes(2, "big")
            for at in range(0, len(raw) - 1, 2)))
    if isinstance(operand, pikepdf.Array):
        return pikepdf.Array([_recoded(item, codes) for item in operand])
    return operand


def _saved(pdf: Any) -> bytes:
    """A PDF's bytes, the same for the same content (no random file id), objects compressed."""
    import pikepdf

    buffer = io.BytesIO()
    pdf.save(buffer, deterministic_id=True, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return buffer.getvalue()


def _draw_placed(joined: Any, shown: list[Any], placed: list[FaceBox],
                 faces: dict[str, FaceSource], sources: list[Any]) -> None:
    """Draw every placed face, each face's page copied into the file once, cut to the face."""
    import pikepdf

    opened: dict[bytes, list[Any]] = {}  # each faces part's pages
    forms: dict[str, Any] = {}
    pages: dict[int, list[FaceBox]] = {}
    for face in placed:
        if face.key not in forms:
            source = faces[face.key]
            if source.pdf not in opened:
                sources.append(pikepdf.open(io.BytesIO(source.pdf)))  # closed once saved
                opened[source.pdf] = list(sources[-1].pages)
            form = joined.copy_foreign(opened[source.pdf][source.page].as_form_xobject())
            top = float(form.BBox[3])
            form.BBox = [0, round(top - source.height, 3), round(source.width, 3), top]
            forms[face.key] = form
        pages.setdefault(face.page, []).append(face)
    _draw_faces(joined, shown, pages, forms)


def _draw_faces(pdf: Any, shown: list[Any], pages: dict[int, list[FaceBox]],
                forms: dict[str, Any]) -> None:
    """Draw each page's faces under everything else on it: each face's form scaled into its
    box and cut to its clip. `shown` are the pages of `pdf`; `forms` holds each face's form
    XObject, in `pdf` already, its bounding box the face's own."""
    import pikepdf

    for index, placed in sorted(pages.items()):
        page = shown[index]
        drawing = []
        for number, face in enumerate(placed):
            matrix = _face_matrix([float(value) for value in forms[face.key].BBox], face.box,
                                  face.turn, face.mirror)
            x0_, y0_, x1_, y1_ = face.clip
            clip = _outline_path(face.outline) if face.outline else \
                _clip_path(x0_, y0_, x1_, y1_, face.radius)
            drawing.append(f"q {clip} {matrix} cm /Face{number} Do Q")
        _add_forms(page, {f"/Face{number}": forms[face.key] for number, face in enumerate(placed)})
        page.contents_add(pikepdf.Stream(pdf, ("\n".join(drawing) + "\n").encode()),
                          prepend=True)


def _face_matrix(bbox: list[float], box: list[float], turn: int, mirror: bool = False) -> str:
    """The `cm` operands that draw a form whose bounding box is `bbox` into `box` (both left,
    bottom, right, top), turned `turn` degrees clockwise as seen on the page; with `mirror`,
    flipped left to right first."""
    x0, y0, x1, y1 = bbox
    left, bottom, right, top = box
    width, height = x1 - x0, y1 - y0
    if turn % 180:
        sx, sy = (right - left) / height, (top - bottom) / width
    else:
        sx, sy = (right - left) / width, (top - bottom) / height
    a, b, c, d, e, f = {
        0: (sx, 0, 0, sy, left - sx * x0, bottom - sy * y0),
        90: (0, -sy, sx, 0, left - sx * y0, top + sy * x0),
        180: (-sx, 0, 0, -sy, right + sx * x0, top + sy * y0),
        270: (0, sy, -sx, 0, right + sx * y0, bottom - sy * x0),
    }[turn]
    if mirror:  # x becomes x0 + x1 - x in the form's own space, before the rest
        a, b, e, f = -a, -b, e + a * (x0 + x1), f + b * (x0 + x1)
    return " ".join(f"{value:.6f}" if index < 4 else f"{value:.3f}"
                    for index, value in enumerate((a, b, c, d, e, f)))


def _clip_path(x0: float, y0: float, x1: float, y1: float, radius: float) -> str:
    """A rectangle, its corners rounded by `radius`, as a PDF clipping path."""
    if radius <= 0:
        return f"{x0:.3f} {y0:.3f} {x1 - x0:.3f} {y1 - y0:.3f} re W n"
    r, k = radius, radius * (1 - KAPPA)
    return " ".join([
        f"{x0 + r:.3f} {y0:.3f} m {x1 - r:.3f} {y0:.3f} l",
        f"{x1 - k:.3f} {y0:.3f} {x1:.3f} {y0 + k:.3f} {x1:.3f} {y0 + r:.3f} c",
        f"{x1:.3f} {y1 - r:.3f} l",
        f"{x1:.3f} {y1 - k:.3f} {x1 - k:.3f} {y1:.3f} {x1 - r:.3f} {y1:.3f} c",
        f"{x0 + r:.3f} {y1:.3f} l",
        f"{x0 + k:.3f} {y1:.3f} {x0:.3f} {y1 - k:.3f} {x0:.3f} {y1 - r:.3f} c",
        f"{x0:.3f} {y0 + r:.3f} l",
        f"{x0:.3f} {y0 + k:.3f} {x0 + k:.3f} {y0:.3f} {x0 + r:.3f} {y0:.3f} c h W n"])


def _outline_path(points: tuple[float, ...]) -> str:
    """A polygon (x, y pairs in PDF points) as a PDF clipping path."""
    pairs = [f"{points[index]:.3f} {points[index + 1]:.3f}" for index in range(0, len(points), 2)]
    return f"{pairs[0]} m " + " ".join(f"{pair} l" for pair in pairs[1:]) + " h W n"


def _add_forms(page: Any, forms: dict[str, Any]) -> None:
    """Give a page forms to draw, each under a fixed name (pikepdf's own overlays name theirs
    at random, and the same input must give the same bytes)."""
    import pikepdf

    resources = pikepdf.Dictionary(cast(Mapping[str, Any], page.obj.get("/Resources") or {}))
    xobjects = pikepdf.Dictionary(cast(Mapping[str, Any], resources.get("/XObject") or {}))
    xobjects.update(forms)
    resources["/XObject"] = xobjects
    page.obj["/Resources"] = resources


def _overlay(pdf: Any, page: Any, form: Any) -> None:
    """Draw a form over a page of the same size."""
    import pikepdf

    _add_forms(page, {"/Folio": form})
    page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
    page.contents_add(pikepdf.Stream(pdf, b"\nQ q /Folio Do Q\n"))


def _moved(item: Any, where: dict, offset: int) -> Any:
    """An outline entry pointing at the same spot of the same page, now `offset` pages on."""
    import pikepdf

    target = item.destination
    if isinstance(target, pikepdf.Array) and len(target) >= 4 and target[0].objgen in where:
        top = float(target[3]) if target[1] == pikepdf.Name.XYZ else None
        moved = pikepdf.OutlineItem(item.title, where[target[0].objgen] + offset,
                                    pikepdf.PageLocation.XYZ if top is not None else None,
                                    top=top, left=float(target[2]))
    else:
        moved = pikepdf.OutlineItem(item.title)
    moved.children.extend(_moved(child, where, offset) for child in item.children)
    return moved


def print_boxes(pdf: bytes, bleed: float, trim: float) -> bytes:
    """A PDF whose every page has its BleedBox `bleed` pt and its TrimBox `trim` pt inside
    the page's edges, as print shops read where to cut and how far the art runs past it."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as document:
        for page in document.pages:
            x0, y0, x1, y1 = (float(value) for value in page.mediabox)
            page.obj.BleedBox = _inset(x0, y0, x1, y1, bleed)
            page.obj.TrimBox = _inset(x0, y0, x1, y1, trim)
        return _saved(document)


DIE_SPACE, DIE_LAYER, DIE_STATE = "/PnpDieSpace", "/PnpDieLayer", "/PnpDieState"


def die_lines(pdf: bytes, outlines: list[list[tuple[float, float]] | None], spot: str,
              width: float, alternate: tuple[float, float, float, float], layer: bool) -> bytes:
    """A PDF with each page's cut path (`outlines`, a polygon in mm from the page's top left
    corner, or None for none) stroked `width` pt wide in the Separation colour `spot`, its
    alternate CMYK `alternate`, overprinting what is under it: a separate vector path a
    print-and-cut RIP takes as the cutter's, on an optional-content layer named after the
    spot when `layer` (PDF 1.5 on; PDF/X-1a, PDF 1.3, has no layers). Saved as it was
    otherwise (no object streams: a PDF 1.3 file stays 1.3)."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as document:
        separation = document.make_indirect(pikepdf.Array([
            pikepdf.Name.Separation, pikepdf.Name("/" + spot), pikepdf.Name.DeviceCMYK,
            pikepdf.Dictionary(FunctionType=2, Domain=[0, 1], C0=[0, 0, 0, 0],
                               C1=list(alternate), N=1)]))
        state = document.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, OP=True,
                                                           op=True, OPM=1))
        group = document.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.OCG, Name=spot))
        for page, points in zip(document.pages, outlines, strict=True):
            if not points:
                continue
            height = float(page.mediabox[3])
            path = " ".join(f"{x * MM:.3f} {height - y * MM:.3f} {'m' if index == 0 else 'l'}"
                            for index, (x, y) in enumerate(points))
            stroke = f"q {DIE_STATE} gs {DIE_SPACE} CS 1 SCN {width:g} w 0 J 0 j {path} h S Q"
            if layer:
                stroke = f"/OC {DIE_LAYER} BDC {stroke} EMC"
            resources = pikepdf.Dictionary(cast(Mapping[str, Any],
                                                page.obj.get("/Resources") or {}))
            for kind, name, value in (("/ColorSpace", DIE_SPACE, separation),
                                      ("/ExtGState", DIE_STATE, state),
                                      ("/Properties", DIE_LAYER, group)):
                if kind != "/Properties" or layer:
                    entries = pikepdf.Dictionary(cast(Mapping[str, Any],
                                                      resources.get(kind) or {}))
                    entries[name] = value
                    resources[kind] = entries
            page.obj["/Resources"] = resources
            page.contents_add(pikepdf.Stream(document, b"q\n"), prepend=True)
            page.contents_add(pikepdf.Stream(document, f"\nQ\n{stroke}\n".encode()))
        if layer:
            document.Root.OCProperties = pikepdf.Dictionary(
                OCGs=[group], D=pikepdf.Dictionary(Order=[group], ON=[group],
                                                   Name=spot))
        buffer = io.BytesIO()
        document.save(buffer, deterministic_id=True,
                      object_stream_mode=pikepdf.ObjectStreamMode.preserve)
        return buffer.getvalue()


def _inset(x0: float, y0: float, x1: float, y1: float, by: float) -> list[float]:
    """A rectangle `by` pt inside another, each side rounded to a thousandth of a point."""
    return [round(x0 + by, 3), round(y0 + by, 3), round(x1 - by, 3), round(y1 - by, 3)]


def impose_booklet(pdf: bytes, sheet: Box, order: list[tuple[int | None, int | None]]) -> bytes:
    """Place a PDF's pages two up on landscape `sheet`s, in the given (left, right) order;
    each side's TrimBox and BleedBox are the spread the two pages make (the pages have no
    bleed: the folded sheet is the booklet's size)."""
    import pikepdf

    width, height = sheet.height * MM, sheet.width * MM  # landscape
    with pikepdf.open(io.BytesIO(pdf)) as source:
        booklet = pikepdf.Pdf.new()
        forms = [booklet.copy_foreign(page.as_form_xobject()) for page in source.pages]
        for side in order:
            drawing, placed = [], pikepdf.Dictionary()
            spread = [width / 2, height, width / 2, 0.0]  # the pages' union: x0, y0, x1, y1
            for slot, index in enumerate(side):
                box = source.pages[0 if index is None else index].mediabox
                page_w, page_h = float(box[2] - box[0]), float(box[3] - box[1])
                x = slot * width / 2 + (width / 2 - page_w) / 2
                y = (height - page_h) / 2
                spread = [min(spread[0], x), min(spread[1], y),
                          max(spread[2], x + page_w), max(spread[3], y + page_h)]
                if index is not None:  # a blank page still takes its half of the spread
                    placed[f"/P{slot}"] = forms[index]
                    drawing.append(f"q 1 0 0 1 {x:.4f} {y:.4f} cm /P{slot} Do Q")
            trim = [round(value, 3) for value in spread]
            page = pikepdf.Dictionary(
                Type=pikepdf.Name.Page, MediaBox=[0, 0, width, height],
                TrimBox=trim, BleedBox=trim,
                Resources=pikepdf.Dictionary(XObject=placed),
                Contents=pikepdf.Stream(booklet, "\n".join(drawing).encode()))
            booklet.pages.append(pikepdf.Page(page))
        if "/Title" in source.docinfo:
            booklet.docinfo["/Title"] = source.docinfo["/Title"]
        _prefer(booklet, SHORT_EDGE)  # landscape
        return _saved(booklet)


def unsound(pdf: bytes) -> str | None:
    """Why some bytes are not a PDF that qpdf opens as written, no repair attempted, with every
    page found; None when they are."""
    import pikepdf

    try:
        with pikepdf.open(io.BytesIO(pdf), attempt_recovery=False) as document:
            pages = len(document.pages)
            warnings = document.get_warnings()
    except pikepdf.PdfError as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if warnings:
        return str(warnings[0]).splitlines()[0]
    return None if pages else "it has no pages"


# Colours made CMYK for a print shop (cmyk.py converts them, Ghostscript then writes PDF/X)

RGB_NAMES = {"/DeviceRGB", "/CalRGB"}


def recolour(pdf: bytes, colours: Colours) -> bytes:
    """The PDF with its RGB colours, shadings and images made CMYK by `colours` (cmyk.py), each
    page and form left with only the resources it uses (Ghostscript flattens a page whose
    resources hold anything transparent, used or not), and its transparency groups with
    nothing transparent inside dropped."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as document:
        done: set[tuple[int, int]] = set()
        for page in document.pages:
            page.contents_coalesce()
            _recolour_drawing(page.obj, colours, done)
        out = io.BytesIO()
        document.save(out, deterministic_id=True)
        return out.getvalue()


def _recolour_drawing(holder: Any, colours: Colours, done: set[tuple[int, int]]) -> None:
    """A page's or form's content and everything its resources draw, made CMYK, its resources
    cut to those it names."""
    import pikepdf

    stream = holder.Contents if holder.get("/Type") == "/Page" else holder
    drawn = _recoloured(stream, colours)
    stream.write(pikepdf.unparse_content_stream(drawn))
    resources = _only_named(holder, drawn)
    group = holder.get("/Group")
    if group is not None and not transparent(holder, set()):
        del holder.Group  # with nothing transparent inside, the group changes nothing drawn
    elif group is not None and str(group.get("/CS", "")) in RGB_NAMES:
        group.CS = pikepdf.Name.DeviceCMYK
    for kind in ("/XObject", "/Pattern", "/Shading"):
        for item in resources.get(kind, {}).values():
            if item.is_indirect and item.objgen in done:
                continue
            if item.is_indirect:
                done.add(item.objgen)
            _recolour_resource(item, colours, done)


def _only_named(holder: Any, drawn: list[Any]) -> Any:
    """A page's or form's resources cut to those its content names, in a dictionary of its own:
    WeasyPrint gives every page of a document the same resources, so a face that draws
    nothing transparent still holds the transparency of another, and Ghostscript flattens any
    page whose resources hold some. Kept whole when an inline image may name one."""
    import pikepdf

    resources = holder.get("/Resources")
    if resources is None or any(not isinstance(item, tuple) for item in drawn):
        return resources if resources is not None else pikepdf.Dictionary()
    named = {str(operand) for operands, _ in drawn for operand in operands
             if isinstance(operand, pikepdf.Name)}
    holder.Resources = pikepdf.Dictionary({
        kind: pikepdf.Dictionary({name: value for name, value in entries.items()
                                  if name in named})
        if isinstance(entries, pikepdf.Dictionary) else entries
        for kind, entries in resources.items()})
    return holder.Resources


def transparent(holder: Any, seen: set[tuple[int, int]]) -> bool:
    """Whether a page or form draws anything transparent: an alpha under 1, a soft mask, a
    blend mode, an image with a soft mask, in it or in the forms and patterns it draws."""
    import pikepdf

    resources = holder.get("/Resources", pikepdf.Dictionary())
    for state in resources.get("/ExtGState", {}).values():
        if (float(state.get("/ca", 1)) < 1 or float(state.get("/CA", 1)) < 1
                or str(state.get("/SMask", "/None")) != "/None"
                or str(state.get("/BM", "/Normal")) not in ("/Normal", "/Compatible")):
            return True
    for kind in ("/XObject", "/Pattern"):
        for item in resources.get(kind, {}).values():
            if item.is_indirect and item.objgen in seen:
                continue
            if item.is_indirect:
                seen.add(item.objgen)
            if "/SMask" in item or ("/Resources" in item and transparent(item, seen)):
                return True
    return False


def _recolour_resource(item: Any, colours: Colours, done: set[tuple[int, int]]) -> None:
    """A form, pattern, shading or image made CMYK."""

    if item.get("/Subtype") == "/Form" or item.get("/PatternType") == 1:
        _recolour_drawing(item, colours, done)
    elif item.get("/PatternType") == 2:
        _recolour_shading(item.Shading, colours)
    elif "/ShadingType" in item:
        _recolour_shading(item, colours)
    elif item.get("/Subtype") == "/Image":
        _recolour_image(item, colours)


def _recolour_shading(shading: Any, colours: Colours) -> None:
    """An axial or radial RGB shading's colours made CMYK (its end colours, each stop's)."""
    import pikepdf

    if str(shading.get("/ColorSpace", "")) not in RGB_NAMES or "/Function" not in shading:
        return
    functions = [shading.Function]
    if shading.Function.get("/FunctionType") == 3:
        functions = list(shading.Function.Functions)
    if any(function.get("/FunctionType") != 2 for function in functions):
        return  # a sampled or PostScript function: Ghostscript converts it, unlimited
    for function in functions:
        for end, default in (("/C0", [0, 0, 0]), ("/C1", [1, 1, 1])):
            function[end] = list(colours.cmyk([float(v) for v in function.get(end, default)]))
    shading.ColorSpace = pikepdf.Name.DeviceCMYK


def _recolour_image(image: Any, colours: Colours) -> None:
    """An 8-bit RGB image's pixels made CMYK, compressed losslessly."""
    import pikepdf

    if str(image.get("/ColorSpace", "")) not in RGB_NAMES or image.get("/BitsPerComponent") != 8:
        return
    picture = colours.image(pikepdf.PdfImage(image).as_pil_image())
    image.write(zlib.compress(picture.tobytes()), filter=pikepdf.Name.FlateDecode)
    image.ColorSpace = pikepdf.Name.DeviceCMYK
    if "/DecodeParms" in image:
        del image.DecodeParms


def _recoloured(holder: Any, colours: Colours) -> list[tuple[Any, Any]]:
    """A content stream's operators, its RGB colours in CMYK: a colour text is shown in by
    Colours.text, the saved colour restored after the text."""
    import pikepdf

    out: list[tuple[Any, Any]] = []
    fill: list[float] | None = None
    saved: list[list[float] | None] = []
    in_text = False
    for item in pikepdf.parse_content_stream(holder):
        if isinstance(item, pikepdf.ContentStreamInlineImage):
            out.append(item)  # type: ignore[arg-type]  # unparse takes it as it is
            continue
        operands, operator = item.operands, item.operator
        name = str(operator)
        if name == "q":
            saved.append(fill)
        elif name == "Q" and saved:
            fill = saved.pop()
        elif name in ("BT", "ET"):  # the fill colour again, as text shows it or paints
            in_text = name == "BT"
            out.append((operands, operator))
            if fill is not None:
                shown = colours.text(fill) if in_text else colours.cmyk(fill)
                out.append((list(shown), pikepdf.Operator("k")))
            continue
        if name in ("rg", "RG") and len(operands) == 3:
            rgb = [float(value) for value in operands]
            if name == "rg":
                fill = rgb
            converted = colours.text(rgb) if in_text and name == "rg" else colours.cmyk(rgb)
            out.append((list(converted), pikepdf.Operator("k" if name == "rg" else "K")))
            continue
        if name in ("cs", "CS", "k", "K", "g", "G", "sc", "scn"):
            fill = None if name in ("cs", "k", "g", "sc", "scn") else fill
        out.append((operands, operator))
    return out


# Text lifted off the pages PDF/X-1a would flatten whole

TEXT_SHOWN = {"Tj", "TJ", "'", '"'}
PAINTED = {"S", "s", "f", "F", "f*", "B", "B*", "b", "b*"}  # a path painted (kept as a clip)
FLAT = "/PnpFlat"  # the picture's name in a lifted page's resources
NESTING = 32  # forms within forms split apart; deeper ones stay whole in the picture
LIFT_PIXELS = 36_000_000  # the most a lifted page's picture holds (a 60 cm board: 240 dpi)


def lift_text(pdf: bytes, dpi: float) -> tuple[bytes, list[int]]:
    """Each page that draws something transparent made one picture at `dpi` (less for a page
    past LIFT_PIXELS) of all it draws but its opaque text, that text drawn over it as text;
    and the pages lifted (0 on).

    PDF/X-1a holds no transparency, and Ghostscript flattens such a page whole, its text a
    picture too. Here only the drawing becomes a picture: text shown at full opacity is taken
    out of it and drawn on top, in its own font and colour (text that lay under a transparent
    veil so comes out unveiled)."""
    import pikepdf

    from .raster import draw_pages

    with pikepdf.open(io.BytesIO(pdf)) as document:
        lifted = [index for index, page in enumerate(document.pages)
                  if _draws_transparency(page.obj, set())]
        if not lifted:
            return pdf, []
        variants: dict[tuple[tuple[int, int], str], Any] = {}
        texts = {}
        for index in lifted:
            page = document.pages[index]
            page.contents_coalesce()
            texts[index] = _split(document, page.obj, "text", variants)
            ops, resources = _split(document, page.obj, "picture", variants)
            page.obj.Contents = document.make_stream(pikepdf.unparse_content_stream(ops))
            page.obj.Resources = resources
        pictures = io.BytesIO()
        document.save(pictures)
        for index in lifted:
            page = document.pages[index]
            x0, y0, x1, y1 = (float(value) for value in page.mediabox)
            width, height = x1 - x0, y1 - y0
            sharpest = min(dpi, 72 * (LIFT_PIXELS / (width * height)) ** 0.5)
            pixels = (max(1, round(width / 72 * sharpest)), max(1, round(height / 72 * sharpest)))
            [picture] = draw_pages(pictures.getvalue(), (0.0, 0.0, width / MM, height / MM),
                                   pixels, [index])
            image = pikepdf.Stream(document, zlib.compress(picture.tobytes()))
            image.Type, image.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
            image.Width, image.Height = pixels
            image.ColorSpace, image.BitsPerComponent = pikepdf.Name.DeviceRGB, 8
            image.Filter = pikepdf.Name.FlateDecode
            ops, resources = texts[index]
            resources.XObject = pikepdf.Dictionary({**resources.get("/XObject", {}), FLAT: image})
            shown = f"q {width:.4f} 0 0 {height:.4f} {x0:.4f} {y0:.4f} cm {FLAT} Do Q\n"
            page.obj.Contents = document.make_stream(
                shown.encode() + pikepdf.unparse_content_stream(ops))
            page.obj.Resources = resources
            if "/Group" in page.obj:
                del page.obj.Group
        out = io.BytesIO()
        document.save(out, deterministic_id=True)
        return out.getvalue(), lifted


def _split(document: Any, holder: Any, mode: str,
           variants: dict[tuple[tuple[int, int], str], Any],
           depth: int = 0) -> tuple[list[Any], Any]:
    """A page's or form's operators and resources for one layer: `picture`, all it draws but
    the text shown at full opacity; `text`, that text alone (paths kept only as clips). The
    forms it draws are split the same way, each once (`variants`), to NESTING deep: a form
    deeper stays whole in the picture (a stranger's SVG may nest groups without end)."""
    import pikepdf

    resources = holder.get("/Resources", pikepdf.Dictionary())
    states = resources.get("/ExtGState", {})
    xobjects = resources.get("/XObject", {})
    used: dict[str, Any] = {}
    out: list[Any] = []
    opaque, saved, in_text = True, [], False
    for item in pikepdf.parse_content_stream(holder):
        if isinstance(item, pikepdf.ContentStreamInlineImage):
            if mode == "picture":
                out.append(item)
            continue
        operands: Any = item.operands
        operator = item.operator
        name = str(operator)
        if name == "q":
            saved.append(opaque)
        elif name == "Q" and saved:
            opaque = saved.pop()
        elif name == "gs" and operands and str(operands[0]) in states:
            state = states[str(operands[0])]
            if any(key in state for key in ("/ca", "/CA", "/SMask", "/BM")):
                opaque = not _transparent_state(state)
            if mode == "text" and _transparent_state(state):
                continue
        if name in TEXT_SHOWN:
            if (mode == "text") != opaque:  # the other layer's text: moved on, not shown
                out += _moved_on(operands, name)
                continue
        elif name == "Do" and mode == "text":
            xobject = xobjects.get(str(operands[0])) if operands else None
            if xobject is None or xobject.get("/Subtype") != "/Form" or not opaque \
                    or depth >= NESTING:
                continue
            used[str(operands[0])] = _variant(document, xobject, mode, variants, depth)
        elif name == "Do" and opaque and operands and depth < NESTING:
            xobject = xobjects.get(str(operands[0]))
            if xobject is not None and xobject.get("/Subtype") == "/Form":
                used[str(operands[0])] = _variant(document, xobject, mode, variants, depth)
        elif mode == "text" and name in PAINTED:
            operands, operator = [], pikepdf.Operator("n")
        elif mode == "text" and name == "sh":
            continue
        elif mode == "text" and name in ("scn", "SCN") and not in_text \
                and operands and isinstance(operands[-1], pikepdf.Name):
            continue  # a pattern for painting the text layer no longer does
        if name in ("BT", "ET"):
            in_text = name == "BT"
        out.append((operands, operator))
    kept = pikepdf.Dictionary(dict(resources.items()))
    if used:
        kept.XObject = pikepdf.Dictionary({**xobjects, **used})
    return out, kept


def _moved_on(operands: list[Any], name: str) -> list[Any]:
    """What a text operator not shown in this layer still does to the text position: `'`
    and `"` move to the next line (and `"` sets the spacing); Tj and TJ only advance along a
    line the next shown text starts afresh from (Td, Tm) in what WeasyPrint writes."""
    import pikepdf

    if name == "'":
        return [([], pikepdf.Operator("T*"))]
    if name == '"':
        return [([operands[0]], pikepdf.Operator("Tw")), ([operands[1]], pikepdf.Operator("Tc")),
                ([], pikepdf.Operator("T*"))]
    return []


def _variant(document: Any, form: Any, mode: str,
             variants: dict[tuple[tuple[int, int], str], Any], depth: int) -> Any:
    """A form's layer as a form of its own, made once; a text layer is no transparency group
    (it holds nothing transparent)."""
    import pikepdf

    key = (form.objgen, mode)
    if key not in variants:
        ops, resources = _split(document, form, mode, variants, depth + 1)
        made = pikepdf.Stream(document, pikepdf.unparse_content_stream(ops))
        for entry, value in form.items():
            if entry not in ("/Length", "/Filter", "/DecodeParms", "/Resources") \
                    and not (mode == "text" and entry == "/Group"):
                made[entry] = value
        made.Resources = resources
        variants[key] = document.make_indirect(made)
    return variants[key]


def _transparent_state(state: Any) -> bool:
    """Whether a graphics state draws transparently: an alpha under 1, a soft mask, a blend."""
    return (float(state.get("/ca", 1)) < 1 or float(state.get("/CA", 1)) < 1
            or str(state.get("/SMask", "/None")) != "/None"
            or str(state.get("/BM", "/Normal")) not in ("/Normal", "/Compatible"))


def _draws_transparency(holder: Any, seen: set[tuple[int, int]], depth: int = 0) -> bool:
    """Whether a page or form draws anything transparent, following only what its content
    names: a graphics state of _transparent_state, an image with a soft mask, or a form or
    tiling pattern that does; past NESTING forms deep, taken to."""
    import pikepdf

    if depth > NESTING:
        return True
    resources = holder.get("/Resources", pikepdf.Dictionary())
    for item in pikepdf.parse_content_stream(holder):
        if isinstance(item, pikepdf.ContentStreamInlineImage) or not item.operands:
            continue
        name, first = str(item.operator), item.operands[-1]
        found = None
        if name == "gs":
            state = resources.get("/ExtGState", {}).get(str(first))
            if state is not None and _transparent_state(state):
                return True
        elif name == "Do":
            found = resources.get("/XObject", {}).get(str(first))
        elif name in ("scn", "SCN") and isinstance(first, pikepdf.Name):
            found = resources.get("/Pattern", {}).get(str(first))
        if found is None or (found.is_indirect and found.objgen in seen):
            continue
        if found.is_indirect:
            seen.add(found.objgen)
        if "/SMask" in found or (
                (found.get("/Subtype") == "/Form" or found.get("/PatternType") == 1)
                and _draws_transparency(found, seen, depth + 1)):
            return True
    return False
