"""`make bench`: how long builds take and how much memory they use, printed as figures.

Times both test tiers (`make test-fast` and `make test`), then runs each measurement in a
fresh Python process, so imports and caches count as they do for a designer: a cold build
stage by stage, a build with nothing changed, a build after a one-card edit (in a fresh process
and in `pnp watch`), exports from that build, `pnp changes` and `pnp reprint` after a rule's
change, and a synthetic pack of 10x and of 2,000 cards for scaling and peak memory.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from generator import CARDS_DIR, DEFAULT_GAME, PROJECT_ROOT

WATCHED_EDITS = 5  # one-card edits timed in `pnp watch`
SERVED_EDITS = 7  # one-card edits timed in `pnp serve`
SAME_RUNS = 5  # builds with nothing changed, of which the median is given
# The goals (issue 29), each printed beside its figure.
GOAL_TEST, GOAL_TEST_CPU, GOAL_FAST = 180.0, 330.0, 60.0  # s wall, CPU-s, s wall
GOAL_CHROMIUM = 0.6  # a cold build's time over headless Chromium's on the same HTML
GOAL_SAME, GOAL_EDIT, GOAL_WATCH = 0.10, 1.0, 0.4  # s: nothing changed, one card, in watch
GOAL_SCALING, GOAL_PEAK = 10.0, 300.0  # 2,000 cards over 200 cards; MB for 2,000 cards
GOAL_CMYK = 30.0  # s: the CMYK print-shop export from a current build (issue 31)
GOAL_SERVE, GOAL_SERVE_COLD = 0.5, 30.0  # s: one card's edit to its new image; every face


def against(figure: float, goal: float, unit: str = "s") -> str:
    """A figure beside its goal, and whether it meets it."""
    met = "met" if figure <= goal else "NOT MET"
    return f"{figure:.2f} {unit} (goal ≤ {goal:g} {unit}: {met})"

STAGES = """
import json, sys, tempfile, time
from pathlib import Path
started = time.perf_counter()
from generator.pipeline.build import Executor, PartCache, Workers, check, plan, run
times = {"import": time.perf_counter() - started}
def stage(name, call):
    began = time.perf_counter()
    result = call()
    times[name] = time.perf_counter() - began
    return result
checked = stage("load+validate", lambda: check(sys.argv[1], Path(sys.argv[2])))
with tempfile.TemporaryDirectory() as folder, Workers() as workers:
    executor = Executor(checked.game.root, checked.job.fonts, PartCache(Path(folder)), workers)
    planned = stage("plan (html)", lambda: plan(checked, executor))
    results = stage("lay out+join", lambda: run(planned, executor, lambda m: None, ""))
cards = sum(deck.copies for deck in checked.game.decks)
pages = sum(result.pages for _, _, result in results)
print(json.dumps({"times": times, "cards": cards, "pages": pages}))
"""


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)


def _suite(*args: str) -> tuple[float, float, str]:
    """Wall time and CPU time (its processes' and theirs) of the test suite or a tier of it,
    and pytest's last line."""
    began, used = time.perf_counter(), _children_cpu()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          *args], capture_output=True, text=True, cwd=PROJECT_ROOT)
    return (time.perf_counter() - began, _children_cpu() - used,
            (run.stdout.strip().splitlines() or ["?"])[-1])


def _children_cpu() -> float:
    """CPU seconds of every child process ended so far, and of the ones they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _stages(game: str, cards: Path) -> dict:
    """A cold build of a game's card outputs, stage by stage, in a fresh process."""
    return json.loads(_python("-c", STAGES, game, str(cards)).stdout)


def _timed_build(game: str, cards: Path, out: Path, *extra: str) -> tuple[float, str]:
    """Wall time of a whole `pnp build` in a fresh process, and what it said about its parts."""
    began = time.perf_counter()
    run = _python("-m", "generator.cli", "--cards", str(cards), "build", game, "--out", str(out),
                  *extra)
    return time.perf_counter() - began, _summary(run.stderr.splitlines())


def _timed_export(game: str, cards: Path, out: Path, *extra: str) -> tuple[float, str]:
    """Wall time of a `pnp export` in a fresh process, and how many images it drew."""
    began = time.perf_counter()
    run = _python("-m", "generator.cli", "--cards", str(cards), "export", game, "--out",
                  str(out), *extra)
    said = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "?"
    return time.perf_counter() - began, said[said.rfind("(") + 1:].rstrip(")")


