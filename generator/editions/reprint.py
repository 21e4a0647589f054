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
from ..outputs.base import File, Job
from ..outputs.rulebook import has_rulebook, rulebook_markdown
from ..outputs.sheets import SheetsOutput
from ..pack import git
from ..pack.load import Deck
from ..pipeline.build import Checked, check, finished, make
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


def record_of(checked: Checked, edition: str, number: int) -> dict[str, Any]:
    """What an edition of the game as it is now would record."""
    game = checked.game
    text = rulebook_markdown(game) if has_rulebook(game) else None
    return editions.record(checked.job, edition, number, text)


def release(name: str, edition: str | None, cards_dir: Path = CARDS_DIR,
            out_root: Path | None = None, progress: Progress = lambda message: None,
            workers: Workers | None = None) -> Path:
    """Record the game as it prints now as an edition in its pack, and, given `out_root`, keep
    a picture of every face there for the proofs of later reprints; return the record's
    path."""
    if edition is not None:
        editions.check_name(edition)
    if out_root is not None:
        check_root(out_root, (CACHE,))
    checked = checked_game(name, cards_dir)
    number = editions.next_number(checked.game)
    record = record_of(checked, edition or f"e{number}", number)
    pictures = {}
    if out_root is not None:  # drawn before the record is written: a failure leaves neither
        draw = _pictures(checked, out_root, progress, workers)
        pictures = {key: draw(face) for key, face in _faces(checked.job).items()}
    path = editions.save(checked.game, record)
    if out_root is not None:
        proof.keep(proof.kept_store(out_root, name, path.stem, checked.game.root, progress),
                   pictures)
    return path


def _faces(job: Job) -> dict[str, Face]:
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


def since(checked: Checked, reference: str | None) -> dict[str, Any]:
    """The record to compare with: an edition by name (the last when None), else the pack as it
    was at a git revision, built in a temporary folder; a name that is both is refused."""
    game = checked.game
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
    return _at_revision(checked, reference, commit)


def _at_revision(checked: Checked, revision: str, commit: str) -> dict[str, Any]:
    """The record of the pack as a git revision (its commit) has it."""
    root = checked.game.root.resolve()
    with tempfile.TemporaryDirectory(prefix="pnp-revision-") as folder:
        try:
            git.write_pack(root, commit, revision, Path(folder) / root.name,
                           checked.game.spec.limits.file_bytes)
        except git.GitError as exc:
            raise git.GitError(f"{checked.game.name}: git revision '{revision}' cannot be read "
                           f"({exc})") from None
        old = checked_game(root.name, Path(folder))
        return record_of(old, revision, 0)


def changes(name: str, reference: str | None, cards_dir: Path = CARDS_DIR
            ) -> tuple[editions.Changes, Checked]:
    """What prints differently now than at an edition or revision, and the game as it is."""
    checked = checked_game(name, cards_dir)
    old = since(checked, reference)
    new = record_of(checked, "now", 0)
    source = ""
    rulebook = checked.game.root / checked.game.spec.rulebook.file
    if has_rulebook(checked.game):
        source = rulebook.read_text(encoding="utf-8", errors="replace")
    return editions.compare(old, new, source), checked


def report(found: editions.Changes, checked: Checked) -> str:
    """The changes as the changelog words them."""
    game = checked.game
    return changelog.markdown(found, f"{game.spec.title} {game.spec.version}",
                              game.spec.language,
                              {deck.spec.id: deck.spec.name for deck in game.decks},
                              game.spec.icons)


def reprint(name: str, reference: str | None, options: BuildOptions = BuildOptions(),
            cards_dir: Path = CARDS_DIR, out_root: Path = BUILD_DIR,
            progress: Progress = lambda message: None,
            workers: Workers | None = None) -> Path | None:
    """Write the faces that print differently, with their backs, as reprint-<paper>.pdf, the
    proof of each before and after as changes-<paper>.pdf, and CHANGELOG.md, into
    `out_root/<game>-reprint/`; None, and nothing written, when nothing changed."""
    started = time.perf_counter()
    check_root(out_root, (f"{name}-reprint",), (CACHE,))
    found, checked = changes(name, reference, cards_dir)
    if found.empty:
        progress(f"{name}: nothing prints differently since {found.since}: nothing written")
        return None
    job = checked.job
    decks = _reprinted(job.decks, found)
    files = [File("CHANGELOG.md", report(found, checked).encode())]
    if decks:
        reprint_job = Job(job.game, job.geometry, job.fonts,
                          dataclasses.replace(options, only=("sheets",)), job.renderer, decks)
        kind = SheetsOutput(reprint_job)
        reprinted = dataclasses.replace(checked, job=reprint_job, kinds=[kind])
        with nullcontext(workers) if workers else Workers().start() as pool:
            files += [file for _, file in finished(make(reprinted, out_root, progress, pool))]
            files += _proof(dataclasses.replace(checked, job=reprint_job), found, out_root,
                            progress, pool)
    folder = out_root / f"{name}-reprint"
    write_whole(out_root, (folder.name,), [dataclasses.replace(file, entry=None) for file in files])
    faces = sum(item.copies for item in found.changed) + sum(
        entry["copies"] for entry in found.added)
    progress(f"{name}: wrote {', '.join(file.name for file in files)} to {folder} in "
             f"{time.perf_counter() - started:.1f} s ({len(found.changed)} changed and "
             f"{len(found.added)} new faces, {faces} copies, since {found.since})")
    return folder


def _proof(checked: Checked, found: editions.Changes, out_root: Path, progress: Progress,
           workers: Workers) -> list[File]:
    """The proof sheet: each changed face before (as kept at its release) and after."""
    game = checked.game
    pictures = _pictures(checked, out_root, progress, workers)
    faces = _faces(checked.job)
    store = proof.kept_store(out_root, game.name, found.since, game.root, progress, True)
    before = proof.kept(store, [item.key for item in found.changed])
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

