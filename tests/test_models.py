"""Tests of kernelviz.models: estimator contract, the maths of each model against an
independent computation, published-style accuracy of MCPM, and input validation."""

import numpy as np
import pytest
from scipy import optimize
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_moons
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

import kernelviz as kv
from kernelviz import _chunks, models

pytestmark = pytest.mark.unit

BINARY_ONLY = [cls for cls, _, binary_only in models.MODELS.values() if binary_only]


class LinearKernel:
    """K(x, y) = xᵀy with the kernel interface, for checks against linear-algebra results."""

    def __init__(self, gamma=1.0):
        self.gamma = gamma

    def get_params(self, deep=True):
        return {"gamma": self.gamma}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X):
        return self

    def __call__(self, X, Y=None):
        return X @ (X if Y is None else Y).T


@pytest.fixture(scope="module", autouse=True)
def single_threaded_numerics():
    """These tests work on small matrices, where BLAS / OpenMP threads only add overhead,
    and on a busy machine oversubscription made them several times slower."""
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(200, noise=0.2, random_state=0)
    X_test, y_test = make_moons(300, noise=0.2, random_state=1)
    return X, y, X_test, y_test


def two_gaussians(separation, n=200, seed=0):
    rng = np.random.default_rng(seed)
    cov_a = np.array([[1.0, 0.3], [0.3, 0.5]])
    cov_b = np.array([[0.6, -0.2], [-0.2, 1.2]])
    X = np.vstack([rng.multivariate_normal([0.0, 0.0], cov_a, n),
                   rng.multivariate_normal([separation, separation / 2], cov_b, n)])
    return X, np.repeat([0, 1], n)


# ----------------------------------------------------------------------------- KernelSVC
def test_kernel_svc_rbf_is_sklearn_svc(moons):
    X, y, X_test, _ = moons
    ours = models.KernelSVC(kernel="rbf", C=3.0, gamma=0.7).fit(X, y)
    reference = SVC(kernel="rbf", C=3.0, gamma=0.7).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), reference.predict(X_test))
    np.testing.assert_allclose(ours.decision_function(X_test), reference.decision_function(X_test), atol=1e-8)
    np.testing.assert_array_equal(ours.support_, reference.support_)
    np.testing.assert_allclose(ours.dual_coef_, reference.dual_coef_, atol=1e-8)
    np.testing.assert_array_equal(ours.support_vectors_, reference.support_vectors_)
    assert ours.fit_status_ == 0 and not ours.max_iter_reached_


def test_kernel_svc_multiclass_is_sklearn_svc():
    X, y = make_blobs(240, centers=4, cluster_std=2.0, random_state=0)
    X_test, _ = make_blobs(200, centers=4, cluster_std=2.0, random_state=1)
    ours = models.KernelSVC(C=0.5, gamma=0.1).fit(X, y)
    reference = SVC(C=0.5, gamma=0.1).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), reference.predict(X_test))
    np.testing.assert_allclose(ours.decision_function(X_test), reference.decision_function(X_test), atol=1e-8)
    np.testing.assert_array_equal(ours.n_support_, reference.n_support_)


def test_kernel_svc_predicts_in_chunks_like_at_once(moons, monkeypatch):
    X, y, X_test, _ = moons
    clf = models.KernelSVC(C=3.0, gamma=0.7).fit(X, y)
    at_once = clf.decision_function(X_test)
    monkeypatch.setattr(_chunks, "MAX_BYTES", 8 * 7 * len(clf.support_))  # 7 rows per chunk
    np.testing.assert_allclose(clf.decision_function(X_test), at_once, atol=1e-12)


@pytest.mark.parametrize("cls, reference", [
    (models.KernelSVC, lambda gamma: SVC(kernel="rbf", gamma=gamma)),
    (models.KFD, lambda gamma: models.KFD(kernel="rbf", gamma=gamma)),
])
def test_a_grid_search_over_the_kernels_gamma_reaches_the_kernel(cls, reference, moons):
    # The kernel__gamma trap: the model's own gamma used to overwrite the kernel object's,
    # so every kernel__gamma scored the same.
    X, y, _, _ = moons
    gammas = [0.01, 1.0, 100.0]
    search = GridSearchCV(cls(kernel=kv.kernels.make("rbf")), {"kernel__gamma": gammas}, cv=3).fit(X, y)
    independent = [cross_val_score(reference(gamma), X, y, cv=3).mean() for gamma in gammas]
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], independent, atol=1e-12)
    assert len(set(independent)) == 3
    assert search.best_estimator_.kernel_.gamma == gammas[int(np.argmax(independent))]


def test_the_models_gamma_when_given_sets_the_kernel_objects(moons):
    X, y, X_test, _ = moons
    given = models.KernelSVC(kernel=kv.kernels.make("rbf", gamma=5.0), gamma=0.3).fit(X, y)
    np.testing.assert_allclose(given.decision_function(X_test),
                               SVC(gamma=0.3).fit(X, y).decision_function(X_test), atol=1e-8)
    assert given.kernel_.gamma == 0.3


def test_kernel_svc_iteration_cap_is_flagged(moons):
    X, y, _, _ = moons
    with pytest.warns(ConvergenceWarning):
        clf = models.KernelSVC(C=1e4, gamma=5.0, max_iter=5).fit(X, y)
    assert clf.max_iter_reached_


