"""A stylesheet edit reaches only the faces whose drawing it can change: a face's fingerprint,
and so the revision tag it prints, holds only the rules of the page's stylesheet that can reach
it (generator/plan/style.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from generator import cli
from generator.editions.reprint import changes, release
from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, build_game
from generator.plan.style import PageStyle, deck_names, html_names

from .conftest import edit, page_texts

STYLE = """\
.face--spells .footer { letter-spacing: 0.02em; }
.nobody-uses-this { color: #123456; }
:root { --spare: 1mm; }
"""
FRONTS = ["spells/S1", "spells/S2", "spells/S3"]
BACKS = ["spells/back:blue", "spells/back:green", "spells/back:red"]


def _styled(packs: Path) -> Path:
    """The tiny pack with a stylesheet of its own, released as `first`."""
    pack = packs / "mini"
    (pack / "style.css").write_text(STYLE, encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    release("mini", "first", packs)
    return pack


def _changed(packs: Path, capsys) -> dict[str, list[str]]:
    """What `pnp changes --json` lists: each face that prints differently, and why."""
    assert cli.main(["changes", "--cards", str(packs), "mini", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    found, _ = changes("mini", None, packs)
    assert [entry["key"] for entry in said["changed"]] == [item.key for item in found.changed]
    return {item.key: item.why for item in found.changed}


def _printed_tags(packs: Path, out: Path, pool: Workers) -> dict[str, str]:
    """The revision tag each front prints, read off the built sheets: card id → tag."""
    build_game("mini", BuildOptions(only=("sheets",)), out_root=out, cards_dir=packs,
               workers=pool)
    found = re.findall(r"t1·([A-Z]{4})(S\d)", "".join(page_texts(out / "mini" / "cards-a4.pdf")))
    return dict((card, tag) for tag, card in found)


def _recorded_tags(packs: Path) -> dict[str, str]:
    """The tag each front has in the first edition's record."""
    record = json.loads((packs / "mini" / "editions" / "first.json").read_text("utf-8"))
    return {key.split("/")[1]: face["tag"] for key, face in record["faces"].items()
            if key in FRONTS}


def test_a_rule_no_face_uses_changes_no_face_and_no_tag(packs: Path, tmp_path: Path,
                                                        pool: Workers, capsys) -> None:
    pack = _styled(packs)
    released = _recorded_tags(packs)
    assert _printed_tags(packs, tmp_path / "before", pool) == released
    edit(pack / "style.css", "color: #123456", "color: #654321; font-size: 30pt")
    assert _changed(packs, capsys) == {}
    assert _printed_tags(packs, tmp_path / "after", pool) == released


def test_a_rule_the_fronts_use_restyles_each_front_and_no_back(packs: Path, tmp_path: Path,
                                                               pool: Workers, capsys) -> None:
    pack = _styled(packs)
    released = _recorded_tags(packs)
    edit(pack / "style.css", "letter-spacing: 0.02em", "letter-spacing: 0.05em")
    assert _changed(packs, capsys) == {key: ["restyled"] for key in FRONTS}
    printed = _printed_tags(packs, tmp_path / "out", pool)
    assert sorted(printed) == ["S1", "S2", "S3"]
    assert all(printed[card] != released[card] for card in printed)


def test_a_rule_reaching_through_an_ancestor_restyles_the_faces_under_it(packs: Path,
                                                                         capsys) -> None:
    pack = _styled(packs)
    edit(pack / "style.css", ".nobody-uses-this", ".face--spells .title { margin-top: 1mm; }\n"
         ".back .title { margin-top: 1mm; }\n.nobody-uses-this")
    assert _changed(packs, capsys) == {key: ["restyled"] for key in FRONTS}  # no back has one


def test_custom_properties_on_root_reach_every_face(packs: Path, capsys) -> None:
    pack = _styled(packs)
    edit(pack / "style.css", "--spare: 1mm", "--spare: 2mm")
    assert _changed(packs, capsys) == {key: ["restyled"] for key in FRONTS + BACKS}


def test_at_rules_and_what_holds_a_face_reach_every_face(packs: Path, capsys) -> None:
    pack = _styled(packs)
    edit(pack / "style.css", ".nobody-uses-this", "@media print { .nobody-uses-this {} }\n"
         ".nobody-uses-this")
    assert sorted(_changed(packs, capsys)) == sorted(FRONTS + BACKS)
    release("mini", "second", packs)
    edit(pack / "style.css", ".nobody-uses-this", ".deck--spells { color: #111111; }\n"
         ".nobody-uses-this")
    assert sorted(_changed(packs, capsys)) == sorted(FRONTS + BACKS)


def test_what_a_rule_needs_of_a_face() -> None:
    """Each name a selector needs must be in the face or what holds it; combinators and
    pseudo-classes are not tested, so a rule never misses a face it matches."""
    style = PageStyle("a.b > c:first-child::before {x:1} #i[data-k], .z {x:2} :not(.q) p {x:3}"
                      " .x:hover {x:4} .y:nth-child(2) .w {x:5} @page {size: a4} ..bad {x:6}"
                      " .sheet:last-child {x:7} #face-spells\\.0 {x:8} .deck--other {x:9}")
    face = html_names('<A class="b x" data-K=1 title="1 > 0"><c id=i></c></A><p>')
    reached = style.reaching(face | deck_names("spells"))
    assert [rule.split("{")[1].rstrip("}") for rule in reached] == [
        "x:1", "x:2", "x:3", "x:4", "size: a4", "x:6", "x:7", "x:8"]
    assert html_names("<p class='a&amp;b' id=\"q\">") == {"p", "[class", ".a&b", "[id", "#q"}


def test_a_tag_a_pack_leaves_unclosed_is_read_in_linear_time() -> None:
    """A pack's template may write `<a ="="="…` with no `>`: reading its names must not take
    exponential time (before, 22 of them took 1.7 s, and each two more four times as long)."""
    for unclosed in ('<a ' + '=""' * 5000 + '="', '<a ' + '="x" ' * 5000):
        assert html_names(unclosed) == set()  # no tag closes: no names, and at once
