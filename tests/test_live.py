"""Live exploration (kernelviz.ui.live): which lattice a session shows, and the figures that preview it.

:class:`LiveLattices` is checked with stand-in jobs whose state the test sets (no thread
timing involved); the app is checked through AppTest, reading the component's data back
from its proto.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from _charts import click, figures
from apptest import open_app
from kernelviz import lattice as kvlattice
from kernelviz.components import plot as kvplot
from kernelviz.ui import caches, grid_jobs, live, pollers, session_end

pytestmark = pytest.mark.app

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


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
def test_new_values_show_the_last_finished_lattice_until_theirs_is_ready():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[0].done = True
    state = request(lattices, starter, "moons", (0.5, 0.0))
    assert state.running and state.previous and state.lattice == "decision:moons:(0.0, 0.0)"
    starter.started[1].done = True
    state = request(lattices, starter, "moons", (0.5, 0.0))
    assert not state.running and not state.previous and state.lattice == "decision:moons:(0.5, 0.0)"


@pytest.mark.unit
def test_a_superseded_unfinished_job_is_cancelled_and_never_shown():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    state = request(lattices, starter, "moons", (0.5, 0.0))
    assert starter.started[0].cancelled
    assert state.lattice == "decision:moons:(0.5, 0.0)" and not state.previous


@pytest.mark.unit
def test_other_data_or_kernels_drop_every_lattice_of_the_old_ones():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[0].done = True
    state = request(lattices, starter, "circles", (0.0, 0.0))
    assert starter.started[0].cancelled
    assert state.lattice == "decision:circles:(0.0, 0.0)" and not state.previous
    assert [key[1] for key in lattices.jobs] == ["circles"]


@pytest.mark.unit
def test_only_the_newest_finished_lattice_is_kept_as_the_previous_one():
    lattices, starter = live.LiveLattices({}), Starter()
    for log_gamma in (0.0, 0.5, 1.0):
        request(lattices, starter, "moons", (log_gamma, 0.0))
        starter.started[-1].done = True
    state = request(lattices, starter, "moons", (1.5, 0.0))
    assert state.lattice == "decision:moons:(1.0, 0.0)"
    assert [key[2] for key in lattices.jobs] == [(1.0, 0.0), (1.5, 0.0)]


@pytest.mark.unit
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


@pytest.mark.unit
def test_stop_keeps_the_job_stopped_until_restart():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    lattices.stop("decision")
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.stopped and not state.running and len(starter.started) == 1
    lattices.restart("decision")
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.running and len(starter.started) == 2


@pytest.mark.unit
def test_leaving_a_view_stops_its_unfinished_job_and_keeps_finished_lattices():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[-1].done = True
    request(lattices, starter, "moons-ref", (0.0, None), kind="similarity")
    lattices.leave("decision")
    assert starter.started[1].cancelled and not starter.started[0].cancelled
    assert [key[0] for key in lattices.jobs] == ["decision"]


@pytest.mark.unit
def test_the_previous_lattice_is_the_newest_finished_one_of_the_same_data_and_kernels():
    lattices, starter = live.LiveLattices({}), Starter()
    assert lattices.previous("decision", "moons") is None
    request(lattices, starter, "moons", (0.0, 0.0))
    assert lattices.previous("decision", "moons") is None  # still running
    starter.started[-1].done = True
    request(lattices, starter, "moons", (0.5, 0.0))
    request(lattices, starter, "moons-ref", (0.0, None), kind="similarity")
    starter.started[-1].done = True
    assert lattices.previous("decision", "moons") == "decision:moons:(0.0, 0.0)"
    assert lattices.previous("decision", "circles") is None
    assert lattices.previous("similarity", "moons-ref") == "similarity:moons-ref:(0.0, None)"


@pytest.mark.unit
def test_release_stops_every_job_and_keeps_no_lattice_or_request():
    store, starter = {}, Starter()
    lattices = live.LiveLattices(store)
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[-1].done = True
    request(lattices, starter, "moons", (0.5, 0.0))
    lattices.request("decision", "moons", (1.0, 0.0), starter("deferred"), begin=False)
    live.LiveLattices(store).release()
    assert all(job.cancelled for job in starter.started)
    assert not lattices.jobs and not lattices.pending and not store[live.PENDING_KEY]


@pytest.mark.unit
def test_a_failed_job_is_reported_not_shown():
    lattices, starter = live.LiveLattices({}), Starter()
    request(lattices, starter, "moons", (0.0, 0.0))
    starter.started[0].done, starter.started[0].error = True, RuntimeError("boom")
    state = request(lattices, starter, "moons", (0.0, 0.0))
    assert state.lattice is None and isinstance(state.error, RuntimeError) and not state.running


# ============================================================================ the app

def make_app(**query) -> AppTest:
    return open_app({**SMALL, **query})


def lattice_jobs(at: AppTest) -> dict:
    """The session's lattice jobs, by (kind, context, committed)."""
    return at.session_state[session_end.KEY][live.STORE_KEY]


