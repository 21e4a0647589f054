"""Standees: the front upright below the fold, its mirror above, the fold between the heads,
the feet and the slot marks where they go, read off the built PDF; bad names and a standee
too tall for the paper as findings at their line of game.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image

from generator.layout.workers import Workers
from generator.pipeline.build import BuildOptions, build_game, check

from .conftest import MM, edit, flat, give_template, page_texts, pixel_mm, render_page

A4 = (210.0, 297.0)
POKER = (63.5, 88.9)
FOOT = 12.0  # the schema's default
MARKER = (255, 0, 255)
# A magenta square at the top left of the face's safe zone (3.2 to 12.2 mm into the card).
MARKED = ('<div style="position: absolute; left: 0; top: 0; width: 9mm; height: 9mm; '
          'background: #ff00ff"></div>')


def _standees(pack: Path, entries: str) -> None:
    """Give the tiny pack `standees:` entries (YAML list items, two spaces in)."""
    with (pack / "game.yaml").open("a", encoding="utf-8") as game:
        game.write("standees:\n" + entries)


def _build(packs: Path, pool: Workers, tmp_path: Path, out: str = "out") -> Path:
    """Build the tiny pack's standees; the PDF's path."""
    build_game("mini", BuildOptions(only=("standees",)), out_root=tmp_path / out,
               cards_dir=packs, workers=pool)
    return tmp_path / out / "mini" / "standees-a4.pdf"


def _text(pdf: Path, left: float, top: float, right: float, bottom: float) -> str:
    """The text PDFium finds in a box of the first page (mm from its top left)."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        page = document[0]
        height = page.get_height()
        return flat(page.get_textpage().get_text_bounded(
            left * MM, height - bottom * MM, right * MM, height - top * MM))
    finally:
        document.close()


def _near(colour: tuple[int, ...], wanted: tuple[int, ...], within: int = 40) -> bool:
    """Whether a pixel is a colour, give or take anti-aliasing."""
    return all(abs(a - b) <= within for a, b in zip(colour, wanted, strict=True))


def _dark(image: Image.Image, at: float, start: float, end: float, dpi: int,
          down: bool = True) -> list[float]:
    """Where (mm) a line of pixels is dark between `start` and `end`: the column `at` mm from
    the left, read down; or the row `at` mm from the top, read across."""
    fixed = round(at / 25.4 * dpi)
    found = []
    for moving in range(round(start / 25.4 * dpi), round(end / 25.4 * dpi)):
        colour = image.getpixel((fixed, moving) if down else (moving, fixed))
        assert isinstance(colour, tuple)
        if sum(colour[:3]) < 200:
            found.append((moving + 0.5) * 25.4 / dpi)
    return found


@pytest.fixture
def one_standee(packs: Path, pool: Workers, tmp_path: Path) -> Path:
    """The fireball (S1) as one standee on feet, on a white card with a magenta marker at
    its face's top left; the PDF built."""
    pack = packs / "mini"
    give_template(pack, MARKED)
    edit(pack / "game.yaml", 'color: "#333333"', 'color: "#ffffff"')
    _standees(pack, "  - {id: hero, deck: spells, cards: [S1]}\n")
    return _build(packs, pool, tmp_path)


def _figure() -> tuple[float, float, float]:
    """Where the one tab standee sits on A4, centred: its left, top, and the fold's height."""
    width, height = POKER[0], 2 * POKER[1] + 2 * FOOT
    left, top = (A4[0] - width) / 2, (A4[1] - height) / 2
    return left, top, top + FOOT + POKER[1]


def test_the_front_is_upright_below_the_fold_and_its_mirror_above(one_standee: Path) -> None:
    """The card's name is in the lower panel and, drawn mirrored, in the upper; the marker at
    the face's top left lands at the front panel's top left, by the fold, and at the back
    panel's bottom left, by the fold too: the back is the front reflected across the fold,
    so it reads upright from behind once folded (a mere turn would put it top right)."""
    left, top, fold = _figure()
    right = left + POKER[0]
    assert "火球术" in _text(one_standee, left, fold, right, fold + POKER[1])
    assert "火球术" in _text(one_standee, left, fold - POKER[1], right, fold)
    image = render_page(one_standee, 0, dpi=100)
    assert _near(pixel_mm(image, left + 6, fold + 6, 100), MARKER)  # front, top left
    assert _near(pixel_mm(image, left + 6, fold - 6, 100), MARKER)  # back, bottom left
    for x, y in ((right - 6, fold - 6), (left + 6, fold - POKER[1] + 6),
                 (right - 6, fold - POKER[1] + 6), (right - 6, fold + 6)):
        assert not _near(pixel_mm(image, x, y, 100), MARKER), (x, y)


