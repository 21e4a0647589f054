"""RGB colours made CMYK through an ink-limiting device link LittleCMS makes (`linkicc -k`,
sRGB to Ghostscript's default_cmyk.icc, relative colorimetric with black point compensation):
the only module that runs LittleCMS's tools.

Ghostscript 10's pdfwrite converts colours through its built-in default_cmyk.icc whatever
output profile it is given (about 300 % total ink for black), so a PDF's colours are converted
before Ghostscript sees it (assemble.recolour walks the file, these convert), and Ghostscript
finds nothing left to convert. Every fill and stroke colour, every axial and radial shading (its
end colours) and every 8-bit RGB image is sent through the link, sampled on a GRID³ table; text
in a dark, near-neutral colour (the ink of most cards) prints as 100 % K, as Ghostscript's
-dBlackText would draw it.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageFilter

from ..check.findings import PnpError

MISSING = ("the CMYK print-shop file needs LittleCMS's linkicc and transicc: "
           "sudo apt-get install liblcms2-utils")
GRID = 17  # points a side of the sampled device link (LittleCMS's own is of this order)
HEADROOM = 10.0  # percent the link aims under the ink limit: a sampled table overshoots a bit
TEXT_DARK, TEXT_GREY = 0.25, 0.08  # text no lighter and no further from grey is K only
K_ONLY = (0.0, 0.0, 0.0, 1.0)
FOUR = re.compile(rb"^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", re.MULTILINE)


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
