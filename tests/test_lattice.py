"""kernelviz.lattice: fields over the γ and C lattices equal the views' own panels, packed losslessly up to
the quantisation step; failures stay per kernel; cancelling stops the work."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import kernelviz as kv
from kernelviz import lattice as kvlattice
from kernelviz import registry
from kernelviz import state as kvstate
from kernelviz import pipeline

pytestmark = pytest.mark.unit

# float32 grid Grams: a decoded value may sit half a step plus this float32 rounding from the exact one
FLOAT32_SLACK = 1e-4


@pytest.fixture(scope="module")
def small():
    """The app's default pipeline on 150 moons points and a 30-cell grid (kernels, prep, grid)."""
    return kvlattice.default_inputs(n_samples=150, names=("rbf", "ckrbf", "rwm"), resolution=30)


@pytest.fixture(scope="module")
def decision(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.3, log_C=0.5)
    for item in kvlattice.decision_fields(lattice, kernels, prep):
        lattice.add(item)
    return lattice


def test_codec_maps_zero_to_the_middle_code_and_round_trips_within_half_a_step():
    codec = kvlattice.CODECS["decision"]
    assert codec.encode(np.array([0.0]))[0] == 127
    values = np.linspace(-kvlattice.DECISION_RANGE, kvlattice.DECISION_RANGE, 1001)
    assert np.max(np.abs(codec.decode(codec.encode(values)) - values)) <= codec.step / 2 + 1e-12
    # beyond the range: clipped to the end codes; NaN: the undefined code, decoded as NaN
    codes = codec.encode(np.array([-50.0, 50.0, np.nan]))
    assert codes.tolist() == [0, kvlattice.TOP_CODE, kvlattice.UNDEFINED_CODE]
    assert np.isnan(codec.decode(codes)[2])
    # the sign survives quantisation wherever |f| exceeds half a step, so the zero contour is exact to it
    f = np.array([-codec.step * 0.6, codec.step * 0.6])
    assert np.all(np.sign(codec.decode(codec.encode(f))) == np.sign(f))


def test_the_codec_keeps_the_sign_of_every_nonzero_value():
    """No bucket straddles 0: the smallest |f| decodes to its own sign, and decoding stays within half a step."""
    codec = kvlattice.CODECS["decision"]
    tiny = np.array([-1e-300, -1e-9, -codec.step * 0.4, 1e-300, 1e-9, codec.step * 0.4])
    assert np.all(np.sign(codec.decode(codec.encode(tiny))) == np.sign(tiny))
    assert np.max(np.abs(codec.decode(codec.encode(tiny)) - tiny)) <= codec.step / 2 + 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("log_gamma, log_C", [(-3.0, -2.0), (0.0, 0.0)])
def test_the_lattice_at_the_committed_value_has_the_sign_of_the_committed_panel(log_gamma, log_C):
    """Where f ≠ 0, the field painted while dragging and the figure drawn on release agree in sign on
    ≥ 99.9 % of the cells, for every kernel on the default data (at small γ and C, |f| < 0.012
    almost everywhere: a codec with a bucket around 0 lost the sign of 98 % of RBF's cells)."""
    names = tuple(registry.KERNELS)
    kernels, prep, grid = kvlattice.default_inputs(names=names, resolution=40)
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=log_gamma, log_C=log_C)
    for item in kvlattice.decision_fields(lattice, kernels, prep):
        lattice.add(item)
    index = int(np.flatnonzero(lattice.axes["log_gamma"] == log_gamma)[0])
    for name, kernel in kernels.items():
        if not lattice.ready(name):
            continue  # a kernel the lattice cannot draw says so (Failure); not this test's business
        f = pipeline.boundary_panel(name, kernel, prep, grid, log_gamma, log_C).values
        decoded = lattice.codec.decode(lattice.codes[(name, "log_gamma")][index]).ravel()
        nonzero = f != 0
        agree = np.mean(np.sign(decoded[nonzero]) == np.sign(f[nonzero]))
        assert agree >= 0.999, (name, log_gamma, log_C, agree)


