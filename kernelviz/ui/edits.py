"""Editing the data on the figures of Decision boundaries, Similarity and Partition.

The browser (``kernelviz/components/plot/edit.js``) moves a dragged point under the pointer at
once, and sends the plot component's state ``edit`` = ``{"token", "edits", "moving"}``:
``edits`` are the page's numbered edits Python has not applied yet (``[number, op, index, x, y,
label]``, :func:`kernelviz.pipeline.apply_edits`), applied exactly once and in order as the
drawing canvas's clicks are (:func:`kernelviz.components.outbox.unapplied`); ``moving`` is the
point being dragged, ``{"seq", "index", "x", "y"}``, or None. The callback (:func:`received`)
applies the edits to the points the last figure showed (they become the session's drawn data) and
keeps the move; the view's run that follows is the pipeline's every stage on the data with the
point where it is now (:func:`moving_settings`), at the preview resolution and past the caches
(``kernelviz.ui.caches.transient``): a refit is the same stages on other data, not a copy of them.
The browser sends the next position only once this figure is drawn, so refits never queue.

The copy keeps its classes' names (``class_names``, :func:`kernelviz.pipeline.editable_names`): the
same points are named, coloured and ordered as before. Undo and Redo put back the data (source,
points, names, scaling) as they were before an edit.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from kernelviz import pipeline, registry
from kernelviz.components.outbox import unapplied
from kernelviz.outside import plain
from kernelviz.protocol import EditInfo
from kernelviz.session import write_settings
from kernelviz.ui import caches, teach

#: The views whose figures' points can be edited (their rows in ``registry.VIEWS``).
EDITABLE_VIEWS = tuple(view for view, facts in registry.VIEWS.items() if facts.editable)
#: Which of the page's edits the data hold: {token: number of the last one applied}.
APPLIED_KEY = "_edit_applied"
#: The points the last editable figure showed, as drawn data (what the edits' indices count).
BASE_KEY = "_edit_base"
#: The names of their classes, by drawn label (the setting ``class_names`` of the edited data).
BASE_NAMES_KEY = "_edit_base_names"
#: The point being dragged: (seq, index, x, y), or None.
MOVING_KEY = "_edit_moving"
#: The data before each edit (latest last) and after each undone one.
UNDO_KEY, REDO_KEY = "_edit_undo", "_edit_redo"
#: Set when an edit changed a setting the sidebar shows (the source, the scaling): the page reruns.
RERUN_KEY = "_edit_rerun_page"
#: The widget that chooses what a click on empty space adds.
ADD_KEY = "edit_add"
#: The settings an edit changes, and Undo puts back.
DATA_SETTINGS = ("source", "points", "class_names", "scaling")
#: (spec, partition) last shown: a dragged point's next frame refits from it, and a fresh fit takes
#: its components' order.
PARTITION_KEY = "_edit_partition"
#: The teacher's link word that switches editing off (``hide=edit``).
HIDE_WORD = "edit"


def refusal(prep: pipeline.Prepared) -> str | None:
    """Why this page's figures cannot be edited, or None."""
    if HIDE_WORD in (st.session_state.get("hide") or ()):
        return "Editing the data is switched off by this page's link."
    return pipeline.edit_refusal(prep)


def add_kinds(prep: pipeline.Prepared) -> dict[str, float]:
    """What a click on empty space can add: each class (named as the legend names it) and unlabeled,
    as drawn labels."""
    own = prep.class_names or {}
    names = {c: plain(name) if c in own else name for c, name in prep.shown_class_names.items()}
    classes = sorted(names)
    drawn = st.session_state.get("source") == "drawn"
    kinds = {names[c]: (c if drawn else pipeline.drawn_label(classes, c)) for c in classes}
    if drawn:  # the canvas's own classes, also when no point of one is left (named as the data name them)
        for label, name in ((-1.0, "class −1"), (1.0, "class +1")):
            if label not in kinds.values():
                kinds[plain(own[label]) if label in own else name] = label
    kinds["unlabeled"] = 0.0
    return kinds


def controls(prep: pipeline.Prepared) -> None:
    """Above an editable figure: what a click adds, Undo and Redo, and how to edit — or why not."""
    reason = refusal(prep)
    if reason is not None:
        st.caption(plain(reason))
        return
    kinds = add_kinds(prep)
    if st.session_state.get(ADD_KEY) not in kinds:
        st.session_state[ADD_KEY] = next(iter(kinds))
    c1, c2, c3, c4 = st.columns([3, 4, 1, 1], vertical_alignment="center")
    c1.segmented_control("A click on empty space adds", tuple(kinds), key=ADD_KEY, required=True)
    c2.caption("Drag any point to move it: every kernel follows. Right-click (or Alt-click) a point to remove it.")
    c3.button("Undo", key="edit_undo", disabled=not st.session_state.get(UNDO_KEY), on_click=undo, width="stretch",
              help="Put the data back as they were before the last edit.")
    c4.button("Redo", key="edit_redo", disabled=not st.session_state.get(REDO_KEY), on_click=redo, width="stretch",
              help="Make the last undone edit again.")


