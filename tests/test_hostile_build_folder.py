"""A stranger's pack never touches the user's files through what pnp writes: the pack's own
build/, the caches, the export and reprint folders, the editions and the schemas (SECURITY.md).
Each case plants links or folders where pnp writes and checks that the user's folder is as it
was and that the message says what is wrong."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from generator import cli
from generator.editions import proof
from generator.editions.reprint import release
from generator.exports.base import ExportSettings
from generator.exports.run import export
from generator.layout.workers import Workers
from generator.pipeline.build import build_game
from generator.pipeline.owned import MARK, Refused, folder_at

from .conftest import edit


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    """A folder of the user's, outside the pack: notes, a picture, a folder named like the
    game and one named like an export."""
    folder = tmp_path / "mine"
    for sub in ("mini", "images"):
        (folder / sub).mkdir(parents=True)
        (folder / sub / "keep.txt").write_text("mine", encoding="utf-8")
    (folder / "notes.txt").write_text("my notes", encoding="utf-8")
    Image.new("RGB", (8, 8), "#123456").save(folder / "images" / "photo.png")
    return folder


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every file and link under a folder, with its content or where it points."""
    return {str(path.relative_to(folder)): os.readlink(path) if path.is_symlink() else
            b"" if path.is_dir() else path.read_bytes() for path in sorted(folder.rglob("*"))}


def _export(pack: Path, said: list[str], pool: Workers) -> Path:
    """Export the pack opened by its folder, into its own build/ as `pnp export .` does."""
    return export("mini", "images", ExportSettings(dpi=40), pack.parent, pack / "build",
                  said.append, pool)


def test_a_build_folder_that_came_with_the_pack_is_refused(packs: Path, mine: Path,
                                                           pool: Workers) -> None:
    """build/ shipped as a link to the user's folder, or as a folder with a link to it where
    the export's cached images go: refused before any work, the user's folder untouched."""
    pack, before = packs / "mini", _tree(mine)
    (pack / "build").symlink_to(mine, target_is_directory=True)
    with pytest.raises(Refused, match=f"^{pack / 'build'} is a symbolic link, not a folder "
                                      "pnp made; pnp neither follows nor replaces it"):
        build_game("mini", out_root=pack / "build", cards_dir=packs, workers=pool)
    (pack / "build").unlink()
    images = pack / "build" / ".cache" / "images" / "mini"
    images.mkdir(parents=True)
    (images / "images").symlink_to(mine / "images", target_is_directory=True)
    with pytest.raises(Refused, match=f"^{pack / 'build'} is a folder pnp did not make \\(it "
                                      "came with the pack, was copied, or an older pnp made it\\)"):
        _export(pack, [], pool)
    assert _tree(mine) == before