def _exports(game: str, cards: Path, out: Path, deck: Path) -> None:
    """Print how long exports take from a current build: images, again with nothing changed,
    after one card's edit, Tabletop Simulator, and the print-shop PDFs in RGB and in CMYK."""
    first, said = _timed_export(game, cards, out, "--to", "images")
    print(f"\nexports from a current build:\n  images at 300 dpi: {first:.2f} s ({said})")
    again, said = _timed_export(game, cards, out, "--to", "images")
    print(f"  images again, nothing changed: {again:.2f} s ({said})")
    source = deck.read_text(encoding="utf-8")
    old = source[source.index("name: "):source.index("\n", source.index("name: "))]
    deck.write_text(source.replace(old, old + "X", 1), encoding="utf-8")
    edited, said = _timed_export(game, cards, out, "--to", "images")
    print(f"  images after one card's name is edited: {edited:.2f} s ({said})")
    tts, said = _timed_export(game, cards, out, "--to", "tts")
    print(f"  Tabletop Simulator: {tts:.2f} s ({said})")
    shop, said = _timed_export(game, cards, out, "--to", "printshop")
    print(f"  print-shop PDFs: {shop:.2f} s ({said})")
    cmyk, said = _timed_export(game, cards, out, "--to", "printshop", "--cmyk")
    print(f"  print-shop PDFs in CMYK: {against(cmyk, GOAL_CMYK)} ({said})")


def _reprints(game: str, cards: Path, out: Path) -> None:
    """Print how long `pnp changes` and `pnp reprint` take after one rule value is changed,
    and after one rule of the pack's stylesheet is, each from a current build with an edition
    recorded before the change."""
    rules = cards / game / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    found = re.search(r"^( +[A-Za-z_]\w*: )(\d+)\b", text, re.MULTILINE)
    assert found, f"{rules} has no number to change"
    _changed_and_reprinted(
        game, cards, out, "bench", rules, text[:found.start(2)] + str(int(found.group(2)) + 1)
        + text[found.end(2):], f"one rule value ({found.group(1).strip()} {found.group(2)} → "
        f"{int(found.group(2)) + 1})")
    style = cards / game / "style.css"
    text = style.read_text(encoding="utf-8")
    sizes = list(re.finditer(r"^(\.[^{]+?) \{[^}]*?(\d+(?:\.\d+)?)pt", text, re.MULTILINE))
    assert sizes, f"{style} has no rule with a size in pt to change"
    last = sizes[-1]  # the last such rule: in the default game, a few faces use it
    _changed_and_reprinted(
        game, cards, out, "bench-css", style, text[:last.start(2)]
        + f"{float(last.group(2)) + 0.2:g}" + text[last.end(2):],
        f"one stylesheet rule (`{last.group(1)}` {last.group(2)}pt → "
        f"{float(last.group(2)) + 0.2:g}pt)")


def _changed_and_reprinted(game: str, cards: Path, out: Path, edition: str, path: Path,
                           edited: str, what: str) -> None:
    """Record an edition, write `edited` into `path`, and print how long `pnp changes` and
    `pnp reprint` take."""
    _python("-m", "generator.cli", "--cards", str(cards), "release", game, edition, "--out",
            str(out))
    path.write_text(edited, encoding="utf-8")
    began = time.perf_counter()
    said = _python("-m", "generator.cli", "--cards", str(cards), "changes", game, "--json")
    seconds = time.perf_counter() - began
    changed = len(json.loads(said.stdout)["changed"])
    print(f"\nafter {what} is changed:\n  `pnp changes`: {seconds:.2f} s "
          f"({'1 face prints' if changed == 1 else f'{changed} faces print'} differently)")
    began = time.perf_counter()
    run = _python("-m", "generator.cli", "--cards", str(cards), "reprint", game, "--out",
                  str(out))
    print(f"  `pnp reprint`: {time.perf_counter() - began:.2f} s "
          f"({run.stderr.strip().splitlines()[-1].rsplit('(', 1)[-1].rstrip(')')})")


def _summary(lines: list[str]) -> str:
    """What a build said about the parts it laid out and the ones it took from the cache."""
    said = [line.split(": ", 2)[-1] for line in lines if " laid out (" in line
            and " 0 of " not in line] + [line.split("(")[-1].rstrip(")") for line in lines
                                          if "from the cache" in line]
    return "; ".join(said) or lines[-1]


