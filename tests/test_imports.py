"""The package's modules import one another without a cycle, read from their code: every
`from .x import …` counts, at the top of a module or inside a function, but those made for
type checking alone, which never run."""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Callable
from pathlib import Path

from generator import PACKAGE_DIR


def _name(path: Path) -> str:
    """A module's dotted name inside the package ('' for the package itself)."""
    parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _run_imports(tree: ast.AST) -> list[ast.ImportFrom]:
    """Every relative import of a module but those under `if TYPE_CHECKING:`."""
    found, pending = [], [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            pending += node.orelse
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            found.append(node)
        pending += ast.iter_child_nodes(node)
    return found


def _graph() -> dict[str, set[str]]:
    """Each module of the package, and the modules of the package it imports."""
    modules = {_name(path): path for path in PACKAGE_DIR.rglob("*.py")
               if "__pycache__" not in path.parts}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = [part for part in package if part]
        imported = set()
        for node in _run_imports(ast.parse(path.read_text(encoding="utf-8"))):
            base = package[:len(package) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:  # `from . import x` names a module or a name in one
                inner = f"{target}.{alias.name}".lstrip(".")
                imported.add(inner if inner in modules else target)
        graph[name] = {module for module in imported if module in modules} - {name, ""}
    return graph


def test_the_package_has_no_import_cycle() -> None:
    graph = _graph()
    assert len(graph) > 40 and sum(map(len, graph.values())) > 100  # the code was read
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError(f"modules import one another in a circle: {exc.args[1]}") from None


def test_a_cycle_is_found() -> None:
    """The check sees a cycle made of a top-level import and one inside a function."""
    graph = _graph()
    load, sheet = "pack.load", "pack.spreadsheet"
    assert load in graph[sheet] or sheet in graph[load]
    both = {**graph, sheet: graph[sheet] | {load}, load: graph[load] | {sheet}}
    try:
        graphlib.TopologicalSorter(both).prepare()
    except graphlib.CycleError:
        return
    raise AssertionError("a cycle went unseen")


def _importers(wanted: Callable[[str], str | None]) -> dict[str, set[str]]:
    """The package's modules (their paths under it) that import each library, as `wanted`
    calls the absolute module an import names (None: one not looked for)."""
    importing: dict[str, set[str]] = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            for name in names:
                if (library := wanted(name)) is not None:
                    importing.setdefault(library, set()).add(str(path.relative_to(PACKAGE_DIR)))
    return importing


def test_each_heavy_library_is_imported_by_one_module() -> None:
    """WeasyPrint only where parts are laid out, pikepdf only where PDFs are joined, PDFium
    only where pages are drawn as pixels, openpyxl only where workbooks are read, tinycss2
    and cssselect2 only where a face's stylesheet rules are found, Babel only where PO files
    are written and read, Starlette and uvicorn only where `pnp serve` answers the browser."""
    owners = {"weasyprint": "layout/engine.py", "pikepdf": "pdf/assemble.py",
              "pypdfium2": "pdf/raster.py", "openpyxl": "pack/spreadsheet.py",
              "uharfbuzz": "text/fonts.py", "fontTools": "text/fonts.py",
              "tinycss2": "plan/style.py", "cssselect2": "plan/style.py",
              "babel": "pack/po.py", "starlette": "preview/web.py",
              "uvicorn": "preview/web.py"}
    importing = _importers(lambda name: name.split(".")[0] if name.split(".")[0] in owners
                           else None)
    assert importing == {library: {owner} for library, owner in owners.items()}


NETWORK = ("urllib.request", "urllib.error", "http", "socket", "socketserver", "ssl", "ftplib",
           "smtplib", "asyncio", "xmlrpc")


def test_only_pnp_pull_imports_network_code() -> None:
    """`pnp pull` is the one command that uses the network (pack/pull.py), and `pnp serve`
    the one that listens, on this machine's address (preview/web.py); nothing else, a build
    least of all, imports a module that opens a connection."""
    importing = _importers(lambda name: next((module for module in NETWORK if name == module
                                              or name.startswith(f"{module}.")), None))
    assert set().union(*importing.values()) == {"pack/pull.py", "preview/web.py"}
