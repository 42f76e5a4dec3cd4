"""The papers' headline claims (:data:`kernelviz.reproduce.published.CLAIMS`), decided on the
cells a run measured.

A report that lists cell after cell leaves its reader to work out whether what the paper
concludes holds here. Each claim names a test (:data:`TESTS`) over one table's cells: a column
above others on enough rows (a row won by less than the report's tolerance says so), a win rate above a threshold, two columns level, or an ordering of
average ranks. The same test runs on the paper's own values for the rows measured, since a
claim made over twenty data sets need not hold on the four run here, even in the paper's
numbers; the report says both.

Only protocol cells (no check experiments) decide a claim. A cell with a blocking diagnostic
(:data:`kernelviz.reproduce.diagnostics.BLOCKING`) still counts with its number, and is named
beside the claim, since its number does not tell its model from the others.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from . import published as _published
from .diagnostics import TOLERANCE, blocking_verdict, verdict

__all__ = ["NEEDS", "TESTS", "Cell", "decide", "evaluate"]

#: How many of the rows must agree, by the word a claim uses.
NEEDS = {
    "every": lambda agree, rows: agree == rows,
    "almost all": lambda agree, rows: agree >= 0.8 * rows,
    "most": lambda agree, rows: agree > rows / 2,
}


@dataclass(frozen=True)
class Cell:
    """A column's number on a row, as a claim's test sees it."""

    mean: float
    sd: float | None = None


def _f(value):
    return f"{value:.3f}"


def _beats(claim, table):
    """The subject's value is above every other column's, on ``need`` of the rows (the papers'
    own criterion). A row won by less than the report's tolerance says so, and the summary counts
    them: 0.974 against 0.974 decides nothing, though it is "above"."""
    subject, others = claim.columns[0], claim.columns[1:]
    tolerance = TOLERANCE[claim.metric]
    agree, narrow, lines = 0, 0, []
    for row, cells in table.items():
        holds = all(cells[subject].mean > cells[o].mean for o in others)
        close = [o for o in others if abs(cells[subject].mean - cells[o].mean) <= tolerance + 1e-12]
        agree += holds
        narrow += holds and bool(close)
        outcome = ("no" if not holds else "holds" if not close
                   else f"holds, by less than {tolerance:g} over {', '.join(close)}")
        lines.append(f"{row}: {subject} {_f(cells[subject].mean)} vs "
                     + ", ".join(f"{o} {_f(cells[o].mean)}" for o in others) + f" ({outcome})")
    summary = f"holds on {agree} of {len(table)} rows (needs {claim.need})"
    if narrow:
        summary += f"; on {narrow} of them by less than the report's tolerance ({tolerance:g})"
    return NEEDS[claim.need](agree, len(table)), lines, summary


def _above(claim, table):
    """The subject's value is above ``threshold`` on ``need`` of the rows."""
    subject = claim.columns[0]
    agree = sum(cells[subject].mean > claim.threshold for cells in table.values())
    lines = [f"{row}: {subject} {_f(cells[subject].mean)}" for row, cells in table.items()]
    return (NEEDS[claim.need](agree, len(table)), lines,
            f"above {claim.threshold:g} on {agree} of {len(table)} rows (needs {claim.need})")


def _comparable(claim, table):
    """The two columns are level on ``need`` of the rows: their gap is within the report's
    tolerance, or within twice their combined spread (the verdicts "matches" and "within")."""

    a, b = claim.columns
    agree, lines = 0, []
    for row, cells in table.items():
        said, _ = verdict(cells[a].mean, cells[a].sd, cells[b].mean, cells[b].sd, claim.metric)
        level = said.split()[0] in ("matches", "within")
        agree += level
        lines.append(f"{row}: {a} {_f(cells[a].mean)} vs {b} {_f(cells[b].mean)}: "
                     + ("level" if said == "matches" else said))
    return NEEDS[claim.need](agree, len(table)), lines, f"level on {agree} of {len(table)} rows (needs {claim.need})"


