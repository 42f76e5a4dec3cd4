"""Teaching in the app (issue 10): landing, lessons in the link, teacher's mode, take-away, anatomy.

AppTest drives ``app.py``; the shipped lesson grids are checked against a fresh search.
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from _charts import figures
import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import _diskcache, lessons, pipeline, registry
from kernelviz import state as kvstate
from kernelviz.references import PAPERS
from kernelviz.ui import anatomy as ui_anatomy
from kernelviz.ui import caches, takeaway, teach

from apptest import assert_clean, open_app, unescaped
from test_app import charts

pytestmark = pytest.mark.app

ALL_STEPS = [(name, k) for name in lessons.names() for k in range(1, len(lessons.get(name).steps) + 1)]


def link(at: AppTest) -> dict:
    return {k: v[-1] if isinstance(v, list) else v for k, v in dict(at.query_params).items()}


def lesson_heading(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "· step " in m.value)


def explanation(at: AppTest) -> str | None:
    found = [i.value for i in at.info if i.value.startswith("**On this page:**")]
    return found[0] if found else None


# ============================================================================ landing and Theory

def test_the_first_screen_says_what_kernelviz_is_for_and_offers_lessons_and_views():
    at = open_app()
    assert_clean(at)
    text = " ".join(m.value for m in at.markdown)
    assert "data-dependent" in text and "own data" in text
    starts = [b for b in at.button if b.key and b.key.startswith("start_")]
    assert [b.key for b in starts] == [f"start_{n}" for n in lessons.names()]
    # the views once, whole: the switcher's (the card showed them a second time, two of them cut)
    assert not [b for b in at.button if b.key and b.key.startswith("open_")]
    assert set(at.segmented_control(key="view").options) == {c.label for c in registry.VIEWS.values()}
    next(b for b in starts if b.key == "start_ckrbf").click()
    at.run()
    assert_clean(at)
    assert link(at)["lesson"] == "ckrbf" and link(at)["step"] == "1"
    assert not any(b.key == "start_ckrbf" for b in at.button)  # the landing gave way to the lesson
    at = open_app()
    at.segmented_control(key="view").set_value("partition").run()
    at.segmented_control(key="view").set_value("data").run()
    assert not any(b.key and b.key.startswith("start_") for b in at.button)  # moving on closes it for good


def test_theory_is_not_the_last_view_and_cites_every_paper():
    assert list(registry.VIEWS)[-1] != "theory"
    at = open_app(dict(view="theory"))
    assert_clean(at)
    text = unescaped(" ".join(m.value for m in at.markdown))
    for paper in PAPERS.values():
        assert paper.citation() in text


# ============================================================================ lessons

@pytest.mark.slow
@pytest.mark.parametrize("name, k", ALL_STEPS)
def test_every_lesson_step_opens_from_its_link_applies_its_settings_and_draws(name, k):
    step = lessons.get(name).step(k)
    at = open_app(lessons.link(name, k))
    assert_clean(at)
    assert figures(at) or step.view == "theory", "the step's view drew no figure"
    assert f"step {k} of {len(lessons.get(name).steps)}" in lesson_heading(at)
    kept = link(at)
    assert kept["lesson"] == name and kept["step"] == str(k)
    assert {key: kept.get(key) for key in kvstate.encode(step.applied())} == kvstate.encode(step.applied())
    if step.explain is not None:  # the heavy steps too: their grids are shipped, nothing waits for a button
        sentence = explanation(at)
        assert sentence is not None and sentence.endswith(".")


def test_back_and_next_walk_the_steps_and_the_link_follows():
    at = open_app(dict(lesson="rbf-basics"))
    assert "step 1 of 6" in lesson_heading(at)
    assert at.button(key="lesson_back").disabled
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    assert "step 2 of 6" in lesson_heading(at) and link(at)["step"] == "2"
    assert at.session_state["log_gamma"] == lessons.get("rbf-basics").step(2).settings["log_gamma"]
    # the sentence is the step's explain on the page's own numbers
    (row,) = [r for r in at.dataframe if "test accuracy" in r.value.columns]
    test = float(row.value["test accuracy"].iloc[0])
    assert f"test accuracy {100 * test:.1f}%" in explanation(at)
    at.button(key="lesson_back").click().run()
    assert "step 1 of 6" in lesson_heading(at) and link(at)["step"] == "1"
    at.button(key="lesson_leave").click().run()
    assert "lesson" not in link(at) and not [m for m in at.markdown if "· step " in m.value]


def look_at(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "Look at:" in m.value)


def test_look_at_names_a_panel_by_its_title_and_a_value_by_its_own_name():
    assert lessons.get("rwm").step(2).look_at.label == "RWM"
    assert lessons.get("mcpm").step(2).look_at.label == "test accuracy"
    assert "**Look at: RBF**" in look_at(open_app(lessons.link("rbf-basics", 1)))


def test_leave_goes_back_to_the_settings_and_view_the_lesson_was_opened_from():
    at = open_app(dict(view="theory", kernels="rbf,gmm", log_C="1.5"))
    before = link(at)
    at.button(key="theory_lesson_ckrbf").click().run()
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    assert link(at)["step"] == "2" and at.session_state["view"] != "theory"
    at.button(key="lesson_leave").click().run()
    assert_clean(at)
    assert link(at) == before
    assert at.session_state["view"] == "theory" and at.session_state["kernels"] == ["rbf", "gmm"]
    assert not [m for m in at.markdown if "· step " in m.value]
    # a lesson opened by a link goes back to the link's own settings
    at = open_app(dict(lesson="ckrbf", step="2", log_C="1.5"))
    at.button(key="lesson_leave").click().run()
    assert_clean(at)
    assert link(at) == {"log_C": "1.5"}


def history(at: AppTest, query: dict, monkeypatch) -> AppTest:
    """What the browser's Back or Forward does: a run with the restored entry's link, marked as history."""
    at.query_params.clear()
    at.query_params.update(query)
    with monkeypatch.context() as m:
        m.setattr(teach, "navigated_by_history", lambda: True)
        at.run()
    assert_clean(at)
    return at


def test_the_browsers_back_and_forward_reopen_the_pages_they_return_to(monkeypatch):
    at = open_app(dict(view="theory", kernels="rbf,gmm", log_C="1.5"))
    before = link(at)
    at.button(key="theory_lesson_ckrbf").click().run()
    first = link(at)
    at.button(key="lesson_next").click().run()
    history(at, first, monkeypatch)  # Back: step 1 again
    assert "step 1 of" in lesson_heading(at) and link(at) == first
    assert at.session_state["view"] == lessons.get("ckrbf").step(1).view
    history(at, before, monkeypatch)  # Back: the page the lesson was opened from
    assert link(at) == before and not [m for m in at.markdown if "· step " in m.value]
    assert at.session_state["view"] == "theory" and at.session_state["kernels"] == ["rbf", "gmm"]
    assert at.session_state["log_C"] == 1.5
    history(at, first, monkeypatch)  # Forward: into the lesson again, and Leave still goes back
    assert "step 1 of" in lesson_heading(at)
    at.button(key="lesson_leave").click().run()
    assert link(at) == before


def test_each_p_f_curve_keeps_its_colour_whichever_scale_the_sidebar_holds():
    # ckrbf step 5's P_f(α), with the sidebar at either scale, shows CkRBF at both; the sidebar's
    # scale is the curve named "CkRBF"
    colours = {}
    for scale in ("paper", "unit"):
        at = open_app({**lessons.link("ckrbf", 5), "normalize": scale})
        assert_clean(at)
        (pf,) = [f for f in charts(at) if "P<sub>f</sub>" in f["layout"]["title"]["text"]]
        for trace in pf["data"]:
            series = trace["name"].split(" (AUC")[0]
            series = f"CkRBF ({scale} scale)" if series == "CkRBF" else series
            colours.setdefault(series, set()).add(trace["line"]["color"])
    assert {"CkRBF (paper scale)", "CkRBF (unit scale)"} <= set(colours)
    assert all(len(seen) == 1 for seen in colours.values()), colours
    assert colours["CkRBF (paper scale)"] != colours["CkRBF (unit scale)"]


def test_a_damaged_lesson_link_says_why_and_opens_the_app():
    at = open_app(dict(lesson="nonsense", step="2"))
    assert not at.exception
    assert any("There is no lesson 'nonsense'" in unescaped(e.value) for e in at.error)


def test_the_mcpm_bound_step_reads_alpha_from_the_panels():
    at = open_app(lessons.link("mcpm", 3))
    assert_clean(at)
    titles = " ".join(a["text"] for a in charts(at)[0]["layout"]["annotations"])
    for alpha in re.findall(r"α = (\d\.\d\d)", explanation(at)):
        assert f"α = {alpha}" in titles


# ============================================================================ the new settings

@pytest.mark.unit
def test_eta_moves_cksvmnda_and_alpha_is_a_number_on_the_panel():
    X, y = kv.data.make("moons", noise=0.3, random_state=0)
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y, name="moons"), "m", "zscore", "projection", "all", 1.0, 0, 0.3)
    grid = fg.grid_over(prep.X_view, 20)
    small = pipeline.model_panel("CKSVMNDA", prep, grid, 0.0, 0.0, 0, log_eta=-6.0)
    large = pipeline.model_panel("CKSVMNDA", prep, grid, 0.0, 0.0, 0, log_eta=2.0)
    direct = kv.models.CKSVMNDA(gamma=1.0, C=1.0, eta=100.0).fit(prep.X_model[prep.train], prep.y[prep.train])
    assert np.allclose(large.values, direct.decision_function(prep.to_model(grid.points)))
    assert not np.allclose(small.values, large.values)
    mcpm = pipeline.model_panel("MCPM", prep, grid, -1.0, 0.0, 0, unit_kernel="lppk")
    model = kv.models.MCPM(gamma=0.1, kernel="lppk", random_state=0).fit(prep.X_model[prep.train], prep.y[prep.train])
    assert mcpm.alpha == pytest.approx(model.alpha_)
    assert lessons.boundary_results([mcpm])["MCPM"]["alpha"] == mcpm.alpha


# ============================================================================ teacher's mode

def test_a_teachers_link_hides_sections_controls_and_views_and_keeps_their_values():
    # Kernel matrix: the sidebar holds γ (on the scrub views the scrub's sliders do)
    at = open_app(dict(view="kernel", hide="sidebar.partition,log_C,view.grid", log_C="2"))
    assert_clean(at)
    assert "**Partition**" not in [e.label for e in at.expander]
    assert "log_C" not in [s.key for s in at.slider] and "log_gamma" in [s.key for s in at.slider]
    assert "grid" not in at.segmented_control(key="view").options
    at.slider(key="log_gamma").set_value(0.5).run()  # another control changes; the hidden C stays
    assert at.session_state["log_C"] == 2.0 and link(at)["log_C"] == "2"
    assert link(at)["hide"] == "sidebar.partition,log_C,view.grid"


def test_hiding_the_whole_sidebar_and_the_switcher_leaves_the_view_alone():
    at = open_app(dict(view="similarity", hide="sidebar,views"))
    assert_clean(at)
    assert not at.sidebar.children or not list(at.sidebar)
    assert not [w for w in at.segmented_control if w.key == "view"]
    assert charts(at)


def test_an_unknown_hide_flag_is_named():
    at = open_app(dict(hide="sidebar.nonsense"))
    assert any("hide" in unescaped(e.value) and "sidebar.nonsense" in unescaped(e.value) for e in at.error)


def plotlys_projector(fig: go.Figure) -> dict:
    """What takeaway.figure_json(fig, projector=True) must give, built through Plotly's own validated
    figure: a copy, its margins, marker sizes and line widths enlarged through its properties."""
    big = go.Figure(fig)
    grown = 0
    for side in ("t", "l", "b"):
        before = getattr(big.layout.margin, side)
        if before is not None:
            setattr(big.layout.margin, side, round(before * takeaway.PROJECTOR_FONT))
            grown += getattr(big.layout.margin, side) - before if side != "l" else 0
    if big.layout.height is not None:
        big.layout.height += grown
    for trace in big.data:
        marker = getattr(trace, "marker", None)
        if marker is not None and marker.size is not None:
            marker.size = (np.asarray(marker.size, dtype=float) if np.ndim(marker.size) else marker.size) * takeaway.PROJECTOR_MARKERS
        for line in (getattr(trace, "line", None), getattr(marker, "line", None) if marker is not None else None):
            if line is not None and line.width is not None:
                line.width = (np.asarray(line.width, dtype=float) if np.ndim(line.width) else line.width) * takeaway.PROJECTOR_LINES
    return big.to_plotly_json()


def as_text(spec: dict) -> str:
    import plotly.utils

    return json.dumps(spec, cls=plotly.utils.PlotlyJSONEncoder, sort_keys=True)


@pytest.mark.unit
def test_the_projector_enlarges_fonts_markers_and_margins():
    figure = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="markers", marker={"size": 10}),
                       layout={"font": {"size": 14}, "margin": {"t": 100}, "height": 400})
    big = takeaway.figure_json(figure, projector=True)
    assert big["data"][0]["marker"]["size"] == 10 * takeaway.PROJECTOR_MARKERS and big["layout"]["margin"]["t"] == 150
    assert big["layout"]["height"] == 450  # the plot keeps its size
    assert figure.data[0].marker.size == 10 and figure.layout.margin.t == 100  # the original is left as it was
    assert as_text(big) == as_text(plotlys_projector(figure))
    # the lines too: a boundary, a level curve, a marker's outline (one width per point)
    lined = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], mode="lines+markers", line={"width": 2},
                                  marker={"size": 8, "line": {"width": [1, 3]}}),
                       go.Contour(z=[[0, 1], [1, 0]], line={"width": 1.5})])
    thick = takeaway.figure_json(lined, projector=True)
    assert thick["data"][0]["line"]["width"] == 2 * takeaway.PROJECTOR_LINES
    assert thick["data"][1]["line"]["width"] == 1.5 * takeaway.PROJECTOR_LINES
    assert as_text(thick) == as_text(plotlys_projector(lined))
    assert list(lined.data[0].marker.line.width) == [1, 3]
    spec = {"data": [{"type": "contour", "contours": {"labelfont": {"size": 10}}}],
            "layout": {"xaxis": {"tickfont": {"size": 12}, "title": {"font": {"size": 14}}},
                       "annotations": [{"text": "RBF<br><span style='font-size:11px'>train 90%</span>",
                                        "font": {"size": 14}}], "height": 500}}
    enlarged = takeaway.fonts_enlarged(spec)
    assert enlarged["data"][0]["contours"]["labelfont"]["size"] == 15
    assert enlarged["layout"]["xaxis"] == {"tickfont": {"size": 18}, "title": {"font": {"size": 21}}}
    assert enlarged["layout"]["annotations"][0] == {"text": "RBF<br><span style='font-size:16px'>train 90%</span>",
                                                    "font": {"size": 21}}
    assert enlarged["layout"]["height"] == 500
    assert enlarged["layout"]["font"]["size"] == takeaway.DEFAULT_FONT_SIZE * takeaway.PROJECTOR_FONT


def test_on_the_projector_every_text_of_the_picture_is_enlarged():
    """Every font size the page's figure sets — its tick labels and legend too, which the page's
    theme writes in — is larger under the projector than without it (at 1.5×, ~11 px labels read as 17)."""
    def sizes(value, found, in_font=False):
        if isinstance(value, dict):
            for key, item in value.items():
                if in_font and key == "size" and isinstance(item, (int, float)):
                    found.append(item)
                else:
                    sizes(item, found, key.endswith("font"))
        elif isinstance(value, list):
            for item in value:
                sizes(item, found)
        return found

    plain = charts(open_app(dict(view="boundaries", kernels="rbf")))[0]
    at = open_app(dict(view="boundaries", kernels="rbf", projector="1"))
    assert_clean(at)
    big = charts(at)[0]
    assert sizes(big, []) == [pytest.approx(size * takeaway.PROJECTOR_FONT, abs=0.05) for size in sizes(plain, [])]
    assert min(sizes(big, [])) >= 15
    assert big["layout"]["margin"]["t"] == round(plain["layout"]["margin"]["t"] * takeaway.PROJECTOR_FONT)


def test_the_share_box_writes_the_link_and_offers_the_data_file_for_uploads():
    at = open_app(dict(view="data", lesson="rwm", step="2"))
    assert not at.code  # the box is closed: no code block on the page (it loads the browser's highlighter)
    at.session_state[teach.SHARE_BOX_KEY] = True
    at.run()
    share = [c.value for c in at.code if "lesson=rwm" in c.value]
    assert share and "step=2" in share[0]
    at = open_app(dict(view="data", source="upload"))
    at.session_state[teach.SHARE_BOX_KEY] = True
    at.run()
    assert_clean(at)
    assert not any("cannot travel in a link" in w.value for w in at.warning)  # nothing uploaded yet: no file
    csv = "x1,x2,label\n0,0,cat\n1,1,dog\n0,1,cat\n1,0,dog\n0.5,0.5,cat\n1.5,1.5,dog\n"
    at.session_state["_upload"] = ("digest", "pets.csv", csv.encode())
    at.run()
    assert any("cannot travel in a link" in w.value for w in at.warning)
    assert "Download the data file (CSV)" in [d.label for d in at.get("download_button")]


# ============================================================================ take it away

def test_every_view_but_theory_has_the_code_box_and_every_figure_three_downloads():
    for view in ("data", "boundaries", "kernel"):
        at = open_app(dict(view=view))
        assert_clean(at)
        assert any(e.label.startswith("Python code") for e in at.expander)
        # written only when the box is opened: highlighting it slowed every first page
        assert not [c.value for c in at.code if "import kernelviz" in c.value], view
        at.session_state[takeaway.CODE_BOX_KEY] = True
        at.run()
        code = [c.value for c in at.code if "import kernelviz" in c.value]
        assert code, view
        labels = [d.label for d in at.get("download_button")]
        assert labels.count("HTML") == len(charts(at)) - (view == "boundaries" and 0)
    at = open_app(dict(view="theory"))
    assert not any(e.label.startswith("Python code") for e in at.expander)


def _exports(monkeypatch, result):
    """PNG / SVG export stands in for the export browser: returns ``result``'s bytes, or raises it;
    the background export starts at once."""
    from kernelviz import export

    def figure_bytes(fig, fmt):
        if isinstance(result, BaseException):
            raise result
        return result + fmt.encode()

    monkeypatch.setattr(export, "figure_bytes", figure_bytes)
    monkeypatch.setattr(takeaway, "_unavailable_reason", lambda: "")
    monkeypatch.setattr(takeaway, "_warm_exporter", lambda: None)
    monkeypatch.setattr(takeaway, "EXPORT_DELAY", 0.0)
    monkeypatch.setattr(takeaway, "_LAUNCH", takeaway._Launch(allowed=True))


def _export_of(at, name: str):
    """The background export of figure ``name``, waited for."""
    job = at.session_state[takeaway.EXPORTS_KEY][name]
    job.join(10)
    return job


def _png(at, name: str):
    (button,) = [d for d in at.get("download_button") if d.key == f"png_{name}"]
    return button


def test_a_png_is_made_in_the_background_and_saved_in_one_click_never_for_another_figure(monkeypatch):
    _exports(monkeypatch, b"picture-")
    at = open_app(dict(view="kernel"))
    assert_clean(at)
    first = _export_of(at, "kernel_matrix")
    assert first.files == {"png": b"picture-png", "svg": b"picture-svg"}
    at.run()  # the same figure: its files, one click away, and no second export
    assert _png(at, "kernel_matrix").label == "PNG"
    assert at.session_state[takeaway.EXPORTS_KEY]["kernel_matrix"] is first
    assert first.file("png") == b"picture-png"  # what the button's click saves
    # another figure (γ moved): the file made of the old one is not offered; the new one is made
    at.session_state["log_gamma"] = 1.0
    at.run()
    second = at.session_state[takeaway.EXPORTS_KEY]["kernel_matrix"]
    assert second is not first and second.identity != first.identity
    assert _export_of(at, "kernel_matrix").files["png"] == b"picture-png"
    assert first.cancelled or first.done


def test_a_click_on_a_png_still_being_made_waits_for_it(monkeypatch):
    import threading

    from kernelviz import export

    _exports(monkeypatch, b"picture-")
    release = threading.Event()
    monkeypatch.setattr(export, "figure_bytes", lambda fig, fmt: release.wait(10) and b"late-" + fmt.encode())
    at = open_app(dict(view="kernel"))
    job = at.session_state[takeaway.EXPORTS_KEY]["kernel_matrix"]
    assert not job.done and _png(at, "kernel_matrix").label == "PNG"
    threading.Timer(0.5, release.set).start()
    assert job.file("png") == b"late-png"  # the click's callback: it waited for the file


def _waits_at_the_gate(job, deadline: float = 10.0) -> bool:
    import time

    end = time.monotonic() + deadline
    while time.monotonic() < end and not job.held:
        time.sleep(0.01)
    return job.held


def test_no_export_launches_the_export_browser_in_the_warm_up_a_click_does(monkeypatch):
    """A fresh server's first figure was exported 1.5 s after it was drawn: its job launched the
    export browser (seconds of a core, at the server's priority while it starts) while the person made
    the first steps, and the committed γ step's median rose from 0.28–0.30 s to 0.31–0.39 s (the same
    steps 35 s after the page opened, the browser already warm, did not). A background export waits
    for the warm-up (WARM_UP_DELAY after the first figure) unless the browser is already running; a
    click on PNG does not wait for it."""
    made = []  # (figure, format) of every export; earlier tests' jobs may land here too: only ours are read
    browser = {"running": False}  # the stand-in export browser: started by the first export of ours made
    ours = []  # this test's figures (an earlier test's job does not start our browser)
    _exports(monkeypatch, b"picture-")
    from kernelviz import export

    def figure_bytes(fig, fmt):
        made.append((fig, fmt))
        if any(fig is f for f in ours):
            browser["running"] = True
        return b"picture-" + fmt.encode()

    monkeypatch.setattr(export, "figure_bytes", figure_bytes)
    monkeypatch.setattr(export, "browser_running", lambda: browser["running"])

    def made_of(job):
        return [fmt for fig, fmt in made if fig is job.fig]

    gate = takeaway._Launch(allowed=False)
    monkeypatch.setattr(takeaway, "_LAUNCH", gate)
    at = open_app(dict(view="kernel"))
    job = at.session_state[takeaway.EXPORTS_KEY]["kernel_matrix"]
    ours.append(job.fig)
    assert _waits_at_the_gate(job) and made_of(job) == [] and not job.done
    gate.allow()  # the warm-up's time has come
    assert job.join(10) and job.files == {"png": b"picture-png", "svg": b"picture-svg"}

    # before the warm-up again (a new gate, no browser): a job cancelled at the gate ends there, making nothing
    browser["running"] = False
    gate = takeaway._Launch(allowed=False)
    monkeypatch.setattr(takeaway, "_LAUNCH", gate)
    ours.extend(go.Figure() for _ in range(3))
    cancelled = takeaway.ExportJob(ours[1], "a cancelled figure")
    assert _waits_at_the_gate(cancelled)
    cancelled.cancel()
    assert cancelled.join(10) and made_of(cancelled) == [] and cancelled.files == {}
    # a click is made at once; the browser it starts lets the jobs held beside it go too
    waiting = takeaway.ExportJob(ours[2], "a waiting figure")
    clicked = takeaway.ExportJob(ours[3], "a clicked figure")
    assert _waits_at_the_gate(waiting) and _waits_at_the_gate(clicked) and made_of(clicked) == []
    assert clicked.file("png") == b"picture-png" and "png" in made_of(clicked)
    assert waiting.join(10) and waiting.files == {"png": b"picture-png", "svg": b"picture-svg"}
    assert not gate.allowed  # the warm-up's own time has not come
    # with the browser already running, nothing waits
    running = takeaway.ExportJob(go.Figure(), "a fourth figure")
    assert running.join(10) and running.files == {"png": b"picture-png", "svg": b"picture-svg"}
    assert not running.held


def test_the_warm_up_opens_the_gate_then_starts_the_export_browser(monkeypatch):
    from kernelviz import export

    calls = []
    gate = takeaway._Launch(allowed=False)
    monkeypatch.setattr(takeaway, "_LAUNCH", gate)
    monkeypatch.setattr(takeaway, "WARM_UP_DELAY", 0.05)
    monkeypatch.setattr(export, "warm_up", lambda: calls.append(gate.allowed))
    timer = takeaway._warm_exporter.__wrapped__()  # not the server's cached one
    timer.join(10)
    assert calls == [True] and gate.allowed


def test_the_warm_up_waits_for_a_pause_in_the_figures_drawn(monkeypatch):
    """At a fixed time after the first figure, the export browser's launch (a core for seconds) fell
    into whatever the person was doing then: a dragged point's refits, a γ step. It waits until no
    figure has been drawn for WARM_UP_QUIET seconds."""
    import time

    from kernelviz import export

    gate = takeaway._Launch(allowed=False)
    monkeypatch.setattr(takeaway, "_LAUNCH", gate)
    monkeypatch.setattr(takeaway, "WARM_UP_DELAY", 0.05)
    monkeypatch.setattr(takeaway, "WARM_UP_QUIET", 0.3)
    quiet_at_launch = []
    monkeypatch.setattr(export, "warm_up", lambda: quiet_at_launch.append(time.monotonic() - gate.last_drawn))
    gate.drawn()
    timer = takeaway._warm_exporter.__wrapped__()
    end = time.monotonic() + 1.0
    while time.monotonic() < end:  # a figure every 50 ms for a second: a point dragged
        gate.drawn()
        time.sleep(0.05)
    timer.join(10)
    assert len(quiet_at_launch) == 1 and quiet_at_launch[0] >= 0.3, quiet_at_launch
    at = open_app(dict(view="kernel"))  # every figure the page draws counts
    before = gate.last_drawn
    at.run()
    assert gate.last_drawn > before


def test_an_export_that_times_out_says_so_on_the_page_and_the_page_stays(monkeypatch):
    """Made in Streamlit's download callback, a failure reached the person only as "Failed to generate
    file for download": our sentence (how long, try again) was lost."""
    from kernelviz import export

    import threading

    _exports(monkeypatch, export.ExportTimeout(30.0))
    run_over = threading.Event()

    def figure_bytes(fig, fmt):  # fails once the page's run is over
        run_over.wait(10)
        raise export.ExportTimeout(30.0)

    monkeypatch.setattr(export, "figure_bytes", figure_bytes)
    at = open_app(dict(view="kernel"))
    assert _png(at, "kernel_matrix").label == "PNG"
    run_over.set()
    _export_of(at, "kernel_matrix")
    at.run()
    errors = [unescaped(e.value) for e in at.error]
    assert any("could not be exported" in e and "took longer than 30 s" in e for e in errors), errors
    assert charts(at) and not [d for d in at.get("download_button") if d.key == "png_kernel_matrix"]
    at.run()  # said once
    assert not [e for e in at.error if "could not be exported" in unescaped(e.value)]


