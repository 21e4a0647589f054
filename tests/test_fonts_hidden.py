"""With the machine's fonts hidden from fontconfig, the five games build, byte for byte as
they do with them: no glyph of theirs comes from a font the project does not ship, and a
second build in another process gives the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from generator import CARDS_DIR, PROJECT_ROOT

from .conftest import Built

GAMES = sorted(path.parent.name for path in CARDS_DIR.glob("*/game.yaml"))
NO_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig></fontconfig>
"""  # no <dir>, no <include>: fontconfig knows no font but those a page adds


def test_there_are_five_games() -> None:
    assert len(GAMES) == 5, GAMES


def test_the_games_build_the_same_with_the_machines_fonts_hidden(tmp_path: Path,
                                                                   built: Built) -> None:
    config = tmp_path / "fonts.conf"
    config.write_text(NO_FONTS, encoding="utf-8")
    hidden = tmp_path / "hidden"
    # `pnp build` in a process of its own, as fontconfig reads FONTCONFIG_FILE once
    process = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "build", *GAMES, "--out", str(hidden),
         "--force"],
        cwd=PROJECT_ROOT, env={**os.environ, "FONTCONFIG_FILE": str(config)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        normal = {name: built(name, "a4") for name in GAMES}  # meanwhile, or built already
        _, err = process.communicate(timeout=600)
    finally:
        process.kill()
    assert process.returncode == 0, err[-3000:]
    for name in GAMES:  # a build of its own, in another process: reproducible byte for byte
        expected = sorted(path.name for path in normal[name].glob("*.pdf"))
        assert sorted(path.name for path in (hidden / name).glob("*.pdf")) == expected
        for pdf in [*expected, "manifest.json"]:
            assert (hidden / name / pdf).read_bytes() == (normal[name] / pdf).read_bytes(), \
                f"{name}/{pdf} differs with the machine's fonts hidden"
