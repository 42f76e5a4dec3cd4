"""The kernels: the theorems of docs/MATH.md §4, brute-force agreement, and bad input."""

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import multivariate_normal
from sklearn.base import clone
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC

import kernelviz as kv
from kernelviz import _cluster_pairs as cluster_pairs
from kernelviz.kernels import Units, cluster_gaussian_gram, lppk
from kernelviz.partitions import Partition

ALL = kv.kernels.names()


from _linalg import min_relative_eigenvalue as _min_relative_eigenvalue  # noqa: E402
from _linalg import spd as _spd  # noqa: E402

pytestmark = pytest.mark.unit


def _blobs(rng, n=60, d=2):
    centers = rng.normal(scale=3.0, size=(3, d))
    return centers[rng.integers(0, 3, n)] + rng.normal(size=(n, d)) * rng.uniform(0.3, 1.5, size=(n, 1))


def _separated_blobs(rng, sizes, d, spread=8.0):
    """Well-separated anisotropic blobs of the given sizes (unequal, so that a mean over
    points and a mean over clusters differ)."""
    k = len(sizes)
    centers = rng.normal(size=(k, d)) + spread * np.arange(k)[:, None]
    scales = rng.uniform(0.4, 1.5, size=(k, d))
    return np.vstack([c + rng.normal(size=(m, d)) * s for c, s, m in zip(centers, scales, sizes)])


# ------------------------------------------------------------------ registry and API
def test_names_match_product_spec():
    assert ALL == ["rbf", "mrbf", "ckrbf", "ckrbf-radial", "gmm", "rwm", "lap", "lppk", "rbf-ppk"]


@pytest.mark.parametrize("name", ALL)
def test_every_kernel_gives_float64_gram_of_the_right_shape_and_symmetry(name):
    rng = np.random.default_rng(1)
    X, Y = _blobs(rng, 50), _blobs(rng, 7)
    k = kv.kernels.make(name, gamma=0.3).fit(X)
    K, KXY = k(X), k(X, Y)
    assert K.dtype == np.float64 and K.shape == (50, 50) and KXY.shape == (50, 7)
    np.testing.assert_allclose(K, K.T, rtol=1e-10, atol=1e-12 * np.abs(K).max())
    np.testing.assert_allclose(k(Y, X), KXY.T, rtol=1e-10, atol=1e-12 * np.abs(K).max())
    # a row of the full Gram equals the kernel against that single point
    np.testing.assert_allclose(k(X[3:4], X)[0], K[3], rtol=1e-9, atol=1e-12 * np.abs(K).max())


@pytest.mark.parametrize("name", ALL)
def test_params_round_trip(name):
    k = kv.kernels.make(name, gamma=0.25)
    params = k.get_params()
    assert params["gamma"] == 0.25
    assert kv.kernels.make(name, **params).get_params() == params
    assert set(params) == set(kv.kernels.parameters(name))


# ------------------------------------------------------------------ CkRBF (the engine itself: test_cluster_pairs.py)
@pytest.mark.parametrize("d", [1, 2, 5])
def test_ckrbf_with_one_cluster_is_scaled_mahalanobis_rbf_at_half_gamma(d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(80, d)) @ _spd(rng, d)
    Y = rng.normal(size=(9, d))
    gamma = 0.7
    ck = kv.kernels.make("ckrbf", gamma=gamma, n_components=1).fit(X)
    mrbf = kv.kernels.make("mrbf", gamma=gamma / 2).fit(X)
    sign, logdet = np.linalg.slogdet(2 * np.cov(X, rowvar=False).reshape(d, d))
    np.testing.assert_allclose(ck(X, Y), np.exp(-0.5 * logdet) * mrbf(X, Y), rtol=1e-11)


@pytest.mark.parametrize("name", ["rbf", "mrbf", "ckrbf", "ckrbf-radial", "gmm", "rwm", "rbf-ppk"])
def test_gamma_conversion_is_exact(name):
    """K_γ̂ = n ⊙ exp(ln(K_γ / n) · γ̂/γ) (CkRBF paper §4), and the family matches direct calls."""
    rng = np.random.default_rng(5)
    X = _blobs(rng, 70, 3)
    k = kv.kernels.make(name, gamma=0.5).fit(X)
    family = k.gamma_family(X)
    K_half = k(X)
    # Below the smallest normal float (2.2e-308) values are subnormal and carry fewer
    # significant bits, so "1e-12 relative" is only meaningful down to that level.
    floor = 1e-12 * np.finfo(float).tiny
    for gamma_hat in (1e-3, 0.05, 2.0, 30.0):
        direct = k.set_params(gamma=gamma_hat)(X)
        converted = family.n * np.exp(np.log(K_half / family.n) * gamma_hat / 0.5)
        np.testing.assert_allclose(converted, direct, rtol=1e-12, atol=floor)
        np.testing.assert_allclose(family.gram(gamma_hat), direct, rtol=1e-12, atol=floor)
        k.set_params(gamma=0.5)


# ------------------------------------------------------------------ mixture distance kernels
@pytest.mark.parametrize("name", ["rwm", "gmm"])
@pytest.mark.parametrize("d", [1, 2, 5])
def test_mixture_distances_with_equal_isotropic_covariances_are_euclidean_over_sigma(name, d):
    rng = np.random.default_rng(10 + d)
    sigma = 0.7
    means = rng.normal(size=(4, d)) * 3
    mixture = Partition.from_parameters(means, np.array([sigma**2 * np.eye(d)] * 4), [0.1, 0.2, 0.3, 0.4])
    X, Y = rng.normal(size=(25, d)) * 2, rng.normal(size=(6, d)) * 2
    gamma = 0.9
    k = kv.kernels.make(name, gamma=gamma, partition=mixture).fit(X)
    euclid = np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(k(X, Y), np.exp(-gamma * (euclid / sigma) ** 2), rtol=1e-10)
    np.testing.assert_allclose(k.component_distances(X, Y), np.broadcast_to(euclid / sigma, (4, 25, 6)), rtol=1e-10)


def _responsibilities(mixture, X):
    dens = np.column_stack([w * multivariate_normal(m, S).pdf(X) for w, m, S in
                            zip(mixture.weights_, mixture.means_, mixture.covariances_)])
    return dens / dens.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------ brute force, d = 1, 2, 5
def _brute(name, k, X, Y, X_fit):
    """Independent double-loop evaluation of every kernel from its formula in docs/MATH.md §4."""
    g = k.gamma
    n, m = len(X), len(Y)
    out = np.empty((n, m))
    if name in ("ckrbf", "ckrbf-radial"):
        # Only the hard assignment is taken from the kernel; everything else is recomputed
        # from docs/MATH.md §2.2, §4.4 and §6: Σ_i = cov(X_fit ∩ W_i) (ddof = 1), radial σ_i² = trace(Σ_i)/d, and the
        # "unit" scale: each value over √(K(x, x) K(y, y)), K(x, x) = det(2Σ_c(x))^(−½).
        d = X_fit.shape[1]
        labels = k.partition_.predict(X_fit)
        covs = []
        for c in range(k.partition_.n_components_):
            members = X_fit[labels == c]
            assert len(members) >= d + 1, "choose data where no cluster needs regularisation"
            S = np.cov(members, rowvar=False).reshape(d, d)
            covs.append(np.trace(S) / d * np.eye(d) if name == "ckrbf-radial" else S)
        covs = np.array(covs)
        self_similarity = np.array([np.linalg.det(2 * S) ** -0.5 if k.normalize == "unit" else 1.0 for S in covs])
        cx, cy = k.partition_.predict(X), k.partition_.predict(Y)
    if name in ("gmm", "rwm"):
        mix = k.partition_
        rx, ry = _responsibilities(mix, X), _responsibilities(mix, Y)
    if name == "mrbf":
        P = np.linalg.inv(np.atleast_2d(np.cov(X_fit, rowvar=False)))
    for i in range(n):
        for j in range(m):
            diff = X[i] - Y[j]
            if name == "rbf":
                out[i, j] = np.exp(-g * diff @ diff)
            elif name == "mrbf":
                out[i, j] = np.exp(-g * diff @ P @ diff)
            elif name in ("ckrbf", "ckrbf-radial"):
                S = covs[cx[i]] + covs[cy[j]]
                out[i, j] = np.linalg.det(S) ** -0.5 * np.exp(-g * diff @ np.linalg.inv(S) @ diff) / np.sqrt(
                    self_similarity[cx[i]] * self_similarity[cy[j]])
            elif name in ("gmm", "rwm"):
                deltas = [np.sqrt(diff @ np.linalg.inv(S) @ diff) for S in mix.covariances_]
                if name == "gmm":
                    w = mix.weights_
                else:
                    w = 0.5 * (rx[i] + ry[j])
                out[i, j] = np.exp(-g * np.dot(w, deltas) ** 2)
            elif name == "lppk":
                s2 = 1 / (4 * g)
                out[i, j] = multivariate_normal(Y[j], 2 * s2 * np.eye(X.shape[1])).pdf(X[i])
            elif name == "rbf-ppk":
                s2 = k.bandwidth_**2
                dim = X.shape[1]
                self_term = multivariate_normal(np.zeros(dim), 2 * s2 * np.eye(dim)).pdf(np.zeros(dim))
                cross = multivariate_normal(Y[j], 2 * s2 * np.eye(dim)).pdf(X[i])
                out[i, j] = np.exp(-g * (2 * self_term - 2 * cross))
    return out


