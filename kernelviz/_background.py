"""A computation in a daemon thread that the page can stop: the live lattice and the app's grid search.

The page stays usable while it runs; :meth:`BackgroundJob.cancel` asks the work to stop at its
next checkpoint (what is done stays); a bug in the work does not vanish with the thread: it is
kept in ``error`` and raised again, in the caller's thread, by :meth:`BackgroundJob.wait`.
"""

from __future__ import annotations

import threading


class BackgroundJob:
    """Subclasses set up their state, then call :meth:`_start`; the thread runs :meth:`_work`,
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
        self.delay = delay
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._guarded, daemon=True, name=name)

    def _start(self) -> None:
        self._thread.start()

    def _work(self) -> None:
        raise NotImplementedError

    def _guarded(self) -> None:
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
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the thread (at most ``timeout`` s); re-raise its error."""
        self._thread.join(timeout)
        if self.error is not None:
            raise self.error
