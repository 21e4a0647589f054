"""The pipeline: load, validate, render, impose, PDF and manifest, in that order."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from . import BUILD_DIR, CARDS_DIR
from .cache import BuildOptions, LaidOut, PartCache, input_digest, part_key, remember, write_atomic
from .compose import Faces, face_anchor, face_documents
from .errors import Finding, PackError, display_path
from .fit import locate
from .fonts import FontRegistry, load_fonts
from .geometry import Box, Geometry, load_geometry
from .impose import Sheet, booklet_order, impose_deck, marks_svg, overview
from .load import Game, line_of, load_game
from .manifest import Output, write_manifest
from .pdf import MM, Workers, impose_booklet, join_pdfs
from .render import Face, Renderer
from .rulebook import Rulebook, has_rulebook, rulebook
from .validate import errors_only, validate

Progress = Callable[[str], None]
PARTS_DIR = ".parts"  # laid-out parts kept between builds, inside build/<game>/
MIN_DPI = 300  # raster images print at least this sharp


def check(
    name: str, cards_dir: Path = CARDS_DIR, strict: bool = True
) -> tuple[Game, Geometry, FontRegistry, list]:
    """Load and validate a game; when strict, raise PackError if anything is an error."""
    game = load_game(name, cards_dir)
    own_sizes = {key: Box(size.width, size.height) for key, size in game.spec.sizes.items()}
    geometry, fonts = load_geometry().with_sizes(own_sizes), load_fonts()
    findings = validate(game, geometry, fonts)
    errors = errors_only(findings)
    if strict and errors:
        raise PackError(errors)
    return game, geometry, fonts, findings


def document_html(game: Game, renderer: Renderer, sheets: list[Sheet], paper: str,
                  fonts: FontRegistry, title: str, face_keys: dict[Face, str] | None) -> str:
    """The output as one HTML document, one sheet per page: each slot holds its face's HTML,
    or, given `face_keys`, an empty box its laid-out face is drawn into."""
    geometry = renderer.geometry
    return renderer.env.get_template("sheets.html.j2").render(
        **renderer.page_context(fonts),
        title=title,
        paper=geometry.papers[paper],
        sheets=sheets,
        sizes={deck.spec.id: geometry.sizes[deck.spec.size] for deck in game.decks},
        marks=lambda sheet: marks_svg(sheet, geometry),
        face_keys=face_keys,
    )


@dataclass
class Planned:
    """One output ready to lay out: its manifest entry, the HTML of each of its parts, the
    faces drawn into them, and the whole document's HTML when it was asked for."""

    output: Output
    parts: list[str]
    faces: Faces
    html: str = ""


def sheet_parts(sheets: list[Sheet]) -> list[list[Sheet]]:
    """One part per sheet; its faces are drawn in from their own parts, so a card's text
    changes none of them."""
    return [[sheet] for sheet in sheets] or [[]]


def plan_outputs(game: Game, geometry: Geometry, fonts: FontRegistry,
                 options: BuildOptions) -> list[Planned]:
    """Render every card and impose each output group on sheets, as one HTML document each."""
    renderer = Renderer(game, geometry)
    faces = face_documents(game, renderer, fonts)
    groups: dict[str, list] = {}
    for deck in game.decks:
        groups.setdefault(deck.spec.output, []).append(deck)
    planned = []
    for kind, decks in groups.items():
        sheets: list[Sheet] = []
        output = Output(file=f"{kind}-{options.paper}.pdf", kind=kind, paper=options.paper,
                        pages=0)
        for deck in decks:
            fronts: list[Face] = []
            backs: list[Face | None] = []
            for card, line in deck.located():
                face = renderer.face(deck, card, line)
                back = renderer.back(deck, card, face)
                fronts += [face] * card.qty
                backs += [back] * card.qty
            tiling = geometry.tiling(options.paper, deck.spec.size)
            grid = geometry.grid(options.paper, tiling.piece)
            deck_sheets = impose_deck(deck.spec.id, fronts, backs, grid, geometry,
                                      options.backs, tiling, deck.spec.crop_marks)
            sheets += deck_sheets
            if deck.spec.overview and tiling.count > 1:
                sheets += overview(deck.spec.id, fronts, tiling, geometry, options.paper)
            output.decks[deck.spec.id] = {
                "faces": len(fronts),
                "backs": sum(len(s.slots) for s in deck_sheets if s.side == "back"),
            }
            if tiling.count > 1:
                output.decks[deck.spec.id]["pieces"] = len(fronts) * tiling.count
        output.pages = len(sheets)
        title = f"{game.spec.title} {game.spec.version} — {kind} ({options.paper})"
        parts = [document_html(game, renderer, group, options.paper, fonts, title, faces.keys)
                 for group in sheet_parts(sheets)]
        whole = document_html(game, renderer, sheets, options.paper, fonts, title, None) \
            if options.html else ""
        planned.append(Planned(output, parts, faces, whole))
    return planned