def _watched(game: str, cards: Path, out: Path, deck: Path,
             edits: list[tuple[str, str]]) -> list[tuple[float, str]]:
    """Seconds from saving each edit to `pnp watch` saying the PDFs are written (its polling
    included), and what it laid out."""
    watching = subprocess.Popen([sys.executable, "-m", "generator.cli", "--cards", str(cards),
                                 "watch", game, "--out", str(out)],
                                stderr=subprocess.PIPE, text=True)
    assert watching.stderr is not None

    def next_round() -> list[str]:
        lines: list[str] = []
        while not lines or "watching" not in lines[-1]:
            line = watching.stderr.readline() if watching.stderr else ""
            if not line:
                raise RuntimeError("pnp watch stopped: " + "".join(lines))
            lines.append(line.rstrip("\n"))
        return lines

    try:
        next_round()  # the first build, from the cache
        timings = []
        for old, new in edits:
            source = deck.read_text(encoding="utf-8")
            began = time.perf_counter()
            deck.write_text(source.replace(old, new, 1), encoding="utf-8")
            said = next_round()
            timings.append((time.perf_counter() - began, _summary(said)))
        return timings
    finally:
        watching.send_signal(signal.SIGINT)
        watching.wait(timeout=60)


class _Served:
    """A `pnp serve` of a game, read as its page reads it: Server-Sent Events tell of each
    new snapshot, the state and the pictures are fetched over HTTP."""

    def __init__(self, game: str, cards: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "generator.cli", "--cards",
                                         str(cards), "serve", game, "--port", "0"],
                                        stderr=subprocess.PIPE, text=True)
        said = self.process.stderr.readline() if self.process.stderr else ""
        found = re.search(r"http://\S+", said)
        if found is None:
            self.process.kill()
            raise RuntimeError(f"pnp serve did not start: {said}")
        address = urlsplit(found.group())
        self.host, self.port, self.token = address.hostname or "", address.port, address.query
        for _ in range(600):  # the address is told before the server listens
            events = http.client.HTTPConnection(self.host, self.port, timeout=120)
            try:
                events.request("GET", f"/events?{self.token}")
                break
            except ConnectionRefusedError:
                time.sleep(0.05)
        self.events = events.getresponse()

    def update(self) -> dict:
        """The next snapshot the server tells of: its version, what is busy, what changed."""
        while True:
            line = self.events.readline().decode()
            if not line:
                raise RuntimeError("pnp serve stopped telling")
            if line.startswith("data: "):
                return json.loads(line.removeprefix("data: "))

    def get(self, path: str) -> bytes:
        """What the server answers at a path (a connection of its own: an idle one is closed)."""
        asking = http.client.HTTPConnection(self.host, self.port, timeout=120)
        asking.request("GET", f"{path}?{self.token}")
        answer = asking.getresponse()
        data = answer.read()
        asking.close()
        if answer.status != 200:
            raise RuntimeError(f"pnp serve answered {answer.status} at {path}")
        return data

    def images(self) -> dict[str, str]:
        """The name of each face's picture, by the face."""
        state = json.loads(self.get("/api/state"))
        return {face["ident"]: face["image"] for face in state["faces"]}

    def settled(self) -> None:
        """Wait until every output is made."""
        while self.update()["busy"]:
            pass

    def stop(self) -> None:
        """Ctrl-C."""
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)


def _served(game: str, cards: Path, deck: Path, ident: str,
            edits: list[tuple[str, str]]) -> tuple[float, list[float]]:
    """Seconds from starting `pnp serve` to every face's picture, and from saving each edit
    of the card `ident` (deck/card) to its new picture's bytes received, each edit made once
    the last one's outputs are made."""
    began = time.perf_counter()
    served = _Served(game, cards)
    try:
        while served.update()["version"] < 1:  # the faces drawn, the outputs not yet made
            pass
        images = served.images()
        assert all(images.values()), "a face has no picture"
        cold = time.perf_counter() - began
        served.settled()
        timings = []
        for old, new in edits:
            source = deck.read_text(encoding="utf-8")
            began = time.perf_counter()
            deck.write_text(source.replace(old, new, 1), encoding="utf-8")
            while ident not in served.update()["changed"]:
                pass
            image = served.images()[ident]
            assert image != images[ident], f"{ident} was not drawn anew"
            served.get(f"/image/{image}.png")
            timings.append(time.perf_counter() - began)
            images[ident] = image
            served.settled()
        return cold, timings
    finally:
        served.stop()


