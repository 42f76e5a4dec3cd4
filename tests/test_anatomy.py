"""The decision function taken apart: its terms and its bump-by-bump build-up are checked
against scikit-learn's own decision function and against the kernels written out by hand;
the figures against the numbers they draw."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

import kernelviz as kv
from kernelviz import anatomy
from kernelviz import figures as fg

pytestmark = pytest.mark.unit

RNG = np.random.default_rng(7)
# two overlapping classes, listed class by class: some support vectors end at the bound C
X = np.vstack([RNG.normal(0.0, 1.0, (30, 2)), RNG.normal(1.3, 1.0, (30, 2))])
Y = np.r_[np.full(30, 3.0), np.full(30, 7.0)]  # labels other than ±1: the sides come from classes_
QUERIES = np.array([[0.5, 0.3], [-1.0, 2.0], [2.5, -0.5], [0.0, 0.0]])
GAMMA, C = 0.8, 1.0


def fitted(name, C=C, class_weight=None, y=Y):
    kernel = kv.kernels.make(name, gamma=GAMMA).fit(X)
    return kernel, SVC(kernel="precomputed", C=C, class_weight=class_weight).fit(kernel(X), y)


def rbf_by_hand(a, b):
    return float(np.exp(-GAMMA * np.sum((a - b) ** 2)))


def ckrbf_by_hand(kernel):
    """docs/MATH.md §2: det(Σx + Σy)^(−½) exp(−γ (x−y)ᵀ (Σx + Σy)⁻¹ (x−y)), Σ of each point's cluster."""
    def k(a, b):
        ca, cb = kernel.partition_.predict(np.vstack([a, b]))
        S = kernel.covariances_[ca] + kernel.covariances_[cb]
        diff = a - b
        return float(np.exp(-GAMMA * diff @ np.linalg.solve(S, diff)) / np.sqrt(np.linalg.det(S)))
    return k


# ----------------------------------------------------------------------------- terms at a point


@pytest.mark.parametrize("name", ["rbf", "ckrbf", "rwm", "lap"])
def test_terms_add_up_to_the_svm_decision_function(name):
    kernel, svc = fitted(name)
    for x in QUERIES:
        terms = anatomy.decision_terms(svc, kernel, X, x)
        expected = svc.decision_function(kernel(x[None, :], X))[0]
        assert abs(terms.value - expected) <= 1e-10
        assert abs(terms.terms.sum() + terms.intercept - expected) <= 1e-10


@pytest.mark.parametrize("name, by_hand", [("rbf", lambda kernel: rbf_by_hand), ("ckrbf", ckrbf_by_hand)])
def test_each_term_is_alpha_y_times_the_kernel_written_out(name, by_hand):
    kernel, svc = fitted(name)
    k = by_hand(kernel)
    coef_of = dict(zip(svc.support_.tolist(), svc.dual_coef_[0]))
    for x in QUERIES:
        terms = anatomy.decision_terms(svc, kernel, X, x)
        assert sorted(terms.support.tolist()) == sorted(svc.support_.tolist())
        explicit = np.array([coef_of[i] * k(X[i], x) for i in terms.support])
        np.testing.assert_allclose(terms.kernel_values, [k(X[i], x) for i in terms.support], rtol=1e-10)
        np.testing.assert_allclose(terms.terms, explicit, rtol=1e-10, atol=1e-15)
        assert abs(terms.value - (explicit.sum() + svc.intercept_[0])) <= 1e-10


def test_terms_come_largest_first_with_their_support_vectors_class_and_alpha():
    kernel, svc = fitted("rbf")
    terms = anatomy.decision_terms(svc, kernel, X, QUERIES[0])
    assert np.all(np.diff(np.abs(terms.terms)) <= 0)
    np.testing.assert_array_equal(terms.labels, Y[terms.support])
    # a support vector of the larger label pulls f up, one of the smaller label down
    assert np.all(np.sign(terms.terms) == np.where(Y[terms.support] == 7.0, 1, -1))
    assert np.all(terms.alpha > 0) and np.all(terms.alpha <= C * (1 + 1e-12))
    assert list(terms.classes) == [3.0, 7.0]


def test_bounded_support_vectors_are_those_at_their_class_weighted_bound():
    weights = {3.0: 1.0, 7.0: 3.0}
    kernel, svc = fitted("rbf", class_weight=weights)
    expansion = anatomy.support_expansion(svc)
    labels = Y[expansion.support]
    bound = C * np.array([weights[c] for c in labels])
    assert expansion.bounded.any() and (~expansion.bounded).any()
    np.testing.assert_array_equal(expansion.bounded, expansion.alpha == bound)
    # free support vectors of the weighted class have α above C, and still are free
    assert np.any(~expansion.bounded & (labels == 7.0) & (expansion.alpha > C))
    # KKT, independently of α: a free support vector lies on its margin, y f(x) = 1
    margin = np.where(labels == 7.0, 1, -1) * svc.decision_function(kernel(X[expansion.support], X))
    np.testing.assert_allclose(margin[~expansion.bounded], 1.0, atol=5e-3)
    assert np.all(margin[expansion.bounded] <= 1 + 5e-3)


