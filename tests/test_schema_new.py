"""`pnp schema`: JSON Schemas of a pack's files that accept every real pack and reject what the
loader rejects; and `pnp new`: a scaffold pack that validates clean and builds."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from generator import CARDS_DIR
from generator.cli import main
from generator.layout.workers import Workers
from generator.pack.jsonschema import MODELINE, dumps, game_schema, pack_schemas
from generator.pack.load import load_game, load_spec
from generator.pack.place import list_games
from generator.pack.schema import DeckSpec, GameSpec
from generator.pack.spreadsheet import is_spreadsheet
from generator.pipeline.build import BuildOptions, build_game, validate_game

from .conftest import edit, give_rules, page_texts


def as_editor_reads(data: Any) -> Any:
    """YAML as an editor's YAML 1.2 reads it, in JSON terms: dates are text, keys are text."""
    if isinstance(data, dict):
        return {str(key): as_editor_reads(value) for key, value in data.items()}
    if isinstance(data, list):
        return [as_editor_reads(value) for value in data]
    if isinstance(data, datetime.date):
        return data.isoformat()
    return data


def problems(schema: dict[str, Any], data: Any) -> list[str]:
    """What a schema says of some data, each as `path: message`."""
    return sorted(f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
                  for error in Draft202012Validator(schema).iter_errors(data))


