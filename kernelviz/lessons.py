"""Guided lessons: a few steps through the app's views, each applying settings and saying what to look at.

A lesson walks through one idea — what γ and C do, or what one of the four source papers
(:mod:`kernelviz.references`) contributes — in 4–8 steps. A step is

- a short narrative in Markdown,
- the app settings it applies (names and values of :data:`kernelviz.state.SETTINGS`,
  applied on top of the defaults, like a preset, so a step reopens the same way every time),
- the view it opens (one of :data:`kernelviz.state.VIEWS`),
- what to look at (a panel or a value the view shows, and a sentence), and
- optionally ``explain(results)``: a sentence computed from the numbers the view shows.

The narratives never state a number or an ordering of this data's results: those come from
``explain``, so the text cannot contradict the page. ``results`` maps a panel's name (a kernel
or model name as in the settings, e.g. ``"rwm"``, ``"MCPM"``) to its measures:

============  ===================  ==========================================================
view          build results with   measures
============  ===================  ==========================================================
boundaries    boundary_results     ``train``, ``test``, ``hidden`` (accuracies or None),
                                   ``support_vectors`` (None for models without),
                                   ``n_train``; MCPM / MPM steps also read
                                   ``alpha``, the worst-case bound of the fitted model
kernel        gram_results         ``diagonal_min``, ``diagonal_max``, ``min_eigenvalue``,
                                   ``negative_eigenvalues``, ``psd`` (the view's verdict)
grid, pf      the ``table`` of     ``auc``, ``normalized_auc``, ``best``
              ``kv.evaluation
              .pf_auc``
============  ===================  ==========================================================

Nothing here imports Streamlit; the app renders a step and calls its ``explain``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kernelviz import registry, state
from kernelviz.figures import kernel_label
from kernelviz.references import PAPERS

#: A view's numbers, as ``explain`` reads them: panel name → measure → value.
Results = Mapping[str, Mapping[str, Any]]

#: Accuracies closer than this (one percentage point) are called level: a single test point
#: is worth about one point on the data sets of these lessons, so a smaller gap says nothing.
LEVEL_ACCURACY = 0.01
#: P_f AUCs closer than this are called level (the AUC is a mean of accuracy excesses, so
#: 0.005 is half a point of accuracy averaged over the grid).
LEVEL_AUC = 0.005
#: Training accuracy this far above test accuracy is called over-fitting in the RBF lesson.
OVERFIT_GAP = 0.05


# ============================================================================ the lesson objects

@dataclass(frozen=True)
class LookAt:
    """What to look at on a step's page: a panel (kernel or model name) or a value the view shows."""

    target: str
    sentence: str

    @property
    def label(self) -> str:
        """The target as the page names it: a panel by its title ("RWM", not "rwm"), a value by its own name."""
        panel = self.target in registry.KERNELS or self.target in registry.MODELS
        return kernel_label(self.target) if panel else self.target


@dataclass(frozen=True)
class Step:
    """One page of a lesson. ``settings`` uses the names and values of ``kernelviz.state``."""

    title: str
    narrative: str
    view: str
    settings: Mapping[str, Any]
    look_at: LookAt
    explain: Callable[[Results], str] | None = None

    def applied(self) -> dict[str, Any]:
        """Every app setting as this step leaves it: the defaults overlaid with the step's settings and view.

        Raises
        ------
        ValueError
            When a setting's name or value is not one the app accepts.
        """
        values = state.apply_preset(self)  # reads only ``.settings``: a step applies like a preset
        values["view"] = state.validate("view", self.view)
        return values


@dataclass(frozen=True)
class Lesson:
    """A titled sequence of steps; ``paper`` is a key of ``kernelviz.references.PAPERS`` or None."""

    name: str
    title: str
    paper: str | None
    summary: str
    steps: tuple[Step, ...]

    def citation(self) -> str | None:
        """The source paper as a person would cite it (authors, title, venue, year), or None."""
        return PAPERS[self.paper].citation() if self.paper else None

    def step(self, number: int) -> Step:
        """Step ``number``, counted from 1 as in the app's link (``?lesson=NAME&step=K``).

        Raises
        ------
        ValueError
            When there is no such step.
        """
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 1 <= number <= len(self.steps):
            raise ValueError(f"The lesson {self.name!r} has steps 1 to {len(self.steps)}; got step {number!r}.")
        return self.steps[number - 1]


# ============================================================================ results from the views

def boundary_results(panels: Sequence) -> dict[str, dict[str, Any]]:
    """The Decision boundaries view's numbers, from its ``figures.BoundaryPanel`` list.

    ``alpha`` is the worst-case bound of MPM / MCPM (``BoundaryPanel.alpha``; None for the others).
    """
    return {p.name: {"train": p.train_accuracy, "test": p.test_accuracy, "hidden": p.hidden_accuracy,
                     "support_vectors": None if p.support is None else len(p.support),
                     "n_train": len(p.X_train), "alpha": p.alpha}
            for p in panels}