# ============================================================================ the decision function taken apart

def test_the_terms_section_starts_closed_and_refits_nothing_until_opened(monkeypatch):
    fits = []
    fitted_svm = caches.fitted_svm
    monkeypatch.setattr(caches, "fitted_svm", lambda *args: fits.append(args[0]) or fitted_svm(*args))
    at = open_app(dict(view="boundaries", kernels="rbf", ref_x="0.5", ref_y="0.2"))
    assert_clean(at)
    assert any(e.label.startswith("The decision function taken apart") for e in at.expander)
    assert not any("What decides the point" in f["layout"]["title"]["text"] for f in charts(at))
    assert fits == []
    at.session_state[ui_anatomy.BOX_KEY] = True
    at.run()
    assert any("What decides the point" in f["layout"]["title"]["text"] for f in charts(at))
    assert fits == ["rbf"]


def test_the_terms_of_the_chosen_point_add_up_to_the_panels_f():
    at = open_app({"view": "boundaries", "kernels": "rbf", "ref_x": "0.5", "ref_y": "0.2"}, run=False)
    at.session_state[ui_anatomy.BOX_KEY] = True
    at.run()
    assert_clean(at)
    figures = charts(at)
    terms = next(f for f in figures if "What decides the point" in f["layout"]["title"]["text"])
    title = terms["layout"]["annotations"][0]["text"]
    value = float(re.search(r"f\(x\) = ([+−-]?\d+\.\d+)", title).group(1).replace("−", "-"))
    X, y = kv.data.make("moons", random_state=0)
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y, name="moons"), "m", "zscore", "projection", "all", 1.0, 0, 0.3)
    grid = fg.Grid(np.array([0.5]), np.array([0.2]))
    panel = pipeline.boundary_panel("rbf", pipeline.kernel_on_points("rbf", prep.X_model, None, "paper"), prep, grid, 0.0, 0.0)
    assert value == pytest.approx(float(panel.values[0]), abs=1e-3)


