"""Unsupervised partitions and density models: k-means, GMM (EM) and variational GMM.

All three sit behind one interface, :class:`Partition`, so that the kernels, the
models and the app treat them alike: ``predict`` (hard cluster), ``predict_proba``
(responsibilities, one-hot for k-means), ``means_``, ``covariances_``, ``weights_``.

Covariances that are singular, or estimated from fewer than ``d + 1`` points, are
regularised as in the CkRBF paper (Observation 3.2 / Algorithm 1):
``Σ ← (1 − ε) Σ + ε A`` with ``A = cov(X)`` when that is invertible, else ``I``.
The paper's ε = 1e-10 can leave a matrix that is numerically singular, so ε is
raised by decades until a Cholesky factorisation succeeds and the matrix is
reasonably conditioned; the ε actually used is reported in ``epsilons_``.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture, GaussianMixture

METHODS = ("kmeans", "gmm", "vi")

#: Paper's regularisation strength (CkRBF, Algorithm 1 footnote).
PAPER_EPSILON = 1e-10

#: scikit-learn's mixtures add ``reg_covar`` × I to every covariance, 1e-6 by default: an
#: absolute amount that assumes data of unit scale. On data at scale 1e-8 (variance 1e-16)
#: it made every covariance ≈ 1e-6 I, so the RWM / GMM kernels were ≈ 1 everywhere and VI
#: needed four times the iterations. It is applied relative to the data's mean variance.
_RELATIVE_REG_COVAR = 1e-6

#: A covariance whose smallest / largest eigenvalue ratio is below this is treated as
#: singular: its inverse would amplify rounding errors by more than ~1e12.
_CONDITION_FLOOR = 1e-12


def validate_points(X, *, name="X", min_points=1, allow_1d=True):
    """Return ``X`` as a finite 2-D float64 array, or raise a readable ``ValueError``.

    A 1-D array is read as one feature (``reshape(-1, 1)``) when ``allow_1d`` is true;
    otherwise it is refused, since it could as well be a single point (the kernels do this).
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


def empirical_covariance(points, d):
    """Unbiased covariance (ddof = 1) of ``points``; zeros when there are fewer than two."""
    if len(points) < 2:
        return np.zeros((d, d))
    return np.atleast_2d(np.cov(points, rowvar=False, ddof=1))


def _is_well_conditioned(S):
    try:
        eig = linalg.eigvalsh(S)
    except linalg.LinAlgError:
        return False
    return bool(eig[-1] > 0 and eig[0] > _CONDITION_FLOOR * eig[-1])


def reference_covariance(X):
    """The matrix ``A`` used to regularise cluster covariances: cov(X) if invertible, else I."""
    d = X.shape[1]
    A = empirical_covariance(X, d)
    return A if _is_well_conditioned(A) else np.eye(d)


def regularize_covariance(S, A, n_points, eps0=PAPER_EPSILON):
    """Regularise one covariance as in MATH.md §1.

    Parameters
    ----------
    S : ndarray of shape (d, d)
        The covariance estimated from the cluster.
    A : ndarray of shape (d, d)
        Positive definite reference matrix (``cov(X)`` or ``I``).
    n_points : int
        Number of points the estimate came from.
    eps0 : float
        First ε tried (the paper's 1e-10).

    Returns
    -------
    S_reg : ndarray of shape (d, d)
    eps : float
        The ε used; 0.0 when ``S`` needed no regularisation.
    """
    d = S.shape[0]
    if n_points >= d + 1 and _is_well_conditioned(S):
        return S, 0.0
    eps = eps0
    while eps < 1.0:
        S_reg = (1.0 - eps) * S + eps * A
        if _is_well_conditioned(S_reg):
            return S_reg, eps
        eps *= 10.0
    return A.copy(), 1.0


