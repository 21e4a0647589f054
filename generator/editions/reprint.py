"""The designer's loop after a balance change: `pnp changes` says what prints differently since
an edition (or a git revision) and why, `pnp reprint` writes only those faces, each with its
back and at its real count of copies, on sheets like a build's, with CHANGELOG.md beside them,
and `pnp release` records the new edition in the pack."""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from .. import BUILD_DIR, CARDS_DIR
from ..check.findings import PackError, errors_only
from ..exports.base import ExportSettings
from ..exports.images import MAX_PIXELS, ImagesExport
from ..exports.run import images_cache, write_whole
from ..layout.workers import Workers
from ..outputs.base import File, Job, translation
from ..outputs.rulebook import has_rulebook, rulebook_markdown
from ..outputs.sheets import SheetsOutput
from ..pack import git
from ..pack.load import Deck, Game, load_spec
from ..pack.translate import languages
from ..pipeline.build import Checked, check, finished, labelled, make
from ..pipeline.cache import CACHE, BuildOptions
from ..pipeline.owned import check_root
from ..plan.render import Face
from ..text.language import section_words
from . import changelog, proof
from . import record as editions

Progress = Callable[[str], None]
OUTPUT = "reprint"  # the output group every reprinted deck is put in: reprint-<paper>.pdf


def checked_game(name: str, cards_dir: Path, options: BuildOptions = BuildOptions()) -> Checked:
    """A game loaded and validated; its errors stop here."""
    checked = check(name, cards_dir, options, kinds=[])
    if errors_only(checked.findings):
        raise PackError(errors_only(checked.findings))
    return checked


def in_languages(name: str, cards_dir: Path, asked: list[str | None] | None = None
                 ) -> list[Checked]:
    """The game loaded and validated in each language asked for (None: the source); when
    none is asked for, in every one of its languages, the source first."""
    if asked is None:
        asked = [None, *languages(load_spec(cards_dir / name))[1:]]
    return [checked_game(name, cards_dir, BuildOptions(language=language))
            for language in asked]


def record_of(checked: Checked, edition: str, number: int) -> dict[str, Any]:
    """What an edition of the game as it is now, in the language it is loaded in, would
    record."""
    game = checked.game
    text = rulebook_markdown(game) if has_rulebook(game) else None
    return editions.record(checked.job, edition, number, text)


def records_of(every: list[Checked], edition: str, number: int) -> dict[str, Any]:
    """What an edition records of a game in each of the languages given, the source first."""
    source, *others = every
    return editions.with_languages(record_of(source, edition, number), {
        checked.game.language: record_of(checked, edition, number) for checked in others})


def release(name: str, edition: str | None, cards_dir: Path = CARDS_DIR,
            out_root: Path | None = None, progress: Progress = lambda message: None,
            workers: Workers | None = None) -> Path:
    """Record the game as it prints now, in every one of its languages, as an edition in its
    pack, and, given `out_root`, keep there a picture of every face in each language for the
    proofs of later reprints; return the record's path."""
    if edition is not None:
        editions.check_name(edition)
    if out_root is not None:
        check_root(out_root, (CACHE,))
    every = in_languages(name, cards_dir)
    game = every[0].game
    number = editions.next_number(game)
    record = records_of(every, edition or f"e{number}", number)
    pictures: dict[str | None, dict[str, bytes]] = {}
    if out_root is not None:  # drawn before the record is written: a failure leaves neither
        with nullcontext(workers) if workers else Workers().start() as pool:
            for checked in every:
                draw = _pictures(checked, out_root, progress, pool)
                pictures[translation(checked.game)] = {
                    key: draw(face) for key, face in faces_of(checked.job).items()}
    path = editions.save(game, record)
    if out_root is not None:
        store = proof.kept_store(out_root, name, path.stem, game.root, progress)
        for language, drawn in pictures.items():
            proof.keep(store, drawn, language)
    return path


def faces_of(job: Job) -> dict[str, Face]:
    """Every face and back of a job's decks by the key an edition names it by."""
    renderer, found = job.renderer, {}
    for deck in job.decks:
        for card, line in deck.located():
            front = renderer.face(deck, card, line)
            back = renderer.back(deck, card, front)
            found[editions.face_key(deck, front)] = front
            if back is not None and back is not front:
                found[editions.face_key(deck, back)] = back
    return found