# ============================================================================ the shipped lesson grids

def shipped(name: str, values: dict):
    """Kernel ``name``'s search for the settings ``values`` among the package's shipped entries alone."""
    prep = pipeline.prepared(values)
    key = pipeline.search_key(pipeline.KernelSpec.from_settings(name, values), pipeline.GridSpec.from_settings(values),
                              prep)
    return _diskcache.DiskCache(None, read_only=(_diskcache.SHIPPED,)).get(key)


@pytest.mark.unit
def test_every_heavy_step_has_its_grids_shipped():
    steps = lessons.search_steps()
    assert len(steps) >= 4
    for name, k in steps:
        values = lessons.get(name).step(k).applied()
        for kernel in values["kernels"]:
            assert shipped(kernel, values) is not None, (f"{name} step {k}: no shipped search of {kernel} for today's "
                                                         "code (its key carries the code's version): make shipped-cache")


@pytest.mark.unit
def test_a_shipped_grid_is_used_only_for_exactly_the_steps_settings():
    values = lessons.get("rbf-basics").step(6).applied()
    assert shipped("rbf", values) is not None
    assert shipped("rbf", {**values, "cv_seed": 1}) is None
    assert shipped("rbf", {**values, "data_seed": values["data_seed"] + 1}) is None
    assert shipped("rbf", {**values, "normalize": "unit"}) is not None  # RBF has no scale
    # CkRBF's scale is part of its search (step 5 ships the paper's, step 6 the unit scale's)
    paper, unit = (lessons.get("ckrbf").step(k).applied() for k in (5, 6))
    assert (paper["normalize"], unit["normalize"]) == ("paper", "unit")
    assert shipped("ckrbf", paper)[0].fold_scores.tolist() != shipped("ckrbf", unit)[0].fold_scores.tolist()
    assert shipped("rbf", paper)[0].fold_scores.tolist() == shipped("rbf", unit)[0].fold_scores.tolist()


