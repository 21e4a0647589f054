"""Spreadsheet decks: a deck's cards read from a CSV file or an .xlsx workbook, one row each,
and a deck written out as CSV in the same spelling (`pnp deck-csv`).

The header row names each column by a card key, or by a dotted path into one
(`sections.0.label`, `counts.wood`, `skills.1.tags.0`); a column named by a list or a mapping
itself holds it as YAML flow text (`[布施, 讲学]`, `[]`). Each cell is typed by the deck's card
model: an int column's "3" is 3, a bool column's cell is true or false, an empty cell is no
value. Rows come back as the mappings a YAML deck gives, each key's line the row's (CSV) or
its cell (xlsx, a CellRef), so every later check names the same place.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import warnings
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin
from xml.parsers import expat

import yaml
from pydantic import BaseModel

from ..check.findings import CellRef, Finding, PackError, PnpError, display_path
from .files import FileRefused, decode, inside, read_bytes
from .rules import PLACEHOLDER, plain
from .schema import CardBase, DeckSpec, Limits, card_model
from .translate import Entry, field_key
from .yamlfile import LineDict, LineList, Naming, parse_yaml, read_yaml

if TYPE_CHECKING:
    from .load import Game

SUFFIXES = (".csv", ".xlsx")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an encrypted workbook, or an old .xls
_INTEGER = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_DTD = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)
_CHUNK = 1 << 20  # a workbook's parts are read this many bytes at a time
# A CSV cell a spreadsheet would run as a formula (OWASP: `=`, `+`, `-`, `@`, tab, CR), after
# any apostrophes: pnp writes it behind one more apostrophe, and reads that one off again.
_FORMULA = re.compile(r"'*[=+\-@\t\r]")

Value = Any  # a cell as read: str (CSV), or str, int, float, bool, a date or None (xlsx)


class SpreadsheetError(PnpError):
    """A deck that cannot be written as CSV and read back the same."""

    code = "E106"


class _Bad(Exception):
    """A header or a cell that does not read: the finding's message and code."""

    def __init__(self, message: str, code: str = "E010"):
        super().__init__(message)
        self.message, self.code = message, code


def is_spreadsheet(path: Path) -> bool:
    """Whether a deck's file is read as a spreadsheet (by its suffix) rather than as YAML."""
    return path.suffix.lower() in SUFFIXES


def _letter(index: int) -> str:
    """A column's letters from its index counted from 0: 0 is A, 26 is AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _sheet_ref(title: str) -> str:
    """A sheet's name as a cell reference writes it: quoted when it holds more than letters,
    digits and `_`, as Excel does."""
    if title and not title[0].isdigit() and all(char.isalnum() or char == "_" for char in title):
        return title
    return "'" + title.replace("'", "''") + "'"


@dataclass
class Table:
    """A spreadsheet's rows that hold anything, each with where it is: for CSV the line it
    starts on, for a workbook its row number; the first is the header."""

    sheet: str | None  # the worksheet's name; None for CSV
    rows: list[tuple[int, list[Value]]]

    def at(self, row: int, column: int) -> int:
        """Where a finding about one cell points: the row's line (CSV) or the cell (xlsx)."""
        if self.sheet is None:
            return row
        return CellRef(row, f"{_sheet_ref(self.sheet)}!{_letter(column)}{row}")


@dataclass(frozen=True)
class Column:
    """One header cell: the card key (or path into one) it names, and how its cells are
    typed: str, int, bool, scalar (a `rows` value, read as what it looks like) or yaml
    (a list or mapping as YAML flow text)."""

    header: str
    path: tuple[str | int, ...]
    kind: str
    language: str | None = None  # a translation's column, `<field>@<language>`
    key: str = ""  # the field it translates, as a translation names it (`sections.1.text`)


@dataclass
class SheetDeck:
    """A spreadsheet deck's cards as YAML-like mappings with their lines, and the indexes of
    the rows whose cells did not read (their findings are told; the card is left out)."""

    cards: LineList
    failed: set[int] = field(default_factory=set)
    translations: dict[int, dict[str, dict[str, Entry]]] = field(default_factory=dict)  # the
    # `<field>@<language>` cells of each card, by its index, the language and the field


# --- reading ---------------------------------------------------------------------------------


