# One entry point: `make` sets up and builds the default game, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
GAME ?= gongde-lunhui
PAPER ?= a4

.PHONY: all setup system build test test-fast fuzz lint bench docs clean

all: build

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' \
	  --config-settings editable_mode=compat  # a path entry, not an import hook: pnp starts faster
	touch $(STAMP)

setup: $(STAMP) system

# WeasyPrint needs Pango; HarfBuzz's subsetter makes each PDF several seconds faster.
HAS_LIB = $(PYTHON) -c "import ctypes.util, sys; sys.exit(not ctypes.util.find_library('$(1)'))"

system:
	@$(call HAS_LIB,pango-1.0) || { \
	  echo "WeasyPrint needs Pango: sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0"; exit 1; }
	@$(call HAS_LIB,harfbuzz-subset) || \
	  echo "note: libharfbuzz-subset0 is missing, so every PDF takes ~5 s longer to subset fonts;" \
	       "install it with: sudo apt-get install libharfbuzz-subset0"
	@command -v gs >/dev/null || \
	  echo "note: Ghostscript is missing, so \`pnp export --to printshop --cmyk\` cannot run;" \
	       "install it with: sudo apt-get install ghostscript"
	@{ command -v linkicc >/dev/null && command -v transicc >/dev/null; } || \
	  echo "note: LittleCMS's tools are missing, so \`pnp export --to printshop --cmyk\` cannot" \
	       "run; install them with: sudo apt-get install liblcms2-utils"

# pnp writes only into folders it marked as its own; a build/ an older pnp made has no mark.
build: setup
	@if [ -d build ] && [ ! -L build ] && [ ! -e build/.pnp-made ]; then \
	  echo "note: build/ was made by an older pnp, which did not mark its folders; it is made anew"; \
	  rm -rf build; fi
	$(BIN)/pnp build $(GAME) --paper $(PAPER)

test: setup
	$(BIN)/python -m pytest -q

# The edit loop: load, validate, geometry and the tiny packs; no real game is built.
test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

# Mutated game packs, many more examples than `make test` runs: findings, never a crash.
FUZZ_EXAMPLES ?= 5000
fuzz: setup
	PNP_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q tests/test_fuzz.py

bench: setup
	$(BIN)/python benchmarks/bench.py

# The pages written from the code: the command-line reference (a test fails when it drifts).
docs: setup
	$(BIN)/python -m generator.cli.reference docs/reference/cli.md

lint: setup
	$(BIN)/ruff check generator tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf build
