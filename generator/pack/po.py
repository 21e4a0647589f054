"""Stage 1, load: a language's translations as a gettext PO file, the format of Poedit,
Weblate and Crowdin: every text of the pack one message (`msgctxt` its unit's context, `msgid`
the source text, `msgstr` the translation), written from the pack and read back into its
translations. The only module that imports Babel."""

from __future__ import annotations

import datetime
import io
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import PoFileError, read_po, write_po

from ..check.findings import PnpError
from .translate import Entry, Unit, column_contexts, source_hash, source_units

if TYPE_CHECKING:
    from .load import Game

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)  # a game without `date`
_PO_LINE = re.compile(r'(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?'
                      r'"(?:[^"\\]|\\.)*"')  # a line of a message: a keyword, a quoted text


def _made(game: Game) -> datetime.datetime:
    """The POT-Creation-Date of an export: the game's `date`, never the clock's, so that
    the same pack exports the same bytes."""
    date = game.spec.date
    if isinstance(date, str):
        try:
            date = datetime.date.fromisoformat(date)
        except ValueError:
            return EPOCH
    if not isinstance(date, datetime.date):
        return EPOCH
    return datetime.datetime(date.year, date.month, date.day, tzinfo=datetime.UTC)


def pack_file(game: Game, unit: Unit) -> str:
    """The file of the pack a unit's text is written in, as the pack names it."""
    if unit.section == "game":
        return "game.yaml"
    if unit.section == "rules":
        return game.spec.rules or "rules.yaml"
    deck = unit.key.split("/", 1)[0]
    return next(spec.file for spec in game.spec.decks if spec.id == deck)


def _described(game: Game, unit: Unit, lang: str, column: bool) -> str:
    """The `#.` comment of a message: where the text prints, in words."""
    if unit.section != "cards":
        return f"{pack_file(game, unit)}: {unit.key}"
    deck, card, name = _card_key(unit.key)
    told = f"deck '{deck}', card '{card}', field '{name}'"
    if column:
        told += f"; its translation is in {pack_file(game, unit)}'s column {name}@{lang} " \
            "(change it there)"
    return told


def _card_key(key: str) -> tuple[str, str, str]:
    """A card unit's key as its deck, card and field."""
    deck, rest = key.split("/", 1)
    card, name = rest.rsplit("/", 1)
    return deck, card, name


def po_language(lang: str) -> str:
    """A language tag as a PO file's `Language:` gives it (`zh-CN` as `zh_CN`)."""
    return lang.replace("-", "_")


def export_po(game: Game, lang: str, entries: dict[str, Entry]) -> bytes:
    """A PO file of the game's texts in `lang`: each unit one message, in the pack's order,
    its translation filled in when there is one, fuzzy when stale (made from another source
    text, or recording none); the same pack gives the same bytes."""
    title = " ".join(game.spec.title.split())
    catalog = Catalog(locale=po_language(lang), project=title, version=game.spec.version,
                      creation_date=_made(game), fuzzy=False, language_team=lang,
                      header_comment=f"# {title}: its texts to translate into {lang}, one "
                      "message each.\n# Written by pnp translations GAME --lang "
                      f"{lang} --export; read back with --import.\n# Keep each {{placeholder}}, "
                      ":icon: and **bold** of the source text.")
    columns = column_contexts(game, lang)
    for unit in source_units(game):
        entry = entries.get(unit.context)
        text = entry.text if entry is not None and entry.text is not None else ""
        stale = bool(text) and entry is not None and entry.source != unit.source
        message = catalog.add(unit.text, text, [(pack_file(game, unit), unit.line)],
                              flags=["fuzzy"] if stale else [], context=unit.context,
                              auto_comments=[_described(game, unit, lang,
                                                        unit.context in columns)])
        message.flags &= {"fuzzy"}  # a text of the pack is no Python format string
    out = io.BytesIO()
    write_po(out, catalog, width=0)
    return out.getvalue()


