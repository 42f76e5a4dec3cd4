"""Large uploads: time and peak memory of one session that uploads an n-row file and opens every view.

Each size runs in a fresh process (peak RSS is a per-process high-water mark): an AppTest
session uploads a CSV of ``n`` points (two noisy moons, labels in the last column), then
opens Data, Partition, Similarity, Decision boundaries (four kernels) and Kernel matrix, and
runs the grid search (3 × 3, 2 folds, RBF). The views work on a stratified sample of at most
``kv.pipeline.VIEW_MAX_POINTS`` points, so memory and time stop growing beyond it.

Usage: ``.venv/bin/python benchmarks/bench_upload.py 20000 200000``.
Prints one line per size: seconds per view, and the process's peak RSS (MB) before the app
starts and after each step.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
VIEWS = ("data", "partition", "similarity", "boundaries", "kernel", "grid")


def csv_of(n: int) -> bytes:
    import kernelviz as kv

    X, y = kv.data.make("moons", n_samples=n, noise=0.2, random_state=0)
    rows = "\n".join(f"{a:.6f},{b:.6f},{int(c)}" for (a, b), c in zip(X, y))
    return ("x1,x2,label\n" + rows + "\n").encode()


def one_session(n: int) -> dict:
    from streamlit.testing.v1 import AppTest

    content = csv_of(n)
    baseline = _peak_mb()
    at = AppTest.from_file(APP, default_timeout=1800)
    at.query_params.update({"source": "upload", "kernels": "rbf,mrbf,ckrbf,rwm", "grid_steps": "3", "cv": "2"})
    at.run()
    start = time.perf_counter()
    at.file_uploader(key="uploader").set_value((f"moons-{n}.csv", content, "text/csv"))
    at.run()
    seconds = {"upload": time.perf_counter() - start}
    peak = {"upload": _peak_mb()}
    for view in VIEWS:
        start = time.perf_counter()
        at.segmented_control(key="view").set_value(view)
        at.run()
        if view == "grid":
            next(b for b in at.button if b.label == "Run grid search").click()
            at.run()
        seconds[view] = time.perf_counter() - start
        peak[view] = _peak_mb()
        problems = [e.value for e in at.exception] + [e.value for e in at.error]
        assert not problems, (view, problems)
    sampled = [c.value for c in at.caption if "stratified sample" in c.value]
    return {"n": n, "seconds": {k: round(v, 1) for k, v in seconds.items()}, "peak_rss_mb_before_the_app": baseline,
            "peak_rss_mb_after": peak,
            "note": sampled[0] if sampled else ""}


def _peak_mb() -> int:
    """The process's peak resident memory so far (a high-water mark), in MB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main(sizes: list[int]) -> None:
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True)
        print(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one_session(int(sys.argv[2]))))
    else:
        main([int(n) for n in sys.argv[1:]] or [20_000, 200_000])
