"""Background jobs that share a gate (kernelviz._background): on two cores, many sessions' live
lattices computing at once starved the page runs and the server's event loop (issue 17's sessions
benchmark: health polls over 1 s, sessions stuck); one lattice computes at a time."""

from __future__ import annotations

import pytest

import threading
import time

from kernelviz._background import BackgroundJob

pytestmark = pytest.mark.unit


class Recorded(BackgroundJob):
    """Works for ``seconds``, recording when; fails when asked to."""

    gate = threading.BoundedSemaphore(1)

    def __init__(self, log: list, seconds: float, fail: bool = False):
        super().__init__(name="test-job")
        self.log, self.seconds, self.fail = log, seconds, fail
        self._start()

    def _work(self) -> None:
        start = time.monotonic()
        time.sleep(self.seconds)
        self.log.append((start, time.monotonic()))
        if self.fail:
            raise RuntimeError("a bug in the work")


def test_jobs_of_one_gate_work_one_at_a_time_and_all_finish():
    log: list = []
    jobs = [Recorded(log, 0.15) for _ in range(4)]
    for job in jobs:
        job.wait(timeout=10)
    assert len(log) == 4
    spans = sorted(log)
    assert all(later[0] >= earlier[1] - 1e-3 for earlier, later in zip(spans, spans[1:])), spans


def test_a_job_cancelled_while_it_waits_for_the_gate_ends_at_once_without_working():
    log: list = []
    first = Recorded(log, 0.6)
    time.sleep(0.1)  # the first holds the gate
    waiting = Recorded(log, 0.01)
    waiting.cancel()
    started = time.monotonic()
    waiting.wait(timeout=5)
    assert time.monotonic() - started < 0.4 and waiting.done  # did not wait for the first to finish
    first.wait(timeout=5)
    assert len(log) == 1


def test_a_failing_job_gives_the_gate_back():
    log: list = []
    broken = Recorded(log, 0.01, fail=True)
    broken._thread.join(5)
    assert isinstance(broken.error, RuntimeError)
    after = Recorded(log, 0.01)
    after.wait(timeout=2)
    assert after.done and len(log) == 2