def gram_results(summaries: Sequence) -> dict[str, dict[str, float]]:
    """The Kernel matrix view's numbers, from its ``views.GramSummary`` list."""
    out = {}
    for s in summaries:
        diagonal = np.diag(s.panel.K)
        out[s.panel.name] = {"diagonal_min": float(diagonal.min()), "diagonal_max": float(diagonal.max()),
                             "min_eigenvalue": float(np.min(s.eigenvalues)),
                             "negative_eigenvalues": int(s.row["negative eigenvalues"]), "psd": s.row["PSD"] == "yes"}
    return out


# ============================================================================ sentences from numbers

def _value(results: Results, name: str, measure: str) -> Any:
    value = results.get(name, {}).get(measure)
    if value is None:
        what = _MEASURES[measure][0] if measure in _MEASURES else measure.replace("_", " ")
        raise ValueError(f"This lesson step reads the {what} of {kernel_label(name)}, "
                         f"which the view's results do not hold: show {kernel_label(name)} in the view.")
    return value


def _measure(results: Results, name: str, measure: str) -> float:
    return float(_value(results, name, measure))


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


#: Measure → (how a sentence names it, how a value is written, when two values are level).
_MEASURES = {
    "train": ("training accuracy", _percent, LEVEL_ACCURACY),
    "test": ("test accuracy", _percent, LEVEL_ACCURACY),
    "hidden": ("accuracy on hidden labels", _percent, LEVEL_ACCURACY),
    "best": ("best cross-validated accuracy", _percent, LEVEL_ACCURACY),
    "auc": ("P_f AUC", "{:.3f}".format, LEVEL_AUC),
}


def ranking(names: Sequence[str], measure: str) -> Callable[[Results], str]:
    """An ``explain`` that orders ``names`` by ``measure``, best first, and says which are level with the best."""
    what, fmt, level = _MEASURES[measure]

    def explain(results: Results) -> str:
        values = {name: _measure(results, name, measure) for name in names}
        if len(names) == 1:
            return f"{what[0].upper() + what[1:]} of {kernel_label(names[0])}: {fmt(values[names[0]])}."
        order = sorted(names, key=lambda n: -values[n])
        listed = ", ".join(f"{kernel_label(n)} {fmt(values[n])}" for n in order)
        top = values[order[0]]
        leaders = [n for n in order if top - values[n] < level]
        if len(leaders) == len(order):
            verdict = "all of them are level"
        elif len(leaders) > 1:
            verdict = f"{_joined(leaders)} are level at the top"
        else:
            verdict = f"{kernel_label(order[0])} leads by {_gap(top - values[order[1]], measure)}"
        return f"{what[0].upper() + what[1:]}, best first: {listed} — {verdict}."

    return explain


def comparison(first: str, second: str, measure: str) -> Callable[[Results], str]:
    """An ``explain`` saying whether ``first`` is ahead of, level with or behind ``second`` on ``measure``."""
    what, fmt, level = _MEASURES[measure]

    def explain(results: Results) -> str:
        a, b = _measure(results, first, measure), _measure(results, second, measure)
        A, B = kernel_label(first), kernel_label(second)
        if abs(a - b) < level:
            return f"On {what}, {A} and {B} are level: {fmt(a)} and {fmt(b)}."
        ahead, behind, high, low = (A, B, a, b) if a > b else (B, A, b, a)
        return f"On {what}, {ahead} is ahead of {behind}: {fmt(high)} against {fmt(low)} ({_gap(high - low, measure)})."

    return explain


def _gap(difference: float, measure: str) -> str:
    if _MEASURES[measure][1] is _percent:
        return f"{100 * difference:.1f} points"
    return f"{difference:.3f}"


def _joined(names: Sequence[str]) -> str:
    labels = [kernel_label(n) for n in names]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def train_test_gap(name: str) -> Callable[[Results], str]:
    """An ``explain`` comparing a panel's training and test accuracy (is the gap over :data:`OVERFIT_GAP`?)."""

    def explain(results: Results) -> str:
        train, test = _measure(results, name, "train"), _measure(results, name, "test")
        numbers = f"{kernel_label(name)}: training accuracy {_percent(train)}, test accuracy {_percent(test)}"
        if train - test > OVERFIT_GAP:
            return (f"{numbers}. The SVM does {_gap(train - test, 'test')} better on the points it was trained on "
                    "than on held-out ones: part of what it learnt does not carry over to new points.")
        if test - train > OVERFIT_GAP:
            return f"{numbers}. The held-out points did better than the training points here."
        return f"{numbers}. The two are close: what the SVM learnt carries over to new points."

    return explain


