"""Decision and similarity fields precomputed over a γ lattice and a C lattice, packed for the browser.

Dragging γ or C in the app should redraw every panel at once, with no Python round trip.
This module computes, for every shown kernel, the field a panel draws at each value of a
lattice covering the control's range — the SVM decision function over a γ lattice at the
current C and over a C lattice at the current γ (Decision boundaries), or the normalised
similarity to a reference point over the γ lattice (Similarity) — and stores each field as
uint8 codes, which the scrub component sends to the browser as they are for a canvas to paint.

The kernel mathematics is the views' own (:func:`kernelviz.pipeline.gamma_families`,
:func:`kernelviz.pipeline.at_gamma`, ``kernel.gamma_family``): for γ-convertible kernels the
γ-free parts D and log n are built once per kernel, and each γ then costs one ``exp``;
the others (lap, lppk) build their Gram matrices per γ.

The computation is a generator (one item per kernel and lattice value) that checks a
``threading.Event`` between values, so the app can run it in a background thread, show
what is ready and stop it when the data or the view change. Nothing here imports Streamlit.

Quantisation
------------
[lo, hi] is cut into 254 equal buckets (codes 0 … 253, values outside clipped to the end
buckets); a value is stored as the code of its bucket and decoded as the bucket's middle, so
decoding is exact to half a step, (hi − lo) / 508. Code 255 marks an undefined value (NaN, e.g.
an indefinite kernel's similarity). Decision fields use the symmetric range
±:data:`DECISION_RANGE`: with an even number of buckets, 0 is a bucket *edge* — every f < 0 is
code ≤ 126 and decodes negative, every f ≥ 0 code ≥ 127 and decodes positive — so the picture
keeps the sign of the smallest decision value, and the zero contour lies between codes 126 and
127 (a rounding codec with a bucket centred on 0 drew |f| < 0.012 as exactly 0 and lost the
boundary at small γ and C). The ±1 margins are exact to half a step (≈ 0.012 in f). Beyond ±3
the tints saturate, as in the committed figures.

Similarity fields store the dissimilarity d = √(−ln s / γ) of the normalised similarity
s = k(r, y)/√(k(r, r) k(y, y)), as a share of the field's largest d (its ``scale``, one per
field): the Similarity view draws either d's level curves or s = exp(−γ d²) shaded, and both
come from d. Storing s instead lost every far level curve at large γ (at γ = 100, s < 1/254 —
code 0 — beyond d ≈ 0.24), where d keeps 254 steps over the whole field at every γ.

With more than two classes a decision field is the class libsvm's one-vs-one vote predicts in
each cell, its index among the training classes as the code (as the committed panel draws it).

Models (:class:`Model`: SCM, MCPM, MPM, KFD, KNDA, CKSVMNDA, mkRBF) are previewed from their
own panel function, :func:`kernelviz.pipeline.model_panel`, at each lattice value — the figure's
numbers, by the figure's code. A model's f has its own scale (an SVM's saturates at ±1 … ±3, a
discriminant's may be 10⁻³ or 10³): a model without margins stores f / scale, the scale being the
95th percentile of |f| the figure saturates its tints at, so that the codes span the tints.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

import kernelviz as kv
from kernelviz import _diskcache
from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz import state as kvstate
from kernelviz._background import BackgroundJob
from kernelviz.protocol import BrowserLattice

#: Spacing of the lattices in decades: every 0.25 decade gives 25 values over the app's six decades.
LATTICE_STEP = 0.25
#: Decision values are clipped to ±this before quantising (the committed figures saturate their tints at ≤ 3).
DECISION_RANGE = 3.0
#: Largest code of a value (an even number of buckets, so that 0 is a bucket edge); :data:`UNDEFINED_CODE` marks NaN.
TOP_CODE = 253
UNDEFINED_CODE = 255
#: Which lattices each kind of field has: axis name → the setting whose bounds it spans.
AXES = {"decision": ("log_gamma", "log_C"), "similarity": ("log_gamma",)}


@dataclass(frozen=True)
class Codec:
    """uint8 buckets of equal width over [lo, hi] (see the module notes)."""

    lo: float
    hi: float

    @property
    def step(self) -> float:
        """The width of a bucket; decoding is exact to half of it inside [lo, hi]."""
        return (self.hi - self.lo) / (TOP_CODE + 1)

    def encode(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        # counted from the middle, not from lo: lo + 1e-300 would round back to lo and lose its sign
        middle = (self.lo + self.hi) / 2
        with np.errstate(invalid="ignore"):
            buckets = np.clip(np.floor((values - middle) / self.step) + (TOP_CODE + 1) // 2, 0, TOP_CODE)
        return np.where(np.isnan(values), UNDEFINED_CODE, np.nan_to_num(buckets)).astype(np.uint8)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        codes = np.asarray(codes)
        return np.where(codes == UNDEFINED_CODE, np.nan, self.lo + (codes.astype(float) + 0.5) * self.step)


#: Decision fields are f itself; similarity fields d / scale (see the module notes).
CODECS = {"decision": Codec(-DECISION_RANGE, DECISION_RANGE), "similarity": Codec(0.0, 1.0)}


def lattice_axis(setting: str, current: float, step: float = LATTICE_STEP) -> np.ndarray:
    """log₁₀ values spanning a setting's range every ``step`` decades, plus the current value.

    The current value is included so that the lattice reproduces the committed panel exactly
    where the control stands when the lattice arrives.

    Parameters
    ----------
    setting : {"log_gamma", "log_C"}
        A setting of :mod:`kernelviz.state`; its bounds are the control's.
    current : float
        The committed value.
    step : float
        Spacing in decades.

    Returns
    -------
    array
        Sorted, without duplicates.
    """
    lo, hi = kvstate.bounds(setting)
    if not step > 0:
        raise ValueError(f"The lattice step must be a positive number of decades; got {step!r}.")
    if not lo <= current <= hi:
        raise ValueError(f"The current {setting} = {current:g} lies outside the control's range [{lo:g}, {hi:g}].")
    regular = np.linspace(lo, hi, int(round((hi - lo) / step)) + 1)
    return np.unique(np.round(np.append(regular, current), 9))


@dataclass(frozen=True)
class Field:
    """One panel's field at one lattice value: ``codes`` is an (ny, nx) uint8 image, row 0 at ``grid.ys[0]``;
    ``scale`` the largest dissimilarity of a similarity field (its codes are d / scale); ``scores`` a
    decision field's support vectors and accuracies, from the fit that gave the field."""

    name: str
    axis: str
    index: int
    codes: np.ndarray
    scale: float = 1.0
    scores: pipeline.PanelScores | None = None


