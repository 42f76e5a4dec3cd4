"""Figures to take away: PNG and SVG through kaleido's Chromium, self-contained HTML, clear refusals."""

from __future__ import annotations

import re
import struct
import time

import numpy as np
import plotly.graph_objects as go
import pytest

from kernelviz import export
from kernelviz import figures as fg


def small_figure(**layout) -> go.Figure:
    return go.Figure(go.Scatter(x=[0, 1, 2], y=[2, 0, 1], mode="markers"), layout={"title": "γ and C", **layout})


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (bytes 16–24)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", data[16:24])


def test_html_is_self_contained_and_carries_the_figure():
    fig = small_figure()
    html = export.figure_bytes(fig, "html").decode("utf-8")
    assert not re.search(r"<script[^>]+src=", html), "the page loads a script from elsewhere (a CDN)"
    import plotly

    bundled = plotly.offline.get_plotlyjs()
    assert bundled[:2000] in html  # plotly.js itself is in the page
    # the figure's own title, as plotly's JSON engine writes it into the page (orjson: "γ", the json module: "\\u03b3")
    assert plotly.io.json.to_json_plotly("γ and C")[1:-1] in html


def test_figures_render_offline_from_local_scripts():
    sources = re.findall(r'src="([^"]+)"', export.render_page().generate_index())
    assert sources and all(src.startswith("file://") for src in sources), sources
    assert any(src.endswith("plotly.min.js") for src in sources)


def test_an_unknown_format_is_refused_with_the_formats_that_work():
    with pytest.raises(ValueError, match="png, svg, html"):
        export.figure_bytes(small_figure(), "pdf")


def test_a_missing_browser_says_what_to_install(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    exporter = export._WarmExporter()
    try:
        with pytest.raises(export.ExportUnavailable, match="apt-get install chromium"):
            exporter.render(small_figure(), {"format": "png"})
        assert not exporter.is_open
    finally:
        exporter.close()
    assert export.unavailable_reason() == export.NO_BROWSER


def test_export_is_available_where_chromium_is_installed():
    # the test machine has Debian's Chromium (make test installs it), as the app's machine must
    assert export.unavailable_reason() == ""


@pytest.mark.slow
def test_png_and_svg_at_slide_size_from_one_warm_browser():
    fig = small_figure()
    png = export.figure_bytes(fig, "png")
    assert png_size(png) == (export.SLIDE_WIDTH * export.PNG_SCALE, export.SLIDE_HEIGHT * export.PNG_SCALE)
    browser = export._EXPORTER._kaleido
    assert browser is not None

    start = time.perf_counter()
    svg = export.figure_bytes(fig, "svg").decode("utf-8")
    assert time.perf_counter() - start < export.RENDER_TIMEOUT
    assert export._EXPORTER._kaleido is browser, "the second export started another browser"
    assert svg.lstrip().startswith("<svg")
    assert f'width="{export.SLIDE_WIDTH}"' in svg and f'height="{export.SLIDE_HEIGHT}"' in svg
    assert "γ and C" in svg


@pytest.mark.slow
def test_a_figure_with_its_own_height_keeps_it():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    fig = fg.data_figure(X, np.array([1.0, -1.0, 1.0]), title="three points")
    fig.update_layout(height=500, width=900)
    assert png_size(export.figure_bytes(fig, "png")) == (900 * export.PNG_SCALE, 500 * export.PNG_SCALE)
