"""`pnp pull`: a deck's `source:` downloaded into its file, against a server on 127.0.0.1 that
the test runs. It tells the cards added, removed and changed; what is not the deck (a sign-in
page, an HTTP error, a file too big, a redirect to http, a sheet that does not read) leaves the
old file byte for byte; an address that is not https is refused before any connection, and a
build never opens one."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator import cli
from generator.pack.load import load_game
from generator.pack.pull import PullFailed, download, export_url
from generator.pipeline.build import BuildOptions, build_game

from .conftest import edit, page_texts
from .test_spreadsheet import _workbook

SOURCE_LINE = 15  # the `source:` line the tests give the tiny pack's deck in its game.yaml
OLD = "id,name,cost,back,qty\nS1,火球术,3,red,\nS2,治疗术,2,green,\nS3,冰冻术,1,blue,2\n"
NEW = "id,name,cost,back,qty\nS1,火球术,4,red,\nS3,冰冻术,1,blue,2\nS4,雷击术,5,red,\n"
PAGE = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in</body></html>"


class Served:
    """What the test server answers at each path: a status, headers and a body (and a delay
    before answering); it records the paths asked for."""

    def __init__(self, server: ThreadingHTTPServer):
        self.server = server
        self.routes: dict[str, tuple[int, dict[str, str], bytes, float]] = {}
        self.asked: list[str] = []

    def url(self, path: str) -> str:
        """The address of a path on the server."""
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def give(self, path: str, body: bytes | str, status: int = 200, content_type: str =
             "text/csv; charset=utf-8", delay: float = 0, **headers: str) -> str:
        """Answer `path` so; return its address."""
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = (status, {"Content-Type": content_type, **headers}, data, delay)
        return self.url(path)


class _Handler(BaseHTTPRequestHandler):
    server: ThreadingHTTPServer

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        served: Served = self.server.served  # type: ignore[attr-defined]
        served.asked.append(self.path)
        status, headers, body, delay = served.routes.get(self.path, (404, {}, b"", 0))
        time.sleep(delay)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if "Content-Length" not in headers and "No-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def served() -> Iterator[Served]:
    """An HTTP server on 127.0.0.1 in a thread, for the test's answers."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.served = Served(server)  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.served  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def _sourced(packs: Path, url: str, old: str | bytes = OLD, name: str = "spells.csv") -> Path:
    """Give the tiny pack's deck the file `name` holding `old`, and `url` as its source;
    return the file's path."""
    pack = packs / "mini"
    path = pack / name
    path.write_bytes(old.encode() if isinstance(old, str) else old)
    edit(pack / "game.yaml", "file: spells.yaml", f"file: {name}\n    source: {url}")
    return path


def _pull(packs: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str, str]:
    """Run `pnp pull` on the tiny pack: its exit code, standard output and error."""
    code = cli.main(["pull", "mini", "--cards", str(packs), *more])
    out, err = capsys.readouterr()
    return code, out, err


def _refused(packs: Path, message: str) -> str:
    """What `pnp pull` prints of the one deck it could not pull."""
    return (f"{packs / 'mini' / 'game.yaml'}:{SOURCE_LINE}: error: E107: deck 'spells': "
            f"{message}\npnp: 1 error; nothing was written\n")


