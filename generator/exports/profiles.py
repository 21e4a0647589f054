"""The export profiles of templates/export.yaml: how many pixels a card side is drawn at, by
dpi and bleed or by a print shop's exact sizes. Read without loading the exports, for the
command line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import TEMPLATES_DIR
from ..data import read_data_yaml
from ..plan.geometry import Box

MM_PER_INCH = 25.4
MAX_DPI = 1200
Pixels = tuple[int, int]


@dataclass(frozen=True)
class Profile:
    """How large one card side is drawn: at `dpi` with `bleed` mm on every edge, or at the
    exact pixel `sizes` of the card sizes it lists (then no other size)."""

    name: str
    dpi: float | None = None
    bleed: float | None = None
    sizes: dict[str, Pixels] | None = None

    def pixels(self, size_name: str, cut: Box, bleed: float, dpi: float) -> Pixels | None:
        """The pixel size of a card side of `cut` mm, None when the profile refuses it."""
        if self.sizes is not None:
            return self.sizes.get(size_name)
        dpi, edge = self.dpi or dpi, bleed if self.bleed is None else self.bleed
        return (round((cut.width + 2 * edge) / MM_PER_INCH * dpi),
                round((cut.height + 2 * edge) / MM_PER_INCH * dpi))


def load_profiles(path: Path = TEMPLATES_DIR / "export.yaml") -> dict[str, Profile]:
    """The export profiles, by name."""
    data = read_data_yaml(path)["profiles"]
    return {name: Profile(name, spec.get("dpi"), spec.get("bleed"),
                          {size: (int(w), int(h)) for size, (w, h) in spec["sizes"].items()}
                          if "sizes" in spec else None)
            for name, spec in data.items()}


