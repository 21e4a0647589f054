"""Parts cached between builds: an edit lays out only what it changed, and the result is the
same, byte for byte, as a cold build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pypdfium2

from generator.pdf import assemble
from generator.pipeline.build import (
    BuildOptions,
    BuildResult,
    Executor,
    Workers,
    build_game,
    check,
    plan,
    run,
    validate_game,
)
from generator.pipeline.cache import KEEP_BUILDS, PartCache, input_digest, parts_folder
from generator.pipeline.manifest import is_fresh
from generator.pipeline.owned import MARK
from generator.plan import parts
from generator.plan.parts import LaidOut, stamp
from generator.text.fonts import face_key

from .conftest import MM, edit, give_rulebook, give_template, page_texts, render_page


def _build(packs: Path, out: Path) -> BuildResult:
    return build_game("mini", BuildOptions(), out_root=out, cards_dir=packs)


def _counts(result: BuildResult, file: str) -> tuple[int, int, int]:
    """An output's pages, how many parts it is made of, and how many were laid out anew."""
    output = result.output(file)
    return output.pages, output.laid_out, output.parts


def test_an_edit_relays_only_its_face_and_matches_a_cold_build(packs: Path,
                                                                 tmp_path: Path) -> None:
    give_rulebook(packs)
    spells, game = packs / "mini" / "spells.yaml", packs / "mini" / "game.yaml"
    edit(spells, "qty: 2", "qty: 12")  # 14 cards: two sheets of nine, each with its backs
    edit(game, "count: 4", "count: 14")
    warm = tmp_path / "warm"
    first = _build(packs, warm)
    # four sheets, and one part of the six distinct faces and backs, which both outputs draw
    assert _counts(first, "cards-a4.pdf") == (4, 5, 5)
    assert _counts(first, "rulebook-a4.pdf") == (5, 6, 6)

    edit(spells, "造成 **3** 点伤害", "造成 **5** 点伤害")  # S1's face only
    second = _build(packs, warm)
    # its faces part is laid out again, once for both; sheets, chapters, gallery page, cover
    # and folios are not
    assert _counts(second, "cards-a4.pdf") == (4, 1, 5)
    assert _counts(second, "rulebook-a4.pdf") == (5, 1, 6)
    assert second.laid_out == 1
    assert "造成5点伤害" in page_texts(warm / "mini" / "cards-a4.pdf")[0].replace(" ", "")

    cold = tmp_path / "cold"
    _build(packs, cold)
    for pdf in sorted((cold / "mini").glob("*.pdf")):
        assert (warm / "mini" / pdf.name).read_bytes() == pdf.read_bytes(), pdf.name

    edit(spells, "造成 **5** 点伤害", "造成 **3** 点伤害")  # undone: its parts are still kept
    third = _build(packs, warm)
    assert _counts(third, "cards-a4.pdf") == (4, 0, 5)
    assert _counts(third, "rulebook-a4.pdf") == (5, 0, 6)

    parts = parts_folder(warm, "mini")
    index = json.loads((parts / "index.json").read_text(encoding="utf-8"))
    live = {key for keys in index["outputs"].values() for key in keys}
    kept = {path.stem for path in parts.iterdir() if path.name != "index.json"}
    assert kept > live  # the second build's parts, no output's now, stay a while
    for _ in range(KEEP_BUILDS - 1):
        PartCache(parts).keep_only()  # builds that change nothing
    assert {path.stem for path in parts.iterdir() if path.name not in ("index.json", MARK)} == live


def test_a_part_whose_file_changed_is_not_taken_from_the_cache(tmp_path: Path) -> None:
    art = tmp_path / "art.png"
    art.write_bytes(b"one")
    cache = PartCache(tmp_path / "parts")
    cache.put("k", LaidOut(b"%PDF", 1, [], [stamp(art)], {}, [], []))
    assert cache.get("k") is not None
    art.write_bytes(b"two!")
    assert cache.get("k") is None
    assert (cache.hits, cache.misses) == (1, 1)


