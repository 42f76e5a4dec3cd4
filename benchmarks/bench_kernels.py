"""Kernel speed and memory against scikit-learn's rbf_kernel, measured in one run.

    python benchmarks/bench_kernels.py

Budgets (issue 2): CkRBF Gram, n = 3000, d = 2: ≤ 1.5 × rbf_kernel; RWM Gram with K
components: ≤ (K + 1) × rbf_kernel; any kernel against a 200 × 200 grid with n = 5000
training points, evaluated in chunks: peak memory < 600 MB.
"""

import subprocess
import sys
import time

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

import kernelviz as kv


def best_time(fn, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def gram_ratios(n=3000, d=2):
    X = np.random.default_rng(0).random((n, d))
    baseline = best_time(lambda: rbf_kernel(X, gamma=1.0))
    print(f"rbf_kernel (scikit-learn), n={n}, d={d}: {baseline * 1e3:.1f} ms")
    rows = []
    for name, params in [("rbf", {}), ("mrbf", {}), ("ckrbf", {}), ("ckrbf", {"normalize": "unit"}),
                         ("ckrbf-radial", {}), ("gmm", {}), ("rwm", {})]:
        k = kv.kernels.make(name, gamma=1.0, **params).fit(X)
        t = best_time(lambda: k(X), repeat=3)
        label = name + ("/unit" if params else "")
        extra = ""
        if name in ("gmm", "rwm"):
            K = k.partition_.n_components_
            extra = f"  (K = {K} components, budget {K + 1}×)"
        elif name == "ckrbf":
            extra = "  (budget 1.5×)"
        rows.append((label, t / baseline))
        print(f"  {label:<14} {t * 1e3:8.1f} ms   {t / baseline:5.2f} × rbf_kernel{extra}")
    return rows


CHUNKED = """
import numpy as np, kernelviz as kv
def peak_mb():
    # VmHWM is this process's own high-water mark (ru_maxrss would include the parent's across exec).
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
rng = np.random.default_rng(0)
X = rng.random((5000, 2))
g = np.linspace(0, 1, 200)
grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
w = rng.normal(size=5000)
k = kv.kernels.make({name!r}, gamma=10.0).fit(X)
before = peak_mb()
scores = kv.kernels.apply_in_chunks(k, grid, X, lambda K: K @ w)
after = peak_mb()
print(after, after - before, scores.shape[0])
"""


def chunked_memory():
    print("decision values on a 200 × 200 grid against n = 5000 points (fresh process each; budget 600 MB peak):")
    for name in ["rbf", "mrbf", "ckrbf", "ckrbf-radial", "gmm", "rwm", "lap", "lppk", "rbf-ppk"]:
        out = subprocess.run([sys.executable, "-c", CHUNKED.format(name=name)], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"  {name:<14} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        peak, growth, n = out.stdout.split()
        print(f"  {name:<14} peak RSS {float(peak):7.1f} MB (of which {float(growth):6.1f} MB after fit, while evaluating {n} points)")


if __name__ == "__main__":
    chunked_memory()
    gram_ratios()
