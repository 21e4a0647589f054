"""Where on its page a finding of the layout is (`Found.box`): the box text runs past and how
far it runs, a faint or small text's own box; kept by the disk cache, and drawn on its face by
`pnp serve`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from PIL import Image

from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, check
from generator.pipeline.cache import PartCache, parts_folder
from generator.pipeline.execute import Executor
from generator.plan.faces import face_anchor
from generator.plan.geometry import load_geometry
from generator.plan.parts import Found
from generator.preview.memory import MemoryCache
from generator.preview.session import Preview

from .conftest import edit, give_template

GEOMETRY = load_geometry()
INSIDE = GEOMETRY.bleed + GEOMETRY.safe  # mm from a face's page's top left to its .safe box
PT = 25.4 / 72  # mm
# A field of its own 30 x 5 mm box, 5 mm right of and 40 mm below the card's .safe box's top
# left: four lines of text run past its bottom.
TIGHT = ('<div class="tight" data-box><div data-field="tight">' + "造成三点伤害，" * 4
         + "</div></div>")
# Two texts set alone, one line high: a faint one 9 pt, and a small one 4 pt.
FAINT_SMALL = ('<div class="dim" data-field="dim">淡金标签</div>'
               '<div class="tiny" data-field="tiny">四磅小字</div>')
STYLE = """.tight { position: absolute; left: 5mm; top: 40mm; width: 30mm; height: 5mm; }
.dim, .tiny { position: absolute; left: 2mm; line-height: 1; }
.dim { top: 50mm; font-size: 9pt; color: #c9a227; }
.tiny { top: 60mm; font-size: 4pt; }
"""


def _styled(cards: Path, extra: str) -> Path:
    """Give the tiny pack's cards `extra` and the stylesheet placing it; return the pack."""
    pack = cards / "mini"
    give_template(pack, extra)
    (pack / "style.css").write_text(STYLE, encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    return pack


def _laid_out(cards: Path, pool: Workers, cache: PartCache | MemoryCache
              ) -> tuple[Executor, dict[str, int]]:
    """The tiny pack's faces laid out (a build's parts, six faces to a part), and the page
    of its part each card's front is on."""
    checked = check("mini", cards, BuildOptions())
    executor = Executor(checked.game.root, checked.job.fonts, cache, pool, keep_workers=True)
    parts = checked.job.faces.parts_of(["spells"])
    executor.start(parts)
    executor.wait(parts)
    pages = {face.source: executor.done[checked.job.faces.pages[key].part.key].anchors[
        face_anchor(key)] for face, key in checked.job.faces.keys.items()}
    return executor, pages


def _found(executor: Executor) -> list[Found]:
    """Everything laying out the parts found, part by part."""
    return [found for _, laid in sorted(executor.done.items()) for found in laid.found]


def test_text_past_its_box_outlines_the_box_and_how_far_it_runs(packs: Path,
                                                               pool: Workers) -> None:
    _styled(packs, TIGHT)
    executor, pages = _laid_out(packs, pool, MemoryCache())
    [over] = [found for found in _found(executor) if found.source == "S1"]
    assert over.code == "E070" and over.message.endswith(" mm past its box (bottom edge)")
    page, left, top, right, bottom = over.box
    assert page == pages["S1"]
    assert (left, top, right) == pytest.approx((INSIDE + 5, INSIDE + 40, INSIDE + 35), abs=0.5)
    amount = float(over.message.split(" runs ")[1].split(" mm")[0])
    assert amount > 5  # the box reaches where the text's ink ends, below its bottom edge
    assert bottom == pytest.approx(INSIDE + 45 + amount, abs=0.06)


def test_a_faint_and_a_small_text_are_outlined_where_they_print(packs: Path,
                                                              pool: Workers) -> None:
    _styled(packs, FAINT_SMALL)
    executor, pages = _laid_out(packs, pool, MemoryCache())
    boxes = {(found.code, found.source): found.box for found in _found(executor)}
    assert set(boxes) == {(code, card) for code in ("W076", "W077") for card in pages
                          if not card.startswith("back:")}
    for code, top, size in (("W076", 50, 9), ("W077", 60, 4)):
        page, *rectangle = boxes[code, "S2"]
        assert page == pages["S2"]
        assert rectangle == pytest.approx(
            [INSIDE + 2, INSIDE + top, INSIDE + 2 + 4 * size * PT, INSIDE + top + size * PT],
            abs=0.5)


def test_a_coarse_image_and_a_small_qr_code_are_outlined(packs: Path, pool: Workers) -> None:
    pack = _styled(packs, '<img class="photo" src="photo.png"><div class="code">'
                          '{{ qr("https://example.com/" + "x" * 60) }}</div>')
    Image.new("RGB", (100, 100), "red").save(pack / "photo.png")
    edit(pack / "style.css", ".tight", ".photo { position: absolute; left: 10mm; top: 50mm; "
         "width: 40mm; }\n.code { position: absolute; left: 0; top: 30mm; }\n"
         ".code .qr { width: 8mm; }\n.tight")
    executor, pages = _laid_out(packs, pool, MemoryCache())
    boxes = {found.code: found.box for found in _found(executor) if found.source == "S3"}
    assert boxes == {
        "E071": pytest.approx((pages["S3"], INSIDE + 10, INSIDE + 50, INSIDE + 50, INSIDE + 90)),
        "W088": pytest.approx((pages["S3"], INSIDE, INSIDE + 30, INSIDE + 8, INSIDE + 38))}


def _reseal(record: dict) -> dict:
    """A part's record sealed again, as the cache checks it."""
    record.pop("seal")
    record["seal"] = hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False)
                                    .encode()).hexdigest()
    return record


def test_the_disk_cache_keeps_each_box_and_reads_records_that_have_none(
        packs: Path, pool: Workers, tmp_path: Path) -> None:
    _styled(packs, FAINT_SMALL)
    folder = parts_folder(tmp_path / "out", "mini")
    first, _ = _laid_out(packs, pool, PartCache(folder, base=packs / "mini"))
    assert first.anew and all(len(found.box) == 5 for found in _found(first))
    again, _ = _laid_out(packs, pool, PartCache(folder, base=packs / "mini"))
    assert not again.anew  # every part from the disk
    assert _found(again) == _found(first)  # each box a tuple again, as it was made

    for width in (5, 4):  # a record of an older pnp: its findings had no box, or no line
        for path in sorted(folder.glob("*.json")):
            if path.name != "index.json":
                kept = json.loads(path.read_text(encoding="utf-8"))
                kept["found"] = [entry[:width] for entry in kept["found"]]
                path.write_text(json.dumps(_reseal(kept), ensure_ascii=False), encoding="utf-8")
        old, _ = _laid_out(packs, pool, PartCache(folder, base=packs / "mini"))
        assert not old.anew
        assert _found(old) == [Found(*found[:width]) for found in _found(first)]


def test_serve_draws_an_overflow_on_its_face_inside_the_picture(packs: Path,
                                                               pool: Workers) -> None:
    _styled(packs, TIGHT)
    snapshot = Preview("mini", packs, BuildOptions(), pool).refresh()
    face = next(view for view in snapshot.faces if view.ident == "spells/S1")
    [shown] = [item for item in face.findings if item.code == "E070"]
    assert shown.box is not None
    left, top, right, bottom = shown.box
    assert (left, top, right) == pytest.approx((INSIDE + 5, INSIDE + 40, INSIDE + 35), abs=0.5)
    assert INSIDE + 45 < bottom < face.height + 2 * face.bleed  # within the face's picture
    assert shown.path.endswith("spells.yaml") and shown.line == 1
