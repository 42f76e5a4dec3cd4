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
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture, GaussianMixture

from ._validation import check_points

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
    """Regularise one covariance as in docs/MATH.md §2.3.

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


#: Extra parameters each method accepts (all keyword arguments of :class:`Partition`).
_VI_PRIORS = ("weight_concentration_prior_type", "weight_concentration_prior", "mean_precision_prior",
              "degrees_of_freedom_prior", "covariance_prior")
_METHOD_PARAMS = {
    "kmeans": (),
    "gmm": ("max_iter", "n_init"),
    "vi": _VI_PRIORS + ("max_iter", "n_init", "prune_threshold"),
}


def _check_method_params(method, params):
    """Refuse parameters the method does not take, naming the ones it does."""
    if method not in METHODS:
        raise ValueError(f"Unknown partition method {method!r}; choose one of {', '.join(METHODS)}.")
    unknown = sorted(set(params) - set(_METHOD_PARAMS[method]))
    if not unknown:
        return
    if method == "kmeans":
        raise ValueError(f"k-means takes no extra parameters; got {unknown}.")
    if method == "gmm":
        raise ValueError(f"Unknown GMM parameter(s) {unknown}; allowed: max_iter, n_init.")
    raise ValueError(f"Unknown VI parameter(s) {unknown}; allowed: {sorted(_METHOD_PARAMS['vi'])}.")


class Partition(BaseEstimator):
    """k-means, a Gaussian mixture (EM) or a variational Bayesian mixture, with one interface.

    A scikit-learn estimator: ``fit(X)`` returns ``self``, :func:`sklearn.base.clone` gives
    an unfitted copy with the same parameters, learned attributes end in ``_``. Parameters
    a method does not use must stay ``None`` (``fit`` says which ones it takes).

    Parameters
    ----------
    method : {"kmeans", "gmm", "vi"}
        k-means (k-means++ seeding, 10 restarts, lowest inertia), Gaussian mixture by EM
        with full covariances, or the variational Bayesian mixture (components whose
        weight falls below ``prune_threshold`` are dropped).
    n_components : int
        Number of clusters (for VI: the upper bound before pruning). It may not exceed the
        number of points, for VI too (nothing is capped silently). GMM and VI need at least
        two points.
    random_state : int
    weight_concentration_prior, mean_precision_prior, degrees_of_freedom_prior : float, optional
        VI priors α0, β0, ν0 (scikit-learn's defaults when None).
    covariance_prior : float or ndarray (d, d), optional
        VI prior w0: a scalar (times I) or a matrix.
    weight_concentration_prior_type : {"dirichlet_process", "dirichlet_distribution"}, optional
        VI only; None means "dirichlet_process".
    prune_threshold : float, optional
        VI only; None means 0.01.
    max_iter, n_init : int, optional
        GMM and VI (VI's max_iter defaults to 500).
    init : array-like of shape (n_components, d), or a fitted Partition, optional
        k-means and GMM: start from these means (for GMM given a Partition, from its weights and
        covariances too), in one run, instead of k-means++ seeding and restarts. Component c then
        grows from the start's c-th: a refit on slightly changed data (a point dragged in the app)
        starts from the previous fit, moves smoothly and keeps each component's identity. VI has
        no initial means and refuses it.

    Attributes
    ----------
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
    estimator_ : KMeans, GaussianMixture or BayesianGaussianMixture
        The fitted scikit-learn model (None for :meth:`from_parameters`).
    """

    def __init__(self, *, method="kmeans", n_components=2, random_state=0, weight_concentration_prior=None,
                 mean_precision_prior=None, degrees_of_freedom_prior=None, covariance_prior=None,
                 weight_concentration_prior_type=None, prune_threshold=None, max_iter=None, n_init=None, init=None):
        self.method = method
        self.n_components = n_components
        self.random_state = random_state
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_precision_prior = mean_precision_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.weight_concentration_prior_type = weight_concentration_prior_type
        self.prune_threshold = prune_threshold
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init

    def _initial_means(self, k, d):
        """``init`` checked against the fit's k and d: (means or None, GMM's further start parameters)."""
        if self.init is None:
            return None, {}
        if self.method == "vi":
            raise ValueError("A variational mixture (vi) starts from its own initialisation: it takes no init means.")
        previous = self.init if isinstance(self.init, Partition) else None
        init = np.asarray(previous.means_ if previous is not None else self.init, dtype=np.float64)
        if init.shape != (k, d) or not np.all(np.isfinite(init)):
            raise ValueError(f"init must be {k} finite means of {d} features (shape ({k}, {d})); got shape {init.shape}.")
        if previous is None or self.method != "gmm":
            return init, {}
        return init, {"weights_init": previous.weights_ / previous.weights_.sum(),
                      "precisions_init": np.linalg.inv(previous.covariances_)}

    def _method_params(self):
        """The method's extra parameters that were set (not None)."""
        names = ("max_iter", "n_init", "prune_threshold") + _VI_PRIORS
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}

    @classmethod
    def from_parameters(cls, means, covariances, weights=None):
        """A fitted Gaussian mixture given by its parameters (no data), e.g. to study a kernel
        on a known model. Covariances must be positive definite."""
        means = check_points(means, name="means")
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
        part = cls(method="gmm", n_components=k)
        part._set_fitted(None, means, covariances, weights / weights.sum(), None, np.zeros(k), [])
        return part

    def _set_fitted(self, estimator, means, covariances, weights, labels, epsilons, notes):
        self.estimator_ = estimator
        self.means_ = means
        self.covariances_ = covariances
        self.weights_ = weights
        self.labels_ = labels
        self.epsilons_ = epsilons
        self.notes_ = notes
        self.n_components_ = len(weights)
        self.n_features_in_ = means.shape[1]

    def fit(self, X, y=None):
        """Fit the partition on ``X`` (``y`` is ignored: no labels are used). Returns ``self``."""
        params = self._method_params()
        _check_method_params(self.method, params)
        X = check_points(X)
        n, d = X.shape
        k = self.n_components
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"The number of components must be a positive whole number; got {k!r}.")
        k = int(k)
        if k > n:
            raise ValueError(f"Cannot make {k} clusters from {n} points: ask for at most {n} components.")
        if self.method != "kmeans" and n < 2:
            raise ValueError(
                f"A Gaussian mixture ({self.method}) needs at least two points to estimate a covariance; got {n}."
            )
        n_distinct = len(np.unique(X, axis=0))
        if self.method != "vi" and k > n_distinct:
            raise ValueError(
                f"Only {n_distinct} distinct points: cannot make {k} different clusters. "
                f"Ask for at most {n_distinct} components."
            )
        init, start = self._initial_means(k, d)
        notes = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.method == "kmeans":
                est = KMeans(n_clusters=k, init="k-means++" if init is None else init, n_init=10 if init is None else 1,
                             random_state=self.random_state).fit(X)
                labels = est.labels_
                means = est.cluster_centers_
                counts = np.bincount(labels, minlength=k)
                covs = np.array([empirical_covariance(X[labels == c], d) for c in range(k)])
                weights = counts / n
                keep = np.arange(k)
            elif self.method == "gmm":
                est = GaussianMixture(n_components=k, covariance_type="full", random_state=self.random_state,
                                      reg_covar=_reg_covar(X), means_init=init, **start, **params).fit(X)
                keep = np.arange(k)
                means, covs, weights = est.means_, est.covariances_, est.weights_
                labels = est.predict(X)
                counts = np.bincount(labels, minlength=k)
            else:
                prune_threshold = 0.01 if self.prune_threshold is None else self.prune_threshold
                if not 0 <= prune_threshold < 1:
                    raise ValueError(f"prune_threshold must be in [0, 1); got {prune_threshold}.")
                est = _vi_estimator(k, self.random_state, params, d, _reg_covar(X)).fit(X)
                keep = np.flatnonzero(est.weights_ >= prune_threshold)
                if len(keep) == 0:
                    keep = np.array([int(np.argmax(est.weights_))])
                if len(keep) < k:
                    notes.append(f"VI kept {len(keep)} of {k} components (weights below {prune_threshold:g} pruned).")
                means = est.means_[keep]
                covs = est.covariances_[keep]
                weights = est.weights_[keep] / est.weights_[keep].sum()
                labels = None
                counts = None
        A = reference_covariance(X)
        towards = "I" if np.array_equal(A, np.eye(d)) else "cov(X)"
        covs = np.array(covs, dtype=np.float64, copy=True)
        epsilons = np.zeros(len(covs))
        self._set_fitted(est, np.asarray(means, dtype=np.float64), covs, np.asarray(weights, dtype=np.float64),
                         labels, epsilons, notes)
        if labels is None:
            # VI: the hard labels of the kept components; counts let the regulariser see tiny clusters.
            # scikit-learn's mixture covariances are already positive definite (reg_covar),
            # so the density can be evaluated before our own regularisation pass.
            labels = np.argmax(self._weighted_log_density(X), axis=1)
            self.labels_ = labels
            counts = np.bincount(labels, minlength=len(keep))
        for c in range(len(covs)):
            effective = counts[c] if self.method == "kmeans" else max(counts[c], d + 1)
            covs[c], epsilons[c] = regularize_covariance(covs[c], A, effective)
            if epsilons[c] > 0:
                notes.append(
                    f"Component {c} ({counts[c]} point(s)) had a singular covariance: "
                    f"regularised with ε = {epsilons[c]:.0e} towards {towards}."
                )
        if self.method != "kmeans":
            self.labels_ = self.predict(X)
        return self

    def _check(self, X):
        if not hasattr(self, "means_"):
            raise ValueError("The partition must be fitted first: call partition.fit(X).")
        X = check_points(X)
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
            # whitened by one matrix product with L⁻¹ (d × d): a triangular solve against all n points
            # ran as LAPACK's many small steps, and with two threads on a busy machine made the RWM
            # Gram up to 2.9× rbf_kernel (bench_kernels.py); the product is one BLAS call
            L_inv = linalg.solve_triangular(L, np.eye(d), lower=True)
            z = (X - self.means_[k]) @ L_inv.T
            log_det = 2.0 * np.log(np.diag(L)).sum()
            out[:, k] = np.log(self.weights_[k]) - 0.5 * (d * np.log(2 * np.pi) + log_det + (z**2).sum(axis=1))
        return out

    def predict(self, X):
        """Hard assignment: nearest centroid (k-means) or most responsible component."""
        X = self._check(X)
        if self.method == "kmeans":
            return self.estimator_.predict(X)
        return np.argmax(self._weighted_log_density(X), axis=1)


