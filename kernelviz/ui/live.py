"""Live exploration: each view's figure is its own live preview, fed by background lattices.

On Decision boundaries and Similarity, :func:`live_preview` gives the view's figure (drawn by
:mod:`kernelviz.components.plot`) a lattice and γ (and C) sliders. The first run of a view
starts a :class:`kernelviz.lattice.LatticeJob` for its (data, kernels, grid, committed γ /
C); while it runs, the view says so under its figure, and a small fragment of the page's own
(:func:`watcher`, never inside the view's fragment) polls (:mod:`kernelviz.components.poll`) and,
once the lattice is finished, tells the figure, which reruns its view's body: that run sends it
the lattice. Dragging then repaints every kernel panel of the figure in the browser with no script
run; a release commits the value to the settings (URL, cached fits) in one run of the view's
body (the app draws it as a fragment), whose figure replaces the preview.

Which lattices exist is decided by :class:`LiveLattices`, which knows nothing of Streamlit
(a ``dict`` stands in for the session's :func:`kernelviz.ui.session_end.store` in the tests,
which releases the lattices when the session disconnects): per session, per view kind,
the lattice of the committed values and at most one finished older one of the same data
and kernels (shown where it still holds until the new one is ready); anything of other data, kernels or grid is cancelled and dropped at once.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Hashable, Iterable, Mapping, MutableMapping

from kernelviz import registry
from kernelviz import state as kvstate
from kernelviz.components import poll
from kernelviz.protocol import Finished, LivePreview
from kernelviz.outside import message
from kernelviz.session import mark_fragment_rerun, write_settings
from kernelviz.ui import pollers, session_end

if TYPE_CHECKING:  # the lattice imports scikit-learn: first needed when a view scrubs, not at the app's start
    from kernelviz.lattice import Lattice, LatticeJob

#: Where a session keeps its lattices (in :func:`kernelviz.ui.session_end.store`; released with the session).
STORE_KEY = "_live_lattices"
#: Jobs requested during a run, started when the run has drawn the page.
PENDING_KEY = "_live_pending"
#: Set by a commit's callback, cleared by the view's run: a commit that reached the server with a
#: tick of the watcher (Streamlit sends the widget updates of one moment in one batch, run as
#: the first one's fragment) ran the watcher, not the view (see ``_watch``).
COMMITTED_KEY = "_live_committed"
#: What the watcher waits for: (kind, context, committed, start) of the lattice the view's latest
#: run is preparing, or None (set by every run of a scrub view; see ``_watch``).
WATCH_KEY = "_live_watched"
#: Lattices a session holds at once (two views × (current + one older)); the least
#: recently used go first. A decision lattice of four kernels is ~1.3 MB of codes.
MAX_LATTICES = 4
#: Seconds a lattice job waits before it computes: it is started as the page's run ends, when the
#: browser draws the committed figure, and on two cores it took the CPU from it (a committed γ step
#: 0.83–0.86 s → 0.68–0.73 s median when stepping without a pause, 1.15–1.27 s → 0.78–0.79 s with
#: one of 1 s, when the new lattice's rerun met the next step).
START_DELAY = 0.5
#: Set when a view's run drew the scrub sliders (the app then leaves γ and C out of the sidebar).
SCRUB_SHOWN_KEY = "_live_scrub_shown"
#: How long after each of its runs the watcher looks again whether the lattice is finished.
POLL_SECONDS = 0.5
#: The figures' element while its lattice is being prepared (the plot component's sliders.js sets ``data-waiting``): the
#: watcher's poll ticks only while the page has one.
WAITING_SELECTOR = '.kv-live[data-waiting="1"]'
#: The kinds of lattice and the view each belongs to (the views' rows, ``registry.VIEWS``).
VIEW_KINDS = {view: facts.live for view, facts in registry.VIEWS.items() if facts.live}


@dataclass(frozen=True)
class LiveState:
    """What the fragment shows: ``lattice`` (None: nothing yet), and why.

    ``running``: the lattice of the committed values is still being computed;
    ``previous``: ``lattice`` is an older finished one of the same data and kernels (the
    component blanks, with a note, whatever of it the committed values left behind);
    ``stopped``: the person stopped the computation; ``error``: it failed as a whole.
    """

    lattice: Lattice | None
    running: bool
    previous: bool = False
    stopped: bool = False
    error: BaseException | None = None


class LiveLattices:
    """A session's lattice jobs, over a plain mapping (see the module's notes).

    Keys are ``(kind, context, committed)``: ``context`` identifies the data, kernels and
    grid (and the reference point of a similarity lattice); ``committed`` the γ / C values
    the lattice is centred on.
    """

    def __init__(self, store: MutableMapping, max_lattices: int = MAX_LATTICES):
        self.jobs: OrderedDict = store.setdefault(STORE_KEY, OrderedDict())
        self._store = store
        self.pending: dict = store.setdefault(PENDING_KEY, {})   # key → start, for :meth:`start_pending`
        self.max_lattices = max_lattices

    def request(self, kind: str, context: Hashable, committed: Hashable,
                start: Callable[[], LatticeJob], begin: bool = True) -> LiveState:
        """The lattice to show for these settings, starting its job (``start()``) when there is none.

        With ``begin=False`` a missing job is not started yet (the page paints first, with the
        CPU to itself): the state is then ``running`` with the previous lattice, or none.
        """
        key = (kind, context, committed)
        for other, job in list(self.jobs.items()):
            if other[0] != kind or other == key:
                continue
            # Other data, kernels or grid: stale. Unfinished for other values: superseded.
            if other[1] != context or not _finished(job):
                self._drop(other)
        older = [k for k in self.jobs if k[0] == kind and k != key]
        for stale in older[:-1]:
            self._drop(stale)
        if key not in self.jobs:
            if not begin:
                self.pending = {key: start}  # only the latest request of a run is worth starting
                self._store_pending()
                fallback = self.jobs.get(older[-1]) if older else None
                return LiveState(fallback.lattice if fallback else None, running=True, previous=bool(fallback))
            self.jobs[key] = start()
        self.jobs.move_to_end(key)
        while len(self.jobs) > self.max_lattices:
            self._drop(next(iter(self.jobs)))
        job = self.jobs[key]
        if job.error is not None:
            return LiveState(None, running=False, error=job.error)
        running = not job.done and not job.cancelled
        if _finished(job):
            return LiveState(job.lattice, running=False)
        fallback = self.jobs.get(older[-1]) if older and older[-1] in self.jobs else None
        if fallback is not None:
            return LiveState(fallback.lattice, running=running, previous=True, stopped=job.cancelled)
        return LiveState(job.lattice, running=running, stopped=job.cancelled)

    def start_pending(self) -> None:
        """Start the jobs requested with ``begin=False`` (the app calls this when its run has drawn the page)."""
        for key, start in list(self.pending.items()):
            if key not in self.jobs:
                self.request(*key, start)
        self.pending.clear()

    def _store_pending(self) -> None:
        self._store[PENDING_KEY] = self.pending

    def stop(self, kind: str) -> None:
        """Stop the running jobs of ``kind``; their finished kernels stay, the rest is never sent as current."""
        for key, job in self.jobs.items():
            if key[0] == kind and not job.done:
                job.cancel()

    def restart(self, kind: str) -> None:
        """Forget the stopped jobs of ``kind``, so that the next request computes them again."""
        for key in [k for k, job in self.jobs.items() if k[0] == kind and job.cancelled]:
            del self.jobs[key]

    def leave(self, kind: str | None) -> None:
        """The page shows another view: unfinished jobs of the other kinds stop and go; finished
        lattices stay (they are still right for their settings, and coming back reuses them)."""
        for key in [k for k in self.pending if k[0] != kind]:
            del self.pending[key]
        for key in [k for k, job in self.jobs.items() if k[0] != kind and not _finished(job)]:
            self._drop(key)

    def release(self) -> None:
        """The session ended: every job stops, and no lattice or request is kept."""
        for job in self.jobs.values():
            job.cancel()
        self.jobs.clear()
        self.pending.clear()

    def previous(self, kind: str, context: Hashable) -> Lattice | None:
        """The newest finished lattice of ``kind`` and ``context`` (what a new lattice of the
        same data and kernels can reuse), or None."""
        finished = [job for key, job in self.jobs.items() if key[:2] == (kind, context) and _finished(job)]
        return finished[-1].lattice if finished else None

    def _drop(self, key) -> None:
        self.jobs.pop(key).cancel()


session_end.RELEASERS.append(lambda computed: LiveLattices(computed).release())


def _finished(job: LatticeJob) -> bool:
    return job.done and not job.cancelled and job.error is None


# ============================================================================ linked views

def clicked_cell(figure, points: list) -> tuple[str, float, float] | None:
    """(kernel, log γ, log C) of a click on a grid heatmap's cell layer (``meta`` names the kernel).

    ``points`` are the selection's points, each with ``curve_number``, ``x`` (log γ) and ``y`` (log C).
    """
    for point in points:
        curve = point.get("curve_number")
        if curve is None or not 0 <= curve < len(figure.data):
            continue
        name = figure.data[curve].meta
        if name:
            return str(name), float(point["x"]), float(point["y"])
    return None


# ============================================================================ drawing

#: Where the hold-out chosen before switching to drawing waits, to come back after it.
_TEST_FRACTION_BEFORE = "_test_fraction_before_drawing"


def source_changed(store) -> None:
    """Switching to drawing trains on every drawn point; switching back restores the earlier hold-out."""
    if store.get("source") == "drawn":
        store[_TEST_FRACTION_BEFORE] = store.get("test_fraction")
        write_settings(store, {"test_fraction": kvstate.DRAWN_TEST_FRACTION})
    elif _TEST_FRACTION_BEFORE in store:
        before = store.pop(_TEST_FRACTION_BEFORE)
        if store.get("test_fraction") == kvstate.DRAWN_TEST_FRACTION and before is not None:
            write_settings(store, {"test_fraction": before})


def drawn_coordinates_note(points, scaling: str) -> str:
    """How the canvas's coordinates map to those of the other views, with the numbers."""
    import numpy as np

    import kernelviz as kv

    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if scaling == "none" or len(points) == 0:
        return "The other views use these coordinates as they are." if scaling == "none" else (
            "The other views show the points scaled as the sidebar's *Scaling* says.")
    offset, factor = kv.data.scaling_parameters(points[:, :2], scaling)

    def term(axis: str, a: float, b: float) -> str:
        shifted = axis if a == 0 else f"({axis} {'−' if a > 0 else '+'} {abs(a):.3g})"
        return f"{axis}′ = {shifted} / {b:.3g}"

    return (f"The other views show them {scaling}-scaled: {term('x', offset[0], factor[0])}, "
            f"{term('y', offset[1], factor[1])}.")


