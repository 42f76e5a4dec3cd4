"""The model stage: an SVM (or a model of ``kv.models``) at (γ, C), and the panels drawn from it.

Every SVM at (γ, C) of the app — a panel's, the anatomy's, the live lattice's — is fitted by
:func:`fit_svm` on the Gram matrices of :class:`Grams`, so two of them can never differ.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

import kernelviz as kv
from kernelviz import _chunks, anatomy, crossings, registry
from kernelviz import figures as fg
from kernelviz.pipeline.data import Prepared
from kernelviz.pipeline.fit import at_gamma

__all__ = ['Grams', 'SvmFit', 'fit_svm', 'PanelScores', 'svm_scores', 'panel_scores', 'SVM_MODELS', 'SVM_MAX_ITER', 'FAMILY_MAX_ENTRIES', 'GRAM_MAX_POINTS', 'gamma_families',
           'regularisation_note', 'REGULARISATION_EXPLANATION', 'boundary_panel', 'PANEL_LEVELS', 'panel_crossings',
           'bounded_support',
           'MULTICLASS_SCHEME', 'UNIT_KERNEL_MODELS', 'model_panel', 'alpha_sentence', 'one_class_note', 'accuracy_table',
           'kernel_diagonal', 'dissimilarity_from_kernel', 'similarity_panel', 'gram_points', 'GramSummary',
           'gram_summary']

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


class Grams:
    """A fitted kernel's Gram matrices against the training points of ``prep``, at any γ.

    γ-convertible kernels keep the γ-free parts (D, log n) of :func:`gamma_families` and pay one
    ``exp`` per γ; the others evaluate the kernel at that γ (in blocks against few columns when
    the points are many). The training Gram of the last γ asked for is kept: the C axis of a
    lattice, or a panel's accuracy after its fit, does not build it again.

    Parameters
    ----------
    kernel
        A fitted kernel, at any γ.
    prep : Prepared
    grid_model : array of shape (m, d), optional
        The evaluation grid in model space (the part ``"grid"``).
    families : dict, optional
        :func:`gamma_families` of this kernel, data and grid, when the caller keeps them (the app
        caches them per data); computed here otherwise.
    """

    def __init__(self, kernel, prep: Prepared, grid_model: np.ndarray | None = None, families: dict | None = None):
        self.kernel, self.prep = kernel, prep
        self.X_train, self.y_train = prep.X_model[prep.train], prep.y[prep.train]
        self.points = {"grid": grid_model if grid_model is not None else np.empty((0, prep.X_model.shape[1])),
                       "test": prep.X_model[prep.test], "hidden": prep.X_model[prep.hidden]}
        if not kernel.gamma_convertible:
            families = {}
        elif families is None:
            families = gamma_families(kernel, prep, self.points["grid"])
        self.families = families
        self._last_train = (None, None)

    def train(self, gamma: float) -> np.ndarray:
        """The training points' Gram matrix at ``gamma``."""
        if self._last_train[0] != gamma:
            family = self.families.get("train")
            K = family.gram(gamma) if family is not None else at_gamma(self.kernel, gamma)(self.X_train)
            self._last_train = (gamma, K)
        return self._last_train[1]

    def against(self, part: str, gamma: float, columns: np.ndarray) -> np.ndarray | None:
        """The points of ``part`` ("grid", "test", "hidden") against training points ``columns`` at
        ``gamma``; None when the part has no points."""
        points = self.points[part]
        if len(points) == 0:
            return None
        family = self.families.get(part)
        if family is not None:
            log_n = family.log_n if np.isscalar(family.log_n) else family.log_n[:, columns]
            return kv.kernels.GammaFamily(family.D[:, columns], log_n).gram(gamma)
        # large data: evaluated block by block against the given columns only
        return self.at(points, gamma, columns)

    def at(self, points: np.ndarray, gamma: float, columns: np.ndarray) -> np.ndarray:
        """Any points (model space) against training points ``columns`` at ``gamma``, block by block."""
        return _chunks.apply_in_chunks(at_gamma(self.kernel, gamma), points, self.X_train[columns], lambda K: K)


@dataclass(frozen=True)
class SvmFit:
    """An SVM fitted at (γ, C) by :func:`fit_svm`."""

    clf: object
    gamma: float
    C: float
    capped: bool
    seconds: float