def read_deck(path: Path, root: Path, spec: DeckSpec, limits: Limits, naming: Naming,
              findings: list[Finding], languages: Sequence[str] = ()) -> SheetDeck | None:
    """A deck's .csv or .xlsx file read through files.py (inside the pack, within the size
    limit) as card mappings, with the translations of its `<field>@<language>` columns for
    the `languages` given; problems go to findings, and None comes back when the file cannot
    be read at all (that is said where game.yaml names it)."""
    where = display_path(path)
    findings += sheet_misplaced(spec, path, naming)
    try:
        data = read_bytes(inside(path, [root], name=naming.name), limits.file_bytes,
                          name=naming.name)
        table = deck_table(data, path, spec, limits, naming.name)
    except FileRefused as exc:
        if exc.line:
            findings.append(Finding(where, exc.line, exc.message, exc.code))
        else:
            findings.append(Finding(naming.where, naming.line, f"{naming.subject} {exc.message}",
                                    exc.code))
        return None
    return cards_from(table, card_model(spec), path, limits, findings, spec, languages)


def deck_table(data: bytes, path: Path, spec: DeckSpec, limits: Limits, name: str) -> Table:
    """The rows of a deck's file as its suffix reads it: a workbook's sheet, or CSV text;
    FileRefused for what does not read."""
    if path.suffix.lower() == ".xlsx":
        return _xlsx_table(data, spec.sheet, limits, name)
    return _csv_table(decode(data), limits)


def sheet_misplaced(spec: DeckSpec, path: Path, naming: Naming) -> list[Finding]:
    """A deck's `sheet` on a file that is no workbook, at its entry in game.yaml."""
    if spec.sheet is None or path.suffix.lower() == ".xlsx":
        return []
    return [Finding(naming.where, naming.line, f"deck '{spec.id}': `sheet` names a sheet of "
                    f"an .xlsx workbook, and '{naming.name}' is not one", "E010")]


def source_misplaced(spec: DeckSpec, where: str, line: int) -> list[Finding]:
    """A deck's `source` on a file that is no spreadsheet, at the line of its source."""
    if spec.source is None or is_spreadsheet(Path(spec.file)):
        return []
    return [Finding(where, line, f"deck '{spec.id}': `source` downloads a .csv or .xlsx "
                    f"file, and '{spec.file}' is neither (`pnp deck-csv` turns a YAML deck "
                    "into CSV)", "E010")]


