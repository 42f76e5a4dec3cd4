"""The papers' headline claims (:data:`kernelviz.reproduce.published.CLAIMS`), decided on the
cells a run measured.

A report that lists cell after cell leaves its reader to work out whether what the paper
concludes holds here. Each claim names a test (:data:`TESTS`) over one table's cells: a column
above others on enough rows (without paired values, a row won by less than the report's tolerance
is level and not counted), a win rate above a threshold, two columns level, a position of average
ranks, or the paper's own rank test (Friedman, then Nemenyi) over the rows. The same test runs on the paper's own values for the rows measured, since a
claim made over twenty data sets need not hold on the four run here, even in the paper's
numbers; the report says both.

Only protocol cells (no check experiments) decide a claim. A cell with a blocking diagnostic
(:data:`kernelviz.reproduce.diagnostics.BLOCKING`) is named beside the claim, and the claim is
decided again without its row: where that turns the verdict, or leaves no row, the claim rests on
cells whose numbers are not trusted, and is undecided.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2, rankdata, studentized_range, ttest_rel

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
    """A column's number on a row, as a claim's test sees it: its mean and sd, and the values the
    paired test pairs across columns — one per shared partition or fold (a single-value cell
    gives its per-fold scores where its runner recorded them); empty for the paper's numbers.
    ``measured``: a number of a run, which a claim reads with the report's tolerance; the paper's
    own numbers (False) are read by the paper's criterion, as printed."""

    mean: float
    sd: float | None = None
    values: tuple = ()
    measured: bool = True


#: Level of the paired tests: a difference is called one when its p-value is below this.
ALPHA = 0.05

#: The name the report gives the paired test (scipy.stats.ttest_rel).
PAIRED_TEST = "paired t-test"


def paired_p(a, b, alternative="two-sided"):
    """p-value of the paired t-test of ``a`` against ``b`` (scipy.stats.ttest_rel), or None when the
    two cannot be paired (fewer than two values each, or not as many). Differences that are all
    equal have no spread: the test is then decided outright (p = 1 for no difference, 0 for a
    constant one in the alternative's direction, 1 against it), where scipy would return NaN."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or len(a) != len(b):
        return None
    d = a - b
    if np.allclose(d, d[0], rtol=0, atol=1e-15):
        if abs(d[0]) <= 1e-15:
            return 1.0
        direction = {"two-sided": True, "greater": d[0] > 0, "less": d[0] < 0}[alternative]
        return 0.0 if direction else 1.0
    return float(ttest_rel(a, b, alternative=alternative).pvalue)


def _p(value):
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"


def _at(value, precision):
    """``value`` rounded to the paper's precision (what its table could have shown)."""
    return round(value / precision) * precision


def _f(value):
    return f"{value:.3f}"


def _beats(claim, table):
    """The subject's value is above every other column's, on ``need`` of the rows (the papers'
    own criterion). Where the cells share their partitions or folds (``Cell.values``), "above"
    must be a difference the paper could print (at its precision) that a one-sided paired t-test
    finds (p < :data:`ALPHA`); the row prints the test and its p-values. Cells without paired
    values (the paper's own numbers, one AUC per grid) are compared by their means, and a row won
    by less than the report's tolerance is level, not a win: 0.974 against 0.974 decides nothing.
    The paper's own numbers are read as printed (its criterion)."""
    subject, others = claim.columns[0], claim.columns[1:]
    if all(_paired(cells, (subject, *others)) for cells in table.values()):
        return _beats_paired(claim, table)
    tolerance = TOLERANCE[claim.metric]
    agree, narrow, lines = 0, 0, []
    for row, cells in table.items():
        above = all(cells[subject].mean > cells[o].mean for o in others)
        close = [o for o in others if cells[subject].measured
                 and abs(cells[subject].mean - cells[o].mean) <= tolerance + 1e-12]
        holds = above and not close
        agree += holds
        narrow += above and bool(close)
        outcome = ("no" if not above else "holds" if holds
                   else f"level: within {tolerance:g} of {', '.join(close)}, not counted")
        lines.append(f"{row}: {subject} {_f(cells[subject].mean)} vs "
                     + ", ".join(f"{o} {_f(cells[o].mean)}" for o in others) + f" ({outcome})")
    summary = (f"holds on {agree} of {len(table)} rows (needs {claim.need}; means compared: the cells have no "
               "shared partitions or folds to pair)")
    if narrow:
        summary += (f"; {narrow} {'row' if narrow == 1 else 'rows'} above by less than the report's tolerance "
                    f"({tolerance:g}) {'is' if narrow == 1 else 'are'} not counted")
    return NEEDS[claim.need](agree, len(table)), lines, summary