@pytest.mark.slow
def test_a_shipped_grid_equals_a_fresh_search():
    values = lessons.get("rbf-basics").step(6).applied()
    prep = pipeline.prepared(values)
    grid = pipeline.GridSpec.from_settings(values)
    fresh, fresh_path = pipeline.search_kernel("rbf", prep, np.array(grid.log_Cs), np.array(grid.log_gammas), grid.cv,
                                               grid.cv_seed, {})
    result, path = shipped("rbf", values)
    assert np.array_equal(result.fold_scores, fresh.fold_scores)
    assert np.array_equal(result.Cs, fresh.Cs) and np.array_equal(result.gammas, fresh.gammas)
    assert path.C_tilde == fresh_path.C_tilde and path.cells == fresh_path.cells
    assert np.array_equal(path.line_gammas, fresh_path.line_gammas) and path.best_cell == fresh_path.best_cell


# ============================================================================ class names from the file

def test_text_labels_name_the_classes_in_the_legend_the_summary_and_the_download():
    csv = "x1,x2,species\n0,0,cat\n1,1,dog\n0,1,cat\n1,0.2,dog\n0.5,0.5,cat\n1.5,1.5,dog\n0.1,0.3,cat\n1.2,1.4,dog\n"
    at = open_app({"source": "upload", "test_fraction": "0"}, run=False)
    at.session_state["_upload"] = ("digest-species", "species.csv", csv.encode())
    at.run()
    assert_clean(at)
    legend = [t["name"] for t in charts(at)[0]["data"] if "name" in t]
    assert "cat" in legend and "dog" in legend
    assert any("- cat: 4 train" in m.value for m in at.markdown)
    assert "Download data (CSV)" in [d.label for d in at.get("download_button")]
    at.segmented_control(key="view").set_value("boundaries").run()
    assert_clean(at)
    legend = [t["name"] for t in charts(at)[0]["data"] if t.get("name")]
    assert "cat (train)" in legend and "dog (train)" in legend
    prep = pipeline.prepare_dataset(kv.data.read(csv.encode(), name="pets"), "p", "zscore", "projection", "all", 1.0, 0, 0.0)
    export = kv.data.Dataset(prep.X_raw, prep.y, name="pets", class_names=prep.class_names)
    assert "cat" in kv.data.to_csv(export) and "dog" in kv.data.to_csv(export)