def test_lattice_axis_spans_the_controls_range_every_quarter_decade_and_holds_the_current_value():
    for setting in ("log_gamma", "log_C"):
        lo, hi = kvstate.bounds(setting)
        axis = kvlattice.lattice_axis(setting, 0.3)
        assert axis[0] == lo and axis[-1] == hi
        assert len(axis) >= 25 and np.max(np.diff(axis)) <= 0.25 + 1e-12
        assert 0.3 in axis
    with pytest.raises(ValueError, match="outside the control's range"):
        kvlattice.lattice_axis("log_gamma", 7.0)
    with pytest.raises(ValueError, match="positive number of decades"):
        kvlattice.lattice_axis("log_gamma", 0.0, step=0)


@pytest.mark.parametrize("index", [0, 9, 14, -1])
def test_gamma_lattice_equals_the_boundary_panel_at_that_gamma(small, decision, index):
    kernels, prep, grid = small
    log_gamma = decision.axes["log_gamma"][index]
    for name, kernel in kernels.items():
        panel = pipeline.boundary_panel(name, kernel, prep, grid, log_gamma, decision.log_C)
        expected = np.clip(panel.values, -kvlattice.DECISION_RANGE, kvlattice.DECISION_RANGE)
        decoded = decision.codec.decode(decision.codes[(name, "log_gamma")][index]).ravel()
        assert np.max(np.abs(decoded - expected)) <= decision.codec.step / 2 + FLOAT32_SLACK, (name, log_gamma)


@pytest.mark.parametrize("index", [0, 12, -1])
def test_C_lattice_equals_the_boundary_panel_at_the_current_gamma(small, decision, index):
    kernels, prep, grid = small
    log_C = decision.axes["log_C"][index]
    for name, kernel in kernels.items():
        panel = pipeline.boundary_panel(name, kernel, prep, grid, decision.log_gamma, log_C)
        expected = np.clip(panel.values, -kvlattice.DECISION_RANGE, kvlattice.DECISION_RANGE)
        decoded = decision.codec.decode(decision.codes[(name, "log_C")][index]).ravel()
        assert np.max(np.abs(decoded - expected)) <= decision.codec.step / 2 + FLOAT32_SLACK, (name, log_C)


def test_kernels_without_a_gamma_family_build_their_gram_per_gamma(small):
    _, prep, grid = small
    kernel = pipeline.kernel_on_points("lppk", prep.X_model, None, "paper")
    lattice = kvlattice.Lattice.decision(["lppk"], grid, log_gamma=0.0, log_C=0.0, step=1.0)
    for item in kvlattice.decision_fields(lattice, {"lppk": kernel}, prep):
        lattice.add(item)
    assert lattice.ready("lppk")
    for index in (0, 3):
        log_gamma = lattice.axes["log_gamma"][index]
        expected = np.clip(pipeline.boundary_panel("lppk", kernel, prep, grid, log_gamma, 0.0).values, -3, 3)
        decoded = lattice.codec.decode(lattice.codes[("lppk", "log_gamma")][index]).ravel()
        assert np.max(np.abs(decoded - expected)) <= lattice.codec.step / 2 + FLOAT32_SLACK


def _sent(decision, axes=None, **values) -> bytes:
    """The plot component's payload of a figure previewing ``decision`` (as the app sends it)."""
    from kernelviz.components import plot
    from kernelviz.ui import live

    axes = axes or {name: kv.figures.panel_axes(i) for i, name in enumerate(decision.names)}
    preview = live.preview_payload(decision, values.get("log_gamma", 0.0), values.get("log_C", 0.0), axes)
    return plot.payload({"data": [], "layout": {}}, config={}, selectable=False, live=preview)


def test_decision_lattice_in_the_figures_payload_unpacks_to_the_stored_codes(decision):
    from kernelviz.components import plot

    payload = plot.unpack(_sent(decision))["live"]["lattice"]
    assert payload["complete"] and payload["kind"] == "decision"
    ny, nx = payload["ny"], payload["nx"]
    assert (ny, nx) == decision.grid.shape
    for entry in payload["kernels"]:
        assert entry["failed"] is None
        for axis in ("log_gamma", "log_C"):
            raw = entry["fields"][axis]
            assert raw.dtype == np.uint8 and raw.size == len(payload["axes"][axis]) * ny * nx
            np.testing.assert_array_equal(raw.reshape(-1, ny, nx), decision.codes[(entry["name"], axis)])


