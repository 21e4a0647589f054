"""`pnp serve`'s warm game: every distinct face and back drawn as a picture, each finding on
the face it is about, and the pages of every output, all kept in memory and made again after
each edit from the parts that changed.

Faces are laid out one to a part (the build lays out six together), so an edited card lays
out its own face alone; the pictures are drawn by PDFium off those parts, the very pages the
sheets are assembled from. Nothing is written: not into the pack, not into build/.

When the game has an edition (`pnp release`), the faces that print differently since the last
one are shown before and after, as the reprint's proof shows them: the "before" pictures are
read from where the release kept them in the output folder, never written.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..check.findings import Finding, PackError, PnpError, display_path, errors_only
from ..editions import proof
from ..editions import record as editions
from ..editions.reprint import compared, faces_of
from ..layout.workers import Workers
from ..outputs.base import Document, OutputKind, language_name, translation
from ..pack.load import Deck, Game
from ..pack.schema import CardBase
from ..pack.yamlfile import keep_parsed
from ..pdf.raster import draw, draw_page, page_count
from ..pipeline.build import Checked, check, finished, labelled, localized, plan, reported, run
from ..pipeline.build import sites as card_sites
from ..pipeline.cache import BuildOptions, stamp_or_none
from ..pipeline.execute import Assembled, Executor, locate
from ..plan.faces import face_anchor
from ..plan.geometry import Box
from ..plan.parts import LaidOut
from ..plan.render import Face
from ..plan.shapes import outline
from .ahead import Ahead
from .memory import MemoryCache
from .snapshot import ChangeView, FaceView, OutputView, Shown, Snapshot

PX_PER_MM = 5.0  # a face's picture: 127 dpi, sharp on a screen at twice its CSS size
PAGE_DPI = 60.0  # an output's page
Notify = Callable[[Snapshot], None]


class Preview:
    """A game kept warm for `pnp serve`: `refresh` reads the pack again and makes what
    changed; `snapshot` is what the page shows, `picture` and `page` the images it loads."""

    def __init__(self, name: str, cards_dir: Path, options: BuildOptions, workers: Workers,
                 notify: Notify = lambda snapshot: None,
                 progress: Callable[[str], None] = lambda message: None,
                 out_root: Path | None = None) -> None:
        self.name, self.cards_dir, self.options = name, cards_dir, options
        self.out_root = out_root  # where `pnp release` kept the faces' pictures (only read)
        self.workers, self.notify, self.progress = workers, notify, progress
        self.cache = MemoryCache()
        self.pdfs: dict[str, bytes] = {}  # each output's PDF, by its name
        self.views: dict[str, FaceView] = {}  # each face's last view, by its ident
        self.drawing = threading.Lock()  # PDFium draws one picture at a time
        self.snapshot = Snapshot(0, name, name, options.language or "")
        self.since: tuple[str, tuple[ChangeView, ...]] = ("", ())  # every snapshot shows it
        self.compared = ""  # what the changes were last worked out from

    def refresh(self) -> Snapshot:
        """Read the pack, lay out the faces whose input changed and draw them (told at once),
        then assemble every output (told again); a mistake keeps the last good pictures and
        pages, marked stale, with its findings."""
        started = time.perf_counter()
        ahead = Ahead(self.cache, self.workers)
        try:
            checked = check(self.name, self.cards_dir, self.options, early=ahead.start)
        except PackError as exc:
            return self._publish(replace(
                self.snapshot, faces=tuple(replace(view, stale=True)
                                           for view in self.snapshot.faces),
                findings=tuple(Shown.of(finding) for finding in exc.findings),
                outputs=tuple(replace(output, stale=True) for output in self.snapshot.outputs),
                busy="", changed=(), seconds=time.perf_counter() - started))
        executor = ahead.laid(checked.job)
        views, loose = self._faces(checked, executor)
        self._publish(Snapshot(
            self.snapshot.version + 1, self.name, checked.game.spec.title,
            checked.game.spec.language, tuple((deck.spec.id, deck.spec.name)
                                              for deck in checked.game.decks),
            views, loose, tuple(replace(output, stale=True) for output in self.snapshot.outputs),
            "assembling the outputs", tuple(view.ident for view in views
                                            if self.views.get(view.ident) != view),
            time.perf_counter() - started))
        self.views = self._last_good(views)
        outputs = self._outputs(checked, executor)
        self.cache.keep_only()
        self._publish(replace(self.snapshot, version=self.snapshot.version + 1,
                              outputs=outputs, busy="", changed=()))
        return self._since_edition(checked, executor)

    def _last_good(self, views: tuple[FaceView, ...]) -> dict[str, FaceView]:
        """Each face's last good view, which a mistake in its data shows stale: this one
        unless it is a draft, whose last good picture is kept in memory meanwhile."""
        good = {}
        for view in views:
            last = self.views.get(view.ident)
            if view.draft and last is not None:
                self.cache.recent[0].add(last.image)
                good[view.ident] = last
            elif view.image and not view.draft:
                good[view.ident] = view
        return good

    def _publish(self, snapshot: Snapshot) -> Snapshot:
        """Make a snapshot, with the changes since the last edition, the one the page shows,
        and tell the page."""
        snapshot = replace(snapshot, edition=self.since[0], changes=self.since[1])
        self.snapshot = snapshot
        self.notify(snapshot)
        return snapshot

    def _faces(self, checked: Checked, executor: Executor
               ) -> tuple[tuple[FaceView, ...], tuple[Shown, ...]]:
        """Every face of every deck as the page shows it, in order (a card the job left out
        for its own errors keeps its last picture, stale), and the findings on no face."""
        game, job = checked.game, checked.job
        geometry, renderer = job.geometry, job.renderer
        planned = {deck.spec.id: deck for deck in job.decks}
        findings = localized(game, reported(game, executor.findings(card_sites(game))))
        everything = sorted(set(checked.findings + findings))
        placed = _by_card(game, everything)
        laid = {key: executor.done[page.part.key] for key, page in job.faces.pages.items()}
        views: list[FaceView] = []
        seen: set[str] = set()
        for deck in game.decks:
            if not deck.readable:  # its file did not read: its faces keep their last pictures
                kept = [view for view in self.views.values() if view.deck == deck.spec.id]
                self.cache.recent[0].update(view.image for view in kept)
                views.extend(replace(view, stale=True, findings=()) for view in kept)
                continue
            size = geometry.sizes.get(deck.spec.size)
            if size is None:
                continue
            shape = geometry.shape(deck.spec.size, deck.shape)
            cut = tuple(outline(shape, size.width, size.height))
            inside = tuple(outline(shape, size.width, size.height, -geometry.safe))
            ready = planned.get(deck.spec.id)
            made = {card.id: line for card, line in ready.located()} if ready else {}
            backs: dict[str, int] = {}
            for card in deck.cards:
                back_id = card.back or deck.spec.back
                if back_id and not deck.spec.double_sided:
                    backs[back_id] = backs.get(back_id, 0) + card.qty
            for card_id, line, loaded, written in _entries(deck):
                front = renderer.face(ready, loaded, made[card_id]) \
                    if ready is not None and loaded is not None and card_id in made else None
                sides: list[tuple[str, str, Face | None]] = [("front", card_id, front)]
                back_id = (loaded.back or deck.spec.back) if loaded is not None else None
                if loaded is not None and back_id in game.spec.backs \
                        and not deck.spec.double_sided:
                    back = renderer.back(ready, loaded, front) \
                        if ready is not None and front is not None else None
                    sides.append(("back", f"back:{back_id}", back))
                name, copies = (loaded.name, loaded.qty) if loaded is not None else (
                    str(written.get("name", card_id)), deck.failed_qty.get(card_id, 1))
                for side, source, face in sides:
                    ident = f"{deck.spec.id}/{source}"
                    if ident in seen:
                        continue
                    seen.add(ident)
                    own = placed.pop(ident, [])
                    where = f"{display_path(deck.path)}:{line}" if side == "front" else \
                        f"{display_path(game.root / 'game.yaml')}"
                    base = FaceView(ident, deck.spec.id, card_id if side == "front" else
                                    back_id or "", side, name if side == "front" else
                                    back_id or "", copies if side == "front" else
                                    backs.get(back_id or "", 0), "", where, "", True,
                                    size.width, size.height, geometry.bleed, geometry.safe,
                                    cut, _searched(loaded.model_dump() if loaded is not None
                                                   else written) if side == "front" else "",
                                    tuple(own), safe_outline=inside)
                    key = job.faces.keys.get(face) if face is not None else None
                    boxed = self._boxes(laid[key], key, game) if key is not None else ()
                    told = {(item.code, item.message, item.path, item.line) for item in boxed}
                    shown = tuple(item for item in own if (
                        item.code, item.message, item.path, item.line) not in told) + boxed
                    if face is None or key is None or not laid[key].pdf:
                        last = self.views.get(ident)  # its findings' boxes drawn on it
                        if last is not None:
                            self.cache.recent[0].add(last.image)  # kept while it is shown
                        views.append(replace(last or base, stale=True, findings=shown,
                                             copies=base.copies, name=base.name,
                                             where=base.where))
                        continue
                    part, bled = laid[key], job.faces.pages[key].size
                    views.append(replace(base, tag=face.tag, stale=False,
                                         image=self._picture(part, key, bled, (
                                             round(bled.width * PX_PER_MM),
                                             round(bled.height * PX_PER_MM))),
                                         findings=shown,
                                         draft=any(found.error for found in part.found)))
        loose = tuple(finding for found in placed.values() for finding in found)
        return tuple(views), loose

    def _boxes(self, part: LaidOut, key: str, game: Game) -> tuple[Shown, ...]:
        """The findings laying out a face gave that mark a box on it, with that box."""
        page = part.anchors.get(face_anchor(key), 0)
        shown = []
        for found in part.found:
            box: tuple[float, ...] = getattr(found, "box", ())
            if len(box) == 5 and box[0] == page:
                located = locate(found, "", card_sites(game))
                shown.append(Shown.of(located, (box[1], box[2], box[3], box[4])))
        return tuple(shown)

    def _since_edition(self, checked: Checked, executor: Executor) -> Snapshot:
        """The faces that print differently since the game's last edition, worked out again
        (and told) only when an edition or a face changed; while the pack has errors, the
        last ones stand."""
        game = checked.game
        records = sorted(editions.folder(game).glob("*.json"))
        basis = json.dumps([[stamp_or_none(path) for path in records],
                            [(view.ident, view.image) for view in self.snapshot.faces]])
        if basis == self.compared or errors_only(checked.findings):
            self.cache.recent[0].update(name for item in self.since[1]
                                        for name in (item.before, item.after) if name)
            return self.snapshot
        self.compared = basis
        try:
            known = editions.listed(game)
            since = ("", ()) if not known else (
                str(known[-1]["edition"]), self._changed(compared(known[-1], checked), checked,
                                                         executor))
        except PnpError as exc:  # a record pnp cannot read: told, and nothing compared
            self.progress(f"{self.name}: {exc}; no changes shown")
            since = ("", ())
        if since == self.since:
            return self.snapshot
        self.since = since
        return self._publish(replace(self.snapshot, version=self.snapshot.version + 1,
                                     changed=()))

    def _changed(self, found: editions.Changes, checked: Checked, executor: Executor
                 ) -> tuple[ChangeView, ...]:
        """Each face that prints differently, its picture as the release kept it and as it
        is now (drawn at the kept one's size, as the proof draws it), and where they differ."""
        job = checked.job
        store = proof.kept_store(self.out_root, self.name, found.since, checked.game.root,
                                 self.progress, read_only=True) if self.out_root else None
        kept = proof.kept(store, [item.key for item in found.changed],
                          translation(checked.game)) if store else {}
        faces = faces_of(job)
        views = {view.ident: view for view in self.snapshot.faces}
        last = {item.ident: item for item in self.since[1]}
        shown = []
        for item in found.changed:
            face, view = faces.get(item.key), views.get(item.key)
            key = job.faces.keys.get(face) if face is not None else None
            part = executor.done.get(job.faces.pages[key].part.key) if key else None
            before = kept.get(item.key)
            then = self._kept_bytes(before) if before else ""
            now = view.image if view else ""
            boxes: tuple[tuple[float, float, float, float], ...] = ()
            if before and key and part is not None and part.pdf:
                pixels = _pixels(before)
                now = self._picture(part, key, job.faces.pages[key].size, pixels)
                known = last.get(item.key)
                boxes = known.boxes if known and (known.before, known.after) == (then, now) \
                    else _fractions(proof.changed_boxes(before, self.cache.data[now]), pixels)
            shown.append(ChangeView(item.key, item.name, found.since, tuple(item.why), then,
                                    now, boxes))
        return tuple(shown)

    def _picture(self, part: LaidOut, key: str, size: Box, pixels: tuple[int, int]) -> str:
        """The name of a face's picture with its bleed (`size`, mm) at exactly `pixels`,
        drawn now unless the same part drew it so before."""
        page = part.anchors[face_anchor(key)]
        name = hashlib.sha256(json.dumps([hashlib.sha256(part.pdf).hexdigest(), page,
                                          pixels]).encode()).hexdigest()[:20]
        if self.cache.kept(name) is None:
            with self.drawing:
                picture = draw(part.pdf, page, (0.0, 0.0, size.width, size.height), pixels)
            self.cache.keep(name, _png(picture))
        self.cache.recent[0].add(name)
        return name

    def _kept_bytes(self, data: bytes) -> str:
        """A name for a picture's bytes, kept in memory for the page to load."""
        name = hashlib.sha256(data).hexdigest()[:20]
        self.cache.keep(name, data)
        return name

    def _outputs(self, checked: Checked, executor: Executor) -> tuple[OutputView, ...]:
        """Every output assembled in memory; one with an error keeps its last PDF, stale."""
        unchecked: list[str] = []
        language = translation(checked.game)
        label = labelled(self.name, language)
        try:
            results = run(plan(checked, executor, unchecked), executor, lambda message: None,
                          label, language)
        except PnpError as exc:
            self.progress(f"{label}: {exc}")
            return tuple(replace(output, stale=True) for output in self.snapshot.outputs)
        made: list[tuple[OutputKind, Document, Assembled]] = []
        stale: dict[str, OutputView] = {}
        for kind, document, result in results:
            if document.parts and not result.pdf:
                for output in self.snapshot.outputs:
                    if output.kind == kind.name:
                        stale[output.file] = replace(output, stale=True)
                continue
            made.append((kind, document, result))
        views = dict(stale)
        for kind, file in finished(made):
            if not file.name.endswith(".pdf"):
                continue
            name = language_name(file.name, language)
            digest = hashlib.sha256(file.data).hexdigest()[:20]
            self.pdfs[name] = file.data
            views[name] = OutputView(name, kind.name, page_count(file.data), digest)
        return tuple(views[name] for name in sorted(views))

    def picture(self, name: str) -> bytes | None:
        """A face's picture by its name, while it is kept."""
        return self.cache.data.get(name)

    def page(self, file: str, number: int) -> bytes | None:
        """One page of an output as a PNG (numbered from 1), None when there is no such."""
        pdf = self.pdfs.get(file)
        if pdf is None or number < 1:
            return None
        name = f"{hashlib.sha256(pdf).hexdigest()}:{number}"
        kept = self.cache.data.get(name)
        if kept is not None:
            return kept
        with self.drawing:
            if number > page_count(pdf):
                return None
            picture = draw_page(pdf, number - 1, PAGE_DPI)
        self.cache.data[name] = _png(picture)
        return self.cache.data[name]


def follow(preview: Preview, folders: list[Path], out_root: Path | None,
           stop: threading.Event) -> None:
    """Refresh the preview now, then each time a file of the pack, a template or a font
    changes, until `stop` is set; a problem is told, and the last good pictures stand."""
    from ..pipeline.watch import POLL, Files

    keep_parsed()
    files, changed = Files(folders, out_root), True
    while not stop.is_set():
        if changed:
            try:
                preview.refresh()
            except (PnpError, OSError) as exc:
                preview.progress(f"{preview.name}: error: {exc}; the last pictures stand")
            except Exception as exc:  # noqa: BLE001 - a bug in pnp: told, and serving goes on
                preview.progress(f"{preview.name}: internal error: {type(exc).__name__}: {exc} "
                                 "(a bug in pnp); the last pictures stand")
        stop.wait(POLL / 2)
        changed = files.changed()


def _png(picture: Any) -> bytes:
    """A picture as a PNG, compressed little: it is drawn often and read once, on this
    machine."""
    out = io.BytesIO()
    picture.save(out, "PNG", compress_level=1)
    return out.getvalue()


def _pixels(picture: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels."""
    from PIL import Image

    width, height = Image.open(io.BytesIO(picture)).size
    return width, height


def _fractions(boxes: list[tuple[int, int, int, int]], pixels: tuple[int, int]
               ) -> tuple[tuple[float, float, float, float], ...]:
    """Boxes in pixels (left, top, right, bottom) as fractions of a picture's size."""
    width, height = pixels
    return tuple((left / width, top / height, right / width, bottom / height)
                 for left, top, right, bottom in boxes)


def _searched(written: dict[str, Any]) -> str:
    """A card's text as a search finds it: its id, name and every text it prints."""
    return " ".join(str(value) for value in written.values()
                    if isinstance(value, str | int) and not isinstance(value, bool))


def _entries(deck: Deck) -> list[tuple[str, int, CardBase | None, dict[str, Any]]]:
    """Every card entry of a deck with an id, in order: its id, line, card (None when it did
    not load: its face keeps its place, stale) and its values as written."""
    loaded = {line: card for card, line in deck.located()}
    return [(item["id"], line, loaded.get(line), item)
            for line, item in zip(deck.starts, deck.raw, strict=True)
            if isinstance(item, dict) and isinstance(item.get("id"), str)
            and (line in loaded or item["id"] in deck.failed_ids)]


def _by_card(game: Game, findings: list[Finding]) -> dict[str, list[Shown]]:
    """Findings by the face they are about (`deck/card`), by the file and line of the card's
    entry; those on no card under ''."""
    starts: dict[str, list[tuple[int, str]]] = {}
    for deck in game.decks:
        starts.setdefault(display_path(deck.path), []).extend(
            (line, f"{deck.spec.id}/{card_id}") for card_id, line, _, _ in _entries(deck))
    placed: dict[str, list[Shown]] = {}
    for finding in findings:
        lines = sorted(starts.get(finding.path, []))
        owner = ""
        for line, ident in lines:
            if line <= finding.line:
                owner = ident
        if finding.card:
            owner = next((ident for _, ident in lines if ident.endswith(f"/{finding.card}")),
                         owner)
        placed.setdefault(owner, []).append(Shown.of(finding))
    return placed

