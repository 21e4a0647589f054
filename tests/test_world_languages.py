"""The world's common languages: a word table each, their quotes on a built card, Greek,
Cyrillic and Japanese text with a glyph for every character, the fonts of an optional extra
(E135 when missing), and Hebrew set right to left."""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pytest

from generator import FONTS_DIR
from generator.pipeline.build import build_game, validate_game
from generator.text import fonts
from generator.text.language import LANG_DIR, _table, direction, languages, table_name

from .conftest import page_texts

GAME = """\
title: {title}
version: t1
players: "1-2"
language: {language}
typography: {{quotes: smart}}
palette: {{ink: "#000000", paper: "#ffffff"}}
fonts: {{body: {family}, heading: {family}, flavor: {family}}}
backs:
  red: {{color: "#ff0000", accent: "#000000"}}
decks:
  - id: spells
    name: {deck}
    file: spells.yaml
    size: poker
    template: card
    back: red
    count: 1
    color: "#333333"
    fields:
      cost: {{type: int, required: true}}
"""

CARDS = """\
- id: S1
  name: {name}
  cost: 3
  quote: "{quote}"
  sections:
    - label: {label}
      text: "{text}"
"""

# language: the pack's family, then title, deck, card name, quote, label and text in it
PACKS = {
    "fr": ("Noto Sans Latin", "Petit jeu", "Sorts", "Boule de feu",
           "Il dit 'oui' ce soir", "Effet", "Inflige 3 dégâts."),
    "de": ("Noto Sans Latin", "Kleines Spiel", "Zauber", "Feuerball",
           "Er sagt 'ja' heute", "Wirkung", "Verursacht 3 Schaden."),
    "ru": ("Noto Sans Latin", "Маленькая игра", "Заклинания", "Огненный шар",
           "Он сказал 'да' сегодня", "Эффект", "Наносит 3 урона. Ёж, щука, ъ."),
    "el": ("Noto Serif Latin", "Μικρό παιχνίδι", "Ξόρκια", "Βολίδα φωτιάς",
           "Είπε 'ναι' απόψε", "Αποτέλεσμα", "Προκαλεί 3 ζημιά. Ψυχή, ωμέγα, ΐ."),
    "ja": ("Noto Sans JP", "小さなゲーム", "呪文", "火の玉",
           "彼は'はい'と言った", "効果", "3 ダメージを与える。"),
    "he": ("Noto Sans Latin", "משחק קטן", "לחשים", "כדור אש",
           "הוא אמר 'כן' הערב", "השפעה", "גורם נזק שלושה."),
}
# What the card's quote prints as: the language's marks, the inner ones around the 'word'
QUOTES = {
    "fr": "«\u00a0Il dit “oui” ce soir\u00a0»",
    "de": "„Er sagt ‚ja‘ heute“",
    "ru": "«Он сказал „да“ сегодня»",
    "ja": "「彼は『はい』と言った」",
}


def language_pack(packs: Path, language: str) -> Path:
    """Turn the tiny pack into a one-card pack in `language`; return its folder."""
    family, title, deck, name, quote, label, text = PACKS[language]
    pack = packs / "mini"
    (pack / "game.yaml").write_text(GAME.format(title=title, language=language, family=family,
                                                deck=deck), encoding="utf-8")
    (pack / "spells.yaml").write_text(CARDS.format(name=name, quote=quote, label=label,
                                                   text=text), encoding="utf-8")
    return pack


def built_texts(packs: Path, out: Path, language: str) -> list[str]:
    """Validate the language's pack (nothing missing: no glyph, no word), build it, and the
    text of its cards PDF's pages, white space removed."""
    language_pack(packs, language)
    found = [item for item in validate_game("mini", packs, out_root=out).findings
             if item.code != "W027"]  # Greek has no table
    if language == "ja":  # the extra's faces are regular only: bold prints regular
        assert {item.code for item in found} == {"W079"}
        assert all("'Noto Sans JP' has no bold face" in item.message for item in found)
        found = []
    assert [str(item) for item in found] == []
    build_game("mini", out_root=out, cards_dir=packs)
    return page_texts(out / "mini" / "cards-a4.pdf")