# ============================================================================ the Streamlit side

def live_preview(kind: str, *, prep, kernels: dict, grid, context: Hashable, log_gamma: float,
                 log_C: float | None = None, reference: tuple[float, float] | None = None,
                 axes: Mapping[str, dict], locked: Iterable[str] = (), specs: Mapping | None = None) -> Preview | None:
    """What the view's figure needs to be its own live preview.

    Requests the session's lattice for these values (its job starts once the page is drawn).
    Sets :data:`SCRUB_SHOWN_KEY`: the app then leaves γ and C out of the sidebar, which a commit
    does not rerun. With nothing to preview there is nothing to compute: the sliders still set γ
    and C on release, and every panel says "updates on release" while they move.
    None (and the sidebar keeps γ and C) when the figure has no panel, or the lattice failed as a
    whole (a warning says so).

    Parameters
    ----------
    kind : {"decision", "similarity"}
    prep : kernelviz.pipeline.Prepared
    kernels : dict of name → fitted kernel or :class:`kernelviz.lattice.Model`
        The kernels and models whose panels preview (those the figure drew).
    grid : kernelviz.figures.Grid
        The figure's own field grid: at the committed values the preview and the figure agree.
    context : hashable
        Identifies the data, kernels and grid (and the reference point): a lattice of another
        context is never shown.
    log_gamma, log_C : float
        The committed values (``log_C`` None for a similarity lattice).
    reference : (float, float), optional
        The reference point of a similarity lattice.
    axes : mapping of panel name → {"xaxis", "yaxis"[, "margins"]}
        Every panel of the figure and its subplot (and whether its f = ±1 are an SVM's margins);
        those not in ``kernels`` keep their committed picture while a slider moves, and say
        "updates on release".
    locked : iterable of {"log_gamma", "log_C"}
        Settings the teacher's link hides: their sliders are not drawn.
    specs : mapping of name → spec, optional
        What each of ``kernels`` is (its :class:`kernelviz.pipeline.KernelSpec`, a model's
        :class:`kernelviz.lattice.Model`): with them the lattice is read from and kept in the disk
        cache (:func:`kernelviz.lattice.disk_key`), for every session and the next start of the server.
    """
    if not axes:
        return None
    import streamlit as st

    from kernelviz.lattice import Lattice, LatticeJob, disk_key, page_lattice

    committed = (log_gamma, log_C)

    def empty() -> Lattice:
        return page_lattice(kind, prep, list(kernels), grid, log_gamma, log_C, reference)

    if not kernels:
        st.session_state[SCRUB_SHOWN_KEY] = True
        return Preview(preview_payload(empty(), log_gamma, log_C, axes, locked), lambda: None)

    def start() -> LatticeJob:
        # The older lattice is looked up, not kept: this function stays in the session state (WATCH_KEY),
        # which Streamlit keeps with a disconnected session after its lattices are released.
        lattice, previous = empty(), live.previous(kind, context)
        if previous is not None:  # the older lattice of this context: what still holds is not computed again
            lattice.reuse(previous)
        stored_as = disk_key(lattice, prep.key, [specs[name] for name in kernels]) if specs is not None else None
        return LatticeJob(lattice, kernels, prep, delay=START_DELAY, disk_key=stored_as)

    live = LiveLattices(session_end.store())
    # the job starts when this run has painted the page (start_pending), or from the watcher's tick
    state = live.request(kind, context, committed, start, begin=False)
    if state.error is not None:
        st.warning(message("No live preview: {kind}: {error}. The sliders in the sidebar still set γ and C.",
                           kind=type(state.error).__name__, error=state.error))
        return None
    lattice = state.lattice if state.lattice is not None else empty()
    st.session_state[SCRUB_SHOWN_KEY] = True

    def status() -> None:
        # Under the figure, so that the figure does not move when it comes and goes; its place is
        # held in every run, empty or not: an element that came and went with the preparing state
        # moved the elements after it one place and back, and the browser hid them (Streamlit keeps
        # a replaced element hidden until its run ends), then redrew them at full cost. Drawn by the
        # view's run itself, never a fragment of its own (see :func:`watcher`).
        slot = st.container()
        st.session_state[WATCH_KEY] = (kind, context, committed, start) if state.running else None
        if state.running:
            note = ("the panels show the last values' preview until then." if state.previous
                    else "the panels go live when it is ready.")
            c1, c2 = slot.columns([5, 1])
            c1.caption(f"Preparing the live preview in the background: {note}")
            c2.button("Stop", key=f"stop_{kind}", on_click=live.stop, args=(kind,),
                      help="Stop computing the live preview; the committed figure stays.")
        elif state.stopped:
            c1, c2 = slot.columns([5, 1])
            c1.caption("Live preview stopped: the sliders commit on release, and the panels update then.")
            c2.button("Prepare", key=f"restart_{kind}", on_click=live.restart, args=(kind,),
                      help="Compute the live preview for the current values again.")

    return Preview(preview_payload(lattice, log_gamma, log_C, axes, locked, waiting=state.running), status)