def _paired(cells, columns):
    """Whether every column's cell of the row has values to pair, as many as the others'."""
    sizes = {len(cells[c].values) for c in columns}
    return len(sizes) == 1 and min(sizes) >= 2


def _beats_paired(claim, table):
    subject, others = claim.columns[0], claim.columns[1:]
    precision = _published.PRECISION[claim.paper]
    agree, lines = 0, []
    for row, cells in table.items():
        mine, verdicts = cells[subject], []
        for o in others:
            difference = _at(mine.mean - cells[o].mean, precision)
            p = paired_p(mine.values, cells[o].values, "greater")
            verdicts.append((difference > 0 and p < ALPHA, f"{o} {_f(cells[o].mean)} ({difference:+.{_digits(precision)}f}, "
                                                             f"{_p(p)})"))
        holds = all(v for v, _ in verdicts)
        agree += holds
        n = len(mine.values)
        lines.append(f"{row}: {subject} {_f(mine.mean)} vs " + ", ".join(t for _, t in verdicts)
                     + f" ({'holds' if holds else 'no'}; one-sided {PAIRED_TEST} over the {n} shared partitions)")
    return (NEEDS[claim.need](agree, len(table)), lines,
            f"significantly above (one-sided {PAIRED_TEST}, p < {ALPHA:g}, differences at the paper's precision "
            f"{precision:g}) on {agree} of {len(table)} rows (needs {claim.need})")


def _digits(precision):
    return max(0, -int(np.floor(np.log10(precision) + 1e-9)))


def _faster(claim, table):
    """The subject's time is below every other column's, on ``need`` of the rows, by a one-sided
    paired t-test over the shared partitions (each partition times every column the same way);
    each row prints the speed-up beside the paper's."""
    subject, others = claim.columns[0], claim.columns[1:]
    theirs = {(v.row, v.model): v.value for v in _published.published(claim.paper, claim.table)
              if v.metric == claim.metric}
    agree, lines = 0, []
    for row, cells in table.items():
        mine, verdicts = cells[subject], []
        for o in others:
            p = paired_p(mine.values, cells[o].values, "less")
            ratio = cells[o].mean / mine.mean if mine.mean > 0 else float("inf")
            paper = theirs.get((row, o), 0) / theirs[(row, subject)] if theirs.get((row, subject)) else None
            said = f"{o} {cells[o].mean:.4g} s ({ratio:,.3g} × faster" + (
                f"; the paper: {paper:,.3g} ×" if paper else "") + f"; {_p(p) if p is not None else 'no paired test'})"
            verdicts.append((mine.mean < cells[o].mean and (p is None or p < ALPHA), said))
        holds = all(v for v, _ in verdicts)
        agree += holds
        lines.append(f"{row}: {subject} {mine.mean:.4g} s vs " + ", ".join(t for _, t in verdicts)
                     + f" ({'holds' if holds else 'no'}; one-sided {PAIRED_TEST} over the {len(mine.values)} "
                       "partitions)")
    return (NEEDS[claim.need](agree, len(table)), lines,
            f"faster (one-sided {PAIRED_TEST}, p < {ALPHA:g}) on {agree} of {len(table)} rows (needs {claim.need})")


