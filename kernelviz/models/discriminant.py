"""Kernel discriminants: :class:`KFD`, :class:`KNDA`, and :class:`CKSVMNDA` (an SVM whose
regulariser includes KNDA's scatter matrices)."""

import numpy as np
from scipy import linalg

from .. import _svm
from .._validation import check_choice, check_count, check_max_iter, check_positive
from ._base import (_binary_labels, _digest, _ExpansionModel, _kernel_pca_map, _make_kernel, _StageMemo,
                    _validate_training, _warn_if_capped)


#: 64 MB: a search scores its candidates fold by fold (kernelviz.reproduce.papers._selection), so one
#: fold's stages are in use at a time: German's 560-point folds need about 18 MB per fold and η.
_CKSVMNDA_STAGES = _StageMemo(64 * 2 ** 20)


def _theta_stage(F, discriminant, eta):
    """Θ = η Δ(∇ + βI)⁻¹Δ + I, Θ^(−½), the features Z = F Θ^(−½) and their Gram Z Zᵀ."""
    theta = eta * discriminant + np.eye(F.shape[1])
    eigenvalues, vectors = linalg.eigh(0.5 * (theta + theta.T))
    inverse_sqrt = (vectors / np.sqrt(eigenvalues)) @ vectors.T
    Z = F @ inverse_sqrt
    return theta, inverse_sqrt, Z, Z @ Z.T


# ----------------------------------------------------------------------------- discriminants
def within_class_scatter(F, positive):
    """Δ = Σ_m F_mᵀ (I − 1_{N_m}) F_m over the two classes' rows F_m of F.

    With F = K (rows = columns of a symmetric Gram) this is the Δ of docs/MATH.md (8.3),
    Δ = K₁(I − 1_{N₁})K₁ᵀ + K₂(I − 1_{N₂})K₂ᵀ.
    """
    scatter = np.zeros((F.shape[1], F.shape[1]))
    for members in (positive, ~positive):
        centred = F[members] - F[members].mean(axis=0)
        scatter += centred.T @ centred
    return scatter


def nonparametric_between_scatter(F, K, positive, n_neighbors, weight_exponent):
    """KNDA's between-class scatter ∇ (Ksantini & Gharbi 2015, Eqs. 3–7; docs/MATH.md §8.7) on the feature rows F.

    For each point x_i, L_i = φ(x_i) − (mean of its κ nearest neighbours in the other
    class); ∇ = (1/N) Σ_i Ψ_i L_i L_iᵀ with the boundary weight
    Ψ_i = min(d_own^p, d_other^p) / (d_own^p + d_other^p), where d_c is the kernel-space
    distance from x_i to its κ-th nearest neighbour in class c (x_i itself excluded) and
    p = ``weight_exponent``: Ψ ≈ ½ near the boundary and → 0 far from it. Neighbours
    and distances use ‖φ(x) − φ(y)‖² = K(x,x) + K(y,y) − 2K(x,y).

    Returns
    -------
    scatter : ndarray of shape (F.shape[1], F.shape[1])
    weights : ndarray of shape (n_samples,)
        The Ψ_i.
    """
    diagonal = np.diag(K)
    distances = np.sqrt(np.maximum(diagonal[:, None] + diagonal[None, :] - 2.0 * K, 0.0))
    np.fill_diagonal(distances, np.inf)
    n = len(F)
    L = np.empty_like(F)
    weights = np.empty(n)
    for i in range(n):
        same = positive == positive[i]
        own = np.flatnonzero(same)
        other = np.flatnonzero(~same)
        k_other = min(n_neighbors, len(other))
        nearest_other = other[np.argsort(distances[i, other])[:k_other]]
        L[i] = F[i] - F[nearest_other].mean(axis=0)
        d_other = distances[i, nearest_other[-1]]
        k_own = min(n_neighbors, len(own) - 1)
        d_own = np.sort(distances[i, own])[k_own - 1] if k_own > 0 else d_other
        powered = np.array([d_own, d_other]) ** weight_exponent
        total = powered.sum()
        weights[i] = powered.min() / total if total > 0 else 0.5
    return (L * weights[:, None]).T @ L / n, weights