@pytest.mark.parametrize("d", [1, 2, 5])
@pytest.mark.parametrize("name", ["rbf", "mrbf", "gmm", "rwm", "lppk", "rbf-ppk"])
def test_kernel_matches_brute_force(name, d):
    rng = np.random.default_rng(100 + d)
    X = _blobs(rng, 40, d)
    Y = _blobs(rng, 6, d)
    params = {}
    if name in ("gmm", "rwm"):
        params = {"n_components": 3}
    if name == "rbf-ppk":
        params = {"point_bandwidth": 0.8}
    k = kv.kernels.make(name, gamma=0.4, **params).fit(X)
    np.testing.assert_allclose(k(X[:12], Y), _brute(name, k, X[:12], Y, X), rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("d", [1, 2, 5])
@pytest.mark.parametrize("partition", ["kmeans", "gmm", "vi"])
@pytest.mark.parametrize("normalize", ["paper", "unit"])
@pytest.mark.parametrize("name", ["ckrbf", "ckrbf-radial"])
def test_cluster_kernels_match_brute_force(name, normalize, partition, d, monkeypatch):
    """Covariances, σ² = trace/d and the unit scale recomputed from the data, for every partition."""
    calls = []
    original = cluster_pairs.lifted_quadratic
    monkeypatch.setattr(cluster_pairs, "lifted_quadratic", lambda *a: calls.append(1) or original(*a))
    rng = np.random.default_rng(100 + d)
    X = _separated_blobs(rng, (10, 15, 20), d)
    Y = X[rng.choice(len(X), 6, replace=False)] + rng.normal(scale=0.7, size=(6, d))   # new points, all clusters
    k = kv.kernels.make(name, gamma=0.4, n_components=3, partition=partition, normalize=normalize).fit(X)
    labels = k.partition_.predict(X)
    # every hard cluster has ≥ d + 1 points and a regular covariance: no regularisation
    assert np.bincount(labels, minlength=k.partition_.n_components_).min() >= d + 1
    np.testing.assert_array_equal(k.epsilons_, 0.0)
    sub = X[::3]
    expected = _brute(name, k, sub, Y, X)
    np.testing.assert_allclose(k(sub, Y), expected, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(k.gamma_family(sub, Y).gram(0.4), expected, rtol=1e-10, atol=1e-300)
    # a self-Gram takes the symmetric (same=True) path
    np.testing.assert_allclose(k(sub), _brute(name, k, sub, sub, X), rtol=1e-10, atol=1e-300)
    assert len(calls) == 3                # all through the lifted (one matrix product) path


@pytest.mark.parametrize("normalize", ["paper", "unit"])
@pytest.mark.parametrize("partition", ["kmeans", "gmm"])
def test_ckrbf_blocked_path_matches_brute_force(partition, normalize, monkeypatch):
    """k(d² + d + 1) > _MAX_LIFTED_DIM switches to the per-cluster-pair Cholesky path."""
    d, n_components = 5, 8
    assert n_components * (d * d + d + 1) > cluster_pairs.MAX_LIFTED_DIM
    calls = []
    original = cluster_pairs.blocked_quadratic
    monkeypatch.setattr(cluster_pairs, "blocked_quadratic", lambda *a: calls.append(1) or original(*a))
    rng = np.random.default_rng(5)
    X = _separated_blobs(rng, range(10, 10 + 2 * n_components, 2), d)
    Y = X[rng.choice(len(X), 7, replace=False)] + rng.normal(scale=0.7, size=(7, d))
    k = kv.kernels.make("ckrbf", gamma=0.3, n_components=n_components, partition=partition,
                        normalize=normalize).fit(X)
    assert k.partition_.n_components_ == n_components
    np.testing.assert_array_equal(k.epsilons_, 0.0)
    sub = X[::4]
    np.testing.assert_allclose(k(sub, Y), _brute("ckrbf", k, sub, Y, X), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(k(sub), _brute("ckrbf", k, sub, sub, X), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(k.gamma_family(sub, Y).gram(0.3), _brute("ckrbf", k, sub, Y, X),
                               rtol=1e-10, atol=1e-300)
    assert len(calls) == 3


@pytest.mark.parametrize("d", [1, 2, 5])
def test_laplacian_kernel_matches_direct_formula(d):
    rng = np.random.default_rng(7 + d)
    Z = _blobs(rng, 30, d)
    X, Y = Z[:5], rng.normal(size=(4, d))
    gamma, ratio, k_nn = 0.3, 0.5, 4
    k = kv.kernels.make("lap", gamma=gamma, n_neighbors=k_nn, lap_ratio=ratio).fit(Z)
    # independent graph: symmetrised k-nearest-neighbour connectivity by brute force
    dist = np.linalg.norm(Z[:, None] - Z[None], axis=-1)
    W = np.zeros_like(dist)
    for i in range(len(Z)):
        W[i, np.argsort(dist[i])[1:k_nn + 1]] = 1
    W = np.maximum(W, W.T)
    L = np.diag(W.sum(1)) - W
    base = lambda A, B: rbf_kernel(A, B, gamma=gamma)  # noqa: E731
    M = ratio * L
    expected = base(X, Y) - base(X, Z) @ np.linalg.inv(np.eye(len(Z)) + M @ base(Z, Z)) @ M @ base(Z, Y)
    np.testing.assert_allclose(k(X, Y), expected, rtol=1e-9, atol=1e-12)
    # against the fitted points themselves the code takes the K_xZ C⁻¹ shortcut
    expected_Z = base(X, Z) - base(X, Z) @ np.linalg.inv(np.eye(len(Z)) + M @ base(Z, Z)) @ M @ base(Z, Z)
    np.testing.assert_allclose(k(X, Z.copy()), expected_Z, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(k(Z), base(Z, Z) - base(Z, Z) @ np.linalg.inv(np.eye(len(Z)) + M @ base(Z, Z)) @ M @ base(Z, Z),
                               rtol=1e-9, atol=1e-12)


def test_laplacian_deformation_with_zero_graph_weight_is_rbf():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    k = kv.kernels.make("lap", gamma=0.6, lap_ratio=0.0).fit(X)
    np.testing.assert_allclose(k(X), rbf_kernel(X, gamma=0.6), atol=1e-14)


# ------------------------------------------------------------------ probability product kernels
def test_lppk_closed_form_matches_numerical_integration():
    rng = np.random.default_rng(4)
    S_a, S_b = _spd(rng, 2, 0.5), _spd(rng, 2, 0.8)
    mu_a, mu_b = np.array([0.3, -0.2]), np.array([-0.4, 0.5])
    A = Units([0.3], [mu_a], [S_a])
    B = Units([0.6], [mu_b], [S_b])
    pa, pb = multivariate_normal(mu_a, S_a), multivariate_normal(mu_b, S_b)
    integral, _ = integrate.dblquad(lambda y, x: pa.pdf([x, y]) * pb.pdf([x, y]), -8, 8, -8, 8, epsabs=1e-13)
    assert lppk(A, B)[0, 0] == pytest.approx(0.3 * 0.6 * integral, rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 12), d=st.integers(1, 4))
def test_lppk_is_psd_on_any_units(seed, m, d):
    rng = np.random.default_rng(seed)
    units = Units(rng.uniform(0.1, 1, m), rng.normal(size=(m, d)), [_spd(rng, d, rng.uniform(0.1, 2)) for _ in range(m)])
    K = lppk(units, units)
    assert _min_relative_eigenvalue(K) > -1e-9


def test_lppk_mixes_clusters_and_points():
    """Cluster vs point with bandwidth s: P N(z | μ, Σ + s² I) (s → 0 is the paper's Eq. 11)."""
    rng = np.random.default_rng(8)
    S = _spd(rng, 2)
    clusters = Units([0.4], [[0.1, 0.2]], [S])
    z = np.array([[0.5, -0.3]])
    for s in (0.5, 1e-4):
        got = lppk(clusters, Units.from_points(z, s))[0, 0]
        assert got == pytest.approx(0.4 * multivariate_normal([0.1, 0.2], S + s * s * np.eye(2)).pdf(z[0]), rel=1e-10)
    k = kv.kernels.make("lppk", gamma=2.0)
    np.testing.assert_allclose(k(clusters, z), lppk(clusters, Units.from_points(z, 1 / np.sqrt(8.0))))


def test_rbf_ppk_is_one_on_identical_units_and_psd():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(30, 2))
    k = kv.kernels.make("rbf-ppk", gamma=0.01).fit(X)
    K = k(X)
    np.testing.assert_allclose(np.diag(K), 1.0)
    assert _min_relative_eigenvalue(K) > -1e-10
    clusters = Units.from_partition(kv.partitions.fit("kmeans", X, n_components=3))
    assert k(clusters).shape == (3, 3) and k(clusters, X).shape == (3, 30)


def _brute_lppk(U, V):
    """P_a P_b N(μ_a | μ_b, Σ_a + Σ_b), one scipy density per pair."""
    d = U.means.shape[1]
    cov_u = np.broadcast_to(U.covariances, (len(U), d, d))
    cov_v = np.broadcast_to(V.covariances, (len(V), d, d))
    return np.array([[U.weights[a] * V.weights[b] * multivariate_normal(V.means[b], cov_u[a] + cov_v[b]).pdf(U.means[a])
                      for b in range(len(V))] for a in range(len(U))])


@pytest.mark.parametrize("d", [1, 2, 5])
def test_ppk_kernels_on_cluster_units_match_brute_force(d):
    rng = np.random.default_rng(200 + d)
    X = _separated_blobs(rng, (12, 18, 25), d, spread=2.0)
    kmeans = kv.partitions.fit("kmeans", X, n_components=3, random_state=0)
    A = Units.from_partition(kmeans)                            # P = share of the points
    # the units are the clusters: weights, means and covariances recomputed from the labels
    labels = kmeans.labels_
    np.testing.assert_allclose(A.weights, np.bincount(labels) / len(X), rtol=1e-15)
    np.testing.assert_allclose(A.means, [X[labels == i].mean(0) for i in range(3)], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(A.covariances, [np.cov(X[labels == i], rowvar=False).reshape(d, d) for i in range(3)],
                               rtol=1e-10, atol=1e-12)
    B = Units.from_partition(kv.partitions.fit("gmm", X, n_components=2, random_state=0), weight_by="weight")
    points = Units.from_points(X[::9], 0.3)                      # (1, z, 0.09 I)
    gamma = 0.7
    lppk_kernel = kv.kernels.make("lppk", gamma=gamma)
    ppk = kv.kernels.make("rbf-ppk", gamma=gamma, point_bandwidth=0.3).fit(X)
    for U, V in ((A, A), (A, B), (B, A), (A, points), (points, B), (points, points)):
        K = _brute_lppk(U, V)
        np.testing.assert_allclose(lppk(U, V), K, rtol=1e-10, atol=0)
        self_u = np.diag(_brute_lppk(U, U))
        self_v = np.diag(_brute_lppk(V, V))
        expected = np.exp(-gamma * (self_u[:, None] + self_v[None, :] - 2 * K))
        np.testing.assert_allclose(ppk(U, V), expected, rtol=1e-10, atol=0)
    np.testing.assert_allclose(lppk_kernel(A, B), _brute_lppk(A, B), rtol=1e-10, atol=0)
    # point arrays enter as (1, z, s² I): s = point_bandwidth for RBF-PPK, s² = 1/(4γ) for LPPK
    np.testing.assert_allclose(ppk(A, X[::9]), ppk(A, points), rtol=1e-14)
    np.testing.assert_allclose(lppk_kernel(X[::9], A), _brute_lppk(Units.from_points(X[::9], (4 * gamma) ** -0.5), A),
                               rtol=1e-10, atol=0)


# ------------------------------------------------------------------ kernel scale
def test_unit_normalization_divides_by_the_self_similarities():
    """K_unit(x, y) = K(x, y) / √(K(x, x) K(y, y)): ones on the diagonal, nothing above one,
    for fitted and new points alike."""
    rng = np.random.default_rng(11)
    X, Y = rng.random((200, 2)), rng.random((40, 2))
    paper = kv.kernels.make("ckrbf", gamma=3.0).fit(X)
    unit = kv.kernels.make("ckrbf", gamma=3.0, normalize="unit").fit(X)
    self_x = np.array([paper(x[None], x[None])[0, 0] for x in X])
    self_y = np.array([paper(y[None], y[None])[0, 0] for y in Y])
    np.testing.assert_allclose(unit(X), paper(X) / np.sqrt(self_x[:, None] * self_x[None, :]), rtol=1e-12)
    np.testing.assert_allclose(unit(Y, X), paper(Y, X) / np.sqrt(self_y[:, None] * self_x[None, :]), rtol=1e-12)
    np.testing.assert_allclose(np.diag(unit(X)), 1.0, rtol=1e-15)
    assert unit(Y, X).max() <= 1.0
    # the two clusters' self-similarities differ, so this is not one constant
    assert np.ptp(np.log(self_x)) > 0.1
    # on [0, 1] data the paper's normaliser is far from 1 (docs/MATH.md §6: about 13 on fourclass);
    # describe() quotes it under either scale
    assert np.exp(paper.log_norm_).min() > 2
    for kernel in (paper, unit):
        assert kernel.describe()["normaliser min"] == pytest.approx(np.exp(paper.log_norm_).min(), rel=1e-12)
    assert unit.describe()["factor max"] == pytest.approx(1.0, rel=1e-12)


def test_high_dimensional_ckrbf_is_computed_in_log_space():
    rng = np.random.default_rng(12)
    X = rng.random((400, 150)) * 0.01     # per-axis variance ≈ 8e-6: log det(2Σ)^(−½) ≈ 830
    unit = kv.kernels.make("ckrbf", gamma=1.0, normalize="unit").fit(X)
    assert np.all(np.isfinite(unit.log_norm_)) and np.all(np.isfinite(unit(X[:50])))
    paper = kv.kernels.make("ckrbf", gamma=1.0).fit(X)
    assert paper.log_norm_.max() > 709                     # det^(−½) itself overflows float64
    with pytest.raises(ValueError, match="normalize='unit'"):
        paper(X[:50])


# ------------------------------------------------------------------ spectra
def test_psd_report_and_clipping():
    rng = np.random.default_rng(13)
    V = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    K = (V * np.array([3, 2, 1, 0.5, -0.2, -1e-3])) @ V.T
    report = kv.kernels.psd_report(K)
    assert not report["is_psd"] and report["n_negative"] == 2 and report["min_eig"] == pytest.approx(-0.2)
    clipped = kv.kernels.clip_spectrum(K)
    assert kv.kernels.psd_report(clipped)["is_psd"]
    expected = (V * np.array([3, 2, 1, 0.5, 0, 0])) @ V.T
    np.testing.assert_allclose(clipped, expected, atol=1e-12)
    psd = rbf_kernel(rng.normal(size=(20, 2)))
    np.testing.assert_allclose(kv.kernels.clip_spectrum(psd), psd, atol=1e-12)


def test_rwm_gram_reports_its_smallest_eigenvalue():
    rng = np.random.default_rng(14)
    X = _blobs(rng, 120)
    K = kv.kernels.make("rwm", gamma=2.0).fit(X)(X)
    report = kv.kernels.psd_report(K)
    eig = np.linalg.eigvalsh(0.5 * (K + K.T))
    assert report["min_eig"] == pytest.approx(eig[0], rel=1e-10, abs=1e-10 * eig[-1])
    assert report["max_eig"] == pytest.approx(eig[-1], rel=1e-10)
    assert report["n_negative"] == int(np.sum(eig < -1e-10 * np.abs(eig).max()))
    assert report["is_psd"] == (report["n_negative"] == 0)
    np.testing.assert_allclose(report["eigenvalues"], eig[::-1], rtol=1e-10, atol=1e-10 * eig[-1])


def test_apply_in_chunks_equals_the_whole_computation():
    rng = np.random.default_rng(15)
    X, G = rng.normal(size=(50, 2)), rng.normal(size=(333, 2))
    k = kv.kernels.make("ckrbf", gamma=0.5).fit(X)
    w = rng.normal(size=50)
    chunked = kv.kernels.apply_in_chunks(k, G, X, lambda K: K @ w, max_bytes=8 * 50 * 7)
    np.testing.assert_allclose(chunked, k(G, X) @ w, rtol=1e-12)


# ------------------------------------------------------------------ new points, unlabeled data
def test_new_points_take_the_cluster_of_the_fitted_model():
    X = np.vstack([np.random.default_rng(0).normal(size=(50, 2)) * 0.1,
                   np.random.default_rng(1).normal(size=(50, 2)) * 2 + 10])
    k = kv.kernels.make("ckrbf", gamma=1.0).fit(X)
    near_tight = k.partition_.predict([[0.0, 0.0]])[0]
    assert k.cluster_sizes_[near_tight] == 50
    S = k.covariances_[near_tight]
    expected = np.linalg.det(2 * S) ** -0.5
    assert k([[0.0, 0.0]], [[0.0, 0.0]])[0, 0] == pytest.approx(expected, rel=1e-12)


def test_unlabeled_points_change_the_unsupervised_part():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(20, 2))
    U = rng.normal(size=(200, 2)) * 3 + 4
    a = kv.kernels.make("ckrbf", gamma=1.0).fit(X)
    b = kv.kernels.make("ckrbf", gamma=1.0).fit(np.vstack([X, U]))
    assert not np.allclose(a(X), b(X))


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("gamma", [0, -1.0, np.nan, np.inf, "abc"])
def test_non_positive_gamma_is_refused(gamma):
    with pytest.raises(ValueError, match="gamma must be a positive"):
        kv.kernels.make("rbf", gamma=gamma)
    k = kv.kernels.make("rbf", gamma=1.0)
    k.gamma = gamma
    with pytest.raises(ValueError, match="gamma must be a positive"):
        k(np.zeros((2, 2)))


def test_bad_input_messages():
    rng = np.random.default_rng(17)
    X = rng.normal(size=(10, 2))
    with pytest.raises(ValueError, match="Unknown kernel 'foo'.*rbf"):
        kv.kernels.make("foo")
    with pytest.raises(ValueError, match="has no parameter"):
        kv.kernels.make("rbf", n_components=2)
    with pytest.raises(ValueError, match="must be fitted first"):
        kv.kernels.make("ckrbf")(X)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite.*row 3, column 1"):
        kv.kernels.make("ckrbf").fit(bad)
    k = kv.kernels.make("mrbf").fit(X)
    with pytest.raises(ValueError, match="fitted on 2 features"):
        k(rng.normal(size=(3, 3)))
    with pytest.raises(ValueError, match="Cannot make 20 clusters from 10 points"):
        kv.kernels.make("ckrbf", n_components=20).fit(X)
    with pytest.raises(ValueError, match="needs more than 7 points"):
        kv.kernels.make("lap").fit(X[:5])
    with pytest.raises(ValueError, match="normalize must be"):
        kv.kernels.make("ckrbf", normalize="nope").fit(X)
    with pytest.raises(ValueError, match="numbers only"):
        kv.kernels.make("rbf")([["a", "b"]])


@pytest.mark.parametrize("name", ["ckrbf", "rwm"])     # one per fitting code path
def test_vi_priors_reach_the_kernels_mixture(name):
    rng = np.random.default_rng(18)
    X = _separated_blobs(rng, (60, 60), 2, spread=10.0)
    priors = {"weight_concentration_prior": 0.37, "mean_precision_prior": 0.21, "degrees_of_freedom_prior": 3.5,
              "covariance_prior": 0.6}
    k = kv.kernels.make(name, partition="vi", n_components=4, partition_params=priors).fit(X)
    est = k.partition_.estimator_
    assert (est.weight_concentration_prior_, est.mean_precision_prior_, est.degrees_of_freedom_prior_) == (0.37, 0.21, 3.5)
    np.testing.assert_array_equal(est.covariance_prior_, 0.6 * np.eye(2))
    # and they change the outcome: α0 decides how many components survive (fixed seed)
    kept = [kv.kernels.make(name, partition="vi", n_components=6, random_state=0,
                            partition_params={"weight_concentration_prior": alpha,
                                              "weight_concentration_prior_type": "dirichlet_distribution"})
            .fit(X).partition_.n_components_ for alpha in (1e-2, 1e3)]
    assert kept[0] < kept[1]


@pytest.mark.parametrize("name", ["ckrbf", "gmm", "rwm"])
@pytest.mark.parametrize("partition", ["kmeans", "gmm", "vi"])
def test_more_components_than_points_is_refused_alike(name, partition):
    """No silent capping: every partition kernel says what partitions.fit says."""
    X = np.random.default_rng(19).normal(size=(10, 2))
    with pytest.raises(ValueError, match="Cannot make 20 clusters from 10 points: ask for at most 10"):
        kv.kernels.make(name, partition=partition, n_components=20).fit(X)
    with pytest.raises(ValueError, match="Cannot make 20 clusters from 10 points: ask for at most 10"):
        kv.partitions.fit(partition, X, n_components=20)
    assert kv.kernels.make(name, partition=partition, n_components=10).fit(X).partition_.n_components_ <= 10


@pytest.mark.parametrize("name", ["gmm", "rwm"])
def test_mixture_kernels_need_two_points_unless_given_a_mixture(name):
    """partitions.fit's own messages, never scikit-learn's; k-means estimates no covariance
    from its points, so one point makes one (regularised) cluster."""
    with pytest.raises(ValueError, match="Cannot make 6 clusters from 1 points: ask for at most 1 components"):
        kv.kernels.make(name).fit(np.zeros((1, 2)))
    for partition in ("vi", "gmm"):
        for kernel in (name, "ckrbf"):
            with pytest.raises(ValueError, match=f"^A Gaussian mixture \\({partition}\\) needs at least two points "
                                                 f"to estimate a covariance; got 1\\.$"):
                kv.kernels.make(kernel, partition=partition, n_components=1).fit(np.zeros((1, 2)))
    k = kv.kernels.make(name, partition="kmeans", n_components=1).fit(np.zeros((1, 2)))
    assert k.partition_.n_components_ == 1 and k([[0.0, 0.0]])[0, 0] == 1.0
    assert np.all(np.isfinite(k([[0.0, 0.0], [1.0, 1.0]])))
    mixture = Partition.from_parameters([[0.0, 0.0], [3.0, 0.0]], [np.eye(2), np.eye(2)])
    k = kv.kernels.make(name, partition=mixture).fit(np.zeros((1, 2)))      # nothing to estimate
    assert k([[0.0, 0.0]])[0, 0] == 1.0


@pytest.mark.parametrize("name", ALL)
def test_one_dimensional_arrays_are_refused(name):
    rng = np.random.default_rng(20)
    X = _blobs(rng, 30, 1)
    k = kv.kernels.make(name, gamma=0.5)
    with pytest.raises(ValueError, match=r"X must be a 2-D array of shape \(n_points, n_features\).*reshape\(-1, 1\)"):
        k.fit(X[:, 0])
    with pytest.raises(ValueError, match=r"X must be a 2-D array.*1-D array of shape \(3,\)"):
        k.fit(np.zeros(3))
    k.fit(X)
    with pytest.raises(ValueError, match=r"X must be a 2-D array.*1-D array of shape \(3,\)"):
        k(np.zeros(3))
    with pytest.raises(ValueError, match=r"Y must be a 2-D array.*1-D array of shape \(3,\)"):
        k(X, np.zeros(3))
    # The refused 1-D column, reshaped as the message says, is the same single-feature input.
    np.testing.assert_array_equal(k(X[:3, 0].reshape(-1, 1)), k(X[:3]))
    if k.gamma_convertible:
        with pytest.raises(ValueError, match="X must be a 2-D array"):
            k.gamma_family(np.zeros(3))


def test_one_dimensional_arrays_are_refused_by_the_helpers():
    with pytest.raises(ValueError, match=r"X must be a 2-D array.*1-D array of shape \(3,\)"):
        cluster_gaussian_gram(np.zeros(3), np.zeros((2, 1)), [0, 0, 0], [0, 0], [np.eye(1)], 1.0)
    with pytest.raises(ValueError, match=r"Y must be a 2-D array.*1-D array of shape \(2,\)"):
        cluster_gaussian_gram(np.zeros((3, 1)), np.zeros(2), [0, 0, 0], [0, 0], [np.eye(1)], 1.0)
    assert cluster_gaussian_gram(np.zeros((3, 1)), np.zeros((2, 1)), [0, 0, 0], [0, 0], [np.eye(1)], 1.0).shape == (3, 2)
    with pytest.raises(ValueError, match="must be a 2-D array"):
        Units.from_points(np.zeros(3), 0.5)
    with pytest.raises(ValueError, match="unit means must be a 2-D array"):
        Units([1.0], [0.0, 1.0], np.eye(2))


def test_duplicates_and_singular_clusters_are_regularised_not_fatal():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]] + [[5.0, 5.0]] * 4)
    k = kv.kernels.make("ckrbf", gamma=1.0, n_components=3).fit(X)
    assert np.all(k.epsilons_ > 0)          # every cluster is singular here
    assert np.all(np.isfinite(k(X)))
    assert _min_relative_eigenvalue(k(X)) > -1e-8