def grid_job(at: AppTest) -> grid_jobs.SessionJob:
    return grid_jobs.current(at.session_state[session_end.KEY])


def finish_jobs(at: AppTest) -> None:
    for job in lattice_jobs(at).values():
        job.result(120)


def live_data(at: AppTest) -> dict:
    """The live preview sent with the page's figure (there is one figure with one)."""
    (data,) = [payload["live"] for payload in (kvplot.unpack(e.proto.bytes) for e in at.get("bidi_component")
                                               if e.proto.component_name == "kernelviz.plot") if payload["live"]]
    return data


def test_boundaries_figure_is_its_own_live_preview_preparing_then_ready_with_every_kernel():
    at = make_app(view="boundaries")
    assert not at.exception
    assert any("Preparing the live preview" in c.value for c in at.caption)
    assert [b.label for b in at.button if b.key == "stop_decision"] == ["Stop"]
    finish_jobs(at)
    at.run()
    assert not any("Preparing the live preview" in c.value for c in at.caption)
    data = live_data(at)
    lattice = data["lattice"]
    assert lattice["complete"] and [k["name"] for k in lattice["kernels"]] == ["rbf", "ckrbf"]
    assert all(k["fields"] is not None for k in lattice["kernels"])
    assert len(lattice["axes"]["log_gamma"]) >= 25
    assert (data["log_gamma"], data["log_C"]) == (0.0, 0.0)
    # on the figure's own grid, and each kernel on its own panel of the figure
    (heatmap, *_) = [t for t in figures(at)[0]["data"] if t["type"] == "heatmap"]
    assert lattice["nx"] == len(heatmap["x"]) and lattice["ny"] == len(heatmap["y"])
    assert data["panels"] == [{"name": "rbf", "xaxis": "x", "yaxis": "y", "margins": True},
                              {"name": "ckrbf", "xaxis": "x2", "yaxis": "y2", "margins": True}]
    assert data["held"] == [] and data["locked"] == []


def test_a_lattice_one_session_computed_comes_from_the_disk_to_a_new_session_of_a_new_server(monkeypatch):
    """Issue 30: live lattices last across sessions and restarts (the disk cache); the new server's
    session computes no field of it, and its page shows the same lattice."""
    from kernelviz import lattice as kvlattice

    first = make_app(view="boundaries", models="mpm")
    finish_jobs(first)
    first.run()
    before = live_data(first)["lattice"]
    assert before["complete"]
    st.cache_resource.clear()  # a new server: nothing of the first one in memory
    caches.RESULTS.clear()

    def computes(*args, **kwargs):
        raise AssertionError("a stored lattice was computed again")
        yield  # a generator, as the lattice's fields are

    monkeypatch.setitem(kvlattice.FIELDS, "decision", computes)
    second = make_app(view="boundaries", models="mpm")
    finish_jobs(second)
    second.run()
    after = live_data(second)["lattice"]
    assert after["complete"] and [k["name"] for k in after["kernels"]] == [k["name"] for k in before["kernels"]]
    assert after["id"] != before["id"], "each page has a lattice of its own"
    assert [k["accuracy"] for k in after["kernels"]] == [k["accuracy"] for k in before["kernels"]]