def test_rulebook_pages_carry_their_numbers_and_chapter(default_a4: Path) -> None:
    """Chapters are laid out apart; the folios printed over them number the pages as one."""
    document = pypdfium2.PdfDocument(default_a4 / "rulebook-a4.pdf")
    feet, heads = [], []
    for page in document:
        width, height = page.get_size()
        text = page.get_textpage()
        feet.append(text.get_text_bounded(0, 0, width, 12 * MM).strip())
        heads.append(text.get_text_bounded(0, height - 14 * MM, width, height).strip())
    assert len(feet) > 60
    assert feet == [""] + [str(number) for number in range(2, len(feet) + 1)]  # not the cover
    texts = page_texts(default_a4 / "rulebook-a4.pdf")
    chapter = next(i for i, text in enumerate(texts) if text.startswith("三、游戏准备"))
    assert heads[chapter] == heads[chapter + 1] == "三、游戏准备"
    assert heads[:3] == ["", "", ""]  # no running head over the cover and the contents
    assert heads[-1] == "附录：卡牌图鉴"


def test_a_changed_image_is_printed_anew(packs: Path, tmp_path: Path) -> None:
    """The HTML names the same file, so the part keeps its key; the image's new content must
    still reach the PDF, and the output must not be taken from an earlier join."""
    give_rulebook(packs)
    pack = packs / "mini"
    give_template(pack, '{% if card.art %}<img src="{{ card.art }}" '
                        'style="width: 20mm; height: 20mm">{% endif %}')
    edit(pack / "spells.yaml", "  cost: 2\n", "  cost: 2\n  art: art.svg\n")
    art = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" ' \
          'height="10" fill="{}"/></svg>'
    (pack / "art.svg").write_text(art.format("#12ab34"), encoding="utf-8")
    out = tmp_path / "out"
    _build(packs, out)
    (pack / "art.svg").write_text(art.format("#3456cd"), encoding="utf-8")
    assert _counts(_build(packs, out), "cards-a4.pdf") == (2, 1, 3)
    cold = tmp_path / "cold"
    _build(packs, cold)
    for name in ("cards-a4.pdf", "rulebook-a4.pdf"):  # both draw the face laid out again
        warm = (out / "mini" / name).read_bytes()
        assert warm == (cold / "mini" / name).read_bytes(), name
        last = len(pypdfium2.PdfDocument(out / "mini" / name)) - 1  # the gallery, or the fronts
        page = render_page(out / "mini" / name, last if name == "rulebook-a4.pdf" else 0, dpi=100)
        colours = {colour for _, colour in page.getcolors(1 << 24)}
        assert (0x34, 0x56, 0xCD) in colours and (0x12, 0xAB, 0x34) not in colours, name


def test_a_stylesheet_parsed_once_draws_the_same_pdf(packs: Path, monkeypatch) -> None:
    """Each part's stylesheet is parsed once per process and given apart from its document:
    the card sheet and a rulebook chapter come out byte for byte as laid out whole."""
    give_rulebook(packs)
    from generator.layout import engine as layout
    from generator.pipeline.build import check

    checked = check("mini", packs)
    sheets, rulebook = (kind.plan()[0] for kind in checked.kinds
                        if kind.name in ("sheets", "rulebook"))
    fonts = checked.job.fonts.files()
    for html in (sheets.parts[0].html, rulebook.parts[1].html):
        kept, rules = layout._split_style(html)
        assert "@font-face" in kept and "@font-face" not in rules
        assert ".card" in rules or "h2" in rules
        assert ".card" not in kept and "@page" not in kept
        split = layout.render(html, checked.game.root, fonts, 300).pdf
        monkeypatch.setattr(layout, "_split_style", lambda html: (html, ""))
        assert layout.render(html, checked.game.root, fonts, 300).pdf == split
        monkeypatch.undo()
    sheet = sheets.parts[0].html
    imports = sheet.replace("<style>", "<style>\n@import url('style.css');", 1)
    assert layout._split_style(imports) == (imports, "")  # the file it reads is recorded


def _kept(out: Path) -> dict[str, dict]:
    """The records of every part and joined output kept for the tiny pack, by file name."""
    folder = parts_folder(out, "mini")
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(folder.glob("*.json")) if path.name != "index.json"}


