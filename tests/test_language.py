"""Language tables: every word the shared templates print comes from the pack's language, or
from its `words:`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from generator.pipeline.build import BuildOptions, build_game, validate_game
from generator.text.language import FALLBACK, LANG_DIR, languages, table, table_name

from .conftest import edit, give_rulebook, page_texts

CJK = re.compile("[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]")  # CJK marks, kana, ideographs

ENGLISH_GAME = """\
# The tiny pack in English: a card with a quote, a motto and a labelled section, a draft, a
# track long enough to be tiled, and a rulebook with a gallery.
title: Little Test Pack
version: t1
date: 2026-01-30
players: 1-2 players
language: en
palette: {ink: "#000000", paper: "#ffffff"}
fonts: {body: Noto Sans SC, heading: Noto Sans SC, flavor: Noto Serif SC}
sizes:
  long-track: {width: 470, height: 40}
backs:
  red: {color: "#ff0000", accent: "#000000", text: R}
decks:
  - id: spells
    name: Spells
    file: spells.yaml
    size: poker
    template: card
    back: red
    count: 2
    color: "#333333"
    fields:
      cost: {type: int, required: true, label: Cost}
      schools: {type: list, label: Schools}
  - id: tracks
    name: Tracks
    file: tracks.yaml
    size: long-track
    template: track
    output: boards
    count: 1
    fields:
      first: {type: int, required: true}
      last: {type: int, required: true}
      start: {type: int, required: true}
      color: {type: str, required: true}
      marks: {type: rows}
      bands: {type: rows}
      cells: {type: rows}
"""

ENGLISH_CARDS = """\
- id: S1
  name: Fireball
  cost: 3
  schools: [Fire, Air]
  quote: Burn bright.
  motto: Ashes to ashes.
  sections:
    - label: Effect
      text: Deal **3** damage.
- id: S2
  name: Healing
  cost: 2
  draft: true
"""

ENGLISH_TRACK = """\
- id: T1
  name: Doom
  first: 0
  last: 30
  start: 4
  color: "#8e1f1c"
  marks:
    - {at: 20, text: The end}
  bands:
    - {min: 0, max: 9, text: Calm, color: "#3d6b35"}
  cells:
    - {at: 25, text: Storm, color: "#8e1f1c"}
"""

ENGLISH_RULEBOOK = """\
## Chapter one

Every spell has a cost. This pack holds {{ decks.spells|length }} spells.

## Chapter two

