"""The pipeline: load, validate, render, impose, PDF and manifest, in that order."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from . import BUILD_DIR, CARDS_DIR
from .dice import dice_pdf
from .errors import PackError
from .fonts import FontRegistry, load_fonts
from .geometry import Box, Geometry, load_geometry
from .impose import Sheet, impose_deck, marks_svg
from .load import Game, load_game
from .manifest import Output, write_manifest
from .pdf import html_to_pdf, write_atomic
from .render import Face, Renderer
from .validate import errors_only, validate

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BuildOptions:
    """What the designer asked for."""

    paper: str = "a4"
    backs: bool = True
    html: bool = False


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
    progress(f"{name}: loaded and validated {sum(d.copies for d in game.decks)} cards "
             f"in {len(game.decks)} decks ({len(warnings)} warnings)")
    renderer = Renderer(game, geometry)
    groups: dict[str, list] = {}
    for deck in game.decks:
        groups.setdefault(deck.spec.output, []).append(deck)
    out_dir = out_root / name
    pending: list[tuple[Path, bytes]] = []
    outputs: list[Output] = []
    for kind, decks in groups.items():
        step = time.perf_counter()
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
        title = f"{game.spec.title} {game.spec.version} — {kind} ({options.paper})"
        html = document_html(game, renderer, sheets, options.paper, fonts, title)
        if options.html:
            pending.append((out_dir / f"{kind}-{options.paper}.html", html.encode("utf-8")))
        pdf = html_to_pdf(html, game.root, fonts.files(),
                          warn=lambda message, file=output.file: progress(
                              f"{name}: {file}: warning: {message}"))
        pending.append((out_dir / output.file, pdf))
        output.pages = len(sheets)
        outputs.append(output)
        progress(f"{name}: {output.file}: {output.pages} pages "
                 f"in {time.perf_counter() - step:.1f} s")
    if game.spec.dice:
        data, pages = dice_pdf(game.spec.dice, geometry.papers[options.paper],
                               margin=geometry.min_margin,
                               title=f"{game.spec.title} {game.spec.version} — dice")
        output = Output(file=f"dice-{options.paper}.pdf", kind="dice", paper=options.paper,
                        pages=pages,
                        decks={die.id: {"faces": die.count, "backs": 0} for die in game.spec.dice})
        pending.append((out_dir / output.file, data))
        outputs.append(output)
        progress(f"{name}: {output.file}: {pages} pages")
    for path, data in pending:
        write_atomic(path, data)
    manifest = write_manifest(out_dir, name, game.spec.version, outputs)
    progress(f"{name}: wrote {len(outputs)} PDFs to {out_dir} "
             f"in {time.perf_counter() - started:.1f} s")
    return manifest