def _paired_over_rows(claim, table):
    """The subject's mean is above each other column's over the rows, by a two-sided paired t-test of
    the rows' means (at the paper's precision) at :data:`ALPHA`, the test the CKSVMNDA paper prints
    as a "confidence" of 100 · (1 − p) %: its Table 1 gives 99.8, 97.6 and 99.9, which its own
    accuracies reproduce (99.84, 97.59, 99.88)."""
    subject, others = claim.columns[0], claim.columns[1:]
    precision = _published.PRECISION[claim.paper]
    means = {c: [_at(cells[c].mean, precision) for cells in table.values()] for c in claim.columns}
    verdicts = []
    for o in others:
        gap = float(np.mean(np.subtract(means[subject], means[o])))
        p = paired_p(means[subject], means[o])
        holds = p is not None and gap > 0 and p < ALPHA
        verdicts.append((holds, f"{o}: mean difference {gap:+.3f}, " + (
            "too few rows to pair" if p is None else f"{_p(p)}, confidence {100 * (1 - p):.1f} %")))
    lines = [f"{row}: " + ", ".join(f"{c} {_f(cells[c].mean)}" for c in claim.columns) for row, cells in table.items()]
    return (all(h for h, _ in verdicts), lines,
            f"two-sided {PAIRED_TEST} of the {len(table)} rows' means against each column (p < {ALPHA:g}): "
            + "; ".join(text for _, text in verdicts))


def _above(claim, table):
    """The subject's value is above ``threshold`` on ``need`` of the rows."""
    subject = claim.columns[0]
    agree = sum(cells[subject].mean > claim.threshold for cells in table.values())
    lines = [f"{row}: {subject} {_f(cells[subject].mean)}" for row, cells in table.items()]
    return (NEEDS[claim.need](agree, len(table)), lines,
            f"above {claim.threshold:g} on {agree} of {len(table)} rows (needs {claim.need})")


def _comparable(claim, table):
    """The two columns are level on ``need`` of the rows. Where their cells share partitions or
    folds: the mean difference is within the report's tolerance and a two-sided paired t-test
    finds no difference (p ≥ :data:`ALPHA`); wide sds no longer make a 0.054 gap "level". Without
    paired values (the paper's own numbers): the gap is within the tolerance, or within twice the
    combined spread (the verdicts "matches" and "within")."""

    a, b = claim.columns
    if all(_paired(cells, (a, b)) for cells in table.values()):
        tolerance, agree, lines = TOLERANCE[claim.metric], 0, []
        for row, cells in table.items():
            gap = cells[a].mean - cells[b].mean
            p = paired_p(cells[a].values, cells[b].values)
            level = abs(gap) <= tolerance + 1e-12 and p >= ALPHA
            agree += level
            lines.append(f"{row}: {a} {_f(cells[a].mean)} vs {b} {_f(cells[b].mean)}: gap {gap:+.3f}, two-sided "
                         f"{PAIRED_TEST} over the {len(cells[a].values)} shared partitions {_p(p)} "
                         f"({'level' if level else 'not level'})")
        return (NEEDS[claim.need](agree, len(table)), lines,
                f"level (gap within {tolerance:g} and {PAIRED_TEST} p ≥ {ALPHA:g}) on {agree} of {len(table)} rows "
                f"(needs {claim.need})")
    agree, lines = 0, []
    for row, cells in table.items():
        said, _ = verdict(cells[a].mean, cells[a].sd, cells[b].mean, cells[b].sd, claim.metric)
        level = said.split()[0] in ("matches", "within")
        agree += level
        lines.append(f"{row}: {a} {_f(cells[a].mean)} vs {b} {_f(cells[b].mean)}: "
                     + ("level" if said == "matches" else said))
    return NEEDS[claim.need](agree, len(table)), lines, f"level on {agree} of {len(table)} rows (needs {claim.need})"


def _rank_matrix(claim, table):
    """Each column's rank on each row (1 = highest value; values equal at the paper's precision tie
    and share their mean rank: two means 2e-16 apart are one number in any table)."""
    precision = _published.PRECISION[claim.paper]
    return np.array([rankdata([-round(cells[c].mean / precision) for c in claim.columns]) for cells in table.values()])


def _average_ranks(claim, table):
    """The rows' ranks (:func:`_rank_matrix`) averaged per column: the paper's Friedman ranks."""
    return dict(zip(claim.columns, _rank_matrix(claim, table).mean(axis=0)))


RANKS_READ = "1 = best; values equal at the paper's precision share their mean rank"


def _rank_lines(claim, table, ranks):
    lines = [f"{row}: " + ", ".join(f"{c} {_f(cells[c].mean)}" for c in claim.columns) for row, cells in table.items()]
    return lines, (f"average ranks over {len(table)} row{'s' * (len(table) != 1)} ({RANKS_READ}): "
                   + ", ".join(f"{c} {r:.2f}" for c, r in ranks.items()))