def _csv_table(text: str, limits: Limits) -> Table:
    """The rows of CSV text (a BOM dropped), each with the line it starts on (a cell may
    span lines); FileRefused for what is not CSV, or holds more than the limit of cells."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""), strict=True)
    rows, count = [], 0
    while True:
        start = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise FileRefused("E005", "not CSV: a quoted cell that starts in this row is "
                                  "never closed", start) from None
            raise FileRefused("E005", f"not CSV: {exc}", reader.line_num or start) from None
        count += 1 + len(cells)
        if count > limits.yaml_nodes:
            raise FileRefused("E006", _too_many(limits), start)
        if any(cells):
            rows.append((start, [_formula_read(cell) for cell in cells]))
    if not rows:
        raise FileRefused("E005", "no header row: the first row of a spreadsheet deck names "
                          "its columns", 1)
    header = rows[0][1]
    if len(header) == 1 and any(mark in header[0] for mark in ";\t"):
        raise FileRefused("E005", f"the header row is one column, '{header[0][:60]}': a CSV "
                          "deck's cells are separated by commas (save it as \"CSV UTF-8, "
                          "comma-separated\")", rows[0][0])
    return Table(None, rows)


def _too_many(limits: Limits) -> str:
    return (f"more than {limits.yaml_nodes} rows and cells (`limits: yaml_nodes` in game.yaml "
            "counts them)")


def _xlsx_table(data: bytes, sheet: str | None, limits: Limits, name: str) -> Table:
    """The rows of one worksheet of an .xlsx workbook (cached values, not formulas): the
    sheet named, else the first. The archive is checked before openpyxl opens it."""
    _check_archive(data, limits, name)
    import openpyxl  # only a workbook deck pays for importing it

    try:
        with warnings.catch_warnings():  # openpyxl warns of features it leaves out
            warnings.simplefilter("ignore")
            book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True,
                                          keep_links=False)
    except Exception as exc:  # noqa: BLE001 - a stranger's file fails in many ways
        raise FileRefused("E001", f"'{name}' cannot be read as a workbook: {_reason(exc)}"
                          ) from None
    try:
        if sheet is not None and sheet not in book.sheetnames:
            raise FileRefused("E001", f"'{name}' has no sheet '{sheet}' (sheets: "
                              f"{', '.join(book.sheetnames)})")
        pages = [book[sheet]] if sheet is not None else book.worksheets
        if not pages or not hasattr(pages[0], "iter_rows"):
            raise FileRefused("E001", f"'{name}' has no worksheet" if sheet is None else
                              f"'{name}': sheet '{sheet}' is a chart, not cells")
        page = pages[0]
        page.reset_dimensions()  # rows as the file holds them, not as its header claims
        table = Table(page.title, [])
        count = 0
        for number, values in enumerate(page.iter_rows(min_row=1, min_col=1, values_only=True),
                                        start=1):
            count += 1 + len(values)
            if count > limits.yaml_nodes:
                raise FileRefused("E006", _too_many(limits), table.at(number, 0))
            cells = [_normalized(value) for value in values]
            while cells and _empty(cells[-1]):
                cells.pop()
            if cells:
                table.rows.append((number, cells))
    except FileRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - a stranger's file fails in many ways
        raise FileRefused("E001", f"'{name}' cannot be read as a workbook: {_reason(exc)}"
                          ) from None
    finally:
        book.close()
    if not table.rows:
        raise FileRefused("E005", "no header row: the first row of a spreadsheet deck names "
                          "its columns", table.at(1, 0))
    return table


def _check_archive(data: bytes, limits: Limits, name: str) -> None:
    """Refuse a workbook that is not a zip archive (an encrypted one is not), that unpacks to
    more than the file size limit (a zip bomb), any of whose parts declares a DTD (entity
    bombs), or that holds a cell of more text than the limit (a cell bomb): each part is read
    through before openpyxl parses any, whatever its name and the size its entry states."""
    if data.startswith(OLE_MAGIC):
        raise FileRefused("E001", f"'{name}' is password-protected or an old .xls workbook: "
                          "save it as an .xlsx workbook without a password")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            stated = sum(member.file_size for member in members)
            if stated > limits.file_bytes:
                raise FileRefused("E006", _unpacks(name, f"{stated / 1e6:.1f} MB", limits))
            budget = limits.file_bytes
            for member in members:
                budget = _check_part(archive, member, budget, limits, name)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError,
            RuntimeError, ValueError) as exc:
        raise FileRefused("E001", f"'{name}' is not an .xlsx workbook: {_reason(exc)}"
                          ) from None


def _unpacks(name: str, size: str, limits: Limits) -> str:
    """What a finding says of a workbook that unpacks to more than the file size limit."""
    return (f"'{name}' unpacks to {size}, over the limit of {limits.file_bytes / 1e6:g} MB "
            "(`limits: file_mb` in game.yaml)")


def _check_part(archive: zipfile.ZipFile, member: zipfile.ZipInfo, budget: int,
                limits: Limits, name: str) -> int:
    """Read one part of a workbook a chunk at a time, within the bytes left of the budget:
    FileRefused when it passes them, declares a DTD (in UTF-8 or UTF-16 alike) or holds a
    cell past the limit. What is left of the budget comes back."""
    cells = _CellText(limits.string_chars, name, member.filename)
    tail = b""
    with archive.open(member) as stream:
        while chunk := stream.read(_CHUNK):
            budget -= len(chunk)
            if budget < 0:
                read = (limits.file_bytes - budget) / 1e6
                raise FileRefused("E006", _unpacks(name, f"more than {read:.1f} MB", limits))
            seen = tail + chunk.replace(b"\0", b"")
            if _DTD.search(seen):
                raise FileRefused("E001", f"'{name}' cannot be read as a workbook: "
                                  f"{member.filename} declares a DTD, which no workbook needs")
            tail = seen[-16:]
            cells.feed(chunk)
    return budget


class _CellText:
    """The text of each cell in one part of a workbook, counted as the part is read (a
    worksheet's `<c>`, a shared string's `<si>`, else each `<v>` or `<t>` alone): FileRefused
    at the first past the limit, before openpyxl would hold it. A part that is not XML (a
    picture) is let be."""

    def __init__(self, limit: int, name: str, part: str):
        self.limit, self.name, self.part = limit, name, part
        self.count, self.cell, self.strings = 0, "", 0
        self.in_cell = self.in_text = False
        self.parser: Any = expat.ParserCreate(namespace_separator=" ")
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._text

    def feed(self, chunk: bytes) -> None:
        """Parse the next bytes of the part, as long as it reads as XML."""
        if self.parser is None:
            return
        try:
            self.parser.Parse(chunk, False)
        except expat.ExpatError:
            self.parser = None  # openpyxl refuses it, when it is a part it reads

    def _start(self, tag: str, attributes: dict[str, str]) -> None:
        local = tag.rsplit(" ", 1)[-1]
        self.in_text = local in ("v", "t")
        if local == "c":
            self.count, self.cell, self.in_cell = 0, f", cell {attributes.get('r', '?')}", True
        elif local == "si":
            self.strings += 1
            self.count, self.cell, self.in_cell = 0, f", shared string {self.strings}", True
        elif self.in_text and not self.in_cell:
            self.count, self.cell = 0, ""

    def _end(self, tag: str) -> None:
        self.in_text = False
        if tag.rsplit(" ", 1)[-1] in ("c", "si"):
            self.in_cell = False

    def _text(self, text: str) -> None:
        if not self.in_text:
            return
        self.count += len(text)
        if self.count > self.limit:
            raise FileRefused("E006", f"'{self.name}' holds a cell of more than {self.limit} "
                              f"characters ({self.part}{self.cell}), over the limit of "
                              f"{self.limit} (`limits: string_chars` in game.yaml)")


def _reason(exc: Exception) -> str:
    """An exception told in one short line."""
    told = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {told}" if told else type(exc).__name__


def _normalized(value: Value) -> Value:
    """A workbook's cell with its line breaks as `\\n`."""
    if isinstance(value, str) and "\r" in value:
        return value.replace("\r\n", "\n").replace("\r", "\n")
    return value