def test_kernel_svc_clipped_spectrum_is_psd(moons):
    X, y, X_test, y_test = moons
    kwargs = {"kernel": "rwm", "gamma": 0.5, "kernel_params": {"n_components": 6}}
    clipped = models.KernelSVC(spectrum="clip", **kwargs).fit(X, y)
    raw = models.KernelSVC(spectrum="raw", **kwargs).fit(X, y)
    K = raw.kernel_(X, X)
    assert np.linalg.eigvalsh(K).min() < -1e-3  # this RWM Gram is clearly indefinite
    K_psd = kv.kernels.clip_spectrum(K)
    assert np.linalg.eigvalsh(K_psd).min() > -1e-8
    # spectrum="clip" trains libsvm on exactly the clipped Gram ...
    reference = SVC(kernel="precomputed").fit(K_psd, y)
    np.testing.assert_array_equal(clipped.support_, reference.support_)
    np.testing.assert_allclose(clipped.dual_coef_, reference.dual_coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clipped.intercept_, reference.intercept_, rtol=0, atol=1e-12)
    # ... which is not the raw one.
    assert raw.dual_coef_.shape != clipped.dual_coef_.shape or np.abs(raw.dual_coef_ - clipped.dual_coef_).max() > 1e-3
    assert clipped.score(X_test, y_test) > 0.8


def test_kernel_object_gets_the_models_gamma(moons):
    X, y, X_test, _ = moons
    by_object = models.KernelSVC(kernel=kv.kernels.make("rbf", gamma=5.0), gamma=0.7).fit(X, y)
    by_name = models.KernelSVC(kernel="rbf", gamma=0.7).fit(X, y)
    assert by_object.kernel_.gamma == 0.7
    np.testing.assert_allclose(by_object.decision_function(X_test), by_name.decision_function(X_test))


# ----------------------------------------------------------------------------- estimator contract
NON_DEFAULT_PARAMS = {
    models.KernelSVC: {"kernel": "ckrbf", "C": 2.0, "gamma": 0.3, "kernel_params": {"n_components": 3}},
    models.MkRBF: {"C": 2.0, "gamma": 0.3, "n_components": 3, "random_state": 4},
    models.SCM: {"kernel": "lppk", "C": 2.0, "gamma": 0.3, "n_components": 4, "point_bandwidth": 0.2},
    models.MPM: {"kernel": "rbf", "gamma": 0.3, "ridge": 1e-3},
    models.MCPM: {"kernel": "lppk", "gamma": 0.3, "n_components": 4, "ridge": 1e-3},
    models.KFD: {"kernel": "rbf", "gamma": 0.3, "beta": 1e-2},
    models.KNDA: {"gamma": 0.3, "beta": 1e-2, "n_neighbors": 3},
    models.CKSVMNDA: {"C": 2.0, "gamma": 0.3, "eta": 0.1, "feature_map": "empirical"},
}


def test_models_registry_lists_every_model():
    assert set(NON_DEFAULT_PARAMS) == {cls for cls, _, _ in models.MODELS.values()}
    for cls, description, binary_only in models.MODELS.values():
        assert isinstance(description, str) and description
        assert isinstance(binary_only, bool)


@pytest.mark.parametrize("cls", list(NON_DEFAULT_PARAMS), ids=lambda c: c.__name__)
def test_clone_and_get_params_round_trip(cls):
    estimator = cls(**NON_DEFAULT_PARAMS[cls])
    params = estimator.get_params()
    for key, value in NON_DEFAULT_PARAMS[cls].items():
        assert params[key] is value
    cloned = clone(estimator)
    assert cloned.get_params() == params
    assert type(cloned)(**params).get_params() == params


@parametrize_with_checks([models.KernelSVC(), models.MkRBF(), models.MPM(),
                          models.MPM(kernel="rbf"), models.KFD(), models.KNDA(), models.CKSVMNDA(),
                          models.CKSVMNDA(feature_map="empirical")])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks([models.KernelSVC(kernel="ckrbf"), models.SCM(n_components=3), models.MCPM(n_components=3)])
def test_scikit_learn_estimator_checks_on_cluster_models(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", list(NON_DEFAULT_PARAMS), ids=lambda c: c.__name__)
def test_pipeline_and_cross_validation_run(cls, moons):
    X, y, _, _ = moons
    pipeline = make_pipeline(StandardScaler(), cls(**NON_DEFAULT_PARAMS[cls]))
    scores = cross_val_score(pipeline, X[:120], y[:120], cv=StratifiedKFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all(scores > 0.6)
    fitted = pipeline.fit(X, y)
    assert fitted.predict(X).shape == (len(X),)
    assert fitted.decision_function(X).shape == (len(X),)
    assert fitted.score(X, y) > 0.75


@pytest.mark.parametrize("cls", list(NON_DEFAULT_PARAMS), ids=lambda c: c.__name__)
def test_string_labels_and_positive_class(cls, moons):
    X, y, _, _ = moons
    labels = np.where(y == 1, "yes", "no")
    clf = cls(**NON_DEFAULT_PARAMS[cls]).fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, ["no", "yes"])
    decision = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), np.where(decision > 0, "yes", "no"))


# ----------------------------------------------------------------------------- MPM
def test_linear_mpm_matches_a_direct_socp_solution():
    X, y = two_gaussians(separation=2.0)
    mpm = models.MPM(ridge=0.0).fit(X, y)
    pos, neg = X[y == 1], X[y == 0]
    cov_pos, cov_neg = np.cov(pos.T, bias=True), np.cov(neg.T, bias=True)
    delta = pos.mean(axis=0) - neg.mean(axis=0)

    def objective(a):
        return np.sqrt(a @ cov_pos @ a) + np.sqrt(a @ cov_neg @ a)

    direct = optimize.minimize(objective, delta / (delta @ delta), method="SLSQP",
                               constraints=[{"type": "eq", "fun": lambda a: a @ delta - 1.0}],
                               options={"ftol": 1e-12, "maxiter": 500})
    assert direct.success
    assert abs(1.0 / mpm.kappa_ - direct.fun) < 1e-4
    assert abs(objective(mpm.coef_) - direct.fun) < 1e-4
    np.testing.assert_allclose(mpm.coef_, direct.x, atol=1e-3)
    b = mpm.coef_ @ pos.mean(axis=0) - mpm.kappa_ * np.sqrt(mpm.coef_ @ cov_pos @ mpm.coef_)
    assert mpm.intercept_ == pytest.approx(-b)
    # The two forms of b in the MCPM paper (Yang et al. 2008) (from either class) agree at the optimum.
    b_neg = mpm.coef_ @ neg.mean(axis=0) + mpm.kappa_ * np.sqrt(mpm.coef_ @ cov_neg @ mpm.coef_)
    assert b == pytest.approx(b_neg, rel=1e-6)


