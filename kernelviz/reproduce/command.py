"""``kernelviz reproduce PAPER [--quick] [--out DIR]``: run a paper's tables and write the report.

cli.py wires it in with ``command.add_parser(subparsers)`` while building its parser and
``command.run(args)`` as the handler of ``args.command == "reproduce"``. Errors are raised as
``ValueError`` (cli.py prints them as one line, exit code 2); finished cells stay in
``DIR/cells`` and a second run with the same ``--out`` continues from them.

``--out`` is checked before anything runs. SIGINT (Ctrl-C) and SIGTERM stop a run the same
way: the report of what finished is written, marked as partial, and the command says how many
cells it kept and that the same command resumes; it then raises
:class:`~kernelviz.reproduce.runner.Interrupted`, which cli.py turns into exit code 128 + the
signal's number (130, 143).
"""
from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from pathlib import Path

import joblib

from .. import _dask, _threads, _validation
from .papers import RUNNERS
from .report import write_report
from .driver import run as run_paper
from .runner import Interrupted, Settings

__all__ = ["add_parser", "run", "data_assignment"]

#: Seconds between two progress lines of the same table and data set.
PROGRESS_INTERVAL = 2.0


def data_assignment(text):
    """argparse type: ``ROW=SOURCE`` (a data set as the paper names it = bundled name, generator or path)."""
    row, sep, source = text.partition("=")
    if not sep or not row.strip() or not source.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r}: write ROW=SOURCE, e.g. australian=australian_scale.libsvm (ROW as the paper names it).")
    return row.strip(), source.strip()


