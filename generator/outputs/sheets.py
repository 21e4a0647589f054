"""Card sheets: each `output` group of decks imposed on the paper, fronts then mirrored backs,
one PDF a group (cards, boards, tokens, …)."""

from __future__ import annotations

from ..assemble import LONG_EDGE
from ..errors import display_path
from ..impose import Sheet, impose_deck, marks_svg, overview
from ..parts import Part
from ..render import Face
from .base import Document, File, OutputKind


class SheetsOutput(OutputKind):
    """Every deck printed on sheets with crop marks, grouped by its `output` in game.yaml."""

    name = "sheets"
    switches = {"no_backs": "leave the backs pages out"}

    def plan(self) -> list[Document]:
        """One document per output group, one part per sheet; faces are drawn into them."""
        job = self.job
        game, geometry, paper = job.game, job.geometry, job.paper
        groups: dict[str, list] = {}
        for deck in job.decks:
            groups.setdefault(deck.spec.output, []).append(deck)
        self.decks: dict[str, dict[str, dict[str, int]]] = {}
        self.html: dict[str, str] = {}
        self.sides: dict[str, list[str]] = {}  # each file's pages: front, back or overview
        documents = []
        for kind, decks in groups.items():
            file = f"{kind}-{paper}.pdf"
            sheets: list[Sheet] = []
            counts = self.decks.setdefault(file, {})
            for deck in decks:
                fronts: list[Face] = []
                backs: list[Face | None] = []
                for card, line in deck.located():
                    face = job.renderer.face(deck, card, line)
                    back = job.renderer.back(deck, card, face)
                    fronts += [face] * card.qty
                    backs += [back] * card.qty
                tiling = geometry.tiling(paper, deck.spec.size)
                grid = geometry.grid(paper, tiling.piece)
                deck_sheets = impose_deck(deck.spec.id, fronts, backs, grid, geometry,
                                          not job.options.on("no_backs"), tiling,
                                          deck.spec.crop_marks)
                sheets += deck_sheets
                if deck.spec.overview and tiling.count > 1:
                    sheets += overview(deck.spec.id, fronts, tiling, geometry, paper)
                counts[deck.spec.id] = {
                    "faces": len(fronts),
                    "backs": sum(len(s.slots) for s in deck_sheets if s.side == "back"),
                }
                if tiling.count > 1:
                    counts[deck.spec.id]["pieces"] = len(fronts) * tiling.count
            duplex = LONG_EDGE if any(sheet.side == "back" for sheet in sheets) else None
            if duplex:
                sheets = paired(sheets)
            self.sides[file] = [sheet.side for sheet in sheets]
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

    def _html(self, sheets: list[Sheet], title: str, with_faces: bool) -> str:
        """Sheets as one HTML document, one sheet a page: each slot an empty box its face is
        drawn into, or, without faces, holding its face's HTML."""
        job = self.job
        geometry, renderer = job.geometry, job.renderer
        return renderer.render("sheets.html.j2", {
            **renderer.page_context(job.fonts),
            "title": title,
            "paper": geometry.papers[job.paper],
            "sheets": sheets,
            "sizes": {deck.spec.id: geometry.sizes[deck.spec.size] for deck in job.decks},
            "marks": lambda sheet: marks_svg(sheet, geometry),
            "face_keys": job.faces.keys if with_faces else None,
        })

    def finish(self, document: Document, pdf: bytes, pages: int) -> list[File]:
        """The PDF, and its HTML when asked for."""
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
            out.append(Sheet(sheet.grid, "back", sheet.deck_id, [], crop_marks=False))
    return out
