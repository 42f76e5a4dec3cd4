"""Shared machinery of the models: input checks, kernel fitting, chunked kernel expansions,
kernel-PCA coordinates, and the base classes (kernel models, expansion models, cluster units)."""

import contextlib
import contextvars
import copy
import hashlib
import threading
import warnings
from collections import OrderedDict

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _chunks
from .. import kernels as _kernels
from .. import partitions as _partitions
from .._validation import check_choice, check_count, check_positive, check_unlabeled, format_label, format_labels

#: Eigenvalues of a training Gram below this fraction of the largest one are treated as
#: zero when the Gram is turned into explicit kernel-PCA coordinates.
_EIGENVALUE_RTOL = 1e-10

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

    A ``gamma`` given to the estimator (and its ``kernel_params``) is applied to the copy
    too, so a grid search over ``gamma`` means the same thing for names and objects.
    ``gamma=None`` keeps the kernel's own γ -- a kernel object's, or the named kernel's
    default (1.0) -- so that a grid search over ``kernel__gamma`` reaches the kernel
    instead of being overwritten by the estimator's γ.
    """
    if kernel_params is not None and not isinstance(kernel_params, dict):
        raise ValueError(f"kernel_params must be a dict of kernel parameters or None; got {kernel_params!r}.")
    params = dict(kernel_params or {})
    if "gamma" in params:
        raise ValueError("Pass gamma as the model's own gamma parameter, not inside kernel_params.")
    if gamma is not None:
        params["gamma"] = check_positive(gamma, "gamma")
    if isinstance(kernel, str):
        if kernel in extra_names:
            return kernel
        if kernel not in _kernels.names():
            allowed = list(extra_names) + _kernels.names()
            raise ValueError(f"Unknown kernel {kernel!r}; choose one of {', '.join(allowed)}, or pass a kernel object.")
        return _kernels.make(kernel, **params)
    if not (callable(kernel) and hasattr(kernel, "fit") and hasattr(kernel, "set_params")):
        raise ValueError(
            f"kernel must be a kernel name or a kernel object with fit, set_params and __call__; got {kernel!r}."
        )
    return copy.deepcopy(kernel).set_params(**params)


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

    def _point_kernel(self, X, Y):
        """Kernel values of new points ``X`` against the training points or units ``Y``."""
        return self.kernel_(X, Y)

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


# ----------------------------------------------------------------------------- cluster units (SCM, MCPM)
def _unit_log_densities(X, units):
    """log N(x | μ_a, Σ_a) of every point under every unit's Gaussian, shape (len X, len units)."""
    d = X.shape[1]
    out = np.empty((len(X), len(units)))
    for a, (mean, S) in enumerate(zip(units.means, np.broadcast_to(units.covariances, (len(units), d, d)))):
        L = linalg.cholesky(S, lower=True)
        z = linalg.solve_triangular(L, (X - mean).T, lower=True)
        out[:, a] = -0.5 * (np.sum(z * z, axis=0) + d * np.log(2 * np.pi)) - np.sum(np.log(np.diag(L)))
    return out


#: How SCM and MCPM turn a new point z into a Gaussian unit (docs/MATH.md §4.9.1): ``"bandwidth"``
#: (1, z, s² I); ``"cluster"`` (1, z, Σ_a) with Σ_a the covariance of the unit a under whose
#: Gaussian z is most likely, so that a point at a cluster's centre is that cluster's unit.
POINT_COVARIANCES = ("bandwidth", "cluster")