def support_share(name: str) -> Callable[[Results], str]:
    """An ``explain`` saying how many training points are support vectors, and what that means for the margin."""

    def explain(results: Results) -> str:
        count, n = _measure(results, name, "support_vectors"), _measure(results, name, "n_train")
        share = count / n
        text = f"{kernel_label(name)}: {count:.0f} of {n:.0f} training points ({share:.0%}) are support vectors"
        if share > 0.5:
            return text + (". Most points sit on or inside the margin: with mistakes this cheap, the SVM prefers a "
                           "wide, soft margin held up by many points.")
        return text + (". Only these points hold the boundary in place: moving any other training point a "
                       "little would not change it.")

    return explain


def scale_factor(name: str, reference: str) -> Callable[[Results], str]:
    """An ``explain`` comparing a kernel's diagonal k(x, x) with a reference kernel's (RBF: exactly 1)."""

    def explain(results: Results) -> str:
        lo, hi = _measure(results, name, "diagonal_min"), _measure(results, name, "diagonal_max")
        ref_lo, ref_hi = _measure(results, reference, "diagonal_min"), _measure(results, reference, "diagonal_max")
        factor = np.sqrt(lo * hi) / np.sqrt(ref_lo * ref_hi)
        own = f"{kernel_label(name)}'s k(x, x) runs from {lo:.3g} to {hi:.3g}"
        other = f"{kernel_label(reference)}'s from {ref_lo:.3g} to {ref_hi:.3g}"
        if 1 / 1.5 < factor < 1.5:
            return f"{own}, {other}: the two kernels work on about the same scale here."
        size = "larger" if factor > 1 else "smaller"
        times = factor if factor > 1 else 1 / factor
        return (f"{own}, {other}: {kernel_label(name)}'s values are about {times:.3g} times {size}, which acts "
                f"roughly like a C {times:.3g} times {size} for its SVM.")

    return explain


def worst_case_bound(name: str) -> Callable[[Results], str]:
    """An ``explain`` setting a minimax model's bound α against the accuracy it reaches on test points."""

    def explain(results: Results) -> str:
        # α as the panel shows it (two decimals), so the verdict agrees with what the reader compares
        alpha, test = round(_measure(results, name, "alpha"), 2), _measure(results, name, "test")
        numbers = f"{kernel_label(name)}'s worst-case bound is α = {alpha:.2f}, its test accuracy {_percent(test)}"
        if test >= alpha:
            return f"{numbers}: the test points do at least as well as the bound promises."
        return (f"{numbers}: the test points fall short of the bound. α is a promise about distributions with the "
                "fitted (and regularised) means and covariances, not about these points.")

    return explain


def psd_verdict(name: str) -> Callable[[Results], str]:
    """An ``explain`` reading the Kernel matrix view's verdict on a kernel's positive semi-definiteness
    (and, when the view finds it PSD, whether a theorem said so beforehand: the kernel's ``psd_proven``
    in ``kernelviz.registry``)."""

    def explain(results: Results) -> str:
        smallest = _measure(results, name, "min_eigenvalue")
        if _value(results, name, "psd"):
            found = (f"{kernel_label(name)}'s Gram matrix has no negative eigenvalue beyond rounding (smallest "
                     f"{smallest:.2g})")
            if registry.kernel(name).psd_proven:
                return f"{found}, as a theorem guarantees: it is positive semi-definite on any points."
            return f"{found}: positive semi-definite on these points, though no theorem promises it."
        count = _measure(results, name, "negative_eigenvalues")
        return (f"{kernel_label(name)}'s Gram matrix has {count:.0f} negative eigenvalue{'s' if count != 1 else ''}, "
                f"the smallest {smallest:.2g}: it is not positive semi-definite on these points, so the SVM's "
                "problem is no longer guaranteed convex; libsvm still returns a solution.")

    return explain


def together(*explains: Callable[[Results], str]) -> Callable[[Results], str]:
    """An ``explain`` that says what each of ``explains`` says, one after the other."""

    def explain(results: Results) -> str:
        return " ".join(e(results) for e in explains)

    return explain


# ============================================================================ the lessons

_MOONS_NOISY = {"source": "generator", "generator": "moons", "gen_params": {"noise": 0.3}, "kernels": ["rbf"]}