class Partition:
    """A fitted partition or mixture with one interface for all methods.

    Attributes
    ----------
    method : str
        ``"kmeans"``, ``"gmm"`` or ``"vi"``.
    n_components_ : int
        Number of components kept (after pruning, for VI).
    means_ : ndarray of shape (k, d)
    covariances_ : ndarray of shape (k, d, d)
        Regularised covariances: for k-means the empirical covariance of each
        cluster; for GMM / VI the mixture's own.
    weights_ : ndarray of shape (k,)
        Mixture weights (for k-means, the cluster proportions).
    labels_ : ndarray of shape (n,)
        Hard assignment of the points the partition was fitted on.
    epsilons_ : ndarray of shape (k,)
        Regularisation ε used per component (0 where none was needed).
    notes_ : list of str
        Human-readable remarks (regularisation, pruning).
    """

    def __init__(self, method, estimator, means, covariances, weights, labels, epsilons, notes, keep):
        self.method = method
        self._estimator = estimator
        self._keep = keep  # indices of the estimator's components that survived pruning
        self.means_ = means
        self.covariances_ = covariances
        self.weights_ = weights
        self.labels_ = labels
        self.epsilons_ = epsilons
        self.notes_ = notes
        self.n_components_ = len(weights)
        self.n_features_in_ = means.shape[1]

    @classmethod
    def from_parameters(cls, means, covariances, weights=None):
        """A Gaussian mixture given by its parameters (no fitting), e.g. to study a kernel
        on a known model. Covariances must be positive definite."""
        means = validate_points(means, name="means")
        k, d = means.shape
        covariances = np.asarray(covariances, dtype=np.float64)
        if covariances.shape != (k, d, d):
            raise ValueError(f"covariances must have shape ({k}, {d}, {d}); got {covariances.shape}.")
        for i, S in enumerate(covariances):
            if not _is_well_conditioned(S):
                raise ValueError(f"Covariance {i} is not positive definite.")
        weights = np.full(k, 1.0 / k) if weights is None else np.asarray(weights, dtype=np.float64)
        if weights.shape != (k,) or np.any(weights <= 0):
            raise ValueError(f"weights must be {k} positive numbers.")
        return cls("gmm", None, means, covariances, weights / weights.sum(), None, np.zeros(k), [], np.arange(k))

    def _check(self, X):
        X = validate_points(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"The partition was fitted on {self.n_features_in_} features; got {X.shape[1]}."
            )
        return X

    def predict_proba(self, X):
        """Responsibilities ρ(x, k) of each kept component (rows sum to one)."""
        X = self._check(X)
        if self.method == "kmeans":
            return np.eye(self.n_components_)[self.predict(X)]
        log_resp = self._weighted_log_density(X)
        log_resp -= log_resp.max(axis=1, keepdims=True)
        resp = np.exp(log_resp)
        resp /= resp.sum(axis=1, keepdims=True)
        return resp

    def _weighted_log_density(self, X):
        """log π_k + log N(x | μ_k, Σ_k) for the kept components, shape (n, k)."""
        n, d = X.shape
        out = np.empty((n, self.n_components_))
        for k in range(self.n_components_):
            L = linalg.cholesky(self.covariances_[k], lower=True)
            z = linalg.solve_triangular(L, (X - self.means_[k]).T, lower=True)
            log_det = 2.0 * np.log(np.diag(L)).sum()
            out[:, k] = np.log(self.weights_[k]) - 0.5 * (d * np.log(2 * np.pi) + log_det + (z**2).sum(axis=0))
        return out

    def predict(self, X):
        """Hard assignment: nearest centroid (k-means) or most responsible component."""
        X = self._check(X)
        if self.method == "kmeans":
            return self._estimator.predict(X)
        return np.argmax(self._weighted_log_density(X), axis=1)

    def __repr__(self):
        return f"Partition(method={self.method!r}, n_components_={self.n_components_})"


