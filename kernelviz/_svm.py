"""libsvm on a precomputed Gram matrix: the one place the package fits ``SVC(kernel="precomputed")``.

Every SVM of the package -- the models' KernelSVC, mkRBF, SCM and CKSVMNDA, the grid
engine of :mod:`kernelviz.evaluation`, the decision-boundary view -- is fitted by
:func:`fit_svm`, tells whether libsvm stopped at its iteration cap by
:func:`reached_iteration_cap`, and evaluates new points from their kernel values
against the support vectors only (:func:`decision_values`, :func:`predict`).

Why no warning machinery: scikit-learn ends ``SVC.fit`` with
``self._warn_from_fit_status()``, which calls ``warnings.warn(ConvergenceWarning)`` when
libsvm's ``fit_status_`` is 1 (stopped at ``max_iter``). Silencing it with
``warnings.catch_warnings()`` swaps the process-global ``warnings.filters`` in and out,
which is not thread-safe (Python < 3.14): under Streamlit's threaded server one
session's block can restore filters in the middle of another's, so warnings leak or
vanish elsewhere. :class:`_CapReportingSVC` overrides that hook instead, so no warning
is ever issued and no global state is touched; the cap is read from ``fit_status_``.
"""

import numpy as np
from sklearn.svm import SVC


class _CapReportingSVC(SVC):
    """``SVC`` that reports libsvm's iteration cap through ``fit_status_`` only (see the module notes)."""

    def _warn_from_fit_status(self):
        # The caller reads fit_status_ (reached_iteration_cap); warning here would need the
        # thread-unsafe warnings.catch_warnings to keep quiet.
        return None


def fit_svm(K, y, *, C, max_iter=-1, sample_weight=None, tol=1e-3, class_weight=None, cache_size=200,
            decision_function_shape="ovr", break_ties=False):
    """Fit a C-SVM (libsvm) on the training Gram ``K``.

    Parameters
    ----------
    K : ndarray of shape (n_train, n_train)
        Kernel values between the training points. A C-contiguous float64 array is
        handed to libsvm as it is; anything else is converted once.
    y : ndarray of shape (n_train,)
    C : float
        Penalty of the hinge loss (validated by the caller).
    max_iter : int, default=-1
        libsvm's iteration cap; -1 for none.
    sample_weight : ndarray of shape (n_train,), default=None
        Per-point multipliers of C.
    tol, class_weight, cache_size, decision_function_shape, break_ties
        As in :class:`sklearn.svm.SVC`.

    Returns
    -------
    sklearn.svm.SVC
        Fitted; it never warns about the iteration cap: ask :func:`reached_iteration_cap`.
    """
    svc = _CapReportingSVC(kernel="precomputed", C=C, max_iter=max_iter, tol=tol, class_weight=class_weight,
                           cache_size=cache_size, decision_function_shape=decision_function_shape,
                           break_ties=break_ties)
    return svc.fit(np.ascontiguousarray(K, dtype=np.float64), y, sample_weight=sample_weight)


def reached_iteration_cap(svc):
    """Whether libsvm stopped at ``max_iter`` (its ``fit_status_`` 1) in any binary problem."""
    return bool(svc.fit_status_ == 1)


def support_gram(K_support, svc):
    """A precomputed test Gram as libsvm reads it, from the columns of the support vectors.

    libsvm's precomputed mode wants one column per training point but reads only the
    support vectors' columns; the others are zeros.

    Parameters
    ----------
    K_support : ndarray of shape (n_points, n_SV)
        Kernel values against the support vectors, in the order of ``svc.support_``.
    svc : fitted sklearn.svm.SVC

    Returns
    -------
    ndarray of shape (n_points, n_train)
    """
    K = np.zeros((len(K_support), svc.shape_fit_[0]))
    K[:, svc.support_] = K_support
    return K


def decision_values(svc, K_support):
    """``svc.decision_function`` of points from their kernel values against the support vectors.

    Two classes: f(x) = Σ_i dual_coef_[i] K(x, sv_i) + intercept_, computed directly.
    More classes go through libsvm on :func:`support_gram` (one-vs-one votes, "ovr" shape).

    Parameters
    ----------
    svc : fitted sklearn.svm.SVC
    K_support : ndarray of shape (n_points, n_SV)

    Returns
    -------
    ndarray of shape (n_points,) for two classes, else as ``svc.decision_function``
    """
    if len(svc.classes_) == 2:
        return K_support @ svc.dual_coef_[0] + svc.intercept_[0]
    return svc.decision_function(support_gram(K_support, svc))


def predict(svc, K_support):
    """``svc.predict`` of points from their kernel values against the support vectors.

    libsvm's own vote (and tie-breaking) decides, so labels are exactly those of
    ``svc.predict`` on the full test Gram.
    """
    return svc.predict(support_gram(K_support, svc))
