"""The decision function of a two-class SVM taken apart, term by term and bump by bump.

A C-SVM decides with f(x) = Σ_i α_i y_i k(x_i, x) + b (docs/MATH.md §8.1), summed over its
support vectors. Each term is one support vector's "bump" k(x_i, ·) scaled by α_i y_i: it
pulls f toward the support vector's class, the more the closer x is to x_i (in the kernel's
own sense of close) and the larger α_i. Two questions a teacher asks of a fitted SVM:

* at one point, which support vectors decide it, which way and by how much
  (:func:`decision_terms`);
* how f over the plane assembles from its bumps, adding support vectors largest |α_i| first
  (:func:`bump_buildup`).

Both read a fitted ``sklearn.svm.SVC`` on a precomputed Gram matrix (the way the app and
:mod:`kernelviz.models` fit every SVM) and evaluate the kernel themselves. Nothing here
draws; :mod:`kernelviz.figures` does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernelviz._chunks import apply_in_chunks

#: An α_i this close to its bound (relative) counts as at the bound. libsvm sets a bounded α
#: to its bound exactly; the tolerance only absorbs the float rounding of C · class weight.
BOUND_RTOL = 1e-9


@dataclass(frozen=True)
class SupportExpansion:
    """A two-class SVM as f(x) = Σ_i coef_i k(x_i, x) + intercept, support vectors sorted by
    |α_i|, largest first (ties alternate between the classes, see :func:`_largest_alpha_first`).

    Attributes
    ----------
    support : ndarray of int, shape (n_SV,)
        Indices of the support vectors among the training points.
    coef : ndarray of shape (n_SV,)
        α_i y_i, with y_i = +1 for ``classes[1]`` and −1 for ``classes[0]``.
    bounded : ndarray of bool, shape (n_SV,)
        α_i at its upper bound C (times the class weight): the point sits on the wrong side
        of its margin or on it; free support vectors (0 < α_i < C) lie exactly on the margin.
    intercept : float
        b.
    classes : ndarray of shape (2,)
        The labels of the negative and the positive side.
    """

    support: np.ndarray
    coef: np.ndarray
    bounded: np.ndarray
    intercept: float
    classes: np.ndarray

    @property
    def alpha(self) -> np.ndarray:
        """α_i ≥ 0."""
        return np.abs(self.coef)

    @property
    def labels(self) -> np.ndarray:
        """Each support vector's class label (its side: the sign of α_i y_i)."""
        return self.classes[(self.coef > 0).astype(int)]


@dataclass(frozen=True)
class DecisionTerms:
    """f(x) at one point as its terms α_i y_i k(x_i, x), largest |term| first.

    ``support``, ``labels``, ``bounded`` and ``alpha`` describe the support vector behind each
    term, ``kernel_values`` is k(x_i, x), ``terms`` the products. ``value`` = Σ terms + intercept.
    """

    support: np.ndarray
    labels: np.ndarray
    bounded: np.ndarray
    alpha: np.ndarray
    kernel_values: np.ndarray
    terms: np.ndarray
    intercept: float
    value: float
    classes: np.ndarray


@dataclass(frozen=True)
class BumpBuildUp:
    """f_m(x) = Σ_{the m largest |α_i|} α_i y_i k(x_i, x) + b over many points, for growing m.

    ``values[s]`` holds f_m at every point for m = ``counts[s]``; with m = every support
    vector it is the SVM's decision function. ``expansion`` gives the order the support
    vectors join in (its first m are those of f_m).
    """

    expansion: SupportExpansion
    counts: np.ndarray
    values: np.ndarray

    @property
    def agreement(self) -> np.ndarray | None:
        """Per stage, the share of the points where f_m has the sign of the SVM's f (1 at the
        last stage); None when the stages stop short of every support vector."""
        if self.counts[-1] != len(self.expansion.support):
            return None
        return np.mean(np.sign(self.values) == np.sign(self.values[-1]), axis=1)


