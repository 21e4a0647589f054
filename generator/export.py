"""Exports: every distinct card face and back as an image, for print shops and virtual tables.

The faces are those a build lays out (`faces.py`: each at the top of a page of its own), taken
from the parts cache when a build made them; pypdfium2 renders each page's card box at the
profile's pixel size (templates/export.yaml), so nothing is laid out a second time.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from . import BUILD_DIR, CARDS_DIR, TEMPLATES_DIR
from .build import check, sites
from .cache import BuildOptions, PartCache, parts_folder
from .errors import Finding, PackError, PnpError, display_path, errors_only
from .execute import Executor
from .faces import face_anchor
from .geometry import Box, Geometry
from .load import Deck, line_of
from .render import Face
from .workers import Workers

MM_PER_INCH = 25.4
MAX_DPI = 1200
MAX_PIXELS = 60_000_000  # one image, ~240 MB as drawn (a 500 x 400 mm board at 300 dpi: 28)


@dataclass(frozen=True)
class Profile:
    """How large one card side is drawn: at `dpi` with `bleed` mm on every edge, or at the
    exact pixel `sizes` of the card sizes it lists (then no other size)."""

    name: str
    dpi: float | None = None
    bleed: float | None = None
    sizes: dict[str, tuple[int, int]] | None = None

    def pixels(self, size_name: str, cut: Box, bleed: float, dpi: float) -> tuple[int, int] | None:
        """The pixel size of a card side of `cut` mm, None when the profile refuses it."""
        if self.sizes is not None:
            return self.sizes.get(size_name)
        dpi, edge = self.dpi or dpi, bleed if self.bleed is None else self.bleed
        return (round((cut.width + 2 * edge) / MM_PER_INCH * dpi),
                round((cut.height + 2 * edge) / MM_PER_INCH * dpi))


def load_profiles(path: Path = TEMPLATES_DIR / "export.yaml") -> dict[str, Profile]:
    """The export profiles, by name."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))["profiles"]
    return {name: Profile(name, spec.get("dpi"), spec.get("bleed"),
                          {size: (int(w), int(h)) for size, (w, h) in spec["sizes"].items()}
                          if "sizes" in spec else None)
            for name, spec in data.items()}


@dataclass(frozen=True)
class Image:
    """One image written: its file under the export folder, and the card side it shows."""

    file: str
    deck: str
    card: str
    name: str
    side: str
    copies: int
    width: int
    height: int


def export_images(name: str, cards_dir: Path = CARDS_DIR, out_root: Path = BUILD_DIR,
                  profile: str = "generic", dpi: float = 300, image_format: str = "png",
                  progress: Any = lambda message: None,
                  workers: Workers | None = None) -> Path:
    """Write every card's front and back of a game as images, with images.csv and
    images.json listing each with its card's name and copies, into
    `out_root/<game>-export/images/`, put in place whole; return that folder."""
    checked = check(name, cards_dir, BuildOptions())
    if errors_only(checked.findings):
        raise PackError(errors_only(checked.findings))
    game, job = checked.game, checked.job
    chosen = load_profiles()[profile]
    if not 0 < dpi <= MAX_DPI:
        raise PnpError(f"--dpi {dpi:g}: an export draws at more than 0 and at most {MAX_DPI} dpi")
    refused = _refused_sizes(game.root, game.spec_data, job.decks, chosen, job.geometry, dpi)
    if refused:
        raise PackError(refused)
    faces = job.faces
    cache = PartCache(parts_folder(out_root, name), game.root,
                      lambda message: progress(f"{name}: cache: {message}"))
    own_pool = workers is None
    pool = workers or Workers()
    try:
        executor = Executor(game.root, job.fonts, cache, pool, keep_workers=not own_pool,
                            max_bytes=game.spec.limits.file_bytes)
        parts = [part for deck in job.decks for part in faces.parts.get(deck.spec.id, [])]
        executor.start(parts)
        executor.wait()
    finally:
        if own_pool:
            pool.stop()
    found = errors_only(executor.findings(sites(game)))
    if found:
        raise PackError(found)
    rendered: dict[str, bytes] = {}
    images: list[Image] = []
    for deck in job.decks:
        size = job.geometry.sizes[deck.spec.size]
        pixels = chosen.pixels(deck.spec.size, size, job.geometry.bleed, dpi)
        assert pixels is not None  # else refused above
        for number, (card, line) in enumerate(deck.located(), start=1):
            front = job.renderer.face(deck, card, line)
            back = job.renderer.back(deck, card, front)
            for side, shown in (("front", front), ("back", back)):
                if shown is None or (side == "back" and deck.spec.double_sided):
                    continue
                file = _file_name(deck, number, card.id, side, shown, image_format)
                if file not in rendered:
                    rendered[file] = _render(executor, faces, shown, pixels, image_format)
                images.append(Image(file, deck.spec.id, card.id, card.name, side, card.qty,
                                    *pixels))
    folder = out_root / f"{name}-export" / "images"
    _write_whole(folder, rendered, images)
    progress(f"{name}: wrote {len(rendered)} images ({chosen.name}) to {folder}")
    return folder


