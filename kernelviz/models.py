"""The classifiers of MATH.md §3 as scikit-learn estimators.

Every model follows the estimator contract of ``sklearn/svm/_classes.py``: the
hyper-parameters are plain ``__init__`` arguments stored unchanged (so ``clone`` and
``get_params`` round-trip), ``fit`` returns ``self``, learned attributes end in ``_``,
and ``predict`` / ``decision_function`` work inside ``Pipeline`` and
``cross_val_score``. A positive decision value always means ``classes_[1]``.

* :class:`KernelSVC` -- C-SVM (libsvm) with any kernel of :mod:`kernelviz.kernels`.
* :class:`MkRBF` -- k-means, then one Mahalanobis-RBF SVM per cluster.
* :class:`SCM` -- Support Cluster Machine: an SVM trained on per-class clusters.
* :class:`MPM` -- Minimax Probability Machine, linear or kernelised, with its
  worst-case accuracy bound ``alpha_``.
* :class:`MCPM` -- kernel MPM trained on per-class clusters.
* :class:`KFD`, :class:`KNDA` -- kernel Fisher and nonparametric discriminants.
* :class:`CKSVMNDA` -- an SVM whose regulariser includes the KNDA scatter matrices.

Every ``fit`` takes ``X_unlabeled``: those points join the labeled ones in the
unsupervised part (the kernel's partition, density model or graph; mkRBF's k-means),
never the supervised one. SCM and MCPM accept and ignore them (their units come from
labeled clusters). :data:`MODELS` lists the models for the app.
"""

import copy
import itertools
import warnings

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _chunks, _svm
from ._validation import (check_choice, check_count, check_max_iter, check_positive, check_unlabeled, format_label,
                          format_labels)
from . import kernels as _kernels
from . import partitions as _partitions

#: Eigenvalues of a training Gram below this fraction of the largest one are treated as
#: zero when the Gram is turned into explicit kernel-PCA coordinates.
_EIGENVALUE_RTOL = 1e-10

#: |decision value| given to points of an MkRBF cluster whose labeled points all share
#: one class: the value of a point lying on that class's margin.
SINGLE_CLASS_DECISION = 1.0

#: Kernel names MPM accepts besides those of :func:`kernelviz.kernels.names`.
LINEAR = "linear"

#: Default MPM ridges (fractions of the mean total variance of the two classes): a
#: safeguard for the linear MPM, a regulariser for kernel MPMs (see :class:`MPM`).
LINEAR_RIDGE = 1e-6
KERNEL_RIDGE = 1e-2

#: Kernels that compare Gaussian units, as SCM and MCPM need.
UNIT_KERNELS = ("lppk", "rbf-ppk")


# ----------------------------------------------------------------------------- validation helpers
def _validate_training(estimator, X, y, X_unlabeled, binary_only):
    """Validate the labeled and unlabeled points once; return X, y, all points, classes."""
    X, y = validate_data(estimator, X, y, dtype=np.float64)
    check_classification_targets(y)
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs labeled points of at least two classes, but y has only one "
            f"class ({format_label(classes[0])}). Label points of another class too."
        )
    if binary_only and len(classes) > 2:
        raise ValueError(
            f"Only binary classification is supported. {type(estimator).__name__} is a two-class model; "
            f"y has {len(classes)} classes ({format_labels(classes)}). Keep two classes, or use KernelSVC or SCM."
        )
    U = check_unlabeled(X_unlabeled, X.shape[1])
    return X, y, (X if U is None else np.vstack([X, U])), classes


def _make_kernel(kernel, gamma, kernel_params, extra_names=()):
    """An unfitted kernel: built from a name, or a copy of a kernel object.

    The estimator's ``gamma`` (and ``kernel_params``) are applied to the copy too, so a
    grid search over ``gamma`` means the same thing for names and objects.
    """
    gamma = check_positive(gamma, "gamma")
    if kernel_params is not None and not isinstance(kernel_params, dict):
        raise ValueError(f"kernel_params must be a dict of kernel parameters or None; got {kernel_params!r}.")
    params = dict(kernel_params or {})
    if "gamma" in params:
        raise ValueError("Pass gamma as the model's own gamma parameter, not inside kernel_params.")
    if isinstance(kernel, str):
        if kernel in extra_names:
            return kernel
        if kernel not in _kernels.names():
            allowed = list(extra_names) + _kernels.names()
            raise ValueError(f"Unknown kernel {kernel!r}; choose one of {', '.join(allowed)}, or pass a kernel object.")
        return _kernels.make(kernel, gamma=gamma, **params)
    if not (callable(kernel) and hasattr(kernel, "fit") and hasattr(kernel, "set_params")):
        raise ValueError(
            f"kernel must be a kernel name or a kernel object with fit, set_params and __call__; got {kernel!r}."
        )
    return copy.deepcopy(kernel).set_params(gamma=gamma, **params)


