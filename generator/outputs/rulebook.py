"""The rulebook: the pack's rulebook.md, Markdown quoting the data through Jinja, as a PDF.

Numbers and tables come from the same YAML the cards print, so the two cannot disagree. The
Markdown is parsed by markdown-it (tables on, raw HTML off: the text is data, never markup);
headings get ids for the table of contents. Chapters and the gallery are laid out apart;
once their pages are counted, a second pass lays out the cover and contents with the page
numbers, and the folios (page numbers and running heads) printed over every page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache, partial
from pathlib import Path
from typing import NamedTuple

import jinja2
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup
from mdit_py_plugins.attrs import attrs_plugin

from .. import TEMPLATES_DIR
from ..check.findings import Finding, PackError, display_path
from ..pack.files import FileRefused, read_text, regular
from ..pack.load import Deck, Game
from ..pack.schema import Limits
from ..pdf.assemble import impose_booklet
from ..pipeline.execute import Assembled
from ..plan import sandbox
from ..plan.faces import Faces
from ..plan.geometry import Box, Geometry
from ..plan.impose import booklet_order
from ..plan.parts import LaidOut, Part
from ..plan.qr import draw_markers, qr_marker
from ..plan.render import Face, Renderer, css_source
from ..text import icons
from ..text.language import pack_words
from ..text.markdown_cjk import cjk_friendly, table_words
from ..text.typeset import keep_together
from ..text.typography import Marks, enable, pack_marks, typographed
from .base import Document, File, OutputKind


@dataclass(frozen=True)
class Heading:
    """A chapter or section heading: its level, text and anchor."""

    level: int
    text: str
    id: str


def has_rulebook(game: Game) -> bool:
    """Whether the pack has a rulebook source it may read (one outside the pack, or not a
    regular file, is an error when the pack loads)."""
    try:
        regular(game.root / game.spec.rulebook.file, [game.root], game.spec.limits.file_bytes)
    except FileRefused:
        return False
    return True


@cache
def _environment(root: Path, limits: Limits) -> jinja2.Environment:
    """Jinja for Markdown, sandboxed: the pack folder, its templates, then the shared ones;
    no escaping, as markdown-it escapes the text it is given."""
    env = sandbox.environment([root, root / "templates", TEMPLATES_DIR], limits,
                              autoescape=False, keep_trailing_newline=True)
    env.filters["cell"] = lambda value: str(value).replace("|", "\\|").replace("\n", " ")
    env.filters["signed"] = lambda value: f"{value:+d}" if isinstance(value, int) else f"{value:+}"
    env.globals["qr"] = qr_marker  # drawn once the Markdown is HTML, which has no raw HTML
    return env


def rulebook_markdown(game: Game) -> str:
    """The rulebook's Markdown with every reference to the data filled in."""
    path = game.root / game.spec.rulebook.file
    where = display_path(path)
    env = _environment(game.root, game.spec.limits)
    context = {
        "game": game.spec,
        "rules": game.rules,
        "decks": {deck.spec.id: deck.read for deck in game.decks},  # a card that did not
        "specs": {deck.spec.id: deck.spec for deck in game.decks},  # load, as far as it did
        "cards": {card.id: card for deck in game.decks for card in deck.read},
        "components": game.spec.components,
        "tables": game.spec.tables,
        "words": pack_words(game.spec),
    }
    try:
        return sandbox.render(env.get_template(game.spec.rulebook.file), game.spec.limits,
                              **context)
    except Exception as exc:  # noqa: BLE001 - the pack's Markdown may fail in any way
        raise PackError([sandbox.failure(exc, (where, 0), "rulebook: ", "E061")]) from None


def markdown_html(text: str, marks: Marks | None = None) -> tuple[Markup, list[Heading]]:
    """Markdown to HTML with numbered heading anchors, typographed with `marks` when given;
    the headings for the contents.

    Each chapter is converted apart and kept (a card edit changes the text of one or two),
    its anchors then numbered on from the chapters before it.
    """
    html: list[str] = []
    headings: list[Heading] = []
    for chapter in _chapters(text):
        body, found, _ = _chapter_html(chapter, marks)
        offset = len(headings)
        html.append(ANCHOR.sub(partial(_renumbered, offset=offset), body))
        headings += [Heading(level, title, f"h{offset + index}")
                     for index, (level, title) in enumerate(found, start=1)]
    return Markup("".join(html)), headings


