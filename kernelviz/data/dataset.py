"""The ``Dataset`` container, the ``UNLABELED`` marker, the size limits, and the checks
every part of :mod:`kernelviz.data` shares (points, seeds, labels as text)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .._validation import UNLABELED, check_points, check_seed  # noqa: F401 - re-exported

MAX_ROWS = 200_000
"""Most data rows :func:`read` accepts (and :func:`make` generates)."""

MAX_CELLS = 20_000_000
"""Most values (rows × columns) :func:`read` accepts; a dense ``X`` of 160 MB."""


@dataclass(eq=False)  # element-wise array comparison has no single truth value
class Dataset:
    """A data set: points, their labels (some possibly unknown), and names.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The points; converted to float64. Every value must be finite.
    y : array-like of shape (n,) or None
        Numeric labels, converted to float64, with ``UNLABELED`` for points whose
        class is unknown; ``None`` when no point has a label.
    name : str
        A short name shown in the app (a sample name, or the file's stem).
    feature_names : list of str
        One name per column of ``X``; ``x1, x2, …`` when omitted.
    class_names : dict of float to str, optional
        The name of each class, by its numeric label (e.g. ``{0.0: "cat", 1.0: "dog"}``)
        when the labels were names in the file; ``None`` for numeric labels.
    """

    X: np.ndarray
    y: np.ndarray | None = None
    name: str = "data"
    feature_names: list[str] = field(default_factory=list)
    class_names: dict[float, str] | None = None

    def __post_init__(self):
        self.X = check_points(self.X, name="X", min_points=0, allow_1d=False)
        if self.y is not None:
            self.y = np.asarray(self.y, dtype=np.float64)
            if self.y.ndim != 1 or len(self.y) != len(self.X):
                raise ValueError(
                    f"y must be a 1-D array with one label per point: X has {len(self.X)} "
                    f"points, y has shape {self.y.shape}."
                )
            if not np.all(np.isfinite(self.y)):
                raise ValueError(
                    "y contains NaN or infinite labels; mark unknown labels with "
                    f"kernelviz.data.UNLABELED ({UNLABELED})."
                )
        if not self.feature_names:
            self.feature_names = [f"x{j + 1}" for j in range(self.X.shape[1])]
        self.feature_names = [str(name) for name in self.feature_names]
        if len(self.feature_names) != self.X.shape[1]:
            raise ValueError(
                f"feature_names has {len(self.feature_names)} names but X has "
                f"{self.X.shape[1]} columns."
            )
        if self.class_names is not None:
            self.class_names = _check_class_names(self.class_names, self.classes, self.y)

    @property
    def n(self) -> int:
        """Number of points."""
        return self.X.shape[0]

    @property
    def d(self) -> int:
        """Number of features."""
        return self.X.shape[1]

    @property
    def labeled_mask(self) -> np.ndarray:
        """Boolean array, True where the point has a label."""
        if self.y is None:
            return np.zeros(self.n, dtype=bool)
        return self.y != UNLABELED

    @property
    def classes(self) -> np.ndarray:
        """Sorted distinct labels of the labeled points (float64, possibly empty)."""
        if self.y is None:
            return np.empty(0)
        return np.unique(self.y[self.labeled_mask])

    def split_labeled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split into the labeled part and the unlabeled points.

        Returns
        -------
        X_labeled : ndarray of shape (n_labeled, d)
        y_labeled : ndarray of shape (n_labeled,)
        X_unlabeled : ndarray of shape (n - n_labeled, d)
            What the models take as ``X_unlabeled=``.
        """
        mask = self.labeled_mask
        y_labeled = self.y[mask] if self.y is not None else np.empty(0)
        return self.X[mask], y_labeled, self.X[~mask]


def _check_class_names(class_names, classes, y):
    """``class_names`` with float keys and str values, naming every class of ``y`` once."""
    if y is None:
        raise ValueError("class_names given, but the data set has no labels to name.")
    if not isinstance(class_names, Mapping):
        raise ValueError(
            "class_names must map each class (its numeric label) to a name, e.g. "
            f"{{0: 'cat', 1: 'dog'}}; got {class_names!r}."
        )
    checked = {float(label): str(name) for label, name in class_names.items()}
    for label in classes:
        if label not in checked:
            raise ValueError(f"class {format_label(label)} has no name in class_names {checked!r}.")
    repeated = [name for name, count in Counter(checked.values()).items() if count > 1]
    if repeated:
        raise ValueError(f"In class_names, the name {repeated[0]!r} is given to more than one class.")
    return checked


def require_classes(y, at_least=2):
    """Check that the labeled points cover enough classes, and return those classes.

    Models call this before training.

    Parameters
    ----------
    y : array-like of shape (n,) or None
        Labels, with ``UNLABELED`` for unknown ones.
    at_least : int, default=2
        Number of distinct classes required among the labeled points.

    Returns
    -------
    classes : ndarray
        The sorted distinct labels present.

    Raises
    ------
    ValueError
        If fewer than ``at_least`` classes have a labeled point.
    """
    if y is None:
        raise ValueError(
            f"This needs labeled points from at least {at_least} classes, but the data "
            "has no labels at all."
        )
    y = np.asarray(y, dtype=np.float64).ravel()
    labeled = y[y != UNLABELED]
    classes = np.unique(labeled)
    if len(classes) < at_least:
        if len(labeled) == 0:
            found = "no point is labeled"
        else:
            shown = ", ".join(format_label(c) for c in classes)
            found = (
                f"the {len(labeled)} labeled point(s) all belong to "
                f"{'class' if len(classes) == 1 else 'classes'} {shown}"
            )
        raise ValueError(
            f"This needs labeled points from at least {at_least} classes, but {found}; "
            "label some points of another class."
        )
    return classes


def format_label(value) -> str:
    """A label as text: whole numbers without ".0" (-1, 1), others with full precision."""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)
