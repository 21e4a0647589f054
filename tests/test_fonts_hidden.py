"""With the machine's fonts hidden from fontconfig, the default game builds byte for byte as
it does with them: no glyph of its comes from a font the project does not ship, and a second
build in another process gives the same bytes. One game: every pack draws from the same
registry of fonts, through the same code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from generator import DEFAULT_GAME, PROJECT_ROOT

from .conftest import Built

NO_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig></fontconfig>
"""  # no <dir>, no <include>: fontconfig knows no font but those a page adds


def start_hidden_build(folder: Path) -> subprocess.Popen:
    """`pnp build` of the default game into folder/hidden with no font of the machine's, in a
    process of its own (fontconfig reads FONTCONFIG_FILE once); conftest starts it as the
    session does, so it runs beside the other tests rather than after them."""
    config = folder / "fonts.conf"
    config.write_text(NO_FONTS, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "build", DEFAULT_GAME, "--out",
         str(folder / "hidden"), "--force"],
        cwd=PROJECT_ROOT, env={**os.environ, "FONTCONFIG_FILE": str(config)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_the_games_build_the_same_with_the_machines_fonts_hidden(
        hidden_build: tuple[subprocess.Popen, Path], built: Built) -> None:
    process, folder = hidden_build
    hidden = folder / "hidden"
    normal = {DEFAULT_GAME: built(DEFAULT_GAME, "a4")}  # meanwhile, or built already
    _, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    for name in normal:  # a build of its own, in another process: reproducible byte for byte
        expected = sorted(path.name for path in normal[name].glob("*.pdf"))
        assert sorted(path.name for path in (hidden / name).glob("*.pdf")) == expected
        for pdf in [*expected, "manifest.json"]:
            assert (hidden / name / pdf).read_bytes() == (normal[name] / pdf).read_bytes(), \
                f"{name}/{pdf} differs with the machine's fonts hidden"
