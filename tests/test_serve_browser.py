"""`pnp serve` in a real browser: Debian's chromium, headless, driven by Selenium (never a
browser downloaded). One server over a copy of the tiny pack, given a second deck, and one
browser for the module: the page shows every face by name, an edit redraws its face alone, an
overflow shows its finding on its face, the deck filter and the search hide the other faces,
and the overlays draw the cut, bleed and safe outlines.

With PNP_SCREENSHOT naming a file, `test_the_tutorials_screenshot` writes the tutorial's
picture of the page (docs/images/serve.png) from a copy of examples/harbour-lights."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator import PROJECT_ROOT
from tests.conftest import FIXTURES
from tests.serving import Serving, line_of, save

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

RELICS = """  - id: relics
    name: 遗物
    file: relics.yaml
    size: poker
    template: card
    back: blue
    count: 1
"""  # a second deck, for the deck filter
FACES = ["spells/S1", "spells/back:red", "spells/S2", "spells/back:green", "spells/S3",
         "spells/back:blue", "relics/R1", "relics/back:blue"]
WAIT = 20.0  # seconds an edit may take to reach the page on a loaded machine


def chrome(width: int = 1280, height: int = 900) -> Any:
    """Headless chromium under Selenium, from the machine's own binaries."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never download a browser
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--window-size={width},{height}", "--force-device-scale-factor=1",
                 "--lang=en-US"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))


def wait(driver: Any, condition: Any, timeout: float = WAIT) -> Any:
    """What `condition(driver)` gives once it is truthy."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)


def settled(serving: Serving, driver: Any) -> None:
    """Wait until the page shows the server's last version, nothing being made."""
    version = serving.until(lambda data: True)["version"]
    wait(driver, lambda d: d.execute_script(
        "return document.body.dataset.version") == str(version) and "…" not in
        d.find_element("id", "status").text)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Serving, Path]]:
    """The page of a `pnp serve` over the tiny pack with a second deck, in chromium."""
    cards = tmp_path_factory.mktemp("browser") / "cards"
    pack = cards / "mini"
    shutil.copytree(FIXTURES / "mini", pack)
    with (pack / "game.yaml").open("a", encoding="utf-8") as manifest:
        manifest.write(RELICS)  # its decks come last
    (pack / "relics.yaml").write_text("- id: R1\n  name: 古灯\n", encoding="utf-8")
    serving = Serving(cards, "mini")
    driver = None
    try:
        driver = chrome()
        serving.ready()
        driver.get(serving.url)
        settled(serving, driver)
        yield driver, serving, pack
    finally:
        if driver is not None:
            driver.quit()
        serving.kill()


def sources(driver: Any) -> dict[str, str]:
    """Each face's picture address, by its ident."""
    return driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('figure.face')].map("
        "(f) => [f.dataset.ident, f.querySelector('img').getAttribute('src')]))")


def shown(driver: Any) -> list[str]:
    """The idents of the faces shown (not filtered out), in order."""
    return [figure.get_attribute("data-ident")
            for figure in driver.find_elements("css selector", "figure.face")
            if figure.is_displayed()]


def test_the_page_shows_every_face_by_name(page: tuple[Any, Serving, Path]) -> None:
    driver, _, _ = page
    figures = driver.find_elements("css selector", "figure.face")
    assert [figure.get_attribute("data-ident") for figure in figures] == FACES
    assert [figure.find_element("css selector", ".name").text for figure in figures] == [
        "火球术", "red", "治疗术", "green", "冰冻术", "blue", "古灯", "blue"]
    assert driver.find_element("id", "status").text.startswith("8 faces, 0 errors · version ")
    assert driver.find_element("id", "title").text == "测试小包"
    assert all(driver.execute_script("return arguments[0].complete && "
                                     "arguments[0].naturalWidth", image) == 348
               for image in driver.find_elements("css selector", "figure.face img"))


def test_an_edit_redraws_its_face_alone(page: tuple[Any, Serving, Path]) -> None:
    driver, serving, pack = page
    before = sources(driver)
    driver.execute_script("for (const f of document.querySelectorAll('figure.face')) "
                          "f.pnpKept = true")  # gone from a figure drawn anew
    save(pack / "spells.yaml", ("造成 **3** 点伤害", "造成 **5** 点伤害"))
    wait(driver, lambda d: sources(d)["spells/S1"] != before["spells/S1"], 10)
    after = sources(driver)
    assert [ident for ident in FACES if after[ident] != before[ident]] == ["spells/S1"]
    settled(serving, driver)
    assert sources(driver) == after
    assert driver.execute_script(
        "return [...document.querySelectorAll('figure.face')].filter((f) => f.pnpKept)"
        ".map((f) => f.dataset.ident)") == FACES[1:]  # the others were left alone
    wait(driver, lambda d: d.execute_script(  # the new picture loads, of the face's size
        "const image = document.querySelector('figure[data-ident=\"spells/S1\"] img'); "
        "return image.complete && image.naturalWidth") == 348)


