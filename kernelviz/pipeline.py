"""One path from settings to results: data → partition → kernels → grid searches.

Every caller that turns the app's settings (:data:`kernelviz.state.SETTINGS`) into numbers goes
through here — the app's views, the lessons' precomputed grids, the live preview's lattice, the
benchmarks and the tests — so two of them can never prepare the data, fit the partition or
parameterise a kernel differently.

Each stage has a frozen *spec*: exactly the settings its result depends on, read once from the
settings by ``from_settings`` and comparable and hashable, so a spec is a cache key by itself
(the app's caches are keyed by specs; a γ change leaves every spec here unchanged and reuses
the fitted kernels). Each stage is a pure function of its spec and the stage before it. Nothing
here imports Streamlit.

>>> values = kernelviz.state.defaults()                                   # doctest: +SKIP
>>> prep = prepare(DataSpec.from_settings(values))                       # doctest: +SKIP
>>> partition = fit_partition(PartitionSpec.from_settings(values), prep) # doctest: +SKIP
>>> kernel = fit_kernel(KernelSpec.from_settings("ckrbf", values), prep, partition)  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

import kernelviz as kv
from kernelviz import registry, views

__all__ = ["STAGES", "DataSpec", "PartitionSpec", "KernelSpec", "GridSpec", "load", "prepare", "fit_partition",
           "fit_kernel", "grid_search"]

#: The settings each stage's result depends on (the model stage's are read by the views, at γ and C).
STAGES: dict[str, tuple[str, ...]] = {
    "data": ("source", "generator", "gen_params", "data_seed", "sample", "label_how", "label_fraction",
             "label_per_class", "label_seed", "scaling", "fit_on", "test_fraction"),
    "partition": ("partition", "n_components", "partition_seed", "vi_prior_type", "vi_alpha0", "vi_beta0", "vi_w0"),
    "model": ("kernels", "log_gamma", "log_C", "normalize"),
    "grid": ("grid_log_C", "grid_log_gamma", "grid_steps", "cv", "cv_seed"),
}
#: Sources whose data the settings make by themselves; an upload or a drawing is handed in.
BUILT_SOURCES = ("generator", "sample")


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class DataSpec:
    """The data as the sidebar makes them: which points, scaled, projected, labeled and split how.

    ``origin`` names the points: the generator or sample name, or for uploaded and drawn data
    the identity of the content the caller hands to :func:`load` (a digest and a file name).
    """

    source: str
    origin: str
    gen_params: tuple = ()
    data_seed: int = 0
    scaling: str = "zscore"
    fit_on: str = "projection"
    label_how: str = "fraction"
    label_value: float = 1.0
    label_seed: int = 0
    test_fraction: float = 0.0

    @classmethod
    def from_settings(cls, values: Mapping[str, Any], identity: str | None = None) -> DataSpec:
        """The spec of ``values``; ``identity`` names uploaded or drawn content (required for them)."""
        source = values["source"]
        if source == "generator":
            origin, params, seed = values["generator"], tuple(sorted(values["gen_params"].items())), values["data_seed"]
        elif source == "sample":
            origin, params, seed = values["sample"], (), 0
        elif identity is None:
            raise ValueError(f"{source.capitalize()} data are handed in: name their content (identity=…).")
        else:
            origin, params, seed = identity, (), 0
        label_value = values["label_fraction"] if values["label_how"] == "fraction" else values["label_per_class"]
        return cls(source, origin, params, int(seed), values["scaling"], values["fit_on"], values["label_how"],
                   float(label_value), int(values["label_seed"]), float(values["test_fraction"]))

    @property
    def key(self) -> str:
        """A short text naming this spec (``Prepared.key``): what the views' caches see of the data."""
        return f"{self.source}:{self.origin}:" + hashlib.sha1(repr(self).encode()).hexdigest()[:16]


def load(spec: DataSpec, raw: kv.data.Dataset | None = None) -> kv.data.Dataset:
    """The points of ``spec``: generated or bundled, else ``raw`` (an upload or a drawing)."""
    if spec.source == "generator":
        X, y = kv.data.make(spec.origin, random_state=spec.data_seed, **dict(spec.gen_params))
        return kv.data.Dataset(X, y, name=spec.origin)
    if spec.source == "sample":
        return views.bundled_dataset(spec.origin)
    if raw is None:
        raise ValueError(f"{spec.source.capitalize()} data are handed in: pass them as raw.")
    return raw


