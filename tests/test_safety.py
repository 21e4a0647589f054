"""Safety: no fetching outside the project, card text escaped, failed builds lose nothing."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator import PROJECT_ROOT
from generator.check.findings import PackError
from generator.layout.engine import FetchRefused, html_to_pdf, make_fetcher
from generator.pipeline.build import build_game
from generator.text.fonts import load_fonts

from .conftest import page_texts


def test_fetcher_refuses_files_outside_the_project() -> None:
    fetcher = make_fetcher()
    with pytest.raises(FetchRefused, match="refused to fetch file:///etc/passwd"):
        fetcher("file:///etc/passwd")
    with pytest.raises(FetchRefused):
        fetcher((PROJECT_ROOT / ".." / ".." / "etc" / "passwd").as_uri())


def test_fetcher_refuses_the_network() -> None:
    fetcher = make_fetcher()
    for url in ("http://example.com/a.png", "https://example.com/a.css", "ftp://x/y"):
        with pytest.raises(ValueError):
            fetcher(url)


def test_fetcher_serves_project_files_and_data_urls() -> None:
    fetcher = make_fetcher()
    readme = fetcher((PROJECT_ROOT / "README.md").as_uri())
    assert readme.read().startswith(b"# pnp")
    assert fetcher("data:text/plain,hi").read() == b"hi"


def test_a_document_reaching_outside_is_an_error() -> None:
    html = '<html><body><img src="file:///etc/passwd"></body></html>'
    pdf, [found] = html_to_pdf(html, PROJECT_ROOT)
    assert pdf == b"" and found.code == "E052"
    assert found.message.startswith("refused to fetch file:///etc/passwd: only files inside ")


def test_card_text_is_printed_as_text(packs: Path, tmp_path: Path) -> None:
    build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    fronts = page_texts(tmp_path / "out" / "mini" / "cards-a4.pdf")[0]
    assert "<b>不是标记</b>" in fronts      # the YAML's HTML stays text
    assert "造成3点伤害。" in fronts        # **3** became bold, the asterisks are gone


def test_a_failed_build_keeps_the_previous_pdfs(packs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build_game("mini", out_root=out, cards_dir=packs)
    before = {p.name: p.read_bytes() for p in (out / "mini").iterdir() if p.is_file()}
    spells = packs / "mini" / "spells.yaml"
    spells.write_text(spells.read_text(encoding="utf-8").replace("cost: 3", "cost: x"),
                      encoding="utf-8")
    with pytest.raises(PackError):
        build_game("mini", out_root=out, cards_dir=packs)
    after = {p.name: p.read_bytes() for p in (out / "mini").iterdir() if p.is_file()}
    assert after == before


def test_a_template_naming_a_missing_field_is_an_error(packs: Path, tmp_path: Path) -> None:
    templates = packs / "mini" / "templates" / "cards"
    templates.mkdir(parents=True)
    (templates / "card.html.j2").write_text("<p>{{ card.power }}</p>", encoding="utf-8")
    with pytest.raises(PackError) as caught:
        build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    assert str(caught.value) == (  # the pack's template's mistake: told there, once
        f"{templates}/card.html.j2:1: error: E060: 'generator.pack.schema.Card_spells object' "
        "has no attribute 'power' (3 cards: S1, S2, S3)")
    assert [finding.card for finding in caught.value.findings] == ["S1", "S2", "S3"]
    assert not (tmp_path / "out").exists()


def test_a_glyph_no_font_has_stops_the_build(packs: Path, tmp_path: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    spells.write_text(spells.read_text(encoding="utf-8").replace("火球术", "火球术\U0001F525"),
                      encoding="utf-8")
    with pytest.raises(PackError) as caught:
        build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    assert [str(f) for f in caught.value.findings] == [
        f"{spells}:2: error: E080: font 'Noto Sans SC' has no glyph for '\U0001F525' (U+1F525)"]
    assert not (tmp_path / "out").exists()


def test_weasyprint_notdef_is_a_backstop(tmp_path: Path) -> None:
    """Should a glyph slip past the cmap check, WeasyPrint's .notdef warning still stops it."""
    fonts = load_fonts()
    html = (f"<style>{fonts.font_face_css({'Noto Sans SC'})}</style>"
            "<p style=\"font-family: 'Noto Sans SC'\">火\U0001F525</p>")
    _, found = html_to_pdf(html, tmp_path, fonts.files())
    assert [item.code for item in found] == ["E081"]
    assert ".notdef glyph rendered" in found[0].message