def _kernel_expansion(kernel, X, points, coef, intercept):
    """k(x, points) · coef + intercept for every row x of ``X``, in chunks."""
    return _chunks.apply_in_chunks(kernel, X, points, lambda K: K @ coef) + intercept


def _kernel_pca_map(K):
    """Explicit coordinates of the kernel's feature space spanned by the training points.

    With K = U Λ Uᵀ (eigenvalues below ``_EIGENVALUE_RTOL`` · λ_max dropped, so an
    indefinite Gram loses its negative directions), the training points get the rows of
    ``K @ Q`` with ``Q = U Λ^(−½)`` -- their inner products reproduce K -- and any new
    point x gets ``k(x)ᵀ Q``, the same map.
    """
    eigenvalues, vectors = linalg.eigh(0.5 * (K + K.T))
    keep = eigenvalues > _EIGENVALUE_RTOL * max(eigenvalues[-1], np.finfo(float).tiny)
    if not np.any(keep):
        raise ValueError("The training Gram matrix is zero or negative definite: the kernel sees no structure.")
    Q = vectors[:, keep] / np.sqrt(eigenvalues[keep])
    return K @ Q, Q


def _warn_if_capped(estimator, capped, max_iter):
    """One ConvergenceWarning per fit when libsvm stopped at ``max_iter``, as SVC gives.

    Issuing a warning is thread-safe; only catching them is not (see :mod:`kernelviz._svm`).
    """
    if capped:
        warnings.warn(f"{type(estimator).__name__}: libsvm stopped at its iteration cap (max_iter={max_iter}) "
                      "before converging; raise max_iter or lower C.", ConvergenceWarning, stacklevel=3)


def _binary_labels(y, classes):
    """True for the positive class ``classes[1]``."""
    return y == classes[1]


# ----------------------------------------------------------------------------- shared bases
class _KernelModel(ClassifierMixin, BaseEstimator):
    """Machinery shared by the models: kernel fitting and chunked prediction."""

    _binary_only = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary_only
        return tags

    def _fit_kernel(self, X_all, extra_names=()):
        """The model's kernel, its unsupervised part fitted on all points (or "linear")."""
        kernel = _make_kernel(self.kernel, self.gamma, self.kernel_params, extra_names)
        if isinstance(kernel, str):
            return kernel
        return kernel.fit(X_all)

    def _validate_for_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the decision function is positive, else ``classes_[0]``.
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]


