"""What every paper's runner shares: settings, progress with time estimates, measurements and
data checks. The entry point that runs a paper's tables, :func:`kernelviz.reproduce.driver.run`,
sits above the papers' runners (it reads their registry; they read this module).

A runner computes *cells* (one outer split of one model on one data set, or one whole
(C, γ) grid where the public grid engine does the folds) through the
:class:`~kernelviz.reproduce.store.ResultStore`, so finished cells survive an interrupted
run, and then turns cells into :class:`Measurement` s that line up with the paper's table.
"""
from __future__ import annotations

import dataclasses
import json
import signal
import threading
import time
from dataclasses import dataclass, field
from importlib.metadata import version as _version_of

import numpy as np
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_info

from .. import _validation
from . import datasets as _datasets
from . import published as _published
from kernelviz import _codeversion as _version
from .store import CellKey, ResultStore

__all__ = ["PaperRunners", "Settings", "Progress", "Measurement", "RunResult", "Context", "Interrupted", "require_folds",
           "RESULT_FORMAT", "class_counts", "part", "plain"]

#: The form of what runners store per cell, part of every key (:meth:`Settings.fingerprint`).
#: Bumped when a runner stores more: format 2 added each partition's predicted and true class
#: counts (the diagnostics need them), so a cell stored in format 1 is computed again rather than
#: read without them. Format 3: CkRBF's grids keep every fold's score and the predicted class counts
#: of their best cells, and the MCPM / CKSVMNDA cells their training and test times. Format 3 is
#: the last: since then every key carries the code version, which any change to what a runner
#: stores changes too (the plateaus of tied candidates, CkRBF's capped fits per grid cell).
RESULT_FORMAT = 3
#: The format of the cells stored before cells carried a code version (read by ``earlier_code``).
EARLIER_FORMAT = 2


class EarlierCodeMissing(ValueError):
    """A cell asked for in ``earlier_code`` mode that earlier code did not store: nothing is
    computed in that mode, since today's code would store it under the earlier code's name."""


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
    #: Read-only: report the cells stored by the code before cells carried a code version (and
    #: format 2 of what they record), judged by today's verdicts; compute nothing (a cell that is
    #: not stored raises :class:`EarlierCodeMissing`). The report says so at its head.
    earlier_code: bool = False

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

    def fingerprint(self) -> str:
        """Every setting that shapes a result, as canonical JSON: part of every cell's key.

        Runners spell the values they resolve (grids, folds, partition sizes) into their keys
        too; this covers what they do not, so that a cell computed under other settings is never
        read as this run's. ``n_jobs`` is left out: the workers change how fast a cell is
        computed, not its result, and a run resumed with more workers reuses the cells.
        """
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                  if f.name not in ("n_jobs", "earlier_code")}
        fields["grids"] = {str(name): [float(v) for v in np.atleast_1d(values)]
                           for name, values in sorted(self.grids.items())}
        fields["results"] = EARLIER_FORMAT if self.earlier_code else RESULT_FORMAT
        return json.dumps(fields, sort_keys=True, separators=(",", ":"))


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


#: The libraries whose numbers a cell's computation runs through, by their distribution names.
LIBRARIES = ("numpy", "scipy", "scikit-learn")


