"""What every paper's runner shares: settings, progress with time estimates, measurements,
data checks, and the entry point :func:`run`.

A runner computes *cells* (one outer split of one model on one data set, or one whole
(C, γ) grid where the public grid engine does the folds) through the
:class:`~kernelviz.reproduce.store.ResultStore`, so finished cells survive an interrupted
run, and then turns cells into :class:`Measurement` s that line up with the paper's table.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import train_test_split

from . import datasets as _datasets
from . import published as _published
from .store import ResultStore

__all__ = ["Settings", "Progress", "Measurement", "RunResult", "Context", "run", "require_folds"]


@dataclass(frozen=True)
class Settings:
    """How much work a run does. ``None`` means the paper's protocol (or its ``quick`` reduction).

    Attributes
    ----------
    quick : bool
        Fewer repetitions and coarser grids, as each runner states in its protocol.
    repetitions, folds, inner_folds : int, optional
        Outer repetitions (or random partitions), outer folds, folds of the model selection.
    grids : dict, optional
        Parameter name (``"C"``, ``"gamma"``, ``"eta"``, ...) → values, replacing a runner's grid.
    max_points : int, optional
        Use at most this many points of each data set (a stratified random subset).
    max_iter : int, optional
        libsvm's iteration cap in the grids (default: the protocol's, see a runner's
        ``max_iter``); fits that reach it are counted in every cell's capped share.
    n_jobs : int
        joblib workers for the grid engine.
    seed : int
        Seed of every split, subset and partition.
    """

    quick: bool = False
    repetitions: int | None = None
    folds: int | None = None
    inner_folds: int | None = None
    grids: dict = field(default_factory=dict)
    max_points: int | None = None
    max_iter: int | None = None
    n_jobs: int = 1
    seed: int = 0

    def pick(self, name, full, quick):
        value = getattr(self, name)
        if value is not None:
            return value
        return quick if self.quick else full

    def grid(self, name, full, quick):
        return np.asarray(self.grids.get(name, quick if self.quick else full), dtype=float)

    def describe(self) -> str:
        """'quick' or 'full', followed by whatever overrides the protocol's own values."""
        names = ("repetitions", "folds", "inner_folds", "max_points", "max_iter")
        overrides = [f"{name}={getattr(self, name)}" for name in names if getattr(self, name) is not None]
        overrides += [f"{name}={list(values)}" for name, values in self.grids.items()]
        return ("quick" if self.quick else "full") + (f" ({', '.join(overrides)})" if overrides else "")


@dataclass(frozen=True)
class Progress:
    """One report of a table's progress on one data set."""

    paper: str
    table: str
    dataset: str
    done: int
    total: int
    elapsed: float  # seconds since this table/data set started
    remaining: float | None  # estimated seconds left; None before the first computed cell

    def line(self) -> str:
        left = "?" if self.remaining is None else f"{self.remaining:.0f} s"
        return (f"{self.paper} table {self.table}, {self.dataset}: {self.done}/{self.total} cells, "
                f"{self.elapsed:.0f} s, about {left} left")


class _Tracker:
    """Counts cells of one table on one data set; the estimate uses computed cells only (stored
    ones cost nothing)."""

    def __init__(self, callback, paper, table, dataset, total):
        self.callback, self.paper, self.table, self.dataset, self.total = callback, paper, table, dataset, total
        self.start, self.done, self.computed, self.compute_seconds = time.perf_counter(), 0, 0, 0.0
        self._emit()

    def _emit(self):
        if self.callback is None:
            return
        elapsed = time.perf_counter() - self.start
        remaining = None
        if self.computed:
            remaining = self.compute_seconds / self.computed * (self.total - self.done)
        elif self.done == self.total:
            remaining = 0.0
        self.callback(Progress(self.paper, self.table, self.dataset, self.done, self.total, elapsed, remaining))

    def cell(self, store, key, compute):
        """``store.get_or_compute`` that also reports progress."""
        result = store.get(key)
        if result is None:
            started = time.perf_counter()
            result = compute()
            store.put(key, result)
            self.computed += 1
            self.compute_seconds += time.perf_counter() - started
        self.done += 1
        self._emit()
        return result


@dataclass
class Measurement:
    """kernelviz's number for one cell of a paper's table."""

    paper: str
    table: str
    row: str
    model: str
    metric: str
    values: list  # one per repetition / outer split
    protocol: str  # what was run, in words
    selection: str  # how parameters were chosen ("oracle" is said outright)
    source: str  # where the data came from
    capped_share: float | None = None  # share of libsvm fits stopped at max_iter
    variant: str = ""  # "" for the protocol run; a check experiment names itself here
    notes: list = field(default_factory=list)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values)) if self.values else float("nan")

    @property
    def sd(self) -> float | None:
        return float(np.std(self.values, ddof=1)) if len(self.values) > 1 else None

    def to_dict(self) -> dict:
        return {"paper": self.paper, "table": self.table, "row": self.row, "model": self.model,
                "metric": self.metric, "variant": self.variant, "mean": self.mean, "sd": self.sd,
                "n": len(self.values), "values": [float(v) for v in self.values], "protocol": self.protocol,
                "selection": self.selection, "source": self.source, "capped_share": self.capped_share,
                "notes": list(self.notes)}


