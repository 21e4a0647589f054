"""The pipeline: load and validate a game (stages 1-2), plan every output (3), lay out its
parts (4), assemble them (5), and write the files and the manifest (6), in that order."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import BUILD_DIR, CARDS_DIR, outputs
from ..check.findings import (
    Finding,
    PackError,
    RenderError,
    counted,
    display_path,
    errors_only,
    hidden_by,
    tally,
    told,
)
from ..check.validate import validate
from ..layout.workers import Workers
from ..outputs.base import Document, File, Job, OutputKind, language_name, translation
from ..pack.load import Game, load_game, load_spec
from ..pack.place import pack_dir
from ..pack.translate import in_language, languages, told_once
from ..pack.yamlfile import line_of
from ..pdf.assemble import unsound
from ..plan.geometry import Box, load_geometry
from ..plan.render import Renderer
from ..text.fonts import load_fonts
from .cache import CACHE, BuildOptions, PartCache, input_digest, parts_place
from .execute import Assembled, Executor, Site
from .manifest import SETS, Output, Written, write_set
from .owned import check_root

Progress = Callable[[str], None]


@dataclass
class Checked:
    """A game loaded and validated: the job its outputs plan from, one instance of each kind
    asked for, every finding, and what the layout checks had to leave out."""

    job: Job
    kinds: list[OutputKind]
    findings: list[Finding]
    unchecked: list[str] = field(default_factory=list)

    @property
    def game(self) -> Game:
        """The game loaded."""
        return self.job.game


def check(name: str, cards_dir: Path = CARDS_DIR, options: BuildOptions = BuildOptions(),
          kinds: Sequence[Callable[[Job], OutputKind]] | None = None,
          early: Callable[[Renderer], None] = lambda renderer: None) -> Checked:
    """Load and validate a game; every finding, the kinds' own checks included (`kinds` makes
    each kind for the job; by default the registry's build kinds the options ask for).
    `early` is given the game's renderer before the checks begin (`pnp serve` starts laying
    out faces while they run).

    Only a game.yaml that cannot be read stops it (PackError); otherwise the job plans the
    cards that have no error of their own, and `unchecked` says what that leaves out. A game
    read in another language than its source (`options.language`) has each finding after
    `[language] `.
    """
    game = load_game(name, cards_dir, options.language)
    own_sizes = {key: Box(size.width, size.height) for key, size in game.spec.sizes.items()}
    geometry = load_geometry().with_sizes(own_sizes, game.size_shapes)
    fonts = load_fonts().for_game(game)
    if options.bleed is not None:
        geometry = replace(geometry, bleed=options.bleed)
    renderer = Renderer(game, geometry, fonts)
    early(renderer)
    report = validate(game, geometry, fonts, renderer)
    job = Job(game, geometry, fonts, options, renderer, report.decks)
    if kinds is None:
        kinds = [kind.load() for kind in outputs.made_by(outputs.BUILD)
                 if not options.only or kind.name in options.only]
    made = [make(job) for make in kinds]
    findings = report.findings + [finding for kind in made for finding in kind.check()]
    return Checked(job, made, sorted(set(localized(game, reported(game, findings)))),
                   report.unchecked)


def localized(game: Game, findings: list[Finding]) -> list[Finding]:
    """The findings of a game, after `[language] ` when it is read in another language than
    its source."""
    return in_language(findings, game.language, game.source_language)


def reported(game: Game, findings: list[Finding]) -> list[Finding]:
    """The findings, less the warnings game.yaml's `suppress` silences."""
    silenced = set(game.spec.suppress)
    return [f for f in findings if not (f.level == "warning" and f.code in silenced)]


def sites(game: Game) -> dict[str, Site]:
    """Where each card and each back comes from, and where its template is named, for
    findings on the laid-out pages."""
    where = display_path(game.root / "game.yaml")
    found = {}
    first: dict[str, int] = {}  # each back template: where the first back using it is
    for back_id, back in game.spec.backs.items():
        line = line_of(game.spec_data, ("backs", back_id))
        first.setdefault(back.template, line)
        found[f"back:{back_id}"] = Site(where, line, f"backs (template cards/{back.template}"
                                        ".html.j2)", where, first[back.template])
    for index, box in enumerate(game.spec.boxes):
        line = line_of(game.spec_data, ("boxes", index))
        found[f"box:{box.id}"] = Site(where, line, f"box '{box.id}' (template cards/"
                                      f"{box.template}.html.j2)", where, line)
    for index, deck in enumerate(game.decks):
        group = f"deck '{deck.spec.id}' (template cards/{deck.spec.template}.html.j2)"
        line = line_of(game.spec_data, ("decks", index, "template"))
        for card, card_line in deck.located():
            found[card.id] = Site(display_path(deck.path), card_line, group, where, line)
    return found


@dataclass(frozen=True)
class BuildResult:
    """What a build wrote: the manifest, each output as assembled, the warnings laying it out
    gave, and how many parts came from the cache or were laid out."""

    manifest: dict
    outputs: list[Assembled]
    warnings: list[Finding]
    from_cache: int
    laid_out: int

    def output(self, file: str) -> Assembled:
        """One output by its file name."""
        return next(result for result in self.outputs if result.file == file)


