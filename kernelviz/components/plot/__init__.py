"""The plot component: a Plotly figure that a new figure updates in place.

A Streamlit v2 component (``st.components.v2``, no iframe). Streamlit's Plotly element takes the
figure into its identity, so every new figure mounts a new element that plotly.js draws from
scratch; a committed γ step spent 0.3–0.4 s of the browser's time there. This component keeps one
element per key and hands each new figure to ``Plotly.react`` on it: no new element, and the
figure goes to plotly.js as it was sent (Streamlit's element passed it through its theme again).

plotly.js itself is Streamlit's own copy: the chunk its Plotly element loads
(``static/js/PlotlyChart.<hash>.js``, which defines ``window.Plotly``), imported by the browser
from the app's own server. When this Streamlit has no such chunk, :func:`available` is False
and the app draws with ``st.plotly_chart`` instead.

With ``points_on_canvas``, the browser paints the figure's marker-only scatter traces on a canvas
over the plot instead of handing them to Plotly as SVG (two thirds of the four-panel boundary
figure's redraw); the figure sent is the whole figure, and the component gives those points
their hover labels and clicks itself (``plot.js``). Plotly's own "download as PNG" would leave
them out, so that button leaves the figure's tool bar (the page's PNG / SVG buttons export the
figure from Python).

A click on a point of a ``selectable`` figure is kept as the state ``selection`` =
``{"revision": r, "points": [{"x", "y", "curve_number", "point_number", "point_index"}, …]}``;
:func:`plot` returns it only while the figure drawn is the one it was made on (revision ``r``),
as Streamlit forgets a selection when its chart gets a new figure.
"""

from __future__ import annotations

import functools
from pathlib import Path

import orjson

FRONTEND = Path(__file__).resolve().parent
COMPONENT_NAME = "kernelviz.plot"


#: What Streamlit's chunk does that the browser side relies on: it defines plotly.js globally.
DEFINES_PLOTLY = "window.Plotly="


@functools.cache
def plotly_chunk() -> str | None:
    """The file name of Streamlit's plotly.js chunk, or None when this Streamlit has none, several,
    or one that does not define ``window.Plotly`` (then the app falls back to Streamlit's element)."""
    import streamlit

    found = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    # searched as bytes: decoding the 4.7 MB file took 0.1 s of the page's first run
    if len(found) != 1 or DEFINES_PLOTLY.encode() not in found[0].read_bytes():
        return None
    return found[0].name


def available() -> bool:
    """Whether the component can draw (else the app uses ``st.plotly_chart``)."""
    return plotly_chunk() is not None


#: The instance that only loads plotly.js (see :func:`load_plotly`): the same script under its own
#: name, so that the page's charts are the instances of :data:`COMPONENT_NAME`.
LOADER_NAME = "kernelviz.plotly_loader"
#: Its key: the page style hides its (empty) place, gap included.
LOADER_KEY = "kv_plotly_loader"


def load_plotly() -> None:
    """For the page's first elements: the browser imports — fetches, compiles and runs — plotly.js
    at once. Its evaluation is a single task of ~1.2 s on the 2-core test machine; started when
    the first chart mounted, after the server had run the view and the browser had drawn the
    page, it came last on the way to the first chart. Nothing is drawn. Nothing happens when
    :func:`available` is False."""
    if available():
        _renderer(LOADER_NAME)(key=LOADER_KEY, data=orjson.dumps({"plotly": plotly_chunk()}))


@functools.cache
def _renderer(name: str = COMPONENT_NAME):
    import streamlit as st

    # not isolated: plotly.js styles its figures from the page's head, which a shadow root would not see
    return st.components.v2.component(name, js=(FRONTEND / "plot.js").read_text(encoding="utf-8"),
                                      css=(FRONTEND / "plot.css").read_text(encoding="utf-8"),
                                      isolate_styles=False)


#: Plotly's tool-bar button that :func:`payload` removes from a figure whose points are on a canvas.
IMAGE_BUTTON = "toImage"


def payload(figure: dict, *, config: dict, selectable: bool, points_on_canvas: bool = False) -> bytes:
    """What the browser receives: the figure (``{"data", "layout"}``), its config and plotly.js's chunk, as JSON."""
    revision = str((figure.get("layout") or {}).get("datarevision", ""))
    if points_on_canvas:
        removed = list(config.get("modeBarButtonsToRemove") or [])
        if IMAGE_BUTTON not in removed:
            config = {**config, "modeBarButtonsToRemove": [*removed, IMAGE_BUTTON]}
    return orjson.dumps({"figure": figure, "config": config, "plotly": plotly_chunk(), "selectable": selectable,
                         "revision": revision, "canvas": points_on_canvas}, option=orjson.OPT_SERIALIZE_NUMPY)


def plot(figure: dict, *, key: str, config: dict | None = None, selectable: bool = False,
         points_on_canvas: bool = False) -> dict:
    """Draw ``figure`` (a Plotly figure as a dict) under ``key``; return ``{"selection": {"points": …}}``,
    the points clicked on this very figure (none before a click)."""
    data = payload(figure, config=config or {}, selectable=selectable, points_on_canvas=points_on_canvas)
    # a callback for "selection" makes it a state key the browser may set (its click reruns the page)
    result = _renderer()(key=key, data=data, default={"selection": None}, on_selection_change=lambda: None)
    return {"selection": {"points": current_points(result.get("selection"), figure)}}


def current_points(selection, figure: dict) -> list[dict]:
    """The points of ``selection`` if it was made on ``figure`` (same data revision), else none.

    The state comes from the browser: anything but a list of points with numbers x and y is ignored.
    """
    revision = str((figure.get("layout") or {}).get("datarevision", ""))
    if not isinstance(selection, dict) or str(selection.get("revision")) != revision:
        return []
    points = selection.get("points")
    if not isinstance(points, list):
        return []
    return [p for p in points if isinstance(p, dict) and all(isinstance(p.get(a), (int, float)) for a in ("x", "y"))]