def _ranked(decide_ranks):
    def test(claim, table):
        ranks = _average_ranks(claim, table)
        lines, summary = _rank_lines(claim, table, ranks)
        return decide_ranks(claim.columns, ranks), lines, summary
    return test


def friedman(ranks):
    """(χ²_F, p) of the Friedman test on a rows × columns matrix of ranks, by the formula the RWM
    paper and Demšar (2006) use, χ²_F = 12N / (k(k+1)) · (Σ_j R_j² − k(k+1)²/4), with k − 1 degrees
    of freedom (no correction for ties: the paper's 20.83 for its Table 2 comes out of its printed
    accuracies this way)."""
    n, k = ranks.shape
    average = ranks.mean(axis=0)
    statistic = 12 * n / (k * (k + 1)) * (float(np.sum(average ** 2)) - k * (k + 1) ** 2 / 4)
    return statistic, float(chi2.sf(statistic, k - 1))


def nemenyi_cd(k, n, alpha):
    """(critical difference, q_α) of the Nemenyi test: two of ``k`` columns ranked over ``n`` rows
    differ at level ``alpha`` when their average ranks differ by at least CD = q_α √(k(k+1)/(6n)),
    q_α the Studentized range at infinite degrees of freedom over √2 (Demšar's 2.569 for k = 4 at
    0.05)."""
    q = float(studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))
    return q * np.sqrt(k * (k + 1) / (6 * n)), q


def _nemenyi(claim, table):
    """The paper's own test of its rank claims: the Friedman test over the rows at the claim's
    ``alpha``, then, where it rejects equal ranks, the Nemenyi test on each pair of ``claim.pairs``.
    ``nemenyi``: each pair's first column ranks better than its second by at least the critical
    difference; ``nemenyi level``: no pair differs by that much (or the Friedman test finds no
    difference at all)."""
    ranks = _rank_matrix(claim, table)
    n, k = ranks.shape
    average = dict(zip(claim.columns, ranks.mean(axis=0)))
    statistic, p = friedman(ranks)
    cd, q = nemenyi_cd(k, n, claim.alpha)
    rejects = p < claim.alpha
    found = []
    for a, b in claim.pairs:
        gap = average[b] - average[a]  # > 0: a ranks better
        significant = rejects and abs(gap) >= cd
        compared = (f"{'better' if gap > 0 else 'worse'} than {b} by {abs(gap):.2f}" if gap
                    else f"level with {b} (average ranks equal)")
        found.append((significant and gap > 0, significant,
                      f"{a} {compared} ({'significant' if significant else 'not significant'})"))
    holds = all(better for better, _, _ in found) if claim.test == "nemenyi" else not any(s for _, s, _ in found)
    lines = [f"{row}: " + ", ".join(f"{c} {_f(cells[c].mean)}" for c in claim.columns) for row, cells in table.items()]
    summary = (f"average ranks over {n} row{'s' * (n != 1)} ({RANKS_READ}): "
               + ", ".join(f"{c} {r:.2f}" for c, r in average.items())
               + f"; Friedman χ²_F = {statistic:.2f} ({k - 1} degrees of freedom), {_p(p)}"
               + (f", equal ranks rejected at α = {claim.alpha:g}" if rejects
                  else f", equal ranks not rejected at α = {claim.alpha:g}, so no pair differs")
               + f"; Nemenyi critical difference {cd:.3f} (q = {q:.3f}, α = {claim.alpha:g}): "
               + ", ".join(text for _, _, text in found))
    return holds, lines, summary