def test_mpm_alpha_grows_with_class_separation():
    alphas = [models.MPM().fit(*two_gaussians(separation)).alpha_ for separation in (0.5, 1.0, 2.0, 4.0)]
    assert all(0.0 < alpha < 1.0 for alpha in alphas)
    assert np.all(np.diff(alphas) > 0)


def test_kernel_mpm_with_linear_kernel_is_linear_mpm():
    X, y = two_gaussians(separation=1.5)
    linear = models.MPM(kernel="linear", ridge=1e-8).fit(X, y)
    kernelised = models.MPM(kernel=LinearKernel(), ridge=1e-8).fit(X, y)
    assert kernelised.kappa_ == pytest.approx(linear.kappa_, rel=1e-6)
    np.testing.assert_allclose(kernelised.decision_function(X), linear.decision_function(X), atol=1e-6)


def test_kernel_mpm_is_nonlinear(moons):
    X, y, X_test, y_test = moons
    linear = models.MPM().fit(X, y)
    kernelised = models.MPM(kernel="rbf", gamma=1.0, ridge=1e-2).fit(X, y)
    assert 0.0 < kernelised.alpha_ < 1.0
    assert kernelised.score(X_test, y_test) > linear.score(X_test, y_test) + 0.05


def explicit_kernel_mpm(K, positive, weights, ridge):
    """The kernel MPM the textbook way: explicit coordinates from K's eigenvectors (its
    positive part), the primal iteration there; returns the expansion on the rows and b."""
    eigenvalues, vectors = np.linalg.eigh(0.5 * (K + K.T))
    keep = eigenvalues > 1e-10 * eigenvalues[-1]
    Q = vectors[:, keep] / np.sqrt(eigenvalues[keep])
    F = K @ Q
    mean_pos, cov_pos = models.weighted_moments(F[positive], weights[positive])
    mean_neg, cov_neg = models.weighted_moments(F[~positive], weights[~positive])
    shift = ridge * 0.5 * (np.trace(cov_pos) + np.trace(cov_neg)) * np.eye(F.shape[1])
    a, objective, _ = models.solve_mpm(cov_pos + shift, cov_neg + shift, mean_pos - mean_neg)
    return Q @ a, a @ mean_pos - np.sqrt(a @ (cov_pos + shift) @ a) / objective, objective


class TanhKernel(LinearKernel):
    """tanh(γ xᵀy − 1): a kernel whose Grams are not PSD."""

    def __call__(self, X, Y):
        return np.tanh(self.gamma * X @ Y.T - 1.0)


@pytest.mark.parametrize("kernel, gamma", [("rbf", 1e-3), ("rbf", 1.0), ("rbf", 30.0), (TanhKernel(), 1.0)])
def test_kernel_mpm_matches_explicit_feature_coordinates(moons, kernel, gamma):
    X, y, X_test, _ = moons
    mpm = models.MPM(kernel=kernel, gamma=gamma).fit(X, y)
    K = mpm.kernel_(X, X)
    if not isinstance(kernel, str):
        assert np.linalg.eigvalsh(K)[0] < -1e-3  # the case of a Gram that is not PSD
    coef, b, objective = explicit_kernel_mpm(K, y == 1, np.ones(len(y)), models.KERNEL_RIDGE)
    assert mpm.kappa_ == pytest.approx(1.0 / objective, rel=1e-7)
    expected = mpm.kernel_(X_test, X) @ coef - b
    np.testing.assert_allclose(mpm.decision_function(X_test), expected, atol=1e-6 * np.abs(expected).max())


def test_mcpm_matches_explicit_feature_coordinates_with_cluster_weights():
    X, y = mixture_toy(600)
    mcpm = models.MCPM(kernel="lppk", gamma=0.5, n_components=6).fit(X, y)
    K = mcpm.kernel_(mcpm.units_, mcpm.units_)
    assert len(set(mcpm.unit_sizes_)) > 1  # unequal weights are part of what is checked
    coef, b, objective = explicit_kernel_mpm(K, mcpm.unit_labels_ == 1, mcpm.unit_sizes_.astype(float), mcpm.ridge)
    assert mcpm.kappa_ == pytest.approx(1.0 / objective, rel=1e-7)
    np.testing.assert_allclose(mcpm.dual_coef_, coef, rtol=1e-6, atol=1e-8 * np.abs(coef).max())
    assert mcpm.intercept_ == pytest.approx(-b, rel=1e-7)


def test_kernel_mpm_on_a_psd_gram_needs_no_eigendecomposition(moons, monkeypatch):
    # The eigendecomposition of an n × n Gram costs as much as the whole iteration: at 5,000
    # points it made the MCPM paper's kernel-MPM cells take half an hour each.
    X, y, _, _ = moons
    calls = []
    real_eigh = models.minimax.linalg.eigh
    monkeypatch.setattr(models.minimax.linalg, "eigh", lambda *a, **k: calls.append(1) or real_eigh(*a, **k))
    models.MPM(kernel="rbf", gamma=1.0).fit(X, y)
    assert calls == []


def test_kernel_mpm_refuses_a_zero_ridge_in_words(moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match="needs ridge > 0"):
        models.MPM(kernel="rbf", ridge=0.0).fit(X, y)


