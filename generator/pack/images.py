"""Images a pack names, opened with Pillow before any page is laid out.

WeasyPrint leaves out an image it cannot load and only logs it, so a broken or oversized file
is found here first, at the line that names it: a raster that does not decode, one of more
pixels than the game's limit (a decompression bomb), and an SVG that declares entities.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path
from urllib.parse import unquote, urlsplit

from PIL import Image

SVG_SUFFIX = ".svg"
_ENTITY = re.compile(rb"<!ENTITY", re.IGNORECASE)
_HREF = re.compile(rb"""href\s*=\s*["']([^"'<>]*)["']""")


def image_problem(path: Path, data: bytes, max_pixels: int,
                  root: Path) -> tuple[str, str] | None:
    """Why an image will not print, as a code and a few words; None when it will. An SVG may
    link only to files inside the pack folder `root` (what it links to is fetched only when a
    page is drawn, which `pnp validate` does not do)."""
    if path.suffix.lower() == SVG_SUFFIX:
        if _ENTITY.search(data):
            return "E075", "is an SVG that declares entities (external ones would read files)"
        for link in _HREF.finditer(data):
            url = link.group(1).decode("utf-8", "replace").strip()
            if url.startswith(("#", "data:")) or not url:
                continue
            target = urlsplit(url)
            if target.scheme or target.netloc or not \
                    (path.parent / unquote(target.path)).resolve().is_relative_to(root.resolve()):
                return "E052", f"is an SVG that links to {url}, outside the game pack"
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width * height > max_pixels:
                    return "E075", (f"is {width}×{height} px, more than the limit of "
                                    f"{max_pixels / 1e6:g} million pixels (`limits: "
                                    "image_megapixels` in game.yaml)")
                image.verify()
    except Image.DecompressionBombError as exc:
        return "E075", f"is too large to open ({exc})"
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        return "E075", f"is not an image Pillow can read ({exc})"
    return None

