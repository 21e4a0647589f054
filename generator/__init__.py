"""Print-and-play generator: game packs in YAML become print-ready PDFs."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CARDS_DIR = PROJECT_ROOT / "cards"
TEMPLATES_DIR = PROJECT_ROOT / "templates"
FONTS_DIR = PROJECT_ROOT / "fonts"
BUILD_DIR = PROJECT_ROOT / "build"
DEFAULT_GAME = "gongde-lunhui"
