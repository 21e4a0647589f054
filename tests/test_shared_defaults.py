"""The shared templates and code hold no game's look or language: every colour they print
unless a pack says otherwise is a grey, and a pack that names no language is in English, the
language `pnp new` writes."""

from __future__ import annotations

import re

from generator import TEMPLATES_DIR
from generator.cli import parser
from generator.pack.schema import BackSpec, GameSpec

HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")


def _grey(code: str) -> bool:
    """Whether a #rgb or #rrggbb colour has its three channels equal."""
    channels = [code[i] * 2 for i in range(3)] if len(code) == 3 else \
        [code[i:i + 2] for i in (0, 2, 4)]
    return len({channel.lower() for channel in channels}) == 1


def test_the_shared_templates_print_only_greys_of_their_own() -> None:
    found = {(path.name, match) for path in TEMPLATES_DIR.rglob("*.j2")
             for match in HEX.findall(path.read_text(encoding="utf-8"))}
    assert len(found) > 10  # the templates were read
    assert {(name, code) for name, code in found if not _grey(code)} == set()
    assert _grey("999999") and _grey("fff") and not _grey("efe4c8")  # the check can fail


def test_a_pack_without_a_language_or_back_accent_takes_no_game_s() -> None:
    assert GameSpec.model_fields["language"].default == "en"
    assert BackSpec.model_fields["accent"].default is None
    new = parser().parse_args(["new", "somewhere"])
    calibrate = parser().parse_args(["calibrate"])
    assert new.lang == calibrate.lang == "en"