@pytest.mark.parametrize("page", [{"view": "boundaries", "models": "mpm"},
                                  {"view": "similarity"},
                                  {"view": "similarity", "ref_x": "0.25", "ref_y": "-0.5"}])
def test_warm_stores_the_lattice_a_live_page_asks_for(monkeypatch, page):
    """Issue 30: ``kernelviz warm LINK`` computes a Decision boundaries or Similarity page's live lattice
    into the disk cache; the page opened afterwards (a new server) computes no field of it."""
    from kernelviz.pipeline import warm

    query = {**SMALL, **page}
    link = "?" + "&".join(f"{k}={v}" for k, v in query.items())
    assert warm.warm([link]) == {"searched": 0, "lattices": 1, "stored already": 0, "pages": 1}
    assert warm.warm([link]) == {"searched": 0, "lattices": 0, "stored already": 1, "pages": 1}
    st.cache_resource.clear()  # a new server: nothing in memory
    caches.RESULTS.clear()

    def computes(*args, **kwargs):
        raise AssertionError("a warmed lattice was computed again")
        yield  # a generator, as the lattice's fields are

    monkeypatch.setitem(kvlattice.FIELDS, "decision", computes)
    monkeypatch.setitem(kvlattice.FIELDS, "similarity", computes)
    at = open_app(query)
    finish_jobs(at)
    at.run()
    assert not at.exception, at.exception
    lattice = live_data(at)["lattice"]
    assert lattice["complete"]
    assert len(lattice["kernels"]) == (3 if page["view"] == "boundaries" else 2)

def test_stop_and_prepare_under_the_figure_and_the_figure_says_whether_it_waits():
    """The figure's ``waiting`` is what makes the watcher's poll tick (poll.js): on while the lattice
    is prepared, off once it is there or stopped; Stop and Prepare are the view's own buttons."""
    at = make_app(view="boundaries")
    assert live_data(at)["waiting"] is True
    next(b for b in at.button if b.key == "stop_decision").click()
    at.run()
    assert not at.exception
    assert any("Live preview stopped" in c.value for c in at.caption)
    assert live_data(at)["waiting"] is False and at.session_state[live.WATCH_KEY] is None
    next(b for b in at.button if b.key == "restart_decision").click()
    at.run()
    assert any("Preparing the live preview" in c.value for c in at.caption)
    assert live_data(at)["waiting"] is True and at.session_state[live.WATCH_KEY][0] == "decision"
    finish_jobs(at)
    at.run()
    assert live_data(at)["waiting"] is False and at.session_state[live.WATCH_KEY] is None


def test_a_released_value_becomes_the_setting_and_the_old_lattice_shows_until_the_new_one_is_ready():
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    # what the figure's release callback does (kernelviz.ui.live.commit) before the page reruns
    at.session_state["log_gamma"] = 0.5
    at.run()
    assert not at.exception
    assert at.query_params["log_gamma"] == "0.5"
    assert "γ = 3.16" in figures(at)[0]["layout"]["title"]["text"]
    data = live_data(at)
    assert data["log_gamma"] == 0.5 and data["lattice"]["log_gamma"] == 0.0  # the older lattice, where it holds
    keys = list(lattice_jobs(at))
    assert [key[2] for key in keys] == [(0.0, 0.0), (0.5, 0.0)]
    finish_jobs(at)
    at.run()
    assert live_data(at)["lattice"]["log_gamma"] == 0.5