@dataclass
class RunResult:
    """Everything a run produced: measurements, rows not run and why, store problems."""

    paper: str
    settings: Settings
    measurements: list
    not_run: dict  # (table, row) -> reason
    problems: list
    seconds: float


@dataclass
class Context:
    """What a table runner receives."""

    paper: str
    table: str
    sources: dict  # row -> data source (bundled name, generator, path)
    settings: Settings
    store: ResultStore
    progress: object  # callable(Progress) or None

    def tracker(self, row, total):
        return _Tracker(self.progress, self.paper, self.table, row, total)

    def load(self, row, n_samples=None):
        """The row's points, at most ``settings.max_points`` of them (stratified subset)."""
        X, y, _ = _datasets.resolve(self.sources[row], random_state=self.settings.seed, n_samples=n_samples)
        limit = self.settings.max_points
        if limit is not None and len(y) > limit:
            X, _, y, _ = train_test_split(X, y, train_size=limit, stratify=y, random_state=self.settings.seed)
        return np.asarray(X, dtype=float), np.asarray(y)

    def source(self, row):
        text = _datasets.describe_source(self.sources[row])
        if self.settings.max_points is not None:
            text += f", at most {self.settings.max_points} points (stratified subset)"
        return text


def require_folds(y, folds, paper, table, row, what="folds"):
    """ValueError naming the table and data set when a class is smaller than ``folds``."""
    labels, counts = np.unique(y, return_counts=True)
    if len(labels) < 2:
        raise ValueError(f"{paper} table {table}, data set {row!r}: only one class; the protocol needs two.")
    if counts.min() < folds:
        smallest = labels[np.argmin(counts)]
        raise ValueError(
            f"{paper} table {table}, data set {row!r}: class {smallest:g} has {counts.min()} points, fewer than the "
            f"{folds} {what} the protocol needs; give a larger data set or fewer folds."
        )


def run(paper, tables=None, data=None, out="reproduce-results", settings=None, progress=None, on_problem=None,
        rows=None):
    """Run ``paper``'s reproducible tables (or ``tables``) and return what they measured.

    Parameters
    ----------
    paper : {"ckrbf", "rwm", "mcpm", "cksvmnda"}
    tables : list of str, optional
        Table ids as the paper numbers them; all runnable tables by default.
    data : dict, optional
        Row (data set, as the paper names it, case-insensitive) → bundled name, generator or
        CSV / LIBSVM path; replaces or adds to the default sources.
    out : str or Path
        Folder of the result store; a second run with the same folder reuses finished cells.
    settings : Settings, optional
    progress : callable, optional
        Called with a :class:`Progress` after every cell.
    on_problem : callable, optional
        Called with a line for each corrupt or foreign file in the store.
    rows : list of str, optional
        Only these rows (data sets as the paper names them, case-insensitive).

    Raises
    ------
    ValueError
        Unknown paper, table or row; a data set that does not fit a table's protocol (the
        message names the table and the data set; cells finished before it stay stored).
    """
    from .papers import RUNNERS

    if paper not in RUNNERS:
        raise ValueError(f"Unknown paper {paper!r}; choose one of: {', '.join(RUNNERS)}.")
    runners = RUNNERS[paper]
    tables = list(runners.tables) if tables is None else [str(t) for t in tables]
    for table_id in tables:
        _published.table(paper, table_id)  # unknown table: ValueError naming the paper's tables
        if table_id not in runners.tables:
            raise ValueError(f"{paper} table {table_id} cannot be reproduced: {runners.not_reproducible[table_id]}")
    settings = settings or Settings()
    store = ResultStore(out, on_problem=on_problem)
    started = time.perf_counter()
    measurements, not_run = [], {}
    overrides = {str(k).lower(): v for k, v in (data or {}).items()}
    wanted = None if rows is None else {str(r).lower() for r in rows}
    known = {v.row.lower() for t in tables for v in _published.table(paper, t).values}
    unknown = (set(overrides) | (wanted or set())) - known
    if unknown:
        raise ValueError(f"{paper}: no table among {', '.join(tables)} has a row named "
                         f"{', '.join(sorted(unknown))}; rows are the data sets as the paper names them.")
    for table_id in tables:
        sources = {}
        for row in dict.fromkeys(v.row for v in _published.table(paper, table_id).values):
            if wanted is not None and row.lower() not in wanted:
                continue
            source = overrides.get(row.lower(), runners.sources.get(row))
            if source is None:
                not_run[table_id, row] = runners.missing.get(row, "no data: give a file with --data "
                                                                   f"'{row}=PATH'")
            else:
                sources[row] = source
        context = Context(paper, table_id, sources, settings, store, progress)
        measurements += runners.tables[table_id](context)
    return RunResult(paper, settings, measurements, not_run, store.problems, time.perf_counter() - started)
