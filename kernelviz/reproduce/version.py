"""The version of the code a stored cell was computed by: a digest of the source of every
kernelviz module the paper's runner imports, directly or through others.

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
from functools import lru_cache
from pathlib import Path

__all__ = ["EXCLUDED", "code_version", "modules"]

_PACKAGE = Path(__file__).resolve().parents[1]  # the kernelviz folder

#: Modules whose source never changes a cell's numbers (see the module's docstring).
EXCLUDED = frozenset({
    "kernelviz.reproduce.runner", "kernelviz.reproduce.store", "kernelviz.reproduce.report",
    "kernelviz.reproduce.claims", "kernelviz.reproduce.diagnostics", "kernelviz.reproduce.published",
    "kernelviz.reproduce.datasets", "kernelviz.reproduce.version", "kernelviz.reproduce.timing",
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
    submodules when such a file exists, else as the package)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


@lru_cache(maxsize=None)
def modules(root: str) -> tuple:
    """Every kernelviz module ``root`` reaches through its imports, minus :data:`EXCLUDED`, sorted."""
    seen, todo = set(), [root]
    while todo:
        module = todo.pop()
        if module in seen or module in EXCLUDED:
            continue
        if module in _THROUGH:
            seen.add(module)
            todo.extend(_THROUGH[module])
            continue
        path = _path(module)
        if path is None:
            continue
        seen.add(module)
        todo.extend(_imports(module, path))
    return tuple(sorted(seen))


def code_version(root: str) -> str:
    """The first 16 hex digits of the SHA-256 of the source of :func:`modules` (``root``), each
    file's bytes preceded by its module name. Read on every call (not cached), so that a
    long-lived process that reloads a module is not keyed by the source it started with."""
    sha = hashlib.sha256()
    for module in modules(root):
        if module in _THROUGH:
            continue
        sha.update(module.encode() + b"\0")
        sha.update(_path(module).read_bytes())
    return sha.hexdigest()[:16]