def _pictures(checked: Checked, out_root: Path, progress: Progress,
              workers: Workers | None) -> Callable[[Face], bytes]:
    """Lay out a checked game's faces (from the cache when built) and give the picture of
    each, at the proof's dpi with its bleed."""
    kind = ImagesExport(checked.job, ExportSettings(dpi=proof.PROOF_DPI), images_cache(
        out_root, checked.game.name, "proof", checked.game.root, progress))
    [(_, _, made)] = make(dataclasses.replace(checked, kinds=[kind]), out_root, progress, workers)
    kind.draw_from(made)

    def picture(face: Face) -> bytes:
        width, height = kind.pixels(_deck_of(checked.job, face)) or (1, 1)  # generic: never None
        shrink = min(1.0, (MAX_PIXELS / (width * height)) ** 0.5)  # a 2 m board stays drawable
        return kind.image(face, (max(1, int(width * shrink)), max(1, int(height * shrink))),
                          bleed=True)

    return picture


def _deck_of(job: Job, face: Face) -> Deck:
    """The deck a face belongs to."""
    return next(deck for deck in job.decks if deck.spec.id == face.deck_id)


def since(every: list[Checked], reference: str | None) -> dict[str, Any]:
    """The record to compare the game in these languages with: an edition by name (the last
    when None), else the pack as it was at a git revision, built in a temporary folder; a
    name that is both is refused."""
    game = every[0].game
    if reference is None:
        return editions.load(game, None)
    known = {str(data.get("edition")) for data in editions.listed(game)}
    try:
        commit = git.commit_of(game.root.resolve(), reference)
    except git.GitError as exc:
        if reference in known:
            return editions.load(game, reference)
        raise git.GitError(f"{game.name}: '{reference}' is neither an edition nor a git revision "
                       f"of the pack ({exc})") from None
    if reference in known:
        raise git.GitError(f"{game.name}: '{reference}' is both an edition of the pack and a git "
                       f"revision (commit {commit[:12]}): rename the edition (its `edition` in "
                       f"{editions.folder(game)}) so that --since names one of them")
    return _at_revision(game, [translation(checked.game) for checked in every], reference,
                        commit)


def _at_revision(game: Game, asked: list[str | None], revision: str, commit: str
                 ) -> dict[str, Any]:
    """The record of the pack as a git revision (its commit) has it, in its source language
    and in each language asked for that the revision has (one it lacks has every face new)."""
    root = game.root.resolve()
    with tempfile.TemporaryDirectory(prefix="pnp-revision-") as folder:
        try:
            git.write_pack(root, commit, revision, Path(folder) / root.name,
                           game.spec.limits.file_bytes)
        except git.GitError as exc:
            raise git.GitError(f"{game.name}: git revision '{revision}' cannot be read "
                           f"({exc})") from None
        then = languages(load_spec(Path(folder) / root.name))[1:]
        kept = [language for language in asked if language is not None and language in then]
        return records_of(in_languages(root.name, Path(folder), [None, *kept]), revision, 0)


def changes(name: str, reference: str | None, cards_dir: Path = CARDS_DIR,
            language: str | None = None) -> tuple[editions.Changes, Checked]:
    """What prints differently now than at an edition or revision in one language (None: the
    source), and the game as it is in that language."""
    [found] = changes_in(name, reference, cards_dir, [language])
    return found


def changes_in(name: str, reference: str | None, cards_dir: Path,
               asked: list[str | None]) -> list[tuple[editions.Changes, Checked]]:
    """What prints differently now than at an edition or revision, in each language asked for
    (None: the source), each with the game as it is in that language."""
    every = in_languages(name, cards_dir, asked)
    old = since(every, reference)
    return [(compared(old, checked), checked) for checked in every]


def compared(old: dict[str, Any], checked: Checked) -> editions.Changes:
    """What prints differently in a checked game, in the language it is loaded in, than in
    an edition's (or a revision's) record."""
    game = checked.game
    new = record_of(checked, "now", 0)
    source = ""
    if has_rulebook(game):
        source = (game.root / game.spec.rulebook.file).read_text(encoding="utf-8",
                                                               errors="replace")
    return editions.compare(editions.in_language(old, translation(game), new), new, source,
                            game.language)


def report(found: editions.Changes, checked: Checked) -> str:
    """The changes as the changelog words them, in the language the game is loaded in."""
    game = checked.game
    return changelog.markdown(found, f"{game.spec.title} {game.spec.version}",
                              game.spec.language,
                              {deck.spec.id: deck.spec.name for deck in game.decks},
                              game.spec.icons)


def changelog_name(language: str | None) -> str:
    """The changelog's file name: CHANGELOG.md for the source (None), CHANGELOG.<L>.md for
    another language."""
    return "CHANGELOG.md" if language is None else f"CHANGELOG.{language}.md"


