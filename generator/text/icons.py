"""Icons in text: `:coin:` draws the image game.yaml's `icons:` gives that name, inline in
the line, 1 em high on the baseline; an SVG is drawn in the page itself, so its
`currentColor` is the colour of the text around it. `\\:coin:` is the text `:coin:`.

An icon is drawn from the HTML a template or the rulebook made, in its text only (never in
a tag, an attribute, a style or a code span), so it works in every field of every template.
A pack that declares no icons has no icon syntax: its colons are only colons.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from markupsafe import escape

NAME = r"[A-Za-z][A-Za-z0-9_-]*"
_USE = re.compile(rf"(\\?):({NAME}):")  # in text as the designer wrote it
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*>|<!--.*?-->", re.S)
_RAW = {"style", "script", "code", "pre", "svg", "textarea", "title"}  # text left as it is
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_DROPPED = {"script", "foreignObject", "iframe", "object", "embed", "audio", "video"}
_LOCAL_URL = re.compile(r"url\(\s*(['\"]?)#")
STYLE = """
/* icons in text (game.yaml `icons`): as high as the text, on its baseline */
.icon { height: 1em; width: auto; vertical-align: baseline; }
"""


def used(text: str) -> Iterator[str]:
    """The icon names a text uses, an escaped `\\:name:` left out."""
    for match in _USE.finditer(text):
        if not match.group(1):
            yield match.group(2)


def as_text(text: str, names: Collection[str]) -> str:
    """Text for where it is exported as text: each icon of `names` (the game's) `:coin:`
    becomes `[coin]`, and `\\:coin:` the text `:coin:`."""
    if not names:
        return text
    return _USE.sub(lambda m: m.group(0) if m.group(2) not in names
                    else f":{m.group(2)}:" if m.group(1) else f"[{m.group(2)}]", text)


def unescaped(text: str) -> str:
    """Escaped card text with `\\:name:` kept as the text `:name:`, never an icon: the colon
    is written as a character reference, which `draw` does not read as one."""
    return _USE.sub(lambda m: f"&#58;{m.group(2)}:" if m.group(1) else m.group(0), text)


def draw(page: str, icons: Mapping[str, str]) -> str:
    """The HTML with each `:name:` of its text that `icons` knows (name to the markup that
    draws it) drawn; an unknown name stays text (validate has said so at its line)."""
    if not icons or ":" not in page:
        return page
    out, raw, done = [], 0, 0
    for tag in _TAG.finditer(page):
        text = page[done:tag.start()]
        out.append(text if raw else _draw_text(unescaped(text), icons))
        out.append(tag.group(0))
        done = tag.end()
        name = (tag.group(2) or "").lower()
        if name in _RAW and not tag.group(0).endswith("/>"):
            raw += -1 if tag.group(1) else 1
            raw = max(raw, 0)
    rest = page[done:]
    out.append(rest if raw else _draw_text(unescaped(rest), icons))
    return "".join(out)


def _draw_text(text: str, icons: Mapping[str, str]) -> str:
    return _USE.sub(lambda m: icons.get(m.group(2), m.group(0)) if not m.group(1)
                    else m.group(0), text)


def markup(name: str, path: Path, data: bytes) -> str:
    """The inline HTML that draws the icon `name` from its file: an SVG made part of the page
    (scripts, event attributes and links to other files left out; its ids made its own), a
    raster an image of the file."""
    label = escape(name)
    if path.suffix.lower() != ".svg":
        return f'<img class="icon icon-{label}" src="{escape(path.as_posix())}" alt="{label}">'
    try:
        if b"<!ENTITY" in data.upper() or b"<!DOCTYPE" in data.upper():
            raise ET.ParseError("an SVG that declares entities (E075) is not read")
        root = ET.fromstring(data)
    except ET.ParseError:
        return f'<span class="icon icon-{label}">[{label}]</span>'
    _clean(root, f"icon-{name}-")
    root.set("class", f"icon icon-{name}")
    root.set("aria-label", name)
    width, height = (_number(root.attrib.pop(size, "")) for size in ("width", "height"))
    if root.get("viewBox") is None:  # its own size, else a square
        root.set("viewBox", f"0 0 {width or 100:g} {height or 100:g}")
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    return ET.tostring(root, encoding="unicode")


def _clean(element: ET.Element, prefix: str) -> None:
    """Leave out what an icon may not do in a page: run scripts, answer events, show other
    documents, link to files; prefix its ids, so that two icons' ids never meet."""
    for child in list(element):
        if _local(child.tag) in _DROPPED or not isinstance(child.tag, str):
            element.remove(child)
        else:
            _clean(child, prefix)
    for key, value in list(element.attrib.items()):
        local = _local(key)
        if local.lower().startswith("on"):
            del element.attrib[key]
        elif local == "href":
            if value.startswith("#"):
                element.set(key, "#" + prefix + value[1:])
            elif not value.startswith("data:image/"):
                del element.attrib[key]
        elif local == "id":
            element.set(key, prefix + value)
        elif "url(" in value:
            element.set(key, _LOCAL_URL.sub(lambda m: f"url({m.group(1)}#{prefix}", value))
    if _local(element.tag) == "style" and element.text:
        element.text = _LOCAL_URL.sub(lambda m: f"url({m.group(1)}#{prefix}", element.text)


def _number(size: str) -> float | None:
    """A length's number (`24`, `24px`), None when it has none."""
    match = re.match(r"\s*(\d+(?:\.\d+)?)", size)
    return float(match.group(1)) or None if match else None


def _local(tag: str) -> str:
    """A tag or attribute name without its namespace."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