def environment() -> dict:
    """What a cell's numbers depend on besides kernelviz's code (which its key's code version names):
    the numerical libraries' versions, and the BLAS threads in effect (the most any loaded BLAS uses).

    Recorded with every cell computed since 2026-11-29. The code version alone did not tell two runs
    apart: the MCPM paper's run of 2026-11-28 gave SCM(RBF-PPK) on a Twonorm partition 0.9730 where its
    own code, run a day later in a Python environment installed again, gives 0.9797 at the same
    parameters; and its CPU times counted a second BLAS thread's waiting (docs/reproduction/mcpm)."""
    threads = [lib["num_threads"] for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return {**{name: _version_of(name) for name in LIBRARIES}, "blas_threads": max(threads, default=1)}


@dataclass
class _Tally:
    """The cells finished (computed, or read from the store) and those computed, over a context's
    trackers: what an interrupted run says it kept. Sets of key digests, since CkRBF's tables
    read the same stored grids, and a cell is one file however many tables use it."""

    done: set = field(default_factory=set)
    #: digest → the seconds the cell took to compute, whenever that was (cells stored before
    #: cells recorded it have none)
    seconds: dict = field(default_factory=dict)
    #: digest → the cell's :func:`environment` (cells stored before cells recorded it have none)
    environments: dict = field(default_factory=dict)
    computed: set = field(default_factory=set)


class RunningClock:
    """Seconds the process has run, leaving out the time it was stopped (SIGSTOP, Ctrl-Z).

    A cell's computing time is read off this clock: a full protocol runs for hours in the
    background, and a run paused for an hour while the machine measures something else must not
    report that hour as the cell's. A daemon thread ticks every ``tick`` seconds. A gap between
    two ticks longer than ``gap`` in which the process used almost no CPU is a stop, and all of
    it but one tick is left out. (A thread waiting for the CPU on a loaded machine is late by far
    less; one kept from ticking by C code that holds the GIL sees that code's CPU time.)
    """

    def __init__(self, tick: float = 0.5, gap: float = 5.0):
        self.tick_seconds, self.gap = tick, gap
        self.stopped = 0.0
        self._last = None  # (wall, process CPU) at the last tick
        self._lock = threading.Lock()
        self._thread = None

    def tick(self, now: float, cpu: float) -> None:
        with self._lock:
            if self._last is not None:
                wall, used = now - self._last[0], cpu - self._last[1]
                if wall > self.gap and used < 0.1 * wall:
                    self.stopped += wall - self.tick_seconds
            self._last = (now, cpu)

    def now(self) -> float:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="kernelviz-running-clock")
                self._thread.start()
        current = time.monotonic()
        self.tick(current, time.process_time())  # a stop that has just ended counts before the reading
        return current - self.stopped

    def _run(self) -> None:
        while True:
            self.tick(time.monotonic(), time.process_time())
            time.sleep(self.tick_seconds)


#: The clock of every cell's ``seconds``.
CLOCK = RunningClock()


@dataclass
class _Column:
    """One column's cells in a tracker (a model, or a model's grid points)."""

    cells: int = 0  # finished: computed, or read from the store
    computed: int = 0
    computing: float = 0.0  # seconds the computed ones took now
    timed: int = 0  # cells that recorded their computing time, whenever it was
    recorded: float = 0.0  # the sum of those times


