"""Partitions: one interface over k-means, GMM and VI; regularisation; bad input."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.base import clone
from sklearn.cluster import KMeans

import kernelviz as kv
from kernelviz.partitions import Partition, regularize_covariance

pytestmark = pytest.mark.unit


def _two_blobs(seed=0, n=100):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(size=(n, 2)) * 0.3, rng.normal(size=(n, 2)) * 1.2 + [12, 1]])


@pytest.mark.parametrize("method", ["kmeans", "gmm", "vi"])
def test_common_interface(method):
    X = _two_blobs()
    p = kv.partitions.fit(method, X, n_components=2, random_state=0)
    k = p.n_components_
    assert p.means_.shape == (k, 2) and p.covariances_.shape == (k, 2, 2) and p.weights_.shape == (k,)
    assert p.weights_.sum() == pytest.approx(1.0)
    resp = p.predict_proba(X)
    np.testing.assert_allclose(resp.sum(axis=1), 1.0)
    np.testing.assert_array_equal(p.predict(X), resp.argmax(axis=1))
    np.testing.assert_array_equal(p.labels_, p.predict(X))
    # the two blobs are found: each blob is one cluster
    assert len(set(p.predict(X[:100]))) == 1 and len(set(p.predict(X[100:]))) == 1
    assert p.predict(X[:1])[0] != p.predict(X[-1:])[0]


def test_kmeans_keeps_the_lowest_inertia_of_ten_restarts_and_cluster_covariances():
    X = np.random.default_rng(1).normal(size=(300, 2))
    p = kv.partitions.fit("kmeans", X, n_components=4, random_state=3)
    reference = KMeans(4, init="k-means++", n_init=10, random_state=3).fit(X)
    np.testing.assert_allclose(np.sort(p.means_, axis=0), np.sort(reference.cluster_centers_, axis=0))
    for k in range(4):
        np.testing.assert_allclose(p.covariances_[k], np.cov(X[p.labels_ == k], rowvar=False))
    np.testing.assert_array_equal(p.predict_proba(X), np.eye(4)[p.labels_])


def test_gmm_responsibilities_match_scipy():
    X = _two_blobs(2)
    p = kv.partitions.fit("gmm", X, n_components=3, random_state=0)
    dens = np.column_stack([w * multivariate_normal(m, S).pdf(X)
                            for w, m, S in zip(p.weights_, p.means_, p.covariances_)])
    np.testing.assert_allclose(p.predict_proba(X), dens / dens.sum(1, keepdims=True), rtol=1e-8, atol=1e-12)


def test_vi_prunes_unneeded_components_and_reports_it():
    X = _two_blobs(3)
    p = kv.partitions.fit("vi", X, n_components=8, random_state=0, weight_concentration_prior=1e-3)
    assert 2 <= p.n_components_ < 8
    assert np.all(p.weights_ >= 0.01 / 1.0 - 1e-12)
    assert any("VI kept" in note for note in p.notes_)


def test_vi_priors_are_validated():
    X = _two_blobs(4)
    with pytest.raises(ValueError, match="must be positive"):
        kv.partitions.fit("vi", X, n_components=3, weight_concentration_prior=-1)
    with pytest.raises(ValueError, match="degrees-of-freedom prior"):
        kv.partitions.fit("vi", X, n_components=3, degrees_of_freedom_prior=0.5)
    with pytest.raises(ValueError, match="Unknown VI parameter"):
        kv.partitions.fit("vi", X, n_components=3, alpha=2)
    p = kv.partitions.fit("vi", X, n_components=3, covariance_prior=0.5, mean_precision_prior=0.1,
                          weight_concentration_prior_type="dirichlet_distribution")
    assert p.n_components_ >= 1


def test_vi_priors_reach_the_bayesian_mixture():
    """α0, β0, ν0 and w0 are handed to scikit-learn's BayesianGaussianMixture and used in its fit."""
    X = _two_blobs(6)
    p = kv.partitions.fit("vi", X, n_components=4, random_state=0, weight_concentration_prior=0.37,
                          mean_precision_prior=0.21, degrees_of_freedom_prior=3.5, covariance_prior=0.6,
                          weight_concentration_prior_type="dirichlet_distribution")
    est = p.estimator_
    assert est.weight_concentration_prior_type == "dirichlet_distribution"
    # the fitted attributes (trailing _) are the priors the variational updates used
    assert est.weight_concentration_prior_ == 0.37
    assert est.mean_precision_prior_ == 0.21
    assert est.degrees_of_freedom_prior_ == 3.5
    np.testing.assert_array_equal(est.covariance_prior_, 0.6 * np.eye(2))
    # a matrix w0 is passed as it is
    w0 = np.array([[0.5, 0.1], [0.1, 0.3]])
    est = kv.partitions.fit("vi", X, n_components=3, covariance_prior=w0).estimator_
    np.testing.assert_array_equal(est.covariance_prior_, w0)
    assert est.weight_concentration_prior_type == "dirichlet_process"


