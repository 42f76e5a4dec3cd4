"""Every figure of the app, as pure functions: NumPy arrays in, ``plotly.graph_objects.Figure`` out.

Nothing here fits a model or imports Streamlit, so each figure can be built and checked in
a plain test, a notebook or a script. Conventions shared by all figures:

* one colour per class everywhere (:func:`class_style`); unlabeled points are grey;
* 2-D scatter plots keep an equal aspect ratio (one unit is as long on both axes), so a
  circle in the data looks like a circle on the screen — essential when the whole point is
  to compare the *shape* of level curves;
* small multiples share their axes, so panels can be compared at a glance.
"""

from __future__ import annotations

import functools
import json
import math
import textwrap
import os
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import plotly.io as pio

from kernelviz import registry
from kernelviz.outside import plotly_text

# Okabe–Ito: distinguishable with the common colour-vision deficiencies and in print.
CLASS_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
CLASS_SYMBOLS = ("circle", "cross", "diamond", "square", "triangle-up", "star", "hexagon", "x")
UNLABELED_COLOR = "#B5B5B5"
CLUSTER_COLORS = ("#8DD3C7", "#FFED6F", "#BEBADA", "#FB8072", "#80B1D3", "#FDB462", "#B3DE69",
                  "#FCCDE5", "#BC80BD", "#CCEBC5", "#D9D9D9", "#FFFFB3")
FONT = dict(family="Source Sans Pro, Helvetica, Arial, sans-serif", size=14)


def kernel_label(name: str) -> str:
    """A kernel's or model's display label, as ``kernelviz.registry`` names it everywhere."""
    return registry.label(registry.KERNELS, name) if name in registry.KERNELS else registry.label(registry.MODELS, name)


def kernel_color(name: str, index: int = 0) -> str:
    """A kernel's colour (its row in ``kernelviz.registry``); anything else, e.g. a model, takes the
    ``index``-th class colour."""
    facts = registry.KERNELS.get(name)
    return facts.color if facts is not None else CLASS_COLORS[index % len(CLASS_COLORS)]


class NamedClasses(tuple):
    """Sorted class labels that carry their names from the data file (``Dataset.class_names``):
    pass it as ``classes=`` and the legends say "setosa", not "class 0"."""

    def __new__(cls, classes, names: Mapping[float, str]):
        labelled = super().__new__(cls, classes)
        labelled.names = {float(c): str(names[float(c)]) for c in classes}
        return labelled


def named_classes(classes, names: Mapping[float, str] | None):
    """``classes`` with their names when the data had names, else ``classes`` as they are."""
    return NamedClasses(classes, names) if names else classes


def class_names(classes) -> dict:
    """Display name of each label: its name from the data file (:class:`NamedClasses`), else
    "class −1" / "class +1" for signed labels, "class 0", "class 1" … (a +1 gets its sign only
    when −1 is among the classes)."""
    if isinstance(classes, NamedClasses):
        return {c: plotly_text(classes.names[float(c)]) for c in classes}
    labels = {float(c) for c in classes}
    signed = -1.0 in labels or labels == {1.0}  # a drawing with only +1 points so far is still signed
    return {c: ("class +1" if signed and float(c) == 1.0 else
                "class −1" if float(c) == -1.0 else f"class {float(c):g}") for c in classes}


def _display_names(classes, names: Mapping[float, str] | None) -> dict:
    """:func:`class_names` of ``classes`` named by ``names`` (label → name) where the data had names:
    for figures handed the names beside their labels (``class_names=``)."""
    return class_names(named_classes(classes, names))


def class_style(index: int) -> tuple[str, str]:
    """(colour, marker symbol) of the ``index``-th class in sorted order (−1 before +1)."""
    return CLASS_COLORS[index % len(CLASS_COLORS)], CLASS_SYMBOLS[index % len(CLASS_SYMBOLS)]


def lighten(hex_color: str, amount: float) -> str:
    """Mix a colour with white; ``amount`` = 1 gives white."""
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


# ----------------------------------------------------------------------------- grids


@dataclass(frozen=True)
class Grid:
    """A regular grid over the plane: axes ``xs`` (nx,), ``ys`` (ny,), and its ``points`` (ny·nx, 2)."""

    xs: np.ndarray
    ys: np.ndarray

    @property
    def points(self) -> np.ndarray:
        xx, yy = np.meshgrid(self.xs, self.ys)
        return np.column_stack([xx.ravel(), yy.ravel()])

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.ys), len(self.xs)

    def reshape(self, values: np.ndarray) -> np.ndarray:
        """Values at :attr:`points` → an (ny, nx) image."""
        return np.asarray(values).reshape(self.shape)


def grid_over(X: np.ndarray, resolution: int = 80, margin: float = 0.12,
              extra: np.ndarray | None = None) -> Grid:
    """A grid covering the points of ``X`` (and ``extra``) with a margin on every side.

    The longer side gets ``resolution`` cells and the shorter one proportionally fewer, so
    cells are square and the equal-aspect plots are not padded with empty space.
    """
    pts = np.asarray(X, dtype=float)[:, :2]
    if extra is not None and len(extra):
        pts = np.vstack([pts, np.asarray(extra, dtype=float)[:, :2]])
    if len(pts) == 0:
        lo, hi = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    else:
        lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    pad = margin * max(span.max(), 1e-9)
    lo, hi = lo - pad, hi + pad
    span = hi - lo
    step = span.max() / (resolution - 1)
    counts = np.maximum(np.round(span / step).astype(int) + 1, 2)
    return Grid(np.linspace(lo[0], hi[0], counts[0]), np.linspace(lo[1], hi[1], counts[1]))


#: Cells along the longer side of each live view's field grid: the grid its figure and its live
#: lattice are evaluated on (Decision boundaries: "decision"; Similarity: "similarity").
FIELD_RESOLUTION = {"decision": 70, "similarity": 80}


def field_grid(kind: str, X_view: np.ndarray, reference: tuple[float, float] | None = None,
               resolution: int | None = None) -> Grid:
    """A live view's field grid over the plotted points (and the Similarity view's reference point):
    one function for the view and ``kernelviz warm``, so the lattice warmed before class is the one
    the page asks for. ``resolution``: fewer cells than :data:`FIELD_RESOLUTION` (a dragged point's frames)."""
    cells = FIELD_RESOLUTION[kind] if resolution is None else resolution
    return grid_over(X_view, cells, extra=None if reference is None else np.array([reference]))


def ellipse_xy(mean: np.ndarray, cov: np.ndarray, radius: float, n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    """The ellipse {x : (x−m)ᵀ Σ⁻¹ (x−m) = radius²} as a closed polyline."""
    vals, vecs = np.linalg.eigh(np.asarray(cov, dtype=float)[:2, :2])
    vals = np.clip(vals, 0.0, None)
    t = np.linspace(0.0, 2.0 * np.pi, n)
    circle = np.vstack([np.cos(t), np.sin(t)])
    pts = (vecs * np.sqrt(vals)) @ circle * radius + np.asarray(mean, dtype=float)[:2, None]
    return pts[0], pts[1]


def cluster_class_order(clusters: np.ndarray, classes: np.ndarray, within: np.ndarray | None = None) -> np.ndarray:
    """Permutation sorting points by cluster, then by class, then by ``within`` (stable).

    Ordering by a coordinate inside each (cluster, class) block turns the speckle of a
    random order into smooth bands, so the block structure is what the eye sees.
    """
    keys = (np.asarray(classes), np.asarray(clusters))
    if within is not None:
        keys = (np.asarray(within),) + keys
    return np.lexsort(keys)


def nice_levels(values: np.ndarray, count: int = 12) -> np.ndarray:
    """About ``count`` round level values (steps of 1, 2 or 5 × 10^k) spanning ``values``."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return np.array([0.0])
    lo, hi = float(finite.min()), float(finite.max())
    if hi <= lo:
        return np.array([lo])
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    start = math.ceil(lo / step) * step
    return np.arange(start, hi + step * 1e-9, step)


# ----------------------------------------------------------------------------- layout helpers
#
# Figures are assembled as plain dicts and turned into a ``go.Figure`` once, at the end, without
# Plotly's validation pass: on the four-panel boundary figure it took 0.06 s warm and 0.3–0.55 s
# in a committed γ step's run (most of the run's figure time). Unvalidated, Plotly expands
# nothing: the dicts here use nested keys (no ``font_size`` shorthand) and the template as an
# object, not a name. The test suite sets VALIDATE_ENV: every figure a test builds is then
# also built with validation, and the two must give the same JSON.

#: Set (to anything) to check every figure against its validated build, as the tests do.
VALIDATE_ENV = "KERNELVIZ_VALIDATE_FIGURES"


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    figure = go.Figure({"data": traces, "layout": layout}, _validate=False)
    if os.environ.get(VALIDATE_ENV):
        validated = go.Figure({"data": traces, "layout": layout})  # raises on an unknown property
        where = _first_difference(json.loads(pio.to_json(validated, validate=False)),
                                  json.loads(pio.to_json(figure, validate=False)))
        if where is not None:
            raise ValueError(f"A figure differs from its validated build at {where}: a property uses a "
                             "shorthand (such as font_size) that only validation expands.")
    return figure


def _first_difference(a, b, path: str = "") -> str | None:
    """The first path at which two JSON values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            found = _first_difference(a.get(key), b.get(key), f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next((f for i, (u, v) in enumerate(zip(a, b)) if (f := _first_difference(u, v, f"{path}[{i}]"))),
                    None)
    return None if a == b else (path or "the top")


@functools.cache
def _template() -> dict:
    """Plotly's "plotly_white" template as the object Plotly.js reads (it cannot look up a name)."""
    return pio.templates["plotly_white"].to_plotly_json()


def _layout(title: str = "", height: int | None = None, top: int = 80) -> dict:
    layout = {
        "font": FONT,
        "template": _template(),
        "margin": {"l": 50, "r": 20, "t": top if title else 40, "b": 50},
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.06, "xanchor": "center", "x": 0.5},
        "hoverlabel": {"font": {"size": 13}},
    }
    if title:
        layout["title"] = {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 18}}
    if height:
        layout["height"] = height
    return layout


