"""`pnp translations`: the example's languages handed out as PO files and taken back
(translations/L.yaml written whole, canonical, the same bytes after a round trip), how far
each language is (--status), and its translations accepted after review (--mark-current)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import cli
from generator.check.findings import Finding, display_path
from generator.pack.load import load_game
from generator.pack.translate import (
    Entry,
    read_file,
    read_translations,
    source_hash,
    source_units,
    write_translations,
    yaml_scalar,
)

from .conftest import edit

EXAMPLE = Path(__file__).parents[1] / "examples" / "harbour-lights"
GAME = "harbour-lights"
C1_TEXT = "Light a ship now, paying **{crew.lamplighter.saving}** :oil: less."
C1_ES = "Alumbra un barco ya, por **{crew.lamplighter.saving}** :oil: menos."
C1_BLOCK = f"""#. deck 'crew', card 'C1', field 'text'
#: crew.yaml:8
msgctxt "cards:crew/C1/text"
msgid "{C1_TEXT}"
msgstr "{C1_ES}"
"""
S02_BLOCK = """#. deck 'ships', card 'S02', field 'name'; its translation is in ships.csv's
#. column name@es (change it there)
#: ships.csv:3
msgctxt "cards:ships/S02/name"
msgid "Morning Star"
msgstr "Lucero del Alba"
"""
CURRENT = "124 done, 0 missing, 0 stale; rulebook: translated"


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    """A cards/ folder in tmp holding a copy of the example, free to change."""
    shutil.copytree(EXAMPLE, tmp_path / "cards" / GAME)
    return tmp_path / "cards"


def pnp(cards: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `pnp translations` on the example copy: its exit code, standard output and
    error."""
    code = cli.main(["translations", GAME, "--cards", str(cards), *args])
    out, err = capsys.readouterr()
    return code, out, err


def export(cards: Path, capsys: pytest.CaptureFixture[str], lang: str = "es") -> str:
    """The PO file of a language, as `--export` writes it beside the pack."""
    po = cards / f"{lang}.po"
    assert pnp(cards, capsys, "--lang", lang, "--export", str(po))[0] == 0
    return po.read_text(encoding="utf-8")


def stale(cards: Path, lang: str) -> list[str]:
    """The W132 findings of the example loaded in a language."""
    return [str(f) for f in load_game(GAME, cards, lang).findings if f.code == "W132"]


def yaml_file(cards: Path, lang: str = "es") -> Path:
    return cards / GAME / "translations" / f"{lang}.yaml"


