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

With ``data_on_canvas``, the browser paints the figure's marker-only scatter traces on a canvas
over the plot instead of handing them to Plotly as SVG (two thirds of the four-panel boundary
figure's redraw), its level lines (contour traces with ``coloring: "none"`` and no legend
entry: f = 0, the margins, a class's outline) from their own z, with the same marching squares
that paint the live preview's lines, and its fields (heatmaps with no colour bar on an even grid)
with the live preview's field painter. Plotly keeps the axes, titles and legend, and an invisible
stand-in of each field for hover and clicks; what it is handed then changes from one γ to the
next only in its titles, so its data revision (a digest of it) stays and a committed step spares
it recomputing every trace. The figure sent is the whole figure, and the component gives the
points and fields their hover labels and clicks itself (``plot.js``). Plotly's own "download as
PNG" would leave them out, so that button leaves the figure's tool bar (the page's PNG / SVG
buttons export the figure from Python).

A click on a point of a ``selectable`` figure is kept as the state ``selection`` =
``{"revision": r, "points": [{"x", "y", "curve_number", "point_number", "point_index"}, …]}``;
:func:`plot` returns it only while the figure drawn is the one it was made on (revision ``r``),
as Streamlit forgets a selection when its chart gets a new figure.

With ``live`` (the views that explore γ and C), the figure is also the live preview: γ and C
sliders sit above it, and while one moves the browser repaints each kernel panel's field, its
contours and level curves in place, from a :class:`kernelviz.lattice.Lattice` sent with the
figure, under the figure's own points, axes and legend, with no script run. A release commits
the value (the trigger ``commit``) and the next run's figure replaces the preview. One picture
per panel: there is no second drawing of the panels anywhere on the page.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from pathlib import Path
from typing import Callable

import numpy as np
import orjson

from kernelviz.components import module_text
from kernelviz.protocol import EditInfo, LivePreview, PlotHeader

FRONTEND = Path(__file__).resolve().parent
COMPONENT_NAME = "kernelviz.plot"


#: What Streamlit's chunk does that the browser side relies on: it defines plotly.js globally.
DEFINES_PLOTLY = "window.Plotly="


@functools.cache
def plotly_chunk() -> str | None:
    """The file name of Streamlit's plotly.js chunk, or None when this Streamlit has none, several,
    or one that does not define ``window.Plotly`` (then the app falls back to Streamlit's element)."""
    from kernelviz.ui.streamlit_private import plotly_chunk_files

    found = plotly_chunk_files()
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
        _renderer(LOADER_NAME)(key=LOADER_KEY, data=payload({}, config={}, selectable=False))


@functools.cache
def _renderer(name: str = COMPONENT_NAME):
    import streamlit as st

    # not isolated: plotly.js styles its figures from the page's head, which a shadow root would not see
    return st.components.v2.component(name, js=module_text(FRONTEND / "plot.js"),
                                      css=(FRONTEND / "plot.css").read_text(encoding="utf-8"),
                                      isolate_styles=False)


#: Plotly's tool-bar button that :func:`payload` removes from a figure whose points are on a canvas.
IMAGE_BUTTON = "toImage"


#: Session key: per chart key, the id of the lattice last sent to it (see :func:`plot`).
LATTICES_SENT_KEY = "_kv_lattices_sent"
#: Bytes of a payload's header length (unsigned, little-endian): see :func:`payload`.
_LENGTH = struct.Struct("<I")