def preview_payload(lattice: Lattice, log_gamma: float, log_C: float | None, axes: Mapping[str, dict],
                    locked: Iterable[str] = (), waiting: bool = False) -> LivePreview:
    """``live`` of :func:`kernelviz.components.plot.plot`: the lattice, the figure's own values,
    which of the figure's panels (``axes``: name → subplot) preview — the lattice's kernels — and
    which keep their picture, and whether the lattice of these values is still being prepared
    (the watcher's poll ticks while a figure says so)."""
    return {
        "waiting": bool(waiting),
        "lattice": lattice.to_browser(), "log_gamma": float(log_gamma),
        "log_C": None if log_C is None else float(log_C),
        "panels": [{"name": name, **ref} for name, ref in axes.items() if name in lattice.names],
        "held": [{"name": name, **ref} for name, ref in axes.items() if name not in lattice.names],
        "locked": sorted(set(locked) & {"log_gamma", "log_C"}),
    }


@dataclass(frozen=True)
class Preview:
    """A view's live preview: ``payload`` goes with its figure (``live`` of
    :func:`kernelviz.components.plot.plot`); ``status()`` draws, under the figure, the line that
    says the lattice is being prepared (the :func:`watcher` waits for it) or was stopped."""

    payload: LivePreview
    status: Callable[[], None]


