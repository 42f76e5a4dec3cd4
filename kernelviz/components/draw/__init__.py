"""The drawing component: a canvas on which a click adds a point, painted at once by the browser.

A Streamlit v2 component (``st.components.v2``, no iframe). The browser keeps its own list of
points and paints a click before Python hears of it; the list then reaches Python as the state
``points`` = ``{"generation": g, "points": [[x, y, label], …]}``. Python changes the points
itself only through Undo and Clear, which bump the *generation*: a list sent by the browser
under an older generation is stale and ignored (see :func:`accepted_points`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable

import numpy as np

from kernelviz import figures as fg
from kernelviz.components import module_text
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


def browser_data(points: np.ndarray, *, value_range: tuple[float, float], label: float, generation: int) -> DrawData:
    """What the canvas draws: the points, the square's range, the label a click adds."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    return {"points": [[float(x), float(y), float(k)] for x, y, k in points],
            "range": [float(value_range[0]), float(value_range[1])], "label": float(label),
            "generation": int(generation), "styles": STYLES}


def accepted_points(state, generation: int) -> np.ndarray | None:
    """The points the browser sent, if they belong to this ``generation`` and are well formed.

    A list sent before an Undo or a Clear (an older generation) is stale: None. So is
    anything that is not a list of finite (x, y, label) rows with a label of +1, −1 or 0 —
    the state comes from the browser, which a person can edit.
    """
    if not isinstance(state, dict) or state.get("generation") != generation:
        return None
    try:
        points = np.asarray(state.get("points"), dtype=float).reshape(-1, 3)
    except (TypeError, ValueError):
        return None
    if not np.isfinite(points).all() or not np.isin(points[:, 2], (-1.0, 0.0, 1.0)).all():
        return None
    return points


def draw_canvas(points: np.ndarray, *, value_range: tuple[float, float], label: float, generation: int,
                key: str = "draw_canvas", on_change: Callable[[np.ndarray], None] | None = None) -> None:
    """Show the canvas; ``on_change(points)`` runs, before the rerun, when a click added a point."""
    import streamlit as st

    def changed() -> None:
        accepted = accepted_points(st.session_state[key].get("points"), generation)
        if accepted is not None and on_change is not None:
            on_change(accepted)

    _renderer()(key=key, data=browser_data(points, value_range=value_range, label=label, generation=generation),
                on_points_change=changed)