def support_expansion(svc) -> SupportExpansion:
    """The support-vector expansion of a fitted two-class ``SVC(kernel="precomputed")``.

    Parameters
    ----------
    svc : fitted sklearn.svm.SVC
        Fitted on a precomputed Gram matrix, two classes, without sample weights (they would
        move each α_i's bound in a way the fitted SVC does not record).

    Returns
    -------
    SupportExpansion
    """
    classes = getattr(svc, "classes_", None)
    if classes is None or not hasattr(svc, "dual_coef_"):
        raise ValueError("The SVM must be fitted first: call fit(K_train, y_train) on it, then take it apart.")
    if getattr(svc, "kernel", None) != "precomputed":
        raise ValueError(f"The SVM must be fitted on a precomputed Gram matrix (kernel='precomputed'); "
                         f"this one has kernel={svc.kernel!r}.")
    if len(classes) != 2:
        raise ValueError(f"The decision function is taken apart for two classes only; this SVM has "
                         f"{len(classes)} classes (decided one against one). Keep two classes to see its terms.")
    coef = np.asarray(svc.dual_coef_, dtype=float)[0]
    support = np.asarray(svc.support_)
    # libsvm bounds α_i by C times the weight of the support vector's class (class_weight)
    side = (coef > 0).astype(int)
    bound = float(svc.C) * np.asarray(svc.class_weight_, dtype=float)[side]
    bounded = np.abs(coef) >= bound * (1.0 - BOUND_RTOL)
    order = _largest_alpha_first(np.abs(coef), side, support)
    return SupportExpansion(support=support[order], coef=coef[order], bounded=bounded[order],
                            intercept=float(svc.intercept_[0]), classes=np.asarray(classes))