def test_an_export_has_one_message_per_text_with_its_place_and_translation(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = export(cards, capsys)
    assert capsys.readouterr() == ("", "")
    units = source_units(load_game(GAME, cards))
    catalog = read_po(io.StringIO(text))  # Babel's own reader, as Poedit and Weblate read it
    messages = [message for message in catalog if message.id]
    assert [message.context for message in messages] == [unit.context for unit in units]
    assert len(messages) == 124
    assert [(m.id, m.locations) for m in messages] == [
        (unit.text, [(unit.path.rsplit(f"{GAME}/", 1)[1], unit.line)]) for unit in units]
    assert all(message.string and not message.fuzzy for message in messages)
    assert catalog.locale_identifier == "es" and catalog.project == "Harbour Lights"
    assert C1_BLOCK in text and S02_BLOCK in text
    assert '"POT-Creation-Date: 2026-02-01 00:00+0000\\n"\n' in text  # the game's date
    assert text.startswith("# Harbour Lights: its texts to translate into es, one message "
                           "each.\n")


def test_an_export_is_the_same_bytes_twice_and_on_standard_output(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = export(cards, capsys)
    assert export(cards, capsys) == first
    code, out, err = pnp(cards, capsys, "--lang", "es", "--export", "-")
    assert (code, out, err) == (0, first, "")
    code, out, err = pnp(cards, capsys, "--lang", "es", "--export", str(cards / "es.yaml"))
    assert (code, out) == (1, "")
    assert err == (f"pnp: error: --export {cards / 'es.yaml'}: pnp writes a PO file: give a "
                   "name ending in .po (or - for standard output); nothing was written\n")


def test_a_percent_sign_is_no_format_string(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(cards / GAME / "crew.yaml", "quote: One flame,", "quote: 50% of the flame,")
    assert '#, fuzzy\nmsgctxt "cards:crew/C1/quote"\nmsgid "50% of the flame,' in \
        export(cards, capsys)  # Babel would flag it python-format, and msgfmt check it so


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext's msgfmt is not installed")
def test_gettext_compiles_the_export(cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for lang in ("es", "zh-CN"):
        export(cards, capsys, lang)
        done = subprocess.run(["msgfmt", "--check-format", "-o", os.devnull,
                               str(cards / f"{lang}.po")], capture_output=True, text=True)
        assert (done.returncode, done.stderr) == (0, "")


def test_export_then_import_leaves_the_translations_file_byte_for_byte(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert pnp(cards, capsys, "--lang", "es", "--mark-current") == (
        0, f"es: recorded the current source of 124 translated texts (0 stale before) and of the "
        f"rulebook in {yaml_file(cards)}\n", "")
    canonical = yaml_file(cards).read_bytes()
    assert canonical.startswith(b"# Harbour Lights in es: its texts translated. pnp writes")
    assert b'  title: {text: Luces del puerto, source: "0185673d"}\n' in canonical
    assert b'    S02:\n      name: {source: "ca949ab4"}\n' in canonical
    assert b'  words.hire_for: {text: Contratar por, source: "53695466"}\n' in canonical
    assert canonical.endswith(b'rulebook: {source: "171526e7"}\n')
    export(cards, capsys)
    po = str(cards / "es.po")
    assert pnp(cards, capsys, "--lang", "es", "--import", po) == (
        0, f"es: imported 97 translations, and the source of 27 spreadsheet cells, from {po} "
        f"into {yaml_file(cards)}\n", "")
    assert yaml_file(cards).read_bytes() == canonical
    assert sorted(os.listdir(yaml_file(cards).parent)) == ["es.yaml", "zh-CN.yaml"]
    assert stale(cards, "es") == []


def test_a_translators_edit_in_the_po_file_prints_in_the_game(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    po = cards / "es.po"
    po.write_text(export(cards, capsys).replace(
        f'msgstr "{C1_ES}"', 'msgstr "Enciende un barco: paga **{crew.lamplighter.saving}** '
        ':oil: menos,\\n y di \\"¡luz!\\""'), encoding="utf-8")
    assert pnp(cards, capsys, "--lang", "es", "--import", str(po))[0] == 0
    lines = yaml_file(cards).read_text(encoding="utf-8").splitlines()
    assert '      text: {text: "Enciende un barco: paga **{crew.lamplighter.saving}** :oil: ' \
        f'menos,\\n y di \\"¡luz!\\"", source: "{source_hash(C1_TEXT)}"}}' in lines
    game = load_game(GAME, cards, "es")
    lamplighter = next(card for card in game.decks[0].cards if card.id == "C1")
    assert lamplighter.text == 'Enciende un barco: paga **1** :oil: menos,\n y di "¡luz!"'
    assert stale(cards, "es") == []


def test_a_changed_source_is_fuzzy_stale_and_accepted_by_mark_current(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(cards / GAME / "crew.yaml", "Light a ship now", "Light any ship now")
    assert "#, fuzzy\nmsgctxt \"cards:crew/C1/text\"\nmsgid \"Light any ship now" in \
        export(cards, capsys)
    assert pnp(cards, capsys) == (0, "es: 123 done, 0 missing, 1 stale; rulebook: translated\n"
                                  "zh-CN: 123 done, 0 missing, 1 stale; rulebook: translated\n",
                                  "")
    made = source_hash(C1_TEXT)
    now = source_hash(C1_TEXT.replace("Light a", "Light any"))
    for lang in ("es", "zh-CN"):
        assert stale(cards, lang) == [
            f"{yaml_file(cards, lang)}:66: warning: W132: [{lang}] card 'C1': the translation "
            f"of 'text' was made from another source text (it records {made}, the source is "
            f"now {now}): review it, then run `pnp translations "
            f"{display_path(cards / GAME)} --lang {lang} --mark-current`"]
    before = yaml_file(cards, "zh-CN").read_bytes()
    po = str(cards / "es.po")
    assert pnp(cards, capsys, "--lang", "es", "--import", po)[1].startswith(
        "es: imported 97 translations (1 stale: validate says which),")  # fuzzy: kept stale
    assert len(stale(cards, "es")) == 1
    assert pnp(cards, capsys, "--lang", "es", "--mark-current")[1] == (
        "es: recorded the current source of 124 translated texts (1 stale before) and of the "
        f"rulebook in {yaml_file(cards)}\n")
    assert stale(cards, "es") == []
    assert len(stale(cards, "zh-CN")) == 1 and yaml_file(cards, "zh-CN").read_bytes() == before
    assert pnp(cards, capsys, "--status", "--lang", "es")[1] == f"es: {CURRENT}\n"


def test_a_po_file_made_from_an_older_source_imports_stale(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export(cards, capsys)
    edit(cards / GAME / "crew.yaml", "Light a ship now", "Light any ship now")
    assert pnp(cards, capsys, "--lang", "es", "--import", str(cards / "es.po"))[0] == 0
    now = source_hash(C1_TEXT.replace("Light a", "Light any"))
    assert stale(cards, "es") == [
        f"{yaml_file(cards)}:65: warning: W132: [es] card 'C1': the translation of 'text' was "
        f"made from another source text (it records {source_hash(C1_TEXT)}, the source is now "
        f"{now}): review it, then run `pnp translations {display_path(cards / GAME)} --lang es "
        "--mark-current`"]


def test_an_empty_msgstr_is_no_translation_and_an_unknown_message_is_skipped(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    po = cards / "es.po"
    text = export(cards, capsys).replace(f'msgstr "{C1_ES}"', 'msgstr ""')
    po.write_text(text + '#: crew.yaml:99\nmsgctxt "cards:crew/C99/text"\nmsgid "Gone"\n'
                  'msgstr "Ido"\n', encoding="utf-8")
    lines = len(text.splitlines())
    assert pnp(cards, capsys, "--lang", "es", "--import", str(po)) == (
        0, f"{po}:{lines + 3}: msgctxt 'cards:crew/C99/text' is no text of the pack now (a "
        "card or field renamed or removed since the export): skipped\n"
        f"es: imported 96 translations, and the source of 27 spreadsheet cells, from {po} "
        f"into {yaml_file(cards)}\n", "")
    assert "C99" not in yaml_file(cards).read_text(encoding="utf-8")
    assert pnp(cards, capsys, "--lang", "es")[1] == \
        "es: 123 done, 1 missing, 0 stale; rulebook: translated\n"


def test_a_spreadsheet_column_is_never_rewritten(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = (cards / GAME / "ships.csv").read_bytes()
    po = cards / "es.po"
    po.write_text(export(cards, capsys).replace('msgstr "Lucero del Alba"',
                                                'msgstr "Estrella del Alba"'), encoding="utf-8")
    code, out, err = pnp(cards, capsys, "--lang", "es", "--import", str(po))
    assert (code, out.splitlines()[0], err) == (
        0, "ships.csv:3 (name@es): the PO file's text differs; pnp does not rewrite "
        "spreadsheets: change the cell", "")
    assert "and the source of 26 spreadsheet cells" in out
    assert (cards / GAME / "ships.csv").read_bytes() == sheet
    assert '    S02:\n      name: {source: "ca949ab4"}\n' in yaml_file(cards).read_text(
        encoding="utf-8")


def test_a_broken_po_file_is_told_at_its_line(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = yaml_file(cards).read_bytes()
    po = cards / "es.po"
    lines = export(cards, capsys).splitlines()
    cases = {
        "Light a ship": (lines.index(f'msgstr "{C1_ES}"'), f'msgstr "{C1_ES}'),  # unclosed
        "stray": (5, "Language: es"),
        "keyword": (lines.index(f'msgstr "{C1_ES}"'), f'msgstring "{C1_ES}"'),
    }
    for index, line in cases.values():
        po.write_text("\n".join([*lines[:index], line, *lines[index + 1:]]) + "\n",
                      encoding="utf-8")
        assert pnp(cards, capsys, "--lang", "es", "--import", str(po)) == (
            1, "", f"pnp: error: {po}:{index + 1}: is not a line of a PO file (a quoted text, "
            "after msgctxt, msgid or msgstr, or a # comment): fix it, or export again; nothing "
            "was written\n")
    po.write_text("\n".join(lines[:lines.index(f'msgstr "{C1_ES}"')]) + "\n", encoding="utf-8")
    msgid = lines.index(f'msgid "{C1_TEXT}"') + 1
    assert pnp(cards, capsys, "--lang", "es", "--import", str(po))[2] == (
        f"pnp: error: {po}:{msgid}: is not a PO file as "
        f"gettext writes it: missing msgstr for msgid '{C1_TEXT}'; nothing was written\n")
    po.write_bytes(b'msgid ""\nmsgstr "caf\xe9"\n')
    assert pnp(cards, capsys, "--lang", "es", "--import", str(po))[2] == (
        f"pnp: error: {po}:2: is not UTF-8 text: save it as UTF-8 (every PO editor can); "
        "nothing was written\n")
    export(cards, capsys, "zh-CN")
    assert pnp(cards, capsys, "--lang", "es", "--import", str(cards / "zh-CN.po"))[2] == (
        f"pnp: error: {cards / 'zh-CN.po'}: is a PO file of the language 'zh_CN' (its "
        "Language: header), not of 'es': import it with --lang zh-CN; nothing was written\n")
    assert yaml_file(cards).read_bytes() == before


def test_a_linked_translations_folder_or_file_is_refused(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = cards / GAME
    (pack / "translations").rename(pack / "kept")
    (pack / "translations").symlink_to("kept")
    before = (pack / "kept" / "es.yaml").read_bytes()
    assert pnp(cards, capsys, "--lang", "es", "--mark-current") == (
        1, "", f"pnp: error: {pack / 'translations'} is a symbolic link, not a folder: pnp "
        "writes translations only into a folder inside the pack, never through a link (put "
        "the folder itself there); nothing was written\n")
    (pack / "translations").unlink()
    (pack / "translations").mkdir()
    (pack / "translations" / "es.yaml").symlink_to(pack / "kept" / "es.yaml")
    assert pnp(cards, capsys, "--lang", "es", "--mark-current")[2] == (
        f"pnp: error: {pack / 'translations' / 'es.yaml'} is a symbolic link: pnp replaces "
        "only a regular file, never through a link (put the file itself there); nothing was "
        "written\n")
    assert (pack / "kept" / "es.yaml").read_bytes() == before
    assert sorted(os.listdir(pack / "translations")) == ["es.yaml"]


def test_a_missing_translations_folder_is_made(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(cards / GAME / "translations")
    assert pnp(cards, capsys, "--lang", "es")[1] == \
        "es: 0 done, 97 missing, 27 stale; rulebook: stale\n"  # the columns record no source
    path = write_translations(load_game(GAME, cards), "es",
                              {"game:title": Entry("Faros", None, "", 0)})
    assert path.read_text(encoding="utf-8").splitlines()[4:] == ["game:",
                                                                 "  title: {text: Faros}"]
    assert pnp(cards, capsys, "--lang", "es", "--mark-current")[0] == 0
    assert pnp(cards, capsys, "--lang", "es")[1] == \
        "es: 28 done, 96 missing, 0 stale; rulebook: translated\n"
    assert sorted(os.listdir(path.parent)) == ["es.yaml"]


def test_status_and_actions_ask_for_a_language_of_the_game(
        cards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert pnp(cards, capsys) == (0, f"es: {CURRENT}\nzh-CN: {CURRENT}\n", "")
    where = cards / GAME / "game.yaml"
    assert pnp(cards, capsys, "--lang", "fr") == (
        1, "", f"pnp: error: {where}: --lang fr: 'fr' is not one of the game's languages (en, "
        "es, zh-CN): translate into one of es, zh-CN; nothing was written\n")
    assert pnp(cards, capsys, "--lang", "en", "--mark-current")[2] == (
        f"pnp: error: {where}: --lang en: 'en' is the source language the others translate: "
        "translate into one of es, zh-CN; nothing was written\n")
    assert pnp(cards, capsys, "--export", "es.po")[2] == (
        "pnp: error: --export needs --lang, one of the game's languages to translate into "
        "(es, zh-CN); nothing was written\n")
    po = cards / "es.po"  # the hint names the pack and the file as a command takes them
    assert pnp(cards, capsys, "--lang", "es", "--export", str(po)) == (0, "", (
        f"pnp: es: wrote {po}, 124 messages: hand it to the translator, then `pnp translations "
        f"{display_path(cards / GAME)} --lang es --import {po}`\n"))
    assert pnp(cards, capsys, "--mark-current") == (0, "".join(  # every language at once
        f"{lang}: recorded the current source of 124 translated texts (0 stale before) and of "
        f"the rulebook in {yaml_file(cards, lang)}\n" for lang in ("es", "zh-CN")), "")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
def test_any_text_written_reads_back_the_same(cards: Path, text: str) -> None:
    game = load_game(GAME, cards)
    write_translations(game, "es", {"game:title": Entry(text, "01234567", "", 0),
                                    f"cards:crew/{text}/name": Entry(text, None, "", 0)})
    findings: list[Finding] = []
    read = read_file(game.root, game.limits, "es", findings)
    assert findings == []
    assert (read.entries["game:title"].text, read.entries["game:title"].source) == (
        text, "01234567")
    assert read.entries[f"cards:crew/{text}/name"].text == text
    assert yaml.safe_load("{k: " + yaml_scalar(text) + "}") == {"k": text}
    assert "\n" not in yaml_scalar(text)


def test_read_translations_gives_the_entries_write_translations_keeps(cards: Path) -> None:
    game = load_game(GAME, cards)
    findings: list[Finding] = []
    entries = read_translations(game, "zh-CN", findings)
    write_translations(game, "zh-CN", entries)
    again = read_translations(game, "zh-CN", findings)
    assert findings == []
    assert {c: (e.text, e.source) for c, e in again.items()} == {
        c: (e.text, e.source) for c, e in entries.items()}
