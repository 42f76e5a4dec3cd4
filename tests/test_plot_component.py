"""The plot component (kernelviz.components.plot): what it sends, which clicks it keeps, and the
fallback to Streamlit's Plotly element; in Chromium, a new figure updates the element in place."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import streamlit

from _charts import click, figures
from kernelviz.components import plot
from kernelviz.ui import takeaway
from test_app import assert_clean, make_app

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import live_drag  # noqa: E402

FIGURE = {"data": [{"type": "scatter", "x": [0.0, 1.0], "y": [1.0, 2.0]}],
          "layout": {"datarevision": "abc", "height": 300}}
POINT = {"x": 1.0, "y": 2.0, "curve_number": 0, "point_number": 1, "point_index": 1}


def test_plotly_js_is_streamlits_own_chunk():
    chunk = plot.plotly_chunk()
    assert plot.available() and chunk.startswith("PlotlyChart.") and chunk.endswith(".js")
    source = Path(streamlit.__file__).parent / "static" / "static" / "js" / chunk
    assert plot.DEFINES_PLOTLY in source.read_text(encoding="utf-8")  # what the browser side relies on


def test_a_streamlit_whose_chunk_does_not_define_plotly_js_gets_the_fallback(monkeypatch, tmp_path):
    js = tmp_path / "streamlit" / "static" / "static" / "js"
    js.mkdir(parents=True)
    (js / "PlotlyChart.abc123.js").write_text("export default {}")
    (tmp_path / "streamlit" / "__init__.py").write_text("")
    monkeypatch.setattr(streamlit, "__file__", str(tmp_path / "streamlit" / "__init__.py"))
    plot.plotly_chunk.cache_clear()
    try:
        assert plot.plotly_chunk() is None and not plot.available()
        (js / "PlotlyChart.abc123.js").write_text("x=1;window.Plotly=e;")
        plot.plotly_chunk.cache_clear()
        assert plot.plotly_chunk() == "PlotlyChart.abc123.js"
    finally:
        monkeypatch.undo()
        plot.plotly_chunk.cache_clear()


def test_the_payload_carries_the_figure_its_revision_and_plotly_js():
    sent = json.loads(plot.payload(FIGURE, config={"displaylogo": False}, selectable=True))
    assert sent == {"figure": FIGURE, "config": {"displaylogo": False}, "plotly": plot.plotly_chunk(),
                    "selectable": True, "revision": "abc"}


def test_a_click_counts_only_on_the_figure_it_was_made_on():
    assert plot.current_points({"revision": "abc", "points": [POINT]}, FIGURE) == [POINT]
    assert plot.current_points({"revision": "older", "points": [POINT]}, FIGURE) == []
    assert plot.current_points(None, FIGURE) == []


@pytest.mark.parametrize("state", [
    "abc", ["abc"], {"revision": "abc"}, {"revision": "abc", "points": "x"},
    {"revision": "abc", "points": [{"x": "1", "y": 2.0}]}, {"revision": "abc", "points": [[1.0, 2.0]]},
])
def test_a_malformed_selection_from_the_browser_is_ignored(state):
    assert plot.current_points(state, FIGURE) == []


def test_every_chart_is_drawn_by_the_plot_component():
    at = make_app(view="boundaries", gen_params="n_samples:60", kernels="rbf")
    assert_clean(at)
    assert not at.get("plotly_chart")
    (figure,) = figures(at)
    assert figure["layout"]["title"]["text"].startswith("<b>Decision boundaries at γ = 1")
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == plot.COMPONENT_NAME]
    sent = json.loads(element.proto.bytes)
    assert sent["selectable"] and sent["config"] == takeaway.PLOT_CONFIG
    assert sent["revision"] == figure["layout"]["datarevision"]
    # the fields travel as Plotly's base64 arrays: the figure is sent and parsed on every step
    heatmap = next(t for t in sent["figure"]["data"] if t["type"] == "heatmap")
    assert "bdata" in heatmap["z"]
    as_lists = plot.payload(figure, config=takeaway.PLOT_CONFIG, selectable=True)
    assert len(element.proto.bytes) < 0.6 * len(as_lists)


def test_the_page_starts_plotly_js_with_its_first_element():
    """Imported when the first chart mounted, after the server had run the view and the browser
    had drawn the page, plotly.js's evaluation came last on the way to the first chart."""
    at = make_app()
    first = at.main.children[0]
    assert first.type == "bidi_component" and first.proto.component_name == plot.LOADER_NAME
    assert json.loads(first.proto.bytes) == {"plotly": plot.plotly_chunk()}
    # its place is hidden by the page style, which comes right after it
    assert f".st-key-{plot.LOADER_KEY} {{display: none;}}" in at.markdown[0].value


def _loaders(at) -> list:
    return [e for e in at.get("bidi_component") if e.proto.component_name == plot.LOADER_NAME]


def test_without_plotly_js_the_charts_fall_back_to_streamlits_element(monkeypatch):
    monkeypatch.setattr(plot, "available", lambda: False)
    at = make_app(view="boundaries", gen_params="n_samples:60", kernels="rbf")
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 1
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == plot.COMPONENT_NAME]
    # Streamlit's element compares typed arrays by identity, and drew them twice: it gets lists
    assert "bdata" not in json.dumps(figures(at, typed=True)[0]["data"])
    assert not _loaders(at)


