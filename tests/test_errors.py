"""The one table of finding codes: every code the generator uses is in it, and the reference
page's table (docs/reference/findings.md) says the same."""

from __future__ import annotations

import re

from generator import PROJECT_ROOT
from generator.check.findings import CODES, Finding

ROW = re.compile(r"^\| `([EW]\d{3})` \| (error|warning) \| (.+) \|$")
USED = re.compile(r"""["']([EW]\d{3})["']""")


def test_the_reference_page_lists_every_code_as_the_code_does() -> None:
    page = (PROJECT_ROOT / "docs" / "reference" / "findings.md").read_text(encoding="utf-8")
    rows = [ROW.match(line) for line in page.splitlines()]
    listed = {m.group(1): (m.group(2), m.group(3)) for m in rows if m}
    assert listed == {code: (entry.level, entry.meaning) for code, entry in CODES.items()}


def test_every_code_the_generator_uses_is_in_the_table() -> None:
    used = set()
    for path in (PROJECT_ROOT / "generator").rglob("*.py"):
        if path.name != "errors.py":
            used |= set(USED.findall(path.read_text(encoding="utf-8")))
    assert used and used <= set(CODES)
    assert {"E070", "W072", "W073", "E052"} <= used


def test_a_finding_takes_its_level_from_its_code() -> None:
    assert Finding("a.yaml", 3, "m", "W073").level == "warning"
    assert str(Finding("a.yaml", 3, "m", "E070")) == "a.yaml:3: error: E070: m"
    assert {code[0] for code in CODES} == {"E", "W"}
    assert all((code[0] == "E") == (entry.level == "error") for code, entry in CODES.items())
