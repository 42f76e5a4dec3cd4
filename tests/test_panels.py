"""The views' computations and the Theory text, checked without Streamlit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from sklearn.svm import SVC

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import registry, state
from kernelviz import theory
from kernelviz import pipeline

pytestmark = pytest.mark.unit

RNG = np.random.default_rng(0)
X2 = RNG.normal(size=(40, 2))
Y2 = np.where(X2[:, 0] + 0.3 * X2[:, 1] > 0, 1.0, -1.0)


def prepared(X=X2, y=Y2, test_fraction=0.25, label_how="all", label_value=1.0, fit_on="projection"):
    ds = kv.data.Dataset(X, y, name="tiny")
    return pipeline.prepare_dataset(ds, "tiny", "none", fit_on, label_how, label_value, 0, test_fraction)


def test_views_and_theory_do_not_import_streamlit():
    code = "import sys, kernelviz.pipeline, kernelviz.theory; print('streamlit' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


def test_prepare_splits_labeled_points_into_disjoint_train_and_test():
    prep = prepared()
    assert not (prep.train & prep.test).any()
    assert prep.labeled.all() and not prep.hidden.any()
    assert prep.test.sum() == 10
    assert set(prep.classes) == {-1.0, 1.0}
    assert prep.key != prepared(test_fraction=0.5).key


def test_prepare_projects_more_than_two_features_on_their_principal_plane():
    X = RNG.normal(size=(30, 4)) * [5.0, 2.0, 0.1, 0.1]
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    projected, full = prepared(X, y, fit_on="projection"), prepared(X, y, fit_on="full")
    assert projected.X_view.shape == (30, 2) and projected.X_model.shape == (30, 2)
    assert full.X_model.shape == (30, 4)
    # a point of the plane maps back to a 4-D point whose projection is that same point
    plane = projected.X_view[:3]
    assert np.allclose((full.to_model(plane) - full.pca_mean) @ full.pca_components.T, plane)


def test_holdout_is_stratified_and_keeps_a_training_point_of_every_class():
    y = np.array([1.0] * 10 + [-1.0] * 1)
    test = pipeline.holdout(y, np.ones(len(y), dtype=bool), 0.5, seed=3)
    assert test[:10].sum() == 5
    assert not test[10]
    assert not pipeline.holdout(y, np.ones(len(y), dtype=bool), 0.0, seed=3).any()


def test_boundary_panel_on_tiny_data_agrees_with_an_independent_svc():
    prep = prepared()
    grid = fg.grid_over(prep.X_view, resolution=12)
    kernel = pipeline.kernel_on_points("rbf", prep.X_model, None, "paper")
    log_gamma, log_C = -0.3, 0.5
    panel = pipeline.boundary_panel("rbf", kernel, prep, grid, log_gamma, log_C)

    svc = SVC(kernel="rbf", gamma=10 ** log_gamma, C=10 ** log_C).fit(prep.X_model[prep.train], prep.y[prep.train])
    assert panel.values.shape == (len(grid.points),)
    assert panel.X_train.shape == (prep.train.sum(), 2) and panel.X_test.shape == (prep.test.sum(), 2)
    assert panel.train_accuracy == pytest.approx(svc.score(prep.X_model[prep.train], prep.y[prep.train]))
    assert panel.test_accuracy == pytest.approx(svc.score(prep.X_model[prep.test], prep.y[prep.test]))
    assert panel.hidden_accuracy is None
    assert sorted(panel.support) == sorted(svc.support_)
    assert np.allclose(panel.values, svc.decision_function(grid.points), atol=1e-6)


def test_boundary_panel_uses_the_gamma_families_it_is_given():
    prep = prepared()
    grid = fg.grid_over(prep.X_view, resolution=10)
    kernel = pipeline.kernel_on_points("rbf", prep.X_model, None, "paper")
    calls = []

    def families_of(grid_model):
        calls.append(len(grid_model))
        return pipeline.gamma_families(kernel, prep, grid_model)

    given = pipeline.boundary_panel("rbf", kernel, prep, grid, 0.0, 0.0, families_of=families_of)
    assert calls == [len(grid.points)]
    assert np.allclose(given.values, pipeline.boundary_panel("rbf", kernel, prep, grid, 0.0, 0.0).values)


def test_similarity_panel_is_zero_at_the_reference_and_grows_away_from_it():
    prep = prepared(test_fraction=0.0)
    reference = (0.0, 0.0)
    grid = fg.grid_over(prep.X_view, resolution=15, extra=np.array([reference]))
    kernel = pipeline.kernel_on_points("rbf", prep.X_model, None, "paper")
    panel = pipeline.similarity_panel("rbf", kernel, prep, grid, 0.0, reference)
    distance = np.linalg.norm(grid.points - reference, axis=1)
    assert np.allclose(panel.dissimilarity, distance, atol=1e-6)
    assert panel.means is None


def test_dissimilarity_of_the_rbf_kernel_is_the_euclidean_distance():
    ref = np.array([0.3, -0.2])
    pts = RNG.normal(size=(50, 2))
    gamma = 0.7
    k = np.exp(-gamma * ((pts - ref) ** 2).sum(axis=1))
    dis, sim = pipeline.dissimilarity_from_kernel(k, 1.0, np.ones(50), gamma)
    np.testing.assert_allclose(dis, np.linalg.norm(pts - ref, axis=1), atol=1e-6)
    np.testing.assert_allclose(sim, k)
    # a kernel scaled by a constant (CkRBF's normaliser) has the same normalised values
    dis2, _ = pipeline.dissimilarity_from_kernel(13.0 * k, 13.0, 13.0 * np.ones(50), gamma)
    np.testing.assert_allclose(dis2, dis, atol=1e-6)


def test_negative_kernel_values_give_blank_dissimilarity_not_nan_errors():
    dis, sim = pipeline.dissimilarity_from_kernel(np.array([-0.5, 0.5]), 1.0, np.array([1.0, 1.0]), 1.0)
    assert np.isnan(dis[0]) and np.isfinite(dis[1]) and sim[0] == 0.0


def test_gram_summary_flags_an_indefinite_matrix():
    breaks = np.array([1])
    psd = pipeline.gram_summary("rbf", np.eye(2), breaks)
    indefinite = pipeline.gram_summary("rwm", np.array([[1.0, 2.0], [2.0, 1.0]]), breaks)
    assert psd.row["PSD"] == "yes" and psd.panel.verdict.startswith("PSD")
    assert indefinite.row["PSD"] == "no" and indefinite.row["negative eigenvalues"] == 1
    assert indefinite.panel.verdict.startswith("not PSD")


def test_pf_curves_fall_from_one_at_the_worst_score():
    scores = {"a": np.array([[0.5, 0.9], [0.8, 1.0]]), "b": np.array([[0.6, 0.6], [0.7, 0.7]])}
    table, alpha0, alphas, curves = pipeline.pf_curves(scores, n_alphas=50)
    assert alpha0 == pytest.approx(0.5) and alphas[0] == alpha0 and alphas[-1] == 1.0
    for _, values in curves.values():
        assert values[0] == pytest.approx(1.0) and np.all(np.diff(values) <= 1e-12)
    assert table["a"]["auc"] > table["b"]["auc"]


def test_theory_covers_every_kernel_model_and_preset():
    assert list(registry.KERNELS) == kv.kernels.names()
    assert all(facts.formula.strip() and facts.explanation.strip() for facts in registry.KERNELS.values())
    assert set(theory.MODELS) == set(kv.models.MODELS)
    assert all(text.strip() for text in theory.MODELS.values())
    assert [key for key, _, _ in theory.PRESETS] == [p.key for p in kv.state.PRESETS]


# ----------------------------------------------------------------------------- input the views cannot model


def test_uploads_the_views_cannot_model_are_refused_with_the_reason():
    two_columns = kv.data.read(b"a,b\n1,2\n3,4\n5,6\n", name="two")
    with pytest.raises(ValueError, match="single feature") as err:
        pipeline.check_upload(two_columns, "two.csv")
    assert "reads the labels from the last column" in str(err.value)
    one_feature = kv.data.read(b"1 1:0.5\n-1 1:0.3\n", name="one")
    with pytest.raises(ValueError, match="single feature"):
        pipeline.check_upload(one_feature, "one.libsvm")
    with pytest.raises(ValueError, match="fewer than two classes"):
        pipeline.check_upload(kv.data.Dataset(X2, np.ones(len(X2))), "ones.csv")
    same = kv.data.Dataset(np.ones((20, 2)), np.repeat([0.0, 1.0], 10))
    with pytest.raises(ValueError, match="all 20 points lie on the same spot"):
        pipeline.check_upload(same, "same.csv")
    pipeline.check_upload(kv.data.Dataset(X2, Y2), "fine.csv")  # no error


@pytest.mark.parametrize("scaling", ["none", "minmax", "zscore"])
def test_prepare_refuses_values_too_large_to_compute_with(scaling):
    X = np.array([[1e308, 2.0], [-1e308, 4.0], [5.0, 6.0], [7.0, 8.0]])
    ds = kv.data.Dataset(X, np.array([0.0, 1.0, 0.0, 1.0]), name="huge")
    # unscaled, the squared distances overflow; min-max gives NaN; z-scoring divides by an infinite std
    with pytest.raises(ValueError, match="too large to compute with"):
        pipeline.prepare_dataset(ds, "huge", scaling, "projection", "all", 1.0, 0, 0.0)
    fine = kv.data.Dataset(X / 1e160, ds.y, name="fine")
    assert np.isfinite(pipeline.prepare_dataset(fine, "fine", scaling, "projection", "all", 1.0, 0, 0.0).X_model).all()


def test_folds_are_checked_against_the_smallest_class():
    y = np.array([1.0] * 6 + [-1.0] * 3)
    prep = prepared(X2[:9], y, test_fraction=0.0)
    pipeline.check_folds(prep, 3)
    with pytest.raises(ValueError, match="4-fold .* class −1 has only 3: choose at most 3 folds"):
        pipeline.check_folds(prep, 4)
    with pytest.raises(ValueError, match="at least two labeled points in every class"):
        pipeline.check_folds(prepared(X2[:7], np.array([1.0] * 6 + [-1.0]), test_fraction=0.0), 2)


def test_a_grid_axis_with_equal_ends_is_a_single_value():
    assert pipeline.grid_axis((1, 1), 7).tolist() == [1.0]
    assert pipeline.grid_axis((-2, 4), 7).tolist() == [-2, -1, 0, 1, 2, 3, 4]


# ----------------------------------------------------------------------------- generator parameters


@settings(max_examples=150, deadline=None)
@given(hst.sampled_from(sorted(kv.data.GENERATORS)).flatmap(
    lambda g: hst.tuples(hst.just(g), hst.sampled_from(sorted(kv.data.GENERATORS[g])))).flatmap(
    lambda gp: hst.tuples(hst.just(gp[0]), hst.just(gp[1]), _param_values(gp[1]))))
def test_every_value_a_generator_widget_allows_makes_data_and_round_trips(case):
    generator, param, value = case
    # the link holds it …
    parsed, problems = state.parse(state.encode({**state.defaults(), "generator": generator,
                                                  "gen_params": {param: value}}))
    assert problems == []
    # … and the app takes it back unchanged (check_generator_params also runs kv.data.make)
    clean, problems = pipeline.check_generator_params(generator, parsed["gen_params"])
    assert problems == [] and clean == {param: value}
    assert type(clean[param]) is type(kv.data.GENERATORS[generator][param])


def _param_values(param):
    bounds = pipeline.generator_param_bounds(param)
    lo, hi = bounds["min_value"], bounds["max_value"]
    if bounds["step"] == 1:
        # at least 3 points: blobs and mixture have 2 classes by default, spirals 2 arms
        return hst.integers(max(lo, 3) if param == "n_samples" else lo, hi)
    return hst.floats(lo if lo is not None else -1e6, hi if hi is not None else 1e6, allow_nan=False)


def test_generator_widgets_are_bounded_for_the_plane_and_the_kernels():
    assert pipeline.generator_param_bounds("n_features")["min_value"] == 2
    assert pipeline.generator_param_bounds("n_samples") == {"min_value": 2, "max_value": 5000, "step": 1, "format": "%d"}
    assert pipeline.generator_param_bounds("cluster_std")["min_value"] == pipeline.POSITIVE_PARAMETER_MIN
    assert pipeline.generator_param_bounds("factor")["max_value"] == 1.0
    assert pipeline.generator_param_bounds("angle")["min_value"] is None


def test_generator_parameters_a_widget_cannot_show_fall_back_with_a_reason():
    clean, problems = pipeline.check_generator_params("blobs", {"n_samples": 0, "noise": 0.25, "factor": 0.3,
                                                             "n_classes": 2.5})
    assert clean == {"noise": 0.25}
    text = " ".join(problems)
    assert "n_samples=0" in text and "between 2 and 5000" in text
    assert "no such parameter" in text and "n_classes=2.5" in text and "whole number" in text
    clean, problems = pipeline.check_generator_params("blobs", {"n_samples": 2, "n_classes": 3})
    assert clean == {} and "too few for 3 classes" in problems[0]


# ----------------------------------------------------------------------------- one failure stays local


def test_each_or_reason_keeps_going_after_a_failure():
    def compute(name):
        if name == "bad":
            raise ValueError("cannot")
        if name == "bug":
            raise KeyError("x")
        return name.upper()

    results, reasons = pipeline.each_or_reason(["a", "bad", "b"], compute)
    assert results == {"a": "A", "b": "B"}
    assert reasons == {"bad": "cannot"}
    with pytest.raises(KeyError):  # a bug is not a reason: it reaches the page's error box with its details
        pipeline.each_or_reason(["a", "bug"], compute)


@pytest.mark.parametrize("name", [n for n, (_, _, binary) in kv.models.MODELS.items() if binary])
def test_a_two_class_model_draws_three_classes_one_vs_one(name):
    X, y = kv.data.make("blobs", n_samples=60, n_classes=3, random_state=1)
    prep = prepared(X, y, test_fraction=0.0)
    grid = fg.grid_over(prep.X_view, resolution=15)
    panel = pipeline.model_panel(name, prep, grid, -1.0, 0.0, 0)  # γ = 0.1: MCPM's cluster kernel reaches the grid
    assert panel.multiclass and not panel.margins
    assert panel.classes == [0.0, 1.0, 2.0] and set(np.unique(panel.values)) == {0, 1, 2}
    assert "one-vs-one over 3 classes" in panel.note and panel.scheme == "one-vs-one"
    assert panel.train_accuracy > 0.9  # three well separated blobs


def test_the_scale_sentence_speaks_of_the_data_shown():
    scores = np.array([[0.6, 0.9], [0.8, 0.95]])
    alone = pipeline.scale_sentence("moons", "paper", (12.0, 30.0), scores, None)
    assert "fourclass" not in alone and "moons" in alone and "12 to 30" in alone
    assert "show the unit scale next to it" in alone.lower()


@pytest.mark.parametrize("ckrbf_auc, rbf_auc, verdict", [(0.311, 0.324, "trails"), (0.324, 0.311, "leads"),
                                                          (0.320, 0.318, "is level")])
def test_the_scale_sentence_speaks_of_a_lead_only_when_the_table_shows_one(ckrbf_auc, rbf_auc, verdict):
    """Moons once read "CkRBF's P_f advantage" while CkRBF's AUC 0.311 was below RBF's 0.324."""
    scores = np.array([[0.6, 0.9], [0.8, 0.95]])
    sentence = pipeline.scale_sentence("moons", "paper", (12.0, 30.0), scores, None,
                                    aucs={"rbf": rbf_auc, "ckrbf": ckrbf_auc})
    assert f"CkRBF's P_f AUC {verdict} ({ckrbf_auc:.3f} against RBF's {rbf_auc:.3f})" in sentence
    assert ("how much of that lead" in sentence) == (verdict == "leads")
    assert "advantage" not in sentence
    both = pipeline.scale_sentence("moons", "unit", None, scores, np.full((2, 2), 0.95))
    paper_auc = kv.evaluation.pf_auc({"paper": np.full((2, 2), 0.95), "unit": scores})[0]["paper"]["auc"]
    assert f"{paper_auc:.3f} with the paper's scale" in both and "on moons" in both


@pytest.mark.parametrize("name", ["ckrbf", "rwm"])
def test_panels_say_when_clusters_are_too_small_for_their_covariance(name):
    """Two points per cluster in 2-D: flat covariances, regularised, and the panels say so."""
    X = np.array([[1.0, 0.5], [1.0, 1.0], [-1.0, 0.0], [-1.0, -0.5]])
    prep = prepared(X=X, y=np.array([1.0, 1.0, -1.0, -1.0]), test_fraction=0.0)
    partition = kv.partitions.fit("kmeans", prep.X_model, n_components=2, random_state=0)
    kernel = pipeline.kernel_on_points(name, prep.X_model, partition, "paper")
    grid = fg.grid_over(prep.X_view, resolution=8, extra=np.array([[0.0, 0.0]]))
    boundary = pipeline.boundary_panel(name, kernel, prep, grid, 0.0, 0.0)
    similarity = pipeline.similarity_panel(name, kernel, prep, grid, 0.0, (0.0, 0.0))
    for panel in (boundary, similarity):
        assert "2 of 2 clusters regularised, ε ≤ 1e-10" in panel.note and panel.regularised


def test_panels_of_well_estimated_clusters_carry_no_regularisation_note():
    prep = prepared(test_fraction=0.0)
    partition = kv.partitions.fit("kmeans", prep.X_model, n_components=2, random_state=0)
    kernel = pipeline.kernel_on_points("ckrbf", prep.X_model, partition, "paper")
    grid = fg.grid_over(prep.X_view, resolution=8)
    panel = pipeline.boundary_panel("ckrbf", kernel, prep, grid, 0.0, 0.0)
    assert "regularised" not in panel.note and not panel.regularised


def test_one_class_note_needs_a_one_class_map_and_poorly_classified_training_points():
    def panel(values, train_accuracy, multiclass=False):
        return fg.BoundaryPanel(name="rbf", values=np.asarray(values), classes=[0, 1, 2] if multiclass else [-1, 1],
                                X_train=X2, y_train=Y2, train_accuracy=train_accuracy, multiclass=multiclass)

    assert pipeline.one_class_note(panel([-0.1] * 99 + [0.2], 0.5)).startswith("one class on 99%")
    assert pipeline.one_class_note(panel([-0.1] * 99 + [0.2], 1.0)) == ""  # a tight class inside a wide one
    assert pipeline.one_class_note(panel([-1.0] * 90 + [1.0] * 10, 0.5)) == ""
    assert pipeline.one_class_note(panel([2] * 50 + [0] * 50, 0.3, multiclass=True)) == ""
    assert pipeline.one_class_note(panel([2] * 100, 0.3, multiclass=True)).startswith("one class on 100%")


def test_a_model_that_predicts_one_class_everywhere_says_so():
    """MCPM's probability-product kernel at an RBF-sized γ: every point is far from every unit."""
    X, y = kv.data.make("blobs", n_samples=200, n_classes=2, random_state=0)
    prep = prepared(X, y, test_fraction=0.0)
    grid = fg.grid_over(prep.X_view, resolution=15)
    far = pipeline.model_panel("MCPM", prep, grid, 1.0, 0.0, 0)   # γ = 10
    assert "one class on" in far.note
    near = pipeline.model_panel("MCPM", prep, grid, -1.0, 0.0, 0)  # γ = 0.1
    assert "one class on" not in near.note and near.train_accuracy > 0.95


def test_the_accuracy_table_leaves_out_empty_columns_and_counts_no_support_vectors_as_a_dash():
    from types import SimpleNamespace

    svm = SimpleNamespace(name="ckrbf", scheme="", train_accuracy=0.9, test_accuracy=None, hidden_accuracy=None,
                          support=np.arange(7), fit_seconds=0.01234)
    mpm = SimpleNamespace(name="MPM", scheme="linear", train_accuracy=0.8, test_accuracy=None, hidden_accuracy=None,
                          support=None, fit_seconds=0.002)
    table = pipeline.accuracy_table([svm, mpm])
    assert list(table) == ["kernel", "train accuracy", "support vectors", "fit (ms)"]
    assert table["kernel"] == ["CkRBF", "MPM (linear)"]
    assert table["support vectors"] == ["7", "—"] and table["fit (ms)"] == [12.3, 2.0]