def test_the_payload_is_a_json_header_then_the_raw_codes(decision):
    """The layout the plot component reads (payload.js): the header's length (4 bytes, little-endian), the UTF-8 JSON header
    whose fields, support vectors and training points are [offset, size] spans of the body, then the body, which
    is those spans one after another: no base64 anywhere."""
    import json
    import struct

    payload = _sent(decision)
    (length,) = struct.unpack_from("<I", payload)
    header = json.loads(payload[4:4 + length].decode("utf-8"))
    body = payload[4 + length:]
    kernels = header["live"]["lattice"]["kernels"]
    spans = [span for kernel in kernels for span in kernel["fields"].values()]
    assert sum(size for _, size in spans) == sum(codes.size for codes in decision.codes.values())
    spans += [packed[part] for kernel in kernels for packed in kernel["support"].values()
              for part in ("index", "alpha", "bounded")] + [header["live"]["lattice"]["points"]]
    assert sorted(spans) == [[sum(size for _, size in sorted(spans)[:i]), size]
                             for i, (_, size) in enumerate(sorted(spans))]  # they tile the body
    assert sum(size for _, size in spans) == len(body)
    offset, size = kernels[1]["fields"]["log_C"]
    assert body[offset:offset + size] == decision.codes[(kernels[1]["name"], "log_C")].tobytes()


class _FailsAboveGamma:
    """A real kernel that refuses γ above a limit, as a kernel that cannot be evaluated somewhere would."""

    gamma_convertible = False

    def __init__(self, inner, limit):
        self.inner, self.limit, self.gamma = inner, limit, inner.gamma

    def set_params(self, gamma):
        self.gamma = gamma
        return self

    def __call__(self, X, Y=None):
        if self.gamma > self.limit:
            raise ValueError(f"This kernel cannot be evaluated at γ = {self.gamma:g}.")
        return pipeline.at_gamma(self.inner, self.gamma)(X, Y)


def test_a_kernel_failing_at_some_gamma_is_marked_failed_and_the_others_go_on(small):
    kernels, prep, grid = small
    broken = _FailsAboveGamma(kernels["rbf"], limit=1.0)
    lattice = kvlattice.Lattice.decision(["broken", "rbf"], grid, log_gamma=0.0, log_C=0.0, step=1.0)
    items = list(kvlattice.decision_fields(lattice, {"broken": broken, "rbf": kernels["rbf"]}, prep))
    for item in items:
        lattice.add(item)
    failures = [item for item in items if isinstance(item, kvlattice.Failure)]
    assert [f.name for f in failures] == ["broken"]
    assert "cannot be evaluated at γ = 10" in failures[0].reason
    assert lattice.ready("rbf") and not lattice.ready("broken") and lattice.complete
    payload = {k["name"]: k for k in lattice.to_browser()["kernels"]}
    assert payload["broken"]["fields"] is None and payload["broken"]["failed"] == failures[0].reason
    assert payload["rbf"]["fields"] is not None


def test_cancel_stops_the_generator_between_values(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    cancel = threading.Event()
    seen = []
    for item in kvlattice.decision_fields(lattice, kernels, prep, cancel=cancel):
        seen.append(item)
        lattice.add(item)
        if len(seen) == 3:
            cancel.set()
    assert len(seen) == 3
    assert not lattice.complete and not any(lattice.ready(name) for name in kernels)
    assert all(entry["fields"] is None for entry in lattice.to_browser()["kernels"])


def test_with_three_classes_each_cell_holds_the_class_the_panel_predicts(small):
    """More than two classes: the class of libsvm's one-vs-one vote in each cell, at every lattice
    value, exactly as the committed panel draws it (its class indices)."""
    _, _, grid = small
    X, y = kv.data.make("blobs", n_samples=90, random_state=0, n_classes=3)
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y, name="blobs"), "blobs", "zscore", "projection", "all", 1.0, 0, 0.3)
    grid = kv.figures.grid_over(prep.X_view, 30)
    kernels = {name: pipeline.kernel_on_points(name, prep.X_model, None, "paper") for name in ("rbf", "lap")}
    assert kvlattice.training_classes(prep) == 3
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0, step=1.5, classes=3)
    for item in kvlattice.decision_fields(lattice, kernels, prep):
        lattice.add(item)
    assert lattice.complete and not lattice.failed and lattice.to_browser()["classes"] == 3
    for name, kernel in kernels.items():
        for axis in ("log_gamma", "log_C"):
            for index, value in enumerate(lattice.axes[axis]):
                log_gamma, log_C = (value, 0.0) if axis == "log_gamma" else (0.0, value)
                panel = pipeline.boundary_panel(name, kernel, prep, grid, log_gamma, log_C)
                assert panel.multiclass
                np.testing.assert_array_equal(lattice.codes[(name, axis)][index].ravel(), panel.values)
                scores = lattice.scores[(name, axis)][index]  # one-vs-one: each SV's largest |α|, no bound flags
                np.testing.assert_array_equal(scores.support, panel.support)
                np.testing.assert_array_equal(scores.dual, panel.dual)
                assert scores.bounded is None and scores.train_accuracy == panel.train_accuracy
    with pytest.raises(ValueError, match="made for 2 classes, but the training points hold 3"):
        next(kvlattice.decision_fields(kvlattice.Lattice.decision(["rbf"], grid, 0.0, 0.0), kernels, prep))