@dataclass(frozen=True)
class Failure:
    """A kernel whose lattice could not be computed, and why (a sentence for its panel)."""

    name: str
    reason: str


@dataclass
class Lattice:
    """The lattice of one view: what it spans, and the fields computed so far.

    Build it with :meth:`decision` or :meth:`similarity`, fill it from
    :func:`decision_fields` / :func:`similarity_fields` with :meth:`add`, and send
    :meth:`to_browser` to the page.
    """

    kind: str
    names: tuple
    grid: fg.Grid
    log_gamma: float
    log_C: float | None
    axes: dict
    reference: tuple | None = None
    classes: int = 2    # decision lattices: training classes (codes are class indices above two)
    codes: dict = field(default_factory=dict)
    scales: dict = field(default_factory=dict)
    scores: dict = field(default_factory=dict)     # (name, axis) → per lattice value, PanelScores or None
    #: Decision lattices: the training points in the plot plane (float32), where the support vectors are.
    points: np.ndarray | None = None
    failed: dict = field(default_factory=dict)
    filled: dict = field(default_factory=dict)
    #: Names this lattice among all others (with what is ready, :meth:`to_browser`'s ``id``).
    uid: str = field(default_factory=lambda: uuid.uuid4().hex, compare=False)

    @classmethod
    def decision(cls, names: Sequence[str], grid: fg.Grid, log_gamma: float, log_C: float,
                 step: float = LATTICE_STEP, classes: int = 2) -> "Lattice":
        """Decision fields over γ at ``log_C`` and over C at ``log_gamma``, for data of ``classes``
        training classes (:func:`training_classes`)."""
        axes = {"log_gamma": lattice_axis("log_gamma", log_gamma, step), "log_C": lattice_axis("log_C", log_C, step)}
        return cls("decision", tuple(names), grid, float(log_gamma), float(log_C), axes, classes=int(classes))

    @classmethod
    def similarity(cls, names: Sequence[str], grid: fg.Grid, log_gamma: float, reference: tuple[float, float],
                   step: float = LATTICE_STEP) -> "Lattice":
        """Similarity to ``reference`` (a point of the plot plane) over γ."""
        axes = {"log_gamma": lattice_axis("log_gamma", log_gamma, step)}
        return cls("similarity", tuple(names), grid, float(log_gamma), None, axes,
                   reference=(float(reference[0]), float(reference[1])))

    @property
    def codec(self) -> Codec:
        return CODECS[self.kind]

    def add(self, item: Field | Failure) -> None:
        """Store one item of :func:`decision_fields` / :func:`similarity_fields`."""
        if isinstance(item, Failure):
            self.failed[item.name] = item.reason
            return
        key = (item.name, item.axis)
        if key not in self.codes:
            self.codes[key] = np.full((len(self.axes[item.axis]),) + self.grid.shape, UNDEFINED_CODE, np.uint8)
            self.filled[key] = np.zeros(len(self.axes[item.axis]), dtype=bool)
            self.scales[key] = np.ones(len(self.axes[item.axis]))
            self.scores[key] = [None] * len(self.axes[item.axis])
        self.codes[key][item.index] = item.codes
        self.scales[key][item.index] = item.scale
        self.scores[key][item.index] = item.scores
        self.filled[key][item.index] = True

    def reuse(self, previous: "Lattice") -> None:
        """Take the fields of ``previous`` that are still right for this lattice, so its job skips them.

        ``previous`` must hold the same data and fitted kernels (the caller's promise: the app
        reuses only a lattice of the same context). A field is still right where the lattice
        value is the same and so is everything else it was computed at: the γ lattice of a
        decision field was computed at the lattice's C, the C lattice at its γ, a similarity
        field around its reference. So after a γ step the γ lattice is kept and only the C
        lattice is computed again.
        """
        if previous.kind != self.kind or not (np.array_equal(previous.grid.xs, self.grid.xs)
                                              and np.array_equal(previous.grid.ys, self.grid.ys)):
            return
        if self.points is None:
            self.points = previous.points  # the same data
        fixed = {"log_gamma": previous.log_C == self.log_C if self.kind == "decision"
                 else previous.reference == self.reference,
                 "log_C": previous.log_gamma == self.log_gamma}
        for (name, axis), filled in previous.filled.items():
            if name not in self.names or axis not in self.axes or not fixed[axis]:
                continue
            position = {float(v): j for j, v in enumerate(previous.axes[axis])}
            for i, value in enumerate(self.axes[axis]):
                j = position.get(float(value))
                if j is not None and filled[j]:
                    key = (name, axis)
                    self.add(Field(name, axis, i, previous.codes[key][j], previous.scales[key][j], previous.scores[key][j]))

    def take(self, stored: "Lattice") -> None:
        """Take every field of ``stored``, a lattice of the same span (:func:`disk_key` names both)."""
        self.points = stored.points
        self.failed = dict(stored.failed)
        for key in stored.filled:
            self.codes[key], self.scales[key] = stored.codes[key], stored.scales[key]
            self.scores[key], self.filled[key] = list(stored.scores[key]), stored.filled[key]

    def has(self, name: str, axis: str, index: int) -> bool:
        """Whether the field of ``name`` at ``axis[index]`` is in the lattice already."""
        return (name, axis) in self.filled and bool(self.filled[(name, axis)][index])

    def ready(self, name: str) -> bool:
        """Whether every lattice of this kernel is complete (a failed kernel never is)."""
        return name not in self.failed and all(
            (name, axis) in self.filled and self.filled[(name, axis)].all() for axis in self.axes)

    @property
    def complete(self) -> bool:
        """Every kernel is either ready or failed: nothing more will arrive."""
        return all(self.ready(name) or name in self.failed for name in self.names)

    def to_browser(self) -> BrowserLattice:
        """What the browser repaints the figure's panels from (:func:`kernelviz.components.plot.payload`
        packs it; :class:`kernelviz.protocol.BrowserLattice` declares it).

        Each ready kernel's lattice along each axis is one uint8 array of shape
        ``(len(axis), ny, nx)`` (C order: lattice value, row from ``ys[0]`` upwards, column),
        the stored codes themselves, not a copy, with each field's ``scale`` (similarity fields);
        kernels not ready carry ``None`` and, when failed, the reason. A decision lattice's kernel also
        carries, per axis, its support vectors at each value (:meth:`support`; None for a model, which
        has none) and its accuracies (``[train, test, hidden]`` per value, None where there are no
        such points), and the lattice the training points they index (:attr:`points`) and how the
        figure draws a support vector (``support_marker``, :data:`kernelviz.figures.SUPPORT_MARKER`). Everything
        else is plain JSON.
        """
        kernels = []
        for name in self.names:
            ready = self.ready(name)
            decision = ready and self.kind == "decision"
            kernels.append({
                "name": name, "label": fg.kernel_label(name), "failed": self.failed.get(name),
                "fields": {axis: self.codes[(name, axis)] for axis in self.axes} if ready else None,
                "scales": {axis: [float(v) for v in self.scales[(name, axis)]] for axis in self.axes} if ready else None,
                "support": {axis: self.support(name, axis) for axis in self.axes} if decision else None,
                "accuracy": {axis: [_accuracies(s) for s in self.scores[(name, axis)]] for axis in self.axes}
                if decision else None,
            })
        ready = ",".join(k["name"] for k in kernels if k["fields"] is not None or k["failed"])
        return {
            # what the browser has if it has this id: the same lattice with the same kernels ready
            "id": f"{self.uid}:{ready}",
            "kind": self.kind, "nx": len(self.grid.xs), "ny": len(self.grid.ys),
            "x_range": [float(self.grid.xs[0]), float(self.grid.xs[-1])],
            "y_range": [float(self.grid.ys[0]), float(self.grid.ys[-1])],
            "codec": {"lo": self.codec.lo, "hi": self.codec.hi, "top": TOP_CODE, "undefined": UNDEFINED_CODE},
            "axes": {axis: [float(v) for v in values] for axis, values in self.axes.items()},
            "log_gamma": self.log_gamma, "log_C": self.log_C, "reference": self.reference,
            "classes": self.classes, "complete": self.complete, "kernels": kernels,
            "points": self.points if self.kind == "decision" else None,
            "support_marker": fg.SUPPORT_MARKER if self.kind == "decision" else None,
        }

    def support(self, name: str, axis: str) -> dict | None:
        """The support vectors of ``name`` at every value of ``axis``, packed: ``counts`` (per value),
        then, value after value, their ``index`` among the training points (uint16: a view holds at
        most :data:`kernelviz.pipeline.VIEW_MAX_POINTS` points), ``alpha`` = |α| (float32: only the
        markers' sizes and a hover read it) and ``bounded`` (uint8, 1 where α is at its bound C).
        None when no value has support vectors (a model's panel)."""
        scores = [s if s is not None and s.support is not None else None for s in self.scores[(name, axis)]]
        if all(s is None for s in scores):
            return None
        known = [s for s in scores if s is not None]
        return {
            "counts": [0 if s is None else len(s.support) for s in scores],
            "index": np.concatenate([s.support for s in known]).astype("<u2"),
            "alpha": np.concatenate([s.dual for s in known]).astype("<f4"),
            "bounded": np.concatenate([np.zeros(len(s.support), bool) if s.bounded is None else s.bounded
                                       for s in known]).astype(np.uint8),
        }


