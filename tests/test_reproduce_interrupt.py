"""``kernelviz reproduce`` stopped by SIGTERM or SIGINT (issue 17): the run ends, the report of
what it finished is written and marked partial, and the message says how many cells were kept
and that the same command resumes. Each test runs the command in a child process, waits until
a cell of its second data set is stored, then sends the signal."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.unit, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

#: The child: the command with tiny settings (as tests/test_reproduce.py's), stopping for good
#: after the first stored cell of Diabetes, so the signal meets it mid-run whatever the machine's speed.
CHILD = """
import sys, time
from kernelviz import cli
from kernelviz.reproduce import command, store
from kernelviz.reproduce.runner import Settings

TINY = dict(folds=2, repetitions=1, inner_folds=2, max_points=60,
            grids={"C": [1.0, 10.0], "gamma": [0.01, 0.1, 1.0], "eta": [1e-2], "n_neighbors": [3]})
command.Settings = lambda **kw: Settings(**{**TINY, **kw})
real_put = store.ResultStore.put

def put(self, key, result):
    real_put(self, key, result)
    if key.dataset == "Diabetes":
        time.sleep(300)  # the test's signal arrives here

store.ResultStore.put = put
sys.exit(cli.main(sys.argv[1:]))
"""


def _stopped_run(tmp_path, signum):
    out = tmp_path / "results"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, "reproduce", "cksvmnda", "--row", "Heart", "--row", "Diabetes", "--out",
         str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Ctrl-C reaches a process only if SIGINT is not ignored (it is in a shell's background jobs)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 240
        cells = out / "cells" / "cksvmnda" / "1" / "Diabetes"
        # a cell is stored once its file has its final name; pathlib's glob also matches the
        # store's ".tmp-*.json" write in progress, which a signal can still discard
        while not [path for path in cells.glob("*.json") if not path.name.startswith(".")]:
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "no Diabetes cell was stored in time"
            time.sleep(0.1)
        child.send_signal(signum)
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    return out, child.returncode, stdout, stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_run_writes_the_partial_report_and_says_what_it_kept(tmp_path, signum):
    out, code, stdout, stderr = _stopped_run(tmp_path, signum)
    name = signal.Signals(signum).name
    assert code == 128 + signum, stderr
    assert "Traceback" not in stderr
    # Heart's 4 cells and the first of Diabetes are stored; the message says so and how to go on
    assert f"kernelviz: interrupted: stopped by {name}. 5 finished cell(s) of this run are kept in " \
           f"{out / 'cells'} (5 computed by this run" in stderr
    assert "Run the same command again to resume from the kept cells." in stderr
    assert f"wrote {out / 'report.md'} and {out / 'report.json'} (partial" in stdout

    document = json.loads((out / "report.json").read_text())
    assert document["partial"] is True
    run = document["runs"][0]
    assert run["complete"] is False and run["interrupted"] == name
    assert run["cells_finished"] == 5 and run["cells_computed"] == 5
    assert {(c["row"], c["model"]) for c in run["cells"]} == {("Heart", m) for m in ("CKSVMNDA", "KSVM", "KNDA", "KFD")}
    assert run["unfinished"] == [{"table": "1", "row": "Diabetes", "cells_stored": 1, "reached": True}]
    text = (out / "report.md").read_text()
    assert f"**Partial report: the run was stopped by {name}.**" in text
    assert "- Diabetes (table 1, data sha256 " in text and "): stopped in this row; 1 of its cells are stored" in text
    assert "| Heart | KSVM | accuracy |" in text


def test_the_running_clock_leaves_out_a_stop_and_nothing_else():
    from kernelviz.reproduce.runner import RunningClock

    clock = RunningClock(tick=0.5, gap=5.0)
    clock.tick(0.0, 0.0)
    clock.tick(0.5, 0.1)
    clock.tick(30.5, 0.1)  # 30 s without a tick or any CPU: stopped, less one tick
    assert clock.stopped == 29.5
    clock.tick(31.0, 0.2)
    clock.tick(41.0, 9.0)  # 10 s without a tick but 8.8 s of CPU: C code held the GIL, not a stop
    clock.tick(43.0, 9.0)  # late by 2 s: a thread waiting for the CPU, not a stop
    assert clock.stopped == 29.5


CLOCKED = """
import sys, time
from kernelviz.reproduce.runner import CLOCK
start, wall = CLOCK.now(), time.monotonic()
print("ready", flush=True)
for _ in range(16):  # 8 s of its own, in steps: a stop in the middle adds to the wall time
    time.sleep(0.5)
print(f"{CLOCK.now() - start:.2f} {time.monotonic() - wall:.2f}", flush=True)
"""


def test_a_cell_paused_by_sigstop_does_not_count_the_pause():
    """The full runs are paused (SIGSTOP) while the machine measures other things; the cells'
    seconds are summed into the reports' computing time, which the pause must not inflate."""
    child = subprocess.Popen([sys.executable, "-c", CLOCKED], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1)
        child.send_signal(signal.SIGSTOP)
        time.sleep(8)
        child.send_signal(signal.SIGCONT)
        running, wall = map(float, child.communicate(timeout=60)[0].split())
    finally:
        if child.poll() is None:
            child.kill()
    assert wall >= 15.5  # 8 s of its own sleep and the 8 s stop
    assert 7.5 <= running <= 9.5  # its sleep, give or take a tick
