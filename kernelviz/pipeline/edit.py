"""Editing the data where a figure draws them: points moved, added and removed.

An edited data set is drawn data (``source = "drawn"``, rows ``(x, y, label)`` with label 0 for
unlabeled): the first edit of generated, sample or uploaded data copies them as the figure shows
them (:func:`editable_points`). The copy is taken in the plot's coordinates with the scaling set
to none, so that a point stays exactly where it was dropped: kept in the raw coordinates under
z-scoring, moving one point would move the mean and the spread, and every other point with them.
Their classes become drawn labels (0 being unlabeled, a class 0 cannot keep its number) and keep
their names (:func:`editable_names`, the setting ``class_names``): "class 0", "setosa" as before.

An edit is one row ``(op, index, x, y, label)`` (:data:`OPS`); :func:`apply_edits` applies a list of
them in order, so that the browser and Python, applying the same list to the same points, hold
the same data. Nothing here imports Streamlit.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz.pipeline.data import VIEW_MAX_POINTS, Prepared

__all__ = ['EDIT_MAX_POINTS', 'OPS', 'edit_refusal', 'editable_points', 'editable_names', 'drawn_label', 'apply_edits',
           'parse_edit']

#: Above this many points a figure's points cannot be edited: each move refits every kernel on all
#: of them, and at 1,000 points on two cores a frame takes longer than a person waits for it.
EDIT_MAX_POINTS = 1000
#: What an edit does: move point ``index`` to (x, y); add a point at (x, y) with ``label``; remove ``index``.
OPS = ("move", "add", "remove")


def edit_refusal(prep: Prepared) -> str | None:
    """Why the points of ``prep`` cannot be edited on a figure, or None when they can."""
    if prep.projected:
        return (f"The figure shows {prep.d} features on their first two principal components: a point moved "
                "in this plane has no place in the others, so these data cannot be edited here.")
    if prep.sampled:
        return (f"The figure shows a sample of {len(prep.y):,} of {prep.n_total:,} points (at most "
                f"{VIEW_MAX_POINTS:,}): an edit would drop the rest, so these data cannot be edited here.")
    if len(prep.y) > EDIT_MAX_POINTS:
        return (f"{len(prep.y):,} points are more than the {EDIT_MAX_POINTS:,} that can be edited: every move "
                "refits each kernel on every point, too slowly to follow the pointer.")
    return None


def drawn_label(classes: Sequence[float], value: float) -> float:
    """The drawn label of class ``value`` among ``classes`` (sorted): the first class −1, the second +1
    (as the drawing canvas and every figure colour them), any further class 2, 3, …"""
    index = int(np.searchsorted(np.asarray(classes, dtype=float), value))
    return -1.0 if index == 0 else 1.0 if index == 1 else float(index)


def editable_points(prep: Prepared, drawn: bool) -> np.ndarray:
    """The points of ``prep`` as drawn data, rows ``(x, y, label)`` in the plot's coordinates and the
    data's order. ``drawn``: the data are drawn already, their labels stay as they are; other
    data's classes become drawn labels (:func:`drawn_label`). A label hidden by the sidebar's
    *Labeled points* is kept: that choice applies to the edited data as to the original ones.
    """
    if edit_refusal(prep) is not None:
        raise ValueError(edit_refusal(prep))
    known = prep.y_true != kv.data.UNLABELED
    labels = np.zeros(len(prep.y_true))
    if drawn:
        labels[known] = prep.y_true[known]
    else:
        classes = np.unique(prep.y_true[known])
        labels[known] = [drawn_label(classes, value) for value in prep.y_true[known]]
    return np.column_stack([prep.X_view, labels])


def editable_names(prep: Prepared, drawn: bool) -> dict[float, str] | None:
    """The names of the classes of :func:`editable_points`, by drawn label: each class named as the
    figures named it before the copy (:attr:`Prepared.shown_class_names`), so that the same points
    keep their names, colours and legend order. None when the drawn labels' own names are those
    (−1 and +1 data); ``drawn``: the names the drawn data carry already.
    """
    if drawn:
        return prep.class_names
    shown = prep.shown_class_names
    classes = sorted(shown)
    names = {drawn_label(classes, label): name for label, name in shown.items()}
    return None if names == fg.class_names(list(names)) else names


def parse_edit(row) -> tuple[str, int, float, float, float]:
    """One edit from the browser, ``[op, index, x, y, label]``, checked: a ValueError says what is wrong
    (the state comes from the browser, which a person can change)."""
    if not isinstance(row, (list, tuple)) or len(row) != 5 or row[0] not in OPS:
        raise ValueError(f"An edit is [op, index, x, y, label] with op one of {', '.join(OPS)}; got {row!r:.80}.")
    op = row[0]
    try:
        index, x, y, label = int(row[1]), float(row[2]), float(row[3]), float(row[4])
    except (TypeError, ValueError):
        raise ValueError(f"An edit's index, x, y and label are numbers; got {row!r:.80}.") from None
    if not (np.isfinite(x) and np.isfinite(y)) or label != round(label):
        raise ValueError(f"An edit's x and y are finite numbers and its label a whole one; got {row!r:.80}.")
    return op, index, x, y, label


def apply_edits(points: np.ndarray, edits: Sequence) -> np.ndarray:
    """``points`` (rows x, y, label) after ``edits``, applied in order; an edit of a point that is not
    there (an index out of range, after an Undo that came first) is skipped.

    >>> apply_edits(np.array([[0., 0., 1.], [1., 1., -1.]]),
    ...             [["move", 0, 0.5, 0.5, 0], ["add", -1, 2, 2, 0], ["remove", 1, 0, 0, 0]]).tolist()
    [[0.5, 0.5, 1.0], [2.0, 2.0, 0.0]]
    """
    points = np.asarray(points, dtype=float).reshape(-1, 3).copy()
    for row in edits:
        op, index, x, y, label = parse_edit(row)
        if op == "add":
            points = np.vstack([points, [x, y, label]])
        elif 0 <= index < len(points):
            if op == "move":
                points[index, :2] = (x, y)
            else:
                points = np.delete(points, index, axis=0)
    return points