class _ExpansionModel(_KernelModel):
    """Binary models whose decision function is k(x, X_fit_) · dual_coef_ + intercept_."""

    def decision_function(self, X):
        """Signed decision value; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        decision : ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        return _kernel_expansion(self.kernel_, X, self.X_fit_, self.dual_coef_, self.intercept_)


# ----------------------------------------------------------------------------- kernel SVM
class KernelSVC(_KernelModel):
    """C-Support Vector Classifier with any kernel of :mod:`kernelviz.kernels`.

    libsvm through ``sklearn.svm.SVC(kernel="precomputed")``: the kernel's unsupervised
    part is fitted on the labeled and unlabeled points, then the SVM on the labeled Gram.
    Multi-class problems are solved one-vs-one, as in :class:`sklearn.svm.SVC`. With
    ``kernel="rbf"`` the predictions are those of ``SVC(kernel="rbf")`` at the same C, γ.

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
        A name from :func:`kernelviz.kernels.names`, or a kernel object (``fit``,
        ``set_params``, ``__call__``); an object is copied and given this model's
        ``gamma`` and ``kernel_params``.
    C : float, default=1.0
        Penalty of the hinge loss; must be > 0.
    gamma : float, default=1.0
        The kernel's γ; must be > 0.
    kernel_params : dict, default=None
        Other kernel parameters, e.g. ``{"n_components": 3}`` for ``ckrbf``.
    spectrum : {"raw", "clip"}, default="raw"
        "clip" sets the negative eigenvalues of the training Gram to zero
        (:func:`kernelviz.kernels.clip_spectrum`) -- for RWM and LAP, whose Grams can be
        indefinite. Test Grams are used as they are.
    class_weight : dict or "balanced", default=None
        As in :class:`sklearn.svm.SVC`.
    tol : float, default=1e-3
        libsvm's stopping tolerance.
    cache_size : float, default=200
        libsvm's kernel cache in MB.
    max_iter : int, default=-1
        Cap on libsvm's iterations (-1: none). Grid searches cap it; ``max_iter_reached_``
        tells whether the cap stopped the solver.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of the multi-class decision function, as in :class:`sklearn.svm.SVC`.

    Attributes
    ----------
    kernel_ : kernel object
        The fitted kernel.
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors among the labeled points.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    n_support_ : ndarray of shape (n_classes,)
    fit_status_ : int
        libsvm's status: 0 when fitted correctly, 1 otherwise.
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        libsvm iterations per binary problem.
    max_iter_reached_ : bool
        True when ``max_iter`` stopped at least one binary problem.
    svc_ : sklearn.svm.SVC
        The fitted libsvm model on the precomputed Gram.
    n_features_in_ : int
    """

    _binary_only = False

    def __init__(self, kernel="rbf", C=1.0, gamma=1.0, kernel_params=None, spectrum="raw", class_weight=None,
                 tol=1e-3, cache_size=200, max_iter=-1, decision_function_shape="ovr"):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.kernel_params = kernel_params
        self.spectrum = spectrum
        self.class_weight = class_weight
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape

    def fit(self, X, y, X_unlabeled=None):
        """Fit the kernel's unsupervised part on X ∪ X_unlabeled, then the SVM on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Labeled points.
        y : array-like of shape (n_samples,)
            Their labels.
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None
            Extra points for the kernel's unsupervised part only.

        Returns
        -------
        self : KernelSVC
        """
        C = check_positive(self.C, "C")
        check_choice(self.spectrum, "spectrum", ("raw", "clip"))
        max_iter = check_max_iter(self.max_iter)
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=False)
        self.kernel_ = self._fit_kernel(X_all)
        K = self.kernel_(X, X)
        if self.spectrum == "clip":
            K = _kernels.clip_spectrum(K)
        self.svc_ = svc = _svm.fit_svm(K, y, C=C, max_iter=max_iter, tol=self.tol, class_weight=self.class_weight,
                                       cache_size=self.cache_size,
                                       decision_function_shape=self.decision_function_shape)
        self.support_ = svc.support_
        self.support_vectors_ = X[svc.support_]
        self.dual_coef_ = svc.dual_coef_
        self.intercept_ = svc.intercept_
        self.n_support_ = svc.n_support_
        self.fit_status_ = svc.fit_status_
        self.n_iter_ = svc.n_iter_
        self.max_iter_reached_ = _svm.reached_iteration_cap(svc)
        _warn_if_capped(self, self.max_iter_reached_, max_iter)
        return self

    def decision_function(self, X):
        """Decision values, as :meth:`sklearn.svm.SVC.decision_function`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        decision : ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            for "ovr" or (n_samples, n_classes * (n_classes - 1) / 2) for "ovo".
        """
        X = self._validate_for_predict(X)
        return _chunks.apply_in_chunks(self.kernel_, X, self.support_vectors_,
                                       lambda K: _svm.decision_values(self.svc_, K))

    def predict(self, X):
        """Predict class labels (one-vs-one vote for more than two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        return _chunks.apply_in_chunks(self.kernel_, X, self.support_vectors_, lambda K: _svm.predict(self.svc_, K))


# ----------------------------------------------------------------------------- mkRBF
class MkRBF(_KernelModel):
    """k-means, then one Mahalanobis-RBF SVM per cluster (Czarnecki & Tabor's mkRBF).

    The clusters come from :func:`kernelviz.partitions.fit` ("kmeans") on the labeled
    and unlabeled points; cluster i's SVM uses exp(−γ (x−y)ᵀ Σ_i⁻¹ (x−y)) with Σ_i the
    partition's regularised covariance (MATH.md §1). A point is classified by the SVM of
    its cluster. A cluster whose labeled points all belong to one class predicts that
    class with decision value ±``SINGLE_CLASS_DECISION`` (±1, a point on that class's
    margin); a cluster without labeled points does the same with the most frequent
    class of the training labels. Two classes only.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of every cluster's SVM; must be > 0.
    gamma : float, default=1.0
        γ of the Mahalanobis RBF kernels; must be > 0.
    n_components : int, default=2
        Number of k-means clusters.
    random_state : int, default=0
        Seed of k-means.
    tol : float, default=1e-3
        libsvm's stopping tolerance.
    max_iter : int, default=-1
        Cap on libsvm's iterations per cluster (-1: none).

    Attributes
    ----------
    partition_ : kernelviz.partitions.Partition
        The k-means partition.
    estimators_ : list of (sklearn.svm.SVC or None)
        The SVM of each cluster; None where the cluster has a single class.
    cluster_classes_ : ndarray of shape (n_components,)
        The class predicted by single-class clusters (unused where an SVM exists).
    n_iter_ : ndarray of shape (n_svms,)
        libsvm iterations of each cluster SVM.
    max_iter_reached_ : bool
        True when ``max_iter`` stopped at least one cluster SVM.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    """

    def __init__(self, C=1.0, gamma=1.0, n_components=2, random_state=0, tol=1e-3, max_iter=-1):
        self.C = C
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.tol = tol
        self.max_iter = max_iter

    def _whiten(self, X, cluster):
        """Coordinates in which cluster's Mahalanobis distance is the Euclidean one."""
        return linalg.solve_triangular(self._cholesky[cluster], (X - self.partition_.means_[cluster]).T,
                                       lower=True).T

    def fit(self, X, y, X_unlabeled=None):
        """Cluster X ∪ X_unlabeled, then train one SVM per cluster on its labeled points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None
            Extra points for k-means only.

        Returns
        -------
        self : MkRBF
        """
        C = check_positive(self.C, "C")
        gamma = check_positive(self.gamma, "gamma")
        check_count(self.n_components, "n_components")
        max_iter = check_max_iter(self.max_iter)
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=True)
        self.partition_ = _partitions.fit("kmeans", X_all, n_components=self.n_components,
                                          random_state=self.random_state)
        self._rbf = _kernels.make("rbf", gamma=gamma)
        self._cholesky = [linalg.cholesky(S, lower=True) for S in self.partition_.covariances_]
        clusters = self.partition_.labels_[:len(X)]
        labels, counts = np.unique(y, return_counts=True)
        majority = labels[np.argmax(counts)]
        self.estimators_ = []
        self._cluster_support_points = []
        self.cluster_classes_ = np.full(self.partition_.n_components_, majority, dtype=self.classes_.dtype)
        for cluster in range(self.partition_.n_components_):
            members = clusters == cluster
            present = np.unique(y[members])
            if len(present) < 2:
                if len(present) == 1:
                    self.cluster_classes_[cluster] = present[0]
                self.estimators_.append(None)
                self._cluster_support_points.append(None)
                continue
            Z = self._whiten(X[members], cluster)
            svc = _svm.fit_svm(self._rbf(Z, Z), y[members], C=C, tol=self.tol, max_iter=max_iter)
            self.estimators_.append(svc)
            self._cluster_support_points.append(Z[svc.support_])
        self.n_iter_ = np.array([svc.n_iter_[0] for svc in self.estimators_ if svc is not None], dtype=int)
        self.max_iter_reached_ = any(_svm.reached_iteration_cap(svc) for svc in self.estimators_ if svc is not None)
        _warn_if_capped(self, self.max_iter_reached_, max_iter)
        return self

    def decision_function(self, X):
        """Decision value of each point's cluster SVM; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        decision : ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        clusters = self.partition_.predict(X)
        out = np.empty(len(X))
        for cluster, svc in enumerate(self.estimators_):
            members = np.flatnonzero(clusters == cluster)
            if len(members) == 0:
                continue
            if svc is None:
                sign = 1.0 if self.cluster_classes_[cluster] == self.classes_[1] else -1.0
                out[members] = sign * SINGLE_CLASS_DECISION
                continue
            out[members] = _chunks.apply_in_chunks(self._rbf, self._whiten(X[members], cluster),
                                                   self._cluster_support_points[cluster],
                                                   lambda K, svc=svc: _svm.decision_values(svc, K))
        return out


# ----------------------------------------------------------------------------- cluster units (SCM, MCPM)
class _ClusterUnitModel(_KernelModel):
    """Per-class k-means clusters as Gaussian units for LPPK / RBF-PPK (see :class:`SCM`)."""

    def _point_bandwidth(self, covariances, well_estimated, X_all):
        """s of the point units: given, LPPK's own 1/√(4γ), or the typical cluster scale."""
        if self.point_bandwidth is not None:
            return check_positive(self.point_bandwidth, "point_bandwidth")
        if self.kernel == "lppk":
            return 1.0 / np.sqrt(4.0 * check_positive(self.gamma, "gamma"))
        if np.any(well_estimated):
            d = covariances.shape[1]
            log_scales = [np.linalg.slogdet(S)[1] / d for S in covariances[well_estimated]]
            return float(np.exp(0.5 * np.mean(log_scales)))
        # Every cluster is too small to have a shape: fall back on the kernel's own rule.
        return _make_kernel(self.kernel, self.gamma, None).fit(X_all).bandwidth_

    def _fit_units(self, X, y, X_all):
        """Fit the per-class partitions, the units and the kernel; return the units' Gram."""
        check_count(self.n_components, "n_components")
        if not isinstance(self.kernel, str) or self.kernel not in UNIT_KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, UNIT_KERNELS))}; got {self.kernel!r}.")
        d = X.shape[1]
        self.partitions_ = _partitions.fit_per_class("kmeans", X, y, n_components=self.n_components,
                                                     random_state=self.random_state)
        means, covariances, labels, sizes, well_estimated = [], [], [], [], []
        for label, partition in self.partitions_.items():
            counts = np.bincount(partition.labels_, minlength=partition.n_components_)
            keep = counts > 0
            means.append(partition.means_[keep])
            covariances.append(partition.covariances_[keep])
            labels.append(np.full(keep.sum(), label, dtype=y.dtype))
            sizes.append(counts[keep])
            well_estimated.append((partition.epsilons_[keep] == 0) & (counts[keep] > d))
        covariances = np.concatenate(covariances)
        bandwidth = self._point_bandwidth(covariances, np.concatenate(well_estimated), X_all)
        self.units_ = _kernels.Units(np.ones(len(covariances)), np.concatenate(means),
                                     covariances + bandwidth ** 2 * np.eye(d))
        self.unit_labels_ = np.concatenate(labels)
        self.unit_sizes_ = np.concatenate(sizes)
        self.kernel_ = _make_kernel(self.kernel, self.gamma, {"point_bandwidth": bandwidth}).fit(X_all)
        return self.kernel_(self.units_, self.units_)