def test_the_command_line_says_so_in_one_line(packs: Path, mine: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`pnp build PACK` whose build/ is a link: exit 1, one line, no traceback, nothing laid
    out."""
    pack = packs / "mini"
    (pack / "build").symlink_to(mine, target_is_directory=True)
    assert cli.main(["build", str(pack)]) == 1
    err = capsys.readouterr().err
    assert err == (f"pnp: error: {pack / 'build'} is a symbolic link, not a folder pnp made; "
                   "pnp neither follows nor replaces it (move it away); nothing was written\n")
    assert [path.name for path in (mine / "mini").iterdir()] == ["keep.txt"]


def test_links_planted_in_a_build_folder_pnp_made_are_never_followed(
        packs: Path, mine: Path, pool: Workers) -> None:
    """In a build/ pnp made: a link where the cached images go is a cache not used (said once,
    the export still whole); a link or a folder pnp did not make where the export goes is
    refused; the user's folder untouched every time."""
    pack, before = packs / "mini", _tree(mine)
    build_game("mini", out_root=pack / "build", cards_dir=packs, workers=pool)
    cached = pack / "build" / ".cache" / "images" / "mini" / "images"
    with folder_at(pack / "build", ".cache", "images", "mini"):
        pass
    cached.symlink_to(mine / "images", target_is_directory=True)
    said: list[str] = []
    folder = _export(pack, said, pool)
    assert f"mini: cache: {cached} is a symbolic link, not a folder pnp made; pnp neither " \
           "follows nor replaces it (move it away); the cache is not used" in said
    assert (folder / "spells" / "001-S1-front.png").is_file()
    exported = pack / "build" / "mini-export"
    os.rename(exported, exported.with_name("gone"))
    exported.symlink_to(mine, target_is_directory=True)
    with pytest.raises(Refused, match=f"^{exported} is a symbolic link, not a folder pnp made"):
        _export(pack, [], pool)
    exported.unlink()
    (exported / "images").mkdir(parents=True)
    with pytest.raises(Refused, match=f"^{exported} is a folder pnp did not make"):
        _export(pack, [], pool)
    assert _tree(mine) == before


def test_a_cached_image_that_was_changed_is_drawn_again(packs: Path, pool: Workers) -> None:
    """A kept image whose bytes are not those it was kept with (a forged picture, a truncated
    file) is never exported: said, drawn again, and the export as the first one."""
    pack = packs / "mini"
    said: list[str] = []
    first = _export(pack, said, pool)
    image = (first / "spells" / "001-S1-front.png").read_bytes()
    kept = sorted((pack / "build" / ".cache" / "images" / "mini" / "images").glob("*.image"))
    assert kept
    for path in kept:
        path.write_bytes(Image.new("RGB", (8, 8), "#123456").tobytes())
    said.clear()
    again = _export(pack, said, pool)
    assert (again / "spells" / "001-S1-front.png").read_bytes() == image
    assert f"{len(kept)} images drawn" in said[-1]
    assert any("was damaged (its image does not match its hash); drawn again" in line
               for line in said), said


def test_a_killed_export_leaves_the_old_folder_whole_and_is_swept(
        packs: Path, pool: Workers, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run stopped while it writes leaves the last export as it was and no staging folder;
    one a killed run left (its process gone) is deleted by the next run; a folder pnp did not
    make is never swept."""
    pack = packs / "mini"
    folder = _export(pack, [], pool)
    before = _tree(folder)
    with folder_at(pack / "build", "mini-export") as parent:
        parent.sub(".images.99999999.abcd.tmp").close()  # as a killed run leaves it
    os.mkdir(pack / "build" / "mini-export" / ".notmine.99999999.abcd.tmp")
    import generator.exports.run

    def stopped(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(generator.exports.run, "write_tree", stopped)
    edit(pack / "spells.yaml", "火球术", "炎爆术")
    with pytest.raises(KeyboardInterrupt):
        _export(pack, [], pool)
    assert _tree(folder) == before
    monkeypatch.undo()
    _export(pack, [], pool)
    assert sorted(os.listdir(pack / "build" / "mini-export")) == [
        ".notmine.99999999.abcd.tmp", MARK, "images"]


def test_schemas_and_modelines_never_write_through_a_link(
        packs: Path, mine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A schema's place, or the schemas folder, a link to the user's file or folder: exit 1
    and the user's files as they were. A planted temporary name beside a deck file is never
    written through: the deck file gets its modeline and stays a file."""
    pack, before = packs / "mini", _tree(mine)
    (pack / "schemas").mkdir()
    (pack / "schemas" / "game.schema.json").symlink_to(mine / "notes.txt")
    assert cli.main(["schema", str(pack)]) == 1
    assert capsys.readouterr().err == (
        f"pnp: error: {pack / 'schemas' / 'game.schema.json'} is a symbolic link; pnp replaces "
        "only a file it wrote; nothing was written\n")
    (pack / "schemas" / "game.schema.json").unlink()
    (pack / "schemas").rmdir()
    (pack / "schemas").symlink_to(mine, target_is_directory=True)
    assert cli.main(["schema", str(pack)]) == 1
    assert f"{pack / 'schemas'} is a symbolic link" in capsys.readouterr().err
    (pack / "schemas").unlink()
    (pack / ".spells.yaml.pnp-schema").symlink_to(mine / "notes.txt")
    assert cli.main(["schema", str(pack), "--modeline"]) == 0
    spells = pack / "spells.yaml"
    assert not spells.is_symlink()
    assert spells.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=")
    assert _tree(mine) == before


def test_an_edition_is_never_written_through_a_link(packs: Path, mine: Path) -> None:
    """editions/ a link out of the pack, or editions/e1.json a dangling link: refused, and
    nothing written outside the pack."""
    pack, before = packs / "mini", _tree(mine)
    (pack / "editions").symlink_to(mine, target_is_directory=True)
    with pytest.raises(Exception, match=f"{pack / 'editions'} is a symbolic link"):
        release("mini", None, packs)
    (pack / "editions").unlink()
    (pack / "editions").mkdir()
    (pack / "editions" / "e1.json").symlink_to(mine / "new.json")
    with pytest.raises(Exception, match="edition 'e1' exists already"):
        release("mini", None, packs)
    assert _tree(mine) == before


def test_kept_pictures_are_sealed_and_stay_in_their_folder(packs: Path, mine: Path,
                                                           pool: Workers) -> None:
    """A kept picture replaced by a link to the user's picture is left out, said; an edition
    named to climb out of the cache keeps its pictures inside it."""
    pack = packs / "mini"
    out = pack.parent / "out"
    release("mini", "first", packs, out, workers=pool)
    folder = out / ".cache" / "editions" / "mini" / "first"
    pictures = sorted(folder.glob("*.png"))
    assert pictures
    for path in pictures:
        path.unlink()
        path.symlink_to(mine / "images" / "photo.png")
    said: list[str] = []
    store = proof.kept_store(out, "mini", "first", pack, said.append, read_only=True)
    assert proof.kept(store, ["spells/S1", "spells/S2"]) == {}
    assert any("is a symbolic link" in line for line in said), said
    climbing = proof.kept_store(out, "mini", "../../../../evil", pack)
    assert climbing.folder.parent == out / ".cache" / "editions" / "mini"


def test_a_copy_of_a_build_folder_pnp_made_is_not_taken_for_it(packs: Path, tmp_path: Path,
                                                               pool: Workers) -> None:
    """A pack archived or copied with its build/ (marks included) arrives with a build/ pnp
    did not make here: refused, its files left as they were."""
    pack = packs / "mini"
    build_game("mini", out_root=pack / "build", cards_dir=packs, workers=pool)
    copied = tmp_path / "elsewhere" / "mini"
    shutil.copytree(pack, copied, symlinks=True)
    assert (copied / "build" / MARK).is_file()
    before = _tree(copied / "build")
    with pytest.raises(Refused, match=f"^{copied / 'build'} is a folder pnp did not make"):
        build_game("mini", out_root=copied / "build", cards_dir=copied.parent, workers=pool)
    assert _tree(copied / "build") == before


def test_a_file_hard_linked_where_pnp_writes_keeps_its_content(packs: Path, mine: Path) -> None:
    """A schema's place holding a hard link to the user's file: the schema is written as a new
    file in its place, and the user's file keeps its content."""
    pack = packs / "mini"
    (pack / "schemas").mkdir()
    os.link(mine / "notes.txt", pack / "schemas" / "game.schema.json")
    assert cli.main(["schema", str(pack)]) == 0
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "my notes"
    assert (pack / "schemas" / "game.schema.json").read_text(encoding="utf-8").startswith("{")


def test_runs_side_by_side_make_one_marked_folder(tmp_path: Path) -> None:
    """Eight runs making the same folders at once all open the one that appears, marked, and
    leave nothing else behind."""
    out = tmp_path / "out"

    def make() -> bool:
        with folder_at(out, ".cache", "parts", "mini") as folder:
            return folder.marked()

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda _: make(), range(8))) == [True] * 8
    assert sorted(os.listdir(out / ".cache")) == [MARK, "parts"]
    assert sorted(os.listdir(out / ".cache" / "parts" / "mini")) == [MARK]


def test_a_release_that_cannot_keep_its_pictures_writes_no_record(packs: Path,
                                                                   mine: Path) -> None:
    """The build folder refused: the release stops before anything, and no edition record is
    left in the pack."""
    pack = packs / "mini"
    (pack / "build").symlink_to(mine, target_is_directory=True)
    with pytest.raises(Refused):
        release("mini", None, packs, pack / "build")
    assert not (pack / "editions").exists()


def test_an_export_folder_is_readable_by_others(packs: Path, pool: Workers) -> None:
    """An export is put in place with the modes of any folder the user makes (not 0700)."""
    folder = _export(packs / "mini", [], pool)
    mask = os.umask(0)
    os.umask(mask)
    assert folder.stat().st_mode & 0o777 == 0o755 & ~mask
    assert (folder / "spells").stat().st_mode & 0o777 == 0o755 & ~mask