class _Tracker:
    """Counts cells of one table on one data set and estimates the time left.

    Why not every cell's mean time × the cells left: columns differ by up to three orders of
    magnitude per cell (CkRBF's whole-grid cells against m_kRBF's one-point cells, CKSVMNDA's 240
    candidates against KFD's 4, a kernel MPM on 6,660 points against a 15-cluster model), so the
    mean over the columns done said 45× the time left (issue 32). Nor can a runner's declared
    costs stand for a column it has not run: candidates searched said LAP costs 3 times an RBF SVM's
    cell, and on RWM's rows it cost 4 to 100 times (``benchmarks/bench_progress.py`` replays stored
    runs). The runners therefore compute split by split, every column in each split (fold,
    partition or grid point), so that a row has measured every column early; and the estimate is
    each column's cells still to come at

    * that column's own pace in this row, once this row has computed one of its cells;
    * else, when an earlier row of the same paper and table laid out the same columns (``paces``,
      shared by a run's contexts), its time per cell there, scaled by this row's pace on the
      columns measured (rows differ in size, their columns less in proportion);
    * else, when the runner declared each column's planned cells and relative cost per cell
      (``costs``, e.g. candidates searched per cell), that cost, scaled the same way (by the
      columns declared alike when one of them is measured: RWM's GMM and RBF as its RWM column);
    * else (nothing planned) the pace of the column under way for every cell left.

    Only computed cells set the pace (stored ones cost nothing now); a row's profile uses every
    cell's recorded computing time, so a row read from the store still guides the next.
    """

    def __init__(self, callback, paper, table, dataset, total, tally=None, earlier_code=False, paces=None,
                 costs=None):
        self.callback, self.paper, self.table, self.dataset, self.total = callback, paper, table, dataset, total
        self.costs = costs or {}  # model -> (planned cells, relative cost per cell), as the runner declared
        if self.costs and sum(cells for cells, _ in self.costs.values()) != total:
            raise ValueError(f"{paper} table {table}, {dataset}: the declared costs plan "
                             f"{sum(cells for cells, _ in self.costs.values())} cells, not {total}.")
        self.earlier_code = earlier_code
        self.tally = _Tally() if tally is None else tally
        self.paces = {} if paces is None else paces
        self.start, self.done, self.computed, self.compute_seconds = time.perf_counter(), 0, 0, 0.0
        self.columns = {}  # model -> _Column, in the order the runner reached them
        self.last = None  # the column of the last computed cell
        self._emit()

    def _profile(self):
        """The earlier row's [(model, cells, seconds per cell)] when this row follows its layout so far."""
        profile = self.paces.get((self.paper, self.table, self.total))
        if profile is None or len(self.columns) > len(profile) or not all(seconds for _, _, seconds in profile):
            return None
        follows = all(model == seen and column.cells <= cells
                      for (model, cells, _), (seen, column) in zip(profile, self.columns.items()))
        return profile if follows else None

    def remaining(self):
        """Estimated computing seconds left; None before the first computed cell.

        Each column's cells still to come at that column's own pace where this row has computed
        some of it; else at its time per cell in the earlier row's profile, or at its declared
        relative cost, scaled by this row's pace on the columns it has measured."""
        if self.done == self.total:
            return 0.0
        if not self.computed:
            return None
        measured = {m: c.computing / c.computed for m, c in self.columns.items() if c.computed}
        profile = self._profile()
        if profile is not None:
            planned = {m: (cells, seconds) for m, cells, seconds in profile}
        elif self.costs:
            planned = self.costs
        else:  # nothing says what the columns to come cost: the pace of the column under way
            return measured.get(self.last, self.compute_seconds / self.computed) * (self.total - self.done)

        def pace(model, cost):
            """This row's pace per cell of ``model``: measured, else the plan's cost at the pace per unit
            of cost of the measured columns planned alike (else of all measured columns)."""
            if model in measured:
                return measured[model]
            alike = [m for m in measured if planned[m][1] == cost] or list(measured)
            return cost * sum(self.columns[m].computing for m in alike) / sum(
                self.columns[m].computed * planned[m][1] for m in alike)

        return sum(pace(m, cost) * (cells - (self.columns[m].cells if m in self.columns else 0))
                   for m, (cells, cost) in planned.items())

    def _emit(self):
        if self.callback is None:
            return
        elapsed = time.perf_counter() - self.start
        self.callback(Progress(self.paper, self.table, self.dataset, self.done, self.total, elapsed,
                               self.remaining()))

    def cell(self, store, key, compute):
        """``store.get_or_compute`` that also reports progress."""
        if self.costs and key.model not in self.costs:
            raise ValueError(f"{self.paper} table {self.table}, {self.dataset}: the declared costs do not name "
                             f"the column {key.model!r}.")
        column = self.columns.setdefault(key.model, _Column())
        result = store.get(key)
        if result is None and self.earlier_code:
            result = store.get_close(key)
        if result is None and self.earlier_code:
            raise EarlierCodeMissing(f"{self.paper} table {self.table}, {self.dataset}: a cell the earlier code did "
                                     "not store; --earlier-code reports stored cells only (run without it to "
                                     "compute every cell with today's code).")
        if result is None:
            started, written = CLOCK.now(), store.written
            # the cell keeps its own computing time: a full protocol's cells are computed over
            # several invocations, and each report sums them (RunResult.cell_seconds)
            result = {**compute(), "seconds": round(CLOCK.now() - started, 3), "environment": environment()}
            try:
                store.put(key, result)
            finally:  # a stop right after the write still counts the cell it stored
                if store.written > written:
                    self.tally.computed.add(key.digest())
                    self.tally.done.add(key.digest())
            spent = CLOCK.now() - started
            self.computed += 1
            self.compute_seconds += spent
            column.computed += 1
            column.computing += spent
            self.last = key.model
        else:
            self.tally.done.add(key.digest())
        if "seconds" in result:
            self.tally.seconds[key.digest()] = result["seconds"]
        if "environment" in result:
            self.tally.environments[key.digest()] = result["environment"]
            column.timed += 1
            column.recorded += result["seconds"]
        column.cells += 1
        self.done += 1
        if self.done == self.total and all(c.timed == c.cells for c in self.columns.values()):
            self.paces[self.paper, self.table, self.total] = [(model, c.cells, c.recorded / c.cells)
                                                              for model, c in self.columns.items()]
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
    data: str = ""  # SHA-256 of the row's points and labels (datasets.digest), set by run()
    parts: list = field(default_factory=list)  # one record per value (see part()): sizes, majority rate,
    #                                            predicted classes, chosen parameters
    grid: dict = field(default_factory=dict)  # parameter -> the values searched for it

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
                "selection": self.selection, "source": self.source, "data_digest": self.data,
                "capped_share": self.capped_share, "notes": list(self.notes), "parts": list(self.parts),
                "grid": {name: [plain(v) for v in values] for name, values in self.grid.items()}}