# ----------------------------------------------------------------------------- MCPM and SCM
def mixture_toy(n=2000, seed=0):
    """The MCPM paper's kind of toy: two classes of n/2 points, each a mixture of Gaussians."""
    rng = np.random.default_rng(seed)
    centres = {0: [(-2.0, 0.0), (1.0, 2.0), (2.0, -2.0)], 1: [(0.0, 1.0), (-1.0, -2.0), (3.0, 0.5)]}
    X, y = [], []
    for label, means in centres.items():
        component = rng.integers(0, len(means), n // 2)
        for k, mean in enumerate(means):
            shape = rng.normal(size=(2, 2)) * 0.5
            X.append(rng.multivariate_normal(mean, 0.25 * np.eye(2) + 0.1 * shape @ shape.T, np.sum(component == k)))
            y.append(np.full(np.sum(component == k), label))
    return np.vstack(X), np.concatenate(y)


# ----------------------------------------------------------------------------- discriminants
def test_kfd_with_linear_kernel_is_lda():
    X, y = two_gaussians(separation=1.5)
    X_test, _ = two_gaussians(separation=1.5, seed=1)
    kfd = models.KFD(kernel=LinearKernel(), beta=1e-9).fit(X, y)
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    direction = X.T @ kfd.direction_
    cosine = direction @ lda.coef_[0] / (np.linalg.norm(direction) * np.linalg.norm(lda.coef_[0]))
    assert cosine == pytest.approx(1.0, abs=1e-8)
    # The 1-D Bayes rule on the projection is LDA's own two-class rule (log posterior odds).
    np.testing.assert_allclose(kfd.decision_function(X_test), lda.decision_function(X_test), rtol=1e-5, atol=1e-6)


def test_kfd_direction_solves_its_regularised_system(moons):
    X, y, X_test, y_test = moons
    kfd = models.KFD(gamma=1.0, beta=1e-2).fit(X, y)
    K = np.exp(-1.0 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1))
    within = np.zeros_like(K)
    for members in (y == 0, y == 1):
        K_m = K[:, members]
        centring = np.eye(members.sum()) - 1.0 / members.sum()
        within += K_m @ centring @ K_m.T
    direction = np.linalg.solve(within + 1e-2 * np.eye(len(K)), K[:, y == 1].mean(axis=1) - K[:, y == 0].mean(axis=1))
    np.testing.assert_allclose(kfd.direction_, direction, rtol=1e-6, atol=1e-8 * np.abs(direction).max())
    assert kfd.score(X_test, y_test) > 0.9


def test_knda_direction_is_the_top_generalised_eigenvector(moons):
    X, y, X_test, y_test = moons
    knda = models.KNDA(gamma=1.0, beta=1e-2, n_neighbors=3).fit(X, y)
    K = knda.kernel_(X, X)
    positive = y == 1
    between, weights = models.nonparametric_between_scatter(K, K, positive, 3, 1.0)
    within = models.within_class_scatter(K, positive) + 1e-2 * np.eye(len(K))
    v = knda.direction_
    rayleigh = (v @ between @ v) / (v @ within @ v)
    assert rayleigh == pytest.approx(np.linalg.eigvals(np.linalg.solve(within, between)).real.max(), rel=1e-6)
    assert np.all((weights >= 0) & (weights <= 0.5))
    np.testing.assert_array_equal(knda.boundary_weights_, weights)
    assert knda.score(X_test, y_test) > 0.9


def test_nonparametric_scatter_uses_nearest_other_class_points():
    # 1-D, linear kernel: the L vector of each point is its offset to the mean of its κ nearest opposite points.
    X = np.array([[0.0], [1.0], [3.0], [4.0], [10.0]])
    positive = np.array([False, False, True, True, True])
    K = X @ X.T
    between, weights = models.nonparametric_between_scatter(X, K, positive, 1, 1.0)
    offsets = np.array([0 - 3, 1 - 3, 3 - 1, 4 - 1, 10 - 1], dtype=float)
    own = np.array([1, 1, 1, 1, 6], dtype=float)   # distance to nearest own-class point
    other = np.array([3, 2, 2, 3, 9], dtype=float)
    expected_weights = np.minimum(own, other) / (own + other)
    np.testing.assert_allclose(weights, expected_weights)
    assert between[0, 0] == pytest.approx(np.sum(expected_weights * offsets ** 2) / 5)