def _largest_alpha_first(alpha: np.ndarray, side: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Order of the support vectors by α, largest first, ties alternating between the classes.

    Ties are the rule, not the exception: every bounded support vector has α = C. Taken in
    training order, a data set listed class by class would add one class's bumps first and
    the early stages of a build-up would tint the whole map that class's colour. Alternating
    keeps the partial sums of α_i y_i near zero, where the full sum ends (Σ α_i y_i = 0). Within
    a class, ties keep the training order.
    """
    grouped = np.lexsort((support, side, -alpha))  # by α, then class, then training index
    a, s = alpha[grouped], side[grouped]
    first_of_group = np.r_[True, (a[1:] != a[:-1]) | (s[1:] != s[:-1])]
    positions = np.arange(len(a))
    group_start = np.maximum.accumulate(np.where(first_of_group, positions, 0))
    rank_in_class = np.empty(len(a), dtype=int)
    rank_in_class[grouped] = positions - group_start
    return np.lexsort((support, side, rank_in_class, -alpha))


def decision_terms(svc, kernel, X_train, x) -> DecisionTerms:
    """f(x) = Σ_i α_i y_i k(x_i, x) + b of a two-class SVM at one point, term by term.

    Parameters
    ----------
    svc : fitted sklearn.svm.SVC
        As :func:`support_expansion` takes it.
    kernel : callable
        ``kernel(A, B)`` → (len A, len B) kernel values: the kernel (at the SVM's γ) whose
        Gram matrix of ``X_train`` the SVM was fitted on.
    X_train : array of shape (n_train, d)
        The training points, in the order of the Gram matrix.
    x : array of shape (d,)
        The point.

    Returns
    -------
    DecisionTerms
        Largest |term| first; ``value`` equals ``svc.decision_function`` at x.
    """
    expansion = support_expansion(svc)
    X_train = _points(X_train, "X_train")
    x = np.asarray(x, dtype=float)
    if x.shape != (X_train.shape[1],):
        raise ValueError(f"The point must have {X_train.shape[1]} coordinates, like the training points; "
                         f"it has shape {x.shape}.")
    _check_support_in(expansion, X_train)
    kernel_values = np.asarray(kernel(x[None, :], X_train[expansion.support]), dtype=float)[0]
    terms = expansion.coef * kernel_values
    order = np.argsort(-np.abs(terms), kind="stable")
    return DecisionTerms(
        support=expansion.support[order], labels=expansion.labels[order], bounded=expansion.bounded[order],
        alpha=expansion.alpha[order], kernel_values=kernel_values[order], terms=terms[order],
        intercept=expansion.intercept, value=float(terms.sum() + expansion.intercept), classes=expansion.classes)


def doubling_counts(n_support: int) -> np.ndarray:
    """1, 2, 4, … below ``n_support``, then ``n_support`` itself: the stages of a build-up."""
    if n_support < 1:
        raise ValueError("An SVM without support vectors has no bumps to build its decision function from.")
    powers = 2 ** np.arange(int(np.log2(n_support)) + 1)
    return np.unique(np.append(powers[powers < n_support], n_support))


def bump_buildup(svc, kernel, X_train, points, counts=None) -> BumpBuildUp:
    """f_m at every point for growing m, the support vectors joining largest |α_i| first.

    One kernel evaluation of ``points`` against the support vectors (in row blocks of
    bounded memory), then cumulative sums of the stages' blocks of terms: the cost is that of
    one decision function, whatever the number of stages.

    Parameters
    ----------
    svc : fitted sklearn.svm.SVC
        As :func:`support_expansion` takes it.
    kernel : callable
        ``kernel(A, B)`` → (len A, len B), as in :func:`decision_terms`.
    X_train : array of shape (n_train, d)
    points : array of shape (n_points, d)
        Where to evaluate f_m (e.g. a grid in model space).
    counts : sequence of int, optional
        Increasing numbers of support vectors, each in 1 … n_SV; default :func:`doubling_counts`.

    Returns
    -------
    BumpBuildUp
        f_m includes the intercept b, so its zero line is the boundary the m bumps alone draw.
    """
    expansion = support_expansion(svc)
    X_train = _points(X_train, "X_train")
    points = _points(points, "points")
    if points.shape[1] != X_train.shape[1]:
        raise ValueError(f"The points have {points.shape[1]} coordinates and the training points "
                         f"{X_train.shape[1]}: evaluate f in the space the SVM was fitted in.")
    _check_support_in(expansion, X_train)
    n_support = len(expansion.support)
    counts = doubling_counts(n_support) if counts is None else _check_counts(counts, n_support)
    used = int(counts[-1])
    coef = expansion.coef[:used]
    starts = np.concatenate([[0], counts[:-1]])

    def stage_values(K: np.ndarray) -> np.ndarray:
        # the terms of each stage's newly joined support vectors, summed, then accumulated
        return np.cumsum(np.add.reduceat(K * coef, starts, axis=1), axis=1)

    values = apply_in_chunks(kernel, points, X_train[expansion.support[:used]], stage_values)
    return BumpBuildUp(expansion=expansion, counts=counts, values=values.T + expansion.intercept)


def _points(X, what: str) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or len(X) == 0:
        raise ValueError(f"{what} must be a non-empty 2-D array (one point per row); got shape {X.shape}.")
    return X


def _check_support_in(expansion: SupportExpansion, X_train: np.ndarray) -> None:
    if len(expansion.support) and expansion.support.max() >= len(X_train):
        raise ValueError(f"The SVM has a support vector at training index {expansion.support.max()}, but only "
                         f"{len(X_train)} training points were given: pass the points its Gram matrix was built on.")


def _check_counts(counts, n_support: int) -> np.ndarray:
    counts = np.asarray(counts)
    if (counts.ndim != 1 or len(counts) == 0 or not np.issubdtype(counts.dtype, np.integer)
            or counts[0] < 1 or counts[-1] > n_support or np.any(np.diff(counts) <= 0)):
        raise ValueError(f"counts must be increasing whole numbers of support vectors between 1 and {n_support} "
                         f"(this SVM's number of support vectors); got {counts.tolist()}.")
    return counts.astype(int)