def payload(figure: dict, *, config: dict, selectable: bool, data_on_canvas: bool = False,
            live: LivePreview | None = None, lattice_sent: bool = False, chunk: str | None = None,
            edit: EditInfo | None = None) -> bytes:
    """What the browser receives: the figure (``{"data", "layout"}``), its config, plotly.js's chunk
    and, with ``live``, the lattice its panels are repainted from while a slider moves.

    Layout: the header's length (4 bytes, little-endian), the header (UTF-8 JSON), then every
    lattice field's raw uint8 codes, and each value's support vectors (uint16 indices, float32 |α|,
    uint8 at-the-bound flags, all little-endian) and the training points they index (float32 x, y
    pairs), which the header points into as ``[offset, size]`` (bytes). A lattice
    is ~1 MB and goes with every run of the page: as JSON it would be serialised twice in Python
    (once more to hash it), parsed in the browser and, as base64, decoded there; as bytes the
    browser takes each field as a view of the payload, with no copy.

    ``lattice_sent``: the browser has this very lattice (its ``id``) already; the payload then
    carries its header without the fields, and no body — a committed step's message was ~1.6 MB,
    ~1 MB of it the same lattice again.

    ``chunk``: the plotly.js chunk's file name, this Streamlit's by default (the JS tests' fixture
    names a fixed one, so that it does not change with Streamlit's version).

    ``edit``: the figure's points can be moved, added and removed (edit.js), these being its data.
    """
    revision = str((figure.get("layout") or {}).get("datarevision", ""))
    if data_on_canvas:
        removed = list(config.get("modeBarButtonsToRemove") or [])
        if IMAGE_BUTTON not in removed:
            config = {**config, "modeBarButtonsToRemove": [*removed, IMAGE_BUTTON]}
    figure = _shared_z(figure)
    # what Plotly draws: the same again (a rerun that brought only a finished lattice) is not redrawn
    drawing = hashlib.blake2b(orjson.dumps([figure, config, data_on_canvas], option=orjson.OPT_SERIALIZE_NUMPY),
                              digest_size=8).hexdigest()
    header: PlotHeader = {"figure": figure, "config": config, "plotly": chunk or plotly_chunk(), "selectable": selectable,
                          "revision": revision, "canvas": data_on_canvas, "drawing": drawing, "live": None, "edit": edit}
    body: list[bytes] = []
    if live is not None and lattice_sent:
        kernels = [{**kernel, "fields": None, "support": None} for kernel in live["lattice"]["kernels"]]
        header["live"] = {**live, "lattice": {**live["lattice"], "kernels": kernels, "points": None, "sent": True}}
    elif live is not None:
        def span(array: np.ndarray) -> list[int]:  # the array's bytes (dtypes as given) into the body
            raw = np.ascontiguousarray(array).tobytes()
            body.append(raw)
            return [sum(map(len, body)) - len(raw), len(raw)]

        kernels = []
        for kernel in live["lattice"]["kernels"]:
            if kernel["fields"] is not None:
                kernel = {**kernel, "fields": {axis: span(np.asarray(codes, dtype=np.uint8))
                                               for axis, codes in kernel["fields"].items()}}
            if kernel.get("support"):
                kernel = {**kernel, "support": {axis: None if packed is None else {
                    "counts": packed["counts"], **{part: span(packed[part]) for part in SUPPORT_DTYPES}}
                    for axis, packed in kernel["support"].items()}}
            kernels.append(kernel)
        points = live["lattice"].get("points")
        header["live"] = {**live, "lattice": {**live["lattice"], "kernels": kernels,
                                              "points": None if points is None else span(np.asarray(points, "<f4"))}}
    text = orjson.dumps(header, option=orjson.OPT_SERIALIZE_NUMPY)
    return b"".join([_LENGTH.pack(len(text)), text, *body])


#: A trace's ``z`` that is an earlier trace's: ``{SAME_Z: index of that trace}`` (see :func:`_shared_z`).
SAME_Z = "kv_same_z_as"


def _shared_z(figure: dict) -> dict:
    """``figure`` with each ``z`` that repeats an earlier trace's replaced by a reference to it.

    A boundary panel's heatmap and its two contour traces (f = 0, the margins) carry the same
    field: sent once, the four-panel figure is ~0.25 MB instead of ~0.66 MB, which the server
    writes and the browser parses and decodes on every committed step. payload.js (and
    :func:`unpack`) put the same array back in each place.
    """
    data = figure.get("data")
    if not data:
        return figure
    seen: dict = {}
    shared = []
    for index, trace in enumerate(data):
        z = trace.get("z") if isinstance(trace, dict) else None
        if isinstance(z, dict) and isinstance(z.get("bdata"), str):
            fingerprint = (z["bdata"], z.get("dtype"), z.get("shape"))
            if fingerprint in seen:
                trace = {**trace, "z": {SAME_Z: seen[fingerprint]}}
            else:
                seen[fingerprint] = index
        shared.append(trace)
    return {**figure, "data": shared}