def test_an_overflow_shows_its_finding_on_its_face(page: tuple[Any, Serving, Path]) -> None:
    driver, serving, pack = page
    spells = pack / "spells.yaml"
    before = sources(driver)
    save(spells, ("点伤害。<b>", "点伤害。" * 200 + "<b>"))
    try:
        where = f"{spells}:{line_of(spells, 'id: S1')}"
        selector = 'figure[data-ident="spells/S1"] li[data-code="E070"]'
        item = wait(driver, lambda d: d.find_elements("css selector", selector))[0]
        assert item.find_element("css selector", ".where").text == where
        message = item.find_element("css selector", ".message").text
        assert message.startswith("card 'S1': 'sections.0 效果' runs ")
        assert message.endswith(" mm past its box (bottom edge)")
        assert item.get_attribute("class") == "error"
        wait(driver, lambda d: d.find_element("id", "status").text.startswith(
            "8 faces, 1 error"))
        figure = driver.find_element("css selector", 'figure[data-ident="spells/S1"]')
        assert figure.get_attribute("class").split() == ["face", "draft", "has-findings"]
        assert sources(driver)["spells/S1"] != before["spells/S1"]  # the text as it runs now
        boxes = figure.find_elements("css selector", "rect.finding-box.error")
        assert len(boxes) == 1 and boxes[0].is_displayed()
        box = [float(boxes[0].get_attribute(name)) for name in ("x", "y", "width", "height")]
        assert box[1] + box[3] > 88 + 2 * 3  # past the card's bottom edge
    finally:
        save(spells, ("点伤害。" * 200 + "<b>", "点伤害。<b>"))
    wait(driver, lambda d: not d.find_elements("css selector", selector))
    assert sources(driver)["spells/S1"] == before["spells/S1"]


def test_the_deck_filter_and_the_search_hide_the_other_faces(
        page: tuple[Any, Serving, Path]) -> None:
    from selenium.webdriver.support.ui import Select

    driver, _, _ = page
    decks = Select(driver.find_element("id", "deck"))
    assert [option.text for option in decks.options] == ["every deck", "法术", "遗物"]
    decks.select_by_value("relics")
    assert shown(driver) == ["relics/R1", "relics/back:blue"]
    assert not driver.find_element("css selector", '.deck[data-deck="spells"]').is_displayed()
    decks.select_by_value("")
    assert shown(driver) == FACES
    search = driver.find_element("id", "search")
    search.send_keys("冰冻")
    assert shown(driver) == ["spells/S3"]
    search.clear()
    search.send_keys("back:")  # an ident
    assert shown(driver) == [ident for ident in FACES if "/back:" in ident]
    search.clear()
    search.send_keys("nothing at all")
    assert shown(driver) == []
    search.clear()
    assert shown(driver) == FACES


def test_the_overlays_draw_the_cut_bleed_and_safe_outlines(
        page: tuple[Any, Serving, Path]) -> None:
    driver, _, _ = page
    figure = driver.find_element("css selector", 'figure[data-ident="spells/S2"]')

    def drawn() -> list[str]:
        return [name for name in ("cut", "bleed", "safe") if figure.find_element(
            "css selector", f".overlay-{name}").is_displayed()]

    assert drawn() == ["cut"]  # the cut line by default
    for name in ("bleed", "safe"):
        driver.find_element("id", f"show-{name}").click()
    assert drawn() == ["cut", "bleed", "safe"]
    driver.find_element("id", "show-cut").click()
    assert drawn() == ["bleed", "safe"]
    safe = figure.find_element("css selector", ".overlay-safe")
    corners = [[round(float(value), 6) for value in point.split(",")]
               for point in safe.get_attribute("points").split()]
    assert corners == [[6.2, 6.2], [63.3, 6.2], [63.3, 88.7], [6.2, 88.7]]  # 3 mm bleed and
    # 3.2 mm safe inside 63.5 x 88.9 mm, drawn as the cut's shape (a polygon)
    for name in ("cut", "bleed", "safe"):
        driver.find_element("id", f"show-{name}").click()
    assert drawn() == ["cut"]


@pytest.mark.skipif(not os.environ.get("PNP_SCREENSHOT"),
                    reason="writes the tutorial's screenshot when PNP_SCREENSHOT names a file")
def test_the_tutorials_screenshot(tmp_path: Path) -> None:
    """The page over Harbour Lights, then one crew card's text made too long (the
    tutorial's E070): its last picture stands, stale, with the finding, as
    docs/images/serve.png shows."""
    cards = tmp_path / "cards"
    pack = cards / "harbour-lights"
    shutil.copytree(PROJECT_ROOT / "examples" / "harbour-lights", pack,
                    ignore=shutil.ignore_patterns("build", ".cache"))
    serving = Serving(cards, "harbour-lights", cwd=cards)  # paths shown from the pack's folder
    driver = None
    try:
        driver = chrome(1280, 900)
        serving.until(lambda data: data["version"] > 0, 120)
        driver.get(serving.url)
        settled(serving, driver)
        save(pack / "crew.yaml", ("from the supply.'\n  quote: \"Whale", (
            "from the supply, then sell it on the quay to every captain who asks, at any "
            "price they name, and tell each of them the tide.'\n  quote: \"Whale")))
        wait(driver, lambda d: d.find_elements("css selector", 'li[data-code="E070"]'), 120)
        settled(serving, driver)
        driver.find_element("id", "show-safe").click()
        wait(driver, lambda d: d.execute_script(
            "return [...document.querySelectorAll('figure.face img')].filter((i) => {"
            "const box = i.getBoundingClientRect(); return box.bottom > 0 && box.top < "
            "innerHeight}).every((i) => i.complete && i.naturalWidth)"))
        target = Path(os.environ["PNP_SCREENSHOT"])
        target.parent.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(target))
    finally:
        if driver is not None:
            driver.quit()
        serving.kill()