def test_ties_at_the_bound_alternate_between_the_classes():
    kernel, svc = fitted("rbf", C=0.05)  # small C: nearly every support vector at the bound
    expansion = anatomy.support_expansion(svc)
    assert np.all(np.diff(expansion.alpha) <= 0)
    tied = expansion.bounded
    assert tied.sum() >= 10 and np.all(tied[:tied.sum()])  # the bounded ones, all α = C, lead
    sides = np.sign(expansion.coef[tied])
    n_minority = min((sides > 0).sum(), (sides < 0).sum())
    assert np.all(sides[:2 * n_minority:2] == sides[0]) and np.all(sides[1:2 * n_minority:2] == -sides[0])
    # within a class, ties keep the training order
    for side in (-1, 1):
        assert np.all(np.diff(expansion.support[tied][sides == side]) > 0)
    # the partial sums of α y stay within one C of zero while both classes last
    assert np.all(np.abs(np.cumsum(expansion.coef[tied][:2 * n_minority])) <= 0.05 + 1e-12)


# ----------------------------------------------------------------------------- the build-up


def test_doubling_counts_end_at_every_support_vector():
    assert anatomy.doubling_counts(37).tolist() == [1, 2, 4, 8, 16, 32, 37]
    assert anatomy.doubling_counts(32).tolist() == [1, 2, 4, 8, 16, 32]
    assert anatomy.doubling_counts(1).tolist() == [1]


@pytest.mark.parametrize("name", ["rbf", "ckrbf"])
def test_buildup_stages_are_partial_sums_over_the_largest_alphas(name):
    kernel, svc = fitted(name)
    points = RNG.normal(0.6, 1.5, (50, 2))
    buildup = anatomy.bump_buildup(svc, kernel, X, points)
    n_sv = len(svc.support_)
    assert buildup.counts.tolist() == anatomy.doubling_counts(n_sv).tolist()
    np.testing.assert_allclose(buildup.values[-1], svc.decision_function(kernel(points, X)), rtol=0, atol=1e-10)
    # independently: the support vectors by |α| (ties by training index within a class, classes taking turns)
    alpha = np.abs(svc.dual_coef_[0])
    assert np.all(np.diff(alpha[np.searchsorted(svc.support_, buildup.expansion.support)]) <= 0)
    K = kernel(points, X)
    for m, f_m in zip(buildup.counts, buildup.values):
        first = buildup.expansion.support[:m]
        coef = svc.dual_coef_[0][np.searchsorted(svc.support_, first)]
        expected = np.array([sum(c * K[p, i] for c, i in zip(coef, first)) for p in range(len(points))])
        np.testing.assert_allclose(f_m, expected + svc.intercept_[0], rtol=0, atol=1e-10)


def test_buildup_evaluates_the_kernel_once_against_the_support_vectors_only():
    kernel, svc = fitted("rbf")
    calls = []

    def counting_kernel(A, B):
        calls.append((len(A), len(B)))
        return kernel(A, B)

    points = RNG.normal(size=(400, 2))
    anatomy.bump_buildup(svc, counting_kernel, X, points)
    assert sum(rows for rows, _ in calls) == len(points)
    assert {cols for _, cols in calls} == {len(svc.support_)}
    calls.clear()
    partial = anatomy.bump_buildup(svc, counting_kernel, X, points, counts=[1, 3])
    assert calls == [(len(points), 3)] and partial.values.shape == (2, len(points))
    assert partial.agreement is None  # no full f to agree with


def test_agreement_is_the_share_of_points_on_the_full_svms_side():
    kernel, svc = fitted("rbf")
    points = RNG.normal(0.6, 1.5, (300, 2))
    buildup = anatomy.bump_buildup(svc, kernel, X, points)
    predicted = svc.predict(kernel(points, X))
    for f_m, share in zip(buildup.values, buildup.agreement):
        assert share == np.mean(np.where(f_m > 0, 7.0, 3.0) == predicted)
    assert buildup.agreement[-1] == 1.0 and buildup.agreement.min() < 1.0


# ----------------------------------------------------------------------------- bad input