@pytest.mark.unit
def test_support_vectors_at_the_bound_c_are_drawn_apart_from_free_ones():
    X, y = kv.data.make("moons", noise=0.3, random_state=0)
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y, name="moons"), "m", "zscore", "projection", "all", 1.0, 0, 0.3)
    grid = fg.grid_over(prep.X_view, 10)
    C = 1.0
    panel = pipeline.boundary_panel("rbf", pipeline.kernel_on_points("rbf", prep.X_model, None, "paper"), prep, grid, 0.0, 0.0)
    assert np.array_equal(panel.bounded, np.isclose(panel.dual, C, rtol=1e-9))
    assert 0 < panel.bounded.sum() < len(panel.bounded)  # both kinds on noisy moons at C = 1
    (rings,) = [t for t in fg.boundary_figure([panel], grid).data if t.legendgroup == "sv"]
    assert list(rings.marker.symbol) == [fg.BOUNDED_SV_SYMBOL if b else fg.FREE_SV_SYMBOL for b in panel.bounded]


def paper_span(shape: dict, layout: dict, axis: str) -> tuple[float, float]:
    """Where a shape's edges along ``axis`` ("x" or "y") lie in paper coordinates."""
    ref = shape[f"{axis}ref"]
    low, high = shape[f"{axis}0"], shape[f"{axis}1"]
    if ref == "paper":
        return low, high
    assert ref.endswith(" domain"), ref  # relative to an axis's domain
    domain = layout[ref.split()[0].replace(axis, f"{axis}axis", 1)]["domain"]
    return tuple(domain[0] + v * (domain[1] - domain[0]) for v in (low, high))


