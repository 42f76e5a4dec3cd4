"""Running a paper's tables: :func:`run`, the library's entry point of ``kernelviz reproduce``.

Here, above the papers' runner modules: it reads their registry (:data:`~kernelviz.reproduce.papers.RUNNERS`)
while they read only :mod:`kernelviz.reproduce.runner`, so no module imports itself through another.
"""
from __future__ import annotations

import json
import signal
import time
from collections import Counter

from .. import _validation
from . import datasets as _datasets
from . import published as _published
from kernelviz import _codeversion as _version
from .papers import RUNNERS
from .runner import Context, EarlierCodeMissing, Interrupted, Progress, RunResult, Settings
from .store import ResultStore

__all__ = ["run"]


def run(paper, tables=None, data=None, out="reproduce-results", settings=None, progress=None, on_problem=None,
        rows=None, insist=False):
    """Run ``paper``'s reproducible tables (or ``tables``) and return what they measured.

    Parameters
    ----------
    paper : {"ckrbf", "rwm", "mcpm", "cksvmnda"}
    tables : list of str, optional
        Table ids as the paper numbers them; all runnable tables by default.
    data : dict, optional
        Row (data set, as the paper names it, case-insensitive) → bundled name, generator or
        CSV / LIBSVM path; replaces or adds to the default sources.
    out : str or Path
        Folder of the result store; a second run with the same folder reuses finished cells
        (those computed on the same data with the same settings: both are in every cell's key).
    settings : Settings, optional
    progress : callable, optional
        Called with a :class:`Progress` after every cell.
    on_problem : callable, optional
        Called with a line for each corrupt or foreign file in the store.
    rows : list of str, optional
        Only these rows (data sets as the paper names them, case-insensitive).
    insist : bool
        Run a ``data`` file whose number of attributes differs from the paper's for its row
        (:data:`~kernelviz.reproduce.published.DATA`); by default such a file is refused.

    Raises
    ------
    ValueError
        Unknown paper, table or row; an ``out`` that cannot be written, or a ``data`` file
        whose dimension is not the paper's for its row (both checked before any work); a data
        set that does not fit a table's protocol (the message names the table and the data
        set; cells finished before it stay stored).
    Interrupted
        On SIGINT (Ctrl-C), or SIGTERM turned into :class:`Interrupted`: its ``result`` holds the
        rows finished before the stop. Each table runs row by row, so a stop costs at most the
        measurements of the row it interrupted (whose finished cells are stored all the same).
    """
    if paper not in RUNNERS:
        raise ValueError(f"Unknown paper {paper!r}; choose one of: {', '.join(RUNNERS)}.")
    runners = RUNNERS[paper]
    tables = list(runners.tables) if tables is None else [str(t) for t in tables]
    for table_id in tables:
        _published.table(paper, table_id)  # unknown table: ValueError naming the paper's tables
        if table_id not in runners.tables:
            raise ValueError(f"{paper} table {table_id} cannot be reproduced: {runners.not_reproducible[table_id]}")
    settings = settings or Settings()
    started = time.perf_counter()
    measurements, not_run = [], {}
    overrides = {str(k).lower(): v for k, v in (data or {}).items()}
    wanted = None if rows is None else {str(r).lower() for r in rows}
    known = {v.row.lower() for t in tables for v in _published.table(paper, t).values}
    unknown = (set(overrides) | (wanted or set())) - known
    if unknown:
        raise ValueError(f"{paper}: no table among {', '.join(tables)} has a row named "
                         f"{', '.join(sorted(unknown))}; rows are the data sets as the paper names them.")
    plan = {}  # table -> {row: source}, in the paper's order
    for table_id in tables:
        sources = plan.setdefault(table_id, {})
        for row in dict.fromkeys(v.row for v in _published.table(paper, table_id).values):
            if wanted is not None and row.lower() not in wanted:
                continue
            source = overrides.get(row.lower(), runners.sources.get(row))
            absent = source.missing() if isinstance(source, _datasets.FileSpec) else []
            if source is None:
                not_run[table_id, row] = runners.missing.get(row, "no data: give a file with --data "
                                                                   f"'{row}=PATH'")
            elif absent:
                not_run[table_id, row] = (f"its files are not here ({', '.join(absent)}; set "
                                          f"{_datasets.DATASETS_VARIABLE} to the folder that holds them, or give "
                                          f"--data '{row}=PATH')")
            elif (settings.quick and runners.quick_rows is not None and row not in runners.quick_rows
                  and row.lower() not in overrides and wanted is None):
                not_run[table_id, row] = (f"full protocol only (--quick, CI's smoke test, runs "
                                          f"{', '.join(runners.quick_rows)}); run it with --row '{row}'")
            else:
                sources[row] = source
    if not insist:
        _check_dimensions(paper, plan, overrides, settings)
    _validation.check_output_path(out, "out", folder=True, purpose="keep its result store in")
    store = ResultStore(out, on_problem=on_problem)
    contexts, finished, paces = [], set(), {}

    def result(**extra):
        data_used = {(c.table, row): {**info, "source": c.source(row)}
                     for c in contexts for row, info in c.data.items()}
        timed = {digest: s for c in contexts for digest, s in c.tally.seconds.items()}
        per_table = {}
        for c in contexts:
            done, seconds = per_table.setdefault(c.table, (set(), {}))
            done |= c.tally.done
            seconds.update(c.tally.seconds)
        table_seconds = {t: (sum(seconds.values()), len(seconds), len(done)) for t, (done, seconds) in per_table.items()}
        recorded = {digest: env for c in contexts for digest, env in c.tally.environments.items()}
        environments = Counter(json.dumps(env, sort_keys=True) for env in recorded.values())
        return RunResult(paper, settings, measurements, not_run, store.problems, time.perf_counter() - started,
                         data=data_used, cells=len(set().union(*(c.tally.done for c in contexts))),
                         computed=len(set().union(*(c.tally.computed for c in contexts))),
                         cell_seconds=sum(timed.values()), cells_timed=len(timed), table_seconds=table_seconds,
                         environments=[(json.loads(env), n) for env, n in environments.most_common()],
                         code="" if settings.earlier_code else
                         _version.code_version(f"kernelviz.reproduce.papers.{paper}"), **extra)

    try:
        for table_id, sources in plan.items():
            if not sources:  # nothing to run, but the table's own checks of the settings still apply
                runners.tables[table_id](Context(paper, table_id, {}, settings, store, progress))
            for row, source in sources.items():
                context = Context(paper, table_id, {row: source}, settings, store, progress, paces=paces)
                contexts.append(context)
                try:
                    found = runners.tables[table_id](context)
                except EarlierCodeMissing:  # a row the earlier code never ran: said, not reported
                    contexts.pop()
                    not_run[table_id, row] = ("not computed by the earlier code (--earlier-code reports stored "
                                              "cells only)")
                    continue
                for m in found:
                    m.data = context.data.get(m.row, {}).get("digest", "")
                measurements += found
                finished.add((table_id, row))
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
        current = (contexts[-1].table, next(iter(contexts[-1].sources))) if contexts else None
        unfinished = {(t, row): (len(contexts[-1].tally.done) if (t, row) == current else None)
                      for t, sources in plan.items() for row in sources if (t, row) not in finished}
        partial = result(interrupted=signal.Signals(signum).name, unfinished=unfinished)
        raise Interrupted(signum, partial, f"{paper} stopped by {partial.interrupted} after {partial.cells} "
                                           "cell(s)") from exc
    return result()


def _check_dimensions(paper, plan, overrides, settings):
    """Refuse a user's file for a row whose number of attributes is not the paper's, before any work.

    Why: a row's cells are compared with the paper's numbers for that data set, and a file
    with other attributes is another experiment whatever its name; run under the row's name it
    gave a comparison that looked like a reproduction. Only files the user assigns are refused
    (the default sources are the project's choice, and the report names how they differ);
    ``insist`` runs the file anyway.
    """
    checked = set()
    for table_id, sources in plan.items():
        for row, source in sources.items():
            facts = _published.data_facts(paper, row)
            if row in checked or row.lower() not in overrides or facts is None or facts.features is None:
                continue
            checked.add(row)
            X, _, _ = _datasets.resolve(source, random_state=settings.seed)
            if X.shape[1] != facts.features:
                raise ValueError(
                    f"{paper} table {table_id}, data set {row!r}: the paper's {row} has d = {facts.features} "
                    f"columns; this file has {X.shape[1]} (d = {X.shape[1]}, {source}). Its cells would not be the "
                    f"paper's experiment; give a file with {facts.features} attributes, or pass --insist to run it "
                    "anyway.")
