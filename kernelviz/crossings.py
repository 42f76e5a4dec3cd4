"""Where a panel's lines cross its grid's edges, found on the function itself, not between its grid values.

The plot component draws a level line of a field by marching squares (``components/plot/contours.js``):
through each cell, a segment between the points where the line crosses the cell's edges. Placed by
linear interpolation between an edge's two grid values, those points are right only where the field
is linear across a cell. A kernel machine's f is not: two points' RBF boundary is the straight
bisector, but f = α (k(x, a) − k(x, b)) grows or fades by a factor e^(2γ |x − m| h) across a cell of
width h, and the interpolated crossing is pulled toward the edge's fainter end by up to half a cell
— a zigzag along the line with the cells' period (1.8 px at 1920 × 1080 on the RWM paper's Fig. 1,
where the cells are 10 px). A finer grid only shrinks it (as h²) and costs every cell.

So the crossings are found where the function is: every edge whose ends lie on either side of a
level is evaluated at its quarters by the model's own f (every edge of every level in one call), and
the crossing interpolated linearly within the quarter that holds it, where f is nearly linear (its
error ~1/16 of the grid's: two points' RBF boundary within 0.01 of a cell of their bisector at
γ = 20). A class field (the predicted class, a partition's largest responsibility) has no values
between its grid points: its crossings are where the class changes along the edge, bisected
(``CLASS_SPLITS``).

An edge is keyed as ``contours.js`` keys it: ``2 (j nx + i)`` the edge from grid point (i, j) to
(i + 1, j), ``2 (j nx + i) + 1`` the edge from (i, j) to (i, j + 1); its crossing ``t`` is the
fraction of the way from (i, j). The figure hands them to the component beside the field
(``kernelviz.figures``, a trace's ``meta``), which draws each line and each class's region through
them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

#: How each round divides an edge's bracket (into m + 1 parts, at m points evaluated together, every
#: crossed edge of every level in one call), before the linear interpolation within the last: the
#: quarters. A second round (the eighths) halved the error again, 0.009 → 0.002 of a cell at γ = 20,
#: for a call more a panel (a call costs ~0.5–1 ms before its first point; a committed step's four
#: panels spent ~28 ms CPU on their crossings with it, ~23 without).
SPLITS = (3,)
#: … where a class changes (no values to interpolate: the crossing is the last bracket's middle,
#: within 1/128 of a cell).
CLASS_SPLITS = (3, 3, 3)


def _edges(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every edge of a grid of ``shape`` (ny, nx): its key, and the flat indices of its two ends."""
    ny, nx = shape
    index = np.arange(ny * nx).reshape(ny, nx)
    start_h, end_h = index[:, :-1].ravel(), index[:, 1:].ravel()
    start_v, end_v = index[:-1, :].ravel(), index[1:, :].ravel()
    starts = np.concatenate([start_h, start_v])
    ends = np.concatenate([end_h, end_v])
    keys = np.concatenate([2 * start_h, 2 * start_v + 1])
    return keys, starts, ends