# ----------------------------------------------------------------------------- CKSVMNDA
@pytest.mark.parametrize("eta", [0.0, 1e-12])
def test_cksvmnda_without_discriminant_term_is_the_kernel_svm(moons, eta):
    X, y, X_test, _ = moons
    combined = models.CKSVMNDA(C=3.0, gamma=0.7, eta=eta, tol=1e-10).fit(X, y)
    kernel_svm = models.KernelSVC(C=3.0, gamma=0.7, tol=1e-10).fit(X, y)
    reference = SVC(C=3.0, gamma=0.7, tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(combined.predict(X_test), kernel_svm.predict(X_test))
    np.testing.assert_array_equal(combined.predict(X_test), reference.predict(X_test))
    np.testing.assert_allclose(combined.decision_function(X_test), kernel_svm.decision_function(X_test), atol=1e-5)


def test_cksvmnda_empirical_map_without_discriminant_is_svm_on_squared_gram(moons):
    X, y, X_test, _ = moons
    combined = models.CKSVMNDA(C=3.0, gamma=0.7, eta=0.0, feature_map="empirical", tol=1e-10).fit(X, y)
    rbf = kv.kernels.make("rbf", gamma=0.7)
    K = rbf(X, X)
    reference = SVC(kernel="precomputed", C=3.0, tol=1e-10).fit(K @ K, y)
    np.testing.assert_allclose(combined.decision_function(X_test), reference.decision_function(rbf(X_test, X) @ K),
                               atol=1e-5)


def test_cksvmnda_discriminant_term_changes_the_solution(moons):
    X, y, X_test, y_test = moons
    plain = models.CKSVMNDA(C=3.0, gamma=0.7, eta=0.0).fit(X, y)
    combined = models.CKSVMNDA(C=3.0, gamma=0.7, eta=1.0).fit(X, y)
    assert np.abs(combined.decision_function(X_test) - plain.decision_function(X_test)).max() > 1e-2
    eigenvalues = np.linalg.eigvalsh(combined.theta_)
    assert eigenvalues.min() >= 1.0 - 1e-8  # Θ = ηΔ(∇+βI)⁻¹Δ + I ⪰ I
    assert combined.score(X_test, y_test) > 0.85


def test_cksvmnda_reuses_its_c_independent_stages_only_for_the_same_data_and_parameters(moons, monkeypatch):
    """A grid over C and η on one fold computes the kernel, the scatters and Θ once per data and
    (γ, κ) — and per η for Θ — and every fit equals one computed from nothing."""
    from kernelviz.models import discriminant

    X, y, X_test, _ = moons
    stages = []
    for name in ("_kernel_pca_map", "_theta_stage"):
        real = getattr(discriminant, name)
        monkeypatch.setattr(discriminant, name, lambda *a, real=real, name=name: stages.append(name) or real(*a))
    grid = [(C, eta) for eta in (1e-3, 1.0) for C in (0.1, 3.0, 100.0)]

    def fits(fresh):
        out = []
        for C, eta in grid:
            if fresh:
                discriminant._CKSVMNDA_STAGES.clear()
            model = models.CKSVMNDA(C=C, gamma=0.7, eta=eta).fit(X, y)
            out.append((model.dual_coef_, model.intercept_, model.decision_function(X_test)))
        return out

    from_nothing = fits(fresh=True)
    assert stages.count("_kernel_pca_map") == 6 and stages.count("_theta_stage") == 6
    stages.clear()
    discriminant._CKSVMNDA_STAGES.clear()
    kept = fits(fresh=False)
    assert stages == ["_kernel_pca_map", "_theta_stage", "_theta_stage"]  # one kernel map, one Θ per η
    for (coef, b, f), (coef_kept, b_kept, f_kept) in zip(from_nothing, kept):
        np.testing.assert_array_equal(coef, coef_kept)
        assert b == b_kept
        np.testing.assert_array_equal(f, f_kept)
    # other data (the same shape), another γ or κ, or a kernel object: computed again
    stages.clear()
    models.CKSVMNDA(C=3.0, gamma=0.7, eta=1.0).fit(X[::-1], y[::-1])
    models.CKSVMNDA(C=3.0, gamma=0.5, eta=1.0).fit(X, y)
    models.CKSVMNDA(C=3.0, gamma=0.7, eta=1.0, n_neighbors=3).fit(X, y)
    models.CKSVMNDA(C=3.0, kernel=kv.kernels.make("rbf", gamma=0.7), eta=1.0).fit(X, y)
    models.CKSVMNDA(C=3.0, kernel=kv.kernels.make("rbf", gamma=0.7), eta=1.0).fit(X, y)
    assert stages.count("_kernel_pca_map") == 5


def test_scm_and_mcpm_keep_their_class_partitions_across_c_and_gamma_only_for_the_same_data(moons, monkeypatch):
    """A search's fits of one fold differ in C and γ only, and each refitted its per-class k-means
    (about two thirds of an SCM fit on 5,328 Twonorm points): kept, every fit equals one computed
    from nothing."""
    from kernelviz.models import _base

    calls = []
    real = _base._partitions.fit_per_class
    monkeypatch.setattr(_base._partitions, "fit_per_class", lambda *a, **k: calls.append(1) or real(*a, **k))
    X, y, X_test, _ = moons

    def fits(fresh):
        out = []
        for C, gamma in [(0.1, 0.5), (10.0, 0.5), (1.0, 2.0)]:
            if fresh:
                _base._UNIT_PARTITIONS.clear()
            out.append(models.SCM(C=C, gamma=gamma, n_components=3).fit(X, y).decision_function(X_test))
        if fresh:
            _base._UNIT_PARTITIONS.clear()
        out.append(models.MCPM(gamma=0.5, n_components=3).fit(X, y).decision_function(X_test))  # the same k-means
        return out

    from_nothing = fits(fresh=True)
    assert len(calls) == 4
    calls.clear()
    _base._UNIT_PARTITIONS.clear()
    kept = fits(fresh=False)
    assert len(calls) == 1
    for a, b in zip(from_nothing, kept):
        np.testing.assert_array_equal(a, b)
    # other data (the same shape), another k, a generator's draws: fitted again
    calls.clear()
    models.SCM(n_components=3).fit(X[::-1], y[::-1])
    models.SCM(n_components=2).fit(X, y)
    models.SCM(n_components=3, random_state=np.random.RandomState(0)).fit(X, y)
    models.SCM(n_components=3, random_state=np.random.RandomState(0)).fit(X, y)
    assert len(calls) == 4
    # the same points under other label names: their own partitions, under their own names
    named = models.MCPM(gamma=0.5, n_components=3).fit(X, np.where(y == 1, "yes", "no"))
    assert set(named.partitions_) == {"yes", "no"}


def test_the_stage_memo_keeps_the_most_recent_results_within_its_bytes():
    from kernelviz.models._base import _StageMemo

    memo = _StageMemo(max_bytes=3 * 800)  # three 100-float arrays
    computed = []

    def stage(i, size=100):
        return lambda: computed.append(i) or (np.zeros(size),)

    for i in range(4):
        memo.get(i, stage(i))
    memo.get(3, stage(3))
    memo.get(0, stage(0))  # the oldest went when the fourth came
    assert computed == [0, 1, 2, 3, 0]
    memo.get("big", stage("big", size=400))
    memo.get("big", stage("big", size=400))  # larger than the whole budget: never kept
    memo.get(None, stage("none"))
    memo.get(None, stage("none"))  # a key of None: never kept
    assert computed[5:] == ["big", "big", "none", "none"]


# ----------------------------------------------------------------------------- mkRBF
def test_mkrbf_gives_each_cluster_its_own_svm():
    # Two far-apart blobs; the class boundary is vertical in one and horizontal in the other.
    rng = np.random.default_rng(0)
    left = rng.normal(size=(150, 2)) * [1.0, 0.3] + [-10.0, 0.0]
    right = rng.normal(size=(150, 2)) * [0.3, 1.0] + [10.0, 0.0]
    X = np.vstack([left, right])
    y = np.concatenate([(left[:, 0] > -10.0), (right[:, 1] > 0.0)]).astype(int)
    clf = models.MkRBF(C=10.0, gamma=0.5, n_components=2).fit(X, y)
    np.testing.assert_array_equal(np.sort(np.bincount(clf.partition_.labels_)), [150, 150])
    assert all(svm is not None for svm in clf.estimators_)
    assert clf.score(X, y) > 0.95
    # Each cluster's kernel uses that cluster's covariance.
    for cluster in range(2):
        members = clf.partition_.labels_ == cluster
        np.testing.assert_allclose(clf.partition_.covariances_[cluster], np.cov(X[members].T), rtol=1e-10)


def test_mkrbf_single_class_cluster_predicts_its_class():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(60, 2)) + [-8.0, 0.0], rng.normal(size=(60, 2)) + [8.0, 0.0]])
    y = np.concatenate([np.zeros(60, int), (X[60:, 1] > 0).astype(int)])
    clf = models.MkRBF(n_components=2).fit(X, y)
    left = clf.partition_.predict([[-8.0, 0.0]])[0]
    assert clf.estimators_[left] is None
    probe = np.array([[-8.0, 1.0], [-7.0, -1.0]])
    np.testing.assert_array_equal(clf.decision_function(probe), -models.SINGLE_CLASS_DECISION)
    np.testing.assert_array_equal(clf.predict(probe), [0, 0])


