"""The guided lessons (kernelviz.lessons): their settings, their computed sentences, and their claims on the data."""

from __future__ import annotations

import functools
import re
import subprocess
import sys

import numpy as np
import pytest

from _charts import as_lists, figures
import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import lessons, registry
from kernelviz import state
from kernelviz.references import PAPERS
from kernelviz import pipeline  # the data and partition stages as the app runs them

pytestmark = pytest.mark.unit

ALL_STEPS = [(lesson.name, k) for lesson in lessons.LESSONS.values() for k in range(1, len(lesson.steps) + 1)]
#: Values a step may point at besides a panel (the names the views' tables and controls use).
VALUE_TARGETS = {"partition", "diagonal range", "test accuracy", "accuracy on hidden labels", "AUC", "best cell", "α"}
PARTITION_RESOLUTION = 90


# ============================================================================ the catalogue

def test_lessons_load_without_streamlit_or_scikit_learn():
    # the app's landing page lists the lessons: it must not wait for scikit-learn
    code = "import sys, kernelviz.lessons; print('streamlit' in sys.modules, 'sklearn' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False False"


def test_names_lists_rbf_basics_and_a_lesson_for_every_paper():
    assert lessons.names()[0] == "rbf-basics"
    assert {lessons.get(n).paper for n in lessons.names()} == set(PAPERS) | {None}


def test_an_unknown_lesson_is_refused_with_the_names_there_are():
    with pytest.raises(ValueError, match="no lesson 'rvm'.*rbf-basics, ckrbf, rwm, mcpm, cksvmnda"):
        lessons.get("rvm")


@pytest.mark.parametrize("name", lessons.names())
def test_every_lesson_has_four_to_eight_steps_and_cites_its_paper(name):
    lesson = lessons.get(name)
    assert lesson.name == name and lesson.title and lesson.summary
    assert 4 <= len(lesson.steps) <= 8
    if lesson.paper is None:
        assert lesson.citation() is None
    else:
        paper = PAPERS[lesson.paper]
        assert lesson.citation() == paper.citation()
        assert paper.authors in lesson.citation() and str(paper.year) in lesson.citation()


@pytest.mark.parametrize("name, k", ALL_STEPS)
def test_every_step_uses_the_apps_settings_and_points_at_something_on_its_page(name, k):
    step = lessons.get(name).step(k)
    assert step.view in state.VIEWS
    assert "view" not in step.settings  # the view is its own field
    for setting, value in step.settings.items():
        state.validate(setting, value)  # raises on an unknown name or a value the app would refuse
    applied = step.applied()
    assert applied["view"] == step.view
    assert set(applied) == set(state.defaults())
    shown = set(applied["kernels"]) | set(applied["models"])
    assert step.look_at.target in shown | VALUE_TARGETS, step.look_at.target
    assert step.look_at.sentence.endswith(".") and step.narrative.strip()
    if step.view in ("boundaries", "similarity", "kernel", "grid", "pf"):
        assert shown, "a view of kernels needs at least one kernel or model"


@pytest.mark.parametrize("name, k", ALL_STEPS)
def test_generator_parameters_of_a_step_are_ones_the_apps_widgets_keep(name, k):
    values = lessons.get(name).step(k).applied()
    clean, problems = pipeline.check_generator_params(values["generator"], values["gen_params"])
    assert problems == [] and clean == values["gen_params"]


def test_a_step_is_counted_from_one_and_a_missing_one_is_refused():
    lesson = lessons.get("rwm")
    assert lesson.step(1) is lesson.steps[0] and lesson.step(len(lesson.steps)) is lesson.steps[-1]
    for bad in (0, len(lesson.steps) + 1, True, 1.0):
        with pytest.raises(ValueError, match=f"steps 1 to {len(lesson.steps)}"):
            lesson.step(bad)


def test_a_step_with_a_setting_the_app_refuses_fails_to_apply():
    step = lessons.Step("t", "n", "boundaries", {"kernels": ["rbf", "svm"]}, lessons.LookAt("rbf", "x."))
    with pytest.raises(ValueError, match="unknown value"):
        step.applied()


def test_narratives_state_no_percentage_of_their_own():
    # Accuracies on the page come from explain(); a narrative may only quote a paper's figure.
    for name, k in ALL_STEPS:
        step = lessons.get(name).step(k)
        for sentence in re.split(r"(?<=\.) ", step.narrative):
            if "%" in sentence:
                assert "paper reports" in sentence, (name, k, sentence)


# ============================================================================ the sentences, in both orders