@pytest.mark.parametrize("name", ALL)
def test_every_kernel_used_before_fit_says_so(name):
    """Regression: rbf-ppk raised AttributeError ('bandwidth_') before fit."""
    X = np.random.default_rng(21).normal(size=(10, 2))
    k = kv.kernels.make(name, gamma=0.5)
    uses = [lambda: k(X), lambda: k(X, X[:3])]
    if k.gamma_convertible:
        uses.append(lambda: k.gamma_family(X))
    if hasattr(k, "component_distances"):
        uses.append(lambda: k.component_distances(X))
    for use in uses:
        if k.needs_fit:
            with pytest.raises(ValueError, match=f"The {name} kernel must be fitted first"):
                use()
        else:
            use()                                      # nothing to fit: works as it is


@pytest.mark.parametrize("name, partition", [("rwm", "vi"), ("gmm", "vi"), ("rwm", "gmm")])
def test_mixture_kernels_do_not_depend_on_the_data_scale(name, partition):
    """Regression: at scale 1e-8 scikit-learn's absolute reg_covar (1e-6 × I) swamped every
    covariance: K ≈ 1 everywhere, and VI took about four times the iterations (27 s on fourclass)."""
    X = kv.data.scale(kv.data.load("fourclass").X, "minmax")[::2]
    unit_scale = kv.kernels.make(name, gamma=1.0, partition=partition).fit(X)
    tiny_scale = kv.kernels.make(name, gamma=1.0, partition=partition).fit(X * 1e-8)
    np.testing.assert_allclose(tiny_scale(X[::5] * 1e-8), unit_scale(X[::5]), rtol=1e-6, atol=1e-9)
    assert tiny_scale.partition_.estimator_.n_iter_ == unit_scale.partition_.estimator_.n_iter_


