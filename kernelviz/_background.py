"""A computation in a background thread that the page can stop: the live lattice, the app's grid
search, a figure's export.

The page stays usable while it runs; :meth:`BackgroundJob.cancel` asks the work to stop at its
next checkpoint (what is done stays); a bug in the work does not vanish with the thread: it is
kept in ``error`` and raised again, in the caller's thread, by :meth:`BackgroundJob.wait`.

Jobs run on daemon threads kept for the process (:class:`_Workers`), behind the page
(:func:`behind_the_page`). A thread started per job made the run that asks for it wait until the
system ran the new thread: a committed γ step starts a lattice, and on a busy machine that start
took up to 58 ms of the step (Thread.start timed in the app's server, 2026-11-28).
"""

from __future__ import annotations

import atexit
import contextvars
import os
import queue
import sys
import threading
import time

#: The nice value of a job's thread: on two cores, a lattice started by one γ step computed while
#: the next step's panels did, and took half the CPU from the step the person waits for.
NICENESS = 19
#: The name of a kept thread while it has no job (at work it carries its job's name).
IDLE_NAME = "kernelviz-job"
#: Seconds a process's exit waits for the jobs it cancels. A job still computing on its daemon thread
#: while the interpreter tore its modules down crashed the exit: "free(): invalid pointer" or
#: "terminate called without an active exception", 1 exit in 3 of a process that ran the app's views
#: under AppTest (2026-11-29).
EXIT_WAIT = 10.0


def behind_the_page() -> None:
    """Lower the calling thread's priority to :data:`NICENESS`, so that the page's own work has the CPU first.

    Only on Linux, where a thread's id names that thread alone to ``setpriority`` (elsewhere it
    would name a process). The priority of the page's threads does not change; a job alone on the
    machine runs as fast as before.
    """
    if sys.platform != "linux":
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, max(NICENESS, os.getpriority(os.PRIO_PROCESS, tid)))
    except OSError:  # not allowed here: the job runs at the page's priority, as it did before
        pass


class _Workers:
    """Daemon threads kept for the process, each running jobs one after another; a new one is
    started only when every kept thread is busy. Daemons: a job still running never holds up the
    server's exit (a ``ThreadPoolExecutor`` joins its threads at exit)."""

    def __init__(self):
        self._tasks: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def run(self, task) -> None:
        with self._lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1  # that thread's next task: this one
        self._tasks.put(task)
        if start:
            threading.Thread(target=self._serve, daemon=True, name=IDLE_NAME).start()

    def _serve(self) -> None:
        behind_the_page()
        while True:
            task = self._tasks.get()
            contextvars.Context().run(task)  # as on a new thread: nothing of an earlier job's context
            del task  # an idle thread keeps no job alive, nor the arrays of its session
            with self._lock:
                self._idle += 1


_WORKERS = _Workers()


class BackgroundJob:
    """Subclasses set up their state, then call :meth:`_start`; a kept thread runs :meth:`_work`,
    which checks :attr:`_cancel` between steps.

    ``delay``: seconds the thread waits before it works (a cancel during the wait ends it), so
    that what the page does next, such as the browser drawing a new figure, has the CPU first.

    ``gate``: a subclass's semaphore, shared by all its jobs (every session's): only as many work
    at once as it allows; the others wait, and a cancel ends their wait. None: no limit.
    """

    gate: threading.Semaphore | None = None
    #: How often a job waiting for the gate looks whether it was cancelled (seconds).
    GATE_POLL = 0.05

    def __init__(self, *, name: str, delay: float = 0.0):
        self.error: BaseException | None = None
        self.name, self.delay = name, delay
        self._cancel = threading.Event()
        self._finished = threading.Event()

    def _start(self) -> None:
        with _STARTED_LOCK:
            _STARTED.add(self)
        _WORKERS.run(self._guarded)

    def _work(self) -> None:
        raise NotImplementedError

    def _guarded(self) -> None:
        thread = threading.current_thread()
        thread.name = self.name  # what a profile, or a test, sees working
        try:
            if self._cancel.wait(self.delay) or not self._enter_gate():
                return
            try:
                self._work()
            finally:
                if self.gate is not None:
                    self.gate.release()
        except BaseException as err:  # noqa: BLE001 - kept for wait(), which raises it in the caller's thread
            self.error = err
        finally:
            thread.name = IDLE_NAME
            self._finished.set()
            with _STARTED_LOCK:
                _STARTED.discard(self)

    def _enter_gate(self) -> bool:
        """Wait for the gate; False if cancelled meanwhile."""
        if self.gate is None:
            return True
        while not self.gate.acquire(timeout=self.GATE_POLL):
            if self._cancel.is_set():
                return False
        if self._cancel.is_set():
            self.gate.release()
            return False
        return True

    def cancel(self) -> None:
        """Stop at the next step; what is done stays."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the job to end (at most ``timeout`` s); whether it has."""
        return self._finished.wait(timeout)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the job (at most ``timeout`` s); re-raise its error."""
        self.join(timeout)
        if self.error is not None:
            raise self.error


#: The jobs started and not finished (the exit cancels them) — a job ends, and leaves, in its thread.
_STARTED: set = set()
_STARTED_LOCK = threading.Lock()


@atexit.register
def _cancel_at_exit() -> None:
    """At the process's exit: cancel every job still running, and wait for them (at most
    :data:`EXIT_WAIT` seconds), so that none computes while the interpreter tears down."""
    with _STARTED_LOCK:
        jobs = list(_STARTED)
    for job in jobs:
        job.cancel()
    deadline = time.monotonic() + EXIT_WAIT
    for job in jobs:
        job.join(max(0.0, deadline - time.monotonic()))