def test_the_panel_a_step_points_at_is_framed_below_its_title():
    at = open_app(lessons.link("rwm", 2))  # look at: the RWM panel, beside the RBF one
    assert_clean(at)
    step = lessons.get("rwm").step(2)
    figure = charts(at)[0]
    frames = [s for s in figure["layout"].get("shapes", []) if s.get("line", {}).get("color") == fg.HIGHLIGHT_COLOR]
    assert len(frames) == 1
    index = step.settings["kernels"].index(step.look_at.target)
    suffix = "" if index == 0 else str(index + 1)
    x_domain = figure["layout"][f"xaxis{suffix}"]["domain"]
    y_domain = figure["layout"][f"yaxis{suffix}"]["domain"]
    (x0, x1), (y0, y1) = (paper_span(frames[0], figure["layout"], axis) for axis in ("x", "y"))
    # on the panel (its columns, its rows) …
    assert x_domain[0] <= x0 < x1 <= x_domain[1] and y_domain[0] <= y0 < y1 <= y_domain[1]
    assert x1 - x0 > 0.9 * (x_domain[1] - x_domain[0]) or y1 - y0 > 0.9 * (y_domain[1] - y_domain[0])
    # … and below its title, which sits on the panel's top edge
    title = figure["layout"]["annotations"][index]
    assert fg.kernel_label(step.look_at.target) in title["text"]
    assert title["yanchor"] == "bottom" and y1 < title["y"]
    at.button(key="lesson_leave").click().run()
    assert not [s for s in charts(at)[0]["layout"].get("shapes", [])
                if s.get("line", {}).get("color") == fg.HIGHLIGHT_COLOR]