def _panels_height(n: int, grid: Grid, extra: int = 70) -> int:
    """Figure height at which equal-aspect panels of ``grid`` fill the page width (about
    1000 px of plot area at 1440 px), so wide data get short rows and tall data tall ones,
    and one row of four panels stays within a laptop screen's height."""
    rows, cols = _panel_grid(n)
    aspect = (grid.ys[-1] - grid.ys[0]) / max(grid.xs[-1] - grid.xs[0], 1e-12)
    panel = min(1000 / cols, 420) * float(np.clip(aspect, 0.45, 1.6))
    return int(rows * (panel + 75) + extra)


def _panel_grid(n: int) -> tuple[int, int]:
    """Rows and columns for ``n`` small multiples: up to four across, so that the default
    four kernels sit side by side in one glance."""
    cols = max(1, min(n, 4))
    return math.ceil(n / cols), cols


def _axis_names(i: int) -> tuple[str, str, str, str]:
    """(layout key of x axis, of y axis, trace reference of x, of y) of the 1-based panel ``i``."""
    suffix = "" if i == 1 else str(i)
    return f"xaxis{suffix}", f"yaxis{suffix}", f"x{suffix}", f"y{suffix}"


def panel_axes(index: int) -> dict:
    """The trace axis references (``{"xaxis", "yaxis"}``) of the 0-based small multiple ``index``."""
    _, _, xref, yref = _axis_names(index + 1)
    return {"xaxis": xref, "yaxis": yref}


def _panels(layout: dict, titles: Sequence[str], hspace: float = 0.05, vspace: float = 0.12,
            share: bool = True) -> list[dict]:
    """Lay out small multiples in ``layout``; return each panel's trace axis references.

    With ``share`` every panel's axes follow the first panel's (zoom one, zoom all).
    """
    n = len(titles)
    rows, cols = _panel_grid(n)
    vspace = vspace if rows > 1 else 0.0
    width = (1 - hspace * (cols - 1)) / cols
    height = (1 - vspace * (rows - 1)) / rows
    refs, notes = [], []
    for i in range(n):
        r, c = divmod(i, cols)
        xkey, ykey, xref, yref = _axis_names(i + 1)
        x0 = c * (width + hspace)
        y1 = 1 - r * (height + vspace)
        layout[xkey] = {"domain": [_unit(x0), _unit(x0 + width)], "anchor": yref}
        layout[ykey] = {"domain": [_unit(y1 - height), _unit(y1)], "anchor": xref}
        if share and i > 0:
            layout[xkey]["matches"] = "x"
            layout[ykey]["matches"] = "y"
        notes.append({"text": titles[i], "x": x0 + width / 2, "y": y1, "xref": "paper", "yref": "paper",
                      "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": 14}})
        refs.append(panel_axes(i))
    first = len(layout.get("annotations", []))
    layout["annotations"] = layout.get("annotations", []) + notes
    # which annotation is which panel's title: the page lays the panels out again for its screen
    # (kernelviz/components/plot/arrange.js)
    layout.setdefault("meta", {}).setdefault(PANELS_META, {})["titles"] = list(range(first, first + n))
    return refs


#: The key in a layout's ``meta`` of the figure title's words with ``{gamma}`` and ``{C}`` where its γ
#: and C stand (``f"{value:.3g}"``): mid-drag the plot component writes the dragged values there
#: (support.js), so that the title never says the value before the drag.
TITLE_META = "kv_title"
#: The key in a layout's ``meta`` that describes its small multiples: ``count``, ``equal`` (same
#: units on both axes) and ``titles`` (the index of each panel's title among the annotations).
PANELS_META = "kv_panels"


def _unit(x: float) -> float:
    """Clamp a paper coordinate to [0, 1] (sums of spacings round to −5e-17)."""
    return min(max(round(x, 9), 0.0), 1.0)


def _equal_aspect(layout: dict, n_panels: int, x_range, y_range) -> None:
    """Same units on both axes in every panel (a circle stays a circle). An axis that matches the first
    panel's takes its scale from it: plotly.js ignores a scale anchor there, with a console warning.

    The layout's ``meta`` marks the panels as equal-aspect small multiples, which the page lays out
    again in pixels for the screen it is on (kernelviz/components/plot/arrange.js)."""
    layout.setdefault("meta", {}).setdefault(PANELS_META, {}).update(count=n_panels, equal=True)
    for i in range(1, n_panels + 1):
        xkey, ykey, xref, _ = _axis_names(i)
        layout.setdefault(xkey, {}).update(range=[float(x_range[0]), float(x_range[1])], constrain="domain",
                                           showgrid=False, zeroline=False)
        yaxis = layout.setdefault(ykey, {})
        yaxis.update(range=[float(y_range[0]), float(y_range[1])], constrain="domain", showgrid=False, zeroline=False)
        if "matches" not in yaxis:
            yaxis.update(scaleanchor=xref, scaleratio=1)


def _on(traces: list[dict], ref: dict) -> list[dict]:
    """Put traces on a panel's axes."""
    for t in traces:
        t.update(ref)
    return traces


# ----------------------------------------------------------------------------- points


def point_marker(index: int | None, *, size: int = 8, hollow: bool = False, opacity: float = 1.0) -> dict:
    """The Plotly marker of a data point: of the ``index``-th class (sorted order), or unlabeled (None).

    The one look of a point: the figures' traces and the drawing canvas use it.
    """
    if index is None:
        return {"color": UNLABELED_COLOR, "size": max(size - 2, 4), "line": {"width": 0}, "opacity": opacity}
    color, symbol = class_style(index)
    return {"color": "rgba(0,0,0,0)" if hollow else color, "size": size, "symbol": symbol, "opacity": opacity,
            "line": {"width": 1.6 if hollow else 0.8, "color": color if hollow else "white"}}


def point_traces(X: np.ndarray, y: np.ndarray | None, labeled_mask: np.ndarray | None = None,
                 classes: Sequence | None = None, size: int = 8, show_legend: bool = True,
                 hovertext: Sequence[str] | None = None, name_suffix: str = "",
                 hollow: bool = False, opacity: float = 1.0) -> list[dict]:
    """Scatter traces: one per class (coloured, own symbol), one for unlabeled points (grey).

    ``classes`` fixes the class → colour mapping (sorted labels), so that the same class has
    the same colour in every figure even when a subset lacks some classes.
    """
    X = np.asarray(X, dtype=float)
    n = len(X)
    if labeled_mask is None:
        labeled_mask = np.ones(n, bool) if y is not None else np.zeros(n, bool)
    labeled_mask = np.asarray(labeled_mask, bool)
    if classes is None:
        classes = np.unique(np.asarray(y)[labeled_mask]) if y is not None and labeled_mask.any() else []
    text = np.asarray(hovertext, dtype=object) if hovertext is not None else None
    names = class_names(classes)
    traces = []
    unlabeled = ~labeled_mask
    if unlabeled.any():
        traces.append({
            "type": "scatter", "x": X[unlabeled, 0], "y": X[unlabeled, 1], "mode": "markers",
            "name": "unlabeled" + name_suffix, "legendgroup": "unlabeled", "showlegend": show_legend,
            "marker": point_marker(None, size=size, opacity=opacity),
            **({"hovertext": text[unlabeled]} if text is not None else {}),
        })
    for index, label in enumerate(classes):
        mask = labeled_mask & (np.asarray(y) == label)
        if not mask.any():
            continue
        traces.append({
            "type": "scatter", "x": X[mask, 0], "y": X[mask, 1], "mode": "markers",
            "name": names[label] + name_suffix, "legendgroup": f"class{label}" + name_suffix,
            "showlegend": show_legend,
            "marker": point_marker(index, size=size, hollow=hollow, opacity=opacity),
            **({"hovertext": text[mask]} if text is not None else {}),
        })
    return traces


