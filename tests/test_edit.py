"""Editing the data on a figure (kernelviz.pipeline.edit, kernelviz.ui.edits): the first edit copies
the data as drawn, points where the figure shows them; edits apply once and in order; a moved
point's run is the pipeline's stages on the moved data, past the caches; Undo and Redo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import pipeline, state
from kernelviz.components.outbox import unapplied
from _charts import figures  # noqa: E402  (tests/ is on the path, as for tests/test_app.py)

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[1]


def prepared(**settings):
    return pipeline.prepared({**state.defaults(), **settings})


def drawn(points, identity: str, **settings):
    """Drawn ``points`` prepared as the app prepares them (kernelviz.ui.stages.handed_in)."""
    return pipeline.prepared({**state.defaults(), "source": "drawn", "points": points, **settings},
                             pipeline.drawn_dataset(points), identity)


def test_the_copy_is_the_data_as_the_figure_shows_them_and_prepares_to_the_same_points():
    prep = prepared()  # moons, z-scored, 30 % held out
    points = pipeline.editable_points(prep, drawn=False)
    assert np.array_equal(points[:, :2], prep.X_view)
    # moons' classes 0 and 1 become the canvas's −1 and +1 (0 is "unlabeled" in drawn data)
    assert set(np.unique(points[:, 2])) == {-1.0, 1.0}
    assert np.array_equal(points[:, 2] == 1.0, prep.y_true == 1.0)
    copy = drawn(points, "copy", scaling="none")
    # unscaled, the drawn copy is the very plane the figure drew, and the same points train and test
    assert np.array_equal(copy.X_view, prep.X_view)
    assert np.array_equal(copy.train, prep.train) and np.array_equal(copy.test, prep.test)


def test_a_third_class_gets_label_two_and_hidden_labels_are_kept_for_the_sidebars_choice():
    classes = [0.0, 1.0, 2.0]
    assert [pipeline.drawn_label(classes, c) for c in classes] == [-1.0, 1.0, 2.0]
    prep = prepared(label_how="per_class", label_per_class=2)
    points = pipeline.editable_points(prep, drawn=False)
    assert prep.unlabeled.sum() > 0 and (points[:, 2] != 0).all()  # hidden, not unknown: the class stays


def test_drawn_data_keep_their_labels():
    raw = np.array([[0, 0, 1], [1, 1, 2], [2, 0, 0], [0.5, 1, 2]], dtype=float)
    prep = drawn(raw, "drawn", scaling="none", test_fraction=0.0)
    assert np.array_equal(pipeline.editable_points(prep, drawn=True), raw)


@pytest.mark.parametrize("settings, words", [
    ({"source": "sample", "sample": "heart"}, "principal components"),
    ({"gen_params": {"n_samples": 1500}}, "more than the 1,000"),
])
def test_data_that_cannot_be_edited_say_why(settings, words):
    prep = prepared(**settings)
    assert words in pipeline.edit_refusal(prep)
    with pytest.raises(ValueError, match=words):
        pipeline.editable_points(prep, drawn=False)


def test_edits_apply_in_order_and_an_edit_of_a_point_that_is_gone_is_skipped():
    points = np.array([[0.0, 0.0, 1.0], [1.0, 1.0, -1.0]])
    out = pipeline.apply_edits(points, [["remove", 0, 0, 0, 0], ["move", 0, 5.0, 5.0, 0], ["move", 1, 9, 9, 0],
                                        ["add", -1, 2.0, 3.0, 0]])
    assert out.tolist() == [[5.0, 5.0, -1.0], [2.0, 3.0, 0.0]]
    assert points.tolist() == [[0.0, 0.0, 1.0], [1.0, 1.0, -1.0]]  # the input is not changed


@pytest.mark.parametrize("row", [["jump", 0, 0, 0, 0], ["move", 0, float("nan"), 0, 0], ["add", 0, 0, 0, 0.5],
                                 ["move", "a", 0, 0, 0], ["move", 0, 0, 0], "move"])
def test_a_malformed_edit_is_refused_in_words(row):
    with pytest.raises(ValueError, match="edit"):
        pipeline.apply_edits(np.zeros((1, 3)), [row])


def test_the_outbox_gives_each_edit_once_in_order_and_refuses_a_malformed_state():
    state_ = {"token": "page", "edits": [[2, "add", -1, 1, 1, 1], [1, "move", 0, 0, 0, 0], [3, "remove", 0, 0, 0, 0]]}
    rows, applied = unapplied(state_, {}, "edits")
    assert [row[0] for row in rows] == [1, 2, 3] and applied == {"page": 3}
    rows, applied = unapplied(state_, {"page": 2}, "edits")
    assert [row[0] for row in rows] == [3]
    assert unapplied(state_, {"page": 3}, "edits") == ([], {"page": 3})
    for bad in ({"token": "", "edits": []}, {"token": "p", "edits": [[0, "add"]]}, {"token": "p", "edits": "x"},
                {"token": "p", "edits": [[True, "add"]]}, {"token": "p" * 65, "edits": []}, None):
        assert unapplied(bad, {}, "edits") is None


def test_a_moved_point_changes_every_stage_after_the_data():
    """The run of a moving point is the pipeline's own stages on other data: the partition's
    means and the SVM's decision values differ from those of the unmoved data."""
    prep = prepared()
    points = pipeline.editable_points(prep, drawn=False)
    moved = pipeline.apply_edits(points, [["move", 0, 2.5, 2.5, 0]])
    values = {**state.defaults(), "source": "drawn", "scaling": "none"}
    before, after = drawn(points, "a", scaling="none"), drawn(moved, "b", scaling="none")
    spec = pipeline.PartitionSpec.from_settings(values)
    part_before, part_after = pipeline.fit_partition(spec, before), pipeline.fit_partition(spec, after)
    assert not np.allclose(np.sort(part_before.means_, axis=0), np.sort(part_after.means_, axis=0))
    grid = fg.grid_over(before.X_view, 20)
    kernel = pipeline.fit_kernel(pipeline.KernelSpec.from_settings("ckrbf", values), after, part_after)
    panel_after = pipeline.boundary_panel("ckrbf", kernel, after, grid, 0.0, 0.0)
    kernel = pipeline.fit_kernel(pipeline.KernelSpec.from_settings("ckrbf", values), before, part_before)
    panel_before = pipeline.boundary_panel("ckrbf", kernel, before, grid, 0.0, 0.0)
    assert not np.allclose(panel_before.values, panel_after.values)


