"""The pipeline: load, validate, render, impose, PDF and manifest, in that order."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import BUILD_DIR, CARDS_DIR
from .cache import BuildOptions, input_digest, remember
from .errors import Finding, PackError, display_path
from .fonts import FontRegistry, load_fonts
from .geometry import Box, Geometry, load_geometry
from .impose import Sheet, booklet_order, impose_deck, marks_svg, overview
from .load import Game, line_of, load_game
from .manifest import Output, write_manifest
from .pdf import Rendered, impose_booklet, render_all, write_atomic
from .render import Face, Renderer
from .rulebook import has_rulebook, rulebook_html
from .validate import errors_only, validate

Progress = Callable[[str], None]
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
                  fonts: FontRegistry, title: str) -> str:
    """The whole output as one HTML document, one sheet per page."""
    geometry = renderer.geometry
    return renderer.env.get_template("sheets.html.j2").render(
        **renderer.page_context(fonts),
        title=title,
        paper=geometry.papers[paper],
        sheets=sheets,
        sizes={deck.spec.id: geometry.sizes[deck.spec.size] for deck in game.decks},
        marks=lambda sheet: marks_svg(sheet, geometry),
    )


@dataclass
class Planned:
    """One output ready to lay out: its manifest entry and its HTML."""

    output: Output
    html: str


def plan_outputs(game: Game, geometry: Geometry, fonts: FontRegistry,
                 options: BuildOptions) -> list[Planned]:
    """Render every card and impose each output group on sheets, as one HTML document each."""
    renderer = Renderer(game, geometry)
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
        planned.append(Planned(output, document_html(game, renderer, sheets, options.paper,
                                                     fonts, title)))
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


def rulebook_htmls(game: Game, geometry: Geometry, fonts: FontRegistry,
                   options: BuildOptions) -> list[tuple[str, bool, str]]:
    """The rulebook, and its booklet when asked for: (file stem, booklet?, HTML) each."""
    if not has_rulebook(game):
        return []
    variants = [("rulebook", False)] + ([("rulebook-booklet", True)] if options.booklet else [])
    return [(stem, booklet, rulebook_html(game, geometry, fonts, options.paper, booklet))
            for stem, booklet in variants]


def render_documents(game: Game, fonts: FontRegistry, named: list[tuple[str, str]],
                     progress: Progress, write: bool = True) -> list[Rendered]:
    """Lay out, measure and write each (file, HTML), side by side on the machine's cores."""
    rendered = render_all([html for _, html in named], game.root, fonts.files(),
                          sources(game), MIN_DPI, write)
    for (file, _), result in zip(named, rendered, strict=True):
        for message in result.warnings:
            progress(f"{game.name}: {file}: warning: {message}")
        progress(f"{game.name}: {file}: {result.pages} pages in {result.seconds:.1f} s")
    return rendered


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
) -> dict:
    """Build every output of a game; nothing is written unless everything succeeded."""
    started = time.perf_counter()
    digest = input_digest(cards_dir / name, options)
    game, geometry, fonts = _checked(name, cards_dir, options, progress)
    planned = plan_outputs(game, geometry, fonts, options)
    books = rulebook_htmls(game, geometry, fonts, options)
    named = [(plan.output.file, plan.html) for plan in planned]
    named += [(f"{stem}.pdf", html) for stem, _, html in books]
    rendered = render_documents(game, fonts, named, progress)
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
    remember(out_root / name, options.paper, digest, [file for file, _, _ in files])
    progress(f"{name}: wrote {sum(o is not None for *_, o in files)} PDFs to {out_root / name} "
             f"in {time.perf_counter() - started:.1f} s")
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
    books = rulebook_htmls(game, geometry, fonts, options)
    rendered = render_documents(game, fonts, [(f"{stem}.pdf", html) for stem, _, html in books],
                                progress)
    return _write(out_root / name, game, _rulebook_files(books, rendered, geometry, options))


def _rulebook_files(books: list[tuple[str, bool, str]], rendered: list[Rendered],
                    geometry: Geometry, options: BuildOptions) -> list[tuple[str, bytes,
                                                                              Output | None]]:
    """The rulebook's files: its PDF, the booklet imposed two up, and the HTML when asked."""
    files: list[tuple[str, bytes, Output | None]] = []
    for (stem, booklet, html), result in zip(books, rendered, strict=True):
        data, pages = result.pdf, result.pages
        if booklet:
            order = booklet_order(pages)
            data = impose_booklet(data, geometry.papers[options.paper], order)
            pages = len(order)
        if options.html:
            files.append((f"{stem}.html", html.encode("utf-8"), None))
        files.append((f"{stem}.pdf", data, Output(f"{stem}.pdf", stem, options.paper, pages)))
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
                  progress: Progress = lambda message: None) -> list[Finding]:
    """Every finding for a game: the checks on its data, then those on its laid-out pages."""
    try:
        game, geometry, fonts, findings = check(name, cards_dir, strict=False)
    except PackError as exc:
        return exc.findings
    if errors_only(findings):
        return findings
    planned = plan_outputs(game, geometry, fonts, BuildOptions(paper))
    rendered = render_documents(game, fonts, [(p.output.file, p.html) for p in planned],
                                progress, write=False)
    return sorted(findings + [f for result in rendered for f in result.findings])
