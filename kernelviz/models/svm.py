"""The SVM family: :class:`KernelSVC`, :class:`MkRBF`, :class:`SCM` (an SVM on cluster
units), and :class:`WithUnlabeled` for scikit-learn's multi-class wrappers. Every libsvm fit
goes through :mod:`kernelviz._svm`."""

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from .. import _chunks, _svm
from .. import kernels as _kernels
from .. import partitions as _partitions
from .._validation import check_choice, check_count, check_max_iter, check_positive
from ._base import _ClusterUnitModel, _KernelModel, _validate_training, _warn_if_capped

#: |decision value| given to points of an MkRBF cluster whose labeled points all share
#: one class: the value of a point lying on that class's margin.
SINGLE_CLASS_DECISION = 1.0


class _SupportVectorModel(_KernelModel):
    """Models whose libsvm ``svc_`` was trained on a precomputed Gram: new points are
    evaluated from their kernel values against the support points only, in chunks."""

    def _support_points(self):
        """The training points (or units) of ``svc_.support_``, in that order."""
        return self.support_vectors_

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
        return _chunks.apply_in_chunks(self._point_kernel, X, self._support_points(),
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
        return _chunks.apply_in_chunks(self._point_kernel, X, self._support_points(),
                                       lambda K: _svm.predict(self.svc_, K))


# ----------------------------------------------------------------------------- kernel SVM
class KernelSVC(_SupportVectorModel):
    """C-Support Vector Classifier with any kernel of :mod:`kernelviz.kernels`.

    libsvm through ``sklearn.svm.SVC(kernel="precomputed")``: the kernel's unsupervised
    part is fitted on the labeled and unlabeled points, then the SVM on the labeled Gram.
    Multi-class problems are solved one-vs-one, as in :class:`sklearn.svm.SVC`. With
    ``kernel="rbf"`` the predictions are those of ``SVC(kernel="rbf")`` at the same C, γ.

    A data-dependent kernel (CkRBF's clusters, RWM's mixture, LAP's graph …) is fitted
    inside :meth:`fit`, on a copy of ``kernel``; the parameter itself is never fitted.
    So :func:`sklearn.base.clone`, ``cross_val_score`` and ``GridSearchCV`` work as with
    any estimator: each fold fits its own kernel on its own training points, and
    ``GridSearchCV(KernelSVC(kernel=kv.kernels.make("ckrbf")), {"kernel__gamma": [...]})``
    searches the kernel's parameters (leave the model's ``gamma`` at None for that).

    Parameters
    ----------
    kernel : str or kernel object, default="rbf"
        A name from :func:`kernelviz.kernels.names`, or a kernel object (``fit``,
        ``set_params``, ``__call__``); an object is copied and given this model's
        ``gamma`` (unless None) and ``kernel_params``.
    C : float, default=1.0
        Penalty of the hinge loss; must be > 0.
    gamma : float, default=None
        The kernel's γ; must be > 0. None keeps the kernel's own: a kernel object's
        ``gamma`` (so ``GridSearchCV`` over ``kernel__gamma`` works), 1.0 for a name.
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

    def __init__(self, *, kernel="rbf", C=1.0, gamma=None, kernel_params=None, spectrum="raw", class_weight=None,
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


# ----------------------------------------------------------------------------- mkRBF
class MkRBF(_KernelModel):
    """k-means, then one Mahalanobis-RBF SVM per cluster (Czarnecki & Tabor's mkRBF).

    The clusters come from :func:`kernelviz.partitions.fit` ("kmeans") on the labeled
    and unlabeled points; cluster i's SVM uses exp(−γ (x−y)ᵀ Σ_i⁻¹ (x−y)) with Σ_i the
    partition's regularised covariance (docs/MATH.md §2.2–2.3). A point is classified by the SVM of
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

    def __init__(self, *, C=1.0, gamma=1.0, n_components=2, random_state=0, tol=1e-3, max_iter=-1):
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


class SCM(_SupportVectorModel, _ClusterUnitModel):
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
    normalize : {"density", "unit"}, default="density"
        How a point is scaled against a cluster unit in the kernel (docs/MATH.md §4.9.1):
        the units' densities as they are, or divided by their norms so that points and
        clusters share one self-product.
    point_covariance : {"bandwidth", "cluster"}, default="bandwidth"
        The covariance of a new point's unit: s² I, or the covariance of the unit under
        whose Gaussian the point is most likely (then a point at a cluster's centre is
        that cluster's unit; docs/MATH.md §4.9.1).
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

    def __init__(self, *, kernel="rbf-ppk", C=1.0, gamma=1.0, n_components=5, point_bandwidth=None,
                 normalize="density", point_covariance="bandwidth", random_state=0, tol=1e-3, max_iter=-1):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.n_components = n_components
        self.point_bandwidth = point_bandwidth
        self.normalize = normalize
        self.point_covariance = point_covariance
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

    def _support_points(self):
        """The support units (SCM's libsvm is trained on units, not points)."""
        return _kernels.Units(self.units_.weights[self.support_], self.units_.means[self.support_],
                              self.units_.covariances[self.support_])


class WithUnlabeled(ClassifierMixin, BaseEstimator):
    """A model of this module fitted with fixed unlabeled points.

    scikit-learn's multi-class wrappers (``OneVsOneClassifier`` …) call ``fit(X, y)`` only;
    this adapter passes ``X_unlabeled`` to every copy they make.

    Parameters
    ----------
    estimator : estimator of kv.models
    X_unlabeled : array-like of shape (n_unlabeled, n_features), optional
    """

    def __init__(self, *, estimator=None, X_unlabeled=None):
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