class SCM(_ClusterUnitModel):
    """Support Cluster Machine: an SVM trained on clusters, tested on points.

    Each class is split into ``n_components`` k-means clusters; every cluster becomes a
    Gaussian unit labeled with its class, and libsvm is trained on the units' Gram (LPPK
    or RBF-PPK) with each unit's penalty weighted by its number of points
    (``sample_weight``), so C keeps its per-point meaning. A test point z is the unit
    (1, z, s² I). Multi-class problems are solved one-vs-one, ties of the vote broken by
    the decision values (``break_ties=True`` of :class:`sklearn.svm.SVC`).

    How units are built (shared with :class:`MCPM`):

    * The weight is P = 1 for clusters as for points, so both live on one scale in the
      PPK feature space; the cluster's size enters the training (penalty weights here,
      weighted moments in MCPM) rather than the kernel. With P = the cluster's share,
      as in the papers, a test point's kernel values would be 1/share times larger than
      any seen in training, and the learnt intercept would not transfer.
    * A cluster is the cloud of its points, each blurred like a test point: the unit is
      (1, μ, Σ + s² I), Σ the partition's regularised covariance. A one-point cluster is
      then exactly a point unit, instead of a Gaussian of width √ε.
    * RBF-PPK compares ‖φ(a)‖² + ‖φ(b)‖² − 2⟨φ(a), φ(b)⟩, and a sharp point's
      ‖φ(z)‖² = (4πs²)^(−d/2) dwarfs a cluster's, making every point equally far from
      every cluster. So with ``point_bandwidth=None`` RBF-PPK takes the typical cluster
      scale, s² = geometric mean of det(Σ_i)^(1/d) over clusters with more than d
      points (the kernel's own default if there are none); LPPK keeps its default
      s² = 1/(4γ), which makes γ its smoothing parameter.

    Parameters
    ----------
    kernel : {"rbf-ppk", "lppk"}, default="rbf-ppk"
    C : float, default=1.0
        Penalty per training point; must be > 0.
    gamma : float, default=1.0
        The kernel's γ (for LPPK it sets the point bandwidth s² = 1/(4γ) unless
        ``point_bandwidth`` is given); must be > 0.
    n_components : int, default=5
        Clusters per class (fewer for a class with fewer distinct points).
    point_bandwidth : float, default=None
        s of the point units (1, z, s² I); None: the typical cluster scale for
        RBF-PPK, s² = 1/(4γ) for LPPK (see the class notes).
    random_state : int, default=0
        Seed of k-means.
    tol : float, default=1e-3
        libsvm's stopping tolerance.
    max_iter : int, default=-1
        Cap on libsvm's iterations (-1: none).

    Attributes
    ----------
    kernel_ : kernel object
        The fitted LPPK / RBF-PPK kernel.
    partitions_ : dict
        Class label → its k-means partition.
    units_ : kernelviz.kernels.Units
        The training clusters.
    unit_labels_ : ndarray of shape (n_units,)
        Class of each unit.
    unit_sizes_ : ndarray of shape (n_units,)
        Number of training points in each unit.
    support_ : ndarray of shape (n_SV,)
        Indices of the support units.
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    n_support_ : ndarray of shape (n_classes,)
        As in :class:`sklearn.svm.SVC`, over units.
    n_iter_ : ndarray
        libsvm iterations per binary problem.
    max_iter_reached_ : bool
        True when ``max_iter`` stopped the solver.
    svc_ : sklearn.svm.SVC
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    """

    _binary_only = False

    def __init__(self, kernel="rbf-ppk", C=1.0, gamma=1.0, n_components=5, point_bandwidth=None, random_state=0,
                 tol=1e-3, max_iter=-1):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.n_components = n_components
        self.point_bandwidth = point_bandwidth
        self.random_state = random_state
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y, X_unlabeled=None):
        """Cluster each class, then train the SVM on the cluster units.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None
            Accepted so that every model has the same ``fit``; ignored, because the
            units and the point bandwidth come from the labeled clusters.

        Returns
        -------
        self : SCM
        """
        C = check_positive(self.C, "C")
        max_iter = check_max_iter(self.max_iter)
        X, y, X_all, self.classes_ = _validate_training(self, X, y, X_unlabeled, binary_only=False)
        G = self._fit_units(X, y, X_all)
        # break_ties: with few units, one-vs-one votes often tie; resolving ties by the
        # decision values keeps predict consistent with decision_function.
        self.svc_ = _svm.fit_svm(G, self.unit_labels_, C=C, tol=self.tol, max_iter=max_iter, break_ties=True,
                                 sample_weight=self.unit_sizes_.astype(np.float64))
        self.support_ = self.svc_.support_
        self.dual_coef_ = self.svc_.dual_coef_
        self.intercept_ = self.svc_.intercept_
        self.n_support_ = self.svc_.n_support_
        self.n_iter_ = self.svc_.n_iter_
        self.max_iter_reached_ = _svm.reached_iteration_cap(self.svc_)
        _warn_if_capped(self, self.max_iter_reached_, max_iter)
        return self

    def _support_units(self):
        return _kernels.Units(self.units_.weights[self.support_], self.units_.means[self.support_],
                              self.units_.covariances[self.support_])

    def decision_function(self, X):
        """Decision values of the points, as :meth:`sklearn.svm.SVC.decision_function`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        decision : ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
        """
        X = self._validate_for_predict(X)
        return _chunks.apply_in_chunks(self.kernel_, X, self._support_units(),
                                       lambda K: _svm.decision_values(self.svc_, K))

    def predict(self, X):
        """Predict class labels of points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        X = self._validate_for_predict(X)
        return _chunks.apply_in_chunks(self.kernel_, X, self._support_units(), lambda K: _svm.predict(self.svc_, K))


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


class _MinimaxModel(_KernelModel):
    """Binary minimax probability machine on explicit feature rows."""

    def _fit_minimax(self, F, positive, weights, ridge):
        """MPM on the rows of F (positive = mask of class ``classes_[1]``); returns a, b."""
        ridge = check_positive(ridge, "ridge", allow_zero=True)
        check_positive(self.tol, "tol")
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
        # (or unit) the gap between the means is the only length scale left.
        scale = spread if spread > 0 else delta @ delta
        shift = ridge * 0.5 * scale * np.eye(F.shape[1])
        cov_pos, cov_neg = cov_pos + shift, cov_neg + shift
        if ridge == 0 and (min(np.linalg.eigvalsh(cov_pos)[0], np.linalg.eigvalsh(cov_neg)[0]) <= 0):
            raise ValueError("A class covariance is singular: set ridge > 0.")
        a, objective, self.n_iter_ = solve_mpm(cov_pos, cov_neg, delta, tol=self.tol, max_iter=self.max_iter)
        self.kappa_ = 1.0 / objective
        self.alpha_ = self.kappa_ ** 2 / (1.0 + self.kappa_ ** 2)
        b = a @ mean_pos - self.kappa_ * np.sqrt(a @ cov_pos @ a)
        return a, b


class MPM(_MinimaxModel):
    """Minimax Probability Machine (Lanckriet et al.), linear or kernelised. Two classes only.

    Finds the hyperplane aᵀz = b that maximises the worst-case accuracy α over all class
    distributions with the training means and covariances:
    min_a ‖Σ₊^½ a‖ + ‖Σ₋^½ a‖ s.t. aᵀ(x̄₊ − x̄₋) = 1, κ = 1/min, α = κ²/(1 + κ²),
    b = aᵀx̄₊ − κ‖Σ₊^½ a‖ (class "+" is ``classes_[1]``). The kernelised form (seed 003,
    Eq. 4) is solved in explicit kernel-PCA coordinates of the training Gram, where it
    is the linear problem again: a = Σ_j v_j φ(x_j) with the same optimum, and the
    feature-space ridge becomes a plain one. Covariances are population covariances
    (1/N), as in the kernel form.

    Parameters
    ----------
    kernel : "linear", str or kernel object, default="linear"
        "linear" for the primal MPM, a name from :func:`kernelviz.kernels.names` or a
        kernel object for the kernel MPM.
    gamma : float, default=1.0
        The kernel's γ (unused by "linear"); must be > 0.
    kernel_params : dict, default=None
        Other kernel parameters.
    ridge : float or "auto", default="auto"
        Added to both class covariances, times the mean of their traces; ≥ 0. "auto" is
        1e-6 for "linear" and 1e-2 for a kernel: in a feature space with as many
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

    def __init__(self, kernel=LINEAR, gamma=1.0, kernel_params=None, ridge="auto", tol=1e-12, max_iter=1000):
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
        weights = np.ones(len(X))
        if self.kernel_ == LINEAR:
            ridge = LINEAR_RIDGE if self.ridge == "auto" else self.ridge
            self.coef_, b = self._fit_minimax(X, positive, weights, ridge)
        else:
            ridge = KERNEL_RIDGE if self.ridge == "auto" else self.ridge
            F, Q = _kernel_pca_map(self.kernel_(X, X))
            a, b = self._fit_minimax(F, positive, weights, ridge)
            self.dual_coef_ = Q @ a
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
    of seed 003 (Eq. 4–5) is solved on the units' Gram (LPPK or RBF-PPK), with class
    means and covariances in the feature space weighted by the clusters' sizes (with
    equal sizes this is exactly Eq. 4), in kernel-PCA coordinates as in :class:`MPM`. A
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
    random_state : int, default=0
        Seed of k-means.
    ridge : float, default=1e-2
        Added to both feature-space covariances, times the mean of their traces; ≥ 0.
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

    def __init__(self, kernel="rbf-ppk", gamma=1.0, n_components=15, point_bandwidth=None, random_state=0,
                 ridge=KERNEL_RIDGE, tol=1e-12, max_iter=1000):
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.point_bandwidth = point_bandwidth
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
        F, Q = _kernel_pca_map(self._fit_units(X, y, X_all))
        positive = _binary_labels(self.unit_labels_, self.classes_)
        a, b = self._fit_minimax(F, positive, self.unit_sizes_.astype(np.float64), self.ridge)
        self.dual_coef_ = Q @ a
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
        return _kernel_expansion(self.kernel_, X, self.units_, self.dual_coef_, self.intercept_)


