"""`pnp pull`: each deck's `source:` downloaded into the deck's file. The only module that uses
the network (no build does): https only (plain http only to this machine, for tests), redirects
followed only to https, the pack's file size limit and a timeout.

What comes back must be the deck: a web page (a sign-in page, when a sheet is not shared), an
HTTP error or a file that does not read as the deck's spreadsheet is refused, and every deck's
file is left as it was. A file is replaced whole (a temporary neighbour renamed over it), never
through a symbolic link, and only the deck's `file:` inside the pack.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import stat
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

from ..check.findings import Finding, PackError, PnpError, display_path
from ..pipeline.owned import Folder, Refused, open_named, open_path
from .files import FileRefused, file_size
from .load import read_spec
from .rules import plain
from .schema import LOCAL_HOSTS, DeckSpec, Limits, card_model, source_problem
from .spreadsheet import cards_from, deck_table, source_misplaced
from .translate import languages
from .yamlfile import line_of

TIMEOUT = 30.0  # seconds a download may take, from asking to its last byte
CHUNK = 1 << 16  # bytes read at a time
# A Google Sheets link as its Share button gives it: /spreadsheets/d/<id>/edit (or /view, or
# nothing after the id); a published sheet's /d/e/<id>/pub… is downloaded as it is.
_GOOGLE_SHEET = re.compile(r"/spreadsheets/d/(?!e/)([\w-]+)(?:/(?:edit|view|htmlview)?)?")
_PAGE_TYPES = ("text/html", "application/xhtml+xml")
_PAGE_STARTS = (b"<!doctype html", b"<html")
SHARE = ("share the sheet (Share, General access: Anyone with the link, Viewer) or check the "
         "address, then pull again")


class PullFailed(Exception):
    """A deck that could not be pulled: what went wrong and what to do, in one line."""


def export_url(url: str, xlsx: bool) -> str:
    """The address a source is downloaded from: a Google Sheets share link turned into its
    export link (CSV of the tab its `gid` names, or the whole workbook as .xlsx); any other
    address as it is."""
    parts = urlsplit(url)
    found = _GOOGLE_SHEET.fullmatch(parts.path) if parts.hostname == "docs.google.com" else None
    if found is None:
        return url
    if xlsx:
        return f"https://docs.google.com/spreadsheets/d/{found[1]}/export?format=xlsx"
    gid = (parse_qs(parts.query).get("gid") or parse_qs(parts.fragment).get("gid") or [""])[0]
    tab = f"&gid={gid}" if gid.isdigit() else ""
    return f"https://docs.google.com/spreadsheets/d/{found[1]}/export?format=csv{tab}"


class _HttpsRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects followed only to https."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int,
                         msg: str, headers: Any, newurl: str) -> urllib.request.Request | None:
        """The request for a redirect's address; PullFailed for one that is not https."""
        if urlsplit(newurl).scheme != "https":
            fp.close()
            raise PullFailed(f"it redirects to {newurl[:200]}, and pnp follows a redirect only "
                             "to https: give the https address")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def download(url: str, limit: int, timeout: float = TIMEOUT) -> tuple[bytes, str]:
    """The body of a GET of `url` (at most `limit` bytes, within `timeout` seconds) and its
    content type; PullFailed for an address pnp does not fetch (checked before connecting),
    an HTTP error, a redirect to other than https, a timeout or a body over the limit."""
    problem = source_problem(url)
    if problem is not None:
        raise PullFailed(f"the address {problem}")
    handlers: list[urllib.request.BaseHandler] = [_HttpsRedirects()]
    if urlsplit(url).hostname in LOCAL_HOSTS:
        handlers.append(urllib.request.ProxyHandler({}))  # this machine, never through a proxy
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers={"User-Agent": "pnp"})
    deadline = time.monotonic() + timeout
    try:
        with opener.open(request, timeout=timeout) as response:
            return _body(response, limit, deadline, timeout), response.headers.get_content_type()
    except urllib.error.HTTPError as exc:
        exc.close()
        raise PullFailed(_refusal(exc.code, str(exc.reason))) from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise PullFailed(_slow(timeout)) from None
        raise PullFailed(f"cannot connect: {exc.reason}: check the address and your "
                         "connection") from None
    except TimeoutError:
        raise PullFailed(_slow(timeout)) from None
    except (OSError, http.client.HTTPException) as exc:
        raise PullFailed(f"the download broke off ({type(exc).__name__}: {exc}): pull "
                         "again") from None


