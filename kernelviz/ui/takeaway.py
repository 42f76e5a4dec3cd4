"""Take it away: every figure as PNG, SVG and HTML, and the Python code behind every view.

Files are made only when their button is clicked (a PNG costs a browser render). The code box
shows :func:`kernelviz.codegen.script` for the page's settings; uploaded or drawn data cannot be
written into a script, so the box offers their CSV file (:func:`kernelviz.codegen.data_download`)
next to it. The projector switch enlarges a figure's text and markers before it is drawn.
"""

from __future__ import annotations

import threading

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from kernelviz import codegen, export, state
from kernelviz.markdown import escape

#: How much the projector enlarges a figure's text and markers.
PROJECTOR_FONT = 1.5
PROJECTOR_MARKERS = 1.6
#: Plotly's default font size, for figures that set none.
DEFAULT_FONT_SIZE = 12
#: Labels of the download buttons, per format.
FORMAT_LABELS = {"png": "PNG", "svg": "SVG", "html": "HTML"}


def shown(fig: go.Figure) -> go.Figure:
    """The figure as the page draws it: enlarged under the projector switch, else unchanged."""
    if not st.session_state.get("projector"):
        return fig
    return for_projector(fig)


def for_projector(fig: go.Figure) -> go.Figure:
    """A copy with every font and every fixed marker size enlarged (array sizes scale too)."""
    big = go.Figure(fig)
    big.update_layout(font_size=round((fig.layout.font.size or DEFAULT_FONT_SIZE) * PROJECTOR_FONT))
    for annotation in big.layout.annotations or ():
        if annotation.font.size:
            annotation.font.size = annotation.font.size * PROJECTOR_FONT
    for trace in big.data:
        marker = getattr(trace, "marker", None)
        size = getattr(marker, "size", None) if marker is not None else None
        if size is not None:
            marker.size = (np.asarray(size, dtype=float) if np.ndim(size) else size) * PROJECTOR_MARKERS
    return big


#: Seconds from a server's first figure to the start of its export browser. Launching
#: Chromium takes a core for seconds: started at once, it slowed the first paint and the first
#: steps of the visitor's own browser (on a 2-core machine, cold start 1.7× → 3.0× a one-chart app).
WARM_UP_DELAY = 30.0


@st.cache_resource(show_spinner=False)
def _warm_exporter() -> threading.Timer:
    """Start the export browser once per server, in the background and :data:`WARM_UP_DELAY`
    seconds after the first figure, so the first PNG seldom waits for it."""
    def start():
        try:
            export.warm_up()
        except export.ExportUnavailable:
            pass  # the page already says why PNG / SVG are missing (unavailable_reason)

    timer = threading.Timer(WARM_UP_DELAY, start)
    timer.name, timer.daemon = "kernelviz-export-warm-up", True
    timer.start()
    return timer


@st.cache_resource(show_spinner=False)
def _unavailable_reason() -> str:
    return export.unavailable_reason()


def downloads(fig: go.Figure, name: str) -> None:
    """PNG, SVG and HTML buttons for one figure (files made on click); a reason instead of PNG / SVG
    where this machine cannot render them."""
    reason = _unavailable_reason()
    formats = ("html",) if reason else ("png", "svg", "html")
    if not reason:
        _warm_exporter()
    columns = st.columns(len(formats) + 1)
    columns[0].caption("Download the figure:")
    for column, fmt in zip(columns[1:], formats):
        column.download_button(FORMAT_LABELS[fmt], lambda fmt=fmt: export.figure_bytes(fig, fmt),
                               file_name=f"{name}.{fmt}", mime=export.MIME_TYPES[fmt], key=f"{fmt}_{name}",
                               on_click="ignore", width="stretch")
    if reason:
        st.caption(escape(reason))


#: Session key of the "Python code" expander's open state.
CODE_BOX_KEY = "code_box_open"


def code_box(values: dict, prep) -> None:
    """The "Python code" expander: a script printing this view's numbers with the kernelviz API.

    The script is written and shown only while the expander is open (opening it reruns the
    page): a code block on the page loads the browser's syntax highlighter, 0.27–0.33 s of
    every first page, closed or not.
    """
    box = st.expander("Python code — reproduce this view's numbers", key=CODE_BOX_KEY, on_change="rerun")
    if not box.open:
        return
    data_file = None
    if values["source"] in codegen.FILE_SOURCES:
        data_file, text = codegen.data_download(prep)
    script = codegen.script({k: v for k, v in values.items() if k not in state.DISPLAY_SETTINGS or k == "view"},
                            data_file=data_file)
    with box:
        if data_file:
            st.caption("Your data cannot be written into the code: the script reads this file.")
            st.download_button(f"Download {data_file}", text, file_name=data_file, mime="text/csv",
                               key="code_data", on_click="ignore")
        st.code(script, language="python")
