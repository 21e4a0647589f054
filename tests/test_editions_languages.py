"""Editions of a game in many languages: `pnp release` records every language, `pnp changes`
and `pnp reprint` tell and print what changed in each (`--lang L|all`), so a rule change
reprints its faces in every language at once, and a translation's change only in its own."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from generator import cli
from generator.editions.proof import changed_boxes
from generator.editions.reprint import changes, release, reprint
from generator.layout.workers import Workers
from generator.pipeline.owned import MARK

from .conftest import edit, give_rules, page_texts
from .test_editions import _png
from .test_translations import current, spanish

FIRE = "造成 **{damage}** 点伤害。<b>不是标记</b>"  # S1's text, quoting the rule `damage`
ZH_S1 = ("- 火球术 S1 ×1 (修订号 {old} → {new}): sections.0.text: 造成 **3** 点伤害。"
         "<b>不是标记</b> → 造成 **4** 点伤害。<b>不是标记</b>; damage: 3 → 4")
ES_S1 = ("- Bola de fuego S1 ×1 (marca {old} → {new}): sections.0.text: Causa **3** de daño. "
         "→ Causa **4** de daño.; damage: 3 → 4")


def _pack(packs: Path) -> Path:
    """The tiny pack (Chinese) in Spanish too, S1's text quoting the rule `damage` in both,
    S1 and S2 translated, S3 not."""
    give_rules(packs, "damage: 3\n")
    edit(packs / "mini" / "spells.yaml", "造成 **3** 点伤害。", "造成 **{damage}** 点伤害。")
    return spanish(packs, f"    S1:\n      name: {current('火球术', 'Bola de fuego')}\n"
                   f"      sections.1.label: {current('效果', 'Efecto')}\n"
                   f"      sections.1.text: {current(FIRE, 'Causa **{damage}** de daño.')}\n"
                   f"    S2:\n      name: {current('治疗术', 'Curación')}\n")


def _pictures(pdf: Path) -> list[bytes]:
    """The pictures on a proof's first page, as PNG."""
    import pikepdf

    with pikepdf.open(pdf) as document:
        return [_png(image) for image in document.pages[0].Resources.XObject.values()
                if image.get("/Subtype") == "/Image"]


def _tags(record: dict, key: str) -> dict[str, str]:
    """A face's revision tag in each language a record has, the source's as `zh-CN`."""
    return {"zh-CN": record["faces"][key]["tag"],
            **{tag: kept["faces"][key]["tag"] for tag, kept in record["languages"].items()}}


def _now(packs: Path, key: str) -> dict[str, str]:
    """A face's revision tag now in each language."""
    release("mini", "now", packs)
    path = packs / "mini" / "editions" / "now.json"
    tags = _tags(json.loads(path.read_text(encoding="utf-8")), key)
    path.unlink()
    return tags


