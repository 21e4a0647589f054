"""Hostile and broken packs (issue 17): a pack may come from a stranger, so what it names is
read only inside it, only as a regular file and only within the limits of game.yaml; YAML
that would blow up (aliases, nesting, huge numbers, odd keys) and counts that would fill the
memory are errors at their `path:line`, found in milliseconds."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from generator import cli
from generator.check.findings import PackError
from generator.pack.files import FileRefused, inside, read_bytes, read_text
from generator.pipeline.build import check

from .conftest import edit, give_rules

FATAL = "; nothing else was checked, as the rest depends on it"
NODES = "more than 100000 YAML nodes, aliases expanded (`limits: yaml_nodes` in game.yaml)"
DEPTH = "mappings and lists nest more than 40 deep (`limits: yaml_depth` in game.yaml)"


@contextmanager
def _within(seconds: int) -> Iterator[None]:
    """Fail, rather than hang, when the block runs past `seconds`."""
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _found(cards: Path) -> list[str]:
    """Every finding on the tiny pack, as printed; game.yaml's own too."""
    try:
        findings = check("mini", cards).findings
    except PackError as exc:
        findings = exc.findings
    return [str(finding) for finding in findings]


def _deck(cards: Path, text: str) -> Path:
    """The tiny pack's deck file holding `text`; returns its path."""
    spells = cards / "mini" / "spells.yaml"
    spells.write_text(text, encoding="utf-8")
    return spells