def _synthetic(cards: Path, copies: int) -> str:
    """The default game grown to about `copies` cards, its largest deck repeated with new ids;
    without its rulebook, dice, tuck boxes and component list (whose counts no longer hold:
    a box for 2,000 cards is too big to print)."""
    import yaml

    from generator.pack.load import load_game

    name = f"synthetic-{copies}"
    pack = cards / name
    shutil.copytree(CARDS_DIR / DEFAULT_GAME, pack)
    decks = load_game(name, cards).decks
    largest = max(decks, key=lambda deck: len(deck.cards))
    others = sum(deck.copies for deck in decks) - largest.copies
    source = largest.path.read_text(encoding="utf-8")
    entries = ["- id:" + entry for entry in source.split("- id:")[1:]]
    grown, held = [source.rstrip() + "\n"], largest.copies
    while held + others < copies:
        entry = entries[len(grown) % len(entries)]
        grown.append(entry.replace("- id: ", f"- id: X{len(grown):05d}", 1))
        held += (yaml.safe_load(entry)[0] or {}).get("qty", 1)
    largest.path.write_text("".join(grown), encoding="utf-8")
    game = yaml.safe_load((pack / "game.yaml").read_text(encoding="utf-8"))
    for deck in game["decks"]:
        if deck["id"] == largest.spec.id:
            deck["count"] = held
    for key in ("components", "dice", "rulebook", "boxes", "standees"):
        game.pop(key, None)
    (pack / "game.yaml").write_text(yaml.safe_dump(game, allow_unicode=True), encoding="utf-8")
    (pack / "rulebook.md").unlink(missing_ok=True)
    return name


def _edits(cards: Path, game: str) -> tuple[Path, str, list[tuple[str, str]]]:
    """Two one-card edits to the first card of the first deck, as (old, new) text in its file:
    its name with a letter it already has, then with a character new to the pack (but in its
    body font); and the card as `pnp serve` names its face (deck/card)."""
    from generator.pack.load import load_game
    from generator.text.fonts import load_fonts

    loaded = load_game(game, cards)
    card = loaded.decks[0].cards[0]
    text = "".join(path.read_text(encoding="utf-8", errors="ignore")
                   for path in (cards / game).rglob("*") if path.is_file())
    have = load_fonts().characters(loaded.spec.fonts["body"])
    new = next(chr(code) for code in range(0x4E00, 0x9FFF)
               if code in have and chr(code) not in text)
    return loaded.decks[0].path, f"{loaded.decks[0].spec.id}/{card.id}", [
        (f"name: {card.name}", f"name: {card.name}{card.name[0]}"),
        (f"name: {card.name}{card.name[0]}", f"name: {card.name}{new}")]


def _pss(pid: int) -> float:
    """A process's proportional set size in MB (its own pages, and its share of shared ones)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            return next(int(line.split()[1]) for line in rollup if line.startswith("Pss:")) / 1024
    except (OSError, StopIteration, ValueError):
        return 0.0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listing:
            return [int(child) for child in listing.read().split()]
    except OSError:
        return []


def _sampled_build(game: str, cards: Path, out: Path) -> tuple[float, dict[str, float]]:
    """Wall time of a whole `pnp build` in a fresh process, and its peak memory, sampled every
    0.05 s over the main process and its workers (Linux)."""
    began = time.perf_counter()
    build = subprocess.Popen([sys.executable, "-m", "generator.cli", "--cards", str(cards),
                              "build", game, "--out", str(out)], stderr=subprocess.DEVNULL)
    peak = {"all": 0.0, "main": 0.0, "worker": 0.0}
    while build.poll() is None:
        workers = [_pss(child) for child in _children(build.pid)]
        main = _pss(build.pid)
        peak = {"all": max(peak["all"], main + sum(workers)), "main": max(peak["main"], main),
                "worker": max([peak["worker"], *workers])}
        time.sleep(0.05)
    if build.returncode:
        raise RuntimeError(f"pnp build {game} failed")
    return time.perf_counter() - began, peak


def _chromium(html_dir: Path) -> float | None:
    """Seconds headless Chromium takes to print the same HTML files, one after the other."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    began = time.perf_counter()
    for page in sorted(html_dir.glob("*.html")):
        target = page.with_suffix(".chromium.pdf")
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-pdf-header-footer", f"--print-to-pdf={target}", page.as_uri()],
                       capture_output=True, check=True)
    return time.perf_counter() - began