class _DiscriminantModel(_ExpansionModel):
    """Kernel discriminants: a direction in the empirical kernel map, then a 1-D rule.

    The rule is the Bayes classifier of two Gaussians with a shared variance on the
    projections p = Σ_j w_j K(x_j, x): decision = log P(+|p)/P(−|p)
    = (μ₊ − μ₋)/σ² · (p − (μ₊ + μ₋)/2) + log(N₊/N₋), with the projected class means μ,
    the pooled within-class variance σ² and the class frequencies as priors. For balanced
    classes the threshold is the midpoint of the projected class means.
    """

    def _fit_discriminant(self, X, y, X_unlabeled, direction):
        """Fit the kernel, get w from ``direction(K, positive, beta)``, set the 1-D rule."""
        beta = check_positive(self.beta, "beta")
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=True)
        self.kernel_ = self._fit_kernel(X_all)
        K = self.kernel_(X, X)
        positive = _binary_labels(y, self.classes_)
        w = direction(K, positive, beta)
        projections = K @ w
        mean_pos, mean_neg = projections[positive].mean(), projections[~positive].mean()
        if mean_pos < mean_neg:  # orient the direction towards classes_[1]
            w, projections, mean_pos, mean_neg = -w, -projections, -mean_pos, -mean_neg
        residuals = np.where(positive, projections - mean_pos, projections - mean_neg)
        variance = residuals @ residuals / len(X)
        gap = mean_pos - mean_neg
        log_prior_odds = np.log(positive.sum() / (~positive).sum())
        if variance > 1e-12 * gap * gap:
            slope = gap / variance
        else:
            # Each class projects to a single value (e.g. one point per class): as σ² → 0 the
            # Bayes rule becomes the midpoint threshold and the priors drop out; scale it so
            # the class means sit at ±1.
            slope, log_prior_odds = (2.0 / gap if gap > 0 else 0.0), 0.0
        self.direction_ = w
        self.projected_means_ = np.array([mean_neg, mean_pos])
        self.dual_coef_ = slope * w
        self.intercept_ = -slope * 0.5 * (mean_pos + mean_neg) + log_prior_odds
        self.X_fit_ = X
        return self


_DISCRIMINANT_ATTRIBUTES = """
    Attributes
    ----------
    direction_ : ndarray of shape (n_samples,)
        Coefficients w of the projection p(x) = Σ_j w_j K(x_j, x), oriented so that
        ``classes_[1]`` projects higher.
    projected_means_ : ndarray of shape (2,)
        Mean projection of ``classes_[0]`` and ``classes_[1]``.
    dual_coef_ : ndarray of shape (n_samples,)
    intercept_ : float
        The decision function is k(x, X_fit_) · dual_coef_ + intercept_ (the log
        posterior odds of the 1-D rule).
    X_fit_ : ndarray of shape (n_samples, n_features)
    kernel_ : kernel object
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
"""


class KFD(_DiscriminantModel):
    __doc__ = """Kernel Fisher Discriminant (Mika et al.) in the empirical kernel map. Two classes only.

    Sample i is the column K[:, i]; the direction is w = (Δ + βI)⁻¹ (m₊ − m₋), with m
    the class means of the columns and Δ the within-class scatter
    (:func:`within_class_scatter`). Points are classified by the 1-D Bayes rule on the
    projections (see the class notes of the discriminants: for balanced classes the
    threshold is the midpoint of the projected class means).

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
    gamma : float, default=None
        The kernel's γ; must be > 0. None keeps the kernel's own: a kernel object's
        ``gamma`` (so ``GridSearchCV`` over ``kernel__gamma`` works), 1.0 for a name.
    beta : float, default=1e-3
        Ridge β added to Δ; must be > 0.
    kernel_params : dict, default=None
        Other kernel parameters.
    """ + _DISCRIMINANT_ATTRIBUTES

    def __init__(self, *, kernel="rbf", gamma=None, beta=1e-3, kernel_params=None):
        self.kernel = kernel
        self.gamma = gamma
        self.beta = beta
        self.kernel_params = kernel_params

    def fit(self, X, y, X_unlabeled=None):
        """Fit the kernel on X ∪ X_unlabeled, then the discriminant on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None

        Returns
        -------
        self : KFD
        """
        def fisher_direction(K, positive, beta):
            mean_difference = K[positive].mean(axis=0) - K[~positive].mean(axis=0)
            scatter = within_class_scatter(K, positive)
            return linalg.solve(scatter + beta * np.eye(len(K)), mean_difference, assume_a="pos")

        return self._fit_discriminant(X, y, X_unlabeled, fisher_direction)