# ----------------------------------------------------------------------------- discriminants
def within_class_scatter(F, positive):
    """Δ = Σ_m F_mᵀ (I − 1_{N_m}) F_m over the two classes' rows F_m of F.

    With F = K (rows = columns of a symmetric Gram) this is MATH.md's
    Δ = K₁(I − 1_{N₁})K₁ᵀ + K₂(I − 1_{N₂})K₂ᵀ.
    """
    scatter = np.zeros((F.shape[1], F.shape[1]))
    for members in (positive, ~positive):
        centred = F[members] - F[members].mean(axis=0)
        scatter += centred.T @ centred
    return scatter


def nonparametric_between_scatter(F, K, positive, n_neighbors, weight_exponent):
    """KNDA's between-class scatter ∇ (seed 004, Eqs. 3–7) on the feature rows F.

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
    gamma : float, default=1.0
        The kernel's γ; must be > 0.
    beta : float, default=1e-3
        Ridge β added to Δ; must be > 0.
    kernel_params : dict, default=None
        Other kernel parameters.
    """ + _DISCRIMINANT_ATTRIBUTES

    def __init__(self, kernel="rbf", gamma=1.0, beta=1e-3, kernel_params=None):
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
    __doc__ = """Kernel Nonparametric Discriminant Analysis (seed 004, §2.2). Two classes only.

    The between-class scatter ∇ is built from the κ nearest neighbours of each point in
    the other class, weighted towards the class boundary
    (:func:`nonparametric_between_scatter`); the direction is the top eigenvector of
    (Δ + βI)⁻¹ ∇ (a symmetric-definite generalised eigenproblem). Points are classified
    by the same 1-D Bayes rule on the projections as :class:`KFD`.

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
    gamma : float, default=1.0
        The kernel's γ; must be > 0.
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

    def __init__(self, kernel="rbf", gamma=1.0, beta=1e-3, n_neighbors=5, weight_exponent=1.0, kernel_params=None):
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

    The SVM regulariser ½ wᵀw becomes ½ wᵀΘw with Θ = η Δ (∇ + βI)⁻¹ Δ + I (seed 004,
    Eq. 16), Δ and ∇ the within-class and nonparametric between-class scatter of the
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
      (and MATH.md) writes. With η = 0 this is a linear SVM on the columns of K, i.e. an
      SVM with the Gram K², not the kernel SVM with K.

    Both reproduce MATH.md's Δ = K₁(I − 1_{N₁})K₁ᵀ + K₂(I − 1_{N₂})K₂ᵀ up to the change of
    coordinates.

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
    C : float, default=1.0
        Hinge-loss penalty; must be > 0.
    gamma : float, default=1.0
        The kernel's γ; must be > 0.
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

    def __init__(self, kernel="rbf", C=1.0, gamma=1.0, eta=1e-4, beta=1e-3, n_neighbors=5, weight_exponent=1.0,
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
        self.kernel_ = self._fit_kernel(X_all)
        K = self.kernel_(X, X)
        if self.feature_map == "kernel_pca":
            F, Q = _kernel_pca_map(K)
        else:
            F, Q = K, None
        positive = _binary_labels(y, self.classes_)
        within = within_class_scatter(F, positive)
        between, _ = nonparametric_between_scatter(F, K, positive, n_neighbors, exponent)
        dim = F.shape[1]
        self.theta_ = eta * within @ linalg.solve(between + beta * np.eye(dim), within, assume_a="pos") + np.eye(dim)
        eigenvalues, vectors = linalg.eigh(0.5 * (self.theta_ + self.theta_.T))
        inverse_sqrt = (vectors / np.sqrt(eigenvalues)) @ vectors.T
        Z = F @ inverse_sqrt
        self.svc_ = _svm.fit_svm(Z @ Z.T, y, C=C, tol=self.tol, max_iter=max_iter)
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


#: The models the app offers: display name → (class, one-line description, binary only).
class WithUnlabeled(ClassifierMixin, BaseEstimator):
    """A model of this module fitted with fixed unlabeled points.

    scikit-learn's multi-class wrappers (``OneVsOneClassifier`` …) call ``fit(X, y)`` only;
    this adapter passes ``X_unlabeled`` to every copy they make.

    Parameters
    ----------
    estimator : estimator of kv.models
    X_unlabeled : array-like of shape (n_unlabeled, n_features), optional
    """

    def __init__(self, estimator=None, X_unlabeled=None):
        self.estimator = estimator
        self.X_unlabeled = X_unlabeled

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X, y, X_unlabeled=self.X_unlabeled)
        self.classes_ = self.estimator_.classes_
        return self

    def decision_function(self, X):
        return self.estimator_.decision_function(X)

    def predict(self, X):
        return self.estimator_.predict(X)


MODELS = {
    "Kernel SVM": (KernelSVC, "C-SVM (libsvm) with any kernel of kv.kernels; multi-class one-vs-one.", False),
    "mkRBF": (MkRBF, "k-means, then one Mahalanobis-RBF SVM per cluster with that cluster's covariance.", True),
    "SCM": (SCM, "Support Cluster Machine: SVM trained on per-class clusters (LPPK / RBF-PPK), tested on points.",
            False),
    "MPM": (MPM, "Minimax Probability Machine: hyperplane with the best worst-case accuracy bound α.", True),
    "MCPM": (MCPM, "Minimax Probability Machine trained on per-class clusters (LPPK / RBF-PPK); reports α.", True),
    "KFD": (KFD, "Kernel Fisher Discriminant: (Δ + βI)⁻¹(m₊ − m₋) in the empirical kernel map.", True),
    "KNDA": (KNDA, "Kernel Nonparametric Discriminant: between-class scatter from boundary neighbours.", True),
    "CKSVMNDA": (CKSVMNDA, "SVM whose regulariser adds KNDA's scatter: Θ = ηΔ(∇ + βI)⁻¹Δ + I.", True),
}
