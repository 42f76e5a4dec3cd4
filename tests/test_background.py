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
    broken.join(5)
    assert isinstance(broken.error, RuntimeError)
    after = Recorded(log, 0.01)
    after.wait(timeout=2)
    assert after.done and len(log) == 2


class Niceness(BackgroundJob):
    """Records the nice value its work runs at."""

    def __init__(self):
        super().__init__(name="test-niceness")
        self.seen = None
        self._start()

    def _work(self) -> None:
        import os

        self.seen = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="a thread's own nice value is Linux's")
def test_a_job_works_behind_the_page_and_the_page_keeps_its_priority():
    """A lattice started by one γ step computed while the next step's panels did, at the same priority."""
    import os

    from kernelviz import _background

    page = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    job = Niceness()
    job.wait(timeout=10)
    assert job.seen == max(_background.NICENESS, page)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == page


class Where(BackgroundJob):
    """Records the thread it works on, and a context variable it sets there."""

    mark = __import__("contextvars").ContextVar("mark", default=None)

    def __init__(self):
        super().__init__(name="test-where")
        self._start()

    def _work(self) -> None:
        self.thread, self.name_seen, self.mark_seen = threading.current_thread(), threading.current_thread().name, self.mark.get()
        self.mark.set("left by a job")


def test_jobs_run_on_kept_threads_under_their_own_names_and_start_from_a_clean_context():
    """Starting a thread per job waited for the system to run it: up to 58 ms of a committed γ step."""
    from kernelviz import _background

    first = Where()
    first.wait(timeout=10)
    kept = set(threading.enumerate())
    deadline = time.monotonic() + 10
    while not _background._WORKERS._idle and time.monotonic() < deadline:  # a kept thread is idle again
        time.sleep(0.01)  # (it counts itself after its job): polled, not waited for a fixed time
    second = Where()
    second.wait(timeout=10)
    assert second.thread in kept  # no thread started for it (the objects: a new thread may take an ended one's id)
    assert second.name_seen == "test-where" and second.mark_seen is None
    assert first.done and second.done and first.thread.daemon


def test_an_idle_kept_thread_keeps_no_job_alive():
    """A closed session's lattice must not live on in the thread that computed it."""
    import gc
    import weakref

    from kernelviz import _background

    job = Where()
    job.wait(timeout=10)
    gone = weakref.ref(job)
    del job
    deadline = time.monotonic() + 10
    while gone() is not None and time.monotonic() < deadline:  # the thread counts itself idle after its job
        gc.collect()
        time.sleep(0.01)
    assert gone() is None and _background._WORKERS._idle


def test_the_process_exit_cancels_the_running_jobs_and_waits_for_them(tmp_path):
    """A job computing on its daemon thread while the interpreter tore down its modules crashed the
    exit ("free(): invalid pointer", "terminate called without an active exception"): the exit
    cancels every running job and waits for it, so the job sees the cancel and ends before."""
    import subprocess
    import sys

    flag = tmp_path / "ended"
    code = ("import threading\n"
            "from kernelviz._background import BackgroundJob\n"
            "working = threading.Event()\n"
            "class Busy(BackgroundJob):\n"
            "    def __init__(self):\n"
            "        super().__init__(name='kernelviz-busy')\n"
            "        self._start()\n"
            "    def _work(self):\n"
            "        working.set()\n"
            "        while not self.cancelled:\n"
            "            sum(range(10000))\n"
            f"        open({str(flag)!r}, 'w').write('cancelled')\n"
            "job = Busy()\n"
            "working.wait(60)\n")  # the process ends while the job works
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert flag.read_text() == "cancelled"  # the job ended, seeing the cancel, before the process did
