"""The specs: for each stage, exactly the settings its result depends on, frozen and hashable.

A spec is read once from the settings (:data:`kernelviz.state.SETTINGS`) by ``from_settings``;
its ``SETTINGS`` names the settings it reads, and :data:`STAGES` is built from those, so a
stage's settings and its spec's fields cannot drift apart (``tests/test_pipeline.py`` records
what ``from_settings`` reads and checks it against ``SETTINGS``). A spec is comparable and
hashable, so it is a cache key by itself, and its :func:`digest` names it on disk.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import numpy as np

from kernelviz import registry

__all__ = ['BUILT_SOURCES', 'digest', 'grid_axis', 'DataSpec', 'PartitionSpec', 'KernelSpec', 'ModelSpec',
           'OtherModelSpec', 'GridSpec', 'STAGES']

#: Sources whose data the settings make by themselves; an upload or a drawing is handed in.
BUILT_SOURCES = ("generator", "sample")


def digest(*specs) -> str:
    """A stable name of specs (and plain values) across processes: ``repr`` is deterministic for
    frozen dataclasses of str, int, float and tuples, unlike ``hash`` (salted per process)."""
    return hashlib.sha256(repr(specs).encode()).hexdigest()[:32]


def grid_axis(bounds, steps: int) -> np.ndarray:
    """log₁₀ values of one grid axis: ``steps`` values from lo to hi, or the single value when lo == hi."""
    lo, hi = bounds
    return np.array([float(lo)]) if lo == hi else np.linspace(lo, hi, steps)


@dataclass(frozen=True)
class DataSpec:
    """The data as the sidebar makes them: which points, scaled, projected, labeled and split how.

    ``origin`` names the points: the generator or sample name, or for uploaded and drawn data
    the identity of the content the caller hands to :func:`kernelviz.pipeline.load` (a digest
    and a file name).
    """

    SETTINGS: ClassVar[tuple[str, ...]] = (
        "source", "generator", "gen_params", "data_seed", "sample", "label_how", "label_fraction",
        "label_per_class", "label_seed", "scaling", "fit_on", "test_fraction")

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


@dataclass(frozen=True)
class PartitionSpec:
    """The partition CkRBF, GMM and RWM measure with (fitted on every point, never on labels)."""

    SETTINGS: ClassVar[tuple[str, ...]] = (
        "partition", "n_components", "partition_seed", "vi_prior_type", "vi_alpha0", "vi_beta0", "vi_w0")

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


@dataclass(frozen=True)
class KernelSpec:
    """A kernel's fitted state: its partition where it uses one, its scale where it has one — not
    γ, which the model stage sets on a fitted kernel (so a γ change refits nothing)."""

    SETTINGS: ClassVar[tuple[str, ...]] = ("normalize",) + PartitionSpec.SETTINGS

    name: str
    partition: PartitionSpec | None = None
    normalize: str | None = None

    @classmethod
    def from_settings(cls, name: str, values: Mapping[str, Any]) -> KernelSpec:
        facts = registry.kernel(name)
        return cls(name, PartitionSpec.from_settings(values) if facts.uses_partition else None,
                   values["normalize"] if facts.has_scale else None)


@dataclass(frozen=True)
class ModelSpec:
    """An SVM with a fitted kernel at (γ, C): what a decision panel, the anatomy and a lattice
    value are fitted from (besides the data)."""

    SETTINGS: ClassVar[tuple[str, ...]] = ("log_gamma", "log_C") + KernelSpec.SETTINGS

    kernel: KernelSpec
    log_gamma: float
    log_C: float

    @classmethod
    def from_settings(cls, name: str, values: Mapping[str, Any]) -> ModelSpec:
        return cls(KernelSpec.from_settings(name, values), float(values["log_gamma"]), float(values["log_C"]))


@dataclass(frozen=True)
class OtherModelSpec:
    """A model of ``kv.models`` (mkRBF, SCM, MPM, …) at (γ, C), with the settings it takes besides them."""

    SETTINGS: ClassVar[tuple[str, ...]] = ("log_gamma", "log_C", "partition_seed", "log_eta", "unit_kernel")

    name: str
    seed: int
    log_eta: float
    unit_kernel: str
    log_gamma: float
    log_C: float

    @classmethod
    def from_settings(cls, name: str, values: Mapping[str, Any]) -> OtherModelSpec:
        return cls(name, int(values["partition_seed"]), float(values["log_eta"]), values["unit_kernel"],
                   float(values["log_gamma"]), float(values["log_C"]))


@dataclass(frozen=True)
class GridSpec:
    """A grid search's axes (log₁₀ C, log₁₀ γ) and folds. The axes themselves, not their
    settings: the steps do not matter to an axis whose ends are equal."""

    SETTINGS: ClassVar[tuple[str, ...]] = ("grid_log_C", "grid_log_gamma", "grid_steps", "cv", "cv_seed")

    log_Cs: tuple
    log_gammas: tuple
    cv: int
    cv_seed: int

    @classmethod
    def from_settings(cls, values: Mapping[str, Any]) -> GridSpec:
        steps = values["grid_steps"]
        return cls(tuple(grid_axis(values["grid_log_C"], steps).tolist()),
                   tuple(grid_axis(values["grid_log_gamma"], steps).tolist()),
                   int(values["cv"]), int(values["cv_seed"]))


def _own(spec, *earlier) -> tuple[str, ...]:
    """A spec's settings less those of the stages before it (each stage lists what it adds)."""
    before = {name for stage in earlier for name in stage.SETTINGS}
    return tuple(name for name in spec.SETTINGS if name not in before)


#: The settings each stage adds, in pipeline order: a change of one reruns its stage and those after
#: it. Built from the specs' ``SETTINGS``; "model" also holds which kernels are drawn.
STAGES: dict[str, tuple[str, ...]] = {
    "data": DataSpec.SETTINGS,
    "partition": PartitionSpec.SETTINGS,
    "model": ("kernels", "models") + _own(ModelSpec, PartitionSpec)
             + tuple(n for n in OtherModelSpec.SETTINGS if n not in ModelSpec.SETTINGS + PartitionSpec.SETTINGS),
    "grid": GridSpec.SETTINGS,
}
