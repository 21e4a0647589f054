"""The rulebook: bound to the data, contents that point at the right pages, booklet order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from generator import DEFAULT_GAME
from generator.check.findings import PackError
from generator.outputs.rulebook import back_cover_order, markdown_html
from generator.pack.load import load_game
from generator.pipeline.build import BuildOptions, build_game, validate_game
from generator.plan.impose import booklet_order

from .conftest import MM, flat, give_rulebook, page_texts, render_page

RULEBOOK = BuildOptions(only=("rulebook",))


def build_rulebook(name: str, options: BuildOptions = RULEBOOK, **where: Path) -> None:
    """Only the rulebook of a game, as `pnp rulebook` builds it."""
    build_game(name, options, **where)

_ENTRY = re.compile(r"(.*\D)\s*(\d+)$")


def _contents(pdf: Path) -> list[tuple[str, int]]:
    """The table of contents as printed: (heading, page number) per entry, from the pages
    between the cover and the first chapter (the dots between are drawn, not text)."""
    reader = PdfReader(pdf)
    first = min(page for _, page in _landed(pdf))
    entries = []
    for page in reader.pages[1:first - 1]:
        lines = (page.extract_text() or "").splitlines()
        found = [m for m in (_ENTRY.match(line.strip()) for line in lines) if m]
        entries += [(flat(m.group(1)), int(m.group(2))) for m in found]
    return entries


def _landed(pdf: Path) -> list[tuple[str, int]]:
    """Where each heading really is: the PDF outline WeasyPrint writes from the headings."""
    reader = PdfReader(pdf)
    found = []

    def walk(items: list) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                found.append((flat(item.title), reader.get_destination_page_number(item) + 1))

    walk(reader.outline)
    return found


def test_contents_page_numbers_match_where_headings_land(default_a4: Path) -> None:
    pdf = default_a4 / "rulebook-a4.pdf"
    contents, landed = _contents(pdf), _landed(pdf)
    assert len(contents) > 10
    assert contents == [entry for entry in landed if entry in contents]
    assert [title for title, _ in contents] == [
        title for title, _ in landed if title in dict(contents)]
    texts = page_texts(pdf)
    for title, page in contents:
        assert title in texts[page - 1], (title, page)


def test_the_rulebook_quotes_the_data(default_a4: Path) -> None:
    text = "".join(page_texts(default_a4 / "rulebook-a4.pdf"))
    game = load_game(DEFAULT_GAME)
    for item in game.spec.components:
        assert flat(f"{item.name}{item.count}") in text, item.name
    for deck in game.decks:
        for card in deck.cards:
            assert flat(card.name) in text, card.id  # the card gallery
    assert "{{" not in text and "**" not in text


def test_a_reference_to_missing_data_is_a_finding_at_its_line(packs: Path) -> None:
    give_rulebook(packs)
    rulebook = packs / "mini" / "rulebook.md"
    text = rulebook.read_text(encoding="utf-8")
    rulebook.write_text(text.replace("{{ card.cost }}", "{{ card.costs }}"), encoding="utf-8")
    [finding] = validate_game("mini", packs, out_root=packs.parent / "out").findings
    assert str(finding) == (f"{rulebook}:8: error: E061: rulebook: "
                            "'generator.pack.schema.Card_spells object' has no attribute 'costs'")


def test_cover_has_a_qr_code_when_the_game_has_a_url(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    game = packs / "mini" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "players: 1-2人\n", "players: 1-2人\nurl: https://example.org/mini\ndate: 2026-01-30\n"),
        encoding="utf-8")
    build_rulebook("mini", out_root=tmp_path, cards_dir=packs)
    pdf = tmp_path / "mini" / "rulebook-a4.pdf"
    cover = page_texts(pdf)[0]
    assert cover == flat("测试小包 t1 · 2026-01-30 1-2人 https://example.org/mini")
    page = render_page(pdf, 0, dpi=100)
    width, height = page.size
    qr = page.crop((width // 2 - 40, height - 260, width // 2 + 40, height - 80))
    assert qr.convert("L").getextrema()[0] == 0  # black QR modules around the foot's middle


def test_booklet_sheets_are_in_saddle_stitch_order(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    options = BuildOptions(only=("rulebook",), switches=frozenset({"booklet"}))
    build_rulebook("mini", options, out_root=tmp_path, cards_dir=packs)
    flat_pages = page_texts(tmp_path / "mini" / "rulebook-a4.pdf")
    booklet = PdfReader(tmp_path / "mini" / "rulebook-booklet-a4.pdf")
    assert float(booklet.pages[0].mediabox.width) == pytest.approx(297 * MM, abs=0.05)
    assert float(booklet.pages[0].mediabox.height) == pytest.approx(210 * MM, abs=0.05)
    for side in booklet.pages:  # the two A5 pages side by side: the folded booklet's spread
        for box in (side.trimbox, side.bleedbox):
            assert [round(float(value) / MM, 1) for value in box] == [0, 0, 297, 210]
    order = back_cover_order(len(flat_pages) + 1)  # the booklet's pages and its back cover
    assert len(booklet.pages) == len(order) and len(order) % 2 == 0
    for side, (left, right) in zip(booklet.pages, order, strict=True):
        text = flat(side.extract_text() or "")
        for index in (left, right):
            if index is not None and index < len(flat_pages):
                assert flat_pages[index][:12] in text


def test_booklet_order_reads_in_sequence() -> None:
    assert booklet_order(8) == [(7, 0), (1, 6), (5, 2), (3, 4)]
    assert booklet_order(5) == [(None, 0), (1, None), (None, 2), (3, 4)]
    folded = [page for side in booklet_order(12) for page in side]
    assert sorted(folded) == list(range(12))
    # a back cover stays the outside back: the blanks go in before it
    assert back_cover_order(5) == [(4, 0), (1, None), (None, 2), (3, None)]
    assert back_cover_order(8) == booklet_order(8)


def test_no_rulebook_is_a_clean_error(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    (packs / "mini" / "rulebook.md").unlink()
    with pytest.raises(PackError, match="the game has no rulebook"):
        build_rulebook("mini", out_root=tmp_path, cards_dir=packs)


def test_contents_entries_link_to_their_pages(default_a4: Path) -> None:
    """Contents and chapters are laid out apart; each entry still links to the page it names."""
    pdf = default_a4 / "rulebook-a4.pdf"
    reader = PdfReader(pdf)
    number = {page.indirect_reference.idnum: index + 1 for index, page in enumerate(reader.pages)}
    first = min(page for _, page in _landed(pdf))
    targets = []
    for page in reader.pages[1:first - 1]:
        links = [annot.get_object() for annot in page.get("/Annots", [])]
        links.sort(key=lambda link: -float(link["/Rect"][3]))  # top to bottom
        targets += [number[link["/Dest"][0].idnum] for link in links]
    assert targets == [page for _, page in _contents(pdf)]


def test_the_gallery_captions_a_back_in_the_packs_words(packs: Path, tmp_path: Path) -> None:
    give_rulebook(packs)
    game = packs / "mini" / "game.yaml"
    build_rulebook("mini", out_root=tmp_path / "before", cards_dir=packs)
    assert flat("法术 · 背面") in "".join(page_texts(tmp_path / "before" / "mini" /
                                                   "rulebook-a4.pdf"))
    game.write_text(game.read_text(encoding="utf-8") + "rulebook: {back: 反面}\n",
                    encoding="utf-8")
    build_rulebook("mini", out_root=tmp_path / "after", cards_dir=packs)
    text = "".join(page_texts(tmp_path / "after" / "mini" / "rulebook-a4.pdf"))
    assert flat("法术 · 反面") in text and "背面" not in text


def test_markdown_cut_into_chapters_reads_as_one_text() -> None:
    """Chapters are converted apart: a `## ` line in a code block starts none, anchors number
    on across chapters, and a link defined in a later chapter still resolves."""
    text = "# 书\n\n## 一\n\n```\n## 不是标题\n```\n\n[见二][二]\n\n## 二\n\n[二]: #h3\n"
    html, headings = markdown_html(text)
    assert [(h.level, h.text, h.id) for h in headings] == [(1, "书", "h1"), (2, "一", "h2"),
                                                          (2, "二", "h3")]
    assert "<pre><code>## 不是标题\n</code></pre>" in html
    assert '<a href="#h3">见二</a>' in html
    assert html.count(' id="h') == 3