The game ends.
"""


def english_pack(packs: Path) -> Path:
    """Turn the tiny pack into an English one; return its folder."""
    pack = packs / "mini"
    (pack / "game.yaml").write_text(ENGLISH_GAME, encoding="utf-8")
    (pack / "spells.yaml").write_text(ENGLISH_CARDS, encoding="utf-8")
    (pack / "tracks.yaml").write_text(ENGLISH_TRACK, encoding="utf-8")
    (pack / "rulebook.md").write_text(ENGLISH_RULEBOOK, encoding="utf-8")
    return pack


def raw_texts(pdf: Path) -> list[str]:
    """Text of every page as a PDF reader extracts it, white space kept (U+3000 included)."""
    return [page.extract_text() or "" for page in PdfReader(pdf).pages]


def test_an_english_pack_prints_no_chinese_at_all(packs: Path, tmp_path: Path) -> None:
    english_pack(packs)
    result = build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    out = tmp_path / "out" / "mini"
    pdfs = sorted(out.glob("*.pdf"))
    assert [pdf.name for pdf in pdfs] == ["boards-a4.pdf", "cards-a4.pdf", "rulebook-a4.pdf"]
    for pdf in pdfs:
        for number, text in enumerate(raw_texts(pdf), start=1):
            assert not CJK.findall(text), (pdf.name, number, CJK.findall(text), text)
    cards = "".join(page_texts(out / "cards-a4.pdf"))
    assert "“Burnbright.”" in cards and "“Ashestoashes.”" in cards  # quote and motto
    assert "Cost3" in cards and "SchoolsFire,Air" in cards  # a list, with the language's separator
    assert "EffectDeal3damage." in cards
    assert "LittleTestPack·t1" in cards and "Draft·S2" in cards
    boards = "".join(page_texts(out / "boards-a4.pdf"))
    [boards_entry] = [entry for entry in result.manifest["outputs"]
                      if entry["file"] == "boards-a4.pdf"]
    assert boards_entry["decks"]["tracks"]["pieces"] == 2  # tiled: a glue strip
    assert "Start4" in boards and "Glue" in boards and "→" in boards and "1/2" in boards
    rulebook = page_texts(out / "rulebook-a4.pdf")
    assert rulebook[0] == "LittleTestPackt1·2026-01-301-2players"  # the cover
    assert rulebook[1].startswith("Contents")
    gallery = "".join(rulebook[2:])
    assert "Appendix:cardgallery" in gallery and "Spells·Back" in gallery
    assert "Tracks" in gallery and "Fireball" in gallery


def test_the_zh_cn_table_prints_chinese_words(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    game = packs / "mini" / "game.yaml"
    assert yaml.safe_load(game.read_text(encoding="utf-8"))["language"] == "zh-CN"
    edit(packs / "mini" / "spells.yaml", "  cost: 2\n", "  cost: 2\n  draft: true\n"
         "  quote: 回春\n")
    build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    out = tmp_path / "out" / "mini"
    cards = "".join(page_texts(out / "cards-a4.pdf"))
    assert "「回春」" in cards and "草案·S2" in cards and "测试小包·t1" in cards
    assert "效果\u3000造成" in "".join(raw_texts(out / "cards-a4.pdf"))
    rulebook = page_texts(out / "rulebook-a4.pdf")
    assert rulebook[1].startswith("目录")
    assert "附录：卡牌图鉴" in rulebook[-1] and "法术·背面" in rulebook[-1]


def test_a_pack_overrides_any_word(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    game = packs / "mini" / "game.yaml"
    edit(game, "decks:\n", 'words: {draft: 试印, quote_open: "『", quote_close: "』", '
         "contents: 目次, back: 反面}\ndecks:\n")
    edit(packs / "mini" / "spells.yaml", "  cost: 2\n", "  cost: 2\n  draft: true\n"
         "  quote: 回春\n")
    build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    out = tmp_path / "out" / "mini"
    cards = "".join(page_texts(out / "cards-a4.pdf"))
    assert "『回春』" in cards and "试印·S2" in cards
    assert "草案" not in cards and "「" not in cards
    rulebook = page_texts(out / "rulebook-a4.pdf")
    assert rulebook[1].startswith("目次") and "目录" not in "".join(rulebook)
    assert "法术·反面" in rulebook[-1] and "背面" not in rulebook[-1]


def test_an_unknown_word_is_an_error_at_its_line(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "decks:\n", "words:\n  draft: 试印\n  drafts: 试印\ndecks:\n")
    found = [str(f) for f in validate_game("mini", packs, out_root=packs.parent / "out").findings]
    accepted = ", ".join(sorted(table(FALLBACK)))
    assert found == [f"{game}:13: error: E010: unknown field 'words.drafts' (accepted: "
                     f"{accepted})"]
    assert accepted.startswith("back, cards, contents, draft, gallery, glue, ")


def test_a_language_without_a_table_prints_english_and_says_so(packs: Path,
                                                               tmp_path: Path) -> None:
    give_rulebook(packs)
    game = packs / "mini" / "game.yaml"
    edit(game, "language: zh-CN  #", "#")  # its line taken by a comment: the lines stay
    edit(game, "players: 1-2人\n", "players: 1-2人\nlanguage: nl\n")
    found = [str(f) for f in validate_game("mini", packs, out_root=tmp_path / "v").findings]
    words = ", ".join(sorted(table(FALLBACK)))
    assert found == [f"{game}:5: warning: W027: language 'nl' has no table in "
                     f"templates/lang/ (known: {', '.join(languages())}), so the shared "
                     f"templates print English for: {words} (give them in `words:`)"]
    build_game("mini", BuildOptions(only=("rulebook",)), out_root=tmp_path / "out",
               cards_dir=packs)
    assert page_texts(tmp_path / "out" / "mini" / "rulebook-a4.pdf")[1].startswith("Contents")
    given = yaml.safe_dump({"words": table("zh-CN")}, allow_unicode=True)
    edit(game, "decks:\n", given + "decks:\n")
    assert validate_game("mini", packs, out_root=tmp_path / "v").findings == []


@pytest.mark.parametrize("language", languages())
def test_every_table_gives_every_word(language: str) -> None:
    mine = yaml.safe_load((LANG_DIR / f"{language}.yaml").read_text(encoding="utf-8"))
    english = yaml.safe_load((LANG_DIR / f"{FALLBACK}.yaml").read_text(encoding="utf-8"))
    assert mine.keys() == english.keys()
    pages = [mine.pop(section) for section in ("calibrate", "changelog")]
    assert [page.keys() for page in pages] == [english[section].keys()
                                               for section in ("calibrate", "changelog")]
    assert all(isinstance(value, str) for value in [*mine.values(), *pages[0].values(),
                                                    *pages[1].values()])


def test_a_language_tag_finds_its_table() -> None:
    assert table_name("zh-CN") == table_name("zh-cn") == table_name("zh_CN") == "zh-CN"
    assert table_name("en-GB") == table_name("EN") == "en"
    assert table_name("nl") is None and table_name("zh-TW") == "zh-TW"
    assert table("zh-CN")["start"] == "起点" and table("nl") == table("en")