def test_bad_input_is_refused_with_a_sentence(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(["rbf", "lap"], grid, log_gamma=0.0, log_C=0.0)
    with pytest.raises(ValueError, match="No fitted kernel given for lap"):
        next(kvlattice.decision_fields(lattice, kernels, prep))
    with pytest.raises(ValueError, match="needs a similarity lattice"):
        next(kvlattice.similarity_fields(lattice, kernels, prep))
    one_class = pipeline.prepare_dataset(kv.data.Dataset(prep.X_model[:20], np.ones(20), name="one"), "one", "none",
                                "projection", "all", 1.0, 0, 0.3)
    with pytest.raises(ValueError, match="at least two classes"):
        next(kvlattice.decision_fields(kvlattice.Lattice.decision(["rbf"], grid, 0.0, 0.0), kernels, one_class))


@pytest.mark.parametrize("names", [("rbf", "ckrbf", "rwm"), ("lppk",)])
def test_similarity_lattice_equals_the_similarity_panel(small, names):
    kernels, prep, _ = small
    if names == ("lppk",):
        kernels = {"lppk": pipeline.kernel_on_points("lppk", prep.X_model, None, "paper")}
    reference = pipeline.default_reference(prep)
    grid = kv.figures.grid_over(prep.X_view, 30, extra=np.array([reference]))
    lattice = kvlattice.Lattice.similarity(names, grid, log_gamma=0.0, reference=reference, step=1.0)
    for item in kvlattice.similarity_fields(lattice, kernels, prep):
        lattice.add(item)
    assert lattice.complete and not lattice.failed
    for name in names:
        for index, log_gamma in enumerate(lattice.axes["log_gamma"]):
            panel = pipeline.similarity_panel(name, kernels[name], prep, grid, log_gamma, reference)
            codes, scale = lattice.codes[(name, "log_gamma")][index].ravel(), lattice.scales[(name, "log_gamma")][index]
            decoded = lattice.codec.decode(codes) * scale
            np.testing.assert_array_equal(np.isnan(decoded), np.isnan(panel.dissimilarity))
            defined = ~np.isnan(decoded)
            assert scale == pytest.approx(np.nanmax(panel.dissimilarity))
            assert np.max(np.abs(decoded[defined] - panel.dissimilarity[defined])) <= scale * lattice.codec.step / 2 + 1e-9
            # the shaded similarity exp(−γ d²) from the same codes: exact to d's half step, through the slope 2γd·s
            gamma = 10.0 ** log_gamma
            # as the plot component shades it (looks.js): exp(−γ d²) of the decoded d, 0 where d is undefined
            similarity = np.where(np.isnan(decoded), 0.0, np.exp(-gamma * np.nan_to_num(decoded) ** 2))
            shaded = np.nan_to_num(panel.similarity)
            slope = 2 * gamma * panel.dissimilarity[defined] * shaded[defined]
            half = scale * lattice.codec.step / 2
            assert np.all(np.abs(similarity[defined] - shaded[defined]) <= slope * half + gamma * half ** 2 + 1e-9)


def test_far_level_curves_survive_a_large_gamma(small):
    """At γ = 100 the shaded similarity is below one code of [0, 1] beyond d ≈ 0.24: a lattice of s lost
    every level curve past it, where the dissimilarity the view draws still spans the whole plane."""
    kernels, prep, _ = small
    reference = pipeline.default_reference(prep)
    grid = kv.figures.grid_over(prep.X_view, 30, extra=np.array([reference]))
    lattice = kvlattice.Lattice.similarity(["rbf"], grid, log_gamma=2.0, reference=reference, step=1.0)
    for item in kvlattice.similarity_fields(lattice, kernels, prep):
        lattice.add(item)
    index = int(np.flatnonzero(lattice.axes["log_gamma"] == 2.0)[0])
    codes = lattice.codes[("rbf", "log_gamma")][index]
    panel = pipeline.similarity_panel("rbf", kernels["rbf"], prep, grid, 2.0, reference)
    far = panel.dissimilarity > 0.5
    assert far.any() and np.all(panel.similarity[far] < 1 / 254)
    assert len(np.unique(codes.ravel()[far])) > 50  # distinct levels out there, not one code


def test_large_dual_coefficients_keep_the_field_within_half_a_step(small):
    """Small γ and large C give Σ|α| ~ 1e5: float32 kernel values would then move f by more than a step."""
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(["rbf"], grid, log_gamma=-2.0, log_C=4.0, step=1.0)
    for item in kvlattice.decision_fields(lattice, kernels, prep):
        lattice.add(item)
    panel = pipeline.boundary_panel("rbf", kernels["rbf"], prep, grid, -2.0, 4.0)
    expected = np.clip(panel.values, -kvlattice.DECISION_RANGE, kvlattice.DECISION_RANGE)
    for axis, index in (("log_gamma", 1), ("log_C", -1)):
        assert lattice.axes[axis][index] == {"log_gamma": -2.0, "log_C": 4.0}[axis]
        decoded = lattice.codec.decode(lattice.codes[("rbf", axis)][index]).ravel()
        assert np.max(np.abs(decoded - expected)) <= lattice.codec.step / 2 + FLOAT32_SLACK, axis


def test_a_background_job_fills_the_lattice_as_the_generator_does(small, decision):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.3, log_C=0.5)
    job = kvlattice.LatticeJob(lattice, kernels, prep)
    assert job.result(timeout=300) is lattice and job.done and lattice.complete and job.error is None
    for key, codes in decision.codes.items():
        np.testing.assert_array_equal(lattice.codes[key], codes)