def sources(game: Game) -> dict[str, tuple[str, int]]:
    """Where each card and each back comes from, for findings on the laid-out pages."""
    sites = {f"back:{back_id}": (display_path(game.root / "game.yaml"),
                                 line_of(game.spec_data, ("backs", back_id)))
             for back_id in game.spec.backs}
    for deck in game.decks:
        for card, line in deck.located():
            sites[card.id] = (display_path(deck.path), line)
    return sites


def rulebooks(game: Game, geometry: Geometry, fonts: FontRegistry, options: BuildOptions,
              faces: Faces | None = None) -> list[tuple[str, bool, Rulebook]]:
    """The rulebook, and its booklet when asked for: (file stem, booklet?, rulebook) each. The
    stem names the paper, as each paper lays the rulebook out anew. Its gallery draws `faces`,
    the card outputs' own, when given."""
    if not has_rulebook(game):
        return []
    variants = [("rulebook", False)] + ([("rulebook-booklet", True)] if options.booklet else [])
    return [(f"{kind}-{options.paper}", booklet,
             rulebook(game, geometry, fonts, options.paper, booklet, faces))
            for kind, booklet in variants]


@dataclass(frozen=True)
class Rendered:
    """One output file made from its parts: the PDF (empty when not written), its pages, the
    findings and warnings on them, and how many parts were laid out anew."""

    pdf: bytes
    pages: int
    findings: list[Finding]
    warnings: list[str]
    parts: int
    laid_out: int
    seconds: float