def fit_svm(grams: Grams, gamma: float, C: float) -> SvmFit:
    """The one SVM fit at (γ, C): libsvm on the training Gram of ``grams`` at ``gamma``.

    Every SVM of the app goes through here — a decision panel's, the anatomy's, each value of
    the live lattice — with the same iteration cap (:data:`SVM_MAX_ITER`), so they can never differ.

    Returns
    -------
    SvmFit
        The fitted ``SVC`` (kernel "precomputed"), whether libsvm stopped at its cap, and the
        seconds taken by the Gram matrix and the fit.
    """
    # scikit-learn is imported by the first fit, not by the app's start (it takes seconds to import)
    from kernelviz import _svm

    start = time.perf_counter()
    clf = _svm.fit_svm(grams.train(gamma), grams.y_train, C=C, max_iter=SVM_MAX_ITER)
    return SvmFit(clf, gamma, C, bool(_svm.reached_iteration_cap(clf)), time.perf_counter() - start)


@dataclass(frozen=True)
class PanelScores:
    """What a decision panel shows of its fit besides the field: its support vectors (indices into
    the training points, their |α| and whether α is at its bound C; None for a model without them)
    and its accuracies (None where there are no such points)."""

    support: np.ndarray | None
    dual: np.ndarray | None
    bounded: np.ndarray | None
    train_accuracy: float
    test_accuracy: float | None
    hidden_accuracy: float | None


def svm_scores(grams: Grams, fit: SvmFit) -> PanelScores:
    """The support vectors and accuracies of an SVM of :func:`fit_svm` on ``grams``: one function for
    the committed panel (:func:`boundary_panel`) and each value of the live lattice, so they agree."""
    from kernelviz import _svm

    clf, gamma = fit.clf, fit.gamma
    sv = clf.support_

    def accuracy(part: str, mask: np.ndarray, labels: np.ndarray) -> float | None:
        K_sv = grams.against(part, gamma, sv)
        return None if K_sv is None else float(np.mean(_svm.predict(clf, K_sv) == labels[mask]))

    prep = grams.prep
    return PanelScores(
        support=sv, dual=np.abs(clf.dual_coef_).max(axis=0), bounded=bounded_support(clf),
        train_accuracy=float(np.mean(clf.predict(grams.train(gamma)) == grams.y_train)),
        test_accuracy=accuracy("test", prep.test, prep.y),
        hidden_accuracy=accuracy("hidden", prep.hidden, prep.y_true))


def panel_scores(panel: fg.BoundaryPanel) -> PanelScores:
    """A panel's :class:`PanelScores` (a model's panel: its accuracies, and no support vectors)."""
    return PanelScores(panel.support, panel.dual, panel.bounded, panel.train_accuracy, panel.test_accuracy,
                       panel.hidden_accuracy)


