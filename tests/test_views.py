"""The views' computations and the Theory text, checked without Streamlit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sklearn.svm import SVC

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import theory
from kernelviz import views

RNG = np.random.default_rng(0)
X2 = RNG.normal(size=(40, 2))
Y2 = np.where(X2[:, 0] + 0.3 * X2[:, 1] > 0, 1.0, -1.0)


def prepared(X=X2, y=Y2, test_fraction=0.25, label_how="all", label_value=1.0, fit_on="projection"):
    ds = kv.data.Dataset(X, y, name="tiny")
    return views.prepare(ds, "tiny", "none", fit_on, label_how, label_value, 0, test_fraction)


def test_views_and_theory_do_not_import_streamlit():
    code = "import sys, kernelviz.views, kernelviz.theory; print('streamlit' in sys.modules)"
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
    test = views.holdout(y, np.ones(len(y), dtype=bool), 0.5, seed=3)
    assert test[:10].sum() == 5
    assert not test[10]
    assert not views.holdout(y, np.ones(len(y), dtype=bool), 0.0, seed=3).any()


def test_boundary_panel_on_tiny_data_agrees_with_an_independent_svc():
    prep = prepared()
    grid = fg.grid_over(prep.X_view, resolution=12)
    kernel = views.fit_kernel("rbf", prep.X_model, None, "paper")
    log_gamma, log_C = -0.3, 0.5
    panel = views.boundary_panel("rbf", kernel, prep, grid, log_gamma, log_C)

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
    kernel = views.fit_kernel("rbf", prep.X_model, None, "paper")
    calls = []

    def families_of(grid_model):
        calls.append(len(grid_model))
        return views.gamma_families(kernel, prep, grid_model)

    given = views.boundary_panel("rbf", kernel, prep, grid, 0.0, 0.0, families_of=families_of)
    assert calls == [len(grid.points)]
    assert np.allclose(given.values, views.boundary_panel("rbf", kernel, prep, grid, 0.0, 0.0).values)


def test_similarity_panel_is_zero_at_the_reference_and_grows_away_from_it():
    prep = prepared(test_fraction=0.0)
    reference = (0.0, 0.0)
    grid = fg.grid_over(prep.X_view, resolution=15, extra=np.array([reference]))
    kernel = views.fit_kernel("rbf", prep.X_model, None, "paper")
    panel = views.similarity_panel("rbf", kernel, prep, grid, 0.0, reference)
    distance = np.linalg.norm(grid.points - reference, axis=1)
    assert np.allclose(panel.dissimilarity, distance, atol=1e-6)
    assert panel.means is None


def test_gram_summary_flags_an_indefinite_matrix():
    breaks = np.array([1])
    psd = views.gram_summary("rbf", np.eye(2), breaks)
    indefinite = views.gram_summary("rwm", np.array([[1.0, 2.0], [2.0, 1.0]]), breaks)
    assert psd.row["PSD"] == "yes" and psd.panel.verdict.startswith("PSD")
    assert indefinite.row["PSD"] == "no" and indefinite.row["negative eigenvalues"] == 1
    assert indefinite.panel.verdict.startswith("not PSD")


def test_pf_curves_fall_from_one_at_the_worst_score():
    scores = {"a": np.array([[0.5, 0.9], [0.8, 1.0]]), "b": np.array([[0.6, 0.6], [0.7, 0.7]])}
    table, alpha0, alphas, curves = views.pf_curves(scores, n_alphas=50)
    assert alpha0 == pytest.approx(0.5) and alphas[0] == alpha0 and alphas[-1] == 1.0
    for _, values in curves.values():
        assert values[0] == pytest.approx(1.0) and np.all(np.diff(values) <= 1e-12)
    assert table["a"]["auc"] > table["b"]["auc"]


def test_theory_covers_every_kernel_model_and_preset():
    assert set(theory.KERNELS) == set(kv.kernels.names())
    assert all(formula.strip() and text.strip() for formula, text in theory.KERNELS.values())
    assert set(theory.MODELS) == set(kv.models.MODELS)
    assert all(text.strip() for text in theory.MODELS.values())
    assert [key for key, _, _ in theory.PRESETS] == [p.key for p in kv.state.PRESETS]
