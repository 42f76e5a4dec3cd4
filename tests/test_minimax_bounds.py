"""What MPM's and MCPM's worst-case bound α covers, checked on the training data, and what the
Decision boundaries panel says of it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import pipeline

pytestmark = pytest.mark.unit

DATA = {"moons": make_moons(200, noise=0.25, random_state=0),
        "blobs": make_blobs(200, centers=2, random_state=3, cluster_std=2.0)}


def per_class_accuracy(model, X, y) -> dict:
    predicted = model.predict(X)
    return {c: float(np.mean(predicted[y == c] == c)) for c in model.classes_}


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("kernel, gamma", [("linear", None), ("rbf", 0.5), ("rbf", 5.0)])
def test_mpms_bound_holds_for_each_class_on_the_points_it_was_fitted_to(data, kernel, gamma):
    """α bounds each class's accuracy for every distribution with the class's (regularised) mean and
    covariance; the training points' own distribution is one of them (its covariance is below the
    ridged one), so each class's training accuracy is at least α."""
    X, y = DATA[data]
    model = kv.models.MPM(kernel=kernel, gamma=gamma).fit(X, y)
    assert 0 < model.alpha_ < 1
    for label, accuracy in per_class_accuracy(model, X, y).items():
        assert accuracy >= model.alpha_, (label, accuracy, model.alpha_)


def three_blobs_pair():
    X, y = make_blobs(300, centers=3, random_state=1, cluster_std=0.8)
    return X[y < 2], y[y < 2]


def test_mcpms_bound_covers_its_cluster_units_not_the_points():
    """MCPM is MPM on the clusters as units: α bounds the units' accuracy (weighted by their sizes),
    which holds; it says nothing about points. At γ = 10 with RBF-PPK the units are nearly orthogonal
    in the feature space and almost every point is far from every unit, so its decision is the
    intercept alone and one class's training points are almost all lost — while α = 0.81. That is
    the paper's model at a γ far past the units' scale, not a fitting defect: at γ = 1 it is right."""
    X, y = three_blobs_pair()
    model = kv.models.MCPM(kernel="rbf-ppk", gamma=10.0).fit(X, y)
    K = model.kernel_(model.units_, model.units_)
    f_units = K @ model.dual_coef_ + model.intercept_
    positive = model.unit_labels_ == model.classes_[1]
    for mask, sign in ((positive, 1), (~positive, -1)):
        weights = model.unit_sizes_[mask]
        covered = np.sum(weights * (sign * f_units[mask] > 0)) / np.sum(weights)
        assert covered >= model.alpha_  # the bound's own claim: the units
    assert np.max(K - np.diag(np.diag(K))) < 1e-3  # units nearly orthogonal
    # most points are far from every unit (a one-point cluster's own point is not)
    assert np.median(model._point_kernel(X, model.units_).max(axis=1)) < 1e-2
    accuracy = per_class_accuracy(model, X, y)
    assert model.alpha_ > 0.8 and min(accuracy.values()) < 0.2  # α is no promise about the points
    sensible = kv.models.MCPM(kernel="rbf-ppk", gamma=1.0).fit(X, y)
    assert min(per_class_accuracy(sensible, X, y).values()) >= sensible.alpha_


def test_the_panel_says_what_alpha_bounds_and_shows_each_classs_training_accuracy():
    X, y = three_blobs_pair()
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y.astype(float), name="blobs"), "b", "none", "projection",
                                    "all", 1.0, 0, 0.0)
    grid = fg.grid_over(prep.X_view, 10)
    mpm = pipeline.model_panel("MPM", prep, grid, np.log10(0.5), 0.0, 0)
    accuracies = mpm.class_train_accuracy
    assert set(accuracies) == set(np.unique(y).astype(float)) and min(accuracies.values()) >= mpm.alpha
    assert "per class (training moments)" in mpm.note
    per_class_line = mpm.note.split("train per class ")[1]
    assert per_class_line == " / ".join(f"{100 * a:.0f}" for a in accuracies.values()) + " %"
    mcpm = pipeline.model_panel("MCPM", prep, grid, 1.0, 0.0, 0)  # γ = 10
    assert "for cluster units, not points" in mcpm.note
    assert min(mcpm.class_train_accuracy.values()) < mcpm.alpha  # shown side by side, the gap is visible


@pytest.mark.parametrize("name", ["MPM", "MCPM"])
@pytest.mark.parametrize("pairwise", [False, True])
def test_the_alpha_lines_fit_a_panels_title_block(name, pairwise):
    from kernelviz import figures as fg

    note = pipeline.alpha_sentence(name, 0.8123, {0.0: 1.0, 1.0: 0.07, 2.0: 1.0}, pairwise=pairwise)
    assert all(len(line) <= 48 for line in fg._wrap_note(note)), fg._wrap_note(note)


def test_on_three_blobs_mcpms_panel_says_its_pairwise_bound_covers_units_and_shows_the_collapse():
    """The issue's case: MCPM one-vs-one on three well-separated blobs at γ = 10 predicts one class on
    the whole map while α ≥ 0.80. The panel says what α is (pairwise, for cluster units, not points),
    shows each class's training accuracy beside it, and warns of the one-class map; at γ = 1 the same
    model is right on the training points, each class above α (the units' scale, as on two blobs)."""
    X, y = make_blobs(300, centers=3, random_state=1, cluster_std=0.8)
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y.astype(float), name="blobs"), "b", "none", "projection",
                                    "all", 1.0, 0, 0.0)
    grid = fg.grid_over(prep.X_view, 10)
    collapsed = pipeline.model_panel("MCPM", prep, grid, 1.0, 0.0, 0)  # γ = 10
    assert collapsed.alpha > 0.75 and min(collapsed.class_train_accuracy.values()) < 0.2
    for words in ("one-vs-one over 3 classes", "pairwise, for cluster units, not points", "train per class",
                  "one class on"):
        assert words in collapsed.note, collapsed.note
    sensible = pipeline.model_panel("MCPM", prep, grid, 0.0, 0.0, 0)  # γ = 1
    assert min(sensible.class_train_accuracy.values()) >= sensible.alpha > 0.75
    assert "one class on" not in sensible.note