class Layouts:
    """Every part of a build laid out once: from the cache when it is there, else side by side
    on the machine's cores."""

    def __init__(self, game: Game, fonts: FontRegistry, cache: PartCache, workers: Workers,
                 write: bool = True, keep_workers: bool = False):
        self.game, self.fonts, self.cache, self.write = game, fonts, cache, write
        self.workers, self.keep_workers = workers, keep_workers
        self.done: dict[str, LaidOut] = {}
        self.anew: set[str] = set()  # started here, not taken from the cache
        self.waiting: list[Callable[[], None]] = []
        self.reported: set[str] = set()  # faces parts whose findings an output has told

    def start(self, htmls: list[str]) -> None:
        """Start laying out every part not yet done nor started, taking what the cache has."""
        todo = []
        for html in dict.fromkeys(htmls):
            if html in self.done or html in self.anew:
                continue
            cached = self.cache.get(part_key(html))
            if cached is None:
                todo.append(html)
            else:
                self.done[html] = cached
        if not todo:
            return
        self.anew.update(todo)
        results = self.workers.submit(todo, self.game.root, self.fonts.files(), MIN_DPI,
                                      self.write)

        def finish() -> None:
            for html, part in zip(todo, results(), strict=True):
                self.done[html] = part
                if part.pdf:
                    self.cache.put(part_key(html), part)

        self.waiting.append(finish)

    def wait(self, htmls: list[str] | None = None) -> None:
        """Wait for the parts given, or for every part started."""
        while self.waiting and (htmls is None or any(html not in self.done for html in htmls)):
            self.waiting.pop(0)()

    def release(self) -> None:
        """Once nothing is left to lay out, end the workers (unless kept for the next build),
        so their memory is free before the outputs are joined."""
        if not self.waiting and not self.keep_workers:
            self.workers.stop()

    def output(self, file: str, parts: list[str], progress: Progress,
               overlay: str | None = None, faces: Faces | None = None) -> Rendered:
        """One file of laid-out parts, its faces drawn into them, with the overlay's pages
        printed over theirs."""
        laid = [self.done[html] for html in parts]
        placed, pages = [], 0
        for part in laid:
            placed += [(pages + index, key, box, clip) for index, key, box, clip in part.faces]
            pages += part.pages
        drawn = {key: faces.pages[key] for _, key, _, _ in placed} if faces else {}
        face_parts = list(dict.fromkeys(html for html, _ in drawn.values()))
        every = parts + ([overlay] if overlay else []) + face_parts
        self.cache.used[file] = [part_key(html) for html in every]
        found = [finding for part in laid for finding in part.found]
        found += [finding for html in face_parts if html not in self.reported
                  for finding in self.done[html].found]  # a face's findings, told once
        self.reported.update(face_parts)
        warnings = sorted({message for html in every for message in self.done[html].warnings})
        pdf = b""
        if self.write and not found:
            # keyed by the parts' bytes: a part laid out again for a changed image keeps its key
            shown = {key: (self.done[html].pdf, self.done[html].anchors[face_anchor(key)],
                           (size.width * MM, size.height * MM))
                     for key, (html, size) in drawn.items()}
            pieces = [self.done[html].pdf for html in every] + [json.dumps(
                [(key, page, size) for key, (_, page, size) in sorted(shown.items())]).encode()]
            joined = part_key("\n".join(hashlib.sha256(piece).hexdigest() for piece in pieces))
            pdf = self.cache.joined(joined, lambda: join_pdfs(
                [part.pdf for part in laid], self.done[overlay].pdf if overlay else b"",
                _links(laid), placed, shown))
            self.cache.used[file].append(joined)
        mine = set(every) & self.anew
        result = Rendered(pdf, pages, locate(found, sources(self.game)), warnings, len(every),
                          len(mine), sum(self.done[html].seconds for html in mine))
        for message in warnings:
            progress(f"{self.game.name}: {file}: warning: {message}")
        progress(f"{self.game.name}: {file}: {result.pages} pages, {result.laid_out} of "
                 f"{result.parts} parts laid out ({result.seconds:.1f} s)")
        return result


def card_parts(planned: list[Planned]) -> list[str]:
    """Every part of the card outputs: their faces, then their sheets."""
    return [html for plan in planned for html in plan.faces.parts + plan.parts]


def _links(parts: list[LaidOut]) -> list[tuple[int, list[float], int]]:
    """Links from one part to an anchor in another: (page, rectangle, target page), counted
    over the whole output."""
    pages, where, pending = 0, {}, []
    for part in parts:
        for anchor, index in part.anchors.items():
            where.setdefault(anchor, pages + index)
        pending += [(pages + index, anchor, rectangle) for index, anchor, rectangle in part.links]
        pages += part.pages
    return [(page, rectangle, where[anchor]) for page, anchor, rectangle in pending
            if anchor in where]


