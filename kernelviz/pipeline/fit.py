"""The unsupervised stages: the partition and the kernels' fitted state (at γ = 1), and the
rule that one kernel or model that cannot be fitted does not blank the others."""

from __future__ import annotations

import copy
from typing import Callable, Sequence

import numpy as np

import kernelviz as kv
from kernelviz import registry
from kernelviz.pipeline.data import Prepared
from kernelviz.pipeline.specs import KernelSpec, PartitionSpec

__all__ = ['each_or_reason', 'partition_points', 'kernel_params', 'kernel_on_points', 'at_gamma',
           'fit_partition', 'partition_of', 'fit_kernel']


def each_or_reason(names: Sequence[str], compute: Callable[[str], object]) -> tuple[dict, dict]:
    """``compute(name)`` for every name; one that fails gives its reason and the others go on.

    A view of several kernels or models shows what it can: one kernel that cannot be fitted
    on these data must not blank the panels of the others.

    Parameters
    ----------
    names : sequence of str
    compute : callable
        ``name → result``.

    Returns
    -------
    (results, reasons)
        ``name → result`` of those that worked and ``name → message`` of those that did not
        (their ``ValueError``), each in the order of ``names``. Any other exception is a bug:
        it propagates, so that the page's error box keeps its details for a report.
    """
    results, reasons = {}, {}
    for name in names:
        try:
            results[name] = compute(name)
        except ValueError as err:
            reasons[name] = str(err)
    return results, reasons


# ============================================================================ partition and kernels

def partition_points(X: np.ndarray, method: str, n_components: int, seed: int, params: Sequence[tuple]):
    """The partition of ``X`` (labels are never used).

    Parameters
    ----------
    X : array of shape (n, d)
    method : {"kmeans", "gmm", "vi"}
    n_components : int
    seed : int
    params : sequence of (name, value)
        Further keyword arguments of ``kv.partitions.fit``.

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
    return kv.partitions.fit(method, X, n_components=n_components, random_state=seed, **dict(params))


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

def fit_partition(spec: PartitionSpec, prep: Prepared):
    """The partition of ``spec`` on every point of ``prep``."""
    return partition_points(prep.X_model, spec.method, spec.n_components, spec.seed, spec.params)


def partition_of(values, prep: Prepared):
    """:func:`fit_partition` of the settings ``values`` on ``prep``."""
    return fit_partition(PartitionSpec.from_settings(values), prep)


def fit_kernel(spec: KernelSpec, prep: Prepared, partition):
    """The kernel's unsupervised part fitted on every point at γ = 1 (``partition``: the one of
    ``spec.partition``, fitted by :func:`fit_partition`)."""
    return kernel_on_points(spec.name, prep.X_model, partition, spec.normalize)
