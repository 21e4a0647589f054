"""`typography: {quotes: smart}`: straight quotes, `--` and `...` in card text and the rulebook
print as the language writes them, read off the PDFs; without it nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.pack.load import load_game
from generator.pipeline.build import BuildOptions, build_game, validate_game
from generator.text.language import table
from generator.text.typography import MARK_KEYS, typographed

from .conftest import edit, give_rulebook, give_rules, page_texts
from .test_language import english_pack

EN = tuple(table("en")[key] for key in MARK_KEYS)
ZH = tuple(table("zh-CN")[key] for key in MARK_KEYS)
FR = ("«\u00a0", "\u00a0»", "‹\u00a0", "\u00a0›")  # a French pack's `words:` (languages.md)
SMART = "typography: {quotes: smart}\n"
TYPED = """He said "hi" -- it's here..."""
PRINTED = "He said “hi” – it’s here…"


@pytest.mark.parametrize(("text", "marks", "printed"), [
    (TYPED, EN, PRINTED),
    ("'Single' and \"double 'inner'\" --- the players' roll... (a) (b) (c)", EN,
     "‘Single’ and “double ‘inner’” — the players’ roll… (a) (b) (c)"),
    ('"你好"', ZH, "「你好」"),
    ('他说"你好"。他说"用\'Go\'语言"就走了', ZH, "他说「你好」。他说「用『Go』语言」就走了"),
    ('**"Bold"**, `"code"`, :coin: and \\* stay, & <b>', EN,
     "**“Bold”**, `“code”`, :coin: and \\* stay, & <b>"),  # card text is not Markdown
    ('Il dit "oui".', FR, "Il dit «\u00a0oui\u00a0»."),
    ("a\n'b'\n", EN, "a\n‘b’\n"),
    (TYPED, None, TYPED),
])
def test_what_typography_sets(text: str, marks: tuple[str, str, str, str] | None,
                              printed: str) -> None:
    """Quotes as the language's marks (quotes between CJK text paired too), an apostrophe as
    ’, dashes and the ellipsis; (c) stays a choice, not ©; off, the text is as typed."""
    assert typographed(text, marks) == printed


def quoted(text: str) -> str:
    """Text as a YAML string."""
    return json.dumps(text, ensure_ascii=False)


def smart_english_pack(packs: Path, smart: bool) -> Path:
    """The English pack with straight marks in a card's name and section, a list, a track's
    rows and an id; its rulebook with a line and a code span of them; typography on when
    `smart`."""
    pack = english_pack(packs)
    if smart:
        edit(pack / "game.yaml", "decks:\n", SMART + "decks:\n")
    edit(pack / "spells.yaml", "- id: S1\n  name: Fireball\n",
         "- id: S--1\n  name: Dragon's Fire\n")
    edit(pack / "spells.yaml", "Deal **3** damage.", quoted(TYPED))
    edit(pack / "spells.yaml", "[Fire, Air]", """['"Fire" -- Air']""")
    edit(pack / "tracks.yaml", "text: The end}", "text: 'The \"end\"...'}")
    with (pack / "rulebook.md").open("a", encoding="utf-8") as rulebook:
        rulebook.write(f'\n{TYPED}\n\nType `"quotes" -- as is...` in code.\n\n'
                       "## The \"Last\" Chapter\n\n{{ cards['S--1'].name }} ends it.\n")
    return pack


def built_texts(packs: Path, tmp_path: Path) -> list[str]:
    """The pack's cards, boards and rulebook as their PDFs' text, white space removed."""
    build_game("mini", out_root=tmp_path, cards_dir=packs)
    return ["".join(page_texts(tmp_path / "mini" / f"{name}-a4.pdf"))
            for name in ("cards", "boards", "rulebook")]


def flat(text: str) -> str:
    """Text without white space, as `page_texts` gives it."""
    return "".join(text.split())


def test_an_english_pack_prints_smart_quotes(packs: Path, tmp_path: Path) -> None:
    """Card text, names, lists, a track's rows and the rulebook get the marks; the id, the
    rulebook's code span, and its Jinja keep theirs."""
    smart_english_pack(packs, smart=True)
    cards, boards, rulebook = built_texts(packs, tmp_path)
    assert flat(f"Effect {PRINTED}") in cards
    assert "Dragon’sFire" in cards and "Schools“Fire”–Air" in cards
    assert "S--1" in cards and "Dragon's" not in cards and '"' not in cards
    assert "The“end”…" in boards
    assert flat(PRINTED) in rulebook
    assert 'Type"quotes"--asis...incode.' in rulebook
    assert rulebook.count("The“Last”Chapter") >= 3  # its contents entry, heading, running head
    assert "Dragon’sFireendsit." in rulebook