def test_a_cancelled_background_job_stops_and_keeps_what_finished(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    job = kvlattice.LatticeJob(lattice, kernels, prep)
    job.cancel()
    job.result(timeout=60)
    assert job.done and job.cancelled and not lattice.complete
    # every value stored is a finished one: no half-written field
    for key, filled in lattice.filled.items():
        assert not np.any(lattice.codes[key][filled] == kvlattice.UNDEFINED_CODE)


def test_a_background_job_refuses_bad_input_in_the_callers_thread_and_reraises_bugs(small):
    kernels, prep, grid = small
    with pytest.raises(ValueError, match="No fitted kernel given for lap"):
        kvlattice.LatticeJob(kvlattice.Lattice.decision(["lap"], grid, 0.0, 0.0), kernels, prep)

    class Broken:
        gamma_convertible = False

    job = kvlattice.LatticeJob(kvlattice.Lattice.decision(["rbf"], grid, 0.0, 0.0, step=3.0), {"rbf": Broken()}, prep)
    with pytest.raises(AttributeError):
        job.result(timeout=60)


def test_the_preview_names_the_figures_values_and_which_panels_preview(decision):
    """The figure's own values, the lattice as to_browser sends it, and each panel of the figure:
    the lattice's kernels preview, the others (a model's panel) keep their picture."""
    import orjson

    from kernelviz.components import plot

    def plain(value):  # arrays as lists, as JSON has them
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY))

    axes = {name: kv.figures.panel_axes(i) for i, name in enumerate([*decision.names, "scm"])}
    data = plot.unpack(_sent(decision, axes, log_gamma=1.0, log_C=0.5))["live"]
    sent = decision.to_browser()
    for kernel in sent["kernels"]:  # the payload's fields are flat
        kernel["fields"] = {axis: codes.ravel() for axis, codes in kernel["fields"].items()}
    assert plain(data["lattice"]) == plain(sent) and (data["log_gamma"], data["log_C"]) == (1.0, 0.5)
    assert [p["name"] for p in data["panels"]] == list(decision.names)
    assert data["held"] == [{"name": "scm", **kv.figures.panel_axes(len(decision.names))}]


def _filled(lattice, fields) -> list:
    """Add every field the generator yields; which (name, axis) pairs it computed."""
    computed = []
    for item in fields:
        lattice.add(item)
        computed.append((item.name, item.axis) if isinstance(item, kvlattice.Field) else item)
    return computed


