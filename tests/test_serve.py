"""`pnp serve` over HTTP: a real server on a free port over a copy of the tiny pack. Only its
own address with its token is answered; an edit redraws that face alone; a mistake keeps the
last good picture, marked stale, with its finding; the pack is never written; Ctrl-C stops it
and its workers."""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.conftest import FIXTURES
from tests.serving import Serving, line_of, save, tree

FACES = ["spells/S1", "spells/back:red", "spells/S2", "spells/back:green", "spells/S3",
         "spells/back:blue"]  # the tiny pack's distinct faces, in order


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Serving, Path]]:
    """One `pnp serve` for the module, over a copy of the tiny pack; ready."""
    cards = tmp_path_factory.mktemp("serve") / "cards"
    cards.mkdir()
    pack = cards / "mini"
    shutil.copytree(FIXTURES / "mini", pack)
    serving = Serving(cards, "mini")
    try:
        serving.ready()
        yield serving, pack
    finally:
        serving.kill()


def images(data: dict[str, Any]) -> dict[str, str]:
    """Each face's picture name, by its ident."""
    return {face["ident"]: face["image"] for face in data["faces"]}


def face(data: dict[str, Any], ident: str) -> dict[str, Any]:
    """One face of the state."""
    return next(item for item in data["faces"] if item["ident"] == ident)


def test_another_host_is_refused(served: tuple[Serving, Path]) -> None:
    """DNS rebinding: a page of another site reaching this port names its own host."""
    serving, _ = served
    for host in ("evil.example", f"evil.example:{serving.port}", f"127.0.0.1:{serving.port + 1}",
                 f"192.0.2.7:{serving.port}"):  # an IP address only when serving on every one
        status, headers, body = serving.get("/api/state", host=host)
        assert status == 403
        assert body.decode() == f"pnp serve answers only to its own address, not to Host '{host}'"
        assert headers["content-type"].startswith("text/plain")


@pytest.mark.parametrize("token", ["", "wrong"])
def test_a_request_without_the_token_is_refused(served: tuple[Serving, Path], token: str
                                                ) -> None:
    serving, _ = served
    for path in ("/", "/api/state", "/static/app.js", "/events"):
        status, _, body = serving.get(path, token=token)
        assert (status, body.decode()) == (
            403, "pnp serve needs the token it printed with its address (?token=…)"), path


def test_the_page_and_its_state_with_the_token(served: tuple[Serving, Path]) -> None:
    """Its own address and token: the page, and the pack's every distinct face as JSON, each
    picture a PNG of the face with its bleed."""
    serving, pack = served
    assert serving.url == f"http://127.0.0.1:{serving.port}/?token={serving.token}"
    status, headers, body = serving.get("/")
    assert status == 200 and b"<title>pnp serve</title>" in body
    assert "default-src 'none'" in headers["content-security-policy"]
    status, headers, body = serving.get("/api/state")
    assert status == 200 and headers["content-type"] == "application/json"
    data = serving.state()
    assert (data["game"], data["title"]) == ("mini", "测试小包")
    assert data["decks"] == [["spells", "法术"]]
    assert [item["ident"] for item in data["faces"]] == FACES
    assert [item["name"] for item in data["faces"]] == ["火球术", "red", "治疗术", "green",
                                                        "冰冻术", "blue"]
    assert face(data, "spells/S1")["where"] == f"{pack / 'spells.yaml'}:1"
    assert not any(item["stale"] or item["findings"] for item in data["faces"])
    assert data["findings"] == [] and data["busy"] == ""
    assert [output["file"] for output in data["outputs"]] == ["cards-a4.pdf"]
    status, headers, body = serving.get(f"/image/{face(data, 'spells/S1')['image']}.png")
    assert status == 200 and headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(body)).size == (348, 474)  # 69.5 x 94.9 mm at 5 px/mm
    status, _, body = serving.get("/page/cards-a4.pdf/1.png")
    assert status == 200 and body.startswith(b"\x89PNG")


