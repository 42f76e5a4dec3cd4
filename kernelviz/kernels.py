"""Every kernel of docs/MATH.md §4, with one interface.

The structured kernels all map a point to a Gaussian and compare Gaussians:

* ``rbf``          exp(−γ‖x − y‖²)
* ``mrbf``         exp(−γ (x−y)ᵀ Σ⁻¹ (x−y)), Σ = cov(X)
* ``ckrbf``        det(Σx + Σy)^(−½) exp(−γ (x−y)ᵀ (Σx + Σy)⁻¹ (x−y)), Σx = covariance of x's cluster
* ``ckrbf-radial`` the same with Σi = σi² I, σi² = trace(Σi)/d
* ``gmm``          exp(−γ Δ_GMM²), Δ_GMM = Σk πk Δk(x, y)
* ``rwm``          exp(−γ Δ_RWM²), Δ_RWM = Σk ½(ρ(x,k) + ρ(y,k)) Δk(x, y)
* ``lap``          the Laplacian-SVM deformation of the RBF kernel by a k-NN graph

``rbf``, ``gmm``, ``rwm`` and ``lap`` can set categorical columns apart (the RWM paper's §3.4):
their squared distance becomes α·(continuous part) + β·(mismatches of the categorical
columns), and the density model or graph sees the continuous columns only.
* ``lppk``         probability product P_a P_b N(μa | μb, Σa + Σb) of Gaussian units
* ``rbf-ppk``      exp(−γ ‖φ(a) − φ(b)‖²) in the LPPK feature space

Usage::

    k = make("ckrbf", gamma=0.5, n_components=2).fit(X_all)   # unsupervised part only
    K = k(X, Y)                                                # Gram matrix (len X, len Y)

Kernels of the form K = n ⊙ exp(−γ D) (``gamma_convertible``) expose D and log n via
:meth:`Kernel.gamma_family`, so that a whole γ grid costs one distance computation
(the γ-conversion of the CkRBF paper, §4).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg, sparse
from sklearn.base import BaseEstimator, clone
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.neighbors import kneighbors_graph

from . import _cluster_pairs as _pairs
from . import partitions as _partitions
from . import registry as _registry
from ._chunks import apply_in_chunks  # noqa: F401 -- public name kv.kernels.apply_in_chunks (DESIGN.md)
from ._cluster_pairs import LOG_MAX as _LOG_MAX
from ._cluster_pairs import OVERFLOW_MESSAGE as _OVERFLOW_MESSAGE
from ._cluster_pairs import whitener as _whitener
from ._validation import (check_categorical_columns, check_choice, check_points, check_positive,
                          check_unit_interval)


# ----------------------------------------------------------------------------- helpers

def _sq_dists(A, B, same):
    """Squared Euclidean distances; exact zeros on the diagonal of a self-Gram."""
    D = euclidean_distances(A, B, squared=True)
    if same:
        np.fill_diagonal(D, 0.0)
    return D


class GammaFamily:
    """The Gram matrices K_γ = exp(log n − γ D) of one kernel on one pair of point sets.

    ``D`` (γ-free "distance" part) and ``log_n`` (log of the normaliser, a scalar or a
    matrix) are computed once; :meth:`gram` then costs one pass of ``exp`` per γ.
    """

    def __init__(self, D, log_n=0.0):
        self.D = D
        self.log_n = log_n

    @property
    def n(self):
        """The normaliser matrix (or scalar) n."""
        return np.exp(self.log_n)

    def gram(self, gamma, out=None):
        """K_γ = n ⊙ exp(−γ D)."""
        gamma = check_positive(gamma, "gamma")
        if np.max(self.log_n) > _LOG_MAX:      # K ≤ n, so only the normaliser can overflow
            raise ValueError(_OVERFLOW_MESSAGE)
        K = np.multiply(self.D, -gamma, out=out)
        if not (np.isscalar(self.log_n) and self.log_n == 0.0):
            K += self.log_n
        return np.exp(K, out=K)


# ----------------------------------------------------------------------------- base class
class Kernel(BaseEstimator):
    """Base class: a kernel with an unsupervised ``fit`` and a Gram-matrix ``__call__``.

    A scikit-learn estimator: its parameters are its keyword-only ``__init__`` arguments
    (``get_params(deep=True)`` also lists a Partition's as ``partition__n_components``
    etc.), ``fit(X, y=None)`` returns ``self``. Subclasses implement ``_fit`` and either
    ``_gamma_family`` (for kernels of the form n ⊙ exp(−γ D)) or ``_gram``.

    A data-dependent kernel is fitted inside :class:`kernelviz.models.KernelSVC`'s own
    ``fit``, so ``clone``, ``cross_val_score`` and ``GridSearchCV`` work on that model.
    Given straight to ``sklearn.svm.SVC(kernel=k)`` it is cloned unfitted by scikit-learn
    and says so when called.
    """

    name = "kernel"
    needs_fit = True

    @property
    def gamma_convertible(self) -> bool:
        """Whether K = n ⊙ exp(−γ D), so that :meth:`gamma_family` exists: the kernel's row in
        ``kernelviz.registry.KERNELS`` says (one place for every fact about a kernel)."""
        return _registry.KERNELS[self.name].gamma_convertible

    def __init__(self, *, gamma=1.0):
        self.gamma = gamma

    # -- scikit-learn style parameters
    def set_params(self, **params):
        """Set parameters (``partition__n_components`` reaches a Partition's); unknown names
        are refused with the list of valid ones."""
        valid = self.get_params(deep=True)
        for key in params:
            if key not in valid:
                raise ValueError(f"Kernel {self.name!r} has no parameter {key!r}; its parameters are "
                                 f"{self._get_param_names()}.")
        return super().set_params(**params)

    def __sklearn_clone__(self):
        """An unfitted copy (what ``sklearn.base.clone`` makes) that remembers whether the
        original was fitted, so that calling it can say why it is not."""
        copy = type(self)(**{key: clone(value, safe=False) for key, value in self.get_params(deep=False).items()})
        copy._cloned_from_fitted = getattr(self, "is_fitted_", False)
        return copy

    # -- fitting and evaluation
    def fit(self, X, y=None):
        """Fit the unsupervised part (partition, density model, graph) on ``X``; ``y`` is
        ignored (labels are never used). Returns ``self``."""
        X = check_points(X, min_points=1, allow_1d=False)
        self.n_features_in_ = X.shape[1]
        self._fit(X)
        self.is_fitted_ = True
        return self

    def _fit(self, X):
        pass

    def _check_fitted(self):
        if self.needs_fit and not getattr(self, "is_fitted_", False):
            if getattr(self, "_cloned_from_fitted", False):
                raise ValueError(
                    f"The {self.name} kernel was fitted, but scikit-learn cloned it (as SVC(kernel=...), clone, "
                    "cross_val_score and GridSearchCV do) and a clone is unfitted. Use "
                    "kv.models.KernelSVC(kernel=...), which fits the kernel inside its own fit."
                )
            raise ValueError(f"The {self.name} kernel must be fitted first: call kernel.fit(X) on all points.")

    def _check_points(self, X, name):
        X = check_points(X, name=name, allow_1d=False)
        expected = getattr(self, "n_features_in_", None)
        if expected is not None and X.shape[1] != expected:
            raise ValueError(f"The kernel was fitted on {expected} features, but {name} has {X.shape[1]}.")
        return X

    def _prepare(self, X, Y):
        self._check_fitted()
        same = Y is None or Y is X
        X = self._check_points(X, "X")
        Y = X if same else self._check_points(Y, "Y")
        return X, Y, same

    def gamma_family(self, X, Y=None):
        """D and log n such that K_γ(X, Y) = exp(log n − γ D) for every γ.

        Raises
        ------
        ValueError
            For kernels that are not of that form (``lap``, ``lppk``).
        """
        if not self.gamma_convertible:
            raise ValueError(f"The {self.name} kernel is not of the form n·exp(−γD): compute one Gram per γ.")
        X, Y, same = self._prepare(X, Y)
        return self._gamma_family(X, Y, same)

    def __call__(self, X, Y=None):
        """Gram matrix K(X, Y) at the kernel's own ``gamma``; ``Y=None`` means ``Y = X``."""
        gamma = check_positive(self.gamma, "gamma")
        if self.gamma_convertible:
            return self.gamma_family(X, Y).gram(gamma)
        X, Y, same = self._prepare(X, Y)
        return self._gram(X, Y, same, gamma)

    def describe(self):
        """Numbers worth showing a user (what was fitted, scales, regularisation)."""
        return {"kernel": self.name, "gamma": self.gamma}


# ----------------------------------------------------------------------------- RBF family
#: How many coded columns differ per differing value, for each way of naming categorical columns:
#: an attribute's category codes differ in two of its one-out-of-K columns; an indicator
#: column that is already one of them differs in itself only.
CATEGORICAL_CODINGS = {"codes": 2.0, "one-hot": 1.0}


def categorical_mismatches(A, B, per_mismatch):
    """Σ_c per_mismatch·[A_ic ≠ B_jc] over the columns of A and B (docs/MATH.md §4.6.1).

    With ``per_mismatch`` = 2 and one column of category codes per attribute this is
    ‖a'' − b''‖² for the attributes' one-out-of-K codes a'', b''; with 1 and indicator
    columns it is the same Hamming count on the columns as given. Equality, not the
    values, is read, so scaled codes (z-scores, [−1, 1]) give the same counts.
    """
    out = np.zeros((len(A), len(B)))
    for column in range(A.shape[1]):
        out += A[:, column, None] != B[None, :, column]
    out *= per_mismatch
    return out


class _MixedAttributeKernel(Kernel):
    """A kernel of a squared distance that may set categorical columns apart (RWM paper §3.4).

    Parameters shared by its subclasses
    -----------------------------------
    categorical : sequence of int
        0-based columns holding categorical attributes; empty (the default) treats every
        column as continuous. The unsupervised part (mixture, graph) is fitted on the
        other, continuous columns only.
    categorical_coding : {"codes", "one-hot"}
        ``"codes"``: each named column holds one attribute's category values, coded
        one-out-of-K inside the kernel; ``"one-hot"``: the named columns are already
        indicator columns of such a coding.
    continuous_weight, categorical_weight : float in [0, 1]
        α and β of the squared distance α·Δ(x', y')² + β·Δ_cat(x'', y'')², x' the continuous
        and x'' the categorical columns (docs/MATH.md §4.6.1).
    """

    def _fit(self, X):
        self.categorical_columns_ = None
        self.categorical_columns_ = self._columns(X.shape[1])[1]
        self._fit_parts(X)

    def _fit_parts(self, X):
        """Fit the unsupervised part on all columns ``X`` (select the continuous ones with
        :meth:`_continuous`)."""

    def _columns(self, n_features):
        """(continuous, categorical) column numbers, checked against the points' width and
        against the columns the unsupervised part was fitted with."""
        categorical = check_categorical_columns(self.categorical, n_features)
        fitted = getattr(self, "categorical_columns_", None)
        if fitted is not None and not np.array_equal(fitted, categorical):
            raise ValueError(f"The {self.name} kernel was fitted with categorical columns {fitted.tolist()}, but "
                             f"categorical is now {categorical.tolist()}: fit it again.")
        return np.setdiff1d(np.arange(n_features), categorical), categorical

    def _continuous(self, X):
        """X's continuous columns (X itself when no column is categorical)."""
        continuous, categorical = self._columns(X.shape[1])
        return X[:, continuous] if len(categorical) else X

    def _attribute_weights(self, n_features):
        """α, β, the count per mismatch (:data:`CATEGORICAL_CODINGS`), and the (continuous,
        categorical) column numbers, all checked."""
        alpha = check_unit_interval(self.continuous_weight, "continuous_weight")
        beta = check_unit_interval(self.categorical_weight, "categorical_weight")
        per_mismatch = CATEGORICAL_CODINGS[check_choice(self.categorical_coding, "categorical_coding",
                                                        tuple(CATEGORICAL_CODINGS))]
        return (alpha, beta, per_mismatch, *self._columns(n_features))

    def _attribute_distance(self, X, Y, same, continuous_distance):
        """α·continuous_distance(X', Y', same) + β·mismatches(X'', Y'')."""
        alpha, beta, per_mismatch, continuous, categorical = self._attribute_weights(X.shape[1])
        if not len(categorical):
            D = continuous_distance(X, Y, same)
        else:
            D = continuous_distance(X[:, continuous], Y[:, continuous], same)
        if alpha != 1.0:
            D *= alpha
        if len(categorical) and beta > 0.0:
            D += beta * categorical_mismatches(X[:, categorical], Y[:, categorical], per_mismatch)
        return D

    def describe(self):
        described = super().describe()
        columns = [] if self.categorical is None else [int(column) for column in self.categorical]
        if columns:
            described.update({"categorical columns": columns,
                              "α (continuous)": self.continuous_weight, "β (categorical)": self.categorical_weight})
        return described


class RBF(_MixedAttributeKernel):
    """Gaussian RBF kernel exp(−γ‖x − y‖²); with categorical columns
    exp(−γ (α‖x' − y'‖² + β Δ_cat(x'', y'')²)) (see :class:`_MixedAttributeKernel`)."""

    name = "rbf"
    needs_fit = False

    def __init__(self, *, gamma=1.0, categorical=(), categorical_coding="codes", continuous_weight=1.0,
                 categorical_weight=1.0):
        self.gamma = gamma
        self.categorical = categorical
        self.categorical_coding = categorical_coding
        self.continuous_weight = continuous_weight
        self.categorical_weight = categorical_weight

    def _gamma_family(self, X, Y, same):
        return GammaFamily(self._attribute_distance(X, Y, same, _sq_dists))


class MahalanobisRBF(Kernel):
    """Mahalanobis RBF kernel exp(−γ (x−y)ᵀ Σ⁻¹ (x−y)) with Σ = cov of the fitted points.

    A singular Σ is regularised towards I as in docs/MATH.md §2.3 (``epsilon_`` reports it).
    """

    name = "mrbf"

    def _fit(self, X):
        if len(X) < 2:
            raise ValueError("The Mahalanobis RBF kernel needs at least two points to estimate a covariance.")
        S = _partitions.empirical_covariance(X, X.shape[1])
        self.covariance_, self.epsilon_ = _partitions.regularize_covariance(S, np.eye(X.shape[1]), len(X))
        self._W, _ = _whitener(self.covariance_)
        self._center = X.mean(axis=0)

    def _gamma_family(self, X, Y, same):
        A = (X - self._center) @ self._W.T
        B = A if same else (Y - self._center) @ self._W.T
        return GammaFamily(_sq_dists(A, B, same))

    def describe(self):
        return {**super().describe(), "epsilon": self.epsilon_}


# ----------------------------------------------------------------------------- CkRBF

def cluster_gaussian_gram(X, Y, x_clusters, y_clusters, covariances, gamma):
    """CkRBF for a given assignment of covariances to points (any partition).

    K(x, y) = det(Σ_{c(x)} + Σ_{c(y)})^(−½) exp(−γ (x−y)ᵀ (Σ_{c(x)} + Σ_{c(y)})⁻¹ (x−y)).

    Parameters
    ----------
    X, Y : ndarray of shape (n, d), (m, d)
    x_clusters, y_clusters : int arrays of shape (n,), (m,)
        Index into ``covariances`` of each point's cluster.
    covariances : ndarray of shape (k, d, d)
        Positive definite cluster covariances.
    gamma : float
    """
    gamma = check_positive(gamma, "gamma")
    X = check_points(X, name="X", allow_1d=False)
    Y = check_points(Y, name="Y", allow_1d=False)
    covariances = np.asarray(covariances, dtype=np.float64)
    tables = _pairs.PairTables(covariances)
    cx = np.asarray(x_clusters, dtype=np.intp)
    cy = np.asarray(y_clusters, dtype=np.intp)
    k = len(covariances)
    centers = _pairs.cluster_centers(X, cx, k, np.broadcast_to(X.mean(axis=0), (k, X.shape[1])))
    return _pairs.gram(X, Y, cx, cy, centers, tables, tables.log_norm, gamma, False)


class _ClusterCovarianceKernel(Kernel):
    """Shared machinery of CkRBF and its radial variant: a partition, per-cluster
    covariances, and the pairwise tables P_ij = (Σi + Σj)⁻¹ and log n_ij."""


    def __init__(self, *, gamma=1.0, partition="kmeans", n_components=2, random_state=0, normalize="paper",
                 partition_params=None):
        self.gamma = gamma
        self.partition = partition
        self.n_components = n_components
        self.random_state = random_state
        self.normalize = normalize
        self.partition_params = partition_params

    def _fit(self, X):
        if self.normalize not in ("paper", "unit"):
            raise ValueError(f"normalize must be 'paper' or 'unit'; got {self.normalize!r}.")
        d = X.shape[1]
        self.partition_ = _fit_or_reuse_partition(self.partition, X, self.n_components, self.random_state,
                                                  self.partition_params)
        labels = self.partition_.predict(X)
        k = self.partition_.n_components_
        # docs/MATH.md §2.2: Σ_i = cov(X ∩ W_i) of the hard clusters, whatever the partition method.
        A = _partitions.reference_covariance(X)
        covs = np.empty((k, d, d))
        self.epsilons_ = np.zeros(k)
        counts = np.bincount(labels, minlength=k)
        for i in range(k):
            S = _partitions.empirical_covariance(X[labels == i], d)
            covs[i], self.epsilons_[i] = _partitions.regularize_covariance(S, A, counts[i])
        self.covariances_ = self._restrict(covs)
        self.cluster_sizes_ = counts
        self._tables = _pairs.PairTables(self.covariances_)
        log_norm = self._tables.log_norm
        self.log_norm_ = _pairs.unit_log_norm(log_norm) if self.normalize == "unit" else log_norm
        # expansion centres of the quadratic forms (see _cluster_quadratic): the cluster means
        self._centers = _pairs.cluster_centers(X, labels, k, np.broadcast_to(X.mean(axis=0), (k, d)))

    def _restrict(self, covs):
        return covs

    def _clusters(self, X, Y, same):
        cx = self.partition_.predict(X)
        cy = cx if same else self.partition_.predict(Y)
        return cx, cy

    def _gamma_family(self, X, Y, same):
        cx, cy = self._clusters(X, Y, same)
        return GammaFamily(*_pairs.gamma_family_parts(X, Y, cx, cy, self._centers, self._tables, self.log_norm_, same))

    def __call__(self, X, Y=None):
        gamma = check_positive(self.gamma, "gamma")
        X, Y, same = self._prepare(X, Y)
        cx, cy = self._clusters(X, Y, same)
        return _pairs.gram(X, Y, cx, cy, self._centers, self._tables, self.log_norm_, gamma, same)

    def describe(self):
        """The paper's normaliser det(Σx+Σy)^(−½) over cluster pairs ("normaliser min/max",
        whichever scale is on: it is the number the app's sentence on scale quotes), and
        the range of the factor the kernel actually applies."""
        with np.errstate(over="ignore"):          # shown as inf where float64 cannot hold it
            paper, own = np.exp(self._tables.log_norm), np.exp(self.log_norm_)
        return {**super().describe(), "partition": self.partition_.method, "clusters": int(self.partition_.n_components_),
                "normalize": self.normalize, "normaliser min": float(paper.min()), "normaliser max": float(paper.max()),
                "factor min": float(own.min()), "factor max": float(own.max()),
                "max epsilon": float(self.epsilons_.max())}


def _fit_or_reuse_partition(partition, X, n_components, random_state, partition_params):
    """The kernel's partition, fitted on X.

    * A method name ("kmeans", "gmm", "vi") is shorthand for
      ``Partition(method=name, n_components=n_components, random_state=random_state,
      **partition_params)``, fitted on X.
    * An unfitted :class:`~kernelviz.partitions.Partition` is cloned and fitted on X; it
      carries its own n_components, random_state and priors (the kernel's are not used).
    * A fitted Partition (e.g. the one the app shows in its Partition view) is used as it
      is, on whatever data it was fitted.
    """
    if isinstance(partition, str):
        return _partitions.fit(partition, X, n_components=n_components, random_state=random_state,
                               **(partition_params or {}))
    if not isinstance(partition, _partitions.Partition):
        raise ValueError(f"partition must be a method name ({', '.join(_partitions.METHODS)}) or a "
                         f"kernelviz.partitions.Partition; got {partition!r}.")
    if not hasattr(partition, "means_"):
        return clone(partition).fit(X)
    if partition.n_features_in_ != X.shape[1]:
        raise ValueError(
            f"The given partition was fitted on {partition.n_features_in_} features; the data has {X.shape[1]}."
        )
    return partition


class CkRBF(_ClusterCovarianceKernel):
    """Cluster-based RBF kernel (Czarnecki & Tabor), with the exponent typo of the
    paper's Algorithm 1 corrected to the quadratic form (x−y)ᵀ(Σx+Σy)⁻¹(x−y).

    Parameters
    ----------
    gamma : float
    partition : {"kmeans", "gmm", "vi"} or Partition
        A method name is shorthand for ``Partition(method=name, n_components=n_components,
        random_state=random_state, **partition_params)``, fitted in ``fit``. A
        :class:`~kernelviz.partitions.Partition` estimator is cloned and fitted in ``fit``
        when unfitted, and used as it is when already fitted (the app shares its Partition
        view's model this way); either way it carries its own parameters.
    n_components : int
        Number of clusters (the paper's k; C2RBF is k = 2), for a method name.
    random_state : int
    normalize : {"paper", "unit"}
        "paper" keeps det(Σx+Σy)^(−½) as in Algorithm 1; "unit" divides each value by
        its points' self-similarities, K(x, y) / √(K(x, x) K(y, y)) with
        K(x, x) = det(2Σ_c(x))^(−½): the diagonal is 1 and every value lies in (0, 1] at any
        dimension, and the Gram is D K D for a positive diagonal D, so it stays PSD.
    partition_params : dict, optional
        Extra parameters of the partition (VI priors).

    Attributes
    ----------
    partition_ : kernelviz.partitions.Partition
    covariances_ : ndarray (k, d, d)
        Per-cluster covariances actually used (after regularisation).
    epsilons_ : ndarray (k,)
        Regularisation used per cluster (0 where none was needed).
    log_norm_ : ndarray (k, k)
        log n_ij = −½ log det(Σi + Σj); under "unit" minus ¼ log det(2Σi) + ¼ log det(2Σj).
    """

    name = "ckrbf"


class CkRBFRadial(_ClusterCovarianceKernel):
    """CkRBF restricted to radial Gaussians Σi = σi² I with σi² = trace(Σi)/d.

    K = (σx² + σy²)^(−d/2) exp(−γ‖x−y‖² / (σx² + σy²)). The paper's Observation 3.3
    omits the power d/2; without it the kernel is not a Gaussian inner product.
    """

    name = "ckrbf-radial"

    def _restrict(self, covs):
        d = covs.shape[1]
        variances = np.trace(covs, axis1=1, axis2=2) / d
        self.variances_ = variances
        return variances[:, None, None] * np.eye(d)


# ----------------------------------------------------------------------------- mixture distances
#: Values in one block of a mixture-distance Gram (512 KB; see ``_distance_blocks``): its passes
#: stay in cache, and each block's product stays small enough for OpenBLAS to run it on one
#: thread (4× larger blocks went multi-threaded and, on a loaded 2-core machine, ran several
#: times slower, waiting for the second thread).
_BLOCK_VALUES = 1 << 16


def _distance_lift(A, B):
    """Features (rows (n, d + 2), cols (d + 2, m)) whose product is ‖A_i − B_j‖² expanded,
    −2 A_i·B_j + ‖A_i‖² + ‖B_j‖², in that order: one matrix product then rounds as the
    product A Bᵀ scaled by −2 and the two norms added after it would."""
    rows = np.column_stack([A, np.einsum("ij,ij->i", A, A), np.ones(len(A))])
    cols = np.vstack([-2.0 * B.T, np.ones(len(B)), np.einsum("ij,ij->i", B, B)])
    return rows, cols


def _store_strip(out, strip, start, same):
    """Write ``strip``, rows start:start + len(strip) of a Gram from column ``start`` on for a
    self-Gram (``same``: the strip right of the diagonal, its leading square the diagonal
    block), from column 0 otherwise. A self-Gram's strip also goes, transposed, to the
    columns below it, and its diagonal block is made symmetric from its upper triangle."""
    stop = start + len(strip)
    if not same:
        out[start:stop] = strip
        return
    corner = strip[:, :stop - start]
    np.copyto(corner, corner.T, where=np.tri(stop - start, k=-1, dtype=bool))
    out[start:stop, start:] = strip
    out[stop:, start:stop] = strip[:, stop - start:].T


#: Below this typical squared mixture distance Δ² between data points, exp(−γΔ²) is within
#: 1e-6·γ of one for every pair: the kernel no longer tells points apart.
_DEGENERATE_DISTANCE = 1e-6


class _MixtureDistanceKernel(_MixedAttributeKernel):
    """exp(−γ Δ²) with Δ a weighted sum of the Mahalanobis distances of a fitted mixture.

    Parameters
    ----------
    gamma : float
    partition : {"vi", "gmm", "kmeans"} or Partition
        The mixture: a method name or an unfitted :class:`~kernelviz.partitions.Partition`
        is fitted on the points given to ``fit`` (the estimator on a clone), an already
        fitted Partition is used as it is.
    n_components : int
        Number of components (for VI: the upper bound before pruning). As for
        :func:`kernelviz.partitions.fit` and CkRBF, asking for more components than
        points is a ``ValueError``; VI's pruning is reported in ``partition_.notes_``.
    random_state : int
    partition_params : dict, optional
        Extra parameters of the partition (VI priors α0, β0, ν0, w0).
    categorical, categorical_coding, continuous_weight, categorical_weight
        Categorical columns set apart (RWM paper §3.4): the mixture is fitted on the
        continuous columns, Δ measures them, and the categorical ones add their weighted
        mismatches to Δ² (:class:`_MixedAttributeKernel`).

    ``fit`` fits a ``"gmm"`` or ``"vi"`` mixture only on two points or more (as
    :func:`kernelviz.partitions.fit`, which says so); a given Partition needs none.
    """


    def __init__(self, *, gamma=1.0, partition="vi", n_components=6, random_state=0, partition_params=None,
                 categorical=(), categorical_coding="codes", continuous_weight=1.0, categorical_weight=1.0):
        self.gamma = gamma
        self.partition = partition
        self.n_components = n_components
        self.random_state = random_state
        self.partition_params = partition_params
        self.categorical = categorical
        self.categorical_coding = categorical_coding
        self.continuous_weight = continuous_weight
        self.categorical_weight = categorical_weight

    def _fit_parts(self, X):
        X = self._continuous(X)
        self.partition_ = _fit_or_reuse_partition(self.partition, X, self.n_components, self.random_state,
                                                  self.partition_params)
        self._whiteners = [_whitener(S)[0] for S in self.partition_.covariances_]
        self._center = X.mean(axis=0)
        self._warn_if_degenerate(X)

    def _warn_if_degenerate(self, X):
        """Warn when the mixture's covariances dwarf the data, so that K ≈ 1 for every pair.

        For two random points of X, E[Δ_k(x, y)²] = 2 tr(Σ_k⁻¹ cov X); exp(−γΔ²) then lies
        within about γ·Δ² of one. A mixture fitted on X cannot be that wide (its covariances
        follow the data's scale), but a given Partition or a covariance prior w0 in other
        units can: the Grams look valid and every model on them fails quietly.
        """
        if len(X) < 2:
            return
        spread = np.atleast_2d(np.cov(X, rowvar=False))
        typical = sum(w * 2.0 * np.sum((W @ spread) * W) for w, W in zip(self.partition_.weights_, self._whiteners))
        if typical < _DEGENERATE_DISTANCE:
            warnings.warn(
                f"The {self.name} kernel's mixture is far wider than the data (typical squared distance "
                f"{typical:.1e}), so K ≈ 1 for every pair unless γ is of order {1 / max(typical, 1e-300):.0e}. "
                "Fit the mixture on these data, drop a covariance prior w0 given in other units, "
                "or scale the data (minmax / zscore).",
                UserWarning, stacklevel=3)

    def component_distances(self, X, Y=None):
        """Δ_k(x, y) = ‖Σ_k^(−½)(x − y)‖ for every component, shape (k, len X, len Y)
        (on the continuous columns)."""
        X, Y, same = self._prepare(X, Y)
        X, Y = self._continuous(X), self._continuous(Y)
        out = []
        for W in self._whiteners:
            A = (X - self._center) @ W.T
            B = A if same else (Y - self._center) @ W.T
            D = _sq_dists(A, B, same)
            out.append(np.sqrt(D, out=D))
        return np.stack(out)

    def _pair_weights(self, X, Y, same):
        """Row and column weights a (len X, K), b (len Y, K) with Δ = Σ_k (a_k(x) + b_k(y)) Δ_k(x, y);
        or, when every pair weighs the components alike, the weights w (K,) of Δ = Σ_k w_k Δ_k
        and ``None``."""
        raise NotImplementedError

    def _distance_blocks(self, X, Y, same, gamma):
        """D = α Δ² + β·mismatches (the categorical part, when there is one), or exp(−γ D) for a
        ``gamma``, built row block by row block.

        Small blocks (:data:`_BLOCK_VALUES`), accumulated in contiguous scratch arrays, keep
        every pass in cache: the kernel is memory-bound (per component a product, |·|, √, the
        weight and a sum), and whole-matrix passes would cost K × (several) trips to RAM;
        squaring, weighting and exp are done on the block while it is still there, and the
        block is stored once (:func:`_store_strip`). Each component's squared distance comes
        out of one product of lifted features (:func:`_distance_lift`), with the same products
        and sums in the same order as the separate passes it replaces. |·| stands in for
        max(·, 0) at less than half its cost (NumPy's maximum also handles NaN): the expanded
        square is negative only by rounding, about machine ε × the squared norms, where √ of
        either is that rounding noise. A self-Gram computes the strip right of its diagonal
        only and mirrors it, so it is exactly symmetric at half the cost; its diagonal is
        exactly D = 0.
        """
        alpha, beta, per_mismatch, continuous, categorical = self._attribute_weights(X.shape[1])
        mismatched = len(categorical) and beta > 0.0
        if len(categorical):
            X_cat, Y_cat = X[:, categorical], Y[:, categorical]
            X, Y = X[:, continuous], Y[:, continuous]
        a, b = self._pair_weights(X, Y, same)
        if b is not None:                    # per component, contiguous: read along the rows of a block
            a, b = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
        lifts = []
        for W in self._whiteners:
            A = (X - self._center) @ W.T
            lifts.append(_distance_lift(A, A if same else (Y - self._center) @ W.T))
        n, m = len(X), len(Y)
        out = np.empty((n, m))
        scratch = np.empty((3, max(8 * m, _BLOCK_VALUES)))
        start = 0
        while start < n:
            first = start if same else 0
            width = m - first
            stop = min(n, start + max(8, _BLOCK_VALUES // width))
            block, G, weight = (buffer[:(stop - start) * width].reshape(stop - start, width)
                                for buffer in scratch)
            for k, (rows, cols) in enumerate(lifts):
                np.matmul(rows[start:stop], cols[:, first:], out=G)
                np.abs(G, out=G)
                np.sqrt(G, out=G)
                if b is not None:
                    np.add(a[k, start:stop, None], b[k, None, first:], out=weight)
                np.multiply(G, a[k] if b is None else weight, out=block if k == 0 else G)
                if k > 0:
                    block += G
            if same:
                np.fill_diagonal(block, 0.0)
            np.square(block, out=block)
            if alpha != 1.0:
                block *= alpha
            if mismatched:
                block += beta * categorical_mismatches(X_cat[start:stop], Y_cat[first:], per_mismatch)
            if gamma is not None:
                block *= -gamma
                np.exp(block, out=block)
            _store_strip(out, block, start, same)
            start = stop
        return out

    def _gamma_family(self, X, Y, same):
        return GammaFamily(self._distance_blocks(X, Y, same, None))

    def __call__(self, X, Y=None):
        """Gram matrix K(X, Y) = exp(−γ D), the exp taken block by block with D (see
        :meth:`_distance_blocks`): the same values as ``gamma_family(X, Y).gram(gamma)``."""
        gamma = check_positive(self.gamma, "gamma")
        X, Y, same = self._prepare(X, Y)
        return self._distance_blocks(X, Y, same, gamma)

    def describe(self):
        return {**super().describe(), "partition": self.partition_.method,
                "components": int(self.partition_.n_components_)}


class GMMDistance(_MixtureDistanceKernel):
    """GMM distance kernel exp(−γ Δ²), Δ(x, y) = Σ_k π_k Δ_k(x, y) (Reitmaier & Sick)."""

    name = "gmm"

    def _pair_weights(self, X, Y, same):
        return self.partition_.weights_, None


class RWM(_MixtureDistanceKernel):
    """Responsibility-weighted Mahalanobis kernel exp(−γ Δ²),
    Δ(x, y) = Σ_k ½ (ρ(x, k) + ρ(y, k)) Δ_k(x, y) (Reitmaier & Sick).

    Not proven positive semi-definite: check Grams with :func:`psd_report`, and clip
    their spectrum with :func:`clip_spectrum` if needed.
    """

    name = "rwm"

    def _pair_weights(self, X, Y, same):
        rx = self.partition_.predict_proba(X)
        ry = rx if same else self.partition_.predict_proba(Y)
        return 0.5 * rx, 0.5 * ry


# ----------------------------------------------------------------------------- Laplacian
#: Settings (γ, γ_I/γ_A, weights) whose LU factors a fitted Laplacian kernel keeps.
_CACHED_FACTORISATIONS = 3


class Laplacian(_MixedAttributeKernel):
    """The RBF kernel deformed by a k-NN graph Laplacian (Sindhwani, Niyogi & Belkin 2005).

    K̃(x, z) = K(x, z) − k_xᵀ (I + M K_ZZ)⁻¹ M k_z with M = (γ_I/γ_A) L^p over the fitted
    points Z (labeled and unlabeled). An SVM with K̃ is a Laplacian SVM.

    Parameters
    ----------
    gamma : float
        γ of the base RBF kernel.
    n_neighbors : int
        k of the symmetrised k-NN graph (7 in the RWM paper).
    laplacian_power : int
        p (1 in the RWM paper).
    lap_ratio : float
        γ_I / γ_A, the weight of the graph term.
    normalized_laplacian : bool
        Use I − D^(−½) W D^(−½) instead of D − W.
    categorical, categorical_coding, continuous_weight, categorical_weight
        Categorical columns set apart as in the RWM paper's experiments: the base RBF
        kernel takes α‖x' − y'‖² + β Δ_cat² (:class:`_MixedAttributeKernel`) and the graph
        is built on the continuous columns.
    """

    name = "lap"

    def __init__(self, *, gamma=1.0, n_neighbors=7, laplacian_power=1, lap_ratio=1.0, normalized_laplacian=False,
                 categorical=(), categorical_coding="codes", continuous_weight=1.0, categorical_weight=1.0):
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.laplacian_power = laplacian_power
        self.lap_ratio = lap_ratio
        self.normalized_laplacian = normalized_laplacian
        self.categorical = categorical
        self.categorical_coding = categorical_coding
        self.continuous_weight = continuous_weight
        self.categorical_weight = categorical_weight

    def _fit_parts(self, X):
        if not (isinstance(self.n_neighbors, (int, np.integer)) and self.n_neighbors >= 1):
            raise ValueError(f"n_neighbors must be a positive whole number; got {self.n_neighbors!r}.")
        if len(X) <= self.n_neighbors:
            raise ValueError(
                f"The Laplacian kernel builds a {self.n_neighbors}-nearest-neighbour graph and needs more than "
                f"{self.n_neighbors} points; got {len(X)}."
            )
        if not (isinstance(self.laplacian_power, (int, np.integer)) and self.laplacian_power >= 1):
            raise ValueError(f"laplacian_power must be a whole number ≥ 1; got {self.laplacian_power!r}.")
        if not (np.isfinite(self.lap_ratio) and self.lap_ratio >= 0):
            raise ValueError(f"lap_ratio (γ_I/γ_A) must be ≥ 0; got {self.lap_ratio!r}.")
        W = kneighbors_graph(self._continuous(X), self.n_neighbors, mode="connectivity", include_self=False)
        W = W.maximum(W.T).tocsr()
        degree = np.asarray(W.sum(axis=1)).ravel()
        if self.normalized_laplacian:
            s = sparse.diags(1.0 / np.sqrt(degree))
            L = sparse.identity(len(X), format="csr") - s @ W @ s
        else:
            L = sparse.diags(degree) - W
        # Sparse: the graph has about k·n edges, so L^p stays cheap for small p.
        self.laplacian_ = (L ** self.laplacian_power).tocsr() if self.laplacian_power > 1 else L.tocsr()
        self.points_ = X
        self._point_rows = {point.tobytes(): i for i, point in enumerate(X)}
        self._deformation = {}
        self._projection = {}

    def _operator_key(self, gamma):
        """What the cached factors depend on besides the fitted graph: γ, the ratio in M and the
        weights inside K (all settable on a fitted kernel)."""
        return gamma, self.lap_ratio, self.continuous_weight, self.categorical_weight, self.categorical_coding

    def _base_distance(self, A, B, same):
        """The squared distance inside the base RBF kernel K."""
        return self._attribute_distance(A, B, same, _sq_dists)

    def _base_kernel(self, A, B, same, gamma):
        """The base RBF kernel K(A, B) = exp(−γ · base distance)."""
        K = self._base_distance(A, B, same)
        K *= -gamma
        return np.exp(K, out=K)

    def _fitted_rows(self, X):
        """For every row of X, its index among the fitted points Z, or −1 if it is not one of them."""
        return np.array([self._point_rows.get(point.tobytes(), -1) for point in X], dtype=np.intp)

    def _factorised_operator(self, gamma):
        """LU factors of C = I + M K_ZZ (O(n³) time), kept for the last
        :data:`_CACHED_FACTORISATIONS` settings.

        C is built column block by column block, so K_ZZ never exists whole, and it is
        factorised in place (Fortran order): one n × n array is all the memory it takes.
        The factors live in a dict that shallow copies of the fitted kernel share: the grid
        engine evaluates each γ on such a copy, and the final fit at the γ it chose then
        finds that γ's factors made.
        """
        key = self._operator_key(gamma)
        factors = self._deformation.get(key)
        if factors is None:
            Z = self.points_
            n = len(Z)
            M = self.lap_ratio * self.laplacian_
            C = np.empty((n, n), order="F")
            step = max(1, (1 << 22) // n)
            for start in range(0, n, step):
                G = self._base_distance(Z, Z[start:start + step], False)
                G *= -gamma
                np.exp(G, out=G)
                C[:, start:start + step] = M @ G
            C[np.diag_indices(n)] += 1.0
            factors = linalg.lu_factor(C, overwrite_a=True, check_finite=False)
            self._deformation[key] = factors
            for stale in list(self._deformation)[:-_CACHED_FACTORISATIONS]:
                self._deformation.pop(stale, None)
        return factors

    def _targets(self, Y, gamma):
        """[V, B]: V = K̃(Z, Y) = C⁻ᵀ K(Z, Y), cached for the last Y, with B = M V once a call
        has needed all of it (None until then).

        K̃(x, Y) = K(x, Y) − K(x, Z) B for any x needs B = (I + M K_ZZ)⁻¹ M K(Z, Y); as M and
        K_ZZ are symmetric, (I + M K_ZZ)⁻¹ M = M (I + K_ZZ M)⁻¹ = M C⁻ᵀ, so B = M V, a sparse
        product (:meth:`_projected`). One solve with the transposed factors thus gives both
        the deformed kernel between the fitted points and Y, which rows of x that are fitted
        points read instead of computing (K(z, Z) B would be an n × n × m product), and the
        projection that every other x needs: evaluating many chunks of x against one Y then
        costs one product per chunk.
        """
        key = (self._operator_key(gamma), Y.shape, hash(Y.tobytes()))
        if key not in self._projection:
            lu = self._factorised_operator(gamma)
            Z = self.points_
            V = np.empty((len(Z), len(Y)), order="F")
            step = max(1, (1 << 22) // max(len(Z), 1))
            for start in range(0, len(Y), step):       # K(Z, Y) column block by column block
                V[:, start:start + step] = self._base_kernel(Y[start:start + step], Z, False, gamma).T
            self._projection = {key: [linalg.lu_solve(lu, V, trans=1, overwrite_b=True, check_finite=False), None]}
        return self._projection[key]

    def _projected(self, V, columns=None):
        """M V[:, columns] (all of them when None), built column block by column block."""
        V = V if columns is None else V[:, columns]
        M = self.lap_ratio * self.laplacian_
        B = np.empty(V.shape)
        step = max(1, (1 << 22) // max(len(V), 1))
        for start in range(0, V.shape[1], step):
            B[:, start:start + step] = M @ V[:, start:start + step]
        return B

    def _gram(self, X, Y, same, gamma):
        """K̃(X, Y): the rows of fitted points read from V = K̃(Z, Y) (:meth:`_targets`), the
        other rows K(x, Y) − K(x, Z) M V. A self-Gram (the grid engine's, of all points with the
        fitted ones among them) takes its block between the other points and the fitted ones
        by symmetry, and is symmetrised."""
        Z = self.points_
        if not same and Y.shape == Z.shape and np.array_equal(Y, Z):
            # Against the fitted points the deformation collapses:
            # K̃(x, Z) = K_xZ − K_xZ C⁻¹ M K_ZZ = K_xZ C⁻¹ (C − M K_ZZ) = K_xZ C⁻¹,
            # one triangular solve per chunk and no n × m projection to keep.
            lu = self._factorised_operator(gamma)
            KXZ = self._base_kernel(X, Z, False, gamma)
            return linalg.lu_solve(lu, KXZ.T, trans=1, overwrite_b=True, check_finite=False).T
        targets = self._targets(Y, gamma)
        Vt = targets[0].T                    # K̃(Y, Z), rows contiguous

        def projection():
            if targets[1] is None:
                targets[1] = self._projected(targets[0])
            return targets[1]

        fitted = self._fitted_rows(X)
        inside, outside = np.flatnonzero(fitted >= 0), np.flatnonzero(fitted < 0)
        if not len(inside):
            K = self._base_kernel(X, Y, same, gamma)
            K -= self._base_kernel(X, Z, False, gamma) @ projection()
        elif same:
            # K̃(x, z) for every x and fitted z, read from V; then the block of the other points
            K = np.take(Vt, np.where(fitted >= 0, fitted, 0), axis=1)
            if len(outside):
                K[np.ix_(inside, outside)] = K[np.ix_(outside, inside)].T
                rest = self._base_kernel(X[outside], X[outside], True, gamma)
                rest -= self._base_kernel(X[outside], Z, False, gamma) @ self._projected(targets[0], outside)
                K[np.ix_(outside, outside)] = rest
        else:
            K = np.empty((len(X), len(Y)))
            K[inside] = np.take(Vt, fitted[inside], axis=1).T
            if len(outside):
                rest = self._base_kernel(X[outside], Y, False, gamma)
                rest -= self._base_kernel(X[outside], Z, False, gamma) @ projection()
                K[outside] = rest
        if same:
            _pairs.symmetrize(K)
        return K


# ----------------------------------------------------------------------------- probability product kernels
class Units:
    """A set of weighted Gaussians (P_i, μ_i, Σ_i): the units LPPK and RBF-PPK compare.

    ``covariances`` is (m, d, d), or (d, d) when every unit shares one covariance
    (points, as Units.from_points makes them).
    """

    def __init__(self, weights, means, covariances):
        self.means = check_points(means, name="unit means", allow_1d=False)
        m, d = self.means.shape
        self.weights = np.broadcast_to(np.asarray(weights, dtype=np.float64), (m,)).copy()
        if np.any(self.weights <= 0) or not np.all(np.isfinite(self.weights)):
            raise ValueError("Unit weights must be positive numbers.")
        covs = np.asarray(covariances, dtype=np.float64)
        if covs.shape not in ((d, d), (m, d, d)):
            raise ValueError(f"Unit covariances must have shape ({d}, {d}) or ({m}, {d}, {d}); got {covs.shape}.")
        self.covariances = covs

    @classmethod
    def from_points(cls, X, bandwidth):
        """Points z as Gaussians (1, z, s² I)."""
        X = check_points(X, allow_1d=False)
        s = check_positive(bandwidth, "point bandwidth")
        return cls(np.ones(len(X)), X, s * s * np.eye(X.shape[1]))

    @classmethod
    def from_partition(cls, partition, weight_by="count"):
        """Clusters of a fitted partition as units; P = the cluster's share of the points
        (``"count"``) or the mixture weight (``"weight"``)."""
        if weight_by == "count":
            counts = np.bincount(partition.labels_, minlength=partition.n_components_)
            weights = counts / counts.sum()
        elif weight_by == "weight":
            weights = partition.weights_
        else:
            raise ValueError("weight_by must be 'count' or 'weight'.")
        keep = weights > 0
        return cls(weights[keep], partition.means_[keep], partition.covariances_[keep])

    def __len__(self):
        return len(self.means)

    @property
    def shared(self):
        return self.covariances.ndim == 2

    def groups(self):
        """(indices, covariance) pairs of units sharing a covariance."""
        if self.shared:
            return [(np.arange(len(self)), self.covariances)]
        return [(np.array([i]), S) for i, S in enumerate(self.covariances)]

    def self_products(self):
        """K(a, a) = P_a² N(0 | 0, 2Σ_a) for every unit."""
        d = self.means.shape[1]
        covs = np.broadcast_to(self.covariances, (len(self), d, d))
        log_det = np.array([np.linalg.slogdet(2 * S)[1] for S in covs])
        return self.weights ** 2 * np.exp(-0.5 * (d * np.log(2 * np.pi) + log_det))


def lppk(A, B):
    """Probability product (ρ = 1) of every pair of Gaussian units: P_a P_b N(μ_a | μ_b, Σ_a + Σ_b)."""
    d = A.means.shape[1]
    if B.means.shape[1] != d:
        raise ValueError(f"Units live in {d} and {B.means.shape[1]} dimensions.")
    if not A.shared and not B.shared:
        # Cluster against cluster: all pairs at once with stacked Cholesky factors.
        S = A.covariances[:, None] + B.covariances[None, :]
        L = np.linalg.cholesky(S)
        diff = (A.means[:, None, :] - B.means[None, :, :])[..., None]
        z = np.linalg.solve(L, diff)[..., 0]
        log_det = 2.0 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(-1)
        out = np.exp(-0.5 * ((z**2).sum(-1) + d * np.log(2 * np.pi) + log_det))
        return out * A.weights[:, None] * B.weights[None, :]
    out = np.empty((len(A), len(B)))
    for rows, Sa in A.groups():
        for cols, Sb in B.groups():
            W, log_det = _whitener(Sa + Sb)
            D = euclidean_distances(A.means[rows] @ W.T, B.means[cols] @ W.T, squared=True)
            out[np.ix_(rows, cols)] = np.exp(-0.5 * (D + d * np.log(2 * np.pi) + log_det))
    out *= A.weights[:, None]
    out *= B.weights[None, :]
    return out


#: How the units' LPPK feature vectors φ(a) (their weighted densities) are scaled before they are
#: compared (docs/MATH.md §4.9.1): ``"density"`` as they are, so a sharp point's ‖φ‖² = (4πs²)^(−d/2)
#: can dwarf a wide cluster's; ``"unit"`` divided by their norm, so every unit has ‖φ‖ = 1.
UNIT_SCALES = ("density", "unit")


def unit_products(A, B, normalize):
    """LPPK between the units A and B, and each side's self-products, at the scale ``normalize``.

    Returns ``(K, K_aa, K_bb)``; with ``"unit"``, K(a, b)/√(K(a, a) K(b, b)) and ones.
    """
    check_choice(normalize, "normalize", UNIT_SCALES)
    K = lppk(A, B)
    self_a, self_b = A.self_products(), B.self_products()
    if normalize == "density":
        return K, self_a, self_b
    K /= np.sqrt(self_a)[:, None]
    K /= np.sqrt(self_b)[None, :]
    return K, np.ones(len(A)), np.ones(len(B))


class _UnitKernel(Kernel):

    def __init__(self, *, gamma=1.0, point_bandwidth=None, normalize="density"):
        self.gamma = gamma
        self.point_bandwidth = point_bandwidth
        self.normalize = normalize

    def _as_units(self, X, name, bandwidth):
        if isinstance(X, Units):
            expected = getattr(self, "n_features_in_", None)
            if expected is not None and X.means.shape[1] != expected:
                raise ValueError(f"The kernel was fitted on {expected} features, but {name} has {X.means.shape[1]}.")
            return X
        return Units.from_points(self._check_points(X, name), bandwidth)

    def _prepare_units(self, X, Y, bandwidth):
        self._check_fitted()
        A = self._as_units(X, "X", bandwidth)
        B = A if (Y is None or Y is X) else self._as_units(Y, "Y", bandwidth)
        return A, B

    def gamma_family(self, X, Y=None):
        if not self.gamma_convertible:
            return super().gamma_family(X, Y)
        self._check_fitted()                      # before reading the fitted bandwidth_
        A, B = self._prepare_units(X, Y, self.bandwidth_)
        return self._gamma_family_units(A, B)


class LPPK(_UnitKernel):
    """Linear probability product kernel between Gaussian units (Yang et al., ρ = 1).

    Points enter as Gaussians (1, z, s² I). With ``point_bandwidth=None`` the bandwidth
    follows γ, s² = 1/(4γ), so that on two points LPPK is (γ/π)^(d/2) exp(−γ‖x − y‖²):
    an RBF kernel up to a constant, and γ keeps its usual meaning.
    ``normalize="unit"`` divides by √(K(a, a) K(b, b)) (every unit then has self-product 1;
    on two points this is exactly exp(−γ‖x − y‖²)).
    ``__call__`` accepts point arrays or :class:`Units` (clusters).
    """

    name = "lppk"
    needs_fit = False

    def _bandwidth(self, gamma):
        if self.point_bandwidth is None:
            return 1.0 / np.sqrt(4.0 * gamma)
        return check_positive(self.point_bandwidth, "point_bandwidth")

    def __call__(self, X, Y=None):
        gamma = check_positive(self.gamma, "gamma")
        A, B = self._prepare_units(X, Y, self._bandwidth(gamma))
        return unit_products(A, B, self.normalize)[0]


class RBFPPK(_UnitKernel):
    """RBF on the probability product kernel: exp(−γ (K(a,a) + K(b,b) − 2K(a,b))), K = LPPK.

    The LPPK inside uses a fixed point bandwidth s (``point_bandwidth``, or when None
    0.1 × the root-mean-square standard deviation of the fitted data), so the
    distance D is γ-free and the γ-conversion applies.

    ``normalize`` chooses how a point is scaled against a cluster unit (docs/MATH.md §4.9.1):
    ``"density"`` (the default) compares the densities as they are, where a point's
    self-product (4πs²)^(−d/2) can be many times a cluster's and every point then lies about
    equally far from every cluster; ``"unit"`` compares the densities divided by their norms,
    D = 2 − 2 K(a, b)/√(K(a, a) K(b, b)), so points and clusters have the same self-product.
    """

    name = "rbf-ppk"

    def _fit(self, X):
        if self.point_bandwidth is None:
            spread = np.sqrt(np.mean(np.var(X, axis=0))) if len(X) > 1 else 0.0
            self.bandwidth_ = 0.1 * spread if spread > 0 else 0.1
        else:
            self.bandwidth_ = check_positive(self.point_bandwidth, "point_bandwidth")

    def _gamma_family_units(self, A, B):
        K, self_a, self_b = unit_products(A, B, self.normalize)
        D = np.multiply(K, -2.0, out=K)
        D += self_a[:, None]
        D += self_b[None, :]
        np.maximum(D, 0.0, out=D)
        return GammaFamily(D)

    def __call__(self, X, Y=None):
        return self.gamma_family(X, Y).gram(check_positive(self.gamma, "gamma"))

    def describe(self):
        return {**super().describe(), "point bandwidth": self.bandwidth_}


# ----------------------------------------------------------------------------- by name
_CLASSES = {cls.name: cls for cls in (RBF, MahalanobisRBF, CkRBF, CkRBFRadial, GMMDistance, RWM, Laplacian, LPPK,
                                     RBFPPK)}


def names():
    """Names of every kernel, in the order the app lists them (``kernelviz.registry.KERNELS``)."""
    return list(_registry.KERNELS)


def parameters(name):
    """The hyper-parameter names a kernel accepts (its ``__init__`` arguments)."""
    return _kernel_class(name)._get_param_names()


def _kernel_class(name):
    _registry.kernel(name)  # a ValueError naming the kernels for any other name
    return _CLASSES[name]


def make(name, **params):
    """Build a kernel by name; ``params`` are its hyper-parameters (see :func:`parameters`)."""
    cls = _kernel_class(name)
    unknown = set(params) - set(cls._get_param_names())
    if unknown:
        raise ValueError(f"Kernel {name!r} has no parameter(s) {sorted(unknown)}; its parameters are "
                         f"{cls._get_param_names()}.")
    kernel = cls(**params)
    check_positive(kernel.gamma, "gamma")
    return kernel


# ----------------------------------------------------------------------------- spectra
def psd_report(K, tol=1e-10):
    """Eigen-summary of a symmetric Gram matrix.

    Returns
    -------
    dict
        ``min_eig``, ``max_eig``, ``n_negative`` (eigenvalues below −tol·max|λ|) and
        ``is_psd``, plus ``eigenvalues`` (descending).
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"A PSD check needs a square matrix; got shape {K.shape}.")
    eig = np.linalg.eigvalsh(0.5 * (K + K.T))[::-1]
    scale = max(np.abs(eig).max(), np.finfo(float).tiny)
    n_negative = int(np.sum(eig < -tol * scale))
    return {"min_eig": float(eig[-1]), "max_eig": float(eig[0]), "n_negative": n_negative,
            "is_psd": n_negative == 0, "eigenvalues": eig}


def clip_spectrum(K):
    """Nearest PSD matrix in Frobenius norm: negative eigenvalues set to zero."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"Spectrum clipping needs a square matrix; got shape {K.shape}.")
    eig, vec = np.linalg.eigh(0.5 * (K + K.T))
    np.maximum(eig, 0.0, out=eig)
    return (vec * eig) @ vec.T
