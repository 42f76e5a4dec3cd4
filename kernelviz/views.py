"""The computations behind the app's views, free of Streamlit.

Each function takes arrays, fitted kernels or partitions and returns plain results (the
panels of :mod:`kernelviz.figures`, masks, tables), so every view's numbers can be checked
in a plain test. The app wraps the expensive ones in its caches; the cache keys (which
must notice a re-imported ``kernelviz``) stay in the app.
"""

from __future__ import annotations

import copy
import hashlib
import math
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

import kernelviz as kv
from kernelviz import _chunks, anatomy, registry
from kernelviz import figures as fg

#: Models of kv.models that are SVMs underneath, so their f = ±1 lines are margins.
SVM_MODELS = ("mkRBF", "SCM", "CKSVMNDA")
#: libsvm iteration cap for the interactive fits: a badly scaled kernel stops here instead of hanging.
SVM_MAX_ITER = 200_000
#: Largest γ-free matrix (points × training points) kept per kernel; beyond it the decision
#: function is evaluated in blocks instead (a 70 × 70 grid against 5000 points would
#: otherwise hold 200 MB per matrix).
FAMILY_MAX_ENTRIES = 3_000_000
#: The Kernel matrix view shows at most this many points (an evenly spaced subsample).
GRAM_MAX_POINTS = 300
#: The most points the views compute with. Their kernels build n × n matrices (20,000
#: uploaded points took 410 s and 10.7 GB in the Decision boundaries view); beyond this
#: many, the views work on a stratified sample. Measured with benchmarks/bench_upload.py
#: (one session through every view and a grid search, 20,000 uploaded points): a cap of
#: 3,000 peaked at 860 MB, 2,000 at 575 MB (the Decision boundaries view in 1.7 s).
#: The CLI and ``kv.evaluation`` use every point.
VIEW_MAX_POINTS = 2000


# ============================================================================ data

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


def drawn_dataset(points: np.ndarray) -> kv.data.Dataset:
    """The points drawn on the canvas as a data set; label 0 means unlabeled.

    Parameters
    ----------
    points : array of shape (n, 3)
        Rows ``(x, y, label)`` with label ±1 or 0.

    Returns
    -------
    kv.data.Dataset

    Raises
    ------
    NoDataYet
        When no point has been drawn.
    """
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if len(points) == 0:
        raise NoDataYet("No points drawn yet: click on the canvas in the Data view to add some.")
    y = np.where(points[:, 2] == 0, kv.data.UNLABELED, points[:, 2])
    return kv.data.Dataset(points[:, :2], y, name="drawn")


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