@pytest.mark.parametrize("name", ["rwm", "gmm"])
def test_mixture_far_wider_than_the_data_warns(name):
    X = np.random.default_rng(22).normal(size=(50, 2)) * 1e-8
    mixture = Partition.from_parameters([[0.0, 0.0], [1.0, 1.0]], [np.eye(2), np.eye(2)])
    with pytest.warns(UserWarning, match=f"The {name} kernel's mixture is far wider than the data"):
        k = kv.kernels.make(name, partition=mixture).fit(X)
    assert np.all(k(X) > 1 - 1e-12)                       # what the warning is about
    with pytest.warns(UserWarning, match="covariance prior w0"):
        kv.kernels.make(name, n_components=2, partition_params={"covariance_prior": 1.0}).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kv.kernels.make(name, n_components=2).fit(X)      # fitted on the data: no warning


# ------------------------------------------------------------------ scikit-learn conventions
@pytest.mark.parametrize("name", ["ckrbf", "rwm"])
def test_partition_estimator_is_cloned_and_fitted_or_reused_when_fitted(name):
    X = _separated_blobs(np.random.default_rng(23), (30, 40, 50), 2)
    estimator = Partition(method="gmm", n_components=3, random_state=2)
    k = kv.kernels.make(name, partition=estimator).fit(X)
    assert not hasattr(estimator, "means_")                        # cloned: the given estimator stays unfitted
    expected = kv.partitions.fit("gmm", X, n_components=3, random_state=2)
    np.testing.assert_array_equal(k.partition_.means_, expected.means_)
    # the kernel's own n_components is for the method-name shorthand only
    assert kv.kernels.make(name, partition=estimator, n_components=5).fit(X).partition_.n_components_ == 3
    fitted = kv.partitions.fit("kmeans", X[:40], n_components=2, random_state=0)
    assert kv.kernels.make(name, partition=fitted).fit(X).partition_ is fitted      # used as it is
    # a method name is shorthand for Partition(method=name, ...)
    shorthand = kv.kernels.make(name, partition="gmm", n_components=3, random_state=2).fit(X)
    np.testing.assert_array_equal(shorthand(X[:9]), k(X[:9]))
    with pytest.raises(ValueError, match="partition must be a method name"):
        kv.kernels.make(name, partition=3.0).fit(X)


