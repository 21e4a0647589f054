"""A game in several languages (game.yaml `languages:`): each language's files carry it in
their names and manifest entries, are kept apart from the others' and up to date on their own;
the parts that print no text (backs with no motto, sheets of empty card boxes) are laid out
once for every language; `--lang all` builds and exports each language."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from generator import cli
from generator.layout.workers import Workers
from generator.pipeline import cache
from generator.pipeline.build import BuildOptions, BuildResult, build_game, check
from generator.pipeline.cache import input_digest, parts_folder
from generator.pipeline.manifest import STATE, is_fresh
from generator.plan.parts import language_free, prints_text

from .conftest import FIXTURES, edit, page_texts

HTML = BuildOptions(html=True)


def _pack(cards: Path) -> Path:
    """The tiny pack in English and Spanish, its backs a colour alone (no motto): the cards
    folder."""
    shutil.copytree(FIXTURES, cards)
    game = cards / "mini" / "game.yaml"
    edit(game, "language: zh-CN", "languages: [en, es]")
    for motto in ("红", "绿", "蓝"):
        edit(game, f", text: {motto}}}", "}")
    return cards


def _build(cards: Path, out: Path, pool: Workers, language: str | None = None,
           said: list[str] | None = None) -> BuildResult:
    """Build the tiny pack in a language (None: the source), with its HTML."""
    return build_game("mini", BuildOptions(html=True, language=language), out, cards,
                      said.append if said is not None else lambda message: None, pool)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, pool: Workers
          ) -> tuple[Path, Path, list[BuildResult], list[str]]:
    """The pack built in English, in Spanish, then in English again, every part no output of
    the last build uses dropped at once (KEEP_BUILDS 1): the cards and output folders, the
    three builds' results and what they said."""
    root = tmp_path_factory.mktemp("languages")
    cards, out, said = _pack(root / "cards"), root / "out", []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache, "KEEP_BUILDS", 1)
        results = [_build(cards, out, pool, language, said) for language in (None, "es", None)]
    return cards, out, results, said


