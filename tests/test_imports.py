"""The package's modules import each other without circles: each module can be read, tested
and moved knowing only the modules below it.

Every ``import`` counts, also one deferred into a function: a deferred import is still a
dependency, only hidden from the import machinery.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kernelviz"

pytestmark = pytest.mark.unit


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules ``path`` imports (``from kernelviz import x`` counts as the submodule x)."""
    this = module_name(path)
    package = this if path.name == "__init__.py" else this.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # ``from package import module`` depends on that module; ``from module import name`` on the module
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for name in names:
            # the longest module of the package that the name is or lies in
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != this and name != "kernelviz":
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_imports_of_every_kind():
    graph = import_graph()
    assert "kernelviz._validation" in graph["kernelviz.data.dataset"]  # from .._validation import …
    assert "kernelviz.anatomy" in graph["kernelviz.pipeline.model"]  # from kernelviz import anatomy
    assert "kernelviz.pipeline.data" in graph["kernelviz.pipeline.fit"]  # from kernelviz.pipeline.data import …
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_itself_through_others():
    assert cycles(import_graph()) == []


#: The layers, bottom first (docs/DESIGN.md, "Layers"): a module imports from its own layer or the
#: ones below it, never above. A module lies in the layer of the longest prefix that names it.
LAYERS = (
    ("foundations", ("kernelviz.registry", "kernelviz.protocol", "kernelviz._validation", "kernelviz._svm",
                     "kernelviz._chunks", "kernelviz._threads", "kernelviz._background", "kernelviz._diskcache", "kernelviz._codeversion", "kernelviz._dask",
                     "kernelviz.data", "kernelviz.export", "kernelviz.references", "kernelviz.outside")),
    ("kernels", ("kernelviz.kernels", "kernelviz._cluster_pairs", "kernelviz.partitions")),
    ("models", ("kernelviz.models", "kernelviz.anatomy")),
    ("experiments", ("kernelviz.evaluation", "kernelviz.reproduce")),
    ("presentation", ("kernelviz.figures", "kernelviz.crossings", "kernelviz.state", "kernelviz.session", "kernelviz.lessons",
                      "kernelviz.theory", "kernelviz.pipeline", "kernelviz.codegen", "kernelviz.lattice")),
    ("interface", ("kernelviz.components", "kernelviz.ui", "kernelviz.cli", "kernelviz.__main__", "kernelviz")),
)


def layer_of(module: str) -> int:
    matches = [(len(prefix), index) for index, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
               if module == prefix or module.startswith(prefix + ".")]
    if not matches:
        raise AssertionError(f"{module} lies in no layer: add it to LAYERS (and to docs/DESIGN.md)")
    return max(matches)[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return [f"{module} ({LAYERS[layer_of(module)][0]}) imports {used} ({LAYERS[layer_of(used)][0]})"
            for module, used_ones in sorted(graph.items()) for used in sorted(used_ones)
            if layer_of(used) > layer_of(module)]


def test_layers_only_import_downward():
    assert upward_imports(import_graph()) == []


def test_an_upward_import_is_caught():
    assert upward_imports({"kernelviz.lattice": {"kernelviz.components.plot"}, "kernelviz.ui.live": {"kernelviz.data"}}) \
        == ["kernelviz.lattice (presentation) imports kernelviz.components.plot (interface)"]
