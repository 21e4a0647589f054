"""The pipeline: load, validate, render, impose, PDF and manifest, in that order."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from . import BUILD_DIR, CARDS_DIR
from .dice import dice_pdf
from .errors import Finding, PackError, display_path
from .fit import measure
from .fonts import FontRegistry, load_fonts
from .geometry import Box, Geometry, load_geometry
from .impose import Sheet, impose_deck, marks_svg
from .load import Game, line_of, load_game
from .manifest import Output, write_manifest
from .pdf import layout, write_atomic, write_pdf
from .render import Face, Renderer
from .validate import errors_only, validate

Progress = Callable[[str], None]
MIN_DPI = 300  # raster images print at least this sharp


@dataclass(frozen=True)
class BuildOptions:
    """What the designer asked for."""

    paper: str = "a4"
    backs: bool = True
    html: bool = False
    strict: bool = False


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
    env, geometry = renderer.env, renderer.geometry
    font_roles = {role: f"'{family}'" for role, family in game.spec.fonts.items()}
    context = {
        "game": game.spec,
        "palette": game.spec.palette,
        "fonts": font_roles,
        "bleed": geometry.bleed,
        "safe": geometry.safe,
    }
    base_css = env.get_template("base.css.j2").render(**context)
    pack_css = ""
    if game.spec.stylesheet:
        pack_css = (game.root / game.spec.stylesheet).read_text(encoding="utf-8")
    return env.get_template("sheets.html.j2").render(
        **context,
        title=title,
        paper=geometry.papers[paper],
        sheets=sheets,
        sizes={deck.spec.id: geometry.sizes[deck.spec.size] for deck in game.decks},
        font_css=Markup(fonts.font_face_css(set(game.spec.fonts.values()))),
        base_css=Markup(base_css),
        pack_css=Markup(pack_css),
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


def lay_out(game: Game, fonts: FontRegistry, planned: list[Planned],
            progress: Progress) -> tuple[list[Any], list[Finding]]:
    """Lay out every planned output; return the documents and what measuring them found."""
    documents, found = [], []
    sites = sources(game)
    for plan in planned:
        step = time.perf_counter()
        file = plan.output.file
        document = layout(plan.html, game.root, fonts.files(),
                          warn=lambda message, file=file: progress(
                              f"{game.name}: {file}: warning: {message}"))
        documents.append(document)
        found += measure(document, sites, MIN_DPI)
        progress(f"{game.name}: {file}: {plan.output.pages} pages laid out "
                 f"in {time.perf_counter() - step:.1f} s")
    return documents, found


def build_game(
    name: str,
    options: BuildOptions = BuildOptions(),
    out_root: Path = BUILD_DIR,
    cards_dir: Path = CARDS_DIR,
    progress: Progress = lambda message: None,
) -> dict:
    """Build every output of a game; nothing is written unless everything succeeded."""
    started = time.perf_counter()
    game, geometry, fonts, findings = check(name, cards_dir)
    warnings = [f for f in findings if f.level == "warning"]
    if options.strict and warnings:
        raise PackError(warnings)
    progress(f"{name}: loaded and validated {sum(d.copies for d in game.decks)} cards "
             f"in {len(game.decks)} decks ({len(warnings)} warnings)")
    planned = plan_outputs(game, geometry, fonts, options)
    documents, found = lay_out(game, fonts, planned, progress)
    if errors_only(found) or (options.strict and found):
        raise PackError(found if options.strict else errors_only(found))
    out_dir = out_root / name
    pending: list[tuple[Path, bytes]] = []
    outputs: list[Output] = []
    for plan, document in zip(planned, documents, strict=True):
        if options.html:
            pending.append((out_dir / plan.output.file.replace(".pdf", ".html"),
                            plan.html.encode("utf-8")))
        pending.append((out_dir / plan.output.file, write_pdf(document)))
        outputs.append(plan.output)
    if game.spec.dice:
        data, pages = dice_pdf(game.spec.dice, geometry.papers[options.paper],
                               margin=geometry.min_margin,
                               title=f"{game.spec.title} {game.spec.version} — dice")
        output = Output(file=f"dice-{options.paper}.pdf", kind="dice", paper=options.paper,
                        pages=pages,
                        decks={die.id: {"faces": die.count, "backs": 0} for die in game.spec.dice})
        pending.append((out_dir / output.file, data))
        outputs.append(output)
    for path, data in pending:
        write_atomic(path, data)
    manifest = write_manifest(out_dir, name, game.spec.version, outputs)
    progress(f"{name}: wrote {len(outputs)} PDFs to {out_dir} "
             f"in {time.perf_counter() - started:.1f} s")
    return manifest


def validate_game(name: str, cards_dir: Path = CARDS_DIR, paper: str = "a4",
                  progress: Progress = lambda message: None) -> list[Finding]:
    """Every finding for a game: the checks on its data, then those on its laid-out pages."""
    try:
        game, geometry, fonts, findings = check(name, cards_dir, strict=False)
    except PackError as exc:
        return exc.findings
    if errors_only(findings):
        return findings
    _, found = lay_out(game, fonts, plan_outputs(game, geometry, fonts, BuildOptions(paper)),
                       progress)
    return sorted(findings + found)
