"""Run every benchmark script in this directory and print all their figures.

Each ``bench_*.py`` runs in its own process (so one script's warm caches or worker
pools do not flatter the next) with the same interpreter; its output is shown as it
comes, then a summary lists each script's exit code and duration.

Usage: ``python benchmarks/run_all.py [NAME ...]`` — NAME picks scripts by substring
(e.g. ``grid``); no NAME runs them all.
"""

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv=None):
    patterns = sys.argv[1:] if argv is None else argv
    scripts = sorted(path for path in HERE.glob("bench_*.py")
                     if not patterns or any(pattern in path.stem for pattern in patterns))
    if not scripts:
        print(f"no benchmark script matches {patterns}", file=sys.stderr)
        return 2
    summary = []
    for script in scripts:
        print(f"=== {script.name}", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        summary.append((script.name, code, time.perf_counter() - start))
        print(flush=True)
    print("=== summary")
    for name, code, seconds in summary:
        print(f"  {name:<28} {'ok' if code == 0 else f'FAILED (exit {code})':<18} {seconds:7.1f} s")
    return int(any(code != 0 for _, code, _ in summary))


if __name__ == "__main__":
    sys.exit(main())
