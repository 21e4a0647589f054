"""Print-shop files (`pnp export --to printshop`): a PDF a deck, one card side a page at its cut
size plus the profile's bleed, TrimBox and BleedBox set, each copy a page in the profile's
page order (each front then its back, each back then its front, or every front then every
back); crop marks in a slug round the bleed only when asked for. When the profile asks for a
die line, each shaped piece's page (every page, if it asks for rectangles too) carries its cut
outline as a path stroked in the profile's spot colour, for a print-and-cut shop's cutter: on a
layer of its own in an RGB file; without one in a CMYK file, PDF/X-1a (PDF 1.3) having none.

With `--cmyk` the file is converted to CMYK within an ink limit (pdf/cmyk.py, then
Ghostscript: ghostscript.py), which says what standard the result meets; otherwise it stays RGB,
as WeasyPrint draws it. The preflight reads every figure off the file written.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from markupsafe import Markup

from ..check.findings import Finding, counted, display_path, listed
from ..outputs.base import Document, File
from ..pack.load import Deck
from ..pdf.assemble import MM, SIMPLEX, die_lines, print_boxes
from ..pdf.raster import draw_pages, inspect
from ..pipeline.execute import Assembled
from ..plan.geometry import Box
from ..plan.parts import Part
from ..plan.render import Face
from ..plan.shapes import Point, outline
from .base import Side
from .images import MAX_PIXELS, ImagesExport
from .preflight import MAX_INK, missing_bleed

PREVIEW_DPI = 100  # the bleed of each page is checked on a drawing this sharp
ORDER_WIDTH = 24  # px: each written page is told from its card's other side this wide
MARK_GAP = 1.0  # mm between a crop mark and the bleed
# WeasyPrint's time a page grows with its document's pages (5,000 copies in one took 5 min):
# a deck's pages are laid out this many a part, and parts that repeat (a card's run of copies)
# are laid out once
PAGES_PER_PART = 100


class PrintshopExport(ImagesExport):
    """A print shop's PDF of each deck, one card side a page."""

    name = "printshop"

    def check(self) -> list[Finding]:
        """A deck of a size the profile's shop does not sell, left out: a page is any size."""
        return self.left_out()

    def plan(self) -> list[Document]:
        """One document a deck, its pages in print order, drawn from the faces parts."""
        job = self.job
        faces = job.faces
        context = job.renderer.page_context()
        self.order: dict[str, list[Side]] = {}
        self._labelled: list[str] = []  # the files labelled PDF/X, said in one note
        self._labelled_note = 0
        self.titles: dict[str, str] = {}
        documents = []
        for deck in job.decks:
            pages = self._pages(deck)
            if not pages:
                continue
            file = f"{self.profile.file('pdf', deck=deck.spec.id)}.pdf"
            self.order[file] = pages
            card = self._card(deck)
            room = self._room()
            page = Box(card.width + 2 * room, card.height + 2 * room)
            self.titles[file] = f"{job.game.spec.title} {job.game.spec.version} — " \
                                f"{deck.spec.name}"
            keys = [faces.keys[side.face] for side in pages]
            values = {**context, "page": page, "card": card, "slug": room,
                      "marks": self._marks(page, room) if self.settings.marks else Markup(""),
                      "title": self.titles[file]}
            parts = [Part(job.renderer.render("printshop.html.j2", {
                **values, "keys": keys[start:start + PAGES_PER_PART]}), display_path(deck.path))
                for start in range(0, len(keys), PAGES_PER_PART)]
            documents.append(Document(file, parts, faces, faces.parts_of([deck.spec.id]),
                                      duplex=SIMPLEX))
        return documents

    def _pages(self, deck: Deck) -> list[Side]:
        """A deck's card sides in the profile's print order: each copy's front then its back
        (front-back), its back then its front (back-front), or every front, then every back
        in the same order (fronts-backs, and `backs_last`)."""
        sides = [side for side in self.sides() if side.deck is deck]
        fronts = [side for side in sides if side.side == "front" for _ in range(side.card.qty)]
        backs = {side.card.id: side for side in sides if side.side == "back"}
        order = self.profile.order(self.settings.backs_last)
        if order == "fronts-backs":
            return fronts + [backs[side.card.id] for side in fronts if side.card.id in backs]
        pairs = [[side, backs[side.card.id]] if side.card.id in backs else [side]
                 for side in fronts]
        return [shown for pair in pairs
                for shown in (pair[::-1] if order == "back-front" else pair)]

    def _card(self, deck: Deck) -> Box:
        """A deck's card with its bleed, mm."""
        size, bleed = self.job.geometry.sizes[deck.spec.size], self.job.geometry.bleed
        return Box(size.width + 2 * bleed, size.height + 2 * bleed)

    def _room(self) -> float:
        """The slug round the bleed, mm: room for crop marks when asked for, else none."""
        return self.job.geometry.mark_length + MARK_GAP if self.settings.marks else 0.0

    def _marks(self, page: Box, room: float) -> Markup:
        """Crop marks at the cut lines, in the slug, stopping short of the bleed."""
        geometry = self.job.geometry
        cut = room + geometry.bleed
        xs, ys = (cut, page.width - cut), (cut, page.height - cut)
        reach = room - MARK_GAP
        lines = [(x, y0, x, y0 + reach) for x in xs for y0 in (0.0, page.height - reach)]
        lines += [(x0, y, x0 + reach, y) for y in ys for x0 in (0.0, page.width - reach)]
        drawn = "".join(f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}"/>'
                        for x1, y1, x2, y2 in lines)
        return Markup(f'<svg class="marks" xmlns="http://www.w3.org/2000/svg" '
                      f'width="{page.width}mm" height="{page.height}mm" '
                      f'viewBox="0 0 {page.width} {page.height}" fill="none" '
                      f'style="position: absolute; left: 0; top: 0">'
                      f'<g stroke="{geometry.mark_color}" stroke-width="{geometry.mark_width}">'
                      f'{drawn}</g></svg>')

    def ink_limit(self) -> float:
        """The total ink a CMYK file keeps under, percent (the print shop's, when its profile
        gives one)."""
        return self.profile.max_ink or MAX_INK

    def in_cmyk(self) -> bool:
        """Whether the file is converted to CMYK: asked for, or the shop takes only CMYK."""
        return self.settings.cmyk or self.profile.colour == "CMYK"

    def _cmyk(self, file: str, pdf: bytes) -> tuple[bytes, list[float]]:
        """The file converted to CMYK within the ink limit, and each page's highest total ink
        as written."""
        from ..pdf.ghostscript import FLATTEN_DPI, max_ink, to_cmyk

        converted = to_cmyk(pdf, self.titles[file], self.ink_limit())
        if converted.lifted:
            pages = listed([str(page + 1) for page in converted.lifted], 10)
            self.notes.append(f"{file}: {counted(len(converted.lifted), 'page')} drew something "
                              f"transparent, which PDF/X-1a cannot hold: each is now one picture "
                              f"at {FLATTEN_DPI} dpi with its text drawn over it, still text "
                              f"(p. {pages})")
        if converted.standard:  # one line for every file labelled, rewritten as each is
            if not self._labelled:
                self.notes.append("")
                self._labelled_note = len(self.notes) - 1
            self._labelled.append(file)
            self.notes[self._labelled_note] = (
                f"{converted.standard}, {counted(len(self._labelled), 'file')} "
                f"({', '.join(self._labelled)}): CMYK for Ghostscript's default_cmyk.icc, the "
                f"output intent, total ink held under {self.ink_limit():g} %")
        else:
            self.notes.append(f"{file}: plain CMYK, not PDF/X ({converted.reason})" + (
                f"; {self.profile.title} asks for {self.profile.standard}"
                if self.profile.standard else ""))
        return converted.pdf, max_ink(converted.pdf)

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The deck's PDF with its boxes set (converted to CMYK when asked), each distinct
        side preflighted once."""
        self.draw_from(made)
        room = self._room() * MM
        boxed = print_boxes(made.pdf, room, room + self.job.geometry.bleed * MM)
        colour, inks = "RGB", None
        if self.in_cmyk():
            boxed, inks = self._cmyk(document.file, boxed)
            colour = "CMYK"
        misplaced = self._misplaced(document.file, boxed)
        seen: set[int] = set()
        for number, side in enumerate(self.order[document.file]):
            if id(side.face) in seen:
                continue
            seen.add(id(side.face))
            card = self._card(side.deck)
            dpi = min(PREVIEW_DPI, 25.4 * (MAX_PIXELS / (card.width * card.height)) ** 0.5)
            preview = (max(1, round(card.width / 25.4 * dpi)),
                       max(1, round(card.height / 25.4 * dpi)))
            bleed = self.job.geometry.bleed
            missing = missing_bleed(self.picture(side.face, preview, bleed=True),
                                    round(bleed / 25.4 * dpi), self.shape(side.deck),
                                    (card.width - 2 * bleed, card.height - 2 * bleed))
            page_box = (card.width + 2 * self._room(), card.height + 2 * self._room())
            written = inspect(boxed, number, page_box)
            laid_out = self.inspection(side, f"{document.file} p. {number + 1}", None, None,
                                       colour, missing)
            self.inspected.append(replace(
                laid_out, text_as_image=bool(laid_out.smallest_text and not written.smallest_text),
                smallest_text=written.smallest_text, unembedded=list(written.unembedded),
                image_dpi=list(written.image_dpi), trim_box=written.trim_box,
                bleed_box=written.bleed_box,
                cut=(round(card.width - 2 * bleed, 2), round(card.height - 2 * bleed, 2)),
                bled=(round(card.width, 2), round(card.height, 2)),
                ink=inks[number] if inks else None, max_ink=self.ink_limit(),
                page_order=self.profile.order(self.settings.backs_last),
                misplaced=tuple(misplaced.get(id(side.face), ()))))
        return [File(document.file, self._die_lines(document.file, boxed, colour))]

    def _die_lines(self, file: str, pdf: bytes, colour: str) -> bytes:
        """The file with the die line its profile asks for, drawn once every other check has
        read it (it is cut, not printed: no ink, no page compared); as it was otherwise."""
        die = self.profile.die_line
        if die is None:
            return pdf
        outlines = [self._cut_path(side.deck) if die.rectangles or not
                    self.shape(side.deck).square else None for side in self.order[file]]
        drawn = sum(1 for points in outlines if points)
        if not drawn:
            return pdf
        layer = colour == "RGB"
        self.notes.append(f"{file}: a {die.spot} die line on {counted(drawn, 'page')}, "
                          + ("on a layer of its own" if layer else "without a layer (a CMYK "
                             "file is PDF 1.3, PDF/X-1a, which has no optional content)"))
        return die_lines(pdf, outlines, die.spot, die.width_pt, die.alternate, layer)

    def _cut_path(self, deck: Deck) -> list[Point]:
        """A deck's cut outline on its print-shop page, mm from the page's top left corner."""
        size, edge = self.job.geometry.sizes[deck.spec.size], self._room() + \
            self.job.geometry.bleed
        return [(x + edge, y + edge) for x, y in outline(self.shape(deck), size.width,
                                                         size.height)]

    def _misplaced(self, file: str, pdf: bytes) -> dict[int, list[int]]:
        """The pages of the written file that look more like their card's other side than the
        side the order puts there (1 on), by the face meant for them: read off the file, so a
        swapped front and back shows."""
        from PIL import ImageChops, ImageStat

        order = self.order[file]
        card, room = self._card(order[0].deck), self._room()
        pixels = (ORDER_WIDTH, max(1, round(ORDER_WIDTH * card.height / card.width)))
        drawn = draw_pages(pdf, (room, room, card.width, card.height), pixels)
        faces = {(id(side.card), side.side): side.face for side in self.sides()
                 if side.deck is order[0].deck}

        def apart(page: Any, face: Face) -> float:
            """How unlike a drawn page is a face: the mean difference of their pixels."""
            return sum(ImageStat.Stat(ImageChops.difference(
                page, self.picture(face, pixels, bleed=True))).mean)

        found: dict[int, list[int]] = {}
        for number, (side, page) in enumerate(zip(order, drawn, strict=True), start=1):
            other = faces.get((id(side.card), "back" if side.side == "front" else "front"))
            if other is not None and other is not side.face \
                    and apart(page, other) < apart(page, side.face):
                found.setdefault(id(side.face), []).append(number)
        return found