def prepare(spec: DataSpec, raw: kv.data.Dataset | None = None) -> views.Prepared:
    """The data of ``spec`` scaled, projected, labeled and split (``raw``: see :func:`load`)."""
    return views.prepare(load(spec, raw), spec.key, spec.scaling, spec.fit_on, spec.label_how, spec.label_value,
                         spec.label_seed, spec.test_fraction)


# ----------------------------------------------------------------------------- partition


@dataclass(frozen=True)
class PartitionSpec:
    """The partition CkRBF, GMM and RWM measure with (fitted on every point, never on labels)."""

    method: str
    n_components: int
    seed: int
    params: tuple = ()

    @classmethod
    def from_settings(cls, values: Mapping[str, Any]) -> PartitionSpec:
        params = {}
        if values["partition"] == "vi":
            params = {"weight_concentration_prior_type": values["vi_prior_type"],
                      "weight_concentration_prior": values["vi_alpha0"], "mean_precision_prior": values["vi_beta0"]}
            if values["vi_w0"] > 0:  # 0 leaves scikit-learn's own prior (the data's covariance)
                params["covariance_prior"] = values["vi_w0"]
        return cls(values["partition"], int(values["n_components"]), int(values["partition_seed"]),
                   tuple(sorted(params.items())))


def fit_partition(spec: PartitionSpec, prep: views.Prepared):
    return views.fit_partition(prep.X_model, spec.method, spec.n_components, spec.seed, spec.params)


# ----------------------------------------------------------------------------- kernels


@dataclass(frozen=True)
class KernelSpec:
    """A kernel's fitted state: its partition where it uses one, its scale where it has one — not
    γ, which the views set on a fitted kernel (so a γ change refits nothing)."""

    name: str
    partition: PartitionSpec | None = None
    normalize: str | None = None

    @classmethod
    def from_settings(cls, name: str, values: Mapping[str, Any]) -> KernelSpec:
        facts = registry.kernel(name)
        return cls(name, PartitionSpec.from_settings(values) if facts.uses_partition else None,
                   values["normalize"] if facts.has_scale else None)


def fit_kernel(spec: KernelSpec, prep: views.Prepared, partition):
    """The kernel's unsupervised part fitted on every point at γ = 1 (``partition``: the one of
    ``spec.partition``, fitted by :func:`fit_partition`)."""
    return views.fit_kernel(spec.name, prep.X_model, partition, spec.normalize)


# ----------------------------------------------------------------------------- grid search


@dataclass(frozen=True)
class GridSpec:
    """A grid search's axes (log₁₀ C, log₁₀ γ) and folds. The axes themselves, not their
    settings: the steps do not matter to an axis whose ends are equal."""

    log_Cs: tuple
    log_gammas: tuple
    cv: int
    cv_seed: int

    @classmethod
    def from_settings(cls, values: Mapping[str, Any]) -> GridSpec:
        steps = values["grid_steps"]
        return cls(tuple(views.grid_axis(values["grid_log_C"], steps).tolist()),
                   tuple(views.grid_axis(values["grid_log_gamma"], steps).tolist()),
                   int(values["cv"]), int(values["cv_seed"]))


def grid_search(kernel: KernelSpec, grid: GridSpec, prep: views.Prepared, partition, progress=None) -> tuple:
    """Kernel ``kernel``'s cross-validated search over ``grid``: (result, Keerthi–Lin path or None)."""
    params = views.kernel_params(kernel.name, partition, kernel.normalize)
    return views.grid_search(kernel.name, prep, np.array(grid.log_Cs), np.array(grid.log_gammas), grid.cv,
                             grid.cv_seed, params, progress=progress)


# ----------------------------------------------------------------------------- from settings at once


def prepared(values: Mapping[str, Any], raw: kv.data.Dataset | None = None,
             identity: str | None = None) -> views.Prepared:
    """:func:`prepare` of the settings ``values`` (``raw`` / ``identity``: uploaded or drawn data)."""
    return prepare(DataSpec.from_settings(values, identity), raw)


def partition_of(values: Mapping[str, Any], prep: views.Prepared):
    """:func:`fit_partition` of the settings ``values`` on ``prep``."""
    return fit_partition(PartitionSpec.from_settings(values), prep)
