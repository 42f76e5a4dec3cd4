"""The components' JavaScript as Streamlit receives it: each component one text, the modules it
imports (its own, and those the components share: the points painter, kernelviz/components/points.js,
the lifecycle, lifecycle.js) put in place of their imports, nested ones included. Every module of
the front end stays at most 500 lines and is imported by a node test (tests/js)."""

from __future__ import annotations

import json
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


def only_the_default_export(text):
    """No import or export statement is left but the component's default export (a dynamic
    ``import(…)``, plot.js's of plotly.js, is an expression)."""
    statements = re.findall(r"^[ \t]*(?:import\b(?!\s*\()|export\b).*$", text, re.MULTILINE)
    return len(statements) == 1 and statements[0].startswith("export default function")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_component_is_one_text_with_the_shared_modules_once_and_no_import(path):
    text = module_text(path)
    for module in IMPORTS[path.name]:
        assert len(re.findall("^" + re.escape(SHARED[module]), text, re.MULTILINE)) == 1, module
    assert only_the_default_export(text)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is installed by `make node` (make test needs it)")
@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_text_streamlit_receives_is_a_valid_module(path, tmp_path):
    module = tmp_path / f"{path.stem}.mjs"
    module.write_text(module_text(path), encoding="utf-8")
    checked = subprocess.run(["node", "--check", str(module)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


#: Every module of the components' front end, and the node tests (tests/js, ``node --test``).
FRONT_END = sorted(COMPONENTS.rglob("*.js"))
NODE_TESTS = COMPONENTS.parent.parent / "tests" / "js"
#: A module longer than this is split by concern (issue 30: plot.js had grown to 1,637 lines).
MOST_LINES = 500


@pytest.mark.parametrize("path", FRONT_END, ids=lambda p: p.relative_to(COMPONENTS).as_posix())
def test_a_front_end_module_is_at_most_500_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_LINES, f"{path.name} has {lines} lines: split it by concern"


def test_every_front_end_module_is_imported_by_a_node_test():
    imported = set()
    for test in NODE_TESTS.glob("*.test.mjs"):
        for module in re.findall(r'from\s*"(\.{1,2}/[^"]+\.js)"', test.read_text(encoding="utf-8")):
            imported.add((test.parent / module).resolve())
    untested = [path.relative_to(COMPONENTS).as_posix() for path in FRONT_END if path.resolve() not in imported]
    assert FRONT_END and not untested, f"no node test in tests/js imports {untested}"


def write_modules(folder: Path, modules: dict[str, str]) -> Path:
    """The modules (path → text) under folder; the first is the component's own."""
    for name, text in modules.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder / next(iter(modules))


def test_a_nested_import_is_put_in_place_once_before_the_module_that_imports_it(tmp_path):
    main = write_modules(tmp_path, {
        "plot/main.js": 'import { twice } from "./lib/twice.js";\nimport { ONE } from "../one.js";\n'
                        "export default function () { return twice(ONE); }\n",
        "plot/lib/twice.js": 'import { ONE } from "../../one.js";\nexport function twice(x) { return 2 * x * ONE; }\n',
        "one.js": "export const ONE = 1;\n",
    })
    text = module_text(main)
    assert text.count("const ONE = 1;") == 1
    assert text.index("const ONE") < text.index("function twice") < text.index("export default")
    assert only_the_default_export(text)


def test_a_module_two_modules_import_is_put_in_place_once_before_both(tmp_path):
    # a diamond: main imports left and right, both import base; their top-level consts need base's first
    main = write_modules(tmp_path, {
        "main.js": 'import { LEFT } from "./left.js";\nimport { RIGHT } from "./right.js";\n'
                   "export default function () { return [LEFT, RIGHT]; }\n",
        "left.js": 'import { BASE } from "./base.js";\nexport const LEFT = BASE + 1;\n',
        "right.js": 'import { BASE, scaled } from "./base.js";\nexport const RIGHT = scaled(BASE);\n',
        "base.js": "export const BASE = 10;\nfunction scaled(x) { return 3 * x; }\nexport { scaled };\n",
    })
    text = module_text(main)
    assert text.count("const BASE = 10;") == 1 and text.count("function scaled") == 1
    assert text.index("const BASE") < text.index("const LEFT") < text.index("const RIGHT") < text.index("export default")
    assert only_the_default_export(text)
    if shutil.which("node"):  # declared in order: the text runs
        (tmp_path / "whole.mjs").write_text(text, encoding="utf-8")
        ran = subprocess.run(["node", "--input-type=module", "-e",
                              f"import f from {json.dumps((tmp_path / 'whole.mjs').as_uri())}; console.log(JSON.stringify(f()));"],
                             capture_output=True, text=True)
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout) == [11, 30]


@pytest.mark.parametrize("modules", [
    {"main.js": 'import { a } from "./a.js";\nexport default function () {}\n',
     "a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
     "b.js": 'import { a } from "./a.js";\nexport const b = 2;\n'},
    {"main.js": 'import { a } from "./a.js";\nexport default function () {}\n',
     "a.js": 'import { x } from "./main.js";\nexport const a = 1;\n'},
], ids=["between-modules", "back-to-the-component"])
def test_modules_that_import_each_other_are_refused(tmp_path, modules):
    with pytest.raises(ValueError, match="import cycle .*a.js"):
        module_text(write_modules(tmp_path, modules))


@pytest.mark.parametrize(("main", "others", "says"), [
    ('import x from "somewhere";', {}, "cannot be put in place"),
    ('import a from "./a.js";', {}, "cannot be put in place"),
    ('import * as a from "./a.js";', {}, "cannot be put in place"),
    ('import { a as b } from "./a.js";', {}, "renames a as b"),
    ('import { c } from "./c.js";', {}, "c.js, which is not there"),
    ('import { b } from "./a.js";', {}, "imports b from a.js, which does not export it"),
    ('export { a } from "./a.js";', {}, "cannot be put in place"),
    ('import { d } from "./d.js";', {"d.js": "export default function d() {}\n"}, "d.js has a default export"),
], ids=["bare", "default", "namespace", "renaming", "missing-file", "missing-name", "re-export",
        "default-of-a-module"])
def test_an_import_that_cannot_be_put_in_place_is_refused(tmp_path, main, others, says):
    component = write_modules(tmp_path, {"main.js": f"{main}\nexport default function () {{}}\n",
                                         "a.js": "export const a = 1;\n", **others})
    with pytest.raises(ValueError, match=re.escape(says)):
        module_text(component)


def test_a_drawn_point_looks_as_the_figures_draw_that_class():
    X, y = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), np.array([-1.0, 1.0, -1.0])
    traces = fg.point_traces(X, y, labeled_mask=np.array([True, True, False]), classes=[-1.0, 1.0],
                             size=draw.POINT_SIZE)
    by_name = {trace["name"]: trace["marker"] for trace in traces}
    for style in draw.STYLES:
        assert style["marker"] == by_name[style["name"]], style["name"]
    assert [s["marker"].get("symbol", "circle") for s in draw.STYLES] == ["cross", "circle", "circle"]