def _formula_read(cell: str) -> str:
    """A CSV cell as written before write_csv kept a spreadsheet from running it: the one
    apostrophe it put before a formula's first character taken off (`'=1` is `=1`, `'-3` is
    `-3`, `''=1` is `'=1`); any other cell as it is (`'tis`)."""
    return cell[1:] if cell.startswith("'") and _FORMULA.match(cell, 1) else cell


def _empty(value: Value) -> bool:
    """Whether a cell gives no value: nothing, or only white space."""
    return value is None or (isinstance(value, str) and not value.strip())


def cards_from(table: Table, model: type[CardBase], path: Path, limits: Limits,
               findings: list[Finding], spec: DeckSpec | None = None,
               languages: Sequence[str] = ()) -> SheetDeck:
    """The card mappings of a table's rows, typed by the deck's card model, and the cells of
    its columns translating a field into one of the `languages` (`name@es`, for the deck
    `spec` given); a bad header cell leaves its column out, a bad cell its card."""
    where = display_path(path)
    columns = _columns(table, model, where, findings, spec, languages)
    deck = SheetDeck(LineList())
    deck.cards.line, deck.cards.lines = table.rows[0][0], []
    width = len(table.rows[0][1])
    for row, cells in table.rows[1:]:
        if all(_empty(cell) for cell in cells):
            continue
        item, ok, translated = _card(table, row, cells, columns, path, limits, findings)
        if translated:
            deck.translations[len(deck.cards)] = translated
        if table.sheet is None and (len(cells) < width or not all(
                _empty(cell) for cell in cells[width:])):  # a workbook's rows end where they do
            findings.append(Finding(where, row, f"{_subject(item)}the row has {len(cells)} "
                                    f"cells, and the header row {width}", "E005"))
            ok = False
        if not ok:
            deck.failed.add(len(deck.cards))
        deck.cards.append(item)
        deck.cards.lines.append(item.line)
    return deck


def _columns(table: Table, model: type[BaseModel], where: str, findings: list[Finding],
             deck: DeckSpec | None = None, languages: Sequence[str] = ()
             ) -> list[Column | None]:
    """Each header cell as a Column, or None for a blank one and one that is a mistake (a
    finding at its cell: an unknown or misspelt key, a name given twice, a translation into
    a language not among `languages` or of no text)."""
    row, cells = table.rows[0]
    columns: list[Column | None] = []
    seen: dict[str, int] = {}
    for index, cell in enumerate(cells):
        header = _text(cell).strip() if not _empty(cell) else ""
        column = None
        if header in seen:
            findings.append(Finding(where, table.at(row, index), f"column '{header}' appears "
                                    f"twice in the header row ({_letter(seen[header])} and "
                                    f"{_letter(index)})", "E005"))
        elif header:
            seen[header] = index
            try:
                column = _column(header, model) if "@" not in header else \
                    _translation(header, model, deck, languages)
            except _Bad as exc:
                findings.append(Finding(where, table.at(row, index), exc.message, exc.code))
        columns.append(column)
    return columns


