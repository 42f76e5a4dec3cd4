"""The app's run-to-run machinery (kernelviz.session.Session) over a plain dict."""

from __future__ import annotations

import pytest

from kernelviz.session import MAX_STORED_GRIDS, Session, describe_values

pytestmark = pytest.mark.unit


class RecordingDict(dict):
    """A dict that records every key written, as Streamlit sees script-side writes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.written = []

    def __setitem__(self, key, value):
        self.written.append(key)
        super().__setitem__(key, value)


def make_session(store=None) -> Session:
    store = RecordingDict() if store is None else store
    return Session(store, is_setting=lambda key: key in {"kernels", "log_C", "cv"} or key.startswith("gp:"),
                   always_drawn={"kernels"})


def started(**values) -> Session:
    s = make_session()
    s.start({"kernels": ["rbf"], "log_C": 0.0, "cv": 5, **values}, ["a problem of the link"])
    return s


def test_start_puts_the_settings_in_place_once_and_queues_the_links_problems():
    s = make_session()
    assert not s.started
    s.start({"cv": 3}, ["the link's cv was unreadable"])
    assert s.started and s.store["cv"] == 3
    assert s.messages() == ["the link's cv was unreadable"]


def test_queued_values_apply_at_the_next_run_only():
    s = started()
    s.queue({"log_C": 2.0}, "restored log_C")
    assert s.store["log_C"] == 0.0
    s.begin_run()
    assert s.store["log_C"] == 2.0
    s.store["log_C"] = 1.0
    s.begin_run()  # applied once, not again
    assert s.store["log_C"] == 1.0
    assert s.messages()[-1] == "restored log_C"


def test_carry_over_rewrites_settings_but_never_the_always_drawn_ones_or_other_keys():
    s = started(**{"gp:moons:noise": 0.3, "uploader": "a file"})
    s.store.written.clear()
    s.begin_run()
    assert sorted(s.store.written) == ["cv", "gp:moons:noise", "log_C"]
    assert s.store["gp:moons:noise"] == 0.3


def test_messages_stay_until_a_run_that_showed_them_completes():
    s = started()
    first = s.messages()
    s.flash("queued while the run was going")
    s.shown(len(first))
    assert s.messages() == ["queued while the run was going"]
    first.clear()  # the copy handed out is not the queue
    assert s.messages() == ["queued while the run was going"]


def test_restore_names_only_the_failing_stages_settings_that_changed():
    s = started()
    s.remember_good("grid", ("cv", "log_C"))
    s.store["cv"], s.store["kernels"] = 9, ["lap"]
    assert s.to_restore("grid", ("cv", "log_C"), fallback={}) == {"cv": 5}
    # another stage's snapshot is not used, and the defaults stand in before a stage worked
    assert s.to_restore("model", ("kernels",), fallback={"kernels": ["rbf", "ckrbf"]}) == {"kernels": ["rbf", "ckrbf"]}
    assert s.to_restore("grid", ("kernels",), fallback={}) == {}


def test_a_snapshot_is_a_copy_not_the_live_list():
    s = started()
    s.remember_good("model", ("kernels",))
    s.store["kernels"].append("rwm")
    assert s.last_good("model") == {"kernels": ["rbf"]}
    assert s.to_restore("model", ("kernels",), fallback={}) == {"kernels": ["rbf"]}


def test_lists_and_tuples_with_the_same_items_are_not_restored():
    s = started(kernels=("rbf",))
    s.remember_good("model", ("kernels",))
    s.store["kernels"] = ["rbf"]
    assert s.to_restore("model", ("kernels",), fallback={}) == {}


def test_the_last_good_data_is_kept_per_session():
    one, other = started(), started()
    one.remember_good_data("prepared data")
    assert one.last_good_data == "prepared data" and other.last_good_data is None


def test_grids_are_kept_least_recently_used_first_out():
    s = started()
    for i in range(MAX_STORED_GRIDS):
        s.store_grid(i, f"grid {i}")
    assert s.stored_grid(0) == "grid 0"  # now the most recently used
    s.store_grid("new", "grid new")
    assert s.stored_grid(1) is None  # the least recently used went
    assert s.stored_grid(0) == "grid 0" and s.stored_grid("new") == "grid new"
    assert len(s.store["_grids"]) == MAX_STORED_GRIDS


@pytest.mark.parametrize("values, text", [
    ({"gp:moons:noise": 0.1}, "noise = 0.1"),
    ({"kernels": ["rbf", "lap"], "cv": 3}, "kernels = rbf, lap, cv = 3"),
])
def test_restored_values_are_described_by_their_names(values, text):
    assert describe_values(values) == text


def test_read_only_reaches_arrays_in_attributes_fields_and_containers():
    import dataclasses

    import numpy as np

    from kernelviz.session import read_only

    @dataclasses.dataclass(frozen=True)
    class Panel:
        values: np.ndarray
        parts: dict

    class Fitted:
        def __init__(self):
            self.means_ = np.zeros(3)
            self.panels = [Panel(np.ones(2), {"grid": (np.arange(4),)})]
            self.itself = self  # cycles are fine

    fitted = read_only(Fitted())
    arrays = [fitted.means_, fitted.panels[0].values, fitted.panels[0].parts["grid"][0]]
    for array in arrays:
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 5
    assert read_only(np) is np and np.zeros(1).flags.writeable  # modules are not entered


def test_after_a_fragment_reruns_the_page_every_setting_is_written_back_once():
    from kernelviz.session import mark_fragment_rerun

    s = started()
    s.store.written.clear()
    s.begin_run()
    assert "kernels" not in s.store.written  # always drawn: never written back normally
    mark_fragment_rerun(s.store)
    s.store.written.clear()
    s.begin_run()
    # the browser forgot the page's widgets (streamlit#11266): a write sends their values again
    assert {"kernels", "log_C", "cv"} <= set(s.store.written) and s.store["kernels"] == ["rbf"]
    s.store.written.clear()
    s.begin_run()
    assert "kernels" not in s.store.written  # once only


def test_a_fragments_run_puts_back_the_page_widgets_the_browser_sent_at_their_defaults():
    """Under load (benchmarks/bench_sessions.py, 8 sessions on 2 cores) a fragment's request carried
    the sidebar's widgets at their defaults — the browser had forgotten them after a fragment reran
    the page (streamlit/streamlit#11266) — and the next page run took them: no kernels, scaling
    "none", one cluster. Those widgets cannot change in a fragment's run, so it puts them back."""
    from kernelviz.session import keep_outside, remember_outside

    store = {"kernels": ["rbf", "ckrbf"], "scaling": "zscore", "n_components": 2, "view": "boundaries",
             "log_gamma": 0.0}
    remember_outside(store, ["kernels", "scaling", "n_components", "view", "not_drawn"])
    assert keep_outside(store) == []  # nothing changed: nothing to put back
    store.update({"kernels": [], "scaling": "none", "n_components": 1, "log_gamma": 1.0})
    assert sorted(keep_outside(store)) == ["kernels", "n_components", "scaling"]
    assert store == {"kernels": ["rbf", "ckrbf"], "scaling": "zscore", "n_components": 2, "view": "boundaries",
                     "log_gamma": 1.0, "_outside_fragment": store["_outside_fragment"],  # γ is the fragment's own
                     "_forgotten_by_browser": {"kernels": [], "scaling": "none", "n_components": 1}}
    store["kernels"].append("rwm")  # what was put back is a copy: the remembered value stays as drawn
    store["kernels"] = []
    keep_outside(store)
    assert store["kernels"] == ["rbf", "ckrbf"]


def test_nothing_is_put_back_before_a_page_run_remembered_its_widgets():
    from kernelviz.session import keep_outside

    store = {"kernels": []}
    assert keep_outside(store) == [] and store == {"kernels": []}


def _guarded_fragment_run(monkeypatch, caplog, drawn: dict, sent: dict) -> tuple[dict, list]:
    """A page run drew ``drawn``; a fragment's request then brings ``sent``, and its run calls the
    guard. Returns the session state after it and the ``st.rerun()`` calls it made."""
    import types

    import streamlit as st
    from streamlit.runtime import scriptrunner

    from kernelviz.session import remember_outside
    from kernelviz.ui import pollers

    store = dict(drawn)
    remember_outside(store, list(drawn))
    store.update(sent)
    monkeypatch.setattr(st, "session_state", store)
    monkeypatch.setattr(scriptrunner, "get_script_run_ctx",
                        lambda suppress_warning=False: types.SimpleNamespace(fragment_ids_this_run=["f"]))
    reruns = []
    monkeypatch.setattr(st, "rerun", lambda: reruns.append(True))
    with caplog.at_level("WARNING", logger=pollers.__name__):
        pollers.keep_page_settings()
    return store, reruns


def test_a_fragment_that_puts_page_settings_back_says_so_in_the_servers_log(monkeypatch, caplog):
    """The line benchmarks/bench_sessions.py counts: which settings a fragment's run put back."""
    store, reruns = _guarded_fragment_run(monkeypatch, caplog, {"kernels": ["rbf"], "scaling": "zscore"},
                                          {"kernels": [], "scaling": "none"})
    assert reruns == [True] and store["kernels"] == ["rbf"] and store["scaling"] == "zscore"
    assert "a fragment's run got changed page settings (kernels, scaling); the page's values were kept\n" in caplog.text


def test_a_view_switch_that_comes_in_a_fragments_request_is_the_persons(monkeypatch, caplog):
    """bench_sessions.py: twice in one run a view switch came in a fragment's request, and the guard
    put the old view back: the page stayed on it. The view is taken, and the page reruns to draw it."""
    from kernelviz.session import keep_outside

    store, reruns = _guarded_fragment_run(monkeypatch, caplog, {"kernels": ["rbf"], "view": "boundaries"},
                                          {"kernels": [], "view": "similarity"})
    assert reruns == [True] and store["view"] == "similarity" and store["kernels"] == ["rbf"]
    assert ("a fragment's run got changed page settings (kernels); the page's values were kept, the request's "
            "taken for view") in caplog.text
    assert keep_outside(store) == []  # the new view is the page's now


def test_a_page_run_that_still_gets_what_the_browser_forgot_keeps_the_pages_values_once(caplog):
    """bench_sessions.py: after a fragment's guard had put the kernels back, the browser's next page
    request (a view switch) still carried no kernels, and the page drew nothing. The page run after
    the guard's own rerun puts them back once; a later request with that value is the person's."""
    from kernelviz.session import keep_outside, mark_fragment_rerun, remember_outside

    s = started()
    store = s.store
    remember_outside(store, ["kernels"])
    store["kernels"] = []  # a fragment's request with the forgotten value
    assert keep_outside(store) == ["kernels"] and store["kernels"] == ["rbf"]
    mark_fragment_rerun(store)
    s.begin_run()  # the guard's own page run: starts from the values put back
    assert store["kernels"] == ["rbf"]
    remember_outside(store, ["kernels"])
    store["kernels"] = []  # the next page request: the browser still sends its forgotten value
    with caplog.at_level("WARNING", logger="kernelviz.session"):
        s.begin_run()
    assert store["kernels"] == ["rbf"]
    assert "a page run got settings the browser had forgotten (kernels); the page's values were kept" in caplog.text
    store["kernels"] = []  # once repaired, the same value again is the person's choice
    s.begin_run()
    assert store["kernels"] == []


def test_a_page_run_with_another_value_than_the_forgotten_one_takes_it():
    from kernelviz.session import keep_outside, remember_outside

    s = started()
    store = s.store
    remember_outside(store, ["kernels"])
    store["kernels"] = []
    keep_outside(store)
    store["kernels"] = ["rwm"]  # the person chose another kernel: nothing forgotten about it
    s.begin_run()
    assert store["kernels"] == ["rwm"]
    store["kernels"] = []
    s.begin_run()
    assert store["kernels"] == []  # that forgetting was over


def _forgetting_fixture():
    from kernelviz.session import Session, remember_outside

    forgotten_as = {"kernels": [], "scaling": "none", "n_components": 1, "test_fraction": 0.0}
    drawn = {"kernels": ["rbf", "ckrbf"], "scaling": "zscore", "n_components": 2, "test_fraction": 0.3,
             "view": "similarity"}
    store = dict(drawn)
    s = Session(store, is_setting=lambda key: key in drawn, always_drawn=drawn, forgotten_as=forgotten_as)
    s.start({})
    remember_outside(store, drawn)
    return s, store, drawn


def test_a_page_run_that_gets_several_settings_at_their_widgets_defaults_keeps_the_pages_values_every_time(caplog):
    """bench_sessions.py (10:33 run): after the one repair the browser forgot again and its next view
    switch carried no kernels. A request that moves two or more settings at once to their widgets'
    own defaults is a forgetting whenever it comes: a person changes one widget per request."""
    from kernelviz.session import remember_outside

    s, store, drawn = _forgetting_fixture()
    for _ in range(3):  # the browser forgets again and again
        remember_outside(store, drawn)
        store.update(kernels=[], scaling="none", n_components=1, test_fraction=0.0, view="boundaries")
        with caplog.at_level("WARNING", logger="kernelviz.session"):
            s.begin_run()
        assert {k: store[k] for k in drawn} == {**drawn, "view": "boundaries"}  # the switch is the person's
    assert "forgotten (kernels, n_components, scaling, test_fraction)" in caplog.text
    remember_outside(store, drawn)
    store["scaling"] = "none"  # one setting at its widget's default: the person's choice
    s.begin_run()
    assert store["scaling"] == "none" and store["kernels"] == ["rbf", "ckrbf"]


def test_a_view_switch_that_carries_one_setting_at_its_widgets_default_keeps_the_pages_value(caplog):
    """bench_sessions.py (2026-11-27 17:25): a view switch arrived with ``kernels=`` and nothing else at
    a default, and the page drew no kernels. A person's click on the view switch changes the view
    only: a setting that comes with it at its widget's default is one the browser forgot."""
    s, store, drawn = _forgetting_fixture()
    store.update(view="boundaries", kernels=[])
    with caplog.at_level("WARNING", logger="kernelviz.session"):
        s.begin_run()
    assert store["view"] == "boundaries" and store["kernels"] == ["rbf", "ckrbf"]
    assert "forgotten (kernels)" in caplog.text


def test_settings_the_apps_own_callback_writes_are_taken_even_at_their_widgets_defaults():
    """A preset, a lesson step or Leave writes several settings in the callback of one click, some of
    them at their widgets' defaults (the RWM Fig. 1 preset: scaling none, test fraction 0), and may
    switch the view too: those are the app's values, not a forgetting browser's."""
    from kernelviz.session import remember_outside, write_settings

    s, store, drawn = _forgetting_fixture()
    write_settings(store, {"view": "boundaries", "scaling": "none", "test_fraction": 0.0, "kernels": ["rwm"]})
    s.begin_run()
    assert {k: store[k] for k in drawn} == {"view": "boundaries", "scaling": "none", "test_fraction": 0.0,
                                             "n_components": 2, "kernels": ["rwm"]}
    remember_outside(store, drawn)  # the run ends; the next request forgets, and is not the app's
    store.update(view="data", kernels=[])
    s.begin_run()
    assert store["kernels"] == ["rwm"]


def test_the_app_knows_what_a_forgetting_browser_sends_for_the_sidebars_widgets():
    """The values bench_sessions.py saw in the requests of sessions whose browser had forgotten."""
    from kernelviz.ui.page import FORGOTTEN_AS

    seen = {"scaling": "none", "test_fraction": 0.0, "n_components": 1, "kernels": []}
    assert {name: FORGOTTEN_AS[name] for name in seen} == seen
    assert "view" not in FORGOTTEN_AS


def test_a_fragments_request_that_empties_the_view_switch_keeps_the_pages_view(monkeypatch, caplog):
    """CI of 2026-11-29 (test_a_drawn_point_appears_on_the_canvas_before_the_server_answers): a click on
    the drawing canvas came in a fragment's request with the view switch empty — the browser had
    forgotten it — and the guard took it as the person's: the page drew no view ("4 points drawn"
    never came) and the link read ``view=None``. A person cannot empty the switch (it must hold a
    view), so that value is the browser's forgetting and the page's view is put back."""
    from kernelviz.session import keep_outside
    from kernelviz.ui import pollers

    store, reruns = _guarded_fragment_run(monkeypatch, caplog, {"kernels": ["rbf"], "view": "data"},
                                          {"view": pollers.NEVER_CHOSEN["view"]})
    assert reruns == [True] and store["view"] == "data"  # the page reruns to show the switch on its view
    assert "a fragment's run got changed page settings (view); the page's values were kept\n" in caplog.text
    assert keep_outside(store, accept=pollers.PERSONS_OWN, never_chosen=pollers.NEVER_CHOSEN) == []


def test_a_page_request_that_empties_the_view_switch_keeps_the_pages_view_every_time(caplog):
    """Alone, and however often it comes: no person sends an empty view switch."""
    from kernelviz.session import Session, remember_outside
    from kernelviz.ui import pollers

    drawn = {"kernels": ["rbf"], "view": "data"}
    store = dict(drawn)
    s = Session(store, is_setting=lambda key: key in drawn, always_drawn=drawn, forgotten_as={"kernels": []},
                never_chosen=pollers.NEVER_CHOSEN)
    s.start({})
    for _ in range(3):
        remember_outside(store, drawn)
        store["view"] = None
        with caplog.at_level("WARNING", logger="kernelviz.session"):
            s.begin_run()
        assert store["view"] == "data"
    assert "forgotten (view)" in caplog.text
    remember_outside(store, drawn)
    store["view"] = "boundaries"  # a person's switch is taken
    s.begin_run()
    assert store["view"] == "boundaries"


def test_the_view_switch_sends_nothing_selected_once_forgotten():
    """What :data:`kernelviz.ui.pollers.NEVER_CHOSEN` says of the view switch is Streamlit's own: a
    segmented control that requires a choice and has no default holds None until something sets it —
    the value a browser that forgot the widget sends."""
    from streamlit.testing.v1 import AppTest

    from kernelviz.ui import pollers

    def script():
        import streamlit as st

        st.segmented_control("View", ["data", "boundaries"], key="view", required=True)

    at = AppTest.from_function(script).run()
    assert at.session_state["view"] == pollers.NEVER_CHOSEN["view"]
    assert pollers.PERSONS_OWN <= set(pollers.NEVER_CHOSEN)