def test_vi_weight_concentration_changes_how_many_components_survive():
    """Behaviour, on a fixed seed: a small α0 (Dirichlet distribution prior) empties the
    surplus components, a large one keeps all of them."""
    X = _two_blobs(0)
    kept = {alpha: kv.partitions.fit("vi", X, n_components=8, random_state=0, weight_concentration_prior=alpha,
                                     weight_concentration_prior_type="dirichlet_distribution").n_components_
            for alpha in (1e-2, 1e3)}
    assert kept == {1e-2: 2, 1e3: 8}


@pytest.mark.parametrize("method", ["gmm", "vi"])
def test_mixtures_need_two_points_and_say_so(method):
    with pytest.raises(ValueError, match=rf"Gaussian mixture \({method}\) needs at least two points.*got 1"):
        kv.partitions.fit(method, np.zeros((1, 2)), n_components=1)
    assert kv.partitions.fit("kmeans", np.zeros((1, 2)), n_components=1).n_components_ == 1


def test_regularisation_follows_the_paper_and_raises_epsilon_until_usable():
    A = np.array([[2.0, 0.3], [0.3, 1.0]])
    S = np.array([[1.0, 1.0], [1.0, 1.0]])        # singular
    reg, eps = regularize_covariance(S, A, n_points=10)
    assert eps == 1e-10
    np.testing.assert_allclose(reg, (1 - eps) * S + eps * A)
    # fewer than d + 1 points triggers it even for an invertible estimate
    _, eps_small = regularize_covariance(np.eye(2), A, n_points=2)
    assert eps_small > 0
    # a matrix whose scale swamps ε = 1e-10 needs a larger ε: it is raised and reported
    huge = np.array([[1e8, 1e8], [1e8, 1e8]])
    reg, eps = regularize_covariance(huge, A, n_points=10)
    assert eps > 1e-10
    assert np.linalg.eigvalsh(reg)[0] > 1e-12 * np.linalg.eigvalsh(reg)[-1]
    # a well-conditioned estimate from enough points is left alone
    same, eps = regularize_covariance(A, np.eye(2), n_points=5)
    assert eps == 0.0 and same is A


def test_singular_clusters_are_regularised_and_noted():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [10.0, 0.0], [10.5, 0.0], [11, 0.0], [12, 3]])
    p = kv.partitions.fit("kmeans", X, n_components=2, random_state=0)
    assert np.any(p.epsilons_ > 0)
    assert any("regularised" in note for note in p.notes_)
    for S in p.covariances_:
        np.linalg.cholesky(S)