#: Claim tests by name: ``(claim, {row: {column: Cell}}) -> (holds, lines, summary)``.
TESTS = {
    "beats": _beats,
    "above": _above,
    "comparable": _comparable,
    "faster": _faster,
    "paired over rows": _paired_over_rows,
    # the subject ranks strictly worst / not strictly best
    "last": _ranked(lambda cols, r: all(r[cols[0]] > r[c] for c in cols[1:])),
    "not first": _ranked(lambda cols, r: any(r[c] <= r[cols[0]] for c in cols[1:])),
    # the paper's Friedman + Nemenyi test over the rows, on Claim.pairs at Claim.alpha
    "nemenyi": _nemenyi,
    "nemenyi level": _nemenyi,
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
            table.setdefault(v.row, {})[v.model] = Cell(_published.read(v), v.sd, measured=False)
    return table


def _pairable(cell):
    """The values a compared cell offers the paired tests: its per-partition values, or for a
    single value its per-fold scores (recorded by CkRBF's runner)."""
    if len(cell["values"]) >= 2:
        return tuple(cell["values"])
    parts = cell.get("parts") or []
    if len(parts) == 1 and len(parts[0].get("fold_values", ())) >= 2:
        return tuple(parts[0]["fold_values"])
    return ()


def evaluate(paper, cells, not_papers=None, blas_threads=None):
    """Every claim of ``paper`` decided on ``cells`` (the report's compared cells): a list of
    ``{"claim", "table", "status", "summary", "cells", "flagged", "excluded", "paper_on_these_rows"}``.

    ``status`` is "reproduced", "not reproduced", "not testable here" (the table or the
    columns were not run), or "undecided: rests on untrustworthy cells"; ``flagged`` lists the
    deciding cells whose verdict a blocking diagnostic gave, and ``trusted`` the claim decided again
    without their rows: where that turns the verdict (or leaves no row), the claim is undecided;
    ``paper_on_these_rows`` is whether the paper's own values on the same rows bear the claim
    out ("holds", "does not hold"). ``not_papers`` maps (table, row) to how the row's data differ
    from the paper's: such a row does not decide a claim (CKSVMNDA's Breast-Cancer run on the
    Wisconsin set, 683 × 10, is another experiment than the paper's Ljubljana set, 277 × 9); the
    claim lists it in ``excluded`` with the reason. ``blas_threads``: the most BLAS threads any of the
    cells recorded (None when none recorded it): a "faster" claim compares CPU seconds, which with more
    than one thread count the threads' waiting (the MCPM run of 2026-11-28: a kernel MPM fit took 2.95 ×
    the CPU seconds with two threads on a free core, 212 × beside another BLAS process), so on such
    cells it is undecided.
    """
    not_papers = not_papers or {}
    out = []
    for claim in (c for c in _published.CLAIMS if c.paper == paper):
        protocol = [c for c in cells if c["table"] == claim.table and c["metric"] == claim.metric
                    and not c["variant"]]
        table, excluded = {}, {}
        for c in protocol:
            if (claim.table, c["row"]) in not_papers:
                excluded[c["row"]] = not_papers[claim.table, c["row"]]
                continue
            table.setdefault(c["row"], {})[c["model"]] = Cell(c["mean"], c["sd"], _pairable(c))
        holds, lines, summary = decide(claim, table)
        record = {"claim": claim.text, "table": claim.table, "cells": lines, "summary": summary,
                  "flagged": [], "paper_on_these_rows": None,
                  "excluded": [f"{row} ({why})" for row, why in excluded.items()
                               if all(any(c["row"] == row and c["model"] == m for c in protocol)
                                      for m in claim.columns)]}
        if holds is None:
            record["status"] = "not testable here"
        else:
            record["status"] = "reproduced" if holds else "not reproduced"
            rows = _rows_for(claim, table)
            flagged = [c for c in protocol if c["row"] in rows and c["model"] in claim.columns
                       and blocking_verdict(c["diagnostics"])]
            record["flagged"] = [f"{c['row']} {c['model']}: {c['verdict']}" for c in flagged]
            if flagged:
                untrusted = sorted({c["row"] for c in flagged})
                again, _, again_summary = decide(claim, {r: v for r, v in table.items() if r not in untrusted})
                record["trusted"] = (f"without the rows of flagged cells ({', '.join(untrusted)}): "
                                     + ("no row is left" if again is None else again_summary))
                if again is not holds:
                    record["status"] = "undecided: rests on untrustworthy cells"
            if claim.test == "faster" and (blas_threads or 1) > 1:
                record["status"] = (f"undecided: timed with {blas_threads} BLAS threads (CPU seconds count "
                                    "the threads' waiting)")
            theirs, _, _ = decide(claim, _published_table(claim, rows))
            record["paper_on_these_rows"] = None if theirs is None else ("holds" if theirs else "does not hold")
        out.append(record)
    return out
