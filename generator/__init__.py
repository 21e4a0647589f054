"""Print-and-play generator: game packs in YAML become print-ready PDFs."""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
# A checkout holds templates/ and fonts/ beside the package; an installed wheel carries them
# inside it as data/templates and data/fonts (pyproject maps them in), and its packs and build/
# are the current folder's.
_CHECKOUT = PACKAGE_DIR.parent
INSTALLED = not (_CHECKOUT / "templates" / "print.yaml").is_file()
PROJECT_ROOT = PACKAGE_DIR if INSTALLED else _CHECKOUT
_DATA = PACKAGE_DIR / "data" if INSTALLED else _CHECKOUT
TEMPLATES_DIR = _DATA / "templates"
FONTS_DIR = _DATA / "fonts"
CARDS_DIR = Path.cwd() / "cards" if INSTALLED else PROJECT_ROOT / "cards"
BUILD_DIR = Path.cwd() / "build" if INSTALLED else PROJECT_ROOT / "build"
PACK_BUILD = "build"  # a pack outside CARDS_DIR builds into this folder of its own
DEFAULT_GAME = "gongde-lunhui"