def plain(value):
    """A grid value or a chosen one as JSON has it: an int stays an int, anything else a float."""
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def class_counts(labels) -> dict:
    """{label: count} of ``labels``, labels written as text (JSON keys): ``1``, ``-1``, ``yes``."""
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    return {(f"{v:g}" if isinstance(v, (float, np.floating, int, np.integer)) else str(v)): int(c)
            for v, c in zip(values, counts)}


def part(train_sizes, test_labels, predicted=None, chosen=None, plateau=None) -> dict:
    """What a runner records beside one value of a :class:`Measurement`, for the diagnostics
    (:mod:`kernelviz.reproduce.diagnostics`) and the report's protocol of each row.

    Parameters
    ----------
    train_sizes : list of int
        The training part's size, one per test part the value averages (one for a train/test
        partition, k for a k-fold CV).
    test_labels : list of arrays
        The true labels of each of those test parts: their sizes and the majority rate (the
        accuracy of always predicting a test part's largest class, averaged over the parts as the
        value averages their accuracies).
    predicted : dict, optional
        {label: count} of the model's predictions on the test part(s); ``None`` when the
        runner does not see them (the grid engine keeps scores only).
    chosen : dict, optional
        The parameters selected for this value, by name as in :attr:`Measurement.grid`.
    plateau : list of dict, optional
        The parameters of every candidate tied with the best (``chosen`` among them), by the
        same names; ``None`` when the runner did not record them.
    """
    record = {"train": [int(n) for n in train_sizes], "test": [int(len(t)) for t in test_labels],
              "majority": float(np.mean([max(class_counts(t).values()) / len(t) for t in test_labels]))}
    if predicted is not None:
        record["predicted"] = dict(predicted)
    if chosen:
        record["chosen"] = {name: plain(v) for name, v in chosen.items()}
    if plateau:
        record["plateau"] = [{name: plain(v) for name, v in cell.items()} for cell in plateau]
    return record