def accuracies(measure, **values):
    return {name: {measure: value} for name, value in values.items()}


def test_comparison_names_whichever_is_ahead_and_calls_a_small_gap_level():
    explain = lessons.comparison("rwm", "rbf", "hidden")
    assert explain(accuracies("hidden", rwm=0.912, rbf=0.612)) == (
        "On accuracy on hidden labels, RWM is ahead of RBF: 91.2% against 61.2% (30.0 points).")
    assert explain(accuracies("hidden", rwm=0.612, rbf=0.912)) == (
        "On accuracy on hidden labels, RBF is ahead of RWM: 91.2% against 61.2% (30.0 points).")
    assert explain(accuracies("hidden", rwm=0.880, rbf=0.888)) == (
        "On accuracy on hidden labels, RWM and RBF are level: 88.0% and 88.8%.")


def test_ranking_orders_best_first_whatever_the_input_order():
    explain = lessons.ranking(["rbf", "mrbf", "ckrbf"], "auc")
    sentence = explain(accuracies("auc", rbf=0.181, mrbf=0.187, ckrbf=0.230))
    assert sentence == ("P_f AUC, best first: CkRBF 0.230, Mahalanobis RBF 0.187, RBF 0.181 — CkRBF leads by 0.043.")
    sentence = explain(accuracies("auc", rbf=0.230, mrbf=0.187, ckrbf=0.181))
    assert sentence.startswith("P_f AUC, best first: RBF 0.230, Mahalanobis RBF 0.187, CkRBF 0.181 — RBF leads")
    sentence = explain(accuracies("auc", rbf=0.181, mrbf=0.187, ckrbf=0.188))
    assert sentence.endswith("— CkRBF and Mahalanobis RBF are level at the top.")
    assert explain(accuracies("auc", rbf=0.2, mrbf=0.201, ckrbf=0.199)).endswith("— all of them are level.")
    assert lessons.ranking(["rbf"], "best")(accuracies("best", rbf=0.888)) == (
        "Best cross-validated accuracy of RBF: 88.8%.")


def test_train_test_gap_follows_the_numbers():
    explain = lessons.train_test_gap("rbf")
    wide = explain({"rbf": {"train": 0.986, "test": 0.844}})
    assert "training accuracy 98.6%, test accuracy 84.4%" in wide and "14.2 points better" in wide
    assert "held-out points did better" in explain({"rbf": {"train": 0.844, "test": 0.986}})
    assert "The two are close" in explain({"rbf": {"train": 0.938, "test": 0.9}})


def test_support_share_says_many_or_few():
    explain = lessons.support_share("rbf")
    many = explain({"rbf": {"support_vectors": 210, "n_train": 210}})
    assert many.startswith("RBF: 210 of 210 training points (100%) are support vectors. Most points")
    few = explain({"rbf": {"support_vectors": 38, "n_train": 210}})
    assert few.startswith("RBF: 38 of 210 training points (18%) are support vectors. Only these points")


def test_scale_factor_says_larger_smaller_or_the_same():
    explain = lessons.scale_factor("ckrbf", "rbf")
    one = {"diagonal_min": 1.0, "diagonal_max": 1.0}
    larger = explain({"ckrbf": {"diagonal_min": 25.3, "diagonal_max": 40.8}, "rbf": one})
    assert "about 32.1 times larger" in larger and "roughly like a C 32.1 times larger" in larger
    smaller = explain({"ckrbf": {"diagonal_min": 0.01, "diagonal_max": 0.04}, "rbf": one})
    assert "about 50 times smaller" in smaller
    assert "about the same scale" in explain({"ckrbf": {"diagonal_min": 0.9, "diagonal_max": 1.2}, "rbf": one})


def test_worst_case_bound_compares_alpha_as_shown_with_the_test_accuracy():
    explain = lessons.worst_case_bound("MCPM")
    assert explain({"MCPM": {"alpha": 0.79, "test": 0.928}}).endswith("do at least as well as the bound promises.")
    assert "fall short of the bound" in explain({"MCPM": {"alpha": 0.79, "test": 0.62}})
    # the panel shows α = 0.79: a test accuracy of 79.0% is not short of it
    assert "at least as well" in explain({"MCPM": {"alpha": 0.7949, "test": 0.79}})


def test_a_missing_number_is_named():
    with pytest.raises(ValueError, match="reads the alpha of MCPM"):
        lessons.worst_case_bound("MCPM")({"MCPM": {"test": 0.9}})
    with pytest.raises(ValueError, match="reads the test accuracy of RWM"):
        lessons.comparison("rwm", "rbf", "test")({"rbf": {"test": 0.9}})