#: How each packed part of a kernel's support vectors (:meth:`kernelviz.lattice.Lattice.support`) is stored.
SUPPORT_DTYPES = {"index": "<u2", "alpha": "<f4", "bounded": "u1"}


def unpack(data: bytes) -> dict:
    """The header of a :func:`payload`, each lattice field as a flat uint8 array, each packed part of
    the support vectors as a flat array, the training points as an (n, 2) float32 array and each
    shared ``z`` in its places again (what the browser reads)."""
    (length,) = _LENGTH.unpack_from(data)
    header = orjson.loads(data[_LENGTH.size:_LENGTH.size + length])
    traces = (header.get("figure") or {}).get("data") or []
    for trace in traces:
        if isinstance(trace.get("z"), dict) and SAME_Z in trace["z"]:
            trace["z"] = traces[trace["z"][SAME_Z]]["z"]
    body = memoryview(data)[_LENGTH.size + length:]
    lattice = (header["live"] or {"lattice": {"kernels": []}})["lattice"]

    def read(at: list[int], dtype: str) -> np.ndarray:
        return np.frombuffer(body[at[0]:at[0] + at[1]], dtype=dtype)

    for kernel in lattice["kernels"]:
        if kernel.get("fields") is not None:
            kernel["fields"] = {axis: read(at, np.uint8) for axis, at in kernel["fields"].items()}
        for packed in (kernel.get("support") or {}).values():
            if packed is not None:
                packed.update({part: read(packed[part], dtype) for part, dtype in SUPPORT_DTYPES.items()})
    if lattice.get("points") is not None:
        lattice["points"] = read(lattice["points"], "<f4").reshape(-1, 2)
    return header


def plot(figure: dict, *, key: str, config: dict | None = None, selectable: bool = False,
         data_on_canvas: bool = False, live: LivePreview | None = None,
         on_commit: Callable[[dict], None] | None = None, edit: EditInfo | None = None,
         on_edit: Callable[[object], None] | None = None) -> dict:
    """Draw ``figure`` (a Plotly figure as a dict) under ``key``; return ``{"selection": {"points": …}}``,
    the points clicked on this very figure (none before a click).

    ``live`` (:func:`kernelviz.ui.live.live_preview`) adds γ / C sliders above the figure: while
    one moves, the browser repaints the panels' fields from the lattice; a release calls
    ``on_commit({"axis", "log_gamma", "log_C"})`` before the script reruns.

    ``edit`` (:func:`kernelviz.ui.edits.browser_edit`): the points can be dragged, added and removed
    on the figure; each change of the browser's state ``edit`` (edits not yet applied, and the
    point being moved) calls ``on_edit(state)`` before the script reruns.
    """
    import streamlit as st

    # The lattice each chart's browser side was last sent (sliders.js keeps the latest ones, across
    # remounts): the same one again goes without its bytes.
    sent = st.session_state.setdefault(LATTICES_SENT_KEY, {})
    lattice_id = live["lattice"]["id"] if live else None
    data = payload(figure, config=config or {}, selectable=selectable, data_on_canvas=data_on_canvas, live=live,
                   lattice_sent=lattice_id is not None and sent.get(key) == lattice_id, edit=edit)
    sent[key] = lattice_id

    def committed() -> None:
        value = (st.session_state.get(key) or {}).get("commit")
        if value is not None and on_commit is not None:
            on_commit(value)

    def edited() -> None:
        if on_edit is not None:
            on_edit((st.session_state.get(key) or {}).get("edit"))

    def missing() -> None:  # the browser did not have it after all (a reloaded module): send it whole
        sent.pop(key, None)

    # a callback for "selection" makes it a state key the browser may set (its click reruns the page)
    result = _renderer()(key=key, data=data, default={"selection": None}, on_selection_change=lambda: None,
                         on_commit_change=committed, on_lattice_missing_change=missing, on_edit_change=edited,
                         on_lattice_finished_change=lambda: None)  # its rerun of the view brings the lattice
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
