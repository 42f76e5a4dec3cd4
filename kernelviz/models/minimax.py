"""Minimax probability machines: :class:`MPM` (linear or kernelised) and :class:`MCPM`
(kernel MPM on cluster units), with their solvers: :func:`solve_mpm` (primal, explicit rows)
and :func:`solve_kernel_mpm` (dual, on a Gram)."""

import itertools

import numpy as np
from scipy import linalg

from .._validation import check_max_iter, check_positive
from ._base import _binary_labels, _ClusterUnitModel, _kernel_expansion, _KernelModel, _validate_training

#: Kernel names MPM accepts besides those of :func:`kernelviz.kernels.names`.
LINEAR = "linear"

#: Default MPM ridges (fractions of the mean total variance of the two classes): a
#: safeguard for the linear MPM, a regulariser for kernel MPMs (see :class:`MPM`).
LINEAR_RIDGE = 1e-6
KERNEL_RIDGE = 1e-2
#: Relative size of the eigenvalues treated as zero when a Gram's positive part is kept
#: (as kernel PCA drops them, see :func:`kernelviz.models._base._kernel_pca_map`).
_PSD_JITTER = 1e-10


# ----------------------------------------------------------------------------- minimax probability machines
def weighted_moments(F, weights):
    """Weighted mean and population covariance of the rows of ``F``."""
    weights = weights / weights.sum()
    mean = weights @ F
    centred = F - mean
    return mean, (centred * weights[:, None]).T @ centred


def solve_mpm(cov_pos, cov_neg, mean_difference, tol=1e-12, max_iter=1000):
    """Solve min_a ‖Σ₊^½ a‖ + ‖Σ₋^½ a‖ subject to aᵀ(x̄₊ − x̄₋) = 1.

    Iterative least squares (Lanckriet et al., 2002): ‖Σ^½ a‖ = min_λ>0 (λ + aᵀΣa/λ)/2,
    so alternating between the optimal λ's (closed form) and the optimal a (a linear
    system, a ∝ M⁻¹δ with M = Σ₊/λ₊ + Σ₋/λ₋) decreases a jointly convex function
    monotonically to the optimum. Both covariances must be positive definite.

    Parameters
    ----------
    cov_pos, cov_neg : ndarray of shape (d, d)
    mean_difference : ndarray of shape (d,)
    tol : float
        Stop when the objective improves by less than this fraction.
    max_iter : int
        Iteration cap; -1 for none.

    Returns
    -------
    a : ndarray of shape (d,)
    objective : float
        ‖Σ₊^½ a‖ + ‖Σ₋^½ a‖ = 1/κ.
    n_iter : int
    """
    delta = mean_difference

    def constrained_minimiser(M):
        a = linalg.solve(M, delta, assume_a="pos")
        return a / (delta @ a)

    a = constrained_minimiser(cov_pos + cov_neg)
    objective = np.inf
    # max_iter = -1: no cap; the objective decreases monotonically, so the tolerance stops it.
    for n_iter in (itertools.count(1) if max_iter == -1 else range(1, max_iter + 1)):
        spread_pos = np.sqrt(a @ cov_pos @ a)
        spread_neg = np.sqrt(a @ cov_neg @ a)
        previous, objective = objective, spread_pos + spread_neg
        if previous - objective <= tol * objective:
            break
        a = constrained_minimiser(cov_pos / spread_pos + cov_neg / spread_neg)
    return a, objective, n_iter