def _reg_covar(X):
    """scikit-learn's reg_covar in units of the data's mean variance (its own 1e-6 when X has none)."""
    spread = float(np.mean(np.var(X, axis=0)))
    return _RELATIVE_REG_COVAR * spread if spread > 0 else _RELATIVE_REG_COVAR


def _vi_estimator(n_components, random_state, params, d, reg_covar):
    allowed = {
        "weight_concentration_prior_type",
        "weight_concentration_prior",
        "mean_precision_prior",
        "degrees_of_freedom_prior",
        "covariance_prior",
        "max_iter",
        "n_init",
    }
    unknown = set(params) - allowed - {"prune_threshold"}
    if unknown:
        raise ValueError(f"Unknown VI parameter(s) {sorted(unknown)}; allowed: {sorted(allowed | {'prune_threshold'})}.")
    kwargs = {k: v for k, v in params.items() if k in allowed and v is not None}
    prior = kwargs.get("covariance_prior")
    if prior is not None and np.ndim(prior) == 0:
        if prior <= 0:
            raise ValueError("The covariance prior w0 must be positive.")
        kwargs["covariance_prior"] = float(prior) * np.eye(d)
    for key in ("weight_concentration_prior", "mean_precision_prior"):
        if key in kwargs and kwargs[key] <= 0:
            raise ValueError(f"The VI prior {key} must be positive; got {kwargs[key]}.")
    if "degrees_of_freedom_prior" in kwargs and kwargs["degrees_of_freedom_prior"] <= d - 1:
        raise ValueError(
            f"The VI degrees-of-freedom prior ν0 must exceed d − 1 = {d - 1}; got {kwargs['degrees_of_freedom_prior']}."
        )
    kwargs.setdefault("weight_concentration_prior_type", "dirichlet_process")
    kwargs.setdefault("max_iter", 500)
    return BayesianGaussianMixture(n_components=n_components, covariance_type="full", random_state=random_state,
                                   reg_covar=reg_covar, **kwargs)