# ============================================================================ the claims, on the data

def boundary_panels(values, prep, partition):
    grid = fg.field_grid("decision", prep.X_view)
    panels = [pipeline.boundary_panel(n, pipeline.kernel_on_points(n, prep.X_model, partition, values["normalize"]), prep, grid,
                                   values["log_gamma"], values["log_C"]) for n in values["kernels"]]
    return panels + [pipeline.model_panel(n, prep, grid, values["log_gamma"], values["log_C"], values["partition_seed"])
                     for n in values["models"]]


def kernel_view(values, prep, partition):
    """The Kernel matrix view's points, fitted kernels at the step's γ, and results."""
    X, breaks = pipeline.gram_points(prep, partition)
    kernels = {n: pipeline.at_gamma(pipeline.kernel_on_points(n, prep.X_model, partition, values["normalize"]),
                                 10.0 ** values["log_gamma"]) for n in values["kernels"]}
    results = lessons.gram_results([pipeline.gram_summary(n, k(X), breaks) for n, k in kernels.items()])
    return X, kernels, results


LIGHT_STEPS = [(n, k) for n, k in ALL_STEPS if lessons.get(n).step(k).view not in ("grid", "pf")]


@pytest.mark.parametrize("name, k", LIGHT_STEPS)
def test_every_light_step_computes_and_its_sentence_can_be_written(name, k):
    step = lessons.get(name).step(k)
    values = step.applied()
    prep = pipeline.prepared(values)
    partition = pipeline.partition_of(values, prep)
    if step.view == "boundaries":
        panels = boundary_panels(values, prep, partition)
        results = lessons.boundary_results(panels)
        for panel in panels:
            alpha = re.search(r"α = (\d\.\d\d)", panel.note)
            if alpha:  # what the app must add for the α step: the bound its panel shows
                results[panel.name]["alpha"] = float(alpha.group(1))
    elif step.view == "kernel":
        results = kernel_view(values, prep, partition)[2]
    elif step.view == "similarity":
        grid = fg.field_grid("similarity", prep.X_view)
        for n in values["kernels"]:
            pipeline.similarity_panel(n, pipeline.kernel_on_points(n, prep.X_model, partition, values["normalize"]), prep, grid,
                                   values["log_gamma"], pipeline.default_reference(prep))
        results = {}
    else:
        results = {}
    if step.explain is not None:
        sentence = step.explain(results)
        assert sentence.endswith(".")


def test_rwm_with_one_label_per_class_beats_rbf_as_in_the_papers_fig1():
    from scipy import ndimage

    values = lessons.get("rwm").step(1).applied()
    prep = pipeline.prepared(values)
    panels = boundary_panels(values, prep, pipeline.partition_of(values, prep))
    results = lessons.boundary_results(panels)
    assert prep.train.sum() == 2 and prep.hidden.sum() == 798
    # independent: RBF on two labeled points is the perpendicular bisector, whatever γ and C
    a, b = prep.X_model[prep.train]
    ya, yb = prep.y[prep.train]
    nearer_a = ((prep.X_model - a) ** 2).sum(1) < ((prep.X_model - b) ** 2).sum(1)
    bisector = np.mean(np.where(nearer_a, ya, yb)[prep.hidden] == prep.y_true[prep.hidden])
    assert results["rbf"]["hidden"] == pytest.approx(bisector)
    assert results["rwm"]["hidden"] > results["rbf"]["hidden"] + 0.2
    assert lessons.get("rwm").step(1).explain(results).startswith("On accuracy on hidden labels, RWM is ahead of RBF")
    # "the ring RWM closes around the tight class": the region holding the centre touches no edge of the map
    grid = fg.field_grid("decision", prep.X_view)
    rwm = next(p for p in panels if p.name == "rwm").values.reshape(len(grid.ys), len(grid.xs))
    centre = (np.abs(grid.ys).argmin(), np.abs(grid.xs).argmin())
    regions, _ = ndimage.label((rwm > 0) == (rwm[centre] > 0))
    inner = regions == regions[centre]
    assert not (inner[0].any() or inner[-1].any() or inner[:, 0].any() or inner[:, -1].any())