def _refused_sizes(root: Path, spec_data: Any, decks: list[Deck], profile: Profile,
                   geometry: Geometry, dpi: float) -> list[Finding]:
    """A deck whose card size the profile has no pixel size for, or whose images would be
    larger than an export draws, at its `size:` line."""
    where = display_path(root / "game.yaml")
    found = []
    for deck in decks:
        line = line_of(spec_data, ("decks", _index(spec_data, deck.spec.id), "size"))
        pixels = profile.pixels(deck.spec.size, geometry.sizes[deck.spec.size],
                                geometry.bleed, dpi)
        if pixels is None:
            found.append(Finding(where, line, f"deck '{deck.spec.id}': the {profile.name} "
                                 f"profile has no size '{deck.spec.size}' (it has: "
                                 f"{', '.join(sorted(profile.sizes or {}))})", "E084"))
        elif pixels[0] * pixels[1] > MAX_PIXELS:
            found.append(Finding(where, line, f"deck '{deck.spec.id}': its images would be "
                                 f"{pixels[0]} x {pixels[1]} px, past the "
                                 f"{MAX_PIXELS // 1_000_000} million an export draws (a lower "
                                 "--dpi)", "E084"))
    return found


def _index(spec_data: Any, deck_id: str) -> int:
    """The place of a deck in game.yaml's `decks` list."""
    return next(index for index, entry in enumerate(spec_data["decks"])
                if entry.get("id") == deck_id)


def _file_name(deck: Deck, number: int, card_id: str, side: str, face: Face,
               image_format: str) -> str:
    """`<deck>/<nnn>-<card-id>-front.png`; a back the deck's cards share is one file,
    `<deck>/back-<back-id>.png`."""
    if side == "back" and face.source.startswith("back:"):
        return f"{deck.spec.id}/back-{face.source.removeprefix('back:')}.{image_format}"
    return f"{deck.spec.id}/{number:03d}-{card_id}-{side}.{image_format}"


def _render(executor: Executor, faces: Any, face: Face, pixels: tuple[int, int],
            image_format: str) -> bytes:
    """One face, cut from the top of its page in its faces part, at exactly `pixels`."""
    import pypdfium2

    key = faces.keys[face]
    page_of = faces.pages[key]
    laid = executor.done[page_of.part.key]
    document = pypdfium2.PdfDocument(laid.pdf)
    try:
        page = document[laid.anchors[face_anchor(key)]]
        width_pt, height_pt = page.get_size()
        box_w = page_of.size.width / MM_PER_INCH * 72
        box_h = page_of.size.height / MM_PER_INCH * 72
        scale = max(pixels[0] / box_w, pixels[1] / box_h)
        bitmap = page.render(scale=scale, crop=(0, height_pt - box_h, width_pt - box_w, 0))
        picture = bitmap.to_pil().convert("RGB")
    finally:
        document.close()
    if picture.size != pixels:
        from PIL import Image as PILImage

        picture = picture.resize(pixels, PILImage.Resampling.LANCZOS)
    out = io.BytesIO()
    if image_format == "jpg":
        picture.save(out, "JPEG", quality=95, dpi=(300, 300))
    else:
        picture.save(out, "PNG", dpi=(300, 300))
    return out.getvalue()


def _write_whole(folder: Path, rendered: dict[str, bytes], images: list[Image]) -> None:
    """The images and their lists written beside `folder`, then put in its place at once."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".images-", dir=folder.parent))
    try:
        for file, data in sorted(rendered.items()):
            (staging / file).parent.mkdir(parents=True, exist_ok=True)
            (staging / file).write_bytes(data)
        rows = [asdict(image) for image in images]
        with (staging / "images.csv").open("w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["file"])
            writer.writeheader()
            writer.writerows(rows)
        (staging / "images.json").write_text(
            json.dumps({"images": rows}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        old = folder.parent / f".old-{folder.name}"
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