def test_another_language_s_files_carry_it_and_every_entry_names_its_language(built) -> None:
    _, out, _, said = built
    folder = out / "mini"
    assert sorted(path.name for path in folder.iterdir() if not path.name.startswith(".")) == [
        "cards-a4-es.html", "cards-a4-es.pdf", "cards-a4.html", "cards-a4.pdf", "manifest.json"]
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert [(entry["file"], entry["kind"], entry["paper"], entry["language"])
            for entry in manifest["outputs"]] == [("cards-a4-es.pdf", "cards", "a4", "es"),
                                                  ("cards-a4.pdf", "cards", "a4", "en")]
    assert "火球术" in page_texts(folder / "cards-a4-es.pdf")[0]  # no translation: the source's
    assert '<html lang="es">' in (folder / "cards-a4-es.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in (folder / "cards-a4.html").read_text(encoding="utf-8")
    assert any(line.startswith("mini [es]: cards-a4-es.pdf: 2 pages, ") for line in said)


def test_each_language_is_up_to_date_on_its_own(built) -> None:
    cards, out, _, _ = built
    state = json.loads((out / "mini" / STATE).read_text(encoding="utf-8"))
    assert {key: record["files"] for key, record in state["papers"].items()} == {
        "a4": ["cards-a4.html", "cards-a4.pdf"], "a4/es": ["cards-a4-es.html", "cards-a4-es.pdf"]}
    pack = cards / "mini"
    for language in (None, "es"):
        options = BuildOptions(html=True, language=language)
        assert is_fresh(out / "mini", "a4", input_digest(pack, options), language)
    assert not is_fresh(out / "mini", "a4", input_digest(pack, HTML), "es")  # not es's inputs
    assert not is_fresh(out / "mini", "letter", input_digest(pack, HTML))


def test_parts_that_print_no_text_are_laid_out_once_for_every_language(built) -> None:
    cards, _, results, _ = built
    english, spanish, again = results
    assert (english.laid_out, english.from_cache) == (4, 0)  # two sheets, fronts, backs
    # the fronts print text in the document's language: laid out again; the backs (a colour
    # alone) and the sheets (empty card boxes) are taken from the English build
    assert (spanish.laid_out, spanish.from_cache) == (1, 3)
    # English once more: the cache kept what each language's last build used
    assert (again.laid_out, again.from_cache) == (0, 4)
    # each deck's faces parts: its fronts, then its backs in a part of their own
    en, es = (check("mini", cards, BuildOptions(language=language)).job.faces.parts["spells"]
              for language in (None, "es"))
    assert [prints_text(part.html) for part in en] == [True, False]
    assert en[0].key != es[0].key and en[1].key == es[1].key
    assert en[1].html != es[1].html  # lang="en", lang="es": the key leaves it out


def test_a_textless_part_styled_by_language_is_keyed_with_it() -> None:
    page = '<html lang="{}"><head><title>{}</title><style>{}</style></head><body><div></div>'
    plain = [page.format(language, title, "") for language, title in (("en", "A"), ("es", "B"))]
    assert language_free(plain[0]) == language_free(plain[1])
    styled = [page.format(language, "A", ":lang(es) div { color: red }")
              for language in ("en", "es")]
    assert language_free(styled[0]) != language_free(styled[1])
    worded = [page.format(language, "A", "").replace("<div></div>", "<p>Hi &amp; bye</p>")
              for language in ("en", "es")]
    assert language_free(worded[0]) != language_free(worded[1])


def test_a_shared_sheet_takes_its_title_from_the_document(tmp_path: Path, pool: Workers
                                                          ) -> None:
    """The title is left out of a textless part's key: the PDF's title is still its own."""
    cards, out = _pack(tmp_path / "cards"), tmp_path / "out"
    _build(cards, out, pool)
    edit(cards / "mini" / "game.yaml", "title: 测试小包", "title: Mini Pack")
    result = _build(cards, out, pool)
    assert result.laid_out == 1  # the fronts, which print the title; not the sheets
    assert PdfReader(out / "mini" / "cards-a4.pdf").metadata.title == "Mini Pack t1 — cards (a4)"


def test_a_record_from_before_languages_reads_as_the_source_s(tmp_path: Path,
                                                            pool: Workers) -> None:
    cards, out = _pack(tmp_path / "cards"), tmp_path / "out"
    _build(cards, out, pool)
    record = out / "mini" / STATE
    state = json.loads(record.read_text(encoding="utf-8"))
    for info in state["files"].values():
        info.pop("language", None)
    record.write_text(json.dumps(state), encoding="utf-8")
    assert is_fresh(out / "mini", "a4", input_digest(cards / "mini", HTML))
    _build(cards, out, pool, "es")
    assert (out / "mini" / "cards-a4.pdf").is_file()  # kept as the source's
    assert is_fresh(out / "mini", "a4", input_digest(cards / "mini", HTML))


def test_lang_all_builds_and_exports_every_language_and_an_unknown_one_is_e130(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cards, out = _pack(tmp_path / "cards"), tmp_path / "out"
    where = ["--cards", str(cards), "--out", str(out)]
    assert cli.main(["build", "mini", "--lang", "all", *where]) == 0
    assert sorted(path.name for path in (out / "mini").glob("*.pdf")) == [
        "cards-a4-es.pdf", "cards-a4.pdf"]
    told = capsys.readouterr().err
    assert "mini [es]: wrote 1 PDF" in told and "(3 parts from the cache, 1 laid out)" in told
    assert cli.main(["build", "mini", "--lang", "all", *where]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"pnp: {name}: up to date (nothing changed since the last build; --force rebuilds)"
        for name in ("mini", "mini [es]")]
    assert cli.main(["build", "mini", "--lang", "en", *where]) == 0  # the source, by name
    assert "mini: up to date" in capsys.readouterr().err

    assert cli.main(["build", "mini", "--lang", "fr", *where]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{cards / 'mini' / 'game.yaml'}:1: error: E130: the game is not in 'fr' (its "
        "languages: en, es)")

    assert cli.main(["export", "mini", "--to", "tts", "--lang", "all", *where]) == 0
    exported = out / "mini-export"
    assert sorted(path.name for path in exported.iterdir() if not path.name.startswith(".")) \
        == ["tts", "tts-es"]
    for folder in ("tts", "tts-es"):
        save = json.loads((exported / folder / "saved-object.json").read_text(encoding="utf-8"))
        assert save["ObjectStates"][0]["Nickname"] == "法术"
    index = json.loads((parts_folder(out, "mini") / "index.json").read_text(encoding="utf-8"))
    assert {"cards-a4.pdf", "cards-a4-es.pdf"} <= set(index["outputs"])