@pytest.mark.parametrize("method", ["kmeans", "gmm", "vi"])
def test_a_refit_from_the_previous_fit_keeps_each_components_identity(method):
    """Components follow their previous means: given the previous fit in another order, the refit on
    slightly moved data comes out in that order, each mean near its previous one."""
    prep = prepared(partition=method, n_components=3)
    spec = pipeline.PartitionSpec.from_settings({**state.defaults(), "partition": method, "n_components": 3})
    cold = pipeline.fit_partition(spec, prep)
    flipped = pipeline.matched(cold, type("Previous", (), {"means_": cold.means_[::-1]})())
    assert np.allclose(flipped.means_, cold.means_[::-1])
    if method != "gmm":  # a point's component follows its mean (kmeans through its estimator's centres)
        assert np.array_equal(flipped.predict(prep.X_model), 2 - cold.predict(prep.X_model))
    moved = pipeline.apply_edits(pipeline.editable_points(prep, drawn=False), [["move", 0, 0.3, 0.2, 0]])
    after = drawn(moved, "moved", scaling="none", partition=method, n_components=3)
    warm = pipeline.fit_partition(spec, after, start=flipped)
    nearest = np.argmin(np.linalg.norm(flipped.means_[:, None] - warm.means_[None], axis=2), axis=1)
    assert np.array_equal(nearest, np.arange(3))
    assert np.abs(warm.means_ - flipped.means_).max() < 0.3


