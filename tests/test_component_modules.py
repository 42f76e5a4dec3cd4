"""The components' JavaScript as Streamlit receives it: each component one text, the modules they
share (the points painter, kernelviz/components/points.js, and the lifecycle, lifecycle.js) put in
place of their imports."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kernelviz import figures as fg
from kernelviz.components import draw, module_text

pytestmark = pytest.mark.unit

COMPONENTS = Path(draw.__file__).resolve().parent.parent
MODULES = [COMPONENTS / "plot" / "plot.js", COMPONENTS / "draw" / "draw.js", COMPONENTS / "poll" / "poll.js"]
#: What each component imports of the shared modules (each module a declaration it defines).
SHARED = {"points.js": "function paintMarker(", "lifecycle.js": "function mount(", "events.js": "const FINISHED_EVENT ="}
IMPORTS = {"plot.js": ("points.js", "lifecycle.js", "events.js"), "draw.js": ("points.js", "lifecycle.js"),
           "poll.js": ("lifecycle.js", "events.js")}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_component_is_one_text_with_the_shared_modules_once_and_no_import(path):
    source = path.read_text(encoding="utf-8")
    assert all(f'from "../{module}"' in source for module in IMPORTS[path.name])  # the file itself imports them
    text = module_text(path)
    assert not re.search(r"^\s*import\b", text, re.MULTILINE)
    for module in IMPORTS[path.name]:
        assert len(re.findall("^" + re.escape(SHARED[module]), text, re.MULTILINE)) == 1, module
    assert len(re.findall(r"^export default function", text, re.MULTILINE)) == 1
    assert not re.search(r"^export (const|function) ", text, re.MULTILINE)  # the painter's exports are plain


@pytest.mark.skipif(shutil.which("node") is None, reason="node is installed by `make node` (make test needs it)")
@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_text_streamlit_receives_is_a_valid_module(path, tmp_path):
    module = tmp_path / f"{path.stem}.mjs"
    module.write_text(module_text(path), encoding="utf-8")
    checked = subprocess.run(["node", "--check", str(module)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_nested_imports_are_put_in_place_once_each_before_their_importer(tmp_path):
    """main imports a and b, both import c (a diamond), c imports nothing: c once, before a."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "c.js").write_text("export const c = 1;\n", encoding="utf-8")
    (tmp_path / "a.js").write_text('import { c } from "./lib/c.js";\nexport const a = c + 1;\n', encoding="utf-8")
    (tmp_path / "lib" / "b.js").write_text('import { c } from "./c.js";\nexport function b() { return c; }\n',
                                           encoding="utf-8")
    (tmp_path / "main.js").write_text('import { a } from "./a.js";\nimport { b } from "./lib/b.js";\n'
                                      "export default function () { return a + b(); }\n", encoding="utf-8")
    text = module_text(tmp_path / "main.js")
    assert text.count("const c = 1;") == 1 and not re.search(r"^\s*import\b", text, re.MULTILINE)
    assert text.index("const c = 1;") < text.index("const a = c + 1;") < text.index("function b()")
    assert re.findall(r"^export \w+", text, re.MULTILINE) == ["export default"]


def test_a_module_that_imports_a_missing_module_or_one_importing_it_is_refused(tmp_path):
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nexport const a = 1;\n', encoding="utf-8")
    (tmp_path / "b.js").write_text('import { a } from "./a.js";\nexport const b = 2;\n', encoding="utf-8")
    (tmp_path / "main.js").write_text('import { a } from "./a.js";\nexport default function () {}\n',
                                      encoding="utf-8")
    with pytest.raises(ValueError, match="import each other"):
        module_text(tmp_path / "main.js")
    (tmp_path / "other.js").write_text('import x from "somewhere";\nexport default function () {}\n',
                                       encoding="utf-8")
    with pytest.raises(ValueError, match="cannot be put in place"):
        module_text(tmp_path / "other.js")


def test_a_drawn_point_looks_as_the_figures_draw_that_class():
    X, y = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), np.array([-1.0, 1.0, -1.0])
    traces = fg.point_traces(X, y, labeled_mask=np.array([True, True, False]), classes=[-1.0, 1.0],
                             size=draw.POINT_SIZE)
    by_name = {trace["name"]: trace["marker"] for trace in traces}
    for style in draw.STYLES:
        assert style["marker"] == by_name[style["name"]], style["name"]
    assert [s["marker"].get("symbol", "circle") for s in draw.STYLES] == ["cross", "circle", "circle"]