def test_a_gamma_commit_starts_from_the_older_lattices_gamma_fields():
    """After a γ step at the same C, every γ field of the older lattice still holds
    (kernelviz.lattice.Lattice.reuse): the new job computes only the C lattice."""
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    ((_, old),) = lattice_jobs(at).items()
    at.session_state["log_gamma"] = 0.5
    at.run()
    new = lattice_jobs(at)[next(key for key in lattice_jobs(at) if key[2] == (0.5, 0.0))]
    for name in ("rbf", "ckrbf"):
        assert new.lattice.filled[(name, "log_gamma")].all()
        np.testing.assert_array_equal(new.lattice.codes[(name, "log_gamma")], old.lattice.codes[(name, "log_gamma")])
    new.result(120)


def test_the_committed_figure_keeps_its_place_while_the_new_lattice_is_prepared():
    """The status line comes and goes with the preparing state; its place must not. Where it
    was added, the committed figure moved one place down in a commit's run, and the browser
    hid it (a replaced element stays hidden until the run ends) and redrew it in full after."""
    def layout(at, node=None):  # the keys of the block that holds the figure (the view's body), in order
        children = list(getattr(node or at.main, "children", {}).values())
        keys = [getattr(child, "key", None) for child in children]
        if "boundary_chart" in keys:
            return keys
        return next((found for child in children if (found := layout(at, child))), None)

    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    ready = layout(at)
    at.session_state["log_gamma"] = 0.5  # a commit: the new lattice is prepared in the background
    at.run()
    assert any("Preparing the live preview" in c.value for c in at.caption)
    assert layout(at).index("boundary_chart") == ready.index("boundary_chart")
    assert layout(at) == ready


def test_the_live_poll_is_drawn_outside_the_views_fragment(monkeypatch):
    """Streamlit's front end fails on a fragment drawn inside another fragment whose own run has
    since moved or removed its place ("'setIn' cannot be called on an ElementNode", "Cannot set a
    node at a delta path"; streamlit/streamlit#15084, #16708): the session is dead. With the status
    line's polling fragment inside the view's, bench_sessions had 3-8 of 16 sessions die so; with no
    polling fragment, none. So the poll is a fragment of its own at the page's level."""
    import streamlit as st

    from kernelviz.components import poll
    from kernelviz.ui.views import boundaries

    places = {}

    def where():
        return tuple(st._main._active_dg._cursor.parent_path)

    real_poll, real_show = poll.poll, boundaries.show
    monkeypatch.setattr(poll, "poll", lambda **kw: places.setdefault("poll", where()) and real_poll(**kw))
    monkeypatch.setattr(boundaries, "show", lambda *a: places.setdefault("view", where()) and real_show(*a))
    make_app(view="boundaries")
    assert set(places) == {"poll", "view"}
    assert places["poll"][:len(places["view"])] != places["view"], places


def _stale_tick():
    """A tick of the watcher whose widget values left the browser before it had set the committed
    γ = 0.25 into the sidebar's slider: it carries the old γ = 0."""
    import streamlit as st

    from kernelviz.ui import live, session_end

    class Running:
        done, cancelled, error, lattice = False, False, None, None

        def cancel(self):
            pass

    if st.session_state.get("_fragment_rerun"):
        return  # the page's rerun that the watcher asked for (the app draws the view at the session's γ)
    committed = (0.25, 0.0)
    st.session_state["log_gamma"], st.session_state["log_C"] = 0.0, 0.0
    live.LiveLattices(session_end.store()).jobs[("decision", "data", committed)] = Running()
    watched = st.session_state.get("watched", committed)
    st.session_state[live.WATCH_KEY] = None if watched is None else ("decision", "data", watched, Running)
    if st.session_state.pop("commit", None):  # a release of γ at 0.5 came in the same batch (its callback ran)
        live.commit({"axis": "log_gamma", "log_gamma": 0.5, "log_C": 0.0})
    live._watch()