RBF_BASICS = Lesson(
    name="rbf-basics",
    title="What γ and C do",
    paper=None,
    summary="An RBF kernel SVM on two noisy half-moons: how the width γ and the penalty C shape the boundary, "
            "and why they are tuned together.",
    steps=(
        Step(
            "One round bump per point",
            "The RBF kernel k(x, y) = exp(−γ‖x − y‖²) scores two points by how close they are, the same way "
            "in every direction and everywhere in the plane. Around the cross the shading is round; "
            "**γ** sets how fast the similarity falls off — a large γ means a narrow bump.",
            "similarity",
            {**_MOONS_NOISY, "sim_mode": "similarity", "log_gamma": 0.0},
            LookAt("rbf", "The shading around the cross: round, and the same shape wherever you click."),
        ),
        Step(
            "Small γ: wide bumps, a smooth boundary",
            "With γ = 0.01 every training point's bump covers the whole picture, so the decision function — a "
            "weighted sum of bumps — can only bend gently. The boundary is a gentle curve that cannot follow "
            "the moons' hooks.",
            "boundaries",
            {**_MOONS_NOISY, "log_gamma": -2.0, "log_C": 0.0},
            LookAt("rbf", "The solid line f = 0 and the accuracies in the table under the plot."),
            train_test_gap("rbf"),
        ),
        Step(
            "Large γ: narrow bumps, islands",
            "With γ = 100 each bump is tiny: the decision function is a sum of narrow spikes, and the SVM can "
            "wrap its boundary around single points. Compare the training accuracy with the test accuracy "
            "(held-out points, drawn hollow).",
            "boundaries",
            {**_MOONS_NOISY, "log_gamma": 2.0, "log_C": 0.0},
            LookAt("rbf", "Small islands of one class inside the other, and training vs test accuracy."),
            train_test_gap("rbf"),
        ),
        Step(
            "Small C: mistakes are cheap",
            "C is the price of a training point on the wrong side of its margin. With C ≈ 0.3 (log₁₀ C = −0.5) "
            "mistakes cost little, so the SVM keeps the margin wide and lets many points inside it. Every such "
            "point is a support vector whose weight α has reached its cap C, drawn as a square; the support "
            "vectors exactly on the margin have a smaller α and are drawn as rings.",
            "boundaries",
            # not smaller: at C = 0.01 the whole picture lies inside the margin (|f| < 1 everywhere), so
            # no dashed line is drawn and every training point is a square
            {**_MOONS_NOISY, "log_gamma": 0.0, "log_C": -0.5},
            LookAt("rbf", "The dashed margins f = ±1 around each class, the squares inside them and the rings on "
                          "them, and the support-vector count."),
            support_share("rbf"),
        ),
        Step(
            "Large C: mistakes are expensive",
            "With C = 1000 the SVM bends the boundary and narrows the margin to classify as many training "
            "points correctly as it can. Compare the number of support vectors with the previous step's.",
            "boundaries",
            {**_MOONS_NOISY, "log_gamma": 0.0, "log_C": 3.0},
            LookAt("rbf", "The margins pulled in close to the boundary, and the support-vector count."),
            support_share("rbf"),
        ),
        Step(
            "γ and C together: the grid",
            "Neither parameter has a best value on its own: a wider bump (small γ) needs a larger C to bend as "
            "much. The grid search scores every (γ, C) pair by cross-validation; good cells often line up along a "
            "diagonal, and the Keerthi–Lin path searches along a line of slope −1 instead of the whole grid. "
            "The grid search (49 cells × 5 folds) comes computed in advance; change a grid setting and it runs anew.",
            "grid",
            {**_MOONS_NOISY},
            LookAt("rbf", "The ★ best cell and the good cells around it."),
            ranking(["rbf"], "best"),
        ),
    ),
)


_IRIS = {"source": "sample", "sample": "iris-2class", "scaling": "minmax", "fit_on": "projection",
         "partition": "kmeans", "n_components": 2, "kernels": ["rbf", "mrbf", "ckrbf"], "log_gamma": 1.0}
_FOURCLASS = {"source": "sample", "sample": "fourclass", "scaling": "minmax", "partition": "kmeans",
              "n_components": 2, "kernels": ["rbf", "mrbf", "ckrbf"]}