def commit(value: dict) -> None:
    """A release of a slider above a figure (the callback, before the rerun): the value becomes the setting."""
    import streamlit as st

    write_settings(st.session_state, {axis: round(float(value[axis]), 4) for axis in ("log_gamma", "log_C")
                                      if value.get(axis) is not None})
    st.session_state[COMMITTED_KEY] = True


def _watch() -> None:
    """The watcher's run (a tick of its poll, or the page's call): once the lattice the view is
    preparing is finished (or stopped), it tells the figure, whose view's run brings it
    (:func:`finished_signal`); a lattice requested but not started yet is started."""
    import streamlit as st

    pollers.keep_page_settings()
    if st.session_state.pop(COMMITTED_KEY, False):
        # A commit came in this tick's batch and ran here: the committed figure is the view's, which
        # only a page rerun reaches from here (rare: the two in the same moment).
        mark_fragment_rerun(st.session_state)
        st.rerun()
    finished = None
    watched = st.session_state.get(WATCH_KEY)
    if watched is not None:
        kind, context, committed, start = watched
        # A tick sends the browser's widget values with it. On a busy page the timer can fire after a
        # commit's run has sent the sidebar its new γ / C but before the browser has set them: the
        # tick then carries the old values, and the page went back to them. What the view prepares
        # is the committed values, and no run that leaves the view in place changes them.
        for axis, value in zip(("log_gamma", "log_C"), committed):
            if value is not None and st.session_state.get(axis) != value:
                st.session_state[axis] = value
        live = LiveLattices(session_end.store())
        job = live.jobs.get((kind, context, committed))
        if job is None:
            live.request(kind, context, committed, start)  # a tick: the page is painted, the lattice may take the CPU
        elif job.done or job.cancelled:
            finished = finished_signal(kind, job)
    poll.poll(key="live_poll", every=POLL_SECONDS, finished=finished, watch=WAITING_SELECTOR)


def finished_signal(kind: str, job: LatticeJob) -> Finished:
    """What the watcher tells the figure when its job is finished or stopped: one signal per
    lattice and outcome (the plot component's sliders.js acts once on each)."""
    return {"kind": kind, "signal": f"{job.lattice.uid}:{'stopped' if job.cancelled else 'done'}"}


def watcher() -> None:
    """The live preview's watcher, drawn by the page's run after its last widget (a tick sends the
    browser's widget values with it, :mod:`kernelviz.ui.pollers`) when a scrub view is open.

    A fragment of the page's own, outside the view's fragment, and it draws nothing but its poll:
    Streamlit's front end fails on a fragment drawn inside another whose own run has since moved or
    removed its place ("'setIn' cannot be called on an ElementNode", "Cannot set a node at a delta
    path"; streamlit/streamlit#15084, #16708), and the session is dead. The status line it used to
    be, inside the view, killed 3-8 of 16 sessions of ``benchmarks/bench_sessions.py`` so. The view's
    runs say what it waits for (:data:`WATCH_KEY`), and the figure says when to tick
    (:data:`WAITING_SELECTOR`).
    """
    _watcher_fragment()()


@functools.cache
def _watcher_fragment():
    import streamlit as st

    return st.fragment(_watch)