def test_initial_means_are_checked_in_words():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="init must be 2 finite means of 2 features"):
        kv.partitions.fit("kmeans", X, n_components=2, init=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="takes no init means"):
        kv.partitions.fit("vi", X, n_components=2, init=np.zeros((2, 2)))
    # the same data from a cold fit's means: the same partition
    cold = kv.partitions.fit("kmeans", X, n_components=2)
    warm = kv.partitions.fit("kmeans", X, n_components=2, init=cold.means_)
    assert np.allclose(warm.means_, cold.means_) and np.array_equal(warm.labels_, cold.labels_)


# ----------------------------------------------------------------------------- the app's side (kernelviz.ui.edits)

def test_edits_from_the_browser_are_applied_once_in_order_and_undo_and_redo_walk_the_data_back(monkeypatch):
    from kernelviz.ui import edits

    base = pipeline.editable_points(prepared(), drawn=False)
    store = {"source": "generator", "points": np.zeros((0, 3)), "scaling": "zscore", edits.BASE_KEY: base}
    monkeypatch.setattr(edits.st, "session_state", store)
    first = {"token": "page", "edits": [[1, "move", 0, 9.0, 9.0, 0]], "moving": None}
    edits.received(first)
    assert (store["source"], store["scaling"]) == ("drawn", "none") and store[edits.RERUN_KEY]
    assert store["points"][0].tolist() == [9.0, 9.0, base[0, 2]] and np.array_equal(store["points"][1:], base[1:])
    edits.received(first)  # the same state again (a rerun that brought nothing new): applied once only
    assert len(store[edits.UNDO_KEY]) == 1
    # the move went; an add not yet applied and a point on its way come with the next state
    edits.received({"token": "page", "edits": [[1, "move", 0, 9.0, 9.0, 0], [2, "add", -1, 1.0, 1.0, 0]],
                    "moving": {"seq": 4, "index": 5, "x": 2.0, "y": -2.0}})
    assert len(store["points"]) == len(base) + 1 and store["points"][-1].tolist() == [1.0, 1.0, 0.0]
    assert store[edits.MOVING_KEY] == (4, 5, 2.0, -2.0)
    moving = edits.moving_settings({"source": "drawn", "scaling": "none"})
    assert moving["points"][5, :2].tolist() == [2.0, -2.0] and len(moving["points"]) == len(base) + 1
    # a move of a point that is not there, or not a number, is no move
    edits.received({"token": "page", "edits": [], "moving": {"seq": 5, "index": 999, "x": 0, "y": 0}})
    assert store[edits.MOVING_KEY] is None
    edits.undo()
    assert len(store["points"]) == len(base) and store["points"][0].tolist()[:2] == [9.0, 9.0]
    edits.undo()  # before the first edit: the generated data again, scaled as they were
    assert (store["source"], store["scaling"]) == ("generator", "zscore")
    edits.redo()
    assert store["source"] == "drawn" and store["points"][0].tolist()[:2] == [9.0, 9.0]


def test_a_malformed_state_from_the_browser_changes_nothing(monkeypatch):
    from kernelviz.ui import edits

    base = pipeline.editable_points(prepared(), drawn=False)
    store = {"source": "generator", "points": np.zeros((0, 3)), "scaling": "zscore", edits.BASE_KEY: base}
    monkeypatch.setattr(edits.st, "session_state", store)
    for state_ in (None, {"token": "p", "edits": [[1, "jump", 0, 0, 0, 0]]}, {"token": "p", "edits": [[1, "add", 0]]},
                   {"token": "p", "edits": [[1, "move", 0, "x", 0, 0]]}):
        edits.received(state_)
        assert store["source"] == "generator" and edits.UNDO_KEY not in store