def read(path: Path) -> Any:
    """A YAML file, loaded safely, as an editor reads it."""
    return as_editor_reads(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("game", list_games())
def test_schemas_accept_every_real_pack(game: str) -> None:
    root = CARDS_DIR / game
    spec = load_spec(root)
    schemas = pack_schemas(spec)
    yaml_decks = [deck for deck in spec.decks if not is_spreadsheet(Path(deck.file))]
    rules = [spec.rules] if spec.rules else []
    assert [item.target for item in schemas] == ["game.yaml", *rules, *(
        deck.file for deck in yaml_decks)]
    for item in schemas:
        Draft202012Validator.check_schema(item.schema)
        assert problems(item.schema, read(root / str(item.target))) == [], item.target


def test_schemas_reject_a_misspelled_key(packs: Path) -> None:
    spec = load_spec(packs / "mini")
    game, deck = pack_schemas(spec)
    data = read(packs / "mini" / "game.yaml")
    assert problems(game.schema, {**data, "titel": "x"}) == [
        ": Additional properties are not allowed ('titel' was unexpected)"]
    data["decks"][0]["templte"] = "card"
    assert problems(game.schema, data) == [
        "decks/0: Additional properties are not allowed ('templte' was unexpected)"]
    cards = read(packs / "mini" / "spells.yaml")
    cards[1]["cots"] = 2
    assert problems(deck.schema, cards) == [
        "1: Additional properties are not allowed ('cots' was unexpected)"]


@pytest.mark.parametrize(("card", "valid"), [
    ({"cost": 3}, True),
    ({"cost": "{r.cost}"}, True),  # the loader fills it before it checks the card
    ({"cost": "{ r.cost + 1 }", "qty": "{r.cost}", "draft": "{r.flag}"}, True),
    ({"cost": "3"}, False),  # text is not a number, and no placeholder
    ({"cost": "three"}, False),
    ({"cost": "{r.cost} more"}, False),  # text around a placeholder stays text
    ({"cost": 3, "qty": 0}, False),
    ({"cost": 3, "cots": 1}, False),
    ({}, False),  # cost is required
    ({"cost": 3, "sections": [{"label": "a"}]}, False),  # a section needs its text
])
def test_a_deck_schema_agrees_with_the_loader(packs: Path, card: dict, valid: bool) -> None:
    pack = give_rules(packs, "r:\n  cost: 2\n  flag: false\n")
    entry = {"id": "S1", "name": "火球术", "back": "red", **card}
    (pack / "spells.yaml").write_text(yaml.safe_dump([entry], allow_unicode=True),
                                      encoding="utf-8")
    loaded = load_game("mini", packs)
    by_loader = not [f for f in loaded.findings if f.code in ("E010", "E007")]
    [_, _, deck] = pack_schemas(loaded.spec)
    assert (problems(deck.schema, [entry]) == []) is valid
    assert by_loader is valid


def test_descriptions_come_through() -> None:
    schema = game_schema()
    language = GameSpec.model_fields["language"].description
    assert schema["properties"]["language"]["description"] == language
    assert schema["$defs"]["DeckSpec"]["description"] == DeckSpec.__doc__
    assert schema["$defs"]["DeckSpec"]["additionalProperties"] is False
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    spec = load_spec(CARDS_DIR / "gongde-lunhui")
    beings = next(item for item in pack_schemas(spec) if item.target == "beings.yaml").schema
    card = beings["$defs"]["Card_beings"]
    assert card["properties"]["cost"]["description"] == "成本; int: a whole number; required"
    assert card["required"] == ["id", "name", "cost", "merit", "wisdom"]
    assert card["additionalProperties"] is False


def test_schema_files_are_byte_identical(packs: Path, tmp_path: Path, capsys) -> None:
    pack = packs / "mini"
    for out in ("a", "b"):
        assert main(["schema", str(pack), "--out", str(tmp_path / out)]) == 0
    first = {path.name: path.read_bytes() for path in (tmp_path / "a").iterdir()}
    second = {path.name: path.read_bytes() for path in (tmp_path / "b").iterdir()}
    assert sorted(first) == ["game.schema.json", "spells.schema.json"]
    assert first == second
    text = first["spells.schema.json"].decode()
    assert text == dumps(json.loads(text))  # keys sorted, as dumps writes them
    assert "mini: wrote 2 schemas to" in capsys.readouterr().err


def test_without_a_game_the_generic_schemas(tmp_path: Path, capsys) -> None:
    out = tmp_path / "generic"
    assert main(["schema", "--out", str(out)]) == 0
    written = {path.name: json.loads(path.read_text()) for path in out.iterdir()}
    assert sorted(written) == ["deck.schema.json", "game.schema.json", "rules.schema.json"]
    assert written["game.schema.json"] == game_schema()
    deck = written["deck.schema.json"]
    assert problems(deck, [{"id": "x", "name": "y", "cost": 3, "qty": "{n}"}]) == []
    assert problems(deck, [{"id": "x", "qty": "many"}]) == [
        "0/qty: 'many' is not valid under any of the given schemas",
        "0: 'name' is a required property"]
    assert main(["schema", "--modeline"]) == 2
    assert "pnp schema: error: --modeline needs a GAME" in capsys.readouterr().err


def test_modeline_points_each_file_at_its_schema(packs: Path) -> None:
    pack = packs / "mini"
    before = (pack / "game.yaml").read_bytes()
    edit(pack / "spells.yaml", "  cost: 2\n", "  cost: 2\n  cots: 1\n")
    assert main(["schema", str(pack), "--modeline"]) == 0
    lines = (pack / "spells.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"{MODELINE}schemas/spells.schema.json"
    assert (pack / "game.yaml").read_bytes() == (
        f"{MODELINE}schemas/game.schema.json\n".encode() + before)
    assert (pack / lines[0].split("=", 1)[1]).is_file()
    changed = {name: (pack / name).read_bytes() for name in ("game.yaml", "spells.yaml")}
    assert main(["schema", str(pack), "--modeline"]) == 0  # a file that has one is left be
    assert changed == {name: (pack / name).read_bytes() for name in changed}
    game = load_game("mini", packs)  # the loader reads past the comment, lines one lower
    assert [str(f) for f in game.findings] == [
        f"{pack / 'spells.yaml'}:12: error: E010: card 'S2': unknown field 'cots' "
        "(accepted: art, back, cost, draft, id, motto, name, qty, quote, sections)"]
    assert [card.id for card in game.decks[0].cards] == ["S1", "S3"]


@pytest.mark.parametrize(("lang", "texts"), [
    ("en", {"cards": ["Work", "Gain2coins.", "Trade", "Move", "Festival"],
            "boards": ["Score", "Goal12", "Win"],
            "rulebook": ["LanternHarbor", "Thefirstplayertoreach12onthescoretrackwins."]}),
    ("zh-CN", {"cards": ["劳作", "获得2钱币。", "行动", "事件"],
               "boards": ["分数", "目标12", "胜利"],
               "rulebook": ["最先在分数轨道上到达12的玩家获胜。"]}),
])
def test_new_pack_validates_clean_and_builds(tmp_path: Path, pool: Workers, lang: str,
                                             texts: dict[str, list[str]], capsys) -> None:
    folder = tmp_path / "games" / "lantern-harbor"
    assert main(["new", str(folder), "--lang", lang]) == 0
    assert f"wrote a new pack to {folder}" in capsys.readouterr().err
    game = read(folder / "game.yaml")
    assert game["title"] == "Lantern Harbor"
    for name in ("game.yaml", "rules.yaml", "cards.yaml", "track.yaml"):
        first = (folder / name).read_text(encoding="utf-8").splitlines()[0]
        schema = json.loads((folder / first.removeprefix(MODELINE)).read_text())
        assert problems(schema, read(folder / name)) == [], name
    out = tmp_path / "out"
    result = build_game(folder.name, BuildOptions(), out_root=out, cards_dir=folder.parent,
                        workers=pool)
    assert result.warnings == []
    report = validate_game(folder.name, folder.parent, BuildOptions(), out, workers=pool)
    assert (report.findings, report.unchecked) == ([], [])
    for kind, wanted in texts.items():
        text = "".join(page_texts(out / folder.name / f"{kind}-a4.pdf"))
        assert [word for word in wanted if word not in text] == [], kind
    assert "{" not in "".join(page_texts(out / folder.name / "cards-a4.pdf"))


def test_new_refuses_a_folder_that_is_not_empty(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["new", str(folder)]) == 1
    assert capsys.readouterr().err == (f"pnp: error: {folder} is not empty: pnp new writes a "
                                       "pack into a new or empty folder; nothing was written\n")
    assert [path.name for path in folder.iterdir()] == ["notes.txt"]
    assert main(["new", str(folder / "notes.txt")]) == 1
    assert "notes.txt is a file: pnp new writes a pack into a new or empty folder" in (
        capsys.readouterr().err)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["new", str(empty), "--lang", "zh-CN"]) == 0
    assert read(empty / "game.yaml")["language"] == "zh-CN"