def test_kernel_parameters_follow_scikit_learn():
    estimator = Partition(method="vi", n_components=4)
    k = kv.kernels.make("ckrbf", gamma=0.5, partition=estimator)
    shallow = k.get_params(deep=False)
    assert shallow == {"gamma": 0.5, "partition": estimator, "n_components": 2, "random_state": 0,
                       "normalize": "paper", "partition_params": None}
    deep = k.get_params(deep=True)
    assert deep["partition__n_components"] == 4 and deep["partition__method"] == "vi"
    assert set(deep) == set(shallow) | {f"partition__{key}" for key in estimator.get_params()}
    k.set_params(partition__n_components=6)
    assert estimator.n_components == 6
    with pytest.raises(ValueError, match="Kernel 'ckrbf' has no parameter 'bandwidth'"):
        k.set_params(bandwidth=1.0)
    for name in ALL:                                  # parameters come from __init__'s signature
        cls = type(kv.kernels.make(name))
        assert kv.kernels.parameters(name) == sorted(inspect.signature(cls.__init__).parameters.keys() - {"self"})
        with pytest.raises(TypeError):
            cls(0.5)                                  # keyword-only
    X = np.random.default_rng(24).normal(size=(30, 2))
    assert kv.kernels.make("ckrbf").fit(X, np.zeros(30)).is_fitted_       # fit(X, y=None) as scikit-learn


def test_fitted_kernel_given_to_svc_says_to_use_kernel_svc():
    rng = np.random.default_rng(25)
    X = _separated_blobs(rng, (20, 20), 2, spread=30.0)
    y = np.repeat([0, 1], 20)
    k = kv.kernels.make("ckrbf", gamma=0.5).fit(X)
    with pytest.raises(ValueError, match=r"scikit-learn cloned it.*Use kv\.models\.KernelSVC\(kernel=\.\.\.\)"):
        cross_val_score(SVC(kernel=k), X, y, cv=2, error_score="raise")
    assert clone(k).get_params() == k.get_params()
    # the model that fits the kernel inside its own fit works under clone / cross_val_score,
    # and the fitted object serves as the template the kernel's name (with its own γ) would give
    by_object = cross_val_score(kv.models.KernelSVC(kernel=k), X, y, cv=2, error_score="raise")
    np.testing.assert_array_equal(by_object, cross_val_score(kv.models.KernelSVC(kernel="ckrbf", gamma=0.5), X, y, cv=2))
    # a kernel with nothing to fit works with SVC as it is
    assert cross_val_score(SVC(kernel=kv.kernels.make("rbf", gamma=0.5)), X, y, cv=2, error_score="raise").min() == 1.0