def test_without_typography_nothing_changes(packs: Path, tmp_path: Path) -> None:
    smart_english_pack(packs, smart=False)
    cards, boards, rulebook = built_texts(packs, tmp_path)
    assert flat(f"Effect {TYPED}") in cards and "Dragon'sFire" in cards
    assert 'The"end"...' in boards
    assert flat(TYPED) in rulebook and 'The"Last"Chapter' in rulebook
    assert "Dragon’s" not in cards + rulebook and "The“end”" not in boards
    assert flat(PRINTED) not in cards + rulebook


def test_a_chinese_pack_prints_corner_brackets(packs: Path, tmp_path: Path) -> None:
    """zh-CN's marks, in card text and the rulebook; a pack's `words:` gives its own."""
    give_rulebook(packs)
    pack = packs / "mini"
    edit(pack / "game.yaml", "decks:\n", SMART + "decks:\n")
    edit(pack / "spells.yaml", "造成 **3** 点伤害。<b>不是标记</b>",
         quoted('"你好"，他说"走\'吧\'"。'))
    with (pack / "rulebook.md").open("a", encoding="utf-8") as rulebook:
        rulebook.write('\n他说"你好"。\n')
    build_game("mini", BuildOptions(only=("sheets", "rulebook")), out_root=tmp_path / "zh",
               cards_dir=packs)
    cards = "".join(page_texts(tmp_path / "zh" / "mini" / "cards-a4.pdf"))
    assert "效果「你好」，他说「走『吧』」。" in cards
    assert "他说「你好」。" in "".join(page_texts(tmp_path / "zh" / "mini" / "rulebook-a4.pdf"))
    edit(pack / "game.yaml", "decks:\n", 'words: {quote_open: "“", quote_close: "”"}\ndecks:\n')
    build_game("mini", BuildOptions(only=("sheets",)), out_root=tmp_path / "own",
               cards_dir=packs)
    cards = "".join(page_texts(tmp_path / "own" / "mini" / "cards-a4.pdf"))
    assert "效果“你好”，他说“走『吧』”。" in cards


def test_the_marks_need_glyphs_and_terms_still_match(packs: Path) -> None:
    """With typography on, a mark the body font lacks is an error at `typography`; a term of
    the rules matches card text typed straight or curly."""
    pack = give_rules(packs, "fire: {cost: 3}\nterms:\n  fire.cost: [\"it’s # mana\"]\n")
    game, spells = pack / "game.yaml", pack / "spells.yaml"
    edit(spells, "造成 **3** 点伤害。", "Fire -- it's 4 mana...")
    edit(game, "decks:\n", 'words: {quote_inner_open: "ꦏ"}\ndecks:\n')  # Javanese: no glyph
    missing = "error: E080: font 'Noto Sans SC' has no glyph for 'ꦏ' (U+A98F)"
    restated = f"{spells}:7: error: E090: 'it's 4 mana' says 4, but rule 'fire.cost' is 3"
    found = [str(f) for f in validate_game("mini", packs, out_root=packs.parent / "v").findings]
    assert found == [f"{game}:12: {missing}", restated]  # at `words:`, printed or not
    edit(game, "decks:\n", SMART + "decks:\n")
    line = game.read_text(encoding="utf-8").splitlines().index(SMART.strip()) + 1
    found = [str(f) for f in validate_game("mini", packs, out_root=packs.parent / "v").findings]
    assert found == [f"{game}:12: {missing}", f"{game}:{line}: {missing}", restated]


def test_a_spreadsheet_deck_is_typographed_but_its_ids_choices_and_data(packs: Path) -> None:
    """A CSV deck's text (in the tiny pack's zh-CN marks), a placeholder filled before; its
    id, a choice and a field no template prints stay as typed."""
    pack = give_rules(packs, "fire: {damage: 2}\n")
    game = pack / "game.yaml"
    edit(game, "decks:\n", SMART + "decks:\n")
    edit(game, "file: spells.yaml", "file: spells.csv")
    edit(game, "cost: {type: int, required: true}\n", "cost: {type: int, required: true}\n"
         "      school: {type: choice, choices: [\"it's\"]}\n"
         "      note: {type: str, printed: false}\n")
    (pack / "spells.csv").write_text(
        "id,name,cost,school,note,sections.0.text\n"
        "it's--1,\"Dragon's \"\"Fire\"\"\",3,it's,\"it's...\",Deal '{fire.damage}' -- ok...\n",
        encoding="utf-8")
    loaded = load_game("mini", packs)
    assert loaded.findings == []
    assert [card.model_dump(exclude_defaults=True) for card in loaded.decks[0].cards] == [
        {"id": "it's--1", "name": "Dragon’s 「Fire」", "cost": 3, "school": "it's",
         "note": "it's...", "sections": [{"text": "Deal 『2』 – ok…"}]}]
