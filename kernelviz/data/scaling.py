"""Column scaling: none, min-max onto [0, 1], or z-scores."""

from __future__ import annotations

import numpy as np

from .._validation import check_points

SCALINGS = ("none", "minmax", "zscore")


def scaling_parameters(X, method):
    """Offset and factor of a scaling, so that ``X_scaled = (X - offset) / factor``.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The points the scaling is fitted on.
    method : {"none", "minmax", "zscore"}
        "minmax" maps each column onto [0, 1]; "zscore" gives each column mean 0 and
        standard deviation 1 (population std, ddof=0).

    Returns
    -------
    offset, factor : ndarray of shape (d,)
        A constant column gets factor 1, so it maps to 0 instead of NaN.
    """
    if method not in SCALINGS:
        raise ValueError(f"Unknown scaling {method!r}; choose one of: {', '.join(SCALINGS)}.")
    X = check_points(X, name="The data to fit the scaling on", min_points=0, allow_1d=False)
    if method == "none":
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    if method == "minmax":
        offset = X.min(axis=0)
        factor = X.max(axis=0) - offset
    else:
        offset = X.mean(axis=0)
        factor = X.std(axis=0)
    # a span too small to divide by safely counts as a constant column
    tiny = factor <= 1e-12 * np.maximum(1.0, np.abs(offset))
    factor[tiny] = 1.0
    return offset, factor


def scale(X, method, fit_on=None):
    """Scale the columns of ``X``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    method : {"none", "minmax", "zscore"}
    fit_on : array-like of shape (m, d), optional
        Points the scaling statistics come from (e.g. all points, labeled or not, when
        scaling a grid or a test set); default ``X`` itself.

    Returns
    -------
    ndarray of shape (n, d)
        ``(X - offset) / factor`` (see :func:`scaling_parameters`); constant columns
        become 0.
    """
    X = check_points(X, name="X", min_points=0, allow_1d=False)
    offset, factor = scaling_parameters(X if fit_on is None else fit_on, method)
    if len(offset) != X.shape[1]:
        raise ValueError(
            f"fit_on has {len(offset)} features but X has {X.shape[1]}; they must match."
        )
    return (X - offset) / factor