def test_text_past_its_box_stops_the_build_with_its_finding(packs: Path, tmp_path: Path) -> None:
    """The faces part holding the card has an error, so neither the sheets nor the rulebook's
    gallery that draw from it are assembled: the finding is the whole message."""
    spells = packs / "mini" / "spells.yaml"
    spells.write_text(spells.read_text(encoding="utf-8").replace(
        "造成 **3** 点伤害。", "造成三点伤害，" * 60), encoding="utf-8")
    with pytest.raises(PackError) as caught:
        build_game("mini", out_root=tmp_path / "out", cards_dir=packs)
    [finding] = caught.value.findings
    assert (finding.path, finding.line, finding.code) == (str(spells), 1, "E070")
    assert not (tmp_path / "out" / "mini" / "cards-a4.pdf").exists()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[str]]]:
    """A web server on 127.0.0.1 that records every request made to it."""
    requests: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            requests.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}", requests
    httpd.shutdown()


# Every way WeasyPrint 70 loads a resource, with URL standing for what is asked for.
ROUTES = {
    "img": '<img src="URL/a.png">',
    "base href": '<base href="URL/"><img src="a.png">',
    "css url()": "<style>p { background: url(URL/a.png) }</style><p>x</p>",
    "@import": "<style>@import url(URL/a.css);</style><p>x</p>",
    "@font-face": "<style>@font-face { font-family: z; src: url(URL/a.ttf) } "
                  "p { font-family: z }</style><p>x</p>",
    "@color-profile": "<style>@color-profile --p { src: url(URL/a.icc) } p { color: red }"
                      "</style><p>x</p>",
    "@page background": "<style>@page { background: url(URL/a.png) }</style><p>x</p>",
    "list-style-image": "<style>li { list-style-image: url(URL/a.png) }</style><ul><li>x</ul>",
    "content url()": "<style>p::before { content: url(URL/a.png) }</style><p>x</p>",
    "border-image": "<style>p { border: 5px solid; border-image-source: url(URL/a.png) }"
                    "</style><p>x</p>",
    "link stylesheet": '<link rel="stylesheet" href="URL/a.css"><p>x</p>',
    "link attachment": '<link rel="attachment" href="URL/a.txt"><p>x</p>',
    "object": '<object data="URL/a.svg"></object>',
    "embed": '<embed src="URL/a.svg">',
    "iframe": '<iframe src="URL/a.html"></iframe>',
    "svg image": '<svg width="10" height="10"><image href="URL/a.png" width="10" '
                 'height="10"/></svg>',
    "svg use": '<svg width="10" height="10"><use href="URL/a.svg#x"/></svg>',
    "svg @import": '<svg width="10" height="10"><style>@import url(URL/a.css);</style>'
                   '<rect width="5" height="5"/></svg>',
    "image in a data: svg": '<img src="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/'
                            '2000/svg%22%3E%3Cimage href=%22URL/a.png%22 width=%2210%22 '
                            'height=%2210%22/%3E%3C/svg%3E">',
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_no_route_reaches_the_network_or_a_file_outside(
        route: str, server: tuple[str, list[str]], tmp_path: Path) -> None:
    url, requests = server
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("a.png", "a.css", "a.ttf", "a.icc", "a.txt", "a.svg", "a.html"):
        (outside / name).write_text("SECRET", encoding="utf-8")
    pack = tmp_path / "pack"
    pack.mkdir()
    for asked in (url, outside.as_uri()):
        html = f"<html><body>{ROUTES[route].replace('URL', asked)}</body></html>"
        pdf, found = html_to_pdf(html, pack)
        assert requests == [], f"{route}: the server was asked for {requests}"
        assert b"SECRET" not in pdf
        refused = [f for f in found if f.code == "E052"]
        if refused:  # refused with a message naming what was asked, and nothing written
            assert refused[0].message.startswith(f"refused to fetch {asked}/")
            assert pdf == b""
        else:  # WeasyPrint cannot read the SVG, and says so; or it never asks for the
            # resource at all (it draws no iframe and no external <use>)
            assert route in {"svg use", "svg @import", "iframe"}, (route, found)
            assert route != "svg @import" or any(f.code == "E075" for f in found)