def _body(response: http.client.HTTPResponse, limit: int, deadline: float,
          timeout: float) -> bytes:
    """A response's body, refused past `limit` bytes (as its length says, or as it comes)
    or past the deadline."""
    length = response.headers.get("Content-Length", "").strip()
    if length.isdigit() and int(length) > limit:
        raise PullFailed(_too_big(file_size(int(length)), limit))
    chunks, held = [], 0
    while chunk := response.read1(CHUNK):
        held += len(chunk)
        if held > limit:
            raise PullFailed(_too_big(f"more than {file_size(limit)}", limit))
        if time.monotonic() > deadline:
            raise PullFailed(_slow(timeout))
        chunks.append(chunk)
    return b"".join(chunks)


def _refusal(code: int, reason: str) -> str:
    """What to say of an HTTP error."""
    told = f"the server answered {code} {reason}".rstrip()
    if 300 <= code < 400:
        return f"{told}, a redirect pnp does not follow (only to https): give the https address"
    if code in (401, 403):
        return f"{told}: {SHARE}"
    if code == 404:
        return f"{told}: check the address (the sheet may be deleted or unshared)"
    return f"{told}: pull again later, or check the address"


def _slow(timeout: float) -> str:
    return f"no whole answer within {timeout:g} s: check your connection and pull again"


def _too_big(size: str, limit: int) -> str:
    return (f"the file is {size}, over the limit of {file_size(limit)} (`limits: file_mb` in "
            "game.yaml): raise the limit or make the sheet smaller")


def is_page(data: bytes, content_type: str) -> bool:
    """Whether an answer is a web page (by its type or its first bytes), not a spreadsheet."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return content_type in _PAGE_TYPES or head.startswith(_PAGE_STARTS)


def deck_cards(data: bytes, path: Path, spec: DeckSpec, limits: Limits,
               findings: list[Finding], others: Sequence[str] = ()) -> dict[str, Any]:
    """A spreadsheet deck's cards by id, as plain mappings of their cells, read as the deck's
    file (`path`, by its suffix), with the cells of its `<field>@<language>` columns for the
    game's `others` languages; what does not read goes to findings."""
    try:
        table = deck_table(data, path, spec, limits, path.name)
    except FileRefused as exc:
        findings.append(Finding(display_path(path), exc.line, exc.message, "E107"))
        return {}
    sheet = cards_from(table, card_model(spec), path, limits, findings, spec, others)
    return {card["id"]: {**plain(card), **{
        f"{key}@{lang}": cell.text for lang, cells in sheet.translations.get(index, {}).items()
        for key, cell in cells.items()}}
        for index, card in enumerate(sheet.cards)
        if isinstance(card, dict) and isinstance(card.get("id"), str)}


@dataclass
class _Deck:
    """A deck to pull: its entry, its source's line in game.yaml, the address downloaded,
    and its file's open folder, name and bytes now (None: there is none yet)."""

    spec: DeckSpec
    line: int
    url: str
    folder: Folder
    name: str
    old: bytes | None
    mode: int = 0o644


@dataclass(frozen=True)
class Pulled:
    """What pulling one deck did: whether its file was written (False: it held these bytes
    already), and the ids of the cards added, removed and changed, in file order."""

    deck: str
    file: str
    written: bool
    added: list[str]
    removed: list[str]
    changed: list[str]

    def report(self) -> list[str]:
        """What `pnp pull` prints of it."""
        head = f"deck '{self.deck}': {self.file}"
        if not self.written:
            return [f"{head}: nothing changed"]
        told = [(what, ids) for what, ids in (("added", self.added), ("removed", self.removed),
                                              ("changed", self.changed)) if ids]
        if not told:
            return [f"{head} pulled: no card added, removed or changed (the file differs only "
                    "in how it is written: order, quoting, line ends)"]
        return [f"{head} pulled: " + ", ".join(f"{len(ids)} {what}" for what, ids in told),
                *(f"  {what}: {', '.join(ids)}" for what, ids in told)]


def pull_game(root: Path, deck_id: str | None = None) -> list[Pulled]:
    """Download every deck's source (or the one deck's) and put each in the deck's file;
    when any cannot be pulled, every problem is told (PackError, at game.yaml's lines) and no
    file is written."""
    data, spec = read_spec(root, [])
    where = display_path(root / "game.yaml")
    chosen = [(index, deck) for index, deck in enumerate(spec.decks)
              if deck.source is not None and deck_id in (None, deck.id)]
    if not chosen:
        sourced = [deck.id for deck in spec.decks if deck.source is not None]
        asked = f"deck '{deck_id}' has" if deck_id is not None else "deck has"
        raise PnpError(f"no {asked} a `source:` to pull from (decks with one: "
                       f"{', '.join(sourced) or 'none'}); give a .csv or .xlsx deck one, "
                       "as docs/how-to/spreadsheets.md says", "E107", where)
    findings: list[Finding] = []
    with contextlib.ExitStack() as stack:
        pack = stack.enter_context(open_named(root, make=False))
        decks = []
        for index, spec_deck in chosen:
            line = line_of(data, ("decks", index, "source"))
            misplaced = source_misplaced(spec_deck, where, line)
            findings += misplaced
            if misplaced:
                continue
            try:
                deck = _open_deck(pack, spec_deck, line, spec.limits)
            except PullFailed as exc:
                findings.append(Finding(where, line_of(data, ("decks", index, "file")),
                                        f"deck '{spec_deck.id}': file '{spec_deck.file}' "
                                        f"{exc}", "E107"))
                continue
            stack.callback(deck.folder.close)
            decks.append(deck)
        others = languages(spec)[1:]
        fetched = [(deck, _fetched(root, deck, spec.limits, findings, where, others))
                   for deck in decks]
        if findings:
            raise PackError(findings)
        return [_written(root, deck, new, spec.limits, others) for deck, new in fetched]