def fit(method, X, n_components=2, random_state=0, **params):
    """Fit a partition of ``X`` (no labels needed).

    Parameters
    ----------
    method : {"kmeans", "gmm", "vi"}
        k-means (k-means++ seeding, 10 restarts, lowest inertia), Gaussian mixture by
        EM with full covariances, or the variational Bayesian mixture (components
        whose weight falls below ``prune_threshold`` are dropped).
    X : array-like of shape (n, d)
    n_components : int
        Number of clusters (for VI: the upper bound before pruning). It may not exceed
        the number of points, for VI too (a ``ValueError`` says so; nothing is capped
        silently). GMM and VI need at least two points.
    random_state : int
    **params
        For ``"vi"``: ``weight_concentration_prior`` (α0), ``mean_precision_prior`` (β0),
        ``degrees_of_freedom_prior`` (ν0), ``covariance_prior`` (w0: scalar × I or a
        matrix), ``weight_concentration_prior_type`` ("dirichlet_process" or
        "dirichlet_distribution"), ``prune_threshold`` (default 0.01).
        For ``"gmm"``: ``max_iter``, ``n_init``.

    Returns
    -------
    Partition
    """
    if method not in METHODS:
        raise ValueError(f"Unknown partition method {method!r}; choose one of {', '.join(METHODS)}.")
    X = validate_points(X)
    n, d = X.shape
    if isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer)) or n_components < 1:
        raise ValueError(f"The number of components must be a positive whole number; got {n_components!r}.")
    n_components = int(n_components)
    if n_components > n:
        raise ValueError(
            f"Cannot make {n_components} clusters from {n} points: ask for at most {n} components."
        )
    if method != "kmeans" and n < 2:
        raise ValueError(
            f"A Gaussian mixture ({method}) needs at least two points to estimate a covariance; got {n}."
        )
    n_distinct = len(np.unique(X, axis=0))
    if method != "vi" and n_components > n_distinct:
        raise ValueError(
            f"Only {n_distinct} distinct points: cannot make {n_components} different clusters. "
            f"Ask for at most {n_distinct} components."
        )
    notes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if method == "kmeans":
            if params:
                raise ValueError(f"k-means takes no extra parameters; got {sorted(params)}.")
            est = KMeans(n_clusters=n_components, init="k-means++", n_init=10, random_state=random_state).fit(X)
            labels = est.labels_
            means = est.cluster_centers_
            counts = np.bincount(labels, minlength=n_components)
            covs = np.array([empirical_covariance(X[labels == k], d) for k in range(n_components)])
            weights = counts / n
            keep = np.arange(n_components)
        elif method == "gmm":
            unknown = set(params) - {"max_iter", "n_init"}
            if unknown:
                raise ValueError(f"Unknown GMM parameter(s) {sorted(unknown)}; allowed: max_iter, n_init.")
            est = GaussianMixture(n_components=n_components, covariance_type="full", random_state=random_state,
                                  reg_covar=_reg_covar(X), **params).fit(X)
            keep = np.arange(n_components)
            means, covs, weights = est.means_, est.covariances_, est.weights_
            labels = est.predict(X)
            counts = np.bincount(labels, minlength=n_components)
        else:
            prune_threshold = params.get("prune_threshold", 0.01)
            if not 0 <= prune_threshold < 1:
                raise ValueError(f"prune_threshold must be in [0, 1); got {prune_threshold}.")
            est = _vi_estimator(n_components, random_state, params, d, _reg_covar(X)).fit(X)
            keep = np.flatnonzero(est.weights_ >= prune_threshold)
            if len(keep) == 0:
                keep = np.array([int(np.argmax(est.weights_))])
            if len(keep) < n_components:
                notes.append(
                    f"VI kept {len(keep)} of {n_components} components (weights below {prune_threshold:g} pruned)."
                )
            means = est.means_[keep]
            covs = est.covariances_[keep]
            weights = est.weights_[keep] / est.weights_[keep].sum()
            labels = None
            counts = None
    A = reference_covariance(X)
    towards = "I" if np.array_equal(A, np.eye(d)) else "cov(X)"
    covs = np.array(covs, dtype=np.float64, copy=True)
    epsilons = np.zeros(len(covs))
    part = Partition(method, est, np.asarray(means, dtype=np.float64), covs, np.asarray(weights, dtype=np.float64),
                     labels, epsilons, notes, keep)
    if labels is None:
        # VI: the hard labels of the kept components; counts let the regulariser see tiny clusters.
        # scikit-learn's mixture covariances are already positive definite (reg_covar),
        # so the density can be evaluated before our own regularisation pass.
        labels = np.argmax(part._weighted_log_density(X), axis=1)
        part.labels_ = labels
        counts = np.bincount(labels, minlength=len(keep))
    for k in range(len(covs)):
        effective = counts[k] if method == "kmeans" else max(counts[k], d + 1)
        covs[k], epsilons[k] = regularize_covariance(covs[k], A, effective)
        if epsilons[k] > 0:
            notes.append(
                f"Component {k} ({counts[k]} point(s)) had a singular covariance: "
                f"regularised with ε = {epsilons[k]:.0e} towards {towards}."
            )
    if method != "kmeans":
        part.labels_ = part.predict(X)
    return part


def fit_per_class(method, X, y, n_components=2, random_state=0, **params):
    """Fit one partition per class (for the Support Cluster Machine and MCPM).

    Returns
    -------
    dict
        Class label → :class:`Partition` of that class's points.
    """
    X = validate_points(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per point: X has {X.shape[0]} rows, y has shape {y.shape}.")
    result = {}
    for label in np.unique(y):
        members = X[y == label]
        k = min(n_components, len(np.unique(members, axis=0)))
        result[label] = fit(method, members, n_components=k, random_state=random_state, **params)
        if k < n_components:
            result[label].notes_.append(
                f"Class {label} has only {len(members)} point(s): fitted {k} cluster(s) instead of {n_components}."
            )
    return result
