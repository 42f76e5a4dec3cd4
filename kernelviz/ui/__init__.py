"""The app's Streamlit pieces, one module per concern; ``app.py`` wires them together.

Only the app imports this package: the rest of kernelviz never imports Streamlit.
"""

import faulthandler
import os
import signal
from pathlib import Path

import numpy  # noqa: F401  (loaded here, so that its BLAS is among those limited below)
from threadpoolctl import threadpool_limits

#: BLAS threads per call in the app's server. Its BLAS calls are small (a committed step's fits and
#: grid sums, a lattice's matrix-vector products) and come from several threads at once (sessions,
#: lattice jobs) on cores the browser shares; OpenBLAS's extra threads only waited for a core, or
#: spun on one. One thread: a committed γ step to a new value 0.30–0.31 s median against 0.34–0.35 s
#: (benchmarks/RESULTS.md, 2026-11-27 afternoon). Processes the server starts inherit the variables.
SERVER_BLAS_THREADS = 1
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = str(SERVER_BLAS_THREADS)  # read by the BLAS libraries loaded from now on (scipy's)
threadpool_limits(limits=SERVER_BLAS_THREADS, user_api="blas")  # and those already loaded (numpy's)

# `kill -USR1 PID` writes the stack of every thread of the app's server to its stderr: what a page
# that stays "running" is waiting for (benchmarks/bench_sessions.py asks for it when a session is stuck).
if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, all_threads=True)

#: The app's tab icon (◎ in the app's colour), shipped with the package so the app works offline.
ICON_PATH = Path(__file__).with_name("icon.png")