def prepare(ds: kv.data.Dataset, ds_key: str, scaling: str, fit_on: str, label_how: str, label_value: float,
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
    """The data point nearest the centre of the data: a place where kernels differ most."""
    centre = prep.X_view.mean(axis=0)
    i = int(np.argmin(((prep.X_view - centre) ** 2).sum(axis=1)))
    return float(prep.X_view[i, 0]), float(prep.X_view[i, 1])


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


def each_or_reason(names: Sequence[str], compute: Callable[[str], object]) -> tuple[dict, dict]:
    """``compute(name)`` for every name; one that fails gives its reason and the others go on.

    A view of several kernels or models shows what it can: one kernel that cannot be fitted
    on these data must not blank the panels of the others.

    Parameters
    ----------
    names : sequence of str
    compute : callable
        ``name → result``.

    Returns
    -------
    (results, reasons)
        ``name → result`` of those that worked and ``name → message`` of those that did not
        (their ``ValueError``), each in the order of ``names``. Any other exception is a bug:
        it propagates, so that the page's error box keeps its details for a report.
    """
    results, reasons = {}, {}
    for name in names:
        try:
            results[name] = compute(name)
        except ValueError as err:
            reasons[name] = str(err)
    return results, reasons


# ============================================================================ partition and kernels

def fit_partition(X: np.ndarray, method: str, n_components: int, seed: int, params: Sequence[tuple]):
    """The partition of ``X`` (labels are never used).

    Parameters
    ----------
    X : array of shape (n, d)
    method : {"kmeans", "gmm", "vi"}
    n_components : int
    seed : int
    params : sequence of (name, value)
        Further keyword arguments of ``kv.partitions.fit``.

    Returns
    -------
    The fitted partition.

    Raises
    ------
    ValueError
        When more clusters than points are asked for.
    """
    if n_components > len(X):
        raise ValueError(f"More clusters ({n_components}) than points ({len(X)}): choose at most {len(X)} clusters.")
    return kv.partitions.fit(method, X, n_components=n_components, random_state=seed, **dict(params))


def kernel_params(name: str, partition, normalize: str) -> dict:
    """The keyword arguments a kernel takes besides γ: the partition and the CkRBF scale where it uses them."""
    facts = registry.kernel(name)
    params = {}
    if facts.uses_partition:
        params["partition"] = partition
    if facts.has_scale:
        params["normalize"] = normalize
    return params


def fit_kernel(name: str, X: np.ndarray, partition, normalize: str):
    """The kernel's unsupervised part fitted on every point, at γ = 1 (labels are never used)."""
    return kv.kernels.make(name, gamma=1.0, **kernel_params(name, partition, normalize)).fit(X)


def at_gamma(kernel, gamma: float):
    """A shallow copy at another γ: the fitted state is shared, never mutated."""
    return copy.copy(kernel).set_params(gamma=gamma)


# ============================================================================ decision boundaries

def gamma_families(kernel, prep: Prepared, grid_model: np.ndarray) -> dict:
    """γ-free parts (D, log n) of the Gram matrices a boundary panel needs.

    With them a γ change costs one ``exp`` per matrix.

    Parameters
    ----------
    kernel
        A fitted, γ-convertible kernel.
    prep : Prepared
    grid_model : array of shape (m, d)
        The evaluation grid in model space.

    Returns
    -------
    dict
        ``"train"`` → the family of the training Gram; ``"grid"``, ``"test"``, ``"hidden"`` →
        the family of those points against the training points, or None when empty or larger
        than :data:`FAMILY_MAX_ENTRIES`.
    """
    X_train = prep.X_model[prep.train]
    families = {"train": kernel.gamma_family(X_train)}
    for part, points in (("grid", grid_model), ("test", prep.X_model[prep.test]),
                         ("hidden", prep.X_model[prep.hidden])):
        small = 0 < len(points) * len(X_train) <= FAMILY_MAX_ENTRIES
        families[part] = kernel.gamma_family(points, X_train) if small else None
    return families


def regularisation_note(kernel) -> str:
    """A panel's warning when the kernel measures with regularised (near-singular) covariances.

    A cluster with fewer than d + 1 points has a flat covariance; the paper's ε = 1e-10 makes
    the kernel almost zero across it, so the map looks empty. Say so instead of letting the
    panel look broken.
    """
    epsilons = getattr(kernel, "epsilons_", None)
    if epsilons is None:
        epsilons = getattr(getattr(kernel, "partition_", None), "epsilons_", None)
    if epsilons is None or not np.any(np.asarray(epsilons) > 0):
        return ""
    epsilons = np.asarray(epsilons)
    used = epsilons[epsilons > 0]
    return f"{len(used)} of {len(epsilons)} clusters regularised, ε ≤ {used.max():.0e}"


#: What a :func:`regularisation_note` means, for the page under the panels that carry one.
REGULARISATION_EXPLANATION = (
    "A cluster with fewer than d + 1 points (or lying on a line) has a singular covariance. As in "
    "the CkRBF paper, it is regularised as (1 − ε) Σ + ε cov(X) with the smallest ε that works, "
    "so its Gaussian stays almost flat: the kernel is nearly zero across the cluster and the map "
    "can look empty. Add points, or ask for fewer clusters.")


def boundary_panel(name: str, kernel, prep: Prepared, grid: fg.Grid, log_gamma: float, log_C: float,
                   families_of: Callable[[np.ndarray], dict] | None = None) -> fg.BoundaryPanel:
    """An SVM with a precomputed kernel, fitted on the training points and evaluated on the grid.

    Parameters
    ----------
    name : str
        The kernel's name (the panel's title).
    kernel
        The fitted kernel, at any γ.
    prep : Prepared
    grid : fg.Grid
        The evaluation grid in the plot plane.
    log_gamma, log_C : float
        log₁₀ of the kernel width and of the SVM penalty.
    families_of : callable, optional
        ``grid_model → dict`` as :func:`gamma_families` returns for this kernel and data (the
        app passes a cached one); used only for γ-convertible kernels, default
        :func:`gamma_families` itself.

    Returns
    -------
    fg.BoundaryPanel
        Decision values (class indices when there are more than two classes), support
        vectors, accuracies on the training, test and hidden-label points, and the fit time.
    """
    # scikit-learn is imported by the first fit, not by the app's start (it takes seconds to import)
    from kernelviz import _svm

    gamma, C = 10.0 ** log_gamma, 10.0 ** log_C
    X_train, y_train = prep.X_model[prep.train], prep.y[prep.train]
    grid_model = prep.to_model(grid.points)
    start = time.perf_counter()
    if kernel.gamma_convertible:
        families = (families_of or (lambda points: gamma_families(kernel, prep, points)))(grid_model)
        K_train = families["train"].gram(gamma)
    else:
        K_train = at_gamma(kernel, gamma)(X_train)
    clf = _svm.fit_svm(K_train, y_train, C=C, max_iter=SVM_MAX_ITER)
    capped = _svm.reached_iteration_cap(clf)
    fit_seconds = time.perf_counter() - start
    sv = clf.support_

    def against_support(part: str, points: np.ndarray) -> np.ndarray | None:
        if len(points) == 0:
            return None
        family = families.get(part) if kernel.gamma_convertible else None
        if family is not None:
            log_n = family.log_n if np.isscalar(family.log_n) else family.log_n[:, sv]
            K_sv = kv.kernels.GammaFamily(family.D[:, sv], log_n).gram(gamma)
        else:  # large data: evaluated block by block against the support vectors only
            K_sv = _chunks.apply_in_chunks(at_gamma(kernel, gamma), points, X_train[sv], lambda K: K)
        return K_sv

    def accuracy(part: str, mask: np.ndarray, labels: np.ndarray) -> float | None:
        K_sv = against_support(part, prep.X_model[mask])
        return None if K_sv is None else float(np.mean(_svm.predict(clf, K_sv) == labels[mask]))

    K_grid = against_support("grid", grid_model)
    multiclass = len(clf.classes_) > 2
    values = (np.searchsorted(clf.classes_, _svm.predict(clf, K_grid)) if multiclass
              else _svm.decision_values(clf, K_grid))
    regularised = regularisation_note(kernel)
    return _with_one_class_note(fg.BoundaryPanel(
        name=name, values=values, classes=list(clf.classes_), X_train=prep.X_view[prep.train], y_train=y_train,
        X_test=prep.X_view[prep.test], y_test=prep.y[prep.test], support=sv,
        dual=np.abs(clf.dual_coef_).max(axis=0), bounded=bounded_support(clf), train_accuracy=float(np.mean(clf.predict(K_train) == y_train)),
        test_accuracy=accuracy("test", prep.test, prep.y),
        hidden_accuracy=accuracy("hidden", prep.hidden, prep.y_true),
        fit_seconds=fit_seconds, multiclass=multiclass, regularised=bool(regularised),
        note=" · ".join(filter(None, (
            "libsvm stopped at its iteration cap: try a smaller C or the unit scale" if capped else "",
            regularised))),
    ))


def bounded_support(clf) -> np.ndarray | None:
    """Per support vector (``clf.support_`` order): is its α at the bound C? None for more than two classes."""
    if len(clf.classes_) != 2:
        return None
    expansion = anatomy.support_expansion(clf)  # sorted by |α|: map back to libsvm's order
    at_bound = dict(zip(expansion.support.tolist(), expansion.bounded.tolist()))
    return np.array([at_bound[i] for i in clf.support_.tolist()], dtype=bool)


#: How a two-class model of ``kv.models`` is extended to more classes (named in its panel).
MULTICLASS_SCHEME = "one-vs-one"


def _one_vs_one(model, X_unlabeled: np.ndarray | None):
    """``model`` (binary only) as a ``sklearn.multiclass.OneVsOneClassifier``; each pairwise
    copy still gets the unlabeled points (through ``kv.models.WithUnlabeled``)."""
    # imported here: the views module stays free of scikit-learn until a model is drawn
    from sklearn.multiclass import OneVsOneClassifier

    return OneVsOneClassifier(kv.models.WithUnlabeled(estimator=model, X_unlabeled=X_unlabeled))


#: Models whose units are Gaussians compared by a probability product kernel (``unit_kernel``).
UNIT_KERNEL_MODELS = ("SCM", "MCPM")


def model_panel(name: str, prep: Prepared, grid: fg.Grid, log_gamma: float, log_C: float,
                seed: int, log_eta: float = -4.0, unit_kernel: str = "rbf-ppk") -> fg.BoundaryPanel:
    """One of ``kv.models`` (mkRBF, SCM, MPM, …) fitted with γ and C where it takes them.

    A two-class model meets more classes through :data:`MULTICLASS_SCHEME` (one fit per
    pair of classes, majority vote); its panel then shows the predicted class and says so.

    Parameters
    ----------
    name : str
        A key of ``kv.models.MODELS``.
    prep : Prepared
        Its unlabeled points are passed to models that use them.
    grid : fg.Grid
    log_gamma, log_C : float
    seed : int
        ``random_state`` of models that take one.
    log_eta : float
        log₁₀ of CKSVMNDA's η (how much KNDA's scatter weighs beside the SVM's margin).
    unit_kernel : {"rbf-ppk", "lppk"}
        The kernel between SCM's and MCPM's units.

    Returns
    -------
    fg.BoundaryPanel
        For MPM and MCPM, ``alpha`` holds the fitted worst-case accuracy bound.
    """
    cls, _, binary_only = kv.models.MODELS[name]
    accepted = cls().get_params()
    params = {"gamma": 10.0 ** log_gamma, "C": 10.0 ** log_C, "random_state": seed, "eta": 10.0 ** log_eta}
    if name in UNIT_KERNEL_MODELS:
        params["kernel"] = unit_kernel
    model = cls(**{k: v for k, v in params.items() if k in accepted})
    X_train, y_train = prep.X_model[prep.train], prep.y[prep.train]
    X_test, y_test = prep.X_model[prep.test], prep.y[prep.test]
    X_unlabeled = prep.X_model[prep.unlabeled] if prep.unlabeled.any() else None
    wrapped = binary_only and len(np.unique(y_train)) > 2
    start = time.perf_counter()
    if wrapped:
        model = _one_vs_one(model, X_unlabeled).fit(X_train, y_train)
    else:
        model.fit(X_train, y_train, X_unlabeled=X_unlabeled)
    fit_seconds = time.perf_counter() - start
    multiclass = len(model.classes_) > 2
    if multiclass:
        values = np.searchsorted(model.classes_, model.predict(prep.to_model(grid.points)))
    else:
        values = model.decision_function(prep.to_model(grid.points))
    notes = []
    alpha = None
    if wrapped:
        notes.append(f"{MULTICLASS_SCHEME} over {len(model.classes_)} classes")
        alphas = [e.estimator_.alpha_ for e in model.estimators_ if hasattr(getattr(e, "estimator_", None), "alpha_")]
        if alphas:
            alpha = float(min(alphas))
            notes.append(f"pairwise worst-case bound α ≥ {alpha:.2f}")
    elif hasattr(model, "alpha_"):
        alpha = float(model.alpha_)
        notes.append(f"worst-case accuracy bound α = {alpha:.2f}")
    return _with_one_class_note(fg.BoundaryPanel(
        name=name, values=values, classes=list(model.classes_), X_train=prep.X_view[prep.train], y_train=y_train,
        X_test=prep.X_view[prep.test], y_test=y_test,
        train_accuracy=float(np.mean(model.predict(X_train) == y_train)),
        test_accuracy=float(np.mean(model.predict(X_test) == y_test)) if len(X_test) else None,
        hidden_accuracy=(float(np.mean(model.predict(prep.X_model[prep.hidden]) == prep.y_true[prep.hidden]))
                         if prep.hidden.any() else None),
        fit_seconds=fit_seconds, multiclass=multiclass, margins=name in SVM_MODELS and not multiclass,
        scheme=MULTICLASS_SCHEME if wrapped else "", note=" · ".join(notes), alpha=alpha))


def one_class_note(panel: fg.BoundaryPanel, map_share: float = 0.98, train_accuracy: float = 0.9) -> str:
    """A panel's hint when one class covers (almost) the whole map and the training points suffer.

    A probability-product model at an RBF-sized γ, or any SVM at an extreme γ, can put every
    point far from everything: the decision is then the intercept alone and the panel would
    look broken without a word. A map that is mostly one class while the training points are
    classified well (a tight class inside a wide one) is no such failure and gets no note.
    """
    predicted = panel.values if panel.multiclass else panel.values > 0
    share = np.unique(predicted, return_counts=True)[1].max() / len(predicted)
    if share < map_share or panel.train_accuracy >= train_accuracy:
        return ""
    return f"one class on {share:.0%} of the map: try another γ or C"


def _with_one_class_note(panel: fg.BoundaryPanel) -> fg.BoundaryPanel:
    panel.note = " · ".join(filter(None, (panel.note, one_class_note(panel))))
    return panel


def accuracy_table(panels: Sequence[fg.BoundaryPanel]) -> dict[str, list]:
    """The table under the decision boundaries, column → cells (one per panel).

    A column with no value at all (no held-out or no hidden points) is left out: it would only
    show "None"; a model without support vectors (SCM, MPM, KFD …) shows "—" in that column.
    """
    columns = {
        "kernel": [fg.kernel_label(p.name) + (f" ({p.scheme})" if p.scheme else "") for p in panels],
        "train accuracy": [p.train_accuracy for p in panels],
        "test accuracy": [p.test_accuracy for p in panels],
        "accuracy on hidden labels": [p.hidden_accuracy for p in panels],
        "support vectors": [len(p.support) if p.support is not None else None for p in panels],
        "fit (ms)": [round(1000 * p.fit_seconds, 1) for p in panels],
    }
    columns = {name: cells for name, cells in columns.items() if any(c is not None for c in cells)}
    if "support vectors" in columns:
        columns["support vectors"] = [str(c) if c is not None else "—" for c in columns["support vectors"]]
    return columns


# ============================================================================ similarity

def kernel_diagonal(kernel, points: np.ndarray, block: int = 256) -> np.ndarray:
    """k(p, p) for every point, from small diagonal blocks (the kernel API has no diagonal call)."""
    return np.concatenate([np.diag(kernel(points[i:i + block])) for i in range(0, len(points), block)])


def dissimilarity_from_kernel(k_ry: np.ndarray, k_rr: float, k_yy: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """(dissimilarity, normalised similarity) from kernel values, as in :class:`kernelviz.figures.SimilarityPanel`.

    Non-positive or non-finite normalised values (possible for indefinite kernels such as
    LAP) give an undefined (NaN) dissimilarity, which the contour plot leaves blank.
    """
    k_ry = np.asarray(k_ry, dtype=float)
    denom = np.sqrt(np.abs(k_rr) * np.abs(np.asarray(k_yy, dtype=float)))
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.where(denom > 0, k_ry / denom, np.nan)
        dis = np.sqrt(np.maximum(-np.log(np.where(sim > 0, np.minimum(sim, 1.0), np.nan)), 0.0) / gamma)
    return dis, np.clip(sim, 0.0, 1.0)


def similarity_panel(name: str, kernel, prep: Prepared, grid: fg.Grid, log_gamma: float,
                     reference: tuple[float, float]) -> fg.SimilarityPanel:
    """The kernel's (dis)similarity between a reference point and every grid point.

    Parameters
    ----------
    name : str
    kernel
        The fitted kernel, at any γ.
    prep : Prepared
    grid : fg.Grid
    log_gamma : float
    reference : (float, float)
        The reference point in the plot plane.

    Returns
    -------
    fg.SimilarityPanel
        With the Gaussians (seen in the plot plane) that the kernel measures with, where it has any.
    """
    gamma = 10.0 ** log_gamma
    k = at_gamma(kernel, gamma)
    grid_model = prep.to_model(grid.points)
    ref = prep.to_model(np.asarray([reference], dtype=float))
    k_gr = _chunks.apply_in_chunks(k, grid_model, ref, lambda K: K[:, 0])
    k_rr = float(k(ref)[0, 0])
    k_gg = kernel_diagonal(k, grid_model)
    dis, sim = dissimilarity_from_kernel(k_gr, k_rr, k_gg, gamma)
    means = covs = None
    note = ""
    if registry.kernel(name).uses_partition:
        # CkRBF's own (regularised) cluster covariances; the mixture's for GMM and RWM
        means = kernel.partition_.means_
        covs = kernel.covariances_ if hasattr(kernel, "covariances_") else kernel.partition_.covariances_
    elif name == "mrbf":
        means, covs = prep.X_model.mean(axis=0, keepdims=True), np.cov(prep.X_model.T)[None]
        note = "data covariance"
    if means is not None:
        means, covs = prep.view_gaussians(means, covs)
    regularised = regularisation_note(kernel)
    return fg.SimilarityPanel(name, dis, sim, means, covs, " · ".join(filter(None, (note, regularised))),
                              regularised=bool(regularised))


# ============================================================================ kernel matrix

def gram_points(prep: Prepared, partition, max_points: int = GRAM_MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """The points of the Kernel matrix view, ordered by cluster then class.

    Parameters
    ----------
    prep : Prepared
    partition
        A fitted partition; its hard assignment orders the rows.
    max_points : int
        Larger data are subsampled evenly to this many points.

    Returns
    -------
    X : array of shape (m, d)
        The points in model space, in display order.
    breaks : array of int
        Row indices where a new cluster starts.
    """
    n = len(prep.y)
    pick = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).round().astype(int)
    X = prep.X_model[pick]
    clusters = partition.predict(X)
    order = fg.cluster_class_order(clusters, prep.y[pick], within=prep.X_view[pick, 0])
    X, clusters = X[order], clusters[order]
    return X, np.flatnonzero(np.diff(clusters)) + 1


@dataclass(frozen=True)
class GramSummary:
    """A kernel's Gram matrix as the Kernel matrix view shows it: heatmap, spectrum, table row."""

    panel: fg.GramPanel
    eigenvalues: np.ndarray
    row: dict


def gram_summary(name: str, K: np.ndarray, breaks: np.ndarray) -> GramSummary:
    """Positive semi-definiteness, spectrum and diagonal range of one Gram matrix.

    Parameters
    ----------
    name : str
        The kernel's name.
    K : array of shape (m, m)
    breaks : array of int
        Cluster boundaries, drawn on the heatmap.

    Returns
    -------
    GramSummary
    """
    report = kv.kernels.psd_report(K)
    if report["is_psd"]:
        verdict = "PSD ✓" + (" (smallest λ ≈ 0 up to rounding)" if report["min_eig"] < 0 else "")
    else:
        verdict = f"not PSD: {report['n_negative']} negative eigenvalues, min λ = {report['min_eig']:.2g}"
    row = {"kernel": fg.kernel_label(name), "PSD": "yes" if report["is_psd"] else "no",
           "smallest eigenvalue": report["min_eig"], "largest eigenvalue": report["max_eig"],
           "negative eigenvalues": report["n_negative"],
           "diagonal range": f"{K.diagonal().min():.3g} – {K.diagonal().max():.3g}"}
    return GramSummary(fg.GramPanel(name, K, breaks, verdict), report["eigenvalues"], row)


# ============================================================================ grid search and P_f

class GridFailure(str):
    """Why a kernel's grid search failed: the app keeps it in place of the result, so the
    same search is not run again in vain (a class of this module, so that it stays the same
    class across the app's reruns)."""


def grid_axis(bounds: Sequence[int], steps: int) -> np.ndarray:
    """log₁₀ values of one grid axis: ``steps`` values from lo to hi, or the single value when lo == hi."""
    lo, hi = bounds
    return np.array([float(lo)]) if lo == hi else np.linspace(lo, hi, steps)


def check_folds(prep: Prepared, cv: int) -> None:
    """Refuse a fold count the labeled points cannot fill.

    Stratified k-fold cross-validation puts points of every class in each of the ``cv``
    folds, so each class needs at least ``cv`` labeled points (training and test points
    alike: the grid search cross-validates on all labeled points).

    Raises
    ------
    ValueError
        Naming the smallest class, its size and the largest fold count that works.
    """
    labels, counts = np.unique(prep.y[prep.labeled], return_counts=True)
    if len(labels) < 2:
        raise ValueError("The grid search needs labeled points of at least two classes.")
    smallest = int(counts.min())
    name = fg.class_names(prep.classes).get(labels[counts.argmin()], f"class {labels[counts.argmin()]:g}")
    if smallest < 2:
        raise ValueError(f"Cross-validation needs at least two labeled points in every class, but {name} has "
                         f"{smallest}: label more points (sidebar, *Labeled points*).")
    if cv > smallest:
        raise ValueError(f"{cv}-fold cross-validation needs at least {cv} labeled points in every class, but "
                         f"{name} has only {smallest}: choose at most {smallest} folds, or label more points.")


def grid_search(name: str, prep: Prepared, log_Cs: np.ndarray, log_gammas: np.ndarray, cv: int, seed: int,
                params: dict, progress: Callable[[int, int], None] | None = None) -> tuple:
    """Cross-validated accuracy of one kernel over a (C, γ) grid, and its Keerthi–Lin path.

    Parameters
    ----------
    name : str
    prep : Prepared
        Trains on all labeled points; the unlabeled ones go to the kernel's unsupervised part.
    log_Cs, log_gammas : array
        log₁₀ of the grid's axes.
    cv, seed : int
        Number of folds and their seed.
    params : dict
        Further kernel arguments (see :func:`kernel_params`).
    progress : callable, optional
        ``progress(done, total)`` after each fit.

    Returns
    -------
    (result, path)
        The ``kv.evaluation.grid_search`` result, and the ``keerthi_lin`` path or None when
        that line misses the grid.
    """
    X, y = prep.X_model[prep.labeled], prep.y[prep.labeled]
    X_unlabeled = prep.X_model[prep.unlabeled]
    result = kv.evaluation.grid_search(
        name, X, y, Cs=10.0 ** log_Cs, gammas=10.0 ** log_gammas, cv=cv, random_state=seed,
        n_jobs=1, X_unlabeled=X_unlabeled if len(X_unlabeled) else None, progress=progress, **params)
    return result, keerthi_lin_path(prep, result)


def keerthi_lin_path(prep: Prepared, result):
    """The ``keerthi_lin`` path over a finished grid search's cells, or None when the line misses the grid."""
    X, y = prep.X_model[prep.labeled], prep.y[prep.labeled]
    try:
        return kv.evaluation.keerthi_lin(X, y, result.Cs, result.gammas, scores=result, cv=result.cv,
                                         random_state=result.random_state)
    except ValueError:
        return None  # the line misses this grid: the heatmap is shown without it


def grid_panels(grids: Mapping[str, tuple], log_Cs: np.ndarray, log_gammas: np.ndarray) -> list[fg.GridPanel]:
    """Heatmap panels of finished grid searches, with the Keerthi–Lin path in (log γ, log C).

    Parameters
    ----------
    grids : mapping of name → (result, path)
        As :func:`grid_search` returns.
    log_Cs, log_gammas : array
        The grid's axes.

    Returns
    -------
    list of fg.GridPanel
    """
    panels = []
    for name, (result, path) in grids.items():
        kl = kl_best = None
        if path is not None:
            kl = np.array([[log_gammas[j], log_Cs[i]] for i, j in path.cells])
            i, j = path.best_cell
            kl_best = (log_gammas[j], log_Cs[i])
        note = f"{result.n_capped_fits} fits hit the iteration cap" if result.n_capped_fits else ""
        panels.append(fg.GridPanel(name, result.scores, kl, kl_best, result.capped, note))
    return panels


def _pf_standing(name: str, aucs: Mapping[str, float], data_name: str, other: str) -> str:
    """Where ``name``'s P_f AUC stands among ``aucs``, and what showing the ``other`` scale will tell."""
    label = fg.kernel_label(name)
    rivals = {n: a for n, a in aucs.items() if n != name}
    if name not in aucs or not rivals:
        return (f"Show the {other} scale next to it to see how much this constant alone moves {label}'s curve "
                f"on {data_name}.")
    best = max(rivals, key=rivals.get)
    own, theirs = aucs[name], rivals[best]
    numbers = f"{own:.3f} against {fg.kernel_label(best)}'s {theirs:.3f}"
    if own - theirs >= LEVEL_AUC:
        return (f"On {data_name} {label}'s P_f AUC leads ({numbers}): show the {other} scale next to it to see "
                "how much of that lead is this constant alone.")
    if theirs - own >= LEVEL_AUC:
        return (f"On {data_name} {label}'s P_f AUC trails ({numbers}): there is no lead to explain here; show "
                f"the {other} scale next to it to see whether the constant helps or hurts.")
    return (f"On {data_name} {label}'s P_f AUC is level ({numbers}) with the best of the others: show the "
            f"{other} scale next to it to see whether the constant moves it.")


def pf_curves(scores: Mapping[str, np.ndarray], n_alphas: int = 401) -> tuple[dict, float, np.ndarray, dict]:
    """P_f(α) curves of grid scores from the worst score of all grids up to 1.

    Parameters
    ----------
    scores : mapping of name → array
        Each kernel's grid of CV accuracies.
    n_alphas : int

    Returns
    -------
    table : dict
        ``kv.evaluation.pf_auc``'s per-kernel AUC, normalised AUC and best score.
    alpha0 : float
        The worst score of all grids.
    alphas : array of shape (n_alphas,)
    curves : dict of name → (alphas, P_f values)
    """
    table, alpha0 = kv.evaluation.pf_auc(scores)
    alphas = np.linspace(alpha0, 1.0, n_alphas)
    curves = {name: (alphas, kv.evaluation.pf_curve(s, alphas)) for name, s in scores.items()}
    return table, alpha0, alphas, curves


#: P_f AUCs closer than this are called level (as the lessons do: half a point of accuracy over the grid).
LEVEL_AUC = 0.005


def scale_sentence(data_name: str, normalize: str, normaliser_range: tuple[float, float] | None,
                   scores: np.ndarray, other_scores: np.ndarray | None, *, name: str = "ckrbf",
                   aucs: Mapping[str, float] | None = None) -> str:
    """Why CkRBF's P_f curve moves with the scale switch, with this data's numbers.

    Parameters
    ----------
    data_name : str
        The data set shown.
    normalize : {"paper", "unit"}
        The scale of ``scores``.
    normaliser_range : (float, float) or None
        Smallest and largest det(Σₓ+Σᵧ)^(−½) factor of the fitted CkRBF, when known.
    scores : array
        CkRBF's grid scores at this scale.
    other_scores : array or None
        Its scores on the same grid at the other scale, when that search has been run.
    name : str
        The scaled kernel (``"ckrbf"`` or ``"ckrbf-radial"``).
    aucs : mapping of kernel name → P_f AUC, optional
        The AUCs the page shows; the sentence says whether ``name`` leads, trails or is level
        with the best of the others, and speaks of a lead only when there is one.

    Returns
    -------
    str
        Markdown. The comparison of the two scales is stated only when both grids exist.
    """
    size = f"{normaliser_range[0]:.3g} to {normaliser_range[1]:.3g}" if normaliser_range else "—"
    text = (f"**Why the CkRBF curve moves when you switch the scale.** With the paper's scale every CkRBF value "
            f"carries the factor det(Σₓ+Σᵧ)^(−½) (here {size}). Multiplying a kernel by a constant c is the "
            f"same as multiplying C by c, so on a fixed (C, γ) grid the paper's scale slides CkRBF's good region "
            f"towards small C — the grid then simply contains more of it. The unit scale divides that constant out")
    if other_scores is None:
        other = "unit" if normalize == "paper" else "paper's"
        return text + ". " + _pf_standing(name, aucs or {}, data_name, other)
    paper, unit = (scores, other_scores) if normalize == "paper" else (other_scores, scores)
    table, alpha0 = kv.evaluation.pf_auc({"paper": paper, "unit": unit})
    return text + (f": on {data_name}, CkRBF's P_f AUC (from α₀ = {alpha0:.3f}, the worse of the two grids) is "
                   f"{table['paper']['auc']:.3f} with the paper's scale and {table['unit']['auc']:.3f} with the "
                   f"unit scale; best accuracy {100 * table['paper']['best']:.1f}% and "
                   f"{100 * table['unit']['best']:.1f}%.")