@pytest.fixture
def no_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if anything opens a network connection."""
    def refuse(self: socket.socket, *args: object) -> None:
        raise AssertionError(f"a connection was opened to {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def test_a_pull_replaces_the_file_and_tells_the_cards_added_removed_and_changed(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    spells = _sourced(packs, served.give("/spells.csv", NEW))
    assert _pull(packs, capsys) == (0, "deck 'spells': spells.csv pulled: 1 added, 1 removed, "
                                    "1 changed\n  added: S4\n  removed: S2\n  changed: S1\n", "")
    assert spells.read_bytes() == NEW.encode()
    assert sorted(os.listdir(spells.parent)) == ["game.yaml", "spells.csv", "spells.yaml"]
    assert [(card.id, card.cost) for card in load_game("mini", packs).decks[0].cards] == [
        ("S1", 4), ("S3", 1), ("S4", 5)]


def test_a_pull_of_the_same_cards_says_nothing_changed(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    spells = _sourced(packs, served.give("/spells.csv", OLD))
    before = spells.stat()
    assert _pull(packs, capsys) == (0, "deck 'spells': spells.csv: nothing changed\n", "")
    assert (spells.stat().st_ino, spells.stat().st_mtime_ns) == (before.st_ino,
                                                                 before.st_mtime_ns)
    served.give("/spells.csv", OLD.replace("\n", "\r\n"))  # Google's line ends, same cards
    assert _pull(packs, capsys) == (0, "deck 'spells': spells.csv pulled: no card added, "
                                    "removed or changed (the file differs only in how it is "
                                    "written: order, quoting, line ends)\n", "")
    assert spells.read_bytes() == OLD.replace("\n", "\r\n").encode()


def test_a_sign_in_page_leaves_the_file_and_says_to_share_the_sheet(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    url = served.give("/spells.csv", PAGE, content_type="text/html; charset=utf-8")
    spells = _sourced(packs, url)
    share = ("most often the sheet is not shared; share the sheet (Share, General access: "
             "Anyone with the link, Viewer) or check the address, then pull again")
    assert _pull(packs, capsys) == (1, "", _refused(
        packs, f"{url}: the answer is a web page (text/html), not a .csv file: {share}"))
    served.give("/spells.csv", b"\n  " + PAGE.lower())  # told as a CSV file: the bytes tell
    assert _pull(packs, capsys) == (1, "", _refused(
        packs, f"{url}: the answer is a web page (text/csv), not a .csv file: {share}"))
    assert spells.read_bytes() == OLD.encode()


def test_an_http_error_leaves_the_file(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    spells = _sourced(packs, served.url("/gone.csv"))
    assert _pull(packs, capsys) == (1, "", _refused(
        packs, f"{served.url('/gone.csv')}: the server answered 404 Not Found: check the "
        "address (the sheet may be deleted or unshared)"))
    url = served.give("/private.csv", "", status=403)
    edit(packs / "mini" / "game.yaml", served.url("/gone.csv"), url)
    assert _pull(packs, capsys)[2] == _refused(
        packs, f"{url}: the server answered 403 Forbidden: share the sheet (Share, General "
        "access: Anyone with the link, Viewer) or check the address, then pull again")
    assert spells.read_bytes() == OLD.encode()


def test_a_file_over_the_size_limit_is_refused_as_it_comes(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    big = NEW + "S5,火球术,3,red,\n" * 100  # 1,669 bytes, over the limit of 1,000
    url = served.give("/spells.csv", big)
    spells = _sourced(packs, url)
    edit(packs / "mini" / "game.yaml", "decks:", "limits: {file_mb: 0.001}\ndecks:")
    too_big = "over the limit of 1000 bytes (`limits: file_mb` in game.yaml): raise the limit " \
        "or make the sheet smaller"
    assert _pull(packs, capsys) == (1, "", _refused(packs, f"{url}: the file is "
                                                    f"{len(big.encode())} bytes, {too_big}")
                                    .replace(f":{SOURCE_LINE}:", f":{SOURCE_LINE + 1}:"))
    served.give("/spells.csv", big, **{"No-Length": "1"})  # no length told: counted as read
    assert _pull(packs, capsys)[2] == _refused(
        packs, f"{url}: the file is more than 1000 bytes, {too_big}").replace(
        f":{SOURCE_LINE}:", f":{SOURCE_LINE + 1}:")
    assert spells.read_bytes() == OLD.encode()


def test_a_redirect_to_http_is_refused(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    served.give("/spells.csv", NEW)
    url = served.give("/moved", "", status=302, Location=served.url("/spells.csv"))
    spells = _sourced(packs, url)
    assert _pull(packs, capsys) == (1, "", _refused(
        packs, f"{url}: it redirects to {served.url('/spells.csv')}, and pnp follows a "
        "redirect only to https: give the https address"))
    assert served.asked == ["/moved"]  # the http address was never asked for
    assert spells.read_bytes() == OLD.encode()


def test_a_sheet_that_does_not_read_as_the_deck_is_refused(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    url = served.give("/spells.csv", "id,name,cots,back\nS1,火球术,3,red\nS2,治疗术,x,green\n")
    spells = _sourced(packs, url)
    accepted = "art, back, cost, draft, id, motto, name, qty, quote, sections"
    code, out, err = _pull(packs, capsys)
    assert (code, out) == (1, "")
    assert err == (f"{packs / 'mini' / 'game.yaml'}:{SOURCE_LINE}: error: E107: deck 'spells': "
                   f"{url}: does not read as the deck's .csv file, line 1: unknown column "
                   f"'cots' (accepted: {accepted}): fix the sheet (or the deck's `fields` in "
                   "game.yaml) and pull again\npnp: 1 error; nothing was written\n")
    assert spells.read_bytes() == OLD.encode()


def test_an_xlsx_deck_is_pulled_as_a_workbook(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [["id", "name", "cost", "back"], ["S1", "火球术", 3, "red"],
            ["S2", "治疗术", 2, "green"]]
    old = _workbook({"Cards": rows})
    new = _workbook({"Cards": [*rows[:2], ["S2", "治疗术", 1, "green"]]})
    spells = _sourced(packs, served.give("/book", new, content_type="application/vnd.openxml"
                                         "formats-officedocument.spreadsheetml.sheet"),
                      old, "spells.xlsx")
    assert _pull(packs, capsys) == (0, "deck 'spells': spells.xlsx pulled: 1 changed\n"
                                    "  changed: S2\n", "")
    assert spells.read_bytes() == new


def test_pull_writes_no_link_and_nothing_of_another_deck_when_one_fails(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    """A deck file that is a symbolic link is refused (nothing downloaded for any deck); a
    pack of two decks writes neither when one fails."""
    url = served.give("/spells.csv", NEW)
    spells = _sourced(packs, url)
    real = packs / "mini" / "real.csv"
    spells.rename(real)
    spells.symlink_to(real.name)
    game = packs / "mini" / "game.yaml"
    assert _pull(packs, capsys)[2] == (
        f"{game}:{SOURCE_LINE - 1}: error: E107: deck 'spells': file 'spells.csv' is a symbolic "
        "link: pnp pull replaces only a regular file (put the file itself there)\n"
        "pnp: 1 error; nothing was written\n")
    assert (spells.is_symlink(), real.read_bytes(), served.asked) == (True, OLD.encode(), [])
    spells.unlink()
    real.rename(spells)
    other = game.read_text(encoding="utf-8").split("decks:\n")[1].replace(
        "id: spells", "id: more").replace("spells.csv", "more.csv").replace(url, served.url(
            "/missing.csv"))
    game.write_text(game.read_text(encoding="utf-8") + other, encoding="utf-8")
    (packs / "mini" / "more.csv").write_text(OLD, encoding="utf-8")
    assert _pull(packs, capsys)[0] == 1
    assert spells.read_bytes() == OLD.encode()  # its download was fine, and not written
    assert _pull(packs, capsys, "--deck", "spells")[:2] == (
        0, "deck 'spells': spells.csv pulled: 1 added, 1 removed, 1 changed\n  added: S4\n"
        "  removed: S2\n  changed: S1\n")


def test_a_source_that_is_not_https_is_refused_before_connecting(
        packs: Path, capsys: pytest.CaptureFixture[str], no_connection: None) -> None:
    spells = _sourced(packs, "http://example.com/spells.csv")
    finding = (f"{packs / 'mini' / 'game.yaml'}:{SOURCE_LINE}: error: E010: field "
               "'decks.0.source': must be an https:// address (http:// only to 127.0.0.1 or "
               "localhost, for tests)")
    code, out, err = _pull(packs, capsys)
    assert (code, out) == (1, "")
    assert err.startswith(finding)
    for url, problem in [
            ("http://example.com/x.csv", "must be an https:// address (http:// only to "
             "127.0.0.1 or localhost, for tests)"),
            ("ftp://127.0.0.1/x.csv", "must be an https:// address (http:// only to "
             "127.0.0.1 or localhost, for tests)"),
            ("https://me:secret@example.com/x.csv", "must not hold a user name or password: "
             "share the sheet instead"),
            ("https://example.com/a b.csv", "must be one address, without spaces or control "
             "characters"),
            ("file:///etc/passwd", "must be a web address, https://…")]:
        with pytest.raises(PullFailed) as refused:
            download(url, 1000)
        assert str(refused.value) == f"the address {problem}"
    assert spells.read_bytes() == OLD.encode()


def test_a_source_on_a_yaml_deck_is_a_finding(packs: Path) -> None:
    edit(packs / "mini" / "game.yaml", "file: spells.yaml",
         "file: spells.yaml\n    source: https://example.com/spells.csv")
    assert [str(f) for f in load_game("mini", packs).findings] == [
        f"{packs / 'mini' / 'game.yaml'}:{SOURCE_LINE}: error: E010: deck 'spells': `source` "
        "downloads a .csv or .xlsx file, and 'spells.yaml' is neither (`pnp deck-csv` turns a "
        "YAML deck into CSV)"]


def test_a_download_that_takes_too_long_is_stopped(served: Served) -> None:
    url = served.give("/slow.csv", NEW, delay=2)
    started = time.monotonic()
    with pytest.raises(PullFailed) as slow:
        download(url, 1000, timeout=0.3)
    assert str(slow.value) == ("no whole answer within 0.3 s: check your connection and pull "
                               "again")
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize(("share", "xlsx", "export"), [
    ("https://docs.google.com/spreadsheets/d/1AbC-d_9/edit#gid=42", False,
     "https://docs.google.com/spreadsheets/d/1AbC-d_9/export?format=csv&gid=42"),
    ("https://docs.google.com/spreadsheets/d/1AbC-d_9/edit?gid=7#gid=7", False,
     "https://docs.google.com/spreadsheets/d/1AbC-d_9/export?format=csv&gid=7"),
    ("https://docs.google.com/spreadsheets/d/1AbC-d_9/edit?usp=sharing", False,
     "https://docs.google.com/spreadsheets/d/1AbC-d_9/export?format=csv"),
    ("https://docs.google.com/spreadsheets/d/1AbC-d_9", False,
     "https://docs.google.com/spreadsheets/d/1AbC-d_9/export?format=csv"),
    ("https://docs.google.com/spreadsheets/d/1AbC-d_9/edit#gid=42", True,
     "https://docs.google.com/spreadsheets/d/1AbC-d_9/export?format=xlsx"),
    ("https://docs.google.com/spreadsheets/d/e/2PACX-1v/pub?output=csv", False,
     "https://docs.google.com/spreadsheets/d/e/2PACX-1v/pub?output=csv"),
    ("https://example.com/spreadsheets/d/1AbC/edit", False,
     "https://example.com/spreadsheets/d/1AbC/edit"),
])
def test_a_google_sheets_share_link_is_downloaded_as_its_export(share: str, xlsx: bool,
                                                                export: str) -> None:
    assert export_url(share, xlsx) == export


def test_a_build_of_a_pack_with_sources_opens_no_connection(
        packs: Path, tmp_path: Path, no_connection: None) -> None:
    _sourced(packs, "https://docs.google.com/spreadsheets/d/1AbC-d_9/edit#gid=0",
             OLD.replace("S3,冰冻术,1,blue,2", "S3,冰冻术,1,blue,1\nS4,雷击术,5,red,"))
    with pytest.raises(AssertionError, match="a connection was opened"):
        socket.create_connection(("127.0.0.1", 9))  # the guard holds
    build_game("mini", BuildOptions(only=("sheets",)), out_root=tmp_path / "out",
               cards_dir=packs)
    fronts = page_texts(tmp_path / "out" / "mini" / "cards-a4.pdf")[0]
    assert all(name in fronts for name in ("火球术", "治疗术", "冰冻术", "雷击术"))



def test_a_sheet_with_columns_of_the_games_languages_is_pulled(
        packs: Path, served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    edit(packs / "mini" / "game.yaml", "language: zh-CN", "languages: [zh-CN, es]")
    old = ("id,name,cost,back,qty,name@es\nS1,火球术,3,red,,Bola de fuego\nS2,治疗术,2,green,,"
           "Curar\nS3,冰冻术,1,blue,2,Congelar\n")
    spells = _sourced(packs, served.give("/spells.csv", old.replace("Bola", "Gran bola")), old)
    assert _pull(packs, capsys) == (0, "deck 'spells': spells.csv pulled: 1 changed\n"
                                    "  changed: S1\n", "")
    assert load_game("mini", packs, "es").decks[0].cards[0].name == "Gran bola de fuego"
    served.give("/spells.csv", old.replace("name@es", "name@fr"))
    assert _pull(packs, capsys) == (1, "", _refused(
        packs, f"{served.url('/spells.csv')}: does not read as the deck's .csv file, line 1: "
        "unknown column 'name@fr': the game is not in 'fr' (its other languages: es): fix "
        "the sheet (or the deck's `fields` in game.yaml) and pull again"))
    assert spells.read_text(encoding="utf-8") == old.replace("Bola", "Gran bola")
