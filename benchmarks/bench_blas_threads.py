"""One BLAS thread or two, for the computations of ``kernelviz reproduce`` (kernelviz/_threads.py).

Times, with one and with two BLAS threads, the steps of a CKSVMNDA fit on the German row's size
(560 training points of a fold, 20 z-scored attributes): the eigendecomposition of the RBF Gram
matrix, and a whole fit at a new γ; and a kernel MPM's fit on the same points, whose CPU seconds
are what the MCPM paper's time columns record (``time.process_time``: every thread of the process,
so a BLAS thread that waits for the other's turn counts). Each is timed with the other core free and with it kept busy by
a process that computes with two BLAS threads of its own, started in a session of its own (what a
test suite or a run in another terminal does beside a long run). Linux shares the cores between
sessions before it looks at a process's nice value (autogroups), so the two fight as equals.

Prints each median and spread over ``--repeats`` in wall seconds, the ratio two threads / one in
wall seconds and in the process's CPU seconds, the load average,
and PASS when one thread is (a) at most 1.5 × two threads' time with the core free and (b) faster
than two threads with it busy; exits 1 otherwise.

Usage: ``.venv/bin/python benchmarks/bench_blas_threads.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from scipy import linalg
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_limits

from kernelviz import models

N, D = 560, 20
FREE_BUDGET = 1.5  # one thread at most this many times two threads' time, on a free core
#: The other process: eigendecompositions, one after another, with two BLAS threads.
BUSY = ("import numpy as np; from scipy import linalg; A = np.random.default_rng(1).normal(size=(400, 400)); "
        "A = A @ A.T\nwhile True: linalg.eigh(A)")


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, D))
    y = (X[:, :3].sum(axis=1) + rng.normal(scale=1.0, size=N) > 0).astype(int)
    return X, y


def timed(work, repeats):
    """[(wall seconds, CPU seconds of the process)] of ``repeats`` runs of ``work``."""
    times = []
    for _ in range(repeats):
        started, cpu = time.perf_counter(), time.process_time()
        work()
        times.append((time.perf_counter() - started, time.process_time() - cpu))
    return times


def measure(repeats):
    X, y = data()
    K = rbf_kernel(X, gamma=0.05)
    gammas = iter(np.geomspace(0.01, 1.0, 1000))  # a new γ each fit: no stage kept from the one before
    work = {"eigh of the 560 × 560 Gram": lambda: linalg.eigh(K),
            "CKSVMNDA fit at a new γ": lambda: models.CKSVMNDA(C=1.0, gamma=next(gammas), eta=1e-3).fit(X, y),
            "kernel MPM fit": lambda: models.MPM(kernel="rbf", gamma=0.05).fit(X, y)}
    out = {}
    for name, step in work.items():
        for threads in (2, 1):
            with threadpool_limits(limits=threads, user_api="blas"):
                step()  # warm
                out[name, threads] = timed(step, repeats)
    return out


def show(results, condition):
    lines, ratios = [], {}
    for name in dict.fromkeys(name for name, _ in results):
        (two, two_cpu), (one, one_cpu) = (list(zip(*results[name, threads])) for threads in (2, 1))
        ratios[name] = statistics.median(two) / statistics.median(one)
        lines.append(f"{condition}: {name}: 2 threads {statistics.median(two):.3f} s ({min(two):.3f}–{max(two):.3f}), "
                     f"1 thread {statistics.median(one):.3f} s ({min(one):.3f}–{max(one):.3f}); "
                     f"2 / 1 = {ratios[name]:.2f}; CPU seconds 2 / 1 = "
                     f"{statistics.median(two_cpu) / statistics.median(one_cpu):.2f}")
    print("\n".join(lines), flush=True)
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    free = show(measure(args.repeats), "core free")
    spinner = subprocess.Popen([sys.executable, "-c", BUSY], env={**os.environ, "OPENBLAS_NUM_THREADS": "2"},
                               start_new_session=True)
    try:
        busy = show(measure(args.repeats), "core busy")
    finally:
        spinner.kill()
        spinner.wait()
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    ok = True
    for name in free:
        fine_free = 1 / free[name] <= FREE_BUDGET
        fine_busy = busy[name] > 1
        ok &= fine_free and fine_busy
        print(f"{'PASS' if fine_free and fine_busy else 'FAIL'}: {name}: one thread "
              f"{1 / free[name]:.2f} × two threads' time on a free core (budget ≤ {FREE_BUDGET}), "
              f"{1 / busy[name]:.2f} × on a busy one (budget < 1)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