def test_a_click_left_from_an_older_figure_moves_nothing():
    at = make_app(view="similarity", kernels="rbf", gen_params="n_samples:60")
    before = (at.session_state["ref_x"], at.session_state["ref_y"])
    at.session_state["similarity_chart"] = {"selection": {"revision": "an older figure", "points": [
        {"x": 0.75, "y": -0.5, "curve_number": 3}]}}
    at.run()
    at.run()
    assert_clean(at)
    assert (at.session_state["ref_x"], at.session_state["ref_y"]) == before
    click(at, "similarity_chart", [{"x": 0.75, "y": -0.5, "curve_number": 3}])  # the same click on this figure
    at.run()
    at.run()
    assert (at.session_state["ref_x"], at.session_state["ref_y"]) == (0.75, -0.5)


# ============================================================================ in Chromium

@pytest.mark.browser
def test_a_committed_step_updates_the_same_plotly_element(server, page):
    """Streamlit's Plotly element was mounted anew for every figure; the component keeps its element."""
    page.goto(f"{server}/?view=boundaries&gen_params=n_samples:120&kernels=rbf,ckrbf")
    page.locator(f'{live_drag.SCRUB}[data-state="live"]').wait_for()
    live_drag.title_contains(page, "γ = 1,")
    page.wait_for_selector(live_drag.IDLE)
    page.evaluate("() => { document.querySelector('.js-plotly-plot').__kvFirst = true; }")
    live_drag.commit_gamma_step(page, "γ = 1.78,")
    assert page.evaluate("() => document.querySelectorAll('.js-plotly-plot').length") == 1
    assert page.evaluate("() => document.querySelector('.js-plotly-plot').__kvFirst === true"), "a new element"
    scripts = page.evaluate("() => performance.getEntriesByType('resource').map((r) => r.name)")
    assert [s for s in scripts if "PlotlyChart." in s] == [f"{server}/static/js/{plot.plotly_chunk()}"]


@pytest.mark.browser
def test_a_click_on_a_boundary_point_offers_similarity_around_it(server, page):
    page.goto(f"{server}/?view=boundaries&gen_params=n_samples:60&kernels=rbf")
    live_drag.title_contains(page, "Decision boundaries at")
    page.wait_for_selector(live_drag.IDLE)
    x, y = page.evaluate("""() => {
        const gd = document.querySelector('.js-plotly-plot');
        const box = gd.getBoundingClientRect();
        // _fullData: the coordinates as drawn (the figure's own arrays may be base64)
        const trace = gd._fullData.find((t) => String(t.name).includes('(train)'));
        const xa = gd._fullLayout[(trace.xaxis || 'x').replace('x', 'xaxis')];
        const ya = gd._fullLayout[(trace.yaxis || 'y').replace('y', 'yaxis')];
        return [box.left + xa._offset + xa.l2p(trace.x[0]), box.top + ya._offset + ya.l2p(trace.y[0])];
    }""")
    page.mouse.click(x, y)
    page.get_by_role("button", name="Similarity around").wait_for()
    page.wait_for_selector(live_drag.IDLE)
    page.get_by_role("button", name="Similarity around").click()
    live_drag.title_contains(page, "reference point")


@pytest.mark.browser
def test_hidden_and_shown_again_the_figure_is_not_drawn_again_and_a_new_width_is_followed(server, page):
    """Hidden, a figure has no width to fit (Plotly refuses a resize, an error in the page); shown
    again at the width it was drawn at, a resize would draw it all again for nothing."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/?view=boundaries&gen_params=n_samples:60&kernels=rbf")
    live_drag.title_contains(page, "Decision boundaries at")
    # the lattice's rerun (the same figure again, which Plotly.react also reports as drawn) is over
    page.locator(f'{live_drag.SCRUB}[data-state="live"]').wait_for()
    page.wait_for_selector(live_drag.IDLE)
    page.evaluate("""() => {
        const gd = document.querySelector('.js-plotly-plot');
        window.__kvAfterplots = 0;
        gd.on('plotly_afterplot', () => { window.__kvAfterplots += 1; });
        gd.style.display = 'none';
    }""")
    page.wait_for_timeout(400)  # Plotly resizes 100 ms after it is asked
    page.evaluate("() => { document.querySelector('.js-plotly-plot').style.display = ''; }")
    page.wait_for_timeout(400)
    assert page.evaluate("() => window.__kvAfterplots") == 0
    width = page.evaluate("() => document.querySelector('.js-plotly-plot')._fullLayout.width")
    page.set_viewport_size({"width": 1100, "height": 1000})
    page.wait_for_function("(w) => document.querySelector('.js-plotly-plot')._fullLayout.width < w", arg=width)
    assert errors == []


@pytest.mark.browser
def test_plotly_js_is_loaded_on_a_page_without_charts_and_its_loader_takes_no_room(server, page):
    """The loader runs plotly.js whatever the view (the next view's chart finds it ready) and
    shows nothing: its place, gap included, is hidden."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/?view=theory")
    page.wait_for_selector(live_drag.IDLE)
    assert page.locator(".js-plotly-plot").count() == 0
    page.wait_for_function("() => typeof window.Plotly === 'object' && typeof window.Plotly.react === 'function'")
    loader = page.locator(f".st-key-{plot.LOADER_KEY}")
    assert loader.count() == 1 and loader.evaluate("(el) => getComputedStyle(el).display") == "none"
    assert errors == []
