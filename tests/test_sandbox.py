"""Pack templates run in Jinja's sandbox, within the game's limits: Python stays out of reach,
a runaway template is a finding, and every failure names the template's file and line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.check.findings import told
from generator.pipeline.build import check

from .conftest import copy_real_pack, edit, give_template

ESCAPE = "{{ cycler.__init__.__globals__.os.popen('touch %s').read() }}"


def _limit(pack: Path, limit: str) -> None:
    edit(pack / "game.yaml", "players: 1-2人\n", f"players: 1-2人\nlimits: {{{limit}}}\n")


def _found(cards: Path, name: str = "mini") -> list[str]:
    """What checking a pack finds, as printed: one line a mistake."""
    return [str(finding) for finding in told(check(name, cards).findings)]


def test_a_card_template_cannot_reach_python(packs: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    pack = packs / "mini"
    template = give_template(pack, "\n" + "{{ card.__class__.__mro__ }}\n")
    assert _found(packs) == [f"{template}:3: error: E062: the sandbox refuses this: access to "
                             "attribute '__class__' of 'Card_spells' object is unsafe. (3 "
                             "cards: S1, S2, S3)"]
    template.write_text(template.read_text(encoding="utf-8").replace(
        "{{ card.__class__.__mro__ }}", ESCAPE % marker), encoding="utf-8")
    assert _found(packs) == [f"{template}:3: error: E062: the sandbox refuses this: access to "
                             "attribute '__init__' of 'StrictUndefined' object is unsafe. (3 "
                             "cards: S1, S2, S3)"]
    assert not marker.exists()  # cycler is not even there


@pytest.mark.parametrize(("expression", "message"), [
    ("{{ ''.__class__.__base__ }}", "access to attribute '__class__' of 'str' object is "
                                   "unsafe."),
    ("{{ 'x' * 1000000000 }}", "a repetition past the template's output limit"),
    ("{{ [1] * 1000000000 }}", "a repetition past the template's output limit"),
    ("{{ 2 ** 100000 }}", "the power 2 ** 100000 is too large"),
    ("{{ '%099999d' % 1 }}", "a format width or precision of 10,000 or more"),
    ("{{ '%099999d'|format(1) }}", "a format width or precision of 10,000 or more"),
    ("{{ 'x'|center(1000000000) }}", "a width of 1000000000, past the template's output limit"),
    ("{{ 'x'.ljust(1000000000) }}", "a call with the number 1000000000, past the template's "
                                   "output limit"),
])
def test_what_would_build_a_huge_value_is_refused_before_it_runs(
        packs: Path, expression: str, message: str) -> None:
    template = give_template(packs / "mini", "\n" + expression + "\n")
    assert _found(packs) == [f"{template}:3: error: E062: the sandbox refuses this: {message} "
                             "(3 cards: S1, S2, S3)"]


def test_a_template_that_runs_too_long_is_stopped(packs: Path) -> None:
    pack = packs / "mini"
    _limit(pack, "template_seconds: 0.3")
    template = give_template(pack, "\n{% for i in range(100000) %}{% for j in range(100000) %}"
                                   "{% endfor %}{% endfor %}\n")
    found = _found(packs)
    assert found == [f"{template}:3: error: E062: it runs past 0.3 s (`limits: "
                     "template_seconds` in game.yaml) (3 cards: S1, S2, S3)"]


def test_a_template_that_writes_too_much_is_stopped(packs: Path) -> None:
    pack = packs / "mini"
    _limit(pack, "template_output_mb: 1")
    template = give_template(pack, "\n{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}\n")
    spells = pack / "spells.yaml"
    assert _found(packs) == [  # at each card, as no line of the template wrote too much
        f"{spells}:{line}: error: E062: it writes more than 1 MB (`limits: template_output_mb` "
        "in game.yaml)" for line in (1, 8, 12)]
    assert template.is_file()


def test_a_rulebook_macro_cannot_reach_python(packs: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    pack = packs / "mini"
    macros = pack / "templates" / "evil.md.j2"
    macros.parent.mkdir(parents=True, exist_ok=True)
    macros.write_text("{% macro go() %}\n{{ ''.__class__.__mro__ }}\n"
                      "{% endmacro %}\n", encoding="utf-8")
    rulebook = pack / "rulebook.md"
    rulebook.write_text('{% from "evil.md.j2" import go %}\n# 规则\n\n' + "{{ go() }}\n",
                        encoding="utf-8")
    found = _found(packs)
    assert f"{macros}:2: error: E062: rulebook: the sandbox refuses this: access to attribute " \
           "'__class__' of 'str' object is unsafe." in found
    assert not marker.exists()


def test_a_symlinked_template_pointing_out_is_refused(packs: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.html.j2"
    secret.write_text("SECRET", encoding="utf-8")
    pack = packs / "mini"
    template = give_template(pack, "")
    template.unlink()
    os.symlink(secret, template)
    found = _found(packs)
    assert f"{pack / 'game.yaml'}:16: error: E050: deck 'spells': '{template}' lies outside " \
           "the game pack" in found
    assert not any("SECRET" in line for line in found)


def test_a_template_syntax_error_is_at_its_own_line(packs: Path) -> None:
    template = give_template(packs / "mini", "\n\n{% if %}\n")
    assert _found(packs) == [f"{template}:4: error: E060: deck 'spells': Expected an "
                             "expression, got 'end of statement block'"]


def test_a_mark_at_a_word_on_a_track_is_a_finding(tmp_path: Path) -> None:
    cards = copy_real_pack(tmp_path)
    track = cards / "gongde-lunhui" / "track-saved.yaml"
    edit(track, 'at: "{saved.goal}"', 'at: "ten"')
    found = [str(f) for f in check("gongde-lunhui", cards).findings if f.level == "error"]
    assert found == [f"{track}:2: error: E060: unsupported operand type(s) for -: 'str' and "
                     "'int' (template templates/cards/track.html.j2:38)"]