def test_a_tick_carrying_the_old_values_leaves_the_committed_ones():
    at = AppTest.from_function(_stale_tick, default_timeout=60).run()
    assert not at.exception
    assert (at.session_state["log_gamma"], at.session_state["log_C"]) == (0.25, 0.0)


def test_a_commit_that_came_with_a_tick_reruns_the_page_and_stays_committed():
    """Streamlit sends the widget updates of one moment as one run of the first one's fragment: a
    release that met a tick ran the watcher, whose γ would have undone it; the page reruns
    instead (only a page rerun reaches the view from there)."""
    at = AppTest.from_function(_stale_tick, default_timeout=60)
    at.session_state["commit"] = True
    at.run()
    assert not at.exception
    assert at.session_state["log_gamma"] == 0.5  # the release's, not the watcher's 0.25
    assert at.session_state["_fragment_rerun"]  # the page's next run writes the other widgets back


@pytest.mark.parametrize("watched, gamma", [(None, 0.0), ((0.5, 0.0), 0.5)], ids=["nothing", "newer values"])
def test_a_tick_follows_what_the_views_latest_run_prepares(watched, gamma):
    """The watcher acts on what the view's latest run asked for, never on what an earlier one did:
    nothing when the view prepares nothing, the newer values when a commit's run came between; and
    it draws nothing of its own to see."""
    at = AppTest.from_function(_stale_tick, default_timeout=60)
    at.session_state["watched"] = watched
    at.run()
    assert not at.exception
    assert (at.session_state["log_gamma"], at.session_state["log_C"]) == (gamma, 0.0)
    assert not at.caption and not at.button and not at.markdown


def _pollers_drawn(monkeypatch) -> list[tuple[int, bool]]:
    """Each page run's call of ``pollers.draw_held``, as (pollers held, whether the sidebar's
    data and kernel widgets had gone out in that run by then)."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    calls = []
    draw_held = pollers.draw_held

    def recording():
        held = st.session_state.get(pollers.HELD_KEY) or []
        if held:
            widgets = get_script_run_ctx().shared.widget_ids_this_run.snapshot()
            calls.append((len(held), any("kernels" in w for w in widgets) and any("generator" in w for w in widgets)))
        draw_held()

    monkeypatch.setattr(pollers, "draw_held", recording)
    return calls


def test_the_live_watcher_goes_out_after_every_widget_of_the_page(monkeypatch):
    """A polling fragment's timer starts when the browser receives it, and a tick sends the
    browser's widget values with it: drawn before the sidebar (the view comes first), a tick on a
    slow run carried the sidebar's values from before the run, and starting a lesson lost its data
    and kernels (seen in the browser: the MCPM lesson's step 1 back on moons with the default
    kernels)."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    calls = []
    watcher = live.watcher

    def recording():
        widgets = get_script_run_ctx().shared.widget_ids_this_run.snapshot()
        calls.append(any("kernels" in w for w in widgets) and any("generator" in w for w in widgets)
                     and st.session_state.get(live.WATCH_KEY) is not None)
        watcher()

    monkeypatch.setattr(live, "watcher", recording)
    make_app(view="boundaries")
    assert calls == [True]


def test_a_running_grid_searchs_progress_goes_out_after_every_widget_of_the_page(monkeypatch):
    calls = _pollers_drawn(monkeypatch)
    at = make_app(view="grid", grid_steps="9", cv="3")
    next(b for b in at.button if b.label == "Run grid search").click()
    at.run()
    try:
        assert not at.exception
        assert grid_job(at).running, "the search ended before the run: make it longer"
        assert calls == [(1, True)]
        assert any(b.label == "Cancel" for b in at.button)
    finally:
        grid_job(at).job.cancel()


def test_what_a_run_held_and_did_not_draw_is_not_drawn_by_the_next_one():
    """A run that ends early (a rerun asked meanwhile) leaves its held pollers behind, their
    places belonging to that run."""
    drawn = []
    at = make_app(view="data")
    at.session_state[pollers.HELD_KEY] = [(None, drawn.append, ("stale",))]
    at.run()
    assert not at.exception and drawn == []


