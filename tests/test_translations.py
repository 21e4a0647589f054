"""A game in many languages: translations/<language>.yaml and `<field>@<language>` columns
laid over the pack at load, and what validate says of them, each finding at its line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.check.findings import Finding, PackError, display_path
from generator.layout.workers import Workers
from generator.pack.load import load_game
from generator.pack.translate import (
    read_translations,
    source_hash,
    source_units,
    told_once,
)
from generator.pipeline.build import BuildOptions, build_game, validate_game
from tests.conftest import edit, give_rules, page_texts

FIRE = "造成 **3** 点伤害。<b>不是标记</b>"  # the mini pack's one text of a section
def mark(packs: Path, lang: str = "es") -> str:
    """The command a stale finding names: the mini pack by its folder, as it is outside cards/."""
    return f"`pnp translations {display_path(packs / 'mini')} --lang {lang} --mark-current`"


def no_source(packs: Path) -> str:
    """What a stale finding says of a translation that records no source."""
    return f"records no source text it was made from: check it, then run {mark(packs)}"


def spanish(packs: Path, cards: str, languages: str = "[zh-CN, es]") -> Path:
    """The mini pack (Chinese) in Spanish too, with these cards of translations/es.yaml (the
    title translated, its source recorded); its folder."""
    pack = packs / "mini"
    edit(pack / "game.yaml", "language: zh-CN", f"languages: {languages}\nlanguage: zh-CN")
    (pack / "translations").mkdir()
    (pack / "translations" / "es.yaml").write_text(
        f"game:\n  title: {{text: Paquete de prueba, source: {source_hash('测试小包')}}}\n"
        f"cards:\n  spells:\n{cards}", encoding="utf-8")
    return pack


def current(text: str, translation: str) -> str:
    """An entry translating `text`, its source recorded as it is now."""
    return f"{{text: \"{translation}\", source: {source_hash(text)}}}"


def told(game_findings: list[Finding], code: str) -> set[str]:
    """The findings of one code, as printed."""
    return {str(f) for f in game_findings if f.code == code}


def test_a_game_loaded_in_spanish_is_an_ordinary_game_in_spanish(packs: Path) -> None:
    pack = spanish(packs, f"    S1:\n      name: {current('火球术', 'Bola de fuego')}\n"
                   f"      sections.1.text: {current(FIRE, 'Causa **3** de daño.')}\n")
    (pack / "translations" / "es.yaml").write_text(
        (pack / "translations" / "es.yaml").read_text(encoding="utf-8")
        + "words: {draft: Borrador}\n", encoding="utf-8")
    source = load_game("mini", packs)
    game = load_game("mini", packs, "es")
    assert (game.language, game.source_language, game.spec.title) == ("es", "zh-CN",
                                                                      "Paquete de prueba")
    assert (source.language, source.source_language, source.spec.title) == ("zh-CN", "zh-CN",
                                                                             "测试小包")
    first = game.decks[0].cards[0]
    assert (first.name, first.sections[0].label, first.sections[0].text) == (
        "Bola de fuego", "效果", "Causa **3** de daño.")
    assert game.decks[0].cards[1].name == "治疗术"  # untranslated: the source prints
    assert game.spec.words == {"draft": "Borrador"}
    where = str(pack / "translations" / "es.yaml")
    assert [(t.path, t.line) for t in game.texts if t.text == "Bola de fuego"] == [(where, 6)]
    assert [u.context for u in source_units(source)] == [
        "game:title", "game:players", "game:decks.spells.name", "game:backs.red.text",
        "game:backs.green.text", "game:backs.blue.text", "cards:spells/S1/name",
        "cards:spells/S1/sections.1.label", "cards:spells/S1/sections.1.text",
        "cards:spells/S2/name", "cards:spells/S3/name"]
    assert source_units(game) == source_units(source)  # the source, whatever the language
    units = {u.context: u for u in source_units(source)}
    assert (units["cards:spells/S1/sections.1.text"].text,
            units["cards:spells/S1/sections.1.text"].line) == (FIRE, 7)


def test_what_a_translation_lacks_or_gets_wrong_is_told_at_its_line(packs: Path) -> None:
    pack = spanish(packs, "    S1:\n      name: Bola de fuego\n"
                   "      sections.1.label: {text: Efecto, source: 0badf00d}\n"
                   "      cost: '3'\n      qty: '2'\n    S9: {name: Nadie}\n"
                   "  nodeck:\n    A1: {name: x}\n")
    (pack / "translations" / "es.yaml").write_text(
        (pack / "translations" / "es.yaml").read_text(encoding="utf-8")
        + "rules:\n  nothing: x\nwords: {bogus: x}\nstray: 1\n", encoding="utf-8")
    game = load_game("mini", packs, "es")
    es, spells, yaml = (str(pack / "translations" / "es.yaml"), str(pack / "spells.yaml"),
                        str(pack / "game.yaml"))
    label = source_hash("效果")
    assert told(game.findings, "W131") == {
        f"{yaml}:5: warning: W131: [es] game.yaml has no translation of 'players': the source "
        "text (zh-CN) prints",
        f"{yaml}:9: warning: W131: [es] game.yaml has no translation of 'backs.red.text': the "
        "source text (zh-CN) prints",
        f"{yaml}:10: warning: W131: [es] game.yaml has no translation of 'backs.green.text': "
        "the source text (zh-CN) prints",
        f"{yaml}:11: warning: W131: [es] game.yaml has no translation of 'backs.blue.text': "
        "the source text (zh-CN) prints",
        f"{yaml}:14: warning: W131: [es] game.yaml has no translation of 'decks.spells.name': "
        "the source text (zh-CN) prints",
        f"{es}:5: warning: W131: [es] card 'S1' (deck 'spells') has no translation of "
        "'sections.1.text': the source text (zh-CN) prints",
        f"{spells}:8: warning: W131: [es] card 'S2' (deck 'spells') has no translation of "
        "'name': the source text (zh-CN) prints",
        f"{spells}:12: warning: W131: [es] card 'S3' (deck 'spells') has no translation of "
        "'name': the source text (zh-CN) prints"}
    assert told(game.findings, "W132") == {
        f"{es}:6: warning: W132: [es] card 'S1': the translation of 'name' {no_source(packs)}",
        f"{es}:7: warning: W132: [es] card 'S1': the translation of 'sections.1.label' was "
        f"made from another source text (it records 0badf00d, the source is now {label}): "
        f"review it, then run {mark(packs)}"}
    assert told(game.findings, "E133") == {
        f"{es}:8: error: E133: [es] card 'S1' has no text 'cost' to translate (its texts: "
        "name, sections.1.label, sections.1.text)",
        f"{es}:9: error: E133: [es] card 'S1' has no text 'qty' to translate (its texts: "
        "name, sections.1.label, sections.1.text)",
        f"{es}:10: error: E133: [es] deck 'spells' has no card 'S9'",
        f"{es}:12: error: E133: [es] cards: the game has no deck 'nodeck' (decks: spells)",
        f"{es}:14: error: E133: [es] rules has no text 'nothing' to translate"}
    assert told(game.findings, "E010") == {
        f"{es}:15: error: E010: [es] unknown field 'words.bogus' (accepted: back, cards, "
        "contents, draft, gallery, glue, label_gap, list_separator, quote_close, "
        "quote_inner_close, quote_inner_open, quote_open, separator, standee_foot, "
        "standee_slot, start)",
        f"{es}:16: error: E010: [es] unknown key 'stray' (accepted: cards, game, rulebook, "
        "rules, words)"}
    assert game.decks[0].cards[0].name == "Bola de fuego"  # stale or not, it prints


def test_a_dropped_placeholder_is_an_error_and_the_source_prints(packs: Path) -> None:
    pack = give_rules(packs, "fire: {damage: 3}\nterms:\n  fire.damage: ['造成 # 点伤害']\n")
    edit(pack / "spells.yaml", "造成 **3** 点伤害", "造成 **{fire.damage}** 点伤害")
    written = FIRE.replace("**3**", "**{fire.damage}**")
    spanish(packs, f"    S1:\n      sections.1.text: {current(written, 'Causa **3** de daño.')}\n"
            f"      name: {current('火球术', 'Bola de {fire.damage} :x:')}\n")
    game = load_game("mini", packs, "es")
    es = pack / "translations" / "es.yaml"
    assert told(game.findings, "E134") == {
        f"{es}:6: error: E134: [es] card 'S1': 'sections.1.text' drops {{fire.damage}}",
        f"{es}:7: error: E134: [es] card 'S1': 'name' adds {{fire.damage}}"}
    first = game.decks[0].cards[0]
    assert (first.name, first.sections[0].text) == ("火球术", FIRE)  # both as the source


def test_a_translated_term_finds_a_number_restated_in_the_translation(packs: Path) -> None:
    pack = give_rules(packs, "fire: {damage: 3}\nterms:\n  fire.damage: ['造成 # 点伤害']\n")
    spanish(packs, f"    S1:\n      sections.1.text: {current(FIRE, 'Causa **4** de daño.')}\n")
    es = pack / "translations" / "es.yaml"
    es.write_text(es.read_text(encoding="utf-8") + "rules:\n  terms.fire.damage.0: "
                  f"{current('造成 # 点伤害', 'causa # de daño')}\n", encoding="utf-8")
    report = validate_game("mini", packs, BuildOptions(language="es"), pack.parent.parent / "b")
    assert [str(f) for f in report.findings if f.code == "E090"] == [
        f"{es}:6: error: E090: [es] 'Causa 4 de daño' says 4, but rule 'fire.damage' is 3"]


def test_stale_in_every_language_until_the_new_source_is_recorded(packs: Path) -> None:
    pack = spanish(packs, f"    S1:\n      name: {current('火球术', 'Bola de fuego')}\n",
                   "[zh-CN, es, fr]")
    french = pack / "translations" / "fr.yaml"
    french.write_text(f"cards:\n  spells:\n    S1:\n      name: "
                      f"{current('火球术', 'Boule de feu')}\n", encoding="utf-8")

    def stale(language: str) -> list[str]:
        return [f.message for f in load_game("mini", packs, language).findings
                if f.code == "W132"]

    assert stale("es") == stale("fr") == []
    edit(pack / "spells.yaml", "name: 火球术", "name: 大火球术")
    now = source_hash("大火球术")
    assert stale("es") == [f"[es] card 'S1': the translation of 'name' was made from another "
                           f"source text (it records {source_hash('火球术')}, the source is "
                           f"now {now}): review it, then run {mark(packs)}"]
    assert stale("fr") == [stale("es")[0].replace("[es]", "[fr]").replace(mark(packs),
                                                                            mark(packs, "fr"))]
    edit(pack / "translations" / "es.yaml", source_hash("火球术"), now)
    assert stale("es") == [] and len(stale("fr")) == 1


def test_a_spreadsheet_deck_translates_in_its_columns(packs: Path) -> None:
    pack = spanish(packs, f"    S2: {{name: {current('治疗术', 'Curación')}}}\n"
                   f"    S3: {{name: {{source: {source_hash('冰冻术')}}}}}\n")
    edit(pack / "game.yaml", "file: spells.yaml", "file: spells.csv")
    (pack / "spells.csv").write_text(
        "id,name,cost,back,qty,sections.0.label,sections.0.text,name@es,sections.0.text@es,"
        "qty@es,name@fr\n"
        f"S1,火球术,3,red,1,效果,{FIRE},Bola de fuego,Causa 3,2,Boule\n"
        "S2,治疗术,2,green,1,,,Cura,,,\n"
        "S3,冰冻术,1,blue,2,,,Congelar,,,\n", encoding="utf-8")
    game = load_game("mini", packs, "es")
    csv, es = pack / "spells.csv", pack / "translations" / "es.yaml"
    assert [(card.name, [s.text for s in card.sections]) for card in game.decks[0].cards] == [
        ("Bola de fuego", ["Causa 3"]), ("治疗术", []), ("Congelar", [])]
    assert {str(f) for f in game.findings if f.level == "error"} == {
        f"{csv}:1: error: E010: [es] unknown column 'name@fr': the game is not in 'fr' (its "
        "other languages: es)",
        f"{csv}:1: error: E133: [es] column 'qty@es' translates nothing: 'qty' is no text to "
        "translate (a text field, or one item or cell of one, `sections.0.text@es`)",
        f"{es}:5: error: E133: [es] card 'S2': 'name' is translated twice, in the deck's "
        f"column ({csv}:3) and here: keep one (here, `{{source: …}}` alone records the "
        "column's source)"}
    assert [str(f) for f in game.findings if f.code == "W132"] == [
        f"{csv}:2: warning: W132: [es] card 'S1': the translation of 'name' {no_source(packs)}",
        f"{csv}:2: warning: W132: [es] card 'S1': the translation of 'sections.1.text' "
        f"{no_source(packs)}"]
    found: list[Finding] = []
    entries = read_translations(load_game("mini", packs), "es", found)
    assert (entries["cards:spells/S3/name"].text, entries["cards:spells/S3/name"].source,
            entries["cards:spells/S3/name"].line) == ("Congelar", source_hash("冰冻术"), 4)
    assert [f.code for f in found] == ["E133"]


def test_a_translations_file_that_links_out_of_the_pack_is_refused(packs: Path,
                                                                    tmp_path: Path) -> None:
    pack = spanish(packs, "    S1: {name: Bola de fuego}\n")
    outside = tmp_path / "secret.yaml"
    outside.write_text("cards: {spells: {S1: {name: Robado}}}\n", encoding="utf-8")
    es = pack / "translations" / "es.yaml"
    es.unlink()
    os.symlink(outside, es)
    game = load_game("mini", packs, "es")
    assert game.decks[0].cards[0].name == "火球术"
    [refused] = [f for f in game.findings if f.level == "error"]
    assert (refused.path, refused.code) == (str(es), "E050")
    assert refused.message.startswith("[es] ") and "outside" in refused.message


def test_languages_are_checked(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "language: zh-CN", "languages: [es, zh-CN, en_US, ES]\nlanguage: zh-CN")
    assert [str(f) for f in load_game("mini", packs).findings] == [
        f"{game}:1: error: E130: languages: 'es' comes first, but `language:` is 'zh-CN': the "
        "source language is the first",
        f"{game}:1: error: E130: languages: 'en_US' is not a language tag (BCP 47: en, es, "
        "zh-CN, pt-BR)",
        f"{game}:1: error: E130: languages: 'ES' is listed twice"]
    with pytest.raises(PackError, match="E130: the game is not in 'en_US'"):
        load_game("mini", packs, "en_US")


def test_the_rulebook_in_another_language(packs: Path) -> None:
    pack = spanish(packs, "")
    source = pack / "rulebook.md"
    source.write_text("# 规则\n", encoding="utf-8")
    assert [str(f) for f in load_game("mini", packs, "es").findings
            if "rulebook" in f.message and f.code == "W131"] == [
        f"{source}: warning: W131: [es] the rulebook has no translation (rulebook.es.md): "
        "the source text (zh-CN) prints"]
    (pack / "rulebook.es.md").write_text("# Reglas\n", encoding="utf-8")
    es = pack / "translations" / "es.yaml"
    es.write_text(es.read_text(encoding="utf-8") + "rulebook: {source: 0badf00d}\n",
                  encoding="utf-8")
    game = load_game("mini", packs, "es")
    assert game.spec.rulebook.file == "rulebook.es.md"
    now = source_hash("# 规则\n")
    assert [str(f) for f in game.findings if f.code == "W132"] == [
        f"{es}:5: warning: W132: [es] rulebook.es.md was made from another source text (it "
        f"records 0badf00d, the source is now {now}): review it, then run {mark(packs)}"]
    edit(es, "0badf00d", now)
    assert not [f for f in load_game("mini", packs, "es").findings if f.code == "W132"]


def test_a_finding_the_source_has_too_is_told_once_for_the_source() -> None:
    source = [Finding("a.yaml", 3, "card 'S1': hm", "W001")]
    others = [Finding("a.yaml", 3, "[es] card 'S1': hm", "W001"),
              Finding("a.yaml", 4, "[es] card 'S1': hm", "W001"),
              Finding("b.yaml", 3, "[fr] card 'S1': other", "W001")]
    assert told_once(source, others) == [source[0], others[1], others[2]]


def test_spanish_validated_and_built(packs: Path, tmp_path: Path, pool: Workers) -> None:
    pack = spanish(packs, f"    S1:\n      name: {current('火球术', 'Bola de fuego')}\n"
                   f"      sections.1.text: {current(FIRE, 'Causa tres puntos de daño. ' * 30)}"
                   "\n")
    edit(pack / "spells.yaml", "  qty: 2", "  qty: 2\n  draft: true")  # W001 in both
    report = validate_game("mini", packs, BuildOptions(language="all"), tmp_path / "b", pool)
    spells = pack / "spells.yaml"
    [draft] = [f.message for f in report.findings if f.code == "W001"]  # the source's
    assert draft.startswith("card 'S3'")
    [overflow] = [str(f) for f in report.findings if f.code == "E070"]
    assert overflow.startswith(f"{spells}:1: error: E070: [es] card 'S1': 'sections.0 效果' "
                               "runs ") and overflow.endswith(" mm past its box (bottom edge)")
    edit(pack / "translations" / "es.yaml", "Causa tres puntos de daño. " * 30, "Causa tres.")
    result = build_game("mini", BuildOptions(language="es"), tmp_path / "out", packs,
                        workers=pool)
    files = [entry["file"] for entry in result.manifest["outputs"] if entry["language"] == "es"]
    assert files and all(file.endswith("-es.pdf") for file in files)
    texts = "".join(text for file in files
                    for text in page_texts(tmp_path / "out" / "mini" / file))
    assert "Boladefuego" in texts and "Causatres." in texts and "火球术" not in texts
