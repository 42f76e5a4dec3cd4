"""The background grid search (kernelviz.ui.grid_jobs): column by column, the scores of one call."""

from __future__ import annotations

import time

import numpy as np
import pytest

from kernelviz import lattice as kvlattice
from kernelviz import pipeline
from kernelviz.ui import grid_jobs

pytestmark = pytest.mark.unit

LOG_CS = np.array([-1.0, 0.5, 2.0])
LOG_GAMMAS = np.array([-1.0, 0.0, 1.0])
CV, SEED = 3, 5


@pytest.fixture(scope="module")
def inputs():
    kernels, prep, _ = kvlattice.default_inputs(n_samples=80, names=("rbf", "ckrbf"))
    partition = kernels["ckrbf"].partition_
    params = {name: pipeline.kernel_params(name, partition, "paper") for name in kernels}
    return prep, params


def test_column_by_column_gives_the_scores_and_path_of_one_call(inputs):
    prep, params = inputs
    job = grid_jobs.GridJob(("rbf", "ckrbf"), prep, LOG_CS, LOG_GAMMAS, CV, SEED, params).result(300)
    assert set(job.finished) == {"rbf", "ckrbf"} and not job.failed and not job.partial()
    for name in ("rbf", "ckrbf"):
        expected, expected_path = pipeline.search_kernel(name, prep, LOG_CS, LOG_GAMMAS, CV, SEED, params[name])
        result, path = job.finished[name]
        np.testing.assert_array_equal(result.fold_scores, expected.fold_scores)
        np.testing.assert_array_equal(result.capped_folds, expected.capped_folds)
        np.testing.assert_array_equal(result.gammas, expected.gammas)
        assert (result.kernel, result.cv, result.random_state) == (expected.kernel, CV, SEED)
        assert (path is None) == (expected_path is None)
        if path is not None:
            assert path.cells == expected_path.cells and path.best_cell == expected_path.best_cell
    assert job.progress() == (2 * len(LOG_GAMMAS), 2 * len(LOG_GAMMAS))


def test_cancel_keeps_the_finished_columns_and_searches_no_more(inputs):
    prep, params = inputs
    many = np.linspace(-2, 2, 9)
    job = grid_jobs.GridJob(("rbf", "ckrbf"), prep, LOG_CS, many, CV, SEED, params)
    deadline = time.time() + 120
    while not job.partial() and not job.finished and time.time() < deadline:
        time.sleep(0.01)
    job.cancel()
    job.result(120)
    assert job.cancelled and "ckrbf" not in job.finished
    partial = job.partial()
    assert "rbf" in partial and "rbf" not in job.finished
    result, path = partial["rbf"]
    assert path is None
    searched = np.isfinite(result.fold_scores).all(axis=(0, 2))
    assert 1 <= searched.sum() < len(many)
    assert searched[:searched.sum()].all()  # columns in order, none half done
    expected, _ = pipeline.search_kernel("rbf", prep, LOG_CS, many, CV, SEED, params["rbf"])
    np.testing.assert_array_equal(result.fold_scores[:, searched], expected.fold_scores[:, searched])


def test_a_kernel_that_cannot_be_searched_is_reported_and_the_others_go_on(inputs):
    prep, params = inputs
    job = grid_jobs.GridJob(("lap", "rbf"), prep, LOG_CS, LOG_GAMMAS, CV, SEED,
                            {"lap": {"n_neighbors": 10_000}, "rbf": {}}).result(300)
    assert set(job.failed) == {"lap"} and "neighbo" in job.failed["lap"]
    assert set(job.finished) == {"rbf"}


def test_finished_searches_are_handed_to_the_session_once(inputs):
    prep, params = inputs
    store, kept = {}, []
    job = grid_jobs.GridJob(("rbf",), prep, LOG_CS, LOG_GAMMAS, CV, SEED, params)
    grid_jobs.start(store, {"rbf": ("rbf", "key")}, job)
    job.result(300)
    grid_jobs.hand_over(store, lambda key, result: kept.append((key, result)))
    grid_jobs.hand_over(store, lambda key, result: kept.append((key, result)))
    assert len(kept) == 1 and kept[0][0] == ("rbf", "key") and kept[0][1] is job.finished["rbf"]
    assert grid_jobs.current(store).covers({"rbf": ("rbf", "key")})
    assert not grid_jobs.current(store).covers({"rbf": ("rbf", "other")})
