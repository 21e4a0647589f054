"""JSON Schemas of a pack's files, for editors: game.yaml, each deck file and the rules file.

The schemas come from the same pydantic models the loader checks with (`schema.py`), so what
an editor flags is what `pnp validate` reports as E010: a misspelled key
(`additionalProperties: false`), a wrong type, a missing required field. A card's values may
be `{rule.path}` placeholders, which the loader fills before it checks the card, so wherever
a card takes something other than any text, the schema takes a placeholder as well.

`# yaml-language-server: $schema=<path>` as a file's first line (a YAML comment, which the
loader never sees) makes VS Code's YAML extension and other editors use a schema.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..pipeline.owned import open_named
from .files import FileRefused, inside, read_bytes
from .rules import PLACEHOLDER
from .schema import CardBase, DeckSpec, FieldSpec, GameSpec, card_model
from .spreadsheet import is_spreadsheet

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SUFFIX = ".schema.json"
MODELINE = "# yaml-language-server: $schema="
_PLACEHOLDER_REF = {"$ref": "#/$defs/Placeholder"}
_PLACEHOLDER_DEF = {
    "description": "a {rule.path} placeholder (or a sum such as {a.b + 1}), filled from the "
                   "rules file before the card is checked",
    "pattern": rf"^\s*{PLACEHOLDER.pattern}\s*$",
    "type": "string",
}
_ANNOTATIONS = ("title", "description", "default", "examples")
_STRING_LIMITS = ("pattern", "enum", "const", "format", "minLength", "maxLength")


class Within(BaseModel):
    """Rules that must lie in a range, as on a track (E093)."""

    model_config = ConfigDict(extra="forbid")

    min: str | float = Field(description="the lowest value: a rule path or a number")
    max: str | float = Field(description="the highest value: a rule path or a number")
    rules: list[str] = Field(description="the rule paths checked; `*` matches any one key")


class RuleChecks(BaseModel):
    """Checks `pnp validate` runs on the rules' own numbers."""

    model_config = ConfigDict(extra="forbid")

    non_negative: list[str] = Field([], description="rule paths that must not be negative "
                                    "(E092); `*` matches any one key: actions.*.cost")
    within: list[Within] = Field([], description="ranges rules must lie in (E093)")
    contiguous: list[str] = Field([], description="tables whose rows (`min`/`max` or "
                                  "`first`/`last`) must join without a gap or overlap (E094)")


class RulesFile(BaseModel):
    """The rules file: every number of the rules, written once; cards quote them as {path},
    templates and the rulebook as {{ rules.path }}. Every key but `terms` and `checks` is the
    pack's own."""

    model_config = ConfigDict(extra="allow")

    terms: dict[str, str | list[str]] = Field({}, description="for a rule path, the phrases "
                                              "that restate it, `#` standing for the number; "
                                              "a literal number in them is W010, or E090 when "
                                              "it disagrees")
    checks: RuleChecks = Field(RuleChecks(), description="checks on the rules' own numbers")


@dataclass(frozen=True)
class SchemaFile:
    """One schema to write: its file name, the pack file it is for (None for a generic one)
    and the schema itself."""

    name: str
    target: str | None
    schema: dict[str, Any]


def dumps(schema: dict[str, Any]) -> str:
    """A schema as stable text: keys sorted, two-space indent, UTF-8 as written, a last newline."""
    return json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def game_schema() -> dict[str, Any]:
    """The schema of game.yaml."""
    return _document(GameSpec.model_json_schema(), "game.yaml")


def rules_schema() -> dict[str, Any]:
    """The schema of the rules file: any keys, and the shape of `terms` and `checks`."""
    return _document(RulesFile.model_json_schema(), "rules file")


def deck_schema(deck: DeckSpec | None = None, game: str = "") -> dict[str, Any]:
    """The schema of a deck file, a YAML list of cards: with a deck, its cards' keys and the
    fields game.yaml declares for it; without, the keys every card has, any other allowed."""
    model = CardBase if deck is None else card_model(deck)
    card = model.model_json_schema()
    defs = card.pop("$defs", {})
    name = model.__name__
    if deck is None:
        card["additionalProperties"] = True
        card["description"] = (f"{CardBase.__doc__} Any other key is a field the deck "
                               "declares under `fields:` in game.yaml.")
        title = "deck file"
    else:
        card["description"] = (f"A card of deck '{deck.id}' ({deck.name}): the keys every card "
                               "has, and the fields game.yaml declares for the deck.")
        for field, spec in deck.fields.items():
            card["properties"][field]["description"] = field_note(spec)
        title = f"{deck.file}: deck '{deck.id}' ({deck.name})" + (f" of {game}" if game else "")
    defs = {key: _inside(value) for key, value in {**defs, name: card}.items()}
    schema = {
        "$defs": {**defs, "Placeholder": dict(_PLACEHOLDER_DEF)},
        "description": "A list of cards. Where a card takes a number, a yes/no or one of a "
                       "list, it may also take a {rule.path} placeholder.",
        "items": {"$ref": f"#/$defs/{name}"},
        "type": "array",
    }
    return _document(schema, title)


def field_note(spec: FieldSpec) -> str:
    """What a declared field holds, for an editor's hover: its label, type and target."""
    target = (f" of deck '{spec.deck}'" if spec.deck else
              f" of table '{spec.table}'" if spec.table else "")
    kinds = {"ref": f"a card id{target}" if spec.deck else f"a key{target}",
             "refs": f"card ids{target}" if spec.deck else f"keys{target}",
             "choice": "one of: " + ", ".join(map(str, spec.choices or [])),
             "text": "card text (**bold** and {rule.path} placeholders)",
             "image": "an image file in the pack",
             "rows": "a list of rows, each a mapping",
             "sections": "labelled paragraphs (label, text)",
             "counts": "a mapping of names to numbers",
             "str": "a line of text", "int": "a whole number", "bool": "true or false",
             "list": f"a list of {'numbers' if spec.items == 'number' else 'text'}"}
    parts = [spec.label] if spec.label else []
    parts.append(f"{spec.type}: {kinds.get(spec.type, spec.type)}")
    if spec.required:
        parts.append("required")
    if not spec.printed:
        parts.append("data no card template prints")
    return "; ".join(parts)


