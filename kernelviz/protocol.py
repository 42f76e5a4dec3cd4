"""What Python sends to the components' JavaScript, declared once.

The plot component's payload (:func:`kernelviz.components.plot.payload`) and the drawing
component's data (:func:`kernelviz.components.draw.browser_data`) are plain dicts read by
the plot component's modules (``components/plot/``) and ``draw.js``; a key renamed on one side only would fail in the browser, silently
(an ``undefined`` where a number was expected). Each payload is declared here as a TypedDict,
its producer returns that type, and :func:`schema` lists each type's keys.
``python tests/js/write_fixtures.py --write tests/js/fixtures`` writes the
schema and real payloads, built by the producers themselves, for ``tests/js/payloads.test.mjs``:
the JavaScript decodes them with its own code and checks their keys against the schema;
``tests/test_payloads.py`` checks that the fixtures are the producers' current output.

A module of the bottom layer: it imports numpy alone, so that every producer (the lattice, the
components, the live preview) imports it downward; the fixture writer, which imports the
producers, is a script of the tests.
"""

# No ``from __future__ import annotations`` here: with annotations as strings, Python 3.11's TypedDict
# does not see NotRequired, and lists every key as required.
from typing import NotRequired, TypedDict

import numpy as np


class BrowserCodec(TypedDict):
    """How a lattice's uint8 codes decode (:class:`kernelviz.lattice.Codec`): read by the plot
    component's painters (``looks.js``: ``decisionLook``, ``similarityLook``) and its contours
    (``contours.js``), which skip ``undefined``."""

    lo: float
    hi: float
    top: int
    undefined: int


class BrowserSupport(TypedDict):
    """One kernel's support vectors at every value of one lattice axis
    (:meth:`kernelviz.lattice.Lattice.support`), drawn by ``support.js`` mid-drag: ``counts`` per
    value, then, value after value, ``index`` (uint16, into the lattice's ``points``), ``alpha``
    (|α|, float32) and ``bounded`` (uint8, 1 where α = C); arrays in ``to_browser``, ``[offset, size]``
    byte spans into the body in the plot payload, which ``payload.js`` decodes into typed arrays."""

    counts: list[int]
    index: np.ndarray | list[int]
    alpha: np.ndarray | list[int]
    bounded: np.ndarray | list[int]


class BrowserKernel(TypedDict):
    """One kernel of a lattice: ``paint.js`` (plot component) paints its fields, or says why not (``failed``).

    ``fields`` is, per lattice axis, the codes of shape ``(len(axis), ny, nx)`` as
    :meth:`kernelviz.lattice.Lattice.to_browser` gives them; in the plot payload an
    ``[offset, size]`` span into the payload's body, which ``payload.js``'s ``unpackLattice`` turns into a
    view of the body. None while the kernel is not ready, when it failed, and when the browser has
    the lattice already (``sent``). ``scales`` (per axis, one per lattice value) is None likewise,
    except for a lattice sent already, which keeps them. Decision lattices only (None otherwise, and
    while not ready): ``support``, per axis, the support vectors at each value (None for a model,
    which has none; None in a lattice sent already, like ``fields``), and ``accuracy``, per axis and
    value, ``[train, test, hidden]`` (each None where the data have no such points), which
    ``support.js`` writes into the panel's title mid-drag.
    """

    name: str
    label: str
    failed: str | None
    fields: dict[str, np.ndarray] | dict[str, list[int]] | None
    scales: dict[str, list[float]] | None
    support: dict[str, BrowserSupport | None] | None
    accuracy: dict[str, list[list[float | None] | None]] | None