def _column(header: str, model: type[BaseModel]) -> Column:
    """The Column a header names: a key of the card model, then a list index or a key at
    each dot; _Bad when it names nothing the model has."""
    first, *rest = header.split(".")
    if "" in rest:
        raise _Bad(f"column '{header}': a dot with no name after it")
    found = model.model_fields.get(first)
    if found is None:
        raise _Bad(f"unknown column '{header}' (accepted: "
                   f"{', '.join(sorted(model.model_fields))})")
    path: list[str | int] = [first]
    annotation = found.annotation
    for part in rest:
        segment, annotation = _step(annotation, part, header, ".".join(map(str, path)))
        path.append(segment)
    return Column(header, tuple(path), _kind(annotation))


def _translation(header: str, model: type[BaseModel], deck: DeckSpec | None,
                 languages: Sequence[str]) -> Column:
    """The Column of a header `<field>@<language>`, translating one text of the card into
    one of the game's other languages; _Bad when it is not one."""
    named, _, language = header.rpartition("@")
    if deck is None or language not in languages:
        others = f"its other languages: {', '.join(languages)}" if languages else \
            "it has no other: `languages:` in game.yaml"
        raise _Bad(f"unknown column '{header}': the game is not in '{language}' ({others})")
    column = _column(named, model)
    key = field_key(deck, column.path)
    if key is None:
        raise _Bad(f"column '{header}' translates nothing: '{named}' is no text to translate "
                   "(a text field, or one item or cell of one, `sections.0.text@es`)", "E133")
    return Column(header, column.path, "str", language, key)


def _options(annotation: Any) -> list[Any]:
    """The types a value may have: X | None is X, a union its members."""
    if get_origin(annotation) in (Union, UnionType):
        return [arg for arg in get_args(annotation) if arg is not NoneType]
    return [annotation]


def _step(annotation: Any, part: str, header: str, before: str) -> tuple[str | int, Any]:
    """One dotted part of a header: a list's index or a mapping's key, with the type of what
    it reaches."""
    options = _options(annotation)
    for option in options:
        origin = get_origin(option)
        if origin is list and part.isdigit() and len(part) <= 6:
            return int(part), get_args(option)[0]
        if origin is dict and part:
            return part, get_args(option)[1]
        if isinstance(option, type) and issubclass(option, BaseModel):
            inner = option.model_fields.get(part)
            if inner is None:
                raise _Bad(f"column '{header}': '{before}' has no key '{part}' (accepted: "
                           f"{', '.join(sorted(option.model_fields))})")
            return part, inner.annotation
    if any(get_origin(option) is list for option in options):
        raise _Bad(f"column '{header}': '{part}' is not a list index ({before}.0, "
                   f"{before}.1, …)")
    raise _Bad(f"column '{header}': '{before}' holds one value, so nothing follows a dot")


def _kind(annotation: Any) -> str:
    """How the cells of a column whose header ends at this type are read."""
    options = _options(annotation)
    if len(options) > 1:
        return "scalar"
    [option] = options
    if option is bool or option is int or option is str:
        return option.__name__
    if option is float:
        return "scalar"
    return "str" if get_origin(option) is Literal else "yaml"


def _card(table: Table, row: int, cells: list[Value], columns: list[Column | None],
          path: Path, limits: Limits, findings: list[Finding]
          ) -> tuple[LineDict, bool, dict[str, dict[str, Entry]]]:
    """One row as a card mapping, whether every cell read, and its translation cells (by
    language and field); each problem is a finding at its cell."""
    where = display_path(path)
    header = table.rows[0][1]
    tree = _Branch()
    ok, given = True, dict[tuple[str | int, ...], str]()
    translated: dict[str, dict[str, Entry]] = {}
    named = [index for index, column in enumerate(columns)
             if column is not None and column.path == ("id",)]
    subject = _subject_of(cells[named[0]]) if named and named[0] < len(cells) else ""
    for index, cell in enumerate(cells):
        if _empty(cell):
            continue
        at = table.at(row, index)
        column = columns[index] if index < len(columns) else None
        if column is None:  # a CSV row longer than the header is told as a whole
            if index < len(header) and _empty(header[index]) or (
                    index >= len(header) and table.sheet is not None):
                findings.append(Finding(where, at, f"{subject}column {_letter(index)} has no "
                                        "header, and this row fills it", "E005"))
                ok = False
            continue
        try:
            value = _value(cell, column.kind, path, at, limits)
            if column.language is not None:
                translated.setdefault(column.language, {})[column.key] = Entry(
                    value, None, where, at)
                continue
            _place(tree, column, value, at, given)
        except _Bad as exc:
            findings.append(Finding(where, at, f"{subject}column '{column.header}': "
                                    f"{exc.message}", exc.code))
            ok = False
    tree.line = table.at(row, named[0] if named else 0)
    return _finished(tree), ok, translated


