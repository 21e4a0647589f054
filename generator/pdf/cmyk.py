"""An RGB PDF's colours made CMYK before Ghostscript sees it, through an ink-limiting device
link LittleCMS makes (`linkicc -k`, sRGB to Ghostscript's default_cmyk.icc, relative
colorimetric with black point compensation): the only module that runs LittleCMS's tools.

Ghostscript 10's pdfwrite converts colours through its built-in default_cmyk.icc whatever
output profile it is given (about 300 % total ink for black), so the colours are converted
here, and Ghostscript finds nothing left to convert. Every fill and stroke colour, every axial
and radial shading (its end colours) and every 8-bit RGB image is sent through the link,
sampled on a GRID³ table; text in a dark, near-neutral colour (the ink of most cards) prints
as 100 % K, as Ghostscript's -dBlackText would draw it.
"""

from __future__ import annotations

import functools
import io
import re
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path
from typing import Any

import pikepdf
from PIL import Image, ImageFilter

from ..check.findings import PnpError

MISSING = ("the CMYK print-shop file needs LittleCMS's linkicc and transicc: "
           "sudo apt-get install liblcms2-utils")
GRID = 17  # points a side of the sampled device link (LittleCMS's own is of this order)
HEADROOM = 10.0  # percent the link aims under the ink limit: a sampled table overshoots a bit
TEXT_DARK, TEXT_GREY = 0.25, 0.08  # text no lighter and no further from grey is K only
K_ONLY = (0.0, 0.0, 0.0, 1.0)
FOUR = re.compile(rb"^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", re.MULTILINE)
RGB_NAMES = {"/DeviceRGB", "/CalRGB"}


class ColourError(PnpError):
    """LittleCMS's tools are missing or failed."""

    code = "E104"


def available() -> bool:
    """Whether LittleCMS's linkicc and transicc are installed."""
    return all(shutil.which(tool) for tool in ("linkicc", "transicc"))


@functools.lru_cache(maxsize=4)
def ink_table(limit: float, output: Path) -> ImageFilter.Color3DLUT:
    """sRGB to CMYK through a device link to `output` holding total ink under `limit` less
    HEADROOM percent, sampled on a GRID³ table (made once a process)."""
    for tool in ("linkicc", "transicc"):
        if shutil.which(tool) is None:
            raise ColourError(MISSING)
    steps = [255 * step / (GRID - 1) for step in range(GRID)]
    grid = "".join(f"{red:.4f} {green:.4f} {blue:.4f}\n"
                   for blue in steps for green in steps for red in steps)
    with tempfile.TemporaryDirectory() as folder:
        _lcms(["linkicc", "-o", "link.icc", "-t1", "-b", f"-k{limit - HEADROOM:g}", "*sRGB",
               str(output)], folder)
        said = _lcms(["transicc", "-l", "link.icc", "-n"], folder, grid)
    values = [float(value) / 100 for line in FOUR.findall(said) for value in line]
    if len(values) != 4 * GRID ** 3:
        raise ColourError(f"transicc gave {len(values) // 4} colours of {GRID ** 3}")
    return ImageFilter.Color3DLUT(GRID, values, channels=4, target_mode="CMYK")


def _lcms(command: list[str], folder: str, given: str = "") -> bytes:
    """Run a LittleCMS tool in `folder` and return what it wrote; a failure is a clean error."""
    done = subprocess.run(command, cwd=folder, input=given.encode(), capture_output=True,
                          timeout=120, check=False)
    if done.returncode != 0:
        raise ColourError(f"{command[0]} failed: {done.stderr.decode(errors='replace')[-300:]}")
    return done.stdout


def recolour(pdf: bytes, table: ImageFilter.Color3DLUT) -> bytes:
    """The PDF with its RGB colours, shadings and images made CMYK through `table`."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        colours = Colours(table)
        done: set[tuple[int, int]] = set()
        for page in document.pages:
            page.contents_coalesce()
            _recolour_drawing(page.obj, page.resources, colours, done)
        out = io.BytesIO()
        document.save(out, deterministic_id=True)
        return out.getvalue()


class Colours:
    """RGB colours converted through the table, each once."""

    def __init__(self, table: ImageFilter.Color3DLUT):
        self.table = table
        self.known: dict[tuple[int, int, int], tuple[float, ...]] = {}

    def cmyk(self, rgb: list[float]) -> tuple[float, ...]:
        """An RGB colour (0-1) in CMYK (0-1), to the thousandth."""
        key = tuple(min(255, max(0, round(value * 255))) for value in rgb)
        if key not in self.known:
            pixel = Image.new("RGB", (1, 1), key).filter(self.table).getpixel((0, 0))
            self.known[key] = tuple(round(value / 255, 3) for value in pixel)  # type: ignore
        return self.known[key]  # type: ignore[index]

    def text(self, rgb: list[float]) -> tuple[float, ...]:
        """A text colour: K only when dark and near grey, else as any colour."""
        if max(rgb) <= TEXT_DARK and max(rgb) - min(rgb) <= TEXT_GREY:
            return K_ONLY
        return self.cmyk(rgb)

    def image(self, picture: Image.Image) -> Image.Image:
        """An RGB picture in CMYK."""
        return picture.convert("RGB").filter(self.table)


def _recolour_drawing(holder: Any, resources: Any, colours: Colours,
                      done: set[tuple[int, int]]) -> None:
    """A page's or form's content and everything its resources draw, made CMYK."""
    stream = holder.Contents if holder.get("/Type") == "/Page" else holder
    stream.write(pikepdf.unparse_content_stream(_recoloured(stream, colours)))
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


def transparent(holder: Any, seen: set[tuple[int, int]]) -> bool:
    """Whether a page or form draws anything transparent: an alpha under 1, a soft mask, a
    blend mode, an image with a soft mask, in it or in the forms and patterns it draws."""
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
        _recolour_drawing(item, item.get("/Resources", pikepdf.Dictionary()), colours, done)
    elif item.get("/PatternType") == 2:
        _recolour_shading(item.Shading, colours)
    elif "/ShadingType" in item:
        _recolour_shading(item, colours)
    elif item.get("/Subtype") == "/Image":
        _recolour_image(item, colours)


def _recolour_shading(shading: Any, colours: Colours) -> None:
    """An axial or radial RGB shading's colours made CMYK (its end colours, each stop's)."""
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
        elif name == "BT":
            in_text = True
            out.append((operands, operator))
            if fill is not None:
                out.append((list(colours.text(fill)), pikepdf.Operator("k")))
            continue
        elif name == "ET":
            in_text = False
            out.append((operands, operator))
            if fill is not None:
                out.append((list(colours.cmyk(fill)), pikepdf.Operator("k")))
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
