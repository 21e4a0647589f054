"""Card sheets: each `output` group of decks imposed on the paper, fronts then mirrored backs,
one PDF a group (cards, boards, tokens, …)."""

from __future__ import annotations

from ..check.findings import Finding, display_path
from ..pack.load import Deck
from ..pack.yamlfile import line_of
from ..pdf.assemble import LONG_EDGE, SHORT_EDGE
from ..pipeline.execute import Assembled
from ..plan.impose import (
    Duplex,
    Item,
    Piece,
    Sheet,
    marks_svg,
    overview,
    overview_scale,
    pack,
    tile,
)
from ..plan.parts import Part
from ..plan.render import Face
from .base import Document, File, OutputKind


class SheetsOutput(OutputKind):
    """Every deck printed on sheets with crop marks, grouped by its `output` in game.yaml."""

    name = "sheets"

    def check(self) -> list[Finding]:
        """An overview page shrinks its component: say so when that prints its text below
        the readable minimum (W087)."""
        job = self.job
        game, minimum = job.game, job.game.spec.readability.min_text
        index = {spec.id: number for number, spec in enumerate(game.spec.decks)}
        found = []
        for deck in job.decks:
            if not deck.spec.overview or deck.spec.size not in job.geometry.sizes:
                continue  # an unknown size is told as E021
            tiling = job.geometry.tiling(job.paper, deck.spec.size)
            scale = overview_scale(tiling, job.geometry, job.paper)
            if tiling.count > 1 and scale < 1:
                whole = tiling.whole
                found.append(Finding(
                    display_path(game.root / "game.yaml"),
                    line_of(game.spec_data, ("decks", index[deck.spec.id], "overview")),
                    f"deck '{deck.spec.id}': its overview page shows the {whole.width:g}×"
                    f"{whole.height:g} mm component at {scale:.0%} of its size, so text set at "
                    f"the {minimum:g} pt readable minimum prints at {minimum * scale:.1f} pt "
                    f"there (the glued pieces print it at full size)", "W087"))
        return found

    def plan(self) -> list[Document]:
        """One document per output group, one part per sheet; faces are drawn into them."""
        job = self.job
        game, paper = job.game, job.paper
        groups: dict[str, list] = {}
        for deck in job.decks:
            groups.setdefault(deck.spec.output, []).append(deck)
        self.decks: dict[str, dict[str, dict[str, int]]] = {}
        self.html: dict[str, str] = {}
        self.sides: dict[str, list[str]] = {}  # each file's pages: front, back, single, …
        self.sheets: dict[str, list[Sheet]] = {}  # each file's pages as planned
        documents = []
        for kind, decks in groups.items():
            file = f"{kind}-{paper}.pdf"
            sheets = self._sheets(decks, self.decks.setdefault(file, {}))
            duplex = None
            if any(sheet.side == "back" for sheet in sheets):
                duplex = SHORT_EDGE if job.options.duplex == "short" else LONG_EDGE
                sheets = paired(sheets)
            self.sides[file] = [sheet.side for sheet in sheets]
            self.sheets[file] = sheets
            title = f"{game.spec.title} {game.spec.version} — {kind} ({paper})"
            where = display_path(game.root / "game.yaml")
            parts = [Part(self._html(group, title, with_faces=True), where)
                     for group in ([[sheet] for sheet in sheets] or [[]])]
            if job.options.html:
                self.html[file] = self._html(sheets, title, with_faces=False)
            documents.append(Document(file, parts, job.faces,
                                      job.faces.parts_of([deck.spec.id for deck in decks]),
                                      duplex=duplex))
        return documents

    def _sheets(self, decks: list[Deck], counts: dict[str, dict[str, int]]) -> list[Sheet]:
        """The sheets of one output: every size and every single-sided piece packed together
        (unless a deck keeps to its own sheets), each fronts page followed by its backs;
        overviews come last."""
        job = self.job
        geometry, paper, options = job.geometry, job.paper, job.options
        fold = options.on("fold")
        with_backs = not options.on("no_backs")
        pools: dict[str, list[Item]] = {}  # "" for the decks that share sheets
        overviews: list[Sheet] = []
        for deck in decks:
            fronts: list[Face] = []
            backs: list[Face | None] = []
            for card, line in deck.located():
                face = job.renderer.face(deck, card, line)
                back = job.renderer.back(deck, card, face)
                fronts += [face] * card.qty
                backs += [back] * card.qty
            tiling = geometry.tiling(paper, deck.spec.size)
            if tiling.count > 1:
                glue = job.renderer.words["glue"]
                items = [Item(piece, None, tiling.piece, deck.spec.id, deck.spec.crop_marks)
                         for face in fronts for piece in tile(face, tiling, glue)]
            else:
                shape = geometry.shape(deck.spec.size, deck.shape)
                items = [Item(Piece(face), Piece(back) if back else None, tiling.piece,
                              deck.spec.id, deck.spec.crop_marks, shape)
                         for face, back in zip(fronts, backs, strict=True)]
            pools.setdefault(deck.spec.id if deck.spec.own_sheets else "", []).extend(items)
            if deck.spec.overview and tiling.count > 1:
                overviews += overview(fronts, tiling, geometry, paper)
            counts[deck.spec.id] = {"faces": len(fronts), "backs": sum(
                1 for item in items if item.back) if with_backs or fold else 0}
            if tiling.count > 1:
                counts[deck.spec.id]["pieces"] = len(items)
        duplex = Duplex(with_backs, options.duplex, options.back_offset, fold)
        sheets = [sheet for items in pools.values()
                  for sheet in pack(items, paper, geometry, duplex)]
        return sheets + overviews

    def _html(self, sheets: list[Sheet], title: str, with_faces: bool) -> str:
        """Sheets as one HTML document, one sheet a page: each slot an empty box its face is
        drawn into, or, without faces, holding its face's HTML."""
        job = self.job
        geometry, renderer = job.geometry, job.renderer
        return renderer.render("sheets.html.j2", {
            **renderer.page_context(),
            "title": title,
            "paper": geometry.papers[job.paper],
            "sheets": sheets,
            "sizes": {deck.spec.id: geometry.sizes[deck.spec.size] for deck in job.decks},
            "marks": lambda sheet: marks_svg(sheet, geometry),
            "face_keys": job.faces.keys if with_faces else None,
        })

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The PDF, and its HTML when asked for."""
        pdf, pages = made.pdf, made.pages
        files = []
        if document.file in self.html:
            files.append(File(document.file.replace(".pdf", ".html"),
                              self.html[document.file].encode("utf-8")))
        files.append(File(document.file, pdf, self.entry(document.file, pages,
                                                          self.decks[document.file])))
        return files


def paired(sheets: list[Sheet]) -> list[Sheet]:
    """Sheets for printing on both sides: every page that is not a back is followed by one,
    blank when it has none (a single-sided deck, an overview), so that every back lands
    behind its own fronts."""
    out: list[Sheet] = []
    for index, sheet in enumerate(sheets):
        out.append(sheet)
        following = sheets[index + 1] if index + 1 < len(sheets) else None
        if sheet.side != "back" and (following is None or following.side != "back"):
            out.append(Sheet(sheet.paper, "back"))
    return out
