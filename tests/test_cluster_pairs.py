"""The cluster-pair engine behind CkRBF (kernelviz._cluster_pairs): its theorems, both
evaluation paths against a direct double loop, accuracy on ill-conditioned pairs, and
the scale of the normaliser at any dimension."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import multivariate_normal
from sklearn.metrics.pairwise import rbf_kernel

import kernelviz as kv
from kernelviz import _cluster_pairs as cluster_pairs
from kernelviz.kernels import cluster_gaussian_gram
from kernelviz.partitions import Partition


from _linalg import min_relative_eigenvalue as _min_relative_eigenvalue  # noqa: E402
from _linalg import spd as _spd  # noqa: E402

pytestmark = pytest.mark.unit


def _double_loop(X, Y, cx, cy, covariances, gamma):
    """CkRBF from its formula, one pair at a time (slogdet, explicit solve)."""
    out = np.empty((len(X), len(Y)))
    for i, x in enumerate(X):
        for j, y in enumerate(Y):
            S = covariances[cx[i]] + covariances[cy[j]]
            diff = x - y
            out[i, j] = np.exp(-0.5 * np.linalg.slogdet(S)[1] - gamma * diff @ np.linalg.solve(S, diff))
    return out


@pytest.mark.parametrize("d, k, path", [(2, 3, "lifted_quadratic"), (1, 5, "lifted_quadratic"),
                                        (5, 8, "blocked_quadratic"), (12, 2, "blocked_quadratic")])
def test_both_paths_match_the_double_loop_for_any_assignment(d, k, path, monkeypatch):
    """k(d² + d + 1) ≤ MAX_LIFTED_DIM takes one lifted product, above it one whitening per pair."""
    calls = []
    original = getattr(cluster_pairs, path)
    monkeypatch.setattr(cluster_pairs, path, lambda *a: calls.append(1) or original(*a))
    rng = np.random.default_rng(d * 10 + k)
    X, Y = rng.normal(size=(23, d)), rng.normal(size=(9, d))
    cx, cy = rng.integers(0, k, 23), rng.integers(0, k, 9)
    covs = np.array([_spd(rng, d, rng.uniform(0.5, 2)) for _ in range(k)])
    gamma = 0.2
    np.testing.assert_allclose(cluster_gaussian_gram(X, Y, cx, cy, covs, gamma), _double_loop(X, Y, cx, cy, covs, gamma),
                               rtol=1e-10, atol=1e-300)
    assert calls == [1]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), d=st.integers(1, 4), k=st.integers(1, 5),
       gamma=st.floats(1e-3, 1e2))
def test_ckrbf_gram_is_psd_for_any_partition(seed, n, d, k, gamma):
    """CkRBF is (π/γ)^(d/2) ⟨N(x, Σx/2γ), N(y, Σy/2γ)⟩_L²: PSD whatever the partition."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    labels = rng.integers(0, k, n)                       # an arbitrary partition
    covs = np.array([_spd(rng, d, scale=rng.uniform(0.05, 3)) for _ in range(k)])
    K = cluster_gaussian_gram(X, X, labels, labels, covs, gamma)
    assert _min_relative_eigenvalue(K) > -1e-9
    # the fitted kernel, through its self-Gram path, on a given mixture's partition
    # (covariances then come from the hard clusters of X, regularised where they are tiny);
    # symmetric up to rounding (exactly, when the block path symmetrises it)
    means = rng.normal(scale=2.0, size=(k, d))
    mixture = Partition.from_parameters(means, covs, rng.uniform(0.2, 1.0, k))
    for normalize in ("paper", "unit"):
        K_fit = kv.kernels.make("ckrbf", gamma=gamma, partition=mixture, normalize=normalize).fit(X)(X)
        np.testing.assert_allclose(K_fit, K_fit.T, rtol=1e-10, atol=1e-12 * np.abs(K_fit).max())
        eig = np.linalg.eigvalsh(K_fit)
        assert eig[0] >= -1e-10 * eig[-1]


def test_ckrbf_equals_the_l2_inner_product_of_gaussians():
    """Direct check of the feature map: K = (π/γ)^(d/2) ∫ N(z; x, Σx/2γ) N(z; y, Σy/2γ) dz."""
    rng = np.random.default_rng(3)
    d, gamma = 2, 0.8
    covs = np.array([_spd(rng, d), _spd(rng, d, 0.3)])
    x, y = np.array([[0.2, -0.1]]), np.array([[0.9, 0.4]])
    K = cluster_gaussian_gram(x, y, [0], [1], covs, gamma)[0, 0]
    fx = multivariate_normal(x[0], covs[0] / (2 * gamma))
    fy = multivariate_normal(y[0], covs[1] / (2 * gamma))
    integral, _ = integrate.dblquad(lambda b, a: fx.pdf([a, b]) * fy.pdf([a, b]), -6, 7, -6, 7, epsabs=1e-12)
    assert K == pytest.approx((np.pi / gamma) ** (d / 2) * integral, rel=1e-6)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 5), gamma=st.floats(1e-2, 10))
