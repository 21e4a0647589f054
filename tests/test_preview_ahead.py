"""`pnp serve`'s refresh lays out the faces while the pack is checked (preview/session.py:
Ahead): an edited card is laid out before the checks end, and what a card the checks leave
out would find is never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.layout.workers import Workers
from generator.pipeline import build
from generator.pipeline.cache import BuildOptions
from generator.preview.session import Preview
from generator.preview.snapshot import Snapshot

from .conftest import edit

S3 = 'data-source="S3"'  # in the faces part laying out the card S3


def _preview(cards: Path, pool: Workers) -> tuple[Preview, list[Snapshot]]:
    told: list[Snapshot] = []
    return Preview("mini", cards, BuildOptions(), pool, told.append), told


def test_an_edited_face_is_laid_out_before_the_checks_and_alone(
        packs: Path, pool: Workers, monkeypatch: pytest.MonkeyPatch) -> None:
    preview, told = _preview(packs, pool)
    preview.refresh()
    before = {view.ident: view.image for view in preview.snapshot.faces}
    events: list[str] = []
    submit, validate = Workers.submit, build.validate

    def submitted(self: Workers, htmls: list[str], *args: object, **kwargs: object) -> object:
        events.extend(f"submit {S3 in html}" for html in htmls)
        return submit(self, htmls, *args, **kwargs)  # type: ignore[arg-type]

    def validated(*args: object) -> object:
        events.append("validate")
        return validate(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(Workers, "submit", submitted)
    monkeypatch.setattr(build, "validate", validated)
    edit(packs / "mini" / "spells.yaml", "name: 冰冻术", "name: 冰冻术X")
    told.clear()
    preview.refresh()
    assert events[:2] == ["submit True", "validate"]  # the face alone, then the checks
    faces = told[0]  # published before the outputs are assembled
    assert faces.changed == ("spells/S3",)
    after = {view.ident: view.image for view in faces.faces}
    assert [ident for ident in after if after[ident] != before[ident]] == ["spells/S3"]
    assert preview.picture(after["spells/S3"]) is not None


def test_a_card_the_checks_leave_out_shows_no_finding_of_its_face_laid_out_ahead(
        packs: Path, pool: Workers) -> None:
    # S3's text runs past its box (E070), but its art is missing (E051), which leaves the card
    # out of the layout: its face, laid out before the checks said so, must not tell E070
    edit(packs / "mini" / "spells.yaml", "  qty: 2", "  qty: 2\n  art: missing.png\n"
         "  sections:\n    - label: 效果\n      text: " + "冰冻敌人。" * 400)
    preview, _ = _preview(packs, pool)
    snapshot = preview.refresh()
    shown = {view.ident: view for view in snapshot.faces}
    assert shown["spells/S3"].stale
    assert [(item.code, item.line, item.message) for item in shown["spells/S3"].findings] == [
        ("E051", 17, "card 'S3': art 'missing.png' does not exist")]
    assert not [item for view in snapshot.faces for item in view.findings
                if item.code == "E070"] + [item for item in snapshot.findings
                                           if item.code == "E070"]