CKRBF = Lesson(
    name="ckrbf",
    title="CkRBF: each point borrows its cluster's shape",
    paper="ckrbf",
    summary="The cluster-based RBF kernel from k-means clusters to level curves and boundaries, and what its "
            "P_f(α) lead on fourclass is made of.",
    steps=(
        Step(
            "A partition of the data",
            "CkRBF starts without labels: k-means cuts the data into clusters (here two, the paper's default, on "
            "the first two Iris species). Each cluster gets its own covariance matrix Σ — the ellipses show them "
            "at 1, 2 and 3 Mahalanobis units.",
            "partition",
            _IRIS,
            LookAt("partition", "The two shaded regions and the shape of each cluster's ellipses."),
        ),
        Step(
            "Covariances set the kernel's size",
            "CkRBF treats x as a Gaussian shaped like its cluster's Σₓ and measures the overlap of two such "
            "Gaussians: k(x, y) = det(Σₓ + Σᵧ)^(−½) · exp(−γ (x − y)ᵀ(Σₓ + Σᵧ)⁻¹(x − y)). The determinant in front "
            "is not 1: small clusters make it large. Every value of the kernel, k(x, x) included, carries it.",
            "kernel",
            _IRIS,
            LookAt("diagonal range", "The diagonal range column of the table: k(x, x) for each kernel."),
            scale_factor("ckrbf", "rbf"),
        ),
        Step(
            "Level curves follow the cluster",
            "Around the cross, RBF draws circles; Mahalanobis RBF stretches them along the covariance of all the "
            "data; CkRBF stretches them along the covariance of the cross's own cluster. Click a point of the "
            "other cluster and the CkRBF curves change shape, the others do not.",
            "similarity",
            _IRIS,
            LookAt("ckrbf", "The CkRBF panel's curves against the grey ellipse of the cluster under the cross."),
        ),
        Step(
            "Boundaries on fourclass",
            "Fourclass, the paper's two-dimensional benchmark, scaled to [0, 1] as in the paper. At one (γ, C) "
            "the three kernels draw different boundaries; a single cell says little about which kernel is "
            "better, which is why the paper compares whole grids.",
            "boundaries",
            {**_FOURCLASS, "log_gamma": 1.0, "log_C": 0.0},
            LookAt("test accuracy", "The test-accuracy column of the table."),
            ranking(["rbf", "mrbf", "ckrbf"], "test"),
        ),
        Step(
            "P_f(α) at the paper's scale",
            "The paper's measure of how easy a kernel is to tune: P_f(α) is the share of grid cells whose "
            "cross-validated accuracy reaches α, and its area (AUC, from α₀ = the worst score of all grids) sums "
            "it up. The three grid searches (3 × 49 cells × 5 folds) come computed in advance. The plot also "
            "shows CkRBF at the unit scale as a curve of its own; the next step shows why it lies elsewhere.",
            "pf",
            {**_FOURCLASS, "normalize": "paper"},
            LookAt("AUC", "The AUC column of the table and the curves' order."),
            ranking(["rbf", "mrbf", "ckrbf"], "auc"),
        ),
        Step(
            "The grids at unit scale — why the curve moves",
            "Multiplying a kernel by a constant c changes nothing but the meaning of C: the SVM with c·k and C is "
            "the SVM with k and c·C. CkRBF's determinant factor is nearly such a constant on this data: at the "
            "paper's scale every cell of CkRBF's grid really has c times its C. The unit scale divides that "
            "constant out, so its good cells sit log₁₀ c further along the C axis, and the part of them the "
            "grid holds changes — which is what moved CkRBF's P_f(α) curve in the previous step. Here are the "
            "searches behind the unit-scale curve, one heatmap per kernel (computed in advance); RBF and "
            "Mahalanobis RBF have no such factor, and their grids are those of the previous step.",
            "grid",
            {**_FOURCLASS, "normalize": "unit"},
            LookAt("ckrbf", "CkRBF's ★ best cell and its good cells along the C axis, beside RBF's."),
            ranking(["rbf", "mrbf", "ckrbf"], "auc"),
        ),
    ),
)

_FIG1 = {"source": "generator", "generator": "concentric", "scaling": "none", "label_how": "per_class",
         "label_per_class": 1, "label_seed": 4, "partition": "gmm", "n_components": 2, "kernels": ["rbf", "rwm"],
         "log_gamma": 0.0, "log_C": 1.0, "test_fraction": 0.0}

