"""Figures are pure functions: arrays in, a Plotly figure out — checked without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

from kernelviz import figures as fg

pytestmark = pytest.mark.unit

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 2))
Y = np.where(X[:, 0] > 0, 1.0, -1.0)


def traces_named(fig, prefix):
    return [t for t in fig.data if (t.name or "").startswith(prefix)]


# ----------------------------------------------------------------------------- helpers


def test_grid_over_covers_the_points_with_square_cells():
    pts = np.array([[0.0, 0.0], [4.0, 1.0]])
    grid = fg.grid_over(pts, resolution=41, margin=0.1)
    assert grid.xs[0] < 0 and grid.xs[-1] > 4 and grid.ys[0] < 0 and grid.ys[-1] > 1
    assert len(grid.xs) == 41 and len(grid.ys) < 41
    assert np.diff(grid.xs)[0] == pytest.approx(np.diff(grid.ys)[0], rel=0.1)
    assert grid.points.shape == (len(grid.xs) * len(grid.ys), 2)
    img = grid.reshape(grid.points[:, 0])
    assert img.shape == grid.shape and np.all(img[0] == grid.xs)


def test_ellipse_points_lie_at_the_given_mahalanobis_radius():
    mean, cov = np.array([1.0, -2.0]), np.array([[2.0, 0.8], [0.8, 0.5]])
    ex, ey = fg.ellipse_xy(mean, cov, radius=3.0)
    diff = np.column_stack([ex, ey]) - mean
    d2 = np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff)
    np.testing.assert_allclose(d2, 9.0, rtol=1e-9)


def test_cluster_class_order_groups_clusters_then_classes_then_position():
    clusters = np.array([1, 0, 1, 0, 0])
    classes = np.array([0, 1, 0, 0, 1])
    within = np.array([5.0, 2.0, 1.0, 3.0, 0.0])
    order = fg.cluster_class_order(clusters, classes, within)
    assert clusters[order].tolist() == [0, 0, 0, 1, 1]
    assert classes[order].tolist() == [0, 1, 1, 0, 0]
    assert order.tolist() == [3, 4, 1, 2, 0]


def test_nice_levels_are_round_and_span_the_values():
    levels = fg.nice_levels(np.array([0.0, 3.3]), count=10)
    step = levels[1] - levels[0]
    assert step in (0.25, 0.5) or step == pytest.approx(0.5)
    assert levels[0] >= 0 and levels[-1] <= 3.3 + 1e-9
    assert len(fg.nice_levels(np.array([np.nan]))) == 1


# ----------------------------------------------------------------------------- conventions


def test_scatter_keeps_equal_aspect_and_consistent_class_colours():
    mask = np.ones(60, bool)
    mask[:10] = False
    fig = fg.data_figure(X, Y, mask, title="t")
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1
    unl = traces_named(fig, "unlabeled")[0]
    assert unl.marker.color == fg.UNLABELED_COLOR and len(unl.x) == 10
    neg, pos = traces_named(fig, "class −1")[0], traces_named(fig, "class +1")[0]
    assert neg.marker.color == fg.CLASS_COLORS[0] and pos.marker.color == fg.CLASS_COLORS[1]
    # the same class keeps its colour when the other class is absent from a subset
    only_pos = fg.data_figure(X[Y > 0], Y[Y > 0], classes=[-1.0, 1.0])
    assert traces_named(only_pos, "class +1")[0].marker.color == fg.CLASS_COLORS[1]


def test_class_names_sign_plus_one_only_next_to_minus_one():
    assert fg.class_names([-1.0, 1.0]) == {-1.0: "class −1", 1.0: "class +1"}
    assert fg.class_names([0.0, 1.0]) == {0.0: "class 0", 1.0: "class 1"}


def test_partition_figure_has_regions_three_ellipses_per_cluster_and_responsibilities():
    grid = fg.grid_over(X, 30)
    means = np.array([[-1.0, 0.0], [1.0, 0.0]])
    covs = np.stack([np.eye(2), 0.5 * np.eye(2)])
    R = np.column_stack([grid.points[:, 0] < 0, grid.points[:, 0] >= 0]).astype(float)
    Rp = np.column_stack([X[:, 0] < 0, X[:, 0] >= 0]).astype(float)
    fig = fg.partition_figure(X, Y, None, means, covs, grid, R, Rp)
    heat = fig.data[0]
    assert heat.type == "heatmap" and set(np.unique(heat.z)) == {0, 1}
    ellipses = [t for t in fig.data if t.type == "scatter" and t.mode == "lines"]
    assert len(ellipses) == 6
    pos = traces_named(fig, "class +1")[0]
    assert all("cluster 1: 1.00" in h for h in pos.hovertext)


# ----------------------------------------------------------------------------- panels


def _boundary_panel(name="rbf", multiclass=False, n_classes=2):
    grid = fg.grid_over(X, 25)
    values = grid.points[:, 0] if not multiclass else (grid.points[:, 0] > 0).astype(float) + (grid.points[:, 1] > 1)
    return grid, fg.BoundaryPanel(
        name=name, values=values, classes=list(range(n_classes)) if multiclass else [-1.0, 1.0],
        X_train=X[:40], y_train=Y[:40], X_test=X[40:], y_test=Y[40:], support=np.array([0, 1, 2]),
        dual=np.array([0.1, 1.0, 0.5]), train_accuracy=0.95, test_accuracy=0.9, fit_seconds=0.012,
        multiclass=multiclass)


def test_boundary_panels_show_boundary_margins_support_vectors_and_scores():
    grid, panel = _boundary_panel()
    fig = fg.boundary_figure([panel, panel], grid, X_unlabeled=X[:5])
    contours = [t for t in fig.data if t.type == "contour"]
    levels = sorted((c.contours.start, c.contours.end) for c in contours)
    assert levels == [(-1, 1), (-1, 1), (0, 0), (0, 0)]
    sv = traces_named(fig, "support vectors")[0]
    assert sv.marker.size[1] > sv.marker.size[2] > sv.marker.size[0]  # larger |α|, larger ring
    title = fig.layout.annotations[0].text
    assert "train 95%" in title and "test 90%" in title and "12 ms" in title
    # the second panel matches the first, whose y is anchored to its x (plotly.js ignores, and warns
    # about, a scale anchor on an axis that matches another)
    assert fig.layout.xaxis2.matches == "x" and fig.layout.yaxis2.matches == "y"
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis2.scaleanchor is None
    assert traces_named(fig, "class +1 (test)")[0].marker.symbol == "cross"


def test_multiclass_panels_outline_every_class_region():
    grid, panel = _boundary_panel(multiclass=True, n_classes=3)
    fig = fg.boundary_figure([panel], grid)
    assert sum(t.type == "contour" for t in fig.data) == 3
    assert fig.data[0].zmax == 2.5


def test_a_multiclass_panel_has_regions_by_class_and_no_margins_even_for_an_svm():
    grid, panel = _boundary_panel(name="mkRBF", multiclass=True, n_classes=3)
    panel.note = "one-vs-one over 3 classes"
    assert panel.margins  # an SVM, but f = ±1 means nothing once the classes vote
    fig = fg.boundary_figure([panel], grid)
    assert not [t for t in fig.data if t.type == "contour" and t.line.dash == "dash"]
    assert [t.contours.start for t in fig.data if t.type == "contour"] == [0.5, 0.5, 0.5]
    assert "one-vs-one over 3 classes" in fig.layout.annotations[0].text


def test_a_long_panel_note_is_wrapped_at_its_separators():
    grid, panel = _boundary_panel()
    panel.note = "one-vs-one over 3 classes · pairwise worst-case bound α ≥ 0.80 · short"
    # the title is the name, then the scores on their own lines, then the note
    note = fg.boundary_title(panel).split("ms</span><br>", 1)[1]
    lines = note.removeprefix("<span style='font-size:11px;color:#8a5a00'>").removesuffix("</span>").split("<br>")
    assert lines == ["one-vs-one over 3 classes", "pairwise worst-case bound α ≥ 0.80 · short"]


def test_four_panels_sit_in_one_row_with_the_name_above_the_scores():
    grid, panel = _boundary_panel()
    fig = fg.boundary_figure([panel] * 4, grid)
    domains = [fig.layout[f"yaxis{'' if i == 1 else i}"].domain for i in range(1, 5)]
    assert all(tuple(d) == tuple(domains[0]) for d in domains)  # one row
    assert fig.layout.height <= 600  # fits a 900 px laptop screen below the controls
    assert fg.boundary_title(panel) == (f"<b>{fg.kernel_label(panel.name)}</b><br><span style='font-size:11px'>"
                                        "train 95% · test 90%</span><br><span style='font-size:11px'>12 ms</span>")


def test_similarity_small_multiples_share_axes_with_round_levels_per_panel():
    grid = fg.grid_over(X, 30)
    ref = X[0]
    d = np.linalg.norm(grid.points - ref, axis=1)
    panels = [fg.SimilarityPanel("rbf", d, np.exp(-d ** 2)),
              fg.SimilarityPanel("rwm", 2 * d, np.exp(-4 * d ** 2), np.zeros((1, 2)), np.eye(2)[None])]
    fig = fg.similarity_figure(panels, grid, ref, X, Y, None)
    contours = [t for t in fig.data if t.type == "contour"]
    assert len(contours) == 2
    # distances twice as large get level curves twice as far apart: the same number of curves
    assert contours[1].contours.size == 2 * contours[0].contours.size
    assert contours[0].contours.start == contours[0].contours.size
    assert fig.layout.xaxis2.matches == "x" and fig.layout.yaxis2.matches == "y"
    assert len(traces_named(fig, "reference point")) == 2
    shaded = fg.similarity_figure(panels, grid, ref, X, Y, None, mode="similarity")
    assert [t for t in shaded.data if t.type == "contour"][0].zmax == 1


def test_gram_figure_marks_cluster_breaks_and_spectrum_flags_negatives():
    K = np.eye(6)
    fig = fg.gram_figure([fg.GramPanel("rwm", K, [2, 4], "not PSD")])
    assert len(fig.layout.shapes) == 4
    assert fig.layout.yaxis.autorange == "reversed"
    spec = fg.spectrum_figure({"rwm": np.array([3.0, 1.0, -0.5]), "rbf": np.array([2.0, 1.0, 0.5])})
    negatives = traces_named(spec, "RWM: negative")
    assert len(negatives) == 1 and list(negatives[0].customdata) == [-0.5]
    assert spec.layout.yaxis.type == "log"


def test_grid_search_figure_stars_the_best_cell_and_draws_the_path():
    log_Cs, log_gammas = np.arange(-2.0, 3.0), np.arange(-3.0, 2.0)
    scores = np.full((5, 5), 0.6)
    scores[3, 1] = 0.95
    path = np.array([[-3.0, 2.0], [-2.0, 1.0], [-1.0, 0.0]])
    fig = fg.grid_search_figure([fg.GridPanel("rbf", scores, path, (-2.0, 1.0))], log_Cs, log_gammas)
    best = traces_named(fig, "best cell")[0]
    # inside the best cell (steps of 1): centred on its row, left of the cell's number (issue 29:
    # in the cell's corner it read as any of four cells)
    assert (best.x[0], best.y[0]) == pytest.approx((log_gammas[1] - 0.3, log_Cs[3]))
    assert len(traces_named(fig, "Keerthi–Lin path")[0].x) == 3
    assert fig.data[0].zmax == 1.0 and fig.data[0].zmin == pytest.approx(0.6)


def test_grid_marks_leave_the_cell_numbers_readable_and_every_cell_is_clickable():
    log_Cs, log_gammas = np.arange(-2.0, 3.0), np.arange(-3.0, 2.0)
    scores = np.linspace(0.5, 1.0, 25).reshape(5, 5)
    path = np.array([[-3.0, 2.0], [-2.0, 1.0], [-1.0, 0.0]])
    fig = fg.grid_search_figure([fg.GridPanel("ckrbf", scores, path, (-2.0, 1.0))], log_Cs, log_gammas)
    assert fig.data[0].texttemplate  # the numbers are drawn ...
    for name in ("Keerthi–Lin path", "Keerthi–Lin best"):
        (trace,) = traces_named(fig, name)
        assert trace.mode == "markers" and trace.marker.symbol == "circle-open"  # ... and only ringed: no line across them
    (cells,) = [t for t in fig.data if t.meta == "ckrbf"]
    assert sorted(zip(cells.x, cells.y)) == sorted((g, c) for g in log_gammas for c in log_Cs)
    assert "rgba(0,0,0,0)" == cells.marker.color
    np.testing.assert_array_equal(cells.customdata, scores.ravel())


def test_pf_figure_draws_steps_from_alpha0_with_auc_in_the_legend():
    alphas = np.linspace(0.5, 1, 11)
    fig = fg.pf_figure({"rbf": (alphas, np.linspace(1, 0, 11)), "ckrbf": (alphas, np.linspace(1, 0.2, 11))},
                       alpha0=0.5, aucs={"rbf": 0.25, "ckrbf": 0.3})
    assert [t.line.shape for t in fig.data] == ["hv", "hv"]
    assert fig.data[0].name == "RBF (AUC 0.250)"
    assert fig.data[0].line.color != fig.data[1].line.color
    assert fig.layout.shapes[0].x0 == 0.5


def test_models_without_margins_get_no_margin_lines_and_a_tint_on_their_own_scale():
    grid, panel = _boundary_panel()
    panel.values = 0.01 * panel.values
    panel.margins = False
    fig = fg.boundary_figure([panel], grid)
    assert [(c.contours.start, c.contours.end) for c in fig.data if c.type == "contour"] == [(0, 0)]
    assert fig.data[0].zmax < 0.1


def test_every_gram_heatmap_has_its_own_colour_scale_under_its_panel_within_its_width():
    """Beside each panel, the colour bars' tick labels ran over the next panel's heatmap at 1440 px."""
    K = np.eye(3)
    fig = fg.gram_figure([fg.GramPanel("rbf", K), fg.GramPanel("ckrbf", 30 * K), fg.GramPanel("rwm", K),
                          fg.GramPanel("mrbf", K)])
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert all(h.showscale for h in heatmaps)
    for heatmap in heatmaps:
        x_domain = fig.layout[heatmap.xaxis.replace("x", "xaxis")].domain
        y_domain = fig.layout[heatmap.yaxis.replace("y", "yaxis")].domain
        bar = heatmap.colorbar
        assert bar.orientation == "h" and bar.yanchor == "top" and bar.y < y_domain[0]
        assert x_domain[0] <= bar.x - bar.len / 2 and bar.x + bar.len / 2 <= x_domain[1]  # within its own panel
    assert heatmaps[0].colorbar.x < heatmaps[1].colorbar.x


def test_figures_are_checked_against_their_validated_build_under_the_tests_switch(monkeypatch):
    monkeypatch.setenv(fg.VALIDATE_ENV, "1")
    with pytest.raises(ValueError, match="markr"):  # a misspelt property
        fg._figure([{"type": "scatter", "x": [0], "y": [0], "markr": {"size": 3}}], {})
    with pytest.raises(ValueError, match="shorthand"):  # expanded by validation only
        fg._figure([{"type": "scatter", "x": [0], "y": [0]}], {"hoverlabel": {"font_size": 13}})
    checked = fg.data_figure(X, Y)
    monkeypatch.delenv(fg.VALIDATE_ENV)
    assert fg.data_figure(X, Y).to_plotly_json() == checked.to_plotly_json()
    assert checked.layout.template.layout.plot_bgcolor == "white"  # the template itself, not its name


# ----------------------------------------------------------------------------- the grid's ★ and its ties (issue 29)


def _cell_of(x: float, y: float, log_gammas, log_Cs) -> tuple[int, int]:
    """(i_C, j_γ) of the cell a point of the panel lies in (cells centred on the grid values)."""
    return int(np.argmin(np.abs(np.asarray(log_Cs) - y))), int(np.argmin(np.abs(np.asarray(log_gammas) - x)))


@pytest.mark.parametrize("shape, steps", [((5, 5), (1.0, 1.0)), ((7, 3), (0.5, 2.0)), ((12, 12), (1.0, 1.0))])
def test_the_star_sits_inside_its_own_cell_not_on_a_corner(shape, steps):
    log_Cs = np.arange(shape[0]) * steps[0] - 2
    log_gammas = np.arange(shape[1]) * steps[1] - 3
    scores = np.full(shape, 0.6)
    best = (shape[0] - 2, 1)
    scores[best] = 0.95
    fig = fg.grid_search_figure([fg.GridPanel("rbf", scores)], log_Cs, log_gammas)
    (star,) = traces_named(fig, "best cell")
    x, y = star.x[0], star.y[0]
    assert y == pytest.approx(log_Cs[best[0]])  # centred on its row: no neighbour shares it
    # inside its column, at least a fifth of a cell from the cell's edges
    assert abs(x - log_gammas[best[1]]) <= 0.3 * steps[1] + 1e-12
    assert _cell_of(x, y, log_gammas, log_Cs) == best


def test_cells_tied_with_the_best_are_outlined_and_counted():
    log_Cs, log_gammas = np.arange(-2.0, 3.0), np.arange(-3.0, 2.0)
    scores = np.full((5, 5), 0.6)
    plateau = [(1, 2), (1, 3), (2, 2), (2, 3), (3, 3)]
    for cell in plateau:
        scores[cell] = 0.9
    scores[2, 2] = 0.9 + 1e-13  # a mean of fold accuracies differing in the last bit is a tie
    fig = fg.grid_search_figure([fg.GridPanel("rbf", scores)], log_Cs, log_gammas)
    (star,) = traces_named(fig, "best cell")
    # the cell np.nanargmax picks, as GridResult.best_index and the generated script do
    assert _cell_of(star.x[0], star.y[0], log_gammas, log_Cs) == (2, 2)
    (tied,) = traces_named(fig, "tied with the best")
    assert tied.mode == "lines" and tied.hoverinfo == "skip"
    outlines = np.split(np.array([np.nan if v is None else v for v in tied.x]), np.flatnonzero(
        [v is None for v in tied.x]))
    ys = np.split(np.array([np.nan if v is None else v for v in tied.y]), np.flatnonzero(
        [v is None for v in tied.y]))
    centres = sorted(_cell_of(np.nanmean(np.unique(ox[np.isfinite(ox)])), np.nanmean(np.unique(oy[np.isfinite(oy)])),
                              log_gammas, log_Cs) for ox, oy in zip(outlines, ys))
    assert centres == sorted(plateau)
    for ox in outlines:  # each outline inside its own cell, so neighbouring ties stay apart
        finite = ox[np.isfinite(ox)]
        assert finite.max() - finite.min() < 1.0
    title = fig.layout.annotations[0].text
    assert "5 cells tie" in title, title


def test_a_single_best_cell_draws_no_tie_outline():
    scores = np.linspace(0.5, 1.0, 25).reshape(5, 5)
    fig = fg.grid_search_figure([fg.GridPanel("rbf", scores)], np.arange(5.0), np.arange(5.0))
    assert traces_named(fig, "tied with the best") == []
    assert "tie" not in fig.layout.annotations[0].text
def test_small_multiples_say_which_annotation_is_each_panels_title_for_the_page_to_lay_them_out():
    # kernelviz/components/plot/arrange.js lays equal-aspect panels out again for the screen: it finds
    # them, and their titles, in the layout's meta
    grid, panel = _boundary_panel()
    fig = fg.boundary_figure([panel] * 3, grid)
    marked = fig.layout.meta[fg.PANELS_META]
    assert marked["count"] == 3 and marked["equal"] is True
    assert [fig.layout.annotations[i].text for i in marked["titles"]] == [fg.boundary_title(panel)] * 3
