"""The pipeline: each stage reads exactly its spec's settings, a setting reruns only its stage and
those after it, and every SVM at (γ, C) is fitted by one function."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Mapping

import numpy as np
import pytest

import kernelviz as kv
from kernelviz import _svm, lattice, pipeline
from kernelviz import state as kvstate

pytestmark = pytest.mark.unit


class Reading(Mapping):
    """The settings, recording which of them are read."""

    def __init__(self, values):
        self.values, self.read = dict(values), set()

    def __getitem__(self, name):
        self.read.add(name)
        return self.values[name]

    def __iter__(self):
        return iter(self.values)

    def __len__(self):
        return len(self.values)


#: Settings that switch a spec's branches: every spec is read under each combination.
BRANCHES = {"source": ("generator", "sample", "upload"), "label_how": ("fraction", "per_class"),
            "partition": ("kmeans", "vi"), "vi_w0": (0.0, 2.0)}


def variants():
    for combination in itertools.product(*BRANCHES.values()):
        values = kvstate.defaults()
        values.update(zip(BRANCHES, combination))
        yield values


def spec_of(spec_class, values):
    """``spec_class.from_settings`` of ``values`` (a kernel spec of CkRBF, which reads the most)."""
    if spec_class is pipeline.DataSpec:
        return spec_class.from_settings(values, identity="upload:abc")
    if spec_class in (pipeline.KernelSpec, pipeline.ModelSpec):
        return spec_class.from_settings("ckrbf", values)
    if spec_class is pipeline.OtherModelSpec:
        return spec_class.from_settings("CKSVMNDA", values)
    return spec_class.from_settings(values)


SPECS = (pipeline.DataSpec, pipeline.PartitionSpec, pipeline.KernelSpec, pipeline.ModelSpec,
         pipeline.OtherModelSpec, pipeline.GridSpec)


@pytest.mark.parametrize("spec_class", SPECS, ids=lambda c: c.__name__)
def test_each_spec_reads_exactly_its_settings(spec_class):
    read = set()
    for values in variants():
        recording = Reading(values)
        spec_of(spec_class, recording)
        read |= recording.read
    assert read == set(spec_class.SETTINGS)


def test_the_stages_are_the_specs_settings_and_every_setting_has_one_stage():
    stages = pipeline.STAGES
    assert stages["data"] == pipeline.DataSpec.SETTINGS
    assert stages["partition"] == pipeline.PartitionSpec.SETTINGS
    assert stages["grid"] == pipeline.GridSpec.SETTINGS
    model = set(pipeline.ModelSpec.SETTINGS) | set(pipeline.OtherModelSpec.SETTINGS)
    assert set(stages["model"]) == (model - set(stages["partition"])) | {"kernels", "models"}
    # restoring the model stage's last good settings restores η and the unit kernel too
    assert {"log_eta", "unit_kernel"} <= set(stages["model"])
    owners = [name for names in stages.values() for name in names]
    assert len(owners) == len(set(owners)), "a setting belongs to one stage"


#: For each setting, another valid value (the defaults are the first).
CHANGES = {"generator": "circles", "gen_params": {"n_samples": 61}, "data_seed": 3, "label_fraction": 0.5,
           "label_seed": 4, "scaling": "none", "fit_on": "full", "test_fraction": 0.2, "n_components": 3,
           "partition_seed": 5, "normalize": "unit", "log_gamma": 0.5, "log_C": 1.0, "log_eta": -2.0,
           "unit_kernel": "lppk", "grid_log_C": (-1, 2), "grid_log_gamma": (-2, 1), "grid_steps": 5, "cv": 3,
           "cv_seed": 2}

ORDER = ("data", "partition", "model", "grid")


class CountingRun:
    """The pipeline's stages memoised by spec, as the app's caches are, counting each stage's runs."""

    def __init__(self):
        self.memo, self.runs = {}, {stage: 0 for stage in ORDER}

    def _stage(self, stage, key, compute):
        if (stage, key) not in self.memo:
            self.runs[stage] += 1
            self.memo[stage, key] = compute()
        return self.memo[stage, key]

    def __call__(self, values):
        data = pipeline.DataSpec.from_settings(values)
        prep = self._stage("data", data, lambda: pipeline.prepare(data))
        part = pipeline.PartitionSpec.from_settings(values)
        partition = self._stage("partition", (data, part), lambda: pipeline.fit_partition(part, prep))
        model = pipeline.ModelSpec.from_settings("ckrbf", values)
        other = pipeline.OtherModelSpec.from_settings("SCM", values)
        self._stage("model", (data, model, other), lambda: pipeline.fit_svm(
            pipeline.Grams(pipeline.fit_kernel(model.kernel, prep, partition), prep),
            10.0 ** model.log_gamma, 10.0 ** model.log_C))
        grid = pipeline.GridSpec.from_settings(values)
        self._stage("grid", (data, model.kernel, grid), lambda: grid)  # the search itself: test_grid_jobs


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_setting_reruns_its_stage_and_those_after_it_only(name):
    values = kvstate.defaults()
    values.update(gen_params={"n_samples": 40}, label_how="fraction", label_fraction=0.6, test_fraction=0.25)
    run = CountingRun()
    run(values)
    before = dict(run.runs)
    run({**values, name: CHANGES[name]})
    (stage,) = [s for s, names in pipeline.STAGES.items() if name in names]
    rerun = {s for s in ORDER if run.runs[s] > before[s]}
    first = ORDER.index(stage)
    assert stage in rerun, f"{name} did not rerun its own stage"
    assert rerun <= set(ORDER[first:]), f"{name} reran {rerun}, stages before {stage}"