def solve_kernel_mpm(K, positive, weights, ridge, tol=1e-12, max_iter=1000):
    """The kernel MPM on a training Gram, solved in the dual: a = Σ_j β_j φ(x_j).

    The iteration of :func:`solve_mpm` in the span of the training points. With the
    feature-space class covariances Σ_c = Φᵀ P_c Φ (P_c: the class's weights minus their
    outer product) and δ = Φᵀu (u: the two classes' normalised weights, + minus −),
    M a ∝ δ becomes (P K + ε' I) β = u, P = P₊/s₊ + P₋/s₋, ε' = ε (1/s₊ + 1/s₋). P is a
    positive diagonal minus a rank-2 term, so each step is one Cholesky factorisation of
    K + ε' D⁻¹ and a 2 × 2 Woodbury correction: no eigendecomposition of the Gram, which
    at a few thousand points costs as much as all the steps together. The optimum is the
    one of :func:`solve_mpm` in kernel-PCA coordinates. A Gram that is not PSD (some
    data-dependent kernels) is first replaced by its PSD part, and β kept in that part's
    span, i.e. the MPM in the feature space of the PSD part.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Training Gram.
    positive : ndarray of shape (n,), bool
        Mask of the "+" class.
    weights : ndarray of shape (n,)
        Positive weights of the rows (cluster sizes for MCPM); normalised per class.
    ridge : float
        > 0; added to both covariances times the mean of their traces.
    tol, max_iter
        As in :func:`solve_mpm`.

    Returns
    -------
    beta : ndarray of shape (n,)
        Expansion of a, scaled so that aᵀ(μ₊ − μ₋) = 1.
    b : float
        aᵀμ₊ − κ‖(Σ₊ + εI)^½ a‖.
    objective : float
        1/κ.
    n_iter : int
    """
    ridge = check_positive(ridge, "ridge", allow_zero=True)
    if ridge == 0:
        raise ValueError("A kernel MPM needs ridge > 0: in the kernel's feature space the class covariances are "
                         "singular (each class spans fewer directions than the training points).")
    if np.any(weights <= 0):
        raise ValueError("MPM weights must be positive.")
    K = 0.5 * (K + K.T)
    span = None
    try:  # the cheap PSD test: a tiny jitter, the size of the eigenvalues kernel PCA drops
        linalg.cholesky(K + _PSD_JITTER * np.trace(K) * np.eye(len(K)), lower=True)
    except linalg.LinAlgError:
        eigenvalues, vectors = linalg.eigh(K)
        keep = eigenvalues > _PSD_JITTER * max(eigenvalues[-1], np.finfo(float).tiny)
        if not np.any(keep):
            raise ValueError("The training Gram matrix is zero or negative definite: the kernel sees no structure.")
        span = vectors[:, keep]
        K = (span * eigenvalues[keep]) @ span.T
    # Per-class normalised weights; V's columns are the two classes' weight vectors.
    w = np.where(positive, weights / weights[positive].sum(), weights / weights[~positive].sum())
    V = np.stack([np.where(positive, w, 0.0), np.where(positive, 0.0, w)], axis=1)
    u = V[:, 0] - V[:, 1]
    KV = K @ V

    def class_variances(g):
        """(gᵀP₊g, gᵀP₋g) for g = Kβ: the feature-space variances of aᵀφ without the ridge."""
        return (V.T @ (g * g)) - (V.T @ g) ** 2

    traces = V.T @ np.diag(K) - np.einsum("ic,ij,jc->c", V, K, V)
    gap = u @ K @ u
    if gap <= 1e-24 * traces.sum():
        raise ValueError(
            "The two classes have the same mean in the model's feature space, so no minimax "
            "hyperplane exists. Use a (different) non-linear kernel or more data."
        )
    # The ridge is relative to the total variance; when each class is a single point
    # (or unit) the gap between the means is the only length scale left.
    epsilon = ridge * 0.5 * (traces.sum() if traces.sum() > 0 else gap)

    def constrained_minimiser(s_pos, s_neg):
        scale = np.where(positive, s_pos, s_neg)  # D⁻¹ = scale / w
        factor = linalg.cho_factor(K + np.diag(epsilon * (1.0 / s_pos + 1.0 / s_neg) * scale / w), lower=True)
        # A⁻¹ = H⁻¹ D⁻¹ with H = K + ε' D⁻¹; D⁻¹ u and D⁻¹ V are the class indicators times s_c.
        solved = linalg.cho_solve(factor, np.stack([u * scale / w, V[:, 0] * scale / w, V[:, 1] * scale / w], axis=1))
        beta0, Y = solved[:, 0], solved[:, 1:]
        small = KV.T @ Y - np.diag([s_pos, s_neg])
        beta = beta0 - Y @ np.linalg.solve(small, KV.T @ beta0)
        return beta / (beta @ (K @ u))

    def spreads(beta):
        g = K @ beta
        return np.sqrt(np.maximum(class_variances(g) + epsilon * (beta @ g), 0.0)), g

    beta = constrained_minimiser(1.0, 1.0)
    objective = np.inf
    for n_iter in (itertools.count(1) if max_iter == -1 else range(1, max_iter + 1)):
        (spread_pos, spread_neg), g = spreads(beta)
        previous, objective = objective, spread_pos + spread_neg
        if previous - objective <= tol * objective:
            break
        beta = constrained_minimiser(spread_pos, spread_neg)
    (spread_pos, _), g = spreads(beta)
    b = V[:, 0] @ g - spread_pos / objective
    if span is not None:
        beta = span @ (span.T @ beta)
    return beta, b, objective, n_iter