def render_documents(game: Game, planned: list[Planned], books: list[tuple[str, bool, Rulebook]],
                     progress: Progress, layouts: Layouts) -> list[Rendered]:
    """Lay out, measure and write every output: the card outputs, then each rulebook.

    The faces and sheets (which may have been started already) are laid out first, then the
    rulebook's chapters, while the card outputs are joined; its cover and contents, which give
    the chapters' page numbers, and its folios follow once those are known.
    """
    starts = {stem: book.front(None) for stem, _, book in books}
    layouts.start(card_parts(planned))
    layouts.start([html for stem, _, book in books
                   for html in book.faces.parts + book.parts + [starts[stem]]])
    layouts.wait(card_parts(planned))
    layouts.release()
    rendered = [layouts.output(plan.output.file, plan.parts, progress, faces=plan.faces)
                for plan in planned]  # joined while the rulebook's chapters are laid out
    layouts.wait()
    finals = {}
    for stem, _, book in books:
        finals[stem] = _numbered(book, layouts.done[starts[stem]],
                                 [layouts.done[html] for html in book.parts])
    layouts.start([html for pair in finals.values() for html in pair])
    layouts.wait()
    layouts.release()
    for stem, _, book in books:
        front, folios = finals[stem]
        rendered.append(layouts.output(f"{stem}.pdf", [front] + book.parts, progress, folios,
                                       book.faces))
        layouts.cache.used[f"{stem}.pdf"].append(part_key(starts[stem]))  # keep the page count
    return rendered


def _numbered(book: Rulebook, start: LaidOut, parts: list[LaidOut]) -> tuple[str, str]:
    """The rulebook's cover and contents with page numbers, and its folios: each page's
    running head is the chapter begun on it or last before it."""
    numbers: dict[str, int] = {}
    pages = start.pages
    for part in parts:
        for anchor, index in part.anchors.items():
            numbers.setdefault(anchor, pages + index + 1)
        pages += part.pages
    begun = {numbers[h.id]: h.text for h in book.headings if h.level == 2 and h.id in numbers}
    folios = [("cover", "")] + [("contents", "")] * (start.pages - 1)
    head = ""
    for page in range(start.pages + 1, pages + 1):
        head = begun.get(page, head)
        folios.append(("", head))
    return book.front(numbers), book.folios(folios)


def _write(out_dir: Path, game: Game, files: list[tuple[str, bytes, Output | None]]) -> dict:
    """Write every file, each atomically, then the manifest."""
    for file, data, _ in files:
        write_atomic(out_dir / file, data)
    outputs = [output for _, _, output in files if output is not None]
    return write_manifest(out_dir, game.name, game.spec.version, outputs)


def build_game(
    name: str,
    options: BuildOptions = BuildOptions(),
    out_root: Path = BUILD_DIR,
    cards_dir: Path = CARDS_DIR,
    progress: Progress = lambda message: None,
    workers: Workers | None = None,
) -> dict:
    """Build every output of a game; nothing is written unless everything succeeded.

    A running `workers` pool is used and left running (pnp watch); else one is started and
    stopped.
    """
    started = time.perf_counter()
    digest = input_digest(cards_dir / name, options)
    with nullcontext(workers) if workers else Workers().start() as pool:
        game, geometry, fonts = _checked(name, cards_dir, options, progress)
        planned = plan_outputs(game, geometry, fonts, options)
        cache = PartCache(out_root / name / PARTS_DIR)
        layouts = Layouts(game, fonts, cache, pool, keep_workers=workers is not None)
        layouts.start(card_parts(planned))  # while the rulebook
        books = rulebooks(game, geometry, fonts, options,  # is made into HTML
                          planned[0].faces if planned else None)
        rendered = render_documents(game, planned, books, progress, layouts)
    found = [finding for result in rendered for finding in result.findings]
    if errors_only(found) or (options.strict and found):
        raise PackError(found if options.strict else errors_only(found))
    files: list[tuple[str, bytes, Output | None]] = []
    for plan, result in zip(planned, rendered[:len(planned)], strict=True):
        if options.html:
            files.append((plan.output.file.replace(".pdf", ".html"), plan.html.encode("utf-8"),
                          None))
        files.append((plan.output.file, result.pdf, plan.output))
    if game.spec.dice:
        from .dice import dice_pdf  # reportlab is loaded only for packs with dice

        data, pages = dice_pdf(game.spec.dice, geometry.papers[options.paper],
                               margin=geometry.min_margin,
                               title=f"{game.spec.title} {game.spec.version} — dice")
        output = Output(file=f"dice-{options.paper}.pdf", kind="dice", paper=options.paper,
                        pages=pages,
                        decks={die.id: {"faces": die.count, "backs": 0} for die in game.spec.dice})
        files.append((output.file, data, output))
    files += _rulebook_files(books, rendered[len(planned):], geometry, options)
    manifest = _write(out_root / name, game, files)
    cache.keep_only()
    remember(out_root / name, options.paper, digest, [file for file, _, _ in files])
    progress(f"{name}: wrote {sum(o is not None for *_, o in files)} PDFs to {out_root / name} "
             f"in {time.perf_counter() - started:.1f} s ({cache.hits} parts from the cache, "
             f"{cache.misses} laid out)")
    return manifest


