"""The app's caches: every expensive step, kept across runs and sessions, keyed by what it depends on.

The keys are ``kernelviz.pipeline``'s specs (``DataSpec``, ``PartitionSpec``, ``KernelSpec``,
``GridSpec``; a prepared data set is named by its spec's ``key``), the evaluation grid, and γ
and C where a result depends on them: a γ change leaves every spec unchanged, so it refits no
partition and no kernel. Arguments whose names start with ``_`` are not hashed (Streamlit's
rule): they are the objects the key stands for.

What ``st.cache_resource`` returns is one object shared by every session, so each result is made
read-only (``kernelviz.session.read_only``).
"""

from __future__ import annotations

import contextvars
import functools
from contextlib import contextmanager

import numpy as np
import streamlit as st

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz.session import read_only
from kernelviz.pipeline import Prepared


#: Set while a view's run draws data being edited (a point on its way under the pointer).
_TRANSIENT = contextvars.ContextVar("kernelviz_transient", default=False)
#: Share of a grid's resolution a transient run evaluates on: a sixth of the cells (the panels stay smooth at it).
PREVIEW_SHARE = 0.4


@contextmanager
def transient():
    """Within: every step below computes without its cache, and grids are coarser (:func:`resolution`).

    A point dragged over a figure makes new data at every frame; kept, each frame's partition,
    kernels and panels would push the results every session shares out of the caches (the
    γ-families of one boundary panel are ~12 MB), for data that are gone a frame later.
    """
    token = _TRANSIENT.set(True)
    try:
        yield
    finally:
        _TRANSIENT.reset(token)


def previewing() -> bool:
    """Whether this run draws data on their way (see :func:`transient`): what only the settled data
    need (downloads, the anatomy, the code) waits for the release."""
    return _TRANSIENT.get()


def resolution(full: int) -> int:
    """Cells along a grid's longer side: ``full``, or fewer while :func:`previewing`."""
    return max(20, int(full * PREVIEW_SHARE)) if _TRANSIENT.get() else full


def _cached(max_entries: int):
    """``st.cache_resource`` (shared by every session, results read-only), skipped in a :func:`transient` run."""
    def wrap(function):
        cached = st.cache_resource(show_spinner=False, max_entries=max_entries)(function)

        @functools.wraps(function)
        def call(*args, **kwargs):
            return function(*args, **kwargs) if _TRANSIENT.get() else cached(*args, **kwargs)

        call.clear = cached.clear
        return call
    return wrap


def backend_key() -> int:
    """Changes whenever Streamlit re-imports ``kernelviz`` after a source edit, so objects
    cached from the old modules never meet the new classes (``isinstance`` would fail)."""
    return id(kv.partitions)


def evaluation_grid_key(grid: fg.Grid) -> tuple:
    """What identifies an evaluation grid for the caches: its extent and resolution."""
    return (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1], len(grid.xs), len(grid.ys))


# ============================================================================ data and partition

@_cached(8)
def uploaded(digest: str, upload_name: str, _raw: bytes) -> kv.data.Dataset:
    stem = upload_name.rsplit(".", 1)[0] or "upload"
    return read_only(kv.data.read(_raw, name=stem))


@_cached(32)
def prepare(spec: pipeline.DataSpec, _raw: kv.data.Dataset | None) -> Prepared:
    return read_only(pipeline.prepare(spec, _raw))


@_cached(16)
def fit_partition(data_key: str, spec: pipeline.PartitionSpec, backend: int, _prep: Prepared, _start=None):
    """``_start``: an earlier fit to refit from (a dragged point's previous frame; transient runs only,
    where nothing is cached: a cached fit depends on the data and the spec alone)."""
    return read_only(pipeline.fit_partition(spec, _prep, _start))


# ============================================================================ kernels

@_cached(48)
def fitted_kernel(spec: pipeline.KernelSpec, data_key: str, backend: int, _prep: Prepared, _partition):
    """The kernel's unsupervised part fitted on every point (labels are never used)."""
    return read_only(pipeline.fit_kernel(spec, _prep, _partition))


def kernel_cache_key(name: str, values: dict) -> tuple:
    """What a kernel's fitted state and its panels depend on besides the data (so a γ change
    reuses it): its spec, and the backend's identity."""
    return pipeline.KernelSpec.from_settings(name, values), backend_key()


def get_kernel(name: str, prep: Prepared, values: dict, partition):
    """Kernel ``name`` of the settings ``values``, fitted on ``prep`` (at γ = 1: the views set γ)."""
    spec, backend = kernel_cache_key(name, values)
    return fitted_kernel(spec, prep.key, backend, prep, partition)


# ============================================================================ panels at (γ, C)

@_cached(24)
def gamma_families(name: str, data_key: str, kkey: tuple, grid_key: tuple, _kernel, _prep: Prepared, _grid_model):
    """γ-free parts of a boundary panel's Gram matrices, computed once per data/partition:
    a γ change then costs one ``exp`` per matrix."""
    return read_only(pipeline.gamma_families(_kernel, _prep, _grid_model))


@_cached(96)
def boundary_panel(name: str, data_key: str, kkey: tuple, grid_key: tuple, log_gamma: float, log_C: float,
                   _kernel, _prep: Prepared, _grid: fg.Grid) -> fg.BoundaryPanel:
    def cached_families(grid_model: np.ndarray) -> dict:
        return gamma_families(name, data_key, kkey, grid_key, _kernel, _prep, grid_model)

    # data on their way (a dragged point's frames) draw their lines between grid values, as the live
    # preview does: finding the crossings on the model cost a frame ~15 % (kernelviz.crossings)
    return read_only(pipeline.boundary_panel(name, _kernel, _prep, _grid, log_gamma, log_C, families_of=cached_families,
                                             lines=not previewing()))


@_cached(64)
def model_panel(name: str, data_key: str, grid_key: tuple, log_gamma: float, log_C: float, seed: int,
                log_eta: float, unit_kernel: str, _prep: Prepared, _grid: fg.Grid) -> fg.BoundaryPanel:
    """One of ``kv.models`` (mkRBF, SCM, MPM, …) with the sidebar's γ, C, η and unit kernel, on the same grid."""
    return read_only(pipeline.model_panel(name, _prep, _grid, log_gamma, log_C, seed, log_eta, unit_kernel,
                                          lines=not previewing()))


@_cached(64)
def similarity_panel(name: str, data_key: str, kkey: tuple, grid_key: tuple, log_gamma: float,
                     reference: tuple, _kernel, _prep: Prepared, _grid: fg.Grid) -> fg.SimilarityPanel:
    return read_only(pipeline.similarity_panel(name, _kernel, _prep, _grid, log_gamma, reference))


@_cached(32)
def fitted_svm(name: str, data_key: str, kernel_key: tuple, log_gamma: float, log_C: float, _kernel,
               _prep: Prepared):
    """(SVC, kernel at γ) of one panel: the panel's own fit (``pipeline.fit_svm``)."""
    gamma = 10.0 ** log_gamma
    fit = pipeline.fit_svm(pipeline.Grams(_kernel, _prep), gamma, 10.0 ** log_C)
    return read_only(fit.clf), pipeline.at_gamma(_kernel, gamma)


# ============================================================================ grid searches

def grid_key(name: str, prep: Prepared, values: dict) -> tuple:
    """What kernel ``name``'s grid search depends on: the data, the grid and the kernel's key."""
    return (prep.key, pipeline.GridSpec.from_settings(values)) + kernel_cache_key(name, values)
