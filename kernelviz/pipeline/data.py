"""The data stage: a data set scaled, projected, labeled and split as every view needs it,
and the checks on what the app is handed (uploads, generator parameters).

Nothing here imports Streamlit or scikit-learn at import time.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import state as kvstate
from kernelviz.pipeline.specs import DataSpec

__all__ = ['VIEW_MAX_POINTS', 'NoDataYet', 'bundled_dataset', 'drawn_dataset', 'Prepared', 'prepare_dataset',
           'stratified_sample', 'holdout', 'default_reference', 'check_upload', 'POSITIVE_PARAMETER_MIN',
           'APP_PARAMETER_LIMITS', 'generator_param_bounds', 'check_generator_params', 'load', 'prepare',
           'prepared']

#: The most points the views compute with. Their kernels build n × n matrices (20,000
#: uploaded points took 410 s and 10.7 GB in the Decision boundaries view); beyond this
#: many, the views work on a stratified sample. Measured with benchmarks/bench_upload.py
#: (one session through every view and a grid search, 20,000 uploaded points): a cap of
#: 3,000 peaked at 860 MB, 2,000 at 575 MB (the Decision boundaries view in 1.7 s).
#: The CLI and ``kv.evaluation`` use every point.
VIEW_MAX_POINTS = 2000



class NoDataYet(ValueError):
    """The chosen source has nothing yet (no file uploaded, no point drawn): not an error of the user."""


def bundled_dataset(name: str) -> kv.data.Dataset:
    """A sample data set by name; ``"iris-2class"`` is scikit-learn's Iris, setosa vs versicolor.

    Parameters
    ----------
    name : str
        ``"iris-2class"`` or a name of ``kv.data.SAMPLES``.

    Returns
    -------
    kv.data.Dataset
    """
    if name == "iris-2class":
        from sklearn.datasets import load_iris

        iris = load_iris()
        keep = iris.target < 2
        return kv.data.Dataset(iris.data[keep], iris.target[keep].astype(float), name="iris-2class",
                               feature_names=[f.replace(" (cm)", "") for f in iris.feature_names])
    return kv.data.load(name)


def drawn_dataset(points: np.ndarray, class_names: Mapping[float, str] | None = None) -> kv.data.Dataset:
    """The points drawn on the canvas as a data set; label 0 means unlabeled.

    Parameters
    ----------
    points : array of shape (n, 3)
        Rows ``(x, y, label)`` with label ±1 or 0 (2, 3, … for the further classes of copied data).
    class_names : mapping of label → name, optional
        The setting ``class_names``: the names the classes had where the points were copied from
        (:func:`kernelviz.pipeline.editable_names`), which the figures keep; None: named by label.

    Returns
    -------
    kv.data.Dataset

    Raises
    ------
    NoDataYet
        When no point has been drawn.
    ValueError
        When ``class_names`` leaves a drawn class without a name.
    """
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if len(points) == 0:
        raise NoDataYet("No points drawn yet: click on the canvas in the Data view to add some.")
    y = np.where(points[:, 2] == 0, kv.data.UNLABELED, points[:, 2])
    return kv.data.Dataset(points[:, :2], y, name="drawn", class_names=dict(class_names) if class_names else None)


@dataclass(frozen=True)
class Prepared:
    """The data as every view needs it.

    ``X_model`` is what kernels and partitions see; ``X_view`` what plots show (the same
    for 2-D data; a PCA projection for d > 2). With ``fit_on == "full"`` the model works
    in all d features and points of the plane are mapped back through the PCA.
    """

    name: str
    key: str
    X_raw: np.ndarray          # the features as loaded, for downloads
    X_model: np.ndarray
    X_view: np.ndarray
    y: np.ndarray              # UNLABELED where a label is hidden or unknown
    y_true: np.ndarray         # the labels before any were hidden (UNLABELED where unknown)
    train: np.ndarray          # bool: labeled points the SVM trains on
    test: np.ndarray           # bool: labeled points held out
    classes: np.ndarray
    feature_names: tuple
    d: int
    pca_mean: np.ndarray | None
    pca_components: np.ndarray | None
    explained: np.ndarray | None
    fit_on: str
    n_total: int               # points in the data set; more than len(y) when the views work on a sample
    class_names: dict | None = None  # label → name when the file's labels were names (iris's species)

    @property
    def legend_classes(self):
        """The classes as the figures take them: with their names from the file, when it had names."""
        return fg.named_classes(self.classes, self.class_names)

    @property
    def shown_class_names(self) -> dict[float, str]:
        """Each class of the data (hidden labels' too) and its name as the figures give it, not yet made
        safe for a page: the data's own (:attr:`class_names`), else :func:`kernelviz.figures.class_names`'s
        ("class 0", "class −1" …)."""
        classes = np.unique(self.y_true[self.y_true != kv.data.UNLABELED])
        numbered = fg.class_names(classes)
        own = self.class_names or {}
        return {float(c): own.get(float(c), numbered[c]) for c in classes}

    @property
    def sampled(self) -> bool:
        return self.n_total > len(self.y)

    @property
    def labeled(self) -> np.ndarray:
        return self.train | self.test

    @property
    def unlabeled(self) -> np.ndarray:
        return ~self.labeled

    @property
    def hidden(self) -> np.ndarray:
        """Points whose label exists but was hidden: the semi-supervised score is measured on them."""
        return self.unlabeled & (self.y_true != kv.data.UNLABELED)

    @property
    def projected(self) -> bool:
        return self.pca_components is not None

    def to_model(self, plane_points: np.ndarray) -> np.ndarray:
        if self.projected and self.fit_on == "full":
            return self.pca_mean + plane_points @ self.pca_components
        return plane_points

    def view_gaussians(self, means: np.ndarray, covariances: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means and covariances of the model space as seen in the plot plane."""
        if self.projected and self.fit_on == "full":
            P = self.pca_components
            return (means - self.pca_mean) @ P.T, np.einsum("ij,kjl,ml->kim", P, covariances, P)
        return means, covariances

    @property
    def axis_titles(self) -> tuple[str, str]:
        if self.projected:
            return tuple(f"PC{i + 1} ({100 * self.explained[i]:.0f}% of variance)" for i in range(2))
        return tuple(self.feature_names[:2])


def prepare_dataset(ds: kv.data.Dataset, ds_key: str, scaling: str, fit_on: str, label_how: str, label_value: float,
            label_seed: int, test_fraction: float) -> Prepared:
    """Scale, project, hide labels and split a data set as the sidebar says.

    Parameters
    ----------
    ds : kv.data.Dataset
        The data as loaded.
    ds_key : str
        Identifies ``ds``; it enters :attr:`Prepared.key`, the key of every later cache.
    scaling : {"none", "minmax", "zscore"}
    fit_on : {"projection", "full"}
        For d > 2: whether models see the 2-D PCA projection or all features.
    label_how : str
        How labeled points are chosen (see ``kv.data.select_labeled``).
    label_value : float
        The fraction or the count per class that ``label_how`` needs.
    label_seed : int
        Seed of the labeled subset and of the test split.
    test_fraction : float
        Share of each class's labeled points held out.

    Returns
    -------
    Prepared

    Raises
    ------
    ValueError
        When the data have fewer than two features, or values (or their squared
        distances) that are not finite after scaling.
    """
    if ds.d < 2:
        raise ValueError("kernelviz works in the plane and needs at least two features.")
    n_total = ds.n
    if n_total > VIEW_MAX_POINTS:
        keep = stratified_sample(ds.y if ds.y is not None else np.full(ds.n, kv.data.UNLABELED), VIEW_MAX_POINTS)
        ds = kv.data.Dataset(ds.X[keep], None if ds.y is None else ds.y[keep], name=ds.name,
                             feature_names=list(ds.feature_names))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        offset, factor = kv.data.scaling_parameters(ds.X, scaling)
        X = (ds.X - offset) / factor
        # Kernels square the differences between points: a span whose square overflows
        # would turn every Gram matrix into NaN further down.
        span = np.ptp(X, axis=0) if len(X) else np.zeros(ds.d)
        finite = (np.all(np.isfinite(offset)) and np.all(np.isfinite(factor)) and np.all(np.isfinite(X))
                  and np.isfinite(np.sum(np.square(span))))
    if not finite:
        how = {"none": "", "minmax": " of the min-max scaling", "zscore": " of the z-scoring"}.get(scaling, "")
        raise ValueError(f"{ds.name!r} holds values too large to compute with: the squared distances{how} are "
                         f"no longer finite numbers (largest |value| {np.max(np.abs(ds.X)):.3g}). Rescale the "
                         "data (e.g. divide them by a power of ten) and load them again.")
    y = ds.y if ds.y is not None else np.full(ds.n, kv.data.UNLABELED)
    pca_mean = pca_components = explained = None
    X_view = X
    if ds.d > 2:
        from sklearn.decomposition import PCA  # imported on use: the first page must not wait for scikit-learn

        pca = PCA(n_components=2, random_state=0).fit(X)
        X_view = pca.transform(X)
        pca_mean, pca_components, explained = pca.mean_, pca.components_, pca.explained_variance_ratio_
    X_model = X_view if (ds.d > 2 and fit_on == "projection") else X
    y_true = y
    keep = kv.data.select_labeled(y, label_how, None if label_how == "all" else label_value, X=X_model,
                                  random_state=label_seed)
    y = kv.data.hide_labels(y, keep)
    labeled = y != kv.data.UNLABELED
    test = holdout(y, labeled, test_fraction, label_seed)
    train = labeled & ~test
    classes = np.unique(y[labeled])
    key = hashlib.sha1(b"".join([X_model.tobytes(), y.tobytes(), train.tobytes(), ds_key.encode()])).hexdigest()[:16]
    return Prepared(ds.name, key, ds.X, X_model, X_view, y, y_true, train, test, classes, tuple(ds.feature_names), ds.d,
                    pca_mean, pca_components, explained, fit_on, n_total, ds.class_names)


def stratified_sample(y: np.ndarray, size: int, seed: int = 0) -> np.ndarray:
    """Sorted indices of ``size`` points in which every label (unlabeled points count as one)
    keeps its share, and none that is present is left out.

    Parameters
    ----------
    y : array of shape (n,)
        Labels, ``kv.data.UNLABELED`` for unlabeled points.
    size : int
        How many points to keep, at most ``n``.
    seed : int
        Seed of the choice within each label: the same data give the same sample.

    Returns
    -------
    array of int, shape (size,)
    """
    labels, inverse = np.unique(y, return_inverse=True)
    counts = np.bincount(inverse, minlength=len(labels))
    # largest remainders, so that the shares add up to exactly `size`; at least one of each label
    quota = counts * size / len(y)
    take = np.maximum(np.floor(quota).astype(int), 1)
    order = np.argsort(-(quota - np.floor(quota)), kind="stable")
    for i in order:
        if take.sum() >= size:
            break
        if take[i] < counts[i]:
            take[i] += 1
    while take.sum() > size:  # the "at least one" of many tiny labels overshot: trim the largest
        take[np.argmax(take)] -= 1
    rng = np.random.default_rng(seed)
    chosen = [rng.choice(np.flatnonzero(inverse == i), take[i], replace=False) for i in range(len(labels))]
    return np.sort(np.concatenate(chosen))


def holdout(y: np.ndarray, labeled: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    """Stratified test mask: about ``fraction`` of each class's labeled points.

    Never takes a class's last training point (a class with one labeled point stays in training).

    Parameters
    ----------
    y : array of shape (n,)
    labeled : bool array of shape (n,)
    fraction : float
    seed : int

    Returns
    -------
    bool array of shape (n,)
    """
    rng = np.random.default_rng(seed)
    test = np.zeros(len(y), dtype=bool)
    if fraction <= 0:
        return test
    for label in np.unique(y[labeled]):
        members = np.flatnonzero(labeled & (y == label))
        n_test = min(int(round(fraction * len(members))), len(members) - 1)
        if n_test > 0:
            test[rng.choice(members, n_test, replace=False)] = True
    return test


def default_reference(prep: Prepared) -> tuple[float, float]:
    """The data point nearest the centre of the data, a place where kernels differ most, as the
    Similarity view's coordinate inputs hold it (:func:`kernelviz.state.within`)."""
    centre = prep.X_view.mean(axis=0)
    i = int(np.argmin(((prep.X_view - centre) ** 2).sum(axis=1)))
    return kvstate.within("ref_x", prep.X_view[i, 0]), kvstate.within("ref_y", prep.X_view[i, 1])


def check_upload(ds: kv.data.Dataset, file_name: str) -> None:
    """Refuse an uploaded data set the views cannot model, saying why.

    Parameters
    ----------
    ds : kv.data.Dataset
        The file as ``kv.data.read`` gave it (labels in the last column or LIBSVM's first token).
    file_name : str
        The file's name, for the messages.

    Raises
    ------
    ValueError
        With fewer than two feature columns, fewer than two classes among the labels, or
        fewer than two distinct points.
    """
    if ds.d < 2:
        raise ValueError(f"{file_name!r} has a single feature: kernelviz reads the labels from the last column of a "
                         "table (the first token of a LIBSVM line), and this file has only one column of features "
                         "besides them. It works in the plane: give at least two feature columns followed by a "
                         "label column.")
    if ds.y is None or len(ds.classes) < 2:
        raise ValueError(f"{file_name!r} has fewer than two classes among its labels (last column); an SVM needs "
                         "two.")
    distinct = np.unique(ds.X, axis=0)
    if len(distinct) < 2:
        where = ", ".join(f"{v:g}" for v in distinct[0])
        raise ValueError(f"{file_name!r}: all {ds.n} points lie on the same spot ({where}); partitions and "
                         "kernels need at least two distinct points.")


# ============================================================================ generator parameters

#: Lower bound of the widgets of generator parameters that must be strictly positive
#: (a widget cannot exclude its minimum).
POSITIVE_PARAMETER_MIN = 1e-3
#: Where the app is narrower than ``kv.data.make``: the views work in the plane, and the
#: kernels' n × n matrices make more than a few thousand points a wait, not a view.
APP_PARAMETER_LIMITS = {"n_features": (2, None), "n_samples": (None, 5000)}


def generator_param_bounds(param: str) -> dict:
    """Keyword arguments (min_value, max_value, step, format) of a generator parameter's number input.

    The bounds are those ``kv.data.make`` enforces (``kv.data.PARAMETER_LIMITS``), narrowed by
    :data:`APP_PARAMETER_LIMITS`; a strictly positive float starts at :data:`POSITIVE_PARAMETER_MIN`.

    Parameters
    ----------
    param : str
        A parameter of ``kv.data.GENERATORS``.

    Returns
    -------
    dict
        ``max_value`` (and for some floats ``min_value``) is None where there is no bound.
    """
    kind_of, low, high, low_excluded = kv.data.PARAMETER_LIMITS[param]
    app_low, app_high = APP_PARAMETER_LIMITS.get(param, (None, None))
    if kind_of is int:
        lo, hi = int(low) + int(low_excluded), int(high) if math.isfinite(high) else None
        lo = lo if app_low is None else max(lo, app_low)
        hi = hi if app_high is None else (app_high if hi is None else min(hi, app_high))
        return {"min_value": lo, "max_value": hi, "step": 1, "format": "%d"}
    lo = None if not math.isfinite(low) else (max(float(low), 0.0) + POSITIVE_PARAMETER_MIN if low_excluded
                                              else float(low))
    return {"min_value": lo, "max_value": float(high) if math.isfinite(high) else None, "step": 0.05,
            "format": "%.3g"}


def check_generator_params(generator: str, params: Mapping[str, float]) -> tuple[dict, list[str]]:
    """A link's generator parameters that a widget can show, each of the generator's type.

    A parameter the generator does not have, or a value outside its widget's bounds, is
    left out (its default applies) with a sentence saying why; when the remaining values
    still cannot make data together (say fewer points than classes), all of them are.

    Parameters
    ----------
    generator : str
        A key of ``kv.data.GENERATORS``.
    params : mapping
        Parameter → number, as ``kvstate.parse`` reads ``gen_params``.

    Returns
    -------
    (params, problems)
    """
    defaults = kv.data.GENERATORS.get(generator, {})
    clean, problems = {}, []
    for param, value in params.items():
        if param not in defaults:
            problems.append(f"Ignored the link's gen_params {param}: the {generator} generator has no such parameter "
                            f"(its parameters are {', '.join(defaults)}).")
            continue
        bounds = generator_param_bounds(param)
        lo, hi = bounds["min_value"], bounds["max_value"]
        whole = isinstance(defaults[param], int)
        if whole and float(value) != int(value):
            reason = "must be a whole number"
        elif (lo is not None and value < lo) or (hi is not None and value > hi):
            reason = ("must lie between " if hi is not None else "must be at least ") + \
                     (f"{lo:g} and {hi:g}" if hi is not None else f"{lo:g}")
        else:
            clean[param] = int(value) if whole else float(value)
            continue
        problems.append(f"Ignored the link's gen_params {param}={value:g}: {param} {reason}; using the default "
                        f"{defaults[param]:g}.")
    if clean:
        try:
            kv.data.make(generator, random_state=0, **clean)  # the checks across parameters
        except ValueError as err:
            problems.append(f"Ignored the link's gen_params: {err} Using the {generator} generator's defaults.")
            clean = {}
    return clean, problems



# ============================================================================ the stage, from its spec

def load(spec: DataSpec, raw: kv.data.Dataset | None = None) -> kv.data.Dataset:
    """The points of ``spec``: generated or bundled, else ``raw`` (an upload or a drawing)."""
    if spec.source == "generator":
        X, y = kv.data.make(spec.origin, random_state=spec.data_seed, **dict(spec.gen_params))
        return kv.data.Dataset(X, y, name=spec.origin)
    if spec.source == "sample":
        return bundled_dataset(spec.origin)
    if raw is None:
        raise ValueError(f"{spec.source.capitalize()} data are handed in: pass them as raw.")
    return raw


def prepare(spec: DataSpec, raw: kv.data.Dataset | None = None) -> Prepared:
    """The data of ``spec`` scaled, projected, labeled and split (``raw``: see :func:`load`)."""
    return prepare_dataset(load(spec, raw), spec.key, spec.scaling, spec.fit_on, spec.label_how, spec.label_value,
                           spec.label_seed, spec.test_fraction)


def prepared(values: Mapping, raw: kv.data.Dataset | None = None, identity: str | None = None) -> Prepared:
    """:func:`prepare` of the settings ``values`` (``raw`` / ``identity``: uploaded or drawn data)."""
    return prepare(DataSpec.from_settings(values, identity), raw)