def _view_fragment_run_after_an_early_end():
    import streamlit as st

    from kernelviz.ui import page, pollers

    def record(*arguments):
        st.session_state.setdefault("drawn", []).append(arguments)

    # what an earlier run held and did not draw: a place of that run
    st.session_state[pollers.HELD_KEY] = [(st.empty(), record, ("stale",))]
    page.scrub_view_body("boundaries", lambda view, settings: None)  # the view's own run (a commit's)


def test_what_a_run_held_and_did_not_draw_is_not_drawn_by_the_views_own_next_run():
    """Nor by a run of the view's body alone (a commit), which draws no poller: a place held by
    another run was an element of the page by then, and a poller drawn into it broke the page
    ("'setIn' cannot be called on an ElementNode": bench_sessions' stuck sessions)."""
    at = AppTest.from_function(_view_fragment_run_after_an_early_end, default_timeout=60).run()
    assert not at.exception
    assert "drawn" not in at.session_state


def test_new_data_never_show_the_old_lattice():
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    (old_key,) = lattice_jobs(at)
    old_job = lattice_jobs(at)[old_key]
    at.session_state["data_seed"] = 7
    at.run()
    assert old_job.cancelled
    (new_key,) = lattice_jobs(at)
    assert new_key[1] != old_key[1] and new_key[2] == old_key[2]
    assert live_data(at)["lattice"]["x_range"] != [float(old_job.lattice.grid.xs[0]),
                                                    float(old_job.lattice.grid.xs[-1])]


def test_similarity_previews_gamma_around_the_reference_point():
    at = make_app(view="similarity")
    assert not at.exception
    finish_jobs(at)
    at.run()
    data = live_data(at)
    assert data["lattice"]["kind"] == "similarity" and data["lattice"]["complete"]
    reference = (at.session_state["ref_x"], at.session_state["ref_y"])
    assert tuple(data["lattice"]["reference"]) == pytest.approx(reference)
    assert data["log_C"] is None and "log_C" not in data["lattice"]["axes"]


def test_switching_views_stops_the_other_views_unfinished_lattice():
    at = make_app(view="boundaries")
    (job,) = lattice_jobs(at).values()
    at.segmented_control(key="view").set_value("data")
    at.run()
    kept = list(lattice_jobs(at).values())
    # either it had finished (kept for coming back) or it was stopped and dropped
    assert (job in kept and not job.cancelled) or (job.cancelled and job not in kept)
    assert all(not j.cancelled for j in kept)


def test_the_live_field_at_the_committed_values_is_the_svm_the_lattice_module_computes():
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()
    data = live_data(at)["lattice"]
    (job,) = lattice_jobs(at).values()
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
    return figures(at)


def test_a_click_on_a_grid_cell_opens_decision_boundaries_for_that_kernel_there():
    at = make_app(view="grid", grid_steps="3", cv="2")
    next(b for b in at.button if b.label == "Run grid search").click()
    at.run()
    grid_job(at).job.result(300)
    at.run()
    (fig,) = charts(at)
    curve = next(i for i, t in enumerate(fig["data"]) if t.get("meta") == "ckrbf")
    click(at, "grid_chart", [{"x": -3.0, "y": 1.0, "curve_number": curve}])
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
    click(at, "boundary_chart", [{"x": 0.5, "y": -0.25, "curve_number": 2}])
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
    at = open_app()
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


@pytest.mark.unit
def test_the_canvas_says_how_its_coordinates_map_to_the_other_views():
    points = np.array([[0.0, 0.0, 1.0], [2.0, 4.0, -1.0]])
    # z-score by hand: means (1, 2), population standard deviations (1, 2)
    assert live.drawn_coordinates_note(points, "zscore") == (
        "The other views show them zscore-scaled: x′ = (x − 1) / 1, y′ = (y − 2) / 2.")
    # min-max: minima (0, 0), ranges (2, 4)
    assert live.drawn_coordinates_note(points, "minmax") == (
        "The other views show them minmax-scaled: x′ = x / 2, y′ = y / 4.")
    assert live.drawn_coordinates_note(points, "none") == "The other views use these coordinates as they are."


