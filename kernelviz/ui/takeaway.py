"""Take it away: every figure as PNG, SVG and HTML, and the Python code behind every view.

PNG and SVG are made in the background once a figure is drawn (:class:`ExportJob`), so that one
click saves them; HTML is written on click. The code box
shows :func:`kernelviz.codegen.script` for the page's settings; uploaded or drawn data cannot be
written into a script, so the box offers their CSV file (:func:`kernelviz.codegen.data_download`)
next to it. The projector switch enlarges a figure's text and markers before it is drawn, and
:func:`chart` draws every figure of the page so that Streamlit draws it once, not twice.
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import json
import re
import threading
import time

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import is_homogeneous_array as _is_homogeneous_array
from _plotly_utils.utils import to_typed_array_spec as _to_typed_array
import streamlit as st

from kernelviz import codegen, export, state
from kernelviz._background import BackgroundJob
from kernelviz.components import plot
from kernelviz.outside import file_name, message, plain

#: How much the projector enlarges a figure's text and markers.
PROJECTOR_FONT = 1.5
PROJECTOR_MARKERS = 1.6
#: … and its lines (boundaries, margins, level curves, ellipses, markers' outlines).
PROJECTOR_LINES = 1.6
#: Plotly's default font size, for figures that set none.
DEFAULT_FONT_SIZE = 12
#: Labels of the download buttons, per format.
FORMAT_LABELS = {"png": "PNG", "svg": "SVG", "html": "HTML"}


def shown(fig: go.Figure) -> dict:
    """The figure as the page hands it to :func:`drawn_once`: under the projector switch with its
    markers, lines and margins enlarged (its fonts after :func:`drawn_once`), else unchanged."""
    return figure_json(fig, projector=bool(st.session_state.get("projector")))


def figure_json(fig: go.Figure, *, projector: bool = False) -> dict:
    """``fig.to_plotly_json()``: the same dict, built at a fraction of the cost; with ``projector``,
    that of the figure with every marker size (array sizes too), every line's width and the margins
    enlarged: the panels' titles and the heading above them grow with their fonts
    (:func:`fonts_enlarged`), and meet where the margin stayed. The panels themselves take the
    screen the page gives them (kernelviz/components/plot/arrange.js).

    Plotly deep-copies the whole figure, then asks of every value whether it is a data frame
    (through narwhals): ~12 ms of the four-panel boundary figure, in every run that draws it, a
    dragged point's frames included. Here each container is built anew once, and only arrays
    become Plotly's typed arrays (``_plotly_utils.utils.to_typed_array_spec``, Plotly's own
    conversion). ``fig._data`` and ``fig._layout`` are what Plotly's ``to_dict`` copies; a test
    checks the two agree on every kind of figure the app draws. The projector's copy is made of
    those dicts too: as a validated ``go.Figure`` it took ~60 ms of every run on the projector
    (a dragged point's frames came 3.5 a second there, 4.4–4.5 with the dicts).
    """
    data, layout = (_enlarged(fig._data, fig._layout) if projector else (fig._data, fig._layout))
    return {"data": [_json_value(trace) for trace in data], "layout": _json_value(layout)}


def _enlarged(data: list[dict], layout: dict) -> tuple[list[dict], dict]:
    """Copies of a figure's trace and layout dicts, as :func:`figure_json` enlarges them for the
    projector; the dicts given are left as they were."""
    def scaled(value, factor):
        return np.asarray(value, dtype=float) * factor if np.ndim(value) else value * factor

    layout = dict(layout)
    if isinstance(layout.get("margin"), dict):
        margin, grown = dict(layout["margin"]), 0
        for side in ("t", "l", "b"):
            if margin.get(side) is not None:
                before = margin[side]
                margin[side] = round(before * PROJECTOR_FONT)
                grown += margin[side] - before if side != "l" else 0
        layout["margin"] = margin
        if layout.get("height") is not None:  # the panels keep their size: the figure grows by its margins
            layout["height"] += grown
    out = []
    for trace in data:
        trace = dict(trace)
        if isinstance(trace.get("marker"), dict):
            marker = trace["marker"] = dict(trace["marker"])
            if marker.get("size") is not None:
                marker["size"] = scaled(marker["size"], PROJECTOR_MARKERS)
            if isinstance(marker.get("line"), dict) and marker["line"].get("width") is not None:
                marker["line"] = {**marker["line"], "width": scaled(marker["line"]["width"], PROJECTOR_LINES)}
        if isinstance(trace.get("line"), dict) and trace["line"].get("width") is not None:
            trace["line"] = {**trace["line"], "width": scaled(trace["line"]["width"], PROJECTOR_LINES)}
        out.append(trace)
    return out, layout


#: Keys whose values Plotly never turns into typed arrays (``_plotly_utils.utils.is_skipped_key``).
_UNTYPED_KEYS = frozenset({"geojson", "layer", "layers", "range"})


def _json_value(value, typed: bool = False):
    """A copy of ``value`` as Plotly's ``to_dict`` makes it: an array that is a dict's value (``typed``)
    becomes a typed array; one inside a list stays as it is, and what a skipped key holds is copied
    untouched (``_plotly_utils.utils.convert_to_base64``)."""
    if isinstance(value, dict):
        return {k: copy.deepcopy(v) if k in _UNTYPED_KEYS else _json_value(v, typed=True) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_json_value(item) for item in value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if typed and isinstance(value, np.ndarray):
        return _typed_array(value)
    if typed and _is_homogeneous_array(value):
        return _to_typed_array(value)
    return copy.deepcopy(value)


#: Plotly's names of the dtypes plotly.js reads as typed arrays (``_plotly_utils.utils.plotlyjsShortTypes``).
_SHORT_DTYPES = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4",
                 "float32": "f4", "float64": "f8"}


def _typed_array(array: np.ndarray):
    """A numeric array as Plotly's ``to_typed_array_spec`` writes it (64-bit integers in the smallest
    type that holds them), without its data-frame checks; any other array, by Plotly itself."""
    if array.size == 0 or array.dtype.kind not in "iuf":
        return _to_typed_array(array)
    if array.dtype.kind in "iu" and array.dtype.itemsize == 8:
        low, high = array.min(), array.max()
        fitting = [t for t in ((np.int8, np.int16, np.int32) if array.dtype.kind == "i" else (np.uint8, np.uint16, np.uint32))
                   if np.iinfo(t).min <= low and high <= np.iinfo(t).max]
        if not fitting:
            return _to_typed_array(array)
        array = array.astype(fitting[0])
    short = _SHORT_DTYPES.get(str(array.dtype))
    if short is None:
        return _to_typed_array(array)
    spec = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = str(array.shape)[1:-1]
    return spec


def chart(fig: go.Figure, *, key: str, selectable: bool = False, data_on_canvas: bool = False,
          live: dict | None = None, on_commit=None, edit: dict | None = None, on_edit=None):
    """Draw ``fig`` on the page (:func:`shown`, :func:`drawn_once`); with ``selectable`` a click
    on a point reruns the page, and the selection is returned. ``data_on_canvas``: the browser
    paints the markers, level lines and fields on a canvas (figures redrawn on every committed
    step, with many points).

    The figure goes to :mod:`kernelviz.components.plot`, which updates it in place when the next
    run draws a new one under the same key; Streamlit's Plotly element only where that
    component cannot load plotly.js. ``live`` and ``on_commit``: the figure is its own live preview
    (:func:`kernelviz.ui.live.live_preview`; Streamlit's element has none, and the sidebar's γ and
    C then stay). ``edit`` and ``on_edit``: its points can be edited where they are drawn
    (:mod:`kernelviz.ui.edits`; not on Streamlit's element)."""
    _LAUNCH.drawn()
    component = plot.available()
    spec = drawn_once(shown(fig), selectable=selectable, typed=component)
    # what identifies this figure for its PNG / SVG (downloads): its data's revision and its titles,
    # known here at no cost (a digest of the whole figure took tens of ms of every run)
    _drawn_figures()[id(fig)] = (fig, _identity(spec))
    if st.session_state.get("projector"):
        # after drawn_once, which writes the theme's fonts (tick labels, legend, title) into the figure
        spec = fonts_enlarged(spec)
    if component:
        return plot.plot(spec, key=key, config=PLOT_CONFIG, selectable=selectable, data_on_canvas=data_on_canvas,
                         live=live, on_commit=on_commit, edit=edit, on_edit=on_edit)
    drawn = go.Figure(spec, _validate=False)
    drawn.layout.template = None  # not the default template either: its values are in the figure
    selection = {"on_select": "rerun", "selection_mode": "points"} if selectable else {}
    return st.plotly_chart(drawn, key=key, config=PLOT_CONFIG, theme=None, **selection)


#: Plotly's config of every chart.
PLOT_CONFIG = {"displaylogo": False}


#: What Streamlit's Plotly element puts in the layout of a chart whose points can be selected
#: (each only where the figure sets none).
SELECTABLE_LAYOUT = {"clickmode": "event+select", "hovermode": "closest", "dragmode": "pan"}
#: What the Streamlit theme (1.67, light) writes into a figure's template, which ``theme=None``
#: leaves out: the same fonts and text colours as the charts of the other views.
_FAINT, _BODY, _HEADING, _GRID = "#808495", "#262730", "#2f2d2b", "#e6eaf1"
_FONT = '"Source Sans", sans-serif'
STREAMLIT_LOOK = {
    "font": {"color": _FAINT, "family": _FONT, "size": 12},
    "title": {"font": {"family": _FONT, "size": 16, "color": _HEADING}, "x": 0, "xanchor": "left", "pad": {"l": 4}},
    "legend": {"font": {"size": 12, "color": _BODY}, "bordercolor": "rgba(0,0,0,0)", "borderwidth": 0},
    "xaxis": {"tickfont": {"color": _FAINT, "size": 12}, "title": {"font": {"color": _FAINT, "size": 14}},
              "showgrid": False, "zeroline": False, "automargin": True, "gridcolor": _GRID,
              "zerolinecolor": _GRID, "tickcolor": _GRID},
    "yaxis": {"tickfont": {"color": _FAINT, "size": 12}, "title": {"font": {"color": _FAINT, "size": 14}},
              "automargin": True, "gridcolor": _GRID, "zerolinecolor": _GRID, "tickcolor": _GRID},
    "hoverlabel": {"font": {"family": _FONT, "size": 12}},
}
#: Template keys for subplots of other kinds: copied only where the layout has such a subplot.
_OTHER_SUBPLOTS = re.compile(r"(scene|polar|ternary|geo|mapbox|map|smith)\d*")


def drawn_once(spec: dict, *, selectable: bool = False, typed: bool = False) -> dict:
    """A figure (``fig.to_plotly_json()``) made so that Streamlit's Plotly element draws it once.

    Every new figure mounts a new element, and Streamlit 1.67 drew it twice, in full each time
    (0.2–0.4 s for the four-panel boundary figure): when mounted (autosized, before its width is
    measured), and again after its effects set the measured width, the selection layout above
    and the theme once more (a JSON copy; the Streamlit theme also wraps the title in ``<b>``
    each time). Plotly.react recomputed everything the second time because it compares typed
    (base64) arrays and the template by identity, and any array when there is no
    ``datarevision``.

    So the figure returned has the selection layout, plain lists instead of arrays, a
    ``datarevision`` that changes only with the data, and no template: the template's values
    (with the Streamlit theme's fonts and colours, :data:`STREAMLIT_LOOK`) are written into the
    layout and the traces themselves, so the figure looks the same. The app draws it with
    ``theme=None`` (the title is made bold here, as the Streamlit theme would).
    The second pass then only confirms the first (tens of ms, nothing recomputed).

    With ``typed``, Plotly's base64 arrays stay as they are: the plot component hands the figure
    to Plotly.react with its ``datarevision``, which tells new data from old without comparing
    arrays, and a field as base64 is under half its size as a list of numbers (the boundary
    figure: ~0.6 of 1.2 MB, sent and parsed on every committed step).
    """
    # the data's own fingerprint (its arrays still base64 here: quick to write out), so that the
    # same figure drawn again (a rerun) gets the same revision
    text = json.dumps(spec.get("data", []), sort_keys=True, default=_listed).encode()
    revision = hashlib.blake2b(text, digest_size=8).hexdigest()
    data = _plain(spec.get("data", []), typed=typed)
    layout = _plain(spec.get("layout", {}), typed=typed)
    template = layout.pop("template", None) or {}
    axes = {f"{axis}axis{trace.get(f'{axis}axis', axis)[1:]}" for trace in data for axis in "xy"}
    _apply_layout_template(layout, _merged(template.get("layout") or {}, STREAMLIT_LOOK), axes)
    counts: dict[str, int] = {}
    for i, trace in enumerate(data):
        kind = trace.get("type", "scatter")
        defaults = (template.get("data") or {}).get(kind)
        if defaults:
            data[i] = _merged(defaults[counts.get(kind, 0) % len(defaults)], trace)
        counts[kind] = counts.get(kind, 0) + 1
    layout["datarevision"] = revision
    if selectable:
        for key, value in SELECTABLE_LAYOUT.items():
            layout.setdefault(key, value)
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text") and not str(title["text"]).startswith("<b>"):
        layout["title"] = {**title, "text": f"<b>{title['text']}</b>"}
    return {"data": data, "layout": layout}


def _listed(value):
    """What ``json.dumps`` writes for a value it cannot: arrays as lists, anything else by repr."""
    return value.tolist() if hasattr(value, "tolist") else repr(value)


def _apply_layout_template(layout: dict, defaults: dict, axes: set[str]) -> None:
    """Write a template's layout values under ``layout``'s own, as Plotly would apply them:
    ``xaxis`` / ``yaxis`` to every such axis (``axes``: those the traces use), and
    ``annotationdefaults`` (and the like) to every item."""
    for key, value in defaults.items():
        if key in ("xaxis", "yaxis"):
            used = {k for k in layout if re.fullmatch(rf"{key}\d*", k)} | {a for a in axes if a.startswith(key)}
            for axis in sorted(used):
                own = layout.get(axis) or {}
                layout[axis] = _merged(value, own)
                # Plotly draws an axis line when a line colour is *set*: the template's only colours it
                if not {"showline", "linecolor", "linewidth"} & set(own):
                    layout[axis]["showline"] = False
        elif key.endswith("defaults"):  # annotationdefaults → every annotation
            items = key[: -len("defaults")] + "s"
            if isinstance(layout.get(items), list):
                layout[items] = [_merged(value, item) for item in layout[items]]
        elif _OTHER_SUBPLOTS.fullmatch(key):
            if key in layout:
                layout[key] = _merged(value, layout[key])
        else:
            layout[key] = _merged(value, layout[key]) if key in layout else value


def _merged(base, over):
    """``over`` on top of ``base``, dicts merged key by key."""
    if not (isinstance(base, dict) and isinstance(over, dict)):
        return over
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(base.get(key), value)
    return out


class _Unchanged(list):
    """A figure's array as a plain list that copies as itself.

    Streamlit deep-copies a figure twice on its way to the browser (``Figure(...)`` and
    ``to_dict``); element by element, the four panels' fields took ~50 ms of a commit's run.
    Nothing changes a figure's arrays once it is built, so one object can serve every copy.
    """

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _plain(value, decoded: dict | None = None, typed: bool = False):
    """``value`` with every array (numpy, or Plotly's base64 ``{dtype, bdata, shape}``) as plain lists;
    with ``typed``, only the numpy arrays (Plotly's base64 arrays stay).

    The same base64 array (a panel's field, drawn by its heatmap and both contours) becomes one
    list object, shared, which Streamlit's copy of the figure then copies once.
    """
    decoded = {} if decoded is None else decoded
    if isinstance(value, dict) and isinstance(value.get("bdata"), str) and "dtype" in value:
        if typed:
            return value
        key = (value["dtype"], value["bdata"], str(value.get("shape")))
        if key not in decoded:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            shape = value.get("shape")
            decoded[key] = _Unchanged((array.reshape([int(n) for n in str(shape).split(",")]) if shape
                                       else array).tolist())
        return decoded[key]
    if isinstance(value, dict):
        return {key: _plain(item, decoded, typed) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item, decoded, typed) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


_INLINE_SIZE = re.compile(r"font-size:\s*([\d.]+)px")


def fonts_enlarged(spec: dict) -> dict:
    """``spec`` (a figure as a dict) with every font size in it enlarged — the layout's font, the
    title's, the axes' tick labels, the legend, annotations, contour labels and colour bars —
    and the layout's font set where it had none, so that text drawn with Plotly's defaults grows too."""
    def walk(value, in_font: bool = False):
        if isinstance(value, str) and "font-size:" in value:  # a title's own smaller lines (<span style=…>)
            return _INLINE_SIZE.sub(lambda m: f"font-size:{round(float(m[1]) * PROJECTOR_FONT)}px", value)
        if isinstance(value, dict):
            return {key: (round(item * PROJECTOR_FONT, 1) if in_font and key == "size" and isinstance(item, (int, float))
                          else walk(item, key.endswith("font"))) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    layout = dict(spec.get("layout") or {})
    layout["font"] = {"size": DEFAULT_FONT_SIZE, **(layout.get("font") or {})}
    return {**spec, "data": walk(spec.get("data") or []), "layout": walk(layout)}


#: Seconds from a server's first figure to the start of its export browser. Launching
#: Chromium takes a core for seconds: started at once, it slowed the first paint and the first
#: steps of the visitor's own browser (on a 2-core machine, cold start 1.7× → 3.0× a one-chart app).
WARM_UP_DELAY = 30.0
#: … and then the seconds without a figure drawn that it waits for: at a fixed time, the launch fell
#: into whatever the person was doing (a dragged point's refits, a γ step).
WARM_UP_QUIET = 2.0
#: The warm-up's thread: one per server, whatever its sessions do.
WARM_UP_THREAD = "kernelviz-export-warm-up"


class _Launch:
    """Whether a background export may start the export browser: only once the warm-up's time has
    come (or the browser runs already). Until then an :class:`ExportJob` waits here, and a click on
    its PNG lets it go at once. The first figure's export, 1.5 s after the page opened, launched the
    browser while the person made the first steps: a committed γ step's median went from 0.28–0.30 s
    to 0.31–0.39 s in a fresh server's first half-minute (``bench_live.py --app``, 2026-11-28)."""

    def __init__(self, *, allowed: bool = False):
        self._changed = threading.Condition()
        self.allowed = allowed
        self.last_drawn = time.monotonic()  # when the page last drew a figure (any session's)

    def drawn(self) -> None:
        self.last_drawn = time.monotonic()

    def wait_for_quiet(self, seconds: float) -> None:
        """Until no figure has been drawn for ``seconds``."""
        while (left := self.last_drawn + seconds - time.monotonic()) > 0:
            time.sleep(left)

    def allow(self) -> None:
        with self._changed:
            self.allowed = True
            self._changed.notify_all()

    def wake(self) -> None:
        """Let the waiting jobs look again (one was clicked or cancelled)."""
        with self._changed:
            self._changed.notify_all()

    def wait(self, go) -> None:
        """Until the launch is allowed, the browser runs, or ``go()`` (the job's click or cancel)."""
        with self._changed:
            self._changed.wait_for(lambda: self.allowed or go() or export.browser_running())


#: The server's gate (one per process, as the export browser is).
_LAUNCH = _Launch()


@st.cache_resource(show_spinner=False)
def _warm_exporter() -> threading.Timer:
    """Start the export browser once per server, in the background: :data:`WARM_UP_DELAY` seconds
    after the first figure, at the first pause of :data:`WARM_UP_QUIET` seconds in the figures drawn,
    so the first PNG seldom waits for it; from then on a background export may start it too
    (:class:`_Launch`)."""
    gate = _LAUNCH

    def start():
        gate.wait_for_quiet(WARM_UP_QUIET)
        gate.allow()
        try:
            export.warm_up()
        except export.ExportUnavailable:
            pass  # the page already says why PNG / SVG are missing (unavailable_reason)

    timer = threading.Timer(WARM_UP_DELAY, start)
    timer.name, timer.daemon = WARM_UP_THREAD, True
    timer.start()
    return timer


@st.cache_resource(show_spinner=False)
def _unavailable_reason() -> str:
    return export.unavailable_reason()


#: Where a session keeps its PNG / SVG exports: per figure name, the :class:`ExportJob` of its latest figure.
EXPORTS_KEY = "_exports"
#: Where the last export failure of a figure waits to be shown, per figure name.
FAILED_KEY = "_export_failed"
#: Seconds a new figure's export waits before it starts: a run that follows soon (γ dragged on,
#: another click) replaces the figure, and its export is cancelled before it took a core.
EXPORT_DELAY = 1.5
#: The figures drawn lately, by id: (figure, identity); the last four (a run draws one or two).
DRAWN_KEY = "_drawn_figures"
#: Seconds a click on a PNG / SVG still being made waits for it (the export's own timeout bounds it too).
SAVE_WAIT = export.EXPORT_TIMEOUT + 5.0


def _drawn_figures() -> dict:
    drawn = st.session_state.setdefault(DRAWN_KEY, {})
    while len(drawn) > 4:
        drawn.pop(next(iter(drawn)))
    return drawn


def _identity(spec: dict) -> str:
    """A drawn figure's identity: its data's revision (:func:`drawn_once`) and the text of its titles."""
    layout = spec.get("layout") or {}
    titles = [str((layout.get("title") or {}).get("text", ""))]
    titles += [str(a.get("text", "")) for a in layout.get("annotations") or [] if isinstance(a, dict)]
    return hashlib.blake2b(json.dumps([layout.get("datarevision"), titles]).encode(), digest_size=16).hexdigest()


class ExportJob(BackgroundJob):
    """A figure's PNG and SVG, made in a daemon thread once the page has drawn it (after
    :data:`EXPORT_DELAY`): ``files`` (format → bytes) fills as they are made; ``error`` says why not."""

    def __init__(self, fig: go.Figure, identity: str, formats=("png", "svg")):
        super().__init__(name="kernelviz-export", delay=EXPORT_DELAY)
        self.fig, self.identity, self.formats = fig, identity, formats
        self.files: dict[str, bytes] = {}
        self.said = False  # whether the page has said why it failed
        self.held = False  # whether it waits for the export browser's warm-up (:class:`_Launch`)
        self._asked = threading.Event()  # a click wants a file now
        self._gate = _LAUNCH
        self._start()

    def _work(self) -> None:
        if not (self._gate.allowed or export.browser_running()):
            self.held = True
            self._gate.wait(lambda: self._asked.is_set() or self.cancelled)
            self.held = False
        for fmt in self.formats:
            if self.cancelled:
                return
            self.files[fmt] = export.figure_bytes(self.fig, fmt)
        # the browser runs now (a click may have started it before the warm-up): the jobs held
        # at the gate go too, rather than wait for the warm-up's time
        self._gate.wake()

    def cancel(self) -> None:
        super().cancel()
        self._gate.wake()

    def file(self, fmt: str) -> bytes:
        """The file, waiting for it if it is still being made (a click on its button)."""
        self._asked.set()
        self._gate.wake()
        self.join(SAVE_WAIT)
        if fmt not in self.files:
            raise export.ExportTimeout(SAVE_WAIT) if self.error is None else self.error
        return self.files[fmt]


def downloads(fig: go.Figure, name: str) -> None:
    """PNG, SVG and HTML buttons for one figure, each a single click; a reason instead of PNG / SVG
    where this machine cannot render them.

    PNG and SVG are made in the background once the figure is drawn (:class:`ExportJob`, a second
    and a half after the run, so that a γ dragged on replaces the figure before its export takes a
    core): one click saves them, and a click while one is still being made waits for it (the button
    shows Streamlit's preparing state meanwhile). An export that fails (the browser cannot start, or
    took too long) says so on the page in our words, once, and PNG / SVG are offered again for the
    next figure. HTML is written on click.
    """
    reason = _unavailable_reason()
    formats = ("html",) if reason else ("png", "svg", "html")
    if not reason:
        _warm_exporter()
    job = None if reason else _export_job(fig, name)
    failure = st.session_state.get(FAILED_KEY, {}).pop(name, None)
    if job is not None and job.done and job.error is not None:
        # said once; this figure is not tried again (the next one is), and its buttons give way to HTML's
        failure = failure or (None if job.said else _said(job.error))
        job.said = True
        formats = ("html",)
    columns = st.columns(len(formats) + 1)
    columns[0].caption("Download the figure:")
    for column, fmt in zip(columns[1:], formats):
        label = FORMAT_LABELS[fmt]
        if fmt == "html":
            column.download_button(label, lambda: export.figure_bytes(fig, "html"), file_name=file_name(name, fmt),
                                   mime=export.MIME_TYPES[fmt], key=f"{fmt}_{name}", on_click="ignore",
                                   width="stretch")
            continue
        # One label whatever the state: the page is not run again when the file is done, and a
        # label saying "preparing" would stay after it. A click saves the file; one still being made
        # is waited for, the button showing Streamlit's own "preparing" state meanwhile.
        column.download_button(label, functools.partial(job.file, fmt), file_name=file_name(name, fmt),
                               mime=export.MIME_TYPES[fmt], key=f"{fmt}_{name}", on_click="ignore", width="stretch",
                               help=f"The {label} of this figure, made in the background once it is drawn: one "
                                    "click saves it (if it is not quite made, the click waits a moment for it).")
    if failure:
        st.error(message("The figure could not be exported: {reason}", reason=failure))
    if reason:
        st.caption(plain(reason))


def _said(error: BaseException) -> str:
    """An export's failure as the page says it (never a traceback)."""
    if isinstance(error, (export.ExportTimeout, export.ExportUnavailable)):
        return str(error)
    return f"the export browser failed ({type(error).__name__}); try again in a moment."


def _export_job(fig: go.Figure, name: str) -> ExportJob:
    """The export of ``fig`` (drawn in this run): the one under way or made for the same figure,
    else a new one, the previous one cancelled."""
    jobs = st.session_state.setdefault(EXPORTS_KEY, {})
    drawn = _drawn_figures().get(id(fig))
    identity = drawn[1] if drawn is not None and drawn[0] is fig else _digest(fig)
    job = jobs.get(name)
    if job is not None and job.identity == identity and not (job.cancelled and not job.done):
        return job
    if job is not None:
        job.cancel()
    jobs[name] = job = ExportJob(fig, identity)
    return job


def _digest(fig: go.Figure) -> str:
    """What identifies a figure's content where it was not drawn by :func:`chart`."""
    return hashlib.blake2b(fig.to_json().encode(), digest_size=16).hexdigest()


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
            st.download_button(message("Download {name}", name=data_file), text, file_name=data_file, mime="text/csv",
                               key="code_data", on_click="ignore")
        st.code(script, language="python")
