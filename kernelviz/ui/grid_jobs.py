"""The grid search in the background: one thread per session, cells filled column by column.

A grid search of four kernels is hundreds of SVM fits; run in the script it greys the page
until the last one ends. :class:`GridJob` runs it in a daemon thread instead, kernel by
kernel and, within a kernel, one γ column at a time through the pipeline's one search loop
(:func:`kernelviz.pipeline.search_columns`). After each column, :meth:`GridJob.partial` holds the finished
cells (NaN elsewhere) for the heatmaps; :meth:`GridJob.cancel` stops before the next column
and keeps what finished. Finished kernels go to the session's store of grid searches and to
the disk cache (every session, and the next start of the server), so the Grid search and P_f
views find them when the person comes back; when the session
disconnects, its job stops and goes (:mod:`kernelviz.ui.session_end`). Streamlit is imported
only by :func:`show_running` (the polling fragment, drawn by :mod:`kernelviz.ui.pollers`).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from typing import Mapping, Sequence

import numpy as np

from kernelviz import _diskcache, pipeline
from kernelviz._background import BackgroundJob
from kernelviz.session import mark_fragment_rerun
from kernelviz.ui import pollers, session_end


class GridJob(BackgroundJob):
    """Grid-search ``names`` on ``prep`` in a daemon thread.

    Parameters
    ----------
    names : sequence of str
        Kernels, searched in this order.
    prep : kernelviz.pipeline.Prepared
        Trains on every labeled point; the unlabeled ones go to each kernel's unsupervised part.
    log_Cs, log_gammas : array
        log₁₀ of the grid's axes.
    cv, seed : int
        Folds and their seed (the seed also fits the kernels' partitions, as in ``grid_search``).
    params : mapping of name → dict
        Each kernel's further arguments (:func:`kernelviz.pipeline.kernel_params`).
    disk_keys : mapping of name → str, optional
        Each kernel's name in the disk cache (:func:`kernelviz.pipeline.search_key`): a search
        stored there by any session or server is taken as it is, and a finished one is stored.

    Attributes
    ----------
    finished : dict of name → (GridResult, path)
        Kernels whose every column is done, as :func:`kernelviz.pipeline.grid_search` returns them.
    failed : dict of name → str
        Kernels that could not be searched, and why.
    error : BaseException or None
        A bug in the computation, kept (the thread must not lose it).
    """

    def __init__(self, names: Sequence[str], prep: pipeline.Prepared, log_Cs: np.ndarray, log_gammas: np.ndarray,
                 cv: int, seed: int, params: Mapping[str, dict], disk_keys: Mapping[str, str] | None = None):
        self.names = tuple(names)
        self.prep = prep
        self.log_Cs, self.log_gammas = np.asarray(log_Cs, dtype=float), np.asarray(log_gammas, dtype=float)
        self.cv, self.seed = int(cv), int(seed)
        self.params = {name: dict(params.get(name, {})) for name in self.names}
        self.disk_keys = dict(disk_keys or {})
        super().__init__(name="kernelviz-grid-search")
        self.finished: dict = {}
        self.failed: dict = {}
        self._columns: dict = {}    # name → the result of the columns done so far
        self._lock = threading.Lock()
        self._start()

    # ------------------------------------------------------------------ the thread

    def _work(self) -> None:
        for name in self.names:
            if self._cancel.is_set():
                return
            try:
                self._search(name)
            except ValueError as err:
                with self._lock:
                    self.failed[name] = str(err)
                    self._columns.pop(name, None)

    def _search(self, name: str) -> None:
        prep = self.prep
        stored = _diskcache.cache().get(self.disk_keys[name]) if name in self.disk_keys else None
        if stored is None:
            result = None
            for result in pipeline.search_columns(name, prep, self.log_Cs, self.log_gammas, self.cv, self.seed,
                                                  self.params[name]):
                with self._lock:
                    self._columns[name] = result
                if self._cancel.is_set():
                    return  # before the next column; the ones done stay in partial()
            stored = (result, pipeline.keerthi_lin_path(prep, result))
            if name in self.disk_keys:
                _diskcache.cache().put(self.disk_keys[name], stored)
        with self._lock:
            self.finished[name] = stored
            self._columns.pop(name, None)

    # ------------------------------------------------------------------ what the app reads

    def result(self, timeout: float | None = None) -> "GridJob":
        """Wait for the thread (at most ``timeout`` s); re-raise its error. (:meth:`cancel` stops
        before the next γ column; finished kernels and columns stay.)"""
        self.wait(timeout)
        return self

    def partial(self) -> dict:
        """name → the unfinished kernel's result so far (NaN in the columns not done yet), no path."""
        with self._lock:
            return {name: (result, None) for name, result in self._columns.items()}

    def progress(self) -> tuple[int, int]:
        """(γ columns done, columns in all) over every kernel."""
        per_kernel = len(self.log_gammas)
        with self._lock:
            done = per_kernel * (len(self.finished) + len(self.failed))
            done += sum(int(np.any(np.isfinite(r.fold_scores), axis=(0, 2)).sum()) for r in self._columns.values())
        return done, per_kernel * len(self.names)


# ============================================================================ the session's job

#: Where a session keeps its grid job and the store key of each of its kernels (in
#: :func:`kernelviz.ui.session_end.store`: released with the session).
JOB_KEY = "_grid_job"
#: How often the running grid's fragment redraws its cells.
POLL_SECONDS = 1.0


@dataclasses.dataclass
class SessionJob:
    """A session's grid job, the store key of each kernel's result, and which were handed over."""

    job: GridJob
    keys: dict
    handed_over: set = dataclasses.field(default_factory=set)

    @property
    def running(self) -> bool:
        return not self.job.done

    def covers(self, keys: Mapping[str, object]) -> bool:
        """Whether this job searches exactly these settings for these kernels."""
        return all(self.keys.get(name) == key for name, key in keys.items())


def start(store, keys: Mapping[str, object], job: GridJob) -> None:
    """Make ``job`` the session's grid job (a running older one is stopped: one search at a time)."""
    old = store.get(JOB_KEY)
    if old is not None:
        old.job.cancel()
    store[JOB_KEY] = SessionJob(job, dict(keys))


def current(store) -> SessionJob | None:
    return store.get(JOB_KEY)


def cancel(store) -> None:
    """Stop the session's grid job, if any (what finished is kept)."""
    session_job = store.get(JOB_KEY)
    if session_job is not None:
        session_job.job.cancel()


def release(store) -> None:
    """The session ended: its grid job stops and goes, with what it found."""
    cancel(store)
    store.pop(JOB_KEY, None)


session_end.RELEASERS.append(release)


def hand_over(store, keep) -> None:
    """Give each kernel the job finished (or could not search) to ``keep(key, result)``, once.

    ``keep`` receives ``(result, path)`` or a :class:`kernelviz.pipeline.GridFailure`.
    """
    session_job = store.get(JOB_KEY)
    if session_job is None:
        return
    job = session_job.job
    for name, result in list(job.finished.items()) + [(n, pipeline.GridFailure(r)) for n, r in job.failed.items()]:
        if name not in session_job.handed_over:
            keep(session_job.keys[name], result)
            session_job.handed_over.add(name)


def show_running(store, draw) -> None:
    """While the session's job runs: a Cancel button, and its progress and ``draw(grids, complete)``
    of the cells so far, redrawn every :data:`POLL_SECONDS` in a fragment; when it ends, the page
    reruns to show the result.

    The button and the fragment find the job in ``store`` rather than keep it: Streamlit keeps
    both with a disconnected session, after the session's job and results are released
    (:mod:`kernelviz.ui.session_end`).
    """
    import streamlit as st

    job = current(store).job
    # The button stays out of the polling fragment: redrawn every second, a click landing on a
    # redraw was lost. Its click reruns the page, which shows "Cancelling" until the job stops.
    st.button("Cancel", key="grid_cancel", on_click=cancel, args=(store,), disabled=job.cancelled,
              help="Stop after the column being computed; what finished is kept (marked incomplete).")
    # drawn after the page's last widget (a tick sends the browser's widget values with it)
    pollers.hold(st.empty(), _running_fragment(), store, draw)


def _running(store, draw) -> None:
    import streamlit as st

    pollers.keep_page_settings()
    session_job = current(store)
    if session_job is None or session_job.job.done:  # ended, or released with the session (a reconnect)
        # a timed run: Streamlit resets the page's widgets when a fragment reruns the whole app,
        # which mark_fragment_rerun repairs (streamlit/streamlit#11266)
        mark_fragment_rerun(st.session_state)
        st.rerun()  # the finished searches belong to the page (stored, P_f, downloads)
    job = session_job.job
    done, total = job.progress()
    st.progress(done / max(total, 1), text="Cancelling: what finished is kept …" if job.cancelled else
                f"Grid search in the background: {done} of {total} γ columns — the other views stay usable.")
    grids = {**job.finished, **job.partial()}
    if grids:
        draw(grids, complete=False)


@functools.cache
def _running_fragment():
    import streamlit as st

    return st.fragment(_running, run_every=POLL_SECONDS)