def add_parser(subparsers):
    """Add the ``reproduce`` command to cli.py's subparsers; returns its parser."""
    parser = subparsers.add_parser(
        "reproduce", help="run a paper's tables with its protocol and compare with the published values",
        description="Run the reproducible tables of a source paper on the data kernelviz has (or files you "
                    "give), following the paper's protocol, and write report.md and report.json comparing "
                    "every cell with the published value. Finished cells are stored under OUT/cells, so an "
                    "interrupted run continues where it stopped.")
    parser.add_argument("paper", nargs="?", choices=list(RUNNERS), help="which paper")
    parser.add_argument("--all", action="store_true", help="every paper, one after the other")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions and coarser grids (each table's protocol says which)")
    parser.add_argument("--out", type=Path, default=Path("reproduce-results"), metavar="DIR",
                        help="folder of the report and of the stored cells (default: reproduce-results)")
    parser.add_argument("--table", action="append", dest="tables", metavar="ID",
                        help="only this table (as the paper numbers it); repeat for several")
    parser.add_argument("--row", action="append", dest="rows", metavar="NAME",
                        help="only this row (a data set as the paper names it); repeat for several")
    parser.add_argument("--data", action="append", type=data_assignment, default=[], metavar="ROW=SOURCE",
                        help="data for a row: a bundled sample, a generator (twonorm, ringnorm, waveform, "
                             "ripley-all) or a CSV / LIBSVM path; repeat for several rows")
    parser.add_argument("--insist", action="store_true",
                        help="run a --data file even when its number of attributes is not the paper's for its row "
                             "(refused by default: its cells would not be the paper's experiment)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="parallel workers for the grids (default: 1); with --scheduler every cluster worker "
                             "is used")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the grids on the Dask cluster at ADDRESS (e.g. tcp://10.0.0.5:8786); needs "
                             "kernelviz[dask]")
    parser.add_argument("--seed", type=int, default=0, help="seed of every split and partition (default: 0)")
    parser.add_argument("--earlier-code", action="store_true",
                        help="report the cells stored before cells carried a code version, judged by today's "
                             "verdicts, computing nothing (the report says so at its head)")
    return parser


class _ProgressPrinter:
    """One line on stderr per table and data set every few seconds, and when it completes."""

    def __init__(self, stream=sys.stderr):
        self.stream, self.last = stream, {}

    def __call__(self, report):
        key = (report.paper, report.table, report.dataset)
        now = time.monotonic()
        if report.done == report.total or now - self.last.get(key, -PROGRESS_INTERVAL) >= PROGRESS_INTERVAL:
            self.last[key] = now
            print(report.line(), file=self.stream, flush=True)


def run(args) -> int:
    """Handle ``kernelviz reproduce``; returns 0.

    Raises
    ------
    ValueError
        Bad arguments, an ``--out`` that cannot be written (before any work), or a paper that
        failed (after the report of the others is written).
    Interrupted
        After SIGINT or SIGTERM, once the partial report is written; its message says how many
        cells were kept.
    """
    if args.all == (args.paper is not None):
        raise ValueError("name one paper (ckrbf, rwm, mcpm, cksvmnda) or give --all, not both.")
    papers = list(RUNNERS) if args.all else [args.paper]
    if (args.tables or args.rows) and len(papers) > 1:
        raise ValueError("--table and --row name a table or row of one paper; use them with a single paper, "
                         "not --all.")
    check_out(args.out)
    scheduler = args.scheduler
    settings = Settings(quick=args.quick, n_jobs=-1 if scheduler else args.n_jobs, seed=args.seed,
                        earlier_code=args.earlier_code)
    data = dict(args.data)
    results, failures = [], []
    progress = _ProgressPrinter()
    stop = None
    try:
        with _stopped_by_signals(), contextlib.ExitStack() as stack:
            # a long run shares the machine: one BLAS thread (kernelviz/_threads.py says why)
            stack.enter_context(_threads.one_blas_thread())
            client = stack.enter_context(_dask_client(scheduler, args.out / "cells")) if scheduler else None
            if client is not None:
                stack.enter_context(joblib.parallel_backend("dask", client=client))
            for paper in papers:
                try:
                    # with --all, each paper takes the --data rows it has
                    rows = {row: src for row, src in data.items() if not args.all or _has_row(paper, row)}
                    results.append(run_paper(paper, tables=args.tables, data=rows, rows=args.rows,
                                             out=args.out / "cells", settings=settings, progress=progress,
                                             insist=args.insist,
                                             on_problem=lambda line: print(f"kernelviz: warning: {line}",
                                                                           file=sys.stderr)))
                except ValueError as exc:
                    failures.append(f"{paper}: {exc}")
                except Exception as exc:  # noqa: BLE001 -- a lost cluster is reported like any failed paper
                    if client is None or client.status == "running":
                        raise
                    failures.append(f"{paper}: lost the Dask scheduler at {scheduler!r} ({type(exc).__name__}: "
                                    f"{exc})")
                    break
    except KeyboardInterrupt as exc:  # SIGINT, or SIGTERM turned into Interrupted: report what finished
        stop = exc if isinstance(exc, Interrupted) else Interrupted()
        if stop.result is not None:
            results.append(stop.result)
    if results:
        md_path, json_path = write_report(results, args.out)
        print(f"wrote {md_path} and {json_path}" + (" (partial: the run was interrupted)" if stop else ""))
    if stop is not None:
        cells, computed = sum(r.cells for r in results), sum(r.computed for r in results)
        reported = (f"the report of the rows finished is in {args.out / 'report.md'} (marked partial)" if results
                    else "no paper had started, so no report was written")
        failed = f" Failed before the stop: {'; '.join(failures)}." if failures else ""
        raise Interrupted(stop.signum, message=(
            f"stopped by {stop.signal_name}. {cells} finished cell(s) of this run are kept in {args.out / 'cells'} "
            f"({computed} computed by this run, {cells - computed} read from earlier runs); {reported}. Run the same "
            f"command again to resume from the kept cells.{failed}"))
    if failures:
        kept = f"; finished cells are kept in {args.out / 'cells'} and reused by the next run"
        raise ValueError("; ".join(failures) + kept)
    return 0


def check_out(out):
    """Refuse an ``--out`` that cannot hold the report and the stored cells, before any work:
    a file or a device where the folder should be, a folder under a file, a folder without
    permission; also ``cells`` inside it when it is not a folder, and ``report.md`` or
    ``report.json`` when they are not files (the report is written last, after all the work)."""
    _validation.check_output_path(out, "--out", folder=True, purpose="write reports into")
    _validation.check_output_path(out / "cells", "--out", folder=True, purpose="keep its result store in")
    for name in ("report.md", "report.json"):
        _validation.check_output_path(out / name, "--out")


@contextlib.contextmanager
def _stopped_by_signals():
    """While the run lasts, SIGINT and SIGTERM raise :class:`Interrupted` in the main thread.

    Why SIGTERM too: its default ends the process on the spot, so a run stopped by a job
    scheduler, ``timeout`` or ``kill`` wrote no report of what it had finished. Raised as an
    exception, it goes the way Ctrl-C goes: the cell being written is finished or discarded
    (the store writes atomically), the runner returns what it finished, and the partial report
    is written. Only handlers left at Python's defaults are replaced (a signal the caller chose
    to ignore stays ignored), and they are restored afterwards; outside the main thread
    Python cannot set handlers, and Ctrl-C is left as it is.
    """
    def stop(signum, frame):
        raise Interrupted(signum)

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
            if signal.getsignal(signum) == default:
                previous[signum] = signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def _dask_client(address, cells):
    """The Dask connection, its failure saying that the finished cells are kept."""
    try:
        with _dask.client(address) as client:
            yield client
    except _dask.SchedulerUnavailable as exc:
        raise ValueError(f"{exc}; nothing was run, and the finished cells in {cells} are kept.") from None


def _has_row(paper, row):
    from .published import published

    return any(v.row.lower() == row.lower() for v in published(paper))