def data_figure(X: np.ndarray, y: np.ndarray | None, labeled_mask: np.ndarray | None = None,
                title: str = "", axis_titles: tuple[str, str] = ("x₁", "x₂"),
                classes: Sequence | None = None) -> go.Figure:
    """The data set: classes in colour, unlabeled points in grey, equal aspect."""
    X = np.asarray(X, dtype=float)
    grid = grid_over(X, resolution=10, margin=0.06)
    layout = _layout(title, height=560)
    _equal_aspect(layout, 1, (grid.xs[0], grid.xs[-1]), (grid.ys[0], grid.ys[-1]))
    layout["xaxis"]["title"] = {"text": axis_titles[0]}
    layout["yaxis"]["title"] = {"text": axis_titles[1]}
    layout["legend"] = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0}
    return _figure(point_traces(X, y, labeled_mask, classes=classes), layout)


# ----------------------------------------------------------------------------- partition


def ellipse_traces(means: np.ndarray, covariances: np.ndarray, radii: Sequence[float] = (1, 2, 3),
                   colors: Sequence[str] | None = None, show_legend: bool = False,
                   fill_first: bool = False) -> list[dict]:
    """Covariance ellipses at the given Mahalanobis radii and the centres as labelled ×."""
    traces = []
    for k, (m, S) in enumerate(zip(np.asarray(means), np.asarray(covariances))):
        color = "#555555" if colors is None else colors[k % len(colors)]
        for j, r in enumerate(radii):
            ex, ey = ellipse_xy(m, S, r)
            trace = {
                "type": "scatter", "x": ex, "y": ey, "mode": "lines", "hoverinfo": "skip",
                "showlegend": show_legend and k == 0 and j == 0, "name": "Mahalanobis 1, 2, 3",
                "legendgroup": "ellipses",
                "line": {"color": color, "width": 2.0 if j == 0 else 1.2, "dash": "solid" if j == 0 else "dot"},
            }
            if fill_first and j == 0:
                trace.update(fill="toself", fillcolor="rgba(120,120,120,0.12)")
            traces.append(trace)
    means = np.asarray(means)
    if len(means):
        traces.append({
            "type": "scatter", "x": means[:, 0], "y": means[:, 1], "mode": "markers+text", "name": "centres",
            "showlegend": show_legend, "text": [str(k) for k in range(len(means))], "textposition": "top right",
            "textfont": {"size": 12, "color": "#444444"},
            "marker": {"symbol": "x-thin", "size": 12, "line": {"width": 2, "color": "#555555"}},
            "hovertemplate": "centre of cluster %{text}<extra></extra>",
        })
    return traces


@functools.cache
def _named_colorscale(name: str) -> tuple:
    """A named Plotly colour scale as its list of stops (what validation would have made of the name)."""
    return tuple(tuple(stop) for stop in plotly.colors.get_colorscale(name))


def _discrete_colorscale(colors: Sequence[str]) -> list:
    k = len(colors)
    if k == 1:
        return [[0, colors[0]], [1, colors[0]]]
    steps = np.linspace(0, 1, k + 1)
    scale = []
    for j, c in enumerate(colors):
        scale += [[float(steps[j]), c], [float(steps[j + 1]), c]]
    return scale


def partition_figure(X: np.ndarray, y: np.ndarray | None, labeled_mask: np.ndarray | None,
                     means: np.ndarray, covariances: np.ndarray, grid: Grid,
                     grid_responsibilities: np.ndarray, point_responsibilities: np.ndarray,
                     title: str = "", classes: Sequence | None = None,
                     region_crossings: tuple | None = None) -> go.Figure:
    """Shaded regions (most responsible cluster), ellipses at 1, 2, 3 Mahalanobis units,
    centres, and the points with their responsibilities on hover. ``region_crossings``: where the
    most responsible cluster changes along the grid's edges (:func:`kernelviz.crossings.class_crossings`),
    so that the regions' borders are drawn where they are, not along the grid's cells."""
    R = np.asarray(grid_responsibilities)
    k = R.shape[1]
    regions = {
        "type": "heatmap", "x": grid.xs, "y": grid.ys, "z": grid.reshape(R.argmax(axis=1)), "zmin": -0.5,
        "zmax": k - 0.5, "colorscale": _discrete_colorscale([CLUSTER_COLORS[j % len(CLUSTER_COLORS)] for j in range(k)]),
        "opacity": 0.45, "showscale": False,
        "text": grid.reshape(np.array([_responsibility_text(r) for r in R], dtype=object)),
        "hovertemplate": "(%{x:.2f}, %{y:.2f})<br>%{text}<extra>region</extra>",
        **crossings_meta(None if region_crossings is None else {"classes": region_crossings}, ["classes"]),
    }
    point_text = [_responsibility_text(r) for r in np.asarray(point_responsibilities)]
    traces = [regions] + ellipse_traces(means, covariances, show_legend=True)
    traces += point_traces(X, y, labeled_mask, classes=classes, hovertext=point_text)
    layout = _layout(title, height=620)
    _equal_aspect(layout, 1, (grid.xs[0], grid.xs[-1]), (grid.ys[0], grid.ys[-1]))
    return _figure(traces, layout)


def _responsibility_text(r: np.ndarray) -> str:
    order = np.argsort(r)[::-1][:4]
    return "<br>".join(f"cluster {j}: {r[j]:.2f}" for j in order if r[j] >= 0.005) or "—"


# ----------------------------------------------------------------------------- similarity


@dataclass
class SimilarityPanel:
    """One kernel's field around the reference point, on ``grid``.

    ``dissimilarity``: the distance the kernel's exponent measures,
    √(−ln(k(r, y)/√(k(r, r) k(y, y))) / γ) — Euclidean for RBF, Mahalanobis for mRBF,
    Δ for GMM/RWM. ``similarity``: the normalised kernel value k(r, y)/√(k(r, r) k(y, y)).
    """

    name: str
    dissimilarity: np.ndarray
    similarity: np.ndarray
    means: np.ndarray | None = None
    covariances: np.ndarray | None = None
    note: str = ""
    regularised: bool = False  # the kernel measures with ε-regularised (flat) cluster covariances


