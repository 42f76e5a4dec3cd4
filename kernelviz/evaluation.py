"""Evaluating kernels over a (C, γ) grid (docs/MATH.md §9).

* :func:`grid_search` — mean stratified k-fold CV accuracy of a C-SVM for every (C, γ),
  with the kernel's unsupervised part fitted once and every γ obtained by the
  γ-conversion K_γ = exp(log n − γ D) from one distance matrix D;
* :func:`pf_curve` and :func:`pf_auc` — the P_f(α) curve of the CkRBF paper and the
  area under it, in closed form;
* :func:`keerthi_lin` — the Keerthi–Lin line search on the (log γ, log C) plane;
* :func:`semi_supervised_splits` and :func:`semi_supervised_grid` — the protocol of the
  RWM paper: only a labeled subset of each training fold trains the SVM, the unsupervised
  model is fitted on the training fold (or, for comparison, on all points), and (C, γ) is
  chosen on training data only (:func:`validation_ratings`).

Work is spread with joblib. Whole tasks, each building one Gram and fitting all its C
values — one per (γ, fold), for lap and lppk one per γ — in one process, and with several
workers when each gets at least ``WHOLE_TASKS_PER_WORKER`` of them. With more workers than
that keeps busy, the fits are split, per round of γ values: the workers first build every (γ, fold)
Gram once (γ-convertible kernels: one exp on the fold's block of D, cut once by the
caller; lap, lppk: K_γ once per γ, then cut per fold), then the fit tasks read them —
one task per (C, γ, fold) for the larger C values (the smaller ones of a (γ, fold) share
one task), largest C first. Worker processes run with one BLAS / OpenMP thread
(threadpoolctl). Shared matrices reach local worker processes as memory-mapped files (a
file name per task, not a copy). The same calls run on a Dask cluster inside
``joblib.parallel_backend("dask")``; there the fold blocks of D are scattered to every
worker once before the tasks start, and each fold Gram once. ``GridResult.tasks``
records every task.
"""

from __future__ import annotations

import contextlib
import copy
import os
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field

import joblib
import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from . import _svm
from . import data as _data
from . import kernels as _kernels
from ._validation import check_labels, check_max_iter, check_points, check_positive_grid, check_unlabeled

__all__ = [
    "DEFAULT_MAX_ITER",
    "SELECTION_RULE",
    "SEMI_SUPERVISED_PROTOCOLS",
    "UNSUPERVISED_ON",
    "ROUND_BYTES",
    "WHOLE_TASKS_PER_WORKER",
    "GridResult",
    "GridTask",
    "KeerthiLinPath",
    "best_cell",
    "check_grid_inputs",
    "fit_kernel",
    "grid_search",
    "keerthi_lin",
    "pf_auc",
    "pf_curve",
    "semi_supervised_grid",
    "semi_supervised_splits",
    "validation_ratings",
]

#: libsvm iteration cap per fit. Kernels with a large scale (CkRBF's normaliser, see
#: docs/MATH.md §6) at large C can otherwise run for minutes; capped cells are
#: flagged in :attr:`GridResult.capped`.
DEFAULT_MAX_ITER = 1_000_000

#: The RWM paper's three experiments: how :func:`kernelviz.data.select_labeled` picks the
#: labeled subset of each training fold.
SEMI_SUPERVISED_PROTOCOLS = {
    "dense": ("dense_per_class", 4),  # 4 × number of classes, from high-density regions
    "10%": ("fraction", 0.1),
    "100%": ("all", None),
}

#: What the unsupervised model sees in :func:`semi_supervised_grid`: "train" — only the
#: training part of each outer fold (inductive, the RWM paper's protocol, the default);
#: "all" — every point of X, the test fold's features included (never its labels).
UNSUPERVISED_ON = ("train", "all")


# ----------------------------------------------------------------------------- results
@dataclass
class GridResult:
    """Cross-validated accuracies of one kernel over a (C, γ) grid.

    Attributes
    ----------
    kernel : str
        Kernel name.
    Cs, gammas : ndarray of shape (n_C,), (n_gamma,)
        The grid axes, in the order given.
    fold_scores : ndarray of shape (n_C, n_gamma, cv)
        Accuracy on each test fold (NaN for cells that were not evaluated).
    capped_folds : ndarray of bool, shape (n_C, n_gamma, cv)
        Fits where libsvm stopped at the iteration cap ``max_iter``; see also
        :attr:`capped`, :attr:`n_capped_cells` and :attr:`n_capped_fits`.
    cv : int
        Number of folds.
    random_state : int or None
        Seed of the fold shuffling.
    max_iter : int
        The libsvm iteration cap used.
    kernel_params : dict
        Extra kernel parameters.
    fitted_kernel : Kernel or None
        The kernel with its unsupervised part fitted (``None`` when it was fitted per fold,
        as in :func:`semi_supervised_grid` with ``unsupervised_on="train"``).
    protocol : str or None
        The semi-supervised protocol, for :func:`semi_supervised_grid` results.
    tasks : list of GridTask
        Every task of the run, in the order submitted: its γ index, fold, C indices and
        seconds (what ``benchmarks/bench_scaling.py`` replays on simulated workers).
    selection : dict or None
        :func:`semi_supervised_grid` only: the rule, the (C, γ) chosen per outer fold on
        training data with its rating and test accuracy, and their mean ``score`` — the
        protocol's result. (``best`` there is the oracle: see :attr:`oracle`.)
    """

    kernel: str
    Cs: np.ndarray
    gammas: np.ndarray
    fold_scores: np.ndarray
    capped_folds: np.ndarray
    cv: int
    random_state: int | None
    max_iter: int
    kernel_params: dict = field(default_factory=dict)
    fitted_kernel: object = None
    protocol: str | None = None
    tasks: list = field(default_factory=list)
    selection: dict | None = None

    @property
    def scores(self):
        """Mean accuracy over folds, shape (n_C, n_gamma)."""
        return self.fold_scores.mean(axis=-1)

    @property
    def std(self):
        """Standard deviation of the fold accuracies, shape (n_C, n_gamma)."""
        return self.fold_scores.std(axis=-1)

    @property
    def capped(self):
        """Cells where at least one fold's fit hit the iteration cap, shape (n_C, n_gamma)."""
        return self.capped_folds.any(axis=-1)

    @property
    def capped_share(self):
        """Share of each cell's fits that stopped at the iteration cap, shape (n_C, n_gamma).

        A capped fit's accuracy is that of an unfinished solution: a cell with a share
        above 0 is not a trustworthy measurement of its (C, γ).
        """
        return self.capped_folds.mean(axis=-1)

    @property
    def n_capped_cells(self):
        """Number of (C, γ) cells where at least one fold's fit hit the iteration cap."""
        return int(self.capped.sum())

    @property
    def n_capped_fits(self):
        """Number of libsvm fits that stopped at the iteration cap."""
        return int(self.capped_folds.sum())

    @property
    def best_index(self):
        """(i, j) of the best cell; ties go to the first cell in (C, γ) order."""
        return np.unravel_index(np.nanargmax(self.scores), self.scores.shape)

    @property
    def best(self):
        """(C, γ, score) of the best cell (for a semi-supervised result, the :attr:`oracle`)."""
        i, j = self.best_index
        return float(self.Cs[i]), float(self.gammas[j]), float(self.scores[i, j])

    @property
    def oracle(self):
        """(C, γ, score) of the cell best on the test folds' accuracies.

        For :func:`semi_supervised_grid`, whose ``fold_scores`` are test accuracies, this
        cell was chosen by looking at the test folds: an optimistic bound, not a result
        (the result is ``selection["score"]``). For :func:`grid_search` it is :attr:`best`.
        """
        return self.best

    def to_frame(self):
        """One row per (C, γ) cell: C, gamma, score, std, capped_folds, capped_share and fold accuracies.

        Returns
        -------
        pandas.DataFrame
        """
        i, j = np.meshgrid(np.arange(len(self.Cs)), np.arange(len(self.gammas)), indexing="ij")
        i, j = i.ravel(), j.ravel()
        frame = pd.DataFrame({
            "kernel": self.kernel,
            "C": self.Cs[i],
            "gamma": self.gammas[j],
            "score": self.scores[i, j],
            "std": self.std[i, j],
            "capped_folds": self.capped_folds.sum(axis=-1)[i, j],
            "capped_share": self.capped_share[i, j],
        })
        for fold in range(self.cv):
            frame[f"fold_{fold}"] = self.fold_scores[i, j, fold]
        return frame

    def to_csv(self, path_or_buf=None):
        """Write :meth:`to_frame` as CSV; returns the text when ``path_or_buf`` is None."""
        return self.to_frame().to_csv(path_or_buf, index=False)

    def to_dict(self):
        """A JSON-serialisable summary (grid axes, scores, capped cells and shares, best cell, tasks)."""
        C, gamma, score = self.best
        chosen = ({"best": {"C": C, "gamma": gamma, "score": score}} if self.selection is None else
                  {"selection": self.selection,
                   "oracle": {"C": C, "gamma": gamma, "score": score,
                              "note": "picked on test accuracy: optimistic, not a result"}})
        return {
            "kernel": self.kernel,
            "kernel_params": {key: _json_safe(value) for key, value in self.kernel_params.items()},
            "protocol": self.protocol,
            "cv": self.cv,
            "random_state": self.random_state,
            "max_iter": self.max_iter,
            "Cs": self.Cs.tolist(),
            "gammas": self.gammas.tolist(),
            "scores": self.scores.tolist(),
            "std": self.std.tolist(),
            "capped": self.capped.tolist(),
            "capped_share": self.capped_share.tolist(),
            "n_capped_cells": self.n_capped_cells,
            "n_capped_fits": self.n_capped_fits,
            **chosen,
            "tasks": [{**asdict(task), "C_indices": list(task.C_indices)} for task in self.tasks],
        }


