"""Live exploration (kernelviz.ui.live): which lattice a session shows, and the app's scrub fragments.

:class:`LiveLattices` is checked with stand-in jobs whose state the test sets (no thread
timing involved); the app is checked through AppTest, reading the component's data back
from its proto.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from kernelviz import lattice as kvlattice
from kernelviz.ui import live

APP = str(Path(__file__).resolve().parent.parent / "app.py")
SMALL = {"gen_params": "n_samples:60", "kernels": "rbf,ckrbf"}


class StandInJob:
    """A LatticeJob's interface with its state set by the test."""

    def __init__(self, name: str):
        self.lattice = name
        self.done = False
        self.cancelled = False
        self.error = None

    def cancel(self) -> None:
        self.cancelled = True


class Starter:
    """Counts the jobs started and names their lattices after the request."""

    def __init__(self):
        self.started: list[StandInJob] = []

    def __call__(self, name: str):
        def start():
            job = StandInJob(name)
            self.started.append(job)
            return job

        return start


def request(lattices: live.LiveLattices, starter: Starter, context: str, committed: tuple, kind: str = "decision"):
    return lattices.request(kind, context, committed, starter(f"{kind}:{context}:{committed}"))


def test_a_request_starts_one_job_and_shows_its_lattice_while_it_runs():
    store, starter = {}, Starter()
    lattices = live.LiveLattices(store)
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.running and state.lattice == "decision:moons:(0.0, 0.0)" and not state.previous
    assert request(lattices, starter, "moons", (0.0, 0.0)).running
    assert len(starter.started) == 1  # the same settings never start a second job
    starter.started[0].done = True
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert not state.running and state.lattice == "decision:moons:(0.0, 0.0)"
    assert live.STORE_KEY in store  # lives in the session's state


def test_a_deferred_request_shows_the_previous_lattice_and_starts_nothing():
    lattices, starter = live.LiveLattices({}), Starter()
    state = lattices.request("decision", "moons", (0.0, 0.0), starter("first"), begin=False)
    assert state.running and state.lattice is None and not starter.started
    lattices.start_pending()
    assert len(starter.started) == 1 and not lattices.pending
    lattices.start_pending()
    assert len(starter.started) == 1
    starter.started[0].done = True
    state = lattices.request("decision", "moons", (0.5, 0.0), starter("second"), begin=False)
    assert state.running and state.previous and state.lattice == "first" and len(starter.started) == 1


def test_new_values_show_the_last_finished_lattice_until_theirs_is_ready():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[0].done = True
    state = request(lattices, starter, "moons", (0.5, 0.0))
    assert state.running and state.previous and state.lattice == "decision:moons:(0.0, 0.0)"
    starter.started[1].done = True
    state = request(lattices, starter, "moons", (0.5, 0.0))
    assert not state.running and not state.previous and state.lattice == "decision:moons:(0.5, 0.0)"


def test_a_superseded_unfinished_job_is_cancelled_and_never_shown():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    state = request(lattices, starter, "moons", (0.5, 0.0))
    assert starter.started[0].cancelled
    assert state.lattice == "decision:moons:(0.5, 0.0)" and not state.previous


def test_other_data_or_kernels_drop_every_lattice_of_the_old_ones():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[0].done = True
    state = request(lattices, starter, "circles", (0.0, 0.0))
    assert starter.started[0].cancelled
    assert state.lattice == "decision:circles:(0.0, 0.0)" and not state.previous
    assert [key[1] for key in lattices.jobs] == ["circles"]


def test_only_the_newest_finished_lattice_is_kept_as_the_previous_one():
    lattices, starter = live.LiveLattices({}), Starter()
    for log_gamma in (0.0, 0.5, 1.0):
        request(lattices, starter, "moons", (log_gamma, 0.0))
        starter.started[-1].done = True
    state = request(lattices, starter, "moons", (1.5, 0.0))
    assert state.lattice == "decision:moons:(1.0, 0.0)"
    assert [key[2] for key in lattices.jobs] == [(1.0, 0.0), (1.5, 0.0)]


def test_a_session_holds_at_most_max_lattices():
    lattices, starter = live.LiveLattices({}, max_lattices=3), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[-1].done = True
    request(lattices, starter, "moons", (0.5, 0.0))
    starter.started[-1].done = True
    request(lattices, starter, "moons-ref", (0.0, None), kind="similarity")
    starter.started[-1].done = True
    request(lattices, starter, "moons-ref", (0.5, None), kind="similarity")
    assert len(lattices.jobs) == 3
    assert ("decision", "moons", (0.0, 0.0)) not in lattices.jobs  # the least recently used went first