def test_bad_input_is_refused_with_a_reason():
    kernel, svc = fitted("rbf")
    with pytest.raises(ValueError, match="two classes only"):
        y3 = np.r_[np.zeros(20), np.ones(20), np.full(20, 2.0)]
        anatomy.decision_terms(SVC(kernel="precomputed").fit(kernel(X), y3), kernel, X, QUERIES[0])
    with pytest.raises(ValueError, match="precomputed"):
        anatomy.decision_terms(SVC(kernel="rbf").fit(X, Y), kernel, X, QUERIES[0])
    with pytest.raises(ValueError, match="fitted first"):
        anatomy.decision_terms(SVC(kernel="precomputed"), kernel, X, QUERIES[0])
    with pytest.raises(ValueError, match="2 coordinates"):
        anatomy.decision_terms(svc, kernel, X, np.zeros(3))
    with pytest.raises(ValueError, match="training points were given"):
        anatomy.decision_terms(svc, kernel, X[:10], QUERIES[0])
    with pytest.raises(ValueError, match="same space|coordinates"):
        anatomy.bump_buildup(svc, kernel, X, np.zeros((5, 3)))
    for counts in ([0, 2], [2, 2], [1, len(svc.support_) + 1], [1.5], []):
        with pytest.raises(ValueError, match="counts must be increasing"):
            anatomy.bump_buildup(svc, kernel, X, QUERIES, counts=counts)


# ----------------------------------------------------------------------------- figures


def test_terms_figure_bars_add_up_to_f_for_each_kernel():
    terms = {}
    for name in ("rbf", "ckrbf"):
        kernel, svc = fitted(name)
        terms[name] = anatomy.decision_terms(svc, kernel, X, QUERIES[2])
    top = 5  # at this point both kernels have free and bounded support vectors among their five largest terms
    fig = fg.decision_terms_figure(terms, QUERIES[2], top=top)
    for i, (name, t) in enumerate(terms.items()):
        xaxis = "x" if i == 0 else f"x{i + 1}"
        bars = [b for b in fig.data if b.type == "bar" and b.xaxis == xaxis]
        by_category = {c: v for b in bars for c, v in zip(b.y, b.x)}
        assert len(by_category) == top + 3  # five terms, the rest, b, f(x)
        total = by_category.pop("f(x)")
        assert total == pytest.approx(t.value, abs=1e-12)
        assert sum(by_category.values()) == pytest.approx(total, abs=1e-12)
        assert by_category[f"{len(t.terms) - top} other SVs"] == pytest.approx(t.terms[top:].sum(), abs=1e-12)
        assert by_category["b"] == t.intercept
        assert fig.layout[f"yaxis{i + 1 if i else ''}"].categoryarray[:top] == tuple(f"SV {s}" for s in t.support[:top])
        assert f"f(x) = {t.value:+.3f}" in fig.layout.annotations[i].text
        trace_of = {c: b for b in bars for c in b.y}
        for j in range(top):
            bar = trace_of[f"SV {t.support[j]}"]
            assert ("at the bound" in bar.name) == t.bounded[j]
            assert bar.marker.color == fg.class_style(list(t.classes).index(t.labels[j]))[0]
    sv_bars = [b for b in fig.data if b.type == "bar" and b.legendgroup.startswith("class")]
    for b in sv_bars:
        side = 1 if b.legendgroup.startswith("class 7") else 0
        assert b.marker.color == fg.class_style(side)[0]
        assert (b.marker.pattern.shape == fg.BOUNDED_PATTERN) == ("at the bound" in b.name)
    # bounded and free bars both appear, each legend entry once
    kinds = {b.name for b in sv_bars}
    assert any("at the bound" in k for k in kinds) and any("free" in k for k in kinds)
    assert sum(bool(b.showlegend) for b in fig.data if b.name == "bias b") == 1


def test_the_anatomy_figures_name_the_classes_as_the_data_name_them():
    """As the boundaries' legend does (``class_names``: a file's names, or those edited data carry)."""
    names = {3.0: "setosa", 7.0: "class <b>7</b>"}
    kernel, svc = fitted("rbf")
    fig = fg.decision_terms_figure({"rbf": anatomy.decision_terms(svc, kernel, X, QUERIES[2])}, QUERIES[2],
                                   class_names=names)
    groups = {b.legendgroup.split(" · ")[0] for b in fig.data if b.type == "bar" and " · " in (b.legendgroup or "")}
    assert groups <= {"setosa", "class &lt;b&gt;7&lt;/b&gt;"} and groups
    assert "setosa" in fig.layout.xaxis.title.text and "class 3" not in fig.layout.annotations[0].text
    grid = fg.grid_over(X, 20)
    fig = fg.buildup_figure(anatomy.bump_buildup(svc, kernel, X, grid.points), grid, X, Y, class_names=names)
    assert {t.name for t in fig.data if t.showlegend and (t.legendgroup or "").startswith("class")} == \
        {"setosa", "class &lt;b&gt;7&lt;/b&gt;"}


