"""Where a panel's lines cross its grid's edges (kernelviz.crossings, issue 29 "Smooth boundaries"):
found on the model's own function, so that two points' RBF boundary is their bisector and not a zigzag
with the cells' period; the panels carry them and the figures hand them to the plot component."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from kernelviz import crossings, pipeline
from kernelviz import figures as fg
from kernelviz import state as kvstate

pytestmark = pytest.mark.unit

A, B = np.array([-1.2, -0.3]), np.array([0.8, 0.9])


def rbf_difference(gamma: float):
    """f = k(x, a) − k(x, b) for the RBF kernel: its zero line is the bisector of a and b."""
    return lambda p: np.exp(-gamma * ((p - A) ** 2).sum(1)) - np.exp(-gamma * ((p - B) ** 2).sum(1))


def crossing_points(grid: fg.Grid, keys: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The points the edges' keys and fractions name (contours.js's keys)."""
    nx = len(grid.xs)
    start = keys // 2
    i, j = start % nx, start // nx
    vertical = keys % 2 == 1
    x = np.where(vertical, grid.xs[i], grid.xs[i] + t * (grid.xs[np.minimum(i + 1, nx - 1)] - grid.xs[i]))
    y = np.where(vertical, grid.ys[j] + t * (grid.ys[np.minimum(j + 1, len(grid.ys) - 1)] - grid.ys[j]), grid.ys[j])
    return np.column_stack([x, y])


def from_bisector(points: np.ndarray) -> np.ndarray:
    normal = (B - A) / np.linalg.norm(B - A)
    return np.abs((points - (A + B) / 2) @ normal)