@dataclass
class RunResult:
    """Everything a run produced: measurements, rows not run and why, store problems, the data
    each row was run on, and — when the run was stopped — what it finished before the stop."""

    paper: str
    settings: Settings
    measurements: list
    not_run: dict  # (table, row) -> reason
    problems: list
    seconds: float
    data: dict = field(default_factory=dict)  # (table, row) -> {"digest", "points", "features", "classes", "source"}
    interrupted: str = ""  # the signal that stopped the run ("SIGINT", "SIGTERM"); "" when it finished
    unfinished: dict = field(default_factory=dict)  # (table, row) -> its cells stored before the stop, or None
    #                                                 when the run did not reach the row
    cells: int = 0  # distinct cells finished by this run: computed, or read from the store
    computed: int = 0  # of which computed by this run
    cell_seconds: float = 0.0  # the computing time of those cells, whichever invocation computed them
    cells_timed: int = 0  # the cells that recorded it (cells stored before they did have none)
    code: str = ""  # the code version every cell of this run was computed by (version.code_version)
    #: [(environment, cells)]: each :func:`environment` the run's cells recorded, with how many recorded it
    environments: list = field(default_factory=list)
    #: table -> (computing seconds of the cells its rows read, cells that recorded them, cells); a cell
    #: read by several tables (CkRBF's grids) counts in each
    table_seconds: dict = field(default_factory=dict)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by SIGINT (Ctrl-C) or SIGTERM.

    A KeyboardInterrupt, so that whatever already lets Ctrl-C through cleanly (joblib's workers,
    the store's atomic writes) treats SIGTERM the same way once the command turns SIGTERM into
    this exception. :func:`run` raises it with ``result``, the :class:`RunResult` of the rows it
    finished before the stop (``result.interrupted`` names the signal), so the caller can still
    write their report; the finished cells are in the store either way.
    """

    def __init__(self, signum=signal.SIGINT, result=None, message=""):
        super().__init__(message)
        self.signum, self.result = int(signum), result

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name


@dataclass
class Context:
    """What a table runner receives."""

    paper: str
    table: str
    sources: dict  # row -> data source (bundled name, generator, path)
    settings: Settings
    store: ResultStore
    progress: object  # callable(Progress) or None
    data: dict = field(default_factory=dict)  # row -> {"digest", "points", "features", "classes"}, filled by load
    tally: _Tally = field(default_factory=_Tally)
    #: (paper, table, cells) -> the last finished row's columns and time per cell, shared by a run's
    #: contexts so that each row's time left is estimated from the rows before it (see _Tracker)
    paces: dict = field(default_factory=dict)
    code: str = ""  # the code version of the paper's cells (version.code_version), set on first use

    def code_version(self) -> str:
        """The version of the code that computes this paper's cells, part of every key ("" for the
        cells of earlier code, whose keys have none)."""
        if self.settings.earlier_code:
            return ""
        if not self.code:
            self.code = _version.code_version(f"kernelviz.reproduce.papers.{self.paper}")
        return self.code

    def tracker(self, row, total, costs=None):
        """The progress of ``total`` cells of ``row``; ``costs``: {model: (planned cells, relative cost
        per cell)}, for the estimate of the columns still to come (see :class:`_Tracker`)."""
        return _Tracker(self.progress, self.paper, self.table, row, total, self.tally, self.settings.earlier_code,
                        self.paces, costs)

    def load(self, row, n_samples=None):
        """The row's points, at most ``settings.max_points`` of them (stratified subset).

        Their digest is recorded here, where every runner gets its data, so that :meth:`key`
        keys each cell by the very arrays it is computed on.
        """
        X, y, _ = _datasets.resolve(self.sources[row], random_state=self.settings.seed, n_samples=n_samples)
        limit = self.settings.max_points
        if limit is not None and len(y) > limit:
            X, _, y, _ = train_test_split(X, y, train_size=limit, stratify=y, random_state=self.settings.seed)
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        self.data[row] = {"digest": _datasets.digest(X, y), "points": int(X.shape[0]), "features": int(X.shape[1]),
                          "classes": class_counts(y)}
        return X, y

    def key(self, row, *, table, dataset, split, model, cell, paper=None):
        """The :class:`CellKey` of a cell of ``row``: the runner's names, plus the digest of the
        row's data (as :meth:`load` returned it) and the settings' fingerprint."""
        if row not in self.data:
            raise RuntimeError(f"{self.paper} table {self.table}: a cell of {row!r} was keyed before its data "
                               "was loaded (Context.load), so its key could not name the data.")
        return CellKey(paper or self.paper, table, dataset, split, model, cell, data=self.data[row]["digest"],
                       protocol=self.settings.fingerprint(), code=self.code_version())

    def source(self, row):
        text = _datasets.describe_source(self.sources[row])
        if self.settings.max_points is not None:
            text += f", at most {self.settings.max_points} points (stratified subset)"
        return text


def require_folds(y, folds, paper, table, row, what="folds", spread=False):
    """ValueError naming the table and data set when a class is smaller than ``folds`` — with ``spread``
    (a split that spreads a small class one point per fold), when even the largest class is."""
    labels, counts = np.unique(y, return_counts=True)
    if len(labels) < 2:
        raise ValueError(f"{paper} table {table}, data set {row!r}: only one class; the protocol needs two.")
    short = np.argmax(counts) if spread else np.argmin(counts)
    if counts[short] < folds:
        which = " (the largest)" if spread else ""
        raise ValueError(
            f"{paper} table {table}, data set {row!r}: class {labels[short]:g}{which} has {counts[short]} points, fewer "
            f"than the {folds} {what} the protocol needs; give a larger data set or fewer folds."
        )


@dataclass(frozen=True)
class PaperRunners:
    """What can be reproduced of one paper, and with which data by default."""

    tables: dict  # table id -> callable(Context) -> list[Measurement]
    sources: dict  # row as the paper names it -> default data source
    missing: dict  # row -> why it has no default data
    not_reproducible: dict  # table id -> why it is not run
    #: the rows ``--quick`` runs by default (None: all): quick runs are CI's smoke test, kept under
    #: ten minutes on 2 cores; the other rows run in the full protocol, or when named with ``rows``.
    quick_rows: tuple | None = None