def test_every_svm_at_gamma_and_C_is_fitted_by_the_one_function(monkeypatch):
    """The panels, the anatomy's SVM and every lattice value call libsvm only through pipeline.fit_svm."""
    callers = []
    libsvm = _svm.fit_svm

    def recorded(*args, **kwargs):
        frame = inspect.currentframe().f_back
        callers.append((frame.f_code.co_filename.rsplit("kernelviz/", 1)[-1], frame.f_code.co_name))
        return libsvm(*args, **kwargs)

    monkeypatch.setattr(_svm, "fit_svm", recorded)
    kernels, prep, grid = lattice.default_inputs(60, ("rbf", "ckrbf"), resolution=20)
    for name, kernel in kernels.items():
        pipeline.boundary_panel(name, kernel, prep, grid, 0.0, 0.0)
        pipeline.fit_svm(pipeline.Grams(kernel, prep), 1.0, 1.0)  # the anatomy's (ui.caches.fitted_svm)
    lat = lattice.Lattice.decision(tuple(kernels), grid, 0.0, 0.0, step=1.0)
    fields = list(lattice.decision_fields(lat, kernels, prep))
    assert fields and not [f for f in fields if isinstance(f, lattice.Failure)]
    assert len(callers) >= 2 * len(kernels) + len(fields)
    assert set(callers) == {("pipeline/model.py", "fit_svm")}


def test_grams_reuse_the_training_gram_of_the_last_gamma():
    kernels, prep, _ = lattice.default_inputs(30, ("rbf",), resolution=10)
    grams = pipeline.Grams(kernels["rbf"], prep)
    assert grams.train(2.0) is grams.train(2.0)
    np.testing.assert_allclose(grams.train(3.0), kv.kernels.make("rbf", gamma=3.0).fit(prep.X_model)(
        prep.X_model[prep.train]), rtol=1e-12)
    assert grams.against("grid", 1.0, np.arange(3)) is None  # no grid handed in


def test_digests_are_stable_names_of_specs():
    values = kvstate.defaults()
    a = pipeline.digest(pipeline.DataSpec.from_settings(values), pipeline.GridSpec.from_settings(values))
    b = pipeline.digest(pipeline.DataSpec.from_settings(dict(values)), pipeline.GridSpec.from_settings(values))
    assert a == b and len(a) == 32
    assert a != pipeline.digest(pipeline.DataSpec.from_settings({**values, "data_seed": 9}),
                                pipeline.GridSpec.from_settings(values))


# ----------------------------------------------------------------------------- one kernel's failure, side by side
def _fit_or_fail(name):
    if name == "bad":
        raise ValueError("no fit for bad")
    return name.upper()


@pytest.mark.parametrize("workers", [1, 2])
def test_each_or_reason_keeps_the_names_order_and_each_failure_beside_the_others(workers):
    results, reasons = pipeline.each_or_reason(["a", "bad", "c"], _fit_or_fail, workers=workers)
    assert list(results.items()) == [("a", "A"), ("c", "C")] and reasons == {"bad": "no fit for bad"}


def test_each_or_reason_with_two_workers_computes_two_names_at_once_and_a_bug_still_propagates():
    import threading

    both = threading.Barrier(2, timeout=60)  # passes only when two computations wait at once

    def meet(name):
        both.wait()
        return name

    assert pipeline.each_or_reason(["a", "b"], meet, workers=2) == ({"a": "a", "b": "b"}, {})

    def bug(name):
        raise KeyError(name)

    with pytest.raises(KeyError):
        pipeline.each_or_reason(["a", "b"], bug, workers=2)


def test_each_or_reason_computes_on_the_same_threads_from_call_to_call():
    """No thread is started for a step: starting one waits until the system runs it, and on a busy
    machine that took up to 0.2 s of a committed γ step (2026-11-28, Thread.start timed in the server)."""
    import threading

    both = threading.Barrier(2, timeout=60)

    def where(name):
        both.wait()  # each name on its own thread
        return threading.current_thread()  # the object: a new thread may take an ended one's id

    first, _ = pipeline.each_or_reason(["a", "b"], where, workers=2)
    second, _ = pipeline.each_or_reason(["a", "b"], where, workers=2)
    assert len(set(first.values())) == 2 and set(second.values()) == set(first.values())


def test_each_or_reason_inside_one_of_its_own_computations_computes_in_place():
    """A computation that asks for names side by side itself must not wait for the threads it occupies."""
    inner = lambda name: pipeline.each_or_reason([name + "1", name + "2"], str.upper, workers=2)[0]
    results, reasons = pipeline.each_or_reason(["a", "b"], inner, workers=2)
    assert results == {"a": {"a1": "A1", "a2": "A2"}, "b": {"b1": "B1", "b2": "B2"}} and reasons == {}