def similarity_figure(panels: Sequence[SimilarityPanel], grid: Grid, reference: Sequence[float],
                      X: np.ndarray, y: np.ndarray | None, labeled_mask: np.ndarray | None,
                      mode: str = "dissimilarity", classes: Sequence | None = None,
                      title: str = "", level_labels: bool = True) -> go.Figure:
    """Small multiples (shared axes) of each kernel's level curves around one point.

    Dissimilarity curves sit at round values (the RWM paper's Δ ∈ {0.5, 1, 1.5, …}),
    about ten per panel: kernels measure distance in different units (Euclidean,
    Mahalanobis, …), so each panel gets its own spacing and labels its curves.
    Similarity is shaded from 0 to 1 with curves every 0.1.
    The Gaussians a kernel uses sit underneath as grey ellipses (1 Mahalanobis unit).
    ``level_labels``: the curves carry their values (placing them is most of plotly.js's drawing of
    the figure: a frame of a dragged point leaves them out).
    """
    titles = [kernel_label(p.name) + (f" <span style='font-size:12px'>({p.note})</span>" if p.note else "")
              for p in panels]
    heading = title or ("Level curves of each kernel's dissimilarity around the reference point"
                        if mode == "dissimilarity" else "Each kernel's similarity to the reference point")
    layout = _layout(heading, height=_panels_height(len(panels), grid))
    refs = _panels(layout, titles)
    traces = []
    for i, (p, ref) in enumerate(zip(panels, refs)):
        panel = []
        if mode == "dissimilarity":
            finite = p.dissimilarity[np.isfinite(p.dissimilarity)]
            levels = nice_levels(np.array([0.0, float(np.percentile(finite, 70)) if finite.size else 1.0]), count=9)
            step = float(levels[1] - levels[0]) if len(levels) > 1 else 1.0
            panel.append({
                "type": "contour", "x": grid.xs, "y": grid.ys, "z": grid.reshape(p.dissimilarity), "showscale": False,
                "contours": {"start": step, "end": step * 12, "size": step, "coloring": "lines", "showlabels": level_labels,
                             "labelfont": {"size": 10, "color": "#333333"}},
                "colorscale": [[0, "#1b3a6b"], [1, "#7aa6d6"]], "line": {"width": 1.4},
                "hovertemplate": "(%{x:.2f}, %{y:.2f})<br>dissimilarity %{z:.3f}<extra></extra>",
            })
        else:
            panel.append({
                "type": "contour", "x": grid.xs, "y": grid.ys, "z": grid.reshape(p.similarity), "zmin": 0, "zmax": 1,
                "showscale": i == 0, "colorscale": _named_colorscale("Blues"),
                "contours": {"start": 0.1, "end": 0.9, "size": 0.1, "showlabels": level_labels,
                             "labelfont": {"size": 10, "color": "#333333"}},
                "line": {"width": 0.8, "color": "rgba(40,40,40,0.5)"},
                "colorbar": {"title": {"text": "similarity"}, "len": 0.6, "thickness": 12},
                "hovertemplate": "(%{x:.2f}, %{y:.2f})<br>similarity %{z:.3f}<extra></extra>",
            })
        if p.means is not None and p.covariances is not None:
            panel += ellipse_traces(p.means, p.covariances, radii=(1,), colors=["#7a7a7a"], fill_first=True)
        panel += point_traces(X, y, labeled_mask, classes=classes, size=5, show_legend=i == 0, opacity=0.55)
        panel.append({
            "type": "scatter", "x": [reference[0]], "y": [reference[1]], "mode": "markers",
            "name": "reference point", "showlegend": i == 0,
            "marker": {"symbol": "x", "size": 18, "color": "black", "line": {"width": 1.5, "color": "white"}},
            "hovertemplate": "reference (%{x:.2f}, %{y:.2f})<extra></extra>",
        })
        traces += _on(panel, ref)
    _equal_aspect(layout, len(panels), (grid.xs[0], grid.xs[-1]), (grid.ys[0], grid.ys[-1]))
    layout["clickmode"] = "event+select"
    return _figure(traces, layout)


# ----------------------------------------------------------------------------- decision boundaries


@dataclass
class BoundaryPanel:
    """One classifier on the plane.

    ``values`` is the decision function on the grid (binary), or the predicted class
    index (multi-class, ``classes`` order). ``support`` indexes ``X_train``; ``dual`` are
    the |α| of those support vectors.
    """

    name: str
    values: np.ndarray
    classes: Sequence
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    support: np.ndarray | None = None
    dual: np.ndarray | None = None
    train_accuracy: float | None = None
    test_accuracy: float | None = None
    hidden_accuracy: float | None = None    # on points whose labels were hidden (semi-supervised)
    fit_seconds: float | None = None
    multiclass: bool = False
    margins: bool = True    # f = ±1 means something (SVMs); minimax machines and discriminants have no margin
    note: str = ""
    regularised: bool = False  # the kernel measures with ε-regularised (flat) cluster covariances
    scheme: str = ""        # how a two-class model met more classes (e.g. "one-vs-one"), else ""
    alpha: float | None = None  # MPM / MCPM: the worst-case accuracy bound (the smallest pairwise one)
    class_train_accuracy: dict | None = None  # MPM / MCPM: each class's training accuracy, shown beside α
    bounded: np.ndarray | None = None  # per support vector: is |α| at its bound C (drawn square, free ones round)
    # where the panel's lines cross the grid's edges, found on the model (kernelviz.crossings): level of f →
    # (edge keys, fractions), or "classes" → those where the predicted class changes; None: between grid values
    crossings: dict | None = None


def boundary_title(p: BoundaryPanel) -> str:
    parts = [f"<b>{kernel_label(p.name)}</b>"]
    if p.train_accuracy is not None:
        parts.append(f"train {100 * p.train_accuracy:.0f}%")
    if p.test_accuracy is not None:
        parts.append(f"test {100 * p.test_accuracy:.0f}%")
    if p.hidden_accuracy is not None:
        parts.append(f"unlabeled {100 * p.hidden_accuracy:.0f}%")
    if p.fit_seconds is not None:
        parts.append(f"{1000 * p.fit_seconds:.0f} ms")
    # name, then two scores a line in a smaller font: four panels across leave 130–250 px per title
    lines = [" · ".join(parts[i:i + 2]) for i in range(1, len(parts), 2)]
    text = parts[0] + "".join(f"<br><span style='font-size:11px'>{line}</span>" for line in lines)
    if p.note:
        note = "<br>".join(_wrap_note(p.note))
        text += f"<br><span style='font-size:11px;color:#8a5a00'>{note}</span>"
    return text


def _wrap_note(note: str, width: int = 48) -> list[str]:
    """Split a " · "-joined note into lines of about ``width`` characters (a panel is narrow)."""
    lines: list[str] = []
    for part in note.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return lines


def boundary_figure(panels: Sequence[BoundaryPanel], grid: Grid, X_unlabeled: np.ndarray | None = None,
                    title: str = "", y_unlabeled: np.ndarray | None = None, *, support_vectors: bool = True,
                    margins: bool = True, test_points: bool = True,
                    class_names: Mapping[float, str] | None = None, live_title: str = "") -> go.Figure:
    """One panel per classifier: tinted sides, boundary (solid), ±1 margins (dashed),
    support vectors ringed with a size growing with |α|, test points hollow.

    ``y_unlabeled`` (NaN where unknown) gives the hidden true class of unlabeled points:
    they are then tinted faintly in their class colour, so one sees which side they
    should fall on; without it they are grey. ``support_vectors``, ``margins`` and
    ``test_points`` False leave those layers out (the teacher's clutter toggles: dozens of
    rings can bury a panel); the tints keep their scale and the titles their scores.
    ``class_names`` (label → name, as ``Dataset.class_names``) names the classes in the legend.
    ``live_title``: ``title``'s words with ``{gamma}`` and ``{C}`` where its γ and C stand; mid-drag
    the live preview writes the dragged values there (layout ``meta``, :data:`TITLE_META`).
    """
    layout = _layout(title, height=_panels_height(len(panels), grid, extra=90), top=125)
    if live_title:
        layout.setdefault("meta", {})[TITLE_META] = live_title
    refs = _panels(layout, [boundary_title(p) for p in panels])
    traces = []
    for i, (p, ref) in enumerate(zip(panels, refs)):
        classes = named_classes(list(p.classes), class_names)
        panel = _multiclass_regions(p, grid) if p.multiclass else _binary_regions(p, grid, margins)
        if X_unlabeled is not None and len(X_unlabeled):
            panel += _unlabeled_traces(X_unlabeled, y_unlabeled, classes, show_legend=i == 0)
        panel += point_traces(p.X_train, p.y_train, classes=classes, size=8, show_legend=i == 0,
                              name_suffix=" (train)")
        if test_points and p.X_test is not None and len(p.X_test):
            panel += point_traces(p.X_test, p.y_test, classes=classes, size=7, show_legend=i == 0,
                                  name_suffix=" (test)", hollow=True)
        if support_vectors and p.support is not None and len(p.support):
            sv = np.asarray(p.X_train)[np.asarray(p.support)]
            dual = np.abs(np.asarray(p.dual if p.dual is not None else np.ones(len(sv)), dtype=float))
            scale = dual / dual.max() if dual.max() > 0 else np.ones_like(dual)
            bounded = np.zeros(len(sv), bool) if p.bounded is None else np.asarray(p.bounded, bool)
            panel.append({
                "type": "scatter", "x": sv[:, 0], "y": sv[:, 1], "mode": "markers",
                "name": "support vectors (size ∝ |α|; square: α at C)", "legendgroup": "sv", "showlegend": i == 0,
                "marker": {"symbol": np.where(bounded, SUPPORT_MARKER["bounded"], SUPPORT_MARKER["free"]).tolist(),
                           "color": "black", "size": SUPPORT_MARKER["size"] + SUPPORT_MARKER["grow"] * np.sqrt(scale),
                           "line": {"width": 1.5}},
                "customdata": np.column_stack([dual, np.where(bounded, "at the bound C", "free")]),
                "hovertemplate": "support vector, %{customdata[1]}<br>|α| = %{customdata[0]:.3g}<extra></extra>",
            })
        traces += _on(panel, ref)
    _equal_aspect(layout, len(panels), (grid.xs[0], grid.xs[-1]), (grid.ys[0], grid.ys[-1]))
    layout["legend"].update(y=-0.14)  # below the x tick labels of a short one-row figure
    return _figure(traces, layout)