RWM = Lesson(
    name="rwm",
    title="RWM: distances measured by the Gaussians a point belongs to",
    paper="rwm",
    summary="The responsibility-weighted Mahalanobis kernel with one label per class, its level curves next to "
            "RBF, Mahalanobis and GMM distances, LapSVM beside it, and a fully labeled benchmark.",
    steps=(
        Step(
            "One label per class (the paper's Fig. 1)",
            "A tight Gaussian class sits inside a wide one, and only one point of each class has a label. RBF "
            "knows nothing but those two points, so its boundary is the straight bisector between them. RWM "
            "first fits a two-component mixture to all 800 points — no labels needed — and measures distances "
            "with it. The paper reports about 60% for RBF against 91% for RWM; here the accuracy is measured on "
            "the 798 points whose labels were hidden.",
            "boundaries",
            _FIG1,
            LookAt("accuracy on hidden labels", "The closed boundary RWM draws around the tight class, and the "
                                                "table's accuracy on hidden labels."),
            comparison("rwm", "rbf", "hidden"),
        ),
        Step(
            "Why the ring: level curves around the centre",
            "The same data, now each kernel's similarity to the point at the centre, at γ = 0.1. RBF's "
            "similarity fades slowly, the same way in every direction. RWM weighs each mixture component's "
            "Mahalanobis distance by how responsible that component is for the two points, so near the centre "
            "it counts distance in the tight Gaussian's small units (variance 0.07, against 1.93 for the wide "
            "one): its similarity is down to 0.1 about two units out, where RBF's is still above 0.6. Two points "
            "on either side of the tight class's edge are far apart for RWM, and its boundary can close around "
            "that class: the ring of the previous step. The grey circle is the wide Gaussian (1 Mahalanobis "
            "unit); the tight Gaussian's lies under the ×.",
            "similarity",
            {**_FIG1, "sim_mode": "similarity", "log_gamma": -1.0},
            LookAt("rwm", "The RWM panel's shading, gone about two units from the ×, where RBF's is still dark."),
        ),
        Step(
            "Not a proven kernel",
            "RBF and CkRBF are inner products of Gaussians, so their Gram matrices are positive semi-definite on "
            "any points. Nothing like that is known for RWM: mixing Mahalanobis distances with weights that "
            "depend on both points can break it. The Kernel matrix view computes the eigenvalues of each Gram "
            "matrix on the Fig. 1 data.",
            "kernel",
            _FIG1,
            LookAt("rwm", "RWM's row of the table: PSD, its smallest eigenvalue and how many are negative."),
            together(psd_verdict("rbf"), psd_verdict("rwm")),
        ),
        Step(
            "Four measures side by side (Fig. 3)",
            "Two elongated Gaussians and four ways to measure distance from the cross: Euclidean (RBF), one "
            "Mahalanobis metric for all data, the GMM distance (components weighted by their size), and RWM "
            "(components weighted by their responsibility for the two points compared). The paper observes that "
            "between the Gaussians RWM's curves lie closer together than the GMM distance's: put the cross "
            "there and check.",
            "similarity",
            {"source": "generator", "generator": "anisotropic", "partition": "gmm", "n_components": 2,
             "kernels": ["rbf", "mrbf", "gmm", "rwm"], "sim_mode": "dissimilarity"},
            LookAt("rwm", "How far apart the level curves are in the RWM and GMM distance panels."),
        ),
        Step(
            "Sizes and weights distort the curves (Figs. 4–5)",
            "With several Gaussians of different sizes and weights, RWM's level curves bend wherever the "
            "responsible component changes: a wide component stretches distances less than a tight one. With "
            "equal round components RWM would be the Euclidean distance again (the test suite checks this). "
            "Click around the plane to watch the curves bend.",
            "similarity",
            {"source": "generator", "generator": "mixture", "partition": "gmm", "n_components": 8,
             "kernels": ["rbf", "gmm", "rwm"], "sim_mode": "dissimilarity"},
            LookAt("rwm", "The RWM curves bending between the grey ellipses, where RBF's stay round."),
        ),
        Step(
            "LapSVM next to RWM, four labels per class",
            "The paper's semi-supervised protocol: only four points per class keep their label, chosen in dense "
            "regions, and the kernels' unsupervised parts see every point. The Laplacian SVM (LAP) uses a "
            "nearest-neighbour graph instead of a mixture, so it can follow non-convex shapes such as the moons.",
            "boundaries",
            {"source": "generator", "generator": "moons", "label_how": "dense_per_class", "label_per_class": 4,
             "partition": "vi", "n_components": 8, "kernels": ["rbf", "lap", "gmm", "rwm"], "log_C": 1.0,
             "test_fraction": 0.0},
            LookAt("accuracy on hidden labels", "The table's accuracy on hidden labels, one row per kernel."),
            ranking(["rbf", "lap", "gmm", "rwm"], "hidden"),
        ),
        Step(
            "Every label known: Ripley's data",
            "With all labels, the unlabeled points have nothing left to teach, and a data-dependent kernel has "
            "to win on shape alone. The grid search compares RBF and RWM on the whole (γ, C) grid, as the "
            "paper does with 5-fold cross-validation. The two grid searches come computed in advance.",
            "grid",
            {"source": "sample", "sample": "ripley", "partition": "vi", "n_components": 6,
             "kernels": ["rbf", "rwm"]},
            LookAt("best cell", "The ★ best cell of each heatmap and its score."),
            comparison("rwm", "rbf", "best"),
        ),
    ),
)

_MIXTURE = {"source": "generator", "generator": "mixture", "scaling": "zscore", "log_gamma": -1.0, "log_C": 1.0}