def test_after_a_gamma_step_the_gamma_lattice_is_reused_and_only_the_C_lattice_computed(small, decision):
    kernels, prep, grid = small
    stepped = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.5, log_C=0.5)
    stepped.reuse(decision)  # same C: every γ field still holds; the C fields were computed at γ = 10^0.3
    computed = _filled(stepped, kvlattice.decision_fields(stepped, kernels, prep))
    assert set(computed) == {(name, "log_C") for name in kernels}
    assert len(computed) == len(kernels) * len(stepped.axes["log_C"])
    fresh = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.5, log_C=0.5)
    _filled(fresh, kvlattice.decision_fields(fresh, kernels, prep))
    for key, codes in fresh.codes.items():
        np.testing.assert_array_equal(stepped.codes[key], codes, err_msg=str(key))


def test_a_C_step_keeps_the_C_lattice_and_other_grids_or_kinds_reuse_nothing(small, decision):
    kernels, prep, grid = small
    stepped = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.3, log_C=1.0)
    stepped.reuse(decision)
    assert {key[1] for key in stepped.codes} == {"log_C"}
    # the C values of both lattices (1.0 and 0.5 both lie on the quarter-decade lattice) are kept
    assert all(stepped.filled[(name, "log_C")].all() for name in kernels)
    other_grid = kvlattice.Lattice.decision(list(kernels), kv.figures.grid_over(prep.X_view, 20), 0.3, 1.0)
    other_grid.reuse(decision)
    similarity = kvlattice.Lattice.similarity(list(kernels), grid, 0.3, reference=(0.0, 0.0))
    similarity.reuse(decision)
    assert not other_grid.codes and not similarity.codes


def test_a_similarity_lattice_around_the_same_reference_is_reused_whole_after_a_gamma_step(small):
    kernels, prep, _ = small
    reference = pipeline.default_reference(prep)
    grid = kv.figures.grid_over(prep.X_view, 20, extra=np.array([reference]))
    first = kvlattice.Lattice.similarity(list(kernels), grid, log_gamma=0.0, reference=reference)
    _filled(first, kvlattice.similarity_fields(first, kernels, prep))
    stepped = kvlattice.Lattice.similarity(list(kernels), grid, log_gamma=0.25, reference=reference)
    stepped.reuse(first)
    assert _filled(stepped, kvlattice.similarity_fields(stepped, kernels, prep)) == [] and stepped.complete
    elsewhere = kvlattice.Lattice.similarity(list(kernels), grid, log_gamma=0.25, reference=(0.0, 0.0))
    elsewhere.reuse(first)
    assert not elsewhere.codes