def generic_schemas() -> list[SchemaFile]:
    """The schemas that hold for any pack: game.yaml, a deck file, the rules file."""
    return [SchemaFile("game" + SUFFIX, None, game_schema()),
            SchemaFile("deck" + SUFFIX, None, deck_schema()),
            SchemaFile("rules" + SUFFIX, None, rules_schema())]


def pack_schemas(spec: GameSpec) -> list[SchemaFile]:
    """A pack's schemas: game.yaml's, the rules file's, and one for each YAML deck file named
    after it (beings.yaml: beings.schema.json); a spreadsheet deck has none."""
    found = [SchemaFile("game" + SUFFIX, "game.yaml", game_schema())]
    taken = {found[0].name}
    if spec.rules is not None:
        found.append(SchemaFile(_unique(_stem(spec.rules), taken), spec.rules, rules_schema()))
    for deck in spec.decks:
        if is_spreadsheet(Path(deck.file)):
            continue
        found.append(SchemaFile(_unique(_stem(deck.file), taken, deck.id), deck.file,
                                deck_schema(deck, spec.title)))
    return found


def write_schemas(out: Path, schemas: list[SchemaFile]) -> list[Path]:
    """Write each schema into `out`, which is made if need be; the paths written. A link
    where the folder or a schema goes is refused, never followed."""
    out = Path(os.path.abspath(out))
    with open_named(out.parent) as parent, parent.sub(out.name, mark=False) as folder:
        for item in schemas:
            folder.write(item.name, dumps(item.schema).encode("utf-8"))
    return [out / item.name for item in schemas]


def add_modelines(root: Path, out: Path, schemas: list[SchemaFile], limit: int) -> list[Path]:
    """Give each pack file a schema is for the modeline naming it, as its first line, unless
    it has one already (or is not a UTF-8 file inside the pack of at most `limit` bytes); the
    files changed."""
    changed = []
    done: set[str] = set()
    for item in schemas:
        if item.target is None or item.target in done:
            continue
        done.add(item.target)
        try:
            path = inside(root / item.target, [root], name=item.target)
            text = read_bytes(path, limit).decode("utf-8")
        except (FileRefused, UnicodeDecodeError):
            continue
        if any(line.lstrip().startswith(MODELINE) for line in text.splitlines()):
            continue
        link = Path(os.path.relpath(out / item.name, (root / item.target).parent)).as_posix()
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        newline = "\r\n" if "\r\n" in text else "\n"
        _replace(path, f"{bom}{modeline(link)}{newline}{text.removeprefix(bom)}".encode())
        changed.append(path)
    return changed


def _replace(path: Path, data: bytes) -> None:
    """Give a designer's file (its real path) new content at once, its mode kept: never half
    written, never through a link."""
    with open_named(path.parent, make=False) as folder:
        folder.write(path.name, data, mode=stat.S_IMODE(path.lstat().st_mode))


def modeline(schema: str) -> str:
    """The first line that points an editor at a schema, a path relative to the file."""
    return MODELINE + schema


def _document(schema: dict[str, Any], title: str) -> dict[str, Any]:
    """A schema as a file: the draft it follows and a title an editor shows."""
    return {**schema, "$schema": DRAFT, "title": title}


def _stem(file: str) -> str:
    """A schema's name for a pack file: its path less the suffix, folders joined by '-'."""
    path = Path(file)
    return "-".join((*path.parent.parts, path.stem)).lstrip(".-") or "file"


def _unique(stem: str, taken: set[str], deck_id: str = "") -> str:
    """The first of stem.schema.json and stem.<deck id>.schema.json (then numbered) not taken."""
    names = [stem, f"{stem}.{deck_id}"] if deck_id else [stem]
    names += [f"{names[-1]}.{n}" for n in range(2, len(taken) + 3)]
    name = next(name + SUFFIX for name in names if name + SUFFIX not in taken)
    taken.add(name)
    return name


def _inside(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose every value inside (properties, items, mapping values) may also be a
    placeholder; the schema itself unchanged."""
    schema = dict(schema)
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {key: _value(value) for key, value in schema["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            schema[key] = _value(schema[key])
    if isinstance(schema.get("prefixItems"), list):
        schema["prefixItems"] = [_value(item) for item in schema["prefixItems"]]
    if isinstance(schema.get("anyOf"), list):
        schema["anyOf"] = [_inside(member) for member in schema["anyOf"]]
    return schema


def _value(schema: dict[str, Any]) -> dict[str, Any]:
    """A value's schema that also takes a placeholder, unless it takes any text already; its
    title and description stay outside, where editors show them."""
    schema = _inside(schema)
    if "anyOf" in schema:
        if not any(_any_text(member) for member in schema["anyOf"]):
            schema["anyOf"] = [*schema["anyOf"], dict(_PLACEHOLDER_REF)]
        return schema
    if _any_text(schema):
        return schema
    notes = {key: schema.pop(key) for key in _ANNOTATIONS if key in schema}
    return {**notes, "anyOf": [schema, dict(_PLACEHOLDER_REF)]}


def _any_text(schema: dict[str, Any]) -> bool:
    """Whether a schema takes any string at all."""
    return schema.get("type") == "string" and not any(key in schema for key in _STRING_LIMITS)