# ----------------------------------------------------------------------------- unlabeled points
def fitted_point_count(kernel):
    """How many points the kernel's unsupervised part was fitted on."""
    return len(kernel.points_) if kernel.name == "lap" else len(kernel.partition_.labels_)


@pytest.mark.parametrize("kernel, kernel_params", [
    ("ckrbf", {"n_components": 4}),
    ("gmm", {"n_components": 4}),
    ("rwm", {"n_components": 4}),
    ("lap", {}),
])
def test_unlabeled_points_reach_the_kernel(moons, kernel, kernel_params):
    X, y, X_test, _ = moons
    labeled = np.r_[0:10, 100:110]
    unlabeled = np.setdiff1d(np.arange(len(X)), labeled)
    kwargs = {"kernel": kernel, "C": 10.0, "gamma": 1.0, "kernel_params": kernel_params}
    alone = models.KernelSVC(**kwargs).fit(X[labeled], y[labeled])
    helped = models.KernelSVC(**kwargs).fit(X[labeled], y[labeled], X_unlabeled=X[unlabeled])
    assert fitted_point_count(alone.kernel_) == len(labeled)
    assert fitted_point_count(helped.kernel_) == len(labeled) + len(unlabeled)
    if kernel == "lap":
        np.testing.assert_array_equal(helped.kernel_.points_, np.vstack((X[labeled], X[unlabeled])))
    # Only the unsupervised part sees them: the SVM still has the labeled points alone.
    assert helped.svc_.shape_fit_ == (len(labeled), len(labeled))
    assert np.abs(alone.decision_function(X_test) - helped.decision_function(X_test)).max() > 1e-3


@pytest.mark.parametrize("cls", [models.KNDA, models.KFD, models.CKSVMNDA, models.MPM])
def test_discriminant_models_pass_unlabeled_points_to_the_kernel(cls, moons):
    X, y, _, _ = moons
    clf = cls(kernel="gmm", gamma=0.5, kernel_params={"n_components": 3}).fit(X[:40], y[:40], X_unlabeled=X[40:])
    assert len(clf.kernel_.partition_.labels_) == len(X)


def test_unlabeled_points_reach_the_mkrbf_partition_and_pipelines(moons):
    X, y, _, _ = moons
    clf = models.MkRBF(n_components=3).fit(X[:50], y[:50], X_unlabeled=X[50:])
    assert len(clf.partition_.labels_) == len(X)
    pipeline = make_pipeline(models.KernelSVC(kernel="rwm", kernel_params={"n_components": 3}))
    pipeline.fit(X[:50], y[:50], kernelsvc__X_unlabeled=X[50:])
    assert len(pipeline[-1].kernel_.partition_.labels_) == len(X)


# ----------------------------------------------------------------------------- bad input
ALL_MODELS = list(NON_DEFAULT_PARAMS)
WITH_C = [models.KernelSVC, models.MkRBF, models.SCM, models.CKSVMNDA]


@pytest.mark.parametrize("C", [0.0, -1.0, np.nan])
@pytest.mark.parametrize("cls", WITH_C, ids=lambda c: c.__name__)
def test_non_positive_C_is_rejected(cls, C, moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match="C must be"):
        cls(C=C).fit(X, y)


@pytest.mark.parametrize("gamma", [0.0, -0.5])
@pytest.mark.parametrize("cls", ALL_MODELS, ids=lambda c: c.__name__)
def test_non_positive_gamma_is_rejected(cls, gamma, moons):
    X, y, _, _ = moons
    params = {**NON_DEFAULT_PARAMS[cls], "gamma": gamma}
    if cls is models.MPM:
        params["kernel"] = "rbf"
    with pytest.raises(ValueError, match="gamma must be"):
        cls(**params).fit(X, y)