# ----------------------------------------------------------------------------- categorical columns (RWM paper §3.4)
def _mixed_attributes(rng, n=25):
    """Two continuous columns, then a 3-category and a 2-category attribute (codes 0.., then scaled oddly)."""
    continuous = rng.normal(size=(n, 2))
    codes = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n)])
    return continuous, codes


def _one_hot(codes):
    return np.column_stack([(codes[:, [c]] == np.unique(codes[:, c])[None, :]).astype(float)
                            for c in range(codes.shape[1])])


@pytest.mark.parametrize("name", ["rwm", "gmm", "rbf"])
def test_categorical_with_unit_weights_and_identity_covariances_is_rbf_on_the_coded_columns(name):
    # The paper's own remark (§3.4): α = β = 1 and Σ_k = I give the RBF kernel on the
    # continuous columns next to the one-out-of-K codes of the categorical ones.
    rng = np.random.default_rng(3)
    continuous, codes = _mixed_attributes(rng)
    X = np.column_stack([codes[:, 0] * 0.7 - 1.0, continuous[:, 0], codes[:, 1] * 3.0, continuous[:, 1]])
    params = {"gamma": 0.4, "categorical": [0, 2]}
    if name != "rbf":
        params["partition"] = Partition.from_parameters(rng.normal(size=(2, 2)), np.stack([np.eye(2)] * 2))
    kernel = kv.kernels.make(name, **params).fit(X)
    expected = rbf_kernel(np.column_stack([continuous, _one_hot(codes)]), gamma=0.4)
    np.testing.assert_allclose(kernel(X), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel(X[:7], X[10:]), expected[:7, 10:], rtol=1e-12, atol=1e-14)


def test_categorical_one_hot_columns_are_compared_as_given():
    rng = np.random.default_rng(4)
    continuous, codes = _mixed_attributes(rng)
    coded = _one_hot(codes)
    X = np.column_stack([continuous, coded])
    kernel = kv.kernels.make("rbf", gamma=0.3, categorical=list(range(2, X.shape[1])), categorical_coding="one-hot")
    np.testing.assert_allclose(kernel(X), rbf_kernel(X, gamma=0.3), rtol=1e-12)


def _rwm_by_hand(x, y, means, covariances, weights, categorical_x, categorical_y, alpha, beta, gamma):
    """Formula (4.7a) of docs/MATH.md, one pair at a time with scipy densities."""
    def responsibilities(z):
        p = np.array([w * multivariate_normal(m, S).pdf(z) for m, S, w in zip(means, covariances, weights)])
        return p / p.sum()
    rx, ry = responsibilities(x), responsibilities(y)
    delta = sum(0.5 * (rx[k] + ry[k]) * np.sqrt((x - y) @ np.linalg.inv(S) @ (x - y))
                for k, S in enumerate(covariances))
    mismatches = 2 * np.sum(categorical_x != categorical_y)
    return np.exp(-gamma * (alpha * delta**2 + beta * mismatches))


def test_rwm_with_categorical_columns_matches_the_formula_by_hand():
    rng = np.random.default_rng(5)
    continuous, codes = _mixed_attributes(rng, n=8)
    X = np.column_stack([continuous[:, 0], codes[:, 0], continuous[:, 1], codes[:, 1]])
    means, covariances = rng.normal(size=(3, 2)), np.stack([_spd(rng, 2) for _ in range(3)])
    weights = np.array([0.5, 0.3, 0.2])
    kernel = kv.kernels.make("rwm", gamma=0.8, categorical=[1, 3], continuous_weight=0.3, categorical_weight=0.6,
                             partition=Partition.from_parameters(means, covariances, weights)).fit(X)
    K = kernel(X)
    for i, j in [(0, 1), (2, 5), (3, 7), (4, 4), (6, 1)]:
        expected = _rwm_by_hand(continuous[i], continuous[j], means, covariances, weights, codes[i], codes[j],
                                0.3, 0.6, 0.8)
        assert K[i, j] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("name", ["rwm", "gmm"])
def test_categorical_mixture_is_fitted_on_the_continuous_columns_only(name):
    rng = np.random.default_rng(6)
    continuous, codes = _mixed_attributes(rng, n=60)
    X = np.column_stack([codes[:, 0], continuous, codes[:, 1]])
    kernel = kv.kernels.make(name, categorical=[0, 3], n_components=3, random_state=2).fit(X)
    alone = kv.partitions.fit("vi", continuous, n_components=3, random_state=2)
    np.testing.assert_allclose(kernel.partition_.means_, alone.means_)
    # β = 0: the categorical columns no longer count, the kernel is the one on the continuous columns
    kernel.set_params(categorical_weight=0.0)
    plain = kv.kernels.make(name, n_components=3, random_state=2).fit(continuous)
    np.testing.assert_allclose(kernel(X), plain(continuous), rtol=1e-12)


def test_lap_with_categorical_columns_deforms_the_mixed_rbf_with_the_continuous_graph():
    rng = np.random.default_rng(7)
    continuous, codes = _mixed_attributes(rng, n=30)
    X = np.column_stack([continuous, codes])
    kernel = kv.kernels.make("lap", gamma=0.5, categorical=[2, 3], continuous_weight=0.4, categorical_weight=0.9,
                             lap_ratio=2.0).fit(X)
    graph = kv.kernels.make("lap").fit(continuous).laplacian_.toarray()
    np.testing.assert_array_equal(kernel.laplacian_.toarray(), graph)
    base = np.exp(-0.5 * (0.4 * ((continuous[:, None] - continuous[None]) ** 2).sum(-1)
                          + 0.9 * 2 * (codes[:, None] != codes[None]).sum(-1)))
    M = 2.0 * graph
    expected = base - base @ np.linalg.solve(np.eye(30) + M @ base, M @ base)
    np.testing.assert_allclose(kernel(X), expected, atol=1e-10)
    np.testing.assert_allclose(kernel(X[:5], X[5:12]), expected[:5, 5:12], atol=1e-10)
    # A new weight is a new base kernel: the cached factors must not be reused.
    kernel.set_params(categorical_weight=0.1)
    assert not np.allclose(kernel(X), expected, atol=1e-3)


@pytest.mark.parametrize("params, message", [
    ({"categorical": [5]}, "column 5, but the points have 4 columns"),
    ({"categorical": [-1]}, "column -1"),
    ({"categorical": [1.5]}, "whole column numbers"),
    ({"categorical": [1, 1]}, "twice"),
    ({"categorical": [0, 1, 2, 3]}, "no continuous column is left"),
    ({"categorical": [2], "continuous_weight": 1.5}, "continuous_weight must be a number between 0 and 1"),
    ({"categorical": [2], "categorical_weight": -0.1}, "categorical_weight must be a number between 0 and 1"),
    ({"categorical": [2], "categorical_coding": "binary"}, "categorical_coding must be one of"),
])
@pytest.mark.parametrize("name", ["rbf", "rwm", "gmm", "lap"])
def test_categorical_bad_settings_are_refused_in_plain_words(name, params, message):
    X = np.random.default_rng(8).normal(size=(20, 4))
    with pytest.raises(ValueError, match=message):
        kv.kernels.make(name, **params).fit(X)(X)


def test_categorical_none_means_every_column_is_continuous():
    X = np.random.default_rng(12).normal(size=(15, 3))
    kernel = kv.kernels.make("rwm", categorical=None, random_state=1).fit(X)
    np.testing.assert_array_equal(kernel(X), kv.kernels.make("rwm", random_state=1).fit(X)(X))
    assert "categorical columns" not in kernel.describe()


def test_categorical_columns_changed_after_fit_ask_for_a_new_fit():
    X = np.random.default_rng(9).normal(size=(20, 4))
    kernel = kv.kernels.make("rwm", categorical=[3]).fit(X)
    kernel.set_params(categorical=[2])
    with pytest.raises(ValueError, match="fitted with categorical columns \\[3\\].*fit it again"):
        kernel(X)