# ============================================================================ a figure drawn once (takeaway.chart)

def four_panel_spec() -> dict:
    """A figure as figures.py builds them: numpy arrays (base64 in the JSON), a template, a title."""
    import plotly.io as pio

    z = np.linspace(-1, 1, 12).reshape(3, 4)
    traces = [{"type": "heatmap", "z": z, "xaxis": "x2", "yaxis": "y2"},
              {"type": "contour", "z": z, "contours": {"start": 0, "end": 0}},
              {"type": "scatter", "x": np.arange(3.0), "y": np.ones(3), "mode": "markers"}]
    layout = {"title": {"text": "Decision boundaries"}, "template": pio.templates["plotly_white"].to_plotly_json(),
              "xaxis2": {"gridcolor": "#123456"}, "hovermode": "x"}
    return go.Figure({"data": traces, "layout": layout}, _validate=False).to_plotly_json()


@pytest.mark.unit
def test_a_drawn_once_figure_has_plain_lists_with_the_same_values():
    spec = four_panel_spec()
    assert "bdata" in json.dumps(spec["data"])  # what Plotly.react compared by identity
    once = takeaway.drawn_once(spec, selectable=True)
    assert "bdata" not in json.dumps(once["data"])
    np.testing.assert_array_equal(once["data"][0]["z"], np.linspace(-1, 1, 12).reshape(3, 4))
    np.testing.assert_array_equal(once["data"][2]["x"], [0.0, 1.0, 2.0])


@pytest.mark.unit
def test_a_drawn_once_figure_carries_its_template_in_itself_and_no_template():
    once = takeaway.drawn_once(four_panel_spec())
    layout = once["layout"]
    assert "template" not in layout
    assert layout["plot_bgcolor"] == "white"  # plotly_white's
    assert layout["xaxis2"]["gridcolor"] == "#123456"  # the figure's own value wins
    assert layout["xaxis"]["tickfont"] == takeaway.STREAMLIT_LOOK["xaxis"]["tickfont"]  # every x axis
    assert layout["xaxis2"]["tickfont"] == takeaway.STREAMLIT_LOOK["xaxis"]["tickfont"]
    assert once["data"][0]["colorscale"][0][1] == "#0d0887"  # plotly_white's heatmap default
    # a template's line colour does not draw axis lines; a colour the figure sets would
    assert layout["xaxis"]["showline"] is False and layout["xaxis2"]["showline"] is False
    lined = four_panel_spec()
    lined["layout"]["xaxis2"]["linecolor"] = "black"
    assert "showline" not in takeaway.drawn_once(lined)["layout"]["xaxis2"]
    assert layout["title"]["text"] == "<b>Decision boundaries</b>"
    assert takeaway.drawn_once(once)["layout"]["title"]["text"] == "<b>Decision boundaries</b>"  # bold once