def _accuracies(scores: pipeline.PanelScores | None) -> list | None:
    """``[train, test, hidden]`` accuracies of one lattice value (None where not known)."""
    if scores is None:
        return None
    return [scores.train_accuracy, scores.test_accuracy, scores.hidden_accuracy]


# ============================================================================ decision fields

#: Largest error in f allowed to float32 kernel values: a quarter of a quantisation step. Cells
#: whose |f| is within that error are computed again in float64 (:meth:`_Grams.decision`): the
#: codec keeps the sign of every f, so the sum must have it too.
FLOAT32_TOLERANCE = CODECS["decision"].step / 4
#: Bound on the error of one float32 kernel value relative to the largest kernel value: the
#: rounding of the value itself plus that of exp's argument, at most (1 + 1/e) · 2⁻²⁴ < 2⁻²³.
FLOAT32_KERNEL_ERROR = 2.0 ** -23


def _svm_decision(grams: _Grams, gamma: float, C: float, decision) -> tuple[np.ndarray, pipeline.PanelScores]:
    """The panel's SVM at (γ, C) (:func:`kernelviz.pipeline.fit_svm`): its decision on the grid, and
    its support vectors and accuracies as the panel's (:func:`kernelviz.pipeline.svm_scores`).

    ``decision(support, dual, intercept)`` gives f on the grid from the support vectors (all the
    decision function reads), their dual coefficients and the intercept.
    """
    fit = pipeline.fit_svm(grams, gamma, C)
    clf = fit.clf
    values = decision(clf.support_, clf.dual_coef_[0], clf.intercept_[0])
    if not np.all(np.isfinite(values)):
        raise ValueError("the SVM's decision values are not finite numbers (the kernel over- or underflows here)")
    return values, pipeline.svm_scores(grams, fit)


