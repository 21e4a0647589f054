"""The pnp command: exit codes and clean messages, never a traceback for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from generator import cli

from .conftest import give_rulebook


def test_build_validate_and_list(packs: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    cards = ["--cards", str(packs)]
    assert cli.main([*cards, "build", "mini", "--paper", "letter", "--out", str(out)]) == 0
    manifest = json.loads((out / "mini" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["outputs"] == [{"file": "cards-letter.pdf", "kind": "cards",
                                    "paper": "letter", "language": "zh-CN", "pages": 2,
                                    "decks": {"spells": {"faces": 4, "backs": 4}}}]
    assert "cards-letter.pdf: 2 pages" in capsys.readouterr().err
    assert cli.main([*cards, "validate", "mini", "--out", str(out)]) == 0
    assert capsys.readouterr().out == "mini: 0 errors, 0 warnings\n"
    assert cli.main([*cards, "list"]) == 0
    assert capsys.readouterr().out == "mini\t测试小包\tt1\t4 cards\n"


def test_each_paper_keeps_its_own_rulebook(packs: Path, tmp_path: Path) -> None:
    """A4, then Letter, then A4 again (up to date): neither rulebook is the other's paper."""
    give_rulebook(packs)
    cards = ["--cards", str(packs)]
    for paper in ("a4", "letter", "a4"):
        assert cli.main([*cards, "build", "mini", "--paper", paper, "--out", str(tmp_path)]) == 0
    for paper, size in (("a4", (595.28, 841.89)), ("letter", (612.0, 792.0))):
        box = PdfReader(tmp_path / "mini" / f"rulebook-{paper}.pdf").pages[0].mediabox
        assert (float(box.width), float(box.height)) == pytest.approx(size, abs=0.05)


def test_bad_input_exits_1_with_path_and_line(packs: Path, tmp_path: Path, capsys) -> None:
    spells = packs / "mini" / "spells.yaml"
    spells.write_text(spells.read_text(encoding="utf-8").replace("cost: 3", "cost: [3"),
                      encoding="utf-8")
    cards = ["--cards", str(packs)]
    assert cli.main([*cards, "build", "mini", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{spells}:4: error: E002: YAML syntax:" in err
    assert err.endswith("pnp: 1 error; nothing was written\n")
    assert cli.main([*cards, "validate", "mini", "--out", str(tmp_path)]) == 1


def test_unknown_paper_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["build", "--paper", "a3"])
    assert caught.value.code == 2
    assert "invalid choice: 'a3'" in capsys.readouterr().err


def test_the_default_game_validates_with_only_draft_warnings(default_a4: Path, capsys) -> None:
    assert cli.main(["validate", "--out", str(default_a4.parent)]) == 0
    lines = capsys.readouterr().out.splitlines()
    drafts = [line for line in lines[:-1] if ": warning: W001: card '" in line]
    assert len(drafts) == 36
    assert lines[:-1] == drafts  # nothing too faint, too small or near the cut either
    assert lines[-1] == f"gongde-lunhui: 0 errors, {len(lines) - 1} warnings"


def test_css_weasyprint_ignores_is_a_finding_at_its_line(packs: Path, tmp_path: Path,
                                                          capsys) -> None:
    """A pack's CSS that WeasyPrint cannot apply would silently change the print: it is a
    warning at its stylesheet's line, which --strict and validate see like any other."""
    game = packs / "mini" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8") + "stylesheet: style.css\n",
                    encoding="utf-8")
    style = packs / "mini" / "style.css"
    style.write_text("/* the pack's own */\n.title {\n  colour: red;\n}\n", encoding="utf-8")
    said = f"{style}:3: warning: W073: CSS ignored by WeasyPrint: `colour: red`, unknown property"
    build = ["--cards", str(packs), "build", "mini", "--out", str(tmp_path)]
    assert cli.main(build) == 0
    assert f"pnp: {said}\n" in capsys.readouterr().err
    assert cli.main([*build, "--strict", "--force"]) == 1
    err = capsys.readouterr().err
    assert err.endswith(f"{said}\npnp: 0 errors, 1 warning; nothing was written\n")
    assert cli.main(["--cards", str(packs), "validate", "mini", "--strict", "--out",
                     str(tmp_path)]) == 1
    assert capsys.readouterr().out == f"{said}\nmini: 0 errors, 1 warning\n"