@pytest.mark.app
def test_a_frame_of_a_dragged_point_refits_past_the_caches_from_the_previous_partition(monkeypatch):
    """The app's run of a moving point: the partition is refitted from the last one shown, and no
    cache of the page (shared by every session) keeps the frame's data."""
    from streamlit.testing.v1 import AppTest

    from kernelviz.ui import caches, edits

    caches.fit_partition.clear()  # the page's cache is the process's: another test's fit would answer
    starts = []
    fit = pipeline.fit_partition
    monkeypatch.setattr(pipeline, "fit_partition", lambda spec, prep, start=None: starts.append(start) or
                        fit(spec, prep, start))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"view": "boundaries", "gen_params": "n_samples:60", "kernels": "rbf,ckrbf"})
    at.run()
    assert not at.exception and starts == [None]

    def lines_found_on_the_model():  # the committed figure's boundaries cross the cells where the SVMs do
        contours = [trace for trace in figures(at)[0]["data"] if trace.get("type") == "contour"]
        return bool(contours) and all("kv_crossings" in (trace.get("meta") or {}) for trace in contours)

    assert lines_found_on_the_model()
    shown = at.session_state[edits.PARTITION_KEY][1]
    base = at.session_state[edits.BASE_KEY]
    at.session_state[edits.MOVING_KEY] = (1, 0, float(base[0, 0]) + 0.3, float(base[0, 1]))
    at.run()
    assert not at.exception and not at.error
    assert starts[-1] is shown  # refitted from the partition the figure showed
    figure = figures(at)[0]
    xs = {round(x, 9) for trace in figure["data"] if trace.get("mode") == "markers" for x in trace.get("x") or []}
    assert round(float(base[0, 0]) + 0.3, 9) in xs  # the figure draws the point where it is now
    assert "source" not in at.query_params  # nothing committed: a move is not an edit
    # a frame's lines run between its grid values, as the live preview's (finding them cost a frame ~15 %)
    contours = [trace for trace in figure["data"] if trace.get("type") == "contour"]
    assert contours and not any("kv_crossings" in (trace.get("meta") or {}) for trace in contours)
    before = len(starts)
    at.session_state[edits.MOVING_KEY] = None
    at.run()  # the same settings again: the cached fit, no new one
    assert len(starts) == before and caches.previewing() is False
    assert lines_found_on_the_model()


def test_a_link_to_drawn_data_keeps_their_hold_out_whether_or_not_it_is_the_drawn_default():
    """Edited generated data keep the 30 % hold-out, which is no default of drawn data (they hold
    none out): the link must name it, and reopen with it."""
    points = np.array([[0.0, 0.0, 1.0], [1.0, 1.0, -1.0]])
    for fraction in (0.3, 0.0, 0.5):
        values = {**state.defaults(), "source": "drawn", "points": points, "test_fraction": fraction}
        query = state.encode(values)
        assert ("test_fraction" in query) == (fraction != state.DRAWN_TEST_FRACTION)
        assert state.parse(query)[0]["test_fraction"] == fraction
    # generated data: 0.3 is their default, and a link leaves it out
    assert "test_fraction" not in state.encode(state.defaults())
    assert state.parse({})[0]["test_fraction"] == 0.3


# ----------------------------------------------------------------------------- the classes keep their names