def _unlabeled_traces(X: np.ndarray, y: np.ndarray | None, classes: Sequence, show_legend: bool) -> list[dict]:
    y = np.full(len(X), np.nan) if y is None else np.asarray(y, dtype=float)
    traces, first = [], True
    for index, label in [(None, None)] + list(enumerate(classes)):
        mask = np.isnan(y) if label is None else (y == label)
        if not mask.any():
            continue
        color = UNLABELED_COLOR if label is None else class_style(index)[0]
        traces.append({"type": "scatter", "x": X[mask, 0], "y": X[mask, 1], "mode": "markers",
                       "name": "unlabeled" if label is None else "unlabeled (faint: hidden true class)",
                       "legendgroup": "unlabeled" if label is None else "hidden",
                       "showlegend": show_legend and (label is None or first),
                       "marker": {"color": color, "size": 4, "opacity": 1.0 if label is None else 0.4},
                       "hoverinfo": "skip"})
        first = first and label is None
    return traces


def crossings_meta(crossings: Mapping | None, levels: Sequence) -> dict:
    """A level-line or class trace's ``meta`` with where its lines cross the grid's edges
    (:attr:`BoundaryPanel.crossings`), for the plot component's marching squares
    (``components/plot/contours.js``): ``{"kv_crossings": [{"level", "edges", "at"}, …]}``, the level
    "classes" for a class field's. Empty where none were found (the lines then run between grid values).

    The edges and fractions stay arrays, which travel as Plotly's base64 arrays: as lists (thousands
    of numbers in a four-panel figure) every copy of the figure on its way to the browser copied them
    number by number, ~20 ms of each committed step. Float32 keeps a fraction to 1e-7 of a cell."""
    if not crossings:
        return {}
    found = [{"level": level, "edges": np.asarray(crossings[level][0], dtype=np.int64),
              "at": np.asarray(crossings[level][1], dtype=np.float32)}
             for level in levels if level in crossings]
    return {"meta": {"kv_crossings": found}} if found else {}


def _binary_regions(p: BoundaryPanel, grid: Grid, draw_margins: bool = True) -> list[dict]:
    z = grid.reshape(np.asarray(p.values, dtype=float))
    finite = np.abs(z[np.isfinite(z)])
    spread = float(np.percentile(finite, 95)) if finite.size else 1.0
    # SVM tints saturate a little beyond the margins; other models' f has its own scale
    limit = float(np.clip(spread, 1.0, 3.0)) if p.margins else max(spread, 1e-12)
    neg, pos = class_style(0)[0], class_style(1)[0]
    line = {"type": "contour", "x": grid.xs, "y": grid.ys, "z": z, "showscale": False, "hoverinfo": "skip",
            "showlegend": False}
    traces = [
        {"type": "heatmap", "x": grid.xs, "y": grid.ys, "z": z, "zmin": -limit, "zmax": limit, "showscale": False,
         "colorscale": [[0, lighten(neg, 0.55)], [0.5, "#FFFFFF"], [1, lighten(pos, 0.55)]],
         "hovertemplate": "(%{x:.2f}, %{y:.2f})<br>f = %{z:.3f}<extra></extra>"},
        {**line, "contours": {"start": 0, "end": 0, "size": 1, "coloring": "none"},
         "line": {"color": "black", "width": 2.6}, **crossings_meta(p.crossings, [0.0])},
    ]
    if p.margins and draw_margins:
        traces.append({**line, "contours": {"start": -1, "end": 1, "size": 2, "coloring": "none"},
                       "line": {"color": "#444444", "width": 1.3, "dash": "dash"},
                       **crossings_meta(p.crossings, [-1.0, 1.0])})
    return traces


def _multiclass_regions(p: BoundaryPanel, grid: Grid) -> list[dict]:
    z = grid.reshape(np.asarray(p.values, dtype=float))
    k = len(p.classes)
    names = class_names(p.classes)
    traces = [{
        "type": "heatmap", "x": grid.xs, "y": grid.ys, "z": z, "zmin": -0.5, "zmax": k - 0.5, "showscale": False,
        "colorscale": _discrete_colorscale([lighten(class_style(j)[0], 0.6) for j in range(k)]),
        "text": grid.reshape(np.array([names[p.classes[int(v)]] for v in z.ravel()], dtype=object)),
        "hovertemplate": "(%{x:.2f}, %{y:.2f})<br>predicted %{text}<extra></extra>",
        **crossings_meta(p.crossings, ["classes"]),
    }]
    for j in range(k):
        traces.append({"type": "contour", "x": grid.xs, "y": grid.ys, "z": (z == j).astype(float),
                       "showscale": False, "hoverinfo": "skip", "showlegend": False,
                       "contours": {"start": 0.5, "end": 0.5, "size": 1, "coloring": "none"},
                       "line": {"color": "black", "width": 2.2}, **crossings_meta(p.crossings, ["classes"])})
    return traces


# ----------------------------------------------------------------------------- kernel matrix


@dataclass
class GramPanel:
    """A Gram matrix already ordered for display, with where clusters change."""

    name: str
    K: np.ndarray
    cluster_breaks: Sequence[int] = ()
    verdict: str = ""


def gram_figure(panels: Sequence[GramPanel], title: str = "") -> go.Figure:
    """Heatmaps of the Gram matrices (rows and columns ordered by cluster, then class),
    each scaled to its own range with its own colour scale, with lines where one cluster ends and the next begins."""
    # a verdict in short lines: four panels across leave ~200 px each at 1440 px, and one long line
    # ran into the next panel's
    titles = [f"<b>{kernel_label(p.name)}</b>"
              + "".join(f"<br><span style='font-size:12px'>{line}</span>" for line in textwrap.wrap(p.verdict, 30))
              for p in panels]
    rows, _ = _panel_grid(len(panels))
    layout = _layout(title, height=400 * rows + 110, top=130)
    layout["margin"]["b"] = 80  # the last row's colour bars
    refs = _panels(layout, titles, vspace=0.22, share=False)
    traces, shapes = [], []
    for i, (p, ref) in enumerate(zip(panels, refs)):
        K = np.asarray(p.K, dtype=float)
        n = len(K)
        xkey, ykey, xref, _ = _axis_names(i + 1)
        x_domain, y_domain = layout[xkey].get("domain", [0, 1]), layout[ykey].get("domain", [0, 1])
        # each panel has its own range (CkRBF's values are ~30× RBF's), so each gets its own scale,
        # under it: beside it, its tick labels ran over the next panel's heatmap
        colorbar = {"orientation": "h", "x": (x_domain[0] + x_domain[1]) / 2, "xanchor": "center",
                    "y": y_domain[0] - 0.03, "yanchor": "top", "len": 0.8 * (x_domain[1] - x_domain[0]),
                    "thickness": 10, "tickformat": ".3~g", "nticks": 4, "tickangle": 0,
                    "title": {"text": "K", "side": "right"}}
        traces.append({"type": "heatmap", "z": K, "colorscale": _named_colorscale("Viridis"), "showscale": True,
                       "colorbar": colorbar, "hovertemplate": "row %{y}, column %{x}<br>K = %{z:.4g}<extra></extra>",
                       **ref})
        for b in p.cluster_breaks:
            for x0, y0, x1, y1 in ((b - 0.5, -0.5, b - 0.5, n - 0.5), (-0.5, b - 0.5, n - 0.5, b - 0.5)):
                shapes.append({"type": "line", "x0": x0, "y0": y0, "x1": x1, "y1": y1, "xref": ref["xaxis"],
                               "yref": ref["yaxis"], "line": {"color": "white", "width": 1.5}})
        layout[xkey].update(constrain="domain", showticklabels=False)
        layout[ykey].update(autorange="reversed", scaleanchor=xref, constrain="domain", showticklabels=False)
    if shapes:
        layout["shapes"] = shapes
    return _figure(traces, layout)