class _Grams(pipeline.Grams):
    """The panel's Grams (:class:`kernelviz.pipeline.Grams`) with fast grid decision sums at any γ.

    The grid's ``exp``
    dominates the lattice's time and runs ~2.5× faster in float32, so the grid's D and
    log n are also kept in float32 and used whenever the error that brings to f,
    Σ|α| · max k · :data:`FLOAT32_KERNEL_ERROR`, stays within :data:`FLOAT32_TOLERANCE`;
    a fit with larger dual coefficients (small γ, large C: Σ|α| ~ 1e5) uses float64.
    """

    def __init__(self, kernel, prep: pipeline.Prepared, grid_model: np.ndarray):
        super().__init__(kernel, prep, grid_model)
        self.grid_model = grid_model
        self.grid_families = {}     # dtype → family of the grid against the training points
        if kernel.gamma_convertible:
            grid = self.families["grid"]
            if grid is not None:
                log_n = np.float32(grid.log_n) if np.isscalar(grid.log_n) else grid.log_n.astype(np.float32)
                self.grid_families = {np.float64: grid,
                                      np.float32: kv.kernels.GammaFamily(grid.D.astype(np.float32), log_n)}
                self.largest_kernel_value = float(np.exp(np.max(grid.log_n)))  # D ≥ 0, so k ≤ n

    def _float32_error(self, dual: np.ndarray) -> float:
        """Bound on the error float32 kernel values bring to f (Σ|α| · max k · 2⁻²³)."""
        return float(np.abs(dual).sum() * self.largest_kernel_value * FLOAT32_KERNEL_ERROR)

    def _dtype(self, dual: np.ndarray):
        if not self.grid_families:
            return None
        return np.float32 if self._float32_error(dual) <= FLOAT32_TOLERANCE else np.float64

    def _columns(self, gamma: float, columns: np.ndarray, dtype, rows: np.ndarray | None = None) -> np.ndarray:
        """The grid's kernel values (``rows`` of the grid, or all) against training points ``columns``."""
        if dtype is None:
            points = self.grid_model if rows is None else self.grid_model[rows]
            return kv.kernels.apply_in_chunks(pipeline.at_gamma(self.kernel, gamma), points,
                                              self.X_train[columns], lambda K: K)
        family = self.grid_families[dtype]
        D = np.take(family.D, columns, axis=1)
        log_n = family.log_n if np.isscalar(family.log_n) else np.take(family.log_n, columns, axis=1)
        if rows is not None:
            D = D[rows]
            if not np.isscalar(log_n) and log_n.shape[0] == family.D.shape[0]:
                log_n = log_n[rows]
        return kv.kernels.GammaFamily(D, log_n).gram(gamma, out=D)  # D is this call's own copy: reuse it

    def _exact_near_zero(self, values: np.ndarray, gamma: float, support: np.ndarray, dual: np.ndarray,
                         intercept: float, dtype) -> np.ndarray:
        """``values`` with the cells a float32 sum may have given the wrong sign (|f| within its
        error bound) computed again in float64: few cells, and the codec keeps every sign."""
        if dtype is not np.float32:
            return values
        rows = np.flatnonzero(np.abs(values) <= self._float32_error(dual))
        if rows.size:
            values[rows] = self._columns(gamma, support, np.float64, rows) @ dual + intercept
        return values

    def decision(self, gamma: float, support: np.ndarray, dual: np.ndarray, intercept: float) -> np.ndarray:
        """f = Σ_s dual_s k_γ(grid point, support vector s) + intercept at every grid point."""
        dtype = self._dtype(dual)
        K = self._columns(gamma, support, dtype)
        values = (K @ dual.astype(K.dtype)).astype(float) + intercept  # same dtypes: one BLAS call, no cast of K
        return self._exact_near_zero(values, gamma, support, dual, intercept, dtype)

    def decision_at(self, gamma: float):
        """:meth:`decision` at one γ for many fits: the grid's Gram is built once (per dtype)."""
        full = {}

        def decision(support: np.ndarray, dual: np.ndarray, intercept: float) -> np.ndarray:
            dtype = self._dtype(dual)
            if dtype not in full:
                full[dtype] = self._columns(gamma, np.arange(len(self.X_train)), dtype)
            weights = np.zeros(len(self.X_train), dtype=full[dtype].dtype)
            weights[support] = dual
            values = (full[dtype] @ weights).astype(float) + intercept
            return self._exact_near_zero(values, gamma, support, dual, intercept, dtype)

        return decision