def _json_safe(value):
    """A kernel parameter as JSON can hold it (unknown objects by their repr)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return repr(value)


# ----------------------------------------------------------------------------- validation
def _check_scores(scores, name="scores"):
    if isinstance(scores, GridResult):
        scores = scores.scores
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size == 0:
        raise ValueError(f"{name} is empty.")
    if not np.all(np.isfinite(scores)) or np.any(scores < 0) or np.any(scores > 1):
        raise ValueError(f"{name} must be accuracies between 0 and 1 without NaN.")
    return scores


# ----------------------------------------------------------------------------- libsvm fits
def _fit_and_score(K_train, y_train, K_test, y_test, C, max_iter):
    """Accuracy of one precomputed-kernel C-SVM, and whether libsvm hit the iteration cap."""
    svc = _svm.fit_svm(K_train, y_train, C=C, max_iter=max_iter)
    accuracy = np.mean(svc.predict(K_test) == y_test)
    return accuracy, _svm.reached_iteration_cap(svc)


def _score_Cs(K_train, y_train, K_test, y_test, Cs, max_iter):
    results = [_fit_and_score(K_train, y_train, K_test, y_test, C, max_iter) for C in Cs]
    accuracies, capped = zip(*results)
    return np.array(accuracies), np.array(capped)


def _fold_block(M, train, test):
    """Rows train then test, columns train, of the square matrix M."""
    # two takes are ~2x faster than M[np.ix_(rows, train)]
    return M.take(train, axis=1).take(np.concatenate((train, test)), axis=0)


def _fold_blocks(D, log_n, train, test):
    """:func:`_fold_block` of D and of log n (log n may be a scalar)."""
    return _fold_block(D, train, test), log_n if np.ndim(log_n) == 0 else _fold_block(log_n, train, test)


#: Bytes of fold Grams one round of a parallel run holds: each γ of the round has its
#: K_γ block for every fold built once, kept (memory-mapped files locally, worker memory
#: under Dask) while that round's fit tasks read them. n = 2000, 5 folds: 128 MB per γ.
ROUND_BYTES = 1024 * 2**20

#: A parallel run gives each worker whole tasks (a Gram built and all its C values fitted)
#: when there are at least this many per worker, and splits the fits otherwise (:func:`_splits_fits`).
WHOLE_TASKS_PER_WORKER = 8


@dataclass(frozen=True)
class GridTask:
    """One task of a grid run: fits of some C values at one γ on one fold, or building Grams.

    Attributes
    ----------
    gamma_index : int
        Index of γ in ``GridResult.gammas``.
    fold : int or None
        The fold; None for a task that built K_γ's blocks for every fold (lap, lppk).
    C_indices : tuple of int
        Indices in ``GridResult.Cs`` of the C values fitted, largest C first; empty for a
        task that only built Grams (those of a round all finish before its fits start).
    seconds : float
        Wall time of the task on its worker.
    """

    gamma_index: int
    fold: int | None
    C_indices: tuple
    seconds: float


_worker_threads_limited = False


def _one_thread_in_worker_processes(caller):
    """From now on one BLAS / OpenMP thread, if this is a worker process (not ``caller``'s pid).

    Workers run side by side on the machine's cores; libraries threading inside each
    (OpenBLAS, OpenMP) would fight over the same cores (k-means in two workers on two
    cores: 22.7 s instead of 2.1 s). The limit is set once per process and kept: a
    per-task ``threadpool_limits`` block would restore the process-wide setting when one
    task ends while another thread of the same process still runs, and in the calling
    process (its own tasks, the threading backend, Streamlit's session threads) the
    caller's settings are left alone.
    """
    global _worker_threads_limited
    if os.getpid() != caller and not _worker_threads_limited:
        threadpool_limits(limits=1)
        _worker_threads_limited = True


def _score_fold_gram(caller, j, fold, C_indices, Cs, K, y_train, y_test, max_iter):
    """Task: fit and score the given C values on one fold's K_γ block (rows train then test).

    Returns ``[(j, fold, C_indices, accuracies, capped, seconds)]``.
    """
    _one_thread_in_worker_processes(caller)
    started = time.perf_counter()
    n_train = len(y_train)
    accuracies, capped = _score_Cs(K[:n_train], y_train, K[n_train:], y_test, Cs, max_iter)
    return [(j, fold, C_indices, accuracies, capped, time.perf_counter() - started)]


def _kept(K, folder, name):
    """A fold Gram as a build task hands it back: a ``.npy`` file name when ``folder`` is given."""
    if folder is None:
        return K
    path = os.path.join(folder, f"{name}.npy")
    np.save(path, K)
    return path


def _build_fold_gram_from_distances(caller, j, fold, gamma, D_block, log_n_block, folder):
    """Task: K_γ on one fold from that fold's blocks of D and log n (one exp).

    Returns ``[(j, fold, K or path, seconds)]``.
    """
    _one_thread_in_worker_processes(caller)
    started = time.perf_counter()
    K = _kept(_kernels.GammaFamily(D_block, log_n_block).gram(gamma), folder, f"K_{j}_{fold}")
    return [(j, fold, K, time.perf_counter() - started)]


def _build_fold_grams(caller, j, kernel, X, gamma, folds, folder):
    """Task: K_γ of a kernel without γ-conversion (lap, lppk), cut into every fold's block.

    Returns ``[(j, fold, K or path, seconds)]``, the seconds (of the whole build) on the first.
    """
    _one_thread_in_worker_processes(caller)
    started = time.perf_counter()
    K = copy.copy(kernel).set_params(gamma=gamma)(X)
    blocks = [_kept(_fold_block(K, train, test), folder, f"K_{j}_{fold}")
              for fold, (train, test) in enumerate(folds)]
    seconds = time.perf_counter() - started
    return [(j, fold, block, seconds if fold == 0 else 0.0) for fold, block in enumerate(blocks)]


def _task_plan(Cs, rows_by_gamma, gamma_columns, n_folds):
    """The fit tasks of a parallel round, ``(j, fold, C_indices)``, in the order submitted.

    The fits at large C dominate (at C ≥ 10³ often ~80 % of the time, some running to the
    iteration cap), so each of the larger half of a (γ, fold)'s C values is a task of its
    own and the smaller half, whose fits are the shortest, stays one task. Tasks go
    largest C first (list scheduling: the long tasks start first and the short ones fill
    the gaps at the end), then by fold, then by γ.
    """
    plan = []
    for j in gamma_columns:
        rows = sorted((int(i) for i in rows_by_gamma[j]), key=lambda i: -Cs[i])
        n_alone = (len(rows) + 1) // 2
        groups = [(i,) for i in rows[:n_alone]] + ([tuple(rows[n_alone:])] if len(rows) > n_alone else [])
        plan += [(j, fold, group) for fold in range(n_folds) for group in groups]
    return sorted(plan, key=lambda task: (-Cs[task[2][0]], task[1], task[0]))


def _rounds(gamma_columns, bytes_per_gamma, n_workers):
    """γ columns in rounds whose fold Grams fit in :data:`ROUND_BYTES` (at least one γ, and at
    least one per worker so that every worker has a Gram to build)."""
    width = max(1, n_workers, int(ROUND_BYTES // max(bytes_per_gamma, 1)))
    return [gamma_columns[start:start + width] for start in range(0, len(gamma_columns), width)]


# ----------------------------------------------------------------------------- engine
def _parallel_results(tasks, n_jobs):
    """Run joblib tasks and yield results as they finish (in order if the backend cannot)."""
    # Tasks are submitted one at a time (batch_size=1) in the planned order: batching would
    # tie cheap tasks to expensive ones and undo the largest-first order.
    try:
        parallel = joblib.Parallel(n_jobs=n_jobs, batch_size=1, return_as="generator_unordered")
    except ValueError:  # backends without result callbacks (multiprocessing)
        parallel = joblib.Parallel(n_jobs=n_jobs, batch_size=1)
    yield from parallel(tasks)


def _memmap(array, folder, name):
    """The array as a read-only memory map, so joblib ships a file name instead of the data."""
    if np.ndim(array) == 0:
        return array
    path = os.path.join(folder, f"{name}.npy")
    np.save(path, array)
    return np.load(path, mmap_mode="r")


def _active_dask_backend():
    """joblib's active backend if it is the Dask one (``parallel_backend("dask")``), else None."""
    backend, _ = joblib.parallel.get_active_backend()
    return backend if type(backend).__name__ == "DaskDistributedBackend" else None


@contextlib.contextmanager
def _scattered_to_workers(backend, arrays):
    """Inside: the Dask backend with ``arrays`` already on every worker.

    joblib's Dask backend replaces a task argument that *is* one of the scattered objects
    by its future, so each task carries a key instead of the data. (On its own it would
    scatter large arguments lazily to one worker and let the others fetch them; sending
    them to all workers up front avoids that extra hop on the first tasks.)
    """
    arrays = [array for array in arrays if isinstance(array, np.ndarray) and array.ndim]
    if backend is None or not arrays:
        yield
        return
    with joblib.parallel_config(backend="dask", client=backend.client, scatter=arrays,
                                wait_for_workers_timeout=backend.wait_for_workers_timeout,
                                **backend.submit_kwargs):
        yield


def _fold_block_source(family, folds, parallel, dask, folder, cleanup):
    """``block_of(fold)`` → that fold's blocks of D and log n (rows train then test, columns train).

    Each fold's blocks are cut once per run, by the calling process, when the first task
    that needs them is made — so the workers start on the first fold while the caller cuts
    the next. One process: one fold in memory at a time. Local workers: memory-mapped files
    that the workers share through the page cache (a task carries a file name). Dask: all
    cut up front and scattered to every worker once.
    """
    if dask is None:
        cut = {}

        def block_of(fold):
            if fold not in cut:
                if not parallel:
                    cut.clear()
                blocks = _fold_blocks(family.D, family.log_n, *folds[fold])
                cut[fold] = blocks if not parallel else tuple(
                    _memmap(block, folder, f"{name}_{fold}") for block, name in zip(blocks, ("D", "log_n")))
            return cut[fold]

        return block_of
    blocks = []
    for train, test in folds:
        blocks.append(_fold_blocks(family.D, family.log_n, train, test))
    cleanup.enter_context(_scattered_to_workers(dask, [array for pair in blocks for array in pair]))
    return blocks.__getitem__


def _score_gamma_fold(caller, j, fold, gamma, D_block, log_n_block, C_indices, Cs, y_train, y_test, max_iter):
    """Task: K_γ on one fold from its blocks of D and log n (one exp), then fit and score its C values.

    Returns ``[(j, fold, C_indices, accuracies, capped, seconds)]``.
    """
    started = time.perf_counter()
    _one_thread_in_worker_processes(caller)
    K = _kernels.GammaFamily(D_block, log_n_block).gram(gamma)
    (result,) = _score_fold_gram(caller, j, fold, C_indices, Cs, K, y_train, y_test, max_iter)
    return [(*result[:-1], time.perf_counter() - started)]  # the task's seconds include the build


def _score_gamma(caller, j, kernel, X, gamma, folds, C_indices, Cs, y, max_iter):
    """Task: K_γ of a kernel without γ-conversion (lap, lppk) once, then every fold's fits.

    Returns ``[(j, fold, C_indices, accuracies, capped, seconds)]`` per fold, the seconds (of
    the whole task) on the first.
    """
    _one_thread_in_worker_processes(caller)
    started = time.perf_counter()
    K = copy.copy(kernel).set_params(gamma=gamma)(X)
    results = []
    for fold, (train, test) in enumerate(folds):
        block = _fold_block(K, train, test)
        accuracies, capped = _score_Cs(block[:len(train)], y[train], block[len(train):], y[test], Cs, max_iter)
        results.append([j, fold, C_indices, accuracies, capped, 0.0])
    results[0][-1] = time.perf_counter() - started
    return results


def _whole_tasks(kernel, X, y, folds, Cs, gammas, rows_by_gamma, gamma_columns, max_iter, caller, block_of, plan):
    """Tasks that build their own Gram and fit all its C values: one per (γ, fold) for
    γ-convertible kernels (fold by fold, each fold's blocks of D from ``block_of``), one per
    γ for the others. ``plan`` receives ``(j, fold or None, C_indices)`` of each task as it is made.
    """
    def C_values(j):
        C_indices = tuple(int(i) for i in rows_by_gamma[j])
        return C_indices, Cs[list(C_indices)]

    if kernel.gamma_convertible:
        for fold, (train, test) in enumerate(folds):
            for j in gamma_columns:
                C_indices, C_values_j = C_values(j)
                plan.append((j, fold, C_indices))
                yield joblib.delayed(_score_gamma_fold)(caller, j, fold, gammas[j], *block_of(fold), C_indices,
                                                        C_values_j, y[train], y[test], max_iter)
        return
    for j in gamma_columns:
        C_indices, C_values_j = C_values(j)
        plan.append((j, None, C_indices))
        yield joblib.delayed(_score_gamma)(caller, j, kernel, X, gammas[j], folds, C_indices, C_values_j, y, max_iter)


def _splits_fits(n_whole_tasks, n_workers):
    """Whether a parallel run splits the fits of each Gram into several tasks (:func:`_task_plan`)
    rather than giving each worker whole tasks (:func:`_whole_tasks`).

    Splitting balances few, long tasks over many workers, but costs a barrier per round
    (builds, then fits) and the shared Grams' files; measured at n = 2000 with 35 (γ, fold)
    tasks on 2 cores: whole tasks 1.87 × the single process, split fits 1.58 ×. With at
    least :data:`WHOLE_TASKS_PER_WORKER` whole tasks per worker, list scheduling already
    keeps every worker busy to within about one task of the end.
    """
    return n_whole_tasks < WHOLE_TASKS_PER_WORKER * n_workers


@dataclass
class _CrossValidation:
    """What :func:`_cross_validate` measured: fold accuracies, capped fits and the tasks run."""

    fold_scores: np.ndarray
    capped: np.ndarray
    tasks: list


def _cross_validate(kernel, X, y, folds, Cs, gammas, cells, n_jobs, progress, max_iter):
    """Fold accuracies of ``cells`` (a bool mask over (C, γ)); the rest stays NaN.

    ``kernel`` is already fitted. One process, or workers with enough tasks each
    (:func:`_splits_fits`): whole tasks, each building its Gram and fitting all its C values
    (:func:`_whole_tasks`; γ-convertible kernels: one exp per fold block of D, the blocks cut
    once by this process). Otherwise the fits of each Gram are split (:func:`_split_fit_rounds`).

    Returns
    -------
    _CrossValidation
        ``tasks`` lists a :class:`GridTask` per task, in the order submitted.
    """
    cv = len(folds)
    fold_scores = np.full((len(Cs), len(gammas), cv), np.nan)
    capped = np.zeros((len(Cs), len(gammas), cv), dtype=bool)
    rows_by_gamma = [np.flatnonzero(cells[:, j]) for j in range(len(gammas))]
    gamma_columns = [j for j in range(len(gammas)) if len(rows_by_gamma[j])]
    total = int(cells.sum()) * cv
    done = 0
    if progress is not None:
        progress(done, total)
    n_workers = joblib.effective_n_jobs(n_jobs)
    parallel = n_workers > 1
    dask = _active_dask_backend() if parallel else None
    caller = os.getpid()
    tasks = []

    def record(results):
        nonlocal done
        seconds = {}
        for j, fold, C_indices, accuracies, hit_cap, elapsed in (row for task in results for row in task):
            rows = list(C_indices)
            fold_scores[rows, j, fold] = accuracies
            capped[rows, j, fold] = hit_cap
            seconds[j, fold, C_indices] = elapsed
            done += len(rows)
            if progress is not None:
                progress(done, total)
        return seconds

    with contextlib.ExitStack() as cleanup:
        # Local workers read shared matrices from memory-mapped files; Dask workers (maybe
        # on other machines) get them scattered instead.
        folder = None
        if parallel and dask is None:
            folder = cleanup.enter_context(
                tempfile.TemporaryDirectory(prefix="kernelviz-grid-", ignore_cleanup_errors=True))
        block_of = None
        if kernel.gamma_convertible:
            block_of = _fold_block_source(kernel.gamma_family(X), folds, parallel, dask, folder, cleanup)
        n_whole_tasks = len(gamma_columns) * (cv if kernel.gamma_convertible else 1)
        if not parallel or not _splits_fits(n_whole_tasks, n_workers):
            plan = []
            seconds = record(_parallel_results(
                _whole_tasks(kernel, X, y, folds, Cs, gammas, rows_by_gamma, gamma_columns, max_iter, caller,
                             block_of, plan),
                n_jobs))
            # a lap / lppk task's seconds are on its first fold
            tasks = [GridTask(j, fold, C_indices, seconds[j, 0 if fold is None else fold, C_indices])
                     for j, fold, C_indices in plan]
            return _CrossValidation(fold_scores, capped, tasks)
        tasks = _split_fit_rounds(kernel, X, y, folds, Cs, gammas, rows_by_gamma, gamma_columns, max_iter, caller,
                                  block_of, folder, n_jobs, n_workers, record)
    return _CrossValidation(fold_scores, capped, tasks)


def _split_fit_rounds(kernel, X, y, folds, Cs, gammas, rows_by_gamma, gamma_columns, max_iter, caller, block_of,
                      folder, n_jobs, n_workers, record):
    """The split plan, round by round of γ values (:func:`_rounds`): first the workers build
    every (γ, fold) Gram of the round once, then the round's fit tasks (:func:`_task_plan`)
    read those Grams, largest C first. Returns the :class:`GridTask` list."""
    cv = len(folds)
    if kernel.gamma_convertible:
        def builds(chunk):
            return (joblib.delayed(_build_fold_gram_from_distances)(caller, j, fold, gammas[j], *block_of(fold),
                                                                    folder)
                    for j in chunk for fold in range(cv))
    else:
        def builds(chunk):
            return (joblib.delayed(_build_fold_grams)(caller, j, kernel, X, gammas[j], folds, folder)
                    for j in chunk)

    tasks = []
    bytes_per_gamma = sum(8 * len(train) * (len(train) + len(test)) for train, test in folds)
    for chunk in _rounds(gamma_columns, bytes_per_gamma, n_workers):
        grams, build_seconds = {}, {}
        for built in _parallel_results(builds(chunk), n_jobs):
            for j, fold, K, elapsed in built:
                grams[j, fold] = np.load(K, mmap_mode="r") if folder is not None else K
                build_seconds[j, fold] = elapsed
        if kernel.gamma_convertible:
            tasks += [GridTask(j, fold, (), build_seconds[j, fold]) for j in chunk for fold in range(cv)]
        else:  # one build task per γ, its time on fold 0
            tasks += [GridTask(j, None, (), build_seconds[j, 0]) for j in chunk]
        plan = _task_plan(Cs, rows_by_gamma, chunk, cv)
        seconds = record(_parallel_results(
            (joblib.delayed(_score_fold_gram)(caller, j, fold, C_indices, Cs[list(C_indices)], grams[j, fold],
                                              y[folds[fold][0]], y[folds[fold][1]], max_iter)
             for j, fold, C_indices in plan),
            n_jobs))
        tasks += [GridTask(j, fold, C_indices, seconds[j, fold, C_indices]) for j, fold, C_indices in plan]
        if folder is not None:
            del grams
            for j in chunk:  # every task on these Grams has finished
                for fold in range(cv):
                    with contextlib.suppress(OSError):
                        os.remove(os.path.join(folder, f"K_{j}_{fold}.npy"))
    return tasks


def _kernel_from_name(kernel, gamma, random_state, kernel_params):
    """The named kernel; one seed drives the folds and the kernel's partition, if it has one."""
    if not isinstance(kernel, str):
        raise ValueError(f"kernel must be a kernel name, one of {', '.join(_kernels.names())}; got {kernel!r}.")
    if "random_state" in _kernels.parameters(kernel):
        kernel_params = {**kernel_params, "random_state": random_state}
    return _kernels.make(kernel, gamma=gamma, **kernel_params)


def _fitted_kernel(kernel, gamma, random_state, X, X_unlabeled, kernel_params):
    instance = _kernel_from_name(kernel, gamma, random_state, kernel_params)
    X_fit = X if X_unlabeled is None or len(X_unlabeled) == 0 else np.vstack((X, X_unlabeled))
    return instance.fit(X_fit)


def fit_kernel(kernel, X, X_unlabeled=None, random_state=0, gamma=1.0, **kernel_params):
    """The named kernel with its unsupervised part fitted as :func:`grid_search` fits it.

    Fitting is the step of a grid search that can fail on the data (too many clusters
    for the points, a graph with too few neighbours, ...): fitting every kernel first
    finds such problems before any long run starts. Pass the result to
    :func:`grid_search` in place of the name; the scores are the same.

    Parameters
    ----------
    kernel : str
        Kernel name, one of :func:`kernelviz.kernels.names`.
    X : array-like of shape (n, d)
        Labeled points.
    X_unlabeled : array-like of shape (m, d), optional
        Extra points for the unsupervised part.
    random_state : int or None, default=0
        Seed of the kernel's partition (the kernels that have one), as in :func:`grid_search`.
    gamma : float, default=1.0
        The kernel's initial γ (every grid cell sets its own).
    **kernel_params
        Passed to :func:`kernelviz.kernels.make`.

    Returns
    -------
    Kernel
        Fitted on X plus X_unlabeled.
    """
    X = check_points(X, name="X")
    X_unlabeled = check_unlabeled(X_unlabeled, X.shape[1])
    return _fitted_kernel(kernel, gamma, random_state, X, X_unlabeled, kernel_params)


def _stratified_folds(X, y, cv, random_state):
    splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    return list(splitter.split(X, y))


def check_grid_inputs(X, y, Cs, gammas, cv=10, max_iter=DEFAULT_MAX_ITER, X_unlabeled=None):
    """Validate the inputs of :func:`grid_search` without running anything.

    Parameters
    ----------
    X, y, Cs, gammas, cv, max_iter, X_unlabeled
        As in :func:`grid_search`.

    Returns
    -------
    X, y, Cs, gammas, max_iter, X_unlabeled
        As float64 arrays (``X_unlabeled`` None if not given).

    Raises
    ------
    ValueError
        With a sentence saying what is wrong: NaN in X or y, mismatched lengths, a single
        class, fewer labeled points in a class than folds, non-positive grid values, ...
    """
    X = check_points(X, name="X")
    y = check_labels(y, len(X), cv)
    Cs, gammas = check_positive_grid(Cs, "Cs"), check_positive_grid(gammas, "gammas")
    max_iter = check_max_iter(max_iter)
    X_unlabeled = check_unlabeled(X_unlabeled, X.shape[1])
    return X, y, Cs, gammas, max_iter, X_unlabeled


def _given_kernel(kernel, X, X_unlabeled, kernel_params):
    """A fitted kernel object passed to :func:`grid_search`: its name and parameters."""
    if not getattr(kernel, "is_fitted_", False) or not hasattr(kernel, "name"):
        raise ValueError(
            f"kernel must be a kernel name ({', '.join(_kernels.names())}) or a kernel fitted with "
            f"kernelviz.evaluation.fit_kernel; got {kernel!r}."
        )
    if X_unlabeled is not None or kernel_params:
        raise ValueError("A fitted kernel already has its unsupervised part and parameters: pass X_unlabeled and "
                         "kernel parameters to fit_kernel, not to grid_search.")
    if getattr(kernel, "n_features_in_", X.shape[1]) != X.shape[1]:
        raise ValueError(f"The kernel was fitted on {kernel.n_features_in_} features, but X has {X.shape[1]}.")
    params = {key: value for key, value in kernel.get_params(deep=False).items() if key != "gamma"}
    return kernel.name, params


def grid_search(kernel, X, y, Cs, gammas, cv=10, random_state=0, n_jobs=1, X_unlabeled=None, progress=None,
                max_iter=DEFAULT_MAX_ITER, **kernel_params):
    """Mean stratified k-fold CV accuracy of a precomputed-kernel C-SVM over a (C, γ) grid.

    The protocol of the CkRBF and RWM papers: the kernel's unsupervised part (partition,
    density model, graph) is fitted once on ``X`` plus ``X_unlabeled``; for kernels of the
    form n ⊙ exp(−γ D) the matrix D is computed once and each γ costs one ``exp``
    (γ-conversion); the others get one Gram per γ. Folds are
    ``StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)``, identical for
    every cell, and each fit is libsvm through ``SVC(kernel="precomputed")``.

    Parameters
    ----------
    kernel : str or Kernel
        Kernel name, one of :func:`kernelviz.kernels.names`; or a kernel already fitted by
        :func:`fit_kernel` (then ``X_unlabeled`` and kernel parameters go to that call).
    X : array-like of shape (n, d)
        Labeled points.
    y : array-like of shape (n,)
        Their labels.
    Cs, gammas : array-like of positive floats
        The grid axes (scores are indexed ``[i_C, i_gamma]``).
    cv : int, default=10
        Number of stratified folds.
    random_state : int or None, default=0
        Seed of the fold shuffling, and of the kernel's partition for the kernels
        that have one (ckrbf, gmm, rwm, ...).
    n_jobs : int or None, default=1
        joblib workers (-1: all cores). With several workers the work is split into tasks
        of one (C, γ, fold) for the larger C values, largest first (see ``GridResult.tasks``);
        inside ``joblib.parallel_backend("dask")`` it runs on a Dask cluster.
    X_unlabeled : array-like of shape (m, d), optional
        Extra points seen only by the kernel's unsupervised part.
    progress : callable, optional
        Called as ``progress(done, total)`` with the number of finished libsvm fits.
    max_iter : int, default=DEFAULT_MAX_ITER
        libsvm iteration cap per fit, or -1 for none; fits that reach it are flagged in ``capped``.
    **kernel_params
        Passed to :func:`kernelviz.kernels.make` (e.g. ``n_components=2``).

    Returns
    -------
    GridResult
        ``scores`` (n_C, n_gamma), ``fold_scores`` (n_C, n_gamma, cv), ``capped``, ``best``.

    Raises
    ------
    ValueError
        For non-positive or empty grids, NaN in X or y, a single class, more folds than
        points in the smallest class, or an unknown kernel.

    Examples
    --------
    >>> g = grid_search("rbf", X, y, Cs=[1, 10], gammas=[0.1, 1], cv=5)  # doctest: +SKIP
    >>> g.best  # doctest: +SKIP
    (10.0, 1.0, 0.97)
    """
    X, y, Cs, gammas, max_iter, X_unlabeled = check_grid_inputs(X, y, Cs, gammas, cv, max_iter, X_unlabeled)
    if isinstance(kernel, str):
        name, params = kernel, dict(kernel_params)
        fitted = _fitted_kernel(kernel, gammas[0], random_state, X, X_unlabeled, kernel_params)
    else:
        name, params = _given_kernel(kernel, X, X_unlabeled, kernel_params)
        fitted = kernel
    folds = _stratified_folds(X, y, cv, random_state)
    all_cells = np.ones((len(Cs), len(gammas)), dtype=bool)
    measured = _cross_validate(fitted, X, y, folds, Cs, gammas, all_cells, n_jobs, progress, max_iter)
    return GridResult(kernel=name, Cs=Cs, gammas=gammas, fold_scores=measured.fold_scores,
                      capped_folds=measured.capped, cv=cv, random_state=random_state, max_iter=max_iter,
                      kernel_params=params, fitted_kernel=fitted, tasks=measured.tasks)


# ----------------------------------------------------------------------------- P_f(α)
def pf_curve(scores, alphas):
    """P_f(α) = #{cells with f ≥ α} / #cells, a decreasing step function of α.

    Parameters
    ----------
    scores : array-like or GridResult
        Accuracies f over a grid (any shape).
    alphas : array-like
        Thresholds α.

    Returns
    -------
    ndarray of the shape of ``alphas``
    """
    f = np.sort(_check_scores(scores).ravel())
    alphas = np.asarray(alphas, dtype=np.float64)
    if not np.all(np.isfinite(alphas)):
        raise ValueError("alphas must be finite numbers.")
    below = np.searchsorted(f, alphas, side="left")  # cells with f < α
    return (f.size - below) / f.size


def pf_auc(scores_by_name, alpha0=None):
    """Area under P_f(α) over [α₀, 1] for several grids compared together.

    With every f ≤ 1 the integral has a closed form: AUC = mean over the grid of
    max(f − α₀, 0). α₀ defaults to the worst score over all the grids (below it every
    curve is 1, so that stretch says nothing).

    Parameters
    ----------
    scores_by_name : dict of str to array-like or GridResult
        The grids to compare (they may have different sizes).
    alpha0 : float, optional
        Lower end of the integral; the worst score of all grids if omitted.

    Returns
    -------
    table : dict of str to dict
        Per name: ``auc``, ``normalized_auc`` = AUC / (1 − α₀) (NaN when α₀ = 1) and
        ``best`` (the best score of the grid).
    alpha0 : float
        The α₀ used.
    """
    if not isinstance(scores_by_name, dict) or not scores_by_name:
        raise ValueError("pf_auc needs a non-empty dict mapping names to score grids.")
    grids = {name: _check_scores(scores, f"scores of {name!r}").ravel() for name, scores in scores_by_name.items()}
    if alpha0 is None:
        alpha0 = min(float(f.min()) for f in grids.values())
    else:
        alpha0 = float(alpha0)
        if not 0 <= alpha0 <= 1:
            raise ValueError(f"alpha0 must lie in [0, 1]; got {alpha0}.")
    width = 1.0 - alpha0
    table = {}
    for name, f in grids.items():
        auc = float(np.mean(np.maximum(f - alpha0, 0.0)))
        table[name] = {
            "auc": auc,
            "normalized_auc": auc / width if width > 0 else float("nan"),
            "best": float(f.max()),
        }
    return table, alpha0


# ----------------------------------------------------------------------------- Keerthi–Lin
@dataclass
class KeerthiLinPath:
    """The Keerthi–Lin search on the (log γ, log C) grid.

    Attributes
    ----------
    C_tilde : float
        Best C of the linear SVM.
    linear_Cs, linear_scores : ndarray
        The C values tried for the linear SVM and their CV accuracies.
    line_gammas : ndarray of shape (n_C,)
        γ on the exact line γ = C̃ / (2C), one per grid C (for drawing the line).
    cells : list of (int, int)
        (i_C, i_gamma) of the grid cells on the line, by increasing i_C.
    scores : ndarray
        CV accuracy of each path cell.
    best_cell : (int, int)
        The path cell with the best accuracy (first one on ties).
    best : (float, float, float)
        (C, γ, score) of ``best_cell``.
    """

    C_tilde: float
    linear_Cs: np.ndarray
    linear_scores: np.ndarray
    line_gammas: np.ndarray
    cells: list
    scores: np.ndarray
    best_cell: tuple
    best: tuple


def _line_cells(gammas, line_gammas):
    """Per grid C, the grid γ whose cell (in log space) contains that C's point of the line."""
    log_gammas = np.log(gammas)
    order = np.argsort(log_gammas)
    sorted_logs = log_gammas[order]
    # Each γ cell extends halfway to its neighbours; the end cells as far outwards.
    mids = (sorted_logs[1:] + sorted_logs[:-1]) / 2
    lower = np.concatenate(([sorted_logs[0] - (mids[0] - sorted_logs[0])], mids))
    upper = np.concatenate((mids, [sorted_logs[-1] + (sorted_logs[-1] - mids[-1])]))
    cells = []
    for i, target in enumerate(np.log(line_gammas)):
        k = int(np.argmin(np.abs(sorted_logs - target)))
        if lower[k] <= target <= upper[k]:
            cells.append((i, int(order[k])))
    return cells


def keerthi_lin(X, y, Cs, gammas, scores=None, *, kernel="rbf", linear_Cs=None, cv=10, random_state=0, n_jobs=1,
                X_unlabeled=None, max_iter=DEFAULT_MAX_ITER, **kernel_params):
    """The Keerthi–Lin heuristic: a line search on the (log γ, log C) plane.

    Keerthi & Lin (2003) show that as γ → 0 with 2γC = C̃ fixed, an SVM with kernel
    exp(−γ‖x − y‖²) tends to the linear SVM with penalty C̃ (the kernel's first-order
    term is 2γ xᵀy). So the best linear C̃ fixes the line log γ = log(C̃/2) − log C,
    of slope −1, that crosses the good region; the search evaluates only the grid cells
    on it. The RWM paper applies the same line to its RWM kernel, and so can any kernel
    exp(−γ D). (That paper writes log γ = log C − log C̃, Keerthi and Lin's line for the
    width σ² = 1/(2γ); in γ it has slope +1, against the paper's own "slope of minus one".)

    Parameters
    ----------
    X, y : array-like
        Labeled points and labels.
    Cs, gammas : array-like of positive floats
        The (C, γ) grid; at least two γ values.
    scores : array-like of shape (n_C, n_gamma) or GridResult, optional
        Accuracies over the grid, if already computed; otherwise only the path cells
        are cross-validated with ``kernel``.
    kernel : str, default="rbf"
        Kernel for the path cells when ``scores`` is not given.
    linear_Cs : array-like, optional
        C values for the linear SVM (default: ``Cs``).
    cv, random_state, n_jobs, X_unlabeled, max_iter, **kernel_params
        As in :func:`grid_search`; the linear SVM uses the same folds.

    Returns
    -------
    KeerthiLinPath
    """
    X = check_points(X, name="X")
    y = check_labels(y, len(X), cv)
    Cs, gammas = check_positive_grid(Cs, "Cs"), check_positive_grid(gammas, "gammas")
    if len(gammas) < 2:
        raise ValueError("The Keerthi–Lin search needs at least two γ values to place the line on the grid.")
    linear_Cs = Cs if linear_Cs is None else check_positive_grid(linear_Cs, "linear_Cs")
    max_iter = check_max_iter(max_iter)
    if isinstance(scores, GridResult):
        if not (np.array_equal(scores.Cs, Cs) and np.array_equal(scores.gammas, gammas)):
            raise ValueError("The GridResult was computed on other Cs/gammas than the ones given.")
    if scores is not None:
        scores = _check_scores(scores)
        if scores.shape != (len(Cs), len(gammas)):
            raise ValueError(f"scores must have shape (len(Cs), len(gammas)) = {(len(Cs), len(gammas))}; "
                             f"got {scores.shape}.")

    folds = _stratified_folds(X, y, cv, random_state)
    K_linear = X @ X.T
    fold_results = [
        _score_Cs(K_linear[np.ix_(train, train)], y[train], K_linear[np.ix_(test, train)], y[test], linear_Cs, max_iter)
        for train, test in folds
    ]
    linear_scores = np.mean([accuracies for accuracies, _ in fold_results], axis=0)
    C_tilde = float(linear_Cs[int(np.argmax(linear_scores))])

    line_gammas = C_tilde / (2.0 * Cs)
    cells = _line_cells(gammas, line_gammas)
    if not cells:
        raise ValueError(f"The line γ = C̃/(2C) with C̃ = {C_tilde:g} does not cross the grid; widen Cs or gammas.")
    if scores is None:
        X_unlabeled = check_unlabeled(X_unlabeled, X.shape[1])
        fitted = _fitted_kernel(kernel, gammas[0], random_state, X, X_unlabeled, kernel_params)
        mask = np.zeros((len(Cs), len(gammas)), dtype=bool)
        mask[tuple(np.array(cells).T)] = True
        measured = _cross_validate(fitted, X, y, folds, Cs, gammas, mask, n_jobs, None, max_iter)
        scores = measured.fold_scores.mean(axis=-1)
    path_scores = np.array([scores[i, j] for i, j in cells])
    best_cell = cells[int(np.argmax(path_scores))]
    i, j = best_cell
    return KeerthiLinPath(C_tilde=C_tilde, linear_Cs=linear_Cs, linear_scores=linear_scores,
                          line_gammas=line_gammas, cells=cells, scores=path_scores, best_cell=best_cell,
                          best=(float(Cs[i]), float(gammas[j]), float(scores[i, j])))


# ----------------------------------------------------------------------------- semi-supervised
def semi_supervised_splits(X, y, protocol="dense", cv=5, random_state=0):
    """The outer folds of the RWM paper's semi-supervised experiments.

    Each stratified fold is a test set T; the rest, L, is split into the labeled points
    that train the SVM and the points whose labels are hidden. ``protocol`` picks the
    labeled subset of L: ``"dense"`` — 4 per class, in high-density regions (4 × the
    number of classes); ``"10%"`` — a tenth of L; ``"100%"`` — all of L.

    Parameters
    ----------
    X, y : array-like
    protocol : {"dense", "10%", "100%"}
    cv : int, default=5
    random_state : int or None, default=0

    Returns
    -------
    list of (labeled, unlabeled, test) index arrays, one per fold
    """
    if protocol not in SEMI_SUPERVISED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol!r}; choose one of {', '.join(SEMI_SUPERVISED_PROTOCOLS)}.")
    X = check_points(X, name="X")
    y = check_labels(y, len(X), cv)
    how, value = SEMI_SUPERVISED_PROTOCOLS[protocol]
    splits = []
    for train, test in _stratified_folds(X, y, cv, random_state):
        labeled = np.asarray(_data.select_labeled(y[train], how, value, X=X[train], random_state=random_state),
                             dtype=bool)
        splits.append((train[labeled], train[~labeled], test))
    return splits


#: How :func:`semi_supervised_grid` chooses (C, γ) per outer fold, on training data only.
SELECTION_RULE = ("inner stratified CV over the labeled points; each (C, γ) rated by its accuracy on the validation "
                  "fold together with the training part's hidden-label points (the RWM paper's rule); of tied "
                  "cells, the one nearest the centre of their plateau")


def validation_ratings(kernel, X, y, labeled, hidden, Cs, gammas, inner_cv=4, random_state=0, n_jobs=1,
                       max_iter=DEFAULT_MAX_ITER):
    """The RWM paper's rating of every (C, γ), from training data only.

    An inner stratified CV over the labeled points trains the SVM; each candidate is
    rated by its accuracy on the validation fold together with the hidden-label points of
    the training part (their labels are known to the experimenter, never to the SVM). The
    test fold takes no part. The fits run on :func:`grid_search`'s engine.

    Parameters
    ----------
    kernel : Kernel
        Fitted (its unsupervised part from training data, or transductively).
    X, y : ndarray
        Points and labels; only the rows ``labeled`` and ``hidden`` are used.
    labeled, hidden : ndarray of int
        Rows of the labeled subset and of the hidden-label points.
    Cs, gammas : ndarray of positive floats
    inner_cv : int, default=4
        Inner folds; at most the labeled points of the smallest class that has two or more
        (fewer are used then). A class with a single labeled point goes to one validation
        fold and is missing from that fold's training; at least two classes must have two
        or more.
    random_state : int or None, default=0
    n_jobs : int or None, default=1
    max_iter : int, default=DEFAULT_MAX_ITER

    Returns
    -------
    ratings : ndarray of shape (n_C, n_gamma)
        Mean rating over the inner folds.
    capped_fits : int
        Rating fits that stopped at the iteration cap.
    n_fits : int
        Rating fits made.
    """
    counts = np.unique(y[labeled], return_counts=True)[1]
    # two classes of 2 or more labeled points leave two classes in every inner training fold
    if (counts >= 2).sum() < 2:
        raise ValueError("Choosing (C, γ) on training data needs at least 2 classes with 2 or more labeled points "
                         f"each; the labeled points per class are {counts.tolist()}. Use a protocol with more "
                         "labeled points.")
    # a class of one labeled point cannot be split, so it does not lower the folds: StratifiedKFold
    # puts it in one validation fold (and warns that it is smaller than the folds, which is meant)
    splitter = StratifiedKFold(n_splits=min(inner_cv, int(counts[counts >= 2].min())), shuffle=True,
                               random_state=random_state)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class in y has only 1 member",
                                category=UserWarning)
        splits = list(splitter.split(np.zeros(len(labeled)), y[labeled]))
    folds = [(labeled[tr], np.concatenate((labeled[va], hidden))) for tr, va in splits]
    all_cells = np.ones((len(Cs), len(gammas)), dtype=bool)
    measured = _cross_validate(kernel, X, y, folds, Cs, gammas, all_cells, n_jobs, None, max_iter)
    return measured.fold_scores.mean(axis=-1), int(measured.capped.sum()), int(measured.capped.size)


