"""Output kinds are plug-ins: a new kind is one class, registered, with nothing else touched."""

from __future__ import annotations

from pathlib import Path

import pytest
from markupsafe import escape

from generator import cli, outputs
from generator.build import BuildOptions, build_game
from generator.errors import display_path
from generator.outputs import Document, File, OutputKind
from generator.parts import Part

from .conftest import page_texts


class CardList(OutputKind):
    """Every card's name on one page, its id too with --with-ids."""

    name = "cardlist"
    switches = {"with_ids": "print each card's id after its name"}

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

    def finish(self, document: Document, pdf: bytes, pages: int) -> list[File]:
        return [File(document.file, pdf, self.entry(document.file, pages))]


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outputs, "KINDS", [*outputs.KINDS, CardList])


def test_a_registered_kind_is_built_with_its_own_switch(registered, packs: Path,
                                                        tmp_path: Path, capsys) -> None:
    command = ["--cards", str(packs), "build", "mini", "--out", str(tmp_path), "--with-ids"]
    assert cli.main(command) == 0
    assert "cardlist-a4.pdf: 1 pages, 1 of 1 parts laid out" in capsys.readouterr().err
    assert page_texts(tmp_path / "mini" / "cardlist-a4.pdf") == ["火球术S1治疗术S2冰冻术S3"]
    manifest = build_game("mini", BuildOptions(only=("cardlist",)), out_root=tmp_path / "b",
                          cards_dir=packs).manifest
    assert manifest["outputs"] == [{"file": "cardlist-a4.pdf", "kind": "cardlist",
                                    "paper": "a4", "pages": 1, "decks": {}}]
    assert page_texts(tmp_path / "b" / "mini" / "cardlist-a4.pdf") == ["火球术治疗术冰冻术"]


def test_the_switches_come_from_the_kinds(registered) -> None:
    assert outputs.switches() == {"no_backs": "leave the backs pages out",
                                  "booklet": outputs.KINDS[2].switches["booklet"],
                                  "fold": outputs.KINDS[0].switches["fold"],
                                  "with_ids": "print each card's id after its name"}
    for command in ("build", "rulebook", "watch", "validate"):
        args = cli.parser().parse_args([command, "--with-ids", "--booklet"])
        assert (args.with_ids, args.booklet, args.no_backs) == (True, True, False)