def test_the_copy_keeps_each_classs_name_and_minus_and_plus_one_data_need_none():
    """Drawn label 0 is "unlabeled", so class 0 cannot keep its number: the copy carries the names
    the figures gave the classes, by drawn label, and prepared drawn data are named by them."""
    three = prepared(generator="blobs", gen_params={"n_classes": 3, "n_samples": 60})
    points = pipeline.editable_points(three, drawn=False)
    names = pipeline.editable_names(three, drawn=False)
    assert names == {-1.0: "class 0", 1.0: "class 1", 2.0: "class 2"}
    copy = pipeline.prepared({**state.defaults(), "source": "drawn", "points": points, "class_names": names,
                              "scaling": "none"}, pipeline.drawn_dataset(points, names), "copy")
    assert fg.class_names(copy.legend_classes) == {-1.0: "class 0", 1.0: "class 1", 2.0: "class 2"}
    assert pipeline.editable_names(copy, drawn=True) == names  # a later edit keeps them
    assert pipeline.editable_names(prepared(), drawn=False) == {-1.0: "class 0", 1.0: "class 1"}  # moons' 0 and 1
    # −1 / +1 data keep their labels and their names: nothing to carry
    assert pipeline.editable_names(prepared(source="sample", sample="fourclass"), drawn=False) is None
    # a file's names (iris's species) go with their classes
    X, y = kv.data.make("blobs", n_samples=45, n_classes=3, random_state=0)
    species = {0.0: "setosa", 1.0: "versicolor", 2.0: "virginica"}
    upload = kv.data.Dataset(X, y, name="iris", class_names=species)
    named = pipeline.prepared({**state.defaults(), "source": "upload"}, upload, "iris")
    assert pipeline.editable_names(named, drawn=False) == {-1.0: "setosa", 1.0: "versicolor", 2.0: "virginica"}


def test_class_names_round_trip_through_a_link_and_a_bad_value_says_why():
    points = np.array([[0.0, 0.0, -1.0], [1.0, 1.0, 1.0], [2.0, 0.0, 2.0], [0.5, 0.5, 0.0]])
    names = {-1.0: "class 0", 1.0: "50% ~ setosa: <b>", 2.0: "virginica"}
    values = {**state.defaults(), "source": "drawn", "points": points, "class_names": names}
    query = state.encode(values)
    assert query["class_names"] == "-1:class 0~1:50%25 %7E setosa: <b>~2:virginica"
    parsed, problems = state.parse(query)
    assert problems == [] and parsed["class_names"] == names
    # only with the drawn points they name
    assert "class_names" not in state.encode({**values, "source": "generator"})
    assert "class_names" not in state.encode({**values, "class_names": None})
    for raw, words in [("1:a~1:b", "names label 1 twice"), ("0:a~1:b", "other than 0"), ("1:a~2:a", "one name"),
                       ("1.5:a", "whole number"), ("x:a", "label of class_names"), ("a", "expected label:name"),
                       ("1:%FF", "no UTF-8"), ("1: ", "non-empty")]:
        with pytest.raises(ValueError, match=words):
            state.validate("class_names", raw)
        parsed, problems = state.parse({**query, "class_names": raw})
        assert parsed["class_names"] is None and len(problems) == 1 and "class_names" in problems[0], raw
    # names that leave a drawn class unnamed are dropped, saying which
    parsed, problems = state.parse({**query, "class_names": "-1:a~1:b"})
    assert parsed["class_names"] is None and "label(s) 2" in problems[0]


def _legend(at) -> list[tuple]:
    """The classes as the first figure's legend shows them, in its order: name, colour, symbol."""
    return [(trace["name"], str(trace["marker"].get("color")), str(trace["marker"].get("line")),
             str(trace["marker"].get("symbol"))) for trace in figures(at)[0]["data"]
            if str(trace.get("legendgroup", "")).startswith("class") and trace.get("showlegend")]


def _kinds(at) -> list:
    """The choices of what a click on empty space adds (each class named as the legend names it)."""
    return [group.options for group in at.get("button_group") if "unlabeled" in group.options]


def _first_edit(at, monkeypatch) -> None:
    """The browser's first edit, as its callback takes it before the next run: a point moved a little."""
    from kernelviz.ui import edits

    before = at.session_state.to_dict()
    store = dict(before)
    base = store[edits.BASE_KEY]
    with monkeypatch.context() as patch:
        patch.setattr(edits.st, "session_state", store)
        edits.received({"token": "page", "edits": [[1, "move", 0, float(base[0, 0]) + 0.05, float(base[0, 1]), 0]],
                        "moving": None})
    assert store["source"] == "drawn"
    for key in before.keys() - store.keys():
        del at.session_state[key]
    for key, value in store.items():
        if key not in before or value is not before[key]:
            at.session_state[key] = value
    at.run()