def plan(checked: Checked, executor: Executor,
         skipped: list[str] | None = None) -> list[tuple[OutputKind, Document]]:
    """Every kind's documents, their parts started as soon as each kind has planned them (the
    card sheets are laid out while the rulebook is made into HTML). Given `skipped`, a kind
    that cannot plan (its own check has said why) is noted there and left out."""
    planned = []
    for kind in checked.kinds:
        try:
            documents = kind.plan()
        except PackError as exc:
            if skipped is None:
                raise
            checked.findings[:] = sorted(set(checked.findings + exc.findings))  # told too
            skipped.append(f"the {kind.name} output (it has errors of its own)")
            continue
        executor.start(part for document in documents for part in document.every_part())
        planned += [(kind, document) for document in documents]
    if not planned and checked.job.options.only:  # the kinds asked for have nothing to make
        raise PackError([kind.missing() for kind in checked.kinds])
    return planned


def run(planned: list[tuple[OutputKind, Document]], executor: Executor,
        progress: Progress, name: str, language: str | None = None
        ) -> list[tuple[OutputKind, Document, Assembled]]:
    """Assemble each document once its parts are laid out, in order; a document its kind
    revises (the rulebook, numbered) has its new parts laid out first, and is assembled last.
    Progress names each file as a build of `language` (None: the source) writes it."""
    done: dict[int, tuple[Document, Assembled]] = {}

    def assemble(index: int, document: Document) -> None:
        executor.release()
        result = executor.assemble(document)
        done[index] = (document, result)
        if result.parts:  # a document of no parts is drawn by its kind when finished
            sides = planned[index][0].file_pages(document, result.pages)
            pages = f"{counted(sides, 'page')}, " if document.parts else "faces: "
            progress(f"{name}: {language_name(result.file, language)}: {pages}{result.laid_out} of "
                     f"{counted(result.parts, 'part')} laid out ({result.seconds:.1f} s)")

    later = []
    for index, (kind, document) in enumerate(planned):
        executor.wait(document.every_part())
        revised = kind.revise(document, executor.laid)
        if revised is document:
            assemble(index, document)
        else:
            executor.start(revised.every_part())
            later.append((index, revised))
    for index, revised in later:
        executor.wait(revised.every_part())
        assemble(index, revised)
    return [(kind, *done[index]) for index, (kind, _) in enumerate(planned)]


def make(checked: Checked, out_root: Path, progress: Progress,
         workers: Workers | None = None) -> list[tuple[OutputKind, Document, Assembled]]:
    """Every document of the checked kinds laid out, from the game's parts cache where it can,
    and assembled, on `workers` (left running) or a pool of its own; an error on a laid-out
    page stops it. Progress names the game (and a language not its source) as a build does."""
    game = checked.game
    language = translation(game)
    label = labelled(game.name, language)
    cache = PartCache(out_root, parts_place(game.name), game.root,
                      lambda message: progress(f"{label}: cache: {message}"))
    with nullcontext(workers) if workers else Workers().start() as pool:
        executor = Executor(game.root, checked.job.fonts, cache, pool,
                            keep_workers=workers is not None,
                            max_bytes=game.spec.limits.file_bytes)
        results = run(plan(checked, executor), executor, progress, label, language)
    found = errors_only(executor.findings(sites(game)))
    if found:
        raise PackError(found)
    return results


def labelled(name: str, language: str | None) -> str:
    """How progress names a game in a language: `mini`, `mini [es]` (None: the source)."""
    return name if language is None else f"{name} [{language}]"


def finished(results: list[tuple[OutputKind, Document, Assembled]]
             ) -> list[tuple[OutputKind, File]]:
    """Each made document finished by its kind into files, in order: the one loop of every
    command that makes outputs."""
    return [(kind, file) for kind, document, made in results
            for file in kind.finish(document, made)]