def _reg_covar(X):
    """scikit-learn's reg_covar in units of the data's mean variance (its own 1e-6 when X has none)."""
    spread = float(np.mean(np.var(X, axis=0)))
    return _RELATIVE_REG_COVAR * spread if spread > 0 else _RELATIVE_REG_COVAR


def _vi_estimator(n_components, random_state, params, d, reg_covar):
    kwargs = {key: value for key, value in params.items() if key != "prune_threshold"}
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


def fit(method, X, n_components=2, random_state=0, init=None, **params):
    """Fit a partition of ``X`` (no labels needed): ``Partition(method=method, ...).fit(X)``.

    Parameters
    ----------
    method : {"kmeans", "gmm", "vi"}
    X : array-like of shape (n, d)
    n_components : int
    random_state : int
    **params
        The method's extra parameters (see :class:`Partition`): for ``"vi"`` the priors,
        ``prune_threshold``, ``max_iter``, ``n_init``; for ``"gmm"`` ``max_iter``, ``n_init``.
    init : array-like of shape (n_components, d), optional
        Initial means for k-means and GMM (see :class:`Partition`).

    Returns
    -------
    Partition
        Fitted.
    """
    _check_method_params(method, params)
    return Partition(method=method, n_components=n_components, random_state=random_state, init=init,
                     **params).fit(X)


def fit_per_class(method, X, y, n_components=2, random_state=0, **params):
    """Fit one partition per class (for the Support Cluster Machine and MCPM).

    Returns
    -------
    dict
        Class label → :class:`Partition` of that class's points.
    """
    X = check_points(X)
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