@dataclass
class Imported:
    """What importing a PO file gives: the language's entries, as they now are, the
    messages taken (and of them, those stale), the spreadsheet cells whose source was
    recorded, and what was left alone, told per message."""

    entries: dict[str, Entry]
    taken: int = 0
    cells: int = 0
    stale: int = 0
    notes: list[str] = field(default_factory=list)


def import_po(game: Game, lang: str, data: bytes, shown: str,
              entries: dict[str, Entry]) -> Imported:
    """The language's entries with a PO file's translations laid over them: each message of
    a unit recording the hash of the msgid it was made from (a fuzzy one, the hash it had
    before); an empty msgstr is no translation. A spreadsheet column's text is never
    rewritten: a PO text that differs is told, and the column's record kept. A message of
    no unit of the pack is told and skipped. PnpError (E137) for a file that is no PO file
    of `lang`."""
    units = {unit.context: unit for unit in source_units(game)}
    columns = column_contexts(game, lang)
    result = Imported(dict(entries))
    for message in read_messages(data, shown, lang):
        context, text = message.context, message.string
        unit = units.get(context or "")
        if unit is None:
            result.notes.append(f"{shown}:{message.lineno}: msgctxt {context!r} is no text "
                                "of the pack now (a card or field renamed or removed since "
                                "the export): skipped")
            continue
        if not isinstance(text, str) or not isinstance(message.id, str):
            result.notes.append(f"{shown}:{message.lineno}: {context}: a plural message, "
                                "which pnp does not write: skipped")
            continue
        before = entries.get(context or "")
        fuzzy = message.fuzzy
        source = (before.source if before is not None else None) if fuzzy \
            else source_hash(message.id)
        if unit.context in columns:
            if before is None or not text:
                continue
            note = _column(before, text, source, unit, game, lang, result.entries)
            result.notes += [note] if note else []
            result.cells += note is None
            continue
        if not text:
            result.entries.pop(unit.context, None)
            continue
        where = before.path if before is not None else ""
        result.entries[unit.context] = Entry(text, source, where, 0)
        result.taken += 1
        result.stale += source != unit.source
    return result


def _column(before: Entry, text: str, source: str | None, unit: Unit, game: Game,
            lang: str, entries: dict[str, Entry]) -> str | None:
    """A message of a text a spreadsheet column translates: when the PO's text is the
    column's, its source recorded; else what to do, as only the spreadsheet is changed."""
    if text != before.text:
        name = _card_key(unit.key)[2]
        return (f"{pack_file(game, unit)}:{before.line} ({name}@{lang}): the PO file's text "
                "differs; pnp does not rewrite spreadsheets: change the cell")
    entries[unit.context] = replace(before, source=source)
    return None


def read_messages(data: bytes, shown: str, lang: str) -> list[Message]:
    """The messages of a PO file (not its header, not obsolete ones) read with Babel; PnpError
    (E137) naming the file and line for a file that is not UTF-8, a line that is no part of
    a message, or a file of another language."""
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise PnpError("is not UTF-8 text: save it as UTF-8 (every PO editor can)", "E137",
                       shown, data[:exc.start].count(b"\n") + 1) from None
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if line and not line.startswith("#") and not _PO_LINE.fullmatch(line):
            raise PnpError("is not a line of a PO file (a quoted text, after msgctxt, msgid "
                           "or msgstr, or a # comment): fix it, or export again", "E137",
                           shown, number)
    try:
        catalog = read_po(lines, abort_invalid=True)
    except PoFileError as exc:
        raise PnpError(f"is not a PO file as gettext writes it: {exc.args[0].rsplit(' on ', 1)[0]}",
                       "E137", shown, exc.lineno + 1) from None
    given = catalog.locale_identifier
    if given and given.lower() != po_language(lang).lower():
        raise PnpError(f"is a PO file of the language '{given}' (its Language: header), not "
                       f"of '{lang}': import it with --lang {given.replace('_', '-')}", "E137",
                       shown)
    return [message for message in catalog if message.id]
