"""The one SVM-on-a-Gram helper (kernelviz._svm) and the one chunking helper (kernelviz._chunks)."""

import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from kernelviz import _chunks, _svm

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(160, noise=0.25, random_state=0)
    X_test, _ = make_moons(90, noise=0.25, random_state=1)
    return rbf_kernel(X, X, gamma=2.0), y, rbf_kernel(X_test, X, gamma=2.0)


@pytest.mark.parametrize("weighted", [False, True])
def test_fit_svm_is_a_plain_precomputed_svc(moons, weighted):
    K, y, K_test = moons
    weights = np.linspace(0.5, 2.0, len(y)) if weighted else None
    ours = _svm.fit_svm(K, y, C=3.0, sample_weight=weights)
    reference = SVC(kernel="precomputed", C=3.0).fit(K, y, sample_weight=weights)
    np.testing.assert_array_equal(ours.support_, reference.support_)
    np.testing.assert_allclose(ours.dual_coef_, reference.dual_coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, reference.intercept_, rtol=0, atol=1e-10)
    K_support = K_test[:, ours.support_]
    np.testing.assert_allclose(_svm.decision_values(ours, K_support), reference.decision_function(K_test),
                               rtol=0, atol=1e-10)
    np.testing.assert_array_equal(_svm.predict(ours, K_support), reference.predict(K_test))
    assert not _svm.reached_iteration_cap(ours)


def test_support_columns_give_multiclass_decisions_and_votes():
    X, y = make_blobs(150, centers=3, cluster_std=2.5, random_state=0)
    X_test, _ = make_blobs(80, centers=3, cluster_std=2.5, random_state=1)
    K, K_test = rbf_kernel(X, X, gamma=0.2), rbf_kernel(X_test, X, gamma=0.2)
    ours = _svm.fit_svm(K, y, C=0.7)
    reference = SVC(kernel="precomputed", C=0.7).fit(K, y)
    K_support = K_test[:, ours.support_]
    np.testing.assert_allclose(_svm.decision_values(ours, K_support), reference.decision_function(K_test),
                               rtol=0, atol=1e-10)
    np.testing.assert_array_equal(_svm.predict(ours, K_support), reference.predict(K_test))
    # The padded Gram is zero outside the support columns and equal to K_test on them.
    padded = _svm.support_gram(K_support, ours)
    outside = np.setdiff1d(np.arange(len(y)), ours.support_)
    assert padded.shape == K_test.shape and not padded[:, outside].any()
    np.testing.assert_array_equal(padded[:, ours.support_], K_support)


def test_the_iteration_cap_is_read_from_libsvm_without_a_warning(moons):
    K, y, _ = moons
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        capped = _svm.fit_svm(K, y, C=1e4, max_iter=3)
    assert capped.n_iter_.max() >= 3 and _svm.reached_iteration_cap(capped)
    assert not _svm.reached_iteration_cap(_svm.fit_svm(K, y, C=1e4))
    # the same problem in scikit-learn's own SVC really warns: the cap was hit
    with pytest.warns(UserWarning, match="terminated early"):
        SVC(kernel="precomputed", C=1e4, max_iter=3).fit(K, y)


def test_fits_in_threads_leave_the_warnings_machinery_alone(moons):
    # warnings.catch_warnings swaps the process-global filters and showwarning: a fit that
    # used it to silence or record ConvergenceWarning would show up here as a filter on
    # ConvergenceWarning or a replaced showwarning, seen from another thread. (scikit-learn's
    # own label check briefly adds an "error" filter for numpy's VisibleDeprecationWarning,
    # which is not ours to police.)
    K, y, _ = moons
    leaked, seen_changes, errors = [], [], []
    stop = threading.Event()

    def record_leak(*args, **kwargs):
        leaked.append(args)

    def watch():
        while not stop.is_set():
            if warnings.showwarning is not record_leak:
                seen_changes.append("showwarning replaced")
            if any(category is not None and issubclass(category, ConvergenceWarning)
                   for _, _, category, _, _ in warnings.filters):
                seen_changes.append("ConvergenceWarning filter added")
            time.sleep(1e-4)

    def fit_capped():
        try:
            for _ in range(15):
                assert _svm.reached_iteration_cap(_svm.fit_svm(K, y, C=1e4, max_iter=3))
        except Exception as exc:  # collected: an assertion in a thread would otherwise be lost
            errors.append(exc)

    original_showwarning = warnings.showwarning
    warnings.showwarning = record_leak
    try:
        with warnings.catch_warnings():  # only this test's thread touches the filters, before the workers start
            warnings.simplefilter("default")
            watcher = threading.Thread(target=watch)
            workers = [threading.Thread(target=fit_capped) for _ in range(4)]
            watcher.start()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            stop.set()
            watcher.join()
    finally:
        warnings.showwarning = original_showwarning
    assert not errors and not leaked and not seen_changes


def test_the_warning_hook_the_helper_overrides_still_exists():
    # If scikit-learn renamed it, libsvm's ConvergenceWarning would leak again.
    assert callable(getattr(SVC, "_warn_from_fit_status", None))


def test_apply_in_chunks_matches_one_call_and_bounds_each_block():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(1001, 2)), rng.normal(size=(20, 2))
    blocks = []

    def kernel(A, B):
        blocks.append(len(A))
        return rbf_kernel(A, B)

    w = rng.normal(size=20)
    out = _chunks.apply_in_chunks(kernel, X, Y, lambda K: K @ w, max_bytes=8 * 20 * 100)
    np.testing.assert_allclose(out, rbf_kernel(X, Y) @ w, rtol=1e-12)
    assert max(blocks) == 100 and len(blocks) == 11 and sum(blocks) == 1001


def test_apply_in_chunks_refuses_no_points():
    with pytest.raises(ValueError, match="No points"):
        _chunks.apply_in_chunks(rbf_kernel, np.zeros((0, 2)), np.zeros((3, 2)), lambda K: K)