def _sidebar_sliders(at) -> list[str]:
    return [s.key for s in at.sidebar.slider]


def test_a_scrub_view_takes_gamma_and_c_out_of_the_sidebar_and_another_view_gives_them_back():
    """The scrub's commit reruns the view's body, not the sidebar: a second γ slider there would
    show the old value and, at the next run, send it back."""
    at = make_app(view="boundaries", log_gamma="0.5", log_C="1")
    assert not {"log_gamma", "log_C"} & set(_sidebar_sliders(at))
    assert any("the sliders above the panels" in c.value for c in at.sidebar.caption)
    at.session_state["view"] = "kernel"
    at.run()
    assert {"log_gamma", "log_C"} <= set(_sidebar_sliders(at))
    # the values were kept while no widget held them
    assert at.sidebar.slider(key="log_gamma").value == 0.5 and at.sidebar.slider(key="log_C").value == 1.0
    at.session_state["view"] = "similarity"
    at.run()
    assert "log_gamma" not in _sidebar_sliders(at)
    assert at.session_state["log_gamma"] == 0.5


def test_models_preview_from_their_own_panels_beside_the_kernels():
    """MCPM's lesson step 3 draws models only: the sliders above the figure vanished with the kernels.
    Now models preview too, from the function that draws their panel, with the settings it used."""
    at = make_app(view="boundaries", kernels="rbf", models="SCM,KFD")
    assert not at.exception
    preview = live_data(at)
    assert [(p["name"], p["margins"]) for p in preview["panels"]] == [("rbf", True), ("SCM", True), ("KFD", False)]
    assert preview["held"] == [] and not {"log_gamma", "log_C"} & set(_sidebar_sliders(at))
    finish_jobs(at)
    ((key, job),) = lattice_jobs(at).items()
    assert job.lattice.complete and not job.lattice.failed
    models = [k for k in key[1] if isinstance(k, tuple) and k and isinstance(k[0], kvlattice.Model)]
    assert [m.name for m in models[0]] == ["SCM", "KFD"]
    at.run()
    assert all(k["fields"] is not None for k in live_data(at)["lattice"]["kernels"])


def test_without_a_figure_the_sidebar_keeps_gamma_and_c():
    at = make_app(view="boundaries", kernels="", models="")
    assert {"log_gamma", "log_C"} <= set(_sidebar_sliders(at))


def test_a_hidden_c_is_hidden_above_the_panels_too():
    """The teacher's link hides C: the slider above the figure must not set it either (the link's value stays)."""
    at = make_app(view="boundaries", hide="log_C", log_C="1")
    assert not at.exception
    assert live_data(at)["locked"] == ["log_C"]
    assert any(c.value == "γ: the slider above the panels." for c in at.sidebar.caption)
    at = make_app(view="boundaries")
    assert live_data(at)["locked"] == []
    assert any(c.value == "γ and C: the sliders above the panels." for c in at.sidebar.caption)


def _boundary_steps():
    from kernelviz import lessons

    return [(name, number) for name in lessons.names()
            for number, step in enumerate(lessons.get(name).steps, 1) if step.view == "boundaries"]