def reprint(name: str, reference: str | None, options: BuildOptions = BuildOptions(),
            cards_dir: Path = CARDS_DIR, out_root: Path = BUILD_DIR,
            progress: Progress = lambda message: None, workers: Workers | None = None,
            asked: list[str | None] | None = None) -> Path | None:
    """In each language asked for (by default options.language; None: the source), write the
    faces that print differently, with their backs, as reprint-<paper>.pdf, the proof of each
    before and after as changes-<paper>.pdf, and CHANGELOG.md (another language's names
    carrying it: reprint-<paper>-<L>.pdf, changes-<paper>-<L>.pdf, CHANGELOG.<L>.md), all
    into `out_root/<game>-reprint/`, written whole; None, and nothing written, when nothing
    changed in any."""
    started = time.perf_counter()
    check_root(out_root, (f"{name}-reprint",), (CACHE,))
    every = changes_in(name, reference, cards_dir, [options.language] if asked is None else asked)
    files: list[File] = []
    unchanged, written = [], []
    with nullcontext(workers) if workers else Workers().start() as pool:
        for found, checked in every:
            language = translation(checked.game)
            label = labelled(name, language)
            if found.empty:
                unchanged.append(f"{label}: nothing prints differently since {found.since}")
                continue
            made = [File(changelog_name(language), report(found, checked).encode()),
                    *(file.in_language(language) for file in _sheets(
                        dataclasses.replace(options, language=language), checked, found,
                        out_root, progress, pool))]
            faces = sum(item.copies for item in found.changed) + sum(
                entry["copies"] for entry in found.added)
            written.append((label, ", ".join(file.name for file in made),
                            f"({len(found.changed)} changed and {len(found.added)} new faces, "
                            f"{faces} copies, since {found.since})"))
            files += made
    for message in unchanged:
        progress(message if files else f"{message}: nothing written")
    if not files:
        return None
    folder = out_root / f"{name}-reprint"
    write_whole(out_root, (folder.name,), [dataclasses.replace(file, entry=None) for file in files])
    seconds = time.perf_counter() - started
    for label, names, what in written:
        progress(f"{label}: wrote {names} to {folder} in {seconds:.1f} s {what}")
    return folder


def _sheets(options: BuildOptions, checked: Checked, found: editions.Changes, out_root: Path,
            progress: Progress, workers: Workers) -> list[File]:
    """The changed and new faces of one language on sheets like a build's, and their proof,
    named as the source's are."""
    job = checked.job
    decks = _reprinted(job.decks, found)
    if not decks:
        return []
    reprint_job = Job(job.game, job.geometry, job.fonts, dataclasses.replace(
        options, only=("sheets",)), job.renderer, decks)
    reprinted = dataclasses.replace(checked, job=reprint_job, kinds=[SheetsOutput(reprint_job)])
    files = [file for _, file in finished(make(reprinted, out_root, progress, workers))]
    return files + _proof(dataclasses.replace(checked, job=reprint_job), found, out_root,
                          progress, workers)


def _proof(checked: Checked, found: editions.Changes, out_root: Path, progress: Progress,
           workers: Workers) -> list[File]:
    """The proof sheet: each changed face before (as kept at its release) and after."""
    game = checked.game
    pictures = _pictures(checked, out_root, progress, workers)
    faces = faces_of(checked.job)
    store = proof.kept_store(out_root, game.name, found.since, game.root, progress, True)
    before = proof.kept(store, [item.key for item in found.changed], translation(game))
    pairs = []
    for item in found.changed:
        if item.key not in faces:
            continue
        after = pictures(faces[item.key])
        old = before.get(item.key)
        pairs.append(proof.Pair(old, after, proof.changed_boxes(old, after) if old else [],
                                f"{item.key} {item.name} ({item.old_tag} → {item.new_tag})",
                                item.why))
    if not pairs:
        return []
    words = section_words(game.spec.language, "changelog")
    kind = proof.ProofOutput(checked.job, pairs, f"{game.spec.title} {game.spec.version} — "
                             f"{words['title']} {words['since']} {found.since}")
    made = make(dataclasses.replace(checked, kinds=[kind]), out_root, progress, workers)
    return [file for _, file in finished(made)]


def _reprinted(decks: list[Deck], found: editions.Changes) -> list[Deck]:
    """The decks with only the cards to print again, each at its count: a card whose face or
    back prints differently, or is new, at all its copies; one only counted up, at the copies
    added."""
    again = {item.key for item in found.changed} | {entry["key"] for entry in found.added}
    more = {key: now - before for key, _, before, now in found.counts if now > before}
    kept = []
    for deck in decks:
        cards, lines = [], []
        for card, line in deck.located():
            back = card.back or deck.spec.back
            keys = {f"{deck.spec.id}/{card.id}"} | ({f"{deck.spec.id}/back:{back}"}
                                                     if back else set())
            copies = card.qty if keys & again else more.get(f"{deck.spec.id}/{card.id}", 0)
            if copies:
                cards.append(card.model_copy(update={"qty": copies}))
                lines.append(line)
        if cards:
            spec = deck.spec.model_copy(update={"output": OUTPUT})
            kept.append(dataclasses.replace(deck, spec=spec, cards=cards, lines=lines))
    return kept