@pytest.mark.unit
def test_a_drawn_once_figure_has_the_selection_layout_only_where_it_sets_none():
    layout = takeaway.drawn_once(four_panel_spec(), selectable=True)["layout"]
    assert (layout["clickmode"], layout["dragmode"], layout["hovermode"]) == ("event+select", "pan", "x")
    assert "clickmode" not in takeaway.drawn_once(four_panel_spec())["layout"]


@pytest.mark.unit
def test_the_data_revision_changes_with_the_data_only():
    a, b = four_panel_spec(), four_panel_spec()
    b["layout"]["title"]["text"] = "another title"
    revision = takeaway.drawn_once(a)["layout"]["datarevision"]
    assert takeaway.drawn_once(b)["layout"]["datarevision"] == revision
    changed = go.Figure(a, _validate=False)
    changed.data[0].z = np.zeros((3, 4))
    assert takeaway.drawn_once(changed.to_plotly_json())["layout"]["datarevision"] != revision


@pytest.mark.unit
def test_a_field_drawn_by_three_traces_is_one_list_that_copies_as_itself():
    once = takeaway.drawn_once(four_panel_spec())
    assert once["data"][0]["z"] is once["data"][1]["z"]
    assert copy.deepcopy(once)["data"][0]["z"] is once["data"][0]["z"]


@pytest.mark.unit
def test_a_typed_drawn_once_figure_keeps_plotlys_base64_arrays():
    spec = four_panel_spec()
    once = takeaway.drawn_once(spec, selectable=True, typed=True)
    assert once["data"][0]["z"] == spec["data"][0]["z"] and "bdata" in once["data"][0]["z"]
    assert once["layout"]["datarevision"] == takeaway.drawn_once(spec)["layout"]["datarevision"]
    assert "template" not in once["layout"] and once["layout"]["title"]["text"] == "<b>Decision boundaries</b>"


def test_every_view_sends_its_figures_with_a_revision_and_without_template():
    for view in ("data", "partition", "boundaries", "similarity", "kernel"):
        at = open_app(dict(view=view, gen_params="n_samples:60", kernels="rbf,ckrbf"))
        assert not at.exception, view
        specs = figures(at, typed=True)
        assert specs, view
        for spec in specs:
            assert spec["layout"].get("template") is None, view
            assert spec["layout"]["datarevision"], view
        if view in ("boundaries", "similarity"):
            assert specs[0]["layout"]["clickmode"] == "event+select", view


def test_every_figure_is_sent_as_plotlys_own_json_would_give_it(monkeypatch):
    """takeaway.figure_json (which skips Plotly's deep copy and data-frame checks) gives what
    ``fig.to_plotly_json()`` gives, on every figure the views draw — on the projector too — and on
    the grid search's and P_f's, which wait for a button in the app."""
    import plotly.utils

    checked = []
    own = takeaway.figure_json
    text = lambda spec: json.dumps(spec, cls=plotly.utils.PlotlyJSONEncoder, sort_keys=True)  # noqa: E731

    def compared(fig, projector=False):
        sent = own(fig, projector=projector)
        assert text(sent) == text(plotlys_projector(fig) if projector else fig.to_plotly_json())
        checked.append(sent["layout"].get("title", {}).get("text", ""))
        return sent

    monkeypatch.setattr(takeaway, "figure_json", compared)
    links = [dict(view=view, gen_params="n_samples:60", kernels="rbf,ckrbf") for view in ("data", "partition", "similarity", "kernel")]
    links += [dict(view="boundaries", gen_params="n_samples:60", kernels="rbf,ckrbf", models="SCM,KFD"),
              dict(view="boundaries", gen_params="n_samples:60", kernels="rwm", projector="1")]
    for link in links:
        assert_clean(open_app(link))
    assert len(checked) >= len(links)
    log_Cs, log_gammas = np.arange(-2.0, 3.0), np.arange(-3.0, 2.0)
    grid = fg.grid_search_figure([fg.GridPanel("rbf", np.full((5, 5), 0.6), np.array([[-3.0, 2.0], [-2.0, 1.0]]), (-2.0, 1.0))],
                                 log_Cs, log_gammas)
    alphas = np.linspace(0.5, 1, 11)
    pf = fg.pf_figure({"rbf": (alphas, np.linspace(1, 0, 11))}, alpha0=0.5, aucs={"rbf": 0.25})
    for fig in (grid, pf):
        assert text(own(fig)) == text(fig.to_plotly_json())
        assert text(own(fig, projector=True)) == text(plotlys_projector(fig))
    # what Plotly converts and what it leaves: an array under a dict's key becomes a typed array, one
    # in a list stays, and a skipped key's value is copied as it is
    # and every kind of array: 64-bit integers in the smallest type that holds them (or none), 2-d
    # and transposed ones, empty, boolean and float32 ones
    arrays = {"x": np.arange(3, dtype=np.int64), "y": np.array([-40_000, 2], dtype=np.int64), "z": np.arange(6.0).reshape(2, 3).T,
              "ids": np.array([2**40], dtype=np.int64), "text": np.array([70_000], dtype=np.uint64),
              "hovertext": np.array([], dtype=float), "selectedpoints": np.array([True, False]), "opacity": np.ones(2, np.float32)}
    odd = go.Figure({"data": [{"type": "scatter", "customdata": [np.arange(2.0)], "marker": {"color": (np.ones(2), {"c": np.zeros(2)})},
                               **arrays}],
                     "layout": {"xaxis": {"range": np.array([0.0, 1.0])}}}, _validate=False)
    assert text(own(odd)) == text(odd.to_plotly_json())
    assert own(odd)["data"][0]["x"] == {"dtype": "i1", "bdata": "AAEC"}