MCPM = Lesson(
    name="mcpm",
    title="MCPM: clusters as training examples",
    paper="mcpm",
    summary="Support Cluster Machine and Minimax Clustering Probability Machine: each class cut into clusters, "
            "clusters compared as Gaussians (LPPK, RBF-PPK), and the worst-case accuracy bound α.",
    steps=(
        Step(
            "Clusters as units",
            "SCM and MCPM never train on single points: each class is cut into clusters (k-means), and each "
            "cluster becomes a Gaussian — a mean and a covariance. By default SCM cuts each class into 5 clusters "
            "and MCPM into 15, so they train on 10 or 30 Gaussians instead of hundreds of points; a test point "
            "becomes a Gaussian too, the point blurred by a bandwidth.",
            "boundaries",
            {**_MIXTURE, "kernels": ["rbf"], "models": ["SCM", "MCPM"]},
            LookAt("test accuracy", "The three boundaries, and the test-accuracy column."),
            ranking(["rbf", "SCM", "MCPM"], "test"),
        ),
        Step(
            "LPPK and RBF-PPK",
            "Two Gaussians are compared by the integral of their product (LPPK). Between two points blurred into "
            "small Gaussians, LPPK is an RBF kernel times (γ/π)^(d/2) — a constant far below 1 at this γ, which "
            "acts like a much smaller C. RBF-PPK puts an RBF on the distance between the Gaussians in LPPK's "
            "feature space, so every unit is similar to itself with value 1 again. Here both are used as plain "
            "SVM kernels on points.",
            "boundaries",
            {**_MIXTURE, "kernels": ["rbf", "lppk", "rbf-ppk"]},
            LookAt("test accuracy", "LPPK's boundary against RBF-PPK's, and their test accuracies."),
            ranking(["rbf", "lppk", "rbf-ppk"], "test"),
        ),
        Step(
            "The worst-case bound α",
            "The minimax probability machine chooses the boundary that maximises α, the accuracy it can promise "
            "for any distributions with the classes' means and covariances. MPM does this with one mean and "
            "covariance per class and a straight line; MCPM in the feature space of the cluster Gaussians.",
            "boundaries",
            {**_MIXTURE, "kernels": [], "models": ["MPM", "MCPM"]},
            LookAt("α", "The worst-case bound α in each panel's title, and the test accuracies."),
            together(worst_case_bound("MPM"), worst_case_bound("MCPM")),
        ),
        Step(
            "Pima diabetes: where clusters do not help",
            "The paper reports SCM and MCPM with RBF-PPK at 74.1% and 74.5% on Pima diabetes data, which it "
            "describes as 7,400 samples with 20 attributes — not the 768 × 8 UCI file bundled here. On the UCI "
            "file, all eight features z-scored and the models' default cluster counts, compare the cluster "
            "models with a plain RBF SVM on the same split.",
            "boundaries",
            {"source": "sample", "sample": "diabetes", "fit_on": "full", "kernels": ["rbf"],
             "models": ["SCM", "MCPM"], "log_gamma": -1.0, "log_C": 0.0},
            LookAt("test accuracy", "The test-accuracy column, and the note on a panel that predicts one class."),
            ranking(["rbf", "SCM", "MCPM"], "test"),
        ),
    ),
)

_MOONS_CKS = {"source": "generator", "generator": "moons", "gen_params": {"noise": 0.3}}

CKSVMNDA = Lesson(
    name="cksvmnda",
    title="CKSVMNDA: an SVM with a discriminant's sense of spread",
    paper="cksvmnda",
    summary="The SVM looks at its support vectors only; kernel Fisher and nonparametric discriminants look at "
            "how each class spreads. CKSVMNDA adds the second to the first, weighted by η.",
    steps=(
        Step(
            "The SVM: only the margin counts",
            "An SVM's boundary is fixed by its support vectors alone — the points on or inside the margin. How "
            "the rest of each class is spread does not enter.",
            "boundaries",
            {**_MOONS_CKS, "kernels": ["rbf"]},
            LookAt("rbf", "The support vectors, rings and squares: the only points that shape the boundary."),
            support_share("rbf"),
        ),
        Step(
            "KFD: the whole class's spread",
            "The kernel Fisher discriminant looks at every point: it chooses the direction (in the kernel's "
            "feature space) along which the class means are far apart relative to the spread within each class. "
            "That is global information, but a far-away part of a class pulls on it as much as the points near "
            "the other class.",
            "boundaries",
            {**_MOONS_CKS, "kernels": ["rbf"], "models": ["KFD"]},
            LookAt("test accuracy", "KFD's boundary against the SVM's (the RBF panel), and their test accuracies."),
            comparison("KFD", "rbf", "test"),
        ),
        Step(
            "KNDA: spread near the boundary",
            "The kernel nonparametric discriminant replaces the distance between class means by distances "
            "between each point and its nearest neighbours of the other class, weighted towards points near the "
            "boundary: a discriminant that cares about the boundary region, like the SVM, but still uses every "
            "point.",
            "boundaries",
            {**_MOONS_CKS, "kernels": ["rbf"], "models": ["KFD", "KNDA"]},
            LookAt("test accuracy", "The three boundaries and the test-accuracy column."),
            ranking(["rbf", "KFD", "KNDA"], "test"),
        ),
        Step(
            "CKSVMNDA: the SVM plus KNDA's scatter",
            "CKSVMNDA is an SVM whose regulariser also penalises the directions along which KNDA's within-class "
            "scatter is large relative to its between-class scatter: Θ = η Δ (∇ + βI)⁻¹ Δ + I. With η = 0 it is "
            "exactly the SVM; the larger η, the more KNDA's scatter weighs. This step fits it at the model's "
            "default η = 10⁻⁴; the next one changes η.",
            "boundaries",
            {**_MOONS_CKS, "kernels": ["rbf"], "models": ["KNDA", "CKSVMNDA"]},
            LookAt("test accuracy", "CKSVMNDA's boundary against the SVM's (the RBF panel) and KNDA's."),
            comparison("CKSVMNDA", "rbf", "test"),
        ),
        Step(
            "η: from the SVM towards KNDA",
            "η sets how much KNDA's scatter weighs beside the SVM's margin. This step sets η = 1 "
            "(log₁₀ η = 0 in the sidebar's CKSVMNDA slider), ten thousand times the default. Compare "
            "CKSVMNDA's boundary with the SVM's and KNDA's, then move the slider: at log₁₀ η = −6 CKSVMNDA draws the SVM's boundary, and the "
            "larger η, the more Θ is KNDA's scatter rather than the identity — which need not mean the boundary "
            "keeps getting closer to KNDA's, since KNDA also has its own regularisation β.",
            "boundaries",
            {**_MOONS_CKS, "kernels": ["rbf"], "models": ["KNDA", "CKSVMNDA"], "log_eta": 0.0},
            LookAt("CKSVMNDA", "CKSVMNDA's boundary against the SVM's (the RBF panel) and KNDA's, and the "
                              "test-accuracy column."),
            ranking(["rbf", "KNDA", "CKSVMNDA"], "test"),
        ),
        Step(
            "Heart: one of the paper's data sets",
            "The paper reports CKSVMNDA ahead of the SVM on all eleven of its benchmarks, by 0.1 to 1.5 points "
            "(heart: 86.5% against 85.4%, averaged over 25 splits). On the Statlog heart data bundled here "
            "(all 13 features, z-scored) compare the two on one split.",
            "boundaries",
            {"source": "sample", "sample": "heart", "fit_on": "full", "kernels": ["rbf"],
             "models": ["KNDA", "CKSVMNDA"], "log_gamma": -2.0, "log_C": 0.0},
            LookAt("test accuracy", "The test-accuracy column."),
            comparison("CKSVMNDA", "rbf", "test"),
        ),
    ),
)