def test_stop_keeps_the_job_stopped_until_restart():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    lattices.stop("decision")
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.stopped and not state.running and len(starter.started) == 1
    lattices.restart("decision")
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.running and len(starter.started) == 2


def test_leaving_a_view_stops_its_unfinished_job_and_keeps_finished_lattices():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[-1].done = True
    request(lattices, starter, "moons-ref", (0.0, None), kind="similarity")
    lattices.leave("decision")
    assert starter.started[1].cancelled and not starter.started[0].cancelled
    assert [key[0] for key in lattices.jobs] == ["decision"]


def test_a_failed_job_is_reported_not_shown():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[0].done, starter.started[0].error = True, RuntimeError("boom")
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.lattice is None and isinstance(state.error, RuntimeError) and not state.running


# ============================================================================ the app

def make_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {**SMALL, **query}.items():
        at.query_params[key] = value
    return at.run()


def finish_jobs(at: AppTest) -> None:
    for job in at.session_state[live.STORE_KEY].values():
        job.result(120)


def scrub_data(at: AppTest) -> dict:
    (element,) = at.get("bidi_component")
    return json.loads(element.proto.json)


def test_boundaries_show_the_scrub_preparing_then_live_with_every_kernel():
    at = make_app(view="boundaries")
    assert not at.exception
    assert any("Preparing the live preview" in c.value for c in at.caption)
    assert [b.label for b in at.button if b.key == "stop_decision"] == ["Stop"]
    finish_jobs(at)
    at.run()
    assert not any("Preparing the live preview" in c.value for c in at.caption)
    data = scrub_data(at)
    lattice = data["lattice"]
    assert lattice["complete"] and [k["name"] for k in lattice["kernels"]] == ["rbf", "ckrbf"]
    assert all(k["fields"] is not None for k in lattice["kernels"])
    assert len(lattice["axes"]["log_gamma"]) >= 25 and lattice["nx"] >= live.RESOLUTION - 1
    assert (data["log_gamma"], data["log_C"]) == (0.0, 0.0)


def test_a_released_value_becomes_the_setting_and_the_old_lattice_shows_until_the_new_one_is_ready():
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    # what the component's release callback does (kernelviz.ui.live._commit) before the page reruns
    at.session_state["log_gamma"] = 0.5
    at.run()
    assert not at.exception
    assert at.query_params["log_gamma"] == "0.5"
    assert "γ = 3.16" in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    data = scrub_data(at)
    assert data["log_gamma"] == 0.5 and data["lattice"]["log_gamma"] == 0.0  # the older lattice, labelled by the component
    keys = list(at.session_state[live.STORE_KEY])
    assert [key[2] for key in keys] == [(0.0, 0.0), (0.5, 0.0)]
    finish_jobs(at)
    at.run()
    assert scrub_data(at)["lattice"]["log_gamma"] == 0.5


def test_new_data_never_show_the_old_lattice():
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    (old_key,) = at.session_state[live.STORE_KEY]
    old_job = at.session_state[live.STORE_KEY][old_key]
    at.session_state["data_seed"] = 7
    at.run()
    assert old_job.cancelled
    (new_key,) = at.session_state[live.STORE_KEY]
    assert new_key[1] != old_key[1] and new_key[2] == old_key[2]
    assert scrub_data(at)["lattice"]["x_range"] != [float(old_job.lattice.grid.xs[0]),
                                                    float(old_job.lattice.grid.xs[-1])]


def test_similarity_scrubs_gamma_around_the_reference_point():
    at = make_app(view="similarity")
    assert not at.exception
    finish_jobs(at)
    at.run()
    data = scrub_data(at)
    assert data["lattice"]["kind"] == "similarity" and data["lattice"]["complete"]
    reference = (at.session_state["ref_x"], at.session_state["ref_y"])
    assert tuple(data["lattice"]["reference"]) == pytest.approx(reference)
    assert data["log_C"] is None and "log_C" not in data["lattice"]["axes"]


