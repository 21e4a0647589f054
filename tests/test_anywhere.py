"""A pack in a designer's own folder: found by path or as the current folder, built into its
own build/ (or --out), options before or after the command, and a wheel that carries the
shared templates and fonts."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from generator import BUILD_DIR, CARDS_DIR, PROJECT_ROOT, cli
from generator.pack.place import PackPlace, locate_pack

from .conftest import page_texts


def _own_folder(packs: Path, tmp_path: Path) -> Path:
    """The mini pack moved to a folder of the designer's, outside any cards/."""
    pack = tmp_path / "designer" / "my game"
    shutil.move(packs / "mini", pack)
    return pack


def _digests(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_pack_is_found_by_folder_by_name_or_as_the_current_folder(packs: Path, tmp_path: Path,
                                                                      monkeypatch) -> None:
    pack = _own_folder(packs, tmp_path)
    outside = PackPlace("my game", pack.parent, pack / "build")
    assert locate_pack(str(pack)) == outside
    assert locate_pack(str(pack / "game.yaml")) == outside
    assert locate_pack("gongde-lunhui") == PackPlace("gongde-lunhui", CARDS_DIR, BUILD_DIR)
    assert locate_pack(None) == PackPlace("gongde-lunhui", CARDS_DIR, BUILD_DIR)
    assert locate_pack("x", packs) == PackPlace("x", packs, BUILD_DIR)
    assert locate_pack(str(CARDS_DIR / "thbattle")) == PackPlace("thbattle", CARDS_DIR, BUILD_DIR)
    monkeypatch.chdir(pack)
    assert locate_pack(None) == outside
    assert locate_pack(".") == outside
    monkeypatch.chdir(pack.parent)
    assert locate_pack("my game") == outside


def test_a_pack_folder_builds_into_its_own_build_or_out_and_its_files_stay(
        packs: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    pack = _own_folder(packs, tmp_path)
    before = _digests(pack)
    monkeypatch.chdir(pack)
    assert cli.main(["--paper", "letter", "build"]) == 0  # an option before the command
    assert page_texts(pack / "build" / "my game" / "cards-letter.pdf")[0].startswith("火球术")
    assert cli.main(["build", "--paper", "letter"]) == 0
    assert "my game: up to date" in capsys.readouterr().err  # its build/ is not an input
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "elsewhere"
    assert cli.main(["build", str(pack), "--out", str(out)]) == 0
    assert (out / "my game" / "cards-a4.pdf").is_file()
    assert not (pack / "build" / "my game" / "cards-a4.pdf").exists()
    after = {name: digest for name, digest in _digests(pack).items()
             if not name.startswith("build/")}
    assert after == before


def test_an_option_value_is_never_taken_for_the_command(packs: Path, tmp_path: Path) -> None:
    out = tmp_path / "validate"
    assert cli.main(["--out", str(out), "--cards", str(packs), "validate", "mini"]) == 0
    assert cli.main(["--cards", str(packs), "list"]) == 0
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--paper", "letter", "bulid"])
    assert stopped.value.code == 2


def test_the_wheel_carries_the_templates_and_fonts_and_runs_from_anywhere(
        packs: Path, tmp_path: Path) -> None:
    source = tmp_path / "source"
    for name in ("generator", "templates", "fonts"):
        shutil.copytree(PROJECT_ROOT / name, source / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT_ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--disable-pip-version-check", "-w",
                    str(tmp_path / "wheel"), str(source)], check=True, capture_output=True)
    [wheel] = (tmp_path / "wheel").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shared = {path.relative_to(PROJECT_ROOT) for folder in ("templates", "fonts")
              for path in (PROJECT_ROOT / folder).rglob("*") if path.is_file()}
    assert {f"generator/data/{path}" for path in shared} <= names
    code = {str(path.relative_to(PROJECT_ROOT)) for path in (PROJECT_ROOT / "generator").rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}
    assert "generator/outputs/sheets.py" in code and code <= names  # every package is listed
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    pack = _own_folder(packs, tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "-c", "import generator, sys; from generator import "
                          "cli; print(generator.INSTALLED, generator.TEMPLATES_DIR); "
                          "sys.exit(cli.main(['validate']))"],
                         cwd=pack, env=environment, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [f"True {site / 'generator' / 'data' / 'templates'}",
                                       "my game: 0 errors, 0 warnings"]