class KNDA(_DiscriminantModel):
    __doc__ = """Kernel Nonparametric Discriminant Analysis (Ksantini & Gharbi 2015, §2.2; docs/MATH.md §8.7). Two classes only.

    The between-class scatter ∇ is built from the κ nearest neighbours of each point in
    the other class, weighted towards the class boundary
    (:func:`nonparametric_between_scatter`); the direction is the top eigenvector of
    (Δ + βI)⁻¹ ∇ (a symmetric-definite generalised eigenproblem). Points are classified
    by the same 1-D Bayes rule on the projections as :class:`KFD`.

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
    gamma : float, default=None
        The kernel's γ; must be > 0. None keeps the kernel's own: a kernel object's
        ``gamma`` (so ``GridSearchCV`` over ``kernel__gamma`` works), 1.0 for a name.
    beta : float, default=1e-3
        Ridge β added to Δ; must be > 0.
    n_neighbors : int, default=5
        κ, the neighbours taken in the other class (capped by the class size).
    weight_exponent : float, default=1.0
        The exponent of the boundary weights Ψ (the paper's second "γ"); ≥ 0.
    kernel_params : dict, default=None
        Other kernel parameters.
    """ + _DISCRIMINANT_ATTRIBUTES + """    boundary_weights_ : ndarray of shape (n_samples,)
        Ψ_i of every training point.
"""

    def __init__(self, *, kernel="rbf", gamma=None, beta=1e-3, n_neighbors=5, weight_exponent=1.0,
                 kernel_params=None):
        self.kernel = kernel
        self.gamma = gamma
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.weight_exponent = weight_exponent
        self.kernel_params = kernel_params

    def fit(self, X, y, X_unlabeled=None):
        """Fit the kernel on X ∪ X_unlabeled, then the discriminant on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None

        Returns
        -------
        self : KNDA
        """
        n_neighbors = check_count(self.n_neighbors, "n_neighbors")
        exponent = check_positive(self.weight_exponent, "weight_exponent", allow_zero=True)

        def nonparametric_direction(K, positive, beta):
            between, self.boundary_weights_ = nonparametric_between_scatter(K, K, positive, n_neighbors, exponent)
            within = within_class_scatter(K, positive) + beta * np.eye(len(K))
            _, top = linalg.eigh(between, within, subset_by_index=[len(K) - 1, len(K) - 1])
            return top[:, 0]

        return self._fit_discriminant(X, y, X_unlabeled, nonparametric_direction)


