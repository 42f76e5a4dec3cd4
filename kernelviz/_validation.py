"""Checks of user input at the package's boundary: one home for each kind of value.

Every check returns the value in the form the maths uses (float64 arrays, ``float``,
``int``) or raises a ``ValueError`` whose sentence says what was wrong and what to do.

``max_iter`` has one meaning everywhere (models, grid searches): a positive whole number
caps the solver's iterations, and -1 means no cap, as in libsvm and
:class:`sklearn.svm.SVC`.
"""

import numbers
import os
import stat
import tempfile
from pathlib import Path

import numpy as np

#: Label value marking a point whose class is unknown (only inside ``Dataset.y``). Here, the
#: bottom layer, because the checks refuse it in ``y``; ``kernelviz.data`` re-exports it.
UNLABELED = -9999


def check_seed(random_state):
    """A seed for ``np.random.default_rng``: a non-negative int, or None for a fresh one."""
    if random_state is None:
        return None
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) \
            or random_state < 0:
        raise ValueError(
            f"random_state must be a non-negative integer or None; got {random_state!r}."
        )
    return int(random_state)


def format_label(label):
    """A class label as a person writes it, for error messages.

    NumPy scalars lose their type wrapper (``1`` rather than ``np.float64(1.0)``),
    floats are written with ``:g`` (``1``, ``0.5``) and strings are quoted (``'yes'``).

    Parameters
    ----------
    label : object
        One class label.

    Returns
    -------
    str
    """
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, bool):
        return str(label)
    if isinstance(label, float):
        return f"{label:g}"
    if isinstance(label, (str, bytes)):
        return repr(label)
    return str(label)


def format_labels(labels):
    """Comma-separated :func:`format_label` of each label."""
    return ", ".join(format_label(label) for label in labels)


def check_points(X, *, name="X", min_points=1, allow_1d=True):
    """Return ``X`` as a finite 2-D float64 array, or raise a readable ``ValueError``.

    A 1-D array is read as one feature (``reshape(-1, 1)``) when ``allow_1d`` is true;
    otherwise it is refused, since it could as well be a single point.
    """
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must contain numbers only ({exc}).") from None
    if X.ndim == 1:
        if not allow_1d:
            raise ValueError(
                f"{name} must be a 2-D array of shape (n_points, n_features); got a 1-D array of shape {X.shape}. "
                f"Use {name}.reshape(-1, 1) for a single feature or {name}.reshape(1, -1) for a single point."
            )
        X = X.reshape(-1, 1)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n_points, n_features); got {X.ndim} dimensions.")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no features (0 columns).")
    if X.shape[0] < min_points:
        raise ValueError(f"{name} needs at least {min_points} point(s); got {X.shape[0]}.")
    if not np.all(np.isfinite(X)):
        bad = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(
            f"{name} contains NaN or infinite values (first at row {bad[0]}, column {bad[1]}); "
            "remove or impute them first."
        )
    return X


def check_positive(value, name, *, allow_zero=False):
    """A finite real number > 0 (≥ 0 with ``allow_zero``), as ``float``."""
    kind = "non-negative" if allow_zero else "positive"
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value)
            or value < 0 or (value == 0 and not allow_zero)):
        raise ValueError(f"{name} must be a {kind}, finite number; got {value!r}.")
    return float(value)


def check_count(value, name, *, minimum=1):
    """A whole number ≥ ``minimum``, as ``int``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be a whole number ≥ {minimum}; got {value!r}.")
    return int(value)


def check_max_iter(value):
    """An iteration cap: a positive whole number, or -1 for no cap (libsvm's convention)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value == 0 or value < -1:
        raise ValueError(f"max_iter must be a positive whole number, or -1 for no limit; got {value!r}.")
    return int(value)


def check_choice(value, name, choices):
    """One of ``choices``, unchanged."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}.")
    return value


def check_positive_grid(values, name):
    """A non-empty 1-D float64 array of positive, finite numbers (a grid axis such as Cs)."""
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of positive numbers; got {values!r}.") from None
    values = np.atleast_1d(values)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list of positive numbers; got shape {values.shape}.")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"Every value in {name} must be a positive, finite number; got {values.tolist()}.")
    return values


def check_labels(y, n_points, cv):
    """Labels of ``n_points`` labeled points, at least two classes with ``cv`` points each."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels; got shape {y.shape}.")
    if len(y) != n_points:
        raise ValueError(f"X has {n_points} points but y has {len(y)} labels; they must match.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite labels; every point passed as X needs a label.")
    if y.dtype.kind in "fiu" and np.any(y == UNLABELED):
        raise ValueError(
            f"y contains the unlabeled marker {UNLABELED}; pass unlabeled points through "
            "X_unlabeled instead."
        )
    if y.dtype.kind == "O" and any(label is None for label in y):
        raise ValueError("y contains missing labels (None); every point passed as X needs a label.")
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < 2:
        raise ValueError(f"y has a single class ({format_labels(classes)}); a classifier needs at least two.")
    if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"cv must be an integer of at least 2 (the number of folds); got {cv!r}.")
    smallest = int(np.argmin(counts))
    fewest = int(counts[smallest])
    if cv > fewest:
        advice = (f"Use cv ≤ {fewest}." if fewest >= 2 else
                  "Label at least one more point of that class (2-fold CV needs 2 per class), or leave the class out.")
        raise ValueError(
            f"cv={cv} folds need at least {cv} labeled points in every class, but class "
            f"{format_label(classes[smallest])} has only {fewest}. {advice}"
        )
    return y