def _outputs(out: Path) -> dict[str, bytes]:
    """Every PDF of the tiny pack's output set, by name."""
    return {path.name: path.read_bytes() for path in sorted((out / "mini").glob("*.pdf"))}


def _swap(first: Path, second: Path) -> None:
    """Swap two files' contents."""
    data = first.read_bytes()
    first.write_bytes(second.read_bytes())
    second.write_bytes(data)


def test_damaged_parts_and_outputs_are_made_again_never_copied(packs: Path, tmp_path: Path,
                                                               pool) -> None:
    """A kept PDF truncated, flipped or swapped, a record that is not JSON, an index that is
    not one: each is told in one line, made again, and the outputs are a cold build's."""
    give_rulebook(packs)
    def build(out: Path) -> list[str]:
        said: list[str] = []
        build_game("mini", out_root=out, cards_dir=packs, progress=said.append, workers=pool)
        return [line for line in said if "cache:" in line]

    build(tmp_path / "cold")
    cold = _outputs(tmp_path / "cold")
    out = tmp_path / "warm"
    assert build(out) == []
    folder, kept = parts_folder(out, "mini"), _kept(out)
    faces = next(name for name, record in kept.items()
                 if any(anchor.startswith("face-") for anchor in record.get("anchors", [])))
    pdfs = {name for name in kept if (folder / f"{name}.pdf").read_bytes().startswith(b"%PDF")}
    joined = [name for name, record in kept.items() if "pages" not in record and name in pdfs]
    recodings = [name for name in kept if name not in pdfs]  # each output's recoded drawings
    sheets = [name for name, record in kept.items() if record.get("faces")]
    chapters = [name for name, record in kept.items() if "h3" in record.get("anchors", {})
                or "h1" in record.get("anchors", {})]
    assert len(joined) == 2 and len(recodings) == 2 and len(sheets) >= 2 and len(chapters) >= 2

    pdf = folder / f"{faces}.pdf"
    pdf.write_bytes(pdf.read_bytes()[:len(pdf.read_bytes()) // 2])  # truncated
    cards = next(name for name in joined if (folder / f"{name}.pdf").read_bytes() == cold[
        "cards-a4.pdf"])
    flipped = bytearray((folder / f"{cards}.pdf").read_bytes())
    flipped[len(flipped) // 3] ^= 0xFF
    (folder / f"{cards}.pdf").write_bytes(bytes(flipped))
    _swap(folder / f"{sheets[0]}.pdf", folder / f"{sheets[1]}.pdf")  # PDFs swapped
    for suffix in (".pdf", ".json"):  # a whole part under another's name
        _swap(folder / f"{chapters[0]}{suffix}", folder / f"{chapters[1]}{suffix}")
    for name in recodings:  # truncated: read again only for the output joined again, cards
        data = (folder / f"{name}.pdf").read_bytes()
        (folder / f"{name}.pdf").write_bytes(data[:len(data) // 2])
    said = build(out)
    assert f"mini: cache: part {faces[:8]}… was damaged (its PDF does not match its hash); " \
           "laid out again" in said
    assert f"mini: cache: joined output {cards[:8]}… was damaged (its PDF does not match its " \
           "hash); joined again" in said
    assert sum("its record is another part's" in line for line in said) == 2
    assert sum(line.startswith("mini: cache: kept recoding ") and line.endswith(
        "was damaged (its PDF does not match its hash); left out") for line in said) == 1
    assert len(said) == 7, said
    assert _outputs(out) == cold

    (folder / f"{faces}.json").write_text("{not json", encoding="utf-8")
    (folder / "index.json").write_text('{"outputs": {"cards-a4.pdf": 3}, "recent": 1}',
                                       encoding="utf-8")
    said = build(out)
    assert said == [f"mini: cache: part {faces[:8]}… was damaged (its record is not JSON of a "
                    "part); laid out again", "mini: cache: index.json was damaged; it starts anew"]
    assert _outputs(out) == cold
    assert build(out) == []  # all sound again


def test_a_kept_part_that_names_a_face_no_output_has_is_laid_out_again(packs: Path,
                                                                      tmp_path: Path,
                                                                      pool) -> None:
    """A record sealed anew but naming a face that does not exist (written by hand, or by
    another version) is not a KeyError: the parts that do not fit are laid out again."""
    out = tmp_path / "out"
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    before = _outputs(out)
    cache = PartCache(parts_folder(out, "mini"), base=packs / "mini")
    sheet = next(record for record in _kept(out).values() if record.get("faces"))
    laid = cache.get(sheet["key"])
    assert laid is not None
    faces = [laid.faces[0]._replace(key="nowhere.9"), *laid.faces[1:]]
    cache.put(sheet["key"], LaidOut(laid.pdf, laid.pages, laid.found, laid.files, laid.anchors,
                                    laid.links, faces))
    said: list[str] = []
    build_game("mini", out_root=out, cards_dir=packs, progress=said.append, workers=pool)
    assert any(line.startswith("mini: cache: the ") and "did not fit together (KeyError" in line
               for line in said), said
    assert _outputs(out) == before


def test_a_cache_pnp_did_not_make_is_not_used_and_left_alone(packs: Path, tmp_path: Path,
                                                             pool) -> None:
    """A file, or a link to a folder elsewhere, where the cache's folder goes: said once,
    left as it was, and everything is laid out anew (pnp validate reads nothing from it)."""
    out = tmp_path / "out"
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    folder = parts_folder(out, "mini")
    shutil.rmtree(folder)
    folder.write_text("not a folder", encoding="utf-8")
    report = validate_game("mini", packs, out_root=out, workers=pool)
    assert report.findings == [] and folder.read_text(encoding="utf-8") == "not a folder"
    said: list[str] = []
    result = build_game("mini", out_root=out, cards_dir=packs, progress=said.append,
                        workers=pool, options=BuildOptions(paper="letter"))
    assert f"mini: cache: {folder} is a file, not a folder pnp made; pnp neither follows nor " \
           "replaces it (move it away); the cache is not used" in said
    assert result.laid_out == 3 and folder.read_text(encoding="utf-8") == "not a folder"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.pdf").write_bytes(b"%PDF mine")
    folder.unlink()
    folder.symlink_to(elsewhere, target_is_directory=True)
    said.clear()
    result = build_game("mini", out_root=out, cards_dir=packs, progress=said.append,
                        workers=pool)
    assert f"mini: cache: {folder} is a symbolic link, not a folder pnp made; pnp neither " \
           "follows nor replaces it (move it away); the cache is not used" in said
    assert result.laid_out == 3
    assert [path.name for path in elsewhere.iterdir()] == ["mine.pdf"]


def test_two_packs_with_the_same_html_in_other_folders_share_no_part(packs: Path,
                                                                     tmp_path: Path,
                                                                     pool) -> None:
    """The same HTML names the same image, relative to its own pack: built into one output
    folder, the second pack prints its own image, not the first one's part."""
    pack = packs / "mini"
    give_template(pack, '<img src="art.svg" style="width: 20mm; height: 20mm">')
    art = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" ' \
          'height="10" fill="{}"/></svg>'
    (pack / "art.svg").write_text(art.format("#12ab34"), encoding="utf-8")
    other = tmp_path / "other"
    shutil.copytree(packs, other)
    (other / "mini" / "art.svg").write_text(art.format("#3456cd"), encoding="utf-8")
    out = tmp_path / "out"
    build_game("mini", out_root=out, cards_dir=packs, workers=pool)
    second = build_game("mini", out_root=out, cards_dir=other, workers=pool)
    assert second.output("cards-a4.pdf").laid_out == 3  # none of the first pack's parts
    colours = {colour for _, colour in render_page(out / "mini" / "cards-a4.pdf", 0,
                                                   dpi=100).getcolors(1 << 24)}
    assert (0x34, 0x56, 0xCD) in colours and (0x12, 0xAB, 0x34) not in colours


def test_up_to_date_means_the_outputs_are_as_written(packs: Path, tmp_path: Path,
                                                     pool) -> None:
    """A truncated or edited output is not up to date, however the inputs stand."""
    options = BuildOptions()
    digest = input_digest(packs / "mini", options)
    out = tmp_path / "out"
    build_game("mini", options, out_root=out, cards_dir=packs, workers=pool)
    assert is_fresh(out / "mini", "a4", digest)
    assert not is_fresh(out / "mini", "letter", digest)
    pdf = out / "mini" / "cards-a4.pdf"
    whole = pdf.read_bytes()
    pdf.write_bytes(whole[:-1000])
    assert not is_fresh(out / "mini", "a4", digest)
    pdf.write_bytes(whole)
    assert is_fresh(out / "mini", "a4", digest)
    manifest = out / "mini" / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert not is_fresh(out / "mini", "a4", digest)
    build_game("mini", options, out_root=out, cards_dir=packs, workers=pool)
    assert is_fresh(out / "mini", "a4", digest)
    assert pdf.read_bytes() == whole


def test_a_part_s_key_changes_with_the_layout_code_and_not_with_the_cli(
        tmp_path: Path, monkeypatch, request) -> None:
    """Editing the CLI or a command keeps every laid-out part; editing what lays one out, or
    a module it imports, does not."""
    request.addfinalizer(parts.layout_digest.cache_clear)  # the real package's, next time
    package = tmp_path / "generator"
    shutil.copytree(parts.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(parts, "PACKAGE_DIR", package)
    names = {str(path.relative_to(package)) for path in parts.layout_modules()}
    assert {"layout/engine.py", "text/fonts.py", "pdf/assemble.py", "plan/parts.py",
            "__init__.py", "layout/__init__.py"} <= names
    assert not {name for name in names if name.startswith(("cli/", "pipeline/", "outputs/"))}
    assert not names & {"plan/render.py", "plan/faces.py"}

    def key() -> str:
        parts.layout_digest.cache_clear()
        return parts.part_key("<p>a card</p>")

    before = key()
    for name in ("cli/program.py", "pipeline/build.py", "plan/render.py"):
        (package / name).write_text((package / name).read_text() + "\n# a note\n")
    assert key() == before
    fonts = package / "text" / "fonts.py"
    fonts.write_text(fonts.read_text() + "\n# a note\n")
    assert key() != before


def test_a_join_takes_the_drawings_an_earlier_join_of_the_file_recoded(
        packs: Path, tmp_path: Path, monkeypatch) -> None:
    """Joined again from the same parts with what the first join recoded, nothing is recoded
    anew and the file is the same, byte for byte; with what is kept damaged, it is the same
    too."""
    checked = check("mini", packs)
    with Workers() as workers:
        executor = Executor(checked.game.root, checked.job.fonts, PartCache(tmp_path), workers)
        planned = plan(checked, executor)
        run(planned, executor, lambda message: None, "mini")
    document = next(document for _, document in planned if document.file == "cards-a4.pdf")
    laid = [executor.done[part.key] for part in document.parts]
    shown = executor._shown(document, laid)
    fonts = {face_key(path): path for path in checked.job.fonts.files()}
    recoded: list[int] = []
    drawing = assemble._recoded_drawing
    monkeypatch.setattr(assemble, "_recoded_drawing",
                        lambda *given: recoded.append(1) or drawing(*given))

    def joined(kept: bytes) -> tuple[bytes, bytes, int]:
        recoded.clear()
        recodings = assemble.Recodings(kept)
        pdf = assemble.join(laid, shown, None, document.duplex, fonts, recodings)
        return pdf, recodings.packed(), len(recoded)

    first, kept, count = joined(b"")
    assert count > 0 and len(kept) > count * 36
    assert joined(kept) == (first, kept, 0)
    assert joined(kept[:len(kept) // 2])[0] == first  # a kept drawing cut short: made again



def test_the_library_versions_read_off_the_path_are_the_installed_ones() -> None:
    """A build with nothing to do reads the versions of the libraries that draw pages off the
    metadata folders' names, without importing importlib.metadata: the same versions."""
    from importlib import metadata

    versions = parts.library_versions()
    assert list(versions) == list(parts.LIBRARIES)
    assert versions == {name: metadata.version(name) for name in parts.LIBRARIES}
