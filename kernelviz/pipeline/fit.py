"""The unsupervised stages: the partition and the kernels' fitted state (at γ = 1), and the
rule that one kernel or model that cannot be fitted does not blank the others."""

from __future__ import annotations

import copy
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

import numpy as np

import kernelviz as kv
from kernelviz import registry
from kernelviz.pipeline.data import Prepared
from kernelviz.pipeline.specs import KernelSpec, PartitionSpec

__all__ = ['each_or_reason', 'partition_points', 'matched', 'kernel_params', 'kernel_on_points', 'at_gamma',
           'fit_partition', 'partition_of', 'fit_kernel']


#: The name prefix of the threads that compute names side by side (``each_or_reason``).
PANEL_THREADS = "kernelviz-panel"


@functools.cache
def _side_by_side(workers: int) -> ThreadPoolExecutor:
    """The threads of :func:`each_or_reason` with ``workers``, started once and kept for the process.

    Every session's panels share them. A pool per call started its threads on every step, and a
    thread start waits until the system runs the new thread: on a busy machine up to 0.2 s of a
    committed γ step (Thread.start timed in the app's server, 2026-11-28).
    """
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix=PANEL_THREADS)


def each_or_reason(names: Sequence[str], compute: Callable[[str], object], *, workers: int = 1) -> tuple[dict, dict]:
    """``compute(name)`` for every name; one that fails gives its reason and the others go on.

    A view of several kernels or models shows what it can: one kernel that cannot be fitted
    on these data must not blank the panels of the others.

    Parameters
    ----------
    names : sequence of str
    compute : callable
        ``name → result``; with ``workers`` > 1, called from several threads at once.
    workers : int, default=1
        Threads computing names side by side. numpy lets go of the GIL in a panel's heavy parts (the
        Gram matrices' ``exp``, distances, matrix products), so on two cores two threads draw four
        panels in less time: the run of Decision boundaries at a new γ took 0.17–0.18 s with one and
        0.11–0.12 s with two (AppTest, medians of ten steps, 2026-11-28, the machine otherwise idle).
        The threads are started once and shared by every caller (:func:`_side_by_side`); they are
        named ``kernelviz-panel…`` so that a profile of a step can tell them apart. Called from
        one of them, the names are computed one after the other in that thread.

    Returns
    -------
    (results, reasons)
        ``name → result`` of those that worked and ``name → message`` of those that did not
        (their ``ValueError``), each in the order of ``names``. Any other exception is a bug:
        it propagates, so that the page's error box keeps its details for a report.
    """
    def attempt(name):
        try:
            return True, compute(name)
        except ValueError as err:
            return False, str(err)

    # inside one of the pool's own computations, waiting for the pool could wait for ever
    if workers > 1 and len(names) > 1 and not threading.current_thread().name.startswith(PANEL_THREADS):
        outcomes = list(_side_by_side(workers).map(attempt, names))
    else:
        outcomes = [attempt(name) for name in names]
    results, reasons = {}, {}
    for name, (worked, outcome) in zip(names, outcomes):
        (results if worked else reasons)[name] = outcome
    return results, reasons


# ============================================================================ partition and kernels

def partition_points(X: np.ndarray, method: str, n_components: int, seed: int, params: Sequence[tuple],
                     start=None):
    """The partition of ``X`` (labels are never used).

    Parameters
    ----------
    X : array of shape (n, d)
    method : {"kmeans", "gmm", "vi"}
    n_components : int
    seed : int
    params : sequence of (name, value)
        Further keyword arguments of ``kv.partitions.fit``.
    start : fitted partition, optional
        An earlier fit on nearly the same points (the previous frame of a dragged point): k-means
        and GMM start from its means and keep its components' order; a variational mixture, which
        takes no initial means, is fitted afresh and its components put in the order of the
        earlier fit's nearest ones (:func:`matched`). None, or a start of another size: a fresh fit.

    Returns
    -------
    The fitted partition.

    Raises
    ------
    ValueError
        When more clusters than points are asked for.
    """
    if n_components > len(X):
        raise ValueError(f"More clusters ({n_components}) than points ({len(X)}): choose at most {len(X)} clusters.")
    warm = start is not None and start.means_.shape == (n_components, X.shape[1])
    init = start if warm and method != "vi" else None
    part = kv.partitions.fit(method, X, n_components=n_components, random_state=seed, init=init, **dict(params))
    return matched(part, start) if warm and method == "vi" else part


def matched(partition, previous):
    """``partition`` with its components reordered to follow ``previous``'s (each to the nearest of
    the previous means, by the assignment of least total distance), so that a component keeps its
    colour and number from one fit to the next; itself when the sizes differ."""
    from scipy.optimize import linear_sum_assignment

    if partition.means_.shape != previous.means_.shape:
        return partition
    distance = np.linalg.norm(previous.means_[:, None, :] - partition.means_[None, :, :], axis=2)
    _, order = linear_sum_assignment(distance)
    if np.array_equal(order, np.arange(len(order))):
        return partition
    out = copy.copy(partition)
    inverse = np.argsort(order)
    estimator = partition.estimator_
    if hasattr(estimator, "cluster_centers_"):  # k-means predicts with its centres: reordered with the means
        estimator = copy.copy(estimator)
        estimator.cluster_centers_ = estimator.cluster_centers_[order]
    out._set_fitted(estimator, partition.means_[order], partition.covariances_[order],
                    partition.weights_[order], None if partition.labels_ is None else inverse[partition.labels_],
                    partition.epsilons_[order], list(partition.notes_))
    return out


def kernel_params(name: str, partition, normalize: str) -> dict:
    """The keyword arguments a kernel takes besides γ: the partition and the CkRBF scale where it uses them."""
    facts = registry.kernel(name)
    params = {}
    if facts.uses_partition:
        params["partition"] = partition
    if facts.has_scale:
        params["normalize"] = normalize
    return params


def kernel_on_points(name: str, X: np.ndarray, partition, normalize: str):
    """The kernel's unsupervised part fitted on every point, at γ = 1 (labels are never used)."""
    return kv.kernels.make(name, gamma=1.0, **kernel_params(name, partition, normalize)).fit(X)


def at_gamma(kernel, gamma: float):
    """A shallow copy at another γ: the fitted state is shared, never mutated."""
    return copy.copy(kernel).set_params(gamma=gamma)



# ============================================================================ the stages, from their specs

def fit_partition(spec: PartitionSpec, prep: Prepared, start=None):
    """The partition of ``spec`` on every point of ``prep`` (``start``: see :func:`partition_points`)."""
    return partition_points(prep.X_model, spec.method, spec.n_components, spec.seed, spec.params, start)


def partition_of(values, prep: Prepared):
    """:func:`fit_partition` of the settings ``values`` on ``prep``."""
    return fit_partition(PartitionSpec.from_settings(values), prep)


def fit_kernel(spec: KernelSpec, prep: Prepared, partition):
    """The kernel's unsupervised part fitted on every point at γ = 1 (``partition``: the one of
    ``spec.partition``, fitted by :func:`fit_partition`)."""
    return kernel_on_points(spec.name, prep.X_model, partition, spec.normalize)
