"""Ghostscript, the only module that runs it: an RGB print-shop PDF converted to CMYK, and the
highest total ink of each page of a CMYK PDF.

The colours are made CMYK first, within the ink limit, by cmyk.py (Ghostscript 10's pdfwrite
ignores the output profile it is given and converts through its default_cmyk.icc, about 300 %
total ink for black); Ghostscript then writes the file as PDF/X, text staying text with its
fonts embedded, vector art vector. PDF/X-1a is PDF 1.3, without transparency: a page that draws
anything transparent (an alpha under 1, a soft mask, a blend mode) would be flattened whole by
Ghostscript, its text no longer text; so such a page is made first one picture at FLATTEN_DPI
of all it draws but its opaque text, and that text is drawn over it as text
(assemble.lift_text). A transparency group with nothing transparent inside is dropped
(assemble.recolour), so it flattens nothing.
The output intent is Ghostscript's default_cmyk.icc ("Artifex CMYK SWOP Profile"), the profile
the colours were converted to.

The file is labelled PDF/X-1a:2003 only when Ghostscript kept to PDF/X (it says when it does
not) and the file names no RGB, ICC-based or Lab colour space, soft mask, transparency group,
annotation, LZW or encryption, and gives every page a TrimBox; otherwise it is converted again
without the label, as plain CMYK (PDF 1.3, transparency flattened the same way). No validator
has checked these files: the checks are those above and tests/test_ghostscript.py's.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageSequence

from ..check.findings import PnpError
from . import cmyk
from .assemble import lift_text, recolour

PDFX = "PDF/X-1a:2003"
MISSING = "the CMYK print-shop file needs Ghostscript: sudo apt-get install ghostscript"
FLATTEN_DPI = 400  # a page with transparency becomes one image this sharp (720: twice the time)
TIMEOUT = 900  # seconds one Ghostscript run may take
PROFILES = ("/usr/share/color/icc/ghostscript/default_cmyk.icc",
            "/usr/share/ghostscript/*/iccprofiles/default_cmyk.icc")
CONDITION = "Artifex CMYK SWOP Profile (Ghostscript default_cmyk.icc)"
# Dictionary names PDF/X-1a forbids; in a PDF 1.3 file from pdfwrite every dictionary is plain text.
FORBIDDEN = re.compile(rb"/(DeviceRGB|CalRGB|CalGray|ICCBased|Lab|SMask|Transparency|Annots|"
                       rb"LZWDecode|JPXDecode|Encrypt|JavaScript)\b")
PAGE = re.compile(rb"/Type\s*/Page\b")
TRIM_BOX = re.compile(rb"/TrimBox\s*\[")
FILE_ID = re.compile(rb"/ID \[<[0-9A-F]{32}><[0-9A-F]{32}>\]")


class GhostscriptError(PnpError):
    """Ghostscript is missing, failed or took too long."""

    code = "E104"


@dataclass(frozen=True)
class Converted:
    """A CMYK PDF, the standard it meets (None: plain CMYK), why it is not PDF/X if not, and
    the pages (0 on) whose drawing became a picture under their text (assemble.lift_text)."""

    pdf: bytes
    standard: str | None
    reason: str = ""
    lifted: tuple[int, ...] = ()


def available() -> bool:
    """Whether Ghostscript is installed."""
    return shutil.which("gs") is not None


def profile() -> Path | None:
    """The CMYK output profile Ghostscript converts through, where the system keeps it."""
    for pattern in PROFILES:
        found = sorted(glob.glob(pattern))
        if found:
            return Path(found[-1])
    return None


def to_cmyk(pdf: bytes, title: str, ink_limit: float,
            flatten_dpi: int = FLATTEN_DPI) -> Converted:
    """An RGB PDF converted to CMYK, titled `title`, its total ink under `ink_limit` percent, a
    page with transparency drawn as one image at `flatten_dpi`: PDF/X-1a:2003 when it honestly
    is."""
    _gs()
    icc = profile()
    if icc is None:
        raise GhostscriptError("Ghostscript's default_cmyk.icc is missing: "
                               "sudo apt-get install ghostscript")
    lifted, pages = lift_text(pdf, flatten_dpi)
    recoloured = recolour(lifted, cmyk.Colours(cmyk.ink_table(ink_limit, icc)))
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "in.pdf").write_bytes(recoloured)
        converted, said = _convert(folder, title, flatten_dpi, icc)
        reason = f"Ghostscript: {said}" if "PDF/X" in said else _not_pdfx(converted)
        if not reason:
            return Converted(converted, PDFX, lifted=tuple(pages))
        return Converted(_convert(folder, title, flatten_dpi, icc, pdfx=False)[0], None, reason,
                         tuple(pages))


def _convert(folder: str, title: str, dpi: int, icc: Path,
             pdfx: bool = True) -> tuple[bytes, str]:
    """pdfwrite's file from in.pdf in `folder` (relative names: the file id hashes the output's
    name) and what Ghostscript said; the PDF/X label and output intent `icc` when `pdfx`."""
    command = [_gs(), "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=pdfwrite",
               "-dCompatibilityLevel=1.3", f"-r{dpi}", "-dAutoRotatePages=/None",
               "-sColorConversionStrategy=CMYK", "-sProcessColorModel=DeviceCMYK",
               "-dEmbedAllFonts=true", "-dSubsetFonts=true",
               "-dAutoFilterColorImages=false", "-sColorImageFilter=FlateEncode",
               "-dAutoFilterGrayImages=false", "-sGrayImageFilter=FlateEncode",
               "-dDownsampleColorImages=false", "-dDownsampleGrayImages=false",
               "-dDownsampleMonoImages=false", "-sOutputFile=out.pdf"]
    command += [f"--permit-file-read={icc}", f"-sOutputICCProfile={icc}"]
    if pdfx:
        Path(folder, "pdfx.ps").write_text(_pdfx_prefix(icc), encoding="ascii")
        command += ["-dPDFX", "pdfx.ps"]
    command += ["in.pdf", "-c", f"[ /Title {_ps_text(title)} /DOCINFO pdfmark"]
    said = _run(command, folder)
    return _content_id(Path(folder, "out.pdf").read_bytes()), said


def _pdfx_prefix(icc: Path) -> str:
    """PostScript run before the input: the PDF/X keys of the Info and the output intent, the
    profile embedded (cf. Ghostscript's lib/PDFX_def.ps)."""
    return f"""%!
[ /GTS_PDFXVersion ({PDFX}) /Trapped /False /DOCINFO pdfmark
[ /_objdef {{icc_PDFX}} /type /stream /OBJ pdfmark
[ {{icc_PDFX}} << /N 4 >> /PUT pdfmark
[ {{icc_PDFX}} <{os.fsencode(icc).hex()}> (r) file /PUT pdfmark
[ /_objdef {{OutputIntent_PDFX}} /type /dict /OBJ pdfmark
[ {{OutputIntent_PDFX}} << /Type /OutputIntent /S /GTS_PDFX /OutputConditionIdentifier (Custom)
  /OutputCondition ({CONDITION}) /Info ({CONDITION}) /DestOutputProfile {{icc_PDFX}} >> /PUT pdfmark
[ {{Catalog}} << /OutputIntents [ {{OutputIntent_PDFX}} ] >> /PUT pdfmark
"""


def _content_id(pdf: bytes) -> bytes:
    """The file with its id made from its content: Ghostscript's hashes only the output's name
    and the (fixed) time, the same for every file. Same length, so no offset moves."""
    digest = hashlib.md5(pdf, usedforsecurity=False).hexdigest().upper().encode()
    return FILE_ID.sub(b"/ID [<" + digest + b"><" + digest + b">]", pdf, count=1)


def _not_pdfx(pdf: bytes) -> str:
    """Why a converted file is not PDF/X-1a, from its dictionaries; empty if nothing is found."""
    forbidden = sorted({match.decode() for match in FORBIDDEN.findall(pdf)})
    if forbidden:
        return "the file still has " + ", ".join(f"/{name}" for name in forbidden)
    if len(TRIM_BOX.findall(pdf)) < len(PAGE.findall(pdf)):
        return "a page has no TrimBox"
    return ""


def _ps_text(text: str) -> str:
    """A PostScript string holding `text` as a PDF text string (UTF-16BE with its mark)."""
    return "<" + ("\ufeff" + text).encode("utf-16-be").hex().upper() + ">"


def _gs() -> str:
    """Ghostscript's path, or a clean error saying how to install it."""
    found = shutil.which("gs")
    if found is None:
        raise GhostscriptError(MISSING)
    return found


def _run(command: list[str], folder: str) -> str:
    """Run Ghostscript in `folder`, dates fixed for the same bytes each time, and return what
    it said, on one line; a failure is a clean error."""
    environment = {**os.environ, "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "0")}
    try:
        done = subprocess.run(command, cwd=folder, env=environment, capture_output=True,
                              timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise GhostscriptError(f"Ghostscript took more than {TIMEOUT} s and was stopped") from None
    said = " ".join((done.stdout + done.stderr).decode(errors="replace").split())
    if done.returncode != 0:
        raise GhostscriptError(f"Ghostscript failed ({done.returncode}): {said[-500:]}")
    return said


def max_ink(pdf: bytes, dpi: int = 30) -> list[float]:
    """Each page's highest total ink in percent (C+M+Y+K of any pixel, 0-400), drawn at `dpi`:
    a coarse preflight, blind to details finer than a pixel."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "in.pdf").write_bytes(pdf)
        _run([_gs(), "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=tiff32nc",
              f"-r{dpi}", "-sOutputFile=out.tif", "in.pdf"], folder)
        with Image.open(Path(folder, "out.tif")) as drawn:
            return [_highest_total(page) for page in ImageSequence.Iterator(drawn)]


def _highest_total(page: Image.Image) -> float:
    """The highest C+M+Y+K of a CMYK image's pixels, percent."""
    samples = page.convert("CMYK").tobytes()
    highest = max(map(sum, zip(*[iter(samples)] * 4, strict=True)), default=0)
    return round(highest / 255 * 100, 1)
