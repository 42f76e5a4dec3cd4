"""The views' sample of large data (kernelviz.pipeline.stratified_sample and prepare)."""

from __future__ import annotations

import numpy as np
import pytest

import kernelviz as kv
from kernelviz import pipeline

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("counts, size", [((7000, 2000, 1000), 3000), ((9990, 5, 5), 3000), ((50, 50), 99),
                                          ((1,) * 5 + (10_000,), 3000)])
def test_every_label_keeps_its_share_and_none_is_lost(counts, size):
    y = np.repeat(np.arange(len(counts), dtype=float), counts)
    np.random.default_rng(0).shuffle(y)
    keep = pipeline.stratified_sample(y, size)
    assert len(keep) == size and len(np.unique(keep)) == size
    assert np.all(np.diff(keep) > 0)
    taken = np.bincount(y[keep].astype(int), minlength=len(counts))
    assert np.all(taken >= 1)
    np.testing.assert_allclose(taken, np.asarray(counts) * size / sum(counts), atol=len(counts))


def test_the_same_data_give_the_same_sample():
    y = np.repeat([0.0, 1.0, kv.data.UNLABELED], [4000, 3000, 500])
    np.testing.assert_array_equal(pipeline.stratified_sample(y, 3000), pipeline.stratified_sample(y, 3000))


def test_prepare_samples_large_data_and_keeps_small_data_whole():
    X, y = kv.data.make("moons", n_samples=pipeline.VIEW_MAX_POINTS + 500, random_state=0)
    big = pipeline.prepare_dataset(kv.data.Dataset(X, y, name="big"), "big", "zscore", "projection", "all", 0.0, 0, 0.3)
    assert big.sampled and big.n_total == len(X) and len(big.y) == pipeline.VIEW_MAX_POINTS
    rows = {tuple(r) for r in X}
    assert all(tuple(r) in rows for r in big.X_raw)  # real points, not new ones
    small = pipeline.prepare_dataset(kv.data.Dataset(X[:200], y[:200], name="small"), "small", "zscore", "projection", "all",
                          0.0, 0, 0.3)
    assert not small.sampled and small.n_total == 200
    np.testing.assert_array_equal(small.X_raw, X[:200])