class BrowserLattice(TypedDict):
    """A lattice (:meth:`kernelviz.lattice.Lattice.to_browser`): the plot component keeps it by ``id``
    (``sliders.js``) and paints the previewing panels from it while a slider moves. ``sent``: only in a plot payload whose browser
    has this lattice already (its fields are then None, and ``sliders.js`` takes the copy it kept).
    ``points``: a decision lattice's training points, which its support vectors index (an (n, 2)
    float32 array; in the plot payload a byte span into the body), and ``support_marker`` how the
    figure draws one (:data:`kernelviz.figures.SUPPORT_MARKER`); None otherwise."""

    id: str
    kind: str
    nx: int
    ny: int
    x_range: list[float]
    y_range: list[float]
    codec: BrowserCodec
    axes: dict[str, list[float]]
    log_gamma: float
    log_C: float | None
    reference: tuple[float, float] | None
    classes: int
    complete: bool
    kernels: list[BrowserKernel]
    points: np.ndarray | list[int] | None
    support_marker: dict | None
    sent: NotRequired[bool]


class Panel(TypedDict):
    """A panel of the figure and its subplot: ``paint.js`` paints the field over that subplot (``panels``)
    or a badge on it (``held``). ``margins``: whether its f = ±1 are an SVM's margins (its tints
    saturate otherwise, ``decisionLook``); the views always say, a bare caller need not."""

    name: str
    xaxis: str
    yaxis: str
    margins: NotRequired[bool]


class LivePreview(TypedDict):
    """The live preview of a figure (:func:`kernelviz.ui.live.preview_payload`): ``sliders.js``'s
    ``updateLive`` sets its sliders from it, ``paint.js``'s ``paintFields`` repaints the ``panels``; ``waiting``: the
    lattice of these values is still being prepared (the watcher's poll ticks meanwhile)."""

    waiting: bool
    lattice: BrowserLattice
    log_gamma: float
    log_C: float | None
    panels: list[Panel]
    held: list[Panel]
    locked: list[str]


class EditInfo(TypedDict):
    """What lets a figure's points be edited (:func:`kernelviz.ui.edits.browser_edit`), read by edit.js.

    ``points``: every point as drawn data, ``[x, y, label]`` in the plot's coordinates, in the order
    the edits' indices count; ``applied``: ``{token: number}`` of the last of a page's edits Python
    has applied; ``moved``: the number of the latest move this figure shows (the browser sends the
    next one only then); ``label``: what a click on empty space adds; ``off``: why editing is off,
    or None."""

    points: list[list[float]]
    applied: dict[str, int]
    moved: int
    label: float
    off: str | None


class PlotHeader(TypedDict):
    """The JSON header of a plot payload (:func:`kernelviz.components.plot.payload`): ``payload.js``'s
    ``decode`` reads it and ``plot.js``'s default export draws it (``plotly``: the chunk it imports; ``drawing``:
    a figure drawn already is not handed to Plotly again)."""

    figure: dict
    config: dict
    plotly: str | None
    selectable: bool
    revision: str
    canvas: bool
    drawing: str
    live: LivePreview | None
    edit: EditInfo | None


class DrawStyle(TypedDict):
    """How the drawing canvas paints the points of one label, and names them in its legend (draw.js)."""

    label: float
    name: str
    marker: dict


class DrawData(TypedDict):
    """What the drawing canvas draws (:func:`kernelviz.components.draw.browser_data`), read by draw.js."""

    points: list[list[float]]
    applied: dict[str, int]
    range: list[float]
    label: float
    styles: list[DrawStyle]


class Finished(TypedDict):
    """What a poll's wait was for, once it is over (:func:`kernelviz.ui.live.finished`): the kind of
    lattice, and a value of its own per lattice and outcome (``sliders.js`` acts once on each)."""

    kind: str
    signal: str


class PollData(TypedDict):
    """What the poll component reads (:func:`kernelviz.components.poll.poll_data`, poll.js)."""

    run: int
    every_ms: int
    finished: Finished | None
    watch: str | None


#: Every payload type, by the name :func:`schema` and the JavaScript test use.
PAYLOADS = (PlotHeader, LivePreview, BrowserLattice, BrowserKernel, BrowserSupport, BrowserCodec, Panel, DrawData, DrawStyle,
            PollData, Finished)


def schema() -> dict:
    """Per payload type: ``{"required": keys, "optional": keys}``, each sorted."""
    return {kind.__name__: {"required": sorted(kind.__required_keys__), "optional": sorted(kind.__optional_keys__)}
            for kind in PAYLOADS}
