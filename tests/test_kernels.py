"""The kernels: MATH.md's theorems, brute-force agreement, and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import multivariate_normal
from sklearn.metrics.pairwise import rbf_kernel

import kernelviz as kv
from kernelviz.kernels import Units, cluster_gaussian_gram, lppk
from kernelviz.partitions import Partition

ALL = kv.kernels.names()


def _spd(rng, d, scale=1.0):
    A = rng.normal(size=(d, d))
    return scale * (A @ A.T / d + 0.1 * np.eye(d))


def _min_relative_eigenvalue(K):
    eig = np.linalg.eigvalsh(0.5 * (K + K.T))
    return eig[0] / np.abs(eig).max()


def _blobs(rng, n=60, d=2):
    centers = rng.normal(scale=3.0, size=(3, d))
    return centers[rng.integers(0, 3, n)] + rng.normal(size=(n, d)) * rng.uniform(0.3, 1.5, size=(n, 1))


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


# ------------------------------------------------------------------ CkRBF theorems
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
    """Independent double-loop evaluation of every kernel from its MATH.md formula."""
    g = k.gamma
    n, m = len(X), len(Y)
    out = np.empty((n, m))
    if name in ("ckrbf", "ckrbf-radial"):
        cx, cy = k.partition_.predict(X), k.partition_.predict(Y)
        scale = np.exp(k.log_scale_)
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
                S = k.covariances_[cx[i]] + k.covariances_[cy[j]]
                out[i, j] = np.linalg.det(S) ** -0.5 * np.exp(-g * diff @ np.linalg.inv(S) @ diff) / scale
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


_BRUTE_CASES = [(name, "paper") for name in ["rbf", "mrbf", "ckrbf", "ckrbf-radial", "gmm", "rwm", "lppk", "rbf-ppk"]]
_BRUTE_CASES += [("ckrbf", "unit"), ("ckrbf-radial", "unit")]


@pytest.mark.parametrize("d", [1, 2, 5])
@pytest.mark.parametrize("name, normalize", _BRUTE_CASES)
def test_kernel_matches_brute_force(name, d, normalize):
    rng = np.random.default_rng(100 + d)
    X = _blobs(rng, 40, d)
    Y = _blobs(rng, 6, d)
    params = {"normalize": normalize, "n_components": 3} if name.startswith("ckrbf") else {}
    if name in ("gmm", "rwm"):
        params = {"n_components": 3}
    if name == "rbf-ppk":
        params = {"point_bandwidth": 0.8}
    k = kv.kernels.make(name, gamma=0.4, **params).fit(X)
    np.testing.assert_allclose(k(X[:12], Y), _brute(name, k, X[:12], Y, X), rtol=1e-9, atol=1e-300)


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


# ------------------------------------------------------------------ kernel scale
def test_unit_normalization_divides_by_one_constant():
    rng = np.random.default_rng(11)
    X = rng.random((200, 2))
    paper = kv.kernels.make("ckrbf", gamma=3.0).fit(X)
    unit = kv.kernels.make("ckrbf", gamma=3.0, normalize="unit").fit(X)
    ratio = paper(X) / unit(X)
    np.testing.assert_allclose(ratio, ratio[0, 0], rtol=1e-12)
    # geometric mean of the unit-scale diagonal over the fitted points is 1
    assert np.exp(np.mean(np.log(np.diag(unit(X))))) == pytest.approx(1.0, rel=1e-12)
    # on [0, 1] data the paper's normaliser is far from 1 (MATH.md: about 13 on fourclass)
    assert np.exp(paper.log_norm_).min() > 2


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
    report = kv.kernels.psd_report(kv.kernels.make("rwm", gamma=2.0).fit(X)(X))
    assert np.isfinite(report["min_eig"]) and report["max_eig"] > 1


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


def test_duplicates_and_singular_clusters_are_regularised_not_fatal():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]] + [[5.0, 5.0]] * 4)
    k = kv.kernels.make("ckrbf", gamma=1.0, n_components=3).fit(X)
    assert np.all(k.epsilons_ > 0)          # every cluster is singular here
    assert np.all(np.isfinite(k(X)))
    assert _min_relative_eigenvalue(k(X)) > -1e-8
