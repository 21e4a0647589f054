"""Output kinds are plug-ins: a new kind is one class, registered, with nothing else touched."""

from __future__ import annotations

from pathlib import Path

import pytest
from markupsafe import escape

from generator import cli, outputs
from generator.check.findings import display_path
from generator.outputs.base import Document, File, OutputKind
from generator.pipeline.build import BuildOptions, build_game
from generator.pipeline.execute import Assembled
from generator.plan.parts import Part

from .conftest import page_texts


class CardList(OutputKind):
    """Every card's name on one page, its id too with --with-ids."""

    name = "cardlist"

    def plan(self) -> list[Document]:
        job = self.job
        ids = job.options.on("with_ids")
        lines = "".join(f"<p>{escape(card.name)}{' ' + card.id if ids else ''}</p>"
                        for deck in job.decks for card in deck.cards)
        html = (f"<html><head><style>{job.fonts.font_face_css({'Noto Sans SC'})} "
                "p { font-family: 'Noto Sans SC' }</style></head>"
                f"<body>{lines}</body></html>")
        where = display_path(job.game.root / "game.yaml")
        return [Document(f"cardlist-{job.paper}.pdf", [Part(html, where)], duplex=None)]

    def finish(self, document: Document, made: Assembled) -> list[File]:
        return [File(document.file, made.pdf, self.entry(document.file, made.pages))]


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    listed = outputs.Registered("cardlist", outputs.BUILD, f"{__name__}.CardList",
                                {"with_ids": "print each card's id after its name"})
    monkeypatch.setattr(outputs, "REGISTRY", [*outputs.REGISTRY, listed])


def test_a_registered_kind_is_built_with_its_own_switch(registered, packs: Path,
                                                        tmp_path: Path, capsys) -> None:
    command = ["--cards", str(packs), "build", "mini", "--out", str(tmp_path), "--with-ids"]
    assert cli.main(command) == 0
    assert "cardlist-a4.pdf: 1 page, 1 of 1 part laid out" in capsys.readouterr().err
    assert page_texts(tmp_path / "mini" / "cardlist-a4.pdf") == ["火球术S1治疗术S2冰冻术S3"]
    manifest = build_game("mini", BuildOptions(only=("cardlist",)), out_root=tmp_path / "b",
                          cards_dir=packs).manifest
    assert manifest["outputs"] == [{"file": "cardlist-a4.pdf", "kind": "cardlist",
                                    "paper": "a4", "language": "zh-CN", "pages": 1,
                                    "decks": {}}]
    assert page_texts(tmp_path / "b" / "mini" / "cardlist-a4.pdf") == ["火球术治疗术冰冻术"]


def test_the_switches_come_from_the_kinds(registered) -> None:
    rulebook, sheets = outputs.registered("rulebook"), outputs.registered("sheets")
    assert outputs.switches() == {"no_backs": "leave the backs pages out",
                                  "booklet": rulebook.switches["booklet"],
                                  "fold": sheets.switches["fold"],
                                  "with_ids": "print each card's id after its name"}
    for command in ("build", "rulebook", "watch", "validate"):
        args = cli.parser().parse_args([command, "--with-ids", "--booklet"])
        assert (args.with_ids, args.booklet, args.no_backs) == (True, True, False)


def test_every_registered_kind_loads_under_its_name() -> None:
    """The registry names each kind's class by a dotted path, loaded only when made: each
    path loads an OutputKind of that name, and an export kind is an ExportKind."""
    from generator.exports.base import ExportKind

    loaded = {kind.name: (kind.made_by, kind.load()) for kind in outputs.REGISTRY}
    assert {name for name, (made_by, _) in loaded.items() if made_by == outputs.BUILD} == {
        "sheets", "dice", "boxes", "standees", "rulebook"}
    for name, (made_by, kind) in loaded.items():
        assert issubclass(kind, OutputKind) and kind.name == name
        assert issubclass(kind, ExportKind) == (made_by == outputs.EXPORT)