def boundary_panel(name: str, kernel, prep: Prepared, grid: fg.Grid, log_gamma: float, log_C: float,
                   families_of: Callable[[np.ndarray], dict] | None = None, lines: bool = True) -> fg.BoundaryPanel:
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
    lines : bool
        Find where the panel's lines cross the grid's edges on the SVM (:func:`panel_crossings`);
        without, they are drawn between the grid's values.

    Returns
    -------
    fg.BoundaryPanel
        Decision values (class indices when there are more than two classes), support
        vectors, accuracies on the training, test and hidden-label points, the fit time, and
        where its lines cross the grid's edges.
    """
    from kernelviz import _svm

    gamma, C = 10.0 ** log_gamma, 10.0 ** log_C
    grid_model = prep.to_model(grid.points)
    families = families_of(grid_model) if families_of is not None and kernel.gamma_convertible else None
    grams = Grams(kernel, prep, grid_model, families)
    fit = fit_svm(grams, gamma, C)
    clf, scores = fit.clf, svm_scores(grams, fit)
    K_grid = grams.against("grid", gamma, scores.support)
    multiclass = len(clf.classes_) > 2
    values = (np.searchsorted(clf.classes_, _svm.predict(clf, K_grid)) if multiclass
              else _svm.decision_values(clf, K_grid))
    regularised = regularisation_note(kernel)

    def kernel_values(points: np.ndarray) -> np.ndarray:  # points of the plane against the support vectors
        return grams.at(prep.to_model(points), gamma, scores.support)

    found = panel_crossings(grid, values, multiclass, True,
                            lambda points: np.searchsorted(clf.classes_, _svm.predict(clf, kernel_values(points))),
                            lambda points: _svm.decision_values(clf, kernel_values(points))) if lines else None
    return _with_one_class_note(fg.BoundaryPanel(
        name=name, values=values, classes=list(clf.classes_), X_train=prep.X_view[prep.train], y_train=grams.y_train,
        X_test=prep.X_view[prep.test], y_test=prep.y[prep.test], support=scores.support,
        dual=scores.dual, bounded=scores.bounded, train_accuracy=scores.train_accuracy,
        test_accuracy=scores.test_accuracy, hidden_accuracy=scores.hidden_accuracy,
        fit_seconds=fit.seconds, multiclass=multiclass, regularised=bool(regularised), crossings=found,
        note=" · ".join(filter(None, (
            "libsvm stopped at its iteration cap: try a smaller C or the unit scale" if fit.capped else "",
            regularised))),
    ))


#: The levels of f a two-class panel draws: the boundary, and the margins where they mean something.
PANEL_LEVELS = (0.0, -1.0, 1.0)


def panel_crossings(grid: fg.Grid, values: np.ndarray, multiclass: bool, margins: bool,
                    predict: Callable[[np.ndarray], np.ndarray],
                    decide: Callable[[np.ndarray], np.ndarray]) -> dict:
    """Where a panel's lines cross its grid's edges, found on the model itself (:mod:`kernelviz.crossings`):
    ``{"classes": (keys, t)}`` where the predicted class changes (``predict``: points of the plane →
    class indices), else level → (keys, t) of f (``decide``: points → f) at 0 and, with ``margins``, ±1."""
    z = grid.reshape(values)
    if multiclass:
        return {"classes": crossings.class_crossings(grid.xs, grid.ys, z, predict)}
    return crossings.level_crossings(grid.xs, grid.ys, z, PANEL_LEVELS if margins else PANEL_LEVELS[:1], decide)


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
                seed: int, log_eta: float = -4.0, unit_kernel: str = "rbf-ppk",
                lines: bool = True) -> fg.BoundaryPanel:
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
    lines : bool
        Find where the panel's lines cross the grid's edges (:func:`panel_crossings`); a lattice
        value, whose field only the live preview paints, needs none, nor a dragged point's frame.

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
    elif hasattr(model, "alpha_"):
        alpha = float(model.alpha_)
    margins = name in SVM_MODELS and not multiclass
    found = panel_crossings(grid, values, multiclass, margins,
                            lambda points: np.searchsorted(model.classes_, model.predict(prep.to_model(points))),
                            lambda points: model.decision_function(prep.to_model(points))) if lines else None
    predicted = model.predict(X_train)
    per_class = None
    if alpha is not None:
        # α beside what it is and is not about: the measured accuracy of each class (tests/test_minimax_bounds.py)
        per_class = {float(c): float(np.mean(predicted[y_train == c] == c)) for c in model.classes_}
        notes.append(alpha_sentence(name, alpha, per_class, pairwise=wrapped))
    return _with_one_class_note(fg.BoundaryPanel(
        name=name, values=values, classes=list(model.classes_), X_train=prep.X_view[prep.train], y_train=y_train,
        X_test=prep.X_view[prep.test], y_test=y_test, class_train_accuracy=per_class,
        train_accuracy=float(np.mean(predicted == y_train)),
        test_accuracy=float(np.mean(model.predict(X_test) == y_test)) if len(X_test) else None,
        hidden_accuracy=(float(np.mean(model.predict(prep.X_model[prep.hidden]) == prep.y_true[prep.hidden]))
                         if prep.hidden.any() else None),
        fit_seconds=fit_seconds, multiclass=multiclass, margins=margins, crossings=found,
        scheme=MULTICLASS_SCHEME if wrapped else "", note=" · ".join(notes), alpha=alpha))


def alpha_sentence(name: str, alpha: float, per_class: dict, pairwise: bool = False) -> str:
    """What MPM's / MCPM's bound α covers, and each class's measured training accuracy beside it.

    MPM's α bounds each class's accuracy for every distribution with the class's training mean and
    covariance, so the training points meet it. MCPM's α is MPM's on the cluster units: it bounds
    the units, not the points, and at a γ past the units' scale the points can fall far below it.
    """
    # two short lines of the panel's title block (notes are joined by " · ", one line each)
    # within figures._wrap_note's 48 characters a line, so that no title block spills over its neighbour's
    bound = f"α ≥ {alpha:.2f} pairwise," if pairwise else f"α = {alpha:.2f}"
    covers = "for cluster units, not points" if name == "MCPM" else "per class (training moments)"
    accuracies = " / ".join(f"{100 * a:.0f}" for a in per_class.values())
    return f"{bound} {covers} · train per class {accuracies} %"


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