def test_a_build_with_nothing_changed_is_skipped(packs: Path, tmp_path: Path) -> None:
    """Nothing is laid out, and WeasyPrint not even imported, when no input changed."""
    command = ["--cards", str(packs), "build", "mini", "--out", str(tmp_path)]
    assert cli.main(command) == 0
    pdf = tmp_path / "mini" / "cards-a4.pdf"
    first = pdf.stat().st_mtime_ns
    script = ("import sys; from generator import cli; code = cli.main(sys.argv[1:]); "
              "print(code, 'weasyprint' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", script, *command], capture_output=True,
                         text=True, check=True)
    assert run.stdout == "0 False\n"
    assert "mini: up to date" in run.stderr
    assert pdf.stat().st_mtime_ns == first
    spells = packs / "mini" / "spells.yaml"
    spells.write_text(spells.read_text(encoding="utf-8").replace("火球术", "大火球术"),
                      encoding="utf-8")
    assert cli.main(command) == 0
    assert pdf.stat().st_mtime_ns != first  # an edit rebuilds
    second = pdf.stat().st_mtime_ns
    assert cli.main([*command, "--force"]) == 0
    assert pdf.stat().st_mtime_ns != second


def test_validate_says_what_it_could_not_check(packs: Path, tmp_path: Path, capsys) -> None:
    """game.yaml that does not parse stops everything else, and both the finding and the
    summary say so."""
    game = packs / "mini" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("players: 1-2人\n",
                                                             "players: [1-2人\n"),
                    encoding="utf-8")
    command = ["--cards", str(packs), "validate", "mini", "--out", str(tmp_path)]
    assert cli.main(command) == 1
    first, summary = capsys.readouterr().out.splitlines()
    assert first.startswith(f"{game}:") and " error: E002: YAML syntax: " in first
    assert first.endswith("; nothing else was checked, as the rest depends on it")
    assert summary == ("mini: 1 error, 0 warnings; not checked: everything past loading "
                       "(game.yaml or its rules do not load)")


def test_a_bug_or_a_full_disk_is_one_line(packs: Path, tmp_path: Path, capsys,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from generator.pipeline import build

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out"))

    argv = ["--cards", str(packs), "validate", "mini", "--out", str(tmp_path / "out")]
    monkeypatch.setattr(build, "validate_game", broken)
    assert cli.main(argv) == 3
    assert capsys.readouterr().err == ("pnp: internal error: RuntimeError: boom (a bug in pnp; "
                                       "--debug shows the traceback)\n")
    monkeypatch.setattr(build, "validate_game", full)
    assert cli.main(argv) == 1
    assert capsys.readouterr().err == (f"pnp: error: No space left on device: {tmp_path}/out; "
                                       "nothing was written\n")
    with pytest.raises(OSError):
        cli.main(["--debug", *argv])


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_stop_pnp_like_ctrl_c(packs: Path, tmp_path: Path,
                                                 name: str) -> None:
    import signal
    import time

    from .conftest import give_template

    give_template(packs / "mini", "{% for i in range(100000) %}{% for j in range(100000) %}"
                                  "{% endfor %}{% endfor %}")  # busy for its 10 s limit
    command = [sys.executable, "-m", "generator.cli", "--cards", str(packs), "build", "mini",
               "--out", str(tmp_path / "out")]
    running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    time.sleep(2)
    running.send_signal(getattr(signal, name))
    _, err = running.communicate(timeout=30)
    assert running.returncode == 130, err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "mini").exists()


def test_list_reads_game_yaml_alone(packs: Path, capsys) -> None:
    import os

    spells = packs / "mini" / "spells.yaml"
    spells.unlink()
    os.mkfifo(spells)  # reading it would wait for ever
    assert cli.main(["--cards", str(packs), "list"]) == 0
    assert capsys.readouterr().out == "mini\t测试小包\tt1\t4 cards\n"


def test_the_cli_reference_page_is_the_parsers() -> None:
    """docs/reference/cli.md is what `make docs` writes from the parser: every command, its
    usage and options; a command or option added without `make docs` fails here."""
    from generator import PROJECT_ROOT
    from generator.cli import parser
    from generator.cli.reference import _commands, cli_reference

    page = (PROJECT_ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    written = cli_reference()
    assert written.count("\n## pnp ") == len(_commands(parser())) >= 14
    assert "usage: pnp export [-h]" in written
    assert page == written, "docs/reference/cli.md is stale: run `make docs`"


def test_an_error_outside_the_pack_is_a_finding_with_a_code_in_json(
        packs: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    """A printers.yaml mistake is an error with a code at its file and line: told as one line,
    and with --json as JSON on standard output."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "printers.yaml").write_text("home:\n  duplex: sideways\n", encoding="utf-8")
    command = ["--cards", str(packs), "validate", "mini", "--printer", "home"]
    assert cli.main(command) == 1
    assert capsys.readouterr().err == ("pnp: error: printers.yaml:1: printer 'home': duplex is "
                                       "long or short, not 'sideways'; nothing was written\n")
    assert cli.main([*command, "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"errors": [{
        "path": "printers.yaml", "line": 1, "code": "E101", "level": "error",
        "message": "printer 'home': duplex is long or short, not 'sideways'", "card": ""}]}