def decision_fields(lattice: Lattice, kernels: Mapping[str, object], prep: pipeline.Prepared,
                    cancel: threading.Event | None = None) -> Iterator[Field | Failure]:
    """Each kernel's SVM decision field over the γ lattice (at the current C), then over the C lattice.

    Parameters
    ----------
    lattice : Lattice
        From :meth:`Lattice.decision`: the kernels, grid and axes.
    kernels : mapping of name → fitted kernel or :class:`Model`
        As the app fits them (:func:`kernelviz.pipeline.fit_kernel`), at any γ; a model's panel is
        its own (:func:`kernelviz.pipeline.model_panel`).
    prep : kernelviz.pipeline.Prepared
        The SVM trains on its training points; the grid is mapped to model space.
    cancel : threading.Event, optional
        Checked before every fit: once set, the generator stops.

    Yields
    ------
    Field or Failure
        Kernel by kernel; a kernel that fails at any value yields one :class:`Failure`
        and the next kernel goes on.

    Raises
    ------
    ValueError
        As :func:`check_inputs`.
    """
    check_inputs(lattice, kernels, prep, kind="decision")
    y_train = prep.y[prep.train]
    classes = np.unique(y_train)
    if len(classes) != lattice.classes:
        raise ValueError(f"The lattice was made for {lattice.classes} classes, but the training points hold "
                         f"{len(classes)}: make it with classes=training_classes(prep).")
    lattice.points = prep.X_view[prep.train].astype(np.float32)  # where each value's support vectors are
    svms = {name: kernels[name] for name in lattice.names if not isinstance(kernels[name], Model)}
    models = {name: kernels[name] for name in lattice.names if isinstance(kernels[name], Model)}
    grid_model = prep.to_model(lattice.grid.points)
    # the kernels first: an SVM's fields take milliseconds each, a model's fit may take a second
    yield from (_class_fields if len(classes) > 2 else _binary_fields)(lattice, svms, prep, grid_model, cancel)
    for name, model in models.items():
        if cancel is not None and cancel.is_set():
            return
        yield from _model_fields(lattice, name, model, prep, cancel)


def _binary_fields(lattice: Lattice, kernels: Mapping[str, object], prep: pipeline.Prepared, grid_model: np.ndarray,
                   cancel: threading.Event | None) -> Iterator[Field | Failure]:
    """:func:`decision_fields` of SVMs on two classes: f itself (see the module notes)."""
    codec = lattice.codec
    for name in kernels:
        todo = {axis: [i for i in range(len(values)) if not lattice.has(name, axis, i)]
                for axis, values in lattice.axes.items()}
        if not any(todo.values()):
            continue  # all of it reused (Lattice.reuse)
        try:
            grams = _Grams(kernels[name], prep, grid_model)
            gamma_now, C_now = 10.0 ** lattice.log_gamma, 10.0 ** lattice.log_C
            for i in todo["log_gamma"]:
                if cancel is not None and cancel.is_set():
                    return
                gamma = 10.0 ** lattice.axes["log_gamma"][i]
                values, scores = _svm_decision(grams, gamma, C_now,
                                               lambda sv, dual, b, g=gamma: grams.decision(g, sv, dual, b))
                yield Field(name, "log_gamma", i, lattice.grid.reshape(codec.encode(values)), scores=scores)
            if todo["log_C"]:
                decision_now = grams.decision_at(gamma_now)
            for i in todo["log_C"]:
                if cancel is not None and cancel.is_set():
                    return
                values, scores = _svm_decision(grams, gamma_now, 10.0 ** lattice.axes["log_C"][i], decision_now)
                yield Field(name, "log_C", i, lattice.grid.reshape(codec.encode(values)), scores=scores)
        except ValueError as err:
            yield Failure(name, _failure_sentence(err))


@dataclass(frozen=True)
class Model:
    """A model of ``kv.models`` in a decision lattice, with the settings its panel takes besides γ and C."""

    name: str
    seed: int
    log_eta: float = -4.0
    unit_kernel: str = "rbf-ppk"

    def panel(self, prep: pipeline.Prepared, grid: fg.Grid, log_gamma: float, log_C: float) -> fg.BoundaryPanel:
        return pipeline.model_panel(self.name, prep, grid, log_gamma, log_C, self.seed, self.log_eta, self.unit_kernel,
                                    lines=False)

    def takes(self, setting: str) -> bool:
        """Whether the model's fit depends on ``setting`` ("gamma" or "C")."""
        return setting in kv.models.MODELS[self.name][0]().get_params()