def raw_text(pdf: Path, page: int = 0) -> str:
    """A page's text as PDFium extracts it, white space kept."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        return str(document[page].get_textpage().get_text_range())
    finally:
        document.close()


@pytest.mark.parametrize("language", languages())
def test_every_table_has_every_key_of_english(language: str) -> None:
    english, mine = _table("en"), _table(language)
    assert sorted(mine) == sorted(english)
    for section in ("calibrate", "changelog"):
        assert sorted(mine[section]) == sorted(english[section]), section
    assert all(str(value).strip() for key, value in mine.items()
               if key not in ("calibrate", "changelog", "label_gap"))


def test_the_tables_of_issue_33_are_there() -> None:
    wanted = ["en", "zh-CN", "zh-TW", "ja", "ko", "es", "fr", "de", "it", "pt-BR", "ru", "pl",
              "he"]
    assert sorted(wanted) == sorted(languages())
    assert table_name("ja-JP") == "ja" and table_name("zh-tw") == "zh-TW"
    assert table_name("pt-BR") == "pt-BR" and table_name("nl") is None
    assert (LANG_DIR / "fr.yaml").read_text(encoding="utf-8").startswith("# Words the shared")


@pytest.mark.parametrize("language", sorted(QUOTES))
def test_a_card_prints_its_languages_quotes(packs: Path, tmp_path: Path,
                                            language: str) -> None:
    texts = built_texts(packs, tmp_path / "out", language)
    assert "".join(QUOTES[language].split()) in texts[0]
    if language == "fr":  # the no-break spaces inside the guillemets, as typed in the table
        assert QUOTES["fr"] in raw_text(tmp_path / "out" / "mini" / "cards-a4.pdf")
    _, _, _, name, _, label, text = PACKS[language]
    assert "".join(name.split()) in texts[0] and "".join(f"{label} {text}".split()) in texts[0]


@pytest.mark.parametrize("language", ["ru", "el"])
def test_greek_and_cyrillic_print_in_the_projects_faces(packs: Path, tmp_path: Path,
                                                        language: str) -> None:
    texts = built_texts(packs, tmp_path / "out", language)
    _, title, _, name, _, label, text = PACKS[language]
    for words in (title, name, label, text):
        assert "".join(words.split()) in texts[0], words
    registry = fonts.load_fonts()
    family = PACKS[language][0]
    assert {ord(char) for char in text + name} <= registry.characters(family)


def test_a_missing_extra_is_an_error_naming_it(packs: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    registry = tmp_path / "fonts.yaml"
    registry.write_text((FONTS_DIR / "fonts.yaml").read_text(encoding="utf-8").replace(
        "package:pylopdf_fonts_jp/", "package:pnp_no_such_font_package/"), encoding="utf-8")
    monkeypatch.setattr(fonts, "REGISTRY", registry)
    assert fonts.load_fonts().missing == {"ja"}
    pack = language_pack(packs, "ja")
    found = [str(item) for item in validate_game("mini", packs, out_root=tmp_path / "v").findings]
    assert found[0] == (f"{pack / 'game.yaml'}:4: error: E135: language 'ja' needs the "
                        "Japanese fonts, which are not installed: pip install "
                        "'pnp-generator[ja]'")
    assert all("E135" not in line for line in found[1:])
    language_pack(packs, "fr")  # a language whose faces are the project's own
    assert not [item for item in validate_game("mini", packs, out_root=tmp_path / "v").findings
                if item.code == "E135"]


def test_each_cjk_language_sets_its_own_face_first() -> None:
    registry = fonts.load_fonts()
    for language, sans, serif in (("ja", "Noto Sans JP", "Noto Serif JP"),
                                  ("ko-KR", "Noto Sans KR", "Noto Serif KR"),
                                  ("zh-TW", "Noto Sans TC", "Noto Serif TC")):
        assert registry.stack("Noto Sans Latin", language) == (sans, "Noto Sans Latin")
        assert registry.stack("Noto Serif Latin", language) == (serif, "Noto Serif Latin")
        assert registry.stack(sans, language) == (sans,)  # set alone, its Latin serving
        assert registry.stack(sans, "en") == ("Noto Sans Latin", sans)
    assert registry.stack("Noto Sans Latin", "zh-CN") == ("Noto Sans SC", "Noto Sans Latin")
    assert registry.stack("Noto Sans Latin", "fr") == ("Noto Sans Latin", "Noto Sans SC")


def test_direction_of_a_language() -> None:
    assert [direction(tag) for tag in ("he", "ar-EG", "fa", "az-Arab", "en", "ja", "uz-Latn")
            ] == ["rtl", "rtl", "rtl", "rtl", "ltr", "ltr", "ltr"]


def test_a_hebrew_card_is_set_right_to_left(packs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    texts = built_texts(packs, out, "he")
    _, _, _, name, _, label, text = PACKS["he"]
    assert "".join(name.split()) in texts[0]  # the logical order, as it is read
    assert "".join(f"{label} {text}".split()) in texts[0]
    assert "הואאמר’כן’הערב" in texts[0].translate({ord("‘"): "’"})  # PDFium mirrors ’ to ‘
    pdf = out / "mini" / "cards-a4.pdf"
    first, second = (word_box(pdf, word) for word in ("גורם", "נזק"))
    assert first[0] > second[2]  # the first word is right of the second, on the same line
    assert abs(first[1] - second[1]) < 3  # on the same line
    label_box = word_box(pdf, label)
    card = card_box(pdf)
    assert card[2] - label_box[2] < 3 / 25.4 * 72  # the text starts at the right edge


def word_box(pdf: Path, word: str) -> tuple[float, float, float, float]:
    """Where a word of the first page is drawn: left, bottom, right, top, in points."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        page = document[0].get_textpage()
        text = page.get_text_range()
        at = text.index(word)
        boxes = [page.get_charbox(index) for index in range(at, at + len(word))]
    finally:
        document.close()
    return (min(box[0] for box in boxes), min(box[1] for box in boxes),
            max(box[2] for box in boxes), max(box[3] for box in boxes))


def card_box(pdf: Path) -> tuple[float, float, float, float]:
    """The span of the first page's text: left, bottom, right, top, in points."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        page = document[0].get_textpage()
        boxes = [page.get_charbox(index) for index in range(page.count_chars())
                 if not page.get_text_range(index, 1).isspace()]
    finally:
        document.close()
    return (min(box[0] for box in boxes), min(box[1] for box in boxes),
            max(box[2] for box in boxes), max(box[3] for box in boxes))
