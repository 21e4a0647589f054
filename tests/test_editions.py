"""Editions and reprints: `pnp release` records what prints, `pnp changes` says which faces
print differently since and why, `pnp reprint` writes only those, and each face prints a
revision tag that changes only when the face does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from generator import cli
from generator.check.findings import PnpError
from generator.editions.proof import changed_boxes
from generator.editions.reprint import changes, release, reprint
from generator.layout.workers import Workers
from generator.pipeline.owned import MARK

from .conftest import edit, give_rules, give_template, page_texts, render_page

RULES = "damage: 3\nheal: 2\n"


def _pack(packs: Path) -> Path:
    """The tiny pack with rules: S1's text quotes `damage`, S2's face reads `heal` in its
    template, S3 quotes neither."""
    pack = give_rules(packs, RULES)
    edit(pack / "spells.yaml", "造成 **3** 点伤害。", "造成 **{damage}** 点伤害。")
    give_template(pack, "{% if card.id == 'S2' %}<p>回复 {{ rules.heal }}</p>{% endif %}")
    return pack


def _changed(packs: Path, since: str | None = None) -> list[str]:
    found, _ = changes("mini", since, packs)
    return [item.key for item in found.changed]


def test_a_rule_change_reaches_exactly_the_faces_that_print_it(packs: Path, tmp_path: Path,
                                                               pool: Workers) -> None:
    pack = _pack(packs)
    release("mini", "first", packs)
    assert _changed(packs) == []
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    found, _ = changes("mini", None, packs)
    assert [(item.key, item.why) for item in found.changed] == [
        ("spells/S1", ["sections.0.text: 造成 **3** 点伤害。<b>不是标记</b> → "
                       "造成 **4** 点伤害。<b>不是标记</b>", "damage: 3 → 4"])]
    assert [(rule.path, rule.old, rule.new, rule.faces) for rule in found.rules] == [
        ("damage", 3, 4, ["spells/S1"])]
    edit(pack / "rules.yaml", "heal: 2", "heal: 5")
    found, _ = changes("mini", None, packs)
    assert [(item.key, item.why) for item in found.changed] == [
        ("spells/S1", ["sections.0.text: 造成 **3** 点伤害。<b>不是标记</b> → "
                       "造成 **4** 点伤害。<b>不是标记</b>", "damage: 3 → 4"]),
        ("spells/S2", ["heal: 2 → 5"])]  # read by the template, not quoted in the data
    messages: list[str] = []
    folder = reprint("mini", None, cards_dir=packs, out_root=tmp_path / "out",
                     progress=messages.append, workers=pool)
    assert folder is not None
    texts = page_texts(folder / "reprint-a4.pdf")
    assert len(texts) == 2  # the fronts, then their backs
    assert "火球术" in texts[0] and "治疗术" in texts[0] and "冰冻术" not in texts[0]
    assert "红" in texts[1] and "绿" in texts[1] and "蓝" not in texts[1]
    log = (folder / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "- `damage`: 3 → 4 — 影响: 法术 火球术 S1\n" in log
    assert "- 治疗术 S2 ×1 (修订号 " in log and "): heal: 2 → 5\n" in log
    assert "(2 changed and 0 new faces, 2 copies, since first)" in messages[-1]
    first = {path.name: path.read_bytes() for path in folder.iterdir() if path.name != MARK}
    reprint("mini", None, cards_dir=packs, out_root=tmp_path / "out", workers=pool)
    assert {path.name: path.read_bytes() for path in folder.iterdir() if path.name != MARK} == first


def test_the_revision_tag_changes_only_with_the_face(packs: Path) -> None:
    pack = _pack(packs)
    path = release("mini", None, packs)
    assert path == pack / "editions" / "e1.json"
    before = json.loads(path.read_text(encoding="utf-8"))["faces"]
    assert sorted(before) == ["spells/S1", "spells/S2", "spells/S3", "spells/back:blue",
                              "spells/back:green", "spells/back:red"]
    assert before["spells/S3"]["copies"] == 2
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    after = json.loads(release("mini", None, packs).read_text(encoding="utf-8"))["faces"]
    assert [key for key in before if before[key]["tag"] != after[key]["tag"]] == ["spells/S1"]
    assert all(len(face["tag"]) == 4 for face in after.values())
    with pytest.raises(PnpError, match="edition 'e1' exists already"):
        from generator.editions.record import save
        from generator.pack.load import load_game

        save(load_game("mini", packs), {"edition": "e1"})


def test_a_shared_template_change_reaches_every_face_using_it(packs: Path) -> None:
    pack = _pack(packs)
    release("mini", "first", packs)
    edit(pack / "templates" / "cards" / "spell.html.j2", "{% block extra %}",
         "{% block extra %}<p>新版</p>")
    found, _ = changes("mini", None, packs)
    assert [(item.key, item.why) for item in found.changed] == [
        ("spells/S1", ["restyled"]), ("spells/S2", ["restyled"]), ("spells/S3", ["restyled"])]
    (pack / "style.css").write_text(".back { opacity: 0.9 }\n", encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    assert len(_changed(packs)) == 6  # the fronts by their template, the backs by the rule


def test_new_removed_and_counted_cards_are_reported(packs: Path, tmp_path: Path,
                                                    pool: Workers, capsys) -> None:
    pack = _pack(packs)
    release("mini", "first", packs)
    text = (pack / "spells.yaml").read_text(encoding="utf-8")
    start = text.index("- id: S2")
    (pack / "spells.yaml").write_text(
        text[:start] + text[text.index("- id: S3"):].replace("qty: 2", "qty: 1")
        + "- id: S4\n  name: 闪电术\n  cost: 4\n  back: red\n  qty: 2\n", encoding="utf-8")
    found, _ = changes("mini", None, packs)
    assert [(entry["key"], entry["copies"]) for entry in found.added] == [("spells/S4", 2)]
    assert [entry["key"] for entry in found.removed] == ["spells/S2", "spells/back:green"]
    assert found.counts == [("spells/back:red", "法术", 1, 3), ("spells/S3", "冰冻术", 2, 1),
                            ("spells/back:blue", "法术", 2, 1)]
    assert cli.main(["changes", "--cards", str(packs), "mini", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert [entry["key"] for entry in said["added"]] == ["spells/S4"]
    folder = reprint("mini", None, cards_dir=packs, out_root=tmp_path / "out", workers=pool)
    assert folder is not None
    texts = page_texts(folder / "reprint-a4.pdf")
    assert texts[0].count("闪电术") == 2 and "火球术" not in texts[0]  # the new card's 2 copies


def test_nothing_changed_writes_nothing_and_a_git_revision_compares_too(
        packs: Path, tmp_path: Path, capsys) -> None:
    pack = _pack(packs)
    with pytest.raises(PnpError, match="no edition yet: `pnp release mini NAME`"):
        changes("mini", None, packs)
    release("mini", "first", packs)
    assert cli.main(["reprint", "--cards", str(packs), "mini", "--out", str(tmp_path)]) == 0
    assert "mini: nothing prints differently since first: nothing written" in \
        capsys.readouterr().err
    assert not (tmp_path / "mini-reprint").exists()
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                   "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(packs), *command], check=True)
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    assert _changed(packs, "HEAD") == ["spells/S1"]
    with pytest.raises(PnpError, match="'nope' is neither an edition nor a git revision"):
        changes("mini", "nope", packs)


def test_the_proof_shows_each_changed_face_before_and_after(packs: Path, tmp_path: Path,
                                                           pool: Workers) -> None:
    import io

    import pikepdf
    from PIL import Image, ImageChops

    pack = _pack(packs)
    out = tmp_path / "out"
    release("mini", "first", packs, out, workers=pool)
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    folder = reprint("mini", None, cards_dir=packs, out_root=out, workers=pool)
    assert folder is not None
    proof = folder / "changes-a4.pdf"
    [text] = page_texts(proof)
    assert "spells/S1火球术" in text and "damage:3→4" in text and "S2" not in text
    with pikepdf.open(proof) as document:
        pictures = [Image.open(io.BytesIO(_png(image))).convert("RGB")
                    for image in document.pages[0].Resources.XObject.values()
                    if image.get("/Subtype") == "/Image"]
    before, after = pictures
    changed = ImageChops.difference(before, after).convert("L")
    boxes = changed_boxes(_bytes(before), _bytes(after))
    width, height = before.size
    # the number in the text (3 → 4), and the revision tag in the footer
    assert len(boxes) == 2
    assert height * 0.15 < boxes[0][1] < boxes[0][3] < height / 2
    assert boxes[1][1] > height * 0.85
    assert all(box[2] - box[0] < width / 3 for box in boxes)
    outside = changed.copy()
    for box in boxes:
        outside.paste(0, box)
    assert outside.getbbox() is None  # the pictures are the same everywhere else
    marks = render_page(proof, 0, dpi=100)
    red = sum(count for count, colour in marks.getcolors(1 << 24)
              if colour[0] > 200 and colour[1] < 60)
    assert red > 200  # the outlines are drawn


def _bytes(picture: object) -> bytes:
    import io

    out = io.BytesIO()
    picture.save(out, "PNG")  # type: ignore[attr-defined]
    return out.getvalue()


def _png(image: object) -> bytes:
    """An image XObject of a PDF as PNG bytes."""
    import io

    import pikepdf

    out = io.BytesIO()
    pikepdf.PdfImage(image).as_pil_image().save(out, "PNG")
    return out.getvalue()


def test_an_edition_that_is_a_link_out_of_the_pack_is_not_read(packs: Path,
                                                               tmp_path: Path) -> None:
    _pack(packs)
    release("mini", "first", packs)
    outside = tmp_path / "elsewhere.json"
    record = json.loads((packs / "mini" / "editions" / "first.json").read_text("utf-8"))
    outside.write_text(json.dumps({**record, "edition": "other", "number": 9}), "utf-8")
    (packs / "mini" / "editions" / "other.json").symlink_to(outside)
    assert cli.main(["editions", "--cards", str(packs), "mini"]) == 0
    with pytest.raises(PnpError, match="'other' is neither an edition nor a git revision"):
        changes("mini", "other", packs)


def test_an_edition_record_of_the_wrong_shape_is_refused_by_name(packs: Path) -> None:
    pack = _pack(packs)
    release("mini", "first", packs)
    path = pack / "editions" / "first.json"
    record = json.loads(path.read_text("utf-8"))
    record["faces"]["spells/S1"]["copies"] = "many"
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(PnpError) as caught:
        changes("mini", None, packs)
    assert str(caught.value) == (f"{path}: not an edition record pnp wrote "
                                 "(faces.spells/S1.copies: Input should be a valid integer, "
                                 "unable to parse string as an integer)")