def test_switching_views_stops_the_other_views_unfinished_lattice():
    at = make_app(view="boundaries")
    (job,) = at.session_state[live.STORE_KEY].values()
    at.segmented_control(key="view").set_value("data")
    at.run()
    kept = list(at.session_state[live.STORE_KEY].values())
    # either it had finished (kept for coming back) or it was stopped and dropped
    assert (job in kept and not job.cancelled) or (job.cancelled and job not in kept)
    assert all(not j.cancelled for j in kept)


def test_the_live_field_at_the_committed_values_is_the_svm_the_lattice_module_computes():
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    data = scrub_data(at)["lattice"]
    (job,) = at.session_state[live.STORE_KEY].values()
    expected = job.lattice
    kernels, prep, _ = kvlattice.default_inputs(n_samples=60, names=("rbf", "ckrbf"))
    direct = kvlattice.Lattice.decision(("rbf", "ckrbf"), expected.grid, 0.0, 0.0)
    for item in kvlattice.decision_fields(direct, kernels, prep):
        direct.add(item)
    for name in ("rbf", "ckrbf"):
        np.testing.assert_array_equal(expected.codes[(name, "log_gamma")], direct.codes[(name, "log_gamma")])
    assert data["x_range"] == [float(expected.grid.xs[0]), float(expected.grid.xs[-1])]


# ============================================================================ linked views