def test_ckrbf_diagonal_is_its_cluster_normaliser_and_the_sentence_says_larger():
    step = lessons.get("ckrbf").step(2)
    values = step.applied()
    prep = pipeline.prepared(values)
    assert values["normalize"] == "paper"
    X, kernels, results = kernel_view(values, prep, pipeline.partition_of(values, prep))
    # independent: k(x, x) = det(2 Σ_c(x))^(−½) for CkRBF at the paper's scale, 1 for RBF
    ck = kernels["ckrbf"]
    normalisers = [np.linalg.det(2 * ck.covariances_[c]) ** -0.5 for c in np.unique(ck.partition_.predict(X))]
    assert results["ckrbf"]["diagonal_min"] == pytest.approx(min(normalisers), rel=1e-9)
    assert results["ckrbf"]["diagonal_max"] == pytest.approx(max(normalisers), rel=1e-9)
    assert results["rbf"]["diagonal_min"] == results["rbf"]["diagonal_max"] == pytest.approx(1.0)
    assert "times larger" in step.explain(results)


def test_lppk_on_two_points_is_rbf_times_a_constant_far_below_one_at_the_mcpm_steps_gamma():
    # MCPM lesson, step 2: "LPPK is an RBF kernel times (γ/π)^(d/2) — a constant far below 1 at this γ"
    values = lessons.get("mcpm").step(2).applied()
    gamma = 10.0 ** values["log_gamma"]
    X = np.random.default_rng(1).normal(size=(6, 2))
    lppk = kv.kernels.make("lppk", gamma=gamma).fit(X)(X)
    rbf = np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1))
    np.testing.assert_allclose(lppk / rbf, np.full((6, 6), gamma / np.pi), rtol=1e-10)
    assert gamma / np.pi < 0.1


def test_mcpm_bound_sentence_uses_the_alpha_of_the_model_the_panel_shows():
    step = lessons.get("mcpm").step(3)
    values = step.applied()
    prep = pipeline.prepared(values)
    panels = boundary_panels(values, prep, pipeline.partition_of(values, prep))
    results = lessons.boundary_results(panels)
    for name in ("MPM", "MCPM"):
        cls = kv.models.MODELS[name][0]
        params = {"gamma": 10.0 ** values["log_gamma"], "random_state": values["partition_seed"]}
        model = cls(**{k: v for k, v in params.items() if k in cls().get_params()})
        model.fit(prep.X_model[prep.train], prep.y[prep.train])
        shown = next(p for p in panels if p.name == name)
        assert f"α = {model.alpha_:.2f}" in shown.note
        results[name]["alpha"] = model.alpha_
    sentence = step.explain(results)
    for name in ("MPM", "MCPM"):
        said = "do at least as well" if results[name]["test"] >= round(results[name]["alpha"], 2) else "fall short"
        assert re.search(f"{name}'s worst-case bound is α = [0-9.]+, its test accuracy [0-9.]+%: the test points "
                         f"{said}", sentence)


def sign_regions(step):
    """Number of connected regions of the plane where the step's RBF SVM predicts one class."""
    from scipy import ndimage

    values = step.applied()
    prep = pipeline.prepared(values)
    panel = boundary_panels(values, prep, pipeline.partition_of(values, prep))[0]
    grid = fg.field_grid("decision", prep.X_view)
    positive = panel.values.reshape(len(grid.ys), len(grid.xs)) > 0
    return ndimage.label(positive)[1] + ndimage.label(~positive)[1]


def test_small_gamma_draws_one_smooth_boundary_and_large_gamma_draws_islands():
    # the RBF lesson's step titles: "a smooth boundary" (step 2) and "islands" (step 3)
    rbf = lessons.get("rbf-basics")
    assert sign_regions(rbf.step(2)) == 2
    assert sign_regions(rbf.step(3)) > 2


def test_on_pima_the_cluster_models_trail_the_plain_svm_as_the_step_title_says():
    step = lessons.get("mcpm").step(4)
    assert "do not help" in step.title
    values = step.applied()
    prep = pipeline.prepared(values)
    results = lessons.boundary_results(boundary_panels(values, prep, pipeline.partition_of(values, prep)))
    assert results["rbf"]["test"] > max(results["SCM"]["test"], results["MCPM"]["test"]) + lessons.LEVEL_ACCURACY
    assert step.explain(results).endswith(f"RBF leads by "
                                          f"{100 * (results['rbf']['test'] - results['MCPM']['test']):.1f} points.")