#: Every lesson by name, in the order the app offers them.
LESSONS: dict[str, Lesson] = {lesson.name: lesson for lesson in (RBF_BASICS, CKRBF, RWM, MCPM, CKSVMNDA)}


def names() -> list[str]:
    """The lessons' names, in the order the app offers them (the ``lesson=`` value of a link)."""
    return list(LESSONS)


def get(name: str) -> Lesson:
    """The lesson called ``name``.

    Raises
    ------
    ValueError
        When there is no such lesson (the message lists the names there are).
    """
    if name not in LESSONS:
        raise ValueError(f"There is no lesson {name!r}; the lessons are {', '.join(LESSONS)}.")
    return LESSONS[name]


def search_steps() -> list[tuple[str, int]]:
    """(lesson, step number) of every step that shows a grid search (the Grid search or P_f view):
    their searches ship with the package in the disk cache's shipped entries
    (``kernelviz._diskcache.SHIPPED``), so a lesson comes up at once."""
    return [(name, k) for name in names() for k, step in enumerate(get(name).steps, start=1)
            if step.view in ("grid", "pf")]


#: The entries of a link that name its lesson step (:func:`link`); the others are settings.
LINK_ENTRIES = ("lesson", "step")


def link(name: str, number: int) -> dict[str, str]:
    """The query-string entries that open step ``number`` of lesson ``name`` (``?lesson=NAME&step=K``).

    Raises
    ------
    ValueError
        When there is no such lesson or step.
    """
    get(name).step(number)
    return {"lesson": name, "step": str(number)}


def from_link(query: Mapping[str, Any]) -> tuple[Lesson, int] | None:
    """The lesson and step number a link asks for, or None when it names no lesson.

    A link without ``step`` opens step 1. Values may be strings or lists of strings (the last
    one counts, as in ``kernelviz.state.parse``).

    Raises
    ------
    ValueError
        When the lesson does not exist or the step is not one of its step numbers.
    """
    def last(value):
        return value[-1] if isinstance(value, (list, tuple)) and value else value

    name = last(query.get("lesson"))
    if not name:
        return None
    lesson = get(str(name))
    raw = last(query.get("step", "1"))
    # only the digits 0-9, as every number of a link (kernelviz.state.number_from_text): int()
    # alone reads "٢", "２" and "1_0" too
    try:
        if isinstance(raw, bool) or not (isinstance(raw, int) or (isinstance(raw, str) and raw.isascii()
                                                                   and raw.isdigit())):
            raise ValueError
        number = int(raw)
    except ValueError:
        raise ValueError(f"The link's step must be a whole number from 1 to {len(lesson.steps)}; "
                         f"got {raw!r}.") from None
    lesson.step(number)
    return lesson, number
