"""Outside text through the whole app (AppTest): link values, an uploaded file's name, its
column and class names reach every message, caption, summary, legend, file name and the
Python-code box only as inert text.

A Markdown body is inert when, read as CommonMark reads escapes, it holds no autolink
trigger (``www``, ``http``, ``name@host``) and no unescaped ``<`` or ``[`` (HTML, links,
images). What the browser then draws from such a body is checked in tests/test_outside_browser.py.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import kernelviz as kv
from kernelviz import state as kvstate
from kernelviz.outside import file_name

from _charts import figures
from _hostile import hostile_text
from apptest import APP, open_app

pytestmark = pytest.mark.app

_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def assert_inert(body: str) -> None:
    seen = _ESCAPED.sub(r"\1", body)
    assert not re.search(r"(?i)www|http|@[\w-]", seen), body
    assert not re.search(r"[<\[]", _ESCAPED.sub("", body)), body


def markdown_bodies(at: AppTest) -> list[str]:
    return [e.value for kind in (at.error, at.warning, at.info, at.success, at.caption, at.markdown) for e in kind
            if not str(e.value).lstrip().startswith("<style")]


@settings(max_examples=15, deadline=None)
@example(name="log_gamma", raw="see https://evil.example/fix now")
@example(name="grid_log_C", raw="www.evil.example mail@evil.example [fix](https://evil.example)")
@given(name=st.sampled_from(sorted(n for n in kvstate.BY_NAME if n != "points")), raw=hostile_text)
def test_a_hostile_link_value_comes_back_as_inert_text(name, raw):
    at = open_app({"view": "boundaries" if name != "view" else raw, "gen_params": "n_samples:40", name: raw})
    assert not at.exception
    for body in markdown_bodies(at):
        assert_inert(body)


def hostile_upload(names: list[str], classes: list[str]) -> bytes:
    """A CSV whose two feature columns, label column and classes carry hostile names."""
    X, y = kv.data.make("blobs", n_samples=30, random_state=1)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(names)
    writer.writerows([f"{a:.4f}", f"{b:.4f}", classes[int(label)]] for (a, b), label in zip(X, y))
    return out.getvalue().encode()


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file=hostile_text, columns=st.lists(hostile_text.map(lambda t: t[:200]), min_size=3, max_size=3, unique=True),
       classes=st.lists(hostile_text.map(lambda t: t[:200]), min_size=2, max_size=2, unique=True),
       view=st.sampled_from(["data", "boundaries"]))
def test_a_hostile_upload_is_shown_as_inert_text_everywhere(file, columns, classes, view):
    raw = hostile_upload(columns, classes)
    at = open_app(dict(view=view, source="upload", kernels="rbf"), run=False)
    at.session_state["_upload"] = (hashlib.sha1(raw).hexdigest(), f"{file}.csv", raw)
    at.session_state["code_box_open"] = True
    at.run()
    assert not at.exception
    for body in markdown_bodies(at):
        assert_inert(body)
    for chart in at.get("plotly_chart") + at.get("custom_component"):
        spec = json.dumps(getattr(chart, "proto", chart).__str__())
        assert "<a " not in spec and "<img" not in spec and "<script" not in spec.lower()
    for code in at.code:
        if "DATA_FILE" in code.value:
            assert f"DATA_FILE = {file_name(file or 'upload', 'csv')!r}" in code.value  # caches.uploaded's stem


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(hostile_text.map(lambda t: t[:200]).filter(str.strip), min_size=2, max_size=2, unique=True),
       view=st.sampled_from(["data", "boundaries"]))
def test_hostile_class_names_of_drawn_data_in_a_link_are_shown_as_inert_text(names, view):
    """The names edited data carry (``class_names``) reach the legend, the summary and the edit controls."""
    link = kvstate.encode_names({-1.0: names[0], 1.0: names[1]})
    at = open_app(dict(view=view, source="drawn", points="0_0_-1~1_1_1~0.5_0_-1~1_0.5_1", class_names=link,
                       kernels="rbf", test_fraction="0"))
    assert not at.exception
    assert at.session_state["class_names"] is not None  # read, not refused: the names are on the page
    options = [option for group in at.get("button_group") for option in group.options]
    for body in markdown_bodies(at) + options:
        assert_inert(body)
    for figure in figures(at):
        spec = json.dumps(figure)
        assert "<a " not in spec and "<img" not in spec and "<script" not in spec.lower()
    if view == "boundaries":
        assert figures(at)  # the legend, where the names are


SOURCES = [Path(APP), *sorted((Path(APP).parent / "kernelviz" / "ui").rglob("*.py"))]


@pytest.mark.unit
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(Path(APP).parent)))
@pytest.mark.unit
def test_every_downloaded_file_is_named_by_file_name_or_a_literal(source):
    """A download's name is outside text when it comes from the data: only
    ``kernelviz.outside.file_name`` (the name the code box's script reads) may build it."""
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "file_name":
            value = node.value
            literal = isinstance(value, ast.Constant) and isinstance(value.value, str)
            named = isinstance(value, ast.Call) and getattr(value.func, "id", None) == "file_name"
            assert literal or named or isinstance(value, ast.Name), (source.name, ast.unparse(value))
