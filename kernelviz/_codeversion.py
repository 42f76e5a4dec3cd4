"""The version of the code a stored result was computed by: a digest of the source of every
kernelviz module its computation imports, directly or through others.

Two stores key their entries by it: the reproduction's cells (the root is the paper's runner,
:mod:`kernelviz.reproduce.store`) and the disk cache of the app's results (the root is the module
that computes the entry, :func:`kernelviz._diskcache.key`). It sits at the bottom of the package,
importing nothing of kernelviz, so that the app's live lattices can be keyed by it without
importing the reproduction.

Why a digest rather than a number bumped by hand: a cell is a number computed by the runner,
the models, the kernels and the solver; a change to any of them (a fixed bug, another default)
makes an earlier cell another computation's. The store once keyed cells by their data and
settings only, and a report re-rendered from cells of older code showed results today's code
no longer gives (MCPM's Twonorm RBF-PPK: 0.500 stored, 0.860 recomputed). Keyed by this digest
as well, a cell of other code is never read: it is computed again.

Modules that do not shape a cell's numbers are left out, so that editing them does not throw
away hours of stored cells: the store, the report, the claims and diagnostics (they read cells,
never write them), the published values, the data readers (the data digest already names the
arrays a cell was computed on), input validation, and the runner's bookkeeping (what a cell
records is versioned by :data:`kernelviz.reproduce.runner.RESULT_FORMAT`).
"""
from __future__ import annotations

import ast
import hashlib
import threading
from functools import lru_cache
from pathlib import Path

__all__ = ["EXCLUDED", "code_version", "modules"]

_PACKAGE = Path(__file__).resolve().parent  # the kernelviz folder

#: Modules whose source never changes a cell's numbers (see the module's docstring).
EXCLUDED = frozenset({
    "kernelviz.reproduce.runner", "kernelviz.reproduce.store", "kernelviz.reproduce.report",
    "kernelviz.reproduce.claims", "kernelviz.reproduce.diagnostics", "kernelviz.reproduce.published",
    "kernelviz.reproduce.datasets", "kernelviz._codeversion", "kernelviz.reproduce.timing",
    "kernelviz.data.io", "kernelviz.data.generators", "kernelviz.data.dataset", "kernelviz._validation",
    "kernelviz.references",
})

#: Packages whose ``__init__`` only gathers names: followed into the submodules that compute (the
#: data package's readers are excluded above, and an edit to its list of exports changes no cell).
_THROUGH = {"kernelviz.data": ("kernelviz.data.scaling", "kernelviz.data.selection")}


def _path(module: str) -> Path | None:
    parts = module.split(".")[1:]
    folder = _PACKAGE.joinpath(*parts)
    if folder.is_dir() and (folder / "__init__.py").is_file():
        return folder / "__init__.py"
    file = _PACKAGE.joinpath(*parts[:-1], parts[-1] + ".py") if parts else _PACKAGE / "__init__.py"
    return file if file.is_file() else None


def _imports(module: str, path: Path):
    """The kernelviz modules ``module`` imports (names imported from a package count as its
    submodules when such a file exists, else as the package), and those it reaches as attributes of
    the package (``import kernelviz as kv`` … ``kv.kernels``: the package imports its submodules on
    first use, so no import statement names them)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names if alias.name == "kernelviz"}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and _path(f"kernelviz.{node.attr}") is not None):
            found.add(f"kernelviz.{node.attr}")
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("kernelviz"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if _path(sub) is not None else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("kernelviz"))
    return found


#: What the app's stored results (grid searches, live lattices) leave out: the modules that describe a
#: result rather than compute it — the figures' drawing, the lessons' text, the settings' table, the
#: references, the plain-text helper and the browser's payload layout —, and the store and the
#: background threads that keep and run them (as the store is left out for cells) — so that editing a caption does
#: not throw the lessons' shipped searches away. A change to how an entry is laid out bumps
#: ``_diskcache.FORMAT``. The data package is not left out (unlike for cells): the keys name
#: generated data by the generator's settings, not by the points, so its code shapes them.
_RESULTS_EXCLUDED = frozenset({"kernelviz._codeversion", "kernelviz.figures", "kernelviz.lessons", "kernelviz.state",
                               "kernelviz.references", "kernelviz.outside", "kernelviz.protocol",
                               "kernelviz._diskcache", "kernelviz._background"})


#: Held while sources are parsed: CPython 3.11's ``ast.parse`` is not safe from several threads at a
#: time ("SystemError: AST constructor recursion depth mismatch" when sessions asked for their first
#: lattice's key at once).
_PARSING = threading.Lock()


@lru_cache(maxsize=None)
def modules(root: str, *, cells: bool = True) -> tuple:
    """Every kernelviz module ``root`` reaches through its imports, sorted: for the reproduction's
    ``cells`` minus :data:`EXCLUDED` (and packages of :data:`_THROUGH` followed into the modules that
    compute); else, for the app's stored results, all of them."""
    with _PARSING:
        return _reached(root, cells)


def _reached(root: str, cells: bool) -> tuple:
    excluded, through = (EXCLUDED, _THROUGH) if cells else (_RESULTS_EXCLUDED, {})
    seen, todo = set(), [root]
    while todo:
        module = todo.pop()
        if module in seen or module in excluded:
            continue
        if module in through:
            seen.add(module)
            todo.extend(through[module])
            continue
        path = _path(module)
        if path is None:
            continue
        seen.add(module)
        todo.extend(_imports(module, path))
    return tuple(sorted(seen))


def code_version(root: str, *, cells: bool = True) -> str:
    """The first 16 hex digits of the SHA-256 of the source of :func:`modules` (``root``, ``cells``),
    each file's bytes preceded by its module name. Read on every call (not cached), so that a
    long-lived process that reloads a module is not keyed by the source it started with."""
    sha = hashlib.sha256()
    for module in modules(root, cells=cells):
        if cells and module in _THROUGH:
            continue
        sha.update(module.encode() + b"\0")
        sha.update(_path(module).read_bytes())
    return sha.hexdigest()[:16]