def test_a_delayed_background_job_waits_before_it_computes(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    job = kvlattice.LatticeJob(lattice, kernels, prep, delay=0.4)
    time.sleep(0.2)
    assert not job.done and not any(lattice.filled[key].any() for key in lattice.filled)  # nothing yet
    assert job.result(timeout=300).complete


def test_a_background_job_cancelled_while_it_waits_computes_nothing(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    job = kvlattice.LatticeJob(lattice, kernels, prep, delay=30.0)
    job.cancel()
    job.result(timeout=5)  # the wait ends at the cancel, not after 30 s
    assert job.done and job.error is None
    assert not any(lattice.filled[key].any() for key in lattice.filled)


@pytest.mark.parametrize("name", ["mkRBF", "MPM", "KFD"])
def test_a_models_fields_are_its_own_panels_at_each_lattice_value(small, name):
    """A model previews from the function that draws its panel (kernelviz.pipeline.model_panel): at every
    lattice value the codes are that panel's f (an SVM model's) or f over the scale its tints saturate
    at (a model without margins: KFD's f is nowhere near ±3); along an axis the model does not take
    (MPM and KFD have no C) the field is the figure's own."""
    kernels, prep, grid = small
    model = kvlattice.Model(name, seed=0)
    lattice = kvlattice.Lattice.decision(["rbf", name], grid, log_gamma=0.0, log_C=0.0, step=2.0)
    for item in kvlattice.decision_fields(lattice, {"rbf": kernels["rbf"], name: model}, prep):
        lattice.add(item)
    assert lattice.complete and not lattice.failed
    for axis in ("log_gamma", "log_C"):
        for index, value in enumerate(lattice.axes[axis]):
            log_gamma, log_C = (value, 0.0) if axis == "log_gamma" else (0.0, value)
            if not model.takes("C"):
                log_C = 0.0
            panel = pipeline.model_panel(name, prep, grid, log_gamma, log_C, 0)
            codes, scale = lattice.codes[(name, axis)][index], lattice.scales[(name, axis)][index]
            expected, expected_scale = kvlattice.panel_codes(panel, grid)
            assert scale == pytest.approx(expected_scale)
            np.testing.assert_array_equal(codes, expected)
            f = np.asarray(panel.values)
            decoded = lattice.codec.decode(codes).ravel() * scale
            nonzero = f != 0
            assert np.mean(np.sign(decoded[nonzero]) == np.sign(f[nonzero])) >= 0.999
    if not model.takes("C"):
        first = lattice.codes[(name, "log_C")][0]
        assert all(np.array_equal(first, codes) for codes in lattice.codes[(name, "log_C")])


@pytest.fixture(scope="module")
def half_labeled():
    """Moons with half the labels hidden and a test hold-out, for an rbf (γ-convertible) and a lap (not)
    kernel, and a lattice of both, every 1.5 decades (kernels, prep, grid, lattice)."""
    X, y = kv.data.make("moons", n_samples=120, random_state=0)
    prep = pipeline.prepare_dataset(kv.data.Dataset(X, y, name="moons"), "moons", "zscore", "projection", "fraction",
                                    0.5, 0, 0.3)
    assert prep.hidden.any() and prep.test.any()
    grid = kv.figures.grid_over(prep.X_view, 20)
    kernels = {name: pipeline.kernel_on_points(name, prep.X_model, None, "paper") for name in ("rbf", "lap")}
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.25, log_C=0.5, step=1.5)
    for item in kvlattice.decision_fields(lattice, kernels, prep):
        lattice.add(item)
    assert lattice.complete and not lattice.failed
    return kernels, prep, grid, lattice


@pytest.mark.parametrize("axis, index", [("log_gamma", 0), ("log_gamma", 3), ("log_C", 2)])
def test_each_values_support_vectors_and_accuracies_are_the_committed_panels(half_labeled, axis, index):
    """The preview draws each lattice value's support vectors and scores: those of the panel the release
    draws there (kernelviz.pipeline.boundary_panel), to the last bit, from the fit that gave the field."""
    kernels, prep, grid, lattice = half_labeled
    value = lattice.axes[axis][index]
    log_gamma, log_C = (value, lattice.log_C) if axis == "log_gamma" else (lattice.log_gamma, value)
    for name, kernel in kernels.items():
        panel = pipeline.boundary_panel(name, kernel, prep, grid, log_gamma, log_C)
        scores = lattice.scores[(name, axis)][index]
        np.testing.assert_array_equal(scores.support, panel.support)
        np.testing.assert_array_equal(scores.dual, panel.dual)
        np.testing.assert_array_equal(scores.bounded, panel.bounded)
        assert (scores.train_accuracy, scores.test_accuracy, scores.hidden_accuracy) == (
            panel.train_accuracy, panel.test_accuracy, panel.hidden_accuracy)
        assert panel.hidden_accuracy is not None and panel.test_accuracy is not None
        sent = lattice.to_browser()["kernels"][list(kernels).index(name)]
        assert sent["accuracy"][axis][index] == [panel.train_accuracy, panel.test_accuracy, panel.hidden_accuracy]


def test_the_support_vectors_go_to_the_browser_packed_and_come_back_as_they_were(half_labeled):
    """uint16 indices into the training points (sent once, float32), float32 |α| and the bound flags,
    value after value in one array per axis; the payload's body carries them and unpack reads them."""
    from kernelviz.components.plot import payload, unpack
    from kernelviz.ui.live import preview_payload

    kernels, prep, _, lattice = half_labeled
    axes = {name: {"xaxis": f"x{i + 1}", "yaxis": f"y{i + 1}"} for i, name in enumerate(kernels)}
    header = unpack(payload({"data": [], "layout": {}}, config={}, selectable=False, chunk="fixture.js",
                            live=preview_payload(lattice, lattice.log_gamma, lattice.log_C, axes)))
    sent = header["live"]["lattice"]
    np.testing.assert_array_equal(sent["points"], prep.X_view[prep.train].astype(np.float32))
    for kernel in sent["kernels"]:
        for axis in lattice.axes:
            packed = kernel["support"][axis]
            assert packed["index"].dtype == np.uint16 and packed["alpha"].dtype == np.float32
            ends = np.cumsum([0] + packed["counts"])
            for index, scores in enumerate(lattice.scores[(kernel["name"], axis)]):
                part = slice(ends[index], ends[index + 1])
                np.testing.assert_array_equal(packed["index"][part], scores.support)
                np.testing.assert_array_equal(packed["alpha"][part], scores.dual.astype(np.float32))
                np.testing.assert_array_equal(packed["bounded"][part], scores.bounded)


def test_a_models_lattice_has_its_panels_accuracies_and_no_support_vectors(small):
    """A model's panel draws no support vectors: its lattice has none, and its panel's accuracies."""
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(["MPM"], grid, log_gamma=0.0, log_C=0.0, step=3.0)
    for item in kvlattice.decision_fields(lattice, {"MPM": kvlattice.Model("MPM", seed=0)}, prep):
        lattice.add(item)
    sent = lattice.to_browser()["kernels"][0]
    assert sent["support"] == {"log_gamma": None, "log_C": None}
    panel = pipeline.model_panel("MPM", prep, grid, lattice.axes["log_gamma"][1], 0.0, 0)
    assert sent["accuracy"]["log_gamma"][1] == [panel.train_accuracy, panel.test_accuracy, panel.hidden_accuracy]


def _specs(kernels) -> list:
    return [pipeline.KernelSpec.from_settings(name, kvstate.defaults()) for name in kernels]


def test_a_lattice_computed_whole_is_kept_on_disk_and_taken_by_the_next_job_without_computing(small, decision, monkeypatch):
    """Issue 30: live lattices are entries of the disk cache, shared by every session and kept across
    restarts; a job that finds its lattice there computes nothing."""
    kernels, prep, grid = small
    empty = lambda: kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.3, log_C=0.5)  # noqa: E731
    name = kvlattice.disk_key(empty(), prep.key, _specs(kernels))
    assert kvlattice.LatticeJob(empty(), kernels, prep, disk_key=name).result(timeout=300).complete

    def computes(*args, **kwargs):
        raise AssertionError("the stored lattice was computed again")
        yield  # a generator, as decision_fields is: it raises when the job iterates it

    monkeypatch.setitem(kvlattice.FIELDS, "decision", computes)
    taken = kvlattice.LatticeJob(empty(), kernels, prep, disk_key=name).result(timeout=60)
    assert taken.complete
    for key, codes in decision.codes.items():
        np.testing.assert_array_equal(taken.codes[key], codes)
        assert [s.train_accuracy for s in taken.scores[key]] == [s.train_accuracy for s in decision.scores[key]]
    np.testing.assert_array_equal(taken.points, decision.points)
    assert taken.to_browser()["complete"] and taken.uid != decision.uid, "a lattice of its own for the page"