def build_game(
    name: str,
    options: BuildOptions = BuildOptions(),
    out_root: Path = BUILD_DIR,
    cards_dir: Path = CARDS_DIR,
    progress: Progress = lambda message: None,
    workers: Workers | None = None,
) -> BuildResult:
    """Build every output of a game in one language (options.language; None: its source);
    nothing is written unless everything succeeded. Another language's files carry it in
    their names (`cards-a4-es.pdf`), and are an output set of their own.

    A running `workers` pool is used and left running (pnp watch, `--lang all`); else one is
    started and stopped.
    """
    started = time.perf_counter()
    check_root(out_root, (SETS, name), (CACHE,))
    digest = input_digest(cards_dir / name, options)
    label = labelled(name, options.language)
    with nullcontext(workers) if workers else Workers().start() as pool:
        checked = check(name, cards_dir, options)
        warnings = [f for f in checked.findings if f.level == "warning"]
        if errors_only(checked.findings) or (options.strict and warnings):
            raise PackError(checked.findings if options.strict else
                            errors_only(checked.findings))
        game = checked.game
        language = translation(game)
        cards = counted(sum(deck.copies for deck in game.decks), "card")
        progress(f"{label}: loaded and validated {cards} in {counted(len(game.decks), 'deck')} "
                 f"({counted(tally(warnings)[1], 'warning')})")
        cache = PartCache(out_root, parts_place(name), game.root,
                          lambda message: progress(f"{label}: cache: {message}"))
        executor = Executor(game.root, checked.job.fonts, cache, pool,
                            keep_workers=workers is not None,
                            max_bytes=game.spec.limits.file_bytes)
        results = run(plan(checked, executor), executor, progress, label, language)
    found = localized(game, reported(game, executor.findings(sites(game))))
    if errors_only(found) or (options.strict and found):
        raise PackError(found if options.strict else errors_only(found))
    for finding in told(found):
        progress(str(finding))
    files = [Output(named.name, named.data, kind.name, named.entry)
             for kind, file in finished(results) for named in [file.in_language(language)]]
    for file in files:
        problem = unsound(file.data) if file.name.endswith(".pdf") else None
        if problem:
            raise RenderError(f"{name}: {file.name} was made unsound ({problem}); a bug in pnp")
    out_dir = out_root / name
    manifest = write_set(out_root, Written(name, game.spec.version, options.paper, digest, files,
                                           frozenset(kind.name for kind in checked.kinds),
                                           language),
                         lambda message: progress(f"{label}: {message}"))
    # what each file is made of, by its name: every language's last build keeps its parts
    cache.used = {language_name(file, language): keys for file, keys in cache.used.items()}
    cache.keep_only()
    written = sum(file.entry is not None for file in files)
    progress(f"{label}: wrote {counted(written, 'PDF')} to {out_dir} in "
             f"{time.perf_counter() - started:.1f} s ({counted(cache.hits, 'part')} from the "
             f"cache, {cache.misses} laid out)")
    return BuildResult(manifest, [result for _, _, result in results], found, cache.hits,
                       cache.misses)


@dataclass(frozen=True)
class Report:
    """What `pnp validate` found in one game, and what its layout checks left out."""

    findings: list[Finding]
    unchecked: list[str]
    shrunk: list[dict[str, str]] = field(default_factory=list)  # fields set smaller to fit


def validate_game(name: str, cards_dir: Path = CARDS_DIR,
                  options: BuildOptions = BuildOptions(), out_root: Path = BUILD_DIR,
                  workers: Workers | None = None,
                  progress: Progress = lambda message: None) -> Report:
    """Every finding for a game: the checks on its data, then those on its laid-out pages,
    for every card with no error of its own, in the language `options.language` names (its
    source when None; `all`: the source, then every other language, a finding another
    language shares with the source told once, for the source). Parts a build kept are
    taken; nothing is written. A running `workers` pool is used and left running."""
    if options.language == ALL:
        return _every_language(name, cards_dir, options, out_root, workers, progress)
    try:
        checked = check(name, cards_dir, options)
    except PackError as exc:
        return Report(exc.findings, ["everything past loading (game.yaml or its rules do not "
                                     "load)"])
    unchecked = list(checked.unchecked)
    cache = PartCache(out_root, parts_place(name), checked.game.root,
                      lambda message: progress(f"{name}: cache: {message}"), read_only=True)
    with nullcontext(workers) if workers else Workers() as pool:
        executor = Executor(checked.game.root, checked.job.fonts, cache, pool,
                            keep_workers=workers is not None,
                            max_bytes=checked.game.spec.limits.file_bytes)
        planned = plan(checked, executor, unchecked)
        executor.wait()
    for _, document in planned:
        executor.check_links(document)
    found = localized(checked.game, reported(checked.game,
                                             executor.findings(sites(checked.game))))
    hidden = hidden_by(checked.findings)  # a missing glyph hides its backstop on the page
    found = [finding for finding in found if finding.code not in hidden]
    return Report(sorted(set(checked.findings + found)), unchecked,
                  executor.shrunk(sites(checked.game)))


ALL = "all"  # every language of a game, as `--lang all` asks


def _every_language(name: str, cards_dir: Path, options: BuildOptions, out_root: Path,
                    workers: Workers | None, progress: Progress) -> Report:
    """validate_game in the source language, then in each other, findings merged."""
    tags: list[str | None] = [None]  # when game.yaml does not load, the source's tells why
    with suppress(PackError):
        tags = [*languages(load_spec(pack_dir(name, cards_dir)))]
    with nullcontext(workers) if workers else Workers() as pool:
        reports = [validate_game(name, cards_dir, replace(options, language=tag), out_root,
                                 pool, progress) for tag in tags]
    source, *others = reports
    return Report(told_once(source.findings, [f for report in others for f in report.findings]),
                  source.unchecked + [f"[{tag}] {item}" for tag, report in zip(
                      tags[1:], others, strict=True) for item in report.unchecked],
                  [shrunk for report in reports for shrunk in report.shrunk])