def panel_codes(panel: fg.BoundaryPanel, grid: fg.Grid) -> tuple[np.ndarray, float]:
    """A decision panel's field as a lattice stores it: (codes, scale) — class indices, f (an SVM's,
    which saturates within ±3) or f / scale (a model without margins, see the module notes)."""
    values = np.asarray(panel.values)
    if panel.multiclass:
        return grid.reshape(values.astype(np.uint8)), 1.0
    scale = 1.0
    if not panel.margins:
        finite = np.abs(values[np.isfinite(values)])
        spread = float(np.percentile(finite, 95)) if finite.size else 0.0
        scale = spread if spread > 0 else 1.0
    return grid.reshape(CODECS["decision"].encode(values / scale)), scale


def _model_fields(lattice: Lattice, name: str, model: Model, prep: pipeline.Prepared,
                  cancel: threading.Event | None) -> Iterator[Field | Failure]:
    """A model's decision fields over both axes, each from its own panel function; along an axis
    the model does not take (MPM has no C), one fit serves every value."""
    try:
        for axis, setting in (("log_gamma", "gamma"), ("log_C", "C")):
            todo = [i for i in range(len(lattice.axes[axis])) if not lattice.has(name, axis, i)]
            same = None
            for i in todo:
                if cancel is not None and cancel.is_set():
                    return
                if same is None or model.takes(setting):
                    value = lattice.axes[axis][i]
                    log_gamma, log_C = (value, lattice.log_C) if axis == "log_gamma" else (lattice.log_gamma, value)
                    if not model.takes(setting):  # at the lattice's own values: the figure's fit
                        log_gamma, log_C = lattice.log_gamma, lattice.log_C
                    panel = model.panel(prep, lattice.grid, log_gamma, log_C)
                    same = (*panel_codes(panel, lattice.grid), pipeline.panel_scores(panel))
                yield Field(name, axis, i, *same)
    except ValueError as err:
        yield Failure(name, _failure_sentence(err))


def training_classes(prep: pipeline.Prepared) -> int:
    """How many classes the SVMs of a decision lattice train on."""
    return len(np.unique(prep.y[prep.train]))


# ============================================================================ a live view's request

def page_kernels(kind: str, values: Mapping, drawn: Sequence[str],
                 kernel_of: Callable[[str], object]) -> tuple[dict, dict]:
    """What a live view's lattice previews, from the names of the panels its figure drew (``drawn``,
    in the figure's order): name → fitted kernel (``kernel_of(name)``) or :class:`Model`, and name →
    its spec (:class:`kernelviz.pipeline.KernelSpec`, a model's :class:`Model`), which names the
    lattice in the disk cache. One function for the view and ``kernelviz warm``, so that a lattice
    warmed before class is the one the page asks for."""
    names = [name for name in drawn if name in values["kernels"]]
    kernels = {name: kernel_of(name) for name in names}
    specs: dict = {name: pipeline.KernelSpec.from_settings(name, values) for name in names}
    if kind == "decision":
        models = {name: Model(name, values["partition_seed"], values["log_eta"], values["unit_kernel"])
                  for name in drawn if name in values["models"]}
        kernels.update(models)
        specs.update(models)
    return kernels, specs


def page_lattice(kind: str, prep: pipeline.Prepared, names: Sequence[str], grid: fg.Grid, log_gamma: float,
                 log_C: float | None = None, reference: tuple[float, float] | None = None) -> Lattice:
    """The empty lattice a live view asks for at its committed values (filled by :class:`LatticeJob`)."""
    if kind == "decision":
        return Lattice.decision(list(names), grid, log_gamma, log_C, classes=training_classes(prep))
    return Lattice.similarity(list(names), grid, log_gamma, reference)


def _class_fields(lattice: Lattice, kernels: Mapping[str, object], prep: pipeline.Prepared, grid_model: np.ndarray,
                  cancel: threading.Event | None) -> Iterator[Field | Failure]:
    """:func:`decision_fields` for more than two classes: each cell's predicted class (one-vs-one
    vote, as :func:`kernelviz.pipeline.boundary_panel`), its index among the training classes."""
    from kernelviz import _svm

    y_train = prep.y[prep.train]
    classes = np.unique(y_train)
    everyone = np.arange(len(y_train))

    def predicted(grams: _Grams, gamma: float, C: float, grid_against) -> tuple[np.ndarray, pipeline.PanelScores]:
        fit = pipeline.fit_svm(grams, gamma, C)
        labels = _svm.predict(fit.clf, grid_against(fit.clf.support_))
        return (lattice.grid.reshape(np.searchsorted(classes, labels).astype(np.uint8)),
                pipeline.svm_scores(grams, fit))

    for name in kernels:
        todo = {axis: [i for i in range(len(values)) if not lattice.has(name, axis, i)]
                for axis, values in lattice.axes.items()}
        if not any(todo.values()):
            continue
        try:
            grams = _Grams(kernels[name], prep, grid_model)
            exact = np.float64 if grams.grid_families else None  # classes from float64 kernel values, as the panel's
            for i in todo["log_gamma"]:
                if cancel is not None and cancel.is_set():
                    return
                gamma = 10.0 ** lattice.axes["log_gamma"][i]
                codes, scores = predicted(grams, gamma, 10.0 ** lattice.log_C,
                                          lambda sv, g=gamma: grams._columns(g, sv, exact))
                yield Field(name, "log_gamma", i, codes, scores=scores)
            if todo["log_C"]:
                gamma_now = 10.0 ** lattice.log_gamma
                full = grams._columns(gamma_now, everyone, exact)
            for i in todo["log_C"]:
                if cancel is not None and cancel.is_set():
                    return
                codes, scores = predicted(grams, gamma_now, 10.0 ** lattice.axes["log_C"][i], lambda sv: full[:, sv])
                yield Field(name, "log_C", i, codes, scores=scores)
        except ValueError as err:
            yield Failure(name, _failure_sentence(err))


