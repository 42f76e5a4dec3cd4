"""The app's caches: every expensive step, kept across runs and sessions, keyed by what it depends on.

The keys are ``kernelviz.pipeline``'s specs (``DataSpec``, ``PartitionSpec``, ``KernelSpec``,
``GridSpec``; a prepared data set is named by its spec's ``key``), the evaluation grid, and γ
and C where a result depends on them: a γ change leaves every spec unchanged, so it refits no
partition and no kernel. Arguments whose names start with ``_`` are not hashed (Streamlit's
rule): they are the objects the key stands for.

What a cached function returns is one object shared by every session, so each result is made
read-only (``kernelviz.session.read_only``). All of them share one bound, :data:`MEMORY_BYTES` of
arrays, least recently used out first (:class:`SharedResults`): a bound per function by entries
let a server keep whatever its largest entries weighed (24 boundary panels' γ-families of ~12 MB
each could stay), and the server's log says what the store holds at each session's end.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import threading
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np
import streamlit as st

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz.session import array_bytes, read_only
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


#: The bytes of arrays the shared results may hold in all (:class:`SharedResults`).
MEMORY_BYTES = 256 << 20


class SharedResults:
    """The results of every cached function, shared by every session and kept in one order of use:
    past ``max_bytes`` of arrays the least recently used go first (the newest always stays).

    A result is computed once however many sessions ask for it at the same time (the others wait for
    it, as with ``st.cache_resource``); one that raises is not kept.
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._entries: OrderedDict = OrderedDict()  # (function, key) → (result, bytes)
        self._bytes = 0
        self._lock = threading.Lock()
        self._computing: dict = {}  # (function, key) → the lock its computation holds

    def get(self, function: str, key: tuple, compute):
        name = (function, key)
        with self._lock:
            if name in self._entries:
                self._entries.move_to_end(name)
                return self._entries[name][0]
            computing = self._computing.setdefault(name, threading.Lock())
        with computing:
            with self._lock:
                if name in self._entries:  # another session computed it meanwhile
                    self._entries.move_to_end(name)
                    return self._entries[name][0]
            try:
                result = compute()
                size = array_bytes(result)
                with self._lock:
                    if name not in self._entries:
                        self._entries[name] = (result, size)
                        self._bytes += size
                    while self._bytes > self.max_bytes and len(self._entries) > 1:
                        _, (_, freed) = self._entries.popitem(last=False)
                        self._bytes -= freed
            finally:
                # only once the result is in: a session arriving in between would compute it again
                with self._lock:
                    self._computing.pop(name, None)
            return result

    def clear(self, function: str | None = None) -> None:
        """Forget ``function``'s results (every function's without)."""
        with self._lock:
            for name in [n for n in self._entries if function is None or n[0] == function]:
                self._bytes -= self._entries.pop(name)[1]

    def holdings(self) -> dict[str, tuple[int, int]]:
        """function → (results kept, bytes of their arrays): where the shared memory is."""
        held: dict[str, tuple[int, int]] = {}
        with self._lock:
            for (function, _), (_, size) in self._entries.items():
                count, total = held.get(function, (0, 0))
                held[function] = (count + 1, total + size)
        return held


#: The app's one store of shared results.
RESULTS = SharedResults(MEMORY_BYTES)


def _cached(function):
    """``function``'s results kept in :data:`RESULTS`, keyed by its arguments whose names do not
    start with ``_`` (they must be hashable: specs, keys, numbers); skipped in a :func:`transient` run."""
    signature = inspect.signature(function)
    name = function.__qualname__

    @functools.wraps(function)
    def call(*args, **kwargs):
        if _TRANSIENT.get():
            return function(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        key = tuple(value for arg, value in bound.arguments.items() if not arg.startswith("_"))
        return RESULTS.get(name, key, lambda: function(*args, **kwargs))

    call.clear = functools.partial(RESULTS.clear, name)
    return call


def backend_key() -> int:
    """Changes whenever Streamlit re-imports ``kernelviz`` after a source edit, so objects
    cached from the old modules never meet the new classes (``isinstance`` would fail)."""
    return id(kv.partitions)


def evaluation_grid_key(grid: fg.Grid) -> tuple:
    """What identifies an evaluation grid for the caches: its extent and resolution."""
    return (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1], len(grid.xs), len(grid.ys))


# ============================================================================ data and partition

@_cached
def uploaded(digest: str, upload_name: str, _raw: bytes) -> kv.data.Dataset:
    stem = upload_name.rsplit(".", 1)[0] or "upload"
    return read_only(kv.data.read(_raw, name=stem))


@_cached
def prepare(spec: pipeline.DataSpec, _raw: kv.data.Dataset | None) -> Prepared:
    return read_only(pipeline.prepare(spec, _raw))


@_cached
def fit_partition(data_key: str, spec: pipeline.PartitionSpec, backend: int, _prep: Prepared, _start=None):
    """``_start``: an earlier fit to refit from (a dragged point's previous frame; transient runs only,
    where nothing is cached: a cached fit depends on the data and the spec alone)."""
    return read_only(pipeline.fit_partition(spec, _prep, _start))


# ============================================================================ kernels

@_cached
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

@_cached
def gamma_families(name: str, data_key: str, kkey: tuple, grid_key: tuple, _kernel, _prep: Prepared, _grid_model):
    """γ-free parts of a boundary panel's Gram matrices, computed once per data/partition:
    a γ change then costs one ``exp`` per matrix."""
    return read_only(pipeline.gamma_families(_kernel, _prep, _grid_model))


@_cached
def boundary_panel(name: str, data_key: str, kkey: tuple, grid_key: tuple, log_gamma: float, log_C: float,
                   _kernel, _prep: Prepared, _grid: fg.Grid) -> fg.BoundaryPanel:
    def cached_families(grid_model: np.ndarray) -> dict:
        return gamma_families(name, data_key, kkey, grid_key, _kernel, _prep, grid_model)

    # data on their way (a dragged point's frames) draw their lines between grid values, as the live
    # preview does: finding the crossings on the model cost a frame ~15 % (kernelviz.crossings)
    return read_only(pipeline.boundary_panel(name, _kernel, _prep, _grid, log_gamma, log_C, families_of=cached_families,
                                             lines=not previewing()))


@_cached
def model_panel(name: str, data_key: str, grid_key: tuple, log_gamma: float, log_C: float, seed: int,
                log_eta: float, unit_kernel: str, _prep: Prepared, _grid: fg.Grid) -> fg.BoundaryPanel:
    """One of ``kv.models`` (mkRBF, SCM, MPM, …) with the sidebar's γ, C, η and unit kernel, on the same grid."""
    return read_only(pipeline.model_panel(name, _prep, _grid, log_gamma, log_C, seed, log_eta, unit_kernel,
                                          lines=not previewing()))


@_cached
def similarity_panel(name: str, data_key: str, kkey: tuple, grid_key: tuple, log_gamma: float,
                     reference: tuple, _kernel, _prep: Prepared, _grid: fg.Grid) -> fg.SimilarityPanel:
    return read_only(pipeline.similarity_panel(name, _kernel, _prep, _grid, log_gamma, reference))


@_cached
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