def test_a_release_records_every_language_and_a_rule_change_shows_in_each(
        packs: Path, capsys) -> None:
    pack = _pack(packs)
    path = release("mini", "first", packs)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(record["languages"]) == ["es"]
    spanish_faces = record["languages"]["es"]["faces"]
    assert sorted(spanish_faces) == sorted(record["faces"])  # every face, in Spanish
    assert spanish_faces["spells/S1"]["name"] == "Bola de fuego"
    assert record["languages"]["es"]["cards"]["spells/S1"]["name"] == "Bola de fuego"
    assert record["faces"]["spells/S1"]["name"] == "火球术"  # the source as it always was
    old = _tags(record, "spells/S1")
    assert old["zh-CN"] != old["es"]  # each language's face has its own tag
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    new = _now(packs, "spells/S1")
    assert cli.main(["changes", "--cards", str(packs), "mini", "--lang", "all"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "[zh-CN]", "",
        "# 测试小包 t1 — 改动 自 first (t1 → t1)", "",
        "## 规则数值", "",
        "- `damage`: 3 → 4 — 影响: 法术 火球术 S1", "",
        "## 改动的组件", "",
        "### 法术", "",
        ZH_S1.format(old=old["zh-CN"], new=new["zh-CN"]), "",
        "[es]", "",
        "# Paquete de prueba t1 — Cambios desde first (t1 → t1)", "",
        "## Reglas", "",
        "- `damage`: 3 → 4 — afecta a: 法术 Bola de fuego S1", "",
        "## Modificado", "",
        "### 法术", "",
        ES_S1.format(old=old["es"], new=new["es"]), ""]
    assert cli.main(["changes", "--cards", str(packs), "mini", "--lang", "all", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert {tag: [(item["key"], item["why"][-1]) for item in found["changed"]]
            for tag, found in said.items()} == {"zh-CN": [("spells/S1", "damage: 3 → 4")],
                                                 "es": [("spells/S1", "damage: 3 → 4")]}
    assert said["es"]["language"] == "es"
    assert cli.main(["changes", "--cards", str(packs), "mini", "--lang", "es", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == said["es"]  # one language: its object


def test_a_translation_changed_shows_only_in_its_language(packs: Path) -> None:
    pack = _pack(packs)
    release("mini", "first", packs)
    edit(pack / "translations" / "es.yaml", "Curación", "Sanación")
    found, _ = changes("mini", None, packs)
    assert found.empty
    found, checked = changes("mini", None, packs, "es")
    assert checked.game.language == "es"
    assert [(item.key, item.why) for item in found.changed] == [
        ("spells/S2", ["name: Curación → Sanación"])]
    assert (found.added, found.removed, found.rules) == ([], [], [])


def test_reprint_all_writes_each_language_its_faces_proof_and_changelog(
        packs: Path, tmp_path: Path, pool: Workers) -> None:
    pack = _pack(packs)
    out = tmp_path / "out"
    release("mini", "first", packs, out, workers=pool)
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    edit(pack / "translations" / "es.yaml", "Curación", "Sanación")
    messages: list[str] = []
    folder = reprint("mini", None, cards_dir=packs, out_root=out, progress=messages.append,
                     workers=pool, asked=[None, "es"])
    assert folder is not None
    assert sorted(path.name for path in folder.iterdir() if path.name != MARK) == [
        "CHANGELOG.es.md", "CHANGELOG.md", "changes-a4-es.pdf", "changes-a4.pdf",
        "reprint-a4-es.pdf", "reprint-a4.pdf"]
    source, translated = page_texts(folder / "reprint-a4.pdf"), page_texts(
        folder / "reprint-a4-es.pdf")
    assert "火球术" in source[0] and "造成4点伤害" in source[0] and "治疗术" not in source[0]
    assert "Boladefuego" in translated[0] and "Causa4dedaño." in translated[0]
    assert "Sanación" in translated[0] and "冰冻术" not in translated[0]
    assert ("红" in source[1], "绿" in source[1], "绿" in translated[1]) == (True, False, True)
    log = (folder / "CHANGELOG.es.md").read_text(encoding="utf-8")
    assert log.startswith("# Paquete de prueba t1 — Cambios desde first (t1 → t1)\n")
    assert "## Reglas\n" in log and "## Modificado\n" in log
    assert "): name: Curación → Sanación\n" in log
    assert "Sanación" not in (folder / "CHANGELOG.md").read_text(encoding="utf-8")
    [proof] = page_texts(folder / "changes-a4-es.pdf")
    assert "spells/S1Boladefuego" in proof and "spells/S2Sanación" in proof
    assert proof.count("antes") == 2 and "noseconserva" not in proof  # both befores kept
    pictures = _pictures(folder / "changes-a4-es.pdf")
    assert len(pictures) == 4  # each Spanish face before differs from one after in a band or
    assert all(any(len(changed_boxes(one, other)) <= 2 for other in pictures if other != one)
               for one in pictures)  # two (the text, the tag): the befores are Spanish too
    assert [re.sub(r" in \d+\.\d s ", " in N s ", line) for line in messages[-2:]] == [
        f"mini: wrote CHANGELOG.md, reprint-a4.pdf, changes-a4.pdf to {folder} in N s "
        "(1 changed and 0 new faces, 1 copies, since first)",
        f"mini [es]: wrote CHANGELOG.es.md, reprint-a4-es.pdf, changes-a4-es.pdf to {folder} "
        "in N s (2 changed and 0 new faces, 2 copies, since first)"]
    assert any(line.startswith("mini [es]: reprint-a4-es.pdf: 2 pages, ") for line in messages)


def test_an_old_record_compares_the_source_and_calls_every_other_face_new(
        packs: Path) -> None:
    pack = _pack(packs)
    path = release("mini", "first", packs)
    record = json.loads(path.read_text(encoding="utf-8"))
    del record["languages"]  # as pnp wrote it before games had languages
    path.write_text(json.dumps(record), encoding="utf-8")
    edit(pack / "rules.yaml", "damage: 3", "damage: 4")
    [(source, _), (translated, _)] = [changes("mini", None, packs, language)
                                      for language in (None, "es")]
    assert [item.key for item in source.changed] == ["spells/S1"]
    assert (translated.changed, translated.removed, translated.counts, translated.rules) == (
        [], [], [], [])
    assert [(entry["key"], entry["copies"]) for entry in translated.added] == [
        ("spells/S1", 1), ("spells/back:red", 1), ("spells/S2", 1), ("spells/back:green", 1),
        ("spells/S3", 2), ("spells/back:blue", 2)]


def test_since_a_git_revision_loads_the_old_pack_in_each_language(packs: Path) -> None:
    pack = _pack(packs)
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                   "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(packs), *command], check=True)
    edit(pack / "translations" / "es.yaml", "Curación", "Sanación")
    assert changes("mini", "HEAD", packs)[0].empty
    found, _ = changes("mini", "HEAD", packs, "es")
    assert [(item.key, item.why) for item in found.changed] == [
        ("spells/S2", ["name: Curación → Sanación"])]
    edit(pack / "game.yaml", "languages: [zh-CN, es]\n", "")  # a revision with no Spanish
    subprocess.run(["git", "-C", str(packs), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-qam", "two"], check=True)
    edit(pack / "game.yaml", "language: zh-CN", "languages: [zh-CN, es]\nlanguage: zh-CN")
    found, _ = changes("mini", "HEAD", packs, "es")
    assert (len(found.added), found.changed) == (6, [])