def test_the_folds_lie_on_the_panels_edges(one_standee: Path) -> None:
    """A dashed line crosses the standee at the heads and at each foot, each within 0.1 mm
    of the panel's edge; so does the cut line's left side."""
    left, top, fold = _figure()
    dpi = 600
    image = render_page(one_standee, 0, dpi=dpi)
    x = left + 21.5  # on a dash (3 mm on, 2 off from the left end), clear of the marker
    for edge in (top + FOOT, fold, fold + POKER[1]):
        dark = _dark(image, x, edge - 1, edge + 1, dpi)
        assert dark, edge
        assert abs((min(dark) + max(dark)) / 2 - edge) < 0.1, (edge, dark)
        assert max(dark) - min(dark) < 0.3  # one hairline, not the face's edge
    for side in (left, left + POKER[0]):  # the cut line's left and right sides
        outline = _dark(image, top + FOOT + 20, side - 1, side + 1, dpi, down=False)
        assert outline and abs(sum(outline) / len(outline) - side) < 0.1, (side, outline)


def test_the_feet_are_below_the_front_and_above_the_back(one_standee: Path) -> None:
    """A hatched foot, its words telling what to do, at each end of the standee: the back's
    foot above it, the front's below, each as deep as `foot`."""
    left, top, _ = _figure()
    right, bottom = left + POKER[0], top + 2 * POKER[1] + 2 * FOOT
    words = "向内折，粘到底座上"
    assert words in _text(one_standee, left, top, right, top + FOOT)
    assert words in _text(one_standee, left, bottom - FOOT, right, bottom)
    image = render_page(one_standee, 0, dpi=100)
    for y in (top + 1, top + FOOT - 1, bottom - FOOT + 1, bottom - 1):
        shades = {sum(pixel_mm(image, left + x / 4, y, 100)) for x in range(4, 60)}
        assert max(shades) == 3 * 255 and min(shades) < 3 * 220, y  # hatched, not blank
    assert _near(pixel_mm(image, left + 5, top - 1.5, 100), (255, 255, 255))  # no bleed there


def test_a_slot_base_marks_its_slot_and_a_back_shows_the_card_back(
        packs: Path, pool: Workers, tmp_path: Path) -> None:
    """`base: slot` has no feet: the standee is two panels long, here turned a quarter (four
    fit a page so, three upright), the front on the left; the base's 25 mm slot is marked on
    each panel's bottom edge; `back: true` puts the card's red back beyond the fold."""
    pack = packs / "mini"
    edit(pack / "game.yaml", 'color: "#333333"', 'color: "#ffffff"')
    _standees(pack, "  - {id: hero, deck: spells, cards: [S1], base: slot, back: true}\n")
    pdf = _build(packs, pool, tmp_path)
    length, width = 2 * POKER[1], POKER[0]
    left, top = (A4[0] - length) / 2, (A4[1] - width) / 2
    fold, right, middle = left + POKER[1], left + length, top + width / 2
    assert "向内折" not in page_texts(pdf)[0]
    for near, far in ((left, left + 3), (right - 3, right)):
        assert _text(pdf, near, top, far, top + width) == "底座"
        assert _text(pdf, near, top, far, middle - 13) == ""  # within the slot's 25 mm
    assert "造成3点伤害" in _text(pdf, left, top, fold, top + width)  # the fireball turned
    assert "红" in _text(pdf, fold, top, right, top + width)
    image = render_page(pdf, 0, dpi=100)
    assert _near(pixel_mm(image, fold + POKER[1] / 2, middle + 20, 100), (255, 0, 0))
    assert _near(pixel_mm(image, fold - POKER[1] / 2, middle + 20, 100), (255, 255, 255))
    image = render_page(pdf, 0, dpi=300)
    for y in (middle - 12.35, middle + 12.35):  # the slot's ends: 0.3 mm ticks off the edge
        assert _dark(image, y, left + 0.5, left + 2.5, 300, down=False), y
        assert not _dark(image, y - 1, left + 0.5, left + 2.5, 300, down=False), y