class CKSVMNDA(_ExpansionModel):
    """Combined kernel SVM and KNDA (Ksantini & Gharbi, 2015). Two classes only.

    The SVM regulariser ½ wᵀw becomes ½ wᵀΘw with Θ = η Δ (∇ + βI)⁻¹ Δ + I (Ksantini & Gharbi 2015,
    Eq. 16; docs/MATH.md §8.8), Δ and ∇ the within-class and nonparametric between-class scatter of the
    training feature vectors φ(x_i). Writing ŵ = Θ^½ w turns it into a plain linear SVM
    on the features Θ^(−½) φ(x), solved by libsvm; a new point is mapped the same way.

    The paper's objective, Eq. 11, reads ½ wᵀ(2λΔ + β∇ + I)w − λβ, which is not the
    matrix of Eq. 16 (no inverse of ∇ + βI, different weights); we implement Eq. 16,
    the form the paper actually solves (its Lemma 1).

    The feature vectors φ(x_i) are explicit coordinates of the kernel's feature space:

    * ``feature_map="kernel_pca"`` (default): φ(x) = Λ^(−½) Uᵀ k(x) with K = U Λ Uᵀ,
      whose inner products reproduce K. With η = 0, Θ = I and the model *is* the kernel
      SVM with this kernel (same Gram, same libsvm problem).
    * ``feature_map="empirical"``: φ(x_i) = K[:, i], the empirical kernel map the paper
      writes. With η = 0 this is a linear SVM on the columns of K, i.e. an
      SVM with the Gram K², not the kernel SVM with K.

    Both reproduce the Δ of docs/MATH.md (8.3), Δ = K₁(I − 1_{N₁})K₁ᵀ + K₂(I − 1_{N₂})K₂ᵀ up to the change of
    coordinates.

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
    C : float, default=1.0
        Hinge-loss penalty; must be > 0.
    gamma : float, default=None
        The kernel's γ; must be > 0. None keeps the kernel's own: a kernel object's
        ``gamma`` (so ``GridSearchCV`` over ``kernel__gamma`` works), 1.0 for a name.
    eta : float, default=1e-4
        Weight η of the discriminant term; ≥ 0 (0 gives the plain SVM). Δ(∇ + βI)⁻¹Δ
        grows like (N·K²)²/β, so the useful η depends on the data and the kernel: on 200
        moons with an RBF kernel (γ = 1) Θ's largest eigenvalue is ~30 at η = 1e-4 and
        ~3e5 at η = 1. Search η on a log grid (the paper tunes 20 values).
    beta : float, default=1e-3
        Ridge β added to ∇ before inverting it; must be > 0.
    n_neighbors : int, default=5
        κ of the nonparametric scatter.
    weight_exponent : float, default=1.0
        Exponent of KNDA's boundary weights Ψ; ≥ 0.
    feature_map : {"kernel_pca", "empirical"}, default="kernel_pca"
    kernel_params : dict, default=None
        Other kernel parameters.
    tol : float, default=1e-3
        libsvm's stopping tolerance.
    max_iter : int, default=-1
        Cap on libsvm's iterations (-1: none).

    Attributes
    ----------
    theta_ : ndarray of shape (n_features_map, n_features_map)
        Θ of Eq. 16.
    dual_coef_ : ndarray of shape (n_samples,)
    intercept_ : float
        The decision function is k(x, X_fit_) · dual_coef_ + intercept_.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors.
    n_iter_ : ndarray of shape (1,)
        libsvm iterations.
    max_iter_reached_ : bool
        True when ``max_iter`` stopped the solver.
    svc_ : sklearn.svm.SVC
        libsvm on the transformed features (precomputed linear Gram).
    X_fit_ : ndarray of shape (n_samples, n_features)
    kernel_ : kernel object
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    """

    def __init__(self, *, kernel="rbf", C=1.0, gamma=None, eta=1e-4, beta=1e-3, n_neighbors=5, weight_exponent=1.0,
                 feature_map="kernel_pca", kernel_params=None, tol=1e-3, max_iter=-1):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.eta = eta
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.weight_exponent = weight_exponent
        self.feature_map = feature_map
        self.kernel_params = kernel_params
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y, X_unlabeled=None):
        """Fit the kernel on X ∪ X_unlabeled, build Θ, then the linear SVM on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None

        Returns
        -------
        self : CKSVMNDA
        """
        C = check_positive(self.C, "C")
        eta = check_positive(self.eta, "eta", allow_zero=True)
        beta = check_positive(self.beta, "beta")
        n_neighbors = check_count(self.n_neighbors, "n_neighbors")
        exponent = check_positive(self.weight_exponent, "weight_exponent", allow_zero=True)
        check_choice(self.feature_map, "feature_map", ("kernel_pca", "empirical"))
        max_iter = check_max_iter(self.max_iter)
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=True)
        positive = _binary_labels(y, self.classes_)
        data = self._stage_key(X_all, len(X), positive)
        self.kernel_, F, Q, discriminant = _CKSVMNDA_STAGES.get(
            data and (data, "scatter", beta, n_neighbors, exponent, self.feature_map),
            lambda: self._scatter_stage(X_all, X, positive, beta, n_neighbors, exponent))
        self.theta_, inverse_sqrt, Z, gram = _CKSVMNDA_STAGES.get(
            data and (data, "scatter", beta, n_neighbors, exponent, self.feature_map, "theta", eta),
            lambda: _theta_stage(F, discriminant, eta))
        self.svc_ = _svm.fit_svm(gram, y, C=C, tol=self.tol, max_iter=max_iter)
        self.support_ = self.svc_.support_
        self.n_iter_ = self.svc_.n_iter_
        self.max_iter_reached_ = _svm.reached_iteration_cap(self.svc_)
        _warn_if_capped(self, self.max_iter_reached_, max_iter)
        # The linear SVM's weights in Θ^(−½)-feature space, pulled back to coefficients on
        # k(x, X_fit_) so that prediction is a single kernel expansion.
        w = Z[self.support_].T @ self.svc_.dual_coef_[0]
        coef = inverse_sqrt @ w
        self.dual_coef_ = coef if Q is None else Q @ coef
        self.intercept_ = float(self.svc_.intercept_[0])
        self.X_fit_ = X
        return self

    def _stage_key(self, X_all, n_labeled, positive):
        """What the fit's data-only stages depend on besides their own parameters: the data and the
        kernel (``None``, nothing kept, for a kernel object or one that draws at random)."""
        if not isinstance(self.kernel, str) or self.kernel_params:
            return None
        params = self._fit_kernel_params()
        if params is None:
            return None
        return (type(self).__name__, self.kernel, params, n_labeled, _digest(X_all, positive))

    def _fit_kernel_params(self):
        unfitted = _make_kernel(self.kernel, self.gamma, self.kernel_params)
        if isinstance(unfitted, str):
            return unfitted
        params = unfitted.get_params()
        if "random_state" in params and params["random_state"] is None:
            return None
        return repr(sorted(params.items()))

    def _scatter_stage(self, X_all, X, positive, beta, n_neighbors, exponent):
        """The fitted kernel, the feature rows F (and Q of the kernel-PCA map), and Δ(∇ + βI)⁻¹Δ."""
        kernel = self._fit_kernel(X_all)
        K = kernel(X, X)
        if self.feature_map == "kernel_pca":
            F, Q = _kernel_pca_map(K)
        else:
            F, Q = K, None
        within = within_class_scatter(F, positive)
        between, _ = nonparametric_between_scatter(F, K, positive, n_neighbors, exponent)
        dim = F.shape[1]
        return kernel, F, Q, within @ linalg.solve(between + beta * np.eye(dim), within, assume_a="pos")