def spectrum_figure(spectra: Mapping[str, np.ndarray], title: str = "") -> go.Figure:
    """Eigenvalues, largest first, as |λ| / λ_max on a log axis; negative ones in red."""
    traces = []
    for j, (name, eig) in enumerate(spectra.items()):
        eig = np.sort(np.asarray(eig, dtype=float))[::-1]
        top = np.abs(eig).max() if eig.size and np.abs(eig).max() > 0 else 1.0
        rel = np.maximum(np.abs(eig) / top, 1e-17)
        idx = np.arange(1, len(eig) + 1)
        traces.append({"type": "scatter", "x": idx, "y": rel, "mode": "lines", "name": kernel_label(name),
                       "line": {"color": kernel_color(name, j), "width": 2}, "legendgroup": name, "customdata": eig,
                       "hovertemplate": "λ_%{x}: %{customdata:.3g}<extra>" + kernel_label(name) + "</extra>"})
        neg = eig < 0
        if neg.any():
            traces.append({"type": "scatter", "x": idx[neg], "y": rel[neg], "mode": "markers",
                           "name": f"{kernel_label(name)}: negative", "legendgroup": name,
                           "marker": {"color": "#D62728", "size": 7, "symbol": "x"}, "customdata": eig[neg],
                           "hovertemplate": "λ_%{x} = %{customdata:.3g} (negative)<extra></extra>"})
    layout = _layout(title or "Eigenvalue spectrum (|λ| relative to the largest; red × = negative)", height=440)
    layout["yaxis"] = {"type": "log", "title": {"text": "|λ| / λ_max"}, "exponentformat": "power"}
    layout["xaxis"] = {"title": {"text": "eigenvalue index (largest first)"}}
    layout["legend"].update(y=-0.2)
    return _figure(traces, layout)


# ----------------------------------------------------------------------------- grid search and P_f


@dataclass
class GridPanel:
    """Mean CV accuracy over (C, γ): ``scores[i, j]`` for ``log_Cs[i]`` and ``log_gammas[j]``."""

    name: str
    scores: np.ndarray
    path: np.ndarray | None = None         # Keerthi–Lin path: rows of (log γ, log C)
    path_best: Sequence[float] | None = None
    capped: np.ndarray | None = None        # cells whose fits hit libsvm's iteration cap
    note: str = ""


def grid_search_figure(panels: Sequence[GridPanel], log_Cs: np.ndarray, log_gammas: np.ndarray,
                       title: str = "") -> go.Figure:
    """Accuracy heatmaps over (log γ, log C), one colour scale for all kernels, the best
    cell starred inside it (beside its number), every cell tied with it outlined in black (a
    plateau of equal scores is common, and the star alone would single out one of them), the
    Keerthi–Lin path's cells ringed in grey with its best cell in red (rings and star leave
    the cell numbers readable), and a transparent point on every cell centre to click."""
    log_Cs, log_gammas = np.asarray(log_Cs, dtype=float), np.asarray(log_gammas, dtype=float)
    ties = [int(np.count_nonzero(_tied_with_best(p.scores))) for p in panels]
    titles = [f"<b>{kernel_label(p.name)}</b> · best {100 * np.nanmax(p.scores):.1f}%"
              + (f", {n} cells tie" if n > 1 else "")
              + (f"<br><span style='font-size:11px'>{p.note}</span>" if p.note else "") for p, n in zip(panels, ties)]
    rows, _ = _panel_grid(len(panels))
    layout = _layout(title, height=380 * rows + 110, top=100)
    refs = _panels(layout, titles, hspace=0.08, vspace=0.2, share=False)
    zmin = float(np.nanmin(np.concatenate([np.ravel(p.scores) for p in panels])))
    traces = []
    for i, (p, ref) in enumerate(zip(panels, refs)):
        S = np.asarray(p.scores, dtype=float)
        panel = [{
            "type": "heatmap", "x": log_gammas, "y": log_Cs, "z": S, "zmin": zmin, "zmax": 1.0,
            "colorscale": _named_colorscale("Viridis"), "showscale": i == 0,
            "colorbar": {"title": {"text": "CV acc."}, "thickness": 12, "len": 0.7},
            "hovertemplate": "log₁₀γ = %{x:g}, log₁₀C = %{y:g}<br>accuracy %{z:.3f}<extra></extra>",
            **({"texttemplate": "%{z:.2f}", "textfont": {"size": 10}} if S.size <= 100 else {}),
        }]
        # the cell GridResult.best_index (and the generated script's argmax) picks among ties
        bi, bj = np.unravel_index(np.nanargmax(S), S.shape)
        tied = _tied_with_best(S)
        if np.count_nonzero(tied) > 1:
            panel.append(_cell_outlines(tied, log_Cs, log_gammas, show_legend=i == 0))
        # centred on its row, left of the cell's number where numbers are drawn (cells are wider
        # than tall): inside its own cell — in the cell's corner it read as any of four cells
        left = _step(log_gammas) * (0.3 if S.size <= 100 else 0.0)
        panel.append({"type": "scatter", "x": [log_gammas[bj] - left], "y": [log_Cs[bi]],
                      "mode": "markers", "name": "best cell", "showlegend": i == 0, "legendgroup": "best",
                      "marker": {"symbol": "star", "size": 13, "color": "white", "line": {"color": "black", "width": 1.2}},
                      "hoverinfo": "skip"})
        if p.capped is not None and np.any(p.capped):
            ci, cj = np.nonzero(np.asarray(p.capped))
            panel.append({"type": "scatter", "x": log_gammas[cj], "y": log_Cs[ci], "mode": "markers",
                          "name": "hit libsvm's iteration cap", "legendgroup": "capped", "showlegend": True,
                          "marker": {"symbol": "x-thin", "size": 10, "line": {"width": 2, "color": "#D62728"}},
                          "hoverinfo": "skip"})
        if p.path is not None and len(p.path):
            path = np.asarray(p.path, dtype=float)
            panel.append({"type": "scatter", "x": path[:, 0], "y": path[:, 1], "mode": "markers",
                          "name": "Keerthi–Lin path", "legendgroup": "kl", "showlegend": i == 0,
                          "marker": {"symbol": "circle-open", "size": 30, "color": "rgba(235,235,235,0.95)",
                                     "line": {"width": 2.5}},
                          "hoverinfo": "skip"})
            if p.path_best is not None:
                panel.append({"type": "scatter", "x": [p.path_best[0]], "y": [p.path_best[1]], "mode": "markers",
                              "name": "Keerthi–Lin best", "legendgroup": "klbest", "showlegend": i == 0,
                              "marker": {"symbol": "circle-open", "size": 30, "color": "#D62728",
                                         "line": {"width": 3}},
                              "hoverinfo": "skip"})
        # Streamlit reports clicks on points, not on heatmap cells: a transparent point per cell
        # centre makes every cell clickable (``meta`` names the panel's kernel).
        cell_gammas, cell_Cs = np.meshgrid(log_gammas, log_Cs)
        panel.append({"type": "scatter", "x": cell_gammas.ravel(), "y": cell_Cs.ravel(), "mode": "markers",
                      "meta": p.name, "showlegend": False, "customdata": S.ravel(),
                      "marker": {"symbol": "square", "size": 26, "color": "rgba(0,0,0,0)"},
                      "selected": {"marker": {"opacity": 1}}, "unselected": {"marker": {"opacity": 1}},
                      "hovertemplate": "log₁₀γ = %{x:g}, log₁₀C = %{y:g}<br>accuracy %{customdata:.3f}"
                                       "<br>click: decision boundaries here<extra></extra>"})
        traces += _on(panel, ref)
        xkey, ykey, _, _ = _axis_names(i + 1)
        # ticks on the cells' centres, the grid values themselves
        layout[xkey].update(title={"text": "log₁₀ γ"}, tickvals=log_gammas, tickformat=".3~g",
                            range=[log_gammas[0] - _step(log_gammas) / 2, log_gammas[-1] + _step(log_gammas) / 2])
        layout[ykey].update(title={"text": "log₁₀ C"}, tickvals=log_Cs, tickformat=".3~g",
                            range=[log_Cs[0] - _step(log_Cs) / 2, log_Cs[-1] + _step(log_Cs) / 2])
    # the legend at the figure's foot, below the panels' "log₁₀ γ" titles (0.1 plot heights under
    # the panels, it sat on them)
    layout["legend"].update(yref="container", y=0.0, yanchor="bottom")
    layout["margin"]["b"] = 90
    return _figure(traces, layout)


#: Scores closer than this to the best are a tie: means of the same fold accuracies summed in
#: another order differ in their last bits.
TIE_TOLERANCE = 1e-9