def main() -> None:
    """Print the figures."""
    print(f"pnp benchmark (each figure from a fresh process; {os.cpu_count()} cores, so noisy "
          "by a few %)")
    fast, fast_cpu, fast_said = _suite("-m", "not slow")
    whole, whole_cpu, whole_said = _suite()
    print(f"\ntest suites:\n  `make test-fast`: {against(fast, GOAL_FAST)}, {fast_cpu:.0f} CPU-s "
          f"({fast_said})\n  `make test`: {against(whole, GOAL_TEST)}, "
          f"{against(whole_cpu, GOAL_TEST_CPU, 'CPU-s')} ({whole_said})")
    cold = _stages(DEFAULT_GAME, CARDS_DIR)
    total = sum(cold["times"].values())
    print(f"\ncold build of {DEFAULT_GAME}, no cache: {cold['cards']} cards, {cold['pages']} "
          f"pages, {total:.2f} s, {cold['cards'] / total:.0f} cards/s")
    for name, seconds in cold["times"].items():
        print(f"  {name:<14} {seconds:6.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        cards, out = Path(tmp) / "cards", Path(tmp) / "out"
        shutil.copytree(CARDS_DIR / DEFAULT_GAME, cards / DEFAULT_GAME)
        full, said = _timed_build(DEFAULT_GAME, cards, out, "--html")
        print(f"\nwhole `pnp build --html` (every output, rulebook included): {full:.2f} s"
              f" ({said})")
        seconds = _chromium(out / DEFAULT_GAME)
        if seconds is None:
            print("  chromium: not installed, so no comparison (apt-get install chromium)")
        else:
            print(f"  headless chromium printing the same HTML files: {seconds:.2f} s; "
                  f"ratio pnp/chromium {against(full / seconds, GOAL_CHROMIUM, 'x')}")
        _timed_build(DEFAULT_GAME, cards, out)  # the same parts, without writing the HTML
        same = statistics.median(_timed_build(DEFAULT_GAME, cards, out)[0]
                                 for _ in range(SAME_RUNS))  # a figure this small is noisy
        print(f"  nothing changed: {against(same, GOAL_SAME)} (median of {SAME_RUNS}; no "
              "layout, WeasyPrint not imported)")
        deck, ident, edits = _edits(cards, DEFAULT_GAME)
        for (old, new), what in zip(edits, ("one card's name",
                                            "one card's name, with a character new to the pack"),
                                    strict=True):
            source = deck.read_text(encoding="utf-8")
            assert old in source, f"{deck} does not say {old!r}"
            deck.write_text(source.replace(old, new, 1), encoding="utf-8")
            edited, said = _timed_build(DEFAULT_GAME, cards, out)
            print(f"  {what} edited: {against(edited, GOAL_EDIT)} ({said})")
        base = edits[0][0].removeprefix("name: ")
        names = [edits[-1][1]] + [f"name: {base}{base[i % len(base)] * (2 + i // len(base))}"
                                  for i in range(WATCHED_EDITS)]  # each new, none in the cache
        print(f"  `pnp watch`, {WATCHED_EDITS} more edits of that card's name, from saving the "
              "file to the PDFs written:")
        timings = _watched(DEFAULT_GAME, cards, out, deck, list(itertools.pairwise(names)))
        for seconds, said in timings:
            print(f"    {seconds:.2f} s ({said})")
        median = statistics.median(seconds for seconds, _ in timings)
        print(f"    median {against(median, GOAL_WATCH)}")
        names = [names[-1]] + [f"name: {base}{index}" for index in range(SERVED_EDITS)]
        cold_serve, timings_served = _served(DEFAULT_GAME, cards, deck, ident,
                                             list(itertools.pairwise(names)))
        print(f"\n`pnp serve`:\n  cold start to every face: {against(cold_serve, GOAL_SERVE_COLD)}"
              f"\n  one card's edit to its new image, {SERVED_EDITS} edits of that card's name, "
              "from saving the file to the image's bytes received over HTTP:\n    "
              + ", ".join(f"{seconds:.2f}" for seconds in timings_served) + " s\n    median "
              + against(statistics.median(timings_served), GOAL_SERVE))
        _exports(DEFAULT_GAME, cards, out, deck)
        _reprints(DEFAULT_GAME, cards, out)
        sizes = {copies: _sampled_build(_synthetic(cards, copies), cards, out)
                 for copies in (200, 2000)}
        small, large = sizes[200][0], sizes[2000][0]
        print(f"\nscaling (whole `pnp build`, every output written): 200 cards {small:.1f} s, "
              f"2,000 cards {large:.1f} s ({2000 / large:.0f} cards/s): "
              f"{against(large / small, GOAL_SCALING, 'x')} the time for 10x the cards")
        for copies, (_, peak) in sizes.items():
            goal = against(peak["all"], GOAL_PEAK, "MB") if copies == 2000 else \
                f"{peak['all']:.0f} MB"
            print(f"peak memory, {copies:,} cards: {goal} in all its processes at "
                  f"once (main {peak['main']:.0f} MB, largest worker {peak['worker']:.0f} MB; "
                  "proportional set size, so pages the processes share count once)")

if __name__ == "__main__":
    main()
