"""The Streamlit app through AppTest: views render, settings act, errors stay on the page.

Figures are read back from the Plotly JSON in each chart's ``proto.spec``; plotly ≥ 6
stores numeric arrays as ``{"dtype", "bdata"}`` (base64), decoded by :func:`array`.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import kernelviz as kv
from kernelviz import state as kvstate

APP = str(Path(__file__).resolve().parent.parent / "app.py")
VIEWS = kvstate.VIEWS
CHART_VIEWS = ("data", "partition", "similarity", "boundaries", "kernel")
# Few points and two kernels keep the per-data-set sweep short; every kernel is covered below.
SMALL = {"gen_params": "n_samples:80", "kernels": "rbf,ckrbf", "grid_steps": "3", "cv": "2"}


def make_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def array(value) -> np.ndarray:
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            shape = value["shape"]
            shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
            data = data.reshape(shape)
        return data
    return np.asarray(value, dtype=object)


def show(at: AppTest, view: str) -> AppTest:
    at.segmented_control(key="view").set_value(view)
    return at.run()


def widget(at: AppTest, key: str):
    for kind in ("slider", "number_input", "selectbox", "radio", "multiselect", "segmented_control"):
        found = [w for w in getattr(at, kind) if w.key == key]
        if found:
            return found[0]
    raise KeyError(key)


def sweep_views(at: AppTest) -> None:
    for view in VIEWS:
        show(at, view)
        assert_clean(at)
        if view in CHART_VIEWS:
            assert charts(at), f"no chart in the {view} view"


# ----------------------------------------------------------------------------- every data set, every view


@pytest.mark.parametrize("generator", list(kv.data.GENERATORS))
def test_every_view_renders_for_each_generator(generator):
    at = make_app(generator=generator, **SMALL)
    assert_clean(at)
    sweep_views(at)


@pytest.mark.parametrize("sample", list(kvstate.BY_NAME["sample"].choices()))
def test_every_view_renders_for_each_bundled_sample(sample):
    at = make_app(source="sample", sample=sample, kernels="rbf,ckrbf", label_how="fraction", label_fraction="0.3")
    assert_clean(at)
    sweep_views(at)


def test_every_kernel_renders_in_the_kernel_views():
    at = make_app(gen_params="n_samples:60", kernels=",".join(kvstate.KERNEL_NAMES), view="boundaries")
    assert_clean(at)
    (fig,) = charts(at)
    titles = " ".join(a["text"] for a in fig["layout"]["annotations"])
    for name in kvstate.KERNEL_NAMES:
        assert kv.figures.kernel_label(name) in titles
    for view in ("similarity", "kernel"):
        show(at, view)
        assert_clean(at)
        assert charts(at)


def test_every_model_gets_a_boundary_panel():
    at = make_app(gen_params="n_samples:60", kernels="rbf", models=",".join(kvstate.MODEL_NAMES), view="boundaries")
    assert_clean(at)
    titles = " ".join(a["text"] for a in charts(at)[0]["layout"]["annotations"])
    for name in kvstate.MODEL_NAMES:
        assert name in titles
    assert "worst-case accuracy bound" in titles


def test_two_class_models_step_aside_on_three_classes():
    at = make_app(gen_params="n_classes:3,n_samples:90", generator="blobs", kernels="rbf", models="MPM,SCM",
                  view="boundaries")
    assert not at.exception
    assert any("MPM separates two classes only" in i.value for i in at.info)
    titles = " ".join(a["text"] for a in charts(at)[0]["layout"]["annotations"])
    assert "SCM" in titles and "RBF" in titles



# ----------------------------------------------------------------------------- settings change figures


def _heatmap_z(fig: dict) -> np.ndarray:
    heat = next(t for t in fig["data"] if t["type"] == "heatmap")
    return array(heat["z"]).astype(float)


def test_a_gamma_change_changes_the_decision_boundaries():
    at = make_app(view="boundaries", kernels="rbf,rwm")
    before = charts(at)[0]
    widget(at, "log_gamma").set_value(1.0)
    at.run()
    assert_clean(at)
    after = charts(at)[0]
    assert "γ = 10" in after["layout"]["title"]["text"]
    assert not np.allclose(_heatmap_z(before), _heatmap_z(after))
    assert at.query_params["log_gamma"] in ("1", ["1"])


def test_a_partition_change_changes_the_partition_figure():
    at = make_app(view="partition")
    before = charts(at)[0]
    widget(at, "n_components").set_value(4)
    at.run()
    assert_clean(at)
    after = charts(at)[0]
    assert "4 components" in after["layout"]["title"]["text"]
    assert _heatmap_z(after).max() == 3 and _heatmap_z(before).max() == 1


def test_the_similarity_reference_follows_a_click():
    at = make_app(view="similarity", kernels="rbf")
    fig = charts(at)[0]
    ref = next(t for t in fig["data"] if t.get("name") == "reference point")
    assert at.session_state["ref_x"] == pytest.approx(float(array(ref["x"])[0]), abs=1e-3)
    at.session_state["similarity_chart"] = {"selection": {"points": [{"x": 0.75, "y": -0.5, "curve_number": 3}]}}
    at.run()
    at.run()  # the click is applied at the start of the next run
    assert_clean(at)
    assert (at.session_state["ref_x"], at.session_state["ref_y"]) == (0.75, -0.5)
    ref = next(t for t in charts(at)[0]["data"] if t.get("name") == "reference point")
    assert float(array(ref["x"])[0]) == 0.75


# ----------------------------------------------------------------------------- URL round trip


def test_the_url_round_trips_every_setting_it_holds():
    query = {"view": "similarity", "generator": "circles", "gen_params": "factor:0.3,n_samples:120", "data_seed": "7",
             "scaling": "minmax", "partition": "gmm", "n_components": "3", "kernels": "rbf,rwm",
             "log_gamma": "0.5", "log_C": "1.2", "sim_mode": "similarity", "label_how": "per_class",
             "label_per_class": "5"}
    at = make_app(**query)
    assert_clean(at)
    assert widget(at, "generator").value == "circles"
    assert widget(at, "log_gamma").value == 0.5
    assert at.session_state["gp:circles:factor"] == 0.3
    assert at.session_state["kernels"] == ["rbf", "rwm"]
    link = dict(at.query_params)
    for key, value in query.items():
        assert link[key] in (value, [value]), key
    # the link written back opens the same state
    again = make_app(**{k: v[-1] if isinstance(v, list) else v for k, v in link.items()})
    for name in kvstate.BY_NAME:
        if name != "points":
            assert again.session_state[name] == at.session_state[name], name
    assert charts(again)[0] == charts(at)[0]


def test_a_damaged_link_opens_with_defaults_and_says_why():
    at = make_app(log_gamma="abc", n_components="0", kernels="rbf,nope", view="partition")
    messages = " ".join(e.value for e in at.error)
    assert "log_gamma" in messages and "n_components" in messages and "kernels" in messages
    assert at.session_state["log_gamma"] == 0.0
    assert at.session_state["n_components"] == 2
    assert not at.exception
    assert charts(at)


# ----------------------------------------------------------------------------- bad input keeps the state


GOOD_CSV = b"a,b,label\n" + b"".join(f"{i % 7},{(i * 3) % 5},{i % 2}\n".encode() for i in range(40))
BAD_UPLOADS = {
    "empty": b"",
    "malformed": b"a,b,label\n1,2,0\n3,4\n5,6,1,9\n",
    "nan": b"a,b,label\n1,2,0\nnan,4,1\n5,6,1\n",
    "text": b"hello there\nthis is not a table of numbers\njust words\n",
    "one class": b"a,b,label\n1,2,1\n3,4,1\n5,6,1\n7,1,1\n",
    "garbage": np.random.default_rng(0).integers(0, 256, 3_000_000, dtype=np.uint8).tobytes(),
}


def _upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.file_uploader(key="uploader").set_value((name, content, "text/csv"))
    return at.run()


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_a_bad_upload_shows_an_error_and_keeps_the_previous_data(case):
    at = make_app(source="upload")
    _upload(at, "good.csv", GOOD_CSV)
    assert_clean(at)
    assert "**good**" in at.markdown[-1].value or any("**good**" in m.value for m in at.markdown)
    good_chart = charts(at)[0]
    _upload(at, f"{case}.csv", BAD_UPLOADS[case])
    assert not at.exception
    assert any("Could not use" in e.value for e in at.error), [e.value for e in at.error]
    assert any("**good**" in m.value for m in at.markdown)
    assert charts(at)[0] == good_chart
    assert at.session_state["source"] == "upload"


def test_more_clusters_than_points_is_refused_and_the_setting_restored():
    at = make_app(view="partition", gen_params="n_samples:12")
    assert_clean(at)
    widget(at, "n_components").set_value(20)
    at.run()
    assert not at.exception
    assert any("More clusters" in e.value for e in at.error)
    assert at.session_state["n_components"] == 2
    assert charts(at)


def test_a_one_class_labeling_explains_instead_of_failing():
    at = make_app(view="boundaries", source="drawn", points="1_0.5_1~0_1_1~0.5_0.5_0")
    assert not at.exception
    assert any("two classes" in i.value for i in at.info)


# ----------------------------------------------------------------------------- drawing


def _click(at: AppTest, x: float, y: float) -> AppTest:
    at.session_state["draw_chart"] = {"selection": {"points": [{"x": x, "y": y, "curve_number": 0}]}}
    return at.run()


def test_clicks_on_the_canvas_add_points_undo_and_clear():
    at = make_app(source="drawn")
    assert not at.exception
    _click(at, 1.0, 0.5)
    at.segmented_control(key="draw_class").set_value("class −1")
    at.run()
    _click(at, -1.0, -0.5)
    points = at.session_state["points"]
    assert points.tolist() == [[1.0, 0.5, 1.0], [-1.0, -0.5, -1.0]]
    assert "points" in at.query_params
    drawn = [t for t in charts(at)[0]["data"] if t.get("name", "").startswith("class")]
    assert len(drawn) == 2
    next(b for b in at.button if b.label == "Undo").click()
    at.run()
    assert at.session_state["points"].tolist() == [[1.0, 0.5, 1.0]]
    next(b for b in at.button if b.label == "Clear").click()
    at.run()
    assert len(at.session_state["points"]) == 0
    assert not at.exception


def test_drawn_points_reopen_from_the_link():
    at = make_app(source="drawn", points="1_0.5_1~-1_-0.5_-1~0_0_0", view="boundaries", kernels="rbf",
                  test_fraction="0")
    assert_clean(at)
    assert at.session_state["points"].shape == (3, 3)
    assert charts(at)


# ----------------------------------------------------------------------------- grid search, P_f, theory


def test_grid_search_then_pf_with_the_scale_switch():
    at = make_app(view="grid", kernels="rbf,ckrbf", grid_steps="3", cv="2", gen_params="n_samples:60")
    assert not charts(at)
    next(b for b in at.button if b.label == "Run grid search").click()
    at.run()
    assert_clean(at)
    (fig,) = charts(at)
    assert sum(t["type"] == "heatmap" for t in fig["data"]) == 2
    assert any(d.label == "Download scores (CSV)" for d in at.get("download_button"))
    show(at, "pf")
    assert_clean(at)
    paper = charts(at)[0]
    assert any("AUC" in t["name"] for t in paper["data"] if "name" in t)
    next(b for b in at.button if b.label.startswith("Switch CkRBF")).click()
    at.run()
    assert at.session_state["normalize"] == "unit"
    assert any("CkRBF: not searched yet" in i.value for i in at.info)  # RBF's grid is reused
    next(b for b in at.button if b.label == "Run grid search").click()
    at.run()
    assert_clean(at)
    assert any("CkRBF scale: **unit**" in m.value for m in at.markdown)
    assert any("Why the CkRBF curve moves" in m.value for m in at.markdown)
    assert charts(at)


def test_a_preset_sets_the_sidebar_state():
    at = make_app(view="theory")
    assert_clean(at)
    assert len(at.get("latex")) == len(kvstate.KERNEL_NAMES)
    next(b for b in at.button if b.key == "preset_rwm_fig1").click()
    at.run()
    assert_clean(at)
    assert at.session_state["view"] == "boundaries"
    assert at.session_state["generator"] == "concentric"
    assert at.session_state["kernels"] == ["rbf", "rwm"]
    assert charts(at)


def test_large_data_evaluates_the_boundary_in_blocks():
    at = make_app(view="boundaries", kernels="rbf,ckrbf", gen_params="n_samples:2400", label_how="fraction",
                  label_fraction="0.9")
    assert_clean(at)
    (fig,) = charts(at)
    assert np.isfinite(_heatmap_z(fig)).all()
    assert "unlabeled" in fig["layout"]["annotations"][0]["text"]


def test_fitting_on_all_features_maps_the_plane_back_through_the_pca():
    at = make_app(source="sample", sample="heart", fit_on="full", kernels="rbf,ckrbf", models="KFD")
    assert_clean(at)
    assert any("all features" in c.value for c in at.caption)
    for view in ("partition", "similarity", "boundaries", "kernel"):
        show(at, view)
        assert_clean(at)
        assert charts(at)
    widget(at, "fit_on").set_value("projection")
    at.run()
    assert_clean(at)
    assert at.query_params.get("fit_on") is None  # back to the default, so not in the link