def build_rulebook(
    name: str,
    options: BuildOptions = BuildOptions(),
    out_root: Path = BUILD_DIR,
    cards_dir: Path = CARDS_DIR,
    progress: Progress = lambda message: None,
) -> dict:
    """Validate a game, then write its rulebook (and booklet) only."""
    game, geometry, fonts = _checked(name, cards_dir, options, progress)
    if not has_rulebook(game):
        where = display_path(game.root / game.spec.rulebook.file)
        raise PackError([Finding(where, 0, "the game has no rulebook", code="E001")])
    books = rulebooks(game, geometry, fonts, options)
    cache = PartCache(out_root / name / PARTS_DIR)
    with Workers() as workers:
        rendered = render_documents(game, [], books, progress,
                                    Layouts(game, fonts, cache, workers))
    manifest = _write(out_root / name, game, _rulebook_files(books, rendered, geometry, options))
    cache.keep_only()
    return manifest


def _rulebook_files(books: list[tuple[str, bool, Rulebook]], rendered: list[Rendered],
                    geometry: Geometry, options: BuildOptions) -> list[tuple[str, bytes,
                                                                              Output | None]]:
    """The rulebook's files: its PDF, the booklet imposed two up, and the HTML when asked."""
    files: list[tuple[str, bytes, Output | None]] = []
    for (stem, booklet, book), result in zip(books, rendered, strict=True):
        data, pages = result.pdf, result.pages
        if booklet:
            order = booklet_order(pages)
            data = impose_booklet(data, geometry.papers[options.paper], order)
            pages = len(order)
        if options.html:
            files.append((f"{stem}.html", book.whole().encode("utf-8"), None))
        kind = stem.removesuffix(f"-{options.paper}")
        files.append((f"{stem}.pdf", data, Output(f"{stem}.pdf", kind, options.paper, pages)))
    return files


def _checked(name: str, cards_dir: Path, options: BuildOptions,
             progress: Progress) -> tuple[Game, Geometry, FontRegistry]:
    """Load and validate; stop on errors, and on warnings too when strict."""
    game, geometry, fonts, findings = check(name, cards_dir)
    warnings = [f for f in findings if f.level == "warning"]
    if options.strict and warnings:
        raise PackError(warnings)
    progress(f"{name}: loaded and validated {sum(d.copies for d in game.decks)} cards "
             f"in {len(game.decks)} decks ({len(warnings)} warnings)")
    return game, geometry, fonts


def validate_game(name: str, cards_dir: Path = CARDS_DIR, paper: str = "a4",
                  progress: Progress = lambda message: None,
                  out_root: Path = BUILD_DIR) -> list[Finding]:
    """Every finding for a game: the checks on its data, then those on its laid-out pages."""
    try:
        game, geometry, fonts, findings = check(name, cards_dir, strict=False)
    except PackError as exc:
        return exc.findings
    if errors_only(findings):
        return findings
    planned = plan_outputs(game, geometry, fonts, BuildOptions(paper))
    cache = PartCache(out_root / name / PARTS_DIR)
    with Workers() as workers:
        rendered = render_documents(game, planned, [], progress,
                                    Layouts(game, fonts, cache, workers, write=False))
    return sorted(findings + [f for result in rendered for f in result.findings])