def _points(xs: np.ndarray, ys: np.ndarray, starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The points a fraction ``t`` (edges × m) of the way along each edge, in the grid's (view)
    coordinates: (edges · m, 2), edge by edge."""
    nx = len(xs)
    x0, y0 = xs[starts % nx][:, None], ys[starts // nx][:, None]
    x1, y1 = xs[ends % nx][:, None], ys[ends // nx][:, None]
    return np.column_stack([(x0 + t * (x1 - x0)).ravel(), (y0 + t * (y1 - y0)).ravel()])


def _narrow(xs, ys, starts, ends, start_values, end_values, splits, evaluate, beyond):
    """Each edge's bracket of the change, narrowed round by round: ``beyond(values, start_values)``
    tells the values past the change (their side is no longer the start's). Returns the bracket's
    ends (fractions) and the values there."""
    n = len(starts)
    low, high = np.zeros(n), np.ones(n)
    v_low, v_high = np.asarray(start_values).copy(), np.asarray(end_values).copy()
    rows = np.arange(n)
    for m in splits if n else ():
        t = low[:, None] + (high - low)[:, None] * (np.arange(1, m + 1) / (m + 1))[None, :]
        values = np.asarray(evaluate(_points(xs, ys, starts, ends, t))).reshape(n, m)
        past = beyond(values, v_low[:, None])
        # the first point past the change, or the bracket's end where none is
        first = np.where(past.any(axis=1), past.argmax(axis=1), m)
        ts = np.concatenate([low[:, None], t, high[:, None]], axis=1)
        vs = np.concatenate([v_low[:, None], values.astype(v_low.dtype), v_high[:, None]], axis=1)
        low, high = ts[rows, first], ts[rows, first + 1]
        v_low, v_high = vs[rows, first], vs[rows, first + 1]
    return low, high, v_low, v_high


def level_crossings(xs, ys, z, levels, evaluate: Callable[[np.ndarray], np.ndarray]
                    ) -> dict[float, tuple[np.ndarray, np.ndarray]]:
    """Where the level lines ``f = level`` cross the grid's edges.

    Parameters
    ----------
    xs, ys : arrays of shape (nx,), (ny,)
        The grid's coordinates.
    z : array of shape (ny, nx)
        f at the grid points (NaN where there is none: no edge to it is crossed).
    levels : sequence of float
    evaluate : callable
        ``points (m, 2) → f at them``, in the grid's coordinates.

    Returns
    -------
    dict
        level → (keys, t): each edge whose ends lie on either side of the level as marching squares
        sees them (one at or above it, one below), and the crossing's fraction along it (within
        [0, 1]).
    """
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    values = np.asarray(z, float).ravel()
    keys, starts, ends = _edges(np.shape(z))
    v0, v1 = values[starts], values[ends]
    finite = np.isfinite(v0) & np.isfinite(v1)
    chosen = [finite & ((v0 >= level) != (v1 >= level)) for level in levels]
    which = np.concatenate([np.flatnonzero(c) for c in chosen]).astype(int) if chosen else np.zeros(0, int)
    level_of = np.repeat(np.asarray(levels, float), [int(c.sum()) for c in chosen])

    def beyond(f, f_start):  # past the crossing: on the other side of the edge's level than its start
        level = level_of[:, None]
        with np.errstate(invalid="ignore"):
            return np.isfinite(f) & ((f >= level) != (f_start >= level))

    low, high, f_low, f_high = _narrow(xs, ys, starts[which], ends[which], v0[which], v1[which], SPLITS,
                                       evaluate, beyond)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(f_high != f_low, (level_of - f_low) / (f_high - f_low), 0.5)
    t = low + np.clip(np.nan_to_num(share, nan=0.5), 0.0, 1.0) * (high - low)
    found, at = {}, 0
    for level, c in zip(levels, chosen):
        count = int(c.sum())
        found[float(level)] = (keys[which[at:at + count]].astype(np.int64), t[at:at + count])
        at += count
    return found


def class_crossings(xs, ys, classes, predict: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Where the class changes along the grid's edges (a class field's region borders).

    Parameters
    ----------
    xs, ys : arrays of shape (nx,), (ny,)
    classes : array of shape (ny, nx)
        The class at each grid point (any comparable values).
    predict : callable
        ``points (m, 2) → the class at them``, as ``classes`` holds it.

    Returns
    -------
    (keys, t)
        Each edge whose ends differ, and where along it the class of its start ends.
    """
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    values = np.asarray(classes).ravel()
    keys, starts, ends = _edges(np.shape(classes))
    crossed = values[starts] != values[ends]
    keys, starts, ends = keys[crossed], starts[crossed], ends[crossed]
    low, high, _, _ = _narrow(xs, ys, starts, ends, values[starts], values[ends], CLASS_SPLITS, predict,
                              lambda c, own: c != own)
    return keys.astype(np.int64), (low + high) / 2