def test_buildup_figure_rings_the_support_vectors_used_so_far():
    kernel, svc = fitted("ckrbf")
    grid = fg.grid_over(X, 30)
    buildup = anatomy.bump_buildup(svc, kernel, X, grid.points)
    fig = fg.buildup_figure(buildup, grid, X, Y, name="ckrbf")
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert len(heatmaps) == len(buildup.counts)
    assert len({(h.zmin, h.zmax) for h in heatmaps}) == 1  # one colour scale for every stage
    for i, (m, heat) in enumerate(zip(buildup.counts, heatmaps)):
        np.testing.assert_allclose(np.ravel(heat.z), buildup.values[i])
        xaxis = heat.xaxis
        zero = [t for t in fig.data if t.type == "contour" and t.xaxis == xaxis and t.line.dash is None]
        assert len(zero) == 1 and zero[0].contours.start == 0 == zero[0].contours.end
        rings = [t for t in fig.data if t.type == "scatter" and t.xaxis == xaxis and (t.name or "").startswith("support")]
        assert sum(len(r.x) for r in rings) == m
        bounded = [r for r in rings if r.marker.symbol == fg.BOUNDED_SV_SYMBOL]
        assert sum(len(r.x) for r in bounded) == buildup.expansion.bounded[:m].sum()
        ringed = {int(s) for r in rings for s in np.asarray(r.customdata)[:, 0]}
        assert ringed == set(buildup.expansion.support[:m].tolist())
    assert fg.BOUNDED_SV_SYMBOL != fg.FREE_SV_SYMBOL
    share = buildup.agreement[0]
    assert f"m = 1 of {len(svc.support_)} · same side as f on {share:.0%}" in fig.layout.annotations[0].text
    assert fig.layout.annotations[len(buildup.counts) - 1].text == f"m = {len(svc.support_)} of {len(svc.support_)}"


def _boundary_figure(**shown):
    grid = fg.grid_over(X, 25)
    panel = fg.BoundaryPanel(
        name="rbf", values=grid.points[:, 0], classes=[3.0, 7.0], X_train=X[:40], y_train=Y[:40], X_test=X[40:],
        y_test=Y[40:], support=np.array([0, 1, 2]), dual=np.array([0.1, 1.0, 0.5]))
    return fg.boundary_figure([panel, panel], grid, **shown)


def test_hiding_boundary_layers_removes_only_those_layers():
    full = _boundary_figure()

    def layers(fig):
        return [(t.type, t.name, t.xaxis) for t in fig.data]

    assert layers(_boundary_figure(support_vectors=True, margins=True, test_points=True)) == layers(full)
    for flag, gone in (("support_vectors", lambda t: t.legendgroup == "sv"),
                       ("margins", lambda t: t.type == "contour" and t.contours.start == -1),
                       ("test_points", lambda t: (t.name or "").endswith("(test)"))):
        removed = [t for t in full.data if gone(t)]
        assert len(removed) >= 2  # one per panel at least: the check below can fail
        hidden = _boundary_figure(**{flag: False})
        assert layers(hidden) == [(t.type, t.name, t.xaxis) for t in full.data if not gone(t)]
    everything = _boundary_figure(support_vectors=False, margins=False, test_points=False)
    contours = [t for t in everything.data if t.type == "contour"]
    assert [(c.contours.start, c.contours.end) for c in contours] == [(0, 0), (0, 0)]
    # tints keep their scale and the panels their titles
    assert everything.data[0].zmax == full.data[0].zmax
    assert everything.layout.annotations == full.layout.annotations


def test_terms_figure_with_every_term_shown_has_no_rest_bar_and_refuses_top_zero():
    kernel, svc = fitted("rbf", C=100.0)
    t = anatomy.decision_terms(svc, kernel, X, QUERIES[0])
    fig = fg.decision_terms_figure({"rbf": t}, QUERIES[0], top=len(t.terms) + 5)
    bars = {c: v for b in fig.data for c, v in zip(b.y, b.x)}
    assert len(bars) == len(t.terms) + 2 and not any(c.endswith("other SVs") for c in bars)
    assert sum(v for c, v in bars.items() if c != "f(x)") == pytest.approx(bars["f(x)"], abs=1e-12)
    with pytest.raises(ValueError, match="top must be at least 1"):
        fg.decision_terms_figure({"rbf": t}, QUERIES[0], top=0)