def _average_ranks(claim, table):
    """Each column's rank on each row (1 = highest value, ties share their mean rank), averaged over
    the rows: the paper's Friedman ranks."""
    ranks = np.array([rankdata([-cells[c].mean for c in claim.columns]) for cells in table.values()])
    return dict(zip(claim.columns, ranks.mean(axis=0)))


def _rank_lines(claim, table, ranks):
    lines = [f"{row}: " + ", ".join(f"{c} {_f(cells[c].mean)}" for c in claim.columns) for row, cells in table.items()]
    return lines, f"average ranks over {len(table)} rows: " + ", ".join(f"{c} {r:.2f}" for c, r in ranks.items())


def _ranked(decide_ranks):
    def test(claim, table):
        ranks = _average_ranks(claim, table)
        lines, summary = _rank_lines(claim, table, ranks)
        return decide_ranks(claim.columns, ranks), lines, summary
    return test


#: Claim tests by name: ``(claim, {row: {column: Cell}}) -> (holds, lines, summary)``.
TESTS = {
    "beats": _beats,
    "above": _above,
    "comparable": _comparable,
    # the subject ranks strictly best / strictly worst / not strictly best; the columns rank in the given order
    "first": _ranked(lambda cols, r: all(r[cols[0]] < r[c] for c in cols[1:])),
    "last": _ranked(lambda cols, r: all(r[cols[0]] > r[c] for c in cols[1:])),
    "not first": _ranked(lambda cols, r: any(r[c] <= r[cols[0]] for c in cols[1:])),
    "order": _ranked(lambda cols, r: all(r[a] < r[b] for a, b in zip(cols, cols[1:]))),
}


def _rows_for(claim, table):
    """The rows of ``table`` ({row: {column: Cell}}) that have every column the claim compares
    (and that the claim names, when it names rows)."""
    wanted = {r.lower() for r in claim.rows}
    return {row: cells for row, cells in table.items()
            if all(c in cells for c in claim.columns) and (not wanted or row.lower() in wanted)}


def decide(claim, table):
    """``(holds, lines, summary)`` of ``claim`` on ``table`` ({row: {column: Cell}}); ``holds`` is
    None when no row has the cells the claim needs."""
    rows = _rows_for(claim, table)
    if not rows:
        return None, [], ""
    holds, lines, summary = TESTS[claim.test](claim, rows)
    return bool(holds), lines, summary


def _published_table(claim, rows):
    table = {}
    for v in _published.published(claim.paper, claim.table):
        if v.metric == claim.metric and v.row in rows:
            table.setdefault(v.row, {})[v.model] = Cell(v.value, v.sd)
    return table


def evaluate(paper, cells):
    """Every claim of ``paper`` decided on ``cells`` (the report's compared cells): a list of
    ``{"claim", "table", "status", "summary", "cells", "flagged", "paper_on_these_rows"}``.

    ``status`` is "reproduced", "not reproduced", or "not testable here" (the table or the
    columns were not run); ``flagged`` lists the deciding cells whose verdict a blocking diagnostic
    gave; ``paper_on_these_rows`` is whether the paper's own values on the same rows bear the claim
    out ("holds", "does not hold").
    """
    out = []
    for claim in (c for c in _published.CLAIMS if c.paper == paper):
        protocol = [c for c in cells if c["table"] == claim.table and c["metric"] == claim.metric
                    and not c["variant"]]
        table = {}
        for c in protocol:
            table.setdefault(c["row"], {})[c["model"]] = Cell(c["mean"], c["sd"])
        holds, lines, summary = decide(claim, table)
        record = {"claim": claim.text, "table": claim.table, "cells": lines, "summary": summary,
                  "flagged": [], "paper_on_these_rows": None}
        if holds is None:
            record["status"] = "not testable here"
        else:
            record["status"] = "reproduced" if holds else "not reproduced"
            rows = _rows_for(claim, table)
            record["flagged"] = [f"{c['row']} {c['model']}: {c['verdict']}" for c in protocol
                                 if c["row"] in rows and c["model"] in claim.columns
                                 and blocking_verdict(c["diagnostics"])]
            theirs, _, _ = decide(claim, _published_table(claim, rows))
            record["paper_on_these_rows"] = None if theirs is None else ("holds" if theirs else "does not hold")
        out.append(record)
    return out