def linear_crossings(grid: fg.Grid, z: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """What marching squares made of those edges before: the linear interpolation of f's grid values."""
    nx, values = len(grid.xs), z.ravel()
    start = keys // 2
    end = np.where(keys % 2 == 1, start + nx, start + 1)
    return values[start] / (values[start] - values[end])


@pytest.mark.parametrize("gamma", [1.0, 10.0, 20.0])
def test_the_rbf_boundary_of_two_points_crosses_every_edge_on_their_bisector(gamma):
    f = rbf_difference(gamma)
    grid = fg.grid_over(np.array([A, B]), 70)
    z = grid.reshape(f(grid.points))
    keys, t = crossings.level_crossings(grid.xs, grid.ys, z, [0.0], f)[0.0]
    cell = grid.xs[1] - grid.xs[0]
    # every edge whose ends lie on either side, as marching squares sees them, and none other
    values = z.ravel()
    start = keys // 2
    end = np.where(keys % 2 == 1, start + len(grid.xs), start + 1)
    assert len(keys) > 60 and np.all((values[start] >= 0) != (values[end] >= 0))
    assert np.all((t >= 0) & (t <= 1))
    assert from_bisector(crossing_points(grid, keys, t)).max() < 0.02 * cell
    # the grid values' linear interpolation strays far more (what drew the zigzag; a check that can fail)
    stray = from_bisector(crossing_points(grid, keys, linear_crossings(grid, z, keys))).max()
    assert stray > 0.05 * cell if gamma >= 10 else stray > from_bisector(crossing_points(grid, keys, t)).max()


def test_every_level_is_found_in_one_evaluation_a_round():
    """The margins with the boundary: every crossed edge of every level evaluated together, one call a round."""
    f = rbf_difference(1.0)
    grid = fg.grid_over(np.array([A, B]), 40)
    z = grid.reshape(2 * f(grid.points))
    calls = []

    def evaluate(points):
        calls.append(len(points))
        return 2 * f(points)

    found = crossings.level_crossings(grid.xs, grid.ys, z, [0.0, -1.0, 1.0], evaluate)
    assert set(found) == {0.0, -1.0, 1.0} and all(len(found[level][0]) > 0 for level in found)
    assert len(calls) == len(crossings.SPLITS)
    edges = sum(len(keys) for keys, _ in found.values())
    assert calls == [edges * m for m in crossings.SPLITS]
    for level, (keys, t) in found.items():
        assert np.allclose(2 * f(crossing_points(grid, keys, t)), level, atol=2e-3)


def test_no_edge_to_a_missing_value_is_crossed_and_no_point_is_evaluated_without_a_crossing():
    grid = fg.Grid(np.linspace(0, 3, 4), np.linspace(0, 2, 3))
    z = grid.reshape(grid.points[:, 0] - 1.5)
    z[1, 1] = np.nan
    found = crossings.level_crossings(grid.xs, grid.ys, z, [0.0], lambda p: p[:, 0] - 1.5)
    keys, t = found[0.0]
    # the three horizontal edges from x = 1 to x = 2, less the one from the missing value
    assert sorted(keys.tolist()) == [2 * 1, 2 * (2 * 4 + 1)]
    assert np.allclose(t, 0.5)
    flat = np.ones((3, 4))
    assert crossings.level_crossings(grid.xs, grid.ys, flat, [0.0], lambda p: pytest.fail("evaluated"))[0.0][0].size == 0


def test_a_class_border_is_found_within_a_hundredth_of_a_cell():
    """Where the predicted class changes along an edge (k-means' line between two centres, a third class
    beyond a circle): the class of the edge's start ends there."""
    grid = fg.grid_over(np.array([[-1.0, -1.0], [1.0, 1.0]]), 30)

    def predict(p):
        return np.where(((p - [0.4, 0.3]) ** 2).sum(1) < 0.35 ** 2, 2, (p[:, 0] * 0.8 + p[:, 1] > 0.1).astype(int))

    classes = grid.reshape(predict(grid.points))
    keys, t = crossings.class_crossings(grid.xs, grid.ys, classes, predict)
    cell = grid.xs[1] - grid.xs[0]
    points = crossing_points(grid, keys, t)
    line = np.abs(points[:, 0] * 0.8 + points[:, 1] - 0.1) / np.hypot(0.8, 1.0)
    circle = np.abs(np.hypot(points[:, 0] - 0.4, points[:, 1] - 0.3) - 0.35)
    assert len(keys) > 40
    assert np.minimum(line, circle).max() < 0.01 * cell
    # the middle of each edge, where the cells' picture put the border, is up to half a cell off
    middles = crossing_points(grid, keys, np.full(len(keys), 0.5))
    assert np.minimum(np.abs(middles[:, 0] * 0.8 + middles[:, 1] - 0.1) / np.hypot(0.8, 1.0),
                      np.abs(np.hypot(middles[:, 0] - 0.4, middles[:, 1] - 0.3) - 0.35)).max() > 0.2 * cell


def two_points_panel(log_gamma: float):
    points = np.array([[*A, -1.0], [*B, 1.0]])
    values = {**kvstate.defaults(), "source": "drawn", "kernels": ["rbf"], "scaling": "none", "test_fraction": 0.0,
              "points": points}
    prep = pipeline.prepared(values, pipeline.drawn_dataset(points), identity="two points")
    partition = pipeline.partition_of(values, prep)
    kernel = pipeline.fit_kernel(pipeline.KernelSpec.from_settings("rbf", values), prep, partition)
    grid = fg.grid_over(prep.X_view, 70)
    return pipeline.boundary_panel("rbf", kernel, prep, grid, log_gamma, 1.0), grid


def test_a_kernel_panel_carries_its_boundarys_and_margins_crossings_found_on_its_svm():
    panel, grid = two_points_panel(1.3)
    assert set(panel.crossings) == {0.0, -1.0, 1.0}
    keys, t = panel.crossings[0.0]
    assert len(keys) > 60
    assert from_bisector(crossing_points(grid, keys, t)).max() < 0.02 * (grid.xs[1] - grid.xs[0])
    figure = fg.boundary_figure([panel], grid)
    contours = [trace for trace in figure.data if trace.type == "contour"]
    boundary, margins = contours
    (level,) = boundary.meta["kv_crossings"]
    assert level["level"] == 0.0 and level["edges"].tolist() == keys.tolist()
    assert np.allclose(level["at"], t, atol=1e-6)
    assert [c["level"] for c in margins.meta["kv_crossings"]] == [-1.0, 1.0]
    # they travel as Plotly's typed arrays, not number by number
    sent = next(trace for trace in figure.to_plotly_json()["data"] if trace["type"] == "contour")
    assert {key: set(value) for key, value in sent["meta"]["kv_crossings"][0].items() if key != "level"} == \
        {"edges": {"dtype", "bdata"}, "at": {"dtype", "bdata"}}
    # without the margins drawn their crossings do not travel
    plain = fg.boundary_figure([panel], grid, margins=False).to_plotly_json()
    assert [trace["meta"]["kv_crossings"][0]["level"] for trace in plain["data"] if trace["type"] == "contour"] == [0.0]


def test_a_multiclass_panel_carries_where_its_predicted_class_changes_and_its_figure_hands_them_on():
    values = {**kvstate.defaults(), "generator": "mixture", "gen_params": {"n_classes": 3, "n_samples": 150}}
    prep = pipeline.prepared(values)
    grid = fg.grid_over(prep.X_view, 30)
    panel = pipeline.model_panel("KFD", prep, grid, 0.0, 0.0, 0)
    assert panel.multiclass and set(panel.crossings) == {"classes"}
    keys, t = panel.crossings["classes"]
    z = np.asarray(panel.values).ravel()
    start = keys // 2
    end = np.where(keys % 2 == 1, start + len(grid.xs), start + 1)
    assert len(keys) > 10 and np.all(z[start] != z[end]) and np.all((t > 0) & (t < 1))
    figure = fg.boundary_figure([panel], grid).to_plotly_json()
    carried = [trace for trace in figure["data"] if trace["type"] in ("heatmap", "contour")]
    assert carried and all(trace["meta"]["kv_crossings"][0]["level"] == "classes" for trace in carried)
    assert not pipeline.model_panel("KFD", prep, grid, 0.0, 0.0, 0, lines=False).crossings


def test_a_partition_figure_hands_on_its_regions_borders():
    grid = fg.Grid(np.linspace(0, 1, 3), np.linspace(0, 1, 2))
    R = np.tile([[0.8, 0.2]], (6, 1))
    R[[2, 5]] = [0.1, 0.9]
    borders = (np.array([2, 8]), np.array([0.25, 0.75]))
    figure = fg.partition_figure(np.zeros((0, 2)), None, None, np.zeros((2, 2)), np.tile(np.eye(2), (2, 1, 1)), grid,
                                 R, np.zeros((0, 2)), region_crossings=borders).to_plotly_json()
    (regions,) = figure["data"][0]["meta"]["kv_crossings"]
    assert regions["level"] == "classes"
    assert np.frombuffer(base64.b64decode(regions["edges"]["bdata"]), regions["edges"]["dtype"]).tolist() == [2, 8]
    assert np.frombuffer(base64.b64decode(regions["at"]["bdata"]), regions["at"]["dtype"]).tolist() == [0.25, 0.75]
    plain = fg.partition_figure(np.zeros((0, 2)), None, None, np.zeros((2, 2)), np.tile(np.eye(2), (2, 1, 1)), grid,
                                R, np.zeros((0, 2))).to_plotly_json()
    assert "meta" not in plain["data"][0]