def test_ckrbf_with_all_covariances_half_identity_is_exactly_rbf(seed, d, gamma):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(30, d)), rng.normal(size=(11, d))
    covs = np.array([np.eye(d) / 2] * 3)
    K = cluster_gaussian_gram(X, Y, rng.integers(0, 3, 30), rng.integers(0, 3, 11), covs, gamma)
    np.testing.assert_allclose(K, rbf_kernel(X, Y, gamma=gamma), rtol=1e-12, atol=1e-14)
    # The fitted kernel estimates Σ_i from the data: the 2d points c ± a·e_j (a² = (2d − 1)/4)
    # have mean c and sample covariance exactly I/2, so with those clusters CkRBF is RBF.
    a = np.sqrt((2 * d - 1) / 4)
    centers = rng.normal(size=(3, d)) + 10 * (a + 1) * np.arange(3)[:, None]
    star = np.vstack([a * np.eye(d), -a * np.eye(d)])
    X_fit = np.vstack([c + star for c in centers])
    mixture = Partition.from_parameters(centers, np.array([np.eye(d)] * 3))
    k = kv.kernels.make("ckrbf", gamma=gamma, partition=mixture).fit(X_fit)
    np.testing.assert_allclose(k.covariances_, np.broadcast_to(np.eye(d) / 2, (3, d, d)), rtol=0, atol=1e-14)
    np.testing.assert_array_equal(k.epsilons_, 0.0)
    for A, B in ((X_fit, Y), (X_fit, X_fit), (X, Y)):
        # reference from the differences themselves (far from the origin the expanded
        # ‖x‖² − 2x·y + ‖y‖² of sklearn's rbf_kernel is the less accurate side)
        expected = np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
        np.testing.assert_allclose(k(A, B if B is not A else None), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n, d, n_components", [(30, 2, 12), (40, 3, 10)])
def test_ckrbf_is_accurate_and_symmetric_with_regularised_clusters(seed, n, d, n_components):
    """Clusters with fewer than d + 1 points get Σ ← (1 − ε)Σ + εA with ε = 1e-10, so Σi + Σj can
    have a condition number near 1e10. Regression: the expanded quadratic form once lost up to
    1e-3 (relative) of K here at γ = 100, and the self-Gram was not symmetric.

    What float64 can promise: rounding S by one ulp moves D = dᵀS⁻¹d by up to ε_mach ‖S‖ |S⁻¹d|²
    (first-order perturbation) and log det S by up to ε_mach cond(S). That is tiny when d lies in
    the well-determined directions of S, and large only when d has a component along a
    near-null direction, where D is huge and K underflows to 0 anyway. The tolerances below
    are exactly these bounds (× 10), on top of 1e-10 relative.
    """
    eps = np.finfo(float).eps
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    k = kv.kernels.make("ckrbf", gamma=1.0, n_components=n_components, normalize="unit").fit(X)
    assert k.epsilons_.max() > 0                       # some clusters were regularised
    c = k.partition_.predict(X)
    D, D_tol = np.empty((n, n)), np.empty((n, n))
    log_n, log_n_tol = np.empty((n, n)), np.empty((n, n))
    for i in range(n):
        for j in range(n):                             # the formula, on the kernel's own Σ's
            S = k.covariances_[c[i]] + k.covariances_[c[j]]
            z = np.linalg.solve(S, X[i] - X[j])
            D[i, j] = (X[i] - X[j]) @ z
            D_tol[i, j] = 1e-10 * D[i, j] + 10 * eps * np.linalg.norm(S, 2) * (z @ z)
            # unit scale: minus ½ log of the self-similarities det(2Σ)^(−½) of both clusters
            S_x, S_y = 2 * k.covariances_[c[i]], 2 * k.covariances_[c[j]]
            log_n[i, j] = -0.5 * np.linalg.slogdet(S)[1] + 0.25 * (np.linalg.slogdet(S_x)[1] + np.linalg.slogdet(S_y)[1])
            log_n_tol[i, j] = 1e-10 + 10 * eps * (np.linalg.cond(S) + 0.5 * np.linalg.cond(S_x) + 0.5 * np.linalg.cond(S_y))
    family = k.gamma_family(X)
    assert np.all(np.abs(family.D - D) <= D_tol)
    assert np.all(np.abs(family.log_n - log_n) <= log_n_tol)
    assert np.mean(D_tol <= 1e-9 * np.maximum(D, 1e-300)) > 0.9   # the bound is tight for most pairs
    for gamma in (1.0, 100.0):
        K = k.set_params(gamma=gamma)(X)
        np.testing.assert_array_equal(K, K.T)
        # the γ-dependent factor exp(−γD): relative error ≤ γ·ΔD
        for rows, G in ((slice(None), K), (slice(0, 7), k(X[:7], X))):
            expected = np.exp(-gamma * D[rows])
            assert np.all(np.abs(G / family.n[rows] - expected) <= (1e-10 + gamma * D_tol[rows]) * expected + 1e-300)


# ------------------------------------------------------------------ scale at high dimension (issue 8, D3)
def _svc_fits(K, y):
    from sklearn.svm import SVC
    model = SVC(kernel="precomputed", C=10.0).fit(K, y)
    return np.all(np.isfinite(model.dual_coef_)) and np.all(np.isfinite(model.intercept_))


@pytest.mark.parametrize("d", [50, 500])
def test_unit_scale_is_of_order_one_and_psd_at_any_dimension(d):
    """Regression: at d = 500 on [0, 1] data the unit scale (then one constant) left values up
    to 1e14 and a Gram with eigenvalue −0.1, because the clusters' log det differ by hundreds."""
    rng = np.random.default_rng(0)
    X, Y = rng.random((200, d)), rng.random((30, d))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, -1)
    for gamma in (1.0 / d, 1.0, 30.0):
        k = kv.kernels.make("ckrbf", gamma=gamma, normalize="unit").fit(X)
        K, K_new = k(X), k(Y, X)
        assert np.all(np.isfinite(K)) and np.all(np.isfinite(K_new))
        np.testing.assert_array_equal(np.diag(K), 1.0)
        assert K.max() <= 1.0 and K_new.max() <= 1.0 + 1e-12 and K_new.min() >= 0.0
        eig = np.linalg.eigvalsh(K)
        assert eig[0] >= -1e-10 * eig[-1]
        assert _svc_fits(K, y)
    # the unit scale is the paper's kernel over √(K(x, x) K(y, y)): checked in log space,
    # where the paper's own values (e^hundreds at d = 500) are representable; log det of
    # these regularised covariances (condition numbers near 1e9 at d = 500) is only
    # determined to about machine ε × condition number
    covs, c = k.covariances_, k.partition_.predict(X[:40])
    pair_log_det = np.array([[np.linalg.slogdet(A + B)[1] for B in covs] for A in covs])
    self_log = -0.5 * np.array([np.linalg.slogdet(2 * S)[1] for S in covs])
    expected = -0.5 * pair_log_det - 0.5 * (self_log[:, None] + self_log[None, :])
    tolerance = 1e-10 + 10 * np.finfo(float).eps * max(np.linalg.cond(A + B) for A in covs for B in covs)
    np.testing.assert_allclose(k.gamma_family(X[:40]).log_n, expected[np.ix_(c, c)], rtol=0, atol=tolerance)


