"""Signs, computed from what a runner recorded per partition, that a reproduced cell does not
measure what the paper's number measures.

A cell that agrees with the paper can still be empty: a model that predicts the majority class
on every test part scores the class balance, and lands "within" the paper's spread on a data
set whose paper value is near that balance (the MCPM paper's Pima). Each diagnostic here is
decided by numbers the report prints beside it; those in :data:`BLOCKING` mean the cell's number does
not measure the model the paper's column names (one class, the majority rate, a tenth or more of its
fits stopped at the iteration cap, the continuous attributes unused, another column's very values),
and such a cell never gets a verdict "matches" or "within" (:func:`kernelviz.reproduce.report.compare`):
its verdict says what happened instead.

The records come from :func:`kernelviz.reproduce.runner.part`: per value of a measurement, its
training and test sizes, the test parts' majority rate, the predicted class counts (where the
runner sees the predictions) and the chosen parameters; :attr:`Measurement.grid` holds the
values searched.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["DIAGNOSTICS", "BLOCKING", "BOUNDED", "CAPPED_LIMIT", "MAJORITY_TOLERANCE", "TIMES", "TOLERANCE",
           "diagnose", "blocking_verdict", "one_test_error", "percent", "too_capped", "verdict"]

#: Every diagnostic, and what it means when a cell carries it.
DIAGNOSTICS = {
    "one-class": "the model predicts a single class on a test part: it learned nothing there",
    "majority-level": "the mean is at most one test error (or one point, whichever is larger) above the test "
                      "parts' majority rate (what predicting the largest class scores), or below it: the cell "
                      "shows no learning beyond the class balance",
    "grid-edge": "a chosen parameter sits at its grid's edge for more than half the cell's values (partitions, "
                 "folds or repetitions): the best value may lie outside the grid. A corner that ties with an "
                 "interior cell is not counted (every runner records the cells tied with the best); cells of "
                 "earlier code that recorded none get the flag with a warning, since that code broke ties toward "
                 "the first candidate in grid order (the smallest values) and an edge may then be a tie-break",
    "tied-best": "the best score is reached by several grid cells (a plateau); the value is read at the tied "
                 "cell nearest the plateau's centre in grid steps, a rule that favours no corner",
    "capped": "libsvm fits stopped at the iteration cap: their solutions are not the optimum (10 % or more of "
              "a cell's fits capped: its number is not trusted)",
    "continuous-unused": "α = 0 (the continuous attributes' weight) was chosen in more than half the folds: "
                         "the kernel ignores the continuous attributes",
    "identical-to": "every per-partition value equals another column's: the cell cannot tell the two models "
                    "apart",
}

#: Diagnostics whose cell gets this verdict instead of "matches" / "within", in this order of precedence.
#: Identical values are not called degenerate: on Twonorm the linear MPM, the kernel MPM and MCPM with
#: LPPK make the same predictions (each one the Bayes boundary), which is no fault of theirs, but the
#: cell then cannot tell the models apart as the paper's column does.
BLOCKING = {
    "one-class": "degenerate: predicts one class",
    "majority-level": "majority level",
    "capped": "untrustworthy: capped",
    "continuous-unused": "degenerate: ignores the continuous attributes",
    "identical-to": "identical to {other}",
}

#: The share of capped fits from which a cell's number is not trusted (its verdict is
#: "untrustworthy: capped"): below it the cell is marked with its share and compared.
CAPPED_LIMIT = 0.10

#: Parameters whose grid spans their whole range (RWM's attribute weights α, β ∈ [0, 1]): a choice at
#: its end is no sign that the search stopped short, so grid-edge leaves them out.
BOUNDED = ("continuous_weight", "categorical_weight")

#: "Within one point" of the majority rate, for accuracies.
MAJORITY_TOLERANCE = 0.01


def _one_class(m, measurements):
    """Test parts on which the model predicted a single class: per fold where the runner recorded
    each fold's predictions (CkRBF's best cells), else per value."""
    recorded = [counts for p in m.parts for counts in (p["predicted_folds"] if "predicted_folds" in p
                                                        else [p["predicted"]] if "predicted" in p else [])]
    single = [next(iter(counts)) for counts in recorded if len(counts) == 1]
    if not single:
        return None
    labels = ", ".join(dict.fromkeys(single))
    return {"text": f"one-class: predicts only class {labels} on {len(single)} of {len(recorded)} test parts",
            "parts": len(single), "of": len(recorded)}


def one_test_error(parts):
    """What one more misclassified test point costs a value's accuracy (1 / its test points, the
    test parts it averages together), averaged over the values."""
    return float(np.mean([1.0 / sum(p["test"]) for p in parts]))


def _majority_level(m, measurements):
    """The mean no more than one test error (or one point, whichever is larger) above the test parts'
    majority rate, or below it (worse than always predicting the largest class is no better a sign)."""
    if m.metric != "accuracy" or not m.parts or not m.values:
        return None
    majority = float(np.mean([p["majority"] for p in m.parts]))
    margin = max(MAJORITY_TOLERANCE, one_test_error(m.parts))
    if m.mean - majority > margin + 1e-12:
        return None
    relation = ("=" if f"{m.mean:.3f}" == f"{majority:.3f}" else
                "below" if m.mean < majority else f"{m.mean - majority:.3f} above")
    return {"text": f"majority-level: mean {m.mean:.3f} {relation} majority rate {majority:.3f} of the test parts, "
                    f"within the margin {margin:.4f} (one test error, {one_test_error(m.parts):.4f}, or "
                    f"{MAJORITY_TOLERANCE:g}, whichever is larger)",
            "mean": m.mean, "majority": majority, "margin": margin}


def _grid_edge(m, measurements):
    """A value counts as at the edge when its chosen parameter is, and — where the part records
    the plateau of cells tied with the best — every tied cell is too: a corner that ties with an
    interior cell says nothing about the grid being too small."""
    found = []
    chosen = [p.get("chosen", {}) for p in m.parts]
    for name, values in m.grid.items():
        grid = np.unique(np.asarray(values, dtype=float))
        picks = [c[name] for c in chosen if name in c]
        if name in BOUNDED or len(grid) < 3 or not picks:  # two values: every choice is an edge
            continue

        def at_edge(v):
            return bool(np.isclose(v, grid[0]) or np.isclose(v, grid[-1]))

        edges = [p["chosen"][name] for p in m.parts if name in p.get("chosen", {}) and at_edge(p["chosen"][name])
                 and all(at_edge(t[name]) for t in p.get("plateau", ()) if name in t)]
        if len(edges) > len(chosen) / 2:
            counts = ", ".join(f"{v:g} ×{edges.count(v)}" for v in dict.fromkeys(edges))
            unrecorded = not any("plateau" in p for p in m.parts)
            found.append({"text": f"grid-edge: {name} at its grid's edge ({grid[0]:g} or {grid[-1]:g}) for "
                                  f"{len(edges)} of {len(chosen)} values ({counts})"
                                  + ("; ties with other candidates were not recorded, and the code that computed "
                                     "these cells broke them toward the first in grid order (the smallest values): "
                                     "an edge may be a tie-break" if unrecorded else ""),
                          "parameter": name, "parts": len(edges), "of": len(chosen)})
    return found


#: How many cells of a plateau the tied-best flag names (RWM's can hold hundreds of candidates).
SHOWN_TIED = 6


def _tied_best(m, measurements):
    """The plateaus of tied best cells the runner recorded, with the chosen one (the first
    :data:`SHOWN_TIED` cells of a plateau are named, the rest counted)."""
    tied = [p for p in m.parts if len(p.get("plateau", ())) > 1]
    if not tied:
        return None
    shown = tied[0]

    def cell(c):
        return "(" + ", ".join(f"{k} {v:g}" for k, v in c.items()) + ")"

    cells = ", ".join(cell(c) for c in shown["plateau"][:SHOWN_TIED])
    if len(shown["plateau"]) > SHOWN_TIED:
        cells += f" and {len(shown['plateau']) - SHOWN_TIED} more"
    return {"text": f"tied-best: the best score is reached by {len(shown['plateau'])} grid cells: {cells}; read at "
                    f"{cell(shown['chosen'])}, the tied cell nearest the plateau's centre"
                    + (f" ({len(tied)} of {len(m.parts)} values have such a plateau)" if len(m.parts) > 1 else ""),
            "cells": len(shown["plateau"]), "parts": len(tied), "of": len(m.parts)}


def too_capped(share):
    """Whether a cell's share of capped fits makes its number untrusted: the one rule the verdict,
    the diagnostic's text and the report's explanation all follow (from :data:`CAPPED_LIMIT` on;
    the margin keeps a share of exactly 10 % computed as 0.0999… on the limit's side)."""
    return share >= CAPPED_LIMIT - 1e-12


def percent(share):
    """A share as the reports print it: whole percents, and "< 1 %" for a share that rounds to 0 but is
    not 0 (one capped fit in 500 is not none)."""
    return "< 1 %" if 0 < share < 0.005 else f"{100 * share:.0f} %"


def _capped(m, measurements):
    if not m.capped_share:
        return None
    limit = f" (≥ {100 * CAPPED_LIMIT:.0f} %: the number is not trusted)" if too_capped(m.capped_share) else ""
    return {"text": f"capped: {percent(m.capped_share)} of the libsvm fits stopped at the iteration cap{limit}",
            "share": m.capped_share}


def _continuous_unused(m, measurements):
    weights = [p["chosen"]["continuous_weight"] for p in m.parts if "continuous_weight" in p.get("chosen", {})]
    unused = sum(1 for w in weights if w == 0)
    if not weights or unused <= len(m.parts) / 2:
        return None
    return {"text": f"continuous-unused: α = 0 chosen in {unused} of {len(weights)} folds, so {m.model} ignores the "
                    "continuous attributes", "parts": unused, "of": len(weights)}


def _predictions(m):
    return [p.get("predicted") for p in m.parts]


def _folds(m):
    """The per-fold scores behind a single value (CkRBF's best cells record them), else None."""
    if len(m.parts) != 1 or "fold_values" not in m.parts[0]:
        return None
    return [float(v) for v in m.parts[0]["fold_values"]]


def _identical(m, measurements):
    """Other columns of the row (same table, variant and metric) with exactly m's values. Needs two
    values at least (one equal mean is common by chance) — for a single value, its per-fold scores
    where the runner recorded them — and not all perfect (two perfect models agree without being
    one). Where both recorded their predicted class counts, the text says in how many partitions
    those differ: equal accuracies from other predictions."""
    values, what = [float(v) for v in m.values], "per-partition values"
    if len(values) < 2:
        values, what = _folds(m), "per-fold scores of its single value"
    if values is None or len(values) < 2 or all(v == 1.0 for v in values):
        return None

    def same_values(o):
        theirs = [float(v) for v in o.values] if len(m.values) >= 2 else _folds(o)
        return theirs == values and [float(v) for v in o.values] == [float(v) for v in m.values]

    same = [o for o in measurements
            if o is not m and (o.paper, o.table, o.row, o.variant, o.metric) == (m.paper, m.table, m.row, m.variant,
                                                                                 m.metric) and same_values(o)]
    if not same:
        return None
    text = f"identical-to: the same {len(values)} {what} as {', '.join(o.model for o in same)}"
    for o in same:
        differ = sum(a is not None and b is not None and a != b for a, b in zip(_predictions(o), _predictions(m)))
        if differ:
            text += f" (predicted class counts differ from {o.model}'s in {differ} of {len(m.parts)})"
    return {"text": text, "other": [o.model for o in same]}


#: How each diagnostic is decided: ``(measurement, the run's measurements) -> record(s) or None``.
_DECIDE = {"one-class": _one_class, "majority-level": _majority_level, "grid-edge": _grid_edge,
           "tied-best": _tied_best, "capped": _capped, "continuous-unused": _continuous_unused,
           "identical-to": _identical}


def diagnose(m, measurements=()):
    """The diagnostics of measurement ``m`` (among ``measurements``, the run's others, for
    identical-to): a list of ``{"name", "text", ...numbers}``, in :data:`DIAGNOSTICS` order."""
    found = []
    for name in DIAGNOSTICS:
        result = _DECIDE[name](m, measurements)
        for record in (result if isinstance(result, list) else [result] if result else []):
            found.append({"name": name, **record})
    return found


#: Largest gap still called a match, per metric (accuracy: one point; a win rate: one of six windows).
TOLERANCE = {"accuracy": 0.01, "alpha": 0.01, "pf_auc": 0.02, "win_rate": 1 / 6}

#: Metrics that are times: seconds on other hardware are not compared with the paper's as numbers
#: (their verdict is the ratio); the paper's claim about them is decided between columns.
TIMES = ("train_seconds", "test_seconds")


def verdict(ours, ours_sd, paper, paper_sd, metric):
    """('matches' | 'within x' | 'differs by x', gap) for one cell; for a time, ('timed: r × the
    paper's', gap), r the ratio: a 2008 machine's seconds are no target for today's."""
    gap = ours - paper
    if metric in TIMES:
        ratio = ours / paper if paper > 0 else math.inf
        return f"timed: {ratio:.3g} × the paper's (other hardware)", gap
    if abs(gap) <= TOLERANCE[metric] + 1e-12:
        return "matches", gap
    spreads = [s for s in (ours_sd, paper_sd) if s is not None and math.isfinite(s)]
    if spreads and abs(gap) <= 2 * math.sqrt(sum(s * s for s in spreads)):
        return f"within {abs(gap):.3f}", gap
    return f"differs by {gap:+.3f}", gap


def blocking_verdict(diagnostics):
    """The verdict a cell with a blocking diagnostic gets instead of its comparison's, or ''.
    The capped diagnostic blocks from :data:`CAPPED_LIMIT` of the fits on."""
    for name, verdict in BLOCKING.items():
        for d in diagnostics:
            if d["name"] == name and (name != "capped" or too_capped(d["share"])):
                return verdict.format(other=", ".join(d.get("other", ())))
    return ""