@pytest.mark.parametrize("cls", ALL_MODELS, ids=lambda c: c.__name__)
def test_a_single_class_is_rejected(cls, moons):
    X, _, _, _ = moons
    with pytest.raises(ValueError, match="at least two classes"):
        cls().fit(X, np.ones(len(X)))


@pytest.mark.parametrize("cls", ALL_MODELS, ids=lambda c: c.__name__)
def test_nan_is_rejected(cls, moons):
    X, y, _, _ = moons
    X = X.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(X, y)
    fitted = cls().fit(moons[0], y)
    with pytest.raises(ValueError, match="NaN"):
        fitted.predict(X)


@pytest.mark.parametrize("cls", ALL_MODELS, ids=lambda c: c.__name__)
def test_one_point_per_class_gives_finite_decisions(cls):
    """The smallest training set a two-class model can take: finite values, each point on its side."""
    X, y = np.array([[0.5, 0.0], [0.0, 0.0]]), np.array([1, -1])
    model = cls().fit(X, y)
    values = model.decision_function(np.array([[0.2, 0.1], [1.0, 1.0], [-1.0, 0.0]]))
    assert np.all(np.isfinite(values))
    np.testing.assert_array_equal(model.predict(X), y)


@pytest.mark.parametrize("cls", [models.KFD, models.KNDA], ids=lambda c: c.__name__)
def test_discriminants_on_classes_that_project_to_one_value_use_the_midpoint(cls):
    """One point against five copies of another: no within-class spread, so the Bayes rule is
    the midpoint threshold (the class priors drop out as σ² → 0) and both classes are kept."""
    X, y = np.array([[0.5, 0.0]] + [[0.0, 0.0]] * 5), np.array([1] + [-1] * 5)
    model = cls().fit(X, y)
    np.testing.assert_allclose(model.decision_function(X[:2]), [1.0, -1.0], rtol=1e-9)


@pytest.mark.parametrize("cls", BINARY_ONLY, ids=lambda c: c.__name__)
def test_binary_only_models_reject_three_classes(cls):
    X, y = make_blobs(90, centers=3, random_state=0)
    with pytest.raises(ValueError, match="Only binary classification is supported. .* y has 3 classes"):
        cls().fit(X, y)


def test_labels_in_messages_are_written_plainly(moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match=r"y has only one class \(1\)\. Label points") as error:
        models.KernelSVC().fit(X, np.ones(len(X)))
    assert "np." not in str(error.value)
    with pytest.raises(ValueError, match=r"class \('yes'\)"):
        models.KernelSVC().fit(X, np.full(len(X), "yes"))
    X3, y3 = make_blobs(90, centers=3, random_state=0)
    with pytest.raises(ValueError, match=r"y has 3 classes \(0, 1, 2\)\.") as error:
        models.KFD().fit(X3, y3.astype(float))
    assert "np." not in str(error.value)
    assert models.format_label(np.float64(2.5)) == "2.5" and models.format_label(np.int64(-1)) == "-1"
    assert models.format_label(np.str_("no")) == "'no'" and models.format_label(np.True_) == "True"


def test_multiclass_models_accept_three_classes():
    X, y = make_blobs(150, centers=3, random_state=0)
    for cls in (models.KernelSVC, models.SCM):
        assert cls(gamma=0.1).fit(X, y).score(X, y) > 0.9


@pytest.mark.parametrize("params, message", [
    ({"kernel": "nope"}, "Unknown kernel 'nope'"),
    ({"spectrum": "abs"}, "spectrum must be one of"),
    ({"kernel_params": {"gamma": 2.0}}, "not inside kernel_params"),
    ({"kernel_params": {"n_components": 2}}, "has no parameter"),
    ({"max_iter": 0}, "max_iter must be"),
])
def test_bad_kernel_svc_parameters_are_explained(params, message, moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match=message):
        models.KernelSVC(**params).fit(X, y)


@pytest.mark.parametrize("cls", [models.KernelSVC, models.MkRBF, models.SCM, models.CKSVMNDA, models.MPM,
                                 models.MCPM])
def test_max_iter_minus_one_means_no_limit_in_every_model(cls, moons):
    X, y, X_test, _ = moons
    unlimited = cls(max_iter=-1).fit(X, y)
    generous = cls(max_iter=10**7).fit(X, y)
    np.testing.assert_allclose(unlimited.decision_function(X_test), generous.decision_function(X_test), atol=1e-12)
    assert not getattr(unlimited, "max_iter_reached_", False)
    for refused in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="max_iter must be a positive whole number, or -1 for no limit"):
            cls(max_iter=refused).fit(X, y)


@pytest.mark.parametrize("cls", [cls for cls, _, _ in models.MODELS.values()] + [models.WithUnlabeled])
def test_estimator_parameters_are_keyword_only(cls):
    with pytest.raises(TypeError, match="positional argument"):
        cls(1.0)


def test_bad_model_parameters_are_explained(moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match="kernel must be one of 'lppk', 'rbf-ppk'"):
        models.MCPM(kernel="rbf").fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors must be a whole number"):
        models.KNDA(n_neighbors=0).fit(X, y)
    with pytest.raises(ValueError, match="beta must be a positive, finite number"):
        models.KFD(beta=0.0).fit(X, y)
    with pytest.raises(ValueError, match="eta must be a non-negative, finite number"):
        models.CKSVMNDA(eta=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="feature_map must be one of"):
        models.CKSVMNDA(feature_map="pca").fit(X, y)
    with pytest.raises(ValueError, match="X_unlabeled has 3 features but X has 2"):
        models.KernelSVC().fit(X, y, X_unlabeled=np.zeros((4, 3)))
    with pytest.raises(ValueError, match="same mean"):
        models.MPM().fit(np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 0.0], [-1.0, 0.0]]), [0, 0, 1, 1])


