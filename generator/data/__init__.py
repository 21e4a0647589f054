"""The project's own data: in a wheel, the shared templates and fonts (data/templates,
data/fonts), and in every install the packs `pnp new` writes (data/scaffolds). Its YAML files
are read here, with libyaml's safe loader when there is one."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def read_data_yaml(path: Path) -> Any:
    """One of the project's own YAML files (never a pack's: those keep their lines), read with
    the same safe subset in C where libyaml is there; yaml is imported here, when first needed."""
    import yaml

    safe = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=safe)  # noqa: S506 - safe
