"""Faces laid out once and drawn into every slot and gallery figure that shows them."""

from __future__ import annotations

from pathlib import Path

import pikepdf

from generator.pipeline.build import BuildOptions, build_game

from .conftest import edit, give_rulebook, page_texts, render_page


def _faces_drawn(pdf: Path) -> tuple[int, int]:
    """How many faces the pages draw, and how many distinct face forms they draw them from."""
    drawn, forms = 0, set()
    with pikepdf.open(pdf) as document:
        for page in document.pages:
            for name, form in page.Resources.get("/XObject", {}).items():
                if name.startswith("/Face"):
                    drawn += 1
                    forms.add(form.objgen)
    return drawn, len(forms)


def test_a_card_printed_nine_times_is_laid_out_and_stored_once(packs: Path,
                                                                tmp_path: Path) -> None:
    give_rulebook(packs)
    edit(packs / "mini" / "spells.yaml", "qty: 2", "qty: 9")  # 冰冻术 nine times, 11 cards
    edit(packs / "mini" / "game.yaml", "count: 4", "count: 11")
    result = build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    cards = tmp_path / "mini" / "cards-a4.pdf"
    # 11 fronts and 11 backs drawn from 3 faces and 3 backs, all laid out in one part
    assert _faces_drawn(cards) == (22, 6)
    output = result.output("cards-a4.pdf")
    assert (output.pages, output.laid_out, output.parts) == (4, 5, 5)
    fronts = "".join(page_texts(cards)[0::2])
    assert fronts.count("冰冻术") == 9 and fronts.count("火球术") == 1
    # the gallery draws each distinct face and the back once, from forms of its own file
    assert _faces_drawn(tmp_path / "mini" / "rulebook-a4.pdf") == (4, 4)


def test_a_packs_own_slot_class_leaves_the_sheets_alone(packs: Path, tmp_path: Path) -> None:
    """A pack may style its own `.slot` (a board's space, say): the imposition's boxes are
    named apart, so no border of it lands around every card on the sheet."""
    pack = packs / "mini"
    (pack / "style.css").write_text(".slot { border: 2mm solid #ff00ff; }\n", encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    build_game("mini", BuildOptions(), out_root=tmp_path, cards_dir=packs)
    for index in (0, 1):
        page = render_page(tmp_path / "mini" / "cards-a4.pdf", index, dpi=100)
        colours = {colour for _, colour in page.getcolors(1 << 24)}
        assert not any(r > 200 and g < 60 and b > 200 for r, g, b in colours), index