# ----------------------------------------------------------------------------- PPK point-vs-unit scale (MATH.md §4.9.1)
def test_unit_scaled_lppk_on_points_is_the_rbf_kernel():
    rng = np.random.default_rng(10)
    X, Y = rng.normal(size=(12, 3)), rng.normal(size=(7, 3))
    kernel = kv.kernels.make("lppk", gamma=0.7, normalize="unit")
    np.testing.assert_allclose(kernel(X, Y), rbf_kernel(X, Y, gamma=0.7), rtol=1e-12)


def _unit_gaussians(rng, m, d):
    return Units(np.ones(m), rng.normal(size=(m, d)), np.stack([_spd(rng, d) for _ in range(m)]))


def test_unit_scaled_rbf_ppk_matches_scipy_densities():
    rng = np.random.default_rng(11)
    A, B = _unit_gaussians(rng, 4, 3), _unit_gaussians(rng, 3, 3)
    kernel = kv.kernels.make("rbf-ppk", gamma=1.3, normalize="unit", point_bandwidth=0.5).fit(rng.normal(size=(5, 3)))

    def product(a, i, b, j):
        return multivariate_normal(b.means[j], a.covariances[i] + b.covariances[j]).pdf(a.means[i])

    expected = np.empty((4, 3))
    for i in range(4):
        for j in range(3):
            cosine = product(A, i, B, j) / np.sqrt(product(A, i, A, i) * product(B, j, B, j))
            expected[i, j] = np.exp(-1.3 * (2 - 2 * cosine))
    np.testing.assert_allclose(kernel(A, B), expected, rtol=1e-10)
    # every unit at self-product 1: a point and a cluster with the same mean and shape are the same unit
    points = Units(np.ones(2), A.means[:2], A.covariances[:2])
    np.testing.assert_allclose(np.diag(kernel(points, A)[:, :2]), 1.0, rtol=1e-12)
    mixed = Units(np.ones(9), np.vstack([A.means, rng.normal(size=(5, 3))]),
                  np.concatenate([A.covariances, np.stack([0.01 * np.eye(3)] * 5)]))
    assert kv.kernels.psd_report(kernel(mixed))["is_psd"]


@pytest.mark.parametrize("name", ["lppk", "rbf-ppk"])
def test_unknown_ppk_scale_is_refused(name):
    with pytest.raises(ValueError, match="normalize must be one of 'density', 'unit'"):
        kv.kernels.make(name, normalize="cosine").fit(np.eye(3))(np.eye(3))


def test_lap_ratio_changed_after_a_call_is_not_served_from_the_cached_factors():
    # The LU factors of I + M K_ZZ are cached per γ; M = ratio · L, so a new ratio set on a
    # fitted kernel must give the Gram of a kernel built with that ratio.
    X = np.random.default_rng(13).normal(size=(30, 2))
    kernel = kv.kernels.make("lap", gamma=0.5, lap_ratio=1.0).fit(X)
    kernel(X)
    kernel(X[:4], X[4:9])
    kernel.set_params(lap_ratio=50.0)
    fresh = kv.kernels.make("lap", gamma=0.5, lap_ratio=50.0).fit(X)
    np.testing.assert_allclose(kernel(X), fresh(X), atol=1e-12)
    np.testing.assert_allclose(kernel(X[:4], X[4:9]), fresh(X[:4], X[4:9]), atol=1e-12)


# ------------------------------------------------------------------ the previous implementations, as references
# Issue 20 (item 7) made the mixture-distance Grams and the Laplacian kernel faster: the values
# must not move. These are the implementations they replaced, kept verbatim in their arithmetic,
# and the plain formulas of docs/MATH.md §2, computed without any of the shortcuts.
def _previous_mixture_distance(kernel, X, Y, same):
    """Δ(x, y) as kernelviz computed it before issue 20: whole rows, every component's pass in turn."""
    if kernel.name == "gmm":
        half = 0.5 * kernel.partition_.weights_
        a, b = np.broadcast_to(half, (len(X), len(half))), np.broadcast_to(half, (len(Y), len(half)))
    else:
        rx = kernel.partition_.predict_proba(X)
        a, b = 0.5 * rx, 0.5 * (rx if same else kernel.partition_.predict_proba(Y))
    out = np.zeros((len(X), len(Y)))
    for k, W in enumerate(kernel._whiteners):
        A = (X - kernel._center) @ W.T
        B = A if same else (Y - kernel._center) @ W.T
        G = A @ B.T
        G *= -2.0
        G += np.einsum("ij,ij->i", A, A)[:, None]
        G += np.einsum("ij,ij->i", B, B)[None, :]
        np.maximum(G, 0.0, out=G)
        np.sqrt(G, out=G)
        G *= a[:, k, None] + b[None, :, k]
        out += G
    if same:
        np.fill_diagonal(out, 0.0)
    return out


def _mixture_gram_by_formula(kernel, X, Y, gamma):
    """exp(−γ Δ²), Δ = Σ_k w_k(x, y) √((x−y)ᵀ Σ_k⁻¹ (x−y)), from the differences themselves."""
    mixture = kernel.partition_
    diff = X[:, None, :] - Y[None, :, :]
    if kernel.name == "gmm":
        weights = np.broadcast_to(mixture.weights_, (len(X), len(Y), len(mixture.weights_)))
    else:
        weights = 0.5 * (_responsibilities(mixture, X)[:, None, :] + _responsibilities(mixture, Y)[None, :, :])
    Delta = sum(weights[..., k] * np.sqrt(np.einsum("ija,ab,ijb->ij", diff, np.linalg.inv(S), diff))
                for k, S in enumerate(mixture.covariances_))
    return np.exp(-gamma * Delta**2)


@pytest.mark.parametrize("block_values", [None, 64])          # one block per call, or many strips
@pytest.mark.parametrize("partition", ["vi", "gmm", "kmeans"])
@pytest.mark.parametrize("n_components, d", [(1, 2), (3, 1), (3, 5), (6, 2)])
@pytest.mark.parametrize("name", ["gmm", "rwm"])
def test_mixture_grams_equal_the_previous_implementation(name, n_components, d, partition, block_values, monkeypatch):
    if block_values is not None:
        monkeypatch.setattr(kv.kernels, "_BLOCK_VALUES", block_values)
    rng = np.random.default_rng(20 + d + n_components)
    X = kv.data.scale(_blobs(rng, 90, d), "zscore")
    Y = rng.normal(size=(13, d))
    kernel = kv.kernels.make(name, n_components=n_components, partition=partition, random_state=1).fit(X)
    for gamma in (1e-3, 1.0, 100.0):
        kernel.set_params(gamma=gamma)
        for A, B in ((X, None), (X, Y), (Y, X[:40])):
            same = B is None
            expected = np.exp(-gamma * _previous_mixture_distance(kernel, A, A if same else B, same) ** 2)
            gram = kernel(A, B)
            assert np.max(np.abs(gram - expected)) <= 1e-12
            np.testing.assert_array_equal(kernel.gamma_family(A, B).gram(gamma), gram)
    K = kernel(X)
    np.testing.assert_array_equal(K, K.T)                 # a self-Gram is exactly symmetric
    np.testing.assert_array_equal(np.diag(K), 1.0)


@pytest.mark.parametrize("n_components, d", [(1, 2), (3, 1), (3, 5), (6, 2), (6, 3)])
@pytest.mark.parametrize("name", ["gmm", "rwm"])
def test_mixture_grams_match_the_formula(name, n_components, d, monkeypatch):
    monkeypatch.setattr(kv.kernels, "_BLOCK_VALUES", 128)
    rng = np.random.default_rng(40 + d + n_components)
    # enough points per component for well-conditioned covariances: the formula inverts them
    X = kv.data.scale(_blobs(rng, 150, d), "zscore")
    Y = rng.normal(size=(9, d))
    kernel = kv.kernels.make(name, n_components=n_components, partition="gmm", random_state=0).fit(X)
    for gamma in (0.01, 1.0, 10.0):
        kernel.set_params(gamma=gamma)
        assert np.max(np.abs(kernel(X) - _mixture_gram_by_formula(kernel, X, X, gamma))) <= 1e-12
        assert np.max(np.abs(kernel(X, Y) - _mixture_gram_by_formula(kernel, X, Y, gamma))) <= 1e-12