class _MinimaxModel(_KernelModel):
    """Binary minimax probability machine: the primal on explicit rows, the dual on a Gram."""

    def _set_bound(self, objective):
        self.kappa_ = 1.0 / objective
        self.alpha_ = self.kappa_ ** 2 / (1.0 + self.kappa_ ** 2)

    def _fit_minimax(self, F, positive, ridge):
        """Linear MPM on the rows of F (positive = mask of class ``classes_[1]``); returns a, b."""
        ridge = check_positive(ridge, "ridge", allow_zero=True)
        check_positive(self.tol, "tol")
        weights = np.ones(len(F))
        mean_pos, cov_pos = weighted_moments(F[positive], weights[positive])
        mean_neg, cov_neg = weighted_moments(F[~positive], weights[~positive])
        delta = mean_pos - mean_neg
        spread = np.trace(cov_pos) + np.trace(cov_neg)
        if np.linalg.norm(delta) <= 1e-12 * np.sqrt(spread):
            raise ValueError(
                "The two classes have the same mean in the model's feature space, so no minimax "
                "hyperplane exists. Use a (different) non-linear kernel or more data."
            )
        # The ridge is relative to the total variance; when each class is a single point
        # the gap between the means is the only length scale left.
        shift = ridge * 0.5 * (spread if spread > 0 else delta @ delta) * np.eye(F.shape[1])
        cov_pos, cov_neg = cov_pos + shift, cov_neg + shift
        if ridge == 0 and (min(np.linalg.eigvalsh(cov_pos)[0], np.linalg.eigvalsh(cov_neg)[0]) <= 0):
            raise ValueError("A class covariance is singular: set ridge > 0.")
        a, objective, self.n_iter_ = solve_mpm(cov_pos, cov_neg, delta, tol=self.tol, max_iter=self.max_iter)
        self._set_bound(objective)
        return a, a @ mean_pos - self.kappa_ * np.sqrt(a @ cov_pos @ a)

    def _fit_kernel_minimax(self, K, positive, weights, ridge):
        """Kernel MPM on the Gram K; returns the expansion β and b."""
        check_positive(self.tol, "tol")
        beta, b, objective, self.n_iter_ = solve_kernel_mpm(K, positive, weights, ridge, tol=self.tol,
                                                            max_iter=self.max_iter)
        self._set_bound(objective)
        return beta, b


