"""A pack's git revision is read as data (`pnp changes/reprint --since REV`): the pack's own
repository, filters, attributes, links and configuration never run a command, a revision is
never taken as an option, and a revision's files keep to the pack's size limit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from generator import cli
from generator.check.findings import PnpError
from generator.editions.reprint import changes, release

from .conftest import edit


def _git(folder: Path, *args: str) -> str:
    """A git command's output, run in `folder` as the test's own user would."""
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit(folder: Path) -> None:
    """Commit everything in the repository at `folder`, made when there is none yet."""
    if not (folder / ".git").exists():
        _git(folder, "init", "-q")
    _git(folder, "add", ".")
    _git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a change")


def _changed(packs: Path, since: str) -> list[str]:
    found, _ = changes("mini", since, packs)
    return [item.key for item in found.changed]


def _pnp(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`pnp ARGS`'s exit code, output and error output."""
    code = cli.main(list(args))
    said = capsys.readouterr()
    return code, said.out, said.err


@pytest.mark.parametrize("attributes", [".gitattributes", ".git/info/attributes"])
def test_a_smudge_filter_the_repository_names_never_runs(packs: Path, tmp_path: Path,
                                                          attributes: str) -> None:
    ran = tmp_path / "filter-ran"
    _commit(packs)
    (packs / attributes).write_text("*.yaml filter=evil\n", encoding="utf-8")
    _git(packs, "config", "filter.evil.smudge", f"touch '{ran}'; sed 's/cost: 3/cost: 9/'")
    if attributes == ".gitattributes":
        _commit(packs)
    assert _changed(packs, "HEAD") == []  # the raw blob: the filter would make S1 cost 9
    assert not ran.exists()


def test_a_command_the_repository_config_names_never_runs(packs: Path, tmp_path: Path,
                                                          capsys) -> None:
    ran = tmp_path / "fsmonitor-ran"
    _commit(packs)
    _git(packs, "config", "core.fsmonitor", f"touch '{ran}'; false")
    code, _, err = _pnp(capsys, "changes", "--cards", str(packs), "mini",
                        "--since=:mini/spells.yaml")  # a path in the index, which git reads
    assert (code, err) == (1, "pnp: error: mini: ':mini/spells.yaml' is neither an edition nor "
                              "a git revision of the pack (not a commit of the pack's "
                              "repository); nothing was written\n")
    assert not ran.exists()


@pytest.mark.parametrize("option", ["--output={kept}", "--remote={kept}", "--list"])
def test_a_revision_is_never_read_as_an_option(packs: Path, tmp_path: Path, capsys,
                                               option: str) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("kept\n", encoding="utf-8")
    _commit(packs)
    since = option.format(kept=kept)
    for command in ("changes", "reprint"):
        code, out, err = _pnp(capsys, command, "--cards", str(packs), "mini", f"--since={since}",
                              "--out", str(tmp_path / "out"))
        assert (code, out, err) == (1, "", f"pnp: error: mini: '{since}' is neither an edition "
                                           "nor a git revision of the pack (a revision does not "
                                           "start with '-' nor hold a control character); "
                                           "nothing was written\n")
    assert kept.read_text(encoding="utf-8") == "kept\n"
    assert not (tmp_path / "out").exists()


def test_a_file_over_the_size_limit_in_a_revision_is_refused_by_name(packs: Path,
                                                                     capsys) -> None:
    pack = packs / "mini"
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nlimits: {file_mb: 1}\n")
    (pack / "big.bin").write_bytes(bytes(2_000_000))
    _commit(packs)
    code, out, err = _pnp(capsys, "changes", "--cards", str(packs), "mini", "--since", "HEAD")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "HEAD:mini/big.bin: error: E006: 'big.bin' is 2 MB, over the limit of 1 MB "
        "(`limits: file_mb` in game.yaml)", "pnp: 1 error; nothing was written"]


def test_a_symlink_in_a_revision_is_a_finding(packs: Path, capsys) -> None:
    os.symlink("/etc/passwd", packs / "mini" / "rules.yaml")
    _commit(packs)
    code, out, err = _pnp(capsys, "changes", "--cards", str(packs), "mini", "--since", "HEAD")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "HEAD:mini/rules.yaml: error: E050: a symlink; a revision is read without its links",
        "pnp: 1 error; nothing was written"]


def test_a_pack_that_is_its_repositorys_root_compares_with_a_revision(packs: Path,
                                                                      capsys) -> None:
    pack = packs / "mini"
    _commit(pack)
    edit(pack / "spells.yaml", "cost: 2", "cost: 5")
    code, out, _ = _pnp(capsys, "changes", str(pack), "--since", "HEAD", "--json")
    assert code == 0
    assert [(item["key"], item["why"]) for item in json.loads(out)["changed"]] == [
        ("spells/S2", ["cost: 2 → 5"])]


def test_a_revision_without_the_pack_is_a_clear_error(packs: Path, capsys) -> None:
    (packs / "notes.txt").write_text("not the pack\n", encoding="utf-8")
    _git(packs, "init", "-q")
    _git(packs, "add", "notes.txt")
    _git(packs, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "notes")
    code, out, err = _pnp(capsys, "changes", "--cards", str(packs), "mini", "--since", "HEAD")
    assert (code, out, err) == (1, "", "pnp: error: mini: git revision 'HEAD' cannot be read (it "
                                       "holds no file in mini/); nothing was written\n")


def test_an_edition_named_like_a_revision_is_refused(packs: Path) -> None:
    """An edition whose name is also a git revision (a tag, a branch) never shadows it: the
    name is refused until the edition is renamed."""
    pack = packs / "mini"
    release("mini", "first", packs)
    record = json.loads((pack / "editions" / "first.json").read_text(encoding="utf-8"))
    _commit(packs)
    _git(packs, "tag", "first")
    edit(pack / "spells.yaml", "cost: 2", "cost: 5")
    _commit(packs)
    with pytest.raises(PnpError) as caught:
        changes("mini", "first", packs)
    assert str(caught.value) == (
        f"mini: 'first' is both an edition of the pack and a git revision (commit "
        f"{_git(packs, 'rev-parse', 'first')[:12]}): rename the edition (its `edition` in "
        f"{pack / 'editions'}) so that --since names one of them")
    (pack / "editions" / "first.json").write_text(json.dumps({**record, "edition": "one"}),
                                                  encoding="utf-8")
    assert _changed(packs, "one") == ["spells/S2"]  # renamed, it is an edition again
    assert _changed(packs, "first") == ["spells/S2"]  # and the name a revision


def test_export_subst_leaves_an_unchanged_card_unchanged(packs: Path) -> None:
    pack = packs / "mini"
    edit(pack / "spells.yaml", "name: 冰冻术", "name: 冰冻术 $Format:%H$")
    (pack / ".gitattributes").write_text("*.yaml export-subst\n", encoding="utf-8")
    _commit(packs)
    found, _ = changes("mini", "HEAD", packs)
    assert (found.changed, found.added, found.removed, found.counts) == ([], [], [], [])


def test_the_callers_git_environment_does_not_reach_the_packs_repository(
        packs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _commit(packs)
    edit(packs / "mini" / "spells.yaml", "cost: 1", "cost: 4")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='touch {tmp_path / 'ran'}'")
    assert _changed(packs, "HEAD") == ["spells/S3"]
    assert not (tmp_path / "ran").exists()