def charts(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def test_a_click_on_a_grid_cell_opens_decision_boundaries_for_that_kernel_there():
    at = make_app(view="grid", grid_steps="3", cv="2")
    next(b for b in at.button if b.label == "Run grid search").click()
    at.run()
    at.session_state["_grid_job"].job.result(300)
    at.run()
    (fig,) = charts(at)
    curve = next(i for i, t in enumerate(fig["data"]) if t.get("meta") == "ckrbf")
    at.session_state["grid_chart"] = {"selection": {"points": [{"x": -3.0, "y": 1.0, "curve_number": curve}]}}
    at.run()
    at.run()  # the click is applied at the start of the next run
    assert not at.exception
    assert at.session_state["view"] == "boundaries"
    assert at.session_state["kernels"] == ["ckrbf", "rbf"]
    assert (at.session_state["log_gamma"], at.session_state["log_C"]) == (-3.0, 1.0)
    title = charts(at)[0]["layout"]["title"]["text"]
    assert "γ = 0.001" in title and "C = 10" in title


def test_a_click_on_a_boundary_point_sets_the_reference_and_opens_similarity_there():
    at = make_app(view="boundaries")
    at.session_state["boundary_chart"] = {"selection": {"points": [{"x": 0.5, "y": -0.25, "curve_number": 2}]}}
    at.run()
    at.run()
    assert (at.session_state["ref_x"], at.session_state["ref_y"]) == (0.5, -0.25)
    (button,) = [b for b in at.button if b.key == "open_similarity"]
    button.click()
    at.run()
    assert not at.exception
    assert at.session_state["view"] == "similarity"
    reference = next(t for t in charts(at)[0]["data"] if t.get("name") == "reference point")
    assert (reference["x"][0], reference["y"][0]) == (0.5, -0.25)


# ============================================================================ drawing

def test_drawn_points_all_train_by_default_and_the_hold_out_comes_back_after_drawing():
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert at.session_state["test_fraction"] == 0.3
    at.radio(key="source").set_value("drawn")
    at.run()
    assert at.session_state["test_fraction"] == 0.0
    at.radio(key="source").set_value("generator")
    at.run()
    assert at.session_state["test_fraction"] == 0.3
    linked = make_app(source="drawn", points="1_0.5_1~1_1_1~0.5_1_1~-1_0_-1~-1_-0.5_-1~-0.5_0_-1")
    assert linked.session_state["test_fraction"] == 0.0
    summary = next(m.value for m in linked.markdown if "train" in m.value)
    assert "3 train" in summary and "test" not in summary  # six drawn points, six training points
    held = make_app(source="drawn", points="1_0.5_1~1_1_1~0.5_1_1~-1_0_-1~-1_-0.5_-1~-0.5_0_-1", test_fraction="0.4")
    assert held.session_state["test_fraction"] == 0.4  # a link that says so still holds points out


def test_the_canvas_says_how_its_coordinates_map_to_the_other_views():
    points = np.array([[0.0, 0.0, 1.0], [2.0, 4.0, -1.0]])
    # z-score by hand: means (1, 2), population standard deviations (1, 2)
    assert live.drawn_coordinates_note(points, "zscore") == (
        "The other views show them zscore-scaled: x′ = (x − 1) / 1, y′ = (y − 2) / 2.")
    # min-max: minima (0, 0), ranges (2, 4)
    assert live.drawn_coordinates_note(points, "minmax") == (
        "The other views show them minmax-scaled: x′ = x / 2, y′ = y / 4.")
    assert live.drawn_coordinates_note(points, "none") == "The other views use these coordinates as they are."


# ============================================================================ a figure drawn once

def four_panel_spec() -> dict:
    """A figure as figures.py builds them: numpy arrays (base64 in the JSON), a template, a title."""
    import plotly.graph_objects as go
    import plotly.io as pio

    z = np.linspace(-1, 1, 12).reshape(3, 4)
    traces = [{"type": "heatmap", "z": z, "xaxis": "x2", "yaxis": "y2"},
              {"type": "contour", "z": z, "contours": {"start": 0, "end": 0}},
              {"type": "scatter", "x": np.arange(3.0), "y": np.ones(3), "mode": "markers"}]
    layout = {"title": {"text": "Decision boundaries"}, "template": pio.templates["plotly_white"].to_plotly_json(),
              "xaxis2": {"gridcolor": "#123456"}, "hovermode": "x"}
    return go.Figure({"data": traces, "layout": layout}, _validate=False).to_plotly_json()


def test_a_drawn_once_figure_has_plain_lists_with_the_same_values():
    spec = four_panel_spec()
    assert "bdata" in json.dumps(spec["data"])  # what Plotly.react compared by identity
    once = live.drawn_once(spec, selectable=True)
    assert "bdata" not in json.dumps(once["data"])
    np.testing.assert_array_equal(once["data"][0]["z"], np.linspace(-1, 1, 12).reshape(3, 4))
    np.testing.assert_array_equal(once["data"][2]["x"], [0.0, 1.0, 2.0])


def test_a_drawn_once_figure_carries_its_template_in_itself_and_no_template():
    once = live.drawn_once(four_panel_spec())
    layout = once["layout"]
    assert "template" not in layout
    assert layout["plot_bgcolor"] == "white"  # plotly_white's
    assert layout["xaxis2"]["gridcolor"] == "#123456"  # the figure's own value wins
    assert layout["xaxis"]["tickfont"] == live.STREAMLIT_LOOK["xaxis"]["tickfont"]  # every x axis
    assert layout["xaxis2"]["tickfont"] == live.STREAMLIT_LOOK["xaxis"]["tickfont"]
    assert once["data"][0]["colorscale"][0][1] == "#0d0887"  # plotly_white's heatmap default
    assert layout["title"]["text"] == "<b>Decision boundaries</b>"
    assert live.drawn_once(once)["layout"]["title"]["text"] == "<b>Decision boundaries</b>"  # bold once


def test_a_drawn_once_figure_has_the_selection_layout_only_where_it_sets_none():
    layout = live.drawn_once(four_panel_spec(), selectable=True)["layout"]
    assert (layout["clickmode"], layout["dragmode"], layout["hovermode"]) == ("event+select", "pan", "x")
    assert "clickmode" not in live.drawn_once(four_panel_spec())["layout"]


def test_the_data_revision_changes_with_the_data_only():
    a, b = four_panel_spec(), four_panel_spec()
    b["layout"]["title"]["text"] = "another title"
    revision = live.drawn_once(a)["layout"]["datarevision"]
    assert live.drawn_once(b)["layout"]["datarevision"] == revision
    import plotly.graph_objects as go

    changed = go.Figure(a, _validate=False)
    changed.data[0].z = np.zeros((3, 4))
    assert live.drawn_once(changed.to_plotly_json())["layout"]["datarevision"] != revision


def test_a_field_drawn_by_three_traces_is_one_list_that_copies_as_itself():
    import copy

    once = live.drawn_once(four_panel_spec())
    assert once["data"][0]["z"] is once["data"][1]["z"]
    assert copy.deepcopy(once)["data"][0]["z"] is once["data"][0]["z"]


def test_the_live_views_send_their_figure_without_typed_arrays_or_template():
    for view in ("boundaries", "similarity"):
        at = make_app(view=view)
        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        assert "bdata" not in json.dumps(spec["data"]) and spec["layout"].get("template") is None, view
        assert spec["layout"]["datarevision"] and spec["layout"]["clickmode"] == "event+select", view