def _subject_of(cell: Value) -> str:
    """How messages name the card of a row: by its id cell, when it has one."""
    return f"card '{_text(cell).strip()}': " if not _empty(cell) else ""


def _subject(item: Any) -> str:
    """How messages name a card read from a row: by its id, when it has one."""
    card_id = item.get("id") if isinstance(item, dict) else None
    return f"card '{card_id}': " if isinstance(card_id, str) else ""


class _Branch(LineDict):
    """A mapping being built from dotted columns; one keyed by indexes becomes a list."""

    def __init__(self, line: int = 0):
        super().__init__()
        self.line = line
        self.lines = {}


def _place(tree: _Branch, column: Column, value: Any, at: int,
           given: dict[tuple[str | int, ...], str]) -> None:
    """Put a cell's value at its column's path, refusing a value that another column gives
    too (`tags` whole, and `tags.0`)."""
    node = tree
    for depth, segment in enumerate(column.path):
        whole = column.path[:depth + 1]
        last = depth == len(column.path) - 1
        held = node.get(segment)
        if (held is not None and not isinstance(held, _Branch)) or (last and held is not None):
            other = given.get(whole) or next(
                header for path, header in given.items() if path[:len(whole)] == whole)
            raise _Bad(f"'{'.'.join(map(str, whole))}' is given by column '{other}' too")
        if segment not in node.lines:
            node.lines[segment] = at
        if last:
            node[segment] = value
            given[column.path] = column.header
        else:
            if held is None:
                held = node[segment] = _Branch(at)
            node = held


def _finished(node: Any) -> Any:
    """A built tree as the loader's mappings and lists, lines kept; indexes become a list
    in their order (a gap closes up)."""
    if not isinstance(node, _Branch):
        return node
    keys = list(node)
    if keys and all(isinstance(key, int) for key in keys):
        ordered = sorted(keys)
        items = LineList(_finished(node[key]) for key in ordered)
        items.line, items.lines = node.line, [node.lines[key] for key in ordered]
        return items
    mapping = LineDict((key, _finished(node[key])) for key in keys)
    mapping.line, mapping.lines = node.line, dict(node.lines)
    return mapping


def _value(cell: Value, kind: str, path: Path, at: int, limits: Limits) -> Any:
    """A cell as its column's type; _Bad when it is not one. A cell holding a `{rule}`
    placeholder stays text: the rules fill it later, as in a YAML deck."""
    if isinstance(cell, str):
        if len(cell) > limits.string_chars:
            raise _Bad(f"a cell of {len(cell)} characters, over the limit of "
                       f"{limits.string_chars} (`limits: string_chars` in game.yaml)", "E006")
        if kind != "str" and kind != "yaml" and PLACEHOLDER.search(cell):
            return cell
    if isinstance(cell, datetime.date | datetime.time | datetime.timedelta):
        raise _Bad(f"the cell holds a date or a time ({cell}), which the spreadsheet made of "
                   "what was typed: format the column as text")
    if kind == "str":
        return _text(cell)
    if kind == "int":
        return _integer(cell, limits)
    if kind == "bool":
        return _boolean(cell)
    if kind == "yaml":
        return _flow(cell, path, at, limits)
    return _scalar(cell, limits)


def _text(cell: Value) -> str:
    """A cell as text: a number as the spreadsheet shows it."""
    if isinstance(cell, bool):
        return "TRUE" if cell else "FALSE"
    if isinstance(cell, float):
        return str(int(cell)) if cell.is_integer() else repr(cell)
    return str(cell)


def _integer(cell: Value, limits: Limits) -> int:
    """A whole number's cell as an int, no longer than the digits the limits allow."""
    if isinstance(cell, float) and cell.is_integer():
        cell = int(cell)
    if isinstance(cell, int) and not isinstance(cell, bool):
        return cell
    text = cell.strip() if isinstance(cell, str) else ""
    if not _INTEGER.fullmatch(text):
        raise _Bad(f"'{_text(cell)}' is not a whole number")
    digits = len(text.lstrip("+-"))
    if digits > limits.integer_digits:
        raise _Bad(f"an integer of {digits} digits, over the limit of {limits.integer_digits} "
                   "(`limits: integer_digits` in game.yaml)", "E006")
    return int(text)