def test_paper_scale_too_large_for_an_svm_is_refused_with_what_works():
    """Regression: at d = 50, values far above float32's range (which libsvm keeps kernel values
    in) passed the float64 guard and the SVM fit failed with libsvm's 'not finite' message."""
    rng = np.random.default_rng(1)
    X = rng.random((200, 50)) * 0.05                     # per-axis variance 2e-4: det(2Σ)^(−½) ≈ e^195
    y = np.where(X[:, 0] + X[:, 1] > 0.05, 1, -1)
    paper = kv.kernels.make("ckrbf", gamma=1.0).fit(X)
    for compute in (lambda: paper(X), lambda: paper.gamma_family(X).gram(1.0)):
        with pytest.raises(ValueError, match=r"exceeds 3\.4e38.*Use normalize='unit'"):
            compute()
    # what the message recommends works
    assert _svc_fits(kv.kernels.make("ckrbf", gamma=1.0, normalize="unit").fit(X)(X), y)
    # on [0, 1] data the paper's scale at d = 50 (about 1e23) is large but usable
    X = rng.random((200, 50))
    K = kv.kernels.make("ckrbf", gamma=1.0).fit(X)(X)
    assert np.all(np.isfinite(K)) and 1e15 < K.max() < np.finfo(np.float32).max
    assert _svc_fits(K, np.where(X[:, 0] + X[:, 1] > 1, 1, -1))