def test_a_lattice_is_named_by_its_data_kernels_and_span_and_an_unfinished_one_is_not_kept(small):
    kernels, prep, grid = small
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.3, log_C=0.5)
    name = kvlattice.disk_key(lattice, prep.key, _specs(kernels))
    assert name == kvlattice.disk_key(kvlattice.Lattice.decision(list(kernels), grid, 0.3, 0.5), prep.key, _specs(kernels))
    others = [
        kvlattice.disk_key(lattice, prep.key + "x", _specs(kernels)),                          # other data
        kvlattice.disk_key(lattice, prep.key, _specs(kernels)[::-1]),                          # other kernels
        kvlattice.disk_key(kvlattice.Lattice.decision(list(kernels), grid, 0.3, 0.75), prep.key, _specs(kernels)),
        kvlattice.disk_key(kvlattice.Lattice.similarity(list(kernels), grid, 0.3, (0.0, 0.0)), prep.key, _specs(kernels)),
        kvlattice.disk_key(kvlattice.Lattice.similarity(list(kernels), grid, 0.3, (0.0, 0.1)), prep.key, _specs(kernels)),
    ]
    assert len({name, *others}) == 1 + len(others)
    job = kvlattice.LatticeJob(lattice, kernels, prep, disk_key=name, delay=0.2)
    job.cancel()
    job.result(timeout=60)
    assert _diskcache_get(name) is None, "a stopped lattice is not stored as if whole"


def _diskcache_get(name):
    from kernelviz import _diskcache

    return _diskcache.cache().get(name)