def _renumbered(match: re.Match[str], offset: int) -> str:
    """A heading's anchor numbered on from the chapters before its own."""
    return f' id="h{int(match[1]) + offset}"'


ANCHOR = re.compile(r' id="h(\d+)"')  # text cannot make one: Markdown escapes its quotes
FENCE = re.compile(r"^ {0,3}(```|~~~)")
LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)  # one line: linear


def _chapters(text: str) -> list[str]:
    """The Markdown cut before each `## ` heading outside code fences, where every block ends
    anyway; whole when it defines link references, which reach across chapters."""
    if LINK_DEFINITION.search(text):
        return [text]
    chapters: list[list[str]] = [[]]
    fenced = False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            fenced = not fenced
        elif line.startswith("## ") and not fenced and chapters[-1]:
            chapters.append([])
        chapters[-1].append(line)
    return ["".join(lines) for lines in chapters]


@cache
def _markdown(marks: Marks | None) -> MarkdownIt:
    """The rulebook's Markdown parser: CommonMark with tables, raw HTML off, emphasis and
    table cells made for Chinese, lead-in paragraphs marked to stay with what follows, and
    images sized by `{width=40mm}`, one alone in its paragraph a figure, and the typographer
    quoting with `marks` when they are given."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    if marks is not None:
        enable(md, marks)
    md.use(cjk_friendly).use(table_words)
    md.use(attrs_plugin, after=("image",), allowed=SIZES)
    md.inline.ruler.before("attr", "attributes_at", _attributes_at)
    md.core.ruler.push("lead_ins", _lead_ins)
    md.core.ruler.push("short_tables", _short_tables)
    md.core.ruler.push("figures", _figures)
    md.core.ruler.before("text_join", "icon_escapes", _icon_escapes)
    return md


def _icon_escapes(state: StateCore) -> None:
    """An escaped colon (`\\:coin:`) stays a colon that starts no icon: a character
    reference, which icons.draw does not read."""
    for token in state.tokens:
        for child in token.children or []:
            if child.type == "text_special" and child.info == "escape" and child.content == ":":
                child.type, child.content = "html_inline", "&#58;"


LEAD = "lead"  # the class of a paragraph that introduces what follows it
SHORT = "short"  # the class of a table the stylesheet keeps on one page
SHORT_ROWS = 6  # a table of at most this many rows (besides its header) is short
COLONS = ("：", ":")


def _lead_ins(state: StateCore) -> None:
    """Core rule: mark each paragraph that only introduces the block after it (a question in
    bold, a label ending in a colon) so the stylesheet keeps it with that block; drop a
    thematic break that ends a chapter, as a chapter ends where a page breaks anyway (alone
    on a page of its own, it printed a blank one)."""
    tokens = state.tokens
    for index, token in enumerate(tokens[:-2]):
        if token.type == "paragraph_open" and not token.hidden \
                and _introduces(tokens[index + 1].children or []):
            token.attrJoin("class", LEAD)
    kept: list[Token] = []
    ends = True  # whether a chapter ends after this token
    for token in reversed(tokens):
        if token.type == "hr" and ends:
            continue
        ends = token.type == "heading_open" and token.tag == "h2"
        kept.append(token)
    tokens[:] = kept[::-1]


def _short_tables(state: StateCore) -> None:
    """Core rule: mark each table of at most `SHORT_ROWS` rows, which a page break would
    leave as a few rows on either side."""
    table, rows = None, 0  # Markdown tables hold no tables
    for token in state.tokens:
        if token.type == "table_open":
            table, rows = token, 0
        elif token.type == "tr_open":
            rows += 1
        elif token.type == "table_close" and table and rows - 1 <= SHORT_ROWS:
            table.attrJoin("class", SHORT)


SIZES = ("width", "height")  # the attributes an image may be given, its size
LENGTH = re.compile(r"\d+(?:\.\d+)?(?:mm|cm|in|pt|%)")  # a size that prints as given
FIGURE = "illustration"  # the class of an image alone in its paragraph, made a figure
AT = "attributes_at"  # an image's meta key: where its `{…}` starts in its paragraph's text


class Refusal(NamedTuple):
    """An image attribute refused: the line of Markdown it is on, its `{…}` and why."""

    line: str
    block: str
    message: str


def _attributes_at(state: StateInline, silent: bool) -> bool:
    """Inline rule before the attributes plugin's: note where an image's `{…}` starts, so a
    refused attribute is told at its line; it consumes nothing."""
    if not silent and state.tokens and state.tokens[-1].type == "image" \
            and state.src[state.pos] == "{":
        state.tokens[-1].meta[AT] = state.pos
    return False


def _figures(state: StateCore) -> None:
    """Core rule: an image's width and height, in a unit that prints, become its style, any
    other attribute a refusal kept in `state.env`; an image alone in its paragraph becomes a
    figure, with its alt text (when given) as the caption below."""
    refused: list[Refusal] = state.env.setdefault("refused", [])
    tokens = state.tokens
    for index, token in enumerate(tokens):
        children = token.children or []
        images = [child for child in children if child.type == "image"]
        for image in images:
            after = children[children.index(image) + 1:][:1]
            unread = AT in image.meta and bool(after) and after[0].content.startswith("{")
            refused += _sized(image, token.content, unread)
        if len(children) == len(images) == 1 and tokens[index - 1].type == "paragraph_open" \
                and not tokens[index - 1].hidden:
            tokens[index - 1].tag = tokens[index + 1].tag = "figure"
            tokens[index - 1].attrJoin("class", FIGURE)
            caption = images[0].children or []
            if "".join(child.content for child in caption).strip():
                token.children = [*children, Token("figcaption_open", "figcaption", 1),
                                  *caption, Token("figcaption_close", "figcaption", -1)]


def _sized(image: Token, text: str, unread: bool) -> list[Refusal]:
    """An image's width and height set as its style; a refusal for each other attribute, a
    size in another unit, or a `{…}` left `unread` (it prints as text), at the line of `text`
    (its paragraph's) the image's `{…}` is on."""
    src = str(image.attrs.get("src", ""))
    reasons = [f"image '{src}': '{name}' is not allowed: an image takes only its width and "
               "height, as {width=40mm}" for name in image.meta.get("insecure_attrs", {})]
    if unread:
        reasons.append(f"image '{src}': its {{…}} cannot be read as attributes (a percentage "
                       'is quoted, as {width="50%"}) and would print as text')
    style = []
    for name in SIZES:
        value = str(image.attrs.pop(name, ""))
        if not value:
            continue
        if LENGTH.fullmatch(value) and not (name == "height" and value.endswith("%")):
            style.append(f"{name}: {value}")
        else:
            units = "mm, cm, in, pt or %" if name == "width" else "mm, cm, in or pt"
            reasons.append(f"image '{src}': {name} '{value}' is not a length in {units}")
    if style:
        image.attrSet("style", "; ".join(style))
    if not reasons:
        return []
    at = image.meta[AT]
    end = text.find("\n", at)
    line = text[text.rfind("\n", 0, at) + 1:end if end >= 0 else None]
    block = text[at:text.find("}", at) + 1]
    return [Refusal(line.strip(), block, reason) for reason in reasons]


def _introduces(children: list[Token]) -> bool:
    """Whether a paragraph's inline tokens are all bold, or end in a colon."""
    text = "".join(child.content for child in children if child.type == "text").rstrip()
    if text.endswith(COLONS):
        return True
    depth, bold = 0, False
    for child in children:
        depth += (child.type == "strong_open") - (child.type == "strong_close")
        bold = bold or depth > 0
        if depth == 0 and child.type == "text" and child.content.strip() not in ("", *COLONS):
            return False
    return bold


@lru_cache(maxsize=256)
def _chapter_html(text: str, marks: Marks | None
                  ) -> tuple[str, tuple[tuple[int, str], ...], tuple[Refusal, ...]]:
    """One chapter's HTML, its headings numbered h1, h2, …, their (level, text), and the
    image attributes it refused."""
    md = _markdown(marks)
    env: dict[str, list[Refusal]] = {}
    tokens = md.parse(text, env)
    headings: list[tuple[int, str]] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            token.attrSet("id", f"h{len(headings) + 1}")
            title = typographed(tokens[index + 1].content.replace("*", ""), marks)
            headings.append((int(token.tag[1]), title))
    return (keep_together(md.renderer.render(tokens, md.options, {})), tuple(headings),
            tuple(env["refused"]))


def image_findings(game: Game, text: str) -> list[Finding]:
    """An error (E063) for each image attribute the rulebook's Markdown `text` gives but
    that is refused, at the line of rulebook.md that holds it: the line as rendered, else the
    one holding its `{…}` (0 when Jinja wrote it)."""
    marks = pack_marks(game.spec)
    refused = [refusal for chapter in _chapters(text)
               for refusal in _chapter_html(chapter, marks)[2]]
    if not refused:
        return []
    path = game.root / game.spec.rulebook.file
    lines = [line.strip() for line in read_text(path, game.spec.limits.file_bytes).splitlines()]
    return [Finding(display_path(path), _source_line(lines, refusal), refusal.message, "E063")
            for refusal in refused]


def _source_line(lines: list[str], refusal: Refusal) -> int:
    """The number of the first of `lines` that is the refusal's line, else that holds its
    `{…}`; 0 when none does."""
    for wanted in (lambda line: line == refusal.line, lambda line: refusal.block in line):
        for number, line in enumerate(lines, start=1):
            if wanted(line):
                return number
    return 0


@dataclass(frozen=True)
class Figure:
    """One card of the gallery: its face, caption and scale."""

    face: Face
    caption: str
    size: Box
    scale: float


FIGURE_GAP = 2.5  # mm between the gallery's figures, across and down
FEW_ENTRIES = 6  # entries of the contents that a page of their own is not worth
TIGHT = "pnp-contents-tight"  # the anchor of the contents set tight, when pages are counted


def gallery(decks: list[Deck], renderer: Renderer, geometry: Geometry,
            width: float) -> list[tuple[str, list[list[Figure]]]]:
    """Each deck's distinct faces, and its back, scaled to fit `width` mm, at most half size,
    in rows that fill the width: each row is placed whole, so no figure is laid out twice at
    a page break."""
    words = renderer.words
    sections = []
    for deck in decks:
        size = geometry.sizes[deck.spec.size]
        scale = round(min(0.5, width / size.width), 4)
        figures = []
        back = None
        for card, line in deck.located():
            face = renderer.face(deck, card, line)
            figures.append(Figure(face, card.name, size, scale))
            back = back or renderer.back(deck, card, None)
        if back is not None:
            figures.append(Figure(back, deck.spec.name + words["separator"] + words["back"],
                                  size, scale))
        across = max(1, int((width + FIGURE_GAP) // (size.width * scale + FIGURE_GAP)))
        sections.append((deck.spec.name, [figures[i:i + across]
                                          for i in range(0, len(figures), across)]))
    return sections


@dataclass(frozen=True)
class Rulebook:
    """The rulebook cut where its pages break anyway, so each part is laid out (and cached) apart.

    Each chapter starts a page, and so does the gallery, whose decks flow on together; each is
    a part, and a booklet's back cover another; text before the first chapter flows into it.
    The front matter (cover and contents) and the folios (page numbers, running heads) come
    last, once the parts' page counts and the pages their headings land on are known.
    """

    render: Callable[..., str]
    pieces: list[tuple[Markup, list]]  # each part: a chapter's HTML, or the gallery's decks
    headings: list[Heading]
    face_keys: dict[Face, str] | None  # the gallery's faces, drawn into its empty figures
    back_cover: bool = False  # a booklet ends on a cover of its own, never on a page of text

    @cached_property
    def parts(self) -> list[str]:
        """Each chapter, the gallery and the back cover, as a document of its own."""
        return [self.render("part", body=body, gallery=decks, face_keys=self.face_keys)
                for body, decks in self.pieces] + ([self.render("back")] if self.back_cover
                                                   else [])

    def whole(self) -> str:
        """The rulebook as a single document, as WeasyPrint would number it by itself."""
        return self.render("whole", body=Markup("".join(body for body, _ in self.pieces)),
                           gallery=[deck for _, decks in self.pieces for deck in decks],
                           back_cover=self.back_cover)

    def front(self, numbers: dict[str, int] | None, tight: bool = False) -> str:
        """Cover and contents, each heading with its page number when known (`tight` sets
        the contents closer); without the numbers, to count pages, the contents set as usual
        and then tight, from a page of its own marked `TIGHT`."""
        return self.render("front", numbers=numbers,
                           contents=[False, True] if numbers is None else [tight])

    def folios(self, pages: list[tuple[str, str]]) -> str:
        """Empty pages carrying only a page number and running head: (named page, head) each."""
        return self.render("folio", folios=pages)

    def numbered(self, counted: LaidOut, parts: list[LaidOut]) -> tuple[str, str]:
        """The cover and contents with page numbers, set tight when that saves a page that
        would hold only the last few entries, and the folios: each page's running head is the
        chapter begun on it or last before it."""
        usual = counted.anchors.get(TIGHT, counted.pages)  # the pages before the tight ones
        spilt = sum(link.page == usual - 1 for link in counted.links)  # a link an entry
        tight = spilt <= FEW_ENTRIES and 1 + counted.pages - usual < usual
        numbers: dict[str, int] = {}
        front = pages = 1 + counted.pages - usual if tight else usual
        for part in parts:
            for anchor, index in part.anchors.items():
                numbers.setdefault(anchor, pages + index + 1)
            pages += part.pages
        begun = {numbers[h.id]: h.text for h in self.headings
                 if h.level == 2 and h.id in numbers}
        folios = [("cover", "")] + [("contents", "")] * (front - 1)
        head = ""
        for page in range(front + 1, pages + 1):
            head = begun.get(page, head)
            folios.append(("", head))
        if self.back_cover:
            folios[-1] = ("cover", "")
        return self.front(numbers, tight), self.folios(folios)

    def order(self, pages: int) -> list[tuple[int | None, int | None]]:
        """The booklet's saddle-stitch order for its `pages`."""
        return back_cover_order(pages) if self.back_cover else booklet_order(pages)


def back_cover_order(pages: int) -> list[tuple[int | None, int | None]]:
    """Saddle-stitch order for pages whose last is a back cover: blank pages are padded in
    before it, so it is the booklet's outside back."""
    total, back = -(-pages // 4) * 4, pages - 1

    def page(index: int | None) -> int | None:
        if index == total - 1:
            return back
        return None if index is None or index >= back else index

    return [(page(left), page(right)) for left, right in booklet_order(total)]


INTRO = "intro"  # the class of the text before the first chapter, which flows into it


def _pieces(body: str, sections: list[tuple]) -> list[tuple[Markup, list]]:
    """The HTML cut before each chapter heading (a chapter starts a page), then the gallery,
    its decks flowing on one after another: a stylesheet is parsed once per process, so even
    a short part costs little to set up, and an edit lays out no more than its own chapter.
    Text before the first chapter (an intro) goes with what follows, on its page: alone, it
    printed on a page of its own."""
    chunks = [chunk for chunk in re.split(r"(?=<h2[ >])", body) if chunk.strip()]
    pieces: list[tuple[Markup, list]] = [(Markup(chunk), []) for chunk in chunks] \
        + ([(Markup(""), sections)] if sections else [])
    if len(pieces) > 1 and not chunks[0].startswith("<h2"):
        (intro, _), (first, decks) = pieces[:2]
        pieces[:2] = [(Markup(f'<div class="{INTRO}">') + intro + Markup("</div>") + first,
                       decks)]
    return pieces


def rulebook(game: Game, decks: list[Deck], renderer: Renderer, paper: str, booklet: bool,
             faces: Faces) -> Rulebook:
    """The rulebook in parts: chapters and gallery decks, then cover, contents and folios; its
    gallery draws the `faces` of the `decks`, as the build's `renderer` made them."""
    geometry = renderer.geometry
    page = geometry.half(paper) if booklet else geometry.papers[paper]
    margin = geometry.booklet_margin if booklet else geometry.rulebook_margin
    body, headings = markdown_html(rulebook_markdown(game), pack_marks(game.spec))
    body = Markup(draw_markers(body))
    spec = game.spec.rulebook
    figures = gallery(decks, renderer, geometry, page.width - 2 * margin) \
        if spec.gallery and renderer.words["gallery"] else []
    gallery_id = f"h{len(headings) + 1}"
    sections = [(name, group, index, index == 1)
                for index, (name, group) in enumerate(figures, start=1)]
    if figures:
        headings.append(Heading(2, renderer.words["gallery"], gallery_id))
        headings += [Heading(3, name, f"{gallery_id}-{index}") for name, _, index, _ in sections]
    context = renderer.page_context()
    font_size = 9 if booklet else 10
    css = css_source("templates/rulebook.css.j2") + renderer.render(
        "rulebook.css.j2", {**context, "page": page, "margin": margin, "font_size": font_size})

    def render(mode: str, **values: object) -> str:
        given = {"body": "", "gallery": [], "numbers": None, "folios": [], "face_keys": None,
                 "back_cover": False, "contents": [False], **values}
        return icons.draw(renderer.render("rulebook.html.j2", {  # in the contents too
            **context, "mode": mode, "rulebook_css": Markup(css), "headings": headings,
            "gallery_id": gallery_id, "gap": FIGURE_GAP, **given}), renderer.icons)

    return Rulebook(render, _pieces(body, sections), headings, faces.keys if figures else None,
                    back_cover=booklet)


class RulebookOutput(OutputKind):
    """The rulebook on the paper, and with `--booklet` also imposed as a booklet."""

    name = "rulebook"

    def check(self) -> list[Finding]:
        """Every reference in the rulebook names data that exists, and every image
        attribute is a size."""
        if not has_rulebook(self.job.game):
            return []
        try:
            text = rulebook_markdown(self.job.game)
        except PackError as exc:
            return exc.findings
        return image_findings(self.job.game, text)

    def plan(self) -> list[Document]:
        """The rulebook, and its booklet when asked for; each stem names the paper, as each
        paper lays the rulebook out anew. The first part is the front matter without page
        numbers, laid out to count its pages."""
        job = self.job
        game = job.game
        if not has_rulebook(game):
            return []
        where = display_path(game.root / game.spec.rulebook.file)
        self.books: dict[str, tuple[Rulebook, bool]] = {}
        documents = []
        for kind, booklet in [("rulebook", False)] + (
                [("rulebook-booklet", True)] if job.options.on("booklet") else []):
            book = rulebook(game, job.decks, job.renderer, job.paper, booklet, job.faces)
            file = f"{kind}-{job.paper}.pdf"
            self.books[file] = (book, booklet)
            parts = [Part(html, where) for html in [book.front(None), *book.parts]]
            drawn = job.faces.parts_of([deck.spec.id for deck in job.decks]) \
                if book.face_keys is not None else []
            documents.append(Document(file, parts, job.faces, drawn))
        return documents

    def revise(self, document: Document, laid: Callable[[Part], LaidOut]) -> Document:
        """The front matter numbered and the folios, once the chapters' pages are counted."""
        book, _ = self.books[document.file]
        start, *chapters = document.parts
        front, folios = book.numbered(laid(start), [laid(part) for part in chapters])
        return Document(document.file, [Part(front, start.origin), *chapters], document.faces,
                        document.drawn, Part(folios, start.origin), document.duplex, [start])

    def finish(self, document: Document, made: Assembled) -> list[File]:
        """The PDF (the booklet imposed two up), and the HTML when asked for."""
        job, pdf, pages = self.job, made.pdf, made.pages
        book, booklet = self.books[document.file]
        if booklet:
            pdf = impose_booklet(pdf, job.geometry.papers[job.paper], book.order(pages))
        pages = self.file_pages(document, pages)
        files = []
        if job.options.html:
            files.append(File(document.file.replace(".pdf", ".html"),
                              book.whole().encode("utf-8")))
        files.append(File(document.file, pdf, self.entry(document.file, pages)))
        return files

    def file_pages(self, document: Document, pages: int) -> int:
        """The pages of the file an assembled document of `pages` pages becomes: a booklet's
        sides of paper."""
        book, booklet = self.books[document.file]
        return len(book.order(pages)) if booklet else pages

    def missing(self) -> Finding:
        """The rulebook file the game names is not there."""
        game = self.job.game
        return Finding(display_path(game.root / game.spec.rulebook.file), 0,
                       "the game has no rulebook", "E001")