def check_inputs(lattice: Lattice, kernels: Mapping[str, object], prep: pipeline.Prepared,
                 kind: str | None = None) -> None:
    """Refuse inputs a lattice cannot be computed from, before any work.

    Parameters
    ----------
    lattice : Lattice
    kernels : mapping of name → fitted kernel
    prep : kernelviz.pipeline.Prepared
    kind : {"decision", "similarity"}, optional
        The kind of lattice the caller computes (any when None).

    Raises
    ------
    ValueError
        When the lattice is of another kind, a kernel is missing, or (decision fields) the
        training points do not hold two classes.
    """
    if kind is not None and lattice.kind != kind:
        raise ValueError(f"{kind}_fields needs a {kind} lattice (Lattice.{kind}); got a {lattice.kind} lattice.")
    missing = [name for name in lattice.names if name not in kernels]
    if missing:
        raise ValueError(f"No fitted kernel given for {', '.join(missing)}: pass one per name of the lattice.")
    if lattice.kind == "decision" and len(np.unique(prep.y[prep.train])) < 2:
        raise ValueError("An SVM needs labeled training points of at least two classes: label more points or draw "
                         "points of both classes.")


def _failure_sentence(err: ValueError) -> str:
    text = str(err).strip() or type(err).__name__
    return f"no live preview: {text[0].lower() + text[1:]}"


# ============================================================================ similarity fields

def _diagonal_family(kernel, points: np.ndarray, block: int = 256) -> kv.kernels.GammaFamily:
    """D and log n of k(p, p) for every point, from small diagonal blocks (as ``views.kernel_diagonal``)."""
    D, log_n = [], []
    for start in range(0, len(points), block):
        family = kernel.gamma_family(points[start:start + block])
        D.append(np.diag(family.D))
        log_n.append(np.full(len(D[-1]), family.log_n) if np.isscalar(family.log_n) else np.diag(family.log_n))
    return kv.kernels.GammaFamily(np.concatenate(D), np.concatenate(log_n))


def similarity_fields(lattice: Lattice, kernels: Mapping[str, object], prep: pipeline.Prepared,
                      cancel: threading.Event | None = None) -> Iterator[Field | Failure]:
    """Each kernel's dissimilarity from the lattice's reference point, over the γ lattice (module notes).

    The same numbers as :func:`kernelviz.pipeline.similarity_panel` at each γ; γ-convertible
    kernels compute D and log n (grid against reference, and the grid's diagonal) once.

    Parameters
    ----------
    lattice : Lattice
        From :meth:`Lattice.similarity`.
    kernels : mapping of name → fitted kernel
    prep : kernelviz.pipeline.Prepared
        Maps the plot plane to model space.
    cancel : threading.Event, optional
        Checked before every γ: once set, the generator stops.

    Yields
    ------
    Field or Failure
    """
    check_inputs(lattice, kernels, prep, kind="similarity")
    grid_model = prep.to_model(lattice.grid.points)
    reference = prep.to_model(np.asarray([lattice.reference], dtype=float))
    codec = lattice.codec
    for name in lattice.names:
        kernel = kernels[name]
        todo = [i for i in range(len(lattice.axes["log_gamma"])) if not lattice.has(name, "log_gamma", i)]
        if not todo:
            continue  # all of it reused (Lattice.reuse)
        try:
            if kernel.gamma_convertible:
                to_reference = kernel.gamma_family(grid_model, reference)
                at_reference = kernel.gamma_family(reference)
                diagonal = _diagonal_family(kernel, grid_model)
            for i in todo:
                if cancel is not None and cancel.is_set():
                    return
                gamma = 10.0 ** lattice.axes["log_gamma"][i]
                if kernel.gamma_convertible:
                    k_gr, k_rr, k_gg = (to_reference.gram(gamma)[:, 0], float(at_reference.gram(gamma)[0, 0]),
                                        diagonal.gram(gamma))
                else:
                    k = pipeline.at_gamma(kernel, gamma)
                    k_gr = kv.kernels.apply_in_chunks(k, grid_model, reference, lambda K: K[:, 0])
                    k_rr, k_gg = float(k(reference)[0, 0]), pipeline.kernel_diagonal(k, grid_model)
                dissimilarity, _ = pipeline.dissimilarity_from_kernel(k_gr, k_rr, k_gg, gamma)  # NaN where undefined
                scale = dissimilarity_scale(dissimilarity)
                yield Field(name, "log_gamma", i, lattice.grid.reshape(codec.encode(dissimilarity / scale)), scale)
        except ValueError as err:
            yield Failure(name, _failure_sentence(err))