def check_unlabeled(X_unlabeled, n_features):
    """Unlabeled points with the labeled points' ``n_features`` columns, or None."""
    if X_unlabeled is None:
        return None
    X_unlabeled = check_points(X_unlabeled, name="X_unlabeled", min_points=0)
    if X_unlabeled.shape[1] != n_features:
        raise ValueError(
            f"X_unlabeled has {X_unlabeled.shape[1]} features but X has {n_features}: both must describe the "
            "same features."
        )
    return X_unlabeled


def check_unit_interval(value, name):
    """A real number in [0, 1], as ``float``."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value)
            or not 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be a number between 0 and 1; got {value!r}.")
    return float(value)


def check_categorical_columns(columns, n_features):
    """The categorical columns of points with ``n_features`` columns, as a sorted int array.

    ``columns`` lists 0-based column numbers (None: none); at least one column must stay
    continuous, since the density model and the continuous distance are built on those.
    """
    try:
        given = [] if columns is None else list(columns)
    except TypeError:
        raise ValueError(f"categorical must be a list of column numbers; got {columns!r}.") from None
    for column in given:
        if isinstance(column, (bool, np.bool_)) or not isinstance(column, numbers.Integral):
            raise ValueError(f"categorical must list whole column numbers (0-based); got {column!r}.")
        if not 0 <= column < n_features:
            raise ValueError(f"categorical names column {column}, but the points have {n_features} columns, "
                             f"numbered 0 to {n_features - 1}.")
    categorical = np.unique(np.asarray(given, dtype=np.intp))
    if len(categorical) < len(given):
        raise ValueError(f"categorical lists a column twice: {given}; name each column once.")
    if len(categorical) == n_features:
        raise ValueError(f"categorical names all {n_features} columns, so no continuous column is left for the "
                         "density model and the continuous distance; leave at least one column out of the list.")
    return categorical


def check_output_path(path, option, *, folder=False, purpose="write into"):
    """``path`` as a ``Path`` if results can be written there, else a ``ValueError`` naming ``option``.

    Called before any work, so that a run is never lost to an output path that was wrong
    from the start. ``folder=False``: a file the results are written to, existing (a regular
    file) or not yet; ``folder=True``: a folder (``purpose`` says what for, "kernelviz can
    {purpose}"), existing or not yet.

    Nothing is created and nothing that exists is changed: where the target does not exist
    yet, a temporary file is created in the nearest folder that does, written one byte and
    removed again, which meets a missing permission, a read-only or a full file system; an
    existing file is opened for appending, which does not change it. Devices, pipes and
    sockets are refused without opening them: ``/dev/full`` opens fine and fails only at the
    first write, ``/dev/null`` swallows the results, and opening a pipe blocks until someone
    reads it.
    """
    path = Path(path)
    shown = repr(str(path))
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as exc:
        raise ValueError(f"{option}: cannot use {shown}: {exc.strerror or exc}.") from None
    if folder:
        if mode is not None and not stat.S_ISDIR(mode):
            raise ValueError(f"{option}: {shown} is not a folder kernelviz can {purpose} ({_kind(mode)}); "
                             "name a folder, new or existing.")
        _try_writing_in(path if mode is not None else _existing_ancestor(path, option, shown), option, shown)
        return path
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise ValueError(f"{option}: {shown} is a folder; name a file.")
        if not stat.S_ISREG(mode):
            raise ValueError(f"{option}: {shown} is not a file kernelviz can write results into ({_kind(mode)}); "
                             "name a regular file, new or existing.")
        try:
            with open(path, "ab"):  # "a": an existing file is not emptied by the check
                pass
        except OSError as exc:
            raise ValueError(f"{option}: cannot write {shown}: {exc.strerror or exc}.") from None
        return path
    _try_writing_in(_existing_ancestor(path, option, shown), option, shown)
    return path


def _kind(mode):
    if stat.S_ISREG(mode):
        return "it is a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device"
    if stat.S_ISFIFO(mode):
        return "it is a pipe"
    if stat.S_ISSOCK(mode):
        return "it is a socket"
    return "it is not a regular file"


def _existing_ancestor(path, option, shown):
    """The nearest folder above ``path`` that exists; a ``ValueError`` if that is a file."""
    ancestor = path.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(f"{option}: cannot write {shown}: {str(ancestor)!r} is a file, not a folder.")
    return ancestor


def _try_writing_in(folder, option, shown):
    """Create, write and remove a temporary file in ``folder``, or a ``ValueError`` saying why not."""
    try:
        handle, name = tempfile.mkstemp(prefix=".kernelviz-check-", dir=folder)
        try:
            os.write(handle, b"\0")  # a full file system refuses here, not at the open
        finally:
            os.close(handle)
            os.unlink(name)
    except OSError as exc:
        raise ValueError(f"{option}: cannot write {shown}: {exc.strerror or exc}.") from None