def test_psd_verdict_follows_the_views_verdict():
    explain = lessons.psd_verdict("rwm")
    broken = explain({"rwm": {"psd": False, "negative_eigenvalues": 91, "min_eigenvalue": -0.412}})
    assert broken.startswith("RWM's Gram matrix has 91 negative eigenvalues, the smallest -0.41: it is not positive")
    one = explain({"rwm": {"psd": False, "negative_eigenvalues": 1, "min_eigenvalue": -0.004}})
    assert "has 1 negative eigenvalue, the smallest" in one
    fine = explain({"rwm": {"psd": True, "negative_eigenvalues": 0, "min_eigenvalue": -3e-15}})
    assert fine.startswith("RWM's Gram matrix has no negative eigenvalue beyond rounding (smallest -3e-15)")
    with pytest.raises(ValueError, match="reads the psd of RWM"):
        explain({"rwm": {"min_eigenvalue": -0.4}})


def test_psd_verdict_says_a_theorem_covers_the_gaussian_kernels_and_none_covers_rwm():
    # the RWM lesson's step 3: "RBF and CkRBF are inner products of Gaussians, so their Gram matrices are
    # positive semi-definite on any points. Nothing like that is known for RWM"
    fine = {"psd": True, "negative_eigenvalues": 0, "min_eigenvalue": -3e-15}
    for name in ("rbf", "mrbf", "ckrbf"):
        sentence = lessons.psd_verdict(name)({name: fine})
        assert "no theorem" not in sentence and sentence.endswith("positive semi-definite on any points.")
    assert lessons.psd_verdict("rwm")({"rwm": fine}).endswith("though no theorem promises it.")


def test_psd_verdict_says_a_theorem_covers_lap_as_docs_math_says():
    # docs/MATH.md §4.7 and §7: with M = (γ_I/γ_A) Lᵖ positive semi-definite, LAP is the reproducing
    # kernel of the RBF space with the graph penalty added, so PSD in exact arithmetic. The lessons'
    # own list of theorem-PSD kernels (lessons.PSD_BY_THEOREM) left LAP out and told a learner that
    # no theorem promises it; the kernel's row in kernelviz.registry is now the one place that says.
    fine = {"psd": True, "negative_eigenvalues": 0, "min_eigenvalue": -3e-15}
    sentence = lessons.psd_verdict("lap")({"lap": fine})
    assert "no theorem" not in sentence and sentence.endswith("positive semi-definite on any points.")
    assert [n for n, facts in registry.KERNELS.items() if not facts.psd_proven] == ["gmm", "rwm"]


def test_rwm_step_two_says_what_its_panels_draw():
    """"its similarity is down to 0.1 about two units out, where RBF's is still above 0.6 … The grey
    circle is the wide Gaussian (1 Mahalanobis unit); the tight Gaussian's lies under the ×": the
    kernels' values around the reference point the view draws, and the mixture the panels draw."""
    step = lessons.get("rwm").step(2)
    values = step.applied()
    prep = pipeline.prepared(values)
    partition = pipeline.partition_of(values, prep)
    _, kernels, _ = kernel_view(values, prep, partition)
    assert "down to 0.1 about two units out, where RBF's is still above 0.6" in step.narrative
    ref = np.array(pipeline.default_reference(prep))
    directions = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    radii = np.linspace(0.05, 4, 400)
    for angle in directions:  # in every direction, where RWM's similarity first falls to 0.1
        ring = ref + radii[:, None] * np.array([np.cos(angle), np.sin(angle)])
        rwm = kernels["rwm"](ref[None], ring)[0]
        out = radii[np.argmax(rwm <= 0.1)]
        assert rwm.min() <= 0.1 and 1.6 <= out <= 2.5, (angle, out)
        # independent: RBF's value there, exp(-γ r²)
        assert np.exp(-kernels["rbf"].gamma * out ** 2) > 0.6
        assert kernels["rbf"](ref[None], ring[[np.argmax(rwm <= 0.1)]])[0, 0] == pytest.approx(
            np.exp(-kernels["rbf"].gamma * out ** 2))
    # the two Gaussians: a wide one (variance about 1.93, one unit ≈ 1.4 around the centre) and a tight
    # one (about 0.07: one unit ≈ 0.26, under the × marking the reference point)
    variances = sorted(float(np.sqrt(np.linalg.det(c))) for c in partition.covariances_)
    assert variances[0] == pytest.approx(0.07, rel=0.35) and variances[1] == pytest.approx(1.93, rel=0.2)
    assert all(np.hypot(*(m - ref)) < 0.3 for m in partition.means_)