@pytest.fixture(scope="module")
def mixture_split():
    X, y = mixture_toy(2000, seed=0)
    return train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)


#: The MCPM paper's toy kind: each class a mixture of Gaussians (fixed means and shapes).
PAPER_TOY_MEANS = {0: [(-2.0, 0.0), (1.0, 2.0), (2.0, -2.0), (-1.0, 3.0)],
                   1: [(0.0, 1.0), (-1.0, -2.0), (3.0, 0.5), (-3.0, 2.0)]}


def paper_toy(n_per_class, seed):
    """n_per_class points per class from the fixed mixture; ``seed`` only draws the sample."""
    shapes = np.random.default_rng(12345).normal(size=(8, 2, 2)) * 0.5
    rng = np.random.default_rng(seed)
    X, y = [], []
    for label, means in PAPER_TOY_MEANS.items():
        component = rng.integers(0, len(means), n_per_class)
        for k, mean in enumerate(means):
            shape = shapes[4 * label + k]
            count = np.sum(component == k)
            X.append(rng.multivariate_normal(mean, 0.25 * np.eye(2) + 0.1 * shape @ shape.T, count))
            y.append(np.full(count, label))
    return np.vstack(X), np.concatenate(y)


def test_mcpm_on_30_units_is_within_3_points_of_a_tuned_rbf_svm():
    """The MCPM paper's toy setting: 2000 training points (1000 per class) from a mixture
    of Gaussians, 15 clusters per class (30 units), and a separate test set. The RBF SVM
    gets its C and γ by 3-fold CV on the training set; MCPM runs with its defaults."""
    X, y = paper_toy(1000, seed=0)
    X_test, y_test = paper_toy(1000, seed=1)
    search = GridSearchCV(SVC(), {"C": [0.1, 1.0, 10.0, 100.0], "gamma": [0.1, 1.0, 10.0]},
                          cv=StratifiedKFold(3, shuffle=True, random_state=0)).fit(X, y)
    svm_accuracy = search.score(X_test, y_test)
    assert svm_accuracy > 0.9
    mcpm = models.MCPM(kernel="rbf-ppk", n_components=15).fit(X, y)
    assert len(mcpm.units_) == 30 and mcpm.unit_sizes_.sum() == len(X) == 2000
    assert 0.5 < mcpm.alpha_ < 1.0
    assert abs(mcpm.score(X_test, y_test) - svm_accuracy) <= 0.03


@pytest.mark.parametrize("kernel", ["rbf-ppk", "lppk"])
def test_scm_on_30_units_is_close_to_an_rbf_svm(mixture_split, kernel):
    X, X_test, y, y_test = mixture_split
    svm_accuracy = SVC(C=1.0, gamma=0.3).fit(X, y).score(X_test, y_test)
    scm = models.SCM(kernel=kernel, C=1.0, gamma=0.3, n_components=15).fit(X, y)
    assert len(scm.units_) == 30
    assert scm.score(X_test, y_test) >= svm_accuracy - 0.03


# ----------------------------------------------------------------------------- point-vs-unit choices (MATH.md §4.9.1)
def _point_as_its_cluster_by_hand(model, X):
    """The RBF-PPK values of MATH.md §4.9.1 with normalize='unit', point_covariance='cluster',
    from scipy densities: each point takes the covariance of its most likely unit."""
    from scipy.stats import multivariate_normal

    units = model.units_
    gaussians = [multivariate_normal(m, S) for m, S in zip(units.means, units.covariances)]
    K = np.empty((len(X), len(units)))
    for i, z in enumerate(X):
        S_z = units.covariances[np.argmax([g.logpdf(z) for g in gaussians])]
        for j, (m, S) in enumerate(zip(units.means, units.covariances)):
            cross = multivariate_normal(m, S_z + S).pdf(z)
            selfs = multivariate_normal(np.zeros(len(z)), 2 * S_z).pdf(np.zeros(len(z))) * \
                multivariate_normal(np.zeros(len(z)), 2 * S).pdf(np.zeros(len(z)))
            K[i, j] = np.exp(-model.gamma * (2 - 2 * cross / np.sqrt(selfs)))
    return K


def test_mcpm_and_scm_with_points_as_their_clusters_match_a_computation_by_hand():
    X, y = mixture_toy(n=300, seed=3)
    X_test, _ = mixture_toy(n=40, seed=4)
    params = {"kernel": "rbf-ppk", "gamma": 0.8, "n_components": 3, "normalize": "unit",
              "point_covariance": "cluster"}
    mcpm = models.MCPM(**params).fit(X, y)
    K = _point_as_its_cluster_by_hand(mcpm, X_test)
    np.testing.assert_allclose(mcpm.decision_function(X_test), K @ mcpm.dual_coef_ + mcpm.intercept_, rtol=1e-8,
                               atol=1e-10)
    scm = models.SCM(C=3.0, **params).fit(X, y)
    K = _point_as_its_cluster_by_hand(scm, X_test)[:, scm.support_]
    np.testing.assert_allclose(scm.decision_function(X_test), K @ scm.dual_coef_[0] + scm.intercept_[0], rtol=1e-8,
                               atol=1e-10)
    # the default construction is untouched by the new parameters
    plain = models.MCPM(kernel="rbf-ppk", gamma=0.8, n_components=3).fit(X, y)
    np.testing.assert_allclose(plain.decision_function(X_test),
                               plain.kernel_(X_test, plain.units_) @ plain.dual_coef_ + plain.intercept_)


@pytest.mark.parametrize("cls", [models.SCM, models.MCPM])
def test_unknown_point_covariance_is_refused(cls):
    X, y = mixture_toy(n=60)
    with pytest.raises(ValueError, match="point_covariance must be one of 'bandwidth', 'cluster'; got 'nearest'"):
        cls(point_covariance="nearest", n_components=2).fit(X, y)
