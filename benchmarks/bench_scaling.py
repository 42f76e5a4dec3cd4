"""How far the grid engine scales: measured task durations replayed on 1–64 simulated workers.

Workload (issue 11 §4): CkRBF (k-means, k = 2, paper scale) on moons, n = 2000, scaled to
[0, 1], 7 × 7 grid C ∈ 10^{−2..4}, γ ∈ 10^{−3..3}, 5-fold stratified CV.

1. ``grid_search(n_jobs=1)`` and ``grid_search(n_jobs=JOBS)`` in the same run (worker pool
   started beforehand): the fold scores must be identical, and the speed-up on the real
   cores ≥ 1.8× for two jobs. Two workers get whole tasks (35 of them, 17 each: one per
   (γ, fold), its Gram built in the task, all its C values fitted).
2. Sixteen workers would get the split plan (35 whole tasks are fewer than
   ``WHOLE_TASKS_PER_WORKER`` per worker): its tasks (``GridResult.tasks``: the Gram builds,
   one per (γ, fold), then the fits, one per (C, γ, fold) for the larger C, largest C
   first), recorded by a run on the real cores with that plan, are replayed on P
   simulated workers by list scheduling in submission order (each task to the worker free
   first), the builds of a round finishing before its fits start, as in the engine. The
   predicted speed-up is the tasks' summed seconds (their time on one simulated worker)
   over the replayed time, printed next to the bound that sum over the longest task
   allows. Budget: ≥ 10× on 16 workers.
3. The baseline: the whole tasks of 1. replayed the same way.

Durations are wall-clock times on a machine that other processes may share (the load
average is printed before and after). The replay compares the same durations on 1 and P
simulated workers, so a uniformly slower machine cancels out; the real-core speed-up in 1.
does not, and is understated on a loaded machine.

Usage: ``python benchmarks/bench_scaling.py [--n 2000] [--jobs 2]``
"""

import argparse
import heapq
import os
import sys

import joblib
import numpy as np

import kernelviz as kv
from bench_grid import Budgets, timed
from kernelviz import evaluation

CS = 10.0 ** np.arange(-2, 5)
GAMMAS = 10.0 ** np.arange(-3, 4)
CV = 5
KERNEL_PARAMS = {"n_components": 2}
WORKERS = (1, 2, 4, 8, 16, 32, 64)


def makespan(durations, n_workers):
    """Finish time of list scheduling: each task, in the order given, to the worker free first."""
    free_at = [0.0] * n_workers
    for seconds in durations:
        heapq.heappush(free_at, heapq.heappop(free_at) + seconds)
    return max(free_at)


def replayed_time(tasks, n_workers):
    """Time on ``n_workers`` of the tasks in submission order; a build (no C) after a fit starts
    a new round, which waits for the previous one (the engine's barrier between rounds)."""
    time, phase, phase_is_build = 0.0, [], True
    for task in tasks:
        is_build = not task.C_indices
        if is_build != phase_is_build and phase:
            time += makespan(phase, n_workers)
            phase = []
        phase_is_build = is_build
        phase.append(task.seconds)
    return time + makespan(phase, n_workers)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    X, y = kv.data.make("moons", n_samples=args.n, random_state=0)
    X = kv.data.scale(X, "minmax")
    load_before = os.getloadavg()[0]
    print(f"bench_scaling: CkRBF on moons, n = {len(X)}, {len(CS)} x {len(GAMMAS)} grid, {CV}-fold; "
          f"{joblib.cpu_count()} CPUs, load average {load_before:.1f} at start")

    # Start the workers and let them import kernelviz, as a reused pool in the app would have.
    evaluation.grid_search("ckrbf", X[:100], y[:100], CS[:2], GAMMAS[:2], cv=CV, n_jobs=args.jobs, **KERNEL_PARAMS)
    one, wall_1, _ = timed(evaluation.grid_search, "ckrbf", X, y, CS, GAMMAS, cv=CV, n_jobs=1, **KERNEL_PARAMS)
    many, wall_n, _ = timed(evaluation.grid_search, "ckrbf", X, y, CS, GAMMAS, cv=CV, n_jobs=args.jobs,
                            **KERNEL_PARAMS)
    whole_tasks_per_worker = evaluation.WHOLE_TASKS_PER_WORKER
    evaluation.WHOLE_TASKS_PER_WORKER = len(one.tasks)  # more than 2 workers' share: the split plan of 16 workers
    try:
        split, wall_split, _ = timed(evaluation.grid_search, "ckrbf", X, y, CS, GAMMAS, cv=CV, n_jobs=args.jobs,
                                     **KERNEL_PARAMS)
    finally:
        evaluation.WHOLE_TASKS_PER_WORKER = whole_tasks_per_worker
    load_after = os.getloadavg()[0]

    budgets = Budgets()
    print(f"  grid_search n_jobs=1        {wall_1:7.2f} s wall, {len(one.tasks)} tasks "
          f"({one.n_capped_fits} fits capped at max_iter={evaluation.DEFAULT_MAX_ITER})")
    print(f"  grid_search n_jobs={args.jobs:<8d} {wall_n:7.2f} s wall, {len(many.tasks)} tasks")
    print(f"  the same, fits split      {wall_split:7.2f} s wall, {len(split.tasks)} tasks "
          f"({wall_1 / wall_split:.2f}x: the plan kept for many workers)")
    identical = np.array_equal(one.fold_scores, many.fold_scores) and np.array_equal(one.fold_scores,
                                                                                      split.fold_scores)
    budgets.check(f"n_jobs={args.jobs} gives the fold scores of n_jobs=1", identical,
                  "identical" if identical else "DIFFERENT fold scores")
    budgets.check(f"speed-up on {args.jobs} real cores >= 1.8", wall_1 / wall_n >= 1.8, f"{wall_1 / wall_n:.2f}x")

    fine = [task.seconds for task in split.tasks]
    work = sum(fine)  # the tasks on one simulated worker
    coarse = [task.seconds for task in many.tasks]
    n_builds = sum(1 for task in split.tasks if not task.C_indices)
    print(f"  split plan: {n_builds} Gram builds and {len(fine) - n_builds} fit "
          f"tasks, {sum(fine):.1f} s in all, longest {max(fine):.2f} s; whole tasks: {sum(coarse):.1f} s in all, "
          f"longest {max(coarse):.2f} s")
    print(f"  {'workers':>7}  {'speed-up':>8}  {'bound':>6}  {'whole tasks':>11}")
    predicted = {}
    for n_workers in WORKERS:
        predicted[n_workers] = work / replayed_time(split.tasks, n_workers)
        print(f"  {n_workers:7d}  {predicted[n_workers]:7.1f}x  {work / max(fine):5.1f}x  "
              f"{sum(coarse) / makespan(coarse, n_workers):10.1f}x")
    budgets.check("predicted speed-up on 16 workers >= 10", predicted[16] >= 10, f"{predicted[16]:.1f}x")
    print(f"  load average {load_before:.1f} at start, {load_after:.1f} at the end"
          + ("" if max(load_before, load_after) < 0.5 else
             f" on {joblib.cpu_count()} CPUs: other processes share the cores, so the measured speed-up on the "
             "real cores is understated"))
    if args.n != 2000:
        print(f"  note: n = {args.n}: the budgets are set for n = 2000, so these verdicts only show that the "
              "script runs")
    return budgets.report()


if __name__ == "__main__":
    sys.exit(main())
