"""`pnp serve` after `pnp release`: each face that prints differently since the last edition,
before (as the release kept it) and after, with why and where it changed; the kept pictures
only read."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from generator.editions import reprint
from generator.editions.reprint import release
from generator.layout.workers import Workers
from generator.pipeline.cache import BuildOptions
from generator.preview import session, web
from generator.preview.session import Preview

from .conftest import edit

TOKEN = "t0ken"
HOST = "127.0.0.1:9"


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under a folder, by its path there, with its bytes and modification time."""
    return {str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _get(preview: Preview, path: str) -> tuple[int, str, bytes]:
    """A GET of the page's server, straight through its ASGI application: status, type, body."""
    app = web.make_app(preview, web.Broadcast(), TOKEN, {HOST}, "", lambda: True)
    route, _, query = f"{path}?token={TOKEN}".partition("?")
    scope = {"type": "http", "method": "GET", "path": route, "raw_path": route.encode(),
             "query_string": query.encode(), "headers": [(b"host", HOST.encode())],
             "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 9),
             "client": ("127.0.0.1", 1), "root_path": ""}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    headers = dict(sent[0]["headers"])
    return (sent[0]["status"], headers[b"content-type"].decode(),
            b"".join(message.get("body", b"") for message in sent[1:]))


def _picture(preview: Preview, name: str) -> Image.Image:
    """A picture the page loads, by its name, as the server serves it."""
    status, kind, data = _get(preview, f"/image/{name}.png")
    assert (status, kind) == (200, "image/png")
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_a_face_edited_since_the_release_is_shown_before_and_after(
        packs: Path, tmp_path: Path, pool: Workers, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    release("mini", "first", packs, out, workers=pool)
    kept = _files(out)
    assert any(name.endswith(".png") for name in kept)
    compared: list[str] = []

    def counted(old: dict[str, Any], checked: Any) -> Any:
        compared.append(old["edition"])
        return reprint.compared(old, checked)

    monkeypatch.setattr(session, "compared", counted)
    told: list[str] = []
    preview = Preview("mini", packs, BuildOptions(), pool, progress=told.append, out_root=out)
    first = preview.refresh()
    assert (first.edition, first.changes, compared) == ("first", (), ["first"])

    edit(packs / "mini" / "spells.yaml", "造成 **3** 点伤害", "造成 **5** 点伤害")
    snapshot = preview.refresh()
    [change] = snapshot.changes
    assert (change.ident, change.name, change.since) == ("spells/S1", "火球术", "first")
    assert change.why == ("sections.0.text: 造成 **3** 点伤害。<b>不是标记</b> → "
                          "造成 **5** 点伤害。<b>不是标记</b>",)
    assert change.ident in {face.ident for face in snapshot.faces}
    before, after = _picture(preview, change.before), _picture(preview, change.after)
    assert before.size == after.size
    difference = ImageChops.difference(before, after).convert("L")
    assert difference.getbbox() is not None
    # the number in the text (3 → 5) and the revision tag in the footer, nothing else
    assert len(change.boxes) == 2
    width, height = before.size
    text, tag = change.boxes
    assert all(0 <= left < right <= 1 and 0 <= top < bottom <= 1
               for left, top, right, bottom in change.boxes)
    assert 0.15 < text[1] < text[3] < 0.5 and tag[1] > 0.85
    outside = difference.copy()
    for left, top, right, bottom in change.boxes:
        outside.paste(0, (round(left * width), round(top * height), round(right * width),
                          round(bottom * height)))
    assert outside.getbbox() is None
    status, kind, body = _get(preview, "/api/state")
    assert (status, kind) == (200, "application/json")
    assert json.loads(body)["changes"][0]["why"] == list(change.why)

    again = preview.refresh()  # nothing changed: not compared again, the same shown
    assert (again.changes, compared) == (snapshot.changes, ["first", "first"])
    _picture(preview, change.before)
    assert _files(out) == kept  # the kept pictures only read, nothing written beside them
    assert not (packs / "mini" / "build").exists()
    assert not told


def test_a_face_whose_before_was_not_kept_here_says_so(packs: Path, tmp_path: Path,
                                                       pool: Workers) -> None:
    release("mini", "first", packs)  # recorded in the pack, no pictures kept
    edit(packs / "mini" / "game.yaml", "text: 绿", "text: 草")
    preview = Preview("mini", packs, BuildOptions(), pool, out_root=tmp_path / "elsewhere")
    snapshot = preview.refresh()
    [change] = snapshot.changes
    assert (change.ident, change.before, change.boxes) == ("spells/back:green", "", ())
    assert change.why == ("text: 绿 → 草",)
    face = next(face for face in snapshot.faces if face.ident == change.ident)
    assert change.after == face.image and _picture(preview, change.after)
    assert not (tmp_path / "elsewhere").exists()


def test_a_game_with_no_edition_shows_no_changes(packs: Path, pool: Workers) -> None:
    told: list[str] = []
    preview = Preview("mini", packs, BuildOptions(), pool, progress=told.append)
    snapshot = preview.refresh()
    assert (snapshot.edition, snapshot.changes, snapshot.busy) == ("", (), "")
    assert snapshot.version == 2 and not told  # no comparison told of
    assert not (packs / "mini" / "editions").exists()