def best_cell(scores):
    """``(chosen, tied)`` of a grid of scores (one axis per parameter, each axis in its grid's
    order): the indices of every cell tied with the best score (a plateau), and the one a
    selection reads: the tied cell nearest the plateau's centre (the mean of its indices, i.e. in
    grid steps, log steps on a log grid), ties going to the smaller index on the first axis, then
    on the next. NaN cells (no candidate there) never tie.

    Why not the first best cell: accuracies on a few hundred points tie often, and the first in
    grid order is a corner of any plateau that reaches one; it reads the smallest C and γ, and a
    grid-edge flag then blames the grid for a tie (heart's RBF ties at (10, 0.01) and (10⁴, 10⁻⁵)).
    """
    scores = np.asarray(scores, dtype=float)
    tied = np.argwhere(np.isclose(scores, np.nanmax(scores), rtol=0, atol=1e-12))
    distance = ((tied - tied.mean(axis=0)) ** 2).sum(axis=1)
    order = np.lexsort(tuple(tied[:, k] for k in range(tied.shape[1] - 1, -1, -1)) + (np.round(distance, 9),))
    return tuple(int(v) for v in tied[order[0]]), [tuple(int(v) for v in t) for t in tied]


def semi_supervised_grid(kernel, X, y, Cs, gammas, protocol="dense", cv=5, random_state=0, n_jobs=1, progress=None,
                         max_iter=DEFAULT_MAX_ITER, unsupervised_on="train", inner_cv=4, **kernel_params):
    """The RWM paper's semi-supervised protocol over a (C, γ) grid: the selected result, and
    the test accuracy of every cell.

    For each outer fold (:func:`semi_supervised_splits`) the SVM is trained on the labeled
    subset of the training part only. (C, γ) is chosen per fold on training data only
    (:func:`validation_ratings`, :data:`SELECTION_RULE`), and that choice's test accuracy
    is the result (``GridResult.selection``). The test accuracy of every cell is kept too
    (``fold_scores``); the cell best on them (``GridResult.oracle``) was picked by looking
    at the test folds, an optimistic number that is not a result.

    The kernel's unsupervised part is fitted, following ``unsupervised_on``:

    * ``"train"`` (default) — per fold, on the training part only (labeled and
      hidden-label points), as the RWM paper does: the test fold is never seen;
    * ``"all"`` — once, on every point of X, the held-out fold's features included
      (never its labels): transductive, for comparison.

    Parameters
    ----------
    kernel : str
    X, y : array-like
        All points, all labeled (the protocol hides labels itself).
    Cs, gammas : array-like of positive floats
    protocol : {"dense", "10%", "100%"}, default="dense"
    cv : int, default=5
    random_state : int or None, default=0
    n_jobs : int or None, default=1
        joblib workers, on :func:`grid_search`'s engine. ``"all"``: D (or each K_γ) built
        once on all points and cut per fold; ``"train"``: the kernel fitted per outer fold,
        then that fold's grid on the engine.
    progress : callable, optional
        ``progress(done, total)`` with the number of finished libsvm fits.
    max_iter : int, default=DEFAULT_MAX_ITER
    unsupervised_on : {"train", "all"}, default="train"
        Which points fit the unsupervised model (see above).
    inner_cv : int, default=4
        Inner folds of the selection (fewer when a class has fewer labeled points).
    **kernel_params
        Passed to :func:`kernelviz.kernels.make`.

    Returns
    -------
    GridResult
        ``selection`` holds the cell chosen per fold and its test accuracy (the result:
        ``selection["score"]``); ``fold_scores`` are every cell's test accuracies per outer
        fold; ``fitted_kernel`` is the kernel fitted on all points for ``"all"``, None for
        ``"train"`` (one fit per fold); ``protocol`` names the protocol.
    """
    if unsupervised_on not in UNSUPERVISED_ON:
        raise ValueError(f"unsupervised_on must be one of {', '.join(map(repr, UNSUPERVISED_ON))}; "
                         f"got {unsupervised_on!r}.")
    Cs, gammas = check_positive_grid(Cs, "Cs"), check_positive_grid(gammas, "gammas")
    max_iter = check_max_iter(max_iter)
    splits = semi_supervised_splits(X, y, protocol, cv, random_state)
    X, y = check_points(X, name="X"), np.asarray(y)
    template = _kernel_from_name(kernel, gammas[0], random_state, kernel_params)
    all_cells = np.ones((len(Cs), len(gammas)), dtype=bool)
    fitted = template.fit(X) if unsupervised_on == "all" else None
    fold_scores = np.empty((len(Cs), len(gammas), cv))
    capped = np.empty((len(Cs), len(gammas), cv), dtype=bool)
    tasks, chosen = [], []
    per_fold = all_cells.size
    for fold, (labeled, hidden, test) in enumerate(splits):
        # "train": the fold's own kernel, fitted on its training part (labeled and hidden).
        fold_kernel = fitted
        if fold_kernel is None:
            fold_kernel = copy.deepcopy(template).fit(X[np.concatenate((labeled, hidden))])
        fold_progress = None
        if progress is not None:
            def fold_progress(done, total, before=fold * per_fold):
                progress(before + done, cv * per_fold)
        measured = _cross_validate(fold_kernel, X, y, [(labeled, test)], Cs, gammas, all_cells, n_jobs,
                                   fold_progress, max_iter)
        fold_scores[:, :, fold], capped[:, :, fold] = measured.fold_scores[:, :, 0], measured.capped[:, :, 0]
        tasks += [GridTask(task.gamma_index, fold, task.C_indices, task.seconds) for task in measured.tasks]
        ratings, capped_ratings, n_ratings = validation_ratings(fold_kernel, X, y, labeled, hidden, Cs, gammas,
                                                                inner_cv, random_state, n_jobs, max_iter)
        (i, j), tied = best_cell(ratings)
        chosen.append({"C": float(Cs[i]), "gamma": float(gammas[j]), "rating": float(ratings[i, j]),
                       "tied": [{"C": float(Cs[a]), "gamma": float(gammas[b])} for a, b in tied],
                       "test_score": float(fold_scores[i, j, fold]), "capped_rating_fits": capped_ratings,
                       "rating_fits": n_ratings})
    selection = {"rule": SELECTION_RULE, "folds": chosen,
                 "score": float(np.mean([c["test_score"] for c in chosen])),
                 "std": float(np.std([c["test_score"] for c in chosen]))}
    return GridResult(kernel=kernel, Cs=Cs, gammas=gammas, fold_scores=fold_scores, capped_folds=capped, cv=cv,
                      random_state=random_state, max_iter=max_iter, kernel_params=dict(kernel_params),
                      fitted_kernel=fitted, protocol=protocol, tasks=tasks, selection=selection)
