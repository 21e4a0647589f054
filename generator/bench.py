"""`make bench`: how long builds take and how much memory they use, printed as figures.

Runs each measurement in a fresh Python process, so imports and caches count as they do for
a designer: a cold build stage by stage, a build with nothing changed, a build after a
one-card edit, and a synthetic pack of 10x and of 2,000 cards for scaling and peak memory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import CARDS_DIR, DEFAULT_GAME

STAGES = """
import json, resource, sys, time
from pathlib import Path
started = time.perf_counter()
from generator.build import BuildOptions, check, plan_outputs, render_documents
times = {"import": time.perf_counter() - started}
def stage(name, call):
    began = time.perf_counter()
    result = call()
    times[name] = time.perf_counter() - began
    return result
game, geometry, fonts, _ = stage("load+validate", lambda: check(sys.argv[1], Path(sys.argv[2])))
planned = stage("render html", lambda: plan_outputs(game, geometry, fonts, BuildOptions()))
named = [(plan.output.file, plan.html) for plan in planned]
rendered = stage("layout+write", lambda: render_documents(game, fonts, named, lambda m: None))
cards = sum(deck.copies for deck in game.decks)
pages = sum(result.pages for result in rendered)
peak = max(resource.getrusage(who).ru_maxrss
           for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
print(json.dumps({"times": times, "cards": cards, "pages": pages, "peak_mb": peak}))
"""


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)


def _stages(game: str, cards: Path) -> dict:
    """A cold build of a game's card outputs, stage by stage, in a fresh process."""
    return json.loads(_python("-c", STAGES, game, str(cards)).stdout)


def _timed_build(game: str, cards: Path, out: Path, *extra: str) -> float:
    began = time.perf_counter()
    _python("-m", "generator.cli", "--cards", str(cards), "build", game, "--out", str(out),
            *extra)
    return time.perf_counter() - began


def _synthetic(cards: Path, copies: int) -> str:
    """A pack of `copies` text cards: the default game's collective events, over and over."""
    import yaml

    name = f"synthetic-{copies}"
    pack = cards / name
    shutil.copytree(CARDS_DIR / DEFAULT_GAME, pack)
    game = yaml.safe_load((pack / "game.yaml").read_text(encoding="utf-8"))
    decks = {d["id"]: d for d in game["decks"]}  # the events name roles, so the roles stay
    game["decks"] = [decks["roles"], {**decks["collective"], "file": "many.yaml",
                                      "count": copies}]
    for key in ("components", "dice", "sizes"):
        game.pop(key, None)
    (pack / "game.yaml").write_text(yaml.safe_dump(game, allow_unicode=True), encoding="utf-8")
    source = (pack / "collective.yaml").read_text(encoding="utf-8")
    entries = ["- id:" + entry for entry in source.split("- id:")[1:]]
    many = [entries[i % len(entries)].replace("- id: C", f"- id: X{i:04d}C", 1)
            for i in range(copies)]
    (pack / "many.yaml").write_text("".join(many), encoding="utf-8")
    (pack / "rulebook.md").unlink()
    return name


def main() -> None:
    """Print the figures."""
    print("pnp benchmark (each figure from a fresh process; 2 cores, so noisy by a few %)")
    cold = _stages(DEFAULT_GAME, CARDS_DIR)
    total = sum(cold["times"].values())
    print(f"\ncold build of {DEFAULT_GAME}'s card outputs: {cold['cards']} cards, "
          f"{cold['pages']} pages, {total:.2f} s, {cold['cards'] / total:.0f} cards/s, "
          f"peak {cold['peak_mb']:.0f} MB in one process")
    for name, seconds in cold["times"].items():
        print(f"  {name:<14} {seconds:6.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        cards, out = Path(tmp) / "cards", Path(tmp) / "out"
        shutil.copytree(CARDS_DIR / DEFAULT_GAME, cards / DEFAULT_GAME)
        full = _timed_build(DEFAULT_GAME, cards, out)
        same = _timed_build(DEFAULT_GAME, cards, out)
        events = cards / DEFAULT_GAME / "collective.yaml"
        events.write_text(events.read_text(encoding="utf-8").replace("旱魃肆虐", "旱魃大肆虐"),
                          encoding="utf-8")
        edited = _timed_build(DEFAULT_GAME, cards, out)
        print(f"\nwhole `pnp build` (every output, rulebook included): {full:.2f} s")
        print(f"  nothing changed:  {same:.2f} s (no layout, WeasyPrint not imported)")
        print(f"  one card edited:  {edited:.2f} s (every output is rebuilt today)")
        print(f"  (outputs are laid out side by side, one process a core: {os.cpu_count()})")
        sizes = {}
        for copies in (120, 1200, 2000):
            name = _synthetic(cards, copies)
            sizes[copies] = _stages(name, cards)
        small, large = sizes[120], sizes[1200]
        ratio = sum(large["times"].values()) / sum(small["times"].values())
        print(f"\nscaling: 120 cards {sum(small['times'].values()):.1f} s, 1,200 cards "
              f"{sum(large['times'].values()):.1f} s: {ratio:.1f}x the time for 10x the cards")
        print(f"peak memory: 120 cards {small['peak_mb']:.0f} MB, 2,000 cards "
              f"{sizes[2000]['peak_mb']:.0f} MB")
    if shutil.which("chromium") is None:
        print("\nchromium: not installed, so no comparison (apt-get install chromium)")


if __name__ == "__main__":
    main()