def _tied_with_best(scores) -> np.ndarray:
    """Which cells score as well as the best one (NaN cells, not searched yet, never do)."""
    S = np.asarray(scores, dtype=float)
    with np.errstate(invalid="ignore"):
        return S >= np.nanmax(S) - TIE_TOLERANCE


def _cell_outlines(cells: np.ndarray, log_Cs: np.ndarray, log_gammas: np.ndarray, show_legend: bool) -> dict:
    """One line trace outlining each of ``cells`` (a boolean (n_C, n_γ) mask) just inside its edges,
    in data coordinates: the outline follows the cell whatever the panel's size in pixels."""
    hx, hy = 0.42 * _step(log_gammas), 0.42 * _step(log_Cs)
    xs, ys = [], []
    for i, j in zip(*np.nonzero(cells)):
        x, y = log_gammas[j], log_Cs[i]
        xs += [x - hx, x + hx, x + hx, x - hx, x - hx, None]
        ys += [y - hy, y - hy, y + hy, y + hy, y - hy, None]
    return {"type": "scatter", "x": xs[:-1], "y": ys[:-1], "mode": "lines", "name": "tied with the best",
            "showlegend": show_legend, "legendgroup": "tied", "line": {"color": "black", "width": 1.5},
            "hoverinfo": "skip"}


def _step(values) -> float:
    values = np.asarray(values, dtype=float)
    return float(values[1] - values[0]) if len(values) > 1 else 1.0


def scale_line(name: str, scale: str) -> dict:
    """The line of scaled kernel ``name``'s curve at ``scale`` ("paper" or "unit"): the kernel's colour at
    the paper's scale, a lighter dashed one at the unit scale — so each scale keeps its look whichever
    of the two the sidebar sets (its curve is then the one named after the kernel alone)."""
    color = kernel_color(name)
    return {"color": color} if scale == "paper" else {"color": lighten(color, 0.4), "dash": "dash"}


def pf_figure(curves: Mapping[str, tuple[np.ndarray, np.ndarray]], alpha0: float | None = None,
              aucs: Mapping[str, float] | None = None, title: str = "",
              lines: Mapping[str, dict] | None = None) -> go.Figure:
    """P_f(α) step curves of several kernels on one plot, with α₀ marked. ``lines`` gives a curve its own
    line (colour, dash) where its name does not fix it: a scaled kernel's, :func:`scale_line`."""
    traces = []
    for j, (name, (alphas, pf)) in enumerate(curves.items()):
        label = kernel_label(name) + (f" (AUC {aucs[name]:.3f})" if aucs and name in aucs else "")
        line = {"shape": "hv", "color": kernel_color(name, j), "width": 3, **(lines or {}).get(name, {})}
        traces.append({"type": "scatter", "x": np.asarray(alphas), "y": np.asarray(pf), "mode": "lines",
                       "line": line, "name": label,
                       "hovertemplate": "α = %{x:.3f}<br>P<sub>f</sub> = %{y:.2f}<extra>" + kernel_label(name) + "</extra>"})
    layout = _layout(title or "P<sub>f</sub>(α): share of the (C, γ) grid scoring at least α", height=500)
    layout["xaxis"] = {"title": {"text": "accuracy α"}, "range": [alpha0 - 0.01 if alpha0 is not None else 0, 1.0]}
    layout["yaxis"] = {"title": {"text": "P<sub>f</sub>(α)"}, "range": [0, 1.02]}
    layout["legend"] = {"orientation": "v", "x": 0.02, "y": 0.05, "xanchor": "left", "yanchor": "bottom",
                        "bgcolor": "rgba(255,255,255,0.85)"}
    if alpha0 is not None:
        layout["shapes"] = [{"type": "line", "x0": alpha0, "x1": alpha0, "y0": 0, "y1": 1, "xref": "x",
                             "yref": "paper", "line": {"color": "#777777", "dash": "dot"}}]
        layout["annotations"] = [{"x": alpha0, "y": 1, "xref": "x", "yref": "paper", "text": "α₀",
                                  "showarrow": False, "xanchor": "right", "yanchor": "bottom"}]
    return _figure(traces, layout)


# ----------------------------------------------------------------------------- the decision function taken apart
#
# f(x) = Σ αᵢ yᵢ k(xᵢ, x) + b term by term (kernelviz.anatomy computes the numbers), and the
# boundary figure without the layers a teacher may want out of the way.

from typing import TYPE_CHECKING  # noqa: E402 -- this section was appended; its names stay with it

if TYPE_CHECKING:  # annotations only: figures.py never needs the numerics at run time
    from kernelviz.anatomy import BumpBuildUp, DecisionTerms

#: How a bounded support vector (αᵢ = C) is drawn apart from a free one (0 < αᵢ < C).
BOUNDED_PATTERN = "/"
FREE_SV_SYMBOL, BOUNDED_SV_SYMBOL = "circle-open", "square-open"
#: A decision panel's support vector marker (:func:`boundary_figure`): its symbol, and its size,
#: ``size + grow · √(|α| / max |α|)`` px. The live preview sizes its lattice's by the same numbers
#: (``support.js``), their colour and outline taken from the figure's own support vectors.
SUPPORT_MARKER = {"free": FREE_SV_SYMBOL, "bounded": BOUNDED_SV_SYMBOL, "size": 10, "grow": 14}
BIAS_COLOR, REST_COLOR, TOTAL_COLOR = "#8C8C8C", "#C8C8C8", "#222222"


def _side_word(value: float, names: Sequence[str]) -> str:
    """Which class a decision value speaks for (``names``: display names of the −, + classes)."""
    if value == 0:
        return "on the boundary"
    return "→ " + (names[1] if value > 0 else names[0])


def decision_terms_figure(terms: Mapping[str, "DecisionTerms"], point: Sequence[float], top: int = 8,
                          title: str = "", class_names: Mapping[float, str] | None = None) -> go.Figure:
    """The largest terms αᵢ yᵢ k(xᵢ, x) of f at one point, one panel per kernel.

    Each bar is one support vector's pull: right toward the positive class, left toward the
    negative one, coloured by the support vector's class and hatched when αᵢ is at its bound
    C. Below the ``top`` largest come the sum of all other terms, the bias b, and f(x) itself,
    so the bars above f(x) add up to it exactly.

    Parameters
    ----------
    terms : mapping of kernel name → kernelviz.anatomy.DecisionTerms
        The same point under each kernel.
    point : (x₁, x₂)
        The point, for the title.
    top : int
        How many terms get a bar of their own.
    class_names : mapping of label → name, optional
        Names the classes, as in :func:`boundary_figure`.
    """
    if top < 1:
        raise ValueError(f"top must be at least 1 (the number of terms shown one by one); got {top}.")
    panels = list(terms.items())
    titles = []
    for name, t in panels:
        names = _display_names(list(t.classes), class_names)
        titles.append(f"<b>{kernel_label(name)}</b> · f(x) = {t.value:+.3f} "
                      f"{_side_word(t.value, [names[c] for c in t.classes])}")
    heading = title or f"What decides the point ({float(point[0]):.2f}, {float(point[1]):.2f}): the largest terms of f"
    rows, _ = _panel_grid(len(panels))
    layout = _layout(heading, height=rows * (24 * (top + 3) + 150) + 110, top=100)
    refs = _panels(layout, titles, hspace=0.12, vspace=0.22 if rows > 1 else 0.12, share=False)
    traces, in_legend = [], set()

    def legend_once(group: str) -> bool:
        shown = group not in in_legend
        in_legend.add(group)
        return shown

    for i, ((name, t), ref) in enumerate(zip(panels, refs)):
        names = _display_names(list(t.classes), class_names)
        shown = slice(0, min(top, len(t.terms)))
        categories = [f"SV {s}" for s in t.support[shown]]
        panel = []
        for side, label in enumerate(t.classes):
            color = class_style(side)[0]
            for bounded in (False, True):
                mask = (t.labels[shown] == label) & (t.bounded[shown] == bounded)
                if not mask.any():
                    continue
                kind = "at the bound (α = C)" if bounded else "free (0 < α < C)"
                group = f"{names[label]} · {kind}"
                panel.append({
                    "type": "bar", "orientation": "h", "x": t.terms[shown][mask],
                    "y": np.asarray(categories, dtype=object)[mask], "name": group, "legendgroup": group,
                    "showlegend": legend_once(group),
                    "marker": {"color": color, "line": {"color": color, "width": 1},
                               "pattern": {"shape": BOUNDED_PATTERN if bounded else "", "fgcolor": "white",
                                           "solidity": 0.35}},
                    "customdata": np.column_stack([t.alpha[shown][mask], t.kernel_values[shown][mask]]),
                    "hovertemplate": (f"%{{y}} · {names[label]}, {kind}<br>α = %{{customdata[0]:.4g}}"
                                      "<br>k(xᵢ, x) = %{customdata[1]:.4g}<br>term = %{x:+.4g}<extra></extra>"),
                    "texttemplate": "%{x:+.3f}", "textposition": "outside", "cliponaxis": False,
                })
        rest = t.terms[shown.stop:]
        if len(rest):
            categories.append(f"{len(rest)} other SVs")
            panel.append(_summary_bar(categories[-1], float(rest.sum()), REST_COLOR, "other support vectors",
                                      legend_once("rest")))
        categories += ["b", "f(x)"]
        panel.append(_summary_bar("b", t.intercept, BIAS_COLOR, "bias b", legend_once("bias")))
        panel.append(_summary_bar("f(x)", t.value, TOTAL_COLOR, "f(x) = Σ terms + b", legend_once("total")))
        traces += _on(panel, ref)
        xkey, ykey, _, _ = _axis_names(i + 1)
        negative, positive = (names[c] for c in t.classes)
        # symmetric, with room for the values printed beyond the bars' ends
        reach = 1.45 * max(float(np.abs(t.terms[shown]).max()), abs(t.intercept), abs(t.value),
                           abs(float(rest.sum())) if len(rest) else 0.0, 1e-12)
        layout[xkey].update(title={"text": f"← toward {negative} · toward {positive} →", "font": {"size": 12}},
                            range=[-reach, reach], zeroline=True, zerolinecolor="#444444", zerolinewidth=1.5)
        layout[ykey].update(categoryorder="array", categoryarray=categories, autorange="reversed",
                            type="category")
    layout["barmode"] = "relative"
    layout["legend"].update(y=-0.12)
    return _figure(traces, layout)