def dissimilarity_scale(dissimilarity: np.ndarray) -> float:
    """The largest finite dissimilarity of a field (1 when there is none): what its codes are shares of."""
    finite = dissimilarity[np.isfinite(dissimilarity)]
    largest = float(finite.max()) if finite.size else 0.0
    return largest if largest > 0 else 1.0


# ============================================================================ in a background thread

#: How each kind of lattice is filled.
FIELDS = {"decision": decision_fields, "similarity": similarity_fields}


def disk_key(lattice: Lattice, data_key: str, specs: Sequence) -> str:
    """The disk cache's name (:mod:`kernelviz._diskcache`) of ``lattice`` filled on the data of
    ``data_key`` (``Prepared.key``, which names drawn and uploaded points by their content) by the
    kernels and models of ``specs`` (a :class:`kernelviz.pipeline.KernelSpec` or :class:`Model` per
    name, in ``lattice.names``' order): every session and server that asks for the same lattice finds it."""
    grid = lattice.grid
    span = (lattice.kind, lattice.names, lattice.classes, lattice.log_gamma, lattice.log_C, lattice.reference,
            (float(grid.xs[0]), float(grid.xs[-1]), len(grid.xs), float(grid.ys[0]), float(grid.ys[-1]), len(grid.ys)),
            tuple((axis, tuple(float(v) for v in values)) for axis, values in lattice.axes.items()))
    return _diskcache.key("live lattice", data_key, tuple(specs), span, code=__name__)


class LatticeJob(BackgroundJob):
    """Fills a lattice in a daemon thread, so the page stays usable; :meth:`cancel` stops it
    before the next lattice value (what is done stays in the lattice).

    The lattice is filled in place: read ``job.lattice.to_browser()`` at any time (kernels
    not ready yet are sent as not ready). A bug in the computation is kept in :attr:`error`
    and raised again by :meth:`result`.

    Parameters
    ----------
    lattice : Lattice
        Empty, from :meth:`Lattice.decision` or :meth:`Lattice.similarity`.
    kernels : mapping of name → fitted kernel
    prep : kernelviz.pipeline.Prepared
    delay : float
        Seconds to wait before computing (see :class:`kernelviz._background.BackgroundJob`).
    disk_key : str, optional
        The lattice's name in the disk cache (:func:`disk_key`): a lattice stored there by any
        session or server is taken instead of computed, and a lattice computed whole is stored.
    """

    #: One lattice computes at a time, whatever the sessions: on two cores, eight sessions'
    #: lattices at once starved the page runs, the browser and the server's event loop (the health
    #: endpoint answered after seconds, sessions stuck; ``benchmarks/bench_sessions.py``). A newer
    #: request cancels a waiting one (:class:`kernelviz.ui.live.LiveLattices`).
    gate = threading.BoundedSemaphore(1)

    def __init__(self, lattice: Lattice, kernels: Mapping[str, object], prep: pipeline.Prepared, *,
                 delay: float = 0.0, disk_key: str | None = None):
        super().__init__(name=f"kernelviz-lattice-{lattice.kind}", delay=delay)
        self.lattice, self.disk_key = lattice, disk_key
        check_inputs(lattice, kernels, prep)  # bad input is refused in the caller's thread, not lost in this one
        self._fields = FIELDS[lattice.kind](lattice, kernels, prep, cancel=self._cancel)
        self._start()

    def _work(self) -> None:
        stored = _diskcache.cache().get(self.disk_key) if self.disk_key is not None else None
        if isinstance(stored, Lattice) and stored.complete:
            self.lattice.take(stored)
            return
        for item in self._fields:
            self.lattice.add(item)
        if self.disk_key is not None and self.lattice.complete and not self.cancelled:
            _diskcache.cache().put(self.disk_key, self.lattice)

    def result(self, timeout: float | None = None) -> Lattice:
        """Wait for the thread (at most ``timeout`` s) and return the lattice; re-raise its error."""
        self.wait(timeout)
        return self.lattice


# ============================================================================ the default view, as the app builds it

def default_inputs(n_samples: int | None = None, names: Sequence[str] | None = None,
                   resolution: int = 80) -> tuple[dict, pipeline.Prepared, fg.Grid]:
    """Fitted kernels, prepared data and a boundary grid for the app's default settings.

    Built as the app builds them (generator data, scaling, label choice, test hold-out,
    partition, kernels fitted on every point), for the demo app, tests and benchmarks.

    Parameters
    ----------
    n_samples : int, optional
        Points of the default generator (its own default when None).
    names : sequence of str, optional
        Kernels (the app's default kernels when None).
    resolution : int
        Grid cells along the longer side.

    Returns
    -------
    (kernels, prep, grid)
    """
    values = kvstate.defaults()
    if n_samples is not None:
        values["gen_params"] = {"n_samples": n_samples}
    prep = pipeline.prepared(values)
    partition = pipeline.partition_of(values, prep)
    names = tuple(values["kernels"] if names is None else names)
    kernels = {name: pipeline.fit_kernel(pipeline.KernelSpec.from_settings(name, values), prep, partition)
               for name in names}
    return kernels, prep, fg.grid_over(prep.X_view, resolution)
