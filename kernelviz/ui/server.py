"""What the app sets in its server's process: imported with :mod:`kernelviz.ui`, before the first
page runs on.

- One BLAS thread per call (:data:`SERVER_BLAS_THREADS`).
- ``kill -USR1 PID`` writes every thread's stack to the server's stderr: what a page that stays
  "running" is waiting for (benchmarks/bench_sessions.py asks for it when a session is stuck).
- A browser that stops reading for a while is waited for, not dropped (:func:`keep_slow_browsers`).
- What a closed session freed goes back to the system (:func:`give_freed_memory_back`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import faulthandler
import os
import signal

import numpy  # noqa: F401  (loaded here, so that its BLAS is among those limited below)
from threadpoolctl import threadpool_limits

from kernelviz._threads import BLAS_THREAD_VARIABLES
from kernelviz.ui.streamlit_private import hold_messages

#: BLAS threads per call in the app's server. Its BLAS calls are small (a committed step's fits and
#: grid sums, a lattice's matrix-vector products) and come from several threads at once (sessions,
#: lattice jobs) on cores the browser shares; OpenBLAS's extra threads only waited for a core, or
#: spun on one. One thread: a committed γ step to a new value 0.30–0.31 s median against 0.33–0.36 s
#: (benchmarks/RESULTS.md, 2026-11-27 afternoon). Processes the server starts inherit the variables.
SERVER_BLAS_THREADS = 1
for _variable in BLAS_THREAD_VARIABLES:
    os.environ[_variable] = str(SERVER_BLAS_THREADS)  # read by the BLAS libraries loaded from now on (scipy's)
threadpool_limits(limits=SERVER_BLAS_THREADS, user_api="blas")  # and those already loaded (numpy's)

if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, all_threads=True)


#: Messages a browser's connection holds while the browser does not read them. Streamlit (1.67)
#: drops a browser with 500 waiting: the connection stays open, the page says "running" for good
#: and shows what had arrived (tests/apps/many_messages.py: 940 of 2,000 messages after 8 s of a busy
#: page). A page run of this app writes 60–120 messages, and eight Chromiums on two cores leave a page
#: unread for seconds. Runs start only at a browser's request, so what waits is bounded by the runs
#: it asked for.
WAITING_MESSAGES = 50_000


def keep_slow_browsers() -> None:
    """Let this page's connection hold :data:`WAITING_MESSAGES` (called by every page run: a browser that
    reconnects gets a new connection), and every connection made from now on."""
    hold_messages(WAITING_MESSAGES)


def give_freed_memory_back() -> None:
    """Return the C heap's free pages to the system (glibc's ``malloc_trim``; elsewhere nothing).

    A session's lattices, fits and figures are many arrays of 0.1–2 MB. glibc serves those from its
    heaps once a freed large block has raised its mmap threshold, and keeps freed heap pages for the
    process. benchmarks/bench_sessions.py, the server's RSS after eight sessions had closed: 401–572 MB
    (median 468) in 16 batches without this, 345–450 MB (median 401) in 16 with it (benchmarks/RESULTS.md,
    2026-11-27 evening).
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (macOS, Windows, musl)
        return None


_MALLOC_TRIM = _malloc_trim()