def _summary_bar(category: str, value: float, color: str, name: str, show_legend: bool) -> dict:
    return {"type": "bar", "orientation": "h", "x": [value], "y": [category], "name": name, "legendgroup": name,
            "showlegend": show_legend, "marker": {"color": color},
            "hovertemplate": f"{name}<br>%{{x:+.4g}}<extra></extra>",
            "texttemplate": "%{x:+.3f}", "textposition": "outside", "cliponaxis": False}


def buildup_figure(buildup: "BumpBuildUp", grid: Grid, X_train: np.ndarray, y_train: np.ndarray,
                   name: str = "", title: str = "", class_names: Mapping[float, str] | None = None) -> go.Figure:
    """f assembling from its support-vector bumps: one panel per stage m (the m largest |αᵢ|).

    Each panel tints f_m on one colour scale for all stages, draws its zero line (solid) and,
    until the last stage, the full SVM's boundary (dotted) to aim at; the support vectors
    used so far are ringed (circles free, squares at the bound C), those that joined at this
    stage with a thicker line. The panel title says on how much of the map f_m already
    takes the full f's side.

    Parameters
    ----------
    buildup : kernelviz.anatomy.BumpBuildUp
        Evaluated at ``grid.points`` (mapped to the model's space when that differs).
    grid : Grid
    X_train, y_train : arrays
        The training points in the plane (indexed as the SVM's training set) and their labels.
    name : str
        The kernel's name, for the title.
    class_names : mapping of label → name, optional
        Names the classes, as in :func:`boundary_figure`.
    """
    values = np.asarray(buildup.values, dtype=float)
    if values.shape[1] != len(grid.xs) * len(grid.ys):
        raise ValueError(f"The build-up has {values.shape[1]} values per stage but the grid has "
                         f"{len(grid.xs) * len(grid.ys)} points: evaluate it at grid.points.")
    expansion = buildup.expansion
    classes = named_classes(list(expansion.classes), class_names)
    n_support = len(expansion.support)
    agreement = buildup.agreement
    final = values[-1] if agreement is not None else None
    titles = [f"m = {m} of {n_support}" + (f" · same side as f on {agreement[s]:.0%}"
                                             if agreement is not None and m < n_support else "")
              for s, m in enumerate(buildup.counts)]
    heading = title or (f"{kernel_label(name)}: " if name else "") + "f built up from its support vectors, largest |α| first"
    layout = _layout(heading, height=_panels_height(len(titles), grid, extra=90))
    refs = _panels(layout, titles)
    reference = values[-1]
    limit = float(np.clip(np.percentile(np.abs(reference), 95), 1.0, 3.0))
    neg, pos = class_style(0)[0], class_style(1)[0]
    line = {"type": "contour", "x": grid.xs, "y": grid.ys, "showscale": False, "hoverinfo": "skip",
            "showlegend": False, "contours": {"start": 0, "end": 0, "size": 1, "coloring": "none"}}
    sv_xy = np.asarray(X_train, dtype=float)[expansion.support]
    alpha = expansion.alpha
    size = 8 + 12 * np.sqrt(alpha / alpha.max())
    traces = []
    for i, (m, f_m, ref) in enumerate(zip(buildup.counts, values, refs)):
        panel = [{"type": "heatmap", "x": grid.xs, "y": grid.ys, "z": grid.reshape(f_m), "zmin": -limit,
                  "zmax": limit, "showscale": False,
                  "colorscale": [[0, lighten(neg, 0.55)], [0.5, "#FFFFFF"], [1, lighten(pos, 0.55)]],
                  "hovertemplate": f"(%{{x:.2f}}, %{{y:.2f}})<br>f<sub>{m}</sub> = %{{z:.3f}}<extra></extra>"}]
        panel.append({**line, "z": grid.reshape(f_m), "name": f"f_{m} = 0",
                      "line": {"color": "black", "width": 2.4}})
        if final is not None and m < n_support:
            panel.append({**line, "z": grid.reshape(final), "name": "boundary of the full f",
                          "line": {"color": "#555555", "width": 1.4, "dash": "dot"}})
        panel += point_traces(X_train, y_train, classes=classes, size=5, show_legend=i == 0, opacity=0.35)
        joined = np.arange(m) >= (buildup.counts[i - 1] if i else 0)
        for bounded, symbol, kind in ((False, FREE_SV_SYMBOL, "free (0 < α < C)"),
                                      (True, BOUNDED_SV_SYMBOL, "at the bound (α = C)")):
            used = np.flatnonzero(expansion.bounded[:m] == bounded)
            if not len(used):
                continue
            panel.append({
                "type": "scatter", "x": sv_xy[used, 0], "y": sv_xy[used, 1], "mode": "markers",
                "name": f"support vectors used, {kind}", "legendgroup": f"sv-{bounded}",
                "showlegend": i == len(refs) - 1,
                "marker": {"symbol": symbol, "color": "black", "size": size[used],
                           "line": {"width": np.where(joined[used], 2.6, 1.2)}},
                "customdata": np.column_stack([expansion.support[used], alpha[used]]),
                "hovertemplate": f"SV %{{customdata[0]}} ({kind})<br>α = %{{customdata[1]:.4g}}<extra></extra>",
            })
        traces += _on(panel, ref)
    _equal_aspect(layout, len(refs), (grid.xs[0], grid.xs[-1]), (grid.ys[0], grid.ys[-1]))
    return _figure(traces, layout)


#: The frame around the panel a lesson step asks the reader to look at.
HIGHLIGHT_COLOR = "#E8710A"


def highlight_panel(figure: go.Figure, index: int) -> go.Figure:
    """A copy of a small-multiples figure with a frame around panel ``index`` (0-based) — the panel
    a lesson step points at.

    The frame lies just inside the panel's plot area, placed on its axes' domains as drawn (an equal
    aspect narrows one of them): a frame around the domains in paper coordinates crossed the panel's
    title, which sits on the domain's top edge, and the tick labels beside it.
    """
    x_key, y_key, x_ref, y_ref = _axis_names(index + 1)
    if figure.layout[x_key].domain is None or figure.layout[y_key].domain is None:
        raise ValueError(f"The figure has no panel {index + 1}: highlight one of its panels.")
    framed = go.Figure(figure)
    inset = 0.01  # at least half the line's width on a panel of 200 px or more: the line stays inside
    framed.add_shape(type="rect", xref=f"{x_ref} domain", yref=f"{y_ref} domain", x0=inset, x1=1 - inset,
                     y0=inset, y1=1 - inset, layer="above", line={"color": HIGHLIGHT_COLOR, "width": 4},
                     fillcolor="rgba(0,0,0,0)")
    return framed