class MPM(_MinimaxModel):
    """Minimax Probability Machine (Lanckriet et al.), linear or kernelised. Two classes only.

    Finds the hyperplane aᵀz = b that maximises the worst-case accuracy α over all class
    distributions with the training means and covariances:
    min_a ‖Σ₊^½ a‖ + ‖Σ₋^½ a‖ s.t. aᵀ(x̄₊ − x̄₋) = 1, κ = 1/min, α = κ²/(1 + κ²),
    b = aᵀx̄₊ − κ‖Σ₊^½ a‖ (class "+" is ``classes_[1]``). The kernelised form (Yang et al. 2008,
    Eq. 4; docs/MATH.md §8.4) is solved in the dual, a = Σ_j v_j φ(x_j), by
    :func:`solve_kernel_mpm`: the same optimum as the linear problem in kernel-PCA
    coordinates, without an eigendecomposition of the Gram. Covariances are population covariances
    (1/N), as in the kernel form.

    Parameters
    ----------
    kernel : "linear", str or kernel object, default="linear"
        "linear" for the primal MPM, a name from :func:`kernelviz.kernels.names` or a
        kernel object for the kernel MPM.
    gamma : float, default=None
        The kernel's γ (unused by "linear"); must be > 0. None keeps the kernel's own: a
        kernel object's ``gamma`` (so ``GridSearchCV`` over ``kernel__gamma`` works), 1.0
        for a name.
    kernel_params : dict, default=None
        Other kernel parameters.
    ridge : float or "auto", default="auto"
        Added to both class covariances, times the mean of their traces; ≥ 0 for
        "linear", > 0 for a kernel. "auto" is 1e-6 for "linear" and 1e-2 for a kernel: in a feature space with as many
        dimensions as points, both class covariances are singular along common
        directions, the unregularised optimum is κ = ∞ (α = 1), and the ridge is what
        keeps the bound meaningful.
    tol : float, default=1e-12
        Relative objective change that stops the iterative least squares.
    max_iter : int, default=1000
        Iteration cap of the iterative least squares; -1 for none (the tolerance alone stops it).

    Attributes
    ----------
    kappa_ : float
        κ = 1 / (optimal objective).
    alpha_ : float
        Worst-case accuracy bound κ²/(1 + κ²), in (0, 1).
    coef_ : ndarray of shape (n_features,)
        The hyperplane's normal a ("linear" only).
    dual_coef_ : ndarray of shape (n_samples,)
        Expansion a = Σ_j dual_coef_[j] φ(X_fit_[j]) (kernels only).
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training points (kernels only).
    intercept_ : float
        −b: the decision function is aᵀφ(z) + intercept_.
    kernel_ : kernel object or "linear"
    n_iter_ : int
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    """

    def __init__(self, *, kernel=LINEAR, gamma=None, kernel_params=None, ridge="auto", tol=1e-12, max_iter=1000):
        self.kernel = kernel
        self.gamma = gamma
        self.kernel_params = kernel_params
        self.ridge = ridge
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y, X_unlabeled=None):
        """Estimate the class means and covariances and solve the MPM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None
            Extra points for the kernel's unsupervised part (ignored by "linear").

        Returns
        -------
        self : MPM
        """
        check_max_iter(self.max_iter)
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=True)
        self.kernel_ = self._fit_kernel(X_all, extra_names=(LINEAR,))
        positive = _binary_labels(y, self.classes_)
        if self.kernel_ == LINEAR:
            ridge = LINEAR_RIDGE if self.ridge == "auto" else self.ridge
            self.coef_, b = self._fit_minimax(X, positive, ridge)
        else:
            ridge = KERNEL_RIDGE if self.ridge == "auto" else self.ridge
            self.dual_coef_, b = self._fit_kernel_minimax(self.kernel_(X, X), positive, np.ones(len(X)), ridge)
            self.X_fit_ = X
        self.intercept_ = -b
        return self

    def decision_function(self, X):
        """aᵀφ(z) − b; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        decision : ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        if self.kernel_ == LINEAR:
            return X @ self.coef_ + self.intercept_
        return _kernel_expansion(self.kernel_, X, self.X_fit_, self.dual_coef_, self.intercept_)


class MCPM(_MinimaxModel, _ClusterUnitModel):
    """Minimax Clustering Probability Machine (Yang et al.): kernel MPM on cluster units.

    Each class is split into ``n_components`` k-means clusters, each a Gaussian unit
    built as for :class:`SCM` (see its notes on weights and bandwidth); the kernel MPM
    of Yang et al. (2008), Eq. 4–5 (docs/MATH.md §8.5), is solved on the units' Gram (LPPK or RBF-PPK), with class
    means and covariances in the feature space weighted by the clusters' sizes (with
    equal sizes this is exactly Eq. 4), by :func:`solve_kernel_mpm` as in :class:`MPM`. A
    test point z is the unit (1, z, s² I). Two classes only; ``alpha_`` is the
    worst-case accuracy bound -- of the ridge-regularised unit statistics, so it reads
    as a property of the fitted model rather than a guarantee about points.

    Parameters
    ----------
    kernel : {"rbf-ppk", "lppk"}, default="rbf-ppk"
    gamma : float, default=1.0
        The kernel's γ; must be > 0.
    n_components : int, default=15
        Clusters per class (fewer for a class with fewer distinct points).
    point_bandwidth : float, default=None
        s of the point units (1, z, s² I); None: the typical cluster scale for
        RBF-PPK, s² = 1/(4γ) for LPPK (see :class:`SCM`).
    normalize : {"density", "unit"}, default="density"
        How a point is scaled against a cluster unit (see :class:`SCM`, docs/MATH.md §4.9.1).
    point_covariance : {"bandwidth", "cluster"}, default="bandwidth"
        The covariance of a new point's unit (see :class:`SCM`).
    random_state : int, default=0
        Seed of k-means.
    ridge : float, default=1e-2
        Added to both feature-space covariances, times the mean of their traces; > 0.
        With two dozen units the class covariances are singular and this ridge is what
        keeps ``alpha_`` below 1; it also stands in for the within-cluster spread the
        units' covariance cannot see. ``alpha_`` depends on it strongly.
    tol : float, default=1e-12
    max_iter : int, default=1000
        Iteration cap of the iterative least squares (see :func:`solve_mpm`); -1 for none.

    Attributes
    ----------
    kappa_ : float
        κ = 1 / (optimal objective).
    alpha_ : float
        Worst-case accuracy bound κ²/(1 + κ²).
    units_ : kernelviz.kernels.Units
    unit_labels_ : ndarray of shape (n_units,)
    unit_sizes_ : ndarray of shape (n_units,)
    dual_coef_ : ndarray of shape (n_units,)
        The decision function is Σ_j dual_coef_[j] K(z, unit_j) + intercept_.
    intercept_ : float
    partitions_ : dict
    kernel_ : kernel object
    n_iter_ : int
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    """

    def __init__(self, *, kernel="rbf-ppk", gamma=1.0, n_components=15, point_bandwidth=None, normalize="density",
                 point_covariance="bandwidth", random_state=0, ridge=KERNEL_RIDGE, tol=1e-12, max_iter=1000):
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.point_bandwidth = point_bandwidth
        self.normalize = normalize
        self.point_covariance = point_covariance
        self.random_state = random_state
        self.ridge = ridge
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y, X_unlabeled=None):
        """Cluster each class, then solve the kernel MPM on the cluster units.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None
            Accepted so that every model has the same ``fit``; ignored (see :meth:`SCM.fit`).

        Returns
        -------
        self : MCPM
        """
        check_max_iter(self.max_iter)
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=True)
        K = self._fit_units(X, y, X_all)
        positive = _binary_labels(self.unit_labels_, self.classes_)
        self.dual_coef_, b = self._fit_kernel_minimax(K, positive, self.unit_sizes_.astype(np.float64), self.ridge)
        self.intercept_ = -b
        return self

    def decision_function(self, X):
        """Σ_j dual_coef_[j] K(z, unit_j) + intercept_; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        decision : ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        return _kernel_expansion(self._point_kernel, X, self.units_, self.dual_coef_, self.intercept_)