def _boolean(cell: Value) -> bool:
    """A true-or-false cell as a bool (any case, as spreadsheets write TRUE)."""
    if isinstance(cell, bool):
        return cell
    text = cell.strip().lower() if isinstance(cell, str) else ""
    if text not in ("true", "false"):
        raise _Bad(f"'{_text(cell)}' is not true or false")
    return text == "true"


def _scalar(cell: Value, limits: Limits) -> Any:
    """A `rows` value, which may be text, a number or true/false: read as what it looks
    like (`3` is 3, `true` is true, anything else text)."""
    if not isinstance(cell, str):
        return cell
    text = cell.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if _INTEGER.fullmatch(text):
        return _integer(text, limits)
    if _FLOAT.fullmatch(text):
        return float(text)
    return cell


def _flow(cell: Value, path: Path, at: int, limits: Limits) -> Any:
    """A list or mapping written whole in one cell as YAML flow text (`[布施, 讲学]`, `[]`),
    read safely within the limits; every line in it is the cell's."""
    found: list[Finding] = []
    value = parse_yaml(_text(cell), path, found, limits)
    if found:
        raise _Bad(found[0].message, found[0].code)
    if not isinstance(value, list | dict):
        raise _Bad(f"'{_text(cell)[:60]}' is not a list or a mapping: write it as YAML flow "
                   "text, such as [a, b], or spread it over dotted columns")
    return _relocated(value, at)


def _relocated(value: Any, at: int) -> Any:
    """YAML read from a cell, each line made the cell's."""
    if isinstance(value, LineDict):
        value.line, value.lines = at, dict.fromkeys(value.lines, at)
    elif isinstance(value, LineList):
        value.line, value.lines = at, [at] * len(value)
    for child in value.values() if isinstance(value, dict) else value \
            if isinstance(value, list) else ():
        _relocated(child, at)
    return value


# --- writing ---------------------------------------------------------------------------------


def deck_csv(game: Game, deck_id: str) -> str:
    """One deck of a loaded game as CSV text in the spelling a spreadsheet deck reads, its
    `{rule}` placeholders kept; SpreadsheetError when it would not read back the same, and
    PackError when the deck itself has errors."""
    deck = next((deck for deck in game.decks if deck.spec.id == deck_id), None)
    if deck is None:
        known = ", ".join(deck.spec.id for deck in game.decks)
        raise SpreadsheetError(f"game '{game.name}' has no deck '{deck_id}' (decks: {known})")
    where = display_path(deck.path)
    own = [f for f in game.findings if f.level == "error" and f.path == where]
    if own or not deck.readable:
        raise PackError(own or [f for f in game.findings if f.level == "error"])
    model = card_model(deck.spec)
    entries = _raw_entries(game, deck.spec, deck.path)
    flat = [_flattened(entry, model) for entry in entries]
    headers = _ordered([list(cells) for cells in flat]) or ["id", "name"]  # a deck of none
    text = write_csv([headers, *([cells.get(header, "") for header in headers]
                                 for cells in flat)])
    _check_round_trip(text, entries, model, deck.path, game.limits)
    return text


def write_csv(rows: Iterable[Iterable[Any]]) -> str:
    """Rows as CSV text (CRLF line ends) that a spreadsheet opening it cannot run: a cell that
    begins with `=`, `+`, `-`, `@`, a tab or a CR, after any apostrophes, is written behind
    one more apostrophe (OWASP's CSV injection rule), which a CSV deck's reader takes off
    again, so any text reads back the same; None is an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        cells = ("" if cell is None else str(cell) for cell in row)
        writer.writerow("'" + cell if _FORMULA.match(cell) else cell for cell in cells)
    return buffer.getvalue()


def _raw_entries(game: Game, spec: DeckSpec, path: Path) -> list[Any]:
    """A deck's cards as its file holds them, placeholders unfilled."""
    findings: list[Finding] = []
    if is_spreadsheet(path):
        naming = Naming(display_path(game.root / "game.yaml"), 0, f"deck '{spec.id}': file",
                        spec.file)
        sheet = read_deck(path, game.root, spec, game.limits, naming, findings)
        entries = list(sheet.cards) if sheet is not None else []
    else:
        entries = read_yaml(path, findings, game.limits, root=game.root) or []
    if findings:
        raise PackError(findings)
    return [plain(entry) for entry in entries]