def test_rwm_is_not_psd_on_the_fig1_data_as_its_step_shows():
    step = lessons.get("rwm").step(3)
    values = step.applied()
    prep = pipeline.prepared(values)
    X, kernels, results = kernel_view(values, prep, pipeline.partition_of(values, prep))
    grams = {n: k(X) for n, k in kernels.items()}
    # independent: the eigenvalues themselves
    assert np.linalg.eigvalsh(grams["rwm"]).min() == pytest.approx(results["rwm"]["min_eigenvalue"], abs=1e-9)
    assert np.linalg.eigvalsh(grams["rwm"]).min() < -0.1
    assert np.linalg.eigvalsh(grams["rbf"]).min() > -1e-9
    sentence = step.explain(results)
    assert "RBF's Gram matrix has no negative eigenvalue" in sentence and "no theorem" not in sentence
    assert "RWM's Gram matrix has" in sentence and "not positive semi-definite" in sentence


# ============================================================================ what "Look at" names is drawn

@functools.lru_cache(maxsize=None)
def step_figure(name: str, k: int) -> tuple[dict, list[str], dict]:
    """Step ``k`` of lesson ``name`` drawn as the app draws its view: (figure as a dict of lists, the
    panels' names in order, the view's results), from the step's settings through ``kernelviz.pipeline``."""
    figure, names, results = _step_figure(name, k)
    return as_lists(figure.to_dict()), names, results


def _step_figure(name: str, k: int):
    values = lessons.get(name).step(k).applied()
    prep = pipeline.prepared(values)
    partition = pipeline.partition_of(values, prep)
    view = values["view"]

    def kernel(n):
        return pipeline.fit_kernel(pipeline.KernelSpec.from_settings(n, values), prep, partition)

    if view == "boundaries":
        grid = fg.field_grid("decision", prep.X_view)
        panels = [pipeline.boundary_panel(n, kernel(n), prep, grid, values["log_gamma"], values["log_C"])
                  for n in values["kernels"]]
        panels += [pipeline.model_panel(n, prep, grid, values["log_gamma"], values["log_C"], values["partition_seed"],
                                     values["log_eta"], values["unit_kernel"]) for n in values["models"]]
        truth = np.where(prep.y_true == kv.data.UNLABELED, np.nan, prep.y_true)[prep.unlabeled]
        figure = fg.boundary_figure(panels, grid, X_unlabeled=prep.X_view[prep.unlabeled], y_unlabeled=truth,
                                    support_vectors=values["show_support"], margins=values["show_margins"],
                                    test_points=values["show_test"], class_names=prep.class_names)
        return figure, [p.name for p in panels], lessons.boundary_results(panels)
    if view == "similarity":
        reference = pipeline.default_reference(prep)  # the app's: the data point nearest the centre, on its inputs
        grid = fg.field_grid("similarity", prep.X_view, reference)
        panels = [pipeline.similarity_panel(n, kernel(n), prep, grid, values["log_gamma"], reference)
                  for n in values["kernels"]]
        figure = fg.similarity_figure(panels, grid, reference, prep.X_view, prep.y, prep.labeled,
                                      mode=values["sim_mode"], classes=prep.legend_classes)
        return figure, [p.name for p in panels], {}
    if view == "kernel":
        X, breaks = pipeline.gram_points(prep, partition)
        summaries = [pipeline.gram_summary(n, pipeline.at_gamma(kernel(n), 10.0 ** values["log_gamma"])(X), breaks)
                     for n in values["kernels"]]
        results = lessons.gram_results(summaries)
        for s in summaries:
            results[s.panel.name]["row"] = s.row
        return fg.gram_figure([s.panel for s in summaries]), values["kernels"], results
    if view == "partition":
        grid = fg.grid_over(prep.X_view, PARTITION_RESOLUTION)
        means, covariances = prep.view_gaussians(partition.means_, partition.covariances_)
        figure = fg.partition_figure(prep.X_view, prep.y, prep.labeled, means, covariances, grid,
                                     partition.predict_proba(prep.to_model(grid.points)),
                                     partition.predict_proba(prep.X_model), classes=prep.legend_classes)
        return figure, [], {}
    # the grid views: the searches shipped for the step, as the app takes them
    grids = {n: pipeline.grid_search(pipeline.KernelSpec.from_settings(n, values),
                                     pipeline.GridSpec.from_settings(values), prep, partition)
             for n in values["kernels"]}
    spec = pipeline.GridSpec.from_settings(values)
    log_Cs, log_gammas = np.array(spec.log_Cs), np.array(spec.log_gammas)
    table, alpha0, _, curves = pipeline.pf_curves({n: result.scores for n, (result, _) in grids.items()})
    if view == "grid":
        return fg.grid_search_figure(pipeline.grid_panels(grids, log_Cs, log_gammas), log_Cs, log_gammas), \
            values["kernels"], table
    return fg.pf_figure(curves, alpha0, {n: t["auc"] for n, t in table.items()}), [], table  # one plot, no panels