# ----------------------------------------------------------------------------- a memo of fit stages
class _StageMemo:
    """The last few results of a fit's data-only stages, within a byte budget.

    A model selection fits a model once per candidate on the same fold, and the stages before the
    candidate's last parameters are the same for many of them: CKSVMNDA's scatter matrices for
    every (C, η), its Θ for every C; SCM's and MCPM's per-class k-means for every (C, γ). A search
    that varies those parameters fastest, fold by fold (``kernelviz.reproduce``'s does), computes
    each stage once per fold instead of at every fit. Keys hold the digest of the data and every
    parameter a stage reads; a key of ``None`` means "do not keep" (a kernel whose fit cannot be
    told apart by its parameters, a clustering with no seed).
    """

    def __init__(self, max_bytes):
        self.max_bytes = max_bytes
        self._items = OrderedDict()  # key -> (value, bytes)
        self._lock = threading.Lock()  # the app's sessions fit in threads of one process

    def get(self, key, compute):
        with self._lock:
            if key is not None and not _FRESH.get() and key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        value = compute()
        size = _nbytes(value)
        if key is not None and size <= self.max_bytes:
            with self._lock:
                self._items[key] = (value, size)
                while sum(bytes_ for _, bytes_ in self._items.values()) > self.max_bytes:
                    self._items.popitem(last=False)
        return value

    def clear(self):
        with self._lock:
            self._items.clear()


#: True while every fit computes its stages itself (:func:`fresh_stages`).
_FRESH = contextvars.ContextVar("kernelviz_fresh_stages", default=False)


@contextlib.contextmanager
def fresh_stages():
    """Within, no fit reads a stage from a memo: it computes every stage of its training itself (and
    still leaves them for the fits after it). For a timed fit, whose seconds must be one model's whole
    training: read from the memo, an MCPM's k-means was the one an SCM had just computed on the same
    points (kernelviz.reproduce times its columns' fits split by split, every column in each)."""
    token = _FRESH.set(True)
    try:
        yield
    finally:
        _FRESH.reset(token)


def _nbytes(value):
    """Bytes of the arrays a stage result holds: in tuples, lists and dicts, and as attributes of
    the objects among them (a fitted kernel's points, a partition's labels), one level deep."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    return sum(v.nbytes for v in getattr(value, "__dict__", {}).values() if isinstance(v, np.ndarray))


def _digest(*arrays):
    """Content digest of arrays (shape and dtype included)."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(repr((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


#: SCM's and MCPM's per-class k-means partitions, by data and seed: 16 MB holds a search's five folds.
_UNIT_PARTITIONS = _StageMemo(16 * 2 ** 20)


class _ClusterUnitModel(_KernelModel):
    """Per-class k-means clusters as Gaussian units for LPPK / RBF-PPK (see :class:`SCM`)."""

    def _point_kernel(self, X, Y):
        """K(point units of X, units Y), the points built as ``point_covariance`` says."""
        if self.point_covariance == "bandwidth":
            return self.kernel_(X, Y)
        nearest = np.argmax(_unit_log_densities(X, self.units_), axis=1)
        K = np.empty((len(X), len(Y)))
        for unit in np.unique(nearest):
            rows = np.flatnonzero(nearest == unit)
            points = _kernels.Units(np.ones(len(rows)), X[rows], self.units_.covariances[unit])
            K[rows] = self.kernel_(points, Y)
        return K

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
        check_choice(self.point_covariance, "point_covariance", POINT_COVARIANCES)
        if not isinstance(self.kernel, str) or self.kernel not in UNIT_KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, UNIT_KERNELS))}; got {self.kernel!r}.")
        d = X.shape[1]
        # the same on every fit of a search's fold, whatever C and γ: kept, when a whole-number seed
        # makes it a function of the data (a generator's draws are not)
        seeded = isinstance(self.random_state, (int, np.integer)) and not isinstance(self.random_state, bool)
        classes, codes = np.unique(y, return_inverse=True)  # labels may be objects, whose bytes are addresses
        key = (self.n_components, int(self.random_state), _digest(X, codes), repr(classes.tolist())) if seeded else None
        self.partitions_ = dict(_UNIT_PARTITIONS.get(key, lambda: _partitions.fit_per_class(
            "kmeans", X, y, n_components=self.n_components, random_state=self.random_state)))
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
        self.kernel_ = _make_kernel(self.kernel, self.gamma,
                                    {"point_bandwidth": bandwidth, "normalize": self.normalize}).fit(X_all)
        return self.kernel_(self.units_, self.units_)