def _flattened(entry: Any, model: type[CardBase]) -> dict[str, str]:
    """One card as {header: cell text}: scalars in their own column, a list of plain values
    (or an empty list or mapping) as YAML flow text in its field's column, anything holding
    mappings spread over dotted columns."""
    cells: dict[str, str] = {}
    if not isinstance(entry, dict):
        raise SpreadsheetError(f"a card is not a mapping: {str(entry)[:60]}")
    for key, value in entry.items():
        found = model.model_fields.get(str(key))
        if found is None:
            raise SpreadsheetError(f"card '{entry.get('id')}': unknown key '{key}'")
        _flatten(value, found.annotation, str(key), cells, entry.get("id"))
    return cells


def _flatten(value: Any, annotation: Any, header: str, cells: dict[str, str],
             card_id: Any) -> None:
    """Write one value (and what it holds) into a card's cells under its header."""
    if value is None:
        return
    kind = _kind(annotation)
    if kind == "yaml" and isinstance(value, list | dict) and (not value or (
            isinstance(value, list) and not any(isinstance(item, list | dict) for item in value))):
        cells[header] = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True,
                                       width=10**9, sort_keys=False).strip()
    elif isinstance(value, list | dict):
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in pairs:
            try:
                _, inner = _step(annotation, str(key), f"{header}.{key}", header)
            except _Bad as exc:
                raise SpreadsheetError(f"card '{card_id}': {exc.message}") from None
            _flatten(child, inner, f"{header}.{key}", cells, card_id)
    elif isinstance(value, bool):
        cells[header] = "true" if value else "false"
    else:
        cells[header] = _text(value)


def _ordered(rows: list[list[str]]) -> list[str]:
    """Every header the cards use: keys in the order they first appear (the same order in
    every item of a list), list indexes in order, a field's own column before its dotted
    ones (`tallies`, then `sections.0.label`, `sections.0.text`, `sections.1.label`)."""
    rank: dict[tuple[str, ...], int] = {}  # each key, by its path with the indexes left out
    for headers in rows:
        for header in headers:
            parts = header.split(".")
            for depth, part in enumerate(parts):
                if not part.isdigit():
                    rank.setdefault(_shape(parts[:depth + 1]), len(rank))

    def place(header: str) -> list[int]:
        parts = header.split(".")
        return [int(part) if part.isdigit() else rank[_shape(parts[:depth + 1])]
                for depth, part in enumerate(parts)]

    return sorted({header for headers in rows for header in headers}, key=place)


def _shape(parts: list[str]) -> tuple[str, ...]:
    """A dotted path with its list indexes made alike: `skills.2.text` is `skills.#.text`."""
    return tuple("#" if part.isdigit() else part for part in parts)


def _check_round_trip(text: str, entries: list[Any], model: type[CardBase], path: Path,
                      limits: Limits) -> None:
    """Read the CSV just written as a deck would, and refuse it unless every card comes back
    as it was: what a spreadsheet cannot say (a text that looks like a number in a `rows`
    value, a text of only spaces) is named."""
    findings: list[Finding] = []
    try:
        read = cards_from(_csv_table(text, limits), model, path, limits, findings)
    except FileRefused as exc:
        raise SpreadsheetError(f"the CSV would not read back: {exc.message}") from None
    if findings:
        raise SpreadsheetError(f"the CSV would not read back: {findings[0].message}")
    if len(read.cards) != len(entries):
        raise SpreadsheetError(f"the CSV would read back as {len(read.cards)} cards, not "
                               f"{len(entries)}: a card whose cells are all blank is no card")
    for entry, again in zip(entries, read.cards, strict=True):
        wanted, got = _without_none(entry), plain(again)
        if wanted != got:
            key = next(key for key in [*wanted, *got] if wanted.get(key) != got.get(key))
            raise SpreadsheetError(f"card '{entry.get('id')}': '{key}' would not read back "
                                   f"the same from CSV ({wanted.get(key)!r} would read as "
                                   f"{got.get(key)!r})")


def _without_none(value: Any) -> Any:
    """Data less its null values, as an empty cell gives none."""
    if isinstance(value, dict):
        return {key: _without_none(child) for key, child in value.items() if child is not None}
    if isinstance(value, list):
        return [_without_none(child) for child in value]
    return value
