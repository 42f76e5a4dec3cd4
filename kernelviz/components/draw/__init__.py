"""The drawing component: a canvas on which a click adds a point, painted at once by the browser.

A Streamlit v2 component (``st.components.v2``, no iframe). The browser paints a click before
Python hears of it; the click then reaches Python in the state ``points`` =
``{"token": t, "clicks": [[number, x, y, label], …]}``: every click of that page's canvas (``t``)
that Python had not applied when it was sent, numbered in the order they were made (draw.js,
../outbox.js). Python appends the clicks numbered past the last one it applied (:func:`new_clicks`)
to the points it holds and says which it has applied in the canvas's data (``applied``); the
browser shows Python's points followed by its clicks still on their way.

Not a whole list of points: Streamlit keeps only the latest value of the state when requests
meet, and Python changes the points itself (Undo, Clear). A list sent before an Undo had reached
the page was either turned away as stale — the click after the Undo lost — or taken — the Undo
lost (tests/test_draw_browser.py). Numbered clicks are applied exactly once, in order, on top of
whatever Python holds.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from kernelviz import figures as fg
from kernelviz.components import module_text
from kernelviz.components.outbox import unapplied
from kernelviz.protocol import DrawData

FRONTEND = Path(__file__).resolve().parent
COMPONENT_NAME = "kernelviz.draw"
#: How the canvas draws each label, in the legend's order: each point as every figure draws such a
#: point (:func:`kernelviz.figures.point_marker`; −1 is the first class, +1 the second), a little
#: larger, since a click places it.
POINT_SIZE = 12
STYLES = [
    {"label": 1.0, "name": "class +1", "marker": fg.point_marker(1, size=POINT_SIZE)},
    {"label": -1.0, "name": "class −1", "marker": fg.point_marker(0, size=POINT_SIZE)},
    {"label": 0.0, "name": "unlabeled", "marker": fg.point_marker(None, size=POINT_SIZE)},
]


@functools.cache
def _renderer():
    import streamlit as st

    return st.components.v2.component(COMPONENT_NAME, js=module_text(FRONTEND / "draw.js"),
                                      css=(FRONTEND / "draw.css").read_text(encoding="utf-8"))


def browser_data(points: np.ndarray, *, value_range: tuple[float, float], label: float,
                 applied: Mapping[str, int]) -> DrawData:
    """What the canvas draws: the points, which of its clicks they hold, the square's range, the
    label a click adds."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    return {"points": [[float(x), float(y), float(k)] for x, y, k in points],
            "applied": {str(token): int(number) for token, number in applied.items()},
            "range": [float(value_range[0]), float(value_range[1])], "label": float(label), "styles": STYLES}


def new_clicks(state, applied: Mapping[str, int]) -> tuple[np.ndarray, dict[str, int]] | None:
    """The clicks in the browser's ``state`` that Python has not applied yet, as (x, y, label) rows
    in the order they were made, and what is applied once they are
    (:func:`kernelviz.components.outbox.unapplied`).

    None for a state that is not well formed (see ``unapplied``), or clicks that are not rows of a
    number and finite x, y with a label of +1, −1 or 0 (the state comes from the browser, which a
    person can edit).
    """
    found = unapplied(state, applied, "clicks")
    if found is None:
        return None
    rows, done = found
    try:
        clicks = np.asarray(rows, dtype=float).reshape(-1, 4)
    except (TypeError, ValueError):
        return None
    if not np.isfinite(clicks).all() or not np.isin(clicks[:, 3], (-1.0, 0.0, 1.0)).all():
        return None
    return clicks[:, 1:], done


def draw_canvas(points: np.ndarray, *, value_range: tuple[float, float], label: float,
                applied: Mapping[str, int], key: str = "draw_canvas",
                on_change: Callable[[object], None] | None = None) -> None:
    """Show the canvas; ``on_change(state)`` runs, before the rerun, with the browser's state when a
    click was sent (its new clicks: :func:`new_clicks`, against what the session has applied *then*,
    not what this run had: the callback runs in a later run)."""
    import streamlit as st

    def changed() -> None:
        if on_change is not None:
            on_change(st.session_state[key].get("points"))

    _renderer()(key=key, data=browser_data(points, value_range=value_range, label=label, applied=applied),
                on_points_change=changed)