def _previous_laplacian_gram(kernel, X, Y=None):
    """K̃(X, Y) as kernelviz computed it before issue 20: B = C⁻¹ M K_ZY by an LU solve, then
    K_XY − K_XZ B for every row (the fitted points Y = Z: K_XZ C⁻¹)."""
    from scipy import linalg
    gamma, Z = kernel.gamma, kernel.points_
    same = Y is None
    Y = X if same else Y
    M = kernel.lap_ratio * kernel.laplacian_
    lu = linalg.lu_factor(np.eye(len(Z)) + M @ rbf_kernel(Z, gamma=gamma))
    KXZ = rbf_kernel(X, Z, gamma=gamma)
    if not same and Y.shape == Z.shape and np.array_equal(Y, Z):
        return linalg.lu_solve(lu, KXZ.T, trans=1).T
    K = rbf_kernel(X, gamma=gamma) if same else rbf_kernel(X, Y, gamma=gamma)
    K -= KXZ @ linalg.lu_solve(lu, M @ rbf_kernel(Z, Y, gamma=gamma))
    return 0.5 * (K + K.T) if same else K


def _laplacian_calls(rng, X, Z):
    """The ways a Laplacian kernel fitted on Z is called: the reproduction's Gram of all points
    (Z among them, shuffled), the fitted points, new points, against labeled fitted points, and
    mixtures with repeated fitted points."""
    new = X[len(Z):]
    labeled = Z[rng.choice(len(Z), 6, replace=False)]
    everything = X[rng.permutation(len(X))]
    repeated = np.vstack([Z[:3], Z[:3], new[:2]])
    return [(everything, None), (Z, None), (new, None), (labeled, None), (everything, labeled), (new, labeled),
            (X[::3], X[::2]), (repeated, None), (repeated, everything), (new, Z)]


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("gamma, ratio", [(0.1, 0.01), (0.1, 1.0), (1.0, 1.0), (1.0, 10.0), (10.0, 100.0)])
def test_laplacian_gram_equals_the_previous_implementation(gamma, ratio, normalized):
    """To 1e-12 wherever the Gram itself is good to better than that (moderate γ and γ_I/γ_A);
    elsewhere any other order of operations moves it more: see the ill-conditioned test."""
    rng = np.random.default_rng(3)
    X = kv.data.scale(_blobs(rng, 150, 3), "zscore")
    Z = X[:120]
    kernel = kv.kernels.make("lap", gamma=gamma, lap_ratio=ratio, normalized_laplacian=normalized).fit(Z)
    for A, B in _laplacian_calls(rng, X, Z):
        assert np.max(np.abs(kernel(A, B) - _previous_laplacian_gram(kernel, A, B))) <= 1e-12
    K = kernel(X)
    np.testing.assert_array_equal(K, K.T)


@pytest.mark.parametrize("gamma, ratio", [(0.1, 1.0), (1.0, 1.0), (1.0, 100.0)])
def test_laplacian_gram_of_points_among_the_fitted_ones_matches_the_formula(gamma, ratio):
    """K̃ = K_XY − K_XZ (I + M K_ZZ)⁻¹ M K_ZY by np.linalg.solve, for calls whose rows are
    partly fitted points (read from the solve against Y rather than computed)."""
    rng = np.random.default_rng(8)
    X = kv.data.scale(_blobs(rng, 140, 2), "zscore")
    Z = X[:100]
    kernel = kv.kernels.make("lap", gamma=gamma, lap_ratio=ratio).fit(Z)
    M = ratio * kernel.laplacian_.toarray()
    C = np.eye(len(Z)) + M @ rbf_kernel(Z, gamma=gamma)
    for A, B in _laplacian_calls(rng, X, Z):
        B_ = A if B is None else B
        expected = rbf_kernel(A, B_, gamma=gamma) - rbf_kernel(A, Z, gamma=gamma) @ np.linalg.solve(
            C, M @ rbf_kernel(Z, B_, gamma=gamma))
        assert np.max(np.abs(kernel(A, B) - expected)) <= 1e-12


def _solve_extended(A, B):
    """A⁻¹ B by Gaussian elimination with partial pivoting, in np.longdouble."""
    A, B = A.copy(), B.copy()
    for k in range(len(A)):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        A[[k, p]], B[[k, p]] = A[[p, k]], B[[p, k]]
        factors = A[k + 1:, k] / A[k, k]
        A[k + 1:, k:] -= factors[:, None] * A[k, k:]
        B[k + 1:] -= factors[:, None] * B[k]
    out = np.zeros_like(B)
    for k in range(len(A) - 1, -1, -1):
        out[k] = (B[k] - A[k, k + 1:] @ out[k + 1:]) / A[k, k]
    return out


@pytest.mark.skipif(np.finfo(np.longdouble).eps > 1e-18, reason="needs 80-bit long double")
@pytest.mark.parametrize("gamma, ratio", [(0.001, 100.0), (0.01, 1000.0)])
def test_ill_conditioned_laplacian_gram_is_as_accurate_as_the_previous_one(gamma, ratio):
    """Where the correction K_XZ C⁻¹ M K_ZY nearly cancels K (small γ: K ≈ 1 for every pair) or
    C = I + M K_ZZ is ill-conditioned (a large γ_I/γ_A), the Gram is good to ~1e-11 only, in
    any order of operations: the previous implementation is as far from the exact value as the
    new one, both measured against the formula in extended precision."""
    rng = np.random.default_rng(3)
    X = kv.data.scale(_blobs(rng, 100, 3), "zscore")
    Z = X[:80]
    kernel = kv.kernels.make("lap", gamma=gamma, lap_ratio=ratio).fit(Z)

    def base(A, B):
        A, B = A.astype(np.longdouble), B.astype(np.longdouble)
        return np.exp(-np.longdouble(gamma) * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))

    M = (ratio * kernel.laplacian_.toarray()).astype(np.longdouble)
    exact = base(X, X) - base(X, Z) @ _solve_extended(np.eye(len(Z), dtype=np.longdouble) + M @ base(Z, Z),
                                                      M @ base(Z, X))
    exact = 0.5 * (exact + exact.T)
    new_error = np.max(np.abs(kernel(X) - exact))
    previous_error = np.max(np.abs(_previous_laplacian_gram(kernel, X) - exact))
    assert previous_error > 1e-12                      # a case where 1e-12 is below the rounding
    assert new_error <= 2.0 * previous_error


def test_laplacian_factors_made_on_copies_serve_the_original(monkeypatch):
    """The grid engine evaluates each γ on a shallow copy of the fitted kernel; the final fit at
    the chosen γ must then find that γ's LU factors (the last three settings are kept) and give
    the values of a fresh kernel."""
    import copy

    from scipy import linalg
    rng = np.random.default_rng(21)
    X = rng.normal(size=(40, 2))
    kernel = kv.kernels.make("lap", lap_ratio=2.0).fit(X)
    factorised = []
    lu_factor = linalg.lu_factor
    monkeypatch.setattr(linalg, "lu_factor", lambda *a, **k: factorised.append(1) or lu_factor(*a, **k))
    gammas = [0.1, 0.5, 1.0, 2.0]
    for gamma in gammas:
        copy.copy(kernel).set_params(gamma=gamma)(X)
    assert len(factorised) == 4
    for gamma in gammas[1:]:
        kernel.set_params(gamma=gamma)
        np.testing.assert_allclose(kernel(X[:6]), kv.kernels.make("lap", gamma=gamma, lap_ratio=2.0).fit(X)(X[:6]),
                                   rtol=0, atol=1e-14)
    assert len(factorised) == 4 + 3                    # only the three fresh kernels factorised
    kernel.set_params(gamma=gammas[0])(X[:6])
    assert len(factorised) == 4 + 3 + 1                # the oldest setting was dropped
    kernel.fit(X[::-1])                                # a new fit starts without factors
    fresh = kv.kernels.make("lap", gamma=gammas[0], lap_ratio=2.0).fit(X[::-1])
    np.testing.assert_allclose(kernel(X[:6]), fresh(X[:6]), rtol=0, atol=1e-14)