def test_edits_redraw_their_face_alone_and_mistakes_keep_the_last_pictures(
        served: tuple[Serving, Path]) -> None:
    serving, pack = served
    spells = pack / "spells.yaml"
    before = tree(pack)
    first = images(serving.ready())

    save(spells, ("火球术", "炎爆术"))
    edited = serving.until(lambda data: face(data, "spells/S1")["name"] == "炎爆术")
    now = images(edited)
    assert now["spells/S1"] != first["spells/S1"]
    assert {ident: now[ident] for ident in FACES[1:]} == {ident: first[ident]
                                                         for ident in FACES[1:]}
    assert serving.get(f"/image/{now['spells/S1']}.png")[0] == 200

    save(spells, ("  cost: 2\n", "  cost: 2\n  cots: 2\n"))  # a misspelt field in S2
    broken = serving.until(lambda data: face(data, "spells/S2")["stale"])
    wrong = face(broken, "spells/S2")
    assert wrong["image"] == first["spells/S2"]  # its last good picture
    assert [(item["code"], item["path"], item["line"]) for item in wrong["findings"]] == [
        ("E010", str(spells), line_of(spells, "cots: 2"))]
    assert "'cots'" in wrong["findings"][0]["message"]
    assert [item["ident"] for item in broken["faces"] if item["stale"]] == ["spells/S2"]
    for name in ("冰霜术", "寒冰术", "霜冻术"):  # more edits elsewhere while S2 stays wrong
        save(spells, (face(serving.state(), "spells/S3")["name"], name))
        serving.until(lambda data, name=name: face(data, "spells/S3")["name"] == name)
    status, _, kept = serving.get(f"/image/{wrong['image']}.png")
    assert status == 200 and kept.startswith(b"\x89PNG")  # still served to a page opened now

    save(spells, ("  cots: 2\n", ""))
    mended = serving.until(lambda data: not face(data, "spells/S2")["stale"])
    assert images(mended)["spells/S2"] == first["spells/S2"]  # the same part, the same picture

    save(spells, ("cost: 3", "cost: [3"))
    syntax = serving.until(lambda data: bool(data["findings"]))
    assert all(item["stale"] for item in syntax["faces"])
    assert images(syntax) == images(mended)
    [finding] = syntax["findings"]
    assert (finding["code"], finding["path"], finding["line"]) == (
        "E002", str(spells), line_of(spells, "cost: [3") + 1)  # where the list was not closed
    assert finding["message"].startswith("YAML syntax:")
    save(spells, ("cost: [3", "cost: 3"))
    serving.until(lambda data: not data["findings"] and not any(
        item["stale"] for item in data["faces"]))

    written = tree(pack)  # nothing but the edits: no file came, none was touched
    assert sorted(written) == sorted(before)
    assert {name for name in written if written[name] != before[name]} == {"spells.yaml"}
    time.sleep(0.5)
    assert tree(pack) == written


def test_ctrl_c_stops_it_and_its_workers(tmp_path: Path) -> None:
    """Served on every address: a warning, a page from another machine (its Host an IP
    address) answered, a name refused; Ctrl-C then stops it, workers and all, at once."""
    cards = tmp_path / "cards"
    shutil.copytree(FIXTURES / "mini", cards / "mini")
    serving = Serving(cards, "mini", "--host", "0.0.0.0")
    try:
        assert serving.lines[0] == (
            "pnp: warning: serving on 0.0.0.0, not this machine alone: anyone who "
            "can reach it and has the address with its token sees the game")
        serving.ready()
        assert serving.get("/api/state", host=f"192.0.2.7:{serving.port}")[0] == 200
        assert serving.get("/api/state", host=f"[2001:db8::7]:{serving.port}")[0] == 200
        assert serving.get("/api/state", host=f"evil.example:{serving.port}")[0] == 403
        started = time.monotonic()
        assert serving.stop() == 0
        assert time.monotonic() - started < 5
        assert serving.lines[-1] == "pnp: serve: stopped"
        assert not any("Traceback" in line for line in serving.lines), serving.lines
        deadline = time.monotonic() + 5
        while serving.group_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not serving.group_alive(), "a worker process outlived pnp serve"
    finally:
        serving.kill()


def test_a_port_in_use_is_a_clean_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "generator.cli", "--cards", str(FIXTURES), "serve", "mini",
             "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (f"pnp: error: port {port} on 127.0.0.1 is in use: give another "
                           "with --port (0 picks a free one); nothing was written\n")