def test_fit_per_class():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    y = np.repeat([0.0, 1.0], 30)
    per_class = kv.partitions.fit_per_class("kmeans", X, y, n_components=4, random_state=0)
    assert set(per_class) == {0.0, 1.0}
    assert all(p.n_components_ == 4 for p in per_class.values())
    few = kv.partitions.fit_per_class("kmeans", np.vstack([X, [[9, 9]]]), np.append(y, 2.0), n_components=3)
    assert few[2.0].n_components_ == 1 and any("only 1 point" in note for note in few[2.0].notes_)


def test_from_parameters_builds_a_usable_mixture():
    p = Partition.from_parameters([[0, 0], [5, 5]], [np.eye(2), 2 * np.eye(2)], [1, 3])
    np.testing.assert_allclose(p.weights_, [0.25, 0.75])
    assert p.predict([[0.1, 0.0], [5, 5.2]]).tolist() == [0, 1]
    with pytest.raises(ValueError, match="not positive definite"):
        Partition.from_parameters([[0, 0]], [np.zeros((2, 2))])


@pytest.mark.parametrize("method", ["kmeans", "gmm", "vi"])
def test_bad_input(method):
    X = _two_blobs()
    with pytest.raises(ValueError, match="Cannot make 5 clusters from 3 points"):
        kv.partitions.fit(method, X[:3], n_components=5)
    with pytest.raises(ValueError, match="positive whole number"):
        kv.partitions.fit(method, X, n_components=0)
    with pytest.raises(ValueError, match="NaN or infinite"):
        kv.partitions.fit(method, np.array([[0.0, np.inf], [1, 1]]), n_components=1)
    p = kv.partitions.fit(method, X, n_components=2)
    with pytest.raises(ValueError, match="fitted on 2 features"):
        p.predict(np.zeros((2, 3)))


def test_unknown_method_and_duplicate_points():
    with pytest.raises(ValueError, match="Unknown partition method 'dbscan'"):
        kv.partitions.fit("dbscan", np.zeros((5, 2)))
    with pytest.raises(ValueError, match="Only 2 distinct points"):
        kv.partitions.fit("kmeans", np.array([[0.0, 0]] * 5 + [[1.0, 1]] * 5), n_components=3)


# ------------------------------------------------------------------ scikit-learn estimator
@pytest.mark.parametrize("method, params", [("kmeans", {}), ("gmm", {"max_iter": 50}),
                                            ("vi", {"weight_concentration_prior": 0.5, "prune_threshold": 0.02})])
def test_partition_is_a_cloneable_estimator_equal_to_the_fit_wrapper(method, params):
    X = _two_blobs(7)
    estimator = Partition(method=method, n_components=3, random_state=1, **params)
    assert estimator.fit(X) is estimator                       # fit returns self
    assert not hasattr(clone(estimator), "means_")             # clone: same parameters, unfitted
    assert clone(estimator).get_params() == estimator.get_params()
    wrapped = kv.partitions.fit(method, X, n_components=3, random_state=1, **params)
    for attribute in ("means_", "covariances_", "weights_", "labels_", "epsilons_"):
        np.testing.assert_array_equal(getattr(estimator, attribute), getattr(wrapped, attribute))
    refitted = clone(estimator).fit(X)
    np.testing.assert_array_equal(refitted.means_, estimator.means_)


def test_partition_parameters_are_keyword_only_and_checked_per_method():
    with pytest.raises(TypeError):
        Partition("kmeans")
    X = _two_blobs(8)
    with pytest.raises(ValueError, match=r"k-means takes no extra parameters; got \['prune_threshold'\]"):
        Partition(method="kmeans", prune_threshold=0.1).fit(X)
    with pytest.raises(ValueError, match=r"Unknown GMM parameter\(s\) \['covariance_prior'\]"):
        Partition(method="gmm", covariance_prior=1.0).fit(X)
    with pytest.raises(ValueError, match="Unknown partition method 'dbscan'"):
        Partition(method="dbscan").fit(X)
    with pytest.raises(ValueError, match="must be fitted first"):
        Partition().predict(X)