@pytest.mark.slow
@pytest.mark.parametrize("lesson, step", _boundary_steps())
def test_in_every_lesson_step_the_preview_at_the_figures_values_has_the_figures_sign(monkeypatch, lesson, step):
    """At the values the figure was drawn at, the lattice the preview paints from agrees in sign with
    the figure's own field on ≥ 99.9 % of the cells where f ≠ 0, in every panel — kernels and models."""
    from kernelviz import state as kvstate

    # three lattice values per axis (the ends and the figure's own): the one compared, at a fraction of the cost
    monkeypatch.setattr(kvlattice, "lattice_axis",
                        lambda setting, current, step=None: np.unique(np.round([*kvstate.bounds(setting), current], 9)))
    at = open_app({"lesson": lesson, "step": str(step)}, timeout=300)
    assert not at.exception
    preview = live_data(at)
    figure = figures(at)[-1]
    finish_jobs(at)
    (job,) = [job for key, job in lattice_jobs(at).items() if key[2] == (preview["log_gamma"], preview["log_C"])]
    lattice = job.lattice
    index = int(np.flatnonzero(lattice.axes["log_gamma"] == preview["log_gamma"])[0])
    compared = 0
    for panel in preview["panels"]:
        if panel["name"] in lattice.failed:
            continue  # no preview: the panel keeps its picture and says "updates on release"
        (heatmap,) = [t for t in figure["data"] if t["type"] == "heatmap" and t.get("xaxis", "x") == panel["xaxis"]]
        f = np.asarray(heatmap["z"], dtype=float).ravel()
        codes = lattice.codes[(panel["name"], "log_gamma")][index].ravel()
        if lattice.classes > 2:  # class regions: the very classes
            assert np.mean(codes == f) >= 0.999, panel["name"]
            compared += 1
            continue
        decoded = lattice.codec.decode(codes)
        nonzero = f != 0
        agree = np.mean(np.sign(decoded[nonzero]) == np.sign(f[nonzero]))
        assert agree >= 0.999, (panel["name"], agree)
        compared += 1
    assert compared == len(preview["panels"]) - len(lattice.failed) and compared


def test_a_lattice_the_browser_has_goes_without_its_bytes():
    """A committed step's message was ~1.6 MB, ~1 MB of it the lattice the browser already had."""
    at = make_app(view="boundaries")
    finish_jobs(at)
    at.run()

    def sent() -> tuple[dict, bytes]:
        (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == "kernelviz.plot"
                      and kvplot.unpack(e.proto.bytes)["live"]]
        return kvplot.unpack(element.proto.bytes)["live"], element.proto.bytes

    whole, data = sent()
    assert not whole["lattice"].get("sent") and all(k["fields"] is not None for k in whole["lattice"]["kernels"])
    at.run()  # the same lattice again: its id alone
    again, smaller = sent()
    assert again["lattice"]["sent"] and again["lattice"]["id"] == whole["lattice"]["id"]
    assert all(k["fields"] is None for k in again["lattice"]["kernels"])
    lattice_bytes = sum(job.lattice.codes[key].nbytes for job in lattice_jobs(at).values() for key in job.lattice.codes)
    assert len(data) - len(smaller) >= lattice_bytes
    at.session_state["log_gamma"] = 0.5  # a commit: the figure is new, the lattice is still the one sent
    at.run()
    assert live_data(at)["lattice"]["sent"]
    finish_jobs(at)
    at.run()  # the new values' lattice: sent whole
    assert not live_data(at)["lattice"].get("sent") and live_data(at)["lattice"]["id"] != whole["lattice"]["id"]


def test_the_boundary_figures_title_marks_where_gamma_and_C_stand_for_the_preview():
    """Mid-drag the plot component writes the dragged γ and C into the figure's title (support.js
    titleAt): the figure marks its words with {gamma} and {C}, which give its own title at its values."""
    from kernelviz.figures import TITLE_META

    at = make_app(view="boundaries", log_gamma="1.25", log_C="-0.5")
    layout = figures(at)[0]["layout"]
    words = layout["meta"][TITLE_META]
    assert "{gamma}" in words and "{C}" in words
    assert words.format(gamma=f"{10 ** 1.25:.3g}", C=f"{10 ** -0.5:.3g}") in layout["title"]["text"]
    assert "γ = 17.8, C = 0.316" in layout["title"]["text"]