def panel_traces(figure: dict, index: int) -> list[dict]:
    axis = "x" if index == 0 else f"x{index + 1}"
    return [t for t in figure["data"] if t.get("xaxis", "x") == axis]


def panel_title(figure: dict, index: int) -> str:
    return figure["layout"]["annotations"][index]["text"]


def field(traces: list[dict]) -> np.ndarray:
    return np.asarray(next(t for t in traces if t["type"] == "heatmap")["z"], dtype=float)


def margins_drawn(traces):
    # the dashed f = ±1 contours, where the field reaches ±1 on more than a speck of the panel
    lines = [t for t in traces if t["type"] == "contour" and (t["contours"]["start"], t["contours"]["end"]) == (-1, 1)]
    return bool(lines) and np.mean(np.abs(field(traces)) >= 1) >= 0.01


def support_vectors_drawn(symbol):
    def drawn(traces):
        return any(symbol in np.atleast_1d(t["marker"]["symbol"]) for t in traces if t.get("legendgroup") == "sv")
    return drawn


def boundary_drawn(traces):
    # the f = 0 contour, on a field that takes both signs in the panel (the lessons' data have two classes)
    z = field(traces)
    lines = [t for t in traces if t["type"] == "contour" and (t["contours"]["start"], t["contours"]["end"]) == (0, 0)]
    return bool(lines) and np.any(z > 0) and np.any(z < 0)


def islands_drawn(traces):
    from scipy import ndimage

    positive = field(traces) > 0
    return ndimage.label(positive)[1] + ndimage.label(~positive)[1] > 2


def curves_drawn(traces):
    return any(t["type"] == "contour" or (t.get("mode") == "lines" and t.get("legendgroup") != "ellipses")
               for t in traces)


def shading_drawn(traces):
    # a filled contour (the similarity's shading) or a heatmap (a partition's regions)
    return any(t["type"] == "heatmap" or (t["type"] == "contour" and t["contours"].get("coloring", "fill") == "fill")
               for t in traces)


def named(symbol):
    def drawn(traces):
        return any(t.get("name") == symbol or symbol in np.atleast_1d((t.get("marker") or {}).get("symbol"))
                   for t in traces)
    return drawn


#: What a "Look at" sentence can name: its words, how the test sees it drawn in a panel, and whether every
#: panel the sentence is about must draw it (a boundary, a curve …) or one is enough (a ring, an ellipse …).
ELEMENTS = {
    "margins": (r"\bmargins?\b", margins_drawn, any),
    "rings": (r"\brings?\b", support_vectors_drawn(fg.FREE_SV_SYMBOL), any),
    "squares": (r"\bsquares?\b", support_vectors_drawn(fg.BOUNDED_SV_SYMBOL), any),
    "boundaries": (r"\bboundar(?:y|ies)\b|\bline f = 0\b", boundary_drawn, all),
    "islands": (r"\bislands?\b", islands_drawn, any),
    "ellipses": (r"\bellipses?\b", lambda traces: any(t.get("legendgroup") == "ellipses" for t in traces), any),
    "curves": (r"\bcurves?\b", curves_drawn, all),
    "shading": (r"\bshad(?:ing|ed)\b", shading_drawn, all),
    "cross": (r"\bcross\b", named("reference point"), any),
    "star": (r"★", named("star"), all),
}
#: What a sentence can name in a panel's title.
TITLE_ELEMENTS = {
    "α": (r"\bα\b", lambda title: "α = " in title, all),
    "note": (r"\bnote\b", lambda title: "one class on" in title, any),
}


def named_panels(sentence: str, names: list[str]) -> list[int]:
    """The panels a sentence names by their titles (longest first: "Mahalanobis RBF" is not "RBF")."""
    found, rest = [], sentence
    for index in sorted(range(len(names)), key=lambda i: -len(fg.kernel_label(names[i]))):
        pattern = rf"(?<![\w-]){re.escape(fg.kernel_label(names[index]))}(?![\w-])"
        if re.search(pattern, rest):
            found.append(index)
            rest = re.sub(pattern, " ", rest)
    return sorted(found)