def _laughs(levels: int) -> str:
    """A billion laughs: each anchor a list of nine aliases of the one before."""
    lines = ["- id: S1", "  name: 笑", "  cost: 1", f"  lol0: &l0 [{', '.join(['哈'] * 9)}]"]
    lines += [f"  lol{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


# YAML that would blow up


def test_a_billion_laughs_is_an_error_at_the_alias_that_crosses_the_limit(packs: Path) -> None:
    spells = _deck(packs, _laughs(10))  # 9^10 nodes once expanded
    with _within(10):  # lol4 is 9^5 laughs and more; lol5's second alias of it crosses
        assert _found(packs) == [f"{spells}:9: error: E006: {NODES}"]


def test_a_hundred_thousand_open_brackets_are_an_error_not_a_crash(packs: Path) -> None:
    spells = _deck(packs, "- id: S1\n  name: 深\n  cost: " + "[" * 100_000 + "\n")
    with _within(10):
        assert _found(packs) == [f"{spells}:3: error: E006: {DEPTH}"]


def test_mappings_nested_too_deep_are_an_error_at_the_line_that_crosses(packs: Path) -> None:
    nested = "".join(" " * (4 + 2 * level) + f"k{level}:\n" for level in range(60))
    spells = _deck(packs, "- id: S1\n  name: 深\n  cost:\n" + nested + " " * 124 + "1\n")
    # the list and the card are two levels, so the mapping of k38, line 42, is the 41st
    assert _found(packs) == [f"{spells}:42: error: E006: {DEPTH}"]


def test_an_alias_of_a_deep_anchor_counts_its_depth_where_it_is_used(packs: Path) -> None:
    deep = "[" * 37 + "]" * 37  # 39 levels under the list and the card: allowed
    spells = _deck(packs, f"- id: S1\n  name: 深\n  cost: &deep {deep}\n  art: [[[*deep]]]\n")
    assert _found(packs) == [f"{spells}:4: error: E006: {DEPTH}"]


def test_a_huge_integer_is_an_error_at_its_line(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: " + "9" * 5000 + "\n")
    assert _found(packs) == [f"{spells}:10: error: E006: an integer of 5000 digits, over the "
                             "limit of 12 (`limits: integer_digits` in game.yaml)"]


def test_a_huge_number_added_in_a_placeholder_is_an_error_at_its_line(packs: Path) -> None:
    pack = packs / "mini"
    (pack / "rules.yaml").write_text("fire: {cost: 3}\n", encoding="utf-8")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nrules: rules.yaml\n")
    spells = pack / "spells.yaml"
    edit(spells, "  cost: 2\n", '  cost: "{fire.cost + ' + "9" * 5000 + '}"\n')
    assert _found(packs) == [f"{spells}:10: error: E006: a number of 5000 digits, over the "
                             "limit of 12 (`limits: integer_digits` in game.yaml)"]


@pytest.mark.parametrize("qty", ["1e400", "1.0e+400", ".inf", "-.inf", ".nan"])
def test_a_qty_that_is_infinite_or_not_an_integer_is_a_schema_error(packs: Path,
                                                                     qty: str) -> None:
    spells = packs / "mini" / "spells.yaml"
    game = packs / "mini" / "game.yaml"
    edit(spells, "  qty: 2\n", f"  qty: {qty}\n")
    assert _found(packs) == [
        f"{game}:18: error: E040: deck 'spells' has 3 cards, game.yaml says 4",
        f"{spells}:16: error: E010: card 'S3': field 'qty': input should be a valid integer"]


def test_dates_and_tagged_values_that_do_not_convert_are_yaml_errors(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  motto: 2020-13-45\n")
    assert _found(packs) == [f"{spells}:11: error: E002: YAML syntax: '2020-13-45' is not a "
                             "valid timestamp (month must be in 1..12)"]


def test_a_list_as_a_key_is_a_shape_error_at_its_line(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  [a, b]: 3\n")
    assert _found(packs) == [f"{spells}:11: error: E005: a key must be a plain value, not a "
                             "list or a mapping"]


def test_a_mapping_as_a_key_is_a_shape_error_at_its_line(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", "players: 1-2人\n? {a: 1}\n: 2\n")
    assert _found(packs) == [f"{game}:5: error: E005: a key must be a plain value, not a list "
                             "or a mapping" + FATAL]


def test_a_control_character_is_a_yaml_error_at_its_line(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  motto: 铃\x07\n")
    assert _found(packs) == [f"{spells}:11: error: E002: YAML: unacceptable character #x0007: "
                             "control characters are not allowed"]


# Files that are too big, not regular, not UTF-8


def test_a_50_mb_deck_is_refused_at_its_line_without_being_read(
        packs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = packs / "mini" / "game.yaml"
    with (packs / "mini" / "spells.yaml").open("r+b") as deck:
        deck.truncate(50_000_000)  # sparse: nothing is written
    read: list[int] = []  # what is read of the deck
    deck_file, real_read = os.stat(packs / "mini" / "spells.yaml").st_ino, os.read
    monkeypatch.setattr(os, "read", lambda fd, n: (
        os.fstat(fd).st_ino == deck_file and read.append(n)) or real_read(fd, n))
    assert _found(packs) == [f"{game}:14: error: E006: deck 'spells': file 'spells.yaml' is "
                             "50 MB, over the limit of 20 MB (`limits: file_mb` in game.yaml)"]
    assert read == []


def test_a_deck_that_is_a_symlink_to_dev_zero_is_refused(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    spells.unlink()
    spells.symlink_to("/dev/zero")
    with _within(10):
        assert _found(packs) == [f"{game}:14: error: E050: deck 'spells': file 'spells.yaml' "
                                 "lies outside the game pack"]


def test_a_fifo_deck_is_refused_without_waiting(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    spells.unlink()
    os.mkfifo(spells)  # opening it to read would wait for a writer for ever
    with _within(10):
        assert _found(packs) == [f"{game}:14: error: E050: deck 'spells': file 'spells.yaml' "
                                 "is not a regular file"]


def test_a_folder_named_as_a_deck_is_refused(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    (packs / "mini" / "art").mkdir()
    edit(game, "file: spells.yaml", "file: art")
    assert _found(packs) == [f"{game}:14: error: E050: deck 'spells': file 'art' is not a "
                             "regular file"]


def test_a_deck_that_is_a_symlink_to_itself_is_an_error_not_a_crash(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    spells.unlink()
    spells.symlink_to("spells.yaml")
    assert _found(packs) == [f"{game}:14: error: E001: deck 'spells': file 'spells.yaml' cannot "
                             "be read: symlink loop"]


def test_invalid_utf8_is_an_error_at_its_line_and_column(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    data = spells.read_bytes().replace("治疗术".encode(), "治疗".encode() + b"\xff")
    spells.write_bytes(data)
    assert _found(packs) == [f"{spells}:9: error: E001: not UTF-8: byte 0xff at line 9, "
                             "column 11"]


def test_a_missing_deck_file_is_an_error_where_game_yaml_names_it(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    (packs / "mini" / "spells.yaml").unlink()
    assert _found(packs) == [f"{game}:14: error: E001: deck 'spells': file 'spells.yaml' not "
                             "found"]


def test_a_file_name_with_a_nul_or_a_line_break_is_told_on_one_line(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "file: spells.yaml", 'file: "spells\\0.yaml"')
    assert _found(packs) == [f"{game}:14: error: E001: deck 'spells': file 'spells\\x00.yaml' "
                             "cannot be read: its name holds a NUL byte"]
    edit(game, 'file: "spells\\0.yaml"', 'file: "spells\\n.yaml"')
    assert _found(packs) == [f"{game}:14: error: E001: deck 'spells': file 'spells\\n.yaml' not "
                             "found"]


# Only the pack's own files


def test_an_absolute_rules_path_outside_the_pack_is_refused(packs: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n", encoding="utf-8")
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", f"players: 1-2人\nrules: {secret}\n")
    assert _found(packs) == [f"{game}:5: error: E050: rules file '{secret}' lies outside the "
                             "game pack" + FATAL]


def test_a_deck_path_that_climbs_out_of_the_pack_is_refused(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    (packs / "elsewhere.yaml").write_text("- id: X1\n", encoding="utf-8")
    edit(game, "file: spells.yaml", "file: ../elsewhere.yaml")
    assert _found(packs) == [f"{game}:14: error: E050: deck 'spells': file '../elsewhere.yaml' "
                             "lies outside the game pack"]


def test_a_symlinked_deck_pointing_outside_is_refused(packs: Path, tmp_path: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    outside = tmp_path / "spells.yaml"
    spells.rename(outside)
    spells.symlink_to(outside)
    assert _found(packs) == [f"{game}:14: error: E050: deck 'spells': file 'spells.yaml' lies "
                             "outside the game pack"]


def test_a_symlinked_deck_pointing_inside_the_pack_is_read(packs: Path) -> None:
    pack = packs / "mini"
    (pack / "decks").mkdir()
    (pack / "spells.yaml").rename(pack / "decks" / "spells.yaml")
    (pack / "spells.yaml").symlink_to(Path("decks") / "spells.yaml")
    checked = check("mini", packs)
    assert checked.findings == []
    assert [card.id for card in checked.game.decks[0].cards] == ["S1", "S2", "S3"]


def test_a_stylesheet_that_is_not_a_regular_file_is_refused_at_its_line(packs: Path) -> None:
    pack = packs / "mini"
    os.mkfifo(pack / "style.css")
    edit(pack / "game.yaml", "players: 1-2人\n", "players: 1-2人\nstylesheet: style.css\n")
    with _within(10):
        found = _found(packs)
    assert f"{pack / 'game.yaml'}:5: error: E050: stylesheet 'style.css' is not a regular " \
           "file" in found


def test_the_file_reader_refuses_what_is_not_the_packs(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "in.txt").write_text("甲\n", encoding="utf-8")
    (tmp_path / "out.txt").write_text("乙\n", encoding="utf-8")
    (pack / "link-in.txt").symlink_to("in.txt")
    (pack / "link-out.txt").symlink_to(tmp_path / "out.txt")
    assert read_text(inside(pack / "link-in.txt", [pack]), 100) == "甲\n"
    refusals = []
    for path, limit in [(pack / "link-out.txt", 100), (pack / "none.txt", 100),
                        (pack / "../out.txt", 100), (pack / "in.txt", 2)]:
        try:
            read_bytes(inside(path, [pack]), limit)
        except FileRefused as exc:
            refusals.append((exc.code, str(exc)))
    assert refusals == [
        ("E050", "'link-out.txt' lies outside the game pack"),
        ("E001", "file not found"),
        ("E050", "'out.txt' lies outside the game pack"),
        ("E006", "'in.txt' is 4 bytes, over the limit of 2 bytes (`limits: file_mb` in "
                 "game.yaml)"),
    ]


# Counts that would fill the memory


def test_a_qty_of_a_billion_is_an_error_and_the_card_is_left_out(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    edit(spells, "  qty: 2\n", "  qty: 1000000000\n")
    checked = check("mini", packs)
    assert [str(f) for f in checked.findings] == [
        f"{game}:18: error: E040: deck 'spells' has 1000000002 cards, game.yaml says 4",
        f"{spells}:16: error: E006: card 'S3': qty 1000000000 is over the limit of 1000 "
        "(`limits: qty` in game.yaml)"]
    assert [card.id for card in checked.game.decks[0].cards] == ["S1", "S2"]
    assert checked.game.decks[0].failed_ids == {"S3"}


def test_a_deck_past_its_copies_is_an_error_at_its_entry(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", "players: 1-2人\nlimits: {qty: 20000}\n")
    edit(game, "    count: 4\n", "    count: 20001\n")
    edit(packs / "mini" / "spells.yaml", "  qty: 2\n", "  qty: 19999\n")
    checked = check("mini", packs)
    assert [str(f) for f in checked.findings] == [
        f"{game}:13: error: E006: deck 'spells' prints 20001 cards, over the limit of 5000 "
        "(`limits: copies` in game.yaml)"]
    assert checked.job.decks == []  # nothing is planned from it
    assert checked.unchecked == ["deck 'spells' (its own errors stop its layout)"]


def test_a_die_counted_a_billion_times_is_an_error_at_its_count(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "decks:\n", "dice:\n  - id: d6\n    name: 骰子\n    count: 1000000000\n"
         "decks:\n")
    assert _found(packs) == [f"{game}:14: error: E006: die 'd6': count 1000000000 is over the "
                             "limit of 100 (`limits: dice` in game.yaml)"]


def test_limits_raised_in_game_yaml_allow_what_the_defaults_refuse(packs: Path) -> None:
    pack = give_rules(packs, "deep: " + "[" * 45 + "]" * 45 + "\n")
    game, rules, spells = pack / "game.yaml", pack / "rules.yaml", pack / "spells.yaml"
    edit(spells, "  qty: 2\n", "  qty: 2000\n")
    edit(spells, "  cost: 2\n", "  cost: 1234567890123\n")
    edit(game, "    count: 4\n", "    count: 2002\n")
    assert _found(packs) == [f"{rules}:1: error: E006: {DEPTH}" + FATAL]
    edit(game, "players: 1-2人\n", "players: 1-2人\nlimits: {yaml_depth: 60}\n")
    assert _found(packs) == [f"{spells}:10: error: E006: an integer of 13 digits, over the "
                             "limit of 12 (`limits: integer_digits` in game.yaml)"]
    edit(game, "limits: {", "limits: {integer_digits: 13, ")
    assert _found(packs) == [f"{spells}:16: error: E006: card 'S3': qty 2000 is over the limit "
                             "of 1000 (`limits: qty` in game.yaml)"]
    edit(game, "limits: {", "limits: {qty: 5000, ")
    assert _found(packs) == []


def test_limits_must_be_positive_and_finite(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", "players: 1-2人\nlimits: {file_mb: .inf, qty: 0}\n")
    assert _found(packs) == [
        f"{game}:5: error: E010: field 'limits.file_mb': input should be a finite number",
        f"{game}:5: error: E010: field 'limits.qty': input should be greater than 0" + FATAL]


# Text that regular expressions would take quadratic time over


def test_a_card_name_of_fifty_thousand_braces_validates(packs: Path) -> None:
    spells = packs / "mini" / "spells.yaml"
    name = "{{" * 50_000 + "<" * 50_000
    edit(spells, "  name: 治疗术\n", f"  name: '{name}'\n")
    assert _found(packs) == [f"{spells}:9: error: E006: a string of 150000 characters, over the "
                             "limit of 10000 (`limits: string_chars` in game.yaml)"]
    edit(packs / "mini" / "game.yaml", "players: 1-2人\n",
         "players: 1-2人\nlimits: {string_chars: 200000}\n")
    with _within(30):  # the scans for rules restated and for Jinja are linear
        assert _found(packs) == []


def test_terms_that_are_not_a_mapping_are_an_error_not_a_crash(packs: Path) -> None:
    pack = give_rules(packs, "fire: {cost: 3}\nterms: [fire.cost]\n")
    assert _found(packs) == [f"{pack / 'rules.yaml'}:2: error: E091: terms must map rule paths "
                             "to the phrases that restate them"]


def test_validate_on_the_command_line_refuses_a_fifo_without_hanging(
        packs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = packs / "mini" / "game.yaml"
    spells = packs / "mini" / "spells.yaml"
    spells.unlink()
    os.mkfifo(spells)
    with _within(30):
        status = cli.main(["--cards", str(packs), "validate", "mini"])
    assert status == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"{game}:14: error: E050: deck 'spells': file 'spells.yaml' is not a regular file")


@pytest.mark.parametrize(("checks", "message"), [
    ("checks: {within: [{min: 0}]}", "'max'"),
    ("checks: {non_negative: [[a]]}", "'list' object has no attribute 'split'"),
    ("checks: {contiguous: [fire.nope]}", "unknown rule 'fire.nope': fire has no 'nope' "
                                          "(known: cost)"),
])
def test_rule_checks_of_the_wrong_shape_are_one_error_at_checks(
        packs: Path, checks: str, message: str) -> None:
    from .conftest import give_rules

    pack = give_rules(packs, f"fire: {{cost: 3}}\n{checks}\n")
    found = [str(f) for f in check("mini", packs).findings]
    assert found == [f"{pack / 'rules.yaml'}:2: error: E091: the rules' checks cannot be run: "
                     f"{message}"]


def test_a_control_character_in_a_message_is_shown_escaped(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "players: 1-2人\n", 'players: 1-2人\nstylesheet: "a\\0b\\nc.css"\n')
    found = [str(f) for f in check("mini", packs).findings]
    assert found == [f"{game}:5: error: E051: stylesheet 'a\\x00b\\x0ac.css' does not exist"]


@pytest.mark.parametrize(("text", "found"), [
    ("", "1: error: E004: game.yaml is empty"),
    ("# nothing\n", "1: error: E004: game.yaml is empty"),
    ("hello\n", "1: error: E005: game.yaml must be a YAML mapping"),
])
def test_a_game_yaml_that_is_empty_or_not_a_mapping_is_one_error(
        packs: Path, text: str, found: str) -> None:
    from generator.pack.load import FATAL

    game = packs / "mini" / "game.yaml"
    game.write_text(text, encoding="utf-8")
    with pytest.raises(PackError) as caught:
        check("mini", packs)
    assert str(caught.value) == f"{game}:{found}{FATAL}"


def test_an_empty_tagged_value_and_a_huge_index_are_findings(packs: Path) -> None:
    from .conftest import give_rules

    pack = give_rules(packs, "fire: {cost: 3, hits: [1, 2]}\n")
    spells = pack / "spells.yaml"
    edit(spells, "  cost: 2\n", "  cost: 2\n  quote: '{fire.hits." + "9" * 5000 + "}'\n")
    [found] = [str(f) for f in check("mini", packs).findings]
    assert found.startswith(f"{spells}:11: error: E007: unknown rule 'fire.hits.999")
    (pack / "rules.yaml").write_text("fire: {cost: !!int ''}\n", encoding="utf-8")
    with pytest.raises(PackError) as caught:
        check("mini", packs)
    assert str(caught.value).startswith(f"{pack / 'rules.yaml'}:1: error: E002: YAML syntax: "
                                        "'' is not a valid int")


def test_an_output_that_is_not_a_file_name_is_refused(packs: Path) -> None:
    game = packs / "mini" / "game.yaml"
    edit(game, "    template: card\n", "    template: card\n    output: ../../escaped\n")
    assert _found(packs) == [
        f"{game}:17: error: E010: field 'decks.0.output': string should match pattern "
        "'^\\w[\\w-]*$'; nothing else was checked, as the rest depends on it"]