def test_a_template_and_size_of_its_own_lay_its_faces_out_again(
        packs: Path, pool: Workers, tmp_path: Path) -> None:
    """A standee with its own `template` and `size` has its face rendered and laid out for
    it (the template sees the tarot size), front below the fold and mirrored above."""
    pack = packs / "mini"
    template = pack / "templates" / "cards" / "figure.html.j2"
    template.parent.mkdir(parents=True)
    template.write_text('<div class="face"><div class="safe"><p>FIGURE {{ card.name }} '
                        '{{ size.width }}x{{ size.height }}</p></div></div>\n', encoding="utf-8")
    _standees(pack, "  - {id: big, deck: spells, cards: [S2], template: figure, size: tarot}\n")
    pdf = _build(packs, pool, tmp_path)
    width, panel = 70.0, 120.0
    left, top = (A4[0] - width) / 2, (A4[1] - 2 * panel - 2 * FOOT) / 2
    fold = top + FOOT + panel
    assert _text(pdf, left, fold, left + width, fold + panel) == "FIGURE治疗术70x120"
    assert _text(pdf, left, fold - panel, left + width, fold) == "FIGURE治疗术70x120"
    assert "cost" not in page_texts(pdf)[0]  # not the deck's own face


def test_many_standees_share_a_page(packs: Path, pool: Workers, tmp_path: Path) -> None:
    """Every card's qty, or `count`, of each: the four spells and two more of S1, three
    abreast on each of two A4 pages; the manifest counts them; built again, byte for byte
    the same."""
    _standees(packs / "mini", "  - {id: all, deck: spells}\n"
                              "  - {id: more, deck: spells, cards: [S1], count: 2}\n")
    pdf = _build(packs, pool, tmp_path)
    pages = page_texts(pdf)
    assert len(pages) == 2
    assert "".join(pages).count("火球术") == 2 * 3 and "".join(pages).count("冰冻术") == 2 * 2
    manifest = json.loads((pdf.parent / "manifest.json").read_text(encoding="utf-8"))
    [output] = [output for output in manifest["outputs"] if output["file"] == pdf.name]
    assert output["decks"] == {"all": {"faces": 4, "backs": 0}, "more": {"faces": 2, "backs": 0}}
    assert _build(packs, pool, tmp_path, "again").read_bytes() == pdf.read_bytes()


def test_unknown_names_are_errors_at_their_line(packs: Path) -> None:
    """A deck, a card, a size or a template a standee names that is not there is E043 (E022
    for the template) at its own line of game.yaml; so is an id two standees share."""
    pack = packs / "mini"
    _standees(pack, "  - id: a\n    deck: spellz\n"
                    "  - id: b\n    deck: spells\n    cards: [S1, S9]\n"
                    "  - id: c\n    deck: spells\n    size: huge\n"
                    "  - id: d\n    deck: spells\n    template: nothing\n"
                    "  - id: a\n    deck: spells\n")
    lines = (pack / "game.yaml").read_text(encoding="utf-8").splitlines()
    game = pack / "game.yaml"

    def line(text: str, after: str) -> int:
        return lines.index(text, lines.index(after)) + 1

    found = [str(finding) for finding in check("mini", packs).findings
             if finding.code in ("E043", "E022")]
    assert found == [
        f"{game}:{line('    deck: spellz', '  - id: a')}: error: E043: standee 'a': no deck "
        "'spellz' (decks: spells)",
        f"{game}:{line('    cards: [S1, S9]', '  - id: b')}: error: E043: standee 'b': deck "
        "'spells' has no card 'S9'",
        f"{game}:{line('    size: huge', '  - id: c')}: error: E043: standee 'c': no size "
        "'huge' in print.yaml nor the pack's `sizes`",
        f"{game}:{line('    template: nothing', '  - id: d')}: error: E022: standee 'd': no "
        "template 'cards/nothing.html.j2'",
        f"{game}:{line('  - id: a', '  - id: d')}: error: E043: two standees have the id 'a'",
    ]


def test_a_standee_too_tall_for_the_paper_is_a_warning(packs: Path) -> None:
    """Two 140 mm panels and their feet (304 mm) fit A4 neither upright nor turned: W044 at
    the standee's line, and it is left out."""
    pack = packs / "mini"
    with (pack / "game.yaml").open("a", encoding="utf-8") as game:
        game.write("sizes:\n  tall: {width: 60, height: 140}\n")
    _standees(pack, "  - id: giant\n    deck: spells\n    size: tall\n")
    line = (pack / "game.yaml").read_text(encoding="utf-8").splitlines().index(
        "  - id: giant") + 1
    checked = check("mini", packs)
    assert [str(finding) for finding in checked.findings if finding.code == "W044"] == [
        f"{pack / 'game.yaml'}:{line}: warning: W044: standee 'giant': 60×304 mm does not fit "
        "on a4 (198×285 mm inside the margins), upright or turned: it is left out (give it a "
        "smaller `size`, or `base: slot`)"]
    [kind] = [kind for kind in checked.kinds if kind.name == "standees"]
    assert kind.plan() == []