@pytest.mark.parametrize("name, k", ALL_STEPS)
def test_what_a_steps_look_at_names_is_drawn_in_its_figure(name, k):
    step = lessons.get(name).step(k)
    figure, names, results = step_figure(name, k)
    sentence = step.look_at.sentence
    values = step.applied()
    if step.look_at.target in values["kernels"] + values["models"]:
        assert step.look_at.target in names, f"the step points at {step.look_at.target}, which its view does not draw"
    # the panels the sentence is about: those it names, else the one it points at, else all of them
    about = named_panels(sentence, names) or ([names.index(step.look_at.target)] if step.look_at.target in names
                                               else list(range(max(len(names), 1))))
    said = []
    for element, (words, drawn, each) in ELEMENTS.items():
        if re.search(words, sentence):
            said.append(element)
            assert each(drawn(panel_traces(figure, i) if names else figure["data"]) for i in about), (
                f"“{sentence}” names {element}, which the figure does not draw")
    if {"rings", "squares"} & set(said):  # the support vectors, by every symbol they are drawn with
        for element in ("rings", "squares"):
            assert element in said or not any(ELEMENTS[element][1](panel_traces(figure, i)) for i in about), (
                f"“{sentence}” leaves out the support vectors drawn as {element}")
    for element, (words, drawn, each) in TITLE_ELEMENTS.items():
        if re.search(words, sentence):
            said.append(element)
            assert each(drawn(panel_title(figure, i)) for i in about), (
                f"“{sentence}” names the {element} in a panel's title, which the titles do not hold")
    # what it names in the table: a number every panel of the view has
    measures = {"test accuracy": "test", "accuracy on hidden labels": "hidden", "AUC": "auc",
                "support-vector count": "support_vectors"}
    for words, measure in measures.items():
        if words in sentence or step.look_at.target == words:
            said.append(words)
            assert results and all(r.get(measure) is not None for r in results.values()), (name, k, words)
    for column in ("diagonal range", "PSD", "smallest eigenvalue"):  # the Kernel matrix view's table
        if column in sentence:
            said.append(column)
            assert results and all(column in r["row"] for r in results.values()), (name, k, column)
    assert said, f"“{sentence}” names nothing this test knows how to find on the page"


@pytest.mark.parametrize("name, k", ALL_STEPS)
def test_a_steps_link_opens_that_step(name, k):
    query = lessons.link(name, k)
    assert query == {"lesson": name, "step": str(k)}
    lesson, number = lessons.from_link(query)
    assert lesson is lessons.get(name) and number == k


def test_a_link_without_a_lesson_opens_none_and_without_a_step_opens_step_one():
    assert lessons.from_link({}) is None and lessons.from_link({"lesson": ""}) is None
    assert lessons.from_link({"lesson": "mcpm"}) == (lessons.get("mcpm"), 1)
    assert lessons.from_link({"lesson": ["rwm", "ckrbf"], "step": ["9", "2"]}) == (lessons.get("ckrbf"), 2)


def test_a_damaged_link_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="no lesson 'svm'"):
        lessons.from_link({"lesson": "svm"})
    with pytest.raises(ValueError, match="whole number from 1 to 4; got 'two'"):
        lessons.from_link({"lesson": "mcpm", "step": "two"})
    with pytest.raises(ValueError, match="steps 1 to 4; got step 5"):
        lessons.from_link({"lesson": "mcpm", "step": "5"})
    with pytest.raises(ValueError, match="steps 1 to 6; got step 0"):
        lessons.link("rbf-basics", 0)


# ============================================================================ in today's app, through a link

@pytest.mark.slow
@pytest.mark.parametrize("name, k", LIGHT_STEPS)
@pytest.mark.app
def test_every_light_step_draws_in_the_app_from_its_settings_link(name, k):
    from apptest import open_app  # here, so that importing this file does not import Streamlit

    step = lessons.get(name).step(k)
    at = open_app(state.encode(step.applied()))
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert figures(at), "the step's view drew no figure"
    # the app kept every setting the step applies (nothing was refused and reset); it may add its own,
    # such as the Similarity view's reference point
    kept = {key: value[-1] if isinstance(value, list) else value for key, value in dict(at.query_params).items()}
    applied = state.encode(step.applied())
    assert {key: kept.get(key) for key in applied} == applied


@pytest.mark.parametrize("step", ["٢", "２", "1_0", " 2", "2.0"])
def test_a_step_number_in_a_link_is_written_with_the_digits_0_to_9(step):
    """int() reads "٢", "２" and "1_0" too: a mangled link would open a step nobody wrote."""
    with pytest.raises(ValueError, match="whole number from 1 to 4"):
        lessons.from_link({"lesson": "mcpm", "step": step})