def browser_edit(prep: pipeline.Prepared) -> EditInfo:
    """What the figure's browser side needs to edit its points (kernelviz.protocol.EditInfo); the points
    are kept as the base the next edits apply to."""
    reason = refusal(prep)
    moving = st.session_state.get(MOVING_KEY)
    if reason is not None:
        return {"points": [], "applied": {}, "moved": 0, "label": 0.0, "off": reason}
    if moving is None:  # while a point moves, the base stays the data the move started from
        drawn = st.session_state.get("source") == "drawn"
        st.session_state[BASE_KEY] = pipeline.editable_points(prep, drawn=drawn)
        st.session_state[BASE_NAMES_KEY] = pipeline.editable_names(prep, drawn=drawn)
    base = st.session_state[BASE_KEY]
    kinds = add_kinds(prep)
    return {"points": np.asarray(base, dtype=float).tolist(),
            "applied": dict(st.session_state.get(APPLIED_KEY) or {}),
            "moved": int(moving[0]) if moving else 0,
            "label": float(kinds.get(st.session_state.get(ADD_KEY), next(iter(kinds.values())))),
            "off": None}


def received(state) -> None:
    """The figure's callback, before the view's run: new edits become the data; a move is kept for the run."""
    found = unapplied(state, st.session_state.get(APPLIED_KEY) or {}, "edits")
    if found is None:
        return
    rows, st.session_state[APPLIED_KEY] = found
    base = st.session_state.get(BASE_KEY)
    if base is None:
        return
    if rows:
        try:
            points = pipeline.apply_edits(base, [row[1:] for row in rows])
        except ValueError:
            return  # not the browser's own state: nothing is applied
        commit(points)
    st.session_state[MOVING_KEY] = parse_moving(state.get("moving"), len(st.session_state.get(BASE_KEY, ())))


def parse_moving(moving, n_points: int) -> tuple[int, int, float, float] | None:
    """(seq, index, x, y) of the browser's ``moving``, or None when there is none or it is not well formed."""
    if not isinstance(moving, dict):
        return None
    try:
        seq, index, x, y = int(moving["seq"]), int(moving["index"]), float(moving["x"]), float(moving["y"])
    except (KeyError, TypeError, ValueError):
        return None
    if not (0 <= index < n_points and np.isfinite(x) and np.isfinite(y)):
        return None
    return seq, index, x, y


def moving_settings(values: dict) -> dict | None:
    """The settings of the data with the dragged point where it is now, or None when none moves."""
    moving, base = st.session_state.get(MOVING_KEY), st.session_state.get(BASE_KEY)
    if moving is None or base is None:
        return None
    _, index, x, y = moving
    points = pipeline.apply_edits(base, [["move", index, x, y, 0]])
    return {**values, **_drawn(points)}


def partition_start(spec: pipeline.PartitionSpec):
    """The fit a dragged point's frame refits from (None outside a drag, or for another spec)."""
    kept = st.session_state.get(PARTITION_KEY)
    return kept[1] if kept is not None and kept[0] == spec and caches.previewing() else None


def keep_partition(spec: pipeline.PartitionSpec, partition):
    """``partition`` as the view shows it, kept for the next frame. A fresh fit (the one a link to these
    data gives; after a release, or any other change) comes in the order of the components shown
    before, so that none changes colour: the order is the session's, the mathematics the same."""
    kept = st.session_state.get(PARTITION_KEY)
    if not caches.previewing() and kept is not None and kept[0] == spec:
        partition = pipeline.matched(partition, kept[1])
    st.session_state[PARTITION_KEY] = (spec, partition)
    return partition


def commit(points: np.ndarray) -> None:
    """The data become ``points`` (drawn, unscaled, their classes named as before), the data before
    kept for Undo."""
    st.session_state.setdefault(UNDO_KEY, []).append(_data_now())
    st.session_state[REDO_KEY] = []
    data = _drawn(points)
    _set_data(data)
    # what the next edits count in (their figure draws just these)
    st.session_state[BASE_KEY], st.session_state[BASE_NAMES_KEY] = points, data["class_names"]


def _drawn(points: np.ndarray) -> dict:
    """The data settings of ``points`` edited from the base: drawn, unscaled, the base's class names."""
    return {"source": "drawn", "points": points, "class_names": st.session_state.get(BASE_NAMES_KEY),
            "scaling": "none"}


def undo() -> None:
    """Undo (its callback): the data before the last edit come back."""
    if st.session_state.get(UNDO_KEY):
        st.session_state.setdefault(REDO_KEY, []).append(_data_now())
        _set_data(st.session_state[UNDO_KEY].pop())


def redo() -> None:
    """Redo (its callback): the last undone edit is made again."""
    if st.session_state.get(REDO_KEY):
        st.session_state.setdefault(UNDO_KEY, []).append(_data_now())
        _set_data(st.session_state[REDO_KEY].pop())


def _data_now() -> dict:
    return {name: st.session_state.get(name) for name in DATA_SETTINGS}


def _set_data(data: dict) -> None:
    before = _data_now()
    write_settings(st.session_state, data)
    st.session_state[MOVING_KEY] = None
    st.session_state.pop(BASE_KEY, None)  # the next figure's points are the base of the next edits
    st.session_state.pop(BASE_NAMES_KEY, None)
    # the sidebar shows the source and the scaling, an open lesson's panel (above the view) the view's
    # numbers: the page reruns, not only the view
    if (before["source"], before["scaling"]) != (data["source"], data["scaling"]) or teach.lesson_open():
        st.session_state[RERUN_KEY] = True


def rerun_wanted() -> bool:
    """Whether an edit asked for the page to rerun (read once, at the start of the view's run)."""
    return bool(st.session_state.pop(RERUN_KEY, False))
