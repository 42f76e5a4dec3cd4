"""How many Python files of kernelviz one committed γ step runs code in (issue 30's budget: ≤ 12).

The app's server is started under a profiling hook (``sys.setprofile`` in every thread) that records
the file of every function called by Streamlit's script thread and the threads it computes panels on
(the view's run, not the background lattice job). In headless Chromium, Decision boundaries opens with
the default settings and its live lattice ready; the record is cleared (SIGUSR2); → on the γ slider commits one step; when the figure
shows it and the page is idle, the record is written (SIGUSR2 again) and printed: each file with the
functions it ran, and PASS / FAIL against the budget.

Usage: ``.venv/bin/python benchmarks/bench_step_files.py [--budget 12]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "apps"))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

#: The server: Streamlit under a profiling hook; SIGUSR2 writes what the script thread ran to
#: $KV_FILES_OUT and starts a new record.
PROFILED_SERVER = r"""
import json, os, runpy, signal, sys, threading
PACKAGE = os.path.join(os.environ["KV_ROOT"], "kernelviz") + os.sep
ran = {}
def record(frame, event, arg):
    if event == "call" and threading.current_thread().name.startswith(("ScriptRunner", "kernelviz-panel")):
        name = frame.f_code.co_filename
        if name.startswith(PACKAGE):
            ran.setdefault(name[len(PACKAGE):], set()).add(frame.f_code.co_name)
def dump(signum, frame):
    record = {name: sorted(functions) for name, functions in ran.items()}
    with open(os.environ["KV_FILES_OUT"] + ".part", "w") as out:  # renamed whole: never read half written
        json.dump(record, out)
    os.replace(os.environ["KV_FILES_OUT"] + ".part", os.environ["KV_FILES_OUT"])
    ran.clear()
signal.signal(signal.SIGUSR2, dump)
threading.setprofile(record)
sys.setprofile(record)
sys.argv = ["streamlit", "run", sys.argv[1], *sys.argv[2:]]
runpy.run_module("streamlit", run_name="__main__")
"""


def main() -> int:
    import live_drag
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=12)
    args = parser.parse_args()
    port = live_drag.free_port()
    out = Path(tempfile.mkdtemp()) / "files.json"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), "KV_ROOT": str(ROOT),
           "KV_FILES_OUT": str(out)}
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen([sys.executable, "-c", PROFILED_SERVER, str(ROOT / "app.py"), "--server.headless",
                                   "true", "--server.port", str(port), "--server.address", "localhost",
                                   "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
        try:
            url = f"http://localhost:{port}"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                page.set_default_timeout(300_000)
                for _ in range(600):  # the server answers once it is up
                    try:
                        page.goto(f"{url}/?view=boundaries")
                        break
                    except Exception:  # noqa: BLE001 -- not listening yet
                        time.sleep(0.2)
                page.locator(live_drag.READY).wait_for()
                page.wait_for_selector(live_drag.IDLE)
                server.send_signal(signal.SIGUSR2)  # a new record from here
                while not out.exists():
                    time.sleep(0.05)
                out.unlink()
                seconds = live_drag.commit_gamma_step(page, "γ = 1.78,")
                server.send_signal(signal.SIGUSR2)
                while not out.exists():
                    time.sleep(0.05)
                ran = json.loads(out.read_text())
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    width = max(map(len, ran))
    for name in sorted(ran):
        print(f"  {name:<{width}}  {len(ran[name]):3d}  {', '.join(ran[name][:6])}{' …' if len(ran[name]) > 6 else ''}")
    files, functions = len(ran), sum(map(len, ran.values()))
    ok = files <= args.budget
    print(f"committed γ step ({seconds:.2f} s, profiled): code in {files} files of kernelviz, {functions} functions; "
          f"budget ≤ {args.budget} files: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