def _open_deck(pack: Folder, spec: DeckSpec, line: int, limits: Limits) -> _Deck:
    """The deck's file opened to be replaced: a path inside the pack, each folder on the way
    opened without following a link, the file itself a regular one or not there yet;
    PullFailed (what is wrong with the file) otherwise."""
    path = PurePosixPath(spec.file)
    if path.is_absolute() or ".." in path.parts or "\\" in spec.file or not path.parts:
        raise PullFailed("is not a path inside the pack without `..`: pnp pull writes only "
                         "inside the pack")
    try:
        folder = open_path(pack, path.parts[:-1], make=False, mark=False)
    except FileNotFoundError:
        raise PullFailed("is in a folder that does not exist: make the folder") from None
    except Refused:
        raise PullFailed("is below a symbolic link or a file, not a folder: pnp pull "
                         "follows no link") from None
    name = path.parts[-1]
    deck = _Deck(spec, line, export_url(spec.source or "", path.suffix.lower() == ".xlsx"),
                 folder, name, None)
    kind = folder.kind(name)
    try:
        if kind not in (None, "file"):
            raise PullFailed(f"is {'a symbolic link' if kind == 'link' else 'not a file'}: "
                             "pnp pull replaces only a regular file (put the file itself "
                             "there)")
        if kind == "file":
            deck.mode = stat.S_IMODE(os.stat(name, dir_fd=folder.fd,
                                             follow_symlinks=False).st_mode)
            with contextlib.suppress(FileRefused):  # too big to read: it is replaced
                deck.old = folder.read(name, limits.file_bytes)
    except BaseException:
        folder.close()
        raise
    return deck


def _fetched(root: Path, deck: _Deck, limits: Limits, findings: list[Finding],
             where: str, others: Sequence[str]) -> bytes:
    """A deck's source downloaded and checked to read as the deck; each problem a finding
    at its source's line naming the deck, the address and what to do."""
    told = f"deck '{deck.spec.id}': {deck.url}"
    try:
        data, content_type = download(deck.url, limits.file_bytes)
        if is_page(data, content_type):
            raise PullFailed(f"the answer is a web page ({content_type}), not a "
                             f"{Path(deck.name).suffix.lower()} file: most often the sheet "
                             f"is not shared; {SHARE}")
    except PullFailed as exc:
        findings.append(Finding(where, deck.line, f"{told}: {exc}", "E107"))
        return b""
    problems: list[Finding] = []
    deck_cards(data, root / deck.spec.file, deck.spec, limits, problems, others)
    findings += [Finding(where, deck.line, f"{told}: does not read as the deck's "
                         f"{Path(deck.name).suffix.lower()} file, "
                         f"{_place(problem.line)}{problem.message}: fix the sheet (or the "
                         "deck's `fields` in game.yaml) and pull again", "E107")
                 for problem in problems if problem.level == "error"]
    return data


def _place(line: int) -> str:
    """Where in the downloaded file a problem is: its line (CSV) or cell (xlsx)."""
    if not line:
        return ""
    return f"line {line}: " if type(line) is int else f"{line}: "


def _written(root: Path, deck: _Deck, new: bytes, limits: Limits,
             others: Sequence[str]) -> Pulled:
    """Put a pulled file in place (unless it holds these bytes already) and tell which cards
    were added, removed and changed (their translations in `others` languages' columns
    too)."""
    path = root / deck.spec.file
    if new == deck.old:
        return Pulled(deck.spec.id, deck.spec.file, False, [], [], [])
    before = deck_cards(deck.old, path, deck.spec, limits, [], others) \
        if deck.old is not None else {}
    after = deck_cards(new, path, deck.spec, limits, [], others)
    deck.folder.write(deck.name, new, mode=deck.mode)
    return Pulled(deck.spec.id, deck.spec.file, True,
                  added=[card for card in after if card not in before],
                  removed=[card for card in before if card not in after],
                  changed=[card for card in after if card in before
                           and after[card] != before[card]])
