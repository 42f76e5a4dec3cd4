"""How many threads the BLAS libraries (OpenBLAS, MKL, OpenMP) compute with in kernelviz's own
processes: one in the app's server (kernelviz/ui/server.py), and one in ``kernelviz reproduce``
unless the person running it set one of :data:`BLAS_THREAD_VARIABLES`. OpenBLAS's second
thread pays off only on a free machine; once a process in another session (a test suite, a run in
another terminal — Linux shares the cores between sessions before it reads nice values) computes
with BLAS threads of its own, the threads of each wait for the other's at every step of LAPACK's
eigensolvers. On this 2-core machine (benchmarks/bench_blas_threads.py, 2026-11-28): ``eigh`` of a
560 × 560 Gram matrix 0.039 s with two threads and 0.049 s with one on a free core, but 4.29 s
against 0.045 s beside such a process; a CKSVMNDA fit at a new γ on the German row's size 0.41 s
against 0.19 s free, 9.5 s against 0.20 s beside it.
"""

from __future__ import annotations

import contextlib
import os

from threadpoolctl import threadpool_limits

#: The variables the BLAS libraries read when they load; a person who set one chose the threads.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def threads_chosen() -> bool:
    """True when the environment names a number of BLAS threads."""
    return any(os.environ.get(variable) for variable in BLAS_THREAD_VARIABLES)


def one_blas_thread():
    """A context in which the BLAS libraries already loaded compute with one thread (the caller's
    setting is back afterwards), or, when :func:`threads_chosen`, one that changes nothing."""
    return contextlib.nullcontext() if threads_chosen() else threadpool_limits(limits=1, user_api="blas")