@pytest.mark.app
def test_the_first_edit_keeps_every_classs_name_colour_and_order_and_so_does_its_link(monkeypatch):
    """Generated data of three classes: "class 0 / 1 / 2" before an edit, during a drag, after the first
    edit and in the link it writes; not "class −1 / +1 / 2" because one point moved."""
    from streamlit.testing.v1 import AppTest

    from kernelviz.ui import edits

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"view": "boundaries", "generator": "blobs", "gen_params": "n_classes:3,n_samples:60",
                            "kernels": "rbf"})
    at.run()
    assert not at.exception and not at.error
    before, kinds = _legend(at), _kinds(at)
    assert [entry[0] for entry in before] == ["class 0 (train)", "class 1 (train)", "class 2 (train)",
                                              "class 0 (test)", "class 1 (test)", "class 2 (test)"]
    base = at.session_state[edits.BASE_KEY]
    at.session_state[edits.MOVING_KEY] = (1, 0, float(base[0, 0]) + 0.05, float(base[0, 1]))
    at.run()  # a frame of the drag
    assert not at.exception and not at.error
    assert _legend(at) == before
    _first_edit(at, monkeypatch)
    assert not at.exception and not at.error
    assert at.session_state["source"] == "drawn"
    assert _legend(at) == before and _kinds(at) == kinds
    link = {k: v[-1] if isinstance(v, list) else v for k, v in dict(at.query_params).items()}
    assert "points" in link and "class_names" in link
    again = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    again.query_params.update(link)
    again.run()
    assert not again.exception and not again.error
    assert _legend(again) == before and _kinds(again) == kinds


# ----------------------------------------------------------------------------- every kernel and model, lessons too

def _moved_frame(at, dx: float = 0.3) -> float:
    """A frame of the first data point dragged ``dx`` to the right; the x where it is now."""
    from kernelviz.ui import edits

    base = at.session_state[edits.BASE_KEY]
    x = round(float(base[0, 0]) + dx, 9)
    at.session_state[edits.MOVING_KEY] = (1, 0, x, float(base[0, 1]))
    at.run()
    return x


def _marker_xs(at) -> set:
    return {round(x, 9) for figure in figures(at) for trace in figure["data"]
            if "markers" in str(trace.get("mode", "")) for x in trace.get("x") or []}


@pytest.mark.app
@pytest.mark.parametrize("settings", [
    *({"view": "boundaries", "kernels": kernel} for kernel in ("mrbf", "ckrbf-radial", "gmm", "lap", "lppk", "rbf-ppk")),
    *({"view": "boundaries", "kernels": "rbf", "models": model} for model in ("mkRBF", "SCM", "MPM", "MCPM", "KFD",
                                                                              "KNDA", "CKSVMNDA")),
    {"view": "similarity", "kernels": "rbf,mrbf,ckrbf,rwm"},
    {"view": "partition", "kernels": "ckrbf", "partition": "gmm"},
    {"lesson": "rwm", "step": "2"},
    {"lesson": "mcpm", "step": "2"},
], ids=lambda s: "-".join(f"{v}" for v in s.values()))
def test_every_kernel_model_and_lesson_refits_a_dragged_points_frame(settings):
    """Issue 31, item 5: every kernel and model, and the lessons' figures, follow a dragged point: the
    frame draws the point where it is now, with no error, and nothing is committed by a move."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"gen_params": "n_samples:60", **settings})
    at.run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    x = _moved_frame(at)
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert x in _marker_xs(at), settings
    assert at.query_params.get("source") != ["drawn"]  # a move is not an edit
